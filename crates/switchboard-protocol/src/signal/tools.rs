//! The signal protocols as tools: what the MCP server each session's CLI
//! starts (`switchboard-mcp`, named [`SERVER_NAME`]) offers the model, and
//! how a call's arguments become the very [`Signal`] a printed block makes.
//! The names and fields are the protocols' own; the checks are stricter
//! than a block's (a block is read as best it can be, a call that cannot be
//! taken is answered with the argument at fault, so the model can fix it).

use serde_json::{Map, Value, json};

use super::{MAX_BLOCK_BYTES, Signal, SignalKind, from_fields};

/// The server's name in the CLIs' configuration: Claude Code lists its tools
/// as `mcp__switchboard__ask_user` and so on.
pub const SERVER_NAME: &str = "switchboard";

/// A tool the server offers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tool {
    AskUser,
    ReportBlocker,
    RequestDelegation,
    ReportCompletion,
    AddFinding,
    CurrentTask,
}

/// What an argument holds, as a call is checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    Text,
    /// A list of texts (one text is taken as a list of one).
    Texts,
    /// A clarification's questions: texts or `{question, options}`.
    Questions,
    /// One of these words.
    OneOf(&'static [&'static str]),
    /// Anything JSON can say.
    Any,
}

/// An argument: its name, what it holds, whether a call needs it, and what
/// the model is told of it.
struct Argument {
    name: &'static str,
    shape: Shape,
    required: bool,
    description: &'static str,
}

const fn arg(name: &'static str, shape: Shape, required: bool, description: &'static str) -> Argument {
    Argument { name, shape, required, description }
}

const STATUSES: &[&str] = &["success", "partial", "failed"];
const INDEPENDENCE: &[&str] = &["can_proceed_parallel", "blocks_current_work"];

const ASK_USER: &[Argument] = &[
    arg(
        "questions",
        Shape::Questions,
        true,
        "The questions, each a text or {question, options} where options are the choices to offer.",
    ),
    arg("blocked_at", Shape::Text, false, "The step you are at."),
    arg("current_state", Shape::Text, false, "What is done, and where you will go on from."),
];
const REPORT_BLOCKER: &[Argument] = &[
    arg("details", Shape::Text, true, "What blocks you, and what would unblock it."),
    arg(
        "blocker_type",
        Shape::Text,
        false,
        "The kind of blocker: external_dependency, credentials, permission, error or another word.",
    ),
    arg("stop_reason", Shape::Text, false, "Why you stop: error, blocked or another word."),
    arg("state_snapshot", Shape::Text, false, "What is done: phases, files written, the checkpoint to restore."),
    arg("blocked_work", Shape::Text, false, "The part of the work that cannot go on."),
    arg("resume_requirements", Shape::Text, false, "What must be true before you resume."),
];
const REQUEST_DELEGATION: &[Argument] = &[
    arg("new_task_description", Shape::Text, true, "The work, complete enough for another agent to do without you."),
    arg(
        "independence",
        Shape::OneOf(INDEPENDENCE),
        false,
        "can_proceed_parallel (you go on beside it, the default) or blocks_current_work (you wait for its results).",
    ),
    arg("coordination", Shape::Text, false, "Shared files, order, or where the results go."),
];
const REPORT_COMPLETION: &[Argument] = &[
    arg("status", Shape::OneOf(STATUSES), true, "success, partial or failed."),
    arg("deliverables", Shape::Texts, false, "The files that matter, as paths inside the workspace."),
    arg("metrics_achieved", Shape::Text, false, "How the result measures against what was asked."),
    arg("recommendations", Shape::Texts, false, "What should happen next."),
];
const ADD_FINDING: &[Argument] = &[
    arg("finding", Shape::Text, true, "What you found, in a sentence or two."),
    arg("details", Shape::Any, false, "Anything that goes with it: paths, numbers, an object of your own."),
];

