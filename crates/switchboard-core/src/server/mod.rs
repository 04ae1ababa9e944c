//! The engine's local socket: the window, the command line, scripts and
//! agents' hooks reach the engine here.
//!
//! A Unix socket in a directory only we can enter (0700), itself 0600; a
//! peer must run as our user. A connection speaks one of two protocols,
//! told by its first byte:
//! - the framed protocol (`crate::wire`, served by `framed`): a hello with
//!   versions, then requests with ids, events and terminals pushed;
//! - newline-delimited JSON (any other first byte, `{` for a request): one [`SocketRequest`] per
//!   line, one [`SocketResponse`] per line back. A line longer than
//!   [`MAX_LINE_BYTES`] or a connection idle past [`READ_DEADLINE`] is
//!   closed; malformed JSON gets an error answer and the connection is
//!   closed. The hook binary speaks it.
//!
//! Nothing a peer sends can stop the server or hold up the engine.

mod framed;

use std::future::Future;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::{UnixListener, UnixStream};
use tokio::task::JoinSet;

use crate::api::{ApiError, Command, ErrorCode, Reply};
use crate::config::MAX_SOCKET_PATH_BYTES;
use crate::error::EngineError;

/// Longest request line accepted.
pub const MAX_LINE_BYTES: usize = 1024 * 1024;
/// How long a connection may wait between requests.
pub const READ_DEADLINE: Duration = Duration::from_secs(10);

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum SocketRequest {
    /// Any engine command, answered with its reply.
    Command { command: Command },
    /// An agent's hook event (from `switchboard-hook`), answered `ok` once
    /// the engine has it.
    Hook { envelope: switchboard_protocol::hook::HookEnvelope },
}

// One response lives only until it is written; its size does not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SocketResponse {
    Ok(Reply),
    Error(ApiError),
}

/// Who is at the other end of a connection, as the kernel tells it
/// (`SO_PEERCRED`): every peer runs as the user, but only some are the user.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Caller {
    /// A process the app did not start: the user's command line or scripts.
    User { pid: i32 },
    /// A process of an agent: the app started it or one of its ancestors
    /// (the app reaps orphans, so even a daemon an agent left stays its
    /// descendant), or it carries a session's id. Hooks are such processes.
    Agent { pid: i32 },
}

impl Caller {
    /// Who the process `pid` is, seen from the app's process `app`.
    pub fn of(pid: i32, app: i32) -> Caller {
        if crate::session::process::is_agent_process(pid, app) { Caller::Agent { pid } } else { Caller::User { pid } }
    }
}

/// What serves the requests the socket reads: the engine, or a stand-in in
/// tests (which answers commands only).
pub trait RequestHandler: Send + Sync + 'static {
    fn handle(&self, request: SocketRequest, caller: Caller)
    -> impl Future<Output = Result<Reply, EngineError>> + Send;

    /// Who answers a framed client's hello.
    fn welcome(&self) -> impl Future<Output = crate::wire::HelloAck> + Send {
        async {
            crate::wire::HelloAck {
                protocol: crate::wire::PROTOCOL,
                engine_version: env!("CARGO_PKG_VERSION").to_owned(),
                build_id: crate::wire::build_id(),
                capabilities: Vec::new(),
                instance_id: String::new(),
                pid: std::process::id(),
                started_at: 0,
                agents_running: 0,
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

impl SocketRequest {
    pub fn into_command(self) -> Command {
        match self {
            SocketRequest::Command { command } => command,
            SocketRequest::Hook { envelope } => Command::HookEvent { envelope },
        }
    }
}

/// Counts of what the server refused, for the log and for tests.
#[derive(Debug, Default)]
pub struct ServerStats {
    pub malformed: AtomicU64,
    pub refused_peers: AtomicU64,
    /// Framed clients of another protocol, refused at their hello.
    pub refused_protocols: AtomicU64,
}

/// The listening server; dropping it stops accepting, ends every open
/// connection (the accept task owns them) and removes the socket.
pub struct SocketServer {
    path: PathBuf,
    accept: tokio::task::JoinHandle<()>,
    pub stats: Arc<ServerStats>,
}

impl Drop for SocketServer {
    fn drop(&mut self) {
        self.accept.abort();
        std::fs::remove_file(&self.path).ok();
    }
}

/// Binds the socket at `path` (making its directory private) and serves
/// requests with `handler`.
pub fn serve<H: RequestHandler>(path: &Path, handler: Arc<H>) -> Result<SocketServer, EngineError> {
    let failed = |doing: &str, e: std::io::Error| EngineError::io(format!("{doing} the socket {}", path.display()), e);
    if path.as_os_str().len() > MAX_SOCKET_PATH_BYTES {
        return Err(EngineError::InvalidInput {
            field: "socket_path",
            reason: format!("{} is longer than {MAX_SOCKET_PATH_BYTES} bytes", path.display()),
        });
    }
    let dir = path.parent().unwrap_or(Path::new("/"));
    std::fs::create_dir_all(dir).map_err(|e| failed("making the folder of", e))?;
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
        .map_err(|e| failed("protecting the folder of", e))?;
    // A socket file left by an app that died: nobody listens on it (the
    // instance lock says no other app runs on this data directory).
    if path.exists() {
        std::fs::remove_file(path).map_err(|e| failed("removing a stale", e))?;
    }
    let listener = UnixListener::bind(path).map_err(|e| failed("binding", e))?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600)).map_err(|e| failed("protecting", e))?;
    let stats = Arc::new(ServerStats::default());
    let accept_stats = stats.clone();
    let accept = tokio::spawn(async move {
        let mut connections = JoinSet::new();
        loop {
            // Finished connections are let go as others arrive.
            while connections.try_join_next().is_some() {}
            match listener.accept().await {
                Ok((stream, _)) => {
                    connections.spawn(serve_connection(stream, handler.clone(), accept_stats.clone()));
                }
                Err(error) => {
                    tracing::warn!(%error, "accepting a socket connection failed");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
            }
        }
    });
    Ok(SocketServer { path: path.to_path_buf(), accept, stats })
}

async fn serve_connection<H: RequestHandler>(stream: UnixStream, handler: Arc<H>, stats: Arc<ServerStats>) {
    let ours = nix::unistd::getuid().as_raw();
    let caller = match stream.peer_cred() {
        Ok(cred) if cred.uid() == ours => {
            // A peer without a pid (not on Linux) is taken for an agent.
            cred.pid().map_or(Caller::Agent { pid: 0 }, |pid| Caller::of(pid, std::process::id() as i32))
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
        framed::serve(read, write, handler, caller, stats).await
    } else {
        serve_lines(read, write, handler, caller, stats).await
    }
}

/// The line protocol: one request per line, one answer each.
async fn serve_lines<H: RequestHandler>(
    mut lines: BufReader<tokio::net::unix::OwnedReadHalf>,
    mut write: tokio::net::unix::OwnedWriteHalf,
    handler: Arc<H>,
    caller: Caller,
    stats: Arc<ServerStats>,
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
                Ok(request) => match handler.handle(request, caller).await {
                    Ok(reply) => SocketResponse::Ok(reply),
                    Err(error) => SocketResponse::Error(error.into()),
                },
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
