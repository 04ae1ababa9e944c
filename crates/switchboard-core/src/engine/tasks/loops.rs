//! Loop mode on the task desk: a loop's iterations are tasks of its agent's
//! queue (one at a time, in queue order), each run in a fresh session and
//! typed the iteration prompt; each iteration's end is judged
//! (`switchboard_protocol::loops::judge`), and the loop either queues its
//! next iteration at the front of the queue or ends for a reason it names.
//!
//! An agent has one loop at a time (active or stalled): the loop's files in
//! its workspace are the agent's. An iteration whose agent ends before its
//! prompt is typed is a failed start, not an iteration: it is started again
//! under the same number after a growing wait
//! (`switchboard_protocol::loops::after_failed_start`), and after a few in a
//! row the loop ends as failed to start. Each iteration is a row of its own
//! (a save writes that row alone); the loop is read, and sent to the window,
//! as its latest iterations and its counts, and the judge weighs only the
//! latest stop reasons.

use std::path::{Path, PathBuf};

use switchboard_protocol::loops::{
    AfterFailedStart, Evidence, GUARDRAIL_WINDOW, LoopSettings, MAX_FAILED_STARTS, Verdict, after_failed_start,
    iteration_prompt, judge, new_guardrails, stop_reasons_weighed,
};
use switchboard_protocol::{LoopId, ProfileId, SessionId, TaskId};
use tokio::time::Instant;

use super::{TaskDesk, log_task, task_of};
use crate::engine::context::Ctx;
use crate::error::EngineError;
use crate::sink::LogAbout;
use crate::tasks::owned;
use switchboard_api::{
    EngineEvent, Iteration, IterationOutcome, LogKind, LoopFile, LoopFiles, LoopInfo, LoopIteration, LoopState,
    LoopStep, MAX_ITERATION_PAGE, MAX_LOOP_FILE_BYTES, TaskInfo, TaskSpec, kept_stop_reason, now,
};

/// Finished loops returned by a listing besides the active and stalled.
const LISTED_FINISHED_LOOPS: usize = 100;
/// The most iterations a loop may be given.
pub const MAX_LOOP_ITERATIONS: u32 = 10_000;

impl TaskDesk {
    /// Starts a loop on an agent: its anchor is written and its first
    /// iteration queued behind the agent's tasks.
    pub fn start_loop(
        &mut self,
        cx: &mut Ctx,
        profile_id: &ProfileId,
        settings: LoopSettings,
    ) -> Result<LoopInfo, EngineError> {
        let settings = validate_settings(settings)?;
        // The loop's files are the agent's: a second loop would share them.
        if let Some(open) = cx.store.open_loop_of(profile_id)? {
            let agent = cx.profile(profile_id)?.spec.name;
            return Err(EngineError::LoopBusy { agent, stalled: open.resumable() });
        }
        let profile = cx.profile(profile_id)?;
        if let Some(reason) = super::spent::unpriced_budget(cx, &profile, settings.budget.as_ref())? {
            return Err(EngineError::InvalidInput { field: "budget", reason });
        }
        let turn_quiet_secs = cx.store.settings()?.turn_quiet_secs;
        if !iteration_end_seen(profile.spec.kind, profile.spec.ready_pattern.is_some(), turn_quiet_secs) {
            return Err(EngineError::LoopCannotEnd { agent: profile.spec.name });
        }
        let loop_id = LoopId::new();
        // An agent that works apart runs the loop, all its iterations, in one worktree of its own.
        let workspace =
            super::super::isolation::place_of_loop(cx, &profile, &loop_id, &settings.goal)?.path().to_path_buf();
        owned::write_anchor(&workspace, &settings)
            .map_err(|e| EngineError::io("writing the loop's anchor".to_owned(), e))?;
        let info = LoopInfo {
            id: loop_id,
            profile_id: profile_id.clone(),
            settings,
            created_at: now(),
            state: LoopState::Active,
            iterations: Vec::new(),
            iteration_count: 0,
            iterations_run: 0,
            spent: Default::default(),
            budget_used: None,
        };
        let info = save_loop(cx, &info)?;
        log_loop(cx, &info, LoopStep::Started { max_iterations: info.settings.max_iterations }, None);
        self.queue_iteration(cx, &info, &workspace, false)?;
        Ok(info)
    }

