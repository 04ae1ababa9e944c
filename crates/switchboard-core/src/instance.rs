//! One engine per data directory. A second instance on the same data would
//! take the first one's running sessions for leftovers of a crash and end
//! them, so the engine holds an exclusive lock on a file in the data
//! directory for as long as it runs. The kernel drops the lock when the
//! process dies, however it dies, so a crash never leaves it stuck.
//!
//! A client finds the engine of a data directory from the directory alone,
//! whatever its environment (another `XDG_RUNTIME_DIR` under ssh, su, cron):
//! the lock tells whether an engine holds the directory, and a file beside
//! it names the socket the engine listens on ([`SOCKET_POINTER`]). The
//! engine takes the lock and writes the note here; clients read both with
//! `switchboard_client::locate`.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, Write};
use std::path::Path;

use nix::errno::Errno;
use nix::fcntl::{Flock, FlockArg};

use crate::error::EngineError;

/// The lock's and the socket note's names, which clients read too.
pub use switchboard_api::place::{LOCK_FILE, SOCKET_POINTER};

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
        // test without taking it (a flock cannot be tested): see
        // `switchboard_client::locate::holder`.
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

/// Sets (`F_OFD_SETLK`) a write lock over the whole file; the lock type set.
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

/// Notes the socket `socket` in the private file `pointer`.
pub fn write_pointer(pointer: &Path, socket: &Path) -> std::io::Result<()> {
    crate::private::write(pointer, socket.as_os_str().as_encoded_bytes())
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
}
