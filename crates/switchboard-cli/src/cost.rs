//! `switchboard cost`: what the agents' work cost, from what the engine
//! read of their own records.

use std::io::Write;

use anyhow::Result;
use switchboard_api::{Budget, BudgetUse, CostGrouping, CostReport, CostSince, TokenTotals, Usd, thousands};
use switchboard_client::blocking::Client;

use crate::print::{columns, print};
use crate::{CostBy, Output};

pub(crate) fn run(client: &Client, since: &str, by: CostBy, output: Output, out: &mut impl Write) -> Result<()> {
    let since = match since.trim() {
        "today" => CostSince::Today,
        since => CostSince::At { at: crate::events::parse_since(since)? },
    };
    let by = match by {
        CostBy::Agent => CostGrouping::Agent,
        CostBy::Day => CostGrouping::Day,
        CostBy::Task => CostGrouping::Task,
    };
    let report = client.cost_report(since, by)?;
    print(out, output, &report, describe)
}

/// "1,234 tokens (1,000 in, 200 out, 34 cached) · $0.0042"; a cost not
/// known says so, never a guess.
pub fn spent_line(tokens: &TokenTotals, cost: Option<Usd>, list_price: bool) -> String {
    let cost = match cost {
        Some(cost) if list_price => format!("{} at list prices (paid by subscription)", cost.in_words()),
        Some(cost) => cost.in_words(),
        None => "price unknown".to_owned(),
    };
    let cached = tokens.cache_read + tokens.cache_write;
    format!(
        "{} tokens ({} in, {} out, {} cached) · {cost}",
        thousands(tokens.all()),
        thousands(tokens.input),
        thousands(tokens.output),
        thousands(cached)
    )
}

/// "1,000 tokens · 42 % used", as the engine judged the share; a dollar
/// budget whose cost is not known says so.
pub fn budget_line(budget: Budget, used: Option<BudgetUse>) -> String {
    match used.map(|used| used.used_percent) {
        Some(Some(percent)) => format!("{} · {percent} % used", budget.in_words()),
        Some(None) => format!("{} · share used not known: a model it used has no price", budget.in_words()),
        None => budget.in_words(),
    }
}

fn describe(report: &CostReport) -> String {
    if report.rows.is_empty() {
        return "nothing was spent in that time".to_owned();
    }
    let mut rows: Vec<Vec<String>> = report
        .rows
        .iter()
        .map(|row| {
            let mut line = spent_line(&row.spent.tokens, row.spent.cost_usd, row.spent.list_price);
            if let Some(used) = row.day_budget.and_then(|used| used.used_percent) {
                line.push_str(&format!(" · {used} % of its day's budget"));
            }
            vec![row.name.clone(), line]
        })
        .collect();
    rows.push(vec![
        "in all".to_owned(),
        spent_line(&report.total.tokens, report.total.cost_usd, report.total.list_price),
    ]);
    columns(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spent_is_said_in_words() {
        let tokens = TokenTotals { input: 1000, output: 200, cache_read: 30, cache_write: 4, by_model: vec![] };
        let usd = Usd::try_from(0.0042).unwrap();
        let cases = [
            (Some(usd), false, "1,234 tokens (1,000 in, 200 out, 34 cached) · $0.0042"),
            (None, false, "1,234 tokens (1,000 in, 200 out, 34 cached) · price unknown"),
            (
                Some(usd),
                true,
                "1,234 tokens (1,000 in, 200 out, 34 cached) · $0.0042 at list prices (paid by subscription)",
            ),
        ];
        for (cost, list_price, line) in cases {
            assert_eq!(spent_line(&tokens, cost, list_price), line);
        }
    }
}
