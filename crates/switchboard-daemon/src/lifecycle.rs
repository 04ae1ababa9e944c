//! `switchboard daemon`: the engine alone on a data directory, with no window
//! (store, socket, agents' terminals, watchers, queues, loops, timers, and
//! the desktop notifications while no window is open: `crate::notices`), until
//! it is asked to stop (`daemon --stop`, or SIGTERM / SIGINT: its agents are
//! stopped and recorded as killed, as when the app quits). A closed terminal
//! (SIGHUP) does not stop it. `daemon --status` says whether an engine runs
//! on the data directory. The command line's other commands reach it over
//! its socket as they reach the app's.

use std::ffi::{OsStr, OsString};
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use switchboard_cli::{EXIT_FAILED, EXIT_NOT_ANSWERING, EXIT_NOT_RUNNING};
use switchboard_client::blocking as client;
use switchboard_client::locate::Holder;
pub use switchboard_client::status::DaemonStatus;
use switchboard_client::status::status_line;
use switchboard_core::{Engine, EngineConfig, Millis, NoEvents};
use tokio::signal::unix::{SignalKind, signal};

/// How long `--stop` waits for the engine to stop its agents and exit.
const STOP_WAIT: Duration = Duration::from_secs(60);

/// What a daemon tells whoever started it, as one JSON line on its standard
/// output: that it answers on its socket, or why it could not start.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum Started {
    Ready { pid: u32 },
    Failed { problem: Option<switchboard_api::StorageProblem>, message: String },
}

/// Runs the engine until SIGTERM or SIGINT, then stops its agents. Once the
/// engine answers (or cannot start) it says so on standard output (see
/// [`Started`]), then lets go of it: whoever started it may be gone.
pub fn run(config: EngineConfig, pages: Option<crate::beyond::Pages>) -> Result<ExitCode> {
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().context("starting the runtime")?;
    runtime.block_on(async move {
        // Listening starts before the engine does: a stop that comes while it
        // starts is not lost.
        let mut terminate = signal(SignalKind::terminate()).context("listening for SIGTERM")?;
        let mut interrupt = signal(SignalKind::interrupt()).context("listening for SIGINT")?;
        let mut hangup = signal(SignalKind::hangup()).context("listening for SIGHUP")?;
        let data_dir = config.data_dir.clone();
        // A window the daemon opens makes no demo agent if the daemon makes none.
        let no_demo = config.demo_agent.is_none();
        let engine = match Engine::start(config, Arc::new(NoEvents)).await {
            Ok(engine) => engine,
            Err(error) => {
                let problem = error.startup_problem(&data_dir);
                report(&Started::Failed { problem, message: error.to_string() });
                return Err(error.into());
            }
        };
        // This engine runs: a window that loses it from now on was not told it was stopped.
        match std::fs::remove_file(data_dir.join(STOPPED_FILE)) {
            Ok(()) => {}
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
            Err(error) => tracing::warn!(%error, "could not clear the note that the engine was stopped"),
        }
        report(&Started::Ready { pid: std::process::id() });
        // While no window follows the engine, the daemon shows the notifications.
        crate::notices::spawn(&engine, data_dir.clone(), no_demo, pages);
        tracing::info!(data_dir = %data_dir.display(), "the engine runs as a daemon");
        loop {
            tokio::select! {
                _ = terminate.recv() => break,
                _ = interrupt.recv() => break,
                // The terminal it was started from closed: agents go on.
                _ = hangup.recv() => tracing::info!("the terminal closed; the daemon goes on"),
            }
        }
        tracing::info!("the daemon stops its agents and exits");
        // Noted before the connections close, so a window that loses the engine knows it was asked to stop.
        if let Err(error) = switchboard_core::private::write(&data_dir.join(STOPPED_FILE), "stopped on request\n") {
            tracing::warn!(%error, "could not note that the engine was stopped on request");
        }
        engine.shutdown().await;
        Ok(ExitCode::SUCCESS)
    })
}

