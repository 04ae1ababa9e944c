//! The engine over its real socket, as the window and the command line reach
//! the daemon: the one typed client (`switchboard-client`) attaching,
//! detaching and attaching again to terminals, two clients at once, clients
//! that stall, vanish or speak garbage, and the version refusal; clients
//! that send and never read, half-sent frames, quiet clients and their
//! keepalives, nine flooding agents on one connection, and a flood of idle
//! connections under a low limit on open files.

use crate::support;

use std::sync::Arc;
use std::sync::atomic::Ordering;

use support::*;
use switchboard_api::wire::{self, Frame, Hello, ServerHello};
use switchboard_client::{Client, ClientError, ClientKind, EventItem, StreamEnd};
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
                            && task.state.is_finished()
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
        assert_eq!(finished.state.as_str(), "completed", "{finished:?}");
    }
    // Both terminals showed the same work.
    read_until(&mut a, &mut Vec::new(), "shared work").await;
    read_until(&mut b, &mut Vec::new(), "shared work").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_stalls_or_vanishes_mid_stream_harms_no_agent_and_no_other_client() {
    // The budgets a user's engine has, not the tests' roomy ones: they are what is tested.
    let t = TestEngine::start_with(|config| config.socket = Default::default()).await;
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
    t.shutdown().await;
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

/// A framed connection spoken by hand: the hello said and answered, and
/// nothing read after that unless the test reads it.
async fn said_hello(socket: &std::path::Path) -> (tokio::net::unix::OwnedReadHalf, tokio::net::unix::OwnedWriteHalf) {
    let stream = tokio::net::UnixStream::connect(socket).await.unwrap();
    let (mut read, mut write) = stream.into_split();
    let hello = Hello {
        protocol: wire::PROTOCOL,
        app_version: "test".into(),
        build_id: "test".into(),
        client_kind: ClientKind::Test,
        client_id: "by hand".into(),
    };
    wire::write_frame(&mut write, &Frame::message(&hello)).await.unwrap();
    let welcome = wire::read_frame(&mut read, wire::MAX_HELLO_BYTES).await.unwrap();
    assert!(matches!(serde_json::from_slice(&welcome.body).unwrap(), ServerHello::Welcome(_)));
    (read, write)
}

fn request(id: u64, request: wire::ClientRequest) -> Frame {
    Frame::message(&wire::ClientFrame::Request { id, request })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_half_sent_frame_is_let_go_at_its_deadline_and_a_quiet_client_hears_keepalives_and_stays() {
    let t = TestEngine::start_with(|config| {
        config.socket.frame_deadline = std::time::Duration::from_millis(300);
        config.socket.keepalive = std::time::Duration::from_millis(100);
    })
    .await;
    let quiet = connect(&t).await;
    let (mut quiet_raw, _quiet_raw_write) = said_hello(&socket_of(&t)).await;
    let (mut read, mut write) = said_hello(&socket_of(&t)).await;
    // A header announcing the largest frame, three bytes of it, and nothing more.
    write.write_all(&(wire::MAX_FRAME_BYTES as u32).to_be_bytes()).await.unwrap();
    write.write_all(&[wire::MESSAGE, b'{', b'"']).await.unwrap();
    let ended = tokio::time::timeout(DEADLINE, async {
        // Keepalives may come before the end.
        while wire::read_frame(&mut read, wire::MAX_FRAME_BYTES).await.is_ok() {}
    })
    .await;
    assert!(ended.is_ok(), "a frame begun and never finished kept its connection");

    // A client that sent nothing since its hello hears keepalives, and is served.
    let heard = tokio::time::timeout(DEADLINE, wire::read_frame(&mut quiet_raw, wire::MAX_FRAME_BYTES))
        .await
        .expect("no keepalive")
        .unwrap();
    let kind: serde_json::Value = serde_json::from_slice(&heard.body).unwrap();
    assert_eq!(kind["type"], "keepalive");
    assert_eq!(serde_json::from_slice::<wire::ServerFrame>(&heard.body).unwrap(), wire::ServerFrame::Unknown);
    assert!(quiet.ping().await.is_ok() && !quiet.is_closed(), "the quiet client was cut off");
}

/// Answers every request `ok`: the server is what is under test.
struct AlwaysOk;

impl switchboard_core::server::RequestHandler for AlwaysOk {
    async fn handle(
        &self,
        _command: switchboard_api::Command,
        _caller: switchboard_core::server::Caller,
    ) -> Result<switchboard_core::Reply, switchboard_core::EngineError> {
        Ok(switchboard_core::Reply::Unit)
    }
}

/// A server with `limits`, and a client of it that has said hello (blocking).
fn served_with(
    limits: switchboard_core::server::SocketLimits,
) -> (tokio::runtime::Runtime, switchboard_core::server::SocketServer, std::os::unix::net::UnixStream, tempfile::TempDir)
{
    use std::io::Write;
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join("s/engine.sock");
    let server =
        runtime.block_on(async { switchboard_core::server::serve_with(&socket, Arc::new(AlwaysOk), limits).unwrap() });
    let mut client = std::os::unix::net::UnixStream::connect(&socket).unwrap();
    let hello = Hello {
        protocol: wire::PROTOCOL,
        app_version: "test".into(),
        build_id: "test".into(),
        client_kind: ClientKind::Test,
        client_id: "flood".into(),
    };
    client.write_all(&Frame::message(&hello).encode()).unwrap();
    read_frame_blocking(&mut client).expect("a welcome");
    (runtime, server, client, dir)
}

/// One frame read from a blocking stream; none once it ends.
fn read_frame_blocking(stream: &mut impl std::io::Read) -> Option<Frame> {
    let mut head = [0u8; 5];
    stream.read_exact(&mut head).ok()?;
    let length = u32::from_be_bytes(head[..4].try_into().unwrap()) as usize;
    let mut body = vec![0u8; length.checked_sub(1)?];
    stream.read_exact(&mut body).ok()?;
    Some(Frame { kind: head[4], body })
}

#[test]
fn a_client_that_sends_and_never_reads_is_not_read_past_its_places_and_loses_no_answer() {
    const SENT: u64 = 20_000;
    let limits = switchboard_core::server::SocketLimits { in_flight: 4, ..Default::default() };
    let (_runtime, server, client, _dir) = served_with(limits);
    let mut writing = client.try_clone().unwrap();
    let writer = std::thread::spawn(move || {
        use std::io::Write;
        for id in 1..=SENT {
            writing.write_all(&request(id, wire::ClientRequest::Ping).encode()).unwrap();
        }
    });
    // The engine stops reading once its four places wait on answers the client
    // does not take (before: it read everything, its answers queued without bound).
    let deadline = std::time::Instant::now() + DEADLINE;
    while server.stats.held_back.load(Ordering::Relaxed) == 0 {
        assert!(std::time::Instant::now() < deadline, "the engine read on while its answers waited");
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    // The client reads at last: every request is answered, once.
    let mut reading = client;
    let mut answered = std::collections::HashSet::new();
    while answered.len() < SENT as usize {
        let frame = read_frame_blocking(&mut reading).expect("the connection ended before every answer");
        if let Ok(wire::ServerFrame::Reply { id, answer: wire::Answer::Pong }) = serde_json::from_slice(&frame.body) {
            assert!(answered.insert(id), "answered twice: {id}");
        }
    }
    writer.join().unwrap();
}

#[test]
fn a_client_that_takes_nothing_the_engine_writes_is_let_go() {
    let limits = switchboard_core::server::SocketLimits {
        in_flight: 4,
        write_stall: std::time::Duration::from_millis(200),
        ..Default::default()
    };
    let (_runtime, server, mut client, _dir) = served_with(limits);
    // Before: the engine read every request and queued every answer for good.
    let sent = (1..=1_000_000u64).find(|id| {
        use std::io::Write;
        client.write_all(&request(*id, wire::ClientRequest::Ping).encode()).is_err()
    });
    assert!(sent.is_some(), "a million requests were read from a client that reads nothing");
    assert!(server.stats.cut_off.load(Ordering::Relaxed) >= 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nine_flooding_agents_attach_over_one_connection_whose_output_budget_is_spent() {
    // The budgets a user's engine has, not the tests' roomy ones: they are what is tested.
    let t = TestEngine::start_with(|config| config.socket = Default::default()).await;
    let client = connect(&t).await;
    // One agent floods and then waits; eight flood for good (started once the first is done,
    // so that a loaded machine gets the first one's flood through).
    let finite = "head -c 16000000 /dev/zero | tr '\\0' x; echo; echo flooded; sleep 100";
    let first = client.create_profile(t.spec("finite", "sh", &["-c", finite])).await.unwrap();
    let first = client.start_session(first.id, TermSize::DEFAULT).await.unwrap();
    // A window's connection that takes nothing while the first agent floods: its
    // output budget is spent, that stream dropped as behind.
    let (mut read, mut write) = said_hello(&socket_of(&t)).await;
    let attach = |id, session_id: &switchboard_core::SessionId, stream| {
        request(id, wire::ClientRequest::Attach { session_id: session_id.clone(), stream })
    };
    wire::write_frame(&mut write, &attach(1, &first.id, 1)).await.unwrap();
    tokio::time::timeout(DEADLINE, async {
        while !client.screen_snapshot(first.id.clone(), 5).await.unwrap().screen.contains("flooded") {
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
    })
    .await
    .expect("the first agent's flood never ended on its screen");
    let mut floods = Vec::new();
    for i in 0..8 {
        let profile = client.create_profile(t.spec(&format!("flood {i}"), "yes", &[&format!("flood {i}")])).await;
        floods.push(client.start_session(profile.unwrap().id, TermSize::DEFAULT).await.unwrap().id);
    }
    // The eight others attach over the same connection meanwhile (before: their
    // replays found the budget spent, "the view went away while attaching").
    for (n, session) in floods.iter().enumerate() {
        let n = n as u32 + 2;
        wire::write_frame(&mut write, &attach(u64::from(n), session, n)).await.unwrap();
    }
    let mut ok = std::collections::HashSet::new();
    let mut received = std::collections::HashMap::<u32, usize>::new();
    let mut again = false;
    let everyone = tokio::time::timeout(DEADLINE, async {
        loop {
            let frame = wire::read_frame(&mut read, wire::MAX_FRAME_BYTES).await.expect("the connection ended");
            if let Some((stream, bytes)) = frame.as_output() {
                *received.entry(stream).or_default() += bytes.len();
            } else {
                match serde_json::from_slice::<wire::ServerFrame>(&frame.body).unwrap() {
                    wire::ServerFrame::Reply { id, answer: wire::Answer::Ok { .. } } => {
                        ok.insert(id);
                    }
                    wire::ServerFrame::Reply { id, answer } => panic!("attach {id} failed: {answer:?}"),
                    // The first stream fell behind: attached again, as the window does.
                    wire::ServerFrame::StreamEnded { stream: 1, why: StreamEnd::Behind } if !again => {
                        again = true;
                        wire::write_frame(&mut write, &attach(10, &first.id, 10)).await.unwrap();
                    }
                    _ => {}
                }
            }
            let attached = (2..=10).all(|id| ok.contains(&id));
            if attached && (2..=10).all(|stream| received.get(&stream).is_some_and(|n| *n > 0)) {
                return;
            }
        }
    })
    .await;
    assert!(everyone.is_ok(), "attached: {ok:?}; output by stream: {received:?}");
    for session in floods.into_iter().chain([first.id]) {
        client.stop_session(session).await.unwrap();
    }
}

#[test]
fn idle_connections_past_the_limit_on_open_files_leave_room_for_the_command_line_and_hooks() {
    use std::io::{BufRead, Write};
    use std::os::unix::process::CommandExt;
    let dir = tempfile::tempdir().unwrap();
    // An engine started under a low limit (this machine's is high): a soft 128
    // it raises to the hard 256.
    let mut command = std::process::Command::new(ENGINE_HOST);
    command.arg(dir.path()).args(["sh", "-c", "sleep 1000"]).env("HOST_KEEPER", hook_binary());
    // SAFETY: setrlimit only, between fork and exec.
    unsafe {
        command.pre_exec(|| {
            nix::sys::resource::setrlimit(nix::sys::resource::Resource::RLIMIT_NOFILE, 128, 256)
                .map_err(std::io::Error::from)
        });
    }
    /// The engine's process and its agent's process group (the keeper leads it), killed
    /// however the test ends.
    struct Killed(std::process::Child, Option<i32>);
    impl Drop for Killed {
        fn drop(&mut self) {
            if let Some(group) = self.1 {
                use nix::sys::signal::{Signal, killpg};
                if let Err(error) = killpg(nix::unistd::Pid::from_raw(group), Signal::SIGKILL) {
                    eprintln!("the agent could not be ended: {error}");
                }
            }
            if let Err(error) = self.0.kill().and_then(|()| self.0.wait().map(drop)) {
                eprintln!("the engine could not be ended: {error}");
            }
        }
    }
    let mut engine = Killed(command.stdout(std::process::Stdio::piped()).spawn().unwrap(), None);
    let mut lines = std::io::BufReader::new(engine.0.stdout.take().unwrap()).lines();
    let agent: u32 = lines.next().unwrap().unwrap().strip_prefix("pid ").unwrap().parse().unwrap();
    engine.1 = Some(agent as i32);
    let limit_of = |pid: u32| {
        let limits = std::fs::read_to_string(format!("/proc/{pid}/limits")).unwrap();
        let line = limits.lines().find(|l| l.starts_with("Max open files")).unwrap().to_owned();
        line.split_whitespace().nth(3).unwrap().parse::<u64>().unwrap()
    };
    assert_eq!(limit_of(engine.0.id()), 256, "the engine raised its soft limit to the hard one");
    // The keeper (the agent's first process) sets it before it starts the agent.
    let deadline = std::time::Instant::now() + DEADLINE;
    while limit_of(agent) != 128 {
        assert!(std::time::Instant::now() < deadline, "the agent was not given the original soft limit back");
        std::thread::sleep(std::time::Duration::from_millis(10));
    }

    // Seven hundred connections that begin a frame and never say hello.
    let socket = switchboard_core::config::socket_path(dir.path(), None);
    let idle: Vec<std::os::unix::net::UnixStream> = (0..700)
        .map(|_| {
            let mut stream = std::os::unix::net::UnixStream::connect(&socket).unwrap();
            stream.write_all(&[0]).unwrap();
            stream
        })
        .collect();
    // The command line connects and is answered, and so is a hook's line.
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let client = tokio::time::timeout(DEADLINE, Client::connect(&socket, ClientKind::CommandLine))
            .await
            .expect("the command line could not connect")
            .expect("the command line could not connect");
        client.list_profiles().await.expect("the command line was not answered");
    });
    let mut hook = std::os::unix::net::UnixStream::connect(&socket).unwrap();
    hook.set_read_timeout(Some(DEADLINE)).unwrap();
    hook.write_all(b"{\"type\":\"command\",\"command\":{\"type\":\"list_profiles\"}}\n").unwrap();
    let mut answer = String::new();
    std::io::BufReader::new(&hook).read_line(&mut answer).expect("the hook's line was not answered");
    assert!(answer.starts_with("{\"ok\""), "{answer}");
    drop(idle);
    drop(engine);
}
