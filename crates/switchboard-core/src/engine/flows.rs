//! The live flows read side: a target's events from the store folded by the
//! pure [`crate::flows::fold`], its event log, and the overview of all
//! agents from the session registry (status, team) and the store (tasks,
//! queues, loops, delegations).

use std::collections::BTreeMap;
use std::path::Path;

use switchboard_protocol::ProfileId;
use switchboard_protocol::hook::{AgentStatus, Shown, shown_status};

use super::context::Ctx;
use super::sessions::SessionEntry;
use super::status;
use crate::config::EXPORTS_DIR;
use crate::error::EngineError;
use crate::flows::diagrams::silence;
use crate::flows::{MAX_FOLDED_EVENTS, fold};
use crate::workspace::Workspace;
use switchboard_api::{
    Attention, FlowEvents, FlowTarget, FlowView, LinkKind, Millis, Overview, OverviewAgent, OverviewHelper,
    OverviewLink, QueueStatus, TaskInfo,
};

/// The most events an event panel asks for at once.
pub const MAX_LISTED_EVENTS: u32 = 5_000;

/// The target's diagrams as its events up to `until_seq` (all: none) light
/// them.
pub(crate) fn view(cx: &Ctx, target: FlowTarget, until_seq: Option<i64>) -> Result<FlowView, EngineError> {
    let agent = check_target(cx, &target)?;
    let (entries, _) = cx.store.target_events(&target, until_seq, None, MAX_FOLDED_EVENTS)?;
    let last = entries.last();
    let mut diagrams = fold(&entries);
    // What can never light for this agent says why (a deleted agent's: nothing is said).
    if let Some(profile) = agent.map(|id| cx.store.get_profile(&id)).transpose()?.flatten() {
        for state in &mut diagrams {
            state.silent = silence(state.diagram, profile.spec.kind, profile.spec.signal_protocols);
        }
    }
    Ok(FlowView {
        until_seq: last.map(|e| e.seq),
        until_at: last.map(|e| e.at),
        events: entries.len() as u32,
        diagrams,
        target,
    })
}

/// The target's event log from `since_at`, the most recent `limit`.
pub(crate) fn events(
    cx: &Ctx,
    target: FlowTarget,
    since_at: Option<Millis>,
    limit: u32,
) -> Result<FlowEvents, EngineError> {
    check_target(cx, &target)?;
    if limit == 0 || limit > MAX_LISTED_EVENTS {
        return Err(EngineError::InvalidInput {
            field: "limit",
            reason: format!("between 1 and {MAX_LISTED_EVENTS} events"),
        });
    }
    let (entries, omitted) = cx.store.target_events(&target, None, since_at, limit as usize)?;
    Ok(FlowEvents { entries, omitted })
}

/// Writes the target's events (the most recent [`MAX_FOLDED_EVENTS`]) as
/// JSON lines into `exports/` of the data folder; answers the path.
pub(crate) fn export(cx: &Ctx, data_dir: &Path, target: FlowTarget) -> Result<String, EngineError> {
    check_target(cx, &target)?;
    let (entries, _) = cx.store.target_events(&target, None, None, MAX_FOLDED_EVENTS)?;
    let mut text = String::new();
    for entry in &entries {
        text.push_str(&serde_json::to_string(entry).map_err(|e| EngineError::Internal(e.to_string()))?);
        text.push('\n');
    }
    let name = match &target {
        FlowTarget::Agent { profile_id } => {
            let profile = cx.profile(profile_id)?;
            format!("agent-{}", file_safe(&profile.spec.name))
        }
        FlowTarget::Session { session_id } => format!("session-{session_id}"),
        FlowTarget::Task { task_id } => format!("task-{task_id}"),
        FlowTarget::Loop { loop_id } => format!("loop-{loop_id}"),
    };
    let failed = |e| EngineError::io("exporting the event log".to_owned(), e);
    // The data folder's `exports/` is made in place and reached through no
    // link, like every file an agent could put something in the way of.
    let folder = Workspace::open_private(data_dir).map_err(failed)?;
    folder.create_folder(EXPORTS_DIR).map_err(failed)?;
    let at = switchboard_api::now();
    let file = (0..)
        .map(|n| if n == 0 { format!("{name}-events-{at}.jsonl") } else { format!("{name}-events-{at}-{n}.jsonl") })
        .find(|file| !folder.exists(&format!("{EXPORTS_DIR}/{file}")))
        .expect("some name is free");
    folder.write(&format!("{EXPORTS_DIR}/{file}"), text.as_bytes()).map_err(failed)?;
    forget_old_exports(&folder, data_dir);
    let path = data_dir.join(EXPORTS_DIR).join(file);
    Ok(path.display().to_string())
}

/// Exports kept: each is up to a few megabytes, and only the latest ones
/// are of use (the event log itself keeps everything).
pub const KEPT_EXPORTS: usize = 20;

