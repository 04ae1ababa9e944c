//! TypeScript declarations for the UI, generated from the Rust types so the
//! two sides cannot drift. The generated file is committed at
//! `ui/src/lib/bindings.ts`; the `bindings_are_fresh` test fails when it is
//! stale, and regenerates it when run with `SWITCHBOARD_BLESS=1`.

use ts_rs::{Config, TS};

use crate::api::{
    AgentStatusInfo, ApiError, AppInfo, Artifact, Command, CompletionRule, DeliverableCheck, EngineEvent, EngineLink,
    ErrorCode, IntoReply, LogEntry, LogKind, MemberResult, MergedResult, PermissionDecision, PermissionRequest,
    Profile, ProfileSpec, QueueStatus, RejectedPath, Reply, ScreenSnapshot, SessionInfo, SessionState, SignalAction,
    SignalChannel, SignalInfo, SignalResponse, SignalState, Submitted, TaskInfo, TaskResult, TaskSpec, TaskState,
};
use crate::session::SubscriptionId;
use switchboard_protocol::hook::{AgentStatus, BackgroundTask, HookEnvelope};
use switchboard_protocol::signal::{Independence, MalformedLine, ScanEvent, Signal, SignalBody, SignalKind};
use switchboard_protocol::summary::{Summary, SummaryStatus, TestCounts};
use switchboard_protocol::{AgentKind, Priority, ProfileId, SessionId, SignalId, TaskId, TermSize};

/// Where the generated file lives, relative to the repository root.
pub const BINDINGS_PATH: &str = "ui/src/lib/bindings.ts";

