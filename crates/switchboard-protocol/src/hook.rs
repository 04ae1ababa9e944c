//! Agents' hook events: what Claude Code and Codex report about a session as
//! it goes (see `tests/fixtures/agents/` for recordings), as the
//! `switchboard-hook` binary forwards them, typed, and the agent status they
//! imply.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;
#[cfg(feature = "ts")]
use ts_rs::TS;

use crate::capped::{MAX_NAME_BYTES, MAX_TEXT_FIELD_BYTES, capped};

/// Largest event the hook binary reads and the server accepts.
pub const MAX_EVENT_BYTES: usize = 1024 * 1024;

/// Environment variables the hook binary passes along with an event: the
/// app's session identity and the agent's own.
pub const FORWARDED_ENV: [&str; 8] = [
    "SWITCHBOARD_SESSION_ID",
    "CLAUDE_CODE_SESSION_ID",
    "CLAUDE_PROJECT_DIR",
    "CLAUDE_PID",
    "CLAUDE_CODE_TEAM_NAME",
    "CLAUDE_CODE_AGENT_ID",
    "CLAUDE_CODE_AGENT_NAME",
    "CLAUDE_CODE_AGENT_TYPE",
];

/// What the hook binary sends: the event as the agent gave it, where it
/// came from, and when.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct HookEnvelope {
    /// The app session the agent runs in (`SWITCHBOARD_SESSION_ID`), if set.
    pub session_id: Option<String>,
    /// The forwarded environment variables that were set.
    pub env: BTreeMap<String, String>,
    /// Milliseconds since the epoch, when the hook ran.
    pub at: i64,
    /// The event JSON as the agent wrote it.
    pub payload: Value,
    /// The session's secret (`SWITCHBOARD_SESSION_SECRET`): without it the
    /// event is not taken for the session it names. Never logged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub secret: Option<String>,
}

/// The environment variable holding a session's secret, which its hook
/// events carry.
pub const SECRET_ENV: &str = "SWITCHBOARD_SESSION_SECRET";

/// A teammate or background task in a Stop event.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct BackgroundTask {
    pub id: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub status: String,
}

/// The events the app acts on, typed; anything else is `Unknown` (still
/// logged).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum HookEvent {
    SessionStart,
    UserPromptSubmit,
    PreToolUse {
        tool_name: String,
        tool_use_id: Option<String>,
        tool_input: Value,
    },
    /// A tool call ended; `failed` says why when it failed (Claude Code's
    /// PostToolUseFailure, or an error in the tool's response).
    PostToolUse {
        tool_name: String,
        tool_use_id: Option<String>,
        tool_input: Value,
        failed: Option<String>,
    },
    PermissionRequest {
        tool_name: String,
        tool_input: Value,
    },
    Notification {
        message: String,
        notification_type: Option<String>,
    },
    SubagentStart {
        agent_id: String,
        agent_type: Option<String>,
    },
    SubagentStop {
        agent_id: String,
    },
    TeammateIdle {
        agent_id: Option<String>,
        teammate_name: Option<String>,
        team_name: Option<String>,
    },
    /// A turn ended. `background_tasks` is None when the agent does not say.
    Stop {
        last_assistant_message: Option<String>,
        background_tasks: Option<Vec<BackgroundTask>>,
    },
    /// A turn ended in error (Claude Code's StopFailure, or a Stop that
    /// carries an error): what went wrong, in the agent's words (its
    /// `error_details` after its code); `kind` the error's code alone where
    /// the CLI names one (Claude Code's `rate_limit`, `overloaded`, …),
    /// which is what a usage limit is told from, whatever details follow.
    StopFailure {
        error: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        kind: Option<String>,
        last_assistant_message: Option<String>,
    },
    SessionEnd {
        reason: Option<String>,
    },
    Unknown {
        name: String,
    },
}

