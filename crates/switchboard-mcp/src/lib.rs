//! `switchboard-mcp`: Switchboard's tools for an agent, as an MCP server
//! over standard input and output, which the agent's CLI starts itself.
//!
//! It knows no rule of its own. The tools and their arguments are the
//! protocol crate's ([`switchboard_protocol::signal::tools`]); each call goes
//! to the engine through the one client protocol (the socket checked to be
//! the user's own, a connection per call) as the `session_tool` command, with
//! the session's id and secret taken from the environment the agent was
//! started with (never from a command line or a file). The engine records
//! it, or refuses it naming the argument at fault; whatever happens, the
//! model is answered at once, in words it can act on: a tool never waits for
//! a person (the CLIs give up on a tool call after about a minute).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig,
};
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::{ErrorData, RoleServer, ServerHandler};
use switchboard_api::wire::ClientKind;
use switchboard_api::{ErrorCode, ToolAnswer, ToolCall};
use switchboard_client::{Client, ClientError};
use switchboard_protocol::SessionId;
use switchboard_protocol::signal::teach::{PROTOCOL_FILE, server_instructions};
use switchboard_protocol::signal::tools::{SERVER_NAME, Tool};

/// The variable naming the session (the engine's `SESSION_ENV`).
pub const SESSION_ENV: &str = "SWITCHBOARD_SESSION_ID";
/// The variable holding the session's secret.
pub const SECRET_ENV: &str = switchboard_protocol::hook::SECRET_ENV;
/// The variable naming the engine's socket.
pub const SOCKET_ENV: &str = "SWITCHBOARD_SOCKET";

/// The longest a call waits for the engine: far under the CLIs' own limit
/// on a tool call, so the model always hears why.
const ENGINE_DEADLINE: Duration = Duration::from_secs(10);

/// The session the server speaks for, from its environment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Session {
    pub id: SessionId,
    pub secret: String,
    pub socket: PathBuf,
}

/// Where the server was started: in a session of Switchboard's, or where
/// one of the session's variables is missing (by hand, or by a CLI that
/// hands its servers too few of the agent's variables).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Started {
    InSession(Session),
    Outside { missing: &'static str },
}

impl Started {
    /// Reads the session from the environment (`var`). A value Claude Code
    /// did not expand (`${NAME}`) counts as missing.
    pub fn from_env(var: impl Fn(&str) -> Option<String>) -> Started {
        let read =
            |name: &'static str| var(name).filter(|value| !value.is_empty() && !value.starts_with("${")).ok_or(name);
        let session = (|| {
            let id = read(SESSION_ENV)?.parse().map_err(|_| SESSION_ENV)?;
            Ok(Session { id, secret: read(SECRET_ENV)?, socket: PathBuf::from(read(SOCKET_ENV)?) })
        })();
        match session {
            Ok(session) => Started::InSession(session),
            Err(missing) => Started::Outside { missing },
        }
    }
}

/// The server: what it offers, and the engine it speaks to.
#[derive(Debug, Clone)]
pub struct Server {
    started: Started,
}

impl Server {
    pub fn new(started: Started) -> Server {
        Server { started }
    }

    /// Asks the engine, answering for the session; the error is said to the
    /// model.
    async fn ask(&self, call: ToolCall, tool: &str) -> Result<ToolAnswer, String> {
        let session = match &self.started {
            Started::InSession(session) => session,
            Started::Outside { missing } => return Err(outside(missing)),
        };
        let asked = async {
            let client = Client::connect(&session.socket, ClientKind::Tools).await?;
            client.session_tool(session.id.clone(), session.secret.clone(), call).await
        };
        match tokio::time::timeout(ENGINE_DEADLINE, asked).await {
            Ok(Ok(answer)) => Ok(answer),
            Ok(Err(error)) => Err(said(&error, tool)),
            Err(_) => Err(format!(
                "Switchboard did not answer within {} seconds, so this may not be recorded. {}",
                ENGINE_DEADLINE.as_secs(),
                instead(tool)
            )),
        }
    }
}

/// The model is told the server has no session to speak for.
fn outside(missing: &str) -> String {
    format!(
        "Nothing was recorded: these tools work only for an agent Switchboard started ({missing} is not in this \
         server's environment). Say what you need in your reply instead."
    )
}

/// What the model can do instead when `tool`'s call was not carried out.
pub fn instead(tool: &str) -> String {
    match Tool::named(tool) {
        Some(Tool::AddFinding) => {
            "Append the finding to SHARED_FINDINGS.jsonl yourself instead, as one JSON object on a line.".into()
        }
        Some(Tool::CurrentTask) => "Your task is the last one Switchboard typed to you; go on from it.".into(),
        _ => format!("Print the signal block described in {PROTOCOL_FILE} instead: Switchboard reads it."),
    }
}

/// What the model is told when the engine gave no answer or refused.
pub fn said(error: &ClientError, tool: &str) -> String {
    match error {
        ClientError::NotRunning(_) => {
            format!("Switchboard is not running, so nothing was recorded. {}", instead(tool))
        }
        _ if error.code() == ErrorCode::InvalidInput => {
            format!("Nothing was recorded: {}. Fix that and call {tool} again.", error)
        }
        _ if error.code() == ErrorCode::NotAllowed => "Switchboard refused this call: it does not come from the \
            session it names, so nothing was recorded."
            .to_owned(),
        _ => format!("Switchboard could not record this ({error}). {}", instead(tool)),
    }
}

