//! `switchboard-hook --keep [--grace-ms N] -- PROGRAM ARGS…`: the first
//! process of every agent session, holding the agent's whole process tree.
//!
//! An agent's tools can start daemons that fork twice, call `setsid()` and
//! clear their environment: nothing about them says which session they came
//! from, and once their parent exits they are re-parented away. The keeper
//! makes itself the child subreaper of its session, so every orphan of the
//! agent's tree is re-parented to it and stays a descendant of the session's
//! first process, where the app finds it (by the parent chain) to end it on
//! Stop and at quit. When the agent exits by itself, the keeper ends what it
//! left (SIGHUP, SIGTERM, up to the grace period, then SIGKILL), reaps it,
//! and exits as the agent did (its exit code, or its signal), so the app
//! sees the agent's own end.
//!
//! Linux only (`PR_SET_CHILD_SUBREAPER`, `/proc`). Nothing here is printed
//! on the terminal but a failure to start the agent.

use std::time::{Duration, Instant};

/// The first argument that makes the hook binary a keeper.
pub const KEEP_FLAG: &str = "--keep";

/// How long what the agent left gets between SIGTERM and SIGKILL, unless
/// the app says otherwise (`--grace-ms`).
const DEFAULT_GRACE: Duration = Duration::from_secs(3);

/// How often the keeper looks again at what is left while it waits.
const POLL: Duration = Duration::from_millis(10);

/// The exit status when the agent could not be started (as a shell says
/// for a command it cannot run).
const EXIT_CANNOT_RUN: i32 = 127;

/// What the keeper was asked to run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Keep {
    pub grace: Duration,
    /// The soft limit on open files the agent starts with (the engine raised
    /// its own, which the keeper inherited); none: the keeper's own.
    pub open_files: Option<u64>,
    pub program: String,
    pub args: Vec<String>,
}

/// Why the keeper's arguments are not what the engine passes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeepArgsProblem {
    NotKeep,
    NotANumber(&'static str),
    NoSeparator(Option<String>),
    NoProgram,
}

impl std::fmt::Display for KeepArgsProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            KeepArgsProblem::NotKeep => write!(f, "the first argument must be {KEEP_FLAG}"),
            KeepArgsProblem::NotANumber(flag) => write!(f, "{flag} takes a number"),
            KeepArgsProblem::NoSeparator(found) => write!(f, "expected -- before the program, found {found:?}"),
            KeepArgsProblem::NoProgram => write!(f, "no program to run"),
        }
    }
}

impl std::error::Error for KeepArgsProblem {}

/// The keeper's arguments (after the binary's name), or why they are not.
pub fn parse(args: &[String]) -> Result<Keep, KeepArgsProblem> {
    let mut rest = args.iter();
    if rest.next().map(String::as_str) != Some(KEEP_FLAG) {
        return Err(KeepArgsProblem::NotKeep);
    }
    let mut grace = DEFAULT_GRACE;
    let mut open_files = None;
    loop {
        match rest.next().map(String::as_str) {
            Some("--grace-ms") => {
                let ms = rest.next().and_then(|ms| ms.parse().ok()).ok_or(KeepArgsProblem::NotANumber("--grace-ms"))?;
                grace = Duration::from_millis(ms);
            }
            Some("--nofile") => {
                let limit = rest.next().and_then(|n| n.parse().ok()).ok_or(KeepArgsProblem::NotANumber("--nofile"))?;
                open_files = Some(limit);
            }
            Some("--") => break,
            other => return Err(KeepArgsProblem::NoSeparator(other.map(str::to_owned))),
        }
    }
    let program = rest.next().ok_or(KeepArgsProblem::NoProgram)?.clone();
    Ok(Keep { grace, open_files, program, args: rest.cloned().collect() })
}

/// Set by the keeper's own signal handler: nothing to do but not die, so
/// the agent (which gets the same signals) decides how the session ends.
extern "C" fn ignore(_: libc::c_int) {}

