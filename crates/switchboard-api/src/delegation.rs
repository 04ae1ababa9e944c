//! Delegations: an agent session the user started to work for another.

use serde::{Deserialize, Serialize};
use switchboard_protocol::{ProfileId, SessionId, SignalId};
#[cfg(feature = "ts")]
use ts_rs::TS;

use super::Millis;

/// A session started for delegated work, and the requester it works for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct Delegation {
    /// The session doing the work.
    pub delegate_session: SessionId,
    pub delegate_profile: ProfileId,
    /// The signal whose approval started it (a delegation request, or a
    /// blocker whose blocked part was handed over).
    pub request: SignalId,
    /// The session that asked, and its agent.
    pub requester_session: SessionId,
    pub requester_profile: ProfileId,
    /// The work, as typed into the delegate.
    pub work: String,
    /// Whether the requester waits for the outcome (it asked with
    /// `blocks_current_work`); otherwise it went on and is not woken.
    pub blocks: bool,
    /// The user keeps the delegate running after it reports.
    pub keep: bool,
    pub started_at: Millis,
    pub state: DelegationState,
    /// Since when its delegate has shown no output and no hook event, once
    /// that is longer than its agent's quiet alert, while it works: it may be
    /// stuck. (Past its agent's time limit it ends, failed.)
    #[serde(default)]
    pub quiet_since: Option<Millis>,
    /// What its delegate used and cost (live: summed by the engine; it
    /// counts to the requester's task as its team's too).
    #[serde(default)]
    pub spent: crate::Spent,
}

/// Where a delegation stands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum DelegationState {
    /// The delegate works on it.
    Working,
    /// The delegate sent its completion report.
    Reported { at: Millis, status: String },
    /// The delegate ended without reporting: `how`, in words.
    Failed { at: Millis, how: String },
}

impl Delegation {
    /// Whether the delegate still owes its outcome.
    pub fn is_working(&self) -> bool {
        self.state == DelegationState::Working
    }
}
