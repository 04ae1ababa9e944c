//! The signal desk over an in-memory store and stand-in sessions: which
//! responses each signal takes in each state, and what each response does.

use switchboard_protocol::AgentKind;
use switchboard_protocol::signal::scan_all;

use super::*;
use crate::engine::testing::Bench;
use switchboard_api::{ApiError, ErrorCode, Profile, SignalAction, SignalResponse};

const CLARIFICATION: &str = "[CLARIFICATION_NEEDED]\nblocked_at: \"auth\"\nquestions:\n  - \"OAuth2 or JWT?\"\n  - \"How deep?\"\ncurrent_state: \"Phase 1 done\"\n[/CLARIFICATION_NEEDED]";
const STOP: &str = "[STOP_WORK]\nblocker_type: external_dependency\ndetails: \"need npm install\"\nstate_snapshot: \"A and B done\"\nblocked_work: \"Task D\"\n[/STOP_WORK]";
const DELEGATE: &str = "[DELEGATE_WORK]\nnew_task_description: \"Write the parser tests\"\nindependence: blocks_current_work\ncoordination: \"tests/parser.rs\"\n[/DELEGATE_WORK]";
const COMPLETION: &str = "[COMPLETION_REPORT]\nstatus: success\ndeliverables:\n  - notes.md\nmetrics_achieved: \"all pass\"\n[/COMPLETION_REPORT]";
const MALFORMED: &str = "[STOP_WORK]\ndetails: [unclosed\n[/STOP_WORK]";

struct Desk {
    bench: Bench,
    desk: SignalDesk,
    profile: Profile,
    session: SessionId,
}

impl Desk {
    fn new() -> Desk {
        let mut bench = Bench::new();
        let profile = bench.profile("worker", AgentKind::Generic);
        let session = bench.start(&profile).id;
        Desk { bench, desk: SignalDesk::new(3), profile, session }
    }

    /// Raises the block as the session's output and returns its record.
    fn raise(&mut self, block: &str) -> SignalInfo {
        let event = scan_all(block.as_bytes()).pop().expect("one block");
        self.desk.on_signal(&mut self.bench.cx, self.session.clone(), SignalChannel::Pty, event, None);
        self.desk.list(&self.bench.cx).unwrap().pop().expect("recorded")
    }

    fn respond(&mut self, signal: &SignalInfo, response: SignalResponse) -> Result<SignalInfo, EngineError> {
        self.desk.respond(&mut self.bench.cx, &signal.id, response)
    }
}

/// One response of each action that passes the form checks.
fn responses(profile: &Profile) -> Vec<SignalResponse> {
    vec![
        SignalResponse::Answer { answers: vec!["JWT".into(), "Deep".into()] },
        SignalResponse::Resolve { resolution: "installed".into() },
        SignalResponse::Retry { fix: "pinned the version".into() },
        SignalResponse::Skip,
        SignalResponse::DelegateBlocked { profile_id: profile.id.clone() },
        SignalResponse::Approve { profile_id: profile.id.clone() },
        SignalResponse::Deny { reason: "not now".into() },
        SignalResponse::Acknowledge,
        SignalResponse::Dismiss,
    ]
}

#[tokio::test]
async fn every_response_in_every_state() {
    use SignalAction::*;
    let table: [(&str, &[SignalAction]); 5] = [
        (CLARIFICATION, &[Answer, Dismiss]),
        (STOP, &[Resolve, Retry, Skip, DelegateBlocked, Dismiss]),
        (DELEGATE, &[Approve, Deny, Dismiss]),
        (COMPLETION, &[Acknowledge, Dismiss]),
        (MALFORMED, &[Dismiss]),
    ];
    for (block, allowed) in table {
        let probe = Desk::new();
        for response in responses(&probe.profile) {
            let mut desk = Desk::new();
            let response = match response {
                SignalResponse::DelegateBlocked { .. } => {
                    SignalResponse::DelegateBlocked { profile_id: desk.profile.id.clone() }
                }
                SignalResponse::Approve { .. } => SignalResponse::Approve { profile_id: desk.profile.id.clone() },
                other => other,
            };
            let signal = desk.raise(block);
            assert_eq!(signal.actions, allowed, "offered for {block}");
            let fits = allowed.contains(&response.action());
            let result = desk.respond(&signal, response.clone());
            match (fits, &result) {
                (true, Ok(handled)) => {
                    let state =
                        if response == SignalResponse::Dismiss { SignalState::Dismissed } else { SignalState::Handled };
                    assert_eq!(handled.state(), state, "{block} {response:?}");
                    assert!(handled.actions.is_empty(), "a handled signal takes nothing more");
                    // Handled: every response is refused from now on.
                    for again in responses(&desk.profile) {
                        let refused = desk.respond(&signal, again).unwrap_err();
                        assert!(
                            matches!(&refused, EngineError::SignalState { reason, .. } if reason == "it was already handled")
                        );
                    }
                }
                (false, Err(EngineError::SignalState { reason, .. })) => {
                    assert_eq!(reason, "that response does not fit this signal");
                    let still = desk.desk.list(&desk.bench.cx).unwrap().pop().unwrap();
                    assert_eq!(still.state(), SignalState::Pending, "a refused response changes nothing");
                }
                _ => panic!("{block} {response:?}: fits {fits}, got {result:?}"),
            }
        }
    }
    assert_eq!(allowed_actions(&scan_all(STOP.as_bytes())[0], SignalState::Handled), []);
}

