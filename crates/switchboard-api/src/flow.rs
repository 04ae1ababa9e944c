//! The live flows: the spec's diagrams as data, where an agent stands in
//! them (folded from the event log by the engine's `flows`), and the overview
//! of all agents and who works for whom.

use serde::{Deserialize, Serialize};
use switchboard_protocol::hook::AgentStatus;
use switchboard_protocol::{LoopId, ProfileId, SessionId, TaskId};
#[cfg(feature = "ts")]
use ts_rs::TS;

use super::{LogEntry, Millis};

/// The diagrams of the spec, one per flow the app runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(rename_all = "snake_case")]
pub enum DiagramId {
    /// loop-and-hook-state-machines.md §3.
    AgentStatus,
    /// loop-and-hook-state-machines.md §1.
    LoopMode,
    /// loop-and-hook-state-machines.md §2.
    StopEvent,
    /// team-completion-flow-diagrams.md: the lead's flow with the gate.
    TeamLead,
    /// team-completion-flow-diagrams.md: the team state lifecycle.
    TeamLifecycle,
    /// team-completion-flow-diagrams.md: the completion decision tree.
    CompletionDecision,
    /// subagent-signal-protocols.md, protocol 1.
    Clarification,
    /// subagent-signal-protocols.md, protocol 2.
    StopWork,
    /// subagent-signal-protocols.md, protocol 3.
    DelegateWork,
    /// subagent-signal-protocols.md, protocol 4.
    CompletionReport,
    /// subagent-signal-protocols.md, the checkpoint-resume mechanism.
    CheckpointResume,
    /// execution-protocol-and-task-queue.md, the complete example flow.
    TaskQueue,
}

impl DiagramId {
    pub const ALL: [DiagramId; 12] = [
        DiagramId::AgentStatus,
        DiagramId::TaskQueue,
        DiagramId::Clarification,
        DiagramId::StopWork,
        DiagramId::DelegateWork,
        DiagramId::CompletionReport,
        DiagramId::CheckpointResume,
        DiagramId::LoopMode,
        DiagramId::StopEvent,
        DiagramId::TeamLead,
        DiagramId::TeamLifecycle,
        DiagramId::CompletionDecision,
    ];

    /// The stable name the command line prints.
    pub fn as_str(self) -> &'static str {
        match self {
            DiagramId::AgentStatus => "agent_status",
            DiagramId::LoopMode => "loop_mode",
            DiagramId::StopEvent => "stop_event",
            DiagramId::TeamLead => "team_lead",
            DiagramId::TeamLifecycle => "team_lifecycle",
            DiagramId::CompletionDecision => "completion_decision",
            DiagramId::Clarification => "clarification",
            DiagramId::StopWork => "stop_work",
            DiagramId::DelegateWork => "delegate_work",
            DiagramId::CompletionReport => "completion_report",
            DiagramId::CheckpointResume => "checkpoint_resume",
            DiagramId::TaskQueue => "task_queue",
        }
    }
}

/// One diagram: its nodes and edges as the spec draws them (with the few
/// moves real agents make that the drawing leaves out), in the user's words.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct Diagram {
    pub id: DiagramId,
    /// What it shows, in a few words.
    pub title: String,
    /// What it shows, in one sentence.
    pub about: String,
    /// The spec document and section it is drawn from (a detail for the
    /// curious, never the diagram's name).
    pub source: String,
    pub nodes: Vec<FlowNode>,
    pub edges: Vec<FlowEdge>,
}

impl Diagram {
    pub fn has_node(&self, id: &str) -> bool {
        self.nodes.iter().any(|node| node.id == id)
    }