impl HookEvent {
    /// Reads a hook payload: Claude Code's and Codex's hooks (by
    /// `hook_event_name`), and Codex's `notify` (`type:
    /// "agent-turn-complete"`, read as a Stop).
    pub fn parse(payload: &Value) -> HookEvent {
        // The agent's last words are read in full (for signals; a loop keeps
        // their end); every other field is kept within its cap.
        let words = |key: &str| payload.get(key).and_then(Value::as_str).map(str::to_owned);
        let text = |key: &str| words(key).map(|text| capped(text, MAX_NAME_BYTES));
        let prose = |key: &str| words(key).map(|text| capped(text, MAX_TEXT_FIELD_BYTES));
        if payload.get("type").and_then(Value::as_str) == Some("agent-turn-complete") {
            return HookEvent::Stop { last_assistant_message: words("last-assistant-message"), background_tasks: None };
        }
        let Some(name) = text("hook_event_name") else {
            return HookEvent::Unknown { name: String::new() };
        };
        let tool_name = || text("tool_name").unwrap_or_default();
        let input = || payload.get("tool_input").cloned().unwrap_or(Value::Null);
        match name.as_str() {
            "SessionStart" => HookEvent::SessionStart,
            "UserPromptSubmit" => HookEvent::UserPromptSubmit,
            "PreToolUse" => {
                HookEvent::PreToolUse { tool_name: tool_name(), tool_use_id: text("tool_use_id"), tool_input: input() }
            }
            "PostToolUse" | "PostToolUseFailure" => HookEvent::PostToolUse {
                tool_name: tool_name(),
                tool_use_id: text("tool_use_id"),
                tool_input: input(),
                failed: tool_failure(payload)
                    .map(|failure| capped(failure, MAX_TEXT_FIELD_BYTES))
                    .or_else(|| (name == "PostToolUseFailure").then(|| "the tool call failed".to_owned())),
            },
            "PermissionRequest" => HookEvent::PermissionRequest { tool_name: tool_name(), tool_input: input() },
            "Notification" => HookEvent::Notification {
                message: prose("message").unwrap_or_default(),
                notification_type: text("notification_type"),
            },
            "SubagentStart" => HookEvent::SubagentStart {
                agent_id: text("agent_id").unwrap_or_default(),
                agent_type: text("agent_type"),
            },
            "SubagentStop" => HookEvent::SubagentStop { agent_id: text("agent_id").unwrap_or_default() },
            "TeammateIdle" => HookEvent::TeammateIdle {
                agent_id: text("agent_id"),
                teammate_name: text("teammate_name"),
                team_name: text("team_name"),
            },
            "StopFailure" => HookEvent::StopFailure {
                error: error_text(payload).map_or_else(
                    || "the turn ended in an error".to_owned(),
                    |error| capped(error, MAX_TEXT_FIELD_BYTES),
                ),
                kind: error_kind(payload),
                last_assistant_message: words("last_assistant_message"),
            },
            "Stop" if error_text(payload).is_some() => HookEvent::StopFailure {
                error: capped(error_text(payload).expect("checked"), MAX_TEXT_FIELD_BYTES),
                kind: error_kind(payload),
                last_assistant_message: words("last_assistant_message"),
            },
            "Stop" => HookEvent::Stop {
                last_assistant_message: words("last_assistant_message"),
                background_tasks: payload
                    .get("background_tasks")
                    .and_then(|tasks| serde_json::from_value(tasks.clone()).ok()),
            },
            "SessionEnd" => HookEvent::SessionEnd { reason: prose("reason") },
            _ => HookEvent::Unknown { name },
        }
    }

    /// The agent's own words at the end of a turn, where signals are read.
    pub fn assistant_text(&self) -> Option<&str> {
        match self {
            HookEvent::Stop { last_assistant_message: Some(text), .. }
            | HookEvent::StopFailure { last_assistant_message: Some(text), .. } => Some(text),
            _ => None,
        }
    }
}

/// An event's error code, when its `error` is one word of text (Claude
/// Code's StopFailure names the error so, and puts the API's own words in
/// `error_details`).
fn error_kind(payload: &Value) -> Option<String> {
    let kind = payload.get("error")?.as_str()?.trim();
    let one_word = !kind.is_empty() && kind.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    one_word.then(|| capped(kind.to_owned(), MAX_NAME_BYTES))
}

/// An event's error, when it carries one: `error` as text (or an object's
/// `message`), with `error_details` after it.
fn error_text(payload: &Value) -> Option<String> {
    let error = match payload.get("error")? {
        Value::String(text) => text.trim().to_owned(),
        Value::Null | Value::Bool(false) => return None,
        Value::Object(fields) => {
            fields.get("message").and_then(Value::as_str).map_or_else(|| payload["error"].to_string(), str::to_owned)
        }
        other => other.to_string(),
    };
    if error.is_empty() {
        return None;
    }
    match payload.get("error_details").and_then(Value::as_str).map(str::trim).filter(|d| !d.is_empty()) {
        Some(details) => Some(format!("{error}: {details}")),
        None => Some(error),
    }
}

