//! Budgets that hold: usage counted to a task (its own and its team's)
//! told anew with its record; a task at work past 80 % of its budget is said
//! once in its timeline; one that used all of it is interrupted as a time
//! limit interrupts it (its fallback summary kept) and ends over budget.
//! Unlike a time limit, a budget does not pause while the agent waits for
//! the user: tokens are spent or not.

use switchboard_api::{Budget, BudgetMark, LogKind, Millis, TaskInfo, TaskState, WaitingFor, budget_mark, totals};
use switchboard_protocol::{ProfileId, TaskId};

use super::super::{TaskDesk, log_task, report_task, task_of};
use crate::engine::context::Ctx;
use crate::store::UsageOf;
use crate::tasks::budget::{day_start, local_day, next_day_start};

/// Which budget a notice is of: each is told once (a task's, a loop's, an
/// agent's day's).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(in crate::engine::tasks) enum Told {
    Task(TaskId),
    Loop(switchboard_protocol::LoopId),
    Day(ProfileId, String),
}

/// Whose budget a task at work is judged against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Whose {
    Own,
    Loop,
    Day,
}

impl Whose {
    /// How the reason it ended over budget begins.
    fn prefix(self) -> &'static str {
        match self {
            Whose::Own => "",
            Whose::Loop => "its loop: ",
            Whose::Day => "its agent's day: ",
        }
    }

    /// The budget as its notice names it.
    fn named(self, budget: Budget) -> String {
        match self {
            Whose::Own => budget.in_words(),
            Whose::Loop => format!("its loop's {}", budget.in_words()),
            Whose::Day => format!("its day's {}", budget.in_words()),
        }
    }
}

impl TaskDesk {
    /// Usage was counted to `tasks` and to the agent's day: each task told
    /// anew; then its budget, its loop's and its agent's day's.
    pub fn usage_counted(&mut self, cx: &mut Ctx, tasks: &[TaskId], profile: &ProfileId) {
        for id in tasks {
            let Ok(task) = task_of(cx, id) else { continue };
            report_task(cx, task.clone());
            if task.state() != TaskState::Running {
                continue;
            }
            if let Some(budget) = task.spec.budget {
                let (tokens, cost) = task.spent.whole();
                self.judge(cx, &task, Told::Task(id.clone()), (budget, Whose::Own), (tokens.all(), cost));
            }
            if let Some(iteration) = &task.spec.loop_iteration
                && let Ok(Some(info)) = cx.store.get_loop(&iteration.loop_id)
                && let Some(budget) = info.settings.budget
            {
                let (tokens, cost) = totals(&cx.store.model_uses(&UsageOf::Loop(&info.id), None).unwrap_or_default());
                self.judge(cx, &task, Told::Loop(info.id.clone()), (budget, Whose::Loop), (tokens.all(), cost));
            }
        }
        self.judge_day(cx, profile, cx.clock.now());
    }

    /// The agent's day's budget: past it, its task at work ends over
    /// budget (its queue holds until the next day, see [`day_held`]).
    fn judge_day(&mut self, cx: &mut Ctx, profile: &ProfileId, now: Millis) {
        let Some(budget) = cx.profile(profile).ok().and_then(|p| p.spec.daily_budget) else { return };
        let used = day_spent(cx, profile, now);
        let told = Told::Day(profile.clone(), local_day(now));
        match self.work.get(profile).and_then(|w| task_of(cx, &w.task_id).ok()) {
            Some(task) => self.judge(cx, &task, told, (budget, Whose::Day), used),
            None => {
                let share = budget.used(used.0, used.1);
                if budget_mark(share) == BudgetMark::Near && self.budget_told.insert(told) {
                    let kind = LogKind::BudgetNear {
                        budget: Whose::Day.named(budget),
                        used_percent: (share.unwrap_or_default() / 100) as u32,
                    };
                    let about = crate::sink::LogAbout { profile: Some(profile), ..Default::default() };
                    if let Err(error) = cx.log(now, about, &kind) {
                        tracing::warn!(%error, "a budget's notice could not be logged");
                    }
                }
            }
        }
    }

    /// One budget of the task at work against what it counts (`used`:
    /// every token, and their cost): told at its notice share, ended over
    /// budget when used up.
    fn judge(
        &mut self,
        cx: &mut Ctx,
        task: &TaskInfo,
        told: Told,
        (budget, whose): (Budget, Whose),
        (tokens, cost): (u64, Option<switchboard_api::Usd>),
    ) {
        let share = budget.used(tokens, cost);
        match budget_mark(share) {
            BudgetMark::Under => {}
            BudgetMark::Near => {
                if self.budget_told.insert(told) {
                    let used_percent = (share.unwrap_or_default() / 100) as u32;
                    log_task(cx, task, LogKind::BudgetNear { budget: whose.named(budget), used_percent });
                }
            }
            BudgetMark::Spent => {
                let Some(profile_id) = self.profile_working_on(&task.id) else { return };
                let reason = format!("{}{}", whose.prefix(), over_budget_reason(budget, tokens, cost));
                self.begin_fallback(cx, &profile_id, TaskState::OverBudget, reason, true);
            }
        }
    }
}

/// What the agent used today: every token, and their cost.
fn day_spent(cx: &Ctx, profile: &ProfileId, now: Millis) -> (u64, Option<switchboard_api::Usd>) {
    let uses = cx.store.model_uses(&UsageOf::Agent(profile, day_start(now)), None).unwrap_or_default();
    let (tokens, cost) = totals(&uses);
    (tokens.all(), cost)
}

/// The agent's queue holds for the rest of its day: it used its day's
/// budget.
pub(crate) fn day_held(cx: &Ctx, profile: &ProfileId, now: Millis) -> Option<WaitingFor> {
    let budget = cx.profile(profile).ok()?.spec.daily_budget?;
    let (tokens, cost) = day_spent(cx, profile, now);
    (budget_mark(budget.used(tokens, cost)) == BudgetMark::Spent)
        .then(|| WaitingFor::DailyBudget { budget: budget.in_words(), until: next_day_start(now) })
}

/// Why a task ended over budget, in words.
pub(crate) fn over_budget_reason(budget: Budget, tokens: u64, cost: Option<switchboard_api::Usd>) -> String {
    let used = match (budget, cost) {
        (Budget::Usd(_), Some(cost)) => cost.in_words(),
        _ => format!("{} tokens", switchboard_api::thousands(tokens)),
    };
    format!("it used its budget of {} ({used} used)", budget.in_words())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reason_says_the_budget_and_the_use() {
        let usd = |d: f64| switchboard_api::Usd::try_from(d).unwrap();
        let cases = [
            (Budget::Tokens(50_000), 52_120, None, "it used its budget of 50,000 tokens (52,120 tokens used)"),
            (Budget::Usd(usd(2.5)), 10, Some(usd(2.61)), "it used its budget of $2.50 ($2.61 used)"),
        ];
        for (budget, tokens, cost, reason) in cases {
            assert_eq!(over_budget_reason(budget, tokens, cost), reason);
        }
    }
}
