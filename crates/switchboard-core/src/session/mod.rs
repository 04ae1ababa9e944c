//! One agent process in a pseudo-terminal.
//!
//! Each session is owned by one task (the session actor) that holds the PTY
//! master, the terminal model and the output subscribers. Three plain
//! threads do the blocking work and report to it: the reader (PTY output),
//! the writer (input to the PTY) and the waiter (`wait()` on the process,
//! the only exit signal — reader EOF can come late or never while a
//! descendant holds the terminal open).

pub mod process;
pub mod terminal;
pub mod typing;

use std::collections::VecDeque;
use std::io::{Read, Write};
use std::path::PathBuf;
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use portable_pty::{CommandBuilder, ExitStatus, MasterPty, PtySize, native_pty_system};
use serde::{Deserialize, Serialize};
use switchboard_protocol::{SessionId, TermSize};
use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;
use ts_rs::TS;

use crate::engine::{Reply, Responder};
use crate::error::EngineError;
use terminal::TerminalModel;
use typing::{ENTER_DELAY, Readiness, ReadyWhen};

/// Output is delivered to subscribers at most this often: one frame. Bytes
/// arriving in between are coalesced into one batch.
pub const BATCH_INTERVAL: Duration = Duration::from_millis(16);

/// A batch this large is delivered at once instead of waiting for the frame.
pub const MAX_BATCH_BYTES: usize = 256 * 1024;

/// Texts that may wait to be typed into one session.
const MAX_WAITING_TEXTS: usize = 16;

/// Size of one PTY read. Linux PTYs hand out a few KiB at a time anyway.
const READ_CHUNK_BYTES: usize = 16 * 1024;

/// Chunks the reader may queue ahead of the actor before it blocks, which in
/// turn blocks the agent: at most `READ_CHUNK_BYTES` times this in flight.
const OUTPUT_QUEUE_CHUNKS: usize = 64;

/// After an agent exits by itself, how long its leftover descendants get
/// between SIGTERM and SIGKILL.
const LEFTOVER_GRACE: Duration = Duration::from_millis(500);

/// Once the process tree is gone, how long the reader gets to drain the last
/// output before the end is reported anyway.
const READER_DRAIN_TIMEOUT: Duration = Duration::from_secs(1);

/// Receives a session's output in batches. Called on the session's task:
/// it must not block. Returning `false` means the receiver is gone, and the
/// subscription ends.
pub trait OutputSink: Send + 'static {
    fn deliver(&mut self, batch: &[u8]) -> bool;
}

impl<F: FnMut(&[u8]) -> bool + Send + 'static> OutputSink for F {
    fn deliver(&mut self, batch: &[u8]) -> bool {
        self(batch)
    }
}

/// Names one subscription to a session's output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
pub struct SubscriptionId(pub u32);

/// Everything needed to start a session; resolved and validated by the engine.
pub(crate) struct SpawnSpec {
    pub id: SessionId,
    pub program: PathBuf,
    pub args: Vec<String>,
    pub env: Vec<(String, String)>,
    pub cwd: PathBuf,
    pub size: TermSize,
    pub replay_cap: usize,
    pub history_lines: usize,
    pub kill_grace: Duration,
    /// Look for protocol signals in the output (plain CLI agents; a TUI
    /// reflows them, and its hooks deliver them instead).
    pub scan_signals: bool,
    /// The agent's hooks are connected: typing waits this long for their
    /// first word before going by the screen alone.
    pub hooks_grace: Option<Duration>,
}

/// A signal block found in a session's output.
#[derive(Debug)]
pub(crate) struct SessionScan {
    pub id: SessionId,
    pub event: switchboard_protocol::signal::ScanEvent,
}

/// How a session's process ended, reported once to the engine.
#[derive(Debug)]
pub(crate) struct SessionEnd {
    pub id: SessionId,
    pub exit_code: u32,
    pub signal: Option<String>,
    pub killed: bool,
}

