//! The radar's worker: it watches each open worktree's files (recursively,
//! `.git` and the app's own files aside) and, when they change, reads what
//! the worktree changed against its base (files, and the base's lines each
//! change touches) with git, away from the engine's task. A worktree it
//! cannot watch is read again every [`POLL_INTERVAL`], and a watched one is
//! checked as often for what no file of its folder tells: its branch, or
//! git's directory for it, gone from the repository. git is run there
//! only through the engine's record of the worktree ([`worktree::Checkout`]):
//! a worktree whose `.git` file an agent changed is reported broken, never
//! read.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::Duration;

use notify::{RecursiveMode, Watcher};
use tokio::sync::mpsc;

use crate::worktree::{self, radar::FileHunks};

/// Changes within this long of each other are read once.
const SETTLE: Duration = Duration::from_millis(250);

/// How often a worktree that cannot be watched is read again.
const POLL_INTERVAL: Duration = Duration::from_secs(10);

/// What the radar read of one worktree.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Facts {
    /// Its folder is gone.
    pub missing: bool,
    /// git can no longer be run there (nothing else is known then).
    pub broken: Option<worktree::Broken>,
    pub files_changed: u32,
    pub hunks: Vec<FileHunks>,
    /// What a merge into its base would meet now; none when it could not be told.
    pub against_base: Option<worktree::AgainstBase>,
}

/// What the worker is told.
pub(crate) enum RadarInput {
    /// Watch (again) the worktree of `owner` at `path`, made from `base`.
    Track {
        owner: String,
        at: Where,
    },
    Untrack {
        owner: String,
    },
    /// Read it again now (a merge, a rebase, a commit).
    Read {
        owner: String,
    },
}

/// What the worker found: for the engine task.
pub(crate) struct RadarReport {
    pub owner: String,
    pub facts: Facts,
}

/// The radar worker's handle: owned by the worktree desk, ended with it.
pub(crate) struct Radar {
    input: mpsc::UnboundedSender<RadarInput>,
    task: tokio::task::AbortHandle,
}

impl Drop for Radar {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl Radar {
    pub fn start(reports: mpsc::UnboundedSender<RadarReport>) -> Radar {
        let (input, inputs) = mpsc::unbounded_channel();
        let changed = input.clone();
        let task = tokio::spawn(run(inputs, changed, reports)).abort_handle();
        Radar { input, task }
    }

    pub fn send(&self, input: RadarInput) {
        self.input.send(input).ok();
    }
}

/// Where a worktree is, as the engine recorded it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Where {
    pub repository: PathBuf,
    pub path: PathBuf,
    pub branch: String,
    pub base: String,
}

impl Where {
    pub fn of(record: &worktree::WorktreeRecord) -> Where {
        Where {
            repository: PathBuf::from(&record.repository),
            path: PathBuf::from(&record.path),
            branch: record.branch.clone(),
            base: record.base.clone(),
        }
    }
}

struct Tracked {
    at: Where,
    /// None where the folder could not be watched (it is polled).
    _watch: Option<notify::RecommendedWatcher>,
    /// Whether its last read found it broken: a check that finds it
    /// otherwise has it read again.
    broken: bool,
}

async fn run(
    mut inputs: mpsc::UnboundedReceiver<RadarInput>,
    changed: mpsc::UnboundedSender<RadarInput>,
    reports: mpsc::UnboundedSender<RadarReport>,
) {
    let mut tracked: HashMap<String, Tracked> = HashMap::new();
    let mut dirty: HashSet<String> = HashSet::new();
    let mut poll = tokio::time::interval(POLL_INTERVAL);
    poll.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            input = inputs.recv() => match input {
                None => return,
                Some(input) => take(input, &mut tracked, &mut dirty, &changed),
            },
            _ = poll.tick() => {
                dirty.extend(tracked.iter().filter(|(_, t)| t._watch.is_none()).map(|(owner, _)| owner.clone()));
                // A branch deleted, or git's directory for it pruned, in the
                // repository changes no file the watch sees.
                let watched: Vec<(String, Where, bool)> = tracked
                    .iter()
                    .filter(|(owner, t)| t._watch.is_some() && !dirty.contains(*owner))
                    .map(|(owner, t)| (owner.clone(), t.at.clone(), t.broken))
                    .collect();
                if !watched.is_empty() {
                    let moved = tokio::task::spawn_blocking(move || {
                        watched.into_iter().filter(|(_, at, broken)| is_broken(at) != *broken).map(|(owner, ..)| owner).collect::<Vec<_>>()
                    })
                    .await;
                    dirty.extend(moved.unwrap_or_default());
                }
            }
        }
        if dirty.is_empty() {
            continue;
        }
        // Let a burst of writes settle, taking in what else arrives meanwhile.
        let settle = tokio::time::sleep(SETTLE);
        tokio::pin!(settle);
        loop {
            tokio::select! {
                () = &mut settle => break,
                input = inputs.recv() => match input {
                    None => return,
                    Some(input) => take(input, &mut tracked, &mut dirty, &changed),
                },
            }
        }
        let batch: Vec<(String, Where)> =
            dirty.drain().filter_map(|owner| tracked.get(&owner).map(|t| (owner, t.at.clone()))).collect();
        let read = tokio::task::spawn_blocking(move || {
            batch.into_iter().map(|(owner, at)| (owner, read(&at))).collect::<Vec<_>>()
        })
        .await;
        for (owner, facts) in read.unwrap_or_default() {
            if let Some(tracked) = tracked.get_mut(&owner) {
                tracked.broken = facts.broken.is_some();
            }
            if reports.send(RadarReport { owner, facts }).is_err() {
                return;
            }
        }
    }
}

