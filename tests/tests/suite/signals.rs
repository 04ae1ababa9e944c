//! The signal protocols end to end with real agents: a signal printed by the
//! agent (or delivered as its hook text) is recorded once and survives a
//! restart; the user's answer or decision is typed back into the agent, which
//! goes on.

use crate::support;

use std::path::Path;

use support::*;
use switchboard_core::signal::{ScanEvent, SignalBody, SignalKind};
use switchboard_core::{
    DelegationState, DiagramId, DiagramSilence, EngineEvent, ErrorCode, FlowTarget, LogKind, Profile, ProfileSpec,
    SessionId, SignalRecord, SignalResponse, SignalState, TaskSpec, TaskState,
};

impl TestEngine {
    /// The demo agent running `scenario` (TOML text), ready at `agent> `.
    async fn scenario_profile(&self, name: &str, scenario: &str) -> Profile {
        let path = self.data_dir.join(format!("{name}.toml"));
        std::fs::write(&path, format!("prompt = \"agent> \"\n{scenario}")).unwrap();
        let spec = ProfileSpec {
            ready_pattern: Some("agent> $".into()),
            ready_quiet_ms: 50,
            ..self.spec(name, DEMO_AGENT, &["--speed", "fast", "--scenario", path.to_str().unwrap()])
        };
        self.engine.create_profile(spec).await.unwrap()
    }

    /// Waits for a signal of `kind` in this state.
    async fn signal(&self, kind: SignalKind, state: SignalState) -> SignalRecord {
        self.events
            .wait_for(&format!("a {kind:?} signal, {state:?}"), |events| {
                events.iter().rev().find_map(|event| match event {
                    EngineEvent::SignalChanged { signal } if kind_of(signal) == kind && signal.state == state => {
                        Some(signal.clone())
                    }
                    _ => None,
                })
            })
            .await
    }
}

fn kind_of(signal: &SignalRecord) -> SignalKind {
    match &signal.scan {
        ScanEvent::Signal { signal } => signal.body.kind(),
        ScanEvent::Malformed { kind, .. } => *kind,
    }
}

fn signals_of(events: &[EngineEvent]) -> usize {
    let mut ids: Vec<_> = events
        .iter()
        .filter_map(|e| match e {
            EngineEvent::SignalChanged { signal } => Some(signal.id.clone()),
            _ => None,
        })
        .collect();
    ids.sort();
    ids.dedup();
    ids.len()
}

