//! The engine's local socket: the window, the command line, scripts and
//! agents' hooks reach the engine here.
//!
//! A Unix socket in a directory only we can enter (0700), itself 0600; a
//! peer must run as our user. A connection speaks one of two protocols,
//! told by its first byte:
//! - the framed protocol (`switchboard_api::wire`, served by `framed`): a hello with
//!   versions, then requests with ids, events and terminals pushed;
//! - newline-delimited JSON (any other first byte, `{` for a request): one [`SocketRequest`] per
//!   line, one [`SocketResponse`] per line back. A line longer than
//!   [`MAX_LINE_BYTES`] or a connection idle past [`READ_DEADLINE`] is
//!   closed; malformed JSON gets an error answer and the connection is
//!   closed. The hook binary speaks it.
//!
//! Nothing a peer sends can stop the server, hold up the engine or grow its
//! memory without bound: a connection's requests in flight and answers
//! waiting are bounded ([`SocketLimits::in_flight`]; it is not read while
//! they wait), a frame begun must end within [`SocketLimits::frame_deadline`],
//! a client that takes nothing the engine writes for
//! [`SocketLimits::write_stall`] is let go, and a quiet connection hears a
//! keepalive every [`SocketLimits::keepalive`], so a quiet but healthy client
//! is never cut off. The connections take at most part of the limit on open
//! files ([`descriptors`]); at that cap a new one takes the place of the
//! oldest that never said who it is.

pub mod descriptors;
mod framed;
pub mod reach;

use std::future::Future;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::{UnixListener, UnixStream};
use tokio::task::JoinSet;

use crate::config::MAX_SOCKET_PATH_BYTES;
use crate::error::EngineError;
use switchboard_api::{ApiError, ErrorCode, Reply};

pub use crate::config::EVENT_BUDGET;

/// Longest request line accepted.
pub const MAX_LINE_BYTES: usize = 1024 * 1024;
/// How long a connection may wait between requests.
pub const READ_DEADLINE: Duration = Duration::from_secs(10);

pub use crate::config::SocketLimits;

pub use switchboard_api::line::{SocketRequest, SocketResponse};

/// Who is at the other end of a connection, as the kernel tells it
/// (`SO_PEERCRED`) and the process tree shows it: every peer runs as the
/// user, but only some are the user (`crate::session::lineage` judges).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Caller {
    /// The user's command line, scripts, a window the user opened, or one
    /// the engine opened for the user (a notification's click).
    User { pid: i32, by: UserSign },
    /// A process of an agent: under a session's keeper, carrying a session's
    /// identity, or below the engine outside its windows. Hooks are such
    /// processes.
    Agent { pid: i32, by: AgentSign },
    /// A browser the user paired, through the engine's web server, as its
    /// credential says: the user, from afar, or (`read_only`) one who may
    /// only look.
    Device { device: u64, read_only: bool },
}

pub use crate::session::lineage::{AgentSign, UserSign};

impl Caller {
    /// Who the process `pid` is, seen from the engine's process `engine`.
    pub fn of(pid: i32, engine: i32) -> Caller {
        match crate::session::lineage::judge_process(pid, engine) {
            crate::session::lineage::Judgement::Agent(by) => Caller::Agent { pid, by },
            crate::session::lineage::Judgement::User(by) => Caller::User { pid, by },
        }
    }
}

/// What serves the requests the socket reads: the engine, or a stand-in in
/// tests (which answers commands only).
pub trait RequestHandler: Send + Sync + 'static {
    /// Runs a command its sender may send (the server asked [`reach::refusal`]).
    fn handle(
        &self,
        command: switchboard_api::Command,
        caller: Caller,
    ) -> impl Future<Output = Result<Reply, EngineError>> + Send;

    /// Who answers a framed client's hello.
    fn welcome(&self) -> impl Future<Output = switchboard_api::wire::HelloAck> + Send {
        async {
            switchboard_api::wire::HelloAck {
                protocol: switchboard_api::wire::PROTOCOL,
                engine_version: env!("CARGO_PKG_VERSION").to_owned(),
                build_id: switchboard_api::wire::build_id(),
                capabilities: Vec::new(),
                instance_id: String::new(),
                pid: std::process::id(),
                started_at: 0,
                agents_running: 0,
                starts_at_login: false,
            }
        }
    }

    /// The engine's events, for a subscriber.
    fn feed(&self) -> Option<Arc<crate::sink::EventFeed>> {
        None
    }

    /// Subscribes `sink` to a session's output (replay first).
    fn attach(
        &self,
        _session_id: switchboard_protocol::SessionId,
        _sink: Box<dyn crate::session::OutputSink>,
    ) -> impl Future<Output = Result<crate::session::SubscriptionId, EngineError>> + Send {
        async { Err(EngineError::EngineStopped) }
    }

    fn detach(
        &self,
        _session_id: switchboard_protocol::SessionId,
        _subscription: crate::session::SubscriptionId,
    ) -> impl Future<Output = ()> + Send {
        async {}
    }

    /// Holds a session's output back for one view that is behind, or lets it go.
    fn pause_view(
        &self,
        _session_id: switchboard_protocol::SessionId,
        _subscription: crate::session::SubscriptionId,
        _paused: bool,
    ) -> impl Future<Output = Result<(), EngineError>> + Send {
        async { Err(EngineError::EngineStopped) }
    }
}

