//! Where the engine reports what happened: the one way out of the engine.

use switchboard_protocol::{LoopId, ProfileId, SessionId, TaskId};

use crate::api::{EngineEvent, LogKind, Millis};
use crate::store::{Store, StoreError};

/// Where the engine reports what happened. The desktop shell forwards events
/// to the UI; tests collect them. Called on the engine task: must not block.
pub trait EventSink: Send + Sync + 'static {
    fn emit(&self, event: EngineEvent);
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
