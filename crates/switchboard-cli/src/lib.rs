//! The `switchboard` command line. With no subcommand the binary opens the
//! app; with one it is a client of the app already running on the data
//! directory, reached over the engine's local socket, so scripts can add
//! agents and queue tasks:
//!
//! ```text
//! switchboard agent add --name N --command CMD [--cwd DIR] [--kind K] [--arg A]...
//! switchboard agent list
//! switchboard task add --agent N [--priority urgent] [--time-limit SECS] TEXT...
//! switchboard task list [--agent N]
//! switchboard task show ID
//! switchboard task cancel ID
//! ```
//!
//! `--json` prints machine-readable output. Exit codes: 0 done, 1 the app
//! refused or failed, 2 bad usage, 3 no app running.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{Args, Parser, Subcommand, ValueEnum};
use switchboard_core::client::{self, ClientError};
use switchboard_core::config::{resolve_data_dir, socket_path};
use switchboard_core::signal::{ScanEvent, SignalScanner};
use switchboard_core::{AgentKind, Priority, Profile, ProfileId, ProfileSpec, Submitted, TaskId, TaskInfo, TaskSpec};

#[derive(Parser, Debug)]
#[command(name = "switchboard", version, about = "A control room for command-line coding agents")]
pub struct Cli {
    /// Where the database and the demo workspace live. Overrides
    /// SWITCHBOARD_DATA_DIR; the default is $XDG_DATA_HOME/switchboard.
    #[arg(long, value_name = "DIR", global = true)]
    pub data_dir: Option<PathBuf>,
    /// Do not create the demo workspace and profile on first start.
    #[arg(long)]
    pub no_demo: bool,
    #[command(subcommand)]
    pub command: Option<ClientCommand>,
}

#[derive(Subcommand, Debug)]
pub enum ClientCommand {
    /// Agent profiles of the running app.
    #[command(subcommand)]
    Agent(AgentCommand),
    /// Tasks of the running app.
    #[command(subcommand)]
    Task(TaskCommand),
    /// Reads agent output on stdin and prints each protocol signal found in
    /// it as one JSON line; needs no running app. Exits 1 if a signal was
    /// malformed.
    Scan,
}

#[derive(Subcommand, Debug)]
pub enum AgentCommand {
    /// Adds an agent profile.
    Add {
        #[arg(long)]
        name: String,
        /// The program to run (on PATH, or a path).
        #[arg(long)]
        command: String,
        /// An argument for the program; repeat for several.
        #[arg(long = "arg", value_name = "ARG", allow_hyphen_values = true)]
        args: Vec<String>,
        /// The agent's workspace; the current directory by default.
        #[arg(long)]
        cwd: Option<PathBuf>,
        #[arg(long, value_enum, default_value = "generic")]
        kind: Kind,
        #[command(flatten)]
        output: Output,
    },
    /// Lists the agent profiles.
    List {
        #[command(flatten)]
        output: Output,
    },
}

#[derive(Subcommand, Debug)]
pub enum TaskCommand {
    /// Queues a task for an agent.
    Add {
        /// The agent's name (or profile id).
        #[arg(long)]
        agent: String,
        #[arg(long, value_enum, default_value = "normal")]
        priority: PriorityArg,
        /// Seconds; the agent's default when left out.
        #[arg(long, value_name = "SECS")]
        time_limit: Option<u32>,
        /// What to do. Several words are joined with spaces.
        #[arg(required = true)]
        text: Vec<String>,
        #[command(flatten)]
        output: Output,
    },
    /// Lists queued, running and recent tasks.
    List {
        #[arg(long)]
        agent: Option<String>,
        #[command(flatten)]
        output: Output,
    },
    /// Shows a task and its result.
    Show {
        id: String,
        #[command(flatten)]
        output: Output,
    },
    /// Cancels a queued or running task.
    Cancel {
        id: String,
        #[command(flatten)]
        output: Output,
    },
}

