//! Loops in the store: a loop's row and its iterations' rows, written and read back.

use super::tasks::skip_corrupt;
use super::{Result, Store, StoreError, to_json};
use rusqlite::{OptionalExtension, params};
use switchboard_api::{Iteration, IterationOutcome, LOOP_ITERATIONS_SHOWN, LoopInfo, LoopState, Millis};
use switchboard_protocol::loops::LoopSettings;
use switchboard_protocol::{LoopId, ProfileId};

impl Store {
    // ---- loops ----

    /// Records a loop's own row (its settings and state; its iterations are
    /// rows of their own, written by [`Store::save_iteration`]).
    pub fn save_loop(&self, info: &LoopInfo) -> Result<()> {
        let record = StoredLoop {
            id: &info.id,
            profile_id: &info.profile_id,
            settings: &info.settings,
            created_at: info.created_at,
            state: &info.state,
        };
        self.exec(
            "INSERT INTO loops (id, profile_id, state, created_at, record) VALUES (?1, ?2, ?3, ?4, ?5)
             ON CONFLICT(id) DO UPDATE SET state = ?3, record = ?5",
            params![
                info.id.to_string(),
                info.profile_id.to_string(),
                stored_state(&info.state),
                info.created_at,
                to_json(&record)
            ],
        )?;
        Ok(())
    }

    /// Records one iteration of a loop: its row only, whatever the length
    /// of the loop's history.
    pub fn save_iteration(&self, loop_id: &LoopId, iteration: &Iteration) -> Result<()> {
        self.exec(
            "INSERT INTO loop_iterations (loop_id, seq, number, outcome, record) VALUES (?1, ?2, ?3, ?4, ?5)
             ON CONFLICT(loop_id, seq) DO UPDATE SET number = ?3, outcome = ?4, record = ?5",
            params![
                loop_id.to_string(),
                iteration.seq,
                iteration.number,
                iteration.outcome.as_str(),
                to_json(iteration)
            ],
        )?;
        Ok(())
    }

    /// The loop with its most recent iterations and its counts.
    pub fn get_loop(&self, id: &LoopId) -> Result<Option<LoopInfo>> {
        Ok(self.query_loops("id = ?1", [id.to_string()])?.pop())
    }

    /// The state of the agent's loop that is active or stalled, if it has one.
    pub fn open_loop_of(&self, profile_id: &ProfileId) -> Result<Option<LoopState>> {
        let state: Option<String> = self
            .conn
            .query_row(
                "SELECT record FROM loops WHERE profile_id = ?1 AND state IN ('active', 'stalled') LIMIT 1",
                [profile_id.to_string()],
                |row| row.get(0),
            )
            .optional()?;
        state.map(|record| read_loop_record(&record).map(|stored| stored.state)).transpose()
    }

    /// The active loops (at work or waiting their turn), oldest first.
    pub fn active_loops(&self) -> Result<Vec<LoopInfo>> {
        self.query_loops("state = 'active'", [])
    }

