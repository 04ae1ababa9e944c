//! Builds the Tauri context from the repository-root `tauri.conf.json` and
//! declares the app's commands, so the capability file can grant exactly
//! these to the main window and nothing else.

/// Every command of `src/commands.rs`; a command missing here cannot be called.
const COMMANDS: &[&str] = &[
    "app_info",
    "list_profiles",
    "create_profile",
    "update_profile",
    "delete_profile",
    "list_sessions",
    "start_session",
    "stop_session",
    "restart_session",
    "write_input",
    "resize_session",
    "set_output_paused",
    "attach_terminal",
    "detach_terminal",
    "submit_task",
    "list_tasks",
    "get_task",
    "cancel_task",
    "move_task",
    "requeue_task",
    "set_queue_paused",
    "list_queues",
    "task_timeline",
    "set_viewed_task",
    "list_signals",
    "respond_to_signal",
    "list_agent_status",
    "resume_session",
    "list_permission_requests",
    "decide_permission",
];

fn main() {
    let attributes = tauri_build::Attributes::new()
        .config_path("../tauri.conf.json")
        .app_manifest(tauri_build::AppManifest::new().commands(COMMANDS));
    tauri_build::try_build(attributes).expect("the Tauri configuration and capabilities are valid");
}
