//! One framed connection (`crate::wire`): the hello, then requests served
//! each in a task of its own, events and terminal output pushed.
//!
//! Two queues feed the socket: answers go ahead of everything else, and
//! events and output follow in order behind them. Output never blocks the
//! engine: a terminal whose client has [`OUTPUT_BUDGET`] bytes waiting is
//! dropped as behind (the client attaches again for the replay), and events
//! past [`EVENT_BUDGET`] are counted as missed and said so once the client
//! has caught up. A client that goes, stalls or sends garbage leaves every
//! agent as it was: its streams are detached when the connection ends.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU8, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::Serialize;
use switchboard_protocol::SessionId;
use tokio::io::BufReader;
use tokio::net::unix::{OwnedReadHalf, OwnedWriteHalf};
use tokio::sync::{broadcast, mpsc};
use tokio::task::JoinSet;

use super::{Caller, RequestHandler, ServerStats, SocketRequest};
use crate::api::{ApiError, EngineEvent, ErrorCode, Reply};
use crate::session::{OutputSink, SubscriptionId};
use crate::wire::{
    Answer, ClientFrame, ClientKind, ClientRequest, Frame, Hello, MAX_FRAME_BYTES, MAX_HELLO_BYTES, MESSAGE, PROTOCOL,
    ServerFrame, ServerHello, StreamEnd, read_frame, write_frame,
};

/// How long a client has to say hello.
pub const HELLO_DEADLINE: Duration = Duration::from_secs(10);
/// Terminal output waiting for one client beyond which its streams are dropped as behind.
pub const OUTPUT_BUDGET: usize = 8 * 1024 * 1024;
/// Events waiting for one client beyond which further ones are dropped (and counted).
pub const EVENT_BUDGET: usize = 16 * 1024 * 1024;

/// An event as it is written: the same JSON a [`ServerFrame::Event`] reads.
#[derive(Serialize)]
#[serde(tag = "type", rename = "event")]
struct EventOut<'a> {
    seq: u64,
    event: &'a EngineEvent,
}

/// What waits to be written, and how many bytes of it.
#[derive(Clone)]
struct Outbox {
    answers: mpsc::UnboundedSender<Frame>,
    stream: mpsc::UnboundedSender<Frame>,
    queued: Arc<AtomicUsize>,
}

impl Outbox {
    fn answer(&self, id: u64, answer: Answer) {
        self.answers.send(Frame::message(&ServerFrame::Reply { id, answer })).ok();
    }

    /// Queues `frame` behind earlier output; false if the connection is gone.
    fn push(&self, frame: Frame) -> bool {
        self.queued.fetch_add(frame.body.len(), Ordering::SeqCst);
        self.stream.send(frame).is_ok()
    }

    fn queued(&self) -> usize {
        self.queued.load(Ordering::SeqCst)
    }
}

const ENDED: u8 = 0;
const BEHIND: u8 = 1;
const DETACHED: u8 = 2;

/// A terminal stream's end of the session's output.
struct StreamSink {
    stream: u32,
    outbox: Outbox,
    why_ended: Arc<AtomicU8>,
}

impl OutputSink for StreamSink {
    fn deliver(&mut self, batch: &[u8]) -> bool {
        if self.outbox.queued() > OUTPUT_BUDGET {
            self.why_ended.store(BEHIND, Ordering::SeqCst);
            return false;
        }
        self.outbox.push(Frame::output(self.stream, batch))
    }
}

impl Drop for StreamSink {
    fn drop(&mut self) {
        let why = match self.why_ended.load(Ordering::SeqCst) {
            BEHIND => StreamEnd::Behind,
            DETACHED => StreamEnd::Detached,
            _ => StreamEnd::Ended,
        };
        self.outbox.push(Frame::message(&ServerFrame::StreamEnded { stream: self.stream, why }));
    }
}

/// A stream the client attached.
struct Attached {
    session_id: SessionId,
    subscription: SubscriptionId,
    why_ended: Arc<AtomicU8>,
}

