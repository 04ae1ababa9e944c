//! The hook desk: events from agents' hooks are logged, turned into each
//! session's agent status and team, and — for the agent's own words at a
//! turn's end — left for the signal desk. Permission requests wait here for
//! the user. Events spooled while the app was not running are replayed at
//! start, in order.

mod permissions;
#[cfg(test)]
mod tests;
mod transcripts;

use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::time::Duration;

use switchboard_protocol::SessionId;
use switchboard_protocol::capped::{MAX_NAME_BYTES, MAX_PATH_BYTES, capped};
use switchboard_protocol::hook::{
    AgentStatus, HookEnvelope, HookEvent, hook_conversation, is_side_thread, next_status,
};
use switchboard_protocol::team::{Emit, gate, team_event, turn_end};

use super::context::{Ctx, Follow};
use super::status;
use crate::config::{SPOOL_FILE, spool_path};
use crate::error::EngineError;
use crate::server::SocketRequest;
use crate::sink::LogAbout;
use permissions::PendingPermission;
use switchboard_api::{LogKind, PermissionRequest, now};

/// Spooled lines that could not be replayed, kept beside the spool.
pub const SPOOL_QUARANTINE_FILE: &str = "hook-spool.rejected.jsonl";

/// What replaying the spool did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SpoolReplay {
    pub replayed: usize,
    /// Lines kept in the quarantine file instead.
    pub kept: usize,
    /// Lines left in the spool because the store refused them.
    pub left: usize,
}

/// The most of a spool replayed at start. Hooks spool only while no app
/// answers, a few hundred bytes an event; a spool larger than this was not
/// written by them, and is set aside whole instead of read.
pub const SPOOL_REPLAY_CAP_BYTES: u64 = 64 * 1024 * 1024;

/// A spool set aside unread because it was larger than the replay cap.
pub const SPOOL_TOO_LARGE_FILE: &str = "hook-spool.too-large.jsonl";

/// The spool, when there is one to replay: a regular file of the data
/// folder (a link or FIFO an agent put at its path is removed, so hooks can
/// spool again; a spool over the cap is set aside). Never blocks.
fn open_spool(data_dir: &Path) -> Option<std::fs::File> {
    use crate::workspace::{PathRefusal, Workspace, refusal_of};
    let folder = Workspace::open_private(data_dir).ok()?;
    let file = match folder.open_file(SPOOL_FILE) {
        Ok(file) => file,
        Err(error) => {
            match refusal_of(&error) {
                Some(PathRefusal::Missing) => {}
                Some(refusal) => {
                    tracing::error!(%refusal, "the hook spool is not a file of the data folder; it is removed unread");
                    if let Err(error) = folder.remove(SPOOL_FILE) {
                        tracing::error!(%error, "removing what stands at the hook spool's path failed");
                    }
                }
                None => tracing::error!(%error, "the hook spool cannot be opened; it is kept"),
            }
            return None;
        }
    };
    let size = file.metadata().map(|meta| meta.len()).unwrap_or(0);
    if size > SPOOL_REPLAY_CAP_BYTES {
        tracing::error!(size, "the hook spool is larger than any hooks write; it is set aside unread");
        let aside = std::fs::rename(spool_path(data_dir), data_dir.join(SPOOL_TOO_LARGE_FILE));
        if let Err(error) = aside {
            tracing::error!(%error, "setting the hook spool aside failed; it is removed");
            folder.remove(SPOOL_FILE).ok();
        }
        return None;
    }
    Some(file)
}

/// Each line followed by a newline.
fn joined(lines: &[Vec<u8>]) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(lines.iter().map(|line| line.len() + 1).sum());
    for line in lines {
        bytes.extend_from_slice(line);
        bytes.push(b'\n');
    }
    bytes
}

/// The largest payload kept whole in the event log.
const LOGGED_PAYLOAD_BYTES: usize = 16 * 1024;

/// Most conversation files one session's events may name (its own, its
/// team's): each is followed for its usage.
const MAX_FILES_NAMED: usize = 64;

pub(crate) struct HookDesk {
    /// Permission requests whose hooks wait for the user, oldest first.
    permissions: Vec<PendingPermission>,
    next_permission: u64,
    /// How long a permission request waits for the user.
    permission_wait: Duration,
    /// Events that could not be used (no session, unknown session).
    refused: u64,
    /// Spooled lines kept aside since start.
    quarantined: usize,
}

/// A hook event as it came in, read once where it enters the engine: the
/// session it names (none when it names no session id at all), what it
/// says, and the envelope as sent (its payload is logged, its environment
/// read, its secret checked).
pub(crate) struct Hooked {
    pub session: Option<SessionId>,
    pub event: HookEvent,
    pub raw: HookEnvelope,
}

