//! The MCP server an agent's CLI starts: Switchboard's tools, over standard
//! input and output, for the session named in its environment.

use std::process::ExitCode;

use rmcp::ServiceExt;
use switchboard_mcp::{Server, Started};

fn main() -> ExitCode {
    // One thread: a server answers one CLI, a call at a time, in
    // milliseconds; starting more would only slow its start.
    let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("switchboard-mcp: cannot start: {error}");
            return ExitCode::FAILURE;
        }
    };
    runtime.block_on(async {
        let server = Server::new(Started::from_env(|name| std::env::var(name).ok()));
        let running = match server.serve(rmcp::transport::stdio()).await {
            Ok(running) => running,
            Err(error) => {
                eprintln!("switchboard-mcp: the CLI did not start the conversation: {error}");
                return ExitCode::FAILURE;
            }
        };
        match running.waiting().await {
            Ok(_) => ExitCode::SUCCESS,
            Err(error) => {
                eprintln!("switchboard-mcp: {error}");
                ExitCode::FAILURE
            }
        }
    })
}
