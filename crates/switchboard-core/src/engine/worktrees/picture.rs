//! What the window is shown of each worktree: the record, what git and the radar found, the task at work in it.

use super::WorktreeDesk;
use crate::engine::context::Ctx;
use crate::worktree::{self, Kept, WorktreeRecord};
use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use switchboard_api::{EngineEvent, TaskInfo, TaskState, WorktreeInfo, WorktreeOverlap, WorktreeState};
use switchboard_protocol::TaskId;

impl WorktreeDesk {
    /// Every listed worktree as the user reads it, the radar's overlaps in.
    pub(super) fn pictures(&self, cx: &Ctx) -> BTreeMap<String, WorktreeInfo> {
        let records = match cx.store.list_worktrees() {
            Ok(records) => records,
            Err(error) => {
                tracing::warn!(%error, "the worktrees could not be read");
                return BTreeMap::new();
            }
        };
        let open: Vec<worktree::radar::Watched<String>> = records
            .iter()
            // A worktree whose folder is gone changes nothing any more.
            .filter(|r| r.kept == Kept::Open && Path::new(&r.path).is_dir())
            .filter_map(|r| {
                self.facts.get(&r.owner).map(|f| worktree::radar::Watched {
                    key: r.owner.clone(),
                    repository: r.repository.clone(),
                    files: f.hunks.clone(),
                })
            })
            .collect();
        let overlaps = worktree::radar::overlaps(&open);
        records
            .iter()
            .map(|record| {
                let mine: Vec<&worktree::radar::Overlap<String>> =
                    overlaps.iter().filter(|o| o.first == record.owner || o.second == record.owner).collect();
                let info = self.picture(cx, record, &mine);
                (record.owner.clone(), info)
            })
            .collect()
    }

    /// One worktree as the user reads it.
    pub(super) fn picture(
        &self,
        cx: &Ctx,
        record: &WorktreeRecord,
        overlaps: &[&worktree::radar::Overlap<String>],
    ) -> WorktreeInfo {
        let facts = self.facts.get(&record.owner);
        let at_work = task_at_work(cx, record);
        // Per other worktree: the files both change, and the regions of each in the other's way.
        let mut by_other: BTreeMap<String, (WorktreeOverlap, u32)> = BTreeMap::new();
        for overlap in overlaps {
            let (other, mine, theirs) = if overlap.first == record.owner {
                (&overlap.second, overlap.first_hunks, overlap.second_hunks)
            } else {
                (&overlap.first, overlap.second_hunks, overlap.first_hunks)
            };
            let (entry, theirs_total) = by_other.entry(other.clone()).or_insert_with(|| {
                let with_title =
                    cx.store.get_worktree(other).ok().flatten().map(|r| title_of(cx, &r)).unwrap_or_default();
                let overlap = WorktreeOverlap {
                    with: other.clone(),
                    with_title,
                    files: Vec::new(),
                    meeting_hunks: 0,
                    merge_first: false,
                };
                (overlap, 0)
            });
            entry.files.push(worktree::shown_name(&overlap.path));
            entry.meeting_hunks += mine as u32;
            *theirs_total += theirs as u32;
        }
        // The one with fewer regions in the other's way goes first; on a tie, the older.
        let older =
            |other: &str| cx.store.get_worktree(other).ok().flatten().is_none_or(|r| record.created_at <= r.created_at);
        let by_other: BTreeMap<String, WorktreeOverlap> = by_other
            .into_iter()
            .map(|(other, (mut overlap, theirs))| {
                overlap.merge_first =
                    overlap.meeting_hunks < theirs || (overlap.meeting_hunks == theirs && older(&other));
                (other, overlap)
            })
            .collect();
        let overlaps: Vec<WorktreeOverlap> = by_other.into_values().collect();
        let missing =
            facts.is_some_and(|f| f.missing) || (record.kept == Kept::Open && !Path::new(&record.path).is_dir());
        // What a merge would meet, as the radar last read it; before its
        // first read, what the last merge met.
        let against = facts.and_then(|f| f.against_base.clone());
        let base_conflict = match &against {
            Some(against) => against.conflicts.clone(),
            None => record.conflict.clone(),
        };
        let behind = against.as_ref().map_or(0, |a| a.behind);
        let (state, state_text) = match &record.kept {
            Kept::Merged { .. } => (WorktreeState::Merged, "merged".to_owned()),
            Kept::Discarded { .. } => (WorktreeState::Discarded, "discarded".to_owned()),
            Kept::Open => {
                let model = worktree::state_of(worktree::StateFacts {
                    folder_missing: missing,
                    broken: facts.and_then(|f| f.broken.clone()),
                    agent_at_work: at_work.is_some(),
                    merged: false,
                    last_task: last_task(cx, record),
                    base_conflict: base_conflict.clone(),
                    overlapping: !overlaps.is_empty(),
                    behind,
                });
                (flat(&model), model.words(&record.base))
            }
        };
        let base_conflict = if state.is_open() { base_conflict } else { Vec::new() };
        WorktreeInfo {
            task: record.owner.clone(),
            title: title_of(cx, record),
            loop_id: record.loop_id.clone(),
            profile_id: record.profile_id.clone(),
            // Its agent may be gone; its work is kept all the same.
            agent: cx.profile(&record.profile_id).map_or_else(|_| "a removed agent".to_owned(), |p| p.spec.name),
            repository: record.repository.clone(),
            branch: record.branch.clone(),
            base: record.base.clone(),
            path: record.path.clone(),
            created_at: record.created_at,
            state,
            state_text,
            base_conflict,
            behind: if state.is_open() { behind } else { 0 },
            files_changed: if record.kept == Kept::Open { facts.map_or(0, |f| f.files_changed) } else { 0 },
            conflicts_with: overlaps.iter().map(|o| o.with.clone()).collect(),
            overlaps,
            merge_conflict: record.conflict.clone(),
            patch: record.kept.patch().map(str::to_owned),
            task_at_work: at_work,
        }
    }

