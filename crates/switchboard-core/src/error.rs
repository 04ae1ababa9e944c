//! The engine's error type and its mapping to the wire form [`ApiError`].

use std::path::PathBuf;

use switchboard_protocol::{ProfileId, SessionId, SignalId, TaskId};

use crate::api::{ApiError, ErrorCode};
use crate::store::StoreError;

#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    #[error("{field}: {reason}")]
    InvalidInput { field: &'static str, reason: String },
    #[error("command `{command}` was not found: it is neither an executable file nor on PATH")]
    CommandNotFound { command: String },
    #[error("working directory {} does not exist or is not a directory", .path.display())]
    DirectoryMissing { path: PathBuf },
    #[error("an agent named `{name}` already exists")]
    DuplicateName { name: String },
    #[error("no agent profile {0}")]
    ProfileNotFound(ProfileId),
    #[error("no session {0}")]
    SessionNotFound(SessionId),
    #[error("session {0} is not running")]
    SessionNotRunning(SessionId),
    #[error("agent profile {0} has a running session; stop it first")]
    ProfileBusy(ProfileId),
    #[error("could not start `{command}`: {reason}")]
    SpawnFailed { command: String, reason: String },
    #[error("no task {0}")]
    TaskNotFound(TaskId),
    #[error("task {task} is {state}: {reason}")]
    TaskState { task: TaskId, state: &'static str, reason: &'static str },
    #[error("no signal {0}")]
    SignalNotFound(SignalId),
    #[error("signal {signal}: {reason}")]
    SignalState { signal: SignalId, reason: String },
    #[error("{running} agents are running, the most allowed at once; stop one or raise the limit")]
    TooManyAgents { running: usize },
    #[error("Switchboard is already running with the data directory {}{}", .data_dir.display(), .pid.map(|p| format!(" (process {p})")).unwrap_or_default())]
    AlreadyRunning { data_dir: PathBuf, pid: Option<u32> },
    #[error("storage: {0}")]
    Store(#[from] StoreError),
    #[error("the engine has shut down")]
    EngineStopped,
    #[error("internal error: {0}")]
    Internal(String),
}

impl EngineError {
    pub fn code(&self) -> ErrorCode {
        match self {
            EngineError::InvalidInput { .. } => ErrorCode::InvalidInput,
            EngineError::CommandNotFound { .. } => ErrorCode::CommandNotFound,
            EngineError::DirectoryMissing { .. } => ErrorCode::DirectoryMissing,
            EngineError::DuplicateName { .. } => ErrorCode::DuplicateName,
            EngineError::ProfileNotFound(_) => ErrorCode::ProfileNotFound,
            EngineError::SessionNotFound(_) => ErrorCode::SessionNotFound,
            EngineError::SessionNotRunning(_) => ErrorCode::SessionNotRunning,
            EngineError::ProfileBusy(_) => ErrorCode::ProfileBusy,
            EngineError::SpawnFailed { .. } => ErrorCode::SpawnFailed,
            EngineError::TaskNotFound(_) => ErrorCode::TaskNotFound,
            EngineError::TaskState { .. } => ErrorCode::TaskState,
            EngineError::SignalNotFound(_) => ErrorCode::SignalNotFound,
            EngineError::SignalState { .. } => ErrorCode::SignalState,
            EngineError::TooManyAgents { .. } => ErrorCode::TooManyAgents,
            EngineError::AlreadyRunning { .. } => ErrorCode::AlreadyRunning,
            EngineError::Store(_) => ErrorCode::Storage,
            EngineError::EngineStopped => ErrorCode::EngineStopped,
            EngineError::Internal(_) => ErrorCode::Internal,
        }
    }

    /// The input field an error concerns, so a form can show it inline.
    pub fn field(&self) -> Option<&'static str> {
        match self {
            EngineError::InvalidInput { field, .. } => Some(field),
            EngineError::CommandNotFound { .. } => Some("command"),
            EngineError::DirectoryMissing { .. } => Some("cwd"),
            EngineError::DuplicateName { .. } => Some("name"),
            _ => None,
        }
    }
}

impl From<EngineError> for ApiError {
    fn from(error: EngineError) -> Self {
        ApiError { code: error.code(), field: error.field().map(str::to_owned), message: error.to_string() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn api_error_wire_form_is_code_message_field() {
        let error = EngineError::CommandNotFound { command: "nope".into() };
        let json = serde_json::to_value(ApiError::from(error)).unwrap();
        assert_eq!(
            json,
            serde_json::json!({
                "code": "command_not_found",
                "message": "command `nope` was not found: it is neither an executable file nor on PATH",
                "field": "command",
            })
        );
        let json = serde_json::to_value(ApiError::from(EngineError::EngineStopped)).unwrap();
        assert_eq!(
            json,
            serde_json::json!({"code": "engine_stopped", "message": "the engine has shut down", "field": null})
        );
    }
}
