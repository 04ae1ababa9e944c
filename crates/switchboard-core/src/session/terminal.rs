//! What the engine knows of a session's terminal, independent of any view:
//! the raw output for replaying into a newly attached view (bounded), and a
//! screen model (what is on screen now, plus recent history).

use std::collections::VecDeque;
use std::num::NonZeroU16;

use switchboard_protocol::TermSize;

use crate::api::ScreenSnapshot;

/// When trimming the replay buffer, look this far past the cut for a line
/// start, so a replay begins at the beginning of a line when it can.
const TRIM_LINE_SEARCH_BYTES: usize = 4096;

pub struct TerminalModel {
    replay: VecDeque<u8>,
    replay_cap: usize,
    parser: vt100::Parser,
    size: TermSize,
}

impl TerminalModel {
    pub fn new(size: TermSize, replay_cap: usize, history_lines: usize) -> Self {
        TerminalModel {
            replay: VecDeque::with_capacity(replay_cap.min(64 * 1024)),
            replay_cap,
            parser: vt100::Parser::new(cells(size.rows), cells(size.cols), history_lines),
            size,
        }
    }

    pub fn feed(&mut self, bytes: &[u8]) {
        self.parser.process(bytes);
        self.replay.extend(bytes);
        if self.replay.len() > self.replay_cap {
            let excess = self.replay.len() - self.replay_cap;
            let search_end = (excess + TRIM_LINE_SEARCH_BYTES).min(self.replay.len());
            let cut = (excess..search_end).find(|&i| self.replay[i] == b'\n').map_or(excess, |newline| newline + 1);
            self.replay.drain(..cut);
        }
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

    pub fn resize(&mut self, size: TermSize) {
        self.size = size;
        self.parser.screen_mut().set_size(cells(size.rows), cells(size.cols));
    }

    /// The text of the cursor's row up to the cursor: what a prompt
    /// pattern is matched against.
    pub fn cursor_line(&self) -> String {
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
    pub fn bracketed_paste(&self) -> bool {
        self.parser.screen().bracketed_paste()
    }

    pub fn snapshot(&mut self, recent_lines: usize) -> ScreenSnapshot {
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
}
