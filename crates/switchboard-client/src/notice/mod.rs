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

mod delivery;
mod page;
mod told;
mod tray;

pub use delivery::{
    Action, BURST_WINDOW_MS, Delivery, Lasting, Slot, Urgency, delivery, handled, on_screen, slot_for, style,
};
use delivery::{Ended, grouped};
pub use page::page_notice;
use told::{loop_key, on_storage};
pub use tray::TrayCounts;

use std::collections::{HashMap, HashSet, VecDeque};

use switchboard_api::protocol::{LoopId, ProfileId, SignalId, TaskId};

use switchboard_api::Settings;
use switchboard_api::{
    AgentAttention, Attention, EngineEvent, LoopInfo, LoopState, Millis, Profile, QueueStatus, SignalRecord,
    TaskRecord, Viewing,
};

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
    /// What a window started for this notice opens once loaded (none: the
    /// window alone).
    pub fn opens(&self) -> Option<switchboard_api::OpenTarget> {
        match self {
            NoticeTarget::Task(id) => Some(switchboard_api::OpenTarget::Task(id.clone())),
            NoticeTarget::Signal(id) => Some(switchboard_api::OpenTarget::Signal(id.clone())),
            NoticeTarget::Loop(id) => Some(switchboard_api::OpenTarget::Loop(id.clone())),
            NoticeTarget::Window => None,
        }
    }

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
    /// A loop completed, stopped at its cap, or failed to start.
    LoopEnded,
    /// A loop stalled: the same stop reason again and again.
    LoopStalled,
    /// A task's agent went quiet past its alert.
    AgentQuiet,
    /// The app cannot record its work: not a choice, and shown even in
    /// quiet hours, since the user has to act.
    Storage,
    /// Two agents' worktrees change the same file (told once per pair).
    Overlap,
    /// Agents reached their account's usage limit (told once per account
    /// and limit), or went on after it.
    UsageLimit,
    /// The app tells of itself (the window closed into the tray, once).
    App,
}

/// What the tray says in place of its counts while the window cannot reach
/// the engine (the window's banner says the rest).
pub const ENGINE_STOPPED: &str = "The engine stopped";

/// A desktop notification to show.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notice {
    pub kind: NoticeKind,
    pub target: NoticeTarget,
    /// The agent it is about (none: the app itself).
    pub agent: Option<ProfileId>,
    /// What it is about, in a few words (a task's first line, quoted), for
    /// a notification that tells several.
    pub subject: Option<String>,
    /// What happened ("Task completed", "Loop stalled").
    pub title: String,
    /// To what: the agent and the task, loop or question, and why.
    pub body: String,
    /// The words on its action, which opens `target` ("Open task", "Answer").
    pub action: &'static str,
}

impl Notice {
    /// Said the first time the window is closed: the app, and the agents, go on.
    pub fn closed_to_tray() -> Notice {
        Notice::new(
            NoticeKind::App,
            NoticeTarget::Window,
            "Switchboard is still running",
            "Your agents keep working. Open the window again, or quit, from the tray icon.",
        )
    }

    fn new(kind: NoticeKind, target: NoticeTarget, title: impl Into<String>, body: impl Into<String>) -> Notice {
        let action = target.open_label();
        Notice { kind, target, agent: None, subject: None, title: title.into(), body: body.into(), action }
    }

    fn about(mut self, agent: &ProfileId) -> Notice {
        self.agent = Some(agent.clone());
        self
    }

    /// The body for a notification server that reads markup in bodies (the
    /// freedesktop `body-markup` capability): the same text, escaped, so a
    /// task named "Fix <Input> & focus" shows as typed instead of as a tag.
    pub fn body_as_markup(&self) -> String {
        self.body.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
    }
}

/// Follows engine events; decides notifications and tray counts.
#[derive(Debug, Default)]
pub struct Notices {
    names: HashMap<ProfileId, String>,
    queues: HashMap<ProfileId, QueueStatus>,
    /// Each agent's attention, as the engine reports it.
    attention: HashMap<ProfileId, Attention>,
    /// Tasks whose agent went quiet, per agent.
    quiet_tasks: HashMap<TaskId, ProfileId>,
    /// The first line of each task not finished yet, to name the task a
    /// signal comes from.
    open_tasks: HashMap<TaskId, String>,
    notified: HashSet<String>,
    notified_order: VecDeque<String>,
    /// What the window shows, and whether it has the focus.
    viewing: Viewing,
    /// What each slot shows (its kind), as far as the app knows.
    live: HashMap<Slot, NoticeKind>,
    /// The task ends of the current burst, oldest first.
    burst: Vec<Ended>,
    /// The user's settings, for which notices show.
    settings: Settings,
}

impl Notices {
    pub fn new(
        profiles: &[Profile],
        queues: &[QueueStatus],
        signals: &[SignalRecord],
        loops: &[LoopInfo],
        attention: &[AgentAttention],
    ) -> Notices {
        let stalled = loops.iter().filter(|l| matches!(l.state, LoopState::Stalled { .. }));
        Notices {
            names: profiles.iter().map(|p| (p.id.clone(), p.spec.name.clone())).collect(),
            queues: queues.iter().map(|q| (q.profile_id.clone(), q.clone())).collect(),
            attention: attention.iter().map(|a| (a.profile_id.clone(), a.attention.clone())).collect(),
            notified: signals.iter().map(|s| s.id.to_string()).chain(stalled.map(loop_key)).collect(),
            ..Notices::default()
        }
    }

