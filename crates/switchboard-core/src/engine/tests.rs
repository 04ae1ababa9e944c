//! The engine as a whole, on a data directory on disk: what its loop does
//! besides the desks (reporting storage, probing).

use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::{Engine, EngineHandle};
use crate::config::EngineConfig;
use switchboard_api::{EngineEvent, ProfileSpec, Settings, StorageProblem};

/// How long a test waits for what the engine should do before failing.
const PATIENCE: Duration = Duration::from_secs(20);

struct Running {
    engine: EngineHandle,
    events: Arc<Mutex<Vec<EngineEvent>>>,
    data: tempfile::TempDir,
}

impl Running {
    async fn start() -> Running {
        let data = tempfile::tempdir().unwrap();
        let events = Arc::new(Mutex::new(Vec::new()));
        let kept = events.clone();
        let sink = Arc::new(move |event: EngineEvent| kept.lock().unwrap().push(event));
        let config = EngineConfig::new(data.path().join("data"), Some(data.path().join("run")));
        let engine = Engine::start(config, sink).await.unwrap();
        Running { engine, events, data }
    }

    /// What the window was told of storage, in order.
    fn storage_told(&self) -> Vec<Option<StorageProblem>> {
        let events = self.events.lock().unwrap();
        events
            .iter()
            .filter_map(|event| match event {
                EngineEvent::StorageChanged { problem } => Some(problem.clone()),
                _ => None,
            })
            .collect()
    }

    async fn wait_until(&self, what: &str, condition: impl AsyncFn(&Running) -> bool) {
        let deadline = tokio::time::Instant::now() + PATIENCE;
        while !condition(self).await {
            assert!(tokio::time::Instant::now() < deadline, "timed out waiting until {what}");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    async fn probes(&self) -> u32 {
        self.engine.with_state(|engine| engine.cx.store.probes()).await.unwrap()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_disk_stays_shown_while_small_writes_go_through_until_there_is_room() {
    let t = Running::start().await;
    // A profile whose environment holds `env_len` bytes.
    let spec = |name: &str, env_len: usize| ProfileSpec {
        name: name.into(),
        command: "sh".into(),
        cwd: t.data.path().display().to_string(),
        env: [("NOTES".to_owned(), "x".repeat(env_len))].into(),
        ..ProfileSpec::default()
    };
    t.engine.create_profile(spec("kept", 0)).await.unwrap();
    t.engine.with_state(|engine| engine.cx.store.fill_up()).await.unwrap();

    // A write that needs room fails: the window is told the disk is full.
    let refused = t.engine.create_profile(spec("big", 64 * 1024)).await.unwrap_err();
    assert_eq!(refused.code(), switchboard_api::ErrorCode::DiskFull, "{refused}");
    t.wait_until("the window is told", async |t| !t.storage_told().is_empty()).await;
    assert_eq!(t.storage_told(), [Some(StorageProblem::Full)]);

    // A small write still goes through in the room the database has.
    t.engine.set_settings(Settings { default_quiet_alert_secs: 0, ..Settings::default() }).await.unwrap();
    // (Answered after the loop reported what the write changed.)
    let status = t.engine.storage_status().await.unwrap();
    // Before: the small write cleared the problem at once, and the banner
    // went while growing writes kept failing.
    assert_eq!((status.problem, t.storage_told()), (Some(StorageProblem::Full), vec![Some(StorageProblem::Full)]));

    // Nor do the engine's probes find room that is not there.
    let probes = t.probes().await;
    t.wait_until("two more probes", async |t| t.probes().await >= probes + 2).await;
    let status = t.engine.storage_status().await.unwrap();
    assert_eq!((status.problem, t.storage_told()), (Some(StorageProblem::Full), vec![Some(StorageProblem::Full)]));

    // Room again: the next probe finds it, and the window is told.
    t.engine.with_state(|engine| engine.cx.store.make_room()).await.unwrap();
    t.wait_until("the window is told there is room", async |t| t.storage_told().len() == 2).await;
    assert_eq!(t.storage_told(), [Some(StorageProblem::Full), None]);
    t.engine.create_profile(spec("big", 64 * 1024)).await.unwrap();
    t.engine.shutdown().await;
}
