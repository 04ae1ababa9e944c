//! [`EngineHandle`]: the only way into the engine. Each method sends one
//! typed call to the engine task and awaits its answer; the wire form
//! ([`Command`] and [`Reply`]) is for the socket and the command line.

use switchboard_protocol::hook::HookEnvelope;
use switchboard_protocol::{ProfileId, SessionId, SignalId, TaskId, TermSize};
use tokio::sync::{mpsc, oneshot};

use super::state::{Call, EngineState, Request};
use crate::api::{
    AgentStatusInfo, Command, LogEntry, PermissionDecision, PermissionRequest, Profile, ProfileSpec, QueueStatus,
    Reply, ScreenSnapshot, SessionInfo, SignalInfo, SignalResponse, Submitted, TaskInfo, TaskSpec,
};
use crate::error::{EngineError, Responder};
use crate::session::{OutputSink, SubscriptionId};

/// A cloneable handle on the running engine. When the last handle is dropped
/// the engine stops every agent and ends.
#[derive(Clone)]
pub struct EngineHandle {
    requests: mpsc::Sender<Request>,
}

impl EngineHandle {
    pub(crate) fn new(requests: mpsc::Sender<Request>) -> Self {
        EngineHandle { requests }
    }

    /// Sends any command in the wire vocabulary and awaits its reply.
    pub async fn call(&self, command: Command) -> Result<Reply, EngineError> {
        send_command(&self.requests, command).await
    }

