//! Another machine's engine reached over SSH, beside the same engine on this
//! machine's socket, in one run: the same engine (in this process, its
//! socket the local path), reached once through `switchboard-client` on the
//! socket and once through `ssh` to a real sshd on 127.0.0.1 running
//! `switchboard daemon --stdio` (the app from `./scripts/build.sh`):
//!
//! 1. Terminal output: a 16 MB file written by an agent, every byte
//!    received by the client.
//! 2. Command latency: `list_profiles` round trips, one after another.
//!
//! `cargo bench -p switchboard-tests --bench hosts`

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use switchboard_client::ssh::Host;
use switchboard_client::{Client, ClientKind};
use switchboard_core::{AgentKind, Engine, EngineConfig, NoEvents, ProfileSpec};
use switchboard_tests::measure::{END, median, output_to_client as output};
use switchboard_tests::sshd::{HOST, Sshd};

const FILE_BYTES: usize = 16 * 1024 * 1024;
const ROUNDS: usize = 3;
const CALLS: usize = 300;

fn main() {
    let Some(app) = app_binary() else {
        println!("not measured: run ./scripts/build.sh first to build the app run over SSH");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let sshd = Sshd::start(dir.path());
    sshd.trust();
    // SAFETY: set before the runtime or any other thread starts.
    unsafe { std::env::set_var(switchboard_client::ssh::SSH_COMMAND_ENV, sshd.ssh_command()) };
    let file = dir.path().join("output.txt");
    let mut text = switchboard_tests::measure::coloured_lines(FILE_BYTES);
    text.push_str(END);
    text.push('\n');
    std::fs::write(&file, &text).unwrap();

    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let data = dir.path().join("engine");
        let engine = Engine::start(EngineConfig::new(data.clone(), None), Arc::new(NoEvents)).await.unwrap();
        let socket = switchboard_core::config::socket_path(&data, None);
        let local = Client::connect(&socket, ClientKind::Test).await.unwrap();
        let host = Host {
            remote_program: Some(format!("{} --data-dir {}", app.display(), data.display())),
            ..Host::new(HOST).unwrap()
        };
        let remote = switchboard_client::ssh::connect(&host, ClientKind::Test).await.unwrap();
        assert_eq!(remote.welcome().instance_id, local.welcome().instance_id, "the same engine both ways");
        let cat = engine.create_profile(spec("cat", &[file.to_str().unwrap()], dir.path())).await.unwrap();

        let (mut near, mut far) = (Vec::new(), Vec::new());
        for _ in 0..ROUNDS {
            near.push(output(&engine, &local, &cat.id).await);
            far.push(output(&engine, &remote, &cat.id).await);
        }
        let mb = |d: Duration| text.len() as f64 / 1e6 / d.as_secs_f64();
        let (near, far) = (median(near), median(far));
        println!("terminal output, {} MB a round, median of {ROUNDS}:", text.len() / 1_000_000);
        println!("  this machine's socket (baseline): {:7.1} MB/s", mb(near));
        println!("  over SSH (127.0.0.1):             {:7.1} MB/s", mb(far));
        println!("  ratio SSH/socket:                 {:7.2}", mb(far) / mb(near));

        let near = latencies(&local).await;
        let far = latencies(&remote).await;
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        println!("command latency (list_profiles), {CALLS} calls one after another:");
        println!("  this machine's socket (baseline): p50 {:6.3} ms  p99 {:6.3} ms", ms(near.0), ms(near.1));
        println!("  over SSH (127.0.0.1):             p50 {:6.3} ms  p99 {:6.3} ms", ms(far.0), ms(far.1));
        println!(
            "  ratio SSH/socket:                 p50 {:6.2}     p99 {:6.2}",
            far.0.as_secs_f64() / near.0.as_secs_f64(),
            far.1.as_secs_f64() / near.1.as_secs_f64()
        );
        engine.shutdown().await;
    });
}

fn app_binary() -> Option<PathBuf> {
    let app = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/dist/switchboard");
    app.is_file().then_some(app)
}

fn spec(command: &str, args: &[&str], cwd: &Path) -> ProfileSpec {
    ProfileSpec {
        name: command.into(),
        command: command.into(),
        args: args.iter().map(|a| (*a).to_owned()).collect(),
        cwd: cwd.display().to_string(),
        kind: AgentKind::Generic,
        ..Default::default()
    }
}

/// The p50 and p99 of `CALLS` round trips.
async fn latencies(client: &Client) -> (Duration, Duration) {
    let mut times = Vec::with_capacity(CALLS);
    for _ in 0..CALLS {
        let started = Instant::now();
        client.list_profiles().await.unwrap();
        times.push(started.elapsed());
    }
    times.sort();
    (times[CALLS / 2], times[CALLS * 99 / 100])
}
