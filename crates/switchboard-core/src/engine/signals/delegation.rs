//! Delegations the user approved: the link between a delegate session and
//! the requester it works for is stored, so the delegate's outcome reaches
//! the right requester once, also after a restart; and a delegate ends once
//! it has reported, freeing its place among the agents running at once,
//! unless the user keeps it.

use switchboard_protocol::signal::prompts;
use switchboard_protocol::{ProfileId, SessionId, SignalId};

use super::deliver::deliver;
use crate::engine::context::{Ctx, Report};
use crate::error::EngineError;
use crate::session::Control;
use crate::sink::LogAbout;
use switchboard_api::{Delegation, DelegationState, EngineEvent, LogKind, Millis, now};

/// Delegations returned by a listing besides those at work.
const LISTED_FINISHED: usize = 100;

/// How a requester is woken by its delegate's outcome.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Wake {
    /// With the delegate's report.
    Results,
    /// With the news that it ended without one.
    Failed,
}

/// What happened to a delegate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum DelegateEvent {
    Reported {
        status: String,
    },
    /// Its session ended (or the app stopped with it running): how, in words.
    Ended {
        how: String,
    },
    /// It did not report within its agent's time limit: how, in words.
    TimedOut {
        how: String,
    },
}

/// What follows from a delegate's event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Decision {
    /// The delegation's new state, if it changes.
    pub state: Option<DelegationState>,
    /// Whether, and how, the requester is woken.
    pub wake: Option<Wake>,
    /// Whether the delegate's session is ended now.
    pub end_delegate: bool,
}

const NOTHING: Decision = Decision { state: None, wake: None, end_delegate: false };

/// The delegation rule: only the first outcome of a delegate counts; a
/// requester that waits is woken with it (results, or the failure); a
/// delegate that reported ends unless kept.
pub(crate) fn decide(delegation: &Delegation, event: &DelegateEvent, at: Millis) -> Decision {
    if !delegation.is_working() {
        return NOTHING;
    }
    match event {
        DelegateEvent::Reported { status } => Decision {
            state: Some(DelegationState::Reported { at, status: status.clone() }),
            wake: delegation.blocks.then_some(Wake::Results),
            end_delegate: !delegation.keep,
        },
        DelegateEvent::Ended { how } => Decision {
            state: Some(DelegationState::Failed { at, how: how.clone() }),
            wake: delegation.blocks.then_some(Wake::Failed),
            end_delegate: false,
        },
        // A delegate past its time limit has failed its requester: it is
        // ended (freeing its place and its lead's team) unless kept.
        DelegateEvent::TimedOut { how } => Decision {
            state: Some(DelegationState::Failed { at, how: how.clone() }),
            wake: delegation.blocks.then_some(Wake::Failed),
            end_delegate: !delegation.keep,
        },
    }
}

/// What the delegate watch sees of a delegate at work.
#[derive(Debug, Clone, Copy)]
pub(crate) struct DelegateWatch {
    /// Its last output, hook event, or its start.
    pub last_activity: Millis,
    /// Its agent's quiet alert and time limit, in seconds (0: none).
    pub alert_after_secs: u32,
    pub time_limit_secs: u32,
    /// It waits for the user's answer (a signal of its, or its hooks ask).
    pub waits_on_user: bool,
}

/// What the watch finds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Watched {
    /// Its quiet flag as it should be now (since when, or none).
    Quiet(Option<Millis>),
    /// Past its time limit: it fails, saying so.
    TimedOut { how: String },
}

/// The delegate watch, each second, for a delegation at work: past its
/// agent's time limit (counted from its start; never while it waits for the
/// user) it times out; otherwise it is flagged quiet once it has shown no
/// life for longer than its agent's quiet alert (not while it waits for the
/// user), since its last sign of life.
pub(crate) fn watch(delegation: &Delegation, watch: DelegateWatch, now: Millis) -> Watched {
    let limit_ms = i64::from(watch.time_limit_secs) * 1000;
    if watch.time_limit_secs > 0 && !watch.waits_on_user && now - delegation.started_at >= limit_ms {
        return Watched::TimedOut {
            how: format!("it did not report within its time limit ({})", minutes(watch.time_limit_secs)),
        };
    }
    let quiet = now - watch.last_activity;
    let flagged =
        watch.alert_after_secs > 0 && !watch.waits_on_user && quiet >= i64::from(watch.alert_after_secs) * 1000;
    Watched::Quiet(flagged.then_some(watch.last_activity))
}

fn minutes(secs: u32) -> String {
    match secs {
        s if s % 60 == 0 && s >= 60 => format!("{} min", s / 60),
        s => format!("{s} s"),
    }
}

