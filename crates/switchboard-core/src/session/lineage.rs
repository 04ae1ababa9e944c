//! Who is at the other end of the socket: the user, or a process of an agent.
//!
//! Every peer runs as the user, so no credential held in a file tells them
//! apart; the process tree does. Every agent runs under its session's
//! keeper, the child subreaper that holds whatever the agent forks, double
//! forks or `setsid()`s; the engine is itself a subreaper, so what outlives
//! a keeper that died is re-parented to the engine. The windows the engine
//! starts itself (for a notification's click) are started outside any keeper
//! and recorded here as the user's. A caller is judged by [`judge`] from its
//! ancestry, what it carries, and what is recorded: see the threat model in
//! ARCHITECTURE.md for the rule and its limits.
//!
//! Linux only: reads `/proc`.

use std::collections::HashSet;
use std::fs;
use std::sync::{LazyLock, Mutex};

use super::process::{SESSION_ENV, read_stat};

/// A process told apart from a later one given the same pid: its pid and
/// its start time (clock ticks since boot).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ProcessKey {
    pub pid: i32,
    pub start_time: u64,
}

impl ProcessKey {
    /// The live (or zombie) process `pid` now, if there is one.
    pub fn of(pid: i32) -> Option<ProcessKey> {
        read_stat(pid).map(|stat| ProcessKey { pid, start_time: stat.start_time })
    }
}

/// A caller's ancestry: itself first, then its parent, its parent's parent...
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ancestry {
    pub chain: Vec<ProcessKey>,
    /// The chain was read up to the first process (the one with no parent):
    /// nothing above it was missed.
    pub complete: bool,
}

/// What the engine knows of the processes around it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Known {
    /// The first process of each running session: its keeper (or the agent
    /// itself when no keeper runs it).
    pub keepers: HashSet<ProcessKey>,
    /// The windows the engine started itself, recorded as the user's.
    pub windows: HashSet<ProcessKey>,
}

/// Who a caller is, and what told.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Judgement {
    Agent(AgentSign),
    User(UserSign),
}

/// What makes a caller a process of an agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AgentSign {
    /// Its ancestry reaches a running session's keeper (`keeper`'s pid).
    UnderKeeper { keeper: i32 },
    /// It carries a session's identity (the session variable).
    SessionIdentity,
    /// Its ancestry reaches the engine without passing through a window the
    /// engine started: what escaped a keeper that died, or an agent run
    /// with no keeper.
    BelowEngine,
    /// It could not be looked at whole (it or a parent ended while it was
    /// read): not taken for the user.
    Unknown,
}

/// What makes a caller the user.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UserSign {
    /// The engine's own process (the window's or a test's own client).
    Engine,
    /// A window the engine started (`window`'s pid), or a process of it.
    EnginesWindow { window: i32 },
    /// A process the engine did not start: the user's shells, scripts, the
    /// login service's window.
    Outside,
}

impl Judgement {
    pub fn is_agent(&self) -> bool {
        matches!(self, Judgement::Agent(_))
    }
}

/// Judges a caller: the first of a keeper, a window of the engine's and the
/// engine met going up its ancestry decides (a keeper: an agent; a window:
/// the user; the engine: an agent, since what escaped a keeper is
/// re-parented to the engine). A caller carrying a session's identity is an
/// agent wherever it runs; one that meets none of them is the user's, if its
/// ancestry was read whole. The engine itself is the user's.
pub fn judge(ancestry: &Ancestry, carries_session: bool, engine: i32, known: &Known) -> Judgement {
    let Some(caller) = ancestry.chain.first() else { return Judgement::Agent(AgentSign::Unknown) };
    if caller.pid == engine {
        return Judgement::User(UserSign::Engine);
    }
    if carries_session {
        return Judgement::Agent(AgentSign::SessionIdentity);
    }
    for process in &ancestry.chain {
        if known.keepers.contains(process) {
            return Judgement::Agent(AgentSign::UnderKeeper { keeper: process.pid });
        }
        if known.windows.contains(process) {
            return Judgement::User(UserSign::EnginesWindow { window: process.pid });
        }
        if process.pid == engine {
            return Judgement::Agent(AgentSign::BelowEngine);
        }
    }
    if ancestry.complete { Judgement::User(UserSign::Outside) } else { Judgement::Agent(AgentSign::Unknown) }
}

