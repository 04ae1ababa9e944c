//! `switchboard automation add|list|show|pause|resume|run-now|remove`:
//! work that starts by itself, and how the command line shows it.

use std::io::Write;

use anyhow::Result;
use switchboard_api::protocol::AutomationId;
use switchboard_api::protocol::loops::LoopSettings;
use switchboard_api::{
    Automation, AutomationAction, AutomationSpec, CatchUp, DEFAULT_RUNS_PER_HOUR, Overlap, Profile, RunOutcome,
    TaskEnd, Trigger,
};
use switchboard_client::blocking::Client;

use crate::agent::find_in;
use crate::print::{columns, first_line, one_line, print, words};
use crate::{AutomationCommand, CatchUpArg, OverlapArg, TaskEndArg};

pub(crate) fn run(client: &Client, command: AutomationCommand, out: &mut impl Write) -> Result<()> {
    let profiles = client.list_profiles()?;
    let view = |automation: &Automation| AutomationView::new(automation, &profiles);
    match command {
        add @ AutomationCommand::Add { .. } => {
            let (spec, output) = spec_of(add, &profiles)?;
            let made = client.create_automation(spec)?;
            print(out, output, &view(&made), |a| a.id.clone())
        }
        AutomationCommand::List { output } => {
            let all: Vec<AutomationView> = client.list_automations()?.iter().map(view).collect();
            print(out, output, &all, |all| {
                if all.is_empty() {
                    return "no automations".to_owned();
                }
                columns(all.iter().map(|a| {
                    vec![
                        a.id.clone(),
                        words(&a.state),
                        a.agent.clone(),
                        a.when.clone(),
                        a.next_run.map_or_else(|| "-".to_owned(), time),
                        first_line(&a.name, 50),
                    ]
                }))
            })
        }
        AutomationCommand::Show { id, output } => {
            let shown = client.get_automation(parse_id(&id)?)?;
            print(out, output, &view(&shown), describe)
        }
        AutomationCommand::Pause { id, output } => {
            let shown = client.pause_automation(parse_id(&id)?)?;
            print(out, output, &view(&shown), |a| format!("paused “{}”; it starts nothing until resumed", a.name))
        }
        AutomationCommand::Resume { id, output } => {
            let shown = client.resume_automation(parse_id(&id)?)?;
            print(out, output, &view(&shown), |a| match a.next_run {
                Some(next) => format!("resumed “{}”; it runs next at {}", a.name, time(next)),
                None => format!("resumed “{}”", a.name),
            })
        }
        AutomationCommand::RunNow { id, output } => {
            let shown = client.run_automation_now(parse_id(&id)?)?;
            print(out, output, &view(&shown), |a| match a.history.last() {
                Some(run) => format!("ran “{}”: {}", a.name, run_words(run)),
                None => format!("ran “{}”", a.name),
            })
        }
        AutomationCommand::Remove { id, output } => {
            client.remove_automation(parse_id(&id)?)?;
            print(out, output, &serde_json::json!({"removed": id}), |_| format!("removed automation {id}"))
        }
    }
}

