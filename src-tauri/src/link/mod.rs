//! The window's link to the engine, which runs as a daemon of its own
//! (`switchboard daemon`): the window holds no engine state, only this
//! connection, through the one typed client every program uses.
//!
//! At start the link connects to the daemon of the data directory, starting
//! one if none runs. It forwards the engine's events to the web view and to
//! the desktop (tray, notifications), carries every command and terminal,
//! and when the connection ends it says so (`engine-link`) and tries again
//! with a growing pause (1 s doubling to 10 s) until the engine answers; the
//! user can start the engine meanwhile. Another engine instance, or events
//! missed, make the window load everything again.
//!
//! On another machine (`switchboard --host`), the link reaches that
//! machine's engine over SSH (`switchboard_client::ssh`), whose `daemon
//! --stdio` starts it there when none runs; a dropped connection is tried
//! again the same way, in batch mode (never a prompt), and the window loads
//! everything again: what happened meanwhile (output, questions, tasks
//! ended) is there. A call is never sent again by the link: nothing is typed
//! twice into an agent across a reconnection.
//!
//! A window on this machine also shows every other machine in the user's
//! list (`crate::engines`): each has a link of its own ([`Role::Beside`]),
//! whose state goes to the window as `host-link` rather than as the
//! window's own banner and tray state, and whose engine's answers and
//! events teach the window which machine holds what.

mod frames;

use frames::{Frame, until};

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use switchboard_api::{EventPace, HostLink, StorageProblem};
use switchboard_client::fleet::{self, Owners, Said};
use switchboard_client::ssh::{Host, SshProblem, sentence};
use switchboard_client::{Client, ClientError, ClientKind, EventItem};
use switchboard_core::{ApiError, Command, EngineLink, ErrorCode, SessionId, SubscriptionId};
use tauri::ipc::{Channel, InvokeResponseBody};
use tauri::{AppHandle, Emitter, Manager};
use tokio::sync::{Notify, watch};

use crate::desktop::Desktop;

/// The Tauri event carrying the link's state ([`EngineLink`]) to the UI.
pub const ENGINE_LINK_EVENT: &str = "engine-link";
/// The Tauri event carrying the state of a link to a machine shown beside
/// this one's ([`HostLink`]).
pub const HOST_LINK_EVENT: &str = "host-link";

/// How long a call waits for the engine while the window connects to it or
/// starts it, before it is told the engine is not there.
const CONNECT_WAIT: Duration = Duration::from_secs(90);
const FIRST_RETRY: Duration = Duration::from_secs(1);
/// The terminal's full reset (RIS): what a view shows goes, before it is drawn anew.
const RESET: &[u8] = b"\x1bc";
const LAST_RETRY: Duration = Duration::from_secs(10);

/// The link's state and the connection it has, if any.
#[derive(Clone)]
struct Linked {
    link: EngineLink,
    client: Option<Client>,
}

pub struct Link {
    data_dir: PathBuf,
    socket: PathBuf,
    no_demo: bool,
    linked: watch::Sender<Linked>,
    /// Wakes the link from its pause to try now.
    wake: Notify,
    /// The next try starts the engine if none answers.
    start: AtomicBool,
    /// Why the engine could not start on its data, if it said so.
    startup_problem: Mutex<Option<StorageProblem>>,
    /// Each terminal view's stream now, by the number the view was given.
    views: Arc<Mutex<HashMap<u32, u32>>>,
    /// Another machine's engine, in place of this one's.
    host: Option<Host>,
    role: Role,
    /// Set when the machine left the window: the link ends.
    removed: watch::Sender<bool>,
    /// How soon the window wants its events (the window says, for all its links).
    pace: watch::Receiver<EventPace>,
    /// How many connections the link has made ([`EngineLink::Connected`]'s `connection`).
    connections: AtomicU32,
    /// When the window started this machine's engine again after it died.
    restarts: Mutex<Vec<std::time::Instant>>,
    /// The engine the next connection reaches was started by the window after one died.
    restarting: AtomicBool,
    /// The window asked this machine's engine to stop (its Stop, its Restart): the loss that
    /// follows is no death, even where the engine left no note of it (another build's may not).
    asked_to_stop: AtomicBool,
}

