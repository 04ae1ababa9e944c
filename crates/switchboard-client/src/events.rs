//! What a client does with the engine's events before a view sees them:
//! which reach a window at all, how long they gather, and which of a
//! gathered run it still needs. The desktop window and the daemon (for the
//! views it serves) decide it here, the same way.

use switchboard_api::protocol::{LoopId, ProfileId, SessionId, TaskId};
use switchboard_api::{EngineEvent, EventPace, FollowedLog};

/// What an event is the whole news of: the state of one thing, which a later
/// event about the same thing replaces.
#[derive(Debug, PartialEq, Eq, Hash)]
enum Subject {
    Status(SessionId),
    Attention(ProfileId),
    Queue(ProfileId),
    Task(TaskId),
    Loop(LoopId),
    Usage(String),
    Worktree(String),
}

/// The thing whose whole state `event` carries, for the frequent events a
/// view follows only to show the latest of. Events that mark a moment (an
/// end, a warning, a removal) or that a view follows step by step (a
/// session's start, the log) have none.
fn subject(event: &EngineEvent) -> Option<Subject> {
    Some(match event {
        EngineEvent::AgentStatusChanged { status } => Subject::Status(status.session_id.clone()),
        EngineEvent::AttentionChanged { profile_id, .. } => Subject::Attention(profile_id.clone()),
        EngineEvent::QueueChanged { queue } => Subject::Queue(queue.profile_id.clone()),
        EngineEvent::TaskChanged { task } => Subject::Task(task.id.clone()),
        EngineEvent::LoopChanged { info } => Subject::Loop(info.id.clone()),
        EngineEvent::UsageChanged { usage } => Subject::Usage(usage.account.clone()),
        EngineEvent::WorktreeChanged { worktree } => Subject::Worktree(worktree.task.clone()),
        _ => return None,
    })
}

/// Whether a window is sent `event`: every event but the log's entries,
/// which only while a view follows them (`followed`) and only those about
/// its agent or no agent in particular.
pub fn forwarded(followed: Option<&FollowedLog>, event: &EngineEvent) -> bool {
    let EngineEvent::Logged { profile_id, .. } = event else { return true };
    match (followed, profile_id) {
        (None, _) => false,
        (Some(FollowedLog::Everything), _) | (Some(FollowedLog::Agent { .. }), None) => true,
        (Some(FollowedLog::Agent { profile_id: followed }), Some(about)) => followed == about,
    }
}

/// How long events gather, from the first one, before they go to a window
/// that asked for `pace` together.
pub fn gathers_for(pace: EventPace) -> std::time::Duration {
    match pace {
        EventPace::Live => std::time::Duration::from_millis(16),
        EventPace::Calm => std::time::Duration::from_millis(250),
    }
}

/// A run of events as a view that shows the latest state needs them: an
/// event whose thing a later event of the run reports again is left out; the
/// rest keep their order. A window applies a frame's events at once, so what
/// it shows after them is the same, with less to do.
pub fn coalesce(events: Vec<EngineEvent>) -> Vec<EngineEvent> {
    let mut later = std::collections::HashSet::new();
    let mut kept: Vec<EngineEvent> =
        events.into_iter().rev().filter(|event| subject(event).is_none_or(|subject| later.insert(subject))).collect();
    kept.reverse();
    kept
}

#[cfg(test)]
mod tests {
    use super::*;
    use switchboard_api::protocol::hook::AgentStatus;
    use switchboard_api::{AgentStatusInfo, Millis, QueueStatus};

    fn status(session: &SessionId, status: AgentStatus) -> EngineEvent {
        EngineEvent::AgentStatusChanged {
            status: AgentStatusInfo {
                session_id: session.clone(),
                status,
                last_event_at: None,
                team: None,
                agent_name: None,
                agent_type: None,
            },
        }
    }

    fn attention(profile: &ProfileId, since: Millis) -> EngineEvent {
        EngineEvent::AttentionChanged {
            profile_id: profile.clone(),
            attention: switchboard_api::Attention::Idle { since: Some(since) },
        }
    }

