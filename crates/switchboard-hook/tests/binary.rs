//! The binary as agents run it: it always exits 0, and with no app running
//! it spools the event (from stdin, or from Codex's `notify` argument).

use std::io::Write;
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

    // In a session but with nowhere to send or keep the event: said, exit 0.
    let output = Command::new(env!("CARGO_BIN_EXE_switchboard-hook"))
        .env("SWITCHBOARD_SESSION_ID", "0b6f8a3e-5d1c-4f3a-9a63-0a1b2c3d4e5f")
        .env_remove("SWITCHBOARD_SOCKET")
        .env_remove("SWITCHBOARD_SPOOL")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("event dropped"));

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
