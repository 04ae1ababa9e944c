//! The worktree desk: the worktrees the app made for agents that work
//! apart, what each changed (the radar keeps it current), and the user's
//! review: diff, commit, merge, rebase, discard. git runs away from the
//! engine's task; what it did comes back as a [`WorktreeNote`] and is
//! recorded here, then reported (`worktree_changed`).

pub(crate) mod radar;

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use switchboard_protocol::{SessionId, TaskId};
use tokio::sync::{mpsc, oneshot};

use super::context::Ctx;
use super::sessions::EndWaiter;
use crate::error::{EngineError, Responder};
use crate::sink::LogAbout;
use crate::worktree::{self, Kept, WorktreeRecord};
use radar::{Facts, Radar, RadarInput, RadarReport, Where};
use switchboard_api::{
    DiscardOutcome, EngineEvent, FolderRepository, LogKind, MergeOutcome, RebaseOutcome, ReviewStep, TaskInfo,
    TaskState, WorktreeDiff, WorktreeInfo, WorktreeOverlap, WorktreeState, now,
};

/// The most files a diff carries.
pub const MAX_DIFF_FILES: usize = 300;

/// The most of a task's summary shown beside its diff.
const SUMMARY_SHOWN_BYTES: usize = 256 * 1024;

/// Where discarded work is kept, under the data folder.
pub const PATCHES_DIR: &str = "patches";

/// Work done away from the engine's task, to record on it.
pub(crate) type WorktreeNote = Box<dyn FnOnce(&mut WorktreeDesk, &mut Ctx) + Send>;

pub(crate) struct WorktreeDesk {
    /// What the radar last read of each open worktree.
    facts: HashMap<String, Facts>,
    radar: Radar,
    notes: mpsc::UnboundedSender<WorktreeNote>,
}

impl WorktreeDesk {
    pub fn new(reports: mpsc::UnboundedSender<RadarReport>, notes: mpsc::UnboundedSender<WorktreeNote>) -> Self {
        WorktreeDesk { facts: HashMap::new(), radar: Radar::start(reports), notes }
    }

    /// Takes up the open worktrees of the last run: the radar reads each.
    pub fn recover(&mut self, cx: &Ctx) {
        match cx.store.list_worktrees() {
            Ok(records) => {
                for record in records.into_iter().filter(|r| r.kept == Kept::Open) {
                    self.track(&record);
                }
            }
            Err(error) => tracing::error!(%error, "the worktrees of the last run could not be read"),
        }
    }

    fn track(&self, record: &WorktreeRecord) {
        self.radar.send(RadarInput::Track { owner: record.owner.clone(), at: Where::of(record) });
    }

    // ---- what other desks tell ----

    /// A task started in the worktree of `owner`.
    pub fn in_use(&mut self, cx: &Ctx, owner: &str) {
        match cx.store.get_worktree(owner) {
            Ok(Some(record)) => {
                if !self.facts.contains_key(owner) {
                    self.track(&record);
                }
                self.report(cx, &record);
            }
            Ok(None) => {}
            Err(error) => tracing::warn!(%error, "a worktree could not be read"),
        }
    }

    /// A task ended that may have run in the worktree of `owner`.
    pub fn task_ended(&mut self, cx: &Ctx, owner: &str) {
        if let Ok(Some(record)) = cx.store.get_worktree(owner) {
            self.radar.send(RadarInput::Read { owner: owner.to_owned() });
            self.report(cx, &record);
        }
    }

    /// The radar read a worktree: keep it, and report each worktree whose
    /// picture changed (its files, or which others meet it).
    pub fn on_radar(&mut self, cx: &Ctx, report: RadarReport) {
        let before = self.pictures(cx);
        self.facts.insert(report.owner.clone(), report.facts);
        let after = self.pictures(cx);
        for (owner, info) in &after {
            if before.get(owner) != Some(info) {
                cx.emit(EngineEvent::WorktreeChanged { worktree: info.clone() });
            }
        }
    }

    // ---- commands ----

    pub fn folder_repository(&self, cx: &Ctx, folder: &str, reply: Responder<FolderRepository>) {
        let found = match worktree::repository_of(Path::new(folder)) {
            Ok(repository) if let Ok(Some(why)) = worktree::refusal_of(&repository.root) => {
                Ok(FolderRepository::NotARepository { why })
            }
            Ok(repository) => {
                let root = repository.root.to_string_lossy().into_owned();
                match cx.store.repository_setup(&root) {
                    Ok(setup_command) => {
                        Ok(FolderRepository::Repository { root, branch: repository.branch, setup_command })
                    }
                    Err(error) => Err(error.into()),
                }
            }
            Err(worktree::GitError::NotRun(_)) => Ok(FolderRepository::NotARepository {
                why: "git is not installed here, and worktrees are made with it".into(),
            }),
            Err(_) if !Path::new(folder).is_dir() => {
                Ok(FolderRepository::NotARepository { why: "the folder does not exist".into() })
            }
            Err(_) => Ok(FolderRepository::NotARepository {
                why: "the folder is not inside a git repository, so its tasks cannot get worktrees of their own".into(),
            }),
        };
        reply.send(found);
    }