/// What the link is to its window.
pub enum Role {
    /// The engine the window is about: this machine's, or the one machine a
    /// `--host` window shows. Its state is the window's banner and tray;
    /// what it says it holds is this machine's, and is learnt before any
    /// other machine's claim is believed.
    Main { owners: Arc<Mutex<Owners>> },
    /// Another machine the window shows beside this one's: its state is
    /// told as a [`HostLink`], and what its engine says teaches the window
    /// which machine holds what.
    Beside { owners: Arc<Mutex<Owners>> },
}

impl Link {
    pub fn new(
        data_dir: PathBuf,
        socket: PathBuf,
        no_demo: bool,
        host: Option<Host>,
        role: Role,
        pace: watch::Receiver<EventPace>,
    ) -> Arc<Link> {
        let linked = watch::Sender::new(Linked { link: EngineLink::Connecting, client: None });
        Arc::new(Link {
            data_dir,
            socket,
            no_demo,
            linked,
            wake: Notify::new(),
            start: AtomicBool::new(true),
            startup_problem: Mutex::new(None),
            views: Arc::default(),
            host,
            role,
            removed: watch::Sender::new(false),
            pace,
            connections: AtomicU32::new(0),
            restarts: Mutex::default(),
            restarting: AtomicBool::new(false),
            asked_to_stop: AtomicBool::new(false),
        })
    }

    /// The machine left the window: the link lets its engine go and ends.
    pub fn remove(&self) {
        self.removed.send_replace(true);
        self.wake.notify_one();
    }

    fn is_removed(&self) -> bool {
        *self.removed.borrow()
    }

    /// The other machine this link reaches, as the window names it.
    pub fn destination(&self) -> Option<&str> {
        self.host.as_ref().map(|h| h.destination.as_str())
    }

    /// Whether it is another machine shown beside this one's.
    pub fn beside(&self) -> bool {
        matches!(self.role, Role::Beside { .. })
    }

    /// Waits, at most `wait`, until the link is no longer connecting.
    pub async fn settled_within(&self, wait: Duration) -> EngineLink {
        let mut linked = self.linked.subscribe();
        tokio::time::timeout(wait, linked.wait_for(|l| l.link != EngineLink::Connecting)).await.ok();
        self.state()
    }

    /// Its connection now, if connected (never waits).
    pub fn connected(&self) -> Option<Client> {
        self.linked.borrow().client.clone()
    }

    /// What its engine said (an answer) teaches the window what it holds;
    /// another machine's is kept as this machine's agents' fields are
    /// (`fleet::capped_from_host`), and names its machine on the agents in it.
    pub fn heard(&self, reply: &mut switchboard_core::Reply) -> Result<(), ApiError> {
        match (&self.role, self.destination()) {
            (Role::Beside { owners }, Some(host)) => {
                let said = std::mem::replace(reply, switchboard_core::Reply::Unit);
                let mut owners = owners.lock().expect("never poisoned");
                *reply = fleet::heard_from_host(&mut owners, host, said).map_err(|error| {
                    tracing::warn!(host, %error, "another machine's answer could not be kept");
                    internal(format!("{host} sent an answer this window cannot show."))
                })?;
            }
            (Role::Main { owners }, _) => owners.lock().expect("never poisoned").learn_here(Said::Reply(reply)),
            (Role::Beside { .. }, None) => {}
        }
        Ok(())
    }

    /// What its engine said (an event) teaches the window what it holds;
    /// another machine's is kept as this machine's agents' fields are, and
    /// names its machine on the agent in it. None: it cannot be shown.
    fn heard_event(&self, event: switchboard_core::EngineEvent) -> Option<switchboard_core::EngineEvent> {
        match (&self.role, self.destination()) {
            (Role::Beside { owners }, Some(host)) => {
                let mut owners = owners.lock().expect("never poisoned");
                fleet::event_from_host(&mut owners, host, event)
                    .inspect_err(|error| tracing::warn!(host, %error, "another machine's event could not be kept"))
                    .ok()
            }
            (Role::Main { owners }, _) => {
                owners.lock().expect("never poisoned").learn_here(Said::Event(&event));
                Some(event)
            }
            (Role::Beside { .. }, None) => Some(event),
        }
    }

