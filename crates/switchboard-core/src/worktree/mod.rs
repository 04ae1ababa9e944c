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

pub mod radar;
mod setup;

pub use setup::{SETUP_OUTPUT_CAP, SetupRun, run_setup};

use std::path::{Path, PathBuf};
use std::process::Command;

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

/// What the `.git` file in an agent's folder says, when it does not name
/// the git directory git made for that worktree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GitLink {
    /// There is none.
    Missing,
    /// Something other than a plain file (a folder, a link).
    NotAFile,
    /// It names another directory (the user's own repository, say), or
    /// none that git keeps for this worktree.
    Elsewhere(PathBuf),
}

/// What is wrong with a worktree git can no longer be run in safely or asked about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Broken {
    /// Its `.git` file was changed (rewritten, deleted, pointed elsewhere),
    /// or git no longer keeps a directory for it.
    Tampered(GitLink),
    /// Its branch was deleted.
    BranchGone,
    /// Its repository's configuration now defines a filter or merge driver
    /// git would run on the agent's files ([`refusal`]): why, in words.
    Unsafe(String),
}

impl std::fmt::Display for Broken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Broken::Tampered(_) => f.write_str(
                "its .git file was tampered with (it no longer names the git directory made for it), so git is not \
                 run there; discard it to keep a copy of its files",
            ),
            Broken::BranchGone => f.write_str(
                "its branch was deleted, so git cannot tell what it changed; discard it to keep a copy of its files",
            ),
            Broken::Unsafe(why) => f.write_str(why),
        }
    }
}

/// The longest `.git` file read: git writes one line naming a directory.
const MAX_GIT_FILE: u64 = 4096;

/// An agent's worktree as git is run in it: its git directory (git's own
/// record of it, under the repository's common directory, where the agent's
/// folder is not) and its work tree (the folder). See [`Checkout::open`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checkout {
    git_dir: PathBuf,
    work_tree: PathBuf,
}

impl Checkout {
    /// The worktree at `path` of the repository at `repository`, when it is
    /// sound: git keeps a directory for it (its `gitdir` file, written by
    /// git in the repository's common directory, names `path`), the `.git`
    /// file in the folder still names that directory, and the repository's
    /// configuration defines no program git would run on the agent's files.
    pub fn open(repository: &Path, path: &Path) -> Result<Checkout, GitError> {
        let work_tree = path.canonicalize().map_err(|error| GitError::Failed {
            what: "worktree".into(),
            why: format!("{} cannot be read: {error}", path.display()),
        })?;
        let common = text(git(repository, &["rev-parse", "--path-format=absolute", "--git-common-dir"])?);
        let git_dir = admin_dir(Path::new(&common), &work_tree);
        let link = git_link(&work_tree);
        let git_dir = match (git_dir, link) {
            (Some(dir), Ok(named)) if named == dir => dir,
            (_, Ok(named)) => return Err(GitError::Broken(Broken::Tampered(GitLink::Elsewhere(named)))),
            (_, Err(link)) => return Err(GitError::Broken(Broken::Tampered(link))),
        };
        let checkout = Checkout { git_dir, work_tree };
        if let Some(why) = refusal(&configured_drivers(&checkout)?) {
            return Err(GitError::Broken(Broken::Unsafe(why)));
        }
        Ok(checkout)
    }

    /// [`Checkout::open`], and its branch still there.
    pub fn open_on(repository: &Path, path: &Path, branch: &str) -> Result<Checkout, GitError> {
        let checkout = Checkout::open(repository, path)?;
        if !branch_exists(repository, branch) {
            return Err(GitError::Broken(Broken::BranchGone));
        }
        Ok(checkout)
    }

    /// The worktree's folder (canonical).
    pub fn path(&self) -> &Path {
        &self.work_tree
    }
}

/// The directory git keeps for the worktree at `work_tree` (canonical):
/// the one under `<common>/worktrees/` whose `gitdir` file names its `.git`.
fn admin_dir(common: &Path, work_tree: &Path) -> Option<PathBuf> {
    let entries = std::fs::read_dir(common.join("worktrees")).ok()?;
    entries.flatten().map(|entry| entry.path()).find_map(|dir| {
        let named = std::fs::read_to_string(dir.join("gitdir")).ok()?;
        let folder = Path::new(named.trim_end_matches(['\n', '\r'])).parent()?.canonicalize().ok()?;
        (folder == work_tree).then(|| dir.canonicalize().ok()).flatten()
    })
}

