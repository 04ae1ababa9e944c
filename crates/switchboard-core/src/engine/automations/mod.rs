//! The automation desk: automations checked before they are kept, each
//! schedule judged against the engine's wall clock on its tick (the store
//! keeps until when each was judged, so runs missed while the engine was
//! down are found), and tasks' ends matched to the chains that follow
//! them. What a run does (a task queued, a loop started) is the engine's
//! to carry out with the task desk: the desk answers with [`Fire`]s.

mod triggered;
pub mod watch;

use std::collections::{BTreeMap, HashMap};

use switchboard_api::{
    Automation, AutomationAction, AutomationRun, AutomationSpec, AutomationState, EngineEvent, Millis, PauseReason,
    RunOutcome, TaskSpec, TaskState, Trigger,
};
use switchboard_protocol::{AutomationId, LoopId, ProfileId, TaskId};

use super::context::Ctx;
use crate::automations::rules::{self, Judged};
use crate::automations::schedule::Schedule;
use crate::error::EngineError;
use crate::store::{RunMade, StoredAutomation};

/// How many of an automation's latest runs keep their worktrees.
pub const KEPT_RUN_WORKTREES: usize = 3;

/// How many of its latest runs are looked at for worktrees to discard.
pub const RUNS_LOOKED_AT: usize = 20;

/// The longest context a run passes to its task (what triggered it).
pub const CONTEXT_CAP: usize = 16 * 1024;

/// A run to make: which automation, why, and what to tell its work.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fire {
    pub automation: AutomationId,
    pub at: Millis,
    pub reason: String,
    /// What started it, for the work's context file.
    pub context: String,
}

pub(crate) struct AutomationDesk {
    /// Each active schedule's next run, by automation: what the tick looks
    /// at (the store is read only for those due).
    next: BTreeMap<AutomationId, Millis>,
    /// Schedules read from their specs, kept.
    schedules: HashMap<AutomationId, Schedule>,
    /// The folders and branches file and branch triggers look at.
    watches: watch::Watches,
}

fn invalid(field: &'static str, reason: impl Into<String>) -> EngineError {
    EngineError::InvalidInput { field, reason: reason.into() }
}

impl AutomationDesk {
    pub fn new(files_seen: tokio::sync::mpsc::UnboundedSender<watch::FilesSeen>, poll_folders: bool) -> Self {
        AutomationDesk {
            next: BTreeMap::new(),
            schedules: HashMap::new(),
            watches: watch::Watches::new(files_seen, poll_folders),
        }
    }

    /// A watched folder changed.
    pub fn files_seen(&mut self, seen: watch::FilesSeen, now: std::time::Instant) {
        self.watches.saw(seen, now);
    }

    /// Takes up the automations kept: each active schedule's next run from
    /// when it was last judged, so runs missed meanwhile come due at once.
    pub fn recover(&mut self, cx: &Ctx) {
        let kept = cx.store.list_automations().unwrap_or_else(|error| {
            tracing::error!(%error, "the automations could not be read");
            Vec::new()
        });
        for stored in kept {
            self.arm(&stored);
        }
    }

    /// Notes when an active schedule runs next (after it was last judged).
    fn arm(&mut self, stored: &StoredAutomation) {
        self.next.remove(&stored.id);
        self.watches.forget(&stored.id);
        if stored.state != AutomationState::Active {
            return;
        }
        match &stored.spec.trigger {
            Trigger::FilesChanged { dir, globs } => {
                let watched = watch::globs(globs)
                    .and_then(|globs| self.watches.watch_folder(&stored.id, std::path::Path::new(dir), globs));
                if let Err(error) = watched {
                    tracing::warn!(%error, "an automation's folder cannot be watched");
                }
                return;
            }
            Trigger::BranchMoved { repo, branch } => {
                self.watches.watch_branch(&stored.id, std::path::Path::new(repo), branch);
                return;
            }
            _ => {}
        }
        let Some(schedule) = self.schedule_of(stored) else { return };
        if let Some(next) = schedule.next_after(stored.judged_at) {
            self.next.insert(stored.id.clone(), next);
        }
    }

    fn schedule_of(&mut self, stored: &StoredAutomation) -> Option<Schedule> {
        if let Some(schedule) = self.schedules.get(&stored.id) {
            return Some(schedule.clone());
        }
        let schedule = schedule_of_spec(&stored.spec, stored.created_at).ok()??;
        self.schedules.insert(stored.id.clone(), schedule.clone());
        Some(schedule)
    }

