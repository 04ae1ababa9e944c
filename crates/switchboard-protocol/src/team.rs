//! Team-aware completion: a lead agent whose teammates still work must not
//! be reported complete when its turn ends (REQ-001); one without an active
//! team completes normally (REQ-003). Pure state and decisions.

use std::collections::BTreeSet;

use crate::hook::{HookEnvelope, HookEvent};

/// A lead session's team: its name once the first teammate is requested,
/// and the teammates that count as active — those the agent spawned itself
/// and those the app started for it (approved delegations), kept apart
/// because the agent's own account covers only the first.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TeamState {
    pub team_name: Option<String>,
    pub teammates: BTreeSet<String>,
    pub delegates: BTreeSet<String>,
}

/// What changes a team.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TeamEvent {
    /// A teammate's spawn was requested: it counts from now, before any
    /// asynchronous spawn step, so a turn ending meanwhile sees it.
    SpawnRequested {
        teammate: String,
        team_name: String,
    },
    /// The app started a teammate for the lead (an approved delegation).
    DelegateStarted {
        teammate: String,
        team_name: String,
    },
    SpawnFailed {
        teammate: String,
    },
    /// The spawn requested as `call` started the teammate known from now
    /// on as `teammate` (Codex names a sub-agent only in its spawn's answer).
    Spawned {
        call: String,
        teammate: String,
        team_name: String,
    },
    /// Finished, idle for good, or shut down.
    Gone {
        teammate: String,
    },
    /// The agent's own account of its running teammates (the Stop event's
    /// `background_tasks`): the truth where present, about the teammates
    /// it spawned (not about those the app started).
    Running {
        teammates: BTreeSet<String>,
    },
    Reset,
}

impl TeamState {
    pub fn apply(&mut self, event: TeamEvent) {
        match event {
            TeamEvent::SpawnRequested { teammate, team_name } => {
                self.team_name.get_or_insert(team_name);
                self.teammates.insert(teammate);
            }
            TeamEvent::DelegateStarted { teammate, team_name } => {
                self.team_name.get_or_insert(team_name);
                self.delegates.insert(teammate);
            }
            TeamEvent::Spawned { call, teammate, team_name } => {
                self.team_name.get_or_insert(team_name);
                self.teammates.remove(&call);
                self.teammates.insert(teammate);
            }
            TeamEvent::SpawnFailed { teammate } | TeamEvent::Gone { teammate } => {
                self.teammates.remove(&teammate);
                self.delegates.remove(&teammate);
            }
            TeamEvent::Running { teammates } => self.teammates = teammates,
            TeamEvent::Reset => *self = TeamState::default(),
        }
    }

    pub fn active_count(&self) -> usize {
        self.teammates.len() + self.delegates.len()
    }

    /// Both: a team was formed, and teammates exist.
    pub fn is_active(&self) -> bool {
        self.team_name.is_some() && self.active_count() > 0
    }

    /// Whether `teammate` is on this team.
    pub fn has(&self, teammate: &str) -> bool {
        self.teammates.contains(teammate) || self.delegates.contains(teammate)
    }
}

/// The team a hook event speaks of: the name the agent's own environment
/// gives (`CLAUDE_CODE_TEAM_NAME`, forwarded by the hook), else the one the
/// event names, else Claude Code's own implicit name for a lead's team,
/// `session-` and the first 8 characters of the lead's conversation id.
pub fn team_key(envelope: &HookEnvelope) -> String {
    let named = |name: Option<&str>| name.map(str::trim).filter(|n| !n.is_empty()).map(str::to_owned);
    if let Some(name) = named(envelope.env.get("CLAUDE_CODE_TEAM_NAME").map(String::as_str)) {
        return name;
    }
    if let Some(name) = named(envelope.payload.get("team_name").and_then(|n| n.as_str())) {
        return name;
    }
    let lead = envelope
        .payload
        .get("session_id")
        .and_then(|s| s.as_str())
        .or(envelope.session_id.as_deref())
        .unwrap_or_default();
    format!("session-{}", lead.get(..8).unwrap_or(lead))
}

/// The tools an agent spawns teammates and subagents with.
fn spawns(tool_name: &str) -> bool {
    matches!(tool_name, "Agent" | "Task")
}

