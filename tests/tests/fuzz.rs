//! Property tests over everything an agent or a local client can feed the
//! app: the signal scanner, the summary parser, hook payloads and the spool
//! reader, the socket's line protocol, its framed protocol (any bytes after
//! a hello, half-sent frames, requests sent and not read), the Claude Code / Codex settings
//! merge, search over any Unicode text, the YAML alias budget, and the
//! paths agents name in their workspace; and what another machine's engine
//! sends over ssh (its frames, its fields, its claims on ids). Each runs `PROPTEST_CASES` cases
//! (256 by default, as part of the suite); `bench/fuzz.sh` runs them far
//! longer. A failure proptest finds is
//! kept in `fuzz.proptest-regressions` and becomes a case of its own here.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::sync::Arc;

use proptest::prelude::*;
use serde_json::Value;
use switchboard_core::connect::{codex_notify, with_switchboard_hooks, without_switchboard_hooks};
use switchboard_core::search::Query;
use switchboard_core::server::{Caller, RequestHandler, SocketRequest, SocketResponse, serve};
use switchboard_core::signal::{
    MAX_BLOCK_BYTES, MAX_EXPANDED_BYTES, ScanEvent, SignalKind, SignalScanner, parse_block, scan_all, yaml,
};
use switchboard_core::{EngineError, Reply, hook::HookEvent, summary::parse_summary};

const MARKERS: [&str; 8] = [
    "[CLARIFICATION_NEEDED]",
    "[/CLARIFICATION_NEEDED]",
    "[STOP_WORK]",
    "[/STOP_WORK]",
    "[DELEGATE_WORK]",
    "[/DELEGATE_WORK]",
    "[COMPLETION_REPORT]",
    "[/COMPLETION_REPORT]",
];

fn config() -> ProptestConfig {
    // The default reads PROPTEST_CASES, which bench/fuzz.sh raises.
    ProptestConfig { failure_persistence: None, ..ProptestConfig::default() }
}

/// Terminal output as an agent might print it: plain text, escapes, the
/// protocol's markers and field lines, and raw bytes, in any order.
fn output() -> impl Strategy<Value = Vec<u8>> {
    let piece = prop_oneof![
        4 => "[ -~]{0,40}".prop_map(String::into_bytes),
        3 => proptest::sample::select(MARKERS.to_vec()).prop_map(|m| m.as_bytes().to_vec()),
        2 => proptest::sample::select(vec![
            "\n", "\r\n", "\r", "\x1b[2K", "\x1b[31m", "\x1b]0;title\x07", "\x1b[?2004h", "\t", "  - ", ": ",
        ])
        .prop_map(|s| s.as_bytes().to_vec()),
        2 => proptest::sample::select(vec![
            "agent_id: a1\n", "questions:\n  - \"which?\"\n", "status: success\n", "deliverables:\n  - x.md\n",
            "blocker_type: external_dependency\n", "details: \"npm\"\n", "new_task_description: \"t\"\n",
            "independence: parallel_safe\n", "metrics_achieved: \"ok\"\n", "blocked_at: \"here\"\n",
        ])
        .prop_map(|s| s.as_bytes().to_vec()),
        1 => proptest::collection::vec(any::<u8>(), 0..16),
    ];
    proptest::collection::vec(piece, 0..60).prop_map(|pieces| pieces.concat())
}

/// Any JSON value, nested a few levels.
fn json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        // Decimals JSON writes back exactly (serde_json's float parsing is not
        // round-trip exact in the last digit, which no hook relies on).
        (-1_000_000i64..1_000_000).prop_map(|n| Value::from(n as f64 / 100.0)),
        ".{0,12}".prop_map(Value::String),
        proptest::sample::select(vec!["hooks", "Stop", "PreToolUse", "command", "matcher", "switchboard-hook"])
            .prop_map(|s| Value::String(s.into())),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            proptest::collection::btree_map(
                prop_oneof![
                    ".{0,8}",
                    proptest::sample::select(vec![
                        "hooks",
                        "Stop",
                        "SessionStart",
                        "PreToolUse",
                        "type",
                        "command",
                        "matcher",
                        "timeout",
                        "hook_event_name",
                        "last_assistant_message",
                        "background_tasks",
                        "tool_name",
                        "tool_input",
                    ])
                    .prop_map(str::to_owned),
                ],
                inner,
                0..6
            )
            .prop_map(|map| Value::Object(map.into_iter().collect())),
        ]
    })
}

