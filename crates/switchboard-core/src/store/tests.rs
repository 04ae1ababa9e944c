use super::*;
use switchboard_api::{LogKind, TaskInfo, TaskSpec};
use switchboard_protocol::TaskId;

fn profile(name: &str) -> Profile {
    Profile {
        id: ProfileId::new(),
        spec: ProfileSpec {
            name: name.into(),
            command: "sh".into(),
            args: vec!["-c".into(), "echo hi".into()],
            env: [("A".to_owned(), "1".to_owned())].into(),
            cwd: "/tmp".into(),
            kind: AgentKind::ClaudeCode,
            start_on_launch: true,
            isolation: switchboard_api::Isolation::Worktree,
            ..Default::default()
        },
        created_at: 1_700_000_000_000,
        host: None,
    }
}

fn session(profile: &Profile, state: SessionState) -> SessionInfo {
    SessionInfo {
        id: SessionId::new(),
        profile_id: profile.id.clone(),
        started_at: 1_700_000_000_500,
        size: TermSize { rows: 30, cols: 100 },
        state,
        agent_session_id: Some("11be1930-3c45-41f0-8a97-80ee87b18f26".into()),
        workspace: Some("/work/trees/one".into()),
    }
}

#[test]
fn migrations_are_valid() {
    MIGRATIONS.validate().unwrap();
}

#[test]
fn profiles_round_trip_in_memory() {
    let store = Store::open_in_memory().unwrap();
    let mut p = profile("alpha");
    store.insert_profile(&p).unwrap();
    assert_eq!(store.list_profiles().unwrap(), vec![p.clone()]);
    assert!(store.profile_name_taken("alpha", None).unwrap());
    assert!(!store.profile_name_taken("alpha", Some(&p.id)).unwrap());

    p.spec.name = "beta".into();
    p.spec.kind = AgentKind::Codex;
    assert!(store.update_profile(&p.id, &p.spec).unwrap());
    assert_eq!(store.get_profile(&p.id).unwrap(), Some(p.clone()));
    assert!(!store.update_profile(&ProfileId::new(), &p.spec).unwrap());

    assert!(store.delete_profile(&p.id).unwrap());
    assert_eq!(store.get_profile(&p.id).unwrap(), None);
}

#[test]
fn duplicate_profile_names_are_refused_by_the_schema() {
    let store = Store::open_in_memory().unwrap();
    store.insert_profile(&profile("same")).unwrap();
    assert!(matches!(store.insert_profile(&profile("same")), Err(StoreError::Sqlite(_))));
}

#[test]
fn session_states_round_trip() {
    let store = Store::open_in_memory().unwrap();
    let p = profile("a");
    store.insert_profile(&p).unwrap();
    let states = [
        SessionState::Running { pid: 42 },
        SessionState::Exited { exit_code: 3, signal: None, ended_at: 5 },
        SessionState::Killed { exit_code: 143, signal: Some("Terminated".into()), ended_at: 6 },
        SessionState::Interrupted { ended_at: 7 },
    ];
    for state in states {
        let s = session(&p, SessionState::Running { pid: 7 });
        store.insert_session(&s, Some(12345), "secret").unwrap();
        store.update_session_state(&s.id, &state).unwrap();
        let found = store.list_sessions().unwrap().into_iter().find(|x| x.id == s.id).unwrap();
        assert_eq!(found.state, state);
    }
    let running = store.running_sessions().unwrap();
    assert_eq!(running.len(), 1);
    assert_eq!(running[0].pid_start_time, Some(12345));
}

#[test]
fn deleting_a_profile_deletes_its_sessions_but_not_their_history() {
    let store = Store::open_in_memory().unwrap();
    let p = profile("a");
    store.insert_profile(&p).unwrap();
    let s = session(&p, SessionState::Running { pid: 9 });
    store.insert_session(&s, None, "secret").unwrap();
    store.append_event(1, Some(&s.id), &LogKind::SessionStarted { pid: 9 }).unwrap();
    store.delete_profile(&p.id).unwrap();
    assert!(store.list_sessions().unwrap().is_empty());
    assert_eq!(store.list_events(Some(&s.id)).unwrap().len(), 1);
}

