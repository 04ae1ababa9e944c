//! The window's contract with the engine, recorded: scripts of window
//! commands run against a real engine through a window's client, each with
//! its reply (or error code and field), normalised so it does not change
//! from run to run. `ui/src/test/contract.json` is the main script (the
//! fake backend's own state model must answer it as the engine did); the
//! scenarios of one area each (worktrees on a real git repository, a live
//! session and the shell's attach, flows, loops, limits, delegations, settings, an
//! agent's problems, a permission asked through the real hook) are
//! `ui/src/test/contract/<area>.json`, and the fake answers the engine's
//! decisions from them (`ui/src/lib/contract.test.ts` replays both). Every
//! command a window may send has an exchange in them. The files are stale
//! when these tests fail; `SWITCHBOARD_BLESS=1` rewrites them.

use crate::support;

use std::collections::HashMap;
use std::path::Path;

use serde_json::{Value, json};
use support::TestEngine;
use switchboard_core::{Command, TaskId};

const CONTRACT_PATH: &str = "ui/src/test/contract.json";
/// The scenarios of one area each, beside it: `ui/src/test/contract/<area>.json`.
const SCENARIOS_DIR: &str = "ui/src/test/contract";

/// A text longer than this (a refused oversized file) is recorded as its length.
const LONG_TEXT: usize = 4096;

/// The shortest id the engine makes (a UUID is 36 characters; a diagram's node is a short word).
const MIN_ID_LEN: usize = 32;

/// Normalises what varies between runs: ids (numbered by first
/// appearance), times, process ids, commits and the test's temp folders.
struct Normaliser {
    ids: HashMap<String, String>,
    workspace: String,
    /// The test's `PATH` folder: a program found there is kept as its whole path.
    bin: String,
    /// Temp folders named in any text (a worktree's path, a patch file), longest first.
    folders: Vec<(String, &'static str)>,
}

impl Normaliser {
    fn new(workspace: String, bin: String) -> Normaliser {
        Normaliser { ids: HashMap::new(), workspace, bin, folders: Vec::new() }
    }

    /// Names a temp folder wherever a text holds it.
    fn folder(&mut self, path: &Path, placeholder: &'static str) {
        self.folders.push((path.display().to_string(), placeholder));
        self.folders.sort_by_key(|(path, _)| std::cmp::Reverse(path.len()));
    }

    /// A text with the ids already seen and the temp folders in it normalised.
    fn text(&mut self, text: &str) -> Value {
        let mut text = text.to_owned();
        // Only real ids (a diagram's nodes are named by short words under `id` too).
        for (raw, placeholder) in self.ids.iter().filter(|(raw, _)| raw.len() >= MIN_ID_LEN) {
            text = text.replace(raw.as_str(), placeholder);
        }
        self.value("message", &json!(text))
    }

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
            Value::String(text) if key == "commit" => json!("<commit>"),
            Value::String(text) if text.len() > LONG_TEXT => json!(format!("<{} bytes>", text.len())),
            Value::String(text) if self.folders.iter().any(|(path, _)| text.contains(path.as_str())) => {
                let mut text = text.clone();
                for (path, placeholder) in &self.folders {
                    text = text.replace(path.as_str(), placeholder);
                }
                // A file the engine names for a moment or an id: the rest of its name stays.
                let stamped = regex::Regex::new(r"-([0-9a-f]{8}|[0-9]{13})\b").unwrap();
                json!(stamped.replace_all(&text, "-<stamp>"))
            }
            Value::Number(_) if key == "at" || key == "since" || key == "next_run" || key.ends_with("_at") => {
                json!("<time>")
            }
            Value::Number(_) if key == "pid" || key == "seq" => json!(format!("<{key}>")),
            other => other.clone(),
        }
    }
}

/// Keys whose string values are ids (a worktree is named by its task's).
fn is_id_key(key: &str) -> bool {
    key == "id"
        || key.ends_with("_id")
        || key == "waiting_for"
        || key == "current_task"
        || key == "delegate_session"
        || key == "task"
        || key == "worktree"
        || key == "with"
        || key == "conflicts_with"
        || key == "task_at_work"
}

/// A window's exchanges with a real engine, recorded as they go.
struct Recorder {
    window: switchboard_client::Client,
    normaliser: Normaliser,
    transcript: Vec<Value>,
    /// Whether refusals are recorded with their words.
    words: bool,
}

impl Recorder {
    /// The window's way in: a client that says it is a window, refused what a window may not send.
    async fn window(t: &TestEngine, normaliser: Normaliser) -> Recorder {
        let window =
            switchboard_client::Client::connect(&t.socket, switchboard_client::ClientKind::Window).await.unwrap();
        Recorder { window, normaliser, transcript: Vec::new(), words: false }
    }