/// Looks at every delegation at work whose delegate runs: times out one
/// past its agent's time limit (its requester is told, and it is ended),
/// and flags or clears its quiet (reported to the window).
pub(crate) fn check(cx: &mut Ctx, now: Millis) {
    let working = match cx.store.working_delegations() {
        Ok(working) => working,
        Err(error) => {
            tracing::error!(%error, "reading the delegations at work failed");
            return;
        }
    };
    for mut delegation in working {
        let Some(entry) = cx.sessions.get(&delegation.delegate_session).filter(|e| e.is_running()) else { continue };
        let Ok(profile) = cx.profile(&delegation.delegate_profile) else { continue };
        let hooks = entry.hooks.status.as_ref();
        let last_activity = [
            Some(delegation.started_at),
            entry.handle().map(crate::session::SessionHandle::output_at),
            hooks.and_then(|s| s.last_event_at),
        ]
        .into_iter()
        .flatten()
        .max()
        .unwrap_or(delegation.started_at);
        let seen = DelegateWatch {
            last_activity,
            alert_after_secs: profile.spec.quiet_alert_secs,
            time_limit_secs: profile.spec.task_time_limit_secs,
            waits_on_user: !entry.hooks.needs_user.is_empty()
                || hooks.is_some_and(|s| s.status == switchboard_protocol::hook::AgentStatus::Attention),
        };
        match watch(&delegation, seen, now) {
            Watched::TimedOut { how } => {
                let session = delegation.delegate_session.clone();
                let event = DelegateEvent::TimedOut { how: how.clone() };
                apply(cx, &session, &event, |delegate| prompts::delegate_failed(delegate, &how));
            }
            Watched::Quiet(since) if since != delegation.quiet_since => {
                delegation.quiet_since = since;
                tracing::info!(delegate = %delegation.delegate_session, quiet = since.is_some(), "a delegate's quiet changed");
                if let Err(error) = cx.store.save_delegation(&delegation) {
                    tracing::error!(%error, "recording a delegation failed");
                }
                cx.emit(EngineEvent::DelegationChanged { delegation });
            }
            Watched::Quiet(_) => {}
        }
    }
}

/// Records a new delegation: `delegate` works for the requester of
/// `request`.
pub(crate) fn begin(
    cx: &mut Ctx,
    request: &SignalId,
    requester: (&SessionId, &ProfileId),
    delegate: (&SessionId, &ProfileId),
    work: &str,
    blocks: bool,
) {
    let delegation = Delegation {
        delegate_session: delegate.0.clone(),
        delegate_profile: delegate.1.clone(),
        request: request.clone(),
        requester_session: requester.0.clone(),
        requester_profile: requester.1.clone(),
        work: work.to_owned(),
        blocks,
        keep: false,
        started_at: now(),
        state: DelegationState::Working,
        quiet_since: None,
        spent: Default::default(),
    };
    save(cx, &delegation);
}

/// The delegate `session` reported; `report` is its completion report.
pub(crate) fn reported(cx: &mut Ctx, session: &SessionId, report: &Report) {
    let event = DelegateEvent::Reported { status: report.status.clone() };
    apply(cx, session, &event, |delegate| {
        prompts::delegate_results(delegate, &report.status, &report.deliverables, &report.metrics)
    });
}

/// The session `session` ended, `how` in words.
pub(crate) fn ended(cx: &mut Ctx, session: &SessionId, how: &str) {
    let event = DelegateEvent::Ended { how: how.to_owned() };
    apply(cx, session, &event, |delegate| prompts::delegate_failed(delegate, how));
}

/// After a restart: delegates of the previous run that had not reported
/// are gone with it; each requester that waited is woken with the news.
pub(crate) fn recover(cx: &mut Ctx) {
    let working = match cx.store.working_delegations() {
        Ok(working) => working,
        Err(error) => {
            tracing::error!(%error, "reading the delegations at work failed");
            return;
        }
    };
    for delegation in working {
        if !cx.sessions.is_running(&delegation.delegate_session) {
            ended(cx, &delegation.delegate_session, "the app stopped before it reported");
        }
    }
}

pub(crate) fn list(cx: &Ctx) -> Result<Vec<Delegation>, EngineError> {
    Ok(cx.store.list_delegations(LISTED_FINISHED)?)
}

/// Keeps a delegate running after it reports, or lets it end then (and
/// at once, if it already reported).
pub(crate) fn keep(cx: &mut Ctx, session: &SessionId, keep: bool) -> Result<Delegation, EngineError> {
    let mut delegation = cx.store.delegation_of(session)?.ok_or_else(|| EngineError::InvalidInput {
        field: "session_id",
        reason: "this agent was not started for delegated work".into(),
    })?;
    delegation.keep = keep;
    save(cx, &delegation);
    if !keep && !delegation.is_working() {
        end_session(cx, session);
    }
    Ok(delegation)
}

fn apply(cx: &mut Ctx, session: &SessionId, event: &DelegateEvent, prompt: impl FnOnce(&str) -> String) {
    let Ok(Some(mut delegation)) = cx.store.delegation_of(session) else { return };
    let decision = decide(&delegation, event, now());
    let Some(state) = decision.state else { return };
    delegation.state = state;
    delegation.quiet_since = None;
    save(cx, &delegation);
    if decision.wake.is_some() {
        let text = prompt(&session.to_string());
        let tag = delegation.request.to_string();
        if let Err(error) = deliver(cx, &delegation.requester_session, &delegation.requester_profile, &tag, text) {
            tracing::warn!(%error, "resuming a requester with its delegate's outcome failed");
        }
    }
    if decision.end_delegate {
        end_session(cx, session);
    }
}

