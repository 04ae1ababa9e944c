//! Where a task works: its agent's folder, or, for an agent that works apart
//! (`Isolation::Worktree`), a git worktree of its own, made the first time
//! the task (or its loop) needs it. Shared by the desks that resolve a
//! task's files (tasks, loops, signals); not a desk itself.

use std::path::{Path, PathBuf};

use switchboard_protocol::{LoopId, SessionId};

use super::context::Ctx;
use crate::error::EngineError;
use crate::sink::LogAbout;
use crate::worktree::{self, Kept, Setup, WorktreeRecord};
use switchboard_api::{Isolation, LogKind, Profile, TaskInfo, now};

/// Where worktrees are made, under the app's data folder.
pub(crate) const WORKTREES_DIR: &str = "worktrees";

/// Where a task works.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Place {
    /// Its agent's folder (canonical).
    Folder(PathBuf),
    /// A worktree the app made (its folder canonical).
    Worktree { path: PathBuf, record: Box<WorktreeRecord> },
    /// A worktree to make first (git checks the files out: away from the
    /// engine's task, see [`make`]).
    ToMake(Box<Plan>),
}

/// A worktree to make: its record as it will be kept, and the repository's
/// setup command to run in it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Plan {
    pub record: WorktreeRecord,
    pub setup_command: Option<String>,
}

impl Place {
    /// The folder it is (a worktree still to make: where it will be).
    pub fn path(&self) -> &Path {
        match self {
            Place::Folder(path) | Place::Worktree { path, .. } => path,
            Place::ToMake(plan) => Path::new(&plan.record.path),
        }
    }

    /// The folder a session for it starts in, when not its agent's.
    pub fn session_workspace(&self) -> Option<&Path> {
        match self {
            Place::Folder(_) => None,
            Place::Worktree { path, .. } => Some(path),
            Place::ToMake(plan) => Some(Path::new(&plan.record.path)),
        }
    }
}

/// The worktree a task runs in, by its owner's id: the one it names (a
/// review's follow-up, a loop's iteration), else its own.
pub(crate) fn worktree_key(task: &TaskInfo) -> String {
    match (&task.spec.worktree, &task.spec.loop_iteration) {
        (Some(key), _) => key.clone(),
        (None, Some(iteration)) => iteration.loop_id.to_string(),
        (None, None) => task.id.to_string(),
    }
}

/// Where `task` works, making its worktree now when its agent works apart
/// and it has none yet (`title`: what its branch is named after).
pub(crate) fn place_of_task(cx: &Ctx, profile: &Profile, task: &TaskInfo) -> Result<Place, EngineError> {
    let named = task.spec.worktree.is_some();
    if !named && profile.spec.isolation == Isolation::None {
        return folder_of(profile).map(Place::Folder);
    }
    let key = worktree_key(task);
    let loop_id = task.spec.loop_iteration.as_ref().map(|i| i.loop_id.clone());
    place_of(cx, profile, &key, loop_id, &task.spec.title(), named, Some(task))
}

/// Whether a task may name the base its worktree is made from: only for an
/// agent that works apart, and only a branch name git takes.
pub(crate) fn check_base(profile: &Profile, base: Option<&str>) -> Result<(), EngineError> {
    let Some(base) = base else { return Ok(()) };
    let refused = |reason: String| EngineError::InvalidInput { field: "base", reason };
    if profile.spec.isolation == Isolation::None {
        return Err(refused(format!(
            "{} works in its own folder; only an agent that works in worktrees branches from a base",
            profile.spec.name
        )));
    }
    let taken = !base.is_empty()
        && !base.starts_with('-')
        && !base.contains(|c: char| c.is_whitespace() || c.is_control() || "~^:?*[\\".contains(c))
        && !base.contains("..");
    if taken { Ok(()) } else { Err(refused(format!("“{base}” is not a branch name"))) }
}

