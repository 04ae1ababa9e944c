//! `switchboard-store-writer DB`: appends events to a Switchboard database
//! as fast as it can and prints the sequence number of each one after its
//! commit returned. The durability test kills it with SIGKILL mid-stream and
//! checks that every acknowledged event is in the reopened database.

use std::io::Write;

use anyhow::{Context, Result};
use switchboard_core::store::Store;
use switchboard_core::{LogKind, SessionId};

fn main() -> Result<()> {
    let path = std::env::args().nth(1).context("usage: switchboard-store-writer DB")?;
    let store = Store::open(path.as_ref())?;
    let session = SessionId::new();
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    for pid in 0.. {
        let seq = store.append_event(i64::from(pid), Some(&session), &LogKind::SessionStarted { pid })?;
        writeln!(out, "{seq}")?;
        out.flush()?;
    }
    Ok(())
}
