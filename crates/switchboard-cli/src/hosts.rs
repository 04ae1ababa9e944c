//! `switchboard host add|list|remove`: the machines whose engines this one
//! reaches over SSH (`switchboard_client::hosts`). Adding one checks it
//! first: ssh reaches it with the user's own keys and known hosts, and a
//! compatible Switchboard answers there. A host key ssh does not know yet is
//! shown, never accepted silently: the user accepts it by its fingerprint
//! (`--accept-key`), and only that very key is added to their known hosts.

use std::io::Write;
use std::path::Path;

use anyhow::Result;
use clap::Subcommand;
use serde::Serialize;
use switchboard_client::blocking::{Client, Reach};
use switchboard_client::ssh::{Host, HostKey, SshProblem, accept_host_key, scan_host_key};
use switchboard_client::{ClientError, ClientKind, HelloAck, hosts};

use crate::{Output, Refused, columns, print};

#[derive(Subcommand, Debug)]
pub enum HostCommand {
    /// Adds a machine, once ssh reaches it and Switchboard answers there. A
    /// host key not known yet is shown: add it with --accept-key.
    Add {
        /// As ssh takes it: user@host, or an alias of your ssh config.
        destination: String,
        /// The port, when not the one ssh would use.
        #[arg(long)]
        port: Option<u16>,
        /// Where `switchboard` is on that machine, when not on its PATH.
        #[arg(long, value_name = "PATH")]
        remote_program: Option<String>,
        /// Accept the host's key with this fingerprint (SHA256:…), as shown.
        #[arg(long, value_name = "FINGERPRINT")]
        accept_key: Option<String>,
        #[command(flatten)]
        output: Output,
    },
    /// The machines added, each with whether its engine answers now.
    List {
        #[command(flatten)]
        output: Output,
    },
    /// Takes a machine out of the list (its engine and agents go on there).
    Remove {
        destination: String,
        #[command(flatten)]
        output: Output,
    },
}

/// A host and how it answers now (`host list --json`, `host add --json`).
#[derive(Debug, Serialize)]
pub struct HostRow {
    #[serde(flatten)]
    pub host: Host,
    /// `connected`, or what stands in the way: `unknown_host_key`,
    /// `changed_host_key`, `sign_in`, `unreachable`, `not_installed`,
    /// `incompatible`, `failed`.
    pub state: &'static str,
    pub version: Option<String>,
    pub agents_running: Option<u32>,
    /// What stands in the way, in words.
    pub problem: Option<String>,
    /// The key the host presents, when ssh does not know it yet.
    pub unknown_key: Option<HostKey>,
}

/// How the host answers now.
fn check(host: &Host) -> HostRow {
    let answered = Client::reaching(Reach::Ssh(host.clone()), ClientKind::CommandLine).welcome();
    row(host, answered)
}

fn row(host: &Host, answered: Result<HelloAck, ClientError>) -> HostRow {
    let mut row = HostRow {
        host: host.clone(),
        state: "connected",
        version: None,
        agents_running: None,
        problem: None,
        unknown_key: None,
    };
    match answered {
        Ok(welcome) => {
            row.version = Some(welcome.engine_version);
            row.agents_running = Some(welcome.agents_running);
        }
        Err(error) => {
            row.state = match &error {
                ClientError::Ssh(SshProblem::UnknownHostKey) => "unknown_host_key",
                ClientError::Ssh(SshProblem::ChangedHostKey(_)) => "changed_host_key",
                ClientError::Ssh(SshProblem::SignIn(_)) => "sign_in",
                ClientError::Ssh(SshProblem::Unreachable(_)) => "unreachable",
                ClientError::Ssh(SshProblem::NotInstalled) => "not_installed",
                ClientError::Refused { .. } => "incompatible",
                _ => "failed",
            };
            row.problem = Some(match error {
                ClientError::Refused { engine_version, reason } => format!(
                    "Switchboard {engine_version} runs there and cannot talk with this one ({reason}): install the \
                     same version on both machines"
                ),
                other => other.to_string(),
            });
        }
    }
    row
}

/// "no agent running", "1 agent running", "3 agents running".
fn running(agents: u32) -> String {
    match agents {
        0 => "no agent running".to_owned(),
        1 => "1 agent running".to_owned(),
        n => format!("{n} agents running"),
    }
}

pub fn run(command: HostCommand, data_dir: &Path, out: &mut impl Write) -> Result<()> {
    match command {
        HostCommand::Add { destination, port, remote_program, accept_key, output } => {
            let host = Host { port, remote_program, ..Host::new(&destination).map_err(Refused)? };
            let mut checked = check(&host);
            if checked.state == "unknown_host_key" {
                let key = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()?
                    .block_on(scan_host_key(&host))?;
                match accept_key.as_deref() {
                    Some(accepted) if accepted == key.fingerprint => {
                        accept_host_key(&key)?;
                        checked = check(&host);
                    }
                    Some(accepted) => {
                        checked.problem = Some(format!(
                            "the host presents {} {}, not the key you accepted ({accepted}): nothing was added",
                            key.key_type, key.fingerprint
                        ));
                        checked.unknown_key = Some(key);
                    }
                    None => {
                        checked.problem = Some(format!(
                            "{destination} presents a key not known yet: {} {}. If that is its key, add it with \
                             --accept-key {}",
                            key.key_type, key.fingerprint, key.fingerprint
                        ));
                        checked.unknown_key = Some(key);
                    }
                }
            }
            let added = checked.state == "connected";
            if added {
                hosts::add(data_dir, host)?;
            }
            print(out, output, &checked, |row| match (&row.version, &row.problem) {
                (Some(version), _) => format!(
                    "Added {}: Switchboard {version}, {}.",
                    row.host.destination,
                    running(row.agents_running.unwrap_or(0))
                ),
                (None, problem) => format!("Not added: {}.", problem.as_deref().unwrap_or("it did not answer")),
            })?;
            if !added {
                return Err(Refused(format!("{destination} was not added")).into());
            }
            Ok(())
        }
        HostCommand::List { output } => {
            let rows: Vec<HostRow> = hosts::list(data_dir)?.iter().map(check).collect();
            print(out, output, &rows, |rows| {
                if rows.is_empty() {
                    return "No hosts: add one with `switchboard host add user@host`.".to_owned();
                }
                columns(rows.iter().map(|row| {
                    let state = match (&row.version, &row.problem) {
                        (Some(version), _) => {
                            format!("connected, Switchboard {version}, {}", running(row.agents_running.unwrap_or(0)))
                        }
                        (None, problem) => problem.clone().unwrap_or_default(),
                    };
                    vec![row.host.destination.clone(), state]
                }))
            })
        }
        HostCommand::Remove { destination, output } => {
            let removed = hosts::remove(data_dir, &destination).map_err(|e| Refused(e.to_string()))?;
            print(out, output, &removed, |host| {
                format!("Removed {}; its engine and agents go on there.", host.destination)
            })
        }
    }
}
