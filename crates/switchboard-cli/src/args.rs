//! The command line's arguments: the app's flags ([`Cli`]) and every
//! subcommand's, as clap reads them. What each subcommand does is its own
//! module's.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::hosts;

#[derive(Parser, Debug)]
#[command(name = "switchboard", version, about = "A control room for command-line coding agents")]
pub struct Cli {
    /// Where the database and the demo workspace live. Overrides
    /// SWITCHBOARD_DATA_DIR; the default is $XDG_DATA_HOME/switchboard.
    #[arg(long, value_name = "DIR", global = true)]
    pub data_dir: Option<PathBuf>,
    /// Do not create the demo workspace and profile on first start.
    #[arg(long, global = true)]
    pub no_demo: bool,
    /// Opens the window on a task, a question, a loop or an agent once it
    /// has loaded: task:ID, signal:ID, loop:ID (what a notification the
    /// daemon showed opens when clicked) or agent:ID; a window already open
    /// on the data directory comes forward on it. Only without a subcommand.
    #[arg(long, value_name = "TARGET")]
    pub open: Option<switchboard_api::OpenTarget>,
    /// Runs the command against the engine on another machine, reached over
    /// SSH: a host of `switchboard host list`, or any destination ssh takes
    /// (user@host, an alias of your ssh config).
    #[arg(long, value_name = "DEST", global = true)]
    pub host: Option<String>,
    #[command(subcommand)]
    pub command: Option<ClientCommand>,
}

impl Cli {
    /// Reads the command line; a usage error says what is wrong, and exits
    /// with status 2.
    pub fn from_args() -> Cli {
        let cli = Cli::parse();
        if let Err(error) = cli.check() {
            error.exit();
        }
        cli
    }

    /// What clap cannot say of the arguments: `--open` opens the window,
    /// which a subcommand does not.
    fn check(&self) -> Result<(), clap::Error> {
        if self.open.is_some() && self.command.is_some() {
            use clap::CommandFactory;
            let why = "--open opens the window on what it names; it goes without a subcommand";
            return Err(Cli::command().error(clap::error::ErrorKind::ArgumentConflict, why));
        }
        Ok(())
    }
}

#[derive(Subcommand, Debug)]
pub enum ClientCommand {
    /// Runs the engine alone on the data directory, with no window, until it
    /// is asked to stop; its agents, queues and loops go on without the app.
    /// With --status: whether an engine runs there. With --stop: stop it.
    /// With --install: start it at each login (a systemd user service);
    /// --uninstall removes that service.
    Daemon(DaemonArgs),
    /// Other machines whose engines this one reaches over SSH: add (checked
    /// first), list (each one's state), remove.
    #[command(subcommand)]
    Host(hosts::HostCommand),
    /// Agent profiles of the running app.
    #[command(subcommand)]
    Agent(AgentCommand),
    /// Tasks of the running app.
    #[command(subcommand)]
    Task(TaskCommand),
    /// Loops: an agent's fresh sessions toward one goal until it is done.
    #[command(subcommand)]
    Loop(LoopCommand),
    /// Automations: work that starts by itself, on a schedule or after
    /// another agent's task.
    #[command(subcommand)]
    Automation(AutomationCommand),
    /// Worktrees: where agents that work apart made their changes, and the
    /// review of them (diff, merge, discard).
    #[command(subcommand)]
    Worktree(WorktreeCommand),
    /// Serves the window to browsers you pair, on a phone or another
    /// computer: `web` starts (kept across restarts), `web --off` stops,
    /// `web pair` makes a one-time code, `web devices` lists them, `web
    /// revoke` unpairs one.
    Web(crate::web::WebArgs),
    /// Where an agent stands in each of the spec's diagrams: each diagram's
    /// id and the node or nodes lit now.
    Flow {
        /// The agent's name (or profile id).
        #[arg(long)]
        agent: String,
        #[command(flatten)]
        output: Output,
    },
    /// An agent's event log, oldest first: hook events, signals, task and
    /// loop steps.
    Events {
        /// The agent's name (or profile id).
        #[arg(long)]
        agent: String,
        /// Only events from then on: a time (2026-11-23T14:00:00Z) or a
        /// span back from now (30s, 10m, 2h, 1d).
        #[arg(long, value_name = "TIME")]
        since: Option<String>,
        /// The most recent this many (1000 when left out).
        #[arg(long, value_name = "N", default_value_t = 1000)]
        limit: u32,
        #[command(flatten)]
        output: Output,
    },
    /// What the agents' work cost: tokens by model and their price, from
    /// the agents' own records, grouped by agent, day or task.
    Cost {
        /// From then on: a time (2026-11-23T14:00:00Z), a span back from
        /// now (7d when left out), or `today` (since the engine's machine's
        /// day began).
        #[arg(long, value_name = "TIME", default_value = "7d")]
        since: String,
        #[arg(long, value_enum, default_value = "agent")]
        by: CostBy,
        #[command(flatten)]
        output: Output,
    },
    /// Reads agent output on stdin and prints each protocol signal found in
    /// it as one JSON line; needs no running app. Exits 1 if a signal was
    /// malformed.
    Scan,
}