impl Hooked {
    pub fn new(raw: HookEnvelope) -> Hooked {
        let session = raw.session_id.as_deref().and_then(|id| id.parse::<SessionId>().ok());
        Hooked { session, event: HookEvent::parse(&raw.payload), raw }
    }

    /// Whether it asks the user's leave for a tool (its hook waits for the answer).
    pub fn asks_permission(&self) -> bool {
        matches!(self.event, HookEvent::PermissionRequest { .. })
    }
}

/// The variables of the agent's environment, forwarded by its hooks, that
/// say who it is: kept and shown.
const IDENTITY_ENV: [&str; 4] =
    ["CLAUDE_CODE_TEAM_NAME", "CLAUDE_CODE_AGENT_ID", "CLAUDE_CODE_AGENT_NAME", "CLAUDE_CODE_AGENT_TYPE"];

impl HookDesk {
    pub fn new(permission_wait: Duration) -> Self {
        HookDesk { permissions: Vec::new(), next_permission: 0, permission_wait, refused: 0, quarantined: 0 }
    }

    /// An event from a session's hooks.
    pub fn on_hook(&mut self, cx: &mut Ctx, hooked: &Hooked) -> Result<(), EngineError> {
        let envelope = &hooked.raw;
        let session_id = hooked.session.clone();
        let entry = session_id.as_ref().and_then(|id| cx.sessions.known(&cx.store, id));
        let (Some(session_id), Some(entry)) = (session_id, entry) else {
            self.refused += 1;
            return Err(EngineError::InvalidInput {
                field: "session_id",
                reason: format!("a hook event names no session of this app ({:?})", envelope.session_id),
            });
        };
        if !entry.is_spoken_for_by(envelope.secret.as_deref()) {
            self.refused += 1;
            tracing::warn!(session = %session_id, "refused a hook event without its session's secret");
            return Err(EngineError::NotThisSession);
        }
        // Claude Code's status-line input, handed on by the app's status-line
        // command: the account's usage, nothing of the agent's turn; kept
        // (when it changed) as the account's, not logged with the session.
        if envelope.payload.get("hook_event_name").and_then(serde_json::Value::as_str)
            == Some(switchboard_protocol::limit::STATUS_LINE_EVENT)
        {
            let windows = switchboard_protocol::limit::usage_from_status_line(&envelope.payload);
            if !windows.is_empty() {
                cx.follow(Follow::UsageTold { session: session_id, windows });
            }
            return Ok(());
        }
        if let Some(conversation) = hook_conversation(&envelope.payload) {
            let conversation = entry.hooks.conversation.get_or_insert_with(|| conversation.to_owned()).clone();
            // One the app did not name (Codex's thread): kept, so a later
            // session in its worktree can resume it.
            if entry.info.agent_session_id.is_none() && conversation.len() <= MAX_NAME_BYTES {
                entry.info.agent_session_id = Some(conversation.clone());
                if let Err(error) = cx.store.set_agent_session_id(&session_id, &conversation) {
                    tracing::warn!(%error, "a session's conversation could not be recorded");
                }
            }
        }
        let side_thread = is_side_thread(&envelope.payload, entry.hooks.conversation.as_deref());
        let side = HookEvent::Unknown { name: "agent-turn-complete (side thread)".into() };
        let event = if side_thread { &side } else { &hooked.event };
        // Stored first: an event that could not be (a full disk) is refused
        // with nothing applied, so its hook spools it for the next start.
        log_hook(cx, &session_id, envelope, event)?;
        if side_thread {
            return Ok(());
        }
        // Codex gives its lead no new turn when a sub-agent it did not wait
        // for stops (recorded: `real_agents.rs`), while Claude Code's lead
        // hears of it and its next Stop settles the task: a Codex lead's task
        // is settled when its team's last member stops.
        let codex = cx
            .sessions
            .get(&session_id)
            .and_then(|entry| cx.profile(&entry.info.profile_id).ok())
            .is_some_and(|profile| profile.spec.kind == switchboard_protocol::AgentKind::Codex);
        let entry = cx.sessions.get_mut(&session_id).expect("known above");
        let files =
            transcripts::named(&envelope.payload, entry.hooks.conversation.as_deref(), entry.hooks.own_file.as_deref());
        let mut new_files = Vec::new();
        for (path, team) in files {
            if !team && entry.hooks.own_file.is_none() {
                entry.hooks.own_file = Some(path.clone());
            }
            if entry.hooks.files.len() < MAX_FILES_NAMED && entry.hooks.files.insert(path.clone()) {
                new_files.push(Follow::Transcript { session: session_id.clone(), path, team });
            }
        }
        new_files.into_iter().for_each(|follow| cx.follow(follow));
        let entry = cx.sessions.get_mut(&session_id).expect("known above");
        note_what_it_says_of_itself(entry, envelope, event);
        let was_active = entry.team.is_active();
        if let Some(team_event) = team_event(event, envelope) {
            entry.team.apply(team_event);
        }
        let team_emptied = codex && was_active && !entry.team.is_active();
        // The gate, at every turn end: one that ends while teammates work
        // leaves the lead shown as working (and its task open); one that ends
        // without lets the task complete; one that ends in error ends its
        // task in error, never held by the team.
        let gated = turn_end(event).map(|turn| gate(&entry.team, turn));
        let team_done = gated.as_deref() == Some(&[Emit::Complete][..]);
        let turn_failed = match (&event, &gated) {
            (HookEvent::StopFailure { error, kind, .. }, Some(emits)) if emits.contains(&Emit::Error) => {
                Some((error.clone(), kind.clone()))
            }
            _ => None,
        };
        if entry.is_running() {
            let current = entry.hooks.status.as_ref().map_or(AgentStatus::Waiting, |s| s.status);
            let begins = matches!(event, HookEvent::SessionStart | HookEvent::UserPromptSubmit);
            status::set_from_hooks(cx, &session_id, next_status(current, event), now(), begins);
        }
        follow_up(cx, &session_id, event, turn_failed);
        if team_done || team_emptied {
            cx.follow(Follow::TeamSettled { lead: session_id });
        }
        Ok(())
    }

