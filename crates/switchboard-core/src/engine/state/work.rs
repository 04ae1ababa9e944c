//! The agents' work as the window asks about it: tasks, queues, settings, attention, limits, signals, loops.

use super::EngineState;
use crate::engine::signals::{SignalDesk, TaskNow, task_now};
use crate::error::EngineError;
use crate::validate::validate_settings;
use switchboard_api::{
    EngineEvent, LogEntry, QueueStatus, SignalRecord, SignalResponse, Submitted, TaskRecord, TaskSpec, now,
};
use switchboard_api::{ToolAnswer, ToolCall};
use switchboard_protocol::signal::teach::Tools;
use switchboard_protocol::signal::tools::{Tool, checked};
use switchboard_protocol::{ProfileId, SessionId, SignalId, TaskId};
use tokio::time::Instant;

impl EngineState {
    /// A session's own tools server: its hello, or a tool its agent called.
    /// Only the session's secret speaks for it.
    pub(in crate::engine) fn session_tool(
        &mut self,
        session_id: SessionId,
        secret: String,
        call: ToolCall,
    ) -> Result<ToolAnswer, EngineError> {
        let entry = self.cx.sessions.known(&self.cx.store, &session_id).filter(|e| e.is_spoken_for_by(Some(&secret)));
        let Some(entry) = entry else {
            tracing::warn!(session = %session_id, "refused a tool call without its session's secret");
            return Err(EngineError::NotThisSession);
        };
        let (tool, arguments) = match call {
            ToolCall::Hello { client } => {
                tracing::info!(session = %session_id, client = client.as_deref().unwrap_or("?"), "its tools started");
                entry.tools = Tools::Started;
                return Ok(ToolAnswer { text: "Switchboard knows this session's tools started.".into(), data: None });
            }
            ToolCall::Call { tool, arguments } => (tool, arguments),
        };
        let Some(tool) = Tool::named(&tool) else {
            let reason = format!("Switchboard has no tool `{tool}`");
            return Err(EngineError::InvalidInput { field: "tool", reason });
        };
        let task = self.tasks.task_of_session(&session_id);
        let entry_profile = entry.info.profile_id.clone();
        let answer = match tool {
            Tool::CurrentTask => {
                checked(Tool::CurrentTask, &arguments)
                    .map_err(|p| EngineError::InvalidInput { field: p.field, reason: p.reason })?;
                let teammates = entry.team.teammates.iter().chain(&entry.team.delegates).cloned().collect();
                let task = task.map(|id| self.cx.store.get_task(&id)).transpose()?.flatten();
                let time_left = self.tasks.time_left(&session_id);
                let done_by = self.cx.profile(&entry_profile)?.spec.completion;
                task_now(&TaskNow { task: task.as_ref(), done_by, time_left, teammates })
            }
            Tool::AddFinding => SignalDesk::add_finding(&mut self.cx, &session_id, &arguments)?,
            _ => self.signals.tool_signal(&mut self.cx, session_id, tool, &arguments, task)?,
        };
        self.run_follows();
        Ok(answer)
    }

    pub(in crate::engine) fn submit_task(&mut self, spec: TaskSpec) -> Result<Submitted, EngineError> {
        self.tasks.submit(&mut self.cx, spec)
    }

    pub(in crate::engine) fn list_tasks(&self, profile_id: Option<ProfileId>) -> Result<Vec<TaskRecord>, EngineError> {
        let profile_id = profile_id.as_ref();
        Ok(self.tasks.list(&self.cx, profile_id)?.into_iter().map(TaskRecord::from).collect())
    }

    pub(in crate::engine) fn get_task(&self, task_id: TaskId) -> Result<TaskRecord, EngineError> {
        let task_id = &task_id;
        self.tasks.get(&self.cx, task_id).map(TaskRecord::from)
    }

    pub(in crate::engine) fn cancel_task(&mut self, task_id: TaskId) -> Result<TaskRecord, EngineError> {
        let task_id = &task_id;
        self.tasks.cancel(&mut self.cx, task_id).map(TaskRecord::from)
    }

    pub(in crate::engine) fn move_task(&mut self, task_id: TaskId, to_index: u32) -> Result<(), EngineError> {
        let task_id = &task_id;
        self.tasks.move_to(&mut self.cx, task_id, to_index)
    }

    pub(in crate::engine) fn edit_task(
        &mut self,
        task_id: TaskId,
        title: Option<String>,
        instruction: Option<String>,
    ) -> Result<TaskRecord, EngineError> {
        self.tasks.edit(&mut self.cx, &task_id, title, instruction).map(TaskRecord::from)
    }