pub(crate) struct Spawned {
    pub handle: SessionHandle,
    pub pid: u32,
    pub start_time: Option<u64>,
}

pub(crate) enum Control {
    Write(Vec<u8>, Responder),
    Resize(TermSize, Responder),
    Attach(Box<dyn OutputSink>, oneshot::Sender<SubscriptionId>),
    Detach(SubscriptionId),
    SetPaused(bool),
    Snapshot(usize, Responder),
    /// Type this text and press Enter once the agent is ready for input,
    /// after the requests before it.
    Type(TypeRequest),
    /// Forget the request with this tag if it was not typed yet.
    CancelType(String),
    /// The agent's hooks say it is at work or asking something (true), or
    /// back at its prompt (false).
    AgentBusy(bool),
    Kill,
}

/// Answers a [`TypeRequest`]: whether bracketed paste was used, or why
/// nothing was typed.
pub(crate) type TypedReply = oneshot::Sender<Result<bool, EngineError>>;

/// A task's text waiting to be typed.
pub(crate) struct TypeRequest {
    /// Names the request, for cancelling it (a task id, a signal id).
    pub tag: String,
    pub text: String,
    pub ready: ReadyWhen,
    pub reply: TypedReply,
}

/// The engine's handle on a session actor. Dropping it ends the actor (and,
/// if the process still runs, the process tree).
pub(crate) struct SessionHandle {
    control: mpsc::UnboundedSender<Control>,
}

impl SessionHandle {
    pub fn send(&self, control: Control) {
        if let Err(mpsc::error::SendError(control)) = self.control.send(control) {
            // The actor only stops after the engine dropped this handle, so a
            // closed channel means it panicked. Answer the caller regardless.
            tracing::error!("session actor is gone");
            match control {
                Control::Write(_, reply) | Control::Resize(_, reply) | Control::Snapshot(_, reply) => {
                    reply.send(Err(EngineError::Internal("session actor is gone".into()))).ok();
                }
                Control::Type(request) => {
                    request.reply.send(Err(EngineError::Internal("session actor is gone".into()))).ok();
                }
                Control::Attach(..)
                | Control::Detach(_)
                | Control::SetPaused(_)
                | Control::CancelType(_)
                | Control::AgentBusy(_)
                | Control::Kill => {}
            }
        }
    }
}

/// Pauses the reader thread while a view is behind (flow control).
#[derive(Default)]
struct FlowGate {
    paused: Mutex<bool>,
    changed: Condvar,
}

impl FlowGate {
    fn set_paused(&self, paused: bool) {
        *self.paused.lock().expect("flow gate lock is never poisoned") = paused;
        self.changed.notify_all();
    }

    fn wait_open(&self) {
        let mut paused = self.paused.lock().expect("flow gate lock is never poisoned");
        while *paused {
            paused = self.changed.wait(paused).expect("flow gate lock is never poisoned");
        }
    }
}

