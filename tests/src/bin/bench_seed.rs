//! `switchboard-bench-seed DATA_DIR N COMMAND [ARGS...]`: prepares a data
//! directory with N profiles running COMMAND that start on launch, for the
//! footprint benchmark (`bench/app-footprint.sh`).

use anyhow::{Context, Result};
use switchboard_core::store::Store;
use switchboard_core::{AgentKind, Profile, ProfileId, ProfileSpec};

fn main() -> Result<()> {
    let mut args = std::env::args().skip(1);
    let usage = "usage: switchboard-bench-seed DATA_DIR N COMMAND [ARGS...]";
    let data_dir: std::path::PathBuf = args.next().context(usage)?.into();
    let count: usize = args.next().context(usage)?.parse().context("N must be a number")?;
    let command = args.next().context(usage)?;
    let rest: Vec<String> = args.collect();
    let workspace = data_dir.join("bench-workspace");
    std::fs::create_dir_all(&workspace)?;
    let store = Store::open(&data_dir.join("switchboard.db"))?;
    for n in 0..count {
        store.insert_profile(&Profile {
            id: ProfileId::new(),
            spec: ProfileSpec {
                name: format!("bench agent {n:02}"),
                command: command.clone(),
                args: rest.clone(),
                env: Default::default(),
                cwd: workspace.display().to_string(),
                kind: AgentKind::Generic,
                start_on_launch: true,
                ..Default::default()
            },
            created_at: n as i64,
            host: None,
        })?;
    }
    Ok(())
}
