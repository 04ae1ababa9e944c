//! The prompts the app types into an agent in reply to its signals. Each
//! restates where the agent was (STATE RESTORATION) and what to do next
//! (RESUME INSTRUCTIONS), so an agent that lost its context, or a fresh
//! session of it, can go on from the checkpoint.

fn section(out: &mut String, title: &str, body: &str) {
    let body = body.trim();
    if !body.is_empty() {
        out.push_str(&format!("\n\n{title}\n{body}"));
    }
}

/// The answers to a clarification, each under its question.
pub fn clarification_response(questions: &[String], answers: &[String], current_state: &str) -> String {
    let mut out = String::from("CLARIFICATION RESPONSE");
    for (n, (question, answer)) in questions.iter().zip(answers).enumerate() {
        out.push_str(&format!("\nQ{}: {}\nA{}: {}", n + 1, question.trim(), n + 1, answer.trim()));
    }
    section(&mut out, "STATE RESTORATION", current_state);
    section(&mut out, "RESUME INSTRUCTIONS", "Continue the work with these answers.");
    out
}

/// What the stop-work protocol needs of the signal to build its replies.
pub struct Blocker<'a> {
    pub blocker_type: &'a str,
    pub details: &'a str,
    pub state_snapshot: &'a str,
    pub blocked_work: &'a str,
}

impl Blocker<'_> {
    fn issue(&self) -> String {
        match (self.blocker_type.trim(), self.details.trim()) {
            ("", details) => details.to_owned(),
            (kind, "") => kind.to_owned(),
            (kind, details) => format!("{kind}: {details}"),
        }
    }
}

pub fn blocker_resolved(blocker: &Blocker, resolution: &str) -> String {
    let mut out = format!("BLOCKER RESOLVED\nIssue: {}\nResolution: {}", blocker.issue(), resolution.trim());
    section(&mut out, "STATE RESTORATION", blocker.state_snapshot);
    let next = match blocker.blocked_work.trim() {
        "" => "Continue from the checkpoint.".to_owned(),
        work => format!("Continue with: {work}"),
    };
    section(&mut out, "RESUME INSTRUCTIONS", &next);
    out
}

/// The spec's ERROR FIXED resume: what was fixed, where to restore from,
/// what to retry.
pub fn error_fixed(blocker: &Blocker, fix: &str) -> String {
    let mut out = format!("ERROR FIXED\nIssue: {}\nApplied fix: {}", blocker.issue(), fix.trim());
    section(&mut out, "STATE RESTORATION", blocker.state_snapshot);
    let next = match blocker.blocked_work.trim() {
        "" => "Restore from the checkpoint and retry the failed step.".to_owned(),
        work => format!("Restore from the checkpoint and retry: {work}"),
    };
    section(&mut out, "RESUME INSTRUCTIONS", &next);
    out
}

/// The line logged to SKIPPED_ITEMS.md for a skipped item.
pub fn skipped_item_line(blocker: &Blocker, at: &str) -> String {
    let item = match blocker.blocked_work.trim() {
        "" => "(unnamed item)",
        work => work,
    };
    // Agent text, logged one line per item: it can never start a line of its own.
    format!("- {at} — {}: {}\n", crate::text::one_line(item), crate::text::one_line(&blocker.issue()))
}

pub fn skip_item(blocker: &Blocker) -> String {
    let item = match blocker.blocked_work.trim() {
        "" => "the blocked item",
        work => work,
    };
    let mut out = format!("SKIP ITEM\nSkip: {item}\nIt is logged to SKIPPED_ITEMS.md.");
    section(&mut out, "STATE RESTORATION", blocker.state_snapshot);
    section(&mut out, "RESUME INSTRUCTIONS", "Continue with the next item.");
    out
}

/// To the requester when its blocked part went to another agent.
pub fn partial_resume(blocker: &Blocker, delegate: &str) -> String {
    let mut out = format!(
        "PARTIAL RESUME\nThe blocked part ({}) was delegated to agent {delegate}; do not work on it.",
        if blocker.blocked_work.trim().is_empty() { "the blocked work" } else { blocker.blocked_work.trim() }
    );
    section(&mut out, "STATE RESTORATION", blocker.state_snapshot);
    section(&mut out, "RESUME INSTRUCTIONS", "Continue with the rest of the work.");
    out
}