/// The directory the `.git` file in the folder names (canonical), read
/// without following a link and capped.
fn git_link(work_tree: &Path) -> Result<PathBuf, GitLink> {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    let file = work_tree.join(".git");
    let meta = match std::fs::symlink_metadata(&file) {
        Ok(meta) => meta,
        Err(_) => return Err(GitLink::Missing),
    };
    if !meta.is_file() {
        return Err(GitLink::NotAFile);
    }
    let mut said = String::new();
    let opened = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(&file)
        .and_then(|f| f.take(MAX_GIT_FILE).read_to_string(&mut said));
    if opened.is_err() {
        return Err(GitLink::NotAFile);
    }
    let named = said.lines().next().and_then(|line| line.strip_prefix("gitdir: ")).unwrap_or_default();
    let named = work_tree.join(named.trim());
    named.canonicalize().map_err(|_| GitLink::Elsewhere(named))
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

/// Settings every git run of the engine takes, over whatever a
/// configuration says: nothing git would start on its own (a file-system
/// monitor, hooks, a pager, an editor, ssh) runs, and submodules (a nested
/// repository an agent made has a configuration of its own) are not looked
/// into. The user's identity, signing, excludes and LFS are left as they are.
const SAFE_CONFIG: &[&str] = &[
    "core.fsmonitor=false",
    // No hook is found under a path that is not a folder.
    "core.hooksPath=/dev/null",
    "core.pager=cat",
    "core.editor=:",
    "sequence.editor=:",
    "core.sshCommand=false",
    "diff.ignoreSubmodules=all",
    "submodule.recurse=false",
];

/// Variables of the engine's own environment that would send git elsewhere
/// or have it start a program: never passed on.
const ENV_CLEARED: &[&str] = &[
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_COMMON_DIR",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_NAMESPACE",
    "GIT_EXTERNAL_DIFF",
    "GIT_SSH",
    "GIT_SSH_COMMAND",
    "GIT_ASKPASS",
    "SSH_ASKPASS",
];

/// Where a git run works.
pub trait GitPlace {
    fn place(&self, command: &mut Command);
}

/// A repository's own checkout (the user's), found the way git finds it.
impl GitPlace for Path {
    fn place(&self, command: &mut Command) {
        command.arg("-C").arg(self);
    }
}

impl GitPlace for PathBuf {
    fn place(&self, command: &mut Command) {
        self.as_path().place(command);
    }
}

/// An agent's worktree: its git directory and work tree as the engine
/// recorded them, never as the `.git` file in the agent's folder says.
impl GitPlace for Checkout {
    fn place(&self, command: &mut Command) {
        command.current_dir(&self.work_tree).env("GIT_DIR", &self.git_dir).env("GIT_WORK_TREE", &self.work_tree);
    }
}

/// `git` at `at`, with the engine's safe settings.
fn command(at: &(impl GitPlace + ?Sized)) -> Command {
    let mut command = Command::new("git");
    for name in ENV_CLEARED {
        command.env_remove(name);
    }
    at.place(&mut command);
    for setting in SAFE_CONFIG {
        command.arg("-c").arg(setting);
    }
    // The user's pager, editor and prompts stay out of it.
    command
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("GIT_PAGER", "cat")
        .env("GIT_EDITOR", ":")
        .env("GIT_SEQUENCE_EDITOR", ":");
    command
}

/// Runs git with `args` at `at` and returns its exit success and output,
/// failing only when git could not run.
fn git_status(at: &(impl GitPlace + ?Sized), args: &[&str]) -> Result<(bool, Vec<u8>), GitError> {
    let output = command(at).args(args).output().map_err(GitError::NotRun)?;
    Ok((output.status.success(), output.stdout))
}

/// Runs git with `args` at `at` and returns its standard output.
fn git(at: &(impl GitPlace + ?Sized), args: &[&str]) -> Result<Vec<u8>, GitError> {
    let output = command(at).args(args).output().map_err(GitError::NotRun)?;
    if output.status.success() {
        Ok(output.stdout)
    } else {
        let what = args.first().copied().unwrap_or_default().to_owned();
        let why = String::from_utf8_lossy(&output.stderr).trim().to_owned();
        Err(GitError::Failed { what, why })
    }
}

fn text(bytes: Vec<u8>) -> String {
    String::from_utf8_lossy(&bytes).trim_end().to_owned()
}

/// Where a byte of a file name that is not UTF-8 is kept in the name as
/// text: the private-use character at this base plus the byte, so a name
/// stays exact until it is shown ([`shown_name`]).
const RAW_BYTE_BASE: u32 = 0x10_FF00;

/// A file name as git gives it (bytes), as text that keeps every byte.
pub fn decode_name(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    let raw = |out: &mut String, byte: u8| {
        out.push(char::from_u32(RAW_BYTE_BASE + u32::from(byte)).expect("a private-use character"));
    };
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            if u32::from(c) >= RAW_BYTE_BASE {
                // The name's own character of that range: kept as its bytes, so it reads back as itself.
                c.encode_utf8(&mut [0; 4]).bytes().for_each(|byte| raw(&mut out, byte));
            } else {
                out.push(c);
            }
        }
        chunk.invalid().iter().for_each(|byte| raw(&mut out, *byte));
    }
    out
}

/// The bytes of a name [`decode_name`] made.
fn name_bytes(name: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(name.len());
    for c in name.chars() {
        match u32::from(c).checked_sub(RAW_BYTE_BASE) {
            Some(byte) if byte <= 0xff => out.push(byte as u8),
            _ => out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes()),
        }
    }
    out
}

/// Whether a character of a name cannot be shown as it is: a control (a
/// line break would pose as the next line of a list), one that turns the
/// text's direction (it would show the name reversed), or one that stands
/// for a byte that is not UTF-8.
fn unshowable(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
        || u32::from(c) >= RAW_BYTE_BASE
}

