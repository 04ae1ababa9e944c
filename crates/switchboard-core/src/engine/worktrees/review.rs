//! The user's review of a worktree: its diff, a commit, merge, rebase, discard or review, git run off the engine.

use super::open;
use super::picture::{latest_task, title_of};
use super::radar::RadarInput;
use super::{MAX_DIFF_FILES, PATCHES_DIR, SUMMARY_SHOWN_BYTES, WorktreeDesk};
use crate::engine::context::Ctx;
use crate::engine::sessions::EndWaiter;
use crate::error::{EngineError, Responder};
use crate::sink::LogAbout;
use crate::worktree::{self, Kept, WorktreeRecord};
use std::path::{Path, PathBuf};
use switchboard_api::{
    DiscardOutcome, EngineEvent, LogKind, MergeOutcome, RebaseOutcome, ReviewStep, WorktreeDiff, WorktreeState, now,
};
use switchboard_protocol::{SessionId, TaskId};
use tokio::sync::oneshot;

impl WorktreeDesk {
    pub fn diff(&self, cx: &Ctx, key: &str, reply: Responder<WorktreeDiff>) {
        let (record, info) = match self.find(cx, key) {
            Ok(found) => found,
            Err(error) => return reply.send(Err(error)),
        };
        let summary_task = latest_task(cx, &record.owner);
        let path = PathBuf::from(&record.path);
        let base = record.base.clone();
        self.off_engine(
            move || -> Result<WorktreeDiff, EngineError> {
                if !path.is_dir() {
                    return Ok(WorktreeDiff { worktree: info, files: Vec::new(), files_left_out: 0, summary: None });
                }
                let checkout = open(&record)?;
                let from = worktree::fork_point(&checkout, &base)?;
                let mut changes = worktree::changes(&checkout, &from)?;
                let left_out = changes.len().saturating_sub(MAX_DIFF_FILES) as u32;
                changes.truncate(MAX_DIFF_FILES);
                let files = worktree::diff_files(&checkout, &from, &changes)?;
                let summary = summary_task
                    .and_then(|task| crate::tasks::artifacts::read_summary(&path, &task, SUMMARY_SHOWN_BYTES).ok());
                Ok(WorktreeDiff { worktree: info, files, files_left_out: left_out, summary })
            },
            move |_, _, diff| reply.send(diff),
        );
    }

    pub fn commit(&self, cx: &Ctx, key: &str, reply: Responder<switchboard_api::CommitOutcome>) {
        let (record, _) = match self.find_open(cx, key) {
            Ok(found) => found,
            Err(error) => return reply.send(Err(error)),
        };
        let message = title_of(cx, &record);
        let job = record.clone();
        let owner = record.owner.clone();
        self.off_engine(
            move || worktree::commit_all(&open(&job)?, &message),
            move |desk, cx, committed| match committed {
                Ok(committed) => {
                    if committed {
                        log_review(cx, &record, ReviewStep::Committed);
                    }
                    desk.radar.send(RadarInput::Read { owner: owner.clone() });
                    let found = desk.find(cx, &owner);
                    reply.send(found.map(|(_, worktree)| switchboard_api::CommitOutcome { committed, worktree }));
                }
                Err(error) => reply.send(Err(error.into())),
            },
        );
    }

