//! Builds the Tauri context from the repository-root `tauri.conf.json` and
//! declares the app's commands, so the capability file can grant exactly
//! these to the main window and nothing else.

/// Every command of `src/commands.rs`; a command missing here cannot be called.
/// The engine's own commands all pass through `engine_call`, which admits
/// only those the engine marks as the window's.
const COMMANDS: &[&str] = &[
    "app_info",
    "engine_link",
    "attached_hosts",
    "connect_host",
    "start_engine",
    "restart_engine",
    "engine_call",
    "attach_terminal",
    "detach_terminal",
    "set_viewing",
    "set_event_pace",
    "follow_log",
    "open_artifact",
    "take_open_target",
    "list_hosts",
    "add_host",
    "remove_host",
    "open_host",
];

fn main() {
    let attributes = tauri_build::Attributes::new()
        .config_path("../tauri.conf.json")
        .app_manifest(tauri_build::AppManifest::new().commands(COMMANDS));
    tauri_build::try_build(attributes).expect("the Tauri configuration and capabilities are valid");
}
