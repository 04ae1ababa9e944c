//! One agent process in a pseudo-terminal.
//!
//! Each session is owned by one task (the session actor) that holds the PTY
//! master, the terminal model and the output subscribers. Three plain
//! threads do the blocking work and report to it: the reader (PTY output),
//! the writer (input to the PTY) and the waiter (`wait()` on the process,
//! the only exit signal — reader EOF can come late or never while a
//! descendant holds the terminal open).

mod actor;
pub mod environment;
mod gather;
pub mod lineage;
pub mod process;
pub mod terminal;
pub mod typing;

use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use portable_pty::{CommandBuilder, ExitStatus, PtySize, native_pty_system};
use switchboard_protocol::{SessionId, TermSize};
use tokio::sync::{mpsc, oneshot};

use crate::error::{EngineError, Responder};
use actor::SessionActor;
use switchboard_api::ScreenSnapshot;
use terminal::TerminalModel;
use typing::ReadyWhen;

/// Output is delivered to subscribers at most this often: one frame. Bytes
/// arriving in between are coalesced into one batch.
pub const BATCH_INTERVAL: Duration = Duration::from_millis(16);
/// Signal blocks read from all sessions and not yet taken by the engine, at
/// most; past it a session's output waits (and with it its agent).
pub const SCAN_QUEUE: usize = 1024;

/// A batch this large is delivered at once instead of waiting for the frame.
pub const MAX_BATCH_BYTES: usize = 256 * 1024;

/// Input handed to an agent's terminal that it has not read yet, at most:
/// past it more input is refused (an agent that never reads cannot make the
/// app hold an unbounded amount for it).
pub const MAX_PENDING_INPUT_BYTES: usize = 2 * 1024 * 1024;

/// Size of one PTY read. Linux PTYs hand out a few KiB at a time anyway;
/// the reader gathers reads into batches (`gather`).
const READ_CHUNK_BYTES: usize = 16 * 1024;

/// Batches the reader may queue ahead of the actor before it blocks, which
/// in turn blocks the agent: about `gather::SEND_AT_BYTES` times this (1 MiB)
/// in flight.
const OUTPUT_QUEUE_CHUNKS: usize = 16;

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

pub use switchboard_api::SubscriptionId;

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

/// What the engine asks of a session actor. Each request that wants an
/// answer carries its [`Responder`]; one dropped unanswered still answers.
pub(crate) enum Control {
    Write(Vec<u8>, Responder<()>),
    Resize(TermSize, Responder<()>),
    /// Subscribe a view: it gets the replay, then live output.
    Attach(Box<dyn OutputSink>, Responder<SubscriptionId>),
    Detach(SubscriptionId),
    /// Hold the agent's output back (a view is behind), or let it go; by
    /// the view named (its subscription), or by whoever (none). The agent is
    /// held while any live view holds it.
    SetPaused(Option<SubscriptionId>, bool),
    /// The screen and this many recent lines.
    Snapshot(usize, Responder<ScreenSnapshot>),
    /// Type this text and press Enter once the agent is ready for input,
    /// after the requests before it.
    Type(TypeRequest),
    /// Forget the request with this tag if it was not typed yet.
    CancelType(String),
    /// Type the request with this tag as soon as the texts before it are,
    /// whatever readiness says (the user's word); answered with whether
    /// such a request waits.
    TypeNow(String, Responder<()>),
    /// The agent's hooks say it is at work or asking something (true), or
    /// back at its prompt (false).
    AgentBusy(bool),
    Kill,
}

/// A text waiting to be typed.
pub(crate) struct TypeRequest {
    /// Names the request, for cancelling it (a task id, a signal id).
    pub tag: String,
    pub text: String,
    pub ready: ReadyWhen,
    /// Whether bracketed paste was used, or why nothing was typed.
    pub reply: Responder<bool>,
    /// Told what holds the text back each time that changes (see
    /// [`typing::held`]), until it is typed.
    pub held: Option<HeldReport>,
    /// Answered once the agent, having printed something after this text's
    /// Enter, is done with it ([`ReadyWhen::turn_over`]): with the recent
    /// lines on screen above its prompt.
    pub back: Option<BackWatchRequest>,
}