/// Serves one request, once who may send it is settled ([`reach::refusal`]).
async fn handle<H: RequestHandler>(
    handler: &H,
    via: reach::Via,
    request: SocketRequest,
    caller: Caller,
) -> Result<Reply, EngineError> {
    let command = request.into_command();
    if let Some(refusal) = reach::refusal(via, caller, &command) {
        tracing::warn!(?caller, ?via, command = command.name(), "refused a command its sender may not send");
        return Err(refusal);
    }
    handler.handle(command, caller).await
}

/// Counts of what the server refused, for the log and for tests.
#[derive(Debug, Default)]
pub struct ServerStats {
    pub malformed: AtomicU64,
    pub refused_peers: AtomicU64,
    /// Framed clients of another protocol, refused at their hello.
    pub refused_protocols: AtomicU64,
    /// Connections closed to make room for a new one (they never spoke).
    pub closed_silent: AtomicU64,
    /// Connections closed at once for want of room (every other one spoke).
    pub refused_full: AtomicU64,
    /// Accepts that failed (for want of descriptors, mostly).
    pub accept_failures: AtomicU64,
    /// Framed connections let go: a frame unfinished in time, or a client
    /// that read nothing for too long.
    pub cut_off: AtomicU64,
    /// Connections open now.
    pub open: AtomicU64,
    /// Times a framed connection was not read because all its places were
    /// taken by requests whose answers were not yet written.
    pub held_back: AtomicU64,
}

/// The listening server; dropping it stops accepting, ends every open
/// connection (the accept task owns them) and removes the socket.
pub struct SocketServer {
    path: PathBuf,
    accept: tokio::task::JoinHandle<()>,
    keep: tokio::task::JoinHandle<()>,
    pub stats: Arc<ServerStats>,
}

impl Drop for SocketServer {
    fn drop(&mut self) {
        self.accept.abort();
        self.keep.abort();
        if let Err(error) = std::fs::remove_file(&self.path)
            && error.kind() != std::io::ErrorKind::NotFound
        {
            tracing::warn!(path = %self.path.display(), %error, "could not remove the engine's socket");
        }
    }
}

/// How often the engine looks whether its socket is still there: the
/// runtime folder it lives in is deleted at the user's last logout, and a
/// client that finds no socket finds no engine.
pub const SOCKET_CHECK: Duration = Duration::from_secs(1);

/// Binds the socket at `path` (making its directory private) and serves
/// requests with `handler`, with the default limits.
pub fn serve<H: RequestHandler>(path: &Path, handler: Arc<H>) -> Result<SocketServer, EngineError> {
    serve_with(path, handler, SocketLimits::default())
}

/// As [`serve`], with these limits.
pub fn serve_with<H: RequestHandler>(
    path: &Path,
    handler: Arc<H>,
    limits: SocketLimits,
) -> Result<SocketServer, EngineError> {
    if path.as_os_str().len() > MAX_SOCKET_PATH_BYTES {
        return Err(EngineError::InvalidInput {
            field: "socket_path",
            reason: format!("{} is longer than {MAX_SOCKET_PATH_BYTES} bytes", path.display()),
        });
    }
    let (listener, inode) = bind(path)?;
    let stats = Arc::new(ServerStats::default());
    let cap = descriptors::connection_cap(descriptors::soft_limit().unwrap_or(1024));
    tracing::debug!(cap, "socket connections at most");
    let room = switchboard_api::wire::FrameRoom::new(limits.frames_room);
    let (replace, replacements) = tokio::sync::mpsc::unbounded_channel();
    let accept = tokio::spawn(accept_loop(
        listener,
        replacements,
        handler,
        stats.clone(),
        Arc::new(Bounds { limits, room }),
        cap,
    ));
    let keep = tokio::spawn(keep_socket(path.to_path_buf(), inode, replace));
    Ok(SocketServer { path: path.to_path_buf(), accept, keep, stats })
}

