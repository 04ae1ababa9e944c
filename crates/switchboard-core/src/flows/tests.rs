//! The fold, table by table, and golden replays of the real agents'
//! recorded hook events.

use std::fmt::Write as _;
use std::path::Path;

use serde_json::{Value, json};
use switchboard_protocol::loops::{Completion, Verdict};
use switchboard_protocol::signal::SignalKind;
use switchboard_protocol::{LoopId, Priority, ProfileId, SessionId, SignalId, TaskId};

use super::fold;
use switchboard_api::{
    DelegationState, DiagramId, DiagramState, LogEntry, LogKind, LoopStep, SignalResponse, TaskState,
};

/// A log being written: entries of one session and its current task.
struct Log {
    entries: Vec<LogEntry>,
    session: SessionId,
    task: TaskId,
}

impl Log {
    fn new() -> Log {
        Log { entries: Vec::new(), session: SessionId::new(), task: TaskId::new() }
    }

    fn push(&mut self, session: Option<&SessionId>, task: Option<&TaskId>, kind: LogKind) -> &mut Self {
        let seq = self.entries.len() as i64 + 1;
        self.entries.push(LogEntry {
            seq,
            at: 1_000 * seq,
            session_id: session.cloned(),
            task_id: task.cloned(),
            kind,
        });
        self
    }

    fn session(&mut self, kind: LogKind) -> &mut Self {
        let session = self.session.clone();
        self.push(Some(&session), None, kind)
    }

    fn task(&mut self, kind: LogKind) -> &mut Self {
        let (session, task) = (self.session.clone(), self.task.clone());
        let session = (!matches!(kind, LogKind::TaskQueued { .. })).then_some(session);
        self.push(session.as_ref(), Some(&task), kind)
    }

    fn started(&mut self) -> &mut Self {
        self.session = SessionId::new();
        self.session(LogKind::SessionStarted { pid: 42 })
    }

    /// A task queued, started and typed.
    fn typed(&mut self) -> &mut Self {
        self.task = TaskId::new();
        self.task(LogKind::TaskQueued { priority: Priority::Normal })
            .task(LogKind::TaskStarted)
            .task(LogKind::TaskTyped { bracketed: true })
    }

    fn ended(&mut self, state: TaskState) -> &mut Self {
        self.task(LogKind::TaskEnded { state, reason: None })
    }

    fn hook(&mut self, payload: Value) -> &mut Self {
        let event = payload["hook_event_name"].as_str().unwrap_or_default().to_owned();
        self.session(LogKind::Hook { event, payload, env: None })
    }

    fn raise(&mut self, id: &SignalId, kind: SignalKind) -> &mut Self {
        self.task(LogKind::SignalRaised { signal_id: id.clone(), signal_kind: kind, malformed: false })
    }

    fn respond(&mut self, id: &SignalId, response: SignalResponse) -> &mut Self {
        self.task(LogKind::SignalHandled { signal_id: id.clone(), response })
    }

    fn state(&self, diagram: DiagramId) -> DiagramState {
        fold(&self.entries).into_iter().find(|d| d.diagram == diagram).expect("every diagram is folded")
    }

    /// The nodes lit now.
    fn lit(&self, diagram: DiagramId) -> Vec<String> {
        let mut lit = self.state(diagram).current;
        lit.sort();
        lit
    }

    /// The nodes visited, in order.
    fn path(&self, diagram: DiagramId) -> Vec<String> {
        self.state(diagram).path.into_iter().map(|step| step.node).collect()
    }
}

fn strings(nodes: &[&str]) -> Vec<String> {
    let mut nodes: Vec<String> = nodes.iter().map(|n| (*n).to_owned()).collect();
    nodes.sort();
    nodes
}

fn edge_count(state: &DiagramState, from: &str, to: &str) -> u32 {
    state.edges.iter().find(|e| e.from == from && e.to == to).map_or(0, |e| e.count)
}

#[test]
fn nothing_happened_lights_nothing() {
    for state in fold(&[]) {
        assert!(state.current.is_empty() && state.path.is_empty(), "{:?}", state.diagram);
    }
}

