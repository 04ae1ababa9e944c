//! Hook events from agents: forwarded by the hook (its library, as the
//! binary runs it) to the engine socket, logged, turned into the agent's
//! status, scanned for signals; and spooled while no app runs, replayed at
//! the next start.

use crate::support;

use std::path::Path;

use support::*;
use switchboard_core::hook::AgentStatus;
use switchboard_core::{EngineEvent, LogKind, SessionId};

/// The recorded Claude Code hook payloads of a turn that ends with a clarification.
fn recorded_payloads() -> Vec<String> {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/agents/cc-hooks-write-signal.jsonl"),
    )
    .unwrap();
    text.lines().map(|line| serde_json::from_str::<serde_json::Value>(line).unwrap()["stdin"].to_string()).collect()
}

/// Runs the hook as an agent's hook would, inside `session`.
fn fire(socket: &Path, spool: &Path, session: &SessionId, payload: &str) {
    let env = |name: &str| match name {
        "SWITCHBOARD_SESSION_ID" => Some(session.to_string()),
        "SWITCHBOARD_SESSION_SECRET" => Some(switchboard_tests::session_env::secret_of(session)),
        "SWITCHBOARD_SOCKET" => Some(socket.display().to_string()),
        "SWITCHBOARD_SPOOL" => Some(spool.display().to_string()),
        "CLAUDE_CODE_SESSION_ID" => Some("11be1930-3c45-41f0-8a97-80ee87b18f26".to_owned()),
        _ => None,
    };
    switchboard_hook::run(payload.as_bytes(), &[], env).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn recorded_hook_events_drive_status_and_signals() {
    let t = TestEngine::start().await;
    let profile = t.demo_profile(&[]).await;
    let (session, _output) = t.start_session(&profile).await;
    let socket = switchboard_core::config::socket_path(&t.data_dir, None);
    let spool = switchboard_core::spool_path(&t.data_dir);
    // The hook blocks (briefly): off the test's runtime.
    let payloads = recorded_payloads();
    let (sock, spl, id) = (socket.clone(), spool.clone(), session.id.clone());
    tokio::task::spawn_blocking(move || {
        for payload in payloads {
            fire(&sock, &spl, &id, &payload);
        }
    })
    .await
    .unwrap();

    assert!(!spool.exists(), "the running app took every event");
    let events = t.events_now().await;
    use AgentStatus::*;
    // The turn's clarification waits for the user (Attention) until the
    // recorded session ends.
    assert_eq!(statuses(&events, &session.id), [Waiting, Working, Waiting, Attention, Exited]);
    // The Stop event's text carried a clarification.
    t.events
        .wait_for("the clarification from the Stop hook", |events| {
            events.iter().find_map(|e| match e {
                EngineEvent::SignalChanged { signal } if signal.session_id == session.id => Some(()),
                _ => None,
            })
        })
        .await;
    let log = t.engine.list_events(Some(session.id.clone())).await.unwrap();
    let hooks: Vec<String> = log
        .iter()
        .filter_map(|e| match &e.kind {
            LogKind::Hook { event, .. } => Some(event.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(hooks.first().map(String::as_str), Some("session_start"));
    assert!(hooks.contains(&"MessageDisplay".to_owned()), "unknown events are logged by name: {hooks:?}");
    assert_eq!(hooks.len(), 10, "{hooks:?}");
    t.engine.stop_session(session.id).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn events_spooled_while_no_app_runs_are_replayed_at_the_next_start() {
    let temp = tempfile::tempdir().unwrap();
    let session_id;
    {
        let t = TestEngine::start_in(temp.path(), |_| {}).await;
        let profile = t.demo_profile(&[]).await;
        let (session, _output) = t.start_session(&profile).await;
        session_id = session.id.clone();
        // Read while it runs: its hooks keep it after the app is gone.
        switchboard_tests::session_env::secret_of(&session_id);
        t.shutdown().await;
    }
    // The app is gone: the hook spools, and still returns at once.
    let socket = switchboard_core::config::socket_path(temp.path(), None);
    let spool = switchboard_core::spool_path(temp.path());
    for payload in recorded_payloads() {
        fire(&socket, &spool, &session_id, &payload);
    }
    assert_eq!(std::fs::read_to_string(&spool).unwrap().lines().count(), 10);
    // And one line torn by a full disk: set aside, counted for the window.
    std::io::Write::write_all(
        &mut std::fs::OpenOptions::new().append(true).open(&spool).unwrap(),
        b"{\"type\":\"hook\",\"env\xff\n",
    )
    .unwrap();

    let t = TestEngine::start_in(temp.path(), |_| {}).await;
    assert!(!spool.exists(), "the spool was replayed and emptied");
    let storage = t.engine.storage_status().await.unwrap();
    assert_eq!(storage.hook_events_set_aside, 1);
    let kept = std::fs::read(&storage.set_aside_file).unwrap();
    assert_eq!(kept, b"{\"type\":\"hook\",\"env\xff\n", "kept byte for byte where the window says");
    let log = t.engine.list_events(Some(session_id.clone())).await.unwrap();
    let replayed = log.iter().filter(|e| matches!(e.kind, LogKind::Hook { .. })).count();
    assert_eq!(replayed, 10);
    let signals = t.engine.list_signals().await.unwrap();
    assert_eq!(signals.len(), 1, "the spooled Stop still raised its clarification");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_claude_code_session_gets_its_hooks_and_their_events_arrive() {
    let hook = hook_binary();
    let t = TestEngine::start_with(|config| config.hook_binary = Some(hook.clone())).await;
    // The user's own hook stays.
    let settings = t.workspace.join(".claude/settings.local.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    std::fs::write(&settings, r#"{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"./mine.sh"}]}]}}"#).unwrap();
    // Stands in for Claude Code: runs the SessionStart hook it finds in the
    // settings, the way Claude Code runs it (event JSON on stdin, the
    // agent's environment), then waits.
    let script = r#"cmd=$(sed -n 's/.*"command": "\([^"]*switchboard-hook\)".*/\1/p' .claude/settings.local.json | head -n1)
printf '{"hook_event_name":"SessionStart","session_id":"c1","source":"startup"}' | "$cmd"
echo hooked; exec sleep 30"#;
    let spec = switchboard_core::ProfileSpec {
        kind: switchboard_core::AgentKind::ClaudeCode,
        ..t.spec("claude", "sh", &["-c", script])
    };
    let profile = t.engine.create_profile(spec).await.unwrap();
    let (session, output) = t.start_session(&profile).await;
    output.wait_for_text("hooked").await;

    let written: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&settings).unwrap()).unwrap();
    assert_eq!(written["hooks"]["Stop"][0]["hooks"][0]["command"], "./mine.sh");
    assert_eq!(written["hooks"]["Stop"][1]["hooks"][0]["command"], hook.display().to_string());
    let status = t
        .events
        .wait_for("the agent's status from its hook", |events| {
            events.iter().find_map(|e| match e {
                EngineEvent::AgentStatusChanged { status } if status.session_id == session.id => Some(status.clone()),
                _ => None,
            })
        })
        .await;
    assert_eq!(status.status, AgentStatus::Waiting);
    assert!(status.last_event_at.is_some(), "the badge can say events arrive");
    t.engine.stop_session(session.id).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lead_with_a_background_teammate_stays_working_until_the_teammate_is_done() {
    let t = TestEngine::start().await;
    let profile = t.profile("lead", "sleep", &["30"]).await;
    let (session, _output) = t.start_session(&profile).await;
    let socket = switchboard_core::config::socket_path(&t.data_dir, None);
    let spool = switchboard_core::spool_path(&t.data_dir);
    let recorded =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/agents/cc-hooks-team.jsonl"))
            .unwrap();
    // The recorded turns: the lead spawns worker1 in the background; both of
    // its Stops say the teammate still runs. Then a last Stop says none does.
    let mut payloads: Vec<String> = recorded
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["stdin"].clone())
        .filter(|p| p["hook_event_name"] != "SessionEnd")
        .map(|p| p.to_string())
        .collect();
    payloads.push(
        serde_json::json!({"hook_event_name": "Stop", "last_assistant_message": "All done.", "background_tasks": []})
            .to_string(),
    );
    let (sock, spl, id) = (socket, spool, session.id.clone());
    let last = payloads.pop().unwrap();
    tokio::task::spawn_blocking(move || {
        for payload in &payloads {
            fire(&sock, &spl, &id, payload);
        }
    })
    .await
    .unwrap();
    let latest = |events: &[EngineEvent]| {
        events.iter().rev().find_map(|e| match e {
            EngineEvent::AgentStatusChanged { status } if status.session_id == session.id => Some(status.status),
            _ => None,
        })
    };
    assert_eq!(latest(&t.events_now().await), Some(AgentStatus::Working), "the team is active: no completion");

    let (sock, spl, id) = (
        switchboard_core::config::socket_path(&t.data_dir, None),
        switchboard_core::spool_path(&t.data_dir),
        session.id.clone(),
    );
    tokio::task::spawn_blocking(move || fire(&sock, &spl, &id, &last)).await.unwrap();
    assert_eq!(latest(&t.events_now().await), Some(AgentStatus::Waiting), "the team is done: the turn completes");
    t.engine.stop_session(session.id).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_working_agent_whose_hooks_go_silent_is_taken_to_be_waiting() {
    let t = TestEngine::start_with(|config| config.working_idle = std::time::Duration::from_millis(300)).await;
    let profile = t.profile("quiet", "sleep", &["30"]).await;
    let (session, _output) = t.start_session(&profile).await;
    let (sock, spl, id) = (
        switchboard_core::config::socket_path(&t.data_dir, None),
        switchboard_core::spool_path(&t.data_dir),
        session.id.clone(),
    );
    tokio::task::spawn_blocking(move || fire(&sock, &spl, &id, r#"{"hook_event_name":"UserPromptSubmit"}"#))
        .await
        .unwrap();
    t.events
        .wait_for("working, then waiting when the hooks fall silent", |events| {
            let seen = statuses(events, &session.id);
            (seen == [AgentStatus::Working, AgentStatus::Waiting]).then_some(())
        })
        .await;
    t.engine.stop_session(session.id).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_claude_code_conversation_is_named_at_start_and_resumed_later() {
    let t = TestEngine::start().await;
    // Stands in for Claude Code: shows the arguments it was given.
    let fake = t.data_dir.join("fake-claude");
    std::fs::write(&fake, "#!/bin/sh\necho \"args: $*\"\nexec sleep 30\n").unwrap();
    std::fs::set_permissions(&fake, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let spec = switchboard_core::ProfileSpec {
        kind: switchboard_core::AgentKind::ClaudeCode,
        ..t.spec("claude", fake.to_str().unwrap(), &[])
    };
    let profile = t.engine.create_profile(spec).await.unwrap();
    let (first, output) = t.start_session(&profile).await;
    let conversation = first.agent_session_id.clone().expect("a conversation id");
    output.wait_for_text(&format!("args: --session-id {conversation}")).await;
    t.engine.stop_session(first.id.clone()).await.unwrap();

    let resumed = t.engine.resume_session(first.id.clone(), switchboard_core::TermSize::DEFAULT).await.unwrap();
    assert_eq!(resumed.agent_session_id.as_deref(), Some(conversation.as_str()));
    let output = t.attach(&resumed.id).await;
    output.wait_for_text(&format!("args: --resume {conversation}")).await;
    // The conversation is kept across a restart of the app: the store has it.
    let stored = t.engine.list_sessions().await.unwrap();
    assert!(stored.iter().all(|s| s.agent_session_id.as_deref() == Some(conversation.as_str())));

    // A running session, or one of an agent without conversations, is refused clearly.
    let error = t.engine.resume_session(resumed.id.clone(), switchboard_core::TermSize::DEFAULT).await.unwrap_err();
    assert!(error.to_string().contains("still running"), "{error}");
    let plain = t.profile("plain", "sleep", &["30"]).await;
    let (other, _) = t.start_session(&plain).await;
    t.engine.stop_session(other.id.clone()).await.unwrap();
    let error = t.engine.resume_session(other.id, switchboard_core::TermSize::DEFAULT).await.unwrap_err();
    assert!(error.to_string().contains("cannot be resumed"), "{error}");
    t.engine.stop_session(resumed.id).await.unwrap();
}

/// Runs the hook for a permission request; returns what it prints for the agent.
fn ask(socket: &Path, spool: &Path, session: &SessionId) -> Option<String> {
    let env = |name: &str| match name {
        "SWITCHBOARD_SESSION_ID" => Some(session.to_string()),
        "SWITCHBOARD_SESSION_SECRET" => Some(switchboard_tests::session_env::secret_of(session)),
        "SWITCHBOARD_SOCKET" => Some(socket.display().to_string()),
        "SWITCHBOARD_SPOOL" => Some(spool.display().to_string()),
        _ => None,
    };
    let payload =
        r#"{"hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":{"command":"rm -rf build"}}"#;
    switchboard_hook::run(payload.as_bytes(), &[], env).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_permission_request_is_answered_in_the_app_or_left_to_the_agent() {
    let t = TestEngine::start_with(|config| config.permission_wait = std::time::Duration::from_millis(500)).await;
    let profile = t.profile("asking", "sleep", &["30"]).await;
    let (session, _output) = t.start_session(&profile).await;
    let socket = switchboard_core::config::socket_path(&t.data_dir, None);
    let spool = switchboard_core::spool_path(&t.data_dir);

    // Answered: the hook hands the agent the user's decision.
    let (sock, spl, id) = (socket.clone(), spool.clone(), session.id.clone());
    let hook = tokio::task::spawn_blocking(move || ask(&sock, &spl, &id));
    let request = t
        .events
        .wait_for("the permission request", |events| {
            events.iter().find_map(|e| match e {
                EngineEvent::PermissionRequested { request } => Some(request.clone()),
                _ => None,
            })
        })
        .await;
    assert_eq!(request.tool_name, "Bash");
    assert_eq!(request.tool_input["command"], "rm -rf build");
    let statuses_now = statuses(&t.events_now().await, &session.id);
    assert_eq!(statuses_now.last(), Some(&AgentStatus::Attention));
    t.engine
        .call(switchboard_core::Command::DecidePermission {
            request_id: request.id,
            allow: false,
            message: Some("not on this branch".into()),
        })
        .await
        .unwrap();
    let printed: serde_json::Value = serde_json::from_str(&hook.await.unwrap().expect("a decision")).unwrap();
    assert_eq!(
        printed["hookSpecificOutput"]["decision"],
        serde_json::json!({"behavior": "deny", "message": "not on this branch"})
    );

    // Unanswered: after the wait the hook prints nothing, and the agent's own prompt decides.
    let (sock, spl, id) = (socket, spool, session.id.clone());
    let unanswered = tokio::task::spawn_blocking(move || ask(&sock, &spl, &id)).await.unwrap();
    assert_eq!(unanswered, None);
    let closed = t.events_now().await.iter().filter(|e| matches!(e, EngineEvent::PermissionClosed { .. })).count();
    assert_eq!(closed, 2);
    t.engine.stop_session(session.id).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_waits_while_the_agents_hooks_say_it_works() {
    let t = TestEngine::start().await;
    let spec = switchboard_core::ProfileSpec {
        ready_pattern: Some("demo> $".into()),
        ready_quiet_ms: 50,
        ..t.spec("demo", DEMO_AGENT, &[])
    };
    let profile = t.engine.create_profile(spec).await.unwrap();
    let (session, output) = t.start_session(&profile).await;
    output.wait_for_text("demo>").await;
    let socket = switchboard_core::config::socket_path(&t.data_dir, None);
    let spool = switchboard_core::spool_path(&t.data_dir);
    let send = |payload: &'static str| {
        let (sock, spl, id) = (socket.clone(), spool.clone(), session.id.clone());
        tokio::task::spawn_blocking(move || fire(&sock, &spl, &id, payload))
    };
    // The agent's hooks say it is in the middle of a turn, though its
    // screen sits quietly at the prompt (a long tool call, say).
    send(r#"{"hook_event_name":"UserPromptSubmit","prompt":"earlier work"}"#).await.unwrap();
    let task = t
        .engine
        .submit_task(switchboard_core::TaskSpec::new(profile.id.clone(), "Typed only once the turn is over"))
        .await
        .unwrap()
        .task;
    tokio::time::sleep(std::time::Duration::from_millis(800)).await;
    assert!(!output.text().contains("Typed only once"), "typed into a busy agent:\n{}", output.text());

    send(r#"{"hook_event_name":"Stop","last_assistant_message":"done"}"#).await.unwrap();
    output.wait_for_text("Typed only once the turn is over").await;
    let done = t
        .events
        .wait_for("the task to complete", |events| {
            events.iter().find_map(|e| match e {
                EngineEvent::TaskChanged { task: info } if info.id == task.id && info.state.is_finished() => {
                    Some(info.clone())
                }
                _ => None,
            })
        })
        .await;
    assert_eq!(done.state, switchboard_core::TaskState::Completed);
    t.engine.stop_session(session.id).await.unwrap();
}

/// Stands in for an agent CLI with a start-up dialog: it asks, and only
/// once answered runs its SessionStart hook (as Claude Code does after its
/// trust dialog), then echoes what it is typed.
const DIALOG_AGENT: &str = r#"cmd=$(sed -n 's/.*"command": "\([^"]*switchboard-hook\)".*/\1/p' .claude/settings.local.json | head -n1)
printf 'Trust the files in this folder? (y/n) '
read answer
echo "dialog answered: $answer"
if [ -n "$HOOKED" ]; then printf '{"hook_event_name":"SessionStart","source":"startup"}' | "$cmd"; fi
exec cat"#;

async fn dialog_agent(t: &TestEngine, hooked: bool) -> switchboard_core::Profile {
    let mut env = std::collections::BTreeMap::new();
    if hooked {
        env.insert("HOOKED".to_owned(), "1".to_owned());
    }
    let spec = switchboard_core::ProfileSpec {
        kind: switchboard_core::AgentKind::ClaudeCode,
        ready_quiet_ms: 50,
        env,
        ..t.spec("claude", "sh", &["-c", DIALOG_AGENT])
    };
    t.engine.create_profile(spec).await.unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_is_not_typed_into_an_agents_start_up_dialog() {
    let hook = hook_binary();
    let t = TestEngine::start_with(|config| config.hook_binary = Some(hook.clone())).await;
    let profile = dialog_agent(&t, true).await;
    let task =
        t.engine.submit_task(switchboard_core::TaskSpec::new(profile.id.clone(), "The task text")).await.unwrap().task;
    let session = t.session_of_task(&task.id).await;
    let output = t.attach(&session).await;
    output.wait_for_text("(y/n)").await;
    // Quiet at its dialog, long past the quiet time: still not typed.
    tokio::time::sleep(std::time::Duration::from_millis(800)).await;
    assert!(!output.text().contains("dialog answered"), "typed into the dialog:\n{}", output.text());

    // The user answers; the agent's session starts; now the task goes in.
    t.engine.write_input(session.clone(), "y\r".into()).await.unwrap();
    output.wait_for_text("dialog answered: y").await;
    output.wait_for_text("The task text").await;
    t.engine.stop_session(session).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_whose_hooks_stay_silent_is_typed_into_after_a_grace() {
    let hook = hook_binary();
    let t = TestEngine::start_with(|config| {
        config.hook_binary = Some(hook.clone());
        config.hooks_grace = std::time::Duration::from_millis(600);
    })
    .await;
    // Its hooks never run (disabled by the user, say): after the grace the
    // screen alone decides, and here the text answers the dialog.
    let profile = dialog_agent(&t, false).await;
    let task =
        t.engine.submit_task(switchboard_core::TaskSpec::new(profile.id.clone(), "yes please")).await.unwrap().task;
    let session = t.session_of_task(&task.id).await;
    let output = t.attach(&session).await;
    output.wait_for_text("dialog answered:").await;
    t.engine.stop_session(session).await.unwrap();
}

/// A lead agent at work on a task, whose hook events the test sends as its
/// hooks would (scripted where no recording has them).
struct Lead {
    t: TestEngine,
    session: SessionId,
}

impl Lead {
    async fn start() -> (Lead, switchboard_core::TaskId) {
        let t = TestEngine::start().await;
        let spec = switchboard_core::ProfileSpec { ready_quiet_ms: 50, ..t.spec("lead", "cat", &[]) };
        let profile = t.engine.create_profile(spec).await.unwrap();
        let task = t.engine.submit_task(switchboard_core::TaskSpec::new(profile.id, "Lead the parser work")).await;
        let task = task.unwrap().task.id;
        let session = t.session_of_task(&task).await;
        (Lead { t, session }, task)
    }

    async fn hook(&self, payload: serde_json::Value, env: &[(&str, &str)]) {
        let envelope = switchboard_core::hook::HookEnvelope {
            session_id: Some(self.session.to_string()),
            env: env.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
            at: 1,
            payload,
            secret: Some(switchboard_tests::session_env::secret_of(&self.session)),
        };
        self.t.engine.hook_event(envelope).await.unwrap();
    }

    async fn spawn(&self, name: &str) {
        let payload = serde_json::json!({"hook_event_name": "PreToolUse", "session_id": "489105c7-aaaa", "tool_name": "Agent",
            "tool_use_id": format!("toolu_{name}"), "tool_input": {"name": name, "prompt": "part of it"}});
        self.hook(payload, &[]).await;
    }

    fn write_summary(&self, task: &switchboard_core::TaskId) {
        let text = "# Task Completion Summary\n\n## Objective\nx\n\n## Status\n✅ COMPLETED\n";
        std::fs::create_dir_all(self.t.workspace.join("summaries")).unwrap();
        std::fs::write(self.t.workspace.join(format!("summaries/{task}.md")), text).unwrap();
    }

    async fn task(&self, id: &switchboard_core::TaskId) -> switchboard_core::TaskRecord {
        self.t.engine.get_task(id.clone()).await.unwrap()
    }

    async fn ended(&self, id: &switchboard_core::TaskId) -> switchboard_core::TaskRecord {
        self.t
            .events
            .wait_for("the task to end", |events| {
                events.iter().find_map(|e| match e {
                    EngineEvent::TaskChanged { task } if &task.id == id && task.state.is_finished() => {
                        Some(task.clone())
                    }
                    _ => None,
                })
            })
            .await
    }

    async fn status(&self) -> Option<switchboard_core::AgentStatusInfo> {
        self.t.events_now().await.iter().rev().find_map(|e| match e {
            EngineEvent::AgentStatusChanged { status } if status.session_id == self.session => Some(status.clone()),
            _ => None,
        })
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_turn_that_ends_in_error_fails_the_leads_task_whatever_its_team_does() {
    let (lead, task) = Lead::start().await;
    lead.spawn("worker1").await;
    // Claude Code's StopFailure, as its hook delivers it; before, it was an
    // unknown event and the task ran on until its time limit.
    let failure = serde_json::json!({"hook_event_name": "StopFailure", "error": "overloaded_error",
        "error_details": "the API is overloaded", "last_assistant_message": "I was halfway"});
    lead.hook(failure, &[]).await;
    let ended = lead.ended(&task).await;
    assert_eq!(ended.state, switchboard_core::TaskState::Failed, "{ended:?}");
    let reason = ended.reason.as_deref().unwrap_or_default();
    assert!(reason.contains("overloaded_error: the API is overloaded"), "{reason}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_teammate_whose_spawn_failed_does_not_hold_the_leads_task() {
    let (lead, task) = Lead::start().await;
    lead.spawn("worker1").await;
    let failed = serde_json::json!({"hook_event_name": "PostToolUseFailure", "tool_name": "Agent",
        "tool_use_id": "toolu_worker1", "tool_input": {"name": "worker1"}, "error": "unknown agent type"});
    lead.hook(failed, &[]).await;
    lead.write_summary(&task);
    lead.hook(serde_json::json!({"hook_event_name": "Stop", "last_assistant_message": "Done."}), &[]).await;
    assert_eq!(lead.ended(&task).await.state, switchboard_core::TaskState::Completed);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_team_is_the_agents_own_shown_and_over_with_its_task_and_its_session() {
    let (lead, first) = Lead::start().await;
    // The agent's environment names its team: that is the key, and it is shown.
    let env = [("CLAUDE_CODE_TEAM_NAME", "parsers"), ("CLAUDE_CODE_AGENT_NAME", "planner")];
    lead.hook(serde_json::json!({"hook_event_name": "UserPromptSubmit"}), &env).await;
    lead.spawn("worker1").await;
    let shown = lead.status().await.expect("a status");
    assert_eq!(shown.team, Some(switchboard_core::TeamInfo { name: "parsers".into(), active: 1 }));
    assert_eq!(shown.agent_name.as_deref(), Some("planner"));

    // Held by its team; cancelled, the next task starts with no team.
    lead.write_summary(&first);
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    assert_eq!(lead.task(&first).await.state, switchboard_core::TaskState::Running, "held by the team");
    let profile = lead.t.engine.list_profiles().await.unwrap()[0].id.clone();
    let second =
        lead.t.engine.submit_task(switchboard_core::TaskSpec::new(profile, "Next part")).await.unwrap().task.id;
    lead.t.engine.cancel_task(first).await.unwrap();
    assert_eq!(lead.t.session_of_task(&second).await, lead.session);
    // Before, the old team still held it.
    lead.write_summary(&second);
    assert_eq!(lead.ended(&second).await.state, switchboard_core::TaskState::Completed);

    // The session's end ends its team.
    lead.spawn("worker2").await;
    assert_eq!(lead.status().await.unwrap().team.map(|t| t.active), Some(1));
    lead.hook(serde_json::json!({"hook_event_name": "SessionEnd", "reason": "exit"}), &[]).await;
    assert_eq!(lead.status().await.unwrap().team, None);
}

/// Issue 22: every stored agent text field has a cap. A hook's error
/// becomes the task's reason, its environment the agent's shown name.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hooks_long_error_and_names_are_kept_cut_and_marked() {
    use switchboard_core::capped::{CUT_MARK, MAX_NAME_BYTES, MAX_TEXT_FIELD_BYTES};
    let (lead, task) = Lead::start().await;
    let name = "n".repeat(10_000);
    lead.hook(serde_json::json!({"hook_event_name": "UserPromptSubmit"}), &[("CLAUDE_CODE_AGENT_NAME", &name)]).await;
    let failure = serde_json::json!({"hook_event_name": "StopFailure", "error": "e".repeat(200_000)});
    lead.hook(failure, &[]).await;
    let ended = lead.ended(&task).await;
    let reason = ended.reason.as_deref().unwrap_or_default();
    assert!(reason.len() <= MAX_TEXT_FIELD_BYTES + 100 && reason.ends_with(CUT_MARK), "{} bytes", reason.len());
    let shown = lead.status().await.and_then(|s| s.agent_name).unwrap_or_default();
    assert!(shown.len() <= MAX_NAME_BYTES && shown.ends_with(CUT_MARK), "{} bytes", shown.len());
}

/// Codex 0.169 tells no hook, and not `notify`, of a turn that failed (the
/// recording: SessionStart, UserPromptSubmit, PreModelRequest, then
/// nothing); its session log ends the turn with the API's error. Replayed
/// through the engine: the task fails with Codex's reason once the agent is
/// quiet, instead of running on to its time limit (issue 23, item 9).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_codex_turn_that_failed_without_telling_its_hooks_fails_its_task_with_codexs_reason() {
    let t = TestEngine::start().await;
    let home = t.data_dir.join("codex-home");
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/agents");
    let spec = switchboard_core::ProfileSpec {
        kind: switchboard_core::AgentKind::Codex,
        ready_quiet_ms: 50,
        env: [("CODEX_HOME".to_owned(), home.display().to_string())].into(),
        // Not taught (the protocols would come as Codex's arguments).
        signal_protocols: false,
        ..t.spec("codex", "cat", &[])
    };
    let profile = t.engine.create_profile(spec).await.unwrap();
    let task = t.engine.submit_task(switchboard_core::TaskSpec::new(profile.id, "Summarise the repository")).await;
    let task = task.unwrap().task.id;
    let session = t.session_of_task(&task).await;
    t.events
        .wait_for("the task to be typed", |events| {
            events.iter().find_map(|e| match e {
                EngineEvent::TaskChanged { task: typed } if typed.id == task && typed.typed_at.is_some() => Some(()),
                _ => None,
            })
        })
        .await;

    // Its hooks, as recorded, and its session log where they say it is.
    let recorded = std::fs::read_to_string(fixtures.join("codex-hooks-failed-turn.jsonl")).unwrap();
    let here = |text: &str| text.replace("$RA/home/codex", &home.display().to_string());
    for line in recorded.lines() {
        let payload: serde_json::Value = serde_json::from_str(&here(line)).unwrap();
        let envelope = switchboard_core::hook::HookEnvelope {
            session_id: Some(session.to_string()),
            env: Default::default(),
            at: 1,
            payload: payload["stdin"].clone(),
            secret: Some(switchboard_tests::session_env::secret_of(&session)),
        };
        t.engine.hook_event(envelope).await.unwrap();
    }
    let first: serde_json::Value = serde_json::from_str(&here(recorded.lines().next().unwrap())).unwrap();
    let log = Path::new(first["stdin"]["transcript_path"].as_str().unwrap()).to_owned();
    std::fs::create_dir_all(log.parent().unwrap()).unwrap();
    std::fs::copy(fixtures.join("codex-rollout-failed-turn.jsonl"), &log).unwrap();

    let ended = t
        .events
        .wait_for("the task to end", |events| {
            events.iter().find_map(|e| match e {
                EngineEvent::TaskChanged { task: ended } if ended.id == task && ended.state.is_finished() => {
                    Some(ended.clone())
                }
                _ => None,
            })
        })
        .await;
    assert_eq!(ended.state, switchboard_core::TaskState::Failed, "{ended:?}");
    assert_eq!(
        ended.reason.as_deref(),
        Some("the agent's turn ended in an error: The input is too long for this model."),
        "{ended:?}"
    );
}

/// A Codex lead's own sub-agent, from the real Codex 0.169's recorded hooks
/// (`codex-hooks-subagent.jsonl`, its spawn_agent call, SubagentStart and
/// SubagentStop), replayed as a lead that ends its turn without waiting: its
/// task is held while the sub-agent works and completes at its stop (issue
/// 23, item 12: only Claude Code's Agent/Task counted).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_codex_leads_own_sub_agent_holds_its_task_until_it_stops() {
    let t = TestEngine::start().await;
    let spec = switchboard_core::ProfileSpec {
        kind: switchboard_core::AgentKind::Codex,
        ready_quiet_ms: 50,
        env: [("CODEX_HOME".to_owned(), t.data_dir.join("codex-home").display().to_string())].into(),
        signal_protocols: false,
        ..t.spec("codex", "cat", &[])
    };
    let profile = t.engine.create_profile(spec).await.unwrap();
    let task = t.engine.submit_task(switchboard_core::TaskSpec::new(profile.id, "Count with a helper")).await;
    let task = task.unwrap().task.id;
    let session = t.session_of_task(&task).await;
    let latest = |events: &[EngineEvent]| {
        events.iter().rev().find_map(|e| match e {
            EngineEvent::TaskChanged { task: changed } if changed.id == task => Some(changed.clone()),
            _ => None,
        })
    };
    t.events.wait_for("the task to be typed", |events| latest(events).filter(|t| t.typed_at.is_some())).await;
    let send = |payload: serde_json::Value| {
        let envelope = switchboard_core::hook::HookEnvelope {
            session_id: Some(session.to_string()),
            env: Default::default(),
            at: 1,
            payload,
            secret: Some(switchboard_tests::session_env::secret_of(&session)),
        };
        t.engine.hook_event(envelope)
    };
    let recorded = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/agents/codex-hooks-subagent.jsonl"),
    )
    .unwrap();
    let events: Vec<serde_json::Value> =
        recorded.lines().map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["stdin"].clone()).collect();
    let waits = |e: &serde_json::Value| e["tool_name"].as_str().is_some_and(|tool| tool.ends_with("wait_agent"));
    let sub_agent_stop = events.iter().find(|e| e["hook_event_name"] == "SubagentStop").unwrap().clone();
    // The lead does not wait: its turn ends with the sub-agent at work and
    // its summary written after the spawn.
    for event in events.iter().filter(|e| !waits(e) && e["hook_event_name"] != "SubagentStop") {
        if event["hook_event_name"] == "Stop" {
            std::fs::create_dir_all(t.workspace.join("summaries")).unwrap();
            let text = "# Task Completion Summary\n\n## Objective\nx\n\n## Status\n✅ COMPLETED\n";
            std::fs::write(t.workspace.join(format!("summaries/{task}.md")), text).unwrap();
        }
        send(event.clone()).await.unwrap();
    }
    let status = |events: &[EngineEvent]| {
        events.iter().rev().find_map(|e| match e {
            EngineEvent::AgentStatusChanged { status } if status.session_id == session => Some(status.clone()),
            _ => None,
        })
    };
    let shown = status(&t.events_now().await).unwrap();
    assert_eq!(shown.status, AgentStatus::Working, "the lead's team works: {shown:?}");
    assert_eq!(shown.team.map(|team| team.active), Some(1));
    assert_eq!(t.engine.get_task(task.clone()).await.unwrap().state, switchboard_core::TaskState::Running);

    send(sub_agent_stop).await.unwrap();
    let done = t.events.wait_for("the task to end", |events| latest(events).filter(|t| t.state.is_finished())).await;
    assert_eq!(done.state, switchboard_core::TaskState::Completed, "{done:?}");
}