    pub fn list_loops(&self, cx: &Ctx) -> Result<Vec<LoopInfo>, EngineError> {
        Ok(cx
            .store
            .list_loops(LISTED_FINISHED_LOOPS)?
            .into_iter()
            .map(|info| super::spent::of_loop(cx, info))
            .collect())
    }

    pub fn get_loop(&self, cx: &Ctx, id: &LoopId) -> Result<LoopInfo, EngineError> {
        let info = cx
            .store
            .get_loop(id)?
            .ok_or_else(|| EngineError::InvalidInput { field: "loop_id", reason: "there is no such loop".into() })?;
        Ok(super::spent::of_loop(cx, info))
    }

    /// A page of the loop's older iterations: at most `limit` (capped at
    /// [`MAX_ITERATION_PAGE`]) recorded before `before`, oldest first.
    pub fn loop_iterations(
        &self,
        cx: &Ctx,
        id: &LoopId,
        before: u32,
        limit: u32,
    ) -> Result<Vec<Iteration>, EngineError> {
        self.get_loop(cx, id)?;
        Ok(cx.store.loop_iterations(id, Some(before), limit.min(MAX_ITERATION_PAGE))?)
    }

    /// Cancels an active or stalled loop: its iteration waiting or at work
    /// is cancelled with it.
    pub fn cancel_loop(&mut self, cx: &mut Ctx, id: &LoopId) -> Result<LoopInfo, EngineError> {
        let mut info = self.get_loop(cx, id)?;
        if !info.is_open() {
            return Err(EngineError::InvalidInput { field: "loop_id", reason: "the loop has already ended".into() });
        }
        info.state = LoopState::Cancelled { at: now() };
        self.start_retries.remove(id);
        for mut iteration in cx.store.running_iterations(id)? {
            iteration.outcome = IterationOutcome::Interrupted { at: now() };
            cx.store.save_iteration(id, &iteration)?;
        }
        let info = save_loop(cx, &info)?;
        log_loop(cx, &info, LoopStep::Cancelled, None);
        // Its iteration task, queued or at work, goes with it.
        let tasks = cx.store.active_tasks(Some(&info.profile_id))?;
        for task in tasks.into_iter().filter(|t| t.spec.loop_iteration.as_ref().is_some_and(|i| &i.loop_id == id)) {
            let session = task.session_id().cloned();
            self.cancel(cx, &task.id)?;
            if let Some(session) = session {
                end_session(cx, &session);
            }
        }
        Ok(info)
    }

    /// Resumes a stalled loop (after the user changed its anchor or
    /// guardrails, say), or one whose folder was gone and is back: its next
    /// iteration goes to the front of the queue. A folder still gone is
    /// refused, saying so; the loop stays as it was.
    pub fn resume_loop(&mut self, cx: &mut Ctx, id: &LoopId) -> Result<LoopInfo, EngineError> {
        let mut info = self.get_loop(cx, id)?;
        if !info.state.resumable() {
            return Err(EngineError::InvalidInput {
                field: "loop_id",
                reason: "only a stalled loop, or one whose folder was gone, resumes".into(),
            });
        }
        let workspace = workspace_of(cx, &info)?;
        // Its anchor may have gone with the folder.
        ensure_anchor(cx, &info, &workspace);
        info.state = LoopState::Active;
        let info = save_loop(cx, &info)?;
        log_loop(cx, &info, LoopStep::Resumed, None);
        self.queue_iteration(cx, &info, &workspace, true)?;
        Ok(info)
    }

