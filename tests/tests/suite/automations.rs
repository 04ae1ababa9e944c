//! Automations through the engine, with time under control: the engine's
//! wall clock is the test's (`Clock::set_at`), so a schedule fires, skips a
//! run over one still at work, and catches up runs missed while the engine
//! was down without the test waiting for them. The agents are `cat` with
//! the terminal's echo off: a task stays at work until the test writes its
//! summary.

use crate::support;

use std::path::Path;

use support::TestEngine;
use switchboard_core::clock::Clock;
use switchboard_core::{
    Automation, AutomationSpec, CatchUp, EngineEvent, Profile, RunOutcome, TaskEnd, TaskId, TaskState, Trigger,
};

fn at(text: &str) -> i64 {
    text.parse::<jiff::Timestamp>().unwrap().as_millisecond()
}

async fn agent(t: &TestEngine, name: &str) -> Profile {
    let mut spec = t.spec(name, "sh", &["-c", "stty -echo; exec cat"]);
    spec.ready_quiet_ms = 50;
    t.engine.create_profile(spec).await.unwrap()
}

/// A task automation on `agent`, its schedule in UTC.
fn task_of(agent: &Profile, trigger: Trigger, text: &str) -> AutomationSpec {
    AutomationSpec { zone: Some("UTC".into()), ..TestEngine::automation(&agent.id, trigger, text) }
}

fn every(spec: &str) -> Trigger {
    Trigger::Every { every: spec.into() }
}

