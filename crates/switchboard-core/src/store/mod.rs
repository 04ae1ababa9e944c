//! The SQLite store: one file in the data directory, WAL mode, forward-only
//! migrations (kept in `migrations/`, applied by `rusqlite_migration`).
//!
//! The store is owned by the engine task; nothing else holds the connection.
//! Every write is its own transaction, committed before the engine reports
//! the change, so what the UI has seen survives a crash of the app.

use std::path::Path;
use std::sync::LazyLock;
use std::time::Duration;

use rusqlite::{Connection, OptionalExtension, Row, ToSql, params};
use rusqlite_migration::{M, Migrations};
use switchboard_protocol::{AgentKind, ProfileId, SessionId, TermSize};

mod automations;
mod devices;
mod events;
mod health;
mod limits;
mod loops;
mod tasks;
mod usage;
mod worktrees;

pub use automations::{RunMade, StoredAutomation, StoredRun};
pub use usage::{UsageOf, UsageRow, UsageSource};

pub use devices::DeviceRecord;
pub use health::{
    Evidence, NEARLY_FULL_BYTES, ROOM_PROBE_BYTES, ROOM_PROBE_FILE, after_write, classify, free_bytes, has_room,
};

use switchboard_api::{CompletionRule, Millis, Profile, ProfileSpec, SessionInfo, SessionState, Settings};

/// How long a statement waits for another connection's lock (a second app
/// instance, a backup tool) before failing.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

