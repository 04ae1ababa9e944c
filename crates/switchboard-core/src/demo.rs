//! The built-in demo: on first run, a workspace inside the data directory and
//! a profile that runs the scripted demo agent there, so a newcomer sees an
//! agent working without installing one.

use std::path::Path;

use switchboard_protocol::{AgentKind, ProfileId};

use crate::error::EngineError;
use crate::store::Store;
use switchboard_api::{Millis, Profile, ProfileSpec};

pub const DEMO_PROFILE_NAME: &str = "Demo agent";
/// The demo agent's prompt, as the line under the cursor shows it.
pub const DEMO_READY_PATTERN: &str = "demo> $";
const DEMO_PROFILE_KEY: &str = "demo_profile_id";

const WORKSPACE_README: &str = "\
# Demo workspace

Switchboard made this folder on its first start. The \"Demo agent\" profile runs
a scripted agent here: type a line at its prompt and it works on it, printing
its progress and writing a summary to `summaries/` when the line names a task.
";

/// Creates the demo workspace and profile once per data directory. Later
/// starts only point the profile at the current demo agent binary (it moves
/// when the app is rebuilt elsewhere); a demo profile the user deleted stays
/// deleted.
pub fn ensure_demo(store: &Store, data_dir: &Path, demo_agent: &Path, now: Millis) -> Result<(), EngineError> {
    let command = demo_agent.display().to_string();
    if let Some(id) = store.meta(DEMO_PROFILE_KEY)? {
        let Ok(id) = id.parse::<ProfileId>() else { return Ok(()) };
        if let Some(profile) = store.get_profile(&id)?
            && profile.spec.command != command
            && !Path::new(&profile.spec.command).exists()
        {
            store.update_profile(&id, &ProfileSpec { command, ..profile.spec })?;
        }
        return Ok(());
    }
    let workspace = data_dir.join("demo-workspace");
    std::fs::create_dir_all(workspace.join("summaries"))
        .and_then(|()| std::fs::write(workspace.join("README.md"), WORKSPACE_README))
        .map_err(|e| EngineError::io(format!("creating the demo workspace {}", workspace.display()), e))?;
    let mut name = DEMO_PROFILE_NAME.to_owned();
    let mut suffix = 2;
    while store.profile_name_taken(&name, None)? {
        name = format!("{DEMO_PROFILE_NAME} {suffix}");
        suffix += 1;
    }
    let profile = Profile {
        id: ProfileId::new(),
        spec: ProfileSpec {
            name,
            command,
            args: Vec::new(),
            env: Default::default(),
            cwd: workspace.display().to_string(),
            kind: AgentKind::Generic,
            account: None,
            isolation: Default::default(),
            start_on_launch: true,
            ready_pattern: Some(DEMO_READY_PATTERN.into()),
            ready_quiet_ms: 300,
            task_time_limit_secs: 5 * 60,
            completion: Default::default(),
            signal_protocols: true,
            switchboard_tools: true,
            daily_budget: None,
            quiet_alert_secs: switchboard_api::DEFAULT_QUIET_ALERT_SECS,
        },
        created_at: now,
        host: None,
    };
    store.insert_profile(&profile)?;
    store.set_meta(DEMO_PROFILE_KEY, &profile.id.to_string())?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn demo_is_created_once_and_follows_the_binary() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open_in_memory().unwrap();
        let agent = dir.path().join("agent-v1");
        std::fs::write(&agent, "").unwrap();

        ensure_demo(&store, dir.path(), &agent, 1).unwrap();
        ensure_demo(&store, dir.path(), &agent, 2).unwrap();
        let profiles = store.list_profiles().unwrap();
        assert_eq!(profiles.len(), 1);
        assert_eq!(profiles[0].spec.name, DEMO_PROFILE_NAME);
        assert!(profiles[0].spec.start_on_launch);
        assert!(dir.path().join("demo-workspace/README.md").is_file());

        // The old binary is gone and a new one is configured: follow it.
        std::fs::remove_file(&agent).unwrap();
        let moved = dir.path().join("agent-v2");
        ensure_demo(&store, dir.path(), &moved, 3).unwrap();
        assert_eq!(store.list_profiles().unwrap()[0].spec.command, moved.display().to_string());

        // Deleted by the user: stays deleted.
        store.delete_profile(&profiles[0].id).unwrap();
        ensure_demo(&store, dir.path(), &moved, 4).unwrap();
        assert!(store.list_profiles().unwrap().is_empty());
    }
}
