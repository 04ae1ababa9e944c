//! The engine's events on their way to the web view: gathered into one Tauri event a frame, at the window's pace.

use switchboard_api::EventPace;
use tauri::{AppHandle, Emitter};

/// The Tauri event carrying the engine's events to the UI: a frame's worth
/// at a time, in a list (see [`Frame`]).
pub const ENGINE_EVENT: &str = "engine-events";

/// The Tauri event carrying the engine events of a machine shown beside
/// this one's, with its name ([`HostEvents`]): never shown as this machine's.
pub const HOST_EVENTS_EVENT: &str = "host-events";

/// Events of another machine's engine, as the window is sent them.
#[derive(Clone, serde::Serialize)]
pub(super) struct HostEvents<'a> {
    host: &'a str,
    events: Vec<switchboard_core::EngineEvent>,
}

/// Events that go at once however soon, so a flood is not held in memory.
pub(super) const MOST_IN_FRAME: usize = 512;

/// Engine events on their way to the web view: sent together in one Tauri
/// event once they have gathered for as long as the window's pace says
/// (about a frame while it shows an agent live, so a burst is drawn once),
/// with only the latest of each thing's state
/// ([`switchboard_client::events::coalesce`]). The web view then takes one
/// message a frame, or four a second, rather than one an event.
#[derive(Default)]
pub(super) struct Frame {
    /// The machine shown beside this one's whose events these are (none:
    /// the window's own engine's): the window shows them as that machine's.
    host: Option<String>,
    events: Vec<switchboard_core::EngineEvent>,
    /// When the first event gathered came.
    since: Option<tokio::time::Instant>,
}

impl Frame {
    /// An empty frame for the events of `host` (none: the window's own engine's).
    pub(super) fn of(host: Option<String>) -> Frame {
        Frame { host, ..Frame::default() }
    }

    /// When what is gathered goes, at this pace; never while nothing is.
    pub(super) fn due(&self, pace: EventPace) -> Option<tokio::time::Instant> {
        self.since.map(|since| since + switchboard_client::events::gathers_for(pace))
    }

    pub(super) fn push(&mut self, app: &AppHandle, event: switchboard_core::EngineEvent) {
        self.since.get_or_insert_with(tokio::time::Instant::now);
        self.events.push(event);
        if self.events.len() >= MOST_IN_FRAME {
            self.send(app);
        }
    }

    pub(super) fn send(&mut self, app: &AppHandle) {
        self.since = None;
        if self.events.is_empty() {
            return;
        }
        let events = switchboard_client::events::coalesce(std::mem::take(&mut self.events));
        let emitted = match &self.host {
            Some(host) => app.emit(HOST_EVENTS_EVENT, HostEvents { host, events }),
            None => app.emit(ENGINE_EVENT, events),
        };
        if let Err(error) = emitted {
            tracing::warn!(%error, "forwarding engine events to the UI failed");
        }
    }
}

/// Waits until `due`; forever when nothing is due.
pub(super) async fn until(due: Option<tokio::time::Instant>) {
    match due {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}
