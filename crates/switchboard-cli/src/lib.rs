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
//! switchboard loop start --agent N [--max N] [--stop-word W] [--promise TEXT] [--stall-after N] GOAL...
//! switchboard loop list
//! switchboard loop show ID
//! switchboard loop cancel ID
//! switchboard loop resume ID
//! switchboard flow --agent N
//! switchboard events --agent N [--since TIME] [--limit N]
//! ```
//!
//! `--json` prints machine-readable output, exactly as the app holds it.
//! What is printed for a person passes through [`shown`]: agents write much
//! of it, and their escape sequences are shown escaped, never run by the
//! terminal. Exit codes: 0 done, 1 the app refused or failed, 2 bad usage,
//! 3 no app running, 141 its output was closed (`switchboard loop list |
//! head`: it stops quietly, with the status of a tool a closed pipe ended).

pub mod daemon;
pub mod hosts;
pub mod install;
pub mod notices;
pub mod notifications;
pub mod on_host;
pub mod webview;
pub mod window;

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{Args, Parser, Subcommand, ValueEnum};
use switchboard_client::ClientError;
use switchboard_client::blocking as client;
use switchboard_core::config::resolve_data_dir;
use switchboard_core::loops::{LoopSettings, Verdict};
use switchboard_core::signal::{ScanEvent, SignalScanner};
use switchboard_core::{
    AgentKind, DiagramSilence, FlowTarget, Iteration, IterationOutcome, LogEntry, LogKind, LoopId, LoopInfo, Priority,
    Profile, ProfileId, ProfileSpec, Submitted, TaskId, TaskInfo, TaskSpec,
};

#[derive(Parser, Debug)]
#[command(name = "switchboard", version, about = "A control room for command-line coding agents")]
pub struct Cli {
    /// Where the database and the demo workspace live. Overrides
    /// SWITCHBOARD_DATA_DIR; the default is $XDG_DATA_HOME/switchboard.
    #[arg(long, value_name = "DIR", global = true)]
    pub data_dir: Option<PathBuf>,
    /// Do not create the demo workspace and profile on first start.
    #[arg(long, global = true)]
    pub no_demo: bool,
    /// Opens the window on a task, a question, a loop or an agent once it
    /// has loaded: task:ID, signal:ID, loop:ID (what a notification the
    /// daemon showed opens when clicked) or agent:ID; a window already open
    /// on the data directory comes forward on it. Only without a subcommand.
    #[arg(long, value_name = "TARGET")]
    pub open: Option<switchboard_api::OpenTarget>,
    /// Runs the command against the engine on another machine, reached over
    /// SSH: a host of `switchboard host list`, or any destination ssh takes
    /// (user@host, an alias of your ssh config).
    #[arg(long, value_name = "DEST", global = true)]
    pub host: Option<String>,
    #[command(subcommand)]
    pub command: Option<ClientCommand>,
}

impl Cli {
    /// Reads the command line; a usage error says what is wrong, and exits
    /// with status 2.
    pub fn from_args() -> Cli {
        let cli = Cli::parse();
        if let Err(error) = cli.check() {
            error.exit();
        }
        cli
    }

    /// What clap cannot say of the arguments: `--open` opens the window,
    /// which a subcommand does not.
    fn check(&self) -> Result<(), clap::Error> {
        if self.open.is_some() && self.command.is_some() {
            use clap::CommandFactory;
            let why = "--open opens the window on what it names; it goes without a subcommand";
            return Err(Cli::command().error(clap::error::ErrorKind::ArgumentConflict, why));
        }
        Ok(())
    }
}

#[derive(Subcommand, Debug)]
pub enum ClientCommand {
    /// Runs the engine alone on the data directory, with no window, until it
    /// is asked to stop; its agents, queues and loops go on without the app.
    /// With --status: whether an engine runs there. With --stop: stop it.
    /// With --install: start it at each login (a systemd user service);
    /// --uninstall removes that service.
    Daemon(DaemonArgs),
    /// Other machines whose engines this one reaches over SSH: add (checked
    /// first), list (each one's state), remove.
    #[command(subcommand)]
    Host(hosts::HostCommand),
    /// Agent profiles of the running app.
    #[command(subcommand)]
    Agent(AgentCommand),
    /// Tasks of the running app.
    #[command(subcommand)]
    Task(TaskCommand),
    /// Loops: an agent's fresh sessions toward one goal until it is done.
    #[command(subcommand)]
    Loop(LoopCommand),
    /// Worktrees: where agents that work apart made their changes, and the
    /// review of them (diff, merge, discard).
    #[command(subcommand)]
    Worktree(WorktreeCommand),
    /// Where an agent stands in each of the spec's diagrams: each diagram's
    /// id and the node or nodes lit now.
    Flow {
        /// The agent's name (or profile id).
        #[arg(long)]
        agent: String,
        #[command(flatten)]
        output: Output,
    },
    /// An agent's event log, oldest first: hook events, signals, task and
    /// loop steps.
    Events {
        /// The agent's name (or profile id).
        #[arg(long)]
        agent: String,
        /// Only events from then on: a time (2026-11-23T14:00:00Z) or a
        /// span back from now (30s, 10m, 2h, 1d).
        #[arg(long, value_name = "TIME")]
        since: Option<String>,
        /// The most recent this many (1000 when left out).
        #[arg(long, value_name = "N", default_value_t = 1000)]
        limit: u32,
        #[command(flatten)]
        output: Output,
    },
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
        /// Where its tasks work: in its folder, or each in a git worktree of
        /// its own (the folder must be in a git repository).
        #[arg(long, value_enum, default_value = "none")]
        isolation: IsolationArg,
        /// The account its CLI works under: agents of one account reach its
        /// usage limit together (the CLI's own sign-in when left out).
        #[arg(long)]
        account: Option<String>,
        #[command(flatten)]
        output: Output,
    },
    /// Changes where an agent's tasks work.
    Edit {
        /// The agent's name (or profile id).
        agent: String,
        #[arg(long, value_enum)]
        isolation: Option<IsolationArg>,
        /// The command run in each new worktree of the agent's repository
        /// (an empty one: nothing runs).
        #[arg(long, value_name = "COMMAND")]
        setup_command: Option<String>,
        /// The account its CLI works under (an empty one: the CLI's own sign-in).
        #[arg(long)]
        account: Option<String>,
        #[command(flatten)]
        output: Output,
    },
    /// Has an agent held back by its account's usage limit (or its model's
    /// service) go on now, without waiting for the reset.
    Resume {
        /// The agent's name (or profile id).
        agent: String,
        #[command(flatten)]
        output: Output,
    },
    /// Lists the agent profiles, with each one's state and its account's
    /// usage limit (`limited`, `limited_until`: null when the reset is not
    /// known).
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
        /// For an agent that works in worktrees: the branch the task's
        /// worktree is made from (the branch checked out in its folder when
        /// left out), which a merge lands on.
        #[arg(long, value_name = "BRANCH")]
        base: Option<String>,
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
    /// Types a task its agent took but is not ready for into it now,
    /// whatever its readiness says (its prompt is there, the ready pattern
    /// does not see it).
    TypeNow {
        id: String,
        #[command(flatten)]
        output: Output,
    },
}

