//! The engine's public vocabulary: the commands it takes, the events it
//! reports and the data they carry. Everything here is a plain serde type, so
//! the same values can cross the Tauri bridge today and a socket tomorrow;
//! TypeScript declarations for the UI are generated from these definitions
//! (see [`crate::bindings`]).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use switchboard_protocol::hook::{AgentStatus, HookEnvelope};
use switchboard_protocol::signal::ScanEvent;
use switchboard_protocol::summary::Summary;
use switchboard_protocol::{AgentKind, Priority, ProfileId, SessionId, SignalId, TaskId, TermSize};
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
    /// When the agent is ready for a task: a regular expression the line
    /// under the cursor must match (none: any line) ...
    #[serde(default)]
    pub ready_pattern: Option<String>,
    /// ... and how long its output must have been quiet, in milliseconds.
    #[serde(default = "default_ready_quiet_ms")]
    pub ready_quiet_ms: u32,
    /// A task's time limit when its submission names none, in seconds.
    #[serde(default = "default_task_time_limit_secs")]
    pub task_time_limit_secs: u32,
    /// What completes a task of this agent.
    #[serde(default)]
    pub completion: CompletionRule,
}

/// What completes a task: the summary file (the default), the agent's
/// completion report (for agents that write no summary), or both, which
/// must then agree on the outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum CompletionRule {
    #[default]
    Summary,
    Report,
    Both,
}

impl CompletionRule {
    pub fn as_str(self) -> &'static str {
        match self {
            CompletionRule::Summary => "summary",
            CompletionRule::Report => "report",
            CompletionRule::Both => "both",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        [CompletionRule::Summary, CompletionRule::Report, CompletionRule::Both].into_iter().find(|r| r.as_str() == text)
    }
}

impl Default for ProfileSpec {
    /// An empty generic profile with the default readiness and time limit;
    /// for filling in the rest with struct update syntax.
    fn default() -> Self {
        ProfileSpec {
            name: String::new(),
            command: String::new(),
            args: Vec::new(),
            env: BTreeMap::new(),
            cwd: String::new(),
            kind: AgentKind::Generic,
            start_on_launch: false,
            ready_pattern: None,
            ready_quiet_ms: DEFAULT_READY_QUIET_MS,
            task_time_limit_secs: DEFAULT_TASK_TIME_LIMIT_SECS,
            completion: CompletionRule::Summary,
        }
    }
}

pub const DEFAULT_READY_QUIET_MS: u32 = 800;
pub const DEFAULT_TASK_TIME_LIMIT_SECS: u32 = 30 * 60;

fn default_ready_quiet_ms() -> u32 {
    DEFAULT_READY_QUIET_MS
}

fn default_task_time_limit_secs() -> u32 {
    DEFAULT_TASK_TIME_LIMIT_SECS
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
    /// The agent's own id for its conversation (Claude Code's
    /// `--session-id`), which a later session can resume.
    #[serde(default)]
    pub agent_session_id: Option<String>,
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

/// A task as the user submits it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct TaskSpec {
    pub profile_id: ProfileId,
    /// What to do; typed into the agent with the completion protocol.
    pub instruction: String,
    /// Written to CONTEXT.md in the workspace before the task is typed.
    #[serde(default)]
    pub context: Option<String>,
    /// Written to SPECS.md.
    #[serde(default)]
    pub specs: Option<String>,
    /// Written to INSTRUCTIONS.md.
    #[serde(default)]
    pub instructions: Option<String>,
    #[serde(default = "normal_priority")]
    pub priority: Priority,
    /// Seconds; none means the profile's default.
    #[serde(default)]
    pub time_limit_secs: Option<u32>,
    /// What counts as success; shown beside the agent's completion report.
    #[serde(default)]
    pub success_criteria: Option<String>,
}

impl TaskSpec {
    /// A normal-priority task with only an instruction; fill in the rest
    /// with struct update syntax.
    pub fn new(profile_id: ProfileId, instruction: impl Into<String>) -> TaskSpec {
        TaskSpec {
            profile_id,
            instruction: instruction.into(),
            context: None,
            specs: None,
            instructions: None,
            priority: Priority::Normal,
            time_limit_secs: None,
            success_criteria: None,
        }
    }
}

fn normal_priority() -> Priority {
    Priority::Normal
}

/// Where a task is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum TaskState {
    /// Waiting in its agent's queue.
    Queued,
    /// Given to the agent (typed when it was ready); waiting for its summary.
    Running,
    /// The summary file appeared.
    Completed,
    /// The agent exited before writing its summary, or the task could not
    /// be given to it.
    Failed,
    /// The time limit passed without a summary.
    TimedOut,
    Cancelled,
    /// The app stopped while the task ran and its summary had not appeared;
    /// it can be put back in the queue.
    Interrupted,
}

impl TaskState {
    pub fn is_finished(self) -> bool {
        !matches!(self, TaskState::Queued | TaskState::Running)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            TaskState::Queued => "queued",
            TaskState::Running => "running",
            TaskState::Completed => "completed",
            TaskState::Failed => "failed",
            TaskState::TimedOut => "timed_out",
            TaskState::Cancelled => "cancelled",
            TaskState::Interrupted => "interrupted",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        use TaskState::*;
        [Queued, Running, Completed, Failed, TimedOut, Cancelled, Interrupted].into_iter().find(|s| s.as_str() == text)
    }
}

