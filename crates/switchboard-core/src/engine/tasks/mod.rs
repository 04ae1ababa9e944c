//! The task desk: the task queues and the file completion protocol.
//!
//! Each profile has a durable queue (the `tasks` table) and at most one task
//! at work. Taking a task: write its context files, watch the workspace, ask
//! the session actor to type the prompt once the agent is ready. The task
//! ends when its summary file is complete (watch event), when its time runs
//! out, when the agent exits, or when the user cancels it; then the queue
//! moves on. Every state change is stored before it is reported.

pub(crate) mod carry;
mod ending;
mod handing;
pub(crate) mod limits;
mod loops;
mod queues;
mod quiet;
pub(crate) mod rules;
mod spent;
#[cfg(test)]
mod tests;
mod turns;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use switchboard_protocol::{ProfileId, SessionId, TaskId, TermSize};
use tokio::sync::mpsc;
use tokio::task::{AbortHandle, JoinSet};
use tokio::time::Instant;

use super::context::{Ctx, Report};
use crate::engine::sessions::EndWaiter;
use crate::error::{EngineError, Responder};
use crate::session::Control;
use crate::session::typing::Held;
use crate::sink::LogAbout;
use crate::tasks::queue::Queued;
use crate::tasks::watch::{WatchEvent, WorkspaceWatch};
pub use ending::TaskNote;
use ending::requeue_at_front;
pub(crate) use spent::unpriced_budget;
use switchboard_api::now;
use switchboard_api::{
    CompletionRule, EngineEvent, LogKind, QueuePause, QueueStatus, RestartTask, SessionInfo, TaskInfo, TaskState,
    WaitingFor,
};

/// What readies a task's worktree before it starts.
enum Preparation {
    /// Make it, then run the repository's setup command there, if any.
    Make(Box<super::isolation::Plan>),
    /// It is made; its setup command is still to run.
    Setup { path: PathBuf, command: String },
}

/// A task whose new worktree is made or set up before it starts.
struct Preparing {
    task_id: TaskId,
    job: AbortHandle,
}

impl Drop for Preparing {
    fn drop(&mut self) {
        // Cancelled, or the app quits: the command's processes end with it.
        self.job.abort();
    }
}

/// Finished tasks returned by a listing.
pub const MAX_LISTED_FINISHED_TASKS: usize = 200;

/// Where the task at work is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Handed to the session actor, which types it once the agent is
    /// ready; it times out if that takes past `deadline`.
    Handed { deadline: Instant },
    /// Typed into the agent; it times out without a summary by `deadline`.
    Typed { deadline: Instant },
    /// Its end is decided; the screen for its fallback summary is on its way.
    Ending,
}

/// The task a profile's agent works on.
/// What tells one writing of STATUS.txt from another: its file, size and
/// time of change (a file system's clock may lag the app's by a few
/// milliseconds, so times alone would not do).
type StatusStamp = (u64, u64, Option<std::time::SystemTime>);

/// STATUS.txt's stamp in `workspace`, if it is there (the link itself, if it is one).
fn status_stamp(workspace: &std::path::Path) -> Option<StatusStamp> {
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::symlink_metadata(workspace.join(switchboard_protocol::summary::STATUS_FILE)).ok()?;
    Some((meta.ino(), meta.len(), meta.modified().ok()))
}

