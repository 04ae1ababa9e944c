//! Typing a prompt into an agent's session: the one running, or a new one
//! on its conversation once it has ended (a reply, a delegate's results).

use switchboard_protocol::{ProfileId, SessionId, TermSize};

use crate::engine::context::Ctx;
use crate::error::{EngineError, Responder};
use crate::session::typing::ReadyWhen;
use crate::session::{Control, TypeRequest};

/// Types `prompt` into the session once its agent is ready. If the session
/// has ended: into a new session that continues its agent's conversation
/// when the app knows it (Claude Code, Codex), else a fresh session of its profile.
pub(super) fn deliver(
    cx: &mut Ctx,
    session_id: &SessionId,
    profile_id: &ProfileId,
    tag: &str,
    prompt: String,
) -> Result<SessionId, EngineError> {
    let target = if cx.sessions.is_running(session_id) {
        session_id.clone()
    } else {
        let old = cx.store.get_session(session_id).ok().flatten();
        let conversation = old.as_ref().and_then(|s| s.agent_session_id.clone());
        let workspace = crate::engine::sessions::still_there(old.as_ref().and_then(|s| s.workspace.as_deref()));
        cx.start_session(profile_id, TermSize::DEFAULT, conversation.as_deref(), workspace.as_deref())?.id
    };
    let ready = ReadyWhen::for_profile(&cx.profile(profile_id)?)?;
    let session = target.clone();
    let reply = Responder::new(move |typed: Result<bool, EngineError>| match typed {
        Ok(_) => tracing::debug!(%session, "a reply was typed into the agent"),
        Err(error) => tracing::warn!(%session, %error, "a reply could not be typed"),
    });
    cx.sessions.send(
        &target,
        Control::Type(TypeRequest { tag: tag.to_owned(), text: prompt, ready, reply, held: None, back: None }),
    );
    Ok(target)
}