    /// Checks a spec before anything is kept; `id`: the automation it
    /// changes.
    pub fn check(&self, cx: &Ctx, spec: &AutomationSpec, id: Option<&AutomationId>) -> Result<(), EngineError> {
        let profile = cx.profile(&spec.profile_id)?;
        if !(1..=rules::MAX_RUNS_PER_HOUR).contains(&spec.max_runs_per_hour) {
            return Err(invalid(
                "max_runs_per_hour",
                format!("Give between 1 and {} runs an hour.", rules::MAX_RUNS_PER_HOUR),
            ));
        }
        schedule_of_spec(spec, cx.clock.now()).map_err(|reason| invalid("trigger", reason))?;
        match &spec.trigger {
            Trigger::FilesChanged { dir, globs } => {
                if !std::path::Path::new(dir).is_dir() {
                    return Err(invalid("trigger", format!("The folder {dir} does not exist.")));
                }
                watch::globs(globs).map_err(|reason| invalid("trigger", reason))?;
            }
            Trigger::BranchMoved { repo, branch } => {
                branch_now(repo, branch).map_err(|reason| invalid("trigger", reason))?;
            }
            _ => {}
        }
        if let Trigger::TaskEnded { profile_id: from, .. } = &spec.trigger {
            let from_name = cx.profile(from)?.spec.name;
            let chains: Vec<(ProfileId, ProfileId)> = cx
                .store
                .list_automations()?
                .into_iter()
                .filter(|a| Some(&a.id) != id)
                .filter_map(|a| match a.spec.trigger {
                    Trigger::TaskEnded { profile_id, .. } => Some((profile_id, a.spec.profile_id)),
                    _ => None,
                })
                .collect();
            if rules::chain_loops(&chains, from, &spec.profile_id) {
                return Err(invalid(
                    "trigger",
                    format!(
                        "Work for {} after {from_name}'s would, chain by chain, start {from_name}'s again: a ring of \
                         automations that never ends.",
                        profile.spec.name
                    ),
                ));
            }
        }
        match &spec.action {
            AutomationAction::Task { budget, .. } => {
                super::tasks::rules::validate_task(task_spec(spec, String::new()))?;
                if let Some(reason) = super::tasks::unpriced_budget(cx, &profile, budget.as_ref())? {
                    return Err(invalid("budget", reason));
                }
            }
            AutomationAction::Loop { settings } => {
                if settings.goal.trim().is_empty() {
                    return Err(invalid("goal", "Give the loop a goal."));
                }
                if let Some(reason) = super::tasks::unpriced_budget(cx, &profile, settings.budget.as_ref())? {
                    return Err(invalid("budget", reason));
                }
            }
        }
        Ok(())
    }

    /// Keeps a new automation (checked), and tells it.
    pub fn create(&mut self, cx: &mut Ctx, spec: AutomationSpec) -> Result<Automation, EngineError> {
        self.check(cx, &spec, None)?;
        let now = cx.clock.now();
        // A branch runs it when it moves from where it is now.
        let seen = match &spec.trigger {
            Trigger::BranchMoved { repo, branch } => branch_now(repo, branch).ok(),
            _ => None,
        };
        let stored = StoredAutomation {
            id: AutomationId::new(),
            spec,
            state: AutomationState::Active,
            created_at: now,
            judged_at: now,
            next_run: None,
            seen,
        };
        self.keep(cx, stored)
    }

    /// Changes an automation (checked); its history stays, its schedule
    /// starts anew from now.
    pub fn update(&mut self, cx: &mut Ctx, id: &AutomationId, spec: AutomationSpec) -> Result<Automation, EngineError> {
        let stored = stored(cx, id)?;
        self.check(cx, &spec, Some(id))?;
        self.schedules.remove(id);
        let now = cx.clock.now();
        let seen = match &spec.trigger {
            Trigger::BranchMoved { repo, branch } => branch_now(repo, branch).ok(),
            _ => None,
        };
        self.keep(cx, StoredAutomation { spec, created_at: now, judged_at: now, seen, ..stored })
    }

