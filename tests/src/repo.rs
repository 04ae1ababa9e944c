//! Git repositories for the tests that need one: a command run in a folder,
//! and a fresh repository with its first commit.

use std::path::{Path, PathBuf};
use std::process::Command;

/// `git -C dir args…`, its output trimmed; the test fails when git does.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git").arg("-C").arg(dir).args(args).output().unwrap();
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).trim_end().to_owned()
}

/// A repository at `root/project` on `main`, holding `src/lib.rs` (`one()`
/// returns 1) and `files` (path, text), in one commit.
pub fn repository(root: &Path, files: &[(&str, &str)]) -> PathBuf {
    let repo = root.join("project");
    std::fs::create_dir_all(repo.join("src")).unwrap();
    git(&repo, &["init", "--quiet", "-b", "main"]);
    git(&repo, &["config", "user.email", "dev@example.com"]);
    git(&repo, &["config", "user.name", "Dev"]);
    std::fs::write(repo.join("src/lib.rs"), "pub fn one() -> u32 {\n    1\n}\n").unwrap();
    for (path, text) in files {
        std::fs::write(repo.join(path), text).unwrap();
    }
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "--quiet", "-m", "start"]);
    repo
}
