//! What each family of engine events tells the user: tasks, signals, loops, worktrees, usage limits, storage.

use super::{Notice, NoticeKind, NoticeTarget, Notices, REASON_CHARS, SHOWN_CHARS};
use switchboard_api::StorageProblem;
use switchboard_api::protocol::loops::Completion;
use switchboard_api::protocol::signal::{ScanEvent, SignalBody};
use switchboard_api::protocol::summary::SummaryStatus;
use switchboard_api::protocol::{ProfileId, SignalId, TaskId};
use switchboard_api::{LoopInfo, LoopState, SignalRecord, SignalState, TaskRecord, TaskState};

impl Notices {
    /// An account's usage is near its limit: its agents named, and when it resets.
    pub(super) fn on_usage_warning(&self, profiles: &[ProfileId], window: &switchboard_api::UsageWindow) -> Notice {
        let names = self.names_of(profiles);
        let resets = window.resets_at.map_or_else(String::new, |at| {
            let in_days = (at - switchboard_api::now()) / (24 * 3_600_000);
            match in_days {
                ..1 => {
                    format!("; it resets at {}", switchboard_api::clock_at(at, switchboard_api::local_offset_secs(at)))
                }
                1 => "; it resets tomorrow".to_owned(),
                days => format!("; it resets in {days} days"),
            }
        });
        let verb = if profiles.len() == 1 { "has" } else { "have" };
        Notice::new(
            NoticeKind::UsageLimit,
            NoticeTarget::Window,
            "Near a usage limit",
            format!(
                "{names} {verb} used {}% of {} usage{resets}. At the limit, their tasks wait for the reset.",
                window.used_percent,
                switchboard_api::window_name(window.minutes),
            ),
        )
    }

    /// Some work passed the notice share of its budget (told once by the
    /// engine: a task's, its loop's, or its agent's day's).
    pub(super) fn on_budget_near(
        &mut self,
        entry: &switchboard_api::LogEntry,
        profile: Option<&ProfileId>,
        budget: &str,
        used_percent: u32,
    ) -> Option<Notice> {
        if !self.remember(format!("budget:{}", entry.seq)) {
            return None;
        }
        let agent = profile.map_or_else(|| "An agent".to_owned(), |p| self.agent(p).to_owned());
        let (target, of) = match &entry.task_id {
            Some(task) => {
                let name = self.open_tasks.get(task).cloned();
                (NoticeTarget::Task(task.clone()), name.unwrap_or_else(|| "its task".to_owned()))
            }
            None => (NoticeTarget::Window, "its work".to_owned()),
        };
        let body = format!(
            "{agent} has used {used_percent}% of the budget of {of} ({budget}). At all of it, the work ends over budget."
        );
        let mut notice = Notice::new(NoticeKind::UsageLimit, target, "Near a budget", body);
        if let Some(profile) = profile {
            notice = notice.about(profile);
        }
        Some(notice)
    }

    /// An automation paused itself: its runs kept ending badly.
    pub(super) fn on_automation_paused(
        &mut self,
        entry: &switchboard_api::LogEntry,
        profile: Option<&ProfileId>,
        name: &str,
        why: &str,
    ) -> Option<Notice> {
        if !self.remember(format!("automation:{}", entry.seq)) {
            return None;
        }
        let agent = profile.map_or_else(|| "an agent".to_owned(), |p| self.agent(p).to_owned());
        let body = format!("“{name}” (for {agent}) starts nothing more until you resume it: {why}.");
        let mut notice = Notice::new(NoticeKind::TaskFailed, NoticeTarget::Window, "Automation paused", body);
        if let Some(profile) = profile {
            notice = notice.about(profile);
        }
        Some(notice)
    }

    /// An account's usage limit lifted: told only when its reaching the limit was.
    pub(super) fn on_limit_lifted(
        &mut self,
        account: &str,
        profiles: &[ProfileId],
        by_user: bool,
        at_reset: bool,
    ) -> Option<Notice> {
        let key = format!("limit:{account}:");
        if !self.notified.iter().any(|told| told.starts_with(&key)) {
            return None;
        }
        self.notified.retain(|key| !key.starts_with(&format!("limit:{account}:")));
        let names = self.names_of(profiles);
        let how = match (by_user, at_reset) {
            (true, _) => "as you asked",
            (false, true) => "its usage limit has reset",
            (false, false) => "tried again after its usage limit, it works again",
        };
        let body = match profiles.len() {
            1 => format!("{names} goes on: {how}."),
            _ => format!("{names} go on: {how}; their tasks go on one agent at a time."),
        };
        Some(Notice::new(NoticeKind::UsageLimit, NoticeTarget::Window, "Agents go on after their usage limit", body))
    }

    /// An agent raises more signals than can wait at once: the oldest waiting one opens.
    pub(super) fn on_flooding(
        &self,
        profile_id: &ProfileId,
        limit: u32,
        oldest_pending: Option<&SignalId>,
    ) -> Option<Notice> {
        let agent = self.names.get(profile_id).map_or("An agent", String::as_str);
        Some(
            Notice::new(
                NoticeKind::NeedsAnswer,
                NoticeTarget::Signal(oldest_pending?.clone()),
                format!("{agent} is raising more signals than can wait at once"),
                format!(
                    "{limit} are waiting for you; the ones after them are set aside in its event log until you answer some."
                ),
            )
            .about(profile_id),
        )
    }

