//! Task queues and signals in the store.

use rusqlite::{Connection, OptionalExtension, Row, params};
use switchboard_protocol::{Priority, ProfileId, SessionId, SignalId, TaskId};

use super::{Result, Store, StoreError, parse_id, to_json};
use switchboard_api::{
    Delegation, QueuePause, SignalInfo, SignalRecord, SignalState, TaskInfo, TaskRecord, TaskSpec, TaskState,
};

const TASK_COLUMNS: &str = "id, profile_id, instruction, context, specs, instructions, priority, time_limit_secs, \
     success_criteria, state, ord, session_id, created_at, started_at, typed_at, ended_at, progress, reason, result, \
     goals, loop_id, loop_iteration, quiet_since, waiting_since, waited_ms, title, worktree, base, budget";

/// The `sessions` columns in the order `run_from_row` reads them.
impl Store {
    // ---- queues and tasks ----

    pub fn queue_paused(&self, profile_id: &ProfileId) -> Result<bool> {
        Ok(self
            .conn
            .query_row("SELECT queue_paused FROM profiles WHERE id = ?1", [profile_id.to_string()], |row| row.get(0))
            .optional()?
            .unwrap_or(false))
    }

    /// Pauses the queue, saying who and why (`Some`), or lets it run again
    /// (`None`, which forgets the reason).
    pub fn set_queue_paused(&self, profile_id: &ProfileId, pause: Option<&QueuePause>) -> Result<()> {
        let reason = pause.map(to_json);
        self.conn.execute(
            "UPDATE profiles SET queue_paused = ?2, queue_pause = ?3 WHERE id = ?1",
            params![profile_id.to_string(), pause.is_some(), reason],
        )?;
        Ok(())
    }

    /// Who paused the queue and why, while it is paused and the reason is known.
    pub fn queue_pause(&self, profile_id: &ProfileId) -> Result<Option<QueuePause>> {
        let reason: Option<Option<String>> = self
            .conn
            .query_row(
                "SELECT queue_pause FROM profiles WHERE id = ?1 AND queue_paused",
                [profile_id.to_string()],
                |row| row.get(0),
            )
            .optional()?;
        Ok(reason.flatten().and_then(|json| serde_json::from_str(&json).ok()))
    }

    /// Inserts or replaces a task's row.
    pub fn save_task(&self, task: &TaskInfo) -> Result<()> {
        let result = save_task_on(&self.conn, task);
        self.health.note_store(&result);
        result
    }

    /// Writes several tasks in one transaction (a reordered queue).
    pub fn save_tasks(&mut self, tasks: &[TaskInfo]) -> Result<()> {
        let result = (|| {
            let tx = self.conn.transaction()?;
            for task in tasks {
                save_task_on(&tx, task)?;
            }
            tx.commit()?;
            Ok(())
        })();
        self.health.note_store(&result);
        result
    }

    pub fn get_task(&self, id: &TaskId) -> Result<Option<TaskInfo>> {
        Ok(self.query_tasks("id = ?1", [id.to_string()], None)?.pop())
    }

    /// The tasks that ran or run in the worktree made for `owner` (a task
    /// or loop): the one it was made for, then those that name it; oldest
    /// first.
    pub fn tasks_in_worktree(&self, owner: &str) -> Result<Vec<TaskInfo>> {
        self.query_tasks("id = ?1 OR worktree = ?1 OR loop_id = ?1", [owner.to_owned()], None)
    }

    /// Queued and running tasks, of one profile or all.
    pub fn active_tasks(&self, profile_id: Option<&ProfileId>) -> Result<Vec<TaskInfo>> {
        self.query_tasks(
            "state IN ('queued', 'running') AND (?1 IS NULL OR profile_id = ?1)",
            [profile_id.map(ToString::to_string)],
            None,
        )
    }

