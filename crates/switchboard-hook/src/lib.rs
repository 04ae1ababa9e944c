//! What `switchboard-hook` does, as a library so it can be tested: build the
//! envelope from the event and the environment, hand it to the engine's
//! socket under a short deadline, and append it to the spool file when no
//! app takes it, so no event is lost.

pub mod keeper;
pub mod status_line;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::Value;
use switchboard_api::PermissionDecision;
use switchboard_api::line::{HookReply, HookRequest, HookResponse};
use switchboard_protocol::hook::{FORWARDED_ENV, HookEnvelope, MAX_EVENT_BYTES, SECRET_ENV};

/// How long the socket may take, in all: the agent waits for its hook.
pub const DEADLINE: Duration = Duration::from_millis(300);
/// A permission request waits for the user in the app (the app gives up
/// after its own, shorter, time and the agent's prompt decides).
pub const PERMISSION_DEADLINE: Duration = Duration::from_secs(70);

/// Names the session of the app the agent runs in; set only by the app.
pub const SESSION_ENV: &str = "SWITCHBOARD_SESSION_ID";
/// Where the engine puts the socket and the spool for an agent.
pub const SOCKET_ENV: &str = "SWITCHBOARD_SOCKET";
pub const SPOOL_ENV: &str = "SWITCHBOARD_SPOOL";

/// Reads at most [`MAX_EVENT_BYTES`] of the event; more is cut (and then
/// fails to parse, which the server counts).
pub fn read_event(input: impl Read) -> Vec<u8> {
    let mut bytes = Vec::new();
    input.take(MAX_EVENT_BYTES as u64).read_to_end(&mut bytes).ok();
    bytes
}

/// The event's JSON from stdin, or — as Codex's `notify` program — from the
/// last argument.
pub fn event_payload(stdin: &[u8], args: &[String]) -> Value {
    let text = String::from_utf8_lossy(stdin);
    let from_args = args.last().filter(|arg| arg.trim_start().starts_with('{'));
    let text = match (text.trim().is_empty(), from_args) {
        (true, Some(arg)) => arg.as_str(),
        _ => text.as_ref(),
    };
    // Not JSON: still forwarded (as text), so the app can say so.
    serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.chars().take(4096).collect()))
}

pub fn envelope(payload: Value, env: impl Fn(&str) -> Option<String>) -> HookEnvelope {
    let forwarded: BTreeMap<String, String> =
        FORWARDED_ENV.iter().filter_map(|name| env(name).map(|value| ((*name).to_owned(), value))).collect();
    let at = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64);
    HookEnvelope { session_id: env(SESSION_ENV), env: forwarded, at, payload, secret: env(SECRET_ENV) }
}

/// One request line for the engine socket.
pub fn request_line(envelope: &HookEnvelope) -> Vec<u8> {
    let mut line = serde_json::to_vec(&HookRequest::Hook { envelope }).expect("an envelope always serializes");
    line.push(b'\n');
    line
}

/// Sends the line and waits (at most `wait`) for the engine's answer: its
/// reply once it took the event, none if it did not (or answered with an
/// error, or with something that is not an answer).
pub fn send(socket: &Path, line: &[u8], wait: Duration) -> Option<HookReply> {
    let attempt = || -> std::io::Result<Option<HookReply>> {
        let stream = UnixStream::connect(socket)?;
        if !served_by_us(&stream) {
            // Another user's process in the engine's place: the event is
            // not said to it (it is spooled for the engine instead).
            return Ok(None);
        }
        stream.set_write_timeout(Some(DEADLINE))?;
        stream.set_read_timeout(Some(wait))?;
        (&stream).write_all(line)?;
        let mut answer = String::new();
        BufReader::new(&stream).read_line(&mut answer)?;
        Ok(match serde_json::from_str::<HookResponse>(&answer) {
            Ok(HookResponse::Ok(reply)) => Some(reply),
            Ok(HookResponse::Error(_)) | Err(_) => None,
        })
    };
    attempt().ok().flatten()
}

/// Whether the process listening at the other end of `stream` runs as this
/// user (`SO_PEERCRED`), so a socket another user swapped in never hears an
/// event, its session's secret among it. False when it cannot be told.
pub fn served_by_us(stream: &UnixStream) -> bool {
    use std::os::fd::AsRawFd;
    let mut cred = libc::ucred { pid: 0, uid: u32::MAX, gid: u32::MAX };
    let mut len = std::mem::size_of::<libc::ucred>() as libc::socklen_t;
    // SAFETY: `cred` and `len` are live locals of the sizes passed, and the
    // descriptor is the stream's own, open while it is borrowed.
    let read = unsafe {
        libc::getsockopt(stream.as_raw_fd(), libc::SOL_SOCKET, libc::SO_PEERCRED, (&raw mut cred).cast(), &raw mut len)
    };
    // SAFETY: getuid has no preconditions and cannot fail.
    read == 0 && cred.uid == unsafe { libc::getuid() }
}