    /// Runs one command and records it; returns the raw reply for the next steps.
    /// A `sh` agent in the workspace, its queue paused: what it is given waits.
    async fn paused_worker(&mut self, t: &TestEngine) -> String {
        let workspace = t.workspace.canonicalize().unwrap().display().to_string();
        let spec = json!({"name": "worker", "command": "sh", "cwd": workspace, "kind": "generic"});
        let profile = self.step(json!({"type": "create_profile", "spec": spec})).await.unwrap();
        let profile_id = profile["value"]["id"].as_str().unwrap().to_owned();
        self.step(json!({"type": "set_queue_paused", "profile_id": profile_id, "paused": true})).await;
        profile_id
    }

    async fn step(&mut self, command: Value) -> Option<Value> {
        let parsed: Command = serde_json::from_value(command.clone()).expect("a command of the wire vocabulary");
        let answer = self.window.call(parsed).await;
        let recorded_command = self.normaliser.value("", &command);
        match answer {
            Ok(reply) => {
                let reply = serde_json::to_value(&reply).unwrap();
                let recorded = self.normaliser.value("", &reply);
                self.transcript.push(json!({"command": recorded_command, "reply": recorded}));
                Some(reply)
            }
            Err(error) => {
                let error = error.into_api();
                self.error(recorded_command, error);
                None
            }
        }
    }

    fn error(&mut self, command: Value, error: switchboard_api::ApiError) {
        let recorded = self.recorded(&error);
        self.transcript.push(json!({"command": command, "error": recorded}));
    }

    /// One of the window's own shell calls that goes through the client, refused.
    fn shell_error(&mut self, call: Value, error: switchboard_api::ApiError) {
        let recorded = self.recorded(&error);
        self.transcript.push(json!({"shell": call, "error": recorded}));
    }

    /// An error's code and fields, and its words, which the fake shows as the engine's.
    fn recorded(&mut self, error: &switchboard_api::ApiError) -> Value {
        if self.words { shown_error(&mut self.normaliser, error) } else { recorded_error(error) }
    }

    /// Waits until the task has finished, and records that the script waited for it (a replay
    /// on the fake finishes it there).
    async fn finished(&mut self, t: &TestEngine, task: &str) {
        t.finished_unrecorded(task).await;
        let waited = self.normaliser.value("", &json!({"task_id": task}));
        self.transcript.push(json!({"waited": "task_finished", "task_id": waited["task_id"]}));
    }

    /// Waits until the radar's reading of the worktrees satisfies `condition`, and records what
    /// it read then (a replay on the fake has it read the same).
    async fn radar(
        &mut self,
        t: &TestEngine,
        what: &str,
        condition: impl Fn(&[switchboard_api::WorktreeInfo]) -> bool,
    ) {
        let listed = t.worktrees_unrecorded_until(what, condition).await;
        let read = self.normaliser.value("", &serde_json::to_value(listed).unwrap());
        self.transcript.push(json!({"waited": "worktrees_read", "worktrees": read}));
    }

    /// Writes the transcript with `SWITCHBOARD_BLESS`, or fails when the committed one differs.
    fn keep(&self, file: &str) {
        let recorded = serde_json::to_string_pretty(&self.transcript).unwrap() + "\n";
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(file);
        if std::env::var_os("SWITCHBOARD_BLESS").is_some() {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, &recorded).unwrap();
            return;
        }
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            committed == recorded,
            "{file} is stale; regenerate it with `SWITCHBOARD_BLESS=1 cargo test -p switchboard-tests --test contract`"
        );
    }
}

/// An error as the window reads it: its code, its field and each problem's field.
fn recorded_error(error: &switchboard_api::ApiError) -> Value {
    let problems: Vec<&str> = error.problems.iter().map(|p| p.field.as_str()).collect();
    json!({"code": error.code, "field": error.field, "problems": problems})
}

/// An error as the window shows it, its words too (the ids and folders in them normalised).
fn shown_error(normaliser: &mut Normaliser, error: &switchboard_api::ApiError) -> Value {
    let mut recorded = recorded_error(error);
    recorded["message"] = normaliser.text(&error.message);
    recorded
}

