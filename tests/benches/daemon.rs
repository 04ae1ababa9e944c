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
//! 4. Hostile clients against an engine in its own process
//!    (`switchboard-engine-host`): its RSS while a client sends
//!    `REQUESTS` (300,000) requests and reads nothing, and after it left;
//!    while `HALF_SENT` (20) clients each hold half of a 16 MiB frame, and
//!    after the engine let them go; all beside the same engine's RSS before.
//!    `ENGINE_HOST=path` measures another build's engine host the same way.
//! 5. The grid with `TILES` (9) flooding agents: one client (the window)
//!    attaches to all of them over one connection, attaching again any that
//!    falls behind, while another (the command line) times `CALLS` (200)
//!    `list_sessions` calls; beside the same calls to the idle engine.
//!
//! `cargo bench -p switchboard-tests --bench daemon`; `ONLY=attacks` or
//! `ONLY=flood` runs one part.

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

const REQUESTS: u64 = 300_000;
const HALF_SENT: usize = 20;
const TILES: usize = 9;
const CALLS: usize = 200;

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    match std::env::var("ONLY").as_deref() {
        Ok("attacks") => return attacks(),
        Ok("flood") => return runtime.block_on(flood()),
        _ => {}
    }
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
    attacks();
    runtime.block_on(flood());
}

/// The engine's RSS under hostile clients, beside its RSS before (KiB).
fn attacks() {
    use std::io::{BufRead, Write};
    let dir = tempfile::tempdir().unwrap();
    // `ENGINE_HOST=path`: another build's engine host (an older one, to compare).
    let host = std::env::var_os("ENGINE_HOST").unwrap_or_else(|| env!("CARGO_BIN_EXE_switchboard-engine-host").into());
    let mut engine = std::process::Command::new(host)
        .arg(dir.path())
        .args(["sleep", "100000"])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = std::io::BufReader::new(engine.stdout.take().unwrap()).lines();
    lines.next().unwrap().unwrap();
    let socket = switchboard_core::config::socket_path(dir.path(), None);
    let pid = engine.id();
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let rss = |what: &str| {
        let kib = runtime.block_on(settled_rss(pid));
        println!("  {what:<52} {:7.1} MB", kib as f64 / 1024.0);
        kib
    };
    println!("the engine's RSS under hostile clients (switchboard-engine-host, one idle agent):");
    let before = rss("before (baseline)");

    // A client that sends and never reads.
    let mut flood = std::os::unix::net::UnixStream::connect(&socket).unwrap();
    said_hello(&mut flood);
    let mut writing = flood.try_clone().unwrap();
    // The engine stops reading it: the writer is let go after a second without progress.
    writing.set_write_timeout(Some(Duration::from_secs(1))).unwrap();
    let sender = std::thread::spawn(move || {
        let mut sent = 0u64;
        for id in 1..=REQUESTS {
            let ping =
                switchboard_api::wire::ClientFrame::Request { id, request: switchboard_api::wire::ClientRequest::Ping };
            if writing.write_all(&switchboard_api::wire::Frame::message(&ping).encode()).is_err() {
                break;
            }
            sent += 1;
        }
        sent
    });
    let sent = sender.join().unwrap();
    let reading = rss(&format!("a client sent {sent} of {REQUESTS} requests, reads none"));
    drop(flood);
    let left = rss("after it left");

    // Half-sent frames: each announces 16 MiB, sends half, and stalls.
    let half = switchboard_api::wire::MAX_FRAME_BYTES / 2;
    let stalled: Vec<_> = (0..HALF_SENT)
        .map(|_| {
            let mut stream = std::os::unix::net::UnixStream::connect(&socket).unwrap();
            said_hello(&mut stream);
            stream.write_all(&(switchboard_api::wire::MAX_FRAME_BYTES as u32).to_be_bytes()).unwrap();
            // An engine that reads no more of it (no room for it yet) leaves the rest unsent.
            stream.set_write_timeout(Some(Duration::from_millis(200))).unwrap();
            let whole = stream.write_all(&vec![0u8; half]).is_ok();
            (stream, whole)
        })
        .collect();
    let taken = stalled.iter().filter(|(_, whole)| *whole).count();
    let holding = rss(&format!("{HALF_SENT} clients sent half a 16 MiB frame ({taken} taken in)"));
    let stalled = stalled.into_iter().map(|(stream, _)| stream);
    // The engine lets each go at the frame deadline (30 s): its end closes. An engine
    // that never does is measured a minute on, the clients still there.
    let given_up = Instant::now() + Duration::from_secs(60);
    let mut let_go = 0;
    for mut stream in stalled {
        let left = given_up.saturating_duration_since(Instant::now()).max(Duration::from_millis(1));
        stream.set_read_timeout(Some(left)).unwrap();
        let mut sink = Vec::new();
        let_go += usize::from(std::io::Read::read_to_end(&mut stream, &mut sink).is_ok());
    }
    let dropped = rss(&format!("{let_go} of them let go by the engine (a minute at most)"));
    let ratio = |kib: u64| kib as f64 / before as f64;
    println!(
        "  ratios to the baseline: not reading {:.2}, left {:.2}, half-sent {:.2}, let go {:.2}",
        ratio(reading),
        ratio(left),
        ratio(holding),
        ratio(dropped)
    );
    engine.kill().unwrap();
    engine.wait().unwrap();
}

