//! Engine tests with real PTYs and the scripted demo agent: spawning,
//! reading, writing, resizing, exit codes, killing whole process trees, flow
//! control and bounded scrollback.

use crate::support;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use support::*;
use switchboard_core::{ErrorCode, LogKind, SessionState, TermSize};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn agent_runs_in_its_workspace_with_session_environment() {
    let t = TestEngine::start().await;
    let profile = t.demo_profile(&["--print-env"]).await;
    let (session, output) = t.start_session(&profile).await;

    let text = output.wait_for_text("demo>").await;
    assert!(text.contains(&format!("session: {}", session.id)), "{text}");
    assert!(text.contains(&format!("cwd: {}", t.workspace.display())), "{text}");
    assert!(text.contains("socket: /"), "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typed_task_is_echoed_worked_on_and_summarised() {
    let t = TestEngine::start().await;
    let profile = t.demo_profile(&["--speed", "fast"]).await;
    let (session, output) = t.start_session(&profile).await;
    output.wait_for_text("demo>").await;

    t.engine.write_input(session.id.clone(), "Fix the bug, then write summaries/task-1.md\r".into()).await.unwrap();
    let text = output.wait_for_text("wrote ").await;
    assert!(text.contains("received: Fix the bug"), "{text}");
    // The terminal echoes what was typed, as a real one does.
    assert!(text.contains("Fix the bug, then write summaries/task-1.md"), "{text}");
    let summary = std::fs::read_to_string(t.workspace.join("summaries/task-1.md")).unwrap();
    assert!(summary.contains("## Status\n✅ COMPLETED"), "{summary}");

    let snapshot = t.engine.screen_snapshot(session.id.clone(), 100).await.unwrap();
    assert!(snapshot.recent_lines.iter().any(|l| l.starts_with("received: Fix the bug")), "{snapshot:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_scenario_drives_signals_deliverables_and_summaries() {
    let t = TestEngine::start().await;
    let scenario = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/scenarios/clarify-then-deliver.toml");
    let profile = t.demo_profile(&["--speed", "fast", "--scenario", scenario]).await;
    let (session, output) = t.start_session(&profile).await;
    output.wait_for_text("demo> ").await;

    t.engine.write_input(session.id.clone(), "Plan the auth work; summaries/t-1.md\r".into()).await.unwrap();
    let text = output.wait_for_text("[/CLARIFICATION_NEEDED]").await;
    let block = &text[text.find("[CLARIFICATION_NEEDED]").unwrap()..];
    assert!(block.contains("questions:\r\n  - \"Analyze OAuth2, JWT, or both?\""), "{block}");
    output.wait_for_text("[/CLARIFICATION_NEEDED]\r\ndemo> ").await;
    assert!(!t.workspace.join("summaries/t-1.md").exists(), "asking is not completing");

    t.engine.write_input(session.id.clone(), "Both; summaries/t-2.md\r".into()).await.unwrap();
    // The agent reports the summary by its full path (the typed task named it relatively).
    output.wait_for_text("/summaries/t-2.md").await;
    assert_eq!(std::fs::read_to_string(t.workspace.join("out/result.txt")).unwrap(), "42\n");
    let summary = std::fs::read_to_string(t.workspace.join("summaries/t-2.md")).unwrap();
    assert!(summary.contains("- `out/result.txt`"), "{summary}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resize_reaches_the_program_and_the_screen_model() {
    let t = TestEngine::start().await;
    let profile = t.profile("sizer", "sh", &["-c", "while read line; do stty size; done"]).await;
    let (session, output) = t.start_session(&profile).await;

    t.engine.resize(session.id.clone(), TermSize { rows: 40, cols: 120 }).await.unwrap();
    t.engine.write_input(session.id.clone(), "\r".into()).await.unwrap();
    output.wait_for_text("40 120").await;
    let snapshot = t.engine.screen_snapshot(session.id.clone(), 0).await.unwrap();
    assert_eq!(snapshot.size, TermSize { rows: 40, cols: 120 });

    let error = t.engine.resize(session.id.clone(), TermSize { rows: 0, cols: 120 }).await.unwrap_err();
    assert_eq!(error.code(), ErrorCode::InvalidInput);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exit_code_is_detected_and_recorded() {
    let t = TestEngine::start().await;
    let profile = t.demo_profile(&["--exit-on-task", "1", "--exit-code", "7"]).await;
    let (session, output) = t.start_session(&profile).await;
    output.wait_for_text("demo>").await;
    t.engine.write_input(session.id.clone(), "go\r".into()).await.unwrap();

    let ended = t.wait_for_end(&session.id).await;
    assert!(matches!(ended.state, SessionState::Exited { exit_code: 7, .. }), "{ended:?}");
    let log = t.engine.list_events(Some(session.id.clone())).await.unwrap();
    let kinds: Vec<_> = log.into_iter().map(|e| e.kind).collect();
    assert!(
        matches!(kinds.as_slice(), [LogKind::SessionStarted { .. }, LogKind::SessionExited { exit_code: 7, .. }]),
        "{kinds:?}"
    );
    assert!(!process_exists(pid_of(&session)));
    // Writing to an ended session is a typed error, not a silent drop.
    let error = t.engine.write_input(session.id.clone(), "x".into()).await.unwrap_err();
    assert_eq!(error.code(), ErrorCode::SessionNotRunning);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crash_is_an_exit_with_a_failure_code() {
    let t = TestEngine::start().await;
    let profile = t.demo_profile(&["--crash-on-task", "1"]).await;
    let (session, output) = t.start_session(&profile).await;
    output.wait_for_text("demo>").await;
    t.engine.write_input(session.id.clone(), "boom\r".into()).await.unwrap();

    let ended = t.wait_for_end(&session.id).await;
    let SessionState::Exited { exit_code, .. } = ended.state else { panic!("{ended:?}") };
    assert_ne!(exit_code, 0);
    // Its last words reach the view on their own way, which may be behind the end's event.
    output.wait_for_text("crashed").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stop_kills_the_whole_tree_including_a_stubborn_daemon() {
    let t = TestEngine::start().await;
    let pid_file = t.workspace.join("daemon.pid");
    let pid_arg = pid_file.display().to_string();
    // The agent ignores SIGHUP and SIGTERM; its grandchild left its session,
    // ignores both too, and was orphaned (its parent exited).
    let profile = t.demo_profile(&["--ignore-signals", "--stubborn-grandchild", &pid_arg]).await;
    let (session, output) = t.start_session(&profile).await;
    output.wait_for_text("demo>").await;
    let daemon: u32 = std::fs::read_to_string(&pid_file).unwrap().trim().parse().unwrap();
    let agent = pid_of(&session);
    assert!(process_exists(daemon) && process_exists(agent));

    let stopped = t.engine.stop_session(session.id.clone()).await.unwrap();
    assert!(matches!(stopped.state, SessionState::Killed { .. }), "{stopped:?}");
    // Gone means gone: not running, and not left as a zombie either.
    assert!(!process_exists(agent), "agent {agent} still exists");
    assert!(!process_exists(daemon), "daemon {daemon} still exists");

    let log = t.engine.list_events(Some(session.id.clone())).await.unwrap();
    assert!(matches!(log.last().unwrap().kind, LogKind::SessionKilled { .. }), "{log:?}");
    let error = t.engine.stop_session(session.id.clone()).await.unwrap_err();
    assert_eq!(error.code(), ErrorCode::SessionNotRunning);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn leftover_children_of_an_exited_agent_are_ended() {
    let t = TestEngine::start().await;
    let pid_file = t.workspace.join("left.pid");
    let script = format!("sleep 1000 & echo $! > {}; echo started; read x", pid_file.display());
    let profile = t.profile("leaver", "sh", &["-c", &script]).await;
    let (session, output) = t.start_session(&profile).await;
    output.wait_for_text("started").await;
    let sleeper: u32 = std::fs::read_to_string(&pid_file).unwrap().trim().parse().unwrap();

    t.engine.write_input(session.id.clone(), "\r".into()).await.unwrap();
    let ended = t.wait_for_end(&session.id).await;
    assert!(matches!(ended.state, SessionState::Exited { exit_code: 0, .. }), "{ended:?}");
    assert!(!process_exists(sleeper), "background child {sleeper} outlived its agent");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn paused_output_holds_the_agent_back_and_resuming_lets_it_finish() {
    /// Seconds of output for a test build; if the pause ever landed after
    /// the end, the `held < FLOOD` check fails rather than passing falsely.
    const FLOOD: usize = 20_000_000;
    let t = TestEngine::start().await;
    let flood = FLOOD.to_string();
    let profile = t.demo_profile(&["--speed", "fast", "--flood", &flood]).await;
    let session = t.engine.start_session(profile.id.clone(), TermSize::DEFAULT).await.unwrap();
    // Count the bytes and keep only a tail: the flood is not worth storing.
    let received = Arc::new(AtomicUsize::new(0));
    let tail = Arc::new(Collected::<u8>::default());
    let (count, sink_tail) = (received.clone(), tail.clone());
    let mut terminal = t.engine.attach(session.id.clone()).await.unwrap();
    tokio::spawn(async move {
        while let Some(batch) = terminal.next().await {
            count.fetch_add(batch.len(), Ordering::SeqCst);
            sink_tail.keep_last(&batch, 4096);
        }
    });
    tail.wait_for_text("demo>").await;
    t.engine.write_input(session.id.clone(), "flood\r".into()).await.unwrap();
    tail.wait_for_text("flood line").await;

    t.engine.set_output_paused(session.id.clone(), true).await.unwrap();
    // Let what was already read drain, then watch: nothing more arrives.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let held = received.load(Ordering::SeqCst);
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(received.load(Ordering::SeqCst), held, "output kept flowing while paused");
    assert!(held < FLOOD, "the flood finished before the pause took effect");

    t.engine.set_output_paused(session.id.clone(), false).await.unwrap();
    tail.wait_for_text("done").await;
    assert!(received.load(Ordering::SeqCst) > FLOOD);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scrollback_is_bounded_and_replayed_to_late_viewers() {
    let t = TestEngine::start_with(|config| config.scrollback_bytes = 64 * 1024).await;
    let profile = t.demo_profile(&["--speed", "fast", "--flood", "2000000"]).await;
    let (session, first) = t.start_session(&profile).await;
    first.wait_for_text("demo>").await;
    t.engine.write_input(session.id.clone(), "flood\r".into()).await.unwrap();
    first.wait_for_text("done").await;

    let late = t.attach(&session.id).await;
    late.wait_for_text("done").await;
    let replay = late.text();
    assert!(late.len() <= 64 * 1024, "replay of {} bytes", late.len());
    assert!(replay.starts_with("\x1b["), "replay should start at a line: {:?}", &replay[..40]);
    assert!(first.len() > 2_000_000);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn restart_replaces_the_session() {
    let t = TestEngine::start().await;
    let profile = t.demo_profile(&[]).await;
    let (session, output) = t.start_session(&profile).await;
    output.wait_for_text("demo>").await;

    let fresh = t.engine.restart_session(session.id.clone(), TermSize { rows: 30, cols: 90 }, None).await.unwrap();
    let fresh = fresh.session().expect("no task ran: it restarts at once");
    assert_ne!(fresh.id, session.id);
    assert_eq!(fresh.size, TermSize { rows: 30, cols: 90 });
    assert!(fresh.state.is_running());
    let sessions = t.engine.list_sessions().await.unwrap();
    let old = sessions.iter().find(|s| s.id == session.id).unwrap();
    assert!(matches!(old.state, SessionState::Killed { .. }), "{old:?}");
    t.attach(&fresh.id).await.wait_for_text("demo>").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_vanished_workspace_or_command_spawns_nothing() {
    let t = TestEngine::start().await;
    let gone = t.workspace.join("soon-gone");
    std::fs::create_dir(&gone).unwrap();
    let mut spec = t.spec("fragile", "sh", &[]);
    spec.cwd = gone.display().to_string();
    let profile = t.engine.create_profile(spec).await.unwrap();
    std::fs::remove_dir(&gone).unwrap();

    let error = t.engine.start_session(profile.id.clone(), TermSize::DEFAULT).await.unwrap_err();
    assert_eq!(error.code(), ErrorCode::DirectoryMissing);
    assert!(t.engine.list_sessions().await.unwrap().is_empty());

    let error = t.engine.create_profile(t.spec("typo", "no-such-agent-cli", &[])).await.unwrap_err();
    assert_eq!(error.code(), ErrorCode::InvalidProfile);
    assert_eq!(error.field(), Some("command"));
    assert_eq!(t.engine.list_profiles().await.unwrap().len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn profiles_persist_and_shutdown_stops_every_agent() {
    let temp = tempfile::tempdir().unwrap();
    let agent_pid;
    {
        let t = TestEngine::start_in(temp.path(), |_| {}).await;
        let profile = t.demo_profile(&["--ignore-signals"]).await;
        let (session, output) = t.start_session(&profile).await;
        output.wait_for_text("demo>").await;
        agent_pid = pid_of(&session);
        t.shutdown().await;
        assert!(!process_exists(agent_pid));
        let error = t.engine.list_profiles().await.unwrap_err();
        assert_eq!(error.code(), ErrorCode::EngineStopped);
    }
    let t = TestEngine::start_in(temp.path(), |_| {}).await;
    let profiles = t.engine.list_profiles().await.unwrap();
    assert_eq!(profiles.iter().map(|p| p.spec.name.as_str()).collect::<Vec<_>>(), ["demo"]);
    let sessions = t.engine.list_sessions().await.unwrap();
    assert!(matches!(sessions[0].state, SessionState::Killed { .. }), "{sessions:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_engine_on_the_same_data_is_refused_and_harms_nothing() {
    let temp = tempfile::tempdir().unwrap();
    let first = TestEngine::start_in(temp.path(), |_| {}).await;
    let profile = first.demo_profile(&[]).await;
    let (session, output) = first.start_session(&profile).await;
    output.wait_for_text("demo>").await;

    let config = switchboard_core::EngineConfig::new(temp.path().to_path_buf(), None);
    let refused = switchboard_core::Engine::start(config, std::sync::Arc::new(switchboard_core::NoEvents)).await;
    let error = refused.err().expect("a second engine must not start");
    assert_eq!(error.code(), ErrorCode::AlreadyRunning);
    assert!(error.to_string().contains(&format!("process {}", std::process::id())), "{error}");

    // The first instance's agent was not mistaken for a leftover of a crash.
    assert!(process_exists(pid_of(&session)));
    first.engine.write_input(session.id.clone(), "still here\r".into()).await.unwrap();
    output.wait_for_text("received: still here").await;

    // Once the first stops, the data directory is free again.
    first.shutdown().await;
    let again = TestEngine::start_in(temp.path(), |_| {}).await;
    assert_eq!(again.engine.list_profiles().await.unwrap().len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn demo_profile_is_created_and_started_on_first_launch() {
    let t = TestEngine::start_with(|config| config.demo_agent = Some(DEMO_AGENT.into())).await;
    let profiles = t.engine.list_profiles().await.unwrap();
    assert_eq!(profiles.len(), 1);
    let sessions = t.engine.list_sessions().await.unwrap();
    assert_eq!(sessions.len(), 1);
    assert!(sessions[0].state.is_running());
    t.attach(&sessions[0].id).await.wait_for_text("Switchboard demo agent").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn profiles_are_edited_and_deleted_but_never_under_a_running_agent() {
    let t = TestEngine::start().await;
    let profile = t.demo_profile(&[]).await;
    let other = t.profile("other", "sh", &[]).await;

    // A bad edit is refused and changes nothing.
    let mut bad = profile.spec.clone();
    bad.cwd = t.workspace.join("missing").display().to_string();
    let error = t.engine.update_profile(profile.id.clone(), bad).await.unwrap_err();
    assert_eq!((error.code(), error.field()), (ErrorCode::InvalidProfile, Some("cwd")));
    let mut taken = profile.spec.clone();
    taken.name = "other".into();
    taken.command = "no-such-agent-cli".into();
    let error = t.engine.update_profile(profile.id.clone(), taken).await.unwrap_err();
    let problems: Vec<&str> =
        switchboard_core::ApiError::from(error).problems.iter().map(|p| p.field.as_str()).collect();
    assert_eq!(problems, ["name", "command"], "a taken name and a missing program, both at once");
    assert_eq!(t.engine.list_profiles().await.unwrap()[0], profile);

    // A good edit applies to the next session.
    let mut renamed = profile.spec.clone();
    renamed.name = "renamed".into();
    renamed.args = vec!["--prompt".into(), "edited> ".into()];
    let edited = t.engine.update_profile(profile.id.clone(), renamed).await.unwrap();
    assert_eq!((edited.spec.name.as_str(), edited.created_at), ("renamed", profile.created_at));
    let (session, output) = t.start_session(&edited).await;
    output.wait_for_text("edited> ").await;

    let error = t.engine.delete_profile(profile.id.clone()).await.unwrap_err();
    assert_eq!(error.code(), ErrorCode::ProfileBusy);
    assert!(process_exists(pid_of(&session)));

    t.engine.stop_session(session.id.clone()).await.unwrap();
    t.engine.delete_profile(profile.id.clone()).await.unwrap();
    let left: Vec<_> = t.engine.list_profiles().await.unwrap().into_iter().map(|p| p.id).collect();
    assert_eq!(left, [other.id]);
    assert!(t.engine.list_sessions().await.unwrap().is_empty());
    let error = t.engine.screen_snapshot(session.id.clone(), 1).await.unwrap_err();
    assert_eq!(error.code(), ErrorCode::SessionNotFound);
    let error = t.engine.delete_profile(profile.id.clone()).await.unwrap_err();
    assert_eq!(error.code(), ErrorCode::ProfileNotFound);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restart_during_a_stop_answers_both_and_leaves_one_agent() {
    let t = TestEngine::start().await;
    // Ignores SIGHUP/SIGTERM: the stop takes the whole grace period.
    let profile = t.demo_profile(&["--ignore-signals"]).await;
    let (session, output) = t.start_session(&profile).await;
    output.wait_for_text("demo>").await;

    let (stopped, restarted) = tokio::join!(
        t.engine.stop_session(session.id.clone()),
        t.engine.restart_session(session.id.clone(), TermSize::DEFAULT, None),
    );
    assert!(matches!(stopped.unwrap().state, SessionState::Killed { .. }));
    let fresh = restarted.unwrap().session().expect("no task ran: it restarts at once");
    assert!(fresh.state.is_running());
    assert!(!process_exists(pid_of(&session)));
    let running: Vec<_> =
        t.engine.list_sessions().await.unwrap().into_iter().filter(|s| s.state.is_running()).collect();
    assert_eq!(running.len(), 1);
    assert_eq!(running[0].id, fresh.id);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn input_to_an_agent_that_never_reads_is_bounded_and_refused_with_a_reason() {
    let t = TestEngine::start().await;
    let profile = t.profile("deaf", "sleep", &["60"]).await;
    let (session, _output) = t.start_session(&profile).await;
    // Before: every write was accepted and held (270 MB for a real agent).
    // Lines: the terminal takes only so many before the agent must read.
    let chunk = format!("{}\n", "x".repeat(99)).repeat(2600);
    let mut accepted = 0;
    let refusal = loop {
        match t.engine.write_input(session.id.clone(), chunk.clone()).await {
            Ok(()) => accepted += 1,
            Err(error) => break error,
        }
        assert!(accepted < 64, "16 MiB accepted for an agent that reads nothing");
    };
    assert_eq!((refusal.code(), refusal.field()), (ErrorCode::InvalidInput, Some("data")));
    assert!(refusal.to_string().contains("has not read"), "{refusal}");
    assert!(accepted * chunk.len() <= switchboard_core::session::MAX_PENDING_INPUT_BYTES + 64 * 1024);
    // The session's writer waits for room in the terminal...
    let writer = format!("pty-write-{}", &session.id.to_string()[..5]);
    assert!(thread_named(&writer), "the writer thread exists while the session runs");
    let stopped = t.engine.stop_session(session.id.clone()).await.unwrap();
    assert!(matches!(stopped.state, SessionState::Killed { .. }));
    // ...and gives up, closing the terminal, once the session ended. Before:
    // it stayed blocked in its write for good, holding the data and a ptmx.
    wait_until("the writer thread ends with its session", || !thread_named(&writer)).await;
}

/// Whether a thread of this process has this name (as the kernel keeps it:
/// at most 15 bytes).
fn thread_named(name: &str) -> bool {
    std::fs::read_dir("/proc/self/task")
        .unwrap()
        .flatten()
        .any(|task| std::fs::read_to_string(task.path().join("comm")).is_ok_and(|comm| comm.trim_end() == name))
}

/// A window that missed the engine's restart still shows an agent as not
/// running; its **Start session** must not start a second copy of the agent
/// in the same folder. The refusal names the agent; once that session ends,
/// a start is taken again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_start_of_a_running_agent_is_refused_in_words() {
    let t = TestEngine::start().await;
    let profile = t.demo_profile(&[]).await;
    let (session, output) = t.start_session(&profile).await;
    output.wait_for_text("demo>").await;

    let refused = t.engine.start_session(profile.id.clone(), TermSize::default()).await.unwrap_err();
    assert_eq!(refused.code(), ErrorCode::ProfileBusy);
    let said = refused.to_string();
    assert!(said.starts_with(&profile.spec.name) && said.contains("already has a session running"), "{said}");
    let running = t.engine.list_sessions().await.unwrap().into_iter().filter(|s| s.state.is_running()).count();
    assert_eq!(running, 1, "no second copy of the agent runs");

    t.engine.stop_session(session.id.clone()).await.unwrap();
    let again = t.engine.start_session(profile.id.clone(), TermSize::default()).await.unwrap();
    assert!(again.state.is_running());
}