pub(super) async fn serve<H: RequestHandler>(
    mut read: BufReader<OwnedReadHalf>,
    mut write: OwnedWriteHalf,
    handler: Arc<H>,
    caller: Caller,
    stats: Arc<ServerStats>,
) {
    let Some(hello) = hello(&mut read, &mut write, handler.as_ref(), &stats).await else { return };
    tracing::debug!(kind = ?hello.client_kind, version = %hello.app_version, "a client connected");
    let (answers, answers_rx) = mpsc::unbounded_channel();
    let (stream, stream_rx) = mpsc::unbounded_channel();
    let outbox = Outbox { answers, stream, queued: Arc::default() };
    // Its writer and its events follow the connection: when the connection's
    // task ends or is dropped (the server stopping), they go with it, and the
    // socket closes, which tells the client.
    let writer = Owned(tokio::spawn(write_out(write, answers_rx, stream_rx, outbox.queued.clone())));
    let streams: Arc<Mutex<HashMap<u32, Attached>>> = Arc::default();
    let mut requests = JoinSet::new();
    let mut events: Option<(Owned, Option<crate::sink::WindowSubscribed>)> = None;
    loop {
        while requests.try_join_next().is_some() {}
        let frame = match read_frame(&mut read, MAX_FRAME_BYTES).await {
            Ok(frame) if frame.kind == MESSAGE => frame,
            Ok(_) | Err(_) => break,
        };
        let (id, request) = match parse_request(&frame.body) {
            Ok(ClientFrame::Request { id, request }) => (id, request),
            Err((id, why)) => {
                stats.malformed.fetch_add(1, Ordering::Relaxed);
                tracing::warn!(%why, "a malformed request on the socket");
                match id {
                    Some(id) => {
                        outbox.answer(id, error(ErrorCode::InvalidInput, why));
                        continue;
                    }
                    None => break,
                }
            }
        };
        match request {
            // A window's flow control holds the agent back for its own views of
            // the session only: another window's resume does not undo it.
            ClientRequest::Command { command: crate::api::Command::SetOutputPaused { session_id, paused } }
                if streams.lock().expect("never poisoned").values().any(|a| a.session_id == session_id) =>
            {
                let views: Vec<SubscriptionId> = streams
                    .lock()
                    .expect("never poisoned")
                    .values()
                    .filter(|a| a.session_id == session_id)
                    .map(|a| a.subscription)
                    .collect();
                let (handler, outbox) = (handler.clone(), outbox.clone());
                requests.spawn(async move {
                    let mut answer = Answer::Ok { reply: Reply::Unit };
                    for view in views {
                        if let Err(error) = handler.pause_view(session_id.clone(), view, paused).await {
                            answer = Answer::Error { error: error.into() };
                        }
                    }
                    outbox.answer(id, answer);
                });
            }
            ClientRequest::Command { command } => {
                let (handler, outbox) = (handler.clone(), outbox.clone());
                requests.spawn(async move {
                    let answer = match handler.handle(SocketRequest::Command { command }, caller).await {
                        Ok(reply) => Answer::Ok { reply },
                        Err(error) => Answer::Error { error: error.into() },
                    };
                    outbox.answer(id, answer);
                });
            }
            ClientRequest::Subscribe => {
                let answer = match (&events, handler.feed()) {
                    (Some(_), _) => error(ErrorCode::InvalidInput, "this connection follows the events already".into()),
                    (None, None) => error(ErrorCode::EngineStopped, "this engine sends no events".into()),
                    (None, Some(feed)) => {
                        // A window is counted as it subscribes: the daemon leaves it the notices.
                        let (receiver, seq, window) = match hello.client_kind {
                            ClientKind::Window => {
                                let (receiver, seq, window) = feed.subscribe_window();
                                (receiver, seq, Some(window))
                            }
                            _ => {
                                let (receiver, seq) = feed.subscribe();
                                (receiver, seq, None)
                            }
                        };
                        events = Some((Owned(tokio::spawn(forward_events(receiver, outbox.clone()))), window));
                        Answer::Subscribed { instance_id: feed.instance_id.clone(), seq }
                    }
                };
                outbox.answer(id, answer);
            }
            ClientRequest::Attach { session_id, stream } => {
                let (handler, outbox, streams) = (handler.clone(), outbox.clone(), streams.clone());
                requests.spawn(async move {
                    if streams.lock().expect("never poisoned").contains_key(&stream) {
                        let why = format!("stream {stream} is attached already");
                        return outbox.answer(id, error(ErrorCode::InvalidInput, why));
                    }
                    let why_ended = Arc::new(AtomicU8::new(ENDED));
                    let sink = StreamSink { stream, outbox: outbox.clone(), why_ended: why_ended.clone() };
                    match handler.attach(session_id.clone(), Box::new(sink)).await {
                        Ok(subscription) => {
                            let attached = Attached { session_id, subscription, why_ended };
                            streams.lock().expect("never poisoned").insert(stream, attached);
                            outbox.answer(id, Answer::Ok { reply: Reply::Unit });
                        }
                        Err(error) => outbox.answer(id, Answer::Error { error: error.into() }),
                    }
                });
            }
            ClientRequest::Detach { stream } => {
                let attached = streams.lock().expect("never poisoned").remove(&stream);
                let (handler, outbox) = (handler.clone(), outbox.clone());
                requests.spawn(async move {
                    if let Some(attached) = attached {
                        attached.why_ended.store(DETACHED, Ordering::SeqCst);
                        handler.detach(attached.session_id, attached.subscription).await;
                    }
                    outbox.answer(id, Answer::Ok { reply: Reply::Unit });
                });
            }
            ClientRequest::Ping => outbox.answer(id, Answer::Pong),
        }
    }
    // The client is gone (or spoke garbage): nothing of its stays attached.
    requests.abort_all();
    drop(events);
    let attached: Vec<Attached> = streams.lock().expect("never poisoned").drain().map(|(_, a)| a).collect();
    for attached in attached {
        attached.why_ended.store(DETACHED, Ordering::SeqCst);
        handler.detach(attached.session_id, attached.subscription).await;
    }
    drop(writer);
}

