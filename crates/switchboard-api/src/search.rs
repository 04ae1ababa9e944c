//! What a search answers (see the engine's `search` for how it finds).

use serde::{Deserialize, Serialize};
use switchboard_protocol::signal::SignalKind;
use switchboard_protocol::{ProfileId, SignalId, TaskId};
#[cfg(feature = "ts")]
use ts_rs::TS;

use super::{Millis, TaskState};

/// One thing found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct SearchHit {
    pub profile_id: ProfileId,
    /// When it was made: the task submitted or ended, the signal raised.
    pub at: Millis,
    /// The text around the first word found, whitespace collapsed.
    pub snippet: String,
    pub found: Found,
}

/// Where the words were found, with what opens it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(tag = "in", rename_all = "snake_case")]
pub enum Found {
    /// In a task's name or instruction.
    Task { task_id: TaskId, title: String, state: TaskState },
    /// In a task's summary.
    Summary { task_id: TaskId, title: String, state: TaskState },
    /// In what an agent wrote in a signal.
    Signal { signal_id: SignalId, kind: SignalKind, pending: bool },
}
