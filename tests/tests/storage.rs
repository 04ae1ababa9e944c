//! The data directory is the user's alone: the folder 0700 and every file the
//! app makes in it 0600, whatever the umask; an older data directory other
//! users could read is tightened at start, and the log says what was.
//!
//! One test in this file: it sets the process's umask and installs the
//! app's logger, both process-wide.

#[path = "suite/support/mod.rs"]
mod support;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use support::*;
use switchboard_core::FlowTarget;

/// The permission bits of `path` (not following a link).
fn mode(path: &Path) -> u32 {
    std::fs::symlink_metadata(path).unwrap_or_else(|e| panic!("{}: {e}", path.display())).permissions().mode() & 0o7777
}

fn set_mode(path: &Path, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_data_directory_is_the_users_alone_whatever_the_umask() {
    // The loosest umask: what the app makes is only as private as it asks.
    nix::sys::stat::umask(nix::sys::stat::Mode::empty());
    let temp = tempfile::tempdir().unwrap();
    let data = temp.path().join("data");

    // An older Switchboard's data directory: the folder 0755, its files 0644.
    let old = TestEngine::start_in(&data, |_| {}).await;
    old.profile("kept", "sh", &[]).await;
    old.shutdown().await;
    drop(old);
    for dir in ["logs", "exports"] {
        std::fs::create_dir_all(data.join(dir)).unwrap();
        set_mode(&data.join(dir), 0o755);
    }
    let old_files: Vec<PathBuf> =
        ["logs/switchboard.log.1", "exports/agent-kept-events-1.jsonl", "hook-spool.rejected.jsonl"]
            .iter()
            .map(|name| data.join(name))
            .collect();
    for file in &old_files {
        std::fs::write(file, "{}\n").unwrap();
    }
    let db = data.join("switchboard.db");
    let lock = data.join("switchboard.lock");
    for file in old_files.iter().chain([&db, &lock]) {
        set_mode(file, 0o644);
    }
    set_mode(&data, 0o755);

    // The app's log starts first (a new file, under the loose umask), then the engine.
    let log = switchboard_core::logging::init(Some(&data), std::io::sink(), false);
    let t = TestEngine::start_in(&data, |_| {}).await;

    // Before: all of it stayed readable by every user of the machine
    // (another one read a profile's API key from the WAL).
    assert_eq!(mode(&data), 0o700, "the data folder");
    for dir in ["logs", "exports"] {
        assert_eq!(mode(&data.join(dir)), 0o700, "{dir}");
    }
    for file in old_files.iter().chain([&db, &lock]) {
        assert_eq!(mode(file), 0o600, "{}", file.display());
    }
    let new_log = data.join("logs/switchboard.log");
    assert_eq!(mode(&new_log), 0o600, "a new log");

    // Made after the start: the WAL and its index, an export.
    let profile = t.profile("new", "sh", &[]).await;
    for file in ["switchboard.db-wal", "switchboard.db-shm"] {
        assert_eq!(mode(&data.join(file)), 0o600, "{file}");
    }
    let export = t.engine.export_flow_events(FlowTarget::Agent { profile_id: profile.id }).await.unwrap();
    assert_eq!(mode(Path::new(&export)), 0o600, "{export}");

    // The log says what was made private.
    drop(log);
    let logged = std::fs::read_to_string(&new_log).unwrap();
    let tightened: Vec<&str> = logged.lines().filter(|line| line.contains("made private")).collect();
    for file in old_files.iter().chain([&db, &lock, &data]) {
        assert!(
            tightened.iter().any(|line| line.contains(&format!("{}\"", file.display()))
                || line.contains(&format!("{} ", file.display()))),
            "{} in {tightened:#?}",
            file.display()
        );
    }
    t.shutdown().await;
}
