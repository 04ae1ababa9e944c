//! A task's branch merged into its base or rebased onto it, and the git operations left underway in a repository.

use super::checkout::Checkout;
use super::git::{git, git_status, text};
use super::names::{decode_name, shown_name};
use super::{GitError, Merged, commit_all, list, repository_of};
use std::path::{Path, PathBuf};

/// An operation git has under way in one checkout of a repository, which a
/// branch moved under it would break.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operation {
    Rebase,
    Bisect,
    Merge,
    Revert,
    CherryPick,
    Am,
}

impl Operation {
    /// How the sentence says it: "main is being …".
    fn being(self) -> &'static str {
        match self {
            Operation::Rebase => "rebased",
            Operation::Bisect => "bisected",
            Operation::Merge => "merged into",
            Operation::Revert => "reverted on",
            Operation::CherryPick => "cherry-picked onto",
            Operation::Am => "patched by git am",
        }
    }

    /// The git command that ends it.
    fn command(self) -> &'static str {
        match self {
            Operation::Rebase => "git rebase --continue or --abort",
            Operation::Bisect => "git bisect reset",
            Operation::Merge => "git merge --continue or --abort",
            Operation::Revert => "git revert --continue or --abort",
            Operation::CherryPick => "git cherry-pick --continue or --abort",
            Operation::Am => "git am --continue or --abort",
        }
    }
}

/// An operation under way in one checkout: on which branch, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Underway {
    pub operation: Operation,
    /// The branch it works on (a rebase's or bisection's, which left HEAD
    /// detached: the one it started from); none when unknown or detached.
    pub branch: Option<String>,
    pub folder: PathBuf,
}

/// Why a merge into `base` must wait (pure): an operation under way on
/// `base` in any checkout of the repository; one on another branch (an
/// agent rebasing its own) does not stop it.
pub fn base_busy(base: &str, underway: &[Underway]) -> Option<String> {
    let busy = underway.iter().find(|u| u.branch.as_deref() == Some(base))?;
    Some(format!(
        "{base} is being {} in {}; merging now would move {base} under it. Finish it there ({}), then merge again",
        busy.operation.being(),
        busy.folder.display(),
        busy.operation.command()
    ))
}

/// Every operation under way in the checkouts of the repository at `root`
/// (its main checkout and every worktree), read from git's own files in
/// the repository's git directories.
pub fn underway(root: &Path) -> Result<Vec<Underway>, GitError> {
    let common = PathBuf::from(text(git(root, &["rev-parse", "--path-format=absolute", "--git-common-dir"])?));
    let main_folder = text(git(root, &["rev-parse", "--show-toplevel"])?);
    let mut dirs = vec![(common.clone(), PathBuf::from(main_folder))];
    if let Ok(entries) = std::fs::read_dir(common.join("worktrees")) {
        for dir in entries.flatten().map(|e| e.path()) {
            let folder = std::fs::read_to_string(dir.join("gitdir"))
                .ok()
                .and_then(|named| Path::new(named.trim_end()).parent().map(Path::to_path_buf))
                .unwrap_or_else(|| dir.clone());
            dirs.push((dir, folder));
        }
    }
    let read = |path: PathBuf| std::fs::read_to_string(path).ok().map(|t| t.trim().to_owned());
    let branch_of = |named: Option<String>| {
        named
            .map(|n| n.strip_prefix("ref: ").unwrap_or(&n).to_owned())
            .and_then(|n| n.strip_prefix("refs/heads/").map(str::to_owned))
    };
    let mut found = Vec::new();
    for (dir, folder) in dirs {
        let head = branch_of(read(dir.join("HEAD")));
        let rebasing = read(dir.join("rebase-merge/head-name")).or_else(|| read(dir.join("rebase-apply/head-name")));
        let mut push = |operation, branch| found.push(Underway { operation, branch, folder: folder.clone() });
        if dir.join("rebase-apply/applying").exists() {
            push(Operation::Am, head.clone());
        } else if rebasing.is_some() {
            push(Operation::Rebase, branch_of(rebasing));
        }
        if let Some(start) = read(dir.join("BISECT_START")) {
            // The branch it started from, short; a commit when it was detached.
            push(Operation::Bisect, Some(start.strip_prefix("refs/heads/").unwrap_or(&start).to_owned()));
        }
        if dir.join("MERGE_HEAD").exists() {
            push(Operation::Merge, head.clone());
        }
        let todo = read(dir.join("sequencer/todo")).unwrap_or_default();
        if dir.join("REVERT_HEAD").exists() || todo.starts_with("revert") {
            push(Operation::Revert, head.clone());
        } else if dir.join("CHERRY_PICK_HEAD").exists() || dir.join("sequencer").is_dir() {
            push(Operation::CherryPick, head.clone());
        }
    }
    Ok(found)
}

