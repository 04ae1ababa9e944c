//! The one typed client of a Switchboard engine: the window, the command
//! line and the tests all reach the engine (the daemon, or an engine a test
//! started) through it, over the engine's socket in the framed protocol of
//! `switchboard_api::wire`.
//!
//! [`Client::connect`] says hello (versions both ways; another protocol is
//! a refusal in words, never a garbled view), then one connection carries
//! every call, the engine's events ([`Client::subscribe`]) and any number of
//! terminals ([`Client::attach`]). The typed methods, one per engine
//! command, come from the engine's own list. [`blocking::Client`] wraps it
//! for the command line.
//!
//! When the connection ends, every call waiting fails with
//! [`ClientError::Disconnected`], the event stream ends, and so does every
//! terminal; [`Client::closed`] resolves.

pub mod blocking;
pub mod events;
pub mod fleet;
pub mod hosts;
pub mod locate;
pub mod notice;
pub mod notices_start;
pub mod ssh;
pub mod status;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use switchboard_api::wire::{
    Answer, ClientFrame, ClientRequest, Frame, Hello, Incoming, MAX_FRAME_BYTES, MAX_HELLO_BYTES, PROTOCOL,
    ServerFrame, ServerHello, read_frame, read_incoming, write_frame,
};
pub use switchboard_api::wire::{ClientKind, HelloAck, StreamEnd};
use switchboard_api::{ApiError, Command, EngineEvent, ErrorCode, IntoReply, Reply};
use switchboard_protocol::SessionId;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::{mpsc, oneshot, watch};

/// How long the engine has to answer a hello.
pub const HELLO_DEADLINE: Duration = Duration::from_secs(10);
/// Output batches a terminal may have waiting for its reader before it is
/// let go as behind (attaching again replays what the engine kept).
pub const TERMINAL_QUEUE: usize = 1024;
/// Events that may wait for their reader before the rest are dropped and
/// the reader is told it missed some.
pub const EVENT_QUEUE: usize = 16 * 1024;

#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    #[error("Switchboard is not running with this data directory (nothing listens on {})", .0.display())]
    NotRunning(PathBuf),
    #[error(
        "the engine running (Switchboard {engine_version}) cannot talk with this program: {reason}. \
         Stop it with `switchboard daemon --stop` and open Switchboard again"
    )]
    Refused { engine_version: String, reason: String },
    /// The socket is served by another user's process (one that swapped
    /// the socket in a folder it could write): nothing was said to it.
    #[error(
        "{} is served by another user (uid {uid}), not by your Switchboard: nothing was sent to it. \
         Check who owns the folders of your data directory",
        .socket.display()
    )]
    NotYours { socket: PathBuf, uid: u32 },
    #[error("the connection to Switchboard's engine was lost")]
    Disconnected,
    #[error("the engine did not answer within {} seconds", .0.as_secs())]
    TimedOut(Duration),
    #[error("talking to Switchboard's engine failed: {0}")]
    Io(#[from] std::io::Error),
    #[error("Switchboard's engine sent something this program does not understand: {0}")]
    Protocol(String),
    #[error("{}", .0.message)]
    Api(ApiError),
    /// The engine on another machine could not be reached over SSH.
    #[error("{0}")]
    Ssh(ssh::SshProblem),
}

impl ClientError {
    /// What kind of failure it is, as the engine's errors are told apart:
    /// the engine's own code for its refusals, and for a failure to reach
    /// it, what a caller can do about it.
    pub fn code(&self) -> ErrorCode {
        match self {
            ClientError::Api(error) => error.code,
            ClientError::Protocol(_) | ClientError::Refused { .. } => ErrorCode::Internal,
            ClientError::NotYours { .. } => ErrorCode::PermissionDenied,
            _ => ErrorCode::EngineStopped,
        }
    }

    /// The field of the request the engine found wrong, if it named one.
    pub fn field(&self) -> Option<&str> {
        match self {
            ClientError::Api(error) => error.field.as_deref(),
            _ => None,
        }
    }

