//! Every wait names its cause, and agents without a ready pattern or hooks
//! still take tasks and run loops: real agents in real PTYs, through the
//! engine's handle.

use crate::support;

use support::*;
use switchboard_api::WaitingFor;
use switchboard_core::loops::{Completion, LoopSettings};
use switchboard_core::{EngineEvent, IterationOutcome, LoopState, ProfileSpec, Settings, TaskId, TaskSpec};

impl TestEngine {
    /// Whether the task was ever reported waiting for `cause`.
    async fn was_waiting(&self, id: &TaskId, cause: impl Fn(&WaitingFor) -> bool) -> bool {
        self.events_now().await.iter().any(|event| match event {
            EngineEvent::TaskChanged { task } if &task.id == id => task.waiting_for.as_ref().is_some_and(&cause),
            _ => false,
        })
    }

    async fn set_turn_quiet(&self, secs: u32) {
        let settings = Settings { turn_quiet_secs: secs, ..self.engine.get_settings().await.unwrap() };
        self.engine.set_settings(settings).await.unwrap();
    }
}

/// The demo agent given a scenario whose prompt is `agent> `, while its
/// profile's ready pattern waits for the demo's own `demo> `: the task says
/// what it waits for (the screen's last line and the pattern), is flagged
/// once that wait outlasts the agent's alert, and is typed on the user's
/// word, after which it proceeds to its end.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_prompt_the_ready_pattern_does_not_see_is_named_and_type_it_now_types_the_task() {
    let t = TestEngine::start().await;
    let scenario = t.data_dir.join("other-prompt.toml");
    std::fs::write(
        &scenario,
        "prompt = \"agent> \"\n[[tasks]]\nsteps = [{ say = \"on it\" }, { summary = \"completed\" }]\n",
    )
    .unwrap();
    let spec = ProfileSpec {
        ready_pattern: Some(switchboard_core::demo::DEMO_READY_PATTERN.into()),
        ready_quiet_ms: 50,
        quiet_alert_secs: 1,
        ..t.spec("demo", DEMO_AGENT, &["--speed", "fast", "--scenario", scenario.to_str().unwrap()])
    };
    let profile = t.engine.create_profile(spec).await.unwrap();
    let id = t.engine.submit_task(TaskSpec::new(profile.id.clone(), "Say hello")).await.unwrap().task.id;

    let expected = WaitingFor::Prompt { last_line: "agent>".into(), pattern: "demo> $".into() };
    let waiting =
        t.task_until(&id, "waiting for its prompt", |task| task.waiting_for.as_ref() == Some(&expected)).await;
    assert_eq!(waiting.typed_at, None);
    // What the window and `task show --json` read.
    let shown = serde_json::to_value(t.engine.get_task(id.clone()).await.unwrap()).unwrap();
    assert_eq!(
        shown["waiting_for"],
        serde_json::json!({"cause": "prompt", "last_line": "agent>", "pattern": "demo> $"}),
        "{shown:#}"
    );
    // A wait nothing moves is flagged like a quiet agent (its alert: 1 s here).
    let flagged = t.task_until(&id, "flagged as possibly stuck", |task| task.quiet_since.is_some()).await;
    assert_eq!(flagged.waiting_for, Some(expected));

    let typed = t.engine.type_task_now(id.clone()).await.unwrap();
    assert_eq!(typed.id, id);
    // It proceeds: the agent, given the task, writes its summary.
    let ended = t.task_until(&id, "to end", |task| task.state.is_finished()).await;
    assert_eq!(ended.state, switchboard_core::TaskState::Completed, "{ended:#?}");
    assert_eq!(ended.waiting_for, None);
    // Typed once: nothing is left to type.
    let again = t.engine.type_task_now(id.clone()).await.unwrap_err();
    assert_eq!(again.code(), switchboard_core::ErrorCode::TaskState);
}

/// The README's own scenario with the demo profile's ready pattern: typed
/// without help, and it asks its question.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_demo_profile_runs_its_readme_scenario() {
    let t = TestEngine::start().await;
    let scenario = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/scenarios/clarify-then-deliver.toml");
    let spec = ProfileSpec {
        ready_pattern: Some(switchboard_core::demo::DEMO_READY_PATTERN.into()),
        ready_quiet_ms: 50,
        ..t.spec("demo", DEMO_AGENT, &["--speed", "fast", "--scenario", scenario])
    };
    let profile = t.engine.create_profile(spec).await.unwrap();
    let id = t.engine.submit_task(TaskSpec::new(profile.id.clone(), "Plan the auth work")).await.unwrap().task.id;
    // It asks: the task, typed, now waits for the user's answer, and says so.
    // (The question can be read from the terminal a moment before the
    // typing's own note arrives: both are awaited, in either order.)
    t.task_until(&id, "typed and waiting for the user", |task| {
        task.typed_at.is_some() && matches!(task.waiting_for, Some(WaitingFor::User { .. }))
    })
    .await;
    // Typed at all means its prompt was recognised: an unmatched prompt
    // holds the task until its time limit. (Whether a slow start ever left
    // a half-drawn screen quiet for the 50 ms is the machine's timing, not
    // the pattern's, so it is not asserted.)
}

