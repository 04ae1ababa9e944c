//! Search across tasks (their names and instructions), their summaries and
//! the signals agents raised. Pure: the store narrows the candidates with
//! `LIKE` (each word somewhere in the row), and [`hits`] decides what
//! matches, in the words a user reads rather than the stored JSON, and cuts
//! a snippet around the first word found.

use switchboard_protocol::signal::{ScanEvent, SignalBody, SignalKind};

pub use crate::api::{Found, SearchHit};
use crate::api::{SignalInfo, TaskInfo};

/// The most words a query keeps.
pub const MAX_WORDS: usize = 8;
/// The most hits one search answers.
pub const MAX_HITS: usize = 100;
/// Characters of context shown before and after the first word found.
const BEFORE: usize = 40;
const AFTER: usize = 110;

/// What the user typed: its words, lowercased. Every word must be found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Query {
    words: Vec<String>,
}

impl Query {
    /// None for a query with no words.
    pub fn parse(text: &str) -> Option<Query> {
        let words: Vec<String> = text.split_whitespace().take(MAX_WORDS).map(str::to_lowercase).collect();
        (!words.is_empty()).then_some(Query { words })
    }

    /// Each word as a `LIKE` pattern (escaped with `\`) the store narrows with.
    pub fn like_patterns(&self) -> Vec<String> {
        self.words
            .iter()
            .map(|word| {
                let escaped = word.replace('\\', "\\\\").replace('%', "\\%").replace('_', "\\_");
                format!("%{escaped}%")
            })
            .collect()
    }

    /// A snippet of `text` around the first word, when every word is in it.
    pub fn find(&self, text: &str) -> Option<String> {
        let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
        let lower = text.to_lowercase();
        if !self.words.iter().all(|word| lower.contains(word.as_str())) {
            return None;
        }
        // Lowercasing keeps byte offsets for most text; where it does not, the
        // snippet starts at the beginning.
        let at = if lower.len() == text.len() { lower.find(self.words[0].as_str()).unwrap_or(0) } else { 0 };
        Some(snippet(&text, at))
    }
}

fn snippet(text: &str, at: usize) -> String {
    let start = text[..at].char_indices().rev().nth(BEFORE - 1).map_or(0, |(i, _)| i);
    let end = text[at..].char_indices().nth(AFTER).map_or(text.len(), |(i, _)| at + i);
    let mut cut = String::new();
    if start > 0 {
        cut.push('…');
    }
    cut.push_str(&text[start..end]);
    if end < text.len() {
        cut.push('…');
    }
    cut
}

/// Every match among the candidates, newest first, at most `MAX_HITS`.
pub fn hits(query: &Query, tasks: &[TaskInfo], signals: &[SignalInfo]) -> Vec<SearchHit> {
    let mut hits = Vec::new();
    for task in tasks {
        let title = task.spec.title();
        // A task without a title of its own is named by its instruction's first line.
        let asked = match &task.spec.title {
            Some(title) => format!("{title}\n{}", task.spec.instruction),
            None => task.spec.instruction.clone(),
        };
        if let Some(snippet) = query.find(&asked) {
            let found = Found::Task { task_id: task.id.clone(), title: title.clone(), state: task.state() };
            hits.push(SearchHit { profile_id: task.spec.profile_id.clone(), at: task.created_at, snippet, found });
        }
        if let Some(snippet) = task.result().map(summary_text).and_then(|text| query.find(&text)) {
            let found = Found::Summary { task_id: task.id.clone(), title, state: task.state() };
            let at = task.ended_at().unwrap_or(task.created_at);
            hits.push(SearchHit { profile_id: task.spec.profile_id.clone(), at, snippet, found });
        }
    }
    for signal in signals {
        let (kind, text) = signal_text(&signal.scan);
        if let Some(snippet) = query.find(&text) {
            let found = Found::Signal {
                signal_id: signal.id.clone(),
                kind,
                pending: signal.state() == crate::api::SignalState::Pending,
            };
            hits.push(SearchHit { profile_id: signal.profile_id.clone(), at: signal.created_at, snippet, found });
        }
    }
    newest(hits)
}

/// Hits newest first, at most `MAX_HITS`.
pub fn newest(mut hits: Vec<SearchHit>) -> Vec<SearchHit> {
    hits.sort_by_key(|hit| std::cmp::Reverse(hit.at));
    hits.truncate(MAX_HITS);
    hits
}

fn summary_text(result: &crate::api::TaskResult) -> String {
    let summary = &result.summary;
    [
        summary.objective.as_str(),
        &summary.accomplishments.join("\n"),
        &summary.test_results,
        &summary.notes.join("\n"),
        &summary.deliverables.join("\n"),
    ]
    .join("\n")
}

/// The words of a signal a user would search: what the agent wrote in it.
fn signal_text(scan: &ScanEvent) -> (SignalKind, String) {
    match scan {
        ScanEvent::Malformed { kind, raw, .. } => (*kind, raw.clone()),
        ScanEvent::Signal { signal } => {
            let text = match &signal.body {
                SignalBody::Clarification { blocked_at, questions, current_state } => {
                    format!("{}\n{blocked_at}\n{current_state}", questions.join("\n"))
                }
                SignalBody::StopWork { details, stop_reason, blocked_work, resume_requirements, .. } => {
                    format!("{stop_reason}\n{details}\n{blocked_work}\n{resume_requirements}")
                }
                SignalBody::Delegate { new_task_description, coordination, .. } => {
                    format!("{new_task_description}\n{coordination}")
                }
                SignalBody::Completion { status, metrics_achieved, recommendations, deliverables } => {
                    format!("{status}\n{metrics_achieved}\n{}\n{}", recommendations.join("\n"), deliverables.join("\n"))
                }
            };
            (signal.body.kind(), text)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_word_must_be_found_whatever_its_case() {
        let query = Query::parse("  Auth   TOKEN ").unwrap();
        let cases = [
            ("Review the auth module: the token expires", true),
            ("auth only", false),
            ("AUTHTOKEN glued together", true),
            ("", false),
        ];
        for (text, found) in cases {
            assert_eq!(query.find(text).is_some(), found, "{text:?}");
        }
        assert_eq!(Query::parse("   "), None);
        assert_eq!(Query::parse(&"w ".repeat(20)).unwrap().words.len(), MAX_WORDS);
    }

    #[test]
    fn snippets_are_cut_around_the_first_word_on_character_boundaries() {
        let query = Query::parse("needle").unwrap();
        let text = format!("{} the needle {}", "é".repeat(100), "ü".repeat(300));
        let snippet = query.find(&text).unwrap();
        assert!(snippet.starts_with('…') && snippet.ends_with('…'), "{snippet}");
        assert!(snippet.contains("the needle"), "{snippet}");
        assert_eq!(snippet.chars().count(), BEFORE + AFTER + 2);
        assert_eq!(query.find("needle\n\n  in   a haystack").unwrap(), "needle in a haystack");
    }

    #[test]
    fn like_patterns_match_wildcards_literally() {
        let query = Query::parse("50% my_file a\\b").unwrap();
        assert_eq!(query.like_patterns(), vec!["%50\\%%", "%my\\_file%", "%a\\\\b%"]);
    }
}
