//! What work cost: tokens by model, their price, budgets. The arithmetic is
//! here, once, pure; the engine reads the agents' files and keeps the
//! answers (`switchboard_protocol::usage`), every client shows what it says.

use serde::{Deserialize, Serialize};
pub use switchboard_protocol::usage::{Budget, Tokens, Usd, thousands};
#[cfg(feature = "ts")]
use ts_rs::TS;

/// A model's prices, in dollars per million tokens.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct Rates {
    pub input: Usd,
    pub output: Usd,
    pub cache_write_5m: Usd,
    pub cache_write_1h: Usd,
    pub cache_read: Usd,
}

/// The prices of the models whose names start with `model` (the longest
/// such name wins: `claude-opus-5-5` covers `claude-opus-5-5-20260922` and
/// `claude-opus-5-5[1m]`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct ModelPrice {
    pub model: String,
    #[serde(flatten)]
    pub rates: Rates,
    /// The rates of an answer whose prompt (its input, cache reads and cache
    /// writes) is longer than `above_tokens`, for every token of it, where
    /// the model has such a tier.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub long_prompt: Option<LongPrompt>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct LongPrompt {
    pub above_tokens: u64,
    #[serde(flatten)]
    pub rates: Rates,
}

/// The price table: where its prices come from and when they were taken,
/// and each model's. The app ships one (`PriceTable::shipped`); the user
/// edits it in Settings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct PriceTable {
    pub source: String,
    /// The day the prices were read from their source (`YYYY-MM-DD`).
    pub taken: String,
    pub models: Vec<ModelPrice>,
}

impl Default for PriceTable {
    fn default() -> Self {
        PriceTable::shipped()
    }
}

impl PriceTable {
    /// The table the app ships (`prices.json`).
    pub fn shipped() -> PriceTable {
        serde_json::from_str(include_str!("prices.json")).expect("the shipped price table reads")
    }

    /// The prices of `model`, if the table has them.
    pub fn of(&self, model: &str) -> Option<&ModelPrice> {
        self.models
            .iter()
            .filter(|price| {
                model.strip_prefix(price.model.as_str()).is_some_and(|rest| {
                    rest.is_empty() || rest.starts_with('-') || rest.starts_with('[') || rest.starts_with('@')
                })
            })
            .max_by_key(|price| price.model.len())
    }

    /// What one answer of `model` cost; none when the model has no price.
    pub fn cost(&self, model: Option<&str>, tokens: &Tokens) -> Option<Usd> {
        let price = self.of(model?)?;
        let rates = match &price.long_prompt {
            Some(long) if tokens.prompt() > long.above_tokens => &long.rates,
            _ => &price.rates,
        };
        // Dollars per million tokens are billionths per thousandth of a token.
        let part = |count: u64, rate: Usd| i128::from(count) * i128::from(rate.nanos());
        let billionths = part(tokens.input, rates.input)
            + part(tokens.output, rates.output)
            + part(tokens.cache_write_5m, rates.cache_write_5m)
            + part(tokens.cache_write_1h, rates.cache_write_1h)
            + part(tokens.cache_read, rates.cache_read);
        Some(Usd::from_nanos(i64::try_from((billionths + 500_000) / 1_000_000).unwrap_or(i64::MAX)))
    }

    /// Every problem of an edited table, each a sentence; none: it may be kept.
    pub fn problems(&self) -> Vec<String> {
        let mut problems = Vec::new();
        let mut seen = std::collections::BTreeSet::new();
        for price in &self.models {
            let name = price.model.trim();
            if name.is_empty() {
                problems.push("A price has no model name.".to_owned());
            } else if !seen.insert(name) {
                problems.push(format!("The model {name} is priced twice."));
            }
            if price.long_prompt.as_ref().is_some_and(|long| long.above_tokens == 0) {
                problems.push(format!("The long-prompt prices of {name} start above 0 tokens: give a length."));
            }
        }
        problems
    }
}

/// Tokens of one model, and their cost (none when the model has no price).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct ModelTokens {
    pub model: String,
    pub input: u64,
    pub output: u64,
    pub cache_read: u64,
    pub cache_write: u64,
    pub cost_usd: Option<Usd>,
}

/// Tokens summed, and by model.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct TokenTotals {
    pub input: u64,
    pub output: u64,
    pub cache_read: u64,
    pub cache_write: u64,
    pub by_model: Vec<ModelTokens>,
}

/// The model named where a file did not say which answered.
pub const UNKNOWN_MODEL: &str = "unknown";

/// One model's part of some work, as the store sums it: its tokens and what
/// the priced answers among them cost.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelUse {
    pub model: String,
    pub tokens: Tokens,
    /// The cost of its answers that had a price.
    pub cost: Usd,
    /// How many of its answers had no price.
    pub unpriced: u64,
}

