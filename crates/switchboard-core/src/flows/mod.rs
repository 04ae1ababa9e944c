//! The live flows: the spec's diagrams ([`diagrams`]) and one pure fold
//! that lights them from the event log. The same fold serves the live view
//! (all events so far) and the replay (the events up to a moment): it sees
//! only what the log recorded, so a session of an earlier run replays as it
//! went.
//!
//! The fold keeps one picture of the target (its newest session's status
//! and team, its tasks at work and waiting, its signals and loop) and asks
//! the protocol crate's rules what each event means (`next_status`,
//! `shown_status`, `team_event`, `gate`), so the diagrams say what the app
//! decided, not a second opinion. Each diagram's machine then turns an event
//! into moves through its nodes.

pub mod diagrams;
mod machines;
#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use serde_json::Value;
use switchboard_protocol::hook::{
    AgentStatus, HookEnvelope, HookEvent, Shown, hook_conversation, is_side_thread, next_status, shown_status,
};
use switchboard_protocol::signal::SignalKind;
use switchboard_protocol::team::{TeamEvent, TeamState, team_event};
use switchboard_protocol::{SessionId, SignalId, TaskId};

use switchboard_api::{
    DelegationState, Diagram, DiagramId, DiagramState, EdgeCount, GateInputs, LogEntry, LogKind, LoopStep,
    MAX_NODE_EVENTS, MAX_PATH_STEPS, NodeEvents, PathStep, SignalResponse, TaskState,
};

/// The most events one fold reads: a target with more is folded from the
/// most recent this many (older steps are history the view no longer
/// traces).
pub const MAX_FOLDED_EVENTS: usize = 20_000;

/// Every diagram lit by `entries` (oldest first), in [`DiagramId::ALL`]
/// order.
pub fn fold(entries: &[LogEntry]) -> Vec<DiagramState> {
    let mut world = World::default();
    let mut tracks: Vec<(Track, Box<dyn machines::Machine>)> =
        DiagramId::ALL.into_iter().map(|id| (Track::new(diagrams::get(id)), machines::for_diagram(id))).collect();
    for entry in entries {
        let facts = world.observe(entry);
        for (track, machine) in &mut tracks {
            for step in machine.step(entry, &facts, &world) {
                track.apply(step, entry);
            }
        }
    }
    tracks.into_iter().map(|(track, _)| track.finish(&world)).collect()
}

/// What one event changed in the target's picture.
#[derive(Debug, Default)]
pub(crate) struct Facts {
    /// The event is about the session the picture follows.
    pub focus: bool,
    /// A hook event of that session, read (none for a Codex side thread).
    pub hook: Option<HookEvent>,
    /// The team's active count before and after the event.
    pub team: (usize, usize),
    /// The shown status before and after (none: no session yet).
    pub status: (Option<AgentStatus>, Option<AgentStatus>),
    /// The signal the event raised or settled, and its kind.
    pub signal: Option<(SignalId, SignalKind)>,
    /// The task the event started or ended was at work before it.
    pub was_running: bool,
}

/// The target's picture, as the events so far draw it.
#[derive(Debug, Default)]
pub(crate) struct World {
    /// The newest session started: status and team follow it.
    pub focus: Option<SessionId>,
    pub hooks_seen: bool,
    pub from_hooks: Option<AgentStatus>,
    pub typed: bool,
    pub ended: bool,
    pub task_done: bool,
    /// The conversation the focus session's hooks named (Codex side
    /// threads are told apart by it).
    pub conversation: Option<String>,
    pub team: TeamState,
    /// Signals raised and not settled: their kind, session, and whether
    /// they wait for the user.
    pub pending: BTreeMap<SignalId, (SignalKind, Option<SessionId>, bool)>,
    pub kinds: BTreeMap<SignalId, SignalKind>,
    pub queued: BTreeSet<TaskId>,
    pub running: BTreeSet<TaskId>,
    /// A loop's iteration at work (between its start and its judgment).
    pub iterating: bool,
}

