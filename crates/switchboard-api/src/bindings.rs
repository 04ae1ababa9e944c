//! TypeScript declarations for the UI, generated from the Rust types so the
//! two sides cannot drift. The generated file is committed at
//! `ui/src/lib/bindings.ts`; a test of the engine crate fails when it is
//! stale, and regenerates it when run with `SWITCHBOARD_BLESS=1`.

use ts_rs::{Config, TS};

use crate::SubscriptionId;
use crate::{
    AgentStatusInfo, ApiError, AppInfo, Artifact, Command, CompletionRule, DeliverableCheck, EngineEvent, EngineLink,
    ErrorCode, IntoReply, LogEntry, LogKind, MemberResult, MergedResult, PermissionDecision, PermissionRequest,
    Profile, ProfileSpec, QueueStatus, RejectedPath, Reply, ScreenSnapshot, SessionInfo, SessionState, SignalAction,
    SignalChannel, SignalResponse, SignalState, Submitted, TaskResult, TaskSpec, TaskState, ToolAnswer, ToolCall,
};
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
        agents(&cfg),
        tasks(&cfg),
        signals(&cfg),
        loops(&cfg),
        status(&cfg),
        wire(&cfg),
        flows(&cfg),
        worktrees(&cfg),
        window(&cfg),
    ]
    .concat();
    let mut out = String::from(
        "// Generated from the Rust types in switchboard-api and switchboard-protocol.\n\
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

/// Agents and their sessions, and the ids everything is named by.
fn agents(cfg: &Config) -> Vec<String> {
    vec![
        ProfileId::decl(cfg),
        SessionId::decl(cfg),
        TaskId::decl(cfg),
        SignalId::decl(cfg),
        AgentKind::decl(cfg),
        Priority::decl(cfg),
        TermSize::decl(cfg),
        CompletionRule::decl(cfg),
        ProfileSpec::decl(cfg),
        Profile::decl(cfg),
        crate::ProfileField::decl(cfg),
        crate::ProfileProblem::decl(cfg),
        crate::AgentPreset::decl(cfg),
        SessionState::decl(cfg),
        SessionInfo::decl(cfg),
        ScreenSnapshot::decl(cfg),
        crate::ScreenPrompt::decl(cfg),
        crate::DetectedAgent::decl(cfg),
        crate::CliFound::decl(cfg),
    ]
}

/// Tasks and their queues.
fn tasks(cfg: &Config) -> Vec<String> {
    vec![
        TaskSpec::decl(cfg),
        TaskState::decl(cfg),
        SummaryStatus::decl(cfg),
        TestCounts::decl(cfg),
        Summary::decl(cfg),
        Artifact::decl(cfg),
        RejectedPath::decl(cfg),
        TaskResult::decl(cfg),
        crate::WaitingFor::decl(cfg),
        crate::TaskAction::decl(cfg),
        crate::TaskRecord::decl(cfg),
        QueueStatus::decl(cfg),
        crate::QueuePause::decl(cfg),
        crate::RestartTask::decl(cfg),
        crate::Restarted::decl(cfg),
        Submitted::decl(cfg),
        serde_json::Value::decl(cfg),
    ]
}

/// Signals, their answers and delegated results.
fn signals(cfg: &Config) -> Vec<String> {
    vec![
        SignalKind::decl(cfg),
        Independence::decl(cfg),
        SignalBody::decl(cfg),
        Signal::decl(cfg),
        ScanEvent::decl(cfg),
        SignalChannel::decl(cfg),
        ToolCall::decl(cfg),
        ToolAnswer::decl(cfg),
        SignalState::decl(cfg),
        SignalResponse::decl(cfg),
        SignalAction::decl(cfg),
        DeliverableCheck::decl(cfg),
        MalformedLine::decl(cfg),
        MemberResult::decl(cfg),
        MergedResult::decl(cfg),
        crate::SignalRecord::decl(cfg),
    ]
}

/// Loops and delegations.
fn loops(cfg: &Config) -> Vec<String> {
    vec![
        switchboard_protocol::LoopId::decl(cfg),
        switchboard_protocol::AutomationId::decl(cfg),
        switchboard_protocol::loops::LoopSettings::decl(cfg),
        switchboard_protocol::loops::Completion::decl(cfg),
        switchboard_protocol::loops::Verdict::decl(cfg),
        crate::LoopIteration::decl(cfg),
        crate::IterationOutcome::decl(cfg),
        crate::Iteration::decl(cfg),
        crate::LoopState::decl(cfg),
        crate::LoopInfo::decl(cfg),
        crate::LoopFiles::decl(cfg),
        crate::LoopFile::decl(cfg),
        crate::DelegationState::decl(cfg),
        crate::Delegation::decl(cfg),
    ]
}

/// What agents report of themselves, permissions asked, the settings and storage.
fn status(cfg: &Config) -> Vec<String> {
    vec![
        AgentStatus::decl(cfg),
        crate::TeamInfo::decl(cfg),
        AgentStatusInfo::decl(cfg),
        BackgroundTask::decl(cfg),
        HookEnvelope::decl(cfg),
        PermissionRequest::decl(cfg),
        PermissionDecision::decl(cfg),
        crate::NotifyChoices::decl(cfg),
        crate::QuietHours::decl(cfg),
        crate::Theme::decl(cfg),
        crate::TerminalGrid::decl(cfg),
        crate::GridShows::decl(cfg),
        crate::Settings::decl(cfg),
        crate::Usd::decl(cfg),
        crate::Budget::decl(cfg),
        crate::Rates::decl(cfg),
        crate::LongPrompt::decl(cfg),
        crate::ModelPrice::decl(cfg),
        crate::PriceTable::decl(cfg),
        crate::ModelTokens::decl(cfg),
        crate::TokenTotals::decl(cfg),
        crate::Spent::decl(cfg),
        crate::TaskSpent::decl(cfg),
        crate::BudgetMark::decl(cfg),
        crate::BudgetUse::decl(cfg),
        crate::CostGrouping::decl(cfg),
        crate::CostSince::decl(cfg),
        crate::CostRow::decl(cfg),
        crate::CostReport::decl(cfg),
        crate::Trigger::decl(cfg),
        crate::TaskEnd::decl(cfg),
        crate::AutomationAction::decl(cfg),
        crate::Overlap::decl(cfg),
        crate::CatchUp::decl(cfg),
        crate::AutomationSpec::decl(cfg),
        crate::PauseReason::decl(cfg),
        crate::AutomationState::decl(cfg),
        crate::RunOutcome::decl(cfg),
        crate::AutomationRun::decl(cfg),
        crate::Automation::decl(cfg),
        crate::StorageProblem::decl(cfg),
        crate::StorageStatus::decl(cfg),
    ]
}

/// The commands, their replies, the events and the event log.
fn wire(cfg: &Config) -> Vec<String> {
    vec![
        Command::decl(cfg),
        Reply::decl(cfg),
        EngineEvent::decl(cfg),
        LogKind::decl(cfg),
        crate::LoopStep::decl(cfg),
        LogEntry::decl(cfg),
    ]
}

/// The flow diagrams and what needs the user.
fn flows(cfg: &Config) -> Vec<String> {
    vec![
        crate::DiagramId::decl(cfg),
        crate::NodeShape::decl(cfg),
        crate::FlowNode::decl(cfg),
        crate::FlowEdge::decl(cfg),
        crate::Diagram::decl(cfg),
        crate::FlowTarget::decl(cfg),
        crate::FollowedLog::decl(cfg),
        crate::PathStep::decl(cfg),
        crate::EdgeCount::decl(cfg),
        crate::NodeEvents::decl(cfg),
        crate::GateInputs::decl(cfg),
        crate::DiagramState::decl(cfg),
        crate::DiagramSilence::decl(cfg),
        crate::FlowView::decl(cfg),
        crate::FlowEvents::decl(cfg),
        crate::Need::decl(cfg),
        crate::Stall::decl(cfg),
        crate::Ending::decl(cfg),
        crate::Attention::decl(cfg),
        crate::AgentAttention::decl(cfg),
    ]
}

/// Worktrees, folders and usage limits.
fn worktrees(cfg: &Config) -> Vec<String> {
    vec![
        crate::Isolation::decl(cfg),
        crate::FolderRepository::decl(cfg),
        crate::WorktreeState::decl(cfg),
        crate::WorktreeOverlap::decl(cfg),
        crate::AccountLimit::decl(cfg),
        crate::WebSettings::decl(cfg),
        crate::WebStatus::decl(cfg),
        crate::PairingCode::decl(cfg),
        crate::Device::decl(cfg),
        crate::PageNotice::decl(cfg),
        crate::NoticeTone::decl(cfg),
        crate::AccountUsage::decl(cfg),
        crate::UsageLevel::decl(cfg),
        crate::FolderListing::decl(cfg),
        crate::LimitPhase::decl(cfg),
        crate::UsageWindow::decl(cfg),
        crate::WorktreeInfo::decl(cfg),
        crate::FileStatus::decl(cfg),
        crate::DiffContent::decl(cfg),
        crate::FileDiff::decl(cfg),
        crate::WorktreeDiff::decl(cfg),
        crate::CommitOutcome::decl(cfg),
        crate::MergeOutcome::decl(cfg),
        crate::DiscardOutcome::decl(cfg),
        crate::RebaseOutcome::decl(cfg),
        crate::ReviewComment::decl(cfg),
        crate::ReviewStep::decl(cfg),
    ]
}

/// What the window shows, search, errors, links to engines and machines.
fn window(cfg: &Config) -> Vec<String> {
    vec![
        crate::Viewing::decl(cfg),
        crate::OverviewAgent::decl(cfg),
        crate::OverviewHelper::decl(cfg),
        crate::LinkKind::decl(cfg),
        crate::OverviewLink::decl(cfg),
        crate::Overview::decl(cfg),
        crate::Found::decl(cfg),
        crate::SearchHit::decl(cfg),
        ErrorCode::decl(cfg),
        ApiError::decl(cfg),
        AppInfo::decl(cfg),
        crate::OpenTarget::decl(cfg),
        EngineLink::decl(cfg),
        crate::HostState::decl(cfg),
        crate::HostLink::decl(cfg),
        crate::EventPace::decl(cfg),
        crate::HostCondition::decl(cfg),
        crate::HostKeyShown::decl(cfg),
        SubscriptionId::decl(cfg),
    ]
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
        $reach:ident $effect:ident $timing:ident $method:ident / $variant:ident ($($arg:ident : $ty:ty),* $(,)?) -> $out:ty;
    )*) => {
        fn command_docs(cfg: &Config) -> Vec<CommandDoc> {
            vec![$(
                CommandDoc {
                    method: stringify!($method),
                    window: matches!(stringify!($reach), "window" | "user" | "local"),
                    docs: vec![$($doc),*],
                    args: vec![$((stringify!($arg), <$ty as TS>::name(cfg))),*],
                    output: <$out as TS>::name(cfg),
                    reply: <$out as IntoReply>::KIND,
                },
            )*]
        }
    };
}

crate::engine_commands!(command_docs);

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