#[derive(Subcommand, Debug)]
pub enum AgentCommand {
    /// Adds an agent profile.
    Add {
        #[arg(long)]
        name: String,
        /// The program to run (on PATH, or a path).
        #[arg(long)]
        command: String,
        /// An argument for the program; repeat for several.
        #[arg(long = "arg", value_name = "ARG", allow_hyphen_values = true)]
        args: Vec<String>,
        /// The agent's workspace; the current directory by default.
        #[arg(long)]
        cwd: Option<PathBuf>,
        #[arg(long, value_enum, default_value = "generic")]
        kind: Kind,
        /// Where its tasks work: in its folder, or each in a git worktree of
        /// its own (the folder must be in a git repository).
        #[arg(long, value_enum, default_value = "none")]
        isolation: IsolationArg,
        /// The account its CLI works under: agents of one account reach its
        /// usage limit together (the CLI's own sign-in when left out).
        #[arg(long)]
        account: Option<String>,
        /// Keep a Claude Code or Codex agent to printed signal blocks: its CLI
        /// is not given Switchboard's tools (the MCP server `switchboard-mcp`).
        #[arg(long)]
        no_switchboard_tools: bool,
        /// What it may use a day: tokens (2mtok) or dollars (20usd). Once used
        /// up, its task at work ends over budget and it takes no new task
        /// until the next day.
        #[arg(long, value_name = "BUDGET", value_parser = parse_budget)]
        daily_budget: Option<switchboard_api::Budget>,
        #[command(flatten)]
        output: Output,
    },
    /// Changes where an agent's tasks work.
    Edit {
        /// The agent's name (or profile id).
        agent: String,
        #[arg(long, value_enum)]
        isolation: Option<IsolationArg>,
        /// The command run in each new worktree of the agent's repository
        /// (an empty one: nothing runs).
        #[arg(long, value_name = "COMMAND")]
        setup_command: Option<String>,
        /// The account its CLI works under (an empty one: the CLI's own sign-in).
        #[arg(long)]
        account: Option<String>,
        /// Whether its CLI is given Switchboard's tools (the MCP server
        /// `switchboard-mcp`) for the signal protocols.
        #[arg(long, value_name = "on|off", value_parser = on_off)]
        switchboard_tools: Option<bool>,
        /// What it may use a day (tokens or dollars; `none`: no limit). A
        /// larger one lets an agent held for the day go on now.
        #[arg(long, value_name = "BUDGET", value_parser = parse_budget_or_none)]
        daily_budget: Option<Option<switchboard_api::Budget>>,
        #[command(flatten)]
        output: Output,
    },
    /// Has an agent held back by its account's usage limit (or its model's
    /// service) go on now, without waiting for the reset.
    Resume {
        /// The agent's name (or profile id).
        agent: String,
        #[command(flatten)]
        output: Output,
    },
    /// Lists the agent profiles, with each one's state and its account's
    /// usage limit (`limited`, `limited_until`: null when the reset is not
    /// known).
    List {
        #[command(flatten)]
        output: Output,
    },
}