/// The automation `automation add` describes, and how to print it.
fn spec_of(command: AutomationCommand, profiles: &[Profile]) -> Result<(AutomationSpec, crate::Output)> {
    let AutomationCommand::Add {
        agent,
        every,
        rrule,
        after,
        on,
        on_change,
        inside,
        on_branch,
        repo,
        zone,
        as_loop,
        catch_up,
        overlap,
        max_per_hour,
        budget,
        text,
        output,
    } = command
    else {
        anyhow::bail!("not an automation to add");
    };
    let profile = find_in(profiles, &agent)?;
    let trigger = match (every, rrule, after) {
        _ if !on_change.is_empty() => {
            let dir = inside.ok_or_else(|| anyhow::anyhow!("--on-change needs --in DIR"))?;
            Trigger::FilesChanged { dir: absolute(&dir)?, globs: on_change }
        }
        _ if on_branch.is_some() => {
            let repo = repo.ok_or_else(|| anyhow::anyhow!("--on-branch needs --repo DIR"))?;
            Trigger::BranchMoved { repo: absolute(&repo)?, branch: on_branch.unwrap_or_default() }
        }
        (Some(every), _, _) => Trigger::Every { every },
        (_, Some(rrule), _) => Trigger::Rule { rrule },
        (_, _, Some(after)) => {
            let ended = match on {
                TaskEndArg::Completed => TaskEnd::Completed,
                TaskEndArg::Failed => TaskEnd::Failed,
                TaskEndArg::Any => TaskEnd::Any,
            };
            Trigger::TaskEnded { profile_id: find_in(profiles, &after)?.id.clone(), ended }
        }
        _ => anyhow::bail!(
            "say when it runs: --every SPEC, --rrule RRULE, --after AGENT, --on-change GLOB --in DIR or \
                     --on-branch BRANCH --repo DIR"
        ),
    };
    let text = text.join(" ");
    let action = if as_loop {
        AutomationAction::Loop { settings: LoopSettings { budget, ..LoopSettings::new(text) } }
    } else {
        AutomationAction::Task { instruction: text, title: None, budget, time_limit_secs: None }
    };
    let spec = AutomationSpec {
        profile_id: profile.id.clone(),
        trigger,
        action,
        zone,
        overlap: match overlap {
            OverlapArg::Skip => Overlap::Skip,
            OverlapArg::Queue => Overlap::Queue,
        },
        catch_up: match catch_up {
            CatchUpArg::Once => CatchUp::Once,
            CatchUpArg::Skip => CatchUp::Skip,
        },
        max_runs_per_hour: max_per_hour.unwrap_or(DEFAULT_RUNS_PER_HOUR),
    };
    Ok((spec, output))
}

/// A folder named on the command line, made absolute from where it was
/// typed (the engine runs elsewhere). Given `--host`, it is a path there.
fn absolute(dir: &str) -> Result<String> {
    let path = std::path::Path::new(dir);
    if path.is_absolute() {
        return Ok(dir.to_owned());
    }
    Ok(std::env::current_dir()?.join(path).display().to_string())
}

fn parse_id(text: &str) -> Result<AutomationId> {
    text.trim().parse().map_err(|e| anyhow::anyhow!("{e}: pass the full id that `switchboard automation list` prints"))
}

/// A time as the command line prints it: UTC, to the second.
fn time(at: i64) -> String {
    jiff::Timestamp::from_millisecond(at).map_or_else(
        |_| at.to_string(),
        |t| t.round(jiff::Unit::Second).map_or_else(|_| t.to_string(), |t| t.to_string()),
    )
}

/// An automation as the command line prints it (`--json` included).
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub struct AutomationView {
    pub id: String,
    pub name: String,
    pub agent: String,
    /// active or paused.
    pub state: String,
    /// Why it is paused; none while active.
    pub reason: Option<String>,
    /// When it runs, in words: its schedule, or the chain it follows.
    pub when: String,
    /// An IANA zone its schedule is in; none: the engine machine's.
    pub zone: Option<String>,
    /// When it runs next (Unix ms); none for a chain, or while paused.
    pub next_run: Option<i64>,
    /// A branch trigger's: the commit its branch was last seen at.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub branch_at: Option<String>,
    /// task or loop.
    pub does: String,
    pub text: String,
    /// Every run kept, oldest first.
    pub history: Vec<RunView>,
}

#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub struct RunView {
    pub fired_at: i64,
    /// Why it fired, in words.
    pub reason: String,
    /// The task it queued, if it did.
    pub task: Option<String>,
    /// The loop it started, if it did.
    #[serde(rename = "loop")]
    pub loop_id: Option<String>,
    /// How its work stands (a task's or loop's state), or skipped.
    pub outcome: String,
    /// Why it was skipped.
    pub skipped: Option<String>,
    /// What its task cost (null when a price is unknown or it made none).
    pub cost_usd: Option<switchboard_api::Usd>,
}