#[derive(Args, Debug, Clone, Copy)]
pub struct Output {
    /// Print machine-readable JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(ValueEnum, Debug, Clone, Copy)]
pub enum Kind {
    Generic,
    ClaudeCode,
    Codex,
}

#[derive(ValueEnum, Debug, Clone, Copy)]
pub enum PriorityArg {
    Urgent,
    Normal,
}

/// Exit code: the app refused the request or it failed.
pub const EXIT_FAILED: u8 = 1;
/// Exit code: no app is running on the data directory.
pub const EXIT_NOT_RUNNING: u8 = 3;

/// Where the running app's socket is for this command line.
pub fn socket_for(data_dir: Option<&Path>) -> Result<PathBuf> {
    let env = |name| std::env::var(name).ok();
    let data_dir = resolve_data_dir(
        data_dir,
        env("SWITCHBOARD_DATA_DIR").as_deref(),
        env("XDG_DATA_HOME").as_deref(),
        env("HOME").as_deref(),
    )
    .context("cannot tell where the app keeps its data: pass --data-dir or set SWITCHBOARD_DATA_DIR")?;
    let data_dir = std::path::absolute(&data_dir).context("resolving the data directory")?;
    Ok(socket_path(&data_dir, std::env::var_os("XDG_RUNTIME_DIR").map(PathBuf::from).as_deref()))
}

/// Runs a client command against the app listening on `socket`, printing
/// to `out` (results) and `err` (errors).
pub fn run(command: ClientCommand, socket: &Path, out: &mut impl Write, err: &mut impl Write) -> ExitCode {
    match execute(command, socket, out) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            let code = match error.downcast_ref::<ClientError>() {
                Some(ClientError::NotRunning(_)) => EXIT_NOT_RUNNING,
                _ => EXIT_FAILED,
            };
            writeln!(err, "switchboard: {error:#}").ok();
            ExitCode::from(code)
        }
    }
}

fn execute(command: ClientCommand, socket: &Path, out: &mut impl Write) -> Result<()> {
    let client = client::Client::new(socket);
    match command {
        ClientCommand::Scan => anyhow::bail!("`scan` reads its input: use `scan_input`"),
        ClientCommand::Agent(AgentCommand::Add { name, command, args, cwd, kind, output }) => {
            let cwd = match cwd {
                Some(dir) => std::path::absolute(dir)?,
                None => std::env::current_dir().context("the current directory")?,
            };
            let kind = match kind {
                Kind::Generic => AgentKind::Generic,
                Kind::ClaudeCode => AgentKind::ClaudeCode,
                Kind::Codex => AgentKind::Codex,
            };
            let spec =
                ProfileSpec { name, command, args, cwd: cwd.display().to_string(), kind, ..ProfileSpec::default() };
            let profile = client.create_profile(spec)?;
            print(out, output, &profile, |p| format!("added agent {} ({})", p.spec.name, p.id))
        }
        ClientCommand::Agent(AgentCommand::List { output }) => {
            let profiles = client.list_profiles()?;
            print(out, output, &profiles, |profiles| {
                profiles
                    .iter()
                    .map(|p| format!("{}  {:<12} {}  {}", p.id, p.spec.kind.as_str(), p.spec.name, p.spec.cwd))
                    .collect::<Vec<_>>()
                    .join("\n")
            })
        }
        ClientCommand::Task(TaskCommand::Add { agent, priority, time_limit, text, output }) => {
            let profile = find_agent(&client, &agent)?;
            let priority = match priority {
                PriorityArg::Urgent => Priority::Urgent,
                PriorityArg::Normal => Priority::Normal,
            };
            let spec =
                TaskSpec { priority, time_limit_secs: time_limit, ..TaskSpec::new(profile.id.clone(), text.join(" ")) };
            let submitted = client.submit_task(spec)?;
            print(out, output, &submitted, |s| submitted_line(s, &profile.spec.name))
        }
        ClientCommand::Task(TaskCommand::List { agent, output }) => {
            let profiles = client.list_profiles()?;
            let profile_id = agent.map(|name| find_in(&profiles, &name).map(|p| p.id.clone())).transpose()?;
            let mut tasks = client.list_tasks(profile_id)?;
            tasks
                .sort_by_key(|t| (t.state().is_finished(), t.ended_at().unwrap_or(i64::MAX), t.spec.priority, t.order));
            print(out, output, &tasks, |tasks| {
                tasks
                    .iter()
                    .map(|t| {
                        let name = profiles.iter().find(|p| p.id == t.spec.profile_id).map_or("?", |p| &p.spec.name);
                        format!(
                            "{}  {:<11} {:<6} {:<16} {}",
                            t.id,
                            t.state().as_str(),
                            t.spec.priority.as_str(),
                            name,
                            first_line(&t.spec.instruction, 60)
                        )
                    })
                    .collect::<Vec<_>>()
                    .join("\n")
            })
        }
        ClientCommand::Task(TaskCommand::Show { id, output }) => {
            let task_id = parse_task_id(&id)?;
            let task = client.get_task(task_id)?;
            print(out, output, &task, describe_task)
        }
        ClientCommand::Task(TaskCommand::Cancel { id, output }) => {
            let task_id = parse_task_id(&id)?;
            let task = client.cancel_task(task_id)?;
            print(out, output, &task, |t| format!("cancelled task {}", t.id))
        }
    }
}