    /// The loop's files as they are now in its agent's workspace.
    pub fn loop_files(&self, cx: &Ctx, id: &LoopId) -> Result<LoopFiles, EngineError> {
        let info = self.get_loop(cx, id)?;
        let workspace = workspace_of(cx, &info)?;
        let read = |what: &str, read: fn(&Path) -> std::io::Result<Option<String>>| {
            read(&workspace).map_err(|e| EngineError::io(format!("reading the loop's {what}"), e))
        };
        Ok(LoopFiles {
            anchor: read("anchor", owned::read_anchor)?,
            progress: read("progress notes", owned::read_progress)?,
            guardrails: read("guardrails", owned::read_guardrails)?,
        })
    }

    /// Replaces the loop's anchor or guardrails with the user's text; the
    /// next iteration reads it.
    pub fn save_loop_file(&self, cx: &Ctx, id: &LoopId, file: LoopFile, text: &str) -> Result<LoopFiles, EngineError> {
        if text.len() > MAX_LOOP_FILE_BYTES {
            return Err(EngineError::InvalidInput { field: "text", reason: "longer than 256 KiB".into() });
        }
        let info = self.get_loop(cx, id)?;
        let workspace = workspace_of(cx, &info)?;
        owned::write_loop_file(&workspace, file, text)
            .map_err(|e| EngineError::io("saving a loop file".to_owned(), e))?;
        self.loop_files(cx, id)
    }

    /// The iteration's task was given a fresh session in `workspace`: an
    /// anchor deleted since is written again from the loop's goal first.
    pub(super) fn iteration_started(
        &mut self,
        cx: &mut Ctx,
        iteration: &LoopIteration,
        task: &TaskId,
        session: &SessionId,
        workspace: &Path,
    ) {
        let Ok(Some(info)) = cx.store.get_loop(&iteration.loop_id) else { return };
        ensure_anchor(cx, &info, workspace);
        let started = Iteration {
            seq: info.iteration_count + 1,
            number: iteration.number,
            task_id: Some(task.clone()),
            session_id: Some(session.clone()),
            started_at: now(),
            outcome: IterationOutcome::Running,
            spent: Default::default(),
        };
        let info = match save_iteration(cx, &info.id, &started) {
            Ok(info) => info,
            Err(error) => {
                tracing::error!(%error, "recording a loop iteration failed");
                info
            }
        };
        log_loop(cx, &info, LoopStep::Iteration { number: iteration.number }, Some((session, task)));
    }

