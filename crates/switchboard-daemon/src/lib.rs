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
    config.login_service = login_service(
        &config.data_dir,
        &std::fs::read_to_string("/proc/self/cgroup").unwrap_or_default(),
        std::env::var_os("XDG_CONFIG_HOME").as_deref(),
        std::env::var_os("HOME").as_deref(),
    );
    Ok(config)
}

/// Whether the login service runs the engine: systemd started this process
/// as the unit `daemon --install` writes (its control group, `cgroup`, is
/// that unit's; an `INVOCATION_ID` would not tell, since every program a
/// service starts inherits it), or the unit is enabled, linked from the
/// user's unit folder, and starts the engine on `data_dir`.
pub fn login_service(
    data_dir: &Path,
    cgroup: &str,
    xdg_config_home: Option<&std::ffi::OsStr>,
    home: Option<&std::ffi::OsStr>,
) -> switchboard_core::LoginService {
    let in_unit = cgroup.lines().any(|line| line.rsplit('/').next() == Some(install::UNIT_NAME));
    switchboard_core::LoginService {
        started_by_manager: in_unit,
        enabled_link: install::user_unit_dir(xdg_config_home, home).map(|dir| install::enabled_link(&dir)),
        unit_names: install::names_data_dir(data_dir),
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_login_service_runs_the_engine_when_its_unit_holds_the_process_or_is_enabled() {
        let config = tempfile::tempdir().unwrap();
        let home = Some(config.path().as_os_str());
        let cases = [
            ("0::/user.slice/user-1000.slice/user@1000.service/app.slice/switchboard.service\n", true),
            ("1:name=systemd:/user.slice/user-1000.slice/user@1000.service/switchboard.service\n0::/\n", true),
            // A program a service started (a terminal's shell) is not the daemon's unit.
            ("0::/user.slice/user-1000.slice/user@1000.service/app.slice/app-gnome-terminal.scope\n", false),
            ("0::/user.slice/user-1000.slice/session-2.scope\n", false),
            ("0::/\n", false),
            ("", false),
        ];
        let data = Path::new("/home/me/switchboard data");
        for (cgroup, runs) in cases {
            assert_eq!(login_service(data, cgroup, home, None).runs_engine(), runs, "{cgroup}");
        }
        let service = login_service(data, "0::/\n", home, None);
        let link = service.enabled_link.clone().unwrap();
        let units = config.path().join("systemd/user");
        assert_eq!(link, units.join("default.target.wants/switchboard.service"));
        std::fs::create_dir_all(link.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink("../switchboard.service", &link).unwrap();
        assert!(!service.runs_engine(), "a link to no unit starts nothing");
        let unit = |data_dir: &str| install::DaemonUnit {
            exe: "/usr/bin/switchboard".into(),
            data_dir: data_dir.into(),
            no_demo: false,
        };
        std::fs::write(units.join("switchboard.service"), install::unit_text(&unit("/home/me/other"))).unwrap();
        assert!(!service.runs_engine(), "the unit starts an engine on another data folder");
        std::fs::write(units.join("switchboard.service"), install::unit_text(&unit("/home/me/switchboard data")))
            .unwrap();
        assert!(service.runs_engine(), "enabled on this data folder: it starts at each login");
        let nearly = login_service(Path::new("/home/me/switchboard"), "0::/\n", home, None);
        assert!(!nearly.runs_engine(), "a data folder whose name begins another's is not it");
    }
}
