//! A refused turn (`switchboard_protocol::limit`): the task waits rather
//! than fails.
//!
//! - **Usage limit.** The agent's account is limited (`crate::limits`, kept
//!   in the store): the refused task's time limit and quiet alert pause, no
//!   agent of the account is typed a new task. At the reset (and the
//!   margin), or at each try of an unknown one, the account's agents go on
//!   one at a time: the first refused is typed one `continue` (its CLI ended
//!   its turn), or an agent with tasks queued takes its next; only once that
//!   turn runs (its hooks show it at work, or its task ends) does the next
//!   go. Refused again: the reset passed, counted; after
//!   [`MAX_PASSED_RESETS`](switchboard_api::MAX_PASSED_RESETS) the user is asked.
//! - **Overloaded.** That agent alone waits, longer each time, then is
//!   typed `continue`.
//! - **The account needs the user** (sign-in, billing): the task waits for
//!   them; a turn of theirs, or `agent resume`, lets it go on.

use std::collections::BTreeSet;

use switchboard_protocol::hook::AgentStatus;
use switchboard_protocol::limit::Refusal;
use switchboard_protocol::{ProfileId, SessionId};
use tokio::time::{Duration, Instant};

use super::{TaskDesk, emit_queue, log_task, task_of};
use crate::engine::context::Ctx;
use crate::error::{EngineError, Responder};
use crate::limits::{Limit, Margins, UsageRecord, account_of, after_refusal, overload_wait, warnings_due};
use crate::session::typing::ReadyWhen;
use crate::session::{Control, TypeRequest};
use switchboard_api::{AccountLimit, AccountUsage, EngineEvent, LimitPhase, LogKind, Millis, WaitingFor, now};

/// What is typed into an agent whose turn was refused, to go on.
pub const GO_ON: &str = "continue";

/// Why a task's turn is paused, and since when.
#[derive(Debug, Clone)]
pub(super) enum Paused {
    /// Its account's usage limit.
    Limit { account: String },
    /// An overloaded model: go on at `retry`.
    Overloaded { retry: Instant, retry_at: Millis },
    /// The account needs the user.
    Account { why: String },
}

fn account_of_profile(cx: &Ctx, profile_id: &ProfileId) -> Option<String> {
    cx.account_of(profile_id)
}

/// Whether the profile's queue is held by its account's limit: what its
/// queued tasks wait for then.
pub(crate) fn queue_held(cx: &Ctx, profile_id: &ProfileId) -> Option<WaitingFor> {
    limit_held(cx, profile_id).or_else(|| super::ending::day_held(cx, profile_id, cx.clock.now()))
}

fn limit_held(cx: &Ctx, profile_id: &ProfileId) -> Option<WaitingFor> {
    if cx.limits.is_empty() {
        return None;
    }
    let account = account_of_profile(cx, profile_id)?;
    let limit = cx.limits.get(&account)?;
    let free = limit.resuming.as_ref() == Some(profile_id) || limit.released.contains(profile_id);
    (!free).then(|| limit_wait(&account, limit))
}

fn limit_wait(account: &str, limit: &Limit) -> WaitingFor {
    WaitingFor::UsageLimit { account: account.to_owned(), until: limit.record.until, retry_at: limit.record.retry_at }
}

/// What a paused task waits for.
pub(super) fn paused_wait(cx: &Ctx, paused: &Paused) -> Option<WaitingFor> {
    match paused {
        Paused::Limit { account } => cx.limits.get(account).map(|limit| limit_wait(account, limit)),
        Paused::Overloaded { retry_at, .. } => Some(WaitingFor::Overloaded { retry_at: *retry_at }),
        Paused::Account { why } => Some(WaitingFor::Account { why: why.clone() }),
    }
}

/// The agents that work under the account.
fn profiles_of(cx: &Ctx, account: &str) -> Vec<ProfileId> {
    cx.store
        .list_profiles()
        .unwrap_or_default()
        .into_iter()
        .filter(|p| account_of(&p.id, &p.spec, |name| std::env::var(name).ok()) == account)
        .map(|p| p.id)
        .collect()
}

