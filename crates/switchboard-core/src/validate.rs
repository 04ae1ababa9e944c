//! Checks a [`ProfileSpec`] before anything is stored or spawned, so a typo
//! in the "New agent" form becomes an inline error instead of a dead session.
//!
//! In three steps: [`normalised`] trims what the user typed; [`look_around`]
//! reads the machine once (is the folder there, is the program); and
//! [`problems`] decides, purely, from the spec and what was found, every
//! problem at once (at most one per field), each as a sentence for the
//! person who filled the form in. [`validate_profile`] runs all three.
//!
//! The app's [`Settings`] are checked too before they are kept
//! ([`validate_settings`]).

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use crate::error::EngineError;
use switchboard_api::{ProfileField, ProfileProblem, ProfileSpec, QuietHours, Settings, clock_text, minute_of_day};

/// Longest accepted agent name, in characters; names appear in the sidebar,
/// the tray and notifications.
pub const MAX_NAME_CHARS: usize = 64;

/// The longest a readiness check waits for quiet output.
pub const MAX_READY_QUIET_MS: u32 = 60_000;
/// The longest time limit a task may have.
pub const MAX_TIME_LIMIT_SECS: u32 = 7 * 86_400;
/// Compiled size limit of a prompt pattern.
pub const MAX_PATTERN_BYTES: usize = 1 << 20;

/// What is at a path the spec names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PathFound {
    Directory,
    /// Something that is not a directory (a file, say).
    Other,
    Missing,
}

/// What the spec's command turned out to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProgramFound {
    /// An executable file.
    Program,
    /// A bare name that is on no folder of `PATH`.
    NotOnPath,
    /// A path with nothing there.
    Missing,
    /// A path to a directory.
    Directory,
    /// A path to a file that may not be run.
    NotExecutable,
    /// Not looked for: empty, or a relative path while the working
    /// directory it is relative to is not usable.
    Unchecked,
}

/// What [`look_around`] found on the machine for a spec.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Surroundings {
    /// The working directory (`Missing` when it is not absolute: not looked at).
    pub cwd: PathFound,
    pub program: ProgramFound,
    /// Another agent already has the spec's name.
    pub name_taken: bool,
}

/// The longest account name a profile gives.
const MAX_ACCOUNT_BYTES: usize = 256;

/// The spec as it is stored: name, command and ready pattern trimmed, an
/// empty ready pattern none.
pub fn normalised(spec: &ProfileSpec) -> ProfileSpec {
    let mut spec = spec.clone();
    spec.name = spec.name.trim().to_owned();
    spec.command = spec.command.trim().to_owned();
    spec.cwd = spec.cwd.trim().to_owned();
    spec.ready_pattern = spec.ready_pattern.map(|p| p.trim().to_owned()).filter(|p| !p.is_empty());
    spec.account = spec.account.map(|a| a.trim().to_owned()).filter(|a| !a.is_empty());
    spec
}

/// Looks at the working directory and the command of a normalised spec.
/// `path_env` is the `PATH` to search (passed in, not read here); whether
/// the name is taken is the store's to say.
pub fn look_around(spec: &ProfileSpec, path_env: Option<&OsStr>, name_taken: bool) -> Surroundings {
    let cwd = Path::new(&spec.cwd);
    let cwd_found = match cwd.metadata() {
        _ if !cwd.is_absolute() => PathFound::Missing,
        Ok(meta) if meta.is_dir() => PathFound::Directory,
        Ok(_) => PathFound::Other,
        Err(_) => PathFound::Missing,
    };
    let relative_path = spec.command.contains('/') && !spec.command.starts_with('/');
    let program = if spec.command.is_empty() || (relative_path && cwd_found != PathFound::Directory) {
        ProgramFound::Unchecked
    } else {
        match find_program(&spec.command, cwd, path_env) {
            Ok(_) => ProgramFound::Program,
            Err(found) => found,
        }
    };
    Surroundings { cwd: cwd_found, program, name_taken }
}

