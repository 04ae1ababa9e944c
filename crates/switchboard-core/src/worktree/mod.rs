//! Git worktrees for agents that work apart (issue 25's first step): a
//! task's worktree is made on a branch of its own from the repository's
//! current branch, and what it changed against that base is read back, file
//! by file. Git itself does the work, through its command line (`git` on
//! PATH), which handles worktrees as the user's own git does; every output is
//! read in its `-z` form, so no file name is misread.
//!
//! The engine keeps a record of each worktree it made ([`WorktreeRecord`]);
//! git is asked for the rest (what changed, whether merged) when it is
//! needed, away from the engine's own task.

mod changes;
mod checkout;
mod contents;
mod git;
mod merging;
mod names;
pub mod radar;
mod setup;
mod state;

pub use changes::{
    AgainstBase, against_base, changes, changes_with, fork_point, hunks, hunks_with, save_patch, untracked,
};
pub use checkout::{Broken, Checkout, GitLink};
pub use contents::diff_files;
pub use git::GitPlace;
use git::{git, git_status, text};
pub use merging::{Operation, Rebased, Underway, base_busy, is_merged, merge, rebase, underway};
pub use names::{decode_name, shown_name};
pub use setup::{SETUP_OUTPUT_CAP, SetupRun, run_setup};
pub use state::{LastTask, StateFacts, WorktreeState, state_of};

use std::path::{Path, PathBuf};

/// What the app keeps in a worktree for itself: never shown as a change,
/// never committed. A folder's ends with `/`; the others are files at the
/// worktree's top (the task's context files, the agent's protocol side
/// files, the hooks the app adds to Claude Code's local settings).
pub const APP_PATHS: &[&str] = &[
    "summaries/",
    ".switchboard/",
    ".claude/settings.local.json",
    "CONTEXT.md",
    "SPECS.md",
    "INSTRUCTIONS.md",
    "STATUS.txt",
    "RESULTS.json",
    "ERRORS.md",
];

/// The longest slug of a task's name in a branch name.
const MAX_SLUG: usize = 40;

/// A git command that failed, in words.
#[derive(Debug, thiserror::Error)]
pub enum GitError {
    #[error("git could not be run: {0}")]
    NotRun(#[source] std::io::Error),
    #[error("git {what} failed: {why}")]
    Failed { what: String, why: String },
    #[error("{} is not inside a git repository", .0.display())]
    NotARepository(PathBuf),
    /// The worktree cannot be trusted or asked about any more: no git runs there.
    #[error("{0}")]
    Broken(Broken),
}

/// The names of the filter and merge drivers the configuration a worktree
/// reads defines (every scope: the system's, the user's, the repository's).
fn configured_drivers(at: &(impl GitPlace + ?Sized)) -> Result<Vec<String>, GitError> {
    let (found, out) = git_status(at, &["config", "--null", "--name-only", "--get-regexp", r"^(filter|merge)\."])?;
    if !found {
        // Exit 1: none defined.
        return Ok(Vec::new());
    }
    Ok(out.split(|b| *b == 0).filter(|n| !n.is_empty()).map(|n| String::from_utf8_lossy(n).into_owned()).collect())
}

/// Why agents cannot work apart in a repository whose configuration names
/// these settings (pure): a filter driver (clean, smudge, process) other
/// than Git LFS's, or a merge driver, is a program git runs on files named
/// by a `.gitattributes` file, which the agent writes. None when it can.
pub fn refusal(settings: &[String]) -> Option<String> {
    let mut drivers: Vec<String> = Vec::new();
    for setting in settings {
        let lower = setting.to_ascii_lowercase();
        let Some((section, rest)) = lower.split_once('.') else { continue };
        let Some((name, key)) = rest.rsplit_once('.') else { continue };
        let runs = match section {
            "filter" => matches!(key, "clean" | "smudge" | "process") && name != "lfs",
            "merge" => key == "driver",
            _ => false,
        };
        let name = format!("{section} “{}”", &setting[section.len() + 1..section.len() + 1 + name.len()]);
        if runs && !drivers.contains(&name) {
            drivers.push(name);
        }
    }
    if drivers.is_empty() {
        return None;
    }
    Some(format!(
        "this repository's git configuration defines the {} driver{}: git would run {} on files an agent names in \
         .gitattributes, so its tasks cannot work in worktrees of their own; remove {} from the configuration (Git \
         LFS's filter is fine), or let the agent work in its folder",
        drivers.join(", the "),
        if drivers.len() == 1 { "" } else { "s" },
        if drivers.len() == 1 { "it" } else { "them" },
        if drivers.len() == 1 { "it" } else { "them" },
    ))
}

/// Why agents cannot work apart in the repository at `root`, if they cannot.
pub fn refusal_of(root: &Path) -> Result<Option<String>, GitError> {
    Ok(refusal(&configured_drivers(root)?))
}

/// A repository a folder is in, and the branch checked out there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Repository {
    pub root: PathBuf,
    /// The branch checked out; none when the checkout is detached.
    pub branch: Option<String>,
    /// The commit checked out.
    pub head: String,
}

/// How a file differs from the base.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChangeKind {
    Added,
    Modified,
    Deleted,
    Renamed,
}

/// One file a worktree changed against its base.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileChange {
    pub path: String,
    /// Where a renamed file was.
    pub from: Option<String>,
    pub kind: ChangeKind,
    /// Its content is not text (git's own judgement, or a NUL byte in an
    /// untracked file's start).
    pub binary: bool,
}

/// The branch a task's worktree is made on: `switchboard/<agent>/<task>`,
/// each part lower-case letters, digits and dashes, the task's part its
/// name's first words; a name `taken` gets `-2`, `-3`, … .
pub fn branch_name(agent: &str, task: &str, taken: impl Fn(&str) -> bool) -> String {
    let agent = match slug(agent, MAX_SLUG) {
        slug if slug.is_empty() => "agent".to_owned(),
        slug => slug,
    };
    let task = match slug(task, MAX_SLUG) {
        slug if slug.is_empty() => "task".to_owned(),
        slug => slug,
    };
    let first = format!("switchboard/{agent}/{task}");
    if !taken(&first) {
        return first;
    }
    (2..).map(|n| format!("{first}-{n}")).find(|name| !taken(name)).expect("some number is free")
}

/// Lower-case ASCII letters and digits, runs of anything else one dash, cut
/// at a dash before `max`.
fn slug(text: &str, max: usize) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
    }
    if out.len() > max {
        // Cut inside a word: back to the word's start.
        let inside = out.as_bytes()[max] != b'-';
        out.truncate(max);
        if inside && let Some(cut) = out.rfind('-') {
            out.truncate(cut);
        }
    }
    out.trim_matches('-').to_owned()
}

