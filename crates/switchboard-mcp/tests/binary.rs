//! The server binary as a CLI starts it: JSON-RPC lines on its standard
//! input and output. Without its session, or with the engine down, every
//! call is answered at once with a tool error the model can act on.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

use serde_json::{Value, json};

/// Starts the server with `env` (and nothing else of the test's), says
/// hello, makes `calls`, and returns each answer.
fn session(env: &[(&str, &str)], calls: &[(&str, Value)]) -> Vec<Value> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_switchboard-mcp"))
        .env_clear()
        .envs(env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut to = child.stdin.take().unwrap();
    let mut from = BufReader::new(child.stdout.take().unwrap());
    let mut answers = Vec::new();
    let hello = json!({"protocolVersion": "2025-06-18", "capabilities": {},
                       "clientInfo": {"name": "test-cli", "version": "1"}});
    let mut all = vec![("initialize", hello)];
    all.extend(calls.iter().cloned());
    for (id, (method, params)) in all.into_iter().enumerate() {
        writeln!(to, "{}", json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})).unwrap();
        if id == 0 {
            writeln!(to, "{}", json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).unwrap();
        }
        let mut line = String::new();
        from.read_line(&mut line).unwrap();
        answers.push(serde_json::from_str::<Value>(&line).unwrap());
    }
    drop(to);
    assert!(child.wait().unwrap().success(), "the server ends when its CLI closes its input");
    answers
}

fn text(answer: &Value) -> &str {
    answer["result"]["content"][0]["text"].as_str().unwrap_or_default()
}

#[test]
fn without_a_session_the_tools_are_listed_and_each_call_says_nothing_was_recorded() {
    let ask = json!({"name": "ask_user", "arguments": {"questions": ["Which?"]}});
    let answers = session(&[], &[("tools/list", json!({})), ("tools/call", ask)]);
    assert_eq!(answers[0]["result"]["serverInfo"]["name"], "switchboard");
    assert!(answers[0]["result"]["instructions"].as_str().unwrap().contains("ask_user"));
    let tools: Vec<&str> =
        answers[1]["result"]["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(
        tools,
        ["ask_user", "report_blocker", "request_delegation", "report_completion", "add_finding", "current_task"]
    );
    assert_eq!(answers[2]["result"]["isError"], true);
    assert!(text(&answers[2]).contains("SWITCHBOARD_SESSION_ID is not in this server's environment"), "{}", answers[2]);
}

#[test]
fn with_the_engine_down_a_call_says_so_and_what_to_do_instead() {
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join("engine.socket");
    let env = [
        ("SWITCHBOARD_SESSION_ID", "0b6f8a3e-5d1c-4f3a-9a63-0a1b2c3d4e5f"),
        ("SWITCHBOARD_SESSION_SECRET", "k"),
        ("SWITCHBOARD_SOCKET", socket.to_str().unwrap()),
    ];
    let report = json!({"name": "report_completion", "arguments": {"status": "success"}});
    let answers = session(&env, &[("tools/call", report)]);
    assert_eq!(answers[1]["result"]["isError"], true);
    let said = text(&answers[1]);
    assert!(said.starts_with("Switchboard is not running, so nothing was recorded."), "{said}");
    assert!(said.contains(".switchboard/signals.md"), "{said}");
}