    pub fn set_paused(&mut self, cx: &mut Ctx, id: &AutomationId, paused: bool) -> Result<Automation, EngineError> {
        let stored = stored(cx, id)?;
        let now = cx.clock.now();
        let state = match paused {
            true => AutomationState::Paused { at: now, why: PauseReason::User },
            false => AutomationState::Active,
        };
        // Runs its schedule had while paused are not caught up: judged from now.
        self.keep(cx, StoredAutomation { state, judged_at: now, ..stored })
    }

    pub fn remove(&mut self, cx: &mut Ctx, id: &AutomationId) -> Result<(), EngineError> {
        if !cx.store.remove_automation(id)? {
            return Err(no_automation());
        }
        self.next.remove(id);
        self.watches.forget(id);
        self.schedules.remove(id);
        cx.emit(EngineEvent::AutomationRemoved { automation_id: id.clone() });
        Ok(())
    }

    /// Saves it with its next run, arms it, and tells it.
    fn keep(&mut self, cx: &mut Ctx, mut stored: StoredAutomation) -> Result<Automation, EngineError> {
        self.arm(&stored);
        stored.next_run = self.next.get(&stored.id).copied();
        cx.store.save_automation(&stored)?;
        let shown = view(cx, stored);
        cx.emit(EngineEvent::AutomationChanged { automation: shown.clone() });
        Ok(shown)
    }

    /// The runs the schedules call for now (the engine's clock): each due
    /// schedule judged, missed runs caught up once or recorded as missed.
    pub fn due(&mut self, cx: &mut Ctx) -> Vec<Fire> {
        let now = cx.clock.now();
        let due: Vec<AutomationId> = self.next.iter().filter(|(_, at)| **at <= now).map(|(id, _)| id.clone()).collect();
        let mut fires = Vec::new();
        for id in due {
            self.next.remove(&id);
            let Ok(Some(stored)) = cx.store.get_automation(&id) else { continue };
            let Some(schedule) = self.schedule_of(&stored) else { continue };
            let runs = schedule.runs_between(stored.judged_at, now, 10_000);
            let every = schedule_words(&stored.spec);
            match rules::judge(&runs, now, stored.spec.catch_up) {
                Judged::Nothing => {}
                Judged::Run { missed, caught_up } => {
                    let reason = match (missed, caught_up) {
                        (0, _) => format!("its schedule ({every})"),
                        (n, true) => format!("its schedule ({every}), caught up once: {}", rules::missed_words(n)),
                        (n, false) => format!("its schedule ({every}); before it, {}", rules::missed_words(n)),
                    };
                    let context = format!("This task was started by an automation, on its schedule ({every}).");
                    fires.push(Fire { automation: id.clone(), at: now, reason, context });
                }
                Judged::Missed { missed } => {
                    let why = format!("{}; not caught up, as chosen", rules::missed_words(missed));
                    record(cx, &id, now, &format!("its schedule ({every})"), &RunMade::Skipped(why));
                }
            }
            let next_run = schedule.next_after(now);
            let judged = StoredAutomation { judged_at: now, next_run, ..stored };
            if let Err(error) = cx.store.save_automation(&judged) {
                tracing::error!(%error, "an automation's judged schedule could not be kept");
            }
            self.arm(&judged);
            cx.emit(EngineEvent::AutomationChanged { automation: view(cx, judged) });
        }
        fires
    }

    /// A task ended: its automation (if a run made it) told anew, paused
    /// when its runs keep ending badly; the chains that follow its agent's
    /// tasks answered with runs.
    pub fn task_ended(&mut self, cx: &mut Ctx, task: &TaskId, profile: &ProfileId, state: TaskState) -> Vec<Fire> {
        let own = cx.store.automation_of_task(task).ok().flatten();
        if let Some(id) = &own {
            self.after_own_run(cx, id);
        }
        let Ok(all) = cx.store.list_automations() else { return Vec::new() };
        let Ok(ended) = super::tasks::task_of(cx, task) else { return Vec::new() };
        let agent = cx.profile(profile).map(|p| p.spec.name).unwrap_or_else(|_| "an agent".to_owned());
        let title = ended.spec.title();
        let now = cx.clock.now();
        all.into_iter()
            .filter(|a| a.state == AutomationState::Active && Some(&a.id) != own.as_ref())
            .filter(|a| matches!(&a.spec.trigger, Trigger::TaskEnded { profile_id, ended } if profile_id == profile && ended.matches(state)))
            .map(|a| {
                let reason = format!("{agent}'s task “{title}” {}", state_words(state));
                let mut context = format!(
                    "This task was started by an automation: {agent}'s task “{title}” {}.\n",
                    state_words(state)
                );
                if let Some(why) = ended.reason() {
                    context.push_str(&format!("Why it ended: {why}\n"));
                }
                if let Some(result) = ended.result() {
                    context.push_str(&summary_words(&result.summary));
                }
                Fire { automation: a.id, at: now, reason, context: capped(context) }
            })
            .collect()
    }

