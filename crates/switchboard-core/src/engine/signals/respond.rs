//! The user's response to a pending signal: which responses fit (a pure
//! decision the window asks for rather than repeating), and carrying one
//! out — a reply prompt typed into the agent, a skipped item logged, a
//! delegated agent started.

use switchboard_protocol::signal::prompts::{self, Blocker};
use switchboard_protocol::signal::{Independence, ScanEvent, SignalBody, SignalKind};
use switchboard_protocol::summary::summary_path;
use switchboard_protocol::{ProfileId, SessionId, SignalId, TermSize};

use std::path::PathBuf;

use super::deliver::deliver;
use super::{SignalDesk, delegation, log_signal, save_signal};
use crate::engine::context::Ctx;
use crate::engine::status;
use crate::error::EngineError;
use crate::workspace::Workspace;
use switchboard_api::now;
use switchboard_api::{LogKind, SignalAction, SignalInfo, SignalResponse, SignalState, SignalStatus, TaskState};

/// The file skipped items are logged to, in the workspace.
pub const SKIPPED_ITEMS_FILE: &str = "SKIPPED_ITEMS.md";

/// The responses a signal takes in its state: none once handled or
/// dismissed; while pending, those of its kind, and dismissing always.
pub fn allowed_actions(scan: &ScanEvent, state: SignalState) -> Vec<SignalAction> {
    use SignalAction::*;
    if state != SignalState::Pending {
        return Vec::new();
    }
    let kind = match scan {
        ScanEvent::Signal { signal } => Some(signal.body.kind()),
        ScanEvent::Malformed { .. } => None,
    };
    match kind {
        Some(SignalKind::Clarification) => vec![Answer, Dismiss],
        Some(SignalKind::StopWork) => vec![Resolve, Retry, Skip, DelegateBlocked, Dismiss],
        Some(SignalKind::Delegate) => vec![Approve, Deny, Dismiss],
        Some(SignalKind::Completion) => vec![Acknowledge, Dismiss],
        None => vec![Dismiss],
    }
}

/// The signal as the window is told of it: with the responses it takes.
pub fn with_actions(mut info: SignalInfo) -> SignalInfo {
    info.actions = allowed_actions(&info.scan, info.state());
    info
}

impl SignalDesk {
    /// Carries out the user's decision on a pending signal; `task_running`
    /// says whether the signal's task is still at work (its reply then
    /// reminds the agent of its summary file).
    pub fn respond(
        &mut self,
        cx: &mut Ctx,
        id: &SignalId,
        response: SignalResponse,
    ) -> Result<SignalInfo, EngineError> {
        let mut info = cx.store.get_signal(id)?.ok_or_else(|| EngineError::SignalNotFound(id.clone()))?;
        let refuse = |reason: &str| Err(EngineError::SignalState { signal: id.clone(), reason: reason.to_owned() });
        if info.state() != SignalState::Pending {
            return refuse("it was already handled");
        }
        if !allowed_actions(&info.scan, info.state()).contains(&response.action()) {
            return refuse("that response does not fit this signal");
        }
        let body = match &info.scan {
            ScanEvent::Signal { signal } => Some(signal.body.clone()),
            ScanEvent::Malformed { .. } => None,
        };
        if let Some(problem) = switchboard_api::response_problem(body.as_ref(), &response) {
            return Err(EngineError::ResponseRefused(problem));
        }
        let mut delegate_session = None;
        let prompt = match (&body, &response) {
            (_, SignalResponse::Dismiss) | (Some(SignalBody::Completion { .. }), SignalResponse::Acknowledge) => None,
            (Some(SignalBody::Clarification { questions, current_state, .. }), SignalResponse::Answer { answers }) => {
                Some(prompts::clarification_response(questions, answers, current_state))
            }
            (Some(body @ SignalBody::StopWork { .. }), action) => {
                let (prompt, delegate) = self.resolve_blocker(cx, &info, &blocker_of(body), action)?;
                delegate_session = delegate;
                Some(prompt)
            }
            (Some(SignalBody::Delegate { new_task_description, independence, coordination }), action) => {
                let prompt = match action {
                    SignalResponse::Approve { profile_id } => {
                        let blocks = *independence == Independence::BlocksCurrentWork;
                        let delegate =
                            self.start_delegate(cx, profile_id, &info, new_task_description, coordination, blocks)?;
                        let prompt = prompts::delegation_approved(&delegate.to_string(), coordination, blocks);
                        delegate_session = Some(delegate);
                        prompt
                    }
                    SignalResponse::Deny { reason } => prompts::delegation_denied(reason),
                    _ => return refuse("that response does not fit this signal"),
                };
                Some(prompt)
            }
            _ => return refuse("that response does not fit this signal"),
        };
        let reply_prompt = if let Some(prompt) = prompt {
            let mut text = prompt;
            if let Some(task) = &info.task_id
                && cx.store.get_task(task).ok().flatten().is_some_and(|t| t.state() == TaskState::Running)
            {
                text.push_str(&prompts::task_reminder(&summary_path(task)));
            }
            deliver(cx, &info.session_id, &info.profile_id, &info.id.to_string(), text.clone())?;
            Some(text)
        } else {
            None
        };
        info.status = match response {
            SignalResponse::Dismiss => SignalStatus::Dismissed { at: now() },
            ref response => {
                SignalStatus::Handled { at: now(), response: response.clone(), reply_prompt, delegate_session }
            }
        };
        save_signal(cx, &info);
        log_signal(cx, &info, LogKind::SignalHandled { signal_id: info.id.clone(), response });
        Ok(with_actions(info))
    }

