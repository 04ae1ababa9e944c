//! The engine socket's framed protocol: what the window, the command line and
//! tests speak to an engine (in the daemon or in a test) over one connection.
//!
//! A frame is `u32 BE length | u8 kind | body`, the length counting the kind
//! and the body. A [`MESSAGE`] body is one JSON value; an [`OUTPUT`] body is a
//! `u32 BE` stream number and a terminal's raw bytes (no JSON, no base64).
//! The first frame each way is the hello: the client's [`Hello`] (whose shape
//! never changes) and the engine's [`ServerHello`]; a client of another
//! protocol is refused, naming both versions. Then the client sends
//! [`ClientFrame`]s carrying request ids; the engine answers each id once
//! ([`ServerFrame::Reply`]) and pushes events and terminal output unasked.
//!
//! A framed connection starts with a zero byte, since no frame is 16 MiB
//! long; one that starts otherwise (`{`) speaks the older line protocol
//! (one JSON request per line), so the hook binary an agent already runs
//! keeps working across an upgrade.

use serde::{Deserialize, Serialize};
use switchboard_protocol::SessionId;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

use crate::{ApiError, Millis, Reply};

/// The protocol this build speaks. Raised only for a change an older peer
/// cannot read; additions are new requests (announced in
/// [`HelloAck::capabilities`]) and new pushed kinds, which readers skip.
pub const PROTOCOL: u32 = 1;

/// The largest frame either side accepts once the hello is done.
pub const MAX_FRAME_BYTES: usize = 16 * 1024 * 1024;
/// The largest frame accepted before it: a peer that has not said who it is
/// gets little room.
pub const MAX_HELLO_BYTES: usize = 64 * 1024;

/// A frame of one JSON value.
pub const MESSAGE: u8 = 0;
/// A frame of terminal output: a stream number and raw bytes.
pub const OUTPUT: u8 = 1;

/// What the engine can do beyond the protocol's first version, said in the
/// hello so a newer client asks only what this engine answers.
pub const CAPABILITIES: &[&str] = &["events", "terminals", "ping"];

/// What kind of program connects, for the log and the engine's notices
/// (a window shows notices itself while it is connected).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClientKind {
    Window,
    /// A paired browser, through the engine's web server (whatever its
    /// hello says, the server takes it for one).
    Browser,
    CommandLine,
    Test,
    /// A session's own tools server (`switchboard-mcp`).
    Tools,
    #[serde(other)]
    Other,
}

/// The client's first frame. Its shape never changes, so that any engine
/// can read the protocol a client speaks and refuse it in words.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Hello {
    pub protocol: u32,
    pub app_version: String,
    pub build_id: String,
    pub client_kind: ClientKind,
    /// Names this client among the engine's connections (a window's stays
    /// the same across its reconnections).
    pub client_id: String,
}

/// The engine's answer to a hello.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ServerHello {
    Welcome(HelloAck),
    /// The client speaks a protocol this engine does not; the connection
    /// closes after this.
    Refused {
        protocol: u32,
        engine_version: String,
        reason: String,
    },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HelloAck {
    pub protocol: u32,
    pub engine_version: String,
    /// Tells two builds of one version apart (an upgrade installed while
    /// the engine kept running).
    pub build_id: String,
    pub capabilities: Vec<String>,
    /// Changes each time an engine starts: a client that reconnects to
    /// another instance reloads everything it shows.
    pub instance_id: String,
    pub pid: u32,
    pub started_at: Millis,
    pub agents_running: u32,
    /// The user's login service runs this engine (it starts at each login);
    /// where none does, automations fire only while the engine runs.
    #[serde(default)]
    pub starts_at_login: bool,
}

/// What a client sends after the hello.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ClientFrame {
    Request { id: u64, request: ClientRequest },
}

