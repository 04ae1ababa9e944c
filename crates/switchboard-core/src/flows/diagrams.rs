//! The spec's diagrams as data: its nodes and edges, its colours where it
//! gives them, and the few moves real agents make that its drawing leaves
//! out (each marked below). Each diagram and node is named in the user's
//! words; the spec's own label is kept beside it where it differs (its
//! field and variable names mean nothing to someone watching an agent).
//! Emoji in the spec's labels are left out: they need a font a machine may
//! not have.

use std::sync::LazyLock;

use switchboard_protocol::AgentKind;

use switchboard_api::{Diagram, DiagramId, DiagramSilence, FlowEdge, FlowNode, NodeShape};

/// Every diagram, in [`DiagramId::ALL`] order.
pub fn all() -> &'static [Diagram] {
    static ALL: LazyLock<Vec<Diagram>> = LazyLock::new(|| DiagramId::ALL.into_iter().map(build).collect());
    &ALL
}

pub fn get(id: DiagramId) -> &'static Diagram {
    all().iter().find(|d| d.id == id).expect("every diagram id has a definition")
}

const GREEN: (&str, &str) = ("#4CAF50", "#2E7D32");
const BLUE: (&str, &str) = ("#2196F3", "#1565C0");
const ORANGE: (&str, &str) = ("#FF9800", "#E65100");

struct Builder(Diagram);

impl Builder {
    fn node(mut self, id: &str, label: &str, shape: NodeShape) -> Self {
        self.0.nodes.push(FlowNode { id: id.into(), label: label.into(), spec: None, shape, fill: None, stroke: None });
        self
    }
    /// The spec's own label of the node just added.
    fn was(mut self, spec: &str) -> Self {
        let node = self.0.nodes.last_mut().expect("`was` follows a node");
        node.spec = Some(spec.into());
        self
    }
    fn start(self, id: &str, label: &str) -> Self {
        self.node(id, label, NodeShape::Start)
    }
    fn step(self, id: &str, label: &str) -> Self {
        self.node(id, label, NodeShape::Step)
    }
    fn ask(self, id: &str, label: &str) -> Self {
        self.node(id, label, NodeShape::Decision)
    }
    fn end(self, id: &str, label: &str) -> Self {
        self.node(id, label, NodeShape::End)
    }
    fn colour(mut self, id: &str, (fill, stroke): (&str, &str)) -> Self {
        let node = self.0.nodes.iter_mut().find(|n| n.id == id).expect("coloured node defined");
        node.fill = Some(fill.into());
        node.stroke = Some(stroke.into());
        self
    }
    fn edge(mut self, from: &str, to: &str, label: &str) -> Self {
        let label = (!label.is_empty()).then(|| label.to_owned());
        self.0.edges.push(FlowEdge { from: from.into(), to: to.into(), label });
        self
    }
    /// A chain of unlabelled edges.
    fn chain(mut self, nodes: &[&str]) -> Self {
        for pair in nodes.windows(2) {
            self = self.edge(pair[0], pair[1], "");
        }
        self
    }
}

fn diagram(id: DiagramId, title: &str, about: &str, source: &str) -> Builder {
    Builder(Diagram {
        id,
        title: title.into(),
        about: about.into(),
        source: source.into(),
        nodes: Vec::new(),
        edges: Vec::new(),
    })
}

/// Why `id` can show nothing for an agent of `kind` (that is taught the
/// signal protocols or not), whatever the agent does; none: it can.
/// The team's diagrams are drawn from hook events, which a plain command
/// never sends (its status still moves: a question waiting is shown); the protocols' diagrams need the protocols taught; the
/// queue, loops and a turn's end in a loop are the app's own, for any agent.
pub fn silence(id: DiagramId, kind: AgentKind, signal_protocols: bool) -> Option<DiagramSilence> {
    match id {
        DiagramId::TeamLead | DiagramId::TeamLifecycle | DiagramId::CompletionDecision
            if kind == AgentKind::Generic =>
        {
            Some(DiagramSilence::NoHooks)
        }
        DiagramId::Clarification
        | DiagramId::StopWork
        | DiagramId::DelegateWork
        | DiagramId::CompletionReport
        | DiagramId::CheckpointResume
            if !signal_protocols =>
        {
            Some(DiagramSilence::NoSignalProtocols)
        }
        _ => None,
    }
}

