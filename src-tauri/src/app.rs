//! The Tauri shell: starts the engine, forwards its events to the web view,
//! registers the commands, and stops every agent when the app exits. No
//! business logic lives here.

use std::sync::{Arc, OnceLock};

use anyhow::{Context, Result};
use switchboard_core::notice::Notices;
use switchboard_core::{AppInfo, Engine, EngineConfig, EngineEvent};

use crate::desktop::{Desktop, app_icon};
use tauri::{AppHandle, Emitter, Manager, RunEvent};
use tokio::signal::unix::{Signal, SignalKind, signal};

/// The Tauri event carrying every [`EngineEvent`] to the UI.
pub const ENGINE_EVENT: &str = "engine-event";

pub fn run(config: EngineConfig) -> Result<()> {
    let mut info = AppInfo {
        data_dir: config.data_dir.display().to_string(),
        socket_path: config.socket_path.display().to_string(),
        version: env!("CARGO_PKG_VERSION").to_owned(),
        startup_problem: None,
    };
    tracing::info!(data_dir = %info.data_dir, "starting Switchboard");
    let quit_signals = QuitSignals::listen()?;

    // The engine starts before any window, so a refusal (another instance
    // on this data directory) is reported without one; a data directory it
    // cannot write (a full disk, read-only) opens the window to say so. Its
    // events reach the UI once the app handle exists; earlier ones
    // have no listener anyway (the UI loads the lists when it opens).
    let app_handle: Arc<OnceLock<AppHandle>> = Arc::default();
    let sink_handle = app_handle.clone();
    let sink = move |event: EngineEvent| {
        let Some(handle) = sink_handle.get() else { return };
        let desktop = handle.try_state::<Desktop>();
        if desktop.as_ref().is_none_or(|d| d.forwards(&event))
            && let Err(error) = handle.emit(ENGINE_EVENT, &event)
        {
            tracing::warn!(%error, "forwarding an engine event to the UI failed");
        }
        if let Some(desktop) = desktop {
            desktop.on_event(handle, &event);
        }
    };
    let data_dir = config.data_dir.clone();
    let (engine, notices) = match tauri::async_runtime::block_on(Engine::start(config, Arc::new(sink))) {
        Ok(engine) => {
            let notices = tauri::async_runtime::block_on(async {
                let mut notices = Notices::new(
                    &engine.list_profiles().await?,
                    &engine.list_queues().await?,
                    &engine.list_signals().await?,
                    &engine.list_loops().await?,
                    &engine.list_attention().await?,
                );
                // Later changes come as `settings_changed` events.
                notices.set_settings(engine.get_settings().await?);
                Ok::<_, switchboard_core::EngineError>(notices)
            })?;
            (engine, notices)
        }
        Err(error) => match error.startup_problem(&data_dir) {
            Some(problem) => {
                tracing::error!(%error, ?problem, "the engine cannot start on its data; the window says so");
                info.startup_problem = Some(problem);
                (switchboard_core::EngineHandle::stopped(), Notices::default())
            }
            None => return Err(error.into()),
        },
    };

    let app = tauri::Builder::default()
        .manage(info)
        .manage(engine)
        .manage(Desktop::new(notices, &data_dir))
        // The native folder picker beside an agent's working directory; the
        // capability file grants the window its `open` only.
        .plugin(tauri_plugin_dialog::init())
        .setup(move |app| {
            app_handle.set(app.handle().clone()).expect("setup runs once");
            app.state::<Desktop>().build_tray(app.handle());
            if let Some(window) = app.get_webview_window("main") {
                window.set_icon(app_icon()).ok();
            }
            Ok(())
        })
        .invoke_handler(tauri::generate_handler![
            crate::commands::app_info,
            crate::commands::engine_call,
            crate::commands::attach_terminal,
            crate::commands::detach_terminal,
            crate::commands::set_viewing,
            crate::commands::follow_log,
            crate::commands::open_artifact,
        ])
        .build(tauri::generate_context!("../tauri.conf.json"))
        .context("building the app window")?;

    quit_signals.quit_on_arrival(app.handle().clone());
    app.run(|app, event| {
        if let RunEvent::Exit = event
            && let Some(engine) = app.try_state::<switchboard_core::EngineHandle>()
        {
            // Agents do not outlive the app: stop them (SIGTERM, grace, SIGKILL).
            tauri::async_runtime::block_on(engine.shutdown());
        }
    });
    Ok(())
}

/// SIGTERM (a `kill`, a logout), SIGINT (Ctrl+C in the launching terminal)
/// and SIGHUP quit the app the normal way, so its agents are stopped and
/// recorded as killed instead of being found "interrupted" at the next start.
///
/// Listening starts before the engine does: a signal that arrives while the
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
