//! What the user asks of the queues: a task submitted, listed, cancelled, moved, edited, run again; a queue paused.

use super::rules::Cancel;
use super::{
    MAX_LISTED_FINISHED_TASKS, TaskDesk, emit_queue, interrupt, log_task, queue_paused, queued_of, report_queued,
    report_task, rules, task_of, with_wait,
};
use crate::engine::context::Ctx;
use crate::error::EngineError;
use crate::tasks::queue::{self, Queued};
use std::collections::HashMap;
use switchboard_api::now;
use switchboard_api::{LogKind, QueuePause, QueueStatus, Submitted, TaskInfo, TaskSpec, TaskState};
use switchboard_protocol::{ProfileId, TaskId};

impl TaskDesk {
    pub fn submit(&mut self, cx: &mut Ctx, spec: TaskSpec) -> Result<Submitted, EngineError> {
        let spec = rules::validate_task(spec)?;
        let profile = cx.profile(&spec.profile_id)?;
        crate::engine::isolation::check_base(&profile, spec.base.as_deref())?;
        if let Some(reason) = super::spent::unpriced_budget(cx, &profile, spec.budget.as_ref())? {
            return Err(EngineError::InvalidInput { field: "budget", reason });
        }
        let time_limit = spec.time_limit_secs.unwrap_or(profile.spec.task_time_limit_secs);
        let order = cx.store.queue_bound(&profile.id, true)?;
        let task =
            TaskInfo::queued(TaskId::new(), TaskSpec { time_limit_secs: Some(time_limit), ..spec }, order, now());
        cx.store.save_task(&task)?;
        log_task(cx, &task, LogKind::TaskQueued { priority: task.spec.priority });
        report_task(cx, task.clone());
        self.pump(cx, &profile.id);
        let task = task_of(cx, &task.id)?;
        let (position, waiting_for) = if task.state() == TaskState::Queued {
            let position = cx.store.queue_position(&profile.id, &task.id)?;
            (position, self.work.get(&profile.id).map(|w| w.task_id.clone()))
        } else {
            (None, None)
        };
        Ok(Submitted { task: task.into(), position, waiting_for })
    }

    pub fn list(&self, cx: &Ctx, profile_id: Option<&ProfileId>) -> Result<Vec<TaskInfo>, EngineError> {
        let mut tasks = cx.store.finished_tasks(profile_id, MAX_LISTED_FINISHED_TASKS)?;
        tasks.extend(cx.store.active_tasks(profile_id)?);
        // Changes the store could not record yet are the truth meanwhile.
        let mut paused = HashMap::new();
        Ok(tasks
            .into_iter()
            .map(|task| cx.unsaved_tasks.get(&task.id).cloned().unwrap_or(task))
            .map(|task| {
                with_wait(cx, task, |profile| {
                    paused.entry(profile.clone()).or_insert_with(|| queue_paused(cx, profile)).clone()
                })
            })
            .collect())
    }

    /// Records the task changes the store refused (a full disk), now that it
    /// may write again; those it still refuses stay kept.
    pub fn retry_unsaved(&mut self, cx: &mut Ctx) {
        let unsaved: Vec<TaskInfo> = cx.unsaved_tasks.values().cloned().collect();
        for task in unsaved {
            match cx.store.save_task(&task) {
                Ok(()) => {
                    cx.unsaved_tasks.remove(&task.id);
                    tracing::info!(task = %task.id, "a task change kept while the store could not write is recorded");
                }
                Err(error) => {
                    tracing::warn!(task = %task.id, %error, "recording a kept task change failed again");
                    break;
                }
            }
        }
    }

    pub fn get(&self, cx: &Ctx, id: &TaskId) -> Result<TaskInfo, EngineError> {
        task_of(cx, id)
    }

    pub fn timeline(&self, cx: &Ctx, id: &TaskId) -> Result<Vec<switchboard_api::LogEntry>, EngineError> {
        task_of(cx, id)?;
        Ok(cx.store.task_events(id)?)
    }

    pub fn cancel(&mut self, cx: &mut Ctx, id: &TaskId) -> Result<TaskInfo, EngineError> {
        let task = task_of(cx, id)?;
        let profile_id = task.spec.profile_id.clone();
        match rules::cancel(task.state()) {
            Cancel::Dequeue { reason } => {
                let was_preparing = self.preparing.get(&profile_id).is_some_and(|p| &p.task_id == id);
                if was_preparing {
                    self.preparing.remove(&profile_id);
                    cx.task_waits.remove(id);
                }
                let task = self.finish(cx, task, TaskState::Cancelled, Some(reason.into()), None);
                if was_preparing {
                    self.pump(cx, &profile_id);
                } else {
                    emit_queue(cx, self.queue_status(cx, &profile_id));
                }
                Ok(task)
            }
            Cancel::Interrupt { reason } => {
                if let Some(work) = self.work.remove(&profile_id) {
                    interrupt(cx, &work, &profile_id);
                    self.unwatch(&work.workspace);
                }
                let task = self.finish(cx, task, TaskState::Cancelled, Some(reason.into()), None);
                self.pump(cx, &profile_id);
                Ok(task)
            }
            Cancel::Refuse { reason } => {
                Err(EngineError::TaskState { task: id.clone(), state: task.state().as_str(), reason })
            }
        }
    }

