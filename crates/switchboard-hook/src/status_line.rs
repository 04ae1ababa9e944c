//! `switchboard-hook --status-line`: Claude Code's status-line command in a
//! workspace the app connected. Claude Code gives it its status-line input,
//! which carries the account's usage windows (`rate_limits`) for a Claude.ai
//! subscription; it hands that input to the app (when it tells usage), then
//! runs the user's own status line, from their project's or their own Claude
//! Code settings, with the same input, and prints what that prints. The user
//! sees their status line as before; with none, nothing is shown.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;
use switchboard_protocol::limit::{STATUS_LINE_EVENT, STATUS_LINE_FLAG};

use crate::{DEADLINE, SESSION_ENV, SOCKET_ENV, envelope, request_line, send};

/// How long the user's status line may take; Claude Code gives up on a
/// slow one itself, and the command is then stopped.
pub const OWN_LINE_DEADLINE: Duration = Duration::from_secs(10);

/// The most of the user's status line's output kept.
const MAX_OUTPUT_BYTES: u64 = 64 * 1024;

/// The hook binary's file name.
const HOOK_BINARY: &str = "switchboard-hook";

/// The largest settings file read.
const MAX_SETTINGS_BYTES: u64 = 1024 * 1024;

/// Does the whole of it: tells the app, runs the user's status line;
/// returns what to print.
pub fn run(input: &[u8], env: impl Fn(&str) -> Option<String>) -> Vec<u8> {
    let payload: Value = serde_json::from_slice(input).unwrap_or(Value::Null);
    tell_usage(&payload, &env);
    match users_status_line(&payload, &env) {
        Some(command) => run_own_line(&command, input, working_folder(&payload).as_deref(), OWN_LINE_DEADLINE),
        None => Vec::new(),
    }
}

/// Hands the input to the app when it tells the account's usage; never
/// spooled (usage told late is usage out of date) and never waited on long.
fn tell_usage(payload: &Value, env: &impl Fn(&str) -> Option<String>) {
    let tells = payload.get("rate_limits").is_some_and(Value::is_object);
    let (true, Some(_), Some(socket)) = (tells, env(SESSION_ENV), env(SOCKET_ENV)) else { return };
    let mut payload = payload.clone();
    payload["hook_event_name"] = Value::String(STATUS_LINE_EVENT.to_owned());
    let line = request_line(&envelope(payload, env));
    send(Path::new(&socket), &line, DEADLINE);
}

/// The folder the agent works in, as its input says.
fn working_folder(payload: &Value) -> Option<PathBuf> {
    payload.get("cwd").and_then(Value::as_str).map(PathBuf::from)
}

/// The user's own status-line command: their project's shared settings
/// first, then their own (Claude Code's folder), as Claude Code ranks them;
/// the app's own line never (it would run itself).
pub fn users_status_line(payload: &Value, env: &impl Fn(&str) -> Option<String>) -> Option<String> {
    let project = payload
        .pointer("/workspace/project_dir")
        .and_then(Value::as_str)
        .map(PathBuf::from)
        .or_else(|| working_folder(payload));
    let config = env("CLAUDE_CONFIG_DIR")
        .filter(|dir| !dir.is_empty())
        .map(PathBuf::from)
        .or_else(|| env("HOME").map(|home| Path::new(&home).join(".claude")));
    let files = [project.map(|p| p.join(".claude").join("settings.json")), config.map(|c| c.join("settings.json"))];
    files.into_iter().flatten().find_map(|file| status_line_in(&file))
}

/// The status-line command a settings file names, unless it is the app's.
/// Only a regular file is read (opened without blocking: a FIFO an agent
/// planted in its project's `.claude` never holds the status line), and at
/// most [`MAX_SETTINGS_BYTES`] of it.
fn status_line_in(file: &Path) -> Option<String> {
    use std::os::unix::fs::OpenOptionsExt;
    let opened = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY | libc::O_CLOEXEC)
        .open(file)
        .ok()?;
    if !opened.metadata().ok()?.is_file() {
        return None;
    }
    let mut text = String::new();
    opened.take(MAX_SETTINGS_BYTES).read_to_string(&mut text).ok()?;
    let settings: Value = serde_json::from_str(&text).ok()?;
    let command = settings.pointer("/statusLine/command").and_then(Value::as_str)?.trim();
    let ours = command.ends_with(STATUS_LINE_FLAG) && command.contains(HOOK_BINARY);
    (!command.is_empty() && !ours).then(|| command.to_owned())
}

