//! Protocol signals: the blocks agents print to ask the user something, stop,
//! hand work off or report completion.
//!
//! ```text
//! [CLARIFICATION_NEEDED]
//! agent_id: bg-task-abc
//! timestamp: 2026-01-11T09:00:00-05:00
//! blocked_at: "Choosing the auth strategy"
//! questions:
//!   - "Analyze OAuth2, JWT, or both?"
//! current_state: "Phase 1 complete"
//! [/CLARIFICATION_NEEDED]
//! ```
//!
//! [`SignalScanner`] finds such blocks in a terminal's output as it streams:
//! escape sequences are stripped (by `vte`, which keeps its state across
//! reads), `\r\n` and `\r` end lines, and a marker may be split across reads
//! at any byte. It is bounded: a block longer than [`MAX_BLOCK_BYTES`], or one
//! never closed, becomes a [`ScanEvent::Malformed`] and is dropped, never an
//! unbounded buffer. The block's YAML becomes a typed [`Signal`] through
//! `serde-saphyr` within a budget ([`yaml`]: a block whose aliases expand
//! past [`MAX_EXPANDED_BYTES`] is malformed); fields the protocol does not
//! name are kept in `extra`; each named field within its cap
//! ([`crate::capped`]), the whole within the expansion budget.
//!
//! Most output holds no marker. A read with no `[` that could open one (every
//! `[` in it begins an escape sequence) and no escape left unfinished at its
//! end goes past the terminal parser (`quiet`): the scanner reads it at about
//! the speed of a byte search, and an agent's output is held back by its
//! terminal, not by the scanner.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;
#[cfg(feature = "ts")]
use ts_rs::TS;

mod fields;
pub mod prompts;
pub mod teach;
pub mod tools;
pub mod yaml;

pub use fields::{MissingField, from_fields};

pub use yaml::MAX_EXPANDED_BYTES;

/// Longest block body kept; a longer one is malformed.
pub const MAX_BLOCK_BYTES: usize = 64 * 1024;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(rename_all = "snake_case")]
pub enum SignalKind {
    Clarification,
    StopWork,
    Delegate,
    Completion,
}

impl SignalKind {
    pub const ALL: [SignalKind; 4] =
        [SignalKind::Clarification, SignalKind::StopWork, SignalKind::Delegate, SignalKind::Completion];

    /// The word between the brackets.
    pub fn marker(self) -> &'static str {
        match self {
            SignalKind::Clarification => "CLARIFICATION_NEEDED",
            SignalKind::StopWork => "STOP_WORK",
            SignalKind::Delegate => "DELEGATE_WORK",
            SignalKind::Completion => "COMPLETION_REPORT",
        }
    }

    pub fn open(self) -> String {
        format!("[{}]", self.marker())
    }

    pub fn close(self) -> String {
        format!("[/{}]", self.marker())
    }
}

/// Whether delegated work can run beside the requester's.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(rename_all = "snake_case")]
pub enum Independence {
    CanProceedParallel,
    BlocksCurrentWork,
    /// Something else the agent wrote, kept as written.
    Other(String),
}

/// The fields of each kind of signal.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SignalBody {
    Clarification {
        blocked_at: String,
        questions: Vec<String>,
        current_state: String,
        /// The choices offered with each question, in the questions' order
        /// (a question offering none has an empty list); empty when no
        /// question offers any.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        #[cfg_attr(feature = "ts", ts(optional = nullable))]
        options: Vec<Vec<String>>,
    },
    StopWork {
        blocker_type: String,
        details: String,
        state_snapshot: String,
        blocked_work: String,
        stop_reason: String,
        resume_requirements: String,
    },
    Delegate {
        new_task_description: String,
        independence: Independence,
        coordination: String,
    },
    Completion {
        status: String,
        deliverables: Vec<String>,
        metrics_achieved: String,
        recommendations: Vec<String>,
    },
}