    /// What the engine holds now that was told before the notices started
    /// (by the window before it was reopened, or by the daemon before a
    /// window came): an account's limit, a task already flagged quiet, two
    /// worktrees already found to meet. A change to one of them (a limit's
    /// next phase, a quiet task's progress) is not told again as new.
    pub fn already_told(
        &mut self,
        limits: &[switchboard_api::AccountLimit],
        tasks: &[TaskRecord],
        worktrees: &[switchboard_api::WorktreeInfo],
    ) {
        for limit in limits {
            self.notified.insert(format!("limit:{}:{}", limit.account, limit.since));
            if limit.phase == switchboard_api::LimitPhase::AsksUser {
                self.notified.insert(format!("limit:{}:{}:asks", limit.account, limit.since));
            }
        }
        for task in tasks {
            if let Some(since) = task.quiet_since {
                self.notified.insert(format!("quiet:{}:{since}", task.id));
                self.quiet_tasks.insert(task.id.clone(), task.spec.profile_id.clone());
            }
        }
        for worktree in worktrees {
            for overlap in &worktree.overlaps {
                let pair = if worktree.task < overlap.with {
                    (&worktree.task, &overlap.with)
                } else {
                    (&overlap.with, &worktree.task)
                };
                self.notified.insert(format!("overlap:{}:{}", pair.0, pair.1));
            }
        }
    }

    /// The user's settings as they are now (at start; later they come as
    /// `SettingsChanged` events).
    /// The user's settings the notices follow.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    pub fn set_settings(&mut self, settings: Settings) {
        self.settings = settings;
    }

    /// Takes in an event that came at `minute_of_day` (local time, minutes
    /// past midnight) and `now`; returns what to do with the desktop's
    /// notifications: the notice it makes, if the user's settings let it show
    /// now and the user is not looking at it, in its slot (task ends close
    /// together grouped), and what it settles closed. The tray's counts follow
    /// the event either way.
    pub fn follow(&mut self, event: &EngineEvent, minute_of_day: u16, now: Millis) -> Vec<Action> {
        let mut actions = self.settled_by(event);
        if let Some(notice) = self.apply(event)
            && delivery(notice.kind, &self.settings, minute_of_day) == Delivery::Show
            && !on_screen(&self.viewing, notice.agent.as_ref())
        {
            actions.extend(self.place(notice, now));
        }
        actions
    }

    /// What the window shows now; what the user now looks at in a focused
    /// window is closed.
    pub fn set_viewing(&mut self, viewing: Viewing) -> Vec<Action> {
        self.viewing = viewing;
        let agent = self.viewing.profile_id.clone();
        match agent {
            Some(agent) if on_screen(&self.viewing, Some(&agent)) => self.close(Slot::Agent(agent)),
            _ => Vec::new(),
        }
    }

    fn close(&mut self, slot: Slot) -> Vec<Action> {
        match self.live.remove(&slot) {
            Some(_) => vec![Action::Close { slot }],
            None => Vec::new(),
        }
    }

    /// What an event settles: an agent's attention moving on from what its
    /// notification waits for, the app recording its work again.
    fn settled_by(&mut self, event: &EngineEvent) -> Vec<Action> {
        match event {
            EngineEvent::AttentionChanged { profile_id, attention } => {
                let slot = Slot::Agent(profile_id.clone());
                match self.live.get(&slot) {
                    Some(kind) if handled(*kind, attention) => self.close(slot),
                    _ => Vec::new(),
                }
            }
            EngineEvent::StorageChanged { problem: None } => self.close(Slot::App),
            EngineEvent::ProfileDeleted { profile_id } => self.close(Slot::Agent(profile_id.clone())),
            _ => Vec::new(),
        }
    }

    /// Puts a notice in its slot: a task end joins the burst it comes in.
    fn place(&mut self, notice: Notice, now: Millis) -> Vec<Action> {
        let live = notice.agent.as_ref().and_then(|agent| self.live.get(&Slot::Agent(agent.clone()))).copied();
        let slot = slot_for(&notice, live);
        let notice = match slot {
            Slot::Finished => {
                // A burst is the ends within a few seconds of its first: a steady stream of
                // ends makes one notification every few seconds, each replacing the last.
                if self.burst.first().is_none_or(|first| now - first.at > BURST_WINDOW_MS) {
                    self.burst.clear();
                }
                let agent = notice.agent.as_ref().map_or("An agent", |agent| self.agent(agent)).to_owned();
                let failed = if notice.kind == NoticeKind::TaskFailed { " (failed)" } else { "" };
                let task = match &notice.target {
                    NoticeTarget::Task(_) => notice.subject.clone().unwrap_or_default(),
                    _ => String::new(),
                };
                let line = format!("{agent}: {task}{failed}");
                self.burst.push(Ended { at: now, notice, line });
                grouped(&self.burst)
            }
            Slot::Agent(_) | Slot::App => notice,
        };
        let (urgency, lasting) = style(notice.kind);
        self.live.insert(slot.clone(), notice.kind);
        vec![Action::Show { slot, notice, urgency, lasting }]
    }

    /// Takes in an event; returns the notification it makes, if any, whatever
    /// the user's settings and the window say of it (see [`Notices::follow`]).
    pub fn apply(&mut self, event: &EngineEvent) -> Option<Notice> {
        match event {
            EngineEvent::ProfileSaved { profile } => {
                self.names.insert(profile.id.clone(), profile.spec.name.clone());
                None
            }
            EngineEvent::ProfileDeleted { profile_id } => {
                self.names.remove(profile_id);
                self.queues.remove(profile_id);
                self.attention.remove(profile_id);
                self.quiet_tasks.retain(|_, profile| profile != profile_id);
                None
            }
            EngineEvent::QueueChanged { queue } => {
                self.queues.insert(queue.profile_id.clone(), queue.clone());
                None
            }
            EngineEvent::TaskChanged { task } => self.on_task(task),
            EngineEvent::SignalChanged { signal } => self.on_signal(signal),
            EngineEvent::AttentionChanged { profile_id, attention } => {
                self.attention.insert(profile_id.clone(), attention.clone());
                None
            }
            EngineEvent::SettingsChanged { settings } => {
                self.settings = settings.clone();
                None
            }
            EngineEvent::PermissionRequested { .. }
            | EngineEvent::PermissionClosed { .. }
            | EngineEvent::DelegationChanged { .. }
            | EngineEvent::AgentStatusChanged { .. }
            | EngineEvent::SessionChanged { .. }
            | EngineEvent::WebChanged { .. }
            | EngineEvent::AutomationChanged { .. }
            | EngineEvent::AutomationRemoved { .. }
            | EngineEvent::DevicesChanged { .. } => None,
            EngineEvent::Logged { entry, profile_id } => match &entry.kind {
                switchboard_api::LogKind::BudgetNear { budget, used_percent } => {
                    self.on_budget_near(entry, profile_id.as_ref(), budget, *used_percent)
                }
                switchboard_api::LogKind::AutomationPaused { name, why } => {
                    self.on_automation_paused(entry, profile_id.as_ref(), name, why)
                }
                _ => None,
            },
            EngineEvent::LoopChanged { info } => self.on_loop(info),
            EngineEvent::WorktreeChanged { worktree } => self.on_worktree(worktree),
            EngineEvent::LimitChanged { limit } => self.on_limit(limit),
            EngineEvent::UsageChanged { .. } => None,
            EngineEvent::UsageWarning { account: _, profiles, window } => Some(self.on_usage_warning(profiles, window)),
            EngineEvent::LimitLifted { account, profiles, by_user, at_reset } => {
                self.on_limit_lifted(account, profiles, *by_user, *at_reset)
            }
            EngineEvent::StorageChanged { problem } => problem.as_ref().map(on_storage),
            EngineEvent::SignalsFlooding { profile_id, limit, oldest_pending, .. } => {
                self.on_flooding(profile_id, *limit, oldest_pending.as_ref())
            }
        }
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

    /// The tray's counts, from each agent's attention.
    pub fn counts(&self) -> TrayCounts {
        TrayCounts::of(self.attention.values())
    }

    /// Whether every known queue is paused (the tray offers "resume all").
    pub fn all_paused(&self) -> bool {
        !self.queues.is_empty() && self.queues.values().all(|q| q.paused)
    }
}

