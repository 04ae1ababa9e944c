//! TypeScript declarations for the UI, generated from the Rust types so the
//! two sides cannot drift. The generated file is committed at
//! `ui/src/lib/bindings.ts`; the `bindings_are_fresh` test fails when it is
//! stale, and regenerates it when run with `SWITCHBOARD_BLESS=1`.

use ts_rs::{Config, TS};

use crate::api::Reply;
use crate::api::{
    AgentStatusInfo, ApiError, AppInfo, Artifact, Command, CompletionRule, DeliverableCheck, EngineEvent, ErrorCode,
    LogEntry, LogKind, MemberResult, MergedResult, PermissionDecision, PermissionRequest, Profile, ProfileSpec,
    QueueStatus, RejectedPath, ScreenSnapshot, SessionInfo, SessionState, SignalAction, SignalChannel, SignalInfo,
    SignalResponse, SignalState, Submitted, TaskInfo, TaskResult, TaskSpec, TaskState,
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
        SessionState::decl(&cfg),
        SessionInfo::decl(&cfg),
        ScreenSnapshot::decl(&cfg),
        TaskSpec::decl(&cfg),
        TaskState::decl(&cfg),
        SummaryStatus::decl(&cfg),
        TestCounts::decl(&cfg),
        Summary::decl(&cfg),
        Artifact::decl(&cfg),
        RejectedPath::decl(&cfg),
        TaskResult::decl(&cfg),
        TaskInfo::decl(&cfg),
        QueueStatus::decl(&cfg),
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
        AgentStatus::decl(&cfg),
        AgentStatusInfo::decl(&cfg),
        BackgroundTask::decl(&cfg),
        HookEnvelope::decl(&cfg),
        PermissionRequest::decl(&cfg),
        PermissionDecision::decl(&cfg),
        Command::decl(&cfg),
        Reply::decl(&cfg),
        EngineEvent::decl(&cfg),
        LogKind::decl(&cfg),
        LogEntry::decl(&cfg),
        ErrorCode::decl(&cfg),
        ApiError::decl(&cfg),
        AppInfo::decl(&cfg),
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
    out.truncate(out.trim_end().len());
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bindings_are_fresh() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").join(BINDINGS_PATH);
        let generated = typescript();
        if std::env::var_os("SWITCHBOARD_BLESS").is_some() {
            std::fs::write(&path, &generated).unwrap();
            return;
        }
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            committed == generated,
            "{} is stale; regenerate it with `SWITCHBOARD_BLESS=1 cargo test -p switchboard-core bindings`",
            BINDINGS_PATH
        );
    }
}
