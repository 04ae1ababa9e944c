//! The task queue and the file completion protocol, end to end through the
//! engine with real agents in real PTYs: the scripted demo agent, and `cat`
//! (an agent that never writes a summary, so the test writes it).

use crate::support;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};

use support::*;
use switchboard_core::store::Store;
use switchboard_core::summary::SummaryStatus;
use switchboard_core::{
    AgentKind, CompletionRule, EngineEvent, LogKind, Priority, Profile, ProfileSpec, Submitted, TaskId, TaskRecord,
    TaskSpec, TaskState,
};

fn task(profile: &Profile, instruction: &str) -> TaskSpec {
    TaskSpec::new(profile.id.clone(), instruction)
}

fn urgent(spec: TaskSpec) -> TaskSpec {
    TaskSpec { priority: Priority::Urgent, ..spec }
}

impl TestEngine {
    /// The demo agent, ready when its prompt shows.
    async fn demo_tasks_profile(&self, args: &[&str]) -> Profile {
        let spec = ProfileSpec {
            ready_pattern: Some("demo> $".into()),
            ready_quiet_ms: 50,
            ..self.spec("demo", DEMO_AGENT, args)
        };
        self.engine.create_profile(spec).await.unwrap()
    }

    /// `cat`: echoes what it is typed and never writes a summary.
    async fn cat_profile(&self) -> Profile {
        let spec = ProfileSpec { ready_quiet_ms: 50, ..self.spec("cat", "cat", &[]) };
        self.engine.create_profile(spec).await.unwrap()
    }

    async fn submit(&self, spec: TaskSpec) -> Submitted {
        self.engine.submit_task(spec).await.unwrap()
    }

    async fn finished(&self, id: &TaskId) -> TaskRecord {
        self.task_until(id, "to finish", |task| task.state.is_finished()).await
    }

    async fn typed(&self, id: &TaskId) -> TaskRecord {
        self.task_until(id, "to be typed", |task| task.typed_at.is_some()).await
    }

    fn summary_path(&self, id: &TaskId) -> std::path::PathBuf {
        self.workspace.join("summaries").join(format!("{id}.md"))
    }
}

/// Writes a summary the way careful agents do: a temporary file, renamed
/// into place.
fn write_atomically(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let temp = path.with_extension("md.tmp");
    std::fs::write(&temp, text).unwrap();
    std::fs::rename(&temp, path).unwrap();
}

