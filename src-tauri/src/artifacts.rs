//! A file a task returned, opened on this desktop: where it is, the engine says.

use switchboard_core::TaskId;

use crate::engines::Engines;

/// Opens a file a task returned with its usual app (an editor, for text), or
/// shows it in its folder. The engine says where the file is now, checked
/// against its agent's workspace; the window names only the task and the
/// path the task returned, never a file of its choosing.
pub async fn open(
    engines: &Engines,
    task_id: TaskId,
    path: String,
    reveal: bool,
) -> Result<(), switchboard_core::ApiError> {
    let file = engines.artifact_path(task_id, path.clone()).await?;
    let opened = tauri::async_runtime::spawn_blocking(move || {
        if reveal {
            tauri_plugin_opener::reveal_item_in_dir(&file)
        } else {
            tauri_plugin_opener::open_path(&file, None::<&str>)
        }
    })
    .await;
    match opened {
        Ok(Ok(())) => Ok(()),
        Ok(Err(error)) => {
            tracing::warn!(%error, reveal, "opening a returned file failed");
            let what = if reveal { "No file manager could show" } else { "No app could open" };
            Err(switchboard_core::ApiError {
                code: switchboard_core::ErrorCode::Io,
                message: format!("{what} {path} on this desktop."),
                field: None,
                problems: Vec::new(),
            })
        }
        Err(error) => Err(switchboard_core::EngineError::Internal(error.to_string()).into()),
    }
}
