//! The session actor: the one task that owns a session's PTY master, its
//! terminal model, its output subscribers and the texts waiting to be typed.

use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::Duration;

use portable_pty::{ExitStatus, MasterPty, PtySize};
use switchboard_protocol::SessionId;
use switchboard_protocol::signal::SignalScanner;
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;
use tokio::time::Instant;

use super::terminal::TerminalModel;
use super::typing::{self, ENTER_DELAY, Held, Readiness, ReadyWhen};
use super::{
    BATCH_INTERVAL, Control, FlowGate, InputQueue, InputRefused, MAX_BATCH_BYTES, OutputSink, SessionEnd, SessionScan,
    SubscriptionId, TypeRequest, process,
};
use crate::error::{EngineError, Responder};

/// Texts that may wait to be typed into one session.
const MAX_WAITING_TEXTS: usize = 16;

/// After an agent exits by itself, how long its leftover descendants get
/// between SIGTERM and SIGKILL.
const LEFTOVER_GRACE: Duration = Duration::from_millis(500);

/// Once the process tree is gone, how long the reader gets to drain the last
/// output before the end is reported anyway.
const READER_DRAIN_TIMEOUT: Duration = Duration::from_secs(1);

/// Where the session's process is in its life, with what each stage holds.
enum Life {
    /// The agent runs.
    Running,
    /// The user asked to stop it: its tree is being ended.
    Stopping { cleanup: JoinHandle<process::TerminateReport> },
    /// `wait()` returned; what is left of its tree is being ended.
    Exited { status: ExitStatus, killed: bool, cleanup: JoinHandle<process::TerminateReport> },
    /// The tree is gone; the reader drains the last output until this
    /// deadline, then the end is reported regardless.
    Draining { status: ExitStatus, killed: bool, deadline: Instant },
    /// The end was reported and the PTY let go.
    Reported,
}

impl Life {
    fn process_alive(&self) -> bool {
        matches!(self, Life::Running | Life::Stopping { .. })
    }
}

/// What `spawn` built for the actor.
pub(super) struct Parts {
    pub id: SessionId,
    pub pid: u32,
    pub model: TerminalModel,
    pub master: Box<dyn MasterPty + Send>,
    pub input: InputQueue,
    pub gate: Arc<FlowGate>,
    pub ended: mpsc::UnboundedSender<SessionEnd>,
    pub signals: mpsc::Sender<SessionScan>,
    /// When the agent last printed anything, for the engine's quiet watch.
    pub output_at: Arc<AtomicI64>,
}

/// A pasted text whose Enter is due.
struct PendingEnter {
    at: Instant,
    bracketed: bool,
    reply: Responder<bool>,
    back: Option<(ReadyWhen, Responder<Vec<String>>)>,
}

/// A text waiting to be typed, with what the actor knows of its wait.
struct Waiting {
    request: TypeRequest,
    /// The user said to type it whatever readiness says.
    forced: bool,
    /// What was last reported as holding it back.
    reported: Option<Held>,
}

/// Waits for the agent to be back at its prompt after a typed text.
struct BackWatch {
    ready: ReadyWhen,
    reply: Responder<Vec<String>>,
    /// Output arrived since the Enter: the agent answered something.
    answered: bool,
}

/// Lines of screen sent with the agent's return to its prompt.
const BACK_LINES: usize = 60;

pub(super) struct SessionActor {
    id: SessionId,
    pid: u32,
    life: Life,
    model: TerminalModel,
    /// Let go once the end is reported, releasing the PTY.
    master: Option<Box<dyn MasterPty + Send>>,
    input: Option<InputQueue>,
    gate: Arc<FlowGate>,
    subscribers: Vec<(SubscriptionId, Box<dyn OutputSink>)>,
    /// Who holds the output back: views (by subscription) that are behind,
    /// or a caller that named none.
    held_by: std::collections::HashSet<Option<SubscriptionId>>,
    next_subscription: u32,
    /// Output not yet delivered to subscribers (already in the model).
    pending: Vec<u8>,
    flush_at: Option<Instant>,
    kill_grace: Duration,
    ended: mpsc::UnboundedSender<SessionEnd>,
    scanner: Option<SignalScanner>,
    signals: mpsc::Sender<SessionScan>,
    last_output: Instant,
    /// The same, as wall-clock time the engine reads.
    output_at: Arc<AtomicI64>,
    /// Texts waiting for the agent to be ready, first first.
    typing: VecDeque<Waiting>,
    check_ready_at: Option<Instant>,
    /// What the agent's hooks last said: at work or asking (true). Until
    /// their first word, an agent with hooks counts as busy…
    agent_busy: bool,
    /// …until this deadline at most.
    hooks_grace_until: Option<Instant>,
    enter: Option<PendingEnter>,
    back: Option<BackWatch>,
}