    pub(in crate::engine) fn artifact_path(&self, task_id: TaskId, path: String) -> Result<String, EngineError> {
        let task = self.tasks.get(&self.cx, &task_id)?;
        let refused = |reason: String| EngineError::InvalidInput { field: "path", reason };
        if !task.result().is_some_and(|result| result.artifacts.iter().any(|a| a.path == path)) {
            return Err(refused("the task returned no such file".into()));
        }
        let profile = self.cx.profile(&task.spec.profile_id)?;
        let workspace = crate::engine::isolation::workspace_of_task(&self.cx, &profile, &task).ok_or_else(|| {
            refused(format!("the folder it worked in ({}, or its worktree) is gone", profile.spec.cwd))
        })?;
        let file = crate::tasks::artifacts::resolve_deliverable(&workspace, &path)
            .map_err(|refusal| refused(format!("cannot open {path}: {refusal}")))?;
        Ok(file.to_string_lossy().into_owned())
    }

    pub(in crate::engine) fn rerun_task(&mut self, task_id: TaskId) -> Result<switchboard_api::Submitted, EngineError> {
        self.tasks.rerun(&mut self.cx, &task_id)
    }

    pub(in crate::engine) fn requeue_task(&mut self, task_id: TaskId) -> Result<TaskRecord, EngineError> {
        let task_id = &task_id;
        self.tasks.requeue(&mut self.cx, task_id).map(TaskRecord::from)
    }

    pub(in crate::engine) fn type_task_now(&mut self, task_id: TaskId) -> Result<TaskRecord, EngineError> {
        self.tasks.type_now(&mut self.cx, &task_id).map(TaskRecord::from)
    }

    pub(in crate::engine) fn set_queue_paused(
        &mut self,
        profile_id: Option<ProfileId>,
        paused: bool,
    ) -> Result<(), EngineError> {
        self.tasks.set_paused(&mut self.cx, profile_id, paused)
    }

    pub(in crate::engine) fn list_queues(&self) -> Result<Vec<QueueStatus>, EngineError> {
        self.tasks.queues(&self.cx)
    }

    pub(in crate::engine) fn storage_status(&self) -> Result<switchboard_api::StorageStatus, EngineError> {
        let spool = crate::config::spool_path(&self.config.data_dir);
        Ok(switchboard_api::StorageStatus {
            data_dir: self.config.data_dir.display().to_string(),
            problem: self.cx.store.problem(),
            hook_events_set_aside: self.hooks.set_aside() as u32,
            set_aside_file: spool.with_file_name(crate::engine::hooks::SPOOL_QUARANTINE_FILE).display().to_string(),
        })
    }

    pub(in crate::engine) fn get_settings(&self) -> Result<switchboard_api::Settings, EngineError> {
        Ok(self.cx.store.settings()?)
    }

    /// Checks and keeps the settings, then tells the window and the shell.
    pub(in crate::engine) fn set_settings(
        &mut self,
        settings: switchboard_api::Settings,
    ) -> Result<switchboard_api::Settings, EngineError> {
        let settings = validate_settings(&settings)?;
        let before = self.cx.store.settings().unwrap_or_default();
        let warned_at = before.usage_warn_percent;
        self.cx.store.save_settings(&settings, now())?;
        // Costs follow the table: what was counted is priced again.
        if settings.prices != before.prices {
            self.cx.store.reprice_usage(&settings.prices)?;
        }
        self.cx.emit(EngineEvent::SettingsChanged { settings: settings.clone() });
        if settings.usage_warn_percent != warned_at {
            self.tasks.warning_changed(&self.cx);
        }
        Ok(settings)
    }

    /// Works out each agent's attention again when something was reported,
    /// at most every so often (a timer in the loop takes what waits).
    pub(super) fn report_attention(&mut self) {
        if self.cx.changed() && self.attention.due(Instant::now()) {
            self.refresh_attention().ok();
        }
    }

    pub(super) fn refresh_attention(&mut self) -> Result<Vec<switchboard_api::AgentAttention>, EngineError> {
        self.cx.settled();
        let permissions = self.hooks.list_permission_requests();
        self.attention.refresh(&self.cx, &permissions, now()).inspect_err(|error| {
            tracing::warn!(%error, "working out the agents' attention failed");
        })
    }

    pub(in crate::engine) fn list_attention(&mut self) -> Result<Vec<switchboard_api::AgentAttention>, EngineError> {
        self.refresh_attention()
    }

    pub(in crate::engine) fn list_limits(&mut self) -> Result<Vec<switchboard_api::AccountLimit>, EngineError> {
        Ok(self.tasks.limits(&self.cx))
    }

