//! `switchboard events --agent N`: an agent's event log, oldest first.

use std::io::Write;

use anyhow::Result;
use switchboard_api::{FlowTarget, LogEntry, LogKind};
use switchboard_client::blocking::Client;

use crate::Output;
use crate::agent::find_agent;
use crate::print::{one_line, print};

/// The log of `agent` from `since` on (a time or a span back), the most
/// recent `limit` entries.
pub(crate) fn run(
    client: &Client,
    agent: &str,
    since: Option<&str>,
    limit: u32,
    output: Output,
    out: &mut impl Write,
) -> Result<()> {
    let profile = find_agent(client, agent)?;
    let since_at = since.map(parse_since).transpose()?;
    let events = client.flow_events(FlowTarget::Agent { profile_id: profile.id }, since_at, limit)?;
    if output.json {
        // One JSON object per line, as the window exports them.
        for entry in &events.entries {
            writeln!(out, "{}", serde_json::to_string(entry)?)?;
        }
        return Ok(());
    }
    print(out, output, &events, |events| {
        let mut lines: Vec<String> = Vec::new();
        if events.omitted > 0 {
            lines.push(format!("({} older events left out)", events.omitted));
        }
        lines.extend(events.entries.iter().map(describe_event));
        lines.join("\n")
    })
}

/// `--since`: a time, or a span back from now.
pub(crate) fn parse_since(text: &str) -> Result<i64> {
    let text = text.trim();
    if let Ok(at) = text.parse::<jiff::Timestamp>() {
        return Ok(at.as_millisecond());
    }
    let span: jiff::SignedDuration = text.parse().map_err(|_| {
        anyhow::anyhow!("--since {text:?}: give a time such as 2026-11-23T14:00:00Z or a span such as 10m")
    })?;
    Ok(jiff::Timestamp::now().as_millisecond() - span.as_millis() as i64)
}

/// One event log entry as a line: when, what, and of which task.
fn describe_event(entry: &LogEntry) -> String {
    let at = jiff::Timestamp::from_millisecond(entry.at).map_or_else(|_| entry.at.to_string(), |t| t.to_string());
    let kind = serde_json::to_value(&entry.kind).unwrap_or_default();
    let name = kind.get("kind").and_then(|k| k.as_str()).unwrap_or("?").to_owned();
    let detail = match &entry.kind {
        LogKind::Hook { event, .. } => one_line(event),
        LogKind::TaskEnded { state, reason } => match reason {
            Some(reason) => format!("{} ({})", state.as_str(), one_line(reason)),
            None => state.as_str().to_owned(),
        },
        LogKind::SignalRaised { signal_kind, .. } => format!("{signal_kind:?}"),
        LogKind::Loop { step, .. } => serde_json::to_value(step)
            .ok()
            .and_then(|s| s.get("step").and_then(|s| s.as_str()).map(str::to_owned))
            .unwrap_or_default(),
        _ => String::new(),
    };
    let task = entry.task_id.as_ref().map(|t| format!(" task {}", short(&t.to_string()))).unwrap_or_default();
    format!("{at}  {name:<18} {detail}{task}").trim_end().to_owned()
}

fn short(id: &str) -> &str {
    id.get(..8).unwrap_or(id)
}