#[test]
fn event_log_is_append_only() {
    let store = Store::open_in_memory().unwrap();
    let s = SessionId::new();
    let first = store.append_event(10, Some(&s), &LogKind::SessionStarted { pid: 1 }).unwrap();
    let second = store.append_event(20, Some(&s), &LogKind::SessionExited { exit_code: 0, signal: None }).unwrap();
    assert!(second > first);
    store.append_event(30, None, &LogKind::SessionInterrupted { reaped: false }).unwrap();

    let events = store.list_events(Some(&s)).unwrap();
    assert_eq!(events.iter().map(|e| e.at).collect::<Vec<_>>(), vec![10, 20]);
    assert_eq!(events[1].kind, LogKind::SessionExited { exit_code: 0, signal: None });
    assert_eq!(store.list_events(None).unwrap().len(), 3);

    let update = store.conn.execute("UPDATE events SET at = 0", []);
    assert!(update.unwrap_err().to_string().contains("append-only"));
    let delete = store.conn.execute("DELETE FROM events", []);
    assert!(delete.unwrap_err().to_string().contains("append-only"));
}

#[test]
fn file_database_survives_reopen_and_uses_wal() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nested/switchboard.db");
    let p = profile("kept");
    {
        let store = Store::open(&path).unwrap();
        store.insert_profile(&p).unwrap();
        store.set_meta("demo_created", "1").unwrap();
        let mode: String = store.conn.pragma_query_value(None, "journal_mode", |r| r.get(0)).unwrap();
        assert_eq!(mode, "wal");
    }
    let store = Store::open(&path).unwrap();
    assert_eq!(store.list_profiles().unwrap(), vec![p]);
    assert_eq!(store.meta("demo_created").unwrap().as_deref(), Some("1"));
    assert_eq!(store.meta("missing").unwrap(), None);
}

#[test]
fn migrates_an_empty_database_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("empty.db");
    Connection::open(&path).unwrap().execute_batch("VACUUM").unwrap();
    let store = Store::open(&path).unwrap();
    assert_eq!(store.schema_version().unwrap(), 26);
    assert!(store.list_profiles().unwrap().is_empty());
}

#[test]
fn settings_are_their_defaults_until_saved_and_kept_across_a_reopen() {
    use switchboard_api::{NotifyChoices, QuietHours, Settings, Theme};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("switchboard.db");
    let chosen = Settings {
        default_task_time_limit_secs: 45 * 60,
        default_quiet_alert_secs: 0,
        turn_quiet_secs: 5,
        limit_margin_secs: 10,
        limit_retry_secs: 120,
        usage_warn_percent: 90,
        notify: NotifyChoices { task_completed: false, ..NotifyChoices::default() },
        quiet_hours: QuietHours::Daily { from: "22:00".into(), to: "07:00".into() },
        theme: Theme::Light,
        terminal_grid: switchboard_api::TerminalGrid {
            shows: switchboard_api::GridShows::Working,
            chosen: vec![ProfileId::new(), ProfileId::new()],
            zoomed: None,
        },
        prices: switchboard_api::PriceTable { source: "mine".into(), taken: "2026-11-29".into(), models: vec![] },
    };
    {
        let store = Store::open(&path).unwrap();
        let defaults = store.settings().unwrap();
        assert_eq!(defaults, Settings::default());
        assert_eq!(
            (defaults.default_task_time_limit_secs, defaults.default_quiet_alert_secs),
            (switchboard_api::DEFAULT_TASK_TIME_LIMIT_SECS, switchboard_api::DEFAULT_QUIET_ALERT_SECS)
        );
        assert!(defaults.notify.task_completed && defaults.notify.agent_quiet);
        assert_eq!((defaults.quiet_hours, defaults.theme), (QuietHours::Off, Theme::System));
        store.save_settings(&Settings::default(), 1).unwrap();
        store.save_settings(&chosen, 2).unwrap();
    }
    assert_eq!(Store::open(&path).unwrap().settings().unwrap(), chosen);
}