    /// Learns what the engine holds now from its lists, as the link
    /// connects; the window's own engine's lists make what other machines
    /// say believed from then on.
    async fn learn_holdings(&self, client: &Client) -> Result<(), ClientError> {
        for list in switchboard_client::fleet::holdings() {
            let mut reply = client.call(list).await?;
            // Said in the log by `heard`; the window's own lists show what it is.
            self.heard(&mut reply).ok();
        }
        if let Role::Main { owners } = &self.role {
            owners.lock().expect("never poisoned").here_told();
        }
        Ok(())
    }

    /// The other machine's name, when the engine runs there.
    fn host_name(&self) -> Option<String> {
        self.host.as_ref().map(|h| h.destination.clone())
    }

    /// The link's state now.
    pub fn state(&self) -> EngineLink {
        self.linked.borrow().link.clone()
    }

    pub fn startup_problem(&self) -> Option<StorageProblem> {
        self.startup_problem.lock().expect("never poisoned").clone()
    }

    /// Waits, at most [`CONNECT_WAIT`], until the link is no longer connecting.
    pub async fn settled(&self) -> EngineLink {
        self.settled_within(CONNECT_WAIT).await
    }

    /// The connection, waiting for it while the window connects; an error
    /// that says the engine is not there otherwise.
    pub async fn client(&self) -> Result<Client, ApiError> {
        let mut linked = self.linked.subscribe();
        let waited = tokio::time::timeout(CONNECT_WAIT, linked.wait_for(|l| l.link != EngineLink::Connecting)).await;
        let linked = self.linked.borrow().clone();
        match (waited, linked.client, linked.link) {
            (_, Some(client), _) => Ok(client),
            (_, None, EngineLink::Lost { reason, .. } | EngineLink::Refused { reason, .. }) => Err(not_there(reason)),
            _ => Err(not_there("Switchboard's engine did not answer in time.".into())),
        }
    }

    /// Any engine command; the engine refuses those not meant for a window.
    pub async fn call(&self, command: Command) -> Result<switchboard_core::Reply, ApiError> {
        let mut reply = self.client().await?.call(command).await?;
        self.heard(&mut reply)?;
        Ok(reply)
    }

    /// Streams a session's output (what the engine kept, then live) into
    /// `output` until the view lets go or the stream ends. A stream the
    /// window fell behind on is attached again: the view's terminal is reset
    /// and drawn anew from what the engine kept, never left frozen.
    ///
    /// `view`: the number the window knows the view by (unique across its
    /// links; each connection numbers its own streams).
    pub async fn attach(&self, view: u32, session_id: SessionId, output: Channel) -> Result<(), ApiError> {
        let client = self.client().await?;
        let mut terminal = client.attach(session_id.clone()).await?;
        self.views.lock().expect("never poisoned").insert(view, terminal.stream);
        let views = self.views.clone();
        tauri::async_runtime::spawn(async move {
            loop {
                while let Some(batch) = terminal.next().await {
                    if output.send(InvokeResponseBody::Raw(batch)).is_err() {
                        // The view is gone without saying so.
                        views.lock().expect("never poisoned").remove(&view);
                        client.detach(terminal.stream).await.ok();
                        return;
                    }
                }
                let again = terminal.ended() == Some(switchboard_client::StreamEnd::Behind)
                    && views.lock().expect("never poisoned").contains_key(&view);
                if !again {
                    break;
                }
                tracing::info!("the window fell behind a terminal's output; drawing it anew");
                terminal = match client.attach(session_id.clone()).await {
                    Ok(terminal) => terminal,
                    Err(_) => break,
                };
                views.lock().expect("never poisoned").insert(view, terminal.stream);
                // A full reset of the view's terminal, then the replay.
                if output.send(InvokeResponseBody::Raw(RESET.to_vec())).is_err() {
                    break;
                }
            }
            views.lock().expect("never poisoned").remove(&view);
        });
        Ok(())
    }

    /// Lets a view's stream go (one that ended by itself is gone already).
    pub async fn detach(&self, subscription: SubscriptionId) -> Result<(), ApiError> {
        let Some(stream) = self.views.lock().expect("never poisoned").remove(&subscription.0) else { return Ok(()) };
        Ok(self.client().await?.detach(stream).await?)
    }

    /// Tries now, starting the engine if none answers.
    pub fn start_engine(&self) {
        self.start.store(true, Ordering::SeqCst);
        self.wake.notify_one();
    }

