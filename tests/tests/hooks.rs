//! Hook events from agents: forwarded by the hook (its library, as the
//! binary runs it) to the engine socket, logged, turned into the agent's
//! status, scanned for signals; and spooled while no app runs, replayed at
//! the next start.

mod support;

use std::path::Path;

use support::*;
use switchboard_core::hook::AgentStatus;
use switchboard_core::{EngineEvent, LogKind, SessionId};

/// The recorded Claude Code hook payloads of a turn that ends with a clarification.
fn recorded_payloads() -> Vec<String> {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/agents/cc-hooks-write-signal.jsonl"),
    )
    .unwrap();
    text.lines().map(|line| serde_json::from_str::<serde_json::Value>(line).unwrap()["stdin"].to_string()).collect()
}

/// Runs the hook as an agent's hook would, inside `session`.
fn fire(socket: &Path, spool: &Path, session: &SessionId, payload: &str) {
    let env = |name: &str| match name {
        "SWITCHBOARD_SESSION_ID" => Some(session.to_string()),
        "SWITCHBOARD_SOCKET" => Some(socket.display().to_string()),
        "SWITCHBOARD_SPOOL" => Some(spool.display().to_string()),
        "CLAUDE_CODE_SESSION_ID" => Some("11be1930-3c45-41f0-8a97-80ee87b18f26".to_owned()),
        _ => None,
    };
    switchboard_hook::run(payload.as_bytes(), &[], env).unwrap();
}

fn statuses(events: &[EngineEvent], session: &SessionId) -> Vec<AgentStatus> {
    let mut out: Vec<AgentStatus> = Vec::new();
    for event in events {
        if let EngineEvent::AgentStatusChanged { status } = event
            && &status.session_id == session
            && out.last() != Some(&status.status)
        {
            out.push(status.status);
        }
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn recorded_hook_events_drive_status_and_signals() {
    let t = TestEngine::start().await;
    let profile = t.demo_profile(&[]).await;
    let (session, _output) = t.start_session(&profile).await;
    let socket = switchboard_core::config::socket_path(&t.data_dir, None);
    let spool = switchboard_core::spool_path(&t.data_dir);
    // The hook blocks (briefly): off the test's runtime.
    let payloads = recorded_payloads();
    let (sock, spl, id) = (socket.clone(), spool.clone(), session.id.clone());
    tokio::task::spawn_blocking(move || {
        for payload in payloads {
            fire(&sock, &spl, &id, &payload);
        }
    })
    .await
    .unwrap();

    assert!(!spool.exists(), "the running app took every event");
    let events = t.events.snapshot();
    use AgentStatus::*;
    assert_eq!(statuses(&events, &session.id), [Waiting, Working, Waiting, Exited]);
    // The Stop event's text carried a clarification.
    t.events
        .wait_for("the clarification from the Stop hook", |events| {
            events.iter().find_map(|e| match e {
                EngineEvent::SignalChanged { signal } if signal.session_id == session.id => Some(()),
                _ => None,
            })
        })
        .await;
    let log = t.engine.list_events(Some(session.id.clone())).await.unwrap();
    let hooks: Vec<String> = log
        .iter()
        .filter_map(|e| match &e.kind {
            LogKind::Hook { event, .. } => Some(event.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(hooks.first().map(String::as_str), Some("session_start"));
    assert!(hooks.contains(&"MessageDisplay".to_owned()), "unknown events are logged by name: {hooks:?}");
    assert_eq!(hooks.len(), 10, "{hooks:?}");
    t.engine.stop_session(session.id).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn events_spooled_while_no_app_runs_are_replayed_at_the_next_start() {
    let temp = tempfile::tempdir().unwrap();
    let session_id;
    {
        let t = TestEngine::start_in(temp.path(), |_| {}).await;
        let profile = t.demo_profile(&[]).await;
        let (session, _output) = t.start_session(&profile).await;
        session_id = session.id.clone();
        t.engine.shutdown().await;
    }
    // The app is gone: the hook spools, and still returns at once.
    let socket = switchboard_core::config::socket_path(temp.path(), None);
    let spool = switchboard_core::spool_path(temp.path());
    for payload in recorded_payloads() {
        fire(&socket, &spool, &session_id, &payload);
    }
    assert_eq!(std::fs::read_to_string(&spool).unwrap().lines().count(), 10);

    let t = TestEngine::start_in(temp.path(), |_| {}).await;
    assert!(!spool.exists(), "the spool was replayed and emptied");
    let log = t.engine.list_events(Some(session_id.clone())).await.unwrap();
    let replayed = log.iter().filter(|e| matches!(e.kind, LogKind::Hook { .. })).count();
    assert_eq!(replayed, 10);
    let signals = t.engine.list_signals().await.unwrap();
    assert_eq!(signals.len(), 1, "the spooled Stop still raised its clarification");
}
