//! What a session's processes carry in their environment, read as a hook
//! running inside the session would have it.

use std::collections::HashMap;
use std::sync::{LazyLock, Mutex};

/// Secrets read before, by session: a test that fires hooks for a session
/// after its app stopped reads the secret while the session runs.
static SEEN: LazyLock<Mutex<HashMap<String, String>>> = LazyLock::new(Default::default);

/// The secret of the session `session`, read from the environment of one of
/// its processes (as the hook binary inside it reads its own), or as it was
/// read while the session ran. Panics when neither is known.
pub fn secret_of(session: &impl std::fmt::Display) -> String {
    let session = session.to_string();
    if let Some(secret) = read_secret(&session) {
        SEEN.lock().expect("never poisoned").insert(session, secret.clone());
        return secret;
    }
    match SEEN.lock().expect("never poisoned").get(&session) {
        Some(secret) => secret.clone(),
        None => panic!("no process of session {session} carries its secret"),
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