/// A `PATH` of `sh` alone, the same on every machine: the agent CLIs are
/// missing there whether this one has them or not.
fn sh_only_path() -> tempfile::TempDir {
    let bin = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink("/bin/sh", bin.path().join("sh")).unwrap();
    bin
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_window_contract_is_recorded() {
    let bin = sh_only_path();
    let search_path = Some(bin.path().as_os_str().to_owned());
    let t = TestEngine::start_with(|config| config.search_path = search_path).await;
    let workspace = t.workspace.canonicalize().unwrap().display().to_string();
    let normaliser = Normaliser::new(workspace.clone(), bin.path().display().to_string());
    let mut recorder = Recorder::window(&t, normaliser).await;
    recorder.words = true;
    let mut step = async |command: Value| recorder.step(command).await;
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

    recorder.keep(CONTRACT_PATH);
    // The script reaches what the window relies on: every reply kind it
    // uses here, and errors with their fields.
    let kinds: Vec<&str> = recorder.transcript.iter().filter_map(|s| s["reply"]["type"].as_str()).collect();
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

/// Every command a window may send, named from the engine's own list.
macro_rules! window_commands {
    ($(
        $(#[doc = $doc:literal])*
        $reach:ident $effect:ident $timing:ident $method:ident / $variant:ident ($($args:tt)*) -> $out:ty;
    )*) => {
        fn window_commands() -> Vec<&'static str> {
            let mut names = Vec::new();
            $(if matches!(stringify!($reach), "window" | "user" | "local") {
                names.push(stringify!($method));
            })*
            names
        }
    };
}

switchboard_api::engine_commands!(window_commands);

/// The recorded command types of the committed files, and which file holds none.
fn recorded_commands() -> std::collections::BTreeSet<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = vec![root.join(CONTRACT_PATH)];
    let scenarios = std::fs::read_dir(root.join(SCENARIOS_DIR)).expect("the scenarios' folder");
    files.extend(
        scenarios.map(|entry| entry.unwrap().path()).filter(|path| path.extension().is_some_and(|e| e == "json")),
    );
    let mut recorded = std::collections::BTreeSet::new();
    for file in files {
        let steps: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        recorded.extend(steps.iter().filter_map(|step| step["command"]["type"].as_str().map(str::to_owned)));
    }
    recorded
}

/// The fake backend answers only what was recorded: a command a window may
/// send with no exchange in the recordings would be the fake's own guess.
#[test]
fn every_command_a_window_may_send_has_a_recorded_exchange() {
    let recorded = recorded_commands();
    let missing: Vec<&str> = window_commands().into_iter().filter(|name| !recorded.contains(*name)).collect();
    assert!(missing.is_empty(), "no recorded exchange of {missing:?}: add a step to tests/tests/suite/contract.rs");
}

/// A repository on `main` with one file and one commit, under `root`.
fn repository(root: &Path) -> std::path::PathBuf {
    switchboard_tests::repo::repository(root, &[])
}

/// An engine with `sh` alone on its `PATH`, and a window recording what it is told.
async fn recording_engine(bin: &tempfile::TempDir) -> (TestEngine, Recorder) {
    let search_path = Some(bin.path().as_os_str().to_owned());
    let t = TestEngine::start_with(|config| {
        config.search_path = search_path;
        // A stopped agent ends on its hangup, however loaded the machine: never killed for being slow.
        config.kill_grace = support::DEADLINE;
    })
    .await;
    let workspace = t.workspace.canonicalize().unwrap().display().to_string();
    let mut normaliser = Normaliser::new(workspace, bin.path().display().to_string());
    normaliser.folder(&t.data_dir.canonicalize().unwrap(), "<data>");
    normaliser.folder(&t.data_dir, "<data>");
    normaliser.folder(Path::new(support::DEMO_AGENT).parent().unwrap(), "<target>");
    let mut recorder = Recorder::window(&t, normaliser).await;
    recorder.words = true;
    (t, recorder)
}

/// The demo agent, ready at `agent> `, doing `steps` for each task (a TOML step list).
fn demo_spec(t: &TestEngine, name: &str, cwd: &Path, isolation: &str, steps: &str) -> Value {
    let scenario = t.data_dir.join(format!("{name}.toml"));
    std::fs::write(&scenario, format!("prompt = \"agent> \"\n[[tasks]]\nsteps = {steps}\n")).unwrap();
    json!({"name": name, "command": support::DEMO_AGENT, "cwd": cwd.display().to_string(), "kind": "generic",
        "args": ["--speed", "fast", "--scenario", scenario.display().to_string()],
        "ready_pattern": "agent> $", "ready_quiet_ms": 50, "isolation": isolation})
}

impl TestEngine {
    /// Waits (unrecorded) until the task has finished.
    async fn finished_unrecorded(&self, task: &str) {
        let id: TaskId = task.parse().unwrap();
        self.task_until(&id, "to finish", |t| t.state.is_finished()).await;
    }

    /// Waits (unrecorded) until the listed worktrees satisfy `condition`
    /// (the radar reads a worktree after its files settle).
    async fn worktrees_unrecorded_until(
        &self,
        what: &str,
        condition: impl Fn(&[switchboard_api::WorktreeInfo]) -> bool,
    ) -> Vec<switchboard_api::WorktreeInfo> {
        let deadline = tokio::time::Instant::now() + support::DEADLINE;
        loop {
            let listed = self.engine.list_worktrees().await.unwrap();
            if condition(&listed) {
                return listed;
            }
            assert!(tokio::time::Instant::now() < deadline, "timed out waiting for {what}: {listed:#?}");
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
    }
}

/// Worktrees on a real git repository: the agent form's folder questions,
/// what a task changed, commit, review, resolve, rebase, merge and discard.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_window_contract_of_worktrees_is_recorded() {
    let bin = sh_only_path();
    let (t, mut r) = recording_engine(&bin).await;
    let repo = repository(&t.data_dir.canonicalize().unwrap());
    let repo_text = repo.display().to_string();
    let workspace = t.workspace.canonicalize().unwrap();
    r.step(json!({"type": "folder_repository", "folder": repo_text})).await;
    r.step(json!({"type": "folder_repository", "folder": workspace.display().to_string()})).await;
    r.step(json!({"type": "list_folder", "path": repo_text})).await;
    r.step(json!({"type": "list_folder", "path": "/definitely/not/a/folder"})).await;
    r.step(json!({"type": "set_repository_setup", "repository": repo_text, "setup_command": "true"})).await;
    r.step(json!({"type": "folder_repository", "folder": repo_text})).await;
    r.step(json!({"type": "set_repository_setup", "repository": repo_text, "setup_command": null})).await;
    r.step(
        json!({"type": "set_repository_setup", "repository": workspace.display().to_string(), "setup_command": "true"}),
    )
    .await;

    let steps = r#"[{ write_file = { path = "src/lib.rs", content = "pub fn one() -> u32 {\n    11\n}\n" } }, { summary = "completed" }]"#;
    let spec = demo_spec(&t, "alpha", &repo, "worktree", steps);
    let profile = r.step(json!({"type": "create_profile", "spec": spec})).await.unwrap();
    let profile_id = profile["value"]["id"].as_str().unwrap().to_owned();
    let submit = |instruction: &str| json!({"type": "submit_task", "spec": {"profile_id": profile_id, "instruction": instruction}});
    let first = r.step(submit("Make one return eleven")).await.unwrap();
    let first = first["value"]["task"]["id"].as_str().unwrap().to_owned();
    // A second agent changes the same line in a worktree of its own.
    let steps = r#"[{ write_file = { path = "src/lib.rs", content = "pub fn one() -> u32 {\n    12\n}\n" } }, { summary = "completed" }]"#;
    let beta = r.step(json!({"type": "create_profile", "spec": demo_spec(&t, "beta", &repo, "worktree", steps)})).await;
    let beta = beta.unwrap()["value"]["id"].as_str().unwrap().to_owned();
    let second = json!({"type": "submit_task", "spec": {"profile_id": beta, "instruction": "Make one return twelve"}});
    let second = r.step(second).await.unwrap();
    let second = second["value"]["task"]["id"].as_str().unwrap().to_owned();
    r.finished(&t, &first).await;
    r.finished(&t, &second).await;
    r.radar(&t, "the radar to see both meet", |l| l.len() == 2 && l.iter().all(|w| !w.conflicts_with.is_empty())).await;
    r.step(json!({"type": "list_worktrees"})).await;
    r.step(json!({"type": "worktree_diff", "worktree": first})).await;
    r.step(json!({"type": "worktree_diff", "worktree": "no-such-worktree"})).await;
    r.step(json!({"type": "artifact_path", "task_id": first, "path": "src/lib.rs"})).await;
    r.step(json!({"type": "artifact_path", "task_id": first, "path": "../outside.txt"})).await;
    r.step(json!({"type": "commit_worktree", "worktree": first})).await;
    r.step(json!({"type": "commit_worktree", "worktree": first})).await;
    // It merges cleanly: there is nothing to resolve.
    r.step(json!({"type": "resolve_worktree", "worktree": first})).await;
    r.step(json!({"type": "rebase_worktree", "worktree": first})).await;
    r.step(json!({"type": "review_worktree", "worktree": first, "comments": []})).await;
    let comment = json!({"path": "src/lib.rs", "line": 2, "text": "Use a constant"});
    let review = r.step(json!({"type": "review_worktree", "worktree": first, "comments": [comment]})).await.unwrap();
    r.finished(&t, review["value"]["task"]["id"].as_str().unwrap()).await;
    r.step(json!({"type": "merge_worktree", "worktree": first})).await;
    r.step(json!({"type": "merge_worktree", "worktree": first})).await;
    r.step(json!({"type": "discard_worktree", "worktree": first, "force": false})).await;

    // The base moved under the second (the first merged the same line): a merge and a rebase
    // meet a conflict and change nothing, and its agent is asked to resolve it.
    r.radar(&t, "the radar to see the second meet main", |l| l.iter().any(|w| !w.base_conflict.is_empty())).await;
    r.step(json!({"type": "merge_worktree", "worktree": second})).await;
    r.step(json!({"type": "rebase_worktree", "worktree": second})).await;
    let resolving = r.step(json!({"type": "resolve_worktree", "worktree": second})).await.unwrap();
    r.finished(&t, resolving["value"]["task"]["id"].as_str().unwrap()).await;
    r.step(json!({"type": "discard_worktree", "worktree": second, "force": false})).await;
    r.step(json!({"type": "discard_worktree", "worktree": second, "force": true})).await;
    r.step(json!({"type": "list_worktrees"})).await;
    r.keep(&format!("{SCENARIOS_DIR}/worktrees.json"));
}

/// A live agent's terminal from the window: attach (the window's own shell
/// call, over the same client), input, size, flow control, the screen,
/// stop, resume; and the data folder's state.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_window_contract_of_sessions_is_recorded() {
    let bin = sh_only_path();
    let (t, mut r) = recording_engine(&bin).await;
    r.step(json!({"type": "storage_status"})).await;
    let workspace = t.workspace.canonicalize().unwrap();
    let spec = demo_spec(&t, "demo", &workspace, "none", r#"[{ summary = "completed" }]"#);
    let profile = r.step(json!({"type": "create_profile", "spec": spec})).await.unwrap();
    let profile_id = profile["value"]["id"].as_str().unwrap().to_owned();
    let size = json!({"rows": 24, "cols": 80});
    let started = r.step(json!({"type": "start_session", "profile_id": profile_id, "size": size})).await.unwrap();
    let session_id = started["value"]["id"].as_str().unwrap().to_owned();
    let session: switchboard_core::SessionId = session_id.parse().unwrap();
    // The shell's attach: what the engine kept of the output, then live output.
    let attach = json!({"type": "attach_terminal", "session_id": session_id});
    let mut terminal = r.window.attach(session.clone()).await.unwrap();
    let mut seen = String::new();
    while !seen.contains("agent> ") {
        let bytes =
            tokio::time::timeout(support::DEADLINE, terminal.next()).await.unwrap().expect("output until the prompt");
        seen.push_str(&String::from_utf8_lossy(&bytes));
    }
    let recorded = r.normaliser.value("", &attach);
    r.transcript.push(json!({"shell": recorded, "reply": {"shows": "agent> "}}));
    let unknown = switchboard_core::SessionId::new();
    let error = r.window.attach(unknown.clone()).await.err().expect("no such session");
    let recorded = r.normaliser.value("", &json!({"type": "attach_terminal", "session_id": unknown}));
    r.shell_error(recorded, error.into_api());

    r.step(json!({"type": "write_input", "session_id": session_id, "data": "hello\r"})).await;
    t.wait_for_screen(&session, "hello").await;
    r.step(json!({"type": "resize", "session_id": session_id, "size": {"rows": 30, "cols": 100}})).await;
    r.step(json!({"type": "resize", "session_id": session_id, "size": {"rows": 0, "cols": 100}})).await;
    r.step(json!({"type": "set_output_paused", "session_id": session_id, "paused": true})).await;
    r.step(json!({"type": "set_output_paused", "session_id": session_id, "paused": false})).await;
    r.step(json!({"type": "screen_snapshot", "session_id": unknown, "recent_lines": 10})).await;
    r.step(json!({"type": "write_input", "session_id": unknown, "data": "x"})).await;
    r.step(json!({"type": "stop_session", "session_id": session_id})).await;
    r.step(json!({"type": "write_input", "session_id": session_id, "data": "x"})).await;
    // A generic agent has no conversation to continue.
    r.step(json!({"type": "resume_session", "session_id": session_id, "size": size})).await;
    r.step(json!({"type": "resume_session", "session_id": unknown, "size": size})).await;
    r.keep(&format!("{SCENARIOS_DIR}/sessions.json"));
}

/// The flows view: diagrams, where an agent stands, its events and their
/// export, and the overview of all agents.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_window_contract_of_flows_is_recorded() {
    let bin = sh_only_path();
    let (t, mut r) = recording_engine(&bin).await;
    let profile_id = r.paused_worker(&t).await;
    let task = r
        .step(json!({"type": "submit_task", "spec": {"profile_id": profile_id, "instruction": "write the parser"}}))
        .await
        .unwrap();
    let task_id = task["value"]["task"]["id"].as_str().unwrap().to_owned();
    r.step(json!({"type": "cancel_task", "task_id": task_id})).await;
    r.step(json!({"type": "flow_diagrams"})).await;
    let agent = json!({"of": "agent", "profile_id": profile_id});
    r.step(json!({"type": "flow_view", "target": agent, "until_seq": null})).await;
    r.step(json!({"type": "flow_view", "target": {"of": "task", "task_id": task_id}, "until_seq": null})).await;
    r.step(json!({"type": "flow_view", "target": {"of": "task", "task_id": TaskId::new()}, "until_seq": null})).await;
    r.step(json!({"type": "flow_events", "target": agent, "since_at": null, "limit": 50})).await;
    r.step(json!({"type": "flow_events", "target": agent, "since_at": null, "limit": 1})).await;
    r.step(json!({"type": "export_flow_events", "target": agent})).await;
    r.step(json!({"type": "flow_overview"})).await;
    r.keep(&format!("{SCENARIOS_DIR}/flows.json"));
}

