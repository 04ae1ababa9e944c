//! Database files written by earlier versions must keep opening, with their
//! data intact, as the schema moves forward.

use switchboard_core::store::Store;
use switchboard_core::{AgentKind, LogKind, SessionState};

#[test]
fn a_version_1_database_still_opens_with_its_data() {
    let temp = tempfile::tempdir().unwrap();
    let db = temp.path().join("switchboard.db");
    std::fs::copy(concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/db/v1.sqlite"), &db).unwrap();

    let store = Store::open(&db).unwrap();
    let profiles = store.list_profiles().unwrap();
    assert_eq!(profiles.len(), 1);
    assert_eq!(profiles[0].spec.name, "Old agent");
    assert_eq!(profiles[0].spec.kind, AgentKind::ClaudeCode);
    assert_eq!(profiles[0].spec.args, ["-c", "echo hi"]);

    let sessions = store.list_sessions().unwrap();
    assert_eq!(sessions[0].state, SessionState::Exited { exit_code: 3, signal: None, ended_at: 1_700_000_000_900 });
    let events = store.list_events(None).unwrap();
    assert_eq!(events[1].kind, LogKind::SessionExited { exit_code: 3, signal: None });
    assert_eq!(store.settings().unwrap(), switchboard_core::api::Settings::default(), "no settings saved yet");
}