#[derive(Subcommand, Debug)]
pub enum LoopCommand {
    /// Starts a loop on an agent and prints its id. Each iteration is a
    /// fresh session typed a short prompt naming the loop's files.
    Start {
        /// The agent's name (or profile id).
        #[arg(long)]
        agent: String,
        /// The most iterations it runs (10 when left out).
        #[arg(long, value_name = "N")]
        max: Option<u32>,
        /// The word that, on a line of its own in `.switchboard/progress.md`,
        /// ends the loop (LOOP_COMPLETE when left out).
        #[arg(long, value_name = "WORD")]
        stop_word: Option<String>,
        /// `<promise>TEXT</promise>` in the agent's last message ends the loop.
        #[arg(long, value_name = "TEXT")]
        promise: Option<String>,
        /// This many identical stop reasons in a row stall it (5 when left out).
        #[arg(long, value_name = "N")]
        stall_after: Option<u32>,
        /// Seconds each iteration may run; the agent's task time limit when left out.
        #[arg(long, value_name = "SECS")]
        time_limit: Option<u32>,
        /// What the loop works toward. Several words are joined with spaces.
        #[arg(required = true)]
        goal: Vec<String>,
        #[command(flatten)]
        output: Output,
    },
    /// Lists active, stalled and recent loops.
    List {
        #[command(flatten)]
        output: Output,
    },
    /// Shows a loop and its iterations.
    Show {
        id: String,
        #[command(flatten)]
        output: Output,
    },
    /// Cancels an active or stalled loop, and its iteration at work.
    Cancel {
        id: String,
        #[command(flatten)]
        output: Output,
    },
    /// Resumes a stalled loop (after editing its anchor or guardrails, say).
    Resume {
        id: String,
        #[command(flatten)]
        output: Output,
    },
}

#[derive(Subcommand, Debug)]
pub enum WorktreeCommand {
    /// Lists the worktrees the app made: open ones, then recent merged and
    /// discarded ones, each with its task, agent, branch, state, the number
    /// of files it changed and the worktrees that change the same files.
    List {
        #[command(flatten)]
        output: Output,
    },
    /// What a task's worktree changed against its base: each file's status,
    /// then the unified diff.
    Diff {
        /// The task (or loop) it was made for, or a task that ran in it.
        task: String,
        #[command(flatten)]
        output: Output,
    },
    /// Lands a task's worktree on its base branch (what is left uncommitted
    /// is committed first). Exits 4 when it is refused: the conflicting
    /// files, or your own changes in the way.
    Merge {
        task: String,
        #[command(flatten)]
        output: Output,
    },
    /// Asks a worktree's agent, in the conversation that did its work, to
    /// bring its base in and resolve the conflicts a merge would meet now:
    /// a new task in that worktree (printed), after which it can be merged.
    Resolve {
        task: String,
        #[command(flatten)]
        output: Output,
    },
    /// Removes a task's worktree and branch. Exits 4 without --force when it
    /// holds work not merged; with --force that work is kept as a patch file,
    /// whose path is printed.
    Discard {
        task: String,
        #[arg(long)]
        force: bool,
        #[command(flatten)]
        output: Output,
    },
}

#[derive(ValueEnum, Debug, Clone, Copy)]
pub enum IsolationArg {
    None,
    Worktree,
}

impl From<IsolationArg> for switchboard_core::Isolation {
    fn from(arg: IsolationArg) -> Self {
        match arg {
            IsolationArg::None => switchboard_core::Isolation::None,
            IsolationArg::Worktree => switchboard_core::Isolation::Worktree,
        }
    }
}

#[derive(Args, Debug, Clone, Copy)]
pub struct Output {
    /// Print machine-readable JSON.
    #[arg(long)]
    pub json: bool,
}

/// `switchboard daemon [--status [--json] | --stop | --install | --uninstall]`.
#[derive(Args, Debug)]
pub struct DaemonArgs {
    /// Say whether an engine runs on the data directory (exit status 3 when none does).
    #[arg(long, conflicts_with = "stop")]
    pub status: bool,
    /// Ask the engine on the data directory to stop its agents and exit, and wait until it has.
    #[arg(long)]
    pub stop: bool,
    /// Start the daemon on the data directory at each login: install and enable a systemd user service.
    #[arg(long, conflicts_with_all = ["status", "stop", "uninstall"])]
    pub install: bool,
    /// Remove the systemd user service `--install` wrote (a daemon it started keeps running).
    #[arg(long, conflicts_with_all = ["status", "stop"])]
    pub uninstall: bool,
    /// Carry the engine's connection over standard input and output, starting the daemon if
    /// none runs: what another machine runs over SSH to reach this one's engine.
    #[arg(long, conflicts_with_all = ["status", "stop", "install", "uninstall"])]
    pub stdio: bool,
    #[command(flatten)]
    pub output: Output,
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
/// Exit code: bad usage (what clap gives), and a command that is not run
/// where it was meant for (`on_host`).
pub const EXIT_USAGE: u8 = 2;
/// Exit code: no app is running on the data directory.
pub const EXIT_NOT_RUNNING: u8 = 3;
/// Exit code: the app did not do what was asked, and said why (a merge
/// that would conflict, a discard that would lose work).
pub const EXIT_REFUSED: u8 = 4;
/// Exit code: an engine runs on the data directory but does not answer
/// (it is starting, or making its socket again).
pub const EXIT_NOT_ANSWERING: u8 = 5;

/// What the app declined to do, in words (its answer printed already).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct Refused(String);
/// Exit code: whatever read the output stopped reading (a pipe's reader
/// closed it). 128 + SIGPIPE, the status a shell reports for a tool the
/// closed pipe ended, so a pipeline reads it as it reads theirs.
pub const EXIT_OUTPUT_CLOSED: u8 = 141;

/// The command's output, noting whether its reader closed it (only a write
/// to it can tell: the same error from the socket is the app's).
struct Watched<W> {
    inner: W,
    closed: bool,
}

impl<W: Write> Watched<W> {
    fn note<T>(&mut self, result: std::io::Result<T>) -> std::io::Result<T> {
        if let Err(error) = &result
            && error.kind() == std::io::ErrorKind::BrokenPipe
        {
            self.closed = true;
        }
        result
    }
}

impl<W: Write> Write for Watched<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let result = self.inner.write(buf);
        self.note(result)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        let result = self.inner.flush();
        self.note(result)
    }
}

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
    let data_dir = canonical_data_dir(&data_dir)?;
    let runtime_dir = std::env::var_os("XDG_RUNTIME_DIR").map(PathBuf::from);
    Ok(switchboard_core::instance::socket_of(&data_dir, runtime_dir.as_deref()))
}

