//! Open files: the engine's limit, and how many of them the socket's
//! connections may take.
//!
//! Distributions commonly start programs with a soft limit of 1024 open
//! files (and a hard limit far above it). Every connection, every agent's
//! terminal (its master and the reader's and writer's copies) and every git
//! run takes descriptors, so the engine raises its soft limit to the hard one
//! as it starts ([`raise_soft_limit`]), and gives the agents it starts the
//! original back (their keeper sets it before it starts the agent: a program
//! may rely on the usual limit, for `select()` say). The socket's connections
//! may take only part of the limit ([`connection_cap`]): the rest stays in
//! reserve for terminals, the database, the workspace watch and git, so that a
//! flood of connections never keeps an agent from starting, and the accept
//! loop makes room for a new connection by closing one that never said who it
//! is ([`admit`]).

use std::sync::OnceLock;

/// Descriptors kept out of the connections' reach, at least: the engine's
/// own files and a few dozen agents' terminals.
pub const MIN_RESERVE: u64 = 64;
/// At most this many are kept in reserve however high the limit: beyond it
/// the connections may have the rest.
pub const MAX_RESERVE: u64 = 4096;
/// The connections never get fewer than this many places, whatever the limit.
pub const MIN_CONNECTIONS: usize = 16;

/// The soft limit the engine's process had before [`raise_soft_limit`]
/// raised it: what the agents it starts get back. None: it was not raised
/// (it was the hard limit already, or raising failed).
static ORIGINAL_SOFT: OnceLock<Option<u64>> = OnceLock::new();

/// Raises this process' soft limit on open files to its hard limit, once;
/// the limit before, if it was raised.
pub fn raise_soft_limit() -> Option<u64> {
    *ORIGINAL_SOFT.get_or_init(|| {
        use nix::sys::resource::{Resource, getrlimit, setrlimit};
        let (soft, hard) = match getrlimit(Resource::RLIMIT_NOFILE) {
            Ok(limits) => limits,
            Err(error) => {
                tracing::warn!(%error, "could not read the limit on open files");
                return None;
            }
        };
        if soft >= hard {
            return None;
        }
        match setrlimit(Resource::RLIMIT_NOFILE, hard, hard) {
            Ok(()) => {
                tracing::info!(was = soft, now = hard, "raised the limit on open files");
                Some(soft)
            }
            Err(error) => {
                tracing::warn!(%error, soft, hard, "could not raise the limit on open files");
                None
            }
        }
    })
}

/// The soft limit the agents are to get back, if the engine raised its own.
pub fn original_soft_limit() -> Option<u64> {
    ORIGINAL_SOFT.get().copied().flatten()
}

/// This process' soft limit on open files now (none if it cannot be read).
pub fn soft_limit() -> Option<u64> {
    nix::sys::resource::getrlimit(nix::sys::resource::Resource::RLIMIT_NOFILE).ok().map(|(soft, _)| soft)
}

/// How many connections the socket keeps open at once under a limit of
/// `limit` open files: a quarter of the limit, within
/// [`MIN_RESERVE`]..[`MAX_RESERVE`], stays in reserve.
pub fn connection_cap(limit: u64) -> usize {
    let reserve = (limit / 4).clamp(MIN_RESERVE, MAX_RESERVE);
    usize::try_from(limit.saturating_sub(reserve)).unwrap_or(usize::MAX).max(MIN_CONNECTIONS)
}

/// What the accept loop does with a connection it has just accepted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Admission {
    /// There is room: serve it.
    Serve,
    /// The connections are at their cap: close the oldest one that has not
    /// said who it is yet, then serve this one.
    ServeClosingOldestSilent,
    /// At the cap and every connection has spoken: this one is closed.
    Refuse,
}

/// The admission of a new connection, with `open` connections served now
/// (this one not counted), `silent` of them yet to say hello (or send a
/// first request line), under a cap of `cap`.
pub fn admit(open: usize, silent: usize, cap: usize) -> Admission {
    match (open < cap, silent > 0) {
        (true, _) => Admission::Serve,
        (false, true) => Admission::ServeClosingOldestSilent,
        (false, false) => Admission::Refuse,
    }
}

/// Whether an accept failed for want of descriptors (the process' or the
/// system's), which closing a connection can cure.
pub fn out_of_descriptors(error: &std::io::Error) -> bool {
    matches!(error.raw_os_error(), Some(libc::EMFILE | libc::ENFILE))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_connections_leave_a_reserve_that_grows_with_the_limit_within_its_bounds() {
        for (limit, cap) in [
            (0, MIN_CONNECTIONS),
            (64, MIN_CONNECTIONS),
            (128, 64),
            (256, 192),
            (1024, 768),
            (16_384, 12_288),
            (1_048_576, 1_048_576 - 4096),
            // No limit at all (RLIM_INFINITY).
            (u64::MAX, (u64::MAX - MAX_RESERVE) as usize),
        ] {
            assert_eq!(connection_cap(limit), cap, "under a limit of {limit}");
        }
    }

    #[test]
    fn a_new_connection_takes_the_place_of_the_oldest_silent_one_only_at_the_cap() {
        use Admission::*;
        for (open, silent, cap, admission) in [
            (0, 0, 10, Serve),
            (9, 9, 10, Serve),
            (10, 1, 10, ServeClosingOldestSilent),
            (12, 3, 10, ServeClosingOldestSilent),
            (10, 0, 10, Refuse),
        ] {
            assert_eq!(admit(open, silent, cap), admission, "{open} open, {silent} silent, cap {cap}");
        }
    }

    #[test]
    fn only_a_want_of_descriptors_is_cured_by_closing_connections() {
        assert!(out_of_descriptors(&std::io::Error::from_raw_os_error(libc::EMFILE)));
        assert!(out_of_descriptors(&std::io::Error::from_raw_os_error(libc::ENFILE)));
        assert!(!out_of_descriptors(&std::io::Error::from_raw_os_error(libc::ECONNABORTED)));
    }
}