impl SessionActor {
    pub(super) fn new(parts: Parts, kill_grace: Duration, scan_signals: bool, hooks_grace: Option<Duration>) -> Self {
        SessionActor {
            id: parts.id,
            pid: parts.pid,
            life: Life::Running,
            model: parts.model,
            master: Some(parts.master),
            input: Some(parts.input),
            gate: parts.gate,
            subscribers: Vec::new(),
            held_by: Default::default(),
            next_subscription: 0,
            pending: Vec::new(),
            flush_at: None,
            kill_grace,
            ended: parts.ended,
            scanner: scan_signals.then(SignalScanner::new),
            signals: parts.signals,
            last_output: Instant::now(),
            output_at: parts.output_at,
            typing: VecDeque::new(),
            check_ready_at: None,
            agent_busy: hooks_grace.is_some(),
            hooks_grace_until: hooks_grace.map(|grace| Instant::now() + grace),
            enter: None,
            back: None,
        }
    }

    pub(super) async fn run(
        mut self,
        mut control: mpsc::UnboundedReceiver<Control>,
        mut output: mpsc::Receiver<Vec<u8>>,
        mut exit: oneshot::Receiver<ExitStatus>,
    ) {
        let mut reader_open = true;
        loop {
            if !reader_open && matches!(self.life, Life::Draining { .. }) {
                self.report_end();
            }
            let flush_at = self.flush_at;
            let check_ready_at = self.check_ready_at;
            let enter_at = self.enter.as_ref().map(|enter| enter.at);
            let hooks_grace_until = self.hooks_grace_until;
            let drain_deadline = match &self.life {
                Life::Draining { deadline, .. } => Some(*deadline),
                _ => None,
            };
            let cleaning_up = matches!(self.life, Life::Exited { .. });
            tokio::select! {
                message = control.recv() => match message {
                    Some(message) => self.on_control(message),
                    None => break,
                },
                chunk = output.recv(), if reader_open => match chunk {
                    Some(bytes) => {
                        for event in self.on_output(&bytes) {
                            // A flood of blocks waits for the engine (and the
                            // terminal's reader for this) instead of queueing
                            // without bound.
                            if self.signals.send(SessionScan { id: self.id.clone(), event }).await.is_err() {
                                break;
                            }
                        }
                    }
                    None => reader_open = false,
                },
                status = &mut exit, if self.life.process_alive() => {
                    let status = status.unwrap_or_else(|_| ExitStatus::with_exit_code(u32::MAX));
                    self.on_exit(status);
                }
                report = async {
                    match &mut self.life {
                        Life::Exited { cleanup, .. } => cleanup.await,
                        _ => unreachable!("guarded by the select condition"),
                    }
                }, if cleaning_up => self.on_tree_gone(report),
                () = tokio::time::sleep_until(drain_deadline.unwrap_or_else(Instant::now)), if drain_deadline.is_some() => {
                    tracing::warn!(session = %self.id, "the terminal stayed open after the agent's processes ended");
                    self.report_end();
                }
                () = tokio::time::sleep_until(flush_at.unwrap_or_else(Instant::now)), if flush_at.is_some() => {
                    self.flush();
                }
                () = tokio::time::sleep_until(check_ready_at.unwrap_or_else(Instant::now)), if check_ready_at.is_some() => {
                    self.check_ready_at = None;
                    self.try_type();
                    self.check_back();
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
        if self.life.process_alive() {
            let (id, pid, grace) = (self.id.clone(), self.pid, self.kill_grace);
            self.gate.set_paused(false);
            tokio::task::spawn_blocking(move || process::terminate_session(&id, pid as i32, grace));
        }
    }

    fn on_control(&mut self, message: Control) {
        match message {
            Control::Write(bytes, reply) => reply.send(self.push_input(bytes)),
            Control::Resize(size, reply) => {
                let result = match &self.master {
                    Some(master) => master
                        .resize(PtySize { rows: size.rows, cols: size.cols, pixel_width: 0, pixel_height: 0 })
                        .map(|()| self.model.resize(size))
                        .map_err(|e| EngineError::Internal(format!("resizing the terminal: {e}"))),
                    None => Err(self.not_running()),
                };
                reply.send(result);
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
                    reply.send(Ok(id));
                } else {
                    reply.send(Err(EngineError::Internal("the view went away while attaching".into())));
                }
                // A hold that named no view is let go when a view comes.
                self.held_by.remove(&None);
                self.hold();
            }
            Control::Detach(id) => {
                self.subscribers.retain(|(sub, _)| *sub != id);
                self.hold();
            }
            Control::SetPaused(by, paused) => {
                if paused {
                    self.held_by.insert(by);
                } else {
                    self.held_by.remove(&by);
                }
                self.hold();
            }
            Control::Snapshot(lines, reply) => reply.send(Ok(self.model.snapshot(lines))),
            Control::Type(request) => {
                if self.input.is_none() || !self.life.process_alive() {
                    request.reply.send(Err(self.not_running()));
                } else if self.typing.len() >= MAX_WAITING_TEXTS {
                    request.reply.send(Err(EngineError::Internal("too many texts wait to be typed".into())));
                } else {
                    // The terminal echoes what is typed: a marker in it (a user's
                    // instruction or answer quoting one) would read as a signal.
                    let text = switchboard_protocol::signal::teach::defuse(&request.text);
                    let request = TypeRequest { text, ..request };
                    self.typing.push_back(Waiting { request, forced: false, reported: None });
                    self.try_type();
                }
            }
            Control::CancelType(tag) => {
                self.typing.retain(|waiting| waiting.request.tag != tag);
                if self.typing.is_empty() {
                    self.check_ready_at = None;
                }
            }
            Control::TypeNow(tag, reply) => match self.typing.iter_mut().find(|waiting| waiting.request.tag == tag) {
                Some(waiting) => {
                    waiting.forced = true;
                    reply.send(Ok(()));
                    self.try_type();
                }
                None => reply.send(Err(EngineError::InvalidInput {
                    field: "task_id",
                    reason: "it is no longer waiting to be typed".into(),
                })),
            },
            Control::AgentBusy(busy) => {
                self.hooks_grace_until = None;
                self.agent_busy = busy;
                if !busy {
                    self.try_type();
                    self.check_back();
                }
            }
            Control::Kill => {
                if matches!(self.life, Life::Running) {
                    self.life = Life::Stopping { cleanup: self.start_cleanup(self.kill_grace) };
                }
            }
        }
    }

    /// Hands input to the writer; refused when the session ended or the
    /// agent has left too much unread.
    fn push_input(&self, bytes: Vec<u8>) -> Result<(), EngineError> {
        let Some(input) = &self.input else { return Err(self.not_running()) };
        input.push(bytes).map_err(|refused| match refused {
            InputRefused::Closed => self.not_running(),
            InputRefused::Backlog { pending } => EngineError::InvalidInput {
                field: "data",
                reason: format!(
                    "the agent has not read the {} KiB typed before; nothing more is sent until it does",
                    pending / 1024
                ),
            },
        })
    }

    fn not_running(&self) -> EngineError {
        EngineError::SessionNotRunning(self.id.clone())
    }

    /// Takes in output; returns the signal blocks it completed.
    fn on_output(&mut self, bytes: &[u8]) -> Vec<switchboard_protocol::signal::ScanEvent> {
        self.model.feed(bytes);
        let events = self.scanner.as_mut().map(|scanner| scanner.feed(bytes)).unwrap_or_default();
        self.last_output = Instant::now();
        self.output_at.store(switchboard_api::now(), Ordering::Relaxed);
        if let Some(waiting) = self.typing.front() {
            self.check_ready_at = Some(self.last_output + waiting.request.ready.quiet);
        }
        if let Some(back) = &mut self.back {
            back.answered = true;
            let at = self.last_output + back.ready.quiet;
            self.check_ready_at = Some(self.check_ready_at.map_or(at, |other| other.min(at)));
        }
        if self.subscribers.is_empty() {
            return events;
        }
        self.pending.extend_from_slice(bytes);
        if self.pending.len() >= MAX_BATCH_BYTES {
            self.flush();
        } else if self.flush_at.is_none() {
            self.flush_at = Some(Instant::now() + BATCH_INTERVAL);
        }
        events
    }

    /// Types the waiting text if the agent is ready now (or the user said to
    /// type it); otherwise arranges to look again when it may be, and says
    /// what holds it back when that changed.
    fn try_type(&mut self) {
        let Some(waiting) = self.typing.front() else { return };
        if self.enter.is_some() {
            // The previous text is still waiting for its Enter.
            self.check_ready_at = Some(Instant::now() + ENTER_DELAY);
            return;
        }
        let quiet_for = self.last_output.elapsed();
        let readiness = match waiting.forced {
            true => Readiness::Ready,
            false => typing::readiness(&waiting.request.ready, &self.model.cursor_line(), quiet_for, self.agent_busy),
        };
        match readiness {
            Readiness::WaitQuiet(remaining) => self.check_ready_at = Some(Instant::now() + remaining),
            Readiness::WaitPattern | Readiness::WaitAgent => self.check_ready_at = None,
            Readiness::Ready => {}
        }
        if readiness != Readiness::Ready {
            self.report_held(readiness);
            return;
        }
        let Waiting { request, .. } = self.typing.pop_front().expect("checked above");
        let bracketed = self.model.bracketed_paste();
        match self.push_input(typing::typed_input(&request.text, bracketed)) {
            Ok(()) => {
                // Dropped when nothing can tell the turn is over: its responder answers so.
                let back = request
                    .back
                    .and_then(|back| request.ready.turn_over(back.turn_quiet).map(|ready| (ready, back.reply)));
                self.enter =
                    Some(PendingEnter { at: Instant::now() + ENTER_DELAY, bracketed, reply: request.reply, back })
            }
            Err(error) => request.reply.send(Err(error)),
        }
    }

    /// Tells the first waiting text's requester what holds it back, if that
    /// changed since it was last told.
    fn report_held(&mut self, readiness: Readiness) {
        let hooks_until = self.hooks_grace_until.filter(|_| self.agent_busy).map(|until| {
            let left = until.saturating_duration_since(Instant::now());
            switchboard_api::now() + left.as_millis() as switchboard_api::Millis
        });
        let last_line = match readiness {
            Readiness::WaitPattern => self.last_screen_line(),
            _ => String::new(),
        };
        let Some(waiting) = self.typing.front_mut() else { return };
        let Some(held) = typing::held(readiness, hooks_until, &last_line) else { return };
        // The grace's end moves by a few milliseconds from one look to the next.
        let same = match (&waiting.reported, &held) {
            (Some(Held::Hooks { .. }), Held::Hooks { .. }) => true,
            (reported, held) => reported.as_ref() == Some(held),
        };
        if same {
            return;
        }
        waiting.reported = Some(held.clone());
        if let Some(report) = &mut waiting.request.held {
            report(held);
        }
    }

    /// The line under the cursor, or the screen's last line with text on it
    /// when the cursor's is blank.
    fn last_screen_line(&mut self) -> String {
        let cursor = self.model.cursor_line();
        if !cursor.trim().is_empty() {
            return cursor;
        }
        let screen = self.model.snapshot(0).screen;
        screen.lines().rev().find(|line| !line.trim().is_empty()).unwrap_or_default().to_owned()
    }

    /// Answers the back watch if the agent, having answered, is at its
    /// prompt again; otherwise arranges to look again when it may be.
    fn check_back(&mut self) {
        let Some(back) = &self.back else { return };
        if !back.answered {
            return;
        }
        match typing::readiness(&back.ready, &self.model.cursor_line(), self.last_output.elapsed(), self.agent_busy) {
            Readiness::WaitQuiet(remaining) => {
                let at = Instant::now() + remaining;
                self.check_ready_at = Some(self.check_ready_at.map_or(at, |other| other.min(at)));
            }
            Readiness::WaitPattern | Readiness::WaitAgent => {}
            Readiness::Ready => {
                let back = self.back.take().expect("checked above");
                // Up to the prompt the agent is back at, which is not part of its answer.
                let mut lines = self.model.snapshot(BACK_LINES).recent_lines;
                while lines.last().is_some_and(|line| line.trim().is_empty()) {
                    lines.pop();
                }
                lines.pop();
                back.reply.send(Ok(lines));
            }
        }
    }

    fn press_enter(&mut self) {
        let Some(enter) = self.enter.take() else { return };
        let pressed = self.push_input(b"\r".to_vec());
        if pressed.is_ok()
            && let Some((ready, reply)) = enter.back
        {
            self.back = Some(BackWatch { ready, reply, answered: false });
        }
        enter.reply.send(pressed.map(|()| enter.bracketed));
        // The next text waits for the agent to be ready again.
        if let Some(next) = self.typing.front() {
            self.check_ready_at = Some(Instant::now() + next.request.ready.quiet);
        }
    }

    fn flush(&mut self) {
        self.flush_at = None;
        if self.pending.is_empty() {
            return;
        }
        let batch = std::mem::take(&mut self.pending);
        let before = self.subscribers.len();
        self.subscribers.retain_mut(|(_, sink)| sink.deliver(&batch));
        if self.subscribers.len() != before {
            self.hold();
        }
    }

    /// Holds the agent's output back while a live view is behind: only a
    /// view still attached (or a caller that named none, while views are
    /// attached) holds it, and only while the process runs.
    fn hold(&mut self) {
        let attached: Vec<SubscriptionId> = self.subscribers.iter().map(|(id, _)| *id).collect();
        let held = output_held(&mut self.held_by, &attached, self.life.process_alive());
        self.gate.set_paused(held);
    }

    fn on_exit(&mut self, status: ExitStatus) {
        self.gate.set_paused(false);
        self.life = match std::mem::replace(&mut self.life, Life::Reported) {
            Life::Stopping { cleanup } => Life::Exited { status, killed: true, cleanup },
            // Descendants the agent left behind still hold the terminal; end them.
            _ => Life::Exited { status, killed: false, cleanup: self.start_cleanup(LEFTOVER_GRACE) },
        };
    }

    fn on_tree_gone(&mut self, report: Result<process::TerminateReport, tokio::task::JoinError>) {
        match report {
            Ok(report) if !report.survivors.is_empty() => {
                tracing::error!(session = %self.id, survivors = ?report.survivors, "agent processes survived");
            }
            Ok(_) => {}
            Err(error) => tracing::error!(session = %self.id, %error, "ending the process tree failed"),
        }
        if let Life::Exited { status, killed, .. } = std::mem::replace(&mut self.life, Life::Reported) {
            self.life = Life::Draining { status, killed, deadline: Instant::now() + READER_DRAIN_TIMEOUT };
        }
    }

    fn start_cleanup(&self, grace: Duration) -> JoinHandle<process::TerminateReport> {
        self.gate.set_paused(false);
        let (id, pid) = (self.id.clone(), self.pid);
        tokio::task::spawn_blocking(move || process::terminate_session(&id, pid as i32, grace))
    }

    /// Reports the end once, from `Draining`, and lets the PTY go.
    fn report_end(&mut self) {
        let Life::Draining { status, killed, .. } = std::mem::replace(&mut self.life, Life::Reported) else {
            return;
        };
        self.flush();
        self.master = None;
        self.input = None;
        if let Some(event) = self.scanner.take().and_then(|mut scanner| scanner.finish())
            && let Err(error) = self.signals.try_send(SessionScan { id: self.id.clone(), event })
        {
            tracing::warn!(session = %self.id, %error, "the last signal block of an ended session was not read");
        }
        for waiting in self.typing.drain(..) {
            waiting.request.reply.send(Err(EngineError::SessionNotRunning(self.id.clone())));
        }
        if let Some(enter) = self.enter.take() {
            enter.reply.send(Err(EngineError::SessionNotRunning(self.id.clone())));
        }
        self.check_ready_at = None;
        let end = SessionEnd {
            id: self.id.clone(),
            exit_code: status.exit_code(),
            signal: status.signal().map(str::to_owned),
            killed,
        };
        if self.ended.send(end).is_err() {
            tracing::warn!(session = %self.id, "engine gone before the session end was recorded");
        }
    }
}

/// Whether an agent's output is held back: while its process runs, a view
/// still attached is behind, or a caller that named no view asked while
/// views are attached. Holds of views gone are forgotten.
pub(super) fn output_held(
    held_by: &mut std::collections::HashSet<Option<SubscriptionId>>,
    attached: &[SubscriptionId],
    alive: bool,
) -> bool {
    held_by.retain(|by| by.is_none_or(|id| attached.contains(&id)));
    alive && !attached.is_empty() && !held_by.is_empty()
}

#[cfg(test)]
mod hold_tests {
    use super::*;

    #[test]
    fn the_output_is_held_while_any_attached_view_is_behind() {
        let (a, b) = (SubscriptionId(1), SubscriptionId(2));
        // Held by, attached, alive => held, holds kept.
        type Case<'a> = (&'a [Option<SubscriptionId>], &'a [SubscriptionId], bool, bool, usize);
        let cases: &[Case] = &[
            (&[], &[a, b], true, false, 0),
            (&[Some(a)], &[a, b], true, true, 1),
            // B resuming does not undo A's hold: B never held.
            (&[Some(a)], &[a, b], true, true, 1),
            (&[Some(a), Some(b)], &[a, b], true, true, 2),
            // A view that went lets go of its hold.
            (&[Some(a)], &[b], true, false, 0),
            // Nobody watches: nothing holds the agent.
            (&[None], &[], true, false, 1),
            (&[None], &[a], true, true, 1),
            // An exited agent is never held.
            (&[Some(a)], &[a], false, false, 1),
        ];
        for (held_by, attached, alive, held, kept) in cases {
            let mut holds = held_by.iter().copied().collect();
            assert_eq!(output_held(&mut holds, attached, *alive), *held, "{held_by:?} {attached:?} {alive}");
            assert_eq!(holds.len(), *kept, "{held_by:?} {attached:?}");
        }
    }
}
