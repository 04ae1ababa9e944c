//! The spec's diagrams as data: nodes named by the spec's labels, its
//! colours where it gives them, its edges, and the few moves real agents
//! make that its drawing leaves out (each marked below). Emoji in the
//! spec's labels are left out: they need a font a machine may not have.

use std::sync::LazyLock;

use crate::api::{Diagram, DiagramId, FlowEdge, FlowNode, NodeShape};

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
        self.0.nodes.push(FlowNode { id: id.into(), label: label.into(), shape, fill: None, stroke: None });
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

fn diagram(id: DiagramId, title: &str, source: &str) -> Builder {
    Builder(Diagram { id, title: title.into(), source: source.into(), nodes: Vec::new(), edges: Vec::new() })
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
    diagram(DiagramId::AgentStatus, "Agent status", "loop-and-hook-state-machines.md §3 Agent Status Flow")
        .start("session_start", "SessionStart Event")
        .step("waiting", "Status: Waiting")
        .step("tool_use", "ToolUse Event\nStatus: Working")
        .step("permission", "Permission Request\nStatus: Attention")
        .step("stop", "Stop Event\nStatus: Waiting (if loop: Continue)\nStatus: Done (if complete)")
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
    diagram(DiagramId::LoopMode, "Loop mode", "loop-and-hook-state-machines.md §1 Loop Mode State Machine")
        .start("none", "None\nAgent not in loop mode")
        .step("active", "Active\nLoop running")
        .end("complete", "Complete\n(stop word / max)")
        .end("stalled", "Stalled\n(5+ same reasons)")
        .step("continue", "Continue\n(Judge says ok)")
        .end("cancelled", "Cancelled\n(user X key)")
        .edge("none", "active", "spawn agent (loop enabled)")
        .edge("active", "complete", "")
        .edge("active", "stalled", "")
        .edge("active", "continue", "")
        .edge("active", "cancelled", "")
        .edge("continue", "active", "spawn fresh session")
        // Not drawn in the spec: the user resumes a stalled loop.
        .edge("stalled", "active", "resumed")
        .edge("stalled", "cancelled", "")
}

fn stop_event() -> Builder {
    diagram(DiagramId::StopEvent, "Stop event", "loop-and-hook-state-machines.md §2 Event Processing Flow (Stop Event)")
        .start("received", "Stop Event\nReceived")
        .ask("loop_active", "agent.loop_mode ==\nActive?")
        .step("judge", "Judge Evaluation\nCheck progress\nCheck stall\nCheck max iter")
        .end("normal", "Normal Stop\nProcessing")
        .end("complete", "COMPLETE\nSet: Complete\nNotify user")
        .end("stalled", "STALLED\nSet: Stalled\nNotify user")
        .end("continue", "CONTINUE\nAction: respawn\nfresh session")
        .edge("received", "loop_active", "")
        .edge("loop_active", "judge", "YES")
        .edge("loop_active", "normal", "NO")
        .edge("judge", "complete", "")
        .edge("judge", "stalled", "")
        .edge("judge", "continue", "")
}

fn team_lead() -> Builder {
    diagram(
        DiagramId::TeamLead,
        "Lead completion gate",
        "team-completion-flow-diagrams.md ClaudeAgent: Current (Correct) Flow",
    )
    .start("a", "User sends message")
    .step("b", "Agent processes")
    .ask("c", "Task tool with\nteam_name?")
    .step("d", "Set activeTeamName\nIncrement activeTeammateCount")
    .step("e", "Normal processing")
    .step("f", "Spawn teammate")
    .step("g", "Return tool result")
    .ask("h", "Agent result message\nsubtype=success")
    .ask("i", "Check team state:\nactiveTeamName &&\nactiveTeammateCount > 0?")
    .step("j", "Emit usage_update")
    .step("k", "Emit complete")
    .end("l", "Session stays alive\nLead continues")
    .end("m", "Session terminates")
    .colour("i", GREEN)
    .colour("j", BLUE)
    .colour("k", ORANGE)
    .chain(&["a", "b", "c"])
    .edge("c", "d", "Yes")
    .edge("c", "e", "No")
    .chain(&["d", "f", "g"])
    .chain(&["e", "g", "h", "i"])
    .edge("i", "j", "Yes - Team Active")
    .edge("i", "k", "No - No Team")
    .edge("j", "l", "")
    .edge("k", "m", "")
    // Not drawn in the spec: the agent's next tool call in the same turn.
    .edge("g", "c", "next tool call")
    .edge("b", "h", "no tool call")
    .edge("l", "c", "lead continues")
    .edge("l", "h", "")
}

