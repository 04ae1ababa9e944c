//! The task queues and the file completion protocol, run on the engine task.
//!
//! Each profile has a durable queue (the `tasks` table) and at most one task
//! at work. Taking a task: write its context files, watch the workspace, ask
//! the session actor to type the prompt once the agent is ready. The task
//! ends when its summary file is complete (watch event), when its time runs
//! out, when the agent exits, or when the user cancels it; then the queue
//! moves on. Every state change is stored before it is reported.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, UNIX_EPOCH};

use regex::Regex;
use switchboard_protocol::summary::{
    CONTEXT_FILE, INSTRUCTIONS_FILE, SPECS_FILE, STATUS_FILE, SUMMARIES_DIR, parse_summary, task_prompt,
};
use switchboard_protocol::{ProfileId, SessionId, TaskId, TermSize};
use tokio::sync::oneshot;
use tokio::time::Instant;

use super::{EngineState, Reply, now};
use crate::api::{
    CompletionRule, EngineEvent, LogKind, Profile, QueueStatus, SessionState, Submitted, TaskInfo, TaskResult,
    TaskSpec, TaskState,
};
use crate::error::EngineError;
use crate::session::typing::ReadyWhen;
use crate::session::{Control, TypeRequest};
use crate::tasks::artifacts::{self, FALLBACK_SCREEN_LINES};
use crate::tasks::completion::{self, Decision};
use crate::tasks::queue::{self, Queued};
use crate::tasks::watch::{WatchEvent, WorkspaceWatch};

/// Longest instruction accepted, in bytes.
pub const MAX_INSTRUCTION_BYTES: usize = 256 * 1024;
/// Longest context, specs or instructions text, in bytes.
pub const MAX_CONTEXT_BYTES: usize = 1024 * 1024;
/// Finished tasks returned by a listing.
pub const MAX_LISTED_FINISHED_TASKS: usize = 200;
/// Largest summary file read.
const SUMMARY_CAP_BYTES: usize = 1024 * 1024;
/// A summary found by a rescan (not by a close or rename event) must keep
/// its size and time this long before it is read: it may still be written.
const SETTLE_TIME: Duration = Duration::from_millis(150);

/// The task a profile's agent works on.
pub(super) struct Work {
    task_id: TaskId,
    session_id: SessionId,
    /// Canonical.
    workspace: PathBuf,
    /// When the task times out: its limit from dispatch until typed, then
    /// from when it was typed.
    deadline: Instant,
    time_limit: Duration,
    typed: bool,
    /// Its end is decided and a fallback is being gathered.
    ending: bool,
    /// What completes it.
    rule: CompletionRule,
    /// The summary file's text, once complete.
    summary: Option<String>,
    /// The agent's completion report, once seen.
    report: Option<Report>,
}

/// A completion report's fields, as the task's end needs them.
pub(super) struct Report {
    pub status: String,
    pub deliverables: Vec<String>,
    pub metrics: String,
    pub recommendations: Vec<String>,
}

/// Reports from helpers the engine started, back on the engine task.
pub(super) enum TaskNote {
    Typed {
        task_id: TaskId,
        result: Result<bool, EngineError>,
    },
    Screen {
        task_id: TaskId,
        state: TaskState,
        reason: String,
        lines: Vec<String>,
    },
    /// A summary found by a rescan stopped changing.
    Settled {
        task_id: TaskId,
    },
}

#[derive(Default)]
pub(super) struct Tasks {
    pub work: HashMap<ProfileId, Work>,
    pub watches: HashMap<PathBuf, (WorkspaceWatch, usize)>,
}

impl EngineState {
    // ---- commands ----

    pub(super) fn submit_task(&mut self, spec: TaskSpec) -> Result<Submitted, EngineError> {
        let spec = validate_task(spec)?;
        let profile = self.profile(&spec.profile_id)?;
        let time_limit = spec.time_limit_secs.unwrap_or(profile.spec.task_time_limit_secs);
        let order = self.store.queue_bound(&profile.id, true)?;
        let task = TaskInfo {
            id: TaskId::new(),
            spec: TaskSpec { time_limit_secs: Some(time_limit), ..spec },
            state: TaskState::Queued,
            order,
            session_id: None,
            created_at: now(),
            started_at: None,
            typed_at: None,
            ended_at: None,
            progress: None,
            reason: None,
            result: None,
        };
        self.store.save_task(&task)?;
        self.log_task(&task, LogKind::TaskQueued { priority: task.spec.priority });
        self.sink.emit(EngineEvent::TaskChanged { task: task.clone() });
        self.pump(&profile.id);
        let task = self.task(&task.id)?;
        let (position, waiting_for) = if task.state == TaskState::Queued {
            let queued = self.queued(&profile.id)?;
            (queue::position(&queued, &task.id), self.tasks.work.get(&profile.id).map(|w| w.task_id.clone()))
        } else {
            (None, None)
        };
        Ok(Submitted { task, position, waiting_for })
    }

