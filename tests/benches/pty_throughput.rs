//! Output throughput: an agent printing a large file through a PTY, read
//! (a) by a bare reader thread that discards the bytes — the baseline — and
//! (b) by the engine (the signal scanner, which runs on any command's agent,
//! the replay buffer and screen model, batching, one attached subscriber).
//! Same producer, same run; reports MB/s and the ratio. The engine's ingest
//! is timed to the last byte its subscriber receives; the time to the
//! session's reported end (the process tree's cleanup, the record written)
//! is printed beside it.
//!
//! `cargo bench -p switchboard-tests --bench pty_throughput`

use std::io::Read;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use portable_pty::{CommandBuilder, PtySize, native_pty_system};
use switchboard_core::{AgentKind, Engine, EngineConfig, EngineEvent, ProfileSpec, SessionState, TermSize};
use switchboard_tests::measure::median;

const FILE_BYTES: usize = 64 * 1024 * 1024;
/// Rounds of each, taken in turns (reader, engine, reader, …) so a machine
/// that speeds up or slows down meanwhile weighs on both alike.
const ROUNDS: usize = 15;

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("output.txt");
    let text = switchboard_tests::measure::coloured_lines(FILE_BYTES);
    std::fs::write(&file, &text).unwrap();
    let file = file.display().to_string();

    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    let (mut baselines, mut engines, mut ends, mut ratios, mut end_ratios) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        let baseline = bare_pty(&file);
        let (engine, end) = runtime.block_on(through_engine(dir.path(), &file));
        ratios.push(baseline.as_secs_f64() / engine.as_secs_f64());
        end_ratios.push(baseline.as_secs_f64() / end.as_secs_f64());
        baselines.push(baseline);
        engines.push(engine);
        ends.push(end);
    }
    ratios.sort_by(f64::total_cmp);
    end_ratios.sort_by(f64::total_cmp);

    let mb = |d: Duration| text.len() as f64 / 1e6 / d.as_secs_f64();
    println!("bytes per round: {} MB, {ROUNDS} rounds of each in turns; medians", text.len() / 1_000_000);
    println!("bare PTY reader (baseline):       {:7.1} MB/s", mb(median(baselines)));
    println!("engine (scanner, model, batches): {:7.1} MB/s to its subscriber's last byte", mb(median(engines)));
    println!(
        "ratio engine/baseline, per round:  {:7.2} (lowest {:.2}, highest {:.2})",
        ratios[ROUNDS / 2],
        ratios[0],
        ratios[ROUNDS - 1]
    );
    println!(
        "to the session's reported end:     {:7.1} MB/s, ratio {:.2} (lowest {:.2}, highest {:.2})",
        mb(median(ends)),
        end_ratios[ROUNDS / 2],
        end_ratios[0],
        end_ratios[ROUNDS - 1]
    );
}

fn bare_pty(file: &str) -> Duration {
    let pair = native_pty_system().openpty(PtySize { rows: 24, cols: 80, pixel_width: 0, pixel_height: 0 }).unwrap();
    let mut command = CommandBuilder::new("cat");
    command.arg(file);
    command.cwd("/");
    let started = Instant::now();
    let mut child = pair.slave.spawn_command(command).unwrap();
    drop(pair.slave);
    let mut reader = pair.master.try_clone_reader().unwrap();
    let mut buf = vec![0u8; 16 * 1024];
    let mut total = 0;
    while let Ok(n) = reader.read(&mut buf) {
        if n == 0 {
            break;
        }
        total += n;
    }
    child.wait().unwrap();
    let elapsed = started.elapsed();
    assert!(total >= FILE_BYTES, "read only {total} bytes");
    elapsed
}

/// The time to the subscriber's last byte, and to the session's reported end.
async fn through_engine(dir: &std::path::Path, file: &str) -> (Duration, Duration) {
    let data = tempfile::tempdir_in(dir).unwrap();
    let (ended_tx, mut ended) = tokio::sync::mpsc::unbounded_channel();
    let sink = move |event: EngineEvent| {
        if let EngineEvent::SessionChanged { session } = event
            && !matches!(session.state, SessionState::Running { .. })
        {
            ended_tx.send(()).ok();
        }
    };
    let engine = Engine::start(EngineConfig::new(data.path().to_path_buf(), None), Arc::new(sink)).await.unwrap();
    let spec = ProfileSpec {
        name: "cat".into(),
        command: "cat".into(),
        args: vec![file.into()],
        env: Default::default(),
        cwd: "/".into(),
        kind: AgentKind::Generic,
        start_on_launch: false,
        ..Default::default()
    };
    let profile = engine.create_profile(spec).await.unwrap();
    let received = Arc::new(AtomicUsize::new(0));
    let count = received.clone();
    let started = Instant::now();
    let last_byte = Arc::new(Mutex::new(started));
    let last = last_byte.clone();
    let session = engine.start_session(profile.id, TermSize::DEFAULT).await.unwrap();
    engine
        .attach(session.id, move |batch: &[u8]| {
            count.fetch_add(batch.len(), Ordering::Relaxed);
            *last.lock().unwrap() = Instant::now();
            true
        })
        .await
        .unwrap();
    ended.recv().await.unwrap();
    let elapsed = (*last_byte.lock().unwrap() - started, started.elapsed());
    // The subscriber attached just after the start: anything earlier came as replay.
    assert!(received.load(Ordering::Relaxed) >= FILE_BYTES / 2);
    engine.shutdown().await;
    elapsed
}