/// What the hook prints for the agent: a permission decision the user made
/// in the app, in Claude Code's hook output form. Nothing otherwise (the
/// agent goes on, or asks in its own prompt).
pub fn agent_output(answer: &HookReply) -> Option<String> {
    let HookReply::Permission(Some(PermissionDecision { allow, message })) = answer else { return None };
    let mut verdict = serde_json::json!({"behavior": if *allow { "allow" } else { "deny" }});
    if let Some(message) = message {
        verdict["message"] = Value::String(message.clone());
    }
    Some(
        serde_json::json!({"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": verdict}})
            .to_string(),
    )
}

/// The largest spool a hook appends to. Hooks spool only while no app
/// answers; past this the spool was not written by them (or the app has been
/// gone for a very long time), and the app would not replay it.
pub const SPOOL_CAP_BYTES: u64 = 64 * 1024 * 1024;

/// Appends the line to the spool, under an exclusive lock so lines from
/// hooks running at once never interleave. Only a regular file is appended
/// to: a link at the spool's path is not followed and a FIFO never blocks
/// (an agent knows the path). The spool is its user's only.
pub fn spool(path: &Path, line: &[u8]) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
    if let Some(dir) = path.parent() {
        std::fs::DirBuilder::new().recursive(true).mode(0o700).create(dir)?;
    }
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_NOCTTY | libc::O_CLOEXEC)
        .open(path)
        .map_err(|error| match error.raw_os_error() {
            Some(libc::ELOOP) => refused("the spool's path is a link"),
            Some(libc::ENXIO) => refused("the spool's path is not a file"),
            _ => error,
        })?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(refused("the spool's path is not a file"));
    }
    if meta.len() > SPOOL_CAP_BYTES {
        return Err(refused("the spool is full"));
    }
    // SAFETY: flock on a descriptor we own; it is released when the file closes.
    if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    file.write_all(line)?;
    file.flush()
}

fn refused(why: &str) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidInput, why)
}

/// Why an event was lost: said on stderr (one line), never to the agent.
#[derive(Debug)]
pub enum HookError {
    /// No app took it and the environment names no spool.
    NowhereToGo,
    /// No app took it and appending it to the spool failed (no space left,
    /// no permission, ...).
    Spool { path: PathBuf, error: std::io::Error },
}

impl std::fmt::Display for HookError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Paths are quoted with their escapes (`{:?}`): the message stays one line.
        match self {
            HookError::NowhereToGo => f.write_str("event lost: no Switchboard app took it and no spool is set"),
            HookError::Spool { path, error } => {
                write!(
                    f,
                    "event lost: no Switchboard app took it and it could not be kept in the spool {path:?}: {error}"
                )
            }
        }
    }
}

impl std::error::Error for HookError {}

