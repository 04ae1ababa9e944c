//! When a task is done, by its agent's completion rule: the summary file,
//! the completion report, or both in agreement. Pure decisions.

use switchboard_protocol::summary::SummaryStatus;

use crate::api::CompletionRule;

/// What the engine does with what it has seen of a task's end.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// Not yet: the rule needs more.
    Wait,
    Complete,
    /// Both arrived and they disagree: the task fails, saying how.
    Disagree(String),
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

/// `summary`: the summary file's stated status, if the file arrived (its
/// status may be unstated). `report`: the completion report's status, if
/// one arrived.
pub fn decide(rule: CompletionRule, summary: Option<Option<SummaryStatus>>, report: Option<&str>) -> Decision {
    match (rule, summary, report) {
        (CompletionRule::Summary, Some(_), _) | (CompletionRule::Report, _, Some(_)) => Decision::Complete,
        (CompletionRule::Both, Some(summary), Some(report)) => match (summary, report_outcome(report)) {
            (Some(said), Some(reported)) if said != reported => Decision::Disagree(format!(
                "the summary says {} but the completion report says {}",
                word(said),
                report.trim()
            )),
            _ => Decision::Complete,
        },
        _ => Decision::Wait,
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

    /// The rule, the summary's status if the file arrived, the report's status, the decision.
    type Case<'a> = (CompletionRule, Option<Option<SummaryStatus>>, Option<&'a str>, Decision);

    #[test]
    fn decisions() {
        let cases: [Case; 12] = [
            (Summary, None, None, Decision::Wait),
            (Summary, Some(Some(Completed)), None, Decision::Complete),
            (Summary, None, Some("success"), Decision::Wait),
            (Report, Some(Some(Completed)), None, Decision::Wait),
            (Report, None, Some("success"), Decision::Complete),
            (Both, Some(Some(Completed)), None, Decision::Wait),
            (Both, None, Some("success"), Decision::Wait),
            (Both, Some(Some(Completed)), Some("success"), Decision::Complete),
            (Both, Some(Some(Partial)), Some("partial"), Decision::Complete),
            (
                Both,
                Some(Some(Completed)),
                Some("failed"),
                Decision::Disagree("the summary says COMPLETED but the completion report says failed".into()),
            ),
            // An outcome one side leaves unstated cannot disagree.
            (Both, Some(None), Some("failed"), Decision::Complete),
            (Both, Some(Some(Failed)), Some("all phases finished"), Decision::Complete),
        ];
        for (rule, summary, report, expected) in cases {
            assert_eq!(decide(rule, summary, report), expected, "{rule:?} {summary:?} {report:?}");
        }
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
