//! The one rule for what an agent asks of the user's attention
//! ([`Attention`]): a pure function of what the engine knows of the agent
//! ([`Facts`]), gathered by the engine (`engine::attention`) and read by every
//! place that shows an agent's state.
//!
//! The order, most pressing first, and why:
//!
//! 1. **Needs you**: a question, permission, blocker, delegation or report
//!    waits for the user. Nothing of the agent moves until they answer, and
//!    only they can; every minute it waits is lost.
//! 2. **Stalled / may be stuck**: a loop stopped on the same reason, or a task
//!    whose agent shows no life past its alert. Work is held and time may be
//!    spent for nothing, but the user may not be needed (a quiet agent can
//!    resume by itself), so it comes after a sure wait for them.
//! 3. **Failed since you last looked**: the damage is done and nothing waits
//!    on it; the user should look, but after what holds work now. It stays
//!    until the user opens the agent, so a failure is never covered by the
//!    next task starting.
//! 4. **Working**, 5. **idle**, 6. **stopped**: what the agent does, nothing
//!    asked of the user; a stopped agent says how it ended and how many of its
//!    last session's tasks failed.

use switchboard_protocol::hook::AgentStatus;
use switchboard_protocol::signal::{ScanEvent, SignalBody};
use switchboard_protocol::{LoopId, TaskId};

use switchboard_api::{Attention, Ending, Millis, Need, SignalInfo, Stall, TaskInfo, TaskState};

/// A wait for the user, from its signal or permission request or hooks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Wait {
    pub need: Need,
    pub since: Millis,
    pub task_id: Option<TaskId>,
    pub signal_id: Option<switchboard_protocol::SignalId>,
}

impl Wait {
    /// A pending signal's wait, in the user's terms.
    pub fn of_signal(signal: &SignalInfo) -> Wait {
        let need = match &signal.scan {
            ScanEvent::Signal { signal } => match &signal.body {
                SignalBody::Clarification { questions, .. } => Need::Question {
                    questions: questions.len() as u32,
                    first: questions.first().cloned().unwrap_or_default(),
                },
                SignalBody::StopWork { blocker_type, .. } => Need::Blocker { blocker: blocker_type.clone() },
                SignalBody::Delegate { .. } => Need::Delegation,
                SignalBody::Completion { .. } => Need::Report,
            },
            ScanEvent::Malformed { .. } => Need::Unreadable,
        };
        Wait { need, since: signal.created_at, task_id: signal.task_id.clone(), signal_id: Some(signal.id.clone()) }
    }
}

/// Everything the rule reads of one agent.
#[derive(Debug, Clone, Default)]
pub struct Facts<'a> {
    /// Its running session's start; none when it does not run.
    pub running: Option<Millis>,
    /// What its running session's hooks say, and since when (none: no hooks
    /// reported).
    pub hooks: Option<(AgentStatus, Millis)>,
    /// Its signals and permission requests waiting for the user.
    pub waits: Vec<Wait>,
    /// Its task at work.
    pub task: Option<&'a TaskInfo>,
    /// Since when it has been in its plain state (working, idle, stopped),
    /// as the overview tells it.
    pub since: Option<Millis>,
    /// Its stalled loop: id, goal, since, why.
    pub stalled_loop: Option<(LoopId, String, Millis, String)>,
    /// Its tasks that failed or timed out since the user last looked at it,
    /// newest first.
    pub unseen_failures: Vec<&'a TaskInfo>,
    /// How its last session ended, when none runs.
    pub ended: Option<Ending>,
    /// Tasks failed in its last session, when none runs.
    pub failed_in_last_session: u32,
    /// Titles of tasks, for the task a wait came from.
    pub titles: Vec<(TaskId, String)>,
    /// Its account's usage limit, when it is at it.
    pub limit: Option<LimitFact>,
    /// Its task waits for the user to see to its account: what to do.
    pub account_problem: Option<(String, Millis)>,
}

/// An account's usage limit, as an agent of it reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LimitFact {
    pub account: String,
    pub since: Millis,
    pub until: Option<Millis>,
    pub retry_at: Millis,
    /// Resets passed still refused.
    pub passed: u32,
    /// The app stopped trying: the user says when.
    pub asks_user: bool,
}

/// The ends of a task that count as a failure the user should hear of (a
/// cancel is the user's own doing; an interruption is the app's, and the
/// task waits for the user's decision in its list): failed, out of time, or
/// over its budget.
pub const FAILURES: [TaskState; 3] = [TaskState::Failed, TaskState::TimedOut, TaskState::OverBudget];