    /// A loop ended: the automation whose run started it, if one did, is
    /// judged anew.
    pub fn loop_ended(&mut self, cx: &mut Ctx, loop_id: &LoopId) {
        if let Ok(Some(id)) = cx.store.automation_of_loop(loop_id) {
            self.after_own_run(cx, &id);
        }
    }

    /// A task or loop one of its runs made ended: told anew; paused when its
    /// last runs all ended badly, saying why.
    fn after_own_run(&mut self, cx: &mut Ctx, id: &AutomationId) {
        let Ok(stored) = stored(cx, id) else { return };
        let runs = cx.store.automation_runs(id, rules::FAILING_RUNS * 2).unwrap_or_default();
        // Each ended run, oldest first: whether it ended badly, and how.
        let ended: Vec<(bool, String)> = runs.iter().filter_map(|run| run_end(cx, &run.made)).collect();
        let badly: Vec<bool> = ended.iter().map(|(badly, _)| *badly).collect();
        if stored.state == AutomationState::Active && rules::failing(&badly) {
            let last = ended.last().map(|(_, how)| how.clone()).unwrap_or_default();
            let why = PauseReason::Failing { failures: rules::FAILING_RUNS as u32, last };
            let paused = StoredAutomation { state: AutomationState::Paused { at: cx.clock.now(), why }, ..stored };
            if let Err(error) = self.keep(cx, paused.clone()) {
                tracing::error!(%error, "a failing automation could not be paused");
            }
            let kind = switchboard_api::LogKind::AutomationPaused {
                name: paused.spec.name(),
                why: paused.state.reason().unwrap_or_default(),
            };
            let about = crate::sink::LogAbout { profile: Some(&paused.spec.profile_id), ..Default::default() };
            if let Err(error) = cx.log(cx.clock.now(), about, &kind) {
                tracing::warn!(%error, "an automation's pause could not be logged");
            }
            return;
        }
        cx.emit(EngineEvent::AutomationChanged { automation: view(cx, stored) });
    }
}

/// How a run's work ended: whether badly, and why in words; none while it
/// is queued or at work, or when it made nothing.
fn run_end(cx: &Ctx, made: &RunMade) -> Option<(bool, String)> {
    match made {
        RunMade::Task(task) => {
            let task = super::tasks::task_of(cx, task).ok()?;
            let state = task.state();
            if matches!(state, TaskState::Queued | TaskState::Running) {
                return None;
            }
            let how = task.reason().map_or_else(|| state_words(state).to_owned(), str::to_owned);
            Some((rules::ended_badly(state), how))
        }
        RunMade::Loop(id) => {
            let state = cx.store.get_loop(id).ok()??.state;
            Some((rules::loop_ended_badly(&state), format!("its loop ended: {}", state.reason()?)))
        }
        RunMade::Skipped(_) => None,
    }
}

/// The commit a repository's branch is at now, or why it cannot be told.
fn branch_now(repo: &str, branch: &str) -> Result<String, String> {
    let path = std::path::Path::new(repo);
    if !path.is_dir() {
        return Err(format!("The folder {repo} does not exist."));
    }
    match crate::worktree::branch_head(path, branch) {
        Ok(Some(commit)) => Ok(commit),
        Ok(None) => Err(format!("{repo} has no branch {branch}.")),
        Err(error) => Err(format!("{repo} is not a git repository Switchboard can read: {error}")),
    }
}

/// The automation kept under `id`.
pub fn stored(cx: &Ctx, id: &AutomationId) -> Result<StoredAutomation, EngineError> {
    cx.store.get_automation(id)?.ok_or_else(no_automation)
}

fn no_automation() -> EngineError {
    invalid("automation_id", "there is no such automation")
}

