//! Protocol signals as recorded, and the user's responses to them.

use serde::{Deserialize, Serialize};
use switchboard_protocol::signal::ScanEvent;
use switchboard_protocol::{ProfileId, SessionId, SignalId, TaskId};
use ts_rs::TS;

use super::Millis;

/// Where a signal was read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum SignalChannel {
    /// The agent's terminal output (plain CLI agents).
    Pty,
    /// The agent's own words, delivered by its hooks (agents with a TUI).
    Hook,
}

/// Where a signal's protocol stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum SignalState {
    /// Waiting for the user.
    Pending,
    /// The user answered or decided; the agent has been (or is being) told.
    Handled,
    /// The user dismissed it without telling the agent anything.
    Dismissed,
}

/// What the user decided about a signal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "action", rename_all = "snake_case")]
pub enum SignalResponse {
    /// Clarification: one answer per question, in order.
    Answer { answers: Vec<String> },
    /// Stop work: the blocker is gone.
    Resolve { resolution: String },
    /// Stop work: try again from the checkpoint.
    Retry,
    /// Stop work: log the blocked item to SKIPPED_ITEMS.md and go on.
    Skip,
    /// Stop work: hand the blocked part to a new agent of this profile and
    /// resume the rest.
    DelegateBlocked { profile_id: ProfileId },
    /// Delegation: a new session of this profile takes the work.
    Approve { profile_id: ProfileId },
    /// Delegation: refused, and why.
    Deny { reason: String },
    /// Completion report: seen.
    Acknowledge,
    /// Nothing is sent to the agent.
    Dismiss,
}

/// The kind of a [`SignalResponse`], without its data: what the window
/// offers for a signal (see `SignalInfo::actions`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum SignalAction {
    Answer,
    Resolve,
    Retry,
    Skip,
    DelegateBlocked,
    Approve,
    Deny,
    Acknowledge,
    Dismiss,
}

impl SignalResponse {
    pub fn action(&self) -> SignalAction {
        match self {
            SignalResponse::Answer { .. } => SignalAction::Answer,
            SignalResponse::Resolve { .. } => SignalAction::Resolve,
            SignalResponse::Retry => SignalAction::Retry,
            SignalResponse::Skip => SignalAction::Skip,
            SignalResponse::DelegateBlocked { .. } => SignalAction::DelegateBlocked,
            SignalResponse::Approve { .. } => SignalAction::Approve,
            SignalResponse::Deny { .. } => SignalAction::Deny,
            SignalResponse::Acknowledge => SignalAction::Acknowledge,
            SignalResponse::Dismiss => SignalAction::Dismiss,
        }
    }
}

/// A completion report's deliverable, checked against the workspace.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct DeliverableCheck {
    pub path: String,
    /// None when it exists inside the workspace; else why it does not count.
    pub problem: Option<String>,
}

/// A signal an agent raised and what became of it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct SignalInfo {
    pub id: SignalId,
    pub session_id: SessionId,
    pub profile_id: ProfileId,
    /// The task the agent was working on, if any.
    pub task_id: Option<TaskId>,
    pub channel: SignalChannel,
    /// The signal as read, or why it could not be.
    pub scan: ScanEvent,
    pub state: SignalState,
    pub created_at: Millis,
    pub handled_at: Option<Millis>,
    pub response: Option<SignalResponse>,
    /// The prompt typed into the agent in reply.
    pub reply_prompt: Option<String>,
    /// The session that took delegated work.
    pub delegate_session: Option<SessionId>,
    /// Completion reports: each deliverable checked.
    pub deliverables: Vec<DeliverableCheck>,
    /// Completion reports: the task's success criteria, to set beside
    /// `metrics_achieved`.
    pub success_criteria: Option<String>,
    /// On the requester's completion report, once it and every agent it
    /// had working in parallel have reported: their results together.
    #[serde(default)]
    pub merged: Option<MergedResult>,
    /// The responses it takes now (none once handled), as the engine
    /// decides them; the window offers these.
    #[serde(default)]
    pub actions: Vec<SignalAction>,
}

impl SignalInfo {
    /// A signal just read from `session_id`, waiting for the user; its
    /// checks, merged result and the responses it takes are filled in later.
    pub fn pending(
        session_id: SessionId,
        profile_id: ProfileId,
        task_id: Option<TaskId>,
        channel: SignalChannel,
        scan: ScanEvent,
        created_at: Millis,
    ) -> SignalInfo {
        SignalInfo {
            id: SignalId::new(),
            session_id,
            profile_id,
            task_id,
            channel,
            scan,
            state: SignalState::Pending,
            created_at,
            handled_at: None,
            response: None,
            reply_prompt: None,
            delegate_session: None,
            deliverables: Vec::new(),
            success_criteria: None,
            merged: None,
            actions: Vec::new(),
        }
    }
}

/// One agent's part of a merged result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct MemberResult {
    pub session_id: SessionId,
    pub profile_id: ProfileId,
    /// True for the agent that asked for the others.
    pub requester: bool,
    pub status: String,
    pub deliverables: Vec<DeliverableCheck>,
    pub metrics_achieved: String,
    pub recommendations: Vec<String>,
}

/// The results of a requester and the agents it had working in parallel,
/// with what they appended to SHARED_FINDINGS.jsonl.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct MergedResult {
    pub members: Vec<MemberResult>,
    pub findings: Vec<serde_json::Value>,
    pub malformed_findings: Vec<switchboard_protocol::signal::MalformedLine>,
    pub merged_at: Millis,
}
