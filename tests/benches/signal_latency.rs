//! Signals: the scanner's throughput beside `grep -F` for the four opening
//! markers over the same output, and the time from a signal block printed in
//! an agent's terminal to the engine's signal event (what opens the dialog),
//! beside a plain line's round trip through the same terminal.
//!
//! `cargo bench -p switchboard-tests --bench signal_latency`
//! (`MB=64` of output, `ROUNDS=200` signals).

use std::io::Write;
use std::sync::Arc;
use std::time::{Duration, Instant};
use switchboard_tests::measure::{ms, percentiles};

use switchboard_core::signal::SignalScanner;
use switchboard_core::{Engine, EngineConfig, EngineEvent, ProfileSpec, SignalResponse, TermSize};
use tokio::sync::mpsc;

const MARKERS: [&str; 4] = ["[CLARIFICATION_NEEDED]", "[STOP_WORK]", "[DELEGATE_WORK]", "[COMPLETION_REPORT]"];

fn main() {
    let mb: usize = std::env::var("MB").ok().and_then(|n| n.parse().ok()).unwrap_or(64);
    let rounds: usize = std::env::var("ROUNDS").ok().and_then(|n| n.parse().ok()).unwrap_or(200);
    throughput(mb);
    latency(rounds);
}

/// Agent-like output: coloured progress lines, code, and (`blocks`) every
/// 50th line a signal block.
fn output(bytes: usize, blocks: bool) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes + 4096);
    let mut n = 0usize;
    while out.len() < bytes {
        n += 1;
        match n % 50 {
            0 if blocks => out.extend_from_slice(
                b"[STOP_WORK]\nblocker_type: external_dependency\ndetails: \"needs the staging key\"\n[/STOP_WORK]\n",
            ),
            k if k % 3 == 0 => {
                writeln!(out, "\x1b[32m  \u{2713}\x1b[0m test module_{n}::case_{k} ... \x1b[1mok\x1b[0m").unwrap()
            }
            k if k % 3 == 1 => {
                writeln!(out, "    let value_{n} = compute(&input[{k}..], Options::default())?;").unwrap()
            }
            _ => writeln!(out, "\x1b[2K\r\x1b[36mReading\x1b[0m src/module_{n}.rs ({} lines)", n % 900).unwrap(),
        }
    }
    out
}

/// How long `scanner` takes over `data` in 64 KiB reads, and how many blocks it finds.
fn scan(mut scanner: SignalScanner, data: &[u8]) -> (Duration, usize) {
    let started = Instant::now();
    let mut found = 0;
    for chunk in data.chunks(64 * 1024) {
        found += scanner.feed(chunk).len();
    }
    found += usize::from(scanner.finish().is_some());
    (started.elapsed(), found)
}

fn throughput(mb: usize) {
    for blocks in [true, false] {
        let data = output(mb * 1024 * 1024, blocks);
        let file = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(file.path(), &data).unwrap();
        let size = data.len() as f64 / (1024.0 * 1024.0);

        let started = Instant::now();
        let mut args = vec!["-F".to_owned(), "-c".to_owned()];
        for marker in MARKERS {
            args.extend(["-e".to_owned(), marker.to_owned()]);
        }
        let grep = std::process::Command::new("grep").args(&args).arg(file.path()).output().unwrap();
        let grep_time = started.elapsed();
        let grep_lines: usize = String::from_utf8_lossy(&grep.stdout).trim().parse().unwrap();

        let (scan_time, found) = scan(SignalScanner::new(), &data);
        let (every_time, every_found) = scan(SignalScanner::exhaustive(), &data);
        assert_eq!(found, grep_lines, "the scanner and grep agree on how many blocks there are");
        assert_eq!(found, every_found, "the shortcut finds what parsing every byte finds");

        let rate = |d: Duration| size / d.as_secs_f64();
        println!("output: {size:.0} MB, {found} signal blocks");
        println!("  grep -F, four markers (baseline):    {:>8.1} MB/s", rate(grep_time));
        println!("  signal scanner:                      {:>8.1} MB/s", rate(scan_time));
        println!("  scanner parsing every byte:          {:>8.1} MB/s", rate(every_time));
        println!("  ratio scanner/grep:                  {:>8.3}", rate(scan_time) / rate(grep_time));
        println!("  ratio scanner/every byte:            {:>8.2}", rate(scan_time) / rate(every_time));
    }
}

fn latency(rounds: usize) {
    let dir = tempfile::tempdir().unwrap();
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let (events_tx, mut events) = mpsc::unbounded_channel();
        let sink = move |event: EngineEvent| {
            if let EngineEvent::SignalChanged { signal } = event {
                events_tx.send((signal, Instant::now())).ok();
            }
        };
        let engine = Engine::start(EngineConfig::new(dir.path().join("data"), None), Arc::new(sink)).await.unwrap();
        // `cat` prints back every line it is given: the terminal is where the
        // block appears, as if the agent printed it.
        let spec = ProfileSpec {
            name: "echo".into(),
            command: "cat".into(),
            cwd: dir.path().display().to_string(),
            ..ProfileSpec::default()
        };
        let profile = engine.create_profile(spec).await.unwrap();
        let session = engine.start_session(profile.id, TermSize::DEFAULT).await.unwrap();
        let (output_tx, mut output) = mpsc::unbounded_channel::<Vec<u8>>();
        engine.attach(session.id.clone(), move |batch: &[u8]| output_tx.send(batch.to_vec()).is_ok()).await.unwrap();

        let mut plain = Vec::with_capacity(rounds);
        for n in 0..rounds {
            let marker = format!("ping-{n}-done");
            let sent = Instant::now();
            engine.write_input(session.id.clone(), format!("{marker}\n")).await.unwrap();
            let mut seen = String::new();
            while !seen.contains(&marker) {
                seen.push_str(&String::from_utf8_lossy(&output.recv().await.unwrap()));
            }
            plain.push(sent.elapsed());
        }

        let mut signals = Vec::with_capacity(rounds);
        for n in 0..rounds {
            // One line at a time, so the terminal's line buffer takes it.
            let block =
                format!("[STOP_WORK]\rblocker_type: external_dependency\rdetails: \"round {n}\"\r[/STOP_WORK]\r");
            let sent = Instant::now();
            engine.write_input(session.id.clone(), block).await.unwrap();
            let (signal, at) = loop {
                let (signal, at) = events.recv().await.unwrap();
                if signal.state == switchboard_core::SignalState::Pending {
                    break (signal, at);
                }
            };
            signals.push(at - sent);
            engine.respond_to_signal(signal.id, SignalResponse::Dismiss).await.unwrap();
            while output.try_recv().is_ok() {}
        }
        let (p50, p99) = percentiles(plain);
        let (s50, s99) = percentiles(signals);
        println!("rounds: {rounds}");
        println!("a plain line through the terminal (baseline): p50 {:>7.2} ms   p99 {:>7.2} ms", ms(p50), ms(p99));
        println!("signal block printed → signal event:          p50 {:>7.2} ms   p99 {:>7.2} ms", ms(s50), ms(s99));
        println!(
            "ratio:                                        p50 {:>7.2}      p99 {:>7.2}",
            ms(s50) / ms(p50),
            ms(s99) / ms(p99)
        );
        engine.shutdown().await;
    });
}