impl Tool {
    pub const ALL: [Tool; 6] = [
        Tool::AskUser,
        Tool::ReportBlocker,
        Tool::RequestDelegation,
        Tool::ReportCompletion,
        Tool::AddFinding,
        Tool::CurrentTask,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Tool::AskUser => "ask_user",
            Tool::ReportBlocker => "report_blocker",
            Tool::RequestDelegation => "request_delegation",
            Tool::ReportCompletion => "report_completion",
            Tool::AddFinding => "add_finding",
            Tool::CurrentTask => "current_task",
        }
    }

    pub fn named(name: &str) -> Option<Tool> {
        Tool::ALL.into_iter().find(|tool| tool.name() == name)
    }

    /// The signal a call of this tool makes, for the four protocol tools.
    pub fn signal(self) -> Option<SignalKind> {
        match self {
            Tool::AskUser => Some(SignalKind::Clarification),
            Tool::ReportBlocker => Some(SignalKind::StopWork),
            Tool::RequestDelegation => Some(SignalKind::Delegate),
            Tool::ReportCompletion => Some(SignalKind::Completion),
            Tool::AddFinding | Tool::CurrentTask => None,
        }
    }

    /// When the model should call it, in its own words.
    pub fn description(self) -> &'static str {
        match self {
            Tool::AskUser => {
                "Ask the user a question before you guess at something that would waste the work if guessed wrong \
                 (which of two designs, how deep, what to leave out). Returns at once: then end your turn; the \
                 user's answer comes as your next message. Never ask in prose instead."
            }
            Tool::ReportBlocker => {
                "Stop work because you cannot go on: a missing dependency, credential or permission, or an error \
                 you cannot fix yourself. Say what you need and keep a checkpoint. Then end your turn; what to do \
                 comes as your next message."
            }
            Tool::RequestDelegation => {
                "Ask for a separable piece of the work to go to another agent. The user decides; if you chose \
                 blocks_current_work, end your turn and the results come as your next message, else go on."
            }
            Tool::ReportCompletion => {
                "Report your task done (or as done as it will get), last. A task that asks for a summary file \
                 still needs that file: the report comes in addition to it."
            }
            Tool::AddFinding => {
                "Add a finding to SHARED_FINDINGS.jsonl, the file agents working on one piece of work in parallel \
                 share; the agent that delegated the work reads it when all have reported."
            }
            Tool::CurrentTask => {
                "Your current task as Switchboard gave it: the instruction, its success criteria, its context \
                 files, the time left and your teammates."
            }
        }
    }

    fn arguments(self) -> &'static [Argument] {
        match self {
            Tool::AskUser => ASK_USER,
            Tool::ReportBlocker => REPORT_BLOCKER,
            Tool::RequestDelegation => REQUEST_DELEGATION,
            Tool::ReportCompletion => REPORT_COMPLETION,
            Tool::AddFinding => ADD_FINDING,
            Tool::CurrentTask => &[],
        }
    }

    /// Its arguments as a JSON Schema object.
    pub fn input_schema(self) -> Map<String, Value> {
        let mut properties = Map::new();
        for argument in self.arguments() {
            let mut schema = match argument.shape {
                Shape::Text => json!({"type": "string"}),
                Shape::Texts => json!({"type": "array", "items": {"type": "string"}}),
                Shape::Questions => json!({
                    "type": "array",
                    "minItems": 1,
                    "items": {"anyOf": [
                        {"type": "string"},
                        {"type": "object", "properties": {
                            "question": {"type": "string"},
                            "options": {"type": "array", "items": {"type": "string"}}
                        }, "required": ["question"], "additionalProperties": false}
                    ]}
                }),
                Shape::OneOf(words) => json!({"type": "string", "enum": words}),
                Shape::Any => json!({}),
            };
            schema["description"] = json!(argument.description);
            properties.insert(argument.name.to_owned(), schema);
        }
        let required: Vec<&str> = self.arguments().iter().filter(|a| a.required).map(|a| a.name).collect();
        let schema = json!({
            "type": "object",
            "properties": properties,
            "required": required,
            "additionalProperties": false,
        });
        match schema {
            Value::Object(schema) => schema,
            _ => unreachable!("made as an object"),
        }
    }
}

/// An argument of a call that cannot be taken, and why: said to the model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArgumentProblem {
    /// The argument's name (`arguments` for the call as a whole, or for
    /// one it does not take).
    pub field: &'static str,
    pub reason: String,
}

impl std::fmt::Display for ArgumentProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "`{}` {}", self.field, self.reason)
    }
}

