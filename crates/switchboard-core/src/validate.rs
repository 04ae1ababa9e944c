//! Checks a [`ProfileSpec`] before anything is stored or spawned, so a typo
//! in the "New agent" form becomes an inline error instead of a dead session.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use crate::api::ProfileSpec;
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
