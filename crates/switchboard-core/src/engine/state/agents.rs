//! Agents and their sessions: an agent saved, checked, deleted; a session started, stopped, resumed, typed into.

use super::{EngineState, MAX_LISTED_SESSIONS};
use crate::engine::sessions::{EndWaiter, invalid_size};
use crate::engine::tasks::BeforeRestart;
use crate::error::{EngineError, Responder};
use crate::session::{Control, OutputSink, SubscriptionId};
use crate::validate;
use switchboard_api::{
    AgentPreset, EngineEvent, LogEntry, Profile, ProfileProblem, ProfileSpec, RestartTask, Restarted, ScreenSnapshot,
    SessionInfo, now,
};
use switchboard_protocol::{ProfileId, SessionId, TermSize};

impl EngineState {
    pub(in crate::engine) fn list_profiles(&self) -> Result<Vec<Profile>, EngineError> {
        Ok(self.cx.store.list_profiles()?)
    }

    pub(in crate::engine) fn create_profile(&mut self, spec: ProfileSpec) -> Result<Profile, EngineError> {
        let spec = self.valid_profile(&spec, None)?;
        let profile = Profile { id: ProfileId::new(), spec, created_at: now(), host: None };
        self.cx.store.insert_profile(&profile)?;
        self.cx.emit(EngineEvent::ProfileSaved { profile: profile.clone() });
        Ok(profile)
    }

    pub(in crate::engine) fn update_profile(
        &mut self,
        id: ProfileId,
        spec: ProfileSpec,
    ) -> Result<Profile, EngineError> {
        let existing = self.cx.profile(&id)?;
        let spec = self.valid_profile(&spec, Some(&id))?;
        self.cx.store.update_profile(&id, &spec)?;
        let profile = Profile { spec, ..existing };
        self.cx.emit(EngineEvent::ProfileSaved { profile: profile.clone() });
        // A day's budget raised lets its queue go on now.
        self.tasks.wake_held_days(&mut self.cx, Some(&id));
        Ok(profile)
    }

    pub(in crate::engine) fn check_profile(
        &self,
        id: Option<ProfileId>,
        spec: ProfileSpec,
    ) -> Result<Vec<ProfileProblem>, EngineError> {
        match self.valid_profile(&spec, id.as_ref()) {
            Ok(_) => Ok(Vec::new()),
            Err(EngineError::InvalidProfile { problems }) => Ok(problems),
            Err(other) => Err(other),
        }
    }

    pub(in crate::engine) fn agent_presets(&self) -> Result<Vec<AgentPreset>, EngineError> {
        Ok(crate::presets::presets())
    }

    /// Runs each CLI's `--version` on a blocking thread (it may take up to
    /// `detect::VERSION_TIMEOUT`), never in the engine's loop. A relative
    /// `PATH` entry is taken from the data directory.
    pub(in crate::engine) fn detected_agents(&mut self, reply: Responder<Vec<switchboard_api::DetectedAgent>>) {
        let path_env = self.path_env.clone();
        let from = self.config.data_dir.clone();
        // Detached: the reply is its only result, and a dropped reply answers `Unanswered`.
        drop(tokio::task::spawn_blocking(move || reply.send(Ok(crate::detect::detect(path_env.as_deref(), &from)))));
    }

    /// The spec as it would be stored for the profile `id` (none: a new
    /// one), or every problem with it (the name taken by another agent among them).
    pub(super) fn valid_profile(&self, spec: &ProfileSpec, id: Option<&ProfileId>) -> Result<ProfileSpec, EngineError> {
        let name = validate::normalised(spec).name;
        let name_taken = !name.is_empty() && self.cx.store.profile_name_taken(&name, id)?;
        let checked = validate::validate_profile(spec, name_taken, self.path_env.as_deref());
        // A day's budget in dollars needs a price for the agent's model.
        let profile =
            Profile { id: id.cloned().unwrap_or_else(ProfileId::new), spec: spec.clone(), created_at: 0, host: None };
        let unpriced = crate::engine::tasks::unpriced_budget(&self.cx, &profile, spec.daily_budget.as_ref())?
            .map(|message| ProfileProblem { field: switchboard_api::ProfileField::DailyBudget, message });
        match (checked, unpriced) {
            (checked, None) => checked,
            (Ok(_), Some(problem)) => Err(EngineError::InvalidProfile { problems: vec![problem] }),
            (Err(EngineError::InvalidProfile { mut problems }), Some(problem)) => {
                problems.push(problem);
                Err(EngineError::InvalidProfile { problems })
            }
            (Err(other), Some(_)) => Err(other),
        }
    }

