//! Loop mode's decisions: after each iteration (a fresh session of the agent
//! working toward one goal), the judge says whether the loop is complete,
//! stalled, cancelled or goes on; and which error patterns become
//! guardrails. Pure functions over what the iteration left behind.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};
#[cfg(feature = "ts")]
use ts_rs::TS;

use crate::signal::plain_text;

/// The stop word a loop uses unless told otherwise.
pub const DEFAULT_STOP_WORD: &str = "LOOP_COMPLETE";
/// Iterations a loop may run unless told otherwise.
pub const DEFAULT_MAX_ITERATIONS: u32 = 10;
/// Identical stop reasons in a row that make a loop stalled, unless told
/// otherwise.
pub const DEFAULT_STALL_AFTER: u32 = 5;
/// Iterations an error line must appear in to become a guardrail.
pub const GUARDRAIL_AFTER: usize = 3;
/// The most recent iterations whose stop reasons guardrails are learned
/// from: a loop's whole history (thousands of iterations) is not read again
/// after each one, and an error that came back within the last hundred is
/// the one worth a warning.
pub const GUARDRAIL_WINDOW: usize = 100;

/// How many of the latest stop reasons the judge and the guardrails need
/// after an iteration: enough for a stall and for the guardrails' window.
pub fn stop_reasons_weighed(settings: &LoopSettings) -> usize {
    (settings.stall_after as usize).max(GUARDRAIL_WINDOW)
}

/// Failed starts in a row (the agent ended before the iteration's prompt
/// was typed) after which the loop ends as failed to start: an agent that
/// cannot start (no key, a broken command) would otherwise be restarted
/// for ever, each time counted as an iteration.
pub const MAX_FAILED_STARTS: u32 = 4;
/// The wait before the first retry of a failed start, in milliseconds; each
/// further retry waits twice as long (1 s, 2 s, 4 s), so a passing problem
/// (a network blip, a lock) has time to clear without a restart storm.
pub const FIRST_START_RETRY_MS: i64 = 1_000;

/// What follows a failed start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AfterFailedStart {
    /// Start the iteration again at this time (milliseconds since the epoch).
    RetryAt { at: i64 },
    /// Enough: the loop ends as failed to start.
    GiveUp,
}

/// The decision after a failed start at `failed_at`, the `in_a_row`-th in a
/// row (this one included): retry after 1 s, 2 s, 4 s…, and give up at
/// [`MAX_FAILED_STARTS`].
pub fn after_failed_start(in_a_row: u32, failed_at: i64) -> AfterFailedStart {
    if in_a_row >= MAX_FAILED_STARTS {
        return AfterFailedStart::GiveUp;
    }
    let doublings = in_a_row.saturating_sub(1).min(16);
    AfterFailedStart::RetryAt { at: failed_at + (FIRST_START_RETRY_MS << doublings) }
}

/// How a loop runs and when it ends.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct LoopSettings {
    /// What the loop works toward (written into its anchor).
    pub goal: String,
    /// Written on a line of its own in `progress.md`, it ends the loop.
    pub stop_word: String,
    /// `<promise>TEXT</promise>` in the agent's last message ends the loop.
    pub promise: Option<String>,
    /// The loop ends when this many iterations have run.
    pub max_iterations: u32,
    /// This many identical stop reasons in a row stall the loop.
    pub stall_after: u32,
    /// Seconds an iteration may run; none: no limit.
    pub iteration_time_limit_secs: Option<u32>,
    /// What the whole loop may use: once used up, the iteration at work
    /// ends over budget, and the loop with it.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub budget: Option<crate::usage::Budget>,
}

impl LoopSettings {
    /// A loop toward `goal` with the defaults.
    pub fn new(goal: impl Into<String>) -> LoopSettings {
        LoopSettings {
            goal: goal.into(),
            stop_word: DEFAULT_STOP_WORD.to_owned(),
            promise: None,
            max_iterations: DEFAULT_MAX_ITERATIONS,
            stall_after: DEFAULT_STALL_AFTER,
            iteration_time_limit_secs: None,
            budget: None,
        }
    }
}

/// Why a loop is complete.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(tag = "by", rename_all = "snake_case")]
pub enum Completion {
    /// The stop word is in `progress.md`.
    StopWord { word: String },
    /// The agent's last message kept the promise.
    Promise { text: String },
    /// The cap on iterations was reached with the work not said done.
    MaxIterations { max: u32 },
}

