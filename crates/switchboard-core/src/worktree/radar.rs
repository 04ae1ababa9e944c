//! The conflict radar (pure): which worktrees change the same files, how
//! many of their changed regions overlap, and which to merge first.

use std::collections::BTreeMap;
use std::ops::Range;

/// The lines of the base a worktree's change touches in one file; none for
/// a file the base does not have (added: only another addition can meet it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileHunks {
    pub path: String,
    pub hunks: Option<Vec<Range<u32>>>,
}

/// Two worktrees that change the same file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Overlap<K> {
    pub first: K,
    pub second: K,
    pub path: String,
    /// Changed regions of `first` that meet one of `second`'s, and the other way.
    pub first_hunks: usize,
    pub second_hunks: usize,
}

impl<K: Clone> Overlap<K> {
    /// Which to merge first: the one with fewer regions in the other's way
    /// (then the other is rebased onto it); the first named on a tie.
    pub fn merge_first(&self) -> K {
        if self.second_hunks < self.first_hunks { self.second.clone() } else { self.first.clone() }
    }
}

/// Whether two line ranges meet; an empty range (a pure insertion) is a
/// point between lines, which meets a range that touches it.
fn meet(a: &Range<u32>, b: &Range<u32>) -> bool {
    let (a_end, b_end) = (a.end.max(a.start + 1), b.end.max(b.start + 1));
    a.start < b_end && b.start < a_end
}

/// One worktree as the radar compares it: its key, its repository (its
/// top folder: files of the same name in two repositories are not the same
/// file) and the regions it changes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Watched<K> {
    pub key: K,
    pub repository: String,
    pub files: Vec<FileHunks>,
}

/// Every pair of worktrees of the same repository that change a file in
/// common, in the order given.
pub fn overlaps<K: Clone + Ord>(worktrees: &[Watched<K>]) -> Vec<Overlap<K>> {
    let mut found = Vec::new();
    for (i, mine) in worktrees.iter().enumerate() {
        let (first, first_files) = (&mine.key, &mine.files);
        let by_path: BTreeMap<&str, &FileHunks> = first_files.iter().map(|f| (f.path.as_str(), f)).collect();
        for other in worktrees[i + 1..].iter().filter(|other| other.repository == mine.repository) {
            let (second, second_files) = (&other.key, &other.files);
            for theirs in second_files {
                let Some(ours) = by_path.get(theirs.path.as_str()) else { continue };
                let (first_hunks, second_hunks) = match (&ours.hunks, &theirs.hunks) {
                    (Some(a), Some(b)) => (
                        a.iter().filter(|x| b.iter().any(|y| meet(x, y))).count(),
                        b.iter().filter(|y| a.iter().any(|x| meet(x, y))).count(),
                    ),
                    // Both add the file: all of it meets.
                    (None, None) => (1, 1),
                    // One edits a file the other's base lacks: they meet as files.
                    (Some(a), None) => (a.len(), 1),
                    (None, Some(b)) => (1, b.len()),
                };
                found.push(Overlap {
                    first: first.clone(),
                    second: second.clone(),
                    path: theirs.path.clone(),
                    first_hunks,
                    second_hunks,
                });
            }
        }
    }
    found
}