/// Hears what holds a text back, on the session's task: it must not block.
pub(crate) type HeldReport = Box<dyn FnMut(typing::Held) + Send>;

/// Asks to hear when the agent is done with a typed text.
pub(crate) struct BackWatchRequest {
    pub reply: Responder<Vec<String>>,
    /// Without a ready pattern: how long its output must be quiet after it
    /// answered (zero: the request is dropped, nothing can tell).
    pub turn_quiet: Duration,
}

/// The engine's handle on a session actor. Dropping it ends the actor (and,
/// if the process still runs, the process tree).
pub(crate) struct SessionHandle {
    control: mpsc::UnboundedSender<Control>,
    /// When its agent last printed anything (wall clock).
    output_at: Arc<AtomicI64>,
}

impl SessionHandle {
    /// When the agent last printed anything; its start if it never did.
    pub fn output_at(&self) -> switchboard_api::Millis {
        self.output_at.load(Ordering::Relaxed)
    }

    pub fn send(&self, control: Control) {
        if self.control.send(control).is_err() {
            // The actor only stops after the engine dropped this handle, so a
            // closed channel means it panicked. The dropped request's
            // responder answers its caller.
            tracing::error!("session actor is gone");
        }
    }

    /// A handle whose requests arrive on the returned receiver instead of
    /// at an actor: a stand-in session for tests of the engine's desks.
    #[cfg(test)]
    pub fn stand_in() -> (SessionHandle, mpsc::UnboundedReceiver<Control>) {
        let (control, requests) = mpsc::unbounded_channel();
        (SessionHandle { control, output_at: Arc::new(AtomicI64::new(switchboard_api::now())) }, requests)
    }
}

/// Pauses the reader thread while a view is behind (flow control).
#[derive(Default)]
pub(crate) struct FlowGate {
    paused: Mutex<bool>,
    changed: Condvar,
}

impl FlowGate {
    fn set_paused(&self, paused: bool) {
        *self.paused.lock().expect("flow gate lock is never poisoned") = paused;
        self.changed.notify_all();
    }

