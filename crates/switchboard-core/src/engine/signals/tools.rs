//! Tool calls from a session's own tools server: each protocol tool becomes
//! the very record its printed block would (through `on_signal`, on the
//! `tool` channel), a finding a line of the shared findings file, and the
//! answer tells the model what happens next, in a sentence.

use std::time::Duration;

use serde_json::{Value, json};
use switchboard_api::{CompletionRule, SignalChannel, TaskInfo, ToolAnswer};
use switchboard_protocol::signal::tools::{ArgumentProblem, Tool, checked, signal_of};
use switchboard_protocol::signal::{Independence, SHARED_FINDINGS_FILE, ScanEvent, SignalBody};
use switchboard_protocol::{SessionId, SignalId, TaskId};

use super::{SignalDesk, workspace_of};
use crate::engine::context::Ctx;
use crate::error::EngineError;
use crate::workspace::Workspace;

/// What became of a signal the desk was given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Taken {
    /// Recorded and shown to the user.
    Raised(SignalId),
    /// The same signal came from this session within the last minutes.
    SeenAgain,
    /// Past the session's limit of signals waiting for the user.
    SetAside,
    /// No such session.
    Unknown,
}

/// What a session's task is, for `current_task`: the task, what completes
/// it (its agent's rule), the time it has left, and the teammates of its
/// session.
pub(crate) struct TaskNow<'a> {
    pub task: Option<&'a TaskInfo>,
    pub done_by: CompletionRule,
    pub time_left: Option<Duration>,
    pub teammates: Vec<String>,
}

/// The longest line a finding adds to the shared file.
const MAX_FINDING_BYTES: usize = 16 * 1024;

fn refused(problem: ArgumentProblem) -> EngineError {
    EngineError::InvalidInput { field: problem.field, reason: problem.reason }
}

impl SignalDesk {
    /// A protocol tool's call, for `session_id` (working on `task`).
    pub fn tool_signal(
        &mut self,
        cx: &mut Ctx,
        session_id: SessionId,
        tool: Tool,
        arguments: &Value,
        task: Option<TaskId>,
    ) -> Result<ToolAnswer, EngineError> {
        let signal = signal_of(tool, arguments).map_err(refused)?;
        let body = signal.body.clone();
        let taken = self.on_signal(cx, session_id, SignalChannel::Tool, ScanEvent::Signal { signal }, task);
        Ok(ToolAnswer { text: next_step(&body, &taken), data: raised_id(&taken) })
    }

    /// `add_finding`: a line of the shared findings file in the session's
    /// workspace, written as one JSON object (never followed out of it).
    pub fn add_finding(cx: &mut Ctx, session_id: &SessionId, arguments: &Value) -> Result<ToolAnswer, EngineError> {
        let fields = checked(Tool::AddFinding, arguments).map_err(refused)?;
        let profile = cx.sessions.get(session_id).map(|entry| entry.info.profile_id.clone());
        let workspace = profile
            .and_then(|profile| workspace_of(cx, &profile, session_id))
            .ok_or_else(|| EngineError::SessionNotFound(session_id.clone()))?;
        let line = finding_line(session_id, &fields, switchboard_api::now());
        if line.len() > MAX_FINDING_BYTES {
            return Err(EngineError::InvalidInput {
                field: "details",
                reason: format!("make the finding shorter: one line of at most {} KiB", MAX_FINDING_BYTES / 1024),
            });
        }
        let failed = |e| EngineError::io(format!("adding to {SHARED_FINDINGS_FILE} in {}", workspace.display()), e);
        let files = Workspace::open(&workspace).map_err(failed)?;
        files.append(SHARED_FINDINGS_FILE, b"", line.as_bytes()).map_err(failed)?;
        Ok(ToolAnswer { text: format!("Added to {SHARED_FINDINGS_FILE}; go on with your work."), data: None })
    }
}

/// The findings file's line for a finding: who, when, what.
fn finding_line(
    session_id: &SessionId,
    fields: &serde_json::Map<String, Value>,
    at: switchboard_api::Millis,
) -> String {
    let mut finding = json!({"agent_id": session_id.to_string(), "at": at, "finding": fields.get("finding")});
    if let Some(details) = fields.get("details") {
        finding["details"] = details.clone();
    }
    let mut line = finding.to_string();
    line.push('\n');
    line
}

fn raised_id(taken: &Taken) -> Option<Value> {
    match taken {
        Taken::Raised(id) => Some(json!({"id": id.to_string()})),
        _ => None,
    }
}