impl SignalBody {
    pub fn kind(&self) -> SignalKind {
        match self {
            SignalBody::Clarification { .. } => SignalKind::Clarification,
            SignalBody::StopWork { .. } => SignalKind::StopWork,
            SignalBody::Delegate { .. } => SignalKind::Delegate,
            SignalBody::Completion { .. } => SignalKind::Completion,
        }
    }
}

/// A well-formed signal.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct Signal {
    pub agent_id: Option<String>,
    pub timestamp: Option<String>,
    #[serde(flatten)]
    pub body: SignalBody,
    /// Fields the protocol does not name, as the agent wrote them.
    pub extra: BTreeMap<String, Value>,
    /// The block's text between its markers.
    pub raw: String,
}

/// What the scanner found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ScanEvent {
    Signal {
        signal: Signal,
    },
    /// A block that could not be read: never closed, too long, not YAML,
    /// or missing what its kind needs. Shown to the user, never dropped.
    Malformed {
        kind: SignalKind,
        reason: String,
        raw: String,
    },
}

/// Parses one block's text (between its markers) as a signal of `kind`.
pub fn parse_block(kind: SignalKind, raw: &str) -> ScanEvent {
    let malformed = |reason: String| ScanEvent::Malformed { kind, reason, raw: raw.to_owned() };
    let text = dedent(raw);
    let value = match yaml::read(&text) {
        Ok(value) => value,
        Err(problem) => return malformed(problem.to_string()),
    };
    let Value::Object(fields) = value else {
        return malformed("the block is not a list of `field: value` lines".into());
    };
    match from_fields(kind, fields, raw) {
        Ok(signal) => ScanEvent::Signal { signal },
        Err(problem) => malformed(problem.to_string()),
    }
}

/// Removes the indentation every non-blank line shares (a block printed
/// inside an indented region is still YAML).
fn dedent(text: &str) -> String {
    let indent = text
        .lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| line.len() - line.trim_start().len())
        .min()
        .unwrap_or(0);
    text.lines().map(|line| line.get(indent..).unwrap_or(line.trim_start())).collect::<Vec<_>>().join("\n")
}

/// Collects the text a terminal would show, without escape sequences.
struct PlainText {
    text: String,
    /// The last character was `\r`: a following `\n` belongs to it (even
    /// in the next read).
    after_cr: bool,
}

/// `text` as a terminal would show it: escape sequences and controls
/// removed, `\r` and `\r\n` as line ends.
pub fn plain_text(text: &str) -> String {
    let mut plain = PlainText { text: String::with_capacity(text.len()), after_cr: false };
    let mut parser = vte::Parser::new();
    parser.advance(&mut plain, text.as_bytes());
    plain.text
}

/// Where a UTF-8 character cut short by the end of `bytes` starts (the
/// length of `bytes` when none is).
fn incomplete_utf8_start(bytes: &[u8]) -> usize {
    for back in 1..=bytes.len().min(3) {
        let byte = bytes[bytes.len() - back];
        if byte & 0xC0 == 0x80 {
            continue; // a continuation byte: look further back for its lead
        }
        let length = match byte {
            0xC0..=0xDF => 2,
            0xE0..=0xEF => 3,
            0xF0..=0xF7 => 4,
            _ => return bytes.len(),
        };
        return if length > back { bytes.len() - back } else { bytes.len() };
    }
    bytes.len()
}

impl vte::Perform for PlainText {
    fn print(&mut self, c: char) {
        // A C1 control is never text. The terminal parser drops it when its
        // two bytes come in one read but prints it when a read splits them.
        if ('\u{80}'..='\u{9f}').contains(&c) {
            return;
        }
        self.after_cr = false;
        self.text.push(c);
    }

    fn execute(&mut self, byte: u8) {
        match byte {
            b'\n' if self.after_cr => self.after_cr = false,
            b'\n' => self.text.push('\n'),
            b'\r' => {
                self.text.push('\n');
                self.after_cr = true;
            }
            b'\t' => {
                self.after_cr = false;
                self.text.push('\t');
            }
            _ => {}
        }
    }
}