/// A file name as the engine shows and sends it, the one way everywhere
/// (the window, the command line, `--json`): as it is, unless it holds a
/// character that cannot be shown as it is (`unshowable`: a control, a
/// direction control, a byte that is not UTF-8) or starts with `"`; then in
/// git's quoted form: between double quotes, `\"`, `\\`, `\n`, `\t`, `\r`, and every other
/// control byte or byte past ASCII as `\` and three octal digits. Nothing
/// is lost: a name that starts with `"` is always quoted, and the quoted
/// form gives back its bytes.
pub fn shown_name(name: &str) -> String {
    if !name.starts_with('"') && !name.chars().any(unshowable) {
        return name.to_owned();
    }
    let mut out = String::from("\"");
    for byte in name_bytes(name) {
        match byte {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b'\n' => out.push_str("\\n"),
            b'\t' => out.push_str("\\t"),
            b'\r' => out.push_str("\\r"),
            0x20..=0x7e => out.push(byte as char),
            _ => out.push_str(&format!("\\{byte:03o}")),
        }
    }
    out.push('"');
    out
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

/// An operation git has under way in one checkout of a repository, which a
/// branch moved under it would break.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operation {
    Rebase,
    Bisect,
    Merge,
    Revert,
    CherryPick,
    Am,
}

impl Operation {
    /// How the sentence says it: "main is being …".
    fn being(self) -> &'static str {
        match self {
            Operation::Rebase => "rebased",
            Operation::Bisect => "bisected",
            Operation::Merge => "merged into",
            Operation::Revert => "reverted on",
            Operation::CherryPick => "cherry-picked onto",
            Operation::Am => "patched by git am",
        }
    }

    /// The git command that ends it.
    fn command(self) -> &'static str {
        match self {
            Operation::Rebase => "git rebase --continue or --abort",
            Operation::Bisect => "git bisect reset",
            Operation::Merge => "git merge --continue or --abort",
            Operation::Revert => "git revert --continue or --abort",
            Operation::CherryPick => "git cherry-pick --continue or --abort",
            Operation::Am => "git am --continue or --abort",
        }
    }
}

/// An operation under way in one checkout: on which branch, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Underway {
    pub operation: Operation,
    /// The branch it works on (a rebase's or bisection's, which left HEAD
    /// detached: the one it started from); none when unknown or detached.
    pub branch: Option<String>,
    pub folder: PathBuf,
}

/// Why a merge into `base` must wait (pure): an operation under way on
/// `base` in any checkout of the repository; one on another branch (an
/// agent rebasing its own) does not stop it.
pub fn base_busy(base: &str, underway: &[Underway]) -> Option<String> {
    let busy = underway.iter().find(|u| u.branch.as_deref() == Some(base))?;
    Some(format!(
        "{base} is being {} in {}; merging now would move {base} under it. Finish it there ({}), then merge again",
        busy.operation.being(),
        busy.folder.display(),
        busy.operation.command()
    ))
}

/// Every operation under way in the checkouts of the repository at `root`
/// (its main checkout and every worktree), read from git's own files in
/// the repository's git directories.
pub fn underway(root: &Path) -> Result<Vec<Underway>, GitError> {
    let common = PathBuf::from(text(git(root, &["rev-parse", "--path-format=absolute", "--git-common-dir"])?));
    let main_folder = text(git(root, &["rev-parse", "--show-toplevel"])?);
    let mut dirs = vec![(common.clone(), PathBuf::from(main_folder))];
    if let Ok(entries) = std::fs::read_dir(common.join("worktrees")) {
        for dir in entries.flatten().map(|e| e.path()) {
            let folder = std::fs::read_to_string(dir.join("gitdir"))
                .ok()
                .and_then(|named| Path::new(named.trim_end()).parent().map(Path::to_path_buf))
                .unwrap_or_else(|| dir.clone());
            dirs.push((dir, folder));
        }
    }
    let read = |path: PathBuf| std::fs::read_to_string(path).ok().map(|t| t.trim().to_owned());
    let branch_of = |named: Option<String>| {
        named
            .map(|n| n.strip_prefix("ref: ").unwrap_or(&n).to_owned())
            .and_then(|n| n.strip_prefix("refs/heads/").map(str::to_owned))
    };
    let mut found = Vec::new();
    for (dir, folder) in dirs {
        let head = branch_of(read(dir.join("HEAD")));
        let rebasing = read(dir.join("rebase-merge/head-name")).or_else(|| read(dir.join("rebase-apply/head-name")));
        let mut push = |operation, branch| found.push(Underway { operation, branch, folder: folder.clone() });
        if dir.join("rebase-apply/applying").exists() {
            push(Operation::Am, head.clone());
        } else if rebasing.is_some() {
            push(Operation::Rebase, branch_of(rebasing));
        }
        if let Some(start) = read(dir.join("BISECT_START")) {
            // The branch it started from, short; a commit when it was detached.
            push(Operation::Bisect, Some(start.strip_prefix("refs/heads/").unwrap_or(&start).to_owned()));
        }
        if dir.join("MERGE_HEAD").exists() {
            push(Operation::Merge, head.clone());
        }
        let todo = read(dir.join("sequencer/todo")).unwrap_or_default();
        if dir.join("REVERT_HEAD").exists() || todo.starts_with("revert") {
            push(Operation::Revert, head.clone());
        } else if dir.join("CHERRY_PICK_HEAD").exists() || dir.join("sequencer").is_dir() {
            push(Operation::CherryPick, head.clone());
        }
    }
    Ok(found)
}