/// The data directory as one path, however it was reached: absolute, and
/// through its links (the same folder by another path is the same
/// engine's); a part not made yet is taken as written, below the real path
/// of the part that is there.
pub fn canonical_data_dir(data_dir: &Path) -> Result<PathBuf> {
    let absolute = std::path::absolute(data_dir).context("resolving the data directory")?;
    let mut there = absolute.as_path();
    let mut missing = Vec::new();
    loop {
        match std::fs::canonicalize(there) {
            Ok(real) => return Ok(missing.iter().rev().fold(real, |path: PathBuf, part| path.join(part))),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => match (there.parent(), there.file_name()) {
                (Some(parent), Some(name)) => {
                    missing.push(name.to_owned());
                    there = parent;
                }
                _ => return Ok(absolute),
            },
            Err(error) => {
                return Err(error).with_context(|| format!("resolving the data directory {}", data_dir.display()));
            }
        }
    }
}

/// The engine of another machine: the host of that destination in the list
/// (its port and program), else the destination as ssh takes it.
pub fn reach_host(data_dir: &Path, destination: &str) -> Result<client::Reach> {
    let listed = switchboard_client::hosts::find(data_dir, destination)?;
    let host = match listed {
        Some(host) => host,
        None => switchboard_client::ssh::Host::new(destination).map_err(|problem| Refused(problem.to_string()))?,
    };
    Ok(client::Reach::Ssh(host))
}

/// Runs a client command against the app listening on `socket`, printing
/// to `out` (results) and `err` (errors).
pub fn run(command: ClientCommand, socket: &Path, out: &mut impl Write, err: &mut impl Write) -> ExitCode {
    run_reaching(command, client::Reach::Socket(socket.to_path_buf()), None, out, err)
}

/// Runs a client command against the engine `reach` names, printing to
/// `out` (results) and `err` (errors); `data_dir`: where this machine's
/// list of hosts is.
pub fn run_reaching(
    command: ClientCommand,
    reach: client::Reach,
    data_dir: Option<&Path>,
    out: &mut impl Write,
    err: &mut impl Write,
) -> ExitCode {
    let mut out = Watched { inner: out, closed: false };
    // A command meant for another machine runs there or not at all.
    let on_host = match &reach {
        client::Reach::Ssh(host) => Some((host.clone(), on_host::decide(&command, &host.destination))),
        client::Reach::Socket(_) => None,
    };
    let result = match (on_host, command) {
        (Some((_, on_host::OnHost::Refused(why))), _) => {
            writeln!(err, "switchboard: {}", shown(&why, Lines::Escaped)).ok();
            return ExitCode::from(EXIT_USAGE);
        }
        (Some((host, on_host::OnHost::Directly(direct))), _) => on_host::run_directly(&host, direct, &mut out),
        (_, ClientCommand::Host(command)) => match data_dir {
            Some(data_dir) => hosts::run(command, data_dir, &mut out).map(|()| ExitCode::SUCCESS),
            None => Err(anyhow::anyhow!("hosts are kept in the data directory, which is not known here")),
        },
        (_, command) => execute(command, reach, &mut out).map(|()| ExitCode::SUCCESS),
    }
    .and_then(|code| Ok(out.flush().map(|()| code)?));
    match result {
        Ok(code) => code,
        // Nothing to say: no one reads any more.
        Err(_) if out.closed => ExitCode::from(EXIT_OUTPUT_CLOSED),
        Err(error) => {
            let code = match error.downcast_ref::<ClientError>() {
                Some(ClientError::NotRunning(_)) => EXIT_NOT_RUNNING,
                _ if error.downcast_ref::<Refused>().is_some() => EXIT_REFUSED,
                _ => EXIT_FAILED,
            };
            writeln!(err, "switchboard: {}", shown(&format!("{error:#}"), Lines::Kept)).ok();
            ExitCode::from(code)
        }
    }
}

