//! Crash ×N, twice: the engine (the daemon, `switchboard daemon`) is
//! killed with SIGKILL at a random moment `ROUNDS` (20) times, and then,
//! on a fresh data folder, the window (`target/dist/switchboard`, under a
//! display; its engine is the daemon it started) is killed the same way
//! while the daemon goes on. Each time an agent works through its queue,
//! another waits on a question for the user, and a third runs a loop (each
//! iteration a fresh process that notes its run). Every round queues `TASKS`
//! (5) more tasks over the socket and notes what the engine acknowledged.
//! Then one last start drains the queue, lets the loop run a few more
//! iterations and cancels it, and the records are checked:
//!
//! - lost: an acknowledged task, or a question that waited for the user,
//!   missing from the records; a loop iteration number skipped (the ended
//!   iterations are not numbered 1, 2, 3… without a gap);
//! - duplicated: a task recorded twice, or completed twice; a loop
//!   iteration counted twice (two ended under one number, or two ended from
//!   one run of the agent);
//! - reordered: a task started before one queued ahead of it;
//! - stuck: a task still queued or running once the queue has drained, a
//!   loop iteration still recorded as at work after the engine stopped;
//! - orphaned: an agent process of a killed engine alive after the restart;
//! - and for the window's kills, cut: an agent that did not outlive the
//!   window, or a session the engine recorded as interrupted (a window's
//!   death must cost the agents nothing).
//!
//! `KILL=engine` or `KILL=window` runs one of the two. Run with
//! `bench/crash.sh` (it builds the app and provides a display).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use switchboard_client::blocking::Client;
use switchboard_core::loops::LoopSettings;
use switchboard_core::store::Store;
use switchboard_core::{
    AgentKind, IterationOutcome, LogKind, LoopState, Profile, ProfileId, ProfileSpec, SessionState, SignalState,
    TaskId, TaskSpec, TaskState,
};

/// Iterations the loop runs at the last start, before it is cancelled.
const LAST_START_ITERATIONS: u32 = 3;

/// What is killed each round.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kill {
    /// The daemon: its agents are recovered at its next start.
    Engine,
    /// The window: the daemon and its agents go on.
    Window,
}

impl Kill {
    fn name(self) -> &'static str {
        match self {
            Kill::Engine => "engine",
            Kill::Window => "window",
        }
    }
}

fn main() {
    let rounds: usize = env_number("ROUNDS", 20);
    let per_round: usize = env_number("TASKS", 5);
    let exe = std::env::current_exe().unwrap();
    let dist = exe.parent().and_then(Path::parent).and_then(Path::parent).unwrap().join("dist");
    let app = dist.join("switchboard");
    let agent = dist.join("switchboard-demo-agent");
    assert!(app.is_file() && agent.is_file(), "build first: ./scripts/build.sh ({})", dist.display());
    let kills: Vec<Kill> = match std::env::var("KILL").as_deref() {
        Ok("engine") => vec![Kill::Engine],
        Ok("window") => vec![Kill::Window],
        _ => vec![Kill::Engine, Kill::Window],
    };
    if kills.contains(&Kill::Window) {
        assert!(std::env::var_os("DISPLAY").is_some(), "the window needs a display: run bench/crash.sh");
    }
    let mut bad = 0;
    for kill in kills {
        println!("== SIGKILL to the {} ==", kill.name());
        bad += crashes(kill, &App { app: app.clone() }, &agent, rounds, per_round);
    }
    std::process::exit(i32::from(bad > 0));
}

/// The app, started as the engine alone or as a window.
struct App {
    app: PathBuf,
}

impl App {
    fn command(&self, data: &Path) -> Command {
        let mut command = Command::new(&self.app);
        command.arg("--data-dir").arg(data).arg("--no-demo").stdout(Stdio::null()).stderr(Stdio::null());
        command
    }

    /// What `kill` kills: the daemon itself, or a window (which starts the
    /// daemon the first time, in a session of its own, and then finds it).
    fn launch(&self, data: &Path, kill: Kill) -> Child {
        let mut command = self.command(data);
        if kill == Kill::Engine {
            command.arg("daemon");
        }
        command.spawn().unwrap()
    }