/// The account's usage as the window and the command line read it, each
/// window's level against the user's warning now.
fn usage_info(cx: &Ctx, record: &UsageRecord) -> AccountUsage {
    let threshold = cx.store.settings().unwrap_or_default().usage_warn_percent;
    AccountUsage {
        account: record.account.clone(),
        profiles: profiles_of(cx, &record.account),
        windows: crate::limits::with_levels(&record.windows, threshold),
        told_at: record.told_at,
    }
}

/// The account's limit as the window and the command line read it.
pub(crate) fn limit_info(cx: &Ctx, limit: &Limit) -> AccountLimit {
    let profiles = profiles_of(cx, &limit.record.account);
    let phase = match (&limit.resuming, limit.record.asks_user) {
        (_, true) => LimitPhase::AsksUser,
        (Some(profile_id), false) => LimitPhase::Resuming { profile_id: profile_id.clone() },
        (None, false) => LimitPhase::Waiting,
    };
    AccountLimit {
        account: limit.record.account.clone(),
        profiles,
        since: limit.record.since,
        until: limit.record.until,
        retry_at: limit.record.retry_at,
        passed: limit.record.passed,
        phase,
    }
}

/// Milliseconds from now as an instant.
fn instant_at(at: Millis, now_ms: Millis) -> Instant {
    Instant::now() + Duration::from_millis((at - now_ms).max(0) as u64)
}

impl TaskDesk {
    /// Takes up the limits the store kept (the app stopped during a wait).
    pub fn recover_limits(&mut self, cx: &mut Ctx) {
        match cx.store.list_limits() {
            Ok(records) => {
                for record in records {
                    let limit = Limit { record, resuming: None, released: BTreeSet::new(), by_user: false };
                    cx.limits.insert(limit.record.account.clone(), limit);
                }
            }
            Err(error) => tracing::error!(%error, "reading the usage limits failed; queues go on"),
        }
        match cx.store.list_usage() {
            Ok(records) => cx.usage.extend(records.into_iter().map(|r| (r.account.clone(), r))),
            Err(error) => tracing::error!(%error, "reading the accounts' usage failed; it shows once told again"),
        }
    }

    /// Each account's usage told.
    pub fn usage(&self, cx: &Ctx) -> Vec<AccountUsage> {
        cx.usage.values().map(|record| usage_info(cx, record)).collect()
    }

    /// The user's warning changed: each account's usage is told again with
    /// its windows' new levels.
    pub fn warning_changed(&self, cx: &Ctx) {
        for usage in self.usage(cx) {
            cx.emit(EngineEvent::UsageChanged { usage });
        }
    }

    /// The agent in `session` told its account's usage (Claude Code's
    /// status line): kept, shown and warned of when it changed.
    pub fn usage_told_by(
        &mut self,
        cx: &mut Ctx,
        session: &SessionId,
        windows: &[switchboard_protocol::rollout::UsageWindow],
    ) {
        let Some(profile_id) = cx.sessions.get(session).map(|e| e.info.profile_id.clone()) else { return };
        let Some(account) = account_of_profile(cx, &profile_id) else { return };
        let (windows, _) = crate::limits::usage_of(windows);
        usage_told(cx, &account, windows);
    }

    /// The accounts at their usage limit.
    pub fn limits(&self, cx: &Ctx) -> Vec<AccountLimit> {
        cx.limits.values().map(|limit| limit_info(cx, limit)).collect()
    }

