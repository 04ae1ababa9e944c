//! A task's session ends under it: the task ends as the rules say, with a summary from its screen if it left none.

use super::{SUMMARY_CAP_BYTES, TaskNote, iteration_summary, requeue_at_front};
use crate::engine::context::{Ctx, Follow};
use crate::engine::tasks::rules::{self, SessionEndOutcome};
use crate::engine::tasks::{Phase, TaskDesk, interrupt, task_of};
use crate::error::{EngineError, Responder};
use crate::session::Control;
use crate::tasks::artifacts::{self, FALLBACK_SCREEN_LINES};
use std::time::{Duration, UNIX_EPOCH};
use switchboard_api::now;
use switchboard_api::{SessionState, TaskState};
use switchboard_protocol::{ProfileId, SessionId, TaskId};

impl TaskDesk {
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

    pub(super) fn session_ended(&mut self, cx: &mut Ctx, session_id: &SessionId, killed: bool, exit: &SessionState) {
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

    pub(super) fn task_session_ended(
        &mut self,
        cx: &mut Ctx,
        session_id: &SessionId,
        killed: bool,
        exit: &SessionState,
    ) {
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
                Ok(()) => crate::engine::tasks::report_queued(cx, &profile_id),
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
    pub(super) fn begin_fallback(
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

    pub(super) fn end_with_fallback(
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
            let printed = crate::engine::tasks::loops::last_lines(&lines, &task.spec.instruction);
            if work.typed_at.is_none() {
                // Its agent ended (or never became ready) before the prompt was
                // typed: a failed start, not an iteration. The loop retries later.
                let failed = format!("the agent ended before its loop iteration was typed: {reason}");
                let session = work.session_id.clone();
                self.finish(cx, task, TaskState::Failed, Some(failed), None);
                crate::engine::tasks::loops::end_session(cx, &session);
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
            crate::engine::tasks::loops::end_session(cx, &session);
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
}
