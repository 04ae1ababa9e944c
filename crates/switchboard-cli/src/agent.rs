//! `switchboard agent add|edit|resume|list`: the engine's agent profiles.

use std::io::Write;

use anyhow::{Context, Result};
use switchboard_api::protocol::{AgentKind, ProfileId};
use switchboard_api::{FolderRepository, Isolation, Millis, Profile, ProfileSpec, UsageWindow};
use switchboard_client::blocking::Client;

use crate::print::{columns, print};
use crate::{AgentCommand, IsolationArg, Kind, Output};

pub(crate) fn run(client: &Client, command: AgentCommand, out: &mut impl Write) -> Result<()> {
    match command {
        AgentCommand::Add {
            name,
            command,
            args,
            cwd,
            kind,
            isolation,
            account,
            no_switchboard_tools,
            daily_budget,
            output,
        } => {
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
                switchboard_tools: !no_switchboard_tools,
                daily_budget,
                ..ProfileSpec::default()
            };
            let profile = client.create_profile(spec)?;
            print(out, output, &profile, |p| format!("added agent {} ({})", p.spec.name, p.id))
        }
        AgentCommand::Edit { agent, isolation, setup_command, account, switchboard_tools, daily_budget, output } => {
            let edits = Edits { isolation, setup_command, account, switchboard_tools, daily_budget };
            edit(client, &agent, edits, output, out)
        }
        AgentCommand::List { output } => list(client, output, out),
        AgentCommand::Resume { agent, output } => {
            let profile = find_agent(client, &agent)?;
            client.resume_agent(profile.id.clone())?;
            print(out, output, &(), |()| format!("{} goes on now", profile.spec.name))
        }
    }
}

/// What `agent edit` changes; none: left as it is.
struct Edits {
    isolation: Option<IsolationArg>,
    setup_command: Option<String>,
    account: Option<String>,
    switchboard_tools: Option<bool>,
    daily_budget: Option<Option<switchboard_api::Budget>>,
}

/// `agent edit`: where its tasks work, its account, its repository's setup
/// command, whether it has Switchboard's tools.
fn edit(client: &Client, agent: &str, edits: Edits, output: Output, out: &mut impl Write) -> Result<()> {
    let Edits { isolation, setup_command, account, switchboard_tools, daily_budget } = edits;
    let profile = find_agent(client, agent)?;
    let mut spec = profile.spec.clone();
    if let Some(budget) = daily_budget {
        spec.daily_budget = budget;
    }
    if let Some(tools) = switchboard_tools {
        spec.switchboard_tools = tools;
    }
    if let Some(isolation) = isolation {
        spec.isolation = isolation.into();
    }
    if let Some(account) = account {
        spec.account = Some(account).filter(|a| !a.trim().is_empty());
    }
    if let Some(command) = setup_command {
        match client.folder_repository(spec.cwd.clone())? {
            FolderRepository::Repository { root, .. } => {
                client.set_repository_setup(root, Some(command).filter(|c| !c.trim().is_empty()))?
            }
            FolderRepository::NotARepository { why } => {
                anyhow::bail!("a setup command is for worktrees, and {why}")
            }
        }
    }
    let profile = client.update_profile(profile.id, spec)?;
    print(out, output, &profile, |p| {
        let tools = match (switchboard_tools, p.spec.switchboard_tools) {
            (None, _) => "",
            (Some(_), true) => "; its CLI is given Switchboard's tools",
            (Some(_), false) => "; it prints signal blocks, without Switchboard's tools",
        };
        format!(
            "agent {}: tasks work {}{tools}",
            p.spec.name,
            match p.spec.isolation {
                Isolation::None => "in its folder",
                Isolation::Worktree => "each in a worktree of their own",
            }
        )
    })
}

/// `agent list`: each profile with its state and its account's usage limit.
fn list(client: &Client, output: Output, out: &mut impl Write) -> Result<()> {
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
            let mut state =
                attention.iter().find(|a| a.profile_id == p.id).map_or_else(String::new, |a| a.attention.label());
            if let Some(until) = row.limited_until {
                let clock = switchboard_api::clock_at(until, switchboard_api::local_offset_secs(until));
                state = match state.as_str() {
                    "usage limit" => format!("limited until {clock}"),
                    _ => format!("{state} (limited until {clock})"),
                };
            }
            vec![p.id.to_string(), p.spec.kind.as_str().to_owned(), p.spec.name.clone(), state, p.spec.cwd.clone()]
        }))
    })
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
    limited_until: Option<Millis>,
    /// When the app tries again.
    retry_at: Option<Millis>,
    /// Its account's usage windows, as its CLI last told them (Codex does
    /// at a refusal).
    usage: Vec<UsageWindow>,
}

pub(crate) fn find_agent(client: &Client, name: &str) -> Result<Profile> {
    let profiles = client.list_profiles()?;
    find_in(&profiles, name).cloned()
}

pub(crate) fn find_in<'a>(profiles: &'a [Profile], name: &str) -> Result<&'a Profile> {
    let by_id = name.parse::<ProfileId>().ok();
    profiles
        .iter()
        .find(|p| p.spec.name == name || by_id.as_ref() == Some(&p.id))
        .with_context(|| format!("no agent named `{name}` (see `switchboard agent list`)"))
}
