//! The engine over its real socket, as the window and the command line reach
//! the daemon: the one typed client (`switchboard-client`) attaching,
//! detaching and attaching again to terminals, two clients at once, clients
//! that stall, vanish or speak garbage, and the version refusal.

mod support;

use support::*;
use switchboard_client::{Client, ClientError, ClientKind, EventItem, StreamEnd};
use switchboard_core::wire::{self, Frame, Hello, ServerHello};
use switchboard_core::{EngineEvent, TaskSpec, TermSize};
use tokio::io::AsyncWriteExt;

fn socket_of(t: &TestEngine) -> std::path::PathBuf {
    switchboard_core::config::socket_path(&t.data_dir, None)
}

async fn connect(t: &TestEngine) -> Client {
    Client::connect(&socket_of(t), ClientKind::Test).await.unwrap()
}

/// Reads a terminal until its output holds `needle`; the last 64 KiB read.
async fn read_until(terminal: &mut switchboard_client::Terminal, seen: &mut Vec<u8>, needle: &str) -> String {
    const KEPT: usize = 64 * 1024;
    let found = tokio::time::timeout(DEADLINE, async {
        while !String::from_utf8_lossy(seen).contains(needle) {
            match terminal.next().await {
                Some(batch) => {
                    seen.extend(batch);
                    let over = seen.len().saturating_sub(KEPT);
                    seen.drain(..over);
                }
                None => return false,
            }
        }
        true
    })
    .await;
    let text = String::from_utf8_lossy(seen).into_owned();
    let tail: String = text.chars().rev().take(300).collect::<Vec<_>>().into_iter().rev().collect();
    assert!(matches!(found, Ok(true)), "no {needle:?} in the terminal ({:?}); it ends: {tail}", terminal.ended());
    text
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_terminal_attached_again_replays_what_the_agent_wrote_while_no_one_watched() {
    let t = TestEngine::start().await;
    let client = connect(&t).await;
    assert_eq!(client.welcome().protocol, wire::PROTOCOL);
    assert_eq!(client.welcome().pid, std::process::id(), "the engine of this test answered");
    let profile = client.create_profile(t.spec("demo", DEMO_AGENT, &["--speed", "fast"])).await.unwrap();
    let session = client.start_session(profile.id, TermSize::DEFAULT).await.unwrap();
    let mut terminal = client.attach(session.id.clone()).await.unwrap();
    read_until(&mut terminal, &mut Vec::new(), "demo>").await;
    client.detach(terminal.stream).await.unwrap();
    assert_eq!(terminal.next().await, None, "a detached terminal ends");
    assert_eq!(terminal.ended(), Some(StreamEnd::Detached));

    // Written while no window watched.
    client.write_input(session.id.clone(), "while you were away\r".into()).await.unwrap();
    let output = t.attach(&session.id).await;
    output.wait_for_text("received: while you were away").await;

    let mut again = client.attach(session.id.clone()).await.unwrap();
    let text = read_until(&mut again, &mut Vec::new(), "received: while you were away").await;
    assert!(text.contains("demo>"), "the replay starts where the engine's memory does: {text}");
    client.stop_session(session.id).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_clients_see_the_same_events_and_the_same_terminal() {
    let t = TestEngine::start().await;
    let (first, second) = (connect(&t).await, connect(&t).await);
    let mut first_events = first.subscribe().await.unwrap();
    let mut second_events = second.subscribe().await.unwrap();
    assert_eq!(first_events.instance_id, second_events.instance_id);

    let profile = second.create_profile(t.spec("demo", DEMO_AGENT, &["--speed", "fast"])).await.unwrap();
    let session = first.start_session(profile.id.clone(), TermSize::DEFAULT).await.unwrap();
    let (mut a, mut b) =
        (first.attach(session.id.clone()).await.unwrap(), second.attach(session.id.clone()).await.unwrap());
    read_until(&mut a, &mut Vec::new(), "demo>").await;
    read_until(&mut b, &mut Vec::new(), "demo>").await;

    let submitted = second.submit_task(TaskSpec::new(profile.id.clone(), "shared work")).await.unwrap();
    for events in [&mut first_events, &mut second_events] {
        let mut last_seq = events.as_of;
        let finished = tokio::time::timeout(DEADLINE, async {
            loop {
                match events.next().await {
                    Some(EventItem::Event { seq, event }) => {
                        assert!(seq > last_seq, "events come in the engine's order");
                        last_seq = seq;
                        if let EngineEvent::TaskChanged { task } = event
                            && task.id == submitted.task.id
                            && task.state().is_finished()
                        {
                            return task;
                        }
                    }
                    other => panic!("the event stream gave {other:?}"),
                }
            }
        })
        .await
        .expect("both clients hear the task finish");
        assert_eq!(finished.state().as_str(), "completed", "{finished:?}");
    }
    // Both terminals showed the same work.
    read_until(&mut a, &mut Vec::new(), "shared work").await;
    read_until(&mut b, &mut Vec::new(), "shared work").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_stalls_or_vanishes_mid_stream_harms_no_agent_and_no_other_client() {
    let t = TestEngine::start().await;
    let client = connect(&t).await;
    // An agent that writes a lot, then waits for a word.
    let flood = "head -c 30000000 /dev/zero | tr '\\0' x; echo; echo flooded; read word; echo got $word; sleep 100";
    let profile = client.create_profile(t.spec("flood", "sh", &["-c", flood])).await.unwrap();

    // A client that says hello, attaches, and then never reads again.
    let socket = socket_of(&t);
    let stalled = tokio::net::UnixStream::connect(&socket).await.unwrap();
    let (mut stalled_read, mut stalled_write) = stalled.into_split();
    let hello = Hello {
        protocol: wire::PROTOCOL,
        app_version: "test".into(),
        build_id: "test".into(),
        client_kind: ClientKind::Window,
        client_id: "stalled".into(),
    };
    wire::write_frame(&mut stalled_write, &Frame::message(&hello)).await.unwrap();
    let welcome = wire::read_frame(&mut stalled_read, wire::MAX_HELLO_BYTES).await.unwrap();
    assert!(matches!(serde_json::from_slice(&welcome.body).unwrap(), ServerHello::Welcome(_)));

    let session = client.start_session(profile.id, TermSize::DEFAULT).await.unwrap();
    let attach = wire::ClientFrame::Request {
        id: 1,
        request: wire::ClientRequest::Attach { session_id: session.id.clone(), stream: 1 },
    };
    wire::write_frame(&mut stalled_write, &Frame::message(&attach)).await.unwrap();

    // The agent gets all its output out: the engine reads it whatever the stalled client does,
    // and answers this client meanwhile. (A client reading along through the flood is not the
    // point: one that falls 8 MiB behind is let go too, and a loaded machine decides which.)
    tokio::time::timeout(DEADLINE, async {
        while !client.screen_snapshot(session.id.clone(), 5).await.unwrap().screen.contains("flooded") {
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
    })
    .await
    .expect("the agent's flood never ended on its screen");
    // Another client attaches and goes on with the agent.
    let mut live = client.attach(session.id.clone()).await.unwrap();
    let mut seen = Vec::new();
    read_until(&mut live, &mut seen, "flooded").await;
    client.write_input(session.id.clone(), "hello\r".into()).await.unwrap();
    read_until(&mut live, &mut seen, "got hello").await;
    assert!(client.ping().await.is_ok(), "the engine still answers");

    // Vanishing halfway through a frame.
    stalled_write.write_all(&[0, 0, 1, 0, 0, b'{']).await.unwrap();
    drop((stalled_read, stalled_write));
    let sessions = client.list_sessions().await.unwrap();
    assert!(sessions.iter().any(|s| s.id == session.id && s.state.is_running()), "the agent runs on");

    // Garbage instead of a hello: the connection closes, nothing else changes.
    let mut garbage = tokio::net::UnixStream::connect(&socket).await.unwrap();
    garbage.write_all(&[0, 0, 0, 9, 0, 1, 2, 3, 4, 5, 6, 7, 8]).await.unwrap();
    let closed = wire::read_frame(&mut garbage, wire::MAX_HELLO_BYTES).await;
    assert!(closed.is_err(), "{closed:?}");
    assert!(client.ping().await.is_ok());
    client.stop_session(session.id).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_of_another_protocol_is_refused_in_words_naming_both_versions() {
    let t = TestEngine::start().await;
    let mut stream = tokio::net::UnixStream::connect(socket_of(&t)).await.unwrap();
    let hello = serde_json::json!({
        "protocol": 99, "app_version": "9.9.9", "build_id": "x", "client_kind": "window", "client_id": "old"
    });
    wire::write_frame(&mut stream, &Frame::message(&hello)).await.unwrap();
    let answer = wire::read_frame(&mut stream, wire::MAX_HELLO_BYTES).await.unwrap();
    match serde_json::from_slice::<ServerHello>(&answer.body).unwrap() {
        ServerHello::Refused { protocol, reason, .. } => {
            assert_eq!(protocol, wire::PROTOCOL);
            assert!(
                reason.contains("version 99") && reason.contains(&format!("version {}", wire::PROTOCOL)),
                "{reason}"
            );
        }
        other => panic!("a client of protocol 99 was let in: {other:?}"),
    }
    assert!(wire::read_frame(&mut stream, wire::MAX_FRAME_BYTES).await.is_err(), "and the connection closes");

    // What the client makes of such a refusal, over any stream.
    let (client_end, engine_end) = tokio::io::duplex(4096);
    let engine = tokio::spawn(async move {
        let (mut read, mut write) = tokio::io::split(engine_end);
        wire::read_frame(&mut read, wire::MAX_HELLO_BYTES).await.unwrap();
        let refused = ServerHello::Refused {
            protocol: 2,
            engine_version: "0.9.0".into(),
            reason: "this program speaks version 1 and the engine version 2".into(),
        };
        wire::write_frame(&mut write, &Frame::message(&refused)).await.unwrap();
    });
    let (read, write) = tokio::io::split(client_end);
    let refused = Client::over(read, write, ClientKind::Window).await.err().expect("refused");
    engine.await.unwrap();
    assert!(matches!(&refused, ClientError::Refused { engine_version, .. } if engine_version == "0.9.0"));
    let said = refused.to_string();
    assert!(said.contains("Switchboard 0.9.0") && said.contains("switchboard daemon --stop"), "{said}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_closed_engine_ends_every_call_terminal_and_event_stream_of_its_clients() {
    let t = TestEngine::start().await;
    let client = connect(&t).await;
    let mut events = client.subscribe().await.unwrap();
    let profile = client.create_profile(t.spec("demo", DEMO_AGENT, &["--speed", "fast"])).await.unwrap();
    let session = client.start_session(profile.id, TermSize::DEFAULT).await.unwrap();
    let mut terminal = client.attach(session.id).await.unwrap();
    read_until(&mut terminal, &mut Vec::new(), "demo>").await;
    t.engine.shutdown().await;
    tokio::time::timeout(DEADLINE, client.closed()).await.expect("the client sees the engine go");
    assert!(
        tokio::time::timeout(DEADLINE, async {
            while events.next().await.is_some() {}
            while terminal.next().await.is_some() {}
        })
        .await
        .is_ok()
    );
    let refused = client.list_profiles().await.unwrap_err();
    assert!(matches!(refused, ClientError::Disconnected), "{refused}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_window_that_holds_a_flood_back_is_not_undone_by_another_and_letting_go_finishes_it() {
    let t = TestEngine::start().await;
    let (a, b) = (connect(&t).await, connect(&t).await);
    let flood = "head -c 20000000 /dev/zero | tr '\\0' x; echo; echo flooded; read word; echo got $word; sleep 100";
    let profile = a.create_profile(t.spec("flood", "sh", &["-c", flood])).await.unwrap();
    let session = a.start_session(profile.id, TermSize::DEFAULT).await.unwrap();
    let (mut seen_a, mut seen_b) =
        (a.attach(session.id.clone()).await.unwrap(), b.attach(session.id.clone()).await.unwrap());
    // Each window's flow control speaks for its own view: B letting go leaves A's hold.
    a.set_output_paused(session.id.clone(), true).await.unwrap();
    b.set_output_paused(session.id.clone(), false).await.unwrap();
    a.set_output_paused(session.id.clone(), false).await.unwrap();
    read_until(&mut seen_a, &mut Vec::new(), "flooded").await;
    let mut seen = Vec::new();
    read_until(&mut seen_b, &mut seen, "flooded").await;
    // A window that holds and then goes lets go with it: the agent's answer reaches B.
    a.set_output_paused(session.id.clone(), true).await.unwrap();
    drop((seen_a, a));
    b.write_input(session.id.clone(), "hello\r".into()).await.unwrap();
    read_until(&mut seen_b, &mut seen, "got hello").await;
    b.stop_session(session.id).await.unwrap();
}
