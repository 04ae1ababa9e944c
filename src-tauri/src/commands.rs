//! Tauri commands: each is a one-line delegation. The engine's own commands
//! all go through `engine_call` in their wire form (the list lives once, in
//! the engine); the rest are the window's own: streaming a terminal, the
//! app's facts, and which task is on screen. Errors cross to the UI as
//! `ApiError {code, message, field}`.

use switchboard_core::{ApiError, AppInfo, Command, EngineHandle, FollowedLog, SessionId, SubscriptionId, TaskId};

use crate::desktop::Desktop;
use tauri::State;
use tauri::ipc::{Channel, InvokeResponseBody};

type Engine<'a> = State<'a, EngineHandle>;
type Reply<T> = Result<T, ApiError>;

#[tauri::command]
pub fn app_info(info: State<'_, AppInfo>) -> AppInfo {
    info.inner().clone()
}

/// Any engine command meant for the window, answered with its reply.
#[tauri::command]
pub async fn engine_call(engine: Engine<'_>, command: Command) -> Reply<switchboard_core::Reply> {
    engine.call_from_window(command).await.map_err(Into::into)
}

/// Streams the session's output (replay first) as raw bytes over `output`;
/// the subscription ends when the channel is gone or on `detach_terminal`.
#[tauri::command]
pub async fn attach_terminal(engine: Engine<'_>, session_id: SessionId, output: Channel) -> Reply<SubscriptionId> {
    engine
        .attach(session_id, move |batch: &[u8]| output.send(InvokeResponseBody::Raw(batch.to_vec())).is_ok())
        .await
        .map_err(Into::into)
}

#[tauri::command]
pub async fn detach_terminal(engine: Engine<'_>, session_id: SessionId, subscription: SubscriptionId) -> Reply<()> {
    engine.detach(session_id, subscription).await.map_err(Into::into)
}

/// The event log entries a view of the window follows as they are written (none: none).
#[tauri::command]
pub fn follow_log(desktop: State<'_, Desktop>, followed: Option<FollowedLog>) {
    desktop.set_followed(followed)
}

/// Opens a file a task returned with its usual app, or shows it in its folder.
#[tauri::command]
pub async fn open_artifact(engine: Engine<'_>, task_id: TaskId, path: String, reveal: bool) -> Reply<()> {
    crate::desktop::open_artifact(engine.inner(), task_id, path, reveal).await
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
    desktop.set_viewing(&app, engine.inner(), viewing).await
}