    pub fn set_repository_setup(&self, cx: &Ctx, root: &str, command: Option<&str>) -> Result<(), EngineError> {
        let command = command.map(str::trim).filter(|c| !c.is_empty());
        let repository = worktree::repository_of(Path::new(root))?;
        Ok(cx.store.set_repository_setup(&repository.root.to_string_lossy(), command)?)
    }

    pub fn list(&self, cx: &Ctx, reply: Responder<Vec<WorktreeInfo>>) {
        let records = match cx.store.list_worktrees() {
            Ok(records) => records,
            Err(error) => return reply.send(Err(error.into())),
        };
        // Open ones the radar has not read yet are read now, off the engine.
        let unread: Vec<(String, Where)> = records
            .iter()
            .filter(|r| r.kept == Kept::Open && !self.facts.contains_key(&r.owner))
            .map(|r| (r.owner.clone(), Where::of(r)))
            .collect();
        if unread.is_empty() {
            let infos = self.pictures(cx).into_values().collect::<Vec<_>>();
            return reply.send(Ok(ordered(infos, &records)));
        }
        self.off_engine(
            move || unread.into_iter().map(|(owner, at)| (owner, radar::read(&at))).collect(),
            move |desk, cx, read: Vec<(String, Facts)>| {
                for (owner, facts) in read {
                    desk.facts.insert(owner, facts);
                }
                let infos = desk.pictures(cx).into_values().collect::<Vec<_>>();
                reply.send(Ok(ordered(infos, &records)));
            },
        );
    }

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

    // ---- helpers ----

