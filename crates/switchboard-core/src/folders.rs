//! The folders of the engine's machine, for picking an agent's folder where
//! the engine runs (a window on another machine's engine cannot use its own
//! desktop's folder picker): one folder's subfolders at a time, by name.

use std::path::{Path, PathBuf};

use switchboard_api::FolderListing;

pub use switchboard_api::MAX_FOLDERS;

/// Why a folder cannot be listed, in words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FolderError {
    #[error("give the folder's whole path, from / (or ~ for the home folder)")]
    NotAbsolute,
    #[error("there is no folder {0}")]
    Missing(String),
    #[error("{0} is a file, not a folder")]
    NotAFolder(String),
    #[error("{0} cannot be read: {1}")]
    Unreadable(String, String),
}

/// Where `asked` points on this machine: `~` and `~/…` in `home`; empty is
/// the home folder.
pub fn resolve(asked: &str, home: Option<&Path>) -> Result<PathBuf, FolderError> {
    let asked = asked.trim();
    let home = || home.map(Path::to_path_buf).unwrap_or_else(|| PathBuf::from("/"));
    let path = match asked {
        "" | "~" => home(),
        _ if asked.starts_with("~/") => home().join(&asked[2..]),
        _ if asked.starts_with('/') => PathBuf::from(asked),
        _ => return Err(FolderError::NotAbsolute),
    };
    Ok(path)
}

/// The listing of `folder` from its entries (`name`, whether it is a
/// folder, following links): folders only, hidden ones (a leading dot)
/// after the others, each group by name, at most [`MAX_FOLDERS`].
pub fn listing(folder: &Path, entries: impl IntoIterator<Item = (String, bool)>) -> FolderListing {
    let mut folders: Vec<String> = entries.into_iter().filter(|(_, is_dir)| *is_dir).map(|(name, _)| name).collect();
    folders.sort_by(|a, b| (a.starts_with('.'), a.to_lowercase(), a).cmp(&(b.starts_with('.'), b.to_lowercase(), b)));
    let truncated = folders.len() > MAX_FOLDERS;
    folders.truncate(MAX_FOLDERS);
    FolderListing {
        path: folder.display().to_string(),
        parent: folder.parent().map(|p| p.display().to_string()),
        folders,
        truncated,
    }
}

/// Lists the subfolders of the folder `asked` names (see [`resolve`]).
pub fn list(asked: &str, home: Option<&Path>) -> Result<FolderListing, FolderError> {
    let path = resolve(asked, home)?;
    let shown = path.display().to_string();
    let folder = match std::fs::canonicalize(&path) {
        Ok(folder) => folder,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Err(FolderError::Missing(shown)),
        Err(error) => return Err(FolderError::Unreadable(shown, error.to_string())),
    };
    if !folder.is_dir() {
        return Err(FolderError::NotAFolder(shown));
    }
    let read = std::fs::read_dir(&folder).map_err(|error| FolderError::Unreadable(shown.clone(), error.to_string()))?;
    // Entries that cannot be read are left out; a link to a folder is a folder.
    let entries = read.filter_map(Result::ok).map(|entry| {
        let name = entry.file_name().to_string_lossy().into_owned();
        let is_dir = entry.path().is_dir();
        (name, is_dir)
    });
    Ok(listing(&folder, entries))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_is_named_by_its_whole_path_or_from_home() {
        let home = Some(Path::new("/home/dev"));
        let cases: [(&str, Result<&str, FolderError>); 6] = [
            ("", Ok("/home/dev")),
            ("~", Ok("/home/dev")),
            ("~/src/app", Ok("/home/dev/src/app")),
            ("/srv/repo ", Ok("/srv/repo")),
            ("src/app", Err(FolderError::NotAbsolute)),
            ("~other/x", Err(FolderError::NotAbsolute)),
        ];
        for (asked, expected) in cases {
            assert_eq!(resolve(asked, home), expected.map(PathBuf::from), "{asked:?}");
        }
        assert_eq!(resolve("", None), Ok(PathBuf::from("/")), "no home: the root");
    }

    #[test]
    fn subfolders_are_listed_by_name_hidden_ones_last_files_left_out() {
        let entries = [("src", true), (".git", true), ("README.md", false), ("Docs", true), ("apps", true)];
        let listed = listing(Path::new("/srv/repo"), entries.map(|(n, d)| (n.to_owned(), d)));
        assert_eq!(listed.folders, ["apps", "Docs", "src", ".git"]);
        assert_eq!(listed.path, "/srv/repo");
        assert_eq!(listed.parent.as_deref(), Some("/srv"));
        assert!(!listed.truncated);
        assert_eq!(listing(Path::new("/"), []).parent, None, "the root has no parent");
        let many = (0..MAX_FOLDERS + 5).map(|i| (format!("d{i:05}"), true));
        let cut = listing(Path::new("/big"), many);
        assert_eq!(cut.folders.len(), MAX_FOLDERS);
        assert!(cut.truncated);
    }

    #[test]
    fn a_real_folder_is_listed_and_what_is_not_one_says_why() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("project")).unwrap();
        std::fs::write(dir.path().join("notes.txt"), "x").unwrap();
        std::os::unix::fs::symlink(dir.path().join("project"), dir.path().join("linked")).unwrap();
        let listed = list(&dir.path().display().to_string(), None).unwrap();
        assert_eq!(listed.folders, ["linked", "project"]);
        let file = dir.path().join("notes.txt").display().to_string();
        assert_eq!(list(&file, None), Err(FolderError::NotAFolder(file.clone())));
        let gone = dir.path().join("gone").display().to_string();
        assert_eq!(list(&gone, None), Err(FolderError::Missing(gone.clone())));
        assert_eq!(list("relative", None), Err(FolderError::NotAbsolute));
    }
}
