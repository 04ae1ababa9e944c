//! The line protocol: one JSON request per line, one answer per line back.
//! The hook binary speaks it (a hook must be in and out in milliseconds,
//! with no hello), and scripts may; clients speak the framed protocol of
//! [`crate::wire`]. A connection's first byte tells the two apart.

use serde::{Deserialize, Serialize};

use crate::protocol::hook::HookEnvelope;
use crate::{ApiError, Command, PermissionDecision, Reply};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum SocketRequest {
    /// Any engine command, answered with its reply.
    Command { command: Command },
    /// An agent's hook event (from `switchboard-hook`), answered `ok` once
    /// the engine has it.
    Hook { envelope: HookEnvelope },
}

// One response lives only until it is written; its size does not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SocketResponse {
    Ok(Reply),
    Error(ApiError),
}

impl SocketRequest {
    pub fn into_command(self) -> Command {
        match self {
            SocketRequest::Command { command } => command,
            SocketRequest::Hook { envelope } => Command::HookEvent { envelope },
        }
    }
}

/// The hook's request, written exactly as [`SocketRequest::Hook`] is, but
/// without the rest of the command vocabulary: the hook binary runs at every
/// hook event of every agent, and linking how to write every command made it
/// four times the size and slower to start.
#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum HookRequest<'a> {
    Hook { envelope: &'a HookEnvelope },
}

/// What the hook reads of the engine's answer ([`SocketResponse`]): the
/// user's permission decision when the answer is one; any other answer it
/// does not need to read.
#[derive(Debug, PartialEq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HookResponse {
    Ok(HookReply),
    Error(serde::de::IgnoredAny),
}

/// The part of a [`Reply`] a hook acts on.
#[derive(Debug, PartialEq, Deserialize)]
#[serde(tag = "type", content = "value", rename_all = "snake_case")]
pub enum HookReply {
    Permission(Option<PermissionDecision>),
    #[serde(other)]
    Other,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hooks_own_request_and_answer_are_the_vocabularys_read_and_written_alike() {
        let envelope = HookEnvelope {
            session_id: Some("s".into()),
            env: [("CLAUDE_CODE_SESSION_ID".to_owned(), "c".to_owned())].into(),
            at: 7,
            payload: serde_json::json!({"hook_event_name": "Stop"}),
            secret: Some("k".into()),
        };
        assert_eq!(
            serde_json::to_value(HookRequest::Hook { envelope: &envelope }).unwrap(),
            serde_json::to_value(SocketRequest::Hook { envelope: envelope.clone() }).unwrap()
        );
        let decision = |allow, message: Option<&str>| PermissionDecision { allow, message: message.map(Into::into) };
        let cases = [
            (
                SocketResponse::Ok(Reply::Permission(Some(decision(true, None)))),
                Some(HookReply::Permission(Some(decision(true, None)))),
            ),
            (
                SocketResponse::Ok(Reply::Permission(Some(decision(false, Some("not in prod"))))),
                Some(HookReply::Permission(Some(decision(false, Some("not in prod"))))),
            ),
            (SocketResponse::Ok(Reply::Permission(None)), Some(HookReply::Permission(None))),
            (SocketResponse::Ok(Reply::Unit), Some(HookReply::Other)),
        ];
        for (answer, read) in cases {
            let line = serde_json::to_string(&answer).unwrap();
            let got = match serde_json::from_str::<HookResponse>(&line).unwrap() {
                HookResponse::Ok(reply) => Some(reply),
                HookResponse::Error(_) => None,
            };
            assert_eq!(got, read, "{line}");
        }
        let refused = SocketResponse::Error(ApiError {
            code: crate::ErrorCode::NotAllowed,
            message: "no".into(),
            field: None,
            problems: Vec::new(),
        });
        let line = serde_json::to_string(&refused).unwrap();
        assert!(matches!(serde_json::from_str::<HookResponse>(&line).unwrap(), HookResponse::Error(_)));
    }
}
