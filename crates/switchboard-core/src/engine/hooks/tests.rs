//! The hook desk over an in-memory store and stand-in sessions: status from
//! events, teams spawned, finished and idle, permission requests, refused
//! events and the spool.

use serde_json::json;
use switchboard_protocol::AgentKind;
use switchboard_protocol::hook::AgentStatus;

use super::*;
use crate::config::spool_path;
use crate::engine::testing::Bench;
use crate::error::Responder;
use crate::session::Control;
use switchboard_api::{EngineEvent, PermissionDecision};

struct Desk {
    bench: Bench,
    desk: HookDesk,
    session: SessionId,
}

impl Desk {
    fn new() -> Desk {
        let mut bench = Bench::new();
        let profile = bench.profile("claude", AgentKind::ClaudeCode);
        let session = bench.start(&profile).id;
        Desk { bench, desk: HookDesk::new(Duration::from_secs(60)), session }
    }

    fn envelope(&self, payload: serde_json::Value) -> HookEnvelope {
        let secret = self.bench.cx.sessions.get(&self.session).and_then(|entry| entry.secret().map(str::to_owned));
        HookEnvelope { session_id: Some(self.session.to_string()), env: Default::default(), at: 1, payload, secret }
    }

    fn hook(&mut self, payload: serde_json::Value) {
        let envelope = self.envelope(payload);
        self.desk.on_hook(&mut self.bench.cx, &Hooked::new(envelope.clone())).unwrap();
    }

    fn shown(&self) -> AgentStatus {
        status::shown(self.bench.cx.sessions.get(&self.session).unwrap()).expect("hooks reported").status
    }

    /// Whether the session was last told its agent is busy.
    fn last_busy(&self) -> Option<bool> {
        self.bench.controls(&self.session).into_iter().rev().find_map(|control| match control {
            Control::AgentBusy(busy) => Some(busy),
            _ => None,
        })
    }

    fn follows(&mut self) -> Vec<Follow> {
        std::iter::from_fn(|| self.bench.cx.next_follow()).collect()
    }
}

#[tokio::test]
async fn a_turn_moves_the_status_and_tells_the_session_when_it_may_type() {
    let mut desk = Desk::new();
    desk.hook(json!({"hook_event_name": "SessionStart"}));
    assert_eq!((desk.shown(), desk.last_busy()), (AgentStatus::Waiting, Some(false)));
    desk.hook(json!({"hook_event_name": "UserPromptSubmit"}));
    assert_eq!((desk.shown(), desk.last_busy()), (AgentStatus::Working, Some(true)));
    desk.hook(json!({"hook_event_name": "Stop", "last_assistant_message": "Done."}));
    assert_eq!((desk.shown(), desk.last_busy()), (AgentStatus::Waiting, Some(false)));
    let follows = desk.follows();
    assert!(
        matches!(
            &follows[..],
            [
                Follow::AgentText { text, .. },
                Follow::TurnEnded { last_message: Some(last), .. },
                Follow::TurnRan { .. },
                Follow::TeamSettled { .. },
            ]
                if text == "Done." && last == "Done."
        ),
        "the words go to the signal desk, the turn's end to the task desk (a turn that ran), and a lead without a \
         team may complete: {follows:?}"
    );
    let logged = desk.bench.cx.store.list_events(Some(&desk.session)).unwrap();
    assert_eq!(logged.iter().filter(|e| matches!(e.kind, LogKind::Hook { .. })).count(), 3);
    let published = desk.bench.events();
    assert!(
        published
            .iter()
            .any(|e| matches!(e, EngineEvent::AgentStatusChanged { status } if status.status == AgentStatus::Working))
    );
}