/// The whole generated file.
pub fn typescript() -> String {
    // Timestamps are i64 milliseconds; JSON numbers represent them exactly
    // until the year 287396.
    let cfg = Config::new().with_large_int("number");
    let declarations = [
        ProfileId::decl(&cfg),
        SessionId::decl(&cfg),
        TaskId::decl(&cfg),
        SignalId::decl(&cfg),
        AgentKind::decl(&cfg),
        Priority::decl(&cfg),
        TermSize::decl(&cfg),
        CompletionRule::decl(&cfg),
        ProfileSpec::decl(&cfg),
        Profile::decl(&cfg),
        crate::api::ProfileField::decl(&cfg),
        crate::api::ProfileProblem::decl(&cfg),
        crate::api::AgentPreset::decl(&cfg),
        SessionState::decl(&cfg),
        SessionInfo::decl(&cfg),
        ScreenSnapshot::decl(&cfg),
        crate::api::ScreenPrompt::decl(&cfg),
        crate::api::DetectedAgent::decl(&cfg),
        crate::api::CliFound::decl(&cfg),
        TaskSpec::decl(&cfg),
        TaskState::decl(&cfg),
        SummaryStatus::decl(&cfg),
        TestCounts::decl(&cfg),
        Summary::decl(&cfg),
        Artifact::decl(&cfg),
        RejectedPath::decl(&cfg),
        TaskResult::decl(&cfg),
        crate::api::WaitingFor::decl(&cfg),
        TaskInfo::decl(&cfg),
        QueueStatus::decl(&cfg),
        crate::api::QueuePause::decl(&cfg),
        crate::api::RestartTask::decl(&cfg),
        crate::api::Restarted::decl(&cfg),
        Submitted::decl(&cfg),
        serde_json::Value::decl(&cfg),
        SignalKind::decl(&cfg),
        Independence::decl(&cfg),
        SignalBody::decl(&cfg),
        Signal::decl(&cfg),
        ScanEvent::decl(&cfg),
        SignalChannel::decl(&cfg),
        SignalState::decl(&cfg),
        SignalResponse::decl(&cfg),
        SignalAction::decl(&cfg),
        DeliverableCheck::decl(&cfg),
        MalformedLine::decl(&cfg),
        MemberResult::decl(&cfg),
        MergedResult::decl(&cfg),
        SignalInfo::decl(&cfg),
        switchboard_protocol::LoopId::decl(&cfg),
        switchboard_protocol::loops::LoopSettings::decl(&cfg),
        switchboard_protocol::loops::Completion::decl(&cfg),
        switchboard_protocol::loops::Verdict::decl(&cfg),
        crate::api::LoopIteration::decl(&cfg),
        crate::api::IterationOutcome::decl(&cfg),
        crate::api::Iteration::decl(&cfg),
        crate::api::LoopState::decl(&cfg),
        crate::api::LoopInfo::decl(&cfg),
        crate::api::LoopFiles::decl(&cfg),
        crate::api::LoopFile::decl(&cfg),
        crate::api::DelegationState::decl(&cfg),
        crate::api::Delegation::decl(&cfg),
        AgentStatus::decl(&cfg),
        crate::api::TeamInfo::decl(&cfg),
        AgentStatusInfo::decl(&cfg),
        BackgroundTask::decl(&cfg),
        HookEnvelope::decl(&cfg),
        PermissionRequest::decl(&cfg),
        PermissionDecision::decl(&cfg),
        crate::api::NotifyChoices::decl(&cfg),
        crate::api::QuietHours::decl(&cfg),
        crate::api::Theme::decl(&cfg),
        crate::api::TerminalGrid::decl(&cfg),
        crate::api::GridShows::decl(&cfg),
        crate::api::Settings::decl(&cfg),
        crate::api::StorageProblem::decl(&cfg),
        crate::api::StorageStatus::decl(&cfg),
        Command::decl(&cfg),
        Reply::decl(&cfg),
        EngineEvent::decl(&cfg),
        LogKind::decl(&cfg),
        crate::api::LoopStep::decl(&cfg),
        LogEntry::decl(&cfg),
        crate::api::DiagramId::decl(&cfg),
        crate::api::NodeShape::decl(&cfg),
        crate::api::FlowNode::decl(&cfg),
        crate::api::FlowEdge::decl(&cfg),
        crate::api::Diagram::decl(&cfg),
        crate::api::FlowTarget::decl(&cfg),
        crate::api::FollowedLog::decl(&cfg),
        crate::api::PathStep::decl(&cfg),
        crate::api::EdgeCount::decl(&cfg),
        crate::api::NodeEvents::decl(&cfg),
        crate::api::GateInputs::decl(&cfg),
        crate::api::DiagramState::decl(&cfg),
        crate::api::DiagramSilence::decl(&cfg),
        crate::api::FlowView::decl(&cfg),
        crate::api::FlowEvents::decl(&cfg),
        crate::api::Need::decl(&cfg),
        crate::api::Stall::decl(&cfg),
        crate::api::Ending::decl(&cfg),
        crate::api::Attention::decl(&cfg),
        crate::api::AgentAttention::decl(&cfg),
        crate::api::Isolation::decl(&cfg),
        crate::api::FolderRepository::decl(&cfg),
        crate::api::WorktreeState::decl(&cfg),
        crate::api::WorktreeOverlap::decl(&cfg),
        crate::api::AccountLimit::decl(&cfg),
        crate::api::AccountUsage::decl(&cfg),
        crate::api::UsageLevel::decl(&cfg),
        crate::api::FolderListing::decl(&cfg),
        crate::api::LimitPhase::decl(&cfg),
        crate::api::UsageWindow::decl(&cfg),
        crate::api::WorktreeInfo::decl(&cfg),
        crate::api::FileStatus::decl(&cfg),
        crate::api::DiffContent::decl(&cfg),
        crate::api::FileDiff::decl(&cfg),
        crate::api::WorktreeDiff::decl(&cfg),
        crate::api::CommitOutcome::decl(&cfg),
        crate::api::MergeOutcome::decl(&cfg),
        crate::api::DiscardOutcome::decl(&cfg),
        crate::api::RebaseOutcome::decl(&cfg),
        crate::api::ReviewComment::decl(&cfg),
        crate::api::ReviewStep::decl(&cfg),
        crate::api::Viewing::decl(&cfg),
        crate::api::OverviewAgent::decl(&cfg),
        crate::api::OverviewHelper::decl(&cfg),
        crate::api::LinkKind::decl(&cfg),
        crate::api::OverviewLink::decl(&cfg),
        crate::api::Overview::decl(&cfg),
        crate::api::Found::decl(&cfg),
        crate::api::SearchHit::decl(&cfg),
        ErrorCode::decl(&cfg),
        ApiError::decl(&cfg),
        AppInfo::decl(&cfg),
        crate::api::OpenTarget::decl(&cfg),
        EngineLink::decl(&cfg),
        crate::api::HostState::decl(&cfg),
        crate::api::HostLink::decl(&cfg),
        crate::api::EventPace::decl(&cfg),
        crate::api::HostCondition::decl(&cfg),
        crate::api::HostKeyShown::decl(&cfg),
        SubscriptionId::decl(&cfg),
    ];
    let mut out = String::from(
        "// Generated from the Rust types in switchboard-core and switchboard-protocol.\n\
         // Do not edit: run `SWITCHBOARD_BLESS=1 cargo test -p switchboard-core bindings` instead.\n\n",
    );
    for declaration in declarations {
        out.push_str("export ");
        out.push_str(&declaration);
        out.push_str("\n\n");
    }
    out.push_str(&typed_calls(&cfg));
    out.truncate(out.trim_end().len());
    out.push('\n');
    out
}

