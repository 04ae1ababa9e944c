//! What every request's task of one server shares.

use std::net::SocketAddr;
use std::sync::Arc;

use tokio::sync::watch;

use super::WebOptions;
use crate::server::StreamServer;

/// What a running server serves by, which the user may change without its
/// listener closing (the names let in, the certificate).
#[derive(Clone)]
pub(crate) struct Served {
    pub names: Vec<String>,
    pub tls: Option<tokio_rustls::TlsAcceptor>,
}

/// What every request's task shares.
pub(super) struct Web<H> {
    pub door: Arc<H>,
    pub bound: SocketAddr,
    pub options: WebOptions,
    /// The names and certificate as they are now.
    pub served: watch::Receiver<Served>,
    /// One code attempt at a time, whoever makes it: the waits for wrong
    /// codes add up for all callers together.
    pub pairing_turn: tokio::sync::Mutex<()>,
    pub streams: StreamServer,
    /// Goes when the server is dropped: bridges close their sockets.
    pub open: watch::Receiver<()>,
}
