//! Hook events from agents, on the engine task: logged, turned into each
//! session's agent status, and — for the agent's own words at a turn's end —
//! scanned for signals. Events spooled while the app was not running are
//! replayed at start, in order.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::io::{BufRead, BufReader};
use std::path::Path;

use switchboard_protocol::hook::{
    AgentStatus, HookEnvelope, HookEvent, Shown, hook_conversation, is_side_thread, next_status, reconcile,
    shown_status,
};
use switchboard_protocol::team::{Emit, TeamEvent, TeamState, TurnEnd, gate};
use switchboard_protocol::{SessionId, SignalId};

use super::{EngineState, Reply, Responder, now};
use crate::api::{AgentStatusInfo, EngineEvent, LogKind, PermissionDecision, PermissionRequest};
use crate::error::EngineError;
use crate::server::SocketRequest;
use crate::session::Control;

/// The largest payload kept whole in the event log.
const LOGGED_PAYLOAD_BYTES: usize = 16 * 1024;
/// The spool file in the data directory.
pub const SPOOL_FILE: &str = "hook-spool.jsonl";

/// A permission request whose hook waits for the user.
pub(super) struct PendingPermission {
    pub request: PermissionRequest,
    pub deadline: tokio::time::Instant,
    pub reply: Responder,
}

#[derive(Default)]
pub(super) struct Hooks {
    pub permissions: Vec<PendingPermission>,
    pub next_permission: u64,
    /// Each session's status as its hooks tell it (what is shown adds
    /// `needs_user` and `done`).
    pub status: HashMap<SessionId, AgentStatusInfo>,
    /// Signals of each session that wait for the user.
    pub needs_user: HashMap<SessionId, BTreeSet<SignalId>>,
    /// Sessions whose task completed, with nothing started since.
    pub done: HashSet<SessionId>,
    /// The conversation each session's hooks name (the agent's own id).
    pub conversations: HashMap<SessionId, String>,
    /// Each lead session's team.
    pub teams: HashMap<SessionId, TeamState>,
    /// Events that could not be used (no session, unknown session).
    pub refused: u64,
}

impl EngineState {
    pub(super) fn on_hook(&mut self, envelope: HookEnvelope) -> Result<(), EngineError> {
        let session_id = envelope.session_id.as_deref().and_then(|id| id.parse::<SessionId>().ok());
        let Some(session_id) = session_id.filter(|id| self.known_session(id)) else {
            self.hooks.refused += 1;
            return Err(EngineError::InvalidInput {
                field: "session_id",
                reason: format!("a hook event names no session of this app ({:?})", envelope.session_id),
            });
        };
        if let Some(conversation) = hook_conversation(&envelope.payload) {
            self.hooks.conversations.entry(session_id.clone()).or_insert_with(|| conversation.to_owned());
        }
        let known = self.hooks.conversations.get(&session_id).map(String::as_str);
        let side_thread = is_side_thread(&envelope.payload, known);
        let event = if side_thread {
            HookEvent::Unknown { name: "agent-turn-complete (side thread)".into() }
        } else {
            HookEvent::parse(&envelope.payload)
        };
        let name = match &event {
            HookEvent::Unknown { name } if name.is_empty() => "unrecognised".to_owned(),
            HookEvent::Unknown { name } => name.clone(),
            other => serde_json::to_value(other)
                .ok()
                .and_then(|v| v.get("event").and_then(|e| e.as_str()).map(str::to_owned))
                .unwrap_or_default(),
        };
        let text = envelope.payload.to_string();
        let payload = if text.len() <= LOGGED_PAYLOAD_BYTES {
            envelope.payload.clone()
        } else {
            serde_json::json!({"truncated": true, "bytes": text.len()})
        };
        if let Err(error) =
            self.store.append_event(envelope.at, Some(&session_id), &LogKind::Hook { event: name, payload })
        {
            tracing::error!(%error, "logging a hook event failed");
        }
        if side_thread {
            return Ok(());
        }
        if let Some(team_event) = team_event(&event, &envelope) {
            self.hooks.teams.entry(session_id.clone()).or_default().apply(team_event);
        }
        // A turn that ends while teammates work leaves the lead shown as
        // working (and its task open); one that ends without lets the task
        // complete.
        let team_done = matches!(event, HookEvent::Stop { .. })
            && gate(self.hooks.teams.get(&session_id).unwrap_or(&TeamState::default()), TurnEnd::Success)
                == [Emit::Complete];
        if self.running.contains_key(&session_id) {
            let current = self.hooks.status.get(&session_id).map_or(AgentStatus::Waiting, |s| s.status);
            let status = next_status(current, &event);
            if matches!(event, HookEvent::SessionStart | HookEvent::UserPromptSubmit) {
                // Something new begins.
                self.hooks.done.remove(&session_id);
            }
            let info = AgentStatusInfo { session_id: session_id.clone(), status, last_event_at: Some(now()) };
            self.hooks.status.insert(session_id.clone(), info);
            self.publish_status(&session_id);
            self.tell_busy(&session_id, status);
        }
        if let Some(text) = event.assistant_text() {
            self.agent_text(session_id.clone(), text)?;
        }
        if team_done {
            self.team_settled(&session_id);
        }
        Ok(())
    }

