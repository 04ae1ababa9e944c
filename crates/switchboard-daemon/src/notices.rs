//! The daemon's notices: while no window follows the engine, the daemon
//! shows the desktop notifications the user's settings ask for, and a click
//! on one opens a window on its task, question or loop.
//!
//! The daemon follows its own engine's events with a [`Notices`] of its own,
//! started from the engine's lists like a window's, whether or not a window
//! is open, so that it knows what stands when the last window goes. Each
//! event says how many windows receive it (counted under the same lock as
//! their subscriptions); what the daemon does with it is [`carried_by_daemon`].
//! A window shows what happens after it connected; the daemon, what happens
//! while none is connected: nothing is notified twice. (An event published
//! as a window goes, not yet read by it, is notified by neither.)

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use switchboard_api::OpenTarget;
use switchboard_client::notice::{Action, Notices};
use switchboard_core::{EngineError, EngineHandle};
use tokio::sync::broadcast::error::RecvError;

use crate::beyond::Pages;
use crate::notifications::{Click, DesktopNotifications, local_minute_of_day, now_millis};

/// The environment variables that say where a window goes: the display, its
/// authority, and the kind of session.
const DISPLAY_VARIABLES: &[&str] = &["DISPLAY", "WAYLAND_DISPLAY", "XAUTHORITY", "XDG_SESSION_TYPE"];

/// Environment variables for a program started: each set (`Some`) or unset (`None`).
pub type Environment = Vec<(String, Option<String>)>;

/// Whether the daemon carries out a notices' action for an event that
/// `windows` windows received. With none, everything. While a window
/// follows, the window shows its notices itself: the daemon shows nothing,
/// and only closes what it showed before the window came, once the notices
/// settle it (an answered question, a stall that moved on).
pub fn carried_by_daemon(action: &Action, windows: usize) -> bool {
    windows == 0 || matches!(action, Action::Close { .. })
}

/// Follows the engine's events for the daemon's notices, until the engine
/// stops. `data_dir` and `no_demo`: what a window it opens is started with.
/// `pages`: where browsers' pages are told the same notices, whatever the windows.
pub fn spawn(engine: &EngineHandle, data_dir: PathBuf, no_demo: bool, pages: Option<Pages>) {
    let engine = engine.clone();
    tokio::spawn(async move {
        if let Err(error) = follow(engine, data_dir, no_demo, pages).await {
            tracing::warn!(%error, "the daemon shows no notifications");
        }
    });
}

async fn follow(
    engine: EngineHandle,
    data_dir: PathBuf,
    no_demo: bool,
    pages: Option<Pages>,
) -> Result<(), EngineError> {
    let Some(feed) = engine.feed() else { return Ok(()) };
    let (mut events, _) = feed.subscribe();
    drop(feed);
    // The lists after the subscription: a change between the two is in one or the other.
    let mut notices = notices_of(&engine).await?;
    // Connects to the desktop at the first notification.
    let mut desktop: Option<DesktopNotifications> = None;
    loop {
        let sequenced = match events.recv().await {
            Ok(sequenced) => sequenced,
            Err(RecvError::Lagged(missed)) => {
                tracing::warn!(missed, "the daemon's notices fell behind the engine; they start again from its lists");
                notices = notices_of(&engine).await?;
                continue;
            }
            Err(RecvError::Closed) => return Ok(()),
        };
        let decided = notices.follow(&sequenced.event, local_minute_of_day(), now_millis());
        // Every page is told, whether or not a window shows the desktop's notices.
        if let Some(pages) = &pages {
            pages.tell(&decided);
        }
        let actions: Vec<Action> =
            decided.into_iter().filter(|action| carried_by_daemon(action, sequenced.windows)).collect();
        if actions.is_empty() {
            continue;
        }
        if desktop.is_none() {
            let opener = WindowOpener::new(&data_dir, no_demo);
            let icon = crate::notifications::write_icon(&data_dir);
            match DesktopNotifications::start(icon, move |click| opener.open(click)) {
                Ok(started) => desktop = Some(started),
                Err(error) => tracing::warn!(%error, "could not start the notification thread"),
            }
        }
        if let Some(shown) = &desktop
            && !shown.carry_out(actions)
        {
            tracing::warn!("the notification thread has ended");
            desktop = None;
        }
    }
}

