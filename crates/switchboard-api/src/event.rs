//! What the engine reports: events, the event log, agent status.

use serde::{Deserialize, Serialize};
use switchboard_protocol::hook::AgentStatus;
use switchboard_protocol::{LoopId, Priority, ProfileId, SessionId, SignalId, TaskId};
#[cfg(feature = "ts")]
use ts_rs::TS;

use super::Millis;
use super::profile::{Profile, SessionInfo};
use super::signal::{SignalRecord, SignalResponse};
use super::task::{QueueStatus, TaskRecord, TaskState};

/// An agent asks to use a tool; its hook waits (bounded) for the user.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct PermissionRequest {
    pub id: u64,
    pub session_id: SessionId,
    pub tool_name: String,
    pub tool_input: serde_json::Value,
    pub asked_at: Millis,
    /// After this the agent's own prompt decides.
    pub expires_at: Millis,
    /// The machine that asked, when the window names another machine's
    /// engine (`switchboard host`); none: the engine's own machine. The
    /// answer goes there, and only there: a request's number is its
    /// engine's own.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub host: Option<String>,
}

/// The user's decision, as the hook hands it to the agent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct PermissionDecision {
    pub allow: bool,
    pub message: Option<String>,
}

/// A session's agent status and when its hooks last reported.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct AgentStatusInfo {
    pub session_id: SessionId,
    pub status: AgentStatus,
    /// When the last hook event arrived; none if hooks never reported.
    pub last_event_at: Option<Millis>,
    /// The team it leads, once it has formed one: the gate's inputs.
    #[serde(default)]
    pub team: Option<TeamInfo>,
    /// Who the agent's own environment says it is (`CLAUDE_CODE_AGENT_NAME`
    /// and `CLAUDE_CODE_AGENT_TYPE`, as its hooks forward them).
    #[serde(default)]
    pub agent_name: Option<String>,
    #[serde(default)]
    pub agent_type: Option<String>,
}

/// A lead's team as the completion gate sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct TeamInfo {
    /// The agent's own name for it (`CLAUDE_CODE_TEAM_NAME`, or the name its
    /// events give).
    pub name: String,
    /// Teammates still at work (its own and those the app started for it).
    pub active: u32,
}

/// Something that happened in the engine, reported through the
/// the engine's `EventSink`.
// Events are built once and moved to the sink; boxing the big variant would
// buy nothing but an allocation.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
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
        task: TaskRecord,
    },
    QueueChanged {
        queue: QueueStatus,
    },
    SignalChanged {
        signal: SignalRecord,
    },
    /// A loop started, ran an iteration, was judged, or ended.
    LoopChanged {
        info: crate::LoopInfo,
    },
    /// An automation was made, changed, ran, or paused.
    AutomationChanged {
        automation: crate::Automation,
    },
    AutomationRemoved {
        automation_id: switchboard_protocol::AutomationId,
    },
    /// A delegated agent started, reported, ended, or is kept.
    DelegationChanged {
        delegation: crate::Delegation,
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
        /// The session that asked: a request's number is its engine's own,
        /// and a window showing several machines tells them apart by it.
        session_id: SessionId,
        decision: Option<PermissionDecision>,
    },
    /// Whether the data can be written changed: a problem began (the disk
    /// is full, the folder read-only), or it is gone (`None`).
    StorageChanged {
        problem: Option<crate::StorageProblem>,
    },
    /// A session has as many signals waiting as the app holds for one agent
    /// (the engine's `MAX_PENDING_SIGNALS`); what it raises past that is set aside
    /// (recorded in its event log, not shown as a dialog) until the user
    /// answers some. Sent once per flood.
    SignalsFlooding {
        session_id: SessionId,
        profile_id: ProfileId,
        limit: u32,
        /// The signal that has waited longest, to start with.
        oldest_pending: Option<SignalId>,
    },
    /// The user saved the app's settings (the shell follows them for
    /// notifications, the window for its theme and a new agent's defaults).
    SettingsChanged {
        settings: crate::Settings,
    },
    /// Whether and where the engine serves browsers changed.
    WebChanged {
        status: crate::WebStatus,
    },
    /// A browser was paired or unpaired, or opened or closed its socket.
    DevicesChanged {
        devices: Vec<crate::Device>,
    },
    /// What an agent asks of the user's attention changed.
    AttentionChanged {
        profile_id: ProfileId,
        attention: crate::Attention,
    },
    /// A worktree was made, changed (files, state, overlaps with others),
    /// merged or discarded.
    WorktreeChanged {
        worktree: crate::WorktreeInfo,
    },
    /// An account reached its usage limit, or its wait changed (a try that
    /// was refused again, its agents going on one at a time).
    LimitChanged {
        limit: crate::AccountLimit,
    },
    /// An account's usage was told anew and differs from before.
    UsageChanged {
        usage: crate::AccountUsage,
    },
    /// An account used past the warning share of one of its usage windows
    /// (told once per window: its length and reset).
    UsageWarning {
        account: String,
        profiles: Vec<ProfileId>,
        window: crate::UsageWindow,
    },
    /// An account's usage limit lifted: its agents go on (`resumed`: by
    /// the user's word rather than at the reset).
    LimitLifted {
        account: String,
        profiles: Vec<ProfileId>,
        by_user: bool,
        /// Lifted at a reset the app knew, rather than by a try made
        /// without knowing it (or the user's word).
        #[serde(default)]
        at_reset: bool,
    },
    /// An entry was added to the event log; `profile_id`: the agent it
    /// concerns, where known (live flows and event panels follow it).
    Logged {
        entry: LogEntry,
        profile_id: Option<ProfileId>,
    },
}

