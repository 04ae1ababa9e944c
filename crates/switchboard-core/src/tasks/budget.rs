//! Whether a budget can hold before a task is queued (pure): a budget in
//! dollars needs a price for the model its agent uses.

use switchboard_api::{Budget, Millis, PriceTable, local_offset_secs};

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

/// When the day after the day of `at` begins (a day is 23 to 25 hours
/// where clocks change).
pub fn next_day_start(at: Millis) -> Millis {
    day_start(day_start(at) + 30 * 3_600_000)
}

/// The model an agent's command line asks for (`--model X`, `--model=X`,
/// `-m X`, Codex's `-c model=X`), if it names one.
pub fn model_in_args(args: &[String]) -> Option<String> {
    let mut words = args.iter();
    while let Some(word) = words.next() {
        let named = match word.as_str() {
            "--model" | "-m" => words.next().cloned(),
            "-c" | "--config" => words.next().and_then(|pair| pair.strip_prefix("model=").map(str::to_owned)),
            other => other.strip_prefix("--model=").map(str::to_owned),
        };
        if let Some(model) = named {
            return Some(model.trim_matches(['"', '\'']).to_owned()).filter(|m| !m.is_empty());
        }
    }
    None
}

/// Why a task's budget cannot be kept, if it cannot: a dollar budget for an
/// agent whose model is not known (`model`: from its command line, else its
/// last answer) or has no price.
pub fn budget_refusal(
    budget: Option<&Budget>,
    agent: &str,
    model: Option<&str>,
    prices: &PriceTable,
) -> Option<String> {
    let Some(Budget::Usd(_)) = budget else { return None };
    match model {
        None => Some(format!(
            "Switchboard does not know yet which model {agent} uses, so it cannot price its work: give a budget in \
             tokens, or run one task first."
        )),
        Some(model) if prices.of(model).is_none() => Some(format!(
            "{model}, the model {agent} uses, has no price in Settings: give a budget in tokens, or add its price."
        )),
        Some(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_model_a_command_line_names() {
        let args = |words: &[&str]| words.iter().map(|w| (*w).to_owned()).collect::<Vec<_>>();
        let cases: [(&[&str], Option<&str>); 7] = [
            (&["--model", "claude-opus-5-5"], Some("claude-opus-5-5")),
            (&["--dangerously-skip-permissions", "--model=sonnet"], Some("sonnet")),
            (&["-m", "gpt-6-sol"], Some("gpt-6-sol")),
            (&["-c", "model=\"gpt-6-luna\""], Some("gpt-6-luna")),
            (&["-c", "notify=[]"], None),
            (&["--model"], None),
            (&[], None),
        ];
        for (words, model) in cases {
            assert_eq!(model_in_args(&args(words)).as_deref(), model, "{words:?}");
        }
    }

    #[test]
    fn a_day_is_the_machines_day() {
        // Whatever this machine's zone: its day starts at or before the
        // moment, less than a day before, and names the moment's date; the
        // next begins after it, on another date.
        for at in [0_i64, 1_795_959_756_415, 1_795_999_999_999] {
            let start = day_start(at);
            assert!(start <= at && at - start < 86_400_000, "{at}");
            assert_eq!(local_day(start), local_day(at));
            let next = next_day_start(at);
            assert!(next > at && next - start <= 25 * 3_600_000 && next - start >= 23 * 3_600_000, "{at}");
            assert_ne!(local_day(next), local_day(at));
        }
    }

    #[test]
    fn a_dollar_budget_needs_a_priced_model() {
        let prices = PriceTable::shipped();
        let usd = Budget::Usd(switchboard_api::Usd::try_from(1.0).unwrap());
        assert_eq!(budget_refusal(Some(&usd), "coder", Some("claude-opus-5-5"), &prices), None);
        assert_eq!(budget_refusal(Some(&Budget::Tokens(10)), "coder", None, &prices), None);
        assert_eq!(budget_refusal(None, "coder", None, &prices), None);
        let unknown = budget_refusal(Some(&usd), "coder", None, &prices).unwrap();
        assert!(unknown.contains("does not know yet which model coder uses"), "{unknown}");
        let unpriced = budget_refusal(Some(&usd), "coder", Some("claude-fake"), &prices).unwrap();
        assert!(unpriced.starts_with("claude-fake, the model coder uses, has no price"), "{unpriced}");
    }
}