/// How many parents are read at most: deeper trees than this are not made
/// by anyone's tools, and one that deep is not taken for the user.
const MAX_ANCESTRY: usize = 256;

/// How many times an ancestry is read again when a parent ended while it
/// was read (its children are re-parented: the next reading finds where).
const ANCESTRY_READINGS: usize = 3;

/// The ancestry of `pid` as `/proc` tells it now.
pub fn ancestry_of(pid: i32) -> Ancestry {
    let mut last = Ancestry { chain: Vec::new(), complete: false };
    for _ in 0..ANCESTRY_READINGS {
        last = read_ancestry(pid);
        // The caller itself gone: reading again will not bring it back.
        if last.complete || last.chain.is_empty() {
            break;
        }
    }
    last
}

fn read_ancestry(pid: i32) -> Ancestry {
    let mut chain = Vec::new();
    let mut at = pid;
    while chain.len() < MAX_ANCESTRY {
        let Some(stat) = read_stat(at) else { break };
        chain.push(ProcessKey { pid: at, start_time: stat.start_time });
        // The first process of the system (or of the pid namespace) has no parent.
        if stat.ppid == 0 {
            return Ancestry { chain, complete: true };
        }
        at = stat.ppid;
    }
    Ancestry { chain, complete: false }
}

/// Whether `pid` carries a session's identity in its environment.
pub fn carries_session(pid: i32) -> bool {
    let prefix = format!("{SESSION_ENV}=").into_bytes();
    fs::read(format!("/proc/{pid}/environ"))
        .is_ok_and(|environ| environ.split(|byte| *byte == 0).any(|entry| entry.starts_with(&prefix)))
}

/// What this process (the engine) has recorded. Process-wide, as the
/// subreaper it is and the sessions it leads are.
static KNOWN: LazyLock<Mutex<Known>> = LazyLock::new(Default::default);

fn known() -> std::sync::MutexGuard<'static, Known> {
    KNOWN.lock().expect("the known processes' lock is never poisoned")
}

/// Records a session's first process (its keeper), just started.
pub fn record_keeper(process: ProcessKey) {
    known().keepers.insert(process);
}

/// Forgets a session's first process, once it has ended.
pub fn forget_keeper(pid: i32) {
    known().keepers.retain(|keeper| keeper.pid != pid);
}

/// Records a window this process started itself as the user's; windows
/// that have ended since are forgotten (their pids may be given again).
pub fn record_window(process: ProcessKey) {
    let mut known = known();
    known.windows.retain(|window| ProcessKey::of(window.pid).is_some_and(|now| now == *window));
    known.windows.insert(process);
}

/// Who the process `pid` is, seen from the engine's process `engine`.
pub fn judge_process(pid: i32, engine: i32) -> Judgement {
    let ancestry = ancestry_of(pid);
    let carries = carries_session(pid);
    judge(&ancestry, carries, engine, &known())
}

/// Starts `command` as a window of the user's: in a terminal session of
/// its own, outside any keeper (the engine starts it itself), recorded by
/// pid and start time before it can speak to the engine.
pub fn start_users_window(command: &mut std::process::Command) -> std::io::Result<std::process::Child> {
    use std::os::unix::process::CommandExt;
    // A window is never an agent's, whatever this process inherited.
    command.env_remove(SESSION_ENV);
    // SAFETY: `setsid` is async-signal-safe and touches no memory of the parent's.
    unsafe {
        command.pre_exec(|| nix::unistd::setsid().map(|_| ()).map_err(std::io::Error::from));
    }
    let child = command.spawn()?;
    // The child exists (it is ours until reaped), so its start time can be read.
    match ProcessKey::of(child.id() as i32) {
        Some(window) => record_window(window),
        None => {
            tracing::warn!(pid = child.id(), "a window just started could not be read; it is not known as the user's")
        }
    }
    Ok(child)
}

#[cfg(test)]
mod tests {
    use super::*;

    const ENGINE: i32 = 100;

    fn key(pid: i32, start_time: u64) -> ProcessKey {
        ProcessKey { pid, start_time }
    }

