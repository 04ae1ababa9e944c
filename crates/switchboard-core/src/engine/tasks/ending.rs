//! How the task at work ends: its summary arrives (watch event or rescan),
//! its completion report arrives, its time runs out, its session ends, or
//! it is cancelled; and the recovery of tasks a crash cut short.

use std::path::{Path, PathBuf};
use std::time::{Duration, UNIX_EPOCH};

use switchboard_protocol::summary::{STATUS_FILE, SUMMARIES_DIR, summary_path};
use switchboard_protocol::{ProfileId, SessionId, TaskId};
use tokio::time::Instant;

use super::rules::{self, SessionEndOutcome};
use super::{Phase, TaskDesk, Work, interrupt, log_task, task_of};
use crate::engine::context::{Ctx, Follow, Report};
use crate::engine::status;
use crate::error::{EngineError, Responder};
use crate::session::Control;
use crate::tasks::artifacts::{self, FALLBACK_SCREEN_LINES};
use crate::tasks::completion::{self, Decision};
use crate::tasks::watch::WatchEvent;
use switchboard_api::now;
use switchboard_api::{CompletionRule, LogKind, SessionState, TaskInfo, TaskResult, TaskState};

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

    pub fn on_watch_event(&mut self, cx: &mut Ctx, event: WatchEvent) {
        match event {
            WatchEvent::Summary { workspace, name } => {
                let done: Vec<ProfileId> = self
                    .work
                    .iter()
                    .filter(|(_, w)| w.workspace == workspace && name == format!("{}.md", w.task_id))
                    .map(|(p, _)| p.clone())
                    .collect();
                for profile_id in done {
                    self.complete(cx, &profile_id);
                }
            }
            WatchEvent::SideFile { workspace, name } if name == STATUS_FILE => self.refresh_progress(cx, &workspace),
            WatchEvent::SideFile { .. } => {}
            WatchEvent::SummariesCreated { workspace } => {
                if let Some((watch, _)) = self.watches.get_mut(&workspace) {
                    watch.watch_summaries();
                }
                self.rescan(cx, &workspace);
            }
            WatchEvent::Rescan { workspace } => self.rescan(cx, &workspace),
            WatchEvent::WorkspaceGone { workspace } => self.workspace_deleted(cx, &workspace),
        }
    }

    /// Looks whether the workspaces of loop iterations at work are still
    /// there (each second, with the quiet watch): a folder deleted while an
    /// agent's working directory is in it sends its watch nothing until the
    /// agent lets go of it.
    pub fn check_workspaces(&mut self, cx: &mut Ctx) {
        let gone: Vec<PathBuf> = self
            .work
            .values()
            .filter(|w| w.iteration.is_some() && !w.ending() && !w.workspace.is_dir())
            .map(|w| w.workspace.clone())
            .collect();
        for workspace in gone {
            self.workspace_deleted(cx, &workspace);
        }
    }

    /// The workspace was deleted under its agents: a loop's iteration there
    /// ends now (its loop then stops, saying its folder is gone) rather than
    /// run on in a folder that is no more. A plain task is left to its agent
    /// (the user may put the folder back): it ends with it or with its limit.
    fn workspace_deleted(&mut self, cx: &mut Ctx, workspace: &Path) {
        let iterations: Vec<ProfileId> = self
            .work
            .iter()
            .filter(|(_, w)| w.workspace == workspace && w.iteration.is_some() && !w.ending())
            .map(|(p, _)| p.clone())
            .collect();
        for profile_id in iterations {
            let reason = format!("its folder {} is gone", workspace.display());
            self.begin_fallback(cx, &profile_id, TaskState::Failed, reason, true);
        }
    }

    /// Looks at the files themselves: a summary that exists is read once it
    /// has stopped changing.
    fn rescan(&mut self, cx: &mut Ctx, workspace: &Path) {
        self.refresh_progress(cx, workspace);
        while self.settlers.try_join_next().is_some() {}
        for work in self.work.values_mut().filter(|w| w.workspace == workspace && !w.ending()) {
            let path = summary_file(workspace, &work.task_id);
            if !path.exists() {
                continue;
            }
            let notes = self.notes.clone();
            let task_id = work.task_id.clone();
            let settling = self.settlers.spawn(async move {
                let fingerprint = |path: &Path| std::fs::metadata(path).ok().map(|m| (m.len(), m.modified().ok()));
                let mut seen = fingerprint(&path);
                loop {
                    tokio::time::sleep(SETTLE_TIME).await;
                    let now = fingerprint(&path);
                    if now.is_none() {
                        return;
                    }
                    if now == seen {
                        notes.send(TaskNote::Settled { task_id }).ok();
                        return;
                    }
                    seen = now;
                }
            });
            if let Some(earlier) = work.settling.replace(settling) {
                earlier.abort();
            }
        }
    }

    /// STATUS.txt is the progress of the one task at work in its folder, once
    /// written since that task was handed: a file an earlier task left, or one
    /// of two agents working in one folder wrote, is nobody's.
    fn refresh_progress(&mut self, cx: &mut Ctx, workspace: &Path) {
        let mut working = self.work.values().filter(|w| w.workspace == workspace);
        let (Some(work), None) = (working.next(), working.next()) else { return };
        if work.status_before.is_some() && super::status_stamp(workspace) == work.status_before {
            return;
        }
        let Some(progress) = artifacts::read_progress(workspace) else { return };
        if let Ok(mut task) = task_of(cx, &work.task_id)
            && task.progress() != Some(progress.as_str())
        {
            task.set_progress(Some(progress));
            save_and_report(cx, &task);
        }
    }

    /// The summary of the profile's task is complete: read it, and finish
    /// the task if its completion rule is met.
    fn complete(&mut self, cx: &mut Ctx, profile_id: &ProfileId) {
        let Some(work) = self.work.get_mut(profile_id) else { return };
        let path = summary_file(&work.workspace, &work.task_id);
        match artifacts::read_summary(&work.workspace, &work.task_id, SUMMARY_CAP_BYTES) {
            Ok(text) => work.summary = Some(text),
            Err(error) => {
                // The agent put something else there (a symlink out of the
                // workspace, a FIFO): refused and said on the task's
                // timeline; the task waits for a proper summary or its end.
                tracing::warn!(path = %path.display(), %error, "a summary could not be read");
                let task_id = work.task_id.clone();
                if let Ok(task) = task_of(cx, &task_id) {
                    let listed = summary_path(&task_id);
                    log_task(cx, &task, LogKind::DeliverableRejected { path: listed, reason: error.to_string() });
                }
                return;
            }
        }
        self.settle(cx, profile_id);
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

    /// Finishes the profile's task if what has arrived meets its rule: the
    /// result is the summary file, or one made from the report.
    fn settle(&mut self, cx: &mut Ctx, profile_id: &ProfileId) {
        let Some(work) = self.work.get(profile_id) else { return };
        // A loop iteration ends with its turn, whatever it wrote before
        // (what it said is weighed then: see `end_iteration`).
        if work.iteration.is_some() {
            return;
        }
        let decision = work.decision();
        let (state, reason) = match decision {
            Decision::Wait => return,
            // Teammates still at work: the lead's task stays open until
            // they are done (its summary is kept), and says so.
            Decision::Complete | Decision::Fail(_) if status::team_active(&cx.sessions, &work.session_id) => {
                self.work.get_mut(profile_id).expect("checked above").held_for_team = true;
                self.refresh_wait(cx, profile_id);
                return;
            }
            Decision::Complete => (TaskState::Completed, None),
            Decision::Fail(reason) => (TaskState::Failed, Some(reason)),
        };
        let mut work = self.work.remove(profile_id).expect("checked above");
        if let Phase::Handed { .. } = work.phase {
            cx.sessions.send(&work.session_id, Control::CancelType(work.task_id.to_string()));
        }
        self.unwatch(&work.workspace);
        if let Ok(task) = task_of(cx, &work.task_id) {
            let text = match (work.summary.take(), &work.report) {
                (Some(text), _) => text,
                (None, Some(report)) => completion::summary_from_report(
                    &task.spec.instruction,
                    &report.status,
                    &report.deliverables,
                    &report.metrics,
                    &report.recommendations,
                ),
                (None, None) => unreachable!("a decision to complete needs the summary or the report"),
            };
            let result = artifacts::collect_result(&work.workspace, &work.task_id, text, false);
            self.finish(cx, task, state, reason, Some(result));
        }
        self.pump(cx, profile_id);
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

    /// A session ended; a task it worked on ends with it.
    pub fn on_session_end(&mut self, cx: &mut Ctx, session_id: &SessionId, killed: bool, exit: &SessionState) {
        let profile = cx
            .sessions
            .get(session_id)
            .map(|entry| entry.info.profile_id.clone())
            .or_else(|| cx.store.get_session(session_id).ok().flatten().map(|session| session.profile_id));
        self.session_ended(cx, session_id, killed, exit);
        // The agent's current session may have been this one.
        if let Some(profile) = profile {
            self.sessions_changed(cx, &profile);
        }
    }

    fn session_ended(&mut self, cx: &mut Ctx, session_id: &SessionId, killed: bool, exit: &SessionState) {
        // A restarted session has ended: its agent's queue runs again, into the new one.
        let restarted: Vec<ProfileId> =
            self.restarting.iter().filter(|(_, s)| *s == session_id).map(|(p, _)| p.clone()).collect();
        for profile_id in &restarted {
            self.restarting.remove(profile_id);
        }
        self.task_session_ended(cx, session_id, killed, exit);
        for profile_id in restarted {
            self.pump(cx, &profile_id);
        }
    }

    fn task_session_ended(&mut self, cx: &mut Ctx, session_id: &SessionId, killed: bool, exit: &SessionState) {
        let Some(profile_id) = self.working_in(session_id) else { return };
        // A loop iteration whose process ended ends normally: its last lines
        // are its stop reason (unless the app is quitting: then it was cut short).
        // One that ended before its prompt was typed is a failed start (see
        // `end_with_fallback`): how it ended is said.
        if !self.quitting
            && let Some(work) = self.work.get(&profile_id).filter(|w| w.iteration.is_some())
        {
            let (state, how) = match exit {
                _ if work.typed_at.is_none() => (TaskState::Failed, rules::exit_in_words(exit, killed)),
                SessionState::Killed { .. } if killed => (TaskState::Completed, "its session was stopped".to_owned()),
                _ => (TaskState::Completed, "its process ended".to_owned()),
            };
            self.begin_fallback(cx, &profile_id, state, how, false);
            return;
        }
        let typed = self.work.get(&profile_id).is_some_and(|work| !matches!(work.phase, Phase::Handed { .. }));
        let SessionEndOutcome { state, reason, fallback, pause_queue } =
            rules::on_session_end(self.quitting, typed, killed, exit);
        if pause_queue {
            let task_id = self.work.get(&profile_id).expect("found above").task_id.clone();
            let pause = switchboard_api::QueuePause::AgentStopped { at: now(), task_id };
            match cx.store.set_queue_paused(&profile_id, Some(&pause)) {
                Ok(()) => super::report_queued(cx, &profile_id),
                Err(error) => tracing::error!(%error, "pausing a queue failed"),
            }
        }
        if state == TaskState::Queued {
            let work = self.work.remove(&profile_id).expect("found above");
            self.unwatch(&work.workspace);
            if let Err(error) = requeue_at_front(cx, &work.task_id, true) {
                tracing::error!(task = %work.task_id, %error, "putting a task back in its queue failed");
            }
        } else if fallback {
            self.begin_fallback(cx, &profile_id, state, reason, false);
        } else {
            let work = self.work.remove(&profile_id).expect("found above");
            self.unwatch(&work.workspace);
            if let Ok(task) = task_of(cx, &work.task_id) {
                self.finish(cx, task, state, Some(reason), None);
            }
        }
    }

    /// Decides the task's end and gathers the screen for its fallback
    /// summary; the end is recorded when the screen arrives.
    fn begin_fallback(
        &mut self,
        cx: &Ctx,
        profile_id: &ProfileId,
        state: TaskState,
        reason: String,
        interrupt_agent: bool,
    ) {
        let Some(work) = self.work.get_mut(profile_id) else { return };
        if interrupt_agent {
            interrupt(cx, work, profile_id);
        }
        work.phase = Phase::Ending;
        let (task_id, session_id) = (work.task_id.clone(), work.session_id.clone());
        let notes = self.notes.clone();
        // Without a screen (the session's actor is gone) the fallback is
        // built from the files alone.
        let reply = Responder::new(move |snapshot: Result<switchboard_api::ScreenSnapshot, EngineError>| {
            let lines = snapshot.map(|s| s.recent_lines).unwrap_or_default();
            notes.send(TaskNote::Screen { task_id, state, reason, lines }).ok();
        });
        cx.sessions.send(&session_id, Control::Snapshot(FALLBACK_SCREEN_LINES, reply));
    }

    fn end_with_fallback(
        &mut self,
        cx: &mut Ctx,
        task_id: &TaskId,
        state: TaskState,
        reason: String,
        lines: Vec<String>,
    ) {
        let Some(profile_id) = self.profile_working_on(task_id) else { return };
        let mut work = self.work.remove(&profile_id).expect("found above");
        self.unwatch(&work.workspace);
        let Ok(task) = task_of(cx, task_id) else { return };
        if let Some(iteration) = work.iteration.take() {
            let printed = super::loops::last_lines(&lines, &task.spec.instruction);
            if work.typed_at.is_none() {
                // Its agent ended (or never became ready) before the prompt was
                // typed: a failed start, not an iteration. The loop retries later.
                let failed = format!("the agent ended before its loop iteration was typed: {reason}");
                let session = work.session_id.clone();
                self.finish(cx, task, TaskState::Failed, Some(failed), None);
                super::loops::end_session(cx, &session);
                let said = switchboard_api::kept_stop_reason(printed.trim());
                cx.follow(Follow::IterationFailedToStart { iteration, task: task_id.clone(), exit: reason, said });
                self.pump(cx, &profile_id);
                return;
            }
            // A loop iteration: what it printed last is its stop reason,
            // unless it said it failed (as in `end_iteration`).
            let said_failed = work.said_failed().filter(|_| state == TaskState::Completed);
            let (state, reason, stop_reason) = match said_failed {
                Some(why) => (TaskState::Failed, Some(why.clone()), why),
                None if printed.is_empty() => (state, (state != TaskState::Completed).then(|| reason.clone()), reason),
                None => (state, (state != TaskState::Completed).then_some(reason), printed),
            };
            let text = iteration_summary(&task, &stop_reason);
            let result = artifacts::collect_result(&work.workspace, task_id, text, true);
            let session = work.session_id.clone();
            self.finish(cx, task, state, reason, Some(result));
            super::loops::end_session(cx, &session);
            cx.follow(Follow::IterationEnded { iteration, stop_reason });
            self.pump(cx, &profile_id);
            return;
        }
        // The summary may have landed while the screen was fetched (it is
        // the result then, even when the rule also wanted a report).
        let summary =
            work.summary.take().or_else(|| artifacts::read_summary(&work.workspace, task_id, SUMMARY_CAP_BYTES).ok());
        let result = if let Some(text) = summary {
            artifacts::collect_result(&work.workspace, task_id, text, false)
        } else {
            let started_at = task.run().map(|run| run.started_at);
            let since = started_at.map_or(UNIX_EPOCH, |ms| UNIX_EPOCH + Duration::from_millis(ms as u64));
            // File times have coarse resolution on some file systems.
            let since = since.checked_sub(Duration::from_secs(1)).unwrap_or(since);
            let changed = artifacts::changed_files(&work.workspace, since);
            let text = artifacts::fallback_summary(task_id, &task.spec.instruction, &reason, &changed, &lines);
            artifacts::collect_result(&work.workspace, task_id, text, true)
        };
        self.finish(cx, task, state, Some(reason), Some(result));
        self.pump(cx, &profile_id);
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
