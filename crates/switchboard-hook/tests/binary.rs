//! The binary as agents run it: with no app running it spools the event (from
//! stdin, or from Codex's `notify` argument) and exits 0; an event it can
//! neither deliver nor spool is said lost, on one line of stderr, with a
//! non-zero exit.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

#[test]
fn exits_zero_and_spools_when_no_app_listens() {
    let dir = tempfile::tempdir().unwrap();
    let spool = dir.path().join("hook-spool.jsonl");
    let run = |args: &[&str], stdin: &[u8]| {
        let mut child = Command::new(env!("CARGO_BIN_EXE_switchboard-hook"))
            .args(args)
            .env("SWITCHBOARD_SESSION_ID", "0b6f8a3e-5d1c-4f3a-9a63-0a1b2c3d4e5f")
            .env("SWITCHBOARD_SOCKET", dir.path().join("no-app.sock"))
            .env("SWITCHBOARD_SPOOL", &spool)
            .stdin(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(stdin).unwrap();
        child.wait_with_output().unwrap()
    };
    assert!(run(&[], br#"{"hook_event_name":"Stop","last_assistant_message":"hi"}"#).status.success());
    assert!(run(&[r#"{"type":"agent-turn-complete","last-assistant-message":"done"}"#], b"").status.success());
    // Garbage is forwarded as text, still exit 0.
    assert!(run(&[], b"\xff not json").status.success());

    let lines: Vec<serde_json::Value> =
        std::fs::read_to_string(&spool).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[0]["envelope"]["payload"]["hook_event_name"], "Stop");
    assert_eq!(lines[1]["envelope"]["payload"]["type"], "agent-turn-complete");
    assert!(lines[2]["envelope"]["payload"].is_string());
    assert_eq!(lines[0]["envelope"]["session_id"], "0b6f8a3e-5d1c-4f3a-9a63-0a1b2c3d4e5f");

    // In a session but with nowhere to send or keep the event: lost, and said so.
    let output = Command::new(env!("CARGO_BIN_EXE_switchboard-hook"))
        .env("SWITCHBOARD_SESSION_ID", "0b6f8a3e-5d1c-4f3a-9a63-0a1b2c3d4e5f")
        .env_remove("SWITCHBOARD_SOCKET")
        .env_remove("SWITCHBOARD_SPOOL")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        one_line(&output.stderr),
        "switchboard-hook: event lost: no Switchboard app took it and no spool is set"
    );

    // An agent the app did not start (Codex's hooks serve every Codex run):
    // silent, exit 0.
    let output = Command::new(env!("CARGO_BIN_EXE_switchboard-hook"))
        .env_remove("SWITCHBOARD_SESSION_ID")
        .env("SWITCHBOARD_SPOOL", &spool)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(output.status.success());
    assert_eq!(String::from_utf8_lossy(&output.stderr), "");
    assert_eq!(std::fs::read_to_string(&spool).unwrap().lines().count(), 3, "nothing spooled");
}

/// The stderr of a run, which must be exactly one line.
fn one_line(stderr: &[u8]) -> String {
    let text = String::from_utf8_lossy(stderr).into_owned();
    assert!(text.ends_with('\n') && text.matches('\n').count() == 1, "one line: {text:?}");
    text.trim_end().to_owned()
}

/// Runs the hook with no app listening and `spool` as its spool, with a
/// Stop event on stdin.
fn run_spooling_to(dir: &Path, spool: &Path) -> std::process::Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_switchboard-hook"))
        .env("SWITCHBOARD_SESSION_ID", "0b6f8a3e-5d1c-4f3a-9a63-0a1b2c3d4e5f")
        .env("SWITCHBOARD_SOCKET", dir.join("no-app.sock"))
        .env("SWITCHBOARD_SPOOL", spool)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(br#"{"hook_event_name":"Stop"}"#).unwrap();
    child.wait_with_output().unwrap()
}

#[test]
fn an_event_it_can_neither_deliver_nor_spool_is_said_lost_with_a_failing_exit() {
    let dir = tempfile::tempdir().unwrap();
    // Before: both exited 0, the first with a line that did not say the
    // event was lost, the second (a full disk) the same; the agent's user
    // never learnt of it.
    // A disk with no space left: every write to /dev/full fails so.
    let full = run_spooling_to(dir.path(), Path::new("/dev/full"));
    assert_eq!(full.status.code(), Some(1), "{full:?}");
    let said = one_line(&full.stderr);
    assert!(said.starts_with("switchboard-hook: event lost: no Switchboard app took it and it could not be kept in the spool \"/dev/full\": "), "{said}");
    assert!(full.stdout.is_empty(), "nothing for the agent");

    // A spool whose folder cannot be made (a file stands where it should be).
    std::fs::write(dir.path().join("not-a-folder"), "").unwrap();
    let spool = dir.path().join("not-a-folder/hook-spool.jsonl");
    let blocked = run_spooling_to(dir.path(), &spool);
    assert_eq!(blocked.status.code(), Some(1), "{blocked:?}");
    let said = one_line(&blocked.stderr);
    assert!(said.contains("event lost") && said.contains("not-a-folder/hook-spool.jsonl"), "{said}");

    // Spooled: exit 0 and nothing said.
    let kept = run_spooling_to(dir.path(), &dir.path().join("hook-spool.jsonl"));
    assert!(kept.status.success() && kept.stderr.is_empty(), "{kept:?}");
}

#[test]
fn the_spool_it_makes_is_the_users_alone_whatever_the_umask() {
    use std::os::unix::fs::PermissionsExt;
    use std::os::unix::process::CommandExt;
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let spool = data.join("hook-spool.jsonl");
    let mut hook = Command::new(env!("CARGO_BIN_EXE_switchboard-hook"));
    hook.env("SWITCHBOARD_SESSION_ID", "0b6f8a3e-5d1c-4f3a-9a63-0a1b2c3d4e5f")
        .env("SWITCHBOARD_SOCKET", dir.path().join("no-app.sock"))
        .env("SWITCHBOARD_SPOOL", &spool)
        .arg(r#"{"type":"agent-turn-complete"}"#)
        .stdin(Stdio::null());
    // SAFETY: umask is async-signal-safe and touches no memory.
    unsafe {
        // The loosest umask: the hook's files are only as private as it asks.
        hook.pre_exec(|| {
            libc::umask(0);
            Ok(())
        });
    }
    let output = hook.output().unwrap();
    assert!(output.status.success(), "{output:?}");
    let mode = |path: &Path| std::fs::metadata(path).unwrap().permissions().mode() & 0o7777;
    // Before: 0666 and 0777, for any user of the machine to read.
    assert_eq!(mode(&spool), 0o600, "the spool");
    assert_eq!(mode(&data), 0o700, "the data folder the hook made");
}