    fn is_paused(&self) -> bool {
        *self.paused.lock().expect("flow gate lock is never poisoned")
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
    signals: mpsc::Sender<SessionScan>,
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
    // The engine's environment, less a window's own variables (a window may
    // have started the engine); what the agent's spec sets comes after.
    for (name, _) in std::env::vars_os().filter(|(name, _)| environment::window_only(name)) {
        command.env_remove(name);
    }
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
    // What runs below it is an agent's (its keeper's, when one runs it).
    match start_time {
        Some(start_time) => lineage::record_keeper(lineage::ProcessKey { pid: pid as i32, start_time }),
        None => tracing::warn!(pid, "an agent just started could not be read; only its ancestry shows it is one"),
    }

    // The terminal is read and written without blocking: a writer stuck in
    // a write the agent never reads would hold the terminal open for good
    // after the session ends. Both threads wait in poll instead.
    let (reader, writer) =
        nonblocking_ends(&*pair.master).map_err(|e| spawn_failed(format!("PTY file descriptors: {e}")))?;

    let gate = Arc::new(FlowGate::default());
    let (output_tx, output_rx) = mpsc::channel(OUTPUT_QUEUE_CHUNKS);
    let (input_tx, input_rx) = std::sync::mpsc::channel::<Vec<u8>>();
    let pending_input = Arc::new(AtomicUsize::new(0));
    let input_closed = Arc::new(AtomicBool::new(false));
    let input = InputQueue { sender: input_tx, pending: pending_input.clone(), closed: input_closed.clone() };
    let (exit_tx, exit_rx) = oneshot::channel();
    let (control_tx, control_rx) = mpsc::unbounded_channel();
    let short_id = spec.id.to_string()[..8].to_owned();

    let thread = |name: &str| std::thread::Builder::new().name(format!("{name}-{short_id}"));
    let reader_gate = gate.clone();
    thread("pty-read")
        .spawn(move || read_loop(reader, &reader_gate, output_tx))
        .map_err(|e| spawn_failed(format!("reader thread: {e}")))?;
    thread("pty-write")
        .spawn(move || write_loop(writer, input_rx, &pending_input, &input_closed))
        .map_err(|e| spawn_failed(format!("writer thread: {e}")))?;
    thread("pty-wait")
        .spawn(move || {
            let status = child.wait();
            process::unregister_leader(pid);
            lineage::forget_keeper(pid as i32);
            let status = status.unwrap_or_else(|error| {
                tracing::error!(pid, %error, "wait() on an agent failed");
                ExitStatus::with_exit_code(u32::MAX)
            });
            exit_tx.send(status).ok();
        })
        .map_err(|e| spawn_failed(format!("waiter thread: {e}")))?;

    let model = TerminalModel::new(spec.size, spec.replay_cap, spec.history_lines);
    let output_at = Arc::new(AtomicI64::new(switchboard_api::now()));
    let actor = SessionActor::new(
        actor::Parts {
            id: spec.id,
            pid,
            model,
            master: pair.master,
            input,
            gate,
            ended,
            signals,
            output_at: output_at.clone(),
        },
        spec.kill_grace,
        spec.scan_signals,
        spec.hooks_grace,
    );
    tokio::spawn(actor.run(control_rx, output_rx, exit_rx));
    Ok(Spawned { handle: SessionHandle { control: control_tx, output_at }, pid, start_time })
}

/// How long the writer waits for room in the terminal before it looks
/// again whether its session has ended.
const WRITE_WAIT: Duration = Duration::from_millis(100);

/// Two descriptors of the terminal's master side, one to read and one to
/// write, sharing its (now non-blocking) file description.
fn nonblocking_ends(master: &dyn portable_pty::MasterPty) -> std::io::Result<(File, File)> {
    let raw = master.as_raw_fd().ok_or_else(|| std::io::Error::other("the terminal has no descriptor"))?;
    // SAFETY: the master keeps `raw` open for the duration of this call.
    let fd = unsafe { BorrowedFd::borrow_raw(raw) };
    let flags = nix::fcntl::OFlag::from_bits_truncate(nix::fcntl::fcntl(fd, nix::fcntl::FcntlArg::F_GETFL)?);
    nix::fcntl::fcntl(fd, nix::fcntl::FcntlArg::F_SETFL(flags | nix::fcntl::OFlag::O_NONBLOCK))?;
    let reader: OwnedFd = fd.try_clone_to_owned()?;
    let writer: OwnedFd = fd.try_clone_to_owned()?;
    Ok((File::from(reader), File::from(writer)))
}

/// What waiting on a descriptor came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Polled {
    Ready,
    TimedOut,
    /// The other side hung up or the descriptor failed.
    Gone,
}

/// Waits until `fd` is ready for `events`, at most `timeout`.
fn wait_ready(fd: BorrowedFd<'_>, events: nix::poll::PollFlags, timeout: nix::poll::PollTimeout) -> Polled {
    use nix::poll::{PollFd, PollFlags, poll};
    let mut fds = [PollFd::new(fd, events)];
    match poll(&mut fds, timeout) {
        Ok(0) => Polled::TimedOut,
        Ok(_) => {
            let revents = fds[0].revents().unwrap_or(PollFlags::empty());
            let failed = revents.intersects(PollFlags::POLLERR | PollFlags::POLLNVAL);
            let hung_up = revents.contains(PollFlags::POLLHUP) && !revents.contains(events);
            if failed || hung_up { Polled::Gone } else { Polled::Ready }
        }
        Err(nix::errno::Errno::EINTR) => Polled::Ready,
        Err(_) => Polled::Gone,
    }
}