/// One entry of the append-only event log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct LogEntry {
    pub seq: i64,
    pub at: Millis,
    pub session_id: Option<SessionId>,
    pub task_id: Option<TaskId>,
    #[serde(flatten)]
    pub kind: LogKind,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
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
    /// The user changed the task's title or, while it waited, its
    /// instruction.
    TaskEdited {
        title: bool,
        instruction: bool,
    },
    TaskRequeued {
        /// Put back by the app itself: it stopped (quit or crashed) before
        /// the task was typed to its agent.
        #[serde(default)]
        app_stopped: bool,
    },
    /// Its agent showed no output and no hook event for `alert_secs` while it
    /// should be working (`quiet`), or showed life again (not `quiet`).
    TaskQuiet {
        quiet: bool,
        alert_secs: u32,
    },
    /// It used `used_percent` of its budget (`budget`, in words): said once,
    /// past 80 %.
    BudgetNear {
        budget: String,
        used_percent: u32,
    },
    /// An automation of the agent paused itself (`name`: what a person
    /// calls it; `why`, in words).
    AutomationPaused {
        name: String,
        why: String,
    },
    /// Its agent began to wait for the user's answer (`waiting`: its time
    /// limit is paused) or goes on (its limit runs again, pushed back by the
    /// wait).
    TaskWaiting {
        waiting: bool,
    },
    /// Its agent's model refused the turn (a usage limit, an overloaded
    /// service, the account's sign-in or billing): the task waits rather
    /// than fails; `why`: what it waits for, in words.
    TaskRefused {
        why: Option<String>,
    },
    /// Its agent, refused before, was asked to go on (typed `continue`).
    TaskResumed,
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
    /// A signal not shown to the user because its agent already had as many
    /// waiting as the app holds.
    SignalSetAside {
        signal_kind: switchboard_protocol::signal::SignalKind,
    },
    /// A delegated agent (this session) started, reported or ended; the
    /// requester is the session it works for.
    Delegation {
        requester_session: SessionId,
        state: crate::DelegationState,
    },
    /// A hook event; `payload` is the event as sent (or a note that it was
    /// too big to keep).
    Hook {
        event: String,
        payload: serde_json::Value,
        /// The agent's identity variables the hook forwarded (its team's
        /// name, say); absent in entries from before they were kept.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[cfg_attr(feature = "ts", ts(optional))]
        env: Option<std::collections::BTreeMap<String, String>>,
    },
    /// The task's worktree was made (a new branch from `base`), or, for a
    /// later task in it, taken up again.
    WorktreeMade {
        branch: String,
        base: String,
        path: String,
    },
    /// The repository's setup command ran in the task's new worktree: how it
    /// ended (`exit`: none when it could not run or was stopped by a signal)
    /// and the end of what it printed.
    WorktreeSetup {
        command: String,
        succeeded: bool,
        exit: Option<i32>,
        output: String,
    },
    /// The task's worktree landed on its base, was rebased, or discarded.
    WorktreeReviewed {
        step: crate::ReviewStep,
    },
    /// A loop started, began an iteration, was judged, resumed or
    /// cancelled.
    Loop {
        loop_id: switchboard_protocol::LoopId,
        step: LoopStep,
    },
}

