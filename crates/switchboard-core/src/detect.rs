//! Finding the agent CLIs the app has presets for (Claude Code, Codex) on
//! `PATH`, with their versions, so the window can offer each as a one-click
//! agent. What is found is looked up and run here; what a version is, is
//! decided by the pure [`parse_version`].
//!
//! `--version` is run with no input, its output read up to
//! [`MAX_VERSION_OUTPUT`], for at most [`VERSION_TIMEOUT`]; it runs in a
//! process group of its own, which is ended whatever it does (a CLI that
//! hangs or leaves a child behind costs at most that long, never the app).
//! Blocking: the engine calls it on a blocking thread.

use std::ffi::OsStr;
use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::LazyLock;
use std::sync::mpsc::RecvTimeoutError;
use std::time::{Duration, Instant};

use regex::Regex;

use switchboard_api::{CliFound, DetectedAgent};

/// How long a CLI's `--version` may take (Claude Code and Codex answer in
/// well under a second; a first start of a Node CLI on a cold disk, a few).
pub const VERSION_TIMEOUT: Duration = Duration::from_secs(5);
/// The most of a `--version`'s output read: a version is on its first line.
pub const MAX_VERSION_OUTPUT: u64 = 4 * 1024;
/// The longest version kept (a longer match is no version a person reads).
const MAX_VERSION_CHARS: usize = 64;

/// Every preset's CLI as found on `path_env`, looked up from `cwd` (for a
/// relative `PATH` entry), in the presets' order.
pub fn detect(path_env: Option<&OsStr>, cwd: &Path) -> Vec<DetectedAgent> {
    crate::presets::presets()
        .into_iter()
        .map(|preset| {
            let found = match which::which_in(&preset.command, path_env, cwd) {
                Ok(path) => CliFound::Installed {
                    version: version_output(&path).as_deref().and_then(parse_version),
                    path: path.display().to_string(),
                },
                Err(_) => CliFound::Missing,
            };
            DetectedAgent { preset, found }
        })
        .collect()
}

/// What `program --version` printed on its standard output within
/// [`VERSION_TIMEOUT`] (what it printed before the time ran out, if it
/// hangs after), up to [`MAX_VERSION_OUTPUT`]; none if it could not be run
/// or printed nothing in time.
fn version_output(program: &Path) -> Option<String> {
    let mut child = Command::new(program)
        .arg("--version")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .env("NO_COLOR", "1")
        // Its own group, so ending it ends whatever it started too.
        .process_group(0)
        .spawn()
        .inspect_err(|error| tracing::debug!(program = %program.display(), %error, "could not run --version"))
        .ok()?;
    let mut stdout = child.stdout.take().expect("stdout is piped");
    let (sender, received) = std::sync::mpsc::channel::<Vec<u8>>();
    std::thread::spawn(move || {
        let mut buf = [0u8; 1024];
        let mut total = 0;
        // Until its end, the cap, or a read error; the channel closes as this returns.
        while total < MAX_VERSION_OUTPUT as usize {
            match stdout.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => {
                    total += n;
                    // The caller may have stopped waiting: then no one needs the rest.
                    if sender.send(buf[..n].to_vec()).is_err() {
                        break;
                    }
                }
                Err(error) if error.kind() == std::io::ErrorKind::Interrupted => {}
                Err(error) => {
                    tracing::debug!(%error, "reading --version");
                    break;
                }
            }
        }
    });
    // What it printed until it closed its output, or until the time ran out.
    let deadline = Instant::now() + VERSION_TIMEOUT;
    let mut output = Vec::new();
    loop {
        match received.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
            Ok(chunk) => output.extend(chunk),
            Err(RecvTimeoutError::Disconnected) => break,
            Err(RecvTimeoutError::Timeout) => {
                tracing::info!(program = %program.display(), "--version did not finish in time");
                break;
            }
        }
    }
    output.truncate(MAX_VERSION_OUTPUT as usize);
    // Whatever is left of the group ends now; the child is reaped.
    let group = nix::unistd::Pid::from_raw(child.id() as i32);
    if let Err(error) = nix::sys::signal::killpg(group, nix::sys::signal::Signal::SIGKILL)
        && error != nix::errno::Errno::ESRCH
    {
        tracing::warn!(%error, "ending --version's process group");
    }
    if let Err(error) = child.wait() {
        tracing::warn!(%error, "waiting for --version");
    }
    (!output.is_empty()).then(|| String::from_utf8_lossy(&output).into_owned())
}

/// The version in what a CLI's `--version` printed: the first
/// dotted number (`2.1.329` in "2.1.329 (Claude Code)", `0.169.0` in
/// "codex-cli 0.169.0"), with a pre-release or build suffix if it has
/// one. None: no such number. Pure.
pub fn parse_version(output: &str) -> Option<String> {
    static VERSION: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?:^|[^\d.])(\d+(?:\.\d+)+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?)")
            .expect("the version pattern is valid")
    });
    let found = VERSION.captures(output)?.get(1)?.as_str();
    (found.chars().count() <= MAX_VERSION_CHARS).then(|| found.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_version_is_the_first_dotted_number_printed() {
        let cases: &[(&str, Option<&str>)] = &[
            ("2.1.329 (Claude Code)\n", Some("2.1.329")),
            ("codex-cli 0.169.0\n", Some("0.169.0")),
            ("codex-cli 0.170.0-alpha.2\n", Some("0.170.0-alpha.2")),
            ("tool v1.2.3+build.7", Some("1.2.3+build.7")),
            ("\x1b[1m3.4\x1b[0m", Some("3.4")),
            ("Claude Code\nversion 1.0.0\n", Some("1.0.0")),
            ("", None),
            ("no version here", None),
            ("built 2026 for x86_64", None),
            ("42", None),
            (&format!("1.{}", "2".repeat(80)), None),
        ];
        for (output, expected) in cases {
            assert_eq!(parse_version(output).as_deref(), *expected, "{output:?}");
        }
    }
}
