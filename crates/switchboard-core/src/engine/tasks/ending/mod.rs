//! How the task at work ends: its summary arrives (watch event or rescan),
//! its completion report arrives, its time runs out, its session ends, or
//! it is cancelled; and the recovery of tasks a crash cut short.

mod budget;
pub(in crate::engine::tasks) use budget::Told;
pub(crate) use budget::day_held;
mod session;
mod summary;

use std::path::{Path, PathBuf};
use std::time::{Duration, UNIX_EPOCH};

use switchboard_protocol::summary::SUMMARIES_DIR;
use switchboard_protocol::{ProfileId, SessionId, TaskId};
use tokio::time::Instant;

use super::rules;
use super::{Phase, TaskDesk, Work, log_task, task_of};
use crate::engine::context::{Ctx, Follow, Report};
use crate::engine::status;
use crate::error::EngineError;
use crate::tasks::artifacts;
use crate::tasks::completion::{self, Decision};
use switchboard_api::now;
use switchboard_api::{CompletionRule, LogKind, TaskInfo, TaskResult, TaskState};

/// Largest summary file read.
const SUMMARY_CAP_BYTES: usize = 1024 * 1024;
/// A summary found by a rescan (not by a close or rename event) must keep
/// its size and time this long before it is read: it may still be written.
const SETTLE_TIME: Duration = Duration::from_millis(150);

/// What the desk's helpers report back, on the engine task.
#[derive(Debug)]
pub enum TaskNote {
    /// The session actor typed the task (whether as a bracketed paste), or
    /// could not.
    Typed { task_id: TaskId, result: Result<bool, EngineError> },
    /// The screen for a fallback summary arrived.
    Screen { task_id: TaskId, state: TaskState, reason: String, lines: Vec<String> },
    /// A summary found by a rescan stopped changing.
    Settled { task_id: TaskId },
    /// The agent is back at its prompt after the task (a loop iteration of
    /// an agent without hooks); the recent lines on its screen.
    PromptReturned { task_id: TaskId, lines: Vec<String> },
    /// What holds the task's typing back changed (see `typing::held`).
    Held { task_id: TaskId, held: crate::session::typing::Held },
    /// The task's worktree was made (or could not be: why), and its setup
    /// command ran (or none was to run).
    Prepared { profile_id: ProfileId, task_id: TaskId, readied: Box<Readied> },
    /// The task's new worktree is made; its setup command starts.
    SettingUp { profile_id: ProfileId, task_id: TaskId, command: String },
    /// The screen of a refused agent about to be asked to go on: whether it
    /// shows a dialog of its own to close first (see `limits::go_on`).
    GoOn { task_id: TaskId, dialog: bool },
}

/// How a task's worktree was readied: made (or why not), none to make;
/// its setup command and how it ended, none to run.
#[derive(Debug)]
pub struct Readied {
    pub made: Option<Result<crate::worktree::WorktreeRecord, EngineError>>,
    pub setup: Option<(String, crate::worktree::SetupRun)>,
}

