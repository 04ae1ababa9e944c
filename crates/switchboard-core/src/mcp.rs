//! Switchboard's tools offered to an agent's CLI: the MCP server
//! `switchboard-mcp`, which the CLI starts itself. Added to the CLI's
//! arguments, never imposed: the user's own servers stay (Claude Code
//! without `--strict-mcp-config`), and only our tools are allowed without
//! asking. No secret is ever written on a command line or in a file: the
//! server reads the session's id, secret and socket from the environment
//! the agent was started with. Pure functions over arguments and text.

use std::path::Path;

use serde_json::{Value, json};
use switchboard_protocol::AgentKind;
use switchboard_protocol::signal::tools::SERVER_NAME;

/// The server's binary, shipped beside the hook's.
pub const MCP_BINARY: &str = "switchboard-mcp";

/// Where a workspace holds the server's entry for any other agent's CLI
/// (Gemini CLI, OpenCode and the like): no secret in it, it may be committed.
pub const MCP_FILE: &str = ".switchboard/mcp.json";

/// The variables the server needs from the agent's environment (Codex
/// 0.169 hands a server only HOME and PATH and the like unless its
/// `env_vars` names more).
pub const SERVER_ENV: [&str; 3] =
    [crate::session::process::SESSION_ENV, switchboard_protocol::hook::SECRET_ENV, "SWITCHBOARD_SOCKET"];

/// The longest a CLI waits for the server to start, in seconds (Codex's
/// default is 10; the server answers in milliseconds).
const STARTUP_TIMEOUT_SECS: u32 = 20;

/// The `mcpServers` document naming our server by its command alone, for
/// any CLI. The server takes the session from the environment the CLI
/// starts it with, which is the agent's (a variable named here would
/// replace the agent's own).
pub fn servers_json(binary: &Path) -> Value {
    json!({"mcpServers": {SERVER_NAME: {"command": binary.display().to_string(), "args": []}}})
}

/// Claude Code's entry: as [`servers_json`], with its tools always in the
/// prompt (`alwaysLoad`; Claude Code 2.1.329 otherwise defers MCP tools
/// behind its tool search, and a question would wait on a search first).
fn claude_servers(binary: &Path) -> Value {
    let mut servers = servers_json(binary);
    let entry = &mut servers["mcpServers"][SERVER_NAME];
    entry["type"] = json!("stdio");
    entry["alwaysLoad"] = json!(true);
    servers
}

/// The workspace's [`MCP_FILE`]: the server for any CLI that reads an
/// `mcpServers` map; it takes the session from the agent's environment.
pub fn mcp_file(binary: &Path) -> String {
    serde_json::to_string_pretty(&servers_json(binary)).expect("JSON values serialize") + "\n"
}

/// The CLI's arguments with our server offered and its tools allowed
/// without a prompt; an agent of another kind's are left as they are (it
/// finds [`MCP_FILE`]).
pub fn offer(kind: AgentKind, args: Vec<String>, binary: &Path) -> Vec<String> {
    match kind {
        AgentKind::ClaudeCode => claude(args, binary),
        AgentKind::Codex => codex(args, binary),
        AgentKind::Generic => args,
    }
}

/// Whether the CLI of `kind` can be given the tools on its command line.
pub fn offered_to(kind: AgentKind) -> bool {
    !matches!(kind, AgentKind::Generic)
}

/// Claude Code: `--mcp-config` with the server inline (beside the user's
/// own servers, which stay) and `--allowedTools` for our server's tools
/// only. Both given with `=`: each flag takes many values, and a value
/// after a bare flag would swallow a prompt the user's arguments end with.
fn claude(mut args: Vec<String>, binary: &Path) -> Vec<String> {
    let mut ours =
        vec![format!("--mcp-config={}", claude_servers(binary)), format!("--allowedTools=mcp__{SERVER_NAME}")];
    ours.append(&mut args);
    ours
}

/// Codex: `-c mcp_servers.switchboard.…` overrides (given first, before any
/// subcommand): the command, the variables it may have, its tools approved.
fn codex(args: Vec<String>, binary: &Path) -> Vec<String> {
    let key = format!("mcp_servers.{SERVER_NAME}");
    let command = toml::Value::String(binary.display().to_string());
    let env_vars = toml::Value::Array(SERVER_ENV.iter().map(|name| toml::Value::String((*name).to_owned())).collect());
    let mut ours = Vec::new();
    for (field, value) in [
        ("command", command.to_string()),
        ("env_vars", env_vars.to_string()),
        ("default_tools_approval_mode", "\"approve\"".to_owned()),
        ("startup_timeout_sec", STARTUP_TIMEOUT_SECS.to_string()),
    ] {
        ours.extend(["-c".to_owned(), format!("{key}.{field}={value}")]);
    }
    ours.extend(args);
    ours
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    const BINARY: &str = "/opt/switchboard/switchboard-mcp";

    /// Each CLI is given the server its own way, before the user's
    /// arguments, which are kept; no secret or session id is on the line.
    #[test]
    fn each_cli_is_offered_the_server_its_own_way_and_keeps_the_users_arguments() {
        let binary = Path::new(BINARY);
        let claude = offer(AgentKind::ClaudeCode, args(&["--mcp-config", "mine.json", "fix it"]), binary);
        assert_eq!(claude[1], "--allowedTools=mcp__switchboard");
        assert_eq!(&claude[2..], &args(&["--mcp-config", "mine.json", "fix it"])[..], "the user's servers stay");
        let config: Value = serde_json::from_str(claude[0].strip_prefix("--mcp-config=").unwrap()).unwrap();
        let server = &config["mcpServers"]["switchboard"];
        assert_eq!(server["command"], BINARY);
        assert!(server.get("env").is_none(), "the agent's own environment reaches the server: {server}");
        assert_eq!(server["alwaysLoad"], true, "its tools are in the prompt, not behind a search");
        assert!(!claude.iter().any(|a| a.contains("strict-mcp-config")));

        let codex = offer(AgentKind::Codex, args(&["--model", "m"]), binary);
        assert_eq!(
            codex,
            args(&[
                "-c",
                "mcp_servers.switchboard.command=\"/opt/switchboard/switchboard-mcp\"",
                "-c",
                "mcp_servers.switchboard.env_vars=[\"SWITCHBOARD_SESSION_ID\", \"SWITCHBOARD_SESSION_SECRET\", \"SWITCHBOARD_SOCKET\"]",
                "-c",
                "mcp_servers.switchboard.default_tools_approval_mode=\"approve\"",
                "-c",
                "mcp_servers.switchboard.startup_timeout_sec=20",
                "--model",
                "m",
            ])
        );
        for value in codex.iter().skip(1).step_by(2).take(4) {
            let (_, toml_value) = value.split_once('=').unwrap();
            toml::from_str::<toml::Table>(&format!("v = {toml_value}")).expect("each override is TOML");
        }
        assert_eq!(offer(AgentKind::Generic, args(&["-x"]), binary), args(&["-x"]));
    }

    #[test]
    fn the_workspace_file_names_the_server_and_no_secret() {
        let file = mcp_file(Path::new("/opt/my apps/switchboard-mcp"));
        let parsed: Value = serde_json::from_str(&file).unwrap();
        assert_eq!(parsed["mcpServers"]["switchboard"]["command"], "/opt/my apps/switchboard-mcp");
        assert!(!file.contains("SECRET") && !file.contains("SESSION"), "{file}");
    }
}