    /// The error as the window shows it: the engine's own, or one that
    /// says the engine is not there.
    pub fn into_api(self) -> ApiError {
        match self {
            ClientError::Api(error) => error,
            other => ApiError { code: other.code(), message: other.to_string(), field: None, problems: Vec::new() },
        }
    }
}

impl From<ClientError> for ApiError {
    fn from(error: ClientError) -> ApiError {
        error.into_api()
    }
}

/// An engine event and its place in the engine's order.
// Each lives only until its reader takes it.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq)]
pub enum EventItem {
    Event {
        seq: u64,
        event: EngineEvent,
    },
    /// Events were dropped (this reader or the connection fell behind):
    /// what was loaded before may be stale.
    Lost,
}

/// The engine's events, from the moment of [`Client::subscribe`].
pub struct Events {
    receiver: mpsc::Receiver<EventItem>,
    /// The engine's instance: another one after a reconnection means the
    /// engine restarted and everything shown is to be loaded again.
    pub instance_id: String,
    /// The number of the last event before the subscription.
    pub as_of: u64,
}

impl Events {
    /// The next event; none once the connection ended.
    pub async fn next(&mut self) -> Option<EventItem> {
        self.receiver.recv().await
    }
}

/// One attached terminal: the session's retained output first, then live.
pub struct Terminal {
    pub stream: u32,
    receiver: mpsc::Receiver<Vec<u8>>,
    why: Arc<Mutex<Option<StreamEnd>>>,
}

impl Terminal {
    /// The next batch of output; none once the stream ended (see [`Terminal::ended`]).
    pub async fn next(&mut self) -> Option<Vec<u8>> {
        self.receiver.recv().await
    }

    /// Why the stream ended; none while it runs, or if the connection was lost.
    pub fn ended(&self) -> Option<StreamEnd> {
        *self.why.lock().expect("never poisoned")
    }
}

/// Why a terminal stream ended, once it has.
type Why = Arc<Mutex<Option<StreamEnd>>>;

/// What the connection's reader hands out, shared with the client.
#[derive(Default)]
struct Routes {
    pending: HashMap<u64, oneshot::Sender<Answer>>,
    streams: HashMap<u32, (mpsc::Sender<Vec<u8>>, Why)>,
    events: Option<mpsc::Sender<EventItem>>,
    /// Events dropped since the reader last took one.
    missed: bool,
    closed: bool,
}

struct Shared {
    routes: Mutex<Routes>,
    out: mpsc::UnboundedSender<Frame>,
    next: AtomicU64,
    welcome: HelloAck,
    closed: watch::Receiver<bool>,
}

struct Connection {
    shared: Arc<Shared>,
    tasks: [tokio::task::AbortHandle; 2],
    /// What carries the connection and ends with it (an ssh child).
    _carrier: Mutex<Option<Box<dyn std::any::Any + Send>>>,
}

impl Drop for Connection {
    fn drop(&mut self) {
        for task in &self.tasks {
            task.abort();
        }
    }
}

/// Checks, before a word is sent, that the process listening on `socket`
/// runs as this user (`SO_PEERCRED`): a socket another user put in the
/// engine's place never hears a hello, a command or a hook event.
pub fn served_by_us(stream: &tokio::net::UnixStream, socket: &Path) -> Result<(), ClientError> {
    let uid = stream.peer_cred()?.uid();
    if uid == nix::unistd::getuid().as_raw() {
        Ok(())
    } else {
        Err(ClientError::NotYours { socket: socket.to_path_buf(), uid })
    }
}

/// A connection to an engine. Cloning shares the connection; it closes when
/// the last clone is dropped.
#[derive(Clone)]
pub struct Client {
    connection: Arc<Connection>,
}

