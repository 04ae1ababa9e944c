//! Checks a [`ProfileSpec`] before anything is stored or spawned, so a typo
//! in the "New agent" form becomes an inline error instead of a dead session;
//! and the app's [`Settings`] before they are kept.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use crate::api::{ProfileSpec, QuietHours, Settings, clock_text, minute_of_day};
use crate::error::EngineError;

/// Longest accepted agent name, in characters; names appear in the sidebar,
/// the tray and notifications.
pub const MAX_NAME_CHARS: usize = 64;

/// The longest a readiness check waits for quiet output.
pub const MAX_READY_QUIET_MS: u32 = 60_000;
/// The longest time limit a task may have.
pub const MAX_TIME_LIMIT_SECS: u32 = 7 * 86_400;
/// Compiled size limit of a prompt pattern.
pub const MAX_PATTERN_BYTES: usize = 1 << 20;

/// Validates the spec and returns it with its name trimmed.
///
/// `path_env` is the `PATH` to search (passed in, not read here).
pub fn validate_profile(spec: &ProfileSpec, path_env: Option<&OsStr>) -> Result<ProfileSpec, EngineError> {
    let mut spec = spec.clone();
    spec.name = spec.name.trim().to_owned();
    if spec.name.is_empty() {
        return invalid("name", "give the agent a name");
    }
    if spec.name.chars().count() > MAX_NAME_CHARS {
        return invalid("name", &format!("at most {MAX_NAME_CHARS} characters"));
    }
    if spec.name.chars().any(char::is_control) {
        return invalid("name", "control characters are not allowed");
    }
    spec.command = spec.command.trim().to_owned();
    if spec.command.is_empty() {
        return invalid("command", "give the command to run");
    }
    for (key, value) in &spec.env {
        if key.is_empty() || key.contains('=') || key.contains('\0') || value.contains('\0') {
            return invalid("env", &format!("`{key}` is not a valid environment variable"));
        }
    }
    spec.ready_pattern = spec.ready_pattern.map(|p| p.trim().to_owned()).filter(|p| !p.is_empty());
    if let Some(pattern) = &spec.ready_pattern
        && let Err(error) = regex::RegexBuilder::new(pattern).size_limit(MAX_PATTERN_BYTES).build()
    {
        return invalid("ready_pattern", &format!("not a usable regular expression: {error}"));
    }
    if spec.ready_quiet_ms > MAX_READY_QUIET_MS {
        return invalid("ready_quiet_ms", &format!("at most {MAX_READY_QUIET_MS} ms"));
    }
    if !(1..=MAX_TIME_LIMIT_SECS).contains(&spec.task_time_limit_secs) {
        return invalid("task_time_limit_secs", &format!("between 1 second and {} days", MAX_TIME_LIMIT_SECS / 86_400));
    }
    if spec.quiet_alert_secs > MAX_TIME_LIMIT_SECS {
        return invalid("quiet_alert_secs", &format!("at most {} days (0 for no alert)", MAX_TIME_LIMIT_SECS / 86_400));
    }
    let cwd = Path::new(&spec.cwd);
    if !cwd.is_absolute() {
        return invalid("cwd", "the working directory must be an absolute path");
    }
    if !cwd.is_dir() {
        return Err(EngineError::DirectoryMissing { path: cwd.to_path_buf() });
    }
    resolve_command(&spec.command, cwd, path_env)?;
    Ok(spec)
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
    let not_found = || EngineError::CommandNotFound { command: command.to_owned() };
    if command.contains('/') {
        let path = cwd.join(command);
        return if is_executable_file(&path) { Ok(path) } else { Err(not_found()) };
    }
    which::which_in(command, path_env, cwd).map_err(|_| not_found())
}

fn is_executable_file(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.metadata().is_ok_and(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0)
}

fn invalid<T>(field: &'static str, reason: &str) -> Result<T, EngineError> {
    Err(EngineError::InvalidInput { field, reason: reason.to_owned() })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::ErrorCode;
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

    #[test]
    fn validation_cases() {
        let dir = tempfile::tempdir().unwrap();
        let cwd = dir.path().to_str().unwrap();
        let missing = dir.path().join("gone");
        let path_env = std::env::var_os("PATH");
        let long = "x".repeat(MAX_NAME_CHARS + 1);
        /// A spec and the error code and field it must fail with (or Ok).
        type Case<'a> = (ProfileSpec, Result<(), (ErrorCode, &'a str)>);
        let cases: Vec<Case> = vec![
            (spec("a", "sh", cwd), Ok(())),
            (spec("a", "/bin/sh", cwd), Ok(())),
            (spec("  ", "sh", cwd), Err((ErrorCode::InvalidInput, "name"))),
            (spec(&long, "sh", cwd), Err((ErrorCode::InvalidInput, "name"))),
            (spec("a\u{1b}b", "sh", cwd), Err((ErrorCode::InvalidInput, "name"))),
            (spec("a", "", cwd), Err((ErrorCode::InvalidInput, "command"))),
            (spec("a", "definitely-not-a-command-xyz", cwd), Err((ErrorCode::CommandNotFound, "command"))),
            (spec("a", "./nothing-here", cwd), Err((ErrorCode::CommandNotFound, "command"))),
            (spec("a", "sh", missing.to_str().unwrap()), Err((ErrorCode::DirectoryMissing, "cwd"))),
            (spec("a", "sh", "relative/dir"), Err((ErrorCode::InvalidInput, "cwd"))),
            (ProfileSpec { ready_pattern: Some("demo> $".into()), ..spec("a", "sh", cwd) }, Ok(())),
            (ProfileSpec { ready_pattern: Some("  ".into()), ..spec("a", "sh", cwd) }, Ok(())),
            (
                ProfileSpec { ready_pattern: Some("([unclosed".into()), ..spec("a", "sh", cwd) },
                Err((ErrorCode::InvalidInput, "ready_pattern")),
            ),
            (
                ProfileSpec { ready_quiet_ms: MAX_READY_QUIET_MS + 1, ..spec("a", "sh", cwd) },
                Err((ErrorCode::InvalidInput, "ready_quiet_ms")),
            ),
            (
                ProfileSpec { task_time_limit_secs: 0, ..spec("a", "sh", cwd) },
                Err((ErrorCode::InvalidInput, "task_time_limit_secs")),
            ),
            (
                ProfileSpec { quiet_alert_secs: MAX_TIME_LIMIT_SECS + 1, ..spec("a", "sh", cwd) },
                Err((ErrorCode::InvalidInput, "quiet_alert_secs")),
            ),
            (ProfileSpec { quiet_alert_secs: 0, ..spec("a", "sh", cwd) }, Ok(())),
        ];
        for (spec, expected) in cases {
            let got = validate_profile(&spec, path_env.as_deref())
                .map(|_| ())
                .map_err(|e| (e.code(), e.field().unwrap_or("")));
            assert_eq!(got, expected, "{spec:?}");
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
    fn bad_env_names_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let mut bad = spec("a", "sh", dir.path().to_str().unwrap());
        bad.env.insert("A=B".into(), "x".into());
        let error = validate_profile(&bad, std::env::var_os("PATH").as_deref()).unwrap_err();
        assert_eq!(error.field(), Some("env"));
    }

    #[test]
    fn a_non_executable_file_is_not_a_command() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("notes.txt"), "hi").unwrap();
        let error = resolve_command("./notes.txt", dir.path(), None).unwrap_err();
        assert!(matches!(error, EngineError::CommandNotFound { .. }));
    }
}