/// Runs the agent and holds its tree; returns only to exit as it did.
pub fn run(keep: &Keep) -> i32 {
    // SAFETY: prctl with PR_SET_CHILD_SUBREAPER takes an integer flag.
    if unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) } != 0 {
        eprintln_once("switchboard: could not hold the agent's processes; leftovers may outlive it");
    }
    // A handler, not SIG_IGN: handlers are reset at exec, so the agent gets
    // the default dispositions, while the keeper outlives a hangup or a
    // Ctrl-C meant for the agent.
    for signal in
        [libc::SIGHUP, libc::SIGINT, libc::SIGQUIT, libc::SIGTERM, libc::SIGTSTP, libc::SIGTTIN, libc::SIGTTOU]
    {
        // SAFETY: installs a handler that does nothing (async-signal-safe).
        unsafe { libc::signal(signal, ignore as *const () as libc::sighandler_t) };
    }
    if let Some(limit) = keep.open_files {
        set_open_files(limit);
    }
    let agent = match spawn(keep) {
        Ok(pid) => pid,
        Err(error) => {
            eprintln_once(&format!("switchboard: cannot run {}: {error}", keep.program));
            return EXIT_CANNOT_RUN;
        }
    };
    let status = wait_for(agent);
    end_the_rest(keep.grace);
    exit_as(status)
}

/// Lowers the soft limit on open files to `limit` (never above the hard
/// one), for the keeper and so for the agent it starts.
fn set_open_files(limit: u64) {
    let mut limits = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit and setrlimit with a valid resource and pointer.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limits) != 0 {
            return;
        }
        limits.rlim_cur = (limit as libc::rlim_t).min(limits.rlim_max);
        if libc::setrlimit(libc::RLIMIT_NOFILE, &limits) != 0 {
            eprintln_once("switchboard: could not give the agent its usual limit on open files");
        }
    }
}

/// Starts the agent in the keeper's terminal, session and process group.
fn spawn(keep: &Keep) -> std::io::Result<libc::pid_t> {
    use std::os::unix::process::CommandExt;
    let mut command = std::process::Command::new(&keep.program);
    command.args(&keep.args);
    // SAFETY: only async-signal-safe calls between fork and exec: the
    // signal mask is emptied (the keeper's handlers are reset by exec).
    unsafe {
        command.pre_exec(|| {
            let mut none: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut none);
            libc::sigprocmask(libc::SIG_SETMASK, &none, std::ptr::null_mut());
            Ok(())
        });
    }
    let child = command.spawn()?;
    let pid = child.id() as libc::pid_t;
    // The child is waited for by pid below; the handle is not needed.
    std::mem::forget(child);
    Ok(pid)
}

/// Reaps children (adopted orphans too) until the agent itself has ended;
/// its wait status.
fn wait_for(agent: libc::pid_t) -> libc::c_int {
    loop {
        let mut status = 0;
        // SAFETY: waits for any child; status is a valid out pointer.
        let pid = unsafe { libc::waitpid(-1, &mut status, 0) };
        if pid == agent {
            return status;
        }
        if pid < 0 && std::io::Error::last_os_error().raw_os_error() != Some(libc::EINTR) {
            // No child at all: the agent is gone without a status.
            return 0;
        }
    }
}

/// Every process below the keeper: as its subreaper, that is everything
/// the agent started that is still there.
fn descendants() -> Vec<libc::pid_t> {
    // SAFETY: getpid cannot fail.
    let me = unsafe { libc::getpid() };
    let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
    let parents: Vec<(libc::pid_t, libc::pid_t)> = entries
        .flatten()
        .filter_map(|entry| {
            let pid: libc::pid_t = entry.file_name().to_str()?.parse().ok()?;
            let stat = std::fs::read_to_string(entry.path().join("stat")).ok()?;
            let after = &stat[stat.rfind(')')? + 1..];
            let ppid = after.split_ascii_whitespace().nth(1)?.parse().ok()?;
            Some((pid, ppid))
        })
        .collect();
    let mut found = vec![me];
    let mut grew = true;
    while grew {
        grew = false;
        for &(pid, ppid) in &parents {
            if found.contains(&ppid) && !found.contains(&pid) {
                found.push(pid);
                grew = true;
            }
        }
    }
    found.retain(|&pid| pid != me);
    found
}