    pub(super) fn list_tasks(&self, profile_id: Option<&ProfileId>) -> Result<Vec<TaskInfo>, EngineError> {
        let mut tasks = self.store.finished_tasks(profile_id, MAX_LISTED_FINISHED_TASKS)?;
        tasks.extend(self.store.active_tasks(profile_id)?);
        Ok(tasks)
    }

    pub(super) fn task(&self, id: &TaskId) -> Result<TaskInfo, EngineError> {
        self.store.get_task(id)?.ok_or_else(|| EngineError::TaskNotFound(id.clone()))
    }

    pub(super) fn cancel_task(&mut self, id: &TaskId) -> Result<TaskInfo, EngineError> {
        let task = self.task(id)?;
        match task.state {
            TaskState::Queued => {
                let task = self.finish(task, TaskState::Cancelled, Some("cancelled before it started".into()), None);
                self.emit_queue(&task.spec.profile_id);
                Ok(task)
            }
            TaskState::Running => {
                let profile_id = task.spec.profile_id.clone();
                let work = self.tasks.work.remove(&profile_id);
                if let Some(work) = &work {
                    self.interrupt(work, &profile_id);
                    self.unwatch(&work.workspace);
                }
                let task = self.finish(task, TaskState::Cancelled, Some("cancelled while it ran".into()), None);
                self.pump(&profile_id);
                Ok(task)
            }
            state => {
                Err(EngineError::TaskState { task: id.clone(), state: state.as_str(), reason: "already finished" })
            }
        }
    }

    pub(super) fn move_task(&mut self, id: &TaskId, to_index: u32) -> Result<(), EngineError> {
        let task = self.task(id)?;
        if task.state != TaskState::Queued {
            return Err(EngineError::TaskState {
                task: id.clone(),
                state: task.state.as_str(),
                reason: "only queued tasks move",
            });
        }
        let profile_id = task.spec.profile_id.clone();
        let active = self.store.active_tasks(Some(&profile_id))?;
        let queued: Vec<Queued> = active.iter().filter(|t| t.state == TaskState::Queued).map(queued_of).collect();
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
        self.store.save_tasks(&changed)?;
        let priority = moved.iter().find(|q| &q.id == id).map_or(task.spec.priority, |q| q.priority);
        self.log_task(&task, LogKind::TaskMoved { to_index, priority });
        for task in changed {
            self.sink.emit(EngineEvent::TaskChanged { task });
        }
        self.emit_queue(&profile_id);
        Ok(())
    }

    pub(super) fn requeue_task(&mut self, id: &TaskId) -> Result<TaskInfo, EngineError> {
        let mut task = self.task(id)?;
        if !task.state.is_finished() || task.state == TaskState::Completed {
            return Err(EngineError::TaskState {
                task: id.clone(),
                state: task.state.as_str(),
                reason: "only interrupted, failed, timed-out or cancelled tasks go back in the queue",
            });
        }
        self.profile(&task.spec.profile_id)?;
        task.order = self.store.queue_bound(&task.spec.profile_id, false)?;
        task.state = TaskState::Queued;
        (task.session_id, task.started_at, task.typed_at, task.ended_at) = (None, None, None, None);
        (task.progress, task.reason, task.result) = (None, None, None);
        self.store.save_task(&task)?;
        self.log_task(&task, LogKind::TaskRequeued);
        self.sink.emit(EngineEvent::TaskChanged { task: task.clone() });
        let profile_id = task.spec.profile_id.clone();
        self.pump(&profile_id);
        self.task(id)
    }

    pub(super) fn set_queue_paused(&mut self, profile_id: Option<ProfileId>, paused: bool) -> Result<(), EngineError> {
        let profiles = match profile_id {
            Some(id) => vec![self.profile(&id)?.id],
            None => self.store.list_profiles()?.into_iter().map(|p| p.id).collect(),
        };
        for id in profiles {
            self.store.set_queue_paused(&id, paused)?;
            if paused {
                self.emit_queue(&id);
            } else {
                self.pump(&id);
            }
        }
        Ok(())
    }

    pub(super) fn list_queues(&self) -> Result<Vec<QueueStatus>, EngineError> {
        self.store.list_profiles()?.iter().map(|p| self.queue_status(&p.id)).collect()
    }

