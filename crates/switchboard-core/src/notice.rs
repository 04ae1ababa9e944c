//! What the desktop shell tells the user outside the window: a notification
//! when a task ends, and the tray's counts of working agents and agents that
//! need attention. Pure bookkeeping over engine events; the shell shows it.
//!
//! A notification says what happened in its title ("Task failed") and to
//! which task of which agent in its body, in the user's words: the task by
//! the first line of its instruction, never by id, and why it ended as the
//! engine put it for people.
//!
//! The user's settings decide which notices show ([`delivery`]): each kind
//! can be switched off, and during quiet hours none shows except that the app
//! cannot record its work. A notice not shown is not kept for later: the
//! tray's counts, which follow every event whatever the settings, and the
//! window say what happened meanwhile.

use std::collections::{HashMap, HashSet, VecDeque};

use switchboard_protocol::loops::Completion;
use switchboard_protocol::signal::{ScanEvent, SignalBody};
use switchboard_protocol::summary::SummaryStatus;
use switchboard_protocol::{LoopId, ProfileId, SignalId, TaskId};

use crate::api::{
    EngineEvent, LoopInfo, LoopState, Profile, QueueStatus, SignalInfo, SignalState, TaskInfo, TaskState,
};
use crate::api::{Settings, StorageProblem};

/// Task ids remembered as already notified; older ones are forgotten.
const REMEMBERED_NOTICES: usize = 1024;

/// The most characters of a task's first line, a loop's goal or an agent's
/// question a notification shows; longer ones end in an ellipsis. A
/// notification is a glance, the window has the rest.
const SHOWN_CHARS: usize = 80;
/// The most characters of why something ended (an engine's reason, a
/// loop's last stop reason).
const REASON_CHARS: usize = 160;

/// What clicking a notification opens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NoticeTarget {
    Task(TaskId),
    Signal(SignalId),
    Loop(LoopId),
    /// Just the window (its banner says the rest).
    Window,
}

impl NoticeTarget {
    /// The words on the notification's button: what it opens.
    fn open_label(&self) -> &'static str {
        match self {
            NoticeTarget::Task(_) => "Open task",
            NoticeTarget::Signal(_) => "Open",
            NoticeTarget::Loop(_) => "Open loop",
            NoticeTarget::Window => "Open Switchboard",
        }
    }
}

/// Which of the user's notification choices a notice falls under.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoticeKind {
    /// A task completed (its summary may say partly done).
    TaskCompleted,
    /// A task failed (its summary may say so) or timed out.
    TaskFailed,
    /// An agent's signal waits for the user: a question, a blocker, a
    /// delegation, a completion report, or more of them than can wait.
    NeedsAnswer,
    /// A loop completed, stopped at its cap, or stalled.
    LoopEnded,
    /// A task's agent went quiet past its alert.
    AgentQuiet,
    /// The app cannot record its work: not a choice, and shown even in
    /// quiet hours, since the user has to act.
    Storage,
}

/// What becomes of a notice under the user's settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Delivery {
    Show,
    /// Its kind is switched off.
    Off,
    /// It came during quiet hours: not shown, and not shown later either.
    Held,
}

/// Whether a notice of `kind` shows at `minute_of_day` (local time, minutes
/// past midnight), under `settings`. A kind switched off is off at any hour;
/// quiet hours run from their start up to (not including) their end, past
/// midnight when the end comes first.
pub fn delivery(kind: NoticeKind, settings: &Settings, minute_of_day: u16) -> Delivery {
    let choices = &settings.notify;
    let chosen = match kind {
        NoticeKind::TaskCompleted => choices.task_completed,
        NoticeKind::TaskFailed => choices.task_failed,
        NoticeKind::NeedsAnswer => choices.needs_answer,
        NoticeKind::LoopEnded => choices.loop_ended,
        NoticeKind::AgentQuiet => choices.agent_quiet,
        NoticeKind::Storage => return Delivery::Show,
    };
    if !chosen {
        return Delivery::Off;
    }
    let quiet = settings.quiet_hours.span().is_some_and(|(from, to)| {
        if from <= to { (from..to).contains(&minute_of_day) } else { minute_of_day >= from || minute_of_day < to }
    });
    if quiet { Delivery::Held } else { Delivery::Show }
}

/// A desktop notification to show.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notice {
    pub kind: NoticeKind,
    pub target: NoticeTarget,
    /// What happened ("Task completed", "Loop stalled").
    pub title: String,
    /// To what: the agent and the task, loop or question, and why.
    pub body: String,
    /// The words on its action, which opens `target` ("Open task", "Answer").
    pub action: &'static str,
}

impl Notice {
    fn new(kind: NoticeKind, target: NoticeTarget, title: impl Into<String>, body: impl Into<String>) -> Notice {
        let action = target.open_label();
        Notice { kind, target, title: title.into(), body: body.into(), action }
    }

    /// The body for a notification server that reads markup in bodies (the
    /// freedesktop `body-markup` capability): the same text, escaped, so a
    /// task named "Fix <Input> & focus" shows as typed instead of as a tag.
    pub fn body_as_markup(&self) -> String {
        self.body.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
    }
}

/// The tray's numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TrayCounts {
    /// Agents with a task at work.
    pub working: usize,
    /// Agents with a signal waiting for the user, or whose last task
    /// failed, timed out or was interrupted while nothing is at work.
    pub attention: usize,
    /// Agents with a stalled loop, or a task whose agent has gone quiet
    /// past its alert.
    pub stalled: usize,
}