fn signal_all(pids: &[libc::pid_t], signal: libc::c_int) {
    for &pid in pids {
        // SAFETY: kill with a pid and a signal number.
        unsafe { libc::kill(pid, signal) };
    }
}

/// Reaps whatever has ended, without waiting.
fn reap() {
    loop {
        let mut status = 0;
        // SAFETY: a non-blocking wait for any child.
        if unsafe { libc::waitpid(-1, &mut status, libc::WNOHANG) } <= 0 {
            return;
        }
    }
}

/// Ends what the agent left: a hangup and a request to stop, the grace
/// period, then SIGKILL; everything reaped.
fn end_the_rest(grace: Duration) {
    reap();
    let left = descendants();
    if left.is_empty() {
        return;
    }
    signal_all(&left, libc::SIGHUP);
    signal_all(&left, libc::SIGTERM);
    signal_all(&left, libc::SIGCONT);
    let deadline = Instant::now() + grace;
    while Instant::now() < deadline {
        reap();
        if descendants().is_empty() {
            return;
        }
        std::thread::sleep(POLL);
    }
    // Until none is left: a process forked meanwhile is killed too.
    for _ in 0..100 {
        let left = descendants();
        if left.is_empty() {
            break;
        }
        signal_all(&left, libc::SIGKILL);
        std::thread::sleep(POLL);
        reap();
    }
}

/// Exits as the agent did: its code, or the signal that ended it.
fn exit_as(status: libc::c_int) -> i32 {
    if libc::WIFSIGNALED(status) {
        let signal = libc::WTERMSIG(status);
        // No core file of the keeper for the agent's crash.
        let none = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
        // SAFETY: restores the default action and raises the signal on
        // ourselves; setrlimit takes a valid struct.
        unsafe {
            libc::setrlimit(libc::RLIMIT_CORE, &none);
            libc::signal(signal, libc::SIG_DFL);
            let mut only: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut only);
            libc::sigaddset(&mut only, signal);
            libc::sigprocmask(libc::SIG_UNBLOCK, &only, std::ptr::null_mut());
            libc::raise(signal);
        }
        return 128 + signal;
    }
    if libc::WIFEXITED(status) { libc::WEXITSTATUS(status) } else { 0 }
}

/// One line on the terminal, ignoring a closed one.
fn eprintln_once(line: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "{line}");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_keepers_arguments() {
        let args = |list: &[&str]| list.iter().map(|a| a.to_string()).collect::<Vec<_>>();
        let cases: [(&[&str], Result<Keep, ()>); 7] = [
            (
                &["--keep", "--", "sh", "-c", "echo hi"],
                Ok(Keep {
                    grace: DEFAULT_GRACE,
                    open_files: None,
                    program: "sh".into(),
                    args: args(&["-c", "echo hi"]),
                }),
            ),
            (
                &["--keep", "--grace-ms", "500", "--", "claude", "--", "x"],
                Ok(Keep {
                    grace: Duration::from_millis(500),
                    open_files: None,
                    program: "claude".into(),
                    args: args(&["--", "x"]),
                }),
            ),
            (
                &["--keep", "--grace-ms", "9", "--nofile", "1024", "--", "codex"],
                Ok(Keep {
                    grace: Duration::from_millis(9),
                    open_files: Some(1024),
                    program: "codex".into(),
                    args: vec![],
                }),
            ),
            (&["--keep", "--nofile", "many", "--", "codex"], Err(())),
            (&["--keep", "--"], Err(())),
            (&["--keep", "sh"], Err(())),
            (&["--keep", "--grace-ms", "soon", "--", "sh"], Err(())),
        ];
        for (given, expected) in cases {
            assert_eq!(parse(&args(given)).map_err(|_| ()), expected, "{given:?}");
        }
    }
}
