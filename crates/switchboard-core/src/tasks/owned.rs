//! The files the app owns in an agent's workspace, in its `.switchboard/`
//! folder: the summary's format and the signal protocols every task points
//! to (so the typed task stays short), and a loop's
//! anchor and guardrails (and the agent's `progress.md`, read back). Only
//! inside the workspace: the folder is made if missing (the workspace itself
//! never is), a folder or file an agent replaced with a link or a FIFO is
//! refused, not followed, and what the agent writes is read with a cap.

use std::path::{Path, PathBuf};

use switchboard_protocol::loops::{
    ANCHOR_FILE, GUARDRAILS_FILE, LoopSettings, PROGRESS_FILE, anchor_text, guardrail_lines,
};
use switchboard_protocol::signal::teach::{PROTOCOL_FILE, protocol_text};
use switchboard_protocol::summary::{COMPLETION_FILE, completion_text};

use crate::workspace::{Workspace, refusal_of};

/// How much of a loop file is read: its start and its end (where the stop
/// word goes).
const LOOP_FILE_HEAD: usize = 64 * 1024;
const LOOP_FILE_TAIL: usize = 64 * 1024;

/// Writes `text` as `relative` (a file of the app's folder) in `workspace`,
/// atomically; unchanged text is not written again.
fn write_owned(workspace: &Path, relative: &str, text: &str) -> std::io::Result<PathBuf> {
    let path = workspace.join(relative);
    let failed = |e: std::io::Error| std::io::Error::new(e.kind(), format!("writing {}: {e}", path.display()));
    let files = Workspace::open(workspace).map_err(failed)?;
    let folder = Path::new(relative).parent().and_then(Path::to_str).filter(|folder| !folder.is_empty());
    if let Some(folder) = folder {
        files.create_folder(folder).map_err(failed)?;
    }
    match files.read_if_there(relative, text.len() + 1) {
        Ok(Some(current)) if current.text == text => return Ok(path),
        Ok(_) => {}
        // What the agent put there is replaced, never followed or read.
        Err(error) if refusal_of(&error).is_some() => {}
        Err(error) => return Err(failed(error)),
    }
    files.write(relative, text.as_bytes()).map_err(failed)?;
    Ok(path)
}

/// Reads `relative` in `workspace` as the agent left it: none when it is
/// not there; an error when it is not a regular file inside the workspace.
fn read_agent_file(workspace: &Path, relative: &str) -> std::io::Result<Option<String>> {
    let files = Workspace::open(workspace)?;
    if !files.exists(relative) {
        return Ok(None);
    }
    files.read_head_and_tail(relative, LOOP_FILE_HEAD, LOOP_FILE_TAIL).map(Some).map_err(|error| {
        match refusal_of(&error) {
            Some(refusal) => std::io::Error::new(std::io::ErrorKind::InvalidInput, format!("{relative}: {refusal}")),
            None => error,
        }
    })
}

/// Writes (or refreshes) the protocol file in `workspace`.
pub fn write_protocol_file(workspace: &Path) -> std::io::Result<PathBuf> {
    write_owned(workspace, PROTOCOL_FILE, &protocol_text(None))
}

/// Writes (or refreshes) the summary's format, which each typed task points to.
pub fn write_completion_file(workspace: &Path) -> std::io::Result<PathBuf> {
    write_owned(workspace, COMPLETION_FILE, &completion_text())
}

/// Writes a loop's anchor (its goal and rules).
pub fn write_anchor(workspace: &Path, settings: &LoopSettings) -> std::io::Result<PathBuf> {
    write_owned(workspace, ANCHOR_FILE, &anchor_text(settings))
}

/// The loop's `progress.md`, as the agent wrote it.
pub fn read_progress(workspace: &Path) -> std::io::Result<Option<String>> {
    read_agent_file(workspace, PROGRESS_FILE)
}

/// The loop's guardrails as they stand (the user may have edited them).
pub fn read_guardrails(workspace: &Path) -> std::io::Result<Option<String>> {
    read_agent_file(workspace, GUARDRAILS_FILE)
}

/// The loop's anchor as it stands (the user may have edited it).
pub fn read_anchor(workspace: &Path) -> std::io::Result<Option<String>> {
    read_agent_file(workspace, ANCHOR_FILE)
}

/// Replaces the loop's anchor or guardrails with the user's text.
pub fn write_loop_file(workspace: &Path, file: switchboard_api::LoopFile, text: &str) -> std::io::Result<PathBuf> {
    let relative = match file {
        switchboard_api::LoopFile::Anchor => ANCHOR_FILE,
        switchboard_api::LoopFile::Guardrails => GUARDRAILS_FILE,
    };
    write_owned(workspace, relative, text)
}