impl TaskDesk {
    pub fn on_note(&mut self, cx: &mut Ctx, note: TaskNote) {
        match note {
            TaskNote::Typed { task_id, result } => {
                let Some(profile_id) = self.profile_working_on(&task_id) else { return };
                match result {
                    Ok(bracketed) => {
                        // One moment for both: the quiet watch counts from the work's,
                        // the window shows the task's.
                        let at = now();
                        let work = self.work.get_mut(&profile_id).expect("found above");
                        if let Phase::Handed { .. } = work.phase {
                            work.phase = Phase::Typed { deadline: Instant::now() + work.time_limit };
                            work.typed_at = Some(at);
                            work.held = None;
                            // A wait flagged before it was typed is over.
                            work.quiet_since = None;
                        }
                        let cause = super::wait_of(cx, &profile_id, self.work.get(&profile_id).expect("found above"));
                        super::set_wait(cx, &task_id, cause);
                        if let Ok(mut task) = task_of(cx, &task_id) {
                            task.set_quiet_since(None);
                            task.typed(at);
                            save_and_report(cx, &task);
                            log_task(cx, &task, LogKind::TaskTyped { bracketed });
                        }
                    }
                    // The session ended before the agent was ready; its end
                    // decides the task.
                    Err(error) => tracing::info!(task = %task_id, %error, "the task was not typed"),
                }
            }
            TaskNote::Screen { task_id, state, reason, lines } => {
                self.end_with_fallback(cx, &task_id, state, reason, lines)
            }
            TaskNote::Settled { task_id } => {
                if let Some(profile_id) = self.profile_working_on(&task_id) {
                    self.complete(cx, &profile_id);
                }
            }
            TaskNote::Held { task_id, held } => {
                let Some(profile_id) = self.profile_working_on(&task_id) else { return };
                let work = self.work.get_mut(&profile_id).expect("found above");
                if let Phase::Handed { .. } = work.phase {
                    work.held = Some(held);
                    self.refresh_wait(cx, &profile_id);
                }
            }
            TaskNote::PromptReturned { task_id, lines } => {
                let Some(profile_id) = self.profile_working_on(&task_id) else { return };
                let Ok(task) = task_of(cx, &task_id) else { return };
                if self.work.get(&profile_id).is_some_and(|w| w.iteration.is_none()) {
                    return self.prompt_returned(cx, &profile_id, task, &lines);
                }
                let printed = super::loops::last_lines(&lines, &task.spec.instruction);
                self.end_iteration(cx, &profile_id, printed);
            }
            TaskNote::GoOn { task_id, dialog } => {
                if let Some(profile_id) = self.profile_working_on(&task_id) {
                    self.type_go_on(cx, &profile_id, dialog);
                }
            }
            TaskNote::SettingUp { profile_id, task_id, command } => {
                if self.preparing.get(&profile_id).is_some_and(|p| p.task_id == task_id)
                    && super::set_wait(cx, &task_id, Some(switchboard_api::WaitingFor::WorktreeSetup { command }))
                    && let Ok(task) = task_of(cx, &task_id)
                {
                    super::report_task(cx, task);
                }
            }
            TaskNote::Prepared { profile_id, task_id, readied } => {
                let Readied { made, setup } = *readied;
                self.prepared(cx, &profile_id, &task_id, made, setup)
            }
        }
    }

    /// The agent at work in `session_id` reported completion.
    pub fn report_arrived(&mut self, cx: &mut Ctx, session_id: &SessionId, report: Report) {
        let Some(profile_id) = self.working_in(session_id) else { return };
        self.work.get_mut(&profile_id).expect("found above").report = Some(report);
        self.settle(cx, &profile_id);
    }

    /// The lead's team is done: a task it held may complete now.
    pub fn team_settled(&mut self, cx: &mut Ctx, lead: &SessionId) {
        let profile = self.work.iter().find(|(_, w)| &w.session_id == lead).map(|(p, _)| p.clone());
        if let Some(profile) = profile {
            self.settle(cx, &profile);
        }
    }

    /// The agent in `session` ended its turn in an error: the task it works
    /// on fails with it, whatever its team does (the gate's Error, then
    /// Complete).
    /// The agent's turn in `session` ended in an error: a refusal the app
    /// waits out (`refusal`: a usage limit, an overloaded model, the
    /// account's owner to act) holds its task (see `limits`); any other
    /// fails it.
    pub fn turn_failed(
        &mut self,
        cx: &mut Ctx,
        session: &SessionId,
        error: &str,
        refusal: Option<switchboard_protocol::limit::Refusal>,
        usage: &[switchboard_protocol::rollout::UsageWindow],
    ) {
        if let Some(refusal) = refusal
            && self.refused(cx, session, refusal, usage)
        {
            return;
        }
        let Some(profile_id) = self.working_in(session) else { return };
        let reason = format!("the agent's turn ended in an error: {error}");
        self.begin_fallback(cx, &profile_id, TaskState::Failed, reason, false);
    }

