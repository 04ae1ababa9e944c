//! Which conversation files a hook event names, for the usage they hold:
//! the session's own (`transcript_path` of its own events), and its team's.
//! A sub-agent's or teammate's events name it (`agent_id`): Claude Code's
//! SubagentStop names its file (`agent_transcript_path`), and its file is
//! known from the start as `<the lead's file less .jsonl>/subagents/agent-<id>.jsonl`
//! (recorded: `tests/fixtures/agents/cc-hooks-team.jsonl`); Codex's
//! sub-agent's own events name its own session log
//! (`codex-hooks-subagent.jsonl`). A teammate in a process of its own speaks
//! of another conversation than the lead's. Pure.

use serde_json::Value;
use switchboard_protocol::capped::{MAX_NAME_BYTES, MAX_PATH_BYTES};

/// Each file the event names, and whether it is the team's; `lead_file`:
/// the session's own file, as its events named it first.
pub(super) fn named(payload: &Value, conversation: Option<&str>, lead_file: Option<&str>) -> Vec<(String, bool)> {
    let text =
        |key: &str| payload.get(key).and_then(Value::as_str).filter(|p| !p.is_empty() && p.len() <= MAX_PATH_BYTES);
    let agent = payload.get("agent_id").and_then(Value::as_str).filter(|id| is_plain(id));
    let other_conversation = match (payload.get("session_id").and_then(Value::as_str), conversation) {
        (Some(named), Some(own)) => named != own,
        _ => false,
    };
    let mut files = Vec::new();
    match (agent, text("transcript_path")) {
        (None, Some(path)) => files.push((path.to_owned(), other_conversation)),
        // Claude Code names the lead's file in a sub-agent's events: the
        // sub-agent's is beside it.
        (Some(agent), Some(path))
            if lead_file.is_none_or(|lead| lead == path)
                && path.ends_with(".jsonl")
                && text("agent_transcript_path").is_none() =>
        {
            let stem = path.trim_end_matches(".jsonl");
            files.push((format!("{stem}/subagents/agent-{agent}.jsonl"), true));
        }
        (Some(_), Some(path)) if lead_file != Some(path) => files.push((path.to_owned(), true)),
        (Some(_), Some(_)) => {}
        (_, None) => {}
    }
    if let Some(path) = text("agent_transcript_path") {
        files.push((path.to_owned(), true));
    }
    files.dedup();
    files
}

fn is_plain(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= MAX_NAME_BYTES
        && id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn events(recording: &str) -> Vec<Value> {
        recording
            .lines()
            .filter_map(|line| serde_json::from_str::<Value>(line).ok())
            .map(|line| line.get("stdin").cloned().unwrap_or(line))
            .collect()
    }

    #[test]
    fn the_recorded_teams_files_are_named_the_leads_apart() {
        let claude = events(include_str!("../../../../../tests/fixtures/agents/cc-hooks-team.jsonl"));
        let lead = "489105c7-347f-4b69-aef3-ade4ca05c25e";
        let lead_file = claude[0]["transcript_path"].as_str();
        let mut named_files: Vec<(String, bool)> =
            claude.iter().flat_map(|e| named(e, Some(lead), lead_file)).collect();
        named_files.sort();
        named_files.dedup();
        let base = "$RA/home-h/.claude/projects/-RA-work7/489105c7-347f-4b69-aef3-ade4ca05c25e";
        assert_eq!(
            named_files,
            [
                (format!("{base}.jsonl"), false),
                (format!("{base}/subagents/agent-aworker1-a110d2d22538fd9d.jsonl"), true),
            ]
        );

        let codex = events(include_str!("../../../../../tests/fixtures/agents/codex-hooks-subagent.jsonl"));
        let lead = "01a213cc-c8a1-77f0-9cb4-14db9f1bcb48";
        let lead_file = codex[0]["transcript_path"].as_str();
        let mut named_files: Vec<(String, bool)> = codex.iter().flat_map(|e| named(e, Some(lead), lead_file)).collect();
        named_files.sort();
        named_files.dedup();
        let team: Vec<&str> = named_files.iter().filter(|(_, team)| *team).map(|(p, _)| p.as_str()).collect();
        let own: Vec<&str> = named_files.iter().filter(|(_, team)| !*team).map(|(p, _)| p.as_str()).collect();
        assert!(own.len() == 1 && own[0].ends_with("01a213cc-c8a1-77f0-9cb4-14db9f1bcb48.jsonl"), "{own:?}");
        assert!(team.len() == 1 && team[0].ends_with("01a213cd-00de-7173-891f-d921d0fd524b.jsonl"), "{team:?}");
    }

    #[test]
    fn a_teammate_of_its_own_process_and_odd_names() {
        let teammate = serde_json::json!({"session_id": "other", "transcript_path": "/c/projects/w/other.jsonl"});
        assert_eq!(named(&teammate, Some("lead"), None), [("/c/projects/w/other.jsonl".to_owned(), true)]);
        let planted = serde_json::json!({"agent_id": "../../x", "transcript_path": "/c/projects/w/lead.jsonl",
                                         "hook_event_name": "SubagentStart"});
        assert_eq!(named(&planted, Some("lead"), None), [("/c/projects/w/lead.jsonl".to_owned(), false)]);
        assert!(named(&serde_json::json!({"transcript_path": ""}), None, None).is_empty());
    }
}
