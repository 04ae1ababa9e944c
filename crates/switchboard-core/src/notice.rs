//! What the desktop shell tells the user outside the window: a notification
//! when a task ends, and the tray's counts of working agents and agents that
//! need attention. Pure bookkeeping over engine events; the shell shows it.

use std::collections::{HashMap, HashSet, VecDeque};

use switchboard_protocol::{ProfileId, TaskId};

use crate::api::{EngineEvent, Profile, QueueStatus, TaskInfo, TaskState};

/// Task ids remembered as already notified; older ones are forgotten.
const REMEMBERED_NOTICES: usize = 1024;

/// A desktop notification to show.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notice {
    pub task_id: TaskId,
    pub title: String,
    pub body: String,
}

/// The tray's numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TrayCounts {
    /// Agents with a task at work.
    pub working: usize,
    /// Agents whose last task failed, timed out or was interrupted, and
    /// that have nothing at work now.
    pub attention: usize,
}

impl TrayCounts {
    pub fn label(&self) -> String {
        format!("{} working · {} need attention", self.working, self.attention)
    }
}

/// Follows engine events; decides notifications and tray counts.
#[derive(Debug, Default)]
pub struct Notices {
    names: HashMap<ProfileId, String>,
    queues: HashMap<ProfileId, QueueStatus>,
    last_finished: HashMap<ProfileId, TaskState>,
    notified: HashSet<TaskId>,
    notified_order: VecDeque<TaskId>,
    viewed: Option<TaskId>,
}

impl Notices {
    pub fn new(profiles: &[Profile], queues: &[QueueStatus]) -> Notices {
        Notices {
            names: profiles.iter().map(|p| (p.id.clone(), p.spec.name.clone())).collect(),
            queues: queues.iter().map(|q| (q.profile_id.clone(), q.clone())).collect(),
            ..Notices::default()
        }
    }

    /// The task the user is looking at: no notification for it.
    pub fn set_viewed(&mut self, task: Option<TaskId>) {
        self.viewed = task;
    }

    /// Takes in an event; returns the notification to show, if any.
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
                None
            }
            EngineEvent::QueueChanged { queue } => {
                self.queues.insert(queue.profile_id.clone(), queue.clone());
                None
            }
            EngineEvent::TaskChanged { task } => self.on_task(task),
            EngineEvent::SessionChanged { .. } => None,
        }
    }

    fn on_task(&mut self, task: &TaskInfo) -> Option<Notice> {
        if task.state.is_finished() {
            self.last_finished.insert(task.spec.profile_id.clone(), task.state);
        }
        let verb = match task.state {
            TaskState::Completed => "finished",
            TaskState::Failed => "failed",
            TaskState::TimedOut => "timed out",
            _ => return None,
        };
        if self.viewed.as_ref() == Some(&task.id) || !self.remember(&task.id) {
            return None;
        }
        let agent = self.names.get(&task.spec.profile_id).map_or("An agent", String::as_str);
        let first_line = task.spec.instruction.lines().next().unwrap_or_default();
        let mut body: String = first_line.chars().take(120).collect();
        if let Some(reason) = task.reason.as_deref().filter(|_| task.state != TaskState::Completed) {
            body.push_str(&format!("\n{reason}"));
        }
        Some(Notice { task_id: task.id.clone(), title: format!("{agent}: task {verb}"), body })
    }

    /// Records a notification for the task; false if it already had one.
    fn remember(&mut self, task: &TaskId) -> bool {
        if !self.notified.insert(task.clone()) {
            return false;
        }
        self.notified_order.push_back(task.clone());
        if self.notified_order.len() > REMEMBERED_NOTICES
            && let Some(old) = self.notified_order.pop_front()
        {
            self.notified.remove(&old);
        }
        true
    }

    pub fn counts(&self) -> TrayCounts {
        let working = self.queues.values().filter(|q| q.executing).count();
        let attention = self
            .last_finished
            .iter()
            .filter(|(profile, state)| {
                matches!(state, TaskState::Failed | TaskState::TimedOut | TaskState::Interrupted)
                    && !self.queues.get(*profile).is_some_and(|q| q.executing)
            })
            .count();
        TrayCounts { working, attention }
    }

    /// Whether every known queue is paused (the tray offers "resume all").
    pub fn all_paused(&self) -> bool {
        !self.queues.is_empty() && self.queues.values().all(|q| q.paused)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::TaskSpec;

    fn task(profile: &ProfileId, id: &TaskId, state: TaskState) -> TaskInfo {
        TaskInfo {
            id: id.clone(),
            spec: TaskSpec::new(profile.clone(), "Fix the login bug\nwith details"),
            state,
            order: 0,
            session_id: None,
            created_at: 0,
            started_at: None,
            typed_at: None,
            ended_at: None,
            progress: None,
            reason: (state == TaskState::TimedOut).then(|| "the time limit passed".into()),
            result: None,
        }
    }

    fn queue(profile: &ProfileId, executing: bool, paused: bool) -> EngineEvent {
        EngineEvent::QueueChanged {
            queue: QueueStatus { profile_id: profile.clone(), paused, executing, current_task: None, queued: 0 },
        }
    }

    #[test]
    fn which_task_ends_are_notified() {
        let profile = ProfileId::new();
        let changed = |state| EngineEvent::TaskChanged { task: task(&profile, &TaskId::new(), state) };
        let cases = [
            (TaskState::Queued, None),
            (TaskState::Running, None),
            (TaskState::Completed, Some("An agent: task finished")),
            (TaskState::Failed, Some("An agent: task failed")),
            (TaskState::TimedOut, Some("An agent: task timed out")),
            (TaskState::Cancelled, None),
            (TaskState::Interrupted, None),
        ];
        for (state, title) in cases {
            let mut notices = Notices::default();
            let notice = notices.apply(&changed(state));
            assert_eq!(notice.as_ref().map(|n| n.title.as_str()), title, "{state:?}");
        }
    }

    #[test]
    fn one_notice_per_task_and_none_for_the_viewed_task() {
        let profile = ProfileId::new();
        let (a, b) = (TaskId::new(), TaskId::new());
        let mut notices = Notices::default();
        notices.apply(&EngineEvent::ProfileSaved {
            profile: Profile {
                id: profile.clone(),
                spec: crate::api::ProfileSpec { name: "Builder".into(), ..Default::default() },
                created_at: 0,
            },
        });
        let done = |id| EngineEvent::TaskChanged { task: task(&profile, id, TaskState::Completed) };
        let first = notices.apply(&done(&a)).unwrap();
        assert_eq!(first.title, "Builder: task finished");
        assert_eq!(first.body, "Fix the login bug");
        assert_eq!(notices.apply(&done(&a)), None, "the same task again");

        notices.set_viewed(Some(b.clone()));
        assert_eq!(notices.apply(&done(&b)), None, "the user is looking at it");

        let timed_out =
            notices.apply(&EngineEvent::TaskChanged { task: task(&profile, &TaskId::new(), TaskState::TimedOut) });
        assert_eq!(timed_out.unwrap().body, "Fix the login bug\nthe time limit passed");
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
        assert_eq!(notices.counts(), TrayCounts { working: 1, attention: 1 });
        assert!(!notices.all_paused());
        // The failed agent takes new work: no longer needs attention.
        notices.apply(&queue(&p2, true, false));
        assert_eq!(notices.counts(), TrayCounts { working: 2, attention: 0 });
        assert_eq!(notices.counts().label(), "2 working · 0 need attention");
        for p in [&p1, &p2, &p3] {
            notices.apply(&queue(p, false, true));
        }
        assert!(notices.all_paused());
    }
}
