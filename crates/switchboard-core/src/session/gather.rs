//! The reader's batches. A terminal hands out its output a few KiB per read;
//! passing each read to the session's task on its own wakes that task
//! thousands of times a second while an agent floods, and the wake-ups, not
//! the scanning, were what held the ingest below a bare reader's pace. The
//! reader gathers reads instead and passes them on when enough has come, when
//! the agent has gone quiet for a moment, or when the oldest byte has waited
//! long enough — all far inside the frame a window draws at.

use std::time::{Duration, Instant};

/// A batch this large goes at once.
pub(crate) const SEND_AT_BYTES: usize = 64 * 1024;
/// A batch goes when no more output came for this long.
pub(crate) const QUIET: Duration = Duration::from_millis(2);
/// No byte waits in the reader longer than this, however steadily the agent
/// trickles (a spinner never falls quiet).
pub(crate) const MOST_HELD: Duration = Duration::from_millis(8);

/// What the reader does with what it has gathered, once the terminal has
/// nothing more to read right now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Idle {
    /// Nothing gathered: wait for output however long it takes.
    WaitForever,
    /// Wait at most this long for more; if none comes, send.
    WaitAtMost(Duration),
    /// Send what is gathered now.
    Send,
}

/// Whether a batch of `len` bytes, the oldest `held_for` old, goes now
/// while output is still coming.
pub(crate) fn due(len: usize, held_for: Duration) -> bool {
    len >= SEND_AT_BYTES || (len > 0 && held_for >= MOST_HELD)
}

/// What to do when the terminal is empty, holding `len` bytes, the oldest
/// `held_for` old.
pub(crate) fn when_idle(len: usize, held_for: Duration) -> Idle {
    if len == 0 {
        return Idle::WaitForever;
    }
    match MOST_HELD.checked_sub(held_for) {
        Some(left) if !left.is_zero() => Idle::WaitAtMost(left.min(QUIET)),
        _ => Idle::Send,
    }
}

/// Output read and not yet passed on.
#[derive(Debug, Default)]
pub(crate) struct Gathered {
    bytes: Vec<u8>,
    since: Option<Instant>,
}

impl Gathered {
    /// Adds one read; returns the batch when it is due.
    pub(crate) fn add(&mut self, read: &[u8], now: Instant) -> Option<Vec<u8>> {
        if read.is_empty() {
            return None;
        }
        let since = *self.since.get_or_insert(now);
        self.bytes.extend_from_slice(read);
        due(self.bytes.len(), now.saturating_duration_since(since)).then(|| self.take()).flatten()
    }

    /// What to do while the terminal has nothing to read.
    pub(crate) fn idle(&self, now: Instant) -> Idle {
        let held_for = self.since.map_or(Duration::ZERO, |since| now.saturating_duration_since(since));
        when_idle(self.bytes.len(), held_for)
    }

    /// Everything gathered, if anything was.
    pub(crate) fn take(&mut self) -> Option<Vec<u8>> {
        self.since = None;
        (!self.bytes.is_empty()).then(|| std::mem::replace(&mut self.bytes, Vec::with_capacity(SEND_AT_BYTES)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(1);

    #[test]
    fn a_batch_goes_when_it_is_large_or_its_oldest_byte_has_waited_long_enough() {
        let cases = [
            (0, Duration::ZERO, false),
            (0, MOST_HELD * 10, false),
            (1, Duration::ZERO, false),
            (SEND_AT_BYTES - 1, MOST_HELD - MS, false),
            (SEND_AT_BYTES, Duration::ZERO, true),
            (1, MOST_HELD, true),
            (10, MOST_HELD + MS, true),
        ];
        for (len, held_for, expected) in cases {
            assert_eq!(due(len, held_for), expected, "{len} bytes held for {held_for:?}");
        }
    }

    #[test]
    fn an_empty_terminal_waits_for_quiet_but_never_past_the_longest_hold() {
        let cases = [
            (0, Duration::ZERO, Idle::WaitForever),
            (0, MOST_HELD * 2, Idle::WaitForever),
            (5, Duration::ZERO, Idle::WaitAtMost(QUIET)),
            (5, MOST_HELD - QUIET, Idle::WaitAtMost(QUIET)),
            (5, MOST_HELD - MS, Idle::WaitAtMost(MS)),
            (5, MOST_HELD, Idle::Send),
            (5, MOST_HELD * 3, Idle::Send),
        ];
        for (len, held_for, expected) in cases {
            assert_eq!(when_idle(len, held_for), expected, "{len} bytes held for {held_for:?}");
        }
    }

    #[test]
    fn reads_are_gathered_in_order_and_handed_on_whole() {
        let start = Instant::now();
        let mut gathered = Gathered::default();
        assert_eq!(gathered.add(b"ab", start), None);
        assert_eq!(gathered.add(b"", start + MS), None);
        assert_eq!(gathered.add(b"cd", start + MS), None);
        assert_eq!(gathered.idle(start + MS), Idle::WaitAtMost(QUIET));
        // The age counts from the oldest byte, not the latest read.
        assert_eq!(gathered.add(b"ef", start + MOST_HELD), Some(b"abcdef".to_vec()));
        assert_eq!(gathered.idle(start + MOST_HELD), Idle::WaitForever);
        assert_eq!(gathered.take(), None);

        let big = vec![7u8; SEND_AT_BYTES];
        assert_eq!(gathered.add(&big, start), Some(big.clone()));
        assert_eq!(gathered.add(b"x", start), None);
        assert_eq!(gathered.take(), Some(b"x".to_vec()));
    }
}