    /// Stops the engine (its agents are stopped and recorded so, as at a
    /// quit), waiting until it has exited; true if one was running.
    pub async fn stop_engine(&self) -> Result<bool, ApiError> {
        if let Some(host) = &self.host {
            return Err(ApiError {
                code: ErrorCode::InvalidInput,
                message: format!(
                    "The engine on {} and its agents go on: this window does not stop another machine's engine.",
                    host.destination
                ),
                field: None,
                problems: Vec::new(),
            });
        }
        let (data_dir, socket) = (self.data_dir.clone(), self.socket.clone());
        self.asked_to_stop.store(true, Ordering::SeqCst);
        let stopped = tauri::async_runtime::spawn_blocking(move || {
            switchboard_daemon::stop(&data_dir, &socket, &mut std::io::sink())
        })
        .await
        .map_err(|error| internal(error.to_string()))
        .and_then(|stopped| stopped.map_err(|error| internal(format!("{error:#}"))))
        .inspect_err(|_| self.asked_to_stop.store(false, Ordering::SeqCst))?;
        Ok(stopped == std::process::ExitCode::SUCCESS)
    }

    /// Stops the engine and starts this window's build in its place (the
    /// window's newer build, say), in the environment the stopped engine
    /// had: its agents' commands are found on its `PATH`, not the window's.
    pub async fn restart_engine(&self) -> Result<(), ApiError> {
        if self.host.is_some() {
            // Refused in words by `stop_engine`: another machine's engine is not the window's to stop.
            return self.stop_engine().await.map(|_| ());
        }
        let (data_dir, socket, no_demo) = (self.data_dir.clone(), self.socket.clone(), self.no_demo);
        self.asked_to_stop.store(true, Ordering::SeqCst);
        let started = tauri::async_runtime::spawn_blocking(move || {
            let program =
                std::env::current_exe().map_err(|error| anyhow::anyhow!("locating the app binary: {error}"))?;
            switchboard_daemon::restart(&program, &data_dir, &socket, no_demo)
        })
        .await
        .map_err(|error| internal(error.to_string()))
        .and_then(|started| started.map_err(|error| internal(format!("{error:#}"))))
        .inspect_err(|_| self.asked_to_stop.store(false, Ordering::SeqCst))?;
        if let switchboard_daemon::Started::Failed { problem, message } = started {
            *self.startup_problem.lock().expect("never poisoned") = problem;
            return Err(internal(format!("the engine could not start again: {message}")));
        }
        // Connect now (or start one, had it ended meanwhile).
        self.start_engine();
        Ok(())
    }

    fn set(&self, app: &AppHandle, link: EngineLink, client: Option<Client>) {
        let lost = matches!(link, EngineLink::Lost { .. } | EngineLink::Refused { .. });
        self.linked.send_replace(Linked { link: link.clone(), client });
        let emitted = match (&self.role, self.destination()) {
            (Role::Beside { .. }, Some(destination)) => {
                if lost {
                    app.state::<Desktop>().forget(app, Some(destination));
                }
                app.emit(HOST_LINK_EVENT, HostLink { destination: destination.to_owned(), link })
            }
            _ => {
                if lost {
                    app.state::<Desktop>().engine_lost(app);
                }
                app.emit(ENGINE_LINK_EVENT, &link)
            }
        };
        if let Err(error) = emitted {
            tracing::debug!(%error, "the window did not hear of the engine link");
        }
    }

    /// The key its notices are kept under: none for the window's own engine.
    fn notices_key(&self) -> Option<&str> {
        if self.beside() { self.destination() } else { None }
    }

    /// Connects, follows, reconnects: the link's one worker, for the app's life.
    pub fn spawn(self: &Arc<Self>, app: AppHandle) {
        let link = self.clone();
        tauri::async_runtime::spawn(async move { link.run(app).await });
    }