fn build(id: DiagramId) -> Diagram {
    match id {
        DiagramId::AgentStatus => agent_status(),
        DiagramId::LoopMode => loop_mode(),
        DiagramId::StopEvent => stop_event(),
        DiagramId::TeamLead => team_lead(),
        DiagramId::TeamLifecycle => team_lifecycle(),
        DiagramId::CompletionDecision => completion_decision(),
        DiagramId::Clarification => clarification(),
        DiagramId::StopWork => stop_work(),
        DiagramId::DelegateWork => delegate_work(),
        DiagramId::CompletionReport => completion_report(),
        DiagramId::CheckpointResume => checkpoint_resume(),
        DiagramId::TaskQueue => task_queue(),
    }
    .0
}

fn agent_status() -> Builder {
    diagram(
        DiagramId::AgentStatus,
        "What the agent is doing",
        "Whether the agent waits, works, asks your permission or has finished, as its hooks report it.",
        "loop-and-hook-state-machines.md §3 Agent Status Flow",
    )
    .start("session_start", "Started")
    .was("SessionStart Event")
    .step("waiting", "Waiting for a task")
    .was("Status: Waiting")
    .step("tool_use", "Working")
    .was("ToolUse Event\nStatus: Working")
    .step("permission", "Asks your permission")
    .was("Permission Request\nStatus: Attention")
    .step("stop", "Turn over\n(waiting, or done)")
    .was("Stop Event\nStatus: Waiting (if loop: Continue)\nStatus: Done (if complete)")
    // Not drawn in the spec: the session's end.
    .end("session_end", "Session ended")
    .edge("session_start", "waiting", "")
    .edge("waiting", "tool_use", "")
    .edge("waiting", "permission", "")
    .edge("waiting", "stop", "")
    .edge("tool_use", "waiting", "")
    .edge("permission", "waiting", "")
    .edge("stop", "waiting", "")
    // Moves the drawing routes through Waiting, taken directly.
    .edge("tool_use", "permission", "asks")
    .edge("permission", "tool_use", "answered")
    .edge("tool_use", "stop", "turn ends")
    .edge("permission", "stop", "")
    .edge("stop", "tool_use", "next prompt")
    .edge("stop", "permission", "")
    .edge("waiting", "session_end", "")
    .edge("stop", "session_end", "")
}

fn loop_mode() -> Builder {
    diagram(
        DiagramId::LoopMode,
        "Loop",
        "A loop runs its goal again in a fresh session until it is done, stalls, reaches its count or you cancel it.",
        "loop-and-hook-state-machines.md §1 Loop Mode State Machine",
    )
    .start("none", "No loop")
    .was("None\nAgent not in loop mode")
    .step("active", "Loop running")
    .was("Active\nLoop running")
    .end("complete", "Done\n(stop word, promise or count)")
    .was("Complete\n(stop word / max)")
    .end("stalled", "Stalled\n(the same reason again and again)")
    .was("Stalled\n(5+ same reasons)")
    .step("continue", "Another round")
    .was("Continue\n(Judge says ok)")
    .end("cancelled", "Cancelled by you")
    .was("Cancelled\n(user X key)")
    .edge("none", "active", "loop started")
    .edge("active", "complete", "")
    .edge("active", "stalled", "")
    .edge("active", "continue", "")
    .edge("active", "cancelled", "")
    .edge("continue", "active", "fresh session")
    // Not drawn in the spec: the user resumes a stalled loop.
    .edge("stalled", "active", "resumed")
    .edge("stalled", "cancelled", "")
}