/// `switchboard scan`: every signal in `input`, one JSON line each, as soon
/// as its block closes: `{"kind", "malformed", "fields" | "reason", "raw"}`.
pub fn scan_input(mut input: impl Read, out: &mut impl Write, err: &mut impl Write) -> ExitCode {
    let mut scanner = SignalScanner::new();
    let mut buf = vec![0u8; 16 * 1024];
    let mut malformed = false;
    let mut print = |event: ScanEvent, out: &mut dyn Write| -> std::io::Result<()> {
        malformed |= matches!(event, ScanEvent::Malformed { .. });
        writeln!(out, "{}", scan_line(&event))?;
        out.flush()
    };
    loop {
        let read = match input.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(error) => {
                writeln!(err, "switchboard: reading the input: {error}").ok();
                return ExitCode::from(EXIT_FAILED);
            }
        };
        for event in scanner.feed(&buf[..read]) {
            if print(event, out).is_err() {
                return ExitCode::from(EXIT_FAILED);
            }
        }
    }
    if let Some(event) = scanner.finish()
        && print(event, out).is_err()
    {
        return ExitCode::from(EXIT_FAILED);
    }
    if malformed { ExitCode::from(EXIT_FAILED) } else { ExitCode::SUCCESS }
}

/// One found signal as `switchboard scan` prints it.
pub fn scan_line(event: &ScanEvent) -> serde_json::Value {
    match event {
        ScanEvent::Signal { signal } => {
            let mut fields = serde_json::to_value(&signal.body).expect("signals serialize");
            if let serde_json::Value::Object(map) = &mut fields {
                map.remove("kind");
                map.insert("agent_id".into(), signal.agent_id.clone().into());
                map.insert("timestamp".into(), signal.timestamp.clone().into());
                for (key, value) in &signal.extra {
                    map.entry(key.clone()).or_insert_with(|| value.clone());
                }
            }
            serde_json::json!({
                "kind": signal.body.kind(),
                "malformed": false,
                "fields": fields,
                "raw": signal.raw,
            })
        }
        ScanEvent::Malformed { kind, reason, raw } => serde_json::json!({
            "kind": kind,
            "malformed": true,
            "reason": reason,
            "raw": raw,
        }),
    }
}

fn find_agent(client: &client::Client, name: &str) -> Result<Profile> {
    let profiles = client.list_profiles()?;
    find_in(&profiles, name).cloned()
}

fn find_in<'a>(profiles: &'a [Profile], name: &str) -> Result<&'a Profile> {
    let by_id = name.parse::<ProfileId>().ok();
    profiles
        .iter()
        .find(|p| p.spec.name == name || by_id.as_ref() == Some(&p.id))
        .with_context(|| format!("no agent named `{name}` (see `switchboard agent list`)"))
}

fn parse_task_id(text: &str) -> Result<TaskId> {
    text.parse().map_err(|e| anyhow::anyhow!("{e}: pass the full id that `switchboard task list` prints"))
}

fn print<T: serde::Serialize>(
    out: &mut impl Write,
    output: Output,
    value: &T,
    human: impl FnOnce(&T) -> String,
) -> Result<()> {
    if output.json {
        serde_json::to_writer_pretty(&mut *out, value)?;
        writeln!(out)?;
    } else {
        let text = human(value);
        if !text.is_empty() {
            writeln!(out, "{text}")?;
        }
    }
    Ok(())
}

/// "queued task … for N (position 2, waiting for task …)" or "started …".
pub fn submitted_line(submitted: &Submitted, agent: &str) -> String {
    let id = &submitted.task.id;
    match (submitted.position, &submitted.waiting_for) {
        (Some(position), Some(busy)) => {
            format!("queued task {id} for {agent} (position {position}, waiting for task {busy})")
        }
        (Some(position), None) => format!("queued task {id} for {agent} (position {position}; the queue is paused)"),
        (None, _) => format!("task {id} is {} on {agent}", submitted.task.state().as_str()),
    }
}

fn first_line(text: &str, max: usize) -> String {
    let line = text.lines().next().unwrap_or_default();
    if line.chars().count() > max {
        format!("{}…", line.chars().take(max - 1).collect::<String>())
    } else {
        line.into()
    }
}