/// Merges `branch` into `base` in the repository at `root` without touching
/// any folder until the merge is known to land: git works the merge out
/// apart (`merge-tree`), a conflict changes nothing, and the base branch
/// moves (forward when it can, else by a merge commit with `message`). When
/// the base is checked out in the user's folder, that folder moves with it
/// only as a fast-forward git checks against the user's own changes there.
pub fn merge(root: &Path, apart: &Path, base: &str, branch: &str, message: &str) -> Result<Merged, GitError> {
    if let Some(why) = base_busy(base, &underway(root)?) {
        return Ok(Merged::InTheWay { why });
    }
    let base_commit = text(git(root, &["rev-parse", "--verify", &format!("refs/heads/{base}^{{commit}}")])?);
    let branch_commit = text(git(root, &["rev-parse", "--verify", &format!("refs/heads/{branch}^{{commit}}")])?);
    let (fast_forward, _) = git_status(root, &["merge-base", "--is-ancestor", &base_commit, &branch_commit])?;
    let commit = if fast_forward {
        branch_commit
    } else {
        let (clean, out) = git_status(
            root,
            &["merge-tree", "--write-tree", "--name-only", "--no-messages", "-z", &base_commit, &branch_commit],
        )?;
        // `-z`: the tree, then each conflicting file's name, each ended by a NUL.
        let mut fields = out.split(|b| *b == 0);
        let tree = String::from_utf8_lossy(fields.next().unwrap_or_default()).trim().to_owned();
        if !clean {
            let files = fields
                .take_while(|name| !name.is_empty())
                .map(|name| shown_name(&decode_name(name)))
                .collect::<Vec<_>>();
            if files.is_empty() {
                return Err(GitError::Failed { what: "merge-tree".into(), why: String::from_utf8_lossy(&out).into() });
            }
            return Ok(Merged::Conflict { files });
        }
        text(git(root, &["commit-tree", &tree, "-p", &base_commit, "-p", &branch_commit, "-m", message])?)
    };
    // Where the base is checked out: the user's main checkout, or a linked
    // worktree of theirs; never moved under it except as a fast-forward git
    // checks against that folder's own changes.
    let checkout = if repository_of(root).ok().and_then(|repo| repo.branch).as_deref() == Some(base) {
        Some(root.to_path_buf())
    } else {
        list(root)?.into_iter().find(|listed| !listed.missing && listed.branch.as_deref() == Some(base)).map(|l| l.path)
    };
    match checkout {
        // An agent checked the base out in its worktree: git is not run
        // through its folder, and its checkout is not moved under it.
        Some(folder) if folder.starts_with(apart) => {
            let why = format!(
                "{base} is checked out in an agent's worktree ({}); switch it to its own branch, then merge again",
                folder.display()
            );
            return Ok(Merged::InTheWay { why });
        }
        Some(folder) => {
            // The user's folder follows, or nothing moves.
            let (moved, _) = git_status(folder.as_path(), &["merge", "--quiet", "--ff-only", &commit])?;
            if !moved {
                let why = "your own uncommitted changes in the same files are in the way; commit or stash them, then \
                           merge again";
                return Ok(Merged::InTheWay { why: why.into() });
            }
        }
        None => {
            git(root, &["update-ref", &format!("refs/heads/{base}"), &commit, &base_commit])?;
        }
    }
    Ok(Merged::Landed { commit, fast_forward })
}

/// How a rebase went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Rebased {
    /// The worktree's commits now sit on the base as it is now.
    Done,
    /// They meet the base's new commits in these files: the rebase was
    /// undone, the worktree is as it was.
    Conflict { files: Vec<String> },
}

/// Replays the worktree's commits onto `base` as it is now (after another
/// task merged, say). Uncommitted work is committed first with `message`;
/// a conflict undoes the rebase and names the files, never forcing.
pub fn rebase(path: &Checkout, base: &str, message: &str) -> Result<Rebased, GitError> {
    commit_all(path, message)?;
    let (done, _) = git_status(path, &["rebase", "--quiet", base])?;
    if done {
        return Ok(Rebased::Done);
    }
    let files = git(path, &["diff", "--no-ext-diff", "--no-textconv", "--name-only", "--diff-filter=U", "-z"])?
        .split(|b| *b == 0)
        .filter(|f| !f.is_empty())
        .map(|f| shown_name(&decode_name(f)))
        .collect::<Vec<_>>();
    git(path, &["rebase", "--abort"])?;
    if files.is_empty() {
        return Err(GitError::Failed { what: "rebase".into(), why: "it stopped with no conflicting file".into() });
    }
    Ok(Rebased::Conflict { files })
}

/// Whether everything on `branch` is on `base` already.
pub fn is_merged(repository: &Path, branch: &str, base: &str) -> Result<bool, GitError> {
    let (merged, _) = git_status(
        repository,
        &["merge-base", "--is-ancestor", &format!("refs/heads/{branch}"), &format!("refs/heads/{base}")],
    )?;
    Ok(merged)
}