fn stop_event() -> Builder {
    diagram(
        DiagramId::StopEvent,
        "When a turn ends",
        "When the agent finishes a turn: in a loop the app judges whether to go on; otherwise the turn just ends.",
        "loop-and-hook-state-machines.md §2 Event Processing Flow (Stop Event)",
    )
    .start("received", "The agent's turn ended")
    .was("Stop Event\nReceived")
    .ask("loop_active", "Is a loop running?")
    .was("agent.loop_mode ==\nActive?")
    .step("judge", "The loop is judged\n(progress, stall, count)")
    .was("Judge Evaluation\nCheck progress\nCheck stall\nCheck max iter")
    .end("normal", "The turn ends")
    .was("Normal Stop\nProcessing")
    .end("complete", "Loop done\n(you are told)")
    .was("COMPLETE\nSet: Complete\nNotify user")
    .end("stalled", "Loop stalled\n(you are told)")
    .was("STALLED\nSet: Stalled\nNotify user")
    .end("continue", "Another round\nin a fresh session")
    .was("CONTINUE\nAction: respawn\nfresh session")
    .edge("received", "loop_active", "")
    .edge("loop_active", "judge", "yes")
    .edge("loop_active", "normal", "no")
    .edge("judge", "complete", "")
    .edge("judge", "stalled", "")
    .edge("judge", "continue", "")
}

fn team_lead() -> Builder {
    diagram(
        DiagramId::TeamLead,
        "A lead and its teammates",
        "An agent that starts teammates is not done at the end of its turn while any of them still works.",
        "team-completion-flow-diagrams.md ClaudeAgent: Current (Correct) Flow",
    )
    .start("a", "You send a message")
    .was("User sends message")
    .step("b", "The agent works on it")
    .was("Agent processes")
    .ask("c", "Does it start\na teammate?")
    .was("Task tool with\nteam_name?")
    .step("d", "A teammate joins\nthe team")
    .was("Set activeTeamName\nIncrement activeTeammateCount")
    .step("e", "A tool runs")
    .was("Normal processing")
    .step("f", "The teammate starts")
    .was("Spawn teammate")
    .step("g", "The tool answers")
    .was("Return tool result")
    .ask("h", "The turn ends")
    .was("Agent result message\nsubtype=success")
    .ask("i", "Are teammates\nstill at work?")
    .was("Check team state:\nactiveTeamName &&\nactiveTeammateCount > 0?")
    .step("j", "Still working\n(not done yet)")
    .was("Emit usage_update")
    .step("k", "Done")
    .was("Emit complete")
    .end("l", "The lead goes on\nwith its team")
    .was("Session stays alive\nLead continues")
    .end("m", "The turn is over")
    .was("Session terminates")
    .colour("i", GREEN)
    .colour("j", BLUE)
    .colour("k", ORANGE)
    .chain(&["a", "b", "c"])
    .edge("c", "d", "yes")
    .edge("c", "e", "no")
    .chain(&["d", "f", "g"])
    .chain(&["e", "g", "h", "i"])
    .edge("i", "j", "yes")
    .edge("i", "k", "no")
    .edge("j", "l", "")
    .edge("k", "m", "")
    // Not drawn in the spec: the agent's next tool call in the same turn.
    .edge("g", "c", "next tool call")
    .edge("b", "h", "no tool call")
    .edge("l", "c", "lead continues")
    .edge("l", "h", "")
}

fn team_lifecycle() -> Builder {
    diagram(
        DiagramId::TeamLifecycle,
        "The team",
        "How many teammates the agent has at work, from the first it starts to the last that finishes.",
        "team-completion-flow-diagrams.md State Lifecycle",
    )
    .start("begin", "Session starts")
    .step("no_team", "No teammates")
    .was("NoTeam\nactiveTeamName = null\nactiveTeammateCount = 0")
    .step("team_active", "Teammates at work")
    .was("TeamActive\nactiveTeamName set\nactiveTeammateCount > 0")
    .step("team_completing", "Teammates finishing")
    .was("TeamCompleting")
    .end("done", "Done")
    .was("Emit complete\nSession terminates")
    .edge("begin", "no_team", "Session starts")
    .edge("no_team", "team_active", "first teammate")
    .edge("team_active", "team_active", "another teammate")
    .edge("team_active", "team_completing", "a teammate finishes")
    .edge("team_completing", "team_completing", "another finishes")
    .edge("team_completing", "no_team", "the last is done")
    .edge("no_team", "done", "turn over")
    // Not drawn in the spec: all teammates gone at once, a spawn while
    // others finish, and the next message after a completed turn.
    .edge("team_active", "no_team", "all teammates done")
    .edge("team_completing", "team_active", "teammate spawned")
    .edge("done", "no_team", "next message")
}