/// Takes in what the worker is told: a worktree to watch (read at once),
/// one to let go, one to read again.
fn take(
    input: RadarInput,
    tracked: &mut HashMap<String, Tracked>,
    dirty: &mut HashSet<String>,
    changed: &mpsc::UnboundedSender<RadarInput>,
) {
    match input {
        RadarInput::Track { owner, at } => {
            let watch = watch(&at.path, &owner, changed.clone());
            tracked.insert(owner.clone(), Tracked { at, _watch: watch, broken: false });
            dirty.insert(owner);
        }
        RadarInput::Untrack { owner } => {
            tracked.remove(&owner);
            dirty.remove(&owner);
        }
        RadarInput::Read { owner } => {
            if tracked.contains_key(&owner) {
                dirty.insert(owner);
            }
        }
    }
}

/// Whether git can no longer be run in the worktree at `at` (its folder
/// there): the three git runs that open it, none of its files read.
fn is_broken(at: &Where) -> bool {
    at.path.is_dir()
        && matches!(
            worktree::Checkout::open_on(&at.repository, &at.path, &at.branch),
            Err(worktree::GitError::Broken(_))
        )
}

/// What the worktree at `at` changed against where it left its base.
pub(crate) fn read(at: &Where) -> Facts {
    if !at.path.is_dir() {
        return Facts { missing: true, ..Facts::default() };
    }
    let checkout = match worktree::Checkout::open_on(&at.repository, &at.path, &at.branch) {
        Ok(checkout) => checkout,
        Err(worktree::GitError::Broken(broken)) => return Facts { broken: Some(broken), ..Facts::default() },
        Err(error) => {
            tracing::debug!(%error, "a worktree could not be read");
            return Facts::default();
        }
    };
    let from = match worktree::fork_point(&checkout, &at.base) {
        Ok(from) => from,
        Err(error) => {
            tracing::debug!(%error, "a worktree's fork point could not be read");
            return Facts::default();
        }
    };
    // Seven git runs: three to open it (the common directory, the drivers, the branch),
    // then the fork point, the untracked files, the changes, their regions.
    let untracked = worktree::untracked(&checkout).unwrap_or_default();
    let files_changed =
        worktree::changes_with(&checkout, &from, &untracked).map(|c| c.len() as u32).unwrap_or_default();
    let hunks = worktree::hunks_with(&checkout, &from, &untracked).unwrap_or_default();
    // Then, when its base moved on, what a merge would meet (six more runs).
    let against_base = match worktree::against_base(&checkout, &at.base) {
        Ok(against) => Some(against),
        Err(error) => {
            tracing::debug!(%error, "what a worktree's merge would meet could not be told");
            None
        }
    };
    Facts { missing: false, broken: None, files_changed, hunks, against_base }
}

/// Watches the worktree's files, telling the worker which changed; none
/// where the folder cannot be watched.
fn watch(path: &Path, owner: &str, changed: mpsc::UnboundedSender<RadarInput>) -> Option<notify::RecommendedWatcher> {
    let owner = owner.to_owned();
    let root = path.to_path_buf();
    let handler = move |event: notify::Result<notify::Event>| {
        let relevant = match &event {
            Ok(event) => {
                !event.kind.is_access()
                    && event.paths.iter().any(|p| {
                        let inside = p.strip_prefix(&root).unwrap_or(p).to_string_lossy().into_owned();
                        // The `.git` file itself counts: a changed one is read (and found broken) at once.
                        !(inside.starts_with(".git/") || worktree::is_app_path(&inside))
                    })
            }
            // Events lost: read it again to be sure.
            Err(_) => true,
        };
        if relevant {
            changed.send(RadarInput::Read { owner: owner.clone() }).ok();
        }
    };
    // A link the agent planted is never followed: a link to `/` would watch the whole disk.
    let config = notify::Config::default().with_follow_symlinks(false);
    let mut watcher = notify::RecommendedWatcher::new(handler, config).ok()?;
    match watcher.watch(path, RecursiveMode::Recursive) {
        Ok(()) => Some(watcher),
        Err(error) => {
            tracing::info!(%error, path = %path.display(), "a worktree cannot be watched; it is read every few seconds");
            None
        }
    }
}