    /// The agent's turn in `session` was refused: its task waits (see the
    /// module's doc). True when the refusal is one the app waits out.
    /// `usage`: the account's usage windows its CLI told with the refusal
    /// (Codex's log), whose used-up window names the reset more exactly
    /// than its words.
    pub(super) fn refused(
        &mut self,
        cx: &mut Ctx,
        session: &SessionId,
        refusal: Refusal,
        usage: &[switchboard_protocol::rollout::UsageWindow],
    ) -> bool {
        let Some(profile_id) = self.working_in(session) else {
            // A turn the user typed, no task at work: its account is at its
            // limit all the same, and the tasks of its agents wait for it.
            if let Refusal::Limited { until } = refusal
                && let Some(profile_id) = cx.sessions.get(session).map(|e| e.info.profile_id.clone())
                && let Some(account) = account_of_profile(cx, &profile_id)
            {
                self.limit_account(cx, &profile_id, &account, until, usage);
                self.refresh_account(cx, &account);
            }
            return false;
        };
        let now_ms = now();
        let margins = margins(cx);
        let paused = match refusal {
            Refusal::Limited { until } => {
                let Some(account) = account_of_profile(cx, &profile_id) else { return false };
                self.limit_account(cx, &profile_id, &account, until, usage);
                Paused::Limit { account }
            }
            Refusal::Overloaded => {
                let work = self.work.get_mut(&profile_id).expect("found above");
                let wait = overload_wait(work.overloads, margins.first_retry);
                work.overloads += 1;
                Paused::Overloaded { retry: instant_at(now_ms + wait, now_ms), retry_at: now_ms + wait }
            }
            Refusal::NeedsUser { why } => Paused::Account { why },
        };
        // Its turn is over: the agent is back at its prompt, whatever its
        // hooks last said (Codex tells them nothing of a refused turn).
        if cx
            .sessions
            .get(session)
            .and_then(|e| e.hooks.status.as_ref())
            .is_some_and(|s| s.status == AgentStatus::Working)
        {
            crate::engine::status::set_from_hooks(cx, session, AgentStatus::Waiting, now_ms, false);
        }
        let work = self.work.get_mut(&profile_id).expect("found above");
        work.paused = Some((paused.clone(), Instant::now()));
        work.quiet_since = None;
        let task_id = work.task_id.clone();
        if let Ok(task) = task_of(cx, &task_id) {
            log_task(cx, &task, LogKind::TaskRefused { why: paused_wait(cx, &paused).map(|w| w.in_words()) });
        }
        if let Paused::Limit { account } = &paused {
            self.refresh_account(cx, account);
        } else {
            self.refresh_wait(cx, &profile_id);
        }
        true
    }

    /// The account is at its usage limit, as the agent `profile_id` was
    /// told (`until`, its usage windows): a new limit, or its wait again.
    fn limit_account(
        &mut self,
        cx: &mut Ctx,
        profile_id: &ProfileId,
        account: &str,
        until: Option<Millis>,
        usage: &[switchboard_protocol::rollout::UsageWindow],
    ) {
        let (usage, used_up) = crate::limits::usage_of(usage);
        // One reset, from the best source: a status line's usage bar and the
        // limit's banner never say two times. One further ahead than any plan's
        // window (a month) is not believed: tried again as for an unknown one.
        let known = cx.usage.get(account).map(|record| record.windows.as_slice()).unwrap_or_default();
        let until = crate::limits::best_reset(used_up, until, known, now());
        usage_told(cx, account, usage);
        let before = cx.limits.get(account);
        let resumed =
            before.is_some_and(|l| l.resuming.as_ref() == Some(profile_id) || l.released.contains(profile_id));
        let record = after_refusal(before.map(|l| &l.record), resumed, account, until, now(), margins(cx));
        if let Err(error) = cx.store.save_limit(&record) {
            tracing::error!(%error, "an account's usage limit could not be recorded; it is kept meanwhile");
        }
        tracing::info!(%account, until = ?record.until, retry_at = record.retry_at, passed = record.passed, "an account is at its usage limit");
        let limit = Limit { record, resuming: None, released: BTreeSet::new(), by_user: false };
        cx.emit(EngineEvent::LimitChanged { limit: limit_info(cx, &limit) });
        cx.limits.insert(account.to_owned(), limit);
    }

    /// When a limit's try or an overloaded agent's wait comes next.
    pub(super) fn next_limit_wake(&self, cx: &Ctx) -> Option<Instant> {
        let now_ms = now();
        let tries = cx
            .limits
            .values()
            .filter(|l| l.resuming.is_none() && !l.record.asks_user)
            .map(|l| instant_at(l.record.retry_at, now_ms));
        let overloads = self.work.values().filter_map(|w| match &w.paused {
            Some((Paused::Overloaded { retry, .. }, _)) => Some(*retry),
            _ => None,
        });
        tries.chain(overloads).min()
    }