/// Merges `branch` into `base` in the repository at `root` without touching
/// any folder until the merge is known to land: git works the merge out
/// apart (`merge-tree`), a conflict changes nothing, and the base branch
/// moves (forward when it can, else by a merge commit with `message`). When
/// the base is checked out in the user's folder, that folder moves with it
/// only as a fast-forward git checks against the user's own changes there.
pub fn merge(root: &Path, apart: &Path, base: &str, branch: &str, message: &str) -> Result<Merged, GitError> {
    if let Some(why) = base_busy(base, &underway(root)?) {
        return Ok(Merged::InTheWay { why });
    }
    let base_commit = text(git(root, &["rev-parse", "--verify", &format!("refs/heads/{base}^{{commit}}")])?);
    let branch_commit = text(git(root, &["rev-parse", "--verify", &format!("refs/heads/{branch}^{{commit}}")])?);
    let (fast_forward, _) = git_status(root, &["merge-base", "--is-ancestor", &base_commit, &branch_commit])?;
    let commit = if fast_forward {
        branch_commit
    } else {
        let (clean, out) = git_status(
            root,
            &["merge-tree", "--write-tree", "--name-only", "--no-messages", "-z", &base_commit, &branch_commit],
        )?;
        // `-z`: the tree, then each conflicting file's name, each ended by a NUL.
        let mut fields = out.split(|b| *b == 0);
        let tree = String::from_utf8_lossy(fields.next().unwrap_or_default()).trim().to_owned();
        if !clean {
            let files = fields
                .take_while(|name| !name.is_empty())
                .map(|name| shown_name(&decode_name(name)))
                .collect::<Vec<_>>();
            if files.is_empty() {
                return Err(GitError::Failed { what: "merge-tree".into(), why: String::from_utf8_lossy(&out).into() });
            }
            return Ok(Merged::Conflict { files });
        }
        text(git(root, &["commit-tree", &tree, "-p", &base_commit, "-p", &branch_commit, "-m", message])?)
    };
    // Where the base is checked out: the user's main checkout, or a linked
    // worktree of theirs; never moved under it except as a fast-forward git
    // checks against that folder's own changes.
    let checkout = if repository_of(root).ok().and_then(|repo| repo.branch).as_deref() == Some(base) {
        Some(root.to_path_buf())
    } else {
        list(root)?.into_iter().find(|listed| !listed.missing && listed.branch.as_deref() == Some(base)).map(|l| l.path)
    };
    match checkout {
        // An agent checked the base out in its worktree: git is not run
        // through its folder, and its checkout is not moved under it.
        Some(folder) if folder.starts_with(apart) => {
            let why = format!(
                "{base} is checked out in an agent's worktree ({}); switch it to its own branch, then merge again",
                folder.display()
            );
            return Ok(Merged::InTheWay { why });
        }
        Some(folder) => {
            // The user's folder follows, or nothing moves.
            let (moved, _) = git_status(folder.as_path(), &["merge", "--quiet", "--ff-only", &commit])?;
            if !moved {
                let why = "your own uncommitted changes in the same files are in the way; commit or stash them, then \
                           merge again";
                return Ok(Merged::InTheWay { why: why.into() });
            }
        }
        None => {
            git(root, &["update-ref", &format!("refs/heads/{base}"), &commit, &base_commit])?;
        }
    }
    Ok(Merged::Landed { commit, fast_forward })
}

/// How a rebase went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Rebased {
    /// The worktree's commits now sit on the base as it is now.
    Done,
    /// They meet the base's new commits in these files: the rebase was
    /// undone, the worktree is as it was.
    Conflict { files: Vec<String> },
}

/// Replays the worktree's commits onto `base` as it is now (after another
/// task merged, say). Uncommitted work is committed first with `message`;
/// a conflict undoes the rebase and names the files, never forcing.
pub fn rebase(path: &Checkout, base: &str, message: &str) -> Result<Rebased, GitError> {
    commit_all(path, message)?;
    let (done, _) = git_status(path, &["rebase", "--quiet", base])?;
    if done {
        return Ok(Rebased::Done);
    }
    let files = git(path, &["diff", "--no-ext-diff", "--no-textconv", "--name-only", "--diff-filter=U", "-z"])?
        .split(|b| *b == 0)
        .filter(|f| !f.is_empty())
        .map(|f| shown_name(&decode_name(f)))
        .collect::<Vec<_>>();
    git(path, &["rebase", "--abort"])?;
    if files.is_empty() {
        return Err(GitError::Failed { what: "rebase".into(), why: "it stopped with no conflicting file".into() });
    }
    Ok(Rebased::Conflict { files })
}

/// Whether everything on `branch` is on `base` already.
pub fn is_merged(repository: &Path, branch: &str, base: &str) -> Result<bool, GitError> {
    let (merged, _) = git_status(
        repository,
        &["merge-base", "--is-ancestor", &format!("refs/heads/{branch}"), &format!("refs/heads/{base}")],
    )?;
    Ok(merged)
}

/// How the last task in a worktree ended, as its state tells it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum LastTask {
    /// It completed, or none ended yet.
    #[default]
    Done,
    /// It failed or ran out of time (why, in words, when known).
    Failed(Option<String>),
    /// It was cancelled, or cut short when the app stopped.
    Stopped(Option<String>),
}

