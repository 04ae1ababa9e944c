//! The session registry: one entry per session the engine holds in memory,
//! with everything known about it — its actor, its run, what its hooks
//! said, its team, the signals seen from it. Removing a session removes all
//! of it. Starting, stopping and ending sessions happen here.

use std::collections::{BTreeSet, HashMap, VecDeque};
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use switchboard_protocol::signal::teach::Tools;
use switchboard_protocol::team::TeamState;
use switchboard_protocol::{AgentKind, ProfileId, SessionId, SignalId, TermSize};
use tokio::sync::mpsc;
use tokio::time::Instant;

use crate::config::{EngineConfig, spool_path};
use crate::error::{EngineError, Responder};
use crate::session::{self, Control, SessionEnd, SessionHandle, SessionScan, SpawnSpec, Spawned, process};
use crate::sink::{EventSink, LogAbout, log};
use crate::store::Store;
use crate::validate::resolve_command;
use switchboard_api::{AgentStatusInfo, EngineEvent, LogKind, Millis, Profile, SessionInfo, SessionState, now};

/// Ended sessions whose terminal (replay and screen) stays viewable. Older
/// ones are dropped with their entry; their records stay in the store.
pub const RETAINED_ENDED_SESSIONS: usize = 32;

/// Starts agent processes. The engine's launcher runs them in PTYs; desk
/// tests use one whose sessions are stand-ins.
pub(crate) trait Launch: Send {
    fn launch(&mut self, spec: SpawnSpec) -> Result<Spawned, EngineError>;
}

/// Runs each session in a real PTY with its actor.
pub(crate) struct PtyLauncher {
    pub ended: mpsc::UnboundedSender<SessionEnd>,
    pub scans: mpsc::Sender<SessionScan>,
}

impl Launch for PtyLauncher {
    fn launch(&mut self, spec: SpawnSpec) -> Result<Spawned, EngineError> {
        session::spawn(spec, self.ended.clone(), self.scans.clone())
    }
}

/// What a session's hooks have said, and what the app adds to it.
#[derive(Debug, Default)]
pub(crate) struct HookRecord {
    /// The status as its hooks tell it; none until they first report.
    pub status: Option<AgentStatusInfo>,
    /// The agent's own id for its conversation, as its hooks name it.
    pub conversation: Option<String>,
    /// Its signals that wait for the user.
    pub needs_user: BTreeSet<SignalId>,
    /// Its task completed, with nothing begun since.
    pub task_done: bool,
    /// Who the agent's environment says it is (team, agent id, name, type).
    pub identity: std::collections::BTreeMap<String, String>,
    /// The status last shown, and since when it has been.
    pub shown_since: Option<(switchboard_protocol::hook::AgentStatus, Millis)>,
    /// Where the agent logs its conversation, as its hooks name it
    /// (`transcript_path`; read only inside Codex's own folder).
    pub transcript: Option<String>,
    /// The turn its hooks said began last (`UserPromptSubmit`'s `turn_id`).
    pub turn: Option<String>,
    /// The file its CLI writes its own conversation to, as first named.
    pub own_file: Option<String>,
    /// Every conversation file its events named (its own, its team's):
    /// each followed for its usage once.
    pub files: BTreeSet<String>,
}

/// The signal protocols' memory of a session.
#[derive(Debug, Default)]
pub(crate) struct SignalRecord {
    /// Signals seen recently, for handling each once.
    pub seen: VecDeque<(String, Instant)>,
    /// It reached the pending signals' limit and the user was told.
    pub flooding: bool,
}

/// Who waits for a running session's end.
pub(crate) enum EndWaiter {
    Stop(Responder<SessionInfo>),
    /// Start a new session of the profile once it ended.
    Restart(TermSize, Responder<SessionInfo>),
}

/// Where a session is, as the registry holds it.
pub(crate) enum Run {
    /// Its agent runs; these callers wait for its end.
    Running { handle: SessionHandle, waiters: Vec<EndWaiter> },
    /// It ended in this run of the app; its terminal can still be viewed.
    Ended { handle: SessionHandle },
    /// Known only from the store (it ran before the app started).
    Recorded,
}