// A request lives only until it is written or read.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ClientRequest {
    /// Any engine command, answered with its reply. `host`: one of the
    /// user's other machines the engine serving a browser reaches for it
    /// (none: where the command's own route sends it).
    Command {
        command: crate::Command,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        host: Option<String>,
    },
    /// Every engine event from now on, each with its sequence number.
    Subscribe,
    /// A session's output: what the engine kept of it first, then live, in
    /// output frames of `stream` (a number the client chose, unused on this
    /// connection, so that output it reads before the answer has a home).
    Attach {
        session_id: SessionId,
        stream: u32,
    },
    /// Another machine's engine's link, as the engine serving a browser
    /// reaches it for the browser: answered with [`Answer::Machines`], then
    /// each change pushed as [`ServerFrame::Machine`], and that machine's
    /// events as [`ServerFrame::Event`]s naming it.
    Machines,
    /// Ends an attach.
    Detach {
        stream: u32,
    },
    Ping,
}

/// What the engine sends after the hello. A connection quiet for a while is
/// also sent `{"type":"keepalive"}`, which readers skip as [`ServerFrame::Unknown`].
// A frame lives only until it is written or read.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ServerFrame {
    Reply {
        id: u64,
        answer: Answer,
    },
    /// An engine event, left as JSON until the reader takes it (a newer
    /// engine's event a client does not know is skipped, not fatal).
    Event {
        seq: u64,
        event: serde_json::Value,
        /// The other machine whose engine sent it, relayed by the engine
        /// serving a browser (`seq` is then that engine's own).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        host: Option<String>,
    },
    /// The link to another machine's engine changed (after
    /// [`ClientRequest::Machines`]).
    Machine {
        link: crate::HostLink,
    },
    /// What a browser's page tells of the news the desktop notifies,
    /// pushed by the engine that serves it.
    Notice {
        notice: crate::PageNotice,
    },
    /// The engine's events came faster than this connection took them and
    /// some were dropped: the client reloads what it shows.
    EventsLost {
        missed: u64,
    },
    /// An attach ended.
    StreamEnded {
        stream: u32,
        why: StreamEnd,
    },
    /// A kind this build does not know (from a newer engine).
    #[serde(other)]
    Unknown,
}

#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Answer {
    Ok {
        reply: Reply,
    },
    Subscribed {
        instance_id: String,
        seq: u64,
    },
    Pong,
    /// The other machines a browser is shown, with their links now.
    Machines {
        links: Vec<crate::HostLink>,
    },
    Error {
        error: ApiError,
    },
}

/// Why a terminal stream ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StreamEnd {
    /// The session's process ended (or the engine let the session go).
    Ended,
    /// The client took output slower than the agent wrote it; attaching
    /// again replays what the engine kept.
    Behind,
    /// The client asked.
    Detached,
    #[serde(other)]
    Other,
}

/// One frame as read: its kind and body.
#[derive(Debug)]
pub struct Frame {
    pub kind: u8,
    pub body: Vec<u8>,
}

impl Frame {
    /// A message frame of `value`'s JSON.
    pub fn message(value: &impl Serialize) -> Frame {
        Frame { kind: MESSAGE, body: serde_json::to_vec(value).expect("wire messages always serialize") }
    }

    /// An output frame of `bytes` for `stream`.
    pub fn output(stream: u32, bytes: &[u8]) -> Frame {
        let mut body = Vec::with_capacity(4 + bytes.len());
        body.extend_from_slice(&stream.to_be_bytes());
        body.extend_from_slice(bytes);
        Frame { kind: OUTPUT, body }
    }

    /// An output frame's stream and bytes.
    pub fn as_output(&self) -> Option<(u32, &[u8])> {
        (self.kind == OUTPUT && self.body.len() >= 4)
            .then(|| (u32::from_be_bytes(self.body[..4].try_into().expect("four bytes")), &self.body[4..]))
    }

    /// What goes before the body on the wire: the length and the kind.
    pub fn head(&self) -> [u8; 5] {
        let mut head = [0u8; 5];
        head[..4].copy_from_slice(&(self.body.len() as u32 + 1).to_be_bytes());
        head[4] = self.kind;
        head
    }

