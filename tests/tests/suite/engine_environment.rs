//! The engine a user starts, through the real app binary: which build it
//! is (compiled in, so the same build installed at another path is the same
//! build), the environment its agents get (never a window's own variables),
//! and the environment a restart keeps (the stopped engine's, where its
//! agents' commands were found, not the restarter's).

use crate::support;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;
use switchboard_daemon::{self as daemon, Environment, Started};

/// How long a condition may take to hold.
const DEADLINE: Duration = Duration::from_secs(60);

use support::app_binary;

/// A data directory whose daemon, however it was started, is stopped when
/// the test ends.
struct Data {
    dir: PathBuf,
}

impl Data {
    fn new(dir: PathBuf) -> Data {
        std::fs::create_dir_all(&dir).unwrap();
        Data { dir }
    }

    /// The app's command line on this data directory, in the test's environment.
    fn cli(&self, args: &[&str]) -> (i32, String, String) {
        let output = Command::new(app_binary())
            .arg("--data-dir")
            .arg(&self.dir)
            .args(args)
            .env_remove("SWITCHBOARD_DATA_DIR")
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let text = |bytes: &[u8]| String::from_utf8_lossy(bytes).into_owned();
        (output.status.code().unwrap_or(-1), text(&output.stdout), text(&output.stderr))
    }