/// Where the scanner is.
enum State {
    /// Looking for an opening marker. `tail` is the end of the text seen so
    /// far that could still be the start of one.
    Outside { tail: String },
    /// Inside a block of `kind`; `searched` is how far `body` has been
    /// searched for markers.
    Inside { kind: SignalKind, body: String, searched: usize },
    /// Inside a block that grew past the cap: skipped until its close.
    Skipping { kind: SignalKind, tail: String },
}

/// Finds signal blocks in streamed terminal output.
pub struct SignalScanner {
    parser: vte::Parser,
    /// Whether the terminal parser is known to be between escape sequences
    /// (a quiet read is skipped only then).
    ground: bool,
    /// Whether quiet reads skip the terminal parser ([`Self::exhaustive`]: never).
    fast: bool,
    /// The start of a UTF-8 character the last read cut short, held for the
    /// next: the terminal parser then sees the same bytes together however
    /// the output is cut.
    carry: Vec<u8>,
    after_cr: bool,
    state: State,
    cap: usize,
}

impl Default for SignalScanner {
    fn default() -> Self {
        Self::new()
    }
}

const LONGEST_MARKER: usize = "[/CLARIFICATION_NEEDED]".len();

impl SignalScanner {
    pub fn new() -> Self {
        Self::with_cap(MAX_BLOCK_BYTES)
    }

    /// A scanner whose blocks may be at most `cap` bytes.
    pub fn with_cap(cap: usize) -> Self {
        SignalScanner {
            parser: vte::Parser::new(),
            ground: true,
            fast: true,
            carry: Vec::new(),
            after_cr: false,
            state: State::Outside { tail: String::new() },
            cap,
        }
    }

    /// A scanner that puts every byte through the terminal parser: what
    /// the quiet reads' shortcut must find the same blocks as (tests, benches).
    pub fn exhaustive() -> Self {
        SignalScanner { fast: false, ..Self::new() }
    }

    /// How much of `bytes`, read now, the scanner can pass over: the part
    /// that can neither hold nor begin an opening marker and leaves the
    /// terminal parser between sequences. Only outside any block, with no
    /// `[` kept from before and the parser known between sequences; it ends
    /// before the first `[` of text that a marker's next letter may follow
    /// (one that begins a CSI, `ESC [`, or is followed by other text is no
    /// marker's), and before an escape left unfinished.
    fn quiet_prefix(&self, bytes: &[u8]) -> usize {
        let State::Outside { tail } = &self.state else { return 0 };
        if !self.fast || !self.ground || tail.contains('[') {
            return 0;
        }
        let mut end = bytes.len();
        let mut from = 0;
        while let Some(at) = memchr::memchr(b'[', &bytes[from..]).map(|at| from + at) {
            let csi = at > 0 && bytes[at - 1] == 0x1B;
            let no_marker = matches!(bytes.get(at + 1), Some(b'\n' | b'\r' | b'\t'))
                || bytes.get(at + 1).is_some_and(|next| (0x20..=0x7E).contains(next) && !b"CSD".contains(next));
            if !csi && !no_marker {
                end = at;
                break;
            }
            from = at + 1;
        }
        if ground_after(&bytes[..end], true) {
            return end;
        }
        // Up to the escape left unfinished, when what comes before it ends between sequences.
        match memchr::memrchr(0x1B, &bytes[..end]) {
            Some(escape) if ground_after(&bytes[..escape], true) => escape,
            _ => 0,
        }
    }

    /// Takes in the next bytes of output; returns the blocks they complete.
    pub fn feed(&mut self, bytes: &[u8]) -> Vec<ScanEvent> {
        let mut joined;
        let bytes = if self.carry.is_empty() {
            bytes
        } else {
            joined = std::mem::take(&mut self.carry);
            joined.extend_from_slice(bytes);
            &joined[..]
        };
        let (whole, cut) = bytes.split_at(incomplete_utf8_start(bytes));
        self.carry.extend_from_slice(cut);
        let mut events = Vec::new();
        let mut rest = whole;
        while !rest.is_empty() {
            let quiet = self.quiet_prefix(rest);
            if quiet > 0 {
                // Its text holds no `[` a marker may follow: nothing of it can be part of
                // one, and what was kept from before cannot begin one. (A line end kept
                // pending matters only inside a block.)
                self.state = State::Outside { tail: String::new() };
                self.after_cr = false;
                rest = &rest[quiet..];
                continue;
            }
            // Through the parser up to the end of the line (where the next quiet part may start).
            let line_end = rest.get(LONGEST_MARKER..).and_then(|after| memchr::memchr(b'\n', after));
            let loud = line_end.map_or(rest.len(), |at| LONGEST_MARKER + at + 1);
            self.parse(&rest[..loud], &mut events);
            rest = &rest[loud..];
        }
        events
    }