impl TrayCounts {
    pub fn label(&self) -> String {
        let verb = if self.attention == 1 { "needs" } else { "need" };
        let mut label = format!("{} working · {} {verb} attention", self.working, self.attention);
        if self.stalled > 0 {
            label.push_str(&format!(" · {} stalled", self.stalled));
        }
        label
    }
}

/// Follows engine events; decides notifications and tray counts.
#[derive(Debug, Default)]
pub struct Notices {
    names: HashMap<ProfileId, String>,
    queues: HashMap<ProfileId, QueueStatus>,
    last_finished: HashMap<ProfileId, TaskState>,
    /// Pending signals per agent.
    pending: HashMap<SignalId, ProfileId>,
    /// Sessions whose hooks say the agent works, or needs the user.
    hook_working: HashSet<switchboard_protocol::SessionId>,
    hook_attention: HashSet<switchboard_protocol::SessionId>,
    /// Which agent each session runs.
    session_profiles: HashMap<switchboard_protocol::SessionId, ProfileId>,
    /// Stalled loops, and tasks whose agent went quiet, per agent.
    stalled_loops: HashMap<LoopId, ProfileId>,
    quiet_tasks: HashMap<TaskId, ProfileId>,
    /// The first line of each task not finished yet, to name the task a
    /// signal comes from.
    open_tasks: HashMap<TaskId, String>,
    notified: HashSet<String>,
    notified_order: VecDeque<String>,
    viewed: Option<TaskId>,
    /// The user's settings, for which notices show.
    settings: Settings,
}

impl Notices {
    pub fn new(profiles: &[Profile], queues: &[QueueStatus], signals: &[SignalInfo], loops: &[LoopInfo]) -> Notices {
        let stalled = loops.iter().filter(|l| matches!(l.state, LoopState::Stalled { .. }));
        Notices {
            stalled_loops: stalled.clone().map(|l| (l.id.clone(), l.profile_id.clone())).collect(),
            names: profiles.iter().map(|p| (p.id.clone(), p.spec.name.clone())).collect(),
            queues: queues.iter().map(|q| (q.profile_id.clone(), q.clone())).collect(),
            pending: signals
                .iter()
                .filter(|s| s.state() == SignalState::Pending)
                .map(|s| (s.id.clone(), s.profile_id.clone()))
                .collect(),
            notified: signals.iter().map(|s| s.id.to_string()).chain(stalled.map(loop_key)).collect(),
            ..Notices::default()
        }
    }

    /// The user's settings as they are now (at start; later they come as
    /// `SettingsChanged` events).
    pub fn set_settings(&mut self, settings: Settings) {
        self.settings = settings;
    }

    /// Takes in an event that came at `minute_of_day` (local time, minutes
    /// past midnight); returns the notification to show, if there is one and
    /// the user's settings let it show now. The tray's counts follow the
    /// event either way.
    pub fn follow(&mut self, event: &EngineEvent, minute_of_day: u16) -> Option<Notice> {
        let notice = self.apply(event)?;
        match delivery(notice.kind, &self.settings, minute_of_day) {
            Delivery::Show => Some(notice),
            Delivery::Off | Delivery::Held => None,
        }
    }

    /// The task the user is looking at: no notification for it.
    pub fn set_viewed(&mut self, task: Option<TaskId>) {
        self.viewed = task;
    }

    /// Takes in an event; returns the notification it makes, if any, whatever
    /// the user's settings say of it (see [`Notices::follow`]).
    pub fn apply(&mut self, event: &EngineEvent) -> Option<Notice> {
        match event {
            EngineEvent::ProfileSaved { profile } => {
                self.names.insert(profile.id.clone(), profile.spec.name.clone());
                None
            }
            EngineEvent::ProfileDeleted { profile_id } => {
                self.names.remove(profile_id);
                self.queues.remove(profile_id);
                self.last_finished.remove(profile_id);
                self.stalled_loops.retain(|_, profile| profile != profile_id);
                self.quiet_tasks.retain(|_, profile| profile != profile_id);
                None
            }
            EngineEvent::QueueChanged { queue } => {
                self.queues.insert(queue.profile_id.clone(), queue.clone());
                None
            }
            EngineEvent::TaskChanged { task } => self.on_task(task),
            EngineEvent::SignalChanged { signal } => self.on_signal(signal),
            EngineEvent::AgentStatusChanged { status } => {
                use switchboard_protocol::hook::AgentStatus;
                self.hook_working.remove(&status.session_id);
                self.hook_attention.remove(&status.session_id);
                match status.status {
                    AgentStatus::Working => self.hook_working.insert(status.session_id.clone()),
                    AgentStatus::Attention => self.hook_attention.insert(status.session_id.clone()),
                    _ => false,
                };
                None
            }
            EngineEvent::SettingsChanged { settings } => {
                self.settings = settings.clone();
                None
            }
            EngineEvent::PermissionRequested { .. }
            | EngineEvent::PermissionClosed { .. }
            | EngineEvent::DelegationChanged { .. }
            | EngineEvent::AttentionChanged { .. }
            | EngineEvent::Logged { .. } => None,
            EngineEvent::LoopChanged { info } => self.on_loop(info),
            EngineEvent::StorageChanged { problem } => {
                let body = match problem.as_ref()? {
                    StorageProblem::Full => "The disk holding its data is full: free some space there. Agents keep \
                                             running; what their hooks report may be lost until then."
                        .to_owned(),
                    StorageProblem::ReadOnly => "Its data folder is read-only: make it writable.".to_owned(),
                    StorageProblem::Failing { detail } => detail.clone(),
                };
                Some(Notice::new(NoticeKind::Storage, NoticeTarget::Window, "Switchboard cannot record its work", body))
            }
            EngineEvent::SignalsFlooding { profile_id, limit, oldest_pending, .. } => {
                let agent = self.names.get(profile_id).map_or("An agent", String::as_str);
                Some(Notice::new(
                    NoticeKind::NeedsAnswer,
                    NoticeTarget::Signal(oldest_pending.clone()?),
                    format!("{agent} is raising more signals than can wait at once"),
                    format!(
                        "{limit} are waiting for you; the ones after them are set aside in its event log until you answer some."
                    ),
                ))
            }
            EngineEvent::SessionChanged { session } => {
                self.session_profiles.insert(session.id.clone(), session.profile_id.clone());
                None
            }
        }
    }

