//! `switchboard-hook`: run by an agent's hooks with the event JSON on stdin
//! (or, as Codex's `notify` program, as the last argument). It forwards the
//! event to the Switchboard app that runs the agent, or spools it when the
//! app is not running, and exits 0 within milliseconds whatever happens: a
//! hook must never slow or block the agent.

use std::io::Write;

fn main() {
    // Writes to stdout and stderr ignore failure (a closed pipe, a full
    // disk): `println!` would panic, and a hook must exit 0 whatever happens.
    let args: Vec<String> = std::env::args().collect();
    if args.iter().any(|arg| arg == "--version") {
        let _ = writeln!(std::io::stdout(), "switchboard-hook {}", env!("CARGO_PKG_VERSION"));
        return;
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
        }
        Ok(None) => {}
        Err(error) => {
            let _ = writeln!(std::io::stderr(), "switchboard-hook: {error}");
        }
    }
}