    /// The frame as it goes on the wire.
    pub fn encode(&self) -> Vec<u8> {
        let mut bytes = Vec::with_capacity(5 + self.body.len());
        bytes.extend_from_slice(&(self.body.len() as u32 + 1).to_be_bytes());
        bytes.push(self.kind);
        bytes.extend_from_slice(&self.body);
        bytes
    }
}

/// Why a frame could not be read.
#[derive(Debug, thiserror::Error)]
pub enum FrameError {
    #[error("the connection closed")]
    Closed,
    #[error("a frame of {0} bytes is over the limit of {1}")]
    TooLarge(usize, usize),
    #[error("an empty frame")]
    Empty,
    #[error("a frame begun was not finished within {} ms", .0.as_millis())]
    Unfinished(std::time::Duration),
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

/// The room a frame's body starts with: the buffer grows as its bytes
/// arrive, never to the length its header claims before they do (a peer
/// that announces 16 MiB and sends nothing holds nothing).
const FIRST_ROOM: usize = 8 * 1024;

/// Reads exactly `length` bytes, the buffer grown as they arrive.
async fn read_body(reader: &mut (impl AsyncRead + Unpin), length: usize) -> std::io::Result<Vec<u8>> {
    let mut body = Vec::with_capacity(length.min(FIRST_ROOM));
    let read = reader.take(length as u64).read_to_end(&mut body).await?;
    if read < length {
        return Err(std::io::ErrorKind::UnexpectedEof.into());
    }
    Ok(body)
}

/// Reads a frame's head (`u32` length and kind) of at most `max` bytes; the
/// length of what follows it.
async fn read_head(reader: &mut (impl AsyncRead + Unpin), max: usize) -> Result<(usize, u8), FrameError> {
    let mut length = [0u8; 4];
    match reader.read_exact(&mut length).await {
        Ok(_) => {}
        Err(error) if error.kind() == std::io::ErrorKind::UnexpectedEof => return Err(FrameError::Closed),
        Err(error) => return Err(error.into()),
    }
    let length = u32::from_be_bytes(length) as usize;
    if length == 0 {
        return Err(FrameError::Empty);
    }
    if length > max {
        return Err(FrameError::TooLarge(length, max));
    }
    let mut kind = [0u8; 1];
    reader.read_exact(&mut kind).await?;
    Ok((length - 1, kind[0]))
}

/// Reads one frame of at most `max` bytes. A clean end of the stream
/// between frames is [`FrameError::Closed`].
pub async fn read_frame(reader: &mut (impl AsyncRead + Unpin), max: usize) -> Result<Frame, FrameError> {
    let (rest, kind) = read_head(reader, max).await?;
    Ok(Frame { kind, body: read_body(reader, rest).await? })
}

/// Frames up to this long are read without asking [`FrameRoom`]: requests
/// and hellos are far shorter.
pub const SMALL_FRAME_BYTES: usize = 64 * 1024;

/// The room that frames longer than [`SMALL_FRAME_BYTES`] may take at once,
/// shared by every connection of a server: a frame is read only once its
/// length fits, so clients that announce long frames and never finish them
/// hold this much at most between them, not each.
#[derive(Clone)]
pub struct FrameRoom {
    bytes: std::sync::Arc<tokio::sync::Semaphore>,
    total: usize,
}

impl FrameRoom {
    pub fn new(total: usize) -> FrameRoom {
        let total = total.clamp(1, tokio::sync::Semaphore::MAX_PERMITS);
        FrameRoom { bytes: std::sync::Arc::new(tokio::sync::Semaphore::new(total)), total }
    }

    /// Room for a body of `length` bytes (all of it, if it is longer).
    async fn take(&self, length: usize) -> tokio::sync::OwnedSemaphorePermit {
        let wanted = u32::try_from(length.min(self.total)).unwrap_or(u32::MAX);
        self.bytes.clone().acquire_many_owned(wanted).await.expect("the room is never closed")
    }

