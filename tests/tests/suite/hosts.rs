//! Another machine's engine over SSH, through the real command line and a
//! real OpenSSH server on 127.0.0.1 (a configuration of the test's own on a
//! free port, throwaway keys, a data directory of its own standing for the
//! other machine's): a host key ssh does not know is shown and accepted only
//! by its fingerprint; the host's daemon is started on demand and outlives
//! the SSH connection; an agent there is given a task from here and
//! completes it; a host that presents a changed key is refused with the
//! reason.

use crate::support;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;
use switchboard_tests::sshd::Sshd;

/// How long a condition may take to hold.
const DEADLINE: Duration = Duration::from_secs(60);

use support::app_binary;

/// The test's sshd, and the app's command line on this machine reaching
/// hosts through it.
struct Rig {
    sshd: Sshd,
}

impl std::ops::Deref for Rig {
    type Target = Sshd;
    fn deref(&self) -> &Sshd {
        &self.sshd
    }
}

impl Rig {
    /// The app's command line on this machine (its own data directory),
    /// reaching hosts through the test's ssh configuration.
    fn cli(&self, args: &[&str]) -> (i32, String, String) {
        let output = Command::new(app_binary())
            .arg("--data-dir")
            .arg(self.dir.join("local-data"))
            .args(args)
            .env("SWITCHBOARD_SSH", self.ssh_command())
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
}

impl Drop for Rig {
    fn drop(&mut self) {
        // The other machine's daemon, started over SSH, stops with the test.
        let _ = Command::new(app_binary())
            .arg("--data-dir")
            .arg(&self.sshd.remote_data)
            .args(["daemon", "--stop"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
}

#[test]
fn a_host_is_added_by_its_accepted_key_runs_a_task_from_here_and_is_refused_once_its_key_changes() {
    let temp = tempfile::tempdir().unwrap();
    let mut sshd = Rig { sshd: Sshd::start(temp.path()) };
    let app = app_binary().display().to_string();
    let add = ["host", "add", "testhost", "--remote-program", &app, "--json"];

    // A key ssh does not know: shown, nothing accepted, nothing added.
    let (code, out, _) = sshd.cli(&add);
    assert_eq!(code, 4, "{out}");
    let refused: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(refused["state"], "unknown_host_key", "{refused}");
    let fingerprint = refused["unknown_key"]["fingerprint"].as_str().unwrap().to_owned();
    assert!(fingerprint.starts_with("SHA256:"), "{refused}");
    assert!(refused["problem"].as_str().unwrap().contains(&format!("--accept-key {fingerprint}")), "{refused}");
    assert_eq!(sshd.known_hosts(), "", "never accepted silently");
    // Another fingerprint than the host's: still nothing.
    let (code, out, _) = sshd.cli(&[&add[..], &["--accept-key", "SHA256:not-its-key"]].concat());
    assert_eq!(code, 4, "{out}");
    assert!(out.contains("not the key you accepted"), "{out}");
    assert_eq!(sshd.known_hosts(), "");
    assert!(sshd.json(&["host", "list", "--json"]).as_array().unwrap().is_empty());

    // Its own: added to the known hosts, and the host's engine is started on demand.
    // (A program that is not there says how to put it there, and adds nothing.)
    let missing = ["host", "add", "testhost", "--remote-program", "/nowhere/switchboard", "--json"];
    let (code, out, _) = sshd.cli(&[&missing[..], &["--accept-key", &fingerprint]].concat());
    assert_eq!(code, 4, "{out}");
    let missing: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(missing["state"], "not_installed", "{missing}");
    assert!(missing["problem"].as_str().unwrap().contains("--remote-program"), "{missing}");
    let added = sshd.json(&[&add[..], &["--accept-key", &fingerprint]].concat());
    assert_eq!(added["state"], "connected", "{added}");
    assert_eq!(added["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(sshd.known_hosts().lines().count(), 1, "{}", sshd.known_hosts());
    let listed = sshd.json(&["host", "list", "--json"]);
    assert_eq!(listed[0]["destination"], "testhost");
    assert_eq!(listed[0]["state"], "connected", "{listed}");

    // An agent there, given a task from here, completes it there.
    let workspace = temp.path().join("remote-workspace");
    std::fs::create_dir_all(&workspace).unwrap();
    let workspace = workspace.display().to_string();
    let there = |args: &[&str]| sshd.json(&[&["--host", "testhost"][..], args].concat());
    let agent_args = ["agent", "add", "--name", "builder", "--command", support::DEMO_AGENT];
    there(&[&agent_args[..], &["--arg", "--speed", "--arg", "fast", "--cwd", &workspace, "--json"]].concat());
    let task = there(&["task", "add", "--agent", "builder", "Write the release notes", "--json"]);
    let id = task["task"]["id"].as_str().unwrap_or_else(|| panic!("{task}")).to_owned();
    let started = Instant::now();
    let done = loop {
        let shown: switchboard_core::TaskRecord =
            serde_json::from_value(there(&["task", "show", &id, "--json"])).unwrap();
        if shown.state.is_finished() {
            break shown;
        }
        assert!(started.elapsed() < DEADLINE, "the task there did not complete: {shown:?}");
        std::thread::sleep(Duration::from_millis(100));
    };
    assert_eq!(done.state, switchboard_core::TaskState::Completed, "{done:?}");
    assert_eq!(done.spec.instruction, "Write the release notes");
    assert!(Path::new(&workspace).join("summaries").join(format!("{id}.md")).is_file(), "its summary is there");

    // The host's daemon is not the SSH session's: it runs on with none open.
    let status = Command::new(app_binary())
        .arg("--data-dir")
        .arg(&sshd.remote_data)
        .args(["daemon", "--status", "--json"])
        .output()
        .unwrap();
    let status: Value = serde_json::from_slice(&status.stdout).unwrap();
    assert_eq!(status["running"], true, "{status}");

    // A changed host key is refused, with the reason, for every command.
    sshd.sshd.restart_with_new_key();
    let listed = sshd.json(&["host", "list", "--json"]);
    assert_eq!(listed[0]["state"], "changed_host_key", "{listed}");
    assert!(listed[0]["problem"].as_str().unwrap().contains("another key"), "{listed}");
    let (code, _, err) = sshd.cli(&["--host", "testhost", "agent", "list"]);
    assert_ne!(code, 0);
    assert!(err.contains("presents another key"), "{err}");
}

/// The engine lists its own machine's folders for a window that cannot use
/// its desktop's picker (the window on another machine's engine): through
/// the one client, as the window asks.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_engine_lists_its_machines_folders_and_says_why_it_cannot() {
    let t = support::TestEngine::start().await;
    std::fs::create_dir_all(t.workspace.join("api/src")).unwrap();
    std::fs::create_dir_all(t.workspace.join(".cache")).unwrap();
    std::fs::write(t.workspace.join("README.md"), "x").unwrap();
    let socket = switchboard_core::config::socket_path(&t.data_dir, None);
    let client = switchboard_client::Client::connect(&socket, switchboard_client::ClientKind::Window).await.unwrap();
    let listed = client.list_folder(t.workspace.display().to_string()).await.unwrap();
    assert_eq!(listed.folders, ["api", ".cache"], "folders only, hidden ones last");
    assert_eq!(listed.parent.as_deref(), Some(t.data_dir.canonicalize().unwrap().to_str().unwrap()));
    let refused = client.list_folder("api/src".into()).await.unwrap_err().into_api();
    assert_eq!(refused.code, switchboard_core::ErrorCode::InvalidInput);
    assert!(refused.message.contains("whole path"), "{}", refused.message);
    let file = t.workspace.join("README.md").display().to_string();
    let refused = client.list_folder(file).await.unwrap_err().into_api();
    assert!(refused.message.contains("is a file, not a folder"), "{}", refused.message);
}

/// A window over this machine's engine and another machine's behind a real
/// sshd, learning who holds what as the window's links do (this machine's
/// engine's lists first, then the other's answers and events): the other
/// machine's engine names this machine's agent's id in what it says (an
/// agent there is named by it, tasks there are given it as their words),
/// and the agent stays this machine's: its next task reaches this
/// machine's engine, not the other.
#[test]
fn another_machine_naming_this_machine_s_agent_does_not_take_it() {
    use switchboard_client::fleet::{self, Owners, Route, Said};
    use switchboard_client::{ClientKind, EventItem};
    use switchboard_core::{Command, EngineEvent, ErrorCode, Reply};

    let temp = tempfile::tempdir().unwrap();
    let rig = Rig { sshd: Sshd::start(temp.path()) };
    rig.trust();
    let app = app_binary().display().to_string();
    let added = rig.json(&["host", "add", "testhost", "--remote-program", &app, "--json"]);
    assert_eq!(added["state"], "connected", "{added}");
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    runtime.block_on(async {
        let local = support::TestEngine::start().await;
        let mine = local.demo_profile(&["--speed", "fast"]).await;
        let mine_id = mine.id.to_string();

        // The other machine: an agent named by this machine's agent's id, a task there whose words are it.
        let workspace = temp.path().join("remote-workspace");
        std::fs::create_dir_all(&workspace).unwrap();
        let there_args = |args: &[&str]| {
            [&["--host", "testhost"][..], args].concat().iter().map(|a| a.to_string()).collect::<Vec<_>>()
        };
        let json = |args: Vec<String>| rig.json(&args.iter().map(String::as_str).collect::<Vec<_>>());
        let echo = json(there_args(&[
            "agent",
            "add",
            "--name",
            &mine_id,
            "--command",
            support::DEMO_AGENT,
            "--cwd",
            workspace.to_str().unwrap(),
            "--json",
        ]));
        let echo_id = echo["id"].as_str().unwrap_or_else(|| panic!("{echo}")).to_owned();
        json(there_args(&["task", "add", "--agent", &echo_id, &mine_id, "--json"]));

        let socket = switchboard_core::config::socket_path(&local.data_dir, None);
        let here = switchboard_client::Client::connect(&socket, ClientKind::Window).await.unwrap();
        let host = switchboard_client::ssh::Host {
            remote_program: Some(app),
            ..switchboard_client::ssh::Host::new(switchboard_tests::sshd::HOST).unwrap()
        };
        let ssh = switchboard_client::ssh::ssh_program_of(Some(&rig.ssh_command()));
        let there = switchboard_client::ssh::connect_with(ssh, &host, ClientKind::Window).await.unwrap();

        let mut owners = Owners::default();
        for list in switchboard_client::fleet::holdings() {
            owners.learn_here(Said::Reply(&here.call(list).await.unwrap()));
        }
        owners.here_told();
        for list in switchboard_client::fleet::holdings() {
            owners.learn(&host.destination, Said::Reply(&there.call(list).await.unwrap()));
        }
        // And its events: another task there given this machine's agent's id as its words.
        let mut events = there.subscribe().await.unwrap();
        let spec: switchboard_core::TaskSpec =
            serde_json::from_value(serde_json::json!({"profile_id": echo_id, "instruction": mine_id})).unwrap();
        let Reply::Submitted(echoed) = there.call(Command::SubmitTask { spec }).await.unwrap() else { panic!() };
        owners.learn(&host.destination, Said::Reply(&Reply::Submitted(echoed.clone())));
        let deadline = Instant::now() + DEADLINE;
        loop {
            let next = tokio::time::timeout_at(deadline.into(), events.next()).await.expect("its task's event");
            let Some(EventItem::Event { event, .. }) = next else { panic!("the other machine's events ended") };
            owners.learn(&host.destination, Said::Event(&event));
            if matches!(&event, EngineEvent::TaskChanged { task } if task.id == echoed.task.id) {
                break;
            }
        }
        // What the other machine holds is routed there.
        assert_eq!(owners.owner(std::slice::from_ref(&echo_id)), Some(host.destination.as_str()));
        assert_eq!(owners.owner(&[echoed.task.id.to_string()]), Some(host.destination.as_str()));

        // This machine's agent's next task: this machine's engine holds the agent.
        let spec: switchboard_core::TaskSpec =
            serde_json::from_value(serde_json::json!({"profile_id": mine_id, "instruction": "Local work"})).unwrap();
        let command = Command::SubmitTask { spec };
        let Route::Owner(ids) = fleet::route(&command) else { panic!("a task goes where its agent is") };
        assert_eq!(owners.owner(&ids), None, "this machine's agent was taken by the machine that named it");
        let Reply::Submitted(submitted) = here.call(command).await.unwrap() else { panic!() };
        local.task_until(&submitted.task.id, "heard of here", |_| true).await;
        let elsewhere = there.call(Command::GetTask { task_id: submitted.task.id.clone() }).await.unwrap_err();
        assert_eq!(elsewhere.into_api().code, ErrorCode::TaskNotFound);
    });
}

/// `--remote-program` is one word of the host's shell: a path with a space
/// reaches the program, and shell syntax in it is never run.
#[test]
fn the_program_named_for_a_host_is_one_word_there() {
    let temp = tempfile::tempdir().unwrap();
    let rig = Rig { sshd: Sshd::start(temp.path()) };
    rig.trust();
    let spaced = temp.path().join("my tools");
    std::fs::create_dir_all(&spaced).unwrap();
    std::os::unix::fs::symlink(app_binary(), spaced.join("switchboard")).unwrap();
    let program = spaced.join("switchboard").display().to_string();
    let added = rig.json(&["host", "add", "testhost", "--remote-program", &program, "--json"]);
    assert_eq!(added["state"], "connected", "{added}");
    assert_eq!(added["version"], env!("CARGO_PKG_VERSION"));

    let marker = temp.path().join("ran");
    // `#` ends the line there: unquoted, `touch` would run with nothing after it.
    let hostile = format!("{}; touch {} #", app_binary().display(), marker.display());
    let (code, out, err) = rig.cli(&["host", "add", "testhost", "--remote-program", &hostile, "--json"]);
    assert_eq!(code, 4, "{out}{err}");
    let refused: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(refused["state"], "not_installed", "{refused}");
    assert!(!marker.exists(), "shell syntax in the program's name ran on the host");
}

/// A name far past any cap: what a hostile machine sent in the round that
/// found window memory growing (15 MiB).
const HUGE_NAME_BYTES: usize = 15 << 20;

/// Another machine's engine that lies, served where that machine's engine
/// listens (its `daemon --stdio` bridges ssh to it): its answers hold records
/// of its own that carry this machine's agent's id, and names of 15 MiB.
struct LyingEngine {
    local_agent: switchboard_core::ProfileId,
    own_agent: switchboard_core::ProfileId,
}

impl switchboard_core::server::RequestHandler for LyingEngine {
    async fn handle(
        &self,
        command: switchboard_api::Command,
        _caller: switchboard_core::server::Caller,
    ) -> Result<switchboard_core::Reply, switchboard_core::EngineError> {
        use switchboard_api::{Profile, ProfileSpec};
        use switchboard_core::{Command, Reply};
        let profile = |id: &switchboard_core::ProfileId, name: String| Profile {
            id: id.clone(),
            spec: ProfileSpec { name, ..Default::default() },
            created_at: 1,
            host: None,
        };
        Ok(match command {
            Command::ListProfiles {} => {
                // One frame (16 MiB at most) holds one such name.
                Reply::Profiles(vec![
                    profile(&self.local_agent, "mine now".into()),
                    profile(&self.own_agent, "n".repeat(HUGE_NAME_BYTES)),
                ])
            }
            _ => Reply::Unit,
        })
    }
}

/// A window over this machine's engine and a lying machine's behind a real
/// sshd (its real `daemon --stdio` bridging to a lying engine): the liar's
/// records that carry this machine's agent's id take nothing, its own agent
/// is routed to it, every name it sends is kept at a name's length, and this
/// machine's agent's next task reaches this machine's engine.
#[test]
fn a_lying_machine_takes_no_agent_of_this_one_and_its_names_are_kept_short() {
    use switchboard_client::fleet::{self, Owners, Route, Said};
    use switchboard_client::{ClientKind, ssh};
    use switchboard_core::{Command, Reply};

    let temp = tempfile::tempdir().unwrap();
    let rig = Rig { sshd: Sshd::start(temp.path()) };
    rig.trust();
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    runtime.block_on(async {
        let local = support::TestEngine::start().await;
        let mine = local.demo_profile(&["--speed", "fast"]).await;
        // The other machine's ssh sessions have no runtime folder: its socket is in its data directory.
        let socket = switchboard_core::config::socket_path(&rig.remote_data, None);
        std::fs::create_dir_all(socket.parent().unwrap()).unwrap();
        let liar = LyingEngine { local_agent: mine.id.clone(), own_agent: switchboard_core::ProfileId::new() };
        let own_agent = liar.own_agent.to_string();
        let _served = switchboard_core::server::serve(&socket, std::sync::Arc::new(liar)).unwrap();

        let here = switchboard_client::Client::connect(
            &switchboard_core::config::socket_path(&local.data_dir, None),
            ClientKind::Window,
        )
        .await
        .unwrap();
        let host = ssh::Host {
            remote_program: Some(app_binary().display().to_string()),
            ..ssh::Host::new(switchboard_tests::sshd::HOST).unwrap()
        };
        let there =
            ssh::connect_with(ssh::ssh_program_of(Some(&rig.ssh_command())), &host, ClientKind::Window).await.unwrap();

        let mut owners = Owners::default();
        for list in switchboard_client::fleet::holdings() {
            owners.learn_here(Said::Reply(&here.call(list).await.unwrap()));
        }
        owners.here_told();
        let sent = there.call(Command::ListProfiles {}).await.unwrap();
        let Reply::Profiles(sent_profiles) = &sent else { panic!("{sent:?}") };
        assert_eq!(sent_profiles[1].spec.name.len(), HUGE_NAME_BYTES);
        let kept = fleet::heard_from_host(&mut owners, &host.destination, sent).unwrap();
        let Reply::Profiles(kept) = kept else { panic!() };
        // Its record under this machine's agent's id is not kept: a forgery.
        assert_eq!(kept.iter().map(|profile| profile.id.to_string()).collect::<Vec<_>>(), vec![own_agent.clone()]);
        for profile in &kept {
            assert!(profile.spec.name.len() <= switchboard_core::capped::MAX_NAME_BYTES, "{}", profile.spec.name.len());
            assert_eq!(profile.host.as_deref(), Some(host.destination.as_str()));
        }
        assert_eq!(owners.owner(std::slice::from_ref(&own_agent)), Some(host.destination.as_str()));

        let spec: switchboard_core::TaskSpec =
            serde_json::from_value(serde_json::json!({"profile_id": mine.id.to_string(), "instruction": "Local work"}))
                .unwrap();
        let command = Command::SubmitTask { spec };
        let Route::Owner(ids) = fleet::route(&command) else { panic!("a task goes where its agent is") };
        assert_eq!(owners.owner(&ids), None, "the lying machine took this machine's agent");
        let Reply::Submitted(submitted) = here.call(command).await.unwrap() else { panic!() };
        local.task_until(&submitted.task.id, "heard of here", |_| true).await;
    });
}

/// This machine's daemon, started by the test through the real command line
/// (`daemon`, as a user would), stopped when the test ends.
struct LocalDaemon {
    data_dir: PathBuf,
}

impl LocalDaemon {
    fn start(data_dir: &Path) -> LocalDaemon {
        use std::io::BufRead;
        let mut child = Command::new(app_binary())
            .arg("--data-dir")
            .arg(data_dir)
            .args(["--no-demo", "daemon"])
            .env_remove("SWITCHBOARD_DATA_DIR")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
        assert!(line.contains("ready"), "this machine's daemon did not start: {line}");
        // Reaped whenever it ends: no zombie left under the test.
        std::thread::spawn(move || child.wait());
        LocalDaemon { data_dir: data_dir.to_path_buf() }
    }

    /// Its status, asked on this machine with no --host.
    fn status(&self) -> Value {
        let output = Command::new(app_binary())
            .arg("--data-dir")
            .arg(&self.data_dir)
            .args(["daemon", "--status", "--json"])
            .output()
            .unwrap();
        serde_json::from_slice(&output.stdout).unwrap()
    }
}

impl Drop for LocalDaemon {
    fn drop(&mut self) {
        let _ = Command::new(app_binary())
            .arg("--data-dir")
            .arg(&self.data_dir)
            .args(["daemon", "--stop"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
}

/// `--host X daemon --stop` once stopped this machine's engine and its
/// agents. Now `daemon --status` and `--stop` given a host run on the host
/// itself (not through `daemon --stdio`, which would start an engine there):
/// the host's engine stops, this machine's runs on, and the host's status
/// says so without starting one. What cannot run there is refused in words,
/// and nothing runs here instead.
#[test]
fn daemon_stop_given_a_host_stops_that_host_s_engine_and_not_this_one() {
    let temp = tempfile::tempdir().unwrap();
    let rig = Rig { sshd: Sshd::start(temp.path()) };
    rig.trust();
    let app = app_binary().display().to_string();
    // Adding the host reaches its engine: started there on demand.
    let added = rig.json(&["host", "add", "testhost", "--remote-program", &app, "--json"]);
    assert_eq!(added["state"], "connected", "{added}");
    let local = LocalDaemon::start(&rig.dir.join("local-data"));
    let local_pid = local.status()["pid"].clone();
    assert!(local_pid.is_u64(), "{}", local.status());
    let remote_status = || {
        let output = Command::new(app_binary())
            .arg("--data-dir")
            .arg(&rig.remote_data)
            .args(["daemon", "--status", "--json"])
            .output()
            .unwrap();
        serde_json::from_slice::<Value>(&output.stdout).unwrap()
    };
    let remote_pid = remote_status()["pid"].clone();
    assert!(remote_pid.is_u64() && remote_pid != local_pid, "{}", remote_status());

    // Its status is the host's engine's.
    let status = rig.json(&["--host", "testhost", "daemon", "--status", "--json"]);
    assert_eq!(status["running"], true, "{status}");
    assert_eq!(status["pid"], remote_pid, "the status given --host is the host's: {status}");
    let (code, out, err) = rig.cli(&["--host", "testhost", "daemon", "--status"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.starts_with("The engine ") && out.contains("runs on testhost"), "{out}");

    // What cannot run there is refused, in words, and runs nowhere.
    for refused in [&["daemon"][..], &["daemon", "--stdio"], &["host", "list"], &["scan"]] {
        let (code, out, err) = rig.cli(&[&["--host", "testhost"][..], refused].concat());
        assert_eq!(code, 2, "{refused:?}: {out}{err}");
        assert!(err.starts_with("switchboard: ") && err.len() > 40, "{refused:?}: {err}");
    }
    let (code, out, err) = rig.cli(&["--host", "testhost", "agent", "add", "--name", "a", "--command", "sh"]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.contains("--cwd"), "this machine's current folder is not sent there: {err}");

    // Stopped: the host's engine, not this machine's.
    let (code, out, err) = rig.cli(&["--host", "testhost", "daemon", "--stop"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.starts_with("testhost: The engine on") && out.contains("stopped"), "{out}");
    assert_eq!(remote_status()["running"], false, "the host's engine still runs");
    let still = local.status();
    assert_eq!(still["running"], true, "this machine's engine was stopped: {still}");
    assert_eq!(still["pid"], local_pid, "{still}");

    // None runs there now, and asking does not start one.
    let (code, out, err) = rig.cli(&["--host", "testhost", "daemon", "--status"]);
    assert_eq!(code, 3, "{out}{err}");
    assert_eq!(out.trim(), "No engine runs on testhost.");
    assert_eq!(remote_status()["running"], false, "asking after the host's engine started one");
    let (code, out, err) = rig.cli(&["--host", "testhost", "daemon", "--stop"]);
    assert_eq!(code, 3, "{out}{err}");
    assert!(out.contains("No engine runs on testhost"), "{out}");
    assert_eq!(local.status()["running"], true, "this machine's engine was stopped");
}
