//! Tasks: what the user submits, where a task stands, what it produced.

use serde::{Deserialize, Serialize};
use switchboard_protocol::summary::Summary;
use switchboard_protocol::{Priority, ProfileId, SessionId, TaskId};
#[cfg(feature = "ts")]
use ts_rs::TS;

use super::Millis;

mod actions;
mod queue;
mod record;

pub use actions::*;
pub use queue::*;
pub use record::*;

/// A task as the user submits it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct TaskSpec {
    pub profile_id: ProfileId,
    /// What to do; typed into the agent with the completion protocol.
    pub instruction: String,
    /// The user's name for the task; none: its instruction's first line.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub title: Option<String>,
    /// Written to CONTEXT.md in the workspace before the task is typed.
    #[serde(default)]
    pub context: Option<String>,
    /// Written to SPECS.md.
    #[serde(default)]
    pub specs: Option<String>,
    /// Written to INSTRUCTIONS.md.
    #[serde(default)]
    pub instructions: Option<String>,
    #[serde(default = "normal_priority")]
    pub priority: Priority,
    /// Seconds; none means the profile's default.
    #[serde(default)]
    pub time_limit_secs: Option<u32>,
    /// What counts as success; named in the typed task and shown beside
    /// the agent's completion report.
    #[serde(default)]
    pub success_criteria: Option<String>,
    /// What the work is for; named in the typed task.
    #[serde(default)]
    pub goals: Option<String>,
    /// The loop iteration this task runs (made by the loop, never submitted).
    #[serde(default)]
    pub loop_iteration: Option<LoopIteration>,
    /// Runs in the worktree made for that task (or loop): a review's
    /// follow-up, a loop's later iteration. None: an agent that works apart
    /// gets a new worktree for it.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub worktree: Option<String>,
    /// The branch its new worktree is made from (an agent that works
    /// apart); none: the branch checked out in the agent's folder.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub base: Option<String>,
    /// What the task may use, in tokens or dollars: at 80 % the user is
    /// told, at all of it the task ends over budget. A loop's iteration has
    /// its loop's instead.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub budget: Option<crate::Budget>,
}

/// A loop's iteration, run as a task: a fresh session typed the iteration
/// prompt, ended by its turn's end or its process's.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct LoopIteration {
    pub loop_id: switchboard_protocol::LoopId,
    pub number: u32,
}

impl TaskSpec {
    /// A normal-priority task with only an instruction; fill in the rest
    /// with struct update syntax.
    pub fn new(profile_id: ProfileId, instruction: impl Into<String>) -> TaskSpec {
        TaskSpec {
            profile_id,
            instruction: instruction.into(),
            title: None,
            context: None,
            specs: None,
            instructions: None,
            priority: Priority::Normal,
            time_limit_secs: None,
            success_criteria: None,
            goals: None,
            loop_iteration: None,
            worktree: None,
            base: None,
            budget: None,
        }
    }
}

impl TaskSpec {
    /// The context files a task given to its agent is written with, each
    /// with its text: those the spec gives (a loop's iteration is given
    /// none; its agent works from the loop's own files).
    pub fn context_files(&self) -> Vec<(&'static str, &str)> {
        use switchboard_protocol::summary::{CONTEXT_FILE, INSTRUCTIONS_FILE, SPECS_FILE};
        if self.loop_iteration.is_some() {
            return Vec::new();
        }
        [(CONTEXT_FILE, &self.context), (SPECS_FILE, &self.specs), (INSTRUCTIONS_FILE, &self.instructions)]
            .into_iter()
            .filter_map(|(name, text)| Some((name, text.as_deref()?)))
            .collect()
    }

    /// What the task is called: the user's title, else its instruction's
    /// first line (cut to a glance).
    pub fn title(&self) -> String {
        match &self.title {
            Some(title) => title.clone(),
            None => first_line(&self.instruction, TITLE_CHARS),
        }
    }
}

/// The longest title, in characters.
pub const TITLE_CHARS: usize = 120;

/// The first non-blank line of `text`, trimmed and cut to `max` characters.
pub fn first_line(text: &str, max: usize) -> String {
    let line = text.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or_default();
    match line.char_indices().nth(max) {
        Some((cut, _)) => format!("{}…", &line[..cut]),
        None => line.to_owned(),
    }
}

fn normal_priority() -> Priority {
    Priority::Normal
}

