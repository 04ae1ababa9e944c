//! What an agent is taught of the signal protocols: the execution context
//! and the four signal templates, given through the agent's own instruction
//! channel (Claude Code's appended system prompt, Codex's developer
//! instructions) and in a protocol file in the workspace that each typed
//! task points to. The texts here hold the markers; they are never typed.
//! What is typed holds none ([`pointer()`], and anything passed through
//! [`defuse`]).

use super::SignalKind;

/// The protocol file, relative to the workspace.
pub const PROTOCOL_FILE: &str = ".switchboard/signals.md";

/// The protocols in full, for an agent known as `agent_id` (none: the file
/// shared by every agent of a workspace, whose tasks name their id).
pub fn protocol_text(agent_id: Option<&str>) -> String {
    let id = agent_id.unwrap_or("<your agent id, given with each task>");
    let who = match agent_id {
        Some(id) => format!("You are agent {id}"),
        None => "You are one agent".to_owned(),
    };
    format!(
        "# Working under Switchboard

EXECUTION CONTEXT
{who}, one of several coding agents a user runs at once through Switchboard. The user \
is not reading your terminal as you work. Switchboard reads what you write and shows the \
user any of the four signal blocks below as a dialog; the user's answer comes back to you \
as your next message. Use a block when its situation arises instead of asking in prose, \
then end your turn and wait for that answer. Write each block exactly as shown: the \
opening and closing markers on lines of their own, the fields between them as YAML \
(quote values that hold a colon). Never write the markers for any other reason.

## When a decision is the user's: CLARIFICATION_NEEDED

Before you guess at something that would waste the work if guessed wrong (which of two \
designs, how deep, what to leave out). Note where you are first, so you can go on from \
there.

{clarify_open}
agent_id: {id}
blocked_at: \"the step you are at\"
questions:
  - \"the first question\"
  - \"another question, if any\"
current_state: \"what is done and where you will go on from\"
{clarify_close}

## When you cannot go on: STOP_WORK

A missing dependency, credential or permission, or an error you cannot fix yourself. \
Say what you need; keep a checkpoint so the work can resume.

{stop_open}
agent_id: {id}
stop_reason: error
blocker_type: external_dependency
details: \"what blocks you, and what would unblock it\"
state_snapshot: \"what is done: phases, files written, the checkpoint to restore\"
blocked_work: \"the part that cannot go on\"
resume_requirements: \"what must be true before you resume\"
{stop_close}

## When part of the work belongs to another agent: DELEGATE_WORK

A separable piece another agent can do. Say whether you wait for it \
(blocks_current_work) or go on beside it (can_proceed_parallel).

{delegate_open}
agent_id: {id}
new_task_description: \"the work, complete enough to do without you\"
independence: can_proceed_parallel
coordination: \"shared files, order, or where results go\"
{delegate_close}

## When your work is done: COMPLETION_REPORT

Last, once the work is done (or as done as it will get). List only the files that matter, \
as paths inside the workspace.

{report_open}
agent_id: {id}
status: success
deliverables:
  - path/to/a/file
metrics_achieved: \"how the result measures against what was asked\"
recommendations:
  - \"what should happen next\"
{report_close}

status is success, partial or failed. A task that asks for a summary file still needs \
that file: the report comes in addition to it.
",
        clarify_open = SignalKind::Clarification.open(),
        clarify_close = SignalKind::Clarification.close(),
        stop_open = SignalKind::StopWork.open(),
        stop_close = SignalKind::StopWork.close(),
        delegate_open = SignalKind::Delegate.open(),
        delegate_close = SignalKind::Delegate.close(),
        report_open = SignalKind::Completion.open(),
        report_close = SignalKind::Completion.close(),
    )
}

/// What an agent whose CLI is given Switchboard's tools is taught at its
/// start, in place of the blocks: the tools, and the blocks' file for when
/// the tools are not offered after all (the server could not start).
pub fn tools_text(agent_id: &str) -> String {
    use super::tools::{SERVER_NAME, Tool};
    let names: Vec<&str> = Tool::ALL.iter().map(|tool| tool.name()).collect();
    format!(
        "# Working under Switchboard

EXECUTION CONTEXT
You are agent {agent_id}, one of several coding agents a user runs at once through Switchboard. The \
user is not reading your terminal as you work. Switchboard gives you tools (the MCP server \
`{SERVER_NAME}`: {names}): ask_user before you guess at a decision that is the user's, \
report_blocker when you cannot go on, request_delegation for a separable piece of work, \
report_completion last, once the work is done. Use them instead of asking in prose. After \
ask_user, report_blocker or a delegation you wait for, end your turn: the answer comes as your \
next message. If no `{SERVER_NAME}` tools are offered to you, print the signal blocks described \
in {PROTOCOL_FILE} instead.
",
        names = names.join(", "),
    )
}

/// What the tools' server tells the CLI about itself (MCP's
/// `instructions`): when to use its tools.
pub fn server_instructions() -> &'static str {
    "Switchboard runs you as one of several agents for a user who is not reading your terminal. Call ask_user \
     instead of asking in prose, report_blocker when you cannot go on, request_delegation for separable work, \
     report_completion last. Each returns at once; after ask_user or report_blocker end your turn: the answer \
     comes as your next message. Never wait in a tool call for a person."
}

