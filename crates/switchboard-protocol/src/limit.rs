//! Why an agent's turn was refused by its model's API, read from what the
//! real CLIs tell (pure): Claude Code's StopFailure hook names the error
//! (`rate_limit`, `overloaded`, `authentication_failed`, `billing_error`,
//! …); Codex ends the turn in its session log with `codex_error_info`
//! (`usage_limit_exceeded`) and says the reset in words, as a local time
//! ("try again at 1:07 AM"). Recorded in `tests/fixtures/agents/*usage-limit*`.

/// What a refused turn means for the app.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// The account is at its usage limit, until then (Unix milliseconds)
    /// when the agent said so.
    Limited { until: Option<i64> },
    /// The API is overloaded for now: tried again later, not a failure.
    Overloaded,
    /// The user has to act (sign in again, see to billing): why, in words.
    NeedsUser { why: String },
}

/// The refusal a Claude Code StopFailure tells: its `error` field, the
/// error's code alone (Claude Code 2.1.329 names one of a fixed list and
/// puts the API's own words in `error_details`, which never change what the
/// code means); none for an error the app does not act on (the turn then
/// fails as any other).
pub fn from_claude_stop_failure(error: &str) -> Option<Refusal> {
    let needs_user = |why: &str| Some(Refusal::NeedsUser { why: why.into() });
    match error {
        "rate_limit" => Some(Refusal::Limited { until: None }),
        "overloaded" => Some(Refusal::Overloaded),
        "authentication_failed" => {
            needs_user("Claude Code could not sign in to its account: sign in again in its terminal (/login)")
        }
        "oauth_org_not_allowed" => {
            needs_user("Claude Code's account is not allowed in its organization: sign in with another (/login)")
        }
        "verification_required" => needs_user("Claude Code's account must be verified: see to it in its terminal"),
        "account_on_hold" => needs_user("Claude Code's account is on hold: see to it in the account's settings"),
        "cloud_credential_error" => {
            needs_user("Claude Code could not use its cloud provider's credentials: renew them, then resume")
        }
        "billing_error" => {
            needs_user("Claude Code's account has a billing problem: see to it in the account's settings")
        }
        _ => None,
    }
}

/// The refusal a Codex turn's error tells (`codex_error_info` and its
/// message, from the session log), the reset read from the message's words
/// at `now` (Unix milliseconds) in a time zone `offset_secs` east of UTC.
pub fn from_codex_error(info: &str, message: &str, now: i64, offset_secs: i32) -> Option<Refusal> {
    match info {
        "usage_limit_exceeded" => Some(Refusal::Limited { until: reset_in_words(message, now, offset_secs) }),
        _ => None,
    }
}

/// Whether the screen shows Codex's "Approaching rate limits" dialog (it
/// offers a cheaper model when its API told the account's usage, and holds
/// its prompt until answered): what is typed into it would choose.
pub fn offers_cheaper_model(screen: &str) -> bool {
    screen.contains("Approaching rate limits") && screen.contains("Keep current model")
}

/// The moment "try again at H:MM AM" (or "at HH:MM") names: its next
/// occurrence after `now` (Unix milliseconds) in the time zone `offset_secs`
/// east of UTC, at the end of that minute (the words drop the seconds: the
/// reset itself may come late in the minute); none when the words are not
/// there or do not read as a time.
pub fn reset_in_words(message: &str, now: i64, offset_secs: i32) -> Option<i64> {
    let at = message.find("try again at ")? + "try again at ".len();
    let rest = &message[at..];
    let (clock, rest) = rest.split_at(rest.find(|c: char| !(c.is_ascii_digit() || c == ':')).unwrap_or(rest.len()));
    let (hour, minute) = clock.split_once(':')?;
    let (mut hour, minute): (i64, i64) = (hour.parse().ok()?, minute.parse().ok()?);
    if minute > 59 {
        return None;
    }
    let meridiem = rest.trim_start().get(..2).map(str::to_ascii_uppercase);
    match meridiem.as_deref() {
        Some("AM") | Some("PM") if !(1..=12).contains(&hour) => return None,
        Some("AM") => hour %= 12,
        Some("PM") => hour = hour % 12 + 12,
        _ if hour > 23 => return None,
        _ => {}
    }
    const DAY: i64 = 24 * 60;
    let local_minute = (now.div_euclid(60_000) + i64::from(offset_secs) / 60).rem_euclid(DAY);
    let ahead = (hour * 60 + minute - local_minute).rem_euclid(DAY);
    Some((now.div_euclid(60_000) + ahead + 1) * 60_000)
}