    /// The queue of a profile as the pure queue rules take it (id, priority,
    /// order, in arrival order): what the SQL reads below are checked against.
    #[cfg(test)]
    pub(crate) fn queue_entries(&self, profile_id: &ProfileId) -> Result<Vec<crate::tasks::queue::Queued>> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT id, priority, ord FROM tasks WHERE profile_id = ?1 AND state = 'queued' ORDER BY created_at, rowid",
        )?;
        let rows = stmt.query_map([profile_id.to_string()], |row| {
            Ok((row.get::<_, String>(0)?, row.get::<_, String>(1)?, row.get::<_, i64>(2)?))
        })?;
        let mut entries = Vec::new();
        for row in rows {
            let (id, priority, order) = row?;
            // As in the listings: a row that does not read is left out, not the queue.
            match (parse_id(&id), Priority::parse(&priority)) {
                (Ok(id), Some(priority)) => entries.push(crate::tasks::queue::Queued { id, priority, order }),
                _ => {
                    tracing::warn!(task = %id, %priority, "a queued task that does not read was left out of its queue")
                }
            }
        }
        Ok(entries)
    }

    /// The task a profile's queue runs next, read in SQL in the pick order of
    /// [`crate::tasks::queue::pick_next`] (priority as [`Priority::ALL`] ranks
    /// it, then order, then arrival), one indexed lookup per priority.
    pub fn queue_next(&self, profile_id: &ProfileId) -> Result<Option<TaskId>> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT id FROM tasks WHERE profile_id = ?1 AND state = 'queued' AND priority = ?2
             ORDER BY ord, created_at, rowid LIMIT 1",
        )?;
        for priority in Priority::ALL {
            let id: Option<String> =
                stmt.query_row([profile_id.to_string(), priority.as_str().to_owned()], |row| row.get(0)).optional()?;
            if let Some(id) = id {
                return Ok(Some(parse_id(&id)?));
            }
        }
        Ok(None)
    }

    /// How many tasks wait in a profile's queue.
    pub fn queue_len(&self, profile_id: &ProfileId) -> Result<usize> {
        let count: i64 = self
            .conn
            .prepare_cached("SELECT COUNT(*) FROM tasks WHERE profile_id = ?1 AND state = 'queued'")?
            .query_row([profile_id.to_string()], |row| row.get(0))?;
        Ok(count as usize)
    }

    /// A queued task's 1-based place in its queue, counted in SQL in the pick
    /// order of [`crate::tasks::queue::pick_order`] (priority as
    /// [`Priority::ALL`] ranks it, then order, then arrival): the same answer
    /// as [`crate::tasks::queue::position`] without reading the queue.
    pub fn queue_position(&self, profile_id: &ProfileId, task_id: &TaskId) -> Result<Option<u32>> {
        let rank = |table: &str| {
            let arms: String = Priority::ALL
                .iter()
                .enumerate()
                .map(|(rank, p)| format!(" WHEN '{}' THEN {rank}", p.as_str()))
                .collect();
            format!("CASE {table}.priority{arms} END")
        };
        let sql = format!(
            "SELECT 1 + (SELECT COUNT(*) FROM tasks AS t WHERE t.profile_id = me.profile_id AND t.state = 'queued'
                         AND ({t}, t.ord, t.created_at, t.rowid) < ({me}, me.ord, me.created_at, me.rowid))
             FROM tasks AS me WHERE me.id = ?2 AND me.profile_id = ?1 AND me.state = 'queued'",
            t = rank("t"),
            me = rank("me"),
        );
        let position: Option<i64> = self
            .conn
            .prepare_cached(&sql)?
            .query_row([profile_id.to_string(), task_id.to_string()], |row| row.get(0))
            .optional()?;
        Ok(position.map(|p| p as u32))
    }

    /// The `limit` most recently finished tasks, of one profile or all.
    pub fn finished_tasks(&self, profile_id: Option<&ProfileId>, limit: usize) -> Result<Vec<TaskInfo>> {
        self.query_tasks(
            "state NOT IN ('queued', 'running') AND (?1 IS NULL OR profile_id = ?1)",
            [profile_id.map(ToString::to_string)],
            Some(limit),
        )
    }

    /// A profile's tasks that ended in one of `states` after `since`, the
    /// newest `limit`, newest first.
    pub fn ended_since(
        &self,
        profile_id: &ProfileId,
        states: &[TaskState],
        since: switchboard_api::Millis,
        limit: usize,
    ) -> Result<Vec<TaskInfo>> {
        let states = states_list(states);
        let filter = format!("profile_id = ?1 AND state IN ({states}) AND ended_at > ?2");
        let mut tasks = self.query_tasks(&filter, params![profile_id.to_string(), since], Some(limit))?;
        tasks.reverse();
        Ok(tasks)
    }

    /// How many tasks of a session ended in one of `states`.
    pub fn count_ended_in(&self, session_id: &SessionId, states: &[TaskState]) -> Result<u32> {
        let states = states_list(states);
        let sql = format!("SELECT COUNT(*) FROM tasks WHERE session_id = ?1 AND state IN ({states})");
        Ok(self.conn.query_row(&sql, [session_id.to_string()], |row| row.get(0))?)
    }

    /// The order value that puts a task last (or first) among a profile's
    /// queued tasks.
    pub fn queue_bound(&self, profile_id: &ProfileId, last: bool) -> Result<i64> {
        let sql = if last {
            "SELECT COALESCE(MAX(ord) + 1, 0) FROM tasks WHERE profile_id = ?1 AND state = 'queued'"
        } else {
            "SELECT COALESCE(MIN(ord) - 1, 0) FROM tasks WHERE profile_id = ?1 AND state = 'queued'"
        };
        Ok(self.conn.query_row(sql, [profile_id.to_string()], |row| row.get(0))?)
    }

    fn query_tasks(&self, filter: &str, params: impl rusqlite::Params, limit: Option<usize>) -> Result<Vec<TaskInfo>> {
        let sql = match limit {
            Some(limit) => format!(
                "SELECT * FROM (SELECT {TASK_COLUMNS}, rowid AS r FROM tasks WHERE {filter}
                 ORDER BY ended_at DESC, r DESC LIMIT {limit}) ORDER BY ended_at, r"
            ),
            None => format!("SELECT {TASK_COLUMNS} FROM tasks WHERE {filter} ORDER BY created_at, rowid"),
        };
        let mut stmt = self.conn.prepare(&sql)?;
        let rows = stmt.query_map(params, |row| Ok(task_from_row(row)))?;
        rows.filter_map(|row| skip_corrupt(row.map_err(StoreError::from).and_then(|task| task))).collect()
    }

    /// The tasks and signals that hold each pattern somewhere in their row
    /// (`LIKE`, escaped with `\`), newest first, at most `limit` of each
    /// after skipping `offset`: the candidates a search then reads, a batch
    /// at a time.
    pub fn search_candidates(
        &self,
        patterns: &[String],
        limit: usize,
        offset: usize,
    ) -> Result<(Vec<TaskInfo>, Vec<SignalInfo>)> {
        let each = |columns: &[&str]| {
            (1..=patterns.len())
                .map(|i| {
                    let any: Vec<String> = columns.iter().map(|c| format!("{c} LIKE ?{i} ESCAPE '\\'")).collect();
                    format!("({})", any.join(" OR "))
                })
                .collect::<Vec<_>>()
                .join(" AND ")
        };
        let params = rusqlite::params_from_iter(patterns);
        let sql = format!(
            "SELECT {TASK_COLUMNS} FROM tasks WHERE {} ORDER BY created_at DESC, rowid DESC LIMIT {limit} OFFSET {offset}",
            each(&["title", "instruction", "result"])
        );
        let mut stmt = self.conn.prepare(&sql)?;
        let rows = stmt.query_map(params.clone(), |row| Ok(task_from_row(row)))?;
        let tasks = rows
            .filter_map(|row| skip_corrupt(row.map_err(StoreError::from).and_then(|task| task)))
            .collect::<Result<_>>()?;
        let signals = self.query_signals(
            &format!(
                "id IN (SELECT id FROM signals WHERE {} ORDER BY created_at DESC LIMIT {limit} OFFSET {offset})",
                each(&["record"])
            ),
            params,
        )?;
        Ok((tasks, signals))
    }

    // ---- signals ----

    pub fn save_signal(&self, signal: &SignalInfo) -> Result<()> {
        let state = match signal.state() {
            SignalState::Pending => "pending",
            SignalState::Handled => "handled",
            SignalState::Dismissed => "dismissed",
        };
        self.exec(
            "INSERT INTO signals (id, profile_id, session_id, state, created_at, record)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)
             ON CONFLICT(id) DO UPDATE SET state = ?4, record = ?6",
            params![
                signal.id.to_string(),
                signal.profile_id.to_string(),
                signal.session_id.to_string(),
                state,
                signal.created_at,
                to_json(&SignalRecord::from(signal.clone())),
            ],
        )?;
        Ok(())
    }

    pub fn get_signal(&self, id: &SignalId) -> Result<Option<SignalInfo>> {
        Ok(self.query_signals("id = ?1", [id.to_string()])?.pop())
    }

    /// Every pending signal and the `recent` most recent others, oldest first.
    /// The oldest pending signal of a session and how many it has pending.
    pub fn pending_signals_of(&self, session_id: &SessionId) -> Result<(usize, Option<SignalId>)> {
        let count: i64 = self.conn.query_row(
            "SELECT COUNT(*) FROM signals WHERE session_id = ?1 AND state = 'pending'",
            [session_id.to_string()],
            |row| row.get(0),
        )?;
        let oldest: Option<String> = self
            .conn
            .query_row(
                "SELECT id FROM signals WHERE session_id = ?1 AND state = 'pending' ORDER BY created_at, rowid LIMIT 1",
                [session_id.to_string()],
                |row| row.get(0),
            )
            .optional()?;
        Ok((count as usize, oldest.and_then(|id| id.parse().ok())))
    }

    pub fn list_signals(&self, recent: usize) -> Result<Vec<SignalInfo>> {
        self.query_signals(
            "state = 'pending' OR id IN (SELECT id FROM signals WHERE state != 'pending'
             ORDER BY created_at DESC LIMIT ?1)",
            [recent as i64],
        )
    }

    fn query_signals(&self, filter: &str, params: impl rusqlite::Params) -> Result<Vec<SignalInfo>> {
        let mut stmt =
            self.conn.prepare(&format!("SELECT record FROM signals WHERE {filter} ORDER BY created_at, rowid"))?;
        let rows = stmt.query_map(params, |row| row.get::<_, String>(0))?;
        rows.filter_map(|row| {
            skip_corrupt(row.map_err(StoreError::from).and_then(|record| {
                let corrupt = |detail: String| StoreError::Corrupt { what: "signal", detail };
                let record: SignalRecord = serde_json::from_str(&record).map_err(|e| corrupt(e.to_string()))?;
                SignalInfo::try_from(record).map_err(|e| corrupt(e.to_string()))
            }))
        })
        .collect()
    }
}

