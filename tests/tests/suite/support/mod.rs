//! Helpers shared by the engine tests: an engine on a temporary data
//! directory, reached as every client reaches it (over its socket, through
//! `switchboard-client`), its events and terminals as a client receives
//! them, and waiting with a deadline.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use switchboard_client::{Client, ClientKind, EventItem};
use switchboard_core::{
    AgentKind, Engine, EngineConfig, EngineEvent, EngineHandle, Profile, ProfileSpec, SessionId, SessionInfo,
    SessionState, TermSize,
};
use tokio::sync::Notify;

/// Generous: these deadlines only bound a failing test, they assert nothing
/// about speed.
pub const DEADLINE: Duration = Duration::from_secs(20);

pub const DEMO_AGENT: &str = env!("CARGO_BIN_EXE_switchboard-demo-agent");
pub const ENGINE_HOST: &str = env!("CARGO_BIN_EXE_switchboard-engine-host");
pub const STORE_WRITER: &str = env!("CARGO_BIN_EXE_switchboard-store-writer");
/// An agent whose CLI starts the tools' server and makes the calls typed to it.
pub const MCP_CLIENT: &str = env!("CARGO_BIN_EXE_switchboard-mcp-client");

/// Bytes and events collected from the engine, with a wake-up on change.
pub struct Collected<T> {
    items: Mutex<Vec<T>>,
    changed: Notify,
    /// Why the collection cannot be trusted any more (the engine said the
    /// test fell behind its events): every wait fails with it at once.
    broken: Mutex<Option<String>>,
}

impl<T> Default for Collected<T> {
    fn default() -> Self {
        Collected { items: Mutex::new(Vec::new()), changed: Notify::new(), broken: Mutex::new(None) }
    }
}

impl<T: Clone> Collected<T> {
    pub fn push(&self, item: T) {
        self.items.lock().unwrap().push(item);
        self.changed.notify_waiters();
    }

    pub fn extend(&self, items: impl IntoIterator<Item = T>) {
        self.items.lock().unwrap().extend(items);
        self.changed.notify_waiters();
    }

    pub fn snapshot(&self) -> Vec<T> {
        self.items.lock().unwrap().clone()
    }

    /// Marks the collection as missing items, so waits on it fail saying why.
    pub fn break_with(&self, why: String) {
        *self.broken.lock().unwrap() = Some(why);
        self.changed.notify_waiters();
    }

    pub fn len(&self) -> usize {
        self.items.lock().unwrap().len()
    }

    /// Waits until `found` returns something, or panics at the deadline
    /// with `what` and the collected items.
    pub async fn wait_for<R>(&self, what: &str, found: impl Fn(&[T]) -> Option<R>) -> R
    where
        T: std::fmt::Debug,
    {
        let waiting = async {
            loop {
                let notified = self.changed.notified();
                if let Some(result) = found(&self.items.lock().unwrap()) {
                    return result;
                }
                if let Some(why) = self.broken.lock().unwrap().clone() {
                    panic!("while waiting for {what}: {why}");
                }
                // Also re-check now and then: notify_waiters only wakes
                // waiters registered before it fired.
                tokio::select! {
                    () = notified => {}
                    () = tokio::time::sleep(Duration::from_millis(50)) => {}
                }
            }
        };
        match tokio::time::timeout(DEADLINE, waiting).await {
            Ok(result) => result,
            Err(_) => panic!("timed out waiting for {what}"),
        }
    }
}

impl Collected<u8> {
    /// Appends `bytes`, then drops all but the last `cap` bytes.
    pub fn keep_last(&self, bytes: &[u8], cap: usize) {
        {
            let mut items = self.items.lock().unwrap();
            items.extend_from_slice(bytes);
            let excess = items.len().saturating_sub(cap);
            items.drain(..excess);
        }
        self.changed.notify_waiters();
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.snapshot()).into_owned()
    }

    pub async fn wait_for_text(&self, needle: &str) -> String {
        let needle = needle.to_owned();
        self.wait_for(&format!("output containing {needle:?}"), |bytes| {
            let text = String::from_utf8_lossy(bytes);
            text.contains(&needle).then(|| text.into_owned())
        })
        .await
    }
}

