//! Tasks: what the user submits, where a task stands, what it produced.

use serde::{Deserialize, Serialize};
use switchboard_protocol::summary::Summary;
use switchboard_protocol::{Priority, ProfileId, SessionId, TaskId};
use ts_rs::TS;

use super::Millis;

/// A task as the user submits it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct TaskSpec {
    pub profile_id: ProfileId,
    /// What to do; typed into the agent with the completion protocol.
    pub instruction: String,
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
    /// What counts as success; shown beside the agent's completion report.
    #[serde(default)]
    pub success_criteria: Option<String>,
}

impl TaskSpec {
    /// A normal-priority task with only an instruction; fill in the rest
    /// with struct update syntax.
    pub fn new(profile_id: ProfileId, instruction: impl Into<String>) -> TaskSpec {
        TaskSpec {
            profile_id,
            instruction: instruction.into(),
            context: None,
            specs: None,
            instructions: None,
            priority: Priority::Normal,
            time_limit_secs: None,
            success_criteria: None,
        }
    }
}

fn normal_priority() -> Priority {
    Priority::Normal
}

/// Where a task is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum TaskState {
    /// Waiting in its agent's queue.
    Queued,
    /// Given to the agent (typed when it was ready); waiting for its summary.
    Running,
    /// The summary file appeared.
    Completed,
    /// The agent exited before writing its summary, or the task could not
    /// be given to it.
    Failed,
    /// The time limit passed without a summary.
    TimedOut,
    Cancelled,
    /// The app stopped while the task ran and its summary had not appeared;
    /// it can be put back in the queue.
    Interrupted,
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
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        use TaskState::*;
        [Queued, Running, Completed, Failed, TimedOut, Cancelled, Interrupted].into_iter().find(|s| s.as_str() == text)
    }
}

/// A file returned with a task's result: the summary first, then the key
/// deliverables it lists.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct Artifact {
    /// Relative to the workspace.
    pub path: String,
    /// The file's text (invalid UTF-8 replaced), cut at the artifact cap.
    pub content: String,
    pub size: u64,
    pub truncated: bool,
}

/// A deliverable the summary listed that was not returned, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct RejectedPath {
    pub path: String,
    pub reason: String,
}

/// What a finished task produced.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
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

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct TaskInfo {
    pub id: TaskId,
    #[serde(flatten)]
    pub spec: TaskSpec,
    pub state: TaskState,
    /// Queue order within a priority: lower runs first.
    pub order: i64,
    pub session_id: Option<SessionId>,
    pub created_at: Millis,
    /// When the queue took it.
    pub started_at: Option<Millis>,
    /// When it was typed into the agent; the time limit counts from here.
    pub typed_at: Option<Millis>,
    pub ended_at: Option<Millis>,
    /// The latest STATUS.txt while it runs.
    pub progress: Option<String>,
    /// Why it failed, was cancelled or interrupted.
    pub reason: Option<String>,
    pub result: Option<TaskResult>,
}

/// One agent's queue at a glance.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct QueueStatus {
    pub profile_id: ProfileId,
    pub paused: bool,
    pub executing: bool,
    pub current_task: Option<TaskId>,
    pub queued: u32,
}

/// The answer to a submission: the task, and where it stands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct Submitted {
    pub task: TaskInfo,
    /// 1-based place in the queue; none when it started at once.
    pub position: Option<u32>,
    /// The task the agent is busy with, if any.
    pub waiting_for: Option<TaskId>,
}
