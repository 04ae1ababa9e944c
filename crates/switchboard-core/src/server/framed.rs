//! One framed connection (`switchboard_api::wire`): the hello, then requests served
//! each in a task of its own, events and terminal output pushed.
//!
//! Two queues feed the socket: answers go ahead of everything else, and
//! events and output follow in order behind them. Both are bounded. Each
//! request read holds one of the connection's [`SocketLimits::in_flight`]
//! places until its answer is written, and the connection is not read while
//! none is free: a client that sends and never reads holds that many answers
//! at most. Output never blocks the engine: a terminal whose client has
//! [`SocketLimits::output_budget`] bytes waiting is dropped as behind (the
//! client attaches again for the replay), an attach waits until what waits
//! is below half the budget (its replay then always fits), and events past
//! [`SocketLimits::event_budget`] are counted as missed and said so once the client has
//! caught up. A client that goes, stalls or sends garbage leaves every agent
//! as it was: its streams are detached when the connection ends.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::Serialize;
use switchboard_protocol::SessionId;
use tokio::io::{AsyncBufRead, AsyncWrite, AsyncWriteExt};
use tokio::sync::{Notify, OwnedSemaphorePermit, Semaphore, broadcast, mpsc};
use tokio::task::JoinSet;

use super::{Caller, RequestHandler, ServerStats, SocketRequest};
use crate::session::{OutputSink, SubscriptionId};
use switchboard_api::wire::{
    Answer, ClientFrame, ClientKind, ClientRequest, Frame, FrameError, Hello, MAX_FRAME_BYTES, MAX_HELLO_BYTES,
    MESSAGE, PROTOCOL, ServerFrame, ServerHello, StreamEnd, read_frame, read_frame_within, write_frame,
};
use switchboard_api::{ApiError, EngineEvent, ErrorCode, Reply};
/// The most written to a client in one go: a write that makes no progress
/// for [`SocketLimits::write_stall`] is judged chunk by chunk, so a long
/// frame to a slow reader is not taken for a stalled one.
const WRITE_CHUNK: usize = 64 * 1024;

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
    answers: mpsc::UnboundedSender<(Frame, OwnedSemaphorePermit)>,
    stream: mpsc::UnboundedSender<Frame>,
    queued: Arc<AtomicUsize>,
    /// Told whenever the writer takes output off the queue.
    drained: Arc<Notify>,
    budget: usize,
}

impl Outbox {
    /// Queues an answer; its request's place is free once it is written.
    fn answer(&self, id: u64, answer: Answer, place: OwnedSemaphorePermit) {
        self.answers.send((Frame::message(&ServerFrame::Reply { id, answer }), place)).ok();
    }

    /// Queues `frame` behind earlier output; false if the connection is gone.
    fn push(&self, frame: Frame) -> bool {
        self.queued.fetch_add(frame.body.len(), Ordering::SeqCst);
        self.stream.send(frame).is_ok()
    }

    fn queued(&self) -> usize {
        self.queued.load(Ordering::SeqCst)
    }

