//! The tray's counts: agents working, agents that need the user, queues paused.

use switchboard_api::{Attention, Millis};

/// The tray's numbers: how many agents are in each state the user should
/// know of, read from each agent's attention (the same value the window
/// shows), so the tray and the window cannot disagree.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TrayCounts {
    pub working: usize,
    /// Something of theirs waits for the user's answer.
    pub needs_you: usize,
    /// A stalled loop, or a task whose agent may be stuck.
    pub stalled: usize,
    /// Tasks failed since the user last looked.
    pub failed: usize,
    /// At their account's usage limit, and the first reset among them that
    /// is known.
    pub limited: usize,
    pub limited_until: Option<Millis>,
}

impl TrayCounts {
    /// The counts of these agents' attention.
    pub fn of<'a>(attention: impl IntoIterator<Item = &'a Attention>) -> TrayCounts {
        let mut counts = TrayCounts::default();
        for attention in attention {
            match attention {
                Attention::NeedsYou { .. } => counts.needs_you += 1,
                Attention::Stalled { .. } => counts.stalled += 1,
                Attention::Failed { .. } => counts.failed += 1,
                Attention::Limited { until, .. } => {
                    counts.limited += 1;
                    counts.limited_until = match (counts.limited_until, until) {
                        (Some(first), Some(until)) => Some(first.min(*until)),
                        (first, until) => first.or(*until),
                    };
                }
                Attention::Working { .. } => counts.working += 1,
                Attention::Idle { .. } | Attention::Stopped { .. } => {}
            }
        }
        counts
    }

    /// The counts of two sets of agents together (several machines' in one tray).
    pub fn and(self, other: TrayCounts) -> TrayCounts {
        TrayCounts {
            working: self.working + other.working,
            needs_you: self.needs_you + other.needs_you,
            stalled: self.stalled + other.stalled,
            failed: self.failed + other.failed,
            limited: self.limited + other.limited,
            limited_until: match (self.limited_until, other.limited_until) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            },
        }
    }

    /// In words, times in the local time zone.
    pub fn label(&self) -> String {
        self.label_at(self.limited_until.map_or(0, switchboard_api::local_offset_secs))
    }

    /// In words, times `offset_secs` east of UTC.
    pub fn label_at(&self, offset_secs: i32) -> String {
        let verb = if self.needs_you == 1 { "needs" } else { "need" };
        let mut label = format!("{} working · {} {verb} you", self.working, self.needs_you);
        if self.stalled > 0 {
            label.push_str(&format!(" · {} may be stuck", self.stalled));
        }
        if self.failed > 0 {
            label.push_str(&format!(" · {} failed", self.failed));
        }
        match (self.limited, self.limited_until) {
            (0, _) => {}
            (limited, Some(until)) => label.push_str(&format!(
                " · {limited} at usage limit until {}",
                switchboard_api::clock_at(until, offset_secs)
            )),
            (limited, None) => label.push_str(&format!(" · {limited} at usage limit")),
        }
        label
    }
}