/// Codex's tool that starts a sub-agent (`spawn_agent` of its
/// `multi_agent_v1` tools; its hooks name it with or without the
/// namespace). The sub-agent works beside the lead, whether or not the lead
/// waits for it, until Codex reports it stopped (`SubagentStop`).
fn codex_spawns(tool_name: &str) -> bool {
    tool_name.strip_prefix("multi_agent_v1").unwrap_or(tool_name).trim_start_matches(['.', '/', ':']) == "spawn_agent"
}

/// The sub-agent a Codex spawn's answer names: `{"agent_id": …}`, given as
/// JSON text or as an object.
fn codex_spawned(response: Option<&serde_json::Value>) -> Option<String> {
    let response = match response? {
        serde_json::Value::String(text) => serde_json::from_str(text).ok()?,
        other => other.clone(),
    };
    let id = response.get("agent_id")?.as_str()?.trim();
    (!id.is_empty()).then(|| crate::capped::capped(id, crate::capped::MAX_NAME_BYTES))
}

/// The teammate a spawn call names: its `name`, else (in the background)
/// the call's id. None for a call the lead waits on (not a teammate).
fn spawned(tool_input: &serde_json::Value, tool_use_id: Option<&String>) -> Option<String> {
    let name = tool_input.get("name").and_then(|n| n.as_str());
    let background = tool_input.get("run_in_background").and_then(|b| b.as_bool()).unwrap_or(false);
    if name.is_none() && !background {
        return None;
    }
    name.map(str::to_owned).or_else(|| tool_use_id.cloned())
}

/// What a hook event means for the sending session's team: a spawn of a
/// named or background teammate counts from the request; a spawn whose
/// call failed does not count; an idle teammate is done; a Stop's
/// `background_tasks` is the truth about who still runs; the session's end
/// ends its team.
pub fn team_event(event: &HookEvent, envelope: &HookEnvelope) -> Option<TeamEvent> {
    match event {
        // Codex's sub-agents: counted from the spawn's request (by its call),
        // known by their id once the spawn answers, gone at their stop.
        HookEvent::PreToolUse { tool_name, tool_use_id: Some(call), .. } if codex_spawns(tool_name) => {
            Some(TeamEvent::SpawnRequested { teammate: call.clone(), team_name: team_key(envelope) })
        }
        HookEvent::PostToolUse { tool_name, tool_use_id: Some(call), failed, .. } if codex_spawns(tool_name) => {
            match (failed, codex_spawned(envelope.payload.get("tool_response"))) {
                (None, Some(teammate)) => {
                    Some(TeamEvent::Spawned { call: call.clone(), teammate, team_name: team_key(envelope) })
                }
                _ => Some(TeamEvent::SpawnFailed { teammate: call.clone() }),
            }
        }
        // Claude Code's subagents stop early and are not keyed by this id, so
        // for them this changes nothing.
        HookEvent::SubagentStop { agent_id } if !agent_id.is_empty() => {
            Some(TeamEvent::Gone { teammate: agent_id.clone() })
        }
        HookEvent::PreToolUse { tool_name, tool_use_id, tool_input } if spawns(tool_name) => {
            let teammate = spawned(tool_input, tool_use_id.as_ref())?;
            Some(TeamEvent::SpawnRequested { teammate, team_name: team_key(envelope) })
        }
        HookEvent::PostToolUse { tool_name, tool_use_id, tool_input, failed: Some(_) } if spawns(tool_name) => {
            Some(TeamEvent::SpawnFailed { teammate: spawned(tool_input, tool_use_id.as_ref())? })
        }
        HookEvent::TeammateIdle { teammate_name: Some(name), .. } => Some(TeamEvent::Gone { teammate: name.clone() }),
        HookEvent::Stop { background_tasks: Some(tasks), .. } => Some(TeamEvent::Running {
            teammates: tasks
                .iter()
                // Teammates and background subagents; not background shells.
                .filter(|t| matches!(t.kind.as_str(), "teammate" | "subagent"))
                .filter(|t| matches!(t.status.as_str(), "running" | "pending"))
                .map(|t| t.id.clone())
                .collect(),
        }),
        HookEvent::SessionEnd { .. } => Some(TeamEvent::Reset),
        _ => None,
    }
}