    /// The engine stopped as a user stops it (its agents with it).
    fn stop_engine(&self, data: &Path) {
        let status = self.command(data).args(["daemon", "--stop"]).status().unwrap();
        assert!(status.success(), "daemon --stop failed");
    }
}

/// One run of rounds, killing `kill` each round; how many things went wrong.
fn crashes(kill: Kill, app: &App, agent: &Path, rounds: usize, per_round: usize) -> usize {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let workspace = dir.path().join("work");
    std::fs::create_dir_all(&workspace).unwrap();
    let loop_workspace = dir.path().join("loop-work");
    std::fs::create_dir_all(&loop_workspace).unwrap();
    let (worker, asker, looper) = seed(&data, &workspace, &loop_workspace, agent);
    let socket = switchboard_cli::socket_for(Some(&data)).unwrap();
    let mut rng = Rng(std::process::id() as u64 ^ 0x9e37_79b9_7f4a_7c15);

    let mut submitted: Vec<TaskId> = Vec::new();
    let mut waiting_questions = BTreeSet::new();
    let mut orphans = 0;
    let mut cut = 0;
    let mut killed_agents: Vec<u32> = Vec::new();
    let mut loop_id = None;
    for round in 1..=rounds {
        let mut running = app.launch(&data, kill);
        let client = wait_for(&socket);
        if loop_id.is_none() {
            // Never done, never stalled (each run says another thing): it iterates until cancelled.
            let settings =
                LoopSettings { max_iterations: 10_000, stall_after: 10_000, ..LoopSettings::new("Note each step") };
            loop_id = Some(client.start_loop(looper.clone(), settings).unwrap().id);
        }
        // The agents when the last kill came: gone once a killed engine was
        // recovered; still there (unless they ended by themselves) when only
        // the window went.
        match kill {
            Kill::Engine => orphans += killed_agents.drain(..).filter(|pid| alive(*pid)).count(),
            Kill::Window => {
                let running_now = running_agents(&client);
                cut += killed_agents.drain(..).filter(|pid| !alive(*pid) && running_now.contains(pid)).count();
            }
        }
        for pending in client.list_signals().unwrap().into_iter().filter(|s| s.state == SignalState::Pending) {
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

    // The last start: the queue drains, then the engine stops.
    let mut last = app.launch(&data, kill);
    let client = wait_for(&socket);
    if kill == Kill::Engine {
        orphans += killed_agents.into_iter().filter(|pid| alive(*pid)).count();
    }
    let deadline = Instant::now() + Duration::from_secs(180);
    while Instant::now() < deadline {
        let queue = client.list_queues().unwrap().into_iter().find(|q| q.profile_id == worker);
        if queue.is_none_or(|q| q.queued == 0 && !q.executing) {
            break;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    // The loop goes on after the crashes, then the user cancels it.
    let loop_id = loop_id.expect("the loop started in the first round");
    let ran_before = client.get_loop(loop_id.clone()).unwrap().iterations_run;
    while Instant::now() < deadline {
        let info = client.get_loop(loop_id.clone()).unwrap();
        if info.iterations_run >= ran_before + LAST_START_ITERATIONS || !info.is_active() {
            break;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    client.cancel_loop(loop_id.clone()).unwrap();
    drop(client);
    match kill {
        Kill::Engine => {
            nix::sys::signal::kill(nix::unistd::Pid::from_raw(last.id() as i32), nix::sys::signal::Signal::SIGTERM)
                .unwrap();
            last.wait().unwrap();
        }
        Kill::Window => {
            app.stop_engine(&data);
            last.kill().unwrap();
            last.wait().unwrap();
        }
    }

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

    // The loop: every iteration as recorded, oldest first.
    let info = store.get_loop(&loop_id).unwrap().expect("the loop is recorded");
    let history = store.loop_iterations(&loop_id, None, u32::MAX).unwrap();
    let mut ended_numbers = Vec::new();
    let mut ended_runs = BTreeMap::<String, usize>::new();
    let (mut interrupted, mut failed_starts, mut left_running) = (0, 0, 0);
    for iteration in &history {
        match &iteration.outcome {
            IterationOutcome::Ended { stop_reason, .. } => {
                ended_numbers.push(iteration.number);
                *ended_runs.entry(stop_reason.clone()).or_default() += 1;
            }
            IterationOutcome::Interrupted { .. } => interrupted += 1,
            IterationOutcome::FailedStart { exit, said, .. } => {
                failed_starts += 1;
                eprintln!("a failed start of iteration {}: {exit}: {said}", iteration.number);
            }
            IterationOutcome::Running => left_running += 1,
        }
    }
    let mut numbers = ended_numbers.clone();
    numbers.sort_unstable();
    numbers.dedup();
    let iterations_duplicated = (ended_numbers.len() - numbers.len()) + ended_runs.values().filter(|n| **n > 1).count();
    let iterations_lost = numbers.iter().enumerate().filter(|(index, number)| **number != *index as u32 + 1).count()
        + usize::from(info.iterations_run as usize != ended_numbers.len());
    let loop_tasks_stuck =
        store.active_tasks(Some(&looper)).unwrap().iter().filter(|t| t.spec.loop_iteration.is_some()).count();
    let agent_runs = std::fs::read_to_string(loop_workspace.join("runs")).unwrap_or_default();

    // A window's death interrupts nothing: every session the engine
    // recorded as interrupted was cut by it.
    let interrupted_sessions = store
        .list_sessions()
        .unwrap()
        .into_iter()
        .filter(|s| matches!(s.state, SessionState::Interrupted { .. }))
        .count();
    if kill == Kill::Window {
        cut += interrupted_sessions;
    }
    println!(
        "rounds: {rounds}, tasks acknowledged: {}, questions waiting: {}",
        submitted.len(),
        waiting_questions.len()
    );
    println!("task states at the end: {states:?}");
    println!(
        "loop: {}, {} iterations run, {} interrupted and run again, {} failed starts, {} agent runs",
        info.state.as_str(),
        info.iterations_run,
        interrupted,
        failed_starts,
        agent_runs.trim()
    );
    println!("lost: {} (loop iterations: {iterations_lost})", lost_tasks + lost_questions + iterations_lost);
    println!("duplicated: {} (loop iterations: {iterations_duplicated})", duplicated + iterations_duplicated);
    println!("reordered: {reordered}");
    println!(
        "stuck: {} (loop iterations: {})",
        stuck + loop_tasks_stuck + left_running,
        loop_tasks_stuck + left_running
    );
    println!("orphaned: {}", orphans + sessions_left_running);
    if kill == Kill::Window {
        println!("cut by the window's death: {cut} (sessions interrupted: {interrupted_sessions})");
    }
    let loop_bad = iterations_lost
        + iterations_duplicated
        + loop_tasks_stuck
        + left_running
        + usize::from(!matches!(info.state, LoopState::Cancelled { .. }));
    lost_tasks + lost_questions + duplicated + reordered + stuck + orphans + sessions_left_running + loop_bad + cut
}

/// The agents: one that works through its tasks, one that asks a question
/// and waits, and one for the loop: at its prompt it takes the iteration,
/// numbers its run in `runs`, works a moment, says which run it was and
/// exits (the iteration's end).
fn seed(data: &Path, workspace: &Path, loop_workspace: &Path, agent: &Path) -> (ProfileId, ProfileId, ProfileId) {
    let store = Store::open(&data.join("switchboard.db")).unwrap();
    let profile = |name: &str, command: &str, args: &[&str], cwd: &Path, ready: Option<&str>| {
        let profile = Profile {
            id: ProfileId::new(),
            spec: ProfileSpec {
                name: name.into(),
                command: command.to_owned(),
                args: args.iter().map(|a| (*a).to_owned()).collect(),
                cwd: cwd.display().to_string(),
                kind: AgentKind::Generic,
                ready_pattern: ready.map(str::to_owned),
                ready_quiet_ms: 50,
                ..ProfileSpec::default()
            },
            created_at: 0,
            host: None,
        };
        store.insert_profile(&profile).unwrap();
        profile.id
    };
    let demo = agent.display().to_string();
    let loop_script = "printf 'agent> '; read -r line; n=$(( $(cat runs 2>/dev/null || echo 0) + 1 )); \
                       echo $n > runs; sleep 0.3; echo \"finished run $n\"";
    (
        profile("worker", &demo, &["--speed", "100"], workspace, None),
        profile("asker", &demo, &["--speed", "fast", "--signal", "clarification", "--no-summary"], workspace, None),
        profile("looper", "sh", &["-c", loop_script], loop_workspace, Some("agent> $")),
    )
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
