//! What a task's worktree changed against its base: its files, its hunks, the patch kept when it is discarded.

use super::checkout::Checkout;
use super::contents::looks_binary;
use super::git::{command, git, git_status, text};
use super::names::{decode_name, shown_name};
use super::{APP_PATHS, ChangeKind, FileChange, GitError, is_app_path, radar, stage_all};
use std::path::Path;

/// What merging a worktree into its base would meet now.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AgainstBase {
    /// Commits on the base since the worktree's branch left it.
    pub behind: u32,
    /// The files that would conflict (none when it merges cleanly).
    pub conflicts: Vec<String>,
}

/// What merging the worktree at `path` into `base` would meet now, its
/// uncommitted work included (as a merge commits it first): worked out
/// apart (`merge-tree`) from a tree of its files made through a temporary
/// index, so neither its index nor any branch changes.
pub fn against_base(path: &Checkout, base: &str) -> Result<AgainstBase, GitError> {
    let base_ref = format!("refs/heads/{base}");
    let behind: u32 = text(git(path, &["rev-list", "--count", &format!("HEAD..{base_ref}")])?).parse().unwrap_or(0);
    if behind == 0 {
        return Ok(AgainstBase::default());
    }
    // A scratch index beside the worktree's own, in git's directory for it
    // (never in the agent's folder), one per check, removed after.
    static CHECKS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let number = CHECKS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let index = path.git_dir.join(format!("switchboard-check-{}-{number}.index", std::process::id()));
    let tree = scratch_tree(path, &index);
    if let Err(error) = std::fs::remove_file(&index)
        && error.kind() != std::io::ErrorKind::NotFound
    {
        tracing::warn!(%error, index = %index.display(), "a scratch index could not be removed");
    }
    let tree = tree?;
    let work = text(git(path, &["commit-tree", &tree, "-p", "HEAD", "-m", "the worktree as it stands"])?);
    let base_commit = text(git(path, &["rev-parse", "--verify", &format!("{base_ref}^{{commit}}")])?);
    let (clean, out) =
        git_status(path, &["merge-tree", "--write-tree", "--name-only", "--no-messages", "-z", &base_commit, &work])?;
    if clean {
        return Ok(AgainstBase { behind, conflicts: Vec::new() });
    }
    let mut fields = out.split(|b| *b == 0);
    fields.next();
    let conflicts: Vec<String> =
        fields.take_while(|name| !name.is_empty()).map(|name| shown_name(&decode_name(name))).collect();
    if conflicts.is_empty() {
        return Err(GitError::Failed { what: "merge-tree".into(), why: String::from_utf8_lossy(&out).into() });
    }
    Ok(AgainstBase { behind, conflicts })
}

/// The tree of the worktree's files as they stand (its uncommitted and
/// untracked work in, the app's own files out), made through the scratch
/// index at `index`.
pub(super) fn scratch_tree(path: &Checkout, index: &Path) -> Result<String, GitError> {
    // Its own index as the start (git then rereads only changed files), or HEAD's.
    if std::fs::copy(path.git_dir.join("index"), index).is_err() {
        git_with_index(path, index, &["read-tree", "HEAD"])?;
    }
    git_with_index(path, index, &["add", "--all"])?;
    let mut reset = vec!["reset", "--quiet", "--"];
    reset.extend(APP_PATHS.iter().map(|own| own.trim_end_matches('/')));
    // A path no commit has is left as it is; the others go back to HEAD's.
    git_status_with_index(path, index, &reset)?;
    Ok(text(git_with_index(path, index, &["write-tree"])?))
}

pub(super) fn git_with_index(path: &Checkout, index: &Path, args: &[&str]) -> Result<Vec<u8>, GitError> {
    let output = command(path).env("GIT_INDEX_FILE", index).args(args).output().map_err(GitError::NotRun)?;
    if output.status.success() {
        Ok(output.stdout)
    } else {
        let what = args.first().copied().unwrap_or_default().to_owned();
        Err(GitError::Failed { what, why: String::from_utf8_lossy(&output.stderr).trim().to_owned() })
    }
}

pub(super) fn git_status_with_index(path: &Checkout, index: &Path, args: &[&str]) -> Result<bool, GitError> {
    let output = command(path).env("GIT_INDEX_FILE", index).args(args).output().map_err(GitError::NotRun)?;
    Ok(output.status.success())
}

/// What the worktree at `path` changed against `base`, committed or not,
/// untracked files included, the app's own files left out; sorted by path.
pub fn changes(path: &Checkout, base: &str) -> Result<Vec<FileChange>, GitError> {
    changes_with(path, base, &untracked(path)?)
}

/// The files git does not track yet (and does not ignore), the app's own
/// left out: what both [`changes`] and [`hunks`] add to git's diff.
pub fn untracked(path: &Checkout) -> Result<Vec<String>, GitError> {
    Ok(git(path, &["ls-files", "--others", "--exclude-standard", "-z"])?
        .split(|b| *b == 0)
        .filter(|f| !f.is_empty())
        .map(decode_name)
        .filter(|f| !is_app_path(f))
        .collect())
}

