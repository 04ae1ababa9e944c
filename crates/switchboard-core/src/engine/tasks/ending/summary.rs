//! A task's summary file: watched for, rescanned, left to settle, read, and the task completed by what it says.

use super::{SETTLE_TIME, SUMMARY_CAP_BYTES, TaskNote, save_and_report, summary_file};
use crate::engine::context::Ctx;
use crate::engine::status;
use crate::engine::tasks::{Phase, TaskDesk, log_task, task_of};
use crate::session::Control;
use crate::tasks::artifacts;
use crate::tasks::completion::{self, Decision};
use crate::tasks::watch::WatchEvent;
use std::path::{Path, PathBuf};
use switchboard_api::{LogKind, TaskState};
use switchboard_protocol::ProfileId;
use switchboard_protocol::summary::{STATUS_FILE, summary_path};

impl TaskDesk {
    pub fn on_watch_event(&mut self, cx: &mut Ctx, event: WatchEvent) {
        match event {
            WatchEvent::Summary { workspace, name } => {
                let done: Vec<ProfileId> = self
                    .work
                    .iter()
                    .filter(|(_, w)| w.workspace == workspace && name == format!("{}.md", w.task_id))
                    .map(|(p, _)| p.clone())
                    .collect();
                for profile_id in done {
                    self.complete(cx, &profile_id);
                }
            }
            WatchEvent::SideFile { workspace, name } if name == STATUS_FILE => self.refresh_progress(cx, &workspace),
            WatchEvent::SideFile { .. } => {}
            WatchEvent::SummariesCreated { workspace } => {
                if let Some((watch, _)) = self.watches.get_mut(&workspace) {
                    watch.watch_summaries();
                }
                self.rescan(cx, &workspace);
            }
            WatchEvent::Rescan { workspace } => self.rescan(cx, &workspace),
            WatchEvent::WorkspaceGone { workspace } => self.workspace_deleted(cx, &workspace),
        }
    }

    /// Looks whether the workspaces of loop iterations at work are still
    /// there (each second, with the quiet watch): a folder deleted while an
    /// agent's working directory is in it sends its watch nothing until the
    /// agent lets go of it.
    pub fn check_workspaces(&mut self, cx: &mut Ctx) {
        let gone: Vec<PathBuf> = self
            .work
            .values()
            .filter(|w| w.iteration.is_some() && !w.ending() && !w.workspace.is_dir())
            .map(|w| w.workspace.clone())
            .collect();
        for workspace in gone {
            self.workspace_deleted(cx, &workspace);
        }
    }

    /// The workspace was deleted under its agents: a loop's iteration there
    /// ends now (its loop then stops, saying its folder is gone) rather than
    /// run on in a folder that is no more. A plain task is left to its agent
    /// (the user may put the folder back): it ends with it or with its limit.
    pub(super) fn workspace_deleted(&mut self, cx: &mut Ctx, workspace: &Path) {
        let iterations: Vec<ProfileId> = self
            .work
            .iter()
            .filter(|(_, w)| w.workspace == workspace && w.iteration.is_some() && !w.ending())
            .map(|(p, _)| p.clone())
            .collect();
        for profile_id in iterations {
            let reason = format!("its folder {} is gone", workspace.display());
            self.begin_fallback(cx, &profile_id, TaskState::Failed, reason, true);
        }
    }

    /// Looks at the files themselves: a summary that exists is read once it
    /// has stopped changing.
    pub(super) fn rescan(&mut self, cx: &mut Ctx, workspace: &Path) {
        self.refresh_progress(cx, workspace);
        while self.settlers.try_join_next().is_some() {}
        for work in self.work.values_mut().filter(|w| w.workspace == workspace && !w.ending()) {
            let path = summary_file(workspace, &work.task_id);
            if !path.exists() {
                continue;
            }
            let notes = self.notes.clone();
            let task_id = work.task_id.clone();
            let settling = self.settlers.spawn(async move {
                let fingerprint = |path: &Path| std::fs::metadata(path).ok().map(|m| (m.len(), m.modified().ok()));
                let mut seen = fingerprint(&path);
                loop {
                    tokio::time::sleep(SETTLE_TIME).await;
                    let now = fingerprint(&path);
                    if now.is_none() {
                        return;
                    }
                    if now == seen {
                        notes.send(TaskNote::Settled { task_id }).ok();
                        return;
                    }
                    seen = now;
                }
            });
            if let Some(earlier) = work.settling.replace(settling) {
                earlier.abort();
            }
        }
    }