/// A worktree's state, as the user reads it: one model for every way a
/// worktree can be, each with what it knows ([`WorktreeState::words`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WorktreeState {
    /// Its folder is gone.
    FolderMissing,
    /// git can no longer be run there or asked what it changed.
    Broken(Broken),
    /// Its agent is at work in it.
    Working,
    Merged,
    /// Its last task failed: what it holds may be half done.
    TaskFailed {
        why: Option<String>,
    },
    /// Its last task was stopped before it finished.
    TaskStopped {
        why: Option<String>,
    },
    /// Merging it into its base now would meet a conflict in these files
    /// (its agent can resolve them: "Resolve with the agent").
    ConflictsWithBase {
        files: Vec<String>,
    },
    /// Another open worktree changes the same lines (the radar).
    Overlapping,
    /// Its base moved on by these many commits since it was made: it merges
    /// cleanly, and can be rebased first.
    Behind {
        commits: u32,
    },
    /// Work is done and merges cleanly into its base as it is.
    ReadyToMerge,
}

/// The longest reason a state quotes (a task's failure), in characters.
const MAX_STATE_WHY_CHARS: usize = 160;

impl WorktreeState {
    /// The state in words, the same in the window, the command line and
    /// notifications (`base`: the branch it merges into).
    pub fn words(&self, base: &str) -> String {
        let why = |why: &Option<String>| match why.as_deref().map(str::trim).filter(|w| !w.is_empty()) {
            Some(why) if why.chars().count() > MAX_STATE_WHY_CHARS => {
                format!(": {}…", why.chars().take(MAX_STATE_WHY_CHARS).collect::<String>())
            }
            Some(why) => format!(": {why}"),
            None => String::new(),
        };
        match self {
            WorktreeState::FolderMissing => "its folder is gone".into(),
            WorktreeState::Broken(Broken::Tampered(_)) => {
                "tampered with: its .git file was changed, so git is not run there".into()
            }
            WorktreeState::Broken(Broken::BranchGone) => "its branch was deleted".into(),
            WorktreeState::Broken(Broken::Unsafe(_)) => {
                "git is not run there: its repository defines a filter or merge driver".into()
            }
            WorktreeState::Working => "its agent is at work".into(),
            WorktreeState::Merged => "merged".into(),
            WorktreeState::TaskFailed { why: reason } => format!("its task failed{}", why(reason)),
            WorktreeState::TaskStopped { why: reason } => {
                format!("its task was stopped before it finished{}", why(reason))
            }
            WorktreeState::ConflictsWithBase { files } => match files.as_slice() {
                [one] => format!("conflicts with {base} now in {one}"),
                files => format!("conflicts with {base} now in {} files", files.len()),
            },
            WorktreeState::Overlapping => "changes files other work changes".into(),
            WorktreeState::Behind { commits: 1 } => format!("{base} moved on by 1 commit; it merges cleanly"),
            WorktreeState::Behind { commits } => format!("{base} moved on by {commits} commits; it merges cleanly"),
            WorktreeState::ReadyToMerge => "ready to merge".into(),
        }
    }
}

/// What is known of a worktree, for [`state_of`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StateFacts {
    pub folder_missing: bool,
    pub broken: Option<Broken>,
    pub agent_at_work: bool,
    pub merged: bool,
    pub last_task: LastTask,
    /// The files a merge into the base would conflict in now.
    pub base_conflict: Vec<String>,
    /// Another open worktree changes the same lines.
    pub overlapping: bool,
    /// Commits on the base since the worktree's branch left it.
    pub behind: u32,
}

/// What the facts about a worktree make its state (pure): a missing folder
/// first, then a broken worktree (whatever its agent does), then work under
/// way, merged, its task's failure or stop (what it holds may be half done),
/// a conflict with the base, other work on the same lines, a base that
/// moved on, ready.
pub fn state_of(facts: StateFacts) -> WorktreeState {
    match facts {
        StateFacts { folder_missing: true, .. } => WorktreeState::FolderMissing,
        StateFacts { broken: Some(broken), .. } => WorktreeState::Broken(broken),
        StateFacts { agent_at_work: true, .. } => WorktreeState::Working,
        StateFacts { merged: true, .. } => WorktreeState::Merged,
        StateFacts { last_task: LastTask::Failed(why), .. } => WorktreeState::TaskFailed { why },
        StateFacts { last_task: LastTask::Stopped(why), .. } => WorktreeState::TaskStopped { why },
        StateFacts { base_conflict, .. } if !base_conflict.is_empty() => {
            WorktreeState::ConflictsWithBase { files: base_conflict }
        }
        StateFacts { overlapping: true, .. } => WorktreeState::Overlapping,
        StateFacts { behind, .. } if behind > 0 => WorktreeState::Behind { commits: behind },
        _ => WorktreeState::ReadyToMerge,
    }
}

/// What merging a worktree into its base would meet now.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AgainstBase {
    /// Commits on the base since the worktree's branch left it.
    pub behind: u32,
    /// The files that would conflict (none when it merges cleanly).
    pub conflicts: Vec<String>,
}