/// An agent made with a blank form: no ready pattern, no hooks. A task is
/// typed once its start-up output has gone quiet (and says meanwhile that
/// it waits for that), and completes by its summary.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_is_typed_into_an_agent_without_a_ready_pattern_once_its_output_is_quiet() {
    let t = TestEngine::start().await;
    let script = "for i in 1 2 3; do echo \"loading $i\"; sleep 0.2; done; printf '> '; read -r line; echo \"got it\"; \
                  exec sleep 1000";
    let spec = ProfileSpec { ready_quiet_ms: 500, ..t.spec("plain", "sh", &["-c", script]) };
    let profile = t.engine.create_profile(spec).await.unwrap();
    let id = t.engine.submit_task(TaskSpec::new(profile.id.clone(), "Say hello")).await.unwrap().task.id;
    let typed = t.task_until(&id, "typed", |task| task.typed_at.is_some()).await;
    assert_eq!(typed.waiting_for, None);
    assert!(
        t.was_waiting(&id, |cause| cause == &WaitingFor::AgentOutput).await,
        "it said it waited for the output to settle"
    );
    let session = typed.session_id.as_ref().cloned().unwrap();
    let screen = t.engine.screen_snapshot(session, 20).await.unwrap();
    assert!(screen.screen.contains("loading 3"), "typed after its start-up output: {}", screen.screen);
    std::fs::write(t.workspace.join(format!("summaries/{id}.md")), "## Status\nCOMPLETED\n").unwrap();
    let ended = t.task_until(&id, "to end", |task| task.state.is_finished()).await;
    assert_eq!(ended.state, switchboard_core::TaskState::Completed);
}

/// A shell agent with neither a ready pattern nor hooks, that answers and
/// stays at its prompt: each iteration is over once its output has been
/// quiet (the setting), and the loop advances to its end.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_loop_advances_on_an_agent_without_a_ready_pattern_or_hooks() {
    let t = TestEngine::start().await;
    t.set_turn_quiet(1).await;
    let script = "n=$(( $(cat runs 2>/dev/null || echo 0) + 1 )); echo $n > runs; \
                  while printf '> '; read -r line; do echo \"did step $n\"; done";
    let spec = ProfileSpec { ready_quiet_ms: 50, ..t.spec("plain", "sh", &["-c", script]) };
    let profile = t.engine.create_profile(spec).await.unwrap();
    let settings = LoopSettings { max_iterations: 3, ..LoopSettings::new("Make the tests pass") };
    let started = t.engine.start_loop(profile.id.clone(), settings).await.unwrap();
    let ended = t
        .events
        .wait_for("the loop to end", |events| {
            events.iter().rev().find_map(|e| match e {
                EngineEvent::LoopChanged { info } if info.id == started.id && !info.is_active() => Some(info.clone()),
                _ => None,
            })
        })
        .await;
    assert!(matches!(ended.state, LoopState::Complete { why: Completion::MaxIterations { max: 3 }, .. }), "{ended:#?}");
    let reasons: Vec<&str> = ended
        .iterations
        .iter()
        .map(|i| match &i.outcome {
            IterationOutcome::Ended { stop_reason, .. } => stop_reason.as_str(),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(reasons.len(), 3);
    for (k, reason) in reasons.iter().enumerate() {
        assert!(reason.contains(&format!("did step {}", k + 1)), "{reason}");
    }
    let shown = t.engine.get_loop(started.id.clone()).await.unwrap();
    assert!(shown.iterations.iter().all(|i| !matches!(i.outcome, IterationOutcome::Running)), "none left running");
}

/// With quiet switched off as a turn's end, nothing could tell such an
/// agent's iteration is over: the loop is refused, in words, and nothing
/// is written or queued.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_loop_that_could_never_see_an_iteration_end_is_refused_with_the_reason() {
    let t = TestEngine::start().await;
    t.set_turn_quiet(0).await;
    let profile = t.profile("plain", "sh", &["-c", "while printf '> '; read -r line; do echo ok; done"]).await;
    let refused = t.engine.start_loop(profile.id.clone(), LoopSettings::new("Make the tests pass")).await.unwrap_err();
    let api = refused.into_api();
    assert_eq!(api.code, switchboard_core::ErrorCode::InvalidInput);
    assert!(api.message.starts_with("plain has no ready pattern and no hooks"), "{}", api.message);
    assert!(api.message.contains("ready pattern") && !api.message.contains('_'), "{}", api.message);
    assert!(!t.workspace.join(".switchboard/anchor.md").exists());
    assert!(t.engine.list_loops().await.unwrap().is_empty());
    assert!(t.engine.list_tasks(Some(profile.id.clone())).await.unwrap().is_empty());
    // A ready pattern is enough.
    let spec = ProfileSpec { ready_pattern: Some("> $".into()), ..profile.spec.clone() };
    t.engine.update_profile(profile.id.clone(), spec).await.unwrap();
    t.engine.start_loop(profile.id.clone(), LoopSettings::new("Make the tests pass")).await.unwrap();
}

