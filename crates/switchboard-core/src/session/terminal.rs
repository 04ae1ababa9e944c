//! What the engine knows of a session's terminal, independent of any view:
//! the raw output for replaying into a newly attached view (bounded), and a
//! screen model (what is on screen now, plus recent history).
//!
//! Output is kept as it comes and read into the screen model only when
//! something asks about the screen (a prompt to match, a preview, a paste),
//! so an agent flooding its terminal goes at the terminal's speed, not at
//! the model's. When more came meanwhile than the replay keeps, the model
//! starts anew from the replay: the screen is then what a view attached now
//! would show.

use std::collections::VecDeque;
use std::num::NonZeroU16;

use switchboard_protocol::TermSize;

use switchboard_api::ScreenSnapshot;

/// When trimming the replay buffer, look this far past the cut for a line
/// start, so a replay begins at the beginning of a line when it can.
const TRIM_LINE_SEARCH_BYTES: usize = 4096;

pub struct TerminalModel {
    replay: VecDeque<u8>,
    replay_cap: usize,
    parser: vt100::Parser,
    history_lines: usize,
    /// Output kept in the replay but not read into the screen model yet
    /// (more than the replay holds: the model starts anew from it).
    unread: usize,
    size: TermSize,
}

impl TerminalModel {
    pub fn new(size: TermSize, replay_cap: usize, history_lines: usize) -> Self {
        TerminalModel {
            replay: VecDeque::with_capacity(replay_cap.min(64 * 1024)),
            replay_cap,
            parser: vt100::Parser::new(cells(size.rows), cells(size.cols), history_lines),
            history_lines,
            unread: 0,
            size,
        }
    }

    /// Keeps output; the screen model reads it when the screen is asked about.
    pub fn feed(&mut self, bytes: &[u8]) {
        self.unread = self.unread.saturating_add(bytes.len());
        // Room is made before the bytes go in: the buffer never holds more than its cap, so
        // its allocation never doubles past it either.
        // What goes is the oldest `excess` bytes of what is kept and what comes, up to the end of
        // the line they end in (when it is near): a view attached later starts at a line.
        let excess = (self.replay.len() + bytes.len()).saturating_sub(self.replay_cap);
        let bytes = if excess == 0 {
            bytes
        } else if excess < self.replay.len() {
            let search_end = (excess + TRIM_LINE_SEARCH_BYTES).min(self.replay.len());
            let cut = (excess..search_end).find(|&i| self.replay[i] == b'\n').map_or(excess, |newline| newline + 1);
            self.replay.drain(..cut.min(self.replay.len()));
            bytes
        } else {
            // One chunk bigger than what is left (a gathered burst): all that was kept goes, and
            // the cut falls inside the chunk.
            let start = excess - self.replay.len();
            self.replay.clear();
            let search_end = (start + TRIM_LINE_SEARCH_BYTES).min(bytes.len());
            let cut = (start..search_end).find(|&i| bytes[i] == b'\n').map_or(start, |newline| newline + 1);
            &bytes[cut..]
        };
        let needed = self.replay.len() + bytes.len();
        if needed > self.replay.capacity() {
            // Doubling, as a growing buffer does, but never past the cap.
            let grown = (self.replay.capacity() * 2).max(needed).min(self.replay_cap.max(needed));
            self.replay.reserve_exact(grown - self.replay.len());
        }
        self.replay.extend(bytes);
    }

    /// What the replay buffer has allocated (it never grows past its cap).
    pub fn replay_capacity(&self) -> usize {
        self.replay.capacity()
    }

    /// The retained output, oldest first: written into a fresh view it
    /// reproduces the session's recent history and current screen.
    pub fn replay(&self) -> Vec<u8> {
        let (front, back) = self.replay.as_slices();
        [front, back].concat()
    }

    pub fn replay_len(&self) -> usize {
        self.replay.len()
    }

    pub fn size(&self) -> TermSize {
        self.size
    }

    /// Reads the output kept since the screen was last asked about into the
    /// screen model; when the replay no longer holds all of it, the model
    /// starts anew from the replay.
    fn read_up(&mut self) {
        if self.unread == 0 {
            return;
        }
        let from = match self.replay.len().checked_sub(self.unread) {
            Some(from) => from,
            None => {
                self.parser = vt100::Parser::new(cells(self.size.rows), cells(self.size.cols), self.history_lines);
                0
            }
        };
        self.unread = 0;
        let (front, back) = self.replay.as_slices();
        let skip_back = from.saturating_sub(front.len());
        self.parser.process(&front[from.min(front.len())..]);
        self.parser.process(&back[skip_back..]);
    }

    pub fn resize(&mut self, size: TermSize) {
        // Output written before the resize was laid out at the old size.
        self.read_up();
        self.size = size;
        self.parser.screen_mut().set_size(cells(size.rows), cells(size.cols));
    }

