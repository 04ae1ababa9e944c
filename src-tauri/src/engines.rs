//! The engines one window shows: its own (this machine's, or the one
//! machine a `--host` window is on) and, in a window on this machine, the
//! engine of every other machine in the user's list (`switchboard host`),
//! each through a [`Link`] of its own, connected, followed and reconnected
//! apart. Where a command goes, and how the answers of several engines make
//! one, is decided by `switchboard_client::fleet`; this carries it out.
//!
//! A machine that cannot be reached is left out of the lists until it is
//! back (the window then loads everything again); a command for something
//! it holds is refused with the reason, never sent elsewhere.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use switchboard_api::{EventPace, HostLink, Viewing};
use switchboard_client::fleet::dispatch::{self, refused};
use switchboard_client::fleet::{self, Owners};
use switchboard_client::ssh::Host;
use switchboard_core::{ApiError, Command, EngineLink, Reply, SessionId, SubscriptionId, TaskId};
use tauri::ipc::Channel;
use tauri::{AppHandle, Manager};
use tokio::sync::watch;

use crate::desktop::Desktop;
use crate::link::{Link, Role};

/// How long the window, as it opens, waits for the other machines'
/// engines before it shows what it has (one that answers later makes the
/// window load again).
const BESIDE_WAIT: Duration = Duration::from_secs(10);

pub struct Engines {
    main: Arc<Link>,
    /// The other machines shown beside this one's, in the list's order.
    beside: Mutex<Vec<Arc<Link>>>,
    owners: Arc<Mutex<Owners>>,
    data_dir: PathBuf,
    socket: PathBuf,
    /// Each terminal view's link, by the number the window knows the view by.
    views: Mutex<HashMap<u32, Arc<Link>>>,
    next_view: AtomicU32,
    app: OnceLock<AppHandle>,
    /// How soon the window wants its events, for every link.
    pace: watch::Sender<EventPace>,
}

impl Engines {
    /// `pace`: what `main` follows for how soon the window wants its events.
    /// `owners`: who holds what, which `main` teaches first.
    pub fn new(
        main: Arc<Link>,
        owners: Arc<Mutex<Owners>>,
        data_dir: PathBuf,
        socket: PathBuf,
        pace: watch::Sender<EventPace>,
    ) -> Arc<Engines> {
        Arc::new(Engines {
            main,
            beside: Mutex::default(),
            owners,
            data_dir,
            socket,
            views: Mutex::default(),
            next_view: AtomicU32::new(1),
            app: OnceLock::new(),
            pace,
        })
    }

    /// The window's own engine's link.
    pub fn main(&self) -> &Arc<Link> {
        &self.main
    }

    /// Starts the links: the window's own, and in a window on this machine
    /// one for each machine in the list.
    pub fn start(&self, app: AppHandle) {
        self.main.spawn(app.clone());
        self.app.set(app).ok();
        if self.main.destination().is_some() {
            return;
        }
        match switchboard_client::hosts::list(&self.data_dir) {
            Ok(hosts) => hosts.into_iter().for_each(|host| self.add(host)),
            Err(error) => tracing::warn!(%error, "the list of other machines could not be read"),
        }
    }

    /// Shows the machine's agents beside this one's (a window on another
    /// machine shows that one only).
    pub fn add(&self, host: Host) {
        let Some(app) = self.app.get() else { return };
        if self.main.destination().is_some() {
            return;
        }
        let mut beside = self.beside.lock().expect("never poisoned");
        // Added again (its key trusted anew, another port): its link starts anew, as added now.
        if let Some(at) = beside.iter().position(|link| link.destination() == Some(host.destination.as_str())) {
            beside.remove(at).remove();
        }
        let host_name = host.destination.clone();
        let role = Role::Beside { owners: self.owners.clone() };
        let link = Link::new(self.data_dir.clone(), self.socket.clone(), true, Some(host), role, self.pace.subscribe());
        link.spawn(app.clone());
        // In the list's place.
        let place = switchboard_client::hosts::list(&self.data_dir)
            .ok()
            .and_then(|hosts| hosts.iter().position(|known| known.destination == host_name))
            .unwrap_or(beside.len())
            .min(beside.len());
        beside.insert(place, link);
    }

    /// The machine leaves the window (its engine and agents go on there).
    pub fn remove(&self, destination: &str) {
        let mut beside = self.beside.lock().expect("never poisoned");
        beside.retain(|link| {
            let leaves = link.destination() == Some(destination);
            if leaves {
                link.remove();
            }
            !leaves
        });
        self.owners.lock().expect("never poisoned").forget(destination);
    }

    /// How soon the window wants the engines' events from now on.
    pub fn set_pace(&self, pace: EventPace) {
        self.pace.send_replace(pace);
    }

    /// Each machine shown beside this one's, with its link now.
    pub fn links(&self) -> Vec<HostLink> {
        self.beside_links()
            .iter()
            .filter_map(|link| Some(HostLink { destination: link.destination()?.to_owned(), link: link.state() }))
            .collect()
    }

    /// Tries the machine again now.
    pub fn connect_now(&self, destination: &str) -> Result<(), ApiError> {
        self.beside_link(destination)
            .ok_or_else(|| refused(format!("This window does not show “{destination}”.")))?
            .start_engine();
        Ok(())
    }

    /// Waits until the window's own engine answers or is known not to,
    /// and a while for the others.
    pub async fn settled(&self) -> EngineLink {
        let waits: Vec<_> = self
            .beside_links()
            .into_iter()
            .map(|link| tauri::async_runtime::spawn(async move { link.settled_within(BESIDE_WAIT).await }))
            .collect();
        let own = self.main.settled().await;
        for wait in waits {
            wait.await.ok();
        }
        own
    }

