//! Automations' commands, and their runs carried out: the automation desk
//! says which runs are due; each is checked against the run before it and
//! the hourly cap, then its task is queued (or its loop started) by the
//! task desk and the run recorded.

use switchboard_api::{Automation, AutomationAction, AutomationSpec, EngineEvent};
use switchboard_protocol::AutomationId;

use super::EngineState;
use crate::automations::rules::{self, Previous};
use crate::engine::automations::{self, Fire};
use crate::error::EngineError;
use crate::store::RunMade;

impl EngineState {
    pub(in crate::engine) fn create_automation(&mut self, spec: AutomationSpec) -> Result<Automation, EngineError> {
        self.automations.create(&mut self.cx, spec)
    }

    pub(in crate::engine) fn update_automation(
        &mut self,
        automation_id: AutomationId,
        spec: AutomationSpec,
    ) -> Result<Automation, EngineError> {
        self.automations.update(&mut self.cx, &automation_id, spec)
    }

    pub(in crate::engine) fn list_automations(&self) -> Result<Vec<Automation>, EngineError> {
        Ok(self.cx.store.list_automations()?.into_iter().map(|a| automations::view(&self.cx, a)).collect())
    }

    pub(in crate::engine) fn get_automation(&self, automation_id: AutomationId) -> Result<Automation, EngineError> {
        Ok(automations::view(&self.cx, automations::stored(&self.cx, &automation_id)?))
    }

    pub(in crate::engine) fn pause_automation(
        &mut self,
        automation_id: AutomationId,
    ) -> Result<Automation, EngineError> {
        self.automations.set_paused(&mut self.cx, &automation_id, true)
    }

    pub(in crate::engine) fn resume_automation(
        &mut self,
        automation_id: AutomationId,
    ) -> Result<Automation, EngineError> {
        self.automations.set_paused(&mut self.cx, &automation_id, false)
    }

    pub(in crate::engine) fn run_automation_now(
        &mut self,
        automation_id: AutomationId,
    ) -> Result<Automation, EngineError> {
        automations::stored(&self.cx, &automation_id)?;
        let at = self.cx.clock.now();
        let context = "This task was started by an automation, run by hand.".to_owned();
        self.fire(Fire { automation: automation_id.clone(), at, reason: "run now".to_owned(), context });
        self.get_automation(automation_id)
    }

    pub(in crate::engine) fn remove_automation(&mut self, automation_id: AutomationId) -> Result<(), EngineError> {
        self.automations.remove(&mut self.cx, &automation_id)
    }

    /// The schedules judged against the engine's clock, and their runs made.
    pub(super) fn judge_automations(&mut self) {
        let mut fires = self.automations.due(&mut self.cx);
        fires.extend(self.automations.watched(&mut self.cx, std::time::Instant::now()));
        for fire in fires {
            self.fire(fire);
        }
    }

    /// A task ended: the chains that follow it run.
    pub(super) fn automations_after(
        &mut self,
        task: &switchboard_protocol::TaskId,
        profile: &switchboard_protocol::ProfileId,
        state: switchboard_api::TaskState,
    ) {
        for fire in self.automations.task_ended(&mut self.cx, task, profile, state) {
            self.fire(fire);
        }
    }

    /// Makes one run: skipped (said why) when the run before is still at
    /// work or the hourly cap is reached; else its task queued or its loop
    /// started, or why its agent refused it.
    fn fire(&mut self, fire: Fire) {
        let Ok(stored) = automations::stored(&self.cx, &fire.automation) else { return };
        let made = match self.refusal(&stored) {
            Some(why) => RunMade::Skipped(why),
            None => match &stored.spec.action {
                AutomationAction::Task { .. } => {
                    let spec = automations::task_spec(&stored.spec, fire.context.clone());
                    match self.tasks.submit(&mut self.cx, spec) {
                        Ok(submitted) => RunMade::Task(submitted.task.id),
                        Err(error) => RunMade::Skipped(format!("its agent did not take the work: {error}")),
                    }
                }
                AutomationAction::Loop { settings } => {
                    match self.tasks.start_loop(&mut self.cx, &stored.spec.profile_id, settings.clone()) {
                        Ok(info) => RunMade::Loop(info.id),
                        Err(error) => RunMade::Skipped(format!("its agent did not take the loop: {error}")),
                    }
                }
            },
        };
        automations::record(&self.cx, &stored.id, fire.at, &fire.reason, &made);
        self.tidy_run_worktrees(&stored.id);
        let shown = automations::view(&self.cx, stored);
        self.cx.emit(EngineEvent::AutomationChanged { automation: shown });
    }

    /// Keeps the worktrees of an automation's latest runs only: an older
    /// run's, its task ended and its worktree not merged, is discarded (its
    /// patch kept), so runs day after day do not pile up branches and
    /// folders.
    fn tidy_run_worktrees(&mut self, id: &AutomationId) {
        let runs = self.cx.store.automation_runs(id, automations::RUNS_LOOKED_AT).unwrap_or_default();
        let tasks: Vec<switchboard_protocol::TaskId> = runs
            .iter()
            .rev()
            .filter_map(|run| match &run.made {
                RunMade::Task(task) => Some(task.clone()),
                _ => None,
            })
            .skip(automations::KEPT_RUN_WORKTREES)
            .collect();
        for task in tasks {
            let Ok(task) = crate::engine::tasks::task_of(&self.cx, &task) else { continue };
            if matches!(task.state(), switchboard_api::TaskState::Queued | switchboard_api::TaskState::Running) {
                continue;
            }
            let key = crate::engine::isolation::worktree_key(&task);
            let open =
                self.cx.store.get_worktree(&key).ok().flatten().is_some_and(|w| w.kept == crate::worktree::Kept::Open);
            if open {
                let done =
                    crate::error::Responder::new(|discarded: Result<switchboard_api::DiscardOutcome, EngineError>| {
                        if let Err(error) = discarded {
                            tracing::warn!(%error, "an old automation run's worktree could not be discarded");
                        }
                    });
                self.worktrees.discard(&mut self.cx, &key, true, done);
            }
        }
    }

    /// Why a run of `stored` is not made now, if it is not.
    fn refusal(&self, stored: &crate::store::StoredAutomation) -> Option<String> {
        let runs = self.cx.store.automation_runs(&stored.id, 20).unwrap_or_default();
        let previous = runs.iter().rev().find_map(|run| match &run.made {
            RunMade::Task(task) => {
                crate::engine::tasks::task_of(&self.cx, task).ok().map(|task| Previous::Task(task.state()))
            }
            RunMade::Loop(id) => {
                self.cx.store.get_loop(id).ok().flatten().map(|l| Previous::Loop { open: l.is_active() })
            }
            RunMade::Skipped(_) => None,
        });
        if let Some(why) = rules::overlap_refusal(previous, stored.spec.overlap) {
            return Some(why);
        }
        let hour_ago = self.cx.clock.now() - 3_600_000;
        let made = self.cx.store.automation_runs_made_since(&stored.id, hour_ago).unwrap_or(0);
        rules::cap_refusal(made, stored.spec.max_runs_per_hour)
    }
}
