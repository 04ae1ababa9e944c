//! Finding and ending every process of a session.
//!
//! An agent's process tree is not just its process group: tools start
//! daemons that call `setsid()`, ignore SIGHUP and outlive the terminal. The
//! engine therefore identifies a session's processes three ways — the
//! session leader's process group, its terminal session, and the
//! `SWITCHBOARD_SESSION_ID` variable every descendant inherits — and makes
//! itself a child subreaper, so orphans are re-parented to the app and can be
//! reaped here instead of lingering as zombies.
//!
//! Linux only: reads `/proc`.

use std::collections::{HashMap, HashSet};
use std::fs;
use std::sync::{LazyLock, Mutex};
use std::time::{Duration, Instant};

use nix::errno::Errno;
use nix::sys::signal::{Signal, kill, killpg};
use nix::sys::wait::{WaitPidFlag, waitpid};
use nix::unistd::Pid;
use switchboard_protocol::SessionId;

/// The environment variable naming the session a process belongs to.
pub const SESSION_ENV: &str = "SWITCHBOARD_SESSION_ID";

/// How often the terminator re-checks which processes are left.
const POLL_INTERVAL: Duration = Duration::from_millis(10);

/// After SIGKILL, how long to wait for the kernel to finish the processes
/// before reporting survivors (a process in uninterruptible sleep).
const AFTER_KILL_TIMEOUT: Duration = Duration::from_secs(2);

/// Session leaders spawned by this process. Their exit status belongs to the
/// thread blocked in `wait()` on them; the reaper must never take it.
static SESSION_LEADERS: LazyLock<Mutex<HashSet<i32>>> = LazyLock::new(Default::default);

pub fn register_leader(pid: u32) {
    SESSION_LEADERS.lock().expect("leader set lock is never poisoned").insert(pid as i32);
}

pub fn unregister_leader(pid: u32) {
    SESSION_LEADERS.lock().expect("leader set lock is never poisoned").remove(&(pid as i32));
}

fn is_leader(pid: i32) -> bool {
    SESSION_LEADERS.lock().expect("leader set lock is never poisoned").contains(&pid)
}

/// Makes this process the reaper of orphaned descendants. Process-wide and
/// idempotent.
pub fn become_subreaper() {
    if let Err(error) = nix::sys::prctl::set_child_subreaper(true) {
        tracing::warn!(%error, "could not become a child subreaper; orphaned agent processes will be reaped by init");
    }
}

/// The fields of `/proc/<pid>/stat` the engine uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProcStat {
    pub pid: i32,
    pub state: char,
    pub ppid: i32,
    pub pgrp: i32,
    pub session: i32,
    /// Clock ticks since boot: with the pid, identifies a process across PID reuse.
    pub start_time: u64,
}

impl ProcStat {
    pub fn is_zombie(&self) -> bool {
        self.state == 'Z' || self.state == 'X'
    }
}

