//! What every desk works with: the store, the event sink, the session
//! registry, and the follow-ups one desk leaves for another.
//!
//! A desk never calls another desk. When its work concerns another (a
//! completion report for the task desk, an agent's words for the signal
//! desk), it leaves a [`Follow`] here; the engine hands each to the desk it
//! is for once the current step is done.

use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;

use switchboard_protocol::{ProfileId, SessionId, TaskId, TermSize};

use super::sessions::Sessions;
use crate::error::EngineError;
use crate::sink::{EventSink, LogAbout, log};
use crate::store::{Store, StoreError};
use switchboard_api::{EngineEvent, LogKind, Millis, Profile, SessionInfo, TaskInfo, WaitingFor};

pub(crate) struct Ctx {
    pub store: Store,
    pub sink: Arc<dyn EventSink>,
    pub sessions: Sessions,
    /// Task changes the store refused (a full disk), kept as the truth until
    /// it can write them.
    pub unsaved_tasks: BTreeMap<TaskId, TaskInfo>,
    /// What each task at work waits for (the task desk's, decided by
    /// `tasks::rules::waiting_for`): live, never stored, and laid over the
    /// task wherever the desk reads or reports it.
    pub task_waits: BTreeMap<TaskId, WaitingFor>,
    /// The accounts at their usage limit (`tasks::limits`), by account; the
    /// store keeps them too.
    pub limits: BTreeMap<String, crate::limits::Limit>,
    /// Each account's usage as its CLIs last told it (`tasks::limits`), by
    /// account; the store keeps it too.
    pub usage: BTreeMap<String, crate::limits::UsageRecord>,
    /// The wall clock days are judged by.
    pub clock: crate::clock::Clock,
    /// Commits the engine's own merges made (the latest few): a branch that
    /// moves to one of them moved by the app, not by the user's work.
    pub merged_commits: VecDeque<String>,
    follows: VecDeque<Follow>,
    /// Something was reported since attention was last worked out.
    changed: std::cell::Cell<bool>,
}

/// Work one desk leaves for another.
#[derive(Debug)]
pub(crate) enum Follow {
    /// An agent's own words, from its hooks: for the signal desk to scan.
    AgentText { session: SessionId, text: String },
    /// The agent in `session` reported completion: for the task desk.
    Report { session: SessionId, report: Report },
    /// The lead's teammates are all done: a task it held may complete.
    TeamSettled { lead: SessionId },
    /// The agent's turn ended in an error: its task ends with it, unless it
    /// is a refusal the app waits out (`refusal`).
    TurnFailed { session: SessionId, error: String, refusal: Option<switchboard_protocol::limit::Refusal> },
    /// The agent's turn runs past its prompt (a tool call, its end): a
    /// refused agent asked to go on did.
    TurnRan { session: SessionId },
    /// The agent's CLI told its account's usage (Claude Code's status line).
    UsageTold { session: SessionId, windows: Vec<switchboard_protocol::rollout::UsageWindow> },
    /// The agent's turn ended (its Stop hook), with its last message.
    TurnEnded { session: SessionId, last_message: Option<String> },
    /// A loop iteration ended: for its loop's judge.
    IterationEnded { iteration: switchboard_api::LoopIteration, stop_reason: String },
    /// A loop iteration's agent ended before its prompt was typed, or could
    /// not be started (`exit`, in words; `said`, what it printed last): for
    /// its loop to retry.
    IterationFailedToStart { iteration: switchboard_api::LoopIteration, task: TaskId, exit: String, said: String },
    /// A task started in the worktree of `owner` (a task or loop): for the
    /// worktree desk.
    WorktreeInUse { owner: String },
    /// A task ended that ran (or would run) in the worktree of `owner`, if
    /// the app made one: for the worktree desk.
    WorktreeTaskEnded { owner: String },
    /// The session's hooks named a file its CLI writes the conversation to
    /// (`team`: a teammate's or sub-agent's): for the usage desk to follow.
    Transcript { session: SessionId, path: String, team: bool },
    /// A task ended so: for the automation desk (the run that made it, the
    /// chains that follow its agent).
    TaskEnded { task: TaskId, profile: ProfileId, state: switchboard_api::TaskState },
    /// A loop ended (completed, stalled, cancelled, …): for the automation
    /// desk (the run that started it).
    LoopEnded { loop_id: switchboard_protocol::LoopId },
    /// Usage was counted to these tasks and to the agent's day: for the
    /// task desk (their records told anew, their budgets).
    UsageCounted { tasks: Vec<TaskId>, profile: ProfileId },
}

