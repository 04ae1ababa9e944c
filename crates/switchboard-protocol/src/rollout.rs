//! Codex's session log (its "rollout", `$CODEX_HOME/sessions/…/rollout-…-<conversation>.jsonl`):
//! what it says of the conversation's latest turn.
//!
//! Codex 0.169 reports a turn that ended in an error (the model's API
//! refused the request, say) to none of its hooks and not to `notify`: its
//! hooks stop after `UserPromptSubmit`/`PreModelRequest`, and `notify` is for
//! completed turns only (`tests/fixtures/agents/codex-hooks-failed-turn.jsonl`).
//! Its session log does record it: the turn's `task_complete` event carries
//! an `error` (`codex-rollout-failed-turn.jsonl`). Pure: the caller reads the
//! log's tail.

use serde_json::Value;

use crate::capped::{MAX_TEXT_FIELD_BYTES, capped};

/// The latest turn the log's tail shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LatestTurn {
    /// No turn event in the text read.
    Unseen,
    /// Begun, not ended.
    Running { turn_id: Option<String> },
    /// Ended without an error.
    Completed { turn_id: Option<String> },
    /// Ended in an error: what Codex said, the API's own message where it
    /// relayed one, and the kind Codex gave it (`codex_error_info`, such as
    /// `usage_limit_exceeded`).
    Failed { turn_id: Option<String>, error: String, kind: Option<String> },
}

/// Reads the tail of a rollout file: the last turn event among its lines
/// (a line that is not an event, or is cut, is skipped).
pub fn latest_turn(tail: &str) -> LatestTurn {
    let mut latest = LatestTurn::Unseen;
    for line in tail.lines() {
        let Ok(entry) = serde_json::from_str::<Value>(line) else { continue };
        if entry.get("type").and_then(Value::as_str) != Some("event_msg") {
            continue;
        }
        let payload = &entry["payload"];
        let turn_id = payload.get("turn_id").and_then(Value::as_str).map(|id| capped(id, 128));
        latest = match payload.get("type").and_then(Value::as_str) {
            Some("task_started") => LatestTurn::Running { turn_id },
            Some("task_complete") => match error_of(payload.get("error")) {
                Some(error) => {
                    let kind = payload["error"].get("codex_error_info").and_then(Value::as_str).map(|k| capped(k, 128));
                    LatestTurn::Failed { turn_id, error, kind }
                }
                None => LatestTurn::Completed { turn_id },
            },
            _ => continue,
        };
    }
    latest
}

/// One window of an account's usage, as Codex logs what its API told
/// (`token_count`'s `rate_limits`: `primary`, the 5 hours; `secondary`, the
/// week).
#[derive(Debug, Clone, PartialEq)]
pub struct UsageWindow {
    /// Its length, in minutes.
    pub minutes: u32,
    /// How much of it is used, in percent.
    pub used_percent: f64,
    /// When it resets, in Unix seconds.
    pub resets_at: Option<i64>,
}

/// The account's usage the log's tail last tells (its latest `token_count`
/// whose `rate_limits` name a window); none when it tells none. Codex
/// 0.169 logs it when its API refuses a turn for the usage limit
/// (`tests/fixtures/agents/codex-rollout-usage-limit.jsonl`).
pub fn latest_usage(tail: &str) -> Option<Vec<UsageWindow>> {
    let mut latest = None;
    for line in tail.lines() {
        let Ok(entry) = serde_json::from_str::<Value>(line) else { continue };
        let payload = &entry["payload"];
        if entry["type"] != "event_msg" || payload["type"] != "token_count" {
            continue;
        }
        let limits = &payload["rate_limits"];
        let windows: Vec<UsageWindow> = ["primary", "secondary"]
            .iter()
            .filter_map(|name| {
                let window = &limits[*name];
                Some(UsageWindow {
                    minutes: u32::try_from(window["window_minutes"].as_u64()?).ok()?,
                    used_percent: window["used_percent"].as_f64()?.clamp(0.0, 100.0),
                    resets_at: window["resets_at"].as_i64(),
                })
            })
            .collect();
        if !windows.is_empty() {
            latest = Some(windows);
        }
    }
    latest
}