/// The arguments of a call of `tool`, checked against what it takes: an
/// object, no argument it does not take, each of its shape, each required
/// one given. A call of a tool without arguments may pass none.
pub fn checked(tool: Tool, arguments: &Value) -> Result<Map<String, Value>, ArgumentProblem> {
    let problem = |field: &'static str, reason: String| ArgumentProblem { field, reason };
    let fields = match arguments {
        Value::Object(fields) => fields.clone(),
        Value::Null => Map::new(),
        _ => return Err(problem("arguments", "must be an object of named arguments".into())),
    };
    if arguments.to_string().len() > MAX_BLOCK_BYTES {
        return Err(problem(
            "arguments",
            format!("are longer than {} KiB in all: say it shorter", MAX_BLOCK_BYTES / 1024),
        ));
    }
    let known = tool.arguments();
    if let Some(unknown) = fields.keys().find(|name| !known.iter().any(|a| a.name == name.as_str())) {
        let takes: Vec<&str> = known.iter().map(|a| a.name).collect();
        let reason = if takes.is_empty() {
            format!("hold `{unknown}`, but {} takes none", tool.name())
        } else {
            format!("hold `{unknown}`, which {} does not take (it takes {})", tool.name(), takes.join(", "))
        };
        return Err(problem("arguments", reason));
    }
    for argument in known {
        let value = fields.get(argument.name).filter(|v| !v.is_null());
        match value {
            None if argument.required => return Err(problem(argument.name, "is required".into())),
            None => {}
            Some(value) => {
                shape_problem(argument.shape, value).map_or(Ok(()), |reason| Err(problem(argument.name, reason)))?
            }
        }
    }
    Ok(fields)
}

/// Why `value` does not have `shape`; none: it has.
fn shape_problem(shape: Shape, value: &Value) -> Option<String> {
    let blank = |text: &str| text.trim().is_empty();
    match (shape, value) {
        (Shape::Any, _) => None,
        (Shape::Text, Value::String(text)) if blank(text) => Some("is empty".into()),
        (Shape::Text, Value::String(_)) => None,
        (Shape::Text, _) => Some("must be a string".into()),
        (Shape::Texts, Value::String(_)) => None,
        (Shape::Texts, Value::Array(items)) if items.iter().all(Value::is_string) => None,
        (Shape::Texts, _) => Some("must be a list of strings".into()),
        (Shape::OneOf(words), Value::String(word)) if words.contains(&word.as_str()) => None,
        (Shape::OneOf(words), _) => Some(format!("must be one of: {}", words.join(", "))),
        (Shape::Questions, Value::Array(items)) if items.is_empty() => Some("holds no question".into()),
        (Shape::Questions, Value::Array(items)) => items
            .iter()
            .enumerate()
            .find_map(|(n, item)| question_problem(item).map(|why| format!("item {} {why}", n + 1))),
        (Shape::Questions, _) => Some("must be a list of questions".into()),
    }
}

fn question_problem(item: &Value) -> Option<&'static str> {
    match item {
        Value::String(text) if text.trim().is_empty() => Some("is empty"),
        Value::String(_) => None,
        Value::Object(fields) => {
            if fields.keys().any(|key| key != "question" && key != "options") {
                return Some("may hold only `question` and `options`");
            }
            match (fields.get("question"), fields.get("options")) {
                (Some(Value::String(text)), _) if text.trim().is_empty() => Some("has an empty `question`"),
                (Some(Value::String(_)), None | Some(Value::Null)) => None,
                (Some(Value::String(_)), Some(Value::Array(options))) if options.iter().all(Value::is_string) => None,
                (Some(Value::String(_)), Some(_)) => Some("has `options` that are not a list of strings"),
                _ => Some("needs `question`, a string"),
            }
        }
        _ => Some("must be a string or {question, options}"),
    }
}