pub(crate) struct SessionEntry {
    /// What the engine knows of it; the source of what is reported, even
    /// when the store cannot record a change.
    pub info: SessionInfo,
    pub run: Run,
    pub hooks: HookRecord,
    /// The teammates it leads.
    pub team: TeamState,
    pub signals: SignalRecord,
    /// Whether its agent has Switchboard's tools: not given, given to its
    /// CLI, or started (its server said so).
    pub tools: Tools,
    /// What its agent's hook events must carry to be taken for it (given in
    /// its environment); none for a session recorded before secrets were.
    secret: Option<String>,
}

impl SessionEntry {
    fn new(info: SessionInfo, run: Run, secret: Option<String>) -> Self {
        SessionEntry {
            info,
            run,
            secret,
            hooks: HookRecord::default(),
            team: TeamState::default(),
            signals: SignalRecord::default(),
            tools: Tools::Absent,
        }
    }

    pub fn is_running(&self) -> bool {
        matches!(self.run, Run::Running { .. })
    }

    #[cfg(test)]
    pub fn secret(&self) -> Option<&str> {
        self.secret.as_deref()
    }

    /// Whether `secret` is this session's: only its own agent can say it.
    pub fn is_spoken_for_by(&self, secret: Option<&str>) -> bool {
        matches!((&self.secret, secret), (Some(ours), Some(theirs)) if ours == theirs)
    }

    /// Its actor, while it has one (running, or ended and still viewable).
    pub fn handle(&self) -> Option<&SessionHandle> {
        match &self.run {
            Run::Running { handle, .. } | Run::Ended { handle } => Some(handle),
            Run::Recorded => None,
        }
    }
}

pub(crate) struct Sessions {
    entries: HashMap<SessionId, SessionEntry>,
    /// Entries of sessions not running, oldest first; past
    /// [`RETAINED_ENDED_SESSIONS`] the oldest is removed.
    ended: VecDeque<SessionId>,
    launcher: Box<dyn Launch>,
    config: EngineConfig,
    path_env: Option<OsString>,
}

impl Sessions {
    pub fn new(config: EngineConfig, path_env: Option<OsString>, launcher: Box<dyn Launch>) -> Self {
        Sessions { entries: HashMap::new(), ended: VecDeque::new(), launcher, config, path_env }
    }

    /// The app's data folder (worktrees are made under it).
    pub fn data_dir(&self) -> &Path {
        &self.config.data_dir
    }

    pub fn get(&self, id: &SessionId) -> Option<&SessionEntry> {
        self.entries.get(id)
    }

    pub fn get_mut(&mut self, id: &SessionId) -> Option<&mut SessionEntry> {
        self.entries.get_mut(id)
    }

    pub fn entries(&self) -> impl Iterator<Item = &SessionEntry> {
        self.entries.values()
    }

    pub fn entries_mut(&mut self) -> impl Iterator<Item = &mut SessionEntry> {
        self.entries.values_mut()
    }

    /// The entry of a session this app ever ran: from memory, else loaded
    /// from the store (then it has no terminal).
    pub fn known(&mut self, store: &Store, id: &SessionId) -> Option<&mut SessionEntry> {
        if !self.entries.contains_key(id) {
            let info = store.get_session(id).ok().flatten()?;
            let secret = store.session_secret(id).ok().flatten();
            self.entries.insert(id.clone(), SessionEntry::new(info, Run::Recorded, secret));
            self.retire(id.clone());
        }
        self.entries.get_mut(id)
    }

    pub fn is_running(&self, id: &SessionId) -> bool {
        self.entries.get(id).is_some_and(SessionEntry::is_running)
    }

    pub fn running(&self) -> impl Iterator<Item = &SessionEntry> {
        self.entries.values().filter(|entry| entry.is_running())
    }

    pub fn running_count(&self) -> usize {
        self.running().count()
    }

    /// The most recently started running session of the profile that
    /// `fits`.
    pub fn latest_running_of(&self, profile_id: &ProfileId, fits: impl Fn(&SessionId) -> bool) -> Option<SessionId> {
        self.running()
            .filter(|entry| &entry.info.profile_id == profile_id && fits(&entry.info.id))
            .max_by_key(|entry| entry.info.started_at)
            .map(|entry| entry.info.id.clone())
    }

    /// Sends to the session's actor; false when it has none.
    pub fn send(&self, id: &SessionId, control: Control) -> bool {
        match self.entries.get(id).and_then(SessionEntry::handle) {
            Some(handle) => {
                handle.send(control);
                true
            }
            None => false,
        }
    }

