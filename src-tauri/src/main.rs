//! `switchboard`: the desktop app. Parses the command line, resolves where
//! data lives, and hands over to the Tauri shell in [`app`]; with a
//! subcommand (`switchboard task add ...`) it is instead a client of the
//! running app (see `switchboard-cli`).

mod app;
mod commands;
mod desktop;
mod engines;
mod hosts;
mod link;

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use switchboard_cli::Cli;
use switchboard_core::EngineConfig;
use switchboard_core::config::resolve_data_dir;

/// Name of the scripted demo agent binary, shipped beside the app's.
const DEMO_AGENT_BINARY: &str = "switchboard-demo-agent";
/// Name of the hook binary agents' hooks run, shipped beside the app's.
const HOOK_BINARY: &str = "switchboard-hook";

fn main() -> Result<std::process::ExitCode> {
    // Before any engine or client says who it is (`build.rs` stamps the build).
    switchboard_api::wire::stamp_build(env!("SWITCHBOARD_BUILD_ID"));
    let cli = Cli::from_args();
    // A command given --host runs on that machine or is refused
    // (`switchboard_cli::on_host`): never here, as the ones below would.
    let here = cli.host.is_none();
    if let (true, Some(switchboard_cli::ClientCommand::Scan)) = (here, &cli.command) {
        let (mut out, mut err) = (std::io::stdout().lock(), std::io::stderr().lock());
        return Ok(switchboard_cli::scan_input(std::io::stdin().lock(), &mut out, &mut err));
    }
    if let (true, Some(switchboard_cli::ClientCommand::Daemon(args))) = (here, &cli.command) {
        let data_dir = data_dir(cli.data_dir.as_deref())?;
        let socket = switchboard_cli::socket_for(Some(&data_dir))?;
        if args.stdio {
            // Standard output is the connection's: nothing else may go there
            // (nor hold it locked).
            return switchboard_cli::daemon::stdio(&data_dir, &socket);
        }
        let out = &mut std::io::stdout().lock();
        if args.status {
            return switchboard_cli::daemon::print_status(&data_dir, &socket, args.output.json, out);
        }
        if args.stop {
            return switchboard_cli::daemon::stop(&data_dir, &socket, out);
        }
        if args.install || args.uninstall {
            return switchboard_cli::install::run(args.install, &data_dir, cli.no_demo, out);
        }

        // The engine alone: the app's own, with no window; unless one runs
        // there already, as `--status` would say.
        if let Some(exit) = switchboard_cli::daemon::already_running(&data_dir, &socket, out)? {
            return Ok(exit);
        }
        let log = switchboard_core::logging::init_for_app(Some(&data_dir));
        let result = switchboard_cli::daemon::run(engine_config(data_dir, cli.no_demo)?);
        drop(log);
        return result;
    }
    if let Some(command) = cli.command {
        // A client of the running app, or of another machine's engine: no
        // window, no engine of its own.
        let data_dir = data_dir(cli.data_dir.as_deref())?;
        let reach = match cli.host.as_deref() {
            Some(destination) => switchboard_cli::reach_host(&data_dir, destination)?,
            None => switchboard_client::blocking::Reach::Socket(switchboard_cli::socket_for(Some(&data_dir))?),
        };
        return Ok(switchboard_cli::run_reaching(
            command,
            reach,
            Some(&data_dir),
            &mut std::io::stdout().lock(),
            &mut std::io::stderr().lock(),
        ));
    }
    use switchboard_cli::webview;
    if webview::paint_without_compositing(
        std::env::var_os(webview::NO_COMPOSITING).is_some(),
        webview::has_render_node(Path::new(webview::DRI)),
    ) {
        // SAFETY: no other thread runs yet (logging and the window start below), so
        // nothing reads the environment while it changes.
        unsafe { std::env::set_var(webview::NO_COMPOSITING, "1") };
    }
    let env = |name| std::env::var(name).ok();
    let data_dir = data_dir(cli.data_dir.as_deref())?;
    // Logging never panics or blocks, whatever becomes of stderr; the log
    // file lives in the data directory when it can be written.
    let log = switchboard_core::logging::init_for_app(Some(&data_dir));

    let socket = switchboard_cli::socket_for(Some(&data_dir))?;
    // The window on another machine's engine (`--host`), or on this one's.
    let host = match cli.host.as_deref() {
        Some(destination) => match switchboard_cli::reach_host(&data_dir, destination)? {
            switchboard_client::blocking::Reach::Ssh(host) => Some(host),
            switchboard_client::blocking::Reach::Socket(_) => None,
        },
        None => None,
    };
    // One window per data directory (and host): a second launch hands over to it.
    let runtime_dir = std::env::var_os("XDG_RUNTIME_DIR").map(PathBuf::from);
    let destination = host.as_ref().map(|host| host.destination.as_str());
    use switchboard_cli::window::{Launch, UNANSWERED, claim};
    let claim = match claim(&data_dir, runtime_dir.as_deref(), destination, cli.open.as_ref()) {
        Ok(Launch::First(claim)) => Some(claim),
        Ok(Launch::HandedOff) => {
            tracing::info!("the window already open came forward");
            return Ok(std::process::ExitCode::SUCCESS);
        }
        Ok(Launch::Unanswered) => anyhow::bail!(UNANSWERED),
        // The window still opens (it says what is wrong with the data directory).
        Err(error) => {
            tracing::warn!(error = %format!("{error:#}"), "a second launch will not find this window");
            None
        }
    };
    if env("DISPLAY").is_none() && env("WAYLAND_DISPLAY").is_none() {
        anyhow::bail!("no display to open a window on: neither DISPLAY nor WAYLAND_DISPLAY is set");
    }
    let result = app::run(app::Engine { data_dir, socket, no_demo: cli.no_demo, host }, cli.open, claim);
    let losses = log.losses();
    if losses != Default::default() {
        tracing::warn!(dropped = losses.dropped, failed = losses.failed, "some log lines could not be written");
    }
    result?;
    Ok(std::process::ExitCode::SUCCESS)
}

/// Where data lives: the flag, else the environment, made absolute.
fn data_dir(flag: Option<&Path>) -> Result<PathBuf> {
    let env = |name| std::env::var(name).ok();
    let data_dir = resolve_data_dir(
        flag,
        env("SWITCHBOARD_DATA_DIR").as_deref(),
        env("XDG_DATA_HOME").as_deref(),
        env("HOME").as_deref(),
    )
    .context("cannot tell where to keep data: pass --data-dir or set SWITCHBOARD_DATA_DIR")?;
    switchboard_cli::canonical_data_dir(&data_dir)
}

/// The engine's configuration, for the window's engine and the daemon alike:
/// the demo agent (unless `no_demo`), the hook binary and the keeper beside
/// the app's binary.
fn engine_config(data_dir: PathBuf, no_demo: bool) -> Result<EngineConfig> {
    let mut config = EngineConfig::new(data_dir, std::env::var_os("XDG_RUNTIME_DIR").map(PathBuf::from));
    if !no_demo {
        config.demo_agent = demo_agent()?;
    }
    config.hook_binary = beside_app(HOOK_BINARY)?;
    config.keeper = config.hook_binary.clone();
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
