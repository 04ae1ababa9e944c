//! The Tauri shell: a client of the engine, which runs as a daemon of its
//! own. It links to the engine (starting it if need be), forwards its events
//! to the web view, registers the commands, keeps the app in the tray when
//! the window closes, and leaves the agents running when it quits (the tray
//! can also stop them). No business logic lives here.

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{Context, Result};
use switchboard_core::AppInfo;

use crate::desktop::{Desktop, TrayActions, app_icon};
use crate::engines::Engines;
use crate::link::{Link, Role};
use tauri::{AppHandle, Manager, WindowEvent};
use tokio::signal::unix::{Signal, SignalKind, signal};

/// Where the window finds its engine.
pub struct Engine {
    pub data_dir: PathBuf,
    pub socket: PathBuf,
    /// A daemon the window starts makes no demo agent.
    pub no_demo: bool,
    /// Another machine's engine, reached over SSH, in place of this one's.
    pub host: Option<switchboard_client::ssh::Host>,
}

/// `open`: what the window opens once its UI has loaded (`--open`);
/// `claim`: its place as the one window, where a second launch hands over
/// (none: it could not be taken).
pub fn run(
    engine: Engine,
    open: Option<switchboard_api::OpenTarget>,
    claim: Option<switchboard_daemon::window::WindowClaim>,
) -> Result<()> {
    let info = AppInfo {
        data_dir: engine.data_dir.display().to_string(),
        socket_path: engine.socket.display().to_string(),
        host: engine.host.as_ref().map(|h| h.destination.clone()),
        version: env!("CARGO_PKG_VERSION").to_owned(),
        startup_problem: None,
    };
    tracing::info!(data_dir = %info.data_dir, "opening Switchboard");
    let quit_signals = QuitSignals::listen()?;
    // Live until the window says it shows no agent.
    let pace = tokio::sync::watch::Sender::new(switchboard_api::EventPace::Live);
    // Who holds what, learnt from every engine the window shows: this machine's first.
    let owners = std::sync::Arc::default();
    let link = Link::new(
        engine.data_dir.clone(),
        engine.socket.clone(),
        engine.no_demo,
        engine.host,
        Role::Main { owners: std::sync::Arc::clone(&owners) },
        pace.subscribe(),
    );
    let engines = Engines::new(link, owners, engine.data_dir.clone(), engine.socket, pace);
    let data_dir = engine.data_dir;

    let app = tauri::Builder::default()
        .manage(info)
        .manage(engines.clone())
        .manage(crate::hosts::Hosts::new(data_dir.clone(), engines.clone()))
        .manage(Desktop::new(&data_dir, open))
        // The native folder picker beside an agent's working directory; the
        // capability file grants the window its `open` only.
        .plugin(tauri_plugin_dialog::init())
        .setup(move |app| {
            app.state::<Desktop>().build_tray(app.handle(), TrayActions { quit, pause_all });
            if let Some(window) = app.get_webview_window("main") {
                window.set_icon(app_icon()).ok();
            }
            engines.start(app.handle().clone());
            if let Some(claim) = claim {
                let handle = app.handle().clone();
                claim.serve(move |open| crate::desktop::bring_forward(&handle, open))?;
            }
            Ok(())
        })
        .on_window_event(|window, event| {
            if let WindowEvent::CloseRequested { api, .. } = event {
                let app = window.app_handle();
                // With a tray to come back from, closing the window keeps the app there.
                if app.state::<Desktop>().has_tray() {
                    api.prevent_close();
                    window.hide().ok();
                    app.state::<Desktop>().closed_to_tray(app);
                }
            }
        })
        .invoke_handler(tauri::generate_handler![
            crate::commands::app_info,
            crate::commands::engine_link,
            crate::commands::attached_hosts,
            crate::commands::connect_host,
            crate::commands::start_engine,
            crate::commands::restart_engine,
            crate::commands::quit_and_stop_agents,
            crate::commands::engine_call,
            crate::commands::attach_terminal,
            crate::commands::detach_terminal,
            crate::commands::set_viewing,
            crate::commands::set_event_pace,
            crate::commands::follow_log,
            crate::commands::open_artifact,
            crate::commands::take_open_target,
            crate::commands::list_hosts,
            crate::commands::add_host,
            crate::commands::remove_host,
            crate::commands::open_host,
        ])
        .build(context())
        .context("building the app window")?;

    quit_signals.quit_on_arrival(app.handle().clone());
    // Quitting the window leaves the engine and its agents running.
    app.run(|_, _| {});
    Ok(())
}