    async fn run(self: Arc<Self>, app: AppHandle) {
        let mut pause = FIRST_RETRY;
        loop {
            if self.is_removed() {
                return;
            }
            let start = self.start.swap(false, Ordering::SeqCst);
            let connected = match &self.host {
                Some(host) => switchboard_client::ssh::connect(host, ClientKind::Window).await,
                None => Client::connect(&self.socket, ClientKind::Window).await,
            };
            match connected {
                Ok(client) => {
                    pause = FIRST_RETRY;
                    let (mut reason, gone) = self.follow(&app, client).await;
                    if self.is_removed() {
                        tracing::info!(host = ?self.destination(), "the machine left the window");
                        // Its connection (and ssh) goes with it.
                        self.linked.send_replace(Linked { link: EngineLink::Connecting, client: None });
                        return;
                    }
                    tracing::warn!(%reason, "the window lost the engine");
                    if gone && self.host.is_none() {
                        let (said, again) = self.after_loss();
                        reason = said;
                        if let Some(again) = again {
                            pause = again;
                        }
                    }
                    self.set(&app, EngineLink::Lost { reason, host: self.host_name() }, None);
                }
                // Another machine's engine is started there by `daemon --stdio`, never from here.
                Err(ClientError::NotRunning(_)) if start && self.host.is_none() => {
                    self.set(&app, EngineLink::Connecting, None);
                    if self.launch().await {
                        continue;
                    }
                    // Not started: what the window connects to next is not a restart of its own.
                    self.restarting.store(false, Ordering::SeqCst);
                }
                Err(error @ ClientError::Refused { .. }) => {
                    self.set(&app, EngineLink::Refused { reason: error.to_string(), host: self.host_name() }, None);
                }
                Err(error) => {
                    let reason = match (error, &self.host) {
                        (ClientError::NotRunning(_), _) => "Switchboard's engine is not running.".to_owned(),
                        // The banner names the machine; why it cannot be reached, in words.
                        (ClientError::Ssh(SshProblem::Unreachable(reach)), Some(_)) => sentence(&reach.to_string()),
                        (other, Some(_)) => sentence(&other.to_string()),
                        (other, None) => other.to_string(),
                    };
                    let lost = EngineLink::Lost { reason, host: self.host_name() };
                    if self.state() != lost {
                        self.set(&app, lost, None);
                    }
                }
            }
            tokio::select! {
                _ = tokio::time::sleep(pause) => {}
                _ = self.wake.notified() => {}
            }
            pause = (pause * 2).min(LAST_RETRY);
        }
    }

    /// This machine's engine is gone: why, in words, and whether the window
    /// starts it again by itself (after the pause given): it does when the
    /// engine died rather than being asked to stop
    /// (`switchboard_daemon::after_loss`).
    fn after_loss(&self) -> (String, Option<Duration>) {
        use switchboard_daemon::{AfterLoss, after_loss, stopped_on_request};
        let now = std::time::Instant::now();
        let mut restarts = self.restarts.lock().expect("never poisoned");
        let asked = self.asked_to_stop.swap(false, Ordering::SeqCst);
        match after_loss(asked || stopped_on_request(&self.data_dir), &restarts, now) {
            AfterLoss::LeaveStopped => ("The engine was stopped.".into(), None),
            AfterLoss::StartAgainIn(pause) => {
                tracing::warn!("the engine died; the window starts it again");
                restarts.push(now);
                self.restarting.store(true, Ordering::SeqCst);
                self.start.store(true, Ordering::SeqCst);
                ("The engine stopped unexpectedly; the window starts it again in a moment.".into(), Some(pause))
            }
            AfterLoss::GiveUp => (
                format!(
                    "The engine stopped unexpectedly again, {} times in a few minutes, so the window leaves it stopped. Its log is in {}.",
                    restarts.len() + 1,
                    self.data_dir.join("logs").display()
                ),
                None,
            ),
        }
    }

    /// Starts the daemon; true once it says it runs.
    async fn launch(&self) -> bool {
        tracing::info!("no engine answers on this data directory; the window starts one");
        let (data_dir, no_demo) = (self.data_dir.clone(), self.no_demo);
        let started =
            tauri::async_runtime::spawn_blocking(move || switchboard_daemon::launch(&data_dir, no_demo)).await;
        let why = match started {
            Ok(Ok(switchboard_daemon::Started::Ready { pid })) => {
                tracing::info!(pid, "the window started the engine");
                return true;
            }
            Ok(Ok(switchboard_daemon::Started::Failed { problem, message })) => {
                *self.startup_problem.lock().expect("never poisoned") = problem;
                message
            }
            Ok(Err(error)) => format!("{error:#}"),
            Err(error) => error.to_string(),
        };
        tracing::error!(%why, "the engine could not start");
        // Said to the window by the next try, which finds no engine.
        false
    }

