//! Finding the engine of a data directory from the directory alone,
//! whatever the client's environment (another `XDG_RUNTIME_DIR` under ssh,
//! su, cron): the lock the engine holds there tells whether one runs
//! ([`holder`], which looks without taking it), and the note beside it
//! names the socket it listens on ([`SOCKET_POINTER`]). The names are
//! `switchboard_api::place`'s; the engine takes the lock and writes the
//! note (`switchboard_core::instance`).

use std::fs::OpenOptions;
use std::io::Read;
use std::path::{Path, PathBuf};

use switchboard_api::place::{LOCK_FILE, SOCKET_POINTER, socket_path};

/// The longest socket note read: a socket's path is far shorter.
const MAX_POINTER_BYTES: u64 = 4096;

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
    match tested_lock(&file) {
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

/// Tests (`F_OFD_GETLK`) for a write lock over the whole file, as the
/// engine sets it; the lock type found (`F_UNLCK`: none).
fn tested_lock(file: &std::fs::File) -> std::io::Result<libc::c_int> {
    use std::os::fd::AsRawFd;
    // SAFETY: a zeroed flock is valid; the fields that matter are set below.
    let mut lock: libc::flock = unsafe { std::mem::zeroed() };
    lock.l_type = libc::F_WRLCK as libc::c_short;
    lock.l_whence = libc::SEEK_SET as libc::c_short;
    // SAFETY: fcntl with an open descriptor and a valid flock pointer.
    if unsafe { libc::fcntl(file.as_raw_fd(), libc::F_OFD_GETLK, &mut lock) } == -1 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(libc::c_int::from(lock.l_type))
}

/// The socket the engine of `data_dir` noted, if the note is there, a file
/// of the user's own (not a link), and names an absolute path.
pub fn pointed_socket(data_dir: &Path) -> Option<PathBuf> {
    read_pointer(&data_dir.join(SOCKET_POINTER))
}

/// The socket a note at `pointer` names, if it is a file of the user's own
/// (not a link) naming an absolute path.
pub fn read_pointer(pointer: &Path) -> Option<PathBuf> {
    use std::os::unix::ffi::OsStringExt;
    use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
    let file = OpenOptions::new().read(true).custom_flags(libc::O_NOFOLLOW).open(pointer).ok()?;
    let meta = file.metadata().ok()?;
    // Another user's note could send the client to their socket.
    if meta.uid() != nix::unistd::getuid().as_raw() || !meta.is_file() {
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
    .unwrap_or_else(|| socket_path(data_dir, runtime_dir))
}

#[cfg(test)]
mod tests {
    use super::*;
    use switchboard_core::instance::{InstanceLock, point_to_socket};

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
        let computed = socket_path(dir.path(), None);
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