/// Whether a worktree's setup command has run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Setup {
    Pending,
    Done,
}

impl Setup {
    pub fn as_str(self) -> &'static str {
        match self {
            Setup::Pending => "pending",
            Setup::Done => "done",
        }
    }

    pub fn parse(text: &str) -> Option<Setup> {
        [Setup::Pending, Setup::Done].into_iter().find(|s| s.as_str() == text)
    }
}

/// Whether a worktree is still there for review, and how it ended if not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kept {
    Open,
    Merged {
        at: switchboard_api::Millis,
    },
    /// Removed; `patch`: where its work was kept, when it held any.
    Discarded {
        at: switchboard_api::Millis,
        patch: Option<String>,
    },
}

impl Kept {
    pub fn as_str(&self) -> &'static str {
        match self {
            Kept::Open => "open",
            Kept::Merged { .. } => "merged",
            Kept::Discarded { .. } => "discarded",
        }
    }

    pub fn ended_at(&self) -> Option<switchboard_api::Millis> {
        match self {
            Kept::Open => None,
            Kept::Merged { at } | Kept::Discarded { at, .. } => Some(*at),
        }
    }

    pub fn patch(&self) -> Option<&str> {
        match self {
            Kept::Discarded { patch, .. } => patch.as_deref(),
            _ => None,
        }
    }
}

/// A worktree the app made for a task (or a loop), as the store keeps it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorktreeRecord {
    /// The task (or loop) it was made for.
    pub owner: String,
    pub loop_id: Option<switchboard_protocol::LoopId>,
    pub profile_id: switchboard_protocol::ProfileId,
    /// The repository's top folder.
    pub repository: String,
    pub branch: String,
    /// The branch it was made from.
    pub base: String,
    pub path: String,
    pub created_at: switchboard_api::Millis,
    pub setup: Setup,
    pub kept: Kept,
    /// The files the last merge met a conflict in.
    pub conflict: Vec<String>,
}

/// How a merge went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Merged {
    /// The base branch now has the work: moved forward to it, or with a
    /// merge commit.
    Landed { commit: String, fast_forward: bool },
    /// The two changed the same lines: nothing was changed anywhere.
    Conflict { files: Vec<String> },
    /// The base is checked out in the user's folder, and the user's own
    /// uncommitted changes there are in the way: nothing was changed.
    InTheWay { why: String },
}

/// The repository `folder` is in, if any.
pub fn repository_of(folder: &Path) -> Result<Repository, GitError> {
    let root = git(folder, &["rev-parse", "--show-toplevel"]).map_err(|_| GitError::NotARepository(folder.into()))?;
    let root = PathBuf::from(text(root));
    let head = text(git(&root, &["rev-parse", "HEAD"])?);
    let branch = git(&root, &["symbolic-ref", "--quiet", "--short", "HEAD"]).ok().map(text);
    Ok(Repository { root, branch, head })
}

/// Makes a worktree at `path` on a new `branch` from `base` (a branch or commit).
pub fn create(repository: &Path, base: &str, branch: &str, path: &Path) -> Result<(), GitError> {
    let path = path.to_str().ok_or_else(|| GitError::Failed {
        what: "worktree".into(),
        why: format!("{} is not a path git can take", path.display()),
    })?;
    git(repository, &["worktree", "add", "--quiet", "-b", branch, path, base]).map(|_| ())
}

/// Commits what the worktree at `path` holds uncommitted (the app's own
/// files left out), with `message`; false when there was nothing to commit.
pub fn commit_all(path: &Checkout, message: &str) -> Result<bool, GitError> {
    stage_all(path, false)?;
    let (nothing, _) = git_status(path, &["diff", "--cached", "--quiet", "--no-ext-diff", "--no-textconv"])?;
    if nothing {
        return Ok(false);
    }
    git(path, &["commit", "--quiet", "--no-verify", "-m", message])?;
    Ok(true)
}

/// Stages everything in the worktree at `path` (only as intended for adding
/// with `intent`), then takes the app's own files out again: named as
/// excluded paths, git would refuse one its ignore files list.
fn stage_all(path: &Checkout, intent: bool) -> Result<(), GitError> {
    let add: &[&str] = if intent { &["add", "--intent-to-add", "--all"] } else { &["add", "--all"] };
    git(path, add)?;
    let mut reset = vec!["reset", "--quiet", "--"];
    reset.extend(APP_PATHS.iter().map(|own| own.trim_end_matches('/')));
    // A path no commit has is left as it is; the others go back to HEAD's.
    git_status(path, &reset)?;
    Ok(())
}

/// The task that asks a worktree's agent to bring its base in and resolve
/// the conflicts with it (pure): in the worktree, as a merge commit, the
/// files named; signal markers in their names defused.
pub fn resolve_prompt(base: &str, files: &[String]) -> String {
    let mut out = format!(
        "Your work in this worktree now conflicts with the latest {base}, which moved on since you began. Bring \
         {base} in and resolve the conflicts: commit what you left uncommitted, run `git merge {base}` here, \
         resolve each conflict keeping the intent of both sides, check that the code still builds and its tests \
         pass, then commit the merge. Do not rebase, and do not change {base} itself. The files in conflict:\n"
    );
    for file in files {
        out.push_str(&format!("- {file}\n"));
    }
    switchboard_protocol::signal::teach::defuse(&out)
}

/// Whether removing a worktree would lose work, so the user is asked first
/// (and a patch is kept): it has changes that are not all on the base.
pub fn removal_loses_work(changes: &[FileChange], merged: bool) -> bool {
    !changes.is_empty() && !merged
}

/// Whether a branch of that name exists in the repository.
/// The commit a branch of the repository is at; none where it has no such
/// branch.
pub fn branch_head(repository: &Path, branch: &str) -> Result<Option<String>, GitError> {
    let name = format!("refs/heads/{branch}^{{commit}}");
    let (found, out) = git::git_status(repository, &["rev-parse", "--verify", "--quiet", &name])?;
    Ok(found.then(|| git::text(out)).filter(|commit| !commit.is_empty()))
}

/// The commits after `from` up to `to`, newest first, one line each (short
/// id and subject), at most `cap`.
pub fn commits_between(repository: &Path, from: &str, to: &str, cap: usize) -> Result<Vec<String>, GitError> {
    let range = format!("{from}..{to}");
    let count = format!("--max-count={cap}");
    let out = git::git(repository, &["log", "--no-decorate", "--format=%h %s", &count, &range])?;
    Ok(git::text(out).lines().map(str::to_owned).collect())
}