    pub(in crate::engine) fn delete_profile(&mut self, id: ProfileId) -> Result<(), EngineError> {
        self.cx.profile(&id)?;
        if self.cx.sessions.running().any(|s| s.info.profile_id == id) || self.tasks.has_work(&id) {
            return Err(EngineError::ProfileBusy(id));
        }
        let session_ids = self.cx.store.session_ids_of_profile(&id)?;
        self.cx.store.delete_profile(&id)?;
        self.cx.sessions.remove_all(&session_ids);
        self.cx.emit(EngineEvent::ProfileDeleted { profile_id: id });
        Ok(())
    }

    pub(in crate::engine) fn list_sessions(&self) -> Result<Vec<SessionInfo>, EngineError> {
        Ok(self.cx.store.recent_sessions(MAX_LISTED_SESSIONS)?)
    }

    /// The user's start of a session in the agent's own folder: refused while
    /// one already runs there, whatever the client believed (a window that
    /// missed the engine's restart, say), so two copies of an agent never work
    /// in one folder. The engine's own starts (delegations, replies, worktree
    /// sessions) go through `Context::start_session` and are not affected.
    pub(in crate::engine) fn start_session(
        &mut self,
        profile_id: ProfileId,
        size: TermSize,
    ) -> Result<SessionInfo, EngineError> {
        let profile_id = &profile_id;
        self.refuse_second_session(profile_id)?;
        let started = self.cx.start_session(profile_id, size, None, None)?;
        self.tasks.sessions_changed(&self.cx, profile_id);
        Ok(started)
    }

    pub(super) fn refuse_second_session(&self, profile_id: &ProfileId) -> Result<(), EngineError> {
        let in_own_folder =
            self.cx.sessions.running().any(|s| &s.info.profile_id == profile_id && s.info.workspace.is_none());
        if in_own_folder {
            let agent = self.cx.profile(profile_id)?.spec.name;
            return Err(EngineError::SessionRunning { agent });
        }
        Ok(())
    }

    pub(in crate::engine) fn stop_session(&mut self, session_id: SessionId, reply: Responder<SessionInfo>) {
        if let Err((error, EndWaiter::Stop(reply) | EndWaiter::Restart(_, reply))) =
            self.cx.sessions.stop(&self.cx.store, &session_id, EndWaiter::Stop(reply))
        {
            reply.send(Err(error));
        }
    }

    pub(in crate::engine) fn resume_session(
        &mut self,
        session_id: SessionId,
        size: TermSize,
    ) -> Result<SessionInfo, EngineError> {
        let session_id = &session_id;
        if !size.is_valid() {
            return Err(invalid_size(size));
        }
        let old =
            self.cx.store.get_session(session_id)?.ok_or_else(|| EngineError::SessionNotFound(session_id.clone()))?;
        if self.cx.sessions.is_running(session_id) {
            return Err(EngineError::InvalidInput { field: "session_id", reason: "it is still running".into() });
        }
        let Some(conversation) = old.agent_session_id else {
            return Err(EngineError::InvalidInput {
                field: "session_id",
                reason: "the app does not know this agent's conversation, so it cannot be resumed".into(),
            });
        };
        let workspace = crate::engine::sessions::still_there(old.workspace.as_deref());
        if workspace.is_none() {
            self.refuse_second_session(&old.profile_id)?;
        }
        let started = self.cx.start_session(&old.profile_id, size, Some(&conversation), workspace.as_deref())?;
        self.tasks.sessions_changed(&self.cx, &old.profile_id);
        Ok(started)
    }

