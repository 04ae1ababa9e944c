//! The demo agent's behaviour, as a library so it can be tested directly.

use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use anyhow::{Context, Result, bail};
use serde::Deserialize;

pub const DEFAULT_PROMPT: &str = "\x1b[1;36mdemo>\x1b[0m ";

/// Turn bracketed paste on: a multi-line task pasted by the app then arrives
/// between `ESC[200~` and `ESC[201~` and is read as one task.
const BRACKETED_PASTE_ON: &str = "\x1b[?2004h";
const PASTE_START: &str = "\x1b[200~";
const PASTE_END: &str = "\x1b[201~";

/// Longest task the agent accepts; a paste that never ends is cut here.
pub const MAX_TASK_BYTES: usize = 1024 * 1024;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum SignalKind {
    Clarification,
    StopWork,
    Delegate,
    Completion,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    Completed,
    Partial,
    Failed,
}

impl Status {
    fn line(self) -> &'static str {
        match self {
            Status::Completed => "✅ COMPLETED",
            Status::Partial => "⚠️ PARTIAL",
            Status::Failed => "❌ FAILED: the scripted demo agent was told to fail this task",
        }
    }
}

/// One thing the agent does while working on a task.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Step {
    /// A progress line.
    Say(String),
    SleepMs(u64),
    /// A built-in example block of this signal kind.
    Signal(SignalKind),
    /// Text printed line by line as given (the terminal shows `\n` as a new line).
    Raw(String),
    /// A file in the workspace (a deliverable).
    WriteFile {
        path: String,
        content: String,
    },
    /// Write `summaries/<task_id>.md` with this status.
    Summary(Status),
    /// This many bytes of coloured filler.
    Flood(usize),
    /// Exit with this code.
    Exit(i32),
    /// A shell command run in the workspace (`sh -c`), its output shown.
    Run(String),
}

/// A scenario file: what the agent does for each task, in order. Task N
/// uses `tasks[N-1]`; past the end, the last entry repeats.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    pub prompt: Option<String>,
    #[serde(default)]
    pub tasks: Vec<ScenarioTask>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioTask {
    pub steps: Vec<Step>,
    /// Taken for any task whose text holds this, whatever its number (a
    /// fresh session counts its tasks from one again).
    #[serde(default)]
    pub when: Option<String>,
}

impl Scenario {
    pub fn load(path: &Path) -> Result<Scenario> {
        let text = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        toml::from_str(&text).with_context(|| format!("parsing scenario {}", path.display()))
    }

    /// The steps for the `task_number`-th task, whose text is `text`: the
    /// first entry whose `when` it holds, else the numbered entries in turn.
    pub fn steps_for(&self, task_number: usize, text: &str) -> Option<Vec<Step>> {
        if let Some(found) = self.tasks.iter().find(|t| t.when.as_deref().is_some_and(|w| text.contains(w))) {
            return Some(found.steps.clone());
        }
        let numbered: Vec<&ScenarioTask> = self.tasks.iter().filter(|t| t.when.is_none()).collect();
        let index = task_number.checked_sub(1)?.min(numbered.len().checked_sub(1)?);
        Some(numbered[index].steps.clone())
    }
}

pub fn default_steps() -> Vec<Step> {
    ["Reading the workspace", "Planning the change", "Editing files", "Running the checks"]
        .into_iter()
        .map(|text| Step::Say(text.into()))
        .collect()
}

pub fn parse_speed(speed: &str) -> Result<Duration> {
    Ok(match speed {
        "slow" => Duration::from_millis(800),
        "normal" => Duration::from_millis(150),
        "fast" => Duration::ZERO,
        ms => {
            Duration::from_millis(ms.parse().with_context(|| format!("`{ms}` is not slow, normal, fast or a number"))?)
        }
    })
}

/// The task id a task text asks the summary for: `summaries/<id>.md`.
pub fn task_id_in(text: &str) -> Option<String> {
    let start = text.find("summaries/")? + "summaries/".len();
    let rest = &text[start..];
    let end = rest.find(".md")?;
    let id = &rest[..end];
    let safe = !id.is_empty()
        && id.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        && !id.starts_with('.');
    safe.then(|| id.to_owned())
}

pub fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or("")
}