    /// An iteration ended (its turn, or its process) with `stop_reason`:
    /// the judge decides what follows.
    pub fn iteration_ended(&mut self, cx: &mut Ctx, iteration: &LoopIteration, stop_reason: &str) {
        let Ok(Some(info)) = cx.store.get_loop(&iteration.loop_id) else { return };
        let at = now();
        let running = cx.store.running_iterations(&info.id).unwrap_or_default();
        let Some(mut entry) = running.into_iter().rev().find(|i| i.number == iteration.number) else { return };
        let stop_reason = kept_stop_reason(stop_reason.trim());
        entry.outcome = IterationOutcome::Ended { at, stop_reason: stop_reason.clone(), verdict: Verdict::Continue };
        if !info.is_active() {
            // Cancelled meanwhile: recorded, not judged.
            if let Err(error) = save_iteration(cx, &info.id, &entry) {
                tracing::error!(%error, "recording a loop iteration failed");
            }
            return;
        }
        let workspace = workspace_of(cx, &info);
        let progress = workspace.as_ref().ok().and_then(|ws| match owned::read_progress(ws) {
            Ok(progress) => progress,
            Err(error) => {
                tracing::warn!(%error, "a loop's progress file could not be read");
                None
            }
        });
        // The latest stop reasons (not the whole history), this one's last.
        let weighed = stop_reasons_weighed(&info.settings);
        let mut stop_reasons =
            cx.store.loop_stop_reasons(&info.id, weighed.saturating_sub(1)).unwrap_or_else(|error| {
                tracing::error!(%error, "reading a loop's stop reasons failed");
                Vec::new()
            });
        stop_reasons.push(stop_reason.clone());
        let evidence = Evidence {
            stop_reasons: &stop_reasons,
            progress: progress.as_deref(),
            last_message: &stop_reason,
            iterations: info.iterations_run + 1,
            cancelled: false,
        };
        let verdict = judge(&info.settings, &evidence);
        entry.outcome = IterationOutcome::Ended { at, stop_reason, verdict: verdict.clone() };
        if let Err(error) = cx.store.save_iteration(&info.id, &entry) {
            tracing::error!(%error, "recording a loop iteration failed");
        }
        // Errors that keep coming back become guardrails the next prompt points to.
        if let Ok(workspace) = &workspace {
            let known = owned::read_guardrails(workspace).ok().flatten().unwrap_or_default();
            let recent = &stop_reasons[stop_reasons.len().saturating_sub(GUARDRAIL_WINDOW)..];
            let found = new_guardrails(recent, &known);
            if !found.is_empty()
                && let Err(error) = owned::add_guardrails(workspace, &found)
            {
                tracing::warn!(%error, "a loop's guardrails could not be written");
            }
        }
        let mut info = info;
        info.state = match &verdict {
            // Its iteration used up its budget (the loop's or its agent's day's): the loop ends with it.
            _ if super::spent::ended_over_budget(cx, entry.task_id.as_ref()) => {
                LoopState::OverBudget { at, budget: super::spent::loop_budget_words(cx, &info) }
            }
            Verdict::Continue => LoopState::Active,
            Verdict::Complete { why } => LoopState::Complete { at, why: why.clone() },
            Verdict::Stalled { repeated, reason } => {
                LoopState::Stalled { at, repeated: *repeated, reason: reason.clone() }
            }
            Verdict::Cancelled => LoopState::Cancelled { at },
        };
        let info = match save_loop(cx, &info) {
            Ok(info) => info,
            Err(error) => {
                tracing::error!(%error, "recording a loop's verdict failed");
                info
            }
        };
        let at_work = entry.session_id.as_ref().zip(entry.task_id.as_ref());
        log_loop(cx, &info, LoopStep::Judged { number: iteration.number, verdict: verdict.clone() }, at_work);
        // Not once its budget ended it, whatever the judge said.
        if verdict == Verdict::Continue && info.state == LoopState::Active {
            match workspace {
                Ok(workspace) => {
                    if let Err(error) = self.queue_iteration(cx, &info, &workspace, true) {
                        tracing::error!(%error, "queueing a loop's next iteration failed");
                    }
                }
                Err(error) => self.workspace_gone(cx, info, &error),
            }
        }
    }

