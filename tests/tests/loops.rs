//! Loop mode with real agents (the demo agent in scenarios): each iteration
//! is a fresh process typed the iteration prompt; its end is judged; the
//! loop ends for a reason it names, and never runs past its cap.

mod support;

use support::*;
use switchboard_core::loops::{Completion, LoopSettings};
use switchboard_core::{EngineEvent, IterationOutcome, LoopInfo, LoopState};

impl TestEngine {
    /// Waits until the loop has ended.
    async fn loop_ends(&self, id: &switchboard_core::LoopId) -> LoopInfo {
        self.events
            .wait_for("the loop to end", |events| {
                events.iter().rev().find_map(|e| match e {
                    EngineEvent::LoopChanged { info } if &info.id == id && !info.is_active() => Some(info.clone()),
                    _ => None,
                })
            })
            .await
    }
}

fn sessions_of(info: &LoopInfo) -> std::collections::BTreeSet<switchboard_core::SessionId> {
    info.iterations.iter().filter_map(|i| i.session_id.clone()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_stop_word_in_progress_ends_the_loop() {
    let t = TestEngine::start().await;
    let profile = t
        .looping_profile(
            "[{ say = \"working\" }, { write_file = { path = \".switchboard/progress.md\", content = \"- all done\\nLOOP_COMPLETE\\n\" } }, { exit = 0 }]",
        )
        .await;
    let started = t.engine.start_loop(profile.id.clone(), LoopSettings::new("Make the tests pass")).await.unwrap();
    let ended = t.loop_ends(&started.id).await;
    assert_eq!(
        ended.state,
        LoopState::Complete {
            at: match ended.state {
                LoopState::Complete { at, .. } => at,
                _ => 0,
            },
            why: Completion::StopWord { word: "LOOP_COMPLETE".into() }
        }
    );
    assert_eq!(ended.iterations_run(), 1);
    let anchor = std::fs::read_to_string(t.workspace.join(".switchboard/anchor.md")).unwrap();
    assert!(anchor.contains("Make the tests pass"), "{anchor}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_loop_that_never_finishes_stops_at_its_cap_each_iteration_a_fresh_process() {
    let t = TestEngine::start().await;
    let profile = t.looping_profile("[{ say = \"tried something else\" }, { exit = 0 }]").await;
    // Different stop reasons each time would be needed to avoid a stall: the
    // cap comes first here (stall after 5, cap 3).
    let settings = LoopSettings { max_iterations: 3, ..LoopSettings::new("Make the tests pass") };
    let started = t.engine.start_loop(profile.id.clone(), settings).await.unwrap();
    let ended = t.loop_ends(&started.id).await;
    assert!(matches!(ended.state, LoopState::Complete { why: Completion::MaxIterations { max: 3 }, .. }), "{ended:#?}");
    assert_eq!(ended.iterations_run(), 3);
    assert_eq!(sessions_of(&ended).len(), 3, "three sessions, three processes");
    let numbers: Vec<u32> = ended.iterations.iter().map(|i| i.number).collect();
    assert_eq!(numbers, [1, 2, 3]);
    assert!(ended.iterations.iter().all(|i| matches!(&i.outcome, IterationOutcome::Ended { stop_reason, .. } if stop_reason.contains("tried something else"))));
    // Nothing more is queued after it.
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    assert!(t.engine.list_tasks(Some(profile.id.clone())).await.unwrap().iter().all(|t| t.state().is_finished()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_same_stop_reason_again_and_again_stalls_the_loop_which_can_resume_or_be_cancelled() {
    let t = TestEngine::start().await;
    let profile = t.looping_profile("[{ say = \"error: 3 tests fail\" }, { exit = 0 }]").await;
    let settings = LoopSettings { max_iterations: 10, stall_after: 3, ..LoopSettings::new("Make the tests pass") };
    let started = t.engine.start_loop(profile.id.clone(), settings).await.unwrap();
    let ended = t.loop_ends(&started.id).await;
    let LoopState::Stalled { repeated, reason, .. } = &ended.state else { panic!("{ended:#?}") };
    assert_eq!(*repeated, 3);
    assert!(reason.contains("error: 3 tests fail"), "{reason}");
    // The error came back three times: it is a guardrail now.
    let guardrails = std::fs::read_to_string(t.workspace.join(".switchboard/guardrails.md")).unwrap();
    assert!(guardrails.contains("error: 3 tests fail"), "{guardrails}");

    let resumed = t.engine.resume_loop(started.id.clone()).await.unwrap();
    assert!(resumed.is_active());
    let cancelled = t.engine.cancel_loop(started.id.clone()).await.unwrap();
    assert!(matches!(cancelled.state, LoopState::Cancelled { .. }));
    let refused = t.engine.cancel_loop(started.id.clone()).await.unwrap_err();
    assert_eq!(refused.field(), Some("loop_id"));
}