    /// STATUS.txt is the progress of the one task at work in its folder, once
    /// written since that task was handed: a file an earlier task left, or one
    /// of two agents working in one folder wrote, is nobody's.
    pub(super) fn refresh_progress(&mut self, cx: &mut Ctx, workspace: &Path) {
        let mut working = self.work.values().filter(|w| w.workspace == workspace);
        let (Some(work), None) = (working.next(), working.next()) else { return };
        if work.status_before.is_some() && crate::engine::tasks::status_stamp(workspace) == work.status_before {
            return;
        }
        let Some(progress) = artifacts::read_progress(workspace) else { return };
        if let Ok(mut task) = task_of(cx, &work.task_id)
            && task.progress() != Some(progress.as_str())
        {
            task.set_progress(Some(progress));
            save_and_report(cx, &task);
        }
    }

    /// The summary of the profile's task is complete: read it, and finish
    /// the task if its completion rule is met.
    pub(super) fn complete(&mut self, cx: &mut Ctx, profile_id: &ProfileId) {
        let Some(work) = self.work.get_mut(profile_id) else { return };
        let path = summary_file(&work.workspace, &work.task_id);
        match artifacts::read_summary(&work.workspace, &work.task_id, SUMMARY_CAP_BYTES) {
            Ok(text) => work.summary = Some(text),
            Err(error) => {
                // The agent put something else there (a symlink out of the
                // workspace, a FIFO): refused and said on the task's
                // timeline; the task waits for a proper summary or its end.
                tracing::warn!(path = %path.display(), %error, "a summary could not be read");
                let task_id = work.task_id.clone();
                if let Ok(task) = task_of(cx, &task_id) {
                    let listed = summary_path(&task_id);
                    log_task(cx, &task, LogKind::DeliverableRejected { path: listed, reason: error.to_string() });
                }
                return;
            }
        }
        self.settle(cx, profile_id);
    }

    /// Finishes the profile's task if what has arrived meets its rule: the
    /// result is the summary file, or one made from the report.
    pub(super) fn settle(&mut self, cx: &mut Ctx, profile_id: &ProfileId) {
        let Some(work) = self.work.get(profile_id) else { return };
        // A loop iteration ends with its turn, whatever it wrote before
        // (what it said is weighed then: see `end_iteration`).
        if work.iteration.is_some() {
            return;
        }
        let decision = work.decision();
        let (state, reason) = match decision {
            Decision::Wait => return,
            // Teammates still at work: the lead's task stays open until
            // they are done (its summary is kept), and says so.
            Decision::Complete | Decision::Fail(_) if status::team_active(&cx.sessions, &work.session_id) => {
                self.work.get_mut(profile_id).expect("checked above").held_for_team = true;
                self.refresh_wait(cx, profile_id);
                return;
            }
            Decision::Complete => (TaskState::Completed, None),
            Decision::Fail(reason) => (TaskState::Failed, Some(reason)),
        };
        let mut work = self.work.remove(profile_id).expect("checked above");
        if let Phase::Handed { .. } = work.phase {
            cx.sessions.send(&work.session_id, Control::CancelType(work.task_id.to_string()));
        }
        self.unwatch(&work.workspace);
        if let Ok(task) = task_of(cx, &work.task_id) {
            let text = match (work.summary.take(), &work.report) {
                (Some(text), _) => text,
                (None, Some(report)) => completion::summary_from_report(
                    &task.spec.instruction,
                    &report.status,
                    &report.deliverables,
                    &report.metrics,
                    &report.recommendations,
                ),
                (None, None) => unreachable!("a decision to complete needs the summary or the report"),
            };
            let result = artifacts::collect_result(&work.workspace, &work.task_id, text, false);
            self.finish(cx, task, state, reason, Some(result));
        }
        self.pump(cx, profile_id);
    }
}