    fn beside_links(&self) -> Vec<Arc<Link>> {
        self.beside.lock().expect("never poisoned").clone()
    }

    fn beside_link(&self, destination: &str) -> Option<Arc<Link>> {
        self.beside_links().into_iter().find(|link| link.destination() == Some(destination))
    }

    /// The links that may hold what `ids` name, in turn (`fleet::dispatch::holders`).
    fn holders(&self, ids: &[String]) -> Result<Vec<Arc<Link>>, ApiError> {
        let beside = self.beside_links();
        let holders = dispatch::holders(&*self.main, &beside, &self.owners, ids)?;
        Ok(holders.into_iter().map(|link| link.unwrap_or_else(|| self.main.clone())).collect())
    }

    /// Any engine command meant for the window: to the machine `host`
    /// names (none: where `fleet::route` sends it).
    pub async fn call(&self, command: Command, host: Option<String>) -> Result<Reply, ApiError> {
        // What the user looks at goes to the engine that holds it only, whoever asks.
        if let (Command::SetViewing { viewing }, None) = (&command, &host) {
            return self.set_viewing(viewing.clone()).await.map(|()| Reply::Unit);
        }
        dispatch::call(&*self.main, &self.beside_links(), &self.owners, command, host).await
    }

    /// Tells each engine what the user looks at: the one that holds the
    /// agent or task viewed hears of it, every other that the user looks at
    /// nothing of its own (`fleet::viewing_for`): this machine's ids never
    /// go to another machine, nor one machine's to another.
    pub async fn set_viewing(&self, viewing: Viewing) -> Result<(), ApiError> {
        let ids: Vec<String> =
            [viewing.profile_id.as_ref().map(ToString::to_string), viewing.task_id.as_ref().map(ToString::to_string)]
                .into_iter()
                .flatten()
                .collect();
        let holder = self.owners.lock().expect("never poisoned").owner(&ids).map(str::to_owned);
        let others: Vec<_> = (self.beside_links().into_iter())
            .filter(|link| link.connected().is_some())
            .map(|link| {
                let told = fleet::viewing_for(&viewing, holder.as_deref(), link.destination());
                tauri::async_runtime::spawn(async move {
                    let said = link.call(Command::SetViewing { viewing: told }).await;
                    (link, said)
                })
            })
            .collect();
        // The window's own engine is "here" to `Owners`, whatever machine it runs on (`--host`).
        let own = fleet::viewing_for(&viewing, holder.as_deref(), None);
        let said = self.main.call(Command::SetViewing { viewing: own }).await.map(drop);
        for other in others {
            match other.await {
                Ok((_, Ok(_))) => {}
                Ok((link, Err(error))) => tracing::warn!(
                    host = ?link.destination(), message = %error.message, "another machine did not hear what the user looks at"
                ),
                Err(error) => tracing::warn!(%error, "telling another machine what the user looks at failed"),
            }
        }
        said
    }

    /// Streams a session's output into `output`, from the engine that
    /// holds the session.
    pub async fn attach(&self, session_id: SessionId, output: Channel) -> Result<SubscriptionId, ApiError> {
        let view = self.next_view.fetch_add(1, Ordering::Relaxed);
        let mut refusal = None;
        for link in self.holders(&[session_id.to_string()])? {
            match link.attach(view, session_id.clone(), output.clone()).await {
                Ok(()) => {
                    self.views.lock().expect("never poisoned").insert(view, link);
                    return Ok(SubscriptionId(view));
                }
                Err(error) if fleet::not_held(error.code) => refusal = Some(error),
                Err(error) => return Err(error),
            }
        }
        Err(refusal.unwrap_or_else(|| refused("No machine the window shows runs this session.".into())))
    }

    pub async fn detach(&self, subscription: SubscriptionId) -> Result<(), ApiError> {
        let link = self.views.lock().expect("never poisoned").remove(&subscription.0);
        match link {
            Some(link) => link.detach(subscription).await,
            None => Ok(()),
        }
    }

    /// Where a file a task returned is now, on this machine: a file on
    /// another machine is not opened from here.
    pub async fn artifact_path(&self, task_id: TaskId, path: String) -> Result<String, ApiError> {
        let held = self.owners.lock().expect("never poisoned").owner(&[task_id.to_string()]).map(str::to_owned);
        if let Some(host) = held {
            return Err(refused(format!("{path} is on {host}: open it there.")));
        }
        Ok(self.main.client().await?.artifact_path(task_id, path).await?)
    }
}

/// What the window shows now: told to the notices first (what the user
/// looks at in a focused window is not notified, and its notification
/// closes), then to the engine (a failure on screen is seen).
pub async fn set_viewing(
    app: &AppHandle,
    desktop: &Desktop,
    engines: &Engines,
    viewing: Viewing,
) -> Result<(), ApiError> {
    desktop.set_viewing(app, &viewing);
    engines.set_viewing(viewing).await
}

/// Stops the engine and every agent, then quits.
pub fn quit_and_stop_agents(app: &AppHandle) {
    let app = app.clone();
    tauri::async_runtime::spawn(async move {
        let engines = app.state::<Arc<Engines>>().inner().clone();
        if let Err(error) = engines.main().stop_engine().await {
            tracing::error!(message = %error.message, "the engine did not stop");
        }
        app.exit(0);
    });
}