static MIGRATIONS: LazyLock<Migrations<'static>> = LazyLock::new(|| {
    Migrations::new(vec![
        M::up(include_str!("../../migrations/0001_initial.sql")),
        M::up(include_str!("../../migrations/0002_tasks.sql")),
        M::up(include_str!("../../migrations/0003_signals.sql")),
        M::up(include_str!("../../migrations/0004_completion_rule.sql")),
        M::up(include_str!("../../migrations/0005_agent_session_id.sql")),
        M::up(include_str!("../../migrations/0006_queue_order.sql")),
        M::up(include_str!("../../migrations/0007_delegations.sql")),
        M::up(include_str!("../../migrations/0008_protocols_taught.sql")),
        M::up(include_str!("../../migrations/0009_loops.sql")),
        M::up(include_str!("../../migrations/0010_quiet_alert.sql")),
        M::up(include_str!("../../migrations/0011_event_loops.sql")),
        M::up(include_str!("../../migrations/0012_waiting_for_user.sql")),
        M::up(include_str!("../../migrations/0013_task_titles.sql")),
        M::up(include_str!("../../migrations/0014_settings.sql")),
        M::up(include_str!("../../migrations/0015_loop_iterations.sql")),
        M::up(include_str!("../../migrations/0016_session_secrets.sql")),
        M::up(include_str!("../../migrations/0017_failed_summaries.sql")),
        M::up(include_str!("../../migrations/0018_queue_pause.sql")),
        M::up(include_str!("../../migrations/0019_worktrees.sql")),
        M::up(include_str!("../../migrations/0020_usage_limits.sql")),
        M::up(include_str!("../../migrations/0021_account_usage.sql")),
        M::up(include_str!("../../migrations/0022_prompt_completion.sql")),
        M::up(include_str!("../../migrations/0023_web.sql")),
        M::up(include_str!("../../migrations/0024_switchboard_tools.sql")),
        M::up(include_str!("../../migrations/0025_usage.sql")),
        M::up(include_str!("../../migrations/0026_automations.sql")),
    ])
});

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("could not create the data directory {path}: {source}")]
    CreateDir { path: String, source: std::io::Error },
    #[error("database error: {0}")]
    Sqlite(#[from] rusqlite::Error),
    #[error("database migration failed: {0}")]
    Migration(#[from] rusqlite_migration::Error),
    #[error("the database holds a malformed {what}: {detail}")]
    Corrupt { what: &'static str, detail: String },
}

impl StoreError {
    /// SQLite could not write because the disk is full.
    pub fn is_disk_full(&self) -> bool {
        match self {
            StoreError::Sqlite(error) => error.sqlite_error_code() == Some(rusqlite::ErrorCode::DiskFull),
            StoreError::CreateDir { source, .. } => source.kind() == std::io::ErrorKind::StorageFull,
            StoreError::Migration(_) | StoreError::Corrupt { .. } => false,
        }
    }
}

pub type Result<T, E = StoreError> = std::result::Result<T, E>;

/// The `profiles` columns in the order `profile_from_row` reads them.
const PROFILE_COLUMNS: &str = "id, name, command, args, env, cwd, kind, start_on_launch, created_at, ready_pattern, \
     ready_quiet_ms, task_time_limit_secs, completion, signal_protocols, quiet_alert_secs, isolation, account, \
     switchboard_tools, daily_budget";

/// The `tasks` columns in the order `task_from_row` reads them.
const SESSION_COLUMNS: &str = "id, profile_id, state, pid, pid_start_time, rows, cols, exit_code, signal, started_at, ended_at, agent_session_id, workspace";

/// A running session as recorded, with the identity of its process.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordedRun {
    pub session: SessionInfo,
    pub pid_start_time: Option<u64>,
}

pub struct Store {
    conn: Connection,
    health: health::Health,
    /// Probes made so far, for tests to wait on.
    #[cfg(test)]
    probes: std::cell::Cell<u32>,
}

impl Store {
    /// Opens (creating if needed) the database file and brings its schema up
    /// to date.
    pub fn open(path: &Path) -> Result<Store> {
        if let Some(parent) = path.parent() {
            crate::private::create_dir(parent)
                .map_err(|source| StoreError::CreateDir { path: parent.display().to_string(), source })?;
        }
        // Made private before SQLite opens it: SQLite makes its WAL and
        // shared-memory files with the database file's mode.
        if let Err(error) = crate::private::open(std::fs::OpenOptions::new().write(true).create(true), path) {
            // SQLite's own open says what is wrong, in its terms.
            tracing::debug!(path = %path.display(), %error, "the database file could not be made ahead of SQLite");
        }
        let conn = Connection::open(path)?;
        conn.pragma_update(None, "journal_mode", "WAL")?;
        // NORMAL in WAL mode: a crash of the app loses no committed
        // transaction; only a power loss may lose the last ones.
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        Self::prepare(conn, path.parent().map(Path::to_path_buf))
    }

    /// A private in-memory database, for tests.
    pub fn open_in_memory() -> Result<Store> {
        Self::prepare(Connection::open_in_memory()?, None)
    }

    fn prepare(mut conn: Connection, dir: Option<std::path::PathBuf>) -> Result<Store> {
        conn.busy_timeout(BUSY_TIMEOUT)?;
        conn.pragma_update(None, "foreign_keys", "ON")?;
        MIGRATIONS.to_latest(&mut conn)?;
        Ok(Store {
            conn,
            health: health::Health::new(dir),
            #[cfg(test)]
            probes: std::cell::Cell::new(0),
        })
    }

    /// Runs a write, noting whether the store could write.
    fn exec(&self, sql: &str, params: impl rusqlite::Params) -> rusqlite::Result<usize> {
        let result = self.conn.execute(sql, params);
        self.health.note(&result);
        result
    }

    /// What keeps the store from writing, as of its last write.
    pub fn problem(&self) -> Option<switchboard_api::StorageProblem> {
        self.health.problem()
    }

    /// The problem, if it changed since the last call (`Some(None)`: it is
    /// gone).
    pub fn take_problem_change(&self) -> Option<Option<switchboard_api::StorageProblem>> {
        self.health.take_change()
    }

    /// Tries a write that needs room (rolled back), and on disk allocates
    /// new room beside the database ([`health::has_room`]), to learn
    /// whether a problem has gone.
    pub fn probe_write(&self) {
        #[cfg(test)]
        self.probes.set(self.probes.get() + 1);
        let result = self.conn.execute_batch(
            "SAVEPOINT probe; CREATE TABLE probe_room (x TEXT); INSERT INTO probe_room VALUES (printf('%.*c', 8192, 'x'));
             ROLLBACK TO probe; RELEASE probe",
        );
        if result.is_err() && !self.conn.is_autocommit() {
            // The release failed and left the transaction open: every later
            // write would seem to go through and never be committed.
            if let Err(error) = self.conn.execute_batch("ROLLBACK") {
                tracing::error!(%error, "the storage probe's transaction could not be rolled back");
            }
        }
        let room = result.is_ok() && self.health.dir().is_none_or(health::has_room);
        self.health.note_probe(&result, room);
    }

    /// The schema version (number of applied migrations).
    pub fn schema_version(&self) -> Result<i64> {
        Ok(self.conn.pragma_query_value(None, "user_version", |row| row.get(0))?)
    }

    // ---- profiles ----

    pub fn insert_profile(&self, profile: &Profile) -> Result<()> {
        let spec = SpecColumns::from(&profile.spec);
        self.exec(
            "INSERT INTO profiles (id, name, command, args, env, cwd, kind, start_on_launch, ready_pattern,
             ready_quiet_ms, task_time_limit_secs, completion, signal_protocols, quiet_alert_secs, isolation,
             account, switchboard_tools, daily_budget, created_at)
             VALUES (:id, :name, :command, :args, :env, :cwd, :kind, :start_on_launch, :ready_pattern,
             :ready_quiet_ms, :task_time_limit_secs, :completion, :signal_protocols, :quiet_alert_secs,
             :isolation, :account, :switchboard_tools, :daily_budget, :created_at)",
            &spec.params(&profile.id.to_string(), Some(&profile.created_at))[..],
        )?;
        Ok(())
    }

    /// Replaces a profile's spec; returns false if there is no such profile.
    pub fn update_profile(&self, id: &ProfileId, spec: &ProfileSpec) -> Result<bool> {
        let spec = SpecColumns::from(spec);
        let changed = self.exec(
            "UPDATE profiles SET name = :name, command = :command, args = :args, env = :env, cwd = :cwd,
             kind = :kind, start_on_launch = :start_on_launch, ready_pattern = :ready_pattern,
             ready_quiet_ms = :ready_quiet_ms, task_time_limit_secs = :task_time_limit_secs,
             completion = :completion, signal_protocols = :signal_protocols,
             quiet_alert_secs = :quiet_alert_secs, isolation = :isolation, account = :account,
             switchboard_tools = :switchboard_tools, daily_budget = :daily_budget WHERE id = :id",
            &spec.params(&id.to_string(), None)[..],
        )?;
        Ok(changed == 1)
    }

    /// Deletes a profile and its session rows (the event log keeps their
    /// history); returns false if there was no such profile.
    pub fn delete_profile(&self, id: &ProfileId) -> Result<bool> {
        Ok(self.exec("DELETE FROM profiles WHERE id = ?1", [id.to_string()])? == 1)
    }

    pub fn list_profiles(&self) -> Result<Vec<Profile>> {
        let mut stmt =
            self.conn.prepare(&format!("SELECT {PROFILE_COLUMNS} FROM profiles ORDER BY created_at, name"))?;
        let rows = stmt.query_map([], |row| Ok(profile_from_row(row)))?;
        rows.map(|row| row?).collect()
    }

    pub fn get_profile(&self, id: &ProfileId) -> Result<Option<Profile>> {
        let profile = self
            .conn
            .query_row(&format!("SELECT {PROFILE_COLUMNS} FROM profiles WHERE id = ?1"), [id.to_string()], |row| {
                Ok(profile_from_row(row))
            })
            .optional()?;
        profile.transpose()
    }

    /// Whether another profile (not `except`) already has this name.
    pub fn profile_name_taken(&self, name: &str, except: Option<&ProfileId>) -> Result<bool> {
        let except = except.map(ToString::to_string).unwrap_or_default();
        Ok(self.conn.query_row(
            "SELECT EXISTS (SELECT 1 FROM profiles WHERE name = ?1 AND id != ?2)",
            params![name, except],
            |row| row.get(0),
        )?)
    }

    // ---- sessions ----

    /// Records a session; `secret` is what its agent's hook events must carry.
    pub fn insert_session(&self, session: &SessionInfo, pid_start_time: Option<u64>, secret: &str) -> Result<()> {
        let columns = StateColumns::from(&session.state);
        self.exec(
            "INSERT INTO sessions (id, profile_id, state, pid, pid_start_time, rows, cols, exit_code,
             signal, started_at, ended_at, agent_session_id, secret, workspace)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
            params![
                session.id.to_string(),
                session.profile_id.to_string(),
                columns.state,
                columns.pid,
                pid_start_time.map(|t| t as i64),
                session.size.rows,
                session.size.cols,
                columns.exit_code,
                columns.signal,
                session.started_at,
                columns.ended_at,
                session.agent_session_id,
                secret,
                session.workspace,
            ],
        )?;
        Ok(())
    }

    pub fn update_session_state(&self, id: &SessionId, state: &SessionState) -> Result<()> {
        let columns = StateColumns::from(state);
        // The pid column keeps the last known process even after it ended.
        self.exec(
            "UPDATE sessions SET state = ?2, pid = COALESCE(?3, pid), exit_code = ?4, signal = ?5,
             ended_at = ?6 WHERE id = ?1",
            params![id.to_string(), columns.state, columns.pid, columns.exit_code, columns.signal, columns.ended_at],
        )?;
        Ok(())
    }

    /// Records the agent's own id for a session's conversation, learnt after
    /// it started (Codex names its thread itself; its hooks tell it).
    pub fn set_agent_session_id(&self, id: &SessionId, conversation: &str) -> Result<()> {
        self.exec(
            "UPDATE sessions SET agent_session_id = ?2 WHERE id = ?1 AND agent_session_id IS NULL",
            params![id.to_string(), conversation],
        )?;
        Ok(())
    }

    pub fn update_session_size(&self, id: &SessionId, size: TermSize) -> Result<()> {
        self.exec(
            "UPDATE sessions SET rows = ?2, cols = ?3 WHERE id = ?1",
            params![id.to_string(), size.rows, size.cols],
        )?;
        Ok(())
    }

    /// Every session, oldest first.
    pub fn list_sessions(&self) -> Result<Vec<SessionInfo>> {
        Ok(self.query_runs("1", [])?.into_iter().map(|run| run.session).collect())
    }

    /// The `limit` most recent sessions, oldest first.
    pub fn recent_sessions(&self, limit: usize) -> Result<Vec<SessionInfo>> {
        let mut stmt = self.conn.prepare(&format!(
            "SELECT * FROM (SELECT {SESSION_COLUMNS}, rowid AS r FROM sessions
             ORDER BY started_at DESC, r DESC LIMIT ?1) ORDER BY started_at, r"
        ))?;
        let rows = stmt.query_map([limit as i64], |row| Ok(run_from_row(row)))?;
        rows.map(|row| Ok(row??.session)).collect()
    }

    pub fn get_session(&self, id: &SessionId) -> Result<Option<SessionInfo>> {
        Ok(self.query_runs("id = ?1", [id.to_string()])?.pop().map(|run| run.session))
    }

    /// The secret a session's hook events must carry; none for a session
    /// recorded before sessions had one.
    pub fn session_secret(&self, id: &SessionId) -> Result<Option<String>> {
        let secret = self
            .conn
            .query_row("SELECT secret FROM sessions WHERE id = ?1", [id.to_string()], |row| row.get(0))
            .optional()?;
        Ok(secret.flatten())
    }

    /// The ids of a profile's sessions.
    pub fn session_ids_of_profile(&self, profile_id: &ProfileId) -> Result<Vec<SessionId>> {
        let runs = self.query_runs("profile_id = ?1", [profile_id.to_string()])?;
        Ok(runs.into_iter().map(|run| run.session.id).collect())
    }

    /// Sessions recorded as running: after a crash these are the ones to
    /// mark interrupted and whose processes may need reaping.
    pub fn running_sessions(&self) -> Result<Vec<RecordedRun>> {
        self.query_runs("state = 'running'", [])
    }

    fn query_runs(&self, filter: &str, params: impl rusqlite::Params) -> Result<Vec<RecordedRun>> {
        let sql = format!("SELECT {SESSION_COLUMNS} FROM sessions WHERE {filter} ORDER BY started_at, rowid");
        let mut stmt = self.conn.prepare(&sql)?;
        let rows = stmt.query_map(params, |row| Ok(run_from_row(row)))?;
        rows.map(|row| row?).collect()
    }

    // ---- event log ----
}