impl AutomationView {
    pub fn new(automation: &Automation, profiles: &[Profile]) -> AutomationView {
        let agent_name = |id: &switchboard_api::protocol::ProfileId| {
            profiles.iter().find(|p| &p.id == id).map_or_else(|| "(removed agent)".to_owned(), |p| p.spec.name.clone())
        };
        let spec = &automation.spec;
        let when = match &spec.trigger {
            Trigger::Every { every } => format!("every {every}"),
            Trigger::Rule { rrule } => format!("RRULE {rrule}"),
            Trigger::TaskEnded { profile_id, ended } => {
                format!("after {}'s tasks ({})", agent_name(profile_id), ended.as_str())
            }
            // As the window says it: patterns of every file go unsaid.
            Trigger::FilesChanged { dir, globs } if globs.iter().all(|glob| glob == "**/*") => {
                format!("when files change in {dir}")
            }
            Trigger::FilesChanged { dir, globs } => format!("when files matching {} change in {dir}", globs.join(", ")),
            Trigger::BranchMoved { repo, branch } => format!("when {branch} moves in {repo}"),
        };
        let (does, text) = match &spec.action {
            AutomationAction::Task { instruction, .. } => ("task", instruction.clone()),
            AutomationAction::Loop { settings } => ("loop", settings.goal.clone()),
        };
        AutomationView {
            id: automation.id.to_string(),
            name: spec.name(),
            agent: agent_name(&spec.profile_id),
            state: automation.state.as_str().to_owned(),
            reason: automation.state.reason(),
            when,
            zone: spec.zone.clone(),
            next_run: automation.next_run,
            branch_at: automation.branch_at.clone(),
            does: does.to_owned(),
            text,
            history: automation.runs.iter().map(RunView::new).collect(),
        }
    }
}

impl RunView {
    fn new(run: &switchboard_api::AutomationRun) -> RunView {
        let (task, loop_id, skipped, cost_usd) = match &run.outcome {
            RunOutcome::Task { task_id, cost_usd, .. } => (Some(task_id.to_string()), None, None, *cost_usd),
            RunOutcome::Loop { loop_id, .. } => (None, Some(loop_id.to_string()), None, None),
            RunOutcome::Skipped { why } => (None, None, Some(why.clone()), None),
        };
        RunView {
            fired_at: run.fired_at,
            reason: run.reason.clone(),
            task,
            loop_id,
            outcome: run.outcome.as_str().to_owned(),
            skipped,
            cost_usd,
        }
    }
}

/// A run in a line: what it made and how that stands, or why it made none.
fn run_words(run: &RunView) -> String {
    match (&run.skipped, &run.task, &run.loop_id) {
        (Some(why), _, _) => why.clone(),
        (_, Some(task), _) => format!("task {task} {}", words(&run.outcome)),
        (_, _, Some(id)) => format!("loop {id} {}", words(&run.outcome)),
        _ => words(&run.outcome),
    }
}

pub fn describe(view: &AutomationView) -> String {
    let mut text = format!(
        "automation {}\nname: {}\nagent: {}\nstate: {}\n",
        view.id,
        one_line(&view.name),
        view.agent,
        words(&view.state)
    );
    if let Some(reason) = &view.reason {
        text.push_str(&format!("why: {}\n", one_line(reason)));
    }
    text.push_str(&format!("runs: {}", view.when));
    if let Some(zone) = &view.zone {
        text.push_str(&format!(" ({zone})"));
    }
    text.push('\n');
    if let Some(next) = view.next_run {
        text.push_str(&format!("next run: {}\n", time(next)));
    }
    if let Some(commit) = &view.branch_at {
        text.push_str(&format!("branch at: {}\n", commit.chars().take(10).collect::<String>()));
    }
    text.push_str(&format!("does: {} · {}\n", view.does, first_line(&view.text, 80)));
    if view.history.is_empty() {
        text.push_str("history: no run yet\n");
    } else {
        text.push_str("history:\n");
        for run in &view.history {
            text.push_str(&format!("  {}  {} · {}\n", time(run.fired_at), one_line(&run.reason), run_words(run)));
        }
    }
    text
}
