//! Golden tests of the signal scanner on recorded output: the real Claude Code
//! and Codex (hook payloads and rendered screens), and the demo agent's PTY
//! transcript recorded live.

use crate::support;

use std::path::PathBuf;

use support::*;
use switchboard_core::signal::{ScanEvent, SignalBody, SignalKind, SignalScanner, scan_all};

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/agents").join(name)
}

/// The `last_assistant_message` of the recorded Stop hook event.
fn stop_message(file: &str) -> String {
    let text = std::fs::read_to_string(fixture(file)).unwrap();
    text.lines()
        .map(|line| serde_json::from_str::<serde_json::Value>(line).unwrap())
        .find(|event| event["stdin"]["hook_event_name"] == "Stop")
        .and_then(|event| event["stdin"]["last_assistant_message"].as_str().map(str::to_owned))
        .expect("the recording has a Stop event with the reply")
}

fn the_clarification(events: &[ScanEvent]) -> (Option<String>, Vec<String>) {
    match events {
        [ScanEvent::Signal { signal }] => match &signal.body {
            SignalBody::Clarification { questions, .. } => (signal.agent_id.clone(), questions.clone()),
            other => panic!("not a clarification: {other:?}"),
        },
        other => panic!("expected one signal, got {other:#?}"),
    }
}

#[test]
fn the_stop_hook_carries_the_exact_signal_for_both_clis() {
    for file in ["cc-hooks-write-signal.jsonl", "codex-hooks.jsonl"] {
        let events = scan_all(stop_message(file).as_bytes());
        assert_eq!(
            the_clarification(&events),
            (Some("bg-task-abc".into()), vec!["Which auth strategy?".into()]),
            "{file}"
        );
    }
}

#[test]
fn rendered_screens_are_read_where_they_can_be_and_flagged_where_not() {
    // Claude Code indents the block; the scanner reads it all the same.
    let claude = std::fs::read(fixture("cc-pty-screen-after-turn.txt")).unwrap();
    assert_eq!(the_clarification(&scan_all(&claude)).1, ["Which auth strategy?"]);
    // Codex turns the YAML list into bullets: no longer YAML. It is reported as
    // malformed (shown to the user), never silently dropped; the Stop hook's
    // text is the channel that carries it intact.
    let codex = std::fs::read(fixture("codex-pty-screen-after-turn.txt")).unwrap();
    match scan_all(&codex).as_slice() {
        [ScanEvent::Malformed { kind: SignalKind::Clarification, raw, .. }] => {
            assert!(raw.contains("Which auth strategy?"), "{raw}")
        }
        other => panic!("{other:#?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_demo_agents_pty_transcript_yields_every_signal_in_any_chunking() {
    let t = TestEngine::start().await;
    let profile = t
        .demo_profile(&[
            "--speed",
            "fast",
            "--signal",
            "clarification",
            "--signal",
            "stop-work",
            "--signal",
            "delegate",
            "--signal",
            "completion",
        ])
        .await;
    let (session, output) = t.start_session(&profile).await;
    output.wait_for_text("demo>").await;
    t.engine.write_input(session.id.clone(), "Plan the migration\r".into()).await.unwrap();
    output.wait_for_text("[/COMPLETION_REPORT]").await;
    let transcript = output.snapshot();

    let events = scan_all(&transcript);
    let kinds: Vec<_> = events
        .iter()
        .map(|event| match event {
            ScanEvent::Signal { signal } => signal.body.kind(),
            ScanEvent::Malformed { kind, reason, .. } => panic!("malformed {kind:?}: {reason}"),
        })
        .collect();
    assert_eq!(kinds, SignalKind::ALL);
    assert!(transcript.windows(2).any(|w| w == b"\r\n"), "the PTY turned the agent's newlines into CRLF");

    // The same transcript read as a terminal would hand it over: 1..=64 bytes at a time.
    for chunk in [1, 3, 7, 64] {
        let mut scanner = SignalScanner::new();
        let mut chunked: Vec<ScanEvent> = transcript.chunks(chunk).flat_map(|c| scanner.feed(c)).collect();
        chunked.extend(scanner.finish());
        assert_eq!(chunked, events, "chunks of {chunk}");
    }
    t.engine.stop_session(session.id).await.unwrap();
}