    /// Tries the limits whose wait is over, and has the overloaded agents
    /// whose wait is over go on.
    pub(super) fn on_limit_wake(&mut self, cx: &mut Ctx, instant: Instant) {
        let now_ms = now();
        let due: Vec<String> = cx
            .limits
            .values()
            .filter(|l| l.resuming.is_none() && !l.record.asks_user && l.record.retry_at <= now_ms)
            .map(|l| l.record.account.clone())
            .collect();
        for account in due {
            self.release_next(cx, &account, None);
        }
        let overloaded: Vec<ProfileId> = self
            .work
            .iter()
            .filter(|(_, w)| matches!(&w.paused, Some((Paused::Overloaded { retry, .. }, _)) if *retry <= instant))
            .map(|(p, _)| p.clone())
            .collect();
        for profile_id in overloaded {
            self.go_on(cx, &profile_id);
        }
    }

    /// Lets the account's next agent go on: `first` when named (the user's
    /// word), else the one refused first, else one with tasks queued. None
    /// left: the limit is over.
    fn release_next(&mut self, cx: &mut Ctx, account: &str, first: Option<&ProfileId>) {
        let Some(limit) = cx.limits.get(account) else { return };
        let released = limit.released.clone();
        let mut refused: Vec<(Instant, ProfileId)> = self
            .work
            .iter()
            .filter_map(|(p, w)| match &w.paused {
                Some((Paused::Limit { account: a }, since)) if a == account => Some((*since, p.clone())),
                _ => None,
            })
            .collect();
        refused.sort();
        let queued = || {
            let profiles = cx.store.list_profiles().unwrap_or_default();
            profiles
                .into_iter()
                .filter(|p| !released.contains(&p.id) && !self.work.contains_key(&p.id))
                .filter(|p| account_of(&p.id, &p.spec, |name| std::env::var(name).ok()) == account)
                .find(|p| {
                    cx.store.queue_len(&p.id).is_ok_and(|n| n > 0) && !cx.store.queue_paused(&p.id).unwrap_or(true)
                })
                .map(|p| p.id)
        };
        let next = first.cloned().or_else(|| refused.first().map(|(_, p)| p.clone())).or_else(queued);
        let Some(next) = next else {
            return self.lift(cx, account);
        };
        let limit = cx.limits.get_mut(account).expect("found above");
        limit.resuming = Some(next.clone());
        tracing::info!(%account, agent = %next, "an account's agent goes on after its usage limit");
        let info = limit_info(cx, cx.limits.get(account).expect("found above"));
        cx.emit(EngineEvent::LimitChanged { limit: info });
        if self.work.get(&next).is_some_and(|w| w.paused.is_some()) {
            self.go_on(cx, &next);
        } else {
            self.pump(cx, &next);
        }
        self.refresh_account(cx, account);
    }

    /// The agent's turn ran (its hooks show it at work past its prompt):
    /// a limit it went on after is over for it, and the account's next
    /// agent may go; an overloaded model's count starts again; an account
    /// the user saw to works again.
    pub fn turn_ran(&mut self, cx: &mut Ctx, session: &SessionId) {
        let Some(profile_id) = cx.sessions.get(session).map(|e| e.info.profile_id.clone()) else { return };
        if let Some(work) = self.work.get_mut(&profile_id).filter(|w| &w.session_id == session) {
            work.overloads = 0;
            if matches!(work.paused, Some((Paused::Account { .. }, _))) {
                // The user typed into it themselves.
                self.unpause(cx, &profile_id);
            }
        }
        self.ran(cx, &profile_id);
    }

    /// The profile's turn after a limit ran, or its task ended: the next of
    /// its account goes.
    pub(super) fn ran(&mut self, cx: &mut Ctx, profile_id: &ProfileId) {
        if cx.limits.is_empty() {
            return;
        }
        let Some(account) =
            cx.limits.iter().find(|(_, l)| l.resuming.as_ref() == Some(profile_id)).map(|(a, _)| a.clone())
        else {
            return;
        };
        let limit = cx.limits.get_mut(&account).expect("found above");
        limit.resuming = None;
        limit.released.insert(profile_id.clone());
        if limit.record.passed > 0 || limit.record.asks_user {
            limit.record.passed = 0;
            limit.record.asks_user = false;
        }
        self.release_next(cx, &account, None);
    }