struct Work {
    task_id: TaskId,
    session_id: SessionId,
    /// Canonical.
    workspace: PathBuf,
    time_limit: Duration,
    phase: Phase,
    /// What completes it.
    rule: CompletionRule,
    /// The summary file's text, once complete.
    summary: Option<String>,
    /// The agent's completion report, once seen.
    report: Option<Report>,
    /// Waiting for a summary found by a rescan to stop changing.
    settling: Option<AbortHandle>,
    /// The loop iteration it runs: it ends with its turn or its process,
    /// not with a summary.
    iteration: Option<switchboard_api::LoopIteration>,
    /// When it was typed into the agent.
    typed_at: Option<switchboard_api::Millis>,
    /// Since when its agent has been quiet past its alert (see `quiet`).
    quiet_since: Option<switchboard_api::Millis>,
    /// Since when its agent has waited for the user (see `quiet`): its
    /// deadline is paused meanwhile, and pushed back by the wait after.
    waiting: Option<(switchboard_api::Millis, Instant)>,
    /// When it was handed to the session actor.
    handed_at: switchboard_api::Millis,
    /// STATUS.txt in its folder as it was when the task was handed: another
    /// task's, never shown as this one's progress until it changes.
    status_before: Option<StatusStamp>,
    /// What the session actor last said holds its typing back.
    held: Option<Held>,
    /// Its completion is held while its agent's teammates still work.
    held_for_team: bool,
    /// When its agent's log was last read for a turn that ended unreported,
    /// and the agent's last activity then (see `turns`).
    turn_look: Option<(switchboard_api::Millis, switchboard_api::Millis)>,
    /// The turn of its agent's log that failed and was taken for a refusal
    /// the app waits out: read again (the agent asked to go on has not
    /// begun its next turn yet), it is not a second refusal.
    refused_turn: Option<String>,
    /// Its turn was refused by its agent's model, and since when it waits
    /// (see `limits`): its deadline and quiet alert are paused meanwhile.
    paused: Option<(limits::Paused, Instant)>,
    /// Refusals for an overloaded model in a row.
    overloads: u32,
}

impl Work {
    /// When it times out; none while its agent waits for the user.
    fn deadline(&self) -> Option<Instant> {
        match self.phase {
            _ if self.waiting.is_some() || self.paused.is_some() => None,
            Phase::Handed { deadline } | Phase::Typed { deadline } => Some(deadline),
            Phase::Ending => None,
        }
    }

    /// Its deadline, pushed back by `by`.
    fn postpone(&mut self, by: Duration) {
        if let Phase::Handed { deadline } | Phase::Typed { deadline } = &mut self.phase {
            *deadline += by;
        }
    }

    fn ending(&self) -> bool {
        self.phase == Phase::Ending
    }
}

impl Drop for Work {
    fn drop(&mut self) {
        if let Some(settling) = self.settling.take() {
            settling.abort();
        }
    }
}

pub(crate) struct TaskDesk {
    /// At most one task at work per profile.
    work: HashMap<ProfileId, Work>,
    /// Each watched workspace and how many tasks at work use it.
    watches: HashMap<PathBuf, (WorkspaceWatch, usize)>,
    watch_events: mpsc::UnboundedSender<WatchEvent>,
    /// Helpers (session answers, settle checks) report here.
    notes: mpsc::UnboundedSender<TaskNote>,
    /// The settle checks of summaries found by rescans; ended with the desk.
    settlers: JoinSet<()>,
    /// The app is quitting: no task starts, and tasks cut short are
    /// interrupted rather than failed.
    quitting: bool,
    /// Loops whose iteration failed to start, and when it is started again
    /// (see `loops`: the waits grow; a restart of the app retries at once).
    start_retries: HashMap<switchboard_protocol::LoopId, Instant>,
    /// Agents whose session is restarting: their queue holds until that
    /// session has ended (the new one then takes the next task).
    restarting: HashMap<ProfileId, SessionId>,
    /// Agents whose session restarts once their task at work has ended,
    /// and at what size.
    restart_after: HashMap<ProfileId, (SessionId, TermSize)>,
    /// Agents whose next task waits for its worktree's setup command.
    preparing: HashMap<ProfileId, Preparing>,
    /// Sessions in a worktree whose task ended, and when they end unless a
    /// task there took them meanwhile ([`carry::WORKTREE_SESSION_GRACE`]).
    closing: HashMap<SessionId, Instant>,
    /// Agents whose queue holds for the rest of their day (their day's
    /// budget used), and when their next day begins.
    held_days: HashMap<ProfileId, switchboard_api::Millis>,
    /// Budgets whose notice share was said (once each).
    budget_told: std::collections::HashSet<ending::Told>,
}