impl Store {
    // ---- delegations ----

    /// Inserts or replaces the delegation of its delegate session.
    pub fn save_delegation(&self, delegation: &Delegation) -> Result<()> {
        self.exec(
            "INSERT INTO delegations (delegate_session, requester_session, open, created_at, record)
             VALUES (?1, ?2, ?3, ?4, ?5)
             ON CONFLICT(delegate_session) DO UPDATE SET open = ?3, record = ?5",
            params![
                delegation.delegate_session.to_string(),
                delegation.requester_session.to_string(),
                delegation.is_working(),
                delegation.started_at,
                to_json(delegation),
            ],
        )?;
        Ok(())
    }

    pub fn delegation_of(&self, delegate: &SessionId) -> Result<Option<Delegation>> {
        Ok(self.query_delegations("delegate_session = ?1", [delegate.to_string()])?.pop())
    }

    /// The delegations whose delegate has not yet reported or ended.
    pub fn working_delegations(&self) -> Result<Vec<Delegation>> {
        self.query_delegations("open = 1", [])
    }

    /// Those at work and the `recent` most recent others, oldest first.
    pub fn list_delegations(&self, recent: usize) -> Result<Vec<Delegation>> {
        self.query_delegations(
            "open = 1 OR delegate_session IN (SELECT delegate_session FROM delegations WHERE open = 0
             ORDER BY created_at DESC LIMIT ?1)",
            [recent as i64],
        )
    }

    fn query_delegations(&self, filter: &str, params: impl rusqlite::Params) -> Result<Vec<Delegation>> {
        let mut stmt =
            self.conn.prepare(&format!("SELECT record FROM delegations WHERE {filter} ORDER BY created_at, rowid"))?;
        let rows = stmt.query_map(params, |row| row.get::<_, String>(0))?;
        rows.filter_map(|row| {
            skip_corrupt(row.map_err(StoreError::from).and_then(|record| {
                let mut delegation: Delegation = serde_json::from_str(&record)
                    .map_err(|e| StoreError::Corrupt { what: "delegation", detail: e.to_string() })?;
                // What its delegate used, as counted now.
                delegation.spent = self.session_spent(&delegation.delegate_session)?;
                Ok(delegation)
            }))
        })
        .collect()
    }
}

