use proptest::prelude::*;

use super::*;

const CLARIFICATION: &str = "[CLARIFICATION_NEEDED]\nagent_id: bg-task-abc\ntimestamp: 2026-01-11T09:00:00-05:00\nblocked_at: \"Choosing the authentication strategy\"\nquestions:\n  - \"Analyze OAuth2, JWT, or both?\"\n  - \"What depth of analysis?\"\ncurrent_state: \"Phase 1 complete\"\npriority_hint: high\n[/CLARIFICATION_NEEDED]";

const STOP: &str = "[STOP_WORK]\nagent_id: a1\nblocker_type: external_dependency\ndetails: \"need npm install\"\nstate_snapshot:\n  completed: [A, B, C]\n  next: D\nblocked_work: \"Task D\"\nstop_reason: blocker\nresume_requirements: \"node_modules present\"\n[/STOP_WORK]";

const DELEGATE: &str = "[DELEGATE_WORK]\nnew_task_description: \"Write the parser tests\"\nindependence: blocks_current_work\ncoordination: \"tests/parser.rs\"\n[/DELEGATE_WORK]";

const COMPLETION: &str = "[COMPLETION_REPORT]\nstatus: success\ndeliverables:\n  - src/auth.rs\n  - docs/auth.md\nmetrics_achieved: \"all 12 tests pass\"\nrecommendations: \"Review the token expiry\"\n[/COMPLETION_REPORT]";

fn signals(events: &[ScanEvent]) -> Vec<&Signal> {
    events
        .iter()
        .filter_map(|e| match e {
            ScanEvent::Signal { signal } => Some(signal),
            ScanEvent::Malformed { .. } => None,
        })
        .collect()
}

fn kinds(events: &[ScanEvent]) -> Vec<(SignalKind, bool)> {
    events
        .iter()
        .map(|e| match e {
            ScanEvent::Signal { signal } => (signal.body.kind(), true),
            ScanEvent::Malformed { kind, .. } => (*kind, false),
        })
        .collect()
}

#[test]
fn each_kind_becomes_its_typed_signal() {
    let events = scan_all(format!("{CLARIFICATION}\n{STOP}\n{DELEGATE}\n{COMPLETION}\n").as_bytes());
    let found = signals(&events);
    assert_eq!(found.len(), 4, "{events:#?}");

    assert_eq!(found[0].agent_id.as_deref(), Some("bg-task-abc"));
    assert_eq!(found[0].timestamp.as_deref(), Some("2026-01-11T09:00:00-05:00"));
    assert_eq!(
        found[0].body,
        SignalBody::Clarification {
            blocked_at: "Choosing the authentication strategy".into(),
            questions: vec!["Analyze OAuth2, JWT, or both?".into(), "What depth of analysis?".into()],
            current_state: "Phase 1 complete".into(),
            options: vec![],
        }
    );
    assert_eq!(found[0].extra.get("priority_hint"), Some(&Value::String("high".into())), "unknown fields are kept");

    let SignalBody::StopWork { blocker_type, state_snapshot, resume_requirements, .. } = &found[1].body else {
        panic!("{:?}", found[1])
    };
    assert_eq!(blocker_type, "external_dependency");
    assert!(state_snapshot.contains("\"completed\":[\"A\",\"B\",\"C\"]"), "{state_snapshot}");
    assert_eq!(resume_requirements, "node_modules present");

    assert_eq!(
        found[2].body,
        SignalBody::Delegate {
            new_task_description: "Write the parser tests".into(),
            independence: Independence::BlocksCurrentWork,
            coordination: "tests/parser.rs".into(),
        }
    );
    assert_eq!(
        found[3].body,
        SignalBody::Completion {
            status: "success".into(),
            deliverables: vec!["src/auth.rs".into(), "docs/auth.md".into()],
            metrics_achieved: "all 12 tests pass".into(),
            recommendations: vec!["Review the token expiry".into()],
        }
    );
}