fn team_lifecycle() -> Builder {
    diagram(DiagramId::TeamLifecycle, "Team state", "team-completion-flow-diagrams.md State Lifecycle")
        .start("begin", "Session starts")
        .step("no_team", "NoTeam\nactiveTeamName = null\nactiveTeammateCount = 0")
        .step("team_active", "TeamActive\nactiveTeamName set\nactiveTeammateCount > 0")
        .step("team_completing", "TeamCompleting")
        .end("done", "Emit complete\nSession terminates")
        .edge("begin", "no_team", "Session starts")
        .edge("no_team", "team_active", "Task tool spawns first teammate")
        .edge("team_active", "team_active", "Additional teammates spawned")
        .edge("team_active", "team_completing", "Teammate shuts down")
        .edge("team_completing", "team_completing", "More teammates shut down")
        .edge("team_completing", "no_team", "Last teammate done")
        .edge("no_team", "done", "Emit complete")
        // Not drawn in the spec: all teammates gone at once, a spawn while
        // others finish, and the next message after a completed turn.
        .edge("team_active", "no_team", "all teammates done")
        .edge("team_completing", "team_active", "teammate spawned")
        .edge("done", "no_team", "next message")
}

fn completion_decision() -> Builder {
    diagram(
        DiagramId::CompletionDecision,
        "Completion decision",
        "team-completion-flow-diagrams.md Completion Decision Tree",
    )
    .start("a", "Agent receives\nresult message")
    .ask("b", "subtype === 'success'?")
    .step("c", "Emit error")
    .end("d", "Emit complete\nAlways complete on error")
    .ask("e", "activeTeamName\nis set?")
    .step("f", "No team")
    .end("g", "Emit complete\nNormal termination")
    .ask("h", "activeTeammateCount\n> 0?")
    .step("i", "Team exists but\nno teammates")
    .step("j", "Team is active")
    .step("k", "Emit usage_update\nKeep session alive")
    .end("l", "Lead continues\nprocessing")
    .colour("j", GREEN)
    .colour("k", BLUE)
    .colour("f", ORANGE)
    .colour("i", ORANGE)
    .colour("g", ORANGE)
    .chain(&["a", "b"])
    .edge("b", "c", "No - Error")
    .edge("c", "d", "")
    .edge("b", "e", "Yes - Success")
    .edge("e", "f", "No")
    .edge("f", "g", "")
    .edge("e", "h", "Yes")
    .edge("h", "i", "No")
    .edge("i", "g", "")
    .edge("h", "j", "Yes")
    .chain(&["j", "k", "l"])
}

fn clarification() -> Builder {
    diagram(
        DiagramId::Clarification,
        "Clarification needed",
        "subagent-signal-protocols.md Protocol 1: CLARIFICATION_NEEDED",
    )
    .start("ambiguity", "Encounters ambiguity")
    .step("checkpoint", "Create checkpoint\n(save progress)")
    .step("signal", "CLARIFICATION_NEEDED\nblocked_at, questions, current_state")
    .step("parse", "Parse signal\nExtract questions")
    .step("ask", "AskUserQuestion\nWaiting for the user")
    .step("answer", "Answer")
    .step("resume", "Task resume\nCLARIFICATION RESPONSE")
    .step("restore", "Restore state from\ncheckpoint")
    .end("continue", "Continue work with\nclarified information")
    // Not drawn in the spec: the user dismisses the question.
    .end("dismissed", "Dismissed\n(nothing sent)")
    .chain(&["ambiguity", "checkpoint", "signal", "parse", "ask", "answer", "resume", "restore", "continue"])
    .edge("ask", "dismissed", "dismissed")
}

fn stop_work() -> Builder {
    diagram(DiagramId::StopWork, "Stop work", "subagent-signal-protocols.md Protocol 2: STOP_WORK")
        .start("attempt", "Attempts operation")
        .step("blocker", "Encounters blocker")
        .step("checkpoint", "Create checkpoint\n(save completed work)")
        .step("signal", "STOP_WORK\nblocker_type, details, state_snapshot")
        .step("parse", "Parse signal\nRead blocker details")
        .step("resolve", "Resolve blocker\nWaiting for the user")
        .step("resume", "Task resume\nBLOCKER RESOLVED")
        .step("restore", "Restore from checkpoint")
        .end("continue", "Continue with\nresolved dependency")
        .end("dismissed", "Dismissed\n(nothing sent)")
        .chain(&["attempt", "blocker", "checkpoint", "signal", "parse", "resolve"])
        .edge("resolve", "resume", "resolved / retry / skip / delegate")
        .chain(&["resume", "restore", "continue"])
        .edge("resolve", "dismissed", "dismissed")
}

