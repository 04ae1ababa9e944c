//! ARCHITECTURE.md stays a true map.
//!
//! - Every repository path it names (`crates/…`, `src-tauri/…`, `ui/…`,
//!   `tests/…`, `scripts/…`, `bench/…`, in backticks, in prose or in the
//!   code map) exists.
//! - Every entry of the code map exists, and none is named twice: the map
//!   says once where a thing lives.
//!
//! The code map is the first fenced block under `## Code map`. A line
//! indented less than [`DESCRIPTION_COLUMN`] names one path, relative to the
//! folder above it (the nearest less-indented entry ending in `/`), then its
//! description after two spaces; a line indented further goes on describing
//! the entry above.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use regex::Regex;

/// Where the code map's descriptions begin: a line indented this far or more
/// continues a description rather than naming a path.
const DESCRIPTION_COLUMN: usize = 20;

/// The top-level folders whose paths the map may name and this test checks.
const CHECKED_ROOTS: &str = "crates|src-tauri|ui|tests|scripts|bench";

fn repository_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("the tests crate sits in the repository").to_path_buf()
}

/// Every path under [`CHECKED_ROOTS`] the text names, with its line number,
/// but for the first word of a code map entry's line (`entry_lines`), which
/// names a path relative to its folder. A path ends where a character no path of ours holds begins (a glob's `*`
/// leaves the folder before it to check); a sentence's full stop is not part
/// of it.
fn named_paths(text: &str, entry_lines: &BTreeSet<usize>) -> Vec<(usize, String)> {
    let pattern = format!(r"(?:^|[^A-Za-z0-9_./<>~-])((?:{CHECKED_ROOTS})/[A-Za-z0-9_./@-]*)");
    let path = Regex::new(&pattern).expect("the path pattern is a valid regex");
    let mut found = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let line = match entry_lines.contains(&(number + 1)) {
            true => line.trim_start().split_once(char::is_whitespace).map_or("", |(_, rest)| rest),
            false => line,
        };
        for caught in path.captures_iter(line) {
            let named = caught[1].trim_end_matches(['.', ',']).to_string();
            found.push((number + 1, named));
        }
    }
    found
}

/// The code map's entries, each the whole path it names, with its line number.
fn code_map_entries(text: &str) -> Vec<(usize, String)> {
    let mut lines = text.lines().enumerate().skip_while(|(_, line)| line.trim() != "## Code map");
    lines.by_ref().find(|(_, line)| line.starts_with("```"));
    let mut folders: Vec<(usize, String)> = Vec::new();
    let mut entries = Vec::new();
    for (number, line) in lines {
        if line.starts_with("```") {
            break;
        }
        let indent = line.len() - line.trim_start().len();
        if line.trim().is_empty() || indent >= DESCRIPTION_COLUMN {
            continue;
        }
        let name = line.split_whitespace().next().expect("a non-empty line has a first word");
        folders.retain(|(depth, _)| *depth < indent);
        let whole = match folders.last() {
            Some((_, folder)) => format!("{folder}{name}"),
            None => name.to_string(),
        };
        if whole.ends_with('/') {
            folders.push((indent, whole.clone()));
        }
        entries.push((number + 1, whole));
    }
    entries
}

/// What is wrong with the map, each problem a line.
fn problems(text: &str, root: &Path) -> Vec<String> {
    let entries = code_map_entries(text);
    let entry_lines = entries.iter().map(|(line, _)| *line).collect();
    let mut found = Vec::new();
    for (line, path) in named_paths(text, &entry_lines) {
        if !root.join(&path).exists() {
            found.push(format!("line {line}: `{path}` does not exist"));
        }
    }
    let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
    for (line, path) in &entries {
        if !root.join(path).exists() {
            found.push(format!("line {line}: the code map's `{path}` does not exist"));
        }
        if let Some(first) = seen.insert(path.as_str(), *line) {
            found.push(format!("line {line}: the code map names `{path}` again (first on line {first})"));
        }
    }
    found
}

#[test]
fn architecture_names_only_paths_that_exist_each_once_in_the_code_map() {
    let root = repository_root();
    let text = std::fs::read_to_string(root.join("ARCHITECTURE.md")).expect("ARCHITECTURE.md is readable");
    assert!(code_map_entries(&text).len() > 20, "the code map is the first fenced block under `## Code map`");
    let found = problems(&text, &root);
    assert!(found.is_empty(), "ARCHITECTURE.md is not true to the tree:\n{}", found.join("\n"));
}

#[test]
fn a_missing_path_and_a_path_named_twice_are_both_caught() {
    let root = repository_root();
    let text = [
        "Prose names `crates/switchboard-core/src/nowhere.rs` and tests/tests/suite/map.rs.",
        "",
        "## Code map",
        "",
        "```",
        "crates/",
        "  switchboard-core/  the engine",
        "    src/lib.rs       its root",
        "    src/gone.rs      not there",
        "    src/lib.rs       again",
        "tests/tests/suite/map.rs   this test;",
        "                     see ui/nowhere.ts",
        "```",
    ]
    .join("\n");
    let found = problems(&text, &root);
    assert_eq!(
        found,
        [
            "line 1: `crates/switchboard-core/src/nowhere.rs` does not exist",
            "line 12: `ui/nowhere.ts` does not exist",
            "line 9: the code map's `crates/switchboard-core/src/gone.rs` does not exist",
            "line 10: the code map names `crates/switchboard-core/src/lib.rs` again (first on line 8)",
        ]
    );
}