    /// The reply to a blocker: resolved, retried, skipped (and logged), or
    /// its blocked part delegated.
    fn resolve_blocker(
        &mut self,
        cx: &mut Ctx,
        info: &SignalInfo,
        blocker: &Blocker<'_>,
        action: &SignalResponse,
    ) -> Result<(String, Option<SessionId>), EngineError> {
        Ok(match action {
            SignalResponse::Resolve { resolution } => (prompts::blocker_resolved(blocker, resolution), None),
            SignalResponse::Retry { fix } => (prompts::error_fixed(blocker, fix), None),
            SignalResponse::Skip => {
                log_skipped(cx, &info.profile_id, blocker)?;
                (prompts::skip_item(blocker), None)
            }
            SignalResponse::DelegateBlocked { profile_id } => {
                let work = match blocker.blocked_work.trim() {
                    "" => blocker.details.to_owned(),
                    work => format!("{work}\n\nBlocked on: {}", blocker.details),
                };
                // The requester goes on with the rest: it does not wait.
                let delegate = self.start_delegate(cx, profile_id, info, &work, blocker.state_snapshot, false)?;
                (prompts::partial_resume(blocker, &delegate.to_string()), Some(delegate))
            }
            _ => unreachable!("allowed_actions admits only these for a blocker"),
        })
    }

    /// Starts a session of `profile_id` for the work `request` (a signal)
    /// delegates, records whom it works for, and types the work into it.
    /// Refused past the cap on agents running at once.
    fn start_delegate(
        &mut self,
        cx: &mut Ctx,
        profile_id: &ProfileId,
        request: &SignalInfo,
        work: &str,
        coordination: &str,
        blocks: bool,
    ) -> Result<SessionId, EngineError> {
        let running = cx.sessions.running_count();
        if running >= self.max_agents {
            return Err(EngineError::TooManyAgents { running });
        }
        let requester = &request.session_id;
        let session = cx.start_session(profile_id, TermSize::DEFAULT, None, None)?.id;
        // The delegate is the requester's teammate from the moment it exists.
        status::team_spawned(cx, requester, &session);
        delegation::begin(cx, &request.id, (requester, &request.profile_id), (&session, profile_id), work, blocks);
        let profile = cx.profile(profile_id)?;
        let server = cx.sessions.mcp_binary().filter(|_| profile.spec.switchboard_tools);
        let taught = profile.spec.signal_protocols
            && std::path::Path::new(&profile.spec.cwd)
                .canonicalize()
                .is_ok_and(|workspace| crate::tasks::owned::teach_workspace(&workspace, server));
        let agent_id = session.to_string();
        let tools = cx.sessions.get(&session).map_or(Default::default(), |entry| entry.tools);
        let prompt = prompts::delegated_work(
            work,
            coordination,
            &requester.to_string(),
            taught.then_some(agent_id.as_str()),
            tools,
        );
        deliver(cx, &session, profile_id, "delegated work", prompt)
    }
}

fn log_skipped(cx: &Ctx, profile_id: &ProfileId, blocker: &Blocker) -> Result<(), EngineError> {
    let cwd = PathBuf::from(cx.profile(profile_id)?.spec.cwd);
    let workspace = cwd.canonicalize().map_err(|_| EngineError::DirectoryMissing { path: cwd.clone() })?;
    let line = prompts::skipped_item_line(blocker, &format!("{}", now()));
    let failed = |e| EngineError::io(format!("writing {SKIPPED_ITEMS_FILE} in {}", workspace.display()), e);
    let files = Workspace::open(&workspace).map_err(failed)?;
    files.append(SKIPPED_ITEMS_FILE, b"# Skipped items\n\n", line.as_bytes()).map_err(failed)
}

fn blocker_of(body: &SignalBody) -> Blocker<'_> {
    match body {
        SignalBody::StopWork { blocker_type, details, state_snapshot, blocked_work, .. } => {
            Blocker { blocker_type, details, state_snapshot, blocked_work }
        }
        _ => Blocker { blocker_type: "", details: "", state_snapshot: "", blocked_work: "" },
    }
}
