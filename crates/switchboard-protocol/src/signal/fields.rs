//! A signal's fields, however they came (a printed block's YAML, a tool
//! call's arguments), read into its typed body: each named field capped,
//! the rest kept as the agent wrote them.

use serde_json::Value;

use super::{Independence, Signal, SignalBody, SignalKind};
use crate::capped::{MAX_LIST_ITEMS, MAX_NAME_BYTES, MAX_PATH_BYTES, MAX_TEXT_FIELD_BYTES, capped, capped_list};

/// A field a signal of some kind cannot do without, missing or empty.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MissingField {
    pub kind: SignalKind,
    /// The protocol's name of the field.
    pub field: &'static str,
}

impl std::fmt::Display for MissingField {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let what = match self.kind {
            SignalKind::Clarification => "a clarification needs",
            SignalKind::StopWork => "a stop needs `blocker_type` or",
            SignalKind::Delegate => "a delegation needs",
            SignalKind::Completion => "a completion report needs",
        };
        write!(f, "{what} `{}`", self.field)
    }
}

/// A signal of `kind` from its fields, however they came (a printed block's
/// YAML, a tool call's arguments): each named field read and capped, the
/// rest kept in `extra`; `raw` is what the agent wrote.
pub fn from_fields(
    kind: SignalKind,
    mut fields: serde_json::Map<String, Value>,
    raw: &str,
) -> Result<Signal, MissingField> {
    let missing = |field| MissingField { kind, field };
    let mut take_name = |name: &str| capped(fields.remove(name).map(text_of).unwrap_or_default(), MAX_NAME_BYTES);
    let agent_id = Some(take_name("agent_id")).filter(|s| !s.is_empty());
    let timestamp = Some(take_name("timestamp")).filter(|s| !s.is_empty());
    let body = match kind {
        SignalKind::Clarification => {
            let (questions, options) = questions_of(fields.remove("questions"));
            if questions.is_empty() {
                return Err(missing("questions"));
            }
            SignalBody::Clarification {
                blocked_at: field_text(fields.remove("blocked_at")),
                questions,
                current_state: field_text(fields.remove("current_state")),
                options,
            }
        }
        SignalKind::StopWork => {
            let mut take = |name: &str| field_text(fields.remove(name));
            let body = SignalBody::StopWork {
                blocker_type: take("blocker_type"),
                details: take("details"),
                state_snapshot: take("state_snapshot"),
                blocked_work: take("blocked_work"),
                stop_reason: take("stop_reason"),
                resume_requirements: take("resume_requirements"),
            };
            if let SignalBody::StopWork { blocker_type, details, .. } = &body
                && blocker_type.is_empty()
                && details.is_empty()
            {
                return Err(missing("details"));
            }
            body
        }
        SignalKind::Delegate => {
            let description = field_text(fields.remove("new_task_description"));
            if description.is_empty() {
                return Err(missing("new_task_description"));
            }
            let independence = match fields.remove("independence").map(text_of).unwrap_or_default().as_str() {
                "can_proceed_parallel" | "" => Independence::CanProceedParallel,
                "blocks_current_work" => Independence::BlocksCurrentWork,
                other => Independence::Other(capped(other, MAX_NAME_BYTES)),
            };
            SignalBody::Delegate {
                new_task_description: description,
                independence,
                coordination: field_text(fields.remove("coordination")),
            }
        }
        SignalKind::Completion => {
            let status = field_text(fields.remove("status"));
            if status.is_empty() {
                return Err(missing("status"));
            }
            SignalBody::Completion {
                status,
                deliverables: list_of(fields.remove("deliverables"))
                    .into_iter()
                    .take(MAX_LIST_ITEMS)
                    .map(|path| capped(path, MAX_PATH_BYTES))
                    .collect(),
                metrics_achieved: field_text(fields.remove("metrics_achieved")),
                recommendations: capped_list(list_of(fields.remove("recommendations")), MAX_TEXT_FIELD_BYTES),
            }
        }
    };
    Ok(Signal { agent_id, timestamp, body, extra: fields.into_iter().collect(), raw: raw.to_owned() })
}

/// A clarification's questions, each a text or `{question, options}`, and
/// the choices each offers (none at all when no question offers any).
fn questions_of(value: Option<Value>) -> (Vec<String>, Vec<Vec<String>>) {
    let items = match value {
        Some(Value::Array(items)) => items,
        Some(Value::Null) | None => Vec::new(),
        Some(other) => vec![other],
    };
    let mut asked: Vec<(String, Vec<String>)> = Vec::new();
    for item in items {
        let (question, options) = match item {
            Value::Object(mut fields) if fields.contains_key("question") => {
                let options = capped_list(list_of(fields.remove("options")), MAX_NAME_BYTES * 4);
                (text_of(fields.remove("question").unwrap_or_default()), options)
            }
            other => (text_of(other), Vec::new()),
        };
        if !question.is_empty() {
            asked.push((question, options));
        }
    }
    let (questions, options): (Vec<String>, Vec<Vec<String>>) = asked.into_iter().unzip();
    let questions = capped_list(questions, MAX_TEXT_FIELD_BYTES);
    let mut options: Vec<Vec<String>> = options.into_iter().take(questions.len()).collect();
    if options.iter().all(Vec::is_empty) {
        options.clear();
    }
    (questions, options)
}

/// A field of prose as kept: its text, within [`MAX_TEXT_FIELD_BYTES`].
fn field_text(value: Option<Value>) -> String {
    capped(value.map(text_of).unwrap_or_default(), MAX_TEXT_FIELD_BYTES)
}

/// A field's value as text: strings as they are, anything else as JSON.
fn text_of(value: Value) -> String {
    match value {
        Value::String(text) => text.trim().to_owned(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// A list field; a single value counts as a list of one.
fn list_of(value: Option<Value>) -> Vec<String> {
    match value {
        Some(Value::Array(items)) => items.into_iter().map(text_of).filter(|s| !s.is_empty()).collect(),
        Some(Value::Null) | None => Vec::new(),
        Some(other) => vec![text_of(other)].into_iter().filter(|s| !s.is_empty()).collect(),
    }
}