/// Every problem with a normalised spec, given what was found around it;
/// at most one per field, in the form's order. Pure.
pub fn problems(spec: &ProfileSpec, found: &Surroundings) -> Vec<ProfileProblem> {
    let mut problems = Vec::new();
    let mut add = |field: ProfileField, message: String| problems.push(ProfileProblem { field, message });

    if let Some(message) = name_problem(&spec.name, found.name_taken) {
        add(ProfileField::Name, message);
    }
    if let Some(message) = command_problem(spec, found.program) {
        add(ProfileField::Command, message);
    }
    if spec.args.iter().any(|arg| arg.contains('\0')) {
        add(ProfileField::Args, "An argument can't contain a NUL character.".into());
    }
    if let Some((key, _)) = spec
        .env
        .iter()
        .find(|(key, value)| key.is_empty() || key.contains('=') || key.contains('\0') || value.contains('\0'))
    {
        add(ProfileField::Env, format!("“{key}” is not a valid environment variable (name=value, no NUL characters)."));
    }
    if let Some(message) = cwd_problem(&spec.cwd, found.cwd) {
        add(ProfileField::Cwd, message);
    } else if spec.isolation == switchboard_api::Isolation::Worktree
        && let Err(error) = crate::worktree::repository_of(Path::new(&spec.cwd))
    {
        let message = match error {
            crate::worktree::GitError::NotRun(_) => {
                "Tasks can work in worktrees only where git is installed.".to_owned()
            }
            _ => "Tasks can work in worktrees of their own only when the folder is inside a git repository; \
                  this one is not."
                .to_owned(),
        };
        add(ProfileField::Isolation, message);
    }
    if let Some(account) = &spec.account
        && (account.len() > MAX_ACCOUNT_BYTES || account.chars().any(char::is_control))
    {
        add(ProfileField::Account, "Name the account in a line of at most 256 characters.".into());
    }
    if let Some(pattern) = &spec.ready_pattern
        && let Err(problem) = check_pattern(pattern)
    {
        add(ProfileField::ReadyPattern, problem.to_string());
    }
    if spec.ready_quiet_ms > MAX_READY_QUIET_MS {
        add(
            ProfileField::ReadyQuietMs,
            format!("Wait at most {MAX_READY_QUIET_MS} ms ({} seconds) for quiet output.", MAX_READY_QUIET_MS / 1000),
        );
    }
    if !(1..=MAX_TIME_LIMIT_SECS).contains(&spec.task_time_limit_secs) {
        add(
            ProfileField::TaskTimeLimitSecs,
            format!("A time limit is between one second and {} days.", MAX_TIME_LIMIT_SECS / 86_400),
        );
    }
    if spec.completion == switchboard_api::CompletionRule::Prompt
        && spec.kind != switchboard_protocol::AgentKind::Generic
    {
        add(
            ProfileField::Kind,
            "A task can be done when its prompt comes back only for a plain program (kind generic): Claude Code and \
             Codex say when they are done through their hooks and a summary."
                .into(),
        );
    }
    if spec.quiet_alert_secs > MAX_TIME_LIMIT_SECS {
        add(
            ProfileField::QuietAlertSecs,
            format!("Alert after at most {} days of quiet (0 never alerts).", MAX_TIME_LIMIT_SECS / 86_400),
        );
    }
    problems
}

fn name_problem(name: &str, taken: bool) -> Option<String> {
    let chars = name.chars().count();
    if name.is_empty() {
        Some("Give the agent a name.".into())
    } else if chars > MAX_NAME_CHARS {
        Some(format!("A name can be at most {MAX_NAME_CHARS} characters long; this one has {chars}."))
    } else if name.chars().any(char::is_control) {
        Some("A name can't contain control characters such as tabs or line breaks.".into())
    } else if taken {
        Some(format!("Another agent is already called “{name}”. Choose a different name."))
    } else {
        None
    }
}

fn command_problem(spec: &ProfileSpec, found: ProgramFound) -> Option<String> {
    let command = spec.command.as_str();
    if command.is_empty() {
        return Some("Give the command that starts the agent, such as claude or codex.".into());
    }
    // The CLI of the agent's kind, by the name it installs as: missing, it is not installed.
    let missing_cli = crate::presets::preset(spec.kind).filter(|preset| preset.command == command);
    if let (ProgramFound::NotOnPath, Some(preset)) = (found, missing_cli) {
        return Some(format!(
            "{} is not installed: there is no program named “{command}” on PATH. Install it with {}, then try again.",
            preset.label, preset.install
        ));
    }
    match found {
        ProgramFound::Program | ProgramFound::Unchecked => None,
        ProgramFound::NotOnPath => Some(format!(
            "No program named “{command}” was found on PATH. Check the spelling, or give the program's full path."
        )),
        ProgramFound::Missing => Some(format!("There is no file at {command}.")),
        ProgramFound::Directory => Some(format!("{command} is a folder, not a program.")),
        ProgramFound::NotExecutable => {
            Some(format!("{command} is not a program: the file is not allowed to run (no execute permission)."))
        }
    }
}

fn cwd_problem(cwd: &str, found: PathFound) -> Option<String> {
    if cwd.is_empty() {
        Some("Choose the folder the agent works in.".into())
    } else if cwd.starts_with('~') {
        Some("Give the folder's full path, starting with / (a ~ is not expanded here).".into())
    } else if !Path::new(cwd).is_absolute() {
        Some("Give the folder's full path, starting with /.".into())
    } else {
        match found {
            PathFound::Directory => None,
            PathFound::Other => Some(format!("{cwd} is a file, not a folder.")),
            PathFound::Missing => Some(format!("There is no folder at {cwd}.")),
        }
    }
}

