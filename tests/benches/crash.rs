//! Crash ×N: the real app (`target/debug/switchboard`, under a display) is
//! killed with SIGKILL at a random moment `ROUNDS` (20) times while an agent
//! works through its queue and another waits on a question for the user.
//! Every round queues `TASKS` (5) more tasks over the socket and notes what
//! the app acknowledged. Then one last start drains the queue, and the
//! records are checked:
//!
//! - lost: an acknowledged task, or a question that waited for the user,
//!   missing from the records;
//! - duplicated: a task recorded twice, or completed twice;
//! - reordered: a task started before one queued ahead of it;
//! - stuck: a task still queued or running once the queue has drained;
//! - orphaned: an agent process of a killed app alive after the restart.
//!
//! Run with `bench/crash.sh` (it builds the app and provides a display).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use switchboard_core::client::Client;
use switchboard_core::store::Store;
use switchboard_core::{
    AgentKind, LogKind, Profile, ProfileId, ProfileSpec, SessionState, SignalState, TaskId, TaskSpec, TaskState,
};

fn main() {
    let rounds: usize = env_number("ROUNDS", 20);
    let per_round: usize = env_number("TASKS", 5);
    let exe = std::env::current_exe().unwrap();
    let debug = exe.parent().and_then(Path::parent).and_then(Path::parent).unwrap().join("debug");
    let app = debug.join("switchboard");
    let agent = debug.join("switchboard-demo-agent");
    assert!(app.is_file() && agent.is_file(), "build first: ./scripts/build.sh ({})", debug.display());
    assert!(std::env::var_os("DISPLAY").is_some(), "needs a display: run bench/crash.sh");

    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let workspace = dir.path().join("work");
    std::fs::create_dir_all(&workspace).unwrap();
    let (worker, asker) = seed(&data, &workspace, &agent);
    let socket = switchboard_cli::socket_for(Some(&data)).unwrap();
    let mut rng = Rng(std::process::id() as u64 ^ 0x9e37_79b9_7f4a_7c15);

    let mut submitted: Vec<TaskId> = Vec::new();
    let mut waiting_questions = BTreeSet::new();
    let mut orphans = 0;
    let mut killed_agents: Vec<u32> = Vec::new();
    for round in 1..=rounds {
        let mut running = launch(&app, &data);
        let client = wait_for(&socket);
        // The agents of the killed app: gone once the new one has recovered.
        orphans += killed_agents.drain(..).filter(|pid| alive(*pid)).count();
        for pending in client.list_signals().unwrap().into_iter().filter(|s| s.state() == SignalState::Pending) {
            waiting_questions.insert(pending.id);
        }
        for n in 0..per_round {
            let spec = TaskSpec::new(worker.clone(), format!("round {round} task {n}: note it"));
            submitted.push(client.submit_task(spec).unwrap().task.id);
        }
        if round % 4 == 1 {
            client.submit_task(TaskSpec::new(asker.clone(), format!("round {round}: ask first"))).unwrap();
        }
        std::thread::sleep(Duration::from_millis(rng.below(2500)));
        killed_agents = running_agents(&client);
        running.kill().unwrap();
        running.wait().unwrap();
        eprint!("\rround {round}/{rounds}");
    }
    eprintln!();

    // The last start: the queue drains, then the app quits.
    let mut last = launch(&app, &data);
    let client = wait_for(&socket);
    orphans += killed_agents.into_iter().filter(|pid| alive(*pid)).count();
    let deadline = Instant::now() + Duration::from_secs(180);
    while Instant::now() < deadline {
        let queue = client.list_queues().unwrap().into_iter().find(|q| q.profile_id == worker);
        if queue.is_none_or(|q| q.queued == 0 && !q.executing) {
            break;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(last.id() as i32), nix::sys::signal::Signal::SIGTERM).unwrap();
    last.wait().unwrap();

    let store = Store::open(&data.join("switchboard.db")).unwrap();
    let tasks: Vec<_> = store
        .finished_tasks(Some(&worker), 100_000)
        .unwrap()
        .into_iter()
        .chain(store.active_tasks(Some(&worker)).unwrap())
        .collect();
    let mut records: BTreeMap<TaskId, usize> = BTreeMap::new();
    for task in &tasks {
        *records.entry(task.id.clone()).or_default() += 1;
    }
    let lost_tasks = submitted.iter().filter(|id| !records.contains_key(*id)).count();
    let lost_questions = waiting_questions.iter().filter(|id| store.get_signal(id).unwrap().is_none()).count();
    let mut duplicated = records.values().filter(|n| **n > 1).count();
    let mut first_start: BTreeMap<TaskId, i64> = BTreeMap::new();
    for id in &submitted {
        let timeline = store.task_events(id).unwrap();
        let completions = timeline
            .iter()
            .filter(|e| matches!(e.kind, LogKind::TaskEnded { state: TaskState::Completed, .. }))
            .count();
        duplicated += usize::from(completions > 1);
        if let Some(start) = timeline.iter().find(|e| matches!(e.kind, LogKind::TaskStarted)) {
            first_start.insert(id.clone(), start.seq);
        }
    }
    let started: Vec<i64> = submitted.iter().filter_map(|id| first_start.get(id).copied()).collect();
    let reordered = started.windows(2).filter(|pair| pair[1] < pair[0]).count();
    let stuck = tasks.iter().filter(|t| matches!(t.state(), TaskState::Queued | TaskState::Running)).count();
    let states = tasks.iter().fold(BTreeMap::<&str, usize>::new(), |mut counts, t| {
        *counts.entry(t.state().as_str()).or_default() += 1;
        counts
    });
    let sessions_left_running =
        store.list_sessions().unwrap().into_iter().filter(|s| matches!(s.state, SessionState::Running { .. })).count();

    println!(
        "rounds: {rounds}, tasks acknowledged: {}, questions waiting: {}",
        submitted.len(),
        waiting_questions.len()
    );
    println!("task states at the end: {states:?}");
    println!("lost: {}", lost_tasks + lost_questions);
    println!("duplicated: {duplicated}");
    println!("reordered: {reordered}");
    println!("stuck: {stuck}");
    println!("orphaned: {}", orphans + sessions_left_running);
    let bad = lost_tasks + lost_questions + duplicated + reordered + stuck + orphans + sessions_left_running;
    std::process::exit(i32::from(bad > 0));
}

/// The agents: one that works through its tasks, one that asks a question
/// and waits.
fn seed(data: &Path, workspace: &Path, agent: &Path) -> (ProfileId, ProfileId) {
    let store = Store::open(&data.join("switchboard.db")).unwrap();
    let profile = |name: &str, args: &[&str]| {
        let profile = Profile {
            id: ProfileId::new(),
            spec: ProfileSpec {
                name: name.into(),
                command: agent.display().to_string(),
                args: args.iter().map(|a| (*a).to_owned()).collect(),
                cwd: workspace.display().to_string(),
                kind: AgentKind::Generic,
                ready_quiet_ms: 50,
                ..ProfileSpec::default()
            },
            created_at: 0,
        };
        store.insert_profile(&profile).unwrap();
        profile.id
    };
    (
        profile("worker", &["--speed", "100"]),
        profile("asker", &["--speed", "fast", "--signal", "clarification", "--no-summary"]),
    )
}

fn launch(app: &Path, data: &Path) -> Child {
    Command::new(app)
        .arg("--data-dir")
        .arg(data)
        .arg("--no-demo")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

fn wait_for(socket: &Path) -> Client {
    let client = Client::new(socket);
    let deadline = Instant::now() + Duration::from_secs(60);
    while client.list_profiles().is_err() {
        assert!(Instant::now() < deadline, "the app did not answer on {}", socket.display());
        std::thread::sleep(Duration::from_millis(50));
    }
    client
}

fn running_agents(client: &Client) -> Vec<u32> {
    client
        .list_sessions()
        .unwrap_or_default()
        .into_iter()
        .filter_map(|s| match s.state {
            SessionState::Running { pid } => Some(pid),
            _ => None,
        })
        .collect()
}

/// Alive and not a zombie.
fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .is_ok_and(|stat| stat.rsplit(')').next().is_some_and(|rest| !rest.trim_start().starts_with('Z')))
}

fn env_number(name: &str, default: usize) -> usize {
    std::env::var(name).ok().and_then(|n| n.parse().ok()).unwrap_or(default)
}

/// A small xorshift generator: the kill moments need only be spread out.
struct Rng(u64);

impl Rng {
    fn below(&mut self, bound: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % bound
    }
}
