//! What another machine's engine says is bounded before the window keeps it: fields and lists capped, names plain.

use switchboard_protocol::capped::{MAX_LIST_ITEMS, MAX_NAME_BYTES, MAX_PATH_BYTES, MAX_TEXT_FIELD_BYTES, capped};

/// A task's instruction from another machine, as this machine's engine
/// takes one (its `MAX_INSTRUCTION_BYTES`).
pub const MAX_HOST_INSTRUCTION_BYTES: usize = 256 * 1024;

/// A task's context, specs, instructions or goals from another machine, as
/// this machine's engine takes them (its `MAX_CONTEXT_BYTES`).
pub const MAX_HOST_CONTEXT_BYTES: usize = 1024 * 1024;

/// A worktree's summary from another machine, as this machine's engine
/// shows one (its `SUMMARY_SHOWN_BYTES`).
pub const MAX_HOST_SUMMARY_BYTES: usize = 256 * 1024;

/// A unified diff of one file: both sides of a file this machine's engine
/// still shows ([`switchboard_api::MAX_SHOWN_FILE`]).
pub const MAX_HOST_DIFF_BYTES: usize = 2 * switchboard_api::MAX_SHOWN_FILE as usize;

/// A terminal's screen or an agent's text from another machine: a screen
/// of the largest terminal, with its colours, many times over.
pub const MAX_HOST_SCREEN_BYTES: usize = 1024 * 1024;

/// The most bytes a text field another machine's engine sends keeps, by the
/// field's name: what the same field keeps for this machine's agents
/// (`switchboard_protocol::capped`: names short, prose longer, paths as
/// long as a path can be; an instruction, a diff, a summary or a screen at
/// their own caps). Any other field is prose.
pub fn host_field_cap(field: &str) -> usize {
    match field {
        "name" | "title" | "agent" | "agent_name" | "agent_type" | "account" | "branch" | "base" | "model"
        | "destination" | "host" | "team" | "tool" | "tool_name" | "label" | "agent_session_id" | "engine_version" => {
            MAX_NAME_BYTES
        }
        "cwd" | "command" | "path" | "from" | "workspace" | "repository" | "file" | "parent" | "data_dir" | "dir"
        | "folder" | "folders" | "args" | "conflicts_with" | "merge_conflict" => MAX_PATH_BYTES,
        "instruction" => MAX_HOST_INSTRUCTION_BYTES,
        "context" | "specs" | "instructions" | "goals" => MAX_HOST_CONTEXT_BYTES,
        "summary" => MAX_HOST_SUMMARY_BYTES,
        "before" | "after" => switchboard_api::MAX_SHOWN_FILE as usize,
        "unified" | "patch" => MAX_HOST_DIFF_BYTES,
        "screen" | "value" | "content" => MAX_HOST_SCREEN_BYTES,
        _ => MAX_TEXT_FIELD_BYTES,
    }
}

/// The most items a list of texts another machine's engine sends keeps, by
/// the list's name: a command line's words and a folder's subfolders are
/// kept as this machine keeps them; any other list of texts is prose, as a
/// summary's lists are ([`MAX_LIST_ITEMS`]).
pub fn host_list_cap(field: &str) -> usize {
    match field {
        "args" | "folders" | "conflicts_with" | "merge_conflict" => switchboard_api::MAX_FOLDERS,
        _ => MAX_LIST_ITEMS,
    }
}

/// What another machine's engine sent, every text field cut at its cap
/// ([`host_field_cap`]) and every list of texts at its length
/// ([`host_list_cap`]), so what the window holds and shows of another
/// machine is bounded field by field as what it holds of this one's agents.
/// Records (agents, tasks) are kept whole; the frame they came in bounds
/// how many there are.
pub fn capped_from_host<T: serde::Serialize + serde::de::DeserializeOwned>(said: T) -> Result<T, serde_json::Error> {
    let mut value = serde_json::to_value(said)?;
    cap_value(&mut value, "");
    serde_json::from_value(value)
}

pub(super) fn cap_value(value: &mut serde_json::Value, field: &str) {
    use serde_json::Value;
    match value {
        Value::String(text) => {
            plain_if_name(text, field);
            if text.len() > host_field_cap(field) {
                *text = capped(std::mem::take(text), host_field_cap(field));
            }
        }
        Value::Array(items) if items.iter().all(Value::is_string) => {
            // Cut, not marked: a list of ids (an account's agents) takes no line of words.
            items.truncate(host_list_cap(field));
            items.iter_mut().for_each(|item| cap_value(item, field));
        }
        Value::Array(items) => items.iter_mut().for_each(|item| cap_value(item, field)),
        Value::Object(fields) => {
            // A field's name longer than any path can only be a map's key (an
            // environment variable's name, say) that names nothing.
            fields.retain(|name, _| name.len() <= MAX_PATH_BYTES);
            fields.iter_mut().for_each(|(name, item)| cap_value(item, name));
        }
        _ => {}
    }
}

/// A name another machine sent (an agent's, a task's, a branch) reads on
/// one line in the order it is stored: a direction override in it would
/// show it reversed beside this machine's names.
pub(super) fn plain_if_name(text: &mut String, field: &str) {
    if host_field_cap(field) == MAX_NAME_BYTES
        && let std::borrow::Cow::Owned(plain) = switchboard_protocol::text::plain_name(text)
    {
        *text = plain;
    }
}