    pub fn merge(&self, cx: &mut Ctx, key: &str, reply: Responder<MergeOutcome>) {
        let record = match self.find_idle(cx, key) {
            Ok(record) => record,
            Err(error) => return reply.send(Err(error)),
        };
        let ended = end_sessions_in(cx, &record);
        let message = title_of(cx, &record);
        let job = record.clone();
        // The agents' worktrees: a base checked out in one is not moved.
        let apart = cx.sessions.data_dir().join(crate::engine::isolation::WORKTREES_DIR);
        // As git lists worktrees: resolved, so a data folder reached through a link is still known.
        let apart = apart.canonicalize().unwrap_or(apart);
        self.off_engine_after(
            ended,
            move || -> Result<worktree::Merged, worktree::GitError> {
                let path = Path::new(&job.path);
                worktree::commit_all(&open(&job)?, &message)?;
                let merged = worktree::merge(
                    Path::new(&job.repository),
                    &apart,
                    &job.base,
                    &job.branch,
                    &format!("Merge {}: {message}", job.branch),
                )?;
                if let worktree::Merged::Landed { .. } = merged
                    && let Err(error) = worktree::remove(Path::new(&job.repository), path, &job.branch)
                {
                    tracing::warn!(%error, "a merged worktree could not be removed");
                }
                Ok(merged)
            },
            move |desk, cx, merged| {
                let outcome = match merged {
                    Ok(worktree::Merged::Landed { commit, fast_forward }) => {
                        cx.merged_commits.push_back(commit.clone());
                        if cx.merged_commits.len() > 64 {
                            cx.merged_commits.pop_front();
                        }
                        let record =
                            WorktreeRecord { kept: Kept::Merged { at: now() }, conflict: Vec::new(), ..record };
                        let step = ReviewStep::Merged { base: record.base.clone(), fast_forward };
                        desk.close(cx, &record, step);
                        Ok(MergeOutcome::Merged { base: record.base, commit, fast_forward })
                    }
                    Ok(worktree::Merged::Conflict { files }) => {
                        desk.met_base(&record.owner, &files);
                        let record = WorktreeRecord { conflict: files.clone(), ..record };
                        desk.save(cx, &record, ReviewStep::MergeConflict { files: files.clone() });
                        Ok(MergeOutcome::Conflict { files })
                    }
                    Ok(worktree::Merged::InTheWay { why }) => Ok(MergeOutcome::InTheWay { why }),
                    Err(error) => Err(error.into()),
                };
                reply.send(outcome);
            },
        );
    }

    pub fn rebase(&self, cx: &Ctx, key: &str, reply: Responder<RebaseOutcome>) {
        let record = match self.find_idle(cx, key) {
            Ok(record) => record,
            Err(error) => return reply.send(Err(error)),
        };
        let message = title_of(cx, &record);
        let job = record.clone();
        self.off_engine(
            move || worktree::rebase(&open(&job)?, &job.base, &message),
            move |desk, cx, rebased| {
                let outcome = match rebased {
                    Ok(worktree::Rebased::Done) => {
                        let record = WorktreeRecord { conflict: Vec::new(), ..record.clone() };
                        desk.save(cx, &record, ReviewStep::Rebased);
                        Ok(RebaseOutcome::Rebased)
                    }
                    Ok(worktree::Rebased::Conflict { files }) => {
                        desk.met_base(&record.owner, &files);
                        desk.save(cx, &record, ReviewStep::RebaseConflict { files: files.clone() });
                        Ok(RebaseOutcome::Conflict { files })
                    }
                    Err(error) => Err(error.into()),
                };
                desk.radar.send(RadarInput::Read { owner: record.owner.clone() });
                reply.send(outcome);
            },
        );
    }

    pub fn discard(&self, cx: &mut Ctx, key: &str, force: bool, reply: Responder<DiscardOutcome>) {
        let record = match self.find_idle(cx, key) {
            Ok(record) => record,
            Err(error) => return reply.send(Err(error)),
        };
        let ended = end_sessions_in(cx, &record);
        let patches = cx.sessions.data_dir().join(PATCHES_DIR);
        let job = record.clone();
        self.off_engine_after(
            ended,
            move || discard_files(&job, &patches, force),
            move |desk, cx, discarded| {
                if let Ok(DiscardOutcome::Discarded { patch }) = &discarded {
                    let record = WorktreeRecord { kept: Kept::Discarded { at: now(), patch: patch.clone() }, ..record };
                    desk.close(cx, &record, ReviewStep::Discarded { patch: patch.clone() });
                }
                reply.send(discarded);
            },
        );
    }

    /// The user's review of a worktree, as the task its follow-up is (the
    /// router submits it): its agent, title and prompt.
    pub fn review(
        &self,
        cx: &Ctx,
        key: &str,
        comments: &[switchboard_api::ReviewComment],
    ) -> Result<(WorktreeRecord, String, String), EngineError> {
        let (record, _) = self.find_open(cx, key)?;
        let title = title_of(cx, &record);
        let prompt = worktree::review_prompt(&title, comments).ok_or_else(|| EngineError::InvalidInput {
            field: "comments",
            reason: "there are no comments to send".into(),
        })?;
        log_review(cx, &record, ReviewStep::CommentsSent { comments: comments.len() as u32 });
        Ok((record, format!("Review of {title}"), prompt))
    }

