//! Watching a workspace for the files of the completion protocol.
//!
//! The workspace root and its `summaries/` directory are watched (not
//! recursively: a workspace may hold a large tree). A summary counts once it
//! is complete: closed after writing, or renamed into place; a file merely
//! created may still be half written. When `summaries/` is deleted and made
//! again the watch is renewed; on an event overflow, and right after a watch
//! starts, the engine rescans. Where no watch can be set up (inotify limits,
//! an odd file system) a slow poll stands in.

use std::path::{Path, PathBuf};
use std::time::Duration;

use notify::event::{AccessKind, AccessMode, CreateKind, ModifyKind, RenameMode};
use notify::{EventKind, RecursiveMode, Watcher};
use switchboard_protocol::summary::{ERRORS_FILE, RESULTS_FILE, STATUS_FILE, SUMMARIES_DIR};
use tokio::sync::mpsc;

/// How often a workspace that cannot be watched is looked at.
pub const POLL_INTERVAL: Duration = Duration::from_secs(2);

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WatchEvent {
    /// `summaries/<name>` was completely written.
    Summary { workspace: PathBuf, name: String },
    /// STATUS.txt, RESULTS.json or ERRORS.md was written.
    SideFile { workspace: PathBuf, name: String },
    /// `summaries/` appeared: renew its watch, then rescan.
    SummariesCreated { workspace: PathBuf },
    /// Events may have been lost: look at the files themselves.
    Rescan { workspace: PathBuf },
    /// The workspace itself was deleted.
    WorkspaceGone { workspace: PathBuf },
}

/// What one file-system event means for the protocol, if anything.
pub fn classify(workspace: &Path, kind: &EventKind, paths: &[PathBuf]) -> Option<WatchEvent> {
    let summaries = workspace.join(SUMMARIES_DIR);
    if matches!(kind, EventKind::Remove(_)) && paths.first().map(PathBuf::as_path) == Some(workspace) {
        return Some(WatchEvent::WorkspaceGone { workspace: workspace.to_path_buf() });
    }
    let complete = match kind {
        EventKind::Access(AccessKind::Close(AccessMode::Write)) => paths.first(),
        EventKind::Modify(ModifyKind::Name(RenameMode::To)) => paths.first(),
        EventKind::Modify(ModifyKind::Name(RenameMode::Both)) => paths.get(1),
        EventKind::Create(CreateKind::Folder) | EventKind::Create(CreateKind::Any)
            if paths.first() == Some(&summaries) =>
        {
            return Some(WatchEvent::SummariesCreated { workspace: workspace.to_path_buf() });
        }
        _ => None,
    }?;
    // `summaries/` renamed into place counts as made.
    if complete == &summaries {
        return Some(WatchEvent::SummariesCreated { workspace: workspace.to_path_buf() });
    }
    let name = complete.file_name()?.to_str()?.to_owned();
    let parent = complete.parent()?;
    if parent == summaries && name.ends_with(".md") && !name.starts_with('.') {
        Some(WatchEvent::Summary { workspace: workspace.to_path_buf(), name })
    } else if parent == workspace && [STATUS_FILE, RESULTS_FILE, ERRORS_FILE].contains(&name.as_str()) {
        Some(WatchEvent::SideFile { workspace: workspace.to_path_buf(), name })
    } else {
        None
    }
}

/// A watch on one workspace. Dropping it stops the watch (or the poll).
pub struct WorkspaceWatch {
    workspace: PathBuf,
    watcher: Option<notify::RecommendedWatcher>,
    poll: Option<tokio::task::JoinHandle<()>>,
}

impl WorkspaceWatch {
    /// Starts watching and asks for a first rescan. Must be called within a
    /// Tokio runtime.
    pub fn start(workspace: PathBuf, events: mpsc::UnboundedSender<WatchEvent>) -> WorkspaceWatch {
        let sender = events.clone();
        let root = workspace.clone();
        let watcher = notify::recommended_watcher(move |result: notify::Result<notify::Event>| {
            let event = match result {
                Ok(event) if event.need_rescan() => Some(WatchEvent::Rescan { workspace: root.clone() }),
                Ok(event) => classify(&root, &event.kind, &event.paths),
                Err(error) => {
                    tracing::warn!(workspace = %root.display(), %error, "workspace watch error; rescanning");
                    Some(WatchEvent::Rescan { workspace: root.clone() })
                }
            };
            if let Some(event) = event {
                sender.send(event).ok();
            }
        })
        .and_then(|mut watcher| watcher.watch(&workspace, RecursiveMode::NonRecursive).map(|()| watcher));
        let mut watch = match watcher {
            Ok(watcher) => WorkspaceWatch { workspace: workspace.clone(), watcher: Some(watcher), poll: None },
            Err(error) => {
                tracing::warn!(workspace = %workspace.display(), %error, "cannot watch the workspace; polling it");
                let poll_events = events.clone();
                let polled = workspace.clone();
                let poll = tokio::spawn(async move {
                    let mut ticks = tokio::time::interval(POLL_INTERVAL);
                    loop {
                        ticks.tick().await;
                        if poll_events.send(WatchEvent::Rescan { workspace: polled.clone() }).is_err() {
                            break;
                        }
                    }
                });
                WorkspaceWatch { workspace: workspace.clone(), watcher: None, poll: Some(poll) }
            }
        };
        watch.watch_summaries();
        events.send(WatchEvent::Rescan { workspace }).ok();
        watch
    }

