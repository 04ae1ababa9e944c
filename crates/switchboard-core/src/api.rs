//! The engine's public vocabulary: the commands it takes, the events it
//! reports and the data they carry. Everything here is a plain serde type, so
//! the same values can cross the Tauri bridge today and a socket tomorrow;
//! TypeScript declarations for the UI are generated from these definitions
//! (see [`crate::bindings`]).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use switchboard_protocol::{AgentKind, ProfileId, SessionId, TermSize};
use ts_rs::TS;

/// Milliseconds since the Unix epoch.
pub type Millis = i64;

/// What the user fills in to describe an agent: the command to run, where and
/// how. Validated by the engine before it is stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ProfileSpec {
    pub name: String,
    /// A program name looked up on `PATH`, or a path to an executable.
    pub command: String,
    #[serde(default)]
    pub args: Vec<String>,
    /// Extra environment for the agent, on top of the app's own environment.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// The agent's working directory (its workspace). Must exist.
    pub cwd: String,
    pub kind: AgentKind,
    /// Start a session of this profile whenever the app starts.
    #[serde(default)]
    pub start_on_launch: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct Profile {
    pub id: ProfileId,
    #[serde(flatten)]
    pub spec: ProfileSpec,
    pub created_at: Millis,
}

/// Where a session is in its life. Each variant carries the data of that
/// state: a running session has a process, an ended one has how it ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum SessionState {
    Running {
        pid: u32,
    },
    /// The agent exited by itself.
    Exited {
        exit_code: u32,
        signal: Option<String>,
        ended_at: Millis,
    },
    /// The user stopped the agent; the engine ended its process tree.
    Killed {
        exit_code: u32,
        signal: Option<String>,
        ended_at: Millis,
    },
    /// The app died while the agent ran; found so at the next start.
    Interrupted {
        ended_at: Millis,
    },
}

impl SessionState {
    pub fn is_running(&self) -> bool {
        matches!(self, SessionState::Running { .. })
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct SessionInfo {
    pub id: SessionId,
    pub profile_id: ProfileId,
    pub started_at: Millis,
    pub size: TermSize,
    #[serde(flatten)]
    pub state: SessionState,
}

/// What is on a session's screen now, as text, plus recent lines that
/// scrolled off. Built from the engine's own terminal model, independent of
/// any view.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ScreenSnapshot {
    pub size: TermSize,
    /// The visible rows, trailing blanks trimmed, joined by `\n`.
    pub screen: String,
    /// Up to the requested number of most recent lines, scrollback included.
    pub recent_lines: Vec<String>,
    pub cursor_row: u16,
    pub cursor_col: u16,
}

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
}

/// Something that happened in the engine, reported through the
/// [`crate::EventSink`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum EngineEvent {
    ProfileSaved { profile: Profile },
    ProfileDeleted { profile_id: ProfileId },
    SessionChanged { session: SessionInfo },
}

/// One entry of the append-only event log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct LogEntry {
    pub seq: i64,
    pub at: Millis,
    pub session_id: Option<SessionId>,
    #[serde(flatten)]
    pub kind: LogKind,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum LogKind {
    SessionStarted { pid: u32 },
    SessionExited { exit_code: u32, signal: Option<String> },
    SessionKilled { exit_code: u32, signal: Option<String> },
    SessionInterrupted { reaped: bool },
}

/// Facts about the running instance, shown in the UI.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct AppInfo {
    pub data_dir: String,
    pub socket_path: String,
    pub version: String,
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
    AlreadyRunning,
    Storage,
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