    pub fn move_to(&mut self, cx: &mut Ctx, id: &TaskId, to_index: u32) -> Result<(), EngineError> {
        let task = task_of(cx, id)?;
        if let Some(reason) = rules::move_refused(task.state()) {
            return Err(EngineError::TaskState { task: id.clone(), state: task.state().as_str(), reason });
        }
        let profile_id = task.spec.profile_id.clone();
        let active = cx.store.active_tasks(Some(&profile_id))?;
        let queued: Vec<Queued> = active.iter().filter(|t| t.state() == TaskState::Queued).map(queued_of).collect();
        let moved = queue::moved(&queued, id, to_index as usize).expect("the task is queued");
        let changed: Vec<TaskInfo> = moved
            .iter()
            .filter_map(|q| {
                let before = active.iter().find(|t| t.id == q.id)?;
                let changed = before.order != q.order || before.spec.priority != q.priority;
                changed.then(|| {
                    let mut after = before.clone();
                    after.order = q.order;
                    after.spec.priority = q.priority;
                    after
                })
            })
            .collect();
        cx.store.save_tasks(&changed)?;
        let priority = moved.iter().find(|q| &q.id == id).map_or(task.spec.priority, |q| q.priority);
        log_task(cx, &task, LogKind::TaskMoved { to_index, priority });
        for task in changed {
            report_task(cx, task);
        }
        emit_queue(cx, self.queue_status(cx, &profile_id));
        Ok(())
    }

    /// Renames a task (`title`: empty gives it its first line back) and, while
    /// it waits in its queue, gives it another instruction.
    pub fn edit(
        &mut self,
        cx: &mut Ctx,
        id: &TaskId,
        title: Option<String>,
        instruction: Option<String>,
    ) -> Result<TaskInfo, EngineError> {
        let mut task = task_of(cx, id)?;
        if instruction.is_some()
            && let Some(reason) = rules::edit_refused(task.state(), task.spec.loop_iteration.is_some())
        {
            return Err(EngineError::TaskState { task: id.clone(), state: task.state().as_str(), reason });
        }
        let title = title.as_deref().map(rules::clean_title).transpose()?;
        let instruction = instruction.as_deref().map(rules::clean_instruction).transpose()?;
        let edited = LogKind::TaskEdited { title: title.is_some(), instruction: instruction.is_some() };
        if let Some(title) = title {
            task.spec.title = title;
        }
        if let Some(instruction) = instruction {
            task.spec.instruction = instruction;
        }
        cx.store.save_task(&task)?;
        log_task(cx, &task, edited);
        report_task(cx, task.clone());
        Ok(task)
    }

    /// Queues a finished task's spec again as a new task; its first run stays
    /// in the history as it ended.
    pub fn rerun(&mut self, cx: &mut Ctx, id: &TaskId) -> Result<Submitted, EngineError> {
        let task = task_of(cx, id)?;
        if let Some(reason) = rules::rerun_refused(task.state(), task.spec.loop_iteration.is_some()) {
            return Err(EngineError::TaskState { task: id.clone(), state: task.state().as_str(), reason });
        }
        self.submit(cx, task.spec)
    }

    pub fn requeue(&mut self, cx: &mut Ctx, id: &TaskId) -> Result<TaskInfo, EngineError> {
        let mut task = task_of(cx, id)?;
        if let Some(reason) = rules::requeue_refused(task.state(), task.spec.loop_iteration.is_some()) {
            return Err(EngineError::TaskState { task: id.clone(), state: task.state().as_str(), reason });
        }
        cx.profile(&task.spec.profile_id)?;
        task.requeue(cx.store.queue_bound(&task.spec.profile_id, false)?);
        cx.store.save_task(&task)?;
        log_task(cx, &task, LogKind::TaskRequeued { app_stopped: false });
        report_task(cx, task.clone());
        let profile_id = task.spec.profile_id.clone();
        self.pump(cx, &profile_id);
        task_of(cx, id)
    }

    pub fn set_paused(&mut self, cx: &mut Ctx, profile_id: Option<ProfileId>, paused: bool) -> Result<(), EngineError> {
        let one = profile_id.is_some();
        let profiles = match profile_id {
            Some(id) => vec![cx.profile(&id)?.id],
            None => cx.store.list_profiles()?.into_iter().map(|p| p.id).collect(),
        };
        // Who paused it: this agent's own queue, or every queue at once.
        let pause = match (paused, one) {
            (false, _) => None,
            (true, true) => Some(QueuePause::User { at: now() }),
            (true, false) => Some(QueuePause::AllQueues { at: now() }),
        };
        for id in profiles {
            cx.store.set_queue_paused(&id, pause.as_ref())?;
            if paused {
                emit_queue(cx, self.queue_status(cx, &id));
            } else {
                self.pump(cx, &id);
            }
            // Its queued tasks wait for another reason now.
            report_queued(cx, &id);
        }
        Ok(())
    }

    pub fn queues(&self, cx: &Ctx) -> Result<Vec<QueueStatus>, EngineError> {
        cx.store.list_profiles()?.iter().map(|p| self.queue_status(cx, &p.id)).collect()
    }
}