/// The file a daemon leaves in its data directory when it is asked to stop
/// (SIGTERM or SIGINT: `daemon --stop`, a window's restart, the tray's quit,
/// a service manager, Ctrl+C), removed when an engine starts there. An engine
/// that died (killed, crashed) leaves none, and an open window starts it
/// again ([`after_loss`]).
pub const STOPPED_FILE: &str = "engine-stopped";

/// Whether the engine last on `data_dir` was asked to stop (see [`STOPPED_FILE`]).
pub fn stopped_on_request(data_dir: &Path) -> bool {
    data_dir.join(STOPPED_FILE).exists()
}

/// How long a window waits before it starts again an engine that died: long
/// enough for a crash's process to be gone and its lock released.
pub const RESTART_PAUSE: Duration = Duration::from_secs(2);
/// How many times a window starts a dead engine again within
/// [`RESTART_SPAN`] before it leaves it to the user: an engine that dies as
/// it starts is not started forever.
pub const MOST_RESTARTS: usize = 3;
pub const RESTART_SPAN: Duration = Duration::from_secs(10 * 60);

/// What a window does when this machine's engine is gone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AfterLoss {
    /// It was asked to stop: the window waits for the user's **Start the engine**.
    LeaveStopped,
    /// It died: the window starts it again after this pause.
    StartAgainIn(Duration),
    /// It died again and again lately: the window leaves it to the user.
    GiveUp,
}

/// What a window does when its engine is gone: `stopped_on_request` (see
/// [`stopped_on_request`]), `restarts` the times this window started a dead
/// engine again.
pub fn after_loss(stopped_on_request: bool, restarts: &[Instant], now: Instant) -> AfterLoss {
    if stopped_on_request {
        return AfterLoss::LeaveStopped;
    }
    let lately = restarts.iter().filter(|at| now.saturating_duration_since(**at) < RESTART_SPAN).count();
    if lately >= MOST_RESTARTS { AfterLoss::GiveUp } else { AfterLoss::StartAgainIn(RESTART_PAUSE) }
}

/// Says how the start went on standard output, then points standard output
/// at nothing: a pipe whose reader went away must never trouble the engine.
fn report(started: &Started) {
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "{}", serde_json::to_string(started).expect("always serializes")).ok();
    stdout.flush().ok();
    if let Ok(null) = std::fs::OpenOptions::new().write(true).open("/dev/null") {
        nix::unistd::dup2_stdout(null).ok();
    }
}

/// How long a daemon being started has to say it runs (recovery after a
/// crash and a long hook spool can take a while).
pub const LAUNCH_WAIT: Duration = Duration::from_secs(60);

/// The environment a daemon starts in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Environment {
    /// The starter's own (a command line's, a window's), less what a
    /// window's shell sets for its web view.
    Starter,
    /// These variables only (the engine's that a restart replaces), less
    /// the same.
    Exactly(Vec<(OsString, OsString)>),
}

/// Starts `switchboard daemon` on `data_dir` (this very program) in the
/// starter's environment: see [`launch_with`].
pub fn launch(data_dir: &Path, no_demo: bool) -> Result<Started> {
    let exe = std::env::current_exe().context("locating the app binary")?;
    launch_with(&exe, data_dir, no_demo, &Environment::Starter)
}

