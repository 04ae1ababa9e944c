//! `switchboard worktree list|diff|merge|resolve|discard`: where agents that
//! work apart made their changes, and the review of them.

use std::io::Write;

use anyhow::Result;
use switchboard_api::{DiffContent, DiscardOutcome, FileStatus, MergeOutcome, WorktreeState};
use switchboard_client::blocking::Client;

use crate::print::{columns, first_line, one_line, print};
use crate::task::submitted_line;
use crate::{Output, Refused, WorktreeCommand};

/// How many files a worktree changed, in words, where that is known: an
/// open worktree git is run in (not one whose folder is gone, nor one
/// tampered with, branchless or refused, whose count is not a reading).
fn files_changed(state: WorktreeState, count: u32) -> String {
    use WorktreeState as S;
    let read = matches!(
        state,
        S::Working
            | S::ReadyToMerge
            | S::Conflicting
            | S::TaskFailed
            | S::TaskStopped
            | S::ConflictsWithBase
            | S::Behind
    );
    match (read, count) {
        (true, 1) => "1 file".into(),
        (true, n) => format!("{n} files"),
        (false, _) => String::new(),
    }
}

pub(crate) fn run(client: &Client, command: WorktreeCommand, out: &mut impl Write) -> Result<()> {
    match command {
        WorktreeCommand::List { output } => list(client, output, out),
        WorktreeCommand::Diff { task, output } => diff(client, task, output, out),
        WorktreeCommand::Merge { task, output } => merge(client, task, output, out),
        WorktreeCommand::Resolve { task, output } => {
            let submitted = client.resolve_worktree(task)?;
            print(out, output, &submitted, |submitted| {
                format!(
                    "{} (its agent brings the base in and resolves the conflicts)",
                    submitted_line(submitted, "its agent")
                )
            })
        }
        WorktreeCommand::Discard { task, force, output } => discard(client, task, force, output, out),
    }
}

/// `worktree list`: open ones, then recent merged and discarded ones.
fn list(client: &Client, output: Output, out: &mut impl Write) -> Result<()> {
    let worktrees = client.list_worktrees()?;
    print(out, output, &worktrees, |worktrees| {
        if worktrees.is_empty() {
            return "no worktrees: agents set to work apart (--isolation worktree) make one per task".into();
        }
        columns(worktrees.iter().map(|w| {
            // The engine's words, as the window and notifications say them.
            let state = one_line(&w.state_text);
            let meets = if w.overlaps.is_empty() {
                String::new()
            } else {
                let titles: Vec<&str> = w.overlaps.iter().map(|o| o.with_title.as_str()).collect();
                format!("changes the same files as: {}", titles.join(", "))
            };
            vec![
                w.task.clone(),
                w.agent.clone(),
                w.branch.clone(),
                state,
                files_changed(w.state, w.files_changed),
                first_line(&w.title, 50),
                meets,
            ]
        }))
    })
}

/// `worktree diff`: each file's status, then the unified diff.
fn diff(client: &Client, task: String, output: Output, out: &mut impl Write) -> Result<()> {
    let diff = client.worktree_diff(task)?;
    print(out, output, &diff, |diff| {
        let mut lines = Vec::new();
        for file in &diff.files {
            let status = match (file.status, &file.from) {
                (FileStatus::Added, _) => "added".to_owned(),
                (FileStatus::Modified, _) => "modified".to_owned(),
                (FileStatus::Deleted, _) => "deleted".to_owned(),
                (FileStatus::Renamed, Some(from)) => format!("renamed from {}", one_line(from)),
                (FileStatus::Renamed, None) => "renamed".to_owned(),
            };
            let note = match &file.content {
                DiffContent::Binary => " (binary)".to_owned(),
                DiffContent::TooLarge { bytes } => format!(" (too large to show: {} KiB)", bytes / 1024),
                DiffContent::Text { .. } => String::new(),
            };
            // One line each, whatever the agent named its files (the engine quotes odd names already).
            lines.push(format!("{status}\t{}{note}", one_line(&file.path)));
        }
        if diff.files.is_empty() {
            lines.push("no changes against its base".into());
        }
        if diff.files_left_out > 0 {
            lines.push(format!("({} more files left out)", diff.files_left_out));
        }
        for file in &diff.files {
            if let DiffContent::Text { unified, .. } = &file.content {
                lines.push(String::new());
                lines.push(unified.trim_end().to_owned());
            }
        }
        lines.join("\n")
    })
}

/// `worktree merge`: refused (exit 4) when files conflict or the user's changes are in the way.
fn merge(client: &Client, task: String, output: Output, out: &mut impl Write) -> Result<()> {
    let merged = client.merge_worktree(task)?;
    print(out, output, &merged, |merged| match merged {
        MergeOutcome::Merged { base, commit, fast_forward: true } => {
            format!("merged into {base} (moved forward to {})", &commit[..commit.len().min(12)])
        }
        MergeOutcome::Merged { base, commit, fast_forward: false } => {
            format!("merged into {base} with merge commit {}", &commit[..commit.len().min(12)])
        }
        MergeOutcome::Conflict { files } => {
            format!(
                "not merged: these files conflict with its base, nothing was changed:\n{}",
                files.iter().map(|f| one_line(f)).collect::<Vec<_>>().join("\n")
            )
        }
        MergeOutcome::InTheWay { why } => format!("not merged: {why}"),
    })?;
    match merged {
        MergeOutcome::Merged { .. } => Ok(()),
        MergeOutcome::Conflict { files } => {
            let files: Vec<String> = files.iter().map(|f| one_line(f)).collect();
            Err(Refused(format!("merge refused: {} conflict", files.join(", "))).into())
        }
        MergeOutcome::InTheWay { why } => Err(Refused(format!("merge refused: {why}")).into()),
    }
}

/// `worktree discard`: refused (exit 4) without `force` when it holds work not merged.
fn discard(client: &Client, task: String, force: bool, output: Output, out: &mut impl Write) -> Result<()> {
    let discarded = client.discard_worktree(task, force)?;
    print(out, output, &discarded, |discarded| match discarded {
        DiscardOutcome::Discarded { patch: Some(patch) } => patch.clone(),
        DiscardOutcome::Discarded { patch: None } => "discarded (it held no work that was not merged)".into(),
        DiscardOutcome::WouldLoseWork { files_changed } => format!(
            "not discarded: it holds {files_changed} changed files not merged; \
             with --force they are kept as a patch file first"
        ),
    })?;
    match discarded {
        DiscardOutcome::WouldLoseWork { files_changed } => Err(Refused(format!(
            "discard refused: {files_changed} changed files would be lost (use --force to keep them as a patch and discard)"
        ))
        .into()),
        DiscardOutcome::Discarded { .. } => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_worktree_says_how_many_files_it_changed_only_where_that_is_read() {
        use WorktreeState as S;
        let cases = [
            (S::ReadyToMerge, 1, "1 file"),
            (S::ReadyToMerge, 0, "0 files"),
            (S::Conflicting, 3, "3 files"),
            (S::Working, 2, "2 files"),
            (S::Tampered, 0, ""),
            (S::BranchGone, 0, ""),
            (S::Refused, 0, ""),
            (S::FolderMissing, 0, ""),
            (S::Merged, 4, ""),
        ];
        for (state, count, said) in cases {
            assert_eq!(files_changed(state, count), said, "{state:?} {count}");
        }
    }
}