#[tokio::test]
async fn a_team_is_spawned_finishes_and_goes_idle() {
    let mut desk = Desk::new();
    desk.hook(json!({"hook_event_name": "UserPromptSubmit"}));
    // A named teammate counts from the request; an unnamed foreground one
    // does not.
    desk.hook(json!({"hook_event_name": "PreToolUse", "tool_name": "Agent", "tool_use_id": "t1", "tool_input": {"name": "worker1"}}));
    desk.hook(json!({"hook_event_name": "PreToolUse", "tool_name": "Task", "tool_use_id": "t2", "tool_input": {"prompt": "look"}}));
    desk.hook(json!({"hook_event_name": "PreToolUse", "tool_name": "Agent", "tool_use_id": "t3", "tool_input": {"run_in_background": true}}));
    desk.follows();
    // The turn ends while they work: the lead stays working, its task held.
    let tasks = json!([
        {"id": "worker1", "type": "teammate", "status": "running"},
        {"id": "t3", "type": "subagent", "status": "running"},
        {"id": "shell", "type": "shell", "status": "running"}
    ]);
    desk.hook(json!({"hook_event_name": "Stop", "background_tasks": tasks}));
    assert_eq!(desk.shown(), AgentStatus::Working, "the lead works while its team does");
    assert!(desk.follows().iter().all(|f| !matches!(f, Follow::TeamSettled { .. })));
    // One goes idle; the Stop's list is the truth about the other.
    desk.hook(json!({"hook_event_name": "TeammateIdle", "teammate_name": "worker1"}));
    assert!(status::team_active(&desk.bench.cx.sessions, &desk.session));
    desk.hook(json!({"hook_event_name": "Stop", "background_tasks": [{"id": "t3", "type": "subagent", "status": "completed"}]}));
    assert!(!status::team_active(&desk.bench.cx.sessions, &desk.session));
    assert_eq!(desk.shown(), AgentStatus::Waiting);
    assert!(desk.follows().iter().any(|f| matches!(f, Follow::TeamSettled { lead } if *lead == desk.session)));
}

#[tokio::test]
async fn events_from_no_session_of_this_app_are_refused_and_counted() {
    let mut desk = Desk::new();
    for session_id in [None, Some("not-a-session".to_owned()), Some(SessionId::new().to_string())] {
        let envelope = HookEnvelope {
            session_id,
            env: Default::default(),
            at: 1,
            payload: json!({"hook_event_name": "Stop"}),
            secret: None,
        };
        let refused = desk.desk.on_hook(&mut desk.bench.cx, &Hooked::new(envelope.clone())).unwrap_err();
        assert!(matches!(refused, EngineError::InvalidInput { field: "session_id", .. }));
    }
    assert_eq!(desk.desk.refused(), 3);
}

#[tokio::test]
async fn an_event_is_taken_for_a_session_only_with_its_secret() {
    let mut desk = Desk::new();
    let other = desk.bench.profile("other", AgentKind::ClaudeCode);
    let other_session = desk.bench.start(&other).id;
    let own = desk.envelope(json!({"hook_event_name": "UserPromptSubmit"}));
    desk.desk.on_hook(&mut desk.bench.cx, &Hooked::new(own.clone())).unwrap();
    // Before: any process that knew a session's id spoke for it (a forged
    // failure ended another agent's task).
    let forged = [
        HookEnvelope { secret: None, ..desk.envelope(json!({"hook_event_name": "StopFailure"})) },
        HookEnvelope { secret: Some("guessed".into()), ..desk.envelope(json!({"hook_event_name": "StopFailure"})) },
        HookEnvelope {
            session_id: Some(other_session.to_string()),
            ..desk.envelope(json!({"hook_event_name": "Stop"}))
        },
    ];
    for envelope in forged {
        let refused = desk.desk.on_hook(&mut desk.bench.cx, &Hooked::new(envelope.clone())).unwrap_err();
        assert!(matches!(refused, EngineError::NotThisSession), "{refused:?}");
    }
    assert_eq!(desk.desk.refused(), 3);
    assert_eq!(desk.shown(), AgentStatus::Working, "nothing forged was applied");
    assert!(desk.follows().iter().all(|follow| !matches!(follow, Follow::TurnFailed { .. })));
}

#[tokio::test]
async fn a_session_that_ended_shows_exited_and_forgets_what_its_hooks_said() {
    let mut desk = Desk::new();
    desk.hook(json!({"hook_event_name": "UserPromptSubmit", "session_id": "conversation-1"}));
    desk.bench.end(&desk.session.clone(), false);
    desk.bench.events();
    status::session_ended(&mut desk.bench.cx, &desk.session);
    let events = desk.bench.events();
    assert!(
        matches!(&events[..], [EngineEvent::AgentStatusChanged { status }] if status.status == AgentStatus::Exited)
    );
    let entry = desk.bench.cx.sessions.get(&desk.session).unwrap();
    assert!(entry.hooks.status.is_none() && entry.hooks.conversation.is_none());
    // Its late events are still logged, but move no status.
    desk.hook(json!({"hook_event_name": "Stop"}));
    assert!(desk.bench.cx.sessions.get(&desk.session).unwrap().hooks.status.is_none());
}

