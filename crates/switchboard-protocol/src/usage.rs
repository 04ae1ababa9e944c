//! What the agents' CLIs write of each model answer's token usage, one
//! meaning for each number. Pure: the engine reads the files (guarded, from
//! the offset it reached) and hands each line here.
//!
//! - Claude Code writes its conversation to the file its hooks name
//!   (`transcript_path`): an `assistant` record per content block of each
//!   answer, every one with the answer's `message.id` and `usage` (the early
//!   ones with the output counted so far), so an answer is known by its id
//!   and its last line's usage counts
//!   (`tests/fixtures/agents/cc-transcript-usage.jsonl`).
//! - Codex writes its session log ("rollout"): per answer a
//!   `token_usage_record` naming its `response_id`, and an `event_msg`
//!   `token_count` with the same usage again; the record counts, the event
//!   only where a log has no records (`codex-rollout-usage.jsonl`). Its
//!   `input_tokens` holds the whole prompt, cached part included: the
//!   cached and cache-written parts are taken out, so that `input` means
//!   here what Anthropic's means, the input no cache served or stored.
//!
//! A side call a CLI makes for itself (a title, a probe) is not in its
//! conversation's file, so it is not counted.

use serde::{Deserialize, Serialize};
use serde_json::Value;
#[cfg(feature = "ts")]
use ts_rs::TS;

use crate::capped::{MAX_NAME_BYTES, capped};

/// Tokens of one answer, or of many summed: `input` is the input that no
/// cache served or stored; `cache_write_5m` and `cache_write_1h` the input
/// written to a cache kept five minutes or an hour (priced apart);
/// `cache_read` the input a cache served; `output` every token the model
/// wrote, its reasoning included.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tokens {
    pub input: u64,
    pub output: u64,
    pub cache_read: u64,
    pub cache_write_5m: u64,
    pub cache_write_1h: u64,
}

impl Tokens {
    /// Input written to a cache, for either duration.
    pub fn cache_write(&self) -> u64 {
        self.cache_write_5m.saturating_add(self.cache_write_1h)
    }

    /// The prompt's whole size: what a long-prompt price tier is judged by.
    pub fn prompt(&self) -> u64 {
        self.input.saturating_add(self.cache_read).saturating_add(self.cache_write())
    }

    /// Every token, read, written or cached: what a token budget counts.
    pub fn total(&self) -> u64 {
        self.prompt().saturating_add(self.output)
    }

    pub fn add(&mut self, other: &Tokens) {
        self.input = self.input.saturating_add(other.input);
        self.output = self.output.saturating_add(other.output);
        self.cache_read = self.cache_read.saturating_add(other.cache_read);
        self.cache_write_5m = self.cache_write_5m.saturating_add(other.cache_write_5m);
        self.cache_write_1h = self.cache_write_1h.saturating_add(other.cache_write_1h);
    }
}

/// An amount of US dollars, kept exact in billionths (a cache read of one
/// token costs a few of them); said as dollars on the wire.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[cfg_attr(feature = "ts", ts(type = "number"))]
#[serde(into = "f64", try_from = "f64")]
pub struct Usd(i64);

const NANOS: f64 = 1e9;

impl Usd {
    pub const ZERO: Usd = Usd(0);

    pub fn from_nanos(nanos: i64) -> Usd {
        Usd(nanos)
    }

    pub fn nanos(self) -> i64 {
        self.0
    }

    pub fn dollars(self) -> f64 {
        self.0 as f64 / NANOS
    }

    /// Dollars and cents as a person reads them ("$2.50"; below a cent,
    /// "$0.0042").
    pub fn in_words(self) -> String {
        let dollars = self.dollars();
        if dollars != 0.0 && dollars.abs() < 0.01 { format!("${dollars:.4}") } else { format!("${dollars:.2}") }
    }
}

impl From<Usd> for f64 {
    fn from(usd: Usd) -> f64 {
        usd.dollars()
    }
}

impl TryFrom<f64> for Usd {
    type Error = String;

    fn try_from(dollars: f64) -> Result<Usd, String> {
        if !dollars.is_finite() || !(0.0..=1e9).contains(&dollars) {
            return Err(format!("{dollars} is not an amount of dollars"));
        }
        Ok(Usd((dollars * NANOS).round() as i64))
    }
}

impl std::ops::Add for Usd {
    type Output = Usd;
    fn add(self, other: Usd) -> Usd {
        Usd(self.0.saturating_add(other.0))
    }
}

/// A limit on what some work may use: tokens, or dollars.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(rename_all = "snake_case")]
pub enum Budget {
    Tokens(u64),
    Usd(Usd),
}

