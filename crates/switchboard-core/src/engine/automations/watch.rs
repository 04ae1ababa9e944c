//! What file and branch triggers look at: a folder watched (the system's
//! file watches, else polled when they run out), each change gathered until
//! the folder is quiet; a branch's commit looked at every few seconds.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use globset::{Glob, GlobSet, GlobSetBuilder};
use notify::{RecursiveMode, Watcher};
use switchboard_protocol::AutomationId;
use tokio::sync::mpsc;

/// How long a folder stays quiet before its changes make a run.
pub const QUIET: Duration = Duration::from_secs(2);

/// How often a folder is looked at where the system's watches ran out.
pub const POLL: Duration = Duration::from_secs(2);

/// How often a branch is looked at.
pub const BRANCH_LOOK: Duration = Duration::from_secs(3);

/// The most changed paths a run's context names.
pub const PATHS_NAMED: usize = 50;

/// Paths changed under an automation's folder, as its watcher saw them.
#[derive(Debug)]
pub struct FilesSeen {
    pub automation: AutomationId,
    pub paths: Vec<PathBuf>,
}

/// The globs of a file trigger, checked: none where one does not read.
pub fn globs(patterns: &[String]) -> Result<GlobSet, String> {
    if patterns.iter().all(|p| p.trim().is_empty()) {
        return Err("Give the files to watch, such as \"src/**/*.rs\" or \"*\".".to_owned());
    }
    let mut set = GlobSetBuilder::new();
    for pattern in patterns.iter().map(|p| p.trim()).filter(|p| !p.is_empty()) {
        let glob = Glob::new(pattern).map_err(|e| format!("\"{pattern}\" is not a pattern Switchboard reads: {e}."))?;
        set.add(glob);
    }
    set.build().map_err(|e| e.to_string())
}

/// Whether a path (relative to the watched folder) is the app's own or git's:
/// never a change that runs anything.
pub fn ignored(relative: &str) -> bool {
    let first = relative.split('/').next().unwrap_or_default();
    first == ".git" || crate::worktree::is_app_path(relative)
}

/// One folder watched for one automation.
struct FolderWatch {
    root: PathBuf,
    globs: GlobSet,
    /// The watcher: the system's, or a poller where its watches ran out.
    _watcher: Box<dyn Watcher + Send>,
    /// Changed paths not yet run for, and when the last came.
    pending: BTreeSet<String>,
    last: Option<Instant>,
}

/// A branch looked at for one automation.
struct BranchWatch {
    repo: PathBuf,
    branch: String,
    next_look: Instant,
}

/// Every folder and branch the automations look at; owned by the desk.
pub struct Watches {
    folders: HashMap<AutomationId, FolderWatch>,
    branches: HashMap<AutomationId, BranchWatch>,
    seen: mpsc::UnboundedSender<FilesSeen>,
    /// Watch folders by polling alone (as where the system's watches ran
    /// out): for tests of that way, and the bench.
    poll_only: bool,
}

impl Watches {
    pub fn new(seen: mpsc::UnboundedSender<FilesSeen>, poll_only: bool) -> Self {
        Watches { folders: HashMap::new(), branches: HashMap::new(), seen, poll_only }
    }

    /// Starts watching `dir` for `automation`; answers whether the folder is
    /// polled (the system's watches ran out) rather than watched.
    pub fn watch_folder(&mut self, automation: &AutomationId, dir: &Path, globs: GlobSet) -> Result<bool, String> {
        self.folders.remove(automation);
        let root = dir.canonicalize().map_err(|e| format!("{} cannot be watched: {e}", dir.display()))?;
        let sender = self.seen.clone();
        let id = automation.clone();
        let handler = move |event: notify::Result<notify::Event>| {
            if let Ok(event) = event
                && !event.kind.is_access()
                && !event.paths.is_empty()
            {
                sender.send(FilesSeen { automation: id.clone(), paths: event.paths }).ok();
            }
        };
        // A link in the folder is never followed: one to `/` would watch the whole disk.
        let config = notify::Config::default().with_follow_symlinks(false);
        let system = if self.poll_only {
            None
        } else {
            notify::RecommendedWatcher::new(handler.clone(), config).ok().and_then(|mut watcher| {
                match watcher.watch(&root, RecursiveMode::Recursive) {
                    Ok(()) => Some(watcher),
                    Err(error) => {
                        tracing::warn!(%error, dir = %root.display(), "the system's file watches ran out: the folder is polled");
                        None
                    }
                }
            })
        };
        let (watcher, polled): (Box<dyn Watcher + Send>, bool) = match system {
            Some(watcher) => (Box::new(watcher), false),
            None => {
                let mut poller = notify::PollWatcher::new(handler, config.with_poll_interval(POLL))
                    .map_err(|e| format!("{} cannot be watched: {e}", root.display()))?;
                poller
                    .watch(&root, RecursiveMode::Recursive)
                    .map_err(|e| format!("{} cannot be watched: {e}", root.display()))?;
                (Box::new(poller), true)
            }
        };
        self.folders.insert(
            automation.clone(),
            FolderWatch { root, globs, _watcher: watcher, pending: BTreeSet::new(), last: None },
        );
        Ok(polled)
    }