#[test]
fn scanner_cases() {
    use SignalKind::*;
    let long_body = format!("[STOP_WORK]\ndetails: \"{}\"\n[/STOP_WORK]", "x".repeat(MAX_BLOCK_BYTES));
    let cases: Vec<(String, Vec<(SignalKind, bool)>)> = vec![
        ("no signals here\r\njust output\r\n".into(), vec![]),
        // Colours, cursor moves and CRLF line ends around and inside the block.
        (
            "\x1b[32mworking\x1b[0m\r\n\x1b[1m[DELEGATE_WORK]\x1b[0m\r\n\x1b[2Knew_task_description: x\r\n[/DELEGATE_WORK]\r\n"
                .into(),
            vec![(Delegate, true)],
        ),
        // Text before and after the markers on the same line.
        (format!("see: {DELEGATE} -- waiting"), vec![(Delegate, true)]),
        // Two blocks with chatter between them.
        (format!("a\n{DELEGATE}\nthinking...\n{COMPLETION}\nbye"), vec![(Delegate, true), (Completion, true)]),
        // Indented as a whole (a quoted block) is still YAML.
        (DELEGATE.lines().map(|l| format!("    {l}\n")).collect(), vec![(Delegate, true)]),
        // Invalid YAML: malformed, with the raw text.
        ("[STOP_WORK]\ndetails: [unclosed\n[/STOP_WORK]".into(), vec![(StopWork, false)]),
        // Valid YAML, but not what a clarification needs.
        ("[CLARIFICATION_NEEDED]\nblocked_at: x\n[/CLARIFICATION_NEEDED]".into(), vec![(Clarification, false)]),
        ("[COMPLETION_REPORT]\njust words\n[/COMPLETION_REPORT]".into(), vec![(Completion, false)]),
        // Never closed, and another block starts: the first is malformed, the second read.
        (format!("[STOP_WORK]\ndetails: a\n{DELEGATE}"), vec![(StopWork, false), (Delegate, true)]),
        // Never closed at the end of the output.
        ("[DELEGATE_WORK]\nnew_task_description: x\n".into(), vec![(Delegate, false)]),
        // Too long: malformed and skipped, and the scanner goes on.
        (format!("{long_body}\n{DELEGATE}"), vec![(StopWork, false), (Delegate, true)]),
        // A closing marker of another kind does not close the block.
        (
            "[DELEGATE_WORK]\nnew_task_description: x\ncoordination: \"after [/STOP_WORK]\"\n[/DELEGATE_WORK]".into(),
            vec![(Delegate, true)],
        ),
        // A stray closing marker alone is nothing.
        ("[/STOP_WORK]\n".into(), vec![]),
    ];
    for (input, expected) in cases {
        let events = scan_all(input.as_bytes());
        assert_eq!(kinds(&events), expected, "input: {:?}", &input[..input.len().min(200)]);
    }
}

#[test]
fn malformed_blocks_carry_their_text_and_reason() {
    let events = scan_all(b"[STOP_WORK]\ndetails: [unclosed\n[/STOP_WORK]");
    let ScanEvent::Malformed { reason, raw, .. } = &events[0] else { panic!("{events:?}") };
    assert!(reason.starts_with("not valid YAML"), "{reason}");
    assert_eq!(raw, "\ndetails: [unclosed\n");
}

#[test]
fn memory_stays_bounded_on_endless_output() {
    let mut scanner = SignalScanner::with_cap(1024);
    assert!(scanner.feed(b"[STOP_WORK]\n").is_empty());
    let mut events = Vec::new();
    for _ in 0..1000 {
        events.extend(scanner.feed(&[b'y'; 1000]));
    }
    assert_eq!(kinds(&events), [(SignalKind::StopWork, false)]);
    let State::Skipping { tail, .. } = &scanner.state else { panic!("still skipping") };
    assert!(tail.len() <= LONGEST_MARKER);
    // Its end lets the scanner look for blocks again; plain output keeps
    // nothing but a marker's length.
    assert!(scanner.feed(b"[/STOP_WORK]\n").is_empty());
    for _ in 0..1000 {
        assert!(scanner.feed(&[b'z'; 1000]).is_empty());
    }
    let State::Outside { tail } = &scanner.state else { panic!("outside a block") };
    assert!(tail.len() <= LONGEST_MARKER);
}

