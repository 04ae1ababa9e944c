//! Finding the agent CLIs the app offers as one-click agents: what is on
//! `PATH`, with its version, and what is missing with how to install it.
//! The real Claude Code and Codex are found in `real_agents.rs`.

use crate::support;

use std::ffi::OsString;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use support::*;
use switchboard_core::{AgentKind, CliFound, DetectedAgent};

/// A `PATH` of `dir` alone.
fn only(dir: &Path) -> Option<OsString> {
    Some(dir.as_os_str().to_owned())
}

fn script(dir: &Path, name: &str, body: &str) {
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

fn found(agents: &[DetectedAgent]) -> Vec<(AgentKind, CliFound)> {
    agents.iter().map(|a| (a.preset.kind, a.found.clone())).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_path_without_the_clis_finds_them_missing_with_how_to_install_them() {
    let empty = tempfile::tempdir().unwrap();
    let path = only(empty.path());
    let t = TestEngine::start_with(|config| config.search_path = path).await;
    let agents = t.engine.detected_agents().await.unwrap();
    assert_eq!(found(&agents), [(AgentKind::ClaudeCode, CliFound::Missing), (AgentKind::Codex, CliFound::Missing)]);
    let installs: Vec<&str> = agents.iter().map(|a| a.preset.install.as_str()).collect();
    assert_eq!(installs, ["npm install -g @anthropic-ai/claude-code", "npm install -g @openai/codex"]);
}

/// A CLI that prints its version and then never ends, leaving a child
/// behind that holds its output: found, with the version it printed, once
/// the time limit passed, and nothing of it left running.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cli_that_hangs_after_its_version_is_found_within_the_time_limit_and_ended() {
    let bin = tempfile::tempdir().unwrap();
    let marker = bin.path().join("pid");
    script(
        bin.path(),
        "claude",
        &format!("echo '9.8.7 (Claude Code)'; sleep 1000 & echo $! > {}; wait", marker.display()),
    );
    script(bin.path(), "codex", "echo 'no version today'");
    let path = only(bin.path());
    let t = TestEngine::start_with(|config| config.search_path = path).await;
    let started = std::time::Instant::now();
    let agents = t.engine.detected_agents().await.unwrap();
    assert!(started.elapsed() < switchboard_core::detect::VERSION_TIMEOUT * 2, "{:?}", started.elapsed());
    let path_of = |name: &str| bin.path().join(name).display().to_string();
    assert_eq!(
        found(&agents),
        [
            (AgentKind::ClaudeCode, CliFound::Installed { path: path_of("claude"), version: Some("9.8.7".into()) }),
            (AgentKind::Codex, CliFound::Installed { path: path_of("codex"), version: None }),
        ]
    );
    // Its process group was ended with it: the child it left behind is gone.
    let pid: u32 = std::fs::read_to_string(&marker).unwrap().trim().parse().unwrap();
    wait_until("the left-behind child to end", || {
        std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .map_or(true, |stat| stat.rsplit(')').next().is_some_and(|rest| rest.trim_start().starts_with('Z')))
    })
    .await;
}