    /// Forwards a request to the session's actor, which answers the caller
    /// itself; without an actor, the caller hears why.
    pub fn forward<T: Send + 'static>(
        &self,
        store: &Store,
        id: &SessionId,
        reply: Responder<T>,
        control: impl FnOnce(Responder<T>) -> Control,
    ) {
        match self.entries.get(id).and_then(SessionEntry::handle) {
            Some(handle) => handle.send(control(reply)),
            None => reply.send(Err(missing(store, id))),
        }
    }

    /// The error for a session without a live actor.
    pub fn missing(&self, store: &Store, id: &SessionId) -> EngineError {
        missing(store, id)
    }

    /// Starts a session of the profile, in its folder or in `workspace` (a
    /// task's worktree); for Claude Code and Codex, continuing the
    /// conversation `resume` when given.
    pub fn start(
        &mut self,
        store: &Store,
        sink: &dyn EventSink,
        profile_id: &ProfileId,
        size: TermSize,
        resume: Option<&str>,
        workspace: Option<&Path>,
    ) -> Result<SessionInfo, EngineError> {
        if !size.is_valid() {
            return Err(invalid_size(size));
        }
        let profile = store.get_profile(profile_id)?.ok_or_else(|| EngineError::ProfileNotFound(profile_id.clone()))?;
        // The workspace or the program may have gone since the profile was saved.
        let cwd = workspace.map_or_else(|| PathBuf::from(&profile.spec.cwd), Path::to_path_buf);
        if !cwd.is_dir() {
            return Err(EngineError::DirectoryMissing { path: cwd });
        }
        let program = resolve_command(&profile.spec.command, &cwd, self.path_env.as_deref())?;
        let id = SessionId::new();
        let secret = switchboard_protocol::new_secret();
        let (mut args, agent_session_id, hooks_connected) = self.connect(&profile, &cwd, resume);
        let tools = self.tools_for(&profile);
        if profile.spec.signal_protocols {
            args = teach(&profile, &id, args, tools);
        }
        if let (Tools::Offered, Some(binary)) = (tools, &self.config.mcp_binary) {
            args = crate::mcp::offer(profile.spec.kind, args, binary);
        }
        let (program, args) = match &self.config.keeper {
            Some(keeper) => {
                kept(keeper, &program, args, self.config.kill_grace, crate::server::descriptors::original_soft_limit())
            }
            None => (program, args),
        };
        let spawned = self.launcher.launch(SpawnSpec {
            id: id.clone(),
            program,
            args,
            env: session_env(&profile, &id, &secret, &self.config.socket_path, &spool_path(&self.config.data_dir)),
            cwd,
            size,
            replay_cap: self.config.scrollback_bytes,
            history_lines: self.config.screen_history_lines,
            kill_grace: self.config.kill_grace,
            scan_signals: profile.spec.kind == AgentKind::Generic,
            hooks_grace: hooks_connected.then_some(self.config.hooks_grace),
        })?;
        let info = SessionInfo {
            id: id.clone(),
            profile_id: profile.id.clone(),
            started_at: now(),
            size,
            state: SessionState::Running { pid: spawned.pid },
            agent_session_id,
            workspace: workspace.map(|w| w.to_string_lossy().into_owned()),
        };
        let recorded = store.insert_session(&info, spawned.start_time, &secret).and_then(|()| {
            let about = LogAbout { profile: Some(&info.profile_id), ..LogAbout::session(&id) };
            log(store, sink, info.started_at, about, &LogKind::SessionStarted { pid: spawned.pid })
        });
        if let Err(error) = recorded {
            // An agent the store does not know of could not be recovered
            // after a crash: do not let it run.
            spawned.handle.send(Control::Kill);
            return Err(error.into());
        }
        let run = Run::Running { handle: spawned.handle, waiters: Vec::new() };
        let mut entry = SessionEntry::new(info.clone(), run, Some(secret));
        entry.tools = tools;
        self.entries.insert(id, entry);
        sink.emit(EngineEvent::SessionChanged { session: info.clone() });
        Ok(info)
    }

    /// The arguments to start the profile's agent with, the conversation id
    /// the app gave it, and whether its hooks are connected.
    fn connect(&self, profile: &Profile, cwd: &Path, resume: Option<&str>) -> (Vec<String>, Option<String>, bool) {
        let hook = self.config.hook_binary.as_deref();
        match (profile.spec.kind, hook) {
            (AgentKind::ClaudeCode, hook) => {
                // Without its hooks the agent still runs; the app only sees less.
                let connected = hook.is_some_and(|hook| match crate::connect::connect_claude(cwd, hook) {
                    Ok(path) => {
                        tracing::debug!(path = %path.display(), "Claude Code hooks connected");
                        true
                    }
                    Err(error) => {
                        tracing::warn!(%error, "Claude Code hooks could not be connected");
                        false
                    }
                });
                let (args, conversation) =
                    crate::connect::claude_conversation(&profile.spec.args, resume, || SessionId::new().to_string());
                (args, conversation, connected)
            }
            // Codex names its thread itself (its hooks tell it: recorded then).
            (AgentKind::Codex, Some(hook)) => {
                let (args, connected) = connect_codex(profile, hook);
                (crate::connect::codex_resume(args, resume), resume.map(str::to_owned), connected)
            }
            (AgentKind::Codex, None) => {
                (crate::connect::codex_resume(profile.spec.args.clone(), resume), resume.map(str::to_owned), false)
            }
            (AgentKind::Generic, _) => (profile.spec.args.clone(), None, false),
        }
    }

    /// Whether a session of `profile` is given Switchboard's tools: when it
    /// is taught the protocols, its profile keeps them on, its CLI takes
    /// them and the server's binary is there.
    fn tools_for(&self, profile: &Profile) -> Tools {
        let spec = &profile.spec;
        let given = spec.signal_protocols
            && spec.switchboard_tools
            && crate::mcp::offered_to(spec.kind)
            && self.config.mcp_binary.as_deref().is_some_and(Path::is_file);
        if given { Tools::Offered } else { Tools::Absent }
    }

    /// The server's binary, when there is one to name in a workspace's
    /// [`crate::mcp::MCP_FILE`].
    pub fn mcp_binary(&self) -> Option<&Path> {
        self.config.mcp_binary.as_deref().filter(|binary| binary.is_file())
    }

    /// Asks the session's tree to end; `waiter` hears when it has.
    pub fn stop(&mut self, store: &Store, id: &SessionId, waiter: EndWaiter) -> Result<(), (EngineError, EndWaiter)> {
        match self.entries.get_mut(id).map(|entry| &mut entry.run) {
            Some(Run::Running { handle, waiters }) => {
                handle.send(Control::Kill);
                waiters.push(waiter);
                Ok(())
            }
            _ => Err((missing(store, id), waiter)),
        }
    }

    /// Stops every running session (the app is quitting).
    pub fn stop_all(&self) {
        for entry in self.running() {
            if let Some(handle) = entry.handle() {
                handle.send(Control::Kill);
            }
        }
    }

    /// Records a session's end and answers who waited for it: a restart
    /// starts its new session here. Returns the state it ended in.
    pub fn end(&mut self, store: &Store, sink: &dyn EventSink, end: SessionEnd) -> SessionState {
        let ended_at = now();
        let (state, log_kind) = ended_state(&end, ended_at);
        let recorded = store.update_session_state(&end.id, &state).and_then(|()| {
            let profile = self.get(&end.id).map(|entry| entry.info.profile_id.clone());
            let about = LogAbout { profile: profile.as_ref(), ..LogAbout::session(&end.id) };
            log(store, sink, ended_at, about, &log_kind)
        });
        if let Err(error) = recorded {
            tracing::error!(session = %end.id, %error, "recording a session's end failed");
        }
        // The report comes from what the engine knows, not from re-reading
        // the store: if the store cannot record the end (a full disk), the UI
        // must still not show a dead agent as running.
        let mut waiters = Vec::new();
        let info = match self.entries.get_mut(&end.id) {
            Some(entry) => {
                entry.info.state = state.clone();
                if let Run::Running { .. } = entry.run {
                    let Run::Running { handle, waiters: waiting } = std::mem::replace(&mut entry.run, Run::Recorded)
                    else {
                        unreachable!("matched above")
                    };
                    entry.run = Run::Ended { handle };
                    waiters = waiting;
                }
                Ok(entry.info.clone())
            }
            None => store
                .get_session(&end.id)
                .map_err(EngineError::from)
                .and_then(|found| found.ok_or_else(|| EngineError::SessionNotFound(end.id.clone())))
                .map(|info| SessionInfo { state: state.clone(), ..info }),
        };
        self.retire(end.id.clone());
        if let Ok(info) = &info {
            sink.emit(EngineEvent::SessionChanged { session: info.clone() });
        }
        for waiter in waiters {
            match waiter {
                EndWaiter::Stop(reply) => reply.send(clone_result(&info)),
                EndWaiter::Restart(size, reply) => {
                    let started = clone_result(&info).and_then(|old| {
                        let workspace = still_there(old.workspace.as_deref());
                        self.start(store, sink, &old.profile_id, size, None, workspace.as_deref())
                    });
                    reply.send(started);
                }
            }
        }
        state
    }

    /// Moves a session among the ended ones, letting go of the oldest past
    /// the limit: their entry, with everything known about them, goes.
    fn retire(&mut self, id: SessionId) {
        self.ended.retain(|ended| ended != &id);
        self.ended.push_back(id);
        while self.ended.len() > RETAINED_ENDED_SESSIONS {
            if let Some(old) = self.ended.pop_front() {
                self.entries.remove(&old);
            }
        }
    }

    /// Forgets the sessions of a deleted profile.
    pub fn remove_all(&mut self, ids: &[SessionId]) {
        for id in ids {
            self.entries.remove(id);
        }
        self.ended.retain(|ended| !ids.contains(ended));
    }
}

