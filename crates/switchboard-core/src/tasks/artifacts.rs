//! A finished task's result: the summary, the deliverables it lists (only
//! those that exist inside the workspace), the optional RESULTS.json and
//! ERRORS.md, and the fallback summary built when the agent wrote none.
//!
//! Every path named by an agent is untrusted: `..` and absolute paths
//! outside the workspace are refused before anything is touched, and a
//! symlink is followed only to decide that it stays inside.

use std::path::{Component, Path, PathBuf};
use std::time::SystemTime;

use switchboard_protocol::TaskId;
use switchboard_protocol::capped::{MAX_TEXT_FIELD_BYTES, capped};
use switchboard_protocol::summary::{
    CONTEXT_FILE, ERRORS_FILE, INSTRUCTIONS_FILE, RESULTS_FILE, SPECS_FILE, STATUS_FILE, SUMMARIES_DIR, parse_summary,
    summary_path,
};

pub use crate::workspace::PathRefusal;
use crate::workspace::{Capped, Workspace, refusal_of};
use switchboard_api::{Artifact, RejectedPath, TaskResult};

/// At most this many artifacts: the summary and four deliverables.
pub const MAX_ARTIFACTS: usize = 5;
/// Bytes of one artifact kept; the rest is cut (and marked).
pub const ARTIFACT_CAP_BYTES: usize = 256 * 1024;
/// Bytes of STATUS.txt, RESULTS.json or ERRORS.md kept.
pub const SIDE_FILE_CAP_BYTES: usize = 64 * 1024;
/// Lines of the terminal quoted in a fallback summary.
pub const FALLBACK_SCREEN_LINES: usize = 100;
/// Most directory entries looked at when listing the files a task changed.
pub const CHANGED_FILES_SCAN_LIMIT: usize = 20_000;

/// How much of the end of a summary longer than its cap is read as well:
/// the Status section comes last.
pub const SUMMARY_TAIL_BYTES: usize = 64 * 1024;

/// The workspace for reading what an agent named in it.
fn open_workspace(workspace: &Path) -> std::io::Result<Workspace> {
    Workspace::open(workspace)
}

/// The summary of `task` in `workspace`, read with `cap`: it must be a
/// regular file inside the workspace (links inside it followed). A longer
/// file is read as its first `cap` bytes and its last [`SUMMARY_TAIL_BYTES`]
/// (from a line start), with a line saying how much was left out between,
/// so its Status still counts.
pub fn read_summary(workspace: &Path, task: &TaskId, cap: usize) -> std::io::Result<String> {
    open_workspace(workspace)?.read_head_and_tail(&format!("{SUMMARIES_DIR}/{task}.md"), cap, SUMMARY_TAIL_BYTES)
}

/// Why a listed path is not sent as a deliverable, after the protocol's
/// "don't send" list: the task's context files, other tasks' summaries (this
/// task's is always the first artifact), the agents' own configuration, and
/// build outputs. `None` when it may be sent.
pub fn not_a_deliverable(listed: &str) -> Option<&'static str> {
    let path = listed.trim_start_matches("./");
    let mut parts = Path::new(path).components().filter_map(|c| match c {
        Component::Normal(part) => part.to_str(),
        _ => None,
    });
    let first = parts.next()?;
    let only = parts.next().is_none();
    match first {
        CONTEXT_FILE | SPECS_FILE | INSTRUCTIONS_FILE if only => Some("a context file the task came with"),
        SUMMARIES_DIR => Some("a task summary (the task's own is always sent first)"),
        ".claude" | ".codex" => Some("the agent's own configuration"),
        "CLAUDE.md" | "AGENTS.md" if only => Some("the agent's own instructions file"),
        "node_modules" | "dist" | "target" => Some("a build output"),
        _ => None,
    }
}

/// The file a deliverable names, if it may be returned: relative (or
/// absolute inside the workspace), no `..`, existing, a regular file, and
/// inside the workspace after symlinks are resolved.
pub fn resolve_deliverable(workspace: &Path, listed: &str) -> Result<PathBuf, PathRefusal> {
    open_workspace(workspace).map_err(|_| PathRefusal::Missing)?.real_path(listed)
}

