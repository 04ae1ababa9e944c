//! The engine: one task owns the store, the session registry and the desks
//! (tasks, signals, hooks); callers reach it only through [`EngineHandle`],
//! which sends a typed call and awaits the answer. Sessions report their end
//! back over an internal channel. The engine reports outward through the
//! injected [`EventSink`].
//!
//! Map: `handle` (the way in), `state` (the router and its loop), `command`
//! (the wire vocabulary), `context` (what desks share), `sessions` (the
//! registry), `status` (agent status and teams), and the desks `tasks`,
//! `signals`, `hooks`.

mod attention;
mod automations;
mod command;
mod context;
mod flows;
pub use flows::KEPT_EXPORTS;
mod handle;
mod hooks;
mod isolation;
mod sessions;
mod signals;
mod state;
mod status;
mod tasks;
#[cfg(test)]
mod testing;
#[cfg(test)]
mod tests;
mod usage;
mod web;
mod worktrees;

use std::sync::Arc;

use tokio::sync::mpsc;

use crate::config::EngineConfig;
pub use crate::config::{SPOOL_FILE, spool_path};
use crate::demo;
use crate::error::EngineError;
use crate::instance::InstanceLock;
use crate::server::{self, RequestHandler};
use crate::session::process;
pub use crate::sink::{EventSink, NoEvents};
use crate::store::Store;
pub use handle::EngineHandle;
pub use sessions::RETAINED_ENDED_SESSIONS;
pub use signals::{MAX_LISTED_HANDLED_SIGNALS, MAX_PENDING_SIGNALS, SKIPPED_ITEMS_FILE, allowed_actions};
pub use state::MAX_LISTED_SESSIONS;
use switchboard_api::now;
pub use tasks::MAX_LISTED_FINISHED_TASKS;
pub use tasks::rules::{MAX_CONTEXT_BYTES, MAX_INSTRUCTION_BYTES};

/// Reads of agents' files the follower may have waiting for the engine
/// before it waits (each at most a chunk's answers).
const USAGE_QUEUE: usize = 8;

/// Requests a caller may have in flight before `send` waits.
const REQUEST_QUEUE: usize = 256;

pub struct Engine;

