//! What loops spent, laid over them wherever the desk reports them: each
//! iteration's (its task's own and its team's) and the loop's in all; and
//! whether a budget given to work can be priced.

use switchboard_api::{Budget, BudgetUse, LoopInfo, Spent, TaskState, totals};
use switchboard_protocol::TaskId;

use crate::engine::context::Ctx;
use crate::store::UsageOf;

/// The loop with what it and each of its iterations shown spent.
pub(super) fn of_loop(cx: &Ctx, mut info: LoopInfo) -> LoopInfo {
    let uses = cx.store.model_uses(&UsageOf::Loop(&info.id), None).unwrap_or_default();
    let (tokens, cost_usd) = totals(&uses);
    info.spent = Spent { tokens, cost_usd, list_price: false };
    for iteration in &mut info.iterations {
        let Some(task) = &iteration.task_id else { continue };
        let spent = cx.store.task_spent(task).unwrap_or_default();
        let (tokens, cost_usd) = spent.whole();
        info.spent.list_price |= spent.list_price;
        iteration.spent = Spent { tokens, cost_usd, list_price: spent.list_price };
    }
    info.budget_used =
        info.settings.budget.map(|budget| BudgetUse::of(budget, info.spent.tokens.all(), info.spent.cost_usd));
    info
}

/// Whether the iteration's task ended over budget.
pub(super) fn ended_over_budget(cx: &Ctx, task: Option<&TaskId>) -> bool {
    let Some(task) = task else { return false };
    cx.store.get_task(task).ok().flatten().is_some_and(|task| task.state() == TaskState::OverBudget)
}

/// The budget a loop's iteration ended on, in words: the loop's own, else
/// its agent's day's.
pub(super) fn loop_budget_words(cx: &Ctx, info: &LoopInfo) -> String {
    match info.settings.budget {
        Some(budget) => budget.in_words(),
        None => cx
            .profile(&info.profile_id)
            .ok()
            .and_then(|p| p.spec.daily_budget)
            .map_or_else(|| "its agent".to_owned(), |budget| format!("its agent's day's {}", budget.in_words())),
    }
}

/// Why `budget`, given to work of `profile`, cannot be kept, if it cannot:
/// in dollars for a model not known or not priced.
pub(crate) fn unpriced_budget(
    cx: &Ctx,
    profile: &switchboard_api::Profile,
    budget: Option<&Budget>,
) -> Result<Option<String>, crate::error::EngineError> {
    if !matches!(budget, Some(Budget::Usd(_))) {
        return Ok(None);
    }
    let model = crate::tasks::budget::model_in_args(&profile.spec.args).or(cx.store.last_model(&profile.id)?);
    let prices = cx.store.settings()?.prices;
    Ok(crate::tasks::budget::budget_refusal(budget, &profile.spec.name, model.as_deref(), &prices))
}