/// Starts the process in a new PTY and its actor. Must be called within a
/// Tokio runtime.
pub(crate) fn spawn(
    spec: SpawnSpec,
    ended: mpsc::UnboundedSender<SessionEnd>,
    signals: mpsc::UnboundedSender<SessionScan>,
) -> Result<Spawned, EngineError> {
    let spawn_failed =
        |reason: String| EngineError::SpawnFailed { command: spec.program.display().to_string(), reason };
    let pair = native_pty_system()
        .openpty(PtySize { rows: spec.size.rows, cols: spec.size.cols, pixel_width: 0, pixel_height: 0 })
        .map_err(|e| spawn_failed(format!("no pseudo-terminal: {e}")))?;

    let mut command = CommandBuilder::new(&spec.program);
    command.args(&spec.args);
    // Explicit, always: portable-pty would otherwise start the agent in $HOME.
    command.cwd(&spec.cwd);
    for (key, value) in &spec.env {
        command.env(key, value);
    }
    let mut child = pair.slave.spawn_command(command).map_err(|e| spawn_failed(e.to_string()))?;
    // The slave end now belongs to the child; holding it here would keep the
    // PTY open after the agent exits and delay the reader's EOF.
    drop(pair.slave);

    let pid = child.process_id().ok_or_else(|| spawn_failed("the process has no id".into()))?;
    process::register_leader(pid);
    let start_time = process::start_time(pid);

    let reader = pair.master.try_clone_reader().map_err(|e| spawn_failed(format!("PTY reader: {e}")))?;
    let writer = pair.master.take_writer().map_err(|e| spawn_failed(format!("PTY writer: {e}")))?;

    let gate = Arc::new(FlowGate::default());
    let (output_tx, output_rx) = mpsc::channel(OUTPUT_QUEUE_CHUNKS);
    let (input_tx, input_rx) = std::sync::mpsc::channel::<Vec<u8>>();
    let (exit_tx, exit_rx) = oneshot::channel();
    let (control_tx, control_rx) = mpsc::unbounded_channel();
    let short_id = spec.id.to_string()[..8].to_owned();

    let thread = |name: &str| std::thread::Builder::new().name(format!("{name}-{short_id}"));
    let reader_gate = gate.clone();
    thread("pty-read")
        .spawn(move || read_loop(reader, &reader_gate, output_tx))
        .map_err(|e| spawn_failed(format!("reader thread: {e}")))?;
    thread("pty-write")
        .spawn(move || write_loop(writer, input_rx))
        .map_err(|e| spawn_failed(format!("writer thread: {e}")))?;
    thread("pty-wait")
        .spawn(move || {
            let status = child.wait();
            process::unregister_leader(pid);
            let status = status.unwrap_or_else(|error| {
                tracing::error!(pid, %error, "wait() on an agent failed");
                ExitStatus::with_exit_code(u32::MAX)
            });
            exit_tx.send(status).ok();
        })
        .map_err(|e| spawn_failed(format!("waiter thread: {e}")))?;

    let actor = SessionActor {
        id: spec.id,
        pid,
        model: TerminalModel::new(spec.size, spec.replay_cap, spec.history_lines),
        master: Some(pair.master),
        input: Some(input_tx),
        gate,
        subscribers: Vec::new(),
        next_subscription: 0,
        pending: Vec::new(),
        flush_at: None,
        kill_grace: spec.kill_grace,
        kill_requested: false,
        exit: None,
        cleanup: None,
        reported: false,
        ended,
        scanner: spec.scan_signals.then(switchboard_protocol::signal::SignalScanner::new),
        signals,
        last_output: Instant::now(),
        typing: VecDeque::new(),
        check_ready_at: None,
        agent_busy: spec.hooks_grace.is_some(),
        hooks_grace_until: spec.hooks_grace.map(|grace| Instant::now() + grace),
        enter: None,
    };
    tokio::spawn(actor.run(control_rx, output_rx, exit_rx));
    Ok(Spawned { handle: SessionHandle { control: control_tx }, pid, start_time })
}

fn read_loop(mut reader: Box<dyn Read + Send>, gate: &FlowGate, output: mpsc::Sender<Vec<u8>>) {
    let mut buf = vec![0u8; READ_CHUNK_BYTES];
    loop {
        gate.wait_open();
        match reader.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                if output.blocking_send(buf[..n].to_vec()).is_err() {
                    break;
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            // EIO: every process holding the slave side has gone.
            Err(_) => break,
        }
    }
}

fn write_loop(mut writer: Box<dyn Write + Send>, input: std::sync::mpsc::Receiver<Vec<u8>>) {
    for bytes in input {
        if let Err(error) = writer.write_all(&bytes).and_then(|()| writer.flush()) {
            tracing::warn!(%error, "writing to an agent's terminal failed");
            break;
        }
    }
}