/// Why a tool call failed, from a PostToolUse payload: an `error`, or a
/// response that says it is one.
fn tool_failure(payload: &Value) -> Option<String> {
    if let Some(error) = error_text(payload) {
        return Some(error);
    }
    let response = payload.get("tool_response")?;
    let is_error = response.get("is_error").and_then(Value::as_bool) == Some(true)
        || response.get("status").and_then(Value::as_str).is_some_and(|s| s == "error" || s == "failed");
    if !is_error {
        return response.get("error").and_then(Value::as_str).filter(|e| !e.trim().is_empty()).map(str::to_owned);
    }
    let said = response.get("error").or_else(|| response.get("content")).and_then(Value::as_str);
    Some(said.map_or_else(|| "the tool call failed".to_owned(), str::to_owned))
}

/// What an agent is doing, as the sidebar and the tray show it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(rename_all = "snake_case")]
pub enum AgentStatus {
    /// At its prompt, waiting for the user or a task.
    Waiting,
    Working,
    /// It needs the user: a permission, a question, a blocker, a delegation.
    Attention,
    /// Its task is complete.
    Done,
    Exited,
}

/// The status after `event`, from the status before it.
pub fn next_status(current: AgentStatus, event: &HookEvent) -> AgentStatus {
    match event {
        HookEvent::SessionStart | HookEvent::Stop { .. } | HookEvent::StopFailure { .. } => AgentStatus::Waiting,
        HookEvent::UserPromptSubmit
        | HookEvent::PreToolUse { .. }
        | HookEvent::PostToolUse { .. }
        | HookEvent::SubagentStart { .. } => AgentStatus::Working,
        HookEvent::PermissionRequest { .. } => AgentStatus::Attention,
        HookEvent::Notification { notification_type: Some(kind), .. }
            if kind == "permission_prompt" || kind == "elicitation_dialog" =>
        {
            AgentStatus::Attention
        }
        HookEvent::SessionEnd { .. } => AgentStatus::Exited,
        HookEvent::Notification { .. }
        | HookEvent::SubagentStop { .. }
        | HookEvent::TeammateIdle { .. }
        | HookEvent::Unknown { .. } => current,
    }
}

/// Whether a payload is about a side conversation of the agent's rather
/// than the session's own: Codex's `notify` also reports the turns of the
/// threads it runs for itself (writing the session's title, say), each with
/// its own `thread-id`, while its hooks name the session's conversation
/// (`session_id`). `known`: the conversation the session's hooks named.
pub fn is_side_thread(payload: &Value, known: Option<&str>) -> bool {
    let notify = payload.get("type").and_then(Value::as_str) == Some("agent-turn-complete");
    let thread = payload.get("thread-id").and_then(Value::as_str);
    notify && known.is_some() && thread != known
}

/// The conversation a hook event (not a notify) names.
pub fn hook_conversation(payload: &Value) -> Option<&str> {
    payload.get("hook_event_name")?;
    payload.get("session_id").and_then(Value::as_str)
}

/// What decides the status shown for an agent.
#[derive(Debug, Clone, Copy)]
pub struct Shown {
    /// What the agent's hooks say.
    pub from_hooks: AgentStatus,
    /// It leads a team whose teammates still work.
    pub team_working: bool,
    /// A signal of the agent's waits for the user.
    pub needs_user: bool,
    /// Its task completed, and it has not started anything since.
    pub task_done: bool,
}

/// What the app shows for an agent: what its hooks say, unless the app
/// knows more — a lead at its prompt whose team works is working (REQ-001),
/// a signal waiting for the user makes it Attention, a completed task Done.
pub fn shown_status(shown: Shown) -> AgentStatus {
    match shown.from_hooks {
        AgentStatus::Exited => AgentStatus::Exited,
        _ if shown.needs_user => AgentStatus::Attention,
        AgentStatus::Waiting if shown.team_working => AgentStatus::Working,
        AgentStatus::Waiting if shown.task_done => AgentStatus::Done,
        status => status,
    }
}

