//! `switchboard`: the desktop app. Parses the command line and hands over:
//! without a subcommand to the Tauri shell in [`app`]; with `daemon` to
//! `switchboard-daemon` (the engine alone); with any other to
//! `switchboard-cli` (a client of the running engine).

mod app;
mod artifacts;
mod commands;
mod desktop;
mod engines;
mod hosts;
mod link;
mod webview;

use std::path::{Path, PathBuf};

use anyhow::Result;
use switchboard_cli::{Cli, ClientCommand};

fn main() -> Result<std::process::ExitCode> {
    // Before any engine or client says who it is (`build.rs` stamps the build).
    switchboard_api::wire::stamp_build(env!("SWITCHBOARD_BUILD_ID"));
    let cli = Cli::from_args();
    match &cli.command {
        // `daemon` on this machine; given --host it is the command line's
        // (`switchboard_cli::on_host`): it runs there or is refused.
        Some(ClientCommand::Daemon(args)) if cli.host.is_none() => {
            switchboard_daemon::run_command(cli.data_dir.as_deref(), cli.no_demo, args, app::web_assets)
        }
        // A client of the running app, or of another machine's engine: no
        // window, no engine of its own.
        Some(_) => switchboard_cli::run_command(cli),
        None => window(cli),
    }
}

/// The window, on this machine's engine or on `--host`'s.
fn window(cli: Cli) -> Result<std::process::ExitCode> {
    if webview::paint_without_compositing(
        std::env::var_os(webview::NO_COMPOSITING).is_some(),
        webview::has_render_node(Path::new(webview::DRI)),
    ) {
        // SAFETY: no other thread runs yet (logging and the window start below), so
        // nothing reads the environment while it changes.
        unsafe { std::env::set_var(webview::NO_COMPOSITING, "1") };
    }
    let env = |name| std::env::var(name).ok();
    let data_dir = switchboard_cli::data_dir(cli.data_dir.as_deref())?;
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
    use switchboard_daemon::window::{Launch, UNANSWERED, claim};
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
