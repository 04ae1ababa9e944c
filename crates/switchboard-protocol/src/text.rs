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

/// The characters that reorder the text around them (left-to-right and
/// right-to-left marks, the Arabic letter mark, embeddings, overrides and
/// isolates): a name holding one could show in another order than it reads.
pub fn turns_direction(c: char) -> bool {
    matches!(c, '\u{200e}' | '\u{200f}' | '\u{061c}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// A name someone else chose (another machine's agent, its task) as it can
/// be shown safely: on one line, reading in the order it is stored. Its
/// control and direction characters are written as `\u{…}`; anything else,
/// right-to-left letters included, is kept. A plain name is returned as it is.
pub fn plain_name(name: &str) -> std::borrow::Cow<'_, str> {
    let odd = |c: char| c.is_control() || c == '\u{2028}' || c == '\u{2029}' || turns_direction(c);
    if !name.chars().any(odd) {
        return std::borrow::Cow::Borrowed(name);
    }
    let mut out = String::with_capacity(name.len() + 16);
    for c in name.chars() {
        if odd(c) {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_reads_on_one_line_in_the_order_it_is_stored() {
        let cases = [
            ("builder", "builder"),
            ("مساعد", "مساعد"),
            ("invoice\u{202e}fdp.exe", "invoice\\u{202e}fdp.exe"),
            ("a\u{2066}b\u{2069}", "a\\u{2066}b\\u{2069}"),
            ("two\nlines", "two\\u{a}lines"),
            ("mark\u{200f}", "mark\\u{200f}"),
        ];
        for (name, shown) in cases {
            assert_eq!(plain_name(name), shown, "{name:?}");
        }
    }

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