    pub(super) fn task_reply(&mut self, command: TaskCommand) -> Result<Reply, EngineError> {
        match command {
            TaskCommand::Submit(spec) => self.submit_task(spec).map(Reply::Submitted),
            TaskCommand::List(profile_id) => self.list_tasks(profile_id.as_ref()).map(Reply::Tasks),
            TaskCommand::Get(id) => self.task(&id).map(Reply::Task),
            TaskCommand::Cancel(id) => self.cancel_task(&id).map(Reply::Task),
            TaskCommand::Move(id, to) => self.move_task(&id, to).map(|()| Reply::Unit),
            TaskCommand::Requeue(id) => self.requeue_task(&id).map(Reply::Task),
            TaskCommand::Pause(profile_id, paused) => self.set_queue_paused(profile_id, paused).map(|()| Reply::Unit),
            TaskCommand::Queues => self.list_queues().map(Reply::Queues),
            TaskCommand::Timeline(id) => {
                self.task(&id)?;
                Ok(Reply::Events(self.store.task_events(&id)?))
            }
        }
    }

    // ---- the queue ----

    /// Starts the profile's next task if it has none at work, its queue is
    /// not paused and one is waiting. A task that cannot be given to the
    /// agent fails with the reason, and the queue pauses: the next tasks
    /// would fail the same way until the user fixes the profile.
    pub(super) fn pump(&mut self, profile_id: &ProfileId) {
        if self.shutting_down || self.tasks.work.contains_key(profile_id) {
            return;
        }
        let next = self.store.queue_paused(profile_id).map_err(EngineError::from).and_then(|paused| {
            if paused { Ok(None) } else { self.queued(profile_id).map(|q| queue::pick_next(&q).cloned()) }
        });
        match next {
            Ok(Some(next)) => {
                if let Err(error) = self.dispatch(profile_id, &next.id) {
                    tracing::warn!(task = %next.id, %error, "a task could not be started");
                    if let Ok(task) = self.task(&next.id) {
                        self.finish(task, TaskState::Failed, Some(error.to_string()), None);
                    }
                    if let Err(error) = self.store.set_queue_paused(profile_id, true) {
                        tracing::error!(%error, "pausing a queue failed");
                    }
                }
            }
            Ok(None) => {}
            Err(error) => tracing::error!(profile = %profile_id, %error, "reading a queue failed"),
        }
        self.emit_queue(profile_id);
    }

    fn dispatch(&mut self, profile_id: &ProfileId, task_id: &TaskId) -> Result<(), EngineError> {
        let mut task = self.task(task_id)?;
        let profile = self.profile(profile_id)?;
        let workspace = Path::new(&profile.spec.cwd)
            .canonicalize()
            .map_err(|_| EngineError::DirectoryMissing { path: profile.spec.cwd.clone().into() })?;
        let pattern = profile
            .spec
            .ready_pattern
            .as_deref()
            .map(Regex::new)
            .transpose()
            .map_err(|e| EngineError::InvalidInput { field: "ready_pattern", reason: e.to_string() })?;
        let ready = ReadyWhen { pattern, quiet: Duration::from_millis(profile.spec.ready_quiet_ms.into()) };
        let context_files = write_context_files(&workspace, &task.spec)?;
        let session_id = match self.latest_running_session(profile_id) {
            Some(id) => id,
            None => self.start_session(profile_id, TermSize::DEFAULT)?.id,
        };

        task.state = TaskState::Running;
        task.started_at = Some(now());
        task.session_id = Some(session_id.clone());
        self.store.save_task(&task)?;
        self.log_task(&task, LogKind::TaskStarted);
        self.sink.emit(EngineEvent::TaskChanged { task: task.clone() });

        // Watch before typing: the agent may answer at once.
        self.watch(&workspace);
        let time_limit = Duration::from_secs(task.spec.time_limit_secs.unwrap_or_default().into());
        let (reply, typed) = oneshot::channel();
        let text = task_prompt(&task.id, &task.spec.instruction, &context_files);
        self.sessions.get(&session_id).expect("a running session has an actor").send(Control::Type(TypeRequest {
            tag: task.id.to_string(),
            text,
            ready,
            reply,
        }));
        let notes = self.task_notes.clone();
        let id = task.id.clone();
        tokio::spawn(async move {
            let result = typed.await.unwrap_or_else(|_| Err(EngineError::Internal("the session went away".into())));
            notes.send(TaskNote::Typed { task_id: id, result }).ok();
        });
        self.tasks.work.insert(
            profile_id.clone(),
            Work {
                task_id: task.id,
                session_id,
                workspace,
                deadline: Instant::now() + time_limit,
                time_limit,
                typed: false,
                ending: false,
                rule: profile.spec.completion,
                summary: None,
                report: None,
            },
        );
        Ok(())
    }