/// Where a task is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(rename_all = "snake_case")]
pub enum TaskState {
    /// Waiting in its agent's queue.
    Queued,
    /// Given to the agent (typed when it was ready); waiting for its summary.
    Running,
    /// The summary file appeared.
    Completed,
    /// The agent exited before writing its summary, or the task could not
    /// be given to it, or its agent says it failed (its summary or report).
    Failed,
    /// The time limit passed without a summary.
    TimedOut,
    Cancelled,
    /// The app stopped while the task ran and its summary had not appeared;
    /// it can be put back in the queue.
    Interrupted,
    /// It used all of its budget (or its loop's, or its agent's day's)
    /// without a summary.
    OverBudget,
}

impl TaskState {
    pub fn is_finished(self) -> bool {
        !matches!(self, TaskState::Queued | TaskState::Running)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            TaskState::Queued => "queued",
            TaskState::Running => "running",
            TaskState::Completed => "completed",
            TaskState::Failed => "failed",
            TaskState::TimedOut => "timed_out",
            TaskState::Cancelled => "cancelled",
            TaskState::Interrupted => "interrupted",
            TaskState::OverBudget => "over_budget",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        use TaskState::*;
        [Queued, Running, Completed, Failed, TimedOut, Cancelled, Interrupted, OverBudget]
            .into_iter()
            .find(|s| s.as_str() == text)
    }
}

/// A file returned with a task's result: the summary first, then the key
/// deliverables it lists.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct Artifact {
    /// Relative to the workspace.
    pub path: String,
    /// The file's text (invalid UTF-8 replaced), cut at the artifact cap.
    pub content: String,
    pub size: u64,
    pub truncated: bool,
}

/// A deliverable the summary listed that was not returned, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct RejectedPath {
    pub path: String,
    pub reason: String,
}

/// What a finished task produced.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct TaskResult {
    pub summary: Summary,
    /// True when the agent wrote no summary and the app built one from the
    /// screen and the files the task changed.
    pub fallback: bool,
    /// At most five: the summary, then up to four deliverables.
    pub artifacts: Vec<Artifact>,
    pub rejected: Vec<RejectedPath>,
    /// RESULTS.json as the agent wrote it, if it did.
    pub results_json: Option<String>,
    /// ERRORS.md, if the agent wrote it.
    pub errors: Option<String>,
}

/// A task: what was asked, where it is in its agent's queue, and its state
/// with what that state has. The engine's own: on the wire and in the store
/// it is the flat [`TaskRecord`], made from it once, at the engine (the
/// window reads it as `TaskInfo`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskInfo {
    pub id: TaskId,
    pub spec: TaskSpec,
    /// Queue order within a priority: lower runs first.
    pub order: i64,
    pub created_at: Millis,
    pub status: TaskStatus,
    /// What it waits for while it does not go on by itself; none once it
    /// ended (and while its agent works on it). Live, never stored: the
    /// engine decides it (`tasks::rules::waiting_for`) and reports each change.
    pub waiting_for: Option<WaitingFor>,
    /// What it used and cost so far (live: the engine sums it from what it
    /// read of its agents' files).
    pub spent: crate::TaskSpent,
}

/// Why an unfinished task does not go on: each wait with what the user needs
/// to see of it. Decided by the engine, in one place, and published with the
/// task whenever it changes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(tag = "cause", rename_all = "snake_case")]
pub enum WaitingFor {
    /// Queued: its agent's queue is paused. `reason` says who paused it and
    /// why, where the app knows.
    QueuePaused { reason: Option<String> },
    /// Queued behind the task its agent works on (the queue's `current_task`).
    TaskAhead,
    /// Taken from the queue: the agent's output has not gone quiet yet (it is
    /// starting, or still printing).
    AgentOutput,
    /// Taken from the queue: the agent's hooks have not reported yet (Claude
    /// Code and Codex are typed into only once they have, or at `until`).
    Hooks { until: Millis },
    /// Taken from the queue: the agent's hooks say it is busy (at work, or in
    /// a dialog of its own).
    AgentBusy,
    /// Taken from the queue: the prompt the agent's ready pattern looks for is
    /// not on its screen. `last_line`: the screen's last line (controls
    /// escaped, cut short), `pattern`: the ready pattern.
    Prompt { last_line: String, pattern: String },
    /// Its agent waits for the user's answer (a question, a blocker, a
    /// decision, a permission), since `since`; its time limit is paused.
    User { since: Millis },
    /// Done, but its agent leads teammates still at work: it completes when
    /// they are done.
    Teammates { working: u32 },
    /// Taken from the queue: its new worktree is being made (git checks
    /// the repository's files out).
    WorktreeMaking,
    /// Taken from the queue: its new worktree's setup command (the
    /// repository's) runs first.
    WorktreeSetup { command: String },
    /// Its agent's account is at its usage limit: the task goes on at the
    /// reset, `until` when the agent said it; the app tries again at
    /// `retry_at` either way. Its time limit is paused meanwhile.
    UsageLimit { account: String, until: Option<Millis>, retry_at: Millis },
    /// The model's API said it is overloaded: the app asks the agent to go
    /// on at `retry_at`. Its time limit is paused meanwhile.
    Overloaded { retry_at: Millis },
    /// The agent's account needs the user (to sign in again, to see to
    /// billing): what to do. Its time limit is paused meanwhile.
    Account { why: String },
    /// Queued: its agent used its day's budget (`budget`, in words); it takes
    /// work again at `until` (its next day) or once the budget is raised.
    DailyBudget { budget: String, until: Millis },
}

