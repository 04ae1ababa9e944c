//! Where the engine reports what happened: the one way out of the engine.

use switchboard_protocol::{LoopId, ProfileId, SessionId, TaskId};

use crate::api::{EngineEvent, LogKind, Millis};
use crate::store::{Store, StoreError};

/// Where the engine reports what happened. The desktop shell forwards events
/// to the UI; tests collect them. Called on the engine task: must not block.
pub trait EventSink: Send + Sync + 'static {
    fn emit(&self, event: EngineEvent);
}

/// An engine event with its place in the engine's order, as the socket's
/// subscribers receive it.
#[derive(Debug, Clone)]
pub struct Sequenced {
    pub seq: u64,
    pub event: std::sync::Arc<EngineEvent>,
}

/// Events a socket subscriber may fall behind by before it is told it missed some.
pub const FEED_CAPACITY: usize = 4096;

/// The engine's events for the socket's subscribers (windows, tests), each
/// numbered in order, and who this engine is: an id new at each start.
pub struct EventFeed {
    sender: tokio::sync::broadcast::Sender<Sequenced>,
    seq: std::sync::atomic::AtomicU64,
    pub instance_id: String,
    pub started_at: Millis,
    /// Windows subscribed now: while one is, it shows the notices itself.
    windows: std::sync::atomic::AtomicUsize,
}

impl EventFeed {
    pub fn new(started_at: Millis) -> EventFeed {
        EventFeed {
            sender: tokio::sync::broadcast::channel(FEED_CAPACITY).0,
            seq: std::sync::atomic::AtomicU64::new(0),
            instance_id: uuid::Uuid::new_v4().to_string(),
            started_at,
            windows: std::sync::atomic::AtomicUsize::new(0),
        }
    }

    /// Numbers `event` and hands it to every subscriber (cloned only if one listens).
    fn publish(&self, event: &EngineEvent) {
        let seq = self.seq.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1;
        if self.sender.receiver_count() > 0 {
            self.sender.send(Sequenced { seq, event: std::sync::Arc::new(event.clone()) }).ok();
        }
    }

    /// A new subscriber, and the number of the last event before it.
    pub fn subscribe(&self) -> (tokio::sync::broadcast::Receiver<Sequenced>, u64) {
        // Subscribed first: an event numbered after `seq` is never missed.
        let receiver = self.sender.subscribe();
        (receiver, self.seq.load(std::sync::atomic::Ordering::SeqCst))
    }

    /// Counts a window among the subscribers until the guard is dropped.
    pub fn window_subscribed(self: &std::sync::Arc<Self>) -> WindowSubscribed {
        self.windows.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        WindowSubscribed(self.clone())
    }

    /// Whether a window follows the events now.
    pub fn windows(&self) -> usize {
        self.windows.load(std::sync::atomic::Ordering::SeqCst)
    }
}

/// A window counted as subscribed (see [`EventFeed::window_subscribed`]).
pub struct WindowSubscribed(std::sync::Arc<EventFeed>);

impl Drop for WindowSubscribed {
    fn drop(&mut self) {
        self.0.windows.fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
    }
}

/// The engine's sink as it is used: events go to the socket's subscribers,
/// then to the sink the engine was started with.
pub(crate) struct Fanout {
    pub feed: std::sync::Arc<EventFeed>,
    pub sink: std::sync::Arc<dyn EventSink>,
}

impl EventSink for Fanout {
    fn emit(&self, event: EngineEvent) {
        self.feed.publish(&event);
        self.sink.emit(event);
    }
}

/// A sink that drops every event, for callers that only use replies.
pub struct NoEvents;

impl EventSink for NoEvents {
    fn emit(&self, _event: EngineEvent) {}
}

impl<F: Fn(EngineEvent) + Send + Sync + 'static> EventSink for F {
    fn emit(&self, event: EngineEvent) {
        self(event)
    }
}

/// What an event-log entry concerns.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct LogAbout<'a> {
    pub session: Option<&'a SessionId>,
    pub task: Option<&'a TaskId>,
    pub loop_id: Option<&'a LoopId>,
    pub profile: Option<&'a ProfileId>,
}

impl<'a> LogAbout<'a> {
    pub fn session(session: &'a SessionId) -> Self {
        LogAbout { session: Some(session), ..LogAbout::default() }
    }
}

/// Appends to the event log and reports the entry through `sink`.
pub(crate) fn log(
    store: &Store,
    sink: &dyn EventSink,
    at: Millis,
    about: LogAbout<'_>,
    kind: &LogKind,
) -> Result<i64, StoreError> {
    let entry = store.append_entry(at, about.session, about.task, about.loop_id, kind)?;
    let seq = entry.seq;
    sink.emit(EngineEvent::Logged { entry, profile_id: about.profile.cloned() });
    Ok(seq)
}
