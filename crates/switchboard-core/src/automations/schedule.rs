//! When a scheduled automation runs (pure): `--every` specs ("weekdays
//! 09:00", "2h") and RFC 5545 recurrence rules, in a time zone.
//!
//! A rule is expanded in civil time by the `rrule` crate, as if in UTC (no
//! zone of its own is ever consulted); each civil time is then made an
//! instant in the automation's zone by jiff, the engine's one time-zone
//! database. A civil time that does not exist there (clocks went forward)
//! runs at the first minute after the gap; one that occurs twice (clocks
//! went back) runs once, at its first. A rule's `UNTIL` is kept out of the
//! crate's hands and judged here: an instant (`…Z`) as that instant, a time
//! without a zone as a civil time in the automation's zone, a date as the
//! whole of that day there.

use jiff::civil::DateTime;
use jiff::tz::{AmbiguousOffset, TimeZone};
use jiff::{SignedDuration, Timestamp};
use rrule::{RRule, RRuleSet, Tz, Unvalidated};
use switchboard_api::Millis;

/// The shortest span `--every` takes.
pub const MIN_SPAN: SignedDuration = SignedDuration::from_mins(1);

/// The longest span `--every` takes (a longer wait is a calendar rule).
pub const MAX_SPAN: SignedDuration = SignedDuration::from_hours(7 * 24);

/// A schedule, ready to say when it runs.
#[derive(Debug, Clone)]
pub struct Schedule {
    kind: Kind,
    zone: TimeZone,
}

#[derive(Debug, Clone)]
enum Kind {
    /// Every `every` from `anchor` (Unix ms), whatever the clocks do.
    Span { every: i64, anchor: Millis },
    /// A recurrence in civil time, from `start`, up to `until`.
    Rule { rule: Box<RRule<Unvalidated>>, start: DateTime, until: Option<Until> },
}

/// An RRULE as Switchboard keeps it: the rule without its end, and its end.
#[derive(Debug, Clone)]
pub struct Rule {
    rule: RRule<Unvalidated>,
    until: Option<Until>,
}

/// The last time a rule may run (its `UNTIL`, inclusive).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Until {
    /// `UNTIL=…Z`: an instant.
    Instant(Timestamp),
    /// A date and time without a zone, or a date (its last second): a civil
    /// time in the automation's zone.
    Civil(DateTime),
}

impl Until {
    /// Reads `UNTIL`'s value: `20261231`, `20261231T180000` or `20261231T170000Z`.
    fn parse(value: &str) -> Result<Until, String> {
        let refused = || {
            format!(
                "UNTIL={value} is not a time Switchboard reads: give a date (20261231), a local time \
                 (20261231T180000) or a UTC time (20261231T170000Z)."
            )
        };
        let civil = |text: &str, format: &str| jiff::fmt::strtime::parse(format, text).and_then(|t| t.to_datetime());
        if let Some(utc) = value.strip_suffix('Z') {
            let civil = civil(utc, "%Y%m%dT%H%M%S").map_err(|_| refused())?;
            return civil.to_zoned(TimeZone::UTC).map(|z| Until::Instant(z.timestamp())).map_err(|_| refused());
        }
        if value.contains('T') {
            return civil(value, "%Y%m%dT%H%M%S").map(Until::Civil).map_err(|_| refused());
        }
        let date = jiff::fmt::strtime::parse("%Y%m%d", value).and_then(|t| t.to_date()).map_err(|_| refused())?;
        Ok(Until::Civil(date.to_datetime(jiff::civil::time(23, 59, 59, 0))))
    }

    /// Whether `civil` (an instant `at` in the automation's zone) is past it.
    fn passed(&self, civil: DateTime, at: Millis) -> bool {
        match self {
            Until::Instant(until) => at > until.as_millisecond(),
            Until::Civil(until) => civil > *until,
        }
    }
}

/// What a `--every` spec says: a span, or a rule (RRULE text).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Every {
    Span(SignedDuration),
    Rule(String),
}