    /// A worktree found changing a file another changes: told once per
    /// pair. One that came to conflict with its base: told once per
    /// conflict (its files), in the words its state is shown in everywhere.
    pub(super) fn on_worktree(&mut self, worktree: &switchboard_api::WorktreeInfo) -> Option<Notice> {
        if worktree.state == switchboard_api::WorktreeState::ConflictsWithBase
            && self.remember(format!("base-conflict:{}:{}", worktree.task, worktree.base_conflict.join("\n")))
        {
            let target = match worktree.task.parse::<TaskId>() {
                Ok(task) => NoticeTarget::Task(task),
                Err(_) => NoticeTarget::Window,
            };
            let body = format!(
                "“{}” {}. Its agent can resolve it: Resolve with the agent, in its changes.",
                worktree.title, worktree.state_text
            );
            return Some(
                Notice::new(NoticeKind::Overlap, target, "A worktree conflicts with its base", body)
                    .about(&worktree.profile_id),
            );
        }
        let overlap = worktree.overlaps.iter().find(|o| {
            let pair = if worktree.task < o.with { (&worktree.task, &o.with) } else { (&o.with, &worktree.task) };
            !self.notified.contains(&format!("overlap:{}:{}", pair.0, pair.1))
        })?;
        let pair = if worktree.task < overlap.with {
            (&worktree.task, &overlap.with)
        } else {
            (&overlap.with, &worktree.task)
        };
        if !self.remember(format!("overlap:{}:{}", pair.0, pair.1)) {
            return None;
        }
        let file = match overlap.files.as_slice() {
            [one] => one.clone(),
            [first, rest @ ..] => format!("{first} and {} more", rest.len()),
            [] => return None,
        };
        let first = if overlap.merge_first { &worktree.title } else { &overlap.with_title };
        let target = match worktree.task.parse::<TaskId>() {
            Ok(task) => NoticeTarget::Task(task),
            Err(_) => NoticeTarget::Window,
        };
        let body = format!(
            "“{}” and “{}” both change {file}. Merging “{first}” first is the smaller conflict.",
            worktree.title, overlap.with_title
        );
        Some(
            Notice::new(NoticeKind::Overlap, target, "Two agents change the same file", body)
                .about(&worktree.profile_id),
        )
    }

    /// An account's agents reached its usage limit: told once per limit;
    /// its resets passing with the agents still refused, once, as a wait
    /// for the user.
    pub(super) fn on_limit(&mut self, limit: &switchboard_api::AccountLimit) -> Option<Notice> {
        let names = self.names_of(&limit.profiles);
        let first = limit.profiles.first();
        if limit.phase == switchboard_api::LimitPhase::AsksUser {
            if !self.remember(format!("limit:{}:{}:asks", limit.account, limit.since)) {
                return None;
            }
            let notice = Notice::new(
                NoticeKind::NeedsAnswer,
                NoticeTarget::Window,
                "A usage limit did not lift",
                format!(
                    "{names}: still refused after {} resets. Resume them when you know the limit has lifted.",
                    limit.passed
                ),
            );
            return Some(match first {
                Some(agent) => notice.about(agent),
                None => notice,
            });
        }
        if !self.remember(format!("limit:{}:{}", limit.account, limit.since)) {
            return None;
        }
        let when = match limit.until {
            Some(until) => {
                format!("until {}", switchboard_api::clock_at(until, switchboard_api::local_offset_secs(until)))
            }
            None => "for the limit to reset (when was not said: the app tries again now and then)".to_owned(),
        };
        Some(Notice::new(
            NoticeKind::UsageLimit,
            NoticeTarget::Window,
            "Agents at their usage limit",
            match limit.profiles.len() {
                1 => format!("{names} waits {when}. Its tasks are kept and go on then."),
                _ => format!("{names} wait {when}. Their tasks are kept and go on then."),
            },
        ))
    }