/// The signal a call of a protocol tool makes: its checked arguments read
/// as a block's fields are, the call's arguments kept as what the agent
/// wrote.
pub fn signal_of(tool: Tool, arguments: &Value) -> Result<Signal, ArgumentProblem> {
    let Some(kind) = tool.signal() else {
        return Err(ArgumentProblem { field: "tool", reason: format!("{} makes no signal", tool.name()) });
    };
    let fields = checked(tool, arguments)?;
    let raw = serde_json::to_string_pretty(&fields).expect("JSON values serialize");
    from_fields(kind, fields, &raw)
        .map_err(|missing| ArgumentProblem { field: missing.field, reason: "is required".into() })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::signal::{Independence, SignalBody};

    #[test]
    fn each_tool_is_named_once_and_found_by_its_name() {
        for tool in Tool::ALL {
            assert_eq!(Tool::named(tool.name()), Some(tool));
            let schema = tool.input_schema();
            assert_eq!(schema["type"], "object");
            for required in schema["required"].as_array().unwrap() {
                assert!(schema["properties"].get(required.as_str().unwrap()).is_some(), "{required} is described");
            }
        }
        assert_eq!(Tool::named("mcp__switchboard__ask_user"), None, "the CLI's prefix is not the tool's name");
    }

    /// Calls that cannot be taken, each answered with the argument at fault.
    #[test]
    fn a_call_that_cannot_be_taken_names_its_argument_and_why() {
        let cases: &[(Tool, Value, &str, &str)] = &[
            (Tool::AskUser, json!({}), "questions", "is required"),
            (Tool::AskUser, json!({"questions": []}), "questions", "holds no question"),
            (Tool::AskUser, json!({"questions": "Which?"}), "questions", "must be a list of questions"),
            (
                Tool::AskUser,
                json!({"questions": ["ok", 3]}),
                "questions",
                "item 2 must be a string or {question, options}",
            ),
            (
                Tool::AskUser,
                json!({"questions": [{"options": ["a"]}]}),
                "questions",
                "item 1 needs `question`, a string",
            ),
            (
                Tool::AskUser,
                json!({"questions": [{"question": "q", "options": "a"}]}),
                "questions",
                "item 1 has `options` that are not a list of strings",
            ),
            (
                Tool::AskUser,
                json!({"questions": ["q"], "urgency": "high"}),
                "arguments",
                "hold `urgency`, which ask_user does not take (it takes questions, blocked_at, current_state)",
            ),
            (Tool::AskUser, json!(["q"]), "arguments", "must be an object of named arguments"),
            (Tool::AskUser, json!({"questions": ["q"], "blocked_at": 7}), "blocked_at", "must be a string"),
            (Tool::ReportBlocker, json!({"details": "  "}), "details", "is empty"),
            (
                Tool::RequestDelegation,
                json!({"new_task_description": "x", "independence": "later"}),
                "independence",
                "must be one of: can_proceed_parallel, blocks_current_work",
            ),
            (Tool::ReportCompletion, json!({"status": "done"}), "status", "must be one of: success, partial, failed"),
            (
                Tool::ReportCompletion,
                json!({"status": "success", "deliverables": [1]}),
                "deliverables",
                "must be a list of strings",
            ),
            (Tool::AddFinding, json!({"details": {}}), "finding", "is required"),
            (Tool::CurrentTask, json!({"which": 1}), "arguments", "hold `which`, but current_task takes none"),
            (
                Tool::AskUser,
                json!({"questions": ["x".repeat(MAX_BLOCK_BYTES)]}),
                "arguments",
                "are longer than 64 KiB in all: say it shorter",
            ),
        ];
        for (tool, arguments, field, reason) in cases {
            let problem = checked(*tool, arguments).expect_err(&format!("{arguments} was taken"));
            assert_eq!((problem.field, problem.reason.as_str()), (*field, *reason), "{arguments}");
        }
        assert!(checked(Tool::CurrentTask, &Value::Null).is_ok(), "a tool of no arguments may be called with none");
    }

    /// A call makes the same signal as the block of the same fields.
    #[test]
    fn a_call_becomes_the_signal_its_printed_block_would_be() {
        let asked = signal_of(
            Tool::AskUser,
            &json!({"questions": ["How deep?", {"question": "Which store?", "options": ["SQLite", "Postgres"]}],
                    "blocked_at": "design", "current_state": "nothing yet"}),
        )
        .unwrap();
        assert_eq!(
            asked.body,
            SignalBody::Clarification {
                blocked_at: "design".into(),
                questions: vec!["How deep?".into(), "Which store?".into()],
                current_state: "nothing yet".into(),
                options: vec![vec![], vec!["SQLite".into(), "Postgres".into()]],
            }
        );
        let printed = crate::signal::parse_block(
            SignalKind::Delegate,
            "new_task_description: \"Write the docs\"\nindependence: blocks_current_work\ncoordination: \"docs/\"",
        );
        let called = signal_of(
            Tool::RequestDelegation,
            &json!({"new_task_description": "Write the docs", "independence": "blocks_current_work", "coordination": "docs/"}),
        )
        .unwrap();
        let crate::signal::ScanEvent::Signal { signal: printed } = printed else { panic!("{printed:?}") };
        assert_eq!(called.body, printed.body);
        assert!(matches!(called.body, SignalBody::Delegate { independence: Independence::BlocksCurrentWork, .. }));
        let report =
            signal_of(Tool::ReportCompletion, &json!({"status": "success", "deliverables": "out.json"})).unwrap();
        assert!(matches!(&report.body, SignalBody::Completion { deliverables, .. } if deliverables == &["out.json"]));
        assert!(report.raw.contains("\"status\": \"success\""), "{}", report.raw);
        assert!(signal_of(Tool::AddFinding, &json!({"finding": "x"})).is_err(), "a finding is no signal");
    }
}
