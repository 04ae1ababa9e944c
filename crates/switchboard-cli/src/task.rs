//! `switchboard task add|list|show|cancel|type-now`: the engine's task queues.

use std::io::Write;

use anyhow::Result;
use switchboard_api::protocol::{Priority, TaskId};
use switchboard_api::{Submitted, TaskRecord, TaskSpec};
use switchboard_client::blocking::Client;

use crate::agent::{find_agent, find_in};
use crate::print::{columns, first_line, indent, one_line, print, words};
use crate::{PriorityArg, TaskCommand};

pub(crate) fn run(client: &Client, command: TaskCommand, out: &mut impl Write) -> Result<()> {
    match command {
        TaskCommand::Add { agent, priority, time_limit, base, budget, text, output } => {
            let profile = find_agent(client, &agent)?;
            let priority = match priority {
                PriorityArg::Urgent => Priority::Urgent,
                PriorityArg::Normal => Priority::Normal,
            };
            let spec = TaskSpec {
                priority,
                time_limit_secs: time_limit,
                base,
                budget,
                ..TaskSpec::new(profile.id.clone(), text.join(" "))
            };
            let submitted = client.submit_task(spec)?;
            print(out, output, &submitted, |s| submitted_line(s, &profile.spec.name))
        }
        TaskCommand::List { agent, output } => {
            let profiles = client.list_profiles()?;
            let profile_id = agent.map(|name| find_in(&profiles, &name).map(|p| p.id.clone())).transpose()?;
            let mut tasks = client.list_tasks(profile_id)?;
            tasks.sort_by_key(|t| (t.state.is_finished(), t.ended_at.unwrap_or(i64::MAX), t.spec.priority, t.order));
            print(out, output, &tasks, |tasks| {
                columns(tasks.iter().map(|t| {
                    let name = profiles.iter().find(|p| p.id == t.spec.profile_id).map_or("?", |p| &p.spec.name);
                    vec![
                        t.id.to_string(),
                        words(t.state.as_str()),
                        t.spec.priority.as_str().to_owned(),
                        name.to_owned(),
                        first_line(&t.spec.instruction, 60),
                    ]
                }))
            })
        }
        TaskCommand::Show { id, output } => {
            let task_id = parse_task_id(&id)?;
            let task = client.get_task(task_id)?;
            print(out, output, &task, describe_task)
        }
        TaskCommand::Cancel { id, output } => {
            let task_id = parse_task_id(&id)?;
            let task = client.cancel_task(task_id)?;
            print(out, output, &task, |t| format!("cancelled task {}", t.id))
        }
        TaskCommand::TypeNow { id, output } => {
            let task_id = parse_task_id(&id)?;
            let task = client.type_task_now(task_id)?;
            print(out, output, &task, |t| format!("task {} is typed into its agent now", t.id))
        }
    }
}

pub(crate) fn parse_task_id(text: &str) -> Result<TaskId> {
    text.parse().map_err(|e| anyhow::anyhow!("{e}: pass the full id that `switchboard task list` prints"))
}

/// "queued task … for N (position 2, waiting for task …)" or "started …".
pub fn submitted_line(submitted: &Submitted, agent: &str) -> String {
    let id = &submitted.task.id;
    match (submitted.position, &submitted.waiting_for) {
        (Some(position), Some(busy)) => {
            format!("queued task {id} for {agent} (position {position}, waiting for task {busy})")
        }
        (Some(position), None) => format!("queued task {id} for {agent} (position {position}; the queue is paused)"),
        (None, _) => format!("task {id} is {} on {agent}", submitted.task.state.as_str()),
    }
}

/// The human form of `task show`.
pub fn describe_task(task: &TaskRecord) -> String {
    let mut text = format!(
        "task {}\nstate: {}\npriority: {}\ntime limit: {} s\ninstruction:\n{}\n",
        task.id,
        words(task.state.as_str()),
        task.spec.priority.as_str(),
        task.spec.time_limit_secs.unwrap_or_default(),
        indent(&task.spec.instruction)
    );
    if let Some(budget) = task.spec.budget {
        text.push_str(&format!("budget: {}\n", crate::cost::budget_line(budget, task.spent.budget_used)));
    }
    if let Some(reason) = task.reason.as_deref() {
        text.push_str(&format!("reason: {}\n", one_line(reason)));
    }
    if task.state != switchboard_api::TaskState::Queued {
        text.push_str(&format!(
            "used: {}\n",
            crate::cost::spent_line(&task.spent.tokens, task.spent.cost_usd, task.spent.list_price)
        ));
        if let Some(team) = &task.spent.team_tokens {
            text.push_str(&format!(
                "its team used: {}\n",
                crate::cost::spent_line(team, task.spent.team_cost_usd, task.spent.list_price)
            ));
        }
    }
    if let Some(waiting) = &task.waiting_for {
        text.push_str(&format!("waiting for: {}\n", one_line(&waiting.in_words())));
    }
    if task.quiet_since.is_some() {
        text.push_str("may be stuck: no sign of life past its alert\n");
    }
    if let Some(progress) = task.progress.as_deref() {
        text.push_str(&format!("progress:\n{}\n", indent(progress)));
    }
    if let Some(result) = &task.result {
        if result.fallback {
            text.push_str("summary: (fallback — the agent wrote none)\n");
        }
        // The summary comes first, then the deliverables.
        if let Some((summary, deliverables)) = result.artifacts.split_first() {
            text.push_str(&format!("{}:\n{}\n", one_line(&summary.path), indent(&summary.content)));
            for artifact in deliverables {
                let cut = if artifact.truncated { ", cut" } else { "" };
                text.push_str(&format!("artifact: {} ({} bytes{cut})\n", one_line(&artifact.path), artifact.size));
            }
        }
        for rejected in &result.rejected {
            text.push_str(&format!("refused: {} ({})\n", one_line(&rejected.path), one_line(&rejected.reason)));
        }
    }
    text.trim_end().to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn task_show_says_what_a_task_waits_for_in_words() {
        use switchboard_api::WaitingFor;
        let mut task = switchboard_api::TaskInfo::queued(
            TaskId::new(),
            switchboard_api::TaskSpec::new(switchboard_api::protocol::ProfileId::new(), "Say hello"),
            0,
            1,
        );
        task.start(switchboard_api::protocol::SessionId::new(), 2);
        task.waiting_for = Some(WaitingFor::Prompt { last_line: "agent>\u{1b}[2K".into(), pattern: "demo> $".into() });
        let shown = describe_task(&task.clone().into());
        assert!(
            shown.contains(
                "waiting for: the agent's prompt: its screen ends with “agent>\\x1b[2K”, which the ready pattern “demo> $” does not match"
            ),
            "{shown}"
        );
        task.waiting_for = Some(WaitingFor::QueuePaused { reason: None });
        assert!(describe_task(&task.clone().into()).contains("waiting for: its agent's queue to resume: it is paused"));
        task.waiting_for = None;
        assert!(!describe_task(&task.clone().into()).contains("waiting for"));
    }
}