fn completion_decision() -> Builder {
    diagram(
        DiagramId::CompletionDecision,
        "Is the turn done?",
        "How the end of a turn is read: an error ends it, and so does a success with no teammate at work.",
        "team-completion-flow-diagrams.md Completion Decision Tree",
    )
    .start("a", "The turn ends")
    .was("Agent receives\nresult message")
    .ask("b", "Did it succeed?")
    .was("subtype === 'success'?")
    .step("c", "It ended in an error")
    .was("Emit error")
    .end("d", "Done\n(an error always ends it)")
    .was("Emit complete\nAlways complete on error")
    .ask("e", "Has it a team?")
    .was("activeTeamName\nis set?")
    .step("f", "No team")
    .end("g", "Done")
    .was("Emit complete\nNormal termination")
    .ask("h", "Teammates\nat work?")
    .was("activeTeammateCount\n> 0?")
    .step("i", "A team, but no one\nat work")
    .was("Team exists but\nno teammates")
    .step("j", "The team works")
    .was("Team is active")
    .step("k", "Not done yet")
    .was("Emit usage_update\nKeep session alive")
    .end("l", "The lead goes on")
    .was("Lead continues\nprocessing")
    .colour("j", GREEN)
    .colour("k", BLUE)
    .colour("f", ORANGE)
    .colour("i", ORANGE)
    .colour("g", ORANGE)
    .chain(&["a", "b"])
    .edge("b", "c", "no")
    .edge("c", "d", "")
    .edge("b", "e", "yes")
    .edge("e", "f", "no")
    .edge("f", "g", "")
    .edge("e", "h", "yes")
    .edge("h", "i", "no")
    .edge("i", "g", "")
    .edge("h", "j", "yes")
    .chain(&["j", "k", "l"])
}

fn clarification() -> Builder {
    diagram(
        DiagramId::Clarification,
        "A question for you",
        "The agent stops to ask you something, and goes on with your answer.",
        "subagent-signal-protocols.md Protocol 1: CLARIFICATION_NEEDED",
    )
    .start("ambiguity", "Something is unclear")
    .was("Encounters ambiguity")
    .step("checkpoint", "It saves its progress")
    .was("Create checkpoint\n(save progress)")
    .step("signal", "It asks")
    .was("CLARIFICATION_NEEDED\nblocked_at, questions, current_state")
    .step("parse", "The app reads\nthe questions")
    .was("Parse signal\nExtract questions")
    .step("ask", "Waiting for your answer")
    .was("AskUserQuestion\nWaiting for the user")
    .step("answer", "You answer")
    .was("Answer")
    .step("resume", "Your answer is typed\nto the agent")
    .was("Task resume\nCLARIFICATION RESPONSE")
    .step("restore", "It picks up where\nit stopped")
    .was("Restore state from\ncheckpoint")
    .end("continue", "It goes on with\nyour answer")
    .was("Continue work with\nclarified information")
    // Not drawn in the spec: the user dismisses the question.
    .end("dismissed", "Dismissed\n(nothing sent)")
    .chain(&["ambiguity", "checkpoint", "signal", "parse", "ask", "answer", "resume", "restore", "continue"])
    .edge("ask", "dismissed", "dismissed")
}

fn stop_work() -> Builder {
    diagram(
        DiagramId::StopWork,
        "The agent is blocked",
        "The agent stops at something it cannot get past alone, and goes on once you resolve it.",
        "subagent-signal-protocols.md Protocol 2: STOP_WORK",
    )
    .start("attempt", "It tries something")
    .was("Attempts operation")
    .step("blocker", "Something blocks it")
    .was("Encounters blocker")
    .step("checkpoint", "It saves its work")
    .was("Create checkpoint\n(save completed work)")
    .step("signal", "It stops and says why")
    .was("STOP_WORK\nblocker_type, details, state_snapshot")
    .step("parse", "The app reads\nwhat blocks it")
    .was("Parse signal\nRead blocker details")
    .step("resolve", "Waiting for you\nto resolve it")
    .was("Resolve blocker\nWaiting for the user")
    .step("resume", "Your answer is typed\nto the agent")
    .was("Task resume\nBLOCKER RESOLVED")
    .step("restore", "It picks up where\nit stopped")
    .was("Restore from checkpoint")
    .end("continue", "It goes on")
    .was("Continue with\nresolved dependency")
    .end("dismissed", "Dismissed\n(nothing sent)")
    .chain(&["attempt", "blocker", "checkpoint", "signal", "parse", "resolve"])
    .edge("resolve", "resume", "resolved / retry / skip / delegate")
    .chain(&["resume", "restore", "continue"])
    .edge("resolve", "dismissed", "dismissed")
}