/// A transcript with escape sequences, CRLF, multi-byte characters and two blocks.
fn transcript() -> Vec<u8> {
    format!(
        "\x1b[1;36mdemo>\x1b[0m go\r\nreceived: go — ✓ done\r\n\x1b[33m{}\x1b[0m\r\nthen ünïcödé\r\n{}\r\n",
        CLARIFICATION.replace('\n', "\r\n"),
        COMPLETION.replace('\n', "\r\n")
    )
    .into_bytes()
}

#[test]
fn the_same_transcript_split_at_every_byte_gives_the_same_signals() {
    let bytes = transcript();
    let whole = scan_all(&bytes);
    assert_eq!(kinds(&whole), [(SignalKind::Clarification, true), (SignalKind::Completion, true)]);
    for split in 0..=bytes.len() {
        let mut scanner = SignalScanner::new();
        let mut events = scanner.feed(&bytes[..split]);
        events.extend(scanner.feed(&bytes[split..]));
        events.extend(scanner.finish());
        assert_eq!(events, whole, "split at {split}");
    }
}

proptest! {
    #[test]
    fn random_chunks_give_the_same_signals(cuts in proptest::collection::vec(0usize..2000, 0..30)) {
        let bytes = transcript();
        let whole = scan_all(&bytes);
        let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c % (bytes.len() + 1)).collect();
        cuts.sort();
        let mut scanner = SignalScanner::new();
        let mut events = Vec::new();
        let mut start = 0;
        for cut in cuts.into_iter().chain([bytes.len()]) {
            events.extend(scanner.feed(&bytes[start..cut]));
            start = cut;
        }
        events.extend(scanner.finish());
        prop_assert_eq!(events, whole);
    }

    /// Any output with one well-formed block in it, anywhere, yields exactly that signal.
    #[test]
    fn one_block_in_any_output_yields_exactly_that_signal(
        before in "[^\\[\\]\x1b]{0,200}",
        after in "[^\\[\\]\x1b]{0,200}",
        description in "[a-zA-Z0-9 ,.]{1,60}",
        agent in "[a-z0-9-]{1,20}",
    ) {
        let description = description.trim().to_owned();
        prop_assume!(!description.is_empty());
        let block = format!(
            "[DELEGATE_WORK]\nagent_id: \"{agent}\"\nnew_task_description: \"{description}\"\nindependence: can_proceed_parallel\ncoordination: none\n[/DELEGATE_WORK]"
        );
        let events = scan_all(format!("{before}\n{block}\n{after}").as_bytes());
        let found = signals(&events);
        prop_assert_eq!(events.len(), 1);
        prop_assert_eq!(found[0].agent_id.as_deref(), Some(agent.as_str()));
        prop_assert_eq!(
            &found[0].body,
            &SignalBody::Delegate {
                new_task_description: description.clone(),
                independence: Independence::CanProceedParallel,
                coordination: "none".into(),
            }
        );
    }
}

#[test]
fn findings_lines_are_read_and_bad_ones_reported() {
    let text = "{\"agent\":\"a\",\"finding\":1}\n\nnot json\n[1,2]\n{\"cut\": \n";
    let (findings, malformed) = parse_findings(text);
    assert_eq!(findings, [serde_json::json!({"agent": "a", "finding": 1}), serde_json::json!([1, 2])]);
    let lines: Vec<u32> = malformed.iter().map(|m| m.line).collect();
    assert_eq!(lines, [3, 5]);
}