#[tokio::test]
async fn an_answer_is_typed_into_the_agent_and_it_no_longer_waits() {
    let mut desk = Desk::new();
    let signal = desk.raise(CLARIFICATION);
    assert!(desk.bench.cx.sessions.get(&desk.session).unwrap().hooks.needs_user.contains(&signal.id));
    let missing = desk.respond(&signal, SignalResponse::Answer { answers: vec!["JWT".into(), " ".into()] });
    let missing = ApiError::from(&missing.unwrap_err());
    assert_eq!(
        (missing.code, missing.field.as_deref(), missing.message.as_str()),
        (ErrorCode::InvalidInput, Some("answers.1"), "Answer question 2: the agent waits for every answer."),
        "the refusal names the answer missing, in the user's words"
    );
    assert!(desk.bench.typed(&desk.session).is_empty(), "nothing typed for a refused answer");

    let handled = desk.respond(&signal, SignalResponse::Answer { answers: vec!["JWT".into(), "Deep".into()] }).unwrap();
    let typed = desk.bench.typed(&desk.session);
    assert_eq!(typed.len(), 1);
    assert!(typed[0].contains("JWT") && typed[0].contains("Deep"), "{}", typed[0]);
    assert_eq!(handled.reply_prompt(), Some(typed[0].as_str()));
    assert!(!typed[0].contains("[CLARIFICATION"), "typed text never carries a marker");
    assert!(desk.bench.cx.sessions.get(&desk.session).unwrap().hooks.needs_user.is_empty());
}

#[tokio::test]
async fn the_same_signal_seen_again_is_recorded_once() {
    let mut desk = Desk::new();
    desk.raise(STOP);
    let event = scan_all(format!("words around it\n{STOP}\nmore").as_bytes()).pop().unwrap();
    desk.desk.on_signal(&mut desk.bench.cx, desk.session.clone(), SignalChannel::Hook, event, None);
    assert_eq!(desk.desk.list(&desk.bench.cx).unwrap().len(), 1);
}

#[tokio::test]
async fn an_approved_delegation_starts_a_teammate_whose_report_resumes_the_requester() {
    let mut desk = Desk::new();
    let signal = desk.raise(DELEGATE);
    let handled = desk.respond(&signal, SignalResponse::Approve { profile_id: desk.profile.id.clone() }).unwrap();
    let delegate = handled.delegate_session().cloned().expect("a delegate started");
    assert!(desk.bench.cx.sessions.is_running(&delegate));
    assert!(desk.bench.typed(&delegate)[0].contains("Write the parser tests"));
    assert!(desk.bench.cx.sessions.get(&desk.session).unwrap().team.is_active(), "the delegate is a teammate");
    let told = desk.bench.typed(&desk.session);
    assert!(told[0].contains(&delegate.to_string()), "the requester hears who took the work");

    // The delegate reports: the requester is resumed with its results, the
    // team is done, and the task desk hears of the report.
    let event = scan_all(COMPLETION.as_bytes()).pop().unwrap();
    desk.desk.on_signal(&mut desk.bench.cx, delegate.clone(), SignalChannel::Pty, event, None);
    let resumed = desk.bench.typed(&desk.session);
    assert_eq!(resumed.len(), 1);
    assert!(resumed[0].contains("all pass"), "{}", resumed[0]);
    assert!(!desk.bench.cx.sessions.get(&desk.session).unwrap().team.is_active());
    let follows: Vec<_> = std::iter::from_fn(|| desk.bench.cx.next_follow()).collect();
    assert!(
        matches!(&follows[0], Follow::Report { session, report } if *session == delegate && report.status == "success")
    );
    assert!(matches!(&follows[1], Follow::TeamSettled { lead } if *lead == desk.session));

    // It reported: its end afterwards is no failure.
    let ended = desk.bench.end(&delegate, false);
    desk.desk.session_ended(&mut desk.bench.cx, &delegate, &ended);
    assert!(desk.bench.typed(&desk.session).is_empty());
}

