//! The window's contract with the engine, recorded: a script of window
//! commands run against the real engine, each with its reply (or error code
//! and field), normalised so it does not change from run to run. The UI's
//! fake backend replays the same script and must answer the same
//! (`ui/src/lib/contract.test.ts`), so the fake cannot drift from the
//! engine. The file is `ui/src/test/contract.json`; this test fails when it
//! is stale and rewrites it when run with `SWITCHBOARD_BLESS=1`.

mod support;

use std::collections::HashMap;
use std::path::Path;

use serde_json::{Value, json};
use support::TestEngine;
use switchboard_core::{Command, TaskId};

const CONTRACT_PATH: &str = "ui/src/test/contract.json";

/// Normalises what varies between runs: ids (numbered by first
/// appearance), times, process ids and the workspace path.
struct Normaliser {
    ids: HashMap<String, String>,
    workspace: String,
    /// The test's `PATH` folder: a program found there is kept as its whole path.
    bin: String,
}

impl Normaliser {
    fn id(&mut self, value: &str) -> String {
        let next = self.ids.len() + 1;
        self.ids.entry(value.to_owned()).or_insert_with(|| format!("<id {next}>")).clone()
    }

    fn value(&mut self, key: &str, value: &Value) -> Value {
        match value {
            Value::Object(map) => Value::Object(map.iter().map(|(k, v)| (k.clone(), self.value(k, v))).collect()),
            Value::Array(items) => Value::Array(items.iter().map(|v| self.value(key, v)).collect()),
            Value::String(text) if is_id_key(key) => Value::String(self.id(text)),
            Value::String(text) if key == "cwd" && text == &self.workspace => json!("<workspace>"),
            Value::String(text) if key == "command" && text.starts_with(&format!("{}/", self.bin)) => {
                json!(text.replacen(&self.bin, "<bin>", 1))
            }
            Value::Number(_) if key == "at" || key.ends_with("_at") => json!("<time>"),
            Value::Number(_) if key == "pid" || key == "seq" => json!(format!("<{key}>")),
            other => other.clone(),
        }
    }
}