/// What merging the worktree at `path` into `base` would meet now, its
/// uncommitted work included (as a merge commits it first): worked out
/// apart (`merge-tree`) from a tree of its files made through a temporary
/// index, so neither its index nor any branch changes.
pub fn against_base(path: &Checkout, base: &str) -> Result<AgainstBase, GitError> {
    let base_ref = format!("refs/heads/{base}");
    let behind: u32 = text(git(path, &["rev-list", "--count", &format!("HEAD..{base_ref}")])?).parse().unwrap_or(0);
    if behind == 0 {
        return Ok(AgainstBase::default());
    }
    // A scratch index beside the worktree's own, in git's directory for it
    // (never in the agent's folder), one per check, removed after.
    static CHECKS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let number = CHECKS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let index = path.git_dir.join(format!("switchboard-check-{}-{number}.index", std::process::id()));
    let tree = scratch_tree(path, &index);
    if let Err(error) = std::fs::remove_file(&index)
        && error.kind() != std::io::ErrorKind::NotFound
    {
        tracing::warn!(%error, index = %index.display(), "a scratch index could not be removed");
    }
    let tree = tree?;
    let work = text(git(path, &["commit-tree", &tree, "-p", "HEAD", "-m", "the worktree as it stands"])?);
    let base_commit = text(git(path, &["rev-parse", "--verify", &format!("{base_ref}^{{commit}}")])?);
    let (clean, out) =
        git_status(path, &["merge-tree", "--write-tree", "--name-only", "--no-messages", "-z", &base_commit, &work])?;
    if clean {
        return Ok(AgainstBase { behind, conflicts: Vec::new() });
    }
    let mut fields = out.split(|b| *b == 0);
    fields.next();
    let conflicts: Vec<String> =
        fields.take_while(|name| !name.is_empty()).map(|name| shown_name(&decode_name(name))).collect();
    if conflicts.is_empty() {
        return Err(GitError::Failed { what: "merge-tree".into(), why: String::from_utf8_lossy(&out).into() });
    }
    Ok(AgainstBase { behind, conflicts })
}

/// The tree of the worktree's files as they stand (its uncommitted and
/// untracked work in, the app's own files out), made through the scratch
/// index at `index`.
fn scratch_tree(path: &Checkout, index: &Path) -> Result<String, GitError> {
    // Its own index as the start (git then rereads only changed files), or HEAD's.
    if std::fs::copy(path.git_dir.join("index"), index).is_err() {
        git_with_index(path, index, &["read-tree", "HEAD"])?;
    }
    git_with_index(path, index, &["add", "--all"])?;
    let mut reset = vec!["reset", "--quiet", "--"];
    reset.extend(APP_PATHS.iter().map(|own| own.trim_end_matches('/')));
    // A path no commit has is left as it is; the others go back to HEAD's.
    git_status_with_index(path, index, &reset)?;
    Ok(text(git_with_index(path, index, &["write-tree"])?))
}

fn git_with_index(path: &Checkout, index: &Path, args: &[&str]) -> Result<Vec<u8>, GitError> {
    let output = command(path).env("GIT_INDEX_FILE", index).args(args).output().map_err(GitError::NotRun)?;
    if output.status.success() {
        Ok(output.stdout)
    } else {
        let what = args.first().copied().unwrap_or_default().to_owned();
        Err(GitError::Failed { what, why: String::from_utf8_lossy(&output.stderr).trim().to_owned() })
    }
}