/// To the new agent: the work handed to it.
/// `agent_id`: the delegate's id, when it is taught the signal protocols.
pub fn delegated_work(
    description: &str,
    coordination: &str,
    requester: &str,
    agent_id: Option<&str>,
    tools: super::teach::Tools,
) -> String {
    use super::teach::Tools;
    let mut out = format!("DELEGATED WORK (from agent {requester})\n{}", description.trim());
    section(&mut out, "COORDINATION", coordination);
    if let Some(agent_id) = agent_id {
        out.push_str(&format!("\n\n{}", super::teach::pointer_for(agent_id, tools)));
    }
    // The marker is named, not written: the terminal echoes this text, and a
    // marker in the echo would read as the start of a block.
    let printed = "print a completion report: the COMPLETION_REPORT marker in square brackets, then status, \
                   deliverables, metrics_achieved and recommendations as YAML, then the closing marker.";
    match tools {
        Tools::Absent => out.push_str(&format!("\n\nWhen you are done, {printed}")),
        Tools::Offered | Tools::Started => out.push_str(&format!(
            "\n\nWhen you are done, call report_completion (without Switchboard's tools, {printed})"
        )),
    }
    out
}

/// To the requester when its delegation was approved.
pub fn delegation_approved(delegate: &str, coordination: &str, blocks_current_work: bool) -> String {
    let mut out = format!("DELEGATION APPROVED\nNew agent: {delegate}");
    section(&mut out, "COORDINATION", coordination);
    let next = if blocks_current_work {
        "Wait: you will be resumed with the new agent's results when it reports completion."
    } else {
        "Continue your own work in parallel."
    };
    section(&mut out, "RESUME INSTRUCTIONS", next);
    out
}

pub fn delegation_denied(reason: &str) -> String {
    let mut out = format!("DELEGATION DENIED\nReason: {}", reason.trim());
    section(&mut out, "RESUME INSTRUCTIONS", "Do the work yourself, or continue without it.");
    out
}

/// To a requester that waited: what its delegate reported.
pub fn delegate_results(delegate: &str, status: &str, deliverables: &[String], metrics: &str) -> String {
    let mut out = format!("DELEGATED WORK COMPLETE\nAgent {delegate} reports: {}", status.trim());
    section(&mut out, "DELIVERABLES", &deliverables.iter().map(|d| format!("- {d}")).collect::<Vec<_>>().join("\n"));
    section(&mut out, "METRICS", metrics);
    section(&mut out, "RESUME INSTRUCTIONS", "Continue your work with these results.");
    out
}

/// To a requester whose delegate ended without reporting: it must go on
/// without the results instead of waiting for them.
pub fn delegate_failed(delegate: &str, how: &str) -> String {
    let mut out = format!("DELEGATED WORK FAILED\nAgent {delegate} ended without a completion report: {}", how.trim());
    section(
        &mut out,
        "RESUME INSTRUCTIONS",
        "Do not wait for its results. Go on without them: do the delegated part yourself, or say you are blocked.",
    );
    out
}

/// Appended to a reply while the agent has a task: where its summary goes.
pub fn task_reminder(summary_path: &str) -> String {
    format!("\n\nWhen the task is done, create {summary_path} as asked at the start.")
}

#[cfg(test)]
mod tests {
    use super::*;

    const BLOCKER: Blocker = Blocker {
        blocker_type: "external_dependency",
        details: "node_modules missing",
        state_snapshot: "Completed: A, B, C\nFiles: file1, file2",
        blocked_work: "Task D",
    };

    #[test]
    fn clarification_pairs_each_answer_with_its_question() {
        let text = clarification_response(
            &["Analyze OAuth2, JWT, or both?".into(), "What depth?".into()],
            &["Both".into(), " Deep dive ".into()],
            "Phase 1 complete",
        );
        assert_eq!(
            text,
            "CLARIFICATION RESPONSE\nQ1: Analyze OAuth2, JWT, or both?\nA1: Both\nQ2: What depth?\nA2: Deep dive\n\nSTATE RESTORATION\nPhase 1 complete\n\nRESUME INSTRUCTIONS\nContinue the work with these answers."
        );
        assert!(!clarification_response(&["Q".into()], &["A".into()], " ").contains("STATE RESTORATION"));
    }

