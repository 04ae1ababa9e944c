//! One browser's socket, beyond this machine: the frames that concern the
//! user's other machines are answered here, every other goes on to this
//! machine's engine unchanged.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use switchboard_api::wire::{Answer, ClientFrame, ClientKind, ClientRequest, Frame, MESSAGE, ServerFrame, StreamEnd};
use switchboard_api::{ApiError, Command, Reply};
use switchboard_core::SessionId;
use switchboard_core::beyond::{Browser, Here, Relay};
use switchboard_core::server::Caller;
use switchboard_core::server::reach::{Via, refusal};
use tokio::sync::{OnceCell, broadcast, mpsc};
use tokio::task::JoinSet;

use super::beside::Beside;
use super::{Fleet, Relayed, Stay};
use switchboard_client::fleet::dispatch::{self, Reach};
use switchboard_client::fleet::{Owners, Route, Said, route};
use switchboard_client::{Client, ClientError};

/// Other machines' terminals a browser shows, by its stream number: whose, and that engine's stream.
type HostStreams = Arc<Mutex<HashMap<u32, (Arc<Beside>, u32)>>>;

pub(super) struct BrowserRelay {
    /// The other machines' links (none: the user has no other machine).
    fleet: Option<Arc<Fleet>>,
    caller: Caller,
    here: HereEngine,
    down: mpsc::Sender<Frame>,
    /// Every request being answered, and the machines' news followed:
    /// they end with the socket.
    tasks: JoinSet<()>,
    /// Other machines' terminals, by the browser's stream number: whose, and
    /// that engine's stream.
    streams: HostStreams,
    following: bool,
    _stay: Stay,
}

impl BrowserRelay {
    pub(super) fn new(
        fleet: Option<Arc<Fleet>>,
        browser: Browser,
        here: Here,
        down: mpsc::Sender<Frame>,
        notices: broadcast::Receiver<Arc<Vec<u8>>>,
        stay: Stay,
    ) -> Self {
        let caller = Caller::Device { device: browser.device, read_only: browser.read_only };
        let owners = fleet.as_ref().map(|fleet| fleet.owners.clone()).unwrap_or_default();
        let here = HereEngine { here, client: Arc::default(), owners };
        let mut tasks = JoinSet::new();
        tasks.spawn(tell_notices(notices, down.clone()));
        BrowserRelay { fleet, caller, here, down, tasks, streams: Arc::default(), following: false, _stay: stay }
    }

    fn answer(&mut self, id: u64, answer: impl Future<Output = Answer> + Send + 'static) {
        let down = self.down.clone();
        self.tasks.spawn(async move {
            let answer = answer.await;
            down.send(Frame::message(&ServerFrame::Reply { id, answer })).await.ok();
        });
    }

    /// A command the relay carries out: refused at once as the engine would
    /// refuse it from this browser, before it can leave this machine.
    fn command(&mut self, id: u64, fleet: Arc<Fleet>, command: Command, host: Option<String>) {
        if let Some(refused) = refusal(Via::Client(ClientKind::Browser), self.caller, &command) {
            let error: ApiError = refused.into();
            return self.answer(id, async move { Answer::Error { error } });
        }
        let here = self.here.clone();
        self.answer(id, async move {
            let beside: Vec<Arc<Engine>> =
                fleet.links().into_iter().map(|link| Arc::new(Engine::There(link))).collect();
            let main = Engine::Here(here);
            match dispatch::call(&main, &beside, &fleet.owners, command, host).await {
                Ok(reply) => Answer::Ok { reply },
                Err(error) => Answer::Error { error },
            }
        });
    }

    /// The machines' links now, then each change and their events, from now on.
    fn machines(&mut self, id: u64, fleet: &Fleet) {
        let links: Vec<_> = fleet.links().iter().map(|link| link.link()).collect();
        let down = self.down.clone();
        if !std::mem::replace(&mut self.following, true) {
            // Subscribed before the answer goes: no change falls between the two.
            let news = fleet.relayed.subscribe();
            self.tasks.spawn(follow(news, down.clone()));
        }
        self.answer(id, async move { Answer::Machines { links } });
    }

    /// Another machine's terminal, in the browser's stream `stream`.
    fn attach(&mut self, id: u64, link: Arc<Beside>, session_id: SessionId, stream: u32) {
        let (down, streams) = (self.down.clone(), self.streams.clone());
        self.tasks.spawn(async move {
            let Some(client) = link.client() else {
                let error = ApiError {
                    code: switchboard_api::ErrorCode::EngineStopped,
                    message: format!("{} cannot be reached now; it is reconnected by itself.", link.destination()),
                    field: None,
                    problems: Vec::new(),
                };
                let frame = ServerFrame::Reply { id, answer: Answer::Error { error } };
                down.send(Frame::message(&frame)).await.ok();
                return;
            };
            let mut terminal = match client.attach(session_id).await {
                Ok(terminal) => terminal,
                Err(error) => {
                    let frame = ServerFrame::Reply { id, answer: Answer::Error { error: error.into_api() } };
                    down.send(Frame::message(&frame)).await.ok();
                    return;
                }
            };
            streams.lock().expect("never poisoned").insert(stream, (link, terminal.stream));
            let answered = ServerFrame::Reply { id, answer: Answer::Ok { reply: Reply::Unit } };
            if down.send(Frame::message(&answered)).await.is_err() {
                return;
            }
            while let Some(bytes) = terminal.next().await {
                if down.send(Frame::output(stream, &bytes)).await.is_err() {
                    return;
                }
            }
            let ours = streams.lock().expect("never poisoned").remove(&stream).is_some();
            let why = if ours { terminal.ended().unwrap_or(StreamEnd::Other) } else { StreamEnd::Detached };
            down.send(Frame::message(&ServerFrame::StreamEnded { stream, why })).await.ok();
        });
    }