/// Corrects a status that went stale: an agent reported working whose
/// hooks have said nothing for `idle_ms` is waiting after all (a turn can
/// end without a Stop reaching the app). `None`: it stands.
pub fn reconcile(status: AgentStatus, quiet_ms: i64, idle_ms: i64) -> Option<AgentStatus> {
    (status == AgentStatus::Working && quiet_ms >= idle_ms).then_some(AgentStatus::Waiting)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn codex_notify_of_a_side_thread_is_told_apart() {
        let notify = |thread: &str| json!({"type": "agent-turn-complete", "thread-id": thread});
        let cases = [
            (notify("main"), Some("main"), false),
            (notify("title"), Some("main"), true),
            // Before any hook named the conversation, every notify counts.
            (notify("title"), None, false),
            (json!({"type": "agent-turn-complete"}), Some("main"), true),
            // Hook events are the session's own, whatever they name.
            (json!({"hook_event_name": "Stop", "session_id": "other"}), Some("main"), false),
        ];
        for (payload, known, side) in cases {
            assert_eq!(is_side_thread(&payload, known), side, "{payload} known={known:?}");
        }
        assert_eq!(hook_conversation(&json!({"hook_event_name": "Stop", "session_id": "c"})), Some("c"));
        assert_eq!(hook_conversation(&json!({"type": "agent-turn-complete", "thread-id": "c"})), None);
    }

    #[test]
    fn the_app_shows_attention_and_done_over_the_hooks_status() {
        use AgentStatus::*;
        let cases = [
            // (from hooks, team working, needs the user, task done) → shown
            (Waiting, false, false, false, Waiting),
            (Working, false, false, false, Working),
            (Waiting, false, true, false, Attention),
            (Working, false, true, false, Attention),
            (Waiting, false, false, true, Done),
            (Waiting, false, true, true, Attention),
            // A done agent given more work works again.
            (Working, false, false, true, Working),
            (Attention, false, false, true, Attention),
            (Exited, true, true, true, Exited),
            // A lead whose turn ended while its team works.
            (Waiting, true, false, false, Working),
            (Waiting, true, true, false, Attention),
            (Attention, true, false, false, Attention),
        ];
        for (from_hooks, team_working, needs_user, task_done, expected) in cases {
            let shown = Shown { from_hooks, team_working, needs_user, task_done };
            assert_eq!(shown_status(shown), expected, "{shown:?}");
        }
    }

    #[test]
    fn payloads_become_typed_events() {
        let cases = [
            (json!({"hook_event_name": "SessionStart", "source": "startup"}), HookEvent::SessionStart),
            (
                json!({"hook_event_name": "PreToolUse", "tool_name": "Agent", "tool_use_id": "t1", "tool_input": {"name": "worker1"}}),
                HookEvent::PreToolUse {
                    tool_name: "Agent".into(),
                    tool_use_id: Some("t1".into()),
                    tool_input: json!({"name": "worker1"}),
                },
            ),
            (
                json!({"hook_event_name": "Stop", "last_assistant_message": "done", "background_tasks": [{"id": "b1", "type": "teammate", "status": "running", "description": "x"}]}),
                HookEvent::Stop {
                    last_assistant_message: Some("done".into()),
                    background_tasks: Some(vec![BackgroundTask {
                        id: "b1".into(),
                        kind: "teammate".into(),
                        status: "running".into(),
                    }]),
                },
            ),
            (
                json!({"type": "agent-turn-complete", "thread-id": "x", "last-assistant-message": "hi"}),
                HookEvent::Stop { last_assistant_message: Some("hi".into()), background_tasks: None },
            ),
            // A tool call's end: as it succeeded (the recorded teammate spawn), and as it failed.
            (
                json!({"hook_event_name": "PostToolUse", "tool_name": "Agent", "tool_use_id": "t1", "tool_input": {"name": "w1"}, "tool_response": {"status": "teammate_spawned"}}),
                HookEvent::PostToolUse {
                    tool_name: "Agent".into(),
                    tool_use_id: Some("t1".into()),
                    tool_input: json!({"name": "w1"}),
                    failed: None,
                },
            ),
            (
                json!({"hook_event_name": "PostToolUseFailure", "tool_name": "Agent", "tool_use_id": "t1", "tool_input": {"name": "w1"}, "error": "team is full"}),
                HookEvent::PostToolUse {
                    tool_name: "Agent".into(),
                    tool_use_id: Some("t1".into()),
                    tool_input: json!({"name": "w1"}),
                    failed: Some("team is full".into()),
                },
            ),
            (
                json!({"hook_event_name": "PostToolUseFailure", "tool_name": "Task"}),
                HookEvent::PostToolUse {
                    tool_name: "Task".into(),
                    tool_use_id: None,
                    tool_input: Value::Null,
                    failed: Some("the tool call failed".into()),
                },
            ),
            (
                json!({"hook_event_name": "PostToolUse", "tool_name": "Agent", "tool_response": {"is_error": true, "content": "no such agent type"}}),
                HookEvent::PostToolUse {
                    tool_name: "Agent".into(),
                    tool_use_id: None,
                    tool_input: Value::Null,
                    failed: Some("no such agent type".into()),
                },
            ),
            // A turn that ended in error: Claude Code's StopFailure, or a Stop carrying an error.
            (
                json!({"hook_event_name": "StopFailure", "error": "rate_limit", "error_details": "429 from the API", "last_assistant_message": "Partly"}),
                HookEvent::StopFailure {
                    error: "rate_limit: 429 from the API".into(),
                    kind: Some("rate_limit".into()),
                    last_assistant_message: Some("Partly".into()),
                },
            ),
            (
                json!({"hook_event_name": "StopFailure", "error": "overloaded"}),
                HookEvent::StopFailure {
                    error: "overloaded".into(),
                    kind: Some("overloaded".into()),
                    last_assistant_message: None,
                },
            ),
            (
                json!({"hook_event_name": "Stop", "error": {"message": "stream closed"}}),
                HookEvent::StopFailure { error: "stream closed".into(), kind: None, last_assistant_message: None },
            ),
            (
                json!({"hook_event_name": "Stop", "error": "the stream closed early"}),
                HookEvent::StopFailure {
                    error: "the stream closed early".into(),
                    kind: None,
                    last_assistant_message: None,
                },
            ),
            (
                json!({"hook_event_name": "Stop", "error": null, "last_assistant_message": "ok"}),
                HookEvent::Stop { last_assistant_message: Some("ok".into()), background_tasks: None },
            ),
            (json!({"hook_event_name": "PreModelRequest"}), HookEvent::Unknown { name: "PreModelRequest".into() }),
            (json!({"no": "name"}), HookEvent::Unknown { name: String::new() }),
            (json!([1, 2]), HookEvent::Unknown { name: String::new() }),
        ];
        for (payload, expected) in cases {
            assert_eq!(HookEvent::parse(&payload), expected, "{payload}");
        }
    }

    #[test]
    fn stale_states_are_corrected() {
        use AgentStatus::*;
        let cases = [
            (Working, 600_000, 600_000, Some(Waiting)),
            (Working, 599_999, 600_000, None),
            (Attention, 10_000_000, 600_000, None),
            (Waiting, 10_000_000, 600_000, None),
        ];
        for (status, quiet, idle, expected) in cases {
            assert_eq!(reconcile(status, quiet, idle), expected, "{status:?} quiet {quiet}");
        }
    }

    #[test]
    fn status_follows_the_events() {
        use AgentStatus::*;
        let pre = HookEvent::PreToolUse { tool_name: "Bash".into(), tool_use_id: None, tool_input: Value::Null };
        let permission = HookEvent::PermissionRequest { tool_name: "Bash".into(), tool_input: Value::Null };
        let asks = HookEvent::Notification {
            message: "Claude needs your permission".into(),
            notification_type: Some("permission_prompt".into()),
        };
        let idle = HookEvent::Notification { message: "waiting".into(), notification_type: Some("idle_prompt".into()) };
        let stop = HookEvent::Stop { last_assistant_message: None, background_tasks: None };
        let cases = [
            (Exited, HookEvent::SessionStart, Waiting),
            (Waiting, HookEvent::UserPromptSubmit, Working),
            (Waiting, pre.clone(), Working),
            (Working, permission, Attention),
            (Working, asks, Attention),
            (Working, idle, Working),
            (Attention, pre, Working),
            (Working, stop, Waiting),
            (Waiting, HookEvent::SessionEnd { reason: None }, Exited),
            (Working, HookEvent::Unknown { name: "PreModelRequest".into() }, Working),
        ];
        for (before, event, after) in cases {
            assert_eq!(next_status(before, &event), after, "{before:?} + {event:?}");
        }
    }
}