/// Loops' newer commands (their list, one loop, its files, resuming), the
/// usage limits, and delegated agents.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_window_contract_of_loops_limits_and_delegations_is_recorded() {
    let bin = sh_only_path();
    let (t, mut r) = recording_engine(&bin).await;
    let profile_id = r.paused_worker(&t).await;
    let settings = json!({"goal": "Make the tests pass", "stop_word": "LOOP_COMPLETE", "promise": null,
        "max_iterations": 3, "stall_after": 2, "iteration_time_limit_secs": null});
    let started = r.step(json!({"type": "start_loop", "profile_id": profile_id, "settings": settings})).await.unwrap();
    let loop_id = started["value"]["id"].as_str().unwrap().to_owned();
    r.step(json!({"type": "list_loops"})).await;
    r.step(json!({"type": "get_loop", "loop_id": loop_id})).await;
    r.step(json!({"type": "get_loop", "loop_id": switchboard_core::LoopId::new()})).await;
    r.step(json!({"type": "loop_files", "loop_id": loop_id})).await;
    r.step(json!({"type": "save_loop_file", "loop_id": loop_id, "file": "guardrails", "text": "Never skip a test.\n"}))
        .await;
    r.step(json!({"type": "save_loop_file", "loop_id": loop_id, "file": "anchor", "text": "x".repeat(256 * 1024 + 1)}))
        .await;
    // Only a stalled loop resumes.
    r.step(json!({"type": "resume_loop", "loop_id": loop_id})).await;
    r.step(json!({"type": "cancel_loop", "loop_id": loop_id})).await;
    r.step(json!({"type": "resume_loop", "loop_id": loop_id})).await;
    r.step(json!({"type": "list_limits"})).await;
    r.step(json!({"type": "list_usage"})).await;
    r.step(json!({"type": "resume_agent", "profile_id": profile_id})).await;
    r.step(json!({"type": "resume_agent", "profile_id": switchboard_core::ProfileId::new()})).await;
    r.step(json!({"type": "list_delegations"})).await;
    r.step(json!({"type": "keep_delegate", "session_id": switchboard_core::SessionId::new(), "keep": true})).await;
    r.keep(&format!("{SCENARIOS_DIR}/loops.json"));
}