/// The result of a task whose summary `summary_text` was written by the
/// agent (or built as a fallback): the summary plus up to four accepted
/// deliverables, and the deliverables refused with why.
pub fn collect_result(workspace: &Path, task: &TaskId, summary_text: String, fallback: bool) -> TaskResult {
    let summary = parse_summary(&summary_text);
    let files = open_workspace(workspace);
    let summary_len = summary_text.len() as u64;
    let mut summary_text = summary_text;
    let truncated = summary_text.len() > ARTIFACT_CAP_BYTES;
    if truncated {
        let mut cut = ARTIFACT_CAP_BYTES;
        while !summary_text.is_char_boundary(cut) {
            cut -= 1;
        }
        summary_text.truncate(cut);
    }
    let mut artifacts =
        vec![Artifact { path: summary_path(task), content: summary_text, size: summary_len, truncated }];
    let mut rejected = Vec::new();
    for listed in &summary.deliverables {
        if artifacts.iter().any(|a| &a.path == listed) {
            continue;
        }
        if let Some(reason) = not_a_deliverable(listed) {
            rejected.push(RejectedPath { path: listed.clone(), reason: reason.into() });
            continue;
        }
        if artifacts.len() >= MAX_ARTIFACTS {
            rejected.push(RejectedPath { path: listed.clone(), reason: "more than four deliverables listed".into() });
            continue;
        }
        let read = match &files {
            Ok(files) => files.read(listed, ARTIFACT_CAP_BYTES).map_err(|error| match refusal_of(&error) {
                Some(refusal) => refusal.to_string(),
                None => format!("unreadable: {error}"),
            }),
            Err(error) => Err(format!("the workspace cannot be read: {error}")),
        };
        match read {
            Ok(Capped { text: content, size, truncated }) => {
                artifacts.push(Artifact { path: listed.clone(), content, size, truncated });
            }
            Err(reason) => rejected.push(RejectedPath { path: listed.clone(), reason }),
        }
    }
    TaskResult {
        summary,
        fallback,
        artifacts,
        rejected,
        results_json: read_side_file(workspace, RESULTS_FILE),
        errors: read_side_file(workspace, ERRORS_FILE),
    }
}

/// STATUS.txt, RESULTS.json or ERRORS.md from the workspace root, if the
/// agent wrote it (a symlink out of the workspace is not followed).
pub fn read_side_file(workspace: &Path, name: &str) -> Option<String> {
    read_workspace_file(workspace, name, SIDE_FILE_CAP_BYTES)
}

/// A file of the workspace read with a cap, if it is there and may be read
/// (a regular file inside the workspace).
pub fn read_workspace_file(workspace: &Path, name: &str, cap: usize) -> Option<String> {
    open_workspace(workspace).ok()?.read(name, cap).ok().map(|read| read.text)
}

/// The latest progress line(s) of STATUS.txt, for showing while a task runs.
pub fn read_progress(workspace: &Path) -> Option<String> {
    let workspace = workspace.canonicalize().ok()?;
    let text = read_side_file(&workspace, STATUS_FILE)?;
    let text = text.trim();
    let last_lines = || text.lines().rev().take(5).collect::<Vec<_>>().into_iter().rev().collect::<Vec<_>>().join("\n");
    (!text.is_empty()).then(|| capped(last_lines(), MAX_TEXT_FIELD_BYTES))
}

/// Files in the workspace created or changed since `since`, newest first:
/// not the context and protocol files, not summaries, not what `.gitignore`
/// or hidden directories hold. Bounded by [`CHANGED_FILES_SCAN_LIMIT`].
pub fn changed_files(workspace: &Path, since: SystemTime) -> Vec<String> {
    const SKIP: [&str; 6] = [CONTEXT_FILE, SPECS_FILE, INSTRUCTIONS_FILE, STATUS_FILE, RESULTS_FILE, ERRORS_FILE];
    let mut found: Vec<(SystemTime, String)> = Vec::new();
    let walk = ignore::WalkBuilder::new(workspace).max_depth(Some(12)).require_git(false).build();
    for entry in walk.take(CHANGED_FILES_SCAN_LIMIT).flatten() {
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        let Ok(relative) = entry.path().strip_prefix(workspace) else { continue };
        let relative = relative.to_string_lossy().into_owned();
        if relative.starts_with(&format!("{SUMMARIES_DIR}/")) || SKIP.contains(&relative.as_str()) {
            continue;
        }
        let Ok(modified) = entry.metadata().and_then(|m| m.modified().map_err(Into::into)) else { continue };
        if modified >= since {
            found.push((modified, relative));
        }
    }
    found.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    found.into_iter().map(|(_, path)| path).collect()
}

