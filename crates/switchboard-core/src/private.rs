//! The data directory is the user's alone: it holds profiles' environments
//! (API keys among them), agents' summaries and the event log, so other
//! users of the machine must not read it. The folder and the app's folders
//! in it are made [`PRIVATE_DIR_MODE`], every file the app makes there
//! [`PRIVATE_FILE_MODE`], whatever the umask (a umask only takes bits away,
//! and what it took from the owner is given back); what an older version
//! left readable is tightened at start ([`tighten`]).
//!
//! Agents' workspaces inside the data directory (the demo's) keep the modes
//! their agents give their files: the private data folder already keeps
//! other users out of them.

use std::fs::{DirBuilder, File, OpenOptions, Permissions};
use std::io::{self, Write};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use crate::config::{EXPORTS_DIR, LOG_DIR, RUN_DIR};

/// The data folder and the app's folders in it: the owner only.
pub const PRIVATE_DIR_MODE: u32 = 0o700;
/// Every file the app makes in the data folder: the owner reads and writes.
pub const PRIVATE_FILE_MODE: u32 = 0o600;
/// The folders of the data directory that hold only the app's own files
/// (logs, event log exports, the socket when there is no runtime folder);
/// their files are tightened with the data folder's own.
pub const APP_FOLDERS: [&str; 3] = [LOG_DIR, EXPORTS_DIR, RUN_DIR];

/// Group and others' bits.
const OTHERS: u32 = 0o077;

/// What `mode` becomes to be private: the owner's bits kept, group's and
/// others' taken; none when it is private already.
pub fn tightened(mode: u32) -> Option<u32> {
    (mode & OTHERS != 0).then_some(mode & !OTHERS & 0o7777)
}

/// Makes the folder (and the missing ones above it) [`PRIVATE_DIR_MODE`]. A
/// folder already there is left as it is ([`tighten`] looks at those at
/// start), and so is anything a link leads to.
pub fn create_dir(path: &Path) -> io::Result<()> {
    if std::fs::symlink_metadata(path).is_ok() {
        return Ok(());
    }
    DirBuilder::new().recursive(true).mode(PRIVATE_DIR_MODE).create(path)?;
    std::fs::set_permissions(path, Permissions::from_mode(PRIVATE_DIR_MODE))
}

/// Opens a file with `options`, creating it [`PRIVATE_FILE_MODE`]; a regular
/// file others could read is made private on the way (a device or a FIFO is
/// never changed).
pub fn open(options: &mut OpenOptions, path: &Path) -> io::Result<File> {
    let file = options.mode(PRIVATE_FILE_MODE).open(path)?;
    let meta = file.metadata()?;
    if meta.is_file() && meta.permissions().mode() & 0o7777 != PRIVATE_FILE_MODE {
        file.set_permissions(Permissions::from_mode(PRIVATE_FILE_MODE))?;
    }
    Ok(file)
}

/// Writes `bytes` as the whole of a private file.
pub fn write(path: &Path, bytes: impl AsRef<[u8]>) -> io::Result<()> {
    let mut file = open(OpenOptions::new().write(true).create(true).truncate(true), path)?;
    file.write_all(bytes.as_ref())
}

/// Why a path in the data directory is not used: another user owns it.
/// Such a user could read what the app keeps there, or swap the socket for
/// one of their own and hear every command (as ssh refuses a `~/.ssh` it
/// does not own).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "Switchboard will not use {}: it belongs to another user (uid {owner}), and its data must be yours alone. Give it back to yourself (chown) or choose another data directory.",
    path.display()
)]
pub struct NotYours {
    pub path: PathBuf,
    pub owner: u32,
}

/// Why [`refuse_foreign`] refused a path.
#[derive(Debug)]
pub enum Foreign {
    NotYours(NotYours),
    /// Who owns it could not be told.
    Unknown {
        path: PathBuf,
        source: io::Error,
    },
}

/// Whether a path owned by `owner` may be used by the user `us` (pure): the
/// user's own only.
pub fn owned(path: &Path, owner: u32, us: u32) -> Result<(), NotYours> {
    if owner == us { Ok(()) } else { Err(NotYours { path: path.to_path_buf(), owner }) }
}

/// Refuses the first of `paths` that is there and owned by another user
/// (a link is judged by what it leads to, which is what is used); a path
/// not there yet is the app's to make. One whose owner cannot be told (no
/// search permission on a folder above it) is not used either.
pub fn refuse_foreign<'a>(paths: impl IntoIterator<Item = &'a Path>) -> Result<(), Foreign> {
    use std::os::unix::fs::MetadataExt;
    let us = nix::unistd::getuid().as_raw();
    for path in paths {
        match std::fs::metadata(path) {
            Ok(meta) => owned(path, meta.uid(), us).map_err(Foreign::NotYours)?,
            Err(error) if error.kind() == io::ErrorKind::NotFound => {}
            Err(source) => return Err(Foreign::Unknown { path: path.to_path_buf(), source }),
        }
    }
    Ok(())
}

/// One change [`tighten`] made, or could not make.
#[derive(Debug)]
pub struct Tightening {
    pub path: PathBuf,
    /// The mode it had.
    pub was: u32,
    /// The mode it has now, or why it could not be changed.
    pub now: Result<u32, io::Error>,
}

