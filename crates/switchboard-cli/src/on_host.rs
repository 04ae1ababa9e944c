//! Where a command given `--host` runs. Every subcommand either runs on
//! the named machine or is refused with a sentence; none ever runs on this
//! machine instead (`--host build-box daemon --stop` once stopped this
//! machine's engine). [`decide`] is the one place that says which, for
//! every command the command line has; its table test walks clap's command
//! tree, so a new subcommand without a decision fails it.

use std::io::Write;
use std::process::ExitCode;

use anyhow::{Context, Result};
use switchboard_client::ssh::{self, Host};
use switchboard_client::status::{DaemonStatus, status_line};

use crate::{AgentCommand, ClientCommand, DaemonArgs};

/// Where a command given `--host` runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OnHost {
    /// Through the host's engine, over the client protocol (`daemon
    /// --stdio` there, which starts the engine when none runs).
    Engine,
    /// The host's `switchboard` run there directly over ssh: what asks
    /// after the engine itself, and must neither start one nor reach this
    /// machine's.
    Directly(Direct),
    /// Run nowhere: why, in a sentence the user reads.
    Refused(String),
}

/// What is run on the host directly.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direct {
    /// `daemon --status`: whether an engine runs there (one is not started).
    Status { json: bool },
    /// `daemon --stop`: its engine stops its agents and exits.
    Stop,
}

impl Direct {
    /// The arguments of the host's `switchboard`. The status is always asked
    /// for as JSON: read as data here, and said here in this machine's words.
    fn args(self) -> &'static [&'static str] {
        match self {
            Direct::Status { .. } => &["daemon", "--status", "--json"],
            Direct::Stop => &["daemon", "--stop"],
        }
    }
}

/// Where `command`, given `--host destination`, runs. `agent add` takes a
/// folder of the host's: without `--cwd`, or with a relative one, it would
/// carry this machine's current folder there, so it is refused.
pub fn decide(command: &ClientCommand, destination: &str) -> OnHost {
    let refused = |why: String| OnHost::Refused(why);
    match command {
        ClientCommand::Daemon(DaemonArgs { stdio: true, .. }) => refused(format!(
            "`daemon --stdio` is what another machine runs over ssh to reach this one's engine; it takes no \
             --host (to reach {destination}'s engine, give --host to the command itself)"
        )),
        ClientCommand::Daemon(DaemonArgs { status: true, output, .. }) => {
            OnHost::Directly(Direct::Status { json: output.json })
        }
        ClientCommand::Daemon(DaemonArgs { stop: true, .. }) => OnHost::Directly(Direct::Stop),
        ClientCommand::Daemon(DaemonArgs { install: true, .. } | DaemonArgs { uninstall: true, .. }) => {
            refused(format!(
                "a login service is installed on the machine it runs on: run `switchboard daemon --install` (or \
                 --uninstall) on {destination} itself, in a session of yours there"
            ))
        }
        ClientCommand::Daemon(_) => refused(format!(
            "`daemon` runs an engine on this machine; {destination}'s engine starts by itself when a command \
             reaches it (`switchboard --host {destination} agent list`, say)"
        )),
        ClientCommand::Host(_) => refused(format!(
            "the list of hosts is this machine's: run `switchboard host …` without --host (to add {destination}, \
             `switchboard host add {destination}`)"
        )),
        ClientCommand::Scan => refused(
            "`scan` reads its input here and needs no engine: run it without --host (pipe the host's output \
             into it)"
                .to_owned(),
        ),
        ClientCommand::Agent(AgentCommand::Add { cwd: None, .. }) => refused(format!(
            "name the agent's folder on {destination} with --cwd (its whole path there): this machine's current \
             folder is not a folder of {destination}'s"
        )),
        ClientCommand::Agent(AgentCommand::Add { cwd: Some(cwd), .. }) if !cwd.is_absolute() => refused(format!(
            "--cwd {}: give the folder's whole path on {destination}; a relative one would be read against this \
             machine's current folder",
            crate::one_line(&cwd.display().to_string())
        )),
        ClientCommand::Agent(_)
        | ClientCommand::Task(_)
        | ClientCommand::Loop(_)
        | ClientCommand::Automation(_)
        | ClientCommand::Worktree(_)
        | ClientCommand::Flow { .. }
        | ClientCommand::Events { .. }
        | ClientCommand::Cost { .. }
        | ClientCommand::Web(_) => OnHost::Engine,
    }
}

