//! The signal desk: a signal read from an agent's terminal (plain CLI
//! agents) or from its own words delivered by a hook (TUIs) is recorded
//! once, shown to the user, and the user's decision becomes a prompt typed
//! into the agent (or into a fresh session of its profile when it has
//! exited), or a new delegated agent.

mod delegation;
mod deliver;
mod merge;
mod respond;
#[cfg(test)]
mod tests;
mod tools;

use std::path::{Path, PathBuf};
use std::time::Duration;

use switchboard_protocol::signal::{ScanEvent, SignalBody, scan_all};
use switchboard_protocol::{ProfileId, SessionId, TaskId};
use tokio::time::Instant;

use super::context::{Ctx, Follow, Report};
use super::status;
use crate::error::EngineError;
use crate::sink::LogAbout;
use crate::tasks::artifacts::{PathRefusal, resolve_deliverable};
pub(crate) use delegation::{keep as keep_delegate, list as list_delegations, recover as recover_delegations};
pub use respond::{SKIPPED_ITEMS_FILE, allowed_actions};
use switchboard_api::now;
use switchboard_api::{DeliverableCheck, EngineEvent, LogKind, SignalChannel, SignalInfo, SignalState};
pub(crate) use tools::{Taken, TaskNow, task_now};

/// Handled and dismissed signals returned by a listing, besides the pending.
pub const MAX_LISTED_HANDLED_SIGNALS: usize = 200;
/// The same signal seen again within this time (on another channel, or
/// re-read) is the same signal.
const DUPLICATE_WINDOW: Duration = Duration::from_secs(600);
/// Signals remembered per session for spotting duplicates.
const REMEMBERED_PER_SESSION: usize = 64;
/// Signals one session may have waiting for the user; past it they are set
/// aside (in its event log) with one notice, so a flooding agent cannot bury
/// the window in dialogs.
pub const MAX_PENDING_SIGNALS: usize = 20;

/// What becomes of a new signal, given how many its session has waiting
/// and whether the user was already told it floods.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Admit {
    Raise,
    SetAside { notify: bool },
}

pub(crate) fn admit(pending: usize, told: bool) -> Admit {
    if pending < MAX_PENDING_SIGNALS { Admit::Raise } else { Admit::SetAside { notify: !told } }
}

pub(crate) struct SignalDesk {
    /// The most agent sessions running at once that approving a delegation
    /// may reach.
    max_agents: usize,
    /// The app is quitting: sessions ending now are not delegates failing
    /// (their delegations are taken up after the restart).
    quitting: bool,
}

impl SignalDesk {
    pub fn new(max_agents: usize) -> Self {
        SignalDesk { max_agents, quitting: false }
    }

    pub fn quit(&mut self) {
        self.quitting = true;
    }

    /// Text an agent wrote, from its hooks; `task` is the task its agent
    /// works on.
    pub fn agent_text(
        &mut self,
        cx: &mut Ctx,
        session_id: SessionId,
        text: &str,
        task: Option<TaskId>,
    ) -> Result<(), EngineError> {
        if cx.sessions.known(&cx.store, &session_id).is_none() {
            return Err(EngineError::SessionNotFound(session_id));
        }
        for event in scan_all(text.as_bytes()) {
            self.on_signal(cx, session_id.clone(), SignalChannel::Hook, event, task.clone());
        }
        Ok(())
    }