/// The line a typed task carries when the agent's tools are there (its
/// server has told the app it started): which to use.
pub fn tools_pointer() -> &'static str {
    "If you need the user (a decision, a blocker, work to hand off), use your switchboard tools (ask_user, \
     report_blocker, request_delegation); when the work is done, call report_completion."
}

/// Whether an agent has Switchboard's tools, as the app knows it when it
/// types a task.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Tools {
    /// Not given (turned off, or an agent whose CLI takes none): the blocks.
    #[default]
    Absent,
    /// Given to its CLI, whose server has not told the app it started.
    Offered,
    /// Its server told the app it started.
    Started,
}

/// The line a typed task carries for an agent known as `agent_id`: the
/// tools where they started, the blocks where none were given, and either
/// while it is not known yet whether they started.
pub fn pointer_for(agent_id: &str, tools: Tools) -> String {
    match tools {
        Tools::Absent => pointer(agent_id),
        Tools::Started => tools_pointer().to_owned(),
        Tools::Offered => format!(
            "If you need the user (a decision, a blocker, work to hand off) or when you report the work done, \
             use your switchboard tools (ask_user, report_blocker, request_delegation, report_completion); if \
             you have none, use the signal blocks in {PROTOCOL_FILE}; your agent id is {agent_id}."
        ),
    }
}

/// The line a typed task carries: where the protocols are and the agent's
/// id. No marker: the terminal echoes what is typed.
pub fn pointer(agent_id: &str) -> String {
    format!(
        "If you need the user (a decision, a blocker, work to hand off) or when you report the work done, \
         use the signal blocks in {PROTOCOL_FILE}; your agent id is {agent_id}."
    )
}

/// `text` without any signal marker, to be typed: a marker's brackets are
/// dropped (`[STOP_WORK]` becomes `STOP_WORK`), so the echo of a user's
/// instruction or answer that quotes one is not read as a signal.
pub fn defuse(text: &str) -> String {
    let mut out = text.to_owned();
    for kind in SignalKind::ALL {
        out = out.replace(&kind.open(), kind.marker()).replace(&kind.close(), &format!("/{}", kind.marker()));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::signal::{Independence, ScanEvent, SignalBody, scan_all};

    /// The templates are the protocol: each, as taught, must read as a
    /// well-formed signal of its kind carrying the agent's id.
    #[test]
    fn every_template_taught_reads_as_its_signal() {
        let text = protocol_text(Some("agent-7"));
        let found = scan_all(text.as_bytes());
        let kinds: Vec<_> = found
            .iter()
            .map(|event| match event {
                ScanEvent::Signal { signal } => {
                    assert_eq!(signal.agent_id.as_deref(), Some("agent-7"));
                    signal.body.kind()
                }
                ScanEvent::Malformed { reason, raw, .. } => panic!("a template does not read: {reason}\n{raw}"),
            })
            .collect();
        assert_eq!(kinds, SignalKind::ALL);
        let ScanEvent::Signal { signal } = &found[2] else { unreachable!() };
        assert!(matches!(&signal.body, SignalBody::Delegate { independence: Independence::CanProceedParallel, .. }));
        assert!(text.contains("You are agent agent-7"));
        assert!(protocol_text(None).contains("<your agent id, given with each task>"));
    }

    #[test]
    fn what_is_typed_holds_no_marker() {
        let typed = pointer("agent-7");
        assert!(typed.contains(PROTOCOL_FILE) && typed.contains("agent-7"));
        assert!(scan_all(typed.as_bytes()).is_empty());
        let quoted =
            "Print [STOP_WORK] then [/STOP_WORK] and [COMPLETION_REPORT]\nstatus: success\n[/COMPLETION_REPORT]";
        let defused = defuse(quoted);
        assert_eq!(
            defused,
            "Print STOP_WORK then /STOP_WORK and COMPLETION_REPORT\nstatus: success\n/COMPLETION_REPORT"
        );
        for kind in SignalKind::ALL {
            assert!(!defused.contains(&kind.open()) && !defused.contains(&kind.close()));
        }
        assert_eq!(defuse("plain [text] stays"), "plain [text] stays");
    }

    /// The tools' teaching is shorter than the blocks', names every tool and
    /// the blocks' file for when the tools are not there, and holds no block.
    #[test]
    fn the_tools_are_taught_in_fewer_words_with_the_blocks_as_the_fallback() {
        use crate::signal::tools::Tool;
        let taught = tools_text("agent-7");
        assert!(taught.len() * 2 < protocol_text(Some("agent-7")).len(), "{} bytes", taught.len());
        for tool in Tool::ALL {
            assert!(taught.contains(tool.name()), "{} is taught", tool.name());
        }
        assert!(taught.contains(PROTOCOL_FILE) && taught.contains("agent-7"));
        let offered = pointer_for("agent-7", Tools::Offered);
        assert!(offered.contains("ask_user") && offered.contains(PROTOCOL_FILE) && offered.contains("agent-7"));
        assert_eq!(pointer_for("agent-7", Tools::Absent), pointer("agent-7"));
        for text in [taught.as_str(), tools_pointer(), server_instructions(), offered.as_str()] {
            assert!(scan_all(text.as_bytes()).is_empty(), "{text}");
            assert_eq!(defuse(text), text, "no marker");
        }
    }
}