    fn queue(profile: &ProfileId, queued: u32) -> EngineEvent {
        EngineEvent::QueueChanged {
            queue: QueueStatus {
                profile_id: profile.clone(),
                paused: false,
                pause: None,
                executing: false,
                current_task: None,
                queued,
                current_session: None,
            },
        }
    }

    #[test]
    fn a_window_showing_an_agent_has_its_events_within_a_frame_and_one_showing_none_within_a_quarter_second() {
        let frame = std::time::Duration::from_micros(16_667);
        let cases = [(EventPace::Live, std::time::Duration::ZERO, frame), (EventPace::Calm, frame * 2, frame * 16)];
        for (pace, more_than, at_most) in cases {
            let gathers = gathers_for(pace);
            assert!(gathers > more_than && gathers <= at_most, "{pace:?} gathers for {gathers:?}");
        }
    }

    #[test]
    fn a_frames_events_keep_the_latest_of_each_thing_in_their_order() {
        let (one, two) = (SessionId::new(), SessionId::new());
        let (lead, helper) = (ProfileId::new(), ProfileId::new());
        let deleted = EngineEvent::ProfileDeleted { profile_id: helper.clone() };
        let cases: Vec<(&str, Vec<EngineEvent>, Vec<EngineEvent>)> = vec![
            ("nothing", vec![], vec![]),
            (
                "one session's statuses: the last",
                vec![
                    status(&one, AgentStatus::Working),
                    status(&one, AgentStatus::Attention),
                    status(&one, AgentStatus::Working),
                ],
                vec![status(&one, AgentStatus::Working)],
            ),
            (
                "two sessions' statuses: each one's last, in the order of those",
                vec![
                    status(&one, AgentStatus::Working),
                    status(&two, AgentStatus::Waiting),
                    status(&one, AgentStatus::Attention),
                ],
                vec![status(&two, AgentStatus::Waiting), status(&one, AgentStatus::Attention)],
            ),
            (
                "a status and an attention of the same agent are two things",
                vec![
                    status(&one, AgentStatus::Working),
                    attention(&lead, 1),
                    status(&one, AgentStatus::Done),
                    attention(&lead, 2),
                ],
                vec![status(&one, AgentStatus::Done), attention(&lead, 2)],
            ),
            (
                "queues by agent",
                vec![queue(&lead, 1), queue(&helper, 1), queue(&lead, 2)],
                vec![queue(&helper, 1), queue(&lead, 2)],
            ),
            (
                "a removal stays where it was, and what came after it too",
                vec![queue(&helper, 1), deleted.clone(), queue(&helper, 2)],
                vec![deleted.clone(), queue(&helper, 2)],
            ),
            (
                "events that mark a moment are each kept",
                vec![status(&one, AgentStatus::Exited), deleted.clone(), deleted.clone()],
                vec![status(&one, AgentStatus::Exited), deleted.clone(), deleted.clone()],
            ),
        ];
        for (what, events, expected) in cases {
            assert_eq!(coalesce(events), expected, "{what}");
        }
    }

    #[test]
    fn the_window_gets_log_entries_only_while_a_view_follows_them() {
        use switchboard_api::{LogEntry, LogKind};
        let (mine, other) = (ProfileId::new(), ProfileId::new());
        let entry = |profile: Option<&ProfileId>| EngineEvent::Logged {
            entry: LogEntry { seq: 1, at: 1, session_id: None, task_id: None, kind: LogKind::TaskStarted },
            profile_id: profile.cloned(),
        };
        let agent = FollowedLog::Agent { profile_id: mine.clone() };
        let cases = [
            (None, entry(Some(&mine)), false),
            (Some(&agent), entry(Some(&mine)), true),
            (Some(&agent), entry(Some(&other)), false),
            (Some(&agent), entry(None), true),
            (Some(&FollowedLog::Everything), entry(Some(&other)), true),
            // Every other event always goes.
            (None, EngineEvent::ProfileDeleted { profile_id: other.clone() }, true),
        ];
        for (followed, event, sent) in cases {
            assert_eq!(forwarded(followed, &event), sent, "{followed:?} {event:?}");
        }
    }
}