impl Store {
    // ---- meta ----

    pub fn meta(&self, key: &str) -> Result<Option<String>> {
        Ok(self.conn.query_row("SELECT value FROM meta WHERE key = ?1", [key], |row| row.get(0)).optional()?)
    }

    pub fn set_meta(&self, key: &str, value: &str) -> Result<()> {
        self.exec(
            "INSERT INTO meta (key, value) VALUES (?1, ?2) ON CONFLICT(key) DO UPDATE SET value = ?2",
            params![key, value],
        )?;
        Ok(())
    }

    // ---- settings ----

    /// The user's settings; their defaults until some were saved.
    pub fn settings(&self) -> Result<Settings> {
        let value: Option<String> =
            self.conn.query_row("SELECT value FROM settings WHERE id = 1", [], |row| row.get(0)).optional()?;
        match value {
            None => Ok(Settings::default()),
            Some(value) => serde_json::from_str(&value)
                .map_err(|e| StoreError::Corrupt { what: "settings", detail: e.to_string() }),
        }
    }

    pub fn save_settings(&self, settings: &Settings, at: Millis) -> Result<()> {
        let value = serde_json::to_string(settings).expect("settings always serialise");
        self.exec(
            "INSERT INTO settings (id, value, updated_at) VALUES (1, ?1, ?2)
             ON CONFLICT(id) DO UPDATE SET value = ?1, updated_at = ?2",
            params![value, at],
        )?;
        Ok(())
    }
}