/// One command of the engine's list as the window's TypeScript sees it.
struct CommandDoc {
    method: &'static str,
    window: bool,
    docs: Vec<&'static str>,
    /// Its arguments: the wire name and the TypeScript type.
    args: Vec<(&'static str, String)>,
    /// The TypeScript type it answers with.
    output: String,
    /// The `type` of its reply on the wire.
    reply: &'static str,
}

macro_rules! command_docs {
    ($(
        $(#[doc = $doc:literal])*
        $reach:ident $timing:ident $method:ident / $variant:ident ($($arg:ident : $ty:ty),* $(,)?) -> $out:ty;
    )*) => {
        fn command_docs(cfg: &Config) -> Vec<CommandDoc> {
            vec![$(
                CommandDoc {
                    method: stringify!($method),
                    window: matches!(stringify!($reach), "window" | "user"),
                    docs: vec![$($doc),*],
                    args: vec![$((stringify!($arg), <$ty as TS>::name(cfg))),*],
                    output: <$out as TS>::name(cfg),
                    reply: <$out as IntoReply>::KIND,
                },
            )*]
        }
    };
}

crate::api::engine_commands!(command_docs);

/// `list_profiles` as `listProfiles`.
fn camel(snake: &str) -> String {
    let mut out = String::new();
    let mut upper = false;
    for c in snake.chars() {
        match c {
            '_' => upper = true,
            c if upper => {
                out.extend(c.to_uppercase());
                upper = false;
            }
            c => out.push(c),
        }
    }
    out
}

/// The window's typed calls, one per command the window may send: the
/// `EngineCommands` interface a backend implements, the calls over a
/// function that sends a `Command`, and the way back from a `Command` to a
/// backend's method.
fn typed_calls(cfg: &Config) -> String {
    let commands: Vec<CommandDoc> = command_docs(cfg).into_iter().filter(|c| c.window).collect();
    let mut interface = String::new();
    let mut calls = String::new();
    let mut dispatch = String::new();
    for command in &commands {
        let name = camel(command.method);
        let output = if command.reply == "unit" { "void".to_owned() } else { command.output.clone() };
        let params: Vec<String> = command.args.iter().map(|(arg, ty)| format!("{}: {ty}", camel(arg))).collect();
        let names: Vec<String> = command.args.iter().map(|(arg, _)| camel(arg)).collect();
        let fields: String = command.args.iter().map(|(arg, _)| format!(", {arg}: {}", camel(arg))).collect();
        let docs: Vec<&str> = command.docs.iter().map(|line| line.trim()).collect();
        if !docs.is_empty() {
            interface.push_str(&format!("  /** {} */\n", docs.join(" ")));
        }
        interface.push_str(&format!("  {name}({}): Promise<{output}>;\n", params.join(", ")));
        calls.push_str(&format!(
            "    {name}: async ({}) => replyValue(await send({{ type: \"{}\"{fields} }}), \"{}\"),\n",
            names.join(", "),
            command.method,
            command.reply,
        ));
        let args = command.args.iter().map(|(arg, _)| format!("command.{arg}")).collect::<Vec<_>>().join(", ");
        let case = format!("    case \"{}\":\n", command.method);
        if command.reply == "unit" {
            dispatch
                .push_str(&format!("{case}      await target.{name}({args});\n      return {{ type: \"unit\" }};\n"));
        } else {
            let reply = command.reply;
            dispatch.push_str(&format!(
                "{case}      return {{ type: \"{reply}\", value: await target.{name}({args}) }};\n"
            ));
        }
    }
    format!(
        "/** The engine's commands the window may send, as typed calls (one per command of the engine's list). */\n\
         export interface EngineCommands {{\n{interface}}}\n\n\
         /** The window's commands over `send`, which carries one `Command` to the engine and resolves with its `Reply`. */\n\
         export function engineCommands(send: (command: Command) => Promise<Reply>): EngineCommands {{\n  return {{\n{calls}  }};\n}}\n\n\
         /** Carries a window command to a backend's method of the same name, answering as the engine would. */\n\
         export async function dispatchCommand(target: EngineCommands, command: Command): Promise<Reply> {{\n  switch (command.type) {{\n{dispatch}    default:\n      throw {{ code: \"invalid_input\", message: `\\`${{command.type}}\\` is not a command of the window`, field: \"command\" }} as ApiError;\n  }}\n}}\n\n\
         type ReplyValue<K extends Reply[\"type\"]> = Extract<Reply, {{ type: K }}> extends {{ value: infer V }} ? V : void;\n\n\
         function replyValue<K extends Reply[\"type\"]>(reply: Reply, kind: K): ReplyValue<K> {{\n  if (reply.type !== kind) {{\n    throw {{ code: \"internal\", message: `the engine answered ${{reply.type}} where ${{kind}} was expected`, field: null }} as ApiError;\n  }}\n  return (\"value\" in reply ? reply.value : undefined) as ReplyValue<K>;\n}}\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Compares a generated file with the committed one; `SWITCHBOARD_BLESS=1` writes it.
    fn check_fresh(relative: &str, generated: &str) {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").join(relative);
        if std::env::var_os("SWITCHBOARD_BLESS").is_some() {
            std::fs::write(&path, generated).unwrap();
            return;
        }
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            committed == generated,
            "{relative} is stale; regenerate it with `SWITCHBOARD_BLESS=1 cargo test -p switchboard-core bindings`"
        );
    }

    /// The diagrams as the window's fake backend answers `flow_diagrams`
    /// (the real backend asks the engine).
    #[test]
    fn diagram_data_for_the_fake_backend_is_fresh() {
        let generated = serde_json::to_string_pretty(crate::flows::diagrams::all()).unwrap() + "\n";
        check_fresh("ui/src/test/diagrams.json", &generated);
    }

    /// The presets as the window's fake backend answers `agent_presets`.
    #[test]
    fn preset_data_for_the_fake_backend_is_fresh() {
        let generated = serde_json::to_string_pretty(&crate::presets::presets()).unwrap() + "\n";
        check_fresh("ui/src/test/presets.json", &generated);
    }

    #[test]
    fn bindings_are_fresh() {
        check_fresh(BINDINGS_PATH, &typescript());
    }
}
