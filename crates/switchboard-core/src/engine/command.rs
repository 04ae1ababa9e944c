//! Commands in the wire vocabulary (from the socket and the command line):
//! each is the same typed call the handle makes, its result wrapped in the
//! [`Reply`] variant of its kind.

use switchboard_protocol::hook::HookEvent;

use super::state::EngineState;
use crate::api::{Command, PermissionDecision, Reply};
use crate::error::Responder;

impl EngineState {
    pub(super) fn on_command(&mut self, command: Command, reply: Responder<Reply>) {
        match command {
            Command::ListProfiles => self.answer(reply.map(Reply::Profiles), |e| e.list_profiles()),
            Command::CreateProfile { spec } => self.answer(reply.map(Reply::Profile), |e| e.create_profile(spec)),
            Command::UpdateProfile { profile_id, spec } => {
                self.answer(reply.map(Reply::Profile), |e| e.update_profile(profile_id, spec))
            }
            Command::DeleteProfile { profile_id } => self.answer(unit(reply), |e| e.delete_profile(profile_id)),
            Command::ListSessions => self.answer(reply.map(Reply::Sessions), |e| e.list_sessions()),
            Command::StartSession { profile_id, size } => {
                self.answer(reply.map(Reply::Session), |e| e.start_session(&profile_id, size))
            }
            Command::StopSession { session_id } => self.stop_session(session_id, reply.map(Reply::Session)),
            Command::RestartSession { session_id, size } => {
                self.restart_session(session_id, size, reply.map(Reply::Session))
            }
            Command::ResumeSession { session_id, size } => {
                self.answer(reply.map(Reply::Session), |e| e.resume_session(&session_id, size))
            }
            Command::WriteInput { session_id, data } => self.write_input(&session_id, data, unit(reply)),
            Command::Resize { session_id, size } => self.resize(&session_id, size, unit(reply)),
            Command::SetOutputPaused { session_id, paused } => {
                self.answer(unit(reply), |e| e.set_output_paused(&session_id, paused))
            }
            Command::ScreenSnapshot { session_id, recent_lines } => {
                self.screen_snapshot(&session_id, recent_lines, reply.map(Reply::Snapshot))
            }
            Command::ListEvents { session_id } => {
                self.answer(reply.map(Reply::Events), |e| e.list_events(session_id.as_ref()))
            }
            Command::SubmitTask { spec } => self.answer(reply.map(Reply::Submitted), |e| e.submit_task(spec)),
            Command::ListTasks { profile_id } => {
                self.answer(reply.map(Reply::Tasks), |e| e.list_tasks(profile_id.as_ref()))
            }
            Command::GetTask { task_id } => self.answer(reply.map(Reply::Task), |e| e.get_task(&task_id)),
            Command::CancelTask { task_id } => self.answer(reply.map(Reply::Task), |e| e.cancel_task(&task_id)),
            Command::MoveTask { task_id, to_index } => self.answer(unit(reply), |e| e.move_task(&task_id, to_index)),
            Command::RequeueTask { task_id } => self.answer(reply.map(Reply::Task), |e| e.requeue_task(&task_id)),
            Command::SetQueuePaused { profile_id, paused } => {
                self.answer(unit(reply), |e| e.set_queue_paused(profile_id, paused))
            }
            Command::ListQueues => self.answer(reply.map(Reply::Queues), |e| e.list_queues()),
            Command::TaskTimeline { task_id } => self.answer(reply.map(Reply::Events), |e| e.task_timeline(&task_id)),
            Command::ListSignals => self.answer(reply.map(Reply::Signals), |e| e.list_signals()),
            Command::RespondToSignal { signal_id, response } => {
                self.answer(reply.map(Reply::Signal), |e| e.respond_to_signal(&signal_id, response))
            }
            Command::AgentText { session_id, text } => self.answer(unit(reply), |e| e.agent_text(session_id, &text)),
            Command::HookEvent { envelope } => {
                // A permission request's hook is answered with the decision
                // (none: the agent's own prompt decides); any other event
                // with a plain `ok`.
                let asks = matches!(HookEvent::parse(&envelope.payload), HookEvent::PermissionRequest { .. });
                let reply = reply.map(
                    move |decision: Option<PermissionDecision>| {
                        if asks { Reply::Permission(decision) } else { Reply::Unit }
                    },
                );
                self.hook_event(envelope, reply)
            }
            Command::ListAgentStatus => self.answer(reply.map(Reply::AgentStatus), |e| Ok(e.list_agent_status())),
            Command::ListPermissionRequests => {
                self.answer(reply.map(Reply::PermissionRequests), |e| Ok(e.list_permission_requests()))
            }
            Command::DecidePermission { request_id, allow, message } => {
                self.answer(unit(reply), |e| e.decide_permission(request_id, PermissionDecision { allow, message }))
            }
        }
    }
}

fn unit(reply: Responder<Reply>) -> Responder<()> {
    reply.map(|()| Reply::Unit)
}