/// The tools as MCP lists them.
pub fn listed() -> Vec<rmcp::model::Tool> {
    Tool::ALL
        .into_iter()
        .map(|tool| rmcp::model::Tool::new(tool.name(), tool.description(), Arc::new(tool.input_schema())))
        .collect()
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new(SERVER_NAME, env!("CARGO_PKG_VERSION")))
            .with_instructions(server_instructions())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(listed()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let tool = request.name.to_string();
        let arguments = request.arguments.map_or(serde_json::Value::Null, serde_json::Value::Object);
        let result = match self.ask(ToolCall::Call { tool: tool.clone(), arguments }, &tool).await {
            Ok(answer) => CallToolResult::success(vec![ContentBlock::text(answer.text)]),
            Err(words) => CallToolResult::error(vec![ContentBlock::text(words)]),
        };
        Ok(result.into())
    }

    /// The CLI finished its handshake: the engine hears the tools started,
    /// so the session's tasks point to them.
    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        if let Started::Outside { missing } = &self.started {
            eprintln!("switchboard-mcp: {missing} is not set, so each tool will answer that it records nothing");
            return;
        }
        let client = context.peer.peer_info().map(|info| info.client_info.name.clone());
        if let Err(words) = self.ask(ToolCall::Hello { client }, "hello").await {
            eprintln!("switchboard-mcp: Switchboard did not hear that the tools started: {words}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_session_is_read_from_the_environment_and_a_missing_part_is_named() {
        let id = SessionId::new();
        let env = |pairs: &[(&str, String)]| {
            let pairs: Vec<(String, String)> = pairs.iter().map(|(k, v)| ((*k).to_owned(), v.clone())).collect();
            move |name: &str| pairs.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone())
        };
        let whole = [(SESSION_ENV, id.to_string()), (SECRET_ENV, "s3cret".into()), (SOCKET_ENV, "/run/e.sock".into())];
        assert_eq!(
            Started::from_env(env(&whole)),
            Started::InSession(Session { id: id.clone(), secret: "s3cret".into(), socket: "/run/e.sock".into() })
        );
        let cases: &[(&[(&str, String)], &str)] = &[
            (&[], SESSION_ENV),
            (&[(SESSION_ENV, "not-an-id".into())], SESSION_ENV),
            (&[(SESSION_ENV, id.to_string()), (SOCKET_ENV, "/s".into())], SECRET_ENV),
            (&[(SESSION_ENV, id.to_string()), (SECRET_ENV, "${SWITCHBOARD_SESSION_SECRET}".into())], SECRET_ENV),
            (&[(SESSION_ENV, id.to_string()), (SECRET_ENV, "k".into())], SOCKET_ENV),
        ];
        for (pairs, missing) in cases {
            assert_eq!(Started::from_env(env(pairs)), Started::Outside { missing }, "{pairs:?}");
        }
    }

    /// What the model is told when a call was not carried out names what
    /// it can do instead, for the tool it called.
    #[test]
    fn a_call_not_carried_out_says_what_to_do_instead() {
        let down = ClientError::NotRunning("/run/engine.socket".into());
        let cases = [
            ("ask_user", "Print the signal block described in .switchboard/signals.md instead"),
            ("report_completion", "Print the signal block"),
            ("add_finding", "Append the finding to SHARED_FINDINGS.jsonl yourself"),
            ("current_task", "the last one Switchboard typed to you"),
        ];
        for (tool, says) in cases {
            let said = said(&down, tool);
            assert!(said.starts_with("Switchboard is not running, so nothing was recorded."), "{said}");
            assert!(said.contains(says), "{tool}: {said}");
        }
        let refused = ClientError::Api(switchboard_api::ApiError {
            code: ErrorCode::InvalidInput,
            message: "questions: is required".into(),
            field: Some("questions".into()),
            problems: Vec::new(),
        });
        assert_eq!(
            said(&refused, "ask_user"),
            "Nothing was recorded: questions: is required. Fix that and call ask_user again."
        );
        let full = ClientError::Api(switchboard_api::ApiError {
            code: ErrorCode::DiskFull,
            message: "adding to SHARED_FINDINGS.jsonl: no space left".into(),
            field: None,
            problems: Vec::new(),
        });
        let said = said(&full, "add_finding");
        assert!(
            said.starts_with("Switchboard could not record this (adding to SHARED_FINDINGS.jsonl: no space left)."),
            "{said}"
        );
    }

    #[test]
    fn every_tool_is_listed_with_its_schema() {
        let tools = listed();
        let names: Vec<&str> = tools.iter().map(|tool| tool.name.as_ref()).collect();
        assert_eq!(
            names,
            ["ask_user", "report_blocker", "request_delegation", "report_completion", "add_finding", "current_task"]
        );
        assert!(tools.iter().all(|tool| tool.input_schema["type"] == "object" && tool.description.is_some()));
    }
}
