//! Settings that work for the agent CLIs the app knows, which the "New
//! agent" form fills in when the user picks a kind. They are what the
//! real-agent tests run (`tests/tests/real_agents.rs` builds its profiles
//! from them), checked against Claude Code 2.1 and Codex 0.169:
//!
//! - Readiness: both TUIs leave the cursor right after their input prompt
//!   (`❯` for Claude Code, `›` for Codex) once they take input; the line up
//!   to the cursor is then the prompt alone. Their hooks, which the app
//!   connects by itself (`connect.rs`), say when they are at work.
//! - Claude Code: `--permission-mode acceptEdits` edits files in its folder
//!   without asking (its default mode asks a classifier on the network);
//!   anything else it wants to do still reaches the user as a permission
//!   request.
//! - Codex: `--dangerously-bypass-hook-trust` runs the hooks the app adds
//!   to its `hooks.json` without the "Hooks need review" screen on the
//!   first start (a task typed then would land in that screen);
//!   `--no-daemon` runs it without the shared background server.

use switchboard_protocol::AgentKind;

use switchboard_api::{AgentPreset, DEFAULT_READY_QUIET_MS};

/// One preset per kind the app knows (not `Generic`: any command).
pub fn presets() -> Vec<AgentPreset> {
    vec![claude_code(), codex()]
}

/// The preset of `kind`, if the app knows one.
pub fn preset(kind: AgentKind) -> Option<AgentPreset> {
    presets().into_iter().find(|preset| preset.kind == kind)
}

fn claude_code() -> AgentPreset {
    AgentPreset {
        kind: AgentKind::ClaudeCode,
        label: "Claude Code".into(),
        command: "claude".into(),
        args: vec!["--permission-mode".into(), "acceptEdits".into()],
        install: "npm install -g @anthropic-ai/claude-code".into(),
        ready_pattern: Some(r"^❯\s*$".into()),
        ready_quiet_ms: DEFAULT_READY_QUIET_MS,
        notes: vec![
            "--permission-mode acceptEdits lets it edit files in its folder without asking; \
             anything else it wants to run still asks you, here."
                .into(),
            "It is ready for a task when its ❯ prompt is on screen and its hooks say it is idle.".into(),
            "Switchboard adds its hooks to .claude/settings.local.json in the agent's folder when a \
             session starts, beside any hooks of yours."
                .into(),
        ],
    }
}

fn codex() -> AgentPreset {
    AgentPreset {
        kind: AgentKind::Codex,
        label: "Codex".into(),
        command: "codex".into(),
        args: vec!["--no-daemon".into(), "--dangerously-bypass-hook-trust".into()],
        install: "npm install -g @openai/codex".into(),
        ready_pattern: Some(r"^›\s*$".into()),
        ready_quiet_ms: DEFAULT_READY_QUIET_MS,
        notes: vec![
            "--dangerously-bypass-hook-trust runs the hooks in Codex's hooks.json without asking you \
             to trust them first; without it Codex stops at a review screen on its first start."
                .into(),
            "--no-daemon runs it without Codex's shared background server.".into(),
            "It is ready for a task when its › prompt is on screen and its hooks say it is idle.".into(),
            "Switchboard adds its hooks to hooks.json in CODEX_HOME (else ~/.codex) and, unless you \
             set one, passes itself as Codex's notify program."
                .into(),
        ],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::validate::{PathFound, ProgramFound, Surroundings, problems};
    use switchboard_api::ProfileSpec;

    #[test]
    fn each_known_cli_has_one_preset_and_a_generic_agent_none() {
        let kinds: Vec<AgentKind> = presets().iter().map(|p| p.kind).collect();
        assert_eq!(kinds, [AgentKind::ClaudeCode, AgentKind::Codex]);
        assert!(preset(AgentKind::Generic).is_none());
        assert_eq!(preset(AgentKind::Codex).unwrap().command, "codex");
    }

    #[test]
    fn a_preset_makes_a_valid_profile_and_its_pattern_matches_its_prompt() {
        let found = Surroundings { cwd: PathFound::Directory, program: ProgramFound::Program, name_taken: false };
        // The line up to the cursor as the engine's terminal model reads it
        // once each TUI takes input (padded to the cursor).
        for (kind, prompt_line, typed_line) in
            [(AgentKind::ClaudeCode, "❯ ", "❯ fix the build"), (AgentKind::Codex, "› ", "› fix the build")]
        {
            let preset = preset(kind).unwrap();
            let spec = ProfileSpec {
                name: preset.label.clone(),
                command: preset.command.clone(),
                args: preset.args.clone(),
                cwd: "/work".into(),
                kind,
                ready_pattern: preset.ready_pattern.clone(),
                ready_quiet_ms: preset.ready_quiet_ms,
                ..Default::default()
            };
            assert_eq!(problems(&spec, &found), vec![], "{kind:?}");
            let pattern = regex::Regex::new(preset.ready_pattern.as_deref().unwrap()).unwrap();
            assert!(pattern.is_match(prompt_line), "{kind:?}");
            assert!(!pattern.is_match(typed_line), "{kind:?}");
            assert!(!pattern.is_match(""), "{kind:?}");
        }
    }
}
