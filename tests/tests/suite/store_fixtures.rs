//! Database files written by earlier versions must keep opening, with their
//! data intact, as the schema moves forward.

use switchboard_core::store::Store;
use switchboard_core::{AgentKind, LogKind, SessionState};

#[test]
fn a_version_1_database_still_opens_with_its_data() {
    let temp = tempfile::tempdir().unwrap();
    let db = temp.path().join("switchboard.db");
    std::fs::copy(concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/db/v1.sqlite"), &db).unwrap();

    let store = Store::open(&db).unwrap();
    let profiles = store.list_profiles().unwrap();
    assert_eq!(profiles.len(), 1);
    assert_eq!(profiles[0].spec.name, "Old agent");
    assert_eq!(profiles[0].spec.kind, AgentKind::ClaudeCode);
    assert_eq!(profiles[0].spec.args, ["-c", "echo hi"]);

    let sessions = store.list_sessions().unwrap();
    assert_eq!(sessions[0].state, SessionState::Exited { exit_code: 3, signal: None, ended_at: 1_700_000_000_900 });
    let events = store.list_events(None).unwrap();
    assert_eq!(events[1].kind, LogKind::SessionExited { exit_code: 3, signal: None });
    assert_eq!(store.settings().unwrap(), switchboard_api::Settings::default(), "no settings saved yet");
}

/// A database of version 14, when a loop was one record holding all its
/// iterations (made with that version's `Store::save_loop`: an agent
/// "Looper" with a complete loop of one iteration and a stalled loop of
/// five, one of them interrupted). Its loops open with their iterations,
/// now rows of their own, and go on from there.
#[test]
fn a_version_14_database_keeps_its_loops_and_their_iterations() {
    use switchboard_core::loops::{Completion, Verdict};
    use switchboard_core::{Iteration, IterationOutcome, LoopState};
    let temp = tempfile::tempdir().unwrap();
    let db = temp.path().join("switchboard.db");
    std::fs::copy(concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/db/v14-loop.sqlite"), &db).unwrap();

    let store = Store::open(&db).unwrap();
    let loops = store.list_loops(10).unwrap();
    let goals: Vec<&str> = loops.iter().map(|l| l.settings.goal.as_str()).collect();
    assert_eq!(goals, ["Write the docs", "Make the tests pass"]);
    let (done, stalled) = (&loops[0], &loops[1]);
    assert!(matches!(&done.state, LoopState::Complete { why: Completion::StopWord { .. }, .. }), "{done:#?}");
    assert_eq!((done.iteration_count, done.iterations_run), (1, 1));
    assert!(matches!(&stalled.state, LoopState::Stalled { repeated: 3, .. }), "{stalled:#?}");
    assert_eq!((stalled.iteration_count, stalled.iterations_run), (5, 4));
    let outcomes: Vec<(u32, u32, &str)> =
        stalled.iterations.iter().map(|i| (i.seq, i.number, i.outcome.as_str())).collect();
    assert_eq!(outcomes, [(1, 1, "ended"), (2, 2, "interrupted"), (3, 2, "ended"), (4, 3, "ended"), (5, 4, "ended")]);
    assert!(matches!(
        &stalled.iterations[4].outcome,
        IterationOutcome::Ended { stop_reason, verdict: Verdict::Stalled { repeated: 3, .. }, .. } if stop_reason == "error: 3 tests fail"
    ));
    assert_eq!(store.loop_stop_reasons(&stalled.id, 3).unwrap(), ["error: 3 tests fail"; 3]);
    // It goes on: a sixth iteration is one more row.
    let sixth = Iteration { seq: 6, number: 5, outcome: IterationOutcome::Running, ..stalled.iterations[4].clone() };
    store.save_iteration(&stalled.id, &sixth).unwrap();
    assert_eq!(store.get_loop(&stalled.id).unwrap().unwrap().iteration_count, 6);
}

/// A database of version 16, before a summary saying FAILED failed its task
/// (issue 23): "Migrate the tables" completed with a summary whose Status
/// says FAILED, "Write the docs" with one that says COMPLETED (made with that
/// version's `Store::save_task`). The first reads as failed now, in the
/// agent's words, its summary kept; the second is untouched.
#[test]
fn a_version_16_database_reads_a_task_whose_summary_said_failed_as_failed() {
    use switchboard_core::summary::SummaryStatus;
    use switchboard_core::{TaskId, TaskState};
    let temp = tempfile::tempdir().unwrap();
    let db = temp.path().join("switchboard.db");
    std::fs::copy(concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/db/v16-failed-summary.sqlite"), &db).unwrap();

    let store = Store::open(&db).unwrap();
    let failed: TaskId = "7c2e5d0a-3f4b-4c8d-9e0f-2a3b4c5d6e7f".parse().unwrap();
    let task = store.get_task(&failed).unwrap().unwrap();
    assert_eq!(task.state(), TaskState::Failed);
    assert_eq!(task.reason(), Some("the agent says it failed: the database refused the new schema"));
    assert_eq!(task.ended_at(), Some(1_790_000_000_900));
    let result = task.result().expect("its summary is kept");
    assert_eq!(result.summary.status, Some(SummaryStatus::Failed));
    assert!(result.artifacts[0].content.contains("❌ FAILED"));
    assert!(task.session_id().is_some());

    let done: TaskId = "8d3f6e1b-4a5c-4d9e-8f1a-3b4c5d6e7f80".parse().unwrap();
    let task = store.get_task(&done).unwrap().unwrap();
    assert_eq!((task.state(), task.reason()), (TaskState::Completed, None));
}
