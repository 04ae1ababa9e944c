//! One machine per diagram: what an event means as moves through its nodes.
//! The machines decide nothing of their own: they read the facts the fold
//! took from the protocol crate's rules.

use switchboard_protocol::hook::{AgentStatus, HookEvent};
use switchboard_protocol::loops::Verdict;
use switchboard_protocol::signal::SignalKind;
use switchboard_protocol::team::{Emit, TurnEnd, gate, turn_end};
use switchboard_protocol::{SessionId, SignalId};

use super::{Facts, Move, World};
use switchboard_api::{DelegationState, DiagramId, LogEntry, LogKind, LoopStep, SignalResponse, TaskState};

pub(crate) trait Machine {
    fn step(&mut self, entry: &LogEntry, facts: &Facts, world: &World) -> Vec<Move>;
}

pub(crate) fn for_diagram(id: DiagramId) -> Box<dyn Machine> {
    match id {
        DiagramId::AgentStatus => Box::new(Status),
        DiagramId::LoopMode => Box::new(LoopMode),
        DiagramId::StopEvent => Box::new(StopEvent),
        DiagramId::TeamLead => Box::new(TeamLead),
        DiagramId::TeamLifecycle => Box::new(TeamLifecycle { done: false }),
        DiagramId::CompletionDecision => Box::new(CompletionDecision),
        DiagramId::Clarification => Box::new(Asking { kind: SignalKind::Clarification, resuming: None }),
        DiagramId::StopWork => Box::new(Asking { kind: SignalKind::StopWork, resuming: None }),
        DiagramId::DelegateWork => Box::new(Delegate { reported: None }),
        DiagramId::CompletionReport => Box::new(Report { shown: None }),
        DiagramId::CheckpointResume => Box::new(Checkpoint { resuming: None }),
        DiagramId::TaskQueue => Box::new(Queue),
    }
}

fn go(nodes: &[&'static str]) -> Vec<Move> {
    vec![Move::Go(nodes.to_vec())]
}

/// How the event ended the focus session's turn, if it did.
fn turn(facts: &Facts) -> Option<TurnEnd> {
    facts.hook.as_ref().and_then(turn_end)
}

/// Whether the event shows the agent at work again after a reply: a hook
/// of its session, its task's end, or a new signal of it.
fn shows_life(entry: &LogEntry, session: &SessionId) -> bool {
    entry.session_id.as_ref() == Some(session)
        && matches!(
            entry.kind,
            LogKind::Hook { .. }
                | LogKind::TaskEnded { .. }
                | LogKind::SignalRaised { .. }
                | LogKind::SessionExited { .. }
        )
}

/// The agent status flow: the status the app shows, by the event that
/// brought it.
struct Status;

impl Machine for Status {
    fn step(&mut self, entry: &LogEntry, facts: &Facts, _: &World) -> Vec<Move> {
        if !facts.focus && !matches!(entry.kind, LogKind::SignalHandled { .. }) {
            return Vec::new();
        }
        if let LogKind::SessionStarted { .. } = entry.kind {
            return go(&["session_start", "waiting"]);
        }
        let (before, after) = facts.status;
        let Some(after) = after else { return Vec::new() };
        let turn_ended =
            turn(facts).is_some() || (facts.was_running && matches!(entry.kind, LogKind::TaskEnded { .. }));
        if before == Some(after) && !turn_ended {
            return Vec::new();
        }
        let node = match after {
            AgentStatus::Working => "tool_use",
            AgentStatus::Attention => "permission",
            AgentStatus::Done => "stop",
            AgentStatus::Waiting if turn_ended => "stop",
            AgentStatus::Waiting => "waiting",
            AgentStatus::Exited => "session_end",
        };
        go(&[node])
    }
}

/// Loop mode: the loop's own steps.
struct LoopMode;

impl Machine for LoopMode {
    fn step(&mut self, entry: &LogEntry, _: &Facts, _: &World) -> Vec<Move> {
        let LogKind::Loop { step, .. } = &entry.kind else { return Vec::new() };
        match step {
            LoopStep::Started { .. } => go(&["none", "active"]),
            LoopStep::Iteration { .. } | LoopStep::Resumed | LoopStep::FailedStart { .. } => go(&["active"]),
            // The spec's diagram has no node for it; the loop's panel says it.
            LoopStep::FailedToStart { .. } | LoopStep::WorkspaceGone | LoopStep::AnchorRewritten => Vec::new(),
            LoopStep::Judged { verdict, .. } => go(&[verdict_node(verdict)]),
            LoopStep::Cancelled => go(&["cancelled"]),
        }
    }
}

fn verdict_node(verdict: &Verdict) -> &'static str {
    match verdict {
        Verdict::Complete { .. } => "complete",
        Verdict::Stalled { .. } => "stalled",
        Verdict::Continue => "continue",
        Verdict::Cancelled => "cancelled",
    }
}