    /// A complete ancestry of (pid, start time) pairs, caller first, ending at init.
    fn up(pairs: &[(i32, u64)]) -> Ancestry {
        let mut chain: Vec<ProcessKey> = pairs.iter().map(|&(pid, start)| key(pid, start)).collect();
        chain.push(key(1, 0));
        Ancestry { chain, complete: true }
    }

    #[test]
    fn who_a_caller_is_by_its_ancestry() {
        let known = Known {
            // A running session's keeper (pid 200), started at 50.
            keepers: HashSet::from([key(200, 50)]),
            // A window the engine started (pid 300), started at 60.
            windows: HashSet::from([key(300, 60)]),
        };
        let agent = Judgement::Agent;
        let user = Judgement::User;
        // (ancestry, carries a session's identity) -> judgement
        let cases = [
            // An agent, under its keeper under the engine.
            (up(&[(201, 51), (200, 50), (ENGINE, 10)]), false, agent(AgentSign::UnderKeeper { keeper: 200 })),
            // A daemon the agent left (forked twice, setsid, environment cleared): its
            // keeper, a subreaper, adopted it.
            (up(&[(250, 90), (200, 50), (ENGINE, 10)]), false, agent(AgentSign::UnderKeeper { keeper: 200 })),
            // Its keeper died: it was re-parented to the engine.
            (up(&[(250, 90), (ENGINE, 10)]), false, agent(AgentSign::BelowEngine)),
            // A keeper's pid given to another process since: still below the engine.
            (up(&[(201, 99), (200, 98), (ENGINE, 10)]), false, agent(AgentSign::BelowEngine)),
            // An agent's process that went where the engine is not an ancestor, carrying its session.
            (up(&[(400, 70)]), true, agent(AgentSign::SessionIdentity)),
            // A window the engine started, and a process of it (the host window it opened).
            (up(&[(300, 60), (ENGINE, 10)]), false, user(UserSign::EnginesWindow { window: 300 })),
            (up(&[(301, 61), (300, 60), (ENGINE, 10)]), false, user(UserSign::EnginesWindow { window: 300 })),
            // A window's pid given since to another child of the engine: not the user's window.
            (up(&[(300, 75), (ENGINE, 10)]), false, agent(AgentSign::BelowEngine)),
            // The user's shell or the login service's window: the engine is not its ancestor.
            (up(&[(500, 80), (499, 20)]), false, user(UserSign::Outside)),
            // The engine that started the window (the window started the engine): not its descendant.
            (up(&[(600, 30)]), false, user(UserSign::Outside)),
            // The engine itself.
            (up(&[(ENGINE, 10)]), false, user(UserSign::Engine)),
            // A process read only in part: a parent ended while it was read.
            (Ancestry { chain: vec![key(500, 80)], complete: false }, false, agent(AgentSign::Unknown)),
            // A caller gone before it was looked at.
            (Ancestry { chain: vec![], complete: false }, false, agent(AgentSign::Unknown)),
            // Read in part but already under a keeper or a window: that decides.
            (
                Ancestry { chain: vec![key(201, 51), key(200, 50)], complete: false },
                false,
                agent(AgentSign::UnderKeeper { keeper: 200 }),
            ),
            (
                Ancestry { chain: vec![key(301, 61), key(300, 60)], complete: false },
                false,
                user(UserSign::EnginesWindow { window: 300 }),
            ),
            // A window carrying a session's identity is an agent's: the variable decides first.
            (up(&[(300, 60), (ENGINE, 10)]), true, agent(AgentSign::SessionIdentity)),
        ];
        for (ancestry, carries, expected) in cases {
            assert_eq!(judge(&ancestry, carries, ENGINE, &known), expected, "{ancestry:?} carrying: {carries}");
        }
    }

    #[test]
    fn reads_its_own_ancestry_up_to_the_first_process() {
        let me = std::process::id() as i32;
        let ancestry = ancestry_of(me);
        assert!(ancestry.complete, "{ancestry:?}");
        assert_eq!(ancestry.chain.first().map(|p| p.pid), Some(me));
        assert_eq!(ancestry.chain.get(1).map(|p| p.pid), Some(nix::unistd::getppid().as_raw()));
        assert_eq!(judge_process(me, me), Judgement::User(UserSign::Engine));
    }
}