#[test]
fn settings_saved_by_an_older_app_read_whole() {
    let store = Store::open_in_memory().unwrap();
    store
        .conn
        .execute(
            "INSERT INTO settings (id, value, updated_at) VALUES (1, '{\"default_task_time_limit_secs\":600}', 0)",
            [],
        )
        .unwrap();
    let settings = store.settings().unwrap();
    assert_eq!(settings.default_task_time_limit_secs, 600);
    assert_eq!(settings.notify, switchboard_api::NotifyChoices::default());
    store.conn.execute("UPDATE settings SET value = 'not json'", []).unwrap();
    assert!(matches!(store.settings(), Err(StoreError::Corrupt { what: "settings", .. })));
}

#[test]
fn a_corrupt_row_is_an_error_not_a_panic() {
    let store = Store::open_in_memory().unwrap();
    store
        .conn
        .execute(
            "INSERT INTO profiles (id, name, command, cwd, kind, created_at) VALUES ('x', 'n', 'c', '/', 'generic', 0)",
            [],
        )
        .unwrap();
    assert!(matches!(store.list_profiles(), Err(StoreError::Corrupt { what: "id", .. })));
}

#[test]
fn a_file_that_is_not_a_database_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("switchboard.db");
    std::fs::write(&path, b"this is not sqlite, just some text that is long enough to matter").unwrap();
    let error = Store::open(&path).err().expect("opening garbage must fail");
    assert!(error.to_string().contains("not a database"), "{error}");
}

#[test]
fn recent_sessions_are_the_newest_in_order_and_single_lookups_work() {
    let store = Store::open_in_memory().unwrap();
    let p = profile("a");
    store.insert_profile(&p).unwrap();
    let mut ids = Vec::new();
    for n in 0..5 {
        let mut s = session(&p, SessionState::Interrupted { ended_at: n });
        s.started_at = 1000 + n;
        store.insert_session(&s, None, "secret").unwrap();
        ids.push(s.id);
    }
    let recent: Vec<_> = store.recent_sessions(3).unwrap().into_iter().map(|s| s.id).collect();
    assert_eq!(recent, ids[2..]);
    assert_eq!(store.get_session(&ids[1]).unwrap().map(|s| s.started_at), Some(1001));
    assert_eq!(store.get_session(&SessionId::new()).unwrap(), None);
    assert_eq!(store.session_ids_of_profile(&p.id).unwrap(), ids);
    assert!(store.session_ids_of_profile(&ProfileId::new()).unwrap().is_empty());
}

/// SQLite reports a full disk as SQLITE_FULL; `max_page_count` produces
/// exactly that error without filling a real disk.
#[test]
fn a_full_disk_is_a_clear_error_and_loses_nothing_already_stored() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("switchboard.db");
    let store = Store::open(&path).unwrap();
    let kept = profile("kept");
    store.insert_profile(&kept).unwrap();
    let pages: i64 = store.conn.pragma_query_value(None, "page_count", |r| r.get(0)).unwrap();
    store.conn.pragma_update(None, "max_page_count", pages).unwrap();

    let error = (0..10_000)
        .find_map(|n| {
            let mut p = profile(&format!("filler {n} {}", "x".repeat(500)));
            p.spec.cwd = "y".repeat(2000);
            store.insert_profile(&p).err()
        })
        .expect("the database must fill up");
    assert!(error.to_string().contains("full"), "{error}");

    drop(store);
    let reopened = Store::open(&path).unwrap();
    let profiles = reopened.list_profiles().unwrap();
    assert!(profiles.contains(&kept));
    // Space again: writing works again.
    reopened.insert_profile(&profile("after")).unwrap();
}

