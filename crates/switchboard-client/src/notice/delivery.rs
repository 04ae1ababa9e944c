//! How a notice reaches the user: whether it shows, its slot, urgency and time on screen; task ends grouped.

use super::{Notice, NoticeKind};
use switchboard_api::Settings;
use switchboard_api::protocol::ProfileId;
use switchboard_api::{Attention, Millis, Viewing};

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
        // Two agents about to meet in a file is the user's to sort out.
        NoticeKind::NeedsAnswer | NoticeKind::Overlap => choices.needs_answer,
        NoticeKind::LoopEnded | NoticeKind::LoopStalled => choices.loop_ended,
        NoticeKind::AgentQuiet => choices.agent_quiet,
        NoticeKind::UsageLimit => choices.usage_limit,
        NoticeKind::Storage | NoticeKind::App => return Delivery::Show,
    };
    if !chosen {
        return Delivery::Off;
    }
    let quiet = settings.quiet_hours.span().is_some_and(|(from, to)| {
        if from <= to { (from..to).contains(&minute_of_day) } else { minute_of_day >= from || minute_of_day < to }
    });
    if quiet { Delivery::Held } else { Delivery::Show }
}

/// Task ends within this long of the first of a burst are told as one
/// notification ("3 tasks finished"), updated in place as each comes.
pub const BURST_WINDOW_MS: Millis = 5_000;

/// How long a completion stays on screen; a failure a little longer.
pub(super) const COMPLETED_SHOWN_MS: u32 = 6_000;

pub(super) const FAILED_SHOWN_MS: u32 = 12_000;

/// The most tasks a grouped notification names; the rest are counted.
pub(super) const GROUP_NAMED: usize = 3;

/// Where a notification lives: at most one of each is on screen, and a new
/// one replaces the last in place instead of stacking under it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Slot {
    /// An agent's own: what it needs of the user, that it may be stuck, its
    /// loop's end.
    Agent(ProfileId),
    /// Tasks that ended, every agent's: grouped when they end close together.
    Finished,
    /// The app's own (it cannot record its work).
    App,
}

/// How insistent a notification is (the freedesktop urgency levels).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Urgency {
    Low,
    Normal,
    Critical,
}

/// How long a notification stays on screen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lasting {
    /// It goes by itself after this many milliseconds.
    Transient(u32),
    /// It stays until what it tells is handled; then the app closes it.
    UntilHandled,
}

/// What the shell does with the desktop's notifications.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// Shows the notice in its slot, replacing what the slot shows.
    Show { slot: Slot, notice: Notice, urgency: Urgency, lasting: Lasting },
    /// Closes what the slot shows: it is handled, or the user looks at it.
    Close { slot: Slot },
}

/// How a notice of each kind is shown: where, how insistently, for how
/// long. A wait for the user's answer and a stall stay, and are critical,
/// until handled: they are the ones that hold work. Task ends go by
/// themselves.
pub fn style(kind: NoticeKind) -> (Urgency, Lasting) {
    match kind {
        NoticeKind::NeedsAnswer | NoticeKind::AgentQuiet | NoticeKind::LoopStalled | NoticeKind::Storage => {
            (Urgency::Critical, Lasting::UntilHandled)
        }
        NoticeKind::TaskFailed | NoticeKind::Overlap | NoticeKind::UsageLimit => {
            (Urgency::Normal, Lasting::Transient(FAILED_SHOWN_MS))
        }
        NoticeKind::LoopEnded => (Urgency::Normal, Lasting::Transient(COMPLETED_SHOWN_MS)),
        NoticeKind::TaskCompleted | NoticeKind::App => (Urgency::Low, Lasting::Transient(COMPLETED_SHOWN_MS)),
    }
}

/// Whether a notice that stays until handled is handled by now, the agent's
/// attention being `now`: an answer is handled once the agent no longer
/// needs the user, a stall once the agent is no longer stalled.
pub fn handled(kind: NoticeKind, now: &Attention) -> bool {
    match kind {
        NoticeKind::NeedsAnswer => !matches!(now, Attention::NeedsYou { .. }),
        NoticeKind::AgentQuiet | NoticeKind::LoopStalled => !matches!(now, Attention::Stalled { .. }),
        NoticeKind::TaskCompleted
        | NoticeKind::TaskFailed
        | NoticeKind::LoopEnded
        | NoticeKind::Storage
        | NoticeKind::Overlap
        | NoticeKind::UsageLimit
        | NoticeKind::App => false,
    }
}

/// What the user is looking at: the window tells it (see [`switchboard_api::Viewing`]).
pub fn on_screen(viewing: &Viewing, agent: Option<&ProfileId>) -> bool {
    viewing.focused && agent.is_some() && viewing.profile_id.as_ref() == agent
}

/// Where a notice goes, given what its agent's slot shows now (`live`: the
/// kind shown there, if it is still up). A notice that goes by itself never
/// takes the place of one that waits to be handled: it goes with the task
/// ends instead.
pub fn slot_for(notice: &Notice, live: Option<NoticeKind>) -> Slot {
    let Some(agent) = &notice.agent else { return Slot::App };
    let (_, lasting) = style(notice.kind);
    let agents = match notice.kind {
        NoticeKind::TaskCompleted | NoticeKind::TaskFailed => false,
        NoticeKind::LoopEnded => !live.is_some_and(|live| style(live).1 == Lasting::UntilHandled),
        _ => true,
    };
    match (agents, lasting) {
        (true, _) => Slot::Agent(agent.clone()),
        (false, _) => Slot::Finished,
    }
}

/// A task's end, as a grouped notification names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Ended {
    pub(super) at: Millis,
    pub(super) notice: Notice,
    /// "Builder: “Fix the login bug”", with "(failed)" after a failure.
    pub(super) line: String,
}

/// Task ends told together: one notification for the lot, its title the
/// count, its body the tasks (the latest few named).
pub(super) fn grouped(ends: &[Ended]) -> Notice {
    let latest = ends.last().expect("a group has a task end").notice.clone();
    if ends.len() == 1 {
        return latest;
    }
    let failed = ends.iter().filter(|e| e.notice.kind == NoticeKind::TaskFailed).count();
    let title = match failed {
        0 => format!("{} tasks finished", ends.len()),
        n if n == ends.len() => format!("{n} tasks failed"),
        n => format!("{} tasks finished, {n} failed", ends.len()),
    };
    let mut lines: Vec<&str> = ends.iter().rev().take(GROUP_NAMED).map(|e| e.line.as_str()).collect();
    lines.reverse();
    let mut body = lines.join("\n");
    if ends.len() > GROUP_NAMED {
        body.push_str(&format!("\nand {} more", ends.len() - GROUP_NAMED));
    }
    // A failure among them is what to open.
    let opens = ends.iter().rev().find(|e| e.notice.kind == NoticeKind::TaskFailed).unwrap_or(ends.last().unwrap());
    let kind = if failed > 0 { NoticeKind::TaskFailed } else { NoticeKind::TaskCompleted };
    Notice { kind, title, body, agent: None, ..opens.notice.clone() }
}