    /// When the next time limit passes.
    pub fn next_deadline(&self, cx: &Ctx) -> Option<Instant> {
        let limits = self.next_limit_wake(cx);
        self.work
            .values()
            .filter_map(Work::deadline)
            .chain(self.start_retries.values().copied())
            .chain(self.closing.values().copied())
            .chain(limits)
            .min()
    }

    pub fn on_deadline(&mut self, cx: &mut Ctx, now: Instant) {
        // An agent that began to wait for the user since the last look has
        // its limit paused, not run out.
        self.check_waiting(cx, switchboard_api::now(), now);
        let expired: Vec<ProfileId> =
            self.work.iter().filter(|(_, w)| w.deadline().is_some_and(|d| d <= now)).map(|(p, _)| p.clone()).collect();
        for profile_id in expired {
            let work = self.work.get(&profile_id).expect("listed above");
            let typed = matches!(work.phase, Phase::Typed { .. });
            let reason = rules::deadline_reason(typed, work.time_limit, cx.task_waits.get(&work.task_id));
            self.begin_fallback(cx, &profile_id, TaskState::TimedOut, reason, true);
        }
        self.retry_starts(cx, now);
        self.on_limit_wake(cx, now);
        self.close_idle_sessions(cx, now);
    }

    /// Ends the worktree sessions whose task ended a grace ago and which no
    /// task took since: one agent, one live session (a later task in that
    /// worktree resumes its conversation, see `carry`).
    fn close_idle_sessions(&mut self, cx: &mut Ctx, now: Instant) {
        let due: Vec<SessionId> = self.closing.iter().filter(|(_, at)| **at <= now).map(|(s, _)| s.clone()).collect();
        for session in due {
            self.closing.remove(&session);
            if self.working_in(&session).is_none() && !cx.delegate_at_work(&session) {
                super::loops::end_session(cx, &session);
            }
        }
    }

    /// A task that ran in a worktree's session ended: that session ends
    /// after [`super::carry::WORKTREE_SESSION_GRACE`] unless a task takes it.
    fn close_after_grace(&mut self, cx: &Ctx, task: &TaskInfo) {
        let Some(session) = task.session_id() else { return };
        if task.spec.loop_iteration.is_none()
            && cx.sessions.is_running(session)
            && cx.sessions.get(session).is_some_and(|entry| entry.info.workspace.is_some())
        {
            self.closing.insert(session.clone(), Instant::now() + super::carry::WORKTREE_SESSION_GRACE);
        }
    }

    /// The agent in `session` ended its turn (its Stop hook): a loop
    /// iteration it ran ends here, its last message the stop reason, and its
    /// session is ended (the next iteration is a fresh one).
    pub fn turn_ended(&mut self, cx: &mut Ctx, session: &SessionId, last_message: Option<&str>) {
        let Some(profile_id) = self.working_in(session) else { return };
        self.end_iteration(cx, &profile_id, last_message.unwrap_or_default().to_owned());
    }

    /// The task of an agent done when its prompt comes back is done: it
    /// completes, its result made from its screen and the files it changed
    /// (a prompt says nothing of how the command went); its session goes on
    /// and its queue moves.
    fn prompt_returned(&mut self, cx: &mut Ctx, profile_id: &ProfileId, task: TaskInfo, lines: &[String]) {
        let Some(work) = self.work.get(profile_id) else { return };
        if !matches!(work.phase, Phase::Typed { .. }) {
            return;
        }
        let work = self.work.remove(profile_id).expect("found above");
        self.unwatch(&work.workspace);
        let started_at = task.run().map(|run| run.started_at);
        let since = started_at.map_or(UNIX_EPOCH, |ms| UNIX_EPOCH + Duration::from_millis(ms as u64));
        // File times have coarse resolution on some file systems.
        let since = since.checked_sub(Duration::from_secs(1)).unwrap_or(since);
        let changed = artifacts::changed_files(&work.workspace, since);
        let text =
            artifacts::fallback_summary(&task.id, &task.spec.instruction, "its prompt came back", &changed, lines);
        let result = artifacts::collect_result(&work.workspace, &task.id, text, true);
        self.finish(cx, task, TaskState::Completed, None, Some(result));
        self.pump(cx, profile_id);
    }