impl WaitingFor {
    /// What the task waits for, in words that follow "waiting for".
    pub fn in_words(&self) -> String {
        match self {
            WaitingFor::QueuePaused { reason: Some(reason) } => format!("its agent's queue to resume: {reason}"),
            WaitingFor::QueuePaused { reason: None } => "its agent's queue to resume: it is paused".to_owned(),
            WaitingFor::TaskAhead => "the task its agent works on to end".to_owned(),
            WaitingFor::AgentOutput => "the agent's output to settle: it is starting or still printing".to_owned(),
            WaitingFor::Hooks { .. } => {
                "the agent's hooks to report that it is ready (or a few seconds, then its screen decides)".to_owned()
            }
            WaitingFor::AgentBusy => "the agent, whose hooks say it is busy".to_owned(),
            WaitingFor::Prompt { last_line, pattern } => {
                format!(
                    "the agent's prompt: its screen ends with “{last_line}”, which the ready pattern “{pattern}” does not match"
                )
            }
            WaitingFor::User { .. } => "your answer".to_owned(),
            WaitingFor::Teammates { working: 1 } => "its teammate, still at work".to_owned(),
            WaitingFor::Teammates { working } => format!("its {working} teammates, still at work"),
            WaitingFor::WorktreeMaking => {
                "its worktree to be made: git is checking out the repository's files".to_owned()
            }
            WaitingFor::WorktreeSetup { command } => {
                format!("its worktree's setup command to finish: {command}")
            }
            WaitingFor::UsageLimit { until: Some(_), .. } => {
                "its agent's usage limit to reset (the time its agent named)".to_owned()
            }
            WaitingFor::UsageLimit { until: None, .. } => {
                "its agent's usage limit to reset (when, its agent did not say: the app tries again now and then)"
                    .to_owned()
            }
            WaitingFor::Overloaded { .. } => "the model's service, overloaded for now, to take work again".to_owned(),
            WaitingFor::Account { why } => format!("you: {why}"),
            WaitingFor::DailyBudget { budget, .. } => {
                format!("its agent's next day: it used its day's budget of {budget} (raise it to go on now)")
            }
        }
    }
}

/// A task's run in its agent's session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskRun {
    pub session_id: SessionId,
    /// When the queue took it.
    pub started_at: Millis,
    /// When it was typed into the agent; the time limit counts from here.
    pub typed_at: Option<Millis>,
    /// The latest STATUS.txt.
    pub progress: Option<String>,
    /// Since when its agent has shown no output and no hook event, once that
    /// is longer than the agent's quiet alert: it may be stuck.
    pub quiet_since: Option<Millis>,
    /// Since when its agent has waited for the user's answer (a question, a
    /// blocker, a decision, a permission), while it waits.
    pub waiting_since: Option<Millis>,
    /// How long it waited for the user before: time its limit does not count.
    pub waited_ms: u64,
}

