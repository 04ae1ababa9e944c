//! Reading the agents' own files for their token usage, measured in one run:
//!
//! 1. The first read of a `MEGABYTES` (200) MB Claude Code conversation file
//!    (long tool results, an answer's usage every few lines) by the usage
//!    follower, to its last answer, beside `wc -l` over the same file.
//! 2. The engine's CPU while `SESSIONS` (50) Claude Code sessions' files
//!    grow (a tool result and an answer a session every `EVERY`), each
//!    file followed, beside the same engine and the same writing with the
//!    files not followed (their hooks name none). CPU is the bench
//!    process's (the engine runs in it, and so does the writer, the same in
//!    both), over `SECONDS` (10) of writing.
//!
//! `cargo bench -p switchboard-tests --bench usage_follow` (`ONLY=first` or
//! `ONLY=growing` runs one part).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use switchboard_core::usage::{Followed, Follower};
use switchboard_core::{AgentKind, Engine, EngineConfig, NoEvents, ProfileSpec, SessionId, TermSize};
use switchboard_tests::measure::median;

const MEGABYTES: usize = 200;
const SESSIONS: usize = 50;
const EVERY: Duration = Duration::from_millis(200);
const SECONDS: u64 = 10;
const ROUNDS: usize = 3;

fn main() {
    let only = std::env::var("ONLY").ok();
    if only.as_deref() != Some("growing") {
        first_read();
    }
    if only.as_deref() != Some("first") {
        let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
        runtime.block_on(growing());
    }
}

/// A tool's result as Claude Code writes it: a user line of `bytes`.
fn tool_result(bytes: usize) -> String {
    let text = "fn main() { println!(\"hello\"); } ".repeat(bytes / 20 + 1);
    serde_json::json!({"type": "user", "message": {"role": "user", "content": [{"type": "tool_result",
        "tool_use_id": "toolu_1", "content": &text[..bytes]}]}, "timestamp": "2026-11-29T10:00:00Z"})
    .to_string()
        + "\n"
}

/// An answer's line, with its usage.
fn answer(id: usize) -> String {
    serde_json::json!({"type": "assistant", "timestamp": "2026-11-29T10:00:01Z", "message": {"id": format!("msg_{id}"),
        "model": "claude-opus-5-5", "role": "assistant", "content": [{"type": "text", "text": "Reading the next file now."}],
        "usage": {"input_tokens": 12, "output_tokens": 80, "cache_read_input_tokens": 40_000,
                  "cache_creation_input_tokens": 900,
                  "cache_creation": {"ephemeral_5m_input_tokens": 900, "ephemeral_1h_input_tokens": 0}}}})
    .to_string()
        + "\n"
}

fn first_read() {
    let home = tempfile::tempdir().unwrap();
    let file = home.path().join("projects/w/session.jsonl");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    let mut out = std::io::BufWriter::new(std::fs::File::create(&file).unwrap());
    let (mut written, mut answers) = (0, 0);
    while written < MEGABYTES * 1_000_000 {
        // Tool results of a few KB up to 60 KB, an answer after each.
        let result = tool_result(2_000 + (answers * 7_919) % 58_000);
        let said = answer(answers);
        out.write_all(result.as_bytes()).unwrap();
        out.write_all(said.as_bytes()).unwrap();
        written += result.len() + said.len();
        answers += 1;
    }
    out.flush().unwrap();
    drop(out);
    let size = std::fs::metadata(&file).unwrap().len();

    let wc = || {
        let started = Instant::now();
        let status = std::process::Command::new("wc").arg("-l").arg(&file).output().unwrap();
        assert!(status.status.success());
        started.elapsed()
    };
    let follow = || {
        let (tx, mut rx) = tokio::sync::mpsc::channel(8);
        let follower = Follower::start(tx);
        let started = Instant::now();
        follower.follow(Followed {
            path: file.display().to_string(),
            root: home.path().to_path_buf(),
            kind: switchboard_core::usage::Transcript::ClaudeCode,
            offset: 0,
            reading: Default::default(),
        });
        let mut counted = 0;
        loop {
            let read = rx.blocking_recv().unwrap();
            counted += read.answers.len();
            if read.offset == size {
                break;
            }
        }
        let took = started.elapsed();
        assert_eq!(counted, answers, "every answer read");
        took
    };
    wc(); // The file in the page cache for both.
    let (mut wcs, mut reads) = (Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        wcs.push(wc());
        reads.push(follow());
    }
    let (wc, read) = (median(wcs), median(reads));
    println!("the first read of a {} MB conversation file ({answers} answers), median of {ROUNDS}:", size / 1_000_000);
    println!("  wc -l (baseline):         {:8.1} ms", wc.as_secs_f64() * 1e3);
    println!("  the usage follower:       {:8.1} ms", read.as_secs_f64() * 1e3);
    println!("  ratio follower/wc:        {:8.2}", read.as_secs_f64() / wc.as_secs_f64());
}