/// Starts `program daemon` on `data_dir` so that it outlives whoever
/// started it: a session of its own (no terminal, no process group of the
/// starter's), standard input from nothing, its own log in the data
/// directory (`logs/daemon-output.log` has what the log cannot: a panic's
/// message), in `environment` without a window's own variables
/// (`session::environment::window_only`): the engine and its agents get
/// the user's session's, not the window's. Returns once it says it runs or
/// why not.
pub fn launch_with(program: &Path, data_dir: &Path, no_demo: bool, environment: &Environment) -> Result<Started> {
    use std::io::BufRead;
    use std::os::unix::process::CommandExt;
    use switchboard_core::session::environment::window_only;
    let mut command = std::process::Command::new(program);
    match environment {
        Environment::Starter => {
            for (name, _) in std::env::vars_os().filter(|(name, _)| window_only(name)) {
                command.env_remove(name);
            }
        }
        Environment::Exactly(variables) => {
            command.env_clear().envs(variables.iter().filter(|(name, _)| !window_only(name)).cloned());
        }
    }
    command.arg("--data-dir").arg(data_dir);
    if no_demo {
        command.arg("--no-demo");
    }
    command.arg("daemon");
    let output = data_dir.join("logs").join("daemon-output.log");
    let stderr = switchboard_core::private::create_dir(output.parent().expect("a file in a folder"))
        .map_err(std::io::Error::other)
        .and_then(|()| {
            use std::os::unix::fs::OpenOptionsExt;
            std::fs::OpenOptions::new().create(true).append(true).mode(0o600).open(&output)
        })
        .map(std::process::Stdio::from)
        .unwrap_or_else(|_| std::process::Stdio::null());
    command.stdin(std::process::Stdio::null()).stdout(std::process::Stdio::piped()).stderr(stderr);
    // SAFETY: `setsid` is async-signal-safe and touches no memory of the parent's.
    unsafe {
        command.pre_exec(|| nix::unistd::setsid().map(|_| ()).map_err(std::io::Error::from));
    }
    let mut child = command.spawn().context("starting the engine")?;
    let stdout = child.stdout.take().expect("piped");
    // Its first line says how the start went; read on a thread of its own so
    // the wait can end.
    let (said, heard) = std::sync::mpsc::channel();
    std::thread::Builder::new()
        .name("engine-start".into())
        .spawn(move || {
            let mut line = String::new();
            std::io::BufReader::new(stdout).read_line(&mut line).ok();
            said.send(line).ok();
            // Reaped when it ends, whenever that is: no zombie under this process.
            child.wait().ok();
        })
        .context("waiting for the engine to start")?;
    let line = heard.recv_timeout(LAUNCH_WAIT).map_err(|_| {
        anyhow::anyhow!("the engine did not say it runs within {}s; see {}", LAUNCH_WAIT.as_secs(), output.display())
    })?;
    if line.trim().is_empty() {
        anyhow::bail!("the engine exited as it started; see {}", output.display());
    }
    serde_json::from_str(line.trim()).with_context(|| format!("the engine said {line:?} as it started"))
}

/// `daemon --stdio`: carries a connection to the engine on `socket` over
/// standard input and output, starting the daemon (in a session of its own,
/// so it outlives whoever asked: an SSH session) when none answers. What
/// another machine runs over SSH to reach this one's engine; it ends when
/// either side closes. Nothing but the engine's bytes goes to standard
/// output. A daemon it starts makes no demo agent: the demo is for a
/// person's first run of the app on their own machine.
pub fn stdio(data_dir: &Path, socket: &Path) -> Result<ExitCode> {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().context("starting the runtime")?;
    runtime.block_on(async move {
        let stream = match tokio::net::UnixStream::connect(socket).await {
            Ok(stream) => stream,
            Err(_) => {
                match launch(data_dir, true)? {
                    Started::Ready { .. } => {}
                    Started::Failed { message, .. } => anyhow::bail!("the engine could not start: {message}"),
                }
                tokio::net::UnixStream::connect(socket).await.context("reaching the engine it started")?
            }
        };
        switchboard_client::served_by_us(&stream, socket)?;
        let (mut from_engine, mut to_engine) = stream.into_split();
        let (mut input, mut output) = (tokio::io::stdin(), tokio::io::stdout());
        let upstream = async {
            tokio::io::copy(&mut input, &mut to_engine).await?;
            // The far side is done sending: the engine hears the end.
            tokio::io::AsyncWriteExt::shutdown(&mut to_engine).await
        };
        let downstream = async {
            tokio::io::copy(&mut from_engine, &mut output).await?;
            tokio::io::AsyncWriteExt::flush(&mut output).await
        };
        // Either side's end ends the connection.
        tokio::select! {
            result = upstream => result.context("reading from the connection")?,
            result = downstream => result.context("writing to the connection")?,
        }
        Ok(ExitCode::SUCCESS)
    })
}

