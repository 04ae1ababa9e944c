//! Connecting an agent CLI to the app. Claude Code reads its hooks from the
//! workspace's `.claude/settings.local.json`, Codex from `hooks.json` in its
//! configuration folder; the app adds its own there — merged with what the
//! user has (never removing their hooks), added once however often it runs,
//! and removable. Codex also runs the hook binary as its `notify` program
//! when the user has none. Pure functions over the files' contents, and the
//! two that write them.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::workspace::Workspace;

use serde_json::{Map, Value, json};

/// Why the app's hooks could not be connected; the user's file is left
/// as it was in every case.
#[derive(Debug, thiserror::Error)]
pub enum ConnectError {
    #[error("{} is not valid JSON ({source}); left as it is", .path.display())]
    NotJson { path: PathBuf, source: serde_json::Error },
    #[error("the settings file does not hold a JSON object")]
    NotAnObject,
    #[error("`{key}` in the settings is not {expected}")]
    WrongShape { key: String, expected: &'static str },
    #[error("{doing} {}: {source}", .path.display())]
    Io { doing: &'static str, path: PathBuf, source: std::io::Error },
}

/// The Claude Code hook events the app listens to.
pub const CLAUDE_HOOK_EVENTS: [&str; 13] = [
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "PermissionRequest",
    "Notification",
    "SubagentStart",
    "SubagentStop",
    "TeammateIdle",
    "Stop",
    "StopFailure",
    "SessionEnd",
];

/// The Codex hook events the app listens to (its sub-agents' start and
/// stop among them: see `team::team_event`).
pub const CODEX_HOOK_EVENTS: [&str; 8] = [
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "SubagentStart",
    "SubagentStop",
    "Stop",
    "SessionEnd",
];

/// Events whose hooks are filtered by tool name; the app's match every tool.
const TOOL_EVENTS: [&str; 4] = ["PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest"];

/// The hook binary's file name: a hook whose command runs it is the app's.
pub const HOOK_BINARY: &str = "switchboard-hook";

/// The settings file in a workspace.
pub fn claude_settings_path(workspace: &Path) -> PathBuf {
    workspace.join(".claude").join("settings.local.json")
}

fn is_ours(hook: &Value) -> bool {
    hook.get("command").and_then(Value::as_str).is_some_and(|command| {
        let program = command.trim().trim_matches('\'');
        Path::new(program).file_name().is_some_and(|name| name == HOOK_BINARY)
    })
}

/// The hook binary as a shell command (agents run hook commands with a
/// shell): quoted when its path holds anything but plain characters.
fn hook_command(hook_binary: &Path) -> String {
    let path = hook_binary.display().to_string();
    if path.chars().all(|c| c.is_ascii_alphanumeric() || "/._-+".contains(c)) {
        path
    } else {
        format!("'{}'", path.replace('\'', r"'\''"))
    }
}

/// The settings with the app's hook (running `hook_command`) on each of
/// `events`, and only once; the user's hooks and other settings untouched.
/// Refuses settings that are not a JSON object.
pub fn with_switchboard_hooks(settings: Value, hook_command: &str, events: &[&str]) -> Result<Value, ConnectError> {
    let mut settings = without_switchboard_hooks(settings)?;
    let root = settings.as_object_mut().expect("checked by without_switchboard_hooks");
    let hooks = root.entry("hooks").or_insert_with(|| Value::Object(Map::new()));
    let Some(hooks) = hooks.as_object_mut() else {
        return Err(ConnectError::WrongShape { key: "hooks".into(), expected: "an object" });
    };
    for &event in events {
        let groups = hooks.entry(event).or_insert_with(|| Value::Array(Vec::new()));
        let Some(groups) = groups.as_array_mut() else {
            return Err(ConnectError::WrongShape { key: format!("hooks.{event}"), expected: "a list" });
        };
        let mut group = json!({"hooks": [{"type": "command", "command": hook_command, "timeout": 70}]});
        if TOOL_EVENTS.contains(&event) {
            group["matcher"] = json!("*");
        }
        groups.push(group);
    }
    Ok(settings)
}

/// The app's status-line command: the hook binary, handing Claude Code's
/// status-line input (the account's usage) to the app and running the
/// user's own status line for what it shows.
fn status_line_command(hook_command: &str) -> String {
    format!("{hook_command} {}", switchboard_protocol::limit::STATUS_LINE_FLAG)
}

fn is_our_status_line(settings: &Value) -> bool {
    settings.pointer("/statusLine/command").and_then(Value::as_str).is_some_and(|command| {
        command.strip_suffix(switchboard_protocol::limit::STATUS_LINE_FLAG).is_some_and(|program| {
            let program = program.trim().trim_matches('\'');
            Path::new(program).file_name().is_some_and(|name| name == HOOK_BINARY)
        })
    })
}

/// The settings with the app's status line, unless the file names a status
/// line of the user's (theirs is left as it is: the account's usage is then
/// not told). One of the app's is brought up to date.
pub fn with_switchboard_status_line(mut settings: Value, hook_command: &str) -> Result<Value, ConnectError> {
    let theirs = settings.get("statusLine").is_some_and(|line| !line.is_null()) && !is_our_status_line(&settings);
    let Some(root) = settings.as_object_mut() else {
        return Err(ConnectError::NotAnObject);
    };
    if !theirs {
        root.insert(
            "statusLine".into(),
            json!({"type": "command", "command": status_line_command(hook_command), "padding": 0}),
        );
    }
    Ok(settings)
}

/// The settings without any of the app's hooks (groups left empty by that
/// are dropped, and so are event lists and a `hooks` object left empty).
pub fn without_switchboard_hooks(mut settings: Value) -> Result<Value, ConnectError> {
    let ours = is_our_status_line(&settings);
    let Some(root) = settings.as_object_mut() else {
        return Err(ConnectError::NotAnObject);
    };
    if ours {
        root.remove("statusLine");
    }
    if let Some(Value::Object(hooks)) = root.get_mut("hooks") {
        for groups in hooks.values_mut() {
            if let Value::Array(groups) = groups {
                for group in groups.iter_mut() {
                    if let Some(Value::Array(list)) = group.get_mut("hooks") {
                        list.retain(|hook| !is_ours(hook));
                    }
                }
                groups.retain(|group| group.get("hooks").and_then(Value::as_array).is_none_or(|l| !l.is_empty()));
            }
        }
        hooks.retain(|_, groups| groups.as_array().is_none_or(|g| !g.is_empty()));
        if hooks.is_empty() {
            root.remove("hooks");
        }
    }
    Ok(settings)
}

/// Points the workspace's Claude Code settings at the hook binary. A
/// settings file that is not valid JSON is left alone and the reason
/// returned: the user's settings are never lost.
pub fn connect_claude(workspace: &Path, hook_binary: &Path) -> Result<PathBuf, ConnectError> {
    let path = claude_settings_path(workspace);
    add_hooks_to(workspace, ".claude/settings.local.json", hook_binary, &CLAUDE_HOOK_EVENTS, true)?;
    Ok(path)
}

/// Codex's configuration folder as an agent started with `profile_env` sees
/// it: its `CODEX_HOME`, else `.codex` in its home.
pub fn codex_home(profile_env: &BTreeMap<String, String>, app_env: impl Fn(&str) -> Option<String>) -> Option<PathBuf> {
    let var = |name: &str| profile_env.get(name).cloned().or_else(|| app_env(name)).filter(|v| !v.is_empty());
    var("CODEX_HOME").map(PathBuf::from).or_else(|| var("HOME").map(|home| Path::new(&home).join(".codex")))
}

/// Points Codex's `hooks.json` in `codex_home` at the hook binary (as for
/// Claude Code: merged, once, a broken file left alone). Codex runs the
/// hooks once the user trusts them (its own prompt, or
/// `--dangerously-bypass-hook-trust`).
pub fn connect_codex(codex_home: &Path, hook_binary: &Path) -> Result<PathBuf, ConnectError> {
    let path = codex_home.join("hooks.json");
    let io = |source| ConnectError::Io { doing: "creating", path: codex_home.to_path_buf(), source };
    std::fs::create_dir_all(codex_home).map_err(io)?;
    add_hooks_to(codex_home, "hooks.json", hook_binary, &CODEX_HOOK_EVENTS, false)?;
    Ok(path)
}

/// Codex's arguments with the hook binary as its `notify` program, given
/// first (before any subcommand) — unless the user's `config` or arguments
/// already name one: Codex runs a single notify program, and the user's is
/// kept.
pub fn codex_notify(args: &[String], config: Option<&str>, hook_binary: &Path) -> Vec<String> {
    let configured = config.is_some_and(|text| text.parse::<toml::Table>().map_or(true, |t| t.contains_key("notify")));
    let in_args = args.iter().enumerate().any(|(i, arg)| {
        let value = match arg.strip_prefix("--config=") {
            Some(value) => Some(value),
            None if arg == "-c" || arg == "--config" => args.get(i + 1).map(String::as_str),
            None => None,
        };
        value.is_some_and(|v| v.trim_start().starts_with("notify"))
    });
    if configured || in_args {
        return args.to_vec();
    }
    let program = toml::Value::Array(vec![toml::Value::String(hook_binary.display().to_string())]);
    let mut with = vec!["-c".to_owned(), format!("notify={program}")];
    with.extend(args.iter().cloned());
    with
}

/// Claude Code's arguments with `text` appended to its system prompt
/// (`--append-system-prompt`); after the user's own appended text when they
/// give one (the flag is taken once).
pub fn claude_instructions(args: &[String], text: &str) -> Vec<String> {
    const FLAG: &str = "--append-system-prompt";
    let mut args = args.to_vec();
    for i in 0..args.len() {
        if let Some(theirs) = args[i].strip_prefix(&format!("{FLAG}=")) {
            args[i] = format!("{FLAG}={theirs}\n\n{text}");
            return args;
        }
        if args[i] == FLAG && i + 1 < args.len() {
            args[i + 1] = format!("{}\n\n{text}", args[i + 1]);
            return args;
        }
    }
    args.extend([FLAG.to_owned(), text.to_owned()]);
    args
}

/// Codex's arguments with `text` as its developer instructions (`-c
/// developer_instructions=…`, given first), unless the user's arguments set
/// them: theirs are kept.
pub fn codex_instructions(args: &[String], text: &str) -> Vec<String> {
    let theirs = args.iter().enumerate().any(|(i, arg)| {
        let value = match arg.strip_prefix("--config=") {
            Some(value) => Some(value),
            None if arg == "-c" || arg == "--config" => args.get(i + 1).map(String::as_str),
            None => None,
        };
        value.is_some_and(|v| v.trim_start().starts_with("developer_instructions"))
    });
    if theirs {
        return args.to_vec();
    }
    let value = toml::Value::String(text.to_owned());
    let mut with = vec!["-c".to_owned(), format!("developer_instructions={value}")];
    with.extend(args.iter().cloned());
    with
}

/// Adds the app's hooks to the JSON hooks file at `path` (written
/// atomically), creating it if need be; and the app's status line
/// (`status_line`, Claude Code's settings).
fn add_hooks_to(
    folder: &Path,
    relative: &str,
    hook_binary: &Path,
    events: &[&str],
    status_line: bool,
) -> Result<(), ConnectError> {
    let path = folder.join(relative);
    let io = |doing: &'static str| {
        let path = path.clone();
        move |source| ConnectError::Io { doing, path, source }
    };
    // The file is in a folder the agent writes to: read and written through
    // no link out of it, never blocking on what stands at its path.
    let files = Workspace::open(folder).map_err(io("opening"))?;
    let current = match files.read_if_there(relative, MAX_HOOKS_FILE_BYTES).map_err(io("reading"))? {
        Some(read) if read.truncated => {
            return Err(io("reading")(std::io::Error::new(std::io::ErrorKind::InvalidData, "the file is too large")));
        }
        Some(read) => {
            serde_json::from_str(&read.text).map_err(|source| ConnectError::NotJson { path: path.clone(), source })?
        }
        None => Value::Object(Map::new()),
    };
    let mut merged = with_switchboard_hooks(current, &hook_command(hook_binary), events)?;
    if status_line {
        merged = with_switchboard_status_line(merged, &hook_command(hook_binary))?;
    }
    if let Some(dir) = Path::new(relative).parent().and_then(Path::to_str).filter(|dir| !dir.is_empty()) {
        files.create_folder(dir).map_err(io("creating"))?;
    }
    let text = serde_json::to_string_pretty(&merged).expect("JSON values serialize");
    files.write(relative, (text + "\n").as_bytes()).map_err(io("writing"))
}

/// The largest hooks file read: a settings file of hundreds of hooks is a
/// few kilobytes.
const MAX_HOOKS_FILE_BYTES: usize = 1024 * 1024;

/// Arguments that already choose Claude Code's conversation.
const CONVERSATION_FLAGS: [&str; 5] = ["--session-id", "--resume", "-r", "--continue", "-c"];

/// A Claude Code session's arguments and its conversation id: resuming
/// `resume` when given; else a fresh id passed with `--session-id` (so the
/// conversation can be resumed later), unless the user's own arguments
/// already choose one (then none is known).
pub fn claude_conversation(
    args: &[String],
    resume: Option<&str>,
    fresh: impl FnOnce() -> String,
) -> (Vec<String>, Option<String>) {
    let mut args = args.to_vec();
    let chosen = args.iter().any(|a| CONVERSATION_FLAGS.iter().any(|f| a == f || a.starts_with(&format!("{f}="))));
    if let Some(id) = resume {
        args.retain(|a| !CONVERSATION_FLAGS.contains(&a.as_str()));
        args.extend(["--resume".to_owned(), id.to_owned()]);
        return (args, Some(id.to_owned()));
    }
    if chosen {
        return (args, None);
    }
    let id = fresh();
    args.extend(["--session-id".to_owned(), id.clone()]);
    (args, Some(id))
}

/// A Codex session's arguments, continuing the conversation (Codex's
/// thread) `resume` when given: Codex's `resume` subcommand, the user's
/// arguments (it takes the same options as a new session) and the
/// thread's id last.
pub fn codex_resume(args: Vec<String>, resume: Option<&str>) -> Vec<String> {
    match resume {
        None => args,
        Some(id) => std::iter::once("resume".to_owned()).chain(args).chain(std::iter::once(id.to_owned())).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_codex_thread_is_resumed_by_its_subcommand_with_the_users_options() {
        let args = |list: &[&str]| list.iter().map(|a| a.to_string()).collect::<Vec<_>>();
        let cases = [
            (args(&["--no-daemon"]), None, args(&["--no-daemon"])),
            (args(&["--no-daemon", "-c", "k=v"]), Some("t-1"), args(&["resume", "--no-daemon", "-c", "k=v", "t-1"])),
            (Vec::new(), Some("t-2"), args(&["resume", "t-2"])),
        ];
        for (given, resume, want) in cases {
            assert_eq!(codex_resume(given.clone(), resume), want, "{given:?} {resume:?}");
        }
    }

    const HOOK: &str = "/opt/switchboard/switchboard-hook";

    fn ours_on(settings: &Value, event: &str) -> usize {
        settings["hooks"][event].as_array().map_or(0, |groups| {
            groups.iter().flat_map(|g| g["hooks"].as_array().cloned().unwrap_or_default()).filter(is_ours).count()
        })
    }

    #[test]
    fn added_once_beside_the_users_hooks_and_removable() {
        let user = json!({
            "permissions": {"allow": ["Bash(ls)"]},
            "hooks": {
                "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./guard.sh"}]}],
                "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}]
            }
        });
        let once = with_switchboard_hooks(user.clone(), HOOK, &CLAUDE_HOOK_EVENTS).unwrap();
        let twice = with_switchboard_hooks(once.clone(), HOOK, &CLAUDE_HOOK_EVENTS).unwrap();
        assert_eq!(once, twice, "idempotent");
        for event in CLAUDE_HOOK_EVENTS {
            assert_eq!(ours_on(&once, event), 1, "{event}");
        }
        assert_eq!(once["hooks"]["PreToolUse"][0]["hooks"][0]["command"], "./guard.sh");
        assert_eq!(once["hooks"]["PreToolUse"][1]["matcher"], "*");
        assert!(once["hooks"]["Stop"][1].get("matcher").is_none());
        assert_eq!(once["hooks"]["Stop"][0]["hooks"][0]["command"], "notify-send done");
        assert_eq!(once["permissions"], user["permissions"]);

        // The app moved: the old path is replaced, not added to.
        let moved = with_switchboard_hooks(once.clone(), "/new/place/switchboard-hook", &CLAUDE_HOOK_EVENTS).unwrap();
        assert_eq!(ours_on(&moved, "Stop"), 1);
        assert_eq!(moved["hooks"]["Stop"][1]["hooks"][0]["command"], "/new/place/switchboard-hook");

        // Removing gives the user's settings back exactly.
        assert_eq!(without_switchboard_hooks(once).unwrap(), user);
        let empty = with_switchboard_hooks(json!({}), HOOK, &CLAUDE_HOOK_EVENTS).unwrap();
        assert_eq!(without_switchboard_hooks(empty).unwrap(), json!({}));
    }

    #[test]
    fn the_apps_status_line_goes_in_unless_the_file_names_the_users_own() {
        let ours = format!("{HOOK} --status-line");
        // None there: the app's, once however often it is added, and gone on removal.
        let once = with_switchboard_status_line(json!({"model": "opus"}), HOOK).unwrap();
        assert_eq!(once["statusLine"]["command"], ours.as_str());
        assert_eq!(with_switchboard_status_line(once.clone(), HOOK).unwrap(), once);
        assert_eq!(without_switchboard_hooks(once.clone()).unwrap(), json!({"model": "opus"}));
        // The app's moved binary: brought up to date.
        let moved = with_switchboard_status_line(once, "/new/place/switchboard-hook").unwrap();
        assert_eq!(moved["statusLine"]["command"], "/new/place/switchboard-hook --status-line");
        // The user's own in this file: left as it is, and never removed.
        let theirs = json!({"statusLine": {"type": "command", "command": "~/bin/my-line"}});
        assert_eq!(with_switchboard_status_line(theirs.clone(), HOOK).unwrap(), theirs);
        assert_eq!(without_switchboard_hooks(theirs.clone()).unwrap(), theirs);
        // A line that merely names the binary is not the app's.
        let named = json!({"statusLine": {"type": "command", "command": "echo switchboard-hook"}});
        assert_eq!(with_switchboard_status_line(named.clone(), HOOK).unwrap(), named);
    }

    #[test]
    fn connecting_writes_the_file_and_leaves_broken_settings_alone() {
        let dir = tempfile::tempdir().unwrap();
        let path = connect_claude(dir.path(), Path::new(HOOK)).unwrap();
        let written: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(ours_on(&written, "Stop"), 1);
        assert_eq!(written["statusLine"]["command"], format!("{HOOK} --status-line").as_str());

        std::fs::write(&path, "{ not json").unwrap();
        let error = connect_claude(dir.path(), Path::new(HOOK)).unwrap_err();
        assert!(matches!(error, ConnectError::NotJson { .. }), "{error}");
        assert!(error.to_string().contains("not valid JSON"), "{error}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{ not json");
    }

    #[test]
    fn the_protocols_go_into_each_clis_own_instruction_channel() {
        let args = |list: &[&str]| list.iter().map(|a| a.to_string()).collect::<Vec<_>>();
        let text = "TEACH \"quoted\"\nline two";
        // Claude Code: appended to the system prompt, after the user's own.
        assert_eq!(
            claude_instructions(&args(&["--model", "x"]), text),
            args(&["--model", "x", "--append-system-prompt", text])
        );
        assert_eq!(
            claude_instructions(&args(&["--append-system-prompt", "Be brief."]), text),
            args(&["--append-system-prompt", &format!("Be brief.\n\n{text}")])
        );
        assert_eq!(
            claude_instructions(&args(&["--append-system-prompt=Be brief."]), text),
            args(&[&format!("--append-system-prompt=Be brief.\n\n{text}")])
        );
        // Codex: a developer-instructions override whose value reads back as the text.
        let with = codex_instructions(&args(&["--no-daemon"]), text);
        assert_eq!((with[0].as_str(), with[2].as_str()), ("-c", "--no-daemon"));
        let (key, value) = with[1].split_once('=').unwrap();
        assert_eq!(key, "developer_instructions");
        let parsed: toml::Table = format!("v = {value}").parse().unwrap();
        assert_eq!(parsed["v"].as_str(), Some(text));
        let theirs = args(&["-c", "developer_instructions=\"mine\""]);
        assert_eq!(codex_instructions(&theirs, text), theirs, "the user's own are kept");
    }

    #[test]
    fn codex_gets_its_hooks_file_and_notify_unless_the_user_has_one() {
        let dir = tempfile::tempdir().unwrap();
        let user = json!({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "./say-done"}]}]}});
        std::fs::write(dir.path().join("hooks.json"), user.to_string()).unwrap();
        let path = connect_codex(dir.path(), Path::new(HOOK)).unwrap();
        connect_codex(dir.path(), Path::new(HOOK)).unwrap();
        let written: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        for event in CODEX_HOOK_EVENTS {
            assert_eq!(ours_on(&written, event), 1, "{event}");
        }
        assert_eq!(written["hooks"]["Stop"][0]["hooks"][0]["command"], "./say-done");
        assert_eq!(without_switchboard_hooks(written).unwrap(), user);

        let args = |list: &[&str]| list.iter().map(|a| a.to_string()).collect::<Vec<_>>();
        let hook = Path::new(HOOK);
        let notify = r#"notify=["/opt/switchboard/switchboard-hook"]"#;
        let cases: [(&[&str], Option<&str>, &[&str]); 6] = [
            (&["--model", "m"], None, &["-c", notify, "--model", "m"]),
            (&[], Some("model = \"m\"\n"), &["-c", notify]),
            // The user's own notify program stays the only one.
            (&[], Some("notify = [\"notify-send\"]\n"), &[]),
            (&["-c", "notify=[\"mine\"]"], None, &["-c", "notify=[\"mine\"]"]),
            (&["--config=notify=[\"mine\"]"], None, &["--config=notify=[\"mine\"]"]),
            // A config Codex itself cannot read is not added to.
            (&[], Some("notify = [ broken"), &[]),
        ];
        for (given, config, wanted) in cases {
            assert_eq!(codex_notify(&args(given), config, hook), args(wanted), "{given:?} {config:?}");
        }
        let odd = Path::new("/opt/my 'odd\" apps/switchboard-hook");
        let value = &codex_notify(&[], None, odd)[1];
        let table = value.parse::<toml::Table>().unwrap();
        assert_eq!(table["notify"][0].as_str(), Some(odd.to_str().unwrap()), "valid TOML: {value}");
    }

    #[test]
    fn a_hook_path_with_spaces_or_quotes_is_one_shell_word() {
        let dir = tempfile::tempdir().unwrap();
        let odd = dir.path().join("my 'apps'").join(HOOK_BINARY);
        let command = hook_command(&odd);
        let said = std::process::Command::new("sh").args(["-c", &format!("printf %s {command}")]).output().unwrap();
        assert_eq!(String::from_utf8(said.stdout).unwrap(), odd.display().to_string());
        // Still recognised as the app's, so it is never added twice.
        let once = with_switchboard_hooks(json!({}), &command, &CODEX_HOOK_EVENTS).unwrap();
        let twice = with_switchboard_hooks(once.clone(), &command, &CODEX_HOOK_EVENTS).unwrap();
        assert_eq!(once, twice);
    }

    #[test]
    fn codex_home_as_the_agent_sees_it() {
        let env = |pairs: &[(&str, &str)]| -> BTreeMap<String, String> {
            pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
        };
        let app = |name: &str| (name == "HOME").then(|| "/home/me".to_owned());
        assert_eq!(codex_home(&env(&[]), app), Some(PathBuf::from("/home/me/.codex")));
        assert_eq!(codex_home(&env(&[("CODEX_HOME", "/c")]), app), Some(PathBuf::from("/c")));
        assert_eq!(codex_home(&env(&[("HOME", "/h")]), app), Some(PathBuf::from("/h/.codex")));
        assert_eq!(codex_home(&env(&[]), |_| None), None);
    }

    /// Given arguments, a conversation to resume; the arguments and id wanted.
    type Case<'a> = (Vec<String>, Option<&'a str>, Vec<String>, Option<&'a str>);

    #[test]
    fn conversation_ids() {
        let args = |list: &[&str]| list.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let fresh = || "new-id".to_owned();
        let cases: [Case; 4] = [
            (args(&["--model", "x"]), None, args(&["--model", "x", "--session-id", "new-id"]), Some("new-id")),
            (args(&["--continue"]), None, args(&["--continue"]), None),
            (args(&["--session-id=abc"]), None, args(&["--session-id=abc"]), None),
            (args(&["--model", "x"]), Some("old-id"), args(&["--model", "x", "--resume", "old-id"]), Some("old-id")),
        ];
        for (given, resume, want_args, want_id) in cases {
            let (got, id) = claude_conversation(&given, resume, fresh);
            assert_eq!((got, id.as_deref()), (want_args, want_id), "{given:?} resume {resume:?}");
        }
    }

    #[test]
    fn settings_it_cannot_merge_into_are_refused_not_overwritten() {
        assert!(with_switchboard_hooks(json!([1]), HOOK, &CLAUDE_HOOK_EVENTS).is_err());
        assert!(with_switchboard_hooks(json!({"hooks": "no"}), HOOK, &CLAUDE_HOOK_EVENTS).is_err());
        assert!(with_switchboard_hooks(json!({"hooks": {"Stop": {}}}), HOOK, &CLAUDE_HOOK_EVENTS).is_err());
    }
}