/// The human form of `task show`.
pub fn describe_task(task: &TaskInfo) -> String {
    let mut text = format!(
        "task {}\nstate: {}\npriority: {}\ntime limit: {} s\ninstruction:\n{}\n",
        task.id,
        task.state().as_str(),
        task.spec.priority.as_str(),
        task.spec.time_limit_secs.unwrap_or_default(),
        indent(&task.spec.instruction)
    );
    if let Some(reason) = task.reason() {
        text.push_str(&format!("reason: {reason}\n"));
    }
    if let Some(progress) = task.progress() {
        text.push_str(&format!("progress:\n{}\n", indent(progress)));
    }
    if let Some(result) = task.result() {
        if result.fallback {
            text.push_str("summary: (fallback — the agent wrote none)\n");
        }
        // The summary comes first, then the deliverables.
        if let Some((summary, deliverables)) = result.artifacts.split_first() {
            text.push_str(&format!("{}:\n{}\n", summary.path, indent(&summary.content)));
            for artifact in deliverables {
                let cut = if artifact.truncated { ", cut" } else { "" };
                text.push_str(&format!("artifact: {} ({} bytes{cut})\n", artifact.path, artifact.size));
            }
        }
        for rejected in &result.rejected {
            text.push_str(&format!("refused: {} ({})\n", rejected.path, rejected.reason));
        }
    }
    text.trim_end().to_owned()
}

fn indent(text: &str) -> String {
    text.lines().map(|line| format!("  {line}")).collect::<Vec<_>>().join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_documented_commands() {
        let parse = |line: &str| Cli::try_parse_from(line.split_whitespace());
        let cli =
            parse("switchboard --data-dir /d task add --agent demo --priority urgent fix the bug --json").unwrap();
        assert_eq!(cli.data_dir.as_deref(), Some(Path::new("/d")));
        match cli.command {
            Some(ClientCommand::Task(TaskCommand::Add { agent, priority, text, output, .. })) => {
                assert_eq!(agent, "demo");
                assert!(matches!(priority, PriorityArg::Urgent));
                assert_eq!(text, ["fix", "the", "bug"]);
                assert!(output.json);
            }
            other => panic!("{other:?}"),
        }
        assert!(parse("switchboard agent add --name n --command sh --arg -c --arg ls --kind claude-code").is_ok());
        assert!(parse("switchboard task list --agent demo").is_ok());
        assert!(parse("switchboard").unwrap().command.is_none());
        assert!(parse("switchboard --no-demo").is_ok());
        assert!(parse("switchboard task add --agent demo").is_err(), "a task needs text");
        assert!(parse("switchboard task add --agent a --priority high x").is_err());
    }

    #[test]
    fn scan_prints_one_json_line_per_signal() {
        let input = "working\r\n\x1b[33m[DELEGATE_WORK]\x1b[0m\r\nagent_id: a1\r\nnew_task_description: \"tests\"\r\nextra_field: 3\r\n[/DELEGATE_WORK]\r\n[STOP_WORK]\nnot: [yaml\n[/STOP_WORK]\n";
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let code = scan_input(input.as_bytes(), &mut out, &mut err);
        assert_eq!(code, ExitCode::from(EXIT_FAILED), "a malformed block makes the exit code 1");
        let lines: Vec<serde_json::Value> =
            String::from_utf8(out).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0]["kind"], "delegate");
        assert_eq!(lines[0]["malformed"], false);
        assert_eq!(lines[0]["fields"]["agent_id"], "a1");
        assert_eq!(lines[0]["fields"]["new_task_description"], "tests");
        assert_eq!(lines[0]["fields"]["independence"], "can_proceed_parallel");
        assert_eq!(lines[0]["fields"]["extra_field"], 3);
        assert_eq!(lines[1]["kind"], "stop_work");
        assert_eq!(lines[1]["malformed"], true);
        assert!(lines[1]["reason"].as_str().unwrap().contains("YAML"));
        assert_eq!(lines[1]["raw"], "\nnot: [yaml\n");

        let (mut out, mut err) = (Vec::new(), Vec::new());
        assert_eq!(scan_input("nothing to see\n".as_bytes(), &mut out, &mut err), ExitCode::SUCCESS);
        assert!(out.is_empty());
    }

    #[test]
    fn no_app_running_is_a_clear_error_and_exit_code_3() {
        let dir = std::env::temp_dir().join(format!("switchboard-cli-test-{}", std::process::id()));
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let code = run(
            ClientCommand::Agent(AgentCommand::List { output: Output { json: false } }),
            &dir.join("none.sock"),
            &mut out,
            &mut err,
        );
        assert_eq!(code, ExitCode::from(EXIT_NOT_RUNNING));
        let err = String::from_utf8(err).unwrap();
        assert!(err.contains("Switchboard is not running"), "{err}");
        assert!(out.is_empty());
    }
}