/// Why a ready pattern cannot be used, in words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PatternProblem {
    /// What is wrong in it and where, as the parser found it.
    #[error("This is not a valid pattern: {0}.")]
    Mistake(String),
    #[error("This pattern is too large; make it simpler.")]
    TooLarge,
    /// The regex crate's own words (the parser accepted it, so this is rare).
    #[error("This is not a valid pattern ({0}).")]
    Refused(String),
}

/// Whether `pattern` is a usable ready pattern; if not, why.
pub fn check_pattern(pattern: &str) -> Result<(), PatternProblem> {
    if let Err(error) = regex_syntax::Parser::new().parse(pattern) {
        return Err(PatternProblem::Mistake(pattern_mistake(pattern, &error)));
    }
    match regex::RegexBuilder::new(pattern).size_limit(MAX_PATTERN_BYTES).build() {
        Ok(_) => Ok(()),
        Err(regex::Error::CompiledTooBig(_)) => Err(PatternProblem::TooLarge),
        // The parser above accepted it; the regex crate reads it the same way.
        Err(error) => Err(PatternProblem::Refused(error.to_string())),
    }
}

/// What is wrong in a pattern the parser refused, in words, with where.
fn pattern_mistake(pattern: &str, error: &regex_syntax::Error) -> String {
    use regex_syntax::ast::ErrorKind as Ast;
    use regex_syntax::hir::ErrorKind as Hir;
    let (what, span) = match error {
        regex_syntax::Error::Parse(error) => {
            let quoted = quote_span(pattern, error.span());
            let what = match error.kind() {
                Ast::GroupUnclosed => "a “(” is never closed".to_owned(),
                Ast::GroupUnopened => "a “)” has no “(” before it".to_owned(),
                Ast::ClassUnclosed => "a “[” is never closed (write \\[ to match a bracket)".to_owned(),
                Ast::RepetitionMissing => {
                    format!("{quoted} has nothing before it to repeat (put a \\ before it to match it as it is)")
                }
                Ast::RepetitionCountUnclosed => "a “{” is never closed (write \\{ to match a brace)".to_owned(),
                Ast::RepetitionCountInvalid => {
                    "in {m,n} the first number must not be larger than the second".to_owned()
                }
                Ast::RepetitionCountDecimalEmpty | Ast::DecimalEmpty | Ast::DecimalInvalid => {
                    "a count in braces must be a number, as in {3} or {1,5}".to_owned()
                }
                Ast::EscapeUnrecognized => format!("{quoted} is not an escape it knows (write \\\\ for a backslash)"),
                Ast::EscapeUnexpectedEof => "it ends in a lone backslash".to_owned(),
                Ast::ClassRangeInvalid => format!("the range {quoted} runs backwards"),
                Ast::UnsupportedBackreference => "back-references such as \\1 are not supported".to_owned(),
                Ast::UnsupportedLookAround => "look-around such as (?=…) or (?!…) is not supported".to_owned(),
                Ast::FlagUnrecognized
                | Ast::FlagDanglingNegation
                | Ast::FlagDuplicate { .. }
                | Ast::FlagRepeatedNegation { .. } => {
                    format!("{quoted} is not a flag it knows")
                }
                Ast::GroupNameEmpty | Ast::GroupNameInvalid | Ast::GroupNameUnexpectedEof => {
                    "a group's name is not valid".to_owned()
                }
                Ast::GroupNameDuplicate { .. } => "two groups have the same name".to_owned(),
                _ => format!("it cannot be read from {quoted} on"),
            };
            (what, error.span().start)
        }
        regex_syntax::Error::Translate(error) => {
            let quoted = quote_span(pattern, error.span());
            let what = match error.kind() {
                Hir::UnicodePropertyNotFound | Hir::UnicodePropertyValueNotFound => {
                    format!("{quoted} names no Unicode class it knows")
                }
                _ => format!("{quoted} cannot be used here"),
            };
            (what, error.span().start)
        }
        _ => return "it cannot be read as a regular expression".to_owned(),
    };
    // Where, for patterns long enough that it helps.
    if pattern.chars().count() > 8 { format!("{what} (at character {})", span.column) } else { what }
}

/// The part of `pattern` a parse error points at, in quotes; the character
/// at its start where it points between characters.
fn quote_span(pattern: &str, span: &regex_syntax::ast::Span) -> String {
    let text = pattern.get(span.start.offset..span.end.offset).unwrap_or_default();
    let text = if text.is_empty() {
        pattern.get(span.start.offset..).and_then(|rest| rest.chars().next()).map(String::from).unwrap_or_default()
    } else {
        text.to_owned()
    };
    format!("“{text}”")
}