    /// A block read from `session_id`'s output or hooks; `task` is the task
    /// its agent works on.
    pub fn on_signal(
        &mut self,
        cx: &mut Ctx,
        session_id: SessionId,
        channel: SignalChannel,
        event: ScanEvent,
        task_id: Option<TaskId>,
    ) -> Taken {
        let Some(entry) = cx.sessions.known(&cx.store, &session_id) else {
            tracing::warn!(session = %session_id, "a signal from an unknown session was ignored");
            return Taken::Unknown;
        };
        if !first_sighting(&mut entry.signals.seen, identity(&event), Instant::now()) {
            tracing::debug!(session = %session_id, ?channel, "a signal seen again was ignored");
            return Taken::SeenAgain;
        }
        let profile_id = entry.info.profile_id.clone();
        let (pending, oldest_pending) = cx.store.pending_signals_of(&session_id).unwrap_or_default();
        let admitted = admit(pending, entry.signals.flooding);
        entry.signals.flooding = admitted != Admit::Raise;
        let mut info =
            SignalInfo::pending(session_id.clone(), profile_id.clone(), task_id.clone(), channel, event, now());
        let completion = match &info.scan {
            ScanEvent::Signal { signal } => match &signal.body {
                SignalBody::Completion { status, deliverables, metrics_achieved, recommendations } => Some(Report {
                    status: status.clone(),
                    deliverables: deliverables.clone(),
                    metrics: metrics_achieved.clone(),
                    recommendations: recommendations.clone(),
                }),
                _ => None,
            },
            ScanEvent::Malformed { .. } => None,
        };
        if let Some(report) = &completion {
            let workspace = workspace_of(cx, &profile_id, &session_id);
            info.deliverables =
                report.deliverables.iter().map(|path| check_deliverable(workspace.as_deref(), path)).collect();
            info.success_criteria = task_id
                .as_ref()
                .and_then(|id| cx.store.get_task(id).ok().flatten())
                .and_then(|task| task.spec.success_criteria);
        }
        let (kind, malformed) = match &info.scan {
            ScanEvent::Signal { signal } => (signal.body.kind(), false),
            ScanEvent::Malformed { kind, .. } => (*kind, true),
        };
        let taken = match admitted {
            Admit::Raise => Taken::Raised(info.id.clone()),
            Admit::SetAside { .. } => Taken::SetAside,
        };
        match admitted {
            Admit::Raise => {
                save_signal(cx, &info);
                log_signal(
                    cx,
                    &info,
                    LogKind::SignalRaised { signal_id: info.id.clone(), signal_kind: kind, malformed },
                );
            }
            Admit::SetAside { notify } => {
                tracing::warn!(session = %session_id, ?kind, "a signal past the pending limit was set aside");
                log_signal(cx, &info, LogKind::SignalSetAside { signal_kind: kind });
                if notify {
                    cx.emit(EngineEvent::SignalsFlooding {
                        session_id: session_id.clone(),
                        profile_id: profile_id.clone(),
                        limit: MAX_PENDING_SIGNALS as u32,
                        oldest_pending,
                    });
                }
            }
        }
        // A report set aside still counts for its task and team.
        let Some(report) = completion else { return taken };
        // A completion report may complete the agent's task (by its rule),
        // ends its part in a team, and resumes a requester waiting for it.
        cx.follow(Follow::Report { session: session_id.clone(), report: report.clone() });
        merge::merge_team_of(cx, &session_id);
        status::teammate_gone(cx, &session_id);
        delegation::reported(cx, &session_id, &report);
        taken
    }

    /// A session ended. A delegate that had not reported wakes the requester
    /// waiting on it with a failure report, rather than leaving it waiting.
    pub fn session_ended(&mut self, cx: &mut Ctx, session_id: &SessionId, state: &switchboard_api::SessionState) {
        use switchboard_api::SessionState;
        if self.quitting {
            return;
        }
        let how = match state {
            SessionState::Exited { exit_code, signal: Some(signal), .. } => {
                format!("it exited ({signal}, code {exit_code})")
            }
            SessionState::Exited { exit_code, .. } => format!("it exited (code {exit_code})"),
            SessionState::Killed { .. } => "it was stopped".to_owned(),
            SessionState::Interrupted { .. } => "the app stopped".to_owned(),
            SessionState::Running { .. } => return,
        };
        delegation::ended(cx, session_id, &how);
    }

    /// The delegate watch (each second): a delegate past its agent's time
    /// limit fails and ends, its requester told; a quiet one is flagged.
    pub fn check_delegates(&mut self, cx: &mut Ctx, now: switchboard_api::Millis) {
        if !self.quitting {
            delegation::check(cx, now);
        }
    }

