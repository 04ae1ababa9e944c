//! The engine as a daemon, and what goes with it on the user's desktop:
//! `switchboard daemon` (the engine alone on a data directory until asked to
//! stop), its status, stop, start and restart as a window or the command
//! line asks for them ([`launch`], [`stop`], [`restart`], [`after_loss`]),
//! the login service (`daemon --install`: [`install`]), the desktop
//! notifications ([`notifications`]) the daemon shows while no window
//! follows its engine ([`notices`]), and the claim that keeps one window
//! per data directory ([`window`]).
//!
//! The command line parses `daemon`'s arguments (`switchboard_cli::DaemonArgs`);
//! [`run_command`] runs them.

pub mod beyond;
pub mod install;
mod lifecycle;
pub mod notices;
pub mod notifications;
pub mod window;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};
use switchboard_cli::DaemonArgs;
use switchboard_core::EngineConfig;

pub use lifecycle::{
    AfterLoss, DaemonStatus, Environment, Found, LAUNCH_WAIT, MOST_RESTARTS, RESTART_PAUSE, RESTART_SPAN, STOPPED_FILE,
    Started, after_loss, already_running, decide, find, launch, launch_with, print_status, restart, run, status, stdio,
    stop, stopped_on_request,
};

/// Name of the scripted demo agent binary, shipped beside the app's.
const DEMO_AGENT_BINARY: &str = "switchboard-demo-agent";
/// Name of the hook binary agents' hooks run, shipped beside the app's.
const HOOK_BINARY: &str = "switchboard-hook";

/// `switchboard daemon` on this machine, in each of its modes: `--stdio`,
/// `--status`, `--stop`, `--install` / `--uninstall`, or the engine itself
/// (unless one runs on the data directory already, as `--status` would
/// say). `data_dir`: the `--data-dir` flag; `web_assets`: the UI the binary
/// carries, which the engine serves to paired browsers.
pub fn run_command(
    data_dir: Option<&Path>,
    no_demo: bool,
    args: &DaemonArgs,
    web_assets: impl FnOnce() -> Option<switchboard_core::web::WebAssets>,
) -> Result<ExitCode> {
    let data_dir = switchboard_cli::data_dir(data_dir)?;
    let socket = switchboard_cli::socket_for(Some(&data_dir))?;
    if args.stdio {
        // Standard output is the connection's: nothing else may go there
        // (nor hold it locked).
        return stdio(&data_dir, &socket);
    }
    let out = &mut std::io::stdout().lock();
    if args.status {
        return print_status(&data_dir, &socket, args.output.json, out);
    }
    if args.stop {
        return stop(&data_dir, &socket, out);
    }
    if args.install || args.uninstall {
        return install::run(args.install, &data_dir, no_demo, out);
    }
    // The engine alone: the app's own, with no window.
    if let Some(exit) = already_running(&data_dir, &socket, out)? {
        return Ok(exit);
    }
    let log = switchboard_core::logging::init_for_app(Some(&data_dir));
    let mut config = engine_config(data_dir, no_demo)?;
    // The UI paired browsers are given, from what the app's binary carries.
    config.web_assets = web_assets();
    // The user's other machines, which the engine reaches for its browsers, and the notices
    // their pages are told.
    let machines = beyond::Machines::new(config.data_dir.clone());
    config.web_machines = Some(machines.clone().for_web());
    let result = run(config, Some(machines.pages()));
    drop(log);
    result
}

/// The engine's configuration: the demo agent (unless `no_demo`), the hook
/// binary, the keeper and the tools' server beside the app's binary.
pub fn engine_config(data_dir: PathBuf, no_demo: bool) -> Result<EngineConfig> {
    let mut config = EngineConfig::new(data_dir, std::env::var_os("XDG_RUNTIME_DIR").map(PathBuf::from));
    if !no_demo {
        config.demo_agent = demo_agent()?;
    }
    config.hook_binary = beside_app(HOOK_BINARY)?;
    config.keeper = config.hook_binary.clone();
    config.mcp_binary = beside_app(switchboard_core::mcp::MCP_BINARY)?;
    Ok(config)
}

/// A program installed next to the app's own binary, if it is there.
fn beside_app(name: &str) -> Result<Option<PathBuf>> {
    let exe = std::env::current_exe().context("locating the app binary")?;
    let candidate = exe.with_file_name(name);
    if candidate.is_file() {
        Ok(Some(candidate))
    } else {
        tracing::warn!(path = %candidate.display(), "{name} not found beside the app");
        Ok(None)
    }
}

/// The demo agent is installed next to the app's own binary.
fn demo_agent() -> Result<Option<PathBuf>> {
    let exe = std::env::current_exe().context("locating the app binary")?;
    let candidate = exe.with_file_name(DEMO_AGENT_BINARY);
    if candidate.is_file() {
        Ok(Some(candidate))
    } else {
        tracing::warn!(path = %candidate.display(), "demo agent not found; starting without the demo workspace");
        Ok(None)
    }
}