    /// The account's limit is over: its agents' queues go on, and any of
    /// its refused tasks still waiting.
    fn lift(&mut self, cx: &mut Ctx, account: &str) {
        let Some(limit) = cx.limits.remove(account) else { return };
        let by_user = limit.by_user;
        // "Its limit has reset" only when a known reset has passed; a try made
        // without knowing it is said as a try.
        let at_reset = !by_user && limit.record.until.is_some_and(|until| until <= now());
        if let Err(error) = cx.store.delete_limit(account) {
            tracing::error!(%error, "a lifted usage limit could not be cleared from the store");
        }
        let info = limit_info(cx, &limit);
        tracing::info!(%account, "an account's usage limit is over");
        cx.emit(EngineEvent::LimitLifted {
            account: account.to_owned(),
            profiles: info.profiles.clone(),
            by_user,
            at_reset,
        });
        let stranded: Vec<ProfileId> = self
            .work
            .iter()
            .filter(|(_, w)| matches!(&w.paused, Some((Paused::Limit { account: a }, _)) if a == account))
            .map(|(p, _)| p.clone())
            .collect();
        for profile_id in stranded {
            self.go_on(cx, &profile_id);
        }
        for profile_id in info.profiles {
            self.pump(cx, &profile_id);
            super::report_queued(cx, &profile_id);
        }
    }

    /// The user has the agent go on now: its account's limit (the agent
    /// first), or its own overloaded or account wait.
    pub fn resume_agent(&mut self, cx: &mut Ctx, profile_id: &ProfileId) -> Result<(), EngineError> {
        let profile = cx.profile(profile_id)?;
        if let Some(account) = account_of_profile(cx, &profile.id).filter(|a| cx.limits.contains_key(a)) {
            let limit = cx.limits.get_mut(&account).expect("checked");
            limit.record.asks_user = false;
            limit.resuming = None;
            limit.by_user = true;
            // This agent first when it has work waiting; else the one
            // refused first, and so on, one at a time as at a reset.
            let has_work = self.work.get(profile_id).is_some_and(|w| w.paused.is_some())
                || cx.store.queue_len(profile_id).is_ok_and(|n| n > 0);
            self.release_next(cx, &account, has_work.then_some(profile_id));
            return Ok(());
        }
        if self.work.get(profile_id).is_some_and(|w| w.paused.is_some()) {
            self.go_on(cx, profile_id);
            return Ok(());
        }
        Err(EngineError::NothingToResume { agent: profile.spec.name })
    }

    /// The paused task's agent is typed `continue`; its time limit runs
    /// again. Codex may hold its prompt with a dialog of its own (a cheaper
    /// model offered when its API told the account's usage), where what is
    /// typed would choose: its screen is looked at first, and the dialog
    /// closed (Escape, its "back") without a choice.
    fn go_on(&mut self, cx: &mut Ctx, profile_id: &ProfileId) {
        let Some(work) = self.work.get(profile_id) else { return };
        let (session, task_id) = (work.session_id.clone(), work.task_id.clone());
        self.unpause(cx, profile_id);
        if cx.profile(profile_id).is_ok_and(|p| p.spec.kind == switchboard_protocol::AgentKind::Codex) {
            let notes = self.notes.clone();
            let reply = Responder::new(move |snapshot: Result<switchboard_api::ScreenSnapshot, EngineError>| {
                let dialog = snapshot.is_ok_and(|s| switchboard_protocol::limit::offers_cheaper_model(&s.screen));
                notes.send(super::TaskNote::GoOn { task_id, dialog }).ok();
            });
            cx.sessions.send(&session, Control::Snapshot(0, reply));
            return;
        }
        self.type_go_on(cx, profile_id, false);
    }