/// The whole hook: forward, else spool. Returns what to print for the agent,
/// if anything; an error only when the event was lost.
pub fn run(
    stdin: impl Read,
    args: &[String],
    env: impl Fn(&str) -> Option<String>,
) -> Result<Option<String>, HookError> {
    let bytes = read_event(stdin);
    if env(SESSION_ENV).is_none() {
        // An agent the app did not start (Codex's hooks file and `notify`
        // serve every Codex run): nothing to tell, nothing to complain of.
        return Ok(None);
    }
    let envelope = envelope(event_payload(&bytes, args), &env);
    let asks = envelope.payload.get("hook_event_name").and_then(Value::as_str) == Some("PermissionRequest");
    let line = request_line(&envelope);
    if let Some(socket) = env(SOCKET_ENV)
        && let Some(answer) = send(Path::new(&socket), &line, if asks { PERMISSION_DEADLINE } else { DEADLINE })
    {
        return Ok(agent_output(&answer));
    }
    match env(SPOOL_ENV) {
        Some(path) => {
            let path = PathBuf::from(path);
            spool(&path, &line).map(|()| None).map_err(|error| HookError::Spool { path, error })
        }
        None => Err(HookError::NowhereToGo),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn payload_from_stdin_or_the_notify_argument() {
        let stdin = br#"{"hook_event_name":"Stop"}"#;
        assert_eq!(event_payload(stdin, &[]), serde_json::json!({"hook_event_name": "Stop"}));
        let notify = vec!["switchboard-hook".to_owned(), r#"{"type":"agent-turn-complete"}"#.to_owned()];
        assert_eq!(event_payload(b"", &notify), serde_json::json!({"type": "agent-turn-complete"}));
        assert_eq!(event_payload(b"not json", &[]), Value::String("not json".into()));
    }

    #[test]
    fn the_envelope_carries_the_session_and_agent_identity() {
        let env = |name: &str| match name {
            "SWITCHBOARD_SESSION_ID" => Some("s-1".to_owned()),
            "CLAUDE_CODE_SESSION_ID" => Some("c-1".to_owned()),
            "HOME" => Some("/root".to_owned()),
            _ => None,
        };
        let envelope = envelope(serde_json::json!({}), env);
        assert_eq!(envelope.session_id.as_deref(), Some("s-1"));
        assert_eq!(envelope.env.keys().collect::<Vec<_>>(), ["CLAUDE_CODE_SESSION_ID", "SWITCHBOARD_SESSION_ID"]);
    }

    #[test]
    fn a_decision_from_the_app_becomes_claude_codes_hook_output() {
        let allow = HookReply::Permission(Some(PermissionDecision { allow: true, message: None }));
        let deny =
            HookReply::Permission(Some(PermissionDecision { allow: false, message: Some("not in prod".into()) }));
        let none = HookReply::Permission(None);
        assert_eq!(
            agent_output(&allow).unwrap(),
            r#"{"hookSpecificOutput":{"decision":{"behavior":"allow"},"hookEventName":"PermissionRequest"}}"#
        );
        let denied: Value = serde_json::from_str(&agent_output(&deny).unwrap()).unwrap();
        assert_eq!(
            denied["hookSpecificOutput"]["decision"],
            serde_json::json!({"behavior": "deny", "message": "not in prod"})
        );
        assert_eq!(agent_output(&none), None, "no answer in time: the agent's prompt decides");
        assert_eq!(agent_output(&HookReply::Other), None);
    }

    #[test]
    fn a_link_or_fifo_at_the_spools_path_is_refused_without_blocking_or_writing_through_it() {
        let dir = tempfile::tempdir().unwrap();
        let outside = dir.path().join("bashrc");
        std::fs::write(&outside, "# the user's shell\n").unwrap();
        let linked = dir.path().join("linked.jsonl");
        std::os::unix::fs::symlink(&outside, &linked).unwrap();
        let error = spool(&linked, b"{}\n").unwrap_err();
        assert_eq!(error.to_string(), "the spool's path is a link");
        assert_eq!(std::fs::read_to_string(&outside).unwrap(), "# the user's shell\n");
        // Before: the open waited for a reader of the FIFO, for good.
        let fifo = dir.path().join("fifo.jsonl");
        let c_path = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a valid C string; mkfifo only reads it.
        assert_eq!(unsafe { libc::mkfifo(c_path.as_ptr(), 0o600) }, 0);
        let (sent, answer) = std::sync::mpsc::channel();
        let path = fifo.clone();
        std::thread::spawn(move || sent.send(spool(&path, b"{}\n").map_err(|e| e.to_string())).ok());
        let answer = answer.recv_timeout(std::time::Duration::from_secs(30)).expect("the hook never waits on a FIFO");
        assert_eq!(answer.unwrap_err(), "the spool's path is not a file");
        // A spool is its user's only.
        let fresh = dir.path().join("fresh/spool.jsonl");
        spool(&fresh, b"{}\n").unwrap();
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(std::fs::metadata(&fresh).unwrap().permissions().mode() & 0o777, 0o600);
    }

    #[test]
    fn with_no_app_the_event_is_spooled_and_reading_is_capped() {
        let dir = tempfile::tempdir().unwrap();
        let spool_file = dir.path().join("spool/hooks.jsonl");
        let env = |name: &str| match name {
            SESSION_ENV => Some("s-1".to_owned()),
            SOCKET_ENV => Some(dir.path().join("none.sock").display().to_string()),
            SPOOL_ENV => Some(spool_file.display().to_string()),
            _ => None,
        };
        run(&br#"{"hook_event_name":"SessionStart"}"#[..], &[], env).unwrap();
        run(&br#"{"hook_event_name":"Stop"}"#[..], &[], env).unwrap();
        let text = std::fs::read_to_string(&spool_file).unwrap();
        let lines: Vec<Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[1]["envelope"]["payload"]["hook_event_name"], "Stop");

        let huge = vec![b'x'; MAX_EVENT_BYTES + 100];
        assert_eq!(read_event(&huge[..]).len(), MAX_EVENT_BYTES);
        let session_only = |name: &str| (name == SESSION_ENV).then(|| "s-1".to_owned());
        assert!(
            matches!(run(&b"{}"[..], &[], session_only), Err(HookError::NowhereToGo)),
            "nowhere to put it: said, not hidden"
        );
    }

    #[test]
    fn an_agent_the_app_did_not_start_is_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let spool_file = dir.path().join("hooks.jsonl");
        // Codex's hooks serve every Codex run, in the app or not.
        let env = |name: &str| match name {
            SPOOL_ENV => Some(spool_file.display().to_string()),
            _ => None,
        };
        assert!(matches!(run(&br#"{"hook_event_name":"Stop"}"#[..], &[], env), Ok(None)));
        assert!(!spool_file.exists(), "nothing kept for no session");
    }
}