impl Client {
    /// Connects to the engine listening on `socket` and says hello.
    pub async fn connect(socket: &Path, kind: ClientKind) -> Result<Client, ClientError> {
        let stream = tokio::net::UnixStream::connect(socket).await.map_err(|error| match error.kind() {
            std::io::ErrorKind::NotFound | std::io::ErrorKind::ConnectionRefused => {
                ClientError::NotRunning(socket.to_path_buf())
            }
            _ => ClientError::Io(error),
        })?;
        served_by_us(&stream, socket)?;
        let (read, write) = stream.into_split();
        Client::over(read, write, kind).await
    }

    /// Says hello over any byte stream to an engine (a socket, a program's
    /// standard input and output) and serves the connection on it.
    pub async fn over(
        read: impl AsyncRead + Unpin + Send + 'static,
        write: impl AsyncWrite + Unpin + Send + 'static,
        kind: ClientKind,
    ) -> Result<Client, ClientError> {
        Client::over_keeping(read, write, kind, Box::new(())).await
    }

    /// As [`Client::over`], keeping `carrier` (what carries the stream,
    /// such as an ssh child) as long as the connection lives.
    pub async fn over_keeping(
        mut read: impl AsyncRead + Unpin + Send + 'static,
        mut write: impl AsyncWrite + Unpin + Send + 'static,
        kind: ClientKind,
        carrier: Box<dyn std::any::Any + Send>,
    ) -> Result<Client, ClientError> {
        let hello = Hello {
            protocol: PROTOCOL,
            app_version: env!("CARGO_PKG_VERSION").to_owned(),
            build_id: switchboard_api::wire::build_id(),
            client_kind: kind,
            client_id: uuid::Uuid::new_v4().to_string(),
        };
        write_frame(&mut write, &Frame::message(&hello)).await?;
        let frame = match tokio::time::timeout(HELLO_DEADLINE, read_frame(&mut read, MAX_HELLO_BYTES)).await {
            Err(_) => return Err(ClientError::TimedOut(HELLO_DEADLINE)),
            Ok(Err(switchboard_api::wire::FrameError::Io(error))) => return Err(error.into()),
            Ok(Err(why)) => return Err(ClientError::Protocol(format!("no answer to the hello: {why}"))),
            Ok(Ok(frame)) => frame,
        };
        let welcome = match serde_json::from_slice::<ServerHello>(&frame.body) {
            Ok(ServerHello::Welcome(welcome)) => welcome,
            Ok(ServerHello::Refused { engine_version, reason, .. }) => {
                return Err(ClientError::Refused { engine_version, reason });
            }
            Err(why) => return Err(ClientError::Protocol(format!("the answer to the hello: {why}"))),
        };
        let (out, out_rx) = mpsc::unbounded_channel();
        let (closed_tx, closed) = watch::channel(false);
        let shared = Arc::new(Shared { routes: Mutex::default(), out, next: AtomicU64::new(1), welcome, closed });
        let writer = tokio::spawn(write_out(write, out_rx));
        let reader = tokio::spawn(read_in(read, shared.clone(), closed_tx));
        Ok(Client {
            connection: Arc::new(Connection {
                shared,
                tasks: [reader.abort_handle(), writer.abort_handle()],
                _carrier: Mutex::new(Some(carrier)),
            }),
        })
    }

    /// Who the engine is: its version, build, instance, pid.
    pub fn welcome(&self) -> &HelloAck {
        &self.connection.shared.welcome
    }

    /// Resolves once the connection has ended.
    pub async fn closed(&self) {
        let mut closed = self.connection.shared.closed.clone();
        closed.wait_for(|closed| *closed).await.ok();
    }

    pub fn is_closed(&self) -> bool {
        *self.connection.shared.closed.borrow()
    }

    fn next_id(&self) -> u64 {
        self.connection.shared.next.fetch_add(1, Ordering::Relaxed)
    }

    async fn request(&self, request: ClientRequest) -> Result<Answer, ClientError> {
        let shared = &self.connection.shared;
        let id = self.next_id();
        let (answer, answered) = oneshot::channel();
        {
            let mut routes = shared.routes.lock().expect("never poisoned");
            if routes.closed {
                return Err(ClientError::Disconnected);
            }
            routes.pending.insert(id, answer);
        }
        if shared.out.send(Frame::message(&ClientFrame::Request { id, request })).is_err() {
            shared.routes.lock().expect("never poisoned").pending.remove(&id);
            return Err(ClientError::Disconnected);
        }
        answered.await.map_err(|_| ClientError::Disconnected)
    }