/// Quits the window, and with it the tray; the agents keep running in the engine.
fn quit(app: &AppHandle) {
    app.exit(0);
}

/// Pauses (true) or resumes every queue of the window's own engine.
fn pause_all(app: &AppHandle, pause: bool) {
    let engines = app.state::<Arc<Engines>>().inner().clone();
    tauri::async_runtime::spawn(async move {
        let paused = engines.call(switchboard_core::Command::SetQueuePaused { profile_id: None, paused: pause }, None);
        if let Err(error) = paused.await {
            tracing::warn!(message = %error.message, "pausing every queue failed");
        }
    });
}

/// SIGTERM (a `kill`, a logout), SIGINT (Ctrl+C in the launching terminal)
/// and SIGHUP quit the window the normal way; the engine and its agents go on.
///
/// Listening starts before the window does: a signal that arrives while the
/// app is still starting is kept and acted on once the app exists.
struct QuitSignals {
    terminate: Signal,
    interrupt: Signal,
    hangup: Signal,
}

impl QuitSignals {
    fn listen() -> Result<QuitSignals> {
        tauri::async_runtime::block_on(async {
            Ok::<_, std::io::Error>(QuitSignals {
                terminate: signal(SignalKind::terminate())?,
                interrupt: signal(SignalKind::interrupt())?,
                hangup: signal(SignalKind::hangup())?,
            })
        })
        .context("listening for quit signals")
    }

    fn quit_on_arrival(mut self, app: AppHandle) {
        tauri::async_runtime::spawn(async move {
            tokio::select! {
                _ = self.terminate.recv() => {}
                _ = self.interrupt.recv() => {}
                _ = self.hangup.recv() => {}
            }
            tracing::info!("quitting on a signal");
            app.exit(0);
        });
    }
}

/// The app's build-time context (its configuration and the UI's files), made
/// once here: the window and the daemon's web server share its files.
fn context() -> tauri::Context<tauri::Wry> {
    tauri::generate_context!("../tauri.conf.json")
}

/// The UI's files this binary carries, for the engine's web server (none in a
/// development build, which loads the UI from Vite's server).
pub fn web_assets() -> Option<switchboard_core::web::WebAssets> {
    let mut context = context();
    let assets: std::sync::Arc<dyn tauri::Assets<tauri::Wry>> = context.set_assets(Box::new(NoAssets)).into();
    let key = |path: &str| tauri::utils::assets::AssetKey::from(path);
    assets.get(&key("index.html"))?;
    Some(switchboard_core::web::WebAssets(std::sync::Arc::new(move |path: &str| {
        assets.get(&key(path)).map(|bytes| std::borrow::Cow::Owned(bytes.into_owned()))
    })))
}

/// What the context keeps once its files are taken for the web server.
struct NoAssets;

impl tauri::Assets<tauri::Wry> for NoAssets {
    fn get(&self, _key: &tauri::utils::assets::AssetKey) -> Option<std::borrow::Cow<'_, [u8]>> {
        None
    }

    fn iter(&self) -> Box<tauri::utils::assets::AssetsIter<'_>> {
        Box::new(std::iter::empty())
    }

    fn csp_hashes(
        &self,
        _html_path: &tauri::utils::assets::AssetKey,
    ) -> Box<dyn Iterator<Item = tauri::utils::assets::CspHash<'_>> + '_> {
        Box::new(std::iter::empty())
    }
}