    /// The agents' names, joined.
    pub(super) fn names_of(&self, profiles: &[ProfileId]) -> String {
        let names: Vec<&str> = profiles.iter().map(|p| self.agent(p)).collect();
        match names.as_slice() {
            [] => "Agents".to_owned(),
            [one] => (*one).to_owned(),
            [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
        }
    }

    pub(super) fn agent(&self, profile: &ProfileId) -> &str {
        self.names.get(profile).map_or("An agent", String::as_str)
    }

    pub(super) fn on_loop(&mut self, info: &LoopInfo) -> Option<Notice> {
        let (kind, title, did) = match &info.state {
            LoopState::Stalled { .. } => (NoticeKind::LoopStalled, "Loop stalled", "is stuck on"),
            LoopState::Complete { why: Completion::MaxIterations { .. }, .. } => {
                (NoticeKind::LoopEnded, "Loop stopped at its cap", "did not finish")
            }
            LoopState::Complete { .. } => (NoticeKind::LoopEnded, "Loop complete", "finished"),
            LoopState::FailedToStart { .. } => (NoticeKind::LoopEnded, "Loop failed to start", "could not start"),
            // It waits for the user as a stalled loop does: theirs to act on.
            LoopState::WorkspaceGone { .. } => (NoticeKind::LoopStalled, "Loop stopped: its folder is gone", "stopped"),
            LoopState::OverBudget { .. } => (NoticeKind::LoopEnded, "Loop over budget", "did not finish"),
            LoopState::Active | LoopState::Cancelled { .. } => return None,
        };
        if !self.remember(loop_key(info)) {
            return None;
        }
        let goal = quoted(&info.settings.goal);
        let mut body = format!("{} {did} {goal}", self.agent(&info.profile_id));
        if let Some(reason) = info.state.reason() {
            body.push_str(&format!(": {}", cut(&reason, REASON_CHARS)));
        }
        Some(Notice::new(kind, NoticeTarget::Loop(info.id.clone()), title, body).about(&info.profile_id))
    }

    pub(super) fn on_quiet(&mut self, task: &TaskRecord) -> Option<Notice> {
        let Some(since) = task.quiet_since else {
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
        let notice =
            Notice::new(NoticeKind::AgentQuiet, NoticeTarget::Task(task.id.clone()), "Agent may be stuck", body);
        Some(notice.about(&task.spec.profile_id))
    }

    pub(super) fn on_task(&mut self, task: &TaskRecord) -> Option<Notice> {
        if task.state.is_finished() {
            self.open_tasks.remove(&task.id);
        } else {
            self.open_tasks.insert(task.id.clone(), quoted(&task.spec.title()));
        }
        if task.state == TaskState::Running || self.quiet_tasks.contains_key(&task.id) {
            let notice = self.on_quiet(task);
            if task.state == TaskState::Running {
                return notice;
            }
        }
        // A loop's iterations are told by the loop, once it ends or stalls.
        if task.spec.loop_iteration.is_some() {
            return None;
        }
        // A summary that says FAILED or PARTIAL is told as such, not as "completed".
        let said = task.result.as_ref().and_then(|result| result.summary.status);
        let reason = task.reason.as_deref().map(|reason| cut(reason, REASON_CHARS));
        let (agent, name) = (self.agent(&task.spec.profile_id), quoted(&task.spec.title()));
        let (completed, failed) = (NoticeKind::TaskCompleted, NoticeKind::TaskFailed);
        let (kind, title, what, why) = match (task.state, said) {
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
            (TaskState::OverBudget, _) => {
                (failed, "Task over budget", format!("{agent} did not finish {name} within its budget"), reason)
            }
            _ => return None,
        };
        if !self.remember(task.id.to_string()) {
            return None;
        }
        let body = match why {
            Some(why) => format!("{what}: {why}"),
            None => what,
        };
        let mut notice =
            Notice::new(kind, NoticeTarget::Task(task.id.clone()), title, body).about(&task.spec.profile_id);
        notice.subject = Some(name);
        Some(notice)
    }

    pub(super) fn on_signal(&mut self, signal: &SignalRecord) -> Option<Notice> {
        if signal.state != SignalState::Pending {
            return None;
        }
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
        Some(notice.about(&signal.profile_id))
    }
}

/// The engine cannot record its work: what to do about it, in words.
pub(super) fn on_storage(problem: &StorageProblem) -> Notice {
    let body = match problem {
        StorageProblem::Full => "The disk holding its data is full: free some space there. Agents keep \
                                 running; what their hooks report may be lost until then."
            .to_owned(),
        StorageProblem::ReadOnly => "Its data folder is read-only: make it writable.".to_owned(),
        StorageProblem::Failing { detail } => detail.clone(),
    };
    Notice::new(NoticeKind::Storage, NoticeTarget::Window, "Switchboard cannot record its work", body)
}

/// The first line of a text, cut at [`SHOWN_CHARS`].
pub(super) fn shortened(text: &str) -> String {
    cut(text, SHOWN_CHARS)
}

/// The first line of a text that is not blank, cut at `chars` characters.
pub(super) fn cut(text: &str, chars: usize) -> String {
    let line = text.lines().map(str::trim).find(|line| !line.is_empty()).unwrap_or_default();
    match line.char_indices().nth(chars) {
        Some((cut, _)) => format!("{}…", line[..cut].trim_end()),
        None => line.to_owned(),
    }
}

/// A task or goal as a notification names it: its first line, in quotes.
pub(super) fn quoted(text: &str) -> String {
    format!("“{}”", shortened(text))
}

/// One notification per loop ending (or stall: a resumed loop may stall again).
pub(super) fn loop_key(info: &LoopInfo) -> String {
    let at = match &info.state {
        LoopState::Complete { at, .. }
        | LoopState::Stalled { at, .. }
        | LoopState::Cancelled { at }
        | LoopState::FailedToStart { at, .. }
        | LoopState::WorkspaceGone { at, .. }
        | LoopState::OverBudget { at, .. } => *at,
        LoopState::Active => 0,
    };
    format!("loop:{}:{}:{at}", info.id, info.state.as_str())
}
