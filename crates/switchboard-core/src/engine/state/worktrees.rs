//! Folders and worktrees as the window asks about them: handed to the worktree desk.

use super::EngineState;
use crate::error::{EngineError, Responder};
use switchboard_api::{Submitted, TaskSpec};

impl EngineState {
    /// Read away from the engine's task: a folder on a slow or hung disk
    /// holds nothing else up.
    pub(in crate::engine) fn list_folder(&mut self, path: String, reply: Responder<switchboard_api::FolderListing>) {
        let home = std::env::var_os("HOME").map(std::path::PathBuf::from);
        tokio::task::spawn_blocking(move || {
            reply.send(
                crate::folders::list(&path, home.as_deref())
                    .map_err(|error| EngineError::InvalidInput { field: "path", reason: error.to_string() }),
            );
        });
    }

    pub(in crate::engine) fn folder_repository(
        &mut self,
        folder: String,
        reply: Responder<switchboard_api::FolderRepository>,
    ) {
        self.worktrees.folder_repository(&self.cx, &folder, reply)
    }

    pub(in crate::engine) fn set_repository_setup(
        &mut self,
        repository: String,
        setup_command: Option<String>,
    ) -> Result<(), EngineError> {
        self.worktrees.set_repository_setup(&self.cx, &repository, setup_command.as_deref())
    }

    pub(in crate::engine) fn list_worktrees(&mut self, reply: Responder<Vec<switchboard_api::WorktreeInfo>>) {
        self.worktrees.list(&self.cx, reply)
    }

    pub(in crate::engine) fn worktree_diff(
        &mut self,
        worktree: String,
        reply: Responder<switchboard_api::WorktreeDiff>,
    ) {
        self.worktrees.diff(&self.cx, &worktree, reply)
    }

    pub(in crate::engine) fn commit_worktree(
        &mut self,
        worktree: String,
        reply: Responder<switchboard_api::CommitOutcome>,
    ) {
        self.worktrees.commit(&self.cx, &worktree, reply)
    }

    pub(in crate::engine) fn merge_worktree(
        &mut self,
        worktree: String,
        reply: Responder<switchboard_api::MergeOutcome>,
    ) {
        self.worktrees.merge(&mut self.cx, &worktree, reply)
    }

    pub(in crate::engine) fn discard_worktree(
        &mut self,
        worktree: String,
        force: bool,
        reply: Responder<switchboard_api::DiscardOutcome>,
    ) {
        self.worktrees.discard(&mut self.cx, &worktree, force, reply)
    }

    pub(in crate::engine) fn rebase_worktree(
        &mut self,
        worktree: String,
        reply: Responder<switchboard_api::RebaseOutcome>,
    ) {
        self.worktrees.rebase(&self.cx, &worktree, reply)
    }

    /// The user's line comments, typed into the worktree's agent as a new
    /// task in the same worktree.
    pub(in crate::engine) fn review_worktree(
        &mut self,
        worktree: String,
        comments: Vec<switchboard_api::ReviewComment>,
    ) -> Result<Submitted, EngineError> {
        let (record, title, prompt) = self.worktrees.review(&self.cx, &worktree, &comments)?;
        let spec =
            TaskSpec { title: Some(title), worktree: Some(record.owner), ..TaskSpec::new(record.profile_id, prompt) };
        self.tasks.submit(&mut self.cx, spec)
    }

    /// The worktree's agent asked to resolve its conflicts with its base, as
    /// a new task in the same worktree (its conversation carried on).
    pub(in crate::engine) fn resolve_worktree(&mut self, worktree: String) -> Result<Submitted, EngineError> {
        let (record, title, prompt) = self.worktrees.resolve(&self.cx, &worktree)?;
        let spec =
            TaskSpec { title: Some(title), worktree: Some(record.owner), ..TaskSpec::new(record.profile_id, prompt) };
        self.tasks.submit(&mut self.cx, spec)
    }
}