    fn agent(&self, profile: &ProfileId) -> &str {
        self.names.get(profile).map_or("An agent", String::as_str)
    }

    fn on_loop(&mut self, info: &LoopInfo) -> Option<Notice> {
        let (title, did) = match &info.state {
            LoopState::Stalled { .. } => {
                self.stalled_loops.insert(info.id.clone(), info.profile_id.clone());
                ("Loop stalled", "is stuck on")
            }
            LoopState::Complete { why: Completion::MaxIterations { .. }, .. } => {
                self.stalled_loops.remove(&info.id);
                ("Loop stopped at its cap", "did not finish")
            }
            LoopState::Complete { .. } => {
                self.stalled_loops.remove(&info.id);
                ("Loop complete", "finished")
            }
            LoopState::FailedToStart { .. } => {
                self.stalled_loops.remove(&info.id);
                ("Loop failed to start", "could not start")
            }
            LoopState::Active | LoopState::Cancelled { .. } => {
                self.stalled_loops.remove(&info.id);
                return None;
            }
        };
        if !self.remember(loop_key(info)) {
            return None;
        }
        let goal = quoted(&info.settings.goal);
        let mut body = format!("{} {did} {goal}", self.agent(&info.profile_id));
        if let Some(reason) = info.state.reason() {
            body.push_str(&format!(": {}", cut(&reason, REASON_CHARS)));
        }
        Some(Notice::new(NoticeKind::LoopEnded, NoticeTarget::Loop(info.id.clone()), title, body))
    }

    fn on_quiet(&mut self, task: &TaskInfo) -> Option<Notice> {
        let Some(since) = task.quiet_since() else {
            self.quiet_tasks.remove(&task.id);
            return None;
        };
        self.quiet_tasks.insert(task.id.clone(), task.spec.profile_id.clone());
        if !self.remember(format!("quiet:{}:{since}", task.id)) {
            return None;
        }
        let body = format!(
            "{} has shown no output and no hook event for a while, working on {}",
            self.agent(&task.spec.profile_id),
            quoted(&task.spec.title())
        );
        Some(Notice::new(NoticeKind::AgentQuiet, NoticeTarget::Task(task.id.clone()), "Agent may be stuck", body))
    }

    fn on_task(&mut self, task: &TaskInfo) -> Option<Notice> {
        if task.state().is_finished() {
            self.open_tasks.remove(&task.id);
        } else {
            self.open_tasks.insert(task.id.clone(), quoted(&task.spec.title()));
        }
        if task.state() == TaskState::Running || self.quiet_tasks.contains_key(&task.id) {
            let notice = self.on_quiet(task);
            if task.state() == TaskState::Running {
                return notice;
            }
        }
        if task.state().is_finished() {
            self.last_finished.insert(task.spec.profile_id.clone(), task.state());
        }
        // A loop's iterations are told by the loop, once it ends or stalls.
        if task.spec.loop_iteration.is_some() {
            return None;
        }
        // A summary that says FAILED or PARTIAL is told as such, not as "completed".
        let said = task.result().and_then(|result| result.summary.status);
        let reason = task.reason().map(|reason| cut(reason, REASON_CHARS));
        let (agent, name) = (self.agent(&task.spec.profile_id), quoted(&task.spec.title()));
        let (completed, failed) = (NoticeKind::TaskCompleted, NoticeKind::TaskFailed);
        let (kind, title, what, why) = match (task.state(), said) {
            (TaskState::Completed, Some(SummaryStatus::Failed)) => (
                failed,
                "Task failed",
                format!("{agent} could not finish {name}"),
                Some("its summary says it failed".into()),
            ),
            (TaskState::Completed, Some(SummaryStatus::Partial)) => (
                completed,
                "Task partly done",
                format!("{agent} did part of {name}"),
                Some("its summary says what is left".into()),
            ),
            (TaskState::Completed, _) => (completed, "Task completed", format!("{agent} finished {name}"), None),
            (TaskState::Failed, _) => (failed, "Task failed", format!("{agent} could not finish {name}"), reason),
            (TaskState::TimedOut, _) => {
                (failed, "Task timed out", format!("{agent} did not finish {name} in time"), reason)
            }
            _ => return None,
        };
        if self.viewed.as_ref() == Some(&task.id) || !self.remember(task.id.to_string()) {
            return None;
        }
        let body = match why {
            Some(why) => format!("{what}: {why}"),
            None => what,
        };
        Some(Notice::new(kind, NoticeTarget::Task(task.id.clone()), title, body))
    }