/// Runs the user's status line with the same input and returns its output
/// (cut at [`MAX_OUTPUT_BYTES`]); stopped past `deadline`.
fn run_own_line(command: &str, input: &[u8], folder: Option<&Path>, deadline: Duration) -> Vec<u8> {
    let mut shell = Command::new("sh");
    shell.arg("-c").arg(command).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null());
    if let Some(folder) = folder.filter(|f| f.is_dir()) {
        shell.current_dir(folder);
    }
    let Ok(mut child) = shell.spawn() else { return Vec::new() };
    let mut stdin = child.stdin.take().expect("piped");
    let input = input.to_vec();
    // Written aside: a line that does not read its input never blocks this.
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let mut stdout = child.stdout.take().expect("piped");
    let reader = std::thread::spawn(move || {
        let mut output = Vec::new();
        let _ = (&mut stdout).take(MAX_OUTPUT_BYTES).read_to_end(&mut output);
        output
    });
    let started = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if started.elapsed() < deadline => std::thread::sleep(Duration::from_millis(5)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return Vec::new();
            }
        }
    }
    let _ = writer.join();
    reader.join().unwrap_or_default()
}

/// Whether the arguments make the hook the status-line command.
pub fn asked(args: &[String]) -> bool {
    args.get(1).map(String::as_str) == Some(STATUS_LINE_FLAG)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn nix_fifo(path: &Path) {
        let path = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a valid NUL-terminated path; mkfifo only makes the node.
        assert_eq!(unsafe { libc::mkfifo(path.as_ptr(), 0o600) }, 0);
    }

    fn write(path: &Path, settings: Value) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, settings.to_string()).unwrap();
    }

    #[test]
    fn the_users_own_line_is_found_in_their_project_then_their_own_settings() {
        let dir = tempfile::tempdir().unwrap();
        let (project, home) = (dir.path().join("project"), dir.path().join("home"));
        let payload = json!({"cwd": project.join("src"), "workspace": {"project_dir": project}});
        let env = |name: &str| (name == "HOME").then(|| home.display().to_string());
        assert_eq!(users_status_line(&payload, &env), None, "none anywhere");
        write(&home.join(".claude/settings.json"), json!({"statusLine": {"type": "command", "command": "mine"}}));
        assert_eq!(users_status_line(&payload, &env).as_deref(), Some("mine"));
        write(&project.join(".claude/settings.json"), json!({"statusLine": {"command": "the team's"}}));
        assert_eq!(users_status_line(&payload, &env).as_deref(), Some("the team's"), "the project's first");
        let config = dir.path().join("config");
        write(&config.join("settings.json"), json!({"statusLine": {"command": "/x/switchboard-hook --status-line"}}));
        std::fs::remove_file(project.join(".claude/settings.json")).unwrap();
        let moved = |name: &str| (name == "CLAUDE_CONFIG_DIR").then(|| config.display().to_string());
        assert_eq!(users_status_line(&payload, &moved), None, "the app's own line is never run by itself");
        write(&project.join(".claude/settings.json"), json!("not settings"));
        assert_eq!(users_status_line(&payload, &env).as_deref(), Some("mine"), "a file without one is passed");
        // A FIFO planted in its place is passed at once, never waited on.
        std::fs::remove_file(project.join(".claude/settings.json")).unwrap();
        nix_fifo(&project.join(".claude/settings.json"));
        assert_eq!(users_status_line(&payload, &env).as_deref(), Some("mine"), "a FIFO is not read");
    }

    #[test]
    fn the_users_line_gets_the_input_and_its_output_is_printed() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().to_path_buf();
        write(
            &home.join(".claude/settings.json"),
            json!({"statusLine": {"command": "printf 'model: '; sed -n 's/.*\"display_name\":\"\\([^\"]*\\)\".*/\\1/p'"}}),
        );
        let input = json!({"cwd": home, "model": {"display_name": "Opus"}}).to_string();
        let env = |name: &str| (name == "HOME").then(|| home.display().to_string());
        assert_eq!(String::from_utf8(run(input.as_bytes(), env)).unwrap(), "model: Opus");
        // A line that never ends is stopped; what it printed is not shown.
        let stuck = run_own_line("echo half; exec sleep 60", b"{}", None, Duration::from_millis(200));
        assert!(stuck.is_empty(), "{stuck:?}");
    }
}
