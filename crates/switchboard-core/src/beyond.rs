//! Beyond this machine's engine: the user's other machines, which a
//! browser reaches through the engine that serves it, as a desktop window
//! reaches them itself. The engine knows no SSH: the daemon gives the web
//! server a [`Beyond`] (`switchboard_client::beyond`), which takes the
//! frames of a browser's socket that concern other machines and answers
//! them, and passes every other frame on to this engine.

use std::sync::Arc;

use switchboard_api::wire::Frame;
use tokio::io::DuplexStream;
use tokio::sync::mpsc;

/// A paired browser, as its credential names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Browser {
    pub device: u64,
    /// Paired to look only: it sends only commands that read.
    pub read_only: bool,
}

/// Opens a framed connection to this machine's engine, for the browser
/// whose socket it was given with (the engine decides what it may do, as
/// on its own socket).
pub type Here = Arc<dyn Fn() -> DuplexStream + Send + Sync>;

/// The user's other machines, for the browsers.
pub trait Beyond: Send + Sync + 'static {
    /// A browser's socket opened: frames pushed to `down` go to it (after
    /// this engine's hello). None: no other machine, every frame goes to
    /// this engine.
    fn open(&self, browser: Browser, here: Here, down: mpsc::Sender<Frame>) -> Option<Box<dyn Relay>>;
}

/// One browser's socket, beyond this machine: dropped when it closes.
pub trait Relay: Send {
    /// A frame the browser sent: given back to go on to this engine, or
    /// taken (the relay answers it on `down`).
    fn up(&mut self, frame: Frame) -> Option<Frame>;
}

/// The [`Beyond`] a web server is given (none: this machine's engine only).
#[derive(Clone)]
pub struct Machines(pub Arc<dyn Beyond>);

impl std::fmt::Debug for Machines {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Machines")
    }
}