    /// Holds a permission request's hook until the user decides or the
    /// time runs out.
    pub(super) fn ask_permission(&mut self, envelope: &HookEnvelope, reply: Responder) {
        let Some(session_id) = envelope.session_id.as_deref().and_then(|id| id.parse::<SessionId>().ok()) else {
            reply.send(Ok(Reply::Permission(None))).ok();
            return;
        };
        let HookEvent::PermissionRequest { tool_name, tool_input } = HookEvent::parse(&envelope.payload) else {
            reply.send(Ok(Reply::Permission(None))).ok();
            return;
        };
        self.hooks.next_permission += 1;
        let wait = self.config.permission_wait;
        let asked_at = now();
        let request = PermissionRequest {
            id: self.hooks.next_permission,
            session_id,
            tool_name,
            tool_input,
            asked_at,
            expires_at: asked_at + wait.as_millis() as i64,
        };
        self.sink.emit(EngineEvent::PermissionRequested { request: request.clone() });
        self.hooks.permissions.push(PendingPermission { request, deadline: tokio::time::Instant::now() + wait, reply });
    }

    pub(super) fn list_permission_requests(&self) -> Vec<PermissionRequest> {
        self.hooks.permissions.iter().map(|p| p.request.clone()).collect()
    }

    pub(super) fn decide_permission(&mut self, id: u64, decision: PermissionDecision) -> Result<(), EngineError> {
        let Some(index) = self.hooks.permissions.iter().position(|p| p.request.id == id) else {
            return Err(EngineError::InvalidInput {
                field: "request_id",
                reason: "no such permission request waits (it was answered, or the agent's own prompt took over)"
                    .into(),
            });
        };
        let pending = self.hooks.permissions.remove(index);
        pending.reply.send(Ok(Reply::Permission(Some(decision.clone())))).ok();
        self.sink.emit(EngineEvent::PermissionClosed { request_id: id, decision: Some(decision) });
        Ok(())
    }

    pub(super) fn next_permission_deadline(&self) -> Option<tokio::time::Instant> {
        self.hooks.permissions.iter().map(|p| p.deadline).min()
    }

    /// Requests nobody answered in time go back to the agent's own prompt.
    pub(super) fn expire_permissions(&mut self) {
        let now = tokio::time::Instant::now();
        let (expired, waiting): (Vec<_>, Vec<_>) =
            std::mem::take(&mut self.hooks.permissions).into_iter().partition(|p| p.deadline <= now);
        self.hooks.permissions = waiting;
        for pending in expired {
            pending.reply.send(Ok(Reply::Permission(None))).ok();
            self.sink.emit(EngineEvent::PermissionClosed { request_id: pending.request.id, decision: None });
        }
    }