/// Says hello on a blocking connection and reads the engine's answer.
fn said_hello(stream: &mut std::os::unix::net::UnixStream) {
    use std::io::{Read, Write};
    let hello = switchboard_api::wire::Hello {
        protocol: switchboard_api::wire::PROTOCOL,
        app_version: "bench".into(),
        build_id: "bench".into(),
        client_kind: switchboard_api::wire::ClientKind::Test,
        client_id: "bench".into(),
    };
    stream.write_all(&switchboard_api::wire::Frame::message(&hello).encode()).unwrap();
    let mut head = [0u8; 4];
    stream.read_exact(&mut head).unwrap();
    let mut body = vec![0u8; u32::from_be_bytes(head) as usize];
    stream.read_exact(&mut body).unwrap();
}

/// Command latency while a window's one connection follows `TILES` flooding
/// agents, beside the idle engine.
async fn flood() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("engine");
    let engine = Engine::start(EngineConfig::new(data.clone(), None), Arc::new(NoEvents)).await.unwrap();
    let socket = switchboard_core::config::socket_path(&data, None);
    let command_line = Client::connect(&socket, ClientKind::CommandLine).await.unwrap();
    let idle = calls(&command_line).await;

    let window = Client::connect(&socket, ClientKind::Window).await.unwrap();
    let mut sessions = Vec::new();
    for i in 0..TILES {
        let profile = engine
            .create_profile(spec(&format!("flood {i}"), "yes", &[&format!("tile {i}")], dir.path()))
            .await
            .unwrap();
        sessions.push(engine.start_session(profile.id, TermSize::DEFAULT).await.unwrap().id);
    }
    let failed = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let again = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let received = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let tiles: Vec<_> = sessions
        .iter()
        .map(|session| {
            let (window, session) = (window.clone(), session.clone());
            let (failed, again, received) = (failed.clone(), again.clone(), received.clone());
            tokio::spawn(async move {
                // As the window's link does: a terminal that fell behind is attached again.
                loop {
                    let mut terminal = match window.attach(session.clone()).await {
                        Ok(terminal) => terminal,
                        Err(_) => {
                            failed.fetch_add(1, Ordering::Relaxed);
                            return;
                        }
                    };
                    while let Some(batch) = terminal.next().await {
                        received.fetch_add(batch.len(), Ordering::Relaxed);
                    }
                    if terminal.ended() != Some(switchboard_client::StreamEnd::Behind) {
                        return;
                    }
                    again.fetch_add(1, Ordering::Relaxed);
                }
            })
        })
        .collect();
    // The floods are under way before the calls are timed.
    while received.load(Ordering::Relaxed) < 1_000_000 {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let flooded = calls(&command_line).await;
    let (idle, flooded) =
        (switchboard_tests::measure::percentiles(idle), switchboard_tests::measure::percentiles(flooded));
    let ms = switchboard_tests::measure::ms;
    println!("command latency (`list_sessions`, {CALLS} calls), {TILES} flooding agents on one window connection:");
    println!("  idle engine (baseline): p50 {:7.2} ms  p99 {:7.2} ms", ms(idle.0), ms(idle.1));
    println!("  under the flood:        p50 {:7.2} ms  p99 {:7.2} ms", ms(flooded.0), ms(flooded.1));
    println!(
        "  ratio:                  p50 {:7.2}     p99 {:7.2}",
        flooded.0.as_secs_f64() / idle.0.as_secs_f64(),
        flooded.1.as_secs_f64() / idle.1.as_secs_f64()
    );
    println!(
        "  tiles attached {} of {TILES}; attached again after falling behind {} times; {:.0} MB received",
        TILES - failed.load(Ordering::Relaxed),
        again.load(Ordering::Relaxed),
        received.load(Ordering::Relaxed) as f64 / 1e6
    );
    for session in sessions {
        engine.stop_session(session).await.unwrap();
    }
    for tile in tiles {
        tile.await.unwrap();
    }
    engine.shutdown().await;
}

/// `CALLS` round trips of `list_sessions`, one after another.
async fn calls(client: &Client) -> Vec<Duration> {
    let mut times = Vec::with_capacity(CALLS);
    for _ in 0..CALLS {
        let started = Instant::now();
        client.list_sessions().await.unwrap();
        times.push(started.elapsed());
    }
    times
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
    let app = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/dist/switchboard");
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