fn execute(command: ClientCommand, reach: client::Reach, out: &mut impl Write) -> Result<()> {
    let client = client::Client::reaching(reach, switchboard_client::ClientKind::CommandLine);
    match command {
        ClientCommand::Host(_) => anyhow::bail!("`host` keeps this machine's list of hosts: use the `hosts` module"),
        ClientCommand::Scan => anyhow::bail!("`scan` reads its input: use `scan_input`"),
        ClientCommand::Daemon(_) => anyhow::bail!("`daemon` is the engine or asks after it: use the `daemon` module"),
        ClientCommand::Agent(AgentCommand::Add { name, command, args, cwd, kind, isolation, account, output }) => {
            let cwd = match cwd {
                Some(dir) => std::path::absolute(dir)?,
                None => std::env::current_dir().context("the current directory")?,
            };
            let kind = match kind {
                Kind::Generic => AgentKind::Generic,
                Kind::ClaudeCode => AgentKind::ClaudeCode,
                Kind::Codex => AgentKind::Codex,
            };
            // A new agent starts from the app's settings, as the window's form does.
            let settings = client.get_settings()?;
            let spec = ProfileSpec {
                name,
                command,
                args,
                cwd: cwd.display().to_string(),
                kind,
                task_time_limit_secs: settings.default_task_time_limit_secs,
                quiet_alert_secs: settings.default_quiet_alert_secs,
                isolation: isolation.into(),
                account,
                ..ProfileSpec::default()
            };
            let profile = client.create_profile(spec)?;
            print(out, output, &profile, |p| format!("added agent {} ({})", p.spec.name, p.id))
        }
        ClientCommand::Agent(AgentCommand::Edit { agent, isolation, setup_command, account, output }) => {
            let profile = find_agent(&client, &agent)?;
            let mut spec = profile.spec.clone();
            if let Some(isolation) = isolation {
                spec.isolation = isolation.into();
            }
            if let Some(account) = account {
                spec.account = Some(account).filter(|a| !a.trim().is_empty());
            }
            if let Some(command) = setup_command {
                match client.folder_repository(spec.cwd.clone())? {
                    switchboard_core::FolderRepository::Repository { root, .. } => {
                        client.set_repository_setup(root, Some(command).filter(|c| !c.trim().is_empty()))?
                    }
                    switchboard_core::FolderRepository::NotARepository { why } => {
                        anyhow::bail!("a setup command is for worktrees, and {why}")
                    }
                }
            }
            let profile = client.update_profile(profile.id, spec)?;
            print(out, output, &profile, |p| {
                format!(
                    "agent {}: tasks work {}",
                    p.spec.name,
                    match p.spec.isolation {
                        switchboard_core::Isolation::None => "in its folder",
                        switchboard_core::Isolation::Worktree => "each in a worktree of their own",
                    }
                )
            })
        }
        ClientCommand::Worktree(command) => worktree_command(&client, command, out),
        ClientCommand::Agent(AgentCommand::List { output }) => {
            let profiles = client.list_profiles()?;
            // Each agent's state is the engine's one attention, as the window and the tray read it.
            let attention = client.list_attention()?;
            let limits = client.list_limits()?;
            let usage = client.list_usage()?;
            let rows: Vec<AgentRow> = profiles
                .into_iter()
                .map(|profile| {
                    let limit = limits.iter().find(|l| l.profiles.contains(&profile.id));
                    AgentRow {
                        limited: limit.is_some(),
                        limited_until: limit.and_then(|l| l.until),
                        retry_at: limit.map(|l| l.retry_at),
                        usage: usage
                            .iter()
                            .find(|u| u.profiles.contains(&profile.id))
                            .map(|u| u.windows.clone())
                            .unwrap_or_default(),
                        profile,
                    }
                })
                .collect();
            print(out, output, &rows, |rows| {
                columns(rows.iter().map(|row| {
                    let p = &row.profile;
                    let mut state = attention
                        .iter()
                        .find(|a| a.profile_id == p.id)
                        .map_or_else(String::new, |a| a.attention.label());
                    if let Some(until) = row.limited_until {
                        let clock = switchboard_core::limits::clock_at(
                            until,
                            switchboard_core::limits::local_offset_secs(until),
                        );
                        state = match state.as_str() {
                            "usage limit" => format!("limited until {clock}"),
                            _ => format!("{state} (limited until {clock})"),
                        };
                    }
                    vec![
                        p.id.to_string(),
                        p.spec.kind.as_str().to_owned(),
                        p.spec.name.clone(),
                        state,
                        p.spec.cwd.clone(),
                    ]
                }))
            })
        }
        ClientCommand::Agent(AgentCommand::Resume { agent, output }) => {
            let profile = find_agent(&client, &agent)?;
            client.resume_agent(profile.id.clone())?;
            print(out, output, &(), |()| format!("{} goes on now", profile.spec.name))
        }
        ClientCommand::Task(TaskCommand::Add { agent, priority, time_limit, base, text, output }) => {
            let profile = find_agent(&client, &agent)?;
            let priority = match priority {
                PriorityArg::Urgent => Priority::Urgent,
                PriorityArg::Normal => Priority::Normal,
            };
            let spec = TaskSpec {
                priority,
                time_limit_secs: time_limit,
                base,
                ..TaskSpec::new(profile.id.clone(), text.join(" "))
            };
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
                columns(tasks.iter().map(|t| {
                    let name = profiles.iter().find(|p| p.id == t.spec.profile_id).map_or("?", |p| &p.spec.name);
                    vec![
                        t.id.to_string(),
                        words(t.state().as_str()),
                        t.spec.priority.as_str().to_owned(),
                        name.to_owned(),
                        first_line(&t.spec.instruction, 60),
                    ]
                }))
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
        ClientCommand::Task(TaskCommand::TypeNow { id, output }) => {
            let task_id = parse_task_id(&id)?;
            let task = client.type_task_now(task_id)?;
            print(out, output, &task, |t| format!("task {} is typed into its agent now", t.id))
        }
        ClientCommand::Loop(command) => loop_command(&client, command, out),
        ClientCommand::Flow { agent, output } => {
            let profile = find_agent(&client, &agent)?;
            let view = client.flow_view(FlowTarget::Agent { profile_id: profile.id }, None)?;
            print(out, output, &view, |view| {
                columns(view.diagrams.iter().map(|d| {
                    let lit = match (&d.silent, d.current.is_empty()) {
                        (Some(DiagramSilence::NoHooks), _) => "(nothing to show: it sends no hook events)".to_owned(),
                        (Some(DiagramSilence::NoSignalProtocols), _) => {
                            "(nothing to show: it is not taught the signals)".to_owned()
                        }
                        (None, true) => "-".to_owned(),
                        (None, false) => d.current.join(", "),
                    };
                    vec![d.diagram.as_str().to_owned(), lit]
                }))
            })
        }
        ClientCommand::Events { agent, since, limit, output } => {
            let profile = find_agent(&client, &agent)?;
            let since_at = since.as_deref().map(parse_since).transpose()?;
            let events = client.flow_events(FlowTarget::Agent { profile_id: profile.id }, since_at, limit)?;
            if output.json {
                // One JSON object per line, as the window exports them.
                for entry in &events.entries {
                    writeln!(out, "{}", serde_json::to_string(entry)?)?;
                }
                return Ok(());
            }
            print(out, output, &events, |events| {
                let mut lines: Vec<String> = Vec::new();
                if events.omitted > 0 {
                    lines.push(format!("({} older events left out)", events.omitted));
                }
                lines.extend(events.entries.iter().map(describe_event));
                lines.join("\n")
            })
        }
    }
}

/// How many files a worktree changed, in words, where that is known: an
/// open worktree git is run in (not one whose folder is gone, nor one
/// tampered with, branchless or refused, whose count is not a reading).
fn files_changed(state: switchboard_core::WorktreeState, count: u32) -> String {
    use switchboard_core::WorktreeState as S;
    let read = matches!(
        state,
        S::Working
            | S::ReadyToMerge
            | S::Conflicting
            | S::TaskFailed
            | S::TaskStopped
            | S::ConflictsWithBase
            | S::Behind
    );
    match (read, count) {
        (true, 1) => "1 file".into(),
        (true, n) => format!("{n} files"),
        (false, _) => String::new(),
    }
}

fn worktree_command(client: &client::Client, command: WorktreeCommand, out: &mut impl Write) -> Result<()> {
    use switchboard_core::{DiffContent, DiscardOutcome, FileStatus, MergeOutcome};
    match command {
        WorktreeCommand::List { output } => {
            let worktrees = client.list_worktrees()?;
            print(out, output, &worktrees, |worktrees| {
                if worktrees.is_empty() {
                    return "no worktrees: agents set to work apart (--isolation worktree) make one per task".into();
                }
                columns(worktrees.iter().map(|w| {
                    // The engine's words, as the window and notifications say them.
                    let state = one_line(&w.state_text);
                    let meets = if w.overlaps.is_empty() {
                        String::new()
                    } else {
                        let titles: Vec<&str> = w.overlaps.iter().map(|o| o.with_title.as_str()).collect();
                        format!("changes the same files as: {}", titles.join(", "))
                    };
                    vec![
                        w.task.clone(),
                        w.agent.clone(),
                        w.branch.clone(),
                        state,
                        files_changed(w.state, w.files_changed),
                        first_line(&w.title, 50),
                        meets,
                    ]
                }))
            })
        }
        WorktreeCommand::Diff { task, output } => {
            let diff = client.worktree_diff(task)?;
            print(out, output, &diff, |diff| {
                let mut lines = Vec::new();
                for file in &diff.files {
                    let status = match (file.status, &file.from) {
                        (FileStatus::Added, _) => "added".to_owned(),
                        (FileStatus::Modified, _) => "modified".to_owned(),
                        (FileStatus::Deleted, _) => "deleted".to_owned(),
                        (FileStatus::Renamed, Some(from)) => format!("renamed from {}", one_line(from)),
                        (FileStatus::Renamed, None) => "renamed".to_owned(),
                    };
                    let note = match &file.content {
                        DiffContent::Binary => " (binary)".to_owned(),
                        DiffContent::TooLarge { bytes } => format!(" (too large to show: {} KiB)", bytes / 1024),
                        DiffContent::Text { .. } => String::new(),
                    };
                    // One line each, whatever the agent named its files (the engine quotes odd names already).
                    lines.push(format!("{status}\t{}{note}", one_line(&file.path)));
                }
                if diff.files.is_empty() {
                    lines.push("no changes against its base".into());
                }
                if diff.files_left_out > 0 {
                    lines.push(format!("({} more files left out)", diff.files_left_out));
                }
                for file in &diff.files {
                    if let DiffContent::Text { unified, .. } = &file.content {
                        lines.push(String::new());
                        lines.push(unified.trim_end().to_owned());
                    }
                }
                lines.join("\n")
            })
        }
        WorktreeCommand::Merge { task, output } => {
            let merged = client.merge_worktree(task)?;
            print(out, output, &merged, |merged| match merged {
                MergeOutcome::Merged { base, commit, fast_forward: true } => {
                    format!("merged into {base} (moved forward to {})", &commit[..commit.len().min(12)])
                }
                MergeOutcome::Merged { base, commit, fast_forward: false } => {
                    format!("merged into {base} with merge commit {}", &commit[..commit.len().min(12)])
                }
                MergeOutcome::Conflict { files } => {
                    format!(
                        "not merged: these files conflict with its base, nothing was changed:\n{}",
                        files.iter().map(|f| one_line(f)).collect::<Vec<_>>().join("\n")
                    )
                }
                MergeOutcome::InTheWay { why } => format!("not merged: {why}"),
            })?;
            match merged {
                MergeOutcome::Merged { .. } => Ok(()),
                MergeOutcome::Conflict { files } => {
                    let files: Vec<String> = files.iter().map(|f| one_line(f)).collect();
                    Err(Refused(format!("merge refused: {} conflict", files.join(", "))).into())
                }
                MergeOutcome::InTheWay { why } => Err(Refused(format!("merge refused: {why}")).into()),
            }
        }
        WorktreeCommand::Resolve { task, output } => {
            let submitted = client.resolve_worktree(task)?;
            print(out, output, &submitted, |submitted| {
                format!(
                    "{} (its agent brings the base in and resolves the conflicts)",
                    submitted_line(submitted, "its agent")
                )
            })
        }
        WorktreeCommand::Discard { task, force, output } => {
            let discarded = client.discard_worktree(task, force)?;
            print(out, output, &discarded, |discarded| match discarded {
                DiscardOutcome::Discarded { patch: Some(patch) } => patch.clone(),
                DiscardOutcome::Discarded { patch: None } => "discarded (it held no work that was not merged)".into(),
                DiscardOutcome::WouldLoseWork { files_changed } => format!(
                    "not discarded: it holds {files_changed} changed files not merged; \
                     with --force they are kept as a patch file first"
                ),
            })?;
            match discarded {
                DiscardOutcome::WouldLoseWork { files_changed } => Err(Refused(format!(
                    "discard refused: {files_changed} changed files would be lost (use --force to keep them as a patch and discard)"
                ))
                .into()),
                DiscardOutcome::Discarded { .. } => Ok(()),
            }
        }
    }
}

/// `--since`: a time, or a span back from now.
fn parse_since(text: &str) -> Result<i64> {
    let text = text.trim();
    if let Ok(at) = text.parse::<jiff::Timestamp>() {
        return Ok(at.as_millisecond());
    }
    let span: jiff::SignedDuration = text.parse().map_err(|_| {
        anyhow::anyhow!("--since {text:?}: give a time such as 2026-11-23T14:00:00Z or a span such as 10m")
    })?;
    Ok(jiff::Timestamp::now().as_millisecond() - span.as_millis() as i64)
}

/// One event log entry as a line: when, what, and of which task.
fn describe_event(entry: &LogEntry) -> String {
    let at = jiff::Timestamp::from_millisecond(entry.at).map_or_else(|_| entry.at.to_string(), |t| t.to_string());
    let kind = serde_json::to_value(&entry.kind).unwrap_or_default();
    let name = kind.get("kind").and_then(|k| k.as_str()).unwrap_or("?").to_owned();
    let detail = match &entry.kind {
        LogKind::Hook { event, .. } => one_line(event),
        LogKind::TaskEnded { state, reason } => match reason {
            Some(reason) => format!("{} ({})", state.as_str(), one_line(reason)),
            None => state.as_str().to_owned(),
        },
        LogKind::SignalRaised { signal_kind, .. } => format!("{signal_kind:?}"),
        LogKind::Loop { step, .. } => serde_json::to_value(step)
            .ok()
            .and_then(|s| s.get("step").and_then(|s| s.as_str()).map(str::to_owned))
            .unwrap_or_default(),
        _ => String::new(),
    };
    let task = entry.task_id.as_ref().map(|t| format!(" task {}", short(&t.to_string()))).unwrap_or_default();
    format!("{at}  {name:<18} {detail}{task}").trim_end().to_owned()
}

fn short(id: &str) -> &str {
    id.get(..8).unwrap_or(id)
}

fn loop_command(client: &client::Client, command: LoopCommand, out: &mut impl Write) -> Result<()> {
    let profiles = client.list_profiles()?;
    let view = |info: &LoopInfo| LoopView::new(info, &profiles);
    match command {
        LoopCommand::Start { agent, max, stop_word, promise, stall_after, time_limit, goal, output } => {
            let profile = find_in(&profiles, &agent)?;
            let defaults = LoopSettings::new(goal.join(" "));
            let settings = LoopSettings {
                max_iterations: max.unwrap_or(defaults.max_iterations),
                stop_word: stop_word.unwrap_or_else(|| defaults.stop_word.clone()),
                stall_after: stall_after.unwrap_or(defaults.stall_after),
                promise,
                iteration_time_limit_secs: time_limit,
                ..defaults
            };
            let info = client.start_loop(profile.id.clone(), settings)?;
            print(out, output, &view(&info), |v| v.id.clone())
        }
        LoopCommand::List { output } => {
            let loops: Vec<LoopView> = client.list_loops()?.iter().map(view).collect();
            print(out, output, &loops, |loops| {
                columns(loops.iter().map(|l| {
                    vec![
                        l.id.clone(),
                        words(&l.state),
                        format!("{}/{}", l.iterations, l.max_iterations),
                        l.agent.clone(),
                        first_line(&l.goal, 60),
                    ]
                }))
            })
        }
        LoopCommand::Show { id, output } => {
            let info = client.get_loop(parse_loop_id(&id)?)?;
            print(out, output, &view(&info), describe_loop)
        }
        LoopCommand::Cancel { id, output } => {
            let info = client.cancel_loop(parse_loop_id(&id)?)?;
            print(out, output, &view(&info), |l| format!("cancelled loop {}", l.id))
        }
        LoopCommand::Resume { id, output } => {
            let info = client.resume_loop(parse_loop_id(&id)?)?;
            print(out, output, &view(&info), |l| {
                format!("resumed loop {}; its next iteration is first in the queue", l.id)
            })
        }
    }
}

/// A loop as the command line prints it (`--json` included): its state in
/// one word, why it ended in a sentence, and its iterations.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub struct LoopView {
    pub id: String,
    pub agent: String,
    pub goal: String,
    /// active, complete, stalled or cancelled.
    pub state: String,
    /// Why it ended; none while active.
    pub reason: Option<String>,
    /// Iterations run (those that count toward the cap).
    pub iterations: u32,
    pub max_iterations: u32,
    pub stop_word: String,
    pub promise: Option<String>,
    pub stall_after: u32,
    pub iteration_time_limit_secs: Option<u32>,
    pub created_at: i64,
    /// Every iteration, oldest first, interrupted ones included.
    pub history: Vec<IterationView>,
}