/// Removes all but the newest [`KEPT_EXPORTS`] exports (their names sort by
/// the time they were made within one target; the oldest by time go).
fn forget_old_exports(folder: &Workspace, data_dir: &Path) {
    let Ok(entries) = std::fs::read_dir(data_dir.join(EXPORTS_DIR)) else { return };
    let mut exports: Vec<(std::time::SystemTime, String)> = entries
        .flatten()
        .filter(|entry| entry.file_type().is_ok_and(|kind| kind.is_file()))
        .filter_map(|entry| Some((entry.metadata().ok()?.modified().ok()?, entry.file_name().into_string().ok()?)))
        .filter(|(_, name)| name.contains("-events-") && name.ends_with(".jsonl"))
        .collect();
    exports.sort();
    let surplus = exports.len().saturating_sub(KEPT_EXPORTS);
    for (_, name) in exports.into_iter().take(surplus) {
        if let Err(error) = folder.remove(&format!("{EXPORTS_DIR}/{name}")) {
            tracing::warn!(%error, name, "an old export could not be removed");
        }
    }
}

/// A name as a file name: letters, digits, `-` and `_` kept, the rest `_`.
fn file_safe(name: &str) -> String {
    name.chars().map(|c| if c.is_alphanumeric() || c == '-' || c == '_' { c } else { '_' }).take(60).collect()
}

/// A target that names nothing is an error in words, not an empty view.
/// Refuses a target that does not exist; answers the agent it belongs to.
fn check_target(cx: &Ctx, target: &FlowTarget) -> Result<Option<ProfileId>, EngineError> {
    let (agent, field, what) = match target {
        FlowTarget::Agent { profile_id } => {
            (cx.store.get_profile(profile_id)?.map(|p| Some(p.id)), "profile_id", "agent")
        }
        FlowTarget::Session { session_id } => (
            match cx.sessions.get(session_id) {
                Some(entry) => Some(Some(entry.info.profile_id.clone())),
                None => cx.store.get_session(session_id)?.map(|s| Some(s.profile_id)),
            },
            "session_id",
            "session",
        ),
        FlowTarget::Task { task_id } => {
            (cx.store.get_task(task_id)?.map(|t| Some(t.spec.profile_id)), "task_id", "task")
        }
        FlowTarget::Loop { loop_id } => (cx.store.get_loop(loop_id)?.map(|l| Some(l.profile_id)), "loop_id", "loop"),
    };
    agent.ok_or_else(|| EngineError::InvalidInput { field, reason: format!("there is no such {what}") })
}

/// All agents and who works for whom. `queues`: each agent's queue, as the
/// task desk reports it.
/// `attention`: each agent's, as the engine computed it.
pub(crate) fn overview(
    cx: &Ctx,
    queues: Vec<QueueStatus>,
    attention: &BTreeMap<ProfileId, Attention>,
) -> Result<Overview, EngineError> {
    let queues: BTreeMap<ProfileId, QueueStatus> = queues.into_iter().map(|q| (q.profile_id.clone(), q)).collect();
    let at_work: BTreeMap<ProfileId, TaskInfo> = cx
        .store
        .active_tasks(None)?
        .into_iter()
        .filter(|task| task.session_id().is_some())
        .map(|task| (task.spec.profile_id.clone(), task))
        .collect();
    let mut overview = Overview { agents: Vec::new(), helpers: Vec::new(), links: Vec::new() };
    for profile in cx.store.list_profiles()? {
        let task = at_work.get(&profile.id);
        let Plain { session, status, since } = plain(cx, &profile.id, task)?;
        if let Some(entry) = session {
            for teammate in &entry.team.teammates {
                let id = format!("{}:{teammate}", entry.info.id);
                overview.links.push(OverviewLink {
                    from: profile.id.to_string(),
                    to: id.clone(),
                    kind: LinkKind::Spawned,
                });
                overview.helpers.push(OverviewHelper { id, lead: profile.id.clone(), name: teammate.clone() });
            }
        }
        overview.agents.push(OverviewAgent {
            profile_id: profile.id.clone(),
            name: profile.spec.name.clone(),
            session_id: session.map(|e| e.info.id.clone()),
            status,
            since,
            running: session.is_some(),
            task_id: task.map(|t| t.id.clone()),
            doing: task.map(|t| t.spec.title()),
            loop_iteration: task.and_then(|t| t.spec.loop_iteration.as_ref().map(|i| i.number)),
            queued: queues.get(&profile.id).map_or(0, |q| q.queued),
            needs_user: session.map_or(0, |e| e.hooks.needs_user.len() as u32),
            attention: attention.get(&profile.id).cloned().unwrap_or(Attention::Idle { since }),
        });
    }
    for delegation in cx.store.list_delegations(0)?.into_iter().filter(|d| d.is_working() || d.keep) {
        let link = OverviewLink {
            from: delegation.requester_profile.to_string(),
            to: delegation.delegate_profile.to_string(),
            kind: LinkKind::Delegated,
        };
        if !overview.links.contains(&link) {
            overview.links.push(link);
        }
    }
    Ok(overview)
}

/// An agent's plain state: its newest running session, which speaks for it,
/// the status shown for it, and since when it has been in it.
pub(crate) struct Plain<'a> {
    pub session: Option<&'a SessionEntry>,
    pub status: Option<AgentStatus>,
    pub since: Option<Millis>,
}