/// What a value holds as the YAML budget counts it: text by its bytes,
/// numbers eight, every node at least one.
fn weight(value: &Value) -> usize {
    match value {
        Value::Null | Value::Bool(_) => 1,
        Value::Number(_) => 8,
        Value::String(text) => text.len().max(1),
        Value::Array(items) => 1 + items.iter().map(weight).sum::<usize>(),
        Value::Object(fields) => 1 + fields.iter().map(|(key, value)| key.len().max(1) + weight(value)).sum::<usize>(),
    }
}

proptest! {
    #![proptest_config(config())]

    /// The scanner never panics, finds the same blocks however the output
    /// is cut, and never holds or returns a block past its cap.
    #[test]
    fn the_signal_scanner_takes_any_output(bytes in output(), cuts in proptest::collection::vec(any::<usize>(), 0..8)) {
        let whole = scan_all(&bytes);
        let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c % (bytes.len() + 1)).collect();
        cuts.sort();
        let mut scanner = SignalScanner::new();
        let mut chunked = Vec::new();
        let mut start = 0;
        for cut in cuts.into_iter().chain([bytes.len()]) {
            chunked.extend(scanner.feed(&bytes[start..cut]));
            start = cut;
        }
        chunked.extend(scanner.finish());
        prop_assert_eq!(&chunked, &whole);
        for event in &whole {
            if let ScanEvent::Malformed { raw, .. } = event {
                prop_assert!(raw.len() <= MAX_BLOCK_BYTES + 64, "a block past the cap: {} bytes", raw.len());
            }
        }
    }

    /// Reads that cannot hold a marker skip the terminal parser: the blocks
    /// found are exactly those a scanner that parses every byte finds, with
    /// escapes of every kind (finished, cut short, strings, aborted) anywhere
    /// and the output cut anywhere.
    #[test]
    fn the_scanners_shortcut_finds_exactly_what_parsing_every_byte_finds(
        bytes in proptest::collection::vec(prop_oneof![
            3 => output(),
            2 => proptest::collection::vec(proptest::sample::select(vec![
                "\x1b[", "\x1b[0m", "\x1b[1;31m", "\x1b[?25l", "\x1b", "\x1b]0;", "\x07", "\x1b\\", "\x1bP", "\x1b_",
                "\x1b(B", "\x18", "\x1a", "[", "]", "\r", "\n", "\x1b[1[", "\u{9b}", "\u{9d}", "text ", "\x1b[12;",
                "a[1] ", "[C", "[S", "[D", "[/", "[\x07", "[\u{9b}", "[\t", "CLARIFICATION_NEEDED]", "STOP_WORK]\n",
            ]).prop_map(|s| s.as_bytes().to_vec()), 0..30).prop_map(|pieces| pieces.concat()),
        ], 0..6).prop_map(|parts| parts.concat()),
        cuts in proptest::collection::vec(any::<usize>(), 0..12),
    ) {
        let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c % (bytes.len() + 1)).collect();
        cuts.sort();
        let (mut fast, mut every) = (SignalScanner::new(), SignalScanner::exhaustive());
        let (mut found, mut expected) = (Vec::new(), Vec::new());
        let mut start = 0;
        for cut in cuts.into_iter().chain([bytes.len()]) {
            found.extend(fast.feed(&bytes[start..cut]));
            expected.extend(every.feed(&bytes[start..cut]));
            start = cut;
        }
        found.extend(fast.finish());
        expected.extend(every.finish());
        prop_assert_eq!(found, expected);
    }

    /// A summary is parsed from any text without panicking; what it finds
    /// comes from the text.
    #[test]
    fn the_summary_parser_takes_any_text(text in proptest::collection::vec(prop_oneof![
        "[ -~]{0,30}",
        proptest::sample::select(vec![
            "\n## Status\n", "\n## Objective\n", "\n## Key Deliverables\n", "- `a.md`\n", "✅ COMPLETED",
            "❌ FAILED", "\n## Test Results\n", "12 passed, 1 failed", "\n# Task Completion Summary\n", "\r\n",
        ]).prop_map(str::to_owned),
    ], 0..40).prop_map(|parts| parts.concat())) {
        let summary = parse_summary(&text);
        for path in &summary.deliverables {
            prop_assert!(text.contains(path.as_str()), "{path:?} is not in the text");
        }
        prop_assert!(summary.objective.len() <= text.len());
    }

    /// A search takes any text and any words: it never panics, and where it
    /// finds them its snippet holds the first word, whatever lowercasing
    /// does to the text's length (`İ` grows, the Kelvin sign shrinks).
    #[test]
    fn search_takes_any_unicode_text_and_words(
        pieces in proptest::collection::vec(prop_oneof![
            "\\PC{0,20}",
            ".{0,8}",
            proptest::sample::select(vec!["İ", "\u{212A}", "ß", "Σ", "ﬃ", "\u{307}", " ", "\n", "€"]).prop_map(str::to_owned),
        ], 0..40),
        words in proptest::collection::vec("\\PC{1,8}", 1..4),
        at in any::<usize>(),
    ) {
        let query_text = words.join(" ");
        let Ok(Some(query)) = Query::parse(&query_text) else { return Ok(()) };
        let first = query_text.split_whitespace().next().unwrap().to_owned();
        let mut text = pieces.concat();
        let boundaries: Vec<usize> = text.char_indices().map(|(i, _)| i).chain([text.len()]).collect();
        text.insert_str(boundaries[at % boundaries.len()], &first);
        let folded = |text: &str| text.chars().flat_map(char::to_lowercase).collect::<String>();
        if let Some(snippet) = query.find(&text) {
            prop_assert!(folded(&snippet).contains(&folded(&first)), "{snippet:?} lacks {first:?}");
        }
    }

    /// A block of nested aliases, however deep and wide, is read within the
    /// expansion budget or refused, never built past it.
    #[test]
    fn yaml_aliases_never_expand_past_the_budget(
        scalar in 0usize..6000,
        levels in proptest::collection::vec((1usize..16, any::<bool>()), 0..7),
        merge in any::<bool>(),
    ) {
        let mut text = format!("blocker_type: x\nl0: &l0 \"{}\"\n", "y".repeat(scalar));
        for (level, (fan_out, as_map)) in levels.iter().enumerate() {
            let (name, below) = (level + 1, level);
            let value = if *as_map {
                format!("{{{}}}", (0..*fan_out).map(|i| format!("k{i}: *l{below}")).collect::<Vec<_>>().join(", "))
            } else {
                format!("[{}]", vec![format!("*l{below}"); *fan_out].join(", "))
            };
            text.push_str(&format!("l{name}: &l{name} {value}\n"));
        }
        if merge && !levels.is_empty() {
            text.push_str(&format!("m: {{<<: *l{}}}\n", levels.len()));
        }
        match yaml::read(&text) {
            Ok(value) => prop_assert!(weight(&value) <= MAX_EXPANDED_BYTES, "{} past the budget", weight(&value)),
            Err(yaml::YamlProblem::TooLarge | yaml::YamlProblem::Invalid(_)) => {}
        }
        let event = parse_block(SignalKind::StopWork, &text);
        prop_assert!(serde_json::to_string(&event).unwrap().len() <= 3 * MAX_EXPANDED_BYTES + 2 * text.len());
    }

    /// Any hook payload reads as some event; any hook input, bytes or
    /// argument, becomes a payload; any spool line is a request or refused.
    #[test]
    fn hook_payloads_and_spool_lines_never_panic(payload in json(), bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
        let _ = HookEvent::parse(&payload);
        let text = payload.to_string();
        let from_stdin = switchboard_hook::event_payload(text.as_bytes(), &[]);
        prop_assert_eq!(&from_stdin, &payload, "JSON on stdin is taken as it is");
        let _ = switchboard_hook::event_payload(&bytes, &[]);
        let _ = switchboard_hook::event_payload(&[], &["notify".into(), String::from_utf8_lossy(&bytes).into_owned()]);
        let _ = serde_json::from_slice::<SocketRequest>(&bytes);
        let line = serde_json::json!({"type": "hook", "envelope": {"session_id": null, "env": {}, "at": 1, "payload": payload}});
        prop_assert!(serde_json::from_value::<SocketRequest>(line).is_ok(), "any payload travels in an envelope");
    }

    /// The hooks merge keeps every setting and hook of the user, adds the
    /// app's once however often it runs, and removes only the app's.
    #[test]
    fn the_settings_merge_keeps_the_users_settings(settings in json()) {
        let events = ["SessionStart", "Stop", "PreToolUse"];
        let hook = "/opt/switchboard/switchboard-hook";
        match with_switchboard_hooks(settings.clone(), hook, &events) {
            Err(_) => {}
            Ok(merged) => {
                prop_assert_eq!(&with_switchboard_hooks(merged.clone(), hook, &events).unwrap(), &merged, "added once");
                let removed = without_switchboard_hooks(merged.clone()).unwrap();
                prop_assert_eq!(removed, without_switchboard_hooks(settings.clone()).unwrap(), "only the app's removed");
                let count = merged.to_string().matches(hook).count();
                prop_assert_eq!(count, events.len());
                if let (Value::Object(before), Value::Object(after)) = (&settings, &merged) {
                    for (key, value) in before {
                        if key != "hooks" {
                            prop_assert_eq!(after.get(key), Some(value), "{} kept", key);
                        }
                    }
                }
            }
        }
    }

    /// Codex's notify setting: any arguments and config text, never a panic,
    /// and the user's own notify program is never replaced.
    #[test]
    fn codex_notify_takes_any_arguments(args in proptest::collection::vec(".{0,20}", 0..6), config in proptest::option::of(".{0,60}")) {
        let result = codex_notify(&args, config.as_deref(), Path::new("/opt/switchboard-hook"));
        prop_assert!(result.ends_with(&args), "the user's arguments come last, unchanged");
    }
}

