//! An agent's queue at a glance, what a submission and a restart answer.

use serde::{Deserialize, Serialize};
use switchboard_protocol::{Priority, ProfileId, TaskId};
#[cfg(feature = "ts")]
use ts_rs::TS;

use super::TaskRecord;
use crate::Millis;

/// Where a queued task stands among its agent's queued tasks: the queue runs
/// them from the lowest key up. The rule (urgent before normal, then by
/// `order`) is the engine's alone; a client sorts by the key without knowing it.
pub type PickKey = (u8, i64);

/// A queued task's [`PickKey`].
pub fn pick_key(priority: Priority, order: i64) -> PickKey {
    let rank = match priority {
        Priority::Urgent => 0,
        Priority::Normal => 1,
    };
    (rank, order)
}

/// One agent's queue at a glance.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct QueueStatus {
    pub profile_id: ProfileId,
    pub paused: bool,
    /// Who paused it and why, while it is paused (none for a pause recorded
    /// before the app kept its reason).
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub pause: Option<QueuePause>,
    pub executing: bool,
    pub current_task: Option<TaskId>,
    pub queued: u32,
    /// The agent's current session, which the window shows for it: the one
    /// its task at work runs in, else its newest running one; none when
    /// none runs (an agent keeps one live session; one whose worktree task
    /// ended lives on only for a short grace).
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub current_session: Option<switchboard_protocol::SessionId>,
}

/// Who paused an agent's queue and why: kept with the queue until it runs
/// again, so the window can say it in words.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(tag = "by", rename_all = "snake_case")]
pub enum QueuePause {
    /// The user paused this queue.
    User { at: Millis },
    /// The user paused every queue at once (the tray's or the palette's
    /// "pause all").
    AllQueues { at: Millis },
    /// The user stopped the agent while this task ran: the app does not
    /// start it again behind their back.
    AgentStopped { at: Millis, task_id: TaskId },
    /// The user restarted the agent, cancelling this task, and asked the
    /// queue to wait.
    Restart { at: Millis, task_id: TaskId },
    /// This task could not be given to the agent (`reason`); the next ones
    /// would fail the same way until the agent is fixed.
    TaskNotStarted { at: Millis, task_id: TaskId, reason: String },
    /// Recorded by a later version of the app.
    #[serde(other)]
    Unknown,
}

impl QueuePause {
    /// Who paused the queue and why, in a few words (a queued task's wait
    /// says it).
    pub fn in_words(&self) -> String {
        match self {
            QueuePause::User { .. } => "you paused it".to_owned(),
            QueuePause::AllQueues { .. } => "you paused every queue".to_owned(),
            QueuePause::AgentStopped { .. } => "you stopped the agent while a task ran".to_owned(),
            QueuePause::Restart { .. } => "you restarted the agent and asked its queue to wait".to_owned(),
            QueuePause::TaskNotStarted { reason, .. } => format!("a task could not be started ({reason})"),
            QueuePause::Unknown => "it is paused".to_owned(),
        }
    }
}

/// What becomes of the task an agent works on when its session restarts:
/// the window asks the user, the engine carries it out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(tag = "choice", rename_all = "snake_case")]
pub enum RestartTask {
    /// It goes back to the head of its queue and is typed into the new
    /// session.
    Requeue,
    /// The session restarts once the task has ended; the queue waits.
    FinishFirst,
    /// It ends cancelled; `pause_queue`: the tasks after it wait for the user.
    Cancel { pause_queue: bool },
}

/// What a restart did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(tag = "restart", rename_all = "snake_case")]
pub enum Restarted {
    /// The new session runs.
    Now { session: crate::SessionInfo },
    /// The session restarts once this task has ended.
    AfterTask { task_id: TaskId },
}

impl Restarted {
    /// The new session, if it runs already.
    pub fn session(self) -> Option<crate::SessionInfo> {
        match self {
            Restarted::Now { session } => Some(session),
            Restarted::AfterTask { .. } => None,
        }
    }
}

/// The answer to a submission: the task, and where it stands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct Submitted {
    pub task: TaskRecord,
    /// 1-based place in the queue; none when it started at once.
    pub position: Option<u32>,
    /// The task the agent is busy with, if any.
    pub waiting_for: Option<TaskId>,
}
