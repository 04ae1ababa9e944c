//! The task desk: the task queues and the file completion protocol.
//!
//! Each profile has a durable queue (the `tasks` table) and at most one task
//! at work. Taking a task: write its context files, watch the workspace, ask
//! the session actor to type the prompt once the agent is ready. The task
//! ends when its summary file is complete (watch event), when its time runs
//! out, when the agent exits, or when the user cancels it; then the queue
//! moves on. Every state change is stored before it is reported.

mod ending;
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
use crate::api::now;
use crate::api::{CompletionRule, EngineEvent, LogKind, QueueStatus, Submitted, TaskInfo, TaskSpec, TaskState};
use crate::error::{EngineError, Responder};
use crate::session::typing::ReadyWhen;
use crate::session::{Control, TypeRequest};
use crate::sink::LogAbout;
use crate::tasks::queue::{self, Queued};
use crate::tasks::watch::{WatchEvent, WorkspaceWatch};
use crate::workspace::Workspace;
pub use ending::TaskNote;
use rules::Cancel;

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
    iteration: Option<crate::api::LoopIteration>,
    /// When it was typed into the agent.
    typed_at: Option<crate::api::Millis>,
    /// Since when its agent has been quiet past its alert (see `quiet`).
    quiet_since: Option<crate::api::Millis>,
    /// Since when its agent has waited for the user (see `quiet`): its
    /// deadline is paused meanwhile, and pushed back by the wait after.
    waiting: Option<(crate::api::Millis, Instant)>,
    /// When its agent's log was last read for a turn that ended unreported,
    /// and the agent's last activity then (see `turns`).
    turn_look: Option<(crate::api::Millis, crate::api::Millis)>,
}

impl Work {
    /// When it times out; none while its agent waits for the user.
    fn deadline(&self) -> Option<Instant> {
        match self.phase {
            _ if self.waiting.is_some() => None,
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
        }
    }

    /// The app is quitting: start nothing more.
    pub fn quit(&mut self) {
        self.quitting = true;
    }

    // ---- commands ----

    pub fn submit(&mut self, cx: &mut Ctx, spec: TaskSpec) -> Result<Submitted, EngineError> {
        let spec = rules::validate_task(spec)?;
        let profile = cx.profile(&spec.profile_id)?;
        let time_limit = spec.time_limit_secs.unwrap_or(profile.spec.task_time_limit_secs);
        let order = cx.store.queue_bound(&profile.id, true)?;
        let task =
            TaskInfo::queued(TaskId::new(), TaskSpec { time_limit_secs: Some(time_limit), ..spec }, order, now());
        cx.store.save_task(&task)?;
        log_task(cx, &task, LogKind::TaskQueued { priority: task.spec.priority });
        cx.emit(EngineEvent::TaskChanged { task: task.clone() });
        self.pump(cx, &profile.id);
        let task = task_of(cx, &task.id)?;
        let (position, waiting_for) = if task.state() == TaskState::Queued {
            let position = cx.store.queue_position(&profile.id, &task.id)?;
            (position, self.work.get(&profile.id).map(|w| w.task_id.clone()))
        } else {
            (None, None)
        };
        Ok(Submitted { task, position, waiting_for })
    }

