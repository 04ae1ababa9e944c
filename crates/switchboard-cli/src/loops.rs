//! `switchboard loop start|list|show|cancel|resume`: an agent's fresh
//! sessions toward one goal, and how the command line shows them.

use std::io::Write;

use anyhow::Result;
use switchboard_api::protocol::LoopId;
use switchboard_api::protocol::loops::{LoopSettings, Verdict};
use switchboard_api::{Iteration, IterationOutcome, LoopInfo, Profile};
use switchboard_client::blocking::Client;

use crate::LoopCommand;
use crate::agent::find_in;
use crate::print::{columns, first_line, indent, one_line, print, words};

pub(crate) fn run(client: &Client, command: LoopCommand, out: &mut impl Write) -> Result<()> {
    let profiles = client.list_profiles()?;
    let view = |info: &LoopInfo| LoopView::new(info, &profiles);
    match command {
        LoopCommand::Start { agent, max, stop_word, promise, stall_after, time_limit, budget, goal, output } => {
            let profile = find_in(&profiles, &agent)?;
            let defaults = LoopSettings::new(goal.join(" "));
            let settings = LoopSettings {
                max_iterations: max.unwrap_or(defaults.max_iterations),
                stop_word: stop_word.unwrap_or_else(|| defaults.stop_word.clone()),
                stall_after: stall_after.unwrap_or(defaults.stall_after),
                promise,
                iteration_time_limit_secs: time_limit,
                budget,
                ..defaults
            };
            let info = client.start_loop(profile.id.clone(), settings)?;
            print(out, output, &view(&info), |v| v.id.clone())
        }
        LoopCommand::List { output } => {
            let loops: Vec<LoopView> = client.list_loops()?.iter().map(view).collect();
            print(out, output, &loops, |loops| {
                columns(loops.iter().map(|l| {
                    vec![
                        l.id.clone(),
                        words(&l.state),
                        format!("{}/{}", l.iterations, l.max_iterations),
                        l.agent.clone(),
                        first_line(&l.goal, 60),
                    ]
                }))
            })
        }
        LoopCommand::Show { id, output } => {
            let info = client.get_loop(parse_loop_id(&id)?)?;
            print(out, output, &view(&info), describe_loop)
        }
        LoopCommand::Cancel { id, output } => {
            let info = client.cancel_loop(parse_loop_id(&id)?)?;
            print(out, output, &view(&info), |l| format!("cancelled loop {}", l.id))
        }
        LoopCommand::Resume { id, output } => {
            let info = client.resume_loop(parse_loop_id(&id)?)?;
            print(out, output, &view(&info), |l| {
                format!("resumed loop {}; its next iteration is first in the queue", l.id)
            })
        }
    }
}

/// A loop as the command line prints it (`--json` included): its state in
/// one word, why it ended in a sentence, and its iterations.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub struct LoopView {
    pub id: String,
    pub agent: String,
    pub goal: String,
    /// active, complete, stalled or cancelled.
    pub state: String,
    /// Why it ended; none while active.
    pub reason: Option<String>,
    /// Iterations run (those that count toward the cap).
    pub iterations: u32,
    pub max_iterations: u32,
    pub stop_word: String,
    pub promise: Option<String>,
    pub stall_after: u32,
    pub iteration_time_limit_secs: Option<u32>,
    pub created_at: i64,
    /// What the whole loop may use, if it has a budget.
    pub budget: Option<switchboard_api::Budget>,
    /// How much of its budget it used, as the engine judged it.
    pub budget_used: Option<switchboard_api::BudgetUse>,
    /// What all its iterations used (`input`, `output`, `cache_read`,
    /// `cache_write`, `by_model`) and cost (null when a price is unknown).
    pub tokens: switchboard_api::TokenTotals,
    pub cost_usd: Option<switchboard_api::Usd>,
    /// Its costs are what its tokens would cost at list prices: its
    /// account pays by subscription.
    pub list_price: bool,
    /// Every iteration, oldest first, interrupted ones included.
    pub history: Vec<IterationView>,
}

#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub struct IterationView {
    pub number: u32,
    pub session_id: Option<String>,
    pub started_at: i64,
    /// running, ended or interrupted.
    pub outcome: String,
    pub ended_at: Option<i64>,
    pub stop_reason: Option<String>,
    /// continue, complete, stalled or cancelled: what the judge said after it.
    pub verdict: Option<String>,
    pub tokens: switchboard_api::TokenTotals,
    pub cost_usd: Option<switchboard_api::Usd>,
}