/// Parses a `/proc/<pid>/stat` line. The command name is in parentheses and
/// may itself contain spaces and parentheses, so fields are counted from the
/// last `)`.
pub fn parse_stat(pid: i32, line: &str) -> Option<ProcStat> {
    let rest = &line[line.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_ascii_whitespace().collect();
    // fields[0] is field 3 of proc(5): state, ppid, pgrp, session, ..., starttime (22).
    Some(ProcStat {
        pid,
        state: fields.first()?.chars().next()?,
        ppid: fields.get(1)?.parse().ok()?,
        pgrp: fields.get(2)?.parse().ok()?,
        session: fields.get(3)?.parse().ok()?,
        start_time: fields.get(19)?.parse().ok()?,
    })
}

pub fn read_stat(pid: i32) -> Option<ProcStat> {
    parse_stat(pid, &fs::read_to_string(format!("/proc/{pid}/stat")).ok()?)
}

/// The start time of a live process, to record beside its pid.
pub fn start_time(pid: u32) -> Option<u64> {
    read_stat(pid as i32).map(|stat| stat.start_time)
}

fn all_pids() -> Vec<i32> {
    let Ok(entries) = fs::read_dir("/proc") else { return Vec::new() };
    entries.filter_map(|entry| entry.ok()?.file_name().to_str()?.parse().ok()).collect()
}

fn carries_session_env(pid: i32, marker: &[u8]) -> bool {
    fs::read(format!("/proc/{pid}/environ"))
        .is_ok_and(|environ| environ.split(|byte| *byte == 0).any(|entry| entry == marker))
}

/// Every live or zombie process that belongs to the session led by `leader`.
pub fn session_members(session_id: &SessionId, leader: i32) -> Vec<ProcStat> {
    let me = std::process::id() as i32;
    let marker = format!("{SESSION_ENV}={session_id}").into_bytes();
    let all: Vec<ProcStat> = all_pids().into_iter().filter(|&pid| pid != me).filter_map(read_stat).collect();
    let below = descendants_of(leader, &all);
    all.into_iter()
        .filter(|stat| below.contains(&stat.pid) || is_member(stat, leader, || carries_session_env(stat.pid, &marker)))
        .collect()
}

/// The processes below `leader` by their parents: with the session's keeper
/// as its subreaper, every process the agent started, wherever it went.
fn descendants_of(leader: i32, all: &[ProcStat]) -> HashSet<i32> {
    let mut below = HashSet::new();
    if leader == NO_LEADER {
        return below;
    }
    let mut frontier = vec![leader];
    while let Some(parent) = frontier.pop() {
        for stat in all.iter().filter(|stat| stat.ppid == parent) {
            if below.insert(stat.pid) {
                frontier.push(stat.pid);
            }
        }
    }
    below
}

/// Whether a process belongs to the session led by `leader`: in its process
/// group, in its terminal session, or (the only way to recognise a daemon
/// that called `setsid()`) carrying the session's environment variable. The
/// environment is read only when the cheaper checks fail.
fn is_member(stat: &ProcStat, leader: i32, carries_env: impl FnOnce() -> bool) -> bool {
    stat.pgrp == leader || stat.session == leader || carries_env()
}

/// Whether a member still has to be ended: everything alive, and zombies
/// this process must reap (adopted orphans, `me` their parent). A zombie
/// whose exit status a waiting thread collects (`waited`: a leader of this
/// run), or whose parent is another process, is dead and gone for us. (A
/// leader recovered after a crash has no waiting thread: it is reaped here.)
fn still_to_end(stat: &ProcStat, me: i32, waited: impl Fn(i32) -> bool) -> bool {
    !stat.is_zombie() || (stat.ppid == me && !waited(stat.pid))
}

/// Reaps the given processes if they are our zombie children (adopted
/// orphans). Leaders are left to their waiting thread.
fn reap_adopted(members: &[ProcStat]) {
    let me = std::process::id() as i32;
    for stat in members.iter().filter(|s| s.ppid == me && s.is_zombie() && !is_leader(s.pid)) {
        match waitpid(Pid::from_raw(stat.pid), Some(WaitPidFlag::WNOHANG)) {
            Ok(_) | Err(Errno::ECHILD) => {}
            Err(error) => tracing::warn!(pid = stat.pid, %error, "reaping an adopted agent process failed"),
        }
    }
}

/// Reaps every zombie this process adopted (an orphaned descendant that
/// ended outside any session's ending, say one that a crashed run of the
/// app left behind); returns how many. Reads every `/proc/<pid>/stat`.
/// Only a process of another terminal session is adopted (agents run in
/// sessions of their own): the app's own children (git, a worktree's setup
/// command) are their spawner's to wait for.
pub fn reap_adopted_zombies() -> usize {
    let me = std::process::id() as i32;
    let own_session = nix::unistd::getsid(None).map(|sid| sid.as_raw()).unwrap_or(-1);
    let zombies: Vec<ProcStat> = all_pids()
        .into_iter()
        .filter_map(read_stat)
        .filter(|s| s.ppid == me && s.is_zombie() && s.session != own_session)
        .collect();
    reap_adopted(&zombies);
    zombies.iter().filter(|s| !is_leader(s.pid)).count()
}

fn signal_all(leader: i32, members: &[ProcStat], signal: Signal) {
    if leader != NO_LEADER
        && let Err(error) = killpg(Pid::from_raw(leader), signal)
        && error != Errno::ESRCH
    {
        tracing::warn!(leader, ?signal, %error, "signalling an agent's process group failed");
    }
    for stat in members.iter().filter(|s| !s.is_zombie()) {
        match kill(Pid::from_raw(stat.pid), signal) {
            Ok(()) | Err(Errno::ESRCH) => {}
            Err(error) => tracing::warn!(pid = stat.pid, ?signal, %error, "signalling an agent process failed"),
        }
    }
}

/// The processes of one session, as far as they have been seen. A process
/// once identified stays a member (by pid and start time) even when it can
/// no longer be recognised: a zombie has no environment to read.
struct Members {
    session_id: SessionId,
    leader: i32,
    known: HashMap<i32, u64>,
}

impl Members {
    fn new(session_id: &SessionId, leader: i32) -> Self {
        Members { session_id: session_id.clone(), leader, known: HashMap::new() }
    }

    /// Scans for members (adding new ones), reaps adopted zombies, and
    /// returns what is still there: everything alive, and zombies other than
    /// the leader (whose status its waiting thread collects).
    fn remaining(&mut self) -> Vec<ProcStat> {
        for stat in session_members(&self.session_id, self.leader) {
            self.known.entry(stat.pid).or_insert(stat.start_time);
        }
        let present = |known: &HashMap<i32, u64>| -> Vec<ProcStat> {
            known.iter().filter_map(|(&pid, &start)| read_stat(pid).filter(|stat| stat.start_time == start)).collect()
        };
        reap_adopted(&present(&self.known));
        let me = std::process::id() as i32;
        present(&self.known).into_iter().filter(|stat| still_to_end(stat, me, is_leader)).collect()
    }

    fn wait_until_gone(&mut self, timeout: Duration) -> Vec<ProcStat> {
        let deadline = Instant::now() + timeout;
        loop {
            let left = self.remaining();
            if left.is_empty() || Instant::now() >= deadline {
                return left;
            }
            std::thread::sleep(POLL_INTERVAL);
        }
    }
}

/// What ending a session's processes achieved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TerminateReport {
    /// Processes that were still there when SIGKILL was sent.
    pub killed: usize,
    /// Processes still present afterwards (should be none).
    pub survivors: Vec<i32>,
}

