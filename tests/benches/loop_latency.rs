//! Loop mode's turnaround: from an iteration's Stop hook event to the next
//! iteration's prompt typed into its fresh session, over `ROUNDS`
//! iterations, beside the agent's own start-up (the same program started
//! bare, to its first output) measured in the same run.
//!
//! The agent is a small shell script: it prints a prompt, reads the
//! iteration prompt and waits; the bench plays its hooks, sending the Stop
//! event the way `switchboard-hook` would. Between the two the engine judges
//! the iteration, ends its session, starts a fresh process, waits for it to
//! be ready (its prompt, then 20 ms of quiet) and types.
//!
//! `cargo bench -p switchboard-tests --bench loop_latency` (`ROUNDS=50` for a
//! shorter run; the default is 200).

use std::io::Read;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use switchboard_core::hook::HookEnvelope;
use switchboard_core::loops::LoopSettings;
use switchboard_core::{Engine, EngineConfig, EngineEvent, ProfileSpec, SessionId, TaskRecord};
use switchboard_tests::measure::{ms, percentiles};
use tokio::sync::mpsc;

const AGENT: &str = "printf 'agent> '; read -r line; echo working; exec sleep 1000";

fn main() {
    let rounds: u32 = std::env::var("ROUNDS").ok().and_then(|n| n.parse().ok()).unwrap_or(200);
    let started = startup_times(rounds as usize);
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    let turnaround = runtime.block_on(run_loop(rounds));

    let (s50, s99) = percentiles(started);
    let (t50, t99) = percentiles(turnaround);
    println!("iterations: {rounds}");
    println!("agent start-up, bare (baseline): p50 {:>8.1} ms   p99 {:>8.1} ms", ms(s50), ms(s99));
    println!("Stop → next prompt typed:        p50 {:>8.1} ms   p99 {:>8.1} ms", ms(t50), ms(t99));
    println!("ratio:                           p50 {:>8.2}      p99 {:>8.2}", ms(t50) / ms(s50), ms(t99) / ms(s99));
}

/// The agent started directly, `rounds` times: from spawn to its prompt.
fn startup_times(rounds: usize) -> Vec<Duration> {
    (0..rounds)
        .map(|_| {
            let start = Instant::now();
            let mut child =
                Command::new("sh").args(["-c", AGENT]).stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().unwrap();
            let mut byte = [0u8; 1];
            child.stdout.as_mut().unwrap().read_exact(&mut byte).unwrap();
            let took = start.elapsed();
            child.kill().ok();
            child.wait().ok();
            took
        })
        .collect()
}

async fn run_loop(rounds: u32) -> Vec<Duration> {
    let dir = tempfile::tempdir().unwrap();
    let workspace = dir.path().join("workspace");
    std::fs::create_dir_all(&workspace).unwrap();
    let (events_tx, mut events) = mpsc::unbounded_channel();
    let sink = move |event: EngineEvent| {
        events_tx.send(event).ok();
    };
    let engine = Engine::start(EngineConfig::new(dir.path().to_path_buf(), None), Arc::new(sink)).await.unwrap();
    let spec = ProfileSpec {
        name: "looper".into(),
        command: "sh".into(),
        args: vec!["-c".into(), AGENT.into()],
        cwd: workspace.display().to_string(),
        ready_pattern: Some("agent> $".into()),
        ready_quiet_ms: 20,
        ..ProfileSpec::default()
    };
    let profile = engine.create_profile(spec).await.unwrap();
    // Different stop reasons each time: the loop neither stalls nor ends early.
    let settings = LoopSettings { max_iterations: rounds + 1, ..LoopSettings::new("Measure the turnaround") };
    engine.start_loop(profile.id, settings).await.unwrap();

    let mut samples = Vec::new();
    let mut stopped_at: Option<Instant> = None;
    let mut typed_sessions = std::collections::HashSet::new();
    while samples.len() < rounds as usize {
        let Some(event) = events.recv().await else { panic!("the engine stopped") };
        let EngineEvent::TaskChanged { task } = event else { continue };
        let Some(session) = typed_session(&task) else { continue };
        if !typed_sessions.insert(session.clone()) {
            continue;
        }
        // This iteration's prompt is typed: the turnaround since the last Stop ends here.
        if let Some(at) = stopped_at.take() {
            samples.push(at.elapsed());
        }
        // Its agent "works" a moment, then its Stop hook fires.
        tokio::time::sleep(Duration::from_millis(5)).await;
        let n = typed_sessions.len();
        let envelope = HookEnvelope {
            session_id: Some(session.to_string()),
            env: Default::default(),
            at: 1,
            payload: serde_json::json!({"hook_event_name": "Stop", "last_assistant_message": format!("step {n} done")}),
            secret: Some(switchboard_tests::session_env::secret_of(&session)),
        };
        stopped_at = Some(Instant::now());
        engine.hook_event(envelope).await.unwrap();
    }
    engine.shutdown().await;
    samples
}

/// The session of a running loop iteration just typed into its agent.
fn typed_session(task: &TaskRecord) -> Option<SessionId> {
    (task.spec.loop_iteration.is_some() && task.typed_at.is_some() && !task.state.is_finished())
        .then(|| task.session_id.clone())
        .flatten()
}