fn delegate_work() -> Builder {
    diagram(DiagramId::DelegateWork, "Delegate work", "subagent-signal-protocols.md Protocol 3: DELEGATE_WORK")
        .start("analyze", "Analyzes task\nIdentifies separate\nparallelizable work")
        .step("signal", "DELEGATE_WORK\nnew_task_description, independence")
        .step("evaluate", "Evaluate request\nWaiting for the user")
        .step("approve", "Decision: APPROVE")
        .step("launch", "/bg launch\n(new task description)")
        .step("b_work", "Subagent B\nStart work")
        .step("resume", "Task resume=\"A\"\nDELEGATION APPROVED")
        .step("a_work", "Subagent A\nContinue work (parallel to B)")
        .step("b_report", "B: COMPLETION_REPORT")
        .step("a_report", "A: COMPLETION_REPORT")
        .end("merge", "Both completed\nMerge results\nNotify user")
        // Not drawn in the spec: a refused request, and a delegate that
        // ends without reporting.
        .end("denied", "Decision: deny\n(the agent goes on alone)")
        .step("b_failed", "Subagent B ended\nwithout a report")
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
        "Completion report",
        "subagent-signal-protocols.md Protocol 4: COMPLETION_REPORT",
    )
    .start("complete", "Completes all phases")
    .step("validate", "Validate deliverables\nCheck against metrics")
    .step("signal", "COMPLETION_REPORT\nstatus, deliverables, metrics_achieved")
    .step("parse", "Parse signal")
    .step("check", "Validate deliverables\nexist (file checks)")
    .step("compare", "Compare metrics_achieved\nvs original criteria")
    .step("extract", "Extract recommendations")
    .step("notify", "Notification\nTask completed")
    .end("terminates", "(terminates)")
    .chain(&["complete", "validate", "signal", "parse", "check", "compare", "extract", "notify", "terminates"])
}

fn checkpoint_resume() -> Builder {
    diagram(
        DiagramId::CheckpointResume,
        "Checkpoint and resume",
        "subagent-signal-protocols.md Checkpoint-Resume Mechanism",
    )
    .start("initial", "SUBAGENT EXECUTION\nPhase 1: Initial work")
    .step("checkpoint", "CREATE CHECKPOINT")
    .step("blocker", "Phase 2: Encounter blocker")
    .step("signal", "Signal: STOP_WORK\n(agent pauses)")
    .step("resolution", "PARENT RESOLUTION\nResolves blocker\nPrepares resume prompt")
    .step("issue", "Issues: Task resume")
    .step("restore", "SUBAGENT RESUME\nRESTORE FROM CHECKPOINT")
    .step("resumed", "Phase 2 (resumed):\nContinue work")
    .end("report", "Signal: COMPLETION_REPORT\nNo work lost during stop/resume")
    .chain(&["initial", "checkpoint", "blocker", "signal", "resolution", "issue", "restore", "resumed", "report"])
    // Not drawn in the spec: work that never needed a checkpoint, and a
    // second blocker after resuming.
    .edge("initial", "report", "no blocker")
    .edge("resumed", "blocker", "another blocker")
}

fn task_queue() -> Builder {
    diagram(
        DiagramId::TaskQueue,
        "Task queue and completion",
        "execution-protocol-and-task-queue.md Complete Example Flow",
    )
    .start("submit", "User: a task")
    .ask("busy", "Is the agent busy?")
    .step("queued", "Queue task\nTask queued (position N)")
    .step("executing", "is_executing = True\ncurrent_task_id")
    .step("send", "Send to the agent\n+ automatic Enter")
    .step("working", "Agent starts working\nimmediately")
    .step("monitor", "Monitor: summaries/<task_id>.md\nexists?")
    .step("detect", "Detects summaries/<task_id>.md")
    .step("done", "is_executing = False\ncurrent_task_id = None")
    .step("artifacts", "Reads summary, extracts key files\nSends artifacts")
    .ask("more", "Any tasks waiting?")
    .step("next", "Start next task from queue")
    .end("idle", "Idle, ready for new tasks")
    // Not drawn in the spec (its fallback summary): a task that ends
    // without its summary file.
    .step("fallback", "Ended without its summary\n(fallback summary)")
    .edge("submit", "busy", "")
    .edge("busy", "queued", "YES")
    .edge("busy", "executing", "NO")
    .edge("queued", "executing", "its turn")
    .chain(&["executing", "send", "working", "monitor", "detect", "done", "artifacts", "more"])
    .edge("more", "next", "YES")
    .edge("more", "idle", "NO")
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
}