    /// Active and stalled loops, and the `recent` most recent others, oldest first.
    pub fn list_loops(&self, recent: usize) -> Result<Vec<LoopInfo>> {
        self.query_loops(
            "state IN ('active', 'stalled') OR id IN (SELECT id FROM loops WHERE state NOT IN ('active', 'stalled')
             ORDER BY created_at DESC LIMIT ?1)",
            [recent as i64],
        )
    }

    /// A page of a loop's history: the `limit` iterations recorded before
    /// `before` (its `seq`; none: the newest), oldest first.
    pub fn loop_iterations(&self, id: &LoopId, before: Option<u32>, limit: u32) -> Result<Vec<Iteration>> {
        let mut stmt = self.conn.prepare(
            "SELECT seq, record FROM loop_iterations WHERE loop_id = ?1 AND seq < ?2 ORDER BY seq DESC LIMIT ?3",
        )?;
        let rows = stmt.query_map(params![id.to_string(), before.unwrap_or(u32::MAX), limit], |row| {
            Ok((row.get::<_, u32>(0)?, row.get::<_, String>(1)?))
        })?;
        let mut page = rows
            .filter_map(|row| {
                skip_corrupt(row.map_err(StoreError::from).and_then(|(seq, record)| read_iteration(seq, &record)))
            })
            .collect::<Result<Vec<_>>>()?;
        page.reverse();
        Ok(page)
    }

    /// The iterations of a loop at work (as recorded: a crash may leave one).
    pub fn running_iterations(&self, id: &LoopId) -> Result<Vec<Iteration>> {
        let mut stmt = self.conn.prepare(
            "SELECT seq, record FROM loop_iterations WHERE loop_id = ?1 AND outcome = 'running' ORDER BY seq",
        )?;
        let rows = stmt.query_map([id.to_string()], |row| Ok((row.get::<_, u32>(0)?, row.get::<_, String>(1)?)))?;
        rows.filter_map(|row| {
            skip_corrupt(row.map_err(StoreError::from).and_then(|(seq, record)| read_iteration(seq, &record)))
        })
        .collect()
    }

    /// How many of the loop's latest iterations were failed starts, in a row
    /// (the newest first; counting stops at the first that was not, or at
    /// `at_most`).
    pub fn failed_starts_in_a_row(&self, id: &LoopId, at_most: u32) -> Result<u32> {
        let mut stmt =
            self.conn.prepare("SELECT outcome FROM loop_iterations WHERE loop_id = ?1 ORDER BY seq DESC LIMIT ?2")?;
        let outcomes = stmt.query_map(params![id.to_string(), at_most], |row| row.get::<_, String>(0))?;
        let mut in_a_row = 0;
        for outcome in outcomes {
            if outcome? != "failed_start" {
                break;
            }
            in_a_row += 1;
        }
        Ok(in_a_row)
    }

    /// The stop reasons of the loop's `last` ended iterations, oldest first
    /// (what the judge weighs).
    pub fn loop_stop_reasons(&self, id: &LoopId, last: usize) -> Result<Vec<String>> {
        let mut stmt = self.conn.prepare(
            "SELECT seq, record FROM loop_iterations WHERE loop_id = ?1 AND outcome = 'ended' ORDER BY seq DESC LIMIT ?2",
        )?;
        let rows = stmt.query_map(params![id.to_string(), last as i64], |row| {
            Ok((row.get::<_, u32>(0)?, row.get::<_, String>(1)?))
        })?;
        let mut reasons = rows
            .filter_map(|row| {
                skip_corrupt(row.map_err(StoreError::from).and_then(|(seq, record)| read_iteration(seq, &record)))
            })
            .filter_map(|iteration| match iteration {
                Ok(Iteration { outcome: IterationOutcome::Ended { stop_reason, .. }, .. }) => Some(Ok(stop_reason)),
                Ok(_) => None,
                Err(error) => Some(Err(error)),
            })
            .collect::<Result<Vec<_>>>()?;
        reasons.reverse();
        Ok(reasons)
    }

    fn query_loops(&self, filter: &str, params: impl rusqlite::Params) -> Result<Vec<LoopInfo>> {
        let mut stmt =
            self.conn.prepare(&format!("SELECT record FROM loops WHERE {filter} ORDER BY created_at, rowid"))?;
        let rows = stmt.query_map(params, |row| row.get::<_, String>(0))?;
        let stored: Vec<OwnedLoop> = rows
            .filter_map(|row| skip_corrupt(row.map_err(StoreError::from).and_then(|record| read_loop_record(&record))))
            .collect::<Result<_>>()?;
        stored.into_iter().map(|stored| self.with_iterations(stored)).collect()
    }

    /// A loop's row with its most recent iterations and its counts.
    fn with_iterations(&self, stored: OwnedLoop) -> Result<LoopInfo> {
        let id = stored.id.to_string();
        let iterations = self.loop_iterations(&stored.id, None, LOOP_ITERATIONS_SHOWN as u32)?;
        let (iteration_count, iterations_run) = self.conn.query_row(
            "SELECT count(*), count(*) FILTER (WHERE outcome = 'ended') FROM loop_iterations WHERE loop_id = ?1",
            [id],
            |row| Ok((row.get::<_, u32>(0)?, row.get::<_, u32>(1)?)),
        )?;
        Ok(LoopInfo {
            id: stored.id,
            profile_id: stored.profile_id,
            settings: stored.settings,
            created_at: stored.created_at,
            state: stored.state,
            iterations,
            iteration_count,
            iterations_run,
            // Summed by the engine when it tells of the loop.
            spent: Default::default(),
            budget_used: None,
        })
    }
}

/// A loop's own row as stored (its iterations are rows of their own).
#[derive(serde::Serialize)]
pub(super) struct StoredLoop<'a> {
    id: &'a LoopId,
    profile_id: &'a ProfileId,
    settings: &'a LoopSettings,
    created_at: Millis,
    state: &'a LoopState,
}

/// The same, as read (a record of an earlier version may still hold its
/// iterations: they are ignored, the rows are the truth).
#[derive(serde::Deserialize)]
pub(super) struct OwnedLoop {
    id: LoopId,
    profile_id: ProfileId,
    settings: LoopSettings,
    created_at: Millis,
    state: LoopState,
}

pub(super) fn read_loop_record(record: &str) -> Result<OwnedLoop> {
    serde_json::from_str(record).map_err(|e| StoreError::Corrupt { what: "loop", detail: e.to_string() })
}

/// An iteration's record, its place in the history taken from its row.
pub(super) fn read_iteration(seq: u32, record: &str) -> Result<Iteration> {
    let corrupt = |e: serde_json::Error| StoreError::Corrupt { what: "loop iteration", detail: e.to_string() };
    let mut value: serde_json::Value = serde_json::from_str(record).map_err(corrupt)?;
    if let Some(fields) = value.as_object_mut() {
        fields.insert("seq".to_owned(), seq.into());
    }
    serde_json::from_value(value).map_err(corrupt)
}

/// A loop's state as its row's `state` column holds it: what queries select
/// on (active; open but stopped; ended), the record holding the state itself.
/// A loop stopped because its folder is gone is selected as a stalled one is
/// (it holds its agent and resumes), so the column's check need not change.
pub(super) fn stored_state(state: &LoopState) -> &'static str {
    match state {
        LoopState::WorkspaceGone { .. } => "stalled",
        other => other.as_str(),
    }
}