/// Reads a `--every` spec: a span (`2h`, `90m`, `1h30m`), or days and a
/// time (`09:00`, `daily 09:00`, `weekdays 09:00`, `weekends 10:30`,
/// `mon,wed,fri 18:00`), or `hourly`. What it cannot read is said, never
/// guessed.
pub fn parse_every(text: &str) -> Result<Every, String> {
    let text = text.trim().to_ascii_lowercase();
    if text.is_empty() {
        return Err("Say when it runs, such as \"weekdays 09:00\" or \"2h\".".to_owned());
    }
    if text == "hourly" {
        return Ok(Every::Rule("FREQ=HOURLY;BYMINUTE=0;BYSECOND=0".to_owned()));
    }
    let span = text
        .parse::<jiff::Span>()
        .ok()
        .and_then(|span| span.to_duration(jiff::SpanRelativeTo::days_are_24_hours()).ok());
    if let Some(span) = span {
        if span < MIN_SPAN {
            return Err(format!("\"{text}\" is too often: an automation runs at most once a minute."));
        }
        if span > MAX_SPAN {
            return Err(format!(
                "\"{text}\" is longer than a week: give days and a time instead, such as \"mon 09:00\", or an RRULE."
            ));
        }
        return Ok(Every::Span(span));
    }
    let (days, time) = match text.rsplit_once(char::is_whitespace) {
        Some((days, time)) => (days.trim(), time),
        None => ("daily", text.as_str()),
    };
    let (hour, minute) = parse_time(time).ok_or_else(|| {
        format!("\"{text}\" is not a schedule Switchboard reads: give a span such as \"2h\", or days and a time such as \"weekdays 09:00\".")
    })?;
    let by_day = match days {
        "daily" | "every day" | "day" => None,
        "weekdays" => Some("MO,TU,WE,TH,FR".to_owned()),
        "weekends" => Some("SA,SU".to_owned()),
        list => Some(parse_days(list)?),
    };
    let at = format!("BYHOUR={hour};BYMINUTE={minute};BYSECOND=0");
    Ok(Every::Rule(match by_day {
        None => format!("FREQ=DAILY;{at}"),
        Some(days) => format!("FREQ=WEEKLY;BYDAY={days};{at}"),
    }))
}

/// `HH:MM` on a 24-hour clock.
fn parse_time(text: &str) -> Option<(u8, u8)> {
    let (hour, minute) = text.split_once(':')?;
    let (hour, minute): (u8, u8) = (hour.parse().ok()?, minute.parse().ok()?);
    (hour < 24 && minute < 60 && text.len() <= 5).then_some((hour, minute))
}

/// `mon,wed,fri` (or the days' whole names) as RRULE days.
fn parse_days(list: &str) -> Result<String, String> {
    let days = [
        ("mo", "monday"),
        ("tu", "tuesday"),
        ("we", "wednesday"),
        ("th", "thursday"),
        ("fr", "friday"),
        ("sa", "saturday"),
        ("su", "sunday"),
    ];
    let mut chosen = Vec::new();
    for word in list.split([',', ' ']).map(str::trim).filter(|w| !w.is_empty()) {
        let word = word.trim_end_matches('s');
        let Some((code, _)) = days.iter().find(|(_, name)| word.len() >= 2 && name.starts_with(word)) else {
            return Err(format!(
                "\"{word}\" is not a day Switchboard reads: give days such as \"mon,wed,fri\", \"weekdays\" or \"daily\"."
            ));
        };
        let code = code.to_ascii_uppercase();
        if !chosen.contains(&code) {
            chosen.push(code);
        }
    }
    if chosen.is_empty() {
        return Err("Name the days it runs, such as \"mon,wed,fri\".".to_owned());
    }
    Ok(chosen.join(","))
}

/// The time zone named (an IANA name such as `Europe/Berlin`), or this
/// machine's when none is.
pub fn zone_of(name: Option<&str>) -> Result<TimeZone, String> {
    match name.map(str::trim).filter(|n| !n.is_empty()) {
        None => Ok(TimeZone::system()),
        Some(name) => TimeZone::get(name)
            .map_err(|_| format!("No time zone is called \"{name}\": give an IANA name such as Europe/Berlin.")),
    }
}