/// Binds the socket at `path` (its folder made and kept private); the
/// listener and the socket file's inode.
fn bind(path: &Path) -> Result<(UnixListener, u64), EngineError> {
    use std::os::unix::fs::MetadataExt;
    let failed = |doing: &str, e: std::io::Error| EngineError::io(format!("{doing} the socket {}", path.display()), e);
    let dir = path.parent().unwrap_or(Path::new("/"));
    std::fs::create_dir_all(dir).map_err(|e| failed("making the folder of", e))?;
    // Made again after a logout deleted it: still the user's alone, or not used.
    crate::private::refuse_foreign([dir])?;
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
        .map_err(|e| failed("protecting the folder of", e))?;
    // A socket file left by an app that died: nobody listens on it (the
    // instance lock says no other app runs on this data directory).
    if path.exists() {
        std::fs::remove_file(path).map_err(|e| failed("removing a stale", e))?;
    }
    let listener = UnixListener::bind(path).map_err(|e| failed("binding", e))?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600)).map_err(|e| failed("protecting", e))?;
    let inode = std::fs::symlink_metadata(path).map_err(|e| failed("reading", e))?.ino();
    Ok((listener, inode))
}

/// Whether the socket bound as `inode` is still at `path` (not removed, nor
/// replaced by another file).
fn still_there(path: &Path, inode: u64) -> bool {
    use std::os::unix::fs::MetadataExt;
    std::fs::symlink_metadata(path).is_ok_and(|meta| meta.ino() == inode)
}

/// Makes the socket again whenever it is removed under the engine (its
/// runtime folder deleted at the last logout), handing the new listener to
/// the accept loop. Says so once when it goes and once when it is back.
async fn keep_socket(path: PathBuf, mut inode: u64, replace: tokio::sync::mpsc::UnboundedSender<UnixListener>) {
    let mut checks = tokio::time::interval(SOCKET_CHECK);
    checks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut missing = false;
    loop {
        checks.tick().await;
        if still_there(&path, inode) {
            continue;
        }
        if !missing {
            tracing::warn!(path = %path.display(), "the engine's socket was removed; making it again");
            missing = true;
        }
        match bind(&path) {
            Ok((listener, bound)) => {
                if replace.send(listener).is_err() {
                    return;
                }
                inode = bound;
                missing = false;
                tracing::info!(path = %path.display(), "the engine's socket is back; clients reach it again");
            }
            Err(error) => tracing::debug!(%error, "the engine's socket cannot be made yet"),
        }
    }
}

/// What bounds every connection of one server: each one's limits, and the
/// room long frames share.
struct Bounds {
    limits: SocketLimits,
    room: switchboard_api::wire::FrameRoom,
}

/// Serves framed connections that do not come through the socket (a paired
/// browser's WebSocket, carried in memory by `crate::web`), with the same
/// limits as the socket's, one room for long frames between them.
pub struct StreamServer {
    bounds: Arc<Bounds>,
    pub stats: Arc<ServerStats>,
}

impl StreamServer {
    pub fn new(limits: SocketLimits) -> StreamServer {
        let room = switchboard_api::wire::FrameRoom::new(limits.frames_room);
        StreamServer { bounds: Arc::new(Bounds { limits, room }), stats: Arc::default() }
    }

    /// Serves one connection for `caller` until either side ends it.
    pub async fn serve<H: RequestHandler>(
        &self,
        read: impl tokio::io::AsyncRead + Unpin + Send,
        write: impl tokio::io::AsyncWrite + Unpin + Send + 'static,
        handler: Arc<H>,
        caller: Caller,
    ) {
        let spoke = AtomicBool::new(false);
        let (stats, bounds) = (self.stats.clone(), self.bounds.clone());
        framed::serve(BufReader::new(read), write, handler, caller, stats, &bounds, &spoke).await
    }
}

/// How long the accept loop waits after a failed accept, at first and at most
/// (doubling between): a failure that lasts never spins.
const ACCEPT_BACKOFF: (Duration, Duration) = (Duration::from_millis(10), Duration::from_secs(1));

