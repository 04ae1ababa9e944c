//! Accounts at their usage limit, and each account's usage.

use rusqlite::{Row, params};

use super::{Result, Store};
use crate::limits::{LimitRecord, UsageRecord};

const COLUMNS: &str = "account, since, until, retry_at, passed, delay_secs, asks_user";

impl Store {
    /// Records an account's limit (a new one, or its wait changed).
    pub fn save_limit(&self, record: &LimitRecord) -> Result<()> {
        self.exec(
            &format!("INSERT OR REPLACE INTO usage_limits ({COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)"),
            params![
                record.account,
                record.since,
                record.until,
                record.retry_at,
                record.passed,
                record.delay_secs,
                record.asks_user,
            ],
        )?;
        Ok(())
    }

    /// The account's limit lifted.
    pub fn delete_limit(&self, account: &str) -> Result<()> {
        self.exec("DELETE FROM usage_limits WHERE account = ?1", params![account])?;
        Ok(())
    }

    /// Every account at its limit.
    pub fn list_limits(&self) -> Result<Vec<LimitRecord>> {
        let mut statement = self.conn.prepare(&format!("SELECT {COLUMNS} FROM usage_limits ORDER BY since"))?;
        let rows = statement.query_map([], limit_from_row)?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }
}

fn limit_from_row(row: &Row<'_>) -> rusqlite::Result<LimitRecord> {
    Ok(LimitRecord {
        account: row.get(0)?,
        since: row.get(1)?,
        until: row.get(2)?,
        retry_at: row.get(3)?,
        passed: row.get(4)?,
        delay_secs: row.get(5)?,
        asks_user: row.get(6)?,
    })
}

impl Store {
    /// Records an account's usage as told, and the windows warned of.
    pub fn save_usage(&self, record: &UsageRecord) -> Result<()> {
        self.exec(
            "INSERT OR REPLACE INTO account_usage (account, windows, told_at, warned) VALUES (?1, ?2, ?3, ?4)",
            params![record.account, super::to_json(&record.windows), record.told_at, super::to_json(&record.warned)],
        )?;
        Ok(())
    }

    /// Every account's usage told.
    pub fn list_usage(&self) -> Result<Vec<UsageRecord>> {
        let mut statement =
            self.conn.prepare("SELECT account, windows, told_at, warned FROM account_usage ORDER BY account")?;
        let rows = statement.query_map([], |row| {
            Ok(UsageRecord {
                account: row.get(0)?,
                // Lists the app wrote; one it cannot read is none told.
                windows: serde_json::from_str(&row.get::<_, String>(1)?).unwrap_or_default(),
                told_at: row.get(2)?,
                warned: serde_json::from_str(&row.get::<_, String>(3)?).unwrap_or_default(),
            })
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }
}