    /// Runs `call` on the engine task; it answers through the responder,
    /// now or later.
    async fn ask<T: Send + 'static>(
        &self,
        call: impl FnOnce(&mut EngineState, Responder<T>) + Send + 'static,
    ) -> Result<T, EngineError> {
        let (responder, answer) = Responder::channel();
        let call: Call = Box::new(move |engine| call(engine, responder));
        self.requests.send(Request::Call(call)).await.map_err(|_| EngineError::EngineStopped)?;
        answer.await.map_err(|_| EngineError::EngineStopped)?
    }

    /// Runs `call` on the engine task and answers with its result.
    async fn run<T: Send + 'static>(
        &self,
        call: impl FnOnce(&mut EngineState) -> Result<T, EngineError> + Send + 'static,
    ) -> Result<T, EngineError> {
        self.ask(move |engine, reply| engine.answer(reply, call)).await
    }

    pub async fn list_profiles(&self) -> Result<Vec<Profile>, EngineError> {
        self.run(|engine| engine.list_profiles()).await
    }

    pub async fn create_profile(&self, spec: ProfileSpec) -> Result<Profile, EngineError> {
        self.run(move |engine| engine.create_profile(spec)).await
    }

    pub async fn update_profile(&self, profile_id: ProfileId, spec: ProfileSpec) -> Result<Profile, EngineError> {
        self.run(move |engine| engine.update_profile(profile_id, spec)).await
    }

    pub async fn delete_profile(&self, profile_id: ProfileId) -> Result<(), EngineError> {
        self.run(move |engine| engine.delete_profile(profile_id)).await
    }

    pub async fn list_sessions(&self) -> Result<Vec<SessionInfo>, EngineError> {
        self.run(|engine| engine.list_sessions()).await
    }

    pub async fn start_session(&self, profile_id: ProfileId, size: TermSize) -> Result<SessionInfo, EngineError> {
        self.run(move |engine| engine.start_session(&profile_id, size)).await
    }

    /// Stops the session's whole process tree; returns once it is gone.
    pub async fn stop_session(&self, session_id: SessionId) -> Result<SessionInfo, EngineError> {
        self.ask(move |engine, reply| engine.stop_session(session_id, reply)).await
    }

    /// Starts a session that continues an ended session's conversation.
    pub async fn resume_session(&self, session_id: SessionId, size: TermSize) -> Result<SessionInfo, EngineError> {
        self.run(move |engine| engine.resume_session(&session_id, size)).await
    }

    /// Stops the session if it runs, then starts a new one of its profile.
    pub async fn restart_session(&self, session_id: SessionId, size: TermSize) -> Result<SessionInfo, EngineError> {
        self.ask(move |engine, reply| engine.restart_session(session_id, size, reply)).await
    }

    pub async fn write_input(&self, session_id: SessionId, data: String) -> Result<(), EngineError> {
        self.ask(move |engine, reply| engine.write_input(&session_id, data, reply)).await
    }

    pub async fn resize(&self, session_id: SessionId, size: TermSize) -> Result<(), EngineError> {
        self.ask(move |engine, reply| engine.resize(&session_id, size, reply)).await
    }

    pub async fn set_output_paused(&self, session_id: SessionId, paused: bool) -> Result<(), EngineError> {
        self.run(move |engine| engine.set_output_paused(&session_id, paused)).await
    }

    pub async fn screen_snapshot(
        &self,
        session_id: SessionId,
        recent_lines: u32,
    ) -> Result<ScreenSnapshot, EngineError> {
        self.ask(move |engine, reply| engine.screen_snapshot(&session_id, recent_lines, reply)).await
    }

    pub async fn list_events(&self, session_id: Option<SessionId>) -> Result<Vec<LogEntry>, EngineError> {
        self.run(move |engine| engine.list_events(session_id.as_ref())).await
    }

    pub async fn submit_task(&self, spec: TaskSpec) -> Result<Submitted, EngineError> {
        self.run(move |engine| engine.submit_task(spec)).await
    }

    /// Queued and running tasks plus the most recent finished ones.
    pub async fn list_tasks(&self, profile_id: Option<ProfileId>) -> Result<Vec<TaskInfo>, EngineError> {
        self.run(move |engine| engine.list_tasks(profile_id.as_ref())).await
    }

    pub async fn get_task(&self, task_id: TaskId) -> Result<TaskInfo, EngineError> {
        self.run(move |engine| engine.get_task(&task_id)).await
    }

    pub async fn cancel_task(&self, task_id: TaskId) -> Result<TaskInfo, EngineError> {
        self.run(move |engine| engine.cancel_task(&task_id)).await
    }

    pub async fn move_task(&self, task_id: TaskId, to_index: u32) -> Result<(), EngineError> {
        self.run(move |engine| engine.move_task(&task_id, to_index)).await
    }

    pub async fn requeue_task(&self, task_id: TaskId) -> Result<TaskInfo, EngineError> {
        self.run(move |engine| engine.requeue_task(&task_id)).await
    }

    pub async fn set_queue_paused(&self, profile_id: Option<ProfileId>, paused: bool) -> Result<(), EngineError> {
        self.run(move |engine| engine.set_queue_paused(profile_id, paused)).await
    }

    pub async fn list_queues(&self) -> Result<Vec<QueueStatus>, EngineError> {
        self.run(|engine| engine.list_queues()).await
    }

    pub async fn task_timeline(&self, task_id: TaskId) -> Result<Vec<LogEntry>, EngineError> {
        self.run(move |engine| engine.task_timeline(&task_id)).await
    }

    /// Pending signals and the most recent handled ones.
    pub async fn list_signals(&self) -> Result<Vec<SignalInfo>, EngineError> {
        self.run(|engine| engine.list_signals()).await
    }

    pub async fn respond_to_signal(
        &self,
        signal_id: SignalId,
        response: SignalResponse,
    ) -> Result<SignalInfo, EngineError> {
        self.run(move |engine| engine.respond_to_signal(&signal_id, response)).await
    }

    /// An event from an agent's hooks. A permission request is answered
    /// once the user decides (or the wait runs out).
    pub async fn hook_event(&self, envelope: HookEnvelope) -> Result<Option<PermissionDecision>, EngineError> {
        self.ask(move |engine, reply| engine.hook_event(envelope, reply)).await
    }

    pub async fn list_agent_status(&self) -> Result<Vec<AgentStatusInfo>, EngineError> {
        self.run(|engine| Ok(engine.list_agent_status())).await
    }

    /// Permission requests waiting for the user.
    pub async fn list_permission_requests(&self) -> Result<Vec<PermissionRequest>, EngineError> {
        self.run(|engine| Ok(engine.list_permission_requests())).await
    }

    /// Answers a permission request: its hook hands the agent the decision.
    pub async fn decide_permission(
        &self,
        request_id: u64,
        allow: bool,
        message: Option<String>,
    ) -> Result<(), EngineError> {
        self.run(move |engine| engine.decide_permission(request_id, PermissionDecision { allow, message })).await
    }

    /// Text an agent wrote, from its hooks: scanned for signals.
    pub async fn agent_text(&self, session_id: SessionId, text: String) -> Result<(), EngineError> {
        self.run(move |engine| engine.agent_text(session_id, &text)).await
    }

    /// Subscribes to a session's output: the sink first receives the
    /// retained output (replay), then every new batch.
    pub async fn attach(&self, session_id: SessionId, sink: impl OutputSink) -> Result<SubscriptionId, EngineError> {
        self.ask(move |engine, reply| engine.attach(&session_id, Box::new(sink), reply)).await
    }

    pub async fn detach(&self, session_id: SessionId, subscription: SubscriptionId) -> Result<(), EngineError> {
        self.run(move |engine| {
            engine.detach(&session_id, subscription);
            Ok(())
        })
        .await
    }

    /// Stops every running agent (recording them as killed) and ends the
    /// engine. Returns when all their processes are gone.
    pub async fn shutdown(&self) {
        let (reply, done) = oneshot::channel();
        if self.requests.send(Request::Shutdown(reply)).await.is_ok() {
            done.await.ok();
        }
    }
}

/// Sends a wire command on the engine's request channel and awaits the reply.
pub(crate) async fn send_command(requests: &mpsc::Sender<Request>, command: Command) -> Result<Reply, EngineError> {
    let (reply, answer) = Responder::channel();
    requests.send(Request::Command(command, reply)).await.map_err(|_| EngineError::EngineStopped)?;
    answer.await.map_err(|_| EngineError::EngineStopped)?
}
