//! The signal protocols, run on the engine task: a signal read from an
//! agent's terminal (plain CLI agents) or from its own words delivered by a
//! hook (TUIs) is recorded once, shown to the user, and the user's decision
//! becomes a prompt typed into the agent (or into a fresh session of its
//! profile when it has exited), or a new delegated agent.

use std::collections::{HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::time::Duration;

use switchboard_protocol::signal::prompts::{self, Blocker};
use switchboard_protocol::signal::{
    Independence, SHARED_FINDINGS_FILE, ScanEvent, SignalBody, parse_findings, scan_all,
};
use switchboard_protocol::summary::summary_path;
use switchboard_protocol::{ProfileId, SessionId, SignalId, TermSize};
use tokio::sync::oneshot;
use tokio::time::Instant;

use super::tasks::Report;
use super::{EngineState, now};
use crate::api::{
    DeliverableCheck, EngineEvent, LogKind, MemberResult, MergedResult, SignalChannel, SignalInfo, SignalResponse,
    SignalState, TaskState,
};
use crate::error::EngineError;
use crate::session::typing::ReadyWhen;
use crate::session::{Control, TypeRequest};
use crate::tasks::artifacts::{read_capped, resolve_deliverable};

/// A file in the workspace root, read with a cap, if it is there (and
/// inside the workspace).
fn read_side_file(workspace: &Path, name: &str, cap: usize) -> Option<String> {
    let path = resolve_deliverable(workspace, name).ok()?;
    read_capped(&path, cap).ok().map(|(text, ..)| text)
}

/// Handled and dismissed signals returned by a listing, besides the pending.
pub const MAX_LISTED_HANDLED_SIGNALS: usize = 200;
/// The same signal seen again within this time (on another channel, or
/// re-read) is the same signal.
const DUPLICATE_WINDOW: Duration = Duration::from_secs(600);
/// Signals remembered per session for spotting duplicates.
const REMEMBERED_PER_SESSION: usize = 64;
/// Signals looked through to find a team's members.
const TEAM_LOOKBACK_SIGNALS: usize = 1000;
/// Largest SHARED_FINDINGS.jsonl read.
const FINDINGS_CAP_BYTES: usize = 1024 * 1024;
/// The file skipped items are logged to, in the workspace.
pub const SKIPPED_ITEMS_FILE: &str = "SKIPPED_ITEMS.md";

#[derive(Default)]
pub(super) struct Signals {
    /// Recently seen signals per session, for handling each once.
    seen: HashMap<SessionId, VecDeque<(String, Instant)>>,
    /// Requesters waiting for a delegate's completion report: delegate
    /// session → the delegation signal.
    waiting_on: HashMap<SessionId, SignalId>,
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

impl EngineState {
    /// A block read from `session_id`'s output or hooks.
    pub(super) fn on_signal(&mut self, session_id: SessionId, channel: SignalChannel, event: ScanEvent) {
        let key = identity(&event);
        let seen = self.signals.seen.entry(session_id.clone()).or_default();
        seen.retain(|(_, at)| at.elapsed() < DUPLICATE_WINDOW);
        if seen.iter().any(|(known, _)| known == &key) {
            tracing::debug!(session = %session_id, ?channel, "a signal seen again was ignored");
            return;
        }
        seen.push_back((key, Instant::now()));
        while seen.len() > REMEMBERED_PER_SESSION {
            seen.pop_front();
        }
        let profile_id = match self.session_profile(&session_id) {
            Some(profile_id) => profile_id,
            None => {
                tracing::warn!(session = %session_id, "a signal from an unknown session was ignored");
                return;
            }
        };
        let task_id = self.task_of_session(&session_id);
        let mut info = SignalInfo {
            id: SignalId::new(),
            session_id: session_id.clone(),
            profile_id: profile_id.clone(),
            task_id: task_id.clone(),
            channel,
            scan: event,
            state: SignalState::Pending,
            created_at: now(),
            handled_at: None,
            response: None,
            reply_prompt: None,
            delegate_session: None,
            deliverables: Vec::new(),
            success_criteria: None,
            merged: None,
        };
        if let ScanEvent::Signal { signal } = &info.scan
            && let SignalBody::Completion { deliverables, .. } = &signal.body
        {
            let workspace = self.workspace_of(&profile_id);
            info.deliverables = deliverables.iter().map(|path| check_deliverable(workspace.as_deref(), path)).collect();
            info.success_criteria = task_id
                .as_ref()
                .and_then(|id| self.store.get_task(id).ok().flatten())
                .and_then(|task| task.spec.success_criteria);
        }
        let (kind, malformed) = match &info.scan {
            ScanEvent::Signal { signal } => (signal.body.kind(), false),
            ScanEvent::Malformed { kind, .. } => (*kind, true),
        };
        self.save_signal(&info);
        self.log_signal(&info, LogKind::SignalRaised { signal_id: info.id.clone(), signal_kind: kind, malformed });
        // A completion report may complete the agent's task (by its rule).
        if let ScanEvent::Signal { signal } = &info.scan
            && let SignalBody::Completion { status, deliverables, metrics_achieved, recommendations } = &signal.body
        {
            let report = Report {
                status: status.clone(),
                deliverables: deliverables.clone(),
                metrics: metrics_achieved.clone(),
                recommendations: recommendations.clone(),
            };
            self.report_arrived(&session_id, report);
        }
        if let ScanEvent::Signal { signal } = &info.scan
            && signal.body.kind() == switchboard_protocol::signal::SignalKind::Completion
        {
            self.merge_team_of(&session_id);
            self.teammate_gone(&session_id);
        }
        // A delegate reporting completion resumes the requester that waits for it.
        if let ScanEvent::Signal { signal } = &info.scan
            && let SignalBody::Completion { status, deliverables, metrics_achieved, .. } = &signal.body
            && let Some(request) = self.signals.waiting_on.remove(&session_id)
            && let Ok(Some(request)) = self.store.get_signal(&request)
        {
            let prompt = prompts::delegate_results(&session_id.to_string(), status, deliverables, metrics_achieved);
            if let Err(error) = self.deliver(&request.session_id, &request.profile_id, &request.id.to_string(), prompt)
            {
                tracing::warn!(%error, "resuming a requester with its delegate's results failed");
            }
        }
    }

    /// Once a requester and every agent it had working in parallel have
    /// reported completion, puts their results together (with the shared
    /// findings file) on the requester's report.
    fn merge_team_of(&mut self, session_id: &SessionId) {
        let all = match self.store.list_signals(TEAM_LOOKBACK_SIGNALS) {
            Ok(all) => all,
            Err(error) => {
                tracing::error!(%error, "reading signals to merge a team's results failed");
                return;
            }
        };
        let approved_parallel = |s: &&SignalInfo| {
            matches!(s.response, Some(SignalResponse::Approve { .. }))
                && matches!(&s.scan, ScanEvent::Signal { signal } if matches!(
                    &signal.body,
                    SignalBody::Delegate { independence: Independence::CanProceedParallel, .. }
                ))
        };
        let parent = all
            .iter()
            .filter(approved_parallel)
            .find(|s| s.delegate_session.as_ref() == Some(session_id))
            .map_or_else(|| session_id.clone(), |s| s.session_id.clone());
        let delegates: Vec<SessionId> = all
            .iter()
            .filter(approved_parallel)
            .filter(|s| s.session_id == parent)
            .filter_map(|s| s.delegate_session.clone())
            .collect();
        if delegates.is_empty() {
            return;
        }
        let latest_report = |session: &SessionId| {
            all.iter().rev().find(|s| {
                &s.session_id == session
                    && matches!(&s.scan, ScanEvent::Signal { signal } if matches!(signal.body, SignalBody::Completion { .. }))
            })
        };
        let mut members = Vec::new();
        for (session, requester) in std::iter::once((&parent, true)).chain(delegates.iter().map(|d| (d, false))) {
            let Some(report) = latest_report(session) else { return };
            let ScanEvent::Signal { signal } = &report.scan else { return };
            let SignalBody::Completion { status, metrics_achieved, recommendations, .. } = &signal.body else { return };
            members.push(MemberResult {
                session_id: session.clone(),
                profile_id: report.profile_id.clone(),
                requester,
                status: status.clone(),
                deliverables: report.deliverables.clone(),
                metrics_achieved: metrics_achieved.clone(),
                recommendations: recommendations.clone(),
            });
        }
        let Some(mut parent_report) = latest_report(&parent).cloned() else { return };
        let findings = self
            .workspace_of(&parent_report.profile_id)
            .and_then(|ws| read_side_file(&ws, SHARED_FINDINGS_FILE, FINDINGS_CAP_BYTES))
            .unwrap_or_default();
        let (findings, malformed_findings) = parse_findings(&findings);
        parent_report.merged = Some(MergedResult { members, findings, malformed_findings, merged_at: now() });
        self.save_signal(&parent_report);
    }

    /// Text an agent wrote, from its hooks.
    pub(super) fn agent_text(&mut self, session_id: SessionId, text: &str) -> Result<(), EngineError> {
        if self.session_profile(&session_id).is_none() {
            return Err(EngineError::SessionNotFound(session_id));
        }
        for event in scan_all(text.as_bytes()) {
            self.on_signal(session_id.clone(), SignalChannel::Hook, event);
        }
        Ok(())
    }

    pub(super) fn list_signals(&self) -> Result<Vec<SignalInfo>, EngineError> {
        Ok(self.store.list_signals(MAX_LISTED_HANDLED_SIGNALS)?)
    }

    /// Carries out the user's decision on a pending signal.
    pub(super) fn respond_to_signal(
        &mut self,
        id: &SignalId,
        response: SignalResponse,
    ) -> Result<SignalInfo, EngineError> {
        let mut info = self.store.get_signal(id)?.ok_or_else(|| EngineError::SignalNotFound(id.clone()))?;
        let refuse = |reason: &str| Err(EngineError::SignalState { signal: id.clone(), reason: reason.to_owned() });
        if info.state != SignalState::Pending {
            return refuse("it was already handled");
        }
        let signal = match &info.scan {
            ScanEvent::Signal { signal } => Some(signal.clone()),
            ScanEvent::Malformed { .. } => None,
        };
        let (state, prompt) = match (&signal.as_ref().map(|s| &s.body), &response) {
            (_, SignalResponse::Dismiss) => (SignalState::Dismissed, None),
            (Some(SignalBody::Clarification { questions, current_state, .. }), SignalResponse::Answer { answers }) => {
                if answers.len() != questions.len() || answers.iter().any(|a| a.trim().is_empty()) {
                    return Err(EngineError::InvalidInput {
                        field: "answers",
                        reason: format!("answer each of the {} questions", questions.len()),
                    });
                }
                (SignalState::Handled, Some(prompts::clarification_response(questions, answers, current_state)))
            }
            (Some(body @ SignalBody::StopWork { .. }), action) => {
                let blocker = blocker_of(body);
                let prompt = match action {
                    SignalResponse::Resolve { resolution } if !resolution.trim().is_empty() => {
                        prompts::blocker_resolved(&blocker, resolution)
                    }
                    SignalResponse::Resolve { .. } => {
                        return Err(EngineError::InvalidInput {
                            field: "resolution",
                            reason: "say how the blocker was resolved".into(),
                        });
                    }
                    SignalResponse::Retry => prompts::retry_from_checkpoint(&blocker),
                    SignalResponse::Skip => {
                        self.log_skipped(&info.profile_id, &blocker)?;
                        prompts::skip_item(&blocker)
                    }
                    SignalResponse::DelegateBlocked { profile_id } => {
                        let work = match blocker.blocked_work.trim() {
                            "" => blocker.details.to_owned(),
                            work => format!("{work}\n\nBlocked on: {}", blocker.details),
                        };
                        let delegate =
                            self.start_delegate(profile_id, &info.session_id, &work, blocker.state_snapshot)?;
                        info.delegate_session = Some(delegate.clone());
                        prompts::partial_resume(&blocker, &delegate.to_string())
                    }
                    _ => return refuse("a blocker takes resolve, retry, skip or delegate"),
                };
                (SignalState::Handled, Some(prompt))
            }
            (Some(SignalBody::Delegate { new_task_description, independence, coordination }), action) => {
                let prompt = match action {
                    SignalResponse::Approve { profile_id } => {
                        let delegate =
                            self.start_delegate(profile_id, &info.session_id, new_task_description, coordination)?;
                        let blocks = *independence == Independence::BlocksCurrentWork;
                        if blocks {
                            self.signals.waiting_on.insert(delegate.clone(), info.id.clone());
                        }
                        info.delegate_session = Some(delegate.clone());
                        prompts::delegation_approved(&delegate.to_string(), coordination, blocks)
                    }
                    SignalResponse::Deny { reason } if !reason.trim().is_empty() => prompts::delegation_denied(reason),
                    SignalResponse::Deny { .. } => {
                        return Err(EngineError::InvalidInput { field: "reason", reason: "say why".into() });
                    }
                    _ => return refuse("a delegation takes approve or deny"),
                };
                (SignalState::Handled, Some(prompt))
            }
            (Some(SignalBody::Completion { .. }), SignalResponse::Acknowledge) => (SignalState::Handled, None),
            _ => return refuse("that response does not fit this signal"),
        };
        if let Some(prompt) = &prompt {
            let mut text = prompt.clone();
            if let Some(task) = &info.task_id
                && self.task(task).is_ok_and(|t| t.state == TaskState::Running)
            {
                text.push_str(&prompts::task_reminder(&summary_path(task)));
            }
            self.deliver(&info.session_id, &info.profile_id, &info.id.to_string(), text.clone())?;
            info.reply_prompt = Some(text);
        }
        info.state = state;
        info.handled_at = Some(now());
        info.response = Some(response.clone());
        self.save_signal(&info);
        self.log_signal(&info, LogKind::SignalHandled { signal_id: info.id.clone(), response });
        Ok(info)
    }

    /// Types `prompt` into the session once its agent is ready; if the
    /// session has ended, into a fresh session of its profile.
    fn deliver(
        &mut self,
        session_id: &SessionId,
        profile_id: &ProfileId,
        tag: &str,
        prompt: String,
    ) -> Result<SessionId, EngineError> {
        let target = if self.running.contains_key(session_id) {
            session_id.clone()
        } else {
            self.start_session(profile_id, TermSize::DEFAULT)?.id
        };
        let ready = self.ready_when(profile_id)?;
        let (reply, typed) = oneshot::channel();
        self.sessions.get(&target).expect("a running session has an actor").send(Control::Type(TypeRequest {
            tag: tag.to_owned(),
            text: prompt,
            ready,
            reply,
        }));
        let session = target.clone();
        tokio::spawn(async move {
            match typed.await {
                Ok(Ok(_)) => tracing::debug!(%session, "a reply was typed into the agent"),
                Ok(Err(error)) => tracing::warn!(%session, %error, "a reply could not be typed"),
                Err(_) => tracing::warn!(%session, "the session went away before a reply was typed"),
            }
        });
        Ok(target)
    }

    /// Starts a session of `profile_id` for delegated work and types the
    /// work into it. Refused past the cap on agents running at once.
    fn start_delegate(
        &mut self,
        profile_id: &ProfileId,
        requester: &SessionId,
        work: &str,
        coordination: &str,
    ) -> Result<SessionId, EngineError> {
        let running = self.running.len();
        if running >= self.config.max_agents {
            return Err(EngineError::TooManyAgents { running });
        }
        let session = self.start_session(profile_id, TermSize::DEFAULT)?.id;
        // The delegate is the requester's teammate from the moment it exists.
        self.team_spawned(requester, &session);
        let prompt = prompts::delegated_work(work, coordination, &requester.to_string());
        self.deliver(&session, profile_id, "delegated work", prompt)
    }

    fn log_skipped(&self, profile_id: &ProfileId, blocker: &Blocker) -> Result<(), EngineError> {
        let workspace = self
            .workspace_of(profile_id)
            .ok_or_else(|| EngineError::Internal("the agent's workspace is gone".into()))?;
        let path = workspace.join(SKIPPED_ITEMS_FILE);
        let line = prompts::skipped_item_line(blocker, &format!("{}", now()));
        let mut text = std::fs::read_to_string(&path).unwrap_or_else(|_| "# Skipped items\n\n".into());
        text.push_str(&line);
        std::fs::write(&path, text).map_err(|e| EngineError::Internal(format!("writing {}: {e}", path.display())))
    }

    fn ready_when(&self, profile_id: &ProfileId) -> Result<ReadyWhen, EngineError> {
        let profile =
            self.store.get_profile(profile_id)?.ok_or_else(|| EngineError::ProfileNotFound(profile_id.clone()))?;
        let pattern = profile
            .spec
            .ready_pattern
            .as_deref()
            .map(regex::Regex::new)
            .transpose()
            .map_err(|e| EngineError::InvalidInput { field: "ready_pattern", reason: e.to_string() })?;
        Ok(ReadyWhen { pattern, quiet: Duration::from_millis(profile.spec.ready_quiet_ms.into()) })
    }

    fn session_profile(&self, session_id: &SessionId) -> Option<ProfileId> {
        self.running
            .get(session_id)
            .map(|s| s.profile_id.clone())
            .or_else(|| self.store.get_session(session_id).ok().flatten().map(|s| s.profile_id))
    }

    fn workspace_of(&self, profile_id: &ProfileId) -> Option<PathBuf> {
        let profile = self.store.get_profile(profile_id).ok().flatten()?;
        Path::new(&profile.spec.cwd).canonicalize().ok()
    }

    fn save_signal(&mut self, info: &SignalInfo) {
        if let Err(error) = self.store.save_signal(info) {
            tracing::error!(signal = %info.id, %error, "recording a signal failed");
        }
        self.sink.emit(EngineEvent::SignalChanged { signal: info.clone() });
        let waits = info.state == SignalState::Pending && needs_user(&info.scan);
        self.signal_needs_user(&info.session_id, &info.id, waits);
    }

    fn log_signal(&self, info: &SignalInfo, kind: LogKind) {
        let logged = self.store.append_task_event(now(), Some(&info.session_id), info.task_id.as_ref(), &kind);
        if let Err(error) = logged {
            tracing::error!(signal = %info.id, %error, "logging a signal event failed");
        }
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

fn blocker_of(body: &SignalBody) -> Blocker<'_> {
    match body {
        SignalBody::StopWork { blocker_type, details, state_snapshot, blocked_work, .. } => {
            Blocker { blocker_type, details, state_snapshot, blocked_work }
        }
        _ => Blocker { blocker_type: "", details: "", state_snapshot: "", blocked_work: "" },
    }
}

/// A completion report's deliverable: it must exist inside the workspace.
fn check_deliverable(workspace: Option<&Path>, path: &str) -> DeliverableCheck {
    let problem = match workspace {
        None => Some("the workspace is gone".to_owned()),
        Some(workspace) => {
            let listed = path.trim_end_matches('/');
            match resolve_deliverable(workspace, listed) {
                Ok(_) => None,
                // A directory is a fine deliverable for a report.
                Err(reason) if reason == "not a regular file" => None,
                Err(reason) => Some(reason),
            }
        }
    };
    DeliverableCheck { path: path.to_owned(), problem }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_signal_has_the_same_identity_however_it_was_laid_out() {
        let pty =
            scan_all(b"[DELEGATE_WORK]\r\n  new_task_description: tests\r\n  coordination: none\r\n[/DELEGATE_WORK]");
        let hook = scan_all(
            b"text before\n[DELEGATE_WORK]\nnew_task_description: tests\ncoordination: none\n[/DELEGATE_WORK]\n",
        );
        assert_eq!(identity(&pty[0]), identity(&hook[0]));
        let other = scan_all(b"[DELEGATE_WORK]\nnew_task_description: docs\n[/DELEGATE_WORK]");
        assert_ne!(identity(&pty[0]), identity(&other[0]));
    }

    #[test]
    fn completion_deliverables_are_checked_inside_the_workspace() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir(root.join("src")).unwrap();
        std::fs::write(root.join("src/a.rs"), "").unwrap();
        let cases = [
            ("src/a.rs", None),
            ("src/", None),
            ("src/missing.rs", Some("does not exist")),
            ("../x", Some("`..` is not allowed in a deliverable path")),
        ];
        for (path, problem) in cases {
            assert_eq!(check_deliverable(Some(&root), path).problem.as_deref(), problem, "{path}");
        }
        assert!(check_deliverable(None, "a").problem.is_some());
    }
}