    /// Runs `work` away from the engine's task, then `then` on it with its result.
    fn off_engine<T: Send + 'static>(
        &self,
        work: impl FnOnce() -> T + Send + 'static,
        then: impl FnOnce(&mut WorktreeDesk, &mut Ctx, T) + Send + 'static,
    ) {
        self.off_engine_after(Vec::new(), work, then);
    }

    /// [`Self::off_engine`], once the sessions `ended` waits for have ended.
    fn off_engine_after<T: Send + 'static>(
        &self,
        ended: Vec<oneshot::Receiver<()>>,
        work: impl FnOnce() -> T + Send + 'static,
        then: impl FnOnce(&mut WorktreeDesk, &mut Ctx, T) + Send + 'static,
    ) {
        let notes = self.notes.clone();
        tokio::spawn(async move {
            for end in ended {
                // Dropped unanswered only when the engine stops: nothing waits then.
                end.await.ok();
            }
            match tokio::task::spawn_blocking(work).await {
                Ok(result) => {
                    let note: WorktreeNote = Box::new(move |desk, cx| then(desk, cx, result));
                    notes.send(note).ok();
                }
                Err(error) => tracing::error!(%error, "git work for a worktree failed"),
            }
        });
    }

    /// A merge or rebase of the worktree of `owner` met a conflict with its
    /// base in `files` just now: that is what a merge would meet, until the
    /// radar reads it again.
    fn met_base(&mut self, owner: &str, files: &[String]) {
        if let Some(facts) = self.facts.get_mut(owner) {
            let behind = facts.against_base.as_ref().map_or(1, |a| a.behind.max(1));
            facts.against_base = Some(worktree::AgainstBase { behind, conflicts: files.to_vec() });
        }
    }

    /// Records a worktree merged or discarded; the radar lets it go.
    fn close(&mut self, cx: &Ctx, record: &WorktreeRecord, step: ReviewStep) {
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

    fn save(&self, cx: &Ctx, record: &WorktreeRecord, step: ReviewStep) {
        if let Err(error) = cx.store.update_worktree(record) {
            tracing::error!(%error, "a worktree's review could not be recorded");
        }
        log_review(cx, record, step);
        self.report(cx, record);
    }

    fn report(&self, cx: &Ctx, record: &WorktreeRecord) {
        let infos = self.pictures(cx);
        let info = infos.get(&record.owner).cloned().unwrap_or_else(|| self.picture(cx, record, &[]));
        cx.emit(EngineEvent::WorktreeChanged { worktree: info });
    }

    /// The worktree named by `key`: its task or loop, or a task that ran in it.
    fn find(&self, cx: &Ctx, key: &str) -> Result<(WorktreeRecord, WorktreeInfo), EngineError> {
        let record = match cx.store.get_worktree(key)? {
            Some(record) => record,
            None => {
                let task = key.parse::<TaskId>().ok().and_then(|id| cx.store.get_task(&id).ok().flatten());
                let owner = task.map(|task| super::isolation::worktree_key(&task));
                owner
                    .and_then(|owner| cx.store.get_worktree(&owner).ok().flatten())
                    .ok_or_else(|| EngineError::WorktreeNotFound(key.to_owned()))?
            }
        };
        let infos = self.pictures(cx);
        let info = infos.get(&record.owner).cloned().unwrap_or_else(|| self.picture(cx, &record, &[]));
        Ok((record, info))
    }

    fn find_open(&self, cx: &Ctx, key: &str) -> Result<(WorktreeRecord, WorktreeInfo), EngineError> {
        let (record, info) = self.find(cx, key)?;
        match record.kept {
            Kept::Open => Ok((record, info)),
            Kept::Merged { .. } => Err(EngineError::InvalidInput {
                field: "worktree",
                reason: "it was merged already; its folder and branch are gone".into(),
            }),
            Kept::Discarded { .. } => {
                Err(EngineError::InvalidInput { field: "worktree", reason: "it was discarded already".into() })
            }
        }
    }

    /// An open worktree no task is at work in (merge, rebase and discard
    /// would pull its folder from under its agent).
    fn find_idle(&self, cx: &Ctx, key: &str) -> Result<WorktreeRecord, EngineError> {
        let (record, info) = self.find_open(cx, key)?;
        match &info.task_at_work {
            Some(task) => Err(at_work(task)),
            None => Ok(record),
        }
    }

    /// Every listed worktree as the user reads it, the radar's overlaps in.
    fn pictures(&self, cx: &Ctx) -> BTreeMap<String, WorktreeInfo> {
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
    fn picture(
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
}

/// Ends whatever still runs in the worktree of `record` (its agent's
/// session kept for its grace, a session started there by hand), so no
/// process is left in a folder a merge or discard removes: what to wait on.
fn end_sessions_in(cx: &mut Ctx, record: &WorktreeRecord) -> Vec<oneshot::Receiver<()>> {
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

/// The state as the window and `--json` see it: flat, its data in the info's fields.
fn flat(state: &worktree::WorktreeState) -> WorktreeState {
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
fn last_task(cx: &Ctx, record: &WorktreeRecord) -> worktree::LastTask {
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

/// The worktree of `record` as git is run in it: refused when its `.git`
/// file was tampered with, its branch is gone, or its repository's
/// configuration would run a program on the agent's files.
fn open(record: &WorktreeRecord) -> Result<worktree::Checkout, worktree::GitError> {
    worktree::Checkout::open_on(Path::new(&record.repository), Path::new(&record.path), &record.branch)
}

/// The records' order: open ones oldest first, then the closed ones.
fn ordered(mut infos: Vec<WorktreeInfo>, records: &[WorktreeRecord]) -> Vec<WorktreeInfo> {
    let place: HashMap<&str, usize> = records.iter().enumerate().map(|(i, r)| (r.owner.as_str(), i)).collect();
    infos.sort_by_key(|info| place.get(info.task.as_str()).copied().unwrap_or(usize::MAX));
    infos
}

fn at_work(task: &TaskId) -> EngineError {
    EngineError::InvalidInput {
        field: "worktree",
        reason: format!("its agent is still at work in it (task {task}): wait for the task to end, or cancel it"),
    }
}

/// The task queued or running in the worktree, if any.
fn task_at_work(cx: &Ctx, record: &WorktreeRecord) -> Option<TaskId> {
    let tasks = cx.store.active_tasks(Some(&record.profile_id)).ok()?;
    tasks
        .into_iter()
        .filter(|t| matches!(t.state(), TaskState::Running | TaskState::Queued))
        .find(|t| super::isolation::worktree_key(t) == record.owner)
        .map(|t| t.id)
}

/// The latest task that ran in the worktree (its summary is shown).
fn latest_task(cx: &Ctx, owner: &str) -> Option<TaskId> {
    match owner.parse::<TaskId>() {
        Ok(id) => {
            let tasks = cx.store.tasks_in_worktree(owner).unwrap_or_default();
            tasks.into_iter().last().map(|t: TaskInfo| t.id).or(Some(id))
        }
        Err(_) => cx.store.tasks_in_worktree(owner).ok()?.into_iter().last().map(|t| t.id),
    }
}

/// The name a worktree goes by: its task's, or its loop's goal.
fn title_of(cx: &Ctx, record: &WorktreeRecord) -> String {
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

fn log_review(cx: &Ctx, record: &WorktreeRecord, step: ReviewStep) {
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
fn discard_files(record: &WorktreeRecord, patches: &Path, force: bool) -> Result<DiscardOutcome, EngineError> {
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
fn forget(repository: &Path, record: &WorktreeRecord) -> Result<(), EngineError> {
    worktree::prune(repository)?;
    if worktree::is_merged(repository, &record.branch, &record.base).unwrap_or(false) {
        worktree::delete_branch(repository, &record.branch)?;
    }
    Ok(())
}
