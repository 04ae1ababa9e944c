//! A scripted model API for running the real agent CLIs offline: the
//! Anthropic Messages API (Claude Code) or the OpenAI Responses API (Codex),
//! streamed as server-sent events. A test's script sees every request and
//! says what the model answers: text, tool calls, and whether to hold the
//! answer back until the test lets it go.

use std::convert::Infallible;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};
use tokio::sync::watch;

/// Which API the fake speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wire {
    /// `POST /v1/messages`, as Claude Code calls it.
    Anthropic,
    /// `POST /v1/responses`, as Codex calls it.
    OpenAiResponses,
}

/// One request an agent made, as received.
#[derive(Debug, Clone)]
pub struct ModelRequest {
    pub path: String,
    pub body: Value,
    /// When it came, in Unix seconds.
    pub at: u64,
}

impl ModelRequest {
    /// Every text the user side of the conversation holds, in order.
    pub fn user_text(&self) -> String {
        let items = self.body.get("messages").or_else(|| self.body.get("input"));
        let mut texts = Vec::new();
        for item in items.and_then(Value::as_array).into_iter().flatten() {
            if item.get("role").and_then(Value::as_str) != Some("user") {
                continue;
            }
            match item.get("content") {
                Some(Value::String(text)) => texts.push(text.clone()),
                Some(Value::Array(blocks)) => texts.extend(
                    blocks
                        .iter()
                        .filter(|b| matches!(b["type"].as_str(), Some("text" | "input_text")))
                        .filter_map(|b| b["text"].as_str().map(str::to_owned)),
                ),
                _ => {}
            }
        }
        texts.join("\n")
    }

    /// Whether the conversation's last item answers a tool call: the model
    /// is being asked to go on after using a tool.
    pub fn follows_tool_use(&self) -> bool {
        if let Some(messages) = self.body.get("messages").and_then(Value::as_array) {
            let last = messages.iter().rev().find(|m| m["role"] != "system");
            return last
                .and_then(|m| m["content"].as_array())
                .is_some_and(|blocks| blocks.iter().any(|b| b["type"] == "tool_result"));
        }
        let input = self.body.get("input").and_then(Value::as_array);
        input
            .and_then(|items| items.last())
            .is_some_and(|item| item["type"].as_str().is_some_and(|kind| kind.ends_with("_call_output")))
    }

    /// The text of the user's latest turn (not a tool result).
    pub fn latest_user_text(&self) -> String {
        let items = self.body.get("messages").or_else(|| self.body.get("input"));
        let last = items
            .and_then(Value::as_array)
            .and_then(|items| items.iter().rev().find(|item| item.get("role").and_then(Value::as_str) == Some("user")));
        let Some(last) = last else { return String::new() };
        match &last["content"] {
            Value::String(text) => text.clone(),
            Value::Array(blocks) => blocks
                .iter()
                .filter(|b| matches!(b["type"].as_str(), Some("text" | "input_text")))
                .filter_map(|b| b["text"].as_str())
                .collect::<Vec<_>>()
                .join("\n"),
            _ => String::new(),
        }
    }
}

/// A part of the model's answer.
#[derive(Debug, Clone)]
pub enum Block {
    Text(String),
    /// A tool call: for Anthropic a `tool_use` block, for OpenAI a
    /// `function_call` item whose arguments are `input` as JSON.
    Tool {
        name: String,
        input: Value,
    },
}

/// The model's answer to one request.
#[derive(Debug, Clone)]
pub struct Reply {
    pub blocks: Vec<Block>,
    /// Answer only once this turns true.
    pub hold: Option<watch::Receiver<bool>>,
    /// Answer with this HTTP error status and message instead (an API
    /// error the agent does not retry, for a 4xx).
    pub failure: Option<(u16, String)>,
    /// Refuse as an account at its usage limit does until this moment
    /// (Unix seconds): HTTP 429 in each wire's own shape.
    pub limited_until: Option<u64>,
    /// The account's usage, told in the answer's headers as each API does.
    pub usage: Option<Usage>,
    /// The tokens the answer reports having used; none: 100 in and 20 out.
    pub tokens: Option<Spend>,
}