/// How `cost` groups what was spent.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum CostBy {
    Agent,
    Day,
    Task,
}

fn parse_budget(text: &str) -> Result<switchboard_api::Budget, String> {
    switchboard_api::Budget::parse(text)
}

fn parse_budget_or_none(text: &str) -> Result<Option<switchboard_api::Budget>, String> {
    if text.trim().eq_ignore_ascii_case("none") { Ok(None) } else { parse_budget(text).map(Some) }
}

#[derive(Subcommand, Debug)]
pub enum TaskCommand {
    /// Queues a task for an agent.
    Add {
        /// The agent's name (or profile id).
        #[arg(long)]
        agent: String,
        #[arg(long, value_enum, default_value = "normal")]
        priority: PriorityArg,
        /// Seconds; the agent's default when left out.
        #[arg(long, value_name = "SECS")]
        time_limit: Option<u32>,
        /// For an agent that works in worktrees: the branch the task's
        /// worktree is made from (the branch checked out in its folder when
        /// left out), which a merge lands on.
        #[arg(long, value_name = "BRANCH")]
        base: Option<String>,
        /// What the task may use: tokens (50000tok, 50ktok) or dollars
        /// (2.50usd). At 80 % you are told; at all of it the task is
        /// interrupted and ends over budget.
        #[arg(long, value_name = "BUDGET", value_parser = parse_budget)]
        budget: Option<switchboard_api::Budget>,
        /// What to do. Several words are joined with spaces.
        #[arg(required = true)]
        text: Vec<String>,
        #[command(flatten)]
        output: Output,
    },
    /// Lists queued, running and recent tasks.
    List {
        #[arg(long)]
        agent: Option<String>,
        #[command(flatten)]
        output: Output,
    },
    /// Shows a task and its result.
    Show {
        id: String,
        #[command(flatten)]
        output: Output,
    },
    /// Cancels a queued or running task.
    Cancel {
        id: String,
        #[command(flatten)]
        output: Output,
    },
    /// Types a task its agent took but is not ready for into it now,
    /// whatever its readiness says (its prompt is there, the ready pattern
    /// does not see it).
    TypeNow {
        id: String,
        #[command(flatten)]
        output: Output,
    },
}

#[derive(Subcommand, Debug)]
pub enum LoopCommand {
    /// Starts a loop on an agent and prints its id. Each iteration is a
    /// fresh session typed a short prompt naming the loop's files.
    Start {
        /// The agent's name (or profile id).
        #[arg(long)]
        agent: String,
        /// The most iterations it runs (10 when left out).
        #[arg(long, value_name = "N")]
        max: Option<u32>,
        /// The word that, on a line of its own in `.switchboard/progress.md`,
        /// ends the loop (LOOP_COMPLETE when left out).
        #[arg(long, value_name = "WORD")]
        stop_word: Option<String>,
        /// `<promise>TEXT</promise>` in the agent's last message ends the loop.
        #[arg(long, value_name = "TEXT")]
        promise: Option<String>,
        /// This many identical stop reasons in a row stall it (5 when left out).
        #[arg(long, value_name = "N")]
        stall_after: Option<u32>,
        /// Seconds each iteration may run; the agent's task time limit when left out.
        #[arg(long, value_name = "SECS")]
        time_limit: Option<u32>,
        /// What the whole loop may use: tokens (200ktok) or dollars (5usd).
        #[arg(long, value_name = "BUDGET", value_parser = parse_budget)]
        budget: Option<switchboard_api::Budget>,
        /// What the loop works toward. Several words are joined with spaces.
        #[arg(required = true)]
        goal: Vec<String>,
        #[command(flatten)]
        output: Output,
    },
    /// Lists active, stalled and recent loops.
    List {
        #[command(flatten)]
        output: Output,
    },
    /// Shows a loop and its iterations.
    Show {
        id: String,
        #[command(flatten)]
        output: Output,
    },
    /// Cancels an active or stalled loop, and its iteration at work.
    Cancel {
        id: String,
        #[command(flatten)]
        output: Output,
    },
    /// Resumes a stalled loop (after editing its anchor or guardrails, say).
    Resume {
        id: String,
        #[command(flatten)]
        output: Output,
    },
}