#[tokio::test]
async fn permission_requests_are_decided_expire_or_close_with_their_session() {
    let mut desk = Desk::new();
    let ask = |desk: &mut Desk| {
        let envelope = desk.envelope(
            json!({"hook_event_name": "PermissionRequest", "tool_name": "Bash", "tool_input": {"command": "ls"}}),
        );
        let (reply, answer) = Responder::channel();
        desk.desk.ask_permission(&desk.bench.cx, &Hooked::new(envelope.clone()), reply);
        answer
    };
    let mut decided = ask(&mut desk);
    let mut expired = ask(&mut desk);
    let listed = desk.desk.list_permission_requests();
    assert_eq!(listed.len(), 2);
    let allow = PermissionDecision { allow: true, message: None };
    desk.desk.decide_permission(&desk.bench.cx, listed[0].id, allow.clone()).unwrap();
    assert_eq!(decided.try_recv().unwrap().unwrap(), Some(allow.clone()));
    assert!(desk.desk.decide_permission(&desk.bench.cx, listed[0].id, allow).is_err(), "answered once");

    let deadline = desk.desk.next_permission_deadline().unwrap();
    desk.desk.expire_permissions(&desk.bench.cx, deadline);
    assert_eq!(expired.try_recv().unwrap().unwrap(), None, "the agent's own prompt decides");

    let mut closed = ask(&mut desk);
    desk.desk.close_permissions_of(&desk.bench.cx, &desk.session);
    assert_eq!(closed.try_recv().unwrap().unwrap(), None);
    assert!(desk.desk.list_permission_requests().is_empty());
}

#[tokio::test]
async fn spooled_events_replay_in_order_and_the_spool_is_emptied() {
    let mut desk = Desk::new();
    let data_dir = desk.bench.workspace.path().join("spool-test");
    std::fs::create_dir_all(&data_dir).unwrap();
    let line = |payload: serde_json::Value| {
        serde_json::to_string(&SocketRequest::Hook { envelope: desk.envelope(payload) }).unwrap()
    };
    let spool = [
        line(json!({"hook_event_name": "UserPromptSubmit"})),
        "not json".to_owned(),
        line(json!({"hook_event_name": "Stop"})),
    ]
    .join("\n");
    std::fs::write(spool_path(&data_dir), spool).unwrap();
    let replay = desk.desk.replay_spool(&mut desk.bench.cx, &data_dir);
    assert_eq!((replay.replayed, replay.kept), (2, 1));
    assert_eq!(desk.shown(), AgentStatus::Waiting, "the Stop came last");
    assert!(!spool_path(&data_dir).exists());
}

#[tokio::test]
async fn a_torn_spool_line_is_kept_aside_and_the_lines_after_it_still_replay() {
    let mut desk = Desk::new();
    let data_dir = desk.bench.workspace.path().join("torn");
    std::fs::create_dir_all(&data_dir).unwrap();
    let line = |name: &str| {
        let payload = json!({"hook_event_name": name});
        serde_json::to_vec(&SocketRequest::Hook { envelope: desk.envelope(payload) }).unwrap()
    };
    let torn = b"{\"type\":\"hook\",\"envelope\":{\"payload\":\"\xff\xfe".to_vec();
    let unknown = {
        let mut envelope = desk.envelope(json!({"hook_event_name": "Stop"}));
        envelope.session_id = Some(SessionId::new().to_string());
        serde_json::to_vec(&SocketRequest::Hook { envelope }).unwrap()
    };
    let mut spool = Vec::new();
    for part in [line("UserPromptSubmit"), torn.clone(), unknown.clone(), line("Stop")] {
        spool.extend_from_slice(&part);
        spool.push(b'\n');
    }
    std::fs::write(spool_path(&data_dir), &spool).unwrap();
    // Before: replay stopped at the torn line and the spool was deleted,
    // losing everything after it.
    let replay = desk.desk.replay_spool(&mut desk.bench.cx, &data_dir);
    assert_eq!((replay.replayed, replay.kept), (2, 2));
    assert_eq!(desk.shown(), AgentStatus::Waiting, "the Stop after the torn line was replayed");
    let kept = std::fs::read(data_dir.join(SPOOL_QUARANTINE_FILE)).unwrap();
    assert_eq!(kept, [torn, b"\n".to_vec(), unknown, b"\n".to_vec()].concat(), "kept byte for byte");
    assert!(!spool_path(&data_dir).exists());
}

