//! Whether the store can write: every write's outcome is noted, a failure is
//! classified in the user's terms (the disk is full, the folder is read-only,
//! or something else), and the engine reports each change once.

use std::cell::{Cell, RefCell};
use std::path::{Path, PathBuf};

use crate::api::StorageProblem;

/// Free space under which an I/O failure is taken for a full disk (SQLite
/// often reports a full disk as a plain I/O error).
pub const NEARLY_FULL_BYTES: u64 = 256 * 1024;

/// What a failed write means, given the SQLite error and the free space left
/// where the data lives (if known).
pub fn classify(error: &rusqlite::Error, free_bytes: Option<u64>) -> StorageProblem {
    use rusqlite::ErrorCode as Code;
    let nearly_full = free_bytes.is_some_and(|free| free < NEARLY_FULL_BYTES);
    match error.sqlite_error_code() {
        Some(Code::DiskFull) => StorageProblem::Full,
        Some(Code::ReadOnly | Code::PermissionDenied) if !nearly_full => StorageProblem::ReadOnly,
        _ if nearly_full => StorageProblem::Full,
        _ => StorageProblem::Failing { detail: error.to_string() },
    }
}

/// Free bytes for an unprivileged writer on the file system holding `dir`.
pub fn free_bytes(dir: &Path) -> Option<u64> {
    let stat = nix::sys::statvfs::statvfs(dir).ok()?;
    Some(stat.blocks_available() as u64 * stat.fragment_size() as u64)
}

/// The store's record of its writes.
#[derive(Debug, Default)]
pub(super) struct Health {
    /// The folder the database lives in; none in memory.
    dir: Option<PathBuf>,
    problem: RefCell<Option<StorageProblem>>,
    /// The problem changed since the engine last asked.
    changed: Cell<bool>,
}

impl Health {
    pub fn new(dir: Option<PathBuf>) -> Health {
        Health { dir, ..Health::default() }
    }

    pub fn note<T>(&self, result: &rusqlite::Result<T>) {
        match result {
            Ok(_) => self.set(None),
            Err(error) => self.note_error(error),
        }
    }

    /// [`Health::note`] for a store method's result.
    pub fn note_store<T>(&self, result: &Result<T, super::StoreError>) {
        match result {
            Ok(_) => self.set(None),
            Err(super::StoreError::Sqlite(error)) => self.note_error(error),
            Err(_) => {}
        }
    }

    fn note_error(&self, error: &rusqlite::Error) {
        use rusqlite::ErrorCode as Code;
        match error.sqlite_error_code() {
            // Not SQLite's refusal, or the caller's mistake: the disk's state
            // is unknown from it.
            None | Some(Code::ConstraintViolation | Code::TypeMismatch | Code::ApiMisuse) => {}
            Some(_) => self.set(Some(classify(error, self.dir.as_deref().and_then(free_bytes)))),
        }
    }

    fn set(&self, now: Option<StorageProblem>) {
        if *self.problem.borrow() != now {
            *self.problem.borrow_mut() = now;
            self.changed.set(true);
        }
    }

    pub fn problem(&self) -> Option<StorageProblem> {
        self.problem.borrow().clone()
    }

    /// The problem, if it changed since the last call.
    pub fn take_change(&self) -> Option<Option<StorageProblem>> {
        self.changed.replace(false).then(|| self.problem())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sqlite(code: i32) -> rusqlite::Error {
        rusqlite::Error::SqliteFailure(rusqlite::ffi::Error::new(code), None)
    }

    #[test]
    fn a_failed_write_is_named_in_the_users_terms() {
        use rusqlite::ffi;
        let plenty = Some(10 * 1024 * 1024 * 1024);
        let cases = [
            (ffi::SQLITE_FULL, plenty, StorageProblem::Full),
            (ffi::SQLITE_FULL, None, StorageProblem::Full),
            (ffi::SQLITE_READONLY, plenty, StorageProblem::ReadOnly),
            (ffi::SQLITE_PERM, None, StorageProblem::ReadOnly),
            (
                ffi::SQLITE_CANTOPEN,
                plenty,
                StorageProblem::Failing { detail: sqlite(ffi::SQLITE_CANTOPEN).to_string() },
            ),
            // A full disk reported as an I/O error, or as a file that cannot be made.
            (ffi::SQLITE_IOERR, Some(0), StorageProblem::Full),
            (ffi::SQLITE_CANTOPEN, Some(4096), StorageProblem::Full),
            (ffi::SQLITE_IOERR, plenty, StorageProblem::Failing { detail: sqlite(ffi::SQLITE_IOERR).to_string() }),
        ];
        for (code, free, expected) in cases {
            assert_eq!(classify(&sqlite(code), free), expected, "code {code}, free {free:?}");
        }
    }

    #[test]
    fn each_change_is_reported_once_and_a_good_write_clears_the_problem() {
        let health = Health::new(None);
        health.note(&Ok(()));
        assert_eq!(health.take_change(), None, "healthy from the start: nothing to say");
        health.note::<()>(&Err(sqlite(rusqlite::ffi::SQLITE_FULL)));
        health.note::<()>(&Err(sqlite(rusqlite::ffi::SQLITE_FULL)));
        assert_eq!(health.take_change(), Some(Some(StorageProblem::Full)));
        assert_eq!(health.take_change(), None);
        // A constraint error is the caller's: the disk's state is unchanged.
        health.note::<()>(&Err(sqlite(rusqlite::ffi::SQLITE_CONSTRAINT)));
        assert_eq!((health.take_change(), health.problem()), (None, Some(StorageProblem::Full)));
        health.note(&Ok(()));
        assert_eq!(health.take_change(), Some(None));
    }
}