    pub(in crate::engine) fn list_usage(&mut self) -> Result<Vec<switchboard_api::AccountUsage>, EngineError> {
        Ok(self.tasks.usage(&self.cx))
    }

    pub(in crate::engine) fn resume_agent(&mut self, profile_id: ProfileId) -> Result<(), EngineError> {
        self.tasks.resume_agent(&mut self.cx, &profile_id)
    }

    pub(in crate::engine) fn set_viewing(&mut self, viewing: switchboard_api::Viewing) -> Result<(), EngineError> {
        self.attention.set_viewing(viewing, now());
        self.refresh_attention().map(drop)
    }

    /// Tells the window when writing began to fail or works again; once it
    /// works, records what was kept meanwhile.
    pub(super) fn report_storage(&mut self) {
        let Some(problem) = self.cx.store.take_problem_change() else { return };
        match &problem {
            Some(problem) => tracing::error!(?problem, "the data can no longer be written"),
            None => {
                tracing::info!("the data can be written again");
                self.tasks.retry_unsaved(&mut self.cx);
            }
        }
        self.cx.emit(EngineEvent::StorageChanged { problem });
    }

    pub(in crate::engine) fn task_timeline(&self, task_id: TaskId) -> Result<Vec<LogEntry>, EngineError> {
        let task_id = &task_id;
        self.tasks.timeline(&self.cx, task_id)
    }

    pub(in crate::engine) fn list_signals(&self) -> Result<Vec<SignalRecord>, EngineError> {
        Ok(self.signals.list(&self.cx)?.into_iter().map(SignalRecord::from).collect())
    }

    pub(in crate::engine) fn respond_to_signal(
        &mut self,
        signal_id: SignalId,
        response: SignalResponse,
    ) -> Result<SignalRecord, EngineError> {
        let signal_id = &signal_id;
        self.signals.respond(&mut self.cx, signal_id, response).map(SignalRecord::from)
    }

    pub(in crate::engine) fn start_loop(
        &mut self,
        profile_id: ProfileId,
        settings: switchboard_protocol::loops::LoopSettings,
    ) -> Result<switchboard_api::LoopInfo, EngineError> {
        self.tasks.start_loop(&mut self.cx, &profile_id, settings)
    }

    pub(in crate::engine) fn list_loops(&self) -> Result<Vec<switchboard_api::LoopInfo>, EngineError> {
        self.tasks.list_loops(&self.cx)
    }

    pub(in crate::engine) fn get_loop(
        &self,
        loop_id: switchboard_protocol::LoopId,
    ) -> Result<switchboard_api::LoopInfo, EngineError> {
        self.tasks.get_loop(&self.cx, &loop_id)
    }

    pub(in crate::engine) fn loop_iterations(
        &self,
        loop_id: switchboard_protocol::LoopId,
        before: u32,
        limit: u32,
    ) -> Result<Vec<switchboard_api::Iteration>, EngineError> {
        self.tasks.loop_iterations(&self.cx, &loop_id, before, limit)
    }

    pub(in crate::engine) fn cancel_loop(
        &mut self,
        loop_id: switchboard_protocol::LoopId,
    ) -> Result<switchboard_api::LoopInfo, EngineError> {
        self.tasks.cancel_loop(&mut self.cx, &loop_id)
    }

    pub(in crate::engine) fn resume_loop(
        &mut self,
        loop_id: switchboard_protocol::LoopId,
    ) -> Result<switchboard_api::LoopInfo, EngineError> {
        self.tasks.resume_loop(&mut self.cx, &loop_id)
    }

    pub(in crate::engine) fn loop_files(
        &self,
        loop_id: switchboard_protocol::LoopId,
    ) -> Result<switchboard_api::LoopFiles, EngineError> {
        self.tasks.loop_files(&self.cx, &loop_id)
    }

    pub(in crate::engine) fn save_loop_file(
        &mut self,
        loop_id: switchboard_protocol::LoopId,
        file: switchboard_api::LoopFile,
        text: String,
    ) -> Result<switchboard_api::LoopFiles, EngineError> {
        self.tasks.save_loop_file(&self.cx, &loop_id, file, &text)
    }

    pub(in crate::engine) fn list_delegations(&self) -> Result<Vec<switchboard_api::Delegation>, EngineError> {
        crate::engine::signals::list_delegations(&self.cx)
    }

    pub(in crate::engine) fn keep_delegate(
        &mut self,
        session_id: SessionId,
        keep: bool,
    ) -> Result<switchboard_api::Delegation, EngineError> {
        crate::engine::signals::keep_delegate(&mut self.cx, &session_id, keep)
    }
}
