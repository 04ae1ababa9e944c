//! The quiet watch: a task typed into its agent whose agent then shows no
//! output and no hook event for longer than its quiet alert, while nothing
//! excuses it (a question for the user, teammates at work), is flagged as
//! possibly stuck; the flag clears when the agent shows life again. The
//! decision is `rules::quiet_since`.
//!
//! A task taken from the queue but not typed yet is watched the same way,
//! from when it was handed to its agent, with a shorter alert
//! (`rules::wait_alert_secs`): a wait that nothing moves (a prompt its ready
//! pattern does not see, say) is flagged like a quiet agent.
//!
//! The same watch notes when a task's agent waits for the user (a question,
//! a blocker or a decision of its waits, or its hooks say it asks): its time
//! limit is paused while it waits (`rules::waits_on_user`), and the task says
//! since when, so the window shows it as needing the user, not as busy.

use super::ending::save_and_report;
use switchboard_protocol::hook::AgentStatus;
use tokio::time::Instant;

use super::rules::{QuietWatch, quiet_since, wait_alert_secs, waits_on_user};
use super::{Phase, TaskDesk, log_task, set_wait, task_of, wait_of};
use crate::engine::context::Ctx;
use switchboard_api::{LogKind, Millis};

impl TaskDesk {
    /// Looks at every task typed into its agent; flags or clears each whose
    /// quiet changed.
    pub fn check_quiet(&mut self, cx: &mut Ctx, now: Millis) {
        let mut changed = Vec::new();
        for (profile_id, work) in &mut self.work {
            // Refused by its model: it waits for that, not for itself.
            if work.paused.is_some() {
                continue;
            }
            let Ok(profile) = cx.profile(profile_id) else { continue };
            let (typed_at, alert_after_secs) = match (work.phase, work.typed_at) {
                (Phase::Typed { .. }, Some(typed_at)) => (typed_at, profile.spec.quiet_alert_secs),
                (Phase::Handed { .. }, _) => (work.handed_at, wait_alert_secs(profile.spec.quiet_alert_secs)),
                _ => continue,
            };
            let Some(entry) = cx.sessions.get(&work.session_id).filter(|e| e.is_running()) else { continue };
            let hooks = entry.hooks.status.as_ref();
            let last_activity = [
                Some(typed_at),
                entry.handle().map(crate::session::SessionHandle::output_at),
                hooks.and_then(|s| s.last_event_at),
            ]
            .into_iter()
            .flatten()
            .max()
            .unwrap_or(typed_at);
            let watch = QuietWatch {
                alert_after_secs,
                last_activity,
                waits_on_user: waits_on_user(
                    !entry.hooks.needs_user.is_empty(),
                    hooks.is_some_and(|s| s.status == AgentStatus::Attention),
                ),
                team_working: entry.team.is_active(),
            };
            let since = quiet_since(watch, now);
            if since != work.quiet_since {
                work.quiet_since = since;
                changed.push((work.task_id.clone(), since, alert_after_secs));
            }
        }
        for (task_id, since, alert_secs) in changed {
            let Ok(mut task) = task_of(cx, &task_id) else { continue };
            task.set_quiet_since(since);
            save_and_report(cx, &task);
            log_task(cx, &task, LogKind::TaskQuiet { quiet: since.is_some(), alert_secs });
        }
        self.check_waiting(cx, now, Instant::now());
    }

    /// Pauses the time limit of each task whose agent began to wait for the
    /// user, and starts it again (pushed back by the wait) once it no longer
    /// waits; each change is saved, reported and in the task's timeline.
    pub fn check_waiting(&mut self, cx: &mut Ctx, now: Millis, instant: Instant) {
        let mut changed = Vec::new();
        for (profile_id, work) in self.work.iter_mut() {
            if work.ending() {
                continue;
            }
            let waits = cx.sessions.get(&work.session_id).is_some_and(|entry| {
                waits_on_user(
                    !entry.hooks.needs_user.is_empty(),
                    entry.hooks.status.as_ref().is_some_and(|s| s.status == AgentStatus::Attention),
                )
            });
            match (work.waiting, waits) {
                (None, true) => {
                    work.waiting = Some((now, instant));
                    changed.push((work.task_id.clone(), Some(now), wait_of(cx, profile_id, work)));
                }
                (Some((_, began)), false) => {
                    work.waiting = None;
                    work.postpone(instant.saturating_duration_since(began));
                    changed.push((work.task_id.clone(), None, wait_of(cx, profile_id, work)));
                }
                _ => {}
            }
        }
        for (task_id, since, cause) in changed {
            // Reported once, below, with the wait it is now.
            set_wait(cx, &task_id, cause);
            let Ok(mut task) = task_of(cx, &task_id) else { continue };
            task.set_waiting(since, now);
            save_and_report(cx, &task);
            log_task(cx, &task, LogKind::TaskWaiting { waiting: since.is_some() });
        }
    }
}