/// Sessions recorded as running belong to a previous run of the app that
/// did not stop cleanly. Marks them interrupted, ending their processes if
/// the recorded PID still names the same process.
pub(crate) fn recover_interrupted(store: &Store, kill_grace: std::time::Duration) -> Result<(), EngineError> {
    for run in store.running_sessions()? {
        let SessionState::Running { pid } = run.session.state else { continue };
        let alive = process::is_same_process(pid, run.pid_start_time);
        // The leader may be gone while a daemon it started still runs.
        let report = if alive {
            process::terminate_session(&run.session.id, pid as i32, kill_grace)
        } else {
            process::terminate_leaderless(&run.session.id, kill_grace)
        };
        if alive || report.killed > 0 || !report.survivors.is_empty() {
            tracing::info!(session = %run.session.id, pid, alive, ?report, "reaped an interrupted agent");
        }
        let ended_at = now();
        store.update_session_state(&run.session.id, &SessionState::Interrupted { ended_at })?;
        store.append_event(ended_at, Some(&run.session.id), &LogKind::SessionInterrupted { reaped: alive })?;
    }
    // Agents of a crashed run that this process adopted and that ended on
    // their own (the terminal's hangup) are reaped, not left as zombies.
    let reaped = process::reap_adopted_zombies();
    if reaped > 0 {
        tracing::info!(reaped, "reaped ended agent processes of an earlier run");
    }
    Ok(())
}

