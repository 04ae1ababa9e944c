//! `switchboard-demo-agent`: the scripted agent shipped with Switchboard.
//!
//! It behaves like a small interactive coding agent: it shows a prompt, reads
//! a task (a line, or a bracketed paste of several lines), prints coloured
//! progress, and — when the task names `summaries/<task_id>.md` — writes that
//! summary the way the completion protocol asks. Flags or a scenario file make
//! it print protocol signal blocks, run slowly or fast, flood its output,
//! crash, exit, or leave a stubborn daemon behind, so tests and the demo can
//! exercise every path of the app without a real agent installed.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Parser;
use switchboard_tests::demo::{self, Scenario, SignalKind, Status, Step};

#[derive(Parser, Debug)]
#[command(name = "switchboard-demo-agent", version, about = "Scripted demo agent for Switchboard")]
struct Args {
    /// A TOML scenario file: per-task steps (see tests/fixtures/scenarios/).
    #[arg(long)]
    scenario: Option<PathBuf>,
    /// The prompt shown while waiting for a task.
    #[arg(long)]
    prompt: Option<String>,
    /// Pause between progress steps: `slow` (800 ms), `normal` (150 ms),
    /// `fast` (0), or a number of milliseconds.
    #[arg(long, default_value = "normal")]
    speed: String,
    /// After the steps of every task, print this signal block.
    #[arg(long, value_enum)]
    signal: Vec<SignalKind>,
    /// Print this many bytes of coloured output for every task.
    #[arg(long)]
    flood: Option<usize>,
    /// Abort (SIGABRT) when the N-th task arrives.
    #[arg(long)]
    crash_on_task: Option<usize>,
    /// Exit with --exit-code when the N-th task arrives.
    #[arg(long)]
    exit_on_task: Option<usize>,
    #[arg(long, default_value_t = 0)]
    exit_code: i32,
    /// Never write summaries, even when a task names one.
    #[arg(long)]
    no_summary: bool,
    /// Status written into summaries.
    #[arg(long, value_enum, default_value = "completed")]
    status: Status,
    /// Start a daemon grandchild (own session, ignores SIGHUP and SIGTERM,
    /// parent gone) and write its pid to this file.
    #[arg(long)]
    stubborn_grandchild: Option<PathBuf>,
    /// Ignore SIGHUP and SIGTERM, so only SIGKILL ends this agent.
    #[arg(long)]
    ignore_signals: bool,
    /// Print the session id, socket and working directory at start.
    #[arg(long)]
    print_env: bool,
    /// Internal: the middle process of --stubborn-grandchild.
    #[arg(long, hide = true)]
    spawn_daemon: Option<PathBuf>,
    /// Internal: the daemon itself.
    #[arg(long, hide = true)]
    daemon: Option<PathBuf>,
}

fn main() -> Result<()> {
    let args = Args::parse();
    if let Some(pid_file) = &args.daemon {
        return demo::run_daemon(pid_file);
    }
    if let Some(pid_file) = &args.spawn_daemon {
        return demo::spawn_daemon(pid_file);
    }
    if args.ignore_signals {
        demo::ignore_hangup_and_term();
    }
    demo::interrupt_abandons_task();
    demo::echo_controls_plainly();
    if let Some(pid_file) = &args.stubborn_grandchild {
        demo::start_stubborn_grandchild(pid_file)?;
    }

    let scenario = match &args.scenario {
        Some(path) => Scenario::load(path)?,
        None => Scenario::default(),
    };
    let delay = demo::parse_speed(&args.speed).context("--speed")?;
    let prompt = args.prompt.clone().or(scenario.prompt.clone()).unwrap_or_else(|| demo::DEFAULT_PROMPT.into());
    let stdout = std::io::stdout();
    let mut out = stdout.lock();

    demo::banner(&mut out, args.print_env)?;
    let stdin = std::io::stdin();
    let mut input = demo::TaskReader::new(stdin.lock());
    let mut task_number = 0;
    loop {
        write!(out, "{prompt}")?;
        out.flush()?;
        let Some(task) = input.next_task()? else {
            writeln!(out, "\n\x1b[2mend of input; goodbye\x1b[0m")?;
            return Ok(());
        };
        let trimmed = task.trim();
        if trimmed.is_empty() {
            continue;
        }
        if trimmed == "exit" || trimmed == "quit" {
            writeln!(out, "goodbye")?;
            return Ok(());
        }
        task_number += 1;
        demo::clear_interrupt();
        writeln!(out, "received: {}", demo::first_line(trimmed))?;
        if args.crash_on_task == Some(task_number) {
            writeln!(out, "\x1b[1;31mfatal: the demo agent crashed (as asked)\x1b[0m")?;
            out.flush()?;
            std::process::abort();
        }
        if args.exit_on_task == Some(task_number) {
            writeln!(out, "exiting with code {} (as asked)", args.exit_code)?;
            out.flush()?;
            std::process::exit(args.exit_code);
        }

        let mut steps = scenario.steps_for(task_number, trimmed).unwrap_or_else(demo::default_steps);
        steps.extend(args.signal.iter().map(|kind| Step::Signal(*kind)));
        if let Some(bytes) = args.flood {
            steps.push(Step::Flood(bytes));
        }
        // Without a scenario every task ends with its summary; a scenario
        // says exactly when (or whether) one is written.
        if args.scenario.is_none() && !args.no_summary {
            // A deliverable to return with the summary, as real agents have.
            if let Some(id) = demo::task_id_in(trimmed) {
                let content = format!("# Notes\n\nWhat the demo agent did for: {}\n", demo::first_line(trimmed));
                steps.push(Step::WriteFile { path: format!("notes/{id}.md"), content });
            }
            steps.push(Step::Summary(args.status));
        }
        let context = demo::TaskContext {
            number: task_number,
            text: trimmed.to_owned(),
            task_id: demo::task_id_in(trimmed),
            workspace: std::env::current_dir()?,
            delay,
            write_summaries: !args.no_summary,
        };
        if let Some(code) = demo::run_steps(&mut out, &context, &steps)? {
            out.flush()?;
            std::process::exit(code);
        }
    }
}
