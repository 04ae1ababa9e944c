//! Protocol signals as recorded, and the user's responses to them.

use serde::{Deserialize, Serialize};
use switchboard_protocol::signal::{ScanEvent, SignalBody};
use switchboard_protocol::{ProfileId, SessionId, SignalId, TaskId};
#[cfg(feature = "ts")]
use ts_rs::TS;

use super::Millis;

/// Where a signal was read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(rename_all = "snake_case")]
pub enum SignalChannel {
    /// The agent's terminal output (plain CLI agents).
    Pty,
    /// The agent's own words, delivered by its hooks (agents with a TUI).
    Hook,
    /// A tool the agent called (its session's MCP server, `switchboard-mcp`).
    Tool,
}

/// What a session's own tools server (`switchboard-mcp`) asks of the engine.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ToolCall {
    /// The agent's CLI started the server and greeted it: the session's
    /// tasks point to the tools from now on.
    Hello {
        /// The CLI, as it named itself to the server.
        client: Option<String>,
    },
    /// A tool the model called, with its arguments as the model wrote them
    /// (checked by the engine, argument by argument).
    Call {
        tool: String,
        #[cfg_attr(feature = "ts", ts(type = "unknown"))]
        arguments: serde_json::Value,
    },
}

/// The engine's answer to a tool call, for the model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct ToolAnswer {
    /// What happens next, in a sentence (or what the tool looked up).
    pub text: String,
    /// The same as data, for a tool that looks something up.
    #[cfg_attr(feature = "ts", ts(type = "unknown"))]
    pub data: Option<serde_json::Value>,
}

/// Where a signal's protocol stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(tag = "action", rename_all = "snake_case")]
pub enum SignalResponse {
    /// Clarification: one answer per question, in order.
    Answer { answers: Vec<String> },
    /// Stop work: the blocker is gone.
    Resolve { resolution: String },
    /// Stop work: the error is fixed (how, in `fix`); try again from the
    /// checkpoint. (Records from before the fix was asked for read as empty.)
    Retry {
        #[serde(default)]
        fix: String,
    },
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
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
            SignalResponse::Retry { .. } => SignalAction::Retry,
            SignalResponse::Skip => SignalAction::Skip,
            SignalResponse::DelegateBlocked { .. } => SignalAction::DelegateBlocked,
            SignalResponse::Approve { .. } => SignalAction::Approve,
            SignalResponse::Deny { .. } => SignalAction::Deny,
            SignalResponse::Acknowledge => SignalAction::Acknowledge,
            SignalResponse::Dismiss => SignalAction::Dismiss,
        }
    }
}

/// Why a response to a signal cannot be carried out: the form's field at
/// fault (`index`: which answer) and a sentence for the user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResponseProblem {
    pub field: &'static str,
    pub index: Option<usize>,
    pub message: String,
}

impl ResponseProblem {
    fn new(field: &'static str, index: Option<usize>, message: impl Into<String>) -> ResponseProblem {
        ResponseProblem { field, index, message: message.into() }
    }

    /// The field as the wire names it: `answers.1` for the second answer.
    pub fn wire_field(&self) -> String {
        match self.index {
            Some(index) => format!("{}.{index}", self.field),
            None => self.field.to_owned(),
        }
    }
}

/// What `response` lacks for a signal of `body` (none: one the agent wrote
/// malformed), or none when it can be carried out: an answer to every
/// question, and the words each decision passes on to the agent. Which
/// responses a signal takes at all is [`SignalInfo::actions`]'s to say.
pub fn response_problem(body: Option<&SignalBody>, response: &SignalResponse) -> Option<ResponseProblem> {
    let blank = |text: &str| text.trim().is_empty();
    match response {
        SignalResponse::Answer { answers } => {
            let questions = match body {
                Some(SignalBody::Clarification { questions, .. }) => questions.len(),
                _ => 0,
            };
            if answers.len() != questions {
                let plural = if questions == 1 { "" } else { "s" };
                return Some(ResponseProblem::new(
                    "answers",
                    None,
                    format!("Give one answer per question ({questions} question{plural})."),
                ));
            }
            answers.iter().position(|answer| blank(answer)).map(|missing| {
                ResponseProblem::new(
                    "answers",
                    Some(missing),
                    format!("Answer question {}: the agent waits for every answer.", missing + 1),
                )
            })
        }
        SignalResponse::Resolve { resolution } if blank(resolution) => {
            Some(ResponseProblem::new("resolution", None, "Say how the blocker was resolved, so the agent can go on."))
        }
        SignalResponse::Retry { fix } if blank(fix) => Some(ResponseProblem::new(
            "fix",
            None,
            "Say what you fixed, so the agent knows what changed before it retries.",
        )),
        SignalResponse::Deny { reason } if blank(reason) => {
            Some(ResponseProblem::new("reason", None, "Say why, so the agent knows how to go on."))
        }
        _ => None,
    }
}

/// A completion report's deliverable, checked against the workspace.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct DeliverableCheck {
    pub path: String,
    /// None when it exists inside the workspace; else why it does not count.
    pub problem: Option<String>,
}

