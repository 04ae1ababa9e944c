//! A loopback-only network namespace for running real agent CLIs: nothing
//! they try leaves the machine, and nothing waits on a network that is not
//! there. The test's fake model server listens inside it.

use std::fs::File;
use std::io;
use std::net::TcpListener;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A network namespace with only `lo`, up, and a listener bound in it. The
/// namespace lives as long as this value (its file is kept open).
pub struct LoopbackNet {
    namespace: File,
    pub listener: Option<TcpListener>,
}

impl LoopbackNet {
    /// Makes the namespace on a thread of its own (a namespace is a
    /// per-thread property; the rest of the process stays where it is),
    /// brings `lo` up, and binds 127.0.0.1 on a free port there. Needs the
    /// rights to make namespaces (root, as in CI).
    pub fn new() -> io::Result<LoopbackNet> {
        std::thread::spawn(|| -> io::Result<LoopbackNet> {
            nix::sched::unshare(nix::sched::CloneFlags::CLONE_NEWNET)
                .map_err(|errno| io::Error::other(format!("cannot make a network namespace ({errno}): run as root")))?;
            // A child started from this thread is in the namespace too.
            let up = Command::new("ip").args(["link", "set", "lo", "up"]).status()?;
            if !up.success() {
                return Err(io::Error::other(format!("`ip link set lo up` failed: {up}")));
            }
            let namespace = File::open("/proc/thread-self/ns/net")?;
            let listener = TcpListener::bind("127.0.0.1:0")?;
            Ok(LoopbackNet { namespace, listener: Some(listener) })
        })
        .join()
        .map_err(|_| io::Error::other("the namespace thread panicked"))?
    }

    /// A path naming the namespace, for `nsenter --net=<path>`.
    pub fn path(&self) -> PathBuf {
        PathBuf::from(format!("/proc/{}/fd/{}", std::process::id(), self.namespace.as_raw_fd()))
    }

    /// Writes an executable at `path` that runs `program` (with the
    /// arguments it is given) inside the namespace: a profile's command.
    pub fn wrapper(&self, path: &Path, program: &str) -> io::Result<()> {
        use std::os::unix::fs::PermissionsExt;
        let quote = |s: &str| format!("'{}'", s.replace('\'', r"'\''"));
        let script = format!(
            "#!/bin/sh\nexec nsenter --net={} -- {} \"$@\"\n",
            quote(&self.path().display().to_string()),
            quote(program)
        );
        std::fs::write(path, script)?;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))
    }
}
