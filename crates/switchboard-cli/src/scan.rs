//! `switchboard scan`: the protocol signals in agent output read on
//! standard input, one JSON line each; needs no engine.

use std::io::{Read, Write};
use std::process::ExitCode;

use switchboard_api::protocol::signal::{ScanEvent, SignalScanner};

use crate::{EXIT_FAILED, EXIT_OUTPUT_CLOSED, Watched};

/// `switchboard scan`: every signal in `input`, one JSON line each, as soon
/// as its block closes: `{"kind", "malformed", "fields" | "reason", "raw"}`.
pub fn scan_input(mut input: impl Read, out: &mut impl Write, err: &mut impl Write) -> ExitCode {
    let out = &mut Watched { inner: out, closed: false };
    let mut scanner = SignalScanner::new();
    let mut buf = vec![0u8; 16 * 1024];
    let mut malformed = false;
    let mut print = |event: ScanEvent, out: &mut dyn Write| -> std::io::Result<()> {
        malformed |= matches!(event, ScanEvent::Malformed { .. });
        writeln!(out, "{}", scan_line(&event))?;
        out.flush()
    };
    loop {
        let read = match input.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(error) => {
                writeln!(err, "switchboard: reading the input: {error}").ok();
                return ExitCode::from(EXIT_FAILED);
            }
        };
        for event in scanner.feed(&buf[..read]) {
            if print(event, out).is_err() {
                return ExitCode::from(if out.closed { EXIT_OUTPUT_CLOSED } else { EXIT_FAILED });
            }
        }
    }
    if let Some(event) = scanner.finish()
        && print(event, out).is_err()
    {
        return ExitCode::from(if out.closed { EXIT_OUTPUT_CLOSED } else { EXIT_FAILED });
    }
    if malformed { ExitCode::from(EXIT_FAILED) } else { ExitCode::SUCCESS }
}

/// One found signal as `switchboard scan` prints it.
pub fn scan_line(event: &ScanEvent) -> serde_json::Value {
    match event {
        ScanEvent::Signal { signal } => {
            let mut fields = serde_json::to_value(&signal.body).expect("signals serialize");
            if let serde_json::Value::Object(map) = &mut fields {
                map.remove("kind");
                map.insert("agent_id".into(), signal.agent_id.clone().into());
                map.insert("timestamp".into(), signal.timestamp.clone().into());
                for (key, value) in &signal.extra {
                    map.entry(key.clone()).or_insert_with(|| value.clone());
                }
            }
            serde_json::json!({
                "kind": signal.body.kind(),
                "malformed": false,
                "fields": fields,
                "raw": signal.raw,
            })
        }
        ScanEvent::Malformed { kind, reason, raw } => serde_json::json!({
            "kind": kind,
            "malformed": true,
            "reason": reason,
            "raw": raw,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scan_prints_one_json_line_per_signal() {
        let input = "working\r\n\x1b[33m[DELEGATE_WORK]\x1b[0m\r\nagent_id: a1\r\nnew_task_description: \"tests\"\r\nextra_field: 3\r\n[/DELEGATE_WORK]\r\n[STOP_WORK]\nnot: [yaml\n[/STOP_WORK]\n";
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let code = scan_input(input.as_bytes(), &mut out, &mut err);
        assert_eq!(code, ExitCode::from(EXIT_FAILED), "a malformed block makes the exit code 1");
        let lines: Vec<serde_json::Value> =
            String::from_utf8(out).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0]["kind"], "delegate");
        assert_eq!(lines[0]["malformed"], false);
        assert_eq!(lines[0]["fields"]["agent_id"], "a1");
        assert_eq!(lines[0]["fields"]["new_task_description"], "tests");
        assert_eq!(lines[0]["fields"]["independence"], "can_proceed_parallel");
        assert_eq!(lines[0]["fields"]["extra_field"], 3);
        assert_eq!(lines[1]["kind"], "stop_work");
        assert_eq!(lines[1]["malformed"], true);
        assert!(lines[1]["reason"].as_str().unwrap().contains("YAML"));
        assert_eq!(lines[1]["raw"], "\nnot: [yaml\n");

        let (mut out, mut err) = (Vec::new(), Vec::new());
        assert_eq!(scan_input("nothing to see\n".as_bytes(), &mut out, &mut err), ExitCode::SUCCESS);
        assert!(out.is_empty());
    }
}