/// Runs `direct` on `host` over ssh and says what came of it here. Exit
/// status: as the host's command's (3 when no engine runs there).
pub fn run_directly(host: &Host, direct: Direct, out: &mut impl Write) -> Result<ExitCode> {
    let ran = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("starting the runtime")?
        .block_on(ssh::run_there(host, direct.args()))?;
    let place = crate::one_line(&host.destination);
    match direct {
        Direct::Status { json } => {
            if ran.status != 0 && ran.status != i32::from(crate::EXIT_NOT_RUNNING) {
                anyhow::bail!("{place} could not say whether its engine runs: {}", said(&ran.stderr));
            }
            let status: DaemonStatus = serde_json::from_str(&ran.stdout)
                .with_context(|| format!("{place} answered what is not an engine's status: {}", said(&ran.stdout)))?;
            if json {
                writeln!(out, "{}", serde_json::to_string_pretty(&status)?)?;
            } else {
                writeln!(out, "{}", status_line(&place, &status))?;
            }
            Ok(if status.running { ExitCode::SUCCESS } else { ExitCode::from(crate::EXIT_NOT_RUNNING) })
        }
        Direct::Stop => match ran.status {
            0 => {
                writeln!(out, "{place}: {}", said(&ran.stdout))?;
                Ok(ExitCode::SUCCESS)
            }
            status if status == i32::from(crate::EXIT_NOT_RUNNING) => {
                writeln!(out, "No engine runs on {place}; nothing was stopped.")?;
                Ok(ExitCode::from(crate::EXIT_NOT_RUNNING))
            }
            _ => anyhow::bail!("{place}'s engine was not stopped: {}", said(&ran.stderr)),
        },
    }
}