/// The tokens an answer reports, in the one meaning (`input`: what no
/// cache served or stored); each wire says them its own way (OpenAI's input
/// holds its cached part). Anthropic's stream says the output at its start
/// as 1, then in full at its end, as the real API does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Spend {
    pub input: u64,
    pub output: u64,
    pub cache_read: u64,
    /// Written to a cache kept five minutes (Anthropic only).
    pub cache_write: u64,
}

impl Spend {
    const DEFAULT: Spend = Spend { input: 100, output: 20, cache_read: 0, cache_write: 0 };
}

/// An account's usage of its two windows (5 hours, a week): how much of
/// each is used, in percent, and when each resets (Unix seconds).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Usage {
    pub five_hours: (f64, u64),
    pub week: (f64, u64),
}

impl Reply {
    pub fn text(text: impl Into<String>) -> Reply {
        Reply {
            blocks: vec![Block::Text(text.into())],
            hold: None,
            failure: None,
            limited_until: None,
            usage: None,
            tokens: None,
        }
    }

    pub fn tools<N: Into<String>>(calls: impl IntoIterator<Item = (N, Value)>) -> Reply {
        let blocks = calls.into_iter().map(|(name, input)| Block::Tool { name: name.into(), input }).collect();
        Reply { blocks, hold: None, failure: None, limited_until: None, usage: None, tokens: None }
    }

    /// The API refuses the request with `status` (in each wire's error shape).
    pub fn failure(status: u16, message: impl Into<String>) -> Reply {
        Reply {
            blocks: Vec::new(),
            hold: None,
            failure: Some((status, message.into())),
            limited_until: None,
            usage: None,
            tokens: None,
        }
    }

    /// The account is at its usage limit until `reset` (Unix seconds): for
    /// Anthropic a 429 with `retry-after` and the unified rate-limit headers
    /// saying `rejected` until then; for OpenAI a 429 whose error is
    /// `usage_limit_reached` with `resets_at` (and Codex's usage headers
    /// when the reply tells the usage: `with_usage`).
    pub fn limited_until(reset: u64) -> Reply {
        Reply { blocks: Vec::new(), hold: None, failure: None, limited_until: Some(reset), usage: None, tokens: None }
    }

    /// Tells the account's usage with the answer.
    pub fn with_usage(mut self, usage: Usage) -> Reply {
        self.usage = Some(usage);
        self
    }

    /// Reports these tokens used.
    pub fn with_tokens(mut self, tokens: Spend) -> Reply {
        self.tokens = Some(tokens);
        self
    }

    pub fn held_until(mut self, gate: watch::Receiver<bool>) -> Reply {
        self.hold = Some(gate);
        self
    }
}

type Script = dyn Fn(&ModelRequest) -> Reply + Send + Sync;

struct State {
    wire: Wire,
    script: Box<Script>,
    requests: Mutex<Vec<ModelRequest>>,
    next_id: AtomicU64,
}

/// A running fake model; it serves until the runtime ends.
pub struct FakeModel {
    state: Arc<State>,
    pub port: u16,
}