struct SessionActor {
    id: SessionId,
    pid: u32,
    model: TerminalModel,
    /// Dropped once the session has ended, releasing the PTY.
    master: Option<Box<dyn MasterPty + Send>>,
    input: Option<std::sync::mpsc::Sender<Vec<u8>>>,
    gate: Arc<FlowGate>,
    subscribers: Vec<(SubscriptionId, Box<dyn OutputSink>)>,
    next_subscription: u32,
    /// Output not yet delivered to subscribers (already in the model).
    pending: Vec<u8>,
    flush_at: Option<Instant>,
    kill_grace: Duration,
    kill_requested: bool,
    exit: Option<ExitStatus>,
    cleanup: Option<tokio::task::JoinHandle<process::TerminateReport>>,
    reported: bool,
    ended: mpsc::UnboundedSender<SessionEnd>,
    scanner: Option<switchboard_protocol::signal::SignalScanner>,
    signals: mpsc::UnboundedSender<SessionScan>,
    last_output: Instant,
    /// Texts waiting for the agent to be ready, first first.
    typing: VecDeque<TypeRequest>,
    check_ready_at: Option<Instant>,
    /// What the agent's hooks last said: at work or asking (true). Until
    /// their first word, an agent with hooks counts as busy…
    agent_busy: bool,
    /// …until this deadline at most.
    hooks_grace_until: Option<Instant>,
    /// Pasted; Enter follows at this instant.
    enter: Option<(Instant, bool, TypedReply)>,
}

impl SessionActor {
    async fn run(
        mut self,
        mut control: mpsc::UnboundedReceiver<Control>,
        mut output: mpsc::Receiver<Vec<u8>>,
        mut exit: oneshot::Receiver<ExitStatus>,
    ) {
        let mut reader_open = true;
        // Set once the process tree is gone: the end is reported when the
        // reader has drained the PTY, or at this deadline if something still
        // holds the terminal open.
        let mut report_deadline: Option<Instant> = None;
        loop {
            if report_deadline.is_some() && !reader_open {
                self.report_end();
                report_deadline = None;
            }
            let flush_at = self.flush_at;
            let check_ready_at = self.check_ready_at;
            let enter_at = self.enter.as_ref().map(|(at, ..)| *at);
            let hooks_grace_until = self.hooks_grace_until;
            tokio::select! {
                message = control.recv() => match message {
                    Some(message) => self.on_control(message),
                    None => break,
                },
                chunk = output.recv(), if reader_open => match chunk {
                    Some(bytes) => self.on_output(&bytes),
                    None => reader_open = false,
                },
                status = &mut exit, if self.exit.is_none() => {
                    let status = status.unwrap_or_else(|_| ExitStatus::with_exit_code(u32::MAX));
                    self.on_exit(status);
                }
                report = async { self.cleanup.as_mut().expect("guarded by the select condition").await },
                    if self.cleanup.is_some() && self.exit.is_some() =>
                {
                    self.cleanup = None;
                    match report {
                        Ok(report) if !report.survivors.is_empty() => {
                            tracing::error!(session = %self.id, survivors = ?report.survivors, "agent processes survived");
                        }
                        Ok(_) => {}
                        Err(error) => tracing::error!(session = %self.id, %error, "ending the process tree failed"),
                    }
                    report_deadline = Some(Instant::now() + READER_DRAIN_TIMEOUT);
                }
                () = tokio::time::sleep_until(report_deadline.unwrap_or_else(Instant::now)), if report_deadline.is_some() => {
                    tracing::warn!(session = %self.id, "the terminal stayed open after the agent's processes ended");
                    self.report_end();
                    report_deadline = None;
                }
                () = tokio::time::sleep_until(flush_at.unwrap_or_else(Instant::now)), if flush_at.is_some() => {
                    self.flush();
                }
                () = tokio::time::sleep_until(check_ready_at.unwrap_or_else(Instant::now)), if check_ready_at.is_some() => {
                    self.check_ready_at = None;
                    self.try_type();
                }
                () = tokio::time::sleep_until(enter_at.unwrap_or_else(Instant::now)), if enter_at.is_some() => {
                    self.press_enter();
                }
                () = tokio::time::sleep_until(hooks_grace_until.unwrap_or_else(Instant::now)), if hooks_grace_until.is_some() => {
                    tracing::info!(session = %self.id, "no hook event yet: typing goes by the screen alone");
                    self.hooks_grace_until = None;
                    self.agent_busy = false;
                    self.try_type();
                }
            }
        }
        // The engine let go of this session. If its process still runs (engine
        // shutdown without a stop), end the tree before the actor disappears.
        if self.exit.is_none() {
            let (id, pid, grace) = (self.id.clone(), self.pid, self.kill_grace);
            self.gate.set_paused(false);
            tokio::task::spawn_blocking(move || process::terminate_session(&id, pid as i32, grace));
        }
    }

