//! The engine task and its handle.
//!
//! One task owns the store, the profiles and the session handles; callers
//! reach it only through [`EngineHandle`], which sends a message and awaits
//! the reply. Sessions report their end back over an internal channel. The
//! engine reports outward through the injected [`EventSink`].

use std::collections::{HashMap, VecDeque};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use switchboard_protocol::{AgentKind, ProfileId, SessionId, SignalId, TaskId, TermSize};
use tokio::sync::{mpsc, oneshot};
use ts_rs::TS;

use crate::api::{
    AgentStatusInfo, Command, EngineEvent, LogEntry, LogKind, Millis, PermissionDecision, PermissionRequest, Profile,
    ProfileSpec, QueueStatus, ScreenSnapshot, SessionInfo, SessionState, SignalChannel, SignalInfo, SignalResponse,
    Submitted, TaskInfo, TaskSpec,
};
use crate::config::EngineConfig;
use crate::demo;
use crate::error::EngineError;
use crate::instance::InstanceLock;
use crate::server::{self, SocketServer};
use crate::session::{
    self, Control, OutputSink, SessionEnd, SessionHandle, SessionScan, SpawnSpec, SubscriptionId, process,
};
use crate::store::Store;
use crate::tasks::watch::WatchEvent;
use crate::validate::{resolve_command, validate_profile};

mod hooks;
mod signals;
mod tasks;

use hooks::Hooks;
pub use hooks::{SPOOL_FILE, spool_path};
use signals::Signals;
pub use signals::{MAX_LISTED_HANDLED_SIGNALS, SKIPPED_ITEMS_FILE};
pub use tasks::{MAX_CONTEXT_BYTES, MAX_INSTRUCTION_BYTES, MAX_LISTED_FINISHED_TASKS};
use tasks::{TaskCommand, TaskNote, Tasks};

/// How often stale agent statuses are looked for.
const RECONCILE_INTERVAL: std::time::Duration = std::time::Duration::from_secs(15);

/// Requests a caller may have in flight before `send` waits.
const REQUEST_QUEUE: usize = 256;

/// Ended sessions whose terminal (replay and screen) stays viewable. Older
/// ones are dropped; their records stay in the store.
pub const RETAINED_ENDED_SESSIONS: usize = 32;

/// Most sessions returned by a listing, newest kept.
pub const MAX_LISTED_SESSIONS: usize = 500;

/// Where the engine reports what happened. The desktop shell forwards events
/// to the UI; tests collect them. Called on the engine task: must not block.
pub trait EventSink: Send + Sync + 'static {
    fn emit(&self, event: EngineEvent);
}

/// A sink that drops every event, for callers that only use replies.
pub struct NoEvents;

impl EventSink for NoEvents {
    fn emit(&self, _event: EngineEvent) {}
}

impl<F: Fn(EngineEvent) + Send + Sync + 'static> EventSink for F {
    fn emit(&self, event: EngineEvent) {
        self(event)
    }
}

/// The reply to a [`Command`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(tag = "type", content = "value", rename_all = "snake_case")]
pub enum Reply {
    Unit,
    Profiles(Vec<Profile>),
    Profile(Profile),
    Sessions(Vec<SessionInfo>),
    Session(SessionInfo),
    Snapshot(ScreenSnapshot),
    Events(Vec<LogEntry>),
    Submitted(Submitted),
    Tasks(Vec<TaskInfo>),
    Task(TaskInfo),
    Queues(Vec<QueueStatus>),
    Signals(Vec<SignalInfo>),
    Signal(SignalInfo),
    AgentStatus(Vec<AgentStatusInfo>),
    /// To a permission request's hook: the user's decision, or none (the
    /// agent's own prompt decides).
    Permission(Option<PermissionDecision>),
    PermissionRequests(Vec<PermissionRequest>),
}

pub(crate) type Responder = oneshot::Sender<Result<Reply, EngineError>>;

pub(crate) enum Request {
    Command(Command, Responder),
    Attach {
        session_id: SessionId,
        sink: Box<dyn OutputSink>,
        reply: oneshot::Sender<Result<SubscriptionId, EngineError>>,
    },
    Detach {
        session_id: SessionId,
        subscription: SubscriptionId,
    },
    Shutdown(oneshot::Sender<()>),
}

/// A cloneable handle on the running engine. When the last handle is dropped
/// the engine stops every agent and ends.
#[derive(Clone)]
pub struct EngineHandle {
    requests: mpsc::Sender<Request>,
}

pub struct Engine;