/// The notices' starting point: what the engine has now.
async fn notices_of(engine: &EngineHandle) -> Result<Notices, EngineError> {
    let mut notices = Notices::new(
        &engine.list_profiles().await?,
        &engine.list_queues().await?,
        &engine.list_signals().await?,
        &engine.list_loops().await?,
        &engine.list_attention().await?,
    );
    notices.already_told(
        &engine.list_limits().await?,
        &engine.list_tasks(None).await?,
        &engine.list_worktrees().await?,
    );
    notices.set_settings(engine.get_settings().await?);
    Ok(notices)
}

/// Opens a window for a clicked notification: this very program, on the
/// daemon's data directory, in a session of its own.
struct WindowOpener {
    data_dir: PathBuf,
    no_demo: bool,
    /// The user's service manager runs the daemon (systemd sets
    /// `INVOCATION_ID` for its services): the display is read from the
    /// manager at each click, since the daemon may have started before the
    /// graphical session did.
    under_manager: bool,
}

impl WindowOpener {
    fn new(data_dir: &Path, no_demo: bool) -> WindowOpener {
        let under_manager = std::env::var_os("INVOCATION_ID").is_some();
        WindowOpener { data_dir: data_dir.to_owned(), no_demo, under_manager }
    }

    fn open(&self, click: Click) {
        let manager = self.under_manager.then(manager_environment).flatten();
        let mut environment = display_of(manager.as_deref());
        // The server's token lets the new window come to the front (Wayland's
        // activation; X11 reads the startup id); a token the daemon inherited is stale.
        for name in ["XDG_ACTIVATION_TOKEN", "DESKTOP_STARTUP_ID"] {
            environment.push((name.to_owned(), click.activation_token.clone()));
        }
        let target = click.target.opens();
        match open_window(&self.data_dir, self.no_demo, target.as_ref(), &environment) {
            Ok(()) => tracing::info!(opens = ?target.map(|t| t.to_string()), "a notification opened a window"),
            Err(error) => tracing::warn!(error = %format!("{error:#}"), "a notification could not open the window"),
        }
    }
}

/// The user's service manager's environment now, if it answers.
fn manager_environment() -> Option<String> {
    let output = std::process::Command::new("systemctl")
        .args(["--user", "show-environment"])
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    output.status.success().then(|| String::from_utf8_lossy(&output.stdout).into_owned())
}

/// The display variables a window is started with: from the service
/// manager's environment (`systemctl --user show-environment`: `NAME=value`
/// lines) when the daemon runs under it and it names a display, each one it
/// lacks unset; the daemon's own (none: left as they are) otherwise. A value
/// the manager quotes (`$'...'`, for unusual bytes) is not a display's.
fn display_of(manager: Option<&str>) -> Environment {
    let Some(manager) = manager else { return Vec::new() };
    let variables: Environment = DISPLAY_VARIABLES
        .iter()
        .map(|name| {
            let value = manager
                .lines()
                .find_map(|line| line.strip_prefix(name)?.strip_prefix('='))
                .filter(|value| !value.starts_with("$'"));
            ((*name).to_owned(), value.map(str::to_owned))
        })
        .collect();
    let names_a_display = |name: &str| variables.iter().any(|(n, value)| n == name && value.is_some());
    if names_a_display("DISPLAY") || names_a_display("WAYLAND_DISPLAY") { variables } else { Vec::new() }
}

/// The window's arguments: the data directory, no demo if the daemon made
/// none, and what to open.
fn window_arguments(data_dir: &Path, no_demo: bool, target: Option<&OpenTarget>) -> Vec<OsString> {
    let mut arguments = vec![OsString::from("--data-dir"), data_dir.as_os_str().to_owned()];
    if no_demo {
        arguments.push("--no-demo".into());
    }
    if let Some(target) = target {
        arguments.push("--open".into());
        arguments.push(target.to_string().into());
    }
    arguments
}