/// The judge's verdict after an iteration.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(tag = "verdict", rename_all = "snake_case")]
pub enum Verdict {
    Complete {
        why: Completion,
    },
    /// The last `repeated` iterations stopped for the same reason.
    Stalled {
        repeated: u32,
        reason: String,
    },
    Continue,
    Cancelled,
}

impl Verdict {
    /// Whether the loop ends with it.
    pub fn ends(&self) -> bool {
        !matches!(self, Verdict::Continue)
    }
}

/// What the judge sees after an iteration.
#[derive(Debug, Clone, Copy)]
pub struct Evidence<'a> {
    /// The stop reasons of every iteration so far, oldest first, this one's
    /// last.
    pub stop_reasons: &'a [String],
    /// `progress.md` as the agent left it (none: there is none).
    pub progress: Option<&'a str>,
    /// The agent's last message (its Stop event's, else the last lines it
    /// printed).
    pub last_message: &'a str,
    /// Iterations run, this one included.
    pub iterations: u32,
    /// The user cancelled the loop.
    pub cancelled: bool,
}

/// The folder of the workspace the app owns, and a loop's files in it.
pub const LOOP_DIR: &str = ".switchboard";
pub const ANCHOR_FILE: &str = ".switchboard/anchor.md";
pub const PROGRESS_FILE: &str = ".switchboard/progress.md";
pub const GUARDRAILS_FILE: &str = ".switchboard/guardrails.md";

/// The anchor the app writes for a loop: its goal and its rules.
pub fn anchor_text(settings: &LoopSettings) -> String {
    let mut out = format!(
        "# Loop goal\n\n{}\n\n## Rules\n\n\
         - Each iteration is a fresh session: you remember nothing of the ones before. Read \
         `{PROGRESS_FILE}` first; it is the loop's memory.\n\
         - Work toward the goal in small steps. Before you stop, add to `{PROGRESS_FILE}` what you \
         did, what you learned and what comes next.\n\
         - Read `{GUARDRAILS_FILE}` if it exists: mistakes earlier iterations made again and again.\n\
         - When the goal is fully met, write `{}` on a line of its own at the end of `{PROGRESS_FILE}`. \
         Do not write it before.\n",
        settings.goal.trim(),
        settings.stop_word.trim(),
    );
    if let Some(promise) = settings.promise.as_deref().map(str::trim).filter(|p| !p.is_empty()) {
        out.push_str(&format!(
            "- You may instead end your last message with `<promise>{promise}</promise>`, only when it is true.\n"
        ));
    }
    out.push_str(&format!(
        "- The loop stops after {} iterations, or when the same reason to stop comes back {} times in a row.\n",
        settings.max_iterations, settings.stall_after
    ));
    out
}

/// What is typed to start an iteration: short, naming the loop's files (no
/// signal marker: the terminal echoes it).
pub fn iteration_prompt(iteration: u32, settings: &LoopSettings, guardrails: bool) -> String {
    let mut out = format!(
        "Loop iteration {iteration} of at most {}. Read {ANCHOR_FILE} for the goal and the rules, then {PROGRESS_FILE} \
         for what earlier iterations did.",
        settings.max_iterations
    );
    if guardrails {
        out.push_str(&format!(" Mind the warnings in {GUARDRAILS_FILE}: they repeat mistakes made before."));
    }
    out.push_str(&format!(
        " Work on the next step, then update {PROGRESS_FILE} before you stop; write {} there on a line of its own \
         only when the goal is fully met.",
        settings.stop_word.trim()
    ));
    out
}

/// Guardrails as lines to append to the guardrails file.
pub fn guardrail_lines(found: &[String]) -> String {
    found.iter().map(|line| format!("- Seen in 3 or more iterations: {}\n", crate::text::one_line(line))).collect()
}

