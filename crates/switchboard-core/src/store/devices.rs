//! Serving browsers: the user's settings for it, the port kept, and the
//! browsers paired (a hash of each one's secret, never the secret).

use rusqlite::{OptionalExtension, Row, params};
use switchboard_api::{Millis, WebSettings};

use super::{Result, Store, StoreError};

/// A paired browser as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceRecord {
    pub id: u64,
    pub name: String,
    pub secret_hash: String,
    pub read_only: bool,
    pub paired_at: Millis,
    pub last_seen_at: Millis,
    pub last_from: String,
}

const COLUMNS: &str = "id, name, secret_hash, read_only, paired_at, last_seen_at, last_from";

impl Store {
    /// The settings for serving browsers, and the port kept (none yet).
    pub fn web(&self) -> Result<(WebSettings, Option<u16>)> {
        let row: Option<(String, Option<u16>)> = self
            .conn
            .query_row("SELECT settings, port FROM web WHERE id = 1", [], |row| Ok((row.get(0)?, row.get(1)?)))
            .optional()?;
        let Some((settings, port)) = row else { return Ok((WebSettings::default(), None)) };
        let settings = serde_json::from_str(&settings)
            .map_err(|error| StoreError::Corrupt { what: "web settings", detail: error.to_string() })?;
        Ok((settings, port))
    }

    pub fn save_web(&self, settings: &WebSettings, port: Option<u16>) -> Result<()> {
        self.exec(
            "INSERT INTO web (id, settings, port) VALUES (1, ?1, ?2)
             ON CONFLICT (id) DO UPDATE SET settings = excluded.settings, port = excluded.port",
            params![super::to_json(settings), port],
        )?;
        Ok(())
    }

    pub fn save_device(&self, device: &DeviceRecord) -> Result<()> {
        self.exec(
            &format!("INSERT OR REPLACE INTO devices ({COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)"),
            params![
                device.id as i64,
                device.name,
                device.secret_hash,
                device.read_only,
                device.paired_at,
                device.last_seen_at,
                device.last_from,
            ],
        )?;
        Ok(())
    }

    /// When and from where a device was last seen.
    pub fn device_seen(&self, id: u64, at: Millis, from: &str) -> Result<()> {
        self.exec("UPDATE devices SET last_seen_at = ?2, last_from = ?3 WHERE id = ?1", params![id as i64, at, from])?;
        Ok(())
    }

    /// Unpairs a device; false if there was none.
    pub fn delete_device(&self, id: u64) -> Result<bool> {
        Ok(self.exec("DELETE FROM devices WHERE id = ?1", params![id as i64])? > 0)
    }

    /// Every paired device, most recently seen first.
    pub fn list_devices(&self) -> Result<Vec<DeviceRecord>> {
        let mut statement =
            self.conn.prepare(&format!("SELECT {COLUMNS} FROM devices ORDER BY last_seen_at DESC, id"))?;
        let rows = statement.query_map([], device_from_row)?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }
}

fn device_from_row(row: &Row<'_>) -> rusqlite::Result<DeviceRecord> {
    Ok(DeviceRecord {
        id: row.get::<_, i64>(0)? as u64,
        name: row.get(1)?,
        secret_hash: row.get(2)?,
        read_only: row.get(3)?,
        paired_at: row.get(4)?,
        last_seen_at: row.get(5)?,
        last_from: row.get(6)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn web_settings_the_port_and_devices_are_kept() {
        let store = Store::open_in_memory().unwrap();
        assert_eq!(store.web().unwrap(), (WebSettings::default(), None));
        let settings = WebSettings { serving: true, names: vec!["box.ts.net".into()], ..WebSettings::default() };
        store.save_web(&settings, Some(48123)).unwrap();
        assert_eq!(store.web().unwrap(), (settings, Some(48123)));

        let phone = DeviceRecord {
            id: u64::MAX - 3,
            name: "Chrome on Android".into(),
            secret_hash: "ab".repeat(32),
            read_only: true,
            paired_at: 10,
            last_seen_at: 10,
            last_from: "127.0.0.1".into(),
        };
        let laptop = DeviceRecord { id: 5, name: "Firefox on Linux".into(), read_only: false, ..phone.clone() };
        store.save_device(&phone).unwrap();
        store.save_device(&laptop).unwrap();
        store.device_seen(5, 99, "100.64.0.2").unwrap();
        let listed = store.list_devices().unwrap();
        assert_eq!(listed.iter().map(|d| d.id).collect::<Vec<_>>(), [5, u64::MAX - 3]);
        assert_eq!((listed[0].last_seen_at, listed[0].last_from.as_str()), (99, "100.64.0.2"));
        assert_eq!(listed[1], phone);
        assert!(store.delete_device(5).unwrap());
        assert!(!store.delete_device(5).unwrap());
        assert_eq!(store.list_devices().unwrap(), [phone]);
    }
}