/// A file returned with a task's result: the summary first, then the key
/// deliverables it lists.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct Artifact {
    /// Relative to the workspace.
    pub path: String,
    /// The file's text (invalid UTF-8 replaced), cut at the artifact cap.
    pub content: String,
    pub size: u64,
    pub truncated: bool,
}

/// A deliverable the summary listed that was not returned, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct RejectedPath {
    pub path: String,
    pub reason: String,
}

/// What a finished task produced.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct TaskResult {
    pub summary: Summary,
    /// True when the agent wrote no summary and the app built one from the
    /// screen and the files the task changed.
    pub fallback: bool,
    /// At most five: the summary, then up to four deliverables.
    pub artifacts: Vec<Artifact>,
    pub rejected: Vec<RejectedPath>,
    /// RESULTS.json as the agent wrote it, if it did.
    pub results_json: Option<String>,
    /// ERRORS.md, if the agent wrote it.
    pub errors: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct TaskInfo {
    pub id: TaskId,
    #[serde(flatten)]
    pub spec: TaskSpec,
    pub state: TaskState,
    /// Queue order within a priority: lower runs first.
    pub order: i64,
    pub session_id: Option<SessionId>,
    pub created_at: Millis,
    /// When the queue took it.
    pub started_at: Option<Millis>,
    /// When it was typed into the agent; the time limit counts from here.
    pub typed_at: Option<Millis>,
    pub ended_at: Option<Millis>,
    /// The latest STATUS.txt while it runs.
    pub progress: Option<String>,
    /// Why it failed, was cancelled or interrupted.
    pub reason: Option<String>,
    pub result: Option<TaskResult>,
}

/// One agent's queue at a glance.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct QueueStatus {
    pub profile_id: ProfileId,
    pub paused: bool,
    pub executing: bool,
    pub current_task: Option<TaskId>,
    pub queued: u32,
}

/// The answer to a submission: the task, and where it stands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct Submitted {
    pub task: TaskInfo,
    /// 1-based place in the queue; none when it started at once.
    pub position: Option<u32>,
    /// The task the agent is busy with, if any.
    pub waiting_for: Option<TaskId>,
}

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

/// An agent asks to use a tool; its hook waits (bounded) for the user.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct PermissionRequest {
    pub id: u64,
    pub session_id: SessionId,
    pub tool_name: String,
    pub tool_input: serde_json::Value,
    pub asked_at: Millis,
    /// After this the agent's own prompt decides.
    pub expires_at: Millis,
}

/// The user's decision, as the hook hands it to the agent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct PermissionDecision {
    pub allow: bool,
    pub message: Option<String>,
}

/// A session's agent status and when its hooks last reported.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct AgentStatusInfo {
    pub session_id: SessionId,
    pub status: AgentStatus,
    /// When the last hook event arrived; none if hooks never reported.
    pub last_event_at: Option<Millis>,
}

/// Something that happened in the engine, reported through the
/// [`crate::EventSink`].
// Events are built once and moved to the sink; boxing the big variant would
// buy nothing but an allocation.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum EngineEvent {
    ProfileSaved {
        profile: Profile,
    },
    ProfileDeleted {
        profile_id: ProfileId,
    },
    SessionChanged {
        session: SessionInfo,
    },
    TaskChanged {
        task: TaskInfo,
    },
    QueueChanged {
        queue: QueueStatus,
    },
    SignalChanged {
        signal: SignalInfo,
    },
    AgentStatusChanged {
        status: AgentStatusInfo,
    },
    PermissionRequested {
        request: PermissionRequest,
    },
    /// Decided, or expired (the agent's own prompt decides then).
    PermissionClosed {
        request_id: u64,
        decision: Option<PermissionDecision>,
    },
}

/// One entry of the append-only event log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct LogEntry {
    pub seq: i64,
    pub at: Millis,
    pub session_id: Option<SessionId>,
    pub task_id: Option<TaskId>,
    #[serde(flatten)]
    pub kind: LogKind,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum LogKind {
    SessionStarted {
        pid: u32,
    },
    SessionExited {
        exit_code: u32,
        signal: Option<String>,
    },
    SessionKilled {
        exit_code: u32,
        signal: Option<String>,
    },
    SessionInterrupted {
        reaped: bool,
    },
    TaskQueued {
        priority: Priority,
    },
    TaskStarted,
    TaskTyped {
        bracketed: bool,
    },
    TaskMoved {
        to_index: u32,
        priority: Priority,
    },
    TaskRequeued,
    DeliverableRejected {
        path: String,
        reason: String,
    },
    TaskEnded {
        state: TaskState,
        reason: Option<String>,
    },
    SignalRaised {
        signal_id: SignalId,
        signal_kind: switchboard_protocol::signal::SignalKind,
        malformed: bool,
    },
    SignalHandled {
        signal_id: SignalId,
        response: SignalResponse,
    },
    /// A hook event; `payload` is the event as sent (or a note that it was
    /// too big to keep).
    Hook {
        event: String,
        payload: serde_json::Value,
    },
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
    TaskNotFound,
    TaskState,
    SignalNotFound,
    SignalState,
    TooManyAgents,
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