pub struct TaskContext {
    pub number: usize,
    pub text: String,
    pub task_id: Option<String>,
    pub workspace: PathBuf,
    pub delay: Duration,
    pub write_summaries: bool,
}

/// Reads tasks: one line each, or one bracketed paste of several lines.
pub struct TaskReader<R> {
    input: R,
}

impl<R: BufRead> TaskReader<R> {
    pub fn new(input: R) -> Self {
        TaskReader { input }
    }

    pub fn next_task(&mut self) -> Result<Option<String>> {
        let mut line = String::new();
        if self.input.read_line(&mut line)? == 0 {
            return Ok(None);
        }
        let Some(start) = line.find(PASTE_START) else {
            return Ok(Some(line.trim_end_matches(['\r', '\n']).to_owned()));
        };
        let mut task = line[start + PASTE_START.len()..].to_owned();
        while !task.contains(PASTE_END) {
            if task.len() > MAX_TASK_BYTES {
                bail!("a pasted task exceeded {MAX_TASK_BYTES} bytes");
            }
            let mut more = String::new();
            if self.input.read_line(&mut more)? == 0 {
                break;
            }
            task.push_str(&more);
        }
        if let Some(end) = task.find(PASTE_END) {
            task.truncate(end);
        }
        Ok(Some(task.replace('\r', "\n").trim_end().to_owned()))
    }
}

/// Echo control characters as themselves, not as `^[`-style text: the
/// markers around a bracketed paste then reach the terminal as the escape
/// sequences they are (which it ignores) instead of littering the screen.
pub fn echo_controls_plainly() {
    use nix::sys::termios::{LocalFlags, SetArg, tcgetattr, tcsetattr};
    let stdin = std::io::stdin();
    if let Ok(mut termios) = tcgetattr(&stdin) {
        termios.local_flags.remove(LocalFlags::ECHOCTL);
        tcsetattr(&stdin, SetArg::TCSANOW, &termios).ok();
    }
}

pub fn banner(out: &mut impl Write, print_env: bool) -> Result<()> {
    write!(out, "{BRACKETED_PASTE_ON}")?;
    writeln!(out, "\x1b[1;35mSwitchboard demo agent\x1b[0m — type a task and press Enter (`exit` quits)")?;
    if print_env {
        let var = |name| std::env::var(name).unwrap_or_else(|_| "<unset>".into());
        writeln!(out, "session: {}", var("SWITCHBOARD_SESSION_ID"))?;
        writeln!(out, "socket: {}", var("SWITCHBOARD_SOCKET"))?;
        writeln!(out, "cwd: {}", std::env::current_dir()?.display())?;
    }
    out.flush()?;
    Ok(())
}

static INTERRUPTED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

extern "C" fn on_interrupt(_: nix::libc::c_int) {
    INTERRUPTED.store(true, std::sync::atomic::Ordering::SeqCst);
}

/// Ctrl-C (SIGINT) abandons the task at work and returns to the prompt, as
/// interactive coding agents do, instead of ending the agent.
pub fn interrupt_abandons_task() {
    use nix::sys::signal::{SaFlags, SigAction, SigHandler, SigSet, Signal, sigaction};
    let action = SigAction::new(SigHandler::Handler(on_interrupt), SaFlags::SA_RESTART, SigSet::empty());
    // SAFETY: the handler only stores to an atomic, which is async-signal-safe.
    unsafe { sigaction(Signal::SIGINT, &action) }.expect("installing a SIGINT handler cannot fail");
}

/// Clears an interrupt that arrived between tasks.
pub fn clear_interrupt() {
    INTERRUPTED.store(false, std::sync::atomic::Ordering::SeqCst);
}

fn interrupted() -> bool {
    INTERRUPTED.load(std::sync::atomic::Ordering::SeqCst)
}

/// Sleeps, but wakes early when interrupted.
fn pause(duration: Duration) {
    let until = std::time::Instant::now() + duration;
    while !interrupted() {
        let left = until.saturating_duration_since(std::time::Instant::now());
        if left.is_zero() {
            break;
        }
        std::thread::sleep(left.min(Duration::from_millis(20)));
    }
}