/// Answers every request `ok`: the line protocol is what is under test.
struct AlwaysOk;

impl RequestHandler for AlwaysOk {
    async fn handle(&self, _command: switchboard_api::Command, _caller: Caller) -> Result<Reply, EngineError> {
        Ok(Reply::Unit)
    }
}

/// One request line and its answer, over a fresh connection (none: it was
/// closed without one).
fn exchange(socket: &Path, line: &[u8]) -> Option<SocketResponse> {
    let mut stream = UnixStream::connect(socket).unwrap();
    stream.set_read_timeout(Some(std::time::Duration::from_secs(10))).unwrap();
    stream.write_all(line).ok()?;
    stream.write_all(b"\n").ok()?;
    // Nothing more comes: a server waiting for the rest of a frame hears so at once.
    stream.shutdown(std::net::Shutdown::Write).ok();
    let mut answer = String::new();
    BufReader::new(&stream).read_line(&mut answer).ok()?;
    (!answer.is_empty()).then(|| serde_json::from_str(&answer).expect("every answer is a response line"))
}

proptest! {
    #![proptest_config(config())]

    /// Any line gets one well-formed answer: `ok` for a request, an error for
    /// anything else; and the server goes on answering. A line that starts
    /// with a zero byte is the start of a frame, not a line: its connection
    /// closes with no answer (no frame is a hello here), and the server goes
    /// on answering all the same.
    #[test]
    fn the_socket_answers_any_line(line in prop_oneof![
        proptest::collection::vec(any::<u8>().prop_filter("one line", |b| *b != b'\n'), 0..300),
        // The start of a frame, then anything.
        proptest::collection::vec(any::<u8>().prop_filter("one line", |b| *b != b'\n'), 0..300)
            .prop_map(|rest| [vec![0], rest].concat()),
        json().prop_map(|v| v.to_string().into_bytes()),
        json().prop_map(|payload| serde_json::json!({"type": "hook", "envelope": {"payload": payload, "at": 1, "env": {}}}).to_string().into_bytes()),
    ]) {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let socket = dir.path().join("s/engine.sock");
        let server = runtime.block_on(async { serve(&socket, Arc::new(AlwaysOk)).unwrap() });
        let thread = std::thread::spawn({
            let socket = socket.clone();
            let line = line.clone();
            move || {
                let answer = exchange(&socket, &line);
                let valid = exchange(&socket, br#"{"type":"command","command":{"type":"list_profiles"}}"#);
                (answer, valid)
            }
        });
        let (answer, valid) = runtime.block_on(async {
            loop {
                if thread.is_finished() {
                    break thread.join().unwrap();
                }
                tokio::time::sleep(std::time::Duration::from_millis(1)).await;
            }
        });
        let is_request = serde_json::from_slice::<SocketRequest>(&line).is_ok();
        let framed = line.first() == Some(&0);
        match answer {
            None if framed => {}
            Some(SocketResponse::Ok(Reply::Unit)) => prop_assert!(is_request),
            Some(SocketResponse::Error(error)) => prop_assert!(!is_request, "a request refused: {error:?}"),
            other => prop_assert!(false, "no answer: {other:?}"),
        }
        prop_assert_eq!(valid, Some(SocketResponse::Ok(Reply::Unit)), "the server still answers");
        drop(server);
    }
}

/// A framed hello of this build, as bytes.
fn hello_frame() -> Vec<u8> {
    let hello = switchboard_api::wire::Hello {
        protocol: switchboard_api::wire::PROTOCOL,
        app_version: "fuzz".into(),
        build_id: "fuzz".into(),
        client_kind: switchboard_api::wire::ClientKind::Test,
        client_id: "fuzz".into(),
    };
    switchboard_api::wire::Frame::message(&hello).encode()
}

/// Reads frames until one that `wanted` accepts; false if the connection closes first.
fn read_until_frame(stream: &UnixStream, wanted: impl Fn(&switchboard_api::wire::Frame) -> bool) -> bool {
    use std::io::Read;
    let mut reader = BufReader::new(stream);
    loop {
        let mut length = [0u8; 4];
        if reader.read_exact(&mut length).is_err() {
            return false;
        }
        let mut body = vec![0u8; u32::from_be_bytes(length) as usize];
        if reader.read_exact(&mut body).is_err() || body.is_empty() {
            return false;
        }
        let frame = switchboard_api::wire::Frame { kind: body[0], body: body[1..].to_vec() };
        if wanted(&frame) {
            return true;
        }
    }
}

proptest! {
    #![proptest_config(config())]

    /// After a hello, any bytes (frames of any length and kind, JSON of any
    /// shape, a frame cut short) leave the server serving: a new client's
    /// ping is answered.
    #[test]
    fn a_framed_connection_survives_any_bytes(after_hello in prop_oneof![
        proptest::collection::vec(any::<u8>(), 0..400),
        json().prop_map(|v| switchboard_api::wire::Frame::message(&v).encode()),
        json().prop_map(|request| switchboard_api::wire::Frame::message(
            &serde_json::json!({"type": "request", "id": 1, "request": request})).encode()),
    ]) {
        let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let socket = dir.path().join("s/engine.sock");
        let server = runtime.block_on(async { serve(&socket, Arc::new(AlwaysOk)).unwrap() });
        let mut hostile = UnixStream::connect(&socket).unwrap();
        hostile.set_read_timeout(Some(std::time::Duration::from_secs(10))).unwrap();
        hostile.write_all(&hello_frame()).unwrap();
        hostile.write_all(&after_hello).ok();
        hostile.shutdown(std::net::Shutdown::Write).ok();
        // Whatever it gets back (a welcome, answers, an error), the connection ends.
        prop_assert!(!read_until_frame(&hostile, |_| false), "the connection ends");

        let mut client = UnixStream::connect(&socket).unwrap();
        client.set_read_timeout(Some(std::time::Duration::from_secs(10))).unwrap();
        client.write_all(&hello_frame()).unwrap();
        let ping = switchboard_api::wire::ClientFrame::Request { id: 7, request: switchboard_api::wire::ClientRequest::Ping };
        client.write_all(&switchboard_api::wire::Frame::message(&ping).encode()).unwrap();
        let pong = read_until_frame(&client, |frame| {
            serde_json::from_slice::<switchboard_api::wire::ServerFrame>(&frame.body).is_ok_and(|frame| {
                frame == switchboard_api::wire::ServerFrame::Reply { id: 7, answer: switchboard_api::wire::Answer::Pong }
            })
        });
        prop_assert!(pong, "the server still answers");
        drop(server);
    }
}

/// Whether the server closed `stream` (as opposed to a read timing out).
fn closed_by_server(stream: &UnixStream) -> bool {
    use std::io::Read;
    let mut reader = BufReader::new(stream);
    let mut sink = [0u8; 4096];
    loop {
        match reader.read(&mut sink) {
            Ok(0) => return true,
            Ok(_) => continue,
            Err(error) => {
                return matches!(error.kind(), std::io::ErrorKind::ConnectionReset | std::io::ErrorKind::BrokenPipe);
            }
        }
    }
}

proptest! {
    #![proptest_config(config())]

    /// A frame begun and cut anywhere (any length announced up to the cap,
    /// any part of it sent) is let go at the frame deadline, whatever it
    /// announced; and a client that sends any number of requests before it
    /// reads gets every answer (the server stops reading while its places
    /// are taken, and goes on once it reads).
    #[test]
    fn a_half_sent_frame_is_let_go_and_unread_requests_are_all_answered(
        announced in 1usize..=switchboard_api::wire::MAX_FRAME_BYTES,
        sent in 0usize..3000,
        requests in 0u64..400,
    ) {
        let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let socket = dir.path().join("s/engine.sock");
        let limits = switchboard_core::server::SocketLimits {
            frame_deadline: std::time::Duration::from_millis(20),
            in_flight: 4,
            ..Default::default()
        };
        let server = runtime.block_on(async {
            switchboard_core::server::serve_with(&socket, Arc::new(AlwaysOk), limits).unwrap()
        });
        let mut hostile = UnixStream::connect(&socket).unwrap();
        hostile.set_read_timeout(Some(std::time::Duration::from_secs(10))).unwrap();
        hostile.write_all(&hello_frame()).unwrap();
        hostile.write_all(&(announced as u32).to_be_bytes()).unwrap();
        // The kind and part of the body: never the whole of it.
        hostile.write_all(&vec![0u8; sent.min(announced - 1)]).unwrap();
        prop_assert!(closed_by_server(&hostile), "a half-sent frame of {announced} bytes was held");

        let mut client = UnixStream::connect(&socket).unwrap();
        client.set_read_timeout(Some(std::time::Duration::from_secs(10))).unwrap();
        client.write_all(&hello_frame()).unwrap();
        let mut writing = client.try_clone().unwrap();
        let writer = std::thread::spawn(move || {
            for id in 1..=requests {
                let ping = switchboard_api::wire::ClientFrame::Request { id, request: switchboard_api::wire::ClientRequest::Ping };
                writing.write_all(&switchboard_api::wire::Frame::message(&ping).encode()).unwrap();
            }
        });
        let answered = std::cell::Cell::new(0u64);
        let all = requests == 0 || read_until_frame(&client, |frame| {
            let pong = serde_json::from_slice::<switchboard_api::wire::ServerFrame>(&frame.body)
                .is_ok_and(|frame| matches!(frame, switchboard_api::wire::ServerFrame::Reply { answer: switchboard_api::wire::Answer::Pong, .. }));
            answered.set(answered.get() + u64::from(pong));
            answered.get() == requests
        });
        writer.join().unwrap();
        prop_assert!(all, "{} of {requests} requests answered", answered.get());
        drop(server);
    }
}

/// What a hostile agent leaves in a workspace: files, a folder, links that
/// stay inside and links that lead out, a FIFO; beside it, a folder whose
/// contents must never change.
struct Planted {
    _dirs: (tempfile::TempDir, tempfile::TempDir),
    root: std::path::PathBuf,
    outside: std::path::PathBuf,
}

fn planted() -> Planted {
    use std::os::unix::fs::symlink;
    let (dir, out) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let root = dir.path().canonicalize().unwrap();
    let outside = out.path().canonicalize().unwrap();
    std::fs::write(outside.join("secret"), "outside").unwrap();
    std::fs::create_dir(root.join("dir")).unwrap();
    std::fs::write(root.join("file"), "inside").unwrap();
    std::fs::write(root.join("dir/file"), "inside").unwrap();
    symlink("file", root.join("link-in")).unwrap();
    symlink(outside.join("secret"), root.join("link-out")).unwrap();
    symlink(&outside, root.join("dir-out")).unwrap();
    symlink("/dev/zero", root.join("zeros")).unwrap();
    nix::unistd::mkfifo(&root.join("pipe"), nix::sys::stat::Mode::S_IRWXU).unwrap();
    Planted { _dirs: (dir, out), root, outside }
}

/// A path an agent might name: the planted names, `..`, `.`, absolute
/// prefixes and odd text, joined by slashes.
fn agent_path(root: String) -> impl Strategy<Value = String> {
    let part = prop_oneof![
        Just("file".to_owned()),
        Just("dir".to_owned()),
        Just("link-in".to_owned()),
        Just("link-out".to_owned()),
        Just("dir-out".to_owned()),
        Just("zeros".to_owned()),
        Just("pipe".to_owned()),
        Just("..".to_owned()),
        Just(".".to_owned()),
        Just(String::new()),
        "[a-z.\u{0}-\u{1f}é/]{1,6}",
    ];
    (
        proptest::option::of(prop_oneof![Just(root), Just("/".to_owned()), Just("/tmp".to_owned())]),
        proptest::collection::vec(part, 1..5),
    )
        .prop_map(|(prefix, parts)| {
            let joined = parts.join("/");
            match prefix {
                Some(prefix) => format!("{prefix}/{joined}"),
                None => joined,
            }
        })
}

proptest! {
    #![proptest_config(config())]

    /// Whatever path an agent names, the workspace module reads only regular
    /// files inside the workspace, never blocks, and writes nothing outside.
    #[test]
    fn workspace_paths_never_lead_outside(paths in proptest::collection::vec(agent_path("ROOT".to_owned()), 1..6)) {
        use switchboard_core::workspace::Workspace;
        let p = planted();
        let ws = Workspace::open(&p.root).unwrap();
        let root = p.root.display().to_string();
        for path in paths.iter().map(|path| path.replacen("ROOT", &root, 1)) {
            if let Ok(read) = ws.read(&path, 64) {
                // What the workspace holds (planted, or written by an earlier path), never the outside file.
                prop_assert!(!read.text.contains("outside"), "{}: {}", path, read.text);
            }
            if let Ok(real) = ws.real_path(&path) {
                prop_assert!(real.starts_with(&p.root), "{} -> {}", path, real.display());
            }
            ws.write(&path, b"written").ok();
            ws.append(&path, b"", b"appended").ok();
            ws.create_folder(&path).ok();
        }
        let outside: Vec<_> = std::fs::read_dir(&p.outside).unwrap().flatten().map(|e| e.file_name()).collect();
        prop_assert_eq!(outside.len(), 1);
        prop_assert_eq!(std::fs::read_to_string(p.outside.join("secret")).unwrap(), "outside");
    }
}

/// Text another machine's engine may send: short, long past every cap, any Unicode.
fn host_text() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => ".{0,40}",
        1 => (".{1,4}", 1usize..300_000).prop_map(|(piece, times)| piece.repeat(times)),
    ]
}

