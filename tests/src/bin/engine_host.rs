//! `switchboard-engine-host DATA_DIR COMMAND [ARGS...]`: an engine in its own
//! process, for crash tests. It creates a profile running COMMAND in
//! DATA_DIR/work, starts one session, prints `pid <PID>` of the agent and
//! waits to be killed. With `HOST_TASKS=N` it then queues N tasks
//! (`task 1` ...) and prints `task <ID>` for each. With `HOST_LOOP=N` it
//! starts no session but a loop of at most N iterations, and prints
//! `loop <ID>`. With `HOST_KEEPER=PATH` its agents run under that keeper
//! (the hook binary), as in the app.

use std::sync::Arc;

use anyhow::{Context, Result};
use switchboard_core::loops::LoopSettings;
use switchboard_core::{AgentKind, Engine, EngineConfig, NoEvents, ProfileSpec, SessionState, TaskSpec, TermSize};

#[tokio::main]
async fn main() -> Result<()> {
    let mut args = std::env::args().skip(1);
    let data_dir: std::path::PathBuf = args.next().context("usage: DATA_DIR COMMAND [ARGS...]")?.into();
    let command = args.next().context("usage: DATA_DIR COMMAND [ARGS...]")?;
    let workspace = data_dir.join("work");
    std::fs::create_dir_all(&workspace)?;
    let mut config = EngineConfig::new(data_dir.clone(), None);
    config.keeper = std::env::var_os("HOST_KEEPER").map(Into::into);
    let engine = Engine::start(config, Arc::new(NoEvents)).await?;
    let spec = ProfileSpec {
        name: "hosted".into(),
        command,
        args: args.collect(),
        env: Default::default(),
        cwd: workspace.display().to_string(),
        kind: AgentKind::Generic,
        start_on_launch: false,
        ready_quiet_ms: 100,
        ..Default::default()
    };
    let profile = engine.create_profile(spec).await?;
    if let Some(max) = std::env::var("HOST_LOOP").ok().and_then(|n| n.parse().ok()) {
        let settings = LoopSettings { max_iterations: max, ..LoopSettings::new("Finish the steps") };
        println!("loop {}", engine.start_loop(profile.id.clone(), settings).await?.id);
        std::future::pending::<()>().await;
    }
    let session = engine.start_session(profile.id.clone(), TermSize::DEFAULT).await?;
    let SessionState::Running { pid } = session.state else { anyhow::bail!("session did not start") };
    println!("pid {pid}");
    let tasks: usize = std::env::var("HOST_TASKS").ok().and_then(|n| n.parse().ok()).unwrap_or(0);
    for n in 1..=tasks {
        let spec = TaskSpec::new(profile.id.clone(), format!("task {n}"));
        println!("task {}", engine.submit_task(spec).await?.task.id);
    }
    std::future::pending::<()>().await;
    Ok(())
}
