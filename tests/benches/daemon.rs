//! The engine as a daemon that windows attach to, measured in one run:
//!
//! 1. Terminal output through the engine's socket to a client (the window's
//!    path now: `switchboard-client`, framed raw bytes) beside the same
//!    output handed to a subscriber in the engine's own process (the
//!    window's path when the engine lived in it). Same engine, same producer.
//! 2. Attaching to `AGENTS` (50) running agents at once, every terminal's
//!    kept output received, beside attaching to one.
//! 3. The daemon's memory (the real `switchboard daemon`, from
//!    `./scripts/build.sh`) with `AGENTS` idle agents beside none.
//!
//! `cargo bench -p switchboard-tests --bench daemon`

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use switchboard_client::{Client, ClientKind};
use switchboard_core::{AgentKind, Engine, EngineConfig, EngineHandle, NoEvents, ProfileSpec, TermSize};
use switchboard_tests::measure::{END, ends, median, output_to_client};

const FILE_BYTES: usize = 64 * 1024 * 1024;
const ROUNDS: usize = 3;
const AGENTS: usize = 50;

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("output.txt");
    let mut text = switchboard_tests::measure::coloured_lines(FILE_BYTES);
    text.push_str(END);
    text.push('\n');
    std::fs::write(&file, &text).unwrap();

    runtime.block_on(async {
        let data = dir.path().join("engine");
        let engine = Engine::start(EngineConfig::new(data.clone(), None), Arc::new(NoEvents)).await.unwrap();
        let socket = switchboard_core::config::socket_path(&data, None);
        let client = Client::connect(&socket, ClientKind::Test).await.unwrap();
        let cat = engine.create_profile(spec("cat", "cat", &[file.to_str().unwrap()], dir.path())).await.unwrap();

        let mut local = Vec::new();
        let mut remote = Vec::new();
        for _ in 0..ROUNDS {
            local.push(in_process(&engine, &cat.id).await);
            remote.push(output_to_client(&engine, &client, &cat.id).await);
        }
        let mb = |d: Duration| text.len() as f64 / 1e6 / d.as_secs_f64();
        let (local, remote) = (median(local), median(remote));
        println!("terminal output, {} MB a round, median of {ROUNDS}:", text.len() / 1_000_000);
        println!("  in the engine's process (baseline): {:7.1} MB/s", mb(local));
        println!("  through the socket to a client:     {:7.1} MB/s", mb(remote));
        println!("  ratio socket/in-process:            {:7.2}", mb(remote) / mb(local));

        let one = attach_all(&engine, &client, dir.path(), 1).await;
        let many = attach_all(&engine, &client, dir.path(), AGENTS).await;
        println!("attach, every terminal's kept output received:");
        println!("  1 running agent (baseline):  {:7.1} ms", one.as_secs_f64() * 1e3);
        println!("  {AGENTS} running agents:          {:7.1} ms", many.as_secs_f64() * 1e3);
        println!("  ratio {AGENTS}/1:                   {:7.2}", many.as_secs_f64() / one.as_secs_f64());
        engine.shutdown().await;
    });

    match app_binary() {
        Some(app) => {
            let (idle, busy) = runtime.block_on(daemon_memory(&app, dir.path()));
            println!("daemon memory (RSS, {}):", app.display());
            println!("  no agents (baseline):  {:7.1} MB", idle as f64 / 1024.0);
            println!("  {AGENTS} idle agents:       {:7.1} MB", busy as f64 / 1024.0);
            println!("  ratio:                 {:7.2}", busy as f64 / idle as f64);
        }
        None => println!("daemon memory: not measured (run ./scripts/build.sh first to build the app)"),
    }
}

fn spec(name: &str, command: &str, args: &[&str], cwd: &Path) -> ProfileSpec {
    ProfileSpec {
        name: name.into(),
        command: command.into(),
        args: args.iter().map(|a| (*a).to_owned()).collect(),
        env: Default::default(),
        cwd: cwd.display().to_string(),
        kind: AgentKind::Generic,
        start_on_launch: false,
        ..Default::default()
    }
}

async fn in_process(engine: &EngineHandle, profile: &switchboard_core::ProfileId) -> Duration {
    let (done, finished) = tokio::sync::oneshot::channel();
    let mut done = Some(done);
    let mut tail = Vec::new();
    let started = Instant::now();
    let session = engine.start_session(profile.clone(), TermSize::DEFAULT).await.unwrap();
    engine
        .attach(session.id, move |batch: &[u8]| {
            if ends(&mut tail, batch)
                && let Some(done) = done.take()
            {
                done.send(()).ok();
            }
            true
        })
        .await
        .unwrap();
    finished.await.unwrap();
    started.elapsed()
}