/// Stop event processing: a turn's end, judged when a loop iteration is at
/// work (agents without hooks end iterations without a Stop: the judgment
/// alone walks the way).
struct StopEvent;

impl Machine for StopEvent {
    fn step(&mut self, entry: &LogEntry, facts: &Facts, world: &World) -> Vec<Move> {
        if let LogKind::Loop { step: LoopStep::Judged { verdict, .. }, .. } = &entry.kind {
            let node = match verdict {
                Verdict::Cancelled => return Vec::new(),
                verdict => verdict_node(verdict),
            };
            return go(&["received", "loop_active", "judge", node]);
        }
        if turn(facts).is_none() {
            return Vec::new();
        }
        if world.iterating {
            // Judged at the loop's step that follows.
            Vec::new()
        } else {
            go(&["received", "loop_active", "normal"])
        }
    }
}

/// The lead's flow: prompt, tool calls (spawning teammates or not), and the
/// gate at the turn's end.
struct TeamLead;

impl Machine for TeamLead {
    fn step(&mut self, entry: &LogEntry, facts: &Facts, world: &World) -> Vec<Move> {
        if !facts.focus {
            return Vec::new();
        }
        if matches!(entry.kind, LogKind::TaskTyped { .. }) && !world.hooks_seen {
            return go(&["a", "b"]);
        }
        let Some(hook) = &facts.hook else { return Vec::new() };
        match hook {
            HookEvent::UserPromptSubmit => go(&["a", "b"]),
            HookEvent::PreToolUse { .. } if facts.team.1 > facts.team.0 => go(&["c", "d", "f"]),
            HookEvent::PreToolUse { .. } => go(&["c", "e"]),
            HookEvent::PostToolUse { .. } => go(&["g"]),
            other => match turn_end(other) {
                Some(TurnEnd::Error) => go(&["h", "k", "m"]),
                Some(end) if gate(&world.team, end).contains(&Emit::UsageUpdate) => go(&["h", "i", "j", "l"]),
                Some(_) => go(&["h", "i", "k", "m"]),
                None => Vec::new(),
            },
        }
    }
}

/// The team state lifecycle, by the team's count before and after.
struct TeamLifecycle {
    done: bool,
}

impl Machine for TeamLifecycle {
    fn step(&mut self, entry: &LogEntry, facts: &Facts, world: &World) -> Vec<Move> {
        if !facts.focus {
            return Vec::new();
        }
        if let LogKind::SessionStarted { .. } = entry.kind {
            self.done = false;
            return go(&["begin", "no_team"]);
        }
        let (before, after) = facts.team;
        let moved = match (before, after) {
            (0, 0) => None,
            (0, _) => Some("team_active"),
            (_, 0) => Some("no_team"),
            (b, a) if a > b => Some("team_active"),
            (b, a) if a < b => Some("team_completing"),
            _ => None,
        };
        if let Some(node) = moved {
            self.done = false;
            return go(&[node]);
        }
        if let Some(end) = turn(facts) {
            if gate(&world.team, end).contains(&Emit::Complete) {
                self.done = true;
                return go(&["done"]);
            }
            // The lead's turn ended with its team at work: it goes on.
            return go(&["team_active"]);
        }
        let begins =
            matches!(facts.hook, Some(HookEvent::UserPromptSubmit)) || matches!(entry.kind, LogKind::TaskTyped { .. });
        if self.done && begins {
            self.done = false;
            return go(&["no_team"]);
        }
        Vec::new()
    }
}