/// One connection the accept loop serves: its task, and whether it has said
/// who it is (a hello, or a first request line).
struct Served {
    task: tokio::task::AbortHandle,
    spoke: Arc<AtomicBool>,
    /// Its place in the order of arrival.
    order: u64,
}

/// The connections being served, by their task.
#[derive(Default)]
struct Connections {
    tasks: JoinSet<()>,
    served: std::collections::HashMap<tokio::task::Id, Served>,
    arrived: u64,
}

impl Connections {
    /// Forgets the connections that ended.
    fn reap(&mut self) {
        while let Some(ended) = self.tasks.try_join_next_with_id() {
            let id = match ended {
                Ok((id, ())) => id,
                Err(error) => error.id(),
            };
            self.served.remove(&id);
        }
    }

    fn silent(&self) -> usize {
        self.served.values().filter(|s| !s.spoke.load(Ordering::Relaxed)).count()
    }

    /// Closes the connection that arrived first of those that never spoke.
    fn close_oldest_silent(&mut self) -> bool {
        let oldest = self
            .served
            .iter()
            .filter(|(_, s)| !s.spoke.load(Ordering::Relaxed))
            .min_by_key(|(_, s)| s.order)
            .map(|(id, _)| *id);
        let Some(id) = oldest else { return false };
        if let Some(served) = self.served.remove(&id) {
            served.task.abort();
        }
        true
    }
}

async fn accept_loop<H: RequestHandler>(
    mut listener: UnixListener,
    mut replacements: tokio::sync::mpsc::UnboundedReceiver<UnixListener>,
    handler: Arc<H>,
    stats: Arc<ServerStats>,
    limits: Arc<Bounds>,
    cap: usize,
) {
    let mut connections = Connections::default();
    // A failure is said once as it starts and once as it ends, never once a try.
    let mut failing: Option<(u64, Duration)> = None;
    loop {
        connections.reap();
        stats.open.store(connections.served.len() as u64, Ordering::Relaxed);
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            Some(replacement) = replacements.recv() => {
                // The old one's socket file is gone: nobody can reach it any more.
                listener = replacement;
                continue;
            }
        };
        let stream = match accepted {
            Ok((stream, _)) => stream,
            Err(error) => {
                stats.accept_failures.fetch_add(1, Ordering::Relaxed);
                // For want of descriptors, one that never spoke gives its own up.
                if descriptors::out_of_descriptors(&error) && connections.close_oldest_silent() {
                    stats.closed_silent.fetch_add(1, Ordering::Relaxed);
                    // Its descriptor is back once its task has ended (or another's).
                    if let Some(ended) = connections.tasks.join_next_with_id().await {
                        connections.served.remove(&ended.map_or_else(|error| error.id(), |(id, ())| id));
                    }
                    continue;
                }
                let (failures, wait) = match failing {
                    None => {
                        tracing::warn!(%error, "accepting socket connections fails; trying again, less often");
                        (1, ACCEPT_BACKOFF.0)
                    }
                    Some((failures, wait)) => (failures + 1, (wait * 2).min(ACCEPT_BACKOFF.1)),
                };
                failing = Some((failures, wait));
                // Ended connections give descriptors back: look while waiting.
                tokio::time::sleep(wait).await;
                continue;
            }
        };
        if let Some((failures, _)) = failing.take() {
            tracing::info!(failures, "accepting socket connections again");
        }
        connections.reap();
        match descriptors::admit(connections.served.len(), connections.silent(), cap) {
            descriptors::Admission::Serve => {}
            descriptors::Admission::ServeClosingOldestSilent => {
                stats.closed_silent.fetch_add(1, Ordering::Relaxed);
                connections.close_oldest_silent();
            }
            descriptors::Admission::Refuse => {
                stats.refused_full.fetch_add(1, Ordering::Relaxed);
                tracing::debug!(cap, "refused a socket connection: every place is taken by one that spoke");
                drop(stream);
                continue;
            }
        }
        let spoke = Arc::new(AtomicBool::new(false));
        let task = connections.tasks.spawn(serve_connection(
            stream,
            handler.clone(),
            stats.clone(),
            limits.clone(),
            spoke.clone(),
        ));
        connections.arrived += 1;
        connections.served.insert(task.id(), Served { task, spoke, order: connections.arrived });
    }
}

