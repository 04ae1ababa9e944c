//! One engine per data directory. A second instance on the same data would
//! take the first one's running sessions for leftovers of a crash and end
//! them, so the engine holds an exclusive lock on a file in the data
//! directory for as long as it runs. The kernel drops the lock when the
//! process dies, however it dies, so a crash never leaves it stuck.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, Write};
use std::path::Path;

use nix::errno::Errno;
use nix::fcntl::{Flock, FlockArg};

use crate::error::EngineError;

pub const LOCK_FILE: &str = "switchboard.lock";

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
