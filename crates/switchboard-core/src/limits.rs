//! Usage limits, the rules (pure): which account an agent works under, how
//! an account's wait is set when its agent is refused, and how long an
//! overloaded model is left before the agent is asked to go on. The engine
//! (`engine::tasks::limits`) carries them out.

use std::collections::BTreeMap;

use switchboard_protocol::{AgentKind, ProfileId};

use switchboard_api::{MAX_LIMIT_RETRY_SECS, MAX_PASSED_RESETS, Millis, ProfileSpec};

/// An account at its usage limit, as the store keeps it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LimitRecord {
    pub account: String,
    pub since: Millis,
    /// The reset its agent named; none when it did not.
    pub until: Option<Millis>,
    /// When the app tries again.
    pub retry_at: Millis,
    /// Resets in a row that passed with the agent still refused.
    pub passed: u32,
    /// The wait before the next try of an unknown reset.
    pub delay_secs: u32,
    /// The app stopped trying: the user says when.
    pub asks_user: bool,
}

/// An account's usage as the store keeps it: its windows as a CLI last told
/// them, and the windows the user was warned of (each by its length and
/// reset, so each window warns once).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct UsageRecord {
    pub account: String,
    pub windows: Vec<switchboard_api::UsageWindow>,
    pub told_at: Millis,
    pub warned: Vec<WindowKey>,
}

/// One usage window of an account, told apart from the next of its length
/// by its reset.
pub type WindowKey = (u32, Option<Millis>);

fn key_of(window: &switchboard_api::UsageWindow) -> WindowKey {
    (window.minutes, window.resets_at)
}

/// How a window used `used_percent` stands against the user's warning
/// `threshold` (0: never): used up, past the warning, or neither.
pub fn level_of(used_percent: u8, threshold: u8) -> switchboard_api::UsageLevel {
    use switchboard_api::UsageLevel;
    match used_percent {
        100.. => UsageLevel::Full,
        used if threshold > 0 && used >= threshold => UsageLevel::Warn,
        _ => UsageLevel::Ok,
    }
}

/// The windows with their levels against `threshold` ([`level_of`]).
pub fn with_levels(windows: &[switchboard_api::UsageWindow], threshold: u8) -> Vec<switchboard_api::UsageWindow> {
    windows
        .iter()
        .map(|w| switchboard_api::UsageWindow { level: level_of(w.used_percent, threshold), ..w.clone() })
        .collect()
}

/// The windows of `windows` the user is to be warned of now: past the
/// warning ([`level_of`]: at least `threshold` percent, 0 never, short of
/// used up: a used-up window is a limit, told as such), and not warned of
/// before (`warned`). Past windows are forgotten: the warned keys kept are
/// those still told.
pub fn warnings_due(
    windows: &[switchboard_api::UsageWindow],
    warned: &[WindowKey],
    threshold: u8,
) -> (Vec<switchboard_api::UsageWindow>, Vec<WindowKey>) {
    let due: Vec<switchboard_api::UsageWindow> = windows
        .iter()
        .filter(|w| level_of(w.used_percent, threshold) == switchboard_api::UsageLevel::Warn)
        .filter(|w| !warned.contains(&key_of(w)))
        .cloned()
        .collect();
    let kept = windows
        .iter()
        .map(key_of)
        .filter(|key| warned.contains(key) || due.iter().any(|w| key_of(w) == *key))
        .collect();
    (due, kept)
}

/// The furthest ahead a told reset is believed: a month (the longest window
/// of any plan); further is taken as not known.
pub const LONGEST_WAIT_MS: Millis = 31 * 24 * 3600 * 1000;

/// The last moment a told reset can name, in Unix seconds (the end of the
/// year 9999): past it, or at or before the epoch, the reset is not known.
/// What an agent forges in its place never overflows the app's clock.
const LAST_RESET_SECS: i64 = 253_402_300_799;

/// The usage windows a CLI told, as the app keeps them; and the reset they
/// name for the limit: the latest reset of the windows used up. A reset out
/// of any calendar's range is not known.
pub fn usage_of(
    windows: &[switchboard_protocol::rollout::UsageWindow],
) -> (Vec<switchboard_api::UsageWindow>, Option<Millis>) {
    let kept: Vec<switchboard_api::UsageWindow> = windows
        .iter()
        .map(|w| switchboard_api::UsageWindow {
            minutes: w.minutes,
            used_percent: w.used_percent.round().clamp(0.0, 100.0) as u8,
            resets_at: w.resets_at.filter(|secs| (1..=LAST_RESET_SECS).contains(secs)).map(|secs| secs * 1000),
            level: switchboard_api::UsageLevel::Ok,
        })
        .collect();
    let reset = kept.iter().filter(|w| w.used_percent >= 100).filter_map(|w| w.resets_at).max();
    (kept, reset)
}