    #[test]
    fn stop_work_replies_carry_the_checkpoint() {
        let cases = [
            (
                blocker_resolved(&BLOCKER, "ran npm install"),
                "BLOCKER RESOLVED\nIssue: external_dependency: node_modules missing\nResolution: ran npm install\n\nSTATE RESTORATION\nCompleted: A, B, C\nFiles: file1, file2\n\nRESUME INSTRUCTIONS\nContinue with: Task D",
            ),
            (
                error_fixed(&BLOCKER, " pinned lodash to 4.17 "),
                "ERROR FIXED\nIssue: external_dependency: node_modules missing\nApplied fix: pinned lodash to 4.17\n\nSTATE RESTORATION\nCompleted: A, B, C\nFiles: file1, file2\n\nRESUME INSTRUCTIONS\nRestore from the checkpoint and retry: Task D",
            ),
            (
                skip_item(&BLOCKER),
                "SKIP ITEM\nSkip: Task D\nIt is logged to SKIPPED_ITEMS.md.\n\nSTATE RESTORATION\nCompleted: A, B, C\nFiles: file1, file2\n\nRESUME INSTRUCTIONS\nContinue with the next item.",
            ),
            (
                partial_resume(&BLOCKER, "s-2"),
                "PARTIAL RESUME\nThe blocked part (Task D) was delegated to agent s-2; do not work on it.\n\nSTATE RESTORATION\nCompleted: A, B, C\nFiles: file1, file2\n\nRESUME INSTRUCTIONS\nContinue with the rest of the work.",
            ),
        ];
        for (got, want) in cases {
            assert_eq!(got, want);
        }
        assert_eq!(
            skipped_item_line(&BLOCKER, "2026-11-21T07:00:00Z"),
            "- 2026-11-21T07:00:00Z — Task D: external_dependency: node_modules missing\n"
        );
    }

    /// Replies are echoed by the agent's terminal: one holding a marker
    /// would be read back as a signal.
    #[test]
    fn no_reply_holds_a_marker() {
        let replies = [
            clarification_response(&["q".into()], &["a".into()], "s"),
            blocker_resolved(&BLOCKER, "r"),
            error_fixed(&BLOCKER, "f"),
            skip_item(&BLOCKER),
            partial_resume(&BLOCKER, "s"),
            delegated_work("w", "c", "r", None, crate::signal::teach::Tools::Absent),
            delegated_work("w", "c", "r", Some("s-2"), crate::signal::teach::Tools::Offered),
            delegation_approved("s", "c", true),
            delegation_denied("r"),
            delegate_results("s", "ok", &["a".into()], "m"),
            delegate_failed("s", "it exited (code 1)"),
            task_reminder("summaries/x.md"),
        ];
        for reply in replies {
            for kind in crate::signal::SignalKind::ALL {
                assert!(!reply.contains(&kind.open()) && !reply.contains(&kind.close()), "{reply}");
            }
        }
    }

    #[test]
    fn delegation_replies() {
        assert_eq!(
            delegation_approved("s-9", "tests in tests/parser.rs", false),
            "DELEGATION APPROVED\nNew agent: s-9\n\nCOORDINATION\ntests in tests/parser.rs\n\nRESUME INSTRUCTIONS\nContinue your own work in parallel."
        );
        assert!(delegation_approved("s-9", "", true).contains("Wait: you will be resumed"));
        assert_eq!(
            delegation_denied("no budget"),
            "DELEGATION DENIED\nReason: no budget\n\nRESUME INSTRUCTIONS\nDo the work yourself, or continue without it."
        );
        use crate::signal::teach::Tools;
        let work = delegated_work("Write tests", "put them in tests/", "s-1", None, Tools::Absent);
        assert!(work.starts_with("DELEGATED WORK (from agent s-1)\nWrite tests\n\nCOORDINATION\nput them in tests/"));
        assert!(work.contains("COMPLETION_REPORT marker"));
        let taught = delegated_work("Write tests", "put them in tests/", "s-1", Some("s-2"), Tools::Absent);
        assert!(taught.contains(&crate::signal::teach::pointer("s-2")), "{taught}");
        let with_tools = delegated_work("Write tests", "", "s-1", Some("s-2"), Tools::Offered);
        assert!(with_tools.contains("call report_completion (without Switchboard's tools, print"), "{with_tools}");
        let results = delegate_results("s-9", "success", &["tests/parser.rs".into()], "12 tests");
        assert_eq!(
            results,
            "DELEGATED WORK COMPLETE\nAgent s-9 reports: success\n\nDELIVERABLES\n- tests/parser.rs\n\nMETRICS\n12 tests\n\nRESUME INSTRUCTIONS\nContinue your work with these results."
        );
    }
}
