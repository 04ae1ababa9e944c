//! Handing tasks to their agents: the queue pumped, a task's place readied, its session found, its prompt typed.

use super::carry::Carry;
use super::{
    Phase, Preparation, Preparing, TaskDesk, TaskNote, Work, carry, emit_queue, ending, limits, log_task,
    report_queued, report_task, set_wait, status_stamp, task_of,
};
use crate::engine::context::Ctx;
use crate::engine::isolation::Place;
use crate::error::{EngineError, Responder};
use crate::session::typing::ReadyWhen;
use crate::session::{BackWatchRequest, Control, TypeRequest};
use crate::workspace::Workspace;
use std::path::{Path, PathBuf};
use std::time::Duration;
use switchboard_api::now;
use switchboard_api::{CompletionRule, LogKind, Profile, QueuePause, TaskInfo, TaskSpec, TaskState, WaitingFor};
use switchboard_protocol::signal::teach::Tools;
use switchboard_protocol::summary::{Brief, SUMMARIES_DIR, task_prompt};
use switchboard_protocol::{ProfileId, SessionId, TaskId, TermSize};
use tokio::time::Instant;

impl TaskDesk {
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
        // Its account at its usage limit, or its day's budget used: nothing
        // new is typed until it goes on (the next day is woken for).
        if let Some(held) = limits::queue_held(cx, profile_id) {
            // Held for its day anew: its queued tasks say so.
            if let switchboard_api::WaitingFor::DailyBudget { until, .. } = held
                && self.held_days.insert(profile_id.clone(), until).is_none()
            {
                super::report_queued(cx, profile_id);
            }
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
    pub(super) fn not_started(&mut self, cx: &mut Ctx, profile_id: &ProfileId, next: &TaskId, error: String) {
        tracing::warn!(task = %next, %error, "a task could not be started");
        let mut iteration = None;
        if let Ok(task) = task_of(cx, next) {
            iteration = task.spec.loop_iteration.clone();
            self.finish(cx, task, TaskState::Failed, Some(error.clone()), None);
        }
        match iteration {
            // A loop's iteration is a failed start: its loop tries again later,
            // then ends saying why, rather than waiting behind a paused queue.
            Some(iteration) => cx.follow(crate::engine::context::Follow::IterationFailedToStart {
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
    pub(super) fn prepare(&mut self, cx: &mut Ctx, profile_id: &ProfileId, task: &TaskInfo, preparation: Preparation) {
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
                    let made = tokio::task::spawn_blocking(move || crate::engine::isolation::make(&plan))
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
    pub(super) fn prepared(
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
                match crate::engine::isolation::recorded(cx, record, Some(&task)) {
                    Ok(crate::engine::isolation::Place::Worktree { record, .. }) => Some(*record),
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
            None => cx.store.get_worktree(&crate::engine::isolation::worktree_key(&task)).ok().flatten(),
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

    /// Hands a task to its agent: its place readied first (a worktree made or
    /// set up, which hands it over when done), then its session, its prompt
    /// typed, and the work watched.
    pub(super) fn dispatch(
        &mut self,
        cx: &mut Ctx,
        profile_id: &ProfileId,
        task_id: &TaskId,
    ) -> Result<(), EngineError> {
        let mut task = task_of(cx, task_id)?;
        let profile = cx.profile(profile_id)?;
        let Some(place) = self.place_ready(cx, profile_id, &profile, &task)? else { return Ok(()) };
        if let Place::Worktree { record, .. } = &place {
            cx.follow(crate::engine::context::Follow::WorktreeInUse { owner: record.owner.clone() });
        }
        let workspace = place.path().to_path_buf();
        let ready = ReadyWhen::for_profile(&profile)?;
        let turn_quiet = turn_quiet(cx);
        let iteration = task.spec.loop_iteration.clone();
        let context_files = if iteration.is_some() { Vec::new() } else { write_context_files(&workspace, &task.spec)? };
        let (session_id, retell) = session_for(cx, &profile, &place, &task.id, iteration.is_some())?;
        self.closing.remove(&session_id);

        // A new task: the team of the one before is over.
        crate::engine::status::team_reset(cx, &session_id);
        let handed_at = now();
        task.start(session_id.clone(), handed_at);
        cx.task_waits.remove(&task.id);
        cx.store.save_task(&task)?;
        log_task(cx, &task, LogKind::TaskStarted);
        report_task(cx, task.clone());

        // Watch before typing: the agent may answer at once.
        self.watch(&workspace);
        let time_limit = Duration::from_secs(task.spec.time_limit_secs.unwrap_or_default().into());
        let taught = Taught {
            tools: cx.sessions.get(&session_id).map_or(Tools::Absent, |entry| entry.tools),
            mcp_binary: cx.sessions.mcp_binary().filter(|_| profile.spec.switchboard_tools),
        };
        let (text, by_prompt) =
            prompt_of(&task, &profile, &workspace, (&session_id, taught), &context_files, retell.as_deref());
        if let Some(iteration) = &iteration {
            self.iteration_started(cx, iteration, &task.id, &session_id, &workspace);
        }
        // An iteration of an agent without hooks ends when it is back at its
        // prompt (or when it exits); one with hooks, at its Stop. So does a
        // task done when its prompt comes back.
        let generic_iteration = iteration.is_some() && profile.spec.kind == switchboard_protocol::AgentKind::Generic;
        let back_quiet = (generic_iteration || by_prompt).then_some(turn_quiet);
        let request = self.type_request(&task.id, text, ready, back_quiet);
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

    /// The task's place, ready to work in; none when it is readied first (a
    /// worktree to make, its setup command to run), which hands it over after.
    pub(super) fn place_ready(
        &mut self,
        cx: &mut Ctx,
        profile_id: &ProfileId,
        profile: &Profile,
        task: &TaskInfo,
    ) -> Result<Option<Place>, EngineError> {
        let place = crate::engine::isolation::place_of_task(cx, profile, task)?;
        match &place {
            Place::ToMake(plan) => {
                self.prepare(cx, profile_id, task, Preparation::Make(plan.clone()));
                return Ok(None);
            }
            Place::Worktree { path, record } if record.setup == crate::worktree::Setup::Pending => {
                match cx.store.repository_setup(&record.repository)? {
                    Some(command) if !command.trim().is_empty() => {
                        self.prepare(cx, profile_id, task, Preparation::Setup { path: path.clone(), command });
                        return Ok(None);
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
        Ok(Some(place))
    }

    /// The typing of a task's prompt, with what the session reports back to
    /// the desk: typed, held, and (`back_quiet`: the quiet that ends a turn)
    /// the agent back at its prompt.
    pub(super) fn type_request(
        &self,
        task_id: &TaskId,
        text: String,
        ready: ReadyWhen,
        back_quiet: Option<Duration>,
    ) -> TypeRequest {
        let notes = self.notes.clone();
        let typed_id = task_id.clone();
        let reply = Responder::new(move |result| {
            // The desk may be gone (the engine stopped); nothing waits then.
            notes.send(TaskNote::Typed { task_id: typed_id, result }).ok();
        });
        let back = back_quiet.map(|turn_quiet| {
            let notes = self.notes.clone();
            let task_id = task_id.clone();
            let reply = Responder::new(move |lines: Result<Vec<String>, EngineError>| {
                if let Ok(lines) = lines {
                    notes.send(TaskNote::PromptReturned { task_id, lines }).ok();
                }
            });
            BackWatchRequest { reply, turn_quiet }
        });
        let held = {
            let notes = self.notes.clone();
            let task_id = task_id.clone();
            let report: crate::session::HeldReport = Box::new(move |held| {
                notes.send(TaskNote::Held { task_id: task_id.clone(), held }).ok();
            });
            Some(report)
        };
        TypeRequest { tag: task_id.to_string(), text, ready, reply, held, back }
    }
}

/// How long a quiet agent has ended its answer, without a ready pattern or
/// hooks to say so (a loop's iteration): the user's setting.
pub(super) fn turn_quiet(cx: &Ctx) -> Duration {
    match cx.store.settings() {
        Ok(settings) => Duration::from_secs(settings.turn_quiet_secs.into()),
        Err(error) => {
            tracing::warn!(%error, "the settings could not be read; a turn ends by the default quiet");
            Duration::from_secs(switchboard_api::DEFAULT_TURN_QUIET_SECS.into())
        }
    }
}

/// The session a task goes to, and the tasks done before it to retell there
/// (none: nothing to retell).
///
/// A loop iteration is a fresh session (for Claude Code a new
/// conversation); a task takes the agent's latest session, not one busy
/// with work delegated to it. An agent that works apart takes a session
/// already in the task's worktree (a review's follow-up), else a fresh one
/// there.
pub(super) fn session_for(
    cx: &mut Ctx,
    profile: &Profile,
    place: &Place,
    task_id: &TaskId,
    iteration: bool,
) -> Result<(SessionId, Option<Vec<TaskInfo>>), EngineError> {
    let here = place.session_workspace().map(|p| p.to_string_lossy().into_owned());
    let reusable = match iteration {
        true => None,
        false => cx.sessions.latest_running_of(&profile.id, |id| {
            !cx.delegate_at_work(id) && cx.sessions.get(id).is_some_and(|entry| entry.info.workspace == here)
        }),
    };
    if let Some(id) = reusable {
        return Ok((id, None));
    }
    // A worktree worked in before, whose session has ended: the new one
    // carries on its conversation, or is told what was done there.
    let earlier = match place {
        Place::Worktree { record, .. } if !iteration => earlier_in(cx, &record.owner, task_id),
        _ => (None, Vec::new()),
    };
    let carried = carry::carry(profile.spec.kind, earlier.0.as_ref().map(Option::as_deref));
    let resume = match &carried {
        Carry::Resume { conversation } => Some(conversation.as_str()),
        Carry::Fresh | Carry::Retell => None,
    };
    let started = cx.start_session(&profile.id, TermSize::DEFAULT, resume, place.session_workspace())?.id;
    Ok((started, (carried == Carry::Retell).then_some(earlier.1)))
}

/// What a task's agent is taught with: whether it has Switchboard's tools,
/// and the tools' server to name in its workspace.
#[derive(Debug, Clone, Copy)]
pub(super) struct Taught<'a> {
    pub tools: Tools,
    pub mcp_binary: Option<&'a Path>,
}

/// What is typed to hand `task` over, and whether the task is done when the
/// agent's prompt comes back.
pub(super) fn prompt_of(
    task: &TaskInfo,
    profile: &Profile,
    workspace: &Path,
    (session_id, tools): (&SessionId, Taught<'_>),
    context_files: &[&str],
    retell: Option<&[TaskInfo]>,
) -> (String, bool) {
    let iteration = task.spec.loop_iteration.is_some();
    // An agent taught the signal protocols finds them in its workspace; the
    // typed task says where, with its id (or names its tools).
    let agent_id = session_id.to_string();
    let taught = profile.spec.signal_protocols && crate::tasks::owned::teach_workspace(workspace, tools.mcp_binary);
    // The summary's format is in a file the task points to, so the terminal
    // shows the user's instruction, not the protocol; where it cannot be
    // written, the task carries it.
    let completion_file = match crate::tasks::owned::write_completion_file(workspace) {
        Ok(_) => true,
        Err(error) => {
            tracing::warn!(%error, "the summary's format could not be written; the task carries it");
            false
        }
    };
    let brief = Brief {
        completion_file,
        instruction: &task.spec.instruction,
        context_files,
        goals: task.spec.goals.as_deref(),
        success_criteria: task.spec.success_criteria.as_deref(),
        agent_id: taught.then_some(agent_id.as_str()),
        tools: tools.tools,
    };
    // An iteration is typed its prompt alone (its instruction); so is a
    // task done when its prompt comes back (a shell would run any line of
    // the protocol's as a command).
    let by_prompt = !iteration && profile.spec.completion == CompletionRule::Prompt;
    let text = match retell {
        _ if iteration || by_prompt => task.spec.instruction.clone(),
        None => task_prompt(&task.id, &brief),
        Some(earlier) => carry::retold(&earlier.iter().map(told).collect::<Vec<_>>(), &task_prompt(&task.id, &brief)),
    };
    (text, by_prompt)
}

/// What was done before in the worktree of `owner`, for a task there
/// (`task`) whose session starts now: the conversation of the last session
/// that worked there (none when none did; `Some(None)` when its
/// conversation is not known), and the earlier tasks that ran there.
pub(super) fn earlier_in(cx: &Ctx, owner: &str, task: &TaskId) -> (Option<Option<String>>, Vec<TaskInfo>) {
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
pub(super) fn told(task: &TaskInfo) -> carry::Earlier<'_> {
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

/// Writes the task's context texts into the workspace (each atomically);
/// returns the names of the files written, for the prompt.
pub(super) fn write_context_files(workspace: &Path, spec: &TaskSpec) -> Result<Vec<&'static str>, EngineError> {
    let mut written = Vec::new();
    let failed =
        |name: &str, e: std::io::Error| EngineError::io(format!("writing {name} into {}", workspace.display()), e);
    // Opened, not created: a workspace that vanished must not be made again.
    let files = Workspace::open(workspace).map_err(|e| failed(SUMMARIES_DIR, e))?;
    files.create_folder(SUMMARIES_DIR).map_err(|e| failed(SUMMARIES_DIR, e))?;
    for (name, text) in spec.context_files() {
        files.write(name, text.as_bytes()).map_err(|e| failed(name, e))?;
        written.push(name);
    }
    Ok(written)
}