#[cfg(test)]
mod tests {
    use super::delivery::{COMPLETED_SHOWN_MS, FAILED_SHOWN_MS};
    use super::*;
    use switchboard_api::protocol::loops::Completion;
    use switchboard_api::protocol::summary::SummaryStatus;
    use switchboard_api::{StorageProblem, TaskSpec, TaskState};

    /// A signal just raised, as the engine reports it.
    fn pending_signal(
        session: switchboard_protocol::SessionId,
        profile: ProfileId,
        task: Option<TaskId>,
        channel: switchboard_api::SignalChannel,
        scan: switchboard_protocol::signal::ScanEvent,
        at: Millis,
    ) -> SignalRecord {
        switchboard_api::SignalInfo::pending(session, profile, task, channel, scan, at).into()
    }

    fn task(profile: &ProfileId, id: &TaskId, state: TaskState) -> TaskRecord {
        let spec = TaskSpec::new(profile.clone(), "Fix the login bug\nwith details");
        let mut task = switchboard_api::TaskInfo::queued(id.clone(), spec, 0, 0);
        if state != TaskState::Queued {
            task.start(switchboard_protocol::SessionId::new(), 0);
        }
        if state.is_finished() {
            let reason = if state == TaskState::TimedOut { "the time limit passed" } else { "it stopped" };
            let result = switchboard_api::TaskResult {
                summary: switchboard_protocol::summary::parse_summary(""),
                fallback: state != TaskState::Completed,
                artifacts: Vec::new(),
                rejected: Vec::new(),
                results_json: None,
                errors: None,
            };
            task.end(state, 1, Some(reason.into()), Some(result));
        }
        task.into()
    }

    fn queue(profile: &ProfileId, executing: bool, paused: bool) -> EngineEvent {
        EngineEvent::QueueChanged {
            queue: QueueStatus {
                profile_id: profile.clone(),
                paused,
                pause: None,
                executing,
                current_task: None,
                queued: 0,
                current_session: None,
            },
        }
    }

    fn named(profile: &ProfileId, name: &str) -> EngineEvent {
        EngineEvent::ProfileSaved {
            profile: Profile {
                id: profile.clone(),
                spec: switchboard_api::ProfileSpec { name: name.into(), ..Default::default() },
                created_at: 0,
                host: None,
            },
        }
    }

    /// Minutes past midnight of "HH:MM".
    fn at(clock: &str) -> u16 {
        switchboard_api::minute_of_day(clock).unwrap()
    }

    fn quiet_hours(from: &str, to: &str) -> Settings {
        Settings {
            quiet_hours: switchboard_api::QuietHours::Daily { from: from.into(), to: to.into() },
            ..Settings::default()
        }
    }