impl Engine {
    /// Makes the data directory private (what an older version left readable
    /// by other users is tightened, and logged), opens the store, recovers from an unclean stop (sessions that were
    /// running are marked interrupted and their processes reaped), creates
    /// the demo workspace on first run, and returns the handle; the engine
    /// task then starts the profiles marked to start on launch before it
    /// answers any request. Must be called within a Tokio runtime.
    pub async fn start(config: EngineConfig, sink: Arc<dyn EventSink>) -> Result<EngineHandle, EngineError> {
        // Another user's folder, database or socket is never used: they
        // could read it all, or listen in the engine's place.
        let socket_dir = config.socket_path.parent().unwrap_or(&config.data_dir).to_path_buf();
        let database = config.database_path();
        let run = config.data_dir.join(crate::config::RUN_DIR);
        let logs = config.data_dir.join(crate::config::LOG_DIR);
        crate::private::refuse_foreign([
            config.data_dir.as_path(),
            run.as_path(),
            logs.as_path(),
            socket_dir.as_path(),
            database.as_path(),
            config.socket_path.as_path(),
        ])?;
        tighten(&config.data_dir);
        // Before anything else opens the data: recovery below would end
        // another live instance's agents.
        let instance = InstanceLock::acquire(&config.data_dir)?;
        process::become_subreaper();
        // Room for connections, terminals and git runs beyond the usual 1024;
        // the agents get the original limit back from their keeper.
        server::descriptors::raise_soft_limit();
        let store = Store::open(&config.database_path())?;
        let web = web::WebDesk::load(&store)?;
        let (requests, requests_rx) = mpsc::channel(REQUEST_QUEUE);
        let (ended, ended_rx) = mpsc::unbounded_channel();
        let (notes, notes_rx) = mpsc::unbounded_channel();
        let (watch_events, watch_rx) = mpsc::unbounded_channel();
        let (scans, scans_rx) = mpsc::channel(crate::session::SCAN_QUEUE);
        let (radar, radar_rx) = mpsc::unbounded_channel();
        let (worktree_notes, worktree_notes_rx) = mpsc::unbounded_channel();
        let (usage_reads, usage_rx) = mpsc::channel(USAGE_QUEUE);
        let (files_seen, files_seen_rx) = mpsc::unbounded_channel();
        let path_env = config.search_path.clone().or_else(|| std::env::var_os("PATH"));
        let feed = Arc::new(crate::sink::EventFeed::new(now(), config.socket.feed_capacity));
        let sink: Arc<dyn EventSink> = Arc::new(crate::sink::Fanout { feed: feed.clone(), sink });
        let launcher = Box::new(sessions::PtyLauncher { ended, scans });
        let registry = sessions::Sessions::new(config.clone(), path_env.clone(), launcher);
        let mut engine = state::EngineState {
            cx: context::Ctx::new(store, sink, registry, config.clock.clone()),
            tasks: tasks::TaskDesk::new(notes, watch_events),
            signals: signals::SignalDesk::new(config.max_agents),
            hooks: hooks::HookDesk::new(config.permission_wait),
            worktrees: worktrees::WorktreeDesk::new(radar, worktree_notes),
            usage: usage::UsageDesk::new(usage_reads),
            automations: automations::AutomationDesk::new(files_seen, config.poll_folders),
            attention: attention::AttentionBoard::new(now()),
            web,
            path_env,
            server: None,
            door: None,
            config,
            _instance: instance,
        };
        sessions::recover_interrupted(&engine.cx.store, engine.config.kill_grace)?;
        engine.tasks.recover(&mut engine.cx)?;
        engine.worktrees.recover(&engine.cx);
        engine.usage.recover(&engine.cx);
        engine.hooks.replay_spool(&mut engine.cx, &engine.config.data_dir);
        engine.run_follows();
        // Without its socket the app still works; only scripts cannot reach it.
        let handler = Arc::new(WeakEngine::of(&requests, &feed, &engine.config));
        engine.door = Some(door(&engine.config, handler.clone()));
        engine.server = match server::serve_with(&engine.config.socket_path, handler, engine.config.socket.clone()) {
            Ok(server) => {
                // Clients in another environment find the socket from the data directory.
                if let Err(error) =
                    crate::instance::point_to_socket(&engine.config.data_dir, &engine.config.socket_path)
                {
                    tracing::warn!(%error, "could not note the socket in the data directory; clients in another environment will not find the engine");
                }
                Some(server)
            }
            Err(error) => {
                tracing::error!(%error, "the engine socket is not available");
                None
            }
        };
        // Browsers reach the engine again as they did before it stopped.
        engine.serve_browsers();
        if let Some(demo_agent) = engine.config.demo_agent.clone() {
            demo::ensure_demo(&engine.cx.store, &engine.config.data_dir, &demo_agent, now())?;
        }
        let inputs = state::Inputs {
            requests: requests_rx,
            ended: ended_rx,
            notes: notes_rx,
            watch_events: watch_rx,
            scans: scans_rx,
            radar: radar_rx,
            worktree_notes: worktree_notes_rx,
            usage: usage_rx,
            files_seen: files_seen_rx,
        };
        tokio::spawn(engine.run(inputs));
        Ok(EngineHandle::new(requests, &feed))
    }
}

/// Makes private what an older version left readable by other users, said
/// before anything opens it (opening makes a file private too, unsaid).
fn tighten(data_dir: &std::path::Path) {
    for change in crate::private::tighten(data_dir) {
        let (path, was) = (change.path.display(), format!("{:o}", change.was));
        match change.now {
            Ok(now) => {
                tracing::warn!(%path, %was, now = %format!("{now:o}"), "made private: other users could read it")
            }
            Err(error) => tracing::error!(%path, %was, %error, "could not be made private: other users can read it"),
        }
    }
}

/// How the web desk starts a server: the engine as its doorkeeper, what it
/// serves, and where the certificate it makes is kept.
fn door(config: &EngineConfig, keeper: Arc<WeakEngine>) -> web::Door<WeakEngine> {
    web::Door {
        keeper,
        options: crate::web::WebOptions {
            assets: config.web_assets.clone(),
            machines: config.web_machines.clone(),
            limits: config.socket.clone(),
            slowing: config.pairing_slowing,
        },
        certificates: config.data_dir.join(crate::config::WEB_DIR),
    }
}

