//! The worktrees the app made, and each repository's settings.

use rusqlite::{OptionalExtension, Row, params};

use super::{Result, Store, StoreError, parse_id, to_json};
use crate::worktree::{Kept, Setup, WorktreeRecord};
use switchboard_api::Millis;

const COLUMNS: &str =
    "owner, loop_id, profile_id, repository, branch, base, path, created_at, setup, state, ended_at, patch, conflict";

/// Merged and discarded worktrees listed after the open ones.
pub const RECENT_CLOSED_WORKTREES: u32 = 50;

impl Store {
    /// Records a worktree the app made.
    pub fn insert_worktree(&self, record: &WorktreeRecord) -> Result<()> {
        self.exec(
            &format!(
                "INSERT INTO worktrees ({COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)"
            ),
            params![
                record.owner,
                record.loop_id.as_ref().map(ToString::to_string),
                record.profile_id.to_string(),
                record.repository,
                record.branch,
                record.base,
                record.path,
                record.created_at,
                record.setup.as_str(),
                record.kept.as_str(),
                record.kept.ended_at(),
                record.kept.patch(),
                to_json(&record.conflict),
            ],
        )?;
        Ok(())
    }

    /// Saves what changed: its setup, whether it is kept, its last merge's
    /// conflict.
    pub fn update_worktree(&self, record: &WorktreeRecord) -> Result<()> {
        self.exec(
            "UPDATE worktrees SET setup = ?2, state = ?3, ended_at = ?4, patch = ?5, conflict = ?6 WHERE owner = ?1",
            params![
                record.owner,
                record.setup.as_str(),
                record.kept.as_str(),
                record.kept.ended_at(),
                record.kept.patch(),
                to_json(&record.conflict),
            ],
        )?;
        Ok(())
    }

    pub fn get_worktree(&self, owner: &str) -> Result<Option<WorktreeRecord>> {
        self.conn
            .query_row(&format!("SELECT {COLUMNS} FROM worktrees WHERE owner = ?1"), [owner], |row| {
                Ok(worktree_from_row(row))
            })
            .optional()?
            .transpose()
    }

    /// The open worktrees, oldest first, then the most recent merged or
    /// discarded ones.
    pub fn list_worktrees(&self) -> Result<Vec<WorktreeRecord>> {
        let mut open = self
            .conn
            .prepare(&format!("SELECT {COLUMNS} FROM worktrees WHERE state = 'open' ORDER BY created_at, owner"))?;
        let mut records: Vec<WorktreeRecord> =
            open.query_map([], |row| Ok(worktree_from_row(row)))?.collect::<rusqlite::Result<Result<_>>>()??;
        let mut closed = self.conn.prepare(&format!(
            "SELECT {COLUMNS} FROM worktrees WHERE state != 'open' ORDER BY ended_at DESC LIMIT ?1"
        ))?;
        let rows = closed.query_map([RECENT_CLOSED_WORKTREES], |row| Ok(worktree_from_row(row)))?;
        for row in rows {
            records.push(row??);
        }
        Ok(records)
    }

    /// The branches of every worktree the app made (to name a new one).
    pub fn worktree_branches(&self) -> Result<Vec<String>> {
        let mut statement = self.conn.prepare("SELECT branch FROM worktrees")?;
        let branches = statement.query_map([], |row| row.get(0))?.collect::<rusqlite::Result<_>>()?;
        Ok(branches)
    }

    /// The command run in each new worktree of the repository at `root`.
    pub fn repository_setup(&self, root: &str) -> Result<Option<String>> {
        Ok(self
            .conn
            .query_row("SELECT setup_command FROM repositories WHERE root = ?1", [root], |row| row.get(0))
            .optional()?
            .flatten())
    }

    pub fn set_repository_setup(&self, root: &str, command: Option<&str>) -> Result<()> {
        self.exec(
            "INSERT INTO repositories (root, setup_command) VALUES (?1, ?2)
             ON CONFLICT(root) DO UPDATE SET setup_command = ?2",
            params![root, command],
        )?;
        Ok(())
    }
}

fn worktree_from_row(row: &Row<'_>) -> Result<WorktreeRecord> {
    let corrupt = |detail: String| StoreError::Corrupt { what: "worktree", detail };
    let setup: String = row.get(8)?;
    let state: String = row.get(9)?;
    let ended_at: Option<Millis> = row.get(10)?;
    let patch: Option<String> = row.get(11)?;
    let kept = match (state.as_str(), ended_at) {
        ("open", _) => Kept::Open,
        ("merged", Some(at)) => Kept::Merged { at },
        ("discarded", Some(at)) => Kept::Discarded { at, patch },
        (other, _) => return Err(corrupt(format!("state `{other}`"))),
    };
    Ok(WorktreeRecord {
        owner: row.get(0)?,
        loop_id: row.get::<_, Option<String>>(1)?.map(|id| parse_id(&id)).transpose()?,
        profile_id: parse_id(&row.get::<_, String>(2)?)?,
        repository: row.get(3)?,
        branch: row.get(4)?,
        base: row.get(5)?,
        path: row.get(6)?,
        created_at: row.get(7)?,
        setup: Setup::parse(&setup).ok_or_else(|| corrupt(format!("setup `{setup}`")))?,
        kept,
        conflict: serde_json::from_str(&row.get::<_, String>(12)?).map_err(|e| corrupt(e.to_string()))?,
    })
}
