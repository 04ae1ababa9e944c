//! Tauri commands: each is a one-line delegation to the engine handle.
//! Errors cross to the UI as `ApiError {code, message, field}`.

use switchboard_core::{
    AgentStatusInfo, ApiError, AppInfo, EngineHandle, LogEntry, PermissionRequest, Profile, ProfileId, ProfileSpec,
    QueueStatus, SessionId, SessionInfo, SignalId, SignalInfo, SignalResponse, Submitted, SubscriptionId, TaskId,
    TaskInfo, TaskSpec, TermSize,
};

use crate::desktop::Desktop;
use tauri::State;
use tauri::ipc::{Channel, InvokeResponseBody};

type Engine<'a> = State<'a, EngineHandle>;
type Reply<T> = Result<T, ApiError>;

#[tauri::command]
pub fn app_info(info: State<'_, AppInfo>) -> AppInfo {
    info.inner().clone()
}

#[tauri::command]
pub async fn list_profiles(engine: Engine<'_>) -> Reply<Vec<Profile>> {
    engine.list_profiles().await.map_err(Into::into)
}

#[tauri::command]
pub async fn create_profile(engine: Engine<'_>, spec: ProfileSpec) -> Reply<Profile> {
    engine.create_profile(spec).await.map_err(Into::into)
}

#[tauri::command]
pub async fn update_profile(engine: Engine<'_>, profile_id: ProfileId, spec: ProfileSpec) -> Reply<Profile> {
    engine.update_profile(profile_id, spec).await.map_err(Into::into)
}

#[tauri::command]
pub async fn delete_profile(engine: Engine<'_>, profile_id: ProfileId) -> Reply<()> {
    engine.delete_profile(profile_id).await.map_err(Into::into)
}

#[tauri::command]
pub async fn list_sessions(engine: Engine<'_>) -> Reply<Vec<SessionInfo>> {
    engine.list_sessions().await.map_err(Into::into)
}

#[tauri::command]
pub async fn start_session(engine: Engine<'_>, profile_id: ProfileId, size: TermSize) -> Reply<SessionInfo> {
    engine.start_session(profile_id, size).await.map_err(Into::into)
}

#[tauri::command]
pub async fn stop_session(engine: Engine<'_>, session_id: SessionId) -> Reply<SessionInfo> {
    engine.stop_session(session_id).await.map_err(Into::into)
}

#[tauri::command]
pub async fn restart_session(engine: Engine<'_>, session_id: SessionId, size: TermSize) -> Reply<SessionInfo> {
    engine.restart_session(session_id, size).await.map_err(Into::into)
}

#[tauri::command]
pub async fn resume_session(engine: Engine<'_>, session_id: SessionId, size: TermSize) -> Reply<SessionInfo> {
    engine.resume_session(session_id, size).await.map_err(Into::into)
}

#[tauri::command]
pub async fn write_input(engine: Engine<'_>, session_id: SessionId, data: String) -> Reply<()> {
    engine.write_input(session_id, data).await.map_err(Into::into)
}

#[tauri::command]
pub async fn resize_session(engine: Engine<'_>, session_id: SessionId, size: TermSize) -> Reply<()> {
    engine.resize(session_id, size).await.map_err(Into::into)
}

#[tauri::command]
pub async fn set_output_paused(engine: Engine<'_>, session_id: SessionId, paused: bool) -> Reply<()> {
    engine.set_output_paused(session_id, paused).await.map_err(Into::into)
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

#[tauri::command]
pub async fn submit_task(engine: Engine<'_>, spec: TaskSpec) -> Reply<Submitted> {
    engine.submit_task(spec).await.map_err(Into::into)
}

#[tauri::command]
pub async fn list_tasks(engine: Engine<'_>, profile_id: Option<ProfileId>) -> Reply<Vec<TaskInfo>> {
    engine.list_tasks(profile_id).await.map_err(Into::into)
}

#[tauri::command]
pub async fn get_task(engine: Engine<'_>, task_id: TaskId) -> Reply<TaskInfo> {
    engine.get_task(task_id).await.map_err(Into::into)
}

#[tauri::command]
pub async fn cancel_task(engine: Engine<'_>, task_id: TaskId) -> Reply<TaskInfo> {
    engine.cancel_task(task_id).await.map_err(Into::into)
}

#[tauri::command]
pub async fn move_task(engine: Engine<'_>, task_id: TaskId, to_index: u32) -> Reply<()> {
    engine.move_task(task_id, to_index).await.map_err(Into::into)
}

#[tauri::command]
pub async fn requeue_task(engine: Engine<'_>, task_id: TaskId) -> Reply<TaskInfo> {
    engine.requeue_task(task_id).await.map_err(Into::into)
}

#[tauri::command]
pub async fn set_queue_paused(engine: Engine<'_>, profile_id: Option<ProfileId>, paused: bool) -> Reply<()> {
    engine.set_queue_paused(profile_id, paused).await.map_err(Into::into)
}

#[tauri::command]
pub async fn list_queues(engine: Engine<'_>) -> Reply<Vec<QueueStatus>> {
    engine.list_queues().await.map_err(Into::into)
}

#[tauri::command]
pub async fn task_timeline(engine: Engine<'_>, task_id: TaskId) -> Reply<Vec<LogEntry>> {
    engine.task_timeline(task_id).await.map_err(Into::into)
}

#[tauri::command]
pub async fn list_signals(engine: Engine<'_>) -> Reply<Vec<SignalInfo>> {
    engine.list_signals().await.map_err(Into::into)
}

#[tauri::command]
pub async fn respond_to_signal(engine: Engine<'_>, signal_id: SignalId, response: SignalResponse) -> Reply<SignalInfo> {
    engine.respond_to_signal(signal_id, response).await.map_err(Into::into)
}

#[tauri::command]
pub async fn list_agent_status(engine: Engine<'_>) -> Reply<Vec<AgentStatusInfo>> {
    engine.list_agent_status().await.map_err(Into::into)
}

#[tauri::command]
pub async fn list_permission_requests(engine: Engine<'_>) -> Reply<Vec<PermissionRequest>> {
    engine.list_permission_requests().await.map_err(Into::into)
}

#[tauri::command]
pub async fn decide_permission(engine: Engine<'_>, request_id: u64, allow: bool, message: Option<String>) -> Reply<()> {
    engine.decide_permission(request_id, allow, message).await.map_err(Into::into)
}

/// The task the user is looking at gets no desktop notification.
#[tauri::command]
pub fn set_viewed_task(desktop: State<'_, Desktop>, task_id: Option<TaskId>) {
    desktop.set_viewed(task_id)
}
