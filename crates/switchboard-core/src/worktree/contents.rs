//! Both sides of each changed file, read for the diff view: bounded, and a binary file named but not shown.

use super::checkout::Checkout;
use super::git::{command, git};
use super::names::shown_name;
use super::{ChangeKind, FileChange, GitError, MAX_SHOWN_FILE};
use std::path::Path;

/// Every change of the worktree at `path` against the commit `from`, as the
/// Changes view shows it: each text file before and now with its unified
/// diff, binary and too large files named; the app's own files left out.
/// The files now are the agent's: read the one guarded way, capped. git
/// runs twice whatever the number of files (the base's side of them all is
/// read in one batch); the unified diffs are made here.
pub fn diff_files(
    path: &Checkout,
    from: &str,
    changes: &[FileChange],
) -> Result<Vec<switchboard_api::FileDiff>, GitError> {
    use switchboard_api::{DiffContent, FileDiff, FileStatus};
    let files = crate::workspace::Workspace::open(path.path()).map_err(|error| GitError::Failed {
        what: "diff".into(),
        why: format!("the worktree cannot be read: {error}"),
    })?;
    let old_path = |change: &FileChange| change.from.clone().unwrap_or_else(|| change.path.clone());
    let wanted: Vec<String> =
        changes.iter().filter(|c| !c.binary && c.kind != ChangeKind::Added).map(old_path).collect();
    let mut before_of = blobs(path, from, &wanted)?;
    let mut out = Vec::with_capacity(changes.len());
    for change in changes {
        let status = match change.kind {
            ChangeKind::Added => FileStatus::Added,
            ChangeKind::Modified => FileStatus::Modified,
            ChangeKind::Deleted => FileStatus::Deleted,
            ChangeKind::Renamed => FileStatus::Renamed,
        };
        let content = if change.binary {
            DiffContent::Binary
        } else {
            let old = old_path(change);
            let before = match change.kind {
                ChangeKind::Added => Blob::Text(String::new()),
                _ => before_of.remove(&old).unwrap_or(Blob::Text(String::new())),
            };
            let after = match change.kind {
                ChangeKind::Deleted => {
                    Ok(Some(crate::workspace::Capped { text: String::new(), size: 0, truncated: false }))
                }
                _ => files.read_if_there(&change.path, MAX_SHOWN_FILE as usize),
            };
            match (before, after) {
                (Blob::Text(before), Ok(Some(after))) if !after.truncated => {
                    // Named as git names them: quoted where a name is not shown as it is.
                    let (a, b) = match change.kind {
                        ChangeKind::Added => ("/dev/null".to_owned(), shown_name(&format!("b/{}", change.path))),
                        ChangeKind::Deleted => (shown_name(&format!("a/{old}")), "/dev/null".to_owned()),
                        _ => (shown_name(&format!("a/{old}")), shown_name(&format!("b/{}", change.path))),
                    };
                    let unified = similar::TextDiff::from_lines(&before, &after.text)
                        .unified_diff()
                        .context_radius(3)
                        .header(&a, &b)
                        .to_string();
                    DiffContent::Text { before, after: after.text, unified }
                }
                (Blob::Binary, _) => DiffContent::Binary,
                (before, after) => {
                    let before = if let Blob::TooLarge(bytes) = before { bytes } else { 0 };
                    let after = match after {
                        Ok(Some(after)) => after.size,
                        _ => 0,
                    };
                    DiffContent::TooLarge { bytes: before.max(after) }
                }
            }
        };
        out.push(FileDiff {
            path: shown_name(&change.path),
            from: change.from.as_deref().map(shown_name),
            status,
            content,
        });
    }
    Ok(out)
}

/// A file as the base has it.
pub(super) enum Blob {
    Text(String),
    Binary,
    TooLarge(u64),
}