    /// Replays the events hooks spooled while no app ran, in order. A line
    /// that cannot be used (torn, not JSON, not a hook event, for no session
    /// of this app) is skipped and kept in the quarantine file beside the
    /// spool, never lost. When the store refuses an event (a full disk), it
    /// and every line after it stay in the spool for the next start. What
    /// was not replayed is never deleted. Returns how many were replayed,
    /// kept aside and left; the follow-ups they left wait in `cx`.
    pub fn replay_spool(&mut self, cx: &mut Ctx, data_dir: &Path) -> SpoolReplay {
        let path = spool_path(data_dir);
        let Some(file) = open_spool(data_dir) else { return SpoolReplay::default() };
        let mut outcome = SpoolReplay::default();
        let mut kept: Vec<Vec<u8>> = Vec::new();
        let mut left: Vec<Vec<u8>> = Vec::new();
        for (number, line) in BufReader::new(file.take(SPOOL_REPLAY_CAP_BYTES)).split(b'\n').enumerate() {
            let line = match line {
                Ok(line) => line,
                Err(error) => {
                    // The spool could not be read to its end: leave all of it.
                    tracing::error!(path = %path.display(), %error, "reading the hook spool failed; it is kept");
                    return SpoolReplay::default();
                }
            };
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            if !left.is_empty() {
                left.push(line);
                continue;
            }
            let refused = match serde_json::from_slice::<SocketRequest>(&line) {
                Ok(SocketRequest::Hook { envelope }) => match self.on_hook(cx, &Hooked::new(envelope)) {
                    Ok(()) => None,
                    Err(EngineError::Store(error)) => {
                        tracing::error!(line = number + 1, %error, "the store refused a spooled event; the rest stays spooled");
                        left.push(line);
                        continue;
                    }
                    Err(error) => Some(error.to_string()),
                },
                Ok(_) => Some("not a hook event".to_owned()),
                Err(error) => Some(format!("not a request: {error}")),
            };
            match refused {
                None => outcome.replayed += 1,
                Some(reason) => {
                    tracing::warn!(line = number + 1, %reason, "a spooled line was kept aside");
                    kept.push(line);
                }
            }
        }
        outcome.kept = kept.len();
        outcome.left = left.len();
        self.quarantined += kept.len();
        let folder = crate::workspace::Workspace::open_private(data_dir);
        let set_aside = match &folder {
            Ok(_) if kept.is_empty() => Ok(()),
            Ok(folder) => folder.append(SPOOL_QUARANTINE_FILE, b"", &joined(&kept)),
            Err(error) => Err(std::io::Error::new(error.kind(), error.to_string())),
        };
        if let Err(error) = set_aside {
            tracing::error!(file = SPOOL_QUARANTINE_FILE, %error, "keeping spooled lines aside failed");
            // The spool then keeps those lines too.
            left.splice(0..0, kept);
        }
        let rewritten = match &folder {
            Ok(folder) if left.is_empty() => folder.remove(SPOOL_FILE),
            Ok(folder) => folder.write(SPOOL_FILE, &joined(&left)),
            Err(error) => Err(std::io::Error::new(error.kind(), error.to_string())),
        };
        if let Err(error) = rewritten {
            tracing::error!(path = %path.display(), %error, "the hook spool is kept as it was");
        }
        tracing::info!(
            replayed = outcome.replayed,
            kept = outcome.kept,
            left = outcome.left,
            "replayed spooled hook events"
        );
        outcome
    }

