//! What a session's processes carry in their environment, read as a hook
//! running inside the session would have it.

use std::collections::HashMap;
use std::sync::{LazyLock, Mutex};

/// Secrets read before, by session: a test that fires hooks for a session
/// after its app stopped reads the secret while the session runs.
static SEEN: LazyLock<Mutex<HashMap<String, String>>> = LazyLock::new(Default::default);

/// The secret of the session `session`, read from the environment of one of
/// its processes (as the hook binary inside it reads its own), or as it was
/// read while the session ran. A session just started may not have its
/// environment in place yet (a spawned process's environment is its own only
/// once it has started the program): it is looked for until it is, for a
/// while. Panics when it never is.
pub fn secret_of(session: &impl std::fmt::Display) -> String {
    let session = session.to_string();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    loop {
        if let Some(secret) = read_secret(&session) {
            SEEN.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).insert(session, secret.clone());
            return secret;
        }
        let seen = SEEN.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).get(&session).cloned();
        if let Some(secret) = seen {
            return secret;
        }
        if std::time::Instant::now() > deadline {
            panic!("no process of session {session} carries its secret");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

fn read_secret(session: &str) -> Option<String> {
    let marker = format!("SWITCHBOARD_SESSION_ID={session}");
    for entry in std::fs::read_dir("/proc").expect("/proc is there").flatten() {
        let Ok(environ) = std::fs::read(entry.path().join("environ")) else { continue };
        let vars: Vec<&[u8]> = environ.split(|byte| *byte == 0).collect();
        if !vars.contains(&marker.as_bytes()) {
            continue;
        }
        if let Some(secret) = vars.iter().find_map(|var| var.strip_prefix(b"SWITCHBOARD_SESSION_SECRET=")) {
            return Some(String::from_utf8_lossy(secret).into_owned());
        }
    }
    None
}

/// A hook event of `session` as its hook binary sends it: its secret read
/// from the session's environment.
pub fn envelope(session: &impl std::fmt::Display, payload: serde_json::Value) -> switchboard_core::hook::HookEnvelope {
    switchboard_core::hook::HookEnvelope {
        session_id: Some(session.to_string()),
        env: Default::default(),
        at: 1,
        payload,
        secret: Some(secret_of(session)),
    }
}
