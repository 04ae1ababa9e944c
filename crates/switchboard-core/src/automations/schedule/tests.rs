use super::*;

fn at(text: &str) -> Millis {
    text.parse::<Timestamp>().unwrap().as_millisecond()
}

fn utc(ms: Millis) -> String {
    Timestamp::from_millisecond(ms).unwrap().to_string()
}

fn runs(schedule: &Schedule, after: &str, count: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut from = at(after);
    for _ in 0..count {
        let Some(next) = schedule.next_after(from) else { break };
        out.push(utc(next));
        from = next;
    }
    out
}

fn every(spec: &str, zone: &str, made: &str) -> Schedule {
    Schedule::of(Some(spec), None, Some(zone), at(made)).unwrap()
}

fn rule(rule: &str, zone: &str, made: &str) -> Schedule {
    Schedule::of(None, Some(rule), Some(zone), at(made)).unwrap()
}

#[test]
fn every_specs_read_as_spans_or_rules() {
    let rule = |r: &str| Ok(Every::Rule(r.to_owned()));
    let cases: [(&str, Result<Every, String>); 9] = [
        ("2h", Ok(Every::Span(SignedDuration::from_hours(2)))),
        ("1h30m", Ok(Every::Span(SignedDuration::from_mins(90)))),
        ("weekdays 09:00", rule("FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;BYHOUR=9;BYMINUTE=0;BYSECOND=0")),
        ("Weekends 10:30", rule("FREQ=WEEKLY;BYDAY=SA,SU;BYHOUR=10;BYMINUTE=30;BYSECOND=0")),
        ("09:15", rule("FREQ=DAILY;BYHOUR=9;BYMINUTE=15;BYSECOND=0")),
        ("daily 23:59", rule("FREQ=DAILY;BYHOUR=23;BYMINUTE=59;BYSECOND=0")),
        ("mon,wed,Fridays 18:00", rule("FREQ=WEEKLY;BYDAY=MO,WE,FR;BYHOUR=18;BYMINUTE=0;BYSECOND=0")),
        ("tue thu 07:05", rule("FREQ=WEEKLY;BYDAY=TU,TH;BYHOUR=7;BYMINUTE=5;BYSECOND=0")),
        ("hourly", rule("FREQ=HOURLY;BYMINUTE=0;BYSECOND=0")),
    ];
    for (spec, read) in cases {
        assert_eq!(parse_every(spec), read, "{spec}");
    }
}

#[test]
fn what_every_cannot_read_is_said_never_guessed() {
    let cases = [
        ("", "Say when it runs"),
        ("30s", "at most once a minute"),
        ("8d", "longer than a week"),
        ("9am", "is not a schedule Switchboard reads"),
        ("25:00", "is not a schedule Switchboard reads"),
        ("weekdays 9", "is not a schedule Switchboard reads"),
        ("funday 09:00", "\"funday\" is not a day"),
        ("m 09:00", "\"m\" is not a day"),
    ];
    for (spec, said) in cases {
        let error = parse_every(spec).unwrap_err();
        assert!(error.contains(said), "{spec}: {error}");
    }
}

#[test]
fn rules_and_zones_that_cannot_run_are_refused_in_words() {
    let made = at("2026-11-29T12:00:00Z");
    let cases = [
        (None, Some("FREQ=SECONDLY"), None, "to the minute"),
        (None, Some("FREQ=DAILY;BYSECOND=30"), None, "to the minute"),
        (None, Some("DTSTART:20260101T000000Z\nRRULE:FREQ=DAILY"), None, "the RRULE line alone"),
        (None, Some("FREQ=FORTNIGHTLY"), None, "The RRULE cannot be read"),
        (None, Some("FREQ=DAILY;COUNT=1"), None, "never runs from now on"),
        (None, Some("FREQ=DAILY;UNTIL=20250101T000000Z"), None, "never runs from now on"),
        (Some("weekdays 09:00"), None, Some("Mars/Olympus"), "No time zone is called \"Mars/Olympus\""),
        (None, None, None, "Give a schedule"),
    ];
    for (every, rule, zone, said) in cases {
        let error = Schedule::of(every, rule, zone, made).unwrap_err();
        assert!(error.contains(said), "{every:?} {rule:?} {zone:?}: {error}");
    }
}

