//! When a task is done, by its agent's completion rule: the summary file,
//! the completion report, or both in agreement. Pure decisions.

use switchboard_protocol::capped::capped;
use switchboard_protocol::summary::{MAX_REASON_BYTES, SummaryStatus, parse_summary, stated_reason};

use switchboard_api::CompletionRule;

/// What the engine does with what it has seen of a task's end.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// Not yet: the rule needs more.
    Wait,
    Complete,
    /// The task fails, for this reason: the agent says it failed (in its
    /// own words where it gave them), or the summary and the report
    /// disagree.
    Fail(String),
}

/// What one side (the summary file or the completion report) says of how
/// the task went.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Stated {
    /// The outcome it names, if any.
    pub status: Option<SummaryStatus>,
    /// How it names it, for a disagreement ("FAILED", the report's word).
    pub word: String,
    /// The agent's own words for how it went, where it gave them.
    pub why: Option<String>,
}

impl Stated {
    /// What a summary file's text says.
    pub fn summary(text: &str) -> Stated {
        let status = parse_summary(text).status;
        Stated { status, word: status.map(word).unwrap_or_default().to_owned(), why: stated_reason(text) }
    }

    /// What a completion report says: its status, and as its words the
    /// metrics it gives, else its first recommendation.
    pub fn report(status: &str, metrics: &str, recommendations: &[String]) -> Stated {
        let why = Some(metrics.trim())
            .filter(|m| !m.is_empty())
            .or_else(|| recommendations.iter().map(|r| r.trim()).find(|r| !r.is_empty()))
            .map(|text| capped(text.split_whitespace().collect::<Vec<_>>().join(" "), MAX_REASON_BYTES));
        Stated { status: report_outcome(status), word: status.trim().to_owned(), why }
    }
}

/// A completion report's `status` in the summary's terms; `None` when it
/// names no outcome the summary could state.
pub fn report_outcome(status: &str) -> Option<SummaryStatus> {
    match status.trim().to_lowercase().as_str() {
        "success" | "succeeded" | "completed" | "complete" | "done" | "ok" => Some(SummaryStatus::Completed),
        "partial" | "partially_completed" | "partial_success" => Some(SummaryStatus::Partial),
        "failed" | "failure" | "error" | "blocked" => Some(SummaryStatus::Failed),
        _ => None,
    }
}

/// How a task ends by its agent's `rule`, from what arrived: `summary` (the
/// summary file's, if it arrived) and `report` (the completion report's, if
/// one arrived). The sides the rule reads must be there; then they must not
/// disagree; then the task fails if one of them says it failed (a partial
/// result completes), with the agent's words for why.
pub fn decide(rule: CompletionRule, summary: Option<&Stated>, report: Option<&Stated>) -> Decision {
    let read: Vec<&Stated> = match (rule, summary, report) {
        (CompletionRule::Summary, Some(summary), _) => vec![summary],
        (CompletionRule::Report, _, Some(report)) => vec![report],
        // Its prompt coming back decides (`TaskDesk`), not what it wrote.
        (CompletionRule::Prompt, _, _) => return Decision::Wait,
        (CompletionRule::Both, Some(summary), Some(report)) => {
            if let (Some(said), Some(reported)) = (summary.status, report.status)
                && said != reported
            {
                return Decision::Fail(format!(
                    "the summary says {} but the completion report says {}",
                    summary.word, report.word
                ));
            }
            vec![summary, report]
        }
        _ => return Decision::Wait,
    };
    match read.iter().find(|side| side.status == Some(SummaryStatus::Failed)) {
        None => Decision::Complete,
        Some(failed) => {
            let why = failed.why.as_deref().or_else(|| read.iter().find_map(|side| side.why.as_deref()));
            Decision::Fail(match why {
                Some(why) => format!("the agent says it failed: {why}"),
                None => "the agent says it failed".to_owned(),
            })
        }
    }
}

fn word(status: SummaryStatus) -> &'static str {
    match status {
        SummaryStatus::Completed => "COMPLETED",
        SummaryStatus::Partial => "PARTIAL",
        SummaryStatus::Failed => "FAILED",
    }
}