/// Reads the base-side line ranges of `git diff -U0` output, per file (the
/// new name of a renamed one, the old name of a deleted one).
pub fn parse_hunks(diff: &str) -> Vec<FileHunks> {
    let mut files: Vec<FileHunks> = Vec::new();
    // The base side's name of the file being read; none for an added file.
    let mut minus: Option<String> = None;
    // Between a file's `diff --git` line and its first hunk: a removed line
    // whose text starts with "-- " reads like a header, and is not one.
    let mut in_header = false;
    for line in diff.lines() {
        if line.starts_with("diff --git ") {
            in_header = true;
        } else if !in_header {
            if let Some(rest) = line.strip_prefix("@@ -")
                && let Some(range) = rest.split(' ').next().and_then(base_range)
                && let Some(file) = files.last_mut()
                && let Some(hunks) = file.hunks.as_mut()
            {
                hunks.push(range);
            }
        } else if let Some(path) = line.strip_prefix("--- ") {
            let path = unquoted(path);
            minus = (path != "/dev/null").then(|| path.strip_prefix("a/").unwrap_or(&path).to_owned());
        } else if let Some(path) = line.strip_prefix("+++ ") {
            let path = unquoted(path);
            let path = path.as_str();
            let file = match (path, minus.take()) {
                ("/dev/null", Some(deleted)) => FileHunks { path: deleted, hunks: Some(Vec::new()) },
                ("/dev/null", None) => continue,
                (path, base) => FileHunks {
                    path: path.strip_prefix("b/").unwrap_or(path).to_owned(),
                    hunks: base.map(|_| Vec::new()),
                },
            };
            files.push(file);
        } else if let Some(rest) = line.strip_prefix("@@ -") {
            in_header = false;
            if let Some(range) = rest.split(' ').next().and_then(base_range)
                && let Some(file) = files.last_mut()
                && let Some(hunks) = file.hunks.as_mut()
            {
                hunks.push(range);
            }
        }
    }
    files
}

/// A name as a diff's header gives it: git's quoted form (between double
/// quotes, C escapes and octal bytes) read back to the name as
/// [`super::decode_name`] keeps it; any other as it is.
fn unquoted(name: &str) -> String {
    let Some(inner) = name.strip_prefix('"').and_then(|n| n.strip_suffix('"')) else {
        return name.to_owned();
    };
    let mut bytes = Vec::with_capacity(inner.len());
    let mut rest = inner.as_bytes();
    while let Some((&byte, after)) = rest.split_first() {
        rest = after;
        if byte != b'\\' {
            bytes.push(byte);
            continue;
        }
        let Some((&escape, after)) = rest.split_first() else { break };
        rest = after;
        match escape {
            b'n' => bytes.push(b'\n'),
            b't' => bytes.push(b'\t'),
            b'r' => bytes.push(b'\r'),
            b'a' => bytes.push(0x07),
            b'b' => bytes.push(0x08),
            b'f' => bytes.push(0x0c),
            b'v' => bytes.push(0x0b),
            b'0'..=b'3' if rest.len() >= 2 => {
                let digits = [escape, rest[0], rest[1]];
                rest = &rest[2..];
                let value = digits.iter().fold(0u32, |n, d| n * 8 + u32::from(d.wrapping_sub(b'0') & 7));
                bytes.push(value as u8);
            }
            other => bytes.push(other),
        }
    }
    super::decode_name(&bytes)
}

/// `start,count` (or `start`) of a hunk's base side as a line range.
fn base_range(spec: &str) -> Option<Range<u32>> {
    let (start, count) = match spec.split_once(',') {
        Some((start, count)) => (start.parse::<u32>().ok()?, count.parse::<u32>().ok()?),
        None => (spec.parse::<u32>().ok()?, 1),
    };
    // A pure insertion names the line after which it goes.
    Some(if count == 0 { start + 1..start + 1 } else { start..start + count })
}

#[cfg(test)]
// A file's changed regions are a list, even of one.
#[allow(clippy::single_range_in_vec_init)]
mod tests {
    use super::*;

    fn file(path: &str, hunks: &[Range<u32>]) -> FileHunks {
        FileHunks { path: path.into(), hunks: Some(hunks.to_vec()) }
    }

    #[test]
    fn the_radar_marks_shared_files_counts_meeting_regions_and_orders_the_merge() {
        let worktrees = in_one(vec![
            ("a", vec![file("src/lib.rs", &[1..3, 10..12, 40..41]), file("README.md", &[1..2])]),
            ("b", vec![file("src/lib.rs", &[11..13]), file("docs/guide.md", &[5..6])]),
            ("c", vec![file("docs/other.md", &[1..2])]),
            ("d", vec![FileHunks { path: "docs/guide.md".into(), hunks: Some(vec![20..20]) }]),
        ]);
        let found = overlaps(&worktrees);
        let seen: Vec<(&str, &str, &str, usize, usize)> =
            found.iter().map(|o| (o.first, o.second, o.path.as_str(), o.first_hunks, o.second_hunks)).collect();
        assert_eq!(seen, vec![("a", "b", "src/lib.rs", 1, 1), ("b", "d", "docs/guide.md", 0, 0)]);
        // Unrelated files are not marked: c shares nothing.
        assert!(found.iter().all(|o| o.first != "c" && o.second != "c"));
        let lopsided = Overlap { first: "x", second: "y", path: "f".into(), first_hunks: 3, second_hunks: 1 };
        assert_eq!(lopsided.merge_first(), "y", "the one with fewer regions in the way goes first");
        assert_eq!(found[0].merge_first(), "a", "a tie keeps the order given");
    }

