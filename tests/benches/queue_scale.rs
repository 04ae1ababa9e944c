//! A long queue: submitting a task and picking the next one with `QUEUED`
//! (10,000) tasks waiting, beside the same with an almost empty queue, in
//! the same run. Submit: the latency of `submit_task` for the first
//! `SAMPLES` (100) submissions (baseline) and the last `SAMPLES` (measured).
//! Pick: from resuming a paused queue to the task-started event, `SAMPLES`
//! rounds, with one task queued (baseline) and with the long queue.
//!
//! `cargo bench -p switchboard-tests --bench queue_scale` (`QUEUED=4000` for a quicker run).

use std::sync::Arc;
use std::time::{Duration, Instant};
use switchboard_tests::measure::{ms, percentiles};

use switchboard_core::{
    Engine, EngineConfig, EngineEvent, EngineHandle, ProfileId, ProfileSpec, TaskId, TaskSpec, TaskState,
};
use tokio::sync::mpsc;

fn main() {
    let queued: usize = std::env::var("QUEUED").ok().and_then(|n| n.parse().ok()).unwrap_or(10_000);
    let samples: usize = std::env::var("SAMPLES").ok().and_then(|n| n.parse().ok()).unwrap_or(100);
    let dir = tempfile::tempdir().unwrap();
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let (events_tx, mut events) = mpsc::unbounded_channel();
        let sink = move |event: EngineEvent| {
            if let EngineEvent::TaskChanged { task } = event
                && task.state == TaskState::Running
            {
                events_tx.send((task.id, Instant::now())).ok();
            }
        };
        let engine = Engine::start(EngineConfig::new(dir.path().join("data"), None), Arc::new(sink)).await.unwrap();
        let profile = |name: &str| ProfileSpec {
            name: name.into(),
            command: "sleep".into(),
            args: vec!["600".into()],
            cwd: dir.path().display().to_string(),
            ..ProfileSpec::default()
        };
        let long = engine.create_profile(profile("long queue")).await.unwrap().id;
        let short = engine.create_profile(profile("short queue")).await.unwrap().id;
        engine.set_queue_paused(None, true).await.unwrap();

        let mut submits = Vec::with_capacity(queued);
        for n in 0..queued {
            let spec = TaskSpec::new(long.clone(), format!("task {n}: {}", "words of an instruction ".repeat(8)));
            let started = Instant::now();
            engine.submit_task(spec).await.unwrap();
            submits.push(started.elapsed());
        }
        let first = percentiles(submits[..samples].to_vec());
        let last = percentiles(submits[queued - samples..].to_vec());

        let mut short_picks = Vec::with_capacity(samples);
        let mut long_picks = Vec::with_capacity(samples);
        for _ in 0..samples {
            engine.submit_task(TaskSpec::new(short.clone(), "one task")).await.unwrap();
            short_picks.push(pick(&engine, &short, &mut events).await);
            long_picks.push(pick(&engine, &long, &mut events).await);
        }
        let (short_picks, long_picks) = (percentiles(short_picks), percentiles(long_picks));

        println!("queued: {queued}, samples: {samples}");
        println!("submit, first {samples} (baseline):  p50 {:>8.2} ms   p99 {:>8.2} ms", ms(first.0), ms(first.1));
        println!("submit, last {samples}:              p50 {:>8.2} ms   p99 {:>8.2} ms", ms(last.0), ms(last.1));
        println!(
            "ratio:                        p50 {:>8.2}      p99 {:>8.2}",
            ratio(last.0, first.0),
            ratio(last.1, first.1)
        );
        println!("pick, one queued (baseline):  p50 {:>8.2} ms   p99 {:>8.2} ms", ms(short_picks.0), ms(short_picks.1));
        println!("pick, {queued} queued:        p50 {:>8.2} ms   p99 {:>8.2} ms", ms(long_picks.0), ms(long_picks.1));
        println!(
            "ratio:                        p50 {:>8.2}      p99 {:>8.2}",
            ratio(long_picks.0, short_picks.0),
            ratio(long_picks.1, short_picks.1)
        );
        engine.shutdown().await;
    });
}

/// Resumes the queue, waits for its next task to start, pauses it again and
/// cancels that task (so the queue stays as long). Returns the time from
/// resuming to the start.
async fn pick(
    engine: &EngineHandle,
    profile: &ProfileId,
    events: &mut mpsc::UnboundedReceiver<(TaskId, Instant)>,
) -> Duration {
    let resumed = Instant::now();
    engine.set_queue_paused(Some(profile.clone()), false).await.unwrap();
    let (task, at) = events.recv().await.expect("a task starts");
    engine.set_queue_paused(Some(profile.clone()), true).await.unwrap();
    engine.cancel_task(task).await.unwrap();
    at - resumed
}

fn ratio(measured: Duration, baseline: Duration) -> f64 {
    measured.as_secs_f64() / baseline.as_secs_f64()
}
