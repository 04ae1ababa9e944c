//! What each agent asks of the user's attention: one value per agent,
//! computed by the engine (the engine's `attention::attention`), which the tray,
//! the sidebar, the dashboard, the graph, the palette and the notifications
//! all read instead of each deciding for itself.

use serde::{Deserialize, Serialize};
use switchboard_protocol::{LoopId, ProfileId, SignalId, TaskId};
#[cfg(feature = "ts")]
use ts_rs::TS;

use super::Millis;

/// An agent's state as the user reads it, the most pressing first. The
/// order of the variants is the order of priority (see
/// the engine's `attention::attention` for why).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum Attention {
    /// Something of the agent's waits for the user: nothing moves until
    /// they answer.
    NeedsYou {
        need: Need,
        /// Since when the oldest of its waits has waited.
        since: Millis,
        /// The task it came from, where one did.
        task_id: Option<TaskId>,
        /// That task's first line.
        task: Option<String>,
        /// The signal that opens it (the oldest), where the wait is one.
        signal_id: Option<SignalId>,
        /// How many of its things wait for the user (signals and
        /// permission requests), at least one.
        waiting: u32,
    },
    /// Work is held: a stalled loop, or a task whose agent has shown no
    /// sign of life past its quiet alert ("may be stuck").
    Stalled { stall: Stall, since: Millis },
    /// Tasks of the agent failed (or timed out) since the user last looked
    /// at the agent.
    Failed {
        count: u32,
        /// The latest of them.
        task_id: TaskId,
        task: String,
        /// Why it failed, as the engine or the agent put it.
        reason: Option<String>,
        /// When the latest ended.
        since: Millis,
    },
    /// Its account is at its usage limit: its work waits for the reset
    /// (`until` when the agent said it; the app tries again at `retry_at`
    /// either way), since `since`.
    Limited {
        account: String,
        until: Option<Millis>,
        retry_at: Millis,
        since: Millis,
        /// Its task that waits, where one does.
        task_id: Option<TaskId>,
        task: Option<String>,
    },
    /// At a task, or busy as its hooks say.
    Working { task_id: Option<TaskId>, task: Option<String>, since: Option<Millis> },
    /// Running, nothing at work.
    Idle { since: Option<Millis> },
    /// Not running: how its last session ended (none: it never ran), and how
    /// many tasks failed in it.
    Stopped { since: Option<Millis>, ended: Option<Ending>, failed: u32 },
}

impl Attention {
    /// Whether this is a state the user is asked to act on or look at:
    /// needs you, stalled, failed.
    pub fn asks_the_user(&self) -> bool {
        matches!(self, Attention::NeedsYou { .. } | Attention::Stalled { .. } | Attention::Failed { .. })
    }

    /// A few words for it, as the window's badges read (the command line's
    /// `agent list`).
    pub fn label(&self) -> String {
        match self {
            Attention::NeedsYou { .. } => "needs you".to_owned(),
            Attention::Stalled { stall: Stall::Loop { .. }, .. } => "loop stalled".to_owned(),
            Attention::Stalled { stall: Stall::Quiet { .. }, .. } => "may be stuck".to_owned(),
            Attention::Failed { count: 1, .. } => "task failed".to_owned(),
            Attention::Failed { count, .. } => format!("{count} tasks failed"),
            Attention::Limited { .. } => "usage limit".to_owned(),
            Attention::Working { .. } => "working".to_owned(),
            Attention::Idle { .. } => "idle".to_owned(),
            Attention::Stopped { ended: None, .. } => "not started".to_owned(),
            Attention::Stopped { failed: 0, .. } => "stopped".to_owned(),
            Attention::Stopped { failed, .. } => format!("stopped, {failed} failed"),
        }
    }
}

/// What an agent needs of the user.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Need {
    /// It asks questions (a clarification): how many, and the first.
    Question { questions: u32, first: String },
    /// It asks permission to use a tool.
    Permission { tool: String },
    /// It stopped on a blocker.
    Blocker { blocker: String },
    /// It asks to hand work to another agent.
    Delegation,
    /// It reports its work complete and waits for the user's review.
    Report,
    /// It printed a signal the app could not read.
    Unreadable,
    /// Its hooks say it waits for the user (its own prompt).
    Asks,
    /// Its account needs the user (to sign in again, to see to billing):
    /// what to do.
    Account { why: String },
    /// Its account's usage limit did not lift at this many resets in a row:
    /// the user says when to try again (`agent resume`).
    LimitPersists { account: String, resets: u32 },
}

/// What holds an agent's work.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Stall {
    /// Its loop stopped on the same reason again and again.
    Loop { loop_id: LoopId, goal: String, reason: String },
    /// Its task's agent has shown no output and no hook event past its alert.
    Quiet { task_id: TaskId, task: String },
}

/// How an agent's last session ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(tag = "how", rename_all = "snake_case")]
pub enum Ending {
    /// The agent ended by itself, with this exit code, or by this signal.
    Exited { code: u32, signal: Option<String> },
    /// The user (or the app quitting) stopped it.
    Stopped,
    /// The app stopped while it ran.
    Interrupted,
}

/// One agent's attention.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct AgentAttention {
    pub profile_id: ProfileId,
    pub attention: Attention,
}

/// What the window shows now, as it tells the engine: which agent and task
/// are on screen, and whether the window has the focus. A failure of the
/// agent on screen counts as seen once the window has the focus.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct Viewing {
    pub profile_id: Option<ProfileId>,
    pub task_id: Option<TaskId>,
    pub focused: bool,
}