impl World {
    pub fn shown(&self) -> Option<AgentStatus> {
        let focus = self.focus.as_ref()?;
        let from_hooks = match (self.ended, self.from_hooks) {
            (true, _) => AgentStatus::Exited,
            (false, Some(status)) => status,
            (false, None) if self.typed => AgentStatus::Working,
            (false, None) => AgentStatus::Waiting,
        };
        let needs_user = self.pending.values().any(|(_, session, waits)| *waits && session.as_ref() == Some(focus));
        Some(shown_status(Shown {
            from_hooks,
            team_working: self.team.is_active(),
            needs_user,
            task_done: self.task_done,
        }))
    }

    pub fn gate(&self) -> GateInputs {
        GateInputs {
            team_name: self.team.team_name.clone(),
            active: self.team.active_count() as u32,
            teammates: self.team.teammates.iter().chain(&self.team.delegates).cloned().collect(),
        }
    }

    /// A new session in focus: what it knows of the queues, signals and loop
    /// carries over; the rest starts afresh.
    fn refocus(&mut self, focus: Option<SessionId>) {
        *self = World {
            focus,
            pending: std::mem::take(&mut self.pending),
            kinds: std::mem::take(&mut self.kinds),
            queued: std::mem::take(&mut self.queued),
            running: std::mem::take(&mut self.running),
            iterating: self.iterating,
            ..World::default()
        };
    }

    fn observe(&mut self, entry: &LogEntry) -> Facts {
        let status_before = self.shown();
        let team_before = self.team.active_count();
        let mut facts = Facts::default();
        if let LogKind::SessionStarted { .. } = entry.kind
            && entry.session_id.is_some()
        {
            self.refocus(entry.session_id.clone());
        }
        facts.focus = entry.session_id.is_some() && entry.session_id == self.focus;
        match &entry.kind {
            LogKind::SessionExited { .. } | LogKind::SessionKilled { .. } | LogKind::SessionInterrupted { .. }
                if facts.focus =>
            {
                self.ended = true;
                self.team.apply(TeamEvent::Reset);
            }
            LogKind::Hook { event, payload, env }
                if facts.focus && !is_side_thread(payload, self.conversation.as_deref()) =>
            {
                if let Some(conversation) = hook_conversation(payload) {
                    self.conversation = Some(conversation.to_owned());
                }
                let hook = read_hook(event, payload);
                self.hooks_seen = true;
                self.from_hooks = Some(next_status(self.from_hooks.unwrap_or(AgentStatus::Waiting), &hook));
                if matches!(hook, HookEvent::SessionStart | HookEvent::UserPromptSubmit) {
                    self.task_done = false;
                }
                let envelope = HookEnvelope {
                    session_id: entry.session_id.as_ref().map(ToString::to_string),
                    env: env.clone().unwrap_or_default(),
                    at: entry.at,
                    payload: payload.clone(),
                    secret: None,
                };
                if let Some(change) = team_event(&hook, &envelope) {
                    self.team.apply(change);
                }
                facts.hook = Some(hook);
            }
            LogKind::TaskQueued { .. } | LogKind::TaskRequeued { .. } => {
                if let Some(task) = &entry.task_id {
                    self.running.remove(task);
                    self.queued.insert(task.clone());
                }
            }
            LogKind::TaskStarted => {
                if let Some(task) = &entry.task_id {
                    self.queued.remove(task);
                    self.running.insert(task.clone());
                }
                if facts.focus || self.focus.is_none() {
                    // A new task begins: its team starts afresh.
                    self.team.apply(TeamEvent::Reset);
                }
            }
            LogKind::TaskTyped { .. } => {
                self.typed = true;
                self.task_done = false;
            }
            LogKind::TaskEnded { state, .. } => {
                if let Some(task) = &entry.task_id {
                    self.queued.remove(task);
                    facts.was_running = self.running.remove(task);
                }
                if facts.was_running {
                    self.typed = false;
                    self.task_done = *state == TaskState::Completed;
                }
            }
            LogKind::SignalRaised { signal_id, signal_kind, malformed } => {
                let waits = *malformed || *signal_kind != SignalKind::Completion;
                self.pending.insert(signal_id.clone(), (*signal_kind, entry.session_id.clone(), waits));
                self.kinds.insert(signal_id.clone(), *signal_kind);
                facts.signal = Some((signal_id.clone(), *signal_kind));
            }
            LogKind::SignalHandled { signal_id, response } => {
                self.pending.remove(signal_id);
                let kind = self.kinds.get(signal_id).copied().or_else(|| kind_of(response));
                facts.signal = kind.map(|kind| (signal_id.clone(), kind));
            }
            LogKind::Delegation { requester_session, state } if Some(requester_session) == self.focus.as_ref() => {
                self.team.apply(delegate_change(requester_session, state, entry.session_id.as_ref()));
            }
            LogKind::Loop { step, .. } => match step {
                LoopStep::Iteration { .. } => self.iterating = true,
                LoopStep::Judged { .. }
                | LoopStep::Cancelled
                | LoopStep::FailedStart { .. }
                | LoopStep::FailedToStart { .. }
                | LoopStep::WorkspaceGone => self.iterating = false,
                LoopStep::Started { .. } | LoopStep::Resumed | LoopStep::AnchorRewritten => {}
            },
            _ => {}
        }
        facts.team = (team_before, self.team.active_count());
        facts.status = (status_before, self.shown());
        facts
    }
}

