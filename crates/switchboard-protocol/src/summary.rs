//! The task summary an agent writes to `summaries/<task_id>.md` when it
//! finishes a task, and the prompt that asks for it.
//!
//! The summary is Markdown with level-two sections (Objective,
//! Accomplishments, Key Deliverables, Test Results, Important Notes, Status).
//! Agents write it by hand, so the parser is lenient: section names match
//! case-insensitively, missing sections are empty, and the status is found in
//! its word or emoji form.

use std::sync::LazyLock;

use regex::Regex;
use serde::{Deserialize, Serialize};
#[cfg(feature = "ts")]
use ts_rs::TS;

use crate::TaskId;
use crate::capped::{MAX_LIST_ITEMS, MAX_PATH_BYTES, MAX_TEXT_FIELD_BYTES, capped, capped_list};

/// How the agent says the task went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(rename_all = "snake_case")]
pub enum SummaryStatus {
    Completed,
    Partial,
    Failed,
}

/// Test counts, where the summary states them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct TestCounts {
    pub passed: Option<u32>,
    pub failed: Option<u32>,
}

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct Summary {
    pub objective: String,
    pub accomplishments: Vec<String>,
    /// Paths listed as `` `path` `` items under Key Deliverables, in order,
    /// exactly as written (not yet checked against the workspace).
    pub deliverables: Vec<String>,
    pub test_results: String,
    pub tests: Option<TestCounts>,
    pub notes: Vec<String>,
    /// `None` when the Status section names none of the three.
    pub status: Option<SummaryStatus>,
}

/// Parses a summary file's text. Never fails: what cannot be found is empty.
/// Each section is kept within its cap ([`crate::capped`]): prose at
/// `MAX_TEXT_FIELD_BYTES`, lists at `MAX_LIST_ITEMS`, and deliverables
/// (paths, where a marked item would name a file) their first
/// `MAX_LIST_ITEMS` at `MAX_PATH_BYTES` each.
pub fn parse_summary(text: &str) -> Summary {
    let sections = sections(text);
    let section = |names: &[&str]| {
        sections.iter().find(|(title, _)| names.iter().any(|n| title.eq_ignore_ascii_case(n))).map_or("", |(_, b)| b)
    };
    let test_results = section(&["Test Results", "Tests"]).trim();
    Summary {
        objective: capped(section(&["Objective"]).trim(), MAX_TEXT_FIELD_BYTES),
        accomplishments: capped_list(list_items(section(&["Accomplishments"])), MAX_TEXT_FIELD_BYTES),
        deliverables: deliverables(section(&["Key Deliverables", "Deliverables"]))
            .into_iter()
            .take(MAX_LIST_ITEMS)
            .map(|path| capped(path, MAX_PATH_BYTES))
            .collect(),
        tests: test_counts(test_results),
        test_results: capped(test_results, MAX_TEXT_FIELD_BYTES),
        notes: capped_list(list_items(section(&["Important Notes", "Notes"])), MAX_TEXT_FIELD_BYTES),
        status: status_of(section(&["Status"])),
    }
}

/// `(title, body)` for each `## ` section, in order.
fn sections(text: &str) -> Vec<(String, String)> {
    let mut sections: Vec<(String, String)> = Vec::new();
    let mut in_fence = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_fence = !in_fence;
        }
        if !in_fence && let Some(title) = line.strip_prefix("## ") {
            sections.push((title.trim().to_owned(), String::new()));
        } else if let Some((_, body)) = sections.last_mut() {
            body.push_str(line);
            body.push('\n');
        }
    }
    sections
}

fn list_items(body: &str) -> Vec<String> {
    body.lines()
        .filter_map(|line| {
            let line = line.trim_start();
            line.strip_prefix("- ").or_else(|| line.strip_prefix("* ")).map(|item| item.trim().to_owned())
        })
        .filter(|item| !item.is_empty())
        .collect()
}

fn deliverables(body: &str) -> Vec<String> {
    static ITEM: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"^\s*[-*]\s*`([^`]+)`").expect("the deliverable pattern is valid"));
    body.lines()
        .filter_map(|line| ITEM.captures(line).map(|c| c[1].trim().to_owned()))
        .filter(|path| !path.is_empty())
        .collect()
}