    /// Bytes free now.
    pub fn free(&self) -> usize {
        self.bytes.available_permits()
    }
}

/// A frame as read, with the room it holds until it is dropped.
#[derive(Debug)]
pub struct RoomyFrame {
    pub frame: Frame,
    pub _room: Option<tokio::sync::OwnedSemaphorePermit>,
}

/// As [`read_frame`], waiting as long as it takes for a frame to begin, but
/// then no longer than `deadline` for its head, and (once `room` has room
/// for it, when it is long) no longer than `deadline` for its body: a peer
/// that sends half a frame and stalls is let go ([`FrameError::Unfinished`]),
/// while one that is quiet between frames is not.
pub async fn read_frame_within(
    reader: &mut (impl AsyncRead + Unpin),
    max: usize,
    deadline: std::time::Duration,
    room: &FrameRoom,
) -> Result<RoomyFrame, FrameError> {
    let mut first = [0u8; 1];
    match reader.read_exact(&mut first).await {
        Ok(_) => {}
        Err(error) if error.kind() == std::io::ErrorKind::UnexpectedEof => return Err(FrameError::Closed),
        Err(error) => return Err(error.into()),
    }
    let mut reader = (&first[..]).chain(&mut *reader);
    let head = tokio::time::timeout(deadline, read_head(&mut reader, max)).await;
    let (rest, kind) = head.map_err(|_| FrameError::Unfinished(deadline))?.map_err(|error| match error {
        // The first byte came: an end now is an end in the middle of a frame.
        FrameError::Closed => FrameError::Io(std::io::ErrorKind::UnexpectedEof.into()),
        other => other,
    })?;
    // Waiting for room holds nothing but the head.
    let held = if rest > SMALL_FRAME_BYTES { Some(room.take(rest).await) } else { None };
    let body = tokio::time::timeout(deadline, read_body(&mut reader, rest)).await;
    let body = body.map_err(|_| FrameError::Unfinished(deadline))??;
    Ok(RoomyFrame { frame: Frame { kind, body }, _room: held })
}

/// Frames longer than this are written as their head and then their body,
/// not copied into one buffer first.
const COPIED_FRAME_BYTES: usize = 16 * 1024;

/// Writes one frame.
pub async fn write_frame(writer: &mut (impl AsyncWrite + Unpin), frame: &Frame) -> std::io::Result<()> {
    if frame.body.len() <= COPIED_FRAME_BYTES {
        return writer.write_all(&frame.encode()).await;
    }
    writer.write_all(&frame.head()).await?;
    writer.write_all(&frame.body).await
}

/// A frame as a client reads it: terminal output comes apart from its
/// stream number, with no copy.
#[derive(Debug)]
pub enum Incoming {
    Message(Vec<u8>),
    Output {
        stream: u32,
        bytes: Vec<u8>,
    },
    /// A kind this build does not know.
    Other,
}

/// Reads one frame of at most `max` bytes, as [`Incoming`].
pub async fn read_incoming(reader: &mut (impl AsyncRead + Unpin), max: usize) -> Result<Incoming, FrameError> {
    let (rest, kind) = read_head(reader, max).await?;
    if kind == OUTPUT && rest >= 4 {
        let mut stream = [0u8; 4];
        reader.read_exact(&mut stream).await?;
        let bytes = read_body(reader, rest - 4).await?;
        return Ok(Incoming::Output { stream: u32::from_be_bytes(stream), bytes });
    }
    let body = read_body(reader, rest).await?;
    Ok(if kind == MESSAGE { Incoming::Message(body) } else { Incoming::Other })
}

/// The build identity a program stamped itself with at its start
/// ([`stamp_build`]): one per process, set before any engine or client runs.
static BUILD_STAMP: std::sync::OnceLock<String> = std::sync::OnceLock::new();

/// Stamps this process with the identity its build compiled in (the app's
/// `build.rs` hashes the sources it was built from): the same build says
/// the same wherever it is installed, another build says another. Called
/// once, first thing in `main`; a second stamp is ignored.
pub fn stamp_build(id: &str) {
    let _ = BUILD_STAMP.set(id.to_owned());
}

/// Tells apart builds of one version: the identity the program stamped
/// itself with, or the version alone for a program that stamps none (the
/// test programs: builds of one source say the same).
pub fn build_id() -> String {
    match BUILD_STAMP.get() {
        Some(stamp) => stamp.clone(),
        None => format!("{}+unstamped", env!("CARGO_PKG_VERSION")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn frames_read_back_as_written_and_oversized_or_empty_ones_are_refused() {
        let (mut a, mut b) = tokio::io::duplex(1024);
        write_frame(&mut a, &Frame::output(7, b"\x1b[31mred\r\n")).await.unwrap();
        write_frame(&mut a, &Frame::message(&ClientFrame::Request { id: 3, request: ClientRequest::Ping }))
            .await
            .unwrap();
        let output = read_frame(&mut b, 100).await.unwrap();
        assert_eq!(output.as_output(), Some((7, &b"\x1b[31mred\r\n"[..])));
        // A long one, written in two parts, read apart from its stream number.
        let long = vec![b'x'; COPIED_FRAME_BYTES * 2];
        let (mut c, mut d) = tokio::io::duplex(1 << 20);
        write_frame(&mut c, &Frame::output(9, &long)).await.unwrap();
        match read_incoming(&mut d, 1 << 20).await.unwrap() {
            Incoming::Output { stream, bytes } => assert_eq!((stream, bytes), (9, long)),
            other => panic!("{other:?}"),
        }
        let message = read_frame(&mut b, 100).await.unwrap();
        let parsed: ClientFrame = serde_json::from_slice(&message.body).unwrap();
        assert_eq!(parsed, ClientFrame::Request { id: 3, request: ClientRequest::Ping });

        a.write_all(&1000u32.to_be_bytes()).await.unwrap();
        assert!(matches!(read_frame(&mut b, 100).await, Err(FrameError::TooLarge(1000, 100))));
        let (mut a, mut b) = tokio::io::duplex(64);
        a.write_all(&0u32.to_be_bytes()).await.unwrap();
        assert!(matches!(read_frame(&mut b, 100).await, Err(FrameError::Empty)));
        drop(a);
        assert!(matches!(read_frame(&mut b, 100).await, Err(FrameError::Closed)));
    }

    #[tokio::test(start_paused = true)]
    async fn a_frame_begun_must_end_within_its_deadline_but_a_quiet_peer_may_wait() {
        let deadline = std::time::Duration::from_secs(5);
        // Quiet between frames: still waiting long after the deadline (the
        // clock is the test's own, advanced while everything waits).
        let (_quiet, mut b) = tokio::io::duplex(64);
        let waited =
            tokio::time::timeout(deadline * 20, read_frame_within(&mut b, 1 << 20, deadline, &FrameRoom::new(1 << 20)))
                .await;
        assert!(waited.is_err(), "a quiet peer was cut off: {waited:?}");
        // Half a frame, then nothing: let go at the deadline.
        let (mut a, mut b) = tokio::io::duplex(64);
        a.write_all(&[0, 0, 1, 0, MESSAGE, b'{']).await.unwrap();
        let read = read_frame_within(&mut b, 1 << 20, deadline, &FrameRoom::new(1 << 20)).await;
        assert!(matches!(read, Err(FrameError::Unfinished(_))), "{read:?}");
        // A whole frame, in pieces, is read.
        let (mut a, mut b) = tokio::io::duplex(64);
        let bytes = Frame::message(&ClientFrame::Request { id: 1, request: ClientRequest::Ping }).encode();
        let writer = tokio::spawn(async move {
            for byte in bytes {
                a.write_all(&[byte]).await.unwrap();
                tokio::time::sleep(std::time::Duration::from_millis(10)).await;
            }
            a
        });
        let frame = read_frame_within(&mut b, 1 << 20, deadline, &FrameRoom::new(1 << 20)).await.unwrap().frame;
        assert_eq!(
            serde_json::from_slice::<ClientFrame>(&frame.body).unwrap(),
            ClientFrame::Request { id: 1, request: ClientRequest::Ping }
        );
        drop(writer.await.unwrap());
        assert!(matches!(
            read_frame_within(&mut b, 1 << 20, deadline, &FrameRoom::new(1 << 20)).await,
            Err(FrameError::Closed)
        ));
    }

    #[tokio::test(start_paused = true)]
    async fn long_frames_are_read_only_as_their_room_allows_and_short_ones_always() {
        let deadline = std::time::Duration::from_secs(5);
        let room = FrameRoom::new(SMALL_FRAME_BYTES * 3);
        let long = |n: usize| Frame { kind: MESSAGE, body: vec![b'x'; n] }.encode();
        let (mut a, mut b) = tokio::io::duplex(1 << 20);
        a.write_all(&long(SMALL_FRAME_BYTES * 2)).await.unwrap();
        let first = read_frame_within(&mut b, MAX_FRAME_BYTES, deadline, &room).await.unwrap();
        assert_eq!(room.free(), SMALL_FRAME_BYTES);
        // Another long one waits for room, however long, holding nothing but its head.
        let (mut c, mut d) = tokio::io::duplex(1 << 20);
        c.write_all(&long(SMALL_FRAME_BYTES * 2)).await.unwrap();
        let waiting = tokio::time::timeout(deadline * 4, read_frame_within(&mut d, MAX_FRAME_BYTES, deadline, &room));
        assert!(waiting.await.is_err(), "a long frame was read past its room");
        // A short one is read meanwhile.
        a.write_all(&long(100)).await.unwrap();
        assert_eq!(read_frame_within(&mut b, MAX_FRAME_BYTES, deadline, &room).await.unwrap().frame.body.len(), 100);
        // Room again once the first is let go: the second is read whole.
        drop(first);
        let (mut c, mut d) = tokio::io::duplex(1 << 20);
        c.write_all(&long(SMALL_FRAME_BYTES * 2)).await.unwrap();
        let second = read_frame_within(&mut d, MAX_FRAME_BYTES, deadline, &room).await.unwrap();
        assert_eq!(second.frame.body.len(), SMALL_FRAME_BYTES * 2);
        // A frame longer than all the room takes all of it.
        drop(second);
        let (mut c, mut d) = tokio::io::duplex(1 << 20);
        c.write_all(&long(SMALL_FRAME_BYTES * 4)).await.unwrap();
        assert!(read_frame_within(&mut d, MAX_FRAME_BYTES, deadline, &room).await.is_ok());
    }

    #[tokio::test]
    async fn a_frame_is_held_as_far_as_its_bytes_came_not_as_far_as_its_header_claims() {
        // A header claiming 16 MiB and a few bytes: the buffer holds what came.
        let (mut a, mut b) = tokio::io::duplex(1 << 16);
        let claimed = MAX_FRAME_BYTES as u32;
        a.write_all(&claimed.to_be_bytes()).await.unwrap();
        a.write_all(&[MESSAGE; 100]).await.unwrap();
        drop(a);
        let (rest, _) = read_head(&mut b, MAX_FRAME_BYTES).await.unwrap();
        let mut body = Vec::with_capacity(rest.min(FIRST_ROOM));
        let got = (&mut b).take(rest as u64).read_to_end(&mut body).await.unwrap();
        assert_eq!(got, 99);
        assert!(body.capacity() <= FIRST_ROOM, "{} bytes held for 99 that came", body.capacity());
        assert!(
            matches!(read_body(&mut tokio::io::empty(), 10).await, Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof)
        );
    }

    #[test]
    fn a_pushed_kind_from_a_newer_engine_reads_as_unknown_not_as_an_error() {
        let frame: ServerFrame = serde_json::from_str(r#"{"type":"geometry","stream":1,"rows":3}"#).unwrap();
        assert_eq!(frame, ServerFrame::Unknown);
        let kind: ClientKind = serde_json::from_str(r#""phone""#).unwrap();
        assert_eq!(kind, ClientKind::Other);
    }
}
