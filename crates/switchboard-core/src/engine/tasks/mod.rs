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
pub(crate) mod limits;
mod loops;
mod quiet;
pub(crate) mod rules;
#[cfg(test)]
mod tests;
mod turns;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use switchboard_protocol::summary::{Brief, CONTEXT_FILE, INSTRUCTIONS_FILE, SPECS_FILE, SUMMARIES_DIR, task_prompt};
use switchboard_protocol::{ProfileId, SessionId, TaskId, TermSize};
use tokio::sync::mpsc;
use tokio::task::{AbortHandle, JoinSet};
use tokio::time::Instant;

use super::context::{Ctx, Report};
use super::isolation::Place;
use crate::engine::sessions::EndWaiter;
use crate::error::{EngineError, Responder};
use crate::session::typing::{Held, ReadyWhen};
use crate::session::{BackWatchRequest, Control, TypeRequest};
use crate::sink::LogAbout;
use crate::tasks::queue::{self, Queued};
use crate::tasks::watch::{WatchEvent, WorkspaceWatch};
use crate::workspace::Workspace;
use carry::Carry;
pub use ending::TaskNote;
use ending::requeue_at_front;
use rules::Cancel;
use switchboard_api::now;
use switchboard_api::{
    CompletionRule, EngineEvent, LogKind, QueuePause, QueueStatus, RestartTask, SessionInfo, Submitted, TaskInfo,
    TaskSpec, TaskState, WaitingFor,
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
        }
    }

    /// The app is quitting: start nothing more.
    pub fn quit(&mut self) {
        self.quitting = true;
        self.preparing.clear();
    }

    // ---- commands ----

    pub fn submit(&mut self, cx: &mut Ctx, spec: TaskSpec) -> Result<Submitted, EngineError> {
        let spec = rules::validate_task(spec)?;
        let profile = cx.profile(&spec.profile_id)?;
        super::isolation::check_base(&profile, spec.base.as_deref())?;
        let time_limit = spec.time_limit_secs.unwrap_or(profile.spec.task_time_limit_secs);
        let order = cx.store.queue_bound(&profile.id, true)?;
        let task =
            TaskInfo::queued(TaskId::new(), TaskSpec { time_limit_secs: Some(time_limit), ..spec }, order, now());
        cx.store.save_task(&task)?;
        log_task(cx, &task, LogKind::TaskQueued { priority: task.spec.priority });
        report_task(cx, task.clone());
        self.pump(cx, &profile.id);
        let task = task_of(cx, &task.id)?;
        let (position, waiting_for) = if task.state() == TaskState::Queued {
            let position = cx.store.queue_position(&profile.id, &task.id)?;
            (position, self.work.get(&profile.id).map(|w| w.task_id.clone()))
        } else {
            (None, None)
        };
        Ok(Submitted { task: task.into(), position, waiting_for })
    }

    pub fn list(&self, cx: &Ctx, profile_id: Option<&ProfileId>) -> Result<Vec<TaskInfo>, EngineError> {
        let mut tasks = cx.store.finished_tasks(profile_id, MAX_LISTED_FINISHED_TASKS)?;
        tasks.extend(cx.store.active_tasks(profile_id)?);
        // Changes the store could not record yet are the truth meanwhile.
        let mut paused = HashMap::new();
        Ok(tasks
            .into_iter()
            .map(|task| cx.unsaved_tasks.get(&task.id).cloned().unwrap_or(task))
            .map(|task| {
                with_wait(cx, task, |profile| {
                    paused.entry(profile.clone()).or_insert_with(|| queue_paused(cx, profile)).clone()
                })
            })
            .collect())
    }

    /// Records the task changes the store refused (a full disk), now that it
    /// may write again; those it still refuses stay kept.
    pub fn retry_unsaved(&mut self, cx: &mut Ctx) {
        let unsaved: Vec<TaskInfo> = cx.unsaved_tasks.values().cloned().collect();
        for task in unsaved {
            match cx.store.save_task(&task) {
                Ok(()) => {
                    cx.unsaved_tasks.remove(&task.id);
                    tracing::info!(task = %task.id, "a task change kept while the store could not write is recorded");
                }
                Err(error) => {
                    tracing::warn!(task = %task.id, %error, "recording a kept task change failed again");
                    break;
                }
            }
        }
    }

    pub fn get(&self, cx: &Ctx, id: &TaskId) -> Result<TaskInfo, EngineError> {
        task_of(cx, id)
    }

    pub fn timeline(&self, cx: &Ctx, id: &TaskId) -> Result<Vec<switchboard_api::LogEntry>, EngineError> {
        task_of(cx, id)?;
        Ok(cx.store.task_events(id)?)
    }

    pub fn cancel(&mut self, cx: &mut Ctx, id: &TaskId) -> Result<TaskInfo, EngineError> {
        let task = task_of(cx, id)?;
        let profile_id = task.spec.profile_id.clone();
        match rules::cancel(task.state()) {
            Cancel::Dequeue { reason } => {
                let was_preparing = self.preparing.get(&profile_id).is_some_and(|p| &p.task_id == id);
                if was_preparing {
                    self.preparing.remove(&profile_id);
                    cx.task_waits.remove(id);
                }
                let task = self.finish(cx, task, TaskState::Cancelled, Some(reason.into()), None);
                if was_preparing {
                    self.pump(cx, &profile_id);
                } else {
                    emit_queue(cx, self.queue_status(cx, &profile_id));
                }
                Ok(task)
            }
            Cancel::Interrupt { reason } => {
                if let Some(work) = self.work.remove(&profile_id) {
                    interrupt(cx, &work, &profile_id);
                    self.unwatch(&work.workspace);
                }
                let task = self.finish(cx, task, TaskState::Cancelled, Some(reason.into()), None);
                self.pump(cx, &profile_id);
                Ok(task)
            }
            Cancel::Refuse { reason } => {
                Err(EngineError::TaskState { task: id.clone(), state: task.state().as_str(), reason })
            }
        }
    }

    pub fn move_to(&mut self, cx: &mut Ctx, id: &TaskId, to_index: u32) -> Result<(), EngineError> {
        let task = task_of(cx, id)?;
        if let Some(reason) = rules::move_refused(task.state()) {
            return Err(EngineError::TaskState { task: id.clone(), state: task.state().as_str(), reason });
        }
        let profile_id = task.spec.profile_id.clone();
        let active = cx.store.active_tasks(Some(&profile_id))?;
        let queued: Vec<Queued> = active.iter().filter(|t| t.state() == TaskState::Queued).map(queued_of).collect();
        let moved = queue::moved(&queued, id, to_index as usize).expect("the task is queued");
        let changed: Vec<TaskInfo> = moved
            .iter()
            .filter_map(|q| {
                let before = active.iter().find(|t| t.id == q.id)?;
                let changed = before.order != q.order || before.spec.priority != q.priority;
                changed.then(|| {
                    let mut after = before.clone();
                    after.order = q.order;
                    after.spec.priority = q.priority;
                    after
                })
            })
            .collect();
        cx.store.save_tasks(&changed)?;
        let priority = moved.iter().find(|q| &q.id == id).map_or(task.spec.priority, |q| q.priority);
        log_task(cx, &task, LogKind::TaskMoved { to_index, priority });
        for task in changed {
            report_task(cx, task);
        }
        emit_queue(cx, self.queue_status(cx, &profile_id));
        Ok(())
    }

    /// Renames a task (`title`: empty gives it its first line back) and, while
    /// it waits in its queue, gives it another instruction.
    pub fn edit(
        &mut self,
        cx: &mut Ctx,
        id: &TaskId,
        title: Option<String>,
        instruction: Option<String>,
    ) -> Result<TaskInfo, EngineError> {
        let mut task = task_of(cx, id)?;
        if instruction.is_some()
            && let Some(reason) = rules::edit_refused(task.state(), task.spec.loop_iteration.is_some())
        {
            return Err(EngineError::TaskState { task: id.clone(), state: task.state().as_str(), reason });
        }
        let title = title.as_deref().map(rules::clean_title).transpose()?;
        let instruction = instruction.as_deref().map(rules::clean_instruction).transpose()?;
        let edited = LogKind::TaskEdited { title: title.is_some(), instruction: instruction.is_some() };
        if let Some(title) = title {
            task.spec.title = title;
        }
        if let Some(instruction) = instruction {
            task.spec.instruction = instruction;
        }
        cx.store.save_task(&task)?;
        log_task(cx, &task, edited);
        report_task(cx, task.clone());
        Ok(task)
    }

    /// Queues a finished task's spec again as a new task; its first run stays
    /// in the history as it ended.
    pub fn rerun(&mut self, cx: &mut Ctx, id: &TaskId) -> Result<Submitted, EngineError> {
        let task = task_of(cx, id)?;
        if let Some(reason) = rules::rerun_refused(task.state(), task.spec.loop_iteration.is_some()) {
            return Err(EngineError::TaskState { task: id.clone(), state: task.state().as_str(), reason });
        }
        self.submit(cx, task.spec)
    }

    pub fn requeue(&mut self, cx: &mut Ctx, id: &TaskId) -> Result<TaskInfo, EngineError> {
        let mut task = task_of(cx, id)?;
        if let Some(reason) = rules::requeue_refused(task.state(), task.spec.loop_iteration.is_some()) {
            return Err(EngineError::TaskState { task: id.clone(), state: task.state().as_str(), reason });
        }
        cx.profile(&task.spec.profile_id)?;
        task.requeue(cx.store.queue_bound(&task.spec.profile_id, false)?);
        cx.store.save_task(&task)?;
        log_task(cx, &task, LogKind::TaskRequeued { app_stopped: false });
        report_task(cx, task.clone());
        let profile_id = task.spec.profile_id.clone();
        self.pump(cx, &profile_id);
        task_of(cx, id)
    }

    pub fn set_paused(&mut self, cx: &mut Ctx, profile_id: Option<ProfileId>, paused: bool) -> Result<(), EngineError> {
        let one = profile_id.is_some();
        let profiles = match profile_id {
            Some(id) => vec![cx.profile(&id)?.id],
            None => cx.store.list_profiles()?.into_iter().map(|p| p.id).collect(),
        };
        // Who paused it: this agent's own queue, or every queue at once.
        let pause = match (paused, one) {
            (false, _) => None,
            (true, true) => Some(QueuePause::User { at: now() }),
            (true, false) => Some(QueuePause::AllQueues { at: now() }),
        };
        for id in profiles {
            cx.store.set_queue_paused(&id, pause.as_ref())?;
            if paused {
                emit_queue(cx, self.queue_status(cx, &id));
            } else {
                self.pump(cx, &id);
            }
            // Its queued tasks wait for another reason now.
            report_queued(cx, &id);
        }
        Ok(())
    }

    pub fn queues(&self, cx: &Ctx) -> Result<Vec<QueueStatus>, EngineError> {
        cx.store.list_profiles()?.iter().map(|p| self.queue_status(cx, &p.id)).collect()
    }

    // ---- the queue ----

    /// Starts the profile's next task if it has none at work, its queue is
    /// not paused and one is waiting. A task that cannot be given to the
    /// agent fails with the reason, and the queue pauses: the next tasks
    /// would fail the same way until the user fixes the profile.
    /// The queue's new count is reported either way, so a task queued behind
    /// one at work is counted at once.
    pub fn pump(&mut self, cx: &mut Ctx, profile_id: &ProfileId) {
        if self.quitting {
            return;
        }
        if self.work.contains_key(profile_id)
            || self.preparing.contains_key(profile_id)
            || self.restart_now(cx, profile_id)
        {
            emit_queue(cx, self.queue_status(cx, profile_id));
            return;
        }
        // Its account at its usage limit: nothing new is typed until it goes on.
        if limits::queue_held(cx, profile_id).is_some() {
            emit_queue(cx, self.queue_status(cx, profile_id));
            return;
        }
        let next = cx
            .store
            .queue_paused(profile_id)
            .map_err(EngineError::from)
            .and_then(|paused| if paused { Ok(None) } else { Ok(cx.store.queue_next(profile_id)?) });
        match next {
            Ok(Some(next)) => {
                if let Err(error) = self.dispatch(cx, profile_id, &next) {
                    self.not_started(cx, profile_id, &next, error.to_string());
                }
            }
            Ok(None) => {}
            Err(error) => tracing::error!(profile = %profile_id, %error, "reading a queue failed"),
        }
        emit_queue(cx, self.queue_status(cx, profile_id));
        // An agent let go after a limit that has nothing at work (its task
        // ended, or none was left to take): the account's next may go.
        if !self.work.contains_key(profile_id) && !self.preparing.contains_key(profile_id) {
            self.ran(cx, profile_id);
        }
    }

    /// A task that could not be started fails saying why; its agent's queue
    /// pauses (the next would likely fail the same way until the user looks),
    /// a loop's iteration is tried again by its loop.
    fn not_started(&mut self, cx: &mut Ctx, profile_id: &ProfileId, next: &TaskId, error: String) {
        tracing::warn!(task = %next, %error, "a task could not be started");
        let mut iteration = None;
        if let Ok(task) = task_of(cx, next) {
            iteration = task.spec.loop_iteration.clone();
            self.finish(cx, task, TaskState::Failed, Some(error.clone()), None);
        }
        match iteration {
            // A loop's iteration is a failed start: its loop tries again later,
            // then ends saying why, rather than waiting behind a paused queue.
            Some(iteration) => cx.follow(super::context::Follow::IterationFailedToStart {
                iteration,
                task: next.clone(),
                exit: error,
                said: String::new(),
            }),
            None => {
                let pause = QueuePause::TaskNotStarted { at: now(), task_id: next.clone(), reason: error };
                if let Err(error) = cx.store.set_queue_paused(profile_id, Some(&pause)) {
                    tracing::error!(%error, "pausing a queue failed");
                }
                report_queued(cx, profile_id);
            }
        }
    }

    /// Readies the task's worktree away from the engine's task: makes it
    /// when it is still to make (git checks its files out), then runs the
    /// repository's setup command in it when there is one to run. The task
    /// waits at its queue's head meanwhile, and starts when all went well.
    fn prepare(&mut self, cx: &mut Ctx, profile_id: &ProfileId, task: &TaskInfo, preparation: Preparation) {
        let notes = self.notes.clone();
        let (for_profile, task_id) = (profile_id.clone(), task.id.clone());
        let wait = match &preparation {
            Preparation::Make(_) => WaitingFor::WorktreeMaking,
            Preparation::Setup { command, .. } => WaitingFor::WorktreeSetup { command: command.clone() },
        };
        let job = tokio::spawn(async move {
            let (made, path, command) = match preparation {
                Preparation::Make(plan) => {
                    let command = plan.setup_command.clone();
                    let made = tokio::task::spawn_blocking(move || super::isolation::make(&plan))
                        .await
                        .unwrap_or_else(|error| Err(EngineError::Internal(error.to_string())));
                    let path = made.as_ref().ok().map(|record| PathBuf::from(&record.path));
                    (Some(made), path, command)
                }
                Preparation::Setup { path, command } => (None, Some(path), Some(command)),
            };
            let setup = match (path, command) {
                (Some(path), Some(command)) => {
                    if made.is_some() {
                        let (profile_id, task_id) = (for_profile.clone(), task_id.clone());
                        notes.send(TaskNote::SettingUp { profile_id, task_id, command: command.clone() }).ok();
                    }
                    let run = crate::worktree::run_setup(&path, &command).await;
                    Some((command, run))
                }
                _ => None,
            };
            let readied = Box::new(ending::Readied { made, setup });
            notes.send(TaskNote::Prepared { profile_id: for_profile, task_id, readied }).ok();
        })
        .abort_handle();
        self.preparing.insert(profile_id.clone(), Preparing { task_id: task.id.clone(), job });
        set_wait(cx, &task.id, Some(wait));
        report_task(cx, task.clone());
    }

    /// The task's worktree was made and set up, or could not be: the task
    /// starts, or fails saying why (a failed setup's output on its
    /// timeline; the next task in that worktree runs it again).
    fn prepared(
        &mut self,
        cx: &mut Ctx,
        profile_id: &ProfileId,
        task_id: &TaskId,
        made: Option<Result<crate::worktree::WorktreeRecord, EngineError>>,
        setup: Option<(String, crate::worktree::SetupRun)>,
    ) {
        // Cancelled meanwhile: nothing waits for it.
        if self.preparing.get(profile_id).is_none_or(|p| &p.task_id != task_id) {
            return;
        }
        self.preparing.remove(profile_id);
        cx.task_waits.remove(task_id);
        let Ok(task) = task_of(cx, task_id) else { return };
        let setup_ok = setup.as_ref().is_none_or(|(_, run)| run.succeeded);
        let record = match made {
            Some(Ok(mut record)) => {
                record.setup = if setup_ok { crate::worktree::Setup::Done } else { crate::worktree::Setup::Pending };
                match super::isolation::recorded(cx, record, Some(&task)) {
                    Ok(super::isolation::Place::Worktree { record, .. }) => Some(*record),
                    Ok(_) => None,
                    Err(error) => {
                        self.not_started(cx, profile_id, task_id, format!("its worktree could not be kept: {error}"));
                        return emit_queue(cx, self.queue_status(cx, profile_id));
                    }
                }
            }
            Some(Err(why)) => {
                self.not_started(cx, profile_id, task_id, format!("its worktree could not be made: {why}"));
                return emit_queue(cx, self.queue_status(cx, profile_id));
            }
            None => cx.store.get_worktree(&super::isolation::worktree_key(&task)).ok().flatten(),
        };
        if let Some((command, run)) = setup {
            let logged = LogKind::WorktreeSetup {
                command: command.clone(),
                succeeded: run.succeeded,
                exit: run.exit,
                output: run.output.clone(),
            };
            log_task(cx, &task, logged);
            if !run.succeeded {
                let how = match run.exit {
                    Some(code) => format!("exited with {code}"),
                    None => "was stopped".to_owned(),
                };
                let last: Vec<&str> = run.output.lines().rev().take(5).collect();
                let last: Vec<&str> = last.into_iter().rev().collect();
                let reason = format!("the worktree's setup command `{command}` {how}: {}", last.join(" / "));
                self.not_started(cx, profile_id, task_id, reason);
                return emit_queue(cx, self.queue_status(cx, profile_id));
            }
            if let Some(mut record) = record.filter(|r| r.setup == crate::worktree::Setup::Pending) {
                record.setup = crate::worktree::Setup::Done;
                if let Err(error) = cx.store.update_worktree(&record) {
                    tracing::warn!(%error, "a worktree's setup could not be recorded; it runs again for its next task");
                }
            }
        }
        self.pump(cx, profile_id);
    }

    /// Starts the queues that have work waiting.
    pub fn pump_all(&mut self, cx: &mut Ctx) {
        let profiles = match cx.store.active_tasks(None) {
            Ok(tasks) => tasks.into_iter().map(|t| t.spec.profile_id).collect::<std::collections::BTreeSet<_>>(),
            Err(error) => {
                tracing::error!(%error, "reading the queues failed");
                return;
            }
        };
        for profile_id in profiles {
            self.pump(cx, &profile_id);
        }
    }

    fn dispatch(&mut self, cx: &mut Ctx, profile_id: &ProfileId, task_id: &TaskId) -> Result<(), EngineError> {
        let mut task = task_of(cx, task_id)?;
        let profile = cx.profile(profile_id)?;
        let place = super::isolation::place_of_task(cx, &profile, &task)?;
        match &place {
            Place::ToMake(plan) => {
                self.prepare(cx, profile_id, &task, Preparation::Make(plan.clone()));
                return Ok(());
            }
            Place::Worktree { path, record } if record.setup == crate::worktree::Setup::Pending => {
                match cx.store.repository_setup(&record.repository)? {
                    Some(command) if !command.trim().is_empty() => {
                        self.prepare(cx, profile_id, &task, Preparation::Setup { path: path.clone(), command });
                        return Ok(());
                    }
                    // Taken away since: nothing to run.
                    _ => cx.store.update_worktree(&crate::worktree::WorktreeRecord {
                        setup: crate::worktree::Setup::Done,
                        ..(**record).clone()
                    })?,
                }
            }
            _ => {}
        }
        if let Place::Worktree { record, .. } = &place {
            cx.follow(super::context::Follow::WorktreeInUse { owner: record.owner.clone() });
        }
        let workspace = place.path().to_path_buf();
        let ready = ReadyWhen::for_profile(&profile)?;
        // Without a ready pattern or hooks, quiet alone ends an answer (a loop's iteration).
        let turn_quiet = match cx.store.settings() {
            Ok(settings) => Duration::from_secs(settings.turn_quiet_secs.into()),
            Err(error) => {
                tracing::warn!(%error, "the settings could not be read; a turn ends by the default quiet");
                Duration::from_secs(switchboard_api::DEFAULT_TURN_QUIET_SECS.into())
            }
        };
        let iteration = task.spec.loop_iteration.clone();
        let context_files = if iteration.is_some() { Vec::new() } else { write_context_files(&workspace, &task.spec)? };
        // A loop iteration is a fresh session (for Claude Code a new
        // conversation); a task takes the agent's latest session, not one
        // busy with work delegated to it.
        // An agent that works apart takes a session already in the task's
        // worktree (a review's follow-up), else a fresh one there.
        let here = place.session_workspace().map(|p| p.to_string_lossy().into_owned());
        let reusable = match iteration {
            Some(_) => None,
            None => cx.sessions.latest_running_of(profile_id, |id| {
                !cx.delegate_at_work(id) && cx.sessions.get(id).is_some_and(|entry| entry.info.workspace == here)
            }),
        };
        // A worktree worked in before, whose session has ended: the new one
        // carries on its conversation, or is told what was done there.
        let (session_id, retell) = match reusable {
            Some(id) => (id, None),
            None => {
                let earlier = match (&place, &iteration) {
                    (Place::Worktree { record, .. }, None) => earlier_in(cx, &record.owner, &task.id),
                    _ => (None, Vec::new()),
                };
                let carried = carry::carry(profile.spec.kind, earlier.0.as_ref().map(Option::as_deref));
                let resume = match &carried {
                    Carry::Resume { conversation } => Some(conversation.as_str()),
                    Carry::Fresh | Carry::Retell => None,
                };
                let started = cx.start_session(profile_id, TermSize::DEFAULT, resume, place.session_workspace())?.id;
                (started, (carried == Carry::Retell).then_some(earlier.1))
            }
        };
        self.closing.remove(&session_id);

        // A new task: the team of the one before is over.
        super::status::team_reset(cx, &session_id);
        let handed_at = now();
        task.start(session_id.clone(), handed_at);
        cx.task_waits.remove(&task.id);
        cx.store.save_task(&task)?;
        log_task(cx, &task, LogKind::TaskStarted);
        report_task(cx, task.clone());

        // Watch before typing: the agent may answer at once.
        self.watch(&workspace);
        let time_limit = Duration::from_secs(task.spec.time_limit_secs.unwrap_or_default().into());
        let notes = self.notes.clone();
        let typed_id = task.id.clone();
        let reply = Responder::new(move |result| {
            // The desk may be gone (the engine stopped); nothing waits then.
            notes.send(TaskNote::Typed { task_id: typed_id, result }).ok();
        });
        // An agent taught the signal protocols finds them in its workspace; the
        // typed task says where, with its id.
        let agent_id = session_id.to_string();
        let taught = profile.spec.signal_protocols && crate::tasks::owned::teach_workspace(&workspace);
        // The summary's format is in a file the task points to, so the terminal
        // shows the user's instruction, not the protocol; where it cannot be
        // written, the task carries it.
        let completion_file = match crate::tasks::owned::write_completion_file(&workspace) {
            Ok(_) => true,
            Err(error) => {
                tracing::warn!(%error, "the summary's format could not be written; the task carries it");
                false
            }
        };
        let brief = Brief {
            completion_file,
            instruction: &task.spec.instruction,
            context_files: &context_files,
            goals: task.spec.goals.as_deref(),
            success_criteria: task.spec.success_criteria.as_deref(),
            agent_id: taught.then_some(agent_id.as_str()),
        };
        // An iteration is typed its prompt alone (its instruction); so is a
        // task done when its prompt comes back (a shell would run any line of
        // the protocol's as a command).
        let by_prompt = iteration.is_none() && profile.spec.completion == switchboard_api::CompletionRule::Prompt;
        let text = match (&iteration, &retell) {
            (Some(_), _) => task.spec.instruction.clone(),
            (None, _) if by_prompt => task.spec.instruction.clone(),
            (None, None) => task_prompt(&task.id, &brief),
            (None, Some(earlier)) => {
                carry::retold(&earlier.iter().map(told).collect::<Vec<_>>(), &task_prompt(&task.id, &brief))
            }
        };
        if let Some(iteration) = &iteration {
            self.iteration_started(cx, iteration, &task.id, &session_id, &workspace);
        }
        // An iteration of an agent without hooks ends when it is back at its
        // prompt (or when it exits); one with hooks, at its Stop. So does a
        // task done when its prompt comes back.
        let generic_iteration = iteration.is_some() && profile.spec.kind == switchboard_protocol::AgentKind::Generic;
        let back = (generic_iteration || by_prompt).then(|| {
            let notes = self.notes.clone();
            let task_id = task.id.clone();
            let reply = Responder::new(move |lines: Result<Vec<String>, EngineError>| {
                if let Ok(lines) = lines {
                    notes.send(TaskNote::PromptReturned { task_id, lines }).ok();
                }
            });
            BackWatchRequest { reply, turn_quiet }
        });
        let held = {
            let notes = self.notes.clone();
            let task_id = task.id.clone();
            let report: crate::session::HeldReport = Box::new(move |held| {
                notes.send(TaskNote::Held { task_id: task_id.clone(), held }).ok();
            });
            Some(report)
        };
        let request = TypeRequest { tag: task.id.to_string(), text, ready, reply, held, back };
        cx.sessions.send(&session_id, Control::Type(request));
        let status_before = status_stamp(&workspace);
        self.work.insert(
            profile_id.clone(),
            Work {
                task_id: task.id,
                session_id,
                workspace,
                time_limit,
                phase: Phase::Handed { deadline: Instant::now() + time_limit },
                rule: profile.spec.completion,
                summary: None,
                report: None,
                settling: None,
                iteration,
                typed_at: None,
                quiet_since: None,
                waiting: None,
                handed_at,
                status_before,
                held: None,
                held_for_team: false,
                turn_look: None,
                refused_turn: None,
                paused: None,
                overloads: 0,
            },
        );
        Ok(())
    }

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