/// Runs the steps; returns an exit code if a step asks to exit. Stops early
/// (printing so) when interrupted.
pub fn run_steps(out: &mut impl Write, task: &TaskContext, steps: &[Step]) -> Result<Option<i32>> {
    let total = steps.iter().filter(|s| matches!(s, Step::Say(_))).count();
    let mut said = 0;
    for step in steps {
        if interrupted() {
            writeln!(out, "\x1b[1;33minterrupted\x1b[0m: task abandoned")?;
            out.flush()?;
            return Ok(None);
        }
        match step {
            Step::Say(text) => {
                said += 1;
                writeln!(out, "\x1b[33m[{said}/{total}]\x1b[0m {text} \x1b[32m✓\x1b[0m")?;
                out.flush()?;
                pause(task.delay);
            }
            Step::SleepMs(ms) => {
                out.flush()?;
                pause(Duration::from_millis(*ms));
            }
            Step::Signal(kind) => write_lines(out, &signal_block(*kind, task.number))?,
            Step::Raw(text) => write_lines(out, text)?,
            Step::WriteFile { path, content } => {
                let target = task.workspace.join(path);
                if let Some(parent) = target.parent() {
                    std::fs::create_dir_all(parent)?;
                }
                std::fs::write(&target, content)?;
                writeln!(out, "\x1b[2mwrote {path}\x1b[0m")?;
            }
            Step::Summary(status) => {
                if let (true, Some(id)) = (task.write_summaries, &task.task_id) {
                    let path = write_summary(&task.workspace, id, &task.text, *status, steps)?;
                    writeln!(out, "\x1b[1;32mdone\x1b[0m: wrote {}", path.display())?;
                } else {
                    writeln!(out, "\x1b[1;32mdone\x1b[0m")?;
                }
            }
            Step::Flood(bytes) => flood(out, *bytes)?,
            Step::Exit(code) => return Ok(Some(*code)),
            Step::Run(command) => {
                let ran = std::process::Command::new("sh")
                    .arg("-c")
                    .arg(command)
                    .current_dir(&task.workspace)
                    .stdin(std::process::Stdio::null())
                    .output()?;
                out.write_all(&ran.stdout)?;
                out.write_all(&ran.stderr)?;
                writeln!(out, "\x1b[2mran {command}: {}\x1b[0m", ran.status)?;
            }
        }
    }
    out.flush()?;
    Ok(None)
}

fn write_lines(out: &mut impl Write, text: &str) -> Result<()> {
    for line in text.lines() {
        writeln!(out, "{line}")?;
    }
    out.flush()?;
    Ok(())
}

fn flood(out: &mut impl Write, bytes: usize) -> Result<()> {
    let mut written = 0;
    let mut line_number = 0u64;
    while written < bytes {
        let colour = 31 + line_number % 6;
        let line = format!("\x1b[{colour}mflood line {line_number:08} {}\x1b[0m\n", "=".repeat(48));
        out.write_all(line.as_bytes())?;
        written += line.len();
        line_number += 1;
    }
    out.flush()?;
    Ok(())
}

/// Writes the summary atomically: a temporary file, then a rename into
/// place, so a watcher never reads it half-written.
pub fn write_summary(workspace: &Path, task_id: &str, task: &str, status: Status, steps: &[Step]) -> Result<PathBuf> {
    let dir = workspace.join("summaries");
    std::fs::create_dir_all(&dir)?;
    let deliverables: Vec<&str> = steps
        .iter()
        .filter_map(|s| match s {
            Step::WriteFile { path, .. } => Some(path.as_str()),
            _ => None,
        })
        .collect();
    let mut text = format!("# Task Completion Summary\n\n## Objective\n{}\n\n## Accomplishments\n", first_line(task));
    for step in steps {
        if let Step::Say(said) = step {
            text.push_str(&format!("- {said}\n"));
        }
    }
    text.push_str("\n## Key Deliverables\n");
    if deliverables.is_empty() {
        text.push_str("- (none)\n");
    }
    for path in deliverables {
        text.push_str(&format!("- `{path}` - written by the demo agent\n"));
    }
    text.push_str(&format!(
        "\n## Test Results\n⏭️ No tests (the demo agent runs none)\n\n## Important Notes\n- Written by the scripted demo agent.\n\n## Status\n{}\n",
        status.line()
    ));
    let target = dir.join(format!("{task_id}.md"));
    let temp = dir.join(format!(".{task_id}.md.tmp"));
    std::fs::write(&temp, text)?;
    std::fs::rename(&temp, &target)?;
    Ok(target)
}