#[tokio::test]
async fn an_event_that_cannot_be_stored_is_refused_with_nothing_applied_so_its_hook_spools_it() {
    let mut desk = Desk::new();
    desk.hook(json!({"hook_event_name": "UserPromptSubmit"}));
    desk.follows();
    desk.bench.cx.store.fill_up();
    let stop = desk.envelope(json!({"hook_event_name": "Stop", "last_assistant_message": "Done."}));
    // Before: the engine answered `ok` to an event it had not stored.
    let error = desk.desk.on_hook(&mut desk.bench.cx, &Hooked::new(stop.clone())).unwrap_err();
    assert_eq!(error.code(), switchboard_api::ErrorCode::DiskFull, "{error}");
    assert_eq!(desk.shown(), AgentStatus::Working, "nothing half-recorded: the Stop is not applied");
    assert!(desk.follows().is_empty());

    desk.bench.cx.store.make_room();
    desk.desk.on_hook(&mut desk.bench.cx, &Hooked::new(stop.clone())).unwrap();
    assert_eq!(desk.shown(), AgentStatus::Waiting);
}

#[tokio::test]
async fn replaying_onto_a_full_disk_leaves_the_unstored_events_in_the_spool() {
    let mut desk = Desk::new();
    let data_dir = desk.bench.workspace.path().join("full");
    std::fs::create_dir_all(&data_dir).unwrap();
    let lines: Vec<String> = ["UserPromptSubmit", "Stop"]
        .into_iter()
        .map(|name| {
            let envelope = desk.envelope(json!({"hook_event_name": name}));
            serde_json::to_string(&SocketRequest::Hook { envelope }).unwrap()
        })
        .collect();
    let spool = format!("{}\n{}\n", lines[0], lines[1]);
    std::fs::write(spool_path(&data_dir), &spool).unwrap();
    desk.bench.cx.store.fill_up();
    let replay = desk.desk.replay_spool(&mut desk.bench.cx, &data_dir);
    assert_eq!(replay, SpoolReplay { replayed: 0, kept: 0, left: 2 });
    assert_eq!(std::fs::read_to_string(spool_path(&data_dir)).unwrap(), spool, "kept for the next start");
    assert!(!data_dir.join(SPOOL_QUARANTINE_FILE).exists(), "not mistaken for bad lines");

    desk.bench.cx.store.make_room();
    let replay = desk.desk.replay_spool(&mut desk.bench.cx, &data_dir);
    assert_eq!(replay, SpoolReplay { replayed: 2, kept: 0, left: 0 });
    assert!(!spool_path(&data_dir).exists());
}

#[tokio::test]
async fn a_fifo_or_a_link_at_the_spools_path_is_removed_unread_instead_of_stopping_the_start() {
    let mut desk = Desk::new();
    let data_dir = desk.bench.workspace.path().join("planted");
    std::fs::create_dir_all(&data_dir).unwrap();
    let outside = desk.bench.workspace.path().join("outside.jsonl");
    let line = serde_json::to_string(&SocketRequest::Hook {
        envelope: desk.envelope(json!({"hook_event_name": "UserPromptSubmit"})),
    })
    .unwrap();
    std::fs::write(&outside, format!("{line}\n")).unwrap();
    // Before: the start waited on the FIFO for good; /dev/zero was read
    // until memory ran out; a link out was replayed and then deleted.
    nix::unistd::mkfifo(&spool_path(&data_dir), nix::sys::stat::Mode::S_IRWXU).unwrap();
    assert_eq!(desk.desk.replay_spool(&mut desk.bench.cx, &data_dir), SpoolReplay::default());
    for target in [Path::new("/dev/zero"), &outside] {
        assert!(!spool_path(&data_dir).exists(), "what stood there was removed, so hooks can spool again");
        std::os::unix::fs::symlink(target, spool_path(&data_dir)).unwrap();
        assert_eq!(desk.desk.replay_spool(&mut desk.bench.cx, &data_dir), SpoolReplay::default());
    }
    assert!(!spool_path(&data_dir).exists());
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), format!("{line}\n"), "never replayed nor touched");
}

#[tokio::test]
async fn a_spool_larger_than_any_hooks_write_is_set_aside_unread() {
    let mut desk = Desk::new();
    let data_dir = desk.bench.workspace.path().join("huge");
    std::fs::create_dir_all(&data_dir).unwrap();
    let spool = std::fs::File::create(spool_path(&data_dir)).unwrap();
    spool.set_len(SPOOL_REPLAY_CAP_BYTES + 1).unwrap();
    assert_eq!(desk.desk.replay_spool(&mut desk.bench.cx, &data_dir), SpoolReplay::default());
    assert!(!spool_path(&data_dir).exists());
    assert_eq!(std::fs::metadata(data_dir.join(SPOOL_TOO_LARGE_FILE)).unwrap().len(), SPOOL_REPLAY_CAP_BYTES + 1);
}