/// A queued task behind a paused queue says so, with who paused it, and
/// what it waits for follows the queue as it is paused and resumed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_queued_task_names_its_paused_queue_and_the_task_ahead() {
    let t = TestEngine::start().await;
    let profile = t.profile("plain", "sh", &["-c", "while printf '> '; read -r line; do echo ok; done"]).await;
    t.engine.set_queue_paused(Some(profile.id.clone()), true).await.unwrap();
    let first = t.engine.submit_task(TaskSpec::new(profile.id.clone(), "First")).await.unwrap().task;
    assert_eq!(first.waiting_for, Some(WaitingFor::QueuePaused { reason: Some("you paused it".into()) }));
    assert_eq!(
        first.waiting_for.as_ref().map(WaitingFor::in_words).as_deref(),
        Some("its agent's queue to resume: you paused it")
    );
    let second = t.engine.submit_task(TaskSpec::new(profile.id.clone(), "Second")).await.unwrap().task.id;
    t.engine.set_queue_paused(Some(profile.id.clone()), false).await.unwrap();
    t.task_until(&first.id, "typed", |task| task.typed_at.is_some()).await;
    t.task_until(&second, "behind the first", |task| task.waiting_for == Some(WaitingFor::TaskAhead)).await;
    assert_eq!(t.engine.get_task(second.clone()).await.unwrap().waiting_for, Some(WaitingFor::TaskAhead));
}

/// A lead whose summary is written while a teammate still works: its task
/// says it waits for that teammate, and completes once the team is done.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lead_held_by_its_teammate_says_so_until_the_team_is_done() {
    let t = TestEngine::start().await;
    let spec = ProfileSpec { ready_quiet_ms: 50, ..t.spec("lead", "cat", &[]) };
    let profile = t.engine.create_profile(spec).await.unwrap();
    let id = t.engine.submit_task(TaskSpec::new(profile.id.clone(), "Lead the parser work")).await.unwrap().task.id;
    let session = t.session_of_task(&id).await;
    t.task_until(&id, "typed", |task| task.typed_at.is_some()).await;
    let hook = async |payload: serde_json::Value| {
        let envelope = switchboard_core::hook::HookEnvelope {
            session_id: Some(session.to_string()),
            env: Default::default(),
            at: 1,
            payload,
            secret: Some(switchboard_tests::session_env::secret_of(&session)),
        };
        t.engine.hook_event(envelope).await.unwrap();
    };
    hook(serde_json::json!({"hook_event_name": "PreToolUse", "session_id": "489105c7-aaaa", "tool_name": "Agent",
        "tool_use_id": "toolu_worker1", "tool_input": {"name": "worker1", "prompt": "part of it"}}))
    .await;
    std::fs::write(t.workspace.join(format!("summaries/{id}.md")), "## Status\n✅ COMPLETED\n").unwrap();
    let held = t
        .task_until(&id, "held by its teammate", |task| task.waiting_for == Some(WaitingFor::Teammates { working: 1 }))
        .await;
    assert_eq!(held.state, switchboard_core::TaskState::Running);
    hook(serde_json::json!({"hook_event_name": "Stop", "last_assistant_message": "All done.", "background_tasks": []}))
        .await;
    let ended = t.task_until(&id, "to end", |task| task.state.is_finished()).await;
    assert_eq!((ended.state, ended.waiting_for), (switchboard_core::TaskState::Completed, None));
}

/// A task whose time runs out while its prompt is unseen says so in its
/// reason: the user learns why, not only that it timed out.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_that_times_out_waiting_for_its_prompt_says_what_it_waited_for() {
    let t = TestEngine::start().await;
    let spec = ProfileSpec {
        ready_pattern: Some("demo> $".into()),
        ready_quiet_ms: 50,
        ..t.spec("other", "sh", &["-c", "printf 'agent> '; exec sleep 1000"])
    };
    let profile = t.engine.create_profile(spec).await.unwrap();
    let spec = TaskSpec { time_limit_secs: Some(2), ..TaskSpec::new(profile.id.clone(), "Say hello") };
    let id = t.engine.submit_task(spec).await.unwrap().task.id;
    let ended = t.task_until(&id, "to time out", |task| task.state.is_finished()).await;
    assert_eq!(ended.state, switchboard_core::TaskState::TimedOut);
    let reason = ended.reason.as_deref().unwrap_or_default();
    assert!(
        reason.ends_with("it waited for the agent's prompt: its screen ends with “agent>”, which the ready pattern “demo> $” does not match"),
        "{reason}"
    );
}
