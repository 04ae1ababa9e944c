//! The Switchboard engine: runs coding agents in pseudo-terminals, keeps
//! their records in SQLite and reports what happens through an event sink.
//!
//! This crate knows nothing of Tauri or any UI. Start it with
//! [`Engine::start`]; talk to it through the cloneable [`EngineHandle`]. See
//! `ARCHITECTURE.md` at the repository root for the map and the invariants.

/// The vocabulary every client speaks (`switchboard-api`), by its old name.
pub use switchboard_api as api;
pub mod attention;
pub mod automations;
pub mod beyond;
#[cfg(test)]
mod bindings;
pub mod clock;
pub mod config;
pub mod connect;
pub mod demo;
pub mod detect;
mod engine;
pub mod error;
pub mod flows;
pub mod folders;
pub mod instance;
pub mod limits;
pub mod logging;
pub mod mcp;
pub mod presets;
pub mod private;
pub mod search;
pub mod server;
pub mod session;
mod sink;
pub mod store;
pub mod tasks;
pub mod usage;
pub mod validate;
pub mod web;
pub use switchboard_api::wire;
pub mod workspace;
pub mod worktree;

pub use api::{AccountLimit, AccountUsage, LimitPhase, MAX_PASSED_RESETS, Need, UsageLevel, UsageWindow, WaitingFor};
pub use api::{
    AgentAttention, AgentPreset, AgentStatusInfo, ApiError, AppInfo, Artifact, Attention, CliFound, Command,
    CompletionRule, Delegation, DelegationState, DetectedAgent, DiagramId, DiagramSilence, DiagramState, EngineEvent,
    EngineLink, ErrorCode, FlowEvents, FlowTarget, FlowView, FollowedLog, Iteration, IterationOutcome, LogEntry,
    LogKind, LoopFile, LoopFiles, LoopInfo, LoopIteration, LoopState, MAX_LOOP_FILE_BYTES, Millis, Overview,
    PermissionDecision, PermissionRequest, Profile, ProfileField, ProfileProblem, ProfileSpec, QueuePause, QueueStatus,
    RejectedPath, Reply, RestartTask, Restarted, ScreenSnapshot, SessionInfo, SessionState, Settings, SignalAction,
    SignalChannel, SignalInfo, SignalRecord, SignalResponse, SignalState, Submitted, TaskAction, TaskInfo, TaskRecord,
    TaskResult, TaskSpec, TaskState, TeamInfo, ToolAnswer, ToolCall, Viewing,
};
pub use api::{
    Automation, AutomationAction, AutomationRun, AutomationSpec, AutomationState, CatchUp, DEFAULT_RUNS_PER_HOUR,
    Overlap, PauseReason, RunOutcome, TaskEnd, Trigger,
};
pub use api::{
    Budget, BudgetMark, BudgetUse, CostGrouping, CostReport, CostRow, CostSince, LongPrompt, ModelPrice, ModelTokens,
    PriceTable, Rates, Spent, TaskSpent, TokenTotals, Usd,
};
pub use api::{
    CommitOutcome, DiffContent, DiscardOutcome, FileDiff, FileStatus, FolderRepository, Isolation, MergeOutcome,
    RebaseOutcome, ReviewComment, ReviewStep, WorktreeDiff, WorktreeInfo, WorktreeOverlap, WorktreeState,
};
pub use config::{EngineConfig, LoginService};
pub use engine::{
    Engine, EngineHandle, EventSink, KEPT_EXPORTS, MAX_CONTEXT_BYTES, MAX_INSTRUCTION_BYTES, MAX_LISTED_FINISHED_TASKS,
    MAX_LISTED_HANDLED_SIGNALS, MAX_LISTED_SESSIONS, MAX_PENDING_SIGNALS, NoEvents, RETAINED_ENDED_SESSIONS,
    SKIPPED_ITEMS_FILE, SPOOL_FILE, allowed_actions, spool_path,
};
pub use error::EngineError;
pub use session::{OutputSink, SubscriptionId};
pub use sink::{EventFeed, Sequenced};
pub use switchboard_protocol::{
    AgentKind, AutomationId, LoopId, Priority, ProfileId, SessionId, SignalId, TaskId, TermSize,
};
pub use switchboard_protocol::{capped, hook, loops, signal, summary, team, text};