    /// A session ended: its waiting hooks are let go.
    pub(super) fn close_permissions_of(&mut self, session_id: &SessionId) {
        let (closed, waiting): (Vec<_>, Vec<_>) =
            std::mem::take(&mut self.hooks.permissions).into_iter().partition(|p| &p.request.session_id == session_id);
        self.hooks.permissions = waiting;
        for pending in closed {
            pending.reply.send(Ok(Reply::Permission(None))).ok();
            self.sink.emit(EngineEvent::PermissionClosed { request_id: pending.request.id, decision: None });
        }
    }

    /// Corrects statuses gone stale (see `reconcile`); run now and then.
    pub(super) fn reconcile_status(&mut self) {
        let idle = self.config.working_idle.as_millis() as i64;
        let now = now();
        let stale: Vec<AgentStatusInfo> = self
            .hooks
            .status
            .values()
            // A lead waiting on its team is working, however quiet.
            .filter(|info| !self.team_active(&info.session_id))
            .filter_map(|info| {
                let quiet = now - info.last_event_at.unwrap_or(now);
                reconcile(info.status, quiet, idle).map(|status| AgentStatusInfo { status, ..info.clone() })
            })
            .collect();
        for status in stale {
            let session_id = status.session_id.clone();
            let now_status = status.status;
            self.hooks.status.insert(session_id.clone(), status);
            self.publish_status(&session_id);
            self.tell_busy(&session_id, now_status);
        }
    }

    /// Whether the session leads a team with teammates still at work.
    pub(super) fn team_active(&self, session_id: &SessionId) -> bool {
        self.hooks.teams.get(session_id).is_some_and(TeamState::is_active)
    }

    /// A teammate the app started for `lead` (an approved delegation)
    /// counts from now.
    pub(super) fn team_spawned(&mut self, lead: &SessionId, teammate: &SessionId) {
        let team_name = format!("session-{}", &lead.to_string()[..8]);
        self.hooks
            .teams
            .entry(lead.clone())
            .or_default()
            .apply(TeamEvent::DelegateStarted { teammate: teammate.to_string(), team_name });
    }

    /// A teammate finished (reported completion or ended): if it was the
    /// last, its lead's held task may complete.
    pub(super) fn teammate_gone(&mut self, teammate: &SessionId) {
        let leads: Vec<SessionId> = self
            .hooks
            .teams
            .iter()
            .filter(|(_, team)| team.has(&teammate.to_string()))
            .map(|(lead, _)| lead.clone())
            .collect();
        for lead in leads {
            let team = self.hooks.teams.get_mut(&lead).expect("listed above");
            team.apply(TeamEvent::Gone { teammate: teammate.to_string() });
            if !team.is_active() {
                self.publish_status(&lead);
                self.team_settled(&lead);
            }
        }
    }

    pub(super) fn list_agent_status(&self) -> Vec<AgentStatusInfo> {
        self.hooks.status.keys().filter_map(|session_id| self.shown_status(session_id)).collect()
    }

    /// The status shown for a session whose hooks have reported.
    fn shown_status(&self, session_id: &SessionId) -> Option<AgentStatusInfo> {
        let from_hooks = self.hooks.status.get(session_id)?;
        let shown = shown_status(Shown {
            from_hooks: from_hooks.status,
            team_working: self.team_active(session_id),
            needs_user: self.hooks.needs_user.get(session_id).is_some_and(|signals| !signals.is_empty()),
            task_done: self.hooks.done.contains(session_id),
        });
        Some(AgentStatusInfo { status: shown, ..from_hooks.clone() })
    }

    /// Tells the session whether its agent may be typed into, as far as
    /// its hooks know: not while it works or asks the user something.
    fn tell_busy(&self, session_id: &SessionId, status: AgentStatus) {
        if let Some(session) = self.sessions.get(session_id) {
            session.send(Control::AgentBusy(matches!(status, AgentStatus::Working | AgentStatus::Attention)));
        }
    }

    /// Tells the window and the tray a session's status.
    pub(super) fn publish_status(&self, session_id: &SessionId) {
        if let Some(status) = self.shown_status(session_id) {
            self.sink.emit(EngineEvent::AgentStatusChanged { status });
        }
    }

