//! Merged results: once a requester and every agent it had working in
//! parallel have reported completion, their results are put together (with
//! the shared findings file) on the requester's report.

use switchboard_protocol::SessionId;
use switchboard_protocol::signal::{Independence, SHARED_FINDINGS_FILE, ScanEvent, SignalBody, parse_findings};

use super::{read_side_file, save_signal, workspace_of};
use crate::engine::context::Ctx;
use switchboard_api::now;
use switchboard_api::{MemberResult, MergedResult, SignalInfo, SignalResponse};

/// Signals looked through to find a team's members.
const TEAM_LOOKBACK_SIGNALS: usize = 1000;
/// Largest SHARED_FINDINGS.jsonl read.
const FINDINGS_CAP_BYTES: usize = 1024 * 1024;

/// `session_id` just reported completion: if it completes its team (as the
/// requester or one of its parallel delegates), merge the team's results.
pub(super) fn merge_team_of(cx: &mut Ctx, session_id: &SessionId) {
    let all = match cx.store.list_signals(TEAM_LOOKBACK_SIGNALS) {
        Ok(all) => all,
        Err(error) => {
            tracing::error!(%error, "reading signals to merge a team's results failed");
            return;
        }
    };
    let approved_parallel = |s: &&SignalInfo| {
        matches!(s.response(), Some(SignalResponse::Approve { .. }))
            && matches!(&s.scan, ScanEvent::Signal { signal } if matches!(
                &signal.body,
                SignalBody::Delegate { independence: Independence::CanProceedParallel, .. }
            ))
    };
    let parent = all
        .iter()
        .filter(approved_parallel)
        .find(|s| s.delegate_session() == Some(session_id))
        .map_or_else(|| session_id.clone(), |s| s.session_id.clone());
    let delegates: Vec<SessionId> = all
        .iter()
        .filter(approved_parallel)
        .filter(|s| s.session_id == parent)
        .filter_map(|s| s.delegate_session().cloned())
        .collect();
    if delegates.is_empty() {
        return;
    }
    let latest_report = |session: &SessionId| {
        all.iter().rev().find(|s| {
            &s.session_id == session
                && matches!(&s.scan, ScanEvent::Signal { signal } if matches!(signal.body, SignalBody::Completion { .. }))
        })
    };
    let mut members = Vec::new();
    for (session, requester) in std::iter::once((&parent, true)).chain(delegates.iter().map(|d| (d, false))) {
        let Some(report) = latest_report(session) else { return };
        let ScanEvent::Signal { signal } = &report.scan else { return };
        let SignalBody::Completion { status, metrics_achieved, recommendations, .. } = &signal.body else { return };
        members.push(MemberResult {
            session_id: session.clone(),
            profile_id: report.profile_id.clone(),
            requester,
            status: status.clone(),
            deliverables: report.deliverables.clone(),
            metrics_achieved: metrics_achieved.clone(),
            recommendations: recommendations.clone(),
        });
    }
    let Some(mut parent_report) = latest_report(&parent).cloned() else { return };
    let findings = workspace_of(cx, &parent_report.profile_id, &parent_report.session_id)
        .and_then(|ws| read_side_file(&ws, SHARED_FINDINGS_FILE, FINDINGS_CAP_BYTES))
        .unwrap_or_default();
    let (findings, malformed_findings) = parse_findings(&findings);
    parent_report.merged = Some(MergedResult { members, findings, malformed_findings, merged_at: now() });
    save_signal(cx, &parent_report);
}