fn end_session(cx: &Ctx, session: &SessionId) {
    if let Some(entry) = cx.sessions.get(session)
        && entry.is_running()
        && let Some(handle) = entry.handle()
    {
        handle.send(Control::Kill);
    }
}

fn save(cx: &mut Ctx, delegation: &Delegation) {
    if let Err(error) = cx.store.save_delegation(delegation) {
        tracing::error!(%error, "recording a delegation failed");
    }
    let kind = LogKind::Delegation {
        requester_session: delegation.requester_session.clone(),
        state: delegation.state.clone(),
    };
    if let Err(error) = cx.log(now(), LogAbout::session(&delegation.delegate_session), &kind) {
        tracing::error!(%error, "logging a delegation failed");
    }
    cx.emit(EngineEvent::DelegationChanged { delegation: delegation.clone() });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn delegation(blocks: bool, keep: bool, state: DelegationState) -> Delegation {
        Delegation {
            delegate_session: SessionId::new(),
            delegate_profile: ProfileId::new(),
            request: SignalId::new(),
            requester_session: SessionId::new(),
            requester_profile: ProfileId::new(),
            work: "Write the parser tests".into(),
            blocks,
            keep,
            started_at: 1,
            state,
            quiet_since: None,
            spent: Default::default(),
        }
    }

    #[test]
    fn the_first_outcome_wakes_a_waiting_requester_and_ends_the_delegate_unless_kept() {
        use DelegationState::*;
        let reported = DelegateEvent::Reported { status: "success".into() };
        let ended = DelegateEvent::Ended { how: "it exited (code 1)".into() };
        let done = Reported { at: 5, status: "success".into() };
        let failed = Failed { at: 5, how: "it exited (code 1)".into() };
        // (blocks, keep, state before, event) → (state after, wake, end the delegate)
        let table = [
            (true, false, Working, &reported, Some(done.clone()), Some(Wake::Results), true),
            (true, true, Working, &reported, Some(done.clone()), Some(Wake::Results), false),
            (false, false, Working, &reported, Some(done.clone()), None, true),
            (false, true, Working, &reported, Some(done.clone()), None, false),
            (true, false, Working, &ended, Some(failed.clone()), Some(Wake::Failed), false),
            (false, false, Working, &ended, Some(failed.clone()), None, false),
            // Only the first outcome counts: its end after reporting, or a
            // second report from a kept delegate, wakes nobody.
            (true, false, done.clone(), &ended, None, None, false),
            (true, true, done.clone(), &reported, None, None, false),
            (true, false, failed.clone(), &reported, None, None, false),
            (true, false, failed.clone(), &ended, None, None, false),
        ];
        for (blocks, keep, before, event, state, wake, end_delegate) in table {
            let delegation = delegation(blocks, keep, before.clone());
            assert_eq!(
                decide(&delegation, event, 5),
                Decision { state, wake, end_delegate },
                "blocks {blocks}, keep {keep}, {before:?}, {event:?}"
            );
        }
    }

    #[test]
    fn a_delegate_past_its_time_limit_fails_its_requester_and_ends_unless_kept() {
        let timed_out = DelegateEvent::TimedOut { how: "it did not report within its time limit (30 min)".into() };
        let failed = DelegationState::Failed { at: 5, how: "it did not report within its time limit (30 min)".into() };
        for (blocks, keep) in [(true, false), (true, true), (false, false)] {
            let decision = decide(&delegation(blocks, keep, DelegationState::Working), &timed_out, 5);
            let expected =
                Decision { state: Some(failed.clone()), wake: blocks.then_some(Wake::Failed), end_delegate: !keep };
            assert_eq!(decision, expected, "blocks {blocks}, keep {keep}");
        }
    }

    #[test]
    fn the_delegate_watch() {
        let at_work = delegation(true, false, DelegationState::Working);
        let seen = |last_activity: Millis, waits_on_user: bool| DelegateWatch {
            last_activity,
            alert_after_secs: 600,
            time_limit_secs: 1800,
            waits_on_user,
        };
        let limit = 1 + 1_800_000;
        let timed_out = Watched::TimedOut { how: "it did not report within its time limit (30 min)".into() };
        // (last activity, waits for the user, now) → what the watch finds
        let cases = [
            (1, false, 1 + 599_999, Watched::Quiet(None)),
            (1, false, 1 + 600_000, Watched::Quiet(Some(1))),
            (1, true, 1 + 600_000, Watched::Quiet(None)),
            (1_000_000, false, 1_000_000 + 600_000, Watched::Quiet(Some(1_000_000))),
            (limit - 1, false, limit, timed_out.clone()),
            (1, true, limit, Watched::Quiet(None)),
        ];
        for (last_activity, waits, now, expected) in cases {
            assert_eq!(watch(&at_work, seen(last_activity, waits), now), expected, "{last_activity} {waits} {now}");
        }
        let no_limits = DelegateWatch { alert_after_secs: 0, time_limit_secs: 0, ..seen(1, false) };
        assert_eq!(watch(&at_work, no_limits, i64::MAX / 2), Watched::Quiet(None));
    }
}