fn delegate_work() -> Builder {
    diagram(
        DiagramId::DelegateWork,
        "Handing work to another agent",
        "The agent asks to hand a separate piece of work to a new agent; with your approval both work at once.",
        "subagent-signal-protocols.md Protocol 3: DELEGATE_WORK",
    )
    .start("analyze", "It finds work that\ncan run separately")
    .was("Analyzes task\nIdentifies separate\nparallelizable work")
    .step("signal", "It asks to hand it over")
    .was("DELEGATE_WORK\nnew_task_description, independence")
    .step("evaluate", "Waiting for your\ndecision")
    .was("Evaluate request\nWaiting for the user")
    .step("approve", "You approve")
    .was("Decision: APPROVE")
    .step("launch", "A new agent starts")
    .was("/bg launch\n(new task description)")
    .step("b_work", "The new agent works")
    .was("Subagent B\nStart work")
    .step("resume", "The agent is told\nit was approved")
    .was("Task resume=\"A\"\nDELEGATION APPROVED")
    .step("a_work", "The agent goes on\n(beside the new one)")
    .was("Subagent A\nContinue work (parallel to B)")
    .step("b_report", "The new agent reports")
    .was("B: COMPLETION_REPORT")
    .step("a_report", "The agent reports")
    .was("A: COMPLETION_REPORT")
    .end("merge", "Both done: results\ntogether, you are told")
    .was("Both completed\nMerge results\nNotify user")
    // Not drawn in the spec: a refused request, and a delegate that
    // ends without reporting.
    .end("denied", "You refuse\n(the agent goes on alone)")
    .was("Decision: deny")
    .step("b_failed", "The new agent ended\nwithout a report")
    .chain(&["analyze", "signal", "evaluate"])
    .edge("evaluate", "approve", "approved")
    .chain(&["approve", "launch", "b_work"])
    .chain(&["approve", "resume", "a_work"])
    .edge("b_work", "b_report", "")
    .edge("a_work", "a_report", "")
    .edge("b_report", "merge", "")
    .edge("a_report", "merge", "")
    .edge("evaluate", "denied", "denied")
    .edge("b_work", "b_failed", "")
    .edge("b_failed", "merge", "")
}

fn completion_report() -> Builder {
    diagram(
        DiagramId::CompletionReport,
        "The agent reports it is done",
        "The agent says it finished, with what it made; the app checks the files it names and tells you.",
        "subagent-signal-protocols.md Protocol 4: COMPLETION_REPORT",
    )
    .start("complete", "It finishes its work")
    .was("Completes all phases")
    .step("validate", "It checks its work")
    .was("Validate deliverables\nCheck against metrics")
    .step("signal", "It reports")
    .was("COMPLETION_REPORT\nstatus, deliverables, metrics_achieved")
    .step("parse", "The app reads the report")
    .was("Parse signal")
    .step("check", "The app checks the\nfiles it names")
    .was("Validate deliverables\nexist (file checks)")
    .step("compare", "Its results against\nwhat was asked")
    .was("Compare metrics_achieved\nvs original criteria")
    .step("extract", "Its advice kept")
    .was("Extract recommendations")
    .step("notify", "You are told\nthe task is done")
    .was("Notification\nTask completed")
    .end("terminates", "Over")
    .was("(terminates)")
    .chain(&["complete", "validate", "signal", "parse", "check", "compare", "extract", "notify", "terminates"])
}