/// A [`ProfileSpec`] as the `profiles` table stores it.
struct SpecColumns<'a> {
    name: &'a str,
    command: &'a str,
    args: String,
    env: String,
    cwd: &'a str,
    kind: &'static str,
    start_on_launch: bool,
    ready_pattern: Option<&'a str>,
    ready_quiet_ms: u32,
    task_time_limit_secs: u32,
    completion: &'static str,
    signal_protocols: bool,
    quiet_alert_secs: u32,
    isolation: &'static str,
    account: Option<&'a str>,
    switchboard_tools: bool,
    daily_budget: Option<String>,
}

impl SpecColumns<'_> {
    /// The named parameters of the `profiles` columns, for an insert (with
    /// `created_at`) or an update (without).
    fn params<'p>(&'p self, id: &'p dyn ToSql, created_at: Option<&'p Millis>) -> Vec<(&'static str, &'p dyn ToSql)> {
        let mut params: Vec<(&'static str, &'p dyn ToSql)> = vec![
            (":id", id),
            (":name", &self.name),
            (":command", &self.command),
            (":args", &self.args),
            (":env", &self.env),
            (":cwd", &self.cwd),
            (":kind", &self.kind),
            (":start_on_launch", &self.start_on_launch),
            (":ready_pattern", &self.ready_pattern),
            (":ready_quiet_ms", &self.ready_quiet_ms),
            (":task_time_limit_secs", &self.task_time_limit_secs),
            (":completion", &self.completion),
            (":signal_protocols", &self.signal_protocols),
            (":quiet_alert_secs", &self.quiet_alert_secs),
            (":isolation", &self.isolation),
            (":account", &self.account),
            (":switchboard_tools", &self.switchboard_tools),
            (":daily_budget", &self.daily_budget),
        ];
        if let Some(created_at) = created_at {
            params.push((":created_at", created_at));
        }
        params
    }
}