// Parsed once per run of the command line: the size of a variant is no cost.
#[allow(clippy::large_enum_variant)]
#[derive(Subcommand, Debug)]
pub enum AutomationCommand {
    /// Makes an automation and prints its id alone. It runs on the engine,
    /// with no window open, while the engine runs.
    Add {
        /// The agent whose work it starts (its name, or profile id).
        #[arg(long)]
        agent: String,
        /// When it runs: "weekdays 09:00", "daily 18:30", "mon,wed,fri 08:00",
        /// "hourly", or a span such as "2h".
        #[arg(long, value_name = "SPEC", group = "trigger")]
        every: Option<String>,
        /// When it runs, as an RFC 5545 rule: "FREQ=MONTHLY;BYMONTHDAY=-1;BYHOUR=9".
        #[arg(long, value_name = "RRULE", group = "trigger")]
        rrule: Option<String>,
        /// It runs when a task of this agent ends (see --on).
        #[arg(long, value_name = "AGENT", group = "trigger")]
        after: Option<String>,
        /// Which ends of that agent's tasks it follows.
        #[arg(long, value_enum, default_value = "completed", requires = "after")]
        on: TaskEndArg,
        /// It runs when files matching GLOB (relative to --in; repeat for
        /// more) change, once the folder is quiet for a moment.
        #[arg(long, value_name = "GLOB", group = "trigger", requires = "inside")]
        on_change: Vec<String>,
        /// The folder --on-change watches.
        #[arg(long = "in", value_name = "DIR")]
        inside: Option<String>,
        /// It runs when this branch of --repo moves to a new commit.
        #[arg(long, value_name = "BRANCH", group = "trigger", requires = "repo")]
        on_branch: Option<String>,
        /// The git repository --on-branch looks at.
        #[arg(long, value_name = "DIR")]
        repo: Option<String>,
        /// The IANA time zone its schedule is in (this machine's when left out).
        #[arg(long, value_name = "ZONE")]
        zone: Option<String>,
        /// It starts a loop toward TEXT instead of queueing a task.
        #[arg(long = "loop")]
        as_loop: bool,
        /// Runs its schedule missed while the engine did not run: one run
        /// for them all (once) or none (skip).
        #[arg(long, value_enum, default_value = "once")]
        catch_up: CatchUpArg,
        /// A run while the last one is still queued or at work: skipped
        /// (skip) or queued behind it (queue).
        #[arg(long, value_enum, default_value = "skip")]
        overlap: OverlapArg,
        /// The most runs an hour (6 when left out).
        #[arg(long, value_name = "N")]
        max_per_hour: Option<u32>,
        /// What each task (or loop) may use: tokens (50ktok) or dollars (2usd).
        #[arg(long, value_name = "BUDGET", value_parser = parse_budget)]
        budget: Option<switchboard_api::Budget>,
        /// The task's text (or the loop's goal). Several words are joined with spaces.
        #[arg(required = true)]
        text: Vec<String>,
        #[command(flatten)]
        output: Output,
    },
    /// Lists the automations: each one's state, next run and last run.
    List {
        #[command(flatten)]
        output: Output,
    },
    /// Shows an automation and its history.
    Show {
        id: String,
        #[command(flatten)]
        output: Output,
    },
    /// Pauses an automation: it starts nothing until resumed.
    Pause {
        id: String,
        #[command(flatten)]
        output: Output,
    },
    /// Resumes a paused automation (runs it missed meanwhile are not made).
    Resume {
        id: String,
        #[command(flatten)]
        output: Output,
    },
    /// Runs an automation now, as its trigger would.
    RunNow {
        id: String,
        #[command(flatten)]
        output: Output,
    },
    /// Removes an automation and its history; the work it made stays.
    Remove {
        id: String,
        #[command(flatten)]
        output: Output,
    },
}