/// A signal an agent raised and what became of it. The engine's own: on the
/// wire and in the store it is the flat [`SignalRecord`], made from it once,
/// at the engine (the window reads it as `SignalInfo`).
#[derive(Debug, Clone, PartialEq)]
pub struct SignalInfo {
    pub id: SignalId,
    pub session_id: SessionId,
    pub profile_id: ProfileId,
    /// The task the agent was working on, if any.
    pub task_id: Option<TaskId>,
    pub channel: SignalChannel,
    /// The signal as read, or why it could not be.
    pub scan: ScanEvent,
    pub created_at: Millis,
    pub status: SignalStatus,
    /// Completion reports: each deliverable checked.
    pub deliverables: Vec<DeliverableCheck>,
    /// Completion reports: the task's success criteria, to set beside
    /// `metrics_achieved`.
    pub success_criteria: Option<String>,
    /// On the requester's completion report, once it and every agent it
    /// had working in parallel have reported: their results together.
    pub merged: Option<MergedResult>,
    /// The responses it takes now (none once handled), as the engine
    /// decides them; the window offers these.
    pub actions: Vec<SignalAction>,
}

/// Where a signal's protocol stands, with what each stage has.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SignalStatus {
    /// Waiting for the user.
    Pending,
    /// The user answered or decided; the agent has been (or is being) told.
    Handled {
        at: Millis,
        response: SignalResponse,
        /// The prompt typed into the agent in reply, if one was.
        reply_prompt: Option<String>,
        /// The session that took delegated work, if one did.
        delegate_session: Option<SessionId>,
    },
    /// The user dismissed it without telling the agent anything.
    Dismissed { at: Millis },
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
            created_at,
            status: SignalStatus::Pending,
            deliverables: Vec::new(),
            success_criteria: None,
            merged: None,
            actions: Vec::new(),
        }
    }

    pub fn state(&self) -> SignalState {
        match self.status {
            SignalStatus::Pending => SignalState::Pending,
            SignalStatus::Handled { .. } => SignalState::Handled,
            SignalStatus::Dismissed { .. } => SignalState::Dismissed,
        }
    }

    /// What the user decided, once they did.
    pub fn response(&self) -> Option<&SignalResponse> {
        match &self.status {
            SignalStatus::Pending => None,
            SignalStatus::Handled { response, .. } => Some(response),
            SignalStatus::Dismissed { .. } => Some(&SignalResponse::Dismiss),
        }
    }

    pub fn handled_at(&self) -> Option<Millis> {
        match &self.status {
            SignalStatus::Pending => None,
            SignalStatus::Handled { at, .. } | SignalStatus::Dismissed { at } => Some(*at),
        }
    }

    pub fn reply_prompt(&self) -> Option<&str> {
        match &self.status {
            SignalStatus::Handled { reply_prompt, .. } => reply_prompt.as_deref(),
            SignalStatus::Pending | SignalStatus::Dismissed { .. } => None,
        }
    }

    /// The session that took the work it delegated, if any.
    pub fn delegate_session(&self) -> Option<&SessionId> {
        match &self.status {
            SignalStatus::Handled { delegate_session, .. } => delegate_session.as_ref(),
            SignalStatus::Pending | SignalStatus::Dismissed { .. } => None,
        }
    }
}

/// A signal in its flat form, as the window and the store see it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[cfg_attr(feature = "ts", ts(rename = "SignalInfo"))]
pub struct SignalRecord {
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

impl From<SignalInfo> for SignalRecord {
    fn from(info: SignalInfo) -> SignalRecord {
        SignalRecord {
            state: info.state(),
            handled_at: info.handled_at(),
            response: info.response().cloned(),
            reply_prompt: info.reply_prompt().map(str::to_owned),
            delegate_session: info.delegate_session().cloned(),
            id: info.id,
            session_id: info.session_id,
            profile_id: info.profile_id,
            task_id: info.task_id,
            channel: info.channel,
            scan: info.scan,
            created_at: info.created_at,
            deliverables: info.deliverables,
            success_criteria: info.success_criteria,
            merged: info.merged,
            actions: info.actions,
        }
    }
}

impl TryFrom<SignalRecord> for SignalInfo {
    type Error = crate::RecordMismatch;

    /// A handled record without its response or time is refused.
    fn try_from(record: SignalRecord) -> Result<SignalInfo, crate::RecordMismatch> {
        let at = || {
            let lacks = "the time it was settled";
            record.handled_at.ok_or(crate::RecordMismatch { what: "signal", state: "settled", lacks })
        };
        let status = match record.state {
            SignalState::Pending => SignalStatus::Pending,
            SignalState::Handled => SignalStatus::Handled {
                at: at()?,
                response: record.response.clone().ok_or(crate::RecordMismatch {
                    what: "signal",
                    state: "handled",
                    lacks: "its response",
                })?,
                reply_prompt: record.reply_prompt.clone(),
                delegate_session: record.delegate_session.clone(),
            },
            SignalState::Dismissed => SignalStatus::Dismissed { at: at()? },
        };
        Ok(SignalInfo {
            id: record.id,
            session_id: record.session_id,
            profile_id: record.profile_id,
            task_id: record.task_id,
            channel: record.channel,
            scan: record.scan,
            created_at: record.created_at,
            status,
            deliverables: record.deliverables,
            success_criteria: record.success_criteria,
            merged: record.merged,
            actions: record.actions,
        })
    }
}

/// One agent's part of a merged result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct MergedResult {
    pub members: Vec<MemberResult>,
    pub findings: Vec<serde_json::Value>,
    pub malformed_findings: Vec<switchboard_protocol::signal::MalformedLine>,
    pub merged_at: Millis,
}

