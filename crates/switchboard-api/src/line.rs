//! The line protocol: one JSON request per line, one answer per line back.
//! The hook binary speaks it (a hook must be in and out in milliseconds,
//! with no hello), and scripts may; clients speak the framed protocol of
//! [`crate::wire`]. A connection's first byte tells the two apart.

use serde::{Deserialize, Serialize};

use crate::protocol::hook::HookEnvelope;
use crate::{ApiError, Command, Reply};

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