/// Waits until the automation has `runs` runs (its first may come at the
/// engine's first tick, before anything listens).
async fn runs(t: &TestEngine, id: &switchboard_core::AutomationId, runs: usize) -> Automation {
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(30);
    loop {
        let automation = t.engine.get_automation(id.clone()).await.unwrap();
        if automation.runs.len() >= runs {
            assert_eq!(automation.runs.len(), runs, "one run a time: {:#?}", automation.runs);
            return automation;
        }
        assert!(tokio::time::Instant::now() < deadline, "the automation never ran {runs} times: {automation:#?}");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}

fn task_made(automation: &Automation, run: usize) -> TaskId {
    match &automation.runs[run].outcome {
        RunOutcome::Task { task_id, .. } => task_id.clone(),
        other => panic!("run {run} made no task: {other:?}"),
    }
}

fn write_summary(workspace: &Path, task: &TaskId, status: &str) {
    let text = format!("# Task Completion Summary\n\n## Objective\nx\n\n## Status\n{status}\n");
    std::fs::create_dir_all(workspace.join("summaries")).unwrap();
    std::fs::write(workspace.join(format!("summaries/{task}.md")), text).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_schedule_fires_by_the_engines_clock_and_skips_a_run_while_the_last_is_at_work() {
    let data = tempfile::tempdir().unwrap();
    let clock = Clock::set_at(at("2026-11-30T08:30:00Z"));
    let t = TestEngine::start_in(data.path(), |config| config.clock = clock.clone()).await;
    let worker = agent(&t, "worker").await;
    let made =
        t.engine.create_automation(task_of(&worker, every("daily 09:00"), "Bump the dependencies")).await.unwrap();
    assert_eq!(made.next_run, Some(at("2026-11-30T09:00:00Z")));
    assert!(made.runs.is_empty());

    clock.set(at("2026-11-30T09:00:00Z"));
    let fired = runs(&t, &made.id, 1).await;
    assert_eq!(fired.runs[0].reason, "its schedule (daily 09:00)");
    assert_eq!(fired.runs[0].fired_at, at("2026-11-30T09:00:00Z"));
    assert_eq!(fired.next_run, Some(at("2026-12-01T09:00:00Z")));
    let first = task_made(&fired, 0);
    let task = t.task_until(&first, "typed", |task| task.typed_at.is_some()).await;
    assert_eq!(task.spec.instruction, "Bump the dependencies");
    // What started it is in its context file, not typed.
    let context = task.spec.context.expect("its context");
    assert!(context.contains("started by an automation, on its schedule (daily 09:00)"), "{context}");

    // The next day its task is still at work: that run is skipped, said so.
    clock.set(at("2026-12-01T09:00:00Z"));
    let skipped = runs(&t, &made.id, 2).await;
    let RunOutcome::Skipped { why } = &skipped.runs[1].outcome else { panic!("{:?}", skipped.runs[1]) };
    assert_eq!(why, "skipped: its last run's task is still at work");

    // Done by the day after: it runs again.
    write_summary(&t.workspace, &first, "✅ COMPLETED");
    t.task_until(&first, "completed", |task| task.state == TaskState::Completed).await;
    clock.set(at("2026-12-02T09:00:30Z"));
    let again = runs(&t, &made.id, 3).await;
    task_made(&again, 2);
    // The history says how each run's work ended.
    let shown = t.engine.get_automation(made.id.clone()).await.unwrap();
    assert!(matches!(shown.runs[0].outcome, RunOutcome::Task { state: TaskState::Completed, .. }));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn runs_missed_while_the_engine_was_down_are_caught_up_once_or_recorded_as_missed() {
    let data = tempfile::tempdir().unwrap();
    let clock = Clock::set_at(at("2026-11-30T08:10:00Z"));
    let (once, skip) = {
        let t = TestEngine::start_in(data.path(), |config| config.clock = clock.clone()).await;
        let worker = agent(&t, "worker").await;
        let once = t.engine.create_automation(task_of(&worker, every("hourly"), "Check the build")).await.unwrap();
        let skipping = AutomationSpec { catch_up: CatchUp::Skip, ..task_of(&worker, every("hourly"), "Tidy the logs") };
        let skip = t.engine.create_automation(skipping).await.unwrap();
        assert_eq!(once.next_run, Some(at("2026-11-30T09:00:00Z")));
        t.shutdown().await;
        (once.id, skip.id)
    };
    // Down from 08:10 to 13:20: the runs of 09:00 to 13:00 were missed.
    clock.set(at("2026-11-30T13:20:00Z"));
    let t = TestEngine::start_in(data.path(), |config| config.clock = clock.clone()).await;
    let caught = runs(&t, &once, 1).await;
    assert_eq!(
        caught.runs[0].reason,
        "its schedule (hourly), caught up once: 5 runs were missed while the engine was not running (or the machine slept)"
    );
    task_made(&caught, 0);
    assert_eq!(caught.next_run, Some(at("2026-11-30T14:00:00Z")));
    let missed = runs(&t, &skip, 1).await;
    let RunOutcome::Skipped { why } = &missed.runs[0].outcome else { panic!("{:?}", missed.runs[0]) };
    assert_eq!(
        why,
        "5 runs were missed while the engine was not running (or the machine slept); not caught up, as chosen"
    );
    // Once, not a burst: nothing more until the next hour.
    assert_eq!(t.engine.list_tasks(None).await.unwrap().len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_chain_gives_work_after_another_agents_task_and_a_ring_is_refused() {
    let t = TestEngine::start().await;
    let coder = agent(&t, "coder").await;
    let reviewer = agent(&t, "reviewer").await;
    let after = Trigger::TaskEnded { profile_id: coder.id.clone(), ended: TaskEnd::Completed };
    let review = t.engine.create_automation(task_of(&reviewer, after, "Review what changed")).await.unwrap();
    assert_eq!(review.next_run, None);

    // A ring: the coder after the reviewer, or an agent after itself.
    let back = Trigger::TaskEnded { profile_id: reviewer.id.clone(), ended: TaskEnd::Any };
    let refused = t.engine.create_automation(task_of(&coder, back, "Fix what the review found")).await.unwrap_err();
    assert!(refused.to_string().contains("a ring of automations that never ends"), "{refused}");
    let itself = Trigger::TaskEnded { profile_id: coder.id.clone(), ended: TaskEnd::Failed };
    let refused = t.engine.create_automation(task_of(&coder, itself, "Try again")).await.unwrap_err();
    assert!(refused.to_string().contains("a ring of automations"), "{refused}");

    let task =
        t.engine.submit_task(switchboard_core::TaskSpec::new(coder.id.clone(), "Port the parser")).await.unwrap();
    let task = task.task.id;
    t.task_until(&task, "typed", |task| task.typed_at.is_some()).await;
    write_summary(&t.workspace, &task, "✅ COMPLETED");
    let ran = runs(&t, &review.id, 1).await;
    assert_eq!(ran.runs[0].reason, "coder's task “Port the parser” completed");
    let made = task_made(&ran, 0);
    let made = t.engine.get_task(made).await.unwrap();
    assert_eq!(made.spec.profile_id, reviewer.id);
    let context = made.spec.context.unwrap();
    assert!(context.contains("coder's task “Port the parser” completed"), "{context}");
    // Bad input is refused in words and nothing is kept.
    let gone = task_of(&coder, every("25:00"), "x");
    let refused = t.engine.create_automation(gone).await.unwrap_err();
    assert!(refused.to_string().contains("is not a schedule Switchboard reads"), "{refused}");
    let zone = AutomationSpec { zone: Some("Mars/Olympus".into()), ..task_of(&coder, every("09:00"), "x") };
    let refused = t.engine.create_automation(zone).await.unwrap_err();
    assert!(refused.to_string().contains("No time zone is called"), "{refused}");
    let unknown =
        AutomationSpec { profile_id: switchboard_core::ProfileId::new(), ..task_of(&coder, every("2h"), "x") };
    assert!(t.engine.create_automation(unknown).await.is_err());
    assert_eq!(t.engine.list_automations().await.unwrap().len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_automation_whose_runs_keep_failing_pauses_itself_and_the_hourly_cap_holds_runs_back() {
    let t = TestEngine::start().await;
    let worker = agent(&t, "worker").await;
    let made =
        t.engine.create_automation(task_of(&worker, every("weekdays 09:00"), "Run the flaky suite")).await.unwrap();
    for run in 0..5 {
        let shown = t.engine.run_automation_now(made.id.clone()).await.unwrap();
        assert_eq!(shown.runs[run].reason, "run now");
        let task = task_made(&shown, run);
        t.task_until(&task, "typed", |task| task.typed_at.is_some()).await;
        write_summary(&t.workspace, &task, "❌ FAILED");
        t.task_until(&task, "failed", |task| task.state == TaskState::Failed).await;
    }
    let paused = t.automation_paused(&made.id).await;
    let why = paused.state.reason().unwrap();
    assert!(why.starts_with("it paused itself: its last 5 runs ended badly"), "{why}");
    assert_eq!(paused.next_run, None);
    t.events
        .wait_for("the pause told", |events| {
            events
                .iter()
                .any(|e| matches!(e, EngineEvent::Logged { entry, .. } if matches!(&entry.kind, switchboard_core::LogKind::AutomationPaused { name, .. } if name == "Run the flaky suite")))
                .then_some(())
        })
        .await;

    // At most two runs an hour: the third is held back, said so.
    let capped = AutomationSpec { max_runs_per_hour: 2, ..task_of(&worker, every("2h"), "Sweep the tree") };
    let capped = t.engine.create_automation(capped).await.unwrap();
    for run in 0..2 {
        let shown = t.engine.run_automation_now(capped.id.clone()).await.unwrap();
        let task = task_made(&shown, run);
        t.task_until(&task, "typed", |task| task.typed_at.is_some()).await;
        write_summary(&t.workspace, &task, "✅ COMPLETED");
        t.task_until(&task, "completed", |task| task.state == TaskState::Completed).await;
    }
    let held = t.engine.run_automation_now(capped.id.clone()).await.unwrap();
    let RunOutcome::Skipped { why } = &held.runs[2].outcome else { panic!("{:?}", held.runs[2]) };
    assert_eq!(why, "held back: it already ran 2 times in the last hour, its most");
    // Paused, resumed, removed: the user's.
    assert_eq!(t.engine.resume_automation(made.id.clone()).await.unwrap().state.as_str(), "active");
    t.engine.remove_automation(made.id.clone()).await.unwrap();
    assert!(t.engine.get_automation(made.id).await.is_err());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_command_line_makes_shows_runs_and_removes_automations() {
    let clock = Clock::set_at(at("2026-11-27T10:00:00Z"));
    let data = tempfile::tempdir().unwrap();
    let t = TestEngine::start_in(data.path(), |config| config.clock = clock.clone()).await;
    agent(&t, "worker").await;
    let cli = |line: &'static [&'static str]| support::cli_async(&t, line);
    let (code, out, err) = cli(&[
        "automation",
        "add",
        "--agent",
        "worker",
        "--every",
        "weekdays 09:00",
        "--zone",
        "UTC",
        "Bump",
        "the",
        "dependencies",
    ])
    .await;
    assert_eq!(code, std::process::ExitCode::SUCCESS, "{err}");
    let id = out.trim().to_owned();
    assert!(id.parse::<switchboard_core::AutomationId>().is_ok(), "the id alone: {out:?}");
    // Bad input is refused in words before anything is kept.
    let (code, _, err) = cli(&["automation", "add", "--agent", "worker", "--every", "25:00", "x"]).await;
    assert_ne!(code, std::process::ExitCode::SUCCESS);
    assert!(err.contains("\"25:00\" is not a schedule Switchboard reads"), "{err}");
    let (code, _, err) = cli(&["automation", "add", "--agent", "nobody", "--every", "2h", "x"]).await;
    assert_ne!(code, std::process::ExitCode::SUCCESS);
    assert!(err.contains("nobody"), "{err}");
    assert_eq!(t.engine.list_automations().await.unwrap().len(), 1);

    let shown = shown_json(&t, &id).await;
    assert_eq!(shown["state"], "active");
    // Made on a Friday after nine: Monday.
    assert_eq!(shown["next_run"], at("2026-11-30T09:00:00Z"));
    assert_eq!(shown["history"], serde_json::json!([]));

    let (_, out, _) = support::cli_async(&t, &["automation", "run-now", &id]).await;
    assert!(out.starts_with("ran “Bump the dependencies”: task "), "{out}");
    let shown = shown_json(&t, &id).await;
    let run = &shown["history"][0];
    assert_eq!(run["reason"], "run now");
    assert!(run["task"].as_str().is_some() && run["loop"].is_null(), "{run}");
    assert!(["queued", "running"].contains(&run["outcome"].as_str().unwrap()), "{run}");
    assert_eq!(run["fired_at"], at("2026-11-27T10:00:00Z"));

    let (_, out, _) = support::cli_async(&t, &["automation", "show", &id]).await;
    assert!(out.contains("runs: every weekdays 09:00 (UTC)\nnext run: 2026-11-30T09:00:00Z\n"), "{out}");
    assert!(out.contains("history:\n  2026-11-27T10:00:00Z  run now · task "), "{out}");
    let (_, out, _) = support::cli_async(&t, &["automation", "pause", &id]).await;
    assert_eq!(out.trim(), "paused “Bump the dependencies”; it starts nothing until resumed");
    assert_eq!(shown_json(&t, &id).await["next_run"], serde_json::Value::Null);
    let (_, out, _) = support::cli_async(&t, &["automation", "list"]).await;
    assert!(out.contains("paused") && out.contains("worker") && out.contains("every weekdays 09:00"), "{out}");
    let (_, out, _) = support::cli_async(&t, &["automation", "resume", &id]).await;
    assert_eq!(out.trim(), "resumed “Bump the dependencies”; it runs next at 2026-11-30T09:00:00Z");
    let (_, out, _) = support::cli_async(&t, &["automation", "remove", &id]).await;
    assert_eq!(out.trim(), format!("removed automation {id}"));
    assert!(t.engine.list_automations().await.unwrap().is_empty());
}

async fn shown_json(t: &TestEngine, id: &str) -> serde_json::Value {
    let (_, out, _) = support::cli_async(t, &["automation", "show", id, "--json"]).await;
    serde_json::from_str(&out).unwrap()
}

fn git(repo: &Path, args: &[&str]) {
    let status = std::process::Command::new("git")
        .arg("-C")
        .arg(repo)
        .args(["-c", "user.name=t", "-c", "user.email=t@e", "-c", "commit.gpgsign=false"])
        .args(args)
        .status()
        .unwrap();
    assert!(status.success(), "git {args:?}");
}

async fn files_trigger_runs(poll_folders: bool) {
    let t = TestEngine::start_with(|config| config.poll_folders = poll_folders).await;
    let worker = agent(&t, "worker").await;
    let watched = tempfile::tempdir().unwrap();
    let dir = watched.path().display().to_string();
    let trigger = Trigger::FilesChanged { dir: dir.clone(), globs: vec!["docs/**/*.md".into()] };
    let made = t.engine.create_automation(task_of(&worker, trigger, "Check the docs' links")).await.unwrap();
    std::fs::create_dir_all(watched.path().join("docs/guide")).unwrap();
    std::fs::create_dir_all(watched.path().join(".git")).unwrap();
    std::fs::write(watched.path().join("notes.txt"), "not watched").unwrap();
    std::fs::write(watched.path().join(".git/HEAD"), "ref").unwrap();
    std::fs::write(watched.path().join("docs/guide/intro.md"), "# Intro").unwrap();
    let ran = runs(&t, &made.id, 1).await;
    assert_eq!(ran.runs[0].reason, format!("files changed under {dir}: docs/guide/intro.md"));
    let task = t.engine.get_task(task_made(&ran, 0)).await.unwrap();
    let context = task.spec.context.unwrap();
    assert!(context.contains("- docs/guide/intro.md\n") && !context.contains("notes.txt"), "{context}");
    // The command line says when it runs in the window's words.
    let (_, out, _) = support::cli_async(&t, &["automation", "show", &made.id.to_string()]).await;
    assert!(out.contains(&format!("runs: when files matching docs/**/*.md change in {dir}")), "{out}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_change_to_matching_files_runs_it_once_the_folder_is_quiet() {
    files_trigger_runs(false).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_folder_polled_where_the_systems_watches_ran_out_runs_it_too() {
    files_trigger_runs(true).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_commit_on_a_branch_runs_it_with_the_commits_passed_on() {
    let t = TestEngine::start().await;
    let worker = agent(&t, "worker").await;
    let repo = tempfile::tempdir().unwrap();
    git(repo.path(), &["init", "-q", "-b", "main"]);
    std::fs::write(repo.path().join("a.txt"), "one").unwrap();
    git(repo.path(), &["add", "."]);
    git(repo.path(), &["commit", "-q", "-m", "First"]);
    let path = repo.path().display().to_string();
    let missing = Trigger::BranchMoved { repo: path.clone(), branch: "release".into() };
    let refused = t.engine.create_automation(task_of(&worker, missing, "x")).await.unwrap_err();
    assert!(refused.to_string().contains("has no branch release"), "{refused}");
    let gone = Trigger::BranchMoved { repo: "/no/such/folder".into(), branch: "main".into() };
    let refused = t.engine.create_automation(task_of(&worker, gone, "x")).await.unwrap_err();
    assert!(refused.to_string().contains("The folder /no/such/folder does not exist"), "{refused}");

    let trigger = Trigger::BranchMoved { repo: path.clone(), branch: "main".into() };
    let made = t.engine.create_automation(task_of(&worker, trigger, "Test what changed")).await.unwrap();
    // Two commits made on a side branch, then main moved to them at once.
    git(repo.path(), &["checkout", "-q", "-b", "work"]);
    std::fs::write(repo.path().join("a.txt"), "two").unwrap();
    git(repo.path(), &["commit", "-q", "-am", "Second"]);
    std::fs::write(repo.path().join("a.txt"), "three").unwrap();
    git(repo.path(), &["commit", "-q", "-am", "Third"]);
    git(repo.path(), &["checkout", "-q", "main"]);
    git(repo.path(), &["merge", "-q", "--ff-only", "work"]);
    let ran = runs(&t, &made.id, 1).await;
    assert!(ran.runs[0].reason.starts_with("main moved from "), "{}", ran.runs[0].reason);
    let head = ran.branch_at.clone().unwrap();
    let (_, out, _) = support::cli_async(&t, &["automation", "show", &made.id.to_string()]).await;
    assert!(out.contains(&format!("branch at: {}\n", &head[..10])), "{out}");
    let task = t.engine.get_task(task_made(&ran, 0)).await.unwrap();
    let context = task.spec.context.unwrap();
    assert!(
        context.contains(" Third\n") && context.contains(" Second\n") && !context.contains(" First\n"),
        "{context}"
    );
}

/// What an automation's own run changes in its folder does not run it
/// again: files written while its task is at work (or a moment after) are
/// not counted. Another automation on the folder sees them, which says
/// when they were judged; a change made after the run is counted alone.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn changes_made_while_its_own_run_works_do_not_run_it_again() {
    let t = TestEngine::start().await;
    let worker = agent(&t, "worker").await;
    let onlooker = agent(&t, "onlooker").await;
    let watched = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(watched.path().join("src")).unwrap();
    let dir = watched.path().display().to_string();
    let own = Trigger::FilesChanged { dir: dir.clone(), globs: vec!["src/*.txt".into()] };
    let made = t.engine.create_automation(task_of(&worker, own, "Format the sources")).await.unwrap();
    let other = Trigger::FilesChanged { dir: dir.clone(), globs: vec!["src/made-by-the-run.txt".into()] };
    let probe = t.engine.create_automation(task_of(&onlooker, other, "Note the change")).await.unwrap();

    std::fs::write(watched.path().join("src/by-the-user.txt"), "one").unwrap();
    let first = task_made(&runs(&t, &made.id, 1).await, 0);
    t.task_until(&first, "at work", |task| task.state == TaskState::Running).await;
    // What its run writes while at work: seen by the other automation, not counted by its own.
    std::fs::write(watched.path().join("src/made-by-the-run.txt"), "formatted").unwrap();
    let seen = runs(&t, &probe.id, 1).await;
    assert_eq!(seen.runs[0].reason, format!("files changed under {dir}: src/made-by-the-run.txt"));
    write_summary(&t.workspace, &first, "✅ COMPLETED");
    let ended = t.task_until(&first, "completed", |task| task.state == TaskState::Completed).await;
    // A moment after its run ended still counts as its run's; past that, a change is the user's.
    let counted_from = ended.ended_at.unwrap() + switchboard_core::automations::rules::OWN_CHANGES_MS;
    while switchboard_core::api::now() <= counted_from {
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    std::fs::write(watched.path().join("src/later.txt"), "two").unwrap();
    let ran = runs(&t, &made.id, 2).await;
    assert_eq!(ran.runs[1].reason, format!("files changed under {dir}: src/later.txt"), "{:#?}", ran.runs);
    let context = t.engine.get_task(task_made(&ran, 1)).await.unwrap().spec.context.unwrap();
    assert!(!context.contains("made-by-the-run"), "{context}");
}
