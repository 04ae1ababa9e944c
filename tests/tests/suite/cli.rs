//! The command line as a client of a running engine over its socket, and
//! the socket's defences against bad input.

use crate::support;

use std::io::{BufRead, BufReader, Write};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::net::UnixStream;
use std::process::ExitCode;

use clap::Parser;
use support::*;
use switchboard_cli::{Cli, run};
use switchboard_core::{Submitted, TaskRecord, TaskState};

/// Runs a command line against the test engine; returns exit code, stdout, stderr.
fn cli(t: &TestEngine, line: &[&str]) -> (ExitCode, String, String) {
    let args = std::iter::once("switchboard").chain(line.iter().copied());
    let command = Cli::try_parse_from(args).unwrap().command.expect("a client command");
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let socket = switchboard_core::config::socket_path(&t.data_dir, None);
    let code = run(command, &socket, &mut out, &mut err);
    (code, String::from_utf8(out).unwrap(), String::from_utf8(err).unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scripts_add_agents_and_queue_tasks() {
    let t = TestEngine::start().await;
    let cwd = t.workspace.display().to_string();
    // A new agent starts from the app's settings.
    let settings = switchboard_api::Settings {
        default_task_time_limit_secs: 45 * 60,
        default_quiet_alert_secs: 0,
        ..Default::default()
    };
    t.engine.set_settings(settings).await.unwrap();
    let (code, out, err) = cli_async(
        &t,
        &[
            "agent",
            "add",
            "--name",
            "scripted",
            "--command",
            DEMO_AGENT,
            "--arg",
            "--speed",
            "--arg",
            "fast",
            "--cwd",
            &cwd,
        ],
    )
    .await;
    assert_eq!(code, ExitCode::SUCCESS, "{err}");
    assert!(out.starts_with("added agent scripted ("), "{out}");

    let (_, out, _) = cli_async(&t, &["agent", "list", "--json"]).await;
    let listed: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(listed[0]["name"], "scripted");
    assert_eq!(listed[0]["args"], serde_json::json!(["--speed", "fast"]));
    assert_eq!(
        (listed[0]["task_time_limit_secs"].as_u64(), listed[0]["quiet_alert_secs"].as_u64()),
        (Some(2700), Some(0))
    );

    let (code, out, err) =
        cli_async(&t, &["task", "add", "--agent", "scripted", "--json", "Write", "the", "notes"]).await;
    assert_eq!(code, ExitCode::SUCCESS, "{err}");
    let first: Submitted = serde_json::from_str(&out).unwrap();
    assert_eq!(first.task.spec.instruction, "Write the notes");
    let (_, out, _) = cli_async(&t, &["task", "add", "--agent", "scripted", "--priority", "urgent", "Second"]).await;
    assert!(out.starts_with("queued task ") || out.starts_with("task "), "{out}");

    // Both run; `task show` tells the result.
    let id = first.task.id.to_string();
    let mut shown = String::new();
    for _ in 0..200 {
        let (_, out, _) = cli_async(&t, &["task", "show", &id, "--json"]).await;
        let task: TaskRecord = serde_json::from_str(&out).unwrap();
        if task.state.is_finished() {
            assert_eq!(task.state, TaskState::Completed);
            shown = cli_async(&t, &["task", "show", &id]).await.1;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert!(shown.contains("state: completed") && shown.contains(&format!("summaries/{id}.md:")), "{shown}");

    let (_, out, _) = cli_async(&t, &["task", "list", "--agent", "scripted"]).await;
    assert_eq!(out.lines().count(), 2, "{out}");

    // Errors are clear and exit non-zero.
    let (code, _, err) = cli_async(&t, &["task", "add", "--agent", "nobody", "x"]).await;
    assert_eq!(code, ExitCode::from(1));
    assert!(err.contains("no agent named `nobody`"), "{err}");
    let (code, _, err) = cli_async(&t, &["task", "cancel", &id]).await;
    assert_eq!(code, ExitCode::from(1));
    assert!(err.contains("already finished"), "{err}");
    let (code, _, err) = cli_async(&t, &["task", "type-now", &id]).await;
    assert_eq!(code, ExitCode::from(1));
    assert!(err.contains("it has ended"), "{err}");
    let (code, _, err) = cli_async(&t, &["task", "show", "not-an-id"]).await;
    assert_eq!(code, ExitCode::from(1));
    assert!(err.contains("not a valid task id"), "{err}");
}

/// A task whose agent's summary says it failed reads `failed` in `task list`
/// and `task show`, with the agent's reason and its summary (issue 23: it
/// read `completed`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_its_agent_says_failed_is_failed_on_the_command_line_with_the_agents_reason() {
    let t = TestEngine::start().await;
    let cwd = t.workspace.display().to_string();
    let line = ["agent", "add", "--name", "gloomy", "--command", DEMO_AGENT, "--arg", "--status", "--arg", "failed"];
    let (code, _, err) =
        cli_async(&t, &[&line[..], &["--arg", "--speed", "--arg", "fast", "--cwd", &cwd]].concat()).await;
    assert_eq!(code, ExitCode::SUCCESS, "{err}");
    let (_, out, _) = cli_async(&t, &["task", "add", "--agent", "gloomy", "--json", "Rotate", "the", "keys"]).await;
    let submitted: Submitted = serde_json::from_str(&out).unwrap();
    let id = submitted.task.id.to_string();
    t.events
        .wait_for("the task to end", |events| {
            events.iter().find_map(|e| match e {
                switchboard_core::EngineEvent::TaskChanged { task } if task.id == submitted.task.id => {
                    task.state.is_finished().then_some(())
                }
                _ => None,
            })
        })
        .await;
    let (_, listed, _) = cli_async(&t, &["task", "list", "--agent", "gloomy"]).await;
    let row = listed.lines().find(|row| row.starts_with(&id)).unwrap_or_else(|| panic!("{listed}"));
    assert!(row.contains(" failed "), "{row}");
    let (_, shown, _) = cli_async(&t, &["task", "show", &id]).await;
    assert!(shown.contains("state: failed\n"), "{shown}");
    assert!(
        shown.contains("reason: the agent says it failed: the scripted demo agent was told to fail this task\n"),
        "{shown}"
    );
    assert!(shown.contains(&format!("summaries/{id}.md:")), "the summary is kept: {shown}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scripts_start_and_follow_loops() {
    let t = TestEngine::start().await;
    t.looping_profile("[{ say = \"tried another fix\" }, { exit = 0 }]").await;
    let (code, out, err) = cli_async(
        &t,
        &["loop", "start", "--agent", "looper", "--max", "2", "--stop-word", "SHIPPED", "Make", "the", "tests", "pass"],
    )
    .await;
    assert_eq!(code, ExitCode::SUCCESS, "{err}");
    let id = out.trim().to_owned();
    assert!(id.parse::<switchboard_core::LoopId>().is_ok(), "prints the loop id alone: {out}");

    // Two fresh iterations, then the cap ends it, with the reason named.
    let mut shown = serde_json::Value::Null;
    for _ in 0..400 {
        let (_, out, _) = cli_async(&t, &["loop", "show", &id, "--json"]).await;
        shown = serde_json::from_str(&out).unwrap();
        if shown["state"] != "active" {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert_eq!(shown["state"], "complete", "{shown:#}");
    assert_eq!(shown["iterations"], 2);
    assert_eq!(shown["max_iterations"], 2);
    assert_eq!(shown["stop_word"], "SHIPPED");
    assert!(shown["reason"].as_str().unwrap().contains("cap of 2 iterations"), "{shown:#}");
    assert_eq!(shown["history"][1]["verdict"], "complete");
    assert!(shown["history"][0]["stop_reason"].as_str().unwrap().contains("tried another fix"));

    let (_, out, _) = cli_async(&t, &["loop", "show", &id]).await;
    assert!(out.contains("state: complete") && out.contains("iterations: 2 of at most 2"), "{out}");
    let (_, out, _) = cli_async(&t, &["loop", "list"]).await;
    assert!(out.starts_with(&id) && out.contains("complete") && out.contains("looper"), "{out}");

    // Errors are clear and exit non-zero.
    let (code, _, err) = cli_async(&t, &["loop", "cancel", &id]).await;
    assert_eq!(code, ExitCode::from(1));
    assert!(err.contains("already ended"), "{err}");
    let (code, _, err) = cli_async(&t, &["loop", "resume", &id]).await;
    assert_eq!(code, ExitCode::from(1));
    assert!(err.contains("only a stalled loop, or one whose folder was gone, resumes"), "{err}");
    let (code, _, err) = cli_async(&t, &["loop", "start", "--agent", "looper", "--max", "0", "x"]).await;
    assert_eq!(code, ExitCode::from(1));
    assert!(err.contains("between 1 and 10,000"), "{err}");
    let (code, _, err) = cli_async(&t, &["loop", "show", "nope"]).await;
    assert_eq!(code, ExitCode::from(1));
    assert!(err.contains("switchboard loop list"), "{err}");
    // One loop per agent: a second is refused in words while the first is open.
    t.profile("sleeper", "sh", &["-c", "exec sleep 1000"]).await;
    let (code, _, err) = cli_async(&t, &["loop", "start", "--agent", "sleeper", "Make", "it", "green"]).await;
    assert_eq!(code, ExitCode::SUCCESS, "{err}");
    let (code, _, err) = cli_async(&t, &["loop", "start", "--agent", "sleeper", "Write", "the", "docs"]).await;
    assert_eq!(code, ExitCode::from(1));
    assert!(err.contains("sleeper already runs a loop: cancel it or let it end before starting another."), "{err}");

    // Where the agent stands in each diagram: the loop complete at its cap.
    let (code, out, err) = cli_async(&t, &["flow", "--agent", "looper"]).await;
    assert_eq!(code, ExitCode::SUCCESS, "{err}");
    let line = |name: &str| out.lines().find(|l| l.starts_with(name)).unwrap_or_default().to_owned();
    assert!(line("loop_mode").ends_with(" complete"), "{out}");
    assert!(line("stop_event").ends_with(" complete"), "{out}");
    assert_eq!(out.lines().count(), 12, "one line per diagram: {out}");
    // A plain command sends no hook events: its team diagrams say so.
    assert!(line("team_lead").ends_with("(nothing to show: it sends no hook events)"), "{out}");
    let (_, out, _) = cli_async(&t, &["flow", "--agent", "looper", "--json"]).await;
    let view: serde_json::Value = serde_json::from_str(&out).unwrap();
    let loop_mode = view["diagrams"].as_array().unwrap().iter().find(|d| d["diagram"] == "loop_mode").unwrap();
    assert_eq!(loop_mode["current"], serde_json::json!(["complete"]));

    // Its event log: one JSON line per entry, the loop's steps among them.
    let (code, out, err) = cli_async(&t, &["events", "--agent", "looper", "--json", "--since", "1h"]).await;
    assert_eq!(code, ExitCode::SUCCESS, "{err}");
    let entries: Vec<serde_json::Value> = out.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let steps: Vec<&str> =
        entries.iter().filter(|e| e["kind"] == "loop").map(|e| e["step"]["step"].as_str().unwrap()).collect();
    assert_eq!(steps, ["started", "iteration", "judged", "iteration", "judged"]);
    let (_, out, _) = cli_async(&t, &["events", "--agent", "looper"]).await;
    assert!(out.lines().any(|l| l.contains("loop") && l.contains("judged")), "{out}");
    let (_, out, _) = cli_async(&t, &["events", "--agent", "looper", "--since", "2999-01-01T00:00:00Z"]).await;
    assert!(out.trim().is_empty(), "nothing after then: {out}");
    let (code, _, err) = cli_async(&t, &["events", "--agent", "looper", "--since", "yesterday-ish"]).await;
    assert_eq!(code, ExitCode::from(1));
    assert!(err.contains("a span such as 10m"), "{err}");
    let (code, _, err) = cli_async(&t, &["flow", "--agent", "nobody"]).await;
    assert_eq!(code, ExitCode::from(1));
    assert!(err.contains("no agent named `nobody`"), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_no_app_running_the_command_line_says_so() {
    let temp = tempfile::tempdir().unwrap();
    let t = TestEngine::start_in(temp.path(), |_| {}).await;
    t.shutdown().await;
    let (code, out, err) = cli(&t, &["task", "list"]);
    assert_eq!(code, ExitCode::from(3));
    assert!(out.is_empty());
    assert!(err.contains("Switchboard is not running with this data directory"), "{err}");
}

/// Sends raw bytes, returns the first reply line ("" if the server hung up).
fn exchange(socket: &std::path::Path, request: &[u8]) -> String {
    let mut stream = UnixStream::connect(socket).unwrap();
    stream.write_all(request).ok();
    let mut reply = String::new();
    BufReader::new(&stream).read_line(&mut reply).ok();
    reply
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_socket_is_private_and_survives_bad_input() {
    let t = TestEngine::start().await;
    let socket = switchboard_core::config::socket_path(&t.data_dir, None);
    let mode = |path: &std::path::Path| std::fs::metadata(path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&socket), 0o600);
    assert_eq!(mode(socket.parent().unwrap()), 0o700);

    // The test body runs outside the engine's worker threads: blocking here is fine.
    let reply = exchange(&socket, b"{not json\n");
    assert!(reply.contains("\"invalid_input\"") && reply.contains("malformed request"), "{reply}");
    let unknown = exchange(&socket, b"{\"type\":\"command\",\"command\":{\"type\":\"format_disk\"}}\n");
    assert!(unknown.contains("malformed request"), "{unknown}");
    let mut huge = vec![b'x'; switchboard_core::server::MAX_LINE_BYTES + 10];
    huge.push(b'\n');
    let reply = exchange(&socket, &huge);
    assert!(reply.contains("longer than"), "{reply}");

    // Still serving.
    let (code, out, _) = cli_async(&t, &["agent", "list", "--json"]).await;
    assert_eq!(code, ExitCode::SUCCESS);
    assert_eq!(out.trim(), "[]");
}

/// Issue 22: `task show` passed a summary's escape sequences (a clipboard
/// write, a window title, a line erase) to the user's terminal.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn agent_text_reaches_the_terminal_escaped_and_json_keeps_it_exact() {
    let t = TestEngine::start().await;
    let spec = switchboard_core::ProfileSpec { ready_quiet_ms: 50, ..t.spec("printer", "cat", &[]) };
    let profile = t.engine.create_profile(spec).await.unwrap();
    let hostile = "\x1b]52;c;Y3VybCAtcyBldmlsIHwgc2g=\x07\x1b]0;pwned\x1b\\\x1b[2K\r\u{9b}31mred\u{202e}";
    let instruction = format!("Fix it{hostile}\nthen\ttest");
    let summary = format!("## Objective\nDone{hostile}\n## Status\nCOMPLETED\n\tindented line\n");
    let store = switchboard_core::store::Store::open(&t.data_dir.join("switchboard.db")).unwrap();
    let mut done = switchboard_core::TaskInfo::queued(
        switchboard_core::TaskId::new(),
        switchboard_core::TaskSpec::new(profile.id.clone(), instruction.clone()),
        0,
        1_000,
    );
    done.start(switchboard_core::SessionId::new(), 1_000);
    let result = switchboard_core::TaskResult {
        summary: switchboard_core::summary::parse_summary(&summary),
        fallback: false,
        artifacts: vec![switchboard_core::Artifact {
            path: format!("summaries/{}.md", done.id),
            content: summary.clone(),
            size: summary.len() as u64,
            truncated: false,
        }],
        rejected: vec![],
        results_json: None,
        errors: None,
    };
    done.end(TaskState::Failed, 2_000, Some(format!("the agent said{hostile}")), Some(result));
    store.save_task(&done).unwrap();
    drop(store);
    let id = done.id.to_string();

    for line in [&["task", "show", &id][..], &["task", "list"], &["events", "--agent", "printer"]] {
        let (code, out, err) = cli_async(&t, line).await;
        assert_eq!(code, ExitCode::SUCCESS, "{err}");
        let controls: Vec<char> = out.chars().filter(|c| c.is_control() && !matches!(c, '\n' | '\t')).collect();
        assert!(controls.is_empty(), "{line:?} printed {controls:?}:\n{out}");
        assert!(!out.contains('\u{202e}'), "{line:?} printed a reversal of the text's direction");
    }
    let (_, shown, _) = cli_async(&t, &["task", "show", &id]).await;
    assert!(shown.contains(r"Done\x1b]52;c;Y3VybCAtcyBldmlsIHwgc2g=\x07\x1b]0;pwned"), "the escape is shown: {shown}");
    assert!(shown.contains("  Fix it") && shown.contains("  then\ttest"), "an instruction keeps its lines: {shown}");
    assert!(shown.contains("  \tindented line"), "a summary keeps its lines and tabs: {shown}");
    assert!(shown.contains(r"reason: the agent said\x1b]52;"), "{shown}");

    let (_, json, _) = cli_async(&t, &["task", "show", &id, "--json"]).await;
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(json["instruction"], instruction.as_str(), "--json is exact");
    assert_eq!(json["result"]["artifacts"][0]["content"], summary.as_str(), "--json is exact");
}

/// Regression: `agent list` padded the kind alone, so names of other
/// lengths pushed the folders out of line.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lists_print_aligned_columns() {
    let t = TestEngine::start().await;
    t.profile("a", "sh", &[]).await;
    let spec = switchboard_core::ProfileSpec {
        kind: switchboard_core::AgentKind::ClaudeCode,
        ..t.spec("a much longer name, ünïcode", "sh", &[])
    };
    t.engine.create_profile(spec).await.unwrap();
    let (code, out, err) = cli_async(&t, &["agent", "list"]).await;
    assert_eq!(code, ExitCode::SUCCESS, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2, "{out}");
    let folder = t.workspace.display().to_string();
    // The folder starts at the same column (in characters) on every line.
    let column = |line: &str| line[..line.find(&folder).expect("the folder is listed")].chars().count();
    assert_eq!(column(lines[0]), column(lines[1]), "\n{out}");
    let name = |line: &str, name: &str| line[..line.find(name).expect("the name is listed")].chars().count();
    assert_eq!(name(lines[0], " a "), name(lines[1], " a much"), "\n{out}");
}

/// A writer whose reader has gone, as stdout is when `| head` stopped reading.
struct ClosedPipe;

impl Write for ClosedPipe {
    fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
        Err(std::io::Error::from(std::io::ErrorKind::BrokenPipe))
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Regression: `loop list | head` printed "Broken pipe (os error 32)".
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_closed_output_ends_every_command_quietly() {
    let t = TestEngine::start().await;
    let spec = switchboard_core::ProfileSpec { ready_pattern: Some(r"\$ $".into()), ..t.spec("piped", "sh", &[]) };
    let profile = t.engine.create_profile(spec).await.unwrap();
    t.engine.submit_task(switchboard_core::TaskSpec::new(profile.id.clone(), "Say hello")).await.unwrap();
    let settings = switchboard_core::loops::LoopSettings::new("Keep saying hello");
    t.engine.start_loop(profile.id.clone(), settings).await.unwrap();
    let data_dir = t.data_dir.clone();
    let lines: [&[&str]; 6] = [
        &["agent", "list"],
        &["agent", "list", "--json"],
        &["task", "list"],
        &["loop", "list"],
        &["events", "--agent", "piped"],
        &["events", "--agent", "piped", "--json"],
    ];
    for line in lines {
        let line: Vec<String> = line.iter().map(|s| s.to_string()).collect();
        let data_dir = data_dir.clone();
        let (code, err) = tokio::task::spawn_blocking(move || {
            let command = Cli::try_parse_from(std::iter::once("switchboard".to_owned()).chain(line)).unwrap().command;
            let socket = switchboard_core::config::socket_path(&data_dir, None);
            let mut err = Vec::new();
            let code = run(command.expect("a client command"), &socket, &mut ClosedPipe, &mut err);
            (code, String::from_utf8(err).unwrap())
        })
        .await
        .unwrap();
        assert_eq!(code, ExitCode::from(switchboard_cli::EXIT_OUTPUT_CLOSED));
        assert_eq!(err, "", "nothing is said to no one");
    }
    // `scan` too.
    let input: &[u8] = b"[STOP_WORK]\nblocker_type: x\ndetails: y\n[/STOP_WORK]\n";
    let code = switchboard_cli::scan_input(input, &mut ClosedPipe, &mut Vec::new());
    assert_eq!(code, ExitCode::from(switchboard_cli::EXIT_OUTPUT_CLOSED));
    // The app's own refusals still speak.
    let (code, _, err) = cli_async(&t, &["task", "show", "not-an-id"]).await;
    assert_eq!(code, ExitCode::from(1));
    assert!(err.contains("not a valid task id"), "{err}");
}

/// Regression: `loop list` printed a loop that failed to start as
/// `failed_to_start`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_loop_that_failed_to_start_reads_in_words() {
    let t = TestEngine::start().await;
    let spec = switchboard_core::ProfileSpec {
        ready_pattern: Some("agent> $".into()),
        ready_quiet_ms: 50,
        ..t.spec("keyless", "sh", &["-c", "echo 'no API key set'; exit 3"])
    };
    let profile = t.engine.create_profile(spec).await.unwrap();
    let settings = switchboard_core::loops::LoopSettings::new("Make the tests pass");
    let started = t.engine.start_loop(profile.id.clone(), settings).await.unwrap();
    t.events
        .wait_for("the loop to end", |events| {
            events.iter().any(|e| {
                matches!(e, switchboard_core::EngineEvent::LoopChanged { info } if info.id == started.id && !info.is_active())
            })
            .then_some(())
        })
        .await;
    let (_, out, _) = cli_async(&t, &["loop", "list"]).await;
    assert!(out.contains(" failed to start ") && !out.contains("failed_to_start"), "{out}");
    let (_, out, _) = cli_async(&t, &["loop", "show", &started.id.to_string()]).await;
    assert!(out.contains("state: failed to start") && out.contains("#1   failed to start"), "{out}");
    assert!(!out.contains("failed_") && !out.contains("failed start"), "{out}");
    let (_, json, _) = cli_async(&t, &["loop", "list", "--json"]).await;
    assert!(json.contains("\"state\": \"failed_to_start\""), "--json keeps the name: {json}");
}

/// `agent list` says each agent's state in the words of the one attention
/// the window and the tray read: a task that failed, an agent never started.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn agent_list_says_each_agents_state_as_the_window_does() {
    let t = TestEngine::start().await;
    let crashy = t.profile("crashy", "sh", &["-c", "printf 'crashy> '; sleep 0.2; exit 3"]).await;
    t.profile("unused", "sh", &[]).await;
    let task = t
        .engine
        .submit_task(switchboard_core::TaskSpec::new(crashy.id.clone(), "Rebuild the index"))
        .await
        .unwrap()
        .task;
    t.events
        .wait_for("the task to fail", |events| {
            events.iter().find_map(|e| match e {
                switchboard_core::EngineEvent::TaskChanged { task: changed }
                    if changed.id == task.id && changed.state == TaskState::Failed =>
                {
                    Some(())
                }
                _ => None,
            })
        })
        .await;
    let (code, out, err) = cli_async(&t, &["agent", "list"]).await;
    assert_eq!(code, ExitCode::SUCCESS, "{err}");
    let line = |name: &str| {
        out.lines().find(|l| l.contains(name)).unwrap_or_else(|| panic!("{name} listed:\n{out}")).to_owned()
    };
    assert!(line("crashy").contains("task failed"), "{out}");
    assert!(line("unused").contains("not started"), "{out}");
}