impl<'a> From<&'a ProfileSpec> for SpecColumns<'a> {
    fn from(spec: &'a ProfileSpec) -> Self {
        SpecColumns {
            name: &spec.name,
            command: &spec.command,
            args: to_json(&spec.args),
            env: to_json(&spec.env),
            cwd: &spec.cwd,
            kind: spec.kind.as_str(),
            start_on_launch: spec.start_on_launch,
            ready_pattern: spec.ready_pattern.as_deref(),
            ready_quiet_ms: spec.ready_quiet_ms,
            task_time_limit_secs: spec.task_time_limit_secs,
            completion: spec.completion.as_str(),
            signal_protocols: spec.signal_protocols,
            quiet_alert_secs: spec.quiet_alert_secs,
            isolation: spec.isolation.as_str(),
            account: spec.account.as_deref(),
            switchboard_tools: spec.switchboard_tools,
            daily_budget: spec.daily_budget.as_ref().map(to_json),
        }
    }
}

/// A [`SessionState`] spread over the `sessions` table's columns.
struct StateColumns {
    state: &'static str,
    pid: Option<u32>,
    exit_code: Option<u32>,
    signal: Option<String>,
    ended_at: Option<Millis>,
}

impl From<&SessionState> for StateColumns {
    fn from(state: &SessionState) -> Self {
        let ended = |state, exit_code: &u32, signal: &Option<String>, ended_at: &Millis| StateColumns {
            state,
            pid: None,
            exit_code: Some(*exit_code),
            signal: signal.clone(),
            ended_at: Some(*ended_at),
        };
        match state {
            SessionState::Running { pid } => {
                StateColumns { state: "running", pid: Some(*pid), exit_code: None, signal: None, ended_at: None }
            }
            SessionState::Exited { exit_code, signal, ended_at } => ended("exited", exit_code, signal, ended_at),
            SessionState::Killed { exit_code, signal, ended_at } => ended("killed", exit_code, signal, ended_at),
            SessionState::Interrupted { ended_at } => StateColumns {
                state: "interrupted",
                pid: None,
                exit_code: None,
                signal: None,
                ended_at: Some(*ended_at),
            },
        }
    }
}