const SUMMARY: &str = "# Task Completion Summary\n\n## Objective\nx\n\n## Key Deliverables\n- `out.txt` - the output\n\n## Test Results\n✅ All 3 tests passed\n\n## Status\n✅ COMPLETED\n";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_tasks_run_strictly_one_at_a_time_in_order() {
    let t = TestEngine::start().await;
    let profile = t.demo_tasks_profile(&["--speed", "20"]).await;
    let first = t.submit(task(&profile, "First task\nwith a second line")).await;
    let second = t.submit(task(&profile, "Second task")).await;
    let third = t.submit(TaskSpec { context: Some("the context".into()), ..task(&profile, "Third task") }).await;

    // The queue says where each one stands.
    assert_eq!((first.position, first.task.state), (None, TaskState::Running));
    assert_eq!(second.position, Some(1));
    assert_eq!(second.waiting_for.as_ref(), Some(&first.task.id));
    assert_eq!(third.position, Some(2));

    let done = [t.finished(&first.task.id).await, t.finished(&second.task.id).await, t.finished(&third.task.id).await];
    for task in &done {
        assert_eq!(task.state, TaskState::Completed, "{task:?}");
        let result = task.result.as_ref().unwrap();
        assert!(!result.fallback);
        assert_eq!(result.summary.status, Some(SummaryStatus::Completed));
        assert_eq!(result.artifacts[0].path, format!("summaries/{}.md", task.id));
    }
    // Strictly one at a time: each starts after the one before has ended.
    for pair in done.windows(2) {
        assert!(pair[1].started_at.unwrap() >= pair[0].ended_at.unwrap(), "{pair:?}");
    }
    // The multi-line instruction reached the agent as one submission.
    assert!(done[0].result.as_ref().unwrap().summary.objective.starts_with("First task"));
    let sessions = t.engine.list_sessions().await.unwrap();
    assert_eq!(sessions.len(), 1, "the queue started one session and kept using it");
    let snapshot = t.engine.screen_snapshot(sessions[0].id.clone(), 500).await.unwrap();
    let received = snapshot.recent_lines.iter().filter(|l| l.starts_with("received: ")).count();
    assert_eq!(received, 3, "{:#?}", snapshot.recent_lines);
    assert_eq!(std::fs::read_to_string(t.workspace.join("CONTEXT.md")).unwrap(), "the context");

    let timeline: Vec<_> =
        t.engine.task_timeline(first.task.id.clone()).await.unwrap().into_iter().map(|e| e.kind).collect();
    assert_eq!(
        timeline,
        [
            LogKind::TaskQueued { priority: Priority::Normal },
            LogKind::TaskStarted,
            LogKind::TaskTyped { bracketed: true },
            LogKind::TaskEnded { state: TaskState::Completed, reason: None },
        ]
    );
    let queues = t.engine.list_queues().await.unwrap();
    assert_eq!((queues[0].executing, queues[0].queued), (false, 0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_urgent_task_jumps_ahead_and_a_drag_reorders() {
    let t = TestEngine::start().await;
    let profile = t.demo_tasks_profile(&["--speed", "150"]).await;
    let a = t.submit(task(&profile, "Task A")).await.task;
    let b = t.submit(task(&profile, "Task B")).await.task;
    let c = t.submit(task(&profile, "Task C")).await.task;
    let d = t.submit(urgent(task(&profile, "Task D"))).await;
    assert_eq!(d.position, Some(1), "urgent goes first");
    // Drag C to the top of the queue: ahead of an urgent task it becomes urgent.
    t.engine.move_task(c.id.clone(), 0).await.unwrap();
    let c_now = t.engine.get_task(c.id.clone()).await.unwrap();
    assert_eq!(c_now.spec.priority, Priority::Urgent);

    let mut ended = Vec::new();
    for id in [&a.id, &b.id, &c.id, &d.task.id] {
        ended.push((t.finished(id).await.ended_at.unwrap(), id.clone()));
    }
    ended.sort();
    let order: Vec<TaskId> = ended.into_iter().map(|(_, id)| id).collect();
    assert_eq!(order, [a.id, c.id, d.task.id, b.id]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancelling_a_queued_and_the_running_task() {
    let t = TestEngine::start().await;
    let profile = t.demo_tasks_profile(&["--speed", "3000"]).await;
    let a = t.submit(task(&profile, "Long task")).await.task;
    let b = t.submit(task(&profile, "Never runs")).await.task;
    let c = t.submit(TaskSpec { ..task(&profile, "Runs after the cancel") }).await.task;

    let cancelled = t.engine.cancel_task(b.id.clone()).await.unwrap();
    assert_eq!(cancelled.state, TaskState::Cancelled);
    let typed = t.typed(&a.id).await;
    // At work on it: an interrupt before the agent read its line would
    // flush the line from the terminal, and this agent would then sit on
    // the echo of it without a fresh prompt.
    t.wait_for_screen(typed.session_id.as_ref().unwrap(), "received: Long task").await;
    let cancelled = t.engine.cancel_task(a.id.clone()).await.unwrap();
    assert_eq!(cancelled.state, TaskState::Cancelled);
    // A finished task cannot be cancelled again.
    let error = t.engine.cancel_task(a.id.clone()).await.unwrap_err();
    assert_eq!(error.code(), switchboard_core::ErrorCode::TaskState);

    // The agent was interrupted and went back to its prompt; the queue moved on.
    t.typed(&c.id).await;
    let session = t.engine.list_sessions().await.unwrap().pop().unwrap();
    let screen = t.engine.screen_snapshot(session.id, 200).await.unwrap().recent_lines.join("\n");
    assert!(screen.contains("interrupted: task abandoned"), "{screen}");
    assert!(!screen.contains("received: Never runs"), "{screen}");
    t.engine.cancel_task(c.id.clone()).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn summaries_are_seen_however_they_are_written_and_progress_shows() {
    let t = TestEngine::start().await;
    let profile = t.cat_profile().await;

    // Renamed into place.
    let first = t.submit(task(&profile, "one")).await.task;
    t.typed(&first.id).await;
    std::fs::write(t.workspace.join("STATUS.txt"), "step 1 of 3: reading\n").unwrap();
    t.events
        .wait_for("progress from STATUS.txt", |events| {
            events.iter().find_map(|e| match e {
                EngineEvent::TaskChanged { task } if task.progress.as_deref() == Some("step 1 of 3: reading") => {
                    Some(())
                }
                _ => None,
            })
        })
        .await;
    write_atomically(&t.summary_path(&first.id), SUMMARY);
    assert_eq!(t.finished(&first.id).await.state, TaskState::Completed);

    // Written in place (seen when closed), after `summaries/` was deleted and made again.
    let second = t.submit(task(&profile, "two")).await.task;
    t.typed(&second.id).await;
    std::fs::remove_dir_all(t.workspace.join("summaries")).unwrap();
    std::fs::create_dir(t.workspace.join("summaries")).unwrap();
    std::fs::write(t.summary_path(&second.id), SUMMARY.replace("✅ COMPLETED", "❌ FAILED")).unwrap();
    let done = t.finished(&second.id).await;
    assert_eq!(done.state, TaskState::Failed, "its summary says it failed");
    assert_eq!(done.result.as_ref().unwrap().summary.status, Some(SummaryStatus::Failed));
    // The STATUS.txt the first task left was never shown as the second's progress.
    assert_eq!(done.progress.as_deref(), None, "{done:?}");

    // Another task's summary does not complete this one.
    let third = t.submit(task(&profile, "three")).await.task;
    t.typed(&third.id).await;
    write_atomically(&t.summary_path(&TaskId::new()), SUMMARY);
    write_atomically(&t.summary_path(&third.id), SUMMARY);
    assert_eq!(t.finished(&third.id).await.state, TaskState::Completed);
}

/// A summary whose Status says FAILED (issue 23: it read "completed ·
/// failed", green, in the task list, search and `task list`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_summary_saying_it_failed_fails_the_task_in_the_agents_words_and_keeps_the_summary() {
    let t = TestEngine::start().await;
    let profile = t.demo_tasks_profile(&["--status", "failed", "--speed", "fast"]).await;
    let submitted = t.submit(task(&profile, "Migrate the billing tables")).await.task;
    let done = t.finished(&submitted.id).await;
    assert_eq!(done.state, TaskState::Failed, "{done:#?}");
    assert_eq!(
        done.reason.as_deref(),
        Some("the agent says it failed: the scripted demo agent was told to fail this task")
    );
    // What it produced is kept: its own summary, not a fallback.
    let result = done.result.as_ref().expect("the result is kept");
    assert!(!result.fallback);
    assert_eq!(result.summary.status, Some(SummaryStatus::Failed));
    assert_eq!(result.artifacts[0].path, format!("summaries/{}.md", submitted.id));
    // Every place reads the same state: the listing, and a search hit.
    let listed = t.engine.list_tasks(Some(profile.id.clone())).await.unwrap();
    assert_eq!(listed.iter().find(|task| task.id == submitted.id).unwrap().state, TaskState::Failed);
    let hits = t.engine.search("billing".into()).await.unwrap();
    assert!(!hits.is_empty());
    for hit in hits {
        match hit.found {
            switchboard_api::Found::Task { state, .. } | switchboard_api::Found::Summary { state, .. } => {
                assert_eq!(state, TaskState::Failed)
            }
            other => panic!("not the task: {other:?}"),
        }
    }
    // Failing by its own word is not a broken agent: the queue goes on.
    let next = t.submit(task(&profile, "Next one")).await.task;
    assert_eq!(t.finished(&next.id).await.state, TaskState::Failed);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deliverables_that_escape_the_workspace_are_refused_and_never_read() {
    let t = TestEngine::start().await;
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.txt"), "do not read").unwrap();
    std::os::unix::fs::symlink(outside.path().join("secret.txt"), t.workspace.join("link.txt")).unwrap();
    std::fs::write(t.workspace.join("out.txt"), "the real output").unwrap();
    let profile = t.cat_profile().await;
    let job = t.submit(task(&profile, "deliver")).await.task;
    t.typed(&job.id).await;
    let secret = outside.path().join("secret.txt").display().to_string();
    let summary = format!(
        "## Key Deliverables\n- `../outside.txt` - up\n- `{secret}` - absolute\n- `link.txt` - symlink\n- `out.txt` - good\n## Status\n✅ COMPLETED\n"
    );
    write_atomically(&t.summary_path(&job.id), &summary);
    let done = t.finished(&job.id).await;
    let result = done.result.as_ref().unwrap();
    let returned: Vec<_> = result.artifacts.iter().map(|a| a.path.as_str()).collect();
    assert_eq!(returned[1..], ["out.txt"]);
    assert_eq!(result.artifacts[1].content, "the real output");
    assert!(result.artifacts.iter().all(|a| !a.content.contains("do not read")));
    let refused: Vec<_> = result.rejected.iter().map(|r| r.path.as_str()).collect();
    assert_eq!(refused, ["../outside.txt", secret.as_str(), "link.txt"]);
    let timeline = t.engine.task_timeline(job.id.clone()).await.unwrap();
    let logged = timeline.iter().filter(|e| matches!(e.kind, LogKind::DeliverableRejected { .. })).count();
    assert_eq!(logged, 3);

    // Opening a returned file asks where it is now, checked again.
    let workspace = t.workspace.canonicalize().unwrap();
    let located = t.engine.artifact_path(job.id.clone(), "out.txt".into()).await.unwrap();
    assert_eq!(located, workspace.join("out.txt").display().to_string());
    let summary = result.artifacts[0].path.clone();
    assert!(t.engine.artifact_path(job.id.clone(), summary).await.unwrap().starts_with(&*workspace.to_string_lossy()));
    for (path, why) in
        [("link.txt", "no such file"), ("../outside.txt", "no such file"), (secret.as_str(), "no such file")]
    {
        let refused = t.engine.artifact_path(job.id.clone(), path.into()).await.unwrap_err();
        assert!(refused.to_string().contains(why), "{path}: {refused}");
    }
    // Swapped for a link out of the workspace after the task: refused now.
    std::fs::remove_file(t.workspace.join("out.txt")).unwrap();
    std::os::unix::fs::symlink(outside.path().join("secret.txt"), t.workspace.join("out.txt")).unwrap();
    let refused = t.engine.artifact_path(job.id.clone(), "out.txt".into()).await.unwrap_err();
    assert!(refused.to_string().contains("outside the workspace"), "{refused}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_timed_out_task_gets_a_fallback_summary_and_the_queue_moves_on() {
    let t = TestEngine::start().await;
    // Outside the workspace: a file written just before the task would
    // count as changed by it.
    let scenario = t.data_dir.join("slow.toml");
    std::fs::write(
        &scenario,
        "prompt = \"demo> \"\n[[tasks]]\nsteps = [{ say = \"Working hard\" }, { write_file = { path = \"partial/result.txt\", content = \"half\" } }, { sleep_ms = 60000 }]\n[[tasks]]\nsteps = [{ summary = \"completed\" }]\n",
    )
    .unwrap();
    let profile = t.demo_tasks_profile(&["--scenario", scenario.to_str().unwrap()]).await;
    let slow = t
        .submit(TaskSpec { time_limit_secs: Some(1), context: Some("c".into()), ..task(&profile, "Slow task") })
        .await
        .task;
    let next = t.submit(task(&profile, "Next task")).await.task;

    let timed_out = t.finished(&slow.id).await;
    assert_eq!(timed_out.state, TaskState::TimedOut);
    assert!(timed_out.reason.as_deref().unwrap().contains("time limit"), "{timed_out:?}");
    let result = timed_out.result.as_ref().unwrap();
    assert!(result.fallback);
    assert_eq!(result.summary.status, Some(SummaryStatus::Partial));
    assert_eq!(result.summary.deliverables, ["partial/result.txt"], "changed files, not CONTEXT.md");
    assert_eq!(result.artifacts[1].content, "half");
    assert!(result.artifacts[0].content.contains("received: Slow task"), "{}", result.artifacts[0].content);
    // The timed-out task was interrupted, so the next one could be typed.
    assert_eq!(t.finished(&next.id).await.state, TaskState::Completed);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_crash_fails_its_task_and_the_next_starts_in_a_fresh_session() {
    let t = TestEngine::start().await;
    // Each agent process crashes on its second task.
    let profile = t.demo_tasks_profile(&["--crash-on-task", "2", "--speed", "fast"]).await;
    let fine = t.submit(task(&profile, "All good")).await.task;
    let doomed = t.submit(task(&profile, "Crash please")).await.task;
    let next = t.submit(task(&profile, "Then this")).await.task;
    assert_eq!(t.finished(&fine.id).await.state, TaskState::Completed);
    let failed = t.finished(&doomed.id).await;
    assert_eq!(failed.state, TaskState::Failed);
    assert!(failed.reason.as_deref().unwrap().contains("exited"), "{failed:?}");
    let result = failed.result.as_ref().unwrap();
    assert!(result.fallback);
    assert!(result.artifacts[0].content.contains("crashed (as asked)"), "{}", result.artifacts[0].content);

    let done = t.finished(&next.id).await;
    assert_eq!(done.state, TaskState::Completed);
    assert_ne!(done.session_id.as_ref(), failed.session_id.as_ref());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_vanished_workspace_fails_the_task_clearly_and_pauses_the_queue() {
    let t = TestEngine::start().await;
    let workspace = t.workspace.join("doomed");
    std::fs::create_dir(&workspace).unwrap();
    let spec = ProfileSpec { cwd: workspace.display().to_string(), ..t.spec("cat", "cat", &[]) };
    let profile = t.engine.create_profile(spec).await.unwrap();
    std::fs::remove_dir(&workspace).unwrap();
    let first = t.submit(task(&profile, "one")).await;
    let second = t.submit(task(&profile, "two")).await;
    assert_eq!(first.task.state, TaskState::Failed);
    assert!(first.task.reason.as_deref().unwrap().contains("does not exist"), "{:?}", first.task.reason.as_deref());
    assert!(!workspace.exists(), "the workspace is not made again");
    assert_eq!(second.task.state, TaskState::Queued, "nothing else is lost");
    let queue = t.engine.list_queues().await.unwrap().pop().unwrap();
    assert!(queue.paused);
    assert_eq!(queue.queued, 1);
    // The queue says why it waits: the task that could not start, and the reason.
    let Some(switchboard_core::QueuePause::TaskNotStarted { task_id, reason, .. }) = &queue.pause else {
        panic!("{queue:?}")
    };
    assert_eq!(task_id, &first.task.id);
    assert!(reason.contains("does not exist"), "{reason}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_paused_queue_holds_its_tasks_until_resumed() {
    let t = TestEngine::start().await;
    let profile = t.demo_tasks_profile(&["--speed", "fast"]).await;
    t.engine.set_queue_paused(Some(profile.id.clone()), true).await.unwrap();
    let held = t.submit(task(&profile, "Held")).await;
    assert_eq!((held.task.state, held.position), (TaskState::Queued, Some(1)));
    assert!(t.engine.list_sessions().await.unwrap().is_empty(), "a paused queue starts no agent");
    t.engine.set_queue_paused(None, false).await.unwrap();
    assert_eq!(t.finished(&held.task.id).await.state, TaskState::Completed);
}

/// `kill -9` of the app mid-task: the queue is intact after the restart; a
/// task whose summary appeared meanwhile completes, one whose did not is
/// interrupted and can be put back in the queue.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_app_keeps_its_queue_and_recovers_the_running_task() {
    for summary_meanwhile in [true, false] {
        let temp = tempfile::tempdir().unwrap();
        let mut host = Command::new(ENGINE_HOST)
            .arg(temp.path())
            .arg("cat")
            .env("HOST_TASKS", "3")
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let lines: Vec<String> =
            BufReader::new(host.stdout.take().unwrap()).lines().take(4).map(Result::unwrap).collect();
        let ids: Vec<TaskId> = lines[1..].iter().map(|l| l.strip_prefix("task ").unwrap().parse().unwrap()).collect();
        let db = temp.path().join("switchboard.db");
        wait_until("the first task is typed", || {
            Store::open(&db).unwrap().get_task(&ids[0]).unwrap().is_some_and(|t| t.typed_at().is_some())
        })
        .await;
        host.kill().unwrap();
        host.wait().unwrap();

        let store = Store::open(&db).unwrap();
        let queued: Vec<TaskId> = store
            .active_tasks(None)
            .unwrap()
            .into_iter()
            .filter(|t| t.state() == TaskState::Queued)
            .map(|t| t.id)
            .collect();
        assert_eq!(queued, ids[1..], "the same tasks, in the same order");
        drop(store);
        let summary = temp.path().join("work/summaries").join(format!("{}.md", ids[0]));
        if summary_meanwhile {
            write_atomically(&summary, SUMMARY);
        }

        let t = TestEngine::start_in(temp.path(), |_| {}).await;
        let first = t.engine.get_task(ids[0].clone()).await.unwrap();
        if summary_meanwhile {
            assert_eq!(first.state, TaskState::Completed, "{first:?}");
        } else {
            assert_eq!(first.state, TaskState::Interrupted);
            let requeued = t.engine.requeue_task(ids[0].clone()).await.unwrap();
            assert_eq!(requeued.state, TaskState::Queued);
        }
        // The queue goes on with a fresh agent: `cat` writes no summaries,
        // so the test plays the agent.
        let order = if summary_meanwhile { vec![&ids[1], &ids[2]] } else { vec![&ids[1], &ids[0], &ids[2]] };
        // The engine may have taken the next task before the requeue; the
        // interrupted task then runs right after it.
        for id in order {
            t.typed(id).await;
            write_atomically(&temp.path().join("work/summaries").join(format!("{id}.md")), SUMMARY);
            let done = t.finished(id).await;
            assert_eq!(done.state, TaskState::Completed, "meanwhile={summary_meanwhile} {done:?}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_quiet_past_its_alert_flags_its_task_until_it_shows_life() {
    let t = TestEngine::start().await;
    // `cat` echoes the task, then prints nothing more: it seems stuck.
    let spec = ProfileSpec { ready_quiet_ms: 50, quiet_alert_secs: 1, ..t.spec("cat", "cat", &[]) };
    let profile = t.engine.create_profile(spec).await.unwrap();
    let submitted = t.submit(task(&profile, "Fix the flaky test")).await;
    let id = submitted.task.id.clone();
    let typed = t.typed(&id).await;
    let quiet = t.task_until(&id, "to be flagged quiet", |task| task.quiet_since.is_some()).await;
    let since = quiet.quiet_since.unwrap();
    assert!(since >= typed.typed_at.unwrap(), "quiet since its last sign of life, not before");
    assert_eq!(quiet.state, TaskState::Running, "a quiet task is still at work, only flagged");

    // It prints again (here: the user types to it, and it echoes): the flag clears.
    let session = quiet.session_id.as_ref().unwrap().clone();
    t.engine.write_input(session, "still there?\r".into()).await.unwrap();
    let alive = t.task_until(&id, "to show life", |task| task.quiet_since.is_none()).await;
    assert_eq!(alive.state, TaskState::Running);
    let timeline = t.engine.task_timeline(id.clone()).await.unwrap();
    let quiet_steps: Vec<bool> = timeline
        .iter()
        .filter_map(|entry| match entry.kind {
            LogKind::TaskQuiet { quiet, alert_secs: 1 } => Some(quiet),
            _ => None,
        })
        .collect();
    assert_eq!(&quiet_steps[..2], [true, false], "its timeline tells both");

    // An agent whose alert is off is never flagged.
    t.engine.cancel_task(id).await.unwrap();
    let quiet_off = ProfileSpec { ready_quiet_ms: 50, quiet_alert_secs: 0, ..t.spec("cat2", "cat", &[]) };
    let profile = t.engine.create_profile(quiet_off).await.unwrap();
    let id = t.submit(task(&profile, "Wait quietly")).await.task.id;
    t.typed(&id).await;
    tokio::time::sleep(std::time::Duration::from_millis(2500)).await;
    let task = t.engine.get_task(id).await.unwrap();
    assert_eq!(task.quiet_since, None);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn search_finds_an_old_task_behind_many_newer_records_that_hold_the_word_only_in_their_keys() {
    let t = TestEngine::start().await;
    let profile = t.cat_profile().await;
    // Written beside the running engine, as a long history would have left them.
    let mut store = Store::open(&t.data_dir.join("switchboard.db")).unwrap();
    let spec = |instruction: &str| TaskSpec { time_limit_secs: Some(60), ..task(&profile, instruction) };
    let old = switchboard_core::TaskInfo::queued(TaskId::new(), spec("Write the parser tests"), 0, 1_000);
    store.save_task(&old).unwrap();
    // Every stored result has a "tests" key, so each of these is a candidate for the word.
    let summary = switchboard_core::summary::parse_summary("## Objective\nTidy up\n## Status\nCOMPLETED\n");
    let newer: Vec<switchboard_core::TaskInfo> = (0..1_200)
        .map(|i| {
            let mut done =
                switchboard_core::TaskInfo::queued(TaskId::new(), spec(&format!("Tidy module {i}")), i + 1, 2_000 + i);
            done.start(switchboard_core::SessionId::new(), 2_000 + i);
            let result = switchboard_core::TaskResult {
                summary: summary.clone(),
                fallback: false,
                artifacts: vec![],
                rejected: vec![],
                results_json: None,
                errors: None,
            };
            done.end(TaskState::Completed, 3_000 + i, None, Some(result));
            done
        })
        .collect();
    store.save_tasks(&newer).unwrap();
    drop(store);

    let found = t.engine.search("TESTS".into()).await.unwrap();
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(matches!(&found[0].found, switchboard_api::Found::Task { task_id, .. } if *task_id == old.id));
}

/// Issue 22: lowercasing this objective moves its byte offsets while keeping
/// its length, and a search for a word in it brought the engine down (again
/// at every start, as the summary stays stored).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn searching_a_summary_whose_lowercase_moves_its_offsets_finds_it_and_the_engine_answers_on() {
    let t = TestEngine::start().await;
    let profile = t.cat_profile().await;
    let objective = format!("{} error test build fix the {}{}", "İ".repeat(60), "€".repeat(200), "\u{212A}".repeat(30));
    let store = Store::open(&t.data_dir.join("switchboard.db")).unwrap();
    let mut done = switchboard_core::TaskInfo::queued(TaskId::new(), task(&profile, "Tidy up"), 0, 1_000);
    done.start(switchboard_core::SessionId::new(), 1_000);
    let summary =
        switchboard_core::summary::parse_summary(&format!("## Objective\n{objective}\n## Status\nCOMPLETED\n"));
    let result = switchboard_core::TaskResult {
        summary,
        fallback: false,
        artifacts: vec![],
        rejected: vec![],
        results_json: None,
        errors: None,
    };
    done.end(TaskState::Completed, 2_000, None, Some(result));
    store.save_task(&done).unwrap();
    drop(store);

    for _ in 0..2 {
        let found = t.engine.search("error".into()).await.expect("the engine answers the search");
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(matches!(&found[0].found, switchboard_api::Found::Summary { task_id, .. } if *task_id == done.id));
        assert!(found[0].snippet.contains(" error test build fix the "), "{}", found[0].snippet);
    }
    assert_eq!(t.engine.get_task(done.id).await.unwrap().state, TaskState::Completed);
}

/// Issue 22: a search word past SQLite's longest pattern was answered as a
/// storage failure.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_over_long_search_is_refused_as_invalid_input_in_a_sentence() {
    let t = TestEngine::start().await;
    let error = t.engine.search("x".repeat(60 * 1024)).await.unwrap_err();
    assert_eq!(error.code(), switchboard_core::ErrorCode::InvalidInput, "{error}");
    assert!(error.to_string().contains("a search is at most"), "{error}");
    assert!(t.engine.search("x".into()).await.unwrap().is_empty(), "a short search is answered");
}

/// Issue 22: every stored agent text field has a cap: a summary's sections
/// and lists, and the progress line a task shows.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_summarys_long_sections_and_lists_and_progress_are_kept_cut_and_marked() {
    use switchboard_core::capped::{CUT_MARK, MAX_LIST_ITEMS, MAX_TEXT_FIELD_BYTES};
    let t = TestEngine::start().await;
    let profile = t.cat_profile().await;
    let job = t.submit(task(&profile, "write a lot")).await.task;
    t.typed(&job.id).await;
    std::fs::write(t.workspace.join("STATUS.txt"), format!("{}\n", "p".repeat(40_000))).unwrap();
    let progress = t.task_until(&job.id, "to show its progress", |task| task.progress.as_deref().is_some()).await;
    let progress = progress.progress.as_deref().unwrap();
    assert!(progress.len() <= MAX_TEXT_FIELD_BYTES && progress.ends_with(CUT_MARK), "{} bytes", progress.len());
    let done: String = (0..300).map(|i| format!("- step {i}\n")).collect();
    let summary = format!("## Objective\n{}\n## Accomplishments\n{done}## Status\n✅ COMPLETED\n", "o".repeat(40_000));
    write_atomically(&t.summary_path(&job.id), &summary);
    let ended = t.finished(&job.id).await;
    let kept = &ended.result.as_ref().unwrap().summary;
    assert!(kept.objective.len() <= MAX_TEXT_FIELD_BYTES && kept.objective.ends_with(CUT_MARK));
    assert_eq!(kept.accomplishments.len(), MAX_LIST_ITEMS);
    assert!(kept.accomplishments.last().unwrap().contains("more not kept"), "{:?}", kept.accomplishments.last());
}

// ---- restarting an agent while a task runs ----

impl TestEngine {
    /// `cat` given a task (typed into it): the task and its session.
    async fn cat_at_work(&self) -> (Profile, TaskRecord, switchboard_core::SessionId) {
        let profile = self.cat_profile().await;
        let task = self.submit(task(&profile, "Write the parser")).await.task;
        let typed = self.typed(&task.id).await;
        let session = typed.session_id.as_ref().cloned().expect("a typed task has its session");
        (profile, typed, session)
    }

    async fn queue_of(&self, profile: &Profile) -> switchboard_core::QueueStatus {
        self.engine.list_queues().await.unwrap().into_iter().find(|q| q.profile_id == profile.id).unwrap()
    }

    /// Waits until the task is typed into `session`.
    async fn typed_in(&self, id: &TaskId, session: &switchboard_core::SessionId) -> TaskRecord {
        self.task_until(id, "to be typed into the new session", |task| {
            task.typed_at.is_some() && task.session_id.as_ref() == Some(session)
        })
        .await
    }
}

fn restarted_now(restarted: switchboard_core::Restarted) -> switchboard_core::SessionInfo {
    restarted.session().expect("the session restarts at once")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restart_while_a_task_runs_asks_what_becomes_of_it_and_does_nothing_unasked() {
    let t = TestEngine::start().await;
    let (profile, task, session) = t.cat_at_work().await;
    let refused = t.engine.restart_session(session.clone(), switchboard_core::TermSize::DEFAULT, None).await;
    assert_eq!(refused.unwrap_err().field(), Some("running_task"));
    assert_eq!(t.engine.get_task(task.id.clone()).await.unwrap().state, TaskState::Running);
    let sessions = t.engine.list_sessions().await.unwrap();
    assert!(sessions.iter().find(|s| s.id == session).unwrap().state.is_running(), "nothing was stopped");
    assert!(!t.queue_of(&profile).await.paused);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_requeued_by_a_restart_is_typed_into_the_new_session_and_completes() {
    let t = TestEngine::start().await;
    let (profile, task, old) = t.cat_at_work().await;
    let choice = Some(switchboard_core::RestartTask::Requeue);
    let fresh = restarted_now(
        t.engine.restart_session(old.clone(), switchboard_core::TermSize::DEFAULT, choice).await.unwrap(),
    );
    assert_ne!(fresh.id, old);
    let again = t.typed_in(&task.id, &fresh.id).await;
    assert_eq!(again.state, TaskState::Running);
    write_atomically(&t.summary_path(&task.id), SUMMARY);
    let done = t.finished(&task.id).await;
    assert_eq!((done.state, done.session_id.as_ref()), (TaskState::Completed, Some(&fresh.id)));
    let timeline: Vec<_> = t.engine.task_timeline(task.id.clone()).await.unwrap().into_iter().map(|e| e.kind).collect();
    assert!(timeline.contains(&LogKind::TaskRequeued { app_stopped: false }), "{timeline:?}");
    assert!(!t.queue_of(&profile).await.paused, "the queue runs on");
    let old_session = t.engine.list_sessions().await.unwrap().into_iter().find(|s| s.id == old).unwrap();
    assert!(!old_session.state.is_running());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restart_after_the_task_waits_for_its_summary_then_the_next_task_goes_to_the_new_session() {
    let t = TestEngine::start().await;
    let (profile, first, old) = t.cat_at_work().await;
    let second = t.submit(task(&profile, "Then the tests")).await.task;
    let choice = Some(switchboard_core::RestartTask::FinishFirst);
    let restarted = t.engine.restart_session(old.clone(), switchboard_core::TermSize::DEFAULT, choice).await.unwrap();
    assert_eq!(restarted, switchboard_core::Restarted::AfterTask { task_id: first.id.clone() });
    let sessions = t.engine.list_sessions().await.unwrap();
    assert!(sessions.iter().find(|s| s.id == old).unwrap().state.is_running(), "the task finishes first");

    write_atomically(&t.summary_path(&first.id), SUMMARY);
    let done = t.finished(&first.id).await;
    assert_eq!((done.state, done.session_id.as_ref()), (TaskState::Completed, Some(&old)));
    t.wait_for_end(&old).await;
    let next = t.task_until(&second.id, "to be typed", |task| task.typed_at.is_some()).await;
    let fresh = next.session_id.as_ref().cloned().unwrap();
    assert_ne!(fresh, old, "the next task went to the restarted session");
    let sessions = t.engine.list_sessions().await.unwrap();
    let running: Vec<_> = sessions.iter().filter(|s| s.state.is_running()).map(|s| s.id.clone()).collect();
    assert_eq!(running, [fresh], "one agent runs: the restarted one");
    assert!(!t.queue_of(&profile).await.paused);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_cancelled_by_a_restart_ends_cancelled_and_pauses_its_queue_only_when_asked() {
    let t = TestEngine::start().await;
    let (profile, first, old) = t.cat_at_work().await;
    let second = t.submit(task(&profile, "Then the tests")).await.task;
    let choice = Some(switchboard_core::RestartTask::Cancel { pause_queue: false });
    let fresh = restarted_now(
        t.engine.restart_session(old.clone(), switchboard_core::TermSize::DEFAULT, choice).await.unwrap(),
    );
    let cancelled = t.engine.get_task(first.id.clone()).await.unwrap();
    assert_eq!(cancelled.state, TaskState::Cancelled);
    assert!(cancelled.reason.as_deref().unwrap().contains("restarted"), "{:?}", cancelled.reason.as_deref());
    assert!(!t.queue_of(&profile).await.paused, "not paused unless asked");
    // The next task goes to the new session, not the one that was ending.
    t.typed_in(&second.id, &fresh.id).await;

    // Asked: the queue waits, saying why, until the user resumes it.
    let third = t.submit(task(&profile, "And the docs")).await.task;
    let choice = Some(switchboard_core::RestartTask::Cancel { pause_queue: true });
    let newest = restarted_now(
        t.engine.restart_session(fresh.id.clone(), switchboard_core::TermSize::DEFAULT, choice).await.unwrap(),
    );
    assert_eq!(t.engine.get_task(second.id.clone()).await.unwrap().state, TaskState::Cancelled);
    let queue = t.queue_of(&profile).await;
    assert!(queue.paused);
    assert!(
        matches!(&queue.pause, Some(switchboard_core::QueuePause::Restart { task_id, .. }) if task_id == &second.id),
        "{queue:?}"
    );
    assert_eq!(t.engine.get_task(third.id.clone()).await.unwrap().state, TaskState::Queued);
    t.engine.set_queue_paused(Some(profile.id.clone()), false).await.unwrap();
    let queue = t.queue_of(&profile).await;
    assert_eq!((queue.paused, queue.pause), (false, None), "resuming forgets the reason");
    t.typed_in(&third.id, &newest.id).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_paused_queue_says_who_paused_it_and_why() {
    use switchboard_core::QueuePause;
    let t = TestEngine::start().await;
    let (profile, task, session) = t.cat_at_work().await;
    t.engine.set_queue_paused(Some(profile.id.clone()), true).await.unwrap();
    assert!(matches!(t.queue_of(&profile).await.pause, Some(QueuePause::User { .. })));
    t.engine.set_queue_paused(None, true).await.unwrap();
    assert!(matches!(t.queue_of(&profile).await.pause, Some(QueuePause::AllQueues { .. })));
    t.engine.set_queue_paused(None, false).await.unwrap();
    assert_eq!(t.queue_of(&profile).await.pause, None);

    // The user stops the agent mid-task: the task is cancelled and the queue says so.
    t.engine.stop_session(session.clone()).await.unwrap();
    t.finished(&task.id).await;
    let queue = t.queue_of(&profile).await;
    assert!(queue.paused);
    assert!(matches!(&queue.pause, Some(QueuePause::AgentStopped { task_id, .. }) if task_id == &task.id), "{queue:?}");
}

/// Regression: an agent whose prompt (`agent> `) did not match its ready
/// pattern (`demo> $`) left its task waiting forever. The screen gives the
/// pattern of the prompt the agent really shows, and with it the agent is
/// typed into.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_screen_gives_the_ready_pattern_of_the_prompt_the_agent_shows() {
    let t = TestEngine::start().await;
    let scenario = t.data_dir.join("prompt.toml");
    std::fs::write(&scenario, "prompt = \"agent> \"\n[[tasks]]\nsteps = [{ summary = \"completed\" }]\n").unwrap();
    let args = ["--speed", "fast", "--scenario", scenario.to_str().unwrap()];
    let spec = ProfileSpec {
        ready_pattern: Some("demo> $".into()),
        ready_quiet_ms: 50,
        ..t.spec("mismatched", DEMO_AGENT, &args)
    };
    let profile = t.engine.create_profile(spec.clone()).await.unwrap();
    let (session, output) = t.start_session(&profile).await;
    output.wait_for_text("agent> ").await;

    let snapshot = t.engine.screen_snapshot(session.id.clone(), 0).await.unwrap();
    let prompt = snapshot.prompt.expect("the screen shows a prompt");
    assert_eq!(prompt.line, "agent>");
    t.engine.stop_session(session.id.clone()).await.unwrap();

    let spec = ProfileSpec { ready_pattern: Some(prompt.ready_pattern), ..spec };
    t.engine.update_profile(profile.id.clone(), spec).await.unwrap();
    let task = t.engine.submit_task(TaskSpec::new(profile.id.clone(), "Say you are done")).await.unwrap().task;
    assert_eq!(t.finished(&task.id).await.state, TaskState::Completed);
}

/// A plain shell writes no summary: an agent set to be done when its prompt
/// comes back is typed the instruction alone (nothing else a shell would
/// run), and its task completes when the prompt is back, in the same
/// session, the next task after it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_shell_agents_task_is_done_when_its_prompt_comes_back() {
    let t = TestEngine::start().await;
    let mut spec = ProfileSpec {
        ready_pattern: Some("shell\\$ $".into()),
        ready_quiet_ms: 50,
        completion: CompletionRule::Prompt,
        ..t.spec("shell", "bash", &["--norc", "--noprofile", "-i"])
    };
    spec.env.insert("PS1".into(), "shell$ ".into());
    let profile = t.engine.create_profile(spec).await.unwrap();

    let first = t.submit(task(&profile, "sleep 0.3; echo made > out.txt")).await.task;
    let done = t.task_until(&first.id, "to end", |task| task.state.is_finished()).await;
    assert_eq!(done.state, TaskState::Completed, "{done:?}");
    assert_eq!(std::fs::read_to_string(t.workspace.join("out.txt")).unwrap(), "made\n");
    let second = t.submit(task(&profile, "echo again >> out.txt")).await.task;
    let again = t.task_until(&second.id, "to end", |task| task.state.is_finished()).await;
    assert_eq!(again.state, TaskState::Completed);
    assert_eq!(again.session_id, done.session_id, "one session for both");

    // Nothing but the instructions was typed: the shell ran no line of the protocol's.
    let session = done.session_id.clone().unwrap();
    let screen = t.engine.screen_snapshot(session, 200).await.unwrap().recent_lines.join("\n");
    assert!(!screen.contains("command not found") && !screen.contains("summaries/"), "{screen}");

    // Claude Code and Codex end turns, not commands: refused for them, in words.
    let refused = t
        .engine
        .create_profile(ProfileSpec {
            kind: AgentKind::ClaudeCode,
            completion: CompletionRule::Prompt,
            ..t.spec("claude", "bash", &[])
        })
        .await
        .unwrap_err();
    assert!(refused.to_string().contains("only for a plain program"), "{refused}");
}