/// Automations as the window meets them: one made on a schedule, listed, changed, paused and
/// resumed, run now, removed; a schedule, a zone and an unknown one refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_window_contract_of_automations_is_recorded() {
    let bin = sh_only_path();
    let (t, mut r) = recording_engine(&bin).await;
    let profile_id = r.paused_worker(&t).await;
    let spec = |every: &str, zone: Option<&str>| {
        json!({"profile_id": profile_id, "trigger": {"on": "every", "every": every},
            "action": {"does": "task", "instruction": "Bump the dependencies", "title": null, "budget": null,
                       "time_limit_secs": null},
            "zone": zone, "overlap": "skip", "catch_up": "once", "max_runs_per_hour": 6})
    };
    r.step(json!({"type": "create_automation", "spec": spec("25:00", None)})).await;
    r.step(json!({"type": "create_automation", "spec": spec("09:00", Some("Mars/Olympus"))})).await;
    let made = r.step(json!({"type": "create_automation", "spec": spec("2h", None)})).await.unwrap();
    let id = made["value"]["id"].as_str().unwrap().to_owned();
    r.step(json!({"type": "list_automations"})).await;
    r.step(json!({"type": "get_automation", "automation_id": id})).await;
    r.step(json!({"type": "get_automation", "automation_id": switchboard_core::AutomationId::new()})).await;
    r.step(json!({"type": "update_automation", "automation_id": id, "spec": spec("4h", Some("UTC"))})).await;
    r.step(json!({"type": "pause_automation", "automation_id": id})).await;
    r.step(json!({"type": "resume_automation", "automation_id": id})).await;
    r.step(json!({"type": "run_automation_now", "automation_id": id})).await;
    r.step(json!({"type": "remove_automation", "automation_id": id})).await;
    r.step(json!({"type": "remove_automation", "automation_id": id})).await;
    r.keep(&format!("{SCENARIOS_DIR}/automations.json"));
}

