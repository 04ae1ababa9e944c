//! Search across tasks (their names and instructions), their summaries and
//! the signals agents raised. Pure: the store narrows the candidates with
//! `LIKE` (each word somewhere in the row), and [`hits`] decides what
//! matches, in the words a user reads rather than the stored JSON, and cuts
//! a snippet around the first word found.

use switchboard_protocol::signal::{ScanEvent, SignalBody, SignalKind};

use crate::error::EngineError;
pub use switchboard_api::{Found, SearchHit};
use switchboard_api::{SignalInfo, TaskInfo};

/// The most words a query keeps.
pub const MAX_WORDS: usize = 8;
/// The most hits one search answers.
pub const MAX_HITS: usize = 100;
/// The longest query taken, in bytes: far past any words a user types, and
/// well under SQLite's longest `LIKE` pattern (50,000 bytes), past which the
/// store would refuse the search as if it had failed.
pub const MAX_QUERY_BYTES: usize = 1024;
/// Characters of context shown before and after the first word found.
const BEFORE: usize = 40;
const AFTER: usize = 110;

/// What the user typed: its words, lowercased. Every word must be found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Query {
    words: Vec<String>,
}

impl Query {
    /// None for a query with no words; a query over [`MAX_QUERY_BYTES`] is
    /// refused in a sentence.
    pub fn parse(text: &str) -> Result<Option<Query>, EngineError> {
        if text.len() > MAX_QUERY_BYTES {
            return Err(EngineError::InvalidInput {
                field: "query",
                reason: format!("a search is at most {MAX_QUERY_BYTES} bytes; search for a few of its words"),
            });
        }
        let words: Vec<String> = text.split_whitespace().take(MAX_WORDS).map(folded).collect();
        Ok((!words.is_empty()).then_some(Query { words }))
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
        let lower = folded(&text);
        if !self.words.iter().all(|word| lower.contains(word.as_str())) {
            return None;
        }
        let at = lower.find(self.words[0].as_str())?;
        let (start, end) = origin(&text, at, at + self.words[0].len());
        Some(snippet(&text, start, end))
    }
}

/// `text` lowercased character by character: the same for the text and the
/// query's words, so a word is found wherever its characters are, and each
/// character of `text` becomes a run of the result of its own ([`origin`]
/// maps back). Lowercasing changes lengths (`İ` grows by a byte, the Kelvin
/// sign shrinks by two), so an offset in the result is not one in `text`.
fn folded(text: &str) -> String {
    text.chars().flat_map(char::to_lowercase).collect()
}

/// The byte range of `text` whose characters [`folded`] turned into the
/// bytes `from..to` of its result (`from < to`): from the start of the
/// character the first byte came from to the end of the one the last did.
fn origin(text: &str, from: usize, to: usize) -> (usize, usize) {
    let mut start = None;
    let mut folded_len = 0;
    for (at, c) in text.char_indices() {
        folded_len += c.to_lowercase().map(char::len_utf8).sum::<usize>();
        if start.is_none() && folded_len > from {
            start = Some(at);
        }
        if folded_len >= to {
            return (start.unwrap_or(at), at + c.len_utf8());
        }
    }
    (start.unwrap_or(text.len()), text.len())
}