impl Engine {
    /// Opens the store, recovers from an unclean stop (sessions that were
    /// running are marked interrupted and their processes reaped), creates
    /// the demo workspace on first run, and returns the handle; the engine
    /// task then starts the profiles marked to start on launch before it
    /// answers any request. Must be called within a Tokio runtime.
    pub async fn start(config: EngineConfig, sink: Arc<dyn EventSink>) -> Result<EngineHandle, EngineError> {
        // Before anything else: recovery below would end another live
        // instance's agents.
        let instance = InstanceLock::acquire(&config.data_dir)?;
        process::become_subreaper();
        let store = Store::open(&config.database_path())?;
        let (requests, inbox) = mpsc::channel(REQUEST_QUEUE);
        let (ended_tx, ended_rx) = mpsc::unbounded_channel();
        let (task_notes, notes_rx) = mpsc::unbounded_channel();
        let (watch_events, watch_rx) = mpsc::unbounded_channel();
        let (scans_tx, scans_rx) = mpsc::unbounded_channel();
        let mut engine = EngineState {
            hooks: Hooks::default(),
            signals: Signals::default(),
            scans_tx,
            tasks: Tasks::default(),
            server: None,
            task_notes,
            watch_events,
            shutting_down: false,
            path_env: std::env::var_os("PATH"),
            config,
            store,
            sink,
            sessions: HashMap::new(),
            running: HashMap::new(),
            ended_order: VecDeque::new(),
            pending_stops: HashMap::new(),
            pending_restarts: HashMap::new(),
            ended_tx,
            _instance: instance,
        };
        engine.recover_interrupted()?;
        engine.recover_tasks()?;
        engine.replay_spool();
        // Without its socket the app still works; only scripts cannot reach it.
        engine.server = match server::serve(&engine.config.socket_path, requests.downgrade()) {
            Ok(server) => Some(server),
            Err(error) => {
                tracing::error!(%error, "the engine socket is not available");
                None
            }
        };
        if let Some(demo_agent) = engine.config.demo_agent.clone() {
            demo::ensure_demo(&engine.store, &engine.config.data_dir, &demo_agent, now())?;
        }
        tokio::spawn(engine.run(inbox, ended_rx, notes_rx, watch_rx, scans_rx));
        Ok(EngineHandle { requests })
    }
}

/// Sends a command on the engine's request channel and awaits the reply.
pub(crate) async fn call_with(requests: &mpsc::Sender<Request>, command: Command) -> Result<Reply, EngineError> {
    let (reply, response) = oneshot::channel();
    requests.send(Request::Command(command, reply)).await.map_err(|_| EngineError::EngineStopped)?;
    response.await.map_err(|_| EngineError::EngineStopped)?
}

impl EngineHandle {
    /// Sends any command and awaits its reply.
    pub async fn call(&self, command: Command) -> Result<Reply, EngineError> {
        call_with(&self.requests, command).await
    }

    pub async fn list_profiles(&self) -> Result<Vec<Profile>, EngineError> {
        match self.call(Command::ListProfiles).await? {
            Reply::Profiles(profiles) => Ok(profiles),
            other => Err(unexpected(other)),
        }
    }

    pub async fn create_profile(&self, spec: ProfileSpec) -> Result<Profile, EngineError> {
        self.profile(Command::CreateProfile { spec }).await
    }

    pub async fn update_profile(&self, profile_id: ProfileId, spec: ProfileSpec) -> Result<Profile, EngineError> {
        self.profile(Command::UpdateProfile { profile_id, spec }).await
    }

    pub async fn delete_profile(&self, profile_id: ProfileId) -> Result<(), EngineError> {
        self.unit(Command::DeleteProfile { profile_id }).await
    }

    pub async fn list_sessions(&self) -> Result<Vec<SessionInfo>, EngineError> {
        match self.call(Command::ListSessions).await? {
            Reply::Sessions(sessions) => Ok(sessions),
            other => Err(unexpected(other)),
        }
    }

    pub async fn start_session(&self, profile_id: ProfileId, size: TermSize) -> Result<SessionInfo, EngineError> {
        self.session(Command::StartSession { profile_id, size }).await
    }

    /// Stops the session's whole process tree; returns once it is gone.
    pub async fn stop_session(&self, session_id: SessionId) -> Result<SessionInfo, EngineError> {
        self.session(Command::StopSession { session_id }).await
    }

    /// Starts a session that continues an ended session's conversation.
    pub async fn resume_session(&self, session_id: SessionId, size: TermSize) -> Result<SessionInfo, EngineError> {
        self.session(Command::ResumeSession { session_id, size }).await
    }

    /// Stops the session if it runs, then starts a new one of its profile.
    pub async fn restart_session(&self, session_id: SessionId, size: TermSize) -> Result<SessionInfo, EngineError> {
        self.session(Command::RestartSession { session_id, size }).await
    }

    pub async fn write_input(&self, session_id: SessionId, data: String) -> Result<(), EngineError> {
        self.unit(Command::WriteInput { session_id, data }).await
    }

    pub async fn resize(&self, session_id: SessionId, size: TermSize) -> Result<(), EngineError> {
        self.unit(Command::Resize { session_id, size }).await
    }

    pub async fn set_output_paused(&self, session_id: SessionId, paused: bool) -> Result<(), EngineError> {
        self.unit(Command::SetOutputPaused { session_id, paused }).await
    }

    pub async fn screen_snapshot(
        &self,
        session_id: SessionId,
        recent_lines: u32,
    ) -> Result<ScreenSnapshot, EngineError> {
        match self.call(Command::ScreenSnapshot { session_id, recent_lines }).await? {
            Reply::Snapshot(snapshot) => Ok(snapshot),
            other => Err(unexpected(other)),
        }
    }