    /// The loop iteration the profile's agent runs ended (its turn, or its
    /// return to its prompt) for `reason`: its task completes, its session is
    /// ended (the next iteration is a fresh one), and the loop judges it.
    fn end_iteration(&mut self, cx: &mut Ctx, profile_id: &ProfileId, reason: String) {
        let Some(work) = self.work.get(profile_id) else { return };
        let (Some(iteration), Phase::Typed { .. }) = (work.iteration.clone(), work.phase) else { return };
        let work = self.work.remove(profile_id).expect("found above");
        let session = work.session_id.clone();
        self.unwatch(&work.workspace);
        // An iteration whose agent said (in a summary or a completion
        // report) that it failed is a failed iteration: its task fails, and
        // its failure is its stop reason, which the loop weighs (the same
        // failure again and again stalls the loop) rather than counting a
        // plain turn's end.
        let failed = work.said_failed();
        let stop_reason = failed.clone().unwrap_or(reason);
        if let Ok(task) = task_of(cx, &work.task_id) {
            let text = iteration_summary(&task, &stop_reason);
            let result = artifacts::collect_result(&work.workspace, &work.task_id, text, true);
            let state = if failed.is_some() { TaskState::Failed } else { TaskState::Completed };
            self.finish(cx, task, state, failed, Some(result));
        }
        super::loops::end_session(cx, &session);
        cx.follow(Follow::IterationEnded { iteration, stop_reason });
        self.pump(cx, profile_id);
    }

    /// Records a task's end, reports it, and logs what was refused.
    pub(super) fn finish(
        &mut self,
        cx: &mut Ctx,
        mut task: TaskInfo,
        state: TaskState,
        reason: Option<String>,
        result: Option<TaskResult>,
    ) -> TaskInfo {
        if let Some(result) = &result {
            for rejected in &result.rejected {
                let kind =
                    LogKind::DeliverableRejected { path: rejected.path.clone(), reason: rejected.reason.clone() };
                log_task(cx, &task, kind);
            }
        }
        task.end(state, now(), reason.clone(), result);
        cx.task_waits.remove(&task.id);
        save_and_report(cx, &task);
        self.close_after_grace(cx, &task);
        log_task(cx, &task, LogKind::TaskEnded { state, reason });
        cx.follow(super::super::context::Follow::TaskEnded {
            task: task.id.clone(),
            profile: task.spec.profile_id.clone(),
            state,
        });
        cx.follow(super::super::context::Follow::WorktreeTaskEnded {
            owner: super::super::isolation::worktree_key(&task),
        });
        if state == TaskState::Completed
            && let Some(session_id) = task.session_id().cloned()
        {
            status::task_done(cx, &session_id);
        }
        task
    }

    /// Tasks recorded as running belong to a run of the app that ended
    /// while they worked: complete those whose summary has appeared since,
    /// put those never typed to their agent back at the front of the queue,
    /// mark the others interrupted (the user can put them back in the queue).
    pub fn recover(&mut self, cx: &mut Ctx) -> Result<(), EngineError> {
        for task in cx.store.active_tasks(None)?.into_iter().filter(|t| t.state() == TaskState::Running) {
            let workspace = cx
                .store
                .get_profile(&task.spec.profile_id)?
                .and_then(|profile| super::super::isolation::workspace_of_task(cx, &profile, &task));
            let summary = workspace
                .as_ref()
                .and_then(|ws| artifacts::read_summary(ws, &task.id, SUMMARY_CAP_BYTES).ok().map(|text| (ws, text)));
            match rules::after_restart(summary.is_some(), task.typed_at().is_some()) {
                rules::AfterRestart::Complete => {
                    let (workspace, text) = summary.expect("complete only with a summary");
                    // A summary saying it failed fails the task, as it would have live.
                    let said = completion::Stated::summary(&text);
                    let (state, reason) = match completion::decide(CompletionRule::Summary, Some(&said), None) {
                        Decision::Fail(why) => (TaskState::Failed, Some(why)),
                        Decision::Wait | Decision::Complete => (TaskState::Completed, None),
                    };
                    let result = artifacts::collect_result(workspace, &task.id, text, false);
                    self.finish(cx, task, state, reason, Some(result));
                }
                rules::AfterRestart::Requeue => requeue_at_front(cx, &task.id, true)?,
                rules::AfterRestart::Interrupt { reason } => {
                    self.finish(cx, task, TaskState::Interrupted, Some(reason.into()), None);
                }
            }
        }
        Ok(())
    }