    /// The iteration's agent ended before its prompt was typed: not an
    /// iteration, a failed start. It is recorded as such and started again
    /// after a wait that grows with each failed start in a row
    /// (`after_failed_start`); after [`MAX_FAILED_STARTS`] the loop ends as
    /// failed to start, with how its agent ended and what it printed.
    pub fn iteration_failed_to_start(
        &mut self,
        cx: &mut Ctx,
        iteration: &LoopIteration,
        task: &TaskId,
        exit: String,
        said: String,
        now: Instant,
    ) {
        let Ok(Some(info)) = cx.store.get_loop(&iteration.loop_id) else { return };
        let at = switchboard_api::now();
        let running = cx.store.running_iterations(&info.id).unwrap_or_default();
        // An agent that could not be started at all has no iteration recorded yet.
        let mut entry = running.into_iter().rev().find(|i| i.number == iteration.number).unwrap_or_else(|| Iteration {
            seq: info.iteration_count + 1,
            number: iteration.number,
            task_id: Some(task.clone()),
            session_id: None,
            started_at: at,
            outcome: IterationOutcome::Running,
            spent: Default::default(),
        });
        entry.outcome = IterationOutcome::FailedStart { at, exit: exit.clone(), said: said.clone() };
        let mut info = match save_iteration(cx, &info.id, &entry) {
            Ok(info) => info,
            Err(error) => {
                tracing::error!(%error, "recording a failed start failed");
                info
            }
        };
        if !info.is_active() {
            return;
        }
        // Its folder is gone: no retry can start it, the user must bring it back.
        if let Err(error @ EngineError::DirectoryMissing { .. }) = workspace_of(cx, &info) {
            return self.workspace_gone(cx, info, &error);
        }
        let in_a_row = cx.store.failed_starts_in_a_row(&info.id, MAX_FAILED_STARTS).unwrap_or_else(|error| {
            tracing::error!(%error, "counting a loop's failed starts failed");
            MAX_FAILED_STARTS
        });
        let at_work = entry.session_id.as_ref().zip(entry.task_id.as_ref());
        log_loop(cx, &info, LoopStep::FailedStart { number: iteration.number, attempt: in_a_row }, at_work);
        match after_failed_start(in_a_row, at) {
            AfterFailedStart::RetryAt { at: retry_at } => {
                let wait = std::time::Duration::from_millis(u64::try_from(retry_at - at).unwrap_or_default());
                self.start_retries.insert(info.id.clone(), now + wait);
            }
            AfterFailedStart::GiveUp => {
                info.state = LoopState::FailedToStart { at, attempts: in_a_row, exit, said };
                if let Err(error) = save_loop(cx, &info) {
                    tracing::error!(%error, "recording a loop that failed to start failed");
                }
                log_loop(cx, &info, LoopStep::FailedToStart { attempts: in_a_row }, None);
            }
        }
    }

    /// Starts again the iterations whose retry time has come (their loop
    /// still active).
    pub(super) fn retry_starts(&mut self, cx: &mut Ctx, now: Instant) {
        let due: Vec<LoopId> =
            self.start_retries.iter().filter(|(_, at)| **at <= now).map(|(id, _)| id.clone()).collect();
        for id in due {
            self.start_retries.remove(&id);
            let info = match cx.store.get_loop(&id) {
                Ok(Some(info)) if info.is_active() => info,
                Ok(_) => continue,
                Err(error) => {
                    tracing::error!(%error, "reading a loop to start it again failed");
                    continue;
                }
            };
            let queued =
                workspace_of(cx, &info).and_then(|workspace| self.queue_iteration(cx, &info, &workspace, true));
            match queued {
                Ok(_) => {}
                Err(error @ EngineError::DirectoryMissing { .. }) => self.workspace_gone(cx, info, &error),
                Err(error) => tracing::error!(%error, "starting a loop's iteration again failed"),
            }
        }
    }

    /// The iteration's session is restarting and the iteration goes back
    /// in the queue: the run cut short is interrupted (it does not count)
    /// and runs again under its number.
    pub(super) fn iteration_interrupted(&mut self, cx: &mut Ctx, iteration: &LoopIteration) {
        let running = cx.store.running_iterations(&iteration.loop_id).unwrap_or_default();
        for mut entry in running.into_iter().filter(|i| i.number == iteration.number) {
            entry.outcome = IterationOutcome::Interrupted { at: now() };
            if let Err(error) = save_iteration(cx, &iteration.loop_id, &entry) {
                tracing::error!(%error, "recording an interrupted loop iteration failed");
            }
        }
    }

    /// After a restart: an iteration the app stopped during does not count;
    /// it is marked interrupted and run again (first in the queue), unless
    /// its task is still queued (it never reached the agent).
    pub fn recover_loops(&mut self, cx: &mut Ctx) -> Result<(), EngineError> {
        for info in cx.store.active_loops()? {
            let queued = cx
                .store
                .active_tasks(Some(&info.profile_id))?
                .into_iter()
                .any(|t| t.spec.loop_iteration.as_ref().is_some_and(|i| i.loop_id == info.id));
            let mut info = info;
            for mut iteration in cx.store.running_iterations(&info.id)? {
                iteration.outcome = IterationOutcome::Interrupted { at: now() };
                info = save_iteration(cx, &info.id, &iteration)?;
            }
            if !queued {
                match workspace_of(cx, &info) {
                    Ok(workspace) => {
                        self.queue_iteration(cx, &info, &workspace, true)?;
                    }
                    Err(error) => self.workspace_gone(cx, info, &error),
                }
            }
        }
        Ok(())
    }