/// [`changes`], with the untracked files already listed.
pub fn changes_with(path: &Checkout, base: &str, untracked: &[String]) -> Result<Vec<FileChange>, GitError> {
    // Tracked files, the base against the working tree, renames found: in
    // one run, each file's status (`--raw`) then its line counts.
    let out = git(path, &["diff", "--no-ext-diff", "--no-textconv", "--raw", "--numstat", "-z", "-M", base, "--"])?;
    let mut changes = parse_diff(&out);
    for file in untracked {
        let binary = looks_binary(path.path(), file);
        changes.push(FileChange { path: file.clone(), from: None, kind: ChangeKind::Added, binary });
    }
    changes.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(changes)
}

/// The files of `git diff --raw --numstat -z -M` output (pure): each file's
/// status (`--raw`), binary where `--numstat` counts no lines for it; the
/// app's own left out.
pub(super) fn parse_diff(out: &[u8]) -> Vec<FileChange> {
    let mut changes = Vec::new();
    let mut fields = out.split(|b| *b == 0).map(decode_name);
    let mut binary = Vec::new();
    while let Some(field) = fields.next() {
        if field.is_empty() {
            continue;
        }
        if let Some(raw) = field.strip_prefix(':') {
            // ":modes hashes STATUS", then the path (a rename: from, then to).
            let code = raw.rsplit(' ').next().unwrap_or_default();
            let (kind, from) = match code.chars().next() {
                Some('A') => (ChangeKind::Added, None),
                Some('D') => (ChangeKind::Deleted, None),
                Some('R') => (ChangeKind::Renamed, fields.next()),
                // Modified, type changed, copied: a change to that file.
                _ => (ChangeKind::Modified, None),
            };
            let Some(file) = fields.next() else { break };
            if !is_app_path(&file) {
                changes.push(FileChange { path: file, from, kind, binary: false });
            }
        } else {
            // "added\tdeleted\tpath", or for a rename "added\tdeleted\t", then from, then to.
            let mut parts = field.splitn(3, '\t');
            let (added, deleted, file) = (parts.next(), parts.next(), parts.next());
            let file = match file {
                Some("") => {
                    fields.next();
                    fields.next()
                }
                other => other.map(str::to_owned),
            };
            if (added, deleted) == (Some("-"), Some("-"))
                && let Some(file) = file
            {
                binary.push(file);
            }
        }
    }
    for change in &mut changes {
        change.binary = binary.contains(&change.path);
    }
    changes
}

/// The base's lines each file the worktree at `path` changed touches (for
/// the conflict radar), untracked files as added ones, the app's own left out.
pub fn hunks(path: &Checkout, base: &str) -> Result<Vec<radar::FileHunks>, GitError> {
    hunks_with(path, base, &untracked(path)?)
}

/// [`hunks`], with the untracked files already listed.
pub fn hunks_with(path: &Checkout, base: &str, untracked: &[String]) -> Result<Vec<radar::FileHunks>, GitError> {
    let excluded: Vec<String> = APP_PATHS.iter().map(|own| format!(":(exclude){own}")).collect();
    let mut args = vec!["diff", "-U0", "-M", "--no-color", "--no-ext-diff", "--no-textconv", base, "--", "."];
    args.extend(excluded.iter().map(String::as_str));
    let mut files = radar::parse_hunks(&String::from_utf8_lossy(&git(path, &args)?));
    files.extend(untracked.iter().map(|file| radar::FileHunks { path: file.clone(), hunks: None }));
    Ok(files)
}

/// Writes everything the worktree at `path` changed against `base` as one
/// patch at `patch` (binary files included, untracked ones too, the app's
/// own files left out), which `git apply` takes back onto the base. The
/// worktree's untracked files are marked as intended for adding (its own
/// index, not the user's checkout).
pub fn save_patch(path: &Checkout, base: &str, patch: &Path) -> Result<(), GitError> {
    let mut excluded: Vec<String> = APP_PATHS.iter().map(|own| format!(":(exclude){own}")).collect();
    stage_all(path, true)?;
    let mut diff = vec![
        "diff".to_owned(),
        "--no-ext-diff".into(),
        "--no-textconv".into(),
        "--binary".into(),
        "-M".into(),
        base.into(),
        "--".into(),
        ".".into(),
    ];
    diff.append(&mut excluded);
    let diff: Vec<&str> = diff.iter().map(String::as_str).collect();
    let bytes = git(path, &diff)?;
    crate::private::write(patch, bytes).map_err(|error| GitError::Failed {
        what: "diff".into(),
        why: format!("the patch could not be kept at {}: {error}", patch.display()),
    })
}

/// The commit the worktree's work starts from: where its branch left the
/// base (the base may have moved on since).
pub fn fork_point(path: &Checkout, base: &str) -> Result<String, GitError> {
    Ok(text(git(path, &["merge-base", &format!("refs/heads/{base}"), "HEAD"])?))
}
