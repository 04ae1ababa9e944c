//! Switchboard's tools (`switchboard-mcp`): its start-up, from starting the
//! process to its answer to the CLI's `initialize`, beside starting `true`;
//! and a question asked through `ask_user` until a window subscribed to the
//! engine's socket has its record, beside the same question printed as a
//! block in the agent's terminal, in the same run.
//!
//! `cargo build --release -p switchboard-mcp && cargo bench -p switchboard-tests --bench tools_latency`
//! (`ROUNDS=500` for more samples; the default is 200).

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::Arc;
use std::time::Instant;

use serde_json::{Value, json};
use switchboard_client::{Client, EventItem};
use switchboard_core::wire::ClientKind;
use switchboard_core::{
    Engine, EngineConfig, EngineEvent, NoEvents, ProfileSpec, SessionState, SignalResponse, SignalState, TermSize,
};
use switchboard_tests::measure::{ms, percentiles};

/// The server as a CLI holds it.
struct Server {
    child: Child,
    to: ChildStdin,
    from: BufReader<ChildStdout>,
    next: u64,
}

impl Server {
    fn start(binary: &Path, env: &[(String, String)]) -> Server {
        let mut child = Command::new(binary)
            .env_clear()
            .envs(env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let to = child.stdin.take().unwrap();
        let from = BufReader::new(child.stdout.take().unwrap());
        Server { child, to, from, next: 1 }
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next;
        self.next += 1;
        writeln!(self.to, "{}", json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})).unwrap();
        loop {
            let mut line = String::new();
            assert!(self.from.read_line(&mut line).unwrap() > 0, "the server ended");
            let answer: Value = serde_json::from_str(&line).unwrap();
            if answer["id"] == id {
                return answer;
            }
        }
    }

    fn hello(&mut self) {
        let params = json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}});
        self.request("initialize", params);
        writeln!(self.to, "{}", json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).unwrap();
    }

    fn end(mut self) {
        drop(self.to);
        self.child.wait().unwrap();
    }
}

fn main() {
    let rounds: usize = std::env::var("ROUNDS").ok().and_then(|n| n.parse().ok()).unwrap_or(200);
    let exe = std::env::current_exe().unwrap();
    let binary = exe.parent().and_then(|d| d.parent()).unwrap().join("switchboard-mcp");
    assert!(binary.is_file(), "build it first: cargo build --release -p switchboard-mcp ({})", binary.display());
    startup(&binary, rounds);
    round_trip(&binary, rounds);
}

fn startup(binary: &Path, rounds: usize) {
    let mut baseline = Vec::with_capacity(rounds);
    let mut started = Vec::with_capacity(rounds);
    for _ in 0..rounds {
        let at = Instant::now();
        Command::new("true").status().unwrap();
        baseline.push(at.elapsed());
        let at = Instant::now();
        let mut server = Server::start(binary, &[]);
        server.hello();
        started.push(at.elapsed());
        server.end();
    }
    let (b50, b99) = percentiles(baseline);
    let (s50, s99) = percentiles(started);
    println!("rounds: {rounds}");
    println!("start `true` (baseline):                       p50 {:>7.2} ms   p99 {:>7.2} ms", ms(b50), ms(b99));
    println!("start switchboard-mcp, answer `initialize`:    p50 {:>7.2} ms   p99 {:>7.2} ms", ms(s50), ms(s99));
    println!(
        "ratio:                                         p50 {:>7.2}      p99 {:>7.2}",
        ms(s50) / ms(b50),
        ms(s99) / ms(b99)
    );
}

/// The session's environment as its agent has it (read from the agent's
/// process, as any of its children inherit it).
fn environment_of(pid: u32) -> Vec<(String, String)> {
    let raw = std::fs::read(format!("/proc/{pid}/environ")).unwrap();
    raw.split(|b| *b == 0)
        .filter_map(|pair| std::str::from_utf8(pair).ok()?.split_once('='))
        .filter(|(name, _)| name.starts_with("SWITCHBOARD_"))
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect()
}

fn round_trip(binary: &Path, rounds: usize) {
    let dir = tempfile::tempdir().unwrap();
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let config = EngineConfig::new(dir.path().join("data"), None);
        let socket: PathBuf = config.socket_path.clone();
        let engine = Engine::start(config, Arc::new(NoEvents)).await.unwrap();
        // `cat` prints back what it is given: a block typed to it appears in
        // its terminal as if the agent printed it.
        let spec = ProfileSpec {
            name: "echo".into(),
            command: "cat".into(),
            cwd: dir.path().display().to_string(),
            ..ProfileSpec::default()
        };
        let profile = engine.create_profile(spec).await.unwrap();
        let session = engine.start_session(profile.id, TermSize::DEFAULT).await.unwrap();
        let SessionState::Running { pid } = session.state else { panic!("not running: {session:?}") };
        let window = Client::connect(&socket, ClientKind::Window).await.unwrap();
        let mut events = window.subscribe().await.unwrap();
        let mut shown = async move || loop {
            match events.next().await {
                Some(EventItem::Event { event: EngineEvent::SignalChanged { signal }, .. })
                    if signal.state == SignalState::Pending =>
                {
                    return (signal.id, Instant::now());
                }
                Some(_) => {}
                None => panic!("the window's events ended"),
            }
        };
        let env = environment_of(pid);
        let mut server = tokio::task::block_in_place(|| {
            let mut server = Server::start(binary, &env);
            server.hello();
            server
        });
        let mut printed = Vec::with_capacity(rounds);
        let mut called = Vec::with_capacity(rounds);
        let mut answered = Vec::with_capacity(rounds);
        for n in 0..rounds {
            let block = format!("[CLARIFICATION_NEEDED]\rquestions:\r  - \"printed {n}?\"\r[/CLARIFICATION_NEEDED]\r");
            let sent = Instant::now();
            engine.write_input(session.id.clone(), block).await.unwrap();
            let (id, at) = shown().await;
            printed.push(at - sent);
            engine.respond_to_signal(id, SignalResponse::Dismiss).await.unwrap();

            let call = json!({"name": "ask_user", "arguments": {"questions": [format!("called {n}?")]}});
            let sent = Instant::now();
            let answer = tokio::task::block_in_place(|| server.request("tools/call", call));
            answered.push(sent.elapsed());
            assert_eq!(answer["result"]["isError"], false, "{answer}");
            let (id, at) = shown().await;
            called.push(at - sent);
            engine.respond_to_signal(id, SignalResponse::Dismiss).await.unwrap();
        }
        server.end();
        let (p50, p99) = percentiles(printed);
        let (c50, c99) = percentiles(called);
        let (a50, a99) = percentiles(answered);
        println!("rounds: {rounds}");
        println!("block printed → record at a window (baseline): p50 {:>7.2} ms   p99 {:>7.2} ms", ms(p50), ms(p99));
        println!("ask_user called → record at a window:          p50 {:>7.2} ms   p99 {:>7.2} ms", ms(c50), ms(c99));
        println!("ask_user called → its answer to the model:     p50 {:>7.2} ms   p99 {:>7.2} ms", ms(a50), ms(a99));
        println!(
            "ratio called/printed:                          p50 {:>7.2}      p99 {:>7.2}",
            ms(c50) / ms(p50),
            ms(c99) / ms(p99)
        );
        engine.shutdown().await;
    });
}
