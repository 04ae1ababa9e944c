//! Each agent's attention ([`Attention`]): the facts gathered from the
//! session registry, the store and the permission requests waiting, decided by
//! the pure [`crate::attention::attention`], and reported when it changes
//! (`attention_changed`).
//!
//! "Since you last looked": a failure counts as seen once the window showed
//! its agent (the agent, one of its sessions or tasks) with the focus, or the
//! failure happened while it did. This is kept in memory: it is the window's
//! view, not the user's data, and no table holds it; at the engine's start
//! every earlier failure counts as seen (the last run's window showed them
//! in the tray and the sidebar while it ran).

use std::collections::BTreeMap;

use switchboard_protocol::ProfileId;
use tokio::time::{Duration, Instant};

use super::context::Ctx;
use super::flows::{Plain, last_session, plain};
use crate::attention::{FAILURES, Facts, Wait, attention};
use crate::error::EngineError;
use switchboard_api::{
    AgentAttention, Attention, EngineEvent, LoopState, Millis, PermissionRequest, SessionState, SignalState, TaskInfo,
    Viewing,
};

/// The most failures not seen yet an agent's attention reads (it counts up
/// to this many).
const FAILURES_LOOKED_AT: usize = 100;

/// Attention is worked out again at most this often while events come (a
/// hundred hook events a second would otherwise mean as many rounds of
/// queries); what changed meanwhile is reported once this has passed.
const MIN_INTERVAL: Duration = Duration::from_millis(200);

pub(crate) struct AttentionBoard {
    /// Each agent's attention as last reported.
    shown: BTreeMap<ProfileId, Attention>,
    viewing: Viewing,
    /// Per agent, failures that ended at or before this are seen.
    seen: BTreeMap<ProfileId, Millis>,
    /// Failures before the engine started count as seen.
    started: Millis,
    last_round: Option<Instant>,
}

impl AttentionBoard {
    pub fn new(started: Millis) -> Self {
        AttentionBoard {
            shown: BTreeMap::new(),
            viewing: Viewing::default(),
            seen: BTreeMap::new(),
            started,
            last_round: None,
        }
    }

    /// What the window shows now; the agent on screen in a focused window
    /// has its failures seen.
    pub fn set_viewing(&mut self, viewing: Viewing, now: Millis) {
        self.viewing = viewing;
        self.mark_seen(now);
    }

    fn mark_seen(&mut self, now: Millis) {
        if let (true, Some(profile)) = (self.viewing.focused, self.viewing.profile_id.as_ref()) {
            self.seen.insert(profile.clone(), now);
        }
    }

    /// Every agent's attention now; reports those that changed.
    pub fn refresh(
        &mut self,
        cx: &Ctx,
        permissions: &[PermissionRequest],
        now: Millis,
    ) -> Result<Vec<AgentAttention>, EngineError> {
        self.mark_seen(now);
        self.last_round = Some(Instant::now());
        let all = gather(cx, permissions, |profile| self.seen.get(profile).copied().unwrap_or(self.started))?;
        self.shown.retain(|profile, _| all.iter().any(|a| &a.profile_id == profile));
        for agent in &all {
            if self.shown.get(&agent.profile_id) != Some(&agent.attention) {
                self.shown.insert(agent.profile_id.clone(), agent.attention.clone());
                cx.emit(EngineEvent::AttentionChanged {
                    profile_id: agent.profile_id.clone(),
                    attention: agent.attention.clone(),
                });
            }
        }
        Ok(all)
    }

    /// Whether a round is due now after a change (see [`MIN_INTERVAL`]).
    pub fn due(&self, now: Instant) -> bool {
        self.last_round.is_none_or(|last| now.duration_since(last) >= MIN_INTERVAL)
    }

    /// When the next round may be, after a change.
    pub fn next_round(&self) -> Instant {
        self.last_round.map_or_else(Instant::now, |last| last + MIN_INTERVAL)
    }

    pub fn shown(&self) -> &BTreeMap<ProfileId, Attention> {
        &self.shown
    }
}

/// How an agent's last session ended, as its attention says it.
fn ending_of(state: &SessionState) -> switchboard_api::Ending {
    match state {
        SessionState::Exited { exit_code, signal, .. } => {
            switchboard_api::Ending::Exited { code: *exit_code, signal: signal.clone() }
        }
        SessionState::Interrupted { .. } => switchboard_api::Ending::Interrupted,
        SessionState::Killed { .. } | SessionState::Running { .. } => switchboard_api::Ending::Stopped,
    }
}