/// What a client finds of the engine of a data directory. One function
/// ([`find`], deciding by [`decide`]) answers `--status`, `--stop` and
/// `daemon` alike, so they never say different things.
#[derive(Debug, Clone, PartialEq)]
pub enum Found {
    /// An engine holds the directory and answers on its socket.
    Answering(switchboard_api::wire::HelloAck),
    /// An engine holds the directory but does not answer (it is starting,
    /// or its socket is being made again); by the process the lock names.
    Silent { pid: Option<u32> },
    /// No engine runs on the directory.
    None,
}

/// What was found, from who holds the directory's lock and what answered on
/// its socket (pure). An answer from another process than the lock's
/// holder is another engine's: not this directory's.
pub fn decide(holder: Holder, answered: Option<switchboard_api::wire::HelloAck>) -> Found {
    match (holder, answered) {
        (Holder::Held { pid: Some(pid) }, Some(welcome)) if welcome.pid != pid => Found::Silent { pid: Some(pid) },
        // Free: an engine of an older build, which only took a lock that cannot be tested.
        (_, Some(welcome)) => Found::Answering(welcome),
        (Holder::Held { pid }, None) => Found::Silent { pid },
        (Holder::Free, None) => Found::None,
    }
}

/// The engine of `data_dir`, reached on `socket` (where `switchboard_cli::socket_for` found it).
pub fn find(data_dir: &Path, socket: &Path) -> Found {
    let holder = switchboard_client::locate::holder(data_dir);
    decide(holder, client::Client::new(socket).welcome().ok())
}

/// Whether an engine runs on the data directory, and what it says of itself.
pub fn status(data_dir: &Path, socket: &Path) -> DaemonStatus {
    status_of(&find(data_dir, socket))
}

fn status_of(found: &Found) -> DaemonStatus {
    let none = DaemonStatus::not_running();
    match found {
        Found::None => none,
        Found::Silent { pid } => DaemonStatus { running: true, pid: *pid, ..none },
        Found::Answering(welcome) => {
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_millis() as Millis);
            DaemonStatus {
                running: true,
                answering: true,
                pid: Some(welcome.pid),
                version: Some(welcome.engine_version.clone()),
                uptime_secs: Some((now.saturating_sub(welcome.started_at) / 1000).max(0) as u64),
                agents: Some(welcome.agents_running as usize),
                same_build: Some(welcome.build_id == switchboard_api::wire::build_id()),
                build: Some(welcome.build_id.clone()),
                starts_at_login: Some(welcome.starts_at_login),
            }
        }
    }
}

/// `daemon --status`: prints whether an engine runs; exit status 3 when none
/// does, 5 when one runs but does not answer.
pub fn print_status(data_dir: &Path, socket: &Path, json: bool, out: &mut impl Write) -> Result<ExitCode> {
    let status = status(data_dir, socket);
    if json {
        writeln!(out, "{}", serde_json::to_string_pretty(&status)?)?;
    } else {
        writeln!(out, "{}", status_line(&data_dir.display().to_string(), &status))?;
    }
    Ok(exit_of(&status))
}

fn exit_of(status: &DaemonStatus) -> ExitCode {
    match (status.running, status.answering) {
        (true, true) => ExitCode::SUCCESS,
        (true, false) => ExitCode::from(EXIT_NOT_ANSWERING),
        (false, _) => ExitCode::from(EXIT_NOT_RUNNING),
    }
}

/// `daemon` when an engine already runs on the data directory: says why it
/// does not start, in the words of `--status`, as the one line a daemon says
/// ([`Started::Failed`], which whoever launched it reads), with exit status
/// 1; none: the engine may start.
pub fn already_running(data_dir: &Path, socket: &Path, out: &mut impl Write) -> Result<Option<ExitCode>> {
    let status = status(data_dir, socket);
    if !status.running {
        return Ok(None);
    }
    // Why it does not start, without what the status adds of logins.
    let said = DaemonStatus { starts_at_login: None, ..status };
    let refused = Started::Failed { problem: None, message: status_line(&data_dir.display().to_string(), &said) };
    writeln!(out, "{}", serde_json::to_string(&refused)?)?;
    Ok(Some(ExitCode::from(EXIT_FAILED)))
}