#[derive(clap::ValueEnum, Clone, Copy, Debug)]
pub enum TaskEndArg {
    Completed,
    Failed,
    Any,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug)]
pub enum CatchUpArg {
    Once,
    Skip,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug)]
pub enum OverlapArg {
    Skip,
    Queue,
}

#[derive(Subcommand, Debug)]
pub enum WorktreeCommand {
    /// Lists the worktrees the app made: open ones, then recent merged and
    /// discarded ones, each with its task, agent, branch, state, the number
    /// of files it changed and the worktrees that change the same files.
    List {
        #[command(flatten)]
        output: Output,
    },
    /// What a task's worktree changed against its base: each file's status,
    /// then the unified diff.
    Diff {
        /// The task (or loop) it was made for, or a task that ran in it.
        task: String,
        #[command(flatten)]
        output: Output,
    },
    /// Lands a task's worktree on its base branch (what is left uncommitted
    /// is committed first). Exits 4 when it is refused: the conflicting
    /// files, or your own changes in the way.
    Merge {
        task: String,
        #[command(flatten)]
        output: Output,
    },
    /// Asks a worktree's agent, in the conversation that did its work, to
    /// bring its base in and resolve the conflicts a merge would meet now:
    /// a new task in that worktree (printed), after which it can be merged.
    Resolve {
        task: String,
        #[command(flatten)]
        output: Output,
    },
    /// Removes a task's worktree and branch. Exits 4 without --force when it
    /// holds work not merged; with --force that work is kept as a patch file,
    /// whose path is printed.
    Discard {
        task: String,
        #[arg(long)]
        force: bool,
        #[command(flatten)]
        output: Output,
    },
}

#[derive(ValueEnum, Debug, Clone, Copy)]
pub enum IsolationArg {
    None,
    Worktree,
}

impl From<IsolationArg> for switchboard_api::Isolation {
    fn from(arg: IsolationArg) -> Self {
        match arg {
            IsolationArg::None => switchboard_api::Isolation::None,
            IsolationArg::Worktree => switchboard_api::Isolation::Worktree,
        }
    }
}

#[derive(Args, Debug, Clone, Copy)]
pub struct Output {
    /// Print machine-readable JSON.
    #[arg(long)]
    pub json: bool,
}

/// `switchboard daemon [--status [--json] | --stop | --install | --uninstall]`.
#[derive(Args, Debug)]
pub struct DaemonArgs {
    /// Say whether an engine runs on the data directory (exit status 3 when none does).
    #[arg(long, conflicts_with = "stop")]
    pub status: bool,
    /// Ask the engine on the data directory to stop its agents and exit, and wait until it has.
    #[arg(long)]
    pub stop: bool,
    /// Start the daemon on the data directory at each login: install and enable a systemd user service.
    #[arg(long, conflicts_with_all = ["status", "stop", "uninstall"])]
    pub install: bool,
    /// Remove the systemd user service `--install` wrote (a daemon it started keeps running).
    #[arg(long, conflicts_with_all = ["status", "stop"])]
    pub uninstall: bool,
    /// Carry the engine's connection over standard input and output, starting the daemon if
    /// none runs: what another machine runs over SSH to reach this one's engine.
    #[arg(long, conflicts_with_all = ["status", "stop", "install", "uninstall"])]
    pub stdio: bool,
    #[command(flatten)]
    pub output: Output,
}

#[derive(ValueEnum, Debug, Clone, Copy)]
pub enum Kind {
    Generic,
    ClaudeCode,
    Codex,
}

#[derive(ValueEnum, Debug, Clone, Copy)]
pub enum PriorityArg {
    Urgent,
    Normal,
}