/// The usage limit an agent's account is at, unless the agent was let go on.
fn limit_fact(cx: &Ctx, id: &ProfileId) -> Option<crate::attention::LimitFact> {
    (!cx.limits.is_empty())
        .then(|| cx.account_of(id))
        .flatten()
        .and_then(|account| cx.limits.get(&account))
        .filter(|limit| !limit.released.contains(id))
        .map(|limit| crate::attention::LimitFact {
            account: limit.record.account.clone(),
            since: limit.record.since,
            until: limit.record.until,
            retry_at: limit.record.retry_at,
            passed: limit.record.passed,
            asks_user: limit.record.asks_user,
        })
}

/// Every agent's attention, from what the engine knows; `seen_until`: per
/// agent, up to when its failures are seen.
fn gather(
    cx: &Ctx,
    permissions: &[PermissionRequest],
    seen_until: impl Fn(&ProfileId) -> Millis,
) -> Result<Vec<AgentAttention>, EngineError> {
    let signals = cx.store.list_signals(0)?;
    let at_work: Vec<TaskInfo> =
        cx.store.active_tasks(None)?.into_iter().filter(|t| t.session_id().is_some()).collect();
    let loops = cx.store.list_loops(0)?;
    let mut all = Vec::new();
    for profile in cx.store.list_profiles()? {
        let id = &profile.id;
        let task = at_work.iter().find(|t| &t.spec.profile_id == id);
        let Plain { session, since, .. } = plain(cx, id, task)?;
        let mut waits: Vec<Wait> = signals
            .iter()
            .filter(|s| &s.profile_id == id && s.state() == SignalState::Pending)
            .map(Wait::of_signal)
            .collect();
        waits.extend(
            permissions
                .iter()
                .filter(|p| cx.sessions.get(&p.session_id).is_some_and(|e| &e.info.profile_id == id))
                .map(|p| Wait {
                    need: switchboard_api::Need::Permission { tool: p.tool_name.clone() },
                    since: p.asked_at,
                    task_id: task.map(|t| t.id.clone()),
                    signal_id: None,
                }),
        );
        // Newest first.
        let unseen_failures = cx.store.ended_since(id, &FAILURES, seen_until(id), FAILURES_LOOKED_AT)?;
        let last = if session.is_none() { last_session(cx, id) } else { None };
        let ended = last.map(|entry| ending_of(&entry.info.state));
        let failed_in_last_session = match last {
            Some(entry) => cx.store.count_ended_in(&entry.info.id, &FAILURES)?,
            None => 0,
        };
        let stalled_loop = loops.iter().find(|l| &l.profile_id == id).and_then(|l| match &l.state {
            LoopState::Stalled { at, reason, .. } => Some((l.id.clone(), l.settings.goal.clone(), *at, reason.clone())),
            // Stopped until the user brings its folder back: stalled, and says why.
            LoopState::WorkspaceGone { at, .. } => {
                Some((l.id.clone(), l.settings.goal.clone(), *at, l.state.reason().unwrap_or_default()))
            }
            _ => None,
        });
        // The tasks the user's waits came from, by name.
        let mut titles = Vec::new();
        for task in waits.iter().filter_map(|wait| wait.task_id.as_ref()) {
            let known = match at_work.iter().find(|t| &t.id == task) {
                Some(known) => Some(known.clone()),
                None => cx.store.get_task(task)?,
            };
            if let Some(known) = known {
                titles.push((known.id.clone(), known.spec.title()));
            }
        }
        let facts = Facts {
            running: session.map(|e| e.info.started_at),
            hooks: session.and_then(|entry| {
                let status = super::status::shown(entry)?.status;
                Some((status, super::status::shown_since(entry).unwrap_or(entry.info.started_at)))
            }),
            waits,
            task,
            since,
            stalled_loop,
            unseen_failures: unseen_failures.iter().collect(),
            ended,
            failed_in_last_session,
            titles,
            limit: limit_fact(cx, id),
            account_problem: task.and_then(|task| match cx.task_waits.get(&task.id) {
                Some(switchboard_api::WaitingFor::Account { why }) => {
                    Some((why.clone(), task.started_at().unwrap_or_default()))
                }
                _ => None,
            }),
        };
        all.push(AgentAttention { profile_id: id.clone(), attention: attention(&facts) });
    }
    Ok(all)
}
