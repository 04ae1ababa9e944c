//! The event log in the store: entries appended, and read back per session, task or flow.

use super::{Result, Store, StoreError, parse_id, to_json};
use rusqlite::{Row, params};
use switchboard_api::{FlowTarget, LogEntry, LogKind, Millis};
use switchboard_protocol::{LoopId, SessionId, TaskId};

impl Store {
    pub fn append_event(&self, at: Millis, session_id: Option<&SessionId>, kind: &LogKind) -> Result<i64> {
        self.append_task_event(at, session_id, None, kind)
    }

    pub fn append_task_event(
        &self,
        at: Millis,
        session_id: Option<&SessionId>,
        task_id: Option<&TaskId>,
        kind: &LogKind,
    ) -> Result<i64> {
        Ok(self.append_entry(at, session_id, task_id, None, kind)?.seq)
    }

    /// Appends to the event log; answers with the entry as recorded.
    pub fn append_entry(
        &self,
        at: Millis,
        session_id: Option<&SessionId>,
        task_id: Option<&TaskId>,
        loop_id: Option<&LoopId>,
        kind: &LogKind,
    ) -> Result<LogEntry> {
        let data = to_json(kind);
        let tag = serde_json::to_value(kind)
            .ok()
            .and_then(|value| value.get("kind").and_then(|k| k.as_str()).map(str::to_owned))
            .unwrap_or_default();
        self.exec(
            "INSERT INTO events (at, session_id, task_id, loop_id, kind, data) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![
                at,
                session_id.map(ToString::to_string),
                task_id.map(ToString::to_string),
                loop_id.map(ToString::to_string),
                tag,
                data
            ],
        )?;
        Ok(LogEntry {
            seq: self.conn.last_insert_rowid(),
            at,
            session_id: session_id.cloned(),
            task_id: task_id.cloned(),
            kind: kind.clone(),
        })
    }

    pub fn list_events(&self, session_id: Option<&SessionId>) -> Result<Vec<LogEntry>> {
        self.query_events("?1 IS NULL OR session_id = ?1", session_id.map(ToString::to_string))
    }

    pub fn task_events(&self, task_id: &TaskId) -> Result<Vec<LogEntry>> {
        self.query_events("task_id = ?1", Some(task_id.to_string()))
    }

    /// A flow target's events, oldest first: those up to `until_seq` and
    /// from `since_at`, the most recent `limit` of them; and how many older
    /// ones were left out.
    pub fn target_events(
        &self,
        target: &FlowTarget,
        until_seq: Option<i64>,
        since_at: Option<Millis>,
        limit: usize,
    ) -> Result<(Vec<LogEntry>, u32)> {
        let (id, members) = match target {
            FlowTarget::Agent { profile_id } => (
                profile_id.to_string(),
                "SELECT seq FROM events WHERE session_id IN (SELECT id FROM sessions WHERE profile_id = ?1)
                 UNION SELECT seq FROM events WHERE task_id IN (SELECT id FROM tasks WHERE profile_id = ?1)
                 UNION SELECT seq FROM events WHERE loop_id IN (SELECT id FROM loops WHERE profile_id = ?1)
                 UNION SELECT seq FROM events WHERE kind = 'delegation' AND session_id IN
                     (SELECT delegate_session FROM delegations WHERE requester_session IN
                         (SELECT id FROM sessions WHERE profile_id = ?1))",
            ),
            FlowTarget::Session { session_id } => (
                session_id.to_string(),
                "SELECT seq FROM events WHERE session_id = ?1
                 UNION SELECT seq FROM events WHERE task_id IN (SELECT id FROM tasks WHERE session_id = ?1)
                 UNION SELECT seq FROM events WHERE kind = 'delegation' AND session_id IN
                     (SELECT delegate_session FROM delegations WHERE requester_session = ?1)",
            ),
            FlowTarget::Task { task_id } => (
                task_id.to_string(),
                "SELECT seq FROM events WHERE task_id = ?1
                 UNION SELECT e.seq FROM events e JOIN tasks t ON t.id = ?1
                     WHERE e.session_id = t.session_id AND t.started_at IS NOT NULL
                     AND e.at >= t.started_at AND e.at <= coalesce(t.ended_at, 9223372036854775807)",
            ),
            FlowTarget::Loop { loop_id } => (
                loop_id.to_string(),
                "SELECT seq FROM events WHERE loop_id = ?1
                 UNION SELECT seq FROM events WHERE task_id IN (SELECT id FROM tasks WHERE loop_id = ?1)
                 UNION SELECT seq FROM events WHERE session_id IN
                     (SELECT session_id FROM tasks WHERE loop_id = ?1 AND session_id IS NOT NULL)",
            ),
        };
        let bounds = "seq <= coalesce(?2, seq) AND at >= coalesce(?3, at)";
        let limit = limit.max(1);
        let mut stmt = self.conn.prepare_cached(&format!(
            "SELECT seq, at, session_id, task_id, data FROM events WHERE seq IN ({members}) AND {bounds}
             ORDER BY seq DESC LIMIT ?4"
        ))?;
        let rows = stmt.query_map(params![id, until_seq, since_at, limit as i64 + 1], event_row)?;
        let mut entries = rows.map(|row| entry_from(row?)).collect::<Result<Vec<_>>>()?;
        let mut omitted = 0;
        if entries.len() > limit {
            entries.truncate(limit);
            let oldest = entries.last().map_or(0, |e| e.seq);
            omitted = self.conn.query_row(
                &format!("SELECT count(*) FROM events WHERE seq IN ({members}) AND {bounds} AND seq < ?4"),
                params![id, until_seq, since_at, oldest],
                |row| row.get::<_, i64>(0),
            )? as u32;
        }
        entries.reverse();
        Ok((entries, omitted))
    }

    pub(super) fn query_events(&self, filter: &str, param: Option<String>) -> Result<Vec<LogEntry>> {
        let mut stmt = self
            .conn
            .prepare(&format!("SELECT seq, at, session_id, task_id, data FROM events WHERE {filter} ORDER BY seq"))?;
        let rows = stmt.query_map([param], event_row)?;
        rows.map(|row| entry_from(row?)).collect()
    }
}

pub(super) type EventRow = (i64, i64, Option<String>, Option<String>, String);

pub(super) fn event_row(row: &Row) -> rusqlite::Result<EventRow> {
    Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?, row.get(4)?))
}

pub(super) fn entry_from((seq, at, session_id, task_id, data): EventRow) -> Result<LogEntry> {
    Ok(LogEntry {
        seq,
        at,
        session_id: session_id.map(|id| parse_id(&id)).transpose()?,
        task_id: task_id.map(|id| parse_id(&id)).transpose()?,
        kind: serde_json::from_str(&data)
            .map_err(|e| StoreError::Corrupt { what: "event", detail: format!("#{seq}: {e}") })?,
    })
}
