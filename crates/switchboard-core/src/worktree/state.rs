//! A worktree's state as the window shows it: a pure decision from what git and the engine know.

use super::checkout::Broken;

/// How the last task in a worktree ended, as its state tells it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum LastTask {
    /// It completed, or none ended yet.
    #[default]
    Done,
    /// It failed or ran out of time (why, in words, when known).
    Failed(Option<String>),
    /// It was cancelled, or cut short when the app stopped.
    Stopped(Option<String>),
}

/// A worktree's state, as the user reads it: one model for every way a
/// worktree can be, each with what it knows ([`WorktreeState::words`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WorktreeState {
    /// Its folder is gone.
    FolderMissing,
    /// git can no longer be run there or asked what it changed.
    Broken(Broken),
    /// Its agent is at work in it.
    Working,
    Merged,
    /// Its last task failed: what it holds may be half done.
    TaskFailed {
        why: Option<String>,
    },
    /// Its last task was stopped before it finished.
    TaskStopped {
        why: Option<String>,
    },
    /// Merging it into its base now would meet a conflict in these files
    /// (its agent can resolve them: "Resolve with the agent").
    ConflictsWithBase {
        files: Vec<String>,
    },
    /// Another open worktree changes the same lines (the radar).
    Overlapping,
    /// Its base moved on by these many commits since it was made: it merges
    /// cleanly, and can be rebased first.
    Behind {
        commits: u32,
    },
    /// Work is done and merges cleanly into its base as it is.
    ReadyToMerge,
}

/// The longest reason a state quotes (a task's failure), in characters.
pub(super) const MAX_STATE_WHY_CHARS: usize = 160;

impl WorktreeState {
    /// The state in words, the same in the window, the command line and
    /// notifications (`base`: the branch it merges into).
    pub fn words(&self, base: &str) -> String {
        let why = |why: &Option<String>| match why.as_deref().map(str::trim).filter(|w| !w.is_empty()) {
            Some(why) if why.chars().count() > MAX_STATE_WHY_CHARS => {
                format!(": {}…", why.chars().take(MAX_STATE_WHY_CHARS).collect::<String>())
            }
            Some(why) => format!(": {why}"),
            None => String::new(),
        };
        match self {
            WorktreeState::FolderMissing => "its folder is gone".into(),
            WorktreeState::Broken(Broken::Tampered(_)) => {
                "tampered with: its .git file was changed, so git is not run there".into()
            }
            WorktreeState::Broken(Broken::BranchGone) => "its branch was deleted".into(),
            WorktreeState::Broken(Broken::Unsafe(_)) => {
                "git is not run there: its repository defines a filter or merge driver".into()
            }
            WorktreeState::Working => "its agent is at work".into(),
            WorktreeState::Merged => "merged".into(),
            WorktreeState::TaskFailed { why: reason } => format!("its task failed{}", why(reason)),
            WorktreeState::TaskStopped { why: reason } => {
                format!("its task was stopped before it finished{}", why(reason))
            }
            WorktreeState::ConflictsWithBase { files } => match files.as_slice() {
                [one] => format!("conflicts with {base} now in {one}"),
                files => format!("conflicts with {base} now in {} files", files.len()),
            },
            WorktreeState::Overlapping => "changes files other work changes".into(),
            WorktreeState::Behind { commits: 1 } => format!("{base} moved on by 1 commit; it merges cleanly"),
            WorktreeState::Behind { commits } => format!("{base} moved on by {commits} commits; it merges cleanly"),
            WorktreeState::ReadyToMerge => "ready to merge".into(),
        }
    }
}

/// What is known of a worktree, for [`state_of`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StateFacts {
    pub folder_missing: bool,
    pub broken: Option<Broken>,
    pub agent_at_work: bool,
    pub merged: bool,
    pub last_task: LastTask,
    /// The files a merge into the base would conflict in now.
    pub base_conflict: Vec<String>,
    /// Another open worktree changes the same lines.
    pub overlapping: bool,
    /// Commits on the base since the worktree's branch left it.
    pub behind: u32,
}

/// What the facts about a worktree make its state (pure): a missing folder
/// first, then a broken worktree (whatever its agent does), then work under
/// way, merged, its task's failure or stop (what it holds may be half done),
/// a conflict with the base, other work on the same lines, a base that
/// moved on, ready.
pub fn state_of(facts: StateFacts) -> WorktreeState {
    match facts {
        StateFacts { folder_missing: true, .. } => WorktreeState::FolderMissing,
        StateFacts { broken: Some(broken), .. } => WorktreeState::Broken(broken),
        StateFacts { agent_at_work: true, .. } => WorktreeState::Working,
        StateFacts { merged: true, .. } => WorktreeState::Merged,
        StateFacts { last_task: LastTask::Failed(why), .. } => WorktreeState::TaskFailed { why },
        StateFacts { last_task: LastTask::Stopped(why), .. } => WorktreeState::TaskStopped { why },
        StateFacts { base_conflict, .. } if !base_conflict.is_empty() => {
            WorktreeState::ConflictsWithBase { files: base_conflict }
        }
        StateFacts { overlapping: true, .. } => WorktreeState::Overlapping,
        StateFacts { behind, .. } if behind > 0 => WorktreeState::Behind { commits: behind },
        _ => WorktreeState::ReadyToMerge,
    }
}