/// The process's CPU time so far (user and system).
fn cpu() -> Duration {
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: getrusage writes only into the struct it is given.
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) };
    let time = |t: libc::timeval| Duration::from_secs(t.tv_sec as u64) + Duration::from_micros(t.tv_usec as u64);
    time(usage.ru_utime) + time(usage.ru_stime)
}

async fn growing() {
    let mut figures = Vec::new();
    for followed in [false, true] {
        figures.push((followed, growing_once(followed).await));
    }
    println!(
        "the engine with {SESSIONS} sessions' files growing for {SECONDS} s (a tool result and an answer each every {} ms):",
        EVERY.as_millis()
    );
    let base = figures[0].1;
    for (followed, cpu) in &figures {
        let what = if *followed { "each file followed:          " } else { "files not followed (baseline):" };
        println!(
            "  {what} {:7.1} ms CPU ({:.1} % of a core)",
            cpu.as_secs_f64() * 1e3,
            cpu.as_secs_f64() / SECONDS as f64 * 100.0
        );
    }
    println!("  ratio followed/not followed:   {:7.2}", figures[1].1.as_secs_f64() / base.as_secs_f64());
}

async fn growing_once(follow: bool) -> Duration {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("engine");
    let home = dir.path().join("cc");
    let workspace = dir.path().join("work");
    std::fs::create_dir_all(home.join("projects/w")).unwrap();
    std::fs::create_dir_all(&workspace).unwrap();
    let mut config = EngineConfig::new(data.clone(), None);
    config.hook_binary = Some(binary("switchboard-hook"));
    let engine = Engine::start(config, Arc::new(NoEvents)).await.unwrap();
    let mut files: Vec<PathBuf> = Vec::new();
    for n in 0..SESSIONS {
        let spec = ProfileSpec {
            name: format!("cc{n}"),
            command: "sh".into(),
            args: vec!["-c".into(), "exec sleep 600".into()],
            cwd: workspace.display().to_string(),
            kind: AgentKind::ClaudeCode,
            env: [("CLAUDE_CONFIG_DIR".to_owned(), home.display().to_string())].into(),
            ..Default::default()
        };
        let profile = engine.create_profile(spec).await.unwrap();
        let session = engine.start_session(profile.id.clone(), TermSize::DEFAULT).await.unwrap().id;
        let file = home.join(format!("projects/w/{session}.jsonl"));
        let mut payload = serde_json::json!({"hook_event_name": "SessionStart", "session_id": session.to_string()});
        if follow {
            payload["transcript_path"] = file.display().to_string().into();
        }
        hook(&engine, &session, payload).await;
        files.push(file);
    }
    let started = (Instant::now(), cpu());
    let mut id = 0;
    while started.0.elapsed() < Duration::from_secs(SECONDS) {
        for file in &files {
            let mut out = std::fs::OpenOptions::new().create(true).append(true).open(file).unwrap();
            out.write_all((tool_result(4_000) + &answer(id)).as_bytes()).unwrap();
            id += 1;
        }
        tokio::time::sleep(EVERY).await;
    }
    let used = cpu() - started.1;
    engine.shutdown().await;
    used
}

async fn hook(engine: &switchboard_core::EngineHandle, session: &SessionId, payload: serde_json::Value) {
    engine.hook_event(switchboard_tests::session_env::envelope(session, payload)).await.unwrap();
}

fn binary(name: &str) -> PathBuf {
    let here = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join("target");
    ["release", "debug", "dist"].iter().map(|p| here.join(p).join(name)).find(|p| p.exists()).expect("built")
}
