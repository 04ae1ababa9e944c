//! The engine's web server: the window's UI for browsers the user paired,
//! and a WebSocket that carries the frames of the one client protocol (the
//! same the window and the command line speak on the socket), served by the
//! engine's own framed server for the device the browser's credential names.
//!
//! Map: `guard` (who is answered at all, and the headers: pure), `pairing`
//! (codes, credentials, slowing wrong codes: pure), `serve` (the listener and
//! each request's way), `bridge` (a WebSocket to a framed connection),
//! `pages` (what is served without a credential), and `crate::beyond` (other
//! machines, given by the daemon), `shared` (what a server's
//! requests share), `tls` (the certificate served). The engine owns the
//! [`WebServer`] (its web desk starts and stops it) and is its
//! [`Doorkeeper`]: it keeps the devices, the codes and the wrong codes.

mod bridge;
pub mod guard;
mod pages;
pub mod pairing;
mod serve;
mod shared;
pub mod tls;

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;

use tokio::sync::watch;

use crate::server::RequestHandler;

pub use crate::config::{ReadAsset, WebAssets};
pub use bridge::UNPAIRED;
pub use serve::serve;

/// The files of a built UI in a folder (`ui/dist`), read when asked; a path
/// that would leave the folder reads nothing.
pub fn assets_in(root: std::path::PathBuf) -> WebAssets {
    WebAssets(Arc::new(move |path: &str| {
        let absolute = format!("/{path}");
        let file = guard::asset_path(&absolute)?;
        std::fs::read(root.join(file)).ok().map(std::borrow::Cow::Owned)
    }))
}

/// A browser let in by its credential, as the engine knows it now.
pub struct Admitted {
    pub device: u64,
    pub read_only: bool,
    /// Becomes true (or its sender goes) when the device is unpaired: its
    /// sockets close at once.
    pub revoked: watch::Receiver<bool>,
}

/// A browser just paired: the credential its cookie carries from now on.
#[derive(Debug)]
pub struct Paired {
    pub device: u64,
    pub secret: String,
}

/// Why a code did not pair, in the words the pairing page shows.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PairRefusal {
    #[error("This code is not one Switchboard gave, or it was used already. Make a new one on the computer.")]
    Unknown,
    #[error("This code has expired (a code pairs for 5 minutes). Make a new one on the computer.")]
    Expired,
    #[error(
        "Too many wrong codes were tried, so every code given is void for now. Make a new one on the computer in a few minutes."
    )]
    TooMany,
}

/// What the web server asks the engine: who a credential is, and whether a
/// code pairs. The engine serves the framed connections too.
pub trait Doorkeeper: RequestHandler {
    /// Wrong codes counted now, from every caller together.
    fn wrong_codes(&self) -> impl Future<Output = usize> + Send;

    /// Pairs a browser with `code` (normalised), naming it after
    /// `user_agent` unless the code names it.
    fn redeem(
        &self,
        code: String,
        user_agent: String,
        from: String,
    ) -> impl Future<Output = Result<Paired, PairRefusal>> + Send;

    /// The device a credential names, if its secret is right; seen now, from
    /// `from`.
    fn admit(&self, device: u64, secret: String, from: String) -> impl Future<Output = Option<Admitted>> + Send;

    /// A device's socket opened or closed (its `connected` changed).
    fn sockets_changed(&self) -> impl Future<Output = ()> + Send;
}

/// What the server serves, and within what bounds.
#[derive(Debug, Clone)]
pub struct WebOptions {
    pub assets: Option<WebAssets>,
    pub limits: crate::config::SocketLimits,
    pub slowing: pairing::Slowing,
    /// The user's other machines, reached for the browsers.
    pub machines: Option<crate::beyond::Machines>,
}

/// The server while it runs. Dropping it stops it: no new connection, and
/// every open one (pages and sockets) closed.
pub struct WebServer {
    pub addr: SocketAddr,
    accept: tokio::task::JoinHandle<()>,
    /// Dropped with the server: every bridge sees it go and closes.
    _open: watch::Sender<()>,
    served: watch::Sender<shared::Served>,
}

impl WebServer {
    /// Serves by these names and this certificate from the next request on,
    /// on the same listener (a browser's open socket goes on).
    pub fn update(&self, names: Vec<String>, tls: Option<tls::Tls>) {
        self.served.send_replace(shared::Served { names, tls: tls.map(|tls| tls.acceptor) });
    }
}

impl Drop for WebServer {
    fn drop(&mut self) {
        self.accept.abort();
    }
}