    /// Spooled lines set aside since start.
    pub fn set_aside(&self) -> usize {
        self.quarantined
    }

    pub fn list_permission_requests(&self) -> Vec<PermissionRequest> {
        self.permissions.iter().map(|p| p.request.clone()).collect()
    }

    /// Hook events refused since start.
    #[cfg(test)]
    pub fn refused(&self) -> u64 {
        self.refused
    }
}

/// What a session's hooks say of it, kept with it: where Codex logs the
/// conversation and which turn it began last (a turn that fails is said
/// there only, see `tasks::turns`), and what the agent's environment says of
/// it (its team, its name). A sub-agent's events name it (`agent_id`), with
/// its own log and turns.
fn note_what_it_says_of_itself(entry: &mut super::sessions::SessionEntry, envelope: &HookEnvelope, event: &HookEvent) {
    let text_of = |key: &str| envelope.payload.get(key).and_then(serde_json::Value::as_str);
    let own = text_of("agent_id").is_none();
    if own
        && entry.hooks.conversation.is_some()
        && let Some(log) = text_of("transcript_path").filter(|p| p.len() <= MAX_PATH_BYTES)
    {
        entry.hooks.transcript.get_or_insert_with(|| log.to_owned());
    }
    if let (HookEvent::UserPromptSubmit, Some(turn), true) = (&event, text_of("turn_id"), own) {
        entry.hooks.turn = Some(capped(turn, MAX_NAME_BYTES));
    }
    entry.hooks.identity.extend(
        envelope
            .env
            .iter()
            .filter(|(name, _)| IDENTITY_ENV.contains(&name.as_str()))
            .map(|(k, v)| (k.clone(), capped(v.as_str(), MAX_NAME_BYTES))),
    );
}

/// What the event leaves for the other desks: the agent's words, a turn
/// that ended, ran or failed.
fn follow_up(cx: &mut Ctx, session_id: &SessionId, event: &HookEvent, turn_failed: Option<(String, Option<String>)>) {
    if let Some(text) = event.assistant_text() {
        cx.follow(Follow::AgentText { session: session_id.clone(), text: text.to_owned() });
    }
    if let HookEvent::Stop { last_assistant_message, .. } = &event {
        cx.follow(Follow::TurnEnded { session: session_id.clone(), last_message: last_assistant_message.clone() });
    }
    if let Some((error, kind)) = turn_failed {
        // Told from the error's code alone: the API's words may follow it.
        let refusal = kind.as_deref().and_then(switchboard_protocol::limit::from_claude_stop_failure);
        cx.follow(Follow::TurnFailed { session: session_id.clone(), error, refusal });
    }
    if matches!(
        event,
        HookEvent::PreToolUse { .. }
            | HookEvent::PostToolUse { .. }
            | HookEvent::PermissionRequest { .. }
            | HookEvent::SubagentStart { .. }
            | HookEvent::Stop { .. }
    ) {
        cx.follow(Follow::TurnRan { session: session_id.clone() });
    }
}

/// Logs the event in the session's history (a payload too big to keep is
/// noted by its size).
fn log_hook(cx: &Ctx, session_id: &SessionId, envelope: &HookEnvelope, event: &HookEvent) -> Result<(), EngineError> {
    let name = match event {
        HookEvent::Unknown { name } if name.is_empty() => "unrecognised".to_owned(),
        HookEvent::Unknown { name } => name.clone(),
        other => serde_json::to_value(other)
            .ok()
            .and_then(|v| v.get("event").and_then(|e| e.as_str()).map(str::to_owned))
            .unwrap_or_default(),
    };
    let text = envelope.payload.to_string();
    let payload = if text.len() <= LOGGED_PAYLOAD_BYTES {
        envelope.payload.clone()
    } else {
        serde_json::json!({"truncated": true, "bytes": text.len()})
    };
    let env = (!envelope.env.is_empty()).then(|| envelope.env.clone());
    let kind = LogKind::Hook { event: name, payload, env };
    cx.log(envelope.at, LogAbout::session(session_id), &kind).map_err(|error| {
        tracing::error!(%error, "storing a hook event failed; it is refused, so its hook keeps it");
        EngineError::from(error)
    })?;
    Ok(())
}