    /// The text of the cursor's row up to the cursor: what a prompt
    /// pattern is matched against.
    pub fn cursor_line(&mut self) -> String {
        self.read_up();
        let screen = self.parser.screen();
        let (row, col) = screen.cursor_position();
        let line = screen.rows(0, self.size.cols).nth(usize::from(row)).unwrap_or_default();
        let mut line: String = line.chars().take(usize::from(col)).collect();
        // Cells never written read as nothing; the cursor stands after them.
        while line.chars().count() < usize::from(col) {
            line.push(' ');
        }
        line
    }

    /// Whether the agent turned bracketed paste on (`ESC[?2004h`).
    pub fn bracketed_paste(&mut self) -> bool {
        self.read_up();
        self.parser.screen().bracketed_paste()
    }

    pub fn snapshot(&mut self, recent_lines: usize) -> ScreenSnapshot {
        self.read_up();
        let cols = self.size.cols;
        let rows = usize::from(self.size.rows);
        let visible: Vec<String> = self.parser.screen().rows(0, cols).collect();

        // Lines above the screen: page through the scrollback, oldest wanted
        // line first. vt100 clamps the offset to what it holds.
        self.parser.screen_mut().set_scrollback(usize::MAX);
        let held = self.parser.screen().scrollback();
        let wanted_history = recent_lines.min(held);
        let mut history = Vec::with_capacity(wanted_history);
        let mut start = held - wanted_history;
        while start < held {
            self.parser.screen_mut().set_scrollback(held - start);
            let page: Vec<String> = self.parser.screen().rows(0, cols).take(rows.min(held - start)).collect();
            start += page.len().max(1);
            history.extend(page);
        }
        self.parser.screen_mut().set_scrollback(0);

        let mut lines: Vec<String> = history;
        let last_content = visible.iter().rposition(|line| !line.trim_end().is_empty());
        lines.extend(visible.iter().take(last_content.map_or(0, |i| i + 1)).cloned());
        let skip = lines.len().saturating_sub(recent_lines);
        let recent_lines = lines.into_iter().skip(skip).map(|line| line.trim_end().to_owned()).collect();

        let screen = visible.iter().map(|line| line.trim_end()).collect::<Vec<_>>().join("\n");
        let (cursor_row, cursor_col) = self.parser.screen().cursor_position();
        let screen = screen.trim_end_matches('\n').to_owned();
        ScreenSnapshot {
            size: self.size,
            prompt: super::typing::prompt_of(&screen),
            screen,
            recent_lines,
            cursor_row,
            cursor_col,
        }
    }
}