/// Some work's use, said once: totals, by model, and the cost (none when
/// any of it has no price: never a guess).
pub fn totals(uses: &[ModelUse]) -> (TokenTotals, Option<Usd>) {
    let mut totals = TokenTotals::default();
    let mut cost = Some(Usd::ZERO);
    for used in uses {
        let t = &used.tokens;
        totals.input += t.input;
        totals.output += t.output;
        totals.cache_read += t.cache_read;
        totals.cache_write += t.cache_write();
        let priced = (used.unpriced == 0).then_some(used.cost);
        cost = cost.zip(priced).map(|(a, b)| a + b);
        totals.by_model.push(ModelTokens {
            model: used.model.clone(),
            input: t.input,
            output: t.output,
            cache_read: t.cache_read,
            cache_write: t.cache_write(),
            cost_usd: priced,
        });
    }
    (totals, cost)
}

impl TokenTotals {
    /// Every token: what a token budget counts.
    pub fn all(&self) -> u64 {
        self.input + self.output + self.cache_read + self.cache_write
    }
}

/// Where some work stands against its budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(rename_all = "snake_case")]
pub enum BudgetMark {
    Under,
    /// Past 80 %: the user is told, once.
    Near,
    /// All of it: the work ends over budget.
    Spent,
}

/// The share of a budget at which the user is told.
pub const BUDGET_NOTICE_PERCENT: u64 = 80;

/// Where `used` (hundredths of a percent of a budget) stands.
pub fn budget_mark(used: Option<u64>) -> BudgetMark {
    match used {
        Some(used) if used >= 10_000 => BudgetMark::Spent,
        Some(used) if used >= BUDGET_NOTICE_PERCENT * 100 => BudgetMark::Near,
        _ => BudgetMark::Under,
    }
}

/// How much of its budget some work used, as the engine judges it (every
/// client shows this, none works it out again).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct BudgetUse {
    /// Whole percent used, rounded down; none for a dollar budget while a
    /// model the work used has no price.
    pub used_percent: Option<u32>,
    pub mark: BudgetMark,
}

impl BudgetUse {
    /// `budget` against `tokens` (every token used) and their cost.
    pub fn of(budget: crate::Budget, tokens: u64, cost: Option<Usd>) -> BudgetUse {
        let share = budget.used(tokens, cost);
        BudgetUse {
            used_percent: share.map(|share| u32::try_from(share / 100).unwrap_or(u32::MAX)),
            mark: budget_mark(share),
        }
    }
}

/// What some work (a task, a loop, an agent's day) used and cost.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct Spent {
    pub tokens: TokenTotals,
    /// None when a model it used has no price.
    pub cost_usd: Option<Usd>,
    /// The cost is what the tokens would cost at list prices: the account
    /// pays by subscription.
    #[serde(default)]
    pub list_price: bool,
}

/// Nothing spent costs nothing (not "price unknown").
impl Default for Spent {
    fn default() -> Self {
        Spent { tokens: TokenTotals::default(), cost_usd: Some(Usd::ZERO), list_price: false }
    }
}

impl Spent {
    /// Both together: tokens summed (and by model), the cost known only
    /// where both are.
    pub fn plus(mut self, other: &Spent) -> Spent {
        let t = &mut self.tokens;
        t.input += other.tokens.input;
        t.output += other.tokens.output;
        t.cache_read += other.tokens.cache_read;
        t.cache_write += other.tokens.cache_write;
        for used in &other.tokens.by_model {
            match t.by_model.iter_mut().find(|mine| mine.model == used.model) {
                Some(mine) => {
                    mine.input += used.input;
                    mine.output += used.output;
                    mine.cache_read += used.cache_read;
                    mine.cache_write += used.cache_write;
                    mine.cost_usd = mine.cost_usd.zip(used.cost_usd).map(|(a, b)| a + b);
                }
                None => t.by_model.push(used.clone()),
            }
        }
        self.cost_usd = self.cost_usd.zip(other.cost_usd).map(|(a, b)| a + b);
        self.list_price |= other.list_price;
        self
    }
}

/// What a task used and cost, as its record carries it: its own, and for a
/// lead its team's (teammates and sub-agents) apart.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(default)]
pub struct TaskSpent {
    pub tokens: TokenTotals,
    /// None when a model it used has no price.
    pub cost_usd: Option<Usd>,
    /// Its team's tokens, where it led one that used any.
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub team_tokens: Option<TokenTotals>,
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub team_cost_usd: Option<Usd>,
    /// Its costs are what its tokens would cost at list prices: its account
    /// pays by subscription.
    pub list_price: bool,
    /// How much of its budget it used (its own and its team's together),
    /// where it has one.
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub budget_used: Option<BudgetUse>,
}