    /// Restarts a session. A task at work in it goes as `running_task` says
    /// (the window asks the user); without a choice while one runs, nothing
    /// is done and the caller hears why.
    pub(in crate::engine) fn restart_session(
        &mut self,
        session_id: SessionId,
        size: TermSize,
        running_task: Option<RestartTask>,
        reply: Responder<Restarted>,
    ) {
        if !size.is_valid() {
            return reply.send(Err(invalid_size(size)));
        }
        if self.cx.sessions.is_running(&session_id) {
            let profile_id = self.cx.sessions.get(&session_id).map(|entry| entry.info.profile_id.clone());
            if let Some(task_id) = self.tasks.task_of_session(&session_id) {
                let Some(choice) = running_task else {
                    return reply.send(Err(EngineError::InvalidInput {
                        field: "running_task",
                        reason: "a task runs in this session: say whether it goes back in the queue, finishes \
                                 first, or is cancelled"
                            .into(),
                    }));
                };
                match self.tasks.before_restart(&mut self.cx, &session_id, choice, size) {
                    Ok(BeforeRestart::Now) => {}
                    Ok(BeforeRestart::AfterTask) => return reply.send(Ok(Restarted::AfterTask { task_id })),
                    Err(error) => {
                        if let Some(profile_id) = &profile_id {
                            self.tasks.restart_abandoned(&mut self.cx, profile_id);
                        }
                        return reply.send(Err(error));
                    }
                }
                self.run_follows();
            }
            let reply = Responder::new(move |result: Result<SessionInfo, EngineError>| {
                reply.send(result.map(|session| Restarted::Now { session }))
            });
            if let Err((error, EndWaiter::Restart(_, reply) | EndWaiter::Stop(reply))) =
                self.cx.sessions.stop(&self.cx.store, &session_id, EndWaiter::Restart(size, reply))
            {
                if let Some(profile_id) = &profile_id {
                    self.tasks.restart_abandoned(&mut self.cx, profile_id);
                }
                reply.send(Err(error));
            }
            return;
        }
        let result = self
            .cx
            .store
            .get_session(&session_id)
            .map_err(EngineError::from)
            .and_then(|old| old.ok_or(EngineError::SessionNotFound(session_id)))
            .and_then(|old| {
                // In the same worktree, while it is there.
                let workspace = crate::engine::sessions::still_there(old.workspace.as_deref());
                self.cx.start_session(&old.profile_id, size, None, workspace.as_deref())
            })
            .map(|session| Restarted::Now { session });
        reply.send(result);
    }

    pub(in crate::engine) fn write_input(&mut self, session_id: SessionId, data: String, reply: Responder<()>) {
        let session_id = &session_id;
        self.cx.sessions.forward(&self.cx.store, session_id, reply, |reply| Control::Write(data.into_bytes(), reply));
    }

    pub(in crate::engine) fn resize(&mut self, session_id: SessionId, size: TermSize, reply: Responder<()>) {
        let session_id = &session_id;
        if !size.is_valid() {
            return reply.send(Err(invalid_size(size)));
        }
        if let Err(error) = self.cx.store.update_session_size(session_id, size) {
            tracing::warn!(%error, "recording a terminal size failed");
        }
        self.cx.sessions.forward(&self.cx.store, session_id, reply, |reply| Control::Resize(size, reply));
    }

    /// Holds a session's output back for one view that is behind, or lets it go.
    pub(in crate::engine) fn pause_view(
        &mut self,
        session_id: &SessionId,
        subscription: SubscriptionId,
        paused: bool,
    ) -> Result<(), EngineError> {
        if self.cx.sessions.send(session_id, Control::SetPaused(Some(subscription), paused)) {
            Ok(())
        } else {
            Err(self.cx.sessions.missing(&self.cx.store, session_id))
        }
    }

    pub(in crate::engine) fn set_output_paused(
        &mut self,
        session_id: SessionId,
        paused: bool,
    ) -> Result<(), EngineError> {
        let session_id = &session_id;
        if self.cx.sessions.send(session_id, Control::SetPaused(None, paused)) {
            Ok(())
        } else {
            Err(self.cx.sessions.missing(&self.cx.store, session_id))
        }
    }

    pub(in crate::engine) fn screen_snapshot(
        &mut self,
        session_id: SessionId,
        lines: u32,
        reply: Responder<ScreenSnapshot>,
    ) {
        let session_id = &session_id;
        self.cx.sessions.forward(&self.cx.store, session_id, reply, |reply| Control::Snapshot(lines as usize, reply));
    }

    pub(in crate::engine) fn attach(
        &mut self,
        session_id: &SessionId,
        sink: Box<dyn OutputSink>,
        reply: Responder<SubscriptionId>,
    ) {
        self.cx.sessions.forward(&self.cx.store, session_id, reply, |reply| Control::Attach(sink, reply));
    }

    pub(in crate::engine) fn detach(&mut self, session_id: &SessionId, subscription: SubscriptionId) {
        self.cx.sessions.send(session_id, Control::Detach(subscription));
    }

    pub(in crate::engine) fn list_events(&self, session_id: Option<SessionId>) -> Result<Vec<LogEntry>, EngineError> {
        let session_id = session_id.as_ref();
        Ok(self.cx.store.list_events(session_id)?)
    }
}