/// The settings the engine refuses, one field at a time, each with its words; and settings kept
/// with their times tidied.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_window_contract_of_settings_is_recorded() {
    let bin = sh_only_path();
    let (_t, mut r) = recording_engine(&bin).await;
    let defaults = r.step(json!({"type": "get_settings"})).await.unwrap()["value"].clone();
    let with = |changes: Value| {
        let mut settings = defaults.clone();
        for (key, value) in changes.as_object().unwrap() {
            settings[key] = value.clone();
        }
        json!({"type": "set_settings", "settings": settings})
    };
    let grid = |chosen: Vec<String>| json!({"shows": "chosen", "chosen": chosen, "zoomed": null});
    let daily = |from: &str, to: &str| json!({"mode": "daily", "from": from, "to": to});
    // Ids that stay the same from run to run (a grid's are not normalised).
    let twice = "00000000-0000-4000-8000-000000000099".to_owned();
    for refused in [
        json!({"default_task_time_limit_secs": 30}),
        json!({"default_task_time_limit_secs": 8 * 86_400}),
        json!({"default_quiet_alert_secs": 30}),
        json!({"turn_quiet_secs": 7200}),
        json!({"limit_margin_secs": 3600}),
        json!({"limit_retry_secs": 0}),
        json!({"usage_warn_percent": 100}),
        json!({"terminal_grid": grid((0..10).map(|n| format!("00000000-0000-4000-8000-{n:012}")).collect())}),
        json!({"terminal_grid": grid(vec![twice.clone(), twice.clone()])}),
        json!({"quiet_hours": daily("25:00", "07:00")}),
        json!({"quiet_hours": daily("22:00", "7:60")}),
        json!({"quiet_hours": daily("07:00", "7:00")}),
    ] {
        r.step(with(refused)).await;
    }
    r.step(with(json!({"quiet_hours": daily("21:30", "6:45"), "limit_margin_secs": 120}))).await;
    // A price table with a model priced twice is refused; one of the user's own is kept.
    let price = json!({"model": "claude-mine", "input": 3.0, "output": 15.0, "cache_write_5m": 3.75,
        "cache_write_1h": 6.0, "cache_read": 0.3, "long_prompt": null});
    let table = |models: Vec<Value>| json!({"source": "my invoice", "taken": "2026-11-29", "models": models});
    r.step(with(json!({"prices": table(vec![price.clone(), price.clone()])}))).await;
    r.step(with(json!({"prices": table(vec![price])}))).await;
    // What was spent: nothing yet, by each grouping.
    for by in ["agent", "day", "task"] {
        r.step(json!({"type": "cost_report", "since": {"from": "at", "at": 0}, "by": by})).await;
    }
    r.keep(&format!("{SCENARIOS_DIR}/settings.json"));
}