#[test]
fn agent_status_of_an_agent_without_hooks_follows_its_tasks_and_questions() {
    use DiagramId::AgentStatus as D;
    let question = SignalId::new();
    let mut log = Log::new();
    log.started();
    assert_eq!(log.lit(D), strings(&["waiting"]), "session starts");
    log.typed();
    assert_eq!(log.lit(D), strings(&["tool_use"]), "task typed: working");
    log.raise(&question, SignalKind::Clarification);
    assert_eq!(log.lit(D), strings(&["permission"]), "a question waits: attention");
    log.respond(&question, answer());
    assert_eq!(log.lit(D), strings(&["tool_use"]), "answered: working again");
    log.ended(TaskState::Completed);
    assert_eq!(log.lit(D), strings(&["stop"]), "task completes: done");
    log.session(LogKind::SessionExited { exit_code: 0, signal: None });
    assert_eq!(log.lit(D), strings(&["session_end"]), "it exits");
    let state = log.state(D);
    assert_eq!(
        state.path.iter().map(|s| s.node.as_str()).collect::<Vec<_>>(),
        ["session_start", "waiting", "tool_use", "permission", "tool_use", "stop", "session_end"]
    );
    assert_eq!(edge_count(&state, "tool_use", "permission"), 1);
    assert_eq!(edge_count(&state, "permission", "tool_use"), 1);
    // Clicking a node lists the events that lit it.
    let attention = state.lit_by.iter().find(|n| n.node == "permission").unwrap();
    assert_eq!(attention.count, 1);
    let raised = log.entries.iter().find(|e| matches!(e.kind, LogKind::SignalRaised { .. })).unwrap();
    assert_eq!(attention.seqs, [raised.seq]);
}

fn answer() -> SignalResponse {
    SignalResponse::Answer { answers: vec!["both".into()] }
}