    /// Follows one connection until it ends: the engine's events to the
    /// window and the desktop. Returns why it ended, and whether the engine
    /// went with it (rather than the window falling behind, say).
    async fn follow(&self, app: &AppHandle, client: Client) -> (String, bool) {
        let reason = self.follow_until_ended(app, client).await;
        let gone = matches!(reason, Ended::EngineGone(_));
        let (Ended::EngineGone(reason) | Ended::Other(reason)) = reason;
        (reason, gone)
    }

    async fn follow_until_ended(&self, app: &AppHandle, client: Client) -> Ended {
        let mut events = match client.subscribe().await {
            Ok(events) => events,
            Err(error) => return Ended::Other(error.to_string()),
        };
        // The lists after the subscription: a change between the two is in one or the other.
        match switchboard_client::notices_start::notices_of(&client, self.beside()).await {
            Ok(notices) => app.state::<Desktop>().set_notices(app, self.notices_key(), notices),
            Err(error) => return Ended::Other(error.to_string()),
        }
        if let Err(error) = self.learn_holdings(&client).await {
            return Ended::Other(error.to_string());
        }
        *self.startup_problem.lock().expect("never poisoned") = None;
        let welcome = client.welcome();
        // An engine reached: a stop the window asked for is behind it (or never came to a loss).
        self.asked_to_stop.store(false, Ordering::SeqCst);
        let connected = EngineLink::Connected {
            engine_version: welcome.engine_version.clone(),
            outdated: welcome.build_id != switchboard_api::wire::build_id(),
            agents_running: welcome.agents_running,
            starts_at_login: welcome.starts_at_login,
            host: self.host_name(),
            connection: self.connections.fetch_add(1, Ordering::SeqCst) + 1,
            restarted: self.restarting.swap(false, Ordering::SeqCst),
        };
        self.set(app, connected, Some(client.clone()));
        let mut removed = self.removed.subscribe();
        let mut pace = self.pace.clone();
        let mut frame = Frame::of(self.notices_key().map(str::to_owned));
        loop {
            let due = frame.due(*pace.borrow_and_update());
            let next = tokio::select! {
                next = events.next() => next,
                () = until(due) => {
                    frame.send(app);
                    continue;
                }
                // What is gathered goes by the new pace (a view that shows an agent now has it within a frame).
                Ok(()) = pace.changed() => continue,
                _ = removed.wait_for(|removed| *removed) => return Ended::Other("The machine left the window.".into()),
            };
            match next {
                Some(EventItem::Event { event, .. }) => {
                    let Some(event) = self.heard_event(event) else { continue };
                    let desktop = app.state::<Desktop>();
                    desktop.on_event(app, self.notices_key(), &event);
                    if desktop.forwards(&event) {
                        frame.push(app, event);
                    }
                }
                // Events were missed: the window loads everything again, as after a
                // reconnection (it reconnects at once).
                Some(EventItem::Lost) => {
                    self.wake.notify_one();
                    return Ended::Other("The window fell behind the engine's events.".into());
                }
                None => {
                    frame.send(app);
                    return Ended::EngineGone(match &self.host {
                        Some(host) => format!("The connection to {} was lost.", host.destination),
                        None => "The engine stopped.".into(),
                    });
                }
            }
        }
    }
}

/// Why a connection the link followed ended.
enum Ended {
    /// The engine closed it (or the connection to its machine was lost).
    EngineGone(String),
    /// Anything else: the window fell behind its events, or left the machine.
    Other(String),
}

fn not_there(reason: String) -> ApiError {
    ApiError { code: ErrorCode::EngineStopped, message: reason, field: None, problems: Vec::new() }
}

fn internal(message: String) -> ApiError {
    ApiError { code: ErrorCode::Internal, message, field: None, problems: Vec::new() }
}

impl switchboard_client::fleet::dispatch::Reach for Link {
    fn destination(&self) -> Option<&str> {
        Link::destination(self)
    }

    fn is_connected(&self) -> bool {
        self.connected().is_some()
    }

    async fn call(&self, command: Command) -> Result<switchboard_core::Reply, ApiError> {
        Link::call(self, command).await
    }
}