/// The base's side of `files` at `commit`, read in two git runs (sizes,
/// then the contents of those not past [`MAX_SHOWN_FILE`]); a file the
/// commit lacks is left out.
pub(super) fn blobs(
    path: &Checkout,
    commit: &str,
    files: &[String],
) -> Result<std::collections::HashMap<String, Blob>, GitError> {
    let mut out = std::collections::HashMap::new();
    // A name with a line break cannot be asked for a line at a time: alone.
    let (odd, files): (Vec<&String>, Vec<&String>) = files.iter().partition(|f| f.contains('\n'));
    for file in odd {
        if let Ok(bytes) = git(path, &["cat-file", "blob", &format!("{commit}:{file}")]) {
            let blob = match bytes.len() as u64 {
                size if size > MAX_SHOWN_FILE => Blob::TooLarge(size),
                _ if bytes.contains(&0) => Blob::Binary,
                _ => Blob::Text(String::from_utf8_lossy(&bytes).into_owned()),
            };
            out.insert(file.clone(), blob);
        }
    }
    if files.is_empty() {
        return Ok(out);
    }
    let names: Vec<String> = files.iter().map(|f| format!("{commit}:{f}")).collect();
    let sizes = batch(path, "--batch-check=%(objectsize)", &names)?;
    let mut small = Vec::new();
    for (file, line) in files.iter().zip(String::from_utf8_lossy(&sizes).lines()) {
        match line.trim().parse::<u64>() {
            Ok(size) if size > MAX_SHOWN_FILE => {
                out.insert((*file).clone(), Blob::TooLarge(size));
            }
            Ok(_) => small.push((*file).clone()),
            // "… missing": the base has no such file.
            Err(_) => {}
        }
    }
    let names: Vec<String> = small.iter().map(|f| format!("{commit}:{f}")).collect();
    let contents = batch(path, "--batch=%(objectsize)", &names)?;
    let mut rest = contents.as_slice();
    for file in small {
        let Some(end) = rest.iter().position(|b| *b == b'\n') else { break };
        let size: usize = String::from_utf8_lossy(&rest[..end]).trim().parse().unwrap_or(0);
        let body = rest.get(end + 1..end + 1 + size).unwrap_or_default();
        let blob =
            if body.contains(&0) { Blob::Binary } else { Blob::Text(String::from_utf8_lossy(body).into_owned()) };
        out.insert(file, blob);
        rest = rest.get(end + 1 + size + 1..).unwrap_or_default();
    }
    Ok(out)
}

/// Runs `git cat-file <mode>` with `names` on its input, one a line.
pub(super) fn batch(path: &Checkout, mode: &str, names: &[String]) -> Result<Vec<u8>, GitError> {
    use std::io::Write;
    let mut child = command(path)
        .args(["cat-file", mode])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .map_err(GitError::NotRun)?;
    let mut input = child.stdin.take().expect("piped");
    let lines: String = names.iter().map(|n| format!("{n}\n")).collect();
    // Written beside the reading: a long list would fill both pipes.
    let writer = std::thread::spawn(move || input.write_all(lines.as_bytes()));
    let output = child.wait_with_output().map_err(GitError::NotRun)?;
    match writer.join() {
        Ok(Ok(())) => {}
        // git stopped reading (it failed, said below) or the writer died.
        Ok(Err(error)) => tracing::debug!(%error, "the names could not all be given to git cat-file"),
        Err(_) => tracing::warn!("the writer of names to git cat-file panicked"),
    }
    if !output.status.success() {
        return Err(GitError::Failed { what: "cat-file".into(), why: "it could not read the base's files".into() });
    }
    Ok(output.stdout)
}

/// Whether a file's first 8 KiB hold a NUL byte, as git judges text. The
/// agent wrote it: read the one guarded way (inside the worktree, no link
/// out, a regular file only, capped); one that may not be read is not shown
/// as text either.
pub(super) fn looks_binary(worktree: &Path, file: &str) -> bool {
    match crate::workspace::Workspace::open(worktree).and_then(|w| w.read(file, 8192)) {
        Ok(start) => start.text.contains('\0'),
        Err(_) => true,
    }
}
