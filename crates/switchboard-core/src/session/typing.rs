//! Typing a task into an agent: when the agent is ready for input, and the
//! bytes that make one submission of a possibly multi-line text. Pure
//! functions; the session actor applies them.

use std::time::Duration;

use regex::Regex;

use crate::error::EngineError;
use switchboard_api::{Profile, ScreenPrompt};

/// Between the pasted text and the Enter that submits it. Agent TUIs treat
/// an Enter that arrives in the same read as a paste as part of the paste.
pub const ENTER_DELAY: Duration = Duration::from_millis(100);

const PASTE_START: &str = "\x1b[200~";
const PASTE_END: &str = "\x1b[201~";

/// When a profile's agent counts as ready for a task.
#[derive(Debug, Clone)]
pub struct ReadyWhen {
    /// Must match the line under the cursor, up to the cursor.
    pub pattern: Option<Regex>,
    /// Output must have been quiet this long.
    pub quiet: Duration,
}

impl ReadyWhen {
    /// The profile's readiness rule: its ready pattern (checked here, as a
    /// regular expression) and quiet time.
    pub fn for_profile(profile: &Profile) -> Result<ReadyWhen, EngineError> {
        let pattern = profile
            .spec
            .ready_pattern
            .as_deref()
            .map(Regex::new)
            .transpose()
            .map_err(|e| EngineError::InvalidInput { field: "ready_pattern", reason: e.to_string() })?;
        Ok(ReadyWhen { pattern, quiet: Duration::from_millis(profile.spec.ready_quiet_ms.into()) })
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Readiness {
    Ready,
    /// Quiet for too short a time: check again after this long.
    WaitQuiet(Duration),
    /// Quiet, but the prompt is not on screen: wait for more output.
    WaitPattern,
    /// The agent's hooks say it is at work or asking the user something:
    /// wait until they say it is back at its prompt.
    WaitAgent,
}

/// Why a text is not typed yet, as the session actor reports it for the
/// task it carries (the engine words it as the task's wait).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Held {
    /// The agent's output has not been quiet long enough yet.
    Output,
    /// Its hooks have not reported yet; typing goes by the screen alone at `until`.
    Hooks { until: switchboard_api::Millis },
    /// Its hooks say it is at work or asking something.
    AgentBusy,
    /// Quiet, but the ready pattern does not match: the screen's last line.
    Prompt { last_line: String },
}

/// The longest screen line a [`Held::Prompt`] keeps, in characters.
pub const HELD_LINE_CHARS: usize = 200;

/// What a wait of `readiness` is held by: none when the text may be typed.
/// `hooks_until`: while the hooks have not reported yet, when typing stops
/// waiting for them; `last_line`: the screen's last line, kept escaped
/// and cut to [`HELD_LINE_CHARS`].
pub fn held(readiness: Readiness, hooks_until: Option<switchboard_api::Millis>, last_line: &str) -> Option<Held> {
    match readiness {
        Readiness::Ready => None,
        Readiness::WaitQuiet(_) => Some(Held::Output),
        Readiness::WaitAgent => Some(match hooks_until {
            Some(until) => Held::Hooks { until },
            None => Held::AgentBusy,
        }),
        Readiness::WaitPattern => {
            let line = switchboard_protocol::text::one_line(last_line.trim_end());
            let last_line = match line.char_indices().nth(HELD_LINE_CHARS) {
                Some((cut, _)) => format!("{}…", &line[..cut]),
                None => line,
            };
            Some(Held::Prompt { last_line })
        }
    }
}

impl ReadyWhen {
    /// When an agent that answered a typed text is done with it: back at the
    /// prompt its pattern matches, quiet for its quiet time; without a
    /// pattern, quiet for `turn_quiet` (longer: quiet alone must tell a
    /// finished agent from a thinking one). None: without a pattern and with
    /// `turn_quiet` zero, nothing can tell.
    pub fn turn_over(&self, turn_quiet: Duration) -> Option<ReadyWhen> {
        match &self.pattern {
            Some(_) => Some(self.clone()),
            None if turn_quiet.is_zero() => None,
            None => Some(ReadyWhen { pattern: None, quiet: turn_quiet.max(self.quiet) }),
        }
    }
}

/// Whether an agent whose cursor line reads `cursor_line`, whose output
/// has been quiet for `quiet_for`, and whose hooks say it is `busy` (or
/// have said nothing) may be typed into.
pub fn readiness(ready: &ReadyWhen, cursor_line: &str, quiet_for: Duration, busy: bool) -> Readiness {
    if busy {
        return Readiness::WaitAgent;
    }
    if quiet_for < ready.quiet {
        return Readiness::WaitQuiet(ready.quiet - quiet_for);
    }
    match &ready.pattern {
        Some(pattern) if !pattern.is_match(cursor_line) => Readiness::WaitPattern,
        _ => Readiness::Ready,
    }
}

/// The bytes that put `text` on the agent's input line as one submission
/// (the Enter is sent separately, after [`ENTER_DELAY`]). With bracketed
/// paste the lines stay lines; without it a newline would submit early, so
/// lines are joined with spaces. Control characters are dropped either way,
/// so the text cannot end the paste or send keystrokes of its own.
pub fn typed_input(text: &str, bracketed: bool) -> Vec<u8> {
    let keep = |c: &char| !c.is_control() || *c == '\n' || *c == '\t';
    if bracketed {
        let body: String = text.replace("\r\n", "\n").replace('\r', "\n").chars().filter(keep).collect();
        format!("{PASTE_START}{body}{PASTE_END}").into_bytes()
    } else {
        let body: String = text.chars().filter(keep).map(|c| if c == '\n' || c == '\t' { ' ' } else { c }).collect();
        body.into_bytes()
    }
}

/// The screen's last line with text, and the ready pattern that matches it
/// where a readiness check reads it (the cursor's line up to the cursor,
/// blanks around the prompt included): every character of the line taken
/// literally (`regex::escape`), anchored at both ends. None: the screen is
/// blank.
pub fn prompt_of(screen: &str) -> Option<ScreenPrompt> {
    let line = screen.lines().rev().map(str::trim).find(|line| !line.is_empty())?;
    Some(ScreenPrompt { line: line.to_owned(), ready_pattern: format!(r"^\s*{}\s*$", regex::escape(line)) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn readiness_cases() {
        let prompt = ReadyWhen { pattern: Some(Regex::new("demo> $").unwrap()), quiet: Duration::from_millis(300) };
        let quiet_only = ReadyWhen { pattern: None, quiet: Duration::from_millis(800) };
        let ms = Duration::from_millis;
        let cases = [
            (&prompt, "demo> ", ms(300), false, Readiness::Ready),
            (&prompt, "demo> ", ms(100), false, Readiness::WaitQuiet(ms(200))),
            (&prompt, "[2/4] Editing files", ms(5000), false, Readiness::WaitPattern),
            // Something already typed after the prompt: not ready.
            (&prompt, "demo> half a comm", ms(5000), false, Readiness::WaitPattern),
            (&quiet_only, "anything", ms(800), false, Readiness::Ready),
            (&quiet_only, "", ms(799), false, Readiness::WaitQuiet(ms(1))),
            // Quiet at its prompt, but its hooks say it works (a long tool
            // call, a permission dialog): not ready.
            (&prompt, "demo> ", ms(5000), true, Readiness::WaitAgent),
            (&quiet_only, "", ms(5000), true, Readiness::WaitAgent),
        ];
        for (ready, line, quiet_for, busy, expected) in cases {
            assert_eq!(readiness(ready, line, quiet_for, busy), expected, "{line:?} after {quiet_for:?} busy={busy}");
        }
    }

    #[test]
    fn what_holds_a_text_back_is_said_with_what_the_user_needs() {
        let ms = Duration::from_millis;
        let cases = [
            (Readiness::Ready, None, "demo> ", None),
            (Readiness::WaitQuiet(ms(5)), None, "loading", Some(Held::Output)),
            (Readiness::WaitAgent, Some(9_000), "", Some(Held::Hooks { until: 9_000 })),
            (Readiness::WaitAgent, None, "", Some(Held::AgentBusy)),
            (Readiness::WaitPattern, None, "agent> ", Some(Held::Prompt { last_line: "agent>".into() })),
            // Agent text: its controls escaped, never passed on.
            (Readiness::WaitPattern, None, "a\x07b\\", Some(Held::Prompt { last_line: "a\\u{7}b\\\\".into() })),
        ];
        for (readiness, hooks_until, line, expected) in cases {
            assert_eq!(held(readiness, hooks_until, line), expected, "{readiness:?} {line:?}");
        }
        let long = "x".repeat(HELD_LINE_CHARS + 10);
        let Some(Held::Prompt { last_line }) = held(Readiness::WaitPattern, None, &long) else { panic!() };
        assert_eq!(last_line.chars().count(), HELD_LINE_CHARS + 1, "cut, and said to be");
    }

    #[test]
    fn a_turn_is_over_at_the_prompt_or_after_a_longer_quiet() {
        let ms = Duration::from_millis;
        let prompt = ReadyWhen { pattern: Some(Regex::new("demo> $").unwrap()), quiet: ms(300) };
        let quiet_only = ReadyWhen { pattern: None, quiet: ms(800) };
        let over = prompt.turn_over(ms(30_000)).unwrap();
        assert_eq!((over.pattern.map(|p| p.to_string()), over.quiet), (Some("demo> $".into()), ms(300)));
        let over = quiet_only.turn_over(ms(30_000)).unwrap();
        assert_eq!((over.pattern.is_none(), over.quiet), (true, ms(30_000)));
        assert_eq!(readiness(&over, "answer", ms(29_999), false), Readiness::WaitQuiet(ms(1)));
        assert_eq!(readiness(&over, "answer", ms(30_000), false), Readiness::Ready);
        // Never shorter than the agent's own quiet time.
        assert_eq!(quiet_only.turn_over(ms(100)).unwrap().quiet, ms(800));
        assert!(quiet_only.turn_over(Duration::ZERO).is_none(), "nothing can tell");
        assert!(prompt.turn_over(Duration::ZERO).is_some(), "its prompt tells");
    }

    #[test]
    fn typed_input_is_one_submission() {
        let cases: [(&str, bool, &[u8]); 5] = [
            ("fix it", true, b"\x1b[200~fix it\x1b[201~"),
            ("line one\r\nline two", true, b"\x1b[200~line one\nline two\x1b[201~"),
            ("line one\nline two\tend", false, b"line one line two end"),
            // A text that tries to end the paste early and press keys itself.
            ("a\x1b[201~\x03b", true, b"\x1b[200~a[201~b\x1b[201~"),
            ("a\x1b[201~\rb", false, b"a[201~b"),
        ];
        for (text, bracketed, expected) in cases {
            assert_eq!(typed_input(text, bracketed), expected, "{text:?} bracketed={bracketed}");
        }
    }

    #[test]
    fn a_prompt_from_the_screen_is_its_last_line_taken_literally_and_anchored() {
        // (screen, the line, the pattern)
        let cases: &[(&str, Option<(&str, &str)>)] = &[
            ("", None),
            ("\n   \n", None),
            ("Welcome\nagent> ", Some(("agent>", r"^\s*agent>\s*$"))),
            ("demo> $\n\n\n", Some(("demo> $", r"^\s*demo> \$\s*$"))),
            ("  [user@host ~]$ ", Some(("[user@host ~]$", r"^\s*\[user@host \~\]\$\s*$"))),
            ("(venv) *? a.b|c+", Some(("(venv) *? a.b|c+", r"^\s*\(venv\) \*\? a\.b\|c\+\s*$"))),
            ("❯", Some(("❯", r"^\s*❯\s*$"))),
        ];
        for (screen, expected) in cases {
            let prompt = prompt_of(screen);
            assert_eq!(prompt.as_ref().map(|p| (p.line.as_str(), p.ready_pattern.as_str())), *expected, "{screen:?}");
        }
        // The pattern matches the prompt as the readiness check reads it, and not once typed after.
        for (screen, cursor_line, typed) in [
            ("agent> ", "agent> ", "agent> fix it"),
            ("  [user@host ~]$ ", "  [user@host ~]$ ", "  [user@host ~]$ ls"),
            ("(venv) *? a.b|c+", "(venv) *? a.b|c+ ", "(venv) *? aXb|c+ "),
        ] {
            let pattern = Regex::new(&prompt_of(screen).unwrap().ready_pattern).unwrap();
            assert!(pattern.is_match(cursor_line), "{screen:?}");
            assert!(!pattern.is_match(typed), "{screen:?}: {typed:?}");
        }
    }
}