#[test]
fn a_span_runs_a_whole_span_after_it_was_made_and_each_span_after() {
    let schedule = every("2h", "UTC", "2026-11-29T10:00:00Z");
    assert_eq!(
        runs(&schedule, "2026-11-29T10:00:00Z", 3),
        ["2026-11-29T12:00:00Z", "2026-11-29T14:00:00Z", "2026-11-29T16:00:00Z"]
    );
    // Asked late (the machine slept): the next run on the same beat.
    assert_eq!(runs(&schedule, "2026-11-29T15:10:00Z", 1), ["2026-11-29T16:00:00Z"]);
    // A span does not follow the clocks: the same beat across a change.
    let berlin = every("1h", "Europe/Berlin", "2026-03-29T00:00:00Z");
    assert_eq!(runs(&berlin, "2026-03-29T00:00:00Z", 2), ["2026-03-29T01:00:00Z", "2026-03-29T02:00:00Z"]);
}

#[test]
fn days_and_a_time_run_in_their_zone() {
    // Made on a Friday after nine: the next weekday is Monday.
    let weekdays = every("weekdays 09:00", "UTC", "2026-11-27T10:00:00Z");
    assert_eq!(runs(&weekdays, "2026-11-27T10:00:00Z", 2), ["2026-11-30T09:00:00Z", "2026-12-01T09:00:00Z"]);
    // Nine in Kolkata (+05:30) and in Los Angeles (-08:00 in winter).
    let kolkata = every("09:00", "Asia/Kolkata", "2026-11-29T00:00:00Z");
    assert_eq!(runs(&kolkata, "2026-11-29T00:00:00Z", 1), ["2026-11-29T03:30:00Z"]);
    let angeles = every("09:00", "America/Los_Angeles", "2026-11-29T00:00:00Z");
    assert_eq!(runs(&angeles, "2026-11-29T00:00:00Z", 1), ["2026-11-29T17:00:00Z"]);
}

#[test]
fn a_time_the_clocks_skip_runs_at_the_first_minute_after_and_one_they_repeat_runs_once() {
    // Berlin: on 2026-03-29 clocks go from 02:00 to 03:00; on 2026-10-25 from 03:00 back to 02:00.
    let spring = every("02:30", "Europe/Berlin", "2026-03-27T12:00:00Z");
    assert_eq!(
        runs(&spring, "2026-03-27T12:00:00Z", 3),
        // 02:30 CET; the gap's end, 03:00 CEST; 02:30 CEST.
        ["2026-03-28T01:30:00Z", "2026-03-29T01:00:00Z", "2026-03-30T00:30:00Z"]
    );
    let autumn = every("02:30", "Europe/Berlin", "2026-10-23T12:00:00Z");
    assert_eq!(
        runs(&autumn, "2026-10-23T12:00:00Z", 3),
        // 02:30 CEST; 02:30 happens twice on the 25th: once, the first; 02:30 CET.
        ["2026-10-24T00:30:00Z", "2026-10-25T00:30:00Z", "2026-10-26T01:30:00Z"]
    );
    // New York: 2026-03-08 02:00 to 03:00, and 2026-11-01 02:00 back to 01:00.
    let gap = every("02:15", "America/New_York", "2026-03-07T00:00:00Z");
    assert_eq!(runs(&gap, "2026-03-07T12:00:00Z", 2), ["2026-03-08T07:00:00Z", "2026-03-09T06:15:00Z"]);
    let fold = every("01:30", "America/New_York", "2026-10-31T00:00:00Z");
    assert_eq!(runs(&fold, "2026-10-31T12:00:00Z", 2), ["2026-11-01T05:30:00Z", "2026-11-02T06:30:00Z"]);
}

#[test]
fn month_ends_and_leap_days_follow_the_calendar() {
    let day_31 = rule("FREQ=MONTHLY;BYMONTHDAY=31;BYHOUR=9;BYMINUTE=0;BYSECOND=0", "UTC", "2026-01-15T00:00:00Z");
    assert_eq!(
        runs(&day_31, "2026-01-15T00:00:00Z", 3),
        ["2026-01-31T09:00:00Z", "2026-03-31T09:00:00Z", "2026-05-31T09:00:00Z"]
    );
    let last = rule("FREQ=MONTHLY;BYMONTHDAY=-1;BYHOUR=9;BYMINUTE=0;BYSECOND=0", "UTC", "2028-01-15T00:00:00Z");
    assert_eq!(
        runs(&last, "2028-01-15T00:00:00Z", 3),
        ["2028-01-31T09:00:00Z", "2028-02-29T09:00:00Z", "2028-03-31T09:00:00Z"]
    );
    let leap = rule(
        "RRULE:FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29;BYHOUR=12;BYMINUTE=0;BYSECOND=0",
        "UTC",
        "2026-01-01T00:00:00Z",
    );
    assert_eq!(runs(&leap, "2026-01-01T00:00:00Z", 2), ["2028-02-29T12:00:00Z", "2032-02-29T12:00:00Z"]);
}