/// The schedule of a spec whose trigger is one; none for a chain.
fn schedule_of_spec(spec: &AutomationSpec, anchor: Millis) -> Result<Option<Schedule>, String> {
    let zone = spec.zone.as_deref();
    match &spec.trigger {
        Trigger::Every { every } => Schedule::of(Some(every), None, zone, anchor).map(Some),
        Trigger::Rule { rrule } => Schedule::of(None, Some(rrule), zone, anchor).map(Some),
        Trigger::TaskEnded { .. } | Trigger::FilesChanged { .. } | Trigger::BranchMoved { .. } => Ok(None),
    }
}

fn schedule_words(spec: &AutomationSpec) -> String {
    match &spec.trigger {
        Trigger::Every { every } => every.trim().to_owned(),
        Trigger::Rule { rrule } => rrule.trim().to_owned(),
        Trigger::TaskEnded { .. } => "a chain".to_owned(),
        Trigger::FilesChanged { dir, .. } => format!("files under {dir}"),
        Trigger::BranchMoved { branch, .. } => format!("the branch {branch}"),
    }
}

fn state_words(state: TaskState) -> &'static str {
    match state {
        TaskState::Completed => "completed",
        TaskState::Failed => "failed",
        TaskState::TimedOut => "timed out",
        TaskState::OverBudget => "went over its budget",
        other => other.as_str(),
    }
}

/// What the ended task's summary said, for the next agent to read.
fn summary_words(summary: &switchboard_protocol::summary::Summary) -> String {
    let mut text = format!("\nIts summary says:\nObjective: {}\n", summary.objective);
    for line in summary.accomplishments.iter().chain(&summary.notes) {
        text.push_str(&format!("- {line}\n"));
    }
    if !summary.test_results.trim().is_empty() {
        text.push_str(&format!("Tests: {}\n", summary.test_results));
    }
    text
}

fn capped(mut text: String) -> String {
    if text.len() > CONTEXT_CAP {
        let mut end = CONTEXT_CAP;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
        text.push_str("\n[… cut: longer than Switchboard passes on]\n");
    }
    text
}

/// The task a run of `spec` queues, with `context` as its context file.
pub fn task_spec(spec: &AutomationSpec, context: String) -> TaskSpec {
    let AutomationAction::Task { instruction, title, budget, time_limit_secs } = &spec.action else {
        return TaskSpec::new(spec.profile_id.clone(), "");
    };
    TaskSpec {
        title: title.clone(),
        budget: *budget,
        time_limit_secs: *time_limit_secs,
        context: Some(context).filter(|c| !c.is_empty()),
        ..TaskSpec::new(spec.profile_id.clone(), instruction.clone())
    }
}

/// Records a run and says so in the log of the engine.
pub fn record(cx: &Ctx, id: &AutomationId, at: Millis, reason: &str, made: &RunMade) {
    if let Err(error) = cx.store.add_automation_run(id, at, reason, made) {
        tracing::error!(%error, "an automation's run could not be recorded");
    }
}

/// The automation as clients see it: its runs with what became of their
/// work.
pub fn view(cx: &Ctx, stored: StoredAutomation) -> Automation {
    let runs = cx.store.shown_automation_runs(&stored.id).unwrap_or_default();
    let runs = runs
        .into_iter()
        .map(|run| {
            let outcome = match run.made {
                RunMade::Task(task_id) => match super::tasks::task_of(cx, &task_id) {
                    Ok(task) => {
                        let spent = cx.store.task_spent(&task_id).unwrap_or_default();
                        RunOutcome::Task { task_id, state: task.state(), cost_usd: spent.whole().1 }
                    }
                    Err(_) => RunOutcome::Skipped { why: "its task is gone".to_owned() },
                },
                RunMade::Loop(loop_id) => {
                    let state = cx.store.get_loop(&loop_id).ok().flatten().map(|l| l.state.as_str().to_owned());
                    RunOutcome::Loop { loop_id, state: state.unwrap_or_else(|| "gone".to_owned()) }
                }
                RunMade::Skipped(why) => RunOutcome::Skipped { why },
            };
            AutomationRun { seq: run.seq, fired_at: run.fired_at, reason: run.reason, outcome }
        })
        .collect();
    let branch_at = stored.seen.clone().filter(|_| matches!(stored.spec.trigger, Trigger::BranchMoved { .. }));
    Automation {
        id: stored.id,
        spec: stored.spec,
        created_at: stored.created_at,
        next_run: stored.next_run.filter(|_| stored.state == AutomationState::Active),
        branch_at,
        state: stored.state,
        runs,
        host: None,
    }
}