/// Where a task is, with what each state has.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TaskStatus {
    Queued,
    Running {
        run: TaskRun,
    },
    /// Its summary (or report) arrived.
    Completed {
        run: TaskRun,
        ended_at: Millis,
        result: TaskResult,
    },
    /// It could not be given to its agent (no run), or its agent ended
    /// without a summary, or its summary and report disagree, or its agent
    /// says it failed (its summary or report, kept as the result; the reason
    /// in the agent's words).
    Failed {
        run: Option<TaskRun>,
        ended_at: Millis,
        reason: String,
        result: Option<TaskResult>,
    },
    /// Its time ran out; the result is a fallback unless the summary came late.
    TimedOut {
        run: TaskRun,
        ended_at: Millis,
        reason: String,
        result: TaskResult,
    },
    /// Cancelled while queued (no run) or while it ran.
    Cancelled {
        run: Option<TaskRun>,
        ended_at: Millis,
        reason: String,
        result: Option<TaskResult>,
    },
    /// The app stopped while it ran.
    Interrupted {
        run: Option<TaskRun>,
        ended_at: Millis,
        reason: String,
    },
    /// It used its budget up; the result is a fallback unless the summary
    /// came late.
    OverBudget {
        run: TaskRun,
        ended_at: Millis,
        reason: String,
        result: TaskResult,
    },
}

impl TaskInfo {
    /// A task just submitted.
    pub fn queued(id: TaskId, spec: TaskSpec, order: i64, created_at: Millis) -> TaskInfo {
        TaskInfo {
            id,
            spec,
            order,
            created_at,
            status: TaskStatus::Queued,
            waiting_for: None,
            spent: Default::default(),
        }
    }

    pub fn state(&self) -> TaskState {
        match self.status {
            TaskStatus::Queued => TaskState::Queued,
            TaskStatus::Running { .. } => TaskState::Running,
            TaskStatus::Completed { .. } => TaskState::Completed,
            TaskStatus::Failed { .. } => TaskState::Failed,
            TaskStatus::TimedOut { .. } => TaskState::TimedOut,
            TaskStatus::Cancelled { .. } => TaskState::Cancelled,
            TaskStatus::Interrupted { .. } => TaskState::Interrupted,
            TaskStatus::OverBudget { .. } => TaskState::OverBudget,
        }
    }

    /// Its run in a session, if it was given to one.
    pub fn run(&self) -> Option<&TaskRun> {
        match &self.status {
            TaskStatus::Queued => None,
            TaskStatus::Running { run }
            | TaskStatus::Completed { run, .. }
            | TaskStatus::TimedOut { run, .. }
            | TaskStatus::OverBudget { run, .. } => Some(run),
            TaskStatus::Failed { run, .. }
            | TaskStatus::Cancelled { run, .. }
            | TaskStatus::Interrupted { run, .. } => run.as_ref(),
        }
    }

    fn run_mut(&mut self) -> Option<&mut TaskRun> {
        match &mut self.status {
            TaskStatus::Queued => None,
            TaskStatus::Running { run }
            | TaskStatus::Completed { run, .. }
            | TaskStatus::TimedOut { run, .. }
            | TaskStatus::OverBudget { run, .. } => Some(run),
            TaskStatus::Failed { run, .. }
            | TaskStatus::Cancelled { run, .. }
            | TaskStatus::Interrupted { run, .. } => run.as_mut(),
        }
    }

    pub fn session_id(&self) -> Option<&SessionId> {
        self.run().map(|run| &run.session_id)
    }

    /// When the queue took it.
    pub fn started_at(&self) -> Option<Millis> {
        self.run().map(|run| run.started_at)
    }

    pub fn typed_at(&self) -> Option<Millis> {
        self.run().and_then(|run| run.typed_at)
    }

    pub fn progress(&self) -> Option<&str> {
        self.run().and_then(|run| run.progress.as_deref())
    }

    /// Since when its agent has waited for the user, while it runs.
    pub fn waiting_since(&self) -> Option<Millis> {
        match &self.status {
            TaskStatus::Running { run } => run.waiting_since,
            _ => None,
        }
    }

    /// Since when its agent has been quiet past its alert, while it runs.
    pub fn quiet_since(&self) -> Option<Millis> {
        match &self.status {
            TaskStatus::Running { run } => run.quiet_since,
            _ => None,
        }
    }

    pub fn ended_at(&self) -> Option<Millis> {
        match &self.status {
            TaskStatus::Queued | TaskStatus::Running { .. } => None,
            TaskStatus::Completed { ended_at, .. }
            | TaskStatus::Failed { ended_at, .. }
            | TaskStatus::TimedOut { ended_at, .. }
            | TaskStatus::OverBudget { ended_at, .. }
            | TaskStatus::Cancelled { ended_at, .. }
            | TaskStatus::Interrupted { ended_at, .. } => Some(*ended_at),
        }
    }