async fn serve_connection<H: RequestHandler>(
    stream: UnixStream,
    handler: Arc<H>,
    stats: Arc<ServerStats>,
    limits: Arc<Bounds>,
    spoke: Arc<AtomicBool>,
) {
    let ours = nix::unistd::getuid().as_raw();
    let caller = match stream.peer_cred() {
        Ok(cred) if cred.uid() == ours => {
            // A peer without a pid (not on Linux) is taken for an agent.
            cred.pid().map_or(Caller::Agent { pid: 0, by: AgentSign::Unknown }, |pid| {
                Caller::of(pid, std::process::id() as i32)
            })
        }
        other => {
            stats.refused_peers.fetch_add(1, Ordering::Relaxed);
            tracing::warn!(peer = ?other.map(|c| c.uid()), "refused a socket peer that is not this user");
            return;
        }
    };
    let (read, write) = stream.into_split();
    let mut read = BufReader::new(read);
    // The first byte tells the protocol; a peer that sends none is let go.
    let first = match tokio::time::timeout(READ_DEADLINE, read.fill_buf()).await {
        Ok(Ok([first, ..])) => *first,
        _ => return,
    };
    // A frame's length starts with a zero byte (no frame is 16 MiB long);
    // anything else is read as lines, as before frames existed.
    if first == 0 {
        framed::serve(read, write, handler, caller, stats, &limits, &spoke).await
    } else {
        serve_lines(read, write, handler, caller, stats, &spoke).await
    }
}

/// The line protocol: one request per line, one answer each.
async fn serve_lines<H: RequestHandler>(
    mut lines: BufReader<tokio::net::unix::OwnedReadHalf>,
    mut write: tokio::net::unix::OwnedWriteHalf,
    handler: Arc<H>,
    caller: Caller,
    stats: Arc<ServerStats>,
    spoke: &AtomicBool,
) {
    let mut line = Vec::new();
    loop {
        line.clear();
        let read = tokio::time::timeout(READ_DEADLINE, read_line(&mut lines, &mut line)).await;
        let response = match read {
            Err(_) | Ok(Ok(0)) => return,
            Ok(Err(error)) => {
                stats.malformed.fetch_add(1, Ordering::Relaxed);
                tracing::warn!(%error, "a socket request was refused");
                respond(&mut write, &error_response(ErrorCode::InvalidInput, error.to_string())).await;
                return;
            }
            Ok(Ok(_)) => match serde_json::from_slice::<SocketRequest>(&line) {
                Ok(request) => {
                    // A request read whole: this connection has said what it is for.
                    spoke.store(true, Ordering::Relaxed);
                    match handle(handler.as_ref(), reach::Via::Line, request, caller).await {
                        Ok(reply) => SocketResponse::Ok(reply),
                        Err(error) => SocketResponse::Error(error.into()),
                    }
                }
                Err(error) => {
                    stats.malformed.fetch_add(1, Ordering::Relaxed);
                    tracing::warn!(%error, "malformed socket request");
                    respond(
                        &mut write,
                        &error_response(ErrorCode::InvalidInput, format!("malformed request: {error}")),
                    )
                    .await;
                    return;
                }
            },
        };
        if !respond(&mut write, &response).await {
            return;
        }
    }
}

/// Reads one line (without its newline) of at most [`MAX_LINE_BYTES`].
async fn read_line(
    reader: &mut BufReader<tokio::net::unix::OwnedReadHalf>,
    line: &mut Vec<u8>,
) -> std::io::Result<usize> {
    loop {
        let available = reader.fill_buf().await?;
        if available.is_empty() {
            return Ok(line.len());
        }
        let (chunk, done) = match available.iter().position(|b| *b == b'\n') {
            Some(end) => (&available[..end], Some(end + 1)),
            None => (available, None),
        };
        if line.len() + chunk.len() > MAX_LINE_BYTES {
            return Err(std::io::Error::other(format!("a request line is longer than {MAX_LINE_BYTES} bytes")));
        }
        line.extend_from_slice(chunk);
        let consumed = done.unwrap_or(available.len());
        reader.consume(consumed);
        if done.is_some() {
            // An empty line still counts as a line.
            return Ok(line.len().max(1));
        }
    }
}

async fn respond(write: &mut tokio::net::unix::OwnedWriteHalf, response: &SocketResponse) -> bool {
    let mut bytes = serde_json::to_vec(response).expect("responses always serialize");
    bytes.push(b'\n');
    write.write_all(&bytes).await.is_ok()
}

fn error_response(code: ErrorCode, message: String) -> SocketResponse {
    SocketResponse::Error(ApiError { code, message, field: None, problems: Vec::new() })
}