#[test]
fn a_task_or_signal_that_does_not_fit_its_state_is_left_out_not_the_whole_list() {
    let store = Store::open_in_memory().unwrap();
    let p = profile("alpha");
    store.insert_profile(&p).unwrap();
    let spec = TaskSpec { time_limit_secs: Some(60), ..TaskSpec::new(p.id.clone(), "fine") };
    let good = TaskInfo::queued(TaskId::new(), spec, 0, 1);
    store.save_task(&good).unwrap();
    // Completed, but without a session, an end or a result.
    store
        .conn
        .execute(
            "INSERT INTO tasks (id, profile_id, instruction, priority, time_limit_secs, state, ord, created_at)
             VALUES (?1, ?2, 'broken', 'normal', 60, 'completed', 1, 2)",
            params![TaskId::new().to_string(), p.id.to_string()],
        )
        .unwrap();
    store
        .conn
        .execute(
            "INSERT INTO signals (id, profile_id, session_id, state, created_at, record)
             VALUES ('s', ?1, 'x', 'handled', 3, '{\"not\": \"a signal\"}')",
            params![p.id.to_string()],
        )
        .unwrap();
    assert_eq!(store.active_tasks(None).unwrap(), [good]);
    assert!(store.finished_tasks(None, 10).unwrap().is_empty());
    assert!(store.list_signals(10).unwrap().is_empty());
    let kept: i64 = store.conn.query_row("SELECT COUNT(*) FROM tasks", [], |row| row.get(0)).unwrap();
    assert_eq!(kept, 2, "the bad row is left in place");
}

#[test]
fn search_finds_words_in_names_instructions_and_summaries_not_in_the_stored_json() {
    use crate::search::{Found, Query, hits};
    use switchboard_api::{TaskResult, TaskState};
    let store = Store::open_in_memory().unwrap();
    let p = profile("alpha");
    store.insert_profile(&p).unwrap();
    let spec = |title: Option<&str>, instruction: &str| TaskSpec {
        title: title.map(str::to_owned),
        time_limit_secs: Some(60),
        ..TaskSpec::new(p.id.clone(), instruction)
    };
    let named = TaskInfo::queued(TaskId::new(), spec(Some("Auth review"), "Review the login flow"), 0, 10);
    store.save_task(&named).unwrap();
    let mut done = TaskInfo::queued(TaskId::new(), spec(None, "Fix the build"), 1, 20);
    done.start(SessionId::new(), 21);
    let summary = switchboard_protocol::summary::parse_summary(
        "# Summary\n## Objective\nMake the parser fast\n## Notes\n- the token cache helps\n## Status\nCOMPLETED\n",
    );
    let result =
        TaskResult { summary, fallback: false, artifacts: vec![], rejected: vec![], results_json: None, errors: None };
    done.end(TaskState::Completed, 30, None, Some(result));
    store.save_task(&done).unwrap();
    let search = |text: &str| {
        let query = Query::parse(text).unwrap().unwrap();
        let (tasks, signals) = store.search_candidates(&query.like_patterns(), 50, 0).unwrap();
        hits(&query, &tasks, &signals)
    };

    let found = search("auth LOGIN");
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(
        found[0].found,
        Found::Task { task_id: named.id.clone(), title: "Auth review".into(), state: TaskState::Queued }
    );
    let found = search("token cache");
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        matches!(&found[0].found, Found::Summary { task_id, title, .. } if *task_id == done.id && title == "Fix the build")
    );
    assert!(found[0].snippet.contains("the token cache helps"), "{}", found[0].snippet);
    assert_eq!(found[0].at, 30, "a summary is as recent as its task's end");
    // Words that are only the stored record's keys and values are not found.
    for noise in ["objective", "fallback", "results_json", "%", "_"] {
        assert!(search(noise).is_empty(), "{noise}: {:?}", search(noise));
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]

    /// The queue's next task, place and length read in SQL agree with the
    /// pure queue rules over the same tasks, ties and all.
    #[test]
    fn queue_position_in_sql_is_the_pure_rules_position(
        tasks in proptest::collection::vec((proptest::bool::ANY, 0i64..4, 0i64..3, proptest::bool::ANY), 0..24)
    ) {
        let store = Store::open_in_memory().unwrap();
        let p = profile("queue");
        store.insert_profile(&p).unwrap();
        let mut ids = Vec::new();
        for (urgent, order, created, queued) in tasks {
            let priority = if urgent { switchboard_protocol::Priority::Urgent } else { switchboard_protocol::Priority::Normal };
            let spec = TaskSpec { priority, ..TaskSpec::new(p.id.clone(), "work") };
            let mut task = TaskInfo::queued(TaskId::new(), spec, order, created);
            if !queued {
                task.start(SessionId::new(), created);
            }
            store.save_task(&task).unwrap();
            ids.push(task.id);
        }
        let entries = store.queue_entries(&p.id).unwrap();
        proptest::prop_assert_eq!(store.queue_len(&p.id).unwrap(), entries.len());
        let next = crate::tasks::queue::pick_next(&entries).map(|q| q.id.clone());
        proptest::prop_assert_eq!(store.queue_next(&p.id).unwrap(), next);
        for id in &ids {
            let expected = crate::tasks::queue::position(&entries, id);
            proptest::prop_assert_eq!(store.queue_position(&p.id, id).unwrap(), expected);
        }
    }
}