#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub struct IterationView {
    pub number: u32,
    pub session_id: Option<String>,
    pub started_at: i64,
    /// running, ended or interrupted.
    pub outcome: String,
    pub ended_at: Option<i64>,
    pub stop_reason: Option<String>,
    /// continue, complete, stalled or cancelled: what the judge said after it.
    pub verdict: Option<String>,
}

impl LoopView {
    pub fn new(info: &LoopInfo, profiles: &[Profile]) -> LoopView {
        let agent = profiles.iter().find(|p| p.id == info.profile_id).map_or("(removed agent)", |p| &p.spec.name);
        LoopView {
            id: info.id.to_string(),
            agent: agent.to_owned(),
            goal: info.settings.goal.clone(),
            state: info.state.as_str().to_owned(),
            reason: info.state.reason(),
            iterations: info.iterations_run(),
            max_iterations: info.settings.max_iterations,
            stop_word: info.settings.stop_word.clone(),
            promise: info.settings.promise.clone(),
            stall_after: info.settings.stall_after,
            iteration_time_limit_secs: info.settings.iteration_time_limit_secs,
            created_at: info.created_at,
            history: info.iterations.iter().map(IterationView::new).collect(),
        }
    }
}

impl IterationView {
    fn new(iteration: &Iteration) -> IterationView {
        let (outcome, ended_at, stop_reason, verdict) = match &iteration.outcome {
            IterationOutcome::Running => ("running", None, None, None),
            IterationOutcome::Ended { at, stop_reason, verdict } => {
                let verdict = match verdict {
                    Verdict::Continue => "continue",
                    Verdict::Complete { .. } => "complete",
                    Verdict::Stalled { .. } => "stalled",
                    Verdict::Cancelled => "cancelled",
                };
                ("ended", Some(*at), Some(stop_reason.clone()), Some(verdict.to_owned()))
            }
            IterationOutcome::Interrupted { at } => ("interrupted", Some(*at), None, None),
            IterationOutcome::FailedStart { at, exit, said } => {
                ("failed_start", Some(*at), Some(format!("{exit}: {said}").trim().to_owned()), None)
            }
        };
        IterationView {
            number: iteration.number,
            session_id: iteration.session_id.as_ref().map(ToString::to_string),
            started_at: iteration.started_at,
            outcome: outcome.to_owned(),
            ended_at,
            stop_reason,
            verdict,
        }
    }
}