    fn json(&self, args: &[&str]) -> Value {
        let (code, out, err) = self.cli(args);
        assert_eq!(code, 0, "{args:?}: {err}{out}");
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("{args:?} printed no JSON ({e}): {out}"))
    }

    fn status(&self) -> Value {
        let (_, out, _) = self.cli(&["daemon", "--status", "--json"]);
        serde_json::from_str(&out).unwrap()
    }

    fn socket(&self) -> PathBuf {
        switchboard_cli::socket_for(Some(&self.dir)).unwrap()
    }

    /// The environment the running engine's process was started with.
    fn engine_environment(&self) -> String {
        let pid = self.status()["pid"].as_u64().unwrap_or_else(|| panic!("no engine runs: {}", self.status()));
        String::from_utf8_lossy(&std::fs::read(format!("/proc/{pid}/environ")).unwrap()).replace('\0', "\n")
    }

    /// Waits for the task to end, and says how.
    fn task_ends(&self, id: &str) -> switchboard_core::TaskRecord {
        let started = Instant::now();
        loop {
            let shown: switchboard_core::TaskRecord =
                serde_json::from_value(self.json(&["task", "show", id, "--json"])).unwrap();
            if shown.state.is_finished() {
                return shown;
            }
            assert!(started.elapsed() < DEADLINE, "the task did not end: {shown:?}");
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for Data {
    fn drop(&mut self) {
        let _ = self.cli(&["daemon", "--stop"]);
    }
}

/// Starts the daemon the way a user does (`switchboard daemon`, in the
/// background), with `env` added to the test's environment.
fn start_daemon(program: &Path, data: &Data, env: &[(&str, &str)]) {
    use std::io::BufRead;
    let mut child = Command::new(program)
        .arg("--data-dir")
        .arg(&data.dir)
        .args(["--no-demo", "daemon"])
        .envs(env.iter().copied())
        .env_remove("SWITCHBOARD_DATA_DIR")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    assert!(line.contains("ready"), "the daemon did not start: {line}");
    // Reaped whenever it ends: no zombie left under the test.
    std::thread::spawn(move || child.wait());
}

/// An agent that writes its environment to `env.txt` in its folder, then waits.
fn environment_writer(data: &Data, workspace: &Path) -> PathBuf {
    let written = workspace.join("env.txt");
    let script = format!("env > '{}'; exec sleep 60", written.display());
    data.json(&[
        "agent",
        "add",
        "--name",
        "printer",
        "--command",
        "sh",
        "--arg",
        "-c",
        "--arg",
        &script,
        "--cwd",
        workspace.to_str().unwrap(),
        "--json",
    ]);
    data.json(&["task", "add", "--agent", "printer", "Show your environment", "--json"]);
    let started = Instant::now();
    while !std::fs::read_to_string(&written).is_ok_and(|text| text.contains("PATH=")) {
        assert!(started.elapsed() < DEADLINE, "the agent did not write its environment");
        std::thread::sleep(Duration::from_millis(50));
    }
    written
}

/// The banner fired for the same build installed at another path (builds
/// were told apart by the binary's size and time). The build is compiled
/// in: a copy of the binary, made now at another path, runs the same build.
#[test]
fn the_same_build_at_another_path_is_the_same_build() {
    let temp = tempfile::tempdir().unwrap();
    let elsewhere = temp.path().join("opt/switchboard");
    std::fs::create_dir_all(&elsewhere).unwrap();
    let copy = elsewhere.join("switchboard");
    std::fs::copy(app_binary(), &copy).unwrap();
    let data = Data::new(temp.path().join("data"));
    start_daemon(&copy, &data, &[]);

    // Asked by the binary where it was built: the engine is the same build.
    let status = data.status();
    assert_eq!(status["running"], true, "{status}");
    let build = status["build"].as_str().unwrap_or_else(|| panic!("the status names no build: {status}"));
    assert!(build.starts_with(&format!("{}+", env!("CARGO_PKG_VERSION"))) && !build.ends_with("unstamped"), "{build}");
    assert_eq!(status["same_build"], true, "the same build at another path read as another: {status}");
}

/// The window's own variables (WebKit's, GTK's) reached agents: the
/// window started the engine in its environment. Started the way the
/// window starts it (`daemon::launch`, which `daemon --stdio` uses too),
/// the engine has none of them; started around the window (by hand, with
/// them set), its agents still get none: the engine keeps them from agents.
#[test]
fn a_window_s_own_variables_reach_neither_the_engine_it_starts_nor_its_agents() {
    let temp = tempfile::tempdir().unwrap();
    let window_variables = [
        ("WEBKIT_DISABLE_COMPOSITING_MODE", "1"),
        ("GDK_BACKEND", "x11"),
        ("DESKTOP_STARTUP_ID", "launcher-token"),
        ("MY_SESSION_SETTING", "kept"),
    ];

    // The window's way: `launch`, from a process that has them (here `daemon --stdio`'s).
    let data = Data::new(temp.path().join("launched"));
    let bridge = Command::new(app_binary())
        .arg("--data-dir")
        .arg(&data.dir)
        .args(["daemon", "--stdio"])
        .envs(window_variables)
        .env_remove("SWITCHBOARD_DATA_DIR")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    assert!(bridge.status.success(), "{}", String::from_utf8_lossy(&bridge.stderr));
    let engine = data.engine_environment();
    assert!(engine.contains("MY_SESSION_SETTING=kept"), "the session's own variables go on: {engine}");
    for name in ["WEBKIT_", "GDK_", "DESKTOP_STARTUP_ID"] {
        assert!(!engine.lines().any(|l| l.starts_with(name)), "the engine the window started has {name}: {engine}");
    }
    let workspace = temp.path().join("ws-launched");
    std::fs::create_dir_all(&workspace).unwrap();
    let agent = std::fs::read_to_string(environment_writer(&data, &workspace)).unwrap();
    assert!(agent.contains("MY_SESSION_SETTING=kept"), "{agent}");
    assert!(!agent.lines().any(|l| l.starts_with("WEBKIT_") || l.starts_with("GDK_")), "{agent}");

    // Around the window: the engine has them, its agents do not.
    let data = Data::new(temp.path().join("by-hand"));
    start_daemon(&app_binary(), &data, &window_variables);
    assert!(data.engine_environment().contains("WEBKIT_DISABLE_COMPOSITING_MODE=1"), "the test set it");
    let workspace = temp.path().join("ws-by-hand");
    std::fs::create_dir_all(&workspace).unwrap();
    let agent = std::fs::read_to_string(environment_writer(&data, &workspace)).unwrap();
    assert!(agent.contains("MY_SESSION_SETTING=kept"), "{agent}");
    for name in ["WEBKIT_", "GDK_", "DESKTOP_STARTUP_ID"] {
        assert!(!agent.lines().any(|l| l.starts_with(name)), "an agent got the window's {name}: {agent}");
    }
}

/// A restarted engine took the window's environment (its PATH), and a task
/// of an agent whose command was found on the engine's PATH failed with
/// "not found". The restart starts the new engine in the stopped one's
/// environment, whatever the restarter's.
#[test]
fn a_restarted_engine_keeps_the_environment_the_engine_had() {
    let temp = tempfile::tempdir().unwrap();
    // The agent's command is found only in a folder on the engine's PATH, not the test's.
    let tools = temp.path().join("tools");
    std::fs::create_dir_all(&tools).unwrap();
    std::os::unix::fs::symlink(support::DEMO_AGENT, tools.join("fake-claude")).unwrap();
    let path = format!("{}:{}", tools.display(), std::env::var("PATH").unwrap_or_default());
    assert!(which_in(&std::env::var("PATH").unwrap_or_default(), "fake-claude").is_none());
    let mut engine_env: Vec<(OsString, OsString)> =
        std::env::vars_os().filter(|(name, _)| name != "PATH" && name != "SWITCHBOARD_DATA_DIR").collect();
    engine_env.push(("PATH".into(), path.clone().into()));
    engine_env.push(("ENGINE_ONLY".into(), "from the first engine".into()));

    let data = Data::new(temp.path().join("data"));
    let started = daemon::launch_with(&app_binary(), &data.dir, true, &Environment::Exactly(engine_env)).unwrap();
    assert!(matches!(started, Started::Ready { .. }), "{started:?}");
    let workspace = temp.path().join("ws");
    std::fs::create_dir_all(&workspace).unwrap();
    data.json(&[
        "agent",
        "add",
        "--name",
        "claude",
        "--command",
        "fake-claude",
        "--arg",
        "--speed",
        "--arg",
        "fast",
        "--cwd",
        workspace.to_str().unwrap(),
        "--json",
    ]);
    let first = data.json(&["task", "add", "--agent", "claude", "Before the restart", "--json"]);
    let first = data.task_ends(first["task"]["id"].as_str().unwrap());
    assert_eq!(first.state, switchboard_core::TaskState::Completed, "{first:?}");
    let before = data.status()["pid"].clone();

    // Restarted by this process, whose PATH has no such folder.
    let restarted = daemon::restart(&app_binary(), &data.dir, &data.socket(), true).unwrap();
    assert!(matches!(restarted, Started::Ready { .. }), "{restarted:?}");
    assert_ne!(data.status()["pid"], before, "a new engine runs");
    let engine = data.engine_environment();
    assert!(engine.contains("ENGINE_ONLY=from the first engine"), "{engine}");
    assert!(engine.lines().any(|l| l == format!("PATH={path}")), "{engine}");

    // A task queued after the restart still finds its agent's command.
    let second = data.json(&["task", "add", "--agent", "claude", "After the restart", "--json"]);
    let second = data.task_ends(second["task"]["id"].as_str().unwrap());
    assert_eq!(second.state, switchboard_core::TaskState::Completed, "{second:?}");
}

/// The program `name` on `path`, if it is there.
fn which_in(path: &str, name: &str) -> Option<PathBuf> {
    std::env::split_paths(path).map(|dir| dir.join(name)).find(|candidate| candidate.is_file())
}

/// An agent whose command was found on the engine's PATH when it was made
/// is kept with the folder it was found in: a later engine started with
/// another PATH (by a window, by a login service) still starts it.
#[test]
fn an_agent_s_command_found_on_path_is_found_by_a_later_engine_with_another_path() {
    let temp = tempfile::tempdir().unwrap();
    let tools = temp.path().join("tools");
    std::fs::create_dir_all(&tools).unwrap();
    let program = tools.join("fake-claude");
    std::os::unix::fs::symlink(support::DEMO_AGENT, &program).unwrap();
    let plain: Vec<(OsString, OsString)> =
        std::env::vars_os().filter(|(name, _)| name != "SWITCHBOARD_DATA_DIR").collect();
    let mut with_tools = plain.clone();
    let path = format!("{}:{}", tools.display(), std::env::var("PATH").unwrap_or_default());
    with_tools.retain(|(name, _)| name != "PATH");
    with_tools.push(("PATH".into(), path.into()));

    let data = Data::new(temp.path().join("data"));
    let started = daemon::launch_with(&app_binary(), &data.dir, true, &Environment::Exactly(with_tools)).unwrap();
    assert!(matches!(started, Started::Ready { .. }), "{started:?}");
    let workspace = temp.path().join("ws");
    std::fs::create_dir_all(&workspace).unwrap();
    let added = data.json(&[
        "agent",
        "add",
        "--name",
        "claude",
        "--command",
        "fake-claude",
        "--arg",
        "--speed",
        "--arg",
        "fast",
        "--cwd",
        workspace.to_str().unwrap(),
        "--json",
    ]);
    // Kept, and shown, as where it was found.
    assert_eq!(added["command"], program.display().to_string(), "{added}");

    // Another engine, whose PATH does not have that folder.
    let (code, out, err) = data.cli(&["daemon", "--stop"]);
    assert_eq!(code, 0, "{out}{err}");
    let started = daemon::launch_with(&app_binary(), &data.dir, true, &Environment::Exactly(plain)).unwrap();
    assert!(matches!(started, Started::Ready { .. }), "{started:?}");
    assert!(!data.engine_environment().contains(&tools.display().to_string()), "the new engine's PATH has no tools");
    let task = data.json(&["task", "add", "--agent", "claude", "Write the release notes", "--json"]);
    let task = data.task_ends(task["task"]["id"].as_str().unwrap());
    assert_eq!(task.state, switchboard_core::TaskState::Completed, "{task:?}");
}

/// Automations fire only while the engine runs: its status says whether the
/// user's login service runs it, judged when asked (an install counts at
/// once). Started from a service's environment (its `INVOCATION_ID`) is
/// not started by the login service.
#[test]
fn the_status_says_whether_a_login_service_starts_the_engine() {
    let root = tempfile::tempdir().unwrap();
    let config = root.path().join("config");
    let config_home = config.to_str().unwrap();
    let by_hand = Data::new(root.path().join("by-hand"));
    start_daemon(&app_binary(), &by_hand, &[("XDG_CONFIG_HOME", config_home), ("INVOCATION_ID", "5f0c1e")]);
    assert_eq!(by_hand.status()["starts_at_login"], false, "{}", by_hand.status());
    let (_, line, _) = by_hand.cli(&["daemon", "--status"]);
    assert!(line.contains("automations fire only while it runs"), "{line}");

    // The unit `daemon --install` writes, and the link `systemctl --user enable` makes to it.
    let units = config.join("systemd/user");
    std::fs::create_dir_all(units.join("default.target.wants")).unwrap();
    let unit = |dir: &Path| daemon::install::DaemonUnit { exe: app_binary(), data_dir: dir.to_owned(), no_demo: true };
    let other = root.path().join("other");
    std::fs::write(units.join("switchboard.service"), daemon::install::unit_text(&unit(&other))).unwrap();
    std::os::unix::fs::symlink("../switchboard.service", units.join("default.target.wants/switchboard.service"))
        .unwrap();
    assert_eq!(by_hand.status()["starts_at_login"], false, "a unit for another data folder: {}", by_hand.status());
    std::fs::write(units.join("switchboard.service"), daemon::install::unit_text(&unit(&by_hand.dir))).unwrap();
    assert_eq!(by_hand.status()["starts_at_login"], true, "{}", by_hand.status());
    let (_, line, _) = by_hand.cli(&["daemon", "--status"]);
    assert!(line.contains("Its login service starts it at each login."), "{line}");
}