impl FakeModel {
    /// Serves on `listener` (which may have been bound in another network
    /// namespace). Call from within a Tokio runtime.
    pub fn start(
        listener: std::net::TcpListener,
        wire: Wire,
        script: impl Fn(&ModelRequest) -> Reply + Send + Sync + 'static,
    ) -> std::io::Result<FakeModel> {
        let port = listener.local_addr()?.port();
        listener.set_nonblocking(true)?;
        let listener = tokio::net::TcpListener::from_std(listener)?;
        let state = Arc::new(State {
            wire,
            script: Box::new(script),
            requests: Mutex::new(Vec::new()),
            next_id: AtomicU64::new(1),
        });
        let serving = state.clone();
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let state = serving.clone();
                tokio::spawn(async move {
                    let service = hyper::service::service_fn(move |request| answer(state.clone(), request));
                    let connection = hyper::server::conn::http1::Builder::new();
                    // A client hanging up mid-answer is no concern of a test.
                    connection.serve_connection(TokioIo::new(stream), service).await.ok();
                });
            }
        });
        Ok(FakeModel { state, port })
    }

    /// The API's base URL, as the agents' configuration wants it.
    pub fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// The requests received so far.
    pub fn requests(&self) -> Vec<ModelRequest> {
        self.state.requests.lock().unwrap().clone()
    }
}

async fn answer(state: Arc<State>, request: Request<Incoming>) -> Result<Response<Full<Bytes>>, Infallible> {
    let path = request.uri().to_string();
    let method = request.method().clone();
    let bytes = request.into_body().collect().await.map(|body| body.to_bytes()).unwrap_or_default();
    if method != hyper::Method::POST {
        // Model lists and the like: nothing to offer.
        return Ok(respond(404, "application/json", json!({"error": "not here"}).to_string()));
    }
    let body: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
    let at = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let request = ModelRequest { path, body, at };
    let reply = (state.script)(&request);
    let streamed = request.body.get("stream").and_then(Value::as_bool).unwrap_or(false);
    let model = request.body.get("model").and_then(Value::as_str).unwrap_or("fake").to_owned();
    state.requests.lock().unwrap().push(request);
    if let Some(mut gate) = reply.hold.clone() {
        gate.wait_for(|open| *open).await.ok();
    }
    if let Some((status, message)) = &reply.failure {
        let body = match state.wire {
            Wire::Anthropic => json!({"type": "error", "error": {"type": "invalid_request_error", "message": message}}),
            Wire::OpenAiResponses => json!({"error": {"type": "invalid_request_error", "message": message}}),
        };
        return Ok(respond(*status, "application/json", body.to_string()));
    }
    if let Some(reset) = reply.limited_until {
        let mut response = limited(state.wire, reset);
        if let (Some(usage), Wire::OpenAiResponses) = (reply.usage, state.wire) {
            for (name, value) in usage_headers(state.wire, usage) {
                response.headers_mut().insert(name, value.parse().expect("a header value"));
            }
        }
        return Ok(response);
    }
    let id = state.next_id.fetch_add(1, Ordering::Relaxed);
    let answer = Answer { id, blocks: &reply.blocks, tokens: reply.tokens, model };
    let mut response = match (state.wire, streamed) {
        (Wire::Anthropic, true) => respond(200, "text/event-stream", anthropic_events(&answer)),
        (Wire::Anthropic, false) => respond(200, "application/json", anthropic_message(&answer).to_string()),
        (Wire::OpenAiResponses, _) => respond(200, "text/event-stream", responses_events(&answer)),
    };
    if let Some(usage) = reply.usage {
        for (name, value) in usage_headers(state.wire, usage) {
            response.headers_mut().insert(name, value.parse().expect("a header value"));
        }
    }
    Ok(response)
}

/// The headers each API tells an account's usage in: Codex's own
/// (`x-codex-primary-…`, `x-codex-secondary-…`), Anthropic's unified ones.
fn usage_headers(wire: Wire, usage: Usage) -> Vec<(&'static str, String)> {
    let Usage { five_hours: (five, five_reset), week: (week, week_reset) } = usage;
    match wire {
        Wire::OpenAiResponses => vec![
            ("x-codex-primary-used-percent", five.to_string()),
            ("x-codex-primary-window-minutes", "300".to_owned()),
            ("x-codex-primary-reset-at", five_reset.to_string()),
            ("x-codex-secondary-used-percent", week.to_string()),
            ("x-codex-secondary-window-minutes", "10080".to_owned()),
            ("x-codex-secondary-reset-at", week_reset.to_string()),
        ],
        Wire::Anthropic => vec![
            ("anthropic-ratelimit-unified-status", "allowed".to_owned()),
            ("anthropic-ratelimit-unified-5h-status", "allowed".to_owned()),
            ("anthropic-ratelimit-unified-5h-utilization", (five / 100.0).to_string()),
            ("anthropic-ratelimit-unified-5h-reset", five_reset.to_string()),
            ("anthropic-ratelimit-unified-7d-status", "allowed".to_owned()),
            ("anthropic-ratelimit-unified-7d-utilization", (week / 100.0).to_string()),
            ("anthropic-ratelimit-unified-7d-reset", week_reset.to_string()),
        ],
    }
}