    /// The task that asks the worktree's agent to bring its base in and
    /// resolve the conflicts a merge would meet now (the router submits
    /// it): its agent, title and prompt. Refused where there is no
    /// conflict with the base, or git is not run there.
    pub fn resolve(&self, cx: &Ctx, key: &str) -> Result<(WorktreeRecord, String, String), EngineError> {
        let (record, info) = self.find_open(cx, key)?;
        let refused = |reason: String| EngineError::InvalidInput { field: "worktree", reason };
        if matches!(
            info.state,
            WorktreeState::FolderMissing | WorktreeState::Tampered | WorktreeState::BranchGone | WorktreeState::Refused
        ) {
            return Err(refused(format!("it cannot be worked in: {}", info.state_text)));
        }
        if info.base_conflict.is_empty() {
            return Err(refused(format!(
                "it merges into {} without a conflict: there is nothing to resolve",
                record.base
            )));
        }
        let title = format!("Resolve conflicts with {}: {}", record.base, title_of(cx, &record));
        Ok((record.clone(), title, worktree::resolve_prompt(&record.base, &info.base_conflict)))
    }

    /// A merge or rebase of the worktree of `owner` met a conflict with its
    /// base in `files` just now: that is what a merge would meet, until the
    /// radar reads it again.
    pub(super) fn met_base(&mut self, owner: &str, files: &[String]) {
        if let Some(facts) = self.facts.get_mut(owner) {
            let behind = facts.against_base.as_ref().map_or(1, |a| a.behind.max(1));
            facts.against_base = Some(worktree::AgainstBase { behind, conflicts: files.to_vec() });
        }
    }

    /// Records a worktree merged or discarded; the radar lets it go.
    pub(super) fn close(&mut self, cx: &Ctx, record: &WorktreeRecord, step: ReviewStep) {
        self.radar.send(RadarInput::Untrack { owner: record.owner.clone() });
        self.facts.remove(&record.owner);
        self.save(cx, record, step);
        // Its base may have moved: what merging each other one of its
        // repository would meet is read again.
        match cx.store.list_worktrees() {
            Ok(records) => {
                for other in records.iter().filter(|r| r.kept == Kept::Open && r.repository == record.repository) {
                    self.radar.send(RadarInput::Read { owner: other.owner.clone() });
                }
            }
            Err(error) => tracing::warn!(%error, "the worktrees could not be read"),
        }
        // The others' overlaps with it are over.
        let pictures = self.pictures(cx);
        for info in pictures.into_values() {
            cx.emit(EngineEvent::WorktreeChanged { worktree: info });
        }
    }

    pub(super) fn save(&self, cx: &Ctx, record: &WorktreeRecord, step: ReviewStep) {
        if let Err(error) = cx.store.update_worktree(record) {
            tracing::error!(%error, "a worktree's review could not be recorded");
        }
        log_review(cx, record, step);
        self.report(cx, record);
    }
}

/// Ends whatever still runs in the worktree of `record` (its agent's
/// session kept for its grace, a session started there by hand), so no
/// process is left in a folder a merge or discard removes: what to wait on.
pub(super) fn end_sessions_in(cx: &mut Ctx, record: &WorktreeRecord) -> Vec<oneshot::Receiver<()>> {
    let path = Path::new(&record.path);
    let same = |workspace: &str| {
        let workspace = Path::new(workspace);
        workspace == path || workspace.canonicalize().is_ok_and(|w| path.canonicalize().is_ok_and(|p| w == p))
    };
    let running: Vec<SessionId> = cx
        .sessions
        .running()
        .filter(|entry| entry.info.workspace.as_deref().is_some_and(same))
        .map(|entry| entry.info.id.clone())
        .collect();
    let mut ended = Vec::new();
    for id in running {
        let (told, end) = oneshot::channel();
        let waiter = EndWaiter::Stop(Responder::new(move |_: Result<switchboard_api::SessionInfo, EngineError>| {
            told.send(()).ok();
        }));
        match cx.sessions.stop(&cx.store, &id, waiter) {
            Ok(()) => ended.push(end),
            Err((error, _)) => tracing::warn!(%error, session = %id, "a session in a worktree could not be ended"),
        }
    }
    ended
}

