//! Automations: work that starts by itself (on a schedule, or when another
//! agent's task ends), kept by the engine with each run's history. Making,
//! changing and running one is the user's alone.

use serde::{Deserialize, Serialize};
#[cfg(feature = "ts")]
use ts_rs::TS;

use crate::{Budget, Millis, TaskState, Usd};
use switchboard_protocol::loops::LoopSettings;
use switchboard_protocol::{AutomationId, LoopId, ProfileId, TaskId};

/// What starts an automation's run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(tag = "on", rename_all = "snake_case")]
pub enum Trigger {
    /// A schedule said the way a person says it: "weekdays 09:00", "2h",
    /// "mon,wed,fri 18:00", "hourly".
    Every { every: String },
    /// An RFC 5545 recurrence rule (the RRULE line, `FREQ=…;…`).
    Rule { rrule: String },
    /// A task of another agent ended so: a chain of agents.
    TaskEnded { profile_id: ProfileId, ended: TaskEnd },
    /// Files under a folder changed: paths (relative to it) matching one of
    /// `globs`, gathered until the folder is quiet for a moment. The app's own
    /// files and `.git` never count.
    FilesChanged { dir: String, globs: Vec<String> },
    /// A branch of a git repository moved to a new commit; the commits
    /// between are passed on.
    BranchMoved { repo: String, branch: String },
}

/// Which ends of a task a chain follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(rename_all = "snake_case")]
pub enum TaskEnd {
    Completed,
    /// Failed, timed out or over budget.
    Failed,
    /// Either.
    Any,
}

impl TaskEnd {
    /// Whether a task that ended in `state` is such an end.
    pub fn matches(self, state: TaskState) -> bool {
        let failed = matches!(state, TaskState::Failed | TaskState::TimedOut | TaskState::OverBudget);
        match self {
            TaskEnd::Completed => state == TaskState::Completed,
            TaskEnd::Failed => failed,
            TaskEnd::Any => failed || state == TaskState::Completed,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            TaskEnd::Completed => "completed",
            TaskEnd::Failed => "failed",
            TaskEnd::Any => "any",
        }
    }
}

/// What a run does.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(tag = "does", rename_all = "snake_case")]
pub enum AutomationAction {
    /// Queues a task on the automation's agent (in a fresh worktree where
    /// the agent works apart).
    Task {
        instruction: String,
        #[serde(default)]
        #[cfg_attr(feature = "ts", ts(optional = nullable))]
        title: Option<String>,
        #[serde(default)]
        #[cfg_attr(feature = "ts", ts(optional = nullable))]
        budget: Option<Budget>,
        /// Seconds; none: the agent's.
        #[serde(default)]
        #[cfg_attr(feature = "ts", ts(optional = nullable))]
        time_limit_secs: Option<u32>,
    },
    /// Starts a loop on the automation's agent.
    Loop { settings: LoopSettings },
}

/// What a run does when the previous one is still queued or at work.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(rename_all = "snake_case")]
pub enum Overlap {
    /// It does not run (and the skip is recorded).
    #[default]
    Skip,
    /// Its task is queued behind the other.
    Queue,
}

/// What becomes of runs a schedule missed (the engine was down, the machine
/// asleep).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(rename_all = "snake_case")]
pub enum CatchUp {
    /// One run for all of them.
    #[default]
    Once,
    /// None: they are recorded as missed.
    Skip,
}

/// The most runs an hour an automation makes unless told otherwise.
pub const DEFAULT_RUNS_PER_HOUR: u32 = 6;

fn default_runs_per_hour() -> u32 {
    DEFAULT_RUNS_PER_HOUR
}

/// An automation as the user makes it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct AutomationSpec {
    /// The agent whose work it starts.
    pub profile_id: ProfileId,
    pub trigger: Trigger,
    pub action: AutomationAction,
    /// An IANA time zone a schedule is in; none: the engine machine's.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub zone: Option<String>,
    #[serde(default)]
    pub overlap: Overlap,
    #[serde(default)]
    pub catch_up: CatchUp,
    /// The most runs it makes in an hour; more are held back, said so.
    #[serde(default = "default_runs_per_hour")]
    pub max_runs_per_hour: u32,
}