pub fn branch_exists(repository: &Path, branch: &str) -> bool {
    git(repository, &["rev-parse", "--verify", "--quiet", &format!("refs/heads/{branch}")]).is_ok()
}

/// Whether a path (relative to the worktree's top) is one of the app's own.
pub fn is_app_path(path: &str) -> bool {
    APP_PATHS.iter().any(|own| if own.ends_with('/') { path.starts_with(own) } else { path == *own })
}

/// git forgets worktrees whose folders are gone.
pub fn prune(repository: &Path) -> Result<(), GitError> {
    git(repository, &["worktree", "prune"]).map(|_| ())
}

/// Deletes a branch, when it is there.
pub fn delete_branch(repository: &Path, branch: &str) -> Result<(), GitError> {
    if branch_exists(repository, branch) {
        git(repository, &["branch", "-D", branch])?;
    }
    Ok(())
}

/// The most comments one review carries.
pub const MAX_REVIEW_COMMENTS: usize = 100;

/// The prompt that types the user's line comments into the agent as one
/// review of its work on `title` (pure): each comment quoted under its file
/// and line; none without comments. Signal markers in the comments are
/// defused (the terminal echoes what is typed).
pub fn review_prompt(title: &str, comments: &[switchboard_api::ReviewComment]) -> Option<String> {
    let comments: Vec<&switchboard_api::ReviewComment> =
        comments.iter().filter(|c| !c.text.trim().is_empty()).take(MAX_REVIEW_COMMENTS).collect();
    if comments.is_empty() {
        return None;
    }
    let mut out = format!(
        "The user reviewed your changes for \"{}\" and left these comments. Address each one in this worktree, \
         then report as before.\n",
        title.trim()
    );
    for comment in comments {
        out.push_str(&format!("\n{}, line {}:\n", comment.path, comment.line));
        for line in comment.text.trim().lines() {
            out.push_str("> ");
            out.push_str(line);
            out.push('\n');
        }
    }
    Some(switchboard_protocol::signal::teach::defuse(&out))
}

/// Removes the worktree at `path` (whatever it holds) and its branch.
pub fn remove(repository: &Path, path: &Path, branch: &str) -> Result<(), GitError> {
    let path = path.to_string_lossy();
    git(repository, &["worktree", "remove", "--force", &path])?;
    git(repository, &["branch", "-D", branch]).map(|_| ())
}

/// Keeps the files of a worktree git can no longer make a patch of: the
/// folder is moved to `into` (the worktree is gone from where it was);
/// where `into` is on another file system, copied there first: folders and
/// plain files, links as links (never followed), nothing else.
pub fn keep_files(folder: &Path, into: &Path) -> std::io::Result<()> {
    if let Some(parent) = into.parent() {
        std::fs::create_dir_all(parent)?;
    }
    match std::fs::rename(folder, into) {
        Ok(()) => {}
        Err(error) if error.raw_os_error() == Some(libc::EXDEV) => {
            copy_tree(folder, into)?;
            std::fs::remove_dir_all(folder)?;
        }
        Err(error) => return Err(error),
    }
    // The kept `.git` names a git directory an agent may have planted (its
    // fsmonitor, hooks, filters) or the user's own: the first `git status`
    // in the kept folder would run through it. Kept, renamed, never used.
    let link = into.join(".git");
    if std::fs::symlink_metadata(&link).is_ok() {
        std::fs::rename(&link, into.join(KEPT_GIT_FILE))?;
    }
    Ok(())
}

/// What a kept folder's `.git` is renamed to, so no git finds it.
pub const KEPT_GIT_FILE: &str = ".git.as-the-agent-left-it";

fn copy_tree(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let kind = entry.file_type()?;
        let target = to.join(entry.file_name());
        if kind.is_dir() {
            copy_tree(&entry.path(), &target)?;
        } else if kind.is_file() {
            std::fs::copy(entry.path(), &target)?;
        } else if kind.is_symlink() {
            std::os::unix::fs::symlink(std::fs::read_link(entry.path())?, &target)?;
        }
    }
    Ok(())
}

/// A worktree of the repository, as git lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listed {
    pub path: PathBuf,
    pub branch: Option<String>,
    /// Its folder is gone (git calls it prunable).
    pub missing: bool,
}

/// Every worktree of the repository but its main checkout.
pub fn list(repository: &Path) -> Result<Vec<Listed>, GitError> {
    let out = git(repository, &["worktree", "list", "--porcelain", "-z"])?;
    let mut listed = Vec::new();
    let mut current: Option<Listed> = None;
    for field in out.split(|b| *b == 0) {
        let field = String::from_utf8_lossy(field);
        if field.is_empty() {
            listed.extend(current.take());
        } else if let Some(path) = field.strip_prefix("worktree ") {
            listed.extend(current.take());
            current = Some(Listed { path: path.into(), branch: None, missing: false });
        } else if let Some(current) = current.as_mut() {
            if let Some(branch) = field.strip_prefix("branch ") {
                current.branch = Some(branch.trim_start_matches("refs/heads/").to_owned());
            } else if field.starts_with("prunable") {
                current.missing = true;
            }
        }
    }
    listed.extend(current);
    // The first is the main checkout.
    Ok(listed.into_iter().skip(1).collect())
}

pub use switchboard_api::MAX_SHOWN_FILE;

#[cfg(test)]
mod tests {
    use super::changes::parse_diff;
    use super::names::name_bytes;
    use super::*;

    #[test]
    fn a_branch_is_named_for_its_agent_and_task_in_words_git_takes() {
        let free = |_: &str| false;
        let cases = [
            ("Builder", "Fix the login test", "switchboard/builder/fix-the-login-test"),
            ("claude code #2", "  Add *search* to the CLI!  ", "switchboard/claude-code-2/add-search-to-the-cli"),
            ("Ünïcode", "Réécrire le parseur", "switchboard/n-code/r-crire-le-parseur"),
            ("", "", "switchboard/agent/task"),
            ("..", "~^:?*[\\", "switchboard/agent/task"),
            (
                "a",
                "Rewrite the configuration loader so that every option is validated",
                "switchboard/a/rewrite-the-configuration-loader-so-that",
            ),
        ];
        for (agent, task, branch) in cases {
            assert_eq!(branch_name(agent, task, free), branch, "{agent:?} {task:?}");
        }
        let taken = |name: &str| ["switchboard/a/t", "switchboard/a/t-2"].contains(&name);
        assert_eq!(branch_name("a", "t", taken), "switchboard/a/t-3");
    }

