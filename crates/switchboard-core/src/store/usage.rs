//! What work cost: the agents' files followed for token usage, and each
//! model answer read from them, counted to its task.

use rusqlite::{Connection, Row, params};
use switchboard_api::{ModelUse, PriceTable, TaskSpent, Tokens, Usd, totals};
use switchboard_protocol::usage::{Reading, Transcript};
use switchboard_protocol::{ProfileId, SessionId, TaskId};

use super::{Result, Store, parse_id, to_json};

/// A file followed for usage, and how far it was read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UsageSource {
    pub path: String,
    pub session_id: SessionId,
    pub kind: Transcript,
    /// A teammate's or sub-agent's file: counted to the lead's task as its team's.
    pub team: bool,
    pub offset: u64,
    pub reading: Reading,
    pub done: bool,
}

/// One model answer, counted to its task (if it ran during one), priced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UsageRow {
    pub path: String,
    pub key: String,
    pub session_id: SessionId,
    pub profile_id: ProfileId,
    pub task_id: Option<TaskId>,
    pub team: bool,
    pub model: String,
    pub at: i64,
    pub tokens: Tokens,
    pub cost: Option<Usd>,
    pub list_price: bool,
}

/// Which answers a sum is over.
#[derive(Debug, Clone)]
pub enum UsageOf<'a> {
    Task(&'a TaskId),
    Loop(&'a switchboard_protocol::LoopId),
    /// An agent's answers from `since` (Unix ms).
    Agent(&'a ProfileId, i64),
    /// One session's answers (a delegate's).
    Session(&'a switchboard_protocol::SessionId),
}

const SOURCE_COLUMNS: &str = "path, session_id, kind, team, offset, reading, done";

impl Store {
    /// Follows `path` for the session's usage; a file already followed keeps
    /// how far it was read. Answers the source as stored.
    pub fn follow_usage(
        &self,
        path: &str,
        session_id: &SessionId,
        kind: Transcript,
        team: bool,
    ) -> Result<UsageSource> {
        self.exec(
            "INSERT INTO usage_sources (path, session_id, kind, team) VALUES (?1, ?2, ?3, ?4)
             ON CONFLICT(path) DO UPDATE SET done = 0",
            params![path, session_id.to_string(), kind.as_str(), team],
        )?;
        self.conn.query_row(
            &format!("SELECT {SOURCE_COLUMNS} FROM usage_sources WHERE path = ?1"),
            params![path],
            source_from_row,
        )?
    }

    /// The files still followed (their session may still write to them).
    pub fn followed_usage(&self) -> Result<Vec<UsageSource>> {
        let mut statement =
            self.conn.prepare(&format!("SELECT {SOURCE_COLUMNS} FROM usage_sources WHERE done = 0 ORDER BY rowid"))?;
        let rows = statement.query_map([], source_from_row)?;
        rows.map(|row| row.map_err(Into::into).and_then(|source| source)).collect()
    }

    /// Stores what a read of `path` found, and where it got to, at once: a
    /// restart resumes exactly after the answers kept.
    pub fn record_usage(
        &mut self,
        path: &str,
        offset: u64,
        reading: &Reading,
        problem: Option<&str>,
        rows: &[UsageRow],
    ) -> Result<()> {
        let result = (|| {
            let tx = self.conn.transaction()?;
            for row in rows {
                save_row(&tx, row)?;
            }
            tx.execute(
                "UPDATE usage_sources SET offset = ?2, reading = ?3, problem = ?4 WHERE path = ?1",
                params![path, offset as i64, to_json(reading), problem],
            )?;
            tx.commit()?;
            Ok(())
        })();
        self.health.note_store(&result);
        result
    }

    /// The file is read to its end and its session has ended.
    pub fn usage_done(&self, path: &str) -> Result<()> {
        self.exec("UPDATE usage_sources SET done = 1 WHERE path = ?1", params![path])?;
        Ok(())
    }

    /// The task an answer at `at` in `session` counts to: the latest typed
    /// into that session by then (an answer that arrives after its task
    /// ended still belongs to its turn).
    pub fn task_at(&self, session: &SessionId, at: i64) -> Result<Option<(TaskId, ProfileId)>> {
        let found = self.conn.query_row(
            "SELECT id, profile_id FROM tasks WHERE session_id = ?1 AND COALESCE(typed_at, started_at) <= ?2
             ORDER BY COALESCE(typed_at, started_at) DESC LIMIT 1",
            params![session.to_string(), at],
            |row| Ok((row.get::<_, String>(0)?, row.get::<_, String>(1)?)),
        );
        match found {
            Ok((task, profile)) => Ok(Some((parse_id(&task)?, parse_id(&profile)?))),
            Err(rusqlite::Error::QueryReturnedNoRows) => Ok(None),
            Err(error) => Err(error.into()),
        }
    }

    /// The model of the agent's latest answer, if one was counted.
    pub fn last_model(&self, profile: &ProfileId) -> Result<Option<String>> {
        let found = self.conn.query_row(
            "SELECT model FROM usage WHERE profile_id = ?1 AND model != ?2 ORDER BY at DESC LIMIT 1",
            params![profile.to_string(), switchboard_api::UNKNOWN_MODEL],
            |row| row.get(0),
        );
        match found {
            Ok(model) => Ok(Some(model)),
            Err(rusqlite::Error::QueryReturnedNoRows) => Ok(None),
            Err(error) => Err(error.into()),
        }
    }

    /// Each model's use in `of`, own (`team` false) or the team's.
    pub fn model_uses(&self, of: &UsageOf<'_>, team: Option<bool>) -> Result<Vec<ModelUse>> {
        let (filter, key, since) = match of {
            UsageOf::Task(id) => ("u.task_id = ?1", id.to_string(), 0),
            UsageOf::Loop(id) => ("u.task_id IN (SELECT id FROM tasks WHERE loop_id = ?1)", id.to_string(), 0),
            UsageOf::Agent(id, since) => ("u.profile_id = ?1 AND u.at >= ?2", id.to_string(), *since),
            UsageOf::Session(id) => ("u.session_id = ?1", id.to_string(), 0),
        };
        let team = match team {
            Some(true) => " AND u.team = 1",
            Some(false) => " AND u.team = 0",
            None => "",
        };
        let sql = format!(
            "SELECT u.model, SUM(u.input), SUM(u.output), SUM(u.cache_read), SUM(u.cache_write_5m), SUM(u.cache_write_1h),
                    COALESCE(SUM(u.cost_nanos), 0), SUM(u.cost_nanos IS NULL)
             FROM usage AS u WHERE {filter} AND ?2 = ?2{team} GROUP BY u.model ORDER BY u.model"
        );
        let mut statement = self.conn.prepare(&sql)?;
        let rows = statement.query_map(params![key, since], model_use_from_row)?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// What a session used and cost (a delegate's, whose answers count to
    /// another's task).
    pub fn session_spent(&self, id: &switchboard_protocol::SessionId) -> Result<switchboard_api::Spent> {
        let (tokens, cost_usd) = totals(&self.model_uses(&UsageOf::Session(id), None)?);
        let list_price: bool = self.conn.query_row(
            "SELECT EXISTS (SELECT 1 FROM usage WHERE session_id = ?1 AND list_price = 1)",
            params![id.to_string()],
            |row| row.get(0),
        )?;
        Ok(switchboard_api::Spent { tokens, cost_usd, list_price })
    }

    /// What a task used and cost: its own, and its team's apart.
    pub fn task_spent(&self, id: &TaskId) -> Result<TaskSpent> {
        let own = self.model_uses(&UsageOf::Task(id), Some(false))?;
        let team = self.model_uses(&UsageOf::Task(id), Some(true))?;
        let (tokens, cost_usd) = totals(&own);
        let (team_tokens, team_cost_usd) = match team.is_empty() {
            true => (None, None),
            false => {
                let (tokens, cost) = totals(&team);
                (Some(tokens), cost)
            }
        };
        let list_price: bool = self.conn.query_row(
            "SELECT EXISTS (SELECT 1 FROM usage WHERE task_id = ?1 AND list_price = 1)",
            params![id.to_string()],
            |row| row.get(0),
        )?;
        Ok(TaskSpent { tokens, cost_usd, team_tokens, team_cost_usd, list_price, budget_used: None })
    }

    /// Every answer from `since` (Unix ms), oldest first: what a report
    /// groups by agent, day or task.
    pub fn usage_rows_since(&self, since: i64) -> Result<Vec<UsageRow>> {
        let mut statement = self.conn.prepare(
            "SELECT path, key, session_id, profile_id, task_id, team, model, at, input, output, cache_read,
                    cache_write_5m, cache_write_1h, cost_nanos, list_price
             FROM usage WHERE at >= ?1 ORDER BY at",
        )?;
        let rows = statement.query_map(params![since], |row| Ok(row_from(row)))?;
        rows.map(|row| row.map_err(Into::into).and_then(|row| row)).collect()
    }

    /// Prices every answer again at `prices` (the user changed the table).
    pub fn reprice_usage(&mut self, prices: &PriceTable) -> Result<()> {
        let result = (|| {
            let tx = self.conn.transaction()?;
            {
                let mut read = tx.prepare(
                    "SELECT rowid, model, input, output, cache_read, cache_write_5m, cache_write_1h FROM usage",
                )?;
                let mut write = tx.prepare("UPDATE usage SET cost_nanos = ?2 WHERE rowid = ?1")?;
                let rows = read.query_map([], |row| {
                    let model: String = row.get(1)?;
                    Ok((row.get::<_, i64>(0)?, model, tokens_from(row, 2)?))
                })?;
                for row in rows {
                    let (rowid, model, tokens) = row?;
                    let known = (model != switchboard_api::UNKNOWN_MODEL).then_some(model.as_str());
                    write.execute(params![rowid, prices.cost(known, &tokens).map(Usd::nanos)])?;
                }
            }
            tx.commit()?;
            Ok(())
        })();
        self.health.note_store(&result);
        result
    }
}

fn save_row(conn: &Connection, row: &UsageRow) -> rusqlite::Result<usize> {
    let t = &row.tokens;
    conn.execute(
        "INSERT INTO usage (path, key, session_id, profile_id, task_id, team, model, at, input, output, cache_read,
                            cache_write_5m, cache_write_1h, cost_nanos, list_price)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)
         ON CONFLICT(path, key) DO UPDATE SET model = ?7, input = ?9, output = ?10, cache_read = ?11,
             cache_write_5m = ?12, cache_write_1h = ?13, cost_nanos = ?14",
        params![
            row.path,
            row.key,
            row.session_id.to_string(),
            row.profile_id.to_string(),
            row.task_id.as_ref().map(ToString::to_string),
            row.team,
            row.model,
            row.at,
            t.input as i64,
            t.output as i64,
            t.cache_read as i64,
            t.cache_write_5m as i64,
            t.cache_write_1h as i64,
            row.cost.map(Usd::nanos),
            row.list_price,
        ],
    )
}

fn count(row: &Row<'_>, index: usize) -> rusqlite::Result<u64> {
    Ok(row.get::<_, Option<i64>>(index)?.unwrap_or(0).max(0) as u64)
}

fn tokens_from(row: &Row<'_>, from: usize) -> rusqlite::Result<Tokens> {
    Ok(Tokens {
        input: count(row, from)?,
        output: count(row, from + 1)?,
        cache_read: count(row, from + 2)?,
        cache_write_5m: count(row, from + 3)?,
        cache_write_1h: count(row, from + 4)?,
    })
}

fn model_use_from_row(row: &Row<'_>) -> rusqlite::Result<ModelUse> {
    Ok(ModelUse {
        model: row.get(0)?,
        tokens: tokens_from(row, 1)?,
        cost: Usd::from_nanos(row.get(6)?),
        unpriced: count(row, 7)?,
    })
}

fn row_from(row: &Row<'_>) -> Result<UsageRow> {
    Ok(UsageRow {
        path: row.get(0)?,
        key: row.get(1)?,
        session_id: parse_id(&row.get::<_, String>(2)?)?,
        profile_id: parse_id(&row.get::<_, String>(3)?)?,
        task_id: row.get::<_, Option<String>>(4)?.map(|id| parse_id(&id)).transpose()?,
        team: row.get(5)?,
        model: row.get(6)?,
        at: row.get(7)?,
        tokens: tokens_from(row, 8)?,
        cost: row.get::<_, Option<i64>>(13)?.map(Usd::from_nanos),
        list_price: row.get(14)?,
    })
}

fn source_from_row(row: &Row<'_>) -> rusqlite::Result<Result<UsageSource>> {
    let kind: String = row.get(2)?;
    let reading: String = row.get(5)?;
    let session: String = row.get(1)?;
    Ok((|| {
        Ok(UsageSource {
            path: row.get(0)?,
            session_id: parse_id(&session)?,
            kind: Transcript::parse(&kind)
                .ok_or_else(|| super::StoreError::Corrupt { what: "usage source", detail: format!("kind `{kind}`") })?,
            team: row.get(3)?,
            offset: row.get::<_, i64>(4)?.max(0) as u64,
            reading: serde_json::from_str(&reading).unwrap_or_default(),
            done: row.get(6)?,
        })
    })())
}
