//! Another user of the machine against the user's data directory: a folder,
//! database or socket they own is never used, and a socket they serve in the
//! engine's place hears nothing from the command line, the window's client
//! or an agent's hook. Playing another user takes root (as the real-agent
//! tests' network namespace does): the tests run as root and become
//! `nobody` for the other user's part.

use crate::support;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;

use support::{hook_binary, wait_until};
use switchboard_core::config::socket_path;
use switchboard_core::{Engine, EngineConfig, EngineError};

/// The other user: `nobody`.
const OTHER: u32 = 65534;

fn as_root() {
    assert!(
        nix::unistd::geteuid().is_root(),
        "these tests play another user of the machine and run as root (as the suite does in CI)"
    );
}

fn give_away(path: &Path) {
    std::os::unix::fs::chown(path, Some(OTHER), Some(OTHER)).unwrap();
}

async fn start(data_dir: &Path) -> Result<(), EngineError> {
    let config = EngineConfig::new(data_dir.to_path_buf(), None);
    Engine::start(config, Arc::new(|_| {})).await.map(drop)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_data_directory_another_user_owns_is_refused_in_words() {
    as_root();
    for owned in ["the data folder", "run/", "the database"] {
        let temp = tempfile::tempdir().unwrap();
        let data_dir = temp.path().join("data");
        std::fs::create_dir(&data_dir).unwrap();
        let theirs = match owned {
            "the data folder" => data_dir.clone(),
            "run/" => data_dir.join("run"),
            _ => data_dir.join("switchboard.db"),
        };
        if owned == "the database" {
            std::fs::write(&theirs, b"").unwrap();
        } else {
            std::fs::create_dir_all(&theirs).unwrap();
        }
        give_away(&theirs);
        let Err(refused) = start(&data_dir).await else { panic!("an engine started with {owned} another user's") };
        assert!(matches!(refused, EngineError::NotYours(_)), "{owned}: {refused:?}");
        let said = refused.to_string();
        assert!(said.contains("belongs to another user") && said.contains(&theirs.display().to_string()), "{said}");
        // Refused before anything was opened or made there.
        if owned != "the database" {
            assert!(!data_dir.join("switchboard.db").exists(), "{owned}");
        }
    }
    // The user's own starts.
    let temp = tempfile::tempdir().unwrap();
    start(temp.path()).await.unwrap();
}

/// A socket served by `nobody` where the engine's should be; what it heard
/// is counted in bytes, one line per connection.
struct Impostor {
    child: Child,
    socket: PathBuf,
}

impl Impostor {
    fn serve(socket: &Path) -> Impostor {
        let script = r#"
import os, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(sys.argv[1]); os.chmod(sys.argv[1], 0o777); s.listen(8)
while True:
    c, _ = s.accept()
    c.settimeout(2)
    heard = 0
    try:
        while True:
            b = c.recv(65536)
            if not b: break
            heard += len(b)
    except OSError:
        pass
    print(heard, flush=True)
    c.close()
"#;
        let child = Command::new("setpriv")
            .args(["--reuid", &OTHER.to_string(), "--regid", &OTHER.to_string(), "--clear-groups"])
            .args(["/usr/bin/python3", "-c", script])
            .arg(socket)
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        Impostor { child, socket: socket.to_path_buf() }
    }

    /// The bytes each of `connections` connections brought, read as each
    /// one closes (it prints its count then), before the impostor is ended.
    fn heard(mut self, connections: usize) -> Vec<usize> {
        use std::io::BufRead;
        let mut lines = std::io::BufReader::new(self.child.stdout.take().unwrap()).lines();
        let heard: Vec<usize> = (0..connections).map(|_| lines.next().unwrap().unwrap().parse().unwrap()).collect();
        self.child.kill().unwrap();
        self.child.wait().unwrap();
        heard
    }
}

impl Drop for Impostor {
    /// A test that failed half way leaves no process of the other user behind.
    fn drop(&mut self) {
        if self.child.try_wait().ok().flatten().is_none() {
            self.child.kill().ok();
            self.child.wait().ok();
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_socket_another_user_serves_in_the_engines_place_hears_nothing() {
    as_root();
    let temp = tempfile::tempdir().unwrap();
    let data_dir = temp.path().join("data");
    std::fs::create_dir(&data_dir).unwrap();
    std::fs::set_permissions(temp.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    // They own run/ (the engine refuses to start on it; the clients must
    // not trust a socket in it either).
    let run = data_dir.join("run");
    std::fs::create_dir(&run).unwrap();
    give_away(&run);
    std::fs::set_permissions(&data_dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    let socket = socket_path(&data_dir, None);
    let impostor = Impostor::serve(&socket);
    wait_until("the impostor listens", || socket.exists()).await;

    // The typed client, as the window and the command line connect.
    let connected =
        switchboard_client::Client::connect(&impostor.socket, switchboard_api::wire::ClientKind::Window).await;
    let Err(refused) = connected else { panic!("connected to another user's socket") };
    assert!(matches!(refused, switchboard_client::ClientError::NotYours { uid: OTHER, .. }), "{refused:?}");

    // The command line, in words.
    let command = <switchboard_cli::Cli as clap::Parser>::try_parse_from(["switchboard", "agent", "list"])
        .unwrap()
        .command
        .unwrap();
    let socket_for_cli = socket.clone();
    let (code, err) = tokio::task::spawn_blocking(move || {
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let code = switchboard_cli::run(command, &socket_for_cli, &mut out, &mut err);
        (code, String::from_utf8(err).unwrap())
    })
    .await
    .unwrap();
    assert_ne!(code, std::process::ExitCode::SUCCESS);
    assert!(err.contains("served by another user"), "{err}");

    // An agent's hook: its event (and its session's secret) is spooled, not told.
    let spool = temp.path().join("spool.jsonl");
    let mut hook = Command::new(hook_binary())
        .env("SWITCHBOARD_SOCKET", &socket)
        .env("SWITCHBOARD_SESSION_ID", switchboard_core::SessionId::new().to_string())
        .env("SWITCHBOARD_SESSION_SECRET", "the session's secret")
        .env("SWITCHBOARD_SPOOL", &spool)
        .stdin(Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(&mut hook.stdin.take().unwrap(), br#"{"hook_event_name":"Stop"}"#).unwrap();
    assert!(hook.wait().unwrap().success());
    let spooled = std::fs::read_to_string(&spool).unwrap();
    assert!(spooled.contains("the session's secret"), "the event was kept for the engine: {spooled}");

    // Three connections: the typed client's, the command line's, the hook's.
    let heard = tokio::task::spawn_blocking(move || impostor.heard(3)).await.unwrap();
    assert_eq!(heard, [0, 0, 0], "the bytes the impostor heard on each connection");
}