    pub async fn list_events(&self, session_id: Option<SessionId>) -> Result<Vec<LogEntry>, EngineError> {
        match self.call(Command::ListEvents { session_id }).await? {
            Reply::Events(events) => Ok(events),
            other => Err(unexpected(other)),
        }
    }

    pub async fn submit_task(&self, spec: TaskSpec) -> Result<Submitted, EngineError> {
        match self.call(Command::SubmitTask { spec }).await? {
            Reply::Submitted(submitted) => Ok(submitted),
            other => Err(unexpected(other)),
        }
    }

    /// Queued and running tasks plus the most recent finished ones.
    pub async fn list_tasks(&self, profile_id: Option<ProfileId>) -> Result<Vec<TaskInfo>, EngineError> {
        match self.call(Command::ListTasks { profile_id }).await? {
            Reply::Tasks(tasks) => Ok(tasks),
            other => Err(unexpected(other)),
        }
    }

    pub async fn get_task(&self, task_id: TaskId) -> Result<TaskInfo, EngineError> {
        self.task(Command::GetTask { task_id }).await
    }

    pub async fn cancel_task(&self, task_id: TaskId) -> Result<TaskInfo, EngineError> {
        self.task(Command::CancelTask { task_id }).await
    }

    pub async fn move_task(&self, task_id: TaskId, to_index: u32) -> Result<(), EngineError> {
        self.unit(Command::MoveTask { task_id, to_index }).await
    }

    pub async fn requeue_task(&self, task_id: TaskId) -> Result<TaskInfo, EngineError> {
        self.task(Command::RequeueTask { task_id }).await
    }

    pub async fn set_queue_paused(&self, profile_id: Option<ProfileId>, paused: bool) -> Result<(), EngineError> {
        self.unit(Command::SetQueuePaused { profile_id, paused }).await
    }

    pub async fn list_queues(&self) -> Result<Vec<QueueStatus>, EngineError> {
        match self.call(Command::ListQueues).await? {
            Reply::Queues(queues) => Ok(queues),
            other => Err(unexpected(other)),
        }
    }

    pub async fn task_timeline(&self, task_id: TaskId) -> Result<Vec<LogEntry>, EngineError> {
        match self.call(Command::TaskTimeline { task_id }).await? {
            Reply::Events(events) => Ok(events),
            other => Err(unexpected(other)),
        }
    }

    /// Pending signals and the most recent handled ones.
    pub async fn list_signals(&self) -> Result<Vec<SignalInfo>, EngineError> {
        match self.call(Command::ListSignals).await? {
            Reply::Signals(signals) => Ok(signals),
            other => Err(unexpected(other)),
        }
    }

    pub async fn respond_to_signal(
        &self,
        signal_id: SignalId,
        response: SignalResponse,
    ) -> Result<SignalInfo, EngineError> {
        match self.call(Command::RespondToSignal { signal_id, response }).await? {
            Reply::Signal(signal) => Ok(signal),
            other => Err(unexpected(other)),
        }
    }

    /// An event from an agent's hooks.
    pub async fn hook_event(&self, envelope: switchboard_protocol::hook::HookEnvelope) -> Result<(), EngineError> {
        self.unit(Command::HookEvent { envelope }).await
    }

    pub async fn list_agent_status(&self) -> Result<Vec<AgentStatusInfo>, EngineError> {
        match self.call(Command::ListAgentStatus).await? {
            Reply::AgentStatus(status) => Ok(status),
            other => Err(unexpected(other)),
        }
    }

    /// Permission requests waiting for the user.
    pub async fn list_permission_requests(&self) -> Result<Vec<PermissionRequest>, EngineError> {
        match self.call(Command::ListPermissionRequests).await? {
            Reply::PermissionRequests(requests) => Ok(requests),
            other => Err(unexpected(other)),
        }
    }

    /// Answers a permission request: its hook hands the agent the decision.
    pub async fn decide_permission(
        &self,
        request_id: u64,
        allow: bool,
        message: Option<String>,
    ) -> Result<(), EngineError> {
        self.unit(Command::DecidePermission { request_id, allow, message }).await
    }

    /// Text an agent wrote, from its hooks: scanned for signals.
    pub async fn agent_text(&self, session_id: SessionId, text: String) -> Result<(), EngineError> {
        self.unit(Command::AgentText { session_id, text }).await
    }

    async fn task(&self, command: Command) -> Result<TaskInfo, EngineError> {
        match self.call(command).await? {
            Reply::Task(task) => Ok(task),
            other => Err(unexpected(other)),
        }
    }

    /// Subscribes to a session's output: the sink first receives the
    /// retained output (replay), then every new batch.
    pub async fn attach(&self, session_id: SessionId, sink: impl OutputSink) -> Result<SubscriptionId, EngineError> {
        let (reply, response) = oneshot::channel();
        let request = Request::Attach { session_id, sink: Box::new(sink), reply };
        self.requests.send(request).await.map_err(|_| EngineError::EngineStopped)?;
        response.await.map_err(|_| EngineError::EngineStopped)?
    }

    pub async fn detach(&self, session_id: SessionId, subscription: SubscriptionId) -> Result<(), EngineError> {
        let request = Request::Detach { session_id, subscription };
        self.requests.send(request).await.map_err(|_| EngineError::EngineStopped)
    }