/// Where a loop works: its worktree when its agent works apart (made now,
/// once, when it has none), else its agent's folder.
pub(crate) fn place_of_loop(cx: &Ctx, profile: &Profile, loop_id: &LoopId, goal: &str) -> Result<Place, EngineError> {
    if profile.spec.isolation == Isolation::None {
        return folder_of(profile).map(Place::Folder);
    }
    match place_of(cx, profile, &loop_id.to_string(), Some(loop_id.clone()), goal, false, None)? {
        Place::ToMake(plan) => {
            let made = make(&plan)?;
            recorded(cx, made, None)
        }
        place => Ok(place),
    }
}

/// The folder a session's agent works in: its worktree, or its agent's
/// folder (canonical); none when it is gone.
pub(crate) fn workspace_of_session(cx: &Ctx, profile: &Profile, session: &SessionId) -> Option<PathBuf> {
    match cx.workspace_of_session(session) {
        Some(path) => path.canonicalize().ok(),
        None => folder_of(profile).ok(),
    }
}

/// Where a task worked or works, as far as it is still there: the session
/// it ran in decides, else its worktree's record, else its agent's folder.
pub(crate) fn workspace_of_task(cx: &Ctx, profile: &Profile, task: &TaskInfo) -> Option<PathBuf> {
    if let Some(session) = task.session_id() {
        return workspace_of_session(cx, profile, session);
    }
    match cx.store.get_worktree(&worktree_key(task)).ok().flatten() {
        Some(record) => Path::new(&record.path).canonicalize().ok(),
        None => folder_of(profile).ok(),
    }
}

fn folder_of(profile: &Profile) -> Result<PathBuf, EngineError> {
    Path::new(&profile.spec.cwd)
        .canonicalize()
        .map_err(|_| EngineError::DirectoryMissing { path: profile.spec.cwd.clone().into() })
}

fn place_of(
    cx: &Ctx,
    profile: &Profile,
    key: &str,
    loop_id: Option<LoopId>,
    title: &str,
    named: bool,
    task: Option<&TaskInfo>,
) -> Result<Place, EngineError> {
    match cx.store.get_worktree(key)? {
        Some(record) if record.kept == Kept::Open => {
            let path = Path::new(&record.path)
                .canonicalize()
                .map_err(|_| EngineError::DirectoryMissing { path: record.path.clone().into() })?;
            Ok(Place::Worktree { path, record: Box::new(record) })
        }
        Some(record) => Err(EngineError::InvalidInput {
            field: "worktree",
            reason: format!(
                "its worktree was {} already",
                if matches!(record.kept, Kept::Merged { .. }) { "merged" } else { "discarded" }
            ),
        }),
        None if named => Err(EngineError::WorktreeNotFound(key.to_owned())),
        None => plan(cx, profile, key, loop_id, title, task).map(|plan| Place::ToMake(Box::new(plan))),
    }
}