    /// Why it failed, timed out, went over budget, was cancelled or interrupted.
    pub fn reason(&self) -> Option<&str> {
        match &self.status {
            TaskStatus::Queued | TaskStatus::Running { .. } | TaskStatus::Completed { .. } => None,
            TaskStatus::Failed { reason, .. }
            | TaskStatus::TimedOut { reason, .. }
            | TaskStatus::OverBudget { reason, .. }
            | TaskStatus::Cancelled { reason, .. }
            | TaskStatus::Interrupted { reason, .. } => Some(reason),
        }
    }

    pub fn result(&self) -> Option<&TaskResult> {
        match &self.status {
            TaskStatus::Completed { result, .. }
            | TaskStatus::TimedOut { result, .. }
            | TaskStatus::OverBudget { result, .. } => Some(result),
            TaskStatus::Failed { result, .. } | TaskStatus::Cancelled { result, .. } => result.as_ref(),
            TaskStatus::Queued | TaskStatus::Running { .. } | TaskStatus::Interrupted { .. } => None,
        }
    }

    /// Taken from the queue into `session_id`.
    pub fn start(&mut self, session_id: SessionId, at: Millis) {
        self.waiting_for = None;
        self.status = TaskStatus::Running {
            run: TaskRun {
                session_id,
                started_at: at,
                typed_at: None,
                progress: None,
                quiet_since: None,
                waiting_since: None,
                waited_ms: 0,
            },
        };
    }

    /// Typed into its agent.
    pub fn typed(&mut self, at: Millis) {
        if let Some(run) = self.run_mut() {
            run.typed_at = Some(at);
        }
    }

    /// The agent's latest STATUS.txt.
    pub fn set_progress(&mut self, progress: Option<String>) {
        if let Some(run) = self.run_mut() {
            run.progress = progress;
        }
    }

    /// Its agent went quiet past its alert (since then), or shows life again (none).
    pub fn set_quiet_since(&mut self, since: Option<Millis>) {
        if let Some(run) = self.run_mut() {
            run.quiet_since = since;
        }
    }

    /// Its agent began to wait for the user (at `since`), or stopped waiting
    /// (none): the time waited is added to what its limit does not count.
    pub fn set_waiting(&mut self, since: Option<Millis>, now: Millis) {
        if let Some(run) = self.run_mut() {
            if let (Some(began), None) = (run.waiting_since, since) {
                run.waited_ms += now.saturating_sub(began).max(0) as u64;
            }
            run.waiting_since = since;
        }
    }

    /// Back in the queue at `order`, as if just submitted.
    pub fn requeue(&mut self, order: i64) {
        self.order = order;
        self.waiting_for = None;
        self.status = TaskStatus::Queued;
    }

    /// Ends it in `state` (a finished one). A state that needs a reason or a
    /// result it was not given says so (a reason reads "no reason given"; a
    /// completed task without a result cannot be: that is a bug).
    pub fn end(&mut self, state: TaskState, at: Millis, reason: Option<String>, result: Option<TaskResult>) {
        let mut run = self.run().cloned();
        self.waiting_for = None;
        // A wait for the user ends with the task.
        if let Some(run) = &mut run
            && let Some(began) = run.waiting_since.take()
        {
            run.waited_ms += at.saturating_sub(began).max(0) as u64;
        }
        let reason = || reason.clone().unwrap_or_else(|| "no reason given".to_owned());
        let ran = |what: &str| run.clone().unwrap_or_else(|| panic!("a {what} task has run"));
        self.status = match state {
            TaskState::Completed => TaskStatus::Completed {
                run: ran("completed"),
                ended_at: at,
                result: result.expect("a completed task has its result"),
            },
            TaskState::TimedOut => TaskStatus::TimedOut {
                run: ran("timed-out"),
                ended_at: at,
                reason: reason(),
                result: result.expect("a timed-out task has its fallback result"),
            },
            TaskState::OverBudget => TaskStatus::OverBudget {
                run: ran("over-budget"),
                ended_at: at,
                reason: reason(),
                result: result.expect("an over-budget task has its fallback result"),
            },
            TaskState::Failed => TaskStatus::Failed { run, ended_at: at, reason: reason(), result },
            TaskState::Cancelled => TaskStatus::Cancelled { run, ended_at: at, reason: reason(), result },
            TaskState::Interrupted => TaskStatus::Interrupted { run, ended_at: at, reason: reason() },
            TaskState::Queued | TaskState::Running => unreachable!("ending a task ends it in a finished state"),
        };
    }
}