fn checkpoint_resume() -> Builder {
    diagram(
        DiagramId::CheckpointResume,
        "Paused and resumed work",
        "Work saved before a blocker, so nothing is lost when the agent stops and goes on.",
        "subagent-signal-protocols.md Checkpoint-Resume Mechanism",
    )
    .start("initial", "The agent works")
    .was("SUBAGENT EXECUTION\nPhase 1: Initial work")
    .step("checkpoint", "It saves its progress")
    .was("CREATE CHECKPOINT")
    .step("blocker", "Something blocks it")
    .was("Phase 2: Encounter blocker")
    .step("signal", "It stops and says why")
    .was("Signal: STOP_WORK\n(agent pauses)")
    .step("resolution", "You resolve it")
    .was("PARENT RESOLUTION\nResolves blocker\nPrepares resume prompt")
    .step("issue", "Your answer is typed\nto the agent")
    .was("Issues: Task resume")
    .step("restore", "It picks up where\nit stopped")
    .was("SUBAGENT RESUME\nRESTORE FROM CHECKPOINT")
    .step("resumed", "It goes on")
    .was("Phase 2 (resumed):\nContinue work")
    .end("report", "It reports, no work lost")
    .was("Signal: COMPLETION_REPORT\nNo work lost during stop/resume")
    .chain(&["initial", "checkpoint", "blocker", "signal", "resolution", "issue", "restore", "resumed", "report"])
    // Not drawn in the spec: work that never needed a checkpoint, and a
    // second blocker after resuming.
    .edge("initial", "report", "no blocker")
    .edge("resumed", "blocker", "another blocker")
}