#[tokio::test]
async fn delegations_stop_at_the_cap_on_agents() {
    let mut desk = Desk::new();
    desk.bench.start(&desk.profile.clone());
    desk.bench.start(&desk.profile.clone());
    let signal = desk.raise(DELEGATE);
    let refused = desk.respond(&signal, SignalResponse::Approve { profile_id: desk.profile.id.clone() });
    assert!(matches!(refused, Err(EngineError::TooManyAgents { running: 3 })), "{refused:?}");
    assert_eq!(desk.desk.list(&desk.bench.cx).unwrap()[0].state(), SignalState::Pending);
}

#[tokio::test]
async fn a_skipped_item_is_logged_in_the_workspace() {
    let mut desk = Desk::new();
    let signal = desk.raise(STOP);
    desk.respond(&signal, SignalResponse::Skip).unwrap();
    let log = std::fs::read_to_string(desk.bench.workspace.path().join(SKIPPED_ITEMS_FILE)).unwrap();
    assert!(log.contains("Task D"), "{log}");
}

#[tokio::test]
async fn a_reply_to_an_agent_that_exited_goes_to_a_fresh_session() {
    let mut desk = Desk::new();
    let signal = desk.raise(STOP);
    desk.bench.end(&desk.session.clone(), false);
    let refused = desk.respond(&signal, SignalResponse::Retry { fix: "  ".into() }).unwrap_err();
    assert_eq!(refused.field(), Some("fix"), "a retry says what was fixed");
    assert_eq!(
        desk.bench.cx.sessions.latest_running_of(&desk.profile.id, |_| true),
        None,
        "refused before any session starts"
    );
    desk.respond(&signal, SignalResponse::Retry { fix: "pinned the version".into() }).unwrap();
    let fresh = desk.bench.cx.sessions.latest_running_of(&desk.profile.id, |_| true).expect("a fresh session");
    assert_ne!(fresh, desk.session);
    assert_eq!(desk.bench.typed(&fresh).len(), 1);
}

#[test]
fn the_same_signal_has_the_same_identity_however_it_was_laid_out() {
    let pty = scan_all(b"[DELEGATE_WORK]\r\n  new_task_description: tests\r\n  coordination: none\r\n[/DELEGATE_WORK]");
    let hook =
        scan_all(b"text before\n[DELEGATE_WORK]\nnew_task_description: tests\ncoordination: none\n[/DELEGATE_WORK]\n");
    assert_eq!(identity(&pty[0]), identity(&hook[0]));
    let other = scan_all(b"[DELEGATE_WORK]\nnew_task_description: docs\n[/DELEGATE_WORK]");
    assert_ne!(identity(&pty[0]), identity(&other[0]));
}

#[test]
fn completion_deliverables_are_checked_inside_the_workspace() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::create_dir(root.join("src")).unwrap();
    std::fs::write(root.join("src/a.rs"), "").unwrap();
    let cases = [
        ("src/a.rs", None),
        ("src/", None),
        ("src/missing.rs", Some("does not exist")),
        ("../x", Some("`..` is not allowed in a deliverable path")),
    ];
    for (path, problem) in cases {
        assert_eq!(check_deliverable(Some(&root), path).problem.as_deref(), problem, "{path}");
    }
    assert!(check_deliverable(None, "a").problem.is_some());
}

#[test]
fn past_the_pending_limit_signals_are_set_aside_with_one_notice_per_flood() {
    for (pending, told, expected) in [
        (0, false, Admit::Raise),
        (MAX_PENDING_SIGNALS - 1, false, Admit::Raise),
        (MAX_PENDING_SIGNALS, false, Admit::SetAside { notify: true }),
        (MAX_PENDING_SIGNALS, true, Admit::SetAside { notify: false }),
        (MAX_PENDING_SIGNALS + 500, true, Admit::SetAside { notify: false }),
        // Answered below the limit: raised again, and the flag is cleared.
        (MAX_PENDING_SIGNALS - 1, true, Admit::Raise),
    ] {
        assert_eq!(admit(pending, told), expected, "pending {pending}, told {told}");
    }
}