/// The agent's plain state; `task`: its task at work.
pub(crate) fn plain<'a>(cx: &'a Ctx, profile: &ProfileId, task: Option<&TaskInfo>) -> Result<Plain<'a>, EngineError> {
    let session = cx.sessions.running().filter(|e| &e.info.profile_id == profile).last();
    let status = session.map(|entry| match status::shown(entry) {
        Some(info) => info.status,
        None => shown_status(Shown {
            from_hooks: if task.is_some() { AgentStatus::Working } else { AgentStatus::Waiting },
            team_working: entry.team.is_active(),
            needs_user: !entry.hooks.needs_user.is_empty(),
            task_done: false,
        }),
    });
    let since = since(Since {
        status,
        running: session.map(|e| e.info.started_at),
        shown_since: session.and_then(status::shown_since),
        task_began: task.and_then(|t| t.typed_at().or(t.started_at())),
        task_waiting: task.and_then(TaskInfo::waiting_since),
        last_task_ended: match session {
            Some(_) if task.is_none() => {
                cx.store.finished_tasks(Some(profile), 1)?.first().and_then(TaskInfo::ended_at)
            }
            _ => None,
        },
        last_session_ended: last_session(cx, profile).and_then(|e| ended_at(&e.info.state)),
    });
    Ok(Plain { session, status, since })
}

/// The agent's session that ended last, of those the registry keeps.
pub(crate) fn last_session<'a>(cx: &'a Ctx, profile: &ProfileId) -> Option<&'a SessionEntry> {
    cx.sessions
        .entries()
        .filter(|e| &e.info.profile_id == profile)
        .filter(|e| ended_at(&e.info.state).is_some())
        .max_by_key(|e| ended_at(&e.info.state))
}

/// What tells since when an agent shows what it shows.
#[derive(Debug, Clone, Copy, Default)]
struct Since {
    status: Option<AgentStatus>,
    /// Its running session's start; none when it does not run.
    running: Option<Millis>,
    /// Since when its hooks have shown this status, where they report.
    shown_since: Option<Millis>,
    /// When its task at work was typed in (or taken, not typed yet).
    task_began: Option<Millis>,
    /// Since when its task at work has waited for the user.
    task_waiting: Option<Millis>,
    /// When its last task ended, while it has none at work.
    last_task_ended: Option<Millis>,
    /// When its last session ended.
    last_session_ended: Option<Millis>,
}

/// Since when the agent has been in the state the overview shows: a wait for
/// the user from when it began, work from its task's start, an idle agent
/// from its last task's end or its session's start, a stopped one from its
/// last session's end. Hooks that report know best, except of a task's wait.
fn since(facts: Since) -> Option<Millis> {
    let Some(started) = facts.running else { return facts.last_session_ended };
    let from_app = match facts.status {
        Some(AgentStatus::Attention) => facts.task_waiting,
        _ if facts.task_began.is_some() => facts.task_began,
        _ => Some(facts.last_task_ended.map_or(started, |ended| ended.max(started))),
    };
    match (facts.status, facts.task_waiting) {
        (Some(AgentStatus::Attention), Some(waiting)) => Some(waiting),
        _ => facts.shown_since.or(from_app),
    }
}

fn ended_at(state: &switchboard_api::SessionState) -> Option<Millis> {
    use switchboard_api::SessionState::*;
    match state {
        Running { .. } => None,
        Exited { ended_at, .. } | Killed { ended_at, .. } | Interrupted { ended_at } => Some(*ended_at),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_agent_is_in_its_state_since_the_moment_that_state_began() {
        use AgentStatus::*;
        let running = |status| Since { status: Some(status), running: Some(100), ..Since::default() };
        let cases: &[(&str, Since, Option<Millis>)] = &[
            ("never started", Since::default(), None),
            (
                "stopped: since its last session ended",
                Since { last_session_ended: Some(900), ..Since::default() },
                Some(900),
            ),
            ("idle, no task yet: since its session started", running(Waiting), Some(100)),
            (
                "idle after a task: since that task ended",
                Since { last_task_ended: Some(400), ..running(Waiting) },
                Some(400),
            ),
            (
                "a task of an earlier session ended before this one started",
                Since { last_task_ended: Some(50), ..running(Waiting) },
                Some(100),
            ),
            ("at a task: since it was typed in", Since { task_began: Some(300), ..running(Working) }, Some(300)),
            (
                "hooks know when the status changed",
                Since { task_began: Some(300), shown_since: Some(350), ..running(Working) },
                Some(350),
            ),
            (
                "waiting for the user: since the wait began, whatever the hooks say",
                Since { task_began: Some(300), task_waiting: Some(500), shown_since: Some(450), ..running(Attention) },
                Some(500),
            ),
            (
                "asking through its hooks only: since they said so",
                Since { task_began: Some(300), shown_since: Some(450), ..running(Attention) },
                Some(450),
            ),
        ];
        for (case, facts, expected) in cases {
            assert_eq!(since(*facts), *expected, "{case}");
        }
    }
}
