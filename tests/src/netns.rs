//! A loopback-only network namespace for running real agent CLIs: nothing
//! they try leaves the machine, and nothing waits on a network that is not
//! there. The test's fake model server listens inside it.

use std::fs::File;
use std::io;
use std::net::TcpListener;
use std::os::fd::AsRawFd;
use std::path::PathBuf;
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

    /// `program args…` wrapped so that it runs inside the namespace.
    pub fn wrap(&self, program: &str, args: &[String]) -> (String, Vec<String>) {
        let mut wrapped = vec![format!("--net={}", self.path().display()), "--".to_owned(), program.to_owned()];
        wrapped.extend(args.iter().cloned());
        ("nsenter".to_owned(), wrapped)
    }
}