    /// Waits until what waits for the client is below half the budget.
    async fn room(&self) {
        loop {
            let drained = self.drained.notified();
            tokio::pin!(drained);
            drained.as_mut().enable();
            if self.queued() <= self.budget / 2 {
                return;
            }
            drained.await;
        }
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
    /// The first delivery (the replay) was made room for before the attach
    /// ([`Outbox::room`]): it is taken whatever the others have queued since.
    first_delivered: bool,
}

impl OutputSink for StreamSink {
    fn deliver(&mut self, batch: &[u8]) -> bool {
        if self.first_delivered && self.outbox.queued() > self.outbox.budget {
            self.why_ended.store(BEHIND, Ordering::SeqCst);
            return false;
        }
        self.first_delivered = true;
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

/// Serves one framed connection over `read` and `write`: a Unix socket's
/// halves, or a paired browser's WebSocket carried in memory (`crate::web`).
pub(super) async fn serve<H: RequestHandler>(
    mut read: impl AsyncBufRead + Unpin + Send,
    mut write: impl AsyncWrite + Unpin + Send + 'static,
    handler: Arc<H>,
    caller: Caller,
    stats: Arc<ServerStats>,
    bounds: &super::Bounds,
    spoke: &AtomicBool,
) {
    let (limits, room) = (&bounds.limits, &bounds.room);
    let Some(hello) = hello(&mut read, &mut write, handler.as_ref(), &stats, limits.hello_deadline).await else {
        return;
    };
    spoke.store(true, Ordering::Relaxed);
    let kind = kind_of(caller, &hello);
    tracing::debug!(?kind, version = %hello.app_version, "a client connected");
    let (answers, answers_rx) = mpsc::unbounded_channel();
    let (stream, stream_rx) = mpsc::unbounded_channel();
    let outbox = Outbox {
        answers,
        stream,
        queued: Arc::default(),
        drained: Arc::new(Notify::new()),
        budget: limits.output_budget,
    };
    // Its writer and its events follow the connection: when the connection's
    // task ends or is dropped (the server stopping), they go with it, and the
    // socket closes, which tells the client.
    let mut writer = Owned(tokio::spawn(write_out(
        write,
        answers_rx,
        stream_rx,
        outbox.clone(),
        (limits.write_stall, limits.keepalive),
        stats.clone(),
    )));
    let places = Arc::new(Semaphore::new(limits.in_flight.max(1)));
    let mut connection = Connection {
        handler,
        outbox,
        caller,
        kind,
        max_streams: limits.max_streams,
        event_budget: limits.event_budget,
        attaching: Arc::default(),
        streams: Arc::default(),
        requests: JoinSet::new(),
        events: None,
    };
    loop {
        while connection.requests.try_join_next().is_some() {}
        // Nothing more is read while every place waits for its answer to be
        // written; a writer that ended (the client reads nothing, or is gone)
        // ends the connection.
        let place = match places.clone().try_acquire_owned() {
            Ok(place) => place,
            Err(_) => {
                stats.held_back.fetch_add(1, Ordering::Relaxed);
                tokio::select! {
                    place = places.clone().acquire_owned() => place.expect("the semaphore is never closed"),
                    _ = &mut writer.0 => break,
                }
            }
        };
        let read = tokio::select! {
            read = read_frame_within(&mut read, MAX_FRAME_BYTES, limits.frame_deadline, room) => read,
            _ = &mut writer.0 => break,
        };
        let frame = match read {
            Ok(read) if read.frame.kind == MESSAGE => read,
            Err(FrameError::Unfinished(deadline)) => {
                stats.cut_off.fetch_add(1, Ordering::Relaxed);
                tracing::warn!(?deadline, "a socket client began a frame and did not finish it");
                break;
            }
            Ok(_) | Err(_) => break,
        };
        let (id, request) = match parse_request(&frame.frame.body) {
            Ok(ClientFrame::Request { id, request }) => (id, request),
            Err((id, why)) => {
                stats.malformed.fetch_add(1, Ordering::Relaxed);
                tracing::warn!(%why, "a malformed request on the socket");
                match id {
                    Some(id) => {
                        connection.outbox.answer(id, error(ErrorCode::InvalidInput, why), place);
                        continue;
                    }
                    None => break,
                }
            }
        };
        drop(frame);
        connection.take(id, request, place);
    }
    connection.close().await;
    drop(writer);
    // The connection's outbox goes after its writer, as the writer ends.
    drop(connection);
}

/// What a client is taken for: what its hello says, but a paired browser is
/// one whatever its hello says: it never counts as a window (the desktop's
/// notices do not wait on it), nor sends as one.
fn kind_of(caller: Caller, hello: &Hello) -> ClientKind {
    match caller {
        Caller::Device { .. } => ClientKind::Browser,
        _ => hello.client_kind,
    }
}

/// One client's connection, as its requests find it.
struct Connection<H> {
    handler: Arc<H>,
    outbox: Outbox,
    caller: Caller,
    kind: ClientKind,
    /// The most terminals attached at once.
    max_streams: usize,
    /// The events a subscriber may fall behind by.
    event_budget: usize,
    /// Attaches wait for room one at a time, so their replays never add up.
    attaching: Arc<tokio::sync::Mutex<()>>,
    streams: Arc<Mutex<HashMap<u32, Attached>>>,
    requests: JoinSet<()>,
    events: Option<(Owned, Option<crate::sink::WindowSubscribed>)>,
}

impl<H: RequestHandler> Connection<H> {
    /// Takes a request up; its answer goes out once it has one.
    fn take(&mut self, id: u64, request: ClientRequest, place: OwnedSemaphorePermit) {
        match request {
            // A window's flow control holds the agent back for its own views of
            // the session only: another window's resume does not undo it.
            // Another machine is reached only by the engine serving a browser, for it (`web::Beyond`).
            ClientRequest::Command { host: Some(host), .. } => {
                let error = ApiError {
                    code: ErrorCode::InvalidInput,
                    message: format!("This connection reaches no other machine, so nothing was sent to {host}."),
                    field: Some("host".into()),
                    problems: Vec::new(),
                };
                self.outbox.answer(id, Answer::Error { error }, place);
            }
            ClientRequest::Command {
                command: switchboard_api::Command::SetOutputPaused { session_id, paused },
                ..
            } if self.streams.lock().expect("never poisoned").values().any(|a| a.session_id == session_id) => {
                self.pause_views(id, session_id, paused, place);
            }
            ClientRequest::Command { command, host: None } => self.command(id, command, place),
            ClientRequest::Machines => self.outbox.answer(id, Answer::Machines { links: Vec::new() }, place),
            ClientRequest::Subscribe => {
                let answer = self.subscribe();
                self.outbox.answer(id, answer, place);
            }
            ClientRequest::Attach { session_id, stream } => self.attach(id, session_id, stream, place),
            ClientRequest::Detach { stream } => self.detach(id, stream, place),
            ClientRequest::Ping => self.outbox.answer(id, Answer::Pong, place),
        }
    }

    fn pause_views(&mut self, id: u64, session_id: SessionId, paused: bool, place: OwnedSemaphorePermit) {
        let views: Vec<SubscriptionId> = self
            .streams
            .lock()
            .expect("never poisoned")
            .values()
            .filter(|a| a.session_id == session_id)
            .map(|a| a.subscription)
            .collect();
        let (handler, outbox) = (self.handler.clone(), self.outbox.clone());
        self.requests.spawn(async move {
            let mut answer = Answer::Ok { reply: Reply::Unit };
            for view in views {
                if let Err(error) = handler.pause_view(session_id.clone(), view, paused).await {
                    answer = Answer::Error { error: error.into() };
                }
            }
            outbox.answer(id, answer, place);
        });
    }

    fn command(&mut self, id: u64, command: switchboard_api::Command, place: OwnedSemaphorePermit) {
        let (handler, outbox, kind, caller) = (self.handler.clone(), self.outbox.clone(), self.kind, self.caller);
        self.requests.spawn(async move {
            let via = super::reach::Via::Client(kind);
            let request = SocketRequest::Command { command };
            let answer = match super::handle(handler.as_ref(), via, request, caller).await {
                Ok(reply) => Answer::Ok { reply },
                Err(error) => Answer::Error { error: error.into() },
            };
            outbox.answer(id, answer, place);
        });
    }

    fn subscribe(&mut self) -> Answer {
        match (&self.events, self.handler.feed()) {
            (Some(_), _) => error(ErrorCode::InvalidInput, "this connection follows the events already".into()),
            (None, None) => error(ErrorCode::EngineStopped, "this engine sends no events".into()),
            (None, Some(feed)) => {
                // A window is counted as it subscribes: the daemon leaves it the notices.
                let (receiver, seq, window) = match self.kind {
                    ClientKind::Window => {
                        let (receiver, seq, window) = feed.subscribe_window();
                        (receiver, seq, Some(window))
                    }
                    _ => {
                        let (receiver, seq) = feed.subscribe();
                        (receiver, seq, None)
                    }
                };
                let forward = forward_events(receiver, self.outbox.clone(), self.event_budget);
                self.events = Some((Owned(tokio::spawn(forward)), window));
                Answer::Subscribed { instance_id: feed.instance_id.clone(), seq }
            }
        }
    }

    fn attach(&mut self, id: u64, session_id: SessionId, stream: u32, place: OwnedSemaphorePermit) {
        let (handler, outbox, streams) = (self.handler.clone(), self.outbox.clone(), self.streams.clone());
        let (attaching, max_streams) = (self.attaching.clone(), self.max_streams);
        self.requests.spawn(async move {
            let refused = {
                let streams = streams.lock().expect("never poisoned");
                if streams.contains_key(&stream) {
                    Some(format!("stream {stream} is attached already"))
                } else if streams.len() >= max_streams {
                    Some(format!("this connection has {max_streams} terminals attached, the most it may"))
                } else {
                    None
                }
            };
            if let Some(why) = refused {
                return outbox.answer(id, error(ErrorCode::InvalidInput, why), place);
            }
            // Other streams may have spent the budget: the attach waits for
            // room, as a stream that fell behind does, rather than fail.
            let turn = attaching.lock().await;
            outbox.room().await;
            let why_ended = Arc::new(AtomicU8::new(ENDED));
            let sink =
                StreamSink { stream, outbox: outbox.clone(), why_ended: why_ended.clone(), first_delivered: false };
            let attached = handler.attach(session_id.clone(), Box::new(sink)).await;
            drop(turn);
            match attached {
                Ok(subscription) => {
                    let attached = Attached { session_id, subscription, why_ended };
                    streams.lock().expect("never poisoned").insert(stream, attached);
                    outbox.answer(id, Answer::Ok { reply: Reply::Unit }, place);
                }
                Err(error) => outbox.answer(id, Answer::Error { error: error.into() }, place),
            }
        });
    }

    fn detach(&mut self, id: u64, stream: u32, place: OwnedSemaphorePermit) {
        let attached = self.streams.lock().expect("never poisoned").remove(&stream);
        let (handler, outbox) = (self.handler.clone(), self.outbox.clone());
        self.requests.spawn(async move {
            if let Some(attached) = attached {
                attached.why_ended.store(DETACHED, Ordering::SeqCst);
                handler.detach(attached.session_id, attached.subscription).await;
            }
            outbox.answer(id, Answer::Ok { reply: Reply::Unit }, place);
        });
    }

    /// The client is gone (or spoke garbage): nothing of its stays attached.
    async fn close(&mut self) {
        self.requests.abort_all();
        drop(self.events.take());
        let attached: Vec<Attached> = self.streams.lock().expect("never poisoned").drain().map(|(_, a)| a).collect();
        for attached in attached {
            attached.why_ended.store(DETACHED, Ordering::SeqCst);
            self.handler.detach(attached.session_id, attached.subscription).await;
        }
    }
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
    read: &mut (impl AsyncBufRead + Unpin),
    write: &mut (impl AsyncWrite + Unpin),
    handler: &H,
    stats: &ServerStats,
    deadline: Duration,
) -> Option<Hello> {
    let frame = match tokio::time::timeout(deadline, read_frame(read, MAX_HELLO_BYTES)).await {
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
async fn forward_events(mut receiver: broadcast::Receiver<crate::sink::Sequenced>, outbox: Outbox, budget: usize) {
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
        if outbox.queued() > budget {
            missed += 1;
            continue;
        }
        if missed > 0 && !outbox.push(Frame::message(&ServerFrame::EventsLost { missed: std::mem::take(&mut missed) }))
        {
            return;
        }
        let body = sequenced.written.get_or_init(|| {
            let event = EventOut { seq: sequenced.seq, event: &sequenced.event };
            serde_json::to_vec(&event).expect("events always serialize")
        });
        if !outbox.push(Frame { kind: MESSAGE, body: body.clone() }) {
            return;
        }
    }
}

/// Writes answers first, then events and output in order, until the
/// connection closes or the client takes nothing for `write_stall`; with
/// nothing to write for `keepalive`, a keepalive (a pushed kind clients
/// skip).
async fn write_out(
    mut write: impl AsyncWrite + Unpin,
    mut answers: mpsc::UnboundedReceiver<(Frame, OwnedSemaphorePermit)>,
    mut stream: mpsc::UnboundedReceiver<Frame>,
    outbox: Outbox,
    (write_stall, keepalive): (Duration, Duration),
    stats: Arc<ServerStats>,
) {
    // The writer's own clone must not keep the queues open.
    let Outbox { queued, drained, .. } = outbox;
    loop {
        let (frame, place) = tokio::select! {
            biased;
            Some((frame, place)) = answers.recv() => (frame, Some(place)),
            Some(frame) = stream.recv() => {
                queued.fetch_sub(frame.body.len(), Ordering::SeqCst);
                drained.notify_waiters();
                (frame, None)
            }
            () = tokio::time::sleep(keepalive) => (Frame::message(&serde_json::json!({"type": "keepalive"})), None),
        };
        match write_within(&mut write, &frame, write_stall).await {
            Ok(()) => drop(place),
            Err(WriteFailed::Stalled) => {
                stats.cut_off.fetch_add(1, Ordering::Relaxed);
                tracing::warn!(?write_stall, "a socket client took nothing the engine wrote; it is let go");
                return;
            }
            Err(WriteFailed::Closed) => return,
        }
    }
}

enum WriteFailed {
    Stalled,
    Closed,
}

/// Writes one frame, each chunk of it within `stall`.
async fn write_within(
    write: &mut (impl AsyncWrite + Unpin),
    frame: &Frame,
    stall: Duration,
) -> Result<(), WriteFailed> {
    let head = frame.head();
    for chunk in std::iter::once(&head[..]).chain(frame.body.chunks(WRITE_CHUNK)) {
        match tokio::time::timeout(stall, write.write_all(chunk)).await {
            Ok(Ok(())) => {}
            Ok(Err(_)) => return Err(WriteFailed::Closed),
            Err(_) => return Err(WriteFailed::Stalled),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_event_as_written_reads_back_as_the_event_frame() {
        let event = EngineEvent::StorageChanged { problem: None };
        let frame = Frame::message(&EventOut { seq: 9, event: &event });
        let read: ServerFrame = serde_json::from_slice(&frame.body).unwrap();
        let ServerFrame::Event { seq, event: value, .. } = read else { panic!("{read:?}") };
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