#[test]
fn a_full_store_says_so_once_and_its_probe_sees_room_again() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("switchboard.db")).unwrap();
    store.insert_profile(&profile("kept")).unwrap();
    assert_eq!(store.take_problem_change(), None, "writable from the start");
    store.fill_up();
    store.probe_write();
    assert_eq!(store.take_problem_change(), Some(Some(switchboard_api::StorageProblem::Full)));
    let mut big = profile("too big");
    big.spec.cwd = "x".repeat(64 * 1024);
    assert!(store.insert_profile(&big).is_err());
    assert_eq!(store.take_problem_change(), None, "said once");
    store.make_room();
    store.probe_write();
    assert_eq!(store.take_problem_change(), Some(None));
    assert_eq!(store.list_profiles().unwrap().len(), 1, "the probe left nothing behind");
}

#[test]
fn a_delegation_is_at_work_until_its_outcome_and_then_listed_among_the_recent() {
    use switchboard_api::{Delegation, DelegationState};
    let store = Store::open_in_memory().unwrap();
    let delegation = |n: i64| Delegation {
        delegate_session: SessionId::new(),
        delegate_profile: ProfileId::new(),
        request: switchboard_protocol::SignalId::new(),
        requester_session: SessionId::new(),
        requester_profile: ProfileId::new(),
        work: format!("part {n}"),
        blocks: true,
        keep: false,
        started_at: n,
        state: DelegationState::Working,
        quiet_since: None,
        spent: Default::default(),
    };
    let (first, second) = (delegation(1), delegation(2));
    store.save_delegation(&first).unwrap();
    store.save_delegation(&second).unwrap();
    assert_eq!(store.working_delegations().unwrap(), vec![first.clone(), second.clone()]);

    let reported = Delegation { state: DelegationState::Reported { at: 3, status: "success".into() }, ..first.clone() };
    store.save_delegation(&reported).unwrap();
    assert_eq!(store.working_delegations().unwrap(), vec![second.clone()], "a reported delegate is no longer at work");
    assert_eq!(store.delegation_of(&first.delegate_session).unwrap(), Some(reported.clone()));
    assert_eq!(store.list_delegations(10).unwrap(), vec![reported.clone(), second.clone()]);
    assert_eq!(store.list_delegations(0).unwrap(), vec![second], "finished ones past the recent are left out");
    assert_eq!(store.delegation_of(&SessionId::new()).unwrap(), None);
}