    pub(super) fn report(&self, cx: &Ctx, record: &WorktreeRecord) {
        let infos = self.pictures(cx);
        let info = infos.get(&record.owner).cloned().unwrap_or_else(|| self.picture(cx, record, &[]));
        cx.emit(EngineEvent::WorktreeChanged { worktree: info });
    }
}

/// The state as the window and `--json` see it: flat, its data in the info's fields.
pub(super) fn flat(state: &worktree::WorktreeState) -> WorktreeState {
    match state {
        worktree::WorktreeState::Working => WorktreeState::Working,
        worktree::WorktreeState::ReadyToMerge => WorktreeState::ReadyToMerge,
        worktree::WorktreeState::Merged => WorktreeState::Merged,
        worktree::WorktreeState::Overlapping => WorktreeState::Conflicting,
        worktree::WorktreeState::TaskFailed { .. } => WorktreeState::TaskFailed,
        worktree::WorktreeState::TaskStopped { .. } => WorktreeState::TaskStopped,
        worktree::WorktreeState::ConflictsWithBase { .. } => WorktreeState::ConflictsWithBase,
        worktree::WorktreeState::Behind { .. } => WorktreeState::Behind,
        worktree::WorktreeState::FolderMissing => WorktreeState::FolderMissing,
        worktree::WorktreeState::Broken(worktree::Broken::Tampered(_)) => WorktreeState::Tampered,
        worktree::WorktreeState::Broken(worktree::Broken::BranchGone) => WorktreeState::BranchGone,
        worktree::WorktreeState::Broken(worktree::Broken::Unsafe(_)) => WorktreeState::Refused,
    }
}

/// How the last task that ended in the worktree ended (a loop's iterations
/// are judged by their loop, not here).
pub(super) fn last_task(cx: &Ctx, record: &WorktreeRecord) -> worktree::LastTask {
    if record.loop_id.is_some() {
        return worktree::LastTask::Done;
    }
    let tasks = match cx.store.tasks_in_worktree(&record.owner) {
        Ok(tasks) => tasks,
        Err(error) => {
            tracing::warn!(%error, "a worktree's tasks could not be read");
            return worktree::LastTask::Done;
        }
    };
    // One cancelled before it began changed nothing there.
    let last = tasks
        .iter()
        .filter(|t| t.ended_at().is_some() && (t.started_at().is_some() || t.state() == TaskState::Failed))
        .max_by_key(|t| t.ended_at());
    let why = |task: &TaskInfo| task.reason().map(str::to_owned);
    match last {
        Some(task) => match task.state() {
            TaskState::Failed | TaskState::TimedOut => worktree::LastTask::Failed(why(task)),
            TaskState::Cancelled | TaskState::Interrupted => worktree::LastTask::Stopped(why(task)),
            _ => worktree::LastTask::Done,
        },
        None => worktree::LastTask::Done,
    }
}

/// The records' order: open ones oldest first, then the closed ones.
pub(super) fn ordered(mut infos: Vec<WorktreeInfo>, records: &[WorktreeRecord]) -> Vec<WorktreeInfo> {
    let place: HashMap<&str, usize> = records.iter().enumerate().map(|(i, r)| (r.owner.as_str(), i)).collect();
    infos.sort_by_key(|info| place.get(info.task.as_str()).copied().unwrap_or(usize::MAX));
    infos
}

/// The task queued or running in the worktree, if any.
pub(super) fn task_at_work(cx: &Ctx, record: &WorktreeRecord) -> Option<TaskId> {
    let tasks = cx.store.active_tasks(Some(&record.profile_id)).ok()?;
    tasks
        .into_iter()
        .filter(|t| matches!(t.state(), TaskState::Running | TaskState::Queued))
        .find(|t| crate::engine::isolation::worktree_key(t) == record.owner)
        .map(|t| t.id)
}

/// The latest task that ran in the worktree (its summary is shown).
pub(super) fn latest_task(cx: &Ctx, owner: &str) -> Option<TaskId> {
    match owner.parse::<TaskId>() {
        Ok(id) => {
            let tasks = cx.store.tasks_in_worktree(owner).unwrap_or_default();
            tasks.into_iter().last().map(|t: TaskInfo| t.id).or(Some(id))
        }
        Err(_) => cx.store.tasks_in_worktree(owner).ok()?.into_iter().last().map(|t| t.id),
    }
}

/// The name a worktree goes by: its task's, or its loop's goal.
pub(super) fn title_of(cx: &Ctx, record: &WorktreeRecord) -> String {
    if let Ok(id) = record.owner.parse::<TaskId>()
        && let Ok(Some(task)) = cx.store.get_task(&id)
    {
        return task.spec.title();
    }
    if let Some(loop_id) = &record.loop_id
        && let Ok(Some(info)) = cx.store.get_loop(loop_id)
    {
        return info.settings.goal.lines().next().unwrap_or_default().to_owned();
    }
    record.branch.clone()
}