/// Starts the window on `data_dir` (this very program), opening `target`,
/// in a session of its own with nothing for input or output (it logs to
/// the data directory), so that it lives on whatever becomes of the daemon.
/// The engine records it as the user's: it is the engine's descendant, as
/// agents are, yet makes the user's decisions. `environment`: what changes
/// of the daemon's own for it.
pub fn open_window(
    data_dir: &Path,
    no_demo: bool,
    target: Option<&OpenTarget>,
    environment: &Environment,
) -> Result<()> {
    let exe = std::env::current_exe().context("locating the app binary")?;
    let mut command = std::process::Command::new(exe);
    command.args(window_arguments(data_dir, no_demo, target));
    for (name, value) in environment {
        match value {
            Some(value) => command.env(name, value),
            None => command.env_remove(name),
        };
    }
    let null = std::process::Stdio::null;
    command.stdin(null()).stdout(null()).stderr(null());
    let mut child =
        switchboard_core::session::lineage::start_users_window(&mut command).context("starting the window")?;
    // Reaped when it ends, whenever that is: no zombie under the daemon.
    std::thread::Builder::new()
        .name("window-wait".into())
        .spawn(move || child.wait().ok())
        .context("waiting for the window")?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use switchboard_client::notice::{Lasting, Notice, Slot, Urgency};

    #[test]
    fn the_daemon_shows_only_while_no_window_follows_and_closes_what_it_showed() {
        let show = Action::Show {
            slot: Slot::Finished,
            notice: Notice::closed_to_tray(),
            urgency: Urgency::Low,
            lasting: Lasting::Transient(6_000),
        };
        let close = Action::Close { slot: Slot::Finished };
        let cases = [
            (&show, 0, true),
            (&close, 0, true),
            // A window shows it itself.
            (&show, 1, false),
            (&show, 2, false),
            // What the daemon showed before a window came closes once handled.
            (&close, 1, true),
            (&close, 3, true),
        ];
        for (action, windows, carried) in cases {
            assert_eq!(carried_by_daemon(action, windows), carried, "{action:?} with {windows} windows");
        }
    }

    #[test]
    fn a_window_opened_for_a_notice_names_its_data_and_what_it_opens() {
        let task: OpenTarget = "task:3f2b8c1e-4d5a-4b6c-8d7e-9f0a1b2c3d4e".parse().unwrap();
        let words =
            |arguments: Vec<OsString>| arguments.into_iter().map(|a| a.into_string().unwrap()).collect::<Vec<_>>();
        let dir = Path::new("/home/me/.local/share/switchboard");
        assert_eq!(
            words(window_arguments(dir, false, Some(&task))),
            ["--data-dir", "/home/me/.local/share/switchboard", "--open", "task:3f2b8c1e-4d5a-4b6c-8d7e-9f0a1b2c3d4e"]
        );
        assert_eq!(
            words(window_arguments(dir, true, None)),
            ["--data-dir", "/home/me/.local/share/switchboard", "--no-demo"]
        );
    }

    #[test]
    fn the_display_comes_from_the_service_manager_when_it_runs_the_daemon() {
        let set = |pairs: &[(&str, Option<&str>)]| {
            pairs.iter().map(|(n, v)| ((*n).to_owned(), v.map(str::to_owned))).collect::<Vec<_>>()
        };
        let cases: &[(Option<&str>, Environment)] = &[
            // Not under the manager: the daemon's own environment, untouched.
            (None, vec![]),
            (
                Some("HOME=/home/me\nWAYLAND_DISPLAY=wayland-1\nXDG_SESSION_TYPE=wayland\nDISPLAYS=9\n"),
                set(&[
                    ("DISPLAY", None),
                    ("WAYLAND_DISPLAY", Some("wayland-1")),
                    ("XAUTHORITY", None),
                    ("XDG_SESSION_TYPE", Some("wayland")),
                ]),
            ),
            (
                Some("DISPLAY=:0\nXAUTHORITY=/run/user/1000/gdm/Xauthority\n"),
                set(&[
                    ("DISPLAY", Some(":0")),
                    ("WAYLAND_DISPLAY", None),
                    ("XAUTHORITY", Some("/run/user/1000/gdm/Xauthority")),
                    ("XDG_SESSION_TYPE", None),
                ]),
            ),
            // The manager knows of no display (the session did not tell it, or a quoted value is
            // no display's): the daemon's own environment, which its unit may set.
            (Some("PATH=/usr/bin\nXDG_SESSION_TYPE=x11\n"), vec![]),
            (Some("PATH=/usr/bin\nDISPLAY=$'\\033:0'\n"), vec![]),
        ];
        for (manager, expected) in cases {
            assert_eq!(&display_of(*manager), expected, "{manager:?}");
        }
    }
}