/// Plans the worktree for `key`: a new branch from the agent's folder's
/// current branch (or the one the task names), a folder under the data
/// directory. Quick git questions only; the checkout is [`make`]'s.
fn plan(
    cx: &Ctx,
    profile: &Profile,
    key: &str,
    loop_id: Option<LoopId>,
    title: &str,
    task: Option<&TaskInfo>,
) -> Result<Plan, EngineError> {
    let folder = folder_of(profile)?;
    let repository = worktree::repository_of(&folder)?;
    // A filter or merge driver would run on files the agent names: no worktree.
    if let Some(reason) = worktree::refusal_of(&repository.root)? {
        return Err(EngineError::InvalidInput { field: "isolation", reason });
    }
    let named_base = task.and_then(|t| t.spec.base.clone());
    if let Some(base) = &named_base
        && !worktree::branch_exists(&repository.root, base)
    {
        return Err(EngineError::InvalidInput {
            field: "base",
            reason: format!("{} has no branch “{base}” to make the task's worktree from", repository.root.display()),
        });
    }
    let Some(base) = named_base.or_else(|| repository.branch.clone()) else {
        return Err(EngineError::InvalidInput {
            field: "isolation",
            reason: format!(
                "{} has no branch checked out (a detached HEAD), so a task's worktree has nothing to branch from; \
                 check out a branch there",
                repository.root.display()
            ),
        });
    };
    let known = cx.store.worktree_branches()?;
    let branch = worktree::branch_name(&profile.spec.name, title, |name| {
        known.iter().any(|b| b == name) || worktree::branch_exists(&repository.root, name)
    });
    let repo_name = repository.root.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let leaf = branch.rsplit('/').next().unwrap_or("task");
    let short: String = key.chars().take(8).collect();
    let dir = cx.sessions.data_dir().join(WORKTREES_DIR).join(safe_name(&repo_name));
    std::fs::create_dir_all(&dir).map_err(|e| EngineError::io(format!("making {}", dir.display()), e))?;
    let path = dir.join(format!("{leaf}-{short}"));
    let root = repository.root.to_string_lossy().into_owned();
    let setup_command = cx.store.repository_setup(&root)?.filter(|command| !command.trim().is_empty());
    let record = WorktreeRecord {
        owner: key.to_owned(),
        loop_id,
        profile_id: profile.id.clone(),
        repository: root,
        branch,
        base,
        path: path.to_string_lossy().into_owned(),
        created_at: now(),
        setup: if setup_command.is_some() { Setup::Pending } else { Setup::Done },
        kept: Kept::Open,
        conflict: Vec::new(),
    };
    Ok(Plan { record, setup_command })
}

/// Makes the planned worktree (git checks out its files: blocking, run
/// away from the engine's task); the record as made, its folder canonical.
pub(crate) fn make(plan: &Plan) -> Result<WorktreeRecord, EngineError> {
    let record = &plan.record;
    let path = PathBuf::from(&record.path);
    worktree::create(Path::new(&record.repository), &record.base, &record.branch, &path)?;
    let path = path.canonicalize().map_err(|e| EngineError::io(format!("reading {}", path.display()), e))?;
    Ok(WorktreeRecord { path: path.to_string_lossy().into_owned(), ..record.clone() })
}

/// Keeps a worktree just made, and notes it on the timeline of the task it
/// was made for; one that cannot be kept is taken away again (unrecorded,
/// it would be lost track of).
pub(crate) fn recorded(cx: &Ctx, record: WorktreeRecord, task: Option<&TaskInfo>) -> Result<Place, EngineError> {
    if let Err(error) = cx.store.insert_worktree(&record) {
        if let Err(undo) = worktree::remove(Path::new(&record.repository), Path::new(&record.path), &record.branch) {
            tracing::warn!(%undo, "a worktree that could not be recorded could not be removed");
        }
        return Err(error.into());
    }
    if let Some(task) = task {
        let about = LogAbout {
            session: None,
            task: Some(&task.id),
            loop_id: task.spec.loop_iteration.as_ref().map(|i| &i.loop_id),
            profile: Some(&record.profile_id),
        };
        let made = LogKind::WorktreeMade {
            branch: record.branch.clone(),
            base: record.base.clone(),
            path: record.path.clone(),
        };
        if let Err(error) = cx.log(now(), about, &made) {
            tracing::warn!(%error, "a worktree's making could not be logged");
        }
    }
    Ok(Place::Worktree { path: PathBuf::from(&record.path), record: Box::new(record) })
}

/// A folder name from a repository's: letters, digits, `-`, `_` and `.`.
fn safe_name(name: &str) -> String {
    let safe: String =
        name.chars().map(|c| if c.is_ascii_alphanumeric() || "-_.".contains(c) { c } else { '-' }).collect();
    match safe.trim_matches('.') {
        "" => "repository".to_owned(),
        trimmed => trimmed.to_owned(),
    }
}