/// Reads the agent's output and hands it to the actor in batches
/// (`gather`), until the terminal closes or the actor is gone.
fn read_loop(mut reader: File, gate: &FlowGate, output: mpsc::Sender<Vec<u8>>) {
    use gather::{Gathered, Idle};
    use nix::poll::{PollFlags, PollTimeout};
    let mut buf = vec![0u8; READ_CHUNK_BYTES];
    let mut gathered = Gathered::default();
    let send = |batch: Option<Vec<u8>>| batch.is_none_or(|batch| output.blocking_send(batch).is_ok());
    loop {
        // What is gathered goes before the reader stops at a closed gate.
        if gate.is_paused() && !send(gathered.take()) {
            return;
        }
        gate.wait_open();
        match reader.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                if !send(gathered.add(&buf[..n], std::time::Instant::now())) {
                    return;
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                let timeout = match gathered.idle(std::time::Instant::now()) {
                    Idle::WaitForever => PollTimeout::NONE,
                    Idle::WaitAtMost(wait) => PollTimeout::try_from(wait).unwrap_or(PollTimeout::ZERO),
                    Idle::Send => PollTimeout::ZERO,
                };
                // A hang-up is left to the next read, which says EIO.
                if wait_ready(reader.as_fd(), PollFlags::POLLIN, timeout) == Polled::TimedOut && !send(gathered.take())
                {
                    return;
                }
            }
            // EIO: every process holding the slave side has gone.
            Err(_) => break,
        }
    }
    send(gathered.take());
}

/// The way to a session's writer thread, with a count of what waits in it.
pub(crate) struct InputQueue {
    sender: std::sync::mpsc::Sender<Vec<u8>>,
    pending: Arc<AtomicUsize>,
    /// Set when the queue is dropped (the session ended): the writer gives
    /// up what the agent never read and closes its descriptor.
    closed: Arc<AtomicBool>,
}

impl Drop for InputQueue {
    fn drop(&mut self) {
        self.closed.store(true, Ordering::Release);
    }
}

/// Why input was not handed to the writer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum InputRefused {
    /// This much is still unread: the agent does not read its input.
    Backlog { pending: usize },
    /// The writer is gone (the session ended).
    Closed,
}

impl InputQueue {
    /// Queues `bytes` for the agent, unless that would leave more than
    /// [`MAX_PENDING_INPUT_BYTES`] unread.
    pub fn push(&self, bytes: Vec<u8>) -> Result<(), InputRefused> {
        let pending = self.pending.load(Ordering::Acquire);
        if pending + bytes.len() > MAX_PENDING_INPUT_BYTES {
            return Err(InputRefused::Backlog { pending });
        }
        let len = bytes.len();
        self.pending.fetch_add(len, Ordering::AcqRel);
        self.sender.send(bytes).map_err(|_| {
            self.pending.fetch_sub(len, Ordering::AcqRel);
            InputRefused::Closed
        })
    }
}

fn write_loop(mut writer: File, input: std::sync::mpsc::Receiver<Vec<u8>>, pending: &AtomicUsize, closed: &AtomicBool) {
    for bytes in input {
        let mut rest = &bytes[..];
        while !rest.is_empty() {
            match writer.write(rest) {
                Ok(n) => rest = &rest[n..],
                Err(error) if error.kind() == std::io::ErrorKind::Interrupted => {}
                Err(error) if error.kind() == std::io::ErrorKind::WouldBlock => {
                    // The agent does not read: wait for room, but not past
                    // the end of its session.
                    if closed.load(Ordering::Acquire) {
                        return;
                    }
                    let timeout = nix::poll::PollTimeout::try_from(WRITE_WAIT).expect("fits");
                    if wait_ready(writer.as_fd(), nix::poll::PollFlags::POLLOUT, timeout) == Polled::Gone {
                        return;
                    }
                }
                Err(error) => {
                    tracing::warn!(%error, "writing to an agent's terminal failed");
                    return;
                }
            }
        }
        pending.fetch_sub(bytes.len(), Ordering::AcqRel);
    }
}
