//! Another machine's engine over SSH, through the real command line and a
//! real OpenSSH server on 127.0.0.1 (a configuration of the test's own on a
//! free port, throwaway keys, a data directory of its own standing for the
//! other machine's): a host key ssh does not know is shown and accepted only
//! by its fingerprint; the host's daemon is started on demand and outlives
//! the SSH connection; an agent there is given a task from here and
//! completes it; a host that presents a changed key is refused with the
//! reason.

mod support;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

/// How long a condition may take to hold.
const DEADLINE: Duration = Duration::from_secs(60);

/// The app's binary (its command line), built beside the test binaries by
/// the workspace's `cargo test`.
fn app_binary() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let app = exe.parent().and_then(Path::parent).unwrap().join("switchboard");
    assert!(app.is_file(), "{} is missing: run the workspace's `cargo test`, which builds it", app.display());
    app
}

/// An OpenSSH server for the test alone, and an ssh configuration that
/// reaches it as `testhost` with the test's own key and known-hosts file.
struct Sshd {
    dir: PathBuf,
    port: u16,
    child: Child,
    /// The "other machine"'s data directory.
    remote_data: PathBuf,
}

fn keygen(path: &Path) {
    let _ = std::fs::remove_file(path);
    let _ = std::fs::remove_file(path.with_extension("pub"));
    let status = Command::new("ssh-keygen")
        .args(["-q", "-t", "ed25519", "-N", "", "-f"])
        .arg(path)
        .status()
        .expect("ssh-keygen (openssh-client) is installed");
    assert!(status.success());
}

impl Sshd {
    fn start(dir: &Path) -> Sshd {
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        keygen(&dir.join("host_key"));
        keygen(&dir.join("user_key"));
        std::fs::copy(dir.join("user_key.pub"), dir.join("authorized_keys")).unwrap();
        let remote_data = dir.join("remote-xdg");
        // sshd as root checks its privilege separation folder is there.
        if nix_is_root() {
            std::fs::create_dir_all("/run/sshd").unwrap();
        }
        let config = format!(
            "Port {port}\nListenAddress 127.0.0.1\nHostKey {d}/host_key\nAuthorizedKeysFile {d}/authorized_keys\n\
             PasswordAuthentication no\nKbdInteractiveAuthentication no\nUsePAM no\nStrictModes no\n\
             PidFile {d}/sshd.pid\nPermitRootLogin prohibit-password\nSetEnv XDG_DATA_HOME={x}\n",
            d = dir.display(),
            x = remote_data.display()
        );
        std::fs::write(dir.join("sshd_config"), config).unwrap();
        let client = format!(
            "Host testhost\n  HostName 127.0.0.1\n  Port {port}\n  IdentityFile {d}/user_key\n  IdentitiesOnly yes\n  \
             UserKnownHostsFile {d}/known_hosts\n  GlobalKnownHostsFile /dev/null\n  PasswordAuthentication no\n  \
             LogLevel ERROR\n",
            d = dir.display()
        );
        std::fs::write(dir.join("ssh_config"), client).unwrap();
        let mut sshd =
            Sshd { dir: dir.to_path_buf(), port, child: spawn_sshd(dir), remote_data: remote_data.join("switchboard") };
        sshd.wait_listening();
        sshd
    }

    fn wait_listening(&mut self) {
        let started = Instant::now();
        while std::net::TcpStream::connect(("127.0.0.1", self.port)).is_err() {
            if let Some(status) = self.child.try_wait().unwrap() {
                let log = std::fs::read_to_string(self.dir.join("sshd.log")).unwrap_or_default();
                panic!("sshd exited ({status}): {log}");
            }
            assert!(started.elapsed() < DEADLINE, "sshd does not listen on {}", self.port);
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The server again with a new host key: what a reinstalled machine, or
    /// someone in the middle, presents.
    fn restart_with_new_key(&mut self) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
        keygen(&self.dir.join("host_key"));
        self.child = spawn_sshd(&self.dir);
        self.wait_listening();
    }

    /// The app's command line on this machine (its own data directory),
    /// reaching hosts through the test's ssh configuration.
    fn cli(&self, args: &[&str]) -> (i32, String, String) {
        let output = Command::new(app_binary())
            .arg("--data-dir")
            .arg(self.dir.join("local-data"))
            .args(args)
            .env("SWITCHBOARD_SSH", format!("ssh -F {}", self.dir.join("ssh_config").display()))
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

    fn known_hosts(&self) -> String {
        std::fs::read_to_string(self.dir.join("known_hosts")).unwrap_or_default()
    }
}

fn spawn_sshd(dir: &Path) -> Child {
    let log = std::fs::File::create(dir.join("sshd.log")).unwrap();
    Command::new("/usr/sbin/sshd")
        .args(["-D", "-e", "-f"])
        .arg(dir.join("sshd_config"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .expect("sshd (openssh-server) is installed")
}

fn nix_is_root() -> bool {
    nix::unistd::Uid::current().is_root()
}

impl Drop for Sshd {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        // The other machine's daemon, started over SSH, stops with the test.
        let _ = Command::new(app_binary())
            .arg("--data-dir")
            .arg(&self.remote_data)
            .args(["daemon", "--stop"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
}

#[test]
fn a_host_is_added_by_its_accepted_key_runs_a_task_from_here_and_is_refused_once_its_key_changes() {
    let temp = tempfile::tempdir().unwrap();
    let mut sshd = Sshd::start(temp.path());
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
        let shown: switchboard_core::TaskInfo =
            serde_json::from_value(there(&["task", "show", &id, "--json"])).unwrap();
        if shown.state().is_finished() {
            break shown;
        }
        assert!(started.elapsed() < DEADLINE, "the task there did not complete: {shown:?}");
        std::thread::sleep(Duration::from_millis(100));
    };
    assert_eq!(done.state(), switchboard_core::TaskState::Completed, "{done:?}");
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
    sshd.restart_with_new_key();
    let listed = sshd.json(&["host", "list", "--json"]);
    assert_eq!(listed[0]["state"], "changed_host_key", "{listed}");
    assert!(listed[0]["problem"].as_str().unwrap().contains("another key"), "{listed}");
    let (code, _, err) = sshd.cli(&["--host", "testhost", "agent", "list"]);
    assert_ne!(code, 0);
    assert!(err.contains("presents another key"), "{err}");
}