    /// Queues the loop's next iteration as a task: at the back of the queue
    /// for its first, at the front after that (the loop goes on).
    fn queue_iteration(
        &mut self,
        cx: &mut Ctx,
        info: &LoopInfo,
        workspace: &Path,
        front: bool,
    ) -> Result<TaskInfo, EngineError> {
        let number = info.iterations_run + 1;
        let guardrails = owned::read_guardrails(workspace).ok().flatten().is_some();
        let profile = cx.profile(&info.profile_id)?;
        let spec = TaskSpec {
            title: Some(iteration_title(&info.settings.goal, number)),
            time_limit_secs: Some(info.settings.iteration_time_limit_secs.unwrap_or(profile.spec.task_time_limit_secs)),
            loop_iteration: Some(LoopIteration { loop_id: info.id.clone(), number }),
            ..TaskSpec::new(info.profile_id.clone(), iteration_prompt(number, &info.settings, guardrails))
        };
        let order = cx.store.queue_bound(&info.profile_id, !front)?;
        let task = TaskInfo::queued(TaskId::new(), spec, order, now());
        cx.store.save_task(&task)?;
        log_task(cx, &task, LogKind::TaskQueued { priority: task.spec.priority });
        super::report_task(cx, task.clone());
        self.pump(cx, &info.profile_id);
        task_of(cx, &task.id)
    }
}

impl TaskDesk {
    /// The loop's agent's folder is gone (`error` says which): the loop stops
    /// in a state that says so, its waiting iteration with it, and the user is
    /// told; it resumes once the folder is back.
    fn workspace_gone(&mut self, cx: &mut Ctx, mut info: LoopInfo, error: &EngineError) {
        let path = match error {
            EngineError::DirectoryMissing { path } => path.display().to_string(),
            _ => cx.profile(&info.profile_id).map(|p| p.spec.cwd).unwrap_or_default(),
        };
        tracing::warn!(loop_id = %info.id, %path, "a loop's folder is gone; the loop stops until it is back");
        self.start_retries.remove(&info.id);
        info.state = LoopState::WorkspaceGone { at: now(), path };
        let info = match save_loop(cx, &info) {
            Ok(info) => info,
            Err(error) => {
                tracing::error!(%error, "recording a loop whose folder is gone failed");
                info
            }
        };
        log_loop(cx, &info, LoopStep::WorkspaceGone, None);
        // An iteration still queued for it would only fail the same way.
        let queued = cx.store.active_tasks(Some(&info.profile_id)).unwrap_or_default();
        for task in queued.into_iter().filter(|t| {
            t.state() == switchboard_api::TaskState::Queued
                && t.spec.loop_iteration.as_ref().is_some_and(|i| i.loop_id == info.id)
        }) {
            if let Err(error) = self.cancel(cx, &task.id) {
                tracing::error!(%error, "cancelling the iteration of a loop whose folder is gone failed");
            }
        }
    }
}

/// An iteration's task title: the loop's goal (its first line) and the
/// iteration's number, not the prompt it is typed.
fn iteration_title(goal: &str, number: u32) -> String {
    let suffix = format!(" · iteration {number}");
    let room = switchboard_api::TITLE_CHARS.saturating_sub(suffix.chars().count());
    format!("{}{suffix}", switchboard_api::first_line(goal, room))
}

/// Writes the loop's anchor again from its goal if it is gone from the
/// workspace (an anchor the user edited is kept as it is).
fn ensure_anchor(cx: &Ctx, info: &LoopInfo, workspace: &Path) {
    match owned::read_anchor(workspace) {
        Ok(Some(_)) => {}
        Ok(None) => match owned::write_anchor(workspace, &info.settings) {
            Ok(_) => log_loop(cx, info, LoopStep::AnchorRewritten, None),
            Err(error) => tracing::warn!(%error, "a loop's anchor could not be written again"),
        },
        Err(error) => tracing::warn!(%error, "a loop's anchor could not be read"),
    }
}