/// How much of a usage window a status line must show used for its reset to
/// be taken as the limit's when none of the account's windows reads used up:
/// a status line told a moment before the refusal lags it by a few percent.
const NEARLY_USED_UP: u8 = 90;

/// When an account's limit resets, from the best source there is, so that one
/// time is said everywhere (the banner, the usage bar, the command line, the
/// retry): the windows the refusal came with (`refusal_used_up`: the latest
/// reset of those used up), else the time the refusal said (`told`), else the
/// account's usage as last told (`known`, a status line's windows): the latest
/// reset of those used up, else of the one used most if it is nearly used up.
/// A reset in the past, or further ahead than any plan's window, is not known.
pub fn best_reset(
    refusal_used_up: Option<Millis>,
    told: Option<Millis>,
    known: &[switchboard_api::UsageWindow],
    now: Millis,
) -> Option<Millis> {
    let believable = |at: &Millis| *at > now && *at <= now + LONGEST_WAIT_MS;
    let used_up =
        || known.iter().filter(|w| w.used_percent >= 100).filter_map(|w| w.resets_at).filter(believable).max();
    let most_used = || {
        known
            .iter()
            .filter(|w| w.used_percent >= NEARLY_USED_UP && w.resets_at.is_some_and(|at| believable(&at)))
            .max_by_key(|w| w.used_percent)
            .and_then(|w| w.resets_at)
    };
    refusal_used_up.filter(believable).or(told.filter(believable)).or_else(used_up).or_else(most_used)
}

/// An account at its usage limit, as the engine carries it out: its record,
/// and its agents going on one at a time.
#[derive(Debug, Clone)]
pub struct Limit {
    pub record: LimitRecord,
    /// Asked to go on after the wait; its turn has not run yet.
    pub resuming: Option<ProfileId>,
    /// Went on after the wait, its turn ran: no longer held.
    pub released: std::collections::BTreeSet<ProfileId>,
    /// The user had it go on before its reset (`agent resume`).
    pub by_user: bool,
}

/// The account an agent works under: the one its profile names, else its
/// CLI's own folder (where the CLI keeps its sign-in), else (an agent of
/// another kind) an account of its own. `home`: the user's home folder.
pub fn account_of(id: &ProfileId, spec: &ProfileSpec, env: impl Fn(&str) -> Option<String>) -> String {
    if let Some(account) = spec.account.as_deref().map(str::trim).filter(|a| !a.is_empty()) {
        return account.to_owned();
    }
    let var = |name: &str| spec.env.get(name).cloned().or_else(|| env(name)).filter(|v| !v.is_empty());
    let home = || var("HOME").unwrap_or_else(|| "~".to_owned());
    match spec.kind {
        AgentKind::ClaudeCode => var("CLAUDE_CONFIG_DIR").unwrap_or_else(|| format!("{}/.claude", home())),
        AgentKind::Codex => var("CODEX_HOME").unwrap_or_else(|| format!("{}/.codex", home())),
        AgentKind::Generic => format!("agent {id}"),
    }
}

/// The profiles of each account.
pub fn accounts<'a>(
    profiles: impl IntoIterator<Item = (&'a ProfileId, &'a ProfileSpec)>,
    env: impl Fn(&str) -> Option<String>,
) -> BTreeMap<String, Vec<ProfileId>> {
    let mut accounts: BTreeMap<String, Vec<ProfileId>> = BTreeMap::new();
    for (id, spec) in profiles {
        accounts.entry(account_of(id, spec, &env)).or_default().push(id.clone());
    }
    accounts
}

/// The margins the user chose, in milliseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Margins {
    /// After a named reset.
    pub after_reset: Millis,
    /// The first wait of an unknown reset.
    pub first_retry: Millis,
}