/// What was done before in the worktree of `owner`, for a task there
/// (`task`) whose session starts now: the conversation of the last session
/// that worked there (none when none did; `Some(None)` when its
/// conversation is not known), and the earlier tasks that ran there.
fn earlier_in(cx: &Ctx, owner: &str, task: &TaskId) -> (Option<Option<String>>, Vec<TaskInfo>) {
    let ran: Vec<TaskInfo> = match cx.store.tasks_in_worktree(owner) {
        Ok(tasks) => tasks.into_iter().filter(|t| &t.id != task && t.session_id().is_some()).collect(),
        Err(error) => {
            tracing::warn!(%error, "the earlier tasks of a worktree could not be read; its task starts fresh");
            return (None, Vec::new());
        }
    };
    let Some(last) = ran.iter().filter(|t| t.started_at().is_some()).max_by_key(|t| t.started_at()) else {
        return (None, Vec::new());
    };
    let session = last.session_id().expect("filtered above");
    // The conversation as the app named it, else as its hooks told it.
    let conversation = match cx.store.get_session(session) {
        Ok(Some(info)) => info.agent_session_id,
        Ok(None) => None,
        Err(error) => {
            tracing::warn!(%error, "a worktree's last session could not be read; its work is retold");
            None
        }
    }
    .or_else(|| cx.sessions.get(session).and_then(|entry| entry.hooks.conversation.clone()));
    (Some(conversation), ran)
}