    fn on_signal(&mut self, signal: &SignalInfo) -> Option<Notice> {
        if signal.state() != SignalState::Pending {
            self.pending.remove(&signal.id);
            return None;
        }
        self.pending.insert(signal.id.clone(), signal.profile_id.clone());
        if !self.remember(signal.id.to_string()) {
            return None;
        }
        let agent = self.agent(&signal.profile_id);
        // What the agent was working on, when the signal came from a task.
        let on = match signal.task_id.as_ref().and_then(|task| self.open_tasks.get(task)) {
            Some(task) => format!("On {task}: "),
            None => String::new(),
        };
        let target = NoticeTarget::Signal(signal.id.clone());
        let needs = NoticeKind::NeedsAnswer;
        let notice = match &signal.scan {
            ScanEvent::Signal { signal } => match &signal.body {
                SignalBody::Clarification { questions, .. } => {
                    let first = shortened(questions.first().map_or("", String::as_str));
                    let more = match questions.len() {
                        0 | 1 => String::new(),
                        n => format!(" (and {} more)", n - 1),
                    };
                    let mut notice =
                        Notice::new(needs, target, format!("{agent} needs your answer"), format!("{on}{first}{more}"));
                    notice.action = "Answer";
                    notice
                }
                SignalBody::StopWork { blocker_type, details, .. } => Notice::new(
                    needs,
                    target,
                    format!("{agent} is blocked: {}", shortened(blocker_type)),
                    format!("{on}{}", shortened(details)),
                ),
                SignalBody::Delegate { new_task_description, .. } => Notice::new(
                    needs,
                    target,
                    format!("{agent} asks to delegate work"),
                    format!("{on}{}", shortened(new_task_description)),
                ),
                SignalBody::Completion { status, metrics_achieved, .. } => Notice::new(
                    needs,
                    target,
                    format!("{agent} reports completion: {}", shortened(status)),
                    format!("{on}{}", shortened(metrics_achieved)),
                ),
            },
            ScanEvent::Malformed { reason, .. } => Notice::new(
                needs,
                target,
                format!("{agent} printed a signal that could not be read"),
                shortened(reason),
            ),
        };
        Some(notice)
    }

    /// Records a notification for this key; false if it already had one.
    /// Keys: a task or signal id; `loop:<id>:<state>:<at>`; `quiet:<task>:<since>`.
    fn remember(&mut self, key: String) -> bool {
        if !self.notified.insert(key.clone()) {
            return false;
        }
        self.notified_order.push_back(key);
        if self.notified_order.len() > REMEMBERED_NOTICES
            && let Some(old) = self.notified_order.pop_front()
        {
            self.notified.remove(&old);
        }
        true
    }

    pub fn counts(&self) -> TrayCounts {
        let profile_of = |session| self.session_profiles.get(session);
        let mut working: HashSet<&ProfileId> =
            self.queues.values().filter(|q| q.executing).map(|q| &q.profile_id).collect();
        working.extend(self.hook_working.iter().filter_map(profile_of));
        let mut attention: HashSet<&ProfileId> = self.pending.values().collect();
        attention.extend(self.hook_attention.iter().filter_map(profile_of));
        attention.extend(self.last_finished.iter().filter_map(|(profile, state)| {
            let failed = matches!(state, TaskState::Failed | TaskState::TimedOut | TaskState::Interrupted);
            (failed && !self.queues.get(profile).is_some_and(|q| q.executing)).then_some(profile)
        }));
        let stalled: HashSet<&ProfileId> = self.stalled_loops.values().chain(self.quiet_tasks.values()).collect();
        TrayCounts { working: working.len(), attention: attention.len(), stalled: stalled.len() }
    }

    /// Whether every known queue is paused (the tray offers "resume all").
    pub fn all_paused(&self) -> bool {
        !self.queues.is_empty() && self.queues.values().all(|q| q.paused)
    }
}

/// The first line of a text, cut at [`SHOWN_CHARS`].
fn shortened(text: &str) -> String {
    cut(text, SHOWN_CHARS)
}

/// The first line of a text that is not blank, cut at `chars` characters.
fn cut(text: &str, chars: usize) -> String {
    let line = text.lines().map(str::trim).find(|line| !line.is_empty()).unwrap_or_default();
    match line.char_indices().nth(chars) {
        Some((cut, _)) => format!("{}…", line[..cut].trim_end()),
        None => line.to_owned(),
    }
}

/// A task or goal as a notification names it: its first line, in quotes.
fn quoted(text: &str) -> String {
    format!("“{}”", shortened(text))
}