    // ---- what happens to the task at work ----

    pub(super) fn on_task_note(&mut self, note: TaskNote) {
        match note {
            TaskNote::Typed { task_id, result } => {
                let Some(profile_id) = self.profile_working_on(&task_id) else { return };
                match result {
                    Ok(bracketed) => {
                        let work = self.tasks.work.get_mut(&profile_id).expect("found above");
                        work.typed = true;
                        work.deadline = Instant::now() + work.time_limit;
                        if let Ok(mut task) = self.task(&task_id) {
                            task.typed_at = Some(now());
                            self.save_and_report(&task);
                            self.log_task(&task, LogKind::TaskTyped { bracketed });
                        }
                    }
                    // The session ended before the agent was ready; its end
                    // decides the task.
                    Err(error) => tracing::info!(task = %task_id, %error, "the task was not typed"),
                }
            }
            TaskNote::Screen { task_id, state, reason, lines } => {
                self.end_with_fallback(&task_id, state, reason, lines)
            }
            TaskNote::Settled { task_id } => {
                if let Some(profile_id) = self.profile_working_on(&task_id) {
                    self.complete(&profile_id);
                }
            }
        }
    }

    pub(super) fn on_watch_event(&mut self, event: WatchEvent) {
        match event {
            WatchEvent::Summary { workspace, name } => {
                let done: Vec<ProfileId> = self
                    .tasks
                    .work
                    .iter()
                    .filter(|(_, w)| w.workspace == workspace && name == format!("{}.md", w.task_id))
                    .map(|(p, _)| p.clone())
                    .collect();
                for profile_id in done {
                    self.complete(&profile_id);
                }
            }
            WatchEvent::SideFile { workspace, name } if name == STATUS_FILE => self.refresh_progress(&workspace),
            WatchEvent::SideFile { .. } => {}
            WatchEvent::SummariesCreated { workspace } => {
                if let Some((watch, _)) = self.tasks.watches.get_mut(&workspace) {
                    watch.watch_summaries();
                }
                self.rescan(&workspace);
            }
            WatchEvent::Rescan { workspace } => self.rescan(&workspace),
        }
    }