/// The human form of `loop show`.
pub fn describe_loop(view: &LoopView) -> String {
    let mut text = format!(
        "loop {}\nagent: {}\nstate: {}\niterations: {} of at most {}\nstop word: {}\n",
        view.id,
        one_line(&view.agent),
        words(&view.state),
        view.iterations,
        view.max_iterations,
        one_line(&view.stop_word)
    );
    if let Some(promise) = &view.promise {
        text.push_str(&format!("promise: {}\n", one_line(promise)));
    }
    if let Some(reason) = &view.reason {
        text.push_str(&format!("why it ended: {}\n", one_line(reason)));
    }
    text.push_str(&format!("goal:\n{}\n", indent(&view.goal)));
    for iteration in &view.history {
        let said = match (&iteration.verdict, &iteration.stop_reason) {
            (Some(verdict), Some(reason)) => format!("{verdict} · {}", first_line(reason, 60)),
            _ => String::new(),
        };
        let line = format!("  #{:<3} {:<15} {said}", iteration.number, words(&iteration.outcome));
        text.push_str(line.trim_end());
        text.push('\n');
    }
    text.trim_end().to_owned()
}

fn parse_loop_id(text: &str) -> Result<LoopId> {
    text.parse().map_err(|e| anyhow::anyhow!("{e}: pass the full id that `switchboard loop list` prints"))
}