/// A completion report's fields, as a task's end needs them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Report {
    pub status: String,
    pub deliverables: Vec<String>,
    pub metrics: String,
    pub recommendations: Vec<String>,
}

impl Ctx {
    pub fn new(store: Store, sink: Arc<dyn EventSink>, sessions: Sessions, clock: crate::clock::Clock) -> Self {
        Ctx {
            store,
            sink,
            sessions,
            unsaved_tasks: BTreeMap::new(),
            task_waits: BTreeMap::new(),
            limits: BTreeMap::new(),
            usage: BTreeMap::new(),
            clock,
            merged_commits: VecDeque::new(),
            follows: VecDeque::new(),
            changed: Default::default(),
        }
    }

    pub fn emit(&self, event: EngineEvent) {
        if !matches!(event, EngineEvent::Logged { .. } | EngineEvent::AttentionChanged { .. }) {
            self.changed.set(true);
        }
        self.sink.emit(event);
    }

    /// Something attention reads changed without an event through [`Ctx::emit`]
    /// (the session registry reports to the sink itself).
    pub fn mark_changed(&self) {
        self.changed.set(true);
    }

    /// Whether anything was reported since [`Ctx::settled`].
    pub fn changed(&self) -> bool {
        self.changed.get()
    }

    /// Attention has been worked out from everything reported so far.
    pub fn settled(&self) {
        self.changed.set(false);
    }

    /// Appends to the event log, and tells the window (its live flows and
    /// event panels follow the log).
    pub fn log(&self, at: Millis, about: LogAbout<'_>, kind: &LogKind) -> Result<i64, StoreError> {
        let profile = about.profile.cloned().or_else(|| {
            let session = about.session?;
            self.sessions.get(session).map(|entry| entry.info.profile_id.clone())
        });
        log(&self.store, self.sink.as_ref(), at, LogAbout { profile: profile.as_ref(), ..about }, kind)
    }

    pub fn follow(&mut self, follow: Follow) {
        self.follows.push_back(follow);
    }

    pub fn next_follow(&mut self) -> Option<Follow> {
        self.follows.pop_front()
    }

    /// The account the profile's agent works under (`crate::limits::account_of`).
    pub fn account_of(&self, id: &ProfileId) -> Option<String> {
        let profile = self.profile(id).ok()?;
        Some(crate::limits::account_of(&profile.id, &profile.spec, |name| std::env::var(name).ok()))
    }

    pub fn profile(&self, id: &ProfileId) -> Result<Profile, EngineError> {
        self.store.get_profile(id)?.ok_or_else(|| EngineError::ProfileNotFound(id.clone()))
    }

    /// Whether `session` is a delegate still at the work delegated to it.
    pub fn delegate_at_work(&self, session: &SessionId) -> bool {
        self.store.delegation_of(session).ok().flatten().is_some_and(|d| d.is_working())
    }

    /// Starts a session of the profile, in its folder or in `workspace`
    /// (see [`Sessions::start`]).
    pub fn start_session(
        &mut self,
        profile_id: &ProfileId,
        size: TermSize,
        resume: Option<&str>,
        workspace: Option<&std::path::Path>,
    ) -> Result<SessionInfo, EngineError> {
        let started = self.sessions.start(&self.store, &*self.sink, profile_id, size, resume, workspace);
        // A running session changes its agent's attention (never started or stopped: idle).
        self.mark_changed();
        started
    }

    /// The folder a session works in when it is not its agent's (a task's
    /// worktree).
    pub fn workspace_of_session(&self, session: &SessionId) -> Option<std::path::PathBuf> {
        let recorded = match self.sessions.get(session) {
            Some(entry) => entry.info.workspace.clone(),
            None => self.store.get_session(session).ok().flatten().and_then(|s| s.workspace),
        };
        recorded.map(std::path::PathBuf::from)
    }
}
