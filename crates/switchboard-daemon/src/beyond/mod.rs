//! The user's other machines, for the browsers an engine serves: the
//! routing across machines runs where a browser's connection ends, as it
//! runs in a desktop window for the window.
//!
//! The engine's web server is given [`Machines`] (by the daemon; the engine
//! knows no SSH). While a browser is connected, and for a while after the
//! last one left, a fleet keeps a link to each machine in the user's
//! list (`switchboard host`, read again as each browser connects): one SSH
//! connection per machine, whatever the number of browsers. Each browser's
//! socket has a relay (`relay.rs`), which answers the frames that
//! concern other machines (a list asked of every machine, a command for
//! what another machine holds, another machine's terminal, the machines'
//! links) and lets every other frame go on to this engine.
//!
//! What another machine's engine says is kept as a window keeps it
//! (`fleet::heard_from_host`: capped, its forgeries dropped, its machine
//! named); nothing it claims is believed before this machine's engine has
//! told what it holds. A browser paired read-only sends another machine
//! only what reads: the engine's own rule (`reach::refusal`) decides it
//! before anything leaves this machine.

mod beside;
mod relay;

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use switchboard_api::wire::Frame;
use switchboard_core::beyond::{Beyond, Browser, Here, Relay};
use tokio::sync::{broadcast, mpsc, watch};

use beside::Beside;
use switchboard_client::fleet::{Owners, Said};
use switchboard_client::ssh::Host;
use switchboard_client::{Client, ClientKind, EventItem};

/// How long the links stay after the last browser left: a page that
/// reloads finds them connected.
const LINGER: Duration = Duration::from_secs(300);

/// What the links send every browser's relay.
const RELAYED: usize = 1024;

/// Page notices waiting for a browser's relay (a page that falls behind
/// misses some: its lists say what waits).
const PAGE_NOTICES: usize = 256;

/// The notices every browser's page is told: the desktop's, decided once by
/// the daemon's notices (`crate::notices`), whatever the windows.
#[derive(Clone)]
pub struct Pages(broadcast::Sender<Arc<Vec<u8>>>);

impl Pages {
    /// Tells every page open what the desktop's notifications do.
    pub fn tell(&self, actions: &[switchboard_client::notice::Action]) {
        for action in actions {
            let notice = switchboard_client::notice::page_notice(action);
            let frame = Frame::message(&switchboard_api::wire::ServerFrame::Notice { notice });
            // No page open is no loss.
            self.0.send(Arc::new(frame.body)).ok();
        }
    }
}

/// The user's other machines, reached for the browsers of the engine that
/// serves them.
#[derive(Clone)]
pub struct Machines(Arc<Shared>);

struct Shared {
    data_dir: PathBuf,
    pages: Pages,
    /// The ssh program and its options (`ssh::ssh_program`).
    ssh: (String, Vec<String>),
    fleet: Mutex<Option<Arc<Fleet>>>,
    /// Browsers' relays open now.
    open: AtomicUsize,
}

impl Machines {
    /// The machines listed in `data_dir` (`switchboard host add`).
    pub fn new(data_dir: PathBuf) -> Machines {
        Machines::with_ssh(data_dir, switchboard_client::ssh::ssh_program())
    }

    /// As [`Machines::new`], reached through this ssh program and its options.
    pub fn with_ssh(data_dir: PathBuf, ssh: (String, Vec<String>)) -> Machines {
        let pages = Pages(broadcast::channel(PAGE_NOTICES).0);
        Machines(Arc::new(Shared { data_dir, pages, ssh, fleet: Mutex::default(), open: AtomicUsize::new(0) }))
    }

    /// Where the notices every browser's page is told are sent.
    pub fn pages(&self) -> Pages {
        self.0.pages.clone()
    }

    /// As the web server is given it.
    pub fn for_web(self) -> switchboard_core::beyond::Machines {
        switchboard_core::beyond::Machines(Arc::new(self))
    }
}

impl Beyond for Machines {
    fn open(&self, browser: Browser, here: Here, down: mpsc::Sender<Frame>) -> Option<Box<dyn Relay>> {
        let hosts = match switchboard_client::hosts::list(&self.0.data_dir) {
            Ok(hosts) => hosts,
            Err(error) => {
                // The browser is shown this machine's agents, and its notices.
                tracing::warn!(%error, "the list of other machines could not be read for a browser");
                Vec::new()
            }
        };
        let fleet = (!hosts.is_empty()).then(|| {
            let mut kept = self.0.fleet.lock().expect("never poisoned");
            match kept.as_ref() {
                Some(fleet) => {
                    fleet.sync(hosts);
                    fleet.clone()
                }
                None => {
                    let fleet = Fleet::start(hosts, here.clone(), self.0.ssh.clone(), self.0.pages.clone());
                    kept.insert(fleet).clone()
                }
            }
        });
        self.0.open.fetch_add(1, Ordering::SeqCst);
        let stay = Stay(self.0.clone());
        let notices = self.0.pages.0.subscribe();
        Some(Box::new(relay::BrowserRelay::new(fleet, browser, here, down, notices, stay)))
    }
}

