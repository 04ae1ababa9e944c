//! One attention per agent, worked out by the engine: an agent whose question
//! waits, one whose task went quiet, one whose task failed, each read the
//! same from the engine's list, the overview's rows and the tray's counts,
//! with real agents in real PTYs.

use crate::support;

use support::*;
use switchboard_client::notice::{Notices, TrayCounts};
use switchboard_core::{AgentAttention, Attention, EngineEvent, ProfileSpec, TaskSpec, TaskState, Viewing};

/// The latest attention the engine reported for each agent.
fn reported(events: &[EngineEvent]) -> std::collections::BTreeMap<switchboard_core::ProfileId, Attention> {
    events
        .iter()
        .filter_map(|event| match event {
            EngineEvent::AttentionChanged { profile_id, attention } => Some((profile_id.clone(), attention.clone())),
            _ => None,
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_question_a_quiet_task_and_a_failure_read_the_same_everywhere() {
    let t = TestEngine::start().await;
    // Asks a question as it starts, then echoes what it is typed.
    let question =
        "printf '[CLARIFICATION_NEEDED]\\nquestions:\\n  - Which database?\\n[/CLARIFICATION_NEEDED]\\n'; exec cat";
    let asker = t.engine.create_profile(ProfileSpec { ready_quiet_ms: 50, ..t.spec("Asker", "sh", &["-c", question]) });
    let asker = asker.await.unwrap();
    // Echoes its task, then prints nothing: it may be stuck.
    let quiet = ProfileSpec { ready_quiet_ms: 50, quiet_alert_secs: 1, ..t.spec("Quiet", "cat", &[]) };
    let quiet = t.engine.create_profile(quiet).await.unwrap();
    // Crashes on its first task.
    let failing = ProfileSpec {
        ready_pattern: Some("demo> $".into()),
        ready_quiet_ms: 50,
        ..t.spec("Failing", DEMO_AGENT, &["--crash-on-task", "1", "--speed", "fast"])
    };
    let failing = t.engine.create_profile(failing).await.unwrap();

    t.engine.start_session(asker.id.clone(), Default::default()).await.unwrap();
    let stuck = t.engine.submit_task(TaskSpec::new(quiet.id.clone(), "Port the parser")).await.unwrap().task;
    let first = t.engine.submit_task(TaskSpec::new(failing.id.clone(), "Write the docs")).await.unwrap().task;
    let doomed = t.engine.submit_task(TaskSpec::new(failing.id.clone(), "Write the tests")).await.unwrap().task;

    let settled = t
        .events
        .wait_for("each agent's attention", |events| {
            let now = reported(events);
            let states = (now.get(&asker.id)?, now.get(&quiet.id)?, now.get(&failing.id)?);
            matches!(
                states,
                (Attention::NeedsYou { .. }, Attention::Stalled { .. }, Attention::Failed { count: 2, .. })
            )
            .then_some(now)
        })
        .await;

    // The engine's list and the overview's rows say the same as its events.
    let listed: Vec<AgentAttention> = t.engine.list_attention().await.unwrap();
    for agent in &listed {
        assert_eq!(Some(&agent.attention), settled.get(&agent.profile_id), "{agent:?}");
    }
    let overview = t.engine.flow_overview().await.unwrap();
    for row in &overview.agents {
        assert_eq!(Some(&row.attention), settled.get(&row.profile_id), "{}", row.name);
    }
    // What each says, in the user's terms.
    match &settled[&asker.id] {
        Attention::NeedsYou { need, waiting, .. } => {
            assert_eq!(need, &switchboard_api::Need::Question { questions: 1, first: "Which database?".into() });
            assert_eq!(*waiting, 1);
        }
        other => panic!("{other:?}"),
    }
    match &settled[&quiet.id] {
        Attention::Stalled { stall: switchboard_api::Stall::Quiet { task_id, task }, .. } => {
            assert_eq!((task_id, task.as_str()), (&stuck.id, "Port the parser"));
        }
        other => panic!("{other:?}"),
    }
    match &settled[&failing.id] {
        // Both failures, the latest named.
        Attention::Failed { count, task_id, task, reason, .. } => {
            assert_eq!((*count, task_id, task.as_str()), (2, &doomed.id, "Write the tests"));
            assert!(reason.as_deref().is_some_and(|r| r.contains("exited")), "{reason:?}");
        }
        other => panic!("{other:?}"),
    }
    // The tray, following the same events, counts the same agents.
    let mut tray = Notices::default();
    for event in t.events_now().await {
        tray.apply(&event);
    }
    assert_eq!(tray.counts(), TrayCounts { needs_you: 1, stalled: 1, failed: 1, ..TrayCounts::default() });

    // The user opens the failing agent in the focused window: its failures
    // are seen, and it reads as stopped, saying its last run's task failed.
    let viewing = Viewing { profile_id: Some(failing.id.clone()), task_id: None, focused: true };
    t.engine.set_viewing(viewing).await.unwrap();
    let listed = t.engine.list_attention().await.unwrap();
    let now = &listed.iter().find(|a| a.profile_id == failing.id).unwrap().attention;
    assert!(matches!(now, Attention::Stopped { failed: 1, ended: Some(_), .. }), "{now:?}");
    let mut tray = Notices::default();
    for event in t.events_now().await {
        tray.apply(&event);
    }
    assert_eq!(tray.counts(), TrayCounts { needs_you: 1, stalled: 1, ..TrayCounts::default() });

    // The question dismissed: it no longer needs the user.
    let signal = t.engine.list_signals().await.unwrap().into_iter().find(|s| s.profile_id == asker.id).unwrap();
    t.engine.respond_to_signal(signal.id, switchboard_core::SignalResponse::Dismiss).await.unwrap();
    let after = t.engine.list_attention().await.unwrap();
    let asker_now = &after.iter().find(|a| a.profile_id == asker.id).unwrap().attention;
    assert!(matches!(asker_now, Attention::Idle { .. }), "{asker_now:?}");
    assert_eq!(t.engine.get_task(first.id).await.unwrap().state, TaskState::Failed);
}

/// Each agent started reads as running, one after another or several at
/// once (the grid's Start buttons, a launch): a session's start and end
/// change its agent's attention however quiet the agent is after it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_agent_started_reads_as_running_one_after_another_or_together() {
    let t = TestEngine::start().await;
    let mut agents = Vec::new();
    for name in ["One", "Two", "Three", "Four", "Five"] {
        // Prints nothing and reports nothing: only its start can change how it reads.
        agents.push(t.engine.create_profile(t.spec(name, "cat", &[])).await.unwrap());
    }
    let idle = |agent: &switchboard_core::Profile| {
        let id = agent.id.clone();
        move |events: &[EngineEvent]| matches!(reported(events).get(&id), Some(Attention::Idle { .. })).then_some(())
    };
    let mut sessions = Vec::new();
    for agent in &agents[..2] {
        sessions.push(t.engine.start_session(agent.id.clone(), Default::default()).await.unwrap());
        t.events.wait_for(&format!("{} read as running", agent.spec.name), idle(agent)).await;
    }
    let starts: Vec<_> = agents[2..]
        .iter()
        .map(|agent| {
            let engine = t.engine.clone();
            let id = agent.id.clone();
            tokio::spawn(async move { engine.start_session(id, Default::default()).await.unwrap() })
        })
        .collect();
    for start in starts {
        start.await.unwrap();
    }
    for agent in &agents[2..] {
        t.events.wait_for(&format!("{} read as running", agent.spec.name), idle(agent)).await;
    }
    // Stopped, it reads as stopped again.
    t.engine.stop_session(sessions[0].id.clone()).await.unwrap();
    let first = agents[0].id.clone();
    t.events
        .wait_for("the first read as stopped", move |events| {
            matches!(reported(events).get(&first), Some(Attention::Stopped { .. })).then_some(())
        })
        .await;
}