    pub fn list(&self, cx: &Ctx, profile_id: Option<&ProfileId>) -> Result<Vec<TaskInfo>, EngineError> {
        let mut tasks = cx.store.finished_tasks(profile_id, MAX_LISTED_FINISHED_TASKS)?;
        tasks.extend(cx.store.active_tasks(profile_id)?);
        // Changes the store could not record yet are the truth meanwhile.
        for task in &mut tasks {
            if let Some(unsaved) = cx.unsaved_tasks.get(&task.id) {
                *task = unsaved.clone();
            }
        }
        Ok(tasks)
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

    pub fn timeline(&self, cx: &Ctx, id: &TaskId) -> Result<Vec<crate::api::LogEntry>, EngineError> {
        task_of(cx, id)?;
        Ok(cx.store.task_events(id)?)
    }

    pub fn cancel(&mut self, cx: &mut Ctx, id: &TaskId) -> Result<TaskInfo, EngineError> {
        let task = task_of(cx, id)?;
        let profile_id = task.spec.profile_id.clone();
        match rules::cancel(task.state()) {
            Cancel::Dequeue { reason } => {
                let task = self.finish(cx, task, TaskState::Cancelled, Some(reason.into()), None);
                emit_queue(cx, self.queue_status(cx, &profile_id));
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
        if task.state() != TaskState::Queued {
            return Err(EngineError::TaskState {
                task: id.clone(),
                state: task.state().as_str(),
                reason: "only queued tasks move",
            });
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
            cx.emit(EngineEvent::TaskChanged { task });
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
        cx.emit(EngineEvent::TaskChanged { task: task.clone() });
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
        if !rules::requeue_allowed(task.state()) {
            return Err(EngineError::TaskState {
                task: id.clone(),
                state: task.state().as_str(),
                reason: "only interrupted, failed, timed-out or cancelled tasks go back in the queue",
            });
        }
        cx.profile(&task.spec.profile_id)?;
        task.requeue(cx.store.queue_bound(&task.spec.profile_id, false)?);
        cx.store.save_task(&task)?;
        log_task(cx, &task, LogKind::TaskRequeued { app_stopped: false });
        cx.emit(EngineEvent::TaskChanged { task: task.clone() });
        let profile_id = task.spec.profile_id.clone();
        self.pump(cx, &profile_id);
        task_of(cx, id)
    }

    pub fn set_paused(&mut self, cx: &mut Ctx, profile_id: Option<ProfileId>, paused: bool) -> Result<(), EngineError> {
        let profiles = match profile_id {
            Some(id) => vec![cx.profile(&id)?.id],
            None => cx.store.list_profiles()?.into_iter().map(|p| p.id).collect(),
        };
        for id in profiles {
            cx.store.set_queue_paused(&id, paused)?;
            if paused {
                emit_queue(cx, self.queue_status(cx, &id));
            } else {
                self.pump(cx, &id);
            }
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
        if self.work.contains_key(profile_id) {
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
                    tracing::warn!(task = %next, %error, "a task could not be started");
                    let mut iteration = None;
                    if let Ok(task) = task_of(cx, &next) {
                        iteration = task.spec.loop_iteration.clone();
                        self.finish(cx, task, TaskState::Failed, Some(error.to_string()), None);
                    }
                    match iteration {
                        // A loop's iteration is a failed start: its loop tries again later,
                        // then ends saying why, rather than waiting behind a paused queue.
                        Some(iteration) => cx.follow(super::context::Follow::IterationFailedToStart {
                            iteration,
                            task: next.clone(),
                            exit: error.to_string(),
                            said: String::new(),
                        }),
                        None => {
                            if let Err(error) = cx.store.set_queue_paused(profile_id, true) {
                                tracing::error!(%error, "pausing a queue failed");
                            }
                        }
                    }
                }
            }
            Ok(None) => {}
            Err(error) => tracing::error!(profile = %profile_id, %error, "reading a queue failed"),
        }
        emit_queue(cx, self.queue_status(cx, profile_id));
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
        let workspace = Path::new(&profile.spec.cwd)
            .canonicalize()
            .map_err(|_| EngineError::DirectoryMissing { path: profile.spec.cwd.clone().into() })?;
        let ready = ReadyWhen::for_profile(&profile)?;
        let iteration = task.spec.loop_iteration.clone();
        let context_files = if iteration.is_some() { Vec::new() } else { write_context_files(&workspace, &task.spec)? };
        // A loop iteration is a fresh session (for Claude Code a new
        // conversation); a task takes the agent's latest session, not one
        // busy with work delegated to it.
        let reusable = match iteration {
            Some(_) => None,
            None => cx.sessions.latest_running_of(profile_id, |id| !cx.delegate_at_work(id)),
        };
        let session_id = match reusable {
            Some(id) => id,
            None => cx.start_session(profile_id, TermSize::DEFAULT, None)?.id,
        };

        // A new task: the team of the one before is over.
        super::status::team_reset(cx, &session_id);
        task.start(session_id.clone(), now());
        cx.store.save_task(&task)?;
        log_task(cx, &task, LogKind::TaskStarted);
        cx.emit(EngineEvent::TaskChanged { task: task.clone() });

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
        // An iteration is typed its prompt alone (its instruction).
        let text = match &iteration {
            Some(_) => task.spec.instruction.clone(),
            None => task_prompt(&task.id, &brief),
        };
        if let Some(iteration) = &iteration {
            self.iteration_started(cx, iteration, &task.id, &session_id);
        }
        // An iteration of an agent without hooks ends when it is back at its
        // prompt (or when it exits); one with hooks, at its Stop.
        let back = (iteration.is_some() && profile.spec.kind == switchboard_protocol::AgentKind::Generic).then(|| {
            let notes = self.notes.clone();
            let task_id = task.id.clone();
            Responder::new(move |lines: Result<Vec<String>, EngineError>| {
                if let Ok(lines) = lines {
                    notes.send(TaskNote::PromptReturned { task_id, lines }).ok();
                }
            })
        });
        let request = TypeRequest { tag: task.id.to_string(), text, ready, reply, back };
        cx.sessions.send(&session_id, Control::Type(request));
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
                turn_look: None,
            },
        );
        Ok(())
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
        Ok(QueueStatus {
            profile_id: profile_id.clone(),
            paused: cx.store.queue_paused(profile_id)?,
            executing: self.work.contains_key(profile_id),
            current_task: self.work.get(profile_id).map(|w| w.task_id.clone()),
            queued: cx.store.queue_len(profile_id)? as u32,
        })
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

fn task_of(cx: &Ctx, id: &TaskId) -> Result<TaskInfo, EngineError> {
    if let Some(unsaved) = cx.unsaved_tasks.get(id) {
        return Ok(unsaved.clone());
    }
    cx.store.get_task(id)?.ok_or_else(|| EngineError::TaskNotFound(id.clone()))
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