/// The host's words on one line, escaped (a host's output is untrusted),
/// without the program's own prefix.
fn said(text: &str) -> String {
    let text = text.trim();
    let text = text.strip_prefix("switchboard: ").unwrap_or(text);
    match text.is_empty() {
        true => "it said nothing".to_owned(),
        false => crate::one_line(text),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::{CommandFactory, Parser};

    use crate::Cli;

    /// What a command given `--host` must come to.
    #[derive(Debug)]
    enum Expected {
        Engine,
        Directly(Direct),
        /// Refused, its sentence holding these words.
        Refused(&'static str),
    }

    /// Every subcommand, with what it comes to given `--host box`. A row's
    /// words are the command line after `switchboard --host box`.
    const TABLE: &[(&str, Expected)] = &[
        ("daemon", Expected::Refused("starts by itself when a command reaches it")),
        ("daemon --status", Expected::Directly(Direct::Status { json: false })),
        ("daemon --status --json", Expected::Directly(Direct::Status { json: true })),
        ("daemon --stop", Expected::Directly(Direct::Stop)),
        ("daemon --install", Expected::Refused("on box itself")),
        ("daemon --uninstall", Expected::Refused("on box itself")),
        ("daemon --stdio", Expected::Refused("it takes no --host")),
        ("host add dev@other", Expected::Refused("the list of hosts is this machine's")),
        ("host list", Expected::Refused("the list of hosts is this machine's")),
        ("host remove dev@other", Expected::Refused("the list of hosts is this machine's")),
        ("agent add --name a --command sh --cwd /srv/work", Expected::Engine),
        ("agent add --name a --command sh", Expected::Refused("name the agent's folder on box with --cwd")),
        ("agent add --name a --command sh --cwd work", Expected::Refused("give the folder's whole path on box")),
        ("agent edit a --isolation worktree", Expected::Engine),
        ("agent resume a", Expected::Engine),
        ("agent list", Expected::Engine),
        ("task add --agent a do it", Expected::Engine),
        ("task list", Expected::Engine),
        ("task show 1", Expected::Engine),
        ("task cancel 1", Expected::Engine),
        ("task type-now 1", Expected::Engine),
        ("loop start --agent a goal", Expected::Engine),
        ("loop list", Expected::Engine),
        ("loop show 1", Expected::Engine),
        ("loop cancel 1", Expected::Engine),
        ("loop resume 1", Expected::Engine),
        ("automation add --agent a --every 2h text", Expected::Engine),
        ("automation list", Expected::Engine),
        ("automation show 1", Expected::Engine),
        ("automation pause 1", Expected::Engine),
        ("automation resume 1", Expected::Engine),
        ("automation run-now 1", Expected::Engine),
        ("automation remove 1", Expected::Engine),
        ("worktree list", Expected::Engine),
        ("worktree diff t", Expected::Engine),
        ("worktree merge t", Expected::Engine),
        ("worktree discard t --force", Expected::Engine),
        ("worktree resolve t", Expected::Engine),
        ("flow --agent a", Expected::Engine),
        ("events --agent a", Expected::Engine),
        // What the host's agents spent, as its engine read it.
        ("cost --by day", Expected::Engine),
        // The host's engine serves its own browsers.
        ("web", Expected::Engine),
        ("web --off", Expected::Engine),
        ("web pair --read-only", Expected::Engine),
        ("web devices", Expected::Engine),
        ("web revoke phone", Expected::Engine),
        ("scan", Expected::Refused("run it without --host")),
    ];

    /// The subcommand a row's words name: as far as they name subcommands.
    fn path_of(words: &str) -> Vec<String> {
        let mut command = Cli::command();
        let mut path = Vec::new();
        for word in words.split_whitespace() {
            let Some(sub) = command.find_subcommand(word).cloned() else { break };
            path.push(word.to_owned());
            command = sub;
        }
        path
    }

    /// Every subcommand the command line has, as a path of names (clap's
    /// own `help` aside).
    fn leaves(command: &clap::Command, path: &[String], into: &mut Vec<Vec<String>>) {
        let subcommands: Vec<&clap::Command> = command.get_subcommands().filter(|c| c.get_name() != "help").collect();
        if subcommands.is_empty() {
            into.push(path.to_vec());
        }
        for sub in subcommands {
            leaves(sub, &[path, &[sub.get_name().to_owned()]].concat(), into);
        }
    }

    #[test]
    fn every_command_given_a_host_runs_there_or_is_refused_in_words() {
        for (words, expected) in TABLE {
            let line = format!("switchboard --host box {words}");
            let cli = Cli::try_parse_from(line.split_whitespace()).unwrap_or_else(|e| panic!("{line}: {e}"));
            let command = cli.command.unwrap_or_else(|| panic!("{line}: no subcommand"));
            let decided = decide(&command, "box");
            match (expected, &decided) {
                (Expected::Engine, OnHost::Engine) => {}
                (Expected::Directly(direct), OnHost::Directly(got)) if direct == got => {}
                (Expected::Refused(words), OnHost::Refused(why)) if why.contains(words) => {
                    assert!(why.contains("box") || why.contains("--host"), "{line}: a refusal says what to do: {why}");
                }
                _ => panic!("{line}: expected {expected:?}, decided {decided:?}"),
            }
        }
        let mut all = Vec::new();
        leaves(&Cli::command(), &[], &mut all);
        assert!(all.len() > 20, "the command tree is read: {all:?}");
        for leaf in &all {
            assert!(
                TABLE.iter().any(|(words, _)| &path_of(words) == leaf),
                "`{}` has no row: say where it runs given --host (on_host::decide)",
                leaf.join(" ")
            );
        }
        // Each of daemon's own flags is a mode of its own, with a row.
        let daemon = Cli::command().find_subcommand("daemon").cloned().unwrap();
        for flag in daemon.get_arguments().filter_map(|a| a.get_long()).filter(|l| !matches!(*l, "json" | "help")) {
            assert!(
                TABLE.iter().any(|(words, _)| words.starts_with("daemon") && words.contains(&format!("--{flag}"))),
                "`daemon --{flag}` has no row"
            );
        }
    }

    #[test]
    fn the_host_s_words_are_shown_escaped_without_its_prefix() {
        assert_eq!(said("switchboard: the engine did not stop\n"), "the engine did not stop");
        assert_eq!(said("  "), "it said nothing");
        assert_eq!(said("stopped\n\x1b]52;c;aGk=\x07"), r"stopped\n\x1b]52;c;aGk=\x07");
    }
}