    fn on_control(&mut self, message: Control) {
        match message {
            Control::Write(bytes, reply) => {
                let sent = self.input.as_ref().is_some_and(|input| input.send(bytes).is_ok());
                let result = if sent { Ok(Reply::Unit) } else { Err(EngineError::SessionNotRunning(self.id.clone())) };
                reply.send(result).ok();
            }
            Control::Resize(size, reply) => {
                let result = match &self.master {
                    Some(master) => master
                        .resize(PtySize { rows: size.rows, cols: size.cols, pixel_width: 0, pixel_height: 0 })
                        .map(|()| {
                            self.model.resize(size);
                            Reply::Unit
                        })
                        .map_err(|e| EngineError::Internal(format!("resizing the terminal: {e}"))),
                    None => Err(EngineError::SessionNotRunning(self.id.clone())),
                };
                reply.send(result).ok();
            }
            Control::Attach(mut sink, reply) => {
                // Deliver what is pending to the others first: the replay
                // below already contains it, so the new view sees every byte
                // exactly once.
                self.flush();
                let replay = self.model.replay();
                if replay.is_empty() || sink.deliver(&replay) {
                    let id = SubscriptionId(self.next_subscription);
                    self.next_subscription += 1;
                    self.subscribers.push((id, sink));
                    reply.send(id).ok();
                }
                self.gate.set_paused(false);
            }
            Control::Detach(id) => {
                self.subscribers.retain(|(sub, _)| *sub != id);
                self.gate.set_paused(false);
            }
            Control::SetPaused(paused) => {
                // Only a live view may hold the agent back.
                self.gate.set_paused(paused && !self.subscribers.is_empty() && self.exit.is_none());
            }
            Control::Snapshot(lines, reply) => {
                reply.send(Ok(Reply::Snapshot(self.model.snapshot(lines)))).ok();
            }
            Control::Type(request) => {
                if self.input.is_none() || self.exit.is_some() {
                    request.reply.send(Err(EngineError::SessionNotRunning(self.id.clone()))).ok();
                } else {
                    if self.typing.len() >= MAX_WAITING_TEXTS {
                        request.reply.send(Err(EngineError::Internal("too many texts wait to be typed".into()))).ok();
                    } else {
                        self.typing.push_back(request);
                        self.try_type();
                    }
                }
            }
            Control::CancelType(tag) => {
                self.typing.retain(|request| request.tag != tag);
                if self.typing.is_empty() {
                    self.check_ready_at = None;
                }
            }
            Control::AgentBusy(busy) => {
                self.hooks_grace_until = None;
                self.agent_busy = busy;
                if !busy {
                    self.try_type();
                }
            }
            Control::Kill => {
                if self.exit.is_none() && !self.kill_requested {
                    self.kill_requested = true;
                    self.start_cleanup(self.kill_grace);
                }
            }
        }
    }

    fn on_output(&mut self, bytes: &[u8]) {
        self.model.feed(bytes);
        if let Some(scanner) = &mut self.scanner {
            for event in scanner.feed(bytes) {
                self.signals.send(SessionScan { id: self.id.clone(), event }).ok();
            }
        }
        self.last_output = Instant::now();
        if let Some(request) = self.typing.front() {
            self.check_ready_at = Some(self.last_output + request.ready.quiet);
        }
        if self.subscribers.is_empty() {
            return;
        }
        self.pending.extend_from_slice(bytes);
        if self.pending.len() >= MAX_BATCH_BYTES {
            self.flush();
        } else if self.flush_at.is_none() {
            self.flush_at = Some(Instant::now() + BATCH_INTERVAL);
        }
    }

