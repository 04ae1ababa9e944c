//! One window per data directory (and per host window): a second launch
//! hands what it was asked to open to the window already there, which comes
//! forward, and exits.
//!
//! Decided through the data directory, not the desktop bus (which may be
//! absent): the first window holds an exclusive lock on a file there for as
//! long as it runs (the kernel drops it however the window ends) and listens
//! on a small socket of its own, named in a note beside the lock (see
//! `switchboard_client::locate::read_pointer`: the user's own file, no link), in a folder only
//! the user can enter. A launch that cannot take the lock sends the window
//! one line, [`Handoff`], and waits for its answer; the window answers only
//! a peer of the same user (`SO_PEERCRED`).

use std::fs::File;
use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use nix::fcntl::{Flock, FlockArg};
use serde::{Deserialize, Serialize};
use switchboard_api::OpenTarget;

/// What a second launch asks of the window already open.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Handoff {
    /// What to open (`--open`), as `task:ID`, `signal:ID` or `loop:ID`.
    pub open: Option<String>,
}

/// The window's answer: it came forward.
const ANSWER: &str = "ok";

/// The longest line either side reads: a handoff is a few dozen bytes.
const MAX_LINE_BYTES: u64 = 4096;

/// How long a handoff's connection may take to say its line or answer.
const LINE_DEADLINE: Duration = Duration::from_secs(5);

/// How long a second launch keeps trying to reach a window that holds the
/// lock but does not answer yet (it is starting: the lock is taken before
/// its socket listens).
const REACH_WAIT: Duration = Duration::from_secs(10);

/// How long a second launch waits between tries.
const REACH_RETRY: Duration = Duration::from_millis(100);

/// The window's lock and note of its socket in the data directory, and its
/// socket, for the window on this machine's engine (`host`: none) or on a
/// host's.
fn places(data_dir: &Path, runtime_dir: Option<&Path>, host: Option<&str>) -> (PathBuf, PathBuf, PathBuf) {
    let name = match host {
        None => "window".to_owned(),
        Some(host) => format!("window-{:016x}", switchboard_core::config::fnv1a(host.as_bytes())),
    };
    // Beside the engine's socket: a short path in a folder only the user enters.
    let engine = switchboard_core::config::socket_path(data_dir, runtime_dir);
    let key = switchboard_core::config::fnv1a(format!("{}\0{name}", data_dir.display()).as_bytes());
    let socket = engine.with_file_name(format!("window-{key:016x}.sock"));
    (data_dir.join(format!("{name}.lock")), data_dir.join(format!("{name}.socket")), socket)
}

/// What a launch of the window does.
pub enum Launch {
    /// No window runs on the data directory (for this host): this one is it.
    First(WindowClaim),
    /// The window already open took what this launch was to open, and came
    /// forward: this launch ends.
    HandedOff,
    /// A window holds the data directory but never answered (see [`UNANSWERED`]).
    Unanswered,
}

/// What a launch says when the window holding the data directory never answers.
pub const UNANSWERED: &str = "Switchboard's window is already open on this data directory but does not answer; close it (or end it) and open Switchboard again.";

/// Held by the one window: its lock, and its socket.
pub struct WindowClaim {
    _lock: Flock<File>,
    listener: UnixListener,
    socket: PathBuf,
}

impl Drop for WindowClaim {
    fn drop(&mut self) {
        if let Err(error) = std::fs::remove_file(&self.socket) {
            tracing::debug!(%error, "the window's socket was already gone");
        }
    }
}

/// What the next step of a launch is (pure): from whether it took the lock,
/// how its try to reach the window went, and how long it has tried.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Be the window.
    Run,
    /// The window took it: end.
    Done,
    /// The window does not answer yet: try again.
    Retry,
    /// The window holds the lock but never answered: say so and end.
    GiveUp,
}