/// A 429 from an account at its usage limit until `reset`.
fn limited(wire: Wire, reset: u64) -> Response<Full<Bytes>> {
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let wait = reset.saturating_sub(now).max(1);
    let (body, headers) = match wire {
        Wire::Anthropic => (
            json!({"type": "error", "error": {"type": "rate_limit_error",
                "message": "This request would exceed your account's rate limit. Please try again later."}}),
            vec![
                ("retry-after", wait.to_string()),
                ("anthropic-ratelimit-unified-status", "rejected".to_owned()),
                ("anthropic-ratelimit-unified-reset", reset.to_string()),
                ("anthropic-ratelimit-unified-5h-status", "rejected".to_owned()),
                ("anthropic-ratelimit-unified-5h-reset", reset.to_string()),
                ("anthropic-ratelimit-unified-5h-utilization", "1.0".to_owned()),
            ],
        ),
        Wire::OpenAiResponses => (
            json!({"error": {"type": "usage_limit_reached", "message": "The usage limit has been reached",
                "plan_type": "pro", "resets_at": reset}}),
            Vec::new(),
        ),
    };
    let mut response = Response::builder().status(429).header("content-type", "application/json");
    for (name, value) in headers {
        response = response.header(name, value);
    }
    response.body(Full::new(Bytes::from(body.to_string()))).expect("a well-formed response")
}

fn respond(status: u16, content_type: &str, body: String) -> Response<Full<Bytes>> {
    Response::builder()
        .status(status)
        .header("content-type", content_type)
        .body(Full::new(Bytes::from(body)))
        .expect("a well-formed response")
}

fn event(name: &str, data: &Value) -> String {
    format!("event: {name}\ndata: {data}\n\n")
}

fn stop_reason(blocks: &[Block]) -> &'static str {
    if blocks.iter().any(|b| matches!(b, Block::Tool { .. })) { "tool_use" } else { "end_turn" }
}

/// What one answer holds.
struct Answer<'a> {
    id: u64,
    blocks: &'a [Block],
    tokens: Option<Spend>,
    /// The model the request asked for: the API answers as that model.
    model: String,
}

/// Anthropic's usage: the input apart from what a cache served or stored.
fn anthropic_usage(tokens: Spend, output: u64) -> Value {
    json!({"input_tokens": tokens.input, "output_tokens": output, "cache_read_input_tokens": tokens.cache_read,
           "cache_creation_input_tokens": tokens.cache_write,
           "cache_creation": {"ephemeral_5m_input_tokens": tokens.cache_write, "ephemeral_1h_input_tokens": 0}})
}

fn anthropic_message(answer: &Answer<'_>) -> Value {
    let (id, blocks) = (answer.id, answer.blocks);
    let content: Vec<Value> = blocks
        .iter()
        .enumerate()
        .map(|(index, block)| match block {
            Block::Text(text) => json!({"type": "text", "text": text}),
            Block::Tool { name, input } => {
                json!({"type": "tool_use", "id": format!("toolu_fake_{id}_{index}"), "name": name, "input": input})
            }
        })
        .collect();
    let tokens = answer.tokens.unwrap_or(Spend::DEFAULT);
    // Without tokens of its own, it answers as it always did: `claude-fake`.
    let model = if answer.tokens.is_some() { answer.model.as_str() } else { "claude-fake" };
    json!({
        "id": format!("msg_fake_{id}"), "type": "message", "role": "assistant", "model": model,
        "content": content, "stop_reason": stop_reason(blocks), "stop_sequence": null,
        "usage": anthropic_usage(tokens, tokens.output),
    })
}