/// The error for a session without a live actor: unknown, or ended long
/// enough ago that its terminal was let go.
fn missing(store: &Store, id: &SessionId) -> EngineError {
    if matches!(store.get_session(id), Ok(Some(_))) {
        EngineError::SessionNotRunning(id.clone())
    } else {
        EngineError::SessionNotFound(id.clone())
    }
}

/// Codex's hooks file and `notify` pointed at the hook binary: the
/// arguments to start it with, and whether its hooks are connected.
/// The agent's arguments with the signal protocols given through its own
/// instruction channel, for the agent known as `session`. A generic agent
/// has none: its tasks point to the protocol file.
fn teach(profile: &Profile, session: &SessionId, args: Vec<String>, tools: Tools) -> Vec<String> {
    use switchboard_protocol::signal::teach::{protocol_text, tools_text};
    let text = || match tools {
        Tools::Absent => protocol_text(Some(&session.to_string())),
        Tools::Offered | Tools::Started => tools_text(&session.to_string()),
    };
    match profile.spec.kind {
        AgentKind::ClaudeCode => crate::connect::claude_instructions(&args, &text()),
        AgentKind::Codex => crate::connect::codex_instructions(&args, &text()),
        AgentKind::Generic => args,
    }
}

fn connect_codex(profile: &Profile, hook: &Path) -> (Vec<String>, bool) {
    let Some(home) = crate::connect::codex_home(&profile.spec.env, |name| std::env::var(name).ok()) else {
        tracing::warn!("Codex's configuration folder is unknown (no CODEX_HOME or HOME): hooks not connected");
        return (profile.spec.args.clone(), false);
    };
    let connected = match crate::connect::connect_codex(&home, hook) {
        Ok(path) => {
            tracing::debug!(path = %path.display(), "Codex hooks connected");
            true
        }
        Err(error) => {
            tracing::warn!(%error, "Codex hooks could not be connected");
            false
        }
    };
    // Codex's folder is one every agent can write to: read without blocking
    // on what stands there, through no link out of it, and with a cap.
    let config = crate::workspace::Workspace::open(&home)
        .and_then(|folder| folder.read_if_there("config.toml", CODEX_CONFIG_CAP_BYTES))
        .ok()
        .flatten()
        .map(|read| read.text);
    (crate::connect::codex_notify(&profile.spec.args, config.as_deref(), hook), connected)
}

