//! Completion detection: from a summary file landing in the workspace to the
//! engine's task-completed event, over many tasks, beside the protocol
//! spec's original design (look for the file every 5 seconds) run over the
//! same files in the same run.
//!
//! The agent is `cat`, which never writes summaries: for each task the bench
//! waits until the task is typed, writes `summaries/<id>.md` atomically and
//! times the completed event. A poller thread meanwhile checks every
//! expected file every 5 s and records when it first sees each one.
//!
//! `cargo bench -p switchboard-tests --bench completion_latency`
//! (`TASKS=200` for a shorter run; the default is 1000).

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use switchboard_tests::measure::{ms, percentiles};

use switchboard_core::{Engine, EngineConfig, EngineEvent, ProfileSpec, TaskId, TaskSpec, TaskState};
use tokio::sync::mpsc;

const POLL_INTERVAL: Duration = Duration::from_secs(5);

/// Files the poller looks for: path → when it was written.
type Pending = Arc<Mutex<HashMap<PathBuf, Instant>>>;

fn main() {
    let tasks: usize = std::env::var("TASKS").ok().and_then(|n| n.parse().ok()).unwrap_or(1000);
    let dir = tempfile::tempdir().unwrap();
    let workspace = dir.path().join("workspace");
    std::fs::create_dir_all(workspace.join("summaries")).unwrap();

    let pending: Pending = Arc::default();
    let polled: Arc<Mutex<Vec<Duration>>> = Arc::default();
    let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let poller = {
        let (pending, polled, done) = (pending.clone(), polled.clone(), done.clone());
        std::thread::spawn(move || {
            while !done.load(std::sync::atomic::Ordering::SeqCst) || !pending.lock().unwrap().is_empty() {
                std::thread::sleep(POLL_INTERVAL);
                let now = Instant::now();
                pending.lock().unwrap().retain(|path, written| {
                    let seen = path.exists();
                    if seen {
                        polled.lock().unwrap().push(now - *written);
                    }
                    !seen
                });
            }
        })
    };

    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    let watched = runtime.block_on(run_tasks(dir.path().to_path_buf(), workspace, tasks, pending));
    done.store(true, std::sync::atomic::Ordering::SeqCst);
    poller.join().unwrap();
    let polled = polled.lock().unwrap().clone();

    let (w50, w99) = percentiles(watched);
    let (p50, p99) = percentiles(polled);
    println!("tasks: {tasks}");
    println!("5 s polling (spec, baseline):  p50 {:>9.1} ms   p99 {:>9.1} ms", ms(p50), ms(p99));
    println!("engine (workspace watch):      p50 {:>9.1} ms   p99 {:>9.1} ms", ms(w50), ms(w99));
    println!("ratio engine/polling:          p50 {:>9.4}      p99 {:>9.4}", ms(w50) / ms(p50), ms(w99) / ms(p99));
}

async fn run_tasks(data_dir: PathBuf, workspace: PathBuf, tasks: usize, pending: Pending) -> Vec<Duration> {
    let (events_tx, mut events) = mpsc::unbounded_channel();
    let sink = move |event: EngineEvent| {
        events_tx.send(event).ok();
    };
    let engine = Engine::start(EngineConfig::new(data_dir, None), Arc::new(sink)).await.unwrap();
    let spec = ProfileSpec {
        name: "cat".into(),
        command: "cat".into(),
        cwd: workspace.display().to_string(),
        ready_quiet_ms: 10,
        ..ProfileSpec::default()
    };
    let profile = engine.create_profile(spec).await.unwrap();
    let mut latencies = Vec::with_capacity(tasks);
    for n in 0..tasks {
        let task = TaskSpec::new(profile.id.clone(), format!("task {n}"));
        let id = engine.submit_task(task).await.unwrap().task.id;
        wait_for(&mut events, &id, |state, typed| state == TaskState::Running && typed).await;
        let path = workspace.join("summaries").join(format!("{id}.md"));
        let temp = path.with_extension("md.tmp");
        std::fs::write(&temp, "## Status\n✅ COMPLETED\n").unwrap();
        std::fs::rename(&temp, &path).unwrap();
        let written = Instant::now();
        pending.lock().unwrap().insert(path, written);
        wait_for(&mut events, &id, |state, _| state == TaskState::Completed).await;
        latencies.push(written.elapsed());
    }
    engine.shutdown().await;
    latencies
}

async fn wait_for(
    events: &mut mpsc::UnboundedReceiver<EngineEvent>,
    id: &TaskId,
    reached: impl Fn(TaskState, bool) -> bool,
) {
    while let Some(event) = events.recv().await {
        if let EngineEvent::TaskChanged { task } = event
            && &task.id == id
        {
            assert!(
                !task.state.is_finished() || task.state == TaskState::Completed,
                "task ended {:?}: {:?}",
                task.state,
                task.reason.as_deref()
            );
            if reached(task.state, task.typed_at.is_some()) {
                return;
            }
        }
    }
    panic!("the engine stopped");
}
