//! Hook events: from starting a `switchboard-hook` process to the event in
//! the engine, p50 and p99, beside starting `true` in the same run (the
//! floor any hook pays); then 200 hook processes fired at once, counting
//! that none was lost (taken by the engine or spooled).
//!
//! `cargo build --release -p switchboard-hook && cargo bench -p switchboard-tests --bench hook_latency`
//! (`ROUNDS=500` for more samples; the default is 200).

use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};
use switchboard_tests::measure::{ms, percentiles};

use switchboard_core::{Engine, EngineConfig, EngineEvent, LogKind, ProfileSpec, SessionState, TermSize, spool_path};
use tokio::sync::mpsc;

const FLOOD: usize = 200;

fn main() {
    let rounds: usize = std::env::var("ROUNDS").ok().and_then(|n| n.parse().ok()).unwrap_or(200);
    let exe = std::env::current_exe().unwrap();
    let hook = exe.parent().and_then(|d| d.parent()).unwrap().join("switchboard-hook");
    assert!(hook.is_file(), "build the hook first: cargo build --release -p switchboard-hook ({})", hook.display());

    let dir = tempfile::tempdir().unwrap();
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let (events_tx, mut events) = mpsc::unbounded_channel();
        let sink = move |event: EngineEvent| {
            if matches!(event, EngineEvent::AgentStatusChanged { .. }) {
                events_tx.send(Instant::now()).ok();
            }
        };
        let config = EngineConfig::new(dir.path().to_path_buf(), None);
        let socket = config.socket_path.clone();
        let engine = Engine::start(config, Arc::new(sink)).await.unwrap();
        let spec = ProfileSpec {
            name: "idle".into(),
            command: "sleep".into(),
            args: vec!["600".into()],
            cwd: dir.path().display().to_string(),
            ..ProfileSpec::default()
        };
        let profile = engine.create_profile(spec).await.unwrap();
        let session = engine.start_session(profile.id, TermSize::DEFAULT).await.unwrap();
        assert!(matches!(session.state, SessionState::Running { .. }));
        let spool = spool_path(dir.path());
        let run_hook = |payload: String| {
            let mut child = Command::new(&hook)
                .env("SWITCHBOARD_SESSION_ID", session.id.to_string())
                .env("SWITCHBOARD_SOCKET", &socket)
                .env("SWITCHBOARD_SPOOL", &spool)
                .stdin(Stdio::piped())
                .spawn()
                .unwrap();
            use std::io::Write;
            child.stdin.take().unwrap().write_all(payload.as_bytes()).unwrap();
            child
        };

        let mut baseline = Vec::with_capacity(rounds);
        let mut hooked = Vec::with_capacity(rounds);
        for _ in 0..rounds {
            let started = Instant::now();
            Command::new("true").status().unwrap();
            baseline.push(started.elapsed());

            let started = Instant::now();
            let mut child = run_hook(r#"{"hook_event_name":"UserPromptSubmit"}"#.into());
            let arrived = events.recv().await.unwrap();
            hooked.push(arrived - started);
            child.wait().unwrap();
        }

        // The flood: all at once, then count what the engine logged.
        let before = logged_hooks(&engine, &session.id).await;
        let children: Vec<_> =
            (0..FLOOD).map(|n| run_hook(format!(r#"{{"hook_event_name":"PreToolUse","tool_name":"n{n}"}}"#))).collect();
        for mut child in children {
            child.wait().unwrap();
        }
        let mut taken = 0;
        for _ in 0..100 {
            taken = logged_hooks(&engine, &session.id).await - before;
            if taken == FLOOD {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let spooled = std::fs::read_to_string(&spool).map_or(0, |text| text.lines().count());

        let (b50, b99) = percentiles(baseline);
        let (h50, h99) = percentiles(hooked);
        println!("rounds: {rounds}");
        println!("start `true` (baseline):        p50 {:>7.2} ms   p99 {:>7.2} ms", ms(b50), ms(b99));
        println!("hook start -> event in engine:  p50 {:>7.2} ms   p99 {:>7.2} ms", ms(h50), ms(h99));
        println!("ratio hook/baseline:            p50 {:>7.2}      p99 {:>7.2}", ms(h50) / ms(b50), ms(h99) / ms(b99));
        println!("flood of {FLOOD}: {taken} taken by the engine, {spooled} spooled, {} lost", FLOOD - taken - spooled);
        engine.shutdown().await;
    });
}

async fn logged_hooks(engine: &switchboard_core::EngineHandle, session: &switchboard_core::SessionId) -> usize {
    engine
        .list_events(Some(session.clone()))
        .await
        .unwrap()
        .iter()
        .filter(|e| matches!(e.kind, LogKind::Hook { .. }))
        .count()
}