fn run_from_row(row: &Row<'_>) -> Result<RecordedRun> {
    let corrupt = |detail: String| StoreError::Corrupt { what: "session", detail };
    let state: String = row.get(2)?;
    let pid: Option<u32> = row.get(3)?;
    let exit_code: Option<u32> = row.get(7)?;
    let signal: Option<String> = row.get(8)?;
    let ended_at: Option<Millis> = row.get(10)?;
    let state = match (state.as_str(), pid, exit_code, ended_at) {
        ("running", Some(pid), _, _) => SessionState::Running { pid },
        ("exited", _, Some(exit_code), Some(ended_at)) => SessionState::Exited { exit_code, signal, ended_at },
        ("killed", _, Some(exit_code), Some(ended_at)) => SessionState::Killed { exit_code, signal, ended_at },
        ("interrupted", _, _, Some(ended_at)) => SessionState::Interrupted { ended_at },
        (other, ..) => return Err(corrupt(format!("inconsistent state `{other}`"))),
    };
    Ok(RecordedRun {
        session: SessionInfo {
            id: parse_id(&row.get::<_, String>(0)?)?,
            profile_id: parse_id(&row.get::<_, String>(1)?)?,
            started_at: row.get(9)?,
            size: TermSize { rows: row.get(5)?, cols: row.get(6)? },
            state,
            agent_session_id: row.get(11)?,
            workspace: row.get(12)?,
        },
        pid_start_time: row.get::<_, Option<i64>>(4)?.map(|t| t as u64),
    })
}