fn anthropic_events(answer: &Answer<'_>) -> String {
    let (id, blocks) = (answer.id, answer.blocks);
    let tokens = answer.tokens.unwrap_or(Spend::DEFAULT);
    let mut message = anthropic_message(answer);
    message["content"] = json!([]);
    message["stop_reason"] = Value::Null;
    if answer.tokens.is_some() {
        message["usage"] = anthropic_usage(tokens, 1);
    }
    let mut out = event("message_start", &json!({"type": "message_start", "message": message}));
    for (index, block) in blocks.iter().enumerate() {
        let (start, delta) = match block {
            Block::Text(text) => (json!({"type": "text", "text": ""}), json!({"type": "text_delta", "text": text})),
            Block::Tool { name, input } => (
                json!({"type": "tool_use", "id": format!("toolu_fake_{id}_{index}"), "name": name, "input": {}}),
                json!({"type": "input_json_delta", "partial_json": input.to_string()}),
            ),
        };
        out += &event(
            "content_block_start",
            &json!({"type": "content_block_start", "index": index, "content_block": start}),
        );
        out += &event("content_block_delta", &json!({"type": "content_block_delta", "index": index, "delta": delta}));
        out += &event("content_block_stop", &json!({"type": "content_block_stop", "index": index}));
    }
    out += &event(
        "message_delta",
        &json!({"type": "message_delta", "delta": {"stop_reason": stop_reason(blocks), "stop_sequence": null},
                "usage": {"output_tokens": tokens.output}}),
    );
    out + &event("message_stop", &json!({"type": "message_stop"}))
}

fn responses_events(answer: &Answer<'_>) -> String {
    let (id, blocks) = (answer.id, answer.blocks);
    let tokens = answer.tokens.unwrap_or(Spend::DEFAULT);
    let input = tokens.input + tokens.cache_read;
    let response_id = format!("resp_fake_{id}");
    let mut out = event(
        "response.created",
        &json!({"type": "response.created", "response": {"id": response_id, "status": "in_progress"}}),
    );
    for (index, block) in blocks.iter().enumerate() {
        let item = match block {
            Block::Text(text) => {
                let item_id = format!("msg_fake_{id}_{index}");
                out += &event(
                    "response.output_text.delta",
                    &json!({"type": "response.output_text.delta", "item_id": item_id, "output_index": index,
                            "content_index": 0, "delta": text}),
                );
                json!({"type": "message", "role": "assistant", "id": item_id, "status": "completed",
                       "content": [{"type": "output_text", "text": text, "annotations": []}]})
            }
            Block::Tool { name, input } => {
                let mut call = json!({
                    "type": "function_call", "id": format!("fc_fake_{id}_{index}"), "status": "completed",
                    "call_id": format!("call_fake_{id}_{index}"), "name": name, "arguments": input.to_string(),
                });
                // A tool of a namespace (Codex's `multi_agent_v1`): `namespace.tool`.
                if let Some((namespace, tool)) = name.split_once('.') {
                    call["namespace"] = json!(namespace);
                    call["name"] = json!(tool);
                }
                call
            }
        };
        out += &event(
            "response.output_item.done",
            &json!({"type": "response.output_item.done", "output_index": index, "item": item}),
        );
    }
    out + &event(
        "response.completed",
        &json!({"type": "response.completed", "response": {"id": response_id, "status": "completed",
                "usage": {"input_tokens": input, "input_tokens_details": {"cached_tokens": tokens.cache_read},
                          "output_tokens": tokens.output, "output_tokens_details": {"reasoning_tokens": 0},
                          "total_tokens": input + tokens.output}}}),
    )
}