/// The account's wait after its agent was refused at `now` for its usage
/// limit, saying the reset `said` (if it did). `before`: the account's wait
/// when there was one; `resumed`: the refused agent had been asked to go on
/// after that wait (the reset passed and it is still refused).
///
/// A new limit waits for the reset it was told and the margin, else for the
/// first retry. A refusal while already waiting changes only an unknown
/// reset into a known one. A reset that passed still refused counts; the
/// wait then follows the new reset where the agent names one that is not
/// the same clock time a day on (Codex says a time of day: a time just
/// passed reads as tomorrow's), else doubles, up to 30 minutes; after
/// [`MAX_PASSED_RESETS`] the user is asked.
pub fn after_refusal(
    before: Option<&LimitRecord>,
    resumed: bool,
    account: &str,
    said: Option<Millis>,
    now: Millis,
    margins: Margins,
) -> LimitRecord {
    let first_delay = (margins.first_retry / 1000).clamp(1, MAX_LIMIT_RETRY_SECS.into()) as u32;
    let Some(before) = before else {
        return LimitRecord {
            account: account.to_owned(),
            since: now,
            until: said,
            retry_at: said.map_or(now + margins.first_retry, |until| until.max(now) + margins.after_reset),
            passed: 0,
            delay_secs: first_delay,
            asks_user: false,
        };
    };
    if !resumed {
        return match (before.until, said) {
            (None, Some(until)) if !before.asks_user => {
                LimitRecord { until: Some(until), retry_at: until.max(now) + margins.after_reset, ..before.clone() }
            }
            _ => before.clone(),
        };
    }
    let passed = before.passed + 1;
    const DAY: Millis = 24 * 3600 * 1000;
    let a_day_on = |until: Millis| before.until.is_some_and(|was| ((until - was) - DAY).abs() < 3600 * 1000);
    let said = said.filter(|until| *until > now && !a_day_on(*until));
    let delay_secs = match said {
        Some(_) => before.delay_secs,
        None => before.delay_secs.saturating_mul(2).min(MAX_LIMIT_RETRY_SECS),
    };
    let retry_at = match said {
        Some(until) => until + margins.after_reset,
        None => now + Millis::from(delay_secs) * 1000,
    };
    LimitRecord {
        account: account.to_owned(),
        since: before.since,
        until: said,
        retry_at,
        passed,
        delay_secs,
        asks_user: passed >= MAX_PASSED_RESETS,
    }
}

pub use switchboard_api::{clock_at, local_offset_secs, window_name};