#[test]
fn a_loop_keeps_its_iterations_and_verdicts_and_lists_by_state() {
    use switchboard_api::{Iteration, IterationOutcome, LoopInfo, LoopState, kept_stop_reason};
    use switchboard_protocol::LoopId;
    use switchboard_protocol::loops::{Completion, LoopSettings, Verdict};
    let store = Store::open_in_memory().unwrap();
    let p = profile("looper");
    store.insert_profile(&p).unwrap();
    let new_loop = |at: i64| LoopInfo {
        id: LoopId::new(),
        profile_id: p.id.clone(),
        settings: LoopSettings::new("Make the tests pass"),
        created_at: at,
        state: LoopState::Active,
        iterations: Vec::new(),
        iteration_count: 0,
        iterations_run: 0,
        spent: Default::default(),
        budget_used: None,
    };
    let (mut first, second, mut third) = (new_loop(1), new_loop(2), new_loop(3));
    let ended = |seq, number, reason: &str, verdict| Iteration {
        seq,
        number,
        task_id: None,
        session_id: Some(SessionId::new()),
        started_at: 10,
        outcome: IterationOutcome::Ended { at: 20, stop_reason: reason.into(), verdict },
        spent: Default::default(),
    };
    first.state = LoopState::Complete { at: 40, why: Completion::StopWord { word: "LOOP_COMPLETE".into() } };
    third.state = LoopState::Stalled { at: 50, repeated: 5, reason: "3 tests fail".into() };
    for info in [&first, &second, &third] {
        store.save_loop(info).unwrap();
    }
    first.iterations = vec![
        ended(1, 1, "3 tests fail", Verdict::Continue),
        Iteration { outcome: IterationOutcome::Interrupted { at: 30 }, ..ended(2, 2, "", Verdict::Continue) },
        ended(3, 2, "all pass", Verdict::Complete { why: Completion::StopWord { word: "LOOP_COMPLETE".into() } }),
    ];
    for iteration in &first.iterations {
        store.save_iteration(&first.id, iteration).unwrap();
    }
    (first.iteration_count, first.iterations_run) = (3, 2);
    assert_eq!(store.get_loop(&first.id).unwrap().as_ref(), Some(&first));
    assert_eq!(first.iterations_run(), 2, "an interrupted iteration does not count");
    assert_eq!(first.stop_reasons(), ["3 tests fail", "all pass"]);
    assert_eq!(store.loop_stop_reasons(&first.id, 10).unwrap(), ["3 tests fail", "all pass"]);
    assert_eq!(store.loop_stop_reasons(&first.id, 1).unwrap(), ["all pass"], "the latest");
    assert_eq!(store.active_loops().unwrap(), vec![second.clone()]);
    assert_eq!(store.open_loop_of(&p.id).unwrap(), Some(LoopState::Active), "the first open one");
    assert_eq!(
        store.list_loops(0).unwrap(),
        vec![second.clone(), third.clone()],
        "finished ones past the recent are left out"
    );
    assert_eq!(store.list_loops(5).unwrap(), vec![first.clone(), second, third]);

    // A profile's loops go with it, their iterations too; a long stop reason keeps its end.
    let long = format!("{}the last words", "x".repeat(10_000));
    assert!(kept_stop_reason(&long).ends_with("the last words") && kept_stop_reason(&long).len() <= 4096);
    store.delete_profile(&p.id).unwrap();
    assert_eq!(store.list_loops(5).unwrap(), vec![]);
    let rows: i64 = store.conn.query_row("SELECT count(*) FROM loop_iterations", [], |r| r.get(0)).unwrap();
    assert_eq!(rows, 0);
}

/// At iteration 9,900 a loop kept as one record took seconds per save and
/// sent megabytes to the window at each change: each save now writes one
/// iteration's row, and a loop is read as its latest iterations and counts.
#[test]
fn a_long_loop_is_saved_one_iteration_at_a_time_and_read_as_its_latest_iterations() {
    use switchboard_api::{Iteration, IterationOutcome, LOOP_ITERATIONS_SHOWN, LoopInfo, LoopState};
    use switchboard_protocol::LoopId;
    use switchboard_protocol::loops::{LoopSettings, Verdict};
    let store = Store::open_in_memory().unwrap();
    let p = profile("looper");
    store.insert_profile(&p).unwrap();
    let info = LoopInfo {
        id: LoopId::new(),
        profile_id: p.id.clone(),
        settings: LoopSettings::new("Make the tests pass"),
        created_at: 1,
        state: LoopState::Active,
        iterations: Vec::new(),
        iteration_count: 0,
        iterations_run: 0,
        spent: Default::default(),
        budget_used: None,
    };
    store.save_loop(&info).unwrap();
    let record_size = || store.conn.query_row("SELECT length(record) FROM loops", [], |r| r.get::<_, i64>(0)).unwrap();
    let size_at_start = record_size();
    let iteration = |seq: u32, outcome| Iteration {
        seq,
        number: seq,
        task_id: None,
        session_id: None,
        started_at: 10,
        outcome,
        spent: Default::default(),
    };
    for seq in 1..=2000u32 {
        store.save_iteration(&info.id, &iteration(seq, IterationOutcome::Running)).unwrap();
        let before = store.conn.total_changes();
        let ended =
            IterationOutcome::Ended { at: 20, stop_reason: format!("did step {seq}"), verdict: Verdict::Continue };
        store.save_iteration(&info.id, &iteration(seq, ended)).unwrap();
        assert_eq!(store.conn.total_changes() - before, 1, "one row written");
    }
    store.save_loop(&LoopInfo { state: LoopState::Cancelled { at: 30 }, ..info.clone() }).unwrap();
    assert_eq!(
        record_size(),
        size_at_start + "cancelled".len() as i64 - "active".len() as i64 + r#","at":30"#.len() as i64
    );

    let read = store.get_loop(&info.id).unwrap().unwrap();
    assert_eq!((read.iteration_count, read.iterations_run), (2000, 2000));
    let seqs: Vec<u32> = read.iterations.iter().map(|i| i.seq).collect();
    assert_eq!(seqs, (2000 - LOOP_ITERATIONS_SHOWN as u32 + 1..=2000).collect::<Vec<_>>(), "the latest, oldest first");
    // Older ones, page by page.
    let page = store.loop_iterations(&info.id, Some(seqs[0]), 3).unwrap();
    assert_eq!(page.iter().map(|i| i.seq).collect::<Vec<_>>(), [1948, 1949, 1950]);
    assert_eq!(store.loop_iterations(&info.id, Some(3), 10).unwrap().len(), 2);
    assert_eq!(store.loop_stop_reasons(&info.id, 2).unwrap(), ["did step 1999", "did step 2000"]);
}

