//! The signal protocols' file in an agent's workspace, which every task of
//! an agent taught them points to.

use std::io::Write;
use std::path::{Path, PathBuf};

use switchboard_protocol::signal::teach::{PROTOCOL_FILE, protocol_text};

/// Writes (or refreshes) the protocol file in `workspace`. Only inside it:
/// its folder is made if missing (the workspace itself never is), and a
/// folder or file an agent replaced with a link is refused, not followed.
pub fn write_protocol_file(workspace: &Path) -> std::io::Result<PathBuf> {
    let path = workspace.join(PROTOCOL_FILE);
    let dir = path.parent().expect("the protocol file is in a folder");
    let failed = |e: std::io::Error| std::io::Error::new(e.kind(), format!("writing {}: {e}", path.display()));
    match std::fs::create_dir(dir) {
        Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => return Err(failed(e)),
        _ => {}
    }
    let not_ours = |what: &Path| {
        failed(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("{} is not a plain folder or file of the workspace", what.display()),
        ))
    };
    if !std::fs::symlink_metadata(dir).map_err(failed)?.file_type().is_dir() {
        return Err(not_ours(dir));
    }
    let text = protocol_text(None);
    match std::fs::symlink_metadata(&path) {
        Ok(meta) if !meta.file_type().is_file() => return Err(not_ours(&path)),
        Ok(_) if std::fs::read_to_string(&path).is_ok_and(|current| current == text) => return Ok(path),
        _ => {}
    }
    // A fresh temporary file (never an existing one, nor through a link),
    // renamed over the old: readers see the old text or the new.
    let temp = dir.join(".signals.md.switchboard-tmp");
    std::fs::remove_file(&temp).ok();
    let written = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&temp)
        .and_then(|mut file| file.write_all(text.as_bytes()))
        .and_then(|()| std::fs::rename(&temp, &path));
    if let Err(e) = written {
        std::fs::remove_file(&temp).ok();
        return Err(failed(e));
    }
    Ok(path)
}

/// Writes the protocol file into the workspace; false (said in the log) if
/// it cannot be: the agent's task is then given without pointing to it.
pub fn teach_workspace(workspace: &Path) -> bool {
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
        assert!(error.to_string().contains("not a plain folder or file"), "{error}");
        assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 0, "nothing written outside");

        // A vanished workspace is not made again.
        let gone = workspace.path().join("gone");
        assert!(write_protocol_file(&gone).is_err());
        assert!(!gone.exists());
    }
}
