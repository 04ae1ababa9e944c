//! Loop mode with real agents (the demo agent in scenarios): each iteration
//! is a fresh process typed the iteration prompt; its end is judged; the
//! loop ends for a reason it names, and never runs past its cap.

use crate::support;

use support::*;
use switchboard_core::loops::{Completion, FIRST_START_RETRY_MS, LoopSettings, MAX_FAILED_STARTS};
use switchboard_core::{DiagramId, EngineEvent, FlowTarget, IterationOutcome, LoopInfo, LoopState};

fn sessions_of(info: &LoopInfo) -> std::collections::BTreeSet<switchboard_core::SessionId> {
    info.iterations.iter().filter_map(|i| i.session_id.clone()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_stop_word_written_at_the_third_iteration_ends_the_loop() {
    let t = TestEngine::start().await;
    // Each run notes its step; the third writes the stop word on a line of its own.
    let profile = counting_profile(
        &t,
        "noter",
        "mkdir -p .switchboard; echo \"- step $n\" >> .switchboard/progress.md; \
         if [ $n = 3 ]; then echo LOOP_COMPLETE >> .switchboard/progress.md; fi; echo \"did step $n\"",
    )
    .await;
    let started = t.engine.start_loop(profile.id.clone(), LoopSettings::new("Make the tests pass")).await.unwrap();
    let ended = t.loop_ends(&started.id).await;
    let LoopState::Complete { why, .. } = &ended.state else { panic!("{ended:#?}") };
    assert_eq!(why, &Completion::StopWord { word: "LOOP_COMPLETE".into() });
    assert_eq!(ended.iterations_run(), 3);
    assert_eq!(sessions_of(&ended).len(), 3, "three sessions");
    let pids: std::collections::BTreeSet<u32> = t
        .engine
        .list_events(None)
        .await
        .unwrap()
        .iter()
        .filter_map(|e| match e.kind {
            switchboard_core::LogKind::SessionStarted { pid }
                if e.session_id.as_ref().is_some_and(|s| sessions_of(&ended).contains(s)) =>
            {
                Some(pid)
            }
            _ => None,
        })
        .collect();
    assert_eq!(pids.len(), 3, "three processes");
    assert_eq!(ended.stop_reasons(), ["did step 1", "did step 2", "did step 3"]);
    let anchor = std::fs::read_to_string(t.workspace.join(".switchboard/anchor.md")).unwrap();
    assert!(anchor.contains("Make the tests pass"), "{anchor}");

    // The loop's own flows: two fresh sessions after "continue", then complete; each
    // iteration's end judged (these agents have no hooks: their judgment walks the way).
    let view = t.engine.flow_view(FlowTarget::Loop { loop_id: started.id.clone() }, None).await.unwrap();
    let diagram = |id: DiagramId| view.diagrams.iter().find(|d| d.diagram == id).unwrap().clone();
    let loop_mode = diagram(DiagramId::LoopMode);
    assert_eq!(loop_mode.current, ["complete"]);
    let path: Vec<&str> = loop_mode.path.iter().map(|s| s.node.as_str()).collect();
    assert_eq!(path, ["none", "active", "continue", "active", "continue", "active", "complete"]);
    let respawned = loop_mode.edges.iter().find(|e| e.from == "continue" && e.to == "active").unwrap();
    assert_eq!(respawned.count, 2, "spawn fresh session, twice");
    let judged =
        diagram(DiagramId::StopEvent).edges.iter().find(|e| e.from == "loop_active" && e.to == "judge").unwrap().count;
    assert_eq!(judged, 3);
    // Three sessions started and ended in the status flow of the loop.
    let status = diagram(DiagramId::AgentStatus);
    assert_eq!(status.path.iter().filter(|s| s.node == "session_start").count(), 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_loop_that_never_finishes_stops_at_its_cap_each_iteration_a_fresh_process() {
    let t = TestEngine::start().await;
    let profile = t.looping_profile("[{ say = \"tried something else\" }, { exit = 0 }]").await;
    // Different stop reasons each time would be needed to avoid a stall: the
    // cap comes first here (stall after 5, cap 4).
    let settings = LoopSettings { max_iterations: 4, ..LoopSettings::new("Make the tests pass") };
    let started = t.engine.start_loop(profile.id.clone(), settings).await.unwrap();
    let ended = t.loop_ends(&started.id).await;
    assert!(matches!(ended.state, LoopState::Complete { why: Completion::MaxIterations { max: 4 }, .. }), "{ended:#?}");
    assert_eq!(ended.iterations_run(), 4);
    assert_eq!(sessions_of(&ended).len(), 4, "four sessions, four processes");
    let numbers: Vec<u32> = ended.iterations.iter().map(|i| i.number).collect();
    assert_eq!(numbers, [1, 2, 3, 4]);
    assert_eq!(ended.iteration_count, 4);
    // Older iterations are read a page at a time.
    let older = t.engine.loop_iterations(started.id.clone(), 3, 10).await.unwrap();
    assert_eq!(older.iter().map(|i| (i.seq, i.number)).collect::<Vec<_>>(), [(1, 1), (2, 2)]);
    assert!(ended.iterations.iter().all(|i| matches!(&i.outcome, IterationOutcome::Ended { stop_reason, .. } if stop_reason.contains("tried something else"))));
    // Nothing more is queued after it.
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    assert!(t.engine.list_tasks(Some(profile.id.clone())).await.unwrap().iter().all(|t| t.state.is_finished()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_same_stop_reason_again_and_again_stalls_the_loop_which_can_resume_or_be_cancelled() {
    let t = TestEngine::start().await;
    let profile = t.looping_profile("[{ say = \"error: 3 tests fail\" }, { exit = 0 }]").await;
    // The defaults: at most 10, stalled after 5 identical stop reasons.
    let started = t.engine.start_loop(profile.id.clone(), LoopSettings::new("Make the tests pass")).await.unwrap();
    let ended = t.loop_ends(&started.id).await;
    let LoopState::Stalled { repeated, reason, .. } = &ended.state else { panic!("{ended:#?}") };
    assert_eq!(*repeated, 5);
    assert_eq!(ended.iterations_run(), 5);
    assert!(reason.contains("error: 3 tests fail"), "{reason}");
    // The user is told once, by the notification the desktop shell shows.
    let mut notices = switchboard_client::notice::Notices::default();
    let told: Vec<_> = t.events_now().await.iter().filter_map(|event| notices.apply(event)).collect();
    let about_loop: Vec<_> = told
        .iter()
        .filter(|n| n.target == switchboard_client::notice::NoticeTarget::Loop(started.id.clone()))
        .collect();
    assert_eq!(about_loop.len(), 1, "{told:#?}");
    assert_eq!(about_loop[0].title, "Loop stalled");
    // The tray counts the agent as stalled, from the engine's word on its attention.
    t.events
        .wait_for("the tray to count the stalled agent", |events| {
            let mut tray = switchboard_client::notice::Notices::default();
            for event in events {
                tray.apply(event);
            }
            (tray.counts().stalled == 1).then_some(())
        })
        .await;
    // A stalled loop still holds its agent: a second loop is refused until it is resumed or cancelled.
    let refused = t.engine.start_loop(profile.id.clone(), LoopSettings::new("Rewrite the docs")).await;
    refused_in_words(&refused.expect_err("the stalled loop holds the agent"), "looper", "stalled loop");
    // The error came back three times: it is a guardrail now.
    let guardrails = std::fs::read_to_string(t.workspace.join(".switchboard/guardrails.md")).unwrap();
    assert!(guardrails.contains("error: 3 tests fail"), "{guardrails}");

    // The user reads the loop's files and corrects its guardrails before resuming.
    let files = t.engine.loop_files(started.id.clone()).await.unwrap();
    assert!(files.anchor.unwrap().contains("Make the tests pass"));
    assert!(files.guardrails.unwrap().contains("error: 3 tests fail"));
    assert_eq!(files.progress, None, "the agent wrote no notes");
    let mine = "# Guardrails\n\n- Run the tests one by one before changing them.\n";
    let saved =
        t.engine.save_loop_file(started.id.clone(), switchboard_core::LoopFile::Guardrails, mine.into()).await.unwrap();
    assert_eq!(saved.guardrails.as_deref(), Some(mine));
    assert_eq!(std::fs::read_to_string(t.workspace.join(".switchboard/guardrails.md")).unwrap(), mine);
    let too_long = "x".repeat(switchboard_core::MAX_LOOP_FILE_BYTES + 1);
    let refused = t.engine.save_loop_file(started.id.clone(), switchboard_core::LoopFile::Anchor, too_long).await;
    assert_eq!(refused.unwrap_err().field(), Some("text"));

    let resumed = t.engine.resume_loop(started.id.clone()).await.unwrap();
    assert!(resumed.is_active());
    let cancelled = t.engine.cancel_loop(started.id.clone()).await.unwrap();
    assert!(matches!(cancelled.state, LoopState::Cancelled { .. }));
    let refused = t.engine.cancel_loop(started.id.clone()).await.unwrap_err();
    assert_eq!(refused.field(), Some("loop_id"));
}

/// A shell agent for loops: ready at `agent> `, it counts its runs in
/// `runs` (each iteration is a fresh process, so the count is the loop's),
/// then runs `body` with `$n` the run's number, and exits.
async fn counting_profile(t: &TestEngine, name: &str, body: &str) -> switchboard_core::Profile {
    let script = format!(
        "printf 'agent> '; read -r line; n=$(( $(cat runs 2>/dev/null || echo 0) + 1 )); echo $n > runs; {body}"
    );
    let spec = switchboard_core::ProfileSpec {
        ready_pattern: Some("agent> $".into()),
        ready_quiet_ms: 50,
        ..t.spec(name, "sh", &["-c", &script])
    };
    t.engine.create_profile(spec).await.unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_promise_kept_at_the_second_iteration_ends_the_loop_even_wrapped_by_the_terminal() {
    let t = TestEngine::start().await;
    // The second run keeps the promise at the end of a line longer than the
    // terminal is wide: the screen wraps it across two rows.
    let padding = "x".repeat(70);
    let profile = counting_profile(
        &t,
        "promiser",
        &format!("if [ $n -ge 2 ]; then echo \"{padding} <promise>ALL TESTS GREEN</promise>\"; else echo 'two tests still fail'; fi"),
    )
    .await;
    let settings = LoopSettings { promise: Some("ALL TESTS GREEN".into()), ..LoopSettings::new("Make the tests pass") };
    let started = t.engine.start_loop(profile.id.clone(), settings).await.unwrap();
    let ended = t.loop_ends(&started.id).await;
    assert!(
        matches!(&ended.state, LoopState::Complete { why: Completion::Promise { text }, .. } if text == "ALL TESTS GREEN"),
        "{ended:#?}"
    );
    assert_eq!(ended.iterations_run(), 2);
    assert_eq!(sessions_of(&ended).len(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancelling_mid_iteration_ends_the_agent_and_nothing_more_runs() {
    let t = TestEngine::start().await;
    let profile = counting_profile(&t, "sleeper", "echo working; touch at-work; exec sleep 1000").await;
    let started = t.engine.start_loop(profile.id.clone(), LoopSettings::new("Make the tests pass")).await.unwrap();
    let at_work = t.workspace.join("at-work");
    wait_until("the first iteration is at work", || at_work.exists()).await;
    let running = t.engine.get_loop(started.id.clone()).await.unwrap();
    let session = running.iterations[0].session_id.clone().expect("its session");
    let pid = pid_of(&t.engine.list_sessions().await.unwrap().into_iter().find(|s| s.id == session).unwrap());

    let cancelled = t.engine.cancel_loop(started.id.clone()).await.unwrap();
    assert!(matches!(cancelled.state, LoopState::Cancelled { .. }));
    assert!(matches!(cancelled.iterations[0].outcome, IterationOutcome::Interrupted { .. }), "{cancelled:#?}");
    t.wait_for_end(&session).await;
    wait_until("the agent is gone", || !process_exists(pid)).await;
    // Its task is cancelled, and no next iteration comes.
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    let tasks = t.engine.list_tasks(Some(profile.id.clone())).await.unwrap();
    assert_eq!(tasks.len(), 1, "{tasks:#?}");
    assert_eq!(tasks[0].state, switchboard_core::TaskState::Cancelled);
    // The iteration is the loop's to run again: nothing is offered for it by hand, and a
    // requeue of it is refused in words.
    assert!(tasks[0].actions.is_empty(), "{:?}", tasks[0].actions);
    let refused = t.engine.requeue_task(tasks[0].id.clone()).await.unwrap_err();
    assert_eq!(refused.code(), switchboard_core::ErrorCode::TaskState, "{refused}");
    assert!(refused.to_string().contains("a loop runs its own iterations"), "{refused}");
    let after = t.engine.get_loop(started.id.clone()).await.unwrap();
    assert_eq!(after, cancelled, "nothing changed after the cancel");
    assert_eq!(std::fs::read_to_string(t.workspace.join("runs")).unwrap().trim(), "1");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_app_resumes_its_loop_at_the_interrupted_iteration_and_the_cap_holds() {
    use std::io::{BufRead, BufReader};
    let temp = tempfile::tempdir().unwrap();
    let work = temp.path().join("work");
    // Run 2 hangs (the app is killed during it); every other run reports and exits.
    let script = "printf 'agent> '; read -r line; n=$(( $(cat runs 2>/dev/null || echo 0) + 1 )); echo $n > runs; \
                  if [ $n = 2 ]; then echo $$ > hung.pid; exec sleep 1000; fi; echo \"finished run $n\"";
    let mut host = std::process::Command::new(ENGINE_HOST)
        .arg(temp.path())
        .args(["sh", "-c", script])
        .env("HOST_LOOP", "2")
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(host.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let loop_id: switchboard_core::LoopId =
        line.trim().strip_prefix("loop ").expect("the host prints the loop").parse().unwrap();
    let hung = work.join("hung.pid");
    wait_until("the second iteration is at work", || hung.exists()).await;
    let hung_pid: u32 = std::fs::read_to_string(&hung).unwrap().trim().parse().unwrap();
    host.kill().unwrap(); // SIGKILL, mid-iteration
    host.wait().unwrap();

    let t = TestEngine::start_in(temp.path(), |_| {}).await;
    wait_until("the hung agent of the killed app is reaped", || !process_exists(hung_pid)).await;
    let ended = t.loop_ends(&loop_id).await;
    // Iteration 2 was interrupted and run again; it counts once, and the cap of 2 holds.
    assert!(matches!(ended.state, LoopState::Complete { why: Completion::MaxIterations { max: 2 }, .. }), "{ended:#?}");
    assert_eq!(ended.iterations_run(), 2);
    let outcomes: Vec<(u32, &str)> = ended.iterations.iter().map(|i| (i.number, i.outcome.as_str())).collect();
    assert_eq!(outcomes, [(1, "ended"), (2, "interrupted"), (2, "ended")]);
    let IterationOutcome::Ended { stop_reason, .. } = &ended.iterations[2].outcome else { unreachable!() };
    assert!(stop_reason.contains("finished run 3"), "the rerun is a fresh process: {stop_reason}");
    assert_eq!(std::fs::read_to_string(work.join("runs")).unwrap().trim(), "3", "three processes, no more");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_that_stays_at_its_prompt_ends_each_iteration_when_its_prompt_returns() {
    let t = TestEngine::start().await;
    // No hooks, and it does not exit: it answers and shows its prompt again.
    let profile = t.looping_profile("[{ say = \"checked the build: still red\" }]").await;
    let settings = LoopSettings { max_iterations: 2, ..LoopSettings::new("Make the build green") };
    let started = t.engine.start_loop(profile.id.clone(), settings).await.unwrap();
    let ended = t.loop_ends(&started.id).await;
    assert!(matches!(ended.state, LoopState::Complete { why: Completion::MaxIterations { max: 2 }, .. }), "{ended:#?}");
    assert_eq!(sessions_of(&ended).len(), 2, "each iteration a fresh process");
    for iteration in &ended.iterations {
        let IterationOutcome::Ended { stop_reason, .. } = &iteration.outcome else { panic!("{ended:#?}") };
        assert!(stop_reason.contains("checked the build: still red"), "{stop_reason}");
        assert!(!stop_reason.contains("Make the build green"), "the echoed prompt is not the agent's: {stop_reason}");
        assert!(!stop_reason.contains("agent>"), "nor the prompt it is back at: {stop_reason}");
    }
    // Each iteration's process was ended by the app, not left at its prompt.
    for session in sessions_of(&ended) {
        t.wait_for_end(&session).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_loop_on_an_agent_with_an_open_loop_is_refused_and_the_first_keeps_its_files() {
    let t = TestEngine::start().await;
    let profile = counting_profile(&t, "busy", "echo working; touch at-work; exec sleep 1000").await;
    let first = t.engine.start_loop(profile.id.clone(), LoopSettings::new("Make the tests pass")).await.unwrap();
    wait_until("the first loop is at work", || t.workspace.join("at-work").exists()).await;

    let second = t.engine.start_loop(profile.id.clone(), LoopSettings::new("Rewrite the docs")).await;
    let refused = second.expect_err("one loop per agent at a time");
    let anchor = std::fs::read_to_string(t.workspace.join(".switchboard/anchor.md")).unwrap();
    assert!(anchor.contains("Make the tests pass") && !anchor.contains("Rewrite the docs"), "{anchor}");
    let loops = t.engine.list_loops().await.unwrap();
    assert_eq!(loops.len(), 1, "{loops:#?}");
    refused_in_words(&refused, "busy", "already runs a loop");

    // Once the first ends, a new one may start.
    t.engine.cancel_loop(first.id.clone()).await.unwrap();
    t.engine.start_loop(profile.id.clone(), LoopSettings::new("Rewrite the docs")).await.unwrap();
}

/// The refusal says, in the user's words, which agent and why, under its own code.
fn refused_in_words(error: &switchboard_client::ClientError, agent: &str, why: &str) {
    let switchboard_client::ClientError::Api(api) = error else { panic!("not the engine's refusal: {error}") };
    assert_eq!(serde_json::to_value(api.code).unwrap(), "loop_busy", "{api:?}");
    assert!(api.message.starts_with(agent) && api.message.contains(why), "{}", api.message);
    assert!(!api.message.contains('-') && !api.message.contains('_'), "no ids, no field names: {}", api.message);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_that_exits_before_it_is_typed_to_fails_to_start_after_spaced_attempts_none_counted() {
    let t = TestEngine::start().await;
    // It never shows its prompt: it says why and exits at once.
    let spec = switchboard_core::ProfileSpec {
        ready_pattern: Some("agent> $".into()),
        ready_quiet_ms: 50,
        ..t.spec("keyless", "sh", &["-c", "echo 'no API key set'; exit 3"])
    };
    let profile = t.engine.create_profile(spec).await.unwrap();
    let started = t.engine.start_loop(profile.id.clone(), LoopSettings::new("Make the tests pass")).await.unwrap();
    let ended = t.loop_ends(&started.id).await;
    assert_eq!(ended.state.as_str(), "failed_to_start", "{ended:#?}");
    assert_eq!(ended.iterations_run(), 0, "a failed start is not an iteration");
    let LoopState::FailedToStart { attempts, exit, said, .. } = &ended.state else { unreachable!() };
    assert_eq!(*attempts, MAX_FAILED_STARTS);
    assert_eq!(exit, "it exited with code 3");
    assert!(said.contains("no API key set"), "what the agent said is kept: {said}");

    // Each attempt is recorded under the same number, and each waited longer than the one before.
    assert_eq!(ended.iteration_count, MAX_FAILED_STARTS);
    let mut failed_at = Vec::new();
    for iteration in &ended.iterations {
        let IterationOutcome::FailedStart { at, .. } = &iteration.outcome else { panic!("{ended:#?}") };
        assert_eq!(iteration.number, 1, "no number is used up");
        failed_at.push((iteration.started_at, *at));
    }
    for (k, pair) in failed_at.windows(2).enumerate() {
        let waited = pair[1].0 - pair[0].1;
        assert!(
            waited >= FIRST_START_RETRY_MS << k,
            "attempt {} started {waited} ms after the one before failed",
            k + 2
        );
    }

    // Its tasks failed, saying why; the queue was not paused and nothing more is queued.
    let tasks = t.engine.list_tasks(Some(profile.id.clone())).await.unwrap();
    assert_eq!(tasks.len(), MAX_FAILED_STARTS as usize, "{tasks:#?}");
    assert!(tasks.iter().all(|t| t.state == switchboard_core::TaskState::Failed));
    let queue = t.engine.list_queues().await.unwrap().into_iter().find(|q| q.profile_id == profile.id).unwrap();
    assert!(!queue.paused && !queue.executing && queue.queued == 0, "{queue:?}");

    // The user is told once, in words, as for a stalled loop.
    let mut notices = switchboard_client::notice::Notices::default();
    let told: Vec<_> = t.events_now().await.iter().filter_map(|event| notices.apply(event)).collect();
    let about_loop: Vec<_> = told
        .iter()
        .filter(|n| n.target == switchboard_client::notice::NoticeTarget::Loop(started.id.clone()))
        .collect();
    assert_eq!(about_loop.len(), 1, "{told:#?}");
    assert_eq!(about_loop[0].title, "Loop failed to start");
    assert_eq!(
        about_loop[0].body,
        "keyless could not start “Make the tests pass”: its agent ended before it could be given the work, \
         4 times in a row (it exited with code 3): no API key set"
    );
    // Not stuck on the agent: another loop may start.
    t.engine.start_loop(profile.id.clone(), LoopSettings::new("Try again")).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_whose_program_is_gone_fails_to_start_its_loop_instead_of_pausing_it_for_ever() {
    let t = TestEngine::start().await;
    let program = t.workspace.join("agent.sh");
    std::fs::write(&program, "#!/bin/sh\nprintf 'agent> '; read -r line; echo done\n").unwrap();
    std::fs::set_permissions(&program, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let spec = switchboard_core::ProfileSpec {
        ready_pattern: Some("agent> $".into()),
        ready_quiet_ms: 50,
        ..t.spec("moved", program.to_str().unwrap(), &[])
    };
    let profile = t.engine.create_profile(spec).await.unwrap();
    std::fs::remove_file(&program).unwrap();

    let started = t.engine.start_loop(profile.id.clone(), LoopSettings::new("Make the tests pass")).await.unwrap();
    let ended = t.loop_ends(&started.id).await;
    let LoopState::FailedToStart { attempts, exit, .. } = &ended.state else { panic!("{ended:#?}") };
    assert_eq!(*attempts, MAX_FAILED_STARTS);
    assert!(exit.contains("agent.sh"), "it says what could not start: {exit}");
    assert_eq!(ended.iterations_run(), 0);
    let queue = t.engine.list_queues().await.unwrap().into_iter().find(|q| q.profile_id == profile.id).unwrap();
    assert!(!queue.paused, "the loop said why; its agent's queue is not left paused");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn iteration_tasks_are_named_after_the_goal_not_the_prompt() {
    let t = TestEngine::start().await;
    let profile = counting_profile(&t, "namer", "echo \"did step $n\"").await;
    let goal = "Make the tests pass\nand keep the docs in step";
    let settings = LoopSettings { max_iterations: 2, ..LoopSettings::new(goal) };
    let started = t.engine.start_loop(profile.id.clone(), settings).await.unwrap();
    t.loop_ends(&started.id).await;
    let mut titles: Vec<String> =
        t.engine.list_tasks(Some(profile.id.clone())).await.unwrap().iter().map(|t| t.spec.title()).collect();
    titles.sort();
    assert_eq!(titles, ["Make the tests pass · iteration 1", "Make the tests pass · iteration 2"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deleted_anchor_is_written_again_from_the_goal_and_the_loop_goes_on() {
    let t = TestEngine::start().await;
    // Each run says whether it found the anchor, then deletes it.
    let profile = counting_profile(
        &t,
        "careless",
        "if [ -f .switchboard/anchor.md ]; then echo \"anchor found\"; else echo \"anchor missing\"; fi; \
         rm -f .switchboard/anchor.md",
    )
    .await;
    let settings = LoopSettings { max_iterations: 3, ..LoopSettings::new("Make the tests pass") };
    let started = t.engine.start_loop(profile.id.clone(), settings).await.unwrap();
    let ended = t.loop_ends(&started.id).await;
    assert!(matches!(ended.state, LoopState::Complete { why: Completion::MaxIterations { max: 3 }, .. }), "{ended:#?}");
    assert_eq!(ended.stop_reasons(), ["anchor found", "anchor found", "anchor found"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_loop_whose_folder_is_removed_stops_saying_why_and_resumes_once_it_is_back() {
    let t = TestEngine::start().await;
    let folder = t.workspace.join("project");
    std::fs::create_dir(&folder).unwrap();
    // The first run removes its own folder; a run after that works.
    let script = "printf 'agent> '; read -r line; \
                  if [ -f ../removed ]; then echo 'back at work'; else touch ../removed; cd ..; rm -rf project; echo 'folder removed'; fi";
    let spec = switchboard_core::ProfileSpec {
        ready_pattern: Some("agent> $".into()),
        ready_quiet_ms: 50,
        cwd: folder.display().to_string(),
        ..t.spec("remover", "sh", &["-c", script])
    };
    let profile = t.engine.create_profile(spec).await.unwrap();
    let settings = LoopSettings { max_iterations: 2, ..LoopSettings::new("Make the tests pass") };
    let started = t.engine.start_loop(profile.id.clone(), settings).await.unwrap();
    let stopped = t.loop_ends(&started.id).await;
    let LoopState::WorkspaceGone { path, .. } = &stopped.state else { panic!("{stopped:#?}") };
    assert!(path.ends_with("project"), "{path}");
    assert!(stopped.state.reason().unwrap().contains("is gone"), "{:?}", stopped.state.reason());
    assert!(t.engine.list_tasks(Some(profile.id.clone())).await.unwrap().iter().all(|t| t.state.is_finished()));

    // The user is told, in words.
    let mut notices = switchboard_client::notice::Notices::default();
    let told: Vec<_> = t.events_now().await.iter().filter_map(|event| notices.apply(event)).collect();
    let about_loop: Vec<_> = told
        .iter()
        .filter(|n| n.target == switchboard_client::notice::NoticeTarget::Loop(started.id.clone()))
        .collect();
    assert_eq!(about_loop.len(), 1, "{told:#?}");
    assert_eq!(about_loop[0].title, "Loop stopped: its folder is gone");
    assert!(about_loop[0].body.contains("project is gone"), "{}", about_loop[0].body);

    // Its agent's attention says so too: stalled on that loop, with why.
    let attention = t.engine.list_attention().await.unwrap();
    let remover = attention.iter().find(|a| a.profile_id == profile.id).expect("the agent's attention");
    let switchboard_core::Attention::Stalled { stall: switchboard_api::Stall::Loop { loop_id, reason, .. }, .. } =
        &remover.attention
    else {
        panic!("{remover:#?}")
    };
    assert_eq!(loop_id, &started.id);
    assert!(reason.contains("project is gone"), "{reason}");

    // Still gone: resuming is refused, saying so, and nothing changes.
    let refused = t.engine.resume_loop(started.id.clone()).await.unwrap_err();
    assert_eq!(serde_json::to_value(refused.code()).unwrap(), "directory_missing", "{refused:?}");
    assert_eq!(t.engine.get_loop(started.id.clone()).await.unwrap().state, stopped.state);
    // It still holds its agent.
    assert!(t.engine.start_loop(profile.id.clone(), LoopSettings::new("Something else")).await.is_err());

    // Back: the loop resumes, its anchor written again, and runs to its cap.
    std::fs::create_dir(&folder).unwrap();
    assert!(t.engine.resume_loop(started.id.clone()).await.unwrap().is_active());
    let ended = t
        .events
        .wait_for("the resumed loop to end", |events| {
            events.iter().rev().find_map(|e| match e {
                EngineEvent::LoopChanged { info }
                    if info.id == started.id && matches!(info.state, LoopState::Complete { .. }) =>
                {
                    Some(info.clone())
                }
                _ => None,
            })
        })
        .await;
    assert!(matches!(ended.state, LoopState::Complete { why: Completion::MaxIterations { max: 2 }, .. }), "{ended:#?}");
    // The first iteration ends by the agent's last words or by the engine seeing its folder go,
    // whichever the engine takes in first (the folder is gone before the agent says so).
    let reasons = ended.stop_reasons();
    assert_eq!(reasons.len(), 2, "{reasons:?}");
    assert!(reasons[0] == "folder removed" || reasons[0].ends_with("project is gone"), "{reasons:?}");
    assert_eq!(reasons[1], "back at work");
    let anchor = std::fs::read_to_string(folder.join(".switchboard/anchor.md")).unwrap();
    assert!(anchor.contains("Make the tests pass"), "{anchor}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_folder_deleted_while_an_iteration_runs_stops_the_loop_at_once_and_ends_its_agent() {
    let t = TestEngine::start().await;
    let folder = t.workspace.join("project");
    std::fs::create_dir(&folder).unwrap();
    // It works on and on (for longer than any test) in its folder.
    let script = "printf 'agent> '; read -r line; echo working; touch ../at-work; exec sleep 1000";
    let spec = switchboard_core::ProfileSpec {
        ready_pattern: Some("agent> $".into()),
        ready_quiet_ms: 50,
        cwd: folder.display().to_string(),
        ..t.spec("dweller", "sh", &["-c", script])
    };
    let profile = t.engine.create_profile(spec).await.unwrap();
    let started = t.engine.start_loop(profile.id.clone(), LoopSettings::new("Make the tests pass")).await.unwrap();
    wait_until("the iteration is at work", || t.workspace.join("at-work").exists()).await;
    let session = t.engine.get_loop(started.id.clone()).await.unwrap().iterations[0].session_id.clone().unwrap();

    std::fs::remove_dir_all(&folder).unwrap();
    let stopped = t.loop_ends(&started.id).await;
    assert!(
        matches!(&stopped.state, LoopState::WorkspaceGone { path, .. } if path.ends_with("project")),
        "{stopped:#?}"
    );
    t.wait_for_end(&session).await;
    let tasks = t.engine.list_tasks(Some(profile.id.clone())).await.unwrap();
    assert!(tasks.iter().all(|t| t.state.is_finished()), "{tasks:#?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_iteration_put_back_by_a_restart_runs_again_under_its_number_and_the_cut_one_does_not_count() {
    let t = TestEngine::start().await;
    // The first run works on and on; the runs after it finish.
    let profile = counting_profile(
        &t,
        "restarted",
        "if [ $n = 1 ]; then echo working; touch at-work; exec sleep 1000; fi; echo \"finished run $n\"",
    )
    .await;
    let settings = LoopSettings { max_iterations: 1, ..LoopSettings::new("Make the tests pass") };
    let started = t.engine.start_loop(profile.id.clone(), settings).await.unwrap();
    wait_until("the first iteration is at work", || t.workspace.join("at-work").exists()).await;
    let session = t.engine.get_loop(started.id.clone()).await.unwrap().iterations[0].session_id.clone().unwrap();

    let choice = Some(switchboard_core::RestartTask::Requeue);
    t.engine.restart_session(session.clone(), switchboard_core::TermSize::DEFAULT, choice).await.unwrap();
    let ended = t.loop_ends(&started.id).await;
    assert!(matches!(ended.state, LoopState::Complete { why: Completion::MaxIterations { max: 1 }, .. }), "{ended:#?}");
    let outcomes: Vec<(u32, &str)> = ended.iterations.iter().map(|i| (i.number, i.outcome.as_str())).collect();
    assert_eq!(outcomes, [(1, "interrupted"), (1, "ended")]);
    assert_eq!(ended.stop_reasons(), ["finished run 2"]);
}
