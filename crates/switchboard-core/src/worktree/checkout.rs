//! An agent's worktree as git runs in it ([`Checkout`]): opened only while its `.git` file names git's record of it.

use super::git::{GitPlace, git, text};
use super::{GitError, branch_exists, configured_drivers, refusal};
use std::path::{Path, PathBuf};
use std::process::Command;

/// What the `.git` file in an agent's folder says, when it does not name
/// the git directory git made for that worktree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GitLink {
    /// There is none.
    Missing,
    /// Something other than a plain file (a folder, a link).
    NotAFile,
    /// It names another directory (the user's own repository, say), or
    /// none that git keeps for this worktree.
    Elsewhere(PathBuf),
}

/// What is wrong with a worktree git can no longer be run in safely or asked about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Broken {
    /// Its `.git` file was changed (rewritten, deleted, pointed elsewhere),
    /// or git no longer keeps a directory for it.
    Tampered(GitLink),
    /// Its branch was deleted.
    BranchGone,
    /// Its repository's configuration now defines a filter or merge driver
    /// git would run on the agent's files ([`refusal`]): why, in words.
    Unsafe(String),
}

impl std::fmt::Display for Broken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Broken::Tampered(_) => f.write_str(
                "its .git file was tampered with (it no longer names the git directory made for it), so git is not \
                 run there; discard it to keep a copy of its files",
            ),
            Broken::BranchGone => f.write_str(
                "its branch was deleted, so git cannot tell what it changed; discard it to keep a copy of its files",
            ),
            Broken::Unsafe(why) => f.write_str(why),
        }
    }
}

/// The longest `.git` file read: git writes one line naming a directory.
pub(super) const MAX_GIT_FILE: u64 = 4096;

/// An agent's worktree as git is run in it: its git directory (git's own
/// record of it, under the repository's common directory, where the agent's
/// folder is not) and its work tree (the folder). See [`Checkout::open`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checkout {
    pub(super) git_dir: PathBuf,
    work_tree: PathBuf,
}

impl Checkout {
    /// The worktree at `path` of the repository at `repository`, when it is
    /// sound: git keeps a directory for it (its `gitdir` file, written by
    /// git in the repository's common directory, names `path`), the `.git`
    /// file in the folder still names that directory, and the repository's
    /// configuration defines no program git would run on the agent's files.
    pub fn open(repository: &Path, path: &Path) -> Result<Checkout, GitError> {
        let work_tree = path.canonicalize().map_err(|error| GitError::Failed {
            what: "worktree".into(),
            why: format!("{} cannot be read: {error}", path.display()),
        })?;
        let common = text(git(repository, &["rev-parse", "--path-format=absolute", "--git-common-dir"])?);
        let git_dir = admin_dir(Path::new(&common), &work_tree);
        let link = git_link(&work_tree);
        let git_dir = match (git_dir, link) {
            (Some(dir), Ok(named)) if named == dir => dir,
            (_, Ok(named)) => return Err(GitError::Broken(Broken::Tampered(GitLink::Elsewhere(named)))),
            (_, Err(link)) => return Err(GitError::Broken(Broken::Tampered(link))),
        };
        let checkout = Checkout { git_dir, work_tree };
        if let Some(why) = refusal(&configured_drivers(&checkout)?) {
            return Err(GitError::Broken(Broken::Unsafe(why)));
        }
        Ok(checkout)
    }

    /// [`Checkout::open`], and its branch still there.
    pub fn open_on(repository: &Path, path: &Path, branch: &str) -> Result<Checkout, GitError> {
        let checkout = Checkout::open(repository, path)?;
        if !branch_exists(repository, branch) {
            return Err(GitError::Broken(Broken::BranchGone));
        }
        Ok(checkout)
    }

    /// The worktree's folder (canonical).
    pub fn path(&self) -> &Path {
        &self.work_tree
    }
}

/// The directory git keeps for the worktree at `work_tree` (canonical):
/// the one under `<common>/worktrees/` whose `gitdir` file names its `.git`.
pub(super) fn admin_dir(common: &Path, work_tree: &Path) -> Option<PathBuf> {
    let entries = std::fs::read_dir(common.join("worktrees")).ok()?;
    entries.flatten().map(|entry| entry.path()).find_map(|dir| {
        let named = std::fs::read_to_string(dir.join("gitdir")).ok()?;
        let folder = Path::new(named.trim_end_matches(['\n', '\r'])).parent()?.canonicalize().ok()?;
        (folder == work_tree).then(|| dir.canonicalize().ok()).flatten()
    })
}

/// The directory the `.git` file in the folder names (canonical), read
/// without following a link and capped.
pub(super) fn git_link(work_tree: &Path) -> Result<PathBuf, GitLink> {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    let file = work_tree.join(".git");
    let meta = match std::fs::symlink_metadata(&file) {
        Ok(meta) => meta,
        Err(_) => return Err(GitLink::Missing),
    };
    if !meta.is_file() {
        return Err(GitLink::NotAFile);
    }
    let mut said = String::new();
    let opened = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(&file)
        .and_then(|f| f.take(MAX_GIT_FILE).read_to_string(&mut said));
    if opened.is_err() {
        return Err(GitLink::NotAFile);
    }
    let named = said.lines().next().and_then(|line| line.strip_prefix("gitdir: ")).unwrap_or_default();
    let named = work_tree.join(named.trim());
    named.canonicalize().map_err(|_| GitLink::Elsewhere(named))
}

/// An agent's worktree: its git directory and work tree as the engine
/// recorded them, never as the `.git` file in the agent's folder says.
impl GitPlace for Checkout {
    fn place(&self, command: &mut Command) {
        command.current_dir(&self.work_tree).env("GIT_DIR", &self.git_dir).env("GIT_WORK_TREE", &self.work_tree);
    }
}