    /// Sends any engine command and returns its reply.
    pub async fn call(&self, command: Command) -> Result<Reply, ClientError> {
        match self.request(ClientRequest::Command { command, host: None }).await? {
            Answer::Ok { reply } => Ok(reply),
            Answer::Error { error } => Err(ClientError::Api(error)),
            other => Err(unexpected(&other)),
        }
    }

    async fn ask<T: IntoReply>(&self, command: Command) -> Result<T, ClientError> {
        let reply = self.call(command).await?;
        T::from_reply(reply).ok_or_else(|| ClientError::Protocol(format!("not the {} reply it asked for", T::KIND)))
    }

    /// Follows the engine's events from now on (one subscription per connection).
    pub async fn subscribe(&self) -> Result<Events, ClientError> {
        let (sender, receiver) = mpsc::channel(EVENT_QUEUE);
        self.connection.shared.routes.lock().expect("never poisoned").events = Some(sender);
        match self.request(ClientRequest::Subscribe).await {
            Ok(Answer::Subscribed { instance_id, seq }) => Ok(Events { receiver, instance_id, as_of: seq }),
            failed => {
                self.connection.shared.routes.lock().expect("never poisoned").events = None;
                Err(match failed {
                    Ok(Answer::Error { error }) => ClientError::Api(error),
                    Ok(other) => unexpected(&other),
                    Err(error) => error,
                })
            }
        }
    }

    /// Attaches to a session's terminal: what the engine kept of its output
    /// first, then live output, until the session ends or [`Client::detach`].
    pub async fn attach(&self, session_id: SessionId) -> Result<Terminal, ClientError> {
        let stream = u32::try_from(self.next_id() % u64::from(u32::MAX)).expect("below u32::MAX");
        let (sender, receiver) = mpsc::channel(TERMINAL_QUEUE);
        let why = Arc::new(Mutex::new(None));
        self.connection.shared.routes.lock().expect("never poisoned").streams.insert(stream, (sender, why.clone()));
        match self.request(ClientRequest::Attach { session_id, stream }).await {
            Ok(Answer::Ok { .. }) => Ok(Terminal { stream, receiver, why }),
            failed => {
                self.connection.shared.routes.lock().expect("never poisoned").streams.remove(&stream);
                Err(match failed {
                    Ok(Answer::Error { error }) => ClientError::Api(error),
                    Ok(other) => unexpected(&other),
                    Err(error) => error,
                })
            }
        }
    }

    /// Ends a terminal stream.
    pub async fn detach(&self, stream: u32) -> Result<(), ClientError> {
        match self.request(ClientRequest::Detach { stream }).await? {
            Answer::Ok { .. } => Ok(()),
            Answer::Error { error } => Err(ClientError::Api(error)),
            other => Err(unexpected(&other)),
        }
    }

    /// How long the engine takes to answer (it answers only while it reads
    /// its socket: a hung engine does not).
    pub async fn ping(&self) -> Result<Duration, ClientError> {
        let started = Instant::now();
        match self.request(ClientRequest::Ping).await? {
            Answer::Pong => Ok(started.elapsed()),
            other => Err(unexpected(&other)),
        }
    }
}

fn unexpected(answer: &Answer) -> ClientError {
    ClientError::Protocol(format!("an answer of another kind: {answer:?}"))
}

