//! Tauri commands: each is a one-line delegation. The engine's own commands
//! all go through `engine_call` in their wire form (the list lives once, in
//! the engine) over the link to the engine; the rest are the window's own:
//! the link itself, streaming a terminal, the app's facts, and which task is
//! on screen. Errors cross to the UI as `ApiError {code, message, field}`.

use std::sync::Arc;

use switchboard_core::{ApiError, AppInfo, Command, EngineLink, FollowedLog, SessionId, SubscriptionId, TaskId};

use crate::desktop::Desktop;
use crate::engines::Engines;
use crate::hosts::Hosts;
use switchboard_api::{HostLink, HostState};
use tauri::State;
use tauri::ipc::Channel;

type Engine<'a> = State<'a, Arc<Engines>>;
type Reply<T> = Result<T, ApiError>;

/// The app's facts, once the window has reached its engine or knows why not.
#[tauri::command]
pub async fn app_info(info: State<'_, AppInfo>, engine: Engine<'_>) -> Reply<AppInfo> {
    engine.settled().await;
    Ok(AppInfo { startup_problem: engine.main().startup_problem(), ..info.inner().clone() })
}

/// The window's link to the engine now (later changes come as `engine-link` events).
#[tauri::command]
pub fn engine_link(engine: Engine<'_>) -> EngineLink {
    engine.main().state()
}

/// How soon the window wants the engines' events: within a frame while it
/// shows an agent live, less often while it shows none.
#[tauri::command]
pub fn set_event_pace(engine: Engine<'_>, pace: switchboard_api::EventPace) {
    engine.set_pace(pace)
}

/// Each other machine the window shows beside this one's, with its link now
/// (later changes come as `host-link` events).
#[tauri::command]
pub fn attached_hosts(engine: Engine<'_>) -> Vec<HostLink> {
    engine.links()
}

/// Tries that machine again now.
#[tauri::command]
pub fn connect_host(engine: Engine<'_>, destination: String) -> Reply<()> {
    engine.connect_now(&destination)
}

/// Starts the engine if it is not running, and connects to it.
#[tauri::command]
pub fn start_engine(engine: Engine<'_>) {
    engine.main().start_engine()
}

/// Stops the engine (and its agents) and starts it again.
#[tauri::command]
pub async fn restart_engine(engine: Engine<'_>) -> Reply<()> {
    engine.main().restart_engine().await
}

/// Stops this machine's engine and every agent it runs, then quits: once
/// the user said so in the window (asked from the tray).
#[tauri::command]
pub fn quit_and_stop_agents(app: tauri::AppHandle) {
    crate::engines::quit_and_stop_agents(&app)
}

/// Any engine command meant for the window, answered with its reply: sent
/// to the machine `host` names, or (none) where what it names is.
#[tauri::command]
pub async fn engine_call(engine: Engine<'_>, command: Command, host: Option<String>) -> Reply<switchboard_core::Reply> {
    engine.call(command, host).await
}

/// Streams the session's output (replay first) as raw bytes over `output`;
/// the subscription ends when the channel is gone or on `detach_terminal`.
#[tauri::command]
pub async fn attach_terminal(engine: Engine<'_>, session_id: SessionId, output: Channel) -> Reply<SubscriptionId> {
    engine.attach(session_id, output).await
}

#[tauri::command]
pub async fn detach_terminal(engine: Engine<'_>, session_id: SessionId, subscription: SubscriptionId) -> Reply<()> {
    // The stream's number names it on the window's connection.
    tracing::trace!(session = %session_id, "detaching a terminal");
    engine.detach(subscription).await
}

/// The event log entries a view of the window follows as they are written (none: none).
#[tauri::command]
pub fn follow_log(desktop: State<'_, Desktop>, followed: Option<FollowedLog>) {
    desktop.set_followed(followed)
}

/// Opens a file a task returned with its usual app, or shows it in its folder.
#[tauri::command]
pub async fn open_artifact(engine: Engine<'_>, task_id: TaskId, path: String, reveal: bool) -> Reply<()> {
    crate::artifacts::open(engine.inner(), task_id, path, reveal).await
}

/// What the window was started to open (`--open`: a notification the daemon
/// showed was clicked), once; none after that.
#[tauri::command]
pub fn take_open_target(desktop: State<'_, Desktop>) -> Option<switchboard_api::OpenTarget> {
    desktop.take_open_target()
}

/// What the window shows and whether it has the focus: what the user looks
/// at gets no desktop notification, and a failure on screen is seen.
#[tauri::command]
pub async fn set_viewing(
    app: tauri::AppHandle,
    desktop: State<'_, Desktop>,
    engine: Engine<'_>,
    viewing: switchboard_core::Viewing,
) -> Reply<()> {
    crate::engines::set_viewing(&app, &desktop, engine.inner(), viewing).await
}

/// The other machines in the list, each with how it answers now.
#[tauri::command]
pub async fn list_hosts(hosts: State<'_, Hosts>) -> Reply<Vec<HostState>> {
    hosts.list().await
}

/// Adds a machine once its engine answers (a host key not known yet is
/// accepted only by its fingerprint, `accept_key`).
#[tauri::command]
pub async fn add_host(
    hosts: State<'_, Hosts>,
    destination: String,
    port: Option<u16>,
    remote_program: Option<String>,
    accept_key: Option<String>,
) -> Reply<HostState> {
    hosts.add(destination, port, remote_program, accept_key).await
}

/// Takes a machine out of the list (its engine and agents go on there).
#[tauri::command]
pub fn remove_host(hosts: State<'_, Hosts>, destination: String) -> Reply<()> {
    hosts.remove(&destination)
}

/// Opens a window on the machine's engine.
#[tauri::command]
pub fn open_host(hosts: State<'_, Hosts>, destination: String) -> Reply<()> {
    hosts.open(&destination)
}
