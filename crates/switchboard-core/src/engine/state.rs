//! The engine task: a thin router. It owns the shared context and the
//! desks, takes requests, session ends, helper notes, watch events and
//! timers in turn, hands each to the desk it concerns, and then hands out
//! the follow-ups desks left for each other.

use std::time::Duration;

use switchboard_protocol::hook::HookEnvelope;
use switchboard_protocol::{ProfileId, SessionId, SignalId, TaskId, TermSize};
use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;

use super::context::{Ctx, Follow};
use super::hooks::{HookDesk, Hooked};
use super::sessions::{EndWaiter, invalid_size};
use super::signals::SignalDesk;
use super::status;
use super::tasks::{BeforeRestart, TaskDesk, TaskNote};
use crate::config::EngineConfig;
use crate::error::{EngineError, Responder};
use crate::instance::InstanceLock;
use crate::server::SocketServer;
use crate::session::{Control, OutputSink, SessionEnd, SessionScan, SubscriptionId};
use crate::tasks::watch::WatchEvent;
use crate::validate::{self, validate_settings};
use switchboard_api::{
    AgentPreset, AgentStatusInfo, Command, EngineEvent, LogEntry, PermissionDecision, PermissionRequest, Profile,
    ProfileProblem, ProfileSpec, QueueStatus, Reply, RestartTask, Restarted, ScreenSnapshot, SessionInfo,
    SignalChannel, SignalRecord, SignalResponse, Submitted, TaskRecord, TaskSpec, now,
};

/// How often stale agent statuses are looked for.
const RECONCILE_INTERVAL: Duration = Duration::from_secs(15);

/// How often, while the store cannot write, a probe looks whether it can
/// again (and the window is told once it can).
const STORAGE_PROBE_INTERVAL: Duration = Duration::from_secs(1);

/// How often tasks at work are looked at for agents gone quiet.
const QUIET_CHECK_INTERVAL: Duration = Duration::from_secs(1);

/// Most sessions returned by a listing, newest kept.
pub const MAX_LISTED_SESSIONS: usize = 500;

/// A call carried out on the engine task, with the engine's state; or,
/// when the engine stopped before it came to it, with none (it then answers
/// that the engine has stopped).
pub(crate) type Call = Box<dyn FnOnce(Option<&mut EngineState>) + Send>;

/// What reaches the engine task through its handle or the socket.
/// A search reads the rows its words narrow to this many at a time (tasks
/// and signals each), newest first, until it has found enough or read
/// `SEARCH_BATCHES` batches: a word that is also in every stored record
/// (such as "tests") still finds an older task that holds it.
const SEARCH_BATCH: usize = 500;
const SEARCH_BATCHES: usize = 40;

pub(crate) enum Request {
    /// A command in the wire vocabulary (from the socket).
    Command(Box<Command>, Responder<Reply>),
    /// A typed call (from the handle).
    Call(Call),
    /// Stop every agent, then end the engine.
    Shutdown(oneshot::Sender<()>),
}

/// The inputs the engine task waits on besides requests.
pub(super) struct Inputs {
    pub requests: mpsc::Receiver<Request>,
    pub ended: mpsc::UnboundedReceiver<SessionEnd>,
    pub notes: mpsc::UnboundedReceiver<TaskNote>,
    pub watch_events: mpsc::UnboundedReceiver<WatchEvent>,
    pub scans: mpsc::Receiver<SessionScan>,
    pub radar: mpsc::UnboundedReceiver<super::worktrees::radar::RadarReport>,
    pub worktree_notes: mpsc::UnboundedReceiver<super::worktrees::WorktreeNote>,
}

pub(crate) struct EngineState {
    pub(super) cx: Ctx,
    pub(super) tasks: TaskDesk,
    pub(super) signals: SignalDesk,
    pub(super) hooks: HookDesk,
    pub(super) worktrees: super::worktrees::WorktreeDesk,
    pub(super) attention: super::attention::AttentionBoard,
    pub(super) config: EngineConfig,
    /// The app's `PATH`, for finding agents' commands.
    pub(super) path_env: Option<std::ffi::OsString>,
    pub(super) server: Option<SocketServer>,
    /// Released when the engine task ends, after every agent has stopped.
    pub(super) _instance: InstanceLock,
}