/// The hook binary (also every session's keeper), built beside the test
/// binaries by the workspace's `cargo test`.
pub fn hook_binary() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let hook = exe.parent().and_then(Path::parent).unwrap().join("switchboard-hook");
    assert!(hook.is_file(), "{} is missing: run the workspace's `cargo test`, which builds it", hook.display());
    hook
}

/// The agents' tools server, built beside the test binaries by the
/// workspace's `cargo test` (its own tests run it).
pub fn mcp_binary() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let server = exe.parent().and_then(Path::parent).unwrap().join("switchboard-mcp");
    assert!(server.is_file(), "{} is missing: run the workspace's `cargo test`, which builds it", server.display());
    server
}

/// The app's binary (its command line), from the optimised build the
/// package holds and the window tests run (`./scripts/build.sh`, in
/// `target/dist`, beside the test binaries' `target/debug`).
pub fn app_binary() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let target = exe.parent().and_then(Path::parent).and_then(Path::parent).unwrap();
    let app = target.join("dist").join("switchboard");
    assert!(app.is_file(), "{} is missing: run ./scripts/build.sh, which builds it", app.display());
    app
}

pub struct TestEngine {
    /// The engine as the window and the command line reach it: over its
    /// socket, through the one client. Every command a test sends goes this
    /// way, past the same checks of who may send it.
    pub engine: Client,
    /// The engine's events, as this client's subscription receives them.
    pub events: Arc<Collected<EngineEvent>>,
    pub data_dir: PathBuf,
    pub workspace: PathBuf,
    /// The engine's socket.
    pub socket: PathBuf,
    /// The number of the last event `events` holds.
    last_seq: Arc<std::sync::atomic::AtomicU64>,
    /// What the daemon holds of its engine: only to stop it.
    handle: EngineHandle,
    _temp: Option<tempfile::TempDir>,
}

impl Drop for TestEngine {
    /// The agents a test left running end with it. The engine stops them
    /// when its last handle goes, but the test's runtime ends right after
    /// and takes the engine's task with it, so they were left behind
    /// (re-parented, sleeping on). A test that shut its engine down already
    /// returns at once.
    fn drop(&mut self) {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else { return };
        // Waiting here needs a second thread: every test with an engine runs on two.
        assert_eq!(
            runtime.runtime_flavor(),
            tokio::runtime::RuntimeFlavor::MultiThread,
            "a test with an engine runs on the multi-threaded runtime, so its agents end with it"
        );
        let engine = self.handle.clone();
        tokio::task::block_in_place(|| {
            runtime.block_on(async {
                if tokio::time::timeout(DEADLINE, engine.shutdown()).await.is_err() {
                    eprintln!("the test's engine did not stop its agents within {DEADLINE:?}");
                }
            })
        });
    }
}

/// Events and terminal output a test may fall behind by: far more than any
/// test makes, so what a test waits for never depends on how loaded the
/// machine is (a test that still falls behind fails saying so).
const TEST_FEED_EVENTS: usize = 1 << 20;
const TEST_OUTPUT_BUDGET: usize = 1 << 30;

impl TestEngine {
    pub async fn start() -> TestEngine {
        Self::start_with(|_| {}).await
    }

    pub async fn start_with(configure: impl FnOnce(&mut EngineConfig)) -> TestEngine {
        let temp = tempfile::tempdir().unwrap();
        let mut engine = Self::start_in(temp.path(), configure).await;
        engine._temp = Some(temp);
        engine
    }