/// The first status named in the section, by word or emoji.
fn status_of(body: &str) -> Option<SummaryStatus> {
    let upper = body.to_uppercase();
    let candidates = [
        (SummaryStatus::Completed, ["COMPLETED", "✅"]),
        (SummaryStatus::Partial, ["PARTIAL", "⚠"]),
        (SummaryStatus::Failed, ["FAILED", "❌"]),
    ];
    candidates
        .iter()
        .filter_map(|(status, marks)| marks.iter().filter_map(|m| upper.find(m)).min().map(|at| (at, *status)))
        .min_by_key(|(at, _)| *at)
        .map(|(_, status)| status)
}

/// The longest reason kept from a summary, in bytes: a sentence or two,
/// which a task's card, a notification and `task list` show whole.
pub const MAX_REASON_BYTES: usize = 400;

/// The agent's own words for how the task went: what it wrote beside its
/// status (`❌ FAILED: the build broke`, on that line or the lines after),
/// else its first important note. `None` when it wrote neither. One line,
/// within [`MAX_REASON_BYTES`].
pub fn stated_reason(text: &str) -> Option<String> {
    let sections = sections(text);
    let section = |names: &[&str]| {
        sections.iter().find(|(title, _)| names.iter().any(|n| title.eq_ignore_ascii_case(n))).map_or("", |(_, b)| b)
    };
    let beside_status = without_status_mark(section(&["Status"]));
    let reason = if beside_status.is_empty() {
        list_items(section(&["Important Notes", "Notes"])).into_iter().next()?
    } else {
        beside_status
    };
    Some(capped(reason, MAX_REASON_BYTES))
}

/// The Status section's text without its first status mark (word or emoji)
/// and the punctuation that joins it to the rest, on one line.
fn without_status_mark(body: &str) -> String {
    let joined = body.split_whitespace().collect::<Vec<_>>().join(" ");
    let marks = ["COMPLETED", "PARTIAL", "FAILED", "✅", "⚠️", "⚠", "❌"];
    // The mark that comes first, and every mark right after it ("❌ FAILED").
    let mut rest = joined.as_str();
    loop {
        let trimmed = rest.trim_start_matches(|c: char| c.is_whitespace() || "-–—:.,;()[]*_".contains(c));
        let starts = |mark: &&&str| trimmed.get(..mark.len()).is_some_and(|head| head.eq_ignore_ascii_case(mark));
        match marks.iter().find(starts) {
            Some(mark) => rest = &trimmed[mark.len()..],
            None => return trimmed.trim().to_owned(),
        }
    }
}

fn test_counts(text: &str) -> Option<TestCounts> {
    // "Passed: 5", "failed: 0": a label, then its number.
    static LABELLED: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"(?i)\b(passed|failed)\s*:\s*(\d+)").expect("valid pattern"));
    // "8 tests passed", "3 failed".
    static COUNTED: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)(\d+)\s+(?:tests?\s+)?(passed|passing|pass|failed|failing|fail)\b").expect("valid pattern")
    });
    // "7/9 tests passed".
    static OF: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"(?i)(\d+)\s*/\s*(\d+)\s+(?:tests?\s+)?passed").expect("valid pattern"));
    if let Some(c) = OF.captures(text) {
        let (passed, total): (u32, u32) = (c[1].parse().ok()?, c[2].parse().ok()?);
        return Some(TestCounts { passed: Some(passed), failed: Some(total.saturating_sub(passed)) });
    }
    let mut counts = TestCounts::default();
    let mut record = |word: &str, number: &str| {
        let slot = if word.to_lowercase().starts_with("pass") { &mut counts.passed } else { &mut counts.failed };
        if slot.is_none() {
            *slot = number.parse().ok();
        }
    };
    if LABELLED.is_match(text) {
        LABELLED.captures_iter(text).for_each(|c| record(&c[1], &c[2]));
    } else {
        COUNTED.captures_iter(text).for_each(|c| record(&c[2], &c[1]));
    }
    (counts != TestCounts::default()).then_some(counts)
}