    /// Starts looking at a branch for `automation`.
    pub fn watch_branch(&mut self, automation: &AutomationId, repo: &Path, branch: &str) {
        let watch = BranchWatch { repo: repo.to_path_buf(), branch: branch.to_owned(), next_look: Instant::now() };
        self.branches.insert(automation.clone(), watch);
    }

    /// Stops whatever `automation` watched.
    pub fn forget(&mut self, automation: &AutomationId) {
        self.folders.remove(automation);
        self.branches.remove(automation);
    }

    /// Notes changed paths that count (matching its globs, not the app's own).
    /// A folder that appeared is looked through: what was written in it
    /// before its own watch began was not seen.
    pub fn saw(&mut self, seen: FilesSeen, now: Instant) {
        let Some(watch) = self.folders.get_mut(&seen.automation) else { return };
        let mut paths = Vec::new();
        for path in seen.paths {
            let is_dir = std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_dir());
            if is_dir && path.starts_with(&watch.root) && path != watch.root {
                files_in(&path, &mut paths);
            }
            paths.push(path);
        }
        for path in paths {
            let Ok(relative) = path.strip_prefix(&watch.root) else { continue };
            let relative = relative.to_string_lossy().into_owned();
            if relative.is_empty() || ignored(&relative) || !watch.globs.is_match(&relative) {
                continue;
            }
            watch.pending.insert(relative);
            watch.last = Some(now);
        }
    }

    /// The folders quiet since their last change: each automation's changed
    /// paths, taken.
    pub fn quiet(&mut self, now: Instant) -> Vec<(AutomationId, Vec<String>)> {
        let mut ready = Vec::new();
        for (id, watch) in &mut self.folders {
            if watch.last.is_some_and(|last| now.duration_since(last) >= QUIET) {
                watch.last = None;
                ready.push((id.clone(), std::mem::take(&mut watch.pending).into_iter().collect()));
            }
        }
        ready
    }

    /// The branches due a look: each automation's repository and branch.
    pub fn branches_due(&mut self, now: Instant) -> Vec<(AutomationId, PathBuf, String)> {
        let mut due = Vec::new();
        for (id, watch) in &mut self.branches {
            if watch.next_look <= now {
                watch.next_look = now + BRANCH_LOOK;
                due.push((id.clone(), watch.repo.clone(), watch.branch.clone()));
            }
        }
        due
    }
}

/// The most entries a folder that appeared is looked through for.
const LOOKED_THROUGH: usize = 10_000;

/// The files under `dir` (links not followed), at most [`LOOKED_THROUGH`].
fn files_in(dir: &Path, found: &mut Vec<PathBuf>) {
    let mut folders = vec![dir.to_path_buf()];
    let mut looked = 0;
    while let Some(folder) = folders.pop() {
        let Ok(entries) = std::fs::read_dir(&folder) else { continue };
        for entry in entries.flatten() {
            looked += 1;
            if looked > LOOKED_THROUGH {
                return;
            }
            match entry.file_type() {
                Ok(kind) if kind.is_dir() => folders.push(entry.path()),
                Ok(kind) if kind.is_file() => found.push(entry.path()),
                _ => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_read_or_are_refused_in_words() {
        let set = globs(&["src/**/*.rs".into(), "Cargo.toml".into()]).unwrap();
        assert!(set.is_match("src/engine/mod.rs"));
        assert!(set.is_match("Cargo.toml"));
        assert!(!set.is_match("README.md"));
        assert!(globs(&[]).unwrap_err().contains("Give the files to watch"));
        assert!(globs(&["src/[".into()]).unwrap_err().contains("\"src/[\" is not a pattern Switchboard reads"));
    }

    #[test]
    fn the_apps_own_files_and_gits_never_count() {
        for path in [".git/index", ".git", ".switchboard/progress.md", "summaries/x.md"] {
            assert!(ignored(path), "{path}");
        }
        for path in ["src/main.rs", "docs/summaries.md", "git/notes"] {
            assert!(!ignored(path), "{path}");
        }
    }

    #[test]
    fn changes_are_gathered_until_the_folder_is_quiet() {
        let dir = tempfile::tempdir().unwrap();
        let (sender, _receiver) = mpsc::unbounded_channel();
        let mut watches = Watches::new(sender, true);
        let id = AutomationId::new();
        assert!(watches.watch_folder(&id, dir.path(), globs(&["*.rs".into()]).unwrap()).unwrap());
        let root = dir.path().canonicalize().unwrap();
        let start = Instant::now();
        let seen =
            |names: &[&str]| FilesSeen { automation: id.clone(), paths: names.iter().map(|n| root.join(n)).collect() };
        watches.saw(seen(&["a.rs", "notes.txt", ".git/HEAD"]), start);
        watches.saw(seen(&["b.rs"]), start + Duration::from_millis(1500));
        assert!(watches.quiet(start + Duration::from_millis(3000)).is_empty(), "still changing");
        let ready = watches.quiet(start + Duration::from_millis(3600));
        assert_eq!(ready, vec![(id.clone(), vec!["a.rs".to_owned(), "b.rs".to_owned()])]);
        assert!(watches.quiet(start + Duration::from_secs(10)).is_empty(), "taken once");
    }
}
