//! Whether a budget can hold before a task is queued (pure): a budget in
//! dollars needs a price for the model its agent uses.

use switchboard_api::{Budget, PriceTable};

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