/// Reads an RRULE (with or without its `RRULE:` prefix). Parts Switchboard
/// does not keep are refused in words: a start (an automation's schedule
/// starts when it is made), more lines, seconds.
pub fn parse_rule(text: &str) -> Result<Rule, String> {
    let text = text.trim();
    let body = text.strip_prefix("RRULE:").unwrap_or(text);
    if body.contains(['\n', '\r']) || body.to_ascii_uppercase().contains("DTSTART") {
        return Err("Give the RRULE line alone (FREQ=…;…): its start is when the automation is made.".to_owned());
    }
    let upper = body.to_ascii_uppercase();
    if upper.contains("FREQ=SECONDLY")
        || upper.split(';').any(|part| part.starts_with("BYSECOND=") && part != "BYSECOND=0")
    {
        return Err("Switchboard runs automations to the minute: a rule by seconds is not kept.".to_owned());
    }
    // Its end is judged here, in the automation's zone (the crate would
    // read a time without a zone in a zone of its own).
    let mut until = None;
    let mut parts = Vec::new();
    for part in body.split(';').filter(|part| !part.trim().is_empty()) {
        match part.split_once('=') {
            Some((name, value)) if name.trim().eq_ignore_ascii_case("UNTIL") => {
                until = Some(Until::parse(&value.trim().to_ascii_uppercase())?);
            }
            _ => parts.push(part),
        }
    }
    let rule =
        parts.join(";").parse::<RRule<Unvalidated>>().map_err(|error| format!("The RRULE cannot be read: {error}."))?;
    if until.is_some() && rule.get_count().is_some() {
        return Err("The RRULE gives both COUNT and UNTIL: give one of them.".to_owned());
    }
    Ok(Rule { rule, until })
}

impl Schedule {
    /// A span schedule, counted from `anchor` (when it was made).
    pub fn span(every: SignedDuration, anchor: Millis) -> Schedule {
        Schedule { kind: Kind::Span { every: every.as_millis() as i64, anchor }, zone: TimeZone::UTC }
    }

    /// A rule, starting from `anchor` (when it was made) in `zone`. Refused
    /// in words where it cannot run from then on.
    pub fn rule(rule: Rule, zone: TimeZone, anchor: Millis) -> Result<Schedule, String> {
        let at = Timestamp::from_millisecond(anchor).map_err(|e| e.to_string())?;
        let start = zone.to_datetime(at).with().second(0).subsec_nanosecond(0).build().map_err(|e| e.to_string())?;
        if let Some(until) = rule.until
            && until.passed(zone.to_datetime(at), anchor)
        {
            return Err("The rule ended before now: it never runs from now on.".to_owned());
        }
        let schedule = Schedule { kind: Kind::Rule { rule: Box::new(rule.rule), start, until: rule.until }, zone };
        schedule.rule_set(None)?;
        if schedule.next_after(anchor).is_none() {
            return Err("The rule never runs from now on.".to_owned());
        }
        Ok(schedule)
    }

    /// A `--every` spec or an RRULE in `zone` (none: this machine's).
    pub fn of(
        every: Option<&str>,
        rrule: Option<&str>,
        zone: Option<&str>,
        anchor: Millis,
    ) -> Result<Schedule, String> {
        let zone = zone_of(zone)?;
        match (every, rrule) {
            (Some(every), None) => match parse_every(every)? {
                Every::Span(span) => Ok(Schedule::span(span, anchor)),
                Every::Rule(rule) => Schedule::rule(parse_rule(&rule)?, zone, anchor),
            },
            (None, Some(rule)) => Schedule::rule(parse_rule(rule)?, zone, anchor),
            _ => Err("Give a schedule: --every or --rrule.".to_owned()),
        }
    }

    /// The rule's set, started at `start` or, where that is exact, at the
    /// last whole period before `from` (so a rule made long ago is not
    /// walked from its start each time).
    fn rule_set(&self, from: Option<DateTime>) -> Result<RRuleSet, String> {
        let Kind::Rule { rule, start, .. } = &self.kind else { return Err("not a rule".to_owned()) };
        let start = from.map_or(*start, |from| reanchored(rule, *start, from));
        (**rule).clone().build(floating(start)?).map_err(|error| format!("The RRULE cannot run: {error}."))
    }

    /// The first run strictly after `after` (Unix ms); none when it runs no
    /// more.
    pub fn next_after(&self, after: Millis) -> Option<Millis> {
        self.runs_after(after, 1).into_iter().next()
    }

    /// The runs in `(from, to]`, oldest first, at most `cap` of them.
    pub fn runs_between(&self, from: Millis, to: Millis, cap: usize) -> Vec<Millis> {
        let mut runs = Vec::new();
        let mut after = from;
        while runs.len() < cap {
            let Some(next) = self.next_after(after) else { break };
            if next > to {
                break;
            }
            runs.push(next);
            after = next;
        }
        runs
    }