/// What another machine's engine said: an answer or an event.
#[derive(Debug, Clone)]
enum HostSaid {
    Reply(Box<Reply>),
    Event(Box<switchboard_core::EngineEvent>),
}

/// An answer or event of another machine's engine, with hostile text in its fields.
fn host_said() -> impl Strategy<Value = HostSaid> {
    use switchboard_api::{Profile, ProfileSpec, StorageProblem};
    use switchboard_core::{EngineEvent, ProfileId};
    let profile = || {
        (host_text(), host_text(), proptest::collection::vec(host_text(), 0..300)).prop_map(|(name, cwd, args)| {
            Profile {
                id: ProfileId::new(),
                spec: ProfileSpec { name, cwd, args, ..Default::default() },
                created_at: 1,
                host: None,
            }
        })
    };
    prop_oneof![
        proptest::collection::vec(profile(), 0..4)
            .prop_map(|profiles| HostSaid::Reply(Box::new(Reply::Profiles(profiles)))),
        profile().prop_map(|profile| HostSaid::Event(Box::new(EngineEvent::ProfileSaved { profile }))),
        host_text().prop_map(|detail| HostSaid::Event(Box::new(EngineEvent::StorageChanged {
            problem: Some(StorageProblem::Failing { detail })
        }))),
        (host_text(), 0usize..400).prop_map(|(account, n)| HostSaid::Event(Box::new(EngineEvent::LimitLifted {
            account,
            profiles: (0..n).map(|_| ProfileId::new()).collect(),
            by_user: true,
            at_reset: false,
        }))),
        host_text().prop_map(|text| HostSaid::Reply(Box::new(Reply::Text(text)))),
    ]
}

