//! A bench for the desks' tests: an in-memory store, a sink that keeps the
//! events, and a launcher whose sessions are stand-ins — each records the
//! requests the engine sends it, so a test sees what would have been typed,
//! interrupted or killed, without a PTY.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use switchboard_protocol::{AgentKind, ProfileId, SessionId, TermSize};
use tokio::sync::mpsc;

use super::context::Ctx;
use super::sessions::{Launch, Sessions};
use crate::config::EngineConfig;
use crate::error::EngineError;
use crate::session::{Control, SessionEnd, SpawnSpec, Spawned};
use crate::store::Store;
use switchboard_api::{EngineEvent, Profile, ProfileSpec, SessionInfo, SessionState};

type Inboxes = Arc<Mutex<HashMap<SessionId, mpsc::UnboundedReceiver<Control>>>>;

/// Starts stand-in sessions and keeps their inboxes.
struct StandInLauncher {
    inboxes: Inboxes,
    next_pid: u32,
}

impl Launch for StandInLauncher {
    fn launch(&mut self, spec: SpawnSpec) -> Result<Spawned, EngineError> {
        let (handle, inbox) = crate::session::SessionHandle::stand_in();
        self.inboxes.lock().expect("not poisoned").insert(spec.id, inbox);
        self.next_pid += 1;
        Ok(Spawned { handle, pid: self.next_pid, start_time: None })
    }
}

pub(crate) struct Bench {
    pub cx: Ctx,
    events: Arc<Mutex<Vec<EngineEvent>>>,
    inboxes: Inboxes,
    /// The agents' workspace (kept for the bench's life).
    pub workspace: tempfile::TempDir,
}

impl Bench {
    pub fn new() -> Bench {
        let workspace = tempfile::tempdir().expect("a temporary directory");
        let events = Arc::new(Mutex::new(Vec::new()));
        let kept = events.clone();
        let sink = Arc::new(move |event: EngineEvent| kept.lock().expect("not poisoned").push(event));
        let inboxes = Inboxes::default();
        let launcher = Box::new(StandInLauncher { inboxes: inboxes.clone(), next_pid: 4_000_000 });
        let config = EngineConfig::new(workspace.path().join("data"), None);
        let sessions = Sessions::new(config, std::env::var_os("PATH"), launcher);
        let store = Store::open_in_memory().expect("an in-memory store");
        Bench { cx: Ctx::new(store, sink, sessions, crate::clock::Clock::system()), events, inboxes, workspace }
    }

    /// A profile of the given kind working in the bench's workspace.
    pub fn profile(&mut self, name: &str, kind: AgentKind) -> Profile {
        let spec = ProfileSpec {
            name: name.into(),
            command: "sh".into(),
            cwd: self.workspace.path().display().to_string(),
            kind,
            ..ProfileSpec::default()
        };
        let profile = Profile { id: ProfileId::new(), spec, created_at: 1, host: None };
        self.cx.store.insert_profile(&profile).expect("stored");
        profile
    }

    pub fn start(&mut self, profile: &Profile) -> SessionInfo {
        self.cx.start_session(&profile.id, TermSize::DEFAULT, None, None).expect("a stand-in session starts")
    }

    /// The requests sent to the session since last asked.
    pub fn controls(&self, session: &SessionId) -> Vec<Control> {
        let mut inboxes = self.inboxes.lock().expect("not poisoned");
        let inbox = inboxes.get_mut(session).expect("a stand-in session");
        std::iter::from_fn(|| inbox.try_recv().ok()).collect()
    }

    /// The texts typed into the session since last asked (answering each as
    /// typed); other requests are dropped.
    pub fn typed(&self, session: &SessionId) -> Vec<String> {
        typed_in(self.controls(session))
    }

    /// The events emitted since last asked.
    pub fn events(&self) -> Vec<EngineEvent> {
        std::mem::take(&mut *self.events.lock().expect("not poisoned"))
    }

    /// The session's process ended (`killed`: stopped by the user).
    pub fn end(&mut self, session: &SessionId, killed: bool) -> SessionState {
        let end = SessionEnd { id: session.clone(), exit_code: if killed { 0 } else { 3 }, signal: None, killed };
        self.cx.sessions.end(&self.cx.store, &*self.cx.sink, end)
    }
}

/// The texts among `controls`, each answered as typed (as a bracketed
/// paste); the other requests are dropped.
pub(crate) fn typed_in(controls: Vec<Control>) -> Vec<String> {
    controls
        .into_iter()
        .filter_map(|control| match control {
            Control::Type(request) => {
                request.reply.send(Ok(true));
                Some(request.text)
            }
            _ => None,
        })
        .collect()
}