pub fn next_step(took_lock: bool, reached: bool, tried_for: Duration) -> Step {
    match (took_lock, reached) {
        (true, _) => Step::Run,
        (false, true) => Step::Done,
        (false, false) if tried_for < REACH_WAIT => Step::Retry,
        (false, false) => Step::GiveUp,
    }
}

/// Takes the window's place on `data_dir` (for `host`), or hands `open` to
/// the window that has it. An error: the place cannot be taken (a data
/// directory that cannot be written); the window may still open, alone.
pub fn claim(
    data_dir: &Path,
    runtime_dir: Option<&Path>,
    host: Option<&str>,
    open: Option<&OpenTarget>,
) -> Result<Launch> {
    let (lock_path, pointer, socket) = places(data_dir, runtime_dir, host);
    switchboard_core::private::create_dir(data_dir).context("making the data directory")?;
    let started = Instant::now();
    loop {
        let file = switchboard_core::private::open(
            std::fs::OpenOptions::new().read(true).write(true).create(true).truncate(false),
            &lock_path,
        )
        .with_context(|| format!("opening {}", lock_path.display()))?;
        let lock = match Flock::lock(file, FlockArg::LockExclusiveNonblock) {
            Ok(lock) => Some(lock),
            Err((_, nix::errno::Errno::EWOULDBLOCK)) => None,
            Err((_, errno)) => return Err(errno).with_context(|| format!("locking {}", lock_path.display())),
        };
        let reached = lock.is_none() && hand_off(&pointer, open).is_ok();
        match next_step(lock.is_some(), reached, started.elapsed()) {
            Step::Run => {
                let lock = lock.expect("taken");
                let listener = listen(&socket)?;
                switchboard_core::instance::write_pointer(&pointer, &socket)
                    .with_context(|| format!("noting the window's socket in {}", pointer.display()))?;
                return Ok(Launch::First(WindowClaim { _lock: lock, listener, socket }));
            }
            Step::Done => return Ok(Launch::HandedOff),
            Step::Retry => std::thread::sleep(REACH_RETRY),
            Step::GiveUp => return Ok(Launch::Unanswered),
        }
    }
}

fn listen(socket: &Path) -> Result<UnixListener> {
    use std::os::unix::fs::PermissionsExt;
    let folder = socket.parent().context("the window's socket has a folder")?;
    switchboard_core::private::create_dir(folder).context("making the window socket's folder")?;
    switchboard_core::private::refuse_foreign([folder])
        .map_err(|_| anyhow::anyhow!("the folder {} belongs to another user", folder.display()))?;
    // Left by a window that died: the lock says none runs now.
    if let Err(error) = std::fs::remove_file(socket)
        && error.kind() != std::io::ErrorKind::NotFound
    {
        return Err(error).context("removing the window's old socket");
    }
    let listener = UnixListener::bind(socket).context("listening for a second launch")?;
    std::fs::set_permissions(socket, std::fs::Permissions::from_mode(0o600))
        .context("making the window's socket private")?;
    Ok(listener)
}

/// Sends `open` to the window whose socket the note at `pointer` names, and
/// waits for it to say it came forward.
fn hand_off(pointer: &Path, open: Option<&OpenTarget>) -> Result<()> {
    let socket = switchboard_client::locate::read_pointer(pointer).context("no note of the window's socket")?;
    let mut stream = UnixStream::connect(&socket).context("reaching the window")?;
    anyhow::ensure!(ours(&stream)?, "the window's socket is another user's");
    stream.set_read_timeout(Some(LINE_DEADLINE))?;
    stream.set_write_timeout(Some(LINE_DEADLINE))?;
    let handoff = Handoff { open: open.map(ToString::to_string) };
    writeln!(stream, "{}", serde_json::to_string(&handoff)?)?;
    let mut answer = String::new();
    BufReader::new(stream.take(MAX_LINE_BYTES)).read_line(&mut answer)?;
    anyhow::ensure!(answer.trim() == ANSWER, "the window did not take it");
    Ok(())
}