/// A record that does not read (or does not fit its state) is left in the
/// database and out of the answer, said in the log: one bad row must not
/// hide every other task or signal from the window.
pub(super) fn skip_corrupt<T>(row: Result<T>) -> Option<Result<T>> {
    match row {
        Err(StoreError::Corrupt { what, detail }) => {
            tracing::error!(what, %detail, "a stored record does not read; it is left out");
            None
        }
        other => Some(other),
    }
}

fn save_task_on(conn: &Connection, task: &TaskInfo) -> Result<()> {
    {
        let task = TaskRecord::from(task.clone());
        conn.execute(
            &format!(
                "INSERT INTO tasks ({TASK_COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13,
                 ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27, ?28, ?29)
                 ON CONFLICT(id) DO UPDATE SET instruction = ?3, title = ?26, priority = ?7, state = ?10, ord = ?11, session_id = ?12,
                 started_at = ?14, typed_at = ?15, ended_at = ?16, progress = ?17, reason = ?18, result = ?19,
                 quiet_since = ?23, waiting_since = ?24, waited_ms = ?25"
            ),
            params![
                task.id.to_string(),
                task.spec.profile_id.to_string(),
                task.spec.instruction,
                task.spec.context,
                task.spec.specs,
                task.spec.instructions,
                task.spec.priority.as_str(),
                task.spec.time_limit_secs.unwrap_or_default(),
                task.spec.success_criteria,
                task.state.as_str(),
                task.order,
                task.session_id.as_ref().map(ToString::to_string),
                task.created_at,
                task.started_at,
                task.typed_at,
                task.ended_at,
                task.progress,
                task.reason,
                task.result.as_ref().map(to_json),
                task.spec.goals,
                task.spec.loop_iteration.as_ref().map(|i| i.loop_id.to_string()),
                task.spec.loop_iteration.as_ref().map(|i| i.number),
                task.quiet_since,
                task.waiting_since,
                task.waited_ms as i64,
                task.spec.title,
                task.spec.worktree,
                task.spec.base,
                task.spec.budget.as_ref().map(to_json),
            ],
        )?;
        Ok(())
    }
}