macro_rules! client_methods {
    ($(
        $(#[doc = $doc:literal])*
        $reach:ident $effect:ident $timing:ident $method:ident / $variant:ident ($($arg:ident : $ty:ty),* $(,)?) -> $out:ty;
    )*) => {
        impl Client {
            $(
                $(#[doc = $doc])*
                pub async fn $method(&self, $($arg: $ty),*) -> Result<$out, ClientError> {
                    self.ask(Command::$variant { $($arg),* }).await
                }
            )*
        }
    };
}

switchboard_api::engine_commands!(client_methods);

async fn write_out(mut write: impl AsyncWrite + Unpin, mut frames: mpsc::UnboundedReceiver<Frame>) {
    while let Some(frame) = frames.recv().await {
        if write_frame(&mut write, &frame).await.is_err() {
            return;
        }
    }
}

async fn read_in(mut read: impl AsyncRead + Unpin, shared: Arc<Shared>, closed: watch::Sender<bool>) {
    loop {
        let body = match read_incoming(&mut read, MAX_FRAME_BYTES).await {
            Ok(Incoming::Message(body)) => body,
            Ok(Incoming::Other) => continue,
            Ok(Incoming::Output { stream, bytes }) => {
                deliver_output(&shared, stream, bytes);
                continue;
            }
            Err(why) => {
                tracing::debug!(%why, "the engine connection ended");
                break;
            }
        };
        let message = match serde_json::from_slice::<ServerFrame>(&body) {
            Ok(message) => message,
            Err(why) => {
                tracing::warn!(%why, "skipped a message from the engine this program cannot read");
                continue;
            }
        };
        let mut routes = shared.routes.lock().expect("never poisoned");
        match message {
            ServerFrame::Reply { id, answer } => {
                if let Some(waiter) = routes.pending.remove(&id) {
                    waiter.send(answer).ok();
                }
            }
            // Another machine's, relayed, and page notices: a browser's connection alone is sent those.
            ServerFrame::Event { host: Some(_), .. } | ServerFrame::Machine { .. } | ServerFrame::Notice { .. } => {}
            ServerFrame::Event { seq, event, host: None } => match serde_json::from_value::<EngineEvent>(event) {
                Ok(event) => deliver_event(&mut routes, EventItem::Event { seq, event }),
                Err(why) => tracing::debug!(%why, seq, "skipped an engine event this program does not know"),
            },
            ServerFrame::EventsLost { missed } => {
                tracing::warn!(missed, "the engine dropped events this window did not take in time");
                deliver_event(&mut routes, EventItem::Lost);
            }
            ServerFrame::StreamEnded { stream, why } => {
                if let Some((_, ended)) = routes.streams.remove(&stream) {
                    *ended.lock().expect("never poisoned") = Some(why);
                }
            }
            ServerFrame::Unknown => {}
        }
    }
    let mut routes = shared.routes.lock().expect("never poisoned");
    routes.closed = true;
    // Dropping them ends every waiter, terminal and the events.
    routes.pending.clear();
    routes.streams.clear();
    routes.events = None;
    drop(routes);
    closed.send(true).ok();
}

/// Hands a terminal's output to its reader; a reader that fell behind is
/// let go, and the engine is told to let go of its stream too.
fn deliver_output(shared: &Shared, stream: u32, bytes: Vec<u8>) {
    let mut routes = shared.routes.lock().expect("never poisoned");
    let full = match routes.streams.get(&stream) {
        Some((sender, _)) => sender.try_send(bytes).is_err(),
        None => false,
    };
    if full && let Some((_, why)) = routes.streams.remove(&stream) {
        *why.lock().expect("never poisoned") = Some(StreamEnd::Behind);
        let id = shared.next.fetch_add(1, Ordering::Relaxed);
        let detach = ClientFrame::Request { id, request: ClientRequest::Detach { stream } };
        shared.out.send(Frame::message(&detach)).ok();
    }
}

/// Hands an event to the subscriber, saying first that some were dropped
/// if its queue was full before.
fn deliver_event(routes: &mut Routes, item: EventItem) {
    let Some(sender) = routes.events.as_ref() else { return };
    if routes.missed {
        if sender.try_send(EventItem::Lost).is_err() {
            return;
        }
        routes.missed = false;
    }
    if let Err(mpsc::error::TrySendError::Full(_)) = sender.try_send(item) {
        routes.missed = true;
    }
}