/// Nothing spent costs nothing (not "price unknown").
impl Default for TaskSpent {
    fn default() -> Self {
        TaskSpent {
            tokens: TokenTotals::default(),
            cost_usd: Some(Usd::ZERO),
            team_tokens: None,
            team_cost_usd: None,
            list_price: false,
            budget_used: None,
        }
    }
}

impl TaskSpent {
    /// Its own and its team's together: what its budget counts.
    pub fn whole(&self) -> (TokenTotals, Option<Usd>) {
        let Some(team) = &self.team_tokens else { return (self.tokens.clone(), self.cost_usd) };
        let mut sum = self.tokens.clone();
        sum.input += team.input;
        sum.output += team.output;
        sum.cache_read += team.cache_read;
        sum.cache_write += team.cache_write;
        sum.by_model.extend(team.by_model.iter().cloned());
        (sum, self.cost_usd.zip(self.team_cost_usd).map(|(a, b)| a + b))
    }
}

/// How a cost report groups what was spent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(rename_all = "snake_case")]
pub enum CostGrouping {
    Agent,
    /// By day, in the time zone of the machine the engine runs on.
    Day,
    Task,
}

impl CostGrouping {
    pub fn parse(text: &str) -> Option<CostGrouping> {
        match text {
            "agent" => Some(CostGrouping::Agent),
            "day" => Some(CostGrouping::Day),
            "task" => Some(CostGrouping::Task),
            _ => None,
        }
    }
}

/// One group of a cost report: an agent, a day (`YYYY-MM-DD`) or a task.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct CostRow {
    /// The agent's or task's id, or the day.
    pub key: String,
    /// What a person calls it: the agent's name, the day, the task's title
    /// (work done outside any task: "outside tasks").
    pub name: String,
    #[serde(flatten)]
    pub spent: Spent,
    /// An agent's row of a report of today: how much of its day's budget it
    /// used, where it has one.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub day_budget: Option<BudgetUse>,
}

/// From when a cost report counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(tag = "from", rename_all = "snake_case")]
pub enum CostSince {
    /// Since the day began where the engine runs (its machine's time zone):
    /// each machine's agents by their own day.
    Today,
    /// Since `at` (Unix ms).
    At { at: crate::Millis },
}

/// What was spent since `since`, grouped, and in all.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct CostReport {
    /// When it counts from (Unix ms): for today, when the engine's day
    /// began.
    pub since: crate::Millis,
    pub by: CostGrouping,
    pub rows: Vec<CostRow>,
    pub total: Spent,
}

impl CostReport {
    /// Puts the rows in the order a report shows them: days in order, the
    /// costliest agent or task first (the most tokens where a cost is not
    /// known).
    pub fn in_order(mut self) -> CostReport {
        match self.by {
            CostGrouping::Day => self.rows.sort_by(|a, b| a.key.cmp(&b.key)),
            _ => self.rows.sort_by_key(|row| {
                std::cmp::Reverse((row.spent.cost_usd.unwrap_or(Usd::ZERO), row.spent.tokens.all()))
            }),
        }
        self
    }

