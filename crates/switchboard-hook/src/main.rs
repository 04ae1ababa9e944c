//! `switchboard-hook`: run by an agent's hooks with the event JSON on stdin.
//!
//! This skeleton only reports which session it belongs to; forwarding events
//! to the engine's socket (with a spool when the app is not running) is the
//! next step. Whatever happens, it exits 0 at once: a hook must never slow
//! or block the agent.

fn main() {
    let session = std::env::var("SWITCHBOARD_SESSION_ID").unwrap_or_default();
    let socket = std::env::var("SWITCHBOARD_SOCKET").unwrap_or_default();
    if std::env::args().any(|arg| arg == "--version") {
        println!("switchboard-hook {}", env!("CARGO_PKG_VERSION"));
        return;
    }
    if session.is_empty() || socket.is_empty() {
        eprintln!("switchboard-hook: not running inside a Switchboard session; event ignored");
    }
}
