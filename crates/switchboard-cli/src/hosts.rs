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
use switchboard_api::{HostCondition, HostState};
use switchboard_client::hosts;
use switchboard_client::ssh::Host;

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

/// Runs `work` to its end here (the command line has no runtime of its own).
fn block<T>(work: impl Future<Output = T>) -> Result<T> {
    Ok(tokio::runtime::Builder::new_current_thread().enable_all().build()?.block_on(work))
}

pub fn run(command: HostCommand, data_dir: &Path, out: &mut impl Write) -> Result<()> {
    match command {
        HostCommand::Add { destination, port, remote_program, accept_key, output } => {
            let host = Host {
                port,
                remote_program,
                ..Host::new(&destination).map_err(|problem| Refused(problem.to_string()))?
            };
            let checked = block(hosts::add_checked(data_dir, host, accept_key.as_deref()))??;
            let added = checked.state == HostCondition::Connected;
            print(out, output, &checked, |state| match added {
                true => format!("Added {}: {}.", state.destination, state.words),
                false => format!("Not added: {}.", state.words),
            })?;
            if !added {
                return Err(Refused(format!("{destination} was not added")).into());
            }
            Ok(())
        }
        HostCommand::List { output } => {
            let listed = hosts::list(data_dir)?;
            let rows: Vec<HostState> = block(async {
                let mut rows = Vec::new();
                for host in &listed {
                    rows.push(hosts::check(host).await);
                }
                rows
            })?;
            print(out, output, &rows, |rows| {
                if rows.is_empty() {
                    return "No hosts: add one with `switchboard host add user@host`.".to_owned();
                }
                columns(rows.iter().map(|row| vec![row.destination.clone(), row.words.clone()]))
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