/// Found by bench/fuzz.sh: a C1 control character (U+0080..U+009F) split
/// across two reads was kept as text, while read whole it was dropped, so a
/// block's text depended on how the output was cut.
#[test]
fn a_control_character_split_across_reads_reads_as_when_whole() {
    // Also found: a character cut short next to invalid bytes lost a space.
    for bytes in [
        b"[STOP_WORK]\ndetails: \"a\xc2\x80b\"\n".to_vec(),
        b"[DELEGATE_WORK]\x00\xc2\x80 \x80\x00 a\xe2\x82 b\xf0\x9f\x98\x80 c\xc2".to_vec(),
    ] {
        split_anywhere_reads_as_whole(&bytes);
    }
}

fn split_anywhere_reads_as_whole(bytes: &[u8]) {
    let whole = scan_all(bytes);
    for cut in 0..=bytes.len() {
        let mut scanner = SignalScanner::new();
        let mut events = scanner.feed(&bytes[..cut]);
        events.extend(scanner.feed(&bytes[cut..]));
        events.extend(scanner.finish());
        assert_eq!(events, whole, "cut at {cut}");
    }
}

/// A block of about `bytes` whose nested aliases repeat one long scalar
/// ten times a level, `levels` deep (the "billion laughs").
fn alias_bomb(bytes: usize, levels: usize) -> String {
    let mut block = format!("blocker_type: x\ndetails: &l0 \"{}\"\n", "x".repeat(bytes.saturating_sub(100 * levels)));
    for level in 1..=levels {
        let aliases = vec![format!("*l{}", level - 1); 10].join(", ");
        block.push_str(&format!("l{level}: &l{level} [{aliases}]\n"));
    }
    block
}

/// Issue 22: one 30 KB block of nested aliases became a 60 MB signal.
#[test]
fn a_block_whose_aliases_expand_past_the_cap_is_refused_quickly_and_kept_small() {
    let block = alias_bomb(30 * 1024, 3);
    assert!(block.len() < 31 * 1024);
    let started = std::time::Instant::now();
    let event = parse_block(SignalKind::StopWork, &block);
    let ScanEvent::Malformed { reason, raw, .. } = &event else {
        panic!("read as a signal of {} bytes", serde_json::to_string(&event).unwrap().len())
    };
    assert!(reason.contains("aliases"), "{reason}");
    assert_eq!(raw, &block, "shown as written");
    assert!(serde_json::to_string(&event).unwrap().len() < 2 * block.len());
    assert!(started.elapsed() < std::time::Duration::from_secs(2), "{:?}", started.elapsed());
}

#[test]
fn a_block_that_repeats_a_little_through_aliases_still_reads() {
    let event = parse_block(SignalKind::StopWork, &alias_bomb(2 * 1024, 1));
    let ScanEvent::Signal { signal } = &event else { panic!("{event:?}") };
    assert_eq!(signal.extra["l1"].as_array().map(Vec::len), Some(10));
}

/// Where the terminal parser stands after a read, as the quiet reads' shortcut
/// judges it: between sequences only when the last escape is a whole CSI or
/// plain escape; any string, or a sequence cut short, leaves it unknown.
#[test]
fn the_parser_is_known_between_sequences_only_after_a_finished_escape() {
    let cases: &[(&[u8], bool, bool)] = &[
        (b"plain text", true, true),
        (b"plain text", false, false),
        (b"\x1b[31mred\x1b[0m and on", false, true),
        (b"\x1b[?2004h", false, true),
        (b"\x1b[1;2 q", false, true),
        (b"\x1b(B", false, true),
        (b"\x1b7", false, true),
        (b"\x1b]0;title\x07", false, true),
        (b"\x1b]0;title", true, false),
        (b"\x1b]0;ti\x18tle", false, true),
        (b"\x1bP1$r", true, false),
        (b"\x1b]0;title\x1b\\", false, true),
        (b"\x1bP1$r\x1b\\", false, true),
        (b"text \x1b", true, false),
        (b"text \x1b[", true, false),
        (b"text \x1b[12;", true, false),
        (b"\x1b[1\n2m", true, false),
        (b"\x1b\n", true, false),
        (b"\x1b_app", true, false),
        (b"\x1b[31m\xe2\x82", false, true),
    ];
    for (bytes, before, after) in cases {
        assert_eq!(ground_after(bytes, *before), *after, "{:?}", String::from_utf8_lossy(bytes));
    }
}