/// `text` around the bytes `at..until` (on character boundaries): up to
/// [`BEFORE`] characters before, and after up to [`AFTER`] characters from
/// `at` or to `until`, whichever is further; `…` where it is cut.
fn snippet(text: &str, at: usize, until: usize) -> String {
    let start = text[..at].char_indices().rev().nth(BEFORE - 1).map_or(0, |(i, _)| i);
    let end = text[at..].char_indices().nth(AFTER).map_or(text.len(), |(i, _)| at + i).max(until);
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
                pending: signal.state() == switchboard_api::SignalState::Pending,
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

fn summary_text(result: &switchboard_api::TaskResult) -> String {
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
                SignalBody::Clarification { blocked_at, questions, current_state, .. } => {
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
        let query = Query::parse("  Auth   TOKEN ").unwrap().unwrap();
        let cases = [
            ("Review the auth module: the token expires", true),
            ("auth only", false),
            ("AUTHTOKEN glued together", true),
            ("", false),
        ];
        for (text, found) in cases {
            assert_eq!(query.find(text).is_some(), found, "{text:?}");
        }
        assert_eq!(Query::parse("   ").unwrap(), None);
        assert_eq!(Query::parse(&"w ".repeat(20)).unwrap().unwrap().words.len(), MAX_WORDS);
    }

    #[test]
    fn snippets_are_cut_around_the_first_word_on_character_boundaries() {
        let query = Query::parse("needle").unwrap().unwrap();
        let text = format!("{} the needle {}", "é".repeat(100), "ü".repeat(300));
        let snippet = query.find(&text).unwrap();
        assert!(snippet.starts_with('…') && snippet.ends_with('…'), "{snippet}");
        assert!(snippet.contains("the needle"), "{snippet}");
        assert_eq!(snippet.chars().count(), BEFORE + AFTER + 2);
        assert_eq!(query.find("needle\n\n  in   a haystack").unwrap(), "needle in a haystack");
    }

    /// The text: lowercasing `İ` grows it by a byte and the Kelvin
    /// sign shrinks by two, so the lowercased text is as long as the original
    /// and its offsets still differ.
    #[test]
    fn a_search_through_text_whose_lowercase_moves_its_offsets_never_panics() {
        let hostile =
            format!("{} error test build fix the {}{}", "İ".repeat(60), "€".repeat(200), "\u{212A}".repeat(30));
        let snippet = Query::parse("error").unwrap().unwrap().find(&hostile).unwrap();
        assert!(snippet.contains(" error test build fix the "), "{snippet}");
        assert!(snippet.starts_with('…') && snippet.ends_with('…'), "{snippet}");
        // A word found inside what one character lowercases to.
        let dotted = Query::parse("i\u{307}").unwrap().unwrap().find(&format!("{}x", "İ".repeat(3))).unwrap();
        assert_eq!(dotted, "İİİx");
        assert_eq!(
            Query::parse("kelvin").unwrap().unwrap().find("\u{212A}ELVIN scale").unwrap(),
            "\u{212A}ELVIN scale"
        );
    }

    #[test]
    fn an_over_long_query_is_refused_in_a_sentence() {
        let long = "x".repeat(MAX_QUERY_BYTES + 1);
        let Err(EngineError::InvalidInput { field: "query", reason }) = Query::parse(&long) else { panic!("taken") };
        assert!(reason.starts_with("a search is at most"), "{reason}");
        assert!(Query::parse(&"x".repeat(MAX_QUERY_BYTES)).unwrap().is_some());
    }

    proptest::proptest! {
        #[test]
        fn any_text_and_words_never_panic_and_a_snippet_holds_the_first_word(
            text in "\\PC{0,300}",
            words in proptest::collection::vec("\\PC{1,6}", 1..3),
            glue in 0usize..300,
        ) {
            let query_text = words.join(" ");
            let Some(query) = Query::parse(&query_text).unwrap() else { return Ok(()) };
            // The query's first word planted somewhere in the text, so it is found.
            let first = query_text.split_whitespace().next().unwrap();
            let at = text.char_indices().map(|(i, _)| i).chain([text.len()]).nth(glue % (text.chars().count() + 1)).unwrap();
            let planted = format!("{}{first}{}", &text[..at], &text[at..]);
            for text in [text.as_str(), planted.as_str()] {
                if let Some(snippet) = query.find(text) {
                    let folded = folded(&snippet);
                    proptest::prop_assert!(folded.contains(&query.words[0]), "{snippet:?} lacks {:?}", query.words[0]);
                }
            }
        }
    }

    #[test]
    fn like_patterns_match_wildcards_literally() {
        let query = Query::parse("50% my_file a\\b").unwrap().unwrap();
        assert_eq!(query.like_patterns(), vec!["%50\\%%", "%my\\_file%", "%a\\\\b%"]);
    }
}
