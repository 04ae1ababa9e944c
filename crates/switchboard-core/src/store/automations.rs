//! Automations in the store: each one's row (its spec, state, when its
//! schedule was last judged and runs next) and each run's row.

use super::tasks::skip_corrupt;
use super::{Result, Store, StoreError, parse_id, to_json};
use rusqlite::{OptionalExtension, params};
use switchboard_api::{AUTOMATION_RUNS_SHOWN, AutomationSpec, AutomationState, Millis};
use switchboard_protocol::{AutomationId, LoopId, ProfileId, TaskId};

/// An automation as stored: what the engine keeps of it beside its runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredAutomation {
    pub id: AutomationId,
    pub spec: AutomationSpec,
    pub state: AutomationState,
    pub created_at: Millis,
    /// Until when its schedule was judged (Unix ms, the engine's clock):
    /// runs due after that were not made.
    pub judged_at: Millis,
    pub next_run: Option<Millis>,
    /// A branch trigger's: the commit the branch was last seen at.
    pub seen: Option<String>,
}

/// What a run made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunMade {
    Task(TaskId),
    Loop(LoopId),
    /// Nothing, and why.
    Skipped(String),
}

/// One run as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredRun {
    pub seq: u32,
    pub fired_at: Millis,
    pub reason: String,
    pub made: RunMade,
}

const COLUMNS: &str = "id, profile_id, spec, state, created_at, judged_at, next_run, seen";

impl Store {
    /// Records an automation's row (its runs are rows of their own).
    pub fn save_automation(&self, automation: &StoredAutomation) -> Result<()> {
        self.exec(
            "INSERT INTO automations (id, profile_id, spec, state, created_at, judged_at, next_run, seen)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
             ON CONFLICT(id) DO UPDATE SET profile_id = ?2, spec = ?3, state = ?4, judged_at = ?6, next_run = ?7,
                                           seen = ?8",
            params![
                automation.id.to_string(),
                automation.spec.profile_id.to_string(),
                to_json(&automation.spec),
                to_json(&automation.state),
                automation.created_at,
                automation.judged_at,
                automation.next_run,
                automation.seen,
            ],
        )?;
        Ok(())
    }

    pub fn get_automation(&self, id: &AutomationId) -> Result<Option<StoredAutomation>> {
        Ok(self.query_automations("id = ?1", [id.to_string()])?.pop())
    }

    /// Every automation, oldest first (a record that does not read is left
    /// out, said in the log).
    pub fn list_automations(&self) -> Result<Vec<StoredAutomation>> {
        self.query_automations("1 = 1", [])
    }

    /// The automations of an agent, oldest first.
    pub fn automations_of(&self, profile: &ProfileId) -> Result<Vec<StoredAutomation>> {
        self.query_automations("profile_id = ?1", [profile.to_string()])
    }

    fn query_automations(&self, filter: &str, params: impl rusqlite::Params) -> Result<Vec<StoredAutomation>> {
        let mut statement = self
            .conn
            .prepare(&format!("SELECT {COLUMNS} FROM automations WHERE {filter} ORDER BY created_at, rowid"))?;
        let rows = statement.query_map(params, |row| {
            Ok((
                row.get::<_, String>(0)?,
                row.get::<_, String>(2)?,
                row.get::<_, String>(3)?,
                row.get::<_, i64>(4)?,
                row.get::<_, i64>(5)?,
                row.get::<_, Option<i64>>(6)?,
                row.get::<_, Option<String>>(7)?,
            ))
        })?;
        rows.filter_map(|row| {
            skip_corrupt(row.map_err(StoreError::from).and_then(
                |(id, spec, state, created_at, judged_at, next_run, seen)| {
                    let corrupt =
                        |e: serde_json::Error| StoreError::Corrupt { what: "automation", detail: e.to_string() };
                    Ok(StoredAutomation {
                        id: parse_id(&id)?,
                        spec: serde_json::from_str(&spec).map_err(corrupt)?,
                        state: serde_json::from_str(&state).map_err(corrupt)?,
                        created_at,
                        judged_at,
                        next_run,
                        seen,
                    })
                },
            ))
        })
        .collect()
    }