/// Whether the app can see a loop iteration of this agent end without its
/// process ending: hooks (Claude Code, Codex) say so at the turn's end; a
/// plain agent is back at its ready pattern's prompt, or, without one, has
/// been quiet for `turn_quiet_secs` after it answered (0: never by quiet).
pub(crate) fn iteration_end_seen(
    kind: switchboard_protocol::AgentKind,
    ready_pattern: bool,
    turn_quiet_secs: u32,
) -> bool {
    kind != switchboard_protocol::AgentKind::Generic || ready_pattern || turn_quiet_secs > 0
}

fn validate_settings(mut settings: LoopSettings) -> Result<LoopSettings, EngineError> {
    let invalid = |field, reason: &str| Err(EngineError::InvalidInput { field, reason: reason.to_owned() });
    settings.goal = settings.goal.trim().to_owned();
    settings.stop_word = settings.stop_word.trim().to_owned();
    settings.promise = settings.promise.map(|p| p.trim().to_owned()).filter(|p| !p.is_empty());
    if settings.goal.is_empty() {
        return invalid("goal", "say what the loop works toward");
    }
    if settings.goal.len() > crate::engine::MAX_INSTRUCTION_BYTES {
        return invalid("goal", "too long: put the details in a file the goal names");
    }
    if settings.stop_word.is_empty() || settings.stop_word.chars().any(char::is_whitespace) {
        return invalid("stop_word", "one word, without spaces");
    }
    if !(1..=MAX_LOOP_ITERATIONS).contains(&settings.max_iterations) {
        return invalid("max_iterations", "between 1 and 10,000");
    }
    if !(2..=MAX_LOOP_ITERATIONS).contains(&settings.stall_after) {
        return invalid("stall_after", "at least 2 identical stop reasons in a row");
    }
    if settings.iteration_time_limit_secs.is_some_and(|s| !(1..=crate::validate::MAX_TIME_LIMIT_SECS).contains(&s)) {
        return invalid("iteration_time_limit_secs", "between 1 second and the longest time limit");
    }
    Ok(settings)
}

fn workspace_of(cx: &Ctx, info: &LoopInfo) -> Result<PathBuf, EngineError> {
    let profile = cx.profile(&info.profile_id)?;
    let place = super::super::isolation::place_of_loop(cx, &profile, &info.id, &info.settings.goal)?;
    Ok(place.path().to_path_buf())
}

/// Records a loop's step in the event log (its iteration's session and
/// task where it has them).
fn log_loop(cx: &Ctx, info: &LoopInfo, step: LoopStep, at_work: Option<(&SessionId, &TaskId)>) {
    let about = LogAbout {
        session: at_work.map(|(session, _)| session),
        task: at_work.map(|(_, task)| task),
        loop_id: Some(&info.id),
        profile: Some(&info.profile_id),
    };
    if let Err(error) = cx.log(now(), about, &LogKind::Loop { loop_id: info.id.clone(), step }) {
        tracing::error!(%error, "logging a loop's step failed");
    }
}

/// Records the loop's own row (its state), then reports the loop as the
/// window sees it: its latest iterations and its counts. A loop that ended
/// is followed by the automation desk (the run that started it may have
/// ended badly).
fn save_loop(cx: &mut Ctx, info: &LoopInfo) -> Result<LoopInfo, EngineError> {
    cx.store.save_loop(info)?;
    if info.state != LoopState::Active {
        cx.follow(crate::engine::context::Follow::LoopEnded { loop_id: info.id.clone() });
    }
    reported(cx, &info.id)
}