    /// Puts `bytes` through the terminal parser and looks for blocks in their text.
    fn parse(&mut self, bytes: &[u8], events: &mut Vec<ScanEvent>) {
        let mut plain = PlainText { text: String::with_capacity(bytes.len()), after_cr: self.after_cr };
        self.parser.advance(&mut plain, bytes);
        self.ground = ground_after(bytes, self.ground);
        self.after_cr = plain.after_cr;
        self.scan(plain.text, events);
    }

    /// The output ended: a block still open is malformed.
    pub fn finish(&mut self) -> Option<ScanEvent> {
        if !self.carry.is_empty() {
            // What the cut-short character would have been, as if read whole.
            let carry = std::mem::take(&mut self.carry);
            let mut plain = PlainText { text: String::new(), after_cr: self.after_cr };
            self.parser.advance(&mut plain, &carry);
            self.ground = ground_after(&carry, self.ground);
            self.after_cr = plain.after_cr;
            let mut events = Vec::new();
            self.scan(plain.text, &mut events);
            debug_assert!(events.is_empty(), "an unfinished character completes no block");
        }
        match std::mem::replace(&mut self.state, State::Outside { tail: String::new() }) {
            State::Inside { kind, body, .. } => {
                Some(ScanEvent::Malformed { kind, reason: "the block was never closed".into(), raw: body })
            }
            State::Skipping { kind, .. } => Some(too_long(kind, self.cap)),
            State::Outside { .. } => None,
        }
    }

    fn scan(&mut self, mut text: String, events: &mut Vec<ScanEvent>) {
        loop {
            match &mut self.state {
                State::Outside { tail } => {
                    tail.push_str(&text);
                    let Some((at, kind)) = find_open(tail) else {
                        keep_last(tail, LONGEST_MARKER);
                        return;
                    };
                    text = tail[at + kind.open().len()..].to_owned();
                    self.state = State::Inside { kind, body: String::new(), searched: 0 };
                }
                State::Inside { kind, body, searched } => {
                    let kind = *kind;
                    body.push_str(&text);
                    let from = floor_boundary(body, searched.saturating_sub(LONGEST_MARKER));
                    let close = body[from..].find(&kind.close()).map(|i| from + i);
                    // Another block opening first means this one was never closed.
                    let reopen = find_open(&body[from..]).map(|(i, k)| (from + i, k));
                    match (close, reopen) {
                        (Some(end), reopen) if end > self.cap && reopen.is_none_or(|(start, _)| end < start) => {
                            let rest = body[end + kind.close().len()..].to_owned();
                            events.push(too_long(kind, self.cap));
                            self.state = State::Outside { tail: String::new() };
                            text = rest;
                        }
                        (Some(end), reopen) if reopen.is_none_or(|(start, _)| end < start) => {
                            let rest = body[end + kind.close().len()..].to_owned();
                            events.push(parse_block(kind, &body[..end]));
                            self.state = State::Outside { tail: String::new() };
                            text = rest;
                        }
                        (_, Some((start, _))) => {
                            let rest = body[start..].to_owned();
                            events.push(ScanEvent::Malformed {
                                kind,
                                reason: "the block was never closed".into(),
                                raw: body[..start].to_owned(),
                            });
                            self.state = State::Outside { tail: String::new() };
                            text = rest;
                        }
                        _ if body.len() > self.cap => {
                            events.push(too_long(kind, self.cap));
                            let mut tail = std::mem::take(body);
                            keep_last(&mut tail, LONGEST_MARKER);
                            self.state = State::Skipping { kind, tail };
                            return;
                        }
                        _ => {
                            *searched = body.len();
                            return;
                        }
                    }
                }
                State::Skipping { kind, tail } => {
                    let kind = *kind;
                    tail.push_str(&text);
                    match tail.find(&kind.close()) {
                        Some(end) => {
                            text = tail[end + kind.close().len()..].to_owned();
                            self.state = State::Outside { tail: String::new() };
                        }
                        None => {
                            keep_last(tail, LONGEST_MARKER);
                            return;
                        }
                    }
                }
            }
        }
    }
}

