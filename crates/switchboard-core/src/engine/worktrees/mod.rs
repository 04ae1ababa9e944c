//! The worktree desk: the worktrees the app made for agents that work
//! apart, what each changed (the radar keeps it current), and the user's
//! review: diff, commit, merge, rebase, discard. git runs away from the
//! engine's task; what it did comes back as a [`WorktreeNote`] and is
//! recorded here, then reported (`worktree_changed`).

mod picture;
pub(crate) mod radar;
mod review;

use picture::ordered;
use review::at_work;

use std::collections::HashMap;
use std::path::Path;

use switchboard_protocol::TaskId;
use tokio::sync::{mpsc, oneshot};

use super::context::Ctx;
use crate::error::{EngineError, Responder};
use crate::worktree::{self, Kept, WorktreeRecord};
use radar::{Facts, Radar, RadarInput, RadarReport, Where};
use switchboard_api::{EngineEvent, FolderRepository, WorktreeInfo};

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
}

/// The worktree of `record` as git is run in it: refused when its `.git`
/// file was tampered with, its branch is gone, or its repository's
/// configuration would run a program on the agent's files.
fn open(record: &WorktreeRecord) -> Result<worktree::Checkout, worktree::GitError> {
    worktree::Checkout::open_on(Path::new(&record.repository), Path::new(&record.path), &record.branch)
}
