//! `switchboard-hook`: run by an agent's hooks with the event JSON on stdin
//! (or, as Codex's `notify` program, as the last argument). It forwards the
//! event to the Switchboard app that runs the agent, or spools it when the
//! app is not running, within milliseconds: a hook must never slow or block
//! the agent. It exits 0 once the event is delivered or spooled; an event it
//! could neither deliver nor spool is lost, which it says on one line of
//! stderr and with [`EXIT_EVENT_LOST`].

use std::io::Write;
use std::process::ExitCode;

/// The exit status when the event was lost. Not 2: Claude Code takes a hook's
/// exit 2 as "block" (a Stop hook's would keep the agent going); any other
/// failure is shown to the user and the agent goes on.
const EXIT_EVENT_LOST: u8 = 1;

/// What the hook's files (the spool, and the data folder when it makes it)
/// keep from group and others: everything. They hold what agents did.
const PRIVATE_UMASK: libc::mode_t = 0o077;

fn main() -> ExitCode {
    // The keeper of an agent's session: before anything else, so the agent
    // gets the environment and umask the app gave it.
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some(switchboard_hook::keeper::KEEP_FLAG) {
        return match switchboard_hook::keeper::parse(&args[1..]) {
            Ok(keep) => ExitCode::from(switchboard_hook::keeper::run(&keep).clamp(0, 255) as u8),
            Err(problem) => {
                let _ = writeln!(std::io::stderr(), "switchboard-hook: {problem}");
                ExitCode::from(2)
            }
        };
    }
    // Claude Code's status line: tell the app the account's usage, show the
    // user's own line. Always exits 0 (a failing status line shows an error).
    if switchboard_hook::status_line::asked(&args) {
        let input = switchboard_hook::read_event(std::io::stdin());
        let output = switchboard_hook::status_line::run(&input, |name| std::env::var(name).ok());
        let _ = std::io::stdout().write_all(&output);
        return ExitCode::SUCCESS;
    }
    // SAFETY: umask only sets the process's file creation mask; nothing else
    // runs yet. The spool is then made 0600 and its folder 0700, whatever
    // umask the agent ran the hook with.
    unsafe { libc::umask(PRIVATE_UMASK) };
    // Writes to stdout and stderr ignore failure (a closed pipe, a full
    // disk): `println!` would panic, and the exit status must say what
    // became of the event whatever happens to them.
    if args.iter().any(|arg| arg == "--version") {
        let _ = writeln!(std::io::stdout(), "switchboard-hook {}", env!("CARGO_PKG_VERSION"));
        return ExitCode::SUCCESS;
    }
    // Codex's `notify` passes the event as an argument: then stdin is not
    // read at all (it may be a pipe that never closes).
    let from_argument = args.len() > 1 && args.last().is_some_and(|arg| arg.trim_start().starts_with('{'));
    let stdin: Box<dyn std::io::Read> = if from_argument || std::io::IsTerminal::is_terminal(&std::io::stdin()) {
        Box::new(std::io::empty())
    } else {
        Box::new(std::io::stdin())
    };
    match switchboard_hook::run(stdin, &args, |name| std::env::var(name).ok()) {
        Ok(Some(output)) => {
            let _ = writeln!(std::io::stdout(), "{output}");
            ExitCode::SUCCESS
        }
        Ok(None) => ExitCode::SUCCESS,
        Err(error) => {
            let _ = writeln!(std::io::stderr(), "switchboard-hook: {error}");
            ExitCode::from(EXIT_EVENT_LOST)
        }
    }
}