const CLARIFY_THEN_DELIVER: &str = r#"
[[tasks]]
steps = [{ say = "Reading" }, { signal = "clarification" }]
[[tasks]]
steps = [{ write_file = { path = "out/result.txt", content = "42\n" } }, { summary = "completed" }]
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_clarification_is_answered_and_the_agent_finishes_its_task() {
    let t = TestEngine::start().await;
    let profile = t.scenario_profile("asker", CLARIFY_THEN_DELIVER).await;
    let task = t.engine.submit_task(TaskSpec::new(profile.id.clone(), "Review the auth module")).await.unwrap().task;

    let asked = t.signal(SignalKind::Clarification, SignalState::Pending).await;
    assert_eq!(asked.task_id.as_ref(), Some(&task.id));
    let ScanEvent::Signal { signal } = &asked.scan else { panic!("{asked:?}") };
    let SignalBody::Clarification { questions, .. } = &signal.body else { panic!() };
    assert_eq!(questions.len(), 2);

    // Every question needs an answer.
    let error = t
        .engine
        .respond_to_signal(asked.id.clone(), SignalResponse::Answer { answers: vec!["Both".into()] })
        .await
        .unwrap_err();
    assert_eq!(error.field(), Some("answers"));

    let answered = t
        .engine
        .respond_to_signal(
            asked.id.clone(),
            SignalResponse::Answer { answers: vec!["Both strategies".into(), "Deep dive".into()] },
        )
        .await
        .unwrap();
    assert_eq!(answered.state, SignalState::Handled);
    let prompt = answered.reply_prompt.as_deref().unwrap();
    assert!(prompt.starts_with("CLARIFICATION RESPONSE\nQ1: Analyze OAuth2, JWT, or both?\nA1: Both strategies\n"));
    assert!(prompt.contains(&format!("summaries/{}.md", task.id)), "{prompt}");

    // The agent reads the answers and finishes the task it was given.
    let session = asked.session_id.clone();
    t.wait_for_screen(&session, "received: CLARIFICATION RESPONSE").await;
    let done = t
        .events
        .wait_for("the task to complete", |events| {
            events.iter().find_map(|e| match e {
                EngineEvent::TaskChanged { task: done } if done.id == task.id && done.state.is_finished() => {
                    Some(done.clone())
                }
                _ => None,
            })
        })
        .await;
    assert_eq!(done.state, TaskState::Completed);
    assert!(std::fs::read_to_string(t.workspace.join("out/result.txt")).unwrap().contains("42"));

    // Answered once: a second answer is refused.
    let again = t.engine.respond_to_signal(asked.id.clone(), SignalResponse::Dismiss).await.unwrap_err();
    assert_eq!(again.code(), ErrorCode::SignalState);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hook_text_is_scanned_and_a_signal_seen_on_two_channels_is_handled_once() {
    let t = TestEngine::start().await;
    let profile = t.scenario_profile("printer", "[[tasks]]\nsteps = [{ raw = \"[DELEGATE_WORK]\\nnew_task_description: Write the tests\\ncoordination: tests/\\n[/DELEGATE_WORK]\" }]\n").await;
    let (session, output) = t.start_session(&profile).await;
    output.wait_for_text("agent> ").await;
    t.engine.write_input(session.id.clone(), "go\r".into()).await.unwrap();
    t.signal(SignalKind::Delegate, SignalState::Pending).await;
    // The same block, as the agent's hook would deliver its words.
    t.engine
        .agent_text(session.id.clone(), "I need help.\n\n[DELEGATE_WORK]\nnew_task_description: Write the tests\ncoordination: tests/\n[/DELEGATE_WORK]\n".into())
        .await
        .unwrap();
    // A recorded Claude Code Stop payload's text: a different signal.
    let recorded = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/agents/cc-hooks-write-signal.jsonl"),
    )
    .unwrap();
    let stop: serde_json::Value = recorded
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|e| e["stdin"]["hook_event_name"] == "Stop")
        .unwrap();
    let text = stop["stdin"]["last_assistant_message"].as_str().unwrap().to_owned();
    t.engine.agent_text(session.id.clone(), text).await.unwrap();
    let asked = t.signal(SignalKind::Clarification, SignalState::Pending).await;
    assert_eq!(asked.channel, switchboard_core::SignalChannel::Hook);

    let listed = t.engine.list_signals().await.unwrap();
    assert_eq!(listed.len(), 2, "{listed:#?}");
    assert_eq!(signals_of(&t.events_now().await), 2);

    // Text for a session that does not exist is refused clearly.
    let error = t.engine.agent_text(SessionId::new(), "[STOP_WORK]\n[/STOP_WORK]".into()).await.unwrap_err();
    assert_eq!(error.code(), ErrorCode::SessionNotFound);
    t.engine.stop_session(session.id).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_blocker_is_skipped_logged_and_resumed_and_pending_signals_survive_a_restart() {
    let temp = tempfile::tempdir().unwrap();
    let session_id;
    {
        let t = TestEngine::start_in(temp.path(), |_| {}).await;
        let profile = t.scenario_profile("blocked", "[[tasks]]\nsteps = [{ signal = \"stop-work\" }]\n").await;
        let (session, output) = t.start_session(&profile).await;
        output.wait_for_text("agent> ").await;
        t.engine.write_input(session.id.clone(), "migrate\r".into()).await.unwrap();
        t.signal(SignalKind::StopWork, SignalState::Pending).await;
        session_id = session.id.clone();
        t.shutdown().await;
    }
    // After a restart the blocker is still pending; the agent is gone, so
    // the reply goes to a fresh session of its profile.
    let t = TestEngine::start_in(temp.path(), |_| {}).await;
    let pending = t.engine.list_signals().await.unwrap();
    assert_eq!(pending.len(), 1);
    assert_eq!(pending[0].state, SignalState::Pending);
    assert_eq!(pending[0].session_id, session_id);

    let handled = t.engine.respond_to_signal(pending[0].id.clone(), SignalResponse::Skip).await.unwrap();
    let prompt = handled.reply_prompt.as_deref().unwrap();
    assert!(prompt.starts_with("SKIP ITEM\nSkip: Phase 3: migrations"), "{prompt}");
    assert!(prompt.contains("STATE RESTORATION\nPhases 1-2 done; checkpoint at step 3"), "{prompt}");
    let log = std::fs::read_to_string(t.workspace.join(switchboard_core::SKIPPED_ITEMS_FILE)).unwrap();
    assert!(
        log.contains("Phase 3: migrations: missing_dependency: The database credentials are not available"),
        "{log}"
    );

    let sessions = t.engine.list_sessions().await.unwrap();
    let fresh = sessions.iter().find(|s| s.state.is_running()).expect("a fresh session");
    assert_ne!(fresh.id, session_id);
    t.wait_for_screen(&fresh.id, "received: SKIP ITEM").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_approved_delegation_starts_an_agent_and_its_report_resumes_the_waiting_requester() {
    let t = TestEngine::start().await;
    // The requester asks to delegate work that blocks its own.
    let requester = t
        .scenario_profile(
            "lead",
            "[[tasks]]\nsteps = [{ raw = \"[DELEGATE_WORK]\\nnew_task_description: Write the parser tests\\nindependence: blocks_current_work\\ncoordination: put them in tests/parser.rs\\n[/DELEGATE_WORK]\" }]\n",
        )
        .await;
    // The helper reports completion for whatever it is given.
    let helper = t
        .scenario_profile(
            "helper",
            "[[tasks]]\nsteps = [{ write_file = { path = \"tests/parser.rs\", content = \"// tests\" } }, { raw = \"[COMPLETION_REPORT]\\nstatus: success\\ndeliverables:\\n  - tests/parser.rs\\n  - missing.rs\\nmetrics_achieved: 12 tests\\n[/COMPLETION_REPORT]\" }]\n",
        )
        .await;
    let (lead, output) = t.start_session(&requester).await;
    output.wait_for_text("agent> ").await;
    t.engine.write_input(lead.id.clone(), "plan\r".into()).await.unwrap();
    let request = t.signal(SignalKind::Delegate, SignalState::Pending).await;

    // Denying needs a reason; the cap on agents is enforced.
    let error =
        t.engine.respond_to_signal(request.id.clone(), SignalResponse::Deny { reason: " ".into() }).await.unwrap_err();
    assert_eq!(error.field(), Some("reason"));

    let approved = t
        .engine
        .respond_to_signal(request.id.clone(), SignalResponse::Approve { profile_id: helper.id.clone() })
        .await
        .unwrap();
    let delegate = approved.delegate_session.as_ref().cloned().expect("a delegate session");
    assert!(
        approved.reply_prompt.as_deref().unwrap().starts_with(&format!("DELEGATION APPROVED\nNew agent: {delegate}"))
    );
    t.wait_for_screen(&lead.id, "received: DELEGATION APPROVED").await;
    t.wait_for_screen(&delegate, "received: DELEGATED WORK").await;

    // The delegate's report: deliverables checked, and the requester resumed with its results.
    let report = t.signal(SignalKind::Completion, SignalState::Pending).await;
    assert_eq!(report.session_id, delegate);
    let checks: Vec<_> = report.deliverables.iter().map(|d| (d.path.as_str(), d.problem.is_none())).collect();
    assert_eq!(checks, [("tests/parser.rs", true), ("missing.rs", false)], "{report:#?}");
    t.wait_for_screen(&lead.id, "received: DELEGATED WORK COMPLETE").await;
    let acknowledged = t.engine.respond_to_signal(report.id.clone(), SignalResponse::Acknowledge).await.unwrap();
    assert_eq!(acknowledged.state, SignalState::Handled);
    assert!(acknowledged.reply_prompt.as_deref().is_none(), "nothing is typed for an acknowledgement");
    // The echoed reply prompts raised no signals of their own.
    let all = t.engine.list_signals().await.unwrap();
    let kinds: Vec<_> = all.iter().map(|s| (kind_of(s), matches!(s.scan, ScanEvent::Malformed { .. }))).collect();
    assert_eq!(kinds, [(SignalKind::Delegate, false), (SignalKind::Completion, false)], "{all:#?}");
    // Its work done, the delegate ends, freeing its place among the agents.
    t.wait_for_end(&delegate).await;
    let delegations = t.engine.list_delegations().await.unwrap();
    assert_eq!(delegations.len(), 1);
    assert_eq!((&delegations[0].requester_session, &delegations[0].request), (&lead.id, &request.id));
    assert!(
        matches!(&delegations[0].state, DelegationState::Reported { status, .. } if status == "success"),
        "{delegations:#?}"
    );
    assert!(t.engine.list_sessions().await.unwrap().iter().find(|s| s.id == lead.id).unwrap().state.is_running());
}

/// A lead that delegates work blocking its own, and a helper that takes
/// `helper_steps` for whatever it is given.
async fn delegation_pair(t: &TestEngine, helper_steps: &str) -> (Profile, Profile) {
    let lead = t
        .scenario_profile(
            "lead",
            "[[tasks]]\nsteps = [{ raw = \"[DELEGATE_WORK]\\nnew_task_description: Write the parser tests\\nindependence: blocks_current_work\\ncoordination: tests/parser.rs\\n[/DELEGATE_WORK]\" }]\n",
        )
        .await;
    let helper = t.scenario_profile("helper", &format!("[[tasks]]\nsteps = {helper_steps}\n")).await;
    (lead, helper)
}

/// Starts the lead, has it ask to delegate, and approves with `helper`.
async fn delegate_to(t: &TestEngine, lead: &Profile, helper: &Profile) -> (SessionId, SessionId) {
    let (session, output) = t.start_session(lead).await;
    output.wait_for_text("agent> ").await;
    t.engine.write_input(session.id.clone(), "plan\r".into()).await.unwrap();
    let request = t.signal(SignalKind::Delegate, SignalState::Pending).await;
    let approved = t
        .engine
        .respond_to_signal(request.id.clone(), SignalResponse::Approve { profile_id: helper.id.clone() })
        .await
        .unwrap();
    (session.id, approved.delegate_session.as_ref().cloned().expect("a delegate session"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_kept_delegate_runs_on_after_its_report_until_it_is_let_go() {
    let t = TestEngine::start().await;
    let (lead, helper) = delegation_pair(
        &t,
        "[{ sleep_ms = 300 }, { raw = \"[COMPLETION_REPORT]\\nstatus: success\\n[/COMPLETION_REPORT]\" }]",
    )
    .await;
    let (lead, delegate) = delegate_to(&t, &lead, &helper).await;
    let kept = t.engine.keep_delegate(delegate.clone(), true).await.unwrap();
    assert!(kept.keep);
    let error = t.engine.keep_delegate(lead.clone(), true).await.unwrap_err();
    assert_eq!(error.field(), Some("session_id"), "the lead is no delegate: {error}");

    t.wait_for_screen(&lead, "received: DELEGATED WORK COMPLETE").await;
    let sessions = t.engine.list_sessions().await.unwrap();
    assert!(sessions.iter().find(|s| s.id == delegate).unwrap().state.is_running(), "kept, it runs on");
    // Let go after its report: it ends at once.
    t.engine.keep_delegate(delegate.clone(), false).await.unwrap();
    t.wait_for_end(&delegate).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_for_the_delegates_agent_does_not_interrupt_the_delegated_work() {
    let t = TestEngine::start().await;
    let (lead, helper) = delegation_pair(&t, "[{ sleep_ms = 60000 }]").await;
    let (_, delegate) = delegate_to(&t, &lead, &helper).await;
    t.wait_for_screen(&delegate, "received: DELEGATED WORK").await;
    // Before, the queue typed it into the delegate, the latest session of its agent.
    let task = t.engine.submit_task(TaskSpec::new(helper.id.clone(), "Tidy the fixtures")).await.unwrap().task;
    let worker = t.session_of_task(&task.id).await;
    assert_ne!(worker, delegate, "the task gets a session of its own");
    t.wait_for_screen(&worker, "Tidy the fixtures").await;
    assert!(!t.screen(&delegate).await.contains("Tidy the fixtures"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_a_restart_a_requester_left_waiting_is_told_its_delegate_is_gone() {
    let temp = tempfile::tempdir().unwrap();
    let (lead_profile, lead_session, delegate);
    {
        let t = TestEngine::start_in(temp.path(), |_| {}).await;
        let (lead, helper) = delegation_pair(&t, "[{ sleep_ms = 60000 }]").await;
        (lead_session, delegate) = delegate_to(&t, &lead, &helper).await;
        t.wait_for_screen(&delegate, "received: DELEGATED WORK").await;
        lead_profile = lead;
        // Quitting with the delegate at work: no failure is sent on the way out.
        t.shutdown().await;
        let delegations = t.engine.list_delegations().await;
        assert!(delegations.is_err(), "the engine stopped");
    }
    let t = TestEngine::start_in(temp.path(), |_| {}).await;
    // The requester's agent is gone too: the news goes to a new session of it.
    let woken = t
        .session_where("a new session of the lead", |session| {
            session.profile_id == lead_profile.id && session.id != lead_session
        })
        .await
        .id;
    let screen = t.wait_for_screen(&woken, "received: DELEGATED WORK FAILED").await;
    assert!(screen.contains("app stopped before it reported"), "{screen}");
    let delegations = t.engine.list_delegations().await.unwrap();
    assert!(
        matches!(&delegations[..], [d] if d.delegate_session == delegate && matches!(d.state, DelegationState::Failed { .. })),
        "{delegations:#?}"
    );
    // Told once: a second restart wakes nobody.
    t.shutdown().await;
    let t = TestEngine::start_in(temp.path(), |_| {}).await;
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    let running = t.engine.list_sessions().await.unwrap().into_iter().filter(|s| s.state.is_running()).count();
    assert_eq!(running, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn delegation_is_refused_past_the_cap_on_agents() {
    let t = TestEngine::start_with(|config| config.max_agents = 1).await;
    let profile = t.scenario_profile("lead", "[[tasks]]\nsteps = [{ signal = \"delegate\" }]\n").await;
    let (session, output) = t.start_session(&profile).await;
    output.wait_for_text("agent> ").await;
    t.engine.write_input(session.id.clone(), "go\r".into()).await.unwrap();
    let request = t.signal(SignalKind::Delegate, SignalState::Pending).await;
    let error = t
        .engine
        .respond_to_signal(request.id.clone(), SignalResponse::Approve { profile_id: profile.id.clone() })
        .await
        .unwrap_err();
    assert_eq!(error.code(), ErrorCode::TooManyAgents);
    // Still pending: the user can deny it instead.
    let denied = t
        .engine
        .respond_to_signal(request.id.clone(), SignalResponse::Deny { reason: "not now".into() })
        .await
        .unwrap();
    assert!(denied.reply_prompt.as_deref().unwrap().starts_with("DELEGATION DENIED\nReason: not now"));
    t.wait_for_screen(&session.id, "received: DELEGATION DENIED").await;
    t.engine.stop_session(session.id).await.unwrap();
}

/// An agent with this completion rule, running `scenario`.
async fn rule_profile(t: &TestEngine, name: &str, rule: switchboard_core::CompletionRule, scenario: &str) -> Profile {
    let path = t.data_dir.join(format!("{name}.toml"));
    std::fs::write(&path, format!("prompt = \"agent> \"\n{scenario}")).unwrap();
    let spec = ProfileSpec {
        ready_pattern: Some("agent> $".into()),
        ready_quiet_ms: 50,
        completion: rule,
        ..t.spec(name, DEMO_AGENT, &["--speed", "fast", "--scenario", path.to_str().unwrap()])
    };
    t.engine.create_profile(spec).await.unwrap()
}

async fn finished_task(t: &TestEngine, id: &switchboard_core::TaskId) -> switchboard_core::TaskRecord {
    t.events
        .wait_for("the task to finish", |events| {
            events.iter().find_map(|e| match e {
                EngineEvent::TaskChanged { task } if &task.id == id && task.state.is_finished() => Some(task.clone()),
                _ => None,
            })
        })
        .await
}

const REPORT: &str = "{ raw = \"[COMPLETION_REPORT]\\nstatus: STATUS\\ndeliverables:\\n  - out/notes.md\\nmetrics_achieved: 3 of 3 checks\\nrecommendations:\\n  - Review the notes\\n[/COMPLETION_REPORT]\" }";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_report_completes_the_task_of_an_agent_that_writes_no_summary() {
    let t = TestEngine::start().await;
    let steps = format!(
        "[[tasks]]\nsteps = [{{ write_file = {{ path = \"out/notes.md\", content = \"notes\" }} }}, {}]\n",
        REPORT.replace("STATUS", "success")
    );
    let profile = rule_profile(&t, "reporter", switchboard_core::CompletionRule::Report, &steps).await;
    let task = t.engine.submit_task(TaskSpec::new(profile.id.clone(), "Take notes")).await.unwrap().task;
    let done = finished_task(&t, &task.id).await;
    assert_eq!(done.state, TaskState::Completed, "{done:?}");
    let result = done.result.as_ref().unwrap();
    assert!(!result.fallback);
    assert_eq!(result.summary.objective, "Take notes");
    assert_eq!(result.artifacts.iter().map(|a| a.path.as_str()).collect::<Vec<_>>()[1..], ["out/notes.md"]);
    assert_eq!(result.artifacts[1].content, "notes");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_both_required_the_task_waits_for_both_and_fails_when_they_disagree() {
    let t = TestEngine::start().await;
    // Task 1: summary (completed) and an agreeing report; task 2: a summary
    // saying completed and a report saying failed.
    let scenario = format!(
        "[[tasks]]\nsteps = [{{ summary = \"completed\" }}, {{ sleep_ms = 300 }}, {agree}]\n[[tasks]]\nsteps = [{{ summary = \"completed\" }}, {disagree}]\n",
        agree = REPORT.replace("STATUS", "success"),
        disagree = REPORT.replace("STATUS", "failed"),
    );
    let profile = rule_profile(&t, "careful", switchboard_core::CompletionRule::Both, &scenario).await;
    let first = t.engine.submit_task(TaskSpec::new(profile.id.clone(), "First")).await.unwrap().task;
    let second = t.engine.submit_task(TaskSpec::new(profile.id.clone(), "Second")).await.unwrap().task;

    let done = finished_task(&t, &first.id).await;
    assert_eq!(done.state, TaskState::Completed, "{done:?}");
    // It did not complete on the summary alone: the report came 300 ms later.
    let summary_written =
        std::fs::metadata(t.workspace.join(format!("summaries/{}.md", first.id))).unwrap().modified().unwrap();
    let written_ms = summary_written.duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as i64;
    assert!(done.ended_at.unwrap() >= written_ms + 250, "ended {} vs summary {written_ms}", done.ended_at.unwrap());

    let failed = finished_task(&t, &second.id).await;
    assert_eq!(failed.state, TaskState::Failed);
    assert_eq!(failed.reason.as_deref(), Some("the summary says COMPLETED but the completion report says failed"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn parallel_agents_results_are_merged_with_their_shared_findings() {
    let t = TestEngine::start().await;
    std::fs::write(
        t.workspace.join("SHARED_FINDINGS.jsonl"),
        "{\"agent\":\"lead\",\"finding\":\"auth uses JWT\"}\nthis line is not JSON\n{\"agent\":\"helper\",\"finding\":\"no rate limit\"}\n",
    )
    .unwrap();
    let report = |status: &str| {
        format!(
            "{{ raw = \"[COMPLETION_REPORT]\\nstatus: {status}\\ndeliverables:\\n  - SHARED_FINDINGS.jsonl\\nmetrics_achieved: {status} metrics\\n[/COMPLETION_REPORT]\" }}"
        )
    };
    let lead = t
        .scenario_profile(
            "lead",
            &format!(
                "[[tasks]]\nsteps = [{{ raw = \"[DELEGATE_WORK]\\nnew_task_description: Audit the API\\nindependence: can_proceed_parallel\\ncoordination: append to SHARED_FINDINGS.jsonl\\n[/DELEGATE_WORK]\" }}]\n[[tasks]]\nsteps = [{{ sleep_ms = 200 }}, {}]\n",
                report("success")
            ),
        )
        .await;
    let helper = t.scenario_profile("helper", &format!("[[tasks]]\nsteps = [{}]\n", report("partial"))).await;
    let (session, output) = t.start_session(&lead).await;
    output.wait_for_text("agent> ").await;
    t.engine.write_input(session.id.clone(), "audit\r".into()).await.unwrap();
    let request = t.signal(SignalKind::Delegate, SignalState::Pending).await;
    let approved = t
        .engine
        .respond_to_signal(request.id.clone(), SignalResponse::Approve { profile_id: helper.id.clone() })
        .await
        .unwrap();
    let delegate = approved.delegate_session.as_ref().cloned().unwrap();

    let merged = t
        .events
        .wait_for("the merged result", |events| {
            events.iter().find_map(|e| match e {
                EngineEvent::SignalChanged { signal } => signal.merged.clone().map(|m| (signal.session_id.clone(), m)),
                _ => None,
            })
        })
        .await;
    assert_eq!(merged.0, session.id, "the merged result sits on the requester's report");
    let members: Vec<_> =
        merged.1.members.iter().map(|m| (m.session_id.clone(), m.requester, m.status.clone())).collect();
    assert_eq!(members, [(session.id.clone(), true, "success".into()), (delegate, false, "partial".into())]);
    assert_eq!(merged.1.findings.len(), 2);
    assert_eq!(merged.1.findings[1]["finding"], "no rate limit");
    assert_eq!(merged.1.malformed_findings.iter().map(|m| m.line).collect::<Vec<_>>(), [2]);
    t.engine.stop_session(session.id).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_blocker_resolved_or_delegated_resumes_the_agent_with_its_checkpoint() {
    let t = TestEngine::start().await;
    let blocked = "[[tasks]]\nsteps = [{ signal = \"stop-work\" }]\n";
    let first = t.scenario_profile("first", blocked).await;
    let second = t.scenario_profile("second", blocked).await;
    let helper = t.scenario_profile("helper", "[[tasks]]\nsteps = [{ say = \"On it\" }]\n").await;

    // Resolved: the agent is told how, with its state restored.
    let (one, output) = t.start_session(&first).await;
    output.wait_for_text("agent> ").await;
    t.engine.write_input(one.id.clone(), "migrate\r".into()).await.unwrap();
    let blocker = t.signal(SignalKind::StopWork, SignalState::Pending).await;
    let error = t
        .engine
        .respond_to_signal(blocker.id.clone(), SignalResponse::Resolve { resolution: "  ".into() })
        .await
        .unwrap_err();
    assert_eq!(error.field(), Some("resolution"));
    let resolved = t
        .engine
        .respond_to_signal(blocker.id.clone(), SignalResponse::Resolve { resolution: "DATABASE_URL is set".into() })
        .await
        .unwrap();
    let prompt = resolved.reply_prompt.as_deref().unwrap();
    assert!(prompt.starts_with("BLOCKER RESOLVED\nIssue: missing_dependency: The database credentials are not available\nResolution: DATABASE_URL is set"), "{prompt}");
    assert!(prompt.contains("STATE RESTORATION\nPhases 1-2 done; checkpoint at step 3\n\nRESUME INSTRUCTIONS\nContinue with: Phase 3: migrations"), "{prompt}");
    t.wait_for_screen(&one.id, "received: BLOCKER RESOLVED").await;

    // Delegated: a new agent takes the blocked part, the first goes on with the rest.
    let (two, output) = t.start_session(&second).await;
    output.wait_for_text("agent> ").await;
    t.engine.write_input(two.id.clone(), "migrate\r".into()).await.unwrap();
    let blocker = t
        .events
        .wait_for("the second blocker", |events| {
            events.iter().find_map(|e| match e {
                EngineEvent::SignalChanged { signal } if signal.session_id == two.id => Some(signal.clone()),
                _ => None,
            })
        })
        .await;
    let delegated = t
        .engine
        .respond_to_signal(blocker.id.clone(), SignalResponse::DelegateBlocked { profile_id: helper.id.clone() })
        .await
        .unwrap();
    let taker = delegated.delegate_session.as_ref().cloned().unwrap();
    assert!(delegated.reply_prompt.as_deref().unwrap().starts_with(&format!(
        "PARTIAL RESUME\nThe blocked part (Phase 3: migrations) was delegated to agent {taker}"
    )));
    let screen = t.wait_for_screen(&taker, "received: DELEGATED WORK").await;
    assert!(screen.contains("Phase 3: migrations"), "{screen}");
    t.wait_for_screen(&two.id, "received: PARTIAL RESUME").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lead_task_completes_only_after_both_delegated_teammates() {
    let t = TestEngine::start().await;
    let delegate = |what: &str| {
        format!(
            "{{ raw = \"[DELEGATE_WORK]\\nnew_task_description: {what}\\nindependence: can_proceed_parallel\\n[/DELEGATE_WORK]\" }}"
        )
    };
    let lead = t
        .scenario_profile(
            "lead",
            &format!(
                "[[tasks]]\nsteps = [{}, {}, {{ sleep_ms = 1500 }}, {{ summary = \"completed\" }}]\n[[tasks]]\nsteps = [{{ say = \"noted\" }}]\n",
                delegate("Write the tests"),
                delegate("Write the docs")
            ),
        )
        .await;
    let helper = t
        .scenario_profile(
            "helper",
            "[[tasks]]\nsteps = [{ sleep_ms = 2500 }, { raw = \"[COMPLETION_REPORT]\\nstatus: success\\n[/COMPLETION_REPORT]\" }]\n",
        )
        .await;
    let task = t.engine.submit_task(TaskSpec::new(lead.id.clone(), "Ship the parser")).await.unwrap().task;
    let mut requests = Vec::new();
    while requests.len() < 2 {
        let pending: Vec<SignalRecord> = t
            .engine
            .list_signals()
            .await
            .unwrap()
            .into_iter()
            .filter(|s| kind_of(s) == SignalKind::Delegate && s.state == SignalState::Pending)
            .collect();
        requests = pending;
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    for request in &requests {
        t.engine
            .respond_to_signal(request.id.clone(), SignalResponse::Approve { profile_id: helper.id.clone() })
            .await
            .unwrap();
    }
    // The lead writes its summary while both teammates still work: held.
    let summary = t.workspace.join(format!("summaries/{}.md", task.id));
    wait_until("the lead's summary", || summary.exists()).await;
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    assert_eq!(t.engine.get_task(task.id.clone()).await.unwrap().state, TaskState::Running, "held for the team");

    let done = finished_task(&t, &task.id).await;
    assert_eq!(done.state, TaskState::Completed);
    let reports: Vec<i64> = t
        .engine
        .list_signals()
        .await
        .unwrap()
        .iter()
        .filter(|s| kind_of(s) == SignalKind::Completion)
        .map(|s| s.created_at)
        .collect();
    assert_eq!(reports.len(), 2);
    assert!(reports.iter().all(|at| *at <= done.ended_at.unwrap()), "completed after both teammates reported");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_points_its_agent_to_the_protocols_with_its_goals_and_criteria_unless_turned_off() {
    use switchboard_core::signal::teach::{PROTOCOL_FILE, pointer, protocol_text};
    let t = TestEngine::start().await;
    let taught = t.scenario_profile("taught", "[[tasks]]\nsteps = [{ sleep_ms = 60000 }]\n").await;
    let spec = TaskSpec {
        goals: Some("Users can paste YAML".into()),
        success_criteria: Some("the parser tests pass".into()),
        ..TaskSpec::new(taught.id.clone(), "Fix the parser")
    };
    let task = t.engine.submit_task(spec).await.unwrap().task;
    let session = t.session_of_task(&task.id).await;
    let screen = t.wait_for_screen(&session, "Success criteria: the parser tests pass").await;
    assert!(screen.contains("Goals: Users can paste YAML"), "{screen}");
    // The typed line, as the terminal wraps it: where the protocols are and the agent's id.
    let typed = pointer(&session.to_string());
    let unwrapped = screen.replace('\n', "");
    assert!(unwrapped.contains(&typed), "{screen}");
    let file = std::fs::read_to_string(t.workspace.join(PROTOCOL_FILE)).unwrap();
    assert_eq!(file, protocol_text(None));
    t.engine.cancel_task(task.id.clone()).await.unwrap();

    // Turned off for another agent: its task says nothing of them.
    let spec =
        ProfileSpec { signal_protocols: false, ..t.spec("plain", DEMO_AGENT, &["--speed", "fast", "--no-summary"]) };
    let plain = t.engine.create_profile(spec).await.unwrap();
    let task = t.engine.submit_task(TaskSpec::new(plain.id.clone(), "Tidy the fixtures")).await.unwrap().task;
    let session = t.session_of_task(&task.id).await;
    let screen = t.wait_for_screen(&session, "received: Tidy the fixtures").await;
    assert!(!screen.replace('\n', "").contains(PROTOCOL_FILE), "{screen}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_marker_in_what_the_user_types_is_not_read_back_as_a_signal() {
    let t = TestEngine::start().await;
    let profile = t.scenario_profile("echo", "[[tasks]]\nsteps = [{ say = \"read it\" }]\n").await;
    let instruction =
        "Explain this block:\n[STOP_WORK]\nblocker_type: external_dependency\ndetails: \"x\"\n[/STOP_WORK]";
    let task = t.engine.submit_task(TaskSpec::new(profile.id.clone(), instruction)).await.unwrap().task;
    let session = t.session_of_task(&task.id).await;
    t.wait_for_screen(&session, "read it").await;
    let screen = t.screen(&session).await;
    assert!(screen.contains("/STOP_WORK"), "the text reached the agent, without its brackets:\n{screen}");
    // Before, the echo of the typed instruction raised a stop-work signal.
    assert_eq!(t.engine.list_signals().await.unwrap(), []);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claude_code_and_codex_are_taught_through_their_own_instruction_channels() {
    use std::os::unix::fs::PermissionsExt;
    use switchboard_core::signal::teach::protocol_text;
    let t = TestEngine::start().await;
    // Stands in for each CLI: prints the arguments it was started with, one per line.
    let script = t.data_dir.join("print-args");
    std::fs::write(
        &script,
        "#!/bin/sh\nfor a in \"$@\"; do printf '<%s>\\n' \"$a\"; done\nprintf 'END\\n'\nsleep 30\n",
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let t = &t;
    let started = |kind, name: &str, on: bool| {
        let spec =
            ProfileSpec { kind, signal_protocols: on, ..t.spec(name, script.to_str().unwrap(), &["--model", "m"]) };
        async move {
            let profile = t.engine.create_profile(spec).await.unwrap();
            let (session, output) = t.start_session(&profile).await;
            output.wait_for_text("END").await;
            let printed = String::from_utf8_lossy(&output.snapshot()).replace("\r\n", "\n");
            (session.id, printed)
        }
    };
    let (claude, printed) = started(switchboard_core::AgentKind::ClaudeCode, "claude", true).await;
    let taught = protocol_text(Some(&claude.to_string()));
    assert!(printed.contains(&format!("<--append-system-prompt>\n<{taught}>")), "{printed}");

    let (codex, printed) = started(switchboard_core::AgentKind::Codex, "codex", true).await;
    let value = printed
        .split("<developer_instructions=")
        .nth(1)
        .expect("developer instructions given")
        .split(">\n<--model>")
        .next()
        .unwrap();
    let parsed: toml::Table = format!("v = {value}").parse().unwrap();
    assert_eq!(parsed["v"].as_str(), Some(protocol_text(Some(&codex.to_string())).as_str()));
    assert!(printed.starts_with("<-c>\n<developer_instructions="), "given before the user's own: {printed}");

    let (_, printed) = started(switchboard_core::AgentKind::ClaudeCode, "claude off", false).await;
    assert!(!printed.contains("--append-system-prompt"), "turned off: {printed}");
}

/// Where the agent stands in a diagram now.
async fn lit(t: &TestEngine, target: &FlowTarget, diagram: DiagramId) -> Vec<String> {
    let view = t.engine.flow_view(target.clone(), None).await.unwrap();
    view.diagrams.into_iter().find(|d| d.diagram == diagram).unwrap().current
}

/// Regression: a plain command's flows showed the team diagrams as if they
/// might light, when it sends no hook events to light them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_plain_agents_flows_say_which_diagrams_it_can_never_light() {
    let t = TestEngine::start().await;
    let plain = t.profile("plain", "sh", &[]).await;
    let untaught = t
        .engine
        .create_profile(ProfileSpec { signal_protocols: false, ..t.spec("untaught", "sh", &[]) })
        .await
        .unwrap();
    let silent = |view: switchboard_core::FlowView| -> Vec<(DiagramId, DiagramSilence)> {
        view.diagrams.into_iter().filter_map(|d| d.silent.map(|why| (d.diagram, why))).collect()
    };
    let view = t.engine.flow_view(FlowTarget::Agent { profile_id: plain.id.clone() }, None).await.unwrap();
    assert_eq!(
        silent(view),
        [
            (DiagramId::TeamLead, DiagramSilence::NoHooks),
            (DiagramId::TeamLifecycle, DiagramSilence::NoHooks),
            (DiagramId::CompletionDecision, DiagramSilence::NoHooks),
        ]
    );
    // A task's flows are its agent's.
    let task = t.engine.submit_task(TaskSpec::new(untaught.id.clone(), "Say hello")).await.unwrap().task;
    let view = t.engine.flow_view(FlowTarget::Task { task_id: task.id }, None).await.unwrap();
    let silent = silent(view);
    assert!(silent.contains(&(DiagramId::Clarification, DiagramSilence::NoSignalProtocols)), "{silent:?}");
    assert!(silent.contains(&(DiagramId::TeamLead, DiagramSilence::NoHooks)), "{silent:?}");
    assert!(!silent.iter().any(|(d, _)| *d == DiagramId::TaskQueue), "{silent:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_clarification_lights_the_flows_live_and_they_replay_from_the_log() {
    let t = TestEngine::start().await;
    let profile = t.scenario_profile("asker", CLARIFY_THEN_DELIVER).await;
    let agent = FlowTarget::Agent { profile_id: profile.id.clone() };
    let task = t.engine.submit_task(TaskSpec::new(profile.id.clone(), "Review the auth module")).await.unwrap().task;
    let asked = t.signal(SignalKind::Clarification, SignalState::Pending).await;

    // Waiting for the user, in the clarification flow and the status flow.
    assert_eq!(lit(&t, &agent, DiagramId::Clarification).await, ["ask"]);
    assert_eq!(lit(&t, &agent, DiagramId::AgentStatus).await, ["permission"]);
    assert_eq!(lit(&t, &agent, DiagramId::TaskQueue).await, ["monitor"]);
    // The raise reached the window as a log entry, named for its agent.
    let raised = t
        .events
        .wait_for("the raise logged", |events| {
            events.iter().find_map(|e| match e {
                EngineEvent::Logged { entry, profile_id } if matches!(entry.kind, LogKind::SignalRaised { .. }) => {
                    Some((entry.seq, profile_id.clone()))
                }
                _ => None,
            })
        })
        .await;
    assert_eq!(raised.1.as_ref(), Some(&profile.id));

    // Its task reads as waiting for the user, its time limit paused.
    let paused = t
        .events
        .wait_for("the task to wait for the user", |events| {
            events.iter().find_map(|e| match e {
                EngineEvent::TaskChanged { task: waiting } if waiting.id == task.id => waiting.waiting_since,
                _ => None,
            })
        })
        .await;
    assert!(paused > 0);
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;

    t.engine
        .respond_to_signal(asked.id.clone(), SignalResponse::Answer { answers: vec!["Both".into(), "Deep".into()] })
        .await
        .unwrap();
    assert_eq!(lit(&t, &agent, DiagramId::Clarification).await, ["resume"]);
    assert_eq!(lit(&t, &agent, DiagramId::AgentStatus).await, ["tool_use"]);
    // Answered: the limit runs again, the wait kept apart from the time counted.
    let waited = t
        .events
        .wait_for("the task to go on", |events| {
            events.iter().find_map(|e| match e {
                EngineEvent::TaskChanged { task: going }
                    if going.id == task.id && going.waiting_since.is_none() && going.waited_ms > 0 =>
                {
                    Some(going.waited_ms)
                }
                _ => None,
            })
        })
        .await;
    assert!(waited >= 300, "waited {waited} ms");
    t.events
        .wait_for("the task to complete", |events| {
            events
                .iter()
                .any(|e| matches!(e, EngineEvent::TaskChanged { task: done } if done.id == task.id && done.state.is_finished()))
                .then_some(())
        })
        .await;
    // The task's own view: its steps, and its session's while it ran.
    let of_task = FlowTarget::Task { task_id: task.id.clone() };
    assert_eq!(lit(&t, &of_task, DiagramId::Clarification).await, ["continue"]);
    assert_eq!(lit(&t, &of_task, DiagramId::TaskQueue).await, ["idle"]);

    // Replay: as of the raise, the same nodes are lit as they were live.
    let then = t.engine.flow_view(agent.clone(), Some(raised.0)).await.unwrap();
    let at = |diagram| then.diagrams.iter().find(|d| d.diagram == diagram).unwrap().current.clone();
    assert_eq!(at(DiagramId::Clarification), ["ask"]);
    assert_eq!(at(DiagramId::AgentStatus), ["permission"]);
    assert_eq!(then.until_seq, Some(raised.0));

    // The event log, oldest first; the most recent N when asked for fewer.
    let log = t.engine.flow_events(agent.clone(), None, 1000).await.unwrap();
    assert!(log.entries.windows(2).all(|w| w[0].seq < w[1].seq));
    let kinds: Vec<&str> = log.entries.iter().map(|e| kind_name(&e.kind)).collect();
    for expected in [
        "task_queued",
        "session_started",
        "task_started",
        "task_typed",
        "signal_raised",
        "signal_handled",
        "task_ended",
    ] {
        assert!(kinds.contains(&expected), "{expected} in {kinds:?}");
    }
    let last_two = t.engine.flow_events(agent.clone(), None, 2).await.unwrap();
    assert_eq!(last_two.entries, log.entries[log.entries.len() - 2..]);
    assert_eq!(last_two.omitted as usize, log.entries.len() - 2);
    let later = t.engine.flow_events(agent.clone(), Some(log.entries.last().unwrap().at + 1), 10).await.unwrap();
    assert!(later.entries.is_empty());

    // Exported as JSON lines into the data folder, one entry per line.
    let path = t.engine.export_flow_events(agent.clone()).await.unwrap();
    assert!(Path::new(&path).starts_with(t.data_dir.join("exports")), "{path}");
    let exported = std::fs::read_to_string(&path).unwrap();
    let lines: Vec<switchboard_core::LogEntry> = exported.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert!(lines.len() >= log.entries.len(), "everything logged so far is exported");
    assert_eq!(lines[..log.entries.len()], log.entries[..]);

    // A target that names nothing, and a limit out of range, are refused in words.
    let error = t.engine.flow_view(FlowTarget::Agent { profile_id: switchboard_core::ProfileId::new() }, None).await;
    assert_eq!(error.unwrap_err().field(), Some("profile_id"));
    let error = t.engine.flow_events(agent, None, 0).await.unwrap_err();
    assert_eq!(error.field(), Some("limit"));

    // The overview shows the agent, at rest now.
    let overview = t.engine.flow_overview().await.unwrap();
    let shown = overview.agents.iter().find(|a| a.profile_id == profile.id).unwrap();
    assert_eq!((shown.queued, shown.needs_user, shown.doing.as_deref()), (0, 0, None));
}

fn kind_name(kind: &LogKind) -> &'static str {
    match kind {
        LogKind::TaskQueued { .. } => "task_queued",
        LogKind::SessionStarted { .. } => "session_started",
        LogKind::TaskStarted => "task_started",
        LogKind::TaskTyped { .. } => "task_typed",
        LogKind::SignalRaised { .. } => "signal_raised",
        LogKind::SignalHandled { .. } => "signal_handled",
        LogKind::TaskEnded { .. } => "task_ended",
        _ => "other",
    }
}

/// Issue 22: one 30 KB block of nested aliases became a 60 MB signal, and
/// its dialog held the window for a minute and a half.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_block_of_nested_aliases_is_shown_unreadable_and_stored_small() {
    let t = TestEngine::start().await;
    let profile =
        t.engine.create_profile(ProfileSpec { ready_quiet_ms: 50, ..t.spec("cat", "cat", &[]) }).await.unwrap();
    let (session, _output) = t.start_session(&profile).await;
    let mut block = format!("blocker_type: x\ndetails: &l0 \"{}\"\n", "x".repeat(30_000));
    for level in 1..=3 {
        block.push_str(&format!("l{level}: &l{level} [{}]\n", vec![format!("*l{}", level - 1); 10].join(", ")));
    }
    t.engine.agent_text(session.id.clone(), format!("Stuck.\n[STOP_WORK]\n{block}[/STOP_WORK]\n")).await.unwrap();

    let signal = t.signal(SignalKind::StopWork, SignalState::Pending).await;
    let ScanEvent::Malformed { reason, raw, .. } = &signal.scan else { panic!("read as a signal") };
    assert!(reason.starts_with("its aliases expand past"), "{reason}");
    assert_eq!(raw.trim(), block.trim(), "the block is shown as the agent printed it");
    let stored = serde_json::to_string(&t.engine.list_signals().await.unwrap()).unwrap();
    assert!(stored.len() < 2 * block.len(), "{} bytes stored", stored.len());
    t.engine.stop_session(session.id).await.unwrap();
}

/// Issue 22: every stored agent text field has a cap, and a list its most
/// items, each cut one saying so.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_signals_long_fields_and_lists_are_kept_cut_and_marked() {
    use switchboard_core::capped::{CUT_MARK, MAX_LIST_ITEMS, MAX_TEXT_FIELD_BYTES};
    let t = TestEngine::start().await;
    let profile =
        t.engine.create_profile(ProfileSpec { ready_quiet_ms: 50, ..t.spec("cat", "cat", &[]) }).await.unwrap();
    let (session, _output) = t.start_session(&profile).await;
    let questions: String = (0..300).map(|i| format!("  - \"question {i}\"\n")).collect();
    let block = format!(
        "[CLARIFICATION_NEEDED]\nblocked_at: \"{}\"\nquestions:\n{questions}[/CLARIFICATION_NEEDED]\n",
        "b".repeat(40_000)
    );
    t.engine.agent_text(session.id.clone(), block).await.unwrap();
    let signal = t.signal(SignalKind::Clarification, SignalState::Pending).await;
    let ScanEvent::Signal { signal } = &signal.scan else { panic!("{:?}", signal.scan) };
    let SignalBody::Clarification { blocked_at, questions, .. } = &signal.body else { panic!("{signal:?}") };
    assert!(blocked_at.len() <= MAX_TEXT_FIELD_BYTES && blocked_at.ends_with(CUT_MARK), "{} bytes", blocked_at.len());
    assert_eq!(questions.len(), MAX_LIST_ITEMS);
    assert!(questions.last().unwrap().contains("more not kept"), "{:?}", questions.last());
    t.engine.stop_session(session.id).await.unwrap();
}

/// A delegate that hangs silently (issue 23, item 11: before, it held its
/// lead until the lead's own time limit, the lead's quiet alert being off
/// while its team works): flagged as quiet past its agent's alert, then
/// failed at its agent's time limit, its waiting requester told and the
/// delegate ended.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_delegate_that_hangs_is_flagged_quiet_then_times_out_and_its_requester_is_told() {
    let t = TestEngine::start().await;
    let (lead, helper) = delegation_pair(&t, "[{ sleep_ms = 600000 }]").await;
    let spec = ProfileSpec { quiet_alert_secs: 1, task_time_limit_secs: 4, ..helper.spec.clone() };
    let helper = t.engine.update_profile(helper.id.clone(), spec).await.unwrap();
    let (lead, delegate) = delegate_to(&t, &lead, &helper).await;
    let of_delegate = |events: &[EngineEvent], done: &dyn Fn(&switchboard_core::Delegation) -> bool| {
        events.iter().find_map(|e| match e {
            EngineEvent::DelegationChanged { delegation }
                if delegation.delegate_session == delegate && done(delegation) =>
            {
                Some(delegation.clone())
            }
            _ => None,
        })
    };
    let quiet = t
        .events
        .wait_for("the delegate to be flagged quiet", |events| {
            of_delegate(events, &|d| d.quiet_since.is_some() && d.is_working())
        })
        .await;
    assert!(quiet.quiet_since.unwrap() >= quiet.started_at);
    let failed =
        t.events.wait_for("the delegate to time out", |events| of_delegate(events, &|d| !d.is_working())).await;
    let DelegationState::Failed { how, .. } = &failed.state else { panic!("{failed:?}") };
    assert_eq!(how, "it did not report within its time limit (4 s)");
    assert_eq!(failed.quiet_since, None);
    t.wait_for_screen(&lead, "received: DELEGATED WORK FAILED").await;
    t.wait_for_end(&delegate).await;
}