/// The completion decision tree, at each turn's end.
struct CompletionDecision;

impl Machine for CompletionDecision {
    fn step(&mut self, _: &LogEntry, facts: &Facts, world: &World) -> Vec<Move> {
        if !facts.focus {
            return Vec::new();
        }
        match turn(facts) {
            None => Vec::new(),
            Some(TurnEnd::Error) => go(&["a", "b", "c", "d"]),
            Some(end) if gate(&world.team, end).contains(&Emit::UsageUpdate) => {
                go(&["a", "b", "e", "h", "j", "k", "l"])
            }
            Some(_) if world.team.team_name.is_none() => go(&["a", "b", "e", "f", "g"]),
            Some(_) => go(&["a", "b", "e", "h", "i", "g"]),
        }
    }
}

/// Clarification and stop work: a signal, the user's decision, the reply,
/// and the agent going on.
struct Asking {
    kind: SignalKind,
    /// The session a reply was sent to, until it shows life.
    resuming: Option<SessionId>,
}

impl Machine for Asking {
    fn step(&mut self, entry: &LogEntry, facts: &Facts, _: &World) -> Vec<Move> {
        let raise: &[&'static str] = match self.kind {
            SignalKind::Clarification => &["ambiguity", "checkpoint", "signal", "parse", "ask"],
            _ => &["attempt", "blocker", "checkpoint", "signal", "parse", "resolve"],
        };
        let decide = if self.kind == SignalKind::Clarification { "answer" } else { "resume" };
        match (&entry.kind, &facts.signal) {
            (LogKind::SignalRaised { .. }, Some((_, kind))) if *kind == self.kind => {
                self.resuming = None;
                go(raise)
            }
            (LogKind::SignalHandled { response: SignalResponse::Dismiss, .. }, Some((_, kind)))
                if *kind == self.kind =>
            {
                go(&["dismissed"])
            }
            (LogKind::SignalHandled { .. }, Some((_, kind))) if *kind == self.kind => {
                self.resuming = entry.session_id.clone();
                if decide == "answer" { go(&["answer", "resume"]) } else { go(&["resume"]) }
            }
            _ => match &self.resuming {
                Some(session) if shows_life(entry, session) => {
                    self.resuming = None;
                    go(&["restore", "continue"])
                }
                _ => Vec::new(),
            },
        }
    }
}

/// Delegate work: the request, the user's decision, and the two agents in
/// parallel until both reported.
struct Delegate {
    /// Which sides of the approved request reported: the requester (A) and
    /// its delegate (B).
    reported: Option<(bool, bool)>,
}

impl Machine for Delegate {
    fn step(&mut self, entry: &LogEntry, facts: &Facts, world: &World) -> Vec<Move> {
        let delegate = matches!(facts.signal, Some((_, SignalKind::Delegate)));
        match &entry.kind {
            LogKind::SignalRaised { .. } if delegate => go(&["analyze", "signal", "evaluate"]),
            LogKind::SignalHandled { response: SignalResponse::Approve { .. }, .. } if delegate => {
                self.reported = Some((false, false));
                vec![Move::Go(vec!["approve", "launch", "b_work"]), Move::Branch("approve", vec!["resume", "a_work"])]
            }
            LogKind::SignalHandled { .. } if delegate => go(&["denied"]),
            LogKind::Delegation { state, requester_session } if Some(requester_session) == world.focus.as_ref() => {
                match state {
                    DelegationState::Working => Vec::new(),
                    DelegationState::Reported { .. } => self.side(false, Move::From("b_work", vec!["b_report"])),
                    DelegationState::Failed { .. } => self.side(false, Move::From("b_work", vec!["b_failed"])),
                }
            }
            LogKind::SignalRaised { .. }
                if matches!(facts.signal, Some((_, SignalKind::Completion))) && facts.focus =>
            {
                self.side(true, Move::From("a_work", vec!["a_report"]))
            }
            _ => Vec::new(),
        }
    }
}