    pub fn has_edge(&self, from: &str, to: &str) -> bool {
        self.edges.iter().any(|edge| edge.from == from && edge.to == to)
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct FlowNode {
    /// Stable within its diagram.
    pub id: String,
    /// What the step is, in the user's words, one line per `\n`.
    pub label: String,
    /// The spec's own label, where it differs (one line per `\n`).
    pub spec: Option<String>,
    pub shape: NodeShape,
    /// The spec's colours where it gives them (`#rrggbb`).
    pub fill: Option<String>,
    pub stroke: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(rename_all = "snake_case")]
pub enum NodeShape {
    Start,
    Step,
    Decision,
    End,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct FlowEdge {
    pub from: String,
    pub to: String,
    pub label: Option<String>,
}

/// What a flow view or event log is about.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(tag = "of", rename_all = "snake_case")]
pub enum FlowTarget {
    /// Everything of one agent: its sessions, tasks, loops, delegates.
    Agent {
        profile_id: ProfileId,
    },
    Session {
        session_id: SessionId,
    },
    /// The task's own steps and its session's events while it ran.
    Task {
        task_id: TaskId,
    },
    /// The loop's steps and its iterations' tasks and sessions.
    Loop {
        loop_id: LoopId,
    },
}

/// The diagrams lit by a target's events up to a moment.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct FlowView {
    pub target: FlowTarget,
    /// The last event folded (none: there were none).
    pub until_seq: Option<i64>,
    pub until_at: Option<Millis>,
    /// How many events were folded.
    pub events: u32,
    /// Every diagram, in [`DiagramId::ALL`] order.
    pub diagrams: Vec<DiagramState>,
}

/// Where a target stands in one diagram.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct DiagramState {
    pub diagram: DiagramId,
    /// The node or nodes lit now (several when work runs in parallel, or
    /// several signals wait at once); empty before anything happened.
    pub current: Vec<String>,
    /// The nodes visited, oldest first (the most recent [`MAX_PATH_STEPS`]).
    pub path: Vec<PathStep>,
    /// Every edge crossed, with how often.
    pub edges: Vec<EdgeCount>,
    /// For each node lit at least once, the events that lit it.
    pub lit_by: Vec<NodeEvents>,
    /// The gate's inputs, for the team diagrams.
    pub gate: Option<GateInputs>,
    /// Why this diagram can show nothing for the target's agent (none: it can).
    pub silent: Option<DiagramSilence>,
}

/// Why a diagram can show nothing for an agent, whatever it does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(rename_all = "snake_case")]
pub enum DiagramSilence {
    /// Drawn from hook events, which only Claude Code and Codex send.
    NoHooks,
    /// Drawn from the signal protocols, which the agent is not taught.
    NoSignalProtocols,
}

/// The most path steps a [`DiagramState`] keeps.
pub const MAX_PATH_STEPS: usize = 400;
/// The most events a [`NodeEvents`] names (the most recent).
pub const MAX_NODE_EVENTS: usize = 50;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct PathStep {
    pub node: String,
    pub seq: i64,
    pub at: Millis,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct EdgeCount {
    pub from: String,
    pub to: String,
    pub count: u32,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct NodeEvents {
    pub node: String,
    /// How often it was lit.
    pub count: u32,
    /// The events that lit it, the most recent [`MAX_NODE_EVENTS`].
    pub seqs: Vec<i64>,
}

/// What the lead's completion gate reads: its team and teammates at work.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct GateInputs {
    pub team_name: Option<String>,
    pub active: u32,
    pub teammates: Vec<String>,
}

/// A target's event log, oldest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct FlowEvents {
    pub entries: Vec<LogEntry>,
    /// Older events left out (past the limit asked for).
    pub omitted: u32,
}

/// All agents as one graph: who runs, what each does, who works for whom.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct Overview {
    pub agents: Vec<OverviewAgent>,
    /// Helpers an agent runs inside its own process: Claude Code teammates
    /// and background agents.
    pub helpers: Vec<OverviewHelper>,
    pub links: Vec<OverviewLink>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct OverviewAgent {
    pub profile_id: ProfileId,
    pub name: String,
    /// Its running session, if one runs.
    pub session_id: Option<SessionId>,
    /// What its hooks and the app say; none for an agent that runs without
    /// hooks and is not at a task.
    pub status: Option<AgentStatus>,
    /// Since when it has been in that state (running or not); none for an
    /// agent that never ran.
    pub since: Option<Millis>,
    pub running: bool,
    /// Its task at work.
    pub task_id: Option<TaskId>,
    /// What it is at: its task's first line, or its loop's iteration.
    pub doing: Option<String>,
    pub loop_iteration: Option<u32>,
    pub queued: u32,
    /// Questions or decisions of its waiting for the user.
    pub needs_user: u32,
    /// What it asks of the user's attention: the one state every place
    /// shows for it.
    pub attention: crate::Attention,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct OverviewHelper {
    /// Stable within the overview: the lead's session and the helper's name.
    pub id: String,
    pub lead: ProfileId,
    pub name: String,
}

/// Who works for whom.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct OverviewLink {
    /// An agent (its profile id) or a helper (its id).
    pub from: String,
    pub to: String,
    pub kind: LinkKind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(rename_all = "snake_case")]
pub enum LinkKind {
    /// The app started the second agent for the first (an approved
    /// delegation, still at work or kept).
    Delegated,
    /// The agent spawned it itself (a teammate or background agent).
    Spawned,
}

/// Which entries of the event log the window follows as they are written:
/// each is reported as [`crate::EngineEvent::Logged`], and at a hundred hook
/// events a second that is work for the window, so it follows only what a
/// view it shows needs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(tag = "of", rename_all = "snake_case")]
pub enum FollowedLog {
    /// The entries about one agent (and those about no agent in particular).
    Agent {
        profile_id: ProfileId,
    },
    Everything,
}
