//! Runs that file and branch triggers call for: a watched folder quiet
//! after changes (none for changes its own run made), a branch moved (none
//! for a move the engine's own merge made).

use std::time::Instant;

use switchboard_api::{AutomationState, Trigger};
use switchboard_protocol::AutomationId;

use super::watch::PATHS_NAMED;
use super::{AutomationDesk, Fire, capped, stored};
use crate::engine::context::Ctx;
use crate::store::{RunMade, StoredAutomation};

/// The most commits a branch run's context names.
const COMMITS_NAMED: usize = 100;

impl AutomationDesk {
    /// The runs watched folders and branches call for now.
    pub fn watched(&mut self, cx: &mut Ctx, now: Instant) -> Vec<Fire> {
        let mut fires = Vec::new();
        for (id, paths) in self.watches.quiet(now) {
            let Ok(stored) = stored(cx, &id) else { continue };
            if stored.state != AutomationState::Active || paths.is_empty() || own_run_busy(cx, &id) {
                continue;
            }
            let Trigger::FilesChanged { dir, .. } = &stored.spec.trigger else { continue };
            let named: Vec<&str> = paths.iter().take(3).map(String::as_str).collect();
            let more = paths.len().saturating_sub(named.len());
            let reason = match more {
                0 => format!("files changed under {dir}: {}", named.join(", ")),
                n => format!("files changed under {dir}: {} and {n} more", named.join(", ")),
            };
            let mut context = format!("This task was started by an automation: files changed under {dir}.\n\n");
            for path in paths.iter().take(PATHS_NAMED) {
                context.push_str(&format!("- {path}\n"));
            }
            if paths.len() > PATHS_NAMED {
                context.push_str(&format!("- … and {} more\n", paths.len() - PATHS_NAMED));
            }
            fires.push(Fire { automation: id, at: cx.clock.now(), reason, context: capped(context) });
        }
        for (id, repo, branch) in self.watches.branches_due(now) {
            let Ok(stored) = stored(cx, &id) else { continue };
            if stored.state != AutomationState::Active {
                continue;
            }
            let Ok(Some(head)) = crate::worktree::branch_head(&repo, &branch) else { continue };
            let Some(seen) = stored.seen.clone() else {
                keep_seen(cx, stored, head);
                continue;
            };
            if seen == head {
                continue;
            }
            // The engine's own merge moved it: not the change it waits for.
            let by_the_app = cx.merged_commits.contains(&head);
            let repo_words = repo.display().to_string();
            keep_seen(cx, stored, head.clone());
            if by_the_app {
                continue;
            }
            let short = |commit: &str| commit.chars().take(10).collect::<String>();
            let reason = format!("{branch} moved from {} to {} in {repo_words}", short(&seen), short(&head));
            let commits = crate::worktree::commits_between(&repo, &seen, &head, COMMITS_NAMED).unwrap_or_default();
            let mut context = format!(
                "This task was started by an automation: the branch {branch} of {repo_words} moved to a new commit.\n\
                 The commits: {seen}..{head} (newest first; `git log {seen}..{head}` shows them all):\n\n"
            );
            for commit in &commits {
                context.push_str(&format!("- {commit}\n"));
            }
            fires.push(Fire { automation: id, at: cx.clock.now(), reason, context: capped(context) });
        }
        fires
    }
}

/// Whether the changes are the automation's own run's (see
/// [`rules::own_changes`]).
fn own_run_busy(cx: &Ctx, id: &AutomationId) -> bool {
    let runs = cx.store.automation_runs(id, 5).unwrap_or_default();
    let last = runs.iter().rev().find_map(|run| match &run.made {
        RunMade::Task(task) => crate::engine::tasks::task_of(cx, task).ok().map(|t| (t.state(), t.ended_at())),
        _ => None,
    });
    crate::automations::rules::own_changes(last, switchboard_api::now())
}

fn keep_seen(cx: &Ctx, stored: StoredAutomation, head: String) {
    let seen = StoredAutomation { seen: Some(head), ..stored };
    if let Err(error) = cx.store.save_automation(&seen) {
        tracing::error!(%error, "where a branch was seen could not be kept");
    }
}