/// Checks a spec as the engine stores it: every problem at once
/// ([`EngineError::InvalidProfile`]), or the normalised spec.
///
/// `path_env` is the `PATH` to search (passed in, not read here);
/// `name_taken` is whether another agent has the (trimmed) name.
pub fn validate_profile(
    spec: &ProfileSpec,
    name_taken: bool,
    path_env: Option<&OsStr>,
) -> Result<ProfileSpec, EngineError> {
    let spec = normalised(spec);
    let problems = problems(&spec, &look_around(&spec, path_env, name_taken));
    if problems.is_empty() {
        Ok(kept_where_found(spec, path_env))
    } else {
        Err(EngineError::InvalidProfile { problems })
    }
}

/// The spec with a command named by a program name kept as the whole path
/// it was found at on `path_env` (`claude` → `/home/me/.local/bin/claude`):
/// an engine started later with another `PATH` (a window's, a login
/// service's) still finds it, and the agent's form shows where it is. A
/// path is kept as given. Called on a spec without problems: the program is
/// there.
fn kept_where_found(mut spec: ProfileSpec, path_env: Option<&OsStr>) -> ProfileSpec {
    if spec.command.contains('/') {
        return spec;
    }
    match find_program(&spec.command, Path::new(&spec.cwd), path_env) {
        Ok(found) => spec.command = found.display().to_string(),
        // Checked a moment ago: gone meanwhile, it is looked up when it starts.
        Err(why) => tracing::warn!(command = %spec.command, ?why, "the agent's program was not found again"),
    }
    spec
}

/// The shortest default time limit and quiet alert (other than none) the
/// settings take: the window sets them in minutes.
pub const MIN_DEFAULT_SECS: u32 = 60;

/// Validates the app's settings and returns them as kept: quiet hours'
/// times written "HH:MM". Each refusal names its field (`quiet_hours_from`
/// and `quiet_hours_to` for the quiet hours' times) and says why in a
/// sentence for the user.
pub fn validate_settings(settings: &Settings) -> Result<Settings, EngineError> {
    let refuse = |field, reason| Err(EngineError::InvalidSetting { field, reason });
    let mut settings = settings.clone();
    if !(MIN_DEFAULT_SECS..=MAX_TIME_LIMIT_SECS).contains(&settings.default_task_time_limit_secs) {
        return refuse("default_task_time_limit_secs", "A time limit is at least a minute and at most 7 days.");
    }
    let alert = settings.default_quiet_alert_secs;
    if alert != 0 && !(MIN_DEFAULT_SECS..=MAX_TIME_LIMIT_SECS).contains(&alert) {
        return refuse(
            "default_quiet_alert_secs",
            "Alert after at least a minute and at most 7 days, or never (leave 0).",
        );
    }
    if settings.turn_quiet_secs > switchboard_api::MAX_TURN_QUIET_SECS {
        return refuse(
            "turn_quiet_secs",
            "An answer is over after at most an hour of quiet, or never by quiet (leave 0).",
        );
    }
    if settings.limit_margin_secs > switchboard_api::MAX_LIMIT_RETRY_SECS {
        return refuse("limit_margin_secs", "Go on at most 30 minutes after a usage limit resets.");
    }
    if !(1..=switchboard_api::MAX_LIMIT_RETRY_SECS).contains(&settings.limit_retry_secs) {
        return refuse("limit_retry_secs", "Try again after at least a second and at most 30 minutes.");
    }
    if let Some(problem) = settings.prices.problems().into_iter().next() {
        return Err(EngineError::InvalidInput { field: "prices", reason: problem });
    }
    if settings.usage_warn_percent > 99 {
        return refuse("usage_warn_percent", "Warn at 99% of a usage window at most, or never (leave 0).");
    }
    let grid = &settings.terminal_grid.chosen;
    if grid.len() > switchboard_api::MAX_GRID_TERMINALS {
        return refuse("terminal_grid", "The grid shows 9 terminals at most.");
    }
    if grid.iter().enumerate().any(|(at, agent)| grid[..at].contains(agent)) {
        return refuse("terminal_grid", "An agent has one place in the grid.");
    }
    if let QuietHours::Daily { from, to } = &settings.quiet_hours {
        let Some(start) = minute_of_day(from) else {
            return refuse("quiet_hours_from", "Give the start as hours and minutes, like 22:00.");
        };
        let Some(end) = minute_of_day(to) else {
            return refuse("quiet_hours_to", "Give the end as hours and minutes, like 07:30.");
        };
        if start == end {
            return refuse("quiet_hours_to", "Quiet hours must end at another time than they start.");
        }
        settings.quiet_hours = QuietHours::Daily { from: clock_text(start), to: clock_text(end) };
    }
    Ok(settings)
}

/// Finds the executable a command names: a path (relative ones against the
/// working directory) or a program name on `path_env`.
pub fn resolve_command(command: &str, cwd: &Path, path_env: Option<&OsStr>) -> Result<PathBuf, EngineError> {
    find_program(command, cwd, path_env).map_err(|_| EngineError::CommandNotFound { command: command.to_owned() })
}

