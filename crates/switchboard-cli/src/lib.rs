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
//!
//! Each subcommand runs in a module of its own; the engine is reached only
//! through `switchboard-client` and spoken to in `switchboard-api`'s words.
//! `daemon` is parsed here and run by `switchboard-daemon`.

mod agent;
mod args;
mod automations;
mod cost;
mod events;
mod flow;
pub mod hosts;
mod loops;
pub mod on_host;
mod print;
mod scan;
mod task;
pub mod web;
mod worktree;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};
use switchboard_api::place::resolve_data_dir;
use switchboard_client::ClientError;
use switchboard_client::blocking as client;

pub use args::{
    AgentCommand, AutomationCommand, CatchUpArg, Cli, ClientCommand, CostBy, DaemonArgs, IsolationArg, Kind,
    LoopCommand, Output, OverlapArg, PriorityArg, TaskCommand, TaskEndArg, WorktreeCommand,
};
pub use loops::{IterationView, LoopView, describe_loop};
pub use print::{Lines, shown};
pub(crate) use print::{columns, one_line, print};
pub use scan::{scan_input, scan_line};
pub use task::{describe_task, submitted_line};

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
pub(crate) struct Watched<W> {
    pub(crate) inner: W,
    pub(crate) closed: bool,
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

/// The data directory this command line works on: `--data-dir` (`flag`),
/// else the environment's, as one absolute path ([`canonical_data_dir`]).
pub fn data_dir(flag: Option<&Path>) -> Result<PathBuf> {
    resolved_data_dir(flag, "cannot tell where to keep data: pass --data-dir or set SWITCHBOARD_DATA_DIR")
}

fn resolved_data_dir(flag: Option<&Path>, unknown: &'static str) -> Result<PathBuf> {
    let env = |name| std::env::var(name).ok();
    let data_dir = resolve_data_dir(
        flag,
        env("SWITCHBOARD_DATA_DIR").as_deref(),
        env("XDG_DATA_HOME").as_deref(),
        env("HOME").as_deref(),
    )
    .context(unknown)?;
    canonical_data_dir(&data_dir)
}

/// Where the running app's socket is for this command line.
pub fn socket_for(data_dir: Option<&Path>) -> Result<PathBuf> {
    let data_dir = resolved_data_dir(
        data_dir,
        "cannot tell where the app keeps its data: pass --data-dir or set SWITCHBOARD_DATA_DIR",
    )?;
    let runtime_dir = std::env::var_os("XDG_RUNTIME_DIR").map(PathBuf::from);
    Ok(switchboard_client::locate::socket_of(&data_dir, runtime_dir.as_deref()))
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

/// Runs a subcommand the command line holds (every one but `daemon` on
/// this machine, which `switchboard-daemon` runs): `scan` here, `host` on
/// this machine's list, the others against the engine of the data
/// directory, or of `--host`'s machine.
pub fn run_command(cli: Cli) -> Result<ExitCode> {
    let Some(command) = cli.command else { anyhow::bail!("no subcommand: the app opens its window without one") };
    let (mut out, mut err) = (std::io::stdout().lock(), std::io::stderr().lock());
    // A command given --host runs on that machine or is refused (`on_host`): never here.
    if let (None, ClientCommand::Scan) = (&cli.host, &command) {
        return Ok(scan_input(std::io::stdin().lock(), &mut out, &mut err));
    }
    let data_dir = data_dir(cli.data_dir.as_deref())?;
    let reach = match cli.host.as_deref() {
        Some(destination) => reach_host(&data_dir, destination)?,
        None => client::Reach::Socket(socket_for(Some(&data_dir))?),
    };
    Ok(run_reaching(command, reach, Some(&data_dir), &mut out, &mut err))
}

/// One subcommand against the engine, by its module.
fn execute(command: ClientCommand, reach: client::Reach, out: &mut impl Write) -> Result<()> {
    // A path given for another machine's engine names a file there, not here.
    let elsewhere = matches!(reach, client::Reach::Ssh(_));
    let client = client::Client::reaching(reach, switchboard_client::ClientKind::CommandLine);
    match command {
        ClientCommand::Host(_) => anyhow::bail!("`host` keeps this machine's list of hosts: use the `hosts` module"),
        ClientCommand::Scan => anyhow::bail!("`scan` reads its input: use `scan_input`"),
        ClientCommand::Daemon(_) => anyhow::bail!("`daemon` is the engine or asks after it: use `switchboard-daemon`"),
        ClientCommand::Agent(command) => agent::run(&client, command, out),
        ClientCommand::Task(command) => task::run(&client, command, out),
        ClientCommand::Loop(command) => loops::run(&client, command, out),
        ClientCommand::Automation(command) => automations::run(&client, command, out),
        ClientCommand::Worktree(command) => worktree::run(&client, command, out),
        ClientCommand::Web(args) => web::run(&client, args, elsewhere, out),
        ClientCommand::Flow { agent, output } => flow::run(&client, &agent, output, out),
        ClientCommand::Events { agent, since, limit, output } => {
            events::run(&client, &agent, since.as_deref(), limit, output, out)
        }
        ClientCommand::Cost { since, by, output } => cost::run(&client, &since, by, output, out),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
