//! Running git: where it works, with the engine's safe settings and none of the user's pager, editor or prompts.

use super::GitError;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Settings every git run of the engine takes, over whatever a
/// configuration says: nothing git would start on its own (a file-system
/// monitor, hooks, a pager, an editor, ssh) runs, and submodules (a nested
/// repository an agent made has a configuration of its own) are not looked
/// into. The user's identity, signing, excludes and LFS are left as they are.
pub(super) const SAFE_CONFIG: &[&str] = &[
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
pub(super) const ENV_CLEARED: &[&str] = &[
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

/// `git` at `at`, with the engine's safe settings.
pub(super) fn command(at: &(impl GitPlace + ?Sized)) -> Command {
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
pub(super) fn git_status(at: &(impl GitPlace + ?Sized), args: &[&str]) -> Result<(bool, Vec<u8>), GitError> {
    let output = command(at).args(args).output().map_err(GitError::NotRun)?;
    Ok((output.status.success(), output.stdout))
}

/// Runs git with `args` at `at` and returns its standard output.
pub(super) fn git(at: &(impl GitPlace + ?Sized), args: &[&str]) -> Result<Vec<u8>, GitError> {
    let output = command(at).args(args).output().map_err(GitError::NotRun)?;
    if output.status.success() {
        Ok(output.stdout)
    } else {
        let what = args.first().copied().unwrap_or_default().to_owned();
        let why = String::from_utf8_lossy(&output.stderr).trim().to_owned();
        Err(GitError::Failed { what, why })
    }
}

pub(super) fn text(bytes: Vec<u8>) -> String {
    String::from_utf8_lossy(&bytes).trim_end().to_owned()
}
