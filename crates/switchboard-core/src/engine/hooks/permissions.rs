//! Permission requests: an agent's hook asks to use a tool and waits
//! (bounded) for the user's decision in the window; unanswered, the
//! agent's own prompt decides.

use switchboard_protocol::SessionId;
use switchboard_protocol::hook::HookEvent;

use super::Hooked;
use tokio::time::Instant;

use super::HookDesk;
use crate::engine::context::Ctx;
use crate::error::{EngineError, Responder};
use switchboard_api::{EngineEvent, PermissionDecision, PermissionRequest, now};

/// A permission request whose hook waits for the user.
pub(super) struct PendingPermission {
    pub request: PermissionRequest,
    pub deadline: Instant,
    /// The hook's answer: the decision, or none (its own prompt decides).
    pub reply: Responder<Option<PermissionDecision>>,
}

impl HookDesk {
    /// Holds a permission request's hook until the user decides or the
    /// time runs out.
    pub fn ask_permission(&mut self, cx: &Ctx, hooked: &Hooked, reply: Responder<Option<PermissionDecision>>) {
        let (Some(session_id), HookEvent::PermissionRequest { tool_name, tool_input }) =
            (hooked.session.clone(), &hooked.event)
        else {
            reply.send(Ok(None));
            return;
        };
        let (tool_name, tool_input) = (tool_name.clone(), tool_input.clone());
        self.next_permission += 1;
        let wait = self.permission_wait;
        let asked_at = now();
        let request = PermissionRequest {
            id: self.next_permission,
            session_id,
            tool_name,
            tool_input,
            asked_at,
            expires_at: asked_at + wait.as_millis() as i64,
            host: None,
        };
        cx.emit(EngineEvent::PermissionRequested { request: request.clone() });
        self.permissions.push(PendingPermission { request, deadline: Instant::now() + wait, reply });
    }

    pub fn decide_permission(&mut self, cx: &Ctx, id: u64, decision: PermissionDecision) -> Result<(), EngineError> {
        let Some(index) = self.permissions.iter().position(|p| p.request.id == id) else {
            return Err(EngineError::InvalidInput {
                field: "request_id",
                reason: "no such permission request waits (it was answered, or the agent's own prompt took over)"
                    .into(),
            });
        };
        let pending = self.permissions.remove(index);
        pending.reply.send(Ok(Some(decision.clone())));
        cx.emit(EngineEvent::PermissionClosed {
            request_id: id,
            session_id: pending.request.session_id,
            decision: Some(decision),
        });
        Ok(())
    }

    pub fn next_permission_deadline(&self) -> Option<Instant> {
        self.permissions.iter().map(|p| p.deadline).min()
    }

    /// Requests nobody answered in time go back to the agent's own prompt.
    pub fn expire_permissions(&mut self, cx: &Ctx, now: Instant) {
        self.close_where(cx, |pending| pending.deadline <= now);
    }

    /// A session ended: its waiting hooks are let go.
    pub fn close_permissions_of(&mut self, cx: &Ctx, session_id: &SessionId) {
        self.close_where(cx, |pending| &pending.request.session_id == session_id);
    }

    fn close_where(&mut self, cx: &Ctx, close: impl Fn(&PendingPermission) -> bool) {
        let (closed, waiting): (Vec<_>, Vec<_>) = std::mem::take(&mut self.permissions).into_iter().partition(close);
        self.permissions = waiting;
        for pending in closed {
            pending.reply.send(Ok(None));
            cx.emit(EngineEvent::PermissionClosed {
                request_id: pending.request.id,
                session_id: pending.request.session_id,
                decision: None,
            });
        }
    }
}