    /// Two machines' reports of one grouping as one: a group both name
    /// (a day) summed.
    pub fn joined(mut self, other: CostReport) -> CostReport {
        for row in other.rows {
            match self.rows.iter_mut().find(|mine| mine.key == row.key) {
                Some(mine) => {
                    mine.spent = std::mem::take(&mut mine.spent).plus(&row.spent);
                    mine.day_budget = mine.day_budget.or(row.day_budget);
                }
                None => self.rows.push(row),
            }
        }
        self.since = self.since.min(other.since);
        self.total = self.total.plus(&other.total);
        self.in_order()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn usd(dollars: f64) -> Usd {
        Usd::try_from(dollars).unwrap()
    }

    fn table() -> PriceTable {
        let rates = |i, o, w5, w1, r| Rates {
            input: usd(i),
            output: usd(o),
            cache_write_5m: usd(w5),
            cache_write_1h: usd(w1),
            cache_read: usd(r),
        };
        PriceTable {
            source: "test".into(),
            taken: "2026-11-29".into(),
            models: vec![
                ModelPrice { model: "m".into(), rates: rates(1.0, 2.0, 3.0, 4.0, 0.5), long_prompt: None },
                ModelPrice { model: "m-big".into(), rates: rates(10.0, 20.0, 30.0, 40.0, 5.0), long_prompt: None },
                ModelPrice {
                    model: "tiered".into(),
                    rates: rates(1.0, 1.0, 1.0, 1.0, 1.0),
                    long_prompt: Some(LongPrompt { above_tokens: 1000, rates: rates(2.0, 2.0, 2.0, 2.0, 2.0) }),
                },
            ],
        }
    }

    #[test]
    fn an_answer_costs_each_kind_of_token_at_its_rate() {
        let million = Tokens {
            input: 1_000_000,
            output: 1_000_000,
            cache_read: 1_000_000,
            cache_write_5m: 1_000_000,
            cache_write_1h: 1_000_000,
        };
        let one = Tokens { input: 1, ..Tokens::default() };
        let cases: Vec<(Option<&str>, Tokens, Option<f64>)> = vec![
            (Some("m"), million, Some(10.5)),
            (Some("m-2026"), million, Some(10.5)),
            (Some("m[1m]"), million, Some(10.5)),
            (Some("m-big"), million, Some(105.0)),
            (Some("m-big-7"), million, Some(105.0)),
            (Some("mx"), million, None),
            (Some("other"), million, None),
            (None, million, None),
            (Some("m"), one, Some(0.000001)),
            (Some("tiered"), Tokens { input: 600, cache_read: 400, output: 1000, ..Tokens::default() }, Some(0.002)),
            (Some("tiered"), Tokens { input: 600, cache_read: 401, output: 1000, ..Tokens::default() }, Some(0.004002)),
        ];
        for (model, tokens, expected) in cases {
            assert_eq!(table().cost(model, &tokens).map(Usd::dollars), expected, "{model:?} {tokens:?}");
        }
    }

    #[test]
    fn a_total_with_an_unpriced_model_has_no_cost() {
        let used = |model: &str, unpriced| ModelUse {
            model: model.into(),
            tokens: Tokens { input: 10, output: 5, cache_write_5m: 1, cache_write_1h: 2, cache_read: 3 },
            cost: usd(0.5),
            unpriced,
        };
        let (tokens, cost) = totals(&[used("a", 0), used("b", 0)]);
        assert_eq!((tokens.input, tokens.cache_write, tokens.all(), cost), (20, 6, 42, Some(usd(1.0))));
        let (tokens, cost) = totals(&[used("a", 0), used("b", 1)]);
        assert_eq!((tokens.by_model[1].cost_usd, cost), (None, None));
        assert_eq!(totals(&[]).1, Some(Usd::ZERO));
    }

    #[test]
    fn budgets_read_as_people_write_them() {
        let cases: Vec<(&str, Result<Budget, ()>)> = vec![
            ("50000tok", Ok(Budget::Tokens(50_000))),
            ("50k tok", Ok(Budget::Tokens(50_000))),
            ("1.5M tokens", Ok(Budget::Tokens(1_500_000))),
            ("2.50usd", Ok(Budget::Usd(usd(2.5)))),
            ("$0.75", Ok(Budget::Usd(usd(0.75)))),
            ("0usd", Err(())),
            ("-1usd", Err(())),
            ("50000", Err(())),
            ("tok", Err(())),
            ("0tok", Err(())),
            ("NaNusd", Err(())),
        ];
        for (text, expected) in cases {
            assert_eq!(Budget::parse(text).map_err(|_| ()), expected, "{text}");
        }
    }

    #[test]
    fn work_nears_then_spends_its_budget() {
        let tokens = |all| TokenTotals { input: all, ..TokenTotals::default() };
        let cases = [
            (Budget::Tokens(1000), 799, None, BudgetMark::Under),
            (Budget::Tokens(1000), 800, None, BudgetMark::Near),
            (Budget::Tokens(1000), 1000, None, BudgetMark::Spent),
            (Budget::Usd(usd(1.0)), 0, Some(usd(0.85)), BudgetMark::Near),
            (Budget::Usd(usd(1.0)), 0, Some(usd(1.2)), BudgetMark::Spent),
            // A cost not known is no cost reached: a dollar budget needs prices.
            (Budget::Usd(usd(1.0)), 10_000_000, None, BudgetMark::Under),
        ];
        for (budget, all, cost, mark) in cases {
            assert_eq!(budget_mark(budget.used(tokens(all).all(), cost)), mark, "{budget:?} {all} {cost:?}");
        }
    }

    #[test]
    fn the_shipped_table_reads_and_says_where_it_is_from() {
        let shipped = PriceTable::shipped();
        assert!(shipped.problems().is_empty(), "{:?}", shipped.problems());
        assert!(shipped.source.contains("https://") && shipped.taken.len() == 10);
        assert!(shipped.of("claude-opus-5-5-20260922").is_some() && shipped.of("claude-fake").is_none());
    }

    #[test]
    fn amounts_read_in_words() {
        assert_eq!(
            (usd(2.5).in_words(), usd(0.0042).in_words(), Usd::ZERO.in_words()),
            ("$2.50".into(), "$0.0042".into(), "$0.00".into())
        );
        assert_eq!(thousands(1_234_567), "1,234,567");
        assert_eq!(serde_json::to_string(&usd(2.5)).unwrap(), "2.5");
    }
}