/// Keys whose string values are ids.
fn is_id_key(key: &str) -> bool {
    key == "id" || key.ends_with("_id") || key == "waiting_for" || key == "current_task" || key == "delegate_session"
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_window_contract_is_recorded() {
    // A `PATH` of `sh` alone, the same on every machine: the agent CLIs are
    // missing there whether this one has them or not.
    let bin = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink("/bin/sh", bin.path().join("sh")).unwrap();
    let search_path = Some(bin.path().as_os_str().to_owned());
    let t = TestEngine::start_with(|config| config.search_path = search_path).await;
    let workspace = t.workspace.canonicalize().unwrap().display().to_string();
    let bin_path = bin.path().display().to_string();
    let mut normaliser = Normaliser { ids: HashMap::new(), workspace: workspace.clone(), bin: bin_path };
    let mut transcript = Vec::new();
    // The window's way in: a client that says it is a window, refused what a window may not send.
    let window = switchboard_client::Client::connect(&t.socket, switchboard_client::ClientKind::Window).await.unwrap();
    // Runs one command and records it; returns the raw reply for the next steps.
    let mut step = async |command: Value| -> Option<Value> {
        let parsed: Command = serde_json::from_value(command.clone()).expect("a command of the wire vocabulary");
        let answer = window.call(parsed).await;
        let recorded_command = normaliser.value("", &command);
        match answer {
            Ok(reply) => {
                let reply = serde_json::to_value(&reply).unwrap();
                transcript.push(json!({"command": recorded_command, "reply": normaliser.value("", &reply)}));
                Some(reply)
            }
            Err(error) => {
                let error = error.into_api();
                let problems: Vec<&str> = error.problems.iter().map(|p| p.field.as_str()).collect();
                transcript.push(json!({
                    "command": recorded_command,
                    "error": {"code": error.code, "field": error.field, "problems": problems},
                }));
                None
            }
        }
    };
    let spec =
        |name: &str, command: &str| json!({"name": name, "command": command, "cwd": workspace, "kind": "generic"});

    step(json!({"type": "list_profiles"})).await;
    let profile = step(json!({"type": "create_profile", "spec": spec("worker", "sh")})).await.unwrap();
    let profile_id = profile["value"]["id"].as_str().unwrap().to_owned();
    step(json!({"type": "create_profile", "spec": spec("worker", "sh")})).await;
    step(json!({"type": "create_profile", "spec": spec("typo", "definitely-not-a-command")})).await;
    step(json!({"type": "create_profile", "spec": spec("", "sh")})).await;
    // Every problem at once: a taken name, a program not on PATH, no such folder.
    let mut mistakes = spec("worker", "definitely-not-a-command");
    mistakes["cwd"] = json!("/definitely/not/a/folder");
    step(json!({"type": "create_profile", "spec": mistakes})).await;
    step(json!({"type": "check_profile", "profile_id": null, "spec": mistakes})).await;
    step(json!({"type": "check_profile", "profile_id": profile_id, "spec": spec("worker", "sh")})).await;
    step(json!({"type": "agent_presets"})).await;
    step(json!({"type": "detected_agents"})).await;
    step(json!({"type": "update_profile", "profile_id": profile_id, "spec": spec("builder", "sh")})).await;
    step(json!({"type": "set_queue_paused", "profile_id": profile_id, "paused": true})).await;
    let task = |instruction: &str, priority: &str| json!({"type": "submit_task", "spec": {"profile_id": profile_id, "instruction": instruction, "priority": priority}});
    let first = step(task("write the parser", "normal")).await.unwrap();
    let first_id = first["value"]["task"]["id"].as_str().unwrap().to_owned();
    let second = step(task("fix the build", "urgent")).await.unwrap();
    let second_id = second["value"]["task"]["id"].as_str().unwrap().to_owned();
    step(task("  ", "normal")).await;
    step(json!({"type": "list_queues"})).await;
    step(json!({"type": "move_task", "task_id": first_id, "to_index": 0})).await;
    step(json!({"type": "list_tasks", "profile_id": profile_id})).await;
    step(json!({"type": "cancel_task", "task_id": second_id})).await;
    step(json!({"type": "cancel_task", "task_id": second_id})).await;
    step(json!({"type": "move_task", "task_id": second_id, "to_index": 0})).await;
    step(json!({"type": "requeue_task", "task_id": second_id})).await;
    // Only a task its agent took and has not typed yet is typed on the user's word.
    step(json!({"type": "type_task_now", "task_id": second_id})).await;
    step(json!({"type": "type_task_now", "task_id": TaskId::new()})).await;
    // Renamed and given another instruction while it waits; a blank title gives the first line back.
    step(json!({"type": "edit_task", "task_id": first_id, "title": "  Parser  ", "instruction": "write the parser\nwith tests"})).await;
    step(json!({"type": "edit_task", "task_id": first_id, "title": "two\nlines", "instruction": null})).await;
    step(json!({"type": "edit_task", "task_id": first_id, "title": "", "instruction": "  "})).await;
    step(json!({"type": "cancel_task", "task_id": first_id})).await;
    step(json!({"type": "edit_task", "task_id": first_id, "title": null, "instruction": "too late"})).await;
    step(json!({"type": "edit_task", "task_id": first_id, "title": "Parser work", "instruction": null})).await;
    step(json!({"type": "rerun_task", "task_id": first_id})).await;
    step(json!({"type": "rerun_task", "task_id": second_id})).await;
    step(json!({"type": "search", "query": "PARSER tests"})).await;
    step(json!({"type": "search", "query": "parser nothing-like-this"})).await;
    step(json!({"type": "search", "query": "   "})).await;
    step(json!({"type": "search", "query": "x".repeat(1025)})).await;
    step(json!({"type": "get_task", "task_id": first_id})).await;
    step(json!({"type": "get_task", "task_id": TaskId::new()})).await;
    step(json!({"type": "task_timeline", "task_id": second_id})).await;
    step(json!({"type": "list_signals"})).await;
    step(json!({"type": "respond_to_signal", "signal_id": switchboard_core::SignalId::new(), "response": {"action": "dismiss"}}))
        .await;
    // A loop on the paused agent waits its turn; a second is refused; its history pages.
    let settings = json!({"goal": "Make the tests pass", "stop_word": "LOOP_COMPLETE", "promise": null,
        "max_iterations": 3, "stall_after": 2, "iteration_time_limit_secs": null});
    let started = step(json!({"type": "start_loop", "profile_id": profile_id, "settings": settings})).await.unwrap();
    let loop_id = started["value"]["id"].as_str().unwrap().to_owned();
    step(json!({"type": "start_loop", "profile_id": profile_id, "settings": settings})).await;
    step(json!({"type": "loop_iterations", "loop_id": loop_id, "before": 1, "limit": 50})).await;
    step(json!({"type": "cancel_loop", "loop_id": loop_id})).await;
    step(json!({"type": "list_agent_status"})).await;
    step(json!({"type": "list_permission_requests"})).await;
    step(json!({"type": "list_attention"})).await;
    step(json!({"type": "set_viewing", "viewing": {"profile_id": profile_id, "task_id": first_id, "focused": true}}))
        .await;
    step(json!({"type": "decide_permission", "request_id": 7, "allow": true, "message": null})).await;
    step(json!({"type": "list_sessions"})).await;
    step(json!({"type": "stop_session", "session_id": switchboard_core::SessionId::new()})).await;
    step(json!({"type": "restart_session", "session_id": switchboard_core::SessionId::new(), "size": {"rows": 24, "cols": 80}, "running_task": {"choice": "requeue"}})).await;
    step(json!({"type": "start_session", "profile_id": profile_id, "size": {"rows": 0, "cols": 80}})).await;
    // Not the window's: refused, whatever it would do.
    step(json!({"type": "agent_text", "session_id": switchboard_core::SessionId::new(), "text": "hello"})).await;
    step(json!({"type": "get_settings"})).await;
    let settings = |limit: u32, from: &str| {
        json!({"type": "set_settings", "settings": {
            "default_task_time_limit_secs": limit,
            "default_quiet_alert_secs": 0,
            "notify": {"task_completed": false, "task_failed": true, "needs_answer": true, "loop_ended": true, "agent_quiet": false},
            "quiet_hours": {"mode": "daily", "from": from, "to": "7:00"},
            "theme": "light",
        }})
    };
    step(settings(2700, "22:00")).await;
    step(settings(30, "22:00")).await;
    step(settings(2700, "25:00")).await;
    step(settings(2700, "07:00")).await;
    step(json!({"type": "get_settings"})).await;
    // With quiet never ending an answer, a loop on an agent without a ready pattern or hooks is refused.
    let mut never = step(json!({"type": "get_settings"})).await.unwrap()["value"].clone();
    never["turn_quiet_secs"] = json!(0);
    step(json!({"type": "set_settings", "settings": never})).await;
    let goal = json!({"goal": "Make the tests pass", "stop_word": "LOOP_COMPLETE", "promise": null,
        "max_iterations": 3, "stall_after": 2, "iteration_time_limit_secs": null});
    step(json!({"type": "start_loop", "profile_id": profile_id, "settings": goal})).await;
    step(json!({"type": "delete_profile", "profile_id": profile_id})).await;
    step(json!({"type": "list_profiles"})).await;
    step(json!({"type": "delete_profile", "profile_id": profile_id})).await;

    let recorded = serde_json::to_string_pretty(&transcript).unwrap() + "\n";
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(CONTRACT_PATH);
    if std::env::var_os("SWITCHBOARD_BLESS").is_some() {
        std::fs::write(&path, &recorded).unwrap();
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == recorded,
        "{CONTRACT_PATH} is stale; regenerate it with `SWITCHBOARD_BLESS=1 cargo test -p switchboard-tests --test contract`"
    );
    // The script reaches what the window relies on: every reply kind it
    // uses here, and errors with their fields.
    let kinds: Vec<&str> = transcript.iter().filter_map(|s| s["reply"]["type"].as_str()).collect();
    for kind in [
        "profiles",
        "profile",
        "problems",
        "presets",
        "unit",
        "submitted",
        "queues",
        "tasks",
        "task",
        "events",
        "signals",
    ] {
        assert!(kinds.contains(&kind), "{kind} is in the contract");
    }
}