    /// Worktrees of one repository.
    fn in_one<K>(worktrees: Vec<(K, Vec<FileHunks>)>) -> Vec<Watched<K>> {
        worktrees.into_iter().map(|(key, files)| Watched { key, repository: "/repo".into(), files }).collect()
    }

    #[test]
    fn only_worktrees_of_the_same_repository_are_paired() {
        let lib = || vec![file("src/lib.rs", &[1..3])];
        let of = |key: &'static str, repository: &str| Watched { key, repository: repository.into(), files: lib() };
        type Pairs = Vec<(&'static str, &'static str)>;
        let cases: [(Vec<Watched<&str>>, Pairs); 3] = [
            (vec![of("a", "/one"), of("b", "/two")], vec![]),
            (vec![of("a", "/one"), of("b", "/two"), of("c", "/one")], vec![("a", "c")]),
            (vec![of("a", "/one"), of("b", "/one"), of("c", "/two"), of("d", "/two")], vec![("a", "b"), ("c", "d")]),
        ];
        for (worktrees, pairs) in cases {
            let found: Vec<(&str, &str)> = overlaps(&worktrees).iter().map(|o| (o.first, o.second)).collect();
            assert_eq!(found, pairs, "{worktrees:?}");
        }
    }

    #[test]
    fn ranges_meet_when_they_share_a_line_or_an_insertion_touches_them() {
        let cases =
            [(1..3, 2..4, true), (1..3, 3..5, false), (5..5, 5..6, true), (5..5, 7..9, false), (4..4, 4..4, true)];
        for (a, b, expected) in cases {
            assert_eq!(meet(&a, &b), expected, "{a:?} {b:?}");
        }
    }

    #[test]
    fn git_diff_hunks_are_read_per_file_on_the_base_side() {
        let diff = "diff --git a/src/lib.rs b/src/lib.rs\nindex 1..2 100644\n--- a/src/lib.rs\n+++ b/src/lib.rs\n\
                    @@ -3,2 +3,4 @@ fn x\n-a\n--- not a header\n+c\n@@ -10 +12 @@\n-d\n+e\n@@ -20,0 +23,2 @@\n+f\n\
                    diff --git a/new.md b/new.md\nnew file mode 100644\n--- /dev/null\n+++ b/new.md\n@@ -0,0 +1 @@\n+hi\n\
                    diff --git a/gone.md b/gone.md\n--- a/gone.md\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n";
        assert_eq!(
            parse_hunks(diff),
            vec![
                file("src/lib.rs", &[3..5, 10..11, 21..21]),
                FileHunks { path: "new.md".into(), hunks: None },
                file("gone.md", &[1..2]),
            ]
        );
        // Names git quotes are read back whole.
        let diff = "diff --git \"a/odd\\nname\" \"b/odd\\nname\"\n--- \"a/odd\\nname\"\n+++ \"b/odd\\nname\"\n@@ -1 +1 @@\n-x\n+y\n\
                    diff --git \"a/caf\\303\\251\\377\" \"b/caf\\303\\251\\377\"\n--- \"a/caf\\303\\251\\377\"\n\
                    +++ \"b/caf\\303\\251\\377\"\n@@ -2 +2 @@\n-x\n+y\n";
        let names: Vec<String> = parse_hunks(diff).into_iter().map(|f| f.path).collect();
        assert_eq!(names, vec!["odd\nname".to_owned(), super::super::decode_name(b"caf\xc3\xa9\xff")]);
    }
}
