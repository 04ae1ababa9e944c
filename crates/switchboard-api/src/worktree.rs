//! Agents that work apart: a task's git worktree, what it changed, and the
//! user's review of it (merge, discard, rebase, comments sent back).

use serde::{Deserialize, Serialize};
use switchboard_protocol::{LoopId, ProfileId, TaskId};
#[cfg(feature = "ts")]
use ts_rs::TS;

use super::Millis;

/// Where an agent's tasks work: in its folder (every task in the same
/// checkout), or each task (and each loop, for all its iterations) in a git
/// worktree of its own on a new branch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(rename_all = "snake_case")]
pub enum Isolation {
    #[default]
    None,
    Worktree,
}

impl Isolation {
    pub fn as_str(self) -> &'static str {
        match self {
            Isolation::None => "none",
            Isolation::Worktree => "worktree",
        }
    }

    pub fn parse(text: &str) -> Option<Isolation> {
        match text {
            "none" => Some(Isolation::None),
            "worktree" => Some(Isolation::Worktree),
            _ => None,
        }
    }
}

/// The git repository a folder is in, as the agent form shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum FolderRepository {
    Repository {
        /// The repository's top folder.
        root: String,
        /// The branch checked out there; none when detached.
        branch: Option<String>,
        /// The command run in each new worktree of this repository (say,
        /// installing dependencies), in the repository's settings.
        setup_command: Option<String>,
    },
    /// Not inside a git repository (or git is missing): why, in words.
    NotARepository { why: String },
}

/// Where a worktree is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(rename_all = "snake_case")]
pub enum WorktreeState {
    /// Its agent is at work in it (a task queued or running there).
    Working,
    /// Work is done, not merged yet, and merges cleanly into its base.
    ReadyToMerge,
    /// Another open worktree changes the same lines (the radar).
    Conflicting,
    /// Its last task failed or ran out of time: what it holds may be half done.
    TaskFailed,
    /// Its last task was cancelled, or cut short when the app stopped.
    TaskStopped,
    /// Merging it into its base now would meet a conflict
    /// (`WorktreeInfo::base_conflict`): its agent can resolve it.
    ConflictsWithBase,
    /// Its base moved on since it was made (`WorktreeInfo::behind`); it
    /// merges cleanly, and can be rebased first.
    Behind,
    /// Landed on its base branch; its folder and branch were removed.
    Merged,
    /// Its folder is gone: it can be pruned.
    FolderMissing,
    /// Its `.git` file no longer names the git directory made for it (an
    /// agent rewrote, deleted or redirected it): git is not run there; a
    /// discard keeps a copy of its files.
    Tampered,
    /// Its branch was deleted: what it changed cannot be told; a discard
    /// keeps a copy of its files.
    BranchGone,
    /// Its repository's configuration now defines a filter or merge driver
    /// git would run on the agent's files: git is not run there.
    Refused,
    /// The user discarded it (its patch kept when it held work).
    Discarded,
}

impl WorktreeState {
    /// Still there to review, merge or discard.
    pub fn is_open(self) -> bool {
        !matches!(self, WorktreeState::Merged | WorktreeState::Discarded)
    }
}

/// Two worktrees that change the same file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct WorktreeOverlap {
    /// The other worktree (its task or loop).
    pub with: String,
    /// Its task's name.
    pub with_title: String,
    pub files: Vec<String>,
    /// Regions of the shared files this one changes that meet the other's.
    pub meeting_hunks: u32,
    /// Merge this one first (it has fewer overlapping changes).
    pub merge_first: bool,
}

/// A task's (or a loop's) worktree.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct WorktreeInfo {
    /// The task it was made for, or the loop (for all its iterations).
    pub task: String,
    /// The task's name, or the loop's goal.
    pub title: String,
    pub loop_id: Option<LoopId>,
    pub profile_id: ProfileId,
    /// The agent's name.
    pub agent: String,
    pub repository: String,
    pub branch: String,
    /// The branch it was made from, which a merge lands on.
    pub base: String,
    pub path: String,
    pub created_at: Millis,
    pub state: WorktreeState,
    /// The state in words, the same in every client (the engine's).
    pub state_text: String,
    /// The files a merge into its base would conflict in now.
    pub base_conflict: Vec<String>,
    /// Commits on its base since its branch left it.
    pub behind: u32,
    /// Files changed against the base (none known for a merged, discarded
    /// or missing one).
    pub files_changed: u32,
    /// The worktrees that change a file this one changes.
    pub conflicts_with: Vec<String>,
    pub overlaps: Vec<WorktreeOverlap>,
    /// The files a merge met a conflict in (until the next merge or rebase).
    pub merge_conflict: Vec<String>,
    /// Where its work was kept as a patch when it was discarded.
    pub patch: Option<String>,
    /// The task at work in it now, if any.
    pub task_at_work: Option<TaskId>,
}

/// How a file differs from the base.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(rename_all = "snake_case")]
pub enum FileStatus {
    Added,
    Modified,
    Deleted,
    Renamed,
}

/// What of a changed file can be shown.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum DiffContent {
    /// The file before (at the base) and now, and the unified diff.
    Text { before: String, after: String, unified: String },
    /// Not text.
    Binary,
    /// Too large to show (its larger side, in bytes).
    TooLarge { bytes: u64 },
}

/// One changed file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct FileDiff {
    pub path: String,
    /// Where a renamed file was.
    pub from: Option<String>,
    pub status: FileStatus,
    pub content: DiffContent,
}

/// What a worktree changed against its base, and its task's summary.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct WorktreeDiff {
    pub worktree: WorktreeInfo,
    pub files: Vec<FileDiff>,
    /// Files left out past the most a diff shows.
    pub files_left_out: u32,
    /// The latest summary of a task in it.
    pub summary: Option<String>,
}

/// How a commit went: anything committed, and the worktree as it is now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct CommitOutcome {
    /// False: everything in it was committed already.
    pub committed: bool,
    pub worktree: WorktreeInfo,
}

/// How a merge went.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum MergeOutcome {
    /// The base branch has the work (moved forward, or a merge commit).
    Merged { base: String, commit: String, fast_forward: bool },
    /// Both changed the same lines: nothing was changed anywhere.
    Conflict { files: Vec<String> },
    /// The user's own uncommitted changes in their checkout are in the way:
    /// nothing was changed.
    InTheWay { why: String },
}

/// How a discard went.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum DiscardOutcome {
    /// Removed; its work, if it held any, kept as this patch file.
    Discarded { patch: Option<String> },
    /// Not removed: it holds work not merged (asked again with `force`).
    WouldLoseWork { files_changed: u32 },
}

/// How a rebase onto the base went.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum RebaseOutcome {
    Rebased,
    /// Undone: these files conflict; the work is as it was.
    Conflict {
        files: Vec<String>,
    },
}

/// A comment the user left on a line of a changed file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct ReviewComment {
    pub path: String,
    /// 1-based, in the file as it is now (or as it was, for a deleted line).
    pub line: u32,
    pub text: String,
}

/// What the user did with a worktree, as its task's timeline records it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(tag = "review", rename_all = "snake_case")]
pub enum ReviewStep {
    Committed,
    Merged { base: String, fast_forward: bool },
    MergeConflict { files: Vec<String> },
    Rebased,
    RebaseConflict { files: Vec<String> },
    Discarded { patch: Option<String> },
    CommentsSent { comments: u32 },
}

/// The largest file a diff shows as text, either side.
pub const MAX_SHOWN_FILE: u64 = 512 * 1024;

/// The most subfolders a folder listing holds: past this it says it was cut.
pub const MAX_FOLDERS: usize = 1000;
