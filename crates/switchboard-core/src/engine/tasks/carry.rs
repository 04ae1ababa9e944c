//! How a task in a worktree that was worked in before reaches an agent that
//! knows that work (pure). A worktree's session ends with its task (after
//! [`WORKTREE_SESSION_GRACE`]); a later task there (a review's comments,
//! "Resolve with the agent") starts a session that carries on the
//! conversation that did the work when the agent's CLI can resume one, and
//! otherwise a fresh session told, in the task itself, what was done there
//! before — so nothing a reviewer sends reaches an agent that forgot the work.

use std::time::Duration;

use switchboard_protocol::AgentKind;

/// How long a worktree task's session is kept once its task ended: its
/// agent may still be writing its last words (Claude Code's Stop hook comes
/// after its summary), and a task queued behind it in the same worktree
/// takes the same session rather than a resumed one. Short: an idle agent
/// holds hundreds of MB.
pub(crate) const WORKTREE_SESSION_GRACE: Duration = Duration::from_secs(3);

/// The most of the earlier work a fresh session is told, in bytes: the
/// earlier tasks' requests and summaries, newest kept.
pub(crate) const MAX_RETOLD_BYTES: usize = 8 * 1024;

/// How the next task in a worktree reaches its agent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Carry {
    /// No work was done there before: a fresh session, the task as it is.
    Fresh,
    /// The agent's CLI continues the conversation that did the work.
    Resume { conversation: String },
    /// A fresh session (the CLI cannot resume, or the conversation is not
    /// known), told first what was done there.
    Retell,
}

/// How the next task in a worktree carries on (pure): `earlier` is the
/// conversation of the last session that worked there, when one did (its
/// id, when the app knows it).
pub(crate) fn carry(kind: AgentKind, earlier: Option<Option<&str>>) -> Carry {
    match (kind, earlier) {
        (_, None) => Carry::Fresh,
        (AgentKind::ClaudeCode | AgentKind::Codex, Some(Some(conversation))) if !conversation.is_empty() => {
            Carry::Resume { conversation: conversation.to_owned() }
        }
        _ => Carry::Retell,
    }
}

/// An earlier task in the worktree, as a fresh session is told it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Earlier<'a> {
    pub title: String,
    pub instruction: &'a str,
    /// What the agent reported (its summary's objective, accomplishments
    /// and notes), when it wrote one.
    pub reported: Vec<&'a str>,
    /// How it ended, in words ("completed", "failed: …").
    pub ended: String,
}

/// The task as typed into a fresh session after earlier work in its
/// worktree (pure): what was done there, newest last and within
/// [`MAX_RETOLD_BYTES`] (older tasks dropped first), then the task.
pub(crate) fn retold(earlier: &[Earlier<'_>], task: &str) -> String {
    let told: Vec<String> = earlier
        .iter()
        .map(|e| {
            let mut text = format!("- Task “{}” ({})\n  Asked: {}\n", e.title, e.ended, one_paragraph(e.instruction));
            for line in &e.reported {
                text.push_str(&format!("  Reported: {}\n", one_paragraph(line)));
            }
            text
        })
        .collect();
    let mut kept: Vec<&str> = Vec::new();
    let mut used = 0;
    for text in told.iter().rev() {
        if used + text.len() > MAX_RETOLD_BYTES {
            break;
        }
        used += text.len();
        kept.push(text);
    }
    kept.reverse();
    let dropped = told.len() - kept.len();
    let mut out = String::from(
        "You are continuing work already done in this folder (a git worktree) by an earlier session of yours, \
         whose conversation is not available. What was done here before:\n",
    );
    if dropped > 0 {
        out.push_str(&format!("- ({dropped} earlier task(s) left out)\n"));
    }
    for text in kept {
        out.push_str(text);
    }
    out.push_str("Look at the files and `git log` here before you change anything. The new task follows.\n\n");
    out.push_str(task);
    out
}

/// Text on one line, trimmed and cut at a character boundary.
fn one_paragraph(text: &str) -> String {
    const MAX: usize = 1024;
    let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.len() <= MAX {
        return flat;
    }
    let mut end = MAX;
    while !flat.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &flat[..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_later_task_in_a_worktree_resumes_its_conversation_where_the_cli_can_else_is_retold() {
        use AgentKind::*;
        let cases = [
            (ClaudeCode, None, Carry::Fresh),
            (Generic, None, Carry::Fresh),
            (ClaudeCode, Some(Some("c-1")), Carry::Resume { conversation: "c-1".into() }),
            (Codex, Some(Some("t-1")), Carry::Resume { conversation: "t-1".into() }),
            // Not known (the user's own arguments chose it), or empty: retold.
            (ClaudeCode, Some(None), Carry::Retell),
            (Codex, Some(Some("")), Carry::Retell),
            // Another CLI has no resume the app knows.
            (Generic, Some(Some("x")), Carry::Retell),
            (Generic, Some(None), Carry::Retell),
        ];
        for (kind, earlier, want) in cases {
            assert_eq!(carry(kind, earlier), want, "{kind:?} {earlier:?}");
        }
    }

    #[test]
    fn a_fresh_session_is_told_the_earlier_work_newest_kept_then_the_task() {
        let first = Earlier {
            title: "Make one return eleven".into(),
            instruction: "Make one\nreturn eleven",
            reported: vec!["Changed src/lib.rs"],
            ended: "completed".into(),
        };
        let text = retold(std::slice::from_ref(&first), "Review of it: use a constant");
        assert!(text.contains("- Task “Make one return eleven” (completed)\n  Asked: Make one return eleven\n"));
        assert!(text.contains("  Reported: Changed src/lib.rs\n"));
        assert!(text.ends_with("\n\nReview of it: use a constant"), "{text}");
        // Past the cap the oldest go first, and the count of those left out is said.
        let long = "x".repeat(900);
        let many: Vec<Earlier<'_>> = (0..20)
            .map(|_| Earlier { title: "t".into(), instruction: &long, reported: Vec::new(), ended: "completed".into() })
            .collect();
        let text = retold(&many, "task");
        assert!(text.len() < MAX_RETOLD_BYTES + 1024, "{}", text.len());
        assert!(text.contains("earlier task(s) left out"));
        assert!(text.ends_with("task"));
    }
}