/// A task of the connection's, ended when it is dropped.
struct Owned(tokio::task::JoinHandle<()>);

impl Drop for Owned {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Reads the client's hello and answers it; none if the connection ends here.
async fn hello<H: RequestHandler>(
    read: &mut BufReader<OwnedReadHalf>,
    write: &mut OwnedWriteHalf,
    handler: &H,
    stats: &ServerStats,
) -> Option<Hello> {
    let frame = match tokio::time::timeout(HELLO_DEADLINE, read_frame(read, MAX_HELLO_BYTES)).await {
        Ok(Ok(frame)) if frame.kind == MESSAGE => frame,
        other => {
            stats.malformed.fetch_add(1, Ordering::Relaxed);
            tracing::warn!(?other, "a socket client said no hello");
            return None;
        }
    };
    // The protocol is read on its own: a hello of any version says it.
    let protocol =
        serde_json::from_slice::<serde_json::Value>(&frame.body).ok().and_then(|value| value.get("protocol")?.as_u64());
    let hello = serde_json::from_slice::<Hello>(&frame.body);
    let answer = match (protocol, hello) {
        (Some(protocol), Ok(hello)) if protocol == u64::from(PROTOCOL) => {
            let welcome = ServerHello::Welcome(handler.welcome().await);
            return write_frame(write, &Frame::message(&welcome)).await.is_ok().then_some(hello);
        }
        (Some(protocol), _) => {
            stats.refused_protocols.fetch_add(1, Ordering::Relaxed);
            ServerHello::Refused {
                protocol: PROTOCOL,
                engine_version: env!("CARGO_PKG_VERSION").to_owned(),
                reason: format!(
                    "this program speaks version {protocol} of the engine's protocol, and the engine running \
                     (Switchboard {}) speaks version {PROTOCOL}",
                    env!("CARGO_PKG_VERSION")
                ),
            }
        }
        (None, _) => {
            stats.malformed.fetch_add(1, Ordering::Relaxed);
            tracing::warn!("a socket client's hello is not one");
            return None;
        }
    };
    write_frame(write, &Frame::message(&answer)).await.ok();
    None
}

/// A request, or why it is not one (with its id when that could be read).
fn parse_request(body: &[u8]) -> Result<ClientFrame, (Option<u64>, String)> {
    serde_json::from_slice::<ClientFrame>(body).map_err(|why| {
        let id = serde_json::from_slice::<serde_json::Value>(body).ok().and_then(|value| value.get("id")?.as_u64());
        (id, format!("not a request this engine knows: {why}"))
    })
}

fn error(code: ErrorCode, message: String) -> Answer {
    Answer::Error { error: ApiError { code, message, field: None, problems: Vec::new() } }
}

/// Follows the engine's events into the connection's queue.
async fn forward_events(mut receiver: broadcast::Receiver<crate::sink::Sequenced>, outbox: Outbox) {
    let mut missed = 0u64;
    loop {
        let sequenced = match receiver.recv().await {
            Ok(sequenced) => sequenced,
            Err(broadcast::error::RecvError::Lagged(count)) => {
                missed += count;
                continue;
            }
            Err(broadcast::error::RecvError::Closed) => return,
        };
        if outbox.queued() > EVENT_BUDGET {
            missed += 1;
            continue;
        }
        if missed > 0 && !outbox.push(Frame::message(&ServerFrame::EventsLost { missed: std::mem::take(&mut missed) }))
        {
            return;
        }
        let event = EventOut { seq: sequenced.seq, event: &sequenced.event };
        if !outbox.push(Frame::message(&event)) {
            return;
        }
    }
}

/// Writes answers first, then events and output in order, until the
/// connection closes.
async fn write_out(
    mut write: OwnedWriteHalf,
    mut answers: mpsc::UnboundedReceiver<Frame>,
    mut stream: mpsc::UnboundedReceiver<Frame>,
    queued: Arc<AtomicUsize>,
) {
    loop {
        let frame = tokio::select! {
            biased;
            Some(frame) = answers.recv() => frame,
            Some(frame) = stream.recv() => {
                queued.fetch_sub(frame.body.len(), Ordering::SeqCst);
                frame
            }
            else => return,
        };
        if write_frame(&mut write, &frame).await.is_err() {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_event_as_written_reads_back_as_the_event_frame() {
        let event = EngineEvent::StorageChanged { problem: None };
        let frame = Frame::message(&EventOut { seq: 9, event: &event });
        let read: ServerFrame = serde_json::from_slice(&frame.body).unwrap();
        let ServerFrame::Event { seq, event: value } = read else { panic!("{read:?}") };
        assert_eq!(seq, 9);
        assert_eq!(serde_json::from_value::<EngineEvent>(value).unwrap(), event);
    }

    #[test]
    fn a_request_this_engine_does_not_know_is_refused_by_its_id() {
        let refused = parse_request(br#"{"type":"request","id":4,"request":{"type":"teleport"}}"#).unwrap_err();
        assert_eq!(refused.0, Some(4));
        assert!(parse_request(b"garbage").unwrap_err().0.is_none());
    }
}