/// How a session's end is recorded: stopped by the user (or the app's exit)
/// is `killed`, anything else `exited`, each with its exit code and signal.
pub(crate) fn ended_state(end: &SessionEnd, ended_at: Millis) -> (SessionState, LogKind) {
    let (exit_code, signal) = (end.exit_code, end.signal.clone());
    if end.killed {
        (
            SessionState::Killed { exit_code, signal: signal.clone(), ended_at },
            LogKind::SessionKilled { exit_code, signal },
        )
    } else {
        (
            SessionState::Exited { exit_code, signal: signal.clone(), ended_at },
            LogKind::SessionExited { exit_code, signal },
        )
    }
}

/// One lookup result may answer several waiting callers.
fn clone_result(result: &Result<SessionInfo, EngineError>) -> Result<SessionInfo, EngineError> {
    match result {
        Ok(info) => Ok(info.clone()),
        Err(error) => Err(error.relayed()),
    }
}

pub(crate) fn invalid_size(size: TermSize) -> EngineError {
    EngineError::InvalidInput {
        field: "size",
        reason: format!("{}x{} is not a usable terminal size", size.cols, size.rows),
    }
}

/// The environment an agent starts with, on top of the app's own: the
/// profile's variables, then what the engine needs (these win).
/// The program and arguments that run `program` under the session's
/// keeper (the hook binary's `--keep`): it holds every process the agent
/// starts, even a daemon that left its session and cleared its
/// environment, and ends what the agent leaves behind.
fn kept(
    keeper: &Path,
    program: &Path,
    args: Vec<String>,
    grace: std::time::Duration,
    open_files: Option<u64>,
) -> (PathBuf, Vec<String>) {
    let mut kept = vec![KEEP_FLAG.to_owned(), "--grace-ms".to_owned(), grace.as_millis().to_string()];
    // The engine raised its own limit on open files: the agent gets the one
    // it would have had.
    if let Some(limit) = open_files {
        kept.extend([NOFILE_FLAG.to_owned(), limit.to_string()]);
    }
    kept.extend(["--".to_owned(), program.display().to_string()]);
    kept.extend(args);
    (keeper.to_path_buf(), kept)
}

/// The most of Codex's `config.toml` read (for a `notify` of the user's own):
/// a configuration file is a few kilobytes.
const CODEX_CONFIG_CAP_BYTES: usize = 1024 * 1024;

/// The hook binary's flag that makes it a session's keeper (its
/// `keeper::KEEP_FLAG`; the engine does not link the hook's crate).
const KEEP_FLAG: &str = "--keep";
/// The keeper's flag for the soft limit on open files the agent starts with.
const NOFILE_FLAG: &str = "--nofile";

fn session_env(profile: &Profile, id: &SessionId, secret: &str, socket: &Path, spool: &Path) -> Vec<(String, String)> {
    let mut env: Vec<(String, String)> =
        vec![("TERM".into(), "xterm-256color".into()), ("COLORTERM".into(), "truecolor".into())];
    env.extend(profile.spec.env.iter().map(|(k, v)| (k.clone(), v.clone())));
    env.push((process::SESSION_ENV.into(), id.to_string()));
    env.push((switchboard_protocol::hook::SECRET_ENV.into(), secret.to_owned()));
    env.push(("SWITCHBOARD_SOCKET".into(), socket.display().to_string()));
    env.push(("SWITCHBOARD_SPOOL".into(), spool.display().to_string()));
    env
}