/// Adds guardrails to the loop's guardrails file, after what it holds.
pub fn add_guardrails(workspace: &Path, found: &[String]) -> std::io::Result<PathBuf> {
    let mut text = read_guardrails(workspace)?.unwrap_or_else(|| "# Guardrails\n\n".to_owned());
    if !text.ends_with('\n') {
        text.push('\n');
    }
    text.push_str(&guardrail_lines(found));
    write_owned(workspace, GUARDRAILS_FILE, &text)
}

/// Writes the protocol file into the workspace; false (said in the log) if
/// it cannot be: the agent's task is then given without pointing to it.
/// With `mcp_binary`, the workspace also gets the tools' server entry
/// (`.switchboard/mcp.json`) for any CLI that reads one.
pub fn teach_workspace(workspace: &Path, mcp_binary: Option<&Path>) -> bool {
    if let Some(binary) = mcp_binary
        && let Err(error) = write_owned(workspace, crate::mcp::MCP_FILE, &crate::mcp::mcp_file(binary))
    {
        tracing::warn!(%error, "the tools' server entry could not be written into the workspace");
    }
    match write_protocol_file(workspace) {
        Ok(_) => true,
        Err(error) => {
            tracing::warn!(%error, "the signal protocols could not be written into the workspace");
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_loops_files_are_written_and_read_back_inside_the_workspace_only() {
        let workspace = tempfile::tempdir().unwrap();
        let ws = workspace.path();
        let settings = LoopSettings::new("Make the tests pass");
        write_anchor(ws, &settings).unwrap();
        assert_eq!(std::fs::read_to_string(ws.join(ANCHOR_FILE)).unwrap(), anchor_text(&settings));
        assert_eq!(read_progress(ws).unwrap(), None, "not written yet");
        std::fs::write(ws.join(PROGRESS_FILE), "- step 1 done\n").unwrap();
        assert_eq!(read_progress(ws).unwrap().as_deref(), Some("- step 1 done\n"));

        // Guardrails go after what the file holds (the user's edits kept).
        add_guardrails(ws, &["error: one".into()]).unwrap();
        std::fs::write(ws.join(GUARDRAILS_FILE), std::fs::read_to_string(ws.join(GUARDRAILS_FILE)).unwrap() + "- mine")
            .unwrap();
        add_guardrails(ws, &["error: two".into()]).unwrap();
        assert_eq!(
            read_guardrails(ws).unwrap().unwrap(),
            "# Guardrails\n\n- Seen in 3 or more iterations: error: one\n- mine\n- Seen in 3 or more iterations: error: two\n"
        );

        // A long progress file is read as its start and its end, where the stop word goes.
        let long = format!("{}\nLOOP_COMPLETE\n", "- a line of notes\n".repeat(20_000));
        std::fs::write(ws.join(PROGRESS_FILE), &long).unwrap();
        let read = read_progress(ws).unwrap().unwrap();
        assert!(read.len() < long.len() && read.ends_with("LOOP_COMPLETE\n"));

        // An agent's progress file that leads out of the workspace, or is a FIFO, is refused.
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret"), "LOOP_COMPLETE").unwrap();
        std::fs::remove_file(ws.join(PROGRESS_FILE)).unwrap();
        std::os::unix::fs::symlink(outside.path().join("secret"), ws.join(PROGRESS_FILE)).unwrap();
        assert!(read_progress(ws).is_err());
        std::fs::remove_file(ws.join(PROGRESS_FILE)).unwrap();
        nix::unistd::mkfifo(&ws.join(PROGRESS_FILE), nix::sys::stat::Mode::S_IRWXU).unwrap();
        assert!(read_progress(ws).is_err(), "a FIFO is not read (nor waited on)");
    }

    #[test]
    fn written_inside_the_workspace_and_never_through_a_link() {
        let workspace = tempfile::tempdir().unwrap();
        let path = write_protocol_file(workspace.path()).unwrap();
        assert_eq!(path, workspace.path().join(PROTOCOL_FILE));
        assert_eq!(std::fs::read_to_string(&path).unwrap(), protocol_text(None));
        write_protocol_file(workspace.path()).unwrap();

        // An agent replaced the folder with a link out of the workspace.
        let outside = tempfile::tempdir().unwrap();
        std::fs::remove_dir_all(workspace.path().join(".switchboard")).unwrap();
        std::os::unix::fs::symlink(outside.path(), workspace.path().join(".switchboard")).unwrap();
        let error = write_protocol_file(workspace.path()).unwrap_err();
        assert!(error.to_string().ends_with("not a folder"), "{error}");
        assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 0, "nothing written outside");

        // The same refusal for a loop's files.
        let settings = LoopSettings::new("Make the tests pass");
        assert!(write_anchor(workspace.path(), &settings).is_err());
        assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 0, "nothing written outside");

        // A vanished workspace is not made again.
        let gone = workspace.path().join("gone");
        assert!(write_protocol_file(&gone).is_err());
        assert!(!gone.exists());
    }
}
