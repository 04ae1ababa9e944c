//! Automations, measured in one run:
//!
//! 1. The engine's CPU while idle with `AUTOMATIONS` (1,000) scheduled
//!    automations (none due in the time measured), beside the same engine
//!    with none, over `SECONDS` (10).
//! 2. A file trigger on a tree of `FILES` (100,000) files in `FOLDERS`
//!    (1,000) folders: the process's memory (RSS) the watch took, and the
//!    time from a file written to its run recorded (the folder must first
//!    stay quiet for `QUIET`, 2 s, by design). Both with the system's file
//!    watches, and polled, as where those ran out.
//!
//! `cargo bench --profile dist -p switchboard-tests --bench automations`
//! (`ONLY=idle` or `ONLY=files` runs one part).

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use switchboard_core::{
    AutomationAction, AutomationSpec, CatchUp, Engine, EngineConfig, EngineHandle, NoEvents, Overlap, ProfileSpec,
    Trigger,
};

const AUTOMATIONS: usize = 1_000;
const SECONDS: u64 = 10;
const FILES: usize = 100_000;
const FOLDERS: usize = 1_000;

fn main() {
    let only = std::env::var("ONLY").ok();
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    if only.as_deref() != Some("files") {
        runtime.block_on(idle());
    }
    if only.as_deref() != Some("idle") {
        runtime.block_on(files());
    }
}

/// The process's CPU time so far (user and system).
fn cpu() -> Duration {
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: getrusage writes only into the struct it is given.
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) };
    let time = |t: libc::timeval| Duration::from_secs(t.tv_sec as u64) + Duration::from_micros(t.tv_usec as u64);
    time(usage.ru_utime) + time(usage.ru_stime)
}

/// The process's resident memory now, in KiB.
fn rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

async fn engine(dir: &Path, poll_folders: bool) -> (EngineHandle, switchboard_core::Profile) {
    let workspace = dir.join("work");
    std::fs::create_dir_all(&workspace).unwrap();
    let mut config = EngineConfig::new(dir.join("engine"), None);
    config.poll_folders = poll_folders;
    let engine = Engine::start(config, Arc::new(NoEvents)).await.unwrap();
    let spec = ProfileSpec {
        name: "worker".into(),
        command: "sh".into(),
        args: vec!["-c".into(), "exec sleep 600".into()],
        cwd: workspace.display().to_string(),
        ..Default::default()
    };
    let profile = engine.create_profile(spec).await.unwrap();
    (engine, profile)
}

fn spec(profile: &switchboard_core::Profile, trigger: Trigger) -> AutomationSpec {
    AutomationSpec {
        profile_id: profile.id.clone(),
        trigger,
        action: AutomationAction::Task {
            instruction: "Check it".into(),
            title: None,
            budget: None,
            time_limit_secs: None,
        },
        zone: None,
        overlap: Overlap::Skip,
        catch_up: CatchUp::Once,
        max_runs_per_hour: 6,
    }
}

async fn idle() {
    let mut figures = Vec::new();
    for count in [0, AUTOMATIONS] {
        let dir = tempfile::tempdir().unwrap();
        let (engine, profile) = engine(dir.path(), false).await;
        let now = jiff::Timestamp::now();
        for n in 0..count {
            // Spread over five hours from six hours on: none due while measured.
            let at = now + jiff::SignedDuration::from_mins(360 + (n % 300) as i64);
            let at = at.to_zoned(jiff::tz::TimeZone::UTC);
            let every = Trigger::Every { every: format!("daily {:02}:{:02}", at.hour(), at.minute()) };
            let mut automation = spec(&profile, every);
            automation.zone = Some("UTC".into());
            engine.create_automation(automation).await.unwrap();
        }
        let start = cpu();
        tokio::time::sleep(Duration::from_secs(SECONDS)).await;
        figures.push((count, cpu() - start));
        engine.shutdown().await;
    }
    println!("the engine idle for {SECONDS} s:");
    for (count, used) in &figures {
        println!(
            "  {count:5} automations scheduled:     {:7.1} ms CPU ({:.2} % of a core)",
            used.as_secs_f64() * 1e3,
            used.as_secs_f64() / SECONDS as f64 * 100.0
        );
    }
    println!(
        "  ratio {AUTOMATIONS}/none:                {:7.2}",
        figures[1].1.as_secs_f64() / figures[0].1.as_secs_f64()
    );
}

async fn files() {
    let tree = tempfile::tempdir().unwrap();
    let per = FILES / FOLDERS;
    for folder in 0..FOLDERS {
        let dir = tree.path().join(format!("d{}/f{folder}", folder % 10));
        std::fs::create_dir_all(&dir).unwrap();
        for file in 0..per {
            std::fs::write(dir.join(format!("{file}.txt")), "x").unwrap();
        }
    }
    println!("a file trigger on {FILES} files in {FOLDERS} folders:");
    for poll in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let (engine, profile) = engine(dir.path(), poll).await;
        let before = rss_kib();
        let trigger = Trigger::FilesChanged { dir: tree.path().display().to_string(), globs: vec!["**/*.txt".into()] };
        let took = Instant::now();
        let made = engine.create_automation(spec(&profile, trigger)).await.unwrap();
        let armed = took.elapsed();
        let memory = rss_kib().saturating_sub(before);
        // A poller first reads the whole tree: let it before writing.
        if poll {
            tokio::time::sleep(Duration::from_secs(5)).await;
        }
        let written = Instant::now();
        std::fs::write(tree.path().join("d3/f3/new.txt"), "changed").unwrap();
        loop {
            let shown = engine.get_automation(made.id.clone()).await.unwrap();
            if !shown.runs.is_empty() {
                break;
            }
            assert!(written.elapsed() < Duration::from_secs(60), "the change never ran it");
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        let latency = written.elapsed();
        let how = if poll { "polled (watches ran out)" } else { "the system's watches  " };
        println!(
            "  {how}: armed in {:7.1} ms, {:6} KiB more memory, a write to its run recorded in {:7.1} ms ({:.2}x the 2 s quiet)",
            armed.as_secs_f64() * 1e3,
            memory,
            latency.as_secs_f64() * 1e3,
            latency.as_secs_f64() / 2.0
        );
        engine.shutdown().await;
        std::fs::remove_file(tree.path().join("d3/f3/new.txt")).ok();
    }
}
