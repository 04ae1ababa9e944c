//! Where the engine reports what happened: the one way out of the engine.

use crate::api::EngineEvent;

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