/// When a session asked to restart while a task ran there restarts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BeforeRestart {
    /// Now: the task is out of the session's way.
    Now,
    /// Once the task has ended.
    AfterTask,
}

impl TaskDesk {
    pub fn new(notes: mpsc::UnboundedSender<TaskNote>, watch_events: mpsc::UnboundedSender<WatchEvent>) -> Self {
        TaskDesk {
            work: HashMap::new(),
            watches: HashMap::new(),
            watch_events,
            notes,
            settlers: JoinSet::new(),
            quitting: false,
            start_retries: HashMap::new(),
            restarting: HashMap::new(),
            restart_after: HashMap::new(),
            preparing: HashMap::new(),
            closing: HashMap::new(),
            budget_told: Default::default(),
            held_days: HashMap::new(),
        }
    }

    /// Agents held for their day's budget whose next day began (or whose
    /// budget was raised) take work again.
    pub fn wake_held_days(&mut self, cx: &mut Ctx, profile: Option<&ProfileId>) {
        let now = cx.clock.now();
        let due: Vec<ProfileId> = self
            .held_days
            .iter()
            .filter(|(p, until)| **until <= now || Some(*p) == profile)
            .map(|(p, _)| p.clone())
            .collect();
        for profile in due {
            self.held_days.remove(&profile);
            report_queued(cx, &profile);
            self.pump(cx, &profile);
        }
    }

    /// The app is quitting: start nothing more.
    pub fn quit(&mut self) {
        self.quitting = true;
        self.preparing.clear();
    }

    // ---- commands ----

    // ---- the queue ----

    // ---- restarts ----

    /// The user restarts `session`, where the agent's task at work runs:
    /// carries out what they chose for the task. Now: the task is out of the
    /// way (back at the head of its queue, or cancelled) and the queue holds
    /// until the session has ended, so the next task goes to the new one.
    /// After the task: the session restarts once it has ended.
    pub fn before_restart(
        &mut self,
        cx: &mut Ctx,
        session: &SessionId,
        choice: RestartTask,
        size: TermSize,
    ) -> Result<BeforeRestart, EngineError> {
        let profile_id = self
            .work
            .iter()
            .find(|(_, w)| &w.session_id == session)
            .map(|(p, _)| p.clone())
            .ok_or_else(|| EngineError::Internal("no task runs in the session restarted".into()))?;
        if choice == RestartTask::FinishFirst {
            self.restart_after.insert(profile_id, (session.clone(), size));
            return Ok(BeforeRestart::AfterTask);
        }
        self.restarting.insert(profile_id.clone(), session.clone());
        let work = self.work.remove(&profile_id).expect("found above");
        self.unwatch(&work.workspace);
        let task = task_of(cx, &work.task_id)?;
        match (choice, &work.iteration) {
            // A loop's iteration is the loop's: it runs again under its number
            // (the one cut short does not count), or the loop ends with it.
            (RestartTask::Requeue, Some(iteration)) => {
                self.iteration_interrupted(cx, iteration);
                requeue_at_front(cx, &task.id, false)?;
            }
            (RestartTask::Cancel { .. }, Some(iteration)) => {
                let loop_id = iteration.loop_id.clone();
                self.finish(cx, task, TaskState::Cancelled, Some("cancelled: its agent was restarted".into()), None);
                self.cancel_loop(cx, &loop_id)?;
            }
            (RestartTask::Requeue, None) => requeue_at_front(cx, &task.id, false)?,
            (RestartTask::Cancel { pause_queue }, None) => {
                let task_id = task.id.clone();
                self.finish(cx, task, TaskState::Cancelled, Some("cancelled: its agent was restarted".into()), None);
                if pause_queue {
                    cx.store.set_queue_paused(&profile_id, Some(&QueuePause::Restart { at: now(), task_id }))?;
                }
            }
            (RestartTask::FinishFirst, _) => unreachable!("handled above"),
        }
        emit_queue(cx, self.queue_status(cx, &profile_id));
        Ok(BeforeRestart::Now)
    }