/// The summary the app writes for a task that ended without one: the
/// protocol's sections, the files it changed, the end of the screen, and
/// PARTIAL status.
pub fn fallback_summary(task: &TaskId, instruction: &str, why: &str, changed: &[String], screen: &[String]) -> String {
    let mut text = format!(
        "# Task Completion Summary\n\n## Objective\n{}\n\n## Accomplishments\n- {why}; the agent wrote no summary. See the terminal output below.\n\n## Key Deliverables\n",
        instruction.lines().next().unwrap_or_default().trim()
    );
    if changed.is_empty() {
        text.push_str("- (no files changed)\n");
    }
    for path in changed.iter().take(MAX_ARTIFACTS - 1) {
        // A file name with a backtick cannot be quoted as a deliverable.
        if !path.contains('`') {
            text.push_str(&format!("- `{path}` - changed during the task\n"));
        }
    }
    let skip = screen.len().saturating_sub(FALLBACK_SCREEN_LINES);
    let fence = if screen.iter().any(|l| l.contains("```")) { "~~~~" } else { "```" };
    text.push_str(&format!(
        "\n## Test Results\n⏭️ Unknown (summary not created by the agent)\n\n## Important Notes\n- Task {task}: built by Switchboard from the terminal and the workspace.\n\n## Terminal Output\n{fence}\n"
    ));
    for line in &screen[skip..] {
        text.push_str(line);
        text.push('\n');
    }
    text.push_str(&format!("{fence}\n\n## Status\n⚠️ PARTIAL - Summary not created by the agent\n"));
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use switchboard_protocol::summary::SummaryStatus;

    fn workspace() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::write(root.join("src/lib.rs"), "pub fn x() {}\n").unwrap();
        (dir, root)
    }

    #[test]
    fn deliverable_paths() {
        let (_dir, root) = workspace();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret"), "s").unwrap();
        std::os::unix::fs::symlink(outside.path().join("secret"), root.join("escape")).unwrap();
        std::os::unix::fs::symlink(root.join("src/lib.rs"), root.join("inside-link")).unwrap();
        let absolute_inside = root.join("src/lib.rs").display().to_string();
        let cases: [(&str, Result<&str, PathRefusal>); 10] = [
            ("src/lib.rs", Ok("src/lib.rs")),
            ("./src/lib.rs", Ok("src/lib.rs")),
            (&absolute_inside, Ok("src/lib.rs")),
            ("inside-link", Ok("src/lib.rs")),
            ("../etc/passwd", Err(PathRefusal::ParentDir)),
            ("src/../src/lib.rs", Err(PathRefusal::ParentDir)),
            ("/etc/passwd", Err(PathRefusal::OutsideWorkspace)),
            ("escape", Err(PathRefusal::LeadsOutside)),
            ("src", Err(PathRefusal::NotAFile)),
            ("  ", Err(PathRefusal::Empty)),
        ];
        for (listed, expected) in cases {
            let got = resolve_deliverable(&root, listed);
            match (got, expected) {
                (Ok(path), Ok(want)) => assert_eq!(path, root.join(want), "{listed}"),
                (got, want) => assert_eq!(got.map(|_| ()), want.map(|_| ()), "{listed}"),
            }
        }
        assert_eq!(resolve_deliverable(&root, "missing.txt").unwrap_err().to_string(), "does not exist");
    }

    #[test]
    fn result_has_the_summary_and_at_most_four_deliverables() {
        let (_dir, root) = workspace();
        for name in ["a", "b", "c", "d", "e"] {
            std::fs::write(root.join(name), name).unwrap();
        }
        let task = TaskId::new();
        let summary =
            "## Key Deliverables\n- `a`\n- `../x`\n- `b`\n- `a`\n- `c`\n- `d`\n- `e`\n## Status\n✅ COMPLETED\n";
        let result = collect_result(&root, &task, summary.into(), false);
        let paths: Vec<_> = result.artifacts.iter().map(|a| a.path.as_str()).collect();
        assert_eq!(paths, [summary_path(&task).as_str(), "a", "b", "c", "d"]);
        assert_eq!(result.artifacts[1].content, "a");
        let rejected: Vec<_> = result.rejected.iter().map(|r| r.path.as_str()).collect();
        assert_eq!(rejected, ["../x", "e"]);
        assert_eq!(result.summary.status, Some(SummaryStatus::Completed));
        assert!(result.results_json.is_none() && result.errors.is_none());
    }

    #[test]
    fn big_artifacts_are_cut_and_marked() {
        let (_dir, root) = workspace();
        std::fs::write(root.join("big.log"), vec![b'x'; ARTIFACT_CAP_BYTES + 10]).unwrap();
        let result = collect_result(&root, &TaskId::new(), "## Key Deliverables\n- `big.log`\n".into(), false);
        let big = &result.artifacts[1];
        assert!(big.truncated);
        assert_eq!(big.content.len(), ARTIFACT_CAP_BYTES);
        assert_eq!(big.size, ARTIFACT_CAP_BYTES as u64 + 10);
    }

    #[test]
    fn side_files_are_read_when_present() {
        let (_dir, root) = workspace();
        std::fs::write(root.join(RESULTS_FILE), "{\"ok\": true}").unwrap();
        std::fs::write(root.join(ERRORS_FILE), "# Errors\nboom").unwrap();
        std::fs::write(root.join(STATUS_FILE), "step 1\nstep 2\n\n").unwrap();
        let result = collect_result(&root, &TaskId::new(), String::new(), false);
        assert_eq!(result.results_json.as_deref(), Some("{\"ok\": true}"));
        assert_eq!(result.errors.as_deref(), Some("# Errors\nboom"));
        assert_eq!(read_progress(&root).as_deref(), Some("step 1\nstep 2"));
    }

    #[test]
    fn fallback_lists_changed_files_and_the_screen() {
        let (_dir, root) = workspace();
        let since = SystemTime::now() - std::time::Duration::from_secs(1);
        std::fs::create_dir_all(root.join("summaries")).unwrap();
        std::fs::write(root.join("summaries/other.md"), "x").unwrap();
        std::fs::write(root.join(CONTEXT_FILE), "x").unwrap();
        std::fs::write(root.join("new.txt"), "x").unwrap();
        std::fs::write(root.join(".gitignore"), "target/\n").unwrap();
        std::fs::create_dir_all(root.join("target")).unwrap();
        std::fs::write(root.join("target/out.o"), "x").unwrap();
        let old = root.join("src/lib.rs");
        std::fs::File::options()
            .write(true)
            .open(&old)
            .unwrap()
            .set_modified(since - std::time::Duration::from_secs(60))
            .unwrap();

        let changed = changed_files(&root, since);
        assert_eq!(changed, ["new.txt"]);

        let task = TaskId::new();
        let screen: Vec<String> = (0..150).map(|i| format!("line {i}")).collect();
        let text = fallback_summary(&task, "Do it\nmore", "The time limit passed", &changed, &screen);
        let result = collect_result(&root, &task, text.clone(), true);
        assert_eq!(result.summary.status, Some(SummaryStatus::Partial));
        assert_eq!(result.summary.objective, "Do it");
        assert_eq!(result.summary.deliverables, ["new.txt"]);
        assert!(text.contains("line 50\n") && text.contains("line 149\n") && !text.contains("line 49\n"));
        assert_eq!(result.artifacts.len(), 2);
    }

    #[test]
    fn a_fifo_where_a_file_should_be_is_refused_at_once() {
        let (_dir, root) = workspace();
        let fifo = root.join("summary.md");
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).unwrap();
        // Before: the open blocked until a writer came, for good.
        let (sent, read) = std::sync::mpsc::channel();
        let ws = root.clone();
        std::thread::spawn(move || {
            sent.send(Workspace::open(&ws).and_then(|files| files.read("summary.md", 1024)).map(|read| read.text)).ok()
        });
        let answer = read.recv_timeout(std::time::Duration::from_secs(5)).expect("the read returns without a writer");
        assert_eq!(answer.unwrap_err().to_string(), "not a regular file");
    }

    #[test]
    fn a_summary_must_be_a_regular_file_inside_the_workspace() {
        let (_dir, root) = workspace();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret.md"), "## Status\nCOMPLETED\nsecret").unwrap();
        std::fs::create_dir_all(root.join(SUMMARIES_DIR)).unwrap();
        let (inside, escaping, fifo) = (TaskId::new(), TaskId::new(), TaskId::new());
        let file = |task: &TaskId| root.join(SUMMARIES_DIR).join(format!("{task}.md"));
        std::fs::write(file(&inside), "## Status\nCOMPLETED").unwrap();
        std::os::unix::fs::symlink(outside.path().join("secret.md"), file(&escaping)).unwrap();
        nix::unistd::mkfifo(&file(&fifo), nix::sys::stat::Mode::S_IRWXU).unwrap();
        assert_eq!(read_summary(&root, &inside, 1024).unwrap(), "## Status\nCOMPLETED");
        let refused = read_summary(&root, &escaping, 1024).unwrap_err();
        assert_eq!(refused.to_string(), "a symlink that leads outside the workspace");
        assert_eq!(read_summary(&root, &fifo, 1024).unwrap_err().to_string(), "not a regular file");
    }

    #[test]
    fn a_summary_longer_than_its_cap_keeps_its_status_and_says_what_was_left_out() {
        let (_dir, root) = workspace();
        std::fs::create_dir_all(root.join(SUMMARIES_DIR)).unwrap();
        let task = TaskId::new();
        let filler = "x".repeat(99) + "\n";
        let text =
            format!("## Objective\nship it\n## Important Notes\n{}## Status\n✅ COMPLETED\n", filler.repeat(30_000));
        std::fs::write(root.join(SUMMARIES_DIR).join(format!("{task}.md")), &text).unwrap();
        // Before: only the first megabyte was read, and the Status with it lost.
        let read = read_summary(&root, &task, 1024 * 1024).unwrap();
        let summary = parse_summary(&read);
        assert_eq!(summary.status, Some(switchboard_protocol::summary::SummaryStatus::Completed));
        assert_eq!(summary.objective, "ship it");
        assert!(read.len() < 1024 * 1024 + SUMMARY_TAIL_BYTES + 100, "bounded: {}", read.len());
        let shown = read.len() - read.lines().find(|l| l.starts_with("[… ")).unwrap().len() - 4;
        let left_out: usize = read.split("[… ").nth(1).unwrap().split(' ').next().unwrap().parse().unwrap();
        assert_eq!(left_out + shown, text.len(), "the note counts exactly what was not read");
        assert!(read.contains("\n\nxxx"), "the end starts at a line start");
    }

    #[test]
    fn what_is_never_sent_as_a_deliverable() {
        let cases = [
            ("src/auth.rs", None),
            ("docs/CONTEXT.md", None),
            ("package.json", None),
            ("CONTEXT.md", Some("a context file the task came with")),
            ("./SPECS.md", Some("a context file the task came with")),
            ("INSTRUCTIONS.md", Some("a context file the task came with")),
            (
                "summaries/5f0c0a4e-0000-4000-8000-000000000000.md",
                Some("a task summary (the task's own is always sent first)"),
            ),
            (".claude/settings.local.json", Some("the agent's own configuration")),
            (".codex/hooks.json", Some("the agent's own configuration")),
            ("CLAUDE.md", Some("the agent's own instructions file")),
            ("AGENTS.md", Some("the agent's own instructions file")),
            ("node_modules/x/index.js", Some("a build output")),
            ("dist/app.js", Some("a build output")),
            ("target/debug/app", Some("a build output")),
        ];
        for (listed, expected) in cases {
            assert_eq!(not_a_deliverable(listed), expected, "{listed}");
        }
    }

    #[test]
    fn a_listed_context_file_or_other_summary_is_refused_with_the_reason_and_takes_no_place() {
        let (_dir, root) = workspace();
        for name in ["CONTEXT.md", "a", "b", "c", "d"] {
            std::fs::write(root.join(name), name).unwrap();
        }
        let task = TaskId::new();
        let summary = "## Key Deliverables\n- `CONTEXT.md`\n- `a`\n- `b`\n- `c`\n- `d`\n## Status\n✅ COMPLETED\n";
        let result = collect_result(&root, &task, summary.into(), false);
        let paths: Vec<_> = result.artifacts.iter().map(|a| a.path.as_str()).collect();
        assert_eq!(paths, [summary_path(&task).as_str(), "a", "b", "c", "d"]);
        assert_eq!(result.rejected.len(), 1);
        assert_eq!(result.rejected[0].reason, "a context file the task came with");
    }
}