fn profile_from_row(row: &Row<'_>) -> Result<Profile> {
    let corrupt = |detail: String| StoreError::Corrupt { what: "profile", detail };
    let kind: String = row.get(6)?;
    Ok(Profile {
        id: parse_id(&row.get::<_, String>(0)?)?,
        spec: ProfileSpec {
            name: row.get(1)?,
            command: row.get(2)?,
            args: serde_json::from_str(&row.get::<_, String>(3)?).map_err(|e| corrupt(e.to_string()))?,
            env: serde_json::from_str(&row.get::<_, String>(4)?).map_err(|e| corrupt(e.to_string()))?,
            cwd: row.get(5)?,
            kind: AgentKind::parse(&kind).ok_or_else(|| corrupt(format!("unknown kind `{kind}`")))?,
            start_on_launch: row.get(7)?,
            ready_pattern: row.get(9)?,
            ready_quiet_ms: row.get(10)?,
            task_time_limit_secs: row.get(11)?,
            completion: {
                let rule: String = row.get(12)?;
                CompletionRule::parse(&rule).ok_or_else(|| corrupt(format!("unknown completion rule `{rule}`")))?
            },
            signal_protocols: row.get(13)?,
            quiet_alert_secs: row.get(14)?,
            isolation: {
                let isolation: String = row.get(15)?;
                switchboard_api::Isolation::parse(&isolation)
                    .ok_or_else(|| corrupt(format!("unknown isolation `{isolation}`")))?
            },
            account: row.get(16)?,
            switchboard_tools: row.get(17)?,
            daily_budget: row
                .get::<_, Option<String>>(18)?
                .map(|json| serde_json::from_str(&json).map_err(|e| corrupt(e.to_string())))
                .transpose()?,
        },
        created_at: row.get(8)?,
        host: None,
    })
}

fn parse_id<T: std::str::FromStr<Err = switchboard_protocol::IdError>>(text: &str) -> Result<T> {
    text.parse().map_err(|e: switchboard_protocol::IdError| StoreError::Corrupt { what: "id", detail: e.to_string() })
}

fn to_json<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_string(value).expect("plain data types always serialize to JSON")
}

#[cfg(test)]
mod tests;

#[cfg(test)]
impl Store {
    /// Makes the database as full as a full disk would: from now on every
    /// write that needs room fails with SQLITE_FULL, until [`Store::make_room`].
    pub(crate) fn fill_up(&self) {
        self.conn.execute_batch("CREATE TABLE IF NOT EXISTS filler (x BLOB)").unwrap();
        let pages: i64 = self.conn.pragma_query_value(None, "page_count", |r| r.get(0)).unwrap();
        self.conn.pragma_update(None, "max_page_count", pages).unwrap();
        // Room left in the pages a table already has would still take small
        // rows: fill the event log's too (with rows no listing shows).
        for size in [4096, 1024, 128, 16, 1] {
            while self.conn.execute("INSERT INTO filler VALUES (zeroblob(?1))", [size]).is_ok() {}
            while self
                .conn
                .execute("INSERT INTO events (at, kind, data) VALUES (0, 'filler', printf('%.*c', ?1, 'x'))", [size])
                .is_ok()
            {}
        }
    }

    /// Makes every write fail as on a read-only data directory (or, with
    /// `false`, work again).
    pub(crate) fn refuse_writes(&self, refuse: bool) {
        self.conn.pragma_update(None, "query_only", refuse).unwrap();
    }

    /// Probes made so far.
    pub(crate) fn probes(&self) -> u32 {
        self.probes.get()
    }

    /// Space again after [`Store::fill_up`].
    pub(crate) fn make_room(&self) {
        self.conn.pragma_update(None, "max_page_count", 1_073_741_823_i64).unwrap();
        self.conn.execute_batch("DROP TABLE IF EXISTS filler").unwrap();
    }
}
