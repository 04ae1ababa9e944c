//! One engine per data directory. A second instance on the same data would
//! take the first one's running sessions for leftovers of a crash and end
//! them, so the engine holds an exclusive lock on a file in the data
//! directory for as long as it runs. The kernel drops the lock when the
//! process dies, however it dies, so a crash never leaves it stuck.
//!
//! A client finds the engine of a data directory from the directory alone,
//! whatever its environment (another `XDG_RUNTIME_DIR` under ssh, su, cron):
//! the lock tells whether an engine holds the directory ([`holder`], which
//! looks without taking it), and a file beside it names the socket the
//! engine listens on ([`SOCKET_POINTER`]).

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};

use nix::errno::Errno;
use nix::fcntl::{Flock, FlockArg};

use crate::error::EngineError;

pub const LOCK_FILE: &str = "switchboard.lock";

/// The file in the data directory that names the engine's socket (its path,
/// as text), written by the engine once it listens.
pub const SOCKET_POINTER: &str = "engine.socket";

/// The longest socket pointer read: a socket's path is far shorter.
const MAX_POINTER_BYTES: u64 = 4096;

/// Held while the engine runs; dropping it releases the data directory.
#[derive(Debug)]
pub struct InstanceLock {
    _lock: Flock<File>,
}

impl InstanceLock {
    pub fn acquire(data_dir: &Path) -> Result<InstanceLock, EngineError> {
        crate::private::create_dir(data_dir)
            .map_err(|e| EngineError::io(format!("creating the data directory {}", data_dir.display()), e))?;
        let path = data_dir.join(LOCK_FILE);
        let file = crate::private::open(OpenOptions::new().read(true).write(true).create(true).truncate(false), &path)
            .map_err(|e| EngineError::io(format!("opening {}", path.display()), e))?;
        let mut lock = match Flock::lock(file, FlockArg::LockExclusiveNonblock) {
            Ok(lock) => lock,
            Err((mut file, Errno::EWOULDBLOCK)) => {
                let mut holder = String::new();
                file.read_to_string(&mut holder).ok();
                return Err(EngineError::AlreadyRunning {
                    data_dir: data_dir.to_path_buf(),
                    pid: holder.trim().parse().ok(),
                });
            }
            Err((_, errno)) => {
                return Err(EngineError::io(format!("locking {}", path.display()), errno.into()));
            }
        };
        // An open file description's lock on the same file, which a client can
        // test without taking it (a flock cannot be tested): see [`holder`].
        if let Err(error) = ofd_lock(&lock, libc::F_OFD_SETLK) {
            tracing::warn!(%error, "clients in another environment may not find this engine");
        }
        // Note who holds it, for the message a second instance shows.
        let noted = lock
            .set_len(0)
            .and_then(|()| lock.rewind())
            .and_then(|()| writeln!(lock, "{}", std::process::id()))
            .and_then(|()| lock.flush());
        if let Err(error) = noted {
            tracing::warn!(%error, "could not note the pid in the instance lock");
        }
        Ok(InstanceLock { _lock: lock })
    }
}

/// Whether an engine holds a data directory now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Holder {
    Free,
    /// Held; by the process the lock file names, if it names one.
    Held {
        pid: Option<u32>,
    },
}

/// Who holds the data directory's lock, looked at without taking it (taking
/// it, even for a moment, could make an engine starting then give up).
pub fn holder(data_dir: &Path) -> Holder {
    use std::os::unix::fs::OpenOptionsExt;
    let path = data_dir.join(LOCK_FILE);
    let Ok(mut file) = OpenOptions::new().read(true).custom_flags(libc::O_NOFOLLOW).open(&path) else {
        return Holder::Free;
    };
    match ofd_lock(&file, libc::F_OFD_GETLK) {
        Ok(libc::F_UNLCK) => Holder::Free,
        Ok(_) => {
            let mut noted = String::new();
            if let Err(error) = (&mut file).take(64).read_to_string(&mut noted) {
                tracing::debug!(%error, "the instance lock could not be read");
            }
            Holder::Held { pid: noted.trim().parse().ok() }
        }
        Err(error) => {
            tracing::debug!(%error, "the instance lock could not be tested");
            Holder::Free
        }
    }
}

/// Sets (`F_OFD_SETLK`) or tests (`F_OFD_GETLK`) a write lock over the
/// whole file; the lock type found (`F_UNLCK`: none) or set.
fn ofd_lock(file: &File, command: libc::c_int) -> std::io::Result<libc::c_int> {
    use std::os::fd::AsRawFd;
    // SAFETY: a zeroed flock is valid; the fields that matter are set below.
    let mut lock: libc::flock = unsafe { std::mem::zeroed() };
    lock.l_type = libc::F_WRLCK as libc::c_short;
    lock.l_whence = libc::SEEK_SET as libc::c_short;
    // SAFETY: fcntl with an open descriptor and a valid flock pointer.
    if unsafe { libc::fcntl(file.as_raw_fd(), command, &mut lock) } == -1 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(libc::c_int::from(lock.l_type))
}

