//! What was spent, gathered for a report: by agent, by day (in this
//! machine's time zone) or by task, and in all.

use std::collections::BTreeMap;

use switchboard_api::{BudgetUse, CostGrouping, CostReport, CostRow, CostSince, ModelUse, Spent, Usd, totals};

use crate::tasks::budget::{day_start, local_day};

use crate::engine::context::Ctx;
use crate::error::EngineError;
use crate::store::UsageRow;

/// Sums rows into each model's use.
pub fn model_uses<'a>(rows: impl IntoIterator<Item = &'a UsageRow>) -> Vec<ModelUse> {
    let mut by_model: BTreeMap<&str, ModelUse> = BTreeMap::new();
    for row in rows {
        let used = by_model.entry(row.model.as_str()).or_insert_with(|| ModelUse {
            model: row.model.clone(),
            tokens: Default::default(),
            cost: Usd::ZERO,
            unpriced: 0,
        });
        used.tokens.add(&row.tokens);
        match row.cost {
            Some(cost) => used.cost = used.cost + cost,
            None => used.unpriced += 1,
        }
    }
    by_model.into_values().collect()
}

fn spent<'a>(rows: impl IntoIterator<Item = &'a UsageRow> + Clone) -> Spent {
    let list_price = rows.clone().into_iter().any(|row| row.list_price);
    let (tokens, cost_usd) = totals(&model_uses(rows));
    Spent { tokens, cost_usd, list_price }
}

/// Groups the rows by `by`: each group's key and its rows, in order.
pub fn grouped(rows: &[UsageRow], by: CostGrouping) -> BTreeMap<String, Vec<&UsageRow>> {
    let mut groups: BTreeMap<String, Vec<&UsageRow>> = BTreeMap::new();
    for row in rows {
        let key = match by {
            CostGrouping::Agent => row.profile_id.to_string(),
            CostGrouping::Day => local_day(row.at),
            CostGrouping::Task => row.task_id.as_ref().map(ToString::to_string).unwrap_or_default(),
        };
        groups.entry(key).or_default().push(row);
    }
    groups
}

/// What was spent since `since`, grouped. An agent's row of today says how
/// much of its day's budget it used, as its budget is judged.
pub fn cost_report(cx: &Ctx, since: CostSince, by: CostGrouping) -> Result<CostReport, EngineError> {
    let (since, today) = match since {
        CostSince::Today => (day_start(cx.clock.now()), true),
        CostSince::At { at } => (at, false),
    };
    let rows = cx.store.usage_rows_since(since)?;
    let mut report_rows: Vec<CostRow> = grouped(&rows, by)
        .into_iter()
        .map(|(key, group)| {
            let name = match by {
                CostGrouping::Day => key.clone(),
                CostGrouping::Agent => key
                    .parse()
                    .ok()
                    .and_then(|id| cx.profile(&id).ok())
                    .map_or_else(|| "a deleted agent".to_owned(), |p| p.spec.name),
                CostGrouping::Task if key.is_empty() => "outside tasks".to_owned(),
                CostGrouping::Task => key
                    .parse()
                    .ok()
                    .and_then(|id| cx.store.get_task(&id).ok().flatten())
                    .map_or_else(|| "a deleted task".to_owned(), |t| t.spec.title()),
            };
            let spent = spent(group.iter().copied());
            let day_budget = (today && by == CostGrouping::Agent)
                .then(|| key.parse().ok().and_then(|id| cx.profile(&id).ok()).and_then(|p| p.spec.daily_budget))
                .flatten()
                .map(|budget| BudgetUse::of(budget, spent.tokens.all(), spent.cost_usd));
            CostRow { key, name, spent, day_budget }
        })
        .collect();
    if today && by == CostGrouping::Agent {
        // An agent with a day's budget that spent nothing yet: none of it used.
        for profile in cx.store.list_profiles()? {
            let Some(budget) = profile.spec.daily_budget else { continue };
            if report_rows.iter().all(|row| row.key != profile.id.to_string()) {
                report_rows.push(CostRow {
                    key: profile.id.to_string(),
                    name: profile.spec.name,
                    spent: Spent::default(),
                    day_budget: Some(BudgetUse::of(budget, 0, Some(Usd::ZERO))),
                });
            }
        }
    }
    Ok(CostReport { since, by, rows: report_rows, total: spent(rows.iter()) }.in_order())
}