impl AutomationSpec {
    /// What a person calls it: its task's title, else its instruction's (or
    /// loop goal's) first line.
    pub fn name(&self) -> String {
        let text = match &self.action {
            AutomationAction::Task { title: Some(title), .. } if !title.trim().is_empty() => title.as_str(),
            AutomationAction::Task { instruction, .. } => instruction.as_str(),
            AutomationAction::Loop { settings } => settings.goal.as_str(),
        };
        crate::first_line(text, crate::TITLE_CHARS)
    }
}

/// Where an automation stands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum AutomationState {
    Active,
    /// It starts nothing until resumed.
    Paused {
        at: Millis,
        why: PauseReason,
    },
}

/// Why an automation is paused.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(tag = "by", rename_all = "snake_case")]
pub enum PauseReason {
    /// The user paused it.
    User,
    /// Its last runs all ended badly: it paused itself.
    Failing { failures: u32, last: String },
}

impl AutomationState {
    pub fn as_str(&self) -> &'static str {
        match self {
            AutomationState::Active => "active",
            AutomationState::Paused { .. } => "paused",
        }
    }

    /// Why it is paused, in words; none while active.
    pub fn reason(&self) -> Option<String> {
        match self {
            AutomationState::Active => None,
            AutomationState::Paused { why: PauseReason::User, .. } => Some("paused by you".to_owned()),
            AutomationState::Paused { why: PauseReason::Failing { failures, last }, .. } => {
                Some(format!("it paused itself: its last {failures} runs ended badly (the last: {last})"))
            }
        }
    }
}

/// An automation, as the engine keeps it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct Automation {
    pub id: AutomationId,
    #[serde(flatten)]
    pub spec: AutomationSpec,
    pub created_at: Millis,
    pub state: AutomationState,
    /// When its schedule runs it next (Unix ms); none for a chain, or while
    /// paused.
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub next_run: Option<Millis>,
    /// A branch trigger's: the commit its branch was last seen at. A move
    /// from it runs the automation, unless Switchboard's own merge made it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub branch_at: Option<String>,
    /// Its latest runs, oldest first (at most [`AUTOMATION_RUNS_SHOWN`]).
    pub runs: Vec<AutomationRun>,
    /// The machine it runs on, as a window that shows several names it
    /// (none: the engine's own machine).
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub host: Option<String>,
}

/// How many of an automation's runs its record carries.
pub const AUTOMATION_RUNS_SHOWN: usize = 50;

/// One run of an automation: when, why, and what became of it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct AutomationRun {
    pub seq: u32,
    pub fired_at: Millis,
    /// Why it fired, in words: "its schedule (weekdays 09:00)", "coder's
    /// task “Port the parser” completed", "run now", "caught up once: 3 runs
    /// were missed while the engine did not run".
    pub reason: String,
    pub outcome: RunOutcome,
}

/// What a run made, and how that stands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum RunOutcome {
    /// It queued a task: how the task stands now, and what it cost.
    Task {
        task_id: TaskId,
        state: TaskState,
        #[cfg_attr(feature = "ts", ts(optional = nullable))]
        cost_usd: Option<Usd>,
    },
    /// It started a loop: how the loop stands now.
    Loop { loop_id: LoopId, state: String },
    /// It made nothing, and why: the previous run still at work, its hourly
    /// cap, missed runs not caught up, the agent refusing the work.
    Skipped { why: String },
}

impl RunOutcome {
    /// The word for it: a task's state, a loop's, or "skipped".
    pub fn as_str(&self) -> &str {
        match self {
            RunOutcome::Task { state, .. } => state.as_str(),
            RunOutcome::Loop { state, .. } => state,
            RunOutcome::Skipped { .. } => "skipped",
        }
    }
}