/// The socket's way to the engine: a weak sender, so the server never
/// keeps the engine alive, and the engine's events.
struct WeakEngine {
    requests: mpsc::WeakSender<state::Request>,
    feed: Arc<crate::sink::EventFeed>,
    login_service: crate::config::LoginService,
}

impl WeakEngine {
    fn of(requests: &mpsc::Sender<state::Request>, feed: &Arc<crate::sink::EventFeed>, config: &EngineConfig) -> Self {
        WeakEngine { requests: requests.downgrade(), feed: feed.clone(), login_service: config.login_service.clone() }
    }

    fn engine(&self) -> Result<EngineHandle, EngineError> {
        Ok(EngineHandle::new(self.requests.upgrade().ok_or(EngineError::EngineStopped)?, &self.feed))
    }
}

impl RequestHandler for WeakEngine {
    async fn welcome(&self) -> switchboard_api::wire::HelloAck {
        let running = match self.engine() {
            Ok(engine) => engine.list_sessions().await.unwrap_or_default(),
            Err(_) => Vec::new(),
        };
        switchboard_api::wire::HelloAck {
            protocol: switchboard_api::wire::PROTOCOL,
            engine_version: env!("CARGO_PKG_VERSION").to_owned(),
            build_id: switchboard_api::wire::build_id(),
            capabilities: switchboard_api::wire::CAPABILITIES.iter().map(|c| (*c).to_owned()).collect(),
            instance_id: self.feed.instance_id.clone(),
            pid: std::process::id(),
            started_at: self.feed.started_at,
            agents_running: running.iter().filter(|s| s.state.is_running()).count() as u32,
            starts_at_login: self.login_service.runs_engine(),
        }
    }

    fn feed(&self) -> Option<Arc<crate::sink::EventFeed>> {
        Some(self.feed.clone())
    }

    async fn attach(
        &self,
        session_id: switchboard_protocol::SessionId,
        sink: Box<dyn crate::session::OutputSink>,
    ) -> Result<crate::session::SubscriptionId, EngineError> {
        let mut sink = sink;
        self.engine()?.attach(session_id, move |batch: &[u8]| sink.deliver(batch)).await
    }

    async fn pause_view(
        &self,
        session_id: switchboard_protocol::SessionId,
        subscription: crate::session::SubscriptionId,
        paused: bool,
    ) -> Result<(), EngineError> {
        self.engine()?.pause_view(session_id, subscription, paused).await
    }

    async fn detach(&self, session_id: switchboard_protocol::SessionId, subscription: crate::session::SubscriptionId) {
        if let Ok(engine) = self.engine() {
            engine.detach(session_id, subscription).await.ok();
        }
    }

    async fn handle(
        &self,
        command: switchboard_api::Command,
        caller: server::Caller,
    ) -> Result<switchboard_api::Reply, EngineError> {
        // Which device asks is known here, where the connection is: the engine's
        // command answers for its own callers, which are none.
        if let (switchboard_api::Command::ThisDevice {}, server::Caller::Device { device, .. }) = (&command, caller) {
            return Ok(switchboard_api::Reply::Device(self.engine()?.web_device(device).await?));
        }
        let sender = self.requests.upgrade().ok_or(EngineError::EngineStopped)?;
        handle::send_command(&sender, command).await
    }
}

impl crate::web::Doorkeeper for WeakEngine {
    async fn wrong_codes(&self) -> usize {
        match self.engine() {
            Ok(engine) => engine.web_wrong_codes().await.unwrap_or(usize::MAX),
            Err(_) => usize::MAX,
        }
    }

    async fn redeem(
        &self,
        code: String,
        user_agent: String,
        from: String,
    ) -> Result<crate::web::Paired, crate::web::PairRefusal> {
        let engine = self.engine().map_err(|_| crate::web::PairRefusal::Unknown)?;
        engine.web_redeem(code, user_agent, from).await.unwrap_or(Err(crate::web::PairRefusal::Unknown))
    }

    async fn admit(&self, device: u64, secret: String, from: String) -> Option<crate::web::Admitted> {
        self.engine().ok()?.web_admit(device, secret, from).await.ok().flatten()
    }

    async fn sockets_changed(&self) {
        if let Ok(engine) = self.engine() {
            engine.web_sockets_changed().await.ok();
        }
    }
}