    /// The worktree at `path` as the engine runs git in it.
    fn open(root: &Path, path: &Path) -> Checkout {
        Checkout::open(root, path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    }

    fn run(dir: &Path, args: &[&str]) {
        git(dir, args).unwrap_or_else(|e| panic!("git {args:?}: {e}"));
    }

    /// A repository with a few files committed on `main`.
    fn repository() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("project");
        std::fs::create_dir_all(root.join("src")).unwrap();
        run(&root, &["init", "--quiet", "--initial-branch=main"]);
        run(&root, &["config", "user.email", "dev@example.com"]);
        run(&root, &["config", "user.name", "Dev"]);
        std::fs::write(root.join("src/lib.rs"), "pub fn one() -> u32 { 1 }\n").unwrap();
        std::fs::write(root.join("README.md"), "# Project\n").unwrap();
        std::fs::write(root.join("notes.txt"), "first line\nsecond line\nthird line\n").unwrap();
        std::fs::write(root.join("old-name.txt"), "a file that moves, long enough to be found renamed\n".repeat(5))
            .unwrap();
        run(&root, &["add", "-A"]);
        run(&root, &["commit", "--quiet", "-m", "start"]);
        (dir, root)
    }

    #[test]
    fn a_worktree_on_its_own_branch_shows_every_kind_of_change_and_leaves_the_checkout_alone() {
        let (dir, root) = repository();
        let repo = repository_of(&root.join("src")).unwrap();
        assert_eq!(repo.root.canonicalize().unwrap(), root.canonicalize().unwrap());
        assert_eq!(repo.branch.as_deref(), Some("main"));

        let branch = branch_name("builder", "Fix the parser", |name| branch_exists(&root, name));
        let path = dir.path().join("worktrees/fix");
        create(&root, "main", &branch, &path).unwrap();
        assert!(branch_exists(&root, &branch));
        let again = branch_name("builder", "Fix the parser", |name| branch_exists(&root, name));
        assert_eq!(again, format!("{branch}-2"), "a taken name is not reused");

        // The agent's work: changed, added, deleted, renamed, binary, committed or not.
        std::fs::write(path.join("src/lib.rs"), "pub fn one() -> u32 { 2 }\n").unwrap();
        std::fs::write(path.join("src/new.rs"), "pub fn two() {}\n").unwrap();
        std::fs::remove_file(path.join("notes.txt")).unwrap();
        std::fs::rename(path.join("old-name.txt"), path.join("new-name.txt")).unwrap();
        std::fs::write(path.join("logo.png"), [0x89, b'P', b'N', b'G', 0, 0, 1, 2]).unwrap();
        run(&path, &["add", "src/new.rs", "new-name.txt", "old-name.txt"]);
        run(&path, &["commit", "--quiet", "-m", "agent work"]);
        // A FIFO and a link out, planted by the agent: listed, never opened or followed.
        nix::unistd::mkfifo(&path.join("pipe"), nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
        std::os::unix::fs::symlink("/etc/passwd", path.join("outside")).unwrap();
        // The app's own files are never changes.
        std::fs::create_dir_all(path.join("summaries")).unwrap();
        std::fs::write(path.join("summaries/t.md"), "## Status\nCOMPLETED\n").unwrap();
        std::fs::create_dir_all(path.join(".switchboard")).unwrap();
        std::fs::write(path.join(".switchboard/signals.md"), "protocol").unwrap();

        let changes = changes(&open(&root, &path), "main").unwrap();
        let seen: Vec<(&str, ChangeKind, Option<&str>, bool)> =
            changes.iter().map(|c| (c.path.as_str(), c.kind, c.from.as_deref(), c.binary)).collect();
        assert_eq!(
            seen,
            vec![
                ("logo.png", ChangeKind::Added, None, true),
                ("new-name.txt", ChangeKind::Renamed, Some("old-name.txt"), false),
                ("notes.txt", ChangeKind::Deleted, None, false),
                ("outside", ChangeKind::Added, None, true),
                ("src/lib.rs", ChangeKind::Modified, None, false),
                ("src/new.rs", ChangeKind::Added, None, false),
            ]
        );
        // The user's checkout is as it was.
        assert_eq!(std::fs::read_to_string(root.join("src/lib.rs")).unwrap(), "pub fn one() -> u32 { 1 }\n");
        assert!(root.join("notes.txt").exists() && !root.join("src/new.rs").exists());
        assert_eq!(repository_of(&root).unwrap().branch.as_deref(), Some("main"));
    }

    #[test]
    fn a_kept_patch_brings_the_work_back_after_the_worktree_is_removed_and_a_vanished_one_is_listed_missing() {
        let (dir, root) = repository();
        let path = dir.path().join("worktrees/docs");
        create(&root, "main", "switchboard/writer/docs", &path).unwrap();
        std::fs::write(path.join("README.md"), "# Project\n\nNow with docs.\n").unwrap();
        std::fs::write(path.join("guide.md"), "How to use it.\n").unwrap();
        std::fs::write(path.join("logo.png"), [0x89, b'P', b'N', b'G', 0, 0, 7]).unwrap();
        std::fs::remove_file(path.join("notes.txt")).unwrap();
        std::fs::create_dir_all(path.join("summaries")).unwrap();
        std::fs::write(path.join("summaries/t.md"), "mine").unwrap();
        let listed = list(&root).unwrap();
        assert_eq!(listed.len(), 1);
        assert_eq!(listed[0].branch.as_deref(), Some("switchboard/writer/docs"));
        assert!(!listed[0].missing);

        let patch = dir.path().join("kept.patch");
        save_patch(&open(&root, &path), "main", &patch).unwrap();
        remove(&root, &path, "switchboard/writer/docs").unwrap();
        assert!(!path.exists() && !branch_exists(&root, "switchboard/writer/docs"));
        assert!(list(&root).unwrap().is_empty());

        // Taken back onto the base, the work is all there; the app's files are not.
        let back = dir.path().join("worktrees/back");
        create(&root, "main", "switchboard/writer/back", &back).unwrap();
        run(&back, &["apply", patch.to_str().unwrap()]);
        assert_eq!(std::fs::read_to_string(back.join("README.md")).unwrap(), "# Project\n\nNow with docs.\n");
        assert_eq!(std::fs::read_to_string(back.join("guide.md")).unwrap(), "How to use it.\n");
        assert_eq!(std::fs::read(back.join("logo.png")).unwrap(), [0x89, b'P', b'N', b'G', 0, 0, 7]);
        assert!(!back.join("notes.txt").exists() && !back.join("summaries").exists());

        // A worktree whose folder vanished is listed as missing.
        std::fs::remove_dir_all(&back).unwrap();
        let listed = list(&root).unwrap();
        assert_eq!(listed.len(), 1);
        assert!(listed[0].missing, "{listed:?}");
    }

    /// Worktrees `a`, `b` and `c` from `main`, on `switchboard/<name>/work`.
    fn three_worktrees(dir: &Path, root: &Path) -> [PathBuf; 3] {
        ["a", "b", "c"].map(|name| {
            let path = dir.join(format!("worktrees/{name}"));
            create(root, "main", &format!("switchboard/{name}/work"), &path).unwrap();
            path
        })
    }

    fn head_of(root: &Path, branch: &str) -> String {
        text(git(root, &["rev-parse", &format!("refs/heads/{branch}")]).unwrap())
    }

    #[test]
    fn a_diff_shows_text_before_and_now_and_names_binary_and_too_large_files() {
        use switchboard_api::DiffContent;
        let (dir, root) = repository();
        std::fs::write(root.join("big.txt"), "x".repeat(MAX_SHOWN_FILE as usize + 10)).unwrap();
        std::fs::write(root.join("data.bin"), [1u8, 0, 2, 3]).unwrap();
        std::fs::write(root.join("odd\nname.txt"), "before\n").unwrap();
        run(&root, &["add", "-A"]);
        run(&root, &["commit", "--quiet", "-m", "more"]);
        let path = dir.path().join("worktrees/diff");
        create(&root, "main", "switchboard/a/diff", &path).unwrap();
        std::fs::write(path.join("big.txt"), "small now\n").unwrap();
        std::fs::write(path.join("data.bin"), [1u8, 0, 9]).unwrap();
        std::fs::write(path.join("odd\nname.txt"), "after\n").unwrap();
        std::fs::write(path.join("notes.txt"), "first line\nsecond line, changed\nthird line\n").unwrap();
        std::fs::remove_file(path.join("README.md")).unwrap();
        let changes = changes(&open(&root, &path), "main").unwrap();
        let diffs = diff_files(&open(&root, &path), "main", &changes).unwrap();
        let content = |name: &str| diffs.iter().find(|d| d.path == name).unwrap().content.clone();
        assert_eq!(content("big.txt"), DiffContent::TooLarge { bytes: MAX_SHOWN_FILE + 10 });
        assert_eq!(content("data.bin"), DiffContent::Binary);
        let DiffContent::Text { before, after, unified } = content("notes.txt") else { panic!() };
        assert_eq!(
            (before.as_str(), after.as_str()),
            ("first line\nsecond line\nthird line\n", "first line\nsecond line, changed\nthird line\n")
        );
        assert!(unified.starts_with("--- a/notes.txt\n+++ b/notes.txt\n@@ -1,3 +1,3 @@\n"), "{unified}");
        assert!(unified.contains("-second line\n+second line, changed\n"), "{unified}");
        let DiffContent::Text { before, unified, .. } = content("README.md") else { panic!() };
        assert_eq!(before, "# Project\n");
        assert!(unified.contains("+++ /dev/null"), "{unified}");
        let DiffContent::Text { before, after, unified } = content(r#""odd\nname.txt""#) else { panic!() };
        assert_eq!((before.as_str(), after.as_str()), ("before\n", "after\n"));
        assert!(unified.starts_with("--- \"a/odd\\nname.txt\"\n+++ \"b/odd\\nname.txt\"\n"), "{unified}");
    }

    #[test]
    fn committing_leaves_out_the_apps_files_even_where_the_project_ignores_them() {
        let (dir, root) = repository();
        std::fs::write(
            root.join(".gitignore"),
            ".claude/
",
        )
        .unwrap();
        run(&root, &["add", ".gitignore"]);
        run(&root, &["commit", "--quiet", "-m", "ignore the agent's folder"]);
        let path = dir.path().join("worktrees/ignored");
        create(&root, "main", "switchboard/a/ignored", &path).unwrap();
        std::fs::create_dir_all(path.join(".claude")).unwrap();
        std::fs::write(path.join(".claude/settings.local.json"), "{}").unwrap();
        std::fs::write(path.join("CONTEXT.md"), "the task's context").unwrap();
        std::fs::write(path.join("work.txt"), "done\n").unwrap();
        assert!(commit_all(&open(&root, &path), "Work").unwrap());
        let committed = text(git(&path, &["show", "--name-only", "--format=", "HEAD"]).unwrap());
        assert_eq!(committed, "work.txt");
        let patch = dir.path().join("kept.patch");
        std::fs::write(path.join("more.txt"), "more\n").unwrap();
        save_patch(&open(&root, &path), "main", &patch).unwrap();
        let kept = std::fs::read_to_string(&patch).unwrap();
        assert!(kept.contains("more.txt") && kept.contains("work.txt") && !kept.contains("CONTEXT.md"), "{kept}");
    }

    /// The base checked out in a linked worktree of the user's moves with a
    /// merge as their main checkout would (a fast-forward git checks), not
    /// under it; checked out in an agent's worktree, the merge waits.
    #[test]
    fn a_base_checked_out_in_another_worktree_follows_by_a_fast_forward_or_the_merge_waits() {
        let (dir, root) = repository();
        let apart = dir.path().join("worktrees");
        run(&root, &["switch", "--quiet", "-c", "elsewhere"]);
        let users = dir.path().join("users-main");
        run(&root, &["worktree", "add", "--quiet", users.to_str().unwrap(), "main"]);
        let work = apart.join("work");
        create(&root, "main", "switchboard/a/work", &work).unwrap();
        std::fs::write(work.join("guide.md"), "A guide.\n").unwrap();
        assert!(commit_all(&open(&root, &work), "Write the guide").unwrap());
        let landed = merge(&root, &apart, "main", "switchboard/a/work", "Merge the guide").unwrap();
        assert!(matches!(landed, Merged::Landed { fast_forward: true, .. }), "{landed:?}");
        // The user's folder on main has the work and shows nothing changed.
        assert_eq!(std::fs::read_to_string(users.join("guide.md")).unwrap(), "A guide.\n");
        assert!(git(&users, &["status", "--porcelain"]).unwrap().is_empty(), "the user's checkout moved with main");

        // An agent that checked the base out in its own worktree: nothing moves.
        run(&users, &["switch", "--quiet", "--detach"]);
        let other = apart.join("other");
        create(&root, "main", "switchboard/b/other", &other).unwrap();
        std::fs::write(other.join("notes.md"), "Notes.\n").unwrap();
        assert!(commit_all(&open(&root, &other), "Notes").unwrap());
        let agents = apart.join("agents-main");
        run(&root, &["worktree", "add", "--quiet", agents.to_str().unwrap(), "main"]);
        let before = head_of(&root, "main");
        let refused = merge(&root, &apart, "main", "switchboard/b/other", "m").unwrap();
        let Merged::InTheWay { why } = refused else { panic!("{refused:?}") };
        assert!(why.contains("agent's worktree"), "{why}");
        assert_eq!(head_of(&root, "main"), before);
    }

    #[test]
    fn merging_lands_clean_work_moves_the_users_checkout_and_refuses_a_conflict_changing_nothing() {
        let (dir, root) = repository();
        // A task whose work lands by a fast-forward, committed by the app.
        let first = dir.path().join("worktrees/first");
        create(&root, "main", "switchboard/a/first", &first).unwrap();
        std::fs::write(first.join("guide.md"), "A guide.\n").unwrap();
        std::fs::create_dir_all(first.join("summaries")).unwrap();
        std::fs::write(first.join("summaries/t.md"), "mine").unwrap();
        assert!(commit_all(&open(&root, &first), "Write the guide").unwrap());
        assert!(!commit_all(&open(&root, &first), "Nothing left").unwrap(), "nothing left to commit");
        let landed =
            merge(&root, &dir.path().join("worktrees"), "main", "switchboard/a/first", "Merge the guide").unwrap();
        assert!(matches!(landed, Merged::Landed { fast_forward: true, .. }), "{landed:?}");
        assert_eq!(
            std::fs::read_to_string(root.join("guide.md")).unwrap(),
            "A guide.\n",
            "the checkout moved with main"
        );
        assert!(!root.join("summaries").exists(), "the app's files were never committed");

        // Two tasks from the same base: one lands, the other needs a merge commit.
        let second = dir.path().join("worktrees/second");
        let third = dir.path().join("worktrees/third");
        create(&root, "main", "switchboard/a/second", &second).unwrap();
        create(&root, "main", "switchboard/b/third", &third).unwrap();
        std::fs::write(second.join("src/lib.rs"), "pub fn one() -> u32 { 11 }\n").unwrap();
        std::fs::write(third.join("README.md"), "# Project, documented\n").unwrap();
        commit_all(&open(&root, &second), "Change one").unwrap();
        commit_all(&open(&root, &third), "Document it").unwrap();
        assert!(matches!(
            merge(&root, &dir.path().join("worktrees"), "main", "switchboard/a/second", "m").unwrap(),
            Merged::Landed { .. }
        ));
        let landed =
            merge(&root, &dir.path().join("worktrees"), "main", "switchboard/b/third", "Merge the docs").unwrap();
        assert!(matches!(landed, Merged::Landed { fast_forward: false, .. }), "{landed:?}");
        assert_eq!(std::fs::read_to_string(root.join("README.md")).unwrap(), "# Project, documented\n");
        assert_eq!(std::fs::read_to_string(root.join("src/lib.rs")).unwrap(), "pub fn one() -> u32 { 11 }\n");

        // A conflict: the same line changed on both sides. Nothing moves; the user's own
        // uncommitted work in their folder is untouched.
        let fourth = dir.path().join("worktrees/fourth");
        create(&root, "main", "switchboard/b/fourth", &fourth).unwrap();
        std::fs::write(fourth.join("src/lib.rs"), "pub fn one() -> u32 { 4 }\n").unwrap();
        commit_all(&open(&root, &fourth), "Four").unwrap();
        std::fs::write(root.join("src/lib.rs"), "pub fn one() -> u32 { 12 }\n").unwrap();
        run(&root, &["commit", "--quiet", "-am", "the user's own change"]);
        std::fs::write(root.join("scratch.txt"), "the user's unsaved thoughts\n").unwrap();
        let main_before = head_of(&root, "main");
        let refused = merge(&root, &dir.path().join("worktrees"), "main", "switchboard/b/fourth", "m").unwrap();
        assert_eq!(refused, Merged::Conflict { files: vec!["src/lib.rs".into()] });
        assert_eq!(head_of(&root, "main"), main_before);
        assert_eq!(std::fs::read_to_string(root.join("src/lib.rs")).unwrap(), "pub fn one() -> u32 { 12 }\n");
        assert_eq!(std::fs::read_to_string(root.join("scratch.txt")).unwrap(), "the user's unsaved thoughts\n");

        // Clean work, but the user's uncommitted change to the same file is in the way.
        let fifth = dir.path().join("worktrees/fifth");
        create(&root, "main", "switchboard/b/fifth", &fifth).unwrap();
        std::fs::write(fifth.join("guide.md"), "A better guide.\n").unwrap();
        commit_all(&open(&root, &fifth), "Better guide").unwrap();
        std::fs::write(root.join("guide.md"), "The user's own edit.\n").unwrap();
        let main_before = head_of(&root, "main");
        let refused = merge(&root, &dir.path().join("worktrees"), "main", "switchboard/b/fifth", "m").unwrap();
        assert!(matches!(&refused, Merged::InTheWay { why } if why.contains("uncommitted")), "{refused:?}");
        assert_eq!(head_of(&root, "main"), main_before);
        assert_eq!(std::fs::read_to_string(root.join("guide.md")).unwrap(), "The user's own edit.\n");
    }

    #[test]
    fn the_radar_sees_two_worktrees_change_the_same_lines_and_not_unrelated_files() {
        let (dir, root) = repository();
        let [a, b, c] = three_worktrees(dir.path(), &root);
        std::fs::write(a.join("notes.txt"), "first line\nsecond line, by a\nthird line\n").unwrap();
        std::fs::write(b.join("notes.txt"), "first line\nsecond line, by b\nthird line\nfourth, by b\n").unwrap();
        commit_all(&open(&root, &b), "b's notes").unwrap();
        std::fs::write(c.join("README.md"), "# Project by c\n").unwrap();
        std::fs::write(c.join("fresh.md"), "new\n").unwrap();
        let worktrees: Vec<radar::Watched<&str>> = [("a", &a), ("b", &b), ("c", &c)]
            .map(|(key, path)| radar::Watched {
                key,
                repository: root.display().to_string(),
                files: hunks(&open(&root, path), "main").unwrap(),
            })
            .into();
        let found = radar::overlaps(&worktrees);
        assert_eq!(found.len(), 1, "{found:?}");
        let overlap = &found[0];
        assert_eq!((overlap.first, overlap.second, overlap.path.as_str()), ("a", "b", "notes.txt"));
        assert_eq!((overlap.first_hunks, overlap.second_hunks), (1, 1), "{overlap:?}");
    }

    #[test]
    fn a_rebase_onto_the_moved_base_lands_or_is_undone_on_a_conflict() {
        let (dir, root) = repository();
        let [a, b, c] = three_worktrees(dir.path(), &root);
        std::fs::write(a.join("notes.txt"), "first line\nsecond line, by a\nthird line\n").unwrap();
        commit_all(&open(&root, &a), "a's notes").unwrap();
        assert!(matches!(
            merge(&root, &dir.path().join("worktrees"), "main", "switchboard/a/work", "m").unwrap(),
            Merged::Landed { .. }
        ));
        assert!(is_merged(&root, "switchboard/a/work", "main").unwrap());

        // b changed another file, uncommitted: committed, then replayed onto a's work.
        std::fs::write(b.join("README.md"), "# Project, by b\n").unwrap();
        assert_eq!(rebase(&open(&root, &b), "main", "b's readme").unwrap(), Rebased::Done);
        assert_eq!(
            std::fs::read_to_string(b.join("notes.txt")).unwrap(),
            "first line\nsecond line, by a\nthird line\n"
        );
        assert!(!is_merged(&root, "switchboard/b/work", "main").unwrap(), "b's own work is not on main yet");

        // c changed the same line as a: the rebase is undone, c's work kept as it was.
        std::fs::write(c.join("notes.txt"), "first line\nsecond line, by c\nthird line\n").unwrap();
        let head_before = text(git(&c, &["rev-parse", "HEAD"]).unwrap());
        assert_eq!(
            rebase(&open(&root, &c), "main", "c's notes").unwrap(),
            Rebased::Conflict { files: vec!["notes.txt".into()] }
        );
        let head_after = text(git(&c, &["rev-parse", "HEAD"]).unwrap());
        assert_ne!(head_before, head_after, "c's work was committed before the attempt");
        assert_eq!(
            std::fs::read_to_string(c.join("notes.txt")).unwrap(),
            "first line\nsecond line, by c\nthird line\n"
        );
        let rebase_dir = PathBuf::from(text(git(&c, &["rev-parse", "--git-path", "rebase-merge"]).unwrap()));
        let rebase_dir = if rebase_dir.is_absolute() { rebase_dir } else { c.join(rebase_dir) };
        assert!(!rebase_dir.exists(), "no rebase left half done");
        assert!(git(&c, &["status", "--porcelain"]).unwrap().is_empty(), "its work is all committed, none lost");
    }

    #[test]
    fn a_worktree_s_state_and_whether_removing_it_loses_work() {
        use WorktreeState::*;
        let tampered = Some(self::Broken::Tampered(GitLink::Missing));
        let failed = LastTask::Failed(Some("the agent exited".into()));
        let stopped = LastTask::Stopped(None);
        let files = vec!["src/lib.rs".to_owned()];
        let facts = |folder_missing,
                     broken: Option<self::Broken>,
                     agent_at_work,
                     merged,
                     last_task,
                     conflict: &[String],
                     overlapping,
                     behind| {
            StateFacts {
                folder_missing,
                broken,
                agent_at_work,
                merged,
                last_task,
                base_conflict: conflict.to_vec(),
                overlapping,
                behind,
            }
        };
        let cases = [
            (facts(true, tampered.clone(), true, false, failed.clone(), &files, true, 2), FolderMissing),
            (
                facts(false, tampered.clone(), true, false, failed.clone(), &files, true, 2),
                Broken(self::Broken::Tampered(GitLink::Missing)),
            ),
            (
                facts(false, Some(self::Broken::BranchGone), false, false, LastTask::Done, &[], false, 0),
                Broken(self::Broken::BranchGone),
            ),
            (facts(false, None, true, false, failed.clone(), &files, true, 2), Working),
            (facts(false, None, false, true, failed.clone(), &files, true, 2), Merged),
            // A failed or stopped task says so before anything else about its work.
            (
                facts(false, None, false, false, failed.clone(), &files, true, 2),
                TaskFailed { why: Some("the agent exited".into()) },
            ),
            (facts(false, None, false, false, stopped.clone(), &files, true, 2), TaskStopped { why: None }),
            (
                facts(false, None, false, false, LastTask::Done, &files, true, 2),
                ConflictsWithBase { files: files.clone() },
            ),
            (facts(false, None, false, false, LastTask::Done, &[], true, 2), Overlapping),
            (facts(false, None, false, false, LastTask::Done, &[], false, 2), Behind { commits: 2 }),
            (facts(false, None, false, false, LastTask::Done, &[], false, 0), ReadyToMerge),
        ];
        for (facts, state) in cases {
            assert_eq!(state_of(facts.clone()), state, "{facts:?}");
        }
        // Each state in the words every client shows.
        let words = [
            (TaskFailed { why: Some("the agent exited".into()) }, "its task failed: the agent exited"),
            (TaskStopped { why: None }, "its task was stopped before it finished"),
            (ConflictsWithBase { files: files.clone() }, "conflicts with main now in src/lib.rs"),
            (ConflictsWithBase { files: vec!["a".into(), "b".into()] }, "conflicts with main now in 2 files"),
            (Behind { commits: 1 }, "main moved on by 1 commit; it merges cleanly"),
            (ReadyToMerge, "ready to merge"),
        ];
        for (state, said) in words {
            assert_eq!(state.words("main"), said);
        }
        let long = TaskFailed { why: Some("x".repeat(500)) }.words("main");
        assert!(long.chars().count() < 200 && long.ends_with('…'), "{long}");
        let change = FileChange { path: "a".into(), from: None, kind: ChangeKind::Modified, binary: false };
        assert!(removal_loses_work(std::slice::from_ref(&change), false));
        assert!(!removal_loses_work(&[change], true), "all of it is on the base");
        assert!(!removal_loses_work(&[], false), "nothing to lose");
    }

    #[test]
    fn a_repository_whose_configuration_runs_filters_or_merge_drivers_is_refused_in_words() {
        let names = |list: &[&str]| list.iter().map(|n| n.to_string()).collect::<Vec<_>>();
        let cases: [(&[&str], Option<&str>); 7] = [
            (&[], None),
            (&["filter.lfs.clean", "filter.lfs.smudge", "filter.lfs.process", "filter.lfs.required"], None),
            (&["merge.renormalize", "merge.conflictstyle"], None),
            (&["filter.crypt.clean", "filter.crypt.smudge"], Some("the filter “crypt” driver:")),
            (&["filter.Odd.Name.process"], Some("the filter “Odd.Name” driver:")),
            (&["merge.ours.driver"], Some("the merge “ours” driver:")),
            (
                &["filter.a.clean", "merge.b.driver", "filter.lfs.smudge"],
                Some("the filter “a”, the merge “b” drivers:"),
            ),
        ];
        for (settings, said) in cases {
            let why = refusal(&names(settings));
            match said {
                None => assert_eq!(why, None, "{settings:?}"),
                Some(said) => {
                    let why = why.unwrap_or_else(|| panic!("{settings:?} was not refused"));
                    assert!(why.contains(said) && why.contains("cannot work in worktrees"), "{why}");
                }
            }
        }
    }

    #[test]
    fn a_merge_waits_while_its_base_is_rebased_bisected_merged_reverted_picked_or_patched_anywhere() {
        let at = |operation, branch: Option<&str>| Underway {
            operation,
            branch: branch.map(str::to_owned),
            folder: PathBuf::from("/home/me/project"),
        };
        let cases = [
            (vec![], None),
            (vec![at(Operation::Rebase, Some("main"))], Some("main is being rebased in /home/me/project")),
            (vec![at(Operation::Bisect, Some("main"))], Some("git bisect reset")),
            (vec![at(Operation::Merge, Some("main"))], Some("main is being merged into")),
            (vec![at(Operation::Revert, Some("main"))], Some("git revert --continue")),
            (vec![at(Operation::CherryPick, Some("main"))], Some("cherry-picked onto")),
            (vec![at(Operation::Am, Some("main"))], Some("git am --continue")),
            // An agent rebasing its own branch, or a detached bisection, holds nothing up.
            (vec![at(Operation::Rebase, Some("switchboard/a/work")), at(Operation::Bisect, None)], None),
            (vec![at(Operation::Rebase, Some("mainline"))], None),
        ];
        for (underway, said) in cases {
            let why = base_busy("main", &underway);
            match said {
                None => assert_eq!(why, None, "{underway:?}"),
                Some(said) => assert!(why.as_deref().is_some_and(|w| w.contains(said)), "{why:?} for {underway:?}"),
            }
        }
    }

    #[test]
    fn a_rebase_of_main_under_way_stops_a_merge_and_an_agents_own_rebase_does_not() {
        let (dir, root) = repository();
        let [a, b, _] = three_worktrees(dir.path(), &root);
        std::fs::write(a.join("guide.md"), "A guide, by a.\n").unwrap();
        commit_all(&open(&root, &a), "a's guide").unwrap();
        // b rebases its own branch and stops on a conflict with main.
        std::fs::write(root.join("notes.txt"), "first line\nsecond line, by the user\nthird line\n").unwrap();
        run(&root, &["commit", "--quiet", "-am", "the user's notes"]);
        std::fs::write(b.join("notes.txt"), "first line\nsecond line, by b\nthird line\n").unwrap();
        run(&b, &["commit", "--quiet", "-am", "b's notes"]);
        assert!(!git_status(&b, &["rebase", "main"]).unwrap().0, "b stops mid-rebase");
        // The user starts rebasing main onto a branch of theirs and stops on a conflict.
        run(&root, &["branch", "other", "main~1"]);
        run(&root, &["switch", "--quiet", "other"]);
        std::fs::write(root.join("notes.txt"), "first line\nsecond line, other\nthird line\n").unwrap();
        run(&root, &["commit", "--quiet", "-am", "other notes"]);
        run(&root, &["switch", "--quiet", "main"]);
        assert!(!git_status(&root, &["rebase", "other"]).unwrap().0, "the user's rebase stops");
        let main_before = head_of(&root, "main");
        let refused = merge(&root, &dir.path().join("worktrees"), "main", "switchboard/a/work", "m").unwrap();
        assert!(matches!(&refused, Merged::InTheWay { why } if why.contains("main is being rebased")), "{refused:?}");
        assert_eq!(head_of(&root, "main"), main_before, "main did not move under the user's rebase");
        run(&root, &["rebase", "--abort"]);
        // b's rebase of its own branch is still under way; a's merge lands.
        let landed = merge(&root, &dir.path().join("worktrees"), "main", "switchboard/a/work", "m").unwrap();
        assert!(matches!(landed, Merged::Landed { .. }), "{landed:?}");
    }

    #[test]
    fn a_name_is_shown_as_it_is_or_quoted_the_way_git_quotes_it_and_nothing_is_lost() {
        let cases: [(&[u8], &str); 9] = [
            (b"src/lib.rs", "src/lib.rs"),
            ("caf\u{e9}/r\u{e9}sum\u{e9}.md".as_bytes(), "caf\u{e9}/r\u{e9}sum\u{e9}.md"),
            (b"odd\nname.txt", r#""odd\nname.txt""#),
            (b"tab\there\r", r#""tab\there\r""#),
            (b"\"quoted\" start", r#""\"quoted\" start""#),
            (b"mid\"dle and back\\slash", "mid\"dle and back\\slash"),
            (b"bad\xffname\xc3", r#""bad\377name\303""#),
            ("txt.\u{202e}gpj".as_bytes(), r#""txt.\342\200\256gpj""#),
            ("own\u{10ff41}".as_bytes(), r#""own\364\217\275\201""#),
        ];
        for (bytes, shown) in cases {
            let name = decode_name(bytes);
            assert_eq!(shown_name(&name), shown, "{bytes:?}");
            assert_eq!(name_bytes(&name), bytes, "{bytes:?} kept whole");
        }
    }

    #[test]
    fn a_folder_outside_any_repository_says_so() {
        let dir = tempfile::tempdir().unwrap();
        let refused = repository_of(dir.path()).unwrap_err();
        assert!(matches!(refused, GitError::NotARepository(_)), "{refused}");
        assert!(refused.to_string().contains("is not inside a git repository"));
    }

    #[test]
    fn one_diff_run_tells_each_files_change_and_which_are_binary_renamed_or_not() {
        let out = b":100644 100644 aaa 000 M\0src/a.rs\0:100644 100644 bbb 000 M\0logo.png\0\
                    :100644 100644 ccc ccc R097\0old.bin\0new.bin\0:000000 100644 000 ddd A\0summaries/t.md\0\
                    :100644 000000 eee 000 D\0gone.txt\0\
                    3\t1\tsrc/a.rs\0-\t-\tlogo.png\0-\t-\t\0old.bin\0new.bin\x001\t0\tsummaries/t.md\x000\t1\tgone.txt\0";
        let changes = parse_diff(out);
        let seen: Vec<(&str, ChangeKind, Option<&str>, bool)> =
            changes.iter().map(|c| (c.path.as_str(), c.kind, c.from.as_deref(), c.binary)).collect();
        assert_eq!(
            seen,
            [
                ("src/a.rs", ChangeKind::Modified, None, false),
                ("logo.png", ChangeKind::Modified, None, true),
                ("new.bin", ChangeKind::Renamed, Some("old.bin"), true),
                ("gone.txt", ChangeKind::Deleted, None, false),
            ]
        );
    }
}