fn task_queue() -> Builder {
    diagram(
        DiagramId::TaskQueue,
        "Tasks, from queue to summary",
        "A task waits its turn, is typed to the agent, and ends when the agent writes its summary.",
        "execution-protocol-and-task-queue.md Complete Example Flow",
    )
    .start("submit", "You give a task")
    .was("User: a task")
    .ask("busy", "Is the agent busy?")
    .step("queued", "Queued, waiting\nits turn")
    .was("Queue task\nTask queued (position N)")
    .step("executing", "Its turn: taken\nfrom the queue")
    .was("is_executing = True\ncurrent_task_id")
    .step("send", "Typed to the agent\n(and Enter)")
    .was("Send to the agent\n+ automatic Enter")
    .step("working", "The agent works")
    .was("Agent starts working\nimmediately")
    .step("monitor", "Waiting for its\nsummary")
    .was("Monitor: summaries/<task_id>.md\nexists?")
    .step("detect", "Its summary is written")
    .was("Detects summaries/<task_id>.md")
    .step("done", "The task is over")
    .was("is_executing = False\ncurrent_task_id = None")
    .step("artifacts", "The summary and the\nfiles it names are read")
    .was("Reads summary, extracts key files\nSends artifacts")
    .ask("more", "More tasks waiting?")
    .was("Any tasks waiting?")
    .step("next", "The next task starts")
    .was("Start next task from queue")
    .end("idle", "Idle, ready for\na new task")
    .was("Idle, ready for new tasks")
    // Not drawn in the spec (its fallback summary): a task that ends
    // without its summary file.
    .step("fallback", "Ended without its summary\n(the app wrote one)")
    .was("Ended without its summary\n(fallback summary)")
    .edge("submit", "busy", "")
    .edge("busy", "queued", "yes")
    .edge("busy", "executing", "no")
    .edge("queued", "executing", "its turn")
    .chain(&["executing", "send", "working", "monitor", "detect", "done", "artifacts", "more"])
    .edge("more", "next", "yes")
    .edge("more", "idle", "no")
    .edge("next", "executing", "")
    .edge("executing", "fallback", "")
    .edge("send", "fallback", "")
    .edge("monitor", "fallback", "")
    .edge("fallback", "more", "")
    .edge("idle", "submit", "")
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;

    #[test]
    fn every_diagram_is_well_formed() {
        assert_eq!(all().len(), DiagramId::ALL.len());
        for diagram in all() {
            let ids: Vec<&str> = diagram.nodes.iter().map(|n| n.id.as_str()).collect();
            let unique: BTreeSet<&str> = ids.iter().copied().collect();
            assert_eq!(unique.len(), ids.len(), "{:?}: node ids repeat", diagram.id);
            for edge in &diagram.edges {
                assert!(diagram.has_node(&edge.from), "{:?}: edge from unknown {}", diagram.id, edge.from);
                assert!(diagram.has_node(&edge.to), "{:?}: edge to unknown {}", diagram.id, edge.to);
            }
            let starts: Vec<&str> =
                diagram.nodes.iter().filter(|n| n.shape == NodeShape::Start).map(|n| n.id.as_str()).collect();
            assert_eq!(starts.len(), 1, "{:?}: one start", diagram.id);
            // Every node is reachable from the start.
            let mut seen = BTreeSet::from([starts[0]]);
            loop {
                let before = seen.len();
                for edge in &diagram.edges {
                    if seen.contains(edge.from.as_str()) {
                        seen.insert(edge.to.as_str());
                    }
                }
                if seen.len() == before {
                    break;
                }
            }
            assert_eq!(seen, unique, "{:?}: unreachable nodes", diagram.id);
            assert!(
                !diagram.nodes.iter().any(|n| n.label.chars().any(|c| c as u32 > 0x2000)),
                "{:?}: no emoji",
                diagram.id
            );
        }
    }

    /// Regression: the window drew the spec's field names ("is_executing =
    /// True", "ToolUse Event", "§3 Agent Status Flow") as the diagrams'
    /// words; they stay only as the spec's label beside the user's.
    #[test]
    fn diagrams_speak_the_users_words() {
        let code = |text: &str| {
            text.contains('_') || text.contains('=') || text.contains('§') || text.contains("Event") || {
                // A word in capitals (COMPLETION_REPORT, STALLED) or in camelCase.
                text.split(|c: char| !c.is_alphanumeric()).any(|w| {
                    w.len() > 2 && w.chars().all(|c| c.is_ascii_uppercase())
                        || w.chars().skip(1).any(|c| c.is_ascii_uppercase())
                })
            }
        };
        for diagram in all() {
            assert!(!code(&diagram.title), "{:?}: title {:?}", diagram.id, diagram.title);
            assert!(diagram.about.ends_with('.') && !code(&diagram.about), "{:?}: about", diagram.id);
            for node in &diagram.nodes {
                assert!(!code(&node.label), "{:?}: node {} reads {:?}", diagram.id, node.id, node.label);
            }
            for edge in &diagram.edges {
                let label = edge.label.as_deref().unwrap_or_default();
                assert!(!code(label), "{:?}: edge {}→{} reads {label:?}", diagram.id, edge.from, edge.to);
            }
        }
        // The spec's words are kept beside them.
        let queue = get(DiagramId::TaskQueue);
        let executing = queue.nodes.iter().find(|n| n.id == "executing").expect("the queue has its executing step");
        assert_eq!(executing.spec.as_deref(), Some("is_executing = True\ncurrent_task_id"));
    }

    #[test]
    fn a_plain_command_has_no_hook_diagrams_and_an_untaught_agent_no_protocol_ones() {
        use DiagramId as D;
        use DiagramSilence::{NoHooks, NoSignalProtocols};
        let cases: &[(D, AgentKind, bool, Option<DiagramSilence>)] = &[
            (D::AgentStatus, AgentKind::Generic, true, None),
            (D::AgentStatus, AgentKind::ClaudeCode, true, None),
            (D::AgentStatus, AgentKind::Codex, false, None),
            (D::TeamLead, AgentKind::Generic, true, Some(NoHooks)),
            (D::TeamLifecycle, AgentKind::Generic, false, Some(NoHooks)),
            (D::CompletionDecision, AgentKind::Generic, true, Some(NoHooks)),
            (D::Clarification, AgentKind::Generic, true, None),
            (D::Clarification, AgentKind::ClaudeCode, false, Some(NoSignalProtocols)),
            (D::CheckpointResume, AgentKind::Generic, false, Some(NoSignalProtocols)),
            (D::TaskQueue, AgentKind::Generic, false, None),
            (D::LoopMode, AgentKind::Generic, false, None),
            (D::StopEvent, AgentKind::Generic, false, None),
        ];
        for &(diagram, kind, taught, expected) in cases {
            assert_eq!(silence(diagram, kind, taught), expected, "{diagram:?} for {kind:?}, taught: {taught}");
        }
    }
}