/// How long an overloaded model is left before the agent is asked to go on,
/// after `tries` such refusals in a row: the first wait (the user's first
/// retry of an unknown reset), doubling, at most 10 minutes.
pub fn overload_wait(tries: u32, first: Millis) -> Millis {
    (first.max(1000) * (1 << tries.min(10))).min(600_000)
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: Millis = 1_000_000_000;
    const MARGINS: Margins = Margins { after_reset: 30_000, first_retry: 60_000 };

    #[test]
    fn one_reset_time_from_the_best_source() {
        let window = |used_percent, resets_at: Option<Millis>| switchboard_api::UsageWindow {
            minutes: 300,
            used_percent,
            resets_at,
            level: switchboard_api::UsageLevel::Ok,
        };
        let (hour, later) = (NOW + 3_600_000, NOW + 7_200_000);
        // (case, the refusal's windows' reset, the refusal's time, the status line's windows, expected)
        type Case = (&'static str, Option<Millis>, Option<Millis>, Vec<switchboard_api::UsageWindow>, Option<Millis>);
        let cases: [Case; 9] = [
            ("the refusal's windows first", Some(hour), Some(later), vec![window(100, Some(later))], Some(hour)),
            ("then what the refusal said", None, Some(later), vec![window(100, Some(hour))], Some(later)),
            (
                "then a status line's window used up",
                None,
                None,
                vec![window(40, Some(hour)), window(100, Some(later))],
                Some(later),
            ),
            (
                "a status line lagging the refusal",
                None,
                None,
                vec![window(97, Some(hour)), window(20, Some(later))],
                Some(hour),
            ),
            ("a window far from used up says nothing", None, None, vec![window(60, Some(hour))], None),
            ("nothing told", None, None, vec![], None),
            ("a reset already past", None, Some(NOW - 1), vec![window(100, Some(NOW - 1))], None),
            ("a reset too far ahead", None, Some(NOW + LONGEST_WAIT_MS + 1), vec![], None),
            (
                "a past refusal time gives way to the status line",
                None,
                Some(NOW - 1),
                vec![window(100, Some(hour))],
                Some(hour),
            ),
        ];
        for (case, used_up, told, known, expected) in cases {
            assert_eq!(best_reset(used_up, told, &known, NOW), expected, "{case}");
        }
    }

    fn waiting(until: Option<Millis>, passed: u32, delay_secs: u32) -> LimitRecord {
        LimitRecord {
            account: "a".into(),
            since: NOW - 100_000,
            until,
            retry_at: NOW,
            passed,
            delay_secs,
            asks_user: false,
        }
    }

    #[test]
    fn an_accounts_wait_follows_what_its_agents_say_and_how_often_a_reset_passed() {
        let hour = 3_600_000;
        /// until, retry_at, passed, delay, asks the user
        type After = (Option<Millis>, Millis, u32, u32, bool);
        /// what, the wait before, resumed, the reset said; after
        type Case = (&'static str, Option<LimitRecord>, bool, Option<Millis>, After);
        let cases: [Case; 10] = [
            // (what, before, resumed, said) -> (until, retry_at, passed, delay, asks)
            (
                "a new limit with its reset",
                None,
                false,
                Some(NOW + hour),
                (Some(NOW + hour), NOW + hour + 30_000, 0, 60, false),
            ),
            ("a new limit, reset unknown", None, false, None, (None, NOW + 60_000, 0, 60, false)),
            ("a reset said already past", None, false, Some(NOW - 5), (Some(NOW - 5), NOW + 30_000, 0, 60, false)),
            (
                "another agent refused meanwhile, saying the reset",
                Some(waiting(None, 0, 60)),
                false,
                Some(NOW + hour),
                (Some(NOW + hour), NOW + hour + 30_000, 0, 60, false),
            ),
            (
                "another agent refused meanwhile, a reset already known",
                Some(waiting(Some(NOW + 2 * hour), 0, 60)),
                false,
                Some(NOW + hour),
                (Some(NOW + 2 * hour), NOW, 0, 60, false),
            ),
            (
                "a first unknown reset passed",
                Some(waiting(None, 0, 60)),
                true,
                None,
                (None, NOW + 120_000, 1, 120, false),
            ),
            ("a third", Some(waiting(None, 2, 240)), true, None, (None, NOW + 480_000, 3, 480, true)),
            (
                "a named reset passed, a new one named",
                Some(waiting(Some(NOW - 30_000), 0, 60)),
                true,
                Some(NOW + hour),
                (Some(NOW + hour), NOW + hour + 30_000, 1, 60, false),
            ),
            (
                "the same clock time, read as tomorrow's",
                Some(waiting(Some(NOW - 30_000), 0, 60)),
                true,
                Some(NOW - 30_000 + 24 * hour),
                (None, NOW + 120_000, 1, 120, false),
            ),
            (
                "the doubling stops at 30 minutes",
                Some(waiting(None, 1, 1500)),
                true,
                None,
                (None, NOW + 1_800_000, 2, 1800, false),
            ),
        ];
        for (what, before, resumed, said, (until, retry_at, passed, delay, asks)) in cases {
            let after = after_refusal(before.as_ref(), resumed, "a", said, NOW, MARGINS);
            assert_eq!(
                (after.until, after.retry_at, after.passed, after.delay_secs, after.asks_user),
                (until, retry_at, passed, delay, asks),
                "{what}"
            );
        }
    }

    #[test]
    fn the_user_is_asked_after_three_resets_passed_still_refused() {
        let mut record = after_refusal(None, false, "a", None, NOW, MARGINS);
        for passed in 1..=MAX_PASSED_RESETS {
            record = after_refusal(Some(&record), true, "a", None, record.retry_at, MARGINS);
            assert_eq!((record.passed, record.asks_user), (passed, passed == MAX_PASSED_RESETS));
        }
    }

    #[test]
    fn an_agent_works_under_its_named_account_else_its_clis_folder() {
        let id = ProfileId::new();
        let env = |name: &str| (name == "HOME").then(|| "/home/u".to_owned());
        let spec = |kind, account: Option<&str>, var: Option<(&str, &str)>| ProfileSpec {
            kind,
            account: account.map(str::to_owned),
            env: var.into_iter().map(|(k, v)| (k.to_owned(), v.to_owned())).collect(),
            ..ProfileSpec::default()
        };
        let cases = [
            (spec(AgentKind::ClaudeCode, None, None), "/home/u/.claude".to_owned()),
            (spec(AgentKind::ClaudeCode, None, Some(("CLAUDE_CONFIG_DIR", "/w/cc"))), "/w/cc".to_owned()),
            (spec(AgentKind::Codex, None, None), "/home/u/.codex".to_owned()),
            (spec(AgentKind::Codex, None, Some(("CODEX_HOME", "/w/codex"))), "/w/codex".to_owned()),
            (spec(AgentKind::Codex, Some(" work "), None), "work".to_owned()),
            (spec(AgentKind::ClaudeCode, Some(""), None), "/home/u/.claude".to_owned()),
            (spec(AgentKind::Generic, None, None), format!("agent {id}")),
        ];
        for (spec, expected) in cases {
            assert_eq!(account_of(&id, &spec, env), expected, "{spec:?}");
        }
    }

    #[test]
    fn an_overloaded_model_is_left_longer_each_time() {
        let waits: Vec<Millis> = (0..7).map(|tries| overload_wait(tries, 60_000)).collect();
        assert_eq!(waits, [60_000, 120_000, 240_000, 480_000, 600_000, 600_000, 600_000]);
        assert_eq!(overload_wait(0, 0), 1000, "never at once");
    }

    #[test]
    fn a_window_used_past_the_warning_warns_once_and_a_new_window_again() {
        use switchboard_api::UsageWindow;
        let w = |minutes, used_percent, resets_at| UsageWindow {
            minutes,
            used_percent,
            resets_at: Some(resets_at),
            level: Default::default(),
        };
        let five = |used| w(300, used, 10);
        let week = |used| w(10_080, used, 99);
        /// what, windows told, warned before, threshold; due (lengths), kept
        type Case = (&'static str, Vec<UsageWindow>, Vec<WindowKey>, u8, Vec<u32>, Vec<WindowKey>);
        let cases: [Case; 8] = [
            ("below", vec![five(79), week(10)], vec![], 80, vec![], vec![]),
            ("at the threshold", vec![five(80), week(10)], vec![], 80, vec![300], vec![(300, Some(10))]),
            (
                "both past",
                vec![five(95), week(85)],
                vec![],
                80,
                vec![300, 10_080],
                vec![(300, Some(10)), (10_080, Some(99))],
            ),
            ("told again: once", vec![five(90)], vec![(300, Some(10))], 80, vec![], vec![(300, Some(10))]),
            (
                "the next window warns anew",
                vec![w(300, 85, 20)],
                vec![(300, Some(10))],
                80,
                vec![300],
                vec![(300, Some(20))],
            ),
            ("used up: a limit, not a warning", vec![five(100)], vec![], 80, vec![], vec![]),
            ("never", vec![five(99)], vec![], 0, vec![], vec![]),
            ("a lower threshold", vec![five(50)], vec![], 50, vec![300], vec![(300, Some(10))]),
        ];
        for (what, windows, warned, threshold, due, kept) in cases {
            let (got, got_kept) = warnings_due(&windows, &warned, threshold);
            assert_eq!(got.iter().map(|w| w.minutes).collect::<Vec<_>>(), due, "{what}");
            assert_eq!(got_kept, kept, "{what}");
        }
    }

    #[test]
    fn a_windows_level_is_used_up_past_the_warning_or_neither() {
        use switchboard_api::UsageLevel::{Full, Ok, Warn};
        let cases =
            [(0, 80, Ok), (79, 80, Ok), (80, 80, Warn), (99, 80, Warn), (100, 80, Full), (100, 0, Full), (99, 0, Ok)];
        for (used, threshold, level) in cases {
            assert_eq!(level_of(used, threshold), level, "{used}% against {threshold}%");
        }
    }

    #[test]
    fn a_told_window_out_of_range_is_kept_within_it() {
        use switchboard_protocol::rollout::UsageWindow as Told;
        let told = |used_percent, resets_at| Told { minutes: 300, used_percent, resets_at };
        let (kept, reset) = usage_of(&[
            told(f64::MAX, Some(i64::MAX)),
            told(-5.0, Some(-1)),
            told(f64::NAN, Some(0)),
            told(100.0, Some(1_800_000_000)),
        ]);
        let shown: Vec<(u8, Option<Millis>)> = kept.iter().map(|w| (w.used_percent, w.resets_at)).collect();
        assert_eq!(shown, [(100, None), (0, None), (0, None), (100, Some(1_800_000_000_000))]);
        assert_eq!(reset, Some(1_800_000_000_000), "only a reset in range names the limit's end");
    }
}