impl EngineState {
    pub(super) async fn run(mut self, mut inputs: Inputs) {
        // Here rather than in `Engine::start`, so the caller (the window) does
        // not wait for agents to spawn. Requests queue meanwhile and see them.
        self.start_on_launch();
        super::signals::recover_delegations(&mut self.cx);
        if let Err(error) = self.tasks.recover_loops(&mut self.cx) {
            tracing::error!(%error, "taking up the loops of the last run failed");
        }
        self.tasks.recover_limits(&mut self.cx);
        self.tasks.pump_all(&mut self.cx);
        self.run_follows();
        let mut shutdown_waiters = Vec::new();
        let mut reconcile = tokio::time::interval(RECONCILE_INTERVAL.min(self.config.working_idle));
        reconcile.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut quiet_check = tokio::time::interval(QUIET_CHECK_INTERVAL);
        quiet_check.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut storage_probe = tokio::time::interval(STORAGE_PROBE_INTERVAL);
        storage_probe.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            let deadline = self.tasks.next_deadline(&self.cx);
            let permission_deadline = self.hooks.next_permission_deadline();
            let attention_round = self.cx.changed().then(|| self.attention.next_round());
            tokio::select! {
                request = inputs.requests.recv(), if shutdown_waiters.is_empty() => match request {
                    Some(Request::Shutdown(done)) => {
                        shutdown_waiters.push(done);
                        self.stop_all();
                    }
                    Some(Request::Command(command, reply)) => self.on_command(*command, reply),
                    Some(Request::Call(call)) => call(Some(&mut self)),
                    None => {
                        // Every handle is gone: nobody can stop the agents later.
                        shutdown_waiters.push(oneshot::channel().0);
                        self.stop_all();
                    }
                },
                Some(end) = inputs.ended.recv() => {
                    // A session's actor answers "typed" before it reports its end, but the two
                    // come on different channels: the notes already sent are taken first, so an
                    // agent typed to just before it exited is not taken for one never typed to
                    // (a task put back, a loop's failed start).
                    while let Ok(note) = inputs.notes.try_recv() {
                        self.tasks.on_note(&mut self.cx, note);
                    }
                    self.on_session_end(end)
                }
                Some(note) = inputs.notes.recv() => self.tasks.on_note(&mut self.cx, note),
                Some(event) = inputs.watch_events.recv() => {
                    // A summary cannot come before its task was typed: the "typed" notes
                    // already sent are taken first, so a quick agent's task is not
                    // completed as one never typed.
                    while let Ok(note) = inputs.notes.try_recv() {
                        self.tasks.on_note(&mut self.cx, note);
                    }
                    self.tasks.on_watch_event(&mut self.cx, event)
                }
                Some(report) = inputs.radar.recv() => self.worktrees.on_radar(&self.cx, report),
                Some(note) = inputs.worktree_notes.recv() => note(&mut self.worktrees, &mut self.cx),
                Some(scan) = inputs.scans.recv() => {
                    let task = self.tasks.task_of_session(&scan.id);
                    self.signals.on_signal(&mut self.cx, scan.id, SignalChannel::Pty, scan.event, task);
                }
                () = tokio::time::sleep_until(deadline.unwrap_or_else(Instant::now)), if deadline.is_some() => {
                    self.tasks.on_deadline(&mut self.cx, Instant::now());
                }
                _ = quiet_check.tick() => {
                    self.tasks.check_quiet(&mut self.cx, now());
                    self.tasks.check_workspaces(&mut self.cx);
                    self.tasks.check_unreported_turns(&mut self.cx, now());
                    self.signals.check_delegates(&mut self.cx, now());
                }
                // Reported below, after the step.
                () = tokio::time::sleep_until(attention_round.unwrap_or_else(Instant::now)), if attention_round.is_some() => {}
                _ = reconcile.tick() => {
                    status::reconcile_all(&mut self.cx, self.config.working_idle.as_millis() as i64, now());
                }
                _ = storage_probe.tick(), if self.cx.store.problem().is_some() => self.cx.store.probe_write(),
                () = tokio::time::sleep_until(permission_deadline.unwrap_or_else(Instant::now)), if permission_deadline.is_some() => {
                    self.hooks.expire_permissions(&self.cx, Instant::now());
                }
            }
            self.run_follows();
            // A question raised or answered in this step moves its task's wait at once, not
            // at the next second's check.
            self.tasks.check_waiting(&mut self.cx, now(), Instant::now());
            self.report_storage();
            self.report_attention();
            if !shutdown_waiters.is_empty() && self.cx.sessions.running_count() == 0 {
                break;
            }
        }
        // Requests still queued get the answer a later one would get.
        inputs.requests.close();
        while let Ok(request) = inputs.requests.try_recv() {
            match request {
                Request::Call(call) => call(None),
                Request::Command(_, reply) => reply.send(Err(EngineError::EngineStopped)),
                Request::Shutdown(done) => shutdown_waiters.push(done),
            }
        }
        // Release the data directory (and the sessions' actors) before telling
        // anyone the engine stopped: they may start a new one on it at once.
        drop(self);
        for done in shutdown_waiters {
            done.send(()).ok();
        }
        tracing::info!("engine stopped");
    }

    /// Hands each follow-up a desk left to the desk it is for, until none
    /// is left.
    pub(super) fn run_follows(&mut self) {
        while let Some(follow) = self.cx.next_follow() {
            match follow {
                Follow::AgentText { session, text } => {
                    let task = self.tasks.task_of_session(&session);
                    if let Err(error) = self.signals.agent_text(&mut self.cx, session, &text, task) {
                        tracing::warn!(%error, "an agent's words could not be scanned");
                    }
                }
                Follow::Report { session, report } => self.tasks.report_arrived(&mut self.cx, &session, report),
                Follow::TeamSettled { lead } => self.tasks.team_settled(&mut self.cx, &lead),
                Follow::TurnFailed { session, error, refusal } => {
                    self.tasks.turn_failed(&mut self.cx, &session, &error, refusal, &[])
                }
                Follow::TurnRan { session } => self.tasks.turn_ran(&mut self.cx, &session),
                Follow::UsageTold { session, windows } => self.tasks.usage_told_by(&mut self.cx, &session, &windows),
                Follow::TurnEnded { session, last_message } => {
                    self.tasks.turn_ended(&mut self.cx, &session, last_message.as_deref())
                }
                Follow::IterationEnded { iteration, stop_reason } => {
                    self.tasks.iteration_ended(&mut self.cx, &iteration, &stop_reason)
                }
                Follow::IterationFailedToStart { iteration, task, exit, said } => {
                    self.tasks.iteration_failed_to_start(&mut self.cx, &iteration, &task, exit, said, Instant::now())
                }
                Follow::WorktreeInUse { owner } => self.worktrees.in_use(&self.cx, &owner),
                Follow::WorktreeTaskEnded { owner } => self.worktrees.task_ended(&self.cx, &owner),
            }
        }
    }

    /// Answers with `call`'s result once the follow-ups it left are done,
    /// so the caller sees everything it caused.
    pub(super) fn answer<T: Send + 'static>(
        &mut self,
        reply: Responder<T>,
        call: impl FnOnce(&mut Self) -> Result<T, EngineError>,
    ) {
        let result = call(self);
        self.run_follows();
        reply.send(result);
    }

    // ---- worktrees ----

    /// Read away from the engine's task: a folder on a slow or hung disk
    /// holds nothing else up.
    pub(super) fn list_folder(&mut self, path: String, reply: Responder<switchboard_api::FolderListing>) {
        let home = std::env::var_os("HOME").map(std::path::PathBuf::from);
        tokio::task::spawn_blocking(move || {
            reply.send(
                crate::folders::list(&path, home.as_deref())
                    .map_err(|error| EngineError::InvalidInput { field: "path", reason: error.to_string() }),
            );
        });
    }

    pub(super) fn folder_repository(&mut self, folder: String, reply: Responder<switchboard_api::FolderRepository>) {
        self.worktrees.folder_repository(&self.cx, &folder, reply)
    }

    pub(super) fn set_repository_setup(
        &mut self,
        repository: String,
        setup_command: Option<String>,
    ) -> Result<(), EngineError> {
        self.worktrees.set_repository_setup(&self.cx, &repository, setup_command.as_deref())
    }

    pub(super) fn list_worktrees(&mut self, reply: Responder<Vec<switchboard_api::WorktreeInfo>>) {
        self.worktrees.list(&self.cx, reply)
    }

    pub(super) fn worktree_diff(&mut self, worktree: String, reply: Responder<switchboard_api::WorktreeDiff>) {
        self.worktrees.diff(&self.cx, &worktree, reply)
    }

    pub(super) fn commit_worktree(&mut self, worktree: String, reply: Responder<switchboard_api::CommitOutcome>) {
        self.worktrees.commit(&self.cx, &worktree, reply)
    }

    pub(super) fn merge_worktree(&mut self, worktree: String, reply: Responder<switchboard_api::MergeOutcome>) {
        self.worktrees.merge(&mut self.cx, &worktree, reply)
    }

    pub(super) fn discard_worktree(
        &mut self,
        worktree: String,
        force: bool,
        reply: Responder<switchboard_api::DiscardOutcome>,
    ) {
        self.worktrees.discard(&mut self.cx, &worktree, force, reply)
    }

    pub(super) fn rebase_worktree(&mut self, worktree: String, reply: Responder<switchboard_api::RebaseOutcome>) {
        self.worktrees.rebase(&self.cx, &worktree, reply)
    }

    /// The user's line comments, typed into the worktree's agent as a new
    /// task in the same worktree.
    pub(super) fn review_worktree(
        &mut self,
        worktree: String,
        comments: Vec<switchboard_api::ReviewComment>,
    ) -> Result<Submitted, EngineError> {
        let (record, title, prompt) = self.worktrees.review(&self.cx, &worktree, &comments)?;
        let spec =
            TaskSpec { title: Some(title), worktree: Some(record.owner), ..TaskSpec::new(record.profile_id, prompt) };
        self.tasks.submit(&mut self.cx, spec)
    }

    /// The worktree's agent asked to resolve its conflicts with its base, as
    /// a new task in the same worktree (its conversation carried on).
    pub(super) fn resolve_worktree(&mut self, worktree: String) -> Result<Submitted, EngineError> {
        let (record, title, prompt) = self.worktrees.resolve(&self.cx, &worktree)?;
        let spec =
            TaskSpec { title: Some(title), worktree: Some(record.owner), ..TaskSpec::new(record.profile_id, prompt) };
        self.tasks.submit(&mut self.cx, spec)
    }

    // ---- profiles ----

    pub(super) fn list_profiles(&self) -> Result<Vec<Profile>, EngineError> {
        Ok(self.cx.store.list_profiles()?)
    }

    pub(super) fn create_profile(&mut self, spec: ProfileSpec) -> Result<Profile, EngineError> {
        let spec = self.valid_profile(&spec, None)?;
        let profile = Profile { id: ProfileId::new(), spec, created_at: now(), host: None };
        self.cx.store.insert_profile(&profile)?;
        self.cx.emit(EngineEvent::ProfileSaved { profile: profile.clone() });
        Ok(profile)
    }

    pub(super) fn update_profile(&mut self, id: ProfileId, spec: ProfileSpec) -> Result<Profile, EngineError> {
        let existing = self.cx.profile(&id)?;
        let spec = self.valid_profile(&spec, Some(&id))?;
        self.cx.store.update_profile(&id, &spec)?;
        let profile = Profile { spec, ..existing };
        self.cx.emit(EngineEvent::ProfileSaved { profile: profile.clone() });
        Ok(profile)
    }

    pub(super) fn check_profile(
        &self,
        id: Option<ProfileId>,
        spec: ProfileSpec,
    ) -> Result<Vec<ProfileProblem>, EngineError> {
        match self.valid_profile(&spec, id.as_ref()) {
            Ok(_) => Ok(Vec::new()),
            Err(EngineError::InvalidProfile { problems }) => Ok(problems),
            Err(other) => Err(other),
        }
    }

    pub(super) fn agent_presets(&self) -> Result<Vec<AgentPreset>, EngineError> {
        Ok(crate::presets::presets())
    }

    /// Runs each CLI's `--version` on a blocking thread (it may take up to
    /// `detect::VERSION_TIMEOUT`), never in the engine's loop. A relative
    /// `PATH` entry is taken from the data directory.
    pub(super) fn detected_agents(&mut self, reply: Responder<Vec<switchboard_api::DetectedAgent>>) {
        let path_env = self.path_env.clone();
        let from = self.config.data_dir.clone();
        // Detached: the reply is its only result, and a dropped reply answers `Unanswered`.
        drop(tokio::task::spawn_blocking(move || reply.send(Ok(crate::detect::detect(path_env.as_deref(), &from)))));
    }

    /// The spec as it would be stored for the profile `id` (none: a new
    /// one), or every problem with it (the name taken by another agent among them).
    fn valid_profile(&self, spec: &ProfileSpec, id: Option<&ProfileId>) -> Result<ProfileSpec, EngineError> {
        let name = validate::normalised(spec).name;
        let name_taken = !name.is_empty() && self.cx.store.profile_name_taken(&name, id)?;
        validate::validate_profile(spec, name_taken, self.path_env.as_deref())
    }

    pub(super) fn delete_profile(&mut self, id: ProfileId) -> Result<(), EngineError> {
        self.cx.profile(&id)?;
        if self.cx.sessions.running().any(|s| s.info.profile_id == id) || self.tasks.has_work(&id) {
            return Err(EngineError::ProfileBusy(id));
        }
        let session_ids = self.cx.store.session_ids_of_profile(&id)?;
        self.cx.store.delete_profile(&id)?;
        self.cx.sessions.remove_all(&session_ids);
        self.cx.emit(EngineEvent::ProfileDeleted { profile_id: id });
        Ok(())
    }

    // ---- sessions ----

    pub(super) fn list_sessions(&self) -> Result<Vec<SessionInfo>, EngineError> {
        Ok(self.cx.store.recent_sessions(MAX_LISTED_SESSIONS)?)
    }

    /// The user's start of a session in the agent's own folder: refused while
    /// one already runs there, whatever the client believed (a window that
    /// missed the engine's restart, say), so two copies of an agent never work
    /// in one folder. The engine's own starts (delegations, replies, worktree
    /// sessions) go through `Context::start_session` and are not affected.
    pub(super) fn start_session(&mut self, profile_id: ProfileId, size: TermSize) -> Result<SessionInfo, EngineError> {
        let profile_id = &profile_id;
        self.refuse_second_session(profile_id)?;
        let started = self.cx.start_session(profile_id, size, None, None)?;
        self.tasks.sessions_changed(&self.cx, profile_id);
        Ok(started)
    }

    fn refuse_second_session(&self, profile_id: &ProfileId) -> Result<(), EngineError> {
        let in_own_folder =
            self.cx.sessions.running().any(|s| &s.info.profile_id == profile_id && s.info.workspace.is_none());
        if in_own_folder {
            let agent = self.cx.profile(profile_id)?.spec.name;
            return Err(EngineError::SessionRunning { agent });
        }
        Ok(())
    }

    pub(super) fn stop_session(&mut self, session_id: SessionId, reply: Responder<SessionInfo>) {
        if let Err((error, EndWaiter::Stop(reply) | EndWaiter::Restart(_, reply))) =
            self.cx.sessions.stop(&self.cx.store, &session_id, EndWaiter::Stop(reply))
        {
            reply.send(Err(error));
        }
    }

    pub(super) fn resume_session(&mut self, session_id: SessionId, size: TermSize) -> Result<SessionInfo, EngineError> {
        let session_id = &session_id;
        if !size.is_valid() {
            return Err(invalid_size(size));
        }
        let old =
            self.cx.store.get_session(session_id)?.ok_or_else(|| EngineError::SessionNotFound(session_id.clone()))?;
        if self.cx.sessions.is_running(session_id) {
            return Err(EngineError::InvalidInput { field: "session_id", reason: "it is still running".into() });
        }
        let Some(conversation) = old.agent_session_id else {
            return Err(EngineError::InvalidInput {
                field: "session_id",
                reason: "the app does not know this agent's conversation, so it cannot be resumed".into(),
            });
        };
        let workspace = super::sessions::still_there(old.workspace.as_deref());
        if workspace.is_none() {
            self.refuse_second_session(&old.profile_id)?;
        }
        let started = self.cx.start_session(&old.profile_id, size, Some(&conversation), workspace.as_deref())?;
        self.tasks.sessions_changed(&self.cx, &old.profile_id);
        Ok(started)
    }

    /// Restarts a session. A task at work in it goes as `running_task` says
    /// (the window asks the user); without a choice while one runs, nothing
    /// is done and the caller hears why.
    pub(super) fn restart_session(
        &mut self,
        session_id: SessionId,
        size: TermSize,
        running_task: Option<RestartTask>,
        reply: Responder<Restarted>,
    ) {
        if !size.is_valid() {
            return reply.send(Err(invalid_size(size)));
        }
        if self.cx.sessions.is_running(&session_id) {
            let profile_id = self.cx.sessions.get(&session_id).map(|entry| entry.info.profile_id.clone());
            if let Some(task_id) = self.tasks.task_of_session(&session_id) {
                let Some(choice) = running_task else {
                    return reply.send(Err(EngineError::InvalidInput {
                        field: "running_task",
                        reason: "a task runs in this session: say whether it goes back in the queue, finishes \
                                 first, or is cancelled"
                            .into(),
                    }));
                };
                match self.tasks.before_restart(&mut self.cx, &session_id, choice, size) {
                    Ok(BeforeRestart::Now) => {}
                    Ok(BeforeRestart::AfterTask) => return reply.send(Ok(Restarted::AfterTask { task_id })),
                    Err(error) => {
                        if let Some(profile_id) = &profile_id {
                            self.tasks.restart_abandoned(&mut self.cx, profile_id);
                        }
                        return reply.send(Err(error));
                    }
                }
                self.run_follows();
            }
            let reply = Responder::new(move |result: Result<SessionInfo, EngineError>| {
                reply.send(result.map(|session| Restarted::Now { session }))
            });
            if let Err((error, EndWaiter::Restart(_, reply) | EndWaiter::Stop(reply))) =
                self.cx.sessions.stop(&self.cx.store, &session_id, EndWaiter::Restart(size, reply))
            {
                if let Some(profile_id) = &profile_id {
                    self.tasks.restart_abandoned(&mut self.cx, profile_id);
                }
                reply.send(Err(error));
            }
            return;
        }
        let result = self
            .cx
            .store
            .get_session(&session_id)
            .map_err(EngineError::from)
            .and_then(|old| old.ok_or(EngineError::SessionNotFound(session_id)))
            .and_then(|old| {
                // In the same worktree, while it is there.
                let workspace = super::sessions::still_there(old.workspace.as_deref());
                self.cx.start_session(&old.profile_id, size, None, workspace.as_deref())
            })
            .map(|session| Restarted::Now { session });
        reply.send(result);
    }

    pub(super) fn write_input(&mut self, session_id: SessionId, data: String, reply: Responder<()>) {
        let session_id = &session_id;
        self.cx.sessions.forward(&self.cx.store, session_id, reply, |reply| Control::Write(data.into_bytes(), reply));
    }

    pub(super) fn resize(&mut self, session_id: SessionId, size: TermSize, reply: Responder<()>) {
        let session_id = &session_id;
        if !size.is_valid() {
            return reply.send(Err(invalid_size(size)));
        }
        if let Err(error) = self.cx.store.update_session_size(session_id, size) {
            tracing::warn!(%error, "recording a terminal size failed");
        }
        self.cx.sessions.forward(&self.cx.store, session_id, reply, |reply| Control::Resize(size, reply));
    }

    /// Holds a session's output back for one view that is behind, or lets it go.
    pub(super) fn pause_view(
        &mut self,
        session_id: &SessionId,
        subscription: SubscriptionId,
        paused: bool,
    ) -> Result<(), EngineError> {
        if self.cx.sessions.send(session_id, Control::SetPaused(Some(subscription), paused)) {
            Ok(())
        } else {
            Err(self.cx.sessions.missing(&self.cx.store, session_id))
        }
    }

    pub(super) fn set_output_paused(&mut self, session_id: SessionId, paused: bool) -> Result<(), EngineError> {
        let session_id = &session_id;
        if self.cx.sessions.send(session_id, Control::SetPaused(None, paused)) {
            Ok(())
        } else {
            Err(self.cx.sessions.missing(&self.cx.store, session_id))
        }
    }

    pub(super) fn screen_snapshot(&mut self, session_id: SessionId, lines: u32, reply: Responder<ScreenSnapshot>) {
        let session_id = &session_id;
        self.cx.sessions.forward(&self.cx.store, session_id, reply, |reply| Control::Snapshot(lines as usize, reply));
    }

    pub(super) fn attach(
        &mut self,
        session_id: &SessionId,
        sink: Box<dyn OutputSink>,
        reply: Responder<SubscriptionId>,
    ) {
        self.cx.sessions.forward(&self.cx.store, session_id, reply, |reply| Control::Attach(sink, reply));
    }

    pub(super) fn detach(&mut self, session_id: &SessionId, subscription: SubscriptionId) {
        self.cx.sessions.send(session_id, Control::Detach(subscription));
    }

    pub(super) fn list_events(&self, session_id: Option<SessionId>) -> Result<Vec<LogEntry>, EngineError> {
        let session_id = session_id.as_ref();
        Ok(self.cx.store.list_events(session_id)?)
    }

    fn on_session_end(&mut self, end: SessionEnd) {
        let (id, killed) = (end.id.clone(), end.killed);
        let state = self.cx.sessions.end(&self.cx.store, &*self.cx.sink, end);
        self.cx.mark_changed();
        self.tasks.on_session_end(&mut self.cx, &id, killed, &state);
        self.signals.session_ended(&mut self.cx, &id, &state);
        status::session_ended(&mut self.cx, &id);
        self.hooks.close_permissions_of(&self.cx, &id);
        status::teammate_gone(&mut self.cx, &id);
    }

    fn stop_all(&mut self) {
        self.tasks.quit();
        self.signals.quit();
        self.cx.sessions.stop_all();
    }

    fn start_on_launch(&mut self) {
        let profiles = match self.cx.store.list_profiles() {
            Ok(profiles) => profiles,
            Err(error) => {
                tracing::error!(%error, "listing profiles to start on launch failed");
                return;
            }
        };
        for profile in profiles.into_iter().filter(|p| p.spec.start_on_launch) {
            if let Err(error) = self.start_session(profile.id.clone(), TermSize::DEFAULT) {
                tracing::warn!(profile = %profile.spec.name, %error, "starting an agent on launch failed");
            }
        }
    }

    // ---- tasks ----

    pub(super) fn submit_task(&mut self, spec: TaskSpec) -> Result<Submitted, EngineError> {
        self.tasks.submit(&mut self.cx, spec)
    }

    pub(super) fn list_tasks(&self, profile_id: Option<ProfileId>) -> Result<Vec<TaskRecord>, EngineError> {
        let profile_id = profile_id.as_ref();
        Ok(self.tasks.list(&self.cx, profile_id)?.into_iter().map(TaskRecord::from).collect())
    }

    pub(super) fn get_task(&self, task_id: TaskId) -> Result<TaskRecord, EngineError> {
        let task_id = &task_id;
        self.tasks.get(&self.cx, task_id).map(TaskRecord::from)
    }

    pub(super) fn cancel_task(&mut self, task_id: TaskId) -> Result<TaskRecord, EngineError> {
        let task_id = &task_id;
        self.tasks.cancel(&mut self.cx, task_id).map(TaskRecord::from)
    }

    pub(super) fn move_task(&mut self, task_id: TaskId, to_index: u32) -> Result<(), EngineError> {
        let task_id = &task_id;
        self.tasks.move_to(&mut self.cx, task_id, to_index)
    }

    pub(super) fn edit_task(
        &mut self,
        task_id: TaskId,
        title: Option<String>,
        instruction: Option<String>,
    ) -> Result<TaskRecord, EngineError> {
        self.tasks.edit(&mut self.cx, &task_id, title, instruction).map(TaskRecord::from)
    }

    pub(super) fn artifact_path(&self, task_id: TaskId, path: String) -> Result<String, EngineError> {
        let task = self.tasks.get(&self.cx, &task_id)?;
        let refused = |reason: String| EngineError::InvalidInput { field: "path", reason };
        if !task.result().is_some_and(|result| result.artifacts.iter().any(|a| a.path == path)) {
            return Err(refused("the task returned no such file".into()));
        }
        let profile = self.cx.profile(&task.spec.profile_id)?;
        let workspace = super::isolation::workspace_of_task(&self.cx, &profile, &task).ok_or_else(|| {
            refused(format!("the folder it worked in ({}, or its worktree) is gone", profile.spec.cwd))
        })?;
        let file = crate::tasks::artifacts::resolve_deliverable(&workspace, &path)
            .map_err(|refusal| refused(format!("cannot open {path}: {refusal}")))?;
        Ok(file.to_string_lossy().into_owned())
    }

    pub(super) fn rerun_task(&mut self, task_id: TaskId) -> Result<switchboard_api::Submitted, EngineError> {
        self.tasks.rerun(&mut self.cx, &task_id)
    }

    pub(super) fn requeue_task(&mut self, task_id: TaskId) -> Result<TaskRecord, EngineError> {
        let task_id = &task_id;
        self.tasks.requeue(&mut self.cx, task_id).map(TaskRecord::from)
    }

    pub(super) fn type_task_now(&mut self, task_id: TaskId) -> Result<TaskRecord, EngineError> {
        self.tasks.type_now(&mut self.cx, &task_id).map(TaskRecord::from)
    }

    pub(super) fn set_queue_paused(&mut self, profile_id: Option<ProfileId>, paused: bool) -> Result<(), EngineError> {
        self.tasks.set_paused(&mut self.cx, profile_id, paused)
    }

    pub(super) fn list_queues(&self) -> Result<Vec<QueueStatus>, EngineError> {
        self.tasks.queues(&self.cx)
    }

    pub(super) fn storage_status(&self) -> Result<switchboard_api::StorageStatus, EngineError> {
        let spool = crate::config::spool_path(&self.config.data_dir);
        Ok(switchboard_api::StorageStatus {
            data_dir: self.config.data_dir.display().to_string(),
            problem: self.cx.store.problem(),
            hook_events_set_aside: self.hooks.set_aside() as u32,
            set_aside_file: spool.with_file_name(super::hooks::SPOOL_QUARANTINE_FILE).display().to_string(),
        })
    }

    pub(super) fn get_settings(&self) -> Result<switchboard_api::Settings, EngineError> {
        Ok(self.cx.store.settings()?)
    }

    /// Checks and keeps the settings, then tells the window and the shell.
    pub(super) fn set_settings(
        &mut self,
        settings: switchboard_api::Settings,
    ) -> Result<switchboard_api::Settings, EngineError> {
        let settings = validate_settings(&settings)?;
        let warned_at = self.cx.store.settings().unwrap_or_default().usage_warn_percent;
        self.cx.store.save_settings(&settings, now())?;
        self.cx.emit(EngineEvent::SettingsChanged { settings: settings.clone() });
        if settings.usage_warn_percent != warned_at {
            self.tasks.warning_changed(&self.cx);
        }
        Ok(settings)
    }

    /// Works out each agent's attention again when something was reported,
    /// at most every so often (a timer in the loop takes what waits).
    fn report_attention(&mut self) {
        if self.cx.changed() && self.attention.due(Instant::now()) {
            self.refresh_attention().ok();
        }
    }

    fn refresh_attention(&mut self) -> Result<Vec<switchboard_api::AgentAttention>, EngineError> {
        self.cx.settled();
        let permissions = self.hooks.list_permission_requests();
        self.attention.refresh(&self.cx, &permissions, now()).inspect_err(|error| {
            tracing::warn!(%error, "working out the agents' attention failed");
        })
    }

    pub(super) fn list_attention(&mut self) -> Result<Vec<switchboard_api::AgentAttention>, EngineError> {
        self.refresh_attention()
    }

    pub(super) fn list_limits(&mut self) -> Result<Vec<switchboard_api::AccountLimit>, EngineError> {
        Ok(self.tasks.limits(&self.cx))
    }

    pub(super) fn list_usage(&mut self) -> Result<Vec<switchboard_api::AccountUsage>, EngineError> {
        Ok(self.tasks.usage(&self.cx))
    }

    pub(super) fn resume_agent(&mut self, profile_id: ProfileId) -> Result<(), EngineError> {
        self.tasks.resume_agent(&mut self.cx, &profile_id)
    }

    pub(super) fn set_viewing(&mut self, viewing: switchboard_api::Viewing) -> Result<(), EngineError> {
        self.attention.set_viewing(viewing, now());
        self.refresh_attention().map(drop)
    }

    /// Tells the window when writing began to fail or works again; once it
    /// works, records what was kept meanwhile.
    fn report_storage(&mut self) {
        let Some(problem) = self.cx.store.take_problem_change() else { return };
        match &problem {
            Some(problem) => tracing::error!(?problem, "the data can no longer be written"),
            None => {
                tracing::info!("the data can be written again");
                self.tasks.retry_unsaved(&mut self.cx);
            }
        }
        self.cx.emit(EngineEvent::StorageChanged { problem });
    }

    pub(super) fn task_timeline(&self, task_id: TaskId) -> Result<Vec<LogEntry>, EngineError> {
        let task_id = &task_id;
        self.tasks.timeline(&self.cx, task_id)
    }

    // ---- signals ----

    pub(super) fn list_signals(&self) -> Result<Vec<SignalRecord>, EngineError> {
        Ok(self.signals.list(&self.cx)?.into_iter().map(SignalRecord::from).collect())
    }

    pub(super) fn respond_to_signal(
        &mut self,
        signal_id: SignalId,
        response: SignalResponse,
    ) -> Result<SignalRecord, EngineError> {
        let signal_id = &signal_id;
        self.signals.respond(&mut self.cx, signal_id, response).map(SignalRecord::from)
    }

    // ---- loops ----

    pub(super) fn start_loop(
        &mut self,
        profile_id: ProfileId,
        settings: switchboard_protocol::loops::LoopSettings,
    ) -> Result<switchboard_api::LoopInfo, EngineError> {
        self.tasks.start_loop(&mut self.cx, &profile_id, settings)
    }

    pub(super) fn list_loops(&self) -> Result<Vec<switchboard_api::LoopInfo>, EngineError> {
        self.tasks.list_loops(&self.cx)
    }

    pub(super) fn get_loop(
        &self,
        loop_id: switchboard_protocol::LoopId,
    ) -> Result<switchboard_api::LoopInfo, EngineError> {
        self.tasks.get_loop(&self.cx, &loop_id)
    }

    pub(super) fn loop_iterations(
        &self,
        loop_id: switchboard_protocol::LoopId,
        before: u32,
        limit: u32,
    ) -> Result<Vec<switchboard_api::Iteration>, EngineError> {
        self.tasks.loop_iterations(&self.cx, &loop_id, before, limit)
    }

    pub(super) fn cancel_loop(
        &mut self,
        loop_id: switchboard_protocol::LoopId,
    ) -> Result<switchboard_api::LoopInfo, EngineError> {
        self.tasks.cancel_loop(&mut self.cx, &loop_id)
    }

    pub(super) fn resume_loop(
        &mut self,
        loop_id: switchboard_protocol::LoopId,
    ) -> Result<switchboard_api::LoopInfo, EngineError> {
        self.tasks.resume_loop(&mut self.cx, &loop_id)
    }

    pub(super) fn loop_files(
        &self,
        loop_id: switchboard_protocol::LoopId,
    ) -> Result<switchboard_api::LoopFiles, EngineError> {
        self.tasks.loop_files(&self.cx, &loop_id)
    }

    pub(super) fn save_loop_file(
        &mut self,
        loop_id: switchboard_protocol::LoopId,
        file: switchboard_api::LoopFile,
        text: String,
    ) -> Result<switchboard_api::LoopFiles, EngineError> {
        self.tasks.save_loop_file(&self.cx, &loop_id, file, &text)
    }

    pub(super) fn list_delegations(&self) -> Result<Vec<switchboard_api::Delegation>, EngineError> {
        super::signals::list_delegations(&self.cx)
    }

    pub(super) fn keep_delegate(
        &mut self,
        session_id: SessionId,
        keep: bool,
    ) -> Result<switchboard_api::Delegation, EngineError> {
        super::signals::keep_delegate(&mut self.cx, &session_id, keep)
    }

    pub(super) fn agent_text(&mut self, session_id: SessionId, text: String) -> Result<(), EngineError> {
        let text = text.as_str();
        let task = self.tasks.task_of_session(&session_id);
        self.signals.agent_text(&mut self.cx, session_id, text, task)
    }

    // ---- hooks ----

    /// A hook event; a permission request waits for the user's decision.
    pub(super) fn hook_event(&mut self, envelope: HookEnvelope, reply: Responder<Option<PermissionDecision>>) {
        let hooked = Hooked::new(envelope);
        let result = self.hooks.on_hook(&mut self.cx, &hooked);
        self.run_follows();
        match result {
            Ok(()) if hooked.asks_permission() => self.hooks.ask_permission(&self.cx, &hooked, reply),
            other => reply.send(other.map(|()| None)),
        }
    }

    // ---- flows ----

    pub(super) fn flow_diagrams(&self) -> Result<Vec<switchboard_api::Diagram>, EngineError> {
        Ok(crate::flows::diagrams::all().to_vec())
    }

    pub(super) fn flow_view(
        &self,
        target: switchboard_api::FlowTarget,
        until_seq: Option<i64>,
    ) -> Result<switchboard_api::FlowView, EngineError> {
        super::flows::view(&self.cx, target, until_seq)
    }

    pub(super) fn flow_events(
        &self,
        target: switchboard_api::FlowTarget,
        since_at: Option<switchboard_api::Millis>,
        limit: u32,
    ) -> Result<switchboard_api::FlowEvents, EngineError> {
        super::flows::events(&self.cx, target, since_at, limit)
    }

    pub(super) fn export_flow_events(&self, target: switchboard_api::FlowTarget) -> Result<String, EngineError> {
        super::flows::export(&self.cx, &self.config.data_dir, target)
    }

    pub(super) fn search(&self, query: String) -> Result<Vec<crate::search::SearchHit>, EngineError> {
        let Some(query) = crate::search::Query::parse(&query)? else { return Ok(Vec::new()) };
        let patterns = query.like_patterns();
        let mut found = Vec::new();
        for batch in 0..SEARCH_BATCHES {
            let (tasks, signals) = self.cx.store.search_candidates(&patterns, SEARCH_BATCH, batch * SEARCH_BATCH)?;
            let more = tasks.len() == SEARCH_BATCH || signals.len() == SEARCH_BATCH;
            found.extend(crate::search::hits(&query, &tasks, &signals));
            if found.len() >= crate::search::MAX_HITS || !more {
                break;
            }
        }
        Ok(crate::search::newest(found))
    }

    pub(super) fn flow_overview(&mut self) -> Result<switchboard_api::Overview, EngineError> {
        self.refresh_attention()?;
        super::flows::overview(&self.cx, self.tasks.queues(&self.cx)?, self.attention.shown())
    }

    pub(super) fn list_agent_status(&self) -> Result<Vec<AgentStatusInfo>, EngineError> {
        Ok(status::list(&self.cx.sessions))
    }

    pub(super) fn list_permission_requests(&self) -> Result<Vec<PermissionRequest>, EngineError> {
        Ok(self.hooks.list_permission_requests())
    }

    pub(super) fn decide_permission(
        &mut self,
        request_id: u64,
        allow: bool,
        message: Option<String>,
    ) -> Result<(), EngineError> {
        self.hooks.decide_permission(&self.cx, request_id, PermissionDecision { allow, message })
    }
}