/// Takes group's and others' access from the data folder, the app's
/// folders in it ([`APP_FOLDERS`]) and every file directly in those. Links
/// are not followed (the data folder itself may be one). Says what it
/// changed.
pub fn tighten(data_dir: &Path) -> Vec<Tightening> {
    let mut changes = Vec::new();
    let Ok(meta) = std::fs::metadata(data_dir) else { return changes };
    if !meta.is_dir() {
        return changes;
    }
    tighten_one(data_dir, &meta, &mut changes);
    tighten_files_in(data_dir, &mut changes);
    for folder in APP_FOLDERS {
        let path = data_dir.join(folder);
        if let Ok(meta) = std::fs::symlink_metadata(&path)
            && meta.is_dir()
        {
            tighten_one(&path, &meta, &mut changes);
            tighten_files_in(&path, &mut changes);
        }
    }
    changes
}

fn tighten_files_in(dir: &Path, changes: &mut Vec<Tightening>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        // `DirEntry::metadata` does not follow links.
        if let Ok(meta) = entry.metadata()
            && meta.is_file()
        {
            tighten_one(&entry.path(), &meta, changes);
        }
    }
}

fn tighten_one(path: &Path, meta: &std::fs::Metadata, changes: &mut Vec<Tightening>) {
    let was = meta.permissions().mode() & 0o7777;
    let Some(now) = tightened(was) else { return };
    let now = std::fs::set_permissions(path, Permissions::from_mode(now)).map(|()| now);
    changes.push(Tightening { path: path.to_path_buf(), was, now });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_users_own_paths_are_used() {
        let path = Path::new("/data");
        let cases = [(1000, 1000, true), (0, 0, true), (1001, 1000, false), (0, 1000, false), (1000, 0, false)];
        for (owner, us, used) in cases {
            assert_eq!(owned(path, owner, us).is_ok(), used, "owner {owner}, user {us}");
        }
        let refused = owned(path, 1001, 1000).unwrap_err().to_string();
        assert!(refused.contains("/data") && refused.contains("another user"), "{refused}");
    }

    #[test]
    fn tightening_takes_group_and_others_bits_and_keeps_the_owners() {
        let cases = [
            (0o644, Some(0o600)),
            (0o755, Some(0o700)),
            (0o666, Some(0o600)),
            (0o777, Some(0o700)),
            (0o640, Some(0o600)),
            (0o604, Some(0o600)),
            (0o600, None),
            (0o700, None),
            (0o400, None),
            (0o2755, Some(0o2700)),
        ];
        for (mode, expected) in cases {
            assert_eq!(tightened(mode), expected, "{mode:o}");
        }
    }

    fn mode(path: &Path) -> u32 {
        std::fs::symlink_metadata(path).unwrap().permissions().mode() & 0o7777
    }

    #[test]
    fn tighten_changes_the_apps_files_and_folders_and_nothing_a_link_leads_to() {
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().join("data");
        let outside = dir.path().join("outside");
        std::fs::create_dir_all(data.join("logs")).unwrap();
        std::fs::create_dir_all(data.join("demo-workspace")).unwrap();
        std::fs::write(&outside, "not ours").unwrap();
        for (path, mode) in [
            (data.join("switchboard.db"), 0o644),
            (data.join("logs/switchboard.log"), 0o664),
            (data.join("demo-workspace/build.sh"), 0o755),
            (outside.clone(), 0o644),
        ] {
            std::fs::write(&path, "x").unwrap();
            std::fs::set_permissions(&path, Permissions::from_mode(mode)).unwrap();
        }
        for folder in [&data, &data.join("logs"), &data.join("demo-workspace")] {
            std::fs::set_permissions(folder, Permissions::from_mode(0o755)).unwrap();
        }
        std::os::unix::fs::symlink(&outside, data.join("hook-spool.jsonl")).unwrap();

        let changes = tighten(&data);
        let changed: Vec<(&Path, u32, u32)> =
            changes.iter().map(|c| (c.path.as_path(), c.was, *c.now.as_ref().unwrap())).collect();
        assert_eq!(changed.len(), 4, "{changed:?}");
        for (path, was, now) in [
            (data.clone(), 0o755, 0o700),
            (data.join("switchboard.db"), 0o644, 0o600),
            (data.join("logs"), 0o755, 0o700),
            (data.join("logs/switchboard.log"), 0o664, 0o600),
        ] {
            assert!(changed.contains(&(path.as_path(), was, now)), "{} in {changed:?}", path.display());
            assert_eq!(mode(&path), now);
        }
        assert_eq!(mode(&outside), 0o644, "a link's target is not ours to change");
        assert_eq!(mode(&data.join("demo-workspace/build.sh")), 0o755, "a workspace keeps its modes");
        assert!(tighten(&data).is_empty(), "once is enough");
    }

    #[test]
    fn what_it_makes_is_private() {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("a/b");
        create_dir(&folder).unwrap();
        assert_eq!((mode(&dir.path().join("a")) & OTHERS, mode(&folder)), (0, PRIVATE_DIR_MODE));
        write(&folder.join("f"), "x").unwrap();
        assert_eq!(mode(&folder.join("f")), PRIVATE_FILE_MODE);
        // A file opened again that others could read is made private.
        std::fs::set_permissions(folder.join("f"), Permissions::from_mode(0o644)).unwrap();
        open(OpenOptions::new().append(true), &folder.join("f")).unwrap();
        assert_eq!(mode(&folder.join("f")), PRIVATE_FILE_MODE);
    }
}