/// Held by a browser's relay: when the last goes, the links go after [`LINGER`].
struct Stay(Arc<Shared>);

impl Drop for Stay {
    fn drop(&mut self) {
        if self.0.open.fetch_sub(1, Ordering::SeqCst) != 1 {
            return;
        }
        let shared = self.0.clone();
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                tokio::time::sleep(LINGER).await;
                if shared.open.load(Ordering::SeqCst) == 0 {
                    shared.fleet.lock().expect("never poisoned").take();
                }
            });
        }
    }
}

/// What a link tells every browser's relay.
#[derive(Debug, Clone)]
enum Relayed {
    /// A frame for every browser (an event naming its machine, a link's
    /// change), its JSON written once whatever the number of browsers.
    Said(Arc<Vec<u8>>),
    /// A link fell behind its engine's events: the browsers load anew.
    Lost,
}

impl Relayed {
    fn said(frame: &switchboard_api::wire::ServerFrame) -> Relayed {
        Relayed::Said(Arc::new(Frame::message(frame).body))
    }
}

/// The links to the other machines, shared by every browser's relay.
pub(crate) struct Fleet {
    owners: Arc<Mutex<Owners>>,
    links: Mutex<Vec<Arc<Beside>>>,
    relayed: broadcast::Sender<Relayed>,
    /// Set once this machine's engine has told what it holds.
    here_known: watch::Sender<bool>,
    learning: tokio::task::JoinHandle<()>,
    ssh: (String, Vec<String>),
    pages: Pages,
}

impl Drop for Fleet {
    fn drop(&mut self) {
        self.learning.abort();
    }
}

impl Fleet {
    fn start(hosts: Vec<Host>, here: Here, ssh: (String, Vec<String>), pages: Pages) -> Arc<Fleet> {
        let owners = Arc::new(Mutex::new(Owners::default()));
        let here_known = watch::Sender::new(false);
        let learning = tokio::spawn(learn_here(here, owners.clone(), here_known.clone()));
        let fleet = Arc::new(Fleet {
            owners,
            links: Mutex::default(),
            relayed: broadcast::channel(RELAYED).0,
            here_known,
            learning,
            ssh,
            pages,
        });
        fleet.sync(hosts);
        fleet
    }

    /// Links to the machines listed now: new ones added, gone ones dropped.
    fn sync(&self, hosts: Vec<Host>) {
        let mut links = self.links.lock().expect("never poisoned");
        links.retain(|link| {
            let kept = hosts.iter().any(|host| host.destination == link.destination());
            if !kept {
                self.owners.lock().expect("never poisoned").forget(link.destination());
            }
            kept
        });
        for host in hosts {
            if links.iter().any(|link| link.destination() == host.destination) {
                continue;
            }
            let gate = self.here_known.subscribe();
            let (ssh, pages) = (self.ssh.clone(), self.pages.clone());
            links.push(Beside::start(host, ssh, self.owners.clone(), self.relayed.clone(), pages, gate));
        }
    }

    fn links(&self) -> Vec<Arc<Beside>> {
        self.links.lock().expect("never poisoned").clone()
    }
}

/// Learns what this machine's engine holds, first from its lists (then the
/// other machines are believed), then from its events, for as long as the
/// fleet lives.
async fn learn_here(here: Here, owners: Arc<Mutex<Owners>>, known: watch::Sender<bool>) {
    let (read, write) = tokio::io::split(here());
    let client = match Client::over(read, write, ClientKind::Browser).await {
        Ok(client) => client,
        Err(error) => {
            tracing::warn!(%error, "the engine could not be asked what it holds, for the browsers");
            return;
        }
    };
    let Ok(mut events) = client.subscribe().await else { return };
    for list in switchboard_client::fleet::holdings() {
        match client.call(list).await {
            Ok(reply) => owners.lock().expect("never poisoned").learn_here(Said::Reply(&reply)),
            Err(error) => tracing::warn!(%error, "the engine did not list what it holds, for the browsers"),
        }
    }
    owners.lock().expect("never poisoned").here_told();
    known.send_replace(true);
    while let Some(item) = events.next().await {
        if let EventItem::Event { event, .. } = item {
            owners.lock().expect("never poisoned").learn_here(Said::Event(&event));
        }
    }
}
