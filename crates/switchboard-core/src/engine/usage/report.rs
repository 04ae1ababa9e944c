//! What was spent, gathered for a report: by agent, by day (in this
//! machine's time zone) or by task, and in all.

use std::collections::BTreeMap;

use switchboard_api::{
    CostGrouping, CostReport, CostRow, Millis, ModelUse, Spent, TaskSpent, Usd, local_offset_secs, totals,
};

use crate::engine::context::Ctx;
use crate::error::EngineError;
use crate::store::UsageRow;

/// The day of `at` (Unix ms) in this machine's time zone, `YYYY-MM-DD`.
pub fn local_day(at: Millis) -> String {
    let local = at + i64::from(local_offset_secs(at)) * 1000;
    jiff::Timestamp::from_millisecond(local)
        .map(|t| t.to_zoned(jiff::tz::TimeZone::UTC).date().to_string())
        .unwrap_or_default()
}

/// When the day of `at` began in this machine's time zone (Unix ms).
pub fn day_start(at: Millis) -> Millis {
    let offset = i64::from(local_offset_secs(at)) * 1000;
    let local = at + offset;
    local - local.rem_euclid(86_400_000) - offset
}

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

/// What was spent since `since`, grouped.
pub fn cost_report(cx: &Ctx, since: Millis, by: CostGrouping) -> Result<CostReport, EngineError> {
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
            CostRow { key, name, spent: spent(group.iter().copied()) }
        })
        .collect();
    if by != CostGrouping::Day {
        // The costliest first; tokens where a cost is not known.
        report_rows
            .sort_by_key(|row| std::cmp::Reverse((row.spent.cost_usd.unwrap_or(Usd::ZERO), row.spent.tokens.all())));
    }
    Ok(CostReport { since, by, rows: report_rows, total: spent(rows.iter()) })
}

/// What an agent spent since its day began.
pub fn agent_day(cx: &Ctx, profile: &switchboard_protocol::ProfileId, now: Millis) -> Result<TaskSpent, EngineError> {
    let uses = cx.store.model_uses(&crate::store::UsageOf::Agent(profile, day_start(now)), None)?;
    let (tokens, cost_usd) = totals(&uses);
    Ok(TaskSpent { tokens, cost_usd, ..TaskSpent::default() })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_day_is_the_machines_day() {
        // Whatever this machine's zone: its day starts at or before the
        // moment, less than a day before, and names the moment's date.
        for at in [0_i64, 1_795_959_756_415, 1_795_999_999_999] {
            let start = day_start(at);
            assert!(start <= at && at - start < 86_400_000, "{at}");
            assert_eq!(local_day(start), local_day(at));
        }
        assert_eq!(local_day(1_795_959_756_415).len(), 10);
    }
}