    /// An engine on an existing data directory (for restart tests).
    pub async fn start_in(data_dir: &Path, configure: impl FnOnce(&mut EngineConfig)) -> TestEngine {
        let workspace = data_dir.join("workspace");
        std::fs::create_dir_all(&workspace).unwrap();
        let mut config = EngineConfig::new(data_dir.to_path_buf(), None);
        config.kill_grace = Duration::from_millis(500);
        // Agents run under their keeper, as in the app.
        config.keeper = Some(hook_binary());
        config.socket.feed_capacity = TEST_FEED_EVENTS;
        config.socket.output_budget = TEST_OUTPUT_BUDGET;
        config.socket.event_budget = TEST_OUTPUT_BUDGET;
        configure(&mut config);
        let socket = config.socket_path.clone();
        let handle = Engine::start(config, Arc::new(switchboard_core::NoEvents)).await.unwrap();
        let engine = Client::connect(&socket, ClientKind::Test).await.expect("the test's engine answers on its socket");
        let events = Arc::new(Collected::default());
        let mut feed = engine.subscribe().await.expect("the test's engine sends its events");
        let last_seq = Arc::new(std::sync::atomic::AtomicU64::new(feed.as_of));
        let (collected, seen) = (events.clone(), last_seq.clone());
        tokio::spawn(async move {
            while let Some(item) = feed.next().await {
                match item {
                    EventItem::Event { seq, event } => {
                        collected.push(event);
                        seen.store(seq, std::sync::atomic::Ordering::SeqCst);
                    }
                    EventItem::Lost => {
                        collected.break_with("the engine says this test fell behind its events; some were lost".into())
                    }
                }
            }
        });
        let data_dir = data_dir.to_path_buf();
        TestEngine { engine, events, data_dir, workspace, socket, last_seq, handle, _temp: None }
    }

    /// Waits until this test has received every event the engine published
    /// before now. A reply can come before the events its command caused
    /// (the engine writes replies first), so a test that reads what it was
    /// told after a reply asks this first.
    pub async fn caught_up(&self) {
        let probe = Client::connect(&self.socket, ClientKind::Test).await.expect("the engine answers");
        let now = probe.subscribe().await.expect("the engine sends its events").as_of;
        let seen = self.last_seq.clone();
        wait_until("the test to have the engine's events so far", move || {
            seen.load(std::sync::atomic::Ordering::SeqCst) >= now
        })
        .await;
    }

    /// Every event the engine published before now, as this test received them.
    pub async fn events_now(&self) -> Vec<EngineEvent> {
        self.caught_up().await;
        self.events.snapshot()
    }

    /// The last 500 lines of the session's screen, as the engine keeps it.
    pub async fn screen(&self, session: &SessionId) -> String {
        self.engine.screen_snapshot(session.clone(), 500).await.unwrap().recent_lines.join("\n")
    }