/// The agent's attention from its facts (see the module's doc for the order).
pub fn attention(facts: &Facts<'_>) -> Attention {
    let title_of = |id: &TaskId| {
        facts
            .task
            .filter(|task| &task.id == id)
            .map(|task| task.spec.title())
            .or_else(|| facts.titles.iter().find(|(known, _)| known == id).map(|(_, title)| title.clone()))
    };
    let hooks_ask = facts.running.is_some() && matches!(facts.hooks, Some((AgentStatus::Attention, _)));
    if let Some(oldest) = facts.waits.iter().min_by_key(|wait| wait.since) {
        let task_id = oldest.task_id.clone().or_else(|| facts.task.map(|t| t.id.clone()));
        return Attention::NeedsYou {
            need: oldest.need.clone(),
            since: oldest.since,
            task: task_id.as_ref().and_then(title_of),
            task_id,
            signal_id: oldest.signal_id.clone(),
            waiting: facts.waits.len() as u32,
        };
    }
    let task_id = || facts.task.map(|t| t.id.clone());
    let task_title = || facts.task.map(|t| t.spec.title());
    if let Some((why, since)) = &facts.account_problem {
        return Attention::NeedsYou {
            need: Need::Account { why: why.clone() },
            since: *since,
            task_id: task_id(),
            task: task_title(),
            signal_id: None,
            waiting: 1,
        };
    }
    if let Some(limit) = facts.limit.as_ref().filter(|l| l.asks_user) {
        return Attention::NeedsYou {
            need: Need::LimitPersists { account: limit.account.clone(), resets: limit.passed },
            since: limit.since,
            task_id: task_id(),
            task: task_title(),
            signal_id: None,
            waiting: 1,
        };
    }
    let waiting_task = facts.task.and_then(|task| task.waiting_since().map(|since| (task, since)));
    if hooks_ask || waiting_task.is_some() {
        let since = waiting_task.map(|(_, since)| since).or(facts.hooks.map(|(_, since)| since)).unwrap_or_default();
        return Attention::NeedsYou {
            need: Need::Asks,
            since,
            task_id: facts.task.map(|t| t.id.clone()),
            task: facts.task.map(|t| t.spec.title()),
            signal_id: None,
            waiting: 1,
        };
    }
    if let Some(task) = facts.task
        && let Some(since) = task.quiet_since()
    {
        return Attention::Stalled { stall: Stall::Quiet { task_id: task.id.clone(), task: task.spec.title() }, since };
    }
    if let Some((loop_id, goal, since, reason)) = &facts.stalled_loop {
        return Attention::Stalled {
            stall: Stall::Loop { loop_id: loop_id.clone(), goal: goal.clone(), reason: reason.clone() },
            since: *since,
        };
    }
    if let Some(latest) = facts.unseen_failures.first() {
        return Attention::Failed {
            count: facts.unseen_failures.len() as u32,
            task_id: latest.id.clone(),
            task: latest.spec.title(),
            reason: latest.reason().map(str::to_owned),
            since: latest.ended_at().unwrap_or_default(),
        };
    }
    if let Some(limit) = &facts.limit {
        return Attention::Limited {
            account: limit.account.clone(),
            until: limit.until,
            retry_at: limit.retry_at,
            since: limit.since,
            task_id: task_id(),
            task: task_title(),
        };
    }
    if facts.running.is_none() {
        return Attention::Stopped {
            since: facts.since,
            ended: facts.ended.clone(),
            failed: facts.failed_in_last_session,
        };
    }
    let hooks_work = matches!(facts.hooks, Some((AgentStatus::Working, _)));
    match facts.task {
        Some(task) => {
            Attention::Working { task_id: Some(task.id.clone()), task: Some(task.spec.title()), since: facts.since }
        }
        None if hooks_work => Attention::Working { task_id: None, task: None, since: facts.since },
        None => Attention::Idle { since: facts.since },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use switchboard_api::TaskSpec;
    use switchboard_protocol::{ProfileId, SessionId, SignalId};

    fn task(title: &str, state: TaskState) -> TaskInfo {
        let mut task = TaskInfo::queued(TaskId::new(), TaskSpec::new(ProfileId::new(), title), 0, 0);
        if state != TaskState::Queued {
            task.start(SessionId::new(), 10);
        }
        if state.is_finished() {
            task.end(state, 50, Some("the agent exited".into()), None);
        }
        task
    }

    fn question(since: Millis, task: Option<&TaskInfo>) -> Wait {
        Wait {
            need: Need::Question { questions: 2, first: "Which database?".into() },
            since,
            task_id: task.map(|t| t.id.clone()),
            signal_id: Some(SignalId::new()),
        }
    }

    #[test]
    fn one_state_per_agent_the_most_pressing_first() {
        let at_work = task("Fix the login bug", TaskState::Running);
        let mut quiet = task("Port the parser", TaskState::Running);
        quiet.set_quiet_since(Some(700));
        let mut waiting = task("Ask first", TaskState::Running);
        waiting.set_waiting(Some(650), 650);
        let failed = task("Write the docs", TaskState::Failed);
        let older_failure = task("Write the tests", TaskState::Failed);
        let stalled_loop = Some((LoopId::new(), "Make the tests pass".to_owned(), 800, "3 tests fail".to_owned()));
        let running = Facts { running: Some(5), since: Some(100), ..Facts::default() };
        let permission =
            Wait { need: Need::Permission { tool: "Bash".into() }, since: 900, task_id: None, signal_id: None };

        type Case<'a> = (&'a str, Facts<'a>, &'a str);
        let cases: Vec<Case> = vec![
            ("never ran", Facts::default(), "stopped"),
            ("running, nothing to do", running.clone(), "idle"),
            ("at a task", Facts { task: Some(&at_work), ..running.clone() }, "working"),
            (
                "its hooks say it works without a task",
                Facts { hooks: Some((AgentStatus::Working, 90)), ..running.clone() },
                "working",
            ),
            (
                "a question waits: needs you, over its task at work",
                Facts { task: Some(&at_work), waits: vec![question(600, Some(&at_work))], ..running.clone() },
                "needs_you",
            ),
            (
                "its hooks say it waits at its own prompt",
                Facts { hooks: Some((AgentStatus::Attention, 95)), ..running.clone() },
                "needs_you",
            ),
            ("its task waits for the user", Facts { task: Some(&waiting), ..running.clone() }, "needs_you"),
            ("a quiet task: may be stuck, not working", Facts { task: Some(&quiet), ..running.clone() }, "stalled"),
            (
                "a question over a quiet task: the question first",
                Facts { task: Some(&quiet), waits: vec![permission.clone()], ..running.clone() },
                "needs_you",
            ),
            ("a stalled loop", Facts { stalled_loop: stalled_loop.clone(), ..running.clone() }, "stalled"),
            (
                "a stall over an unseen failure",
                Facts { stalled_loop: stalled_loop.clone(), unseen_failures: vec![&failed], ..running.clone() },
                "stalled",
            ),
            (
                "failed since last looked, even while the next task runs",
                Facts { task: Some(&at_work), unseen_failures: vec![&failed, &older_failure], ..running.clone() },
                "failed",
            ),
            (
                "stopped with failures not seen: failed",
                Facts {
                    unseen_failures: vec![&failed],
                    ended: Some(Ending::Exited { code: 1, signal: None }),
                    ..Facts::default()
                },
                "failed",
            ),
            (
                "stopped, its failures seen: stopped, saying how many",
                Facts {
                    ended: Some(Ending::Exited { code: 1, signal: None }),
                    failed_in_last_session: 2,
                    ..Facts::default()
                },
                "stopped",
            ),
            (
                "hooks of an ended session ask nothing",
                Facts { hooks: Some((AgentStatus::Attention, 95)), ..Facts::default() },
                "stopped",
            ),
        ];
        for (case, facts, expected) in cases {
            let got = attention(&facts);
            let state = serde_json::to_value(&got).unwrap()["state"].as_str().unwrap().to_owned();
            assert_eq!(state, expected, "{case}: {got:?}");
        }
    }

    #[test]
    fn each_state_carries_what_the_user_reads() {
        let at_work = task("Fix the login bug", TaskState::Running);
        let running = Facts { running: Some(5), since: Some(100), ..Facts::default() };
        // The oldest wait speaks, with its task's name and how many wait.
        let first = question(600, Some(&at_work));
        let facts = Facts {
            task: Some(&at_work),
            waits: vec![question(700, None), first.clone(), question(800, None)],
            ..running.clone()
        };
        assert_eq!(
            attention(&facts),
            Attention::NeedsYou {
                need: Need::Question { questions: 2, first: "Which database?".into() },
                since: 600,
                task_id: Some(at_work.id.clone()),
                task: Some("Fix the login bug".into()),
                signal_id: first.signal_id.clone(),
                waiting: 3,
            }
        );
        // The latest failure, how many, and the agent's reason.
        let (latest, older) = (task("Write the docs", TaskState::Failed), task("Write the tests", TaskState::Failed));
        let facts = Facts { unseen_failures: vec![&latest, &older], ..running.clone() };
        assert_eq!(
            attention(&facts),
            Attention::Failed {
                count: 2,
                task_id: latest.id.clone(),
                task: "Write the docs".into(),
                reason: Some("the agent exited".into()),
                since: 50,
            }
        );
        // A stopped agent says how it ended and how many tasks failed.
        let facts = Facts {
            since: Some(900),
            ended: Some(Ending::Exited { code: 2, signal: None }),
            failed_in_last_session: 2,
            ..Facts::default()
        };
        assert_eq!(
            attention(&facts),
            Attention::Stopped { since: Some(900), ended: Some(Ending::Exited { code: 2, signal: None }), failed: 2 }
        );
        // A quiet task names itself.
        let mut quiet = task("Port the parser", TaskState::Running);
        quiet.set_quiet_since(Some(700));
        assert_eq!(
            attention(&Facts { task: Some(&quiet), ..running }),
            Attention::Stalled {
                stall: Stall::Quiet { task_id: quiet.id.clone(), task: "Port the parser".into() },
                since: 700
            }
        );
    }
}
