//! A repository's setup command, run in each new worktree (installing
//! dependencies, copying `.env`): its output kept for the task's timeline.

use std::path::Path;
use std::process::Stdio;

use tokio::io::{AsyncRead, AsyncReadExt};

/// The end of a setup command's output the timeline keeps.
pub const SETUP_OUTPUT_CAP: usize = 16 * 1024;

/// How a setup command ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SetupRun {
    pub succeeded: bool,
    /// Its exit code; none when it could not start or a signal ended it.
    pub exit: Option<i32>,
    /// The end of what it printed (both streams, in order of arrival), or
    /// why it could not run.
    pub output: String,
}

/// Ends the command's whole process group when the run is dropped (the
/// task was cancelled, the engine stopped) before it ended.
struct Group(Option<i32>);

impl Drop for Group {
    fn drop(&mut self) {
        if let Some(pgid) = self.0.take() {
            let _ = nix::sys::signal::killpg(nix::unistd::Pid::from_raw(pgid), nix::sys::signal::Signal::SIGKILL);
        }
    }
}

/// Runs `command` with `sh -c` in `folder`, its standard input empty.
pub async fn run_setup(folder: &Path, command: &str) -> SetupRun {
    let spawned = tokio::process::Command::new("sh")
        .arg("-c")
        .arg(command)
        .current_dir(folder)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true)
        .spawn();
    let mut child = match spawned {
        Ok(child) => child,
        Err(error) => {
            return SetupRun {
                succeeded: false,
                exit: None,
                output: format!("the setup command could not start: {error}"),
            };
        }
    };
    let group = Group(child.id().map(|pid| pid as i32));
    let (stdout, stderr) = (child.stdout.take(), child.stderr.take());
    let tail = std::sync::Arc::new(std::sync::Mutex::new(Tail::default()));
    let readers = tokio::spawn(collect(stdout, stderr, tail.clone()));
    let status = child.wait().await;
    // What it left running in the background ends with it (and lets go of
    // its output).
    drop(group);
    let _ = readers.await;
    let output = tail.lock().map(|tail| tail.text()).unwrap_or_default();
    match status {
        Ok(status) => SetupRun { succeeded: status.success(), exit: status.code(), output },
        Err(error) => SetupRun { succeeded: false, exit: None, output: format!("{output}\n{error}") },
    }
}

async fn collect(
    stdout: Option<tokio::process::ChildStdout>,
    stderr: Option<tokio::process::ChildStderr>,
    tail: std::sync::Arc<std::sync::Mutex<Tail>>,
) {
    tokio::join!(collect_one(stdout, tail.clone()), collect_one(stderr, tail));
}

async fn collect_one(stream: Option<impl AsyncRead + Unpin>, tail: std::sync::Arc<std::sync::Mutex<Tail>>) {
    let Some(mut stream) = stream else { return };
    let mut buffer = [0u8; 8192];
    while let Ok(n) = stream.read(&mut buffer).await {
        if n == 0 {
            break;
        }
        if let Ok(mut tail) = tail.lock() {
            tail.push(&buffer[..n]);
        }
    }
}

/// The last [`SETUP_OUTPUT_CAP`] bytes, and whether anything was cut.
#[derive(Default)]
struct Tail {
    bytes: std::collections::VecDeque<u8>,
    cut: bool,
}

impl Tail {
    fn push(&mut self, more: &[u8]) {
        self.bytes.extend(more);
        let over = self.bytes.len().saturating_sub(SETUP_OUTPUT_CAP);
        if over > 0 {
            self.bytes.drain(..over);
            self.cut = true;
        }
    }

    fn text(&self) -> String {
        let (a, b) = self.bytes.as_slices();
        let text = String::from_utf8_lossy(&[a, b].concat()).into_owned();
        if self.cut { format!("…(earlier output cut)\n{text}") } else { text }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_setup_command_runs_in_the_folder_and_its_output_and_exit_are_kept() {
        let dir = tempfile::tempdir().unwrap();
        let ran = run_setup(dir.path(), "pwd; echo oops >&2; touch made").await;
        assert!(ran.succeeded, "{ran:?}");
        assert!(ran.output.contains(dir.path().file_name().unwrap().to_str().unwrap()), "{ran:?}");
        assert!(ran.output.contains("oops"));
        assert!(dir.path().join("made").exists());

        let failed = run_setup(dir.path(), "echo missing thing; exit 3").await;
        assert_eq!((failed.succeeded, failed.exit), (false, Some(3)));
        assert!(failed.output.contains("missing thing"));

        // What it leaves running in the background does not hold it up.
        let background = run_setup(dir.path(), "sleep 600 & echo started").await;
        assert!(background.succeeded && background.output.contains("started"), "{background:?}");
    }

    #[tokio::test]
    async fn a_setup_command_that_prints_without_end_keeps_only_its_last_part() {
        let dir = tempfile::tempdir().unwrap();
        let ran = run_setup(dir.path(), "i=0; while [ $i -lt 3000 ]; do echo line $i; i=$((i+1)); done").await;
        assert!(ran.succeeded);
        assert!(ran.output.len() <= SETUP_OUTPUT_CAP + 64, "{}", ran.output.len());
        assert!(ran.output.starts_with("…(earlier output cut)"));
        assert!(ran.output.trim_end().ends_with("line 2999"));
    }
}