    /// Stops every running agent (recording them as killed) and ends the
    /// engine. Returns when all their processes are gone.
    pub async fn shutdown(&self) {
        let (reply, done) = oneshot::channel();
        if self.requests.send(Request::Shutdown(reply)).await.is_ok() {
            done.await.ok();
        }
    }

    async fn profile(&self, command: Command) -> Result<Profile, EngineError> {
        match self.call(command).await? {
            Reply::Profile(profile) => Ok(profile),
            other => Err(unexpected(other)),
        }
    }

    async fn session(&self, command: Command) -> Result<SessionInfo, EngineError> {
        match self.call(command).await? {
            Reply::Session(session) => Ok(session),
            other => Err(unexpected(other)),
        }
    }

    async fn unit(&self, command: Command) -> Result<(), EngineError> {
        match self.call(command).await? {
            Reply::Unit => Ok(()),
            other => Err(unexpected(other)),
        }
    }
}

fn unexpected(reply: Reply) -> EngineError {
    EngineError::Internal(format!("unexpected reply {reply:?}"))
}

/// Wall-clock time, read here at the edge and passed into everything else.
fn now() -> Millis {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_millis() as Millis)
}

struct EngineState {
    config: EngineConfig,
    path_env: Option<OsString>,
    store: Store,
    sink: Arc<dyn EventSink>,
    sessions: HashMap<SessionId, SessionHandle>,
    /// What the engine knows of each running session; the source of the
    /// state reported when it ends, even if the store cannot record it.
    running: HashMap<SessionId, SessionInfo>,
    ended_order: VecDeque<SessionId>,
    pending_stops: HashMap<SessionId, Vec<Responder>>,
    pending_restarts: HashMap<SessionId, Vec<(TermSize, Responder)>>,
    ended_tx: mpsc::UnboundedSender<SessionEnd>,
    tasks: Tasks,
    signals: Signals,
    hooks: Hooks,
    /// Sessions report the signal blocks in their output here.
    scans_tx: mpsc::UnboundedSender<SessionScan>,
    task_notes: mpsc::UnboundedSender<TaskNote>,
    watch_events: mpsc::UnboundedSender<WatchEvent>,
    server: Option<SocketServer>,
    /// Set once the engine is stopping every agent.
    shutting_down: bool,
    /// Released when the engine task ends, after every agent has stopped.
    _instance: InstanceLock,
}