fn find_program(command: &str, cwd: &Path, path_env: Option<&OsStr>) -> Result<PathBuf, ProgramFound> {
    use std::os::unix::fs::PermissionsExt;
    if !command.contains('/') {
        return which::which_in(command, path_env, cwd).map_err(|_| ProgramFound::NotOnPath);
    }
    let path = cwd.join(command);
    match path.metadata() {
        Err(_) => Err(ProgramFound::Missing),
        Ok(meta) if meta.is_dir() => Err(ProgramFound::Directory),
        Ok(meta) if meta.permissions().mode() & 0o111 == 0 => Err(ProgramFound::NotExecutable),
        Ok(_) => Ok(path),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use switchboard_api::ErrorCode;
    use switchboard_protocol::AgentKind;

    fn spec(name: &str, command: &str, cwd: &str) -> ProfileSpec {
        ProfileSpec {
            name: name.into(),
            command: command.into(),
            args: vec![],
            env: Default::default(),
            cwd: cwd.into(),
            kind: AgentKind::Generic,
            start_on_launch: false,
            ..Default::default()
        }
    }

    /// All found as it should be.
    const FINE: Surroundings =
        Surroundings { cwd: PathFound::Directory, program: ProgramFound::Program, name_taken: false };

    /// The problems of a spec in `/work` with `found`, as (field, message).
    fn decided(spec: ProfileSpec, found: Surroundings) -> Vec<(ProfileField, String)> {
        problems(&normalised(&spec), &found).into_iter().map(|p| (p.field, p.message)).collect()
    }

    #[test]
    fn a_program_named_on_path_is_kept_as_the_whole_path_it_was_found_at() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let tools = dir.path().join("tools");
        std::fs::create_dir_all(&tools).unwrap();
        let program = tools.join("my-agent");
        std::fs::write(&program, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::write(dir.path().join("local-tool"), "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(dir.path().join("local-tool"), std::fs::Permissions::from_mode(0o755)).unwrap();
        let cwd = dir.path().display().to_string();
        let path = std::env::join_paths([&tools]).unwrap();
        let kept = |command: &str| validate_profile(&spec("a", command, &cwd), false, Some(&path)).map(|s| s.command);
        // Whatever `PATH` a later engine has, it starts the program found now.
        assert_eq!(kept(" my-agent ").unwrap(), program.display().to_string());
        // A path is kept as the user gave it.
        assert_eq!(kept(&program.display().to_string()).unwrap(), program.display().to_string());
        assert_eq!(kept("./local-tool").unwrap(), "./local-tool");
        // Not found: refused, as before, naming the program.
        assert!(matches!(kept("not-there"), Err(EngineError::InvalidProfile { .. })));
    }

    #[test]
    fn every_problem_is_found_at_once_in_words() {
        use ProfileField as F;
        let long = "x".repeat(MAX_NAME_CHARS + 1);
        let good = || spec("reviewer", "claude", "/work");
        let one = |field: F, message: &str| vec![(field, message.to_owned())];
        /// A spec, what was found around it, and every problem it must have.
        type Case = (ProfileSpec, Surroundings, Vec<(F, String)>);
        let cases: Vec<Case> = vec![
            (good(), FINE, vec![]),
            (spec("  reviewer ", " claude ", "/work"), FINE, vec![]),
            (ProfileSpec { account: Some("work plan".into()), ..good() }, FINE, vec![]),
            (
                ProfileSpec { account: Some("a\nb".into()), ..good() },
                FINE,
                one(F::Account, "Name the account in a line of at most 256 characters."),
            ),
            (
                ProfileSpec { account: Some("a".repeat(257)), ..good() },
                FINE,
                one(F::Account, "Name the account in a line of at most 256 characters."),
            ),
            (spec("  ", "claude", "/work"), FINE, one(F::Name, "Give the agent a name.")),
            (
                spec(&long, "claude", "/work"),
                FINE,
                one(F::Name, "A name can be at most 64 characters long; this one has 65."),
            ),
            (
                spec("a\u{1b}b", "claude", "/work"),
                FINE,
                one(F::Name, "A name can't contain control characters such as tabs or line breaks."),
            ),
            (
                good(),
                Surroundings { name_taken: true, ..FINE },
                one(F::Name, "Another agent is already called “reviewer”. Choose a different name."),
            ),
            (
                spec("reviewer", "", "/work"),
                Surroundings { program: ProgramFound::Unchecked, ..FINE },
                one(F::Command, "Give the command that starts the agent, such as claude or codex."),
            ),
            (
                spec("reviewer", "clod", "/work"),
                Surroundings { program: ProgramFound::NotOnPath, ..FINE },
                one(
                    F::Command,
                    "No program named “clod” was found on PATH. Check the spelling, or give the program's full path.",
                ),
            ),
            // A known CLI missing says how to install it, under its own name.
            (
                ProfileSpec { kind: AgentKind::ClaudeCode, ..good() },
                Surroundings { program: ProgramFound::NotOnPath, ..FINE },
                one(
                    F::Command,
                    "Claude Code is not installed: there is no program named “claude” on PATH. \
                     Install it with npm install -g @anthropic-ai/claude-code, then try again.",
                ),
            ),
            (
                ProfileSpec { kind: AgentKind::Codex, ..spec("reviewer", "codex", "/work") },
                Surroundings { program: ProgramFound::NotOnPath, ..FINE },
                one(
                    F::Command,
                    "Codex is not installed: there is no program named “codex” on PATH. \
                     Install it with npm install -g @openai/codex, then try again.",
                ),
            ),
            // Another program under a known kind is a spelling to check.
            (
                ProfileSpec { kind: AgentKind::ClaudeCode, ..spec("reviewer", "clod", "/work") },
                Surroundings { program: ProgramFound::NotOnPath, ..FINE },
                one(
                    F::Command,
                    "No program named “clod” was found on PATH. Check the spelling, or give the program's full path.",
                ),
            ),
            (
                spec("reviewer", "/opt/agent", "/work"),
                Surroundings { program: ProgramFound::Missing, ..FINE },
                one(F::Command, "There is no file at /opt/agent."),
            ),
            (
                spec("reviewer", "/opt", "/work"),
                Surroundings { program: ProgramFound::Directory, ..FINE },
                one(F::Command, "/opt is a folder, not a program."),
            ),
            (
                spec("reviewer", "./notes.txt", "/work"),
                Surroundings { program: ProgramFound::NotExecutable, ..FINE },
                one(F::Command, "./notes.txt is not a program: the file is not allowed to run (no execute permission)."),
            ),
            (
                spec("reviewer", "claude", ""),
                Surroundings { cwd: PathFound::Missing, ..FINE },
                one(F::Cwd, "Choose the folder the agent works in."),
            ),
            (
                spec("reviewer", "claude", "relative/dir"),
                Surroundings { cwd: PathFound::Missing, ..FINE },
                one(F::Cwd, "Give the folder's full path, starting with /."),
            ),
            (
                spec("reviewer", "claude", "~/project"),
                Surroundings { cwd: PathFound::Missing, ..FINE },
                one(F::Cwd, "Give the folder's full path, starting with / (a ~ is not expanded here)."),
            ),
            (
                spec("reviewer", "claude", "/work/gone"),
                Surroundings { cwd: PathFound::Missing, ..FINE },
                one(F::Cwd, "There is no folder at /work/gone."),
            ),
            (
                spec("reviewer", "claude", "/work/README.md"),
                Surroundings { cwd: PathFound::Other, ..FINE },
                one(F::Cwd, "/work/README.md is a file, not a folder."),
            ),
            (ProfileSpec { ready_pattern: Some("demo> $".into()), ..good() }, FINE, vec![]),
            (ProfileSpec { ready_pattern: Some("  ".into()), ..good() }, FINE, vec![]),
            (
                ProfileSpec { ready_pattern: Some("(> $".into()), ..good() },
                FINE,
                one(F::ReadyPattern, "This is not a valid pattern: a “(” is never closed."),
            ),
            (
                ProfileSpec { ready_pattern: Some("*> ".into()), ..good() },
                FINE,
                one(
                    F::ReadyPattern,
                    "This is not a valid pattern: “*” has nothing before it to repeat (put a \\ before it to match it as it is).",
                ),
            ),
            (
                ProfileSpec { args: vec!["a\0b".into()], ..good() },
                FINE,
                one(F::Args, "An argument can't contain a NUL character."),
            ),
            (
                ProfileSpec { env: [("A=B".into(), "x".into())].into(), ..good() },
                FINE,
                one(F::Env, "“A=B” is not a valid environment variable (name=value, no NUL characters)."),
            ),
            (
                ProfileSpec { ready_quiet_ms: MAX_READY_QUIET_MS + 1, ..good() },
                FINE,
                one(F::ReadyQuietMs, "Wait at most 60000 ms (60 seconds) for quiet output."),
            ),
            (
                ProfileSpec { task_time_limit_secs: 0, ..good() },
                FINE,
                one(F::TaskTimeLimitSecs, "A time limit is between one second and 7 days."),
            ),
            (
                ProfileSpec { quiet_alert_secs: MAX_TIME_LIMIT_SECS + 1, ..good() },
                FINE,
                one(F::QuietAlertSecs, "Alert after at most 7 days of quiet (0 never alerts)."),
            ),
            (ProfileSpec { quiet_alert_secs: 0, ..good() }, FINE, vec![]),
            // Several at once, in the form's order, one per field.
            (
                ProfileSpec { ready_pattern: Some("([a-z]".into()), task_time_limit_secs: 0, ..spec("", "clod", "/gone") },
                Surroundings { cwd: PathFound::Missing, program: ProgramFound::NotOnPath, name_taken: false },
                vec![
                    (F::Name, "Give the agent a name.".into()),
                    (
                        F::Command,
                        "No program named “clod” was found on PATH. Check the spelling, or give the program's full path."
                            .into(),
                    ),
                    (F::Cwd, "There is no folder at /gone.".into()),
                    (F::ReadyPattern, "This is not a valid pattern: a “(” is never closed.".into()),
                    (F::TaskTimeLimitSecs, "A time limit is between one second and 7 days.".into()),
                ],
            ),
        ];
        for (spec, found, expected) in cases {
            assert_eq!(decided(spec.clone(), found), expected, "{spec:?} with {found:?}");
        }
    }

    #[test]
    fn settings_cases() {
        let daily = |from: &str, to: &str| Settings {
            quiet_hours: QuietHours::Daily { from: from.into(), to: to.into() },
            ..Settings::default()
        };
        let limit = |secs| Settings { default_task_time_limit_secs: secs, ..Settings::default() };
        let alert = |secs| Settings { default_quiet_alert_secs: secs, ..Settings::default() };
        let turn = |secs| Settings { turn_quiet_secs: secs, ..Settings::default() };
        let margin = |secs| Settings { limit_margin_secs: secs, ..Settings::default() };
        let retry = |secs| Settings { limit_retry_secs: secs, ..Settings::default() };
        let warn = |percent| Settings { usage_warn_percent: percent, ..Settings::default() };
        let agents: Vec<_> = (0..10).map(|_| switchboard_protocol::ProfileId::new()).collect();
        let grid = |chosen| Settings {
            terminal_grid: switchboard_api::TerminalGrid { chosen, ..Default::default() },
            ..Settings::default()
        };
        /// Settings, and the field they are refused for or the quiet hours kept.
        type Case = (Settings, Result<Option<(&'static str, &'static str)>, &'static str>);
        let cases: Vec<Case> = vec![
            (Settings::default(), Ok(None)),
            (limit(60), Ok(None)),
            (limit(MAX_TIME_LIMIT_SECS), Ok(None)),
            (limit(0), Err("default_task_time_limit_secs")),
            (limit(59), Err("default_task_time_limit_secs")),
            (limit(MAX_TIME_LIMIT_SECS + 1), Err("default_task_time_limit_secs")),
            (alert(0), Ok(None)),
            (alert(60), Ok(None)),
            (alert(30), Err("default_quiet_alert_secs")),
            (alert(MAX_TIME_LIMIT_SECS + 1), Err("default_quiet_alert_secs")),
            (turn(0), Ok(None)),
            (turn(1), Ok(None)),
            (turn(3600), Ok(None)),
            (turn(3601), Err("turn_quiet_secs")),
            (margin(0), Ok(None)),
            (margin(1800), Ok(None)),
            (margin(1801), Err("limit_margin_secs")),
            (retry(1), Ok(None)),
            (retry(0), Err("limit_retry_secs")),
            (retry(1801), Err("limit_retry_secs")),
            (warn(0), Ok(None)),
            (warn(99), Ok(None)),
            (warn(100), Err("usage_warn_percent")),
            (grid(vec![]), Ok(None)),
            (grid(agents[..9].to_vec()), Ok(None)),
            (grid(agents.clone()), Err("terminal_grid")),
            (grid(vec![agents[0].clone(), agents[1].clone(), agents[0].clone()]), Err("terminal_grid")),
            (daily("22:00", "07:00"), Ok(Some(("22:00", "07:00")))),
            (daily(" 9:05", "17:30 "), Ok(Some(("09:05", "17:30")))),
            (daily("00:00", "23:59"), Ok(Some(("00:00", "23:59")))),
            (daily("24:00", "07:00"), Err("quiet_hours_from")),
            (daily("22:60", "07:00"), Err("quiet_hours_from")),
            (daily("", "07:00"), Err("quiet_hours_from")),
            (daily("10pm", "07:00"), Err("quiet_hours_from")),
            (daily("22:0", "07:00"), Err("quiet_hours_from")),
            (daily("+1:00", "07:00"), Err("quiet_hours_from")),
            (daily("22:00", "7"), Err("quiet_hours_to")),
            (daily("22:00", "22:00"), Err("quiet_hours_to")),
            (daily("7:00", "07:00"), Err("quiet_hours_to")),
        ];
        for (settings, expected) in cases {
            let got = validate_settings(&settings);
            let got = match &got {
                Ok(kept) => Ok(match &kept.quiet_hours {
                    QuietHours::Off => None,
                    QuietHours::Daily { from, to } => Some((from.as_str(), to.as_str())),
                }),
                Err(error) => {
                    assert_eq!(error.code(), ErrorCode::InvalidInput);
                    let message = error.to_string();
                    assert!(message.ends_with('.') && !message.contains('_'), "in words: {message}");
                    Err(error.field().unwrap_or(""))
                }
            };
            assert_eq!(got, expected, "{settings:?}");
        }
    }

    #[test]
    fn pattern_mistakes_are_said_in_words() {
        let cases = [
            ("^> $", None),
            ("❯ ?$", None),
            ("(> $", Some("a “(” is never closed")),
            ("> )", Some("a “)” has no “(” before it")),
            ("[> ", Some("a “[” is never closed (write \\[ to match a bracket)")),
            ("+x", Some("“+” has nothing before it to repeat (put a \\ before it to match it as it is)")),
            ("x{2", Some("a “{” is never closed (write \\{ to match a brace)")),
            ("x{5,2}", Some("in {m,n} the first number must not be larger than the second")),
            ("\\q", Some("“\\q” is not an escape it knows (write \\\\ for a backslash)")),
            ("ab\\", Some("it ends in a lone backslash")),
            ("[z-a]", Some("the range “z-a” runs backwards")),
            ("(a)\\1", Some("back-references such as \\1 are not supported")),
            ("a(?=b)", Some("look-around such as (?=…) or (?!…) is not supported")),
            ("\\p{Klingon}", Some("“\\p{Klingon}” names no Unicode class it knows (at character 1)")),
            ("prompt> (unclosed", Some("a “(” is never closed (at character 9)")),
        ];
        for (pattern, mistake) in cases {
            let expected = mistake.map(|m| format!("This is not a valid pattern: {m}."));
            assert_eq!(check_pattern(pattern).err().map(|problem| problem.to_string()), expected, "{pattern}");
        }
        assert_eq!(
            check_pattern("\\w{1000}{1000}").unwrap_err().to_string(),
            "This pattern is too large; make it simpler."
        );
    }

    #[test]
    fn the_machine_is_looked_at_once_for_the_folder_and_the_program() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let cwd = dir.path().to_str().unwrap();
        std::fs::write(dir.path().join("notes.txt"), "hi").unwrap();
        std::fs::write(dir.path().join("agent"), "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(dir.path().join("agent"), std::fs::Permissions::from_mode(0o755)).unwrap();
        let notes = dir.path().join("notes.txt");
        let path_env = std::env::var_os("PATH");
        let look = |command: &str, cwd: &str| look_around(&spec("a", command, cwd), path_env.as_deref(), false);
        let cases = [
            (look("sh", cwd), PathFound::Directory, ProgramFound::Program),
            (look("/bin/sh", cwd), PathFound::Directory, ProgramFound::Program),
            (look("./agent", cwd), PathFound::Directory, ProgramFound::Program),
            (look("definitely-not-a-command-xyz", cwd), PathFound::Directory, ProgramFound::NotOnPath),
            (look("./nothing-here", cwd), PathFound::Directory, ProgramFound::Missing),
            (look("./notes.txt", cwd), PathFound::Directory, ProgramFound::NotExecutable),
            (look("/tmp", cwd), PathFound::Directory, ProgramFound::Directory),
            (look("", cwd), PathFound::Directory, ProgramFound::Unchecked),
            // A relative program needs its folder; a bare name does not.
            (look("./agent", "/no/such/folder"), PathFound::Missing, ProgramFound::Unchecked),
            (look("sh", "/no/such/folder"), PathFound::Missing, ProgramFound::Program),
            (look("sh", "relative"), PathFound::Missing, ProgramFound::Program),
            (look("sh", notes.to_str().unwrap()), PathFound::Other, ProgramFound::Program),
        ];
        for (i, (found, cwd, program)) in cases.into_iter().enumerate() {
            assert_eq!((found.cwd, found.program), (cwd, program), "case {i}");
        }
    }

    #[test]
    fn an_invalid_spec_is_refused_with_all_its_problems_and_a_valid_one_trimmed() {
        let dir = tempfile::tempdir().unwrap();
        let cwd = dir.path().to_str().unwrap();
        let path_env = std::env::var_os("PATH");
        let saved = validate_profile(&spec(" a ", "sh", cwd), false, path_env.as_deref()).unwrap();
        assert_eq!(saved.name, "a");

        let error =
            validate_profile(&spec("", "no-such-agent-cli", "/no/such"), false, path_env.as_deref()).unwrap_err();
        assert_eq!(error.code(), ErrorCode::InvalidProfile);
        assert_eq!(error.field(), Some("name"));
        let api = switchboard_api::ApiError::from(&error);
        let fields: Vec<&str> = api.problems.iter().map(|p| p.field.as_str()).collect();
        assert_eq!(fields, ["name", "command", "cwd"]);
        assert!(api.message.starts_with("The agent has 3 problems. name: Give the agent a name."), "{}", api.message);
    }

    #[test]
    fn a_non_executable_file_is_not_a_command() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("notes.txt"), "hi").unwrap();
        let error = resolve_command("./notes.txt", dir.path(), None).unwrap_err();
        assert!(matches!(error, EngineError::CommandNotFound { .. }));
    }
}