/// Ends every process of a session: SIGHUP and SIGTERM (as when a terminal
/// closes), up to `grace` to exit, then SIGKILL, then reap what was adopted.
/// Blocking; run it off the async executor.
pub fn terminate_session(session_id: &SessionId, leader: i32, grace: Duration) -> TerminateReport {
    let mut members = Members::new(session_id, leader);
    let present = members.remaining();
    // Interactive shells ignore SIGTERM but not SIGHUP; most programs the other way round.
    signal_all(leader, &present, Signal::SIGHUP);
    signal_all(leader, &present, Signal::SIGTERM);
    signal_all(leader, &present, Signal::SIGCONT);
    let left = members.wait_until_gone(grace);
    if left.is_empty() {
        return TerminateReport { killed: 0, survivors: Vec::new() };
    }
    signal_all(leader, &left, Signal::SIGKILL);
    let survivors = members.wait_until_gone(AFTER_KILL_TIMEOUT);
    if !survivors.is_empty() {
        tracing::error!(?survivors, "agent processes survived SIGKILL");
    }
    TerminateReport { killed: left.len(), survivors: survivors.iter().map(|s| s.pid).collect() }
}

/// Stands for a leader that is gone (its pid may name another process by
/// now): no process group, terminal session or pid matches it, so only the
/// session's environment variable makes a member.
const NO_LEADER: i32 = -1;