/// Serving browsers as the window's Devices pane meets it on an engine that does not serve: its
/// status, a pairing refused until it serves, no device, and an unknown device's refusal.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_window_contract_of_devices_is_recorded() {
    let bin = sh_only_path();
    let (_t, mut r) = recording_engine(&bin).await;
    r.step(json!({"type": "web_status"})).await;
    r.step(json!({"type": "pair_device", "read_only": false, "name": null})).await;
    let off = json!({"serving": false, "listen": null, "tls_cert": null, "tls_key": null, "names": []});
    r.step(json!({"type": "set_web", "settings": off})).await;
    r.step(json!({"type": "list_devices"})).await;
    r.step(json!({"type": "this_device"})).await;
    r.step(json!({"type": "revoke_device", "device_id": "phone"})).await;
    r.keep(&format!("{SCENARIOS_DIR}/devices.json"));
}

/// Each problem the engine finds with an agent's settings, one at a time, in its words: those
/// the values alone decide, and those that depend on the machine (a name taken, a program not on
/// `PATH`, a folder that is not there or not in a git repository).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_window_contract_of_agent_problems_is_recorded() {
    let bin = sh_only_path();
    let (t, mut r) = recording_engine(&bin).await;
    let workspace = t.workspace.canonicalize().unwrap().display().to_string();
    let plain = json!({"name": "worker", "command": "sh", "cwd": workspace, "kind": "generic"});
    r.step(json!({"type": "check_profile", "profile_id": null, "spec": plain})).await;
    let created = r.step(json!({"type": "create_profile", "spec": plain})).await.unwrap();
    let created = created["value"]["id"].clone();
    // Another agent by the same name.
    r.step(json!({"type": "check_profile", "profile_id": null, "spec": plain})).await;
    // The agent's own settings changed one at a time: its own name is not taken.
    let with = |changes: Value| {
        let mut spec = plain.clone();
        for (key, value) in changes.as_object().unwrap() {
            spec[key] = value.clone();
        }
        json!({"type": "check_profile", "profile_id": created, "spec": spec})
    };
    for problem in [
        json!({"name": ""}),
        json!({"name": "n".repeat(65)}),
        json!({"name": "two\tparts"}),
        json!({"command": ""}),
        json!({"command": "definitely-not-a-command"}),
        json!({"command": "claude", "kind": "claude-code"}),
        json!({"cwd": ""}),
        json!({"cwd": "~/projects"}),
        json!({"cwd": "projects"}),
        json!({"cwd": "/definitely/not/a/folder"}),
        json!({"isolation": "worktree"}),
        json!({"ready_pattern": "(unclosed"}),
        json!({"ready_quiet_ms": 60_001}),
        json!({"task_time_limit_secs": 0}),
        json!({"quiet_alert_secs": 7 * 86_400 + 1}),
    ] {
        r.step(with(problem)).await;
    }
    r.keep(&format!("{SCENARIOS_DIR}/profiles.json"));
}

