//! The engine's error type, its mapping to the wire form [`ApiError`], and
//! [`Responder`], the one-shot answer every request carries.

use std::path::PathBuf;

use tokio::sync::oneshot;

use switchboard_protocol::{ProfileId, SessionId, SignalId, TaskId};

use crate::store::StoreError;
use switchboard_api::{ApiError, ErrorCode, ProfileProblem};

#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    #[error("{field}: {reason}")]
    InvalidInput { field: &'static str, reason: String },
    /// A setting the user cannot keep; `reason` is a sentence for them.
    #[error("{reason}")]
    InvalidSetting { field: &'static str, reason: &'static str },
    /// A response to a signal lacks what the agent needs to go on.
    #[error("{}", .0.message)]
    ResponseRefused(switchboard_api::ResponseProblem),
    /// A profile's spec has problems, all of them listed (never empty).
    #[error("{}", problems_in_words(.problems))]
    InvalidProfile { problems: Vec<ProfileProblem> },
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
    /// The user asked for a session of an agent whose session already runs
    /// in its folder.
    #[error("{agent} already has a session running in its folder; open it rather than starting another")]
    SessionRunning { agent: String },
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
    /// The agent has a loop active or stalled: a loop's files are the
    /// agent's (one anchor, one progress file), so one loop runs at a time.
    #[error("{}", loop_busy_in_words(.agent, *.stalled))]
    LoopBusy { agent: String, stalled: bool },
    /// A loop on this agent could never tell when an iteration is over: it
    /// has no ready pattern and no hooks, and answers are not taken as over
    /// by quiet alone (the setting is off).
    #[error(
        "{agent} has no ready pattern and no hooks, and quiet alone never ends an answer (see Settings), so a loop could not tell when an iteration is over. Give the agent a ready pattern, or set how long quiet ends an answer."
    )]
    LoopCannotEnd { agent: String },
    /// `agent resume` for an agent nothing holds back.
    #[error("{agent} is not waiting for a usage limit or its model's service: there is nothing to resume")]
    NothingToResume { agent: String },
    #[error("Switchboard is already running with the data directory {}{}", .data_dir.display(), .pid.map(|p| format!(" (process {p})")).unwrap_or_default())]
    AlreadyRunning { data_dir: PathBuf, pid: Option<u32> },
    #[error("storage: {0}")]
    Store(#[from] StoreError),
    /// A file or directory the engine reads or writes failed it; the code
    /// says how (a full disk, no permission, gone).
    #[error("{what}: {source}")]
    Io { what: String, source: std::io::Error },
    /// An error relayed to a further caller (one failure answering
    /// several waiting callers); keeps its code and field.
    #[error("{}", .0.message)]
    Relayed(ApiError),
    /// A process of an agent sent a command that is the user's to give.
    #[error("`{command}` is the user's decision; a process of an agent may not send it")]
    UsersDecision { command: &'static str },
    /// No paired browser has this id or name.
    #[error("no paired browser is {0} (`switchboard web devices` lists them)")]
    DeviceNotFound(String),
    /// A paired browser sent what only the user at the computer does (or no window sends).
    #[error("`{command}` is done only at the computer the engine runs on, not from a paired browser")]
    NotFromBrowser { command: &'static str },
    /// A browser paired to look only sent a command that changes something.
    #[error("this browser was paired to look only; `{command}` changes something (pair it again with full access)")]
    ReadOnlyDevice { command: &'static str },
    /// A hook event or agent text that names a session without its secret.
    #[error("this event does not come from the session it names")]
    NotThisSession,
    #[error("the engine has shut down")]
    EngineStopped,
    /// A path of the data directory (the folder, `run/`, the socket's
    /// folder, the database, the socket) belongs to another user.
    #[error(transparent)]
    NotYours(#[from] crate::private::NotYours),
    #[error("no worktree of the task or loop {0}")]
    WorktreeNotFound(String),
    /// git refused or failed; its words.
    #[error("{0}")]
    Git(#[from] crate::worktree::GitError),
    #[error("the work that was to answer this request ended first")]
    Unanswered,
    #[error("internal error: {0}")]
    Internal(String),
}

impl From<crate::private::Foreign> for EngineError {
    fn from(foreign: crate::private::Foreign) -> EngineError {
        match foreign {
            crate::private::Foreign::NotYours(not_yours) => EngineError::NotYours(not_yours),
            crate::private::Foreign::Unknown { path, source } => {
                EngineError::io(format!("telling who owns {}", path.display()), source)
            }
        }
    }
}

impl EngineError {
    /// The storage problem behind an engine that could not start on
    /// `data_dir`, if that is what kept it (another instance running, say,
    /// is not).
    pub fn startup_problem(&self, data_dir: &std::path::Path) -> Option<switchboard_api::StorageProblem> {
        use crate::store::{NEARLY_FULL_BYTES, classify, free_bytes};
        use switchboard_api::StorageProblem;
        let free = free_bytes(data_dir).or_else(|| data_dir.parent().and_then(free_bytes));
        let io = |source: &std::io::Error| match source.kind() {
            std::io::ErrorKind::StorageFull | std::io::ErrorKind::QuotaExceeded => StorageProblem::Full,
            std::io::ErrorKind::PermissionDenied | std::io::ErrorKind::ReadOnlyFilesystem => StorageProblem::ReadOnly,
            _ if free.is_some_and(|free| free < NEARLY_FULL_BYTES) => StorageProblem::Full,
            _ => StorageProblem::Failing { detail: source.to_string() },
        };
        match self {
            EngineError::Store(StoreError::Sqlite(error)) => Some(classify(error, free)),
            EngineError::Store(StoreError::CreateDir { source, .. }) => Some(io(source)),
            EngineError::Store(other) => Some(StorageProblem::Failing { detail: other.to_string() }),
            EngineError::Io { source, .. } => Some(io(source)),
            _ => None,
        }
    }

    pub fn code(&self) -> ErrorCode {
        match self {
            EngineError::InvalidInput { .. }
            | EngineError::InvalidSetting { .. }
            | EngineError::ResponseRefused(_)
            | EngineError::LoopCannotEnd { .. } => ErrorCode::InvalidInput,
            EngineError::NothingToResume { .. } => ErrorCode::NothingToResume,
            EngineError::InvalidProfile { .. } => ErrorCode::InvalidProfile,
            EngineError::CommandNotFound { .. } => ErrorCode::CommandNotFound,
            EngineError::DirectoryMissing { .. } => ErrorCode::DirectoryMissing,
            EngineError::DuplicateName { .. } => ErrorCode::DuplicateName,
            EngineError::ProfileNotFound(_) => ErrorCode::ProfileNotFound,
            EngineError::SessionNotFound(_) => ErrorCode::SessionNotFound,
            EngineError::SessionNotRunning(_) => ErrorCode::SessionNotRunning,
            EngineError::ProfileBusy(_) | EngineError::SessionRunning { .. } => ErrorCode::ProfileBusy,
            EngineError::SpawnFailed { .. } => ErrorCode::SpawnFailed,
            EngineError::TaskNotFound(_) => ErrorCode::TaskNotFound,
            EngineError::TaskState { .. } => ErrorCode::TaskState,
            EngineError::SignalNotFound(_) => ErrorCode::SignalNotFound,
            EngineError::SignalState { .. } => ErrorCode::SignalState,
            EngineError::TooManyAgents { .. } => ErrorCode::TooManyAgents,
            EngineError::AlreadyRunning { .. } => ErrorCode::AlreadyRunning,
            EngineError::LoopBusy { .. } => ErrorCode::LoopBusy,
            EngineError::Store(error) if error.is_disk_full() => ErrorCode::DiskFull,
            EngineError::Store(_) => ErrorCode::Storage,
            EngineError::Io { source, .. } => match source.kind() {
                std::io::ErrorKind::StorageFull | std::io::ErrorKind::QuotaExceeded => ErrorCode::DiskFull,
                std::io::ErrorKind::PermissionDenied | std::io::ErrorKind::ReadOnlyFilesystem => {
                    ErrorCode::PermissionDenied
                }
                std::io::ErrorKind::NotFound => ErrorCode::NotFound,
                _ => ErrorCode::Io,
            },
            EngineError::Relayed(error) => error.code,
            EngineError::UsersDecision { .. }
            | EngineError::NotFromBrowser { .. }
            | EngineError::ReadOnlyDevice { .. }
            | EngineError::NotThisSession => ErrorCode::NotAllowed,
            EngineError::EngineStopped => ErrorCode::EngineStopped,
            EngineError::NotYours(_) => ErrorCode::PermissionDenied,
            EngineError::WorktreeNotFound(_) => ErrorCode::WorktreeNotFound,
            EngineError::DeviceNotFound(_) => ErrorCode::NotFound,
            EngineError::Git(_) => ErrorCode::Git,
            EngineError::Unanswered | EngineError::Internal(_) => ErrorCode::Internal,
        }
    }

    /// The input field an error concerns, so a form can show it inline.
    pub fn field(&self) -> Option<&'static str> {
        match self {
            EngineError::InvalidInput { field, .. } | EngineError::InvalidSetting { field, .. } => Some(field),
            EngineError::ResponseRefused(problem) => Some(problem.field),
            EngineError::InvalidProfile { problems } => problems.first().map(|p| p.field.as_str()),
            EngineError::CommandNotFound { .. } => Some("command"),
            EngineError::DirectoryMissing { .. } => Some("cwd"),
            EngineError::DuplicateName { .. } => Some("name"),
            _ => None,
        }
    }
}

impl EngineError {
    /// A failure of `what` (said as "writing CONTEXT.md into /ws") with a file.
    pub fn io(what: impl Into<String>, source: std::io::Error) -> EngineError {
        EngineError::Io { what: what.into(), source }
    }

    /// The same error for another caller: `EngineError` is not `Clone` (it
    /// carries I/O and SQLite errors), but its code, field and message are.
    pub fn relayed(&self) -> EngineError {
        EngineError::Relayed(ApiError::from(self))
    }
}

impl From<&EngineError> for ApiError {
    fn from(error: &EngineError) -> Self {
        if let EngineError::Relayed(relayed) = error {
            return relayed.clone();
        }
        let problems = match error {
            EngineError::InvalidProfile { problems } => problems.clone(),
            _ => Vec::new(),
        };
        // A refused answer names which one (`answers.1`), so the form marks that field.
        let field = match error {
            EngineError::ResponseRefused(problem) => Some(problem.wire_field()),
            _ => error.field().map(str::to_owned),
        };
        ApiError { code: error.code(), field, message: error.to_string(), problems }
    }
}

/// Why a second loop is refused, in a sentence that names the agent.
fn loop_busy_in_words(agent: &str, stalled: bool) -> String {
    if stalled {
        format!("{agent} has a stalled loop: resume it or cancel it before starting another.")
    } else {
        format!("{agent} already runs a loop: cancel it or let it end before starting another.")
    }
}

/// An invalid profile's problems as one text (for scripts and the log; the
/// window shows each under its field): one problem as it is, several
/// counted, each after its field.
fn problems_in_words(problems: &[ProfileProblem]) -> String {
    match problems {
        [one] => one.message.clone(),
        many => {
            let each: Vec<String> = many.iter().map(|p| format!("{}: {}", p.field.as_str(), p.message)).collect();
            format!("The agent has {} problems. {}", many.len(), each.join(" "))
        }
    }
}

impl From<EngineError> for ApiError {
    fn from(error: EngineError) -> Self {
        ApiError::from(&error)
    }
}

/// Answers one request, once. Whoever holds it owes the caller an answer;
/// dropping it unanswered (a session actor that ended, a request discarded
/// at shutdown) answers [`EngineError::Unanswered`], so no caller waits
/// forever.
pub struct Responder<T>(Option<Answer<T>>);

/// Where a [`Responder`]'s answer goes.
type Answer<T> = Box<dyn FnOnce(Result<T, EngineError>) + Send>;

impl<T: Send + 'static> Responder<T> {
    /// A responder that hands the answer to `answer`.
    pub fn new(answer: impl FnOnce(Result<T, EngineError>) + Send + 'static) -> Self {
        Responder(Some(Box::new(answer)))
    }

    /// A responder whose answer arrives on the returned receiver.
    pub fn channel() -> (Self, oneshot::Receiver<Result<T, EngineError>>) {
        let (sender, receiver) = oneshot::channel();
        let responder = Responder::new(move |result| {
            // The caller may have stopped waiting; then nobody needs the answer.
            sender.send(result).ok();
        });
        (responder, receiver)
    }

    pub fn send(mut self, result: Result<T, EngineError>) {
        if let Some(answer) = self.0.take() {
            answer(result);
        }
    }

    /// A responder for `U` that answers this one with `f` of its value.
    pub fn map<U: Send + 'static>(self, f: impl FnOnce(U) -> T + Send + 'static) -> Responder<U> {
        Responder::new(move |result: Result<U, EngineError>| self.send(result.map(f)))
    }
}

impl<T> Drop for Responder<T> {
    fn drop(&mut self) {
        if let Some(answer) = self.0.take() {
            answer(Err(EngineError::Unanswered));
        }
    }
}

impl<T> std::fmt::Debug for Responder<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() { "Responder(waiting)" } else { "Responder(answered)" })
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

    #[test]
    fn file_failures_keep_their_cause_in_the_code() {
        use std::io::{Error, ErrorKind};
        let cases = [
            (ErrorKind::StorageFull, ErrorCode::DiskFull),
            (ErrorKind::QuotaExceeded, ErrorCode::DiskFull),
            (ErrorKind::PermissionDenied, ErrorCode::PermissionDenied),
            (ErrorKind::ReadOnlyFilesystem, ErrorCode::PermissionDenied),
            (ErrorKind::NotFound, ErrorCode::NotFound),
            (ErrorKind::InvalidData, ErrorCode::Io),
        ];
        for (kind, code) in cases {
            assert_eq!(EngineError::io("writing x", Error::from(kind)).code(), code, "{kind:?}");
        }
        // A real full device, as the kernel says it.
        let full = std::fs::write("/dev/full", b"x").unwrap_err();
        let error = EngineError::io("writing CONTEXT.md into /ws", full);
        assert_eq!(error.code(), ErrorCode::DiskFull);
        assert!(error.to_string().starts_with("writing CONTEXT.md into /ws: "), "{error}");

        // SQLite's own full-disk error.
        let sqlite = rusqlite::Error::SqliteFailure(rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_FULL), None);
        assert_eq!(EngineError::Store(StoreError::Sqlite(sqlite)).code(), ErrorCode::DiskFull);
    }

    #[test]
    fn a_relayed_error_keeps_its_code_field_and_message() {
        let original = EngineError::InvalidInput { field: "size", reason: "0x0".into() };
        let relayed = original.relayed();
        assert_eq!(ApiError::from(&relayed), ApiError::from(&original));
        let io = EngineError::io("reading a", std::io::Error::from(std::io::ErrorKind::PermissionDenied));
        assert_eq!(io.relayed().code(), ErrorCode::PermissionDenied);
    }

    #[test]
    fn a_responder_answers_once_and_a_dropped_one_says_so() {
        let (responder, mut answer) = Responder::<u32>::channel();
        responder.map(|text: &str| text.len() as u32).send(Ok("four"));
        assert_eq!(answer.try_recv().unwrap().unwrap(), 4);

        let (responder, mut answer) = Responder::<u32>::channel();
        drop(responder.map(|n: u32| n + 1));
        assert!(matches!(answer.try_recv().unwrap(), Err(EngineError::Unanswered)));
    }
}