    fn detach(&mut self, id: u64, link: Arc<Beside>, theirs: u32) {
        self.answer(id, async move {
            let detached = match link.client() {
                Some(client) => client.detach(theirs).await.map_err(ClientError::into_api),
                None => Ok(()),
            };
            match detached {
                Ok(()) => Answer::Ok { reply: Reply::Unit },
                Err(error) => Answer::Error { error },
            }
        });
    }

    /// The machine known to hold `ids`, if another.
    fn holder(fleet: &Fleet, ids: &[String]) -> Option<Arc<Beside>> {
        let host = fleet.owners.lock().expect("never poisoned").owner(ids).map(str::to_owned)?;
        fleet.links().into_iter().find(|link| link.destination() == host)
    }
}

impl Relay for BrowserRelay {
    fn up(&mut self, frame: Frame) -> Option<Frame> {
        // What has been answered is let go.
        while self.tasks.try_join_next().is_some() {}
        if frame.kind != MESSAGE {
            return Some(frame);
        }
        // With no other machine, this engine answers everything (the machines: none).
        let Some(fleet) = self.fleet.clone() else { return Some(frame) };
        let Ok(ClientFrame::Request { id, request }) = serde_json::from_slice(&frame.body) else { return Some(frame) };
        match request {
            ClientRequest::Command { command, host } => {
                // What is this machine's alone, what the user chose here, and what this browser looks at.
                let local = matches!(route(&command), Route::Local | Route::Chosen)
                    || matches!(command, Command::SetViewing { .. });
                if host.is_none() && local {
                    return Some(frame);
                }
                self.command(id, fleet, command, host);
            }
            ClientRequest::Machines => self.machines(id, &fleet),
            ClientRequest::Attach { session_id, stream } => {
                let Some(link) = Self::holder(&fleet, &[session_id.to_string()]) else { return Some(frame) };
                self.attach(id, link, session_id, stream);
            }
            ClientRequest::Detach { stream } => {
                let Some((link, theirs)) = self.streams.lock().expect("never poisoned").remove(&stream) else {
                    return Some(frame);
                };
                self.detach(id, link, theirs);
            }
            ClientRequest::Subscribe | ClientRequest::Ping => return Some(frame),
        }
        None
    }
}

/// The page notices, as frames for one browser.
async fn tell_notices(mut notices: broadcast::Receiver<Arc<Vec<u8>>>, down: mpsc::Sender<Frame>) {
    loop {
        let body = match notices.recv().await {
            Ok(body) => body,
            // Missed: what still waits is in the page's lists.
            Err(broadcast::error::RecvError::Lagged(_)) => continue,
            Err(broadcast::error::RecvError::Closed) => return,
        };
        if down.send(Frame { kind: MESSAGE, body: body.to_vec() }).await.is_err() {
            return;
        }
    }
}

/// The machines' news, as frames for one browser.
async fn follow(mut news: broadcast::Receiver<Relayed>, down: mpsc::Sender<Frame>) {
    loop {
        let frame = match news.recv().await {
            Ok(Relayed::Said(body)) => Frame { kind: MESSAGE, body: body.to_vec() },
            // The browser loads everything again, as after any events it missed.
            Ok(Relayed::Lost) | Err(broadcast::error::RecvError::Lagged(_)) => {
                Frame::message(&ServerFrame::EventsLost { missed: 1 })
            }
            Err(broadcast::error::RecvError::Closed) => return,
        };
        if down.send(frame).await.is_err() {
            return;
        }
    }
}

/// This machine's engine, as the browser: a connection of the relay's own,
/// made when first needed; what it answers teaches the owners.
#[derive(Clone)]
struct HereEngine {
    here: Here,
    client: Arc<OnceCell<Client>>,
    owners: Arc<Mutex<Owners>>,
}

impl HereEngine {
    async fn call(&self, command: Command) -> Result<Reply, ApiError> {
        let client = self
            .client
            .get_or_try_init(|| async {
                let (read, write) = tokio::io::split((self.here)());
                Client::over(read, write, ClientKind::Browser).await
            })
            .await
            .map_err(ClientError::into_api)?;
        let reply = client.call(command).await.map_err(ClientError::into_api)?;
        self.owners.lock().expect("never poisoned").learn_here(Said::Reply(&reply));
        Ok(reply)
    }
}

/// An engine a command of the browser's may go to.
enum Engine {
    Here(HereEngine),
    There(Arc<Beside>),
}

impl Reach for Engine {
    fn destination(&self) -> Option<&str> {
        match self {
            Engine::Here(_) => None,
            Engine::There(link) => Some(link.destination()),
        }
    }

    fn is_connected(&self) -> bool {
        match self {
            Engine::Here(_) => true,
            Engine::There(link) => link.client().is_some(),
        }
    }

    async fn call(&self, command: Command) -> Result<Reply, ApiError> {
        match self {
            Engine::Here(here) => here.call(command).await,
            Engine::There(link) => link.call(command).await,
        }
    }
}