/// What the model is told after a protocol tool's call: what happens next,
/// in a sentence (pure).
pub(crate) fn next_step(body: &SignalBody, taken: &Taken) -> String {
    let id = match taken {
        Taken::Raised(id) => id.to_string(),
        Taken::SeenAgain => {
            return "This was received already and is with the user; end your turn now: the answer comes as your \
                    next message."
                .into();
        }
        Taken::SetAside => {
            return "Too many of your requests already wait for the user, so this one was set aside; end your turn \
                    now and wait for the answers."
                .into();
        }
        Taken::Unknown => return "Switchboard does not know this session; nothing was recorded.".into(),
    };
    match body {
        SignalBody::Clarification { .. } => format!(
            "Your question is with the user (question {id}). End your turn now; the answer comes as your next message."
        ),
        SignalBody::StopWork { .. } => format!(
            "The user is told you are blocked (blocker {id}). Stop work and end your turn now; what to do comes as \
             your next message."
        ),
        SignalBody::Delegate { independence: Independence::BlocksCurrentWork, .. } => format!(
            "Your request is with the user (delegation {id}). End your turn now; once another agent has done the \
             work its results come as your next message."
        ),
        SignalBody::Delegate { .. } => format!(
            "Your request is with the user (delegation {id}); go on with your own work: you are told when it is \
             approved."
        ),
        SignalBody::Completion { .. } => format!(
            "Your report is recorded (report {id}). If your task names a summary file, write it now; then end your \
             turn."
        ),
    }
}

/// `current_task`'s answer: the task as the agent was given it, with the
/// time it has left and its teammates (pure).
pub(crate) fn task_now(now: &TaskNow<'_>) -> ToolAnswer {
    let Some(task) = now.task else {
        return ToolAnswer {
            text: "You have no task from Switchboard at the moment: the user is talking to you directly.".into(),
            data: Some(json!({"task": null})),
        };
    };
    let spec = &task.spec;
    let mut text = format!("Task {}\n\n{}", task.id, spec.instruction.trim());
    let mut add = |label: &str, value: Option<&str>| {
        if let Some(value) = value.map(str::trim).filter(|v| !v.is_empty()) {
            text.push_str(&format!("\n\n{label}: {value}"));
        }
    };
    add("Goals", spec.goals.as_deref());
    add("Success criteria", spec.success_criteria.as_deref());
    let files: Vec<&str> = spec.context_files().into_iter().map(|(name, _)| name).collect();
    let files_line = files.join(", ");
    add("Context files", Some(&files_line));
    let minutes = now.time_left.map(|left| left.as_secs().div_ceil(60));
    let left = minutes.map(|m| if m == 1 { "about 1 minute".to_owned() } else { format!("about {m} minutes") });
    add("Time left", left.as_deref());
    let teammates = now.teammates.join(", ");
    add("Teammates", Some(&teammates));
    let summary = switchboard_protocol::summary::summary_path(&task.id);
    let iteration = spec.loop_iteration.is_some();
    text.push_str(&format!("\n\n{}", done_when(now.done_by, iteration, &summary)));
    let data = json!({
        "task": task.id.to_string(),
        "instruction": spec.instruction,
        "goals": spec.goals,
        "success_criteria": spec.success_criteria,
        "context_files": files,
        "time_left_minutes": minutes,
        "teammates": now.teammates,
        "summary_file": summary,
    });
    ToolAnswer { text, data: Some(data) }
}

