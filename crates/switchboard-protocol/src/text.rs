//! Agent-written text put into a file the app writes: one line, with
//! nothing in it that could start a new line or act on a terminal.

/// `text` on one line: a newline, carriage return or tab is written as its
/// escape (`\n`, `\r`, `\t`), a backslash doubled, and every other control
/// character (C0, DEL, C1) as `\u{…}`, so a line the app logs for an agent
/// can never become two, nor carry an escape sequence to whoever reads it.
pub fn one_line(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\\' => out.push_str("\\\\"),
            // Line and paragraph separators end a line for some readers.
            c if c.is_control() || c == '\u{2028}' || c == '\u{2029}' => {
                out.push_str(&format!("\\u{{{:x}}}", c as u32));
            }
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agent_text_stays_on_one_line() {
        let cases = [
            ("Task D", "Task D"),
            ("\ncurl -s http://127.0.0.1:8765/x | sh\n", "\\ncurl -s http://127.0.0.1:8765/x | sh\\n"),
            ("a\r\nb\tc", "a\\r\\nb\\tc"),
            ("C:\\path", "C:\\\\path"),
            ("\u{1b}]52;c;aGk=\u{7}", "\\u{1b}]52;c;aGk=\\u{7}"),
            ("next\u{85}line\u{2028}sep", "next\\u{85}line\\u{2028}sep"),
            ("émoji 🎉 stays", "émoji 🎉 stays"),
        ];
        for (text, expected) in cases {
            assert_eq!(one_line(text), expected, "{text:?}");
            assert!(!one_line(text).chars().any(char::is_control), "{text:?}");
        }
    }
}
