//! Engine configuration and where its files live. Paths and environment are
//! resolved here, at the edge, by pure functions; the engine only receives
//! the result.

use std::path::{Path, PathBuf};
use std::time::Duration;

/// Default cap on the raw output kept per session for replay into a view.
/// One MiB holds several thousand screens of ordinary agent output while
/// keeping ten busy sessions well under 20 MiB.
pub const DEFAULT_SCROLLBACK_BYTES: usize = 1024 * 1024;

/// Default number of lines the screen model keeps above the visible screen,
/// so a fallback summary can quote recent output.
pub const DEFAULT_SCREEN_HISTORY_LINES: usize = 200;

/// How long a stopped agent gets between SIGTERM and SIGKILL.
pub const DEFAULT_KILL_GRACE: Duration = Duration::from_secs(3);

/// The longest Unix socket path Linux accepts (`sun_path` is 108 bytes,
/// including the terminating NUL).
pub const MAX_SOCKET_PATH_BYTES: usize = 107;

/// How long a client of the engine's socket has to say hello.
pub const HELLO_DEADLINE: Duration = Duration::from_secs(10);
/// Terminal output waiting for one client of the socket beyond which its
/// streams are dropped as behind.
pub const OUTPUT_BUDGET: usize = 8 * 1024 * 1024;

/// Events a socket subscriber may fall behind by before it is told it
/// missed some, unless the engine's configuration says otherwise
/// (`SocketLimits::feed_capacity`).
pub const FEED_CAPACITY: usize = 4096;

/// Default of [`SocketLimits::event_budget`]: bytes waiting for one client
/// past which the engine's events are dropped for it (and counted).
pub const EVENT_BUDGET: usize = 16 * 1024 * 1024;

/// What bounds one framed connection, in time and in memory. The defaults
/// serve the app; tests shorten the deadlines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SocketLimits {
    /// How long a client has to say hello.
    pub hello_deadline: Duration,
    /// How long a frame may take to arrive once its first byte has (a 16 MiB
    /// frame over a slow SSH link takes seconds; half a frame never ends).
    pub frame_deadline: Duration,
    /// How long the engine's writes to a client may make no progress while
    /// something waits for it before the client, which reads nothing, is let go.
    pub write_stall: Duration,
    /// After this long with nothing written, a connection is sent a
    /// keepalive: a client that still reads shows it is there (a window on
    /// an idle engine, a remote bridge whose link died is found out by its
    /// write failing), and one that is quiet is never cut off for it.
    pub keepalive: Duration,
    /// Requests of one connection read but not yet answered, or answered and
    /// not yet written: at this many the connection is not read until one is
    /// written. Commands run at once up to it, so a slow one (a large merge)
    /// holds up none of the others.
    pub in_flight: usize,
    /// Terminal output and events waiting for one client: output past it
    /// drops that stream as behind (the client attaches again), an attach
    /// waits for room below half of it, events past it are counted missed.
    pub output_budget: usize,
    /// Terminals one connection may have attached at once.
    pub max_streams: usize,
    /// Bytes that frames longer than `wire::SMALL_FRAME_BYTES` may hold at
    /// once across all connections (`wire::FrameRoom`): clients that begin
    /// long frames and never end them hold this much between them.
    pub frames_room: usize,
    /// Events a subscriber may fall behind the engine by before it is told
    /// it missed some.
    pub feed_capacity: usize,
    /// Bytes of a client's unwritten frames past which the engine's events
    /// are counted as missed for it instead of queued (it is told so once
    /// it has caught up).
    pub event_budget: usize,
}

impl Default for SocketLimits {
    fn default() -> Self {
        SocketLimits {
            hello_deadline: HELLO_DEADLINE,
            frame_deadline: Duration::from_secs(30),
            write_stall: Duration::from_secs(60),
            keepalive: Duration::from_secs(20),
            in_flight: 64,
            output_budget: OUTPUT_BUDGET,
            max_streams: 256,
            frames_room: 2 * switchboard_api::wire::MAX_FRAME_BYTES,
            feed_capacity: FEED_CAPACITY,
            event_budget: EVENT_BUDGET,
        }
    }
}