/// What ends the task, said to its agent: its agent's rule (a loop's
/// iteration is judged at its turn's end), with its summary file's path.
pub(crate) fn done_when(rule: CompletionRule, iteration: bool, summary: &str) -> String {
    match rule {
        _ if iteration => "When this iteration's work is done, end your turn: the loop judges it then.".into(),
        CompletionRule::Summary => {
            format!(
                "When the work is done, write {summary} as .switchboard/completion.md describes; report_completion may go with it."
            )
        }
        CompletionRule::Report => "When the work is done, call report_completion: that completes the task.".into(),
        CompletionRule::Both => format!(
            "When the work is done, write {summary} as .switchboard/completion.md describes and call \
             report_completion: the task needs both, agreeing."
        ),
        CompletionRule::Prompt => {
            "When the work is done, end your turn: the task is done when your prompt is back.".into()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use switchboard_protocol::signal::tools::Tool;

    fn body(tool: Tool, arguments: Value) -> SignalBody {
        signal_of(tool, &arguments).unwrap().body
    }

    /// Each call is answered with what happens next, in a sentence the
    /// model can act on: end its turn where an answer is awaited, go on
    /// where it is not.
    #[test]
    fn each_call_is_answered_with_what_happens_next() {
        let id = SignalId::new();
        let raised = Taken::Raised(id.clone());
        let cases = [
            (body(Tool::AskUser, json!({"questions": ["Which?"]})), &raised, "End your turn now"),
            (body(Tool::ReportBlocker, json!({"details": "no key"})), &raised, "Stop work and end your turn now"),
            (
                body(
                    Tool::RequestDelegation,
                    json!({"new_task_description": "docs", "independence": "blocks_current_work"}),
                ),
                &raised,
                "End your turn now",
            ),
            (
                body(Tool::RequestDelegation, json!({"new_task_description": "docs"})),
                &raised,
                "go on with your own work",
            ),
            (body(Tool::ReportCompletion, json!({"status": "success"})), &raised, "write it now"),
            (body(Tool::AskUser, json!({"questions": ["Which?"]})), &Taken::SeenAgain, "received already"),
            (body(Tool::AskUser, json!({"questions": ["Which?"]})), &Taken::SetAside, "set aside"),
        ];
        for (body, taken, says) in cases {
            let text = next_step(&body, taken);
            assert!(text.contains(says), "{text}");
            if matches!(taken, Taken::Raised(_)) {
                assert!(text.contains(&id.to_string()), "the record is named: {text}");
            }
        }
    }

    #[test]
    fn a_finding_is_one_json_line_naming_its_agent() {
        let session = SessionId::new();
        let fields = checked(Tool::AddFinding, &json!({"finding": "a\nb", "details": {"file": "x.rs"}})).unwrap();
        let line = finding_line(&session, &fields, 7);
        assert_eq!(line.matches('\n').count(), 1, "{line}");
        let parsed: Value = serde_json::from_str(line.trim_end()).unwrap();
        assert_eq!(
            parsed,
            json!({"agent_id": session.to_string(), "at": 7, "finding": "a\nb", "details": {"file": "x.rs"}})
        );
    }

    #[test]
    fn the_current_task_says_what_was_asked_what_is_left_and_who_works_beside() {
        let mut spec = switchboard_api::TaskSpec::new(switchboard_protocol::ProfileId::new(), "Fix the parser");
        spec.success_criteria = Some("all tests pass".into());
        spec.context = Some("the grammar is in docs/".into());
        let task = TaskInfo::queued(TaskId::new(), spec, 0, 0);
        let now = TaskNow {
            task: Some(&task),
            done_by: CompletionRule::Report,
            time_left: Some(Duration::from_secs(125)),
            teammates: vec!["reviewer".into()],
        };
        let answer = task_now(&now);
        for part in [
            "Fix the parser",
            "Success criteria: all tests pass",
            "Context files: CONTEXT.md",
            "about 3 minutes",
            "Teammates: reviewer",
        ] {
            assert!(answer.text.contains(part), "{part} in {}", answer.text);
        }
        assert_eq!(answer.data.as_ref().unwrap()["time_left_minutes"], 3);
        assert!(answer.text.ends_with("call report_completion: that completes the task."), "{}", answer.text);
        let idle =
            task_now(&TaskNow { task: None, done_by: CompletionRule::Summary, time_left: None, teammates: Vec::new() });
        assert!(idle.text.contains("no task"), "{}", idle.text);
    }

    /// The closing line of `current_task` follows what completes the task.
    #[test]
    fn the_task_says_what_completes_it_by_its_agents_rule() {
        let summary = "summaries/t.md";
        let cases = [
            (CompletionRule::Summary, false, "write summaries/t.md"),
            (CompletionRule::Report, false, "call report_completion: that completes the task"),
            (CompletionRule::Both, false, "the task needs both, agreeing"),
            (CompletionRule::Prompt, false, "when your prompt is back"),
            (CompletionRule::Summary, true, "the loop judges it then"),
            (CompletionRule::Both, true, "the loop judges it then"),
        ];
        for (rule, iteration, says) in cases {
            let said = done_when(rule, iteration, summary);
            assert!(said.contains(says), "{rule:?} {iteration}: {said}");
            assert!(
                iteration || rule == CompletionRule::Report || rule == CompletionRule::Prompt || said.contains(summary)
            );
        }
    }
}