/// The files beside the summary that carry a task's context, written by the
/// app before the task is typed.
pub const CONTEXT_FILE: &str = "CONTEXT.md";
pub const SPECS_FILE: &str = "SPECS.md";
pub const INSTRUCTIONS_FILE: &str = "INSTRUCTIONS.md";

/// Files an agent may write while working: progress, machine-readable
/// results, error details.
pub const STATUS_FILE: &str = "STATUS.txt";
pub const RESULTS_FILE: &str = "RESULTS.json";
pub const ERRORS_FILE: &str = "ERRORS.md";

pub const SUMMARIES_DIR: &str = "summaries";

/// The summary's path relative to the workspace.
pub fn summary_path(task: &TaskId) -> String {
    format!("{SUMMARIES_DIR}/{task}.md")
}

/// What a task tells its agent besides the completion protocol.
#[derive(Debug, Clone, Copy, Default)]
pub struct Brief<'a> {
    pub instruction: &'a str,
    /// Context files written into the workspace for it.
    pub context_files: &'a [&'a str],
    pub goals: Option<&'a str>,
    pub success_criteria: Option<&'a str>,
    /// The agent's id, when it is taught the signal protocols.
    pub agent_id: Option<&'a str>,
    /// Whether it has Switchboard's tools: the task points to them, to the
    /// blocks, or to either.
    pub tools: crate::signal::teach::Tools,
    /// The summary's format is in [`COMPLETION_FILE`] in the workspace: the
    /// typed task points to it in one line instead of carrying it.
    pub completion_file: bool,
}

/// Where the summary's format is written in the workspace, for the typed task
/// to point to.
pub const COMPLETION_FILE: &str = ".switchboard/completion.md";

/// The summary file's format, as [`COMPLETION_FILE`] holds it.
pub fn completion_text() -> String {
    format!(
        "# Completing a task\n\n\
         When you complete a task, create the summary file the task names (`summaries/<task id>.md`) with:\n\n\
         {}\n\n\
         Do not proceed to other tasks until that file is created.\n",
        summary_format()
    )
}

/// The summary's sections and the optional side files.
fn summary_format() -> String {
    format!(
        "# Task Completion Summary\n\
         ## Objective\n[What was the task?]\n\
         ## Accomplishments\n- [what you did]\n\
         ## Key Deliverables\n- `path/to/file` - description (only the essential files, at most four)\n\
         ## Test Results\n✅ All X tests passed [OR] ⏭️ No tests (why) [OR] ❌ X tests failed\n\
         ## Important Notes\n- [caveats, issues, recommendations]\n\
         ## Status\n✅ COMPLETED [OR] ⚠️ PARTIAL [OR] ❌ FAILED\n\
         You may write progress to {STATUS_FILE}, machine-readable results to {RESULTS_FILE} and error details \
         to {ERRORS_FILE}."
    )
}

/// The text typed into the agent for a task: the instruction, its goals and
/// success criteria, where to find its context and the signal protocols,
/// and the completion protocol naming the summary file.
pub fn task_prompt(task: &TaskId, brief: &Brief<'_>) -> String {
    let path = summary_path(task);
    let mut prompt = brief.instruction.trim().to_owned();
    for (label, text) in [("Goals", brief.goals), ("Success criteria", brief.success_criteria)] {
        if let Some(text) = text.map(str::trim).filter(|t| !t.is_empty()) {
            prompt.push_str(&format!("\n\n{label}: {text}"));
        }
    }
    if !brief.context_files.is_empty() {
        prompt.push_str(&format!("\n\nRead {} for full details.", brief.context_files.join(" and ")));
    }
    if let Some(agent_id) = brief.agent_id {
        prompt.push_str(&format!("\n\n{}", crate::signal::teach::pointer_for(agent_id, brief.tools)));
    }
    if brief.completion_file {
        prompt.push_str(&format!(
            "\n\nWhen you are done, create {path} as {COMPLETION_FILE} describes; do not start other work before."
        ));
    } else {
        prompt.push_str(&format!(
            "\n\nCRITICAL: When you complete this task, create the file {path} with:\n{}\n\
             Do not proceed to other tasks until {path} is created.",
            summary_format()
        ));
    }
    prompt
}

#[cfg(test)]
mod tests {
    use super::*;