    /// Types the waiting text if the agent is ready now; otherwise arranges
    /// to look again when it may be.
    fn try_type(&mut self) {
        let Some(request) = self.typing.front() else { return };
        if self.enter.is_some() {
            // The previous text is still waiting for its Enter.
            self.check_ready_at = Some(Instant::now() + ENTER_DELAY);
            return;
        }
        let quiet_for = self.last_output.elapsed();
        match typing::readiness(&request.ready, &self.model.cursor_line(), quiet_for, self.agent_busy) {
            Readiness::WaitQuiet(remaining) => self.check_ready_at = Some(Instant::now() + remaining),
            Readiness::WaitPattern | Readiness::WaitAgent => self.check_ready_at = None,
            Readiness::Ready => {
                let request = self.typing.pop_front().expect("checked above");
                let bracketed = self.model.bracketed_paste();
                let sent = self
                    .input
                    .as_ref()
                    .is_some_and(|input| input.send(typing::typed_input(&request.text, bracketed)).is_ok());
                if sent {
                    self.enter = Some((Instant::now() + ENTER_DELAY, bracketed, request.reply));
                } else {
                    request.reply.send(Err(EngineError::SessionNotRunning(self.id.clone()))).ok();
                }
            }
        }
    }

    fn press_enter(&mut self) {
        let Some((_, bracketed, reply)) = self.enter.take() else { return };
        let sent = self.input.as_ref().is_some_and(|input| input.send(b"\r".to_vec()).is_ok());
        let result = if sent { Ok(bracketed) } else { Err(EngineError::SessionNotRunning(self.id.clone())) };
        reply.send(result).ok();
        // The next text waits for the agent to be ready again.
        if let Some(next) = self.typing.front() {
            self.check_ready_at = Some(Instant::now() + next.ready.quiet);
        }
    }

    fn flush(&mut self) {
        self.flush_at = None;
        if self.pending.is_empty() {
            return;
        }
        let batch = std::mem::take(&mut self.pending);
        self.subscribers.retain_mut(|(_, sink)| sink.deliver(&batch));
        if self.subscribers.is_empty() {
            self.gate.set_paused(false);
        }
    }

    fn on_exit(&mut self, status: ExitStatus) {
        self.exit = Some(status);
        self.gate.set_paused(false);
        if self.cleanup.is_none() {
            // Descendants the agent left behind still hold the terminal; end them.
            self.start_cleanup(LEFTOVER_GRACE);
        }
    }

    fn start_cleanup(&mut self, grace: Duration) {
        self.gate.set_paused(false);
        let (id, pid) = (self.id.clone(), self.pid);
        self.cleanup = Some(tokio::task::spawn_blocking(move || process::terminate_session(&id, pid as i32, grace)));
    }

    fn report_end(&mut self) {
        if self.reported {
            return;
        }
        self.reported = true;
        self.flush();
        self.master = None;
        self.input = None;
        if let Some(event) = self.scanner.take().and_then(|mut scanner| scanner.finish()) {
            self.signals.send(SessionScan { id: self.id.clone(), event }).ok();
        }
        let gone = || Err(EngineError::SessionNotRunning(self.id.clone()));
        for request in self.typing.drain(..) {
            request.reply.send(gone()).ok();
        }
        if let Some((_, _, reply)) = self.enter.take() {
            reply.send(gone()).ok();
        }
        self.check_ready_at = None;
        let status = self.exit.as_ref().expect("the end is reported only after the exit");
        let end = SessionEnd {
            id: self.id.clone(),
            exit_code: status.exit_code(),
            signal: status.signal().map(str::to_owned),
            killed: self.kill_requested,
        };
        if self.ended.send(end).is_err() {
            tracing::warn!(session = %self.id, "engine gone before the session end was recorded");
        }
    }
}