/// One notification per loop ending (or stall: a resumed loop may stall again).
fn loop_key(info: &LoopInfo) -> String {
    let at = match &info.state {
        LoopState::Complete { at, .. }
        | LoopState::Stalled { at, .. }
        | LoopState::Cancelled { at }
        | LoopState::FailedToStart { at, .. } => *at,
        LoopState::Active => 0,
    };
    format!("loop:{}:{}:{at}", info.id, info.state.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::TaskSpec;

    fn task(profile: &ProfileId, id: &TaskId, state: TaskState) -> TaskInfo {
        let spec = TaskSpec::new(profile.clone(), "Fix the login bug\nwith details");
        let mut task = TaskInfo::queued(id.clone(), spec, 0, 0);
        if state != TaskState::Queued {
            task.start(switchboard_protocol::SessionId::new(), 0);
        }
        if state.is_finished() {
            let reason = if state == TaskState::TimedOut { "the time limit passed" } else { "it stopped" };
            let result = crate::api::TaskResult {
                summary: switchboard_protocol::summary::parse_summary(""),
                fallback: state != TaskState::Completed,
                artifacts: Vec::new(),
                rejected: Vec::new(),
                results_json: None,
                errors: None,
            };
            task.end(state, 1, Some(reason.into()), Some(result));
        }
        task
    }

    fn queue(profile: &ProfileId, executing: bool, paused: bool) -> EngineEvent {
        EngineEvent::QueueChanged {
            queue: QueueStatus { profile_id: profile.clone(), paused, executing, current_task: None, queued: 0 },
        }
    }

    fn named(profile: &ProfileId, name: &str) -> EngineEvent {
        EngineEvent::ProfileSaved {
            profile: Profile {
                id: profile.clone(),
                spec: crate::api::ProfileSpec { name: name.into(), ..Default::default() },
                created_at: 0,
            },
        }
    }

    /// Minutes past midnight of "HH:MM".
    fn at(clock: &str) -> u16 {
        crate::api::minute_of_day(clock).unwrap()
    }

    fn quiet_hours(from: &str, to: &str) -> Settings {
        Settings {
            quiet_hours: crate::api::QuietHours::Daily { from: from.into(), to: to.into() },
            ..Settings::default()
        }
    }

    #[test]
    fn delivery_follows_the_users_choices_and_quiet_hours() {
        use NoticeKind::*;
        let all_off = Settings {
            notify: crate::api::NotifyChoices {
                task_completed: false,
                task_failed: false,
                needs_answer: false,
                loop_ended: false,
                agent_quiet: false,
            },
            ..Settings::default()
        };
        let only_failures_off = Settings {
            notify: crate::api::NotifyChoices { task_failed: false, ..Default::default() },
            ..Settings::default()
        };
        let (night, day) = (quiet_hours("22:00", "07:00"), quiet_hours("12:00", "13:30"));
        let cases = [
            // By default every kind shows, at any hour.
            (TaskCompleted, &Settings::default(), "03:00", Delivery::Show),
            (AgentQuiet, &Settings::default(), "12:00", Delivery::Show),
            // A kind switched off is off at any hour; the others still show.
            (TaskCompleted, &all_off, "10:00", Delivery::Off),
            (TaskFailed, &all_off, "10:00", Delivery::Off),
            (NeedsAnswer, &all_off, "10:00", Delivery::Off),
            (LoopEnded, &all_off, "10:00", Delivery::Off),
            (AgentQuiet, &all_off, "10:00", Delivery::Off),
            (TaskFailed, &only_failures_off, "10:00", Delivery::Off),
            (TaskCompleted, &only_failures_off, "10:00", Delivery::Show),
            // The app unable to record its work is no choice, and not held.
            (Storage, &all_off, "10:00", Delivery::Show),
            (Storage, &night, "23:00", Delivery::Show),
            // Quiet hours past midnight: from their start, up to their end.
            (NeedsAnswer, &night, "21:59", Delivery::Show),
            (NeedsAnswer, &night, "22:00", Delivery::Held),
            (NeedsAnswer, &night, "23:59", Delivery::Held),
            (NeedsAnswer, &night, "00:00", Delivery::Held),
            (NeedsAnswer, &night, "06:59", Delivery::Held),
            (NeedsAnswer, &night, "07:00", Delivery::Show),
            (NeedsAnswer, &night, "12:00", Delivery::Show),
            // Within a day.
            (LoopEnded, &day, "11:59", Delivery::Show),
            (LoopEnded, &day, "12:00", Delivery::Held),
            (LoopEnded, &day, "13:29", Delivery::Held),
            (LoopEnded, &day, "13:30", Delivery::Show),
            (LoopEnded, &day, "23:00", Delivery::Show),
            // Switched off says off, quiet hours or not.
            (
                TaskFailed,
                &Settings { quiet_hours: night.quiet_hours.clone(), ..only_failures_off.clone() },
                "23:00",
                Delivery::Off,
            ),
        ];
        for (kind, settings, clock, expected) in cases {
            assert_eq!(delivery(kind, settings, at(clock)), expected, "{kind:?} at {clock} under {settings:?}");
        }
    }

    #[test]
    fn a_notice_switched_off_or_in_quiet_hours_is_not_shown_but_the_tray_still_counts() {
        let profile = ProfileId::new();
        let failed = |id: TaskId| EngineEvent::TaskChanged { task: task(&profile, &id, TaskState::Failed) };
        let mut notices = Notices::default();
        notices.apply(&queue(&profile, false, false));
        // Failures switched off, by the event the engine sends when the user saves.
        let off = Settings {
            notify: crate::api::NotifyChoices { task_failed: false, ..Default::default() },
            ..Settings::default()
        };
        notices.apply(&EngineEvent::SettingsChanged { settings: off });
        assert_eq!(notices.follow(&failed(TaskId::new()), at("10:00")), None);
        assert_eq!(notices.counts().attention, 1, "the tray counts it all the same");
        let done = EngineEvent::TaskChanged { task: task(&profile, &TaskId::new(), TaskState::Completed) };
        assert!(notices.follow(&done, at("10:00")).is_some(), "completions still show");

        // Quiet hours: held while they last, shown after them.
        let mut notices = Notices::default();
        notices.apply(&queue(&profile, false, false));
        notices.set_settings(quiet_hours("22:00", "07:00"));
        let first = TaskId::new();
        assert_eq!(notices.follow(&failed(first.clone()), at("23:15")), None);
        assert_eq!(notices.counts().attention, 1, "the tray counts it all the same");
        assert_eq!(notices.follow(&failed(first.clone()), at("08:00")), None, "held is not shown later");
        let told = notices.follow(&failed(TaskId::new()), at("08:00")).expect("after quiet hours");
        assert_eq!(told.title, "Task failed");
    }

    #[test]
    fn each_task_end_is_told_in_words_with_the_task_and_its_agent() {
        let profile = ProfileId::new();
        let cases = [
            (TaskState::Queued, None, None),
            (TaskState::Running, None, None),
            (TaskState::Completed, None, Some(("Task completed", "Builder finished “Fix the login bug”"))),
            (
                TaskState::Completed,
                Some(SummaryStatus::Completed),
                Some(("Task completed", "Builder finished “Fix the login bug”")),
            ),
            (
                TaskState::Completed,
                Some(SummaryStatus::Partial),
                Some(("Task partly done", "Builder did part of “Fix the login bug”: its summary says what is left")),
            ),
            (
                TaskState::Completed,
                Some(SummaryStatus::Failed),
                Some(("Task failed", "Builder could not finish “Fix the login bug”: its summary says it failed")),
            ),
            (
                TaskState::Failed,
                None,
                Some(("Task failed", "Builder could not finish “Fix the login bug”: it stopped")),
            ),
            (
                TaskState::TimedOut,
                None,
                Some(("Task timed out", "Builder did not finish “Fix the login bug” in time: the time limit passed")),
            ),
            // The user did these; nothing to tell.
            (TaskState::Cancelled, None, None),
            (TaskState::Interrupted, None, None),
        ];
        for (state, said, told) in cases {
            let id = TaskId::new();
            let mut ended = task(&profile, &id, state);
            if let Some(mut result) = ended.result().cloned() {
                result.summary.status = said;
                let reason = ended.reason().map(str::to_owned);
                ended.end(state, 2, reason, Some(result));
            }
            let mut notices = Notices::default();
            notices.apply(&named(&profile, "Builder"));
            let notice = notices.apply(&EngineEvent::TaskChanged { task: ended });
            assert_eq!(notice.as_ref().map(|n| (n.title.as_str(), n.body.as_str())), told, "{state:?} {said:?}");
            if let Some(notice) = notice {
                assert_eq!((notice.target, notice.action), (NoticeTarget::Task(id), "Open task"));
            }
        }
    }

    #[test]
    fn a_full_disk_says_what_to_do_and_promises_nothing_it_cannot_keep() {
        let mut notices = Notices::default();
        let full = notices.apply(&EngineEvent::StorageChanged { problem: Some(StorageProblem::Full) }).unwrap();
        assert_eq!(full.title, "Switchboard cannot record its work");
        // Before: "Nothing is lost meanwhile", while hook events that could
        // not be stored or spooled were lost.
        assert_eq!(
            full.body,
            "The disk holding its data is full: free some space there. Agents keep running; what their hooks \
             report may be lost until then."
        );
        assert_eq!(notices.apply(&EngineEvent::StorageChanged { problem: None }), None, "room again: nothing to show");
    }

    #[test]
    fn long_and_untidy_task_names_are_cut_to_their_first_line() {
        let profile = ProfileId::new();
        let mut notices = Notices::default();
        let mut long = task(&profile, &TaskId::new(), TaskState::Completed);
        long.spec.instruction = format!("\n  {}  \nmore", "word ".repeat(30));
        let told = notices.apply(&EngineEvent::TaskChanged { task: long }).unwrap();
        let name = told.body.strip_prefix("An agent finished “").unwrap().strip_suffix("…”").unwrap();
        assert!(name.starts_with("word word") && name.chars().count() <= SHOWN_CHARS, "{name:?}");
        assert!(!told.body.contains('\n'), "{told:?}");
    }

    #[test]
    fn a_body_sent_as_markup_shows_its_text_as_typed() {
        let mut notices = Notices::default();
        let mut done = task(&ProfileId::new(), &TaskId::new(), TaskState::Completed);
        done.spec.instruction = "Fix <Input> & focus".into();
        let notice = notices.apply(&EngineEvent::TaskChanged { task: done }).unwrap();
        assert_eq!(notice.body, "An agent finished “Fix <Input> & focus”");
        assert_eq!(notice.body_as_markup(), "An agent finished “Fix &lt;Input&gt; &amp; focus”");
    }

    #[test]
    fn a_loop_iteration_is_told_by_its_loop_not_as_a_task() {
        let profile = ProfileId::new();
        let mut iteration = task(&profile, &TaskId::new(), TaskState::Completed);
        iteration.spec.loop_iteration = Some(crate::api::LoopIteration { loop_id: LoopId::new(), number: 1 });
        assert_eq!(Notices::default().apply(&EngineEvent::TaskChanged { task: iteration }), None);
    }

    #[test]
    fn a_flooding_agent_is_one_notice_that_opens_its_oldest_signal() {
        let (profile, oldest) = (ProfileId::new(), SignalId::new());
        let flooding = |oldest_pending| EngineEvent::SignalsFlooding {
            session_id: switchboard_protocol::SessionId::new(),
            profile_id: profile.clone(),
            limit: 20,
            oldest_pending,
        };
        let notice = Notices::default().apply(&flooding(Some(oldest.clone()))).unwrap();
        assert_eq!(notice.target, NoticeTarget::Signal(oldest));
        assert_eq!(notice.title, "An agent is raising more signals than can wait at once");
        assert!(notice.body.starts_with("20 are waiting for you"), "{}", notice.body);
        assert_eq!(Notices::default().apply(&flooding(None)), None, "nothing waits: nothing to open");
    }

    #[test]
    fn one_notice_per_task_and_none_for_the_viewed_task() {
        let profile = ProfileId::new();
        let (a, b) = (TaskId::new(), TaskId::new());
        let mut notices = Notices::default();
        let done = |id| EngineEvent::TaskChanged { task: task(&profile, id, TaskState::Completed) };
        let first = notices.apply(&done(&a)).unwrap();
        assert_eq!(first.target, NoticeTarget::Task(a.clone()));
        assert_eq!(notices.apply(&done(&a)), None, "the same task again");

        notices.set_viewed(Some(b.clone()));
        assert_eq!(notices.apply(&done(&b)), None, "the user is looking at it");
        notices.set_viewed(None);
        assert!(notices.apply(&done(&TaskId::new())).is_some(), "another task, once the user looks away");
    }

    #[test]
    fn a_pending_signal_notifies_once_and_needs_attention_until_handled() {
        let profile = ProfileId::new();
        let scan = switchboard_protocol::signal::scan_all(
            b"[CLARIFICATION_NEEDED]\nquestions:\n  - Which auth strategy?\n[/CLARIFICATION_NEEDED]",
        )
        .pop()
        .unwrap();
        let session = switchboard_protocol::SessionId::new();
        let mut signal = SignalInfo::pending(session, profile.clone(), None, crate::api::SignalChannel::Pty, scan, 0);
        let mut notices = Notices::default();
        let notice = notices.apply(&EngineEvent::SignalChanged { signal: signal.clone() }).unwrap();
        assert_eq!((&notice.target, notice.action), (&NoticeTarget::Signal(signal.id.clone()), "Answer"));
        assert_eq!(
            (notice.title.as_str(), notice.body.as_str()),
            ("An agent needs your answer", "Which auth strategy?")
        );
        assert_eq!(notices.counts().attention, 1);
        assert_eq!(notices.apply(&EngineEvent::SignalChanged { signal: signal.clone() }), None);
        signal.status = crate::api::SignalStatus::Handled {
            at: 1,
            response: crate::api::SignalResponse::Answer { answers: vec!["OAuth".into()] },
            reply_prompt: None,
            delegate_session: None,
        };
        assert_eq!(notices.apply(&EngineEvent::SignalChanged { signal: signal.clone() }), None);
        assert_eq!(notices.counts().attention, 0);
        // Known at start: counted, not notified again.
        signal.status = crate::api::SignalStatus::Pending;
        let mut restarted = Notices::new(&[], &[], std::slice::from_ref(&signal), &[]);
        assert_eq!(restarted.counts().attention, 1);
        assert_eq!(restarted.apply(&EngineEvent::SignalChanged { signal }), None);
    }

    #[test]
    fn a_question_names_the_task_it_comes_from_and_how_many_more_wait() {
        let (profile, id) = (ProfileId::new(), TaskId::new());
        let scan = switchboard_protocol::signal::scan_all(
            b"[CLARIFICATION_NEEDED]\nquestions:\n  - Which auth strategy?\n  - Keep the old tokens?\n[/CLARIFICATION_NEEDED]",
        )
        .pop()
        .unwrap();
        let mut notices = Notices::default();
        notices.apply(&named(&profile, "Asker"));
        notices.apply(&EngineEvent::TaskChanged { task: task(&profile, &id, TaskState::Running) });
        let signal = SignalInfo::pending(
            switchboard_protocol::SessionId::new(),
            profile.clone(),
            Some(id),
            crate::api::SignalChannel::Pty,
            scan,
            0,
        );
        let notice = notices.apply(&EngineEvent::SignalChanged { signal }).unwrap();
        assert_eq!(notice.title, "Asker needs your answer");
        assert_eq!(notice.body, "On “Fix the login bug”: Which auth strategy? (and 1 more)");
    }

    #[test]
    fn tray_counts() {
        let (p1, p2, p3) = (ProfileId::new(), ProfileId::new(), ProfileId::new());
        let mut notices = Notices::default();
        let events = [
            queue(&p1, true, false),
            queue(&p2, false, false),
            queue(&p3, false, true),
            EngineEvent::TaskChanged { task: task(&p2, &TaskId::new(), TaskState::Failed) },
            EngineEvent::TaskChanged { task: task(&p3, &TaskId::new(), TaskState::Completed) },
        ];
        for event in &events {
            notices.apply(event);
        }
        assert_eq!(notices.counts(), TrayCounts { working: 1, attention: 1, stalled: 0 });
        assert!(!notices.all_paused());
        // The failed agent takes new work: no longer needs attention.
        notices.apply(&queue(&p2, true, false));
        assert_eq!(notices.counts(), TrayCounts { working: 2, attention: 0, stalled: 0 });
        assert_eq!(notices.counts().label(), "2 working · 0 need attention");
        assert_eq!(
            TrayCounts { working: 0, attention: 1, stalled: 2 }.label(),
            "0 working · 1 needs attention · 2 stalled"
        );
        // An agent its hooks report working counts once, queue or not; one
        // waiting on a permission needs attention.
        let session = |profile: &ProfileId| crate::api::SessionInfo {
            id: switchboard_protocol::SessionId::new(),
            profile_id: profile.clone(),
            started_at: 0,
            size: switchboard_protocol::TermSize::DEFAULT,
            state: crate::api::SessionState::Running { pid: 1 },
            agent_session_id: None,
        };
        let (s1, s3) = (session(&p1), session(&p3));
        let status = |s: &crate::api::SessionInfo, status| EngineEvent::AgentStatusChanged {
            status: crate::api::AgentStatusInfo {
                session_id: s.id.clone(),
                status,
                last_event_at: Some(1),
                team: None,
                agent_name: None,
                agent_type: None,
            },
        };
        notices.apply(&EngineEvent::SessionChanged { session: s1.clone() });
        notices.apply(&EngineEvent::SessionChanged { session: s3.clone() });
        notices.apply(&status(&s1, switchboard_protocol::hook::AgentStatus::Working));
        notices.apply(&status(&s3, switchboard_protocol::hook::AgentStatus::Attention));
        assert_eq!(notices.counts(), TrayCounts { working: 2, attention: 1, stalled: 0 });
        for p in [&p1, &p2, &p3] {
            notices.apply(&queue(p, false, true));
        }
        assert!(notices.all_paused());
    }

    #[test]
    fn loops_notify_when_they_stall_or_end_once_each_and_stalls_are_counted() {
        use switchboard_protocol::loops::LoopSettings;
        let profile = ProfileId::new();
        let mut notices = Notices::default();
        let mut info = LoopInfo {
            id: LoopId::new(),
            profile_id: profile.clone(),
            settings: LoopSettings::new("Make the tests pass"),
            created_at: 0,
            state: LoopState::Active,
            iterations: Vec::new(),
            iteration_count: 0,
            iterations_run: 0,
        };
        let apply =
            |notices: &mut Notices, info: &LoopInfo| notices.apply(&EngineEvent::LoopChanged { info: info.clone() });
        assert_eq!(apply(&mut notices, &info), None, "an active loop is no news");
        info.state = LoopState::Stalled { at: 5, repeated: 5, reason: "error: 3 tests fail".into() };
        let stalled = apply(&mut notices, &info).expect("a stall is told");
        assert_eq!((&stalled.target, stalled.action), (&NoticeTarget::Loop(info.id.clone()), "Open loop"));
        assert_eq!(stalled.title, "Loop stalled");
        assert_eq!(
            stalled.body,
            "An agent is stuck on “Make the tests pass”: the same stop reason 5 times in a row: error: 3 tests fail"
        );
        assert_eq!(apply(&mut notices, &info), None, "once");
        assert_eq!(notices.counts().stalled, 1);
        assert!(notices.counts().label().ends_with(" · 1 stalled"));
        // Resumed, it is no longer stalled; stalling again is told again.
        info.state = LoopState::Active;
        apply(&mut notices, &info);
        assert_eq!(notices.counts().stalled, 0);
        info.state = LoopState::Stalled { at: 9, repeated: 5, reason: "error: 3 tests fail".into() };
        assert!(apply(&mut notices, &info).is_some());
        info.state = LoopState::Complete { at: 12, why: Completion::MaxIterations { max: 10 } };
        let capped = apply(&mut notices, &info).expect("the cap is told");
        assert_eq!(capped.title, "Loop stopped at its cap");
        assert_eq!(
            capped.body,
            "An agent did not finish “Make the tests pass”: it reached its cap of 10 iterations without the work said done"
        );
        assert_eq!(notices.counts().stalled, 0);
        info.state = LoopState::Cancelled { at: 13 };
        assert_eq!(apply(&mut notices, &info), None, "the user cancelled it: no news");
        // A stalled loop known at start is counted, not told again.
        info.state = LoopState::Stalled { at: 20, repeated: 5, reason: "same".into() };
        let mut restarted = Notices::new(&[], &[], &[], std::slice::from_ref(&info));
        assert_eq!(restarted.counts().stalled, 1);
        assert_eq!(apply(&mut restarted, &info), None);
    }

    #[test]
    fn a_quiet_agent_is_told_once_per_stall_and_counted_until_it_shows_life() {
        let (profile, id) = (ProfileId::new(), TaskId::new());
        let mut notices = Notices::default();
        let mut running = task(&profile, &id, TaskState::Running);
        assert_eq!(notices.apply(&EngineEvent::TaskChanged { task: running.clone() }), None);
        running.set_quiet_since(Some(1_000));
        let quiet = notices.apply(&EngineEvent::TaskChanged { task: running.clone() }).expect("told");
        assert_eq!((&quiet.target, quiet.title.as_str()), (&NoticeTarget::Task(id.clone()), "Agent may be stuck"));
        assert_eq!(
            quiet.body,
            "An agent has shown no output and no hook event for a while, working on “Fix the login bug”"
        );
        assert_eq!(notices.apply(&EngineEvent::TaskChanged { task: running.clone() }), None, "once");
        assert_eq!(notices.counts().stalled, 1);
        running.set_quiet_since(None);
        notices.apply(&EngineEvent::TaskChanged { task: running.clone() });
        assert_eq!(notices.counts().stalled, 0, "it showed life");
        running.set_quiet_since(Some(9_000));
        assert!(notices.apply(&EngineEvent::TaskChanged { task: running.clone() }).is_some(), "a new stall is told");
        // Its end is told as usual, and it no longer counts as stalled.
        let ended = notices.apply(&EngineEvent::TaskChanged { task: task(&profile, &id, TaskState::Failed) });
        assert!(ended.is_some_and(|n| n.title == "Task failed"));
        assert_eq!(notices.counts().stalled, 0);
    }
}