impl Budget {
    /// Reads `50000tok`, `50k tok`, `2.50usd`, `$2.50`.
    pub fn parse(text: &str) -> Result<Budget, String> {
        let text = text.trim().to_ascii_lowercase().replace([' ', '_', ','], "");
        let refuse = || format!("“{text}” is not a budget: give tokens (50000tok, 50ktok) or dollars (2.50usd, $2.50)");
        if let Some(dollars) = text.strip_prefix('$').or_else(|| text.strip_suffix("usd")) {
            let dollars: f64 = dollars.parse().map_err(|_| refuse())?;
            let usd = Usd::try_from(dollars).map_err(|_| refuse())?;
            return if usd == Usd::ZERO {
                Err("A budget of $0 would end the task at once.".to_owned())
            } else {
                Ok(Budget::Usd(usd))
            };
        }
        let count = text.strip_suffix("tokens").or_else(|| text.strip_suffix("tok")).ok_or_else(refuse)?;
        let (digits, times) = match count.strip_suffix('k') {
            Some(digits) => (digits, 1_000),
            None => match count.strip_suffix('m') {
                Some(digits) => (digits, 1_000_000),
                None => (count, 1),
            },
        };
        let tokens: f64 = digits.parse().map_err(|_| refuse())?;
        if !tokens.is_finite() || tokens < 1.0 {
            return Err(refuse());
        }
        Ok(Budget::Tokens((tokens * times as f64).round() as u64))
    }

    /// "50,000 tokens", "$2.50".
    pub fn in_words(self) -> String {
        match self {
            Budget::Tokens(count) => format!("{} tokens", thousands(count)),
            Budget::Usd(usd) => usd.in_words(),
        }
    }

    /// How much of it `tokens` (every token used) and their cost are, in hundredths of a
    /// percent; none for a dollar budget when the cost is not known.
    pub fn used(self, tokens: u64, cost: Option<Usd>) -> Option<u64> {
        let (used, limit) = match self {
            Budget::Tokens(limit) => (u128::from(tokens), u128::from(limit)),
            Budget::Usd(limit) => (u128::try_from(cost?.nanos()).ok()?, u128::try_from(limit.nanos()).ok()?),
        };
        Some(u64::try_from(used * 10_000 / limit.max(1)).unwrap_or(u64::MAX))
    }
}

/// A count with thousands apart: 50,000.
pub fn thousands(count: u64) -> String {
    let digits = count.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// One model answer's usage as its file tells it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    /// What the CLI calls the answer (Claude Code's message id, Codex's
    /// response id): an answer written again counts once, with its last
    /// usage.
    pub key: String,
    /// The model that answered, as named in the file; none when the file
    /// did not say.
    pub model: Option<String>,
    /// When, in Unix milliseconds, as the file's own timestamp says.
    pub at: Option<i64>,
    pub tokens: Tokens,
}

/// Whose file it is, which says how its lines read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Transcript {
    /// Claude Code's conversation file.
    ClaudeCode,
    /// Codex's session log.
    Codex,
}

impl Transcript {
    pub fn as_str(self) -> &'static str {
        match self {
            Transcript::ClaudeCode => "claude_code",
            Transcript::Codex => "codex",
        }
    }

    pub fn parse(text: &str) -> Option<Transcript> {
        [Transcript::ClaudeCode, Transcript::Codex].into_iter().find(|t| t.as_str() == text)
    }
}

/// What a file's earlier lines said that its later ones need: the model a
/// Codex turn runs on, whether the log has usage records. Kept with the
/// offset read, so reading resumes as it left off.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reading {
    #[serde(default)]
    pub model: Option<String>,
    #[serde(default)]
    pub codex_records: bool,
}

/// One line of a file, read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Line {
    /// An answer's usage.
    Answer(Answer),
    /// A line that carries no usage.
    Other,
    /// Not a JSON object: counted, skipped.
    Malformed,
}

/// Reads one line of a `kind` file, `reading` carrying what earlier lines
/// said.
pub fn read_line(kind: Transcript, line: &str, reading: &mut Reading) -> Line {
    let Ok(Value::Object(record)) = serde_json::from_str::<Value>(line) else {
        return if line.trim().is_empty() { Line::Other } else { Line::Malformed };
    };
    let record = Value::Object(record);
    let answer = match kind {
        Transcript::ClaudeCode => claude_answer(&record),
        Transcript::Codex => codex_answer(&record, reading),
    };
    answer.map_or(Line::Other, Line::Answer)
}

fn count(value: &Value, key: &str) -> u64 {
    value.get(key).and_then(Value::as_u64).unwrap_or(0)
}