#[test]
fn a_worktree_record_and_a_repository_setup_are_kept_and_listed_open_first() {
    use crate::worktree::{Kept, Setup, WorktreeRecord};
    let store = Store::open_in_memory().unwrap();
    let p = profile("builder");
    store.insert_profile(&p).unwrap();
    let record = |owner: &str, at| WorktreeRecord {
        owner: owner.into(),
        loop_id: None,
        profile_id: p.id.clone(),
        repository: "/work/repo".into(),
        branch: format!("switchboard/builder/{owner}"),
        base: "main".into(),
        path: format!("/data/worktrees/repo/{owner}"),
        created_at: at,
        setup: Setup::Pending,
        kept: Kept::Open,
        conflict: Vec::new(),
    };
    store.insert_worktree(&record("one", 1)).unwrap();
    store.insert_worktree(&record("two", 2)).unwrap();
    let discarded = WorktreeRecord {
        setup: Setup::Done,
        kept: Kept::Discarded { at: 5, patch: Some("/data/patches/one.patch".into()) },
        conflict: vec!["src/lib.rs".into()],
        ..record("one", 1)
    };
    store.update_worktree(&discarded).unwrap();
    assert_eq!(store.get_worktree("one").unwrap(), Some(discarded.clone()));
    let listed: Vec<String> = store.list_worktrees().unwrap().into_iter().map(|r| r.owner).collect();
    assert_eq!(listed, ["two", "one"], "open first, then the closed");
    assert_eq!(store.worktree_branches().unwrap().len(), 2);

    assert_eq!(store.repository_setup("/work/repo").unwrap(), None);
    store.set_repository_setup("/work/repo", Some("npm ci")).unwrap();
    assert_eq!(store.repository_setup("/work/repo").unwrap().as_deref(), Some("npm ci"));
    store.set_repository_setup("/work/repo", None).unwrap();
    assert_eq!(store.repository_setup("/work/repo").unwrap(), None);
}

#[test]
fn an_accounts_usage_and_the_windows_warned_of_are_kept_across_a_reopen() {
    use crate::limits::UsageRecord;
    use switchboard_api::UsageWindow;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("switchboard.db");
    let record = UsageRecord {
        account: "~/.claude".into(),
        windows: vec![
            UsageWindow { minutes: 300, used_percent: 85, resets_at: Some(1_000), level: Default::default() },
            UsageWindow { minutes: 10_080, used_percent: 12, resets_at: None, level: Default::default() },
        ],
        told_at: 5,
        warned: vec![(300, Some(1_000))],
    };
    Store::open(&path).unwrap().save_usage(&record).unwrap();
    assert_eq!(Store::open(&path).unwrap().list_usage().unwrap(), vec![record]);
}
