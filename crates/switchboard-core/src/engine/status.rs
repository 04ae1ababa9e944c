//! Each session's agent status and team, kept in its registry entry: what
//! its hooks report, with what the app knows added (a signal waiting for
//! the user, a completed task, teammates at work), and the publishing of it.
//! The decisions are the pure `next_status`, `shown_status` and `reconcile`
//! of the protocol crate; this module applies them.

use switchboard_protocol::hook::{AgentStatus, Shown, reconcile, shown_status};
use switchboard_protocol::team::TeamEvent;
use switchboard_protocol::{SessionId, SignalId};

use super::context::{Ctx, Follow};
use super::sessions::{SessionEntry, Sessions};
use crate::session::Control;
use switchboard_api::{AgentStatusInfo, EngineEvent, Millis, TeamInfo, now};

/// The status shown for a session whose hooks have reported.
pub(crate) fn shown(entry: &SessionEntry) -> Option<AgentStatusInfo> {
    let from_hooks = entry.hooks.status.as_ref()?;
    let status = shown_status(Shown {
        from_hooks: from_hooks.status,
        team_working: entry.team.is_active(),
        needs_user: !entry.hooks.needs_user.is_empty(),
        task_done: entry.hooks.task_done,
    });
    let identity = |name: &str| entry.hooks.identity.get(name).cloned();
    let team = entry.team.team_name.as_ref().map(|name| TeamInfo {
        name: identity("CLAUDE_CODE_TEAM_NAME").unwrap_or_else(|| name.clone()),
        active: entry.team.active_count() as u32,
    });
    Some(AgentStatusInfo {
        status,
        team,
        agent_name: identity("CLAUDE_CODE_AGENT_NAME"),
        agent_type: identity("CLAUDE_CODE_AGENT_TYPE"),
        ..from_hooks.clone()
    })
}

/// Every session's shown status.
pub(crate) fn list(sessions: &Sessions) -> Vec<AgentStatusInfo> {
    sessions.entries().filter_map(shown).collect()
}

/// Tells the window and the tray a session's status, noting when it
/// changed.
pub(crate) fn publish(cx: &mut Ctx, id: &SessionId) {
    let Some(entry) = cx.sessions.get_mut(id) else { return };
    let Some(status) = shown(entry) else { return };
    if entry.hooks.shown_since.is_none_or(|(was, _)| was != status.status) {
        entry.hooks.shown_since = Some((status.status, now()));
    }
    cx.emit(EngineEvent::AgentStatusChanged { status });
}

/// Since when the session's hooks have shown the status they show now.
pub(crate) fn shown_since(entry: &SessionEntry) -> Option<Millis> {
    let now = shown(entry)?.status;
    entry.hooks.shown_since.filter(|(status, _)| *status == now).map(|(_, at)| at)
}

/// Whether the session leads a team with teammates still at work.
pub(crate) fn team_active(sessions: &Sessions, id: &SessionId) -> bool {
    sessions.get(id).is_some_and(|entry| entry.team.is_active())
}

/// Records what the session's hooks now say, and tells the session whether
/// its agent may be typed into: not while it works or asks the user.
pub(crate) fn set_from_hooks(cx: &mut Ctx, id: &SessionId, status: AgentStatus, at: Millis, begins: bool) {
    let Some(entry) = cx.sessions.get_mut(id) else { return };
    if begins {
        // Something new begins: a completed task is no longer the news.
        entry.hooks.task_done = false;
    }
    entry.hooks.status = Some(AgentStatusInfo {
        session_id: id.clone(),
        status,
        last_event_at: Some(at),
        team: None,
        agent_name: None,
        agent_type: None,
    });
    publish(cx, id);
    tell_busy(cx, id, status);
}

fn tell_busy(cx: &Ctx, id: &SessionId, status: AgentStatus) {
    cx.sessions.send(id, Control::AgentBusy(matches!(status, AgentStatus::Working | AgentStatus::Attention)));
}

/// A signal of the session waits for the user, or no longer does.
pub(crate) fn set_needs_user(cx: &mut Ctx, id: &SessionId, signal: &SignalId, waits: bool) {
    let Some(entry) = cx.sessions.get_mut(id) else { return };
    let signals = &mut entry.hooks.needs_user;
    let changed = if waits { signals.insert(signal.clone()) } else { signals.remove(signal) };
    if changed {
        publish(cx, id);
    }
}

/// The session's task completed.
pub(crate) fn task_done(cx: &mut Ctx, id: &SessionId) {
    let Some(entry) = cx.sessions.get_mut(id) else { return };
    if !entry.hooks.task_done {
        entry.hooks.task_done = true;
        publish(cx, id);
    }
}

/// A teammate the app started for `lead` (an approved delegation) counts
/// from now.
pub(crate) fn team_spawned(cx: &mut Ctx, lead: &SessionId, teammate: &SessionId) {
    let team_name = format!("session-{}", &lead.to_string()[..8]);
    if let Some(entry) = cx.sessions.get_mut(lead) {
        entry.team.apply(TeamEvent::DelegateStarted { teammate: teammate.to_string(), team_name });
    }
}

/// A teammate finished (reported completion or ended): each lead whose
/// team it was the last of may complete its held task.
pub(crate) fn teammate_gone(cx: &mut Ctx, teammate: &SessionId) {
    let name = teammate.to_string();
    let mut settled = Vec::new();
    for entry in cx.sessions.entries_mut().filter(|entry| entry.team.has(&name)) {
        entry.team.apply(TeamEvent::Gone { teammate: name.clone() });
        if !entry.team.is_active() {
            settled.push(entry.info.id.clone());
        }
    }
    for lead in settled {
        publish(cx, &lead);
        cx.follow(Follow::TeamSettled { lead });
    }
}

/// Corrects statuses gone stale (see `reconcile`); run now and then.
pub(crate) fn reconcile_all(cx: &mut Ctx, idle: Millis, now: Millis) {
    let stale: Vec<(SessionId, AgentStatus)> = cx
        .sessions
        .entries()
        // A lead waiting on its team is working, however quiet.
        .filter(|entry| !entry.team.is_active())
        .filter_map(|entry| {
            let info = entry.hooks.status.as_ref()?;
            let quiet = now - info.last_event_at.unwrap_or(now);
            reconcile(info.status, quiet, idle).map(|status| (info.session_id.clone(), status))
        })
        .collect();
    for (id, status) in stale {
        if let Some(info) = cx.sessions.get_mut(&id).and_then(|entry| entry.hooks.status.as_mut()) {
            info.status = status;
        }
        publish(cx, &id);
        tell_busy(cx, &id, status);
    }
}

/// The session's team starts over (a new task begins in it).
pub(crate) fn team_reset(cx: &mut Ctx, id: &SessionId) {
    let Some(entry) = cx.sessions.get_mut(id) else { return };
    if entry.team != Default::default() {
        entry.team.apply(TeamEvent::Reset);
        publish(cx, id);
    }
}

/// A session ended: what its hooks said is over, its team with it, and an
/// agent whose hooks reported is now shown Exited.
pub(crate) fn session_ended(cx: &mut Ctx, id: &SessionId) {
    let Some(entry) = cx.sessions.get_mut(id) else { return };
    entry.team.apply(TeamEvent::Reset);
    let last = std::mem::take(&mut entry.hooks).status;
    if let Some(last) = last {
        cx.emit(EngineEvent::AgentStatusChanged { status: AgentStatusInfo { status: AgentStatus::Exited, ..last } });
    }
}