/// Whether the terminal parser is between escape sequences after `bytes`,
/// having been so before them when `before` (true only when known; unknown is
/// false). An escape can only begin at ESC, so what follows the last one
/// decides: a whole CSI or plain escape sequence, then text.
fn ground_after(bytes: &[u8], before: bool) -> bool {
    let Some(at) = memchr::memrchr(0x1B, bytes) else { return before };
    let after = &bytes[at + 1..];
    let run = |from: usize, range: std::ops::RangeInclusive<u8>| {
        after[from..].iter().position(|byte| !range.contains(byte)).map_or(after.len(), |n| from + n)
    };
    // CAN and SUB end any sequence.
    if memchr::memchr2(0x18, 0x1A, after).is_some() {
        return true;
    }
    match after.first() {
        None => false,
        Some(b'[') => {
            let end = run(run(1, 0x30..=0x3F), 0x20..=0x2F);
            after.get(end).is_some_and(|byte| (0x40..=0x7E).contains(byte))
        }
        // An OSC string ends at BEL; the others (DCS, SOS, PM, APC) only at ST, an escape.
        Some(b']') => memchr::memchr(0x07, after).is_some(),
        Some(b'P' | b'X' | b'^' | b'_') => false,
        Some(_) => {
            let end = run(0, 0x20..=0x2F);
            after.get(end).is_some_and(|byte| (0x30..=0x7E).contains(byte))
        }
    }
}

fn too_long(kind: SignalKind, cap: usize) -> ScanEvent {
    ScanEvent::Malformed {
        kind,
        reason: format!("the block is longer than {cap} bytes; it was skipped"),
        raw: String::new(),
    }
}

/// The first opening marker in `text`.
fn find_open(text: &str) -> Option<(usize, SignalKind)> {
    SignalKind::ALL.iter().filter_map(|kind| text.find(&kind.open()).map(|at| (at, *kind))).min_by_key(|(at, _)| *at)
}

/// Keeps only the last `n` bytes (at a character boundary).
fn keep_last(text: &mut String, n: usize) {
    if text.len() > n {
        let cut = floor_boundary(text, text.len() - n);
        text.drain(..cut);
    }
}

fn floor_boundary(text: &str, mut at: usize) -> usize {
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// The append-only findings file agents working in parallel share.
pub const SHARED_FINDINGS_FILE: &str = "SHARED_FINDINGS.jsonl";

/// A line of the findings file that is not a JSON value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct MalformedLine {
    /// 1-based.
    pub line: u32,
    pub reason: String,
}

/// Reads the findings file: one JSON value per line; blank lines are
/// skipped, bad lines reported (never fatal).
pub fn parse_findings(text: &str) -> (Vec<Value>, Vec<MalformedLine>) {
    let mut findings = Vec::new();
    let mut malformed = Vec::new();
    for (index, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<Value>(line) {
            Ok(value) => findings.push(value),
            Err(error) => malformed.push(MalformedLine { line: index as u32 + 1, reason: error.to_string() }),
        }
    }
    (findings, malformed)
}

/// Scans a whole text at once (for `switchboard scan` and tests).
pub fn scan_all(bytes: &[u8]) -> Vec<ScanEvent> {
    let mut scanner = SignalScanner::new();
    let mut events = scanner.feed(bytes);
    events.extend(scanner.finish());
    events
}

#[cfg(test)]
mod tests;
