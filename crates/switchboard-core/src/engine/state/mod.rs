//! The engine task: a thin router. It owns the shared context and the
//! desks, takes requests, session ends, helper notes, watch events and
//! timers in turn, hands each to the desk it concerns, and then hands out
//! the follow-ups desks left for each other.

mod agents;
mod automations;
mod views;
mod web;
mod work;
mod worktrees;

use std::time::Duration;

use switchboard_protocol::hook::HookEnvelope;
use switchboard_protocol::{SessionId, TermSize};
use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;

use super::context::{Ctx, Follow};
use super::hooks::{HookDesk, Hooked};
use super::signals::SignalDesk;
use super::status;
use super::tasks::{TaskDesk, TaskNote};
use crate::config::EngineConfig;
use crate::error::{EngineError, Responder};
use crate::instance::InstanceLock;
use crate::server::SocketServer;
use crate::session::{SessionEnd, SessionScan};
use crate::tasks::watch::WatchEvent;
use switchboard_api::{Command, PermissionDecision, PermissionRequest, Reply, SignalChannel, now};

/// How often stale agent statuses are looked for.
const RECONCILE_INTERVAL: Duration = Duration::from_secs(15);

/// How often, while the store cannot write, a probe looks whether it can
/// again (and the window is told once it can).
const STORAGE_PROBE_INTERVAL: Duration = Duration::from_secs(1);

/// How often tasks at work are looked at for agents gone quiet.
const QUIET_CHECK_INTERVAL: Duration = Duration::from_secs(1);

/// Most sessions returned by a listing, newest kept.
pub const MAX_LISTED_SESSIONS: usize = 500;

/// A call carried out on the engine task, with the engine's state; or,
/// when the engine stopped before it came to it, with none (it then answers
/// that the engine has stopped).
pub(crate) type Call = Box<dyn FnOnce(Option<&mut EngineState>) + Send>;

/// What reaches the engine task through its handle or the socket.
pub(crate) enum Request {
    /// A command in the wire vocabulary (from the socket).
    Command(Box<Command>, Responder<Reply>),
    /// A typed call (from the handle).
    Call(Call),
    /// Stop every agent, then end the engine.
    Shutdown(oneshot::Sender<()>),
}

/// The inputs the engine task waits on besides requests.
pub(super) struct Inputs {
    pub requests: mpsc::Receiver<Request>,
    pub ended: mpsc::UnboundedReceiver<SessionEnd>,
    pub notes: mpsc::UnboundedReceiver<TaskNote>,
    pub watch_events: mpsc::UnboundedReceiver<WatchEvent>,
    pub scans: mpsc::Receiver<SessionScan>,
    pub radar: mpsc::UnboundedReceiver<super::worktrees::radar::RadarReport>,
    pub worktree_notes: mpsc::UnboundedReceiver<super::worktrees::WorktreeNote>,
    pub usage: mpsc::Receiver<crate::usage::UsageRead>,
    pub files_seen: mpsc::UnboundedReceiver<super::automations::watch::FilesSeen>,
}

pub(crate) struct EngineState {
    pub(super) cx: Ctx,
    pub(super) tasks: TaskDesk,
    pub(super) signals: SignalDesk,
    pub(super) hooks: HookDesk,
    pub(super) worktrees: super::worktrees::WorktreeDesk,
    pub(super) usage: super::usage::UsageDesk,
    pub(super) automations: super::automations::AutomationDesk,
    pub(super) attention: super::attention::AttentionBoard,
    pub(super) config: EngineConfig,
    /// The app's `PATH`, for finding agents' commands.
    pub(super) path_env: Option<std::ffi::OsString>,
    pub(super) server: Option<SocketServer>,
    /// Serving paired browsers: the desk, and what it starts a server with.
    pub(super) web: super::web::WebDesk,
    pub(super) door: Option<super::web::Door<super::WeakEngine>>,
    /// Released when the engine task ends, after every agent has stopped.
    pub(super) _instance: InstanceLock,
}