/// `daemon --stop`: asks the engine on the data directory to stop its agents
/// and exit (SIGTERM, as a service manager would), and waits until it has.
pub fn stop(data_dir: &Path, socket: &Path, out: &mut impl Write) -> Result<ExitCode> {
    let status = status(data_dir, socket);
    if !status.running {
        writeln!(out, "{}", status_line(&data_dir.display().to_string(), &status))?;
        return Ok(ExitCode::from(EXIT_NOT_RUNNING));
    }
    let pid = status.pid.context("the engine runs but its lock names no process")?;
    let pid = nix::unistd::Pid::from_raw(i32::try_from(pid).context("the lock names no process")?);
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGTERM).context("asking the engine to stop")?;
    let deadline = Instant::now() + STOP_WAIT;
    // Stopped once nothing answers and its process is gone.
    while self::status(data_dir, socket).running || alive(pid.as_raw()) {
        if Instant::now() > deadline {
            anyhow::bail!(
                "the engine did not stop within {}s; it may still be stopping its agents",
                STOP_WAIT.as_secs()
            );
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let agents = status.agents.unwrap_or(0);
    let stopped = match agents {
        0 => "no agent was running".to_owned(),
        1 => "its agent stopped".to_owned(),
        n => format!("its {n} agents stopped"),
    };
    writeln!(out, "The engine on {} stopped; {stopped}.", data_dir.display())?;
    Ok(ExitCode::SUCCESS)
}

/// The most of an engine's environment read for its restart: far more than
/// any session's (the kernel caps a program's arguments and environment
/// together at a quarter of its stack limit, 2 MiB by default).
const MAX_ENVIRONMENT_BYTES: u64 = 4 << 20;

/// The environment the process `pid` was started with (`/proc/PID/environ`:
/// NUL-separated `NAME=value`); none when it cannot be read.
fn environment_of(pid: u32) -> Option<Vec<(OsString, OsString)>> {
    use std::io::Read;
    use std::os::unix::ffi::OsStrExt;
    let mut bytes = Vec::new();
    let file = std::fs::File::open(format!("/proc/{pid}/environ")).ok()?;
    file.take(MAX_ENVIRONMENT_BYTES).read_to_end(&mut bytes).ok()?;
    Some(
        parse_environ(&bytes)
            .map(|(name, value)| (OsStr::from_bytes(name).into(), OsStr::from_bytes(value).into()))
            .collect(),
    )
}

/// The `NAME=value` entries of an environ block (entries without a name or
/// an `=` are not variables, and are left out).
fn parse_environ(bytes: &[u8]) -> impl Iterator<Item = (&[u8], &[u8])> {
    bytes.split(|b| *b == 0).filter_map(|entry| {
        let at = entry.iter().position(|b| *b == b'=')?;
        (at > 0).then(|| (&entry[..at], &entry[at + 1..]))
    })
}

/// Stops the engine on the data directory and starts `program`'s in its
/// place, in the environment the stopped engine had (its `PATH`, where its
/// agents' commands were found), not the restarter's (a window's). With no
/// engine running, it starts one in the restarter's environment. What the
/// window's "Restart the engine" does.
pub fn restart(program: &Path, data_dir: &Path, socket: &Path, no_demo: bool) -> Result<Started> {
    let running = status(data_dir, socket);
    let environment = match running.pid.and_then(environment_of) {
        Some(variables) => Environment::Exactly(variables),
        None => Environment::Starter,
    };
    if running.running {
        let stopped = stop(data_dir, socket, &mut std::io::sink())?;
        if stopped != ExitCode::SUCCESS {
            tracing::info!("the engine had stopped already; starting this build's");
        }
    }
    launch_with(program, data_dir, no_demo, &environment)
}

/// Whether the process runs: there, and not a zombie its parent has yet to
/// reap (it has exited, its lock released, its agents stopped).
fn alive(pid: i32) -> bool {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else { return false };
    // The state follows the command's name, which is in parentheses and may hold any byte.
    let state = stat.rsplit_once(')').and_then(|(_, rest)| rest.trim_start().chars().next());
    !matches!(state, Some('Z' | 'X') | None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dead_engine_is_started_again_a_few_times_a_stopped_one_never() {
        let now = Instant::now();
        let ago = |secs| now - Duration::from_secs(secs);
        let cases: [(bool, Vec<Instant>, AfterLoss); 6] = [
            (true, vec![], AfterLoss::LeaveStopped),
            (true, vec![ago(5), ago(10), ago(20)], AfterLoss::LeaveStopped),
            (false, vec![], AfterLoss::StartAgainIn(RESTART_PAUSE)),
            (false, vec![ago(5), ago(60)], AfterLoss::StartAgainIn(RESTART_PAUSE)),
            (false, vec![ago(5), ago(60), ago(120)], AfterLoss::GiveUp),
            // Restarts long past do not count.
            (false, vec![ago(5), ago(60), ago(RESTART_SPAN.as_secs() + 1)], AfterLoss::StartAgainIn(RESTART_PAUSE)),
        ];
        for (stopped, restarts, expected) in cases {
            assert_eq!(
                after_loss(stopped, &restarts, now),
                expected,
                "stopped: {stopped}, restarts: {}",
                restarts.len()
            );
        }
    }

    #[test]
    fn a_process_is_alive_until_it_exits_reaped_or_not() {
        assert!(alive(std::process::id() as i32));
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id() as i32;
        // Exited, not yet reaped: a zombie, gone for `--stop`.
        while std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| !s.contains(") Z")) {
            std::thread::yield_now();
        }
        assert!(!alive(pid));
        child.wait().unwrap();
        assert!(!alive(pid));
    }

    #[test]
    fn an_environ_block_reads_as_its_variables() {
        let block = b"PATH=/opt/claude/bin:/usr/bin\0EMPTY=\0EQ=a=b\0=nameless\0noequals\0\0";
        let read: Vec<(&[u8], &[u8])> = parse_environ(block).collect();
        let expected: [(&[u8], &[u8]); 3] = [(b"PATH", b"/opt/claude/bin:/usr/bin"), (b"EMPTY", b""), (b"EQ", b"a=b")];
        assert_eq!(read, expected);
        let mine = environment_of(std::process::id()).expect("this process's own environment");
        let path = mine.iter().find(|(name, _)| name == "PATH").map(|(_, value)| value.clone());
        assert_eq!(path, std::env::var_os("PATH"), "{mine:?}");
    }

    #[test]
    fn status_stop_and_start_decide_alike_from_the_lock_and_the_answer() {
        let welcome = |pid| switchboard_api::wire::HelloAck {
            protocol: switchboard_api::wire::PROTOCOL,
            engine_version: "0.2.0".into(),
            build_id: String::new(),
            capabilities: Vec::new(),
            instance_id: String::new(),
            pid,
            started_at: 0,
            agents_running: 0,
            starts_at_login: false,
        };
        let held = |pid| Holder::Held { pid };
        // (lock, answer on the socket) -> found, exit status of --status, does `daemon` refuse?
        let cases = [
            (Holder::Free, None, Found::None, EXIT_NOT_RUNNING, false),
            (held(Some(7)), Some(welcome(7)), Found::Answering(welcome(7)), 0, true),
            (held(None), Some(welcome(7)), Found::Answering(welcome(7)), 0, true),
            // Starting, or its socket removed under it: it runs, and says nothing yet.
            (held(Some(7)), None, Found::Silent { pid: Some(7) }, EXIT_NOT_ANSWERING, true),
            // Another engine answers where this directory's would: not this one's.
            (held(Some(7)), Some(welcome(9)), Found::Silent { pid: Some(7) }, EXIT_NOT_ANSWERING, true),
            // An engine of an older build, whose lock cannot be looked at.
            (Holder::Free, Some(welcome(9)), Found::Answering(welcome(9)), 0, true),
        ];
        for (holder, answered, expected, exit, refuses_start) in cases {
            let found = decide(holder, answered.clone());
            assert_eq!(found, expected, "{holder:?} {answered:?}");
            let status = status_of(&found);
            assert_eq!(exit_of(&status), ExitCode::from(exit), "{found:?}");
            assert_eq!(status.running, refuses_start, "{found:?}");
        }
    }
}