    const EXAMPLE: &str = "# Task Completion Summary

## Objective
Create a login button component

## Accomplishments
- Created reusable Button component
- Added unit tests

## Key Deliverables
- `src/components/Button.tsx` - Main button component
- `src/components/Button.test.tsx` - Unit tests (8 tests)
* `docs/README.md`

## Test Results
✅ All 8 tests passed
- Button renders correctly ✓

## Important Notes
- Uses Material-UI

## Status
✅ COMPLETED
";

    #[test]
    fn parses_the_protocol_example() {
        let summary = parse_summary(EXAMPLE);
        assert_eq!(summary.objective, "Create a login button component");
        assert_eq!(summary.accomplishments, ["Created reusable Button component", "Added unit tests"]);
        assert_eq!(
            summary.deliverables,
            ["src/components/Button.tsx", "src/components/Button.test.tsx", "docs/README.md"]
        );
        assert_eq!(summary.tests, Some(TestCounts { passed: Some(8), failed: None }));
        assert_eq!(summary.notes, ["Uses Material-UI"]);
        assert_eq!(summary.status, Some(SummaryStatus::Completed));
    }

    #[test]
    fn status_in_word_and_emoji_forms() {
        let cases = [
            ("✅ COMPLETED", Some(SummaryStatus::Completed)),
            ("completed", Some(SummaryStatus::Completed)),
            ("⚠️ PARTIAL - Summary not created", Some(SummaryStatus::Partial)),
            ("⚠️", Some(SummaryStatus::Partial)),
            ("❌ FAILED", Some(SummaryStatus::Failed)),
            ("❌", Some(SummaryStatus::Failed)),
            ("Failed: the build broke", Some(SummaryStatus::Failed)),
            // The template line lists all three; the first one wins.
            ("✅ COMPLETED [OR] ⚠️ PARTIAL [OR] ❌ FAILED", Some(SummaryStatus::Completed)),
            ("done, I think", None),
            ("", None),
        ];
        for (body, expected) in cases {
            let text = format!("## Status\n{body}\n");
            assert_eq!(parse_summary(&text).status, expected, "{body:?}");
        }
    }

    #[test]
    fn the_reason_stated_beside_the_status_else_the_first_note() {
        let cases = [
            ("## Status\n❌ FAILED: the build broke\n", Some("the build broke")),
            ("## Status\n❌ FAILED\nThe API key was refused.\n", Some("The API key was refused.")),
            ("## Status\nFailed - tests (3) still fail\n", Some("tests (3) still fail")),
            ("## Status\n⚠️ PARTIAL — docs left\n", Some("docs left")),
            ("## Important Notes\n- needs a database\n- second\n## Status\n❌ FAILED\n", Some("needs a database")),
            ("## Status\n❌ FAILED\n", None),
            ("## Status\nThe task FAILED: no access\n", Some("The task FAILED: no access")),
            ("no sections", None),
        ];
        for (text, expected) in cases {
            assert_eq!(stated_reason(text).as_deref(), expected, "{text:?}");
        }
        let long = format!("## Status\n❌ FAILED: {}\n", "é".repeat(MAX_REASON_BYTES));
        assert!(stated_reason(&long).unwrap().len() <= MAX_REASON_BYTES);
    }

    #[test]
    fn test_counts_where_stated() {
        let cases = [
            ("✅ All 8 tests passed", Some((Some(8), None))),
            ("❌ 3 tests failed", Some((None, Some(3)))),
            ("12 passed, 2 failed", Some((Some(12), Some(2)))),
            ("12 tests pass, 1 fails", Some((Some(12), None))),
            ("3 tests fail", Some((None, Some(3)))),
            ("Passed: 5 Failed: 0", Some((Some(5), Some(0)))),
            ("7/9 tests passed", Some((Some(7), Some(2)))),
            ("⏭️ No tests (docs only)", None),
            ("", None),
        ];
        for (body, expected) in cases {
            let text = format!("## Test Results\n{body}\n");
            let got = parse_summary(&text).tests.map(|t| (t.passed, t.failed));
            assert_eq!(got, expected, "{body:?}");
        }
    }

