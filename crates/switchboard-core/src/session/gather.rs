//! The reader's batches. A terminal hands out its output a few KiB per read;
//! passing each read to the session's task on its own wakes that task
//! thousands of times a second while an agent floods, and the wake-ups, not
//! the scanning, were what held the ingest below a bare reader's pace. While
//! output floods, the reader gathers reads and passes them on when enough has
//! come, when the agent has gone quiet for a moment, or when the oldest byte
//! has waited long enough — all far inside the frame a window draws at.
//! A read that came a little at a time (a prompt, a line, an echo) ends the
//! batch as soon as the terminal is empty, as reads always did: what the
//! engine reads off the screen just after (a loop's last line) must already
//! be there.

use std::time::{Duration, Instant};

/// A batch this large goes at once.
pub(crate) const SEND_AT_BYTES: usize = 64 * 1024;
/// A read shorter than this means the agent is not flooding: once the
/// terminal is empty, what is gathered goes at once.
pub(crate) const SMALL_BYTES: usize = 1024;
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
/// `held_for` old, the latest read `last_read` long.
pub(crate) fn when_idle(len: usize, held_for: Duration, last_read: usize) -> Idle {
    if len == 0 {
        return Idle::WaitForever;
    }
    if last_read < SMALL_BYTES {
        return Idle::Send;
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
    last_read: usize,
}

impl Gathered {
    /// Adds one read; returns the batch when it is due.
    pub(crate) fn add(&mut self, read: &[u8], now: Instant) -> Option<Vec<u8>> {
        if read.is_empty() {
            return None;
        }
        let since = *self.since.get_or_insert(now);
        self.bytes.extend_from_slice(read);
        self.last_read = read.len();
        due(self.bytes.len(), now.saturating_duration_since(since)).then(|| self.take()).flatten()
    }

    /// What to do while the terminal has nothing to read.
    pub(crate) fn idle(&self, now: Instant) -> Idle {
        let held_for = self.since.map_or(Duration::ZERO, |since| now.saturating_duration_since(since));
        when_idle(self.bytes.len(), held_for, self.last_read)
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
    fn an_empty_terminal_waits_for_quiet_while_flooding_but_never_past_the_longest_hold() {
        let cases = [
            (0, Duration::ZERO, 4096, Idle::WaitForever),
            (0, MOST_HELD * 2, 4096, Idle::WaitForever),
            // A line, a prompt, or a line after a flood: no flood now, it all goes at once.
            (5, Duration::ZERO, 5, Idle::Send),
            (5000, Duration::ZERO, 20, Idle::Send),
            (SMALL_BYTES - 1, Duration::ZERO, SMALL_BYTES - 1, Idle::Send),
            (SMALL_BYTES, Duration::ZERO, SMALL_BYTES, Idle::WaitAtMost(QUIET)),
            (4096, MOST_HELD - QUIET, 4096, Idle::WaitAtMost(QUIET)),
            (4096, MOST_HELD - MS, 4096, Idle::WaitAtMost(MS)),
            (4096, MOST_HELD, 4096, Idle::Send),
            (4096, MOST_HELD * 3, 4096, Idle::Send),
        ];
        for (len, held_for, last_read, expected) in cases {
            assert_eq!(
                when_idle(len, held_for, last_read),
                expected,
                "{len} bytes held for {held_for:?}, last read {last_read}"
            );
        }
    }

    #[test]
    fn reads_are_gathered_in_order_and_handed_on_whole() {
        let start = Instant::now();
        let mut gathered = Gathered::default();
        assert_eq!(gathered.add(b"ab", start), None);
        assert_eq!(gathered.idle(start), Idle::Send);
        let chunk = vec![1u8; 4096];
        assert_eq!(gathered.add(b"", start + MS), None);
        assert_eq!(gathered.add(&chunk, start + MS), None);
        assert_eq!(gathered.idle(start + MS), Idle::WaitAtMost(QUIET));
        // A line after the flood: it all goes once the terminal is empty.
        assert_eq!(gathered.add(b"!", start + MS), None);
        assert_eq!(gathered.idle(start + MS), Idle::Send);
        assert_eq!(gathered.add(&chunk, start + MS), None);
        // The age counts from the oldest byte, not the latest read.
        let whole = [&b"ab"[..], &chunk, b"!", &chunk, b"ef"].concat();
        assert_eq!(gathered.add(b"ef", start + MOST_HELD), Some(whole));
        assert_eq!(gathered.idle(start + MOST_HELD), Idle::WaitForever);
        assert_eq!(gathered.take(), None);

        let big = vec![7u8; SEND_AT_BYTES];
        assert_eq!(gathered.add(&big, start), Some(big.clone()));
        assert_eq!(gathered.add(b"x", start), None);
        assert_eq!(gathered.take(), Some(b"x".to_vec()));
    }
}