#[derive(Debug, Clone)]
pub struct EngineConfig {
    /// Holds the database and the demo workspace.
    pub data_dir: PathBuf,
    /// Where the hook server listens; passed to every agent as
    /// `SWITCHBOARD_SOCKET`.
    pub socket_path: PathBuf,
    pub scrollback_bytes: usize,
    pub screen_history_lines: usize,
    pub kill_grace: Duration,
    /// The scripted demo agent; when set, the first start creates a demo
    /// workspace and a profile that runs it.
    pub demo_agent: Option<PathBuf>,
    /// The most agent sessions running at once that approving a
    /// delegation may reach.
    pub max_agents: usize,
    /// The `switchboard-hook` binary: when set, Claude Code sessions get
    /// their hooks pointed at it.
    pub hook_binary: Option<PathBuf>,
    /// The `switchboard-mcp` binary: when set, Claude Code and Codex agents
    /// taught the signal protocols are offered Switchboard's tools (unless
    /// their profile turns them off).
    pub mcp_binary: Option<PathBuf>,
    /// The keeper every agent runs under (`switchboard-hook --keep`): it
    /// holds the agent's whole process tree, so Stop and quit end even a
    /// daemon that left its session and cleared its environment. None: the
    /// agent runs directly (such a daemon then outlives it).
    pub keeper: Option<PathBuf>,
    /// An agent reported working whose hooks are silent this long is
    /// taken to be waiting.
    pub working_idle: Duration,
    /// How long a permission request's hook waits for the user before the
    /// agent's own prompt decides.
    pub permission_wait: Duration,
    /// How long typing into a newly started agent whose hooks the app
    /// connected waits for their first event (its session start comes only
    /// once the agent is past its start-up dialogs) before going by the
    /// screen alone.
    pub hooks_grace: Duration,
    /// The `PATH` agents' programs are looked up on (and the agent CLIs
    /// found on, with their versions); none: the app's own, read at start.
    pub search_path: Option<std::ffi::OsString>,
    /// What bounds each connection to the engine's socket (and each paired
    /// browser's, carried over the web server).
    pub socket: SocketLimits,
    /// The UI's files the web server gives paired browsers (none: a build
    /// that carries none says so to a browser).
    pub web_assets: Option<WebAssets>,
    /// The user's other machines, which the web server reaches for the
    /// browsers (the daemon gives them; none: this machine's engine only).
    pub web_machines: Option<crate::beyond::Machines>,
    /// How wrong pairing codes slow every attempt after them.
    pub pairing_slowing: PairingSlowing,
    /// The wall clock days are judged by (the machine's; a test's own).
    pub clock: crate::clock::Clock,
    /// Automations' folders are polled, never watched by the system's file
    /// watches (as when those ran out): for tests and benches of that way.
    pub poll_folders: bool,
    /// Whether the user's login service runs this engine (clients say that
    /// automations fire only while the engine runs where none does).
    pub login_service: LoginService,
}

/// Whether the user's login service runs the engine: its service manager
/// started it, or its unit is enabled so that it starts at each login, and
/// on this engine's data folder (the unit is read each time, so an install
/// or uninstall counts at once).
#[derive(Debug, Clone, Default)]
pub struct LoginService {
    pub started_by_manager: bool,
    /// Where the service manager links the unit that starts it at login.
    pub enabled_link: Option<PathBuf>,
    /// What the unit's text says when it starts this engine (its data
    /// folder, as the unit writes it).
    pub unit_names: String,
}

/// The most of a unit's text read: far more than the one `daemon --install` writes.
const MAX_UNIT_BYTES: u64 = 64 * 1024;

impl LoginService {
    pub fn runs_engine(&self) -> bool {
        use std::io::Read;
        if self.started_by_manager {
            return true;
        }
        let Some(link) = &self.enabled_link else { return false };
        // The user's own unit, through its link: its first part only.
        let mut text = String::new();
        let read = std::fs::File::open(link).and_then(|file| file.take(MAX_UNIT_BYTES).read_to_string(&mut text));
        read.is_ok() && text.lines().any(|line| line.starts_with("ExecStart=") && line.contains(&self.unit_names))
    }
}

/// The file hooks spool events to while the app does not answer, in the
/// data directory; replayed in order at start.
pub const SPOOL_FILE: &str = "hook-spool.jsonl";