    /// Removes the automation and its runs' history; whether it was there.
    pub fn remove_automation(&self, id: &AutomationId) -> Result<bool> {
        Ok(self.exec("DELETE FROM automations WHERE id = ?1", [id.to_string()])? > 0)
    }

    /// Records a run; answers its number.
    pub fn add_automation_run(&self, id: &AutomationId, fired_at: Millis, reason: &str, made: &RunMade) -> Result<u32> {
        let seq: u32 = self.conn.query_row(
            "SELECT COALESCE(MAX(seq), 0) + 1 FROM automation_runs WHERE automation_id = ?1",
            [id.to_string()],
            |row| row.get(0),
        )?;
        let (task, loop_id, skipped) = match made {
            RunMade::Task(task) => (Some(task.to_string()), None, None),
            RunMade::Loop(id) => (None, Some(id.to_string()), None),
            RunMade::Skipped(why) => (None, None, Some(why.as_str())),
        };
        self.exec(
            "INSERT INTO automation_runs (automation_id, seq, fired_at, reason, task_id, loop_id, skipped)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            params![id.to_string(), seq, fired_at, reason, task, loop_id, skipped],
        )?;
        Ok(seq)
    }

    /// The automation's latest `limit` runs, oldest first.
    pub fn automation_runs(&self, id: &AutomationId, limit: usize) -> Result<Vec<StoredRun>> {
        let mut statement = self.conn.prepare(
            "SELECT seq, fired_at, reason, task_id, loop_id, skipped FROM automation_runs
             WHERE automation_id = ?1 ORDER BY seq DESC LIMIT ?2",
        )?;
        let rows = statement.query_map(params![id.to_string(), limit as i64], |row| {
            Ok((
                row.get::<_, u32>(0)?,
                row.get::<_, i64>(1)?,
                row.get::<_, String>(2)?,
                row.get::<_, Option<String>>(3)?,
                row.get::<_, Option<String>>(4)?,
                row.get::<_, Option<String>>(5)?,
            ))
        })?;
        let mut runs = rows
            .map(|row| {
                let (seq, fired_at, reason, task, loop_id, skipped) = row?;
                let made = match (task, loop_id, skipped) {
                    (Some(task), _, _) => RunMade::Task(parse_id(&task)?),
                    (None, Some(id), _) => RunMade::Loop(parse_id(&id)?),
                    (None, None, why) => RunMade::Skipped(why.unwrap_or_default()),
                };
                Ok(StoredRun { seq, fired_at, reason, made })
            })
            .collect::<Result<Vec<_>>>()?;
        runs.reverse();
        Ok(runs)
    }

    /// The latest runs shown with an automation.
    pub fn shown_automation_runs(&self, id: &AutomationId) -> Result<Vec<StoredRun>> {
        self.automation_runs(id, AUTOMATION_RUNS_SHOWN)
    }

    /// How many runs that made work the automation fired since `since`.
    pub fn automation_runs_made_since(&self, id: &AutomationId, since: Millis) -> Result<u32> {
        Ok(self.conn.query_row(
            "SELECT COUNT(*) FROM automation_runs WHERE automation_id = ?1 AND fired_at >= ?2 AND skipped IS NULL",
            params![id.to_string(), since],
            |row| row.get(0),
        )?)
    }

    /// The automation whose run made the task, if one did.
    pub fn automation_of_task(&self, task: &TaskId) -> Result<Option<AutomationId>> {
        let id: Option<String> = self
            .conn
            .query_row("SELECT automation_id FROM automation_runs WHERE task_id = ?1", [task.to_string()], |row| {
                row.get(0)
            })
            .optional()?;
        id.map(|id| parse_id(&id)).transpose()
    }

    /// The automation whose run started the loop, if one did.
    pub fn automation_of_loop(&self, loop_id: &LoopId) -> Result<Option<AutomationId>> {
        let id: Option<String> = self
            .conn
            .query_row("SELECT automation_id FROM automation_runs WHERE loop_id = ?1", [loop_id.to_string()], |row| {
                row.get(0)
            })
            .optional()?;
        id.map(|id| parse_id(&id)).transpose()
    }
}
