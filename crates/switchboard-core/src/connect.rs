//! Connecting an agent CLI to the app: Claude Code reads its hooks from the
//! workspace's `.claude/settings.local.json`, and the app adds its own there
//! — merged with what the user has (never removing their hooks), added once
//! however often it runs, and removable. Pure functions over the settings
//! JSON; the engine reads and writes the file.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};

/// The Claude Code hook events the app listens to.
pub const CLAUDE_HOOK_EVENTS: [&str; 11] = [
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "PermissionRequest",
    "Notification",
    "SubagentStart",
    "SubagentStop",
    "TeammateIdle",
    "Stop",
    "SessionEnd",
];

/// Events whose hooks are filtered by tool name; the app's match every tool.
const TOOL_EVENTS: [&str; 3] = ["PreToolUse", "PostToolUse", "PermissionRequest"];

/// The hook binary's file name: a hook whose command runs it is the app's.
pub const HOOK_BINARY: &str = "switchboard-hook";

/// The settings file in a workspace.
pub fn claude_settings_path(workspace: &Path) -> PathBuf {
    workspace.join(".claude").join("settings.local.json")
}

fn is_ours(hook: &Value) -> bool {
    hook.get("command")
        .and_then(Value::as_str)
        .and_then(|command| command.split_whitespace().next())
        .is_some_and(|program| Path::new(program).file_name().is_some_and(|name| name == HOOK_BINARY))
}

/// The settings with the app's hook (running `hook_command`) on every event
/// the app listens to, and only once; the user's hooks and other settings
/// untouched. Refuses settings that are not a JSON object.
pub fn with_switchboard_hooks(settings: Value, hook_command: &str) -> Result<Value, String> {
    let mut settings = without_switchboard_hooks(settings)?;
    let root = settings.as_object_mut().expect("checked by without_switchboard_hooks");
    let hooks = root.entry("hooks").or_insert_with(|| Value::Object(Map::new()));
    let Some(hooks) = hooks.as_object_mut() else {
        return Err("`hooks` in the settings is not an object".into());
    };
    for event in CLAUDE_HOOK_EVENTS {
        let groups = hooks.entry(event).or_insert_with(|| Value::Array(Vec::new()));
        let Some(groups) = groups.as_array_mut() else {
            return Err(format!("`hooks.{event}` in the settings is not a list"));
        };
        let mut group = json!({"hooks": [{"type": "command", "command": hook_command, "timeout": 70}]});
        if TOOL_EVENTS.contains(&event) {
            group["matcher"] = json!("*");
        }
        groups.push(group);
    }
    Ok(settings)
}

/// The settings without any of the app's hooks (groups left empty by that
/// are dropped, and so are event lists and a `hooks` object left empty).
pub fn without_switchboard_hooks(mut settings: Value) -> Result<Value, String> {
    let Some(root) = settings.as_object_mut() else {
        return Err("the settings file does not hold a JSON object".into());
    };
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

/// Points the workspace's Claude Code settings at the hook binary (the file
/// written atomically). A settings file that is not valid JSON is left alone
/// and the reason returned: the user's settings are never lost.
pub fn connect_claude(workspace: &Path, hook_binary: &Path) -> Result<PathBuf, String> {
    let path = claude_settings_path(workspace);
    let current = match std::fs::read_to_string(&path) {
        Ok(text) => serde_json::from_str(&text)
            .map_err(|e| format!("{} is not valid JSON ({e}); left as it is", path.display()))?,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Value::Object(Map::new()),
        Err(error) => return Err(format!("reading {}: {error}", path.display())),
    };
    let merged = with_switchboard_hooks(current, &hook_binary.display().to_string())?;
    let dir = path.parent().expect("the settings path has a parent");
    std::fs::create_dir_all(dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
    let temp = dir.join(".settings.local.json.switchboard-tmp");
    let text = serde_json::to_string_pretty(&merged).expect("JSON values serialize");
    std::fs::write(&temp, text + "\n")
        .and_then(|()| std::fs::rename(&temp, &path))
        .map_err(|e| format!("writing {}: {e}", path.display()))?;
    Ok(path)
}

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

#[cfg(test)]
mod tests {
    use super::*;

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
        let once = with_switchboard_hooks(user.clone(), HOOK).unwrap();
        let twice = with_switchboard_hooks(once.clone(), HOOK).unwrap();
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
        let moved = with_switchboard_hooks(once.clone(), "/new/place/switchboard-hook").unwrap();
        assert_eq!(ours_on(&moved, "Stop"), 1);
        assert_eq!(moved["hooks"]["Stop"][1]["hooks"][0]["command"], "/new/place/switchboard-hook");

        // Removing gives the user's settings back exactly.
        assert_eq!(without_switchboard_hooks(once).unwrap(), user);
        let empty = with_switchboard_hooks(json!({}), HOOK).unwrap();
        assert_eq!(without_switchboard_hooks(empty).unwrap(), json!({}));
    }

    #[test]
    fn connecting_writes_the_file_and_leaves_broken_settings_alone() {
        let dir = tempfile::tempdir().unwrap();
        let path = connect_claude(dir.path(), Path::new(HOOK)).unwrap();
        let written: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(ours_on(&written, "Stop"), 1);

        std::fs::write(&path, "{ not json").unwrap();
        let error = connect_claude(dir.path(), Path::new(HOOK)).unwrap_err();
        assert!(error.contains("not valid JSON"), "{error}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{ not json");
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
        assert!(with_switchboard_hooks(json!([1]), HOOK).is_err());
        assert!(with_switchboard_hooks(json!({"hooks": "no"}), HOOK).is_err());
        assert!(with_switchboard_hooks(json!({"hooks": {"Stop": {}}}), HOOK).is_err());
    }
}