impl Delegate {
    /// One side reported: once both have, the results merge.
    fn side(&mut self, requester: bool, reported: Move) -> Vec<Move> {
        let Some((a, b)) = &mut self.reported else { return Vec::new() };
        if requester {
            *a = true
        } else {
            *b = true
        }
        if *a && *b {
            self.reported = None;
            vec![reported, Move::Go(vec!["merge"])]
        } else {
            vec![reported]
        }
    }
}

/// The completion report: raised, checked, notified; read by the user.
struct Report {
    shown: Option<SignalId>,
}

impl Machine for Report {
    fn step(&mut self, entry: &LogEntry, facts: &Facts, _: &World) -> Vec<Move> {
        let Some((signal, SignalKind::Completion)) = &facts.signal else { return Vec::new() };
        match entry.kind {
            LogKind::SignalRaised { .. } => {
                self.shown = Some(signal.clone());
                go(&["complete", "validate", "signal", "parse", "check", "compare", "extract", "notify"])
            }
            LogKind::SignalHandled { .. } if self.shown.as_ref() == Some(signal) => go(&["terminates"]),
            _ => Vec::new(),
        }
    }
}

/// Checkpoint and resume over a task: a stop, the resolution, the resume,
/// the report.
struct Checkpoint {
    resuming: Option<SessionId>,
}

impl Machine for Checkpoint {
    fn step(&mut self, entry: &LogEntry, facts: &Facts, _: &World) -> Vec<Move> {
        match (&entry.kind, &facts.signal) {
            (LogKind::TaskTyped { .. }, _) if facts.focus => go(&["initial"]),
            (LogKind::SignalRaised { .. }, Some((_, SignalKind::StopWork))) => {
                self.resuming = None;
                go(&["checkpoint", "blocker", "signal", "resolution"])
            }
            (LogKind::SignalHandled { response, .. }, Some((_, SignalKind::StopWork)))
                if *response != SignalResponse::Dismiss =>
            {
                self.resuming = entry.session_id.clone();
                go(&["issue"])
            }
            (LogKind::SignalRaised { .. }, Some((_, SignalKind::Completion))) => go(&["report"]),
            (LogKind::TaskEnded { state: TaskState::Completed, .. }, _) if facts.was_running => go(&["report"]),
            _ => match &self.resuming {
                Some(session) if shows_life(entry, session) => {
                    self.resuming = None;
                    go(&["restore", "resumed"])
                }
                _ => Vec::new(),
            },
        }
    }
}

/// The task queue and the completion protocol: each task from its
/// submission to its summary, and the queue beside it.
struct Queue;

impl Machine for Queue {
    fn step(&mut self, entry: &LogEntry, facts: &Facts, world: &World) -> Vec<Move> {
        let idle = world.running.is_empty();
        let mut moves = match &entry.kind {
            LogKind::TaskQueued { .. } if idle => go(&["submit", "busy"]),
            LogKind::TaskQueued { .. } => vec![Move::Also(vec!["submit", "busy", "queued"])],
            LogKind::TaskRequeued { .. } => Vec::new(),
            // Its turn came (after the task before it ended) or the agent
            // was free.
            LogKind::TaskStarted => vec![Move::Leave("queued"), Move::Go(vec!["executing"])],
            LogKind::TaskTyped { .. } => vec![Move::Leave("queued"), Move::Go(vec!["send", "working", "monitor"])],
            LogKind::TaskEnded { state, .. } if facts.was_running => {
                let mut path = match state {
                    TaskState::Completed => vec!["detect", "done", "artifacts", "more"],
                    _ => vec!["fallback", "more"],
                };
                path.push(if world.queued.is_empty() { "idle" } else { "next" });
                vec![Move::Leave("queued"), Move::Go(path)]
            }
            LogKind::TaskEnded { .. } => Vec::new(),
            _ => return Vec::new(),
        };
        // Tasks still waiting keep the queue lit beside the task at work (a
        // task just queued to a free agent starts at once: not waiting).
        let just_queued = matches!(entry.kind, LogKind::TaskQueued { .. }) && idle;
        let waiting = world.queued.len().saturating_sub(usize::from(just_queued));
        moves.push(if waiting > 0 { Move::Keep("queued") } else { Move::Leave("queued") });
        moves
    }
}