/// The name the app's status-line command gives Claude Code's status-line
/// input when it hands it to the app (`switchboard-hook --status-line`).
pub const STATUS_LINE_EVENT: &str = "StatusLine";

/// The hook binary's argument that makes it Claude Code's status-line
/// command: it hands the input to the app, then runs the user's own.
pub const STATUS_LINE_FLAG: &str = "--status-line";

/// The account's usage windows Claude Code gives its status-line command
/// (`rate_limits`: `five_hour` and `seven_day`, each `used_percentage` and
/// `resets_at` in Unix seconds; the shape its own schema names). Claude
/// Code gives them for a Claude.ai subscription's account only: none on an
/// API key (recorded: `tests/fixtures/agents/cc-statusline-api-key.jsonl`).
/// Windows whose numbers are missing or out of range are left out.
pub fn usage_from_status_line(input: &serde_json::Value) -> Vec<crate::rollout::UsageWindow> {
    const WINDOWS: [(&str, u32); 2] = [("five_hour", 5 * 60), ("seven_day", 7 * 24 * 60)];
    let Some(limits) = input.get("rate_limits").filter(|l| l.is_object()) else { return Vec::new() };
    WINDOWS
        .iter()
        .filter_map(|&(name, minutes)| {
            let window = limits.get(name)?;
            let used =
                window.get("used_percentage")?.as_f64().filter(|u| u.is_finite() && (0.0..=1000.0).contains(u))?;
            let resets_at = window.get("resets_at").and_then(serde_json::Value::as_i64).filter(|&at| at > 0);
            Some(crate::rollout::UsageWindow { minutes, used_percent: used, resets_at })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 2026-11-26 00:57:17 UTC.
    const NOW: i64 = 1_795_654_637_000;
    const MINUTE: i64 = 60_000;

    /// The end of the minute this many minutes after now's.
    fn at(minutes_from_now_minute: i64) -> Option<i64> {
        Some((NOW.div_euclid(MINUTE) + minutes_from_now_minute + 1) * MINUTE)
    }

    #[test]
    fn the_reset_is_read_from_codexs_words_as_the_next_such_local_time() {
        let recorded = "You’ve hit your usage limit. Visit https://chatgpt.com/settings/usage to purchase more credits \
                        or try again at 1:07 AM.";
        let cases: [(&str, &str, i32, Option<i64>); 11] = [
            ("as recorded, in UTC", recorded, 0, at(10)),
            ("the same minute", "try again at 12:57 AM.", 0, at(0)),
            ("past: tomorrow", "try again at 12:56 AM.", 0, at(24 * 60 - 1)),
            ("noon", "try again at 12:00 PM", 0, at(11 * 60 + 3)),
            ("afternoon, lower case", "try again at 3:30 pm", 0, at(14 * 60 + 33)),
            ("a 24-hour clock", "try again at 13:05.", 0, at(12 * 60 + 8)),
            ("two hours east of UTC", "try again at 3:07 AM", 2 * 3600, at(10)),
            ("five hours west", "try again at 8:07 PM", -5 * 3600, at(10)),
            ("not a time", "try again at noon", 0, None),
            ("an hour past twelve", "try again at 13:05 PM", 0, None),
            ("no such words", "You've hit your usage limit.", 0, None),
        ];
        for (what, message, offset, expected) in cases {
            assert_eq!(reset_in_words(message, NOW, offset), expected, "{what}");
        }
    }

    #[test]
    fn refusals_are_told_apart_by_what_each_cli_names() {
        assert_eq!(from_claude_stop_failure("rate_limit"), Some(Refusal::Limited { until: None }));
        assert_eq!(from_claude_stop_failure("overloaded"), Some(Refusal::Overloaded));
        assert!(matches!(from_claude_stop_failure("authentication_failed"), Some(Refusal::NeedsUser { .. })));
        assert!(matches!(from_claude_stop_failure("billing_error"), Some(Refusal::NeedsUser { .. })));
        for account in ["oauth_org_not_allowed", "verification_required", "account_on_hold", "cloud_credential_error"] {
            assert!(matches!(from_claude_stop_failure(account), Some(Refusal::NeedsUser { .. })), "{account}");
        }
        assert_eq!(from_claude_stop_failure("invalid_request"), None);
        // The code alone is read: an error with its details after it is not a code.
        assert_eq!(from_claude_stop_failure("rate_limit: 429 from the API"), None);
        assert_eq!(
            from_codex_error("usage_limit_exceeded", "try again at 1:07 AM.", NOW, 0),
            Some(Refusal::Limited { until: at(10) })
        );
        assert_eq!(
            from_codex_error("usage_limit_exceeded", "Try later.", NOW, 0),
            Some(Refusal::Limited { until: None })
        );
        assert_eq!(from_codex_error("context_window_exceeded", "too long", NOW, 0), None);
    }

    #[test]
    fn codexs_offer_of_a_cheaper_model_is_seen_on_its_screen() {
        let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/agents");
        let recorded = std::fs::read_to_string(fixtures.join("codex-pty-screen-usage-limit.txt")).unwrap();
        assert!(offers_cheaper_model(&recorded));
        assert!(!offers_cheaper_model("■ You’ve hit your usage limit.\n\n› Ask Codex to do anything"));
        assert!(!offers_cheaper_model("Approaching rate limits"), "the words alone, as an agent could print them");
    }

    /// The recorded fixtures say what these read.
    #[test]
    fn the_recorded_refusals_read_as_limits() {
        let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/agents");
        let hooks = std::fs::read_to_string(fixtures.join("cc-hooks-usage-limit.jsonl")).unwrap();
        let failure: serde_json::Value = hooks
            .lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
            .find(|e| e["hook_event_name"] == "StopFailure")
            .unwrap();
        assert_eq!(
            from_claude_stop_failure(failure["error"].as_str().unwrap()),
            Some(Refusal::Limited { until: None })
        );
        let rollout = std::fs::read_to_string(fixtures.join("codex-rollout-usage-limit.jsonl")).unwrap();
        let ended: serde_json::Value = rollout
            .lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
            .find(|e| e["payload"]["type"] == "task_complete")
            .unwrap();
        let error = &ended["payload"]["error"];
        let read =
            from_codex_error(error["codex_error_info"].as_str().unwrap(), error["message"].as_str().unwrap(), NOW, 0);
        assert!(matches!(read, Some(Refusal::Limited { until: Some(_) })), "{read:?}");
    }

    #[test]
    fn claude_codes_status_line_usage_is_read_as_windows() {
        use serde_json::json;
        let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/agents");
        let api_key = std::fs::read_to_string(fixtures.join("cc-statusline-api-key.jsonl")).unwrap();
        let line: serde_json::Value = serde_json::from_str(api_key.lines().next().unwrap()).unwrap();
        let window =
            |minutes, used_percent, resets_at| crate::rollout::UsageWindow { minutes, used_percent, resets_at };
        let cases = [
            ("recorded on an API key: none", line, vec![]),
            (
                "a subscription's two windows",
                json!({"rate_limits": {"five_hour": {"used_percentage": 23.5, "resets_at": 1738425600},
                                       "seven_day": {"used_percentage": 41.2, "resets_at": 1738857600}}}),
                vec![window(300, 23.5, Some(1738425600)), window(10080, 41.2, Some(1738857600))],
            ),
            (
                "one window, no reset",
                json!({"rate_limits": {"seven_day": {"used_percentage": 80}}}),
                vec![window(10080, 80.0, None)],
            ),
            (
                "nonsense left out",
                json!({"rate_limits": {"five_hour": {"used_percentage": "lots"}, "seven_day": {"used_percentage": -3}}}),
                vec![],
            ),
            ("not an object", json!({"rate_limits": [1, 2]}), vec![]),
            ("null", json!({"rate_limits": null}), vec![]),
        ];
        for (what, input, expected) in cases {
            assert_eq!(usage_from_status_line(&input), expected, "{what}");
        }
    }
}