fn git_status_with_index(path: &Checkout, index: &Path, args: &[&str]) -> Result<bool, GitError> {
    let output = command(path).env("GIT_INDEX_FILE", index).args(args).output().map_err(GitError::NotRun)?;
    Ok(output.status.success())
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

/// What the worktree at `path` changed against `base`, committed or not,
/// untracked files included, the app's own files left out; sorted by path.
pub fn changes(path: &Checkout, base: &str) -> Result<Vec<FileChange>, GitError> {
    changes_with(path, base, &untracked(path)?)
}

/// The files git does not track yet (and does not ignore), the app's own
/// left out: what both [`changes`] and [`hunks`] add to git's diff.
pub fn untracked(path: &Checkout) -> Result<Vec<String>, GitError> {
    Ok(git(path, &["ls-files", "--others", "--exclude-standard", "-z"])?
        .split(|b| *b == 0)
        .filter(|f| !f.is_empty())
        .map(decode_name)
        .filter(|f| !is_app_path(f))
        .collect())
}

/// [`changes`], with the untracked files already listed.
pub fn changes_with(path: &Checkout, base: &str, untracked: &[String]) -> Result<Vec<FileChange>, GitError> {
    // Tracked files, the base against the working tree, renames found: in
    // one run, each file's status (`--raw`) then its line counts.
    let out = git(path, &["diff", "--no-ext-diff", "--no-textconv", "--raw", "--numstat", "-z", "-M", base, "--"])?;
    let mut changes = parse_diff(&out);
    for file in untracked {
        let binary = looks_binary(path.path(), file);
        changes.push(FileChange { path: file.clone(), from: None, kind: ChangeKind::Added, binary });
    }
    changes.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(changes)
}

/// The files of `git diff --raw --numstat -z -M` output (pure): each file's
/// status (`--raw`), binary where `--numstat` counts no lines for it; the
/// app's own left out.
fn parse_diff(out: &[u8]) -> Vec<FileChange> {
    let mut changes = Vec::new();
    let mut fields = out.split(|b| *b == 0).map(decode_name);
    let mut binary = Vec::new();
    while let Some(field) = fields.next() {
        if field.is_empty() {
            continue;
        }
        if let Some(raw) = field.strip_prefix(':') {
            // ":modes hashes STATUS", then the path (a rename: from, then to).
            let code = raw.rsplit(' ').next().unwrap_or_default();
            let (kind, from) = match code.chars().next() {
                Some('A') => (ChangeKind::Added, None),
                Some('D') => (ChangeKind::Deleted, None),
                Some('R') => (ChangeKind::Renamed, fields.next()),
                // Modified, type changed, copied: a change to that file.
                _ => (ChangeKind::Modified, None),
            };
            let Some(file) = fields.next() else { break };
            if !is_app_path(&file) {
                changes.push(FileChange { path: file, from, kind, binary: false });
            }
        } else {
            // "added\tdeleted\tpath", or for a rename "added\tdeleted\t", then from, then to.
            let mut parts = field.splitn(3, '\t');
            let (added, deleted, file) = (parts.next(), parts.next(), parts.next());
            let file = match file {
                Some("") => {
                    fields.next();
                    fields.next()
                }
                other => other.map(str::to_owned),
            };
            if (added, deleted) == (Some("-"), Some("-"))
                && let Some(file) = file
            {
                binary.push(file);
            }
        }
    }
    for change in &mut changes {
        change.binary = binary.contains(&change.path);
    }
    changes
}

/// The base's lines each file the worktree at `path` changed touches (for
/// the conflict radar), untracked files as added ones, the app's own left out.
pub fn hunks(path: &Checkout, base: &str) -> Result<Vec<radar::FileHunks>, GitError> {
    hunks_with(path, base, &untracked(path)?)
}

/// [`hunks`], with the untracked files already listed.
pub fn hunks_with(path: &Checkout, base: &str, untracked: &[String]) -> Result<Vec<radar::FileHunks>, GitError> {
    let excluded: Vec<String> = APP_PATHS.iter().map(|own| format!(":(exclude){own}")).collect();
    let mut args = vec!["diff", "-U0", "-M", "--no-color", "--no-ext-diff", "--no-textconv", base, "--", "."];
    args.extend(excluded.iter().map(String::as_str));
    let mut files = radar::parse_hunks(&String::from_utf8_lossy(&git(path, &args)?));
    files.extend(untracked.iter().map(|file| radar::FileHunks { path: file.clone(), hunks: None }));
    Ok(files)
}

/// Writes everything the worktree at `path` changed against `base` as one
/// patch at `patch` (binary files included, untracked ones too, the app's
/// own files left out), which `git apply` takes back onto the base. The
/// worktree's untracked files are marked as intended for adding (its own
/// index, not the user's checkout).
pub fn save_patch(path: &Checkout, base: &str, patch: &Path) -> Result<(), GitError> {
    let mut excluded: Vec<String> = APP_PATHS.iter().map(|own| format!(":(exclude){own}")).collect();
    stage_all(path, true)?;
    let mut diff = vec![
        "diff".to_owned(),
        "--no-ext-diff".into(),
        "--no-textconv".into(),
        "--binary".into(),
        "-M".into(),
        base.into(),
        "--".into(),
        ".".into(),
    ];
    diff.append(&mut excluded);
    let diff: Vec<&str> = diff.iter().map(String::as_str).collect();
    let bytes = git(path, &diff)?;
    crate::private::write(patch, bytes).map_err(|error| GitError::Failed {
        what: "diff".into(),
        why: format!("the patch could not be kept at {}: {error}", patch.display()),
    })
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

/// The commit the worktree's work starts from: where its branch left the
/// base (the base may have moved on since).
pub fn fork_point(path: &Checkout, base: &str) -> Result<String, GitError> {
    Ok(text(git(path, &["merge-base", &format!("refs/heads/{base}"), "HEAD"])?))
}

pub use switchboard_api::MAX_SHOWN_FILE;

/// Every change of the worktree at `path` against the commit `from`, as the
/// Changes view shows it: each text file before and now with its unified
/// diff, binary and too large files named; the app's own files left out.
/// The files now are the agent's: read the one guarded way, capped. git
/// runs twice whatever the number of files (the base's side of them all is
/// read in one batch); the unified diffs are made here.
pub fn diff_files(
    path: &Checkout,
    from: &str,
    changes: &[FileChange],
) -> Result<Vec<switchboard_api::FileDiff>, GitError> {
    use switchboard_api::{DiffContent, FileDiff, FileStatus};
    let files = crate::workspace::Workspace::open(path.path()).map_err(|error| GitError::Failed {
        what: "diff".into(),
        why: format!("the worktree cannot be read: {error}"),
    })?;
    let old_path = |change: &FileChange| change.from.clone().unwrap_or_else(|| change.path.clone());
    let wanted: Vec<String> =
        changes.iter().filter(|c| !c.binary && c.kind != ChangeKind::Added).map(old_path).collect();
    let mut before_of = blobs(path, from, &wanted)?;
    let mut out = Vec::with_capacity(changes.len());
    for change in changes {
        let status = match change.kind {
            ChangeKind::Added => FileStatus::Added,
            ChangeKind::Modified => FileStatus::Modified,
            ChangeKind::Deleted => FileStatus::Deleted,
            ChangeKind::Renamed => FileStatus::Renamed,
        };
        let content = if change.binary {
            DiffContent::Binary
        } else {
            let old = old_path(change);
            let before = match change.kind {
                ChangeKind::Added => Blob::Text(String::new()),
                _ => before_of.remove(&old).unwrap_or(Blob::Text(String::new())),
            };
            let after = match change.kind {
                ChangeKind::Deleted => {
                    Ok(Some(crate::workspace::Capped { text: String::new(), size: 0, truncated: false }))
                }
                _ => files.read_if_there(&change.path, MAX_SHOWN_FILE as usize),
            };
            match (before, after) {
                (Blob::Text(before), Ok(Some(after))) if !after.truncated => {
                    // Named as git names them: quoted where a name is not shown as it is.
                    let (a, b) = match change.kind {
                        ChangeKind::Added => ("/dev/null".to_owned(), shown_name(&format!("b/{}", change.path))),
                        ChangeKind::Deleted => (shown_name(&format!("a/{old}")), "/dev/null".to_owned()),
                        _ => (shown_name(&format!("a/{old}")), shown_name(&format!("b/{}", change.path))),
                    };
                    let unified = similar::TextDiff::from_lines(&before, &after.text)
                        .unified_diff()
                        .context_radius(3)
                        .header(&a, &b)
                        .to_string();
                    DiffContent::Text { before, after: after.text, unified }
                }
                (Blob::Binary, _) => DiffContent::Binary,
                (before, after) => {
                    let before = if let Blob::TooLarge(bytes) = before { bytes } else { 0 };
                    let after = match after {
                        Ok(Some(after)) => after.size,
                        _ => 0,
                    };
                    DiffContent::TooLarge { bytes: before.max(after) }
                }
            }
        };
        out.push(FileDiff {
            path: shown_name(&change.path),
            from: change.from.as_deref().map(shown_name),
            status,
            content,
        });
    }
    Ok(out)
}

/// A file as the base has it.
enum Blob {
    Text(String),
    Binary,
    TooLarge(u64),
}

/// The base's side of `files` at `commit`, read in two git runs (sizes,
/// then the contents of those not past [`MAX_SHOWN_FILE`]); a file the
/// commit lacks is left out.
fn blobs(path: &Checkout, commit: &str, files: &[String]) -> Result<std::collections::HashMap<String, Blob>, GitError> {
    let mut out = std::collections::HashMap::new();
    // A name with a line break cannot be asked for a line at a time: alone.
    let (odd, files): (Vec<&String>, Vec<&String>) = files.iter().partition(|f| f.contains('\n'));
    for file in odd {
        if let Ok(bytes) = git(path, &["cat-file", "blob", &format!("{commit}:{file}")]) {
            let blob = match bytes.len() as u64 {
                size if size > MAX_SHOWN_FILE => Blob::TooLarge(size),
                _ if bytes.contains(&0) => Blob::Binary,
                _ => Blob::Text(String::from_utf8_lossy(&bytes).into_owned()),
            };
            out.insert(file.clone(), blob);
        }
    }
    if files.is_empty() {
        return Ok(out);
    }
    let names: Vec<String> = files.iter().map(|f| format!("{commit}:{f}")).collect();
    let sizes = batch(path, "--batch-check=%(objectsize)", &names)?;
    let mut small = Vec::new();
    for (file, line) in files.iter().zip(String::from_utf8_lossy(&sizes).lines()) {
        match line.trim().parse::<u64>() {
            Ok(size) if size > MAX_SHOWN_FILE => {
                out.insert((*file).clone(), Blob::TooLarge(size));
            }
            Ok(_) => small.push((*file).clone()),
            // "… missing": the base has no such file.
            Err(_) => {}
        }
    }
    let names: Vec<String> = small.iter().map(|f| format!("{commit}:{f}")).collect();
    let contents = batch(path, "--batch=%(objectsize)", &names)?;
    let mut rest = contents.as_slice();
    for file in small {
        let Some(end) = rest.iter().position(|b| *b == b'\n') else { break };
        let size: usize = String::from_utf8_lossy(&rest[..end]).trim().parse().unwrap_or(0);
        let body = rest.get(end + 1..end + 1 + size).unwrap_or_default();
        let blob =
            if body.contains(&0) { Blob::Binary } else { Blob::Text(String::from_utf8_lossy(body).into_owned()) };
        out.insert(file, blob);
        rest = rest.get(end + 1 + size + 1..).unwrap_or_default();
    }
    Ok(out)
}

/// Runs `git cat-file <mode>` with `names` on its input, one a line.
fn batch(path: &Checkout, mode: &str, names: &[String]) -> Result<Vec<u8>, GitError> {
    use std::io::Write;
    let mut child = command(path)
        .args(["cat-file", mode])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .map_err(GitError::NotRun)?;
    let mut input = child.stdin.take().expect("piped");
    let lines: String = names.iter().map(|n| format!("{n}\n")).collect();
    // Written beside the reading: a long list would fill both pipes.
    let writer = std::thread::spawn(move || input.write_all(lines.as_bytes()));
    let output = child.wait_with_output().map_err(GitError::NotRun)?;
    match writer.join() {
        Ok(Ok(())) => {}
        // git stopped reading (it failed, said below) or the writer died.
        Ok(Err(error)) => tracing::debug!(%error, "the names could not all be given to git cat-file"),
        Err(_) => tracing::warn!("the writer of names to git cat-file panicked"),
    }
    if !output.status.success() {
        return Err(GitError::Failed { what: "cat-file".into(), why: "it could not read the base's files".into() });
    }
    Ok(output.stdout)
}

/// Whether a file's first 8 KiB hold a NUL byte, as git judges text. The
/// agent wrote it: read the one guarded way (inside the worktree, no link
/// out, a regular file only, capped); one that may not be read is not shown
/// as text either.
fn looks_binary(worktree: &Path, file: &str) -> bool {
    match crate::workspace::Workspace::open(worktree).and_then(|w| w.read(file, 8192)) {
        Ok(start) => start.text.contains('\0'),
        Err(_) => true,
    }
}

#[cfg(test)]
mod tests {
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