/// Starts `count` agents that print a screenful and wait, then times one
/// client attaching to all of them at once until each one's kept output has
/// arrived.
async fn attach_all(engine: &EngineHandle, client: &Client, dir: &Path, count: usize) -> Duration {
    let mut sessions = Vec::new();
    for i in 0..count {
        let script = format!("seq 1 400; echo ready-{i}; read x");
        let profile =
            engine.create_profile(spec(&format!("idle {count} {i}"), "sh", &["-c", &script], dir)).await.unwrap();
        let session = engine.start_session(profile.id, TermSize::DEFAULT).await.unwrap();
        sessions.push((i, session.id));
    }
    // Every agent has printed its screen before the measure starts.
    for (i, session) in &sessions {
        let seen = Arc::new(AtomicBool::new(false));
        let (marker, flag) = (format!("ready-{i}"), seen.clone());
        let mut tail = Vec::new();
        let subscription = engine
            .attach(session.clone(), move |batch: &[u8]| {
                tail.extend_from_slice(batch);
                if String::from_utf8_lossy(&tail).contains(&marker) {
                    flag.store(true, Ordering::SeqCst);
                }
                true
            })
            .await
            .unwrap();
        while !seen.load(Ordering::SeqCst) {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        engine.detach(session.clone(), subscription).await.unwrap();
    }
    let started = Instant::now();
    let attaches = sessions.iter().map(|(i, session)| {
        let (client, marker) = (client.clone(), format!("ready-{i}"));
        let session = session.clone();
        async move {
            let mut terminal = client.attach(session).await.unwrap();
            let mut seen = Vec::new();
            while !String::from_utf8_lossy(&seen).contains(&marker) {
                seen.extend(terminal.next().await.expect("the replay arrives"));
            }
            terminal.stream
        }
    });
    let streams = futures_join_all(attaches).await;
    let elapsed = started.elapsed();
    for stream in streams {
        client.detach(stream).await.ok();
    }
    for (_, session) in sessions {
        engine.stop_session(session).await.unwrap();
    }
    elapsed
}

/// Runs the futures at once, each on the runtime.
async fn futures_join_all<F: std::future::Future<Output = T> + Send + 'static, T: Send + 'static>(
    futures: impl Iterator<Item = F>,
) -> Vec<T> {
    let handles: Vec<_> = futures.map(tokio::spawn).collect();
    let mut out = Vec::new();
    for handle in handles {
        out.push(handle.await.unwrap());
    }
    out
}

/// The app built by `./scripts/build.sh`, if it is there.
fn app_binary() -> Option<PathBuf> {
    let app = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/debug/switchboard");
    app.is_file().then_some(app)
}

/// The daemon's resident memory with no agent, then with `AGENTS` idle ones (KiB).
async fn daemon_memory(app: &Path, dir: &Path) -> (u64, u64) {
    let data = dir.join("daemon");
    let work = dir.join("daemon-work");
    std::fs::create_dir_all(&work).unwrap();
    let mut daemon = std::process::Command::new(app)
        .arg("--data-dir")
        .arg(&data)
        .args(["--no-demo", "daemon"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let socket = switchboard_core::config::socket_path(&data, None);
    let client = loop {
        if let Ok(client) = Client::connect(&socket, ClientKind::Test).await {
            break client;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let idle = settled_rss(daemon.id()).await;
    for i in 0..AGENTS {
        let profile = client
            .create_profile(spec(&format!("idle {i}"), "sh", &["-c", "echo ready; read x"], &work))
            .await
            .unwrap();
        client.start_session(profile.id, TermSize::DEFAULT).await.unwrap();
    }
    let busy = settled_rss(daemon.id()).await;
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(daemon.id() as i32), nix::sys::signal::Signal::SIGTERM).ok();
    daemon.wait().unwrap();
    (idle, busy)
}

/// The process' RSS once two readings half a second apart agree within 1 %.
async fn settled_rss(pid: u32) -> u64 {
    let read = || {
        std::fs::read_to_string(format!("/proc/{pid}/status"))
            .ok()
            .and_then(|status| {
                let line = status.lines().find(|l| l.starts_with("VmRSS:"))?.to_owned();
                line.split_whitespace().nth(1)?.parse::<u64>().ok()
            })
            .unwrap_or(0)
    };
    let mut last = read();
    loop {
        tokio::time::sleep(Duration::from_millis(500)).await;
        let now = read();
        if now.abs_diff(last) * 100 <= last {
            return now;
        }
        last = now;
    }
}