/// Records one iteration (its row alone), then reports the loop.
fn save_iteration(cx: &Ctx, loop_id: &LoopId, iteration: &Iteration) -> Result<LoopInfo, EngineError> {
    cx.store.save_iteration(loop_id, iteration)?;
    reported(cx, loop_id)
}

/// The loop as stored, reported to the window.
fn reported(cx: &Ctx, loop_id: &LoopId) -> Result<LoopInfo, EngineError> {
    let info = cx.store.get_loop(loop_id)?.ok_or_else(|| EngineError::Internal("a loop just saved is gone".into()))?;
    let info = super::spent::of_loop(cx, info);
    cx.emit(EngineEvent::LoopChanged { info: info.clone() });
    Ok(info)
}

/// Ends an iteration's session: the next one is a fresh process.
pub(super) fn end_session(cx: &Ctx, session: &SessionId) {
    if cx.sessions.is_running(session) {
        cx.sessions.send(session, crate::session::Control::Kill);
    }
}

/// The stop reason of an iteration whose process ended: the last lines it
/// printed after the echo of `typed` (its prompt, however the terminal
/// wrapped it), at most 20.
pub(super) fn last_lines(lines: &[String], typed: &str) -> String {
    let squeeze = |text: &str| text.chars().filter(|c| !c.is_whitespace()).collect::<String>();
    let prompt = squeeze(typed);
    let tail: String = prompt.chars().rev().take(24).collect::<Vec<_>>().into_iter().rev().collect();
    let mut seen = String::new();
    let mut after = 0;
    for (index, line) in lines.iter().enumerate() {
        seen.push_str(&squeeze(line));
        if !tail.is_empty() && seen.ends_with(&tail) {
            after = index + 1;
        }
    }
    let shown: Vec<&str> = lines[after..].iter().map(|l| l.trim_end()).filter(|l| !l.is_empty()).collect();
    shown[shown.len().saturating_sub(20)..].join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_loop_needs_a_way_to_see_an_iteration_end() {
        use switchboard_protocol::AgentKind::{ClaudeCode, Codex, Generic};
        let cases = [
            (Generic, true, 0, true),
            (Generic, false, 30, true),
            (Generic, false, 0, false),
            (ClaudeCode, false, 0, true),
            (Codex, false, 0, true),
        ];
        for (kind, pattern, quiet, seen) in cases {
            assert_eq!(iteration_end_seen(kind, pattern, quiet), seen, "{kind:?} pattern {pattern} quiet {quiet}");
        }
    }

    #[test]
    fn loop_settings_are_checked_with_words() {
        let ok = LoopSettings::new("  Make the tests pass ");
        assert_eq!(validate_settings(ok.clone()).unwrap().goal, "Make the tests pass");
        let cases: [(LoopSettings, &str); 6] = [
            (LoopSettings::new(" "), "goal"),
            (LoopSettings { stop_word: "ALL DONE".into(), ..ok.clone() }, "stop_word"),
            (LoopSettings { max_iterations: 0, ..ok.clone() }, "max_iterations"),
            (LoopSettings { max_iterations: MAX_LOOP_ITERATIONS + 1, ..ok.clone() }, "max_iterations"),
            (LoopSettings { stall_after: 1, ..ok.clone() }, "stall_after"),
            (LoopSettings { iteration_time_limit_secs: Some(0), ..ok.clone() }, "iteration_time_limit_secs"),
        ];
        for (settings, field) in cases {
            assert_eq!(validate_settings(settings).unwrap_err().field(), Some(field));
        }
        assert_eq!(last_lines(&["a".into(), "".into(), "b  ".into()], "typed"), "a\nb");
        // What the terminal echoed of the prompt (wrapped) is not the agent's.
        let screen: Vec<String> = [
            "agent> Work on the",
            "next step now.",
            "received: Work on the next st",
            "ep now.",
            "[1/1] error: 3 tests fail",
        ]
        .map(String::from)
        .into();
        assert_eq!(last_lines(&screen, "Work on the next step now."), "[1/1] error: 3 tests fail");
    }
}