    /// Waits until the session's screen shows `needle`; answers the screen.
    pub async fn wait_for_screen(&self, session: &SessionId, needle: &str) -> String {
        for _ in 0..400 {
            let screen = self.screen(session).await;
            if screen.contains(needle) {
                return screen;
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        panic!("{needle:?} never appeared:\n{}", self.screen(session).await)
    }

    /// Waits until a session the engine lists satisfies `condition` (one it
    /// started before this test's client subscribed, at its start, too).
    pub async fn session_where(&self, what: &str, condition: impl Fn(&SessionInfo) -> bool) -> SessionInfo {
        let deadline = tokio::time::Instant::now() + DEADLINE;
        loop {
            let sessions = self.engine.list_sessions().await.unwrap();
            if let Some(found) = sessions.into_iter().find(|session| condition(session)) {
                return found;
            }
            assert!(tokio::time::Instant::now() < deadline, "timed out waiting for {what}");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// The engine as the daemon holds it, for what the daemon runs beside it
    /// (its notices).
    pub fn handle(&self) -> &EngineHandle {
        &self.handle
    }

    /// Windows following the engine's events now (a window leaves the
    /// desktop's notices to the daemon only while none does).
    pub fn windows_following(&self) -> usize {
        self.handle.feed().map_or(0, |feed| feed.windows())
    }

    /// Stops every agent and the engine, as the daemon does when it is told
    /// to stop; returns once their processes are gone.
    pub async fn shutdown(&self) {
        self.handle.shutdown().await;
    }

    pub fn spec(&self, name: &str, command: &str, args: &[&str]) -> ProfileSpec {
        ProfileSpec {
            name: name.into(),
            command: command.into(),
            args: args.iter().map(|a| a.to_string()).collect(),
            env: Default::default(),
            cwd: self.workspace.display().to_string(),
            kind: AgentKind::Generic,
            start_on_launch: false,
            ..Default::default()
        }
    }

    /// Waits until the task's latest reported state satisfies `condition`.
    pub async fn task_until(
        &self,
        id: &switchboard_core::TaskId,
        what: &str,
        condition: impl Fn(&switchboard_core::TaskRecord) -> bool,
    ) -> switchboard_core::TaskRecord {
        self.events
            .wait_for(&format!("task {id} {what}"), |events| {
                let latest = events.iter().rev().find_map(|event| match event {
                    EngineEvent::TaskChanged { task } if &task.id == id => Some(task),
                    _ => None,
                })?;
                condition(latest).then(|| latest.clone())
            })
            .await
    }

    pub async fn profile(&self, name: &str, command: &str, args: &[&str]) -> Profile {
        self.engine.create_profile(self.spec(name, command, args)).await.unwrap()
    }

    pub async fn demo_profile(&self, args: &[&str]) -> Profile {
        self.profile("demo", DEMO_AGENT, args).await
    }

    /// The demo agent running `steps` for whatever it is given, ready at `agent> `.
    pub async fn looping_profile(&self, steps: &str) -> Profile {
        let path = self.data_dir.join("loop.toml");
        std::fs::write(&path, format!("prompt = \"agent> \"\n[[tasks]]\nsteps = {steps}\n")).unwrap();
        let spec = ProfileSpec {
            ready_pattern: Some("agent> $".into()),
            ready_quiet_ms: 50,
            ..self.spec("looper", DEMO_AGENT, &["--speed", "fast", "--scenario", path.to_str().unwrap()])
        };
        self.engine.create_profile(spec).await.unwrap()
    }

    /// Starts a session and subscribes to its output.
    pub async fn start_session(&self, profile: &Profile) -> (SessionInfo, Arc<Collected<u8>>) {
        let session = self.engine.start_session(profile.id.clone(), TermSize::DEFAULT).await.unwrap();
        let output = self.attach(&session.id).await;
        (session, output)
    }

    /// Follows a session's terminal as a window does: what the engine kept
    /// of its output first, then live output, until the session ends.
    pub async fn attach(&self, session: &SessionId) -> Arc<Collected<u8>> {
        let output = Arc::new(Collected::default());
        let sink = output.clone();
        let mut terminal = self.engine.attach(session.clone()).await.unwrap();
        tokio::spawn(async move {
            while let Some(batch) = terminal.next().await {
                sink.extend(batch);
            }
            if let Some(switchboard_client::StreamEnd::Behind) = terminal.ended() {
                sink.break_with("the engine says this test fell behind the terminal's output".into());
            }
        });
        output
    }

    /// Waits until the loop has ended.
    pub async fn loop_ends(&self, id: &switchboard_core::LoopId) -> switchboard_core::LoopInfo {
        self.events
            .wait_for("the loop to end", |events| {
                events.iter().rev().find_map(|e| match e {
                    EngineEvent::LoopChanged { info } if &info.id == id && !info.is_active() => Some(info.clone()),
                    _ => None,
                })
            })
            .await
    }

    /// Waits until the automation has paused (itself, or by the user).
    pub async fn automation_paused(&self, id: &switchboard_core::AutomationId) -> switchboard_core::Automation {
        self.events
            .wait_for("the automation to pause", |events| {
                events.iter().rev().find_map(|e| match e {
                    EngineEvent::AutomationChanged { automation }
                        if &automation.id == id && automation.state.as_str() == "paused" =>
                    {
                        Some(automation.clone())
                    }
                    _ => None,
                })
            })
            .await
    }

    /// An automation on `profile` that queues a task of `text` when
    /// `trigger` says, with the defaults (skip overlaps, catch up once, 6 an
    /// hour, the machine's zone).
    pub fn automation(
        profile: &switchboard_core::ProfileId,
        trigger: switchboard_core::Trigger,
        text: &str,
    ) -> switchboard_core::AutomationSpec {
        switchboard_core::AutomationSpec {
            profile_id: profile.clone(),
            trigger,
            action: switchboard_core::AutomationAction::Task {
                instruction: text.into(),
                title: None,
                budget: None,
                time_limit_secs: None,
            },
            zone: None,
            overlap: switchboard_core::Overlap::Skip,
            catch_up: switchboard_core::CatchUp::Once,
            max_runs_per_hour: switchboard_core::DEFAULT_RUNS_PER_HOUR,
        }
    }

    /// Waits until the task is given to a session, and names it.
    pub async fn session_of_task(&self, task: &switchboard_core::TaskId) -> SessionId {
        self.events
            .wait_for("the task's session", |events| {
                events.iter().find_map(|e| match e {
                    EngineEvent::TaskChanged { task: info } if &info.id == task => info.session_id.as_ref().cloned(),
                    _ => None,
                })
            })
            .await
    }

    /// Waits for the session-changed event that reports the session ended.
    pub async fn wait_for_end(&self, session: &SessionId) -> SessionInfo {
        self.events
            .wait_for("the session to end", |events| {
                events.iter().find_map(|event| match event {
                    EngineEvent::SessionChanged { session: info }
                        if &info.id == session && !matches!(info.state, SessionState::Running { .. }) =>
                    {
                        Some(info.clone())
                    }
                    _ => None,
                })
            })
            .await
    }
}

/// The agent statuses reported for `session`, repeats left out.
pub fn statuses(events: &[EngineEvent], session: &SessionId) -> Vec<switchboard_core::hook::AgentStatus> {
    let mut out = Vec::new();
    for event in events {
        if let EngineEvent::AgentStatusChanged { status } = event
            && &status.session_id == session
            && out.last() != Some(&status.status)
        {
            out.push(status.status);
        }
    }
    out
}

pub fn pid_of(session: &SessionInfo) -> u32 {
    match session.state {
        SessionState::Running { pid } => pid,
        ref other => panic!("session is not running: {other:?}"),
    }
}

/// Whether a process exists at all (a zombie counts: it was not reaped).
pub fn process_exists(pid: u32) -> bool {
    Path::new(&format!("/proc/{pid}")).exists()
}

pub async fn wait_until(what: &str, condition: impl Fn() -> bool) {
    let deadline = tokio::time::Instant::now() + DEADLINE;
    while !condition() {
        assert!(tokio::time::Instant::now() < deadline, "timed out waiting until {what}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Runs a command line against the test engine off the test's runtime
/// threads (it blocks); returns exit code, stdout, stderr.
pub async fn cli_async(t: &TestEngine, line: &[&str]) -> (std::process::ExitCode, String, String) {
    let line: Vec<String> = line.iter().map(|s| s.to_string()).collect();
    let data_dir = t.data_dir.clone();
    tokio::task::spawn_blocking(move || {
        use clap::Parser;
        let args = std::iter::once("switchboard".to_owned()).chain(line);
        let command = switchboard_cli::Cli::try_parse_from(args).unwrap().command.expect("a client command");
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let socket = switchboard_core::config::socket_path(&data_dir, None);
        let code = switchboard_cli::run(command, &socket, &mut out, &mut err);
        (code, String::from_utf8(out).unwrap(), String::from_utf8(err).unwrap())
    })
    .await
    .unwrap()
}