/// An agent's hook asks the user's permission (through the real hook binary's code): the window
/// lists the request, the agent's status and what it asks of the user's attention, and decides.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_window_contract_of_permissions_and_attention_is_recorded() {
    let bin = sh_only_path();
    let (t, mut r) = recording_engine(&bin).await;
    let workspace = t.workspace.canonicalize().unwrap();
    let spec = demo_spec(&t, "asking", &workspace, "none", r#"[{ summary = "completed" }]"#);
    let profile = r.step(json!({"type": "create_profile", "spec": spec})).await.unwrap();
    let profile_id = profile["value"]["id"].as_str().unwrap().to_owned();
    let started = r.step(json!({"type": "start_session", "profile_id": profile_id, "size": {"rows": 24, "cols": 80}}));
    let session_id = started.await.unwrap()["value"]["id"].as_str().unwrap().to_owned();
    let session: switchboard_core::SessionId = session_id.parse().unwrap();
    let (socket, spool) =
        (switchboard_core::config::socket_path(&t.data_dir, None), switchboard_core::spool_path(&t.data_dir));
    let asking = session.clone();
    let hook = tokio::task::spawn_blocking(move || {
        let env = |name: &str| match name {
            "SWITCHBOARD_SESSION_ID" => Some(asking.to_string()),
            "SWITCHBOARD_SESSION_SECRET" => Some(switchboard_tests::session_env::secret_of(&asking)),
            "SWITCHBOARD_SOCKET" => Some(socket.display().to_string()),
            "SWITCHBOARD_SPOOL" => Some(spool.display().to_string()),
            _ => None,
        };
        let payload =
            r#"{"hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":{"command":"rm -rf build"}}"#;
        switchboard_hook::run(payload.as_bytes(), &[], env)
    });
    let request = t
        .events
        .wait_for("the permission request", |events| {
            events.iter().find_map(|e| match e {
                switchboard_core::EngineEvent::PermissionRequested { request } => Some(request.clone()),
                _ => None,
            })
        })
        .await;
    // The script waited for the agent to ask (a replay on the fake has it ask the same).
    let asked = r.normaliser.value("", &serde_json::to_value(request).unwrap());
    r.transcript.push(json!({"waited": "permission_requested", "request": asked}));
    t.caught_up().await;
    let listed = r.step(json!({"type": "list_permission_requests"})).await.unwrap();
    let request_id = listed["value"][0]["id"].as_u64().unwrap();
    r.step(json!({"type": "list_agent_status"})).await;
    r.step(json!({"type": "list_attention"})).await;
    r.step(json!({"type": "decide_permission", "request_id": request_id, "allow": true, "message": null})).await;
    let decided = hook.await.unwrap().expect("the hook runs");
    assert!(decided.is_some_and(|printed| printed.contains("allow")), "the agent is told the user's decision");
    r.step(json!({"type": "decide_permission", "request_id": request_id, "allow": false, "message": null})).await;
    r.step(json!({"type": "list_permission_requests"})).await;
    r.step(json!({"type": "stop_session", "session_id": session_id})).await;
    r.keep(&format!("{SCENARIOS_DIR}/permissions.json"));
}