#[test]
fn agent_status_from_hooks_lights_tool_use_permission_and_stop() {
    use DiagramId::AgentStatus as D;
    let mut log = Log::new();
    log.started().hook(json!({"hook_event_name": "SessionStart"}));
    assert_eq!(log.lit(D), strings(&["waiting"]));
    // Its hooks speak for it: typing alone does not make it work.
    log.typed();
    assert_eq!(log.lit(D), strings(&["waiting"]));
    let cases: Vec<(Value, &[&str])> = vec![
        (json!({"hook_event_name": "UserPromptSubmit"}), &["tool_use"]),
        (json!({"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {}}), &["tool_use"]),
        (json!({"hook_event_name": "PermissionRequest", "tool_name": "Bash", "tool_input": {}}), &["permission"]),
        (json!({"hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_input": {}}), &["tool_use"]),
        (json!({"hook_event_name": "Stop", "last_assistant_message": "done"}), &["stop"]),
        (json!({"hook_event_name": "UserPromptSubmit"}), &["tool_use"]),
        (json!({"hook_event_name": "SessionEnd"}), &["session_end"]),
    ];
    for (payload, lit) in cases {
        let name = payload["hook_event_name"].clone();
        log.hook(payload);
        assert_eq!(log.lit(D), strings(lit), "after {name}");
    }
}

#[test]
fn the_task_queue_traces_each_task_and_keeps_waiting_tasks_lit() {
    use DiagramId::TaskQueue as D;
    let mut log = Log::new();
    log.started().typed();
    assert_eq!(log.lit(D), strings(&["monitor"]));
    // A second task arrives while the first works: it waits, lit beside.
    let first = log.task.clone();
    let second = TaskId::new();
    log.push(None, Some(&second), LogKind::TaskQueued { priority: Priority::Normal });
    assert_eq!(log.lit(D), strings(&["monitor", "queued"]));
    // The first completes from its summary: the next starts.
    log.task = first;
    log.ended(TaskState::Completed);
    assert_eq!(log.lit(D), strings(&["next", "queued"]));
    log.task = second;
    log.task(LogKind::TaskStarted).task(LogKind::TaskTyped { bracketed: false });
    assert_eq!(log.lit(D), strings(&["monitor"]));
    // It times out: the fallback summary, then idle.
    log.ended(TaskState::TimedOut);
    assert_eq!(log.lit(D), strings(&["idle"]));
    let state = log.state(D);
    assert_eq!(edge_count(&state, "busy", "executing"), 1, "the first task found the agent free");
    assert_eq!(edge_count(&state, "next", "executing"), 1, "the second started when the first ended");
    assert_eq!(edge_count(&state, "monitor", "fallback"), 1);
    assert_eq!(edge_count(&state, "more", "idle"), 1);
}

#[test]
fn a_clarification_waits_for_the_user_then_resumes() {
    use DiagramId::Clarification as D;
    let question = SignalId::new();
    let mut log = Log::new();
    log.started().typed();
    assert!(log.lit(D).is_empty());
    log.raise(&question, SignalKind::Clarification);
    assert_eq!(log.lit(D), strings(&["ask"]));
    assert_eq!(log.path(D), ["ambiguity", "checkpoint", "signal", "parse", "ask"]);
    log.respond(&question, answer());
    assert_eq!(log.lit(D), strings(&["resume"]));
    // The agent shows life: it restored its state and goes on.
    log.ended(TaskState::Completed);
    assert_eq!(log.lit(D), strings(&["continue"]));
    // A second question, dismissed.
    let second = SignalId::new();
    log.typed().raise(&second, SignalKind::Clarification).respond(&second, SignalResponse::Dismiss);
    assert_eq!(log.lit(D), strings(&["dismissed"]));
    assert_eq!(edge_count(&log.state(D), "ask", "answer"), 1);
}

#[test]
fn stop_work_and_checkpoint_resume_follow_the_blocker() {
    let blocker = SignalId::new();
    let mut log = Log::new();
    log.started().typed();
    assert_eq!(log.lit(DiagramId::CheckpointResume), strings(&["initial"]));
    log.raise(&blocker, SignalKind::StopWork);
    assert_eq!(log.lit(DiagramId::StopWork), strings(&["resolve"]));
    assert_eq!(log.lit(DiagramId::CheckpointResume), strings(&["resolution"]));
    log.respond(&blocker, SignalResponse::Resolve { resolution: "installed".into() });
    assert_eq!(log.lit(DiagramId::StopWork), strings(&["resume"]));
    assert_eq!(log.lit(DiagramId::CheckpointResume), strings(&["issue"]));
    log.hook(json!({"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {}}));
    assert_eq!(log.lit(DiagramId::StopWork), strings(&["continue"]));
    assert_eq!(log.lit(DiagramId::CheckpointResume), strings(&["resumed"]));
    log.raise(&SignalId::new(), SignalKind::Completion);
    assert_eq!(log.lit(DiagramId::CheckpointResume), strings(&["report"]));
    assert_eq!(edge_count(&log.state(DiagramId::CheckpointResume), "resumed", "report"), 1);
}

#[test]
fn a_delegation_runs_both_agents_in_parallel_until_both_report() {
    use DiagramId::DelegateWork as D;
    let request = SignalId::new();
    let mut log = Log::new();
    log.started().typed().raise(&request, SignalKind::Delegate);
    assert_eq!(log.lit(D), strings(&["evaluate"]));
    log.respond(&request, SignalResponse::Approve { profile_id: ProfileId::new() });
    assert_eq!(log.lit(D), strings(&["a_work", "b_work"]));
    // The delegate (another session) reports first.
    let delegate = SessionId::new();
    let requester = log.session.clone();
    let reported = DelegationState::Reported { at: 5, status: "success".into() };
    log.push(
        Some(&delegate),
        None,
        LogKind::Delegation { requester_session: requester.clone(), state: DelegationState::Working },
    );
    log.push(Some(&delegate), None, LogKind::Delegation { requester_session: requester, state: reported });
    assert_eq!(log.lit(D), strings(&["a_work", "b_report"]));
    log.raise(&SignalId::new(), SignalKind::Completion);
    assert_eq!(log.lit(D), strings(&["merge"]));
    let state = log.state(D);
    assert_eq!(edge_count(&state, "a_report", "merge"), 1);
    assert_eq!(edge_count(&state, "b_report", "merge"), 1);
    // A refused request.
    let refused = SignalId::new();
    log.raise(&refused, SignalKind::Delegate).respond(&refused, SignalResponse::Deny { reason: "no".into() });
    assert_eq!(log.lit(D), strings(&["denied"]));
}

#[test]
fn a_completion_report_is_checked_notified_and_read() {
    use DiagramId::CompletionReport as D;
    let report = SignalId::new();
    let mut log = Log::new();
    log.started().typed().raise(&report, SignalKind::Completion);
    assert_eq!(log.lit(D), strings(&["notify"]));
    assert_eq!(log.path(D).len(), 8);
    log.respond(&report, SignalResponse::Acknowledge);
    assert_eq!(log.lit(D), strings(&["terminates"]));
}

#[test]
fn loop_mode_and_stop_processing_follow_the_loop() {
    let id = LoopId::new();
    let step = |step: LoopStep| LogKind::Loop { loop_id: id.clone(), step };
    let mut log = Log::new();
    log.push(None, None, step(LoopStep::Started { max_iterations: 3 }));
    assert_eq!(log.lit(DiagramId::LoopMode), strings(&["active"]));
    let stop = json!({"hook_event_name": "Stop", "last_assistant_message": "step done"});
    for (number, verdict, lit) in
        [(1, Verdict::Continue, "continue"), (2, Verdict::Stalled { repeated: 2, reason: "same".into() }, "stalled")]
    {
        log.started().typed();
        log.push(Some(&log.session.clone()), None, step(LoopStep::Iteration { number }));
        assert_eq!(log.lit(DiagramId::LoopMode), strings(&["active"]));
        log.hook(stop.clone());
        // The Stop of an iteration waits for its judgment.
        assert!(!log.lit(DiagramId::StopEvent).contains(&"normal".to_owned()));
        log.push(None, None, step(LoopStep::Judged { number, verdict }));
        assert_eq!(log.lit(DiagramId::LoopMode), strings(&[lit]));
        assert_eq!(log.lit(DiagramId::StopEvent), strings(&[lit]));
    }
    log.push(None, None, step(LoopStep::Resumed));
    assert_eq!(log.lit(DiagramId::LoopMode), strings(&["active"]));
    log.push(
        None,
        None,
        step(LoopStep::Judged { number: 3, verdict: Verdict::Complete { why: Completion::MaxIterations { max: 3 } } }),
    );
    assert_eq!(log.lit(DiagramId::LoopMode), strings(&["complete"]));
    let state = log.state(DiagramId::LoopMode);
    assert_eq!(edge_count(&state, "continue", "active"), 1);
    assert_eq!(edge_count(&state, "stalled", "active"), 1);
    assert_eq!(edge_count(&log.state(DiagramId::StopEvent), "loop_active", "judge"), 3);
    // A Stop outside a loop is processed normally.
    log.started().typed().hook(stop);
    assert_eq!(log.lit(DiagramId::StopEvent), strings(&["normal"]));
}

#[test]
fn the_gate_holds_a_lead_while_its_teammates_work() {
    let mut log = Log::new();
    log.started().typed();
    let spawn = json!({"hook_event_name": "PreToolUse", "tool_name": "Agent", "tool_input": {"name": "worker1"}});
    // A hook event, then what the lead's flow, the team state and the decision light, and
    // the teammates at work.
    type Case<'a> = (Value, &'a [&'a str], &'a [&'a str], &'a [&'a str], u32);
    let cases: Vec<Case> = vec![
        (json!({"hook_event_name": "UserPromptSubmit"}), &["b"], &["no_team"], &[], 0),
        (spawn, &["f"], &["team_active"], &[], 1),
        (
            json!({"hook_event_name": "PostToolUse", "tool_name": "Agent", "tool_input": {"name": "worker1"}}),
            &["g"],
            &["team_active"],
            &[],
            1,
        ),
        // The turn ends with the teammate at work: usage_update, alive.
        (json!({"hook_event_name": "Stop"}), &["l"], &["team_active"], &["l"], 1),
        (json!({"hook_event_name": "TeammateIdle", "teammate_name": "worker1"}), &["l"], &["no_team"], &["l"], 0),
        // Now the turn ends with no one at work: complete.
        (json!({"hook_event_name": "Stop"}), &["m"], &["done"], &["g"], 0),
    ];
    for (payload, lead, lifecycle, decision, active) in cases {
        let name = payload["hook_event_name"].clone();
        log.hook(payload);
        assert_eq!(log.lit(DiagramId::TeamLead), strings(lead), "lead after {name}");
        assert_eq!(log.lit(DiagramId::TeamLifecycle), strings(lifecycle), "lifecycle after {name}");
        assert_eq!(log.lit(DiagramId::CompletionDecision), strings(decision), "decision after {name}");
        let gate = log.state(DiagramId::TeamLead).gate.expect("the lead's diagram shows its gate");
        assert_eq!(gate.active, active, "teammates after {name}");
    }
    let gate = log.state(DiagramId::TeamLead).gate.unwrap();
    assert_eq!(gate.team_name.as_deref(), Some(format!("session-{}", &log.session.to_string()[..8]).as_str()));
    // A turn that fails always completes.
    log.hook(json!({"hook_event_name": "StopFailure", "error": "rate limited"}));
    assert_eq!(log.lit(DiagramId::CompletionDecision), strings(&["d"]));
}

/// A recorded run of a real CLI, replayed as the app logs it: the session
/// starts, a task is typed, the hooks arrive, the task ends.
fn replay(recording: &str, outcome: TaskState) -> Log {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/agents").join(recording);
    let text = std::fs::read_to_string(&path).expect("the recording is in the tests' fixtures");
    let mut log = Log::new();
    log.started();
    // The agent's start-up hook comes first; the app types the task once it
    // is ready.
    for (i, line) in text.lines().enumerate() {
        let record: Value = serde_json::from_str(line).expect("a recorded line is JSON");
        log.hook(record["stdin"].clone());
        if i == 0 {
            log.typed();
        }
    }
    log.ended(outcome);
    log.session(LogKind::SessionExited { exit_code: 0, signal: None });
    log
}

/// Every diagram's path and lit nodes, as text.
fn render(log: &Log) -> String {
    let mut text = String::new();
    for state in fold(&log.entries) {
        let path: Vec<&str> = state.path.iter().map(|s| s.node.as_str()).collect();
        if path.is_empty() {
            continue;
        }
        writeln!(text, "{}: {} -> lit [{}]", state.diagram.as_str(), path.join(" "), state.current.join(", ")).unwrap();
        if let Some(gate) = &state.gate {
            writeln!(text, "  gate: team {:?}, {} active", gate.team_name.is_some(), gate.active).unwrap();
        }
    }
    text
}

/// Compares with the golden file; `SWITCHBOARD_BLESS=1` writes it.
fn golden(name: &str, text: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/flows/golden").join(name);
    if std::env::var_os("SWITCHBOARD_BLESS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
    }
    let expected = std::fs::read_to_string(&path).expect("the golden file exists (SWITCHBOARD_BLESS=1 writes it)");
    assert_eq!(text, expected, "the replay of {name} changed; SWITCHBOARD_BLESS=1 to accept");
}

#[test]
fn claude_code_lead_with_a_teammate_replays_as_recorded() {
    let log = replay("cc-hooks-team.jsonl", TaskState::Completed);
    let lead = log.state(DiagramId::TeamLead);
    // Its Stops came with the teammate still running: the gate kept it alive.
    assert_eq!(edge_count(&lead, "i", "j"), 2);
    assert_eq!(edge_count(&lead, "i", "k"), 0);
    golden("claude-team.txt", &render(&log));
}

#[test]
fn claude_code_writing_a_file_replays_as_recorded() {
    let log = replay("cc-hooks-write-signal.jsonl", TaskState::Completed);
    let status = log.state(DiagramId::AgentStatus);
    assert_eq!(status.current, ["session_end"]);
    assert_eq!(edge_count(&status, "tool_use", "stop"), 1);
    golden("claude-write.txt", &render(&log));
}

#[test]
fn codex_running_a_command_replays_as_recorded() {
    let log = replay("codex-hooks.jsonl", TaskState::Completed);
    let decision = log.state(DiagramId::CompletionDecision);
    assert_eq!(decision.current, ["g"], "no team: normal termination");
    golden("codex-bash.txt", &render(&log));
}

#[test]
fn a_long_log_keeps_bounded_paths_and_event_lists() {
    let mut log = Log::new();
    log.started();
    for _ in 0..2_000 {
        log.typed().ended(TaskState::Completed);
    }
    for state in fold(&log.entries) {
        assert!(state.path.len() <= switchboard_api::MAX_PATH_STEPS);
        assert!(state.lit_by.iter().all(|n| n.seqs.len() <= switchboard_api::MAX_NODE_EVENTS));
    }
    let queue = log.state(DiagramId::TaskQueue);
    assert_eq!(edge_count(&queue, "more", "idle"), 2_000);
}