#[cfg(test)]
mod tests {
    use switchboard_protocol::summary::parse_summary;

    use super::*;

    fn result() -> TaskResult {
        TaskResult {
            summary: parse_summary("## Status\nCOMPLETED"),
            fallback: false,
            artifacts: Vec::new(),
            rejected: Vec::new(),
            results_json: None,
            errors: None,
        }
    }

    fn task() -> TaskInfo {
        TaskInfo::queued(TaskId::new(), TaskSpec::new(ProfileId::new(), "fix it"), 3, 100)
    }

    #[test]
    fn a_task_carries_what_its_state_has() {
        let mut task = task();
        assert_eq!((task.state(), task.session_id(), task.ended_at()), (TaskState::Queued, None, None));
        let session = SessionId::new();
        task.start(session.clone(), 200);
        task.typed(250);
        task.set_progress(Some("half".into()));
        assert_eq!((task.state(), task.session_id(), task.typed_at()), (TaskState::Running, Some(&session), Some(250)));
        task.end(TaskState::Completed, 300, None, Some(result()));
        assert_eq!((task.state(), task.ended_at(), task.reason()), (TaskState::Completed, Some(300), None));
        assert_eq!((task.progress(), task.started_at()), (Some("half"), Some(200)), "its run is kept");

        // Requeued: nothing of the run is left to reset by hand.
        task.requeue(-1);
        assert_eq!(task, TaskInfo { order: -1, ..self::task_with_id(&task) });
        assert_eq!((task.session_id(), task.typed_at(), task.result(), task.progress()), (None, None, None, None));

        // Cancelled before it ran: no run, a reason.
        let mut queued = self::task();
        queued.end(TaskState::Cancelled, 5, Some("cancelled before it started".into()), None);
        assert_eq!(queued.run(), None);
        assert_eq!(queued.reason(), Some("cancelled before it started"));
    }

    fn task_with_id(like: &TaskInfo) -> TaskInfo {
        TaskInfo::queued(like.id.clone(), like.spec.clone(), like.order, like.created_at)
    }

    #[test]
    fn the_flat_record_round_trips_and_refuses_what_does_not_fit() {
        let mut running = task();
        running.start(SessionId::new(), 7);
        let mut timed_out = running.clone();
        timed_out.end(TaskState::TimedOut, 9, Some("the time limit passed".into()), Some(result()));
        let mut failed = task();
        failed.end(TaskState::Failed, 9, Some("the workspace is gone".into()), None);
        for task in [self::task(), running, timed_out, failed] {
            let json = serde_json::to_value(TaskRecord::from(task.clone())).unwrap();
            assert_eq!(json["state"], task.state().as_str(), "the window reads the state's name");
            assert!(json.get("reason").is_some() && json.get("session_id").is_some(), "every field, null or not");
            let expected = task_actions(task.state(), false);
            assert_eq!(json["actions"], serde_json::to_value(&expected).unwrap(), "the actions it allows");
            let pick =
                if task.state() == TaskState::Queued { serde_json::json!([1, 3]) } else { serde_json::Value::Null };
            assert_eq!(json["pick"], pick, "where it stands in its queue, while it is queued");
            let record = serde_json::from_value::<TaskRecord>(json).unwrap();
            assert_eq!(TaskInfo::try_from(record).unwrap(), task);
        }
        let record = TaskRecord::from(task());
        let cases = [
            (TaskRecord { state: TaskState::Running, ..record.clone() }, "a running task without its session"),
            (
                TaskRecord {
                    state: TaskState::Completed,
                    session_id: Some(SessionId::new()),
                    started_at: Some(1),
                    ..record.clone()
                },
                "a completed task without its end time",
            ),
            (
                TaskRecord {
                    state: TaskState::Completed,
                    session_id: Some(SessionId::new()),
                    started_at: Some(1),
                    ended_at: Some(2),
                    ..record
                },
                "a completed task without its result",
            ),
        ];
        for (record, refusal) in cases {
            assert_eq!(TaskInfo::try_from(record).unwrap_err().to_string(), refusal);
        }
    }

    #[test]
    fn the_queue_runs_urgent_tasks_first_then_by_order() {
        let (urgent_late, urgent, normal_first) =
            (pick_key(Priority::Urgent, 9), pick_key(Priority::Urgent, 4), pick_key(Priority::Normal, 0));
        let mut keys = [normal_first, urgent_late, urgent];
        keys.sort();
        assert_eq!(keys, [urgent, urgent_late, normal_first]);
    }
}