    fn runs_after(&self, after: Millis, count: usize) -> Vec<Millis> {
        match &self.kind {
            Kind::Span { every, anchor } => {
                // The first run is a whole span after it was made.
                let passed = ((after - anchor).div_euclid(*every) + 1).max(1);
                (0..count as i64).map(|n| anchor + (passed + n) * every).collect()
            }
            Kind::Rule { until, .. } => {
                let Ok(at) = Timestamp::from_millisecond(after) else { return Vec::new() };
                // A day before, in civil time: a time near a change of the
                // clocks maps to an instant up to hours away.
                let Ok(mut from) = self.zone.to_datetime(at).checked_sub(SignedDuration::from_hours(26)) else {
                    return Vec::new();
                };
                let Ok(set) = self.rule_set(Some(from)) else { return Vec::new() };
                let mut runs: Vec<Millis> = Vec::new();
                for _ in 0..MAX_BATCHES {
                    let Ok(floating_from) = floating(from) else { break };
                    let batch = set.clone().after(floating_from).all(BATCH);
                    let civil: Vec<DateTime> = batch.dates.iter().filter_map(civil_of).collect();
                    let instants = civil.iter().filter_map(|c| Some((*c, instant_of(&self.zone, *c)?)));
                    for (civil, run) in instants.filter(|(_, run)| *run > after) {
                        if until.is_some_and(|until| until.passed(civil, run)) {
                            return runs;
                        }
                        if runs.last() != Some(&run) {
                            runs.push(run);
                        }
                        if runs.len() == count {
                            return runs;
                        }
                    }
                    match civil.last().and_then(|last| last.checked_add(SignedDuration::from_secs(1)).ok()) {
                        Some(next) if batch.limited => from = next,
                        _ => break,
                    }
                }
                runs
            }
        }
    }
}

/// How many runs one ask of the rule crate gives, and how many asks one
/// answer takes at most.
const BATCH: u16 = 256;
const MAX_BATCHES: usize = 64;

/// A later start for `rule` that gives the same runs from `from` on: whole
/// periods of its frequency after `start`, where periods are of one length
/// in civil time and the rule does not count its runs.
fn reanchored(rule: &RRule<Unvalidated>, start: DateTime, from: DateTime) -> DateTime {
    use rrule::Frequency;
    let unit = match rule.get_freq() {
        Frequency::Minutely => 1,
        Frequency::Hourly => 60,
        Frequency::Daily => 24 * 60,
        Frequency::Weekly => 7 * 24 * 60,
        _ => return start,
    };
    if rule.get_count().is_some() || from <= start {
        return start;
    }
    let period = unit * i64::from(rule.get_interval().max(1));
    let whole = start.duration_until(from).as_mins() / period * period;
    start.checked_add(SignedDuration::from_mins(whole)).unwrap_or(start)
}

/// A civil time as the rule crate's "UTC": a zone with no clock changes,
/// so the rule is expanded in civil time alone.
fn floating(civil: DateTime) -> Result<chrono::DateTime<Tz>, String> {
    use chrono::TimeZone as _;
    Tz::UTC
        .with_ymd_and_hms(
            i32::from(civil.year()),
            civil.month() as u32,
            civil.day() as u32,
            civil.hour() as u32,
            civil.minute() as u32,
            civil.second() as u32,
        )
        .single()
        .ok_or_else(|| format!("{civil} cannot start a rule"))
}

fn civil_of(floating: &chrono::DateTime<Tz>) -> Option<DateTime> {
    use chrono::{Datelike, Timelike};
    DateTime::new(
        i16::try_from(floating.year()).ok()?,
        i8::try_from(floating.month()).ok()?,
        i8::try_from(floating.day()).ok()?,
        i8::try_from(floating.hour()).ok()?,
        i8::try_from(floating.minute()).ok()?,
        0,
        0,
    )
    .ok()
}

/// The instant a civil time names in `zone`: a time in a gap runs at the
/// gap's end (the first valid minute after it); a time that occurs twice, at
/// its first.
pub fn instant_of(zone: &TimeZone, civil: DateTime) -> Option<Millis> {
    let at = match zone.to_ambiguous_timestamp(civil).offset() {
        AmbiguousOffset::Unambiguous { offset } => offset.to_timestamp(civil).ok()?,
        AmbiguousOffset::Fold { before, .. } => before.to_timestamp(civil).ok()?,
        AmbiguousOffset::Gap { before, .. } => {
            // With the offset before the gap the time is past the gap's
            // end: the change of the clocks just before it is that end.
            let past = before.to_timestamp(civil).ok()?.checked_add(SignedDuration::from_secs(1)).ok()?;
            zone.preceding(past).next()?.timestamp()
        }
    };
    Some(at.as_millisecond())
}

#[cfg(test)]
mod tests;