    /// A signal of the session waits for the user, or no longer does.
    pub(super) fn signal_needs_user(&mut self, session_id: &SessionId, signal: &SignalId, waits: bool) {
        let signals = self.hooks.needs_user.entry(session_id.clone()).or_default();
        let changed = if waits { signals.insert(signal.clone()) } else { signals.remove(signal) };
        if changed {
            self.publish_status(session_id);
        }
    }

    /// The session's task completed.
    pub(super) fn session_task_done(&mut self, session_id: &SessionId) {
        if self.hooks.done.insert(session_id.clone()) {
            self.publish_status(session_id);
        }
    }

    /// A session ended: an agent whose hooks reported is now Exited.
    pub(super) fn hook_session_ended(&mut self, session_id: &SessionId) {
        self.hooks.needs_user.remove(session_id);
        self.hooks.done.remove(session_id);
        self.hooks.conversations.remove(session_id);
        if let Some(last) = self.hooks.status.remove(session_id) {
            let status = AgentStatusInfo { status: AgentStatus::Exited, ..last };
            self.sink.emit(EngineEvent::AgentStatusChanged { status });
        }
    }

    /// Replays the events hooks spooled while no app ran, then empties the
    /// spool. A line that cannot be used is logged and dropped.
    pub(super) fn replay_spool(&mut self) {
        let path = self.config.data_dir.join(SPOOL_FILE);
        let Ok(file) = std::fs::File::open(&path) else { return };
        let mut replayed = 0;
        for (number, line) in BufReader::new(file).lines().enumerate() {
            let Ok(line) = line else { break };
            match serde_json::from_str::<SocketRequest>(&line) {
                Ok(SocketRequest::Hook { envelope }) => match self.on_hook(envelope) {
                    Ok(()) => replayed += 1,
                    Err(error) => tracing::warn!(line = number + 1, %error, "a spooled hook event was dropped"),
                },
                Ok(_) | Err(_) => tracing::warn!(line = number + 1, "a spooled line is not a hook event"),
            }
        }
        if let Err(error) = std::fs::remove_file(&path) {
            tracing::error!(path = %path.display(), %error, "emptying the hook spool failed");
        }
        tracing::info!(replayed, "replayed spooled hook events");
    }

    fn known_session(&self, id: &SessionId) -> bool {
        self.running.contains_key(id) || matches!(self.store.get_session(id), Ok(Some(_)))
    }
}

/// What a hook event means for the sending session's team: Claude Code's
/// Agent tool spawning a named or background teammate counts from the
/// request; an idle teammate is done; a Stop's `background_tasks` is the
/// truth about who still runs.
fn team_event(event: &HookEvent, envelope: &HookEnvelope) -> Option<TeamEvent> {
    match event {
        HookEvent::PreToolUse { tool_name, tool_use_id, tool_input } if tool_name == "Agent" || tool_name == "Task" => {
            let name = tool_input.get("name").and_then(|n| n.as_str());
            let background = tool_input.get("run_in_background").and_then(|b| b.as_bool()).unwrap_or(false);
            if name.is_none() && !background {
                return None;
            }
            let teammate = name.map(str::to_owned).or_else(|| tool_use_id.clone())?;
            let lead = envelope
                .payload
                .get("session_id")
                .and_then(|s| s.as_str())
                .or(envelope.session_id.as_deref())
                .unwrap_or_default();
            let team_name = format!("session-{}", lead.get(..8).unwrap_or(lead));
            Some(TeamEvent::SpawnRequested { teammate, team_name })
        }
        HookEvent::TeammateIdle { teammate_name: Some(name), .. } => Some(TeamEvent::Gone { teammate: name.clone() }),
        HookEvent::Stop { background_tasks: Some(tasks), .. } => Some(TeamEvent::Running {
            teammates: tasks
                .iter()
                // Teammates and background subagents; not background shells.
                .filter(|t| matches!(t.kind.as_str(), "teammate" | "subagent"))
                .filter(|t| matches!(t.status.as_str(), "running" | "pending"))
                .map(|t| t.id.clone())
                .collect(),
        }),
        _ => None,
    }
}

/// Where hooks spool events for the app on `data_dir`.
pub fn spool_path(data_dir: &Path) -> std::path::PathBuf {
    data_dir.join(SPOOL_FILE)
}
