//! What the command line prints, and how: `--json` as the engine holds it,
//! or words for a person, every character an agent wrote shown escaped
//! ([`shown`]), lists as aligned columns.

use std::io::Write;

use anyhow::Result;

use crate::Output;

/// Prints `value`: as the engine holds it with `--json`, else in `human`'s
/// words, shown escaped.
pub(crate) fn print<T: serde::Serialize>(
    out: &mut impl Write,
    output: Output,
    value: &T,
    human: impl FnOnce(&T) -> String,
) -> Result<()> {
    if output.json {
        serde_json::to_writer_pretty(&mut *out, value)?;
        writeln!(out)?;
    } else {
        // Agents write much of what is printed: nothing of it may speak to the terminal.
        let text = human(value);
        let text = shown(&text, Lines::Kept);
        if !text.is_empty() {
            writeln!(out, "{text}")?;
        }
    }
    Ok(())
}

/// Whether [`shown`] keeps line breaks and tabs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lines {
    /// Multi-line text (a summary, an instruction): `\n` and `\t` kept.
    Kept,
    /// A field printed on one line of its own (a reason, a name): every
    /// control escaped, so it cannot pose as the next line.
    Escaped,
}

/// Text as it may reach a terminal: every control character (C0, DEL, C1)
/// and every character that turns the direction of the text (the bidi
/// overrides and isolates) is written as its escape (`\x1b`, `\u{9b}`,
/// `\u{202e}`), so an escape sequence an agent wrote is shown, not run:
/// no clipboard write (OSC 52), window title, cursor move or line erase.
/// Only `\n` and `\t` pass, and only with [`Lines::Kept`]. Escaping is all
/// it does, so it can be applied twice.
pub fn shown(text: &str, lines: Lines) -> std::borrow::Cow<'_, str> {
    let passes = |c: char| match c {
        '\n' | '\t' => lines == Lines::Kept,
        _ => !c.is_control() && !switchboard_api::protocol::text::turns_direction(c),
    };
    if text.chars().all(passes) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut escaped = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        match c {
            _ if passes(c) => escaped.push(c),
            '\n' => escaped.push_str("\\n"),
            '\t' => escaped.push_str("\\t"),
            '\r' => escaped.push_str("\\r"),
            '\0'..='\x7f' => escaped.push_str(&format!("\\x{:02x}", c as u32)),
            _ => escaped.push_str(&format!("\\u{{{:x}}}", c as u32)),
        }
    }
    std::borrow::Cow::Owned(escaped)
}

pub(crate) fn first_line(text: &str, max: usize) -> String {
    let line = text.lines().next().unwrap_or_default();
    if line.chars().count() > max {
        format!("{}…", line.chars().take(max - 1).collect::<String>())
    } else {
        line.into()
    }
}

/// Rows as aligned columns, two spaces apart, measured by the width each
/// character takes on a terminal (tabwriter); each cell on one line with its
/// controls escaped (a tab in a cell would start a column of its own).
pub(crate) fn columns(rows: impl IntoIterator<Item = Vec<String>>) -> String {
    let mut table = tabwriter::TabWriter::new(Vec::new()).padding(2);
    for row in rows {
        let cells: Vec<String> = row.iter().map(|cell| one_line(cell)).collect();
        writeln!(table, "{}", cells.join("\t")).expect("writing to memory does not fail");
    }
    let bytes = table.into_inner().expect("flushing to memory does not fail");
    String::from_utf8(bytes).expect("tabwriter keeps the UTF-8 it is given").trim_end().to_owned()
}

/// A state as a person reads it: `failed_to_start` (a loop) and
/// `failed_start` (an iteration) are "failed to start", `timed_out` "timed
/// out" (`--json` keeps the names).
pub(crate) fn words(state: &str) -> String {
    match state {
        "failed_start" => "failed to start".to_owned(),
        other => other.replace('_', " "),
    }
}

/// A field printed on a line of its own, its controls and line breaks escaped.
pub(crate) fn one_line(text: &str) -> String {
    shown(text, Lines::Escaped).into_owned()
}

pub(crate) fn indent(text: &str) -> String {
    text.lines().map(|line| format!("  {line}")).collect::<Vec<_>>().join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agent_text_is_shown_with_its_controls_escaped() {
        let cases = [
            ("plain words, é and 漢字", Lines::Kept, "plain words, é and 漢字"),
            ("two\n\tlines", Lines::Kept, "two\n\tlines"),
            ("two\n\tlines", Lines::Escaped, r"two\n\tlines"),
            ("\x1b]52;c;aGk=\x07", Lines::Kept, r"\x1b]52;c;aGk=\x07"),
            ("\x1b]0;title\x1b\\", Lines::Kept, r"\x1b]0;title\x1b\"),
            ("over\rwrite\x1b[2K", Lines::Kept, r"over\rwrite\x1b[2K"),
            ("\u{9b}31m C1 \u{7f}", Lines::Kept, r"\u{9b}31m C1 \x7f"),
            ("abc\u{202e}fed", Lines::Kept, r"abc\u{202e}fed"),
            ("\0nul", Lines::Escaped, r"\x00nul"),
        ];
        for (text, lines, expected) in cases {
            let once = shown(text, lines);
            assert_eq!(once, expected, "{text:?}");
            assert_eq!(shown(&once, lines), once, "escaping twice changes nothing: {text:?}");
        }
    }
}