    pub fn list(&self, cx: &Ctx) -> Result<Vec<SignalInfo>, EngineError> {
        Ok(cx.store.list_signals(MAX_LISTED_HANDLED_SIGNALS)?.into_iter().map(respond::with_actions).collect())
    }
}

/// Remembers a signal's identity for the session; false when it was seen
/// within the duplicate window.
fn first_sighting(seen: &mut std::collections::VecDeque<(String, Instant)>, key: String, now: Instant) -> bool {
    seen.retain(|(_, at)| now.duration_since(*at) < DUPLICATE_WINDOW);
    if seen.iter().any(|(known, _)| known == &key) {
        return false;
    }
    seen.push_back((key, now));
    while seen.len() > REMEMBERED_PER_SESSION {
        seen.pop_front();
    }
    true
}

/// What identifies a signal across channels: its kind and fields, not how
/// the terminal happened to lay it out.
fn identity(event: &ScanEvent) -> String {
    match event {
        ScanEvent::Signal { signal } => {
            let fields = serde_json::json!([signal.agent_id, signal.timestamp, signal.body, signal.extra]);
            fields.to_string()
        }
        ScanEvent::Malformed { kind, raw, .. } => {
            format!("{kind:?}:{}", raw.split_whitespace().collect::<Vec<_>>().join(" "))
        }
    }
}

/// Records the signal, reports it, and whether it has its agent wait for
/// the user.
fn save_signal(cx: &mut Ctx, info: &SignalInfo) {
    let info = &respond::with_actions(info.clone());
    if let Err(error) = cx.store.save_signal(info) {
        tracing::error!(signal = %info.id, %error, "recording a signal failed");
    }
    cx.emit(EngineEvent::SignalChanged { signal: info.clone().into() });
    let waits = info.state() == SignalState::Pending && needs_user(&info.scan);
    status::set_needs_user(cx, &info.session_id, &info.id, waits);
}

fn log_signal(cx: &Ctx, info: &SignalInfo, kind: LogKind) {
    let about = LogAbout { session: Some(&info.session_id), task: info.task_id.as_ref(), ..LogAbout::default() };
    let logged = cx.log(now(), about, &kind);
    if let Err(error) = logged {
        tracing::error!(signal = %info.id, %error, "logging a signal event failed");
    }
}

/// Whether a pending signal waits for the user's decision (a completion
/// report only asks to be read).
fn needs_user(scan: &ScanEvent) -> bool {
    match scan {
        ScanEvent::Signal { signal } => !matches!(signal.body, SignalBody::Completion { .. }),
        ScanEvent::Malformed { .. } => true,
    }
}

/// The folder the session's agent works in: its worktree, or its agent's.
fn workspace_of(cx: &Ctx, profile_id: &ProfileId, session: &SessionId) -> Option<PathBuf> {
    let profile = cx.store.get_profile(profile_id).ok().flatten()?;
    super::isolation::workspace_of_session(cx, &profile, session)
}

/// A file in the workspace root, read with a cap, if it is there (and
/// inside the workspace).
fn read_side_file(workspace: &Path, name: &str, cap: usize) -> Option<String> {
    crate::tasks::artifacts::read_workspace_file(workspace, name, cap)
}

/// A completion report's deliverable: it must exist inside the workspace.
fn check_deliverable(workspace: Option<&Path>, path: &str) -> DeliverableCheck {
    let problem = match workspace {
        None => Some("the workspace is gone".to_owned()),
        Some(workspace) => {
            let listed = path.trim_end_matches('/');
            match resolve_deliverable(workspace, listed) {
                // A directory is a fine deliverable for a report.
                Ok(_) | Err(PathRefusal::NotAFile) => None,
                Err(refusal) => Some(refusal.to_string()),
            }
        }
    };
    DeliverableCheck { path: path.to_owned(), problem }
}
