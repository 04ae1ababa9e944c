//! `switchboard-engine-host DATA_DIR COMMAND [ARGS...]`: an engine in its own
//! process, for crash tests. It creates a profile running COMMAND in
//! DATA_DIR/work, starts one session, prints `pid <PID>` of the agent and
//! waits to be killed.

use std::sync::Arc;

use anyhow::{Context, Result};
use switchboard_core::{AgentKind, Engine, EngineConfig, NoEvents, ProfileSpec, SessionState, TermSize};

#[tokio::main]
async fn main() -> Result<()> {
    let mut args = std::env::args().skip(1);
    let data_dir: std::path::PathBuf = args.next().context("usage: DATA_DIR COMMAND [ARGS...]")?.into();
    let command = args.next().context("usage: DATA_DIR COMMAND [ARGS...]")?;
    let workspace = data_dir.join("work");
    std::fs::create_dir_all(&workspace)?;
    let engine = Engine::start(EngineConfig::new(data_dir.clone(), None), Arc::new(NoEvents)).await?;
    let spec = ProfileSpec {
        name: "hosted".into(),
        command,
        args: args.collect(),
        env: Default::default(),
        cwd: workspace.display().to_string(),
        kind: AgentKind::Generic,
        start_on_launch: false,
        ..Default::default()
    };
    let profile = engine.create_profile(spec).await?;
    let session = engine.start_session(profile.id, TermSize::DEFAULT).await?;
    let SessionState::Running { pid } = session.state else { anyhow::bail!("session did not start") };
    println!("pid {pid}");
    std::future::pending::<()>().await;
    Ok(())
}