#[cfg(test)]
mod tests {
    use switchboard_protocol::signal::scan_all;

    use super::*;

    #[test]
    fn a_signal_carries_what_its_stage_has_and_round_trips_flat() {
        let scan = scan_all(b"[STOP_WORK]\ndetails: x\n[/STOP_WORK]").pop().unwrap();
        let pending = SignalInfo::pending(SessionId::new(), ProfileId::new(), None, SignalChannel::Pty, scan, 5);
        let mut handled = pending.clone();
        let delegate = SessionId::new();
        handled.status = SignalStatus::Handled {
            at: 9,
            response: SignalResponse::Retry { fix: "pinned the version".into() },
            reply_prompt: Some("RETRY".into()),
            delegate_session: Some(delegate.clone()),
        };
        let mut dismissed = pending.clone();
        dismissed.status = SignalStatus::Dismissed { at: 7 };
        assert_eq!((pending.state(), pending.response(), pending.handled_at()), (SignalState::Pending, None, None));
        assert_eq!((handled.reply_prompt(), handled.delegate_session()), (Some("RETRY"), Some(&delegate)));
        assert_eq!((dismissed.response(), dismissed.handled_at()), (Some(&SignalResponse::Dismiss), Some(7)));
        for info in [pending, handled, dismissed] {
            let json = serde_json::to_value(SignalRecord::from(info.clone())).unwrap();
            assert!(json.get("reply_prompt").is_some() && json.get("handled_at").is_some(), "every field, null or not");
            let record = serde_json::from_value::<SignalRecord>(json).unwrap();
            assert_eq!(SignalInfo::try_from(record).unwrap(), info);
        }
        let mut broken = serde_json::to_value(SignalRecord::from(SignalInfo::pending(
            SessionId::new(),
            ProfileId::new(),
            None,
            SignalChannel::Hook,
            scan_all(b"[STOP_WORK]\ndetails: y\n[/STOP_WORK]").pop().unwrap(),
            1,
        )))
        .unwrap();
        broken["state"] = "handled".into();
        broken["handled_at"] = 2.into();
        let refused = SignalInfo::try_from(serde_json::from_value::<SignalRecord>(broken).unwrap()).unwrap_err();
        assert!(refused.to_string().contains("a handled signal without its response"), "{refused}");
    }

    #[test]
    fn a_response_lacks_what_the_agent_needs_to_go_on() {
        let question = scan_all(
            b"[CLARIFICATION_NEEDED]\nquestions:\n  - Which database?\n  - Which port?\n[/CLARIFICATION_NEEDED]",
        )
        .pop();
        let body = match &question {
            Some(ScanEvent::Signal { signal }) => Some(&signal.body),
            other => panic!("a clarification, not {other:?}"),
        };
        let answers =
            |given: &[&str]| SignalResponse::Answer { answers: given.iter().map(|a| a.to_string()).collect() };
        let said =
            |body, response: &SignalResponse| response_problem(body, response).map(|p| (p.wire_field(), p.message));
        type Refusal = Option<(&'static str, &'static str)>;
        let cases: [(Option<&SignalBody>, SignalResponse, Refusal); 9] = [
            (body, answers(&["Postgres", "5432"]), None),
            (body, answers(&["Postgres"]), Some(("answers", "Give one answer per question (2 questions)."))),
            (
                body,
                answers(&["Postgres", "  "]),
                Some(("answers.1", "Answer question 2: the agent waits for every answer.")),
            ),
            (None, answers(&["x"]), Some(("answers", "Give one answer per question (0 questions)."))),
            (
                None,
                SignalResponse::Resolve { resolution: " ".into() },
                Some(("resolution", "Say how the blocker was resolved, so the agent can go on.")),
            ),
            (
                None,
                SignalResponse::Retry { fix: String::new() },
                Some(("fix", "Say what you fixed, so the agent knows what changed before it retries.")),
            ),
            (None, SignalResponse::Retry { fix: "pinned it".into() }, None),
            (
                None,
                SignalResponse::Deny { reason: "\n".into() },
                Some(("reason", "Say why, so the agent knows how to go on.")),
            ),
            (None, SignalResponse::Skip, None),
        ];
        for (body, response, expected) in cases {
            let expected = expected.map(|(field, message)| (field.to_owned(), message.to_owned()));
            assert_eq!(said(body, &response), expected, "{response:?}");
        }
    }
}
