//! What survives a `kill -9`: of the app while an agent runs, and of a
//! process writing to the database.

use crate::support;

/// Starts an engine in its own process on `data_dir`, running `agent` in one
/// session under its keeper, as the app does; returns the host process and
/// the session's pid (its keeper's).
fn spawn_host(data_dir: &std::path::Path, agent: &[&str]) -> (std::process::Child, u32) {
    let mut host = Command::new(ENGINE_HOST)
        .arg(data_dir)
        .args(agent)
        .env("HOST_KEEPER", hook_binary())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(host.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let pid = line.trim().strip_prefix("pid ").expect("the host prints the agent pid").parse().unwrap();
    (host, pid)
}

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use support::*;
use switchboard_core::store::Store;
use switchboard_core::{LogKind, SessionState};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sessions_of_a_killed_app_are_interrupted_and_their_agents_reaped() {
    let temp = tempfile::tempdir().unwrap();
    // The agent ignores SIGHUP and SIGTERM and never touches its terminal,
    // so losing the terminal does not end it: only the restarted app can.
    let (mut host, agent) =
        spawn_host(temp.path(), &["sh", "-c", "trap '' HUP TERM; echo $$ > traps-set; while :; do sleep 1; done"]);
    let ready = temp.path().join("work/traps-set");
    wait_until("the agent ignores hangups", || {
        std::fs::read_to_string(&ready).is_ok_and(|pid| pid.trim().parse::<u32>().is_ok())
    })
    .await;
    let shell: u32 = std::fs::read_to_string(&ready).unwrap().trim().parse().unwrap();

    host.kill().unwrap(); // SIGKILL: no chance to clean up
    host.wait().unwrap();
    assert!(process_exists(agent), "the agent should outlive the killed app");

    let t = TestEngine::start_in(temp.path(), |_| {}).await;
    let sessions = t.engine.list_sessions().await.unwrap();
    assert_eq!(sessions.len(), 1);
    assert!(matches!(sessions[0].state, SessionState::Interrupted { .. }), "{sessions:?}");
    let log = t.engine.list_events(Some(sessions[0].id.clone())).await.unwrap();
    assert_eq!(log.last().unwrap().kind, LogKind::SessionInterrupted { reaped: true });
    wait_until("the interrupted agent is gone", || !process_exists(agent)).await;
    wait_until("the agent's own shell under its keeper is gone", || !process_exists(shell)).await;

    // The profile is still there and can run again.
    let profiles = t.engine.list_profiles().await.unwrap();
    let fresh = t.engine.start_session(profiles[0].id.clone(), Default::default()).await.unwrap();
    assert!(fresh.state.is_running());
    t.engine.stop_session(fresh.id).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_interrupted_agent_that_already_died_is_recorded_as_not_reaped() {
    let temp = tempfile::tempdir().unwrap();
    let (mut host, agent) = spawn_host(temp.path(), &["sh", "-c", "exec sleep 1000"]);
    host.kill().unwrap();
    host.wait().unwrap();
    // The agent dies before the app comes back: nothing to reap. (A pid
    // reused by another process is told apart by its start time; see
    // `is_same_process` in the engine's unit tests.)
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(agent as i32), nix::sys::signal::Signal::SIGKILL).ok();
    wait_until("the agent is gone", || !process_exists(agent)).await;

    let t = TestEngine::start_in(temp.path(), |_| {}).await;
    let sessions = t.engine.list_sessions().await.unwrap();
    assert!(matches!(sessions[0].state, SessionState::Interrupted { .. }));
    let log = t.engine.list_events(Some(sessions[0].id.clone())).await.unwrap();
    assert_eq!(log.last().unwrap().kind, LogKind::SessionInterrupted { reaped: false });
}

#[test]
fn no_acknowledged_write_is_lost_when_the_writer_is_killed() {
    let temp = tempfile::tempdir().unwrap();
    let db = temp.path().join("switchboard.db");
    for round in 0..3 {
        let mut writer = Command::new(STORE_WRITER).arg(&db).stdout(Stdio::piped()).spawn().unwrap();
        let mut acknowledged = Vec::new();
        let mut lines = BufReader::new(writer.stdout.take().unwrap()).lines();
        // Kill it mid-stream, after a varying number of commits.
        while acknowledged.len() < 200 + round * 317 {
            acknowledged.push(lines.next().unwrap().unwrap().parse::<i64>().unwrap());
        }
        writer.kill().unwrap();
        writer.wait().unwrap();

        let store = Store::open(&db).unwrap();
        let stored: std::collections::HashSet<i64> =
            store.list_events(None).unwrap().into_iter().map(|e| e.seq).collect();
        let lost: Vec<_> = acknowledged.iter().filter(|seq| !stored.contains(seq)).collect();
        assert!(lost.is_empty(), "round {round}: lost acknowledged events {lost:?}");
    }
}