/// A turn's error in words: its `message`, and when that is the API's JSON
/// answer, the message inside it.
fn error_of(error: Option<&Value>) -> Option<String> {
    let message = match error? {
        Value::Null => return None,
        Value::String(text) => text.clone(),
        error => error.get("message").and_then(Value::as_str).map_or_else(|| error.to_string(), str::to_owned),
    };
    let inner = serde_json::from_str::<Value>(&message).ok().and_then(|api| {
        let said = api.get("error").and_then(|e| e.get("message").or(Some(e))).or_else(|| api.get("message"))?;
        said.as_str().map(str::to_owned)
    });
    let text = inner.unwrap_or(message);
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    Some(if text.is_empty() { "the turn ended in an error".to_owned() } else { capped(text, MAX_TEXT_FIELD_BYTES) })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn recording(name: &str) -> String {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/agents").join(name);
        std::fs::read_to_string(path).expect("the recording is there")
    }

    #[test]
    fn the_recorded_failed_turn_is_read_with_the_apis_message() {
        let log = recording("codex-rollout-failed-turn.jsonl");
        assert_eq!(
            latest_turn(&log),
            LatestTurn::Failed {
                turn_id: Some("01a213ba-09c3-7013-8f86-f9b49871d5d2".into()),
                error: "The input is too long for this model.".into(),
                kind: Some("other".into()),
            }
        );
        // Only its start read: still running.
        let started = log.lines().next().unwrap();
        assert!(matches!(latest_turn(started), LatestTurn::Running { .. }));
    }

    #[test]
    fn the_accounts_usage_is_read_from_the_latest_token_count_that_tells_it() {
        let log = recording("codex-rollout-usage-limit.jsonl");
        let usage = latest_usage(&log).expect("the refused turn's usage");
        assert_eq!(usage.len(), 2, "{usage:?}");
        assert_eq!((usage[0].minutes, usage[0].used_percent), (300, 100.0));
        assert_eq!((usage[1].minutes, usage[1].used_percent), (10080, 61.0));
        assert!(usage[0].resets_at.is_some() && usage[0].resets_at < usage[1].resets_at);
        let count = |limits: &str| {
            format!(r#"{{"type":"event_msg","payload":{{"type":"token_count","rate_limits":{limits}}}}}"#)
        };
        let told = count(r#"{"primary":{"used_percent":42.5,"window_minutes":300,"resets_at":9}}"#);
        let none = count(r#"{"primary":null,"secondary":null}"#);
        assert_eq!(latest_usage(&none), None, "all null tells nothing");
        assert_eq!(latest_usage("not json"), None);
        let kept = latest_usage(&format!("{told}\n{none}")).unwrap();
        assert_eq!(
            kept,
            [UsageWindow { minutes: 300, used_percent: 42.5, resets_at: Some(9) }],
            "a later null keeps it"
        );
        let odd = count(r#"{"primary":{"used_percent":250,"window_minutes":300}}"#);
        assert_eq!(latest_usage(&odd).unwrap()[0].used_percent, 100.0);
    }

    #[test]
    fn the_latest_turn_event_counts() {
        let event = |kind: &str, turn: &str, error: &str| {
            format!(r#"{{"type":"event_msg","payload":{{"type":"{kind}","turn_id":"{turn}"{error}}}}}"#)
        };
        let failed =
            event("task_complete", "t1", r#","error":{"message":"stream disconnected","codex_error_info":"other"}"#);
        let done = event("task_complete", "t2", r#","last_agent_message":"ok","error":null"#);
        let begun = event("task_started", "t2", "");
        let cases = [
            ("", LatestTurn::Unseen),
            ("not json\n{\"type\":\"response_item\"}", LatestTurn::Unseen),
            (
                failed.as_str(),
                LatestTurn::Failed {
                    turn_id: Some("t1".into()),
                    error: "stream disconnected".into(),
                    kind: Some("other".into()),
                },
            ),
            (&format!("{failed}\n{begun}"), LatestTurn::Running { turn_id: Some("t2".into()) }),
            (&format!("{failed}\n{begun}\n{done}\n{{cut"), LatestTurn::Completed { turn_id: Some("t2".into()) }),
            (
                &event("task_complete", "t3", r#","error":"plain words""#),
                LatestTurn::Failed { turn_id: Some("t3".into()), error: "plain words".into(), kind: None },
            ),
        ];
        for (tail, expected) in cases {
            assert_eq!(latest_turn(tail), expected, "{tail}");
        }
    }
}
