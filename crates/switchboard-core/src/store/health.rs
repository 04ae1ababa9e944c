//! Whether the store can write: every write's outcome is noted, a failure is
//! classified in the user's terms (the disk is full, the folder is read-only,
//! or something else), and the engine reports each change once.
//!
//! A problem is past only when a write of the kind that failed goes through
//! ([`after_write`]). On a full disk small writes still go through, in room
//! the database's files already have (free space in a page, a WAL that
//! started over), while every write that needs more keeps failing: so a
//! full disk is past only once the probe finds new room on it ([`has_room`]).

use std::cell::{Cell, RefCell};
use std::fs::OpenOptions;
use std::path::{Path, PathBuf};

use switchboard_api::StorageProblem;

/// Free space under which an I/O failure is taken for a full disk (SQLite
/// often reports a full disk as a plain I/O error).
pub const NEARLY_FULL_BYTES: u64 = 256 * 1024;

/// The new room a full disk must have again before the store counts as
/// writable: the probe allocates this much beside the database. A megabyte
/// holds many ordinary writes (the WAL grows a page at a time, and a
/// checkpoint copies those pages into the database).
pub const ROOM_PROBE_BYTES: u64 = 1024 * 1024;

/// The file the room probe allocates beside the database, removed at once.
pub const ROOM_PROBE_FILE: &str = "room-probe.tmp";

/// What a write that went through shows of the disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Evidence {
    /// A write of the store went through: its files take writes. It may
    /// have fit in room they already had, so it says nothing of a full disk.
    Wrote,
    /// The probe's write went through and new room was found on the disk.
    Room,
}

/// The problem left once a write went through: a full disk is past only
/// with new room found; a read-only folder or another failure as soon as
/// the store writes again.
pub fn after_write(problem: Option<&StorageProblem>, evidence: Evidence) -> Option<StorageProblem> {
    match (problem, evidence) {
        (Some(StorageProblem::Full), Evidence::Wrote) => Some(StorageProblem::Full),
        (_, Evidence::Wrote | Evidence::Room) => None,
    }
}

/// Whether the disk holding `dir` has [`ROOM_PROBE_BYTES`] of new room: that
/// much is allocated for a file there, which is then removed. When the file
/// cannot be made for another reason than space (the folder refuses it),
/// the free space the file system reports decides.
pub fn has_room(dir: &Path) -> bool {
    let path = dir.join(ROOM_PROBE_FILE);
    let allocated = crate::private::open(OpenOptions::new().write(true).create(true).truncate(true), &path)
        .and_then(|file| Ok(nix::fcntl::posix_fallocate(&file, 0, ROOM_PROBE_BYTES as libc::off_t)?));
    match std::fs::remove_file(&path) {
        Err(error) if error.kind() != std::io::ErrorKind::NotFound => {
            tracing::warn!(path = %path.display(), %error, "the room probe's file could not be removed");
        }
        _ => {}
    }
    match allocated {
        Ok(()) => true,
        Err(error) if matches!(error.kind(), std::io::ErrorKind::StorageFull | std::io::ErrorKind::QuotaExceeded) => {
            false
        }
        Err(_) => free_bytes(dir).is_none_or(|free| free >= ROOM_PROBE_BYTES),
    }
}

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

    /// The folder the database lives in; none in memory.
    pub fn dir(&self) -> Option<&Path> {
        self.dir.as_deref()
    }

    pub fn note<T>(&self, result: &rusqlite::Result<T>) {
        match result {
            Ok(_) => self.went_through(Evidence::Wrote),
            Err(error) => self.note_error(error),
        }
    }

    /// [`Health::note`] for a store method's result.
    pub fn note_store<T>(&self, result: &Result<T, super::StoreError>) {
        match result {
            Ok(_) => self.went_through(Evidence::Wrote),
            Err(super::StoreError::Sqlite(error)) => self.note_error(error),
            Err(_) => {}
        }
    }

    /// Notes the probe: its write's result, and whether it found new room
    /// (in memory, the room the write itself needed).
    pub fn note_probe(&self, result: &rusqlite::Result<()>, room: bool) {
        match (result, room) {
            (Err(error), _) => self.note_error(error),
            (Ok(()), true) => self.went_through(Evidence::Room),
            (Ok(()), false) => self.set(Some(StorageProblem::Full)),
        }
    }

    fn went_through(&self, evidence: Evidence) {
        let now = after_write(self.problem.borrow().as_ref(), evidence);
        self.set(now);
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
    fn a_problem_is_past_only_when_a_write_of_the_kind_that_failed_goes_through() {
        use Evidence::*;
        let failing = StorageProblem::Failing { detail: "disk I/O error".into() };
        let cases = [
            (None, Wrote, None),
            (None, Room, None),
            // A small write fits in room the files already had.
            (Some(StorageProblem::Full), Wrote, Some(StorageProblem::Full)),
            (Some(StorageProblem::Full), Room, None),
            (Some(StorageProblem::ReadOnly), Wrote, None),
            (Some(StorageProblem::ReadOnly), Room, None),
            (Some(failing.clone()), Wrote, None),
            (Some(failing), Room, None),
        ];
        for (problem, evidence, expected) in cases {
            assert_eq!(after_write(problem.as_ref(), evidence), expected, "{problem:?} after {evidence:?}");
        }
    }

    #[test]
    fn each_change_is_reported_once_and_a_good_write_clears_what_it_can() {
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
        // A write that went through in room the files had: still full.
        health.note(&Ok(()));
        assert_eq!((health.take_change(), health.problem()), (None, Some(StorageProblem::Full)));
        // The probe wrote but found no new room: still full.
        health.note_probe(&Ok(()), false);
        assert_eq!(health.take_change(), None);
        health.note_probe(&Ok(()), true);
        assert_eq!(health.take_change(), Some(None));

        health.note::<()>(&Err(sqlite(rusqlite::ffi::SQLITE_READONLY)));
        assert_eq!(health.take_change(), Some(Some(StorageProblem::ReadOnly)));
        health.note(&Ok(()));
        assert_eq!(health.take_change(), Some(None), "writable again");
    }

    #[test]
    fn a_folder_with_room_has_room_and_the_probe_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        assert!(has_room(dir.path()));
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}
