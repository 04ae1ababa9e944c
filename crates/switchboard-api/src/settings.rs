//! The user's settings for the whole app: what a new agent starts with, which
//! events notify and when not, and the window's theme. One record, kept in the
//! store; every field has a default, so a record written by an older app (or
//! none at all) reads as a whole.

use serde::{Deserialize, Serialize};
#[cfg(feature = "ts")]
use ts_rs::TS;

use super::profile::{DEFAULT_QUIET_ALERT_SECS, DEFAULT_TASK_TIME_LIMIT_SECS};

/// Default for [`Settings::turn_quiet_secs`]: long enough for a model's
/// first words to come after a silent moment of thought, short enough that a
/// loop does not idle for long between iterations.
pub const DEFAULT_TURN_QUIET_SECS: u32 = 30;

/// Default for [`Settings::limit_margin_secs`].
pub const DEFAULT_LIMIT_MARGIN_SECS: u32 = 30;

/// Default for [`Settings::limit_retry_secs`].
pub const DEFAULT_LIMIT_RETRY_SECS: u32 = 60;

/// Default for [`Settings::usage_warn_percent`].
pub const DEFAULT_USAGE_WARN_PERCENT: u8 = 80;

/// The longest wait between tries of a usage limit whose reset is unknown.
pub const MAX_LIMIT_RETRY_SECS: u32 = 30 * 60;

/// The longest [`Settings::turn_quiet_secs`].
pub const MAX_TURN_QUIET_SECS: u32 = 3600;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(default)]
pub struct Settings {
    /// The time limit a new agent's tasks get unless its form says otherwise,
    /// in seconds.
    pub default_task_time_limit_secs: u32,
    /// How long a new agent may show no sign of life while it works before
    /// its task is flagged as possibly stuck, in seconds; 0: never.
    pub default_quiet_alert_secs: u32,
    /// An agent with neither a ready pattern nor hooks is done with what was
    /// typed (a loop's iteration is over) once its output has been quiet this
    /// many seconds after it answered; 0: never by quiet alone (loops then
    /// need a ready pattern or hooks).
    pub turn_quiet_secs: u32,
    /// How long after an account's usage limit resets its agents are asked
    /// to go on, in seconds (the reset a CLI names is seldom to the second).
    pub limit_margin_secs: u32,
    /// When a CLI does not say when its usage limit resets: the first wait
    /// before trying again, in seconds; each try that is still refused
    /// doubles it, up to 30 minutes.
    pub limit_retry_secs: u32,
    /// How much of a usage window an account may use before the user is
    /// told, once per window, in percent; 0: never.
    pub usage_warn_percent: u8,
    /// Which kinds of events show a desktop notification.
    pub notify: NotifyChoices,
    /// When notifications are held back.
    pub quiet_hours: QuietHours,
    pub theme: Theme,
    /// The grid of live terminals, as the user left it.
    pub terminal_grid: TerminalGrid,
    /// What each model's tokens cost: the shipped table until the user edits it.
    pub prices: crate::PriceTable,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            default_task_time_limit_secs: DEFAULT_TASK_TIME_LIMIT_SECS,
            default_quiet_alert_secs: DEFAULT_QUIET_ALERT_SECS,
            turn_quiet_secs: DEFAULT_TURN_QUIET_SECS,
            limit_margin_secs: DEFAULT_LIMIT_MARGIN_SECS,
            limit_retry_secs: DEFAULT_LIMIT_RETRY_SECS,
            usage_warn_percent: DEFAULT_USAGE_WARN_PERCENT,
            notify: NotifyChoices::default(),
            quiet_hours: QuietHours::Off,
            theme: Theme::System,
            terminal_grid: TerminalGrid::default(),
            prices: crate::PriceTable::shipped(),
        }
    }
}

/// Whether each kind of event shows a desktop notification (all on by
/// default). The tray counts every event whatever is chosen here.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(default)]
pub struct NotifyChoices {
    /// A task finished (its summary may say it is only partly done).
    pub task_completed: bool,
    /// A task failed or ran out of time.
    pub task_failed: bool,
    /// An agent waits for the user: a question, a blocker, a delegation to
    /// approve, a completion report.
    pub needs_answer: bool,
    /// A loop finished, stopped at its cap, or stalled.
    pub loop_ended: bool,
    /// An agent showed no sign of life past its alert while at work.
    pub agent_quiet: bool,
    /// An account used most of a usage window (past the warning), agents
    /// reached its usage limit, and went on after it reset.
    pub usage_limit: bool,
}

impl Default for NotifyChoices {
    fn default() -> Self {
        NotifyChoices {
            task_completed: true,
            task_failed: true,
            needs_answer: true,
            loop_ended: true,
            agent_quiet: true,
            usage_limit: true,
        }
    }
}

/// A daily stretch of local time during which notifications are not shown
/// (the tray still counts what happens). Times are "HH:MM", 24-hour; a
/// stretch whose end is before its start runs past midnight.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(tag = "mode", rename_all = "snake_case")]
pub enum QuietHours {
    #[default]
    Off,
    Daily {
        from: String,
        to: String,
    },
}

impl QuietHours {
    /// Its start and end as minutes past midnight; none when off (or when a
    /// time does not read, which validation keeps from being stored).
    pub fn span(&self) -> Option<(u16, u16)> {
        match self {
            QuietHours::Off => None,
            QuietHours::Daily { from, to } => Some((minute_of_day(from)?, minute_of_day(to)?)),
        }
    }
}

/// "HH:MM" (or "H:MM"), 24-hour, as minutes past midnight.
pub fn minute_of_day(text: &str) -> Option<u16> {
    let (hours, minutes) = text.trim().split_once(':')?;
    let digits = |part: &str, len: std::ops::RangeInclusive<usize>| {
        (len.contains(&part.len()) && part.bytes().all(|b| b.is_ascii_digit())).then(|| part.parse::<u16>().ok())?
    };
    let (hours, minutes) = (digits(hours, 1..=2)?, digits(minutes, 2..=2)?);
    (hours < 24 && minutes < 60).then_some(hours * 60 + minutes)
}

/// Minutes past midnight as "HH:MM".
pub fn clock_text(minute_of_day: u16) -> String {
    format!("{:02}:{:02}", minute_of_day / 60, minute_of_day % 60)
}

/// The most terminals the grid shows at once.
pub const MAX_GRID_TERMINALS: usize = 9;

/// The grid of live terminals: which agents it shows, and the one zoomed to
/// the whole grid.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(default)]
pub struct TerminalGrid {
    pub shows: GridShows,
    /// The agents the user chose, in their places (at most
    /// [`MAX_GRID_TERMINALS`]); kept while the grid shows another set.
    pub chosen: Vec<switchboard_protocol::ProfileId>,
    /// The agent shown at the grid's full size (none: all side by side).
    pub zoomed: Option<switchboard_protocol::ProfileId>,
}

/// Which agents the grid shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(rename_all = "snake_case")]
pub enum GridShows {
    /// Those the user chose.
    #[default]
    Chosen,
    /// Every agent that needs the user (a question, a failure, a stall), first ones first.
    NeedsYou,
    /// Every agent at work.
    Working,
}

/// The window's colours: the desktop's choice, or always dark or light.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(rename_all = "snake_case")]
pub enum Theme {
    #[default]
    System,
    Dark,
    Light,
}
