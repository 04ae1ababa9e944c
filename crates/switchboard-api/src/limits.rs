//! Usage limits: an account whose CLI said it is at its plan's limit, and
//! what the app does about it until the limit lifts.

use serde::{Deserialize, Serialize};
use switchboard_protocol::ProfileId;
#[cfg(feature = "ts")]
use ts_rs::TS;

use super::Millis;

/// An account at its usage limit. Its agents' tasks wait (their time limits
/// paused), none is typed a new one, and at the reset they go on one at a
/// time. Kept in the store: an app restarted meanwhile still waits.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct AccountLimit {
    /// The account, as the agents' profiles name it (or their CLI's folder).
    pub account: String,
    /// The agents that work under it.
    pub profiles: Vec<ProfileId>,
    /// Since when it has been limited.
    pub since: Millis,
    /// When it resets, as its agent said; none when it did not say.
    pub until: Option<Millis>,
    /// When the app tries again (the reset and a margin, or the next try of
    /// an unknown reset).
    pub retry_at: Millis,
    /// Resets that passed with the agent still refused, in a row.
    pub passed: u32,
    pub phase: LimitPhase,
}

/// An account's usage, as its agents' CLIs last told it: Claude Code with
/// each status-line update (a Claude.ai subscription's account), Codex at a
/// refusal. An account whose CLI told none has none.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct AccountUsage {
    /// The account, as the agents' profiles name it (or their CLI's folder).
    pub account: String,
    /// The agents that work under it.
    pub profiles: Vec<ProfileId>,
    /// Its windows: the 5-hour one first, then the week.
    pub windows: Vec<UsageWindow>,
    /// When a CLI last told it.
    pub told_at: Millis,
}

/// One window of an account's usage: its length, how much of it is used,
/// when it resets.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct UsageWindow {
    /// Its length in minutes (300: 5 hours; 10080: a week).
    pub minutes: u32,
    /// How much of it is used, in whole percent (0 to 100).
    pub used_percent: u8,
    /// When it resets, when the CLI said.
    pub resets_at: Option<Millis>,
    /// How it stands against the user's warning (worked out by the engine
    /// as it tells the usage: the engine's `limits::level_of`).
    #[serde(default)]
    pub level: UsageLevel,
}

/// How much of a usage window is used, against the user's warning.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(rename_all = "snake_case")]
pub enum UsageLevel {
    #[default]
    Ok,
    /// At or past the warning share, short of used up.
    Warn,
    /// Used up: the account is at its limit.
    Full,
}

/// Where an account's limit is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(tag = "phase", rename_all = "snake_case")]
pub enum LimitPhase {
    /// Waiting for `retry_at`.
    Waiting,
    /// Its agents go on one at a time: this one was asked to and its turn
    /// has not run yet.
    Resuming { profile_id: ProfileId },
    /// It stayed limited through [`MAX_PASSED_RESETS`] resets: the user says
    /// when to try again.
    AsksUser,
}

/// Resets in a row that may pass with the agent still refused before the
/// user is asked.
pub const MAX_PASSED_RESETS: u32 = 3;

/// The local time zone's offset east of UTC at `at` (Unix milliseconds), in
/// seconds, as the agents' CLIs read it (they say a reset as a local time).
pub fn local_offset_secs(at: Millis) -> i32 {
    let secs = (at / 1000) as libc::time_t;
    // SAFETY: `localtime_r` writes only into the `tm` it is given, which
    // lives on this stack; a zeroed `tm` is a valid value of the type.
    let mut tm: libc::tm = unsafe { std::mem::zeroed() };
    let found = unsafe { libc::localtime_r(&secs, &mut tm) };
    if found.is_null() { 0 } else { tm.tm_gmtoff as i32 }
}

/// The time of day at `at` (Unix milliseconds), `offset_secs` east of UTC,
/// as "HH:MM".
pub fn clock_at(at: Millis, offset_secs: i32) -> String {
    let minute = (at.div_euclid(60_000) + Millis::from(offset_secs) / 60).rem_euclid(24 * 60);
    crate::clock_text(minute as u16)
}

/// A usage window's name, after its length: "the 5-hour", "the weekly".
pub fn window_name(minutes: u32) -> String {
    match minutes {
        10_080 => "the weekly".to_owned(),
        1_440 => "the daily".to_owned(),
        m if m % 1_440 == 0 => format!("the {}-day", m / 1_440),
        m if m % 60 == 0 => format!("the {}-hour", m / 60),
        m => format!("the {m}-minute"),
    }
}
