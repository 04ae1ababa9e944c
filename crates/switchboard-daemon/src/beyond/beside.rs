//! One other machine's engine, reached over SSH for the browsers: connected,
//! followed and reconnected (1 s doubling to 10 s), its state and events
//! told to every browser's relay.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use switchboard_api::wire::ServerFrame;
use switchboard_api::{ApiError, Command, EngineEvent, EngineLink, ErrorCode, HostLink, Reply};
use tokio::sync::{broadcast, watch};

use super::{Pages, Relayed};
use crate::notifications::{local_minute_of_day, now_millis};
use switchboard_client::fleet::{Owners, event_from_host, heard_from_host, host_notices};
use switchboard_client::notices_start::notices_of;
use switchboard_client::ssh::{Host, SshProblem, sentence};
use switchboard_client::{Client, ClientError, ClientKind, EventItem};

const FIRST_RETRY: Duration = Duration::from_secs(1);
const LAST_RETRY: Duration = Duration::from_secs(10);

/// The link's state and the connection it has, if any.
#[derive(Clone)]
struct Linked {
    link: EngineLink,
    client: Option<Client>,
}

/// A link to another machine's engine; dropped, it lets the engine go.
pub(crate) struct Beside {
    destination: String,
    linked: Arc<watch::Sender<Linked>>,
    owners: Arc<Mutex<Owners>>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Beside {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl Beside {
    /// Connects once `here_known` holds (nothing another machine says is
    /// believed before), and keeps connecting.
    pub(super) fn start(
        host: Host,
        ssh: (String, Vec<String>),
        owners: Arc<Mutex<Owners>>,
        relayed: broadcast::Sender<Relayed>,
        pages: Pages,
        mut here_known: watch::Receiver<bool>,
    ) -> Arc<Beside> {
        let linked = Arc::new(watch::Sender::new(Linked { link: EngineLink::Connecting, client: None }));
        let runner = Runner { host: host.clone(), ssh, pages, linked: linked.clone(), owners: owners.clone(), relayed };
        let task = tokio::spawn(async move {
            if here_known.wait_for(|known| *known).await.is_err() {
                return;
            }
            runner.run().await;
        });
        Arc::new(Beside { destination: host.destination, linked, owners, task })
    }

    pub(super) fn destination(&self) -> &str {
        &self.destination
    }

    /// Its state now, as the browsers are told it.
    pub(super) fn link(&self) -> HostLink {
        HostLink { destination: self.destination.clone(), link: self.linked.borrow().link.clone() }
    }

    pub(super) fn client(&self) -> Option<Client> {
        self.linked.borrow().client.clone()
    }

    /// A command for that machine's engine; its answer kept as a window
    /// keeps another machine's.
    pub(super) async fn call(&self, command: Command) -> Result<Reply, ApiError> {
        let host = &self.destination;
        let client = self.client().ok_or_else(|| ApiError {
            code: ErrorCode::EngineStopped,
            message: format!("{host} cannot be reached now; it is reconnected by itself."),
            field: None,
            problems: Vec::new(),
        })?;
        let reply = client.call(command).await.map_err(ClientError::into_api)?;
        heard_from_host(&mut self.owners.lock().expect("never poisoned"), host, reply).map_err(|error| {
            tracing::warn!(host, %error, "another machine's answer could not be kept");
            ApiError {
                code: ErrorCode::Internal,
                message: format!("{host} sent an answer that cannot be shown."),
                field: None,
                problems: Vec::new(),
            }
        })
    }
}

/// What the link's task owns.
struct Runner {
    host: Host,
    ssh: (String, Vec<String>),
    /// The pages told that machine's notices, as a window tells them.
    pages: Pages,
    linked: Arc<watch::Sender<Linked>>,
    owners: Arc<Mutex<Owners>>,
    relayed: broadcast::Sender<Relayed>,
}

impl Runner {
    async fn run(self) {
        let connections = AtomicU32::new(0);
        let mut pause = FIRST_RETRY;
        loop {
            match switchboard_client::ssh::connect_with(self.ssh.clone(), &self.host, ClientKind::Browser).await {
                Ok(client) => {
                    pause = FIRST_RETRY;
                    let reason = self.follow(client, connections.fetch_add(1, Ordering::SeqCst) + 1).await;
                    tracing::warn!(host = self.host.destination, %reason, "the link to another machine ended");
                    self.set(EngineLink::Lost { reason, host: Some(self.host.destination.clone()) }, None);
                }
                Err(error @ ClientError::Refused { .. }) => {
                    let host = Some(self.host.destination.clone());
                    self.set(EngineLink::Refused { reason: error.to_string(), host }, None);
                }
                Err(error) => {
                    let reason = match error {
                        ClientError::Ssh(SshProblem::Unreachable(reach)) => sentence(&reach.to_string()),
                        other => sentence(&other.to_string()),
                    };
                    let lost = EngineLink::Lost { reason, host: Some(self.host.destination.clone()) };
                    if self.linked.borrow().link != lost {
                        self.set(lost, None);
                    }
                }
            }
            tokio::time::sleep(pause).await;
            pause = (pause * 2).min(LAST_RETRY);
        }
    }

    fn set(&self, link: EngineLink, client: Option<Client>) {
        self.linked.send_replace(Linked { link: link.clone(), client });
        // No relay listening is no loss: each asks the links as it opens.
        let link = HostLink { destination: self.host.destination.clone(), link };
        self.relayed.send(Relayed::said(&ServerFrame::Machine { link })).ok();
    }

    /// Follows one connection until it ends; why it ended.
    async fn follow(&self, client: Client, connection: u32) -> String {
        let host = self.host.destination.as_str();
        let mut events = match client.subscribe().await {
            Ok(events) => events,
            Err(error) => return error.to_string(),
        };
        // What it holds, learnt before anything is asked of it.
        for list in switchboard_client::fleet::holdings() {
            match client.call(list).await {
                Ok(reply) => {
                    heard_from_host(&mut self.owners.lock().expect("never poisoned"), host, reply).ok();
                }
                Err(error) => return error.to_string(),
            }
        }
        // Its notices, as the window's (`Link`) start them; without them the pages are told none of its.
        let mut notices = notices_of(&client, true)
            .await
            .inspect_err(|error| tracing::warn!(host, %error, "another machine's notices could not start"))
            .ok();
        let welcome = client.welcome();
        let connected = EngineLink::Connected {
            engine_version: welcome.engine_version.clone(),
            outdated: welcome.build_id != switchboard_api::wire::build_id(),
            agents_running: welcome.agents_running,
            starts_at_login: welcome.starts_at_login,
            host: Some(host.to_owned()),
            connection,
            restarted: false,
        };
        self.set(connected, Some(client.clone()));
        loop {
            match events.next().await {
                Some(EventItem::Event { seq, event }) => {
                    let kept = event_from_host(&mut self.owners.lock().expect("never poisoned"), host, event);
                    match kept {
                        Ok(event) => {
                            // This machine's settings hold for its notices, not another's.
                            if let Some(notices) = &mut notices
                                && !matches!(event, EngineEvent::SettingsChanged { .. })
                            {
                                let decided = notices.follow(&event, local_minute_of_day(), now_millis());
                                self.pages.tell(&host_notices(decided, host));
                            }
                            let event = serde_json::to_value(&event).expect("events always serialize");
                            let frame = ServerFrame::Event { seq, event, host: Some(host.to_owned()) };
                            self.relayed.send(Relayed::said(&frame)).ok();
                        }
                        Err(error) => tracing::warn!(host, %error, "another machine's event could not be kept"),
                    }
                }
                Some(EventItem::Lost) => {
                    self.relayed.send(Relayed::Lost).ok();
                    return "Switchboard fell behind that machine's events.".into();
                }
                None => return format!("The connection to {host} was lost."),
            }
        }
    }
}