    /// A restart of the agent's session could not go ahead: its queue runs again.
    pub fn restart_abandoned(&mut self, cx: &mut Ctx, profile_id: &ProfileId) {
        self.restarting.remove(profile_id);
        self.pump(cx, profile_id);
    }

    /// Restarts the agent's session now if it was to restart once its task
    /// ended and none is at work; true while it restarts (the queue holds).
    fn restart_now(&mut self, cx: &mut Ctx, profile_id: &ProfileId) -> bool {
        if self.restarting.contains_key(profile_id) {
            return true;
        }
        if self.work.contains_key(profile_id) {
            return false;
        }
        let Some((session, size)) = self.restart_after.remove(profile_id) else { return false };
        // Nobody waits for this one: the window follows the new session when it starts.
        let reply = Responder::new(|result: Result<SessionInfo, EngineError>| {
            if let Err(error) = result {
                tracing::warn!(%error, "a session restarted after its task could not start again");
            }
        });
        match cx.sessions.stop(&cx.store, &session, EndWaiter::Restart(size, reply)) {
            Ok(()) => {
                self.restarting.insert(profile_id.clone(), session);
                true
            }
            // It ended meanwhile: the queue starts the next task in a new session anyway.
            Err(_) => false,
        }
    }

    /// Has the task typed into its agent now, whatever readiness says (the
    /// user's word: its prompt is there, the ready pattern does not see it).
    pub fn type_now(&mut self, cx: &mut Ctx, id: &TaskId) -> Result<TaskInfo, EngineError> {
        let task = task_of(cx, id)?;
        let work = self.work.values().find(|w| &w.task_id == id);
        let typed = !matches!(work.map(|w| w.phase), Some(Phase::Handed { .. }));
        if let Some(reason) = rules::type_now_refused(task.state(), typed) {
            return Err(EngineError::TaskState { task: id.clone(), state: task.state().as_str(), reason });
        }
        let work = work.expect("a running task not typed yet is at work");
        let task_id = id.clone();
        let reply = Responder::new(move |result: Result<(), EngineError>| {
            if let Err(error) = result {
                tracing::info!(task = %task_id, %error, "a task to type now was typed or withdrawn first");
            }
        });
        cx.sessions.send(&work.session_id, Control::TypeNow(id.to_string(), reply));
        Ok(task)
    }

    // ---- what tasks wait for ----

    /// Decides again what the profile's task at work waits for, and reports
    /// the task if that changed.
    fn refresh_wait(&self, cx: &mut Ctx, profile_id: &ProfileId) {
        let Some(work) = self.work.get(profile_id) else { return };
        if work.ending() {
            return;
        }
        let cause = wait_of(cx, profile_id, work);
        if set_wait(cx, &work.task_id, cause)
            && let Ok(task) = task_of(cx, &work.task_id)
        {
            report_task(cx, task);
        }
    }

    // ---- questions other parts ask ----

    /// The task a session's agent is working on.
    pub fn task_of_session(&self, session_id: &SessionId) -> Option<TaskId> {
        self.work.values().find(|w| &w.session_id == session_id).map(|w| w.task_id.clone())
    }

    /// The time a session's task has left before its time limit (none
    /// while it waits for the user, or without a task).
    pub fn time_left(&self, session_id: &SessionId) -> Option<Duration> {
        let work = self.work.values().find(|w| &w.session_id == session_id)?;
        work.deadline().map(|deadline| deadline.saturating_duration_since(Instant::now()))
    }

    pub fn has_work(&self, profile_id: &ProfileId) -> bool {
        self.work.contains_key(profile_id)
    }

    fn queue_status(&self, cx: &Ctx, profile_id: &ProfileId) -> Result<QueueStatus, EngineError> {
        let paused = cx.store.queue_paused(profile_id)?;
        Ok(QueueStatus {
            profile_id: profile_id.clone(),
            paused,
            pause: if paused { cx.store.queue_pause(profile_id)? } else { None },
            executing: self.work.contains_key(profile_id),
            current_task: self.work.get(profile_id).map(|w| w.task_id.clone()),
            queued: cx.store.queue_len(profile_id)? as u32,
            current_session: self.current_session(cx, profile_id),
        })
    }