    /// Looks at the files themselves: a summary that exists is read once it
    /// has stopped changing.
    fn rescan(&mut self, workspace: &Path) {
        self.refresh_progress(workspace);
        for work in self.tasks.work.values().filter(|w| w.workspace == workspace && !w.ending) {
            let path = summary_file(workspace, &work.task_id);
            if !path.exists() {
                continue;
            }
            let notes = self.task_notes.clone();
            let task_id = work.task_id.clone();
            tokio::spawn(async move {
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
        }
    }

    fn refresh_progress(&mut self, workspace: &Path) {
        let working: Vec<TaskId> =
            self.tasks.work.values().filter(|w| w.workspace == workspace).map(|w| w.task_id.clone()).collect();
        if working.is_empty() {
            return;
        }
        let progress = artifacts::read_progress(workspace);
        for task_id in working {
            if let Ok(mut task) = self.task(&task_id)
                && task.progress != progress
                && progress.is_some()
            {
                task.progress = progress.clone();
                self.save_and_report(&task);
            }
        }
    }

    /// The summary of the profile's task is complete: read it, and finish
    /// the task if its completion rule is met.
    fn complete(&mut self, profile_id: &ProfileId) {
        let Some(work) = self.tasks.work.get_mut(profile_id) else { return };
        let path = summary_file(&work.workspace, &work.task_id);
        match artifacts::read_capped(&path, SUMMARY_CAP_BYTES) {
            Ok((text, ..)) => work.summary = Some(text),
            Err(error) => {
                tracing::warn!(path = %path.display(), %error, "a summary could not be read");
                return;
            }
        }
        self.settle(profile_id);
    }

    /// The agent at work in `session_id` reported completion.
    pub(super) fn report_arrived(&mut self, session_id: &SessionId, report: Report) {
        let Some(profile_id) =
            self.tasks.work.iter().find(|(_, w)| &w.session_id == session_id && !w.ending).map(|(p, _)| p.clone())
        else {
            return;
        };
        self.tasks.work.get_mut(&profile_id).expect("found above").report = Some(report);
        self.settle(&profile_id);
    }

    /// Finishes the profile's task if what has arrived meets its rule: the
    /// result is the summary file, or one made from the report.
    fn settle(&mut self, profile_id: &ProfileId) {
        let Some(work) = self.tasks.work.get(profile_id) else { return };
        let summary_status = work.summary.as_deref().map(|text| parse_summary(text).status);
        let decision = completion::decide(work.rule, summary_status, work.report.as_ref().map(|r| r.status.as_str()));
        let (state, reason) = match decision {
            Decision::Wait => return,
            // Teammates still at work: the lead's task stays open until
            // they are done (its summary is kept).
            Decision::Complete | Decision::Disagree(_) if self.team_active(&work.session_id) => return,
            Decision::Complete => (TaskState::Completed, None),
            Decision::Disagree(reason) => (TaskState::Failed, Some(reason)),
        };
        let work = self.tasks.work.remove(profile_id).expect("checked above");
        if !work.typed
            && let Some(session) = self.sessions.get(&work.session_id)
        {
            session.send(Control::CancelType(work.task_id.to_string()));
        }
        self.unwatch(&work.workspace);
        if let Ok(task) = self.task(&work.task_id) {
            let text = match (work.summary, &work.report) {
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
            self.finish(task, state, reason, Some(result));
        }
        self.pump(profile_id);
    }

    /// The time limits that have passed.
    pub(super) fn next_task_deadline(&self) -> Option<Instant> {
        self.tasks.work.values().filter(|w| !w.ending).map(|w| w.deadline).min()
    }

    pub(super) fn on_task_deadline(&mut self) {
        let now = Instant::now();
        let expired: Vec<ProfileId> =
            self.tasks.work.iter().filter(|(_, w)| !w.ending && w.deadline <= now).map(|(p, _)| p.clone()).collect();
        for profile_id in expired {
            let work = self.tasks.work.get(&profile_id).expect("listed above");
            let limit = work.time_limit.as_secs();
            let reason = if work.typed {
                format!("the time limit of {} passed without a summary", human_secs(limit))
            } else {
                format!("the agent was not ready for input within {}", human_secs(limit))
            };
            self.begin_fallback(&profile_id, TaskState::TimedOut, reason, true);
        }
    }

    /// A session ended; a task it worked on ends with it.
    pub(super) fn on_task_session_end(&mut self, session_id: &SessionId, killed: bool, exit: &SessionState) {
        let Some(profile_id) =
            self.tasks.work.iter().find(|(_, w)| &w.session_id == session_id && !w.ending).map(|(p, _)| p.clone())
        else {
            return;
        };
        if self.shutting_down {
            // The app is quitting: the task did not fail, it was cut short.
            let work = self.tasks.work.remove(&profile_id).expect("found above");
            self.unwatch(&work.workspace);
            if let Ok(task) = self.task(&work.task_id) {
                self.finish(task, TaskState::Interrupted, Some("the app quit while the task ran".into()), None);
            }
            return;
        }
        let (state, reason) = if killed {
            // The user stopped the agent: do not start it again behind their back.
            if let Err(error) = self.store.set_queue_paused(&profile_id, true) {
                tracing::error!(%error, "pausing a queue failed");
            }
            (TaskState::Cancelled, "the agent was stopped; its queue is paused".to_owned())
        } else {
            let how = match exit {
                SessionState::Exited { exit_code, signal: Some(signal), .. } => format!("{signal} (code {exit_code})"),
                SessionState::Exited { exit_code, .. } => format!("code {exit_code}"),
                _ => "unknown status".into(),
            };
            (TaskState::Failed, format!("the agent exited ({how}) before writing its summary"))
        };
        self.begin_fallback(&profile_id, state, reason, false);
    }

    /// Decides the task's end and gathers the screen for its fallback
    /// summary; the end is recorded when the screen arrives.
    fn begin_fallback(&mut self, profile_id: &ProfileId, state: TaskState, reason: String, interrupt: bool) {
        let Some(work) = self.tasks.work.get_mut(profile_id) else { return };
        work.ending = true;
        let (task_id, session_id) = (work.task_id.clone(), work.session_id.clone());
        if interrupt {
            let work = self.tasks.work.get(profile_id).expect("checked above");
            self.interrupt(work, profile_id);
        }
        let notes = self.task_notes.clone();
        let (reply, snapshot) = oneshot::channel();
        match self.sessions.get(&session_id) {
            Some(session) => session.send(Control::Snapshot(FALLBACK_SCREEN_LINES, reply)),
            None => drop(reply),
        }
        tokio::spawn(async move {
            let lines = match snapshot.await {
                Ok(Ok(Reply::Snapshot(snapshot))) => snapshot.recent_lines,
                _ => Vec::new(),
            };
            notes.send(TaskNote::Screen { task_id, state, reason, lines }).ok();
        });
    }

    fn end_with_fallback(&mut self, task_id: &TaskId, state: TaskState, reason: String, lines: Vec<String>) {
        let Some(profile_id) = self.profile_working_on(task_id) else { return };
        let work = self.tasks.work.remove(&profile_id).expect("found above");
        self.unwatch(&work.workspace);
        let Ok(task) = self.task(task_id) else { return };
        // The summary may have landed while the screen was fetched (it is
        // the result then, even when the rule also wanted a report).
        let path = summary_file(&work.workspace, task_id);
        let summary = work.summary.or_else(|| artifacts::read_capped(&path, SUMMARY_CAP_BYTES).ok().map(|(t, ..)| t));
        let result = if let Some(text) = summary {
            artifacts::collect_result(&work.workspace, task_id, text, false)
        } else {
            let since = task.started_at.map_or(UNIX_EPOCH, |ms| UNIX_EPOCH + Duration::from_millis(ms as u64));
            // File times have coarse resolution on some file systems.
            let since = since.checked_sub(Duration::from_secs(1)).unwrap_or(since);
            let changed = artifacts::changed_files(&work.workspace, since);
            let text = artifacts::fallback_summary(task_id, &task.spec.instruction, &reason, &changed, &lines);
            artifacts::collect_result(&work.workspace, task_id, text, true)
        };
        self.finish(task, state, Some(reason), Some(result));
        self.pump(&profile_id);
    }

    /// Records a task's end, reports it, and logs what was refused.
    fn finish(
        &mut self,
        mut task: TaskInfo,
        state: TaskState,
        reason: Option<String>,
        result: Option<TaskResult>,
    ) -> TaskInfo {
        task.state = state;
        task.ended_at = Some(now());
        task.reason = reason.clone();
        if let Some(result) = &result {
            for rejected in &result.rejected {
                self.log_task(
                    &task,
                    LogKind::DeliverableRejected { path: rejected.path.clone(), reason: rejected.reason.clone() },
                );
            }
        }
        task.result = result;
        self.save_and_report(&task);
        self.log_task(&task, LogKind::TaskEnded { state, reason });
        if state == TaskState::Completed
            && let Some(session_id) = &task.session_id
        {
            self.session_task_done(session_id);
        }
        task
    }

    /// Interrupts the agent's current work (Ctrl-C or Escape, by kind), or
    /// withdraws a text not typed yet.
    fn interrupt(&self, work: &Work, profile_id: &ProfileId) {
        let Some(session) = self.sessions.get(&work.session_id) else { return };
        if !work.typed {
            session.send(Control::CancelType(work.task_id.to_string()));
            return;
        }
        let key = match self.store.get_profile(profile_id) {
            Ok(Some(profile)) => profile.spec.kind.interrupt_key(),
            _ => switchboard_protocol::AgentKind::Generic.interrupt_key(),
        };
        let (reply, _) = oneshot::channel();
        session.send(Control::Write(key.as_bytes().to_vec(), reply));
    }

    // ---- start and stop ----

    /// Tasks recorded as running belong to a run of the app that ended
    /// while they worked: complete those whose summary has appeared since,
    /// mark the others interrupted (the user can put them back in the queue).
    pub(super) fn recover_tasks(&mut self) -> Result<(), EngineError> {
        for task in self.store.active_tasks(None)?.into_iter().filter(|t| t.state == TaskState::Running) {
            let workspace =
                self.store.get_profile(&task.spec.profile_id)?.and_then(|p| Path::new(&p.spec.cwd).canonicalize().ok());
            let summary = workspace.as_ref().and_then(|ws| {
                artifacts::read_capped(&summary_file(ws, &task.id), SUMMARY_CAP_BYTES).ok().map(|(text, ..)| (ws, text))
            });
            match summary {
                Some((workspace, text)) => {
                    let result = artifacts::collect_result(workspace, &task.id, text, false);
                    self.finish(task, TaskState::Completed, None, Some(result));
                }
                None => {
                    self.finish(task, TaskState::Interrupted, Some("the app stopped while the task ran".into()), None);
                }
            }
        }
        Ok(())
    }

    /// Starts the queues that have work waiting.
    pub(super) fn pump_all(&mut self) {
        let profiles = match self.store.active_tasks(None) {
            Ok(tasks) => tasks.into_iter().map(|t| t.spec.profile_id).collect::<std::collections::BTreeSet<_>>(),
            Err(error) => {
                tracing::error!(%error, "reading the queues failed");
                return;
            }
        };
        for profile_id in profiles {
            self.pump(&profile_id);
        }
    }

    // ---- helpers ----

    fn queue_status(&self, profile_id: &ProfileId) -> Result<QueueStatus, EngineError> {
        Ok(QueueStatus {
            profile_id: profile_id.clone(),
            paused: self.store.queue_paused(profile_id)?,
            executing: self.tasks.work.contains_key(profile_id),
            current_task: self.tasks.work.get(profile_id).map(|w| w.task_id.clone()),
            queued: self.queued(profile_id)?.len() as u32,
        })
    }

    fn emit_queue(&self, profile_id: &ProfileId) {
        match self.queue_status(profile_id) {
            Ok(queue) => self.sink.emit(EngineEvent::QueueChanged { queue }),
            Err(error) => tracing::error!(%error, "reading a queue's status failed"),
        }
    }

    fn queued(&self, profile_id: &ProfileId) -> Result<Vec<Queued>, EngineError> {
        Ok(self
            .store
            .active_tasks(Some(profile_id))?
            .iter()
            .filter(|t| t.state == TaskState::Queued)
            .map(queued_of)
            .collect())
    }

    fn profile(&self, id: &ProfileId) -> Result<Profile, EngineError> {
        self.store.get_profile(id)?.ok_or_else(|| EngineError::ProfileNotFound(id.clone()))
    }

    fn profile_working_on(&self, task_id: &TaskId) -> Option<ProfileId> {
        self.tasks.work.iter().find(|(_, w)| &w.task_id == task_id).map(|(p, _)| p.clone())
    }

    fn latest_running_session(&self, profile_id: &ProfileId) -> Option<SessionId> {
        self.running.values().filter(|s| &s.profile_id == profile_id).max_by_key(|s| s.started_at).map(|s| s.id.clone())
    }

    /// The lead's team is done: a task it held may complete now.
    pub(super) fn team_settled(&mut self, lead: &SessionId) {
        let profile = self.tasks.work.iter().find(|(_, w)| &w.session_id == lead).map(|(p, _)| p.clone());
        if let Some(profile) = profile {
            self.settle(&profile);
        }
    }

    /// The task a session's agent is working on.
    pub(super) fn task_of_session(&self, session_id: &SessionId) -> Option<TaskId> {
        self.tasks.work.values().find(|w| &w.session_id == session_id).map(|w| w.task_id.clone())
    }

    pub(super) fn has_work(&self, profile_id: &ProfileId) -> bool {
        self.tasks.work.contains_key(profile_id)
    }

    fn save_and_report(&self, task: &TaskInfo) {
        // As with sessions: a store that cannot record the change (a full
        // disk) must not hide it from the user.
        if let Err(error) = self.store.save_task(task) {
            tracing::error!(task = %task.id, %error, "recording a task failed");
        }
        self.sink.emit(EngineEvent::TaskChanged { task: task.clone() });
    }

    fn log_task(&self, task: &TaskInfo, kind: LogKind) {
        if let Err(error) = self.store.append_task_event(now(), task.session_id.as_ref(), Some(&task.id), &kind) {
            tracing::error!(task = %task.id, %error, "logging a task event failed");
        }
    }

    fn watch(&mut self, workspace: &Path) {
        let watch_events = self.watch_events.clone();
        self.tasks
            .watches
            .entry(workspace.to_path_buf())
            .or_insert_with(|| (WorkspaceWatch::start(workspace.to_path_buf(), watch_events), 0))
            .1 += 1;
    }

    fn unwatch(&mut self, workspace: &Path) {
        if let Some((_, users)) = self.tasks.watches.get_mut(workspace) {
            *users -= 1;
            if *users == 0 {
                self.tasks.watches.remove(workspace);
            }
        }
    }
}

/// The task commands, grouped so the engine's command match stays short.
pub(super) enum TaskCommand {
    Submit(TaskSpec),
    List(Option<ProfileId>),
    Get(TaskId),
    Cancel(TaskId),
    Move(TaskId, u32),
    Requeue(TaskId),
    Pause(Option<ProfileId>, bool),
    Queues,
    Timeline(TaskId),
}

fn queued_of(task: &TaskInfo) -> Queued {
    Queued { id: task.id.clone(), priority: task.spec.priority, order: task.order }
}

fn summary_file(workspace: &Path, task: &TaskId) -> PathBuf {
    workspace.join(SUMMARIES_DIR).join(format!("{task}.md"))
}

/// Checks a submission: an instruction, texts within their caps, a usable
/// time limit. Returns it with the instruction trimmed and empty optional
/// texts as none.
pub fn validate_task(mut spec: TaskSpec) -> Result<TaskSpec, EngineError> {
    let invalid = |field, reason: String| Err(EngineError::InvalidInput { field, reason });
    spec.instruction = spec.instruction.trim().to_owned();
    if spec.instruction.is_empty() {
        return invalid("instruction", "say what the agent should do".into());
    }
    if spec.instruction.len() > MAX_INSTRUCTION_BYTES {
        return invalid("instruction", format!("at most {} KiB", MAX_INSTRUCTION_BYTES / 1024));
    }
    let optional = |text: Option<String>| text.filter(|t| !t.trim().is_empty());
    spec.context = optional(spec.context);
    spec.specs = optional(spec.specs);
    spec.instructions = optional(spec.instructions);
    spec.success_criteria = optional(spec.success_criteria);
    for (field, text) in [("context", &spec.context), ("specs", &spec.specs), ("instructions", &spec.instructions)] {
        if text.as_ref().is_some_and(|t| t.len() > MAX_CONTEXT_BYTES) {
            return invalid(field, format!("at most {} KiB", MAX_CONTEXT_BYTES / 1024));
        }
    }
    if let Some(limit) = spec.time_limit_secs
        && !(1..=crate::validate::MAX_TIME_LIMIT_SECS).contains(&limit)
    {
        return invalid(
            "time_limit_secs",
            format!("between 1 second and {} days", crate::validate::MAX_TIME_LIMIT_SECS / 86_400),
        );
    }
    Ok(spec)
}

/// Writes the task's context texts into the workspace (each atomically);
/// returns the names of the files written, for the prompt.
fn write_context_files(workspace: &Path, spec: &TaskSpec) -> Result<Vec<&'static str>, EngineError> {
    let mut written = Vec::new();
    let files = [(CONTEXT_FILE, &spec.context), (SPECS_FILE, &spec.specs), (INSTRUCTIONS_FILE, &spec.instructions)];
    let failed = |name: &str, e: std::io::Error| {
        EngineError::Internal(format!("writing {name} into {}: {e}", workspace.display()))
    };
    // Not `create_dir_all`: a workspace that vanished must not be made again.
    match std::fs::create_dir(workspace.join(SUMMARIES_DIR)) {
        Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => return Err(failed(SUMMARIES_DIR, e)),
        _ => {}
    }
    for (name, text) in files {
        let Some(text) = text else { continue };
        let temp = workspace.join(format!(".{name}.switchboard-tmp"));
        std::fs::write(&temp, text).and_then(|()| std::fs::rename(&temp, workspace.join(name))).map_err(|e| {
            std::fs::remove_file(&temp).ok();
            failed(name, e)
        })?;
        written.push(name);
    }
    Ok(written)
}

fn human_secs(secs: u64) -> String {
    match secs {
        s if s % 3600 == 0 && s >= 3600 => format!("{} h", s / 3600),
        s if s % 60 == 0 && s >= 60 => format!("{} min", s / 60),
        s => format!("{s} s"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(instruction: &str) -> TaskSpec {
        TaskSpec::new(ProfileId::new(), instruction)
    }

    #[test]
    fn task_validation() {
        let field = |s: TaskSpec| validate_task(s).err().and_then(|e| e.field());
        assert_eq!(field(spec("  fix it ")), None);
        assert_eq!(validate_task(spec("  fix it ")).unwrap().instruction, "fix it");
        assert_eq!(field(spec(" \n ")), Some("instruction"));
        assert_eq!(field(spec(&"x".repeat(MAX_INSTRUCTION_BYTES + 1))), Some("instruction"));
        assert_eq!(field(TaskSpec { context: Some("x".repeat(MAX_CONTEXT_BYTES + 1)), ..spec("a") }), Some("context"));
        assert_eq!(field(TaskSpec { time_limit_secs: Some(0), ..spec("a") }), Some("time_limit_secs"));
        let cleaned = validate_task(TaskSpec { specs: Some("  ".into()), ..spec("a") }).unwrap();
        assert_eq!(cleaned.specs, None);
    }

    #[test]
    fn context_files_are_written_only_when_given() {
        let dir = tempfile::tempdir().unwrap();
        let given = TaskSpec { context: Some("ctx".into()), instructions: Some("do".into()), ..spec("a") };
        let written = write_context_files(dir.path(), &given).unwrap();
        assert_eq!(written, [CONTEXT_FILE, INSTRUCTIONS_FILE]);
        assert_eq!(std::fs::read_to_string(dir.path().join(CONTEXT_FILE)).unwrap(), "ctx");
        assert!(!dir.path().join(SPECS_FILE).exists());
        assert!(dir.path().join(SUMMARIES_DIR).is_dir());

        let gone = dir.path().join("vanished");
        assert!(write_context_files(&gone, &given).is_err());
    }

    #[test]
    fn human_durations() {
        assert_eq!(human_secs(45), "45 s");
        assert_eq!(human_secs(120), "2 min");
        assert_eq!(human_secs(7200), "2 h");
        assert_eq!(human_secs(90), "90 s");
    }
}