fn text(value: &Value, key: &str) -> Option<String> {
    value.get(key).and_then(Value::as_str).filter(|s| !s.is_empty()).map(|s| capped(s, MAX_NAME_BYTES))
}

/// Unix milliseconds of an RFC 3339 timestamp.
fn millis(value: &Value) -> Option<i64> {
    let stamp = value.get("timestamp")?.as_str()?.parse::<jiff::Timestamp>().ok()?;
    Some(stamp.as_millisecond())
}

fn claude_answer(record: &Value) -> Option<Answer> {
    if record.get("type")?.as_str()? != "assistant" || record.get("isApiErrorMessage") == Some(&Value::Bool(true)) {
        return None;
    }
    let message = record.get("message")?;
    let usage = message.get("usage")?;
    // What Claude Code writes itself (an error shown as a message) is no
    // model's answer.
    let model = text(message, "model").filter(|m| m != "<synthetic>");
    let written = count(usage, "cache_creation_input_tokens");
    let (cache_write_5m, cache_write_1h) = match usage.get("cache_creation") {
        Some(split) if split.is_object() => {
            let hour = count(split, "ephemeral_1h_input_tokens");
            let five = count(split, "ephemeral_5m_input_tokens");
            // Whatever the split leaves out is priced as the default, five minutes.
            (five.max(written.saturating_sub(hour)), hour)
        }
        _ => (written, 0),
    };
    Some(Answer {
        key: text(message, "id").or_else(|| text(record, "uuid"))?,
        model,
        at: millis(record),
        tokens: Tokens {
            input: count(usage, "input_tokens"),
            output: count(usage, "output_tokens"),
            cache_read: count(usage, "cache_read_input_tokens"),
            cache_write_5m,
            cache_write_1h,
        },
    })
}

fn codex_answer(record: &Value, reading: &mut Reading) -> Option<Answer> {
    let payload = record.get("payload")?;
    match record.get("type")?.as_str()? {
        "turn_context" | "session_meta" => {
            if let Some(model) = text(payload, "model") {
                reading.model = Some(model);
            }
            None
        }
        "token_usage_record" => {
            reading.codex_records = true;
            let key = text(payload, "response_id")
                .or_else(|| Some(format!("{}#{}", text(payload, "turn_id")?, record.get("ordinal")?.as_u64()?)))?;
            let model = text(payload, "model").or_else(|| reading.model.clone());
            Some(Answer { key, model, at: millis(record), tokens: openai_tokens(payload.get("usage")?) })
        }
        "event_msg" if !reading.codex_records && payload.get("type")?.as_str()? == "token_count" => {
            let info = payload.get("info")?;
            // The running total names each answer once, however often the
            // event is written again.
            let total = count(info.get("total_token_usage")?, "total_tokens");
            Some(Answer {
                key: format!("total#{total}"),
                model: reading.model.clone(),
                at: millis(record),
                tokens: openai_tokens(info.get("last_token_usage")?),
            })
        }
        _ => None,
    }
}