/// Where hooks spool events for the app on `data_dir`.
pub fn spool_path(data_dir: &Path) -> PathBuf {
    data_dir.join(SPOOL_FILE)
}

/// Default for [`EngineConfig::hooks_grace`].
pub const DEFAULT_HOOKS_GRACE: Duration = Duration::from_secs(15);

/// Default for [`EngineConfig::permission_wait`].
pub const DEFAULT_PERMISSION_WAIT: Duration = Duration::from_secs(60);

/// Default for [`EngineConfig::working_idle`].
pub const DEFAULT_WORKING_IDLE: Duration = Duration::from_secs(10 * 60);

/// Default cap on agents running at once, for delegations.
pub const DEFAULT_MAX_AGENTS: usize = 8;

impl EngineConfig {
    pub fn new(data_dir: PathBuf, runtime_dir: Option<PathBuf>) -> Self {
        let socket_path = socket_path(&data_dir, runtime_dir.as_deref());
        EngineConfig {
            data_dir,
            socket_path,
            scrollback_bytes: DEFAULT_SCROLLBACK_BYTES,
            screen_history_lines: DEFAULT_SCREEN_HISTORY_LINES,
            kill_grace: DEFAULT_KILL_GRACE,
            demo_agent: None,
            max_agents: DEFAULT_MAX_AGENTS,
            hook_binary: None,
            mcp_binary: None,
            keeper: None,
            working_idle: DEFAULT_WORKING_IDLE,
            permission_wait: DEFAULT_PERMISSION_WAIT,
            hooks_grace: DEFAULT_HOOKS_GRACE,
            search_path: None,
            socket: SocketLimits::default(),
            web_assets: None,
            web_machines: None,
            pairing_slowing: PairingSlowing::default(),
            clock: crate::clock::Clock::system(),
            poll_folders: false,
            login_service: LoginService::default(),
        }
    }

    pub fn database_path(&self) -> PathBuf {
        self.data_dir.join("switchboard.db")
    }
}

/// The folder of the data directory holding the log files.
pub const LOG_DIR: &str = "logs";

/// The folder of the data directory holding the certificate the engine makes
/// for serving browsers over HTTPS.
pub const WEB_DIR: &str = "web";

/// The folder of the data directory that event log exports are written to.
pub const EXPORTS_DIR: &str = "exports";

/// Where the data directory and the engine's socket are: the names the
/// engine and its clients agree on.
pub use switchboard_api::place::{RUN_DIR, fnv1a, resolve_data_dir, socket_path};

/// The UI's files, by their path in its build (`index.html`,
/// `assets/index-….js`). The app hands the engine those it carries.
#[derive(Clone)]
pub struct WebAssets(pub std::sync::Arc<ReadAsset>);

/// Reads one of the UI's files by its path in the build.
pub type ReadAsset = dyn Fn(&str) -> Option<std::borrow::Cow<'static, [u8]>> + Send + Sync;

impl std::fmt::Debug for WebAssets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("WebAssets")
    }
}

impl WebAssets {
    pub fn get(&self, path: &str) -> Option<std::borrow::Cow<'static, [u8]>> {
        (self.0)(path)
    }
}

/// How long a code attempt waits past the free wrong codes: at first, and
/// at most (doubling between). Every attempt waits its turn behind the one
/// before, so the waits add up for all callers together.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PairingSlowing {
    pub first: Duration,
    pub longest: Duration,
}

impl Default for PairingSlowing {
    fn default() -> Self {
        PairingSlowing { first: Duration::from_millis(250), longest: Duration::from_secs(4) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn socket_path_is_per_data_dir_and_fits_sun_path() {
        let a = socket_path(Path::new("/data/a"), Some(Path::new("/run/user/1000")));
        let b = socket_path(Path::new("/data/b"), Some(Path::new("/run/user/1000")));
        assert_ne!(a, b);
        assert!(a.starts_with("/run/user/1000/switchboard"));
        assert_eq!(a, socket_path(Path::new("/data/a"), Some(Path::new("/run/user/1000"))));
        assert!(a.as_os_str().len() <= MAX_SOCKET_PATH_BYTES);

        let fallback = socket_path(Path::new("/data/a"), None);
        assert!(fallback.starts_with("/data/a/run"));
    }
}