/// The example signal blocks, with the fields of the protocol spec.
pub fn signal_block(kind: SignalKind, task_number: usize) -> String {
    let header = format!("agent_id: demo-agent-task-{task_number}\ntimestamp: {}\n", rfc3339_now());
    match kind {
        SignalKind::Clarification => format!(
            "[CLARIFICATION_NEEDED]\n{header}blocked_at: \"Choosing the authentication strategy\"\nquestions:\n  - \"Analyze OAuth2, JWT, or both?\"\n  - \"What depth of analysis?\"\ncurrent_state: \"Phase 1 complete: 3 files reviewed\"\n[/CLARIFICATION_NEEDED]"
        ),
        SignalKind::StopWork => format!(
            "[STOP_WORK]\n{header}blocker_type: missing_dependency\ndetails: \"The database credentials are not available\"\nstate_snapshot: \"Phases 1-2 done; checkpoint at step 3\"\nblocked_work: \"Phase 3: migrations\"\nstop_reason: blocker\nresume_requirements: \"Provide DATABASE_URL\"\n[/STOP_WORK]"
        ),
        SignalKind::Delegate => format!(
            "[DELEGATE_WORK]\n{header}new_task_description: \"Write unit tests for the parser\"\nindependence: can_proceed_parallel\ncoordination: \"Put the tests in tests/parser.rs\"\n[/DELEGATE_WORK]"
        ),
        SignalKind::Completion => format!(
            "[COMPLETION_REPORT]\n{header}status: completed\ndeliverables:\n  - \"summaries/\"\nmetrics_achieved: \"All steps done\"\nrecommendations:\n  - \"Review the summary\"\n[/COMPLETION_REPORT]"
        ),
    }
}

/// Now as an RFC 3339 UTC timestamp.
pub fn rfc3339_now() -> String {
    let secs = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    rfc3339(secs)
}

fn rfc3339(secs: u64) -> String {
    let (days, rem) = (secs / 86_400, secs % 86_400);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z", rem / 3600, rem % 3600 / 60, rem % 60)
}

// ---- misbehaviour: processes that outlive the terminal ----

pub fn ignore_hangup_and_term() {
    use nix::sys::signal::{SigHandler, Signal, signal};
    for sig in [Signal::SIGHUP, Signal::SIGTERM] {
        // SAFETY: installing SIG_IGN runs no handler code, so it cannot break
        // async-signal safety.
        unsafe { signal(sig, SigHandler::SigIgn) }.expect("ignoring a signal cannot fail for HUP/TERM");
    }
}