#[tokio::test]
async fn a_flooding_agent_gets_twenty_dialogs_one_notice_and_the_rest_in_its_log() {
    let mut desk = Desk::new();
    let question = |n: usize| {
        format!(
            "[CLARIFICATION_NEEDED]\nblocked_at: \"step {n}\"\nquestions:\n  - \"Which one, {n}?\"\n[/CLARIFICATION_NEEDED]"
        )
    };
    // Before: each of 2,000 became a pending dialog (and a notification).
    for n in 0..MAX_PENDING_SIGNALS + 30 {
        desk.raise(&question(n));
    }
    let pending =
        |desk: &Desk| desk.desk.list(&desk.bench.cx).unwrap().into_iter().filter(|s| s.state() == SignalState::Pending);
    assert_eq!(pending(&desk).count(), MAX_PENDING_SIGNALS);
    let floods: Vec<_> =
        desk.bench.events().into_iter().filter(|e| matches!(e, EngineEvent::SignalsFlooding { .. })).collect();
    let oldest = pending(&desk).next().unwrap().id;
    assert_eq!(
        floods,
        [EngineEvent::SignalsFlooding {
            session_id: desk.session.clone(),
            profile_id: desk.profile.id.clone(),
            limit: MAX_PENDING_SIGNALS as u32,
            oldest_pending: Some(oldest),
        }],
        "one notice for the flood"
    );
    let log = desk.bench.cx.store.list_events(Some(&desk.session)).unwrap();
    let set_aside = log.iter().filter(|e| matches!(e.kind, LogKind::SignalSetAside { .. })).count();
    assert_eq!(set_aside, 30, "nothing lost: each one set aside is in the agent's log");

    // Answering one makes room: the next is a dialog again; a new flood notifies again.
    let first = pending(&desk).next().unwrap();
    desk.respond(&first, SignalResponse::Dismiss).unwrap();
    desk.raise(&question(1000));
    assert_eq!(pending(&desk).count(), MAX_PENDING_SIGNALS);
    desk.raise(&question(1001));
    let floods = desk.bench.events().into_iter().filter(|e| matches!(e, EngineEvent::SignalsFlooding { .. })).count();
    assert_eq!(floods, 1, "a second flood, a second notice");
}

#[tokio::test]
async fn a_delegate_that_ends_without_reporting_wakes_its_requester_with_a_failure() {
    let mut desk = Desk::new();
    let signal = desk.raise(DELEGATE);
    let handled = desk.respond(&signal, SignalResponse::Approve { profile_id: desk.profile.id.clone() }).unwrap();
    let delegate = handled.delegate_session().cloned().expect("a delegate started");
    desk.bench.typed(&desk.session);

    // Before: the requester was left waiting for results that never came.
    let ended = desk.bench.end(&delegate, false);
    desk.desk.session_ended(&mut desk.bench.cx, &delegate, &ended);
    let told = desk.bench.typed(&desk.session);
    assert_eq!(told.len(), 1);
    assert!(
        told[0].starts_with(&format!(
            "DELEGATED WORK FAILED\nAgent {delegate} ended without a completion report: it exited (code 3)"
        )),
        "{}",
        told[0]
    );

    // Once only; and a delegate that reported first does not fail afterwards.
    desk.desk.session_ended(&mut desk.bench.cx, &delegate, &ended);
    assert!(desk.bench.typed(&desk.session).is_empty());
}

#[tokio::test]
async fn a_signal_is_found_by_what_the_agent_wrote_in_it_not_by_its_field_names() {
    let mut desk = Desk::new();
    let raised = desk.raise(CLARIFICATION);
    let search = |text: &str| {
        let query = crate::search::Query::parse(text).unwrap().unwrap();
        let (tasks, signals) = desk.bench.cx.store.search_candidates(&query.like_patterns(), 50, 0).unwrap();
        crate::search::hits(&query, &tasks, &signals)
    };
    let found = search("oauth2 DEEP");
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(
        found[0].found,
        crate::search::Found::Signal {
            signal_id: raised.id.clone(),
            kind: switchboard_protocol::signal::SignalKind::Clarification,
            pending: true
        }
    );
    assert!(found[0].snippet.starts_with("OAuth2 or JWT?"), "{}", found[0].snippet);
    assert!(search("blocked_at").is_empty(), "a field's name is not what the agent wrote");
}