/// Ends every process still carrying the session's id when its leader is
/// gone: a daemon an agent started with `setsid()` outlives the app's crash
/// and its own leader.
pub fn terminate_leaderless(session_id: &SessionId, grace: Duration) -> TerminateReport {
    terminate_session(session_id, NO_LEADER, grace)
}

/// Whether `pid` still names the process that started at `start_time`.
pub fn is_same_process(pid: u32, start_time: Option<u64>) -> bool {
    match (read_stat(pid as i32), start_time) {
        (Some(stat), Some(expected)) => !stat.is_zombie() && stat.start_time == expected,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_stat_lines_with_awkward_command_names() {
        let line = "4242 (my (odd) prog) S 1 4242 4242 34816 4242 4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654 1000 10";
        let stat = parse_stat(4242, line).unwrap();
        assert_eq!(stat, ProcStat { pid: 4242, state: 'S', ppid: 1, pgrp: 4242, session: 4242, start_time: 987654 });
        assert!(!stat.is_zombie());
        assert_eq!(parse_stat(1, "1 (init) Z 0").map(|s| s.state), None);
        assert_eq!(parse_stat(1, "garbage"), None);
    }

    #[test]
    fn who_belongs_to_a_session_and_who_is_left_to_end() {
        let stat = |pid, state, pgrp, session| ProcStat { pid, state, ppid: 1, pgrp, session, start_time: 0 };
        // (process, carries the session variable) -> member?
        let members = [
            (stat(100, 'S', 100, 100), false, true),  // the leader
            (stat(101, 'S', 100, 100), false, true),  // a child in its group
            (stat(102, 'S', 102, 100), false, true),  // a job in its own group, same terminal session
            (stat(103, 'S', 103, 103), true, true),   // a setsid() daemon, recognised by its environment
            (stat(104, 'S', 104, 104), false, false), // an unrelated process
        ];
        for (process, carries_env, expected) in members {
            assert_eq!(is_member(&process, 100, || carries_env), expected, "{process:?}");
        }
        let mut read_env = false;
        assert!(is_member(&stat(101, 'S', 100, 100), 100, || {
            read_env = true;
            true
        }));
        assert!(!read_env, "the environment is read only when needed");

        // (process, its parent) -> still to end? This process is 7; 100 is
        // a leader whose waiting thread reaps it.
        let waited = |pid| pid == 100;
        let left = [
            (stat(100, 'Z', 100, 100), 7, false), // the leader's zombie: its waiter reaps it
            (stat(100, 'S', 100, 100), 7, true),
            (stat(101, 'Z', 100, 100), 7, true), // an adopted member's zombie: ours to reap
            (stat(101, 'Z', 100, 100), 1, false), // another's zombie: dead, not ours to reap
            (stat(101, 'R', 100, 100), 1, true),
            (stat(200, 'Z', 200, 200), 7, true), // a leader of a crashed run, adopted: ours
        ];
        for (process, parent, expected) in left {
            let process = ProcStat { ppid: parent, ..process };
            assert_eq!(still_to_end(&process, 7, waited), expected, "{process:?}");
        }
    }

    #[test]
    fn the_processes_below_a_leader() {
        let stat = |pid, ppid| ProcStat { pid, state: 'S', ppid, pgrp: pid, session: pid, start_time: 0 };
        // 10 leads; 12 is a grandchild; 14 a daemon its keeper adopted; 13 and 15 are not its.
        let all = [stat(10, 1), stat(11, 10), stat(12, 11), stat(13, 1), stat(14, 10), stat(15, 13)];
        assert_eq!(descendants_of(10, &all), HashSet::from([11, 12, 14]));
        assert!(descendants_of(NO_LEADER, &all).is_empty());
    }

    #[test]
    fn reads_its_own_stat() {
        let me = std::process::id();
        let stat = read_stat(me as i32).unwrap();
        assert_eq!(stat.pid, me as i32);
        assert!(is_same_process(me, Some(stat.start_time)));
        assert!(!is_same_process(me, Some(stat.start_time + 1)));
        assert!(!is_same_process(me, None));
    }
}