#[test]
fn a_rule_with_an_end_runs_until_it() {
    let three = rule("FREQ=DAILY;COUNT=3;BYHOUR=6;BYMINUTE=0;BYSECOND=0", "UTC", "2026-11-29T12:00:00Z");
    assert_eq!(
        runs(&three, "2026-11-29T12:00:00Z", 5),
        ["2026-11-30T06:00:00Z", "2026-12-01T06:00:00Z", "2026-12-02T06:00:00Z"]
    );
}

#[test]
fn a_rules_until_is_an_instant_with_z_else_a_time_in_the_automations_zone() {
    let made = "2026-11-29T12:00:00Z";
    let daily = "FREQ=DAILY;BYHOUR=9;BYMINUTE=0;BYSECOND=0";
    let last = |until: &str, zone: &str| {
        let runs = runs(&rule(&format!("{daily};UNTIL={until}"), zone, made), made, 10);
        (runs.len(), runs.last().cloned().unwrap_or_default())
    };
    // 09:00 in Berlin is 08:00 UTC in winter; in Kolkata 03:30 UTC.
    let cases = [
        ("20261203T080000Z", "Europe/Berlin", 4, "2026-12-03T08:00:00Z"),
        ("20261203T075959Z", "Europe/Berlin", 3, "2026-12-02T08:00:00Z"),
        ("20261203T090000", "Europe/Berlin", 4, "2026-12-03T08:00:00Z"),
        ("20261203T085959", "Europe/Berlin", 3, "2026-12-02T08:00:00Z"),
        ("20261202", "Europe/Berlin", 3, "2026-12-02T08:00:00Z"),
        ("20261201T040000Z", "Asia/Kolkata", 2, "2026-12-01T03:30:00Z"),
        ("20261201T090000", "Asia/Kolkata", 2, "2026-12-01T03:30:00Z"),
        ("20261201T090000", "America/New_York", 3, "2026-12-01T14:00:00Z"),
    ];
    for (until, zone, count, end) in cases {
        assert_eq!(last(until, zone), (count, end.to_owned()), "UNTIL={until} in {zone}");
    }
    let refused = [
        ("FREQ=DAILY;UNTIL=tomorrow", "UNTIL=TOMORROW is not a time Switchboard reads"),
        ("FREQ=DAILY;UNTIL=20261301", "is not a time Switchboard reads"),
        ("FREQ=DAILY;COUNT=3;UNTIL=20261231", "both COUNT and UNTIL"),
        ("FREQ=DAILY;BYHOUR=9;UNTIL=20261129T090000", "never runs from now on"),
    ];
    for (text, said) in refused {
        let error = Schedule::of(None, Some(text), Some("Europe/Berlin"), at(made)).unwrap_err();
        assert!(error.contains(said), "{text}: {error}");
    }
}

#[test]
fn runs_missed_while_the_engine_was_down_are_counted() {
    let weekdays = every("weekdays 09:00", "UTC", "2026-11-01T00:00:00Z");
    // Down from Friday 08:00 to Tuesday 10:00: Friday, Monday and Tuesday.
    let missed = weekdays.runs_between(at("2026-11-27T08:00:00Z"), at("2026-12-01T10:00:00Z"), 100);
    assert_eq!(
        missed.iter().map(|m| utc(*m)).collect::<Vec<_>>(),
        ["2026-11-27T09:00:00Z", "2026-11-30T09:00:00Z", "2026-12-01T09:00:00Z"]
    );
    // At most as many as asked.
    assert_eq!(
        every("1m", "UTC", "2026-11-01T00:00:00Z")
            .runs_between(at("2026-11-01T00:00:00Z"), at("2026-11-02T00:00:00Z"), 10)
            .len(),
        10
    );
}

#[test]
fn a_rule_made_long_ago_still_says_its_next_run() {
    // Every five minutes for 300 days is more runs than the rule crate walks at once.
    let often = rule("FREQ=MINUTELY;INTERVAL=5", "Europe/Berlin", "2026-01-01T00:02:00Z");
    assert_eq!(runs(&often, "2026-10-28T13:01:00Z", 2), ["2026-10-28T13:02:00Z", "2026-10-28T13:07:00Z"]);
    let weekly = rule("FREQ=WEEKLY;INTERVAL=2;BYDAY=MO;BYHOUR=8;BYMINUTE=0;BYSECOND=0", "UTC", "2020-01-06T00:00:00Z");
    // 2020-01-06 was a Monday; every other Monday after it.
    assert_eq!(runs(&weekly, "2026-11-29T00:00:00Z", 2), ["2026-11-30T08:00:00Z", "2026-12-14T08:00:00Z"]);
}
