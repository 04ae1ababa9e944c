//! Turns that end without telling the agent's hooks. Codex 0.169 reports a
//! turn that failed (the model's API refused it, a stream that broke for
//! good) to no hook and not to `notify`: the task it worked on would wait,
//! flagged only by the quiet watch, until its time limit. Its session log
//! says so (`switchboard_protocol::rollout`), so when an agent whose hooks
//! say it works has gone quiet (`rules::look_for_unreported_turn`), the end
//! of that log is read; a failed turn that is the one its hooks last saw
//! begin fails the task with Codex's reason, as Claude Code's StopFailure
//! does.
//!
//! The log is named by the agent's hooks (`transcript_path`) and read only
//! inside Codex's own folder (the one the app writes its hooks into),
//! through no link and with a cap on what is read.

use std::path::{Component, Path};

use switchboard_protocol::hook::AgentStatus;
use switchboard_protocol::limit::Refusal;
use switchboard_protocol::rollout::{LatestTurn, UsageWindow, latest_turn, latest_usage};
use switchboard_protocol::{AgentKind, SessionId};

use super::rules::look_for_unreported_turn;
use super::{Phase, TaskDesk};
use crate::engine::context::Ctx;
use switchboard_api::Millis;

/// How much of the end of the log is read: its latest turn's events.
const ROLLOUT_TAIL_BYTES: usize = 64 * 1024;

impl TaskDesk {
    /// Fails each task whose Codex agent's latest turn ended in an error
    /// that its hooks were not told of.
    pub fn check_unreported_turns(&mut self, cx: &mut Ctx, now: Millis) {
        let mut failed: Vec<(SessionId, String, Option<Refusal>, Vec<UsageWindow>)> = Vec::new();
        for (profile_id, work) in &mut self.work {
            let (Phase::Typed { .. }, Some(typed_at)) = (work.phase, work.typed_at) else { continue };
            // Refused already: it waits, its log says so still.
            if work.paused.is_some() {
                continue;
            }
            let Ok(profile) = cx.profile(profile_id) else { continue };
            if profile.spec.kind != AgentKind::Codex {
                continue;
            }
            let Some(entry) = cx.sessions.get(&work.session_id).filter(|e| e.is_running()) else { continue };
            let hooks = entry.hooks.status.as_ref();
            let last_activity = [
                Some(typed_at),
                entry.handle().map(crate::session::SessionHandle::output_at),
                hooks.and_then(|s| s.last_event_at),
            ]
            .into_iter()
            .flatten()
            .max()
            .unwrap_or(typed_at);
            let working = hooks.is_some_and(|s| s.status == AgentStatus::Working);
            if !look_for_unreported_turn(working, last_activity, work.turn_look, now) {
                continue;
            }
            work.turn_look = Some((last_activity, now));
            let (Some(log), Some(turn)) = (&entry.hooks.transcript, &entry.hooks.turn) else { continue };
            let Some(home) = crate::connect::codex_home(&profile.spec.env, |name| std::env::var(name).ok()) else {
                continue;
            };
            let tail = read_tail(&home, log);
            match tail.as_deref().map_or(LatestTurn::Unseen, latest_turn) {
                LatestTurn::Failed { turn_id: Some(id), error, kind }
                    if &id == turn && work.refused_turn.as_ref() != Some(&id) =>
                {
                    let refusal = kind.as_deref().and_then(|kind| {
                        switchboard_protocol::limit::from_codex_error(
                            kind,
                            &error,
                            now,
                            crate::limits::local_offset_secs(now),
                        )
                    });
                    if refusal.is_some() {
                        work.refused_turn = Some(id);
                    }
                    let usage = tail.as_deref().and_then(latest_usage).unwrap_or_default();
                    failed.push((work.session_id.clone(), error, refusal, usage));
                }
                _ => {}
            }
        }
        for (session, error, refusal, usage) in failed {
            self.turn_failed(cx, &session, &error, refusal, &usage);
        }
    }
}

/// The end of the log at `log`, if it lies in `sessions/` of Codex's
/// folder `home`; none when it does not or cannot be read.
fn read_tail(home: &Path, log: &str) -> Option<String> {
    let Some(relative) = Path::new(log).strip_prefix(home).ok().filter(|r| in_sessions(r)) else {
        tracing::debug!(log, "a Codex log outside its sessions folder is not read");
        return None;
    };
    let read = crate::workspace::Workspace::open(home)
        .and_then(|folder| folder.read_head_and_tail(&relative.display().to_string(), 0, ROLLOUT_TAIL_BYTES));
    read.inspect_err(|error| tracing::debug!(log, %error, "Codex's session log could not be read")).ok()
}

/// The latest turn in the log at `log` (see [`read_tail`]); `Unseen` when
/// it cannot be read.
#[cfg(test)]
fn read_latest_turn(home: &Path, log: &str) -> LatestTurn {
    read_tail(home, log).as_deref().map_or(LatestTurn::Unseen, latest_turn)
}

/// `sessions/…/rollout-….jsonl`, plain names only.
fn in_sessions(relative: &Path) -> bool {
    let plain = relative.components().all(|c| matches!(c, Component::Normal(_)));
    let name = relative.file_name().and_then(|n| n.to_str()).unwrap_or_default();
    plain && relative.starts_with("sessions") && name.starts_with("rollout-") && name.ends_with(".jsonl")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_rollout_in_codexs_sessions_folder_is_read() {
        let home = tempfile::tempdir().unwrap();
        let day = home.path().join("sessions/2026/11/25");
        std::fs::create_dir_all(&day).unwrap();
        let recording =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/agents/codex-rollout-failed-turn.jsonl");
        let log = day.join("rollout-2026-11-25T17-21-14-01a213b9.jsonl");
        std::fs::copy(&recording, &log).unwrap();
        let named = log.display().to_string();
        assert!(matches!(read_latest_turn(home.path(), &named), LatestTurn::Failed { .. }));

        let elsewhere = tempfile::tempdir().unwrap();
        let outside = elsewhere.path().join("sessions/rollout-x.jsonl");
        std::fs::create_dir_all(outside.parent().unwrap()).unwrap();
        std::fs::copy(&recording, &outside).unwrap();
        for named in [
            outside.display().to_string(),
            format!("{}/sessions/../../{}", home.path().display(), outside.display()),
            format!("{}/config.toml", home.path().display()),
        ] {
            assert_eq!(read_latest_turn(home.path(), &named), LatestTurn::Unseen, "{named}");
        }
        // A link out of the folder is not followed.
        let link = day.join("rollout-link.jsonl");
        std::os::unix::fs::symlink(&outside, &link).unwrap();
        assert_eq!(read_latest_turn(home.path(), &link.display().to_string()), LatestTurn::Unseen);
    }
}