/// Notes where the engine listens, for clients whose environment would
/// place the socket elsewhere.
pub fn point_to_socket(data_dir: &Path, socket: &Path) -> std::io::Result<()> {
    write_pointer(&data_dir.join(SOCKET_POINTER), socket)
}

/// The socket the engine of `data_dir` noted, if the note is there, a file
/// of the user's own (not a link), and names an absolute path.
pub fn pointed_socket(data_dir: &Path) -> Option<PathBuf> {
    read_pointer(&data_dir.join(SOCKET_POINTER))
}

/// Notes the socket `socket` in the private file `pointer`.
pub fn write_pointer(pointer: &Path, socket: &Path) -> std::io::Result<()> {
    crate::private::write(pointer, socket.as_os_str().as_encoded_bytes())
}

/// The socket a note at `pointer` names, if it is a file of the user's own
/// (not a link) naming an absolute path.
pub fn read_pointer(pointer: &Path) -> Option<PathBuf> {
    use std::os::unix::ffi::OsStringExt;
    use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
    let file = OpenOptions::new().read(true).custom_flags(libc::O_NOFOLLOW).open(pointer).ok()?;
    let meta = file.metadata().ok()?;
    crate::private::owned(pointer, meta.uid(), nix::unistd::getuid().as_raw()).ok()?;
    if !meta.is_file() {
        return None;
    }
    let mut bytes = Vec::new();
    file.take(MAX_POINTER_BYTES).read_to_end(&mut bytes).ok()?;
    let socket = PathBuf::from(std::ffi::OsString::from_vec(bytes));
    socket.is_absolute().then_some(socket)
}

/// The socket a client of `data_dir` speaks to: the one its engine noted
/// while an engine holds the directory, else the one an engine started from
/// this environment (`runtime_dir`) would listen on.
pub fn socket_of(data_dir: &Path, runtime_dir: Option<&Path>) -> PathBuf {
    match holder(data_dir) {
        Holder::Held { .. } => pointed_socket(data_dir),
        Holder::Free => None,
    }
    .unwrap_or_else(|| crate::config::socket_path(data_dir, runtime_dir))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_lock_on_the_same_directory_is_refused_until_the_first_is_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let first = InstanceLock::acquire(dir.path()).unwrap();
        match InstanceLock::acquire(dir.path()) {
            Err(EngineError::AlreadyRunning { pid, .. }) => assert_eq!(pid, Some(std::process::id())),
            other => panic!("expected AlreadyRunning, got {other:?}"),
        }
        drop(first);
        InstanceLock::acquire(dir.path()).unwrap();
    }

    #[test]
    fn the_holder_is_seen_without_taking_the_lock() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(holder(dir.path()), Holder::Free);
        let first = InstanceLock::acquire(dir.path()).unwrap();
        assert_eq!(holder(dir.path()), Holder::Held { pid: Some(std::process::id()) });
        // Looking took nothing: the lock is still the engine's alone.
        assert_eq!(holder(dir.path()), Holder::Held { pid: Some(std::process::id()) });
        drop(first);
        assert_eq!(holder(dir.path()), Holder::Free);
    }

    #[test]
    fn the_socket_noted_is_found_only_while_an_engine_holds_the_directory() {
        let dir = tempfile::tempdir().unwrap();
        let elsewhere = Path::new("/run/user/1000/switchboard/engine-1.sock");
        point_to_socket(dir.path(), elsewhere).unwrap();
        let computed = crate::config::socket_path(dir.path(), None);
        // No engine: where one started from here would listen.
        assert_eq!(socket_of(dir.path(), None), computed);
        let lock = InstanceLock::acquire(dir.path()).unwrap();
        assert_eq!(socket_of(dir.path(), None), elsewhere);
        // A note that is a link, or names no absolute path, is not believed.
        std::fs::remove_file(dir.path().join(SOCKET_POINTER)).unwrap();
        std::fs::write(dir.path().join("planted"), elsewhere.as_os_str().as_encoded_bytes()).unwrap();
        std::os::unix::fs::symlink(dir.path().join("planted"), dir.path().join(SOCKET_POINTER)).unwrap();
        assert_eq!(socket_of(dir.path(), None), computed);
        std::fs::remove_file(dir.path().join(SOCKET_POINTER)).unwrap();
        std::fs::write(dir.path().join(SOCKET_POINTER), "engine.sock").unwrap();
        assert_eq!(socket_of(dir.path(), None), computed);
        drop(lock);
    }
}