impl WindowClaim {
    /// Serves second launches on a thread of its own for as long as the
    /// window runs: each one's target (if any) is given to `arrived`, which
    /// brings the window forward.
    pub fn serve(self, arrived: impl Fn(Option<OpenTarget>) + Send + 'static) -> Result<()> {
        std::thread::Builder::new()
            .name("window-handoff".into())
            .spawn(move || {
                let claim = self;
                for stream in claim.listener.incoming() {
                    match stream.map_err(anyhow::Error::from).and_then(|stream| take(stream, &arrived)) {
                        Ok(()) => {}
                        Err(error) => tracing::warn!(error = %format!("{error:#}"), "a second launch was not taken"),
                    }
                }
            })
            .context("listening for a second launch")?;
        Ok(())
    }
}

/// Whether the other end of `stream` runs as this user.
fn ours(stream: &UnixStream) -> Result<bool> {
    let peer = nix::sys::socket::getsockopt(stream, nix::sys::socket::sockopt::PeerCredentials)
        .context("asking who is at the other end")?;
    Ok(peer.uid() == nix::unistd::getuid().as_raw())
}

/// Reads one second launch's line, hands its target on, answers.
fn take(mut stream: UnixStream, arrived: &impl Fn(Option<OpenTarget>)) -> Result<()> {
    anyhow::ensure!(ours(&stream)?, "a launch by another user");
    stream.set_read_timeout(Some(LINE_DEADLINE))?;
    stream.set_write_timeout(Some(LINE_DEADLINE))?;
    let mut line = String::new();
    BufReader::new((&mut stream).take(MAX_LINE_BYTES)).read_line(&mut line)?;
    let handoff: Handoff = serde_json::from_str(line.trim()).context("reading a second launch")?;
    let open = handoff.open.as_deref().map(str::parse::<OpenTarget>).transpose()?;
    arrived(open);
    writeln!(stream, "{ANSWER}")?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_launch_is_the_window_or_hands_over_to_it() {
        let (soon, late) = (Duration::from_millis(300), REACH_WAIT);
        // (took the lock, reached the window, tried for) -> step
        let cases = [
            (true, false, soon, Step::Run),
            (false, true, soon, Step::Done),
            (false, true, late, Step::Done),
            // The window is starting: its lock is taken, its socket not yet there.
            (false, false, soon, Step::Retry),
            (false, false, late, Step::GiveUp),
        ];
        for (took, reached, tried, expected) in cases {
            assert_eq!(next_step(took, reached, tried), expected, "{took} {reached} {tried:?}");
        }
    }

    #[test]
    fn a_second_launch_hands_its_target_to_the_first_and_a_host_window_is_apart() {
        let dir = tempfile::tempdir().unwrap();
        let runtime = dir.path().join("run");
        let data = dir.path().join("data");
        let Launch::First(first) = claim(&data, Some(&runtime), None, None).unwrap() else { panic!("the first") };
        let (tell, told) = std::sync::mpsc::channel();
        first.serve(move |open| tell.send(open).unwrap()).unwrap();
        let task: OpenTarget = "task:3f2b8c1e-4d5a-4b6c-8d7e-9f0a1b2c3d4e".parse().unwrap();
        assert!(matches!(claim(&data, Some(&runtime), None, Some(&task)).unwrap(), Launch::HandedOff));
        assert_eq!(told.recv_timeout(LINE_DEADLINE).unwrap(), Some(task));
        assert!(matches!(claim(&data, Some(&runtime), None, None).unwrap(), Launch::HandedOff));
        assert_eq!(told.recv_timeout(LINE_DEADLINE).unwrap(), None);
        // Another environment (no runtime folder) finds the same window through the note.
        assert!(matches!(claim(&data, None, None, None).unwrap(), Launch::HandedOff));
        // A host's window is a window of its own.
        assert!(matches!(claim(&data, Some(&runtime), Some("build-box"), None).unwrap(), Launch::First(_)));
    }
}