/// An earlier task as a fresh session is told it.
fn told(task: &TaskInfo) -> carry::Earlier<'_> {
    let mut reported = Vec::new();
    if let Some(result) = task.result() {
        let summary = &result.summary;
        reported.extend(std::iter::once(summary.objective.as_str()).filter(|s| !s.trim().is_empty()));
        reported.extend(summary.accomplishments.iter().map(String::as_str));
        reported.extend(summary.notes.iter().map(String::as_str));
    }
    let ended = match task.reason() {
        Some(reason) => format!("{}: {reason}", task.state().as_str()),
        None => task.state().as_str().to_owned(),
    };
    carry::Earlier { title: task.spec.title(), instruction: &task.spec.instruction, reported, ended }
}

fn task_of(cx: &Ctx, id: &TaskId) -> Result<TaskInfo, EngineError> {
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

/// Writes the task's context texts into the workspace (each atomically);
/// returns the names of the files written, for the prompt.
fn write_context_files(workspace: &Path, spec: &TaskSpec) -> Result<Vec<&'static str>, EngineError> {
    let mut written = Vec::new();
    let files_to_write =
        [(CONTEXT_FILE, &spec.context), (SPECS_FILE, &spec.specs), (INSTRUCTIONS_FILE, &spec.instructions)];
    let failed =
        |name: &str, e: std::io::Error| EngineError::io(format!("writing {name} into {}", workspace.display()), e);
    // Opened, not created: a workspace that vanished must not be made again.
    let files = Workspace::open(workspace).map_err(|e| failed(SUMMARIES_DIR, e))?;
    files.create_folder(SUMMARIES_DIR).map_err(|e| failed(SUMMARIES_DIR, e))?;
    for (name, text) in files_to_write {
        let Some(text) = text else { continue };
        files.write(name, text.as_bytes()).map_err(|e| failed(name, e))?;
        written.push(name);
    }
    Ok(written)
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

/// The task with what it waits for now: a queued one from its queue's
/// state (`paused`), one at work as the desk last decided it.
fn with_wait(cx: &Ctx, mut task: TaskInfo, paused: impl FnOnce(&ProfileId) -> (bool, Option<String>)) -> TaskInfo {
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
