//! The engine's wall clock: what it judges days (an agent's day's budget)
//! and schedules by. The machine's clock, or one a test sets, so the engine
//! path that waits for a day or a time runs without waiting for it.

use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};

use switchboard_api::Millis;

/// The machine's clock, or a set one. Clones share one time.
#[derive(Debug, Clone, Default)]
pub struct Clock(Option<Arc<AtomicI64>>);

impl Clock {
    /// The machine's clock.
    pub fn system() -> Clock {
        Clock(None)
    }

    /// A clock that reads `at` (Unix ms) until it is set again.
    pub fn set_at(at: Millis) -> Clock {
        Clock(Some(Arc::new(AtomicI64::new(at))))
    }

    /// Now, in Unix ms.
    pub fn now(&self) -> Millis {
        match &self.0 {
            Some(at) => at.load(Ordering::SeqCst),
            None => switchboard_api::now(),
        }
    }

    /// Moves a set clock to `at`; the machine's clock is not moved.
    pub fn set(&self, at: Millis) {
        if let Some(clock) = &self.0 {
            clock.store(at, Ordering::SeqCst);
        }
    }

    /// Moves a set clock on by `ms`.
    pub fn advance(&self, ms: Millis) {
        if let Some(clock) = &self.0 {
            clock.fetch_add(ms, Ordering::SeqCst);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_set_clock_reads_what_it_was_set_to_in_every_clone() {
        let clock = Clock::set_at(1_000);
        let other = clock.clone();
        other.advance(500);
        assert_eq!(clock.now(), 1_500);
        clock.set(7);
        assert_eq!(other.now(), 7);
        let system = Clock::system();
        system.set(7);
        assert!(system.now() > 1_700_000_000_000, "the machine's clock is not moved");
    }
}
