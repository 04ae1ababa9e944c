//! The app's settings through the engine: checked, kept across a restart,
//! and told to the window and the shell as they change.

use crate::support;

use support::*;
use switchboard_api::{NotifyChoices, QuietHours, Settings, Theme};
use switchboard_core::{EngineEvent, ErrorCode};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn settings_are_checked_told_and_kept_across_a_restart() {
    let temp = tempfile::tempdir().unwrap();
    let chosen = Settings {
        default_task_time_limit_secs: 45 * 60,
        default_quiet_alert_secs: 5 * 60,
        turn_quiet_secs: 45,
        limit_margin_secs: 5,
        limit_retry_secs: 90,
        usage_warn_percent: 95,
        notify: NotifyChoices { task_completed: false, ..NotifyChoices::default() },
        quiet_hours: QuietHours::Daily { from: "22:00".into(), to: "7:30".into() },
        theme: Theme::Light,
        terminal_grid: switchboard_api::TerminalGrid {
            shows: switchboard_api::GridShows::NeedsYou,
            chosen: vec![switchboard_core::ProfileId::new(), switchboard_core::ProfileId::new()],
            zoomed: None,
        },
        prices: switchboard_core::PriceTable { source: "mine".into(), taken: "2026-11-29".into(), models: vec![] },
    };
    let kept =
        Settings { quiet_hours: QuietHours::Daily { from: "22:00".into(), to: "07:30".into() }, ..chosen.clone() };
    {
        let t = TestEngine::start_in(temp.path(), |_| {}).await;
        assert_eq!(t.engine.get_settings().await.unwrap(), Settings::default());

        // Refused: nothing kept, nothing told.
        let refused = Settings { default_task_time_limit_secs: 0, ..chosen.clone() };
        let error = switchboard_core::ApiError::from(t.engine.set_settings(refused).await.unwrap_err());
        assert_eq!(
            (error.code, error.field.as_deref()),
            (ErrorCode::InvalidInput, Some("default_task_time_limit_secs"))
        );
        assert_eq!(error.message, "A time limit is at least a minute and at most 7 days.");
        assert_eq!(t.engine.get_settings().await.unwrap(), Settings::default());

        assert_eq!(t.engine.set_settings(chosen).await.unwrap(), kept);
        let told = t
            .events
            .wait_for("settings_changed", |events| {
                events.iter().find_map(|e| match e {
                    EngineEvent::SettingsChanged { settings } => Some(settings.clone()),
                    _ => None,
                })
            })
            .await;
        assert_eq!(told, kept);
        let changes = t.events_now().await.iter().filter(|e| matches!(e, EngineEvent::SettingsChanged { .. })).count();
        assert_eq!(changes, 1, "the refused save told nothing");
        t.shutdown().await;
    }
    let t = TestEngine::start_in(temp.path(), |_| {}).await;
    assert_eq!(t.engine.get_settings().await.unwrap(), kept);
}