    fn profile_working_on(&self, task_id: &TaskId) -> Option<ProfileId> {
        self.work.iter().find(|(_, w)| &w.task_id == task_id).map(|(p, _)| p.clone())
    }

    /// The profile whose task at work runs in the session, unless its end
    /// is already decided.
    pub(super) fn working_in(&self, session_id: &SessionId) -> Option<ProfileId> {
        self.work.iter().find(|(_, w)| &w.session_id == session_id && !w.ending()).map(|(p, _)| p.clone())
    }
}

impl Work {
    /// What the summary and the report that arrived say of the task's end,
    /// by its agent's completion rule.
    fn decision(&self) -> Decision {
        let summary = self.summary.as_deref().map(completion::Stated::summary);
        let report =
            self.report.as_ref().map(|r| completion::Stated::report(&r.status, &r.metrics, &r.recommendations));
        completion::decide(self.rule, summary.as_ref(), report.as_ref())
    }

    /// Why the agent says its work failed, if its summary or its report
    /// (whichever arrived, whatever the rule) says so.
    fn said_failed(&self) -> Option<String> {
        let summary = self.summary.as_deref().map(completion::Stated::summary);
        let report =
            self.report.as_ref().map(|r| completion::Stated::report(&r.status, &r.metrics, &r.recommendations));
        [(CompletionRule::Summary, summary.as_ref(), None), (CompletionRule::Report, None, report.as_ref())]
            .into_iter()
            .find_map(|(rule, summary, report)| match completion::decide(rule, summary, report) {
                Decision::Fail(why) => Some(why),
                Decision::Wait | Decision::Complete => None,
            })
    }
}

/// The result text of a loop iteration: its prompt and how it stopped.
fn iteration_summary(task: &TaskInfo, stop_reason: &str) -> String {
    let number = task.spec.loop_iteration.as_ref().map_or(0, |i| i.number);
    format!("# Loop iteration {number}\n\n## Stop reason\n\n{}\n", stop_reason.trim())
}

/// Puts a task back at the front of its queue (the app stopped before
/// typing it, or its agent is restarting), saying so in its timeline.
pub(super) fn requeue_at_front(cx: &mut Ctx, task_id: &TaskId, app_stopped: bool) -> Result<(), EngineError> {
    let mut task = task_of(cx, task_id)?;
    task.requeue(cx.store.queue_bound(&task.spec.profile_id, false)?);
    cx.task_waits.remove(task_id);
    cx.store.save_task(&task)?;
    log_task(cx, &task, LogKind::TaskRequeued { app_stopped });
    super::report_task(cx, task);
    Ok(())
}

pub(super) fn save_and_report(cx: &mut Ctx, task: &TaskInfo) {
    // A store that cannot record the change (a full disk) must not hide it:
    // the task is shown and answered as it is, and recorded once the store
    // can write again (see `TaskDesk::retry_unsaved`).
    match cx.store.save_task(task) {
        Ok(()) => {
            cx.unsaved_tasks.remove(&task.id);
        }
        Err(error) => {
            tracing::error!(task = %task.id, %error, "recording a task failed; it is kept until the store can write");
            cx.unsaved_tasks.insert(task.id.clone(), task.clone());
        }
    }
    super::report_task(cx, task.clone());
}

pub(super) fn summary_file(workspace: &Path, task: &TaskId) -> PathBuf {
    workspace.join(SUMMARIES_DIR).join(format!("{task}.md"))
}