/// vt100 refuses zero-sized screens; sizes are validated before they get
/// here, so clamping is only a guard.
fn cells(count: u16) -> NonZeroU16 {
    NonZeroU16::new(count).unwrap_or(NonZeroU16::MIN)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SMALL: TermSize = TermSize { rows: 5, cols: 20 };

    #[test]
    fn replay_is_bounded_and_starts_at_a_line() {
        let mut model = TerminalModel::new(SMALL, 100, 10);
        for i in 0..100 {
            model.feed(format!("line {i:03}\r\n").as_bytes());
        }
        let replay = model.replay();
        assert!(replay.len() <= 100, "{}", replay.len());
        assert!(replay.starts_with(b"line "), "{:?}", String::from_utf8_lossy(&replay));
        assert!(replay.ends_with(b"line 099\r\n"));
    }

    #[test]
    fn a_chunk_bigger_than_the_replay_still_leaves_it_starting_at_a_line() {
        // (what is kept before, the chunk fed): the chunk alone overflows what is left.
        let lines =
            |from: usize, to: usize| (from..to).map(|i| format!("\x1b[34mline {i:05}\x1b[0m\r\n")).collect::<String>();
        let cases = [
            (String::new(), lines(0, 100)),
            (lines(0, 3), lines(3, 200)),
            ("a line\r\n".to_owned(), format!("partial{}", lines(0, 50))),
        ];
        for (kept, chunk) in cases {
            let mut model = TerminalModel::new(SMALL, 300, 10);
            model.feed(kept.as_bytes());
            model.feed(chunk.as_bytes());
            let replay = model.replay();
            assert!(replay.len() <= 300, "{}", replay.len());
            assert!(replay.starts_with(b"\x1b[34mline "), "{:?}", String::from_utf8_lossy(&replay));
            assert!(chunk.as_bytes().ends_with(&replay), "the replay is the chunk's end");
        }
    }

    #[test]
    fn the_replays_allocation_stays_within_its_cap() {
        // Not a power of two: a buffer that doubles would overshoot it.
        let cap = 3 << 15;
        let mut model = TerminalModel::new(SMALL, cap, 10);
        for i in 0..20_000 {
            model.feed(format!("\x1b[32m{i:6}\x1b[0m streaming output line of a busy agent\n").as_bytes());
        }
        model.feed(&vec![b'y'; 3 * cap]);
        assert!(model.replay_len() <= cap);
        assert!(model.replay_capacity() <= cap, "{} allocated for a cap of {cap}", model.replay_capacity());
    }

    #[test]
    fn replay_of_one_long_line_is_still_bounded() {
        let mut model = TerminalModel::new(SMALL, 64, 10);
        model.feed(&[b'x'; 10_000]);
        assert_eq!(model.replay_len(), 64);
    }

    #[test]
    fn snapshot_shows_screen_and_recent_history() {
        let mut model = TerminalModel::new(SMALL, 4096, 50);
        for i in 0..12 {
            model.feed(format!("row {i}\r\n").as_bytes());
        }
        model.feed(b"\x1b[31mred\x1b[0m prompt> ");
        let snap = model.snapshot(8);
        assert_eq!(snap.screen, "row 8\nrow 9\nrow 10\nrow 11\nred prompt>");
        assert_eq!(
            snap.recent_lines,
            vec!["row 4", "row 5", "row 6", "row 7", "row 8", "row 9", "row 10", "row 11", "red prompt>"][1..]
        );
        assert_eq!((snap.cursor_row, snap.cursor_col), (4, 12));

        let all = model.snapshot(1000);
        assert_eq!(all.recent_lines.first().map(String::as_str), Some("row 0"));
        assert_eq!(all.recent_lines.len(), 13);
    }

    #[test]
    fn cursor_line_and_bracketed_paste() {
        let mut model = TerminalModel::new(SMALL, 4096, 10);
        model.feed(b"working...\r\n\x1b[1;36mdemo>\x1b[0m ");
        assert_eq!(model.cursor_line(), "demo> ");
        assert!(!model.bracketed_paste());
        model.feed(b"\x1b[?2004h");
        assert!(model.bracketed_paste());
        model.feed(b"typed");
        assert_eq!(model.cursor_line(), "demo> typed");
    }

    #[test]
    fn resize_changes_the_screen_model() {
        let mut model = TerminalModel::new(SMALL, 4096, 10);
        model.resize(TermSize { rows: 10, cols: 40 });
        model.feed(&[b'y'; 35]);
        let snap = model.snapshot(1);
        assert_eq!(snap.size, TermSize { rows: 10, cols: 40 });
        assert_eq!(snap.screen, "y".repeat(35));
    }

    /// The screen as a model that reads every byte as it comes would show it.
    fn eager(size: TermSize, history: usize, chunks: &[Vec<u8>]) -> vt100::Parser {
        let mut parser = vt100::Parser::new(cells(size.rows), cells(size.cols), history);
        chunks.iter().for_each(|chunk| parser.process(chunk));
        parser
    }

    #[test]
    fn the_screen_read_when_asked_is_the_screen_read_as_output_came() {
        let chunks: Vec<Vec<u8>> = (0..40)
            .map(|i| {
                format!("\x1b[3{}mline {i}\x1b[0m\r\n{}", i % 7, if i % 9 == 0 { "\x1b[2J\x1b[H" } else { "" })
                    .into_bytes()
            })
            .chain([b"\x1b[?2004h> type h\xc3".to_vec(), b"\xa9re".to_vec()])
            .collect();
        let mut model = TerminalModel::new(SMALL, 4096, 50);
        // Asked about now and then, as prompts and previews are.
        for (at, chunk) in chunks.iter().enumerate() {
            model.feed(chunk);
            if at % 7 == 3 {
                model.cursor_line();
            }
        }
        let expected = eager(SMALL, 50, &chunks);
        assert_eq!(model.snapshot(0).screen, expected.screen().contents());
        assert_eq!(model.cursor_line(), "> type hére");
        assert!(model.bracketed_paste());
        // A resize lays out what came before it at the size it came at.
        model.feed(b"\r\nwide line that wraps at twenty columns");
        model.resize(TermSize { rows: 5, cols: 40 });
        let mut expected = eager(SMALL, 50, &chunks);
        expected.process(b"\r\nwide line that wraps at twenty columns");
        expected.screen_mut().set_size(cells(5), cells(40));
        assert_eq!(model.snapshot(0).screen, expected.screen().contents());
    }

    #[test]
    fn a_flood_past_the_replay_between_two_looks_reads_as_a_view_attached_then() {
        let mut model = TerminalModel::new(SMALL, 200, 10);
        model.feed(b"\x1b[?2004hbefore the flood\r\n");
        assert!(model.bracketed_paste());
        for i in 0..500 {
            model.feed(format!("flood {i:04}\r\n").as_bytes());
        }
        model.feed(b"prompt> ");
        // What a view attached now gets: the replay, from a fresh terminal.
        let mut fresh = TerminalModel::new(SMALL, 200, 10);
        fresh.feed(&model.replay());
        let snapshot = model.snapshot(3);
        assert_eq!(snapshot, fresh.snapshot(3));
        assert_eq!(snapshot.recent_lines.last().map(String::as_str), Some("prompt>"));
        assert!(snapshot.recent_lines.iter().any(|line| line == "flood 0499"));
        assert_eq!(model.cursor_line(), "prompt> ");
        // The paste mode set before what the replay keeps is not known any more, as for a new view.
        assert!(!model.bracketed_paste());
    }
}