/// The judge. Cancelled wins; then the work said done (stop word, then
/// promise), also when the cap is reached at the same time; then a stall
/// (the agent is stuck, even on its last allowed iteration); then the cap.
pub fn judge(settings: &LoopSettings, evidence: &Evidence<'_>) -> Verdict {
    if evidence.cancelled {
        return Verdict::Cancelled;
    }
    if evidence.progress.is_some_and(|progress| has_stop_word(progress, &settings.stop_word)) {
        return Verdict::Complete { why: Completion::StopWord { word: settings.stop_word.clone() } };
    }
    if let Some(promise) = settings.promise.as_deref().filter(|p| kept_promise(evidence.last_message, p)) {
        return Verdict::Complete { why: Completion::Promise { text: promise.to_owned() } };
    }
    if let Some(reason) = stalled(evidence.stop_reasons, settings.stall_after) {
        return Verdict::Stalled { repeated: settings.stall_after, reason };
    }
    if evidence.iterations >= settings.max_iterations {
        return Verdict::Complete { why: Completion::MaxIterations { max: settings.max_iterations } };
    }
    Verdict::Continue
}

/// A stop reason as compared: the text a terminal shows, its whitespace
/// collapsed.
pub fn normalize_reason(reason: &str) -> String {
    plain_text(reason).split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The stop word counts on a line of its own (Markdown emphasis, a heading
/// or list mark, or code quotes around it allowed): the anchor and the
/// agent's notes may mention it without ending the loop.
fn has_stop_word(progress: &str, word: &str) -> bool {
    let word = word.trim();
    !word.is_empty()
        && plain_text(progress)
            .lines()
            .any(|line| line.trim().trim_matches(|c: char| c.is_whitespace() || "*_#>-`.:!".contains(c)) == word)
}

/// `<promise>TEXT</promise>` in the message, however a terminal wrapped it
/// (whitespace, line breaks inside the tag or the text, escapes).
fn kept_promise(message: &str, promise: &str) -> bool {
    let squeeze = |text: &str| text.chars().filter(|c| !c.is_whitespace()).collect::<String>();
    let promise = squeeze(promise);
    !promise.is_empty() && squeeze(&plain_text(message)).contains(&format!("<promise>{promise}</promise>"))
}

/// The reason the last `after` iterations all stopped with, if they did.
fn stalled(reasons: &[String], after: u32) -> Option<String> {
    let after = after.max(1) as usize;
    if reasons.len() < after {
        return None;
    }
    let last: BTreeSet<String> = reasons[reasons.len() - after..].iter().map(|r| normalize_reason(r)).collect();
    (last.len() == 1).then(|| last.into_iter().next().expect("one reason"))
}

/// Error lines that came back in at least [`GUARDRAIL_AFTER`] iterations
/// and are not among the `known` guardrails yet: each, once, in the order
/// first seen. An error line says error, failed, panicked, exception or
/// traceback; numbers in it are ignored when comparing (line numbers,
/// counts and times differ from run to run).
pub fn new_guardrails(stop_reasons: &[String], known: &str) -> Vec<String> {
    let key = |line: &str| {
        let mut out = String::new();
        for c in line.chars() {
            if c.is_ascii_digit() {
                if !out.ends_with('#') {
                    out.push('#');
                }
            } else {
                out.push(c);
            }
        }
        out
    };
    let known: BTreeSet<String> = known.lines().map(|line| key(&normalize_reason(line))).collect();
    let mut seen: BTreeMap<String, (usize, usize, String)> = BTreeMap::new();
    for (iteration, reason) in stop_reasons.iter().enumerate() {
        let lines: BTreeSet<String> =
            plain_text(reason).lines().map(normalize_reason).filter(|l| is_error(l)).collect();
        for line in lines {
            let entry = seen.entry(key(&line)).or_insert((0, iteration, line));
            entry.0 += 1;
        }
    }
    let mut found: Vec<(usize, String)> = seen
        .into_iter()
        .filter(|(key, (count, ..))| *count >= GUARDRAIL_AFTER && !known.iter().any(|k| k.contains(key.as_str())))
        .map(|(_, (_, first, line))| (first, line))
        .collect();
    found.sort();
    found.into_iter().map(|(_, line)| line).collect()
}

fn is_error(line: &str) -> bool {
    let lower = line.to_lowercase();
    ["error", "failed", "panicked", "exception", "traceback"].iter().any(|word| lower.contains(word))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (name, stop reasons, progress.md, last message, iterations, cancelled, verdict)
    type Case<'a> = (&'a str, Vec<String>, Option<&'a str>, &'a str, u32, bool, Verdict);

    fn reasons(list: &[&str]) -> Vec<String> {
        list.iter().map(|r| r.to_string()).collect()
    }

    /// Every transition of the loop's state machine (spec §1) and of the
    /// Stop event's processing (§2): the verdict for each situation.
    #[test]
    fn the_judge_names_why_a_loop_ends_or_goes_on() {
        let settings = LoopSettings {
            promise: Some("ALL TESTS PASS".into()),
            max_iterations: 4,
            stall_after: 3,
            ..LoopSettings::new("Make the tests pass")
        };
        let stop_word = Verdict::Complete { why: Completion::StopWord { word: DEFAULT_STOP_WORD.into() } };
        let promise = Verdict::Complete { why: Completion::Promise { text: "ALL TESTS PASS".into() } };
        let max = Verdict::Complete { why: Completion::MaxIterations { max: 4 } };
        let varied = reasons(&["fixed a", "fixed b"]);
        let same = reasons(&["3 tests fail", "3 tests fail", "3 tests fail"]);
        #[rustfmt::skip]
        let cases: Vec<Case> = vec![
            ("work goes on", varied.clone(), Some("- parser done\n"), "Fixed b.", 2, false, Verdict::Continue),
            ("no progress file yet", varied.clone(), None, "Fixed b.", 2, false, Verdict::Continue),
            ("stop word on its own line", varied.clone(), Some("notes\nLOOP_COMPLETE\n"), "", 2, false, stop_word.clone()),
            ("stop word in emphasis", varied.clone(), Some("**LOOP_COMPLETE**"), "", 2, false, stop_word.clone()),
            // The agent repeating its instructions is not the end.
            ("stop word only mentioned", varied.clone(), Some("Write LOOP_COMPLETE here when done"), "", 2, false, Verdict::Continue),
            ("stop word only in the message", varied.clone(), Some("- half"), "I will write LOOP_COMPLETE", 2, false, Verdict::Continue),
            ("promise kept", varied.clone(), None, "Done. <promise>ALL TESTS PASS</promise>", 2, false, promise.clone()),
            ("promise split by the terminal", varied.clone(), None, "Done. <prom\r\nise>ALL TESTS\r\n PASS</promise>", 2, false, promise.clone()),
            ("promise in escapes", varied.clone(), None, "\u{1b}[1m<promise>ALL TESTS PASS</promise>\u{1b}[0m", 2, false, promise.clone()),
            ("another promise", varied.clone(), None, "<promise>SOME TESTS PASS</promise>", 2, false, Verdict::Continue),
            ("max reached", varied.clone(), None, "", 4, false, max.clone()),
            ("max reached with the stop word", varied.clone(), Some("LOOP_COMPLETE"), "", 4, false, stop_word.clone()),
            ("max reached with the promise", varied.clone(), None, "<promise>ALL TESTS PASS</promise>", 4, false, promise.clone()),
            ("past max (after a restart)", varied.clone(), None, "", 5, false, max.clone()),
            ("stalled", same.clone(), None, "", 3, false, Verdict::Stalled { repeated: 3, reason: "3 tests fail".into() }),
            ("stalled on the last iteration", reasons(&["a", "x", "x", "x"]), None, "", 4, false, Verdict::Stalled { repeated: 3, reason: "x".into() }),
            ("same once too few", reasons(&["a", "x", "x"]), None, "", 3, false, Verdict::Continue),
            ("same after escapes and spaces", reasons(&["3 tests  fail\n", "\u{1b}[31m3 tests fail\u{1b}[0m", " 3 tests fail"]), None, "", 3, false,
                Verdict::Stalled { repeated: 3, reason: "3 tests fail".into() }),
            ("done while stalling", same.clone(), Some("LOOP_COMPLETE"), "", 3, false, stop_word.clone()),
            ("cancelled", same.clone(), Some("LOOP_COMPLETE"), "", 4, true, Verdict::Cancelled),
        ];
        for (name, stop_reasons, progress, last_message, iterations, cancelled, expected) in cases {
            let evidence = Evidence { stop_reasons: &stop_reasons, progress, last_message, iterations, cancelled };
            assert_eq!(judge(&settings, &evidence), expected, "{name}");
        }
        assert!(!Verdict::Continue.ends() && Verdict::Cancelled.ends());
    }

    #[test]
    fn the_loop_files_and_prompt_name_the_goal_the_stop_word_and_each_other() {
        let settings =
            LoopSettings { promise: Some("ALL TESTS PASS".into()), ..LoopSettings::new("Make the tests pass") };
        let anchor = anchor_text(&settings);
        assert!(anchor.starts_with("# Loop goal\n\nMake the tests pass\n"));
        for needle in [
            PROGRESS_FILE,
            GUARDRAILS_FILE,
            "`LOOP_COMPLETE` on a line of its own",
            "<promise>ALL TESTS PASS</promise>",
            "after 10 iterations",
            "5 times",
        ] {
            assert!(anchor.contains(needle), "{needle}: {anchor}");
        }
        // The anchor mentions the stop word, but never on a line of its own.
        assert!(!has_stop_word(&anchor, DEFAULT_STOP_WORD));
        let prompt = iteration_prompt(3, &settings, false);
        assert!(prompt.starts_with("Loop iteration 3 of at most 10. Read .switchboard/anchor.md"));
        assert!(!prompt.contains(GUARDRAILS_FILE));
        assert!(iteration_prompt(4, &settings, true).contains(GUARDRAILS_FILE));
        assert!(crate::signal::scan_all(prompt.as_bytes()).is_empty());
        assert!(!has_stop_word(&prompt, DEFAULT_STOP_WORD), "its echo does not end the loop");
        assert_eq!(guardrail_lines(&["error: x".into()]), "- Seen in 3 or more iterations: error: x\n");
    }

    /// Failed starts are retried later and later, then given up on.
    #[test]
    fn a_failed_start_is_retried_with_backoff_then_given_up() {
        let at = 1_700_000_000_000;
        let cases = [
            (1, AfterFailedStart::RetryAt { at: at + 1_000 }),
            (2, AfterFailedStart::RetryAt { at: at + 2_000 }),
            (3, AfterFailedStart::RetryAt { at: at + 4_000 }),
            (MAX_FAILED_STARTS, AfterFailedStart::GiveUp),
            (MAX_FAILED_STARTS + 1, AfterFailedStart::GiveUp),
        ];
        for (in_a_row, expected) in cases {
            assert_eq!(after_failed_start(in_a_row, at), expected, "failed start {in_a_row} in a row");
        }
        // The first of a row (none before it counted) waits the shortest.
        assert_eq!(after_failed_start(0, at), AfterFailedStart::RetryAt { at: at + 1_000 });
    }

    /// The judge reads the latest stop reasons only: enough for a stall
    /// and for the guardrails' window, whichever is longer.
    #[test]
    fn the_latest_stop_reasons_are_weighed_not_the_whole_history() {
        let cases = [(2, GUARDRAIL_WINDOW), (5, GUARDRAIL_WINDOW), (100, 100), (101, 101), (10_000, 10_000)];
        for (stall_after, weighed) in cases {
            let settings = LoopSettings { stall_after, ..LoopSettings::new("x") };
            assert_eq!(stop_reasons_weighed(&settings), weighed, "stall after {stall_after}");
        }
    }

    #[test]
    fn an_error_back_three_times_becomes_a_guardrail_once() {
        let seen = reasons(&[
            "build ok\nerror[E0308]: mismatched types at src/lib.rs:10",
            "test parser ... FAILED",
            "error[E0308]: mismatched types at src/lib.rs:12\ntest parser ... FAILED",
            "\u{1b}[31merror[E0308]: mismatched types at src/lib.rs:14\u{1b}[0m",
            "Traceback (most recent call last)",
        ]);
        assert_eq!(new_guardrails(&seen, ""), ["error[E0308]: mismatched types at src/lib.rs:10"]);
        // Twice is not yet a pattern; one known already is not added again.
        assert_eq!(
            new_guardrails(&seen[..4], "- error[E0308]: mismatched types at src/lib.rs:10\n"),
            Vec::<String>::new()
        );
        let more = [seen.clone(), vec!["test parser ... FAILED".into()]].concat();
        assert_eq!(
            new_guardrails(&more, ""),
            ["error[E0308]: mismatched types at src/lib.rs:10", "test parser ... FAILED"]
        );
        assert!(new_guardrails(&reasons(&["all good", "all good", "all good"]), "").is_empty(), "only errors");
    }
}
