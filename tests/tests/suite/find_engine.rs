//! The engine is found from any shell: the real daemon binary on a data
//! directory, and its command line run from environments that would place
//! the socket elsewhere (another `XDG_RUNTIME_DIR`, as under ssh, su or
//! cron; none at all), through a link to the data directory, and after the
//! engine's socket was removed under it (the runtime folder is deleted at
//! the user's last logout).

use crate::support;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use serde_json::Value;
use support::*;

/// A daemon started for the test, stopped (and, failing that, killed) with it.
struct Daemon {
    child: Child,
    data_dir: PathBuf,
}

impl Drop for Daemon {
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(Some(_))) {
            return;
        }
        let stopped = switchboard(&self.data_dir, None, &["daemon", "--stop"]);
        if stopped.0 != 0 {
            eprintln!("the daemon did not stop: {}{}", stopped.1, stopped.2);
            if let Err(error) = self.child.kill() {
                eprintln!("could not kill the daemon: {error}");
            }
        }
        if let Err(error) = self.child.wait() {
            eprintln!("could not reap the daemon: {error}");
        }
    }
}

/// The app's command line on `data_dir`, with `runtime_dir` as its
/// `XDG_RUNTIME_DIR` (none: unset); exit code, stdout, stderr.
fn switchboard(data_dir: &Path, runtime_dir: Option<&Path>, args: &[&str]) -> (i32, String, String) {
    let mut command = Command::new(app_binary());
    command.arg("--data-dir").arg(data_dir).args(args).env_remove("SWITCHBOARD_DATA_DIR").stdin(Stdio::null());
    match runtime_dir {
        Some(dir) => command.env("XDG_RUNTIME_DIR", dir),
        None => command.env_remove("XDG_RUNTIME_DIR"),
    };
    let output = command.output().unwrap();
    let text = |bytes: &[u8]| String::from_utf8_lossy(bytes).into_owned();
    (output.status.code().unwrap_or(-1), text(&output.stdout), text(&output.stderr))
}

fn status(data_dir: &Path, runtime_dir: Option<&Path>) -> Value {
    let (_, out, err) = switchboard(data_dir, runtime_dir, &["daemon", "--status", "--json"]);
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("no status ({e}): {out}{err}"))
}

fn private_dir(path: &Path) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    std::fs::create_dir_all(path).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o700)).unwrap();
    path.to_path_buf()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_engine_is_found_from_any_environment_through_a_link_and_after_its_socket_is_removed() {
    let temp = tempfile::tempdir().unwrap();
    let data_dir = temp.path().join("data");
    let login = private_dir(&temp.path().join("run-login"));
    let other = private_dir(&temp.path().join("run-ssh"));

    // The engine, started from the login session's environment.
    let child = Command::new(app_binary())
        .arg("--data-dir")
        .arg(&data_dir)
        .args(["--no-demo", "daemon"])
        .env("XDG_RUNTIME_DIR", &login)
        .env_remove("SWITCHBOARD_DATA_DIR")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id();
    let daemon = Daemon { child, data_dir: data_dir.clone() };
    wait_until("the engine answers where it was started", || status(&data_dir, Some(&login))["answering"] == true)
        .await;

    // Another runtime folder, and none at all. Before: "no engine runs" (exit 3).
    for (shell, runtime) in [("another runtime folder", Some(other.as_path())), ("no runtime folder", None)] {
        let found = status(&data_dir, runtime);
        assert_eq!((found["running"].as_bool(), found["pid"].as_u64()), (Some(true), Some(u64::from(pid))), "{shell}");
        let (code, out, err) = switchboard(&data_dir, runtime, &["agent", "list", "--json"]);
        assert_eq!(code, 0, "{shell}: {out}{err}");
        // `daemon` there says the same as `--status`, and starts nothing.
        let (code, out, _) = switchboard(&data_dir, runtime, &["daemon"]);
        assert_eq!(code, 1, "{shell}: {out}");
        let said: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(said["state"], "failed", "{shell}: {out}");
        let message = said["message"].as_str().unwrap();
        assert!(message.starts_with("The engine ") && message.contains("runs on"), "{shell}: {out}");
    }

    // The same folder through a link is the same engine.
    let link = temp.path().join("linked-data");
    std::os::unix::fs::symlink(&data_dir, &link).unwrap();
    let found = status(&link, Some(&other));
    assert_eq!(found["pid"].as_u64(), Some(u64::from(pid)), "{found}");
    let (code, out, _) = switchboard(&link, None, &["daemon"]);
    assert_eq!(code, 1, "{out}");

    // The runtime folder is deleted at the last logout: the engine makes its
    // socket again, and says so in its log. Before: nothing reached it again.
    std::fs::remove_dir_all(login.join("switchboard")).unwrap();
    wait_until("the engine's socket is made again", || status(&data_dir, Some(&login))["answering"] == true).await;
    let (code, out, err) = switchboard(&data_dir, Some(&login), &["agent", "list", "--json"]);
    assert_eq!(code, 0, "{out}{err}");
    let log = std::fs::read_to_string(data_dir.join("logs").join(switchboard_core::logging::LOG_FILE)).unwrap();
    assert!(log.contains("the engine's socket was removed; making it again"), "{log}");

    // Stopped from another shell too.
    let (code, out, err) = switchboard(&data_dir, Some(&other), &["daemon", "--stop"]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(status(&data_dir, None)["running"], false);
    drop(daemon);
}