impl EngineState {
    pub(super) async fn run(mut self, mut inputs: Inputs) {
        self.take_up_last_run();
        let mut shutdown_waiters = Vec::new();
        let mut reconcile = tokio::time::interval(RECONCILE_INTERVAL.min(self.config.working_idle));
        reconcile.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut quiet_check = tokio::time::interval(QUIET_CHECK_INTERVAL);
        quiet_check.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut storage_probe = tokio::time::interval(STORAGE_PROBE_INTERVAL);
        storage_probe.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            let deadline = self.tasks.next_deadline(&self.cx);
            let permission_deadline = self.hooks.next_permission_deadline();
            let attention_round = self.cx.changed().then(|| self.attention.next_round());
            tokio::select! {
                request = inputs.requests.recv(), if shutdown_waiters.is_empty() => match request {
                    Some(Request::Shutdown(done)) => {
                        shutdown_waiters.push(done);
                        self.stop_all();
                    }
                    Some(Request::Command(command, reply)) => self.on_command(*command, reply),
                    Some(Request::Call(call)) => call(Some(&mut self)),
                    None => {
                        // Every handle is gone: nobody can stop the agents later.
                        shutdown_waiters.push(oneshot::channel().0);
                        self.stop_all();
                    }
                },
                Some(end) = inputs.ended.recv() => {
                    // A session's actor answers "typed" before it reports its end, but the two
                    // come on different channels: the notes already sent are taken first, so an
                    // agent typed to just before it exited is not taken for one never typed to
                    // (a task put back, a loop's failed start).
                    while let Ok(note) = inputs.notes.try_recv() {
                        self.tasks.on_note(&mut self.cx, note);
                    }
                    self.on_session_end(end)
                }
                Some(note) = inputs.notes.recv() => self.tasks.on_note(&mut self.cx, note),
                Some(event) = inputs.watch_events.recv() => {
                    // A summary cannot come before its task was typed: the "typed" notes
                    // already sent are taken first, so a quick agent's task is not
                    // completed as one never typed.
                    while let Ok(note) = inputs.notes.try_recv() {
                        self.tasks.on_note(&mut self.cx, note);
                    }
                    self.tasks.on_watch_event(&mut self.cx, event)
                }
                Some(report) = inputs.radar.recv() => self.worktrees.on_radar(&self.cx, report),
                Some(note) = inputs.worktree_notes.recv() => note(&mut self.worktrees, &mut self.cx),
                Some(read) = inputs.usage.recv() => self.usage.on_read(&mut self.cx, read),
                Some(seen) = inputs.files_seen.recv() => self.automations.files_seen(seen, std::time::Instant::now()),
                Some(scan) = inputs.scans.recv() => {
                    let task = self.tasks.task_of_session(&scan.id);
                    self.signals.on_signal(&mut self.cx, scan.id, SignalChannel::Pty, scan.event, task);
                }
                () = tokio::time::sleep_until(deadline.unwrap_or_else(Instant::now)), if deadline.is_some() => {
                    self.tasks.on_deadline(&mut self.cx, Instant::now());
                }
                _ = quiet_check.tick() => {
                    self.tasks.check_quiet(&mut self.cx, now());
                    self.tasks.check_workspaces(&mut self.cx);
                    self.tasks.check_unreported_turns(&mut self.cx, now());
                    self.signals.check_delegates(&mut self.cx, now());
                    self.usage.tick(&self.cx, Instant::now());
                    self.tasks.wake_held_days(&mut self.cx, None);
                    self.judge_automations();
                }
                // Reported below, after the step.
                () = tokio::time::sleep_until(attention_round.unwrap_or_else(Instant::now)), if attention_round.is_some() => {}
                _ = reconcile.tick() => {
                    status::reconcile_all(&mut self.cx, self.config.working_idle.as_millis() as i64, now());
                }
                _ = storage_probe.tick(), if self.cx.store.problem().is_some() => self.cx.store.probe_write(),
                () = tokio::time::sleep_until(permission_deadline.unwrap_or_else(Instant::now)), if permission_deadline.is_some() => {
                    self.hooks.expire_permissions(&self.cx, Instant::now());
                }
            }
            self.after_step();
            if !shutdown_waiters.is_empty() && self.cx.sessions.running_count() == 0 {
                break;
            }
        }
        self.stop(inputs.requests, shutdown_waiters);
    }

    /// Takes up what the last run left: agents to start, delegations, loops
    /// and limits, queues to move. Here rather than in `Engine::start`, so the
    /// caller (the window) does not wait for agents to spawn. Requests queue
    /// meanwhile and see them.
    fn take_up_last_run(&mut self) {
        self.start_on_launch();
        super::signals::recover_delegations(&mut self.cx);
        if let Err(error) = self.tasks.recover_loops(&mut self.cx) {
            tracing::error!(%error, "taking up the loops of the last run failed");
        }
        self.tasks.recover_limits(&mut self.cx);
        self.tasks.pump_all(&mut self.cx);
        self.automations.recover(&self.cx);
        self.run_follows();
    }

    /// What follows every step of the engine task: the follow-ups desks left,
    /// waits moved, storage and attention reported.
    fn after_step(&mut self) {
        self.run_follows();
        // A question raised or answered in this step moves its task's wait at once, not
        // at the next second's check.
        self.tasks.check_waiting(&mut self.cx, now(), Instant::now());
        self.report_storage();
        self.report_attention();
    }

    /// Ends the engine once its agents stopped: requests still queued get the
    /// answer a later one would get, then those waiting for the end are told.
    fn stop(self, mut requests: mpsc::Receiver<Request>, mut shutdown_waiters: Vec<oneshot::Sender<()>>) {
        requests.close();
        while let Ok(request) = requests.try_recv() {
            match request {
                Request::Call(call) => call(None),
                Request::Command(_, reply) => reply.send(Err(EngineError::EngineStopped)),
                Request::Shutdown(done) => shutdown_waiters.push(done),
            }
        }
        // Release the data directory (and the sessions' actors) before telling
        // anyone the engine stopped: they may start a new one on it at once.
        drop(self);
        for done in shutdown_waiters {
            done.send(()).ok();
        }
        tracing::info!("engine stopped");
    }

    /// Hands each follow-up a desk left to the desk it is for, until none
    /// is left.
    pub(super) fn run_follows(&mut self) {
        while let Some(follow) = self.cx.next_follow() {
            match follow {
                Follow::AgentText { session, text } => {
                    let task = self.tasks.task_of_session(&session);
                    if let Err(error) = self.signals.agent_text(&mut self.cx, session, &text, task) {
                        tracing::warn!(%error, "an agent's words could not be scanned");
                    }
                }
                Follow::Report { session, report } => self.tasks.report_arrived(&mut self.cx, &session, report),
                Follow::TeamSettled { lead } => self.tasks.team_settled(&mut self.cx, &lead),
                Follow::TurnFailed { session, error, refusal } => {
                    self.tasks.turn_failed(&mut self.cx, &session, &error, refusal, &[])
                }
                Follow::TurnRan { session } => self.tasks.turn_ran(&mut self.cx, &session),
                Follow::UsageTold { session, windows } => self.tasks.usage_told_by(&mut self.cx, &session, &windows),
                Follow::TurnEnded { session, last_message } => {
                    self.usage.look();
                    self.tasks.turn_ended(&mut self.cx, &session, last_message.as_deref())
                }
                Follow::Transcript { session, path, team } => self.usage.follow(&self.cx, &session, &path, team),
                Follow::UsageCounted { tasks, profile } => self.tasks.usage_counted(&mut self.cx, &tasks, &profile),
                Follow::IterationEnded { iteration, stop_reason } => {
                    self.tasks.iteration_ended(&mut self.cx, &iteration, &stop_reason)
                }
                Follow::IterationFailedToStart { iteration, task, exit, said } => {
                    self.tasks.iteration_failed_to_start(&mut self.cx, &iteration, &task, exit, said, Instant::now())
                }
                Follow::WorktreeInUse { owner } => self.worktrees.in_use(&self.cx, &owner),
                Follow::WorktreeTaskEnded { owner } => self.worktrees.task_ended(&self.cx, &owner),
                Follow::TaskEnded { task, profile, state } => self.automations_after(&task, &profile, state),
                Follow::LoopEnded { loop_id } => self.automations.loop_ended(&mut self.cx, &loop_id),
            }
        }
    }

    /// Answers with `call`'s result once the follow-ups it left are done,
    /// so the caller sees everything it caused.
    pub(super) fn answer<T: Send + 'static>(
        &mut self,
        reply: Responder<T>,
        call: impl FnOnce(&mut Self) -> Result<T, EngineError>,
    ) {
        let result = call(self);
        self.run_follows();
        reply.send(result);
    }

    // ---- worktrees ----

    // ---- profiles ----

    // ---- sessions ----

    fn on_session_end(&mut self, end: SessionEnd) {
        let (id, killed) = (end.id.clone(), end.killed);
        let state = self.cx.sessions.end(&self.cx.store, &*self.cx.sink, end);
        self.cx.mark_changed();
        self.tasks.on_session_end(&mut self.cx, &id, killed, &state);
        self.signals.session_ended(&mut self.cx, &id, &state);
        status::session_ended(&mut self.cx, &id);
        self.hooks.close_permissions_of(&self.cx, &id);
        self.usage.session_ended(&id);
        status::teammate_gone(&mut self.cx, &id);
    }

    fn stop_all(&mut self) {
        self.tasks.quit();
        self.signals.quit();
        self.cx.sessions.stop_all();
    }

    fn start_on_launch(&mut self) {
        let profiles = match self.cx.store.list_profiles() {
            Ok(profiles) => profiles,
            Err(error) => {
                tracing::error!(%error, "listing profiles to start on launch failed");
                return;
            }
        };
        for profile in profiles.into_iter().filter(|p| p.spec.start_on_launch) {
            if let Err(error) = self.start_session(profile.id.clone(), TermSize::DEFAULT) {
                tracing::warn!(profile = %profile.spec.name, %error, "starting an agent on launch failed");
            }
        }
    }

    // ---- tasks ----

    // ---- signals ----

    // ---- loops ----

    pub(super) fn agent_text(&mut self, session_id: SessionId, text: String) -> Result<(), EngineError> {
        let text = text.as_str();
        let task = self.tasks.task_of_session(&session_id);
        self.signals.agent_text(&mut self.cx, session_id, text, task)
    }

    // ---- hooks ----

    /// A hook event; a permission request waits for the user's decision.
    pub(super) fn hook_event(&mut self, envelope: HookEnvelope, reply: Responder<Option<PermissionDecision>>) {
        let hooked = Hooked::new(envelope);
        let result = self.hooks.on_hook(&mut self.cx, &hooked);
        self.run_follows();
        match result {
            Ok(()) if hooked.asks_permission() => self.hooks.ask_permission(&self.cx, &hooked, reply),
            other => reply.send(other.map(|()| None)),
        }
    }

    // ---- flows ----

    pub(super) fn list_permission_requests(&self) -> Result<Vec<PermissionRequest>, EngineError> {
        Ok(self.hooks.list_permission_requests())
    }

    pub(super) fn decide_permission(
        &mut self,
        request_id: u64,
        allow: bool,
        message: Option<String>,
    ) -> Result<(), EngineError> {
        self.hooks.decide_permission(&self.cx, request_id, PermissionDecision { allow, message })
    }
}