/// `switchboard scan`: every signal in `input`, one JSON line each, as soon
/// as its block closes: `{"kind", "malformed", "fields" | "reason", "raw"}`.
pub fn scan_input(mut input: impl Read, out: &mut impl Write, err: &mut impl Write) -> ExitCode {
    let out = &mut Watched { inner: out, closed: false };
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
                return ExitCode::from(if out.closed { EXIT_OUTPUT_CLOSED } else { EXIT_FAILED });
            }
        }
    }
    if let Some(event) = scanner.finish()
        && print(event, out).is_err()
    {
        return ExitCode::from(if out.closed { EXIT_OUTPUT_CLOSED } else { EXIT_FAILED });
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

/// An agent as `agent list` tells it: its profile, and its account's usage
/// limit.
#[derive(serde::Serialize)]
struct AgentRow {
    #[serde(flatten)]
    profile: Profile,
    /// Its account is at its usage limit: its tasks wait.
    limited: bool,
    /// When the limit resets, as its agent said; null when it did not say
    /// (or it is not limited).
    limited_until: Option<switchboard_core::Millis>,
    /// When the app tries again.
    retry_at: Option<switchboard_core::Millis>,
    /// Its account's usage windows, as its CLI last told them (Codex does
    /// at a refusal).
    usage: Vec<switchboard_api::UsageWindow>,
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
        // Agents write much of what is printed: nothing of it may speak to the terminal.
        let text = human(value);
        let text = shown(&text, Lines::Kept);
        if !text.is_empty() {
            writeln!(out, "{text}")?;
        }
    }
    Ok(())
}

/// Whether [`shown`] keeps line breaks and tabs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lines {
    /// Multi-line text (a summary, an instruction): `\n` and `\t` kept.
    Kept,
    /// A field printed on one line of its own (a reason, a name): every
    /// control escaped, so it cannot pose as the next line.
    Escaped,
}

/// Text as it may reach a terminal: every control character (C0, DEL, C1)
/// and every character that turns the direction of the text (the bidi
/// overrides and isolates) is written as its escape (`\x1b`, `\u{9b}`,
/// `\u{202e}`), so an escape sequence an agent wrote is shown, not run:
/// no clipboard write (OSC 52), window title, cursor move or line erase.
/// Only `\n` and `\t` pass, and only with [`Lines::Kept`]. Escaping is all
/// it does, so it can be applied twice.
pub fn shown(text: &str, lines: Lines) -> std::borrow::Cow<'_, str> {
    let passes = |c: char| match c {
        '\n' | '\t' => lines == Lines::Kept,
        _ => !c.is_control() && !switchboard_core::text::turns_direction(c),
    };
    if text.chars().all(passes) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut escaped = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        match c {
            _ if passes(c) => escaped.push(c),
            '\n' => escaped.push_str("\\n"),
            '\t' => escaped.push_str("\\t"),
            '\r' => escaped.push_str("\\r"),
            '\0'..='\x7f' => escaped.push_str(&format!("\\x{:02x}", c as u32)),
            _ => escaped.push_str(&format!("\\u{{{:x}}}", c as u32)),
        }
    }
    std::borrow::Cow::Owned(escaped)
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
        words(task.state().as_str()),
        task.spec.priority.as_str(),
        task.spec.time_limit_secs.unwrap_or_default(),
        indent(&task.spec.instruction)
    );
    if let Some(reason) = task.reason() {
        text.push_str(&format!("reason: {}\n", one_line(reason)));
    }
    if let Some(waiting) = &task.waiting_for {
        text.push_str(&format!("waiting for: {}\n", one_line(&waiting.in_words())));
    }
    if task.quiet_since().is_some() {
        text.push_str("may be stuck: no sign of life past its alert\n");
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
            text.push_str(&format!("{}:\n{}\n", one_line(&summary.path), indent(&summary.content)));
            for artifact in deliverables {
                let cut = if artifact.truncated { ", cut" } else { "" };
                text.push_str(&format!("artifact: {} ({} bytes{cut})\n", one_line(&artifact.path), artifact.size));
            }
        }
        for rejected in &result.rejected {
            text.push_str(&format!("refused: {} ({})\n", one_line(&rejected.path), one_line(&rejected.reason)));
        }
    }
    text.trim_end().to_owned()
}