    #[test]
    fn delivery_follows_the_users_choices_and_quiet_hours() {
        use NoticeKind::*;
        let all_off = Settings {
            notify: switchboard_api::NotifyChoices {
                task_completed: false,
                task_failed: false,
                needs_answer: false,
                loop_ended: false,
                agent_quiet: false,
                usage_limit: false,
            },
            ..Settings::default()
        };
        let only_failures_off = Settings {
            notify: switchboard_api::NotifyChoices { task_failed: false, ..Default::default() },
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
            (UsageLimit, &all_off, "10:00", Delivery::Off),
            (UsageLimit, &Settings::default(), "10:00", Delivery::Show),
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

    /// The notice an event shows, if any.
    fn shown(actions: Vec<Action>) -> Option<Notice> {
        actions.into_iter().find_map(|action| match action {
            Action::Show { notice, .. } => Some(notice),
            Action::Close { .. } => None,
        })
    }

    #[test]
    fn a_notice_switched_off_or_in_quiet_hours_is_not_shown() {
        let profile = ProfileId::new();
        let failed = |id: TaskId| EngineEvent::TaskChanged { task: task(&profile, &id, TaskState::Failed) };
        let mut notices = Notices::default();
        notices.apply(&queue(&profile, false, false));
        // Failures switched off, by the event the engine sends when the user saves.
        let off = Settings {
            notify: switchboard_api::NotifyChoices { task_failed: false, ..Default::default() },
            ..Settings::default()
        };
        notices.apply(&EngineEvent::SettingsChanged { settings: off });
        assert_eq!(shown(notices.follow(&failed(TaskId::new()), at("10:00"), 0)), None);
        let done = EngineEvent::TaskChanged { task: task(&profile, &TaskId::new(), TaskState::Completed) };
        assert!(shown(notices.follow(&done, at("10:00"), 0)).is_some(), "completions still show");

        // Quiet hours: held while they last, shown after them.
        let mut notices = Notices::default();
        notices.apply(&queue(&profile, false, false));
        notices.set_settings(quiet_hours("22:00", "07:00"));
        let first = TaskId::new();
        assert_eq!(shown(notices.follow(&failed(first.clone()), at("23:15"), 0)), None);
        assert_eq!(shown(notices.follow(&failed(first.clone()), at("08:00"), 0)), None, "held is not shown later");
        let told = shown(notices.follow(&failed(TaskId::new()), at("08:00"), 0)).expect("after quiet hours");
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
            if let Some(result) = &mut ended.result {
                result.summary.status = said;
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
        iteration.spec.loop_iteration = Some(switchboard_api::LoopIteration { loop_id: LoopId::new(), number: 1 });
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
    fn one_notice_per_task() {
        let profile = ProfileId::new();
        let a = TaskId::new();
        let mut notices = Notices::default();
        let done = |id| EngineEvent::TaskChanged { task: task(&profile, id, TaskState::Completed) };
        let first = notices.apply(&done(&a)).unwrap();
        assert_eq!(first.target, NoticeTarget::Task(a.clone()));
        assert_eq!(first.agent, Some(profile.clone()));
        assert_eq!(notices.apply(&done(&a)), None, "the same task again");
    }

    #[test]
    fn a_pending_signal_notifies_once() {
        let profile = ProfileId::new();
        let scan = switchboard_protocol::signal::scan_all(
            b"[CLARIFICATION_NEEDED]\nquestions:\n  - Which auth strategy?\n[/CLARIFICATION_NEEDED]",
        )
        .pop()
        .unwrap();
        let session = switchboard_protocol::SessionId::new();
        let mut signal = pending_signal(session, profile.clone(), None, switchboard_api::SignalChannel::Pty, scan, 0);
        let mut notices = Notices::default();
        let notice = notices.apply(&EngineEvent::SignalChanged { signal: signal.clone() }).unwrap();
        assert_eq!((&notice.target, notice.action), (&NoticeTarget::Signal(signal.id.clone()), "Answer"));
        assert_eq!(
            (notice.title.as_str(), notice.body.as_str()),
            ("An agent needs your answer", "Which auth strategy?")
        );
        assert_eq!(notices.apply(&EngineEvent::SignalChanged { signal: signal.clone() }), None);
        signal.state = switchboard_api::SignalState::Handled;
        signal.handled_at = Some(1);
        signal.response = Some(switchboard_api::SignalResponse::Answer { answers: vec!["OAuth".into()] });
        assert_eq!(notices.apply(&EngineEvent::SignalChanged { signal: signal.clone() }), None);
        // Known at start: not notified again.
        (signal.state, signal.handled_at, signal.response) = (switchboard_api::SignalState::Pending, None, None);
        let mut restarted = Notices::new(&[], &[], std::slice::from_ref(&signal), &[], &[]);
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
        let signal = pending_signal(
            switchboard_protocol::SessionId::new(),
            profile.clone(),
            Some(id),
            switchboard_api::SignalChannel::Pty,
            scan,
            0,
        );
        let notice = notices.apply(&EngineEvent::SignalChanged { signal }).unwrap();
        assert_eq!(notice.title, "Asker needs your answer");
        assert_eq!(notice.body, "On “Fix the login bug”: Which auth strategy? (and 1 more)");
    }

    #[test]
    fn the_tray_counts_each_agents_attention() {
        let task_id = TaskId::new();
        let needs = Attention::NeedsYou {
            need: switchboard_api::Need::Asks,
            since: 1,
            task_id: None,
            task: None,
            signal_id: None,
            waiting: 1,
        };
        let stalled = Attention::Stalled {
            stall: switchboard_api::Stall::Quiet { task_id: task_id.clone(), task: "Port".into() },
            since: 1,
        };
        let failed =
            Attention::Failed { count: 2, task_id: task_id.clone(), task: "Port".into(), reason: None, since: 1 };
        let working = Attention::Working { task_id: None, task: None, since: None };
        let idle = Attention::Idle { since: None };
        let stopped = Attention::Stopped { since: None, ended: None, failed: 2 };
        let limited = |until| Attention::Limited {
            account: "~/.claude".into(),
            until,
            retry_at: 0,
            since: 0,
            task_id: None,
            task: None,
        };
        // 14:05 and 13:20 UTC on a day in 2026.
        let (later, sooner) = (1_795_615_500_000, 1_795_612_800_000);
        let (limited_later, limited_sooner, limited_unknown) =
            (limited(Some(later)), limited(Some(sooner)), limited(None));
        let cases: [(&[&Attention], TrayCounts, &str); 6] = [
            (&[], TrayCounts::default(), "0 working · 0 need you"),
            (&[&idle, &stopped], TrayCounts::default(), "0 working · 0 need you"),
            (
                &[&needs, &working, &working],
                TrayCounts { working: 2, needs_you: 1, ..TrayCounts::default() },
                "2 working · 1 needs you",
            ),
            (
                &[&needs, &needs, &stalled, &failed, &working, &idle],
                TrayCounts { working: 1, needs_you: 2, stalled: 1, failed: 1, ..TrayCounts::default() },
                "1 working · 2 need you · 1 may be stuck · 1 failed",
            ),
            // Agents at their usage limit, with the first known reset.
            (
                &[&limited_later, &limited_unknown, &limited_sooner, &working],
                TrayCounts { working: 1, limited: 3, limited_until: Some(sooner), ..TrayCounts::default() },
                "1 working · 0 need you · 3 at usage limit until 13:20",
            ),
            (
                &[&limited_unknown],
                TrayCounts { limited: 1, ..TrayCounts::default() },
                "0 working · 0 need you · 1 at usage limit",
            ),
        ];
        for (agents, counts, label) in cases {
            assert_eq!(TrayCounts::of(agents.iter().copied()), counts, "{agents:?}");
            assert_eq!(counts.label_at(0), label);
        }
        // Several machines' agents in one tray: counted together, the first reset first.
        let here = TrayCounts::of([&needs, &working, &limited_later]);
        let there = TrayCounts::of([&working, &failed, &limited_sooner, &limited_unknown]);
        assert_eq!(
            here.and(there),
            TrayCounts { working: 2, needs_you: 1, failed: 1, limited: 3, limited_until: Some(sooner), stalled: 0 }
        );
        assert_eq!(here.and(TrayCounts::default()), here);
        // The tray follows the engine's word.
        let (p1, p2) = (ProfileId::new(), ProfileId::new());
        let mut notices = Notices::new(
            &[],
            &[],
            &[],
            &[],
            &[switchboard_api::AgentAttention { profile_id: p1.clone(), attention: working.clone() }],
        );
        assert_eq!(notices.counts().working, 1);
        notices.apply(&EngineEvent::AttentionChanged { profile_id: p2, attention: failed });
        notices.apply(&EngineEvent::AttentionChanged { profile_id: p1, attention: needs });
        assert_eq!(notices.counts(), TrayCounts { needs_you: 1, failed: 1, ..TrayCounts::default() });
    }

    #[test]
    fn all_paused() {
        let (p1, p2) = (ProfileId::new(), ProfileId::new());
        let mut notices = Notices::default();
        assert!(!notices.all_paused(), "no queue: nothing to resume");
        notices.apply(&queue(&p1, false, true));
        notices.apply(&queue(&p2, true, false));
        assert!(!notices.all_paused());
        notices.apply(&queue(&p2, false, true));
        assert!(notices.all_paused());
    }

    #[test]
    fn loops_notify_when_they_stall_or_end_once_each() {
        use switchboard_api::protocol::loops::LoopSettings;
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
            spent: Default::default(),
            budget_used: None,
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
        // Resumed, it is no longer stalled; stalling again is told again.
        info.state = LoopState::Active;
        apply(&mut notices, &info);
        info.state = LoopState::Stalled { at: 9, repeated: 5, reason: "error: 3 tests fail".into() };
        assert!(apply(&mut notices, &info).is_some());
        info.state = LoopState::Complete { at: 12, why: Completion::MaxIterations { max: 10 } };
        let capped = apply(&mut notices, &info).expect("the cap is told");
        assert_eq!(capped.title, "Loop stopped at its cap");
        assert_eq!(
            capped.body,
            "An agent did not finish “Make the tests pass”: it reached its cap of 10 iterations without the work said done"
        );
        info.state = LoopState::Cancelled { at: 13 };
        assert_eq!(apply(&mut notices, &info), None, "the user cancelled it: no news");
        // A stalled loop known at start is not told again.
        info.state = LoopState::Stalled { at: 20, repeated: 5, reason: "same".into() };
        let mut restarted = Notices::new(&[], &[], &[], std::slice::from_ref(&info), &[]);
        assert_eq!(apply(&mut restarted, &info), None);
    }

    /// Reopened (a window after a close, the daemon's notices after a
    /// window): what was told before is not told again as new.
    #[test]
    fn what_was_told_before_a_reopen_is_not_told_again() {
        let (profile, id) = (ProfileId::new(), TaskId::new());
        let mut quiet = task(&profile, &id, TaskState::Running);
        quiet.quiet_since = Some(1_000);
        let limit = switchboard_api::AccountLimit {
            account: "team".into(),
            profiles: vec![profile.clone()],
            since: 5,
            until: None,
            retry_at: 9,
            passed: 0,
            phase: switchboard_api::LimitPhase::Waiting,
        };
        let mut reopened = Notices::default();
        reopened.already_told(std::slice::from_ref(&limit), std::slice::from_ref(&quiet), &[]);
        // The same stall, its task changing meanwhile; the same limit, in its next phase.
        assert_eq!(reopened.apply(&EngineEvent::TaskChanged { task: quiet.clone() }), None);
        let resuming = switchboard_api::AccountLimit {
            phase: switchboard_api::LimitPhase::Resuming { profile_id: profile.clone() },
            ..limit.clone()
        };
        assert_eq!(reopened.apply(&EngineEvent::LimitChanged { limit: resuming }), None);
        // What is new is told: a new stall, a new limit.
        quiet.quiet_since = Some(2_000);
        assert!(reopened.apply(&EngineEvent::TaskChanged { task: quiet }).is_some());
        assert!(
            reopened
                .apply(&EngineEvent::LimitChanged { limit: switchboard_api::AccountLimit { since: 6, ..limit } })
                .is_some()
        );
    }

    #[test]
    fn a_quiet_agent_is_told_once_per_stall() {
        let (profile, id) = (ProfileId::new(), TaskId::new());
        let mut notices = Notices::default();
        let mut running = task(&profile, &id, TaskState::Running);
        assert_eq!(notices.apply(&EngineEvent::TaskChanged { task: running.clone() }), None);
        running.quiet_since = Some(1_000);
        let quiet = notices.apply(&EngineEvent::TaskChanged { task: running.clone() }).expect("told");
        assert_eq!((&quiet.target, quiet.title.as_str()), (&NoticeTarget::Task(id.clone()), "Agent may be stuck"));
        assert_eq!(
            quiet.body,
            "An agent has shown no output and no hook event for a while, working on “Fix the login bug”"
        );
        assert_eq!(notices.apply(&EngineEvent::TaskChanged { task: running.clone() }), None, "once");
        running.quiet_since = None;
        notices.apply(&EngineEvent::TaskChanged { task: running.clone() });
        running.quiet_since = Some(9_000);
        assert!(notices.apply(&EngineEvent::TaskChanged { task: running.clone() }).is_some(), "a new stall is told");
        // Its end is told as usual.
        let ended = notices.apply(&EngineEvent::TaskChanged { task: task(&profile, &id, TaskState::Failed) });
        assert!(ended.is_some_and(|n| n.title == "Task failed"));
    }

    /// What a list of actions does, in short: "show <slot> <urgency> <title>" or "close <slot>".
    fn said(actions: &[Action], agents: &[(&ProfileId, &str)]) -> Vec<String> {
        let slot_name = |slot: &Slot| match slot {
            Slot::Agent(id) => agents.iter().find(|(a, _)| *a == id).map_or("?", |(_, name)| name).to_owned(),
            Slot::Finished => "finished".to_owned(),
            Slot::App => "app".to_owned(),
        };
        actions
            .iter()
            .map(|action| match action {
                Action::Show { slot, notice, urgency, lasting } => {
                    let stays = if *lasting == Lasting::UntilHandled { "stays" } else { "goes" };
                    format!("show {} {urgency:?} {stays}: {}", slot_name(slot), notice.title)
                }
                Action::Close { slot } => format!("close {}", slot_name(slot)),
            })
            .collect()
    }

    #[test]
    fn how_each_kind_is_shown() {
        use NoticeKind::*;
        let cases = [
            (NeedsAnswer, Urgency::Critical, Lasting::UntilHandled),
            (AgentQuiet, Urgency::Critical, Lasting::UntilHandled),
            (LoopStalled, Urgency::Critical, Lasting::UntilHandled),
            (Storage, Urgency::Critical, Lasting::UntilHandled),
            (TaskFailed, Urgency::Normal, Lasting::Transient(FAILED_SHOWN_MS)),
            (LoopEnded, Urgency::Normal, Lasting::Transient(COMPLETED_SHOWN_MS)),
            (TaskCompleted, Urgency::Low, Lasting::Transient(COMPLETED_SHOWN_MS)),
        ];
        for (kind, urgency, lasting) in cases {
            assert_eq!(style(kind), (urgency, lasting), "{kind:?}");
        }
        let (needs, working) = (
            Attention::NeedsYou {
                need: switchboard_api::Need::Asks,
                since: 0,
                task_id: None,
                task: None,
                signal_id: None,
                waiting: 1,
            },
            Attention::Working { task_id: None, task: None, since: None },
        );
        let stalled = Attention::Stalled {
            stall: switchboard_api::Stall::Quiet { task_id: TaskId::new(), task: "Port".into() },
            since: 0,
        };
        let cases = [
            (NeedsAnswer, &needs, false),
            (NeedsAnswer, &stalled, true),
            (NeedsAnswer, &working, true),
            (AgentQuiet, &stalled, false),
            (AgentQuiet, &needs, true),
            (LoopStalled, &working, true),
            (TaskCompleted, &working, false),
        ];
        for (kind, now, closes) in cases {
            assert_eq!(handled(kind, now), closes, "{kind:?} when {now:?}");
        }
    }

    #[test]
    fn notifications_are_replaced_grouped_held_and_closed() {
        let (builder, reviewer) = (ProfileId::new(), ProfileId::new());
        let agents = [(&builder, "Builder"), (&reviewer, "Reviewer")];
        let question = |profile: &ProfileId| {
            let scan = switchboard_protocol::signal::scan_all(
                b"[CLARIFICATION_NEEDED]\nquestions:\n  - Which auth strategy?\n[/CLARIFICATION_NEEDED]",
            )
            .pop()
            .unwrap();
            let signal = pending_signal(
                switchboard_protocol::SessionId::new(),
                profile.clone(),
                None,
                switchboard_api::SignalChannel::Pty,
                scan,
                0,
            );
            EngineEvent::SignalChanged { signal }
        };
        let ended =
            |profile: &ProfileId, state| EngineEvent::TaskChanged { task: task(profile, &TaskId::new(), state) };
        let attention = |profile: &ProfileId, attention: Attention| EngineEvent::AttentionChanged {
            profile_id: profile.clone(),
            attention,
        };
        let working = Attention::Working { task_id: None, task: None, since: None };
        let needs = Attention::NeedsYou {
            need: switchboard_api::Need::Asks,
            since: 0,
            task_id: None,
            task: None,
            signal_id: None,
            waiting: 1,
        };
        let looking_at =
            |profile: &ProfileId, focused| Viewing { profile_id: Some(profile.clone()), task_id: None, focused };
        let loop_info = LoopInfo {
            id: LoopId::new(),
            profile_id: builder.clone(),
            settings: switchboard_protocol::loops::LoopSettings::new("Make the tests pass"),
            created_at: 0,
            state: LoopState::Complete { at: 3, why: Completion::MaxIterations { max: 3 } },
            iterations: Vec::new(),
            iteration_count: 0,
            iterations_run: 0,
            spent: Default::default(),
            budget_used: None,
        };

        #[allow(clippy::large_enum_variant)] // a test table: built once
        enum Step {
            Event(EngineEvent, Millis),
            View(Viewing),
        }
        use Step::*;
        let steps: Vec<(&str, Step, Vec<&str>)> = vec![
            (
                "a question: in the agent's place, critical, until answered",
                Event(question(&builder), 0),
                vec!["show Builder Critical stays: Builder needs your answer"],
            ),
            (
                "a second question replaces the first in place",
                Event(question(&builder), 1_000),
                vec!["show Builder Critical stays: Builder needs your answer"],
            ),
            (
                "the engine agrees it needs the user: nothing to close",
                Event(attention(&builder, needs.clone()), 1_100),
                vec![],
            ),
            (
                "a loop's end does not take the place of a question waiting",
                Event(EngineEvent::LoopChanged { info: loop_info.clone() }, 20_000),
                vec!["show finished Normal goes: Loop stopped at its cap"],
            ),
            (
                "answered: the question's notification closes",
                Event(attention(&builder, working.clone()), 30_000),
                vec!["close Builder"],
            ),
            (
                "a task ends",
                Event(ended(&builder, TaskState::Completed), 40_000),
                vec!["show finished Low goes: Task completed"],
            ),
            (
                "another within seconds: one notification for both",
                Event(ended(&reviewer, TaskState::Completed), 42_000),
                vec!["show finished Low goes: 2 tasks finished"],
            ),
            (
                "and a failure: the group says so",
                Event(ended(&reviewer, TaskState::Failed), 44_000),
                vec!["show finished Normal goes: 3 tasks finished, 1 failed"],
            ),
            (
                "a task ending later than a few seconds after the burst began starts another",
                Event(ended(&builder, TaskState::Completed), 46_000),
                vec!["show finished Low goes: Task completed"],
            ),
            ("the user looks at the Builder, focused", View(looking_at(&builder, true)), vec![]),
            ("nothing for the agent on screen", Event(ended(&builder, TaskState::Completed), 70_000), vec![]),
            ("nor its questions", Event(question(&builder), 71_000), vec![]),
            (
                "another agent's question shows",
                Event(question(&reviewer), 72_000),
                vec!["show Reviewer Critical stays: Reviewer needs your answer"],
            ),
            ("the window loses the focus", View(looking_at(&builder, false)), vec![]),
            (
                "the agent on screen is told again once the user is away",
                Event(ended(&builder, TaskState::Failed), 90_000),
                vec!["show finished Normal goes: Task failed"],
            ),
            (
                "the user opens the Reviewer: its question closes",
                View(looking_at(&reviewer, true)),
                vec!["close Reviewer"],
            ),
            (
                "the app cannot record its work: stays until it can",
                Event(EngineEvent::StorageChanged { problem: Some(StorageProblem::ReadOnly) }, 95_000),
                vec!["show app Critical stays: Switchboard cannot record its work"],
            ),
            ("it can again: closed", Event(EngineEvent::StorageChanged { problem: None }, 96_000), vec!["close app"]),
        ];
        let mut notices = Notices::default();
        notices.apply(&named(&builder, "Builder"));
        notices.apply(&named(&reviewer, "Reviewer"));
        for (case, step, expected) in steps {
            let actions = match step {
                Event(event, now) => notices.follow(&event, at("10:00"), now),
                View(viewing) => notices.set_viewing(viewing),
            };
            assert_eq!(said(&actions, &agents), expected, "{case}");
        }
        // The group names the tasks and their agents, the latest few.
        let mut notices = Notices::default();
        notices.apply(&named(&builder, "Builder"));
        let mut last = None;
        for n in 0..5 {
            last = shown(notices.follow(&ended(&builder, TaskState::Completed), at("10:00"), n * 1_000));
        }
        let last = last.unwrap();
        assert_eq!(last.title, "5 tasks finished");
        assert_eq!(
            last.body,
            "Builder: “Fix the login bug”\nBuilder: “Fix the login bug”\nBuilder: “Fix the login bug”\nand 2 more"
        );
    }

    #[test]
    fn two_worktrees_that_change_the_same_file_are_told_once_naming_which_to_merge_first() {
        use switchboard_api::{WorktreeInfo, WorktreeOverlap, WorktreeState};
        let profile = ProfileId::new();
        let (first, second) = (TaskId::new(), TaskId::new());
        let worktree = |task: &TaskId, title: &str, other: &TaskId, other_title: &str, first: bool| WorktreeInfo {
            task: task.to_string(),
            title: title.into(),
            loop_id: None,
            profile_id: profile.clone(),
            agent: "Builder".into(),
            repository: "/work/repo".into(),
            branch: "switchboard/builder/x".into(),
            base: "main".into(),
            path: "/data/worktrees/x".into(),
            created_at: 1,
            state: WorktreeState::Conflicting,
            state_text: "changes files other work changes".into(),
            base_conflict: Vec::new(),
            behind: 0,
            files_changed: 2,
            conflicts_with: vec![other.to_string()],
            overlaps: vec![WorktreeOverlap {
                with: other.to_string(),
                with_title: other_title.into(),
                files: vec!["src/lib.rs".into(), "src/main.rs".into()],
                meeting_hunks: 1,
                merge_first: first,
            }],
            merge_conflict: Vec::new(),
            patch: None,
            task_at_work: None,
        };
        let mut notices = Notices::default();
        let a = worktree(&first, "Fix login", &second, "Add search", true);
        let told = notices.apply(&EngineEvent::WorktreeChanged { worktree: a.clone() }).expect("told");
        assert_eq!(told.title, "Two agents change the same file");
        assert_eq!(
            told.body,
            "“Fix login” and “Add search” both change src/lib.rs and 1 more. Merging “Fix login” first is the smaller conflict."
        );
        assert_eq!(told.target, NoticeTarget::Task(first.clone()));
        // Once per pair, whichever of the two reports it next.
        assert_eq!(notices.apply(&EngineEvent::WorktreeChanged { worktree: a }), None);
        let b = worktree(&second, "Add search", &first, "Fix login", false);
        assert_eq!(notices.apply(&EngineEvent::WorktreeChanged { worktree: b }), None);
        // A worktree alone tells nothing.
        let alone = WorktreeInfo {
            overlaps: Vec::new(),
            conflicts_with: Vec::new(),
            ..worktree(&first, "x", &second, "y", true)
        };
        assert_eq!(notices.apply(&EngineEvent::WorktreeChanged { worktree: alone.clone() }), None);
        // Come to conflict with its base: told once, in its state's words.
        let conflicting = WorktreeInfo {
            state: WorktreeState::ConflictsWithBase,
            state_text: "conflicts with main now in src/lib.rs".into(),
            base_conflict: vec!["src/lib.rs".into()],
            behind: 1,
            ..alone
        };
        let told = notices.apply(&EngineEvent::WorktreeChanged { worktree: conflicting.clone() }).expect("told");
        assert_eq!(told.title, "A worktree conflicts with its base");
        assert_eq!(
            told.body,
            "“x” conflicts with main now in src/lib.rs. Its agent can resolve it: Resolve with the agent, in its changes."
        );
        assert_eq!(notices.apply(&EngineEvent::WorktreeChanged { worktree: conflicting }), None);
    }

    #[test]
    fn a_lifted_limit_says_how_it_lifted_never_a_reset_it_did_not_know() {
        let lead = ProfileId::new();
        let profile = Profile {
            id: lead.clone(),
            spec: switchboard_api::ProfileSpec { name: "Lead".into(), ..Default::default() },
            created_at: 0,
            host: None,
        };
        let limit = |until| switchboard_api::AccountLimit {
            account: "team".into(),
            profiles: vec![lead.clone()],
            since: 1,
            until,
            retry_at: 2,
            passed: 0,
            phase: switchboard_api::LimitPhase::Waiting,
        };
        let cases = [
            (Some(5), false, true, "Lead goes on: its usage limit has reset."),
            (None, false, false, "Lead goes on: tried again after its usage limit, it works again."),
            (None, true, false, "Lead goes on: as you asked."),
        ];
        for (until, by_user, at_reset, said) in cases {
            let mut notices = Notices::default();
            notices.apply(&EngineEvent::ProfileSaved { profile: profile.clone() });
            notices.apply(&EngineEvent::LimitChanged { limit: limit(until) }).expect("the limit is told");
            let lifted =
                EngineEvent::LimitLifted { account: "team".into(), profiles: vec![lead.clone()], by_user, at_reset };
            assert_eq!(notices.apply(&lifted).expect("its lifting is told").body, said);
        }
    }

    #[test]
    fn a_window_near_its_limit_is_told_with_the_agents_the_share_and_when_it_resets() {
        use switchboard_api::UsageWindow;
        let (lead, helper) = (ProfileId::new(), ProfileId::new());
        let mut notices = Notices::default();
        for (id, name) in [(&lead, "Lead"), (&helper, "Helper")] {
            let profile = Profile {
                id: id.clone(),
                spec: switchboard_api::ProfileSpec { name: name.into(), ..Default::default() },
                created_at: 0,
                host: None,
            };
            notices.apply(&EngineEvent::ProfileSaved { profile });
        }
        let in_hours = |hours: i64| switchboard_api::now() + hours * 3_600_000;
        let warning = |profiles: Vec<ProfileId>, minutes, resets_at| EngineEvent::UsageWarning {
            account: "~/.claude".into(),
            profiles,
            window: UsageWindow { minutes, used_percent: 85, resets_at, level: switchboard_api::UsageLevel::Warn },
        };
        let five = notices.apply(&warning(vec![lead.clone()], 300, Some(in_hours(2)))).expect("told");
        assert_eq!(five.kind, NoticeKind::UsageLimit);
        assert_eq!(five.title, "Near a usage limit");
        let clock = switchboard_api::clock_at(in_hours(2), switchboard_api::local_offset_secs(in_hours(2)));
        assert_eq!(
            five.body,
            format!(
                "Lead has used 85% of the 5-hour usage; it resets at {clock}. At the limit, their tasks wait for the reset."
            )
        );
        let week = notices
            .apply(&warning(vec![lead.clone(), helper.clone()], 10_080, Some(in_hours(24 * 3 + 1))))
            .expect("told");
        assert!(
            week.body.starts_with("Lead and Helper have used 85% of the weekly usage; it resets in 3 days."),
            "{}",
            week.body
        );
        let unknown = notices.apply(&warning(vec![helper], 10_080, None)).expect("told");
        assert_eq!(
            unknown.body,
            "Helper has used 85% of the weekly usage. At the limit, their tasks wait for the reset."
        );
    }

    #[test]
    fn a_budget_near_its_end_is_told_once_and_a_task_over_budget_says_so() {
        let coder = ProfileId::new();
        let mut notices = Notices::default();
        let profile = Profile {
            id: coder.clone(),
            spec: switchboard_api::ProfileSpec { name: "Coder".into(), ..Default::default() },
            created_at: 0,
            host: None,
        };
        notices.apply(&EngineEvent::ProfileSaved { profile });
        let id = TaskId::new();
        notices.apply(&EngineEvent::TaskChanged { task: task(&coder, &id, TaskState::Running) });
        let near = |seq| EngineEvent::Logged {
            entry: switchboard_api::LogEntry {
                seq,
                at: 1,
                session_id: None,
                task_id: Some(id.clone()),
                kind: switchboard_api::LogKind::BudgetNear { budget: "50,000 tokens".into(), used_percent: 85 },
            },
            profile_id: Some(coder.clone()),
        };
        let told = notices.apply(&near(7)).expect("told");
        assert_eq!((told.kind, told.title.as_str()), (NoticeKind::UsageLimit, "Near a budget"));
        assert_eq!(
            told.body,
            "Coder has used 85% of the budget of “Fix the login bug” (50,000 tokens). At all of it, the work ends over budget."
        );
        assert_eq!(told.target, NoticeTarget::Task(id.clone()));
        assert_eq!(notices.apply(&near(7)), None, "the same entry is told once");

        let mut over = task(&coder, &id, TaskState::OverBudget);
        over.reason = Some("it used its budget of 50,000 tokens (52,120 tokens used)".into());
        let ended = notices.apply(&EngineEvent::TaskChanged { task: over }).expect("told");
        assert_eq!((ended.kind, ended.title.as_str()), (NoticeKind::TaskFailed, "Task over budget"));
        assert_eq!(
            ended.body,
            "Coder did not finish “Fix the login bug” within its budget: it used its budget of 50,000 tokens (52,120 tokens used)"
        );
    }
}