/// A delegate of the session in focus started work (it joins its team) or
/// is gone; `delegate`: its session.
fn delegate_change(requester: &SessionId, state: &DelegationState, delegate: Option<&SessionId>) -> TeamEvent {
    let teammate = delegate.map(ToString::to_string).unwrap_or_default();
    match state {
        DelegationState::Working => {
            TeamEvent::DelegateStarted { teammate, team_name: format!("session-{}", &requester.to_string()[..8]) }
        }
        _ => TeamEvent::Gone { teammate },
    }
}

/// A hook event as logged; a payload too big to keep is read from its
/// name alone.
fn read_hook(event: &str, payload: &Value) -> HookEvent {
    if payload.get("truncated").and_then(Value::as_bool) != Some(true) {
        return HookEvent::parse(payload);
    }
    match event {
        "session_start" => HookEvent::SessionStart,
        "user_prompt_submit" => HookEvent::UserPromptSubmit,
        "stop" => HookEvent::Stop { last_assistant_message: None, background_tasks: None },
        "stop_failure" => HookEvent::StopFailure { error: String::new(), kind: None, last_assistant_message: None },
        "session_end" => HookEvent::SessionEnd { reason: None },
        "permission_request" => HookEvent::PermissionRequest { tool_name: String::new(), tool_input: Value::Null },
        other => HookEvent::Unknown { name: other.to_owned() },
    }
}

/// The kind of signal a response settles, for a signal raised before the
/// events folded.
fn kind_of(response: &SignalResponse) -> Option<SignalKind> {
    match response {
        SignalResponse::Answer { .. } => Some(SignalKind::Clarification),
        SignalResponse::Resolve { .. }
        | SignalResponse::Retry { .. }
        | SignalResponse::Skip
        | SignalResponse::DelegateBlocked { .. } => Some(SignalKind::StopWork),
        SignalResponse::Approve { .. } | SignalResponse::Deny { .. } => Some(SignalKind::Delegate),
        SignalResponse::Acknowledge => Some(SignalKind::Completion),
        SignalResponse::Dismiss => None,
    }
}