    /// (Re)watches `summaries/`, if it exists now.
    pub fn watch_summaries(&mut self) {
        let dir = self.workspace.join(SUMMARIES_DIR);
        if let Some(watcher) = &mut self.watcher
            && dir.is_dir()
            && let Err(error) = watcher.watch(&dir, RecursiveMode::NonRecursive)
        {
            tracing::warn!(dir = %dir.display(), %error, "cannot watch the summaries directory");
        }
    }

    pub fn is_polling(&self) -> bool {
        self.poll.is_some()
    }
}

impl Drop for WorkspaceWatch {
    fn drop(&mut self) {
        if let Some(poll) = self.poll.take() {
            poll.abort();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn an_unwatchable_workspace_is_polled() {
        let (events, mut received) = mpsc::unbounded_channel();
        let missing = PathBuf::from("/nonexistent/switchboard-workspace");
        let watch = WorkspaceWatch::start(missing.clone(), events);
        assert!(watch.is_polling());
        // The first rescan at once, then one per interval.
        for _ in 0..3 {
            assert_eq!(received.recv().await, Some(WatchEvent::Rescan { workspace: missing.clone() }));
        }
        drop(watch);
    }

    #[tokio::test]
    async fn a_watched_workspace_reports_complete_summaries() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let (events, mut received) = mpsc::unbounded_channel();
        let watch = WorkspaceWatch::start(root.clone(), events);
        assert!(!watch.is_polling());
        assert_eq!(received.recv().await, Some(WatchEvent::Rescan { workspace: root.clone() }));
        std::fs::create_dir(root.join(SUMMARIES_DIR)).unwrap();
        assert_eq!(received.recv().await, Some(WatchEvent::SummariesCreated { workspace: root.clone() }));
        let mut watch = watch;
        watch.watch_summaries();
        std::fs::write(root.join("summaries/t.md"), "x").unwrap();
        let summary = WatchEvent::Summary { workspace: root.clone(), name: "t.md".into() };
        assert_eq!(received.recv().await, Some(summary));
    }

    #[test]
    fn classify_cases() {
        use notify::event::RemoveKind;
        let ws = Path::new("/w");
        let close = EventKind::Access(AccessKind::Close(AccessMode::Write));
        let created = EventKind::Create(CreateKind::File);
        let rename_to = EventKind::Modify(ModifyKind::Name(RenameMode::To));
        let rename_both = EventKind::Modify(ModifyKind::Name(RenameMode::Both));
        let summary = |name: &str| Some(WatchEvent::Summary { workspace: ws.into(), name: name.into() });
        let side = |name: &str| Some(WatchEvent::SideFile { workspace: ws.into(), name: name.into() });
        let made = Some(WatchEvent::SummariesCreated { workspace: ws.into() });
        let cases: Vec<(EventKind, Vec<&str>, Option<WatchEvent>)> = vec![
            (close, vec!["/w/summaries/t1.md"], summary("t1.md")),
            // Created but maybe still being written: wait for close or rename.
            (created, vec!["/w/summaries/t1.md"], None),
            (rename_to, vec!["/w/summaries/t1.md"], summary("t1.md")),
            (rename_both, vec!["/w/summaries/.t1.md.tmp", "/w/summaries/t1.md"], summary("t1.md")),
            // The temporary file of an atomic write is not the summary.
            (close, vec!["/w/summaries/.t1.md.tmp"], None),
            (close, vec!["/w/summaries/t1.txt"], None),
            (close, vec!["/w/other/t1.md"], None),
            (close, vec!["/w/STATUS.txt"], side("STATUS.txt")),
            (rename_to, vec!["/w/RESULTS.json"], side("RESULTS.json")),
            (close, vec!["/w/ERRORS.md"], side("ERRORS.md")),
            (close, vec!["/w/README.md"], None),
            (EventKind::Create(CreateKind::Folder), vec!["/w/summaries"], made.clone()),
            (rename_to, vec!["/w/summaries"], made),
            (EventKind::Create(CreateKind::Folder), vec!["/w/src"], None),
            // The workspace itself deleted (not a folder in it).
            (
                EventKind::Remove(RemoveKind::Folder),
                vec!["/w"],
                Some(WatchEvent::WorkspaceGone { workspace: ws.into() }),
            ),
            (EventKind::Remove(RemoveKind::Folder), vec!["/w/summaries"], None),
        ];
        for (kind, paths, expected) in cases {
            let paths: Vec<PathBuf> = paths.into_iter().map(PathBuf::from).collect();
            assert_eq!(classify(ws, &kind, &paths), expected, "{kind:?} {paths:?}");
        }
    }
}
