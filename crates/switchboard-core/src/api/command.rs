//! The commands the engine takes, their replies, and errors as they cross the wire.

use serde::{Deserialize, Serialize};
use switchboard_protocol::hook::HookEnvelope;
use switchboard_protocol::{ProfileId, SessionId, SignalId, TaskId, TermSize};
use ts_rs::TS;

use super::event::{AgentStatusInfo, LogEntry, PermissionDecision, PermissionRequest};
use super::profile::{Profile, ProfileSpec, ScreenSnapshot, SessionInfo};
use super::signal::{SignalInfo, SignalResponse};
use super::task::{QueueStatus, Submitted, TaskInfo, TaskSpec};

/// A request to the engine. Each has exactly one kind of reply (see the
/// typed methods on [`crate::EngineHandle`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Command {
    ListProfiles,
    CreateProfile {
        spec: ProfileSpec,
    },
    UpdateProfile {
        profile_id: ProfileId,
        spec: ProfileSpec,
    },
    DeleteProfile {
        profile_id: ProfileId,
    },
    ListSessions,
    StartSession {
        profile_id: ProfileId,
        size: TermSize,
    },
    StopSession {
        session_id: SessionId,
    },
    /// Stop the session (if running) and start a fresh one of its profile.
    RestartSession {
        session_id: SessionId,
        size: TermSize,
    },
    /// Start a new session of an ended session's profile that continues the
    /// agent's conversation (Claude Code: `--resume`).
    ResumeSession {
        session_id: SessionId,
        size: TermSize,
    },
    WriteInput {
        session_id: SessionId,
        data: String,
    },
    Resize {
        session_id: SessionId,
        size: TermSize,
    },
    /// Flow control from a view: while paused the engine stops reading the
    /// agent's PTY, so a flooding agent blocks instead of the view.
    SetOutputPaused {
        session_id: SessionId,
        paused: bool,
    },
    ScreenSnapshot {
        session_id: SessionId,
        recent_lines: u32,
    },
    ListEvents {
        session_id: Option<SessionId>,
    },
    SubmitTask {
        spec: TaskSpec,
    },
    /// Queued and running tasks, and the most recent finished ones; of one
    /// agent, or of all.
    ListTasks {
        profile_id: Option<ProfileId>,
    },
    GetTask {
        task_id: TaskId,
    },
    /// A queued task leaves the queue; a running one is interrupted.
    CancelTask {
        task_id: TaskId,
    },
    /// Moves a queued task to this 0-based place in its agent's queue (as
    /// listed: urgent first). Landing among the other priority's tasks takes
    /// that priority.
    MoveTask {
        task_id: TaskId,
        to_index: u32,
    },
    /// Puts an interrupted, failed, timed-out or cancelled task back at the
    /// front of its agent's queue.
    RequeueTask {
        task_id: TaskId,
    },
    /// Pauses or resumes one agent's queue, or every queue.
    SetQueuePaused {
        profile_id: Option<ProfileId>,
        paused: bool,
    },
    ListQueues,
    /// A task's history from the event log.
    TaskTimeline {
        task_id: TaskId,
    },
    /// Pending signals and the most recent handled ones.
    ListSignals,
    RespondToSignal {
        signal_id: SignalId,
        response: SignalResponse,
    },
    /// Text an agent wrote, as its hooks deliver it (the Stop event's
    /// `last_assistant_message`): scanned for signals like terminal output.
    AgentText {
        session_id: SessionId,
        text: String,
    },
    /// An event from an agent's hooks, as `switchboard-hook` forwards it.
    HookEvent {
        envelope: HookEnvelope,
    },
    /// Every session's agent status.
    ListAgentStatus,
    /// Permission requests waiting for the user.
    ListPermissionRequests,
    /// The user's answer to an agent's permission request.
    DecidePermission {
        request_id: u64,
        allow: bool,
        message: Option<String>,
    },
}

/// The reply to a [`Command`]: one variant per kind of answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(tag = "type", content = "value", rename_all = "snake_case")]
pub enum Reply {
    Unit,
    Profiles(Vec<Profile>),
    Profile(Profile),
    Sessions(Vec<SessionInfo>),
    Session(SessionInfo),
    Snapshot(ScreenSnapshot),
    Events(Vec<LogEntry>),
    Submitted(Submitted),
    Tasks(Vec<TaskInfo>),
    Task(TaskInfo),
    Queues(Vec<QueueStatus>),
    Signals(Vec<SignalInfo>),
    Signal(SignalInfo),
    AgentStatus(Vec<AgentStatusInfo>),
    /// To a permission request's hook: the user's decision, or none (the
    /// agent's own prompt decides).
    Permission(Option<PermissionDecision>),
    PermissionRequests(Vec<PermissionRequest>),
}

/// Stable error codes: the UI branches on these, never on message text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    InvalidInput,
    CommandNotFound,
    DirectoryMissing,
    DuplicateName,
    ProfileNotFound,
    SessionNotFound,
    SessionNotRunning,
    ProfileBusy,
    SpawnFailed,
    TaskNotFound,
    TaskState,
    SignalNotFound,
    SignalState,
    TooManyAgents,
    AlreadyRunning,
    Storage,
    /// The disk holding a file or the database is full.
    DiskFull,
    /// The app may not read or write a file it needs.
    PermissionDenied,
    /// A file or directory the app needs is gone.
    NotFound,
    /// Another failure reading or writing a file.
    Io,
    EngineStopped,
    Internal,
}

/// An error as it crosses to the UI: a code to branch on, a message for
/// people, and, for input errors, the field it concerns.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ApiError {
    pub code: ErrorCode,
    pub message: String,
    pub field: Option<String>,
}