fn task_from_row(row: &Row<'_>) -> Result<TaskInfo> {
    let corrupt = |detail: String| StoreError::Corrupt { what: "task", detail };
    let priority: String = row.get(6)?;
    let state: String = row.get(9)?;
    let record = TaskRecord {
        id: parse_id(&row.get::<_, String>(0)?)?,
        spec: TaskSpec {
            profile_id: parse_id(&row.get::<_, String>(1)?)?,
            instruction: row.get(2)?,
            title: row.get(25)?,
            context: row.get(3)?,
            specs: row.get(4)?,
            instructions: row.get(5)?,
            priority: Priority::parse(&priority).ok_or_else(|| corrupt(format!("priority `{priority}`")))?,
            time_limit_secs: Some(row.get(7)?),
            success_criteria: row.get(8)?,
            goals: row.get(19)?,
            loop_iteration: match (row.get::<_, Option<String>>(20)?, row.get::<_, Option<u32>>(21)?) {
                (Some(id), Some(number)) => Some(switchboard_api::LoopIteration { loop_id: parse_id(&id)?, number }),
                _ => None,
            },
            worktree: row.get(26)?,
            base: row.get(27)?,
            budget: row
                .get::<_, Option<String>>(28)?
                .map(|json| serde_json::from_str(&json).map_err(|e| corrupt(e.to_string())))
                .transpose()?,
        },
        state: TaskState::parse(&state).ok_or_else(|| corrupt(format!("state `{state}`")))?,
        order: row.get(10)?,
        session_id: row.get::<_, Option<String>>(11)?.map(|id| parse_id(&id)).transpose()?,
        created_at: row.get(12)?,
        started_at: row.get(13)?,
        typed_at: row.get(14)?,
        ended_at: row.get(15)?,
        progress: row.get(16)?,
        quiet_since: row.get(22)?,
        waiting_since: row.get(23)?,
        waited_ms: row.get::<_, i64>(24)?.max(0) as u64,
        reason: row.get(17)?,
        result: row
            .get::<_, Option<String>>(18)?
            .map(|json| serde_json::from_str(&json).map_err(|e| corrupt(e.to_string())))
            .transpose()?,
        // Live, never stored: the engine decides them anew.
        waiting_for: None,
        actions: Vec::new(),
        pick: None,
        // Summed by the engine when it tells of the task.
        spent: Default::default(),
    };
    let id = record.id.clone();
    TaskInfo::try_from(record).map_err(|reason| corrupt(format!("{id}: {reason}")))
}

/// Task states as an SQL list (`'failed', 'timed_out'`): their names are
/// fixed words, never user text.
fn states_list(states: &[TaskState]) -> String {
    states.iter().map(|state| format!("'{}'", state.as_str())).collect::<Vec<_>>().join(", ")
}