/// Starts a middle process that starts the daemon and exits, so the daemon
/// is a grandchild whose parent is gone.
pub fn start_stubborn_grandchild(pid_file: &Path) -> Result<()> {
    let exe = std::env::current_exe()?;
    let status = std::process::Command::new(exe).arg("--spawn-daemon").arg(pid_file).status()?;
    if !status.success() {
        bail!("starting the stubborn grandchild failed: {status}");
    }
    // Wait until the daemon has written its pid, so a test can rely on it.
    for _ in 0..500 {
        if std::fs::read_to_string(pid_file).is_ok_and(|s| s.ends_with('\n')) {
            return Ok(());
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    bail!("the stubborn grandchild did not report its pid")
}

pub fn spawn_daemon(pid_file: &Path) -> Result<()> {
    use std::os::unix::process::CommandExt;
    let exe = std::env::current_exe()?;
    let mut command = std::process::Command::new(exe);
    command.arg("--daemon").arg(pid_file).stdin(std::process::Stdio::null());
    // SAFETY: setsid is async-signal-safe, as pre_exec requires.
    unsafe {
        command.pre_exec(|| nix::unistd::setsid().map(|_| ()).map_err(std::io::Error::from));
    }
    command.spawn()?;
    Ok(())
}

pub fn run_daemon(pid_file: &Path) -> Result<()> {
    ignore_hangup_and_term();
    std::fs::write(pid_file, format!("{}\n", std::process::id()))?;
    loop {
        std::thread::sleep(Duration::from_secs(3600));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn task_ids_are_taken_only_when_safe() {
        let cases = [
            ("do x. create summaries/task-abc-123.md with", Some("task-abc-123")),
            ("summaries/a_b.c.md", Some("a_b.c")),
            ("summaries/../etc/passwd.md", None),
            ("summaries/.hidden.md", None),
            ("summaries/.md", None),
            ("no summary here", None),
        ];
        for (text, expected) in cases {
            assert_eq!(task_id_in(text).as_deref(), expected, "{text}");
        }
    }

    #[test]
    fn reads_lines_and_bracketed_pastes_as_tasks() {
        let input = "one\r\n\x1b[200~first line\nsecond line\x1b[201~\nthree\n";
        let mut reader = TaskReader::new(input.as_bytes());
        assert_eq!(reader.next_task().unwrap().as_deref(), Some("one"));
        assert_eq!(reader.next_task().unwrap().as_deref(), Some("first line\nsecond line"));
        assert_eq!(reader.next_task().unwrap().as_deref(), Some("three"));
        assert_eq!(reader.next_task().unwrap(), None);
    }

    #[test]
    fn scenario_tasks_repeat_the_last_entry() {
        let scenario: Scenario = toml::from_str(
            r#"
            prompt = "> "
            [[tasks]]
            steps = [{ say = "first" }, { signal = "clarification" }]
            [[tasks]]
            steps = [{ sleep_ms = 5 }, { summary = "partial" }, { exit = 3 }]
            "#,
        )
        .unwrap();
        assert_eq!(scenario.steps_for(1, "").unwrap()[1], Step::Signal(SignalKind::Clarification));
        assert_eq!(scenario.steps_for(2, "").unwrap()[2], Step::Exit(3));
        assert_eq!(scenario.steps_for(7, "").unwrap()[1], Step::Summary(Status::Partial));
        assert!(Scenario::default().steps_for(1, "").is_none());
        // An entry with `when` is taken for any task that holds its words, first; the others in turn.
        let chosen: Scenario = toml::from_str(
            "[[tasks]]\nsteps = [{ say = \"plain\" }]\n[[tasks]]\nwhen = \"resolve\"\nsteps = [{ run = \"true\" }]\n",
        )
        .unwrap();
        assert_eq!(chosen.steps_for(1, "please resolve it").unwrap(), [Step::Run("true".into())]);
        assert_eq!(chosen.steps_for(2, "anything else").unwrap(), [Step::Say("plain".into())]);
        assert!(toml::from_str::<Scenario>("[[tasks]]\nsteps = [{ dance = 1 }]").is_err());
    }

    #[test]
    fn summary_has_every_protocol_section_and_lands_atomically() {
        let dir = tempfile::tempdir().unwrap();
        let steps =
            vec![Step::Say("Edited".into()), Step::WriteFile { path: "out/report.txt".into(), content: "x".into() }];
        let path = write_summary(dir.path(), "t-1", "Fix the bug\nmore", Status::Partial, &steps).unwrap();
        let text = std::fs::read_to_string(path).unwrap();
        for section in [
            "## Objective\nFix the bug",
            "## Accomplishments\n- Edited",
            "`out/report.txt`",
            "## Test Results",
            "## Important Notes",
            "## Status\n⚠️ PARTIAL",
        ] {
            assert!(text.contains(section), "missing {section:?} in\n{text}");
        }
        let names: Vec<_> =
            std::fs::read_dir(dir.path().join("summaries")).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names, vec![std::ffi::OsString::from("t-1.md")]);
    }

    #[test]
    fn signal_blocks_are_closed_and_carry_common_fields() {
        for (kind, name) in [
            (SignalKind::Clarification, "CLARIFICATION_NEEDED"),
            (SignalKind::StopWork, "STOP_WORK"),
            (SignalKind::Delegate, "DELEGATE_WORK"),
            (SignalKind::Completion, "COMPLETION_REPORT"),
        ] {
            let block = signal_block(kind, 2);
            assert!(block.starts_with(&format!("[{name}]\n")), "{block}");
            assert!(block.ends_with(&format!("[/{name}]")), "{block}");
            assert!(block.contains("agent_id: demo-agent-task-2\ntimestamp: "));
        }
    }

    #[test]
    fn rfc3339_dates() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(rfc3339(1_700_000_000), "2023-11-14T22:13:20Z");
    }

    #[test]
    fn speeds() {
        assert_eq!(parse_speed("fast").unwrap(), Duration::ZERO);
        assert_eq!(parse_speed("25").unwrap(), Duration::from_millis(25));
        assert!(parse_speed("warp").is_err());
    }
}