/// A session's own folder (a worktree), while it is there; none: its
/// agent's folder.
pub(crate) fn still_there(workspace: Option<&str>) -> Option<std::path::PathBuf> {
    workspace.map(std::path::PathBuf::from).filter(|path| path.is_dir())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recovery_ends_a_daemon_of_a_session_whose_leader_is_gone() {
        let store = Store::open_in_memory().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let profile = Profile {
            id: ProfileId::new(),
            spec: switchboard_api::ProfileSpec {
                name: "gone".into(),
                command: "sh".into(),
                cwd: dir.path().display().to_string(),
                ..Default::default()
            },
            created_at: 0,
            host: None,
        };
        store.insert_profile(&profile).unwrap();
        // The leader ran and is gone; the daemon it left carries the session's id.
        let mut leader = std::process::Command::new("true").spawn().unwrap();
        let leader_pid = leader.id();
        leader.wait().unwrap();
        let session = SessionInfo {
            id: SessionId::new(),
            profile_id: profile.id.clone(),
            started_at: 0,
            size: TermSize::DEFAULT,
            state: SessionState::Running { pid: leader_pid },
            agent_session_id: None,
            workspace: None,
        };
        store.insert_session(&session, Some(1), "secret").unwrap();
        let mut daemon = std::process::Command::new("sleep")
            .arg("60")
            .env(process::SESSION_ENV, session.id.to_string())
            .spawn()
            .unwrap();
        let daemon_pid = daemon.id() as i32;
        // `spawn` returns once the child began its exec, which may be before
        // the kernel set up its new environment: until then its environ reads
        // empty and no scan could know it. Wait for that, not for a time.
        let marker = format!("{}={}", process::SESSION_ENV, session.id);
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        while !std::fs::read(format!("/proc/{daemon_pid}/environ"))
            .is_ok_and(|environ| environ.split(|byte| *byte == 0).any(|entry| entry == marker.as_bytes()))
        {
            assert!(std::time::Instant::now() < deadline, "the daemon never showed its environment");
            std::thread::yield_now();
        }
        // Before: recovery ended the tree only when the leader still ran.
        recover_interrupted(&store, std::time::Duration::from_millis(200)).unwrap();
        assert!(process::read_stat(daemon_pid).is_none(), "the daemon was ended (and reaped)");
        // Reaped already by the recovery; nothing is left to wait for.
        daemon.wait().ok();
        let recovered = store.get_session(&session.id).unwrap().unwrap();
        assert!(matches!(recovered.state, SessionState::Interrupted { .. }));
    }

    #[test]
    fn an_agent_runs_under_its_sessions_keeper() {
        let (program, args) = kept(
            Path::new("/app/switchboard-hook"),
            Path::new("/usr/bin/claude"),
            vec!["--resume".into(), "--".into()],
            std::time::Duration::from_millis(1500),
            None,
        );
        assert_eq!(program, Path::new("/app/switchboard-hook"));
        assert_eq!(args, ["--keep", "--grace-ms", "1500", "--", "/usr/bin/claude", "--resume", "--"]);
        // The engine raised its limit on open files: the keeper puts the agent's back.
        let (_, args) =
            kept(Path::new("/k"), Path::new("/a"), Vec::new(), std::time::Duration::from_millis(9), Some(1024));
        assert_eq!(args, ["--keep", "--grace-ms", "9", "--nofile", "1024", "--", "/a"]);
    }

    #[test]
    fn how_an_end_is_recorded() {
        let end = |killed, exit_code, signal: Option<&str>| SessionEnd {
            id: SessionId::new(),
            exit_code,
            signal: signal.map(str::to_owned),
            killed,
        };
        let hup = Some("Hangup".to_owned());
        let cases = [
            (
                end(false, 0, None),
                SessionState::Exited { exit_code: 0, signal: None, ended_at: 9 },
                LogKind::SessionExited { exit_code: 0, signal: None },
            ),
            (
                end(false, 134, Some("Aborted")),
                SessionState::Exited { exit_code: 134, signal: Some("Aborted".into()), ended_at: 9 },
                LogKind::SessionExited { exit_code: 134, signal: Some("Aborted".into()) },
            ),
            (
                end(true, 1, Some("Hangup")),
                SessionState::Killed { exit_code: 1, signal: hup.clone(), ended_at: 9 },
                LogKind::SessionKilled { exit_code: 1, signal: hup },
            ),
            // Stopped, but it exited cleanly on the first SIGTERM: still the user's doing.
            (
                end(true, 0, None),
                SessionState::Killed { exit_code: 0, signal: None, ended_at: 9 },
                LogKind::SessionKilled { exit_code: 0, signal: None },
            ),
        ];
        for (end, state, log) in cases {
            assert_eq!(ended_state(&end, 9), (state, log), "{end:?}");
        }
    }
}