    /// The agent's current session (pure over what the desk and the
    /// registry hold): its task at work's, else its newest running one.
    fn current_session(&self, cx: &Ctx, profile_id: &ProfileId) -> Option<SessionId> {
        let at_work = self.work.get(profile_id).map(|w| w.session_id.clone()).filter(|s| cx.sessions.is_running(s));
        at_work.or_else(|| cx.sessions.latest_running_of(profile_id, |_| true))
    }

    /// A session of the profile started or ended outside a task's start: its
    /// queue is reported, for the agent's current session.
    pub fn sessions_changed(&self, cx: &Ctx, profile_id: &ProfileId) {
        emit_queue(cx, self.queue_status(cx, profile_id));
    }

    fn watch(&mut self, workspace: &Path) {
        let watch_events = self.watch_events.clone();
        self.watches
            .entry(workspace.to_path_buf())
            .or_insert_with(|| (WorkspaceWatch::start(workspace.to_path_buf(), watch_events), 0))
            .1 += 1;
    }

    fn unwatch(&mut self, workspace: &Path) {
        if let Some((_, users)) = self.watches.get_mut(workspace) {
            *users -= 1;
            if *users == 0 {
                self.watches.remove(workspace);
            }
        }
    }
}

/// Interrupts the agent's current work (Ctrl-C or Escape, by kind), or
/// withdraws a text not typed yet.
fn interrupt(cx: &Ctx, work: &Work, profile_id: &ProfileId) {
    if let Phase::Handed { .. } = work.phase {
        cx.sessions.send(&work.session_id, Control::CancelType(work.task_id.to_string()));
        return;
    }
    let key = match cx.store.get_profile(profile_id) {
        Ok(Some(profile)) => profile.spec.kind.interrupt_key(),
        _ => switchboard_protocol::AgentKind::Generic.interrupt_key(),
    };
    let reply = Responder::new(|result: Result<(), EngineError>| {
        if let Err(error) = result {
            tracing::debug!(%error, "the interrupt key was not delivered");
        }
    });
    cx.sessions.send(&work.session_id, Control::Write(key.as_bytes().to_vec(), reply));
}

pub(crate) fn task_of(cx: &Ctx, id: &TaskId) -> Result<TaskInfo, EngineError> {
    let task = match cx.unsaved_tasks.get(id) {
        Some(unsaved) => unsaved.clone(),
        None => cx.store.get_task(id)?.ok_or_else(|| EngineError::TaskNotFound(id.clone()))?,
    };
    Ok(with_wait(cx, task, |profile| queue_paused(cx, profile)))
}

fn queued_of(task: &TaskInfo) -> Queued {
    Queued { id: task.id.clone(), priority: task.spec.priority, order: task.order }
}

fn emit_queue(cx: &Ctx, status: Result<QueueStatus, EngineError>) {
    match status {
        Ok(queue) => cx.emit(EngineEvent::QueueChanged { queue }),
        Err(error) => tracing::error!(%error, "reading a queue's status failed"),
    }
}

fn log_task(cx: &Ctx, task: &TaskInfo, kind: LogKind) {
    let about = LogAbout {
        session: task.session_id(),
        task: Some(&task.id),
        loop_id: task.spec.loop_iteration.as_ref().map(|i| &i.loop_id),
        profile: Some(&task.spec.profile_id),
    };
    if let Err(error) = cx.log(now(), about, &kind) {
        tracing::error!(task = %task.id, %error, "logging a task event failed");
    }
}