/// A move through a diagram's nodes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Move {
    /// Visit these nodes in order; the last is then the only one lit. The
    /// first is entered from every lit node with an edge to it.
    Go(Vec<&'static str>),
    /// Visit these from `from` (counting its edge), then the last is lit in
    /// `from`'s place.
    From(&'static str, Vec<&'static str>),
    /// Visit these from `from` and light the last beside what is lit.
    Branch(&'static str, Vec<&'static str>),
    /// Visit these (entered from nothing) and light the last beside what is
    /// lit.
    Also(Vec<&'static str>),
    /// Light a node beside the others without visiting it.
    Keep(&'static str),
    /// Put a node out.
    Leave(&'static str),
}

/// One diagram's lit nodes, path and counts.
struct Track {
    diagram: &'static Diagram,
    current: Vec<&'static str>,
    path: VecDeque<PathStep>,
    edges: BTreeMap<(&'static str, &'static str), u32>,
    lit: BTreeMap<&'static str, (u32, VecDeque<i64>)>,
}

impl Track {
    fn new(diagram: &'static Diagram) -> Track {
        Track { diagram, current: Vec::new(), path: VecDeque::new(), edges: BTreeMap::new(), lit: BTreeMap::new() }
    }

    fn apply(&mut self, step: Move, entry: &LogEntry) {
        match step {
            Move::Go(nodes) => {
                let Some(first) = nodes.first() else { return };
                if nodes.len() == 1 && self.current == [*first] && !self.diagram.has_edge(first, first) {
                    return;
                }
                let froms: Vec<&'static str> =
                    self.current.iter().copied().filter(|c| self.diagram.has_edge(c, first)).collect();
                for from in &froms {
                    self.cross(from, first);
                }
                let last = self.visit(&nodes, entry);
                self.current = vec![last];
            }
            Move::From(from, nodes) => {
                self.current.retain(|c| *c != from);
                let last = self.visit_from(from, &nodes, entry);
                self.light(last);
            }
            Move::Branch(from, nodes) => {
                let last = self.visit_from(from, &nodes, entry);
                self.light(last);
            }
            Move::Also(nodes) => {
                if !nodes.is_empty() {
                    let last = self.visit(&nodes, entry);
                    self.light(last);
                }
            }
            Move::Keep(node) => self.light(node),
            Move::Leave(node) => self.current.retain(|c| *c != node),
        }
    }

    fn light(&mut self, node: &'static str) {
        if !self.current.contains(&node) {
            self.current.push(node);
        }
    }

    fn visit_from(&mut self, from: &'static str, nodes: &[&'static str], entry: &LogEntry) -> &'static str {
        if let Some(first) = nodes.first() {
            self.cross(from, first);
        }
        self.visit(nodes, entry)
    }

    /// Visits `nodes` in order (counting the edges between them); answers
    /// the last.
    fn visit(&mut self, nodes: &[&'static str], entry: &LogEntry) -> &'static str {
        for (i, node) in nodes.iter().enumerate() {
            debug_assert!(self.diagram.has_node(node), "{:?} has no node {node}", self.diagram.id);
            if i > 0 {
                self.cross(nodes[i - 1], node);
            }
            if self.path.len() == MAX_PATH_STEPS {
                self.path.pop_front();
            }
            self.path.push_back(PathStep { node: (*node).to_owned(), seq: entry.seq, at: entry.at });
            let (count, seqs) = self.lit.entry(node).or_default();
            *count += 1;
            if seqs.back() != Some(&entry.seq) {
                if seqs.len() == MAX_NODE_EVENTS {
                    seqs.pop_front();
                }
                seqs.push_back(entry.seq);
            }
        }
        nodes.last().copied().unwrap_or_default()
    }

    fn cross(&mut self, from: &'static str, to: &'static str) {
        if self.diagram.has_edge(from, to) {
            *self.edges.entry((from, to)).or_default() += 1;
        }
    }

    fn finish(self, world: &World) -> DiagramState {
        let team =
            matches!(self.diagram.id, DiagramId::TeamLead | DiagramId::TeamLifecycle | DiagramId::CompletionDecision);
        DiagramState {
            diagram: self.diagram.id,
            current: self.current.iter().map(|c| (*c).to_owned()).collect(),
            path: self.path.into(),
            edges: self
                .edges
                .into_iter()
                .map(|((from, to), count)| EdgeCount { from: from.into(), to: to.into(), count })
                .collect(),
            lit_by: self
                .lit
                .into_iter()
                .map(|(node, (count, seqs))| NodeEvents { node: node.into(), count, seqs: seqs.into() })
                .collect(),
            gate: team.then(|| world.gate()),
            silent: None,
        }
    }
}