pub(super) fn at_work(task: &TaskId) -> EngineError {
    EngineError::InvalidInput {
        field: "worktree",
        reason: format!("its agent is still at work in it (task {task}): wait for the task to end, or cancel it"),
    }
}

pub(super) fn log_review(cx: &Ctx, record: &WorktreeRecord, step: ReviewStep) {
    let task = record.owner.parse::<TaskId>().ok();
    let about = LogAbout {
        session: None,
        task: task.as_ref(),
        loop_id: record.loop_id.as_ref(),
        profile: Some(&record.profile_id),
    };
    if let Err(error) = cx.log(now(), about, &LogKind::WorktreeReviewed { step }) {
        tracing::warn!(%error, "a worktree's review could not be logged");
    }
}

/// Removes a worktree's folder and branch, keeping its work as a patch
/// first when it holds work not merged; refused without `force` then. One
/// git can no longer be run in (its `.git` file tampered with, its branch
/// gone) is removed whatever it holds, its files kept as they are beside
/// the patches: nothing is lost, so nothing is asked.
pub(super) fn discard_files(
    record: &WorktreeRecord,
    patches: &Path,
    force: bool,
) -> Result<DiscardOutcome, EngineError> {
    let (repository, path) = (Path::new(&record.repository), Path::new(&record.path));
    let kept_name = {
        let leaf = record.branch.replace('/', "-");
        let short: String = record.owner.chars().take(8).collect();
        format!("{leaf}-{short}")
    };
    if !path.is_dir() {
        // Its folder is gone: git forgets it; an unmerged branch is kept
        // only when it holds commits (its patch cannot be made without a folder).
        worktree::prune(repository)?;
        let merged = worktree::is_merged(repository, &record.branch, &record.base).unwrap_or(true);
        if merged {
            worktree::delete_branch(repository, &record.branch)?;
        }
        return Ok(DiscardOutcome::Discarded { patch: None });
    }
    let checkout = match open(record) {
        Ok(checkout) => checkout,
        Err(worktree::GitError::Broken(_)) => {
            let kept = patches.join(format!("{kept_name}-files"));
            worktree::keep_files(path, &kept).map_err(|e| {
                EngineError::io(format!("keeping the files of {} at {}", path.display(), kept.display()), e)
            })?;
            forget(repository, record)?;
            return Ok(DiscardOutcome::Discarded { patch: Some(kept.to_string_lossy().into_owned()) });
        }
        Err(error) => return Err(error.into()),
    };
    let from = worktree::fork_point(&checkout, &record.base)?;
    let changes = worktree::changes(&checkout, &from)?;
    let merged = worktree::is_merged(repository, &record.branch, &record.base)? && changes.is_empty();
    let loses = worktree::removal_loses_work(&changes, merged);
    if loses && !force {
        return Ok(DiscardOutcome::WouldLoseWork { files_changed: changes.len() as u32 });
    }
    let patch = if loses {
        std::fs::create_dir_all(patches).map_err(|e| EngineError::io(format!("making {}", patches.display()), e))?;
        let file = patches.join(format!("{kept_name}.patch"));
        worktree::save_patch(&checkout, &from, &file)?;
        Some(file.to_string_lossy().into_owned())
    } else {
        None
    };
    if let Err(error) = worktree::remove(repository, path, &record.branch) {
        // Its work is kept (or there was none): the folder goes all the same.
        tracing::warn!(%error, "git could not remove a worktree; its folder is removed here");
        std::fs::remove_dir_all(path).map_err(|e| EngineError::io(format!("removing {}", path.display()), e))?;
        worktree::prune(repository)?;
        worktree::delete_branch(repository, &record.branch)?;
    }
    Ok(DiscardOutcome::Discarded { patch })
}

/// git forgets a worktree whose folder was taken away; its branch goes
/// only when all of it is on the base (else its commits stay the user's to take).
pub(super) fn forget(repository: &Path, record: &WorktreeRecord) -> Result<(), EngineError> {
    worktree::prune(repository)?;
    if worktree::is_merged(repository, &record.branch, &record.base).unwrap_or(false) {
        worktree::delete_branch(repository, &record.branch)?;
    }
    Ok(())
}