/// Every text in `value`, with the name of the field it is in.
fn texts<'a>(value: &'a Value, field: &'a str, found: &mut Vec<(&'a str, &'a str)>) {
    match value {
        Value::String(text) => found.push((field, text)),
        Value::Array(items) => items.iter().for_each(|item| texts(item, field, found)),
        Value::Object(fields) => fields.iter().for_each(|(name, item)| texts(item, name, found)),
        _ => {}
    }
}

/// A frame as another machine's engine (over ssh) may send one: a header
/// naming any length, then any bytes.
fn host_frame() -> impl Strategy<Value = Vec<u8>> {
    (
        prop_oneof![any::<u32>(), 0u32..64, Just(u32::MAX), Just(switchboard_api::wire::MAX_FRAME_BYTES as u32 + 1)],
        any::<u8>(),
        proptest::collection::vec(any::<u8>(), 0..256),
    )
        .prop_map(|(length, kind, body)| [&length.to_be_bytes()[..], &[kind], &body].concat())
}

proptest! {
    #![proptest_config(config())]

    /// Whatever another machine's engine says, the window keeps each field
    /// within its cap, its names read on one line in stored order (no
    /// control or direction character left in them), and what fits and
    /// holds no such character is kept as it was.
    #[test]
    fn what_another_machine_sends_is_kept_within_each_field_s_cap(said in host_said()) {
        use switchboard_client::fleet::{capped_from_host, host_field_cap};
        use switchboard_core::capped::MAX_NAME_BYTES;
        use switchboard_core::text::plain_name;
        let plain = |field: &str, text: &str| host_field_cap(field) != MAX_NAME_BYTES || plain_name(text) == text;
        let before = match &said {
            HostSaid::Reply(reply) => serde_json::to_value(reply),
            HostSaid::Event(event) => serde_json::to_value(event),
        }
        .unwrap();
        let after = match said {
            HostSaid::Reply(reply) => serde_json::to_value(capped_from_host(*reply).unwrap()),
            HostSaid::Event(event) => serde_json::to_value(capped_from_host(*event).unwrap()),
        }
        .unwrap();
        let mut kept = Vec::new();
        texts(&after, "", &mut kept);
        for (field, text) in &kept {
            prop_assert!(text.len() <= host_field_cap(field), "{field}: {} bytes", text.len());
            prop_assert!(plain(field, text), "{field}: {text:?}");
        }
        let mut sent = Vec::new();
        texts(&before, "", &mut sent);
        if sent.iter().all(|(field, text)| text.len() <= host_field_cap(field) && plain(field, text))
            && sent.len() == kept.len()
        {
            prop_assert_eq!(before, after);
        }
    }

    /// The window reads a frame of another machine's engine only once its
    /// length is judged: a length past the limit is refused before a byte of
    /// its body is read, a frame cut short is an error, nothing panics.
    #[test]
    fn a_frame_from_another_machine_is_judged_before_it_is_read(frame in host_frame()) {
        use switchboard_api::wire::{FrameError, MAX_FRAME_BYTES, read_incoming};
        let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
        let claimed = u32::from_be_bytes(frame[..4].try_into().unwrap()) as usize;
        let read = runtime.block_on(read_incoming(&mut &frame[..], MAX_FRAME_BYTES));
        match read {
            Err(FrameError::TooLarge(length, max)) => prop_assert!(length == claimed && claimed > max),
            Err(FrameError::Empty) => prop_assert_eq!(claimed, 0),
            Err(FrameError::Io(_) | FrameError::Closed) => prop_assert!(claimed > frame.len() - 4 || claimed == 0),
            Ok(_) => prop_assert!(claimed >= 1 && claimed <= frame.len() - 4),
            // Reading a whole frame from a slice never waits.
            Err(FrameError::Unfinished(_)) => prop_assert!(false, "a frame read at once was unfinished"),
        }
        if claimed > MAX_FRAME_BYTES {
            prop_assert!(matches!(runtime.block_on(read_incoming(&mut &frame[..], MAX_FRAME_BYTES)), Err(FrameError::TooLarge(..))));
        }
    }

    /// However machines claim ids, one this machine's engine holds is never
    /// routed elsewhere, and an id stays with the first machine that named it.
    #[test]
    fn no_machine_takes_what_this_one_or_another_holds(claims in proptest::collection::vec((0usize..4, 0usize..12), 0..80)) {
        use switchboard_client::fleet::{Owners, Said};
        use switchboard_api::{Profile, ProfileSpec};
        let ids: Vec<switchboard_core::ProfileId> = (0..12).map(|_| switchboard_core::ProfileId::new()).collect();
        let hosts = ["here", "alpha", "beta", "gamma"];
        let record = |id: usize| Reply::Profiles(vec![Profile {
            id: ids[id].clone(), spec: ProfileSpec::default(), created_at: 1, host: None,
        }]);
        let mut owners = Owners::default();
        // This machine's engine tells what it holds first: ids 0 to 3.
        for id in 0..4 {
            owners.learn_here(Said::Reply(&record(id)));
        }
        owners.here_told();
        let mut first: std::collections::HashMap<usize, &str> = std::collections::HashMap::new();
        for (machine, id) in claims {
            if machine == 0 {
                owners.learn_here(Said::Reply(&record(id)));
                first.insert(id, "here");
            } else {
                owners.learn(hosts[machine], Said::Reply(&record(id)));
                if id >= 4 {
                    first.entry(id).or_insert(hosts[machine]);
                }
            }
        }
        for (id, holder) in ids.iter().enumerate() {
            let owner = owners.owner(&[holder.to_string()]);
            match (id, first.get(&id)) {
                (0..4, _) | (_, Some(&"here")) => prop_assert_eq!(owner, None),
                (_, Some(host)) => prop_assert_eq!(owner, Some(*host)),
                (_, None) => prop_assert_eq!(owner, None),
            }
        }
    }
}
