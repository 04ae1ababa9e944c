//! The conflict radar and the diff refresh under load, measured in one run:
//! `WORKTREES` (20) worktrees of a repository of `FILES` (10,000) files, each
//! an agent's (a task of its own), one of them written to every 100 ms as an
//! agent writes (a new file, then a change to a shared file).
//!
//! - Time to a changed diff: from a file written in the worktree to the
//!   engine's `worktree_changed` event saying so, and to a `worktree_diff`
//!   answer that holds it (what the Changes view shows), p50 and p99.
//! - The engine's CPU (its own and its git runs') while the agent writes,
//!   per second of writing.
//! - Baseline, same run, same worktrees: `git diff --stat` over all 20
//!   worktrees, once (what a poller would run at each look).
//!
//! `cargo bench -p switchboard-tests --bench worktrees`

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use switchboard_core::{Engine, EngineConfig, EngineEvent, Isolation, ProfileSpec, TaskSpec, WorktreeInfo};
use switchboard_tests::measure::{ms, percentiles};

const WORKTREES: usize = 20;
const FILES: usize = 10_000;
const WRITES: usize = 100;
const EVERY: Duration = Duration::from_millis(100);

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git").arg("-C").arg(dir).args(args).output().unwrap();
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn cpu() -> (Duration, Duration) {
    let usage = |who| {
        let usage = nix::sys::resource::getrusage(who).unwrap();
        let (user, system) = (usage.user_time(), usage.system_time());
        Duration::from_micros((user.tv_sec() * 1_000_000 + user.tv_usec()) as u64)
            + Duration::from_micros((system.tv_sec() * 1_000_000 + system.tv_usec()) as u64)
    };
    (usage(nix::sys::resource::UsageWho::RUSAGE_SELF), usage(nix::sys::resource::UsageWho::RUSAGE_CHILDREN))
}

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("project");
    for i in 0..FILES {
        let file = repo.join(format!("src/m{:03}/f{i:05}.txt", i / 100));
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, format!("file {i}\nline two\nline three\n")).unwrap();
    }
    std::fs::write(repo.join("shared.txt"), "one\ntwo\nthree\n").unwrap();
    git(&repo, &["init", "--quiet", "-b", "main"]);
    git(&repo, &["config", "user.email", "bench@example.com"]);
    git(&repo, &["config", "user.name", "Bench"]);
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "--quiet", "-m", "start"]);
    println!("a repository of {FILES} files; {WORKTREES} worktrees");

    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let events: Arc<Mutex<Vec<(Instant, EngineEvent)>>> = Arc::default();
        let sink_events = events.clone();
        let sink = Arc::new(move |event: EngineEvent| {
            if matches!(event, EngineEvent::WorktreeChanged { .. }) {
                sink_events.lock().unwrap().push((Instant::now(), event));
            }
        });
        let engine = Engine::start(EngineConfig::new(dir.path().join("engine"), None), sink).await.unwrap();
        // Each agent takes its task and then waits (its worktree stays open, its task at work).
        let mut tasks = Vec::new();
        let made = Instant::now();
        for n in 0..WORKTREES {
            let spec = ProfileSpec {
                name: format!("agent{n}"),
                command: "sh".into(),
                args: vec!["-c".into(), "printf 'agent> '; read -r line; sleep 100000".into()],
                cwd: repo.display().to_string(),
                ready_pattern: Some("agent> $".into()),
                ready_quiet_ms: 50,
                isolation: Isolation::Worktree,
                ..ProfileSpec::default()
            };
            let profile = engine.create_profile(spec).await.unwrap();
            let submitted = engine.submit_task(TaskSpec::new(profile.id, format!("Work on part {n}"))).await.unwrap();
            tasks.push(submitted.task.id);
        }
        let listed = loop {
            let listed = engine.list_worktrees().await.unwrap();
            if listed.len() == WORKTREES {
                break listed;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        };
        println!("{WORKTREES} worktrees made in {:.1} s", made.elapsed().as_secs_f64());
        let paths: Vec<PathBuf> = listed.iter().map(|w| PathBuf::from(&w.path)).collect();
        // Another agent changed the shared file in a second worktree: the writer will meet it.
        std::fs::write(paths[1].join("shared.txt"), "one\nTWO\nthree\n").unwrap();

        // Baseline: `git diff --stat` over every worktree, once.
        let mut baseline = Vec::new();
        for _ in 0..5 {
            let started = Instant::now();
            for path in &paths {
                git(path, &["diff", "--stat", "main"]);
            }
            baseline.push(started.elapsed());
        }
        let (baseline_p50, _) = percentiles(baseline);

        // Idle: what the radar costs with nothing written.
        let idle_start = (Instant::now(), cpu());
        tokio::time::sleep(Duration::from_secs(5)).await;
        let idle = cpu_per_second(idle_start);

        // The agent writes every 100 ms: a new file, then the shared file.
        let writer = &listed[0];
        let mut to_event = Vec::new();
        let mut to_diff = Vec::new();
        let start = (Instant::now(), cpu());
        for n in 1..=WRITES {
            let written = Instant::now();
            if n == WRITES / 2 {
                std::fs::write(paths[0].join("shared.txt"), "one\ntwo\nTHREE\n").unwrap();
            } else {
                std::fs::write(paths[0].join(format!("new-{n}.txt")), format!("note {n}\n")).unwrap();
            }
            // Each step adds a changed file: a new one, or (once) the shared one.
            let expected = n as u32;
            let changed = wait_for_files(&events, &writer.task, expected, written).await;
            to_event.push(changed - written);
            let diff = engine.worktree_diff(writer.task.clone()).await.unwrap();
            to_diff.push(written.elapsed());
            assert!(diff.files.len() as u32 >= expected);
            if let Some(rest) = EVERY.checked_sub(written.elapsed()) {
                tokio::time::sleep(rest).await;
            }
        }
        let busy = cpu_per_second(start);
        let meets = engine.list_worktrees().await.unwrap();
        assert!(!meets[0].conflicts_with.is_empty(), "the radar saw the shared file");

        let (event_p50, event_p99) = percentiles(to_event);
        let (diff_p50, diff_p99) = percentiles(to_diff);
        println!("baseline: `git diff --stat` over all {WORKTREES} worktrees: {:7.1} ms", ms(baseline_p50));
        println!("a file written → worktree_changed: p50 {:7.1} ms, p99 {:7.1} ms", ms(event_p50), ms(event_p99));
        println!("a file written → its diff answered: p50 {:7.1} ms, p99 {:7.1} ms", ms(diff_p50), ms(diff_p99));
        println!("  ratio (p50) to the baseline:      {:7.2}", ms(diff_p50) / ms(baseline_p50));
        println!(
            "engine CPU (its own + its git runs), % of a core: idle {:5.1} + {:5.1}, writing {:5.1} + {:5.1}",
            idle.0, idle.1, busy.0, busy.1
        );
        engine.shutdown().await;
    });
}

/// The time of the first `worktree_changed` of `task` after `since` that
/// counts at least `files` changed files.
async fn wait_for_files(
    events: &Arc<Mutex<Vec<(Instant, EngineEvent)>>>,
    task: &str,
    files: u32,
    since: Instant,
) -> Instant {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let found = events.lock().unwrap().iter().find_map(|(at, event)| match event {
            EngineEvent::WorktreeChanged { worktree: WorktreeInfo { task: t, files_changed, .. } }
                if *at >= since && t == task && *files_changed >= files =>
            {
                Some(*at)
            }
            _ => None,
        });
        if let Some(at) = found {
            return at;
        }
        assert!(Instant::now() < deadline, "no worktree_changed with {files} files");
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
}

/// CPU used since `start` (this process, and its children that ended), as
/// percentages of one core over the time passed.
fn cpu_per_second(start: (Instant, (Duration, Duration))) -> (f64, f64) {
    let (at, (own, children)) = start;
    let (own_now, children_now) = cpu();
    let wall = at.elapsed().as_secs_f64();
    ((own_now - own).as_secs_f64() / wall * 100.0, (children_now - children).as_secs_f64() / wall * 100.0)
}