impl LoopView {
    pub fn new(info: &LoopInfo, profiles: &[Profile]) -> LoopView {
        let agent = profiles.iter().find(|p| p.id == info.profile_id).map_or("(removed agent)", |p| &p.spec.name);
        LoopView {
            id: info.id.to_string(),
            agent: agent.to_owned(),
            goal: info.settings.goal.clone(),
            state: info.state.as_str().to_owned(),
            reason: info.state.reason(),
            iterations: info.iterations_run(),
            max_iterations: info.settings.max_iterations,
            stop_word: info.settings.stop_word.clone(),
            promise: info.settings.promise.clone(),
            stall_after: info.settings.stall_after,
            iteration_time_limit_secs: info.settings.iteration_time_limit_secs,
            created_at: info.created_at,
            budget: info.settings.budget,
            budget_used: info.budget_used,
            tokens: info.spent.tokens.clone(),
            cost_usd: info.spent.cost_usd,
            list_price: info.spent.list_price,
            history: info.iterations.iter().map(IterationView::new).collect(),
        }
    }
}

impl IterationView {
    fn new(iteration: &Iteration) -> IterationView {
        let (outcome, ended_at, stop_reason, verdict) = match &iteration.outcome {
            IterationOutcome::Running => ("running", None, None, None),
            IterationOutcome::Ended { at, stop_reason, verdict } => {
                let verdict = match verdict {
                    Verdict::Continue => "continue",
                    Verdict::Complete { .. } => "complete",
                    Verdict::Stalled { .. } => "stalled",
                    Verdict::Cancelled => "cancelled",
                };
                ("ended", Some(*at), Some(stop_reason.clone()), Some(verdict.to_owned()))
            }
            IterationOutcome::Interrupted { at } => ("interrupted", Some(*at), None, None),
            IterationOutcome::FailedStart { at, exit, said } => {
                ("failed_start", Some(*at), Some(format!("{exit}: {said}").trim().to_owned()), None)
            }
        };
        IterationView {
            number: iteration.number,
            session_id: iteration.session_id.as_ref().map(ToString::to_string),
            started_at: iteration.started_at,
            outcome: outcome.to_owned(),
            ended_at,
            stop_reason,
            verdict,
            tokens: iteration.spent.tokens.clone(),
            cost_usd: iteration.spent.cost_usd,
        }
    }
}

/// The human form of `loop show`.
pub fn describe_loop(view: &LoopView) -> String {
    let mut text = format!(
        "loop {}\nagent: {}\nstate: {}\niterations: {} of at most {}\nstop word: {}\n",
        view.id,
        one_line(&view.agent),
        words(&view.state),
        view.iterations,
        view.max_iterations,
        one_line(&view.stop_word)
    );
    if let Some(promise) = &view.promise {
        text.push_str(&format!("promise: {}\n", one_line(promise)));
    }
    if let Some(reason) = &view.reason {
        text.push_str(&format!("why it ended: {}\n", one_line(reason)));
    }
    if let Some(budget) = view.budget {
        text.push_str(&format!("budget: {}\n", crate::cost::budget_line(budget, view.budget_used)));
    }
    text.push_str(&format!("used: {}\n", crate::cost::spent_line(&view.tokens, view.cost_usd, view.list_price)));
    text.push_str(&format!("goal:\n{}\n", indent(&view.goal)));
    for iteration in &view.history {
        let said = match (&iteration.verdict, &iteration.stop_reason) {
            (Some(verdict), Some(reason)) => format!("{verdict} · {}", first_line(reason, 60)),
            _ => String::new(),
        };
        let used = iteration.tokens.all();
        let used = if used > 0 { format!(" · {} tokens", switchboard_api::thousands(used)) } else { String::new() };
        let line = format!("  #{:<3} {:<15} {said}{used}", iteration.number, words(&iteration.outcome));
        text.push_str(line.trim_end());
        text.push('\n');
    }
    text.trim_end().to_owned()
}

fn parse_loop_id(text: &str) -> Result<LoopId> {
    text.parse().map_err(|e| anyhow::anyhow!("{e}: pass the full id that `switchboard loop list` prints"))
}