/// Rows as aligned columns, two spaces apart, measured by the width each
/// character takes on a terminal (tabwriter); each cell on one line with its
/// controls escaped (a tab in a cell would start a column of its own).
fn columns(rows: impl IntoIterator<Item = Vec<String>>) -> String {
    let mut table = tabwriter::TabWriter::new(Vec::new()).padding(2);
    for row in rows {
        let cells: Vec<String> = row.iter().map(|cell| one_line(cell)).collect();
        writeln!(table, "{}", cells.join("\t")).expect("writing to memory does not fail");
    }
    let bytes = table.into_inner().expect("flushing to memory does not fail");
    String::from_utf8(bytes).expect("tabwriter keeps the UTF-8 it is given").trim_end().to_owned()
}

/// A state as a person reads it: `failed_to_start` (a loop) and
/// `failed_start` (an iteration) are "failed to start", `timed_out` "timed
/// out" (`--json` keeps the names).
fn words(state: &str) -> String {
    match state {
        "failed_start" => "failed to start".to_owned(),
        other => other.replace('_', " "),
    }
}

/// A field printed on a line of its own, its controls and line breaks escaped.
pub(crate) fn one_line(text: &str) -> String {
    shown(text, Lines::Escaped).into_owned()
}

fn indent(text: &str) -> String {
    text.lines().map(|line| format!("  {line}")).collect::<Vec<_>>().join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_worktree_says_how_many_files_it_changed_only_where_that_is_read() {
        use switchboard_core::WorktreeState as S;
        let cases = [
            (S::ReadyToMerge, 1, "1 file"),
            (S::ReadyToMerge, 0, "0 files"),
            (S::Conflicting, 3, "3 files"),
            (S::Working, 2, "2 files"),
            (S::Tampered, 0, ""),
            (S::BranchGone, 0, ""),
            (S::Refused, 0, ""),
            (S::FolderMissing, 0, ""),
            (S::Merged, 4, ""),
        ];
        for (state, count, said) in cases {
            assert_eq!(files_changed(state, count), said, "{state:?} {count}");
        }
    }

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
    fn the_window_opens_on_a_target_named_once_and_never_with_a_subcommand() {
        const ID: &str = "3f2b8c1e-4d5a-4b6c-8d7e-9f0a1b2c3d4e";
        let parse = |line: String| {
            Cli::try_parse_from(line.split_whitespace())
                .and_then(|cli| cli.check().map(|()| cli))
                .map(|cli| cli.open.map(|target| target.to_string()))
                .map_err(|error| (error.kind(), error.to_string()))
        };
        let bad = |text: &str| format!("invalid value '{text}' for '--open <TARGET>': ");
        assert_eq!(parse(format!("switchboard --open task:{ID}")), Ok(Some(format!("task:{ID}"))));
        assert_eq!(parse(format!("switchboard --data-dir /d --open loop:{ID}")), Ok(Some(format!("loop:{ID}"))));
        assert_eq!(parse(format!("switchboard --open signal:{ID} --no-demo")), Ok(Some(format!("signal:{ID}"))));
        assert_eq!(parse(format!("switchboard --open agent:{ID}")), Ok(Some(format!("agent:{ID}"))));
        assert_eq!(parse("switchboard".into()), Ok(None));
        let refused: &[(String, clap::error::ErrorKind, String)] = &[
            (
                format!("switchboard --open profile:{ID}"),
                clap::error::ErrorKind::ValueValidation,
                format!(
                    "{}`profile:{ID}` is not something the window opens: give task:<id>, signal:<id>, loop:<id> or agent:<id>",
                    bad(&format!("profile:{ID}"))
                ),
            ),
            (
                "switchboard --open task:42".into(),
                clap::error::ErrorKind::ValueValidation,
                format!("{}`42` is not a valid task id", bad("task:42")),
            ),
            (
                format!("switchboard --open task:{ID} task list"),
                clap::error::ErrorKind::ArgumentConflict,
                "--open opens the window on what it names; it goes without a subcommand".into(),
            ),
        ];
        for (line, kind, words) in refused {
            let (got_kind, message) = parse(line.clone()).unwrap_err();
            assert_eq!(got_kind, *kind, "{line}: {message}");
            assert!(message.contains(words.as_str()), "{line}: {message}");
        }
        // Given after a subcommand it is that subcommand's, which has none.
        assert!(parse(format!("switchboard task list --open task:{ID}")).is_err());
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
    fn agent_text_is_shown_with_its_controls_escaped() {
        let cases = [
            ("plain words, é and 漢字", Lines::Kept, "plain words, é and 漢字"),
            ("two\n\tlines", Lines::Kept, "two\n\tlines"),
            ("two\n\tlines", Lines::Escaped, r"two\n\tlines"),
            ("\x1b]52;c;aGk=\x07", Lines::Kept, r"\x1b]52;c;aGk=\x07"),
            ("\x1b]0;title\x1b\\", Lines::Kept, r"\x1b]0;title\x1b\"),
            ("over\rwrite\x1b[2K", Lines::Kept, r"over\rwrite\x1b[2K"),
            ("\u{9b}31m C1 \u{7f}", Lines::Kept, r"\u{9b}31m C1 \x7f"),
            ("abc\u{202e}fed", Lines::Kept, r"abc\u{202e}fed"),
            ("\0nul", Lines::Escaped, r"\x00nul"),
        ];
        for (text, lines, expected) in cases {
            let once = shown(text, lines);
            assert_eq!(once, expected, "{text:?}");
            assert_eq!(shown(&once, lines), once, "escaping twice changes nothing: {text:?}");
        }
    }

    #[test]
    fn task_show_says_what_a_task_waits_for_in_words() {
        use switchboard_api::WaitingFor;
        let mut task = switchboard_core::TaskInfo::queued(
            switchboard_core::TaskId::new(),
            switchboard_core::TaskSpec::new(switchboard_core::ProfileId::new(), "Say hello"),
            0,
            1,
        );
        task.start(switchboard_core::SessionId::new(), 2);
        task.waiting_for = Some(WaitingFor::Prompt { last_line: "agent>\u{1b}[2K".into(), pattern: "demo> $".into() });
        let shown = describe_task(&task);
        assert!(
            shown.contains(
                "waiting for: the agent's prompt: its screen ends with “agent>\\x1b[2K”, which the ready pattern “demo> $” does not match"
            ),
            "{shown}"
        );
        task.waiting_for = Some(WaitingFor::QueuePaused { reason: None });
        assert!(describe_task(&task).contains("waiting for: its agent's queue to resume: it is paused"));
        task.waiting_for = None;
        assert!(!describe_task(&task).contains("waiting for"));
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