/// How a hook event ended the agent's turn, if it did.
pub fn turn_end(event: &HookEvent) -> Option<TurnEnd> {
    match event {
        HookEvent::Stop { .. } => Some(TurnEnd::Success),
        HookEvent::StopFailure { .. } => Some(TurnEnd::Error),
        _ => None,
    }
}

/// How the lead's turn ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TurnEnd {
    Success,
    Error,
}

/// What the engine reports for the lead.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Emit {
    /// The team works on: the session stays alive.
    UsageUpdate,
    Error,
    Complete,
}

/// The gate: checked afresh at every turn end.
pub fn gate(team: &TeamState, turn: TurnEnd) -> Vec<Emit> {
    match turn {
        TurnEnd::Error => vec![Emit::Error, Emit::Complete],
        TurnEnd::Success if team.is_active() => vec![Emit::UsageUpdate],
        TurnEnd::Success => vec![Emit::Complete],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spawn(name: &str) -> TeamEvent {
        TeamEvent::SpawnRequested { teammate: name.into(), team_name: "session-489105c7".into() }
    }

    fn delegate(name: &str) -> TeamEvent {
        TeamEvent::DelegateStarted { teammate: name.into(), team_name: "session-489105c7".into() }
    }

    fn gone(name: &str) -> TeamEvent {
        TeamEvent::Gone { teammate: name.into() }
    }

    /// Events, then a turn end, and what must be reported — the spec's
    /// edge cases and its five-item testing checklist.
    #[test]
    fn gating_cases() {
        use Emit::*;
        let running = |names: &[&str]| TeamEvent::Running { teammates: names.iter().map(|n| n.to_string()).collect() };
        let cases: Vec<(&str, Vec<TeamEvent>, TurnEnd, Vec<Emit>)> = vec![
            // Checklist 1 (REQ-001): no complete while the team is active.
            ("team active", vec![spawn("w1")], TurnEnd::Success, vec![UsageUpdate]),
            // Checklist 2: usage_update while active, with two teammates.
            ("two teammates", vec![spawn("w1"), spawn("w2")], TurnEnd::Success, vec![UsageUpdate]),
            // Checklist 3 (REQ-003): normal completion without a team.
            ("no team", vec![], TurnEnd::Success, vec![Complete]),
            // Checklist 4: a team whose teammates are all gone completes.
            ("team with zero teammates", vec![spawn("w1"), gone("w1")], TurnEnd::Success, vec![Complete]),
            // A spawn that failed never counts.
            (
                "spawn failed",
                vec![spawn("w1"), TeamEvent::SpawnFailed { teammate: "w1".into() }],
                TurnEnd::Success,
                vec![Complete],
            ),
            // All teammates gone before the turn ended.
            (
                "all gone early",
                vec![spawn("w1"), spawn("w2"), gone("w2"), gone("w1")],
                TurnEnd::Success,
                vec![Complete],
            ),
            // The agent's own account wins: it says one still runs.
            (
                "background truth",
                vec![spawn("w1"), gone("w1"), running(&["bg-1"])],
                TurnEnd::Success,
                vec![UsageUpdate],
            ),
            ("background says none", vec![spawn("w1"), running(&[])], TurnEnd::Success, vec![Complete]),
            // An error always ends in error, then complete.
            ("error with team", vec![spawn("w1")], TurnEnd::Error, vec![Error, Complete]),
            ("error without team", vec![], TurnEnd::Error, vec![Error, Complete]),
            // A reset clears the team.
            ("reset", vec![spawn("w1"), TeamEvent::Reset], TurnEnd::Success, vec![Complete]),
            // A teammate that was never requested does not count towards a team.
            ("running without a team", vec![running(&["bg-1"])], TurnEnd::Success, vec![Complete]),
            // The agent's account does not cover teammates the app started.
            (
                "delegate outlives the agent's account",
                vec![delegate("s-2"), running(&[])],
                TurnEnd::Success,
                vec![UsageUpdate],
            ),
            ("delegate done", vec![delegate("s-2"), running(&[]), gone("s-2")], TurnEnd::Success, vec![Complete]),
        ];
        for (name, events, turn, expected) in cases {
            let mut team = TeamState::default();
            for event in events {
                team.apply(event);
            }
            assert_eq!(gate(&team, turn), expected, "{name}: {team:?}");
        }
    }

    /// Checklist 5: from usage_update to complete as the team finishes;
    /// and every turn checks the state afresh.
    #[test]
    fn several_turns_move_from_usage_update_to_complete() {
        let mut team = TeamState::default();
        team.apply(spawn("w1"));
        team.apply(spawn("w2"));
        assert_eq!(gate(&team, TurnEnd::Success), [Emit::UsageUpdate]);
        team.apply(gone("w1"));
        assert_eq!(gate(&team, TurnEnd::Success), [Emit::UsageUpdate]);
        team.apply(gone("w2"));
        assert_eq!(gate(&team, TurnEnd::Success), [Emit::Complete]);
        assert_eq!(team.team_name.as_deref(), Some("session-489105c7"), "the name stays; the count decides");
        // The team name is set once, by the first spawn.
        team.apply(TeamEvent::SpawnRequested { teammate: "w3".into(), team_name: "other".into() });
        assert_eq!(team.team_name.as_deref(), Some("session-489105c7"));
        assert_eq!(team.active_count(), 1);
    }

    fn envelope(payload: serde_json::Value, env: &[(&str, &str)]) -> HookEnvelope {
        HookEnvelope {
            session_id: Some("app-session".into()),
            env: env.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
            at: 0,
            payload,
            secret: None,
        }
    }

    /// Each hook event, as recorded from Claude Code (or scripted where no
    /// recording has it), and what it does to the sender's team.
    #[test]
    fn hook_events_move_the_team() {
        use serde_json::json;
        let lead = "489105c7-f1d7-4b9e-b4b5-0a1e2c3d4e5f";
        let spawn_payload = |name: &str, extra: serde_json::Value| {
            let mut payload = json!({"hook_event_name": "PreToolUse", "session_id": lead, "tool_name": "Agent",
                "tool_use_id": "toolu_1", "tool_input": {"name": name, "description": "teammate task", "prompt": "x"}});
            payload.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
            payload
        };
        let requested = |teammate: &str, team: &str| {
            Some(TeamEvent::SpawnRequested { teammate: teammate.into(), team_name: team.into() })
        };
        let cases: Vec<(&str, HookEnvelope, Option<TeamEvent>)> = vec![
            // The recorded spawn: the team takes Claude Code's own name for it.
            (
                "named spawn",
                envelope(spawn_payload("worker1", json!({})), &[]),
                requested("worker1", "session-489105c7"),
            ),
            // Where the agent's environment names its team, that is the key.
            (
                "team from the environment",
                envelope(spawn_payload("worker1", json!({})), &[("CLAUDE_CODE_TEAM_NAME", "parsers")]),
                requested("worker1", "parsers"),
            ),
            (
                "a background subagent is known by its call",
                envelope(
                    json!({"hook_event_name": "PreToolUse", "session_id": lead, "tool_name": "Task", "tool_use_id": "toolu_9",
                        "tool_input": {"run_in_background": true, "prompt": "x"}}),
                    &[],
                ),
                requested("toolu_9", "session-489105c7"),
            ),
            (
                "a subagent the lead waits on is no teammate",
                envelope(
                    json!({"hook_event_name": "PreToolUse", "tool_name": "Agent", "tool_input": {"prompt": "x"}}),
                    &[],
                ),
                None,
            ),
            (
                "the recorded successful spawn changes nothing",
                envelope(
                    json!({"hook_event_name": "PostToolUse", "tool_name": "Agent", "tool_use_id": "toolu_1",
                        "tool_input": {"name": "worker1"}, "tool_response": {"status": "teammate_spawned"}}),
                    &[],
                ),
                None,
            ),
            (
                "a failed spawn does not count",
                envelope(
                    json!({"hook_event_name": "PostToolUseFailure", "tool_name": "Agent", "tool_use_id": "toolu_1",
                        "tool_input": {"name": "worker1"}, "error": "unknown agent type"}),
                    &[],
                ),
                Some(TeamEvent::SpawnFailed { teammate: "worker1".into() }),
            ),
            (
                "the recorded idle teammate is done",
                envelope(
                    json!({"hook_event_name": "TeammateIdle", "agent_id": "aworker1-a110d2d22538fd9d",
                        "teammate_name": "worker1", "team_name": "session-489105c7"}),
                    &[],
                ),
                Some(TeamEvent::Gone { teammate: "worker1".into() }),
            ),
            (
                "the recorded Stop says who runs",
                envelope(
                    json!({"hook_event_name": "Stop", "background_tasks": [
                        {"id": "tv3s1076c", "type": "teammate", "status": "running"},
                        {"id": "sh1", "type": "shell", "status": "running"},
                        {"id": "old", "type": "subagent", "status": "completed"}]}),
                    &[],
                ),
                Some(TeamEvent::Running { teammates: ["tv3s1076c".to_owned()].into() }),
            ),
            (
                "the session ends",
                envelope(json!({"hook_event_name": "SessionEnd", "reason": "exit"}), &[]),
                Some(TeamEvent::Reset),
            ),
            (
                "a failed turn leaves the team to the gate",
                envelope(json!({"hook_event_name": "StopFailure", "error": "overloaded"}), &[]),
                None,
            ),
        ];
        for (name, envelope, expected) in cases {
            let event = HookEvent::parse(&envelope.payload);
            assert_eq!(team_event(&event, &envelope), expected, "{name}");
        }
        let failed = HookEvent::parse(&json!({"hook_event_name": "StopFailure", "error": "overloaded"}));
        assert_eq!(turn_end(&failed), Some(TurnEnd::Error));
        assert_eq!(turn_end(&HookEvent::parse(&json!({"hook_event_name": "Stop"}))), Some(TurnEnd::Success));
        assert_eq!(turn_end(&HookEvent::SessionStart), None);
    }

    /// The real Codex 0.169 spawning a sub-agent and waiting for it
    /// (`codex-hooks-subagent.jsonl`): the sub-agent counts from the spawn's
    /// request, is known by its id once the spawn answers, and is gone at its
    /// SubagentStop; a lead whose turn ended before that is held.
    #[test]
    fn a_codex_sub_agent_counts_from_its_spawn_to_its_stop() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/fixtures/agents/codex-hooks-subagent.jsonl");
        let recorded = std::fs::read_to_string(path).unwrap();
        let child = "01a213cd-00de-7173-891f-d921d0fd524b";
        let mut team = TeamState::default();
        let mut seen = Vec::new();
        for line in recorded.lines() {
            let line: serde_json::Value = serde_json::from_str(line).unwrap();
            let envelope = envelope(line["stdin"].clone(), &[]);
            let event = HookEvent::parse(&envelope.payload);
            if let Some(change) = team_event(&event, &envelope) {
                team.apply(change);
                seen.push((line["label"].as_str().unwrap().to_owned(), team.teammates.clone()));
            }
            if line["label"] == "SubagentStart" {
                // Had the lead's turn ended here, its task would be held.
                assert_eq!(gate(&team, TurnEnd::Success), [Emit::UsageUpdate]);
            }
        }
        let ids = |ids: &[&str]| ids.iter().map(|id| id.to_string()).collect::<BTreeSet<String>>();
        assert_eq!(
            seen,
            [
                ("PreToolUse".to_owned(), ids(&["call_fake_1_0"])),
                ("PostToolUse".to_owned(), ids(&[child])),
                ("SubagentStop".to_owned(), ids(&[])),
            ]
        );
        assert_eq!(team.team_name.as_deref(), Some("session-01a213cc"));
        assert_eq!(gate(&team, TurnEnd::Success), [Emit::Complete], "done at the lead's Stop");

        // A spawn Codex refused does not count.
        let refused = envelope(
            serde_json::json!({"hook_event_name": "PostToolUse", "tool_name": "spawn_agent", "tool_use_id": "call_2",
                "tool_input": {"message": "x"}, "tool_response": "agent limit reached"}),
            &[],
        );
        let event = HookEvent::parse(&refused.payload);
        assert_eq!(team_event(&event, &refused), Some(TeamEvent::SpawnFailed { teammate: "call_2".into() }));
    }
}