    #[test]
    fn lenient_about_missing_and_odd_sections() {
        let summary = parse_summary("no headings at all\n`x.rs`\n");
        assert_eq!(summary, Summary::default());

        let text = "## key deliverables\n- `a.txt` - one\n- plain item\n- `` - empty\n```\n## Status\n```\n## STATUS\npartial\n";
        let summary = parse_summary(text);
        assert_eq!(summary.deliverables, ["a.txt"]);
        // A heading inside a code fence is text, not a section.
        assert_eq!(summary.status, Some(SummaryStatus::Partial));
    }

    #[test]
    fn the_prompt_names_the_summary_file_and_every_section() {
        let id: TaskId = "0b6f8a3e-5d1c-4f3a-9a63-0a1b2c3d4e5f".parse().unwrap();
        let brief = Brief {
            instruction: "  Fix the parser\nand its tests ",
            context_files: &[CONTEXT_FILE, INSTRUCTIONS_FILE],
            ..Brief::default()
        };
        let prompt = task_prompt(&id, &brief);
        assert!(prompt.starts_with("Fix the parser\nand its tests\n\nRead CONTEXT.md and INSTRUCTIONS.md"));
        assert!(!prompt.contains(crate::signal::teach::PROTOCOL_FILE), "not taught: not pointed to");
        assert!(prompt.contains("summaries/0b6f8a3e-5d1c-4f3a-9a63-0a1b2c3d4e5f.md"));
        for section in ["Objective", "Accomplishments", "Key Deliverables", "Test Results", "Important Notes", "Status"]
        {
            assert!(prompt.contains(&format!("## {section}\n")), "{section}");
        }
        assert!(!task_prompt(&id, &Brief { instruction: "x", ..Brief::default() }).contains("Read "));
    }

    #[test]
    fn with_the_format_in_its_file_the_prompt_is_the_instruction_and_one_line() {
        let id: TaskId = "0b6f8a3e-5d1c-4f3a-9a63-0a1b2c3d4e5f".parse().unwrap();
        let prompt =
            task_prompt(&id, &Brief { instruction: "Fix the parser", completion_file: true, ..Brief::default() });
        assert_eq!(
            prompt,
            "Fix the parser\n\nWhen you are done, create summaries/0b6f8a3e-5d1c-4f3a-9a63-0a1b2c3d4e5f.md as \
             .switchboard/completion.md describes; do not start other work before."
        );
        let file = completion_text();
        for section in ["Objective", "Accomplishments", "Key Deliverables", "Test Results", "Important Notes", "Status"]
        {
            assert!(file.contains(&format!("## {section}\n")), "{section}");
        }
        assert!(crate::signal::scan_all(file.as_bytes()).is_empty());
    }

    #[test]
    fn the_prompt_names_goals_criteria_and_the_protocols_and_holds_no_marker() {
        let id: TaskId = "0b6f8a3e-5d1c-4f3a-9a63-0a1b2c3d4e5f".parse().unwrap();
        let brief = Brief {
            instruction: "Fix the parser",
            context_files: &[CONTEXT_FILE],
            goals: Some("Users can paste YAML "),
            success_criteria: Some("  "),
            agent_id: Some("agent-7"),
            tools: crate::signal::teach::Tools::Absent,
            completion_file: false,
        };
        let prompt = task_prompt(&id, &brief);
        assert!(
            prompt.starts_with(&format!(
                "Fix the parser\n\nGoals: Users can paste YAML\n\nRead CONTEXT.md for full details.\n\n{}\n\nCRITICAL:",
                crate::signal::teach::pointer("agent-7")
            )),
            "{prompt}"
        );
        let with_criteria = task_prompt(&id, &Brief { success_criteria: Some("all tests pass"), ..brief });
        assert!(with_criteria.contains("Goals: Users can paste YAML\n\nSuccess criteria: all tests pass\n\n"));
        assert!(crate::signal::scan_all(with_criteria.as_bytes()).is_empty());
        let with_tools = task_prompt(&id, &Brief { tools: crate::signal::teach::Tools::Started, ..brief });
        assert!(with_tools.contains(crate::signal::teach::tools_pointer()), "{with_tools}");
        assert!(!with_tools.contains(crate::signal::teach::PROTOCOL_FILE), "the blocks are not pointed to");
    }
}