/// A summary in the protocol's format, made from a completion report, for
/// agents that write only the report.
pub fn summary_from_report(
    instruction: &str,
    status: &str,
    deliverables: &[String],
    metrics: &str,
    recommendations: &[String],
) -> String {
    let line = |items: &[String]| items.iter().map(|i| format!("- {i}\n")).collect::<String>();
    let quoted: Vec<String> = deliverables
        .iter()
        .filter(|d| !d.contains('`'))
        .map(|d| format!("`{d}` - from the completion report"))
        .collect();
    let status_line = match report_outcome(status) {
        Some(SummaryStatus::Completed) | None => "✅ COMPLETED",
        Some(SummaryStatus::Partial) => "⚠️ PARTIAL",
        Some(SummaryStatus::Failed) => "❌ FAILED",
    };
    format!(
        "# Task Completion Summary\n\n## Objective\n{}\n\n## Accomplishments\n- Reported by the agent: {}\n\n## Key Deliverables\n{}\n## Test Results\n{}\n\n## Important Notes\n{}- Made by Switchboard from the agent's completion report.\n\n## Status\n{status_line}\n",
        instruction.lines().next().unwrap_or_default().trim(),
        status.trim(),
        line(&quoted),
        if metrics.trim().is_empty() { "⏭️ Not stated" } else { metrics.trim() },
        line(recommendations),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use CompletionRule::{Both, Report, Summary};
    use SummaryStatus::{Completed, Failed, Partial};
    use switchboard_protocol::summary::parse_summary;

    fn side(status: Option<SummaryStatus>, word: &str, why: Option<&str>) -> Stated {
        Stated { status, word: word.into(), why: why.map(str::to_owned) }
    }

    #[test]
    fn decisions() {
        let done = side(Some(Completed), "COMPLETED", None);
        let partial = side(Some(Partial), "PARTIAL", Some("docs left"));
        let failed = side(Some(Failed), "FAILED", Some("the build broke"));
        let failed_silently = side(Some(Failed), "FAILED", None);
        let unstated = side(None, "", None);
        let report = |word: &str, why: Option<&str>| side(report_outcome(word), word, why);
        let (success, report_failed) = (report("success", None), report("failed", Some("no access to the API")));
        let all_phases = report("all phases finished", None);
        let report_partial = report("partial", None);
        let fail = |why: &str| Decision::Fail(why.to_owned());
        // The rule, the summary if the file arrived, the report if one did, the decision.
        let cases: Vec<(CompletionRule, Option<&Stated>, Option<&Stated>, Decision)> = vec![
            (Summary, None, None, Decision::Wait),
            (Summary, Some(&done), None, Decision::Complete),
            (Summary, None, Some(&success), Decision::Wait),
            (Report, Some(&done), None, Decision::Wait),
            (Report, None, Some(&success), Decision::Complete),
            (Both, Some(&done), None, Decision::Wait),
            (Both, None, Some(&success), Decision::Wait),
            (Both, Some(&done), Some(&success), Decision::Complete),
            (Both, Some(&partial), Some(&report_partial), Decision::Complete),
            (
                Both,
                Some(&done),
                Some(&report_failed),
                fail("the summary says COMPLETED but the completion report says failed"),
            ),
            // A summary or report that says it failed fails the task, in the agent's words.
            (Summary, Some(&failed), None, fail("the agent says it failed: the build broke")),
            (Summary, Some(&failed_silently), None, fail("the agent says it failed")),
            (Summary, Some(&partial), None, Decision::Complete),
            (Report, None, Some(&report_failed), fail("the agent says it failed: no access to the API")),
            (Report, Some(&failed), Some(&success), Decision::Complete),
            (Both, Some(&failed), Some(&report_failed), fail("the agent says it failed: the build broke")),
            (
                Both,
                Some(&failed_silently),
                Some(&report_failed),
                fail("the agent says it failed: no access to the API"),
            ),
            // An outcome one side leaves unstated cannot disagree; the other's failure stands.
            (Both, Some(&unstated), Some(&report_failed), fail("the agent says it failed: no access to the API")),
            (Both, Some(&failed), Some(&all_phases), fail("the agent says it failed: the build broke")),
            (Both, Some(&unstated), Some(&all_phases), Decision::Complete),
        ];
        for (rule, summary, report, expected) in cases {
            assert_eq!(decide(rule, summary, report), expected, "{rule:?} {summary:?} {report:?}");
        }
    }

    #[test]
    fn what_each_side_says() {
        let summary = Stated::summary("## Important Notes\n- the key expired\n\n## Status\n❌ FAILED\n");
        assert_eq!(summary, side(Some(Failed), "FAILED", Some("the key expired")));
        let report = Stated::report(" blocked ", "", &["  ".into(), "ask for\naccess".into()]);
        assert_eq!(report, side(Some(Failed), "blocked", Some("ask for access")));
        assert_eq!(Stated::report("done", "12 tests pass", &[]).why.as_deref(), Some("12 tests pass"));
    }

    #[test]
    fn a_summary_made_from_a_report_parses_back() {
        let text = summary_from_report(
            "Write the parser tests\nmore",
            "success",
            &["tests/parser.rs".into()],
            "12 tests pass",
            &["Add fuzzing".into()],
        );
        let summary = parse_summary(&text);
        assert_eq!(summary.objective, "Write the parser tests");
        assert_eq!(summary.deliverables, ["tests/parser.rs"]);
        assert_eq!(summary.status, Some(Completed));
        assert_eq!(summary.tests.and_then(|t| t.passed), Some(12));
        assert_eq!(summary.notes[0], "Add fuzzing");
    }
}