/// A read that cannot hold a marker is skipped; one with a `[` of text, an
/// unfinished escape, or a block open is read whole; what is found is the same.
#[test]
fn quiet_output_skips_the_terminal_parser_and_the_same_blocks_are_found() {
    let mut scanner = SignalScanner::new();
    let line = b"\x1b[32mcompiling\x1b[0m crate 3 of 40\r\n";
    assert_eq!(scanner.quiet_prefix(line), line.len());
    let code = b"let x = input[1..];\n";
    assert_eq!(scanner.quiet_prefix(code), code.len(), "a [ no marker's letter follows");
    assert_eq!(scanner.quiet_prefix(b"done [COMPLETION_REPORT]"), 5, "up to the [ that may open one");
    assert_eq!(scanner.quiet_prefix(b"a [\x1b[0mCLARIFICATION_NEEDED]"), 2, "an escape may hide one");
    assert_eq!(scanner.quiet_prefix(b"title \x1b]0;busy"), 6, "up to the escape left unfinished");
    scanner.feed(b"\x1b]0;x");
    assert_eq!(scanner.quiet_prefix(b"plain"), 0, "the parser is inside a string");
    scanner.feed(b"\x07");
    assert_eq!(scanner.quiet_prefix(b"plain"), 0, "its end is not known (no escape in the read)");
    scanner.feed(b"\x1b[0m");
    assert_eq!(scanner.quiet_prefix(b"plain"), 5, "a finished escape says where the parser is");
    scanner.feed(b"[COMPLETION_REPORT]\nstatus: ");
    assert_eq!(scanner.quiet_prefix(b"success\n"), 0, "inside a block every byte counts");

    let output = [
        "\x1b[32mok\x1b[0m\r\n".repeat(200),
        "\x1b]0;t\x07".into(),
        COMPLETION.replace('\n', "\r\n"),
        "\x1b[2K\r".repeat(50),
        "[CLARIF\x1b[0mICATION_NEEDED]\nquestions:\n  - \"x\"\n[/CLARIFICATION_NEEDED]\n".into(),
    ]
    .concat();
    for cut in [1, 7, 64, 4096] {
        let (mut fast, mut whole) = (SignalScanner::new(), SignalScanner::exhaustive());
        let (mut found, mut expected) = (Vec::new(), Vec::new());
        for chunk in output.as_bytes().chunks(cut) {
            found.extend(fast.feed(chunk));
            expected.extend(whole.feed(chunk));
        }
        found.extend(fast.finish());
        expected.extend(whole.finish());
        assert_eq!(found, expected, "reads of {cut} bytes");
        // The second marker, an escape inside it, is found too: escapes are not text.
        assert_eq!(signals(&found).len(), 2, "{found:?}");
    }
}

#[test]
fn a_printed_question_may_offer_choices_and_only_questions_with_text_are_kept() {
    let block = "[CLARIFICATION_NEEDED]\nquestions:\n  - question: \"Which store?\"\n    options: [SQLite, Postgres]\n  - \"How deep?\"\n  - question: \"\"\n    options: [lost]\n[/CLARIFICATION_NEEDED]\n";
    let events = scan_all(block.as_bytes());
    let found = signals(&events);
    let SignalBody::Clarification { questions, options, .. } = &found[0].body else { panic!("{events:?}") };
    assert_eq!(questions, &["Which store?", "How deep?"]);
    assert_eq!(options, &[vec!["SQLite".to_owned(), "Postgres".to_owned()], vec![]]);
    let plain = scan_all(b"[CLARIFICATION_NEEDED]\nquestions: [\"One?\"]\n[/CLARIFICATION_NEEDED]\n");
    let SignalBody::Clarification { options, .. } = &signals(&plain)[0].body else { panic!() };
    assert!(options.is_empty(), "no choices offered: none kept");
}