    /// Types `continue` into the agent, its own dialog closed first.
    pub(super) fn type_go_on(&mut self, cx: &mut Ctx, profile_id: &ProfileId, dialog: bool) {
        let Some(work) = self.work.get(profile_id) else { return };
        let (session, task_id) = (work.session_id.clone(), work.task_id.clone());
        if dialog {
            tracing::info!(task = %task_id, "the agent's own dialog is closed before it is asked to go on");
            let reply = Responder::new(|result: Result<(), EngineError>| {
                if let Err(error) = result {
                    tracing::debug!(%error, "the key closing an agent's dialog was not delivered");
                }
            });
            cx.sessions.send(&session, Control::Write(b"\x1b".to_vec(), reply));
        }
        let ready = match cx.profile(profile_id).and_then(|p| ReadyWhen::for_profile(&p)) {
            Ok(ready) => ready,
            Err(error) => {
                tracing::warn!(%error, "an agent to go on after a refusal could not be typed into");
                return;
            }
        };
        let reply = Responder::new(move |typed: Result<bool, EngineError>| {
            if let Err(error) = typed {
                tracing::warn!(%error, "`continue` could not be typed into an agent after a refusal");
            }
        });
        let tag = format!("go-on:{task_id}");
        let request = TypeRequest { tag, text: GO_ON.to_owned(), ready, reply, held: None, back: None };
        cx.sessions.send(&session, Control::Type(request));
        if let Ok(task) = task_of(cx, &task_id) {
            log_task(cx, &task, LogKind::TaskResumed);
        }
    }

    /// The task's pause is over: its deadline is pushed back by it.
    fn unpause(&mut self, cx: &mut Ctx, profile_id: &ProfileId) {
        let Some(work) = self.work.get_mut(profile_id) else { return };
        if let Some((_, since)) = work.paused.take() {
            work.postpone(Instant::now().saturating_duration_since(since));
        }
        self.refresh_wait(cx, profile_id);
    }

    /// What every task of the account's agents waits for, again.
    fn refresh_account(&mut self, cx: &mut Ctx, account: &str) {
        let profiles: Vec<ProfileId> = cx
            .store
            .list_profiles()
            .unwrap_or_default()
            .into_iter()
            .filter(|p| account_of(&p.id, &p.spec, |name| std::env::var(name).ok()) == account)
            .map(|p| p.id)
            .collect();
        for profile_id in profiles {
            self.refresh_wait(cx, &profile_id);
            super::report_queued(cx, &profile_id);
            emit_queue(cx, self.queue_status(cx, &profile_id));
        }
    }
}

fn margins(cx: &Ctx) -> Margins {
    let settings = cx.store.settings().unwrap_or_default();
    Margins {
        after_reset: Millis::from(settings.limit_margin_secs) * 1000,
        first_retry: Millis::from(settings.limit_retry_secs) * 1000,
    }
}

/// The account's usage as a CLI told it now: kept and shown when it
/// differs from what was told before; each window used past the user's
/// warning told once (`crate::limits::warnings_due`).
fn usage_told(cx: &mut Ctx, account: &str, windows: Vec<switchboard_api::UsageWindow>) {
    if windows.is_empty() {
        return;
    }
    let before = cx.usage.get(account);
    if before.is_some_and(|r| r.windows == windows) {
        return;
    }
    let warned = before.map(|r| r.warned.clone()).unwrap_or_default();
    let threshold = cx.store.settings().unwrap_or_default().usage_warn_percent;
    let (due, warned) = warnings_due(&windows, &warned, threshold);
    let record = UsageRecord { account: account.to_owned(), windows, told_at: now(), warned };
    if let Err(error) = cx.store.save_usage(&record) {
        tracing::error!(%error, "an account's usage could not be recorded; it is kept meanwhile");
    }
    let info = usage_info(cx, &record);
    cx.usage.insert(account.to_owned(), record);
    for window in due {
        tracing::info!(%account, minutes = window.minutes, used = window.used_percent, "an account used past the warning");
        cx.emit(EngineEvent::UsageWarning { account: account.to_owned(), profiles: info.profiles.clone(), window });
    }
    cx.emit(EngineEvent::UsageChanged { usage: info });
}
