//! An agent whose CLI speaks MCP, for the tests: it starts the tools'
//! server as an agent's CLI does (a child on standard input and output,
//! with the agent's environment), says hello, then makes the calls typed
//! into its terminal, one per line, and appends each answer to a file as a
//! JSON line.
//!
//! `switchboard-mcp-client SERVER ANSWERS`; lines typed: `LIST`, or
//! `CALL {"name": …, "arguments": …}`; anything else is ignored (a typed
//! task, say).

use std::io::{BufRead, BufReader, Write};
use std::process::{ChildStdin, ChildStdout, Command, Stdio};

use serde_json::{Value, json};

/// The server as its client holds it: its input and output.
struct Server {
    to: ChildStdin,
    from: BufReader<ChildStdout>,
    next_id: u64,
}

impl Server {
    fn send(&mut self, message: &Value) {
        writeln!(self.to, "{message}").expect("the server reads");
        self.to.flush().expect("the server reads");
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let mut answer = String::new();
            if self.from.read_line(&mut answer).expect("the server writes") == 0 {
                panic!("the server ended before answering {method}");
            }
            let answer: Value = serde_json::from_str(&answer).expect("the server writes JSON lines");
            if answer["id"] == id {
                return answer;
            }
        }
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let (Some(program), Some(answers)) = (args.next(), args.next()) else {
        eprintln!("usage: switchboard-mcp-client SERVER ANSWERS");
        std::process::exit(2);
    };
    let mut child = Command::new(&program)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap_or_else(|error| panic!("starting {program}: {error}"));
    let mut server = Server {
        to: child.stdin.take().expect("piped"),
        from: BufReader::new(child.stdout.take().expect("piped")),
        next_id: 1,
    };
    let hello = server.request(
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test-cli", "version": "1"}}),
    );
    record(&answers, &json!({"hello": hello}));
    server.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    println!("tools ready");
    for line in std::io::stdin().lock().lines() {
        let Ok(line) = line else { break };
        let line = line.trim();
        let answer = if line == "LIST" {
            server.request("tools/list", json!({}))
        } else if let Some(call) = line.strip_prefix("CALL ") {
            let call: Value = serde_json::from_str(call).expect("a call is JSON");
            server.request("tools/call", call)
        } else {
            continue;
        };
        record(&answers, &answer);
        println!("answered {}", answer["id"]);
    }
    // Its terminal closed: the server ends when its input does.
    drop(server);
    if let Err(error) = child.wait() {
        eprintln!("the server was not waited for: {error}");
    }
}

fn record(answers: &str, answer: &Value) {
    let mut file = std::fs::OpenOptions::new().create(true).append(true).open(answers).expect("the answers file opens");
    writeln!(file, "{answer}").expect("the answers file is written");
}
