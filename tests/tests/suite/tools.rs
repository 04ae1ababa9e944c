//! Switchboard's tools (the MCP server `switchboard-mcp`), started by an
//! agent's CLI as the real CLIs start it: each call becomes the very record
//! its printed block would, answered with what happens next; bad arguments
//! are answered naming the argument; the session's own secret alone speaks
//! for it; once the server said hello, the agent's tasks point to the tools.

use crate::support;

use std::path::Path;

use serde_json::{Value, json};
use support::*;
use switchboard_core::signal::teach::tools_pointer;
use switchboard_core::signal::{ScanEvent, SignalBody, SignalKind};
use switchboard_core::{
    CompletionRule, EngineEvent, ErrorCode, ProfileSpec, SessionId, SignalChannel, SignalRecord, SignalResponse,
    SignalState, TaskSpec, TaskState, ToolCall,
};

/// The answers the agent's CLI recorded, one per call made.
fn answers(path: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    text.lines().map(|line| serde_json::from_str(line).unwrap()).collect()
}

/// Makes a call through the agent's CLI (typed into its terminal) and
/// waits for its answer.
async fn call(t: &TestEngine, session: &SessionId, path: &Path, line: String) -> Value {
    let before = answers(path).len();
    // A line of its own, whatever the terminal held before (a typed task's Enter may still come).
    t.engine.write_input(session.clone(), format!("\r{line}\r")).await.unwrap();
    for _ in 0..400 {
        if answers(path).len() > before {
            return answers(path).pop().unwrap();
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    panic!("no answer to {line}; the agent's screen:\n{}", t.screen(session).await)
}

fn tool(name: &str, arguments: Value) -> String {
    format!("CALL {}", json!({"name": name, "arguments": arguments}))
}

fn text(answer: &Value) -> &str {
    answer["result"]["content"][0]["text"].as_str().unwrap_or_default()
}

async fn pending(t: &TestEngine, kind: SignalKind) -> SignalRecord {
    t.events
        .wait_for(&format!("a pending {kind:?}"), |events| {
            events.iter().find_map(|event| match event {
                EngineEvent::SignalChanged { signal }
                    if signal.state == SignalState::Pending
                        && matches!(&signal.scan, ScanEvent::Signal { signal: s } if s.body.kind() == kind) =>
                {
                    Some(signal.clone())
                }
                _ => None,
            })
        })
        .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agents_tool_calls_become_the_records_its_blocks_would_and_its_tasks_then_point_to_them() {
    let t = TestEngine::start_with(|config| config.mcp_binary = Some(mcp_binary())).await;
    let recorded = t.data_dir.join("answers.jsonl");
    let server = mcp_binary();
    let spec = ProfileSpec {
        completion: CompletionRule::Report,
        ready_quiet_ms: 100,
        ..t.spec("tooling", MCP_CLIENT, &[server.to_str().unwrap(), recorded.to_str().unwrap()])
    };
    let profile = t.engine.create_profile(spec).await.unwrap();
    let mut first = TaskSpec::new(profile.id.clone(), "TOOLS-TASK: check the parser");
    first.success_criteria = Some("it parses every fixture".into());
    let first = t.engine.submit_task(first).await.unwrap().task;
    let session = t.session_of_task(&first.id).await;
    t.wait_for_screen(&session, "TOOLS-TASK").await;
    assert!(answers(&recorded)[0]["hello"]["result"]["serverInfo"]["name"] == "switchboard");
    // Any other CLI finds the server's entry in the workspace, with no secret in it.
    let entry = std::fs::read_to_string(t.workspace.join(".switchboard/mcp.json")).unwrap();
    let parsed: Value = serde_json::from_str(&entry).unwrap();
    assert_eq!(parsed["mcpServers"]["switchboard"]["command"], server.display().to_string());
    assert!(!entry.contains(&session.to_string()) && !entry.contains("SECRET"), "{entry}");

    let listed = call(&t, &session, &recorded, "LIST".into()).await;
    let names: Vec<&str> =
        listed["result"]["tools"].as_array().unwrap().iter().filter_map(|t| t["name"].as_str()).collect();
    assert_eq!(names.len(), 6, "{listed}");

    // The session's own task, as it was given.
    let now = call(&t, &session, &recorded, tool("current_task", json!({}))).await;
    assert!(text(&now).contains("TOOLS-TASK: check the parser"), "{now}");
    assert!(text(&now).contains("Success criteria: it parses every fixture"), "{now}");
    assert!(text(&now).ends_with("call report_completion: that completes the task."), "by its agent's rule: {now}");

    // Bad arguments: a tool error naming the argument, nothing recorded.
    let bad = call(&t, &session, &recorded, tool("ask_user", json!({"blocked_at": "design"}))).await;
    assert_eq!(bad["result"]["isError"], true);
    assert_eq!(text(&bad), "Nothing was recorded: questions: is required. Fix that and call ask_user again.");
    let bad = call(&t, &session, &recorded, tool("report_completion", json!({"status": "done"}))).await;
    assert!(text(&bad).contains("status: must be one of: success, partial, failed"), "{bad}");

    // A question: the same record a printed block makes, on the tool's
    // channel, for the session's task, with its choices.
    let asked = call(
        &t,
        &session,
        &recorded,
        tool(
            "ask_user",
            json!({"questions": ["Which format?", {"question": "How deep?", "options": ["shallow", "deep"]}],
                                 "blocked_at": "choosing", "current_state": "read the fixtures"}),
        ),
    )
    .await;
    assert_eq!(asked["result"]["isError"], false, "{asked}");
    assert!(text(&asked).contains("End your turn now; the answer comes as your next message."), "{asked}");
    let question = pending(&t, SignalKind::Clarification).await;
    assert_eq!(question.channel, SignalChannel::Tool);
    assert_eq!(question.task_id.as_ref(), Some(&first.id));
    assert!(text(&asked).contains(&question.id.to_string()), "the answer names the question: {asked}");
    let ScanEvent::Signal { signal } = &question.scan else { panic!("{question:?}") };
    assert_eq!(
        signal.body,
        SignalBody::Clarification {
            blocked_at: "choosing".into(),
            questions: vec!["Which format?".into(), "How deep?".into()],
            current_state: "read the fixtures".into(),
            options: vec![vec![], vec!["shallow".into(), "deep".into()]],
        }
    );
    // The user's answer reaches the agent as its next message.
    t.engine
        .respond_to_signal(question.id.clone(), SignalResponse::Answer { answers: vec!["JSON".into(), "deep".into()] })
        .await
        .unwrap();
    t.wait_for_screen(&session, "CLARIFICATION RESPONSE").await;

    // A findings file the agent planted as a link out of its folder is refused, never followed.
    let outside = t.data_dir.join("outside.jsonl");
    std::fs::write(&outside, "").unwrap();
    let planted = t.workspace.join("SHARED_FINDINGS.jsonl");
    std::os::unix::fs::symlink(&outside, &planted).unwrap();
    let refused = call(&t, &session, &recorded, tool("add_finding", json!({"finding": "through the link"}))).await;
    assert_eq!(refused["result"]["isError"], true, "{refused}");
    assert!(
        text(&refused).starts_with("Switchboard could not record this (adding to SHARED_FINDINGS.jsonl"),
        "{refused}"
    );
    assert!(text(&refused).contains("Append the finding to SHARED_FINDINGS.jsonl yourself"), "{refused}");
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), "", "nothing written through the link");
    std::fs::remove_file(&planted).unwrap();

    // A finding: a line of the shared file.
    let found = call(&t, &session, &recorded, tool("add_finding", json!({"finding": "fixture 7 is empty"}))).await;
    assert!(text(&found).starts_with("Added to SHARED_FINDINGS.jsonl"), "{found}");
    let shared = std::fs::read_to_string(t.workspace.join("SHARED_FINDINGS.jsonl")).unwrap();
    let line: Value = serde_json::from_str(shared.trim_end()).unwrap();
    assert_eq!(
        (line["finding"].as_str(), line["agent_id"].as_str()),
        (Some("fixture 7 is empty"), Some(session.to_string().as_str()))
    );

    // The report completes the task (by its agent's rule), as a printed one does.
    let reported = call(&t, &session, &recorded, tool("report_completion", json!({"status": "success"}))).await;
    assert!(text(&reported).contains("Your report is recorded"), "{reported}");
    let done = t
        .task_until(&first.id, "to end", |task| task.state != TaskState::Running && task.state != TaskState::Queued)
        .await;
    assert_eq!(done.state, TaskState::Completed, "{done:?}");

    // The server said hello: the next task points to the tools.
    let second = t.engine.submit_task(TaskSpec::new(profile.id.clone(), "TOOLS-SECOND: go on")).await.unwrap().task;
    assert_eq!(t.session_of_task(&second.id).await, session);
    // The screen wraps lines at its width and trims their ends: compared without spaces.
    let bare = |text: &str| text.split_whitespace().collect::<String>();
    let typed_of = |screen: &str| screen.split_once("TOOLS-SECOND").map(|(_, typed)| bare(typed));
    let mut screen = t.screen(&session).await;
    while !typed_of(&screen).is_some_and(|typed| typed.contains("Whenyouaredone")) {
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        screen = t.screen(&session).await;
    }
    let typed = typed_of(&screen).unwrap();
    assert!(typed.contains(&bare(tools_pointer())), "the tools are pointed to: {screen}");
    assert!(!typed.contains(".switchboard/signals.md"), "the blocks are not: {screen}");

    // Only the session's own secret speaks for it.
    let forged = t.engine.session_tool(session.clone(), "guessed".into(), ToolCall::Hello { client: None }).await;
    assert_eq!(forged.unwrap_err().code(), ErrorCode::NotAllowed);
    let nobody = t.engine.session_tool(SessionId::new(), String::new(), ToolCall::Hello { client: None }).await;
    assert_eq!(nobody.unwrap_err().code(), ErrorCode::NotAllowed);
    t.engine.stop_session(session).await.unwrap();
}

/// The command line turns an agent's tools off and on again, and says so.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_command_line_keeps_an_agent_to_printed_blocks_and_back() {
    let t = TestEngine::start().await;
    let cwd = t.workspace.display().to_string();
    let add = ["agent", "add", "--name", "coder", "--command", "sh", "--kind", "claude-code", "--cwd", &cwd];
    let (code, _, err) = cli_async(&t, &[&add[..], &["--no-switchboard-tools"]].concat()).await;
    assert_eq!(code, std::process::ExitCode::SUCCESS, "{err}");
    let spec = |profiles: Vec<switchboard_core::Profile>| profiles.into_iter().next().unwrap().spec;
    assert!(!spec(t.engine.list_profiles().await.unwrap()).switchboard_tools);
    let (code, out, err) = cli_async(&t, &["agent", "edit", "coder", "--switchboard-tools", "on"]).await;
    assert_eq!(code, std::process::ExitCode::SUCCESS, "{err}");
    assert_eq!(out.trim(), "agent coder: tasks work in its folder; its CLI is given Switchboard's tools");
    assert!(spec(t.engine.list_profiles().await.unwrap()).switchboard_tools);
}