/// A step of a loop, as its event log records it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(tag = "step", rename_all = "snake_case")]
pub enum LoopStep {
    Started {
        max_iterations: u32,
    },
    /// An iteration's fresh session took its task.
    Iteration {
        number: u32,
    },
    Judged {
        number: u32,
        verdict: switchboard_protocol::loops::Verdict,
    },
    Resumed,
    Cancelled,
    /// The iteration's agent ended before its prompt was typed; `attempt`
    /// failed starts in a row so far.
    FailedStart {
        number: u32,
        attempt: u32,
    },
    /// The loop gave up after `attempts` failed starts in a row.
    FailedToStart {
        attempts: u32,
    },
    /// Its agent's folder is gone: the loop stopped until it is resumed.
    WorkspaceGone,
    /// Its anchor was gone at an iteration's start: written again from its goal.
    AnchorRewritten,
}

/// Another machine whose engine is reached over SSH, and how it answers now
/// (`switchboard host list --json`, the window's hosts).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct HostState {
    /// As ssh takes it: `user@host`, or an alias of the user's ssh config.
    pub destination: String,
    pub port: Option<u16>,
    /// The `switchboard` program there, when not on its PATH.
    pub remote_program: Option<String>,
    pub state: HostCondition,
    /// The version of Switchboard that answers there.
    pub version: Option<String>,
    pub agents_running: Option<u32>,
    /// What stands in the way, in words.
    pub problem: Option<String>,
    /// Its state as the window and the command line say it: "connected,
    /// Switchboard 0.1.0, 2 agents running", or what stands in the way.
    pub words: String,
    /// The key the host presents, when ssh does not know it yet: shown to
    /// the user, who accepts it by its fingerprint.
    pub unknown_key: Option<HostKeyShown>,
}

/// Whether another machine's engine answers, or what stands in the way.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(rename_all = "snake_case")]
pub enum HostCondition {
    Connected,
    UnknownHostKey,
    ChangedHostKey,
    SignIn,
    Unreachable,
    NotInstalled,
    Incompatible,
    Failed,
}

/// A host key as ssh shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct HostKeyShown {
    /// `ED25519`, `RSA`, ….
    pub key_type: String,
    /// `SHA256:…`.
    pub fingerprint: String,
}

/// The window's connection to the engine (the daemon), as the window shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum EngineLink {
    /// Reaching the engine, or starting it.
    Connecting,
    Connected {
        engine_version: String,
        /// The engine is another build than this window (an update was
        /// installed while it ran): restarting it takes the new one.
        outdated: bool,
        /// Agents running when the window connected.
        agents_running: u32,
        /// The machine the engine runs on, when not this one (an SSH
        /// destination): its engine is neither started nor stopped from here.
        host: Option<String>,
        /// Which of the link's connections this is (1 for the first): a
        /// window that loaded what it shows from another connection loads
        /// it again, whichever way the new one came about.
        connection: u32,
        /// The window started this engine again by itself, because the one
        /// before it died (killed, crashed: not stopped by the user).
        restarted: bool,
        /// The user's login service runs this engine: it starts at each
        /// login, so automations fire with no window open. Where none does,
        /// they fire only while the engine runs.
        starts_at_login: bool,
    },
    /// The engine stopped, or cannot be reached (another machine's: the
    /// connection to it); the window tries again by itself, and the user
    /// can start it (connect now).
    Lost { reason: String, host: Option<String> },
    /// The engine speaks another version of the protocol than this window.
    Refused { reason: String, host: Option<String> },
}

/// The window's connection to another machine's engine, when one window
/// shows this machine's agents and those of the machines the user added.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct HostLink {
    /// The machine as the user wrote it for ssh (`switchboard host add`).
    pub destination: String,
    pub link: EngineLink,
}

/// What the window opens once it has loaded, when it was started to show
/// one thing (`switchboard --open task:<id>`: a desktop notification the
/// daemon showed was clicked, or a second launch handed it over). On the
/// command line it reads `task:<id>`, `signal:<id>`, `loop:<id>` or
/// `agent:<id>`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(tag = "kind", content = "id", rename_all = "snake_case")]
pub enum OpenTarget {
    Task(TaskId),
    Signal(SignalId),
    Loop(LoopId),
    /// An agent: its running session, else the agent.
    Agent(ProfileId),
}

/// Why a command line's `--open` names nothing the window opens.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OpenTargetError {
    #[error("`{0}` is not something the window opens: give task:<id>, signal:<id>, loop:<id> or agent:<id>")]
    Kind(String),
    #[error(transparent)]
    Id(#[from] switchboard_protocol::IdError),
}

impl std::fmt::Display for OpenTarget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OpenTarget::Task(id) => write!(f, "task:{id}"),
            OpenTarget::Signal(id) => write!(f, "signal:{id}"),
            OpenTarget::Loop(id) => write!(f, "loop:{id}"),
            OpenTarget::Agent(id) => write!(f, "agent:{id}"),
        }
    }
}