/// OpenAI's usage in the one meaning: its input holds its cached and
/// cache-written parts, taken out here; its output already holds the
/// reasoning.
fn openai_tokens(usage: &Value) -> Tokens {
    let cache_read = count(usage, "cached_input_tokens");
    let cache_write = count(usage, "cache_write_input_tokens");
    Tokens {
        input: count(usage, "input_tokens").saturating_sub(cache_read).saturating_sub(cache_write),
        output: count(usage, "output_tokens"),
        cache_read,
        cache_write_5m: cache_write,
        cache_write_1h: 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answers(kind: Transcript, text: &str) -> Vec<Answer> {
        let mut reading = Reading::default();
        text.lines()
            .filter_map(|line| match read_line(kind, line, &mut reading) {
                Line::Answer(answer) => Some(answer),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn claude_codes_recorded_file_reads_as_its_two_answers() {
        let file = include_str!("../../../tests/fixtures/agents/cc-transcript-usage.jsonl");
        let read = answers(Transcript::ClaudeCode, file);
        assert_eq!(read.iter().map(|a| a.key.as_str()).collect::<Vec<_>>(), ["msg_fake_1", "msg_fake_2"]);
        let tokens = Tokens { input: 100, output: 20, ..Tokens::default() };
        assert!(read.iter().all(|a| a.tokens == tokens && a.model.as_deref() == Some("claude-fake")));
        assert_eq!(read[0].at, Some(1_795_959_756_415));
    }

    #[test]
    fn codex_recorded_log_counts_each_answer_once() {
        let file = include_str!("../../../tests/fixtures/agents/codex-rollout-usage.jsonl");
        let read = answers(Transcript::Codex, file);
        assert_eq!(read.iter().map(|a| a.key.as_str()).collect::<Vec<_>>(), ["resp_fake_1", "resp_fake_2"]);
        assert!(read.iter().all(|a| a.tokens == Tokens { input: 100, output: 20, ..Tokens::default() }));
    }

    #[test]
    fn each_provider_reads_in_the_one_meaning() {
        let claude = r#"{"type":"assistant","timestamp":"2026-11-29T13:42:36Z","message":{"id":"m1","model":"claude-opus-5-5",
            "usage":{"input_tokens":7,"cache_creation_input_tokens":300,"cache_read_input_tokens":4000,"output_tokens":55,
            "cache_creation":{"ephemeral_5m_input_tokens":100,"ephemeral_1h_input_tokens":200}}}}"#
            .replace('\n', "");
        let codex_turn = r#"{"type":"turn_context","payload":{"model":"gpt-6-sol"}}"#;
        let codex = r#"{"type":"token_usage_record","payload":{"response_id":"r1","usage":{"input_tokens":5000,
            "cached_input_tokens":3000,"cache_write_input_tokens":500,"output_tokens":80,"reasoning_output_tokens":60}}}"#
            .replace('\n', "");
        let old_claude = r#"{"type":"assistant","message":{"id":"m2","usage":{"input_tokens":1,"cache_creation_input_tokens":40,"output_tokens":2}}}"#;
        let cases: Vec<(Transcript, String, Option<&str>, Tokens)> = vec![
            (
                Transcript::ClaudeCode,
                claude,
                Some("claude-opus-5-5"),
                Tokens { input: 7, output: 55, cache_read: 4000, cache_write_5m: 100, cache_write_1h: 200 },
            ),
            (
                Transcript::Codex,
                format!("{codex_turn}\n{codex}"),
                Some("gpt-6-sol"),
                Tokens { input: 1500, output: 80, cache_read: 3000, cache_write_5m: 500, cache_write_1h: 0 },
            ),
            (
                Transcript::ClaudeCode,
                old_claude.to_owned(),
                None,
                Tokens { input: 1, output: 2, cache_read: 0, cache_write_5m: 40, cache_write_1h: 0 },
            ),
        ];
        for (kind, text, model, tokens) in cases {
            let read = answers(kind, &text);
            assert_eq!(read.len(), 1, "{text}");
            assert_eq!((read[0].model.as_deref(), read[0].tokens), (model, tokens), "{text}");
        }
    }

    #[test]
    fn lines_that_are_not_answers_count_nothing() {
        let cases = [
            (Transcript::ClaudeCode, "not json", Line::Malformed),
            (Transcript::ClaudeCode, "{\"type\":\"assistant\",\"message\":{\"id\":\"m\",\"usa", Line::Malformed),
            (Transcript::ClaudeCode, "[1,2]", Line::Malformed),
            (Transcript::ClaudeCode, "", Line::Other),
            (Transcript::ClaudeCode, r#"{"type":"user","message":{"id":"m","usage":{"input_tokens":5}}}"#, Line::Other),
            (
                Transcript::ClaudeCode,
                r#"{"type":"assistant","isApiErrorMessage":true,"message":{"id":"m","usage":{"input_tokens":5}}}"#,
                Line::Other,
            ),
            (Transcript::ClaudeCode, r#"{"type":"assistant","message":{"id":"m"}}"#, Line::Other),
            (Transcript::Codex, r#"{"type":"event_msg","payload":{"type":"task_started"}}"#, Line::Other),
            (Transcript::Codex, r#"{"type":"token_usage_record","payload":{"usage":{}}}"#, Line::Other),
        ];
        for (kind, line, expected) in cases {
            assert_eq!(read_line(kind, line, &mut Reading::default()), expected, "{line}");
        }
    }

    #[test]
    fn a_codex_log_without_records_counts_its_events_once_each() {
        let event = |total: u64| {
            format!(
                r#"{{"type":"event_msg","payload":{{"type":"token_count","info":{{"total_token_usage":{{"total_tokens":{total}}},"last_token_usage":{{"input_tokens":100,"output_tokens":20}}}}}}}}"#
            )
        };
        let log = [event(120), event(120), event(240)].join("\n");
        let keys: Vec<String> = answers(Transcript::Codex, &log).into_iter().map(|a| a.key).collect();
        // The repeated event names the same answer: stored once by its key.
        assert_eq!(keys, ["total#120", "total#120", "total#240"]);
    }
}