impl EngineState {
    async fn run(
        mut self,
        mut inbox: mpsc::Receiver<Request>,
        mut ended: mpsc::UnboundedReceiver<SessionEnd>,
        mut notes: mpsc::UnboundedReceiver<TaskNote>,
        mut watch_events: mpsc::UnboundedReceiver<WatchEvent>,
        mut scans: mpsc::UnboundedReceiver<SessionScan>,
    ) {
        // Here rather than in `Engine::start`, so the caller (the window) does
        // not wait for agents to spawn. Requests queue meanwhile and see them.
        self.start_on_launch();
        self.pump_all();
        let mut shutdown_waiters = Vec::new();
        let mut reconcile = tokio::time::interval(RECONCILE_INTERVAL.min(self.config.working_idle));
        reconcile.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            let deadline = self.next_task_deadline();
            let permission_deadline = self.next_permission_deadline();
            tokio::select! {
                request = inbox.recv(), if shutdown_waiters.is_empty() => match request {
                    Some(Request::Shutdown(done)) => {
                        shutdown_waiters.push(done);
                        self.stop_all();
                    }
                    Some(request) => self.on_request(request),
                    None => {
                        // Every handle is gone: nobody can stop the agents later.
                        shutdown_waiters.push(oneshot::channel().0);
                        self.stop_all();
                    }
                },
                Some(end) = ended.recv() => self.on_session_end(end),
                Some(note) = notes.recv() => self.on_task_note(note),
                Some(event) = watch_events.recv() => self.on_watch_event(event),
                Some(scan) = scans.recv() => self.on_signal(scan.id, SignalChannel::Pty, scan.event),
                () = tokio::time::sleep_until(deadline.unwrap_or_else(tokio::time::Instant::now)), if deadline.is_some() => {
                    self.on_task_deadline();
                }
                _ = reconcile.tick() => self.reconcile_status(),
                () = tokio::time::sleep_until(permission_deadline.unwrap_or_else(tokio::time::Instant::now)), if permission_deadline.is_some() => {
                    self.expire_permissions();
                }
            }
            if !shutdown_waiters.is_empty() && self.running.is_empty() {
                break;
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

    fn on_request(&mut self, request: Request) {
        match request {
            Request::Command(command, reply) => self.on_command(command, reply),
            Request::Attach { session_id, sink, reply } => match self.sessions.get(&session_id) {
                Some(session) => {
                    let (tx, rx) = oneshot::channel();
                    session.send(Control::Attach(sink, tx));
                    tokio::spawn(async move {
                        let id =
                            rx.await.map_err(|_| EngineError::Internal("the view went away while attaching".into()));
                        reply.send(id).ok();
                    });
                }
                None => {
                    reply.send(Err(self.missing_session(&session_id))).ok();
                }
            },
            Request::Detach { session_id, subscription } => {
                if let Some(session) = self.sessions.get(&session_id) {
                    session.send(Control::Detach(subscription));
                }
            }
            Request::Shutdown(_) => unreachable!("handled by the loop"),
        }
    }

    fn on_command(&mut self, command: Command, reply: Responder) {
        let result = match command {
            Command::ListProfiles => self.store.list_profiles().map(Reply::Profiles).map_err(Into::into),
            Command::CreateProfile { spec } => self.create_profile(spec).map(Reply::Profile),
            Command::UpdateProfile { profile_id, spec } => self.update_profile(profile_id, spec).map(Reply::Profile),
            Command::DeleteProfile { profile_id } => self.delete_profile(profile_id).map(|()| Reply::Unit),
            Command::ListSessions => self.list_sessions().map(Reply::Sessions),
            Command::StartSession { profile_id, size } => self.start_session(&profile_id, size).map(Reply::Session),
            Command::StopSession { session_id } => return self.stop_session(session_id, reply),
            Command::RestartSession { session_id, size } => return self.restart_session(session_id, size, reply),
            Command::ResumeSession { session_id, size } => self.resume_session(&session_id, size).map(Reply::Session),
            Command::WriteInput { session_id, data } => {
                return self.forward(&session_id, reply, |reply| Control::Write(data.into_bytes(), reply));
            }
            Command::Resize { session_id, size } => {
                if !size.is_valid() {
                    Err(invalid_size(size))
                } else {
                    if let Err(error) = self.store.update_session_size(&session_id, size) {
                        tracing::warn!(%error, "recording a terminal size failed");
                    }
                    return self.forward(&session_id, reply, |reply| Control::Resize(size, reply));
                }
            }
            Command::SetOutputPaused { session_id, paused } => match self.sessions.get(&session_id) {
                Some(session) => {
                    session.send(Control::SetPaused(paused));
                    Ok(Reply::Unit)
                }
                None => Err(self.missing_session(&session_id)),
            },
            Command::ScreenSnapshot { session_id, recent_lines } => {
                return self.forward(&session_id, reply, |reply| Control::Snapshot(recent_lines as usize, reply));
            }
            Command::ListEvents { session_id } => {
                self.store.list_events(session_id.as_ref()).map(Reply::Events).map_err(Into::into)
            }
            Command::SubmitTask { spec } => self.task_reply(TaskCommand::Submit(spec)),
            Command::ListTasks { profile_id } => self.task_reply(TaskCommand::List(profile_id)),
            Command::GetTask { task_id } => self.task_reply(TaskCommand::Get(task_id)),
            Command::CancelTask { task_id } => self.task_reply(TaskCommand::Cancel(task_id)),
            Command::MoveTask { task_id, to_index } => self.task_reply(TaskCommand::Move(task_id, to_index)),
            Command::RequeueTask { task_id } => self.task_reply(TaskCommand::Requeue(task_id)),
            Command::SetQueuePaused { profile_id, paused } => self.task_reply(TaskCommand::Pause(profile_id, paused)),
            Command::ListQueues => self.task_reply(TaskCommand::Queues),
            Command::TaskTimeline { task_id } => self.task_reply(TaskCommand::Timeline(task_id)),
            Command::ListSignals => self.list_signals().map(Reply::Signals),
            Command::RespondToSignal { signal_id, response } => {
                self.respond_to_signal(&signal_id, response).map(Reply::Signal)
            }
            Command::AgentText { session_id, text } => self.agent_text(session_id, &text).map(|()| Reply::Unit),
            Command::HookEvent { envelope } => {
                let asks = matches!(
                    switchboard_protocol::hook::HookEvent::parse(&envelope.payload),
                    switchboard_protocol::hook::HookEvent::PermissionRequest { .. }
                );
                match self.on_hook(envelope.clone()) {
                    // The hook waits for the user's answer; it is given later.
                    Ok(()) if asks => return self.ask_permission(&envelope, reply),
                    other => other.map(|()| Reply::Unit),
                }
            }
            Command::ListPermissionRequests => Ok(Reply::PermissionRequests(self.list_permission_requests())),
            Command::DecidePermission { request_id, allow, message } => {
                self.decide_permission(request_id, PermissionDecision { allow, message }).map(|()| Reply::Unit)
            }
            Command::ListAgentStatus => Ok(Reply::AgentStatus(self.list_agent_status())),
        };
        reply.send(result).ok();
    }

    /// Hands a command to the session actor, which answers the caller itself.
    fn forward(&self, session_id: &SessionId, reply: Responder, control: impl FnOnce(Responder) -> Control) {
        match self.sessions.get(session_id) {
            Some(session) => session.send(control(reply)),
            None => {
                reply.send(Err(self.missing_session(session_id))).ok();
            }
        }
    }

    /// The error for a session without a live actor: unknown, or ended long
    /// enough ago that its terminal was let go.
    fn missing_session(&self, session_id: &SessionId) -> EngineError {
        if matches!(self.store.get_session(session_id), Ok(Some(_))) {
            EngineError::SessionNotRunning(session_id.clone())
        } else {
            EngineError::SessionNotFound(session_id.clone())
        }
    }

    fn create_profile(&mut self, spec: ProfileSpec) -> Result<Profile, EngineError> {
        let spec = validate_profile(&spec, self.path_env.as_deref())?;
        if self.store.profile_name_taken(&spec.name, None)? {
            return Err(EngineError::DuplicateName { name: spec.name });
        }
        let profile = Profile { id: ProfileId::new(), spec, created_at: now() };
        self.store.insert_profile(&profile)?;
        self.sink.emit(EngineEvent::ProfileSaved { profile: profile.clone() });
        Ok(profile)
    }

    fn update_profile(&mut self, id: ProfileId, spec: ProfileSpec) -> Result<Profile, EngineError> {
        let existing = self.store.get_profile(&id)?.ok_or_else(|| EngineError::ProfileNotFound(id.clone()))?;
        let spec = validate_profile(&spec, self.path_env.as_deref())?;
        if self.store.profile_name_taken(&spec.name, Some(&id))? {
            return Err(EngineError::DuplicateName { name: spec.name });
        }
        self.store.update_profile(&id, &spec)?;
        let profile = Profile { spec, ..existing };
        self.sink.emit(EngineEvent::ProfileSaved { profile: profile.clone() });
        Ok(profile)
    }

    fn delete_profile(&mut self, id: ProfileId) -> Result<(), EngineError> {
        if self.store.get_profile(&id)?.is_none() {
            return Err(EngineError::ProfileNotFound(id));
        }
        if self.running.values().any(|s| s.profile_id == id) || self.has_work(&id) {
            return Err(EngineError::ProfileBusy(id));
        }
        let session_ids = self.store.session_ids_of_profile(&id)?;
        self.store.delete_profile(&id)?;
        for session_id in &session_ids {
            self.sessions.remove(session_id);
            self.ended_order.retain(|ended| ended != session_id);
        }
        self.sink.emit(EngineEvent::ProfileDeleted { profile_id: id });
        Ok(())
    }

    fn list_sessions(&self) -> Result<Vec<SessionInfo>, EngineError> {
        Ok(self.store.recent_sessions(MAX_LISTED_SESSIONS)?)
    }

    fn start_session(&mut self, profile_id: &ProfileId, size: TermSize) -> Result<SessionInfo, EngineError> {
        self.start_session_resuming(profile_id, size, None)
    }

    /// Starts a session; for Claude Code, continuing the conversation
    /// `resume` when given.
    fn start_session_resuming(
        &mut self,
        profile_id: &ProfileId,
        size: TermSize,
        resume: Option<&str>,
    ) -> Result<SessionInfo, EngineError> {
        if !size.is_valid() {
            return Err(invalid_size(size));
        }
        let profile =
            self.store.get_profile(profile_id)?.ok_or_else(|| EngineError::ProfileNotFound(profile_id.clone()))?;
        // The workspace or the program may have gone since the profile was saved.
        let cwd = PathBuf::from(&profile.spec.cwd);
        if !cwd.is_dir() {
            return Err(EngineError::DirectoryMissing { path: cwd });
        }
        let program = resolve_command(&profile.spec.command, &cwd, self.path_env.as_deref())?;
        let mut hooks_connected = false;
        if profile.spec.kind == AgentKind::ClaudeCode
            && let Some(hook) = &self.config.hook_binary
        {
            // Without its hooks the agent still runs; the app only sees less.
            match crate::connect::connect_claude(&cwd, hook) {
                Ok(path) => {
                    tracing::debug!(path = %path.display(), "Claude Code hooks connected");
                    hooks_connected = true;
                }
                Err(error) => tracing::warn!(%error, "Claude Code hooks could not be connected"),
            }
        }
        let id = SessionId::new();
        let (args, agent_session_id) = match profile.spec.kind {
            AgentKind::ClaudeCode => {
                crate::connect::claude_conversation(&profile.spec.args, resume, || SessionId::new().to_string())
            }
            AgentKind::Codex => {
                let (args, connected) = self.connect_codex(&profile);
                hooks_connected = connected;
                (args, None)
            }
            AgentKind::Generic => (profile.spec.args.clone(), None),
        };
        let spawned = session::spawn(
            SpawnSpec {
                id: id.clone(),
                program,
                args,
                env: session_env(&profile, &id, &self.config.socket_path, &spool_path(&self.config.data_dir)),
                cwd,
                size,
                replay_cap: self.config.scrollback_bytes,
                history_lines: self.config.screen_history_lines,
                kill_grace: self.config.kill_grace,
                scan_signals: profile.spec.kind == AgentKind::Generic,
                hooks_grace: hooks_connected.then_some(self.config.hooks_grace),
            },
            self.ended_tx.clone(),
            self.scans_tx.clone(),
        )?;
        let info = SessionInfo {
            id: id.clone(),
            profile_id: profile.id.clone(),
            started_at: now(),
            size,
            state: SessionState::Running { pid: spawned.pid },
            agent_session_id,
        };
        let recorded = self.store.insert_session(&info, spawned.start_time).and_then(|()| {
            self.store.append_event(info.started_at, Some(&id), &LogKind::SessionStarted { pid: spawned.pid })
        });
        if let Err(error) = recorded {
            // An agent the store does not know of could not be recovered
            // after a crash: do not let it run.
            spawned.handle.send(Control::Kill);
            return Err(error.into());
        }
        self.sessions.insert(id.clone(), spawned.handle);
        self.running.insert(id, info.clone());
        self.sink.emit(EngineEvent::SessionChanged { session: info.clone() });
        Ok(info)
    }

    /// Codex's hooks file and `notify` pointed at the hook binary (when the
    /// app has one): the arguments to start it with, and whether its hooks
    /// are connected.
    fn connect_codex(&self, profile: &Profile) -> (Vec<String>, bool) {
        let Some(hook) = &self.config.hook_binary else { return (profile.spec.args.clone(), false) };
        let Some(home) = crate::connect::codex_home(&profile.spec.env, |name| std::env::var(name).ok()) else {
            tracing::warn!("Codex's configuration folder is unknown (no CODEX_HOME or HOME): hooks not connected");
            return (profile.spec.args.clone(), false);
        };
        let connected = match crate::connect::connect_codex(&home, hook) {
            Ok(path) => {
                tracing::debug!(path = %path.display(), "Codex hooks connected");
                true
            }
            Err(error) => {
                tracing::warn!(%error, "Codex hooks could not be connected");
                false
            }
        };
        let config = std::fs::read_to_string(home.join("config.toml")).ok();
        (crate::connect::codex_notify(&profile.spec.args, config.as_deref(), hook), connected)
    }

    fn stop_session(&mut self, session_id: SessionId, reply: Responder) {
        if !self.running.contains_key(&session_id) {
            reply.send(Err(self.missing_session(&session_id))).ok();
            return;
        }
        self.sessions.get(&session_id).expect("running sessions have an actor").send(Control::Kill);
        self.pending_stops.entry(session_id).or_default().push(reply);
    }

    fn resume_session(&mut self, session_id: &SessionId, size: TermSize) -> Result<SessionInfo, EngineError> {
        if !size.is_valid() {
            return Err(invalid_size(size));
        }
        let old =
            self.store.get_session(session_id)?.ok_or_else(|| EngineError::SessionNotFound(session_id.clone()))?;
        if self.running.contains_key(session_id) {
            return Err(EngineError::InvalidInput { field: "session_id", reason: "it is still running".into() });
        }
        let Some(conversation) = old.agent_session_id else {
            return Err(EngineError::InvalidInput {
                field: "session_id",
                reason: "the app does not know this agent's conversation, so it cannot be resumed".into(),
            });
        };
        self.start_session_resuming(&old.profile_id, size, Some(&conversation))
    }

    fn restart_session(&mut self, session_id: SessionId, size: TermSize, reply: Responder) {
        if self.running.contains_key(&session_id) {
            self.sessions.get(&session_id).expect("running sessions have an actor").send(Control::Kill);
            self.pending_restarts.entry(session_id).or_default().push((size, reply));
            return;
        }
        let result = self
            .store
            .get_session(&session_id)
            .map_err(EngineError::from)
            .and_then(|old| old.ok_or(EngineError::SessionNotFound(session_id)))
            .and_then(|old| self.start_session(&old.profile_id, size));
        reply.send(result.map(Reply::Session)).ok();
    }

    fn on_session_end(&mut self, end: SessionEnd) {
        let ended_at = now();
        let (state, log) = ended_state(&end, ended_at);
        // The report comes from what the engine knows, not from re-reading
        // the store: if the store cannot record the end (a full disk), the UI
        // must still not show a dead agent as running.
        let known = self.running.remove(&end.id).map(Ok).unwrap_or_else(|| {
            self.store
                .get_session(&end.id)
                .map_err(EngineError::from)
                .and_then(|found| found.ok_or_else(|| EngineError::SessionNotFound(end.id.clone())))
        });
        let recorded = self
            .store
            .update_session_state(&end.id, &state)
            .and_then(|()| self.store.append_event(ended_at, Some(&end.id), &log));
        if let Err(error) = recorded {
            tracing::error!(session = %end.id, %error, "recording a session's end failed");
        }
        let info = known.map(|info| SessionInfo { state: state.clone(), ..info });

        self.ended_order.push_back(end.id.clone());
        while self.ended_order.len() > RETAINED_ENDED_SESSIONS {
            if let Some(old) = self.ended_order.pop_front() {
                self.sessions.remove(&old);
            }
        }

        if let Ok(info) = &info {
            self.sink.emit(EngineEvent::SessionChanged { session: info.clone() });
        }
        self.on_task_session_end(&end.id, end.killed, &state);
        self.hook_session_ended(&end.id);
        self.close_permissions_of(&end.id);
        self.teammate_gone(&end.id);
        for reply in self.pending_stops.remove(&end.id).unwrap_or_default() {
            reply.send(clone_result(&info).map(Reply::Session)).ok();
        }
        for (size, reply) in self.pending_restarts.remove(&end.id).unwrap_or_default() {
            let result = clone_result(&info).and_then(|old| self.start_session(&old.profile_id, size));
            reply.send(result.map(Reply::Session)).ok();
        }
    }

    fn stop_all(&mut self) {
        self.shutting_down = true;
        for id in self.running.keys() {
            if let Some(session) = self.sessions.get(id) {
                session.send(Control::Kill);
            }
        }
    }

    fn start_on_launch(&mut self) {
        let profiles = match self.store.list_profiles() {
            Ok(profiles) => profiles,
            Err(error) => {
                tracing::error!(%error, "listing profiles to start on launch failed");
                return;
            }
        };
        for profile in profiles.into_iter().filter(|p| p.spec.start_on_launch) {
            if let Err(error) = self.start_session(&profile.id, TermSize::DEFAULT) {
                tracing::warn!(profile = %profile.spec.name, %error, "starting an agent on launch failed");
            }
        }
    }

    /// Sessions recorded as running belong to a previous run of the app that
    /// did not stop cleanly. Mark them interrupted; end their processes if
    /// the recorded PID still names the same process.
    fn recover_interrupted(&mut self) -> Result<(), EngineError> {
        for run in self.store.running_sessions()? {
            let SessionState::Running { pid } = run.session.state else { continue };
            let alive = process::is_same_process(pid, run.pid_start_time);
            if alive {
                let report = process::terminate_session(&run.session.id, pid as i32, self.config.kill_grace);
                tracing::info!(session = %run.session.id, pid, ?report, "reaped an interrupted agent");
            }
            let ended_at = now();
            self.store.update_session_state(&run.session.id, &SessionState::Interrupted { ended_at })?;
            self.store.append_event(ended_at, Some(&run.session.id), &LogKind::SessionInterrupted { reaped: alive })?;
        }
        Ok(())
    }
}

/// How a session's end is recorded: stopped by the user (or the app's exit)
/// is `killed`, anything else `exited`, each with its exit code and signal.
fn ended_state(end: &SessionEnd, ended_at: Millis) -> (SessionState, LogKind) {
    let (exit_code, signal) = (end.exit_code, end.signal.clone());
    if end.killed {
        (
            SessionState::Killed { exit_code, signal: signal.clone(), ended_at },
            LogKind::SessionKilled { exit_code, signal },
        )
    } else {
        (
            SessionState::Exited { exit_code, signal: signal.clone(), ended_at },
            LogKind::SessionExited { exit_code, signal },
        )
    }
}

/// `EngineError` is not `Clone` (it wraps I/O and SQLite errors); one
/// lookup result may answer several waiting callers.
fn clone_result(result: &Result<SessionInfo, EngineError>) -> Result<SessionInfo, EngineError> {
    match result {
        Ok(info) => Ok(info.clone()),
        Err(error) => Err(EngineError::Internal(error.to_string())),
    }
}

fn invalid_size(size: TermSize) -> EngineError {
    EngineError::InvalidInput {
        field: "size",
        reason: format!("{}x{} is not a usable terminal size", size.cols, size.rows),
    }
}

/// The environment an agent starts with, on top of the app's own: the
/// profile's variables, then what the engine needs (these win).
fn session_env(profile: &Profile, id: &SessionId, socket: &Path, spool: &Path) -> Vec<(String, String)> {
    let mut env: Vec<(String, String)> =
        vec![("TERM".into(), "xterm-256color".into()), ("COLORTERM".into(), "truecolor".into())];
    env.extend(profile.spec.env.iter().map(|(k, v)| (k.clone(), v.clone())));
    env.push((process::SESSION_ENV.into(), id.to_string()));
    env.push(("SWITCHBOARD_SOCKET".into(), socket.display().to_string()));
    env.push(("SWITCHBOARD_SPOOL".into(), spool.display().to_string()));
    env
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn how_an_end_is_recorded() {
        let end = |killed, exit_code, signal: Option<&str>| SessionEnd {
            id: SessionId::new(),
            exit_code,
            signal: signal.map(str::to_owned),
            killed,
        };
        let hup = Some("Hangup".to_owned());
        let cases = [
            (
                end(false, 0, None),
                SessionState::Exited { exit_code: 0, signal: None, ended_at: 9 },
                LogKind::SessionExited { exit_code: 0, signal: None },
            ),
            (
                end(false, 134, Some("Aborted")),
                SessionState::Exited { exit_code: 134, signal: Some("Aborted".into()), ended_at: 9 },
                LogKind::SessionExited { exit_code: 134, signal: Some("Aborted".into()) },
            ),
            (
                end(true, 1, Some("Hangup")),
                SessionState::Killed { exit_code: 1, signal: hup.clone(), ended_at: 9 },
                LogKind::SessionKilled { exit_code: 1, signal: hup },
            ),
            // Stopped, but it exited cleanly on the first SIGTERM: still the user's doing.
            (
                end(true, 0, None),
                SessionState::Killed { exit_code: 0, signal: None, ended_at: 9 },
                LogKind::SessionKilled { exit_code: 0, signal: None },
            ),
        ];
        for (end, state, log) in cases {
            assert_eq!(ended_state(&end, 9), (state, log), "{end:?}");
        }
    }
}