/// `on` or `off`, as a flag's value says whether something is.
fn on_off(value: &str) -> Result<bool, String> {
    match value {
        "on" => Ok(true),
        "off" => Ok(false),
        other => Err(format!("say on or off, not `{other}`")),
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    #[test]
    fn parses_the_documented_commands() {
        let parse = |line: &str| Cli::try_parse_from(line.split_whitespace());
        let cli =
            parse("switchboard --data-dir /d task add --agent demo --priority urgent fix the bug --json").unwrap();
        assert_eq!(cli.data_dir.as_deref(), Some(Path::new("/d")));
        match cli.command {
            Some(ClientCommand::Task(TaskCommand::Add { agent, priority, text, output, .. })) => {
                assert_eq!(agent, "demo");
                assert!(matches!(priority, PriorityArg::Urgent));
                assert_eq!(text, ["fix", "the", "bug"]);
                assert!(output.json);
            }
            other => panic!("{other:?}"),
        }
        assert!(parse("switchboard agent add --name n --command sh --arg -c --arg ls --kind claude-code").is_ok());
        assert!(parse("switchboard task list --agent demo").is_ok());
        assert!(parse("switchboard").unwrap().command.is_none());
        assert!(parse("switchboard --no-demo").is_ok());
        assert!(parse("switchboard task add --agent demo").is_err(), "a task needs text");
        assert!(parse("switchboard task add --agent a --priority high x").is_err());
        let tools = |value: &str| match parse(&format!("switchboard agent edit a --switchboard-tools {value}")) {
            Ok(Cli { command: Some(ClientCommand::Agent(AgentCommand::Edit { switchboard_tools, .. })), .. }) => {
                Ok(switchboard_tools)
            }
            Ok(other) => panic!("{other:?}"),
            Err(error) => Err(error.to_string()),
        };
        assert_eq!(tools("on"), Ok(Some(true)));
        assert_eq!(tools("off"), Ok(Some(false)));
        assert!(tools("maybe").unwrap_err().contains("say on or off, not `maybe`"));
    }

    #[test]
    fn the_window_opens_on_a_target_named_once_and_never_with_a_subcommand() {
        const ID: &str = "3f2b8c1e-4d5a-4b6c-8d7e-9f0a1b2c3d4e";
        let parse = |line: String| {
            Cli::try_parse_from(line.split_whitespace())
                .and_then(|cli| cli.check().map(|()| cli))
                .map(|cli| cli.open.map(|target| target.to_string()))
                .map_err(|error| (error.kind(), error.to_string()))
        };
        let bad = |text: &str| format!("invalid value '{text}' for '--open <TARGET>': ");
        assert_eq!(parse(format!("switchboard --open task:{ID}")), Ok(Some(format!("task:{ID}"))));
        assert_eq!(parse(format!("switchboard --data-dir /d --open loop:{ID}")), Ok(Some(format!("loop:{ID}"))));
        assert_eq!(parse(format!("switchboard --open signal:{ID} --no-demo")), Ok(Some(format!("signal:{ID}"))));
        assert_eq!(parse(format!("switchboard --open agent:{ID}")), Ok(Some(format!("agent:{ID}"))));
        assert_eq!(parse("switchboard".into()), Ok(None));
        let refused: &[(String, clap::error::ErrorKind, String)] = &[
            (
                format!("switchboard --open profile:{ID}"),
                clap::error::ErrorKind::ValueValidation,
                format!(
                    "{}`profile:{ID}` is not something the window opens: give task:<id>, signal:<id>, loop:<id> or agent:<id>",
                    bad(&format!("profile:{ID}"))
                ),
            ),
            (
                "switchboard --open task:42".into(),
                clap::error::ErrorKind::ValueValidation,
                format!("{}`42` is not a valid task id", bad("task:42")),
            ),
            (
                format!("switchboard --open task:{ID} task list"),
                clap::error::ErrorKind::ArgumentConflict,
                "--open opens the window on what it names; it goes without a subcommand".into(),
            ),
        ];
        for (line, kind, words) in refused {
            let (got_kind, message) = parse(line.clone()).unwrap_err();
            assert_eq!(got_kind, *kind, "{line}: {message}");
            assert!(message.contains(words.as_str()), "{line}: {message}");
        }
        // Given after a subcommand it is that subcommand's, which has none.
        assert!(parse(format!("switchboard task list --open task:{ID}")).is_err());
    }
}
