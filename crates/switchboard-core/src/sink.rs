//! Where the engine reports what happened: the one way out of the engine.

use switchboard_protocol::{LoopId, ProfileId, SessionId, TaskId};

use crate::store::{Store, StoreError};
use switchboard_api::{EngineEvent, LogKind, Millis};

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
    /// The windows subscribed when it was published: each of them receives
    /// it (unless it falls behind or goes), and shows its notices itself.
    pub windows: usize,
    pub event: std::sync::Arc<EngineEvent>,
    /// The event as the socket writes it, made by the first subscriber that
    /// writes it and shared by the others (ten browsers do not serialize it
    /// ten times).
    pub written: std::sync::Arc<std::sync::OnceLock<Vec<u8>>>,
}

/// The engine's events for the socket's subscribers (windows, tests) and the
/// daemon's notices, each numbered in order, and who this engine is: an id
/// new at each start.
pub struct EventFeed {
    sender: tokio::sync::broadcast::Sender<Sequenced>,
    /// The last event's number and the windows subscribed, changed under one
    /// lock: an event counted as reaching a window is sent after the window's
    /// receiver exists, and one counted as reaching none before it does.
    order: std::sync::Mutex<Order>,
    pub instance_id: String,
    pub started_at: Millis,
}

#[derive(Debug, Default)]
struct Order {
    seq: u64,
    windows: usize,
}

impl EventFeed {
    pub fn new(started_at: Millis, capacity: usize) -> EventFeed {
        EventFeed {
            sender: tokio::sync::broadcast::channel(capacity.max(1)).0,
            order: std::sync::Mutex::new(Order::default()),
            instance_id: uuid::Uuid::new_v4().to_string(),
            started_at,
        }
    }

    fn order(&self) -> std::sync::MutexGuard<'_, Order> {
        self.order.lock().expect("never poisoned: nothing panics while holding it")
    }

    /// Numbers `event` and hands it to every subscriber (cloned only if one listens).
    fn publish(&self, event: &EngineEvent) {
        let mut order = self.order();
        order.seq += 1;
        if self.sender.receiver_count() > 0 {
            let sequenced = Sequenced {
                seq: order.seq,
                windows: order.windows,
                event: std::sync::Arc::new(event.clone()),
                written: std::sync::Arc::default(),
            };
            self.sender.send(sequenced).ok();
        }
    }

    /// A new subscriber, and the number of the last event before it: every
    /// event numbered after it is received.
    pub fn subscribe(&self) -> (tokio::sync::broadcast::Receiver<Sequenced>, u64) {
        let order = self.order();
        (self.sender.subscribe(), order.seq)
    }

    /// A window's subscription: as [`EventFeed::subscribe`], and the window
    /// counted among the subscribers until the guard is dropped.
    pub fn subscribe_window(
        self: &std::sync::Arc<Self>,
    ) -> (tokio::sync::broadcast::Receiver<Sequenced>, u64, WindowSubscribed) {
        let mut order = self.order();
        order.windows += 1;
        (self.sender.subscribe(), order.seq, WindowSubscribed(self.clone()))
    }

    /// How many windows follow the events now.
    pub fn windows(&self) -> usize {
        self.order().windows
    }
}

/// A window counted as subscribed (see [`EventFeed::subscribe_window`]).
pub struct WindowSubscribed(std::sync::Arc<EventFeed>);

impl Drop for WindowSubscribed {
    fn drop(&mut self) {
        self.0.order().windows -= 1;
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

#[cfg(test)]
mod tests {
    use super::*;

    fn published(feed: &EventFeed) {
        feed.publish(&EngineEvent::StorageChanged { problem: None });
    }

    #[test]
    fn each_event_says_how_many_windows_receive_it() {
        let feed = std::sync::Arc::new(EventFeed::new(0, crate::config::FEED_CAPACITY));
        let (mut daemon, _) = feed.subscribe();
        published(&feed);
        let (mut window, seq, subscribed) = feed.subscribe_window();
        assert_eq!(seq, 1, "the window is told the last event before it");
        assert_eq!(feed.windows(), 1);
        published(&feed);
        drop(subscribed);
        assert_eq!(feed.windows(), 0);
        published(&feed);
        let told: Vec<(u64, usize)> =
            std::iter::from_fn(|| daemon.try_recv().ok()).map(|s| (s.seq, s.windows)).collect();
        assert_eq!(told, [(1, 0), (2, 1), (3, 0)]);
        // What was counted as reaching the window did reach it.
        assert_eq!(window.try_recv().map(|s| s.seq).ok(), Some(2));
    }
}