/// What the profile's task at work waits for now (`rules::waiting_for`).
fn wait_of(cx: &Ctx, profile_id: &ProfileId, work: &Work) -> Option<WaitingFor> {
    let pattern = cx.profile(profile_id).ok().and_then(|profile| profile.spec.ready_pattern);
    let place = match work.phase {
        Phase::Handed { .. } => rules::TaskPlace::Handed { held: work.held.as_ref(), pattern: pattern.as_deref() },
        Phase::Typed { .. } | Phase::Ending => {
            let working = cx.sessions.get(&work.session_id).map_or(0, |entry| entry.team.active_count() as u32);
            rules::TaskPlace::Typed { held_for: work.held_for_team.then_some(working) }
        }
    };
    let refused = work.paused.as_ref().and_then(|(paused, _)| limits::paused_wait(cx, paused));
    rules::waiting_for(place, work.waiting.map(|(since, _)| since), refused.as_ref())
}

/// Whether the profile's queue is paused (read failures count as running:
/// the wait then says the task ahead, which the queue's own state corrects).
/// Whether the profile's queue is paused, with who paused it and why in
/// words where that was recorded.
fn queue_paused(cx: &Ctx, profile_id: &ProfileId) -> (bool, Option<String>) {
    let paused = cx.store.queue_paused(profile_id).unwrap_or_else(|error| {
        tracing::warn!(%error, "reading whether a queue is paused failed");
        false
    });
    let reason =
        if paused { cx.store.queue_pause(profile_id).ok().flatten().map(|pause| pause.in_words()) } else { None };
    (paused, reason)
}

/// The task as it is now: what it waits for (a queued one from its queue's
/// state, `paused`; one at work as the desk last decided it) and what it
/// used and cost.
fn with_wait(cx: &Ctx, mut task: TaskInfo, paused: impl FnOnce(&ProfileId) -> (bool, Option<String>)) -> TaskInfo {
    if task.state() != TaskState::Queued {
        task.spent = cx.store.task_spent(&task.id).unwrap_or_else(|error| {
            tracing::warn!(%error, "what a task used could not be read");
            Default::default()
        });
    }
    if let Some(budget) = task.spec.budget {
        let (tokens, cost) = task.spent.whole();
        task.spent.budget_used = Some(switchboard_api::BudgetUse::of(budget, tokens.all(), cost));
    }
    task.waiting_for = match task.state() {
        // Its worktree's setup runs: that, whatever its queue does.
        TaskState::Queued if cx.task_waits.contains_key(&task.id) => cx.task_waits.get(&task.id).cloned(),
        TaskState::Queued => {
            let (paused, reason) = paused(&task.spec.profile_id);
            let held = limits::queue_held(cx, &task.spec.profile_id);
            rules::waiting_for(
                rules::TaskPlace::Queued { paused, pause_reason: reason.as_deref() },
                None,
                held.as_ref(),
            )
        }
        TaskState::Running => cx.task_waits.get(&task.id).cloned(),
        _ => None,
    };
    task
}

/// Keeps what the task at work waits for; whether that changed.
fn set_wait(cx: &mut Ctx, task_id: &TaskId, cause: Option<WaitingFor>) -> bool {
    if cx.task_waits.get(task_id) == cause.as_ref() {
        return false;
    }
    match cause {
        Some(cause) => cx.task_waits.insert(task_id.clone(), cause),
        None => cx.task_waits.remove(task_id),
    };
    true
}

/// Tells the window (and every other listener) of the task as it is now,
/// with what it waits for.
pub(super) fn report_task(cx: &Ctx, task: TaskInfo) {
    let task = with_wait(cx, task, |profile| queue_paused(cx, profile));
    cx.emit(EngineEvent::TaskChanged { task: task.into() });
}

/// Reports each task queued for the profile: what they wait for follows
/// their queue's state (paused or not).
fn report_queued(cx: &Ctx, profile_id: &ProfileId) {
    let tasks = match cx.store.active_tasks(Some(profile_id)) {
        Ok(tasks) => tasks,
        Err(error) => {
            tracing::error!(%error, "reading a queue to report what its tasks wait for failed");
            return;
        }
    };
    let paused = queue_paused(cx, profile_id);
    for task in tasks.into_iter().filter(|t| t.state() == TaskState::Queued) {
        cx.emit(EngineEvent::TaskChanged { task: with_wait(cx, task, |_| paused.clone()).into() });
    }
}
