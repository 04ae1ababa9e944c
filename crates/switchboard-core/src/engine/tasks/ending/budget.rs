//! Budgets that hold: usage counted to a task (its own and its team's)
//! told anew with its record; a task at work past 80 % of its budget is said
//! once in its timeline; one that used all of it is interrupted as a time
//! limit interrupts it (its fallback summary kept) and ends over budget.
//! Unlike a time limit, a budget does not pause while the agent waits for
//! the user: tokens are spent or not.

use switchboard_api::{Budget, BudgetMark, LogKind, TaskState, budget_mark};
use switchboard_protocol::{ProfileId, TaskId};

use super::super::{TaskDesk, log_task, report_task, task_of};
use crate::engine::context::Ctx;

impl TaskDesk {
    /// Usage was counted to `tasks` (and to the agent's day).
    pub fn usage_counted(&mut self, cx: &mut Ctx, tasks: &[TaskId], _profile: &ProfileId) {
        for id in tasks {
            let Ok(task) = task_of(cx, id) else { continue };
            report_task(cx, task.clone());
            let Some(budget) = task.spec.budget else { continue };
            if task.state() != TaskState::Running {
                self.budget_told.remove(id);
                continue;
            }
            let spent = cx.store.task_spent(id).unwrap_or_default();
            let (tokens, cost) = spent.whole();
            let used = budget.used(&tokens, cost);
            match budget_mark(used) {
                BudgetMark::Under => {}
                BudgetMark::Near => {
                    if self.budget_told.insert(id.clone()) {
                        let percent = used.unwrap_or_default() / 100;
                        log_task(
                            cx,
                            &task,
                            LogKind::BudgetNear { budget: budget.in_words(), used_percent: percent as u32 },
                        );
                    }
                }
                BudgetMark::Spent => {
                    self.budget_told.remove(id);
                    let Some(profile_id) = self.profile_working_on(id) else { continue };
                    let reason = over_budget_reason(budget, tokens.all(), cost);
                    self.begin_fallback(cx, &profile_id, TaskState::OverBudget, reason, true);
                }
            }
        }
    }
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