impl std::str::FromStr for OpenTarget {
    type Err = OpenTargetError;

    fn from_str(text: &str) -> Result<OpenTarget, OpenTargetError> {
        match text.split_once(':') {
            Some(("task", id)) => Ok(OpenTarget::Task(id.parse()?)),
            Some(("signal", id)) => Ok(OpenTarget::Signal(id.parse()?)),
            Some(("loop", id)) => Ok(OpenTarget::Loop(id.parse()?)),
            Some(("agent", id)) => Ok(OpenTarget::Agent(id.parse()?)),
            _ => Err(OpenTargetError::Kind(text.to_owned())),
        }
    }
}

/// Facts about the running instance, shown in the UI.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct AppInfo {
    pub data_dir: String,
    pub socket_path: String,
    /// The machine whose engine the window shows, when not this one (an
    /// SSH destination: `switchboard --host`).
    pub host: Option<String>,
    pub version: String,
    /// Why the engine could not start on its data (the window opens to say
    /// so; nothing else works until the app is restarted).
    pub startup_problem: Option<crate::StorageProblem>,
}

/// How soon a window wants the engine's events: gathered about a frame
/// while it shows an agent live (a terminal, its flows, the grid), or a
/// quarter of a second while it shows none (the dashboard, which redraws
/// its agents once a second anyway). Each message costs the web view a
/// wake-up, whether or not it draws anything: with fifty agents busy, that
/// was a third of what it spent on the dashboard.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(rename_all = "snake_case")]
pub enum EventPace {
    /// An agent is on screen: its news shows within a frame.
    Live,
    /// No agent is on screen: counts and lists may wait a quarter second.
    Calm,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_open_target_reads_as_it_is_written_and_nothing_else() {
        const TASK: &str = "3f2b8c1e-4d5a-4b6c-8d7e-9f0a1b2c3d4e";
        let task: TaskId = TASK.parse().unwrap();
        let signal: SignalId = TASK.parse().unwrap();
        let loop_id: LoopId = TASK.parse().unwrap();
        let agent: ProfileId = TASK.parse().unwrap();
        let read = |text: &str| text.parse::<OpenTarget>().map_err(|error| error.to_string());
        let cases: &[(String, Result<OpenTarget, String>)] = &[
            (format!("task:{TASK}"), Ok(OpenTarget::Task(task.clone()))),
            (format!("signal:{TASK}"), Ok(OpenTarget::Signal(signal.clone()))),
            (format!("loop:{TASK}"), Ok(OpenTarget::Loop(loop_id.clone()))),
            (
                TASK.to_owned(),
                Err(format!(
                    "`{TASK}` is not something the window opens: give task:<id>, signal:<id>, loop:<id> or agent:<id>"
                )),
            ),
            (format!("agent:{TASK}"), Ok(OpenTarget::Agent(agent.clone()))),
            (
                format!("profile:{TASK}"),
                Err(format!(
                    "`profile:{TASK}` is not something the window opens: give task:<id>, signal:<id>, loop:<id> or agent:<id>"
                )),
            ),
            ("task:".to_owned(), Err("`` is not a valid task id".to_owned())),
            ("task:Fix the bug".to_owned(), Err("`Fix the bug` is not a valid task id".to_owned())),
            // One spelling per id: no upper case, no spaces around it.
            (format!("task:{}", TASK.to_uppercase()), Err(format!("`{}` is not a valid task id", TASK.to_uppercase()))),
            (
                format!("Task:{TASK}"),
                Err(format!(
                    "`Task:{TASK}` is not something the window opens: give task:<id>, signal:<id>, loop:<id> or agent:<id>"
                )),
            ),
            (format!("loop: {TASK}"), Err(format!("` {TASK}` is not a valid loop id"))),
        ];
        for (text, expected) in cases {
            assert_eq!(&read(text), expected, "{text}");
        }
        // Written as it reads, and to the window as kind and id.
        for target in
            [OpenTarget::Task(task), OpenTarget::Signal(signal), OpenTarget::Loop(loop_id), OpenTarget::Agent(agent)]
        {
            assert_eq!(read(&target.to_string()), Ok(target.clone()));
            let json = serde_json::to_value(&target).unwrap();
            assert_eq!(json["id"], TASK);
        }
        assert_eq!(
            serde_json::to_value(OpenTarget::Task(TASK.parse().unwrap())).unwrap(),
            serde_json::json!({"kind": "task", "id": TASK})
        );
    }
}
