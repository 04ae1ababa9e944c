//! Reaching an engine on another machine over SSH. OpenSSH carries the
//! connection, with the user's own keys, agent, known hosts and
//! `~/.ssh/config`: the client runs `ssh -T <destination> switchboard daemon
//! --stdio` and speaks the engine's protocol over that program's standard
//! input and output; on the host, `daemon --stdio` bridges to the daemon's
//! socket, starting the daemon (outside the SSH session) when none runs.
//!
//! `ssh` runs in batch mode: it never asks for a password or passphrase and
//! never accepts a host key it does not know (the user accepts one after
//! seeing it: [`scan_host_key`], [`accept_host_key`]); a host whose key
//! changed is refused with ssh's reason. What went wrong is read from ssh's
//! own words ([`SshProblem::from_stderr`]).

use std::path::PathBuf;
use std::process::Stdio;

use serde::{Deserialize, Serialize};
use tokio::io::AsyncReadExt;

use crate::{Client, ClientError, ClientKind};

/// The environment variable that names the ssh command to run instead of
/// `ssh` (with its options, split on spaces), as Git's `GIT_SSH_COMMAND`.
pub const SSH_COMMAND_ENV: &str = "SWITCHBOARD_SSH";

/// The program run on the host when the host names none.
pub const REMOTE_PROGRAM: &str = "switchboard";

/// The most of ssh's error output kept to tell what went wrong.
const MAX_STDERR_BYTES: usize = 16 * 1024;

/// A machine whose engine is reached over SSH, as the user names it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Host {
    /// What `ssh` is given: `user@host`, `host`, or an alias of the user's
    /// `~/.ssh/config`.
    pub destination: String,
    /// A port other than the one ssh would use.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub port: Option<u16>,
    /// The `switchboard` program on the host, when it is not on the login
    /// shell's `PATH` there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remote_program: Option<String>,
}

/// Why what the user wrote is not a host ssh can be given.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HostNameProblem {
    #[error("Name the host as ssh takes it: user@host, or an alias of your ssh config.")]
    Empty,
    #[error("“{0}” is not a host ssh can reach: one word, not starting with -.")]
    NotOneWord(String),
}

impl Host {
    /// A host from what the user wrote; refused when ssh would take it for
    /// an option or it is not one word.
    pub fn new(destination: &str) -> Result<Host, HostNameProblem> {
        let destination = destination.trim();
        if destination.is_empty() {
            return Err(HostNameProblem::Empty);
        }
        if destination.starts_with('-') || destination.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return Err(HostNameProblem::NotOneWord(destination.to_owned()));
        }
        Ok(Host { destination: destination.to_owned(), port: None, remote_program: None })
    }

    /// The arguments of `ssh` that run `remote` on the host: no terminal
    /// (it would mangle the bytes), batch mode, the port if given.
    pub fn ssh_args(&self, remote: &[String]) -> Vec<String> {
        let mut args: Vec<String> = ["-T", "-o", "BatchMode=yes"].map(String::from).to_vec();
        if let Some(port) = self.port {
            args.extend(["-p".to_owned(), port.to_string()]);
        }
        args.extend(["--".to_owned(), self.destination.clone()]);
        args.extend(remote.iter().cloned());
        args
    }

    /// The command line run on the host to reach its engine: the program
    /// one word of the host's shell whatever it holds ([`remote_word`]).
    fn remote_command(&self) -> Result<Vec<String>, SshProblem> {
        self.remote_program_with(&["daemon", "--stdio"])
    }

    /// The command line that runs the host's `switchboard` with `args`
    /// there: the program one word of the host's shell ([`remote_word`]);
    /// each argument, a word of ours, quoted the same way.
    fn remote_program_with(&self, args: &[&str]) -> Result<Vec<String>, SshProblem> {
        let refused = |why: ProgramRefused| SshProblem::RemoteProgram(why.to_string());
        let program = match &self.remote_program {
            Some(program) => remote_word(program).map_err(refused)?,
            None => REMOTE_PROGRAM.to_owned(),
        };
        let mut command = vec![program];
        for arg in args {
            command.push(
                shlex::try_quote(arg).map_err(|_| refused(ProgramRefused::ControlCharacter((*arg).into())))?.into(),
            );
        }
        Ok(command)
    }
}

/// Why a program named for the host is not run there.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProgramRefused {
    #[error("no program is named")]
    Empty,
    #[error("“{}” holds a control character (a line break, say), which no program's path there has", .0.escape_debug())]
    ControlCharacter(String),
}

/// The program a user named for the host (`--remote-program`) as one word
/// of the host's login shell, which is what ssh hands the command line to:
/// quoted, so a space in its path is part of the path and shell syntax in
/// it is never run; a leading `~/` is left unquoted, so the shell there
/// still finds it in the home folder. Refused when it is empty or holds a
/// control character.
pub fn remote_word(program: &str) -> Result<String, ProgramRefused> {
    if program.is_empty() {
        return Err(ProgramRefused::Empty);
    }
    if program.chars().any(char::is_control) {
        return Err(ProgramRefused::ControlCharacter(program.to_owned()));
    }
    let (home, rest) = match program.strip_prefix("~/") {
        Some(rest) => ("~/", rest),
        None => ("", program),
    };
    if rest.is_empty() {
        return Err(ProgramRefused::Empty);
    }
    // No NUL is left (a control character): quoting cannot fail.
    let quoted = shlex::try_quote(rest).map_err(|_| ProgramRefused::ControlCharacter(program.to_owned()))?;
    Ok(format!("{home}{quoted}"))
}

/// Why a host could not be reached, from what ssh said.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SshProblem {
    #[error("the host's key is not known yet: check it and accept it first")]
    UnknownHostKey,
    #[error(
        "the host presents another key than the one known for it: refused (it may have been \
         reinstalled, or someone may be in the middle); ssh said: {0}"
    )]
    ChangedHostKey(String),
    #[error("ssh could not sign in: {0}")]
    SignIn(String),
    #[error("the host cannot be reached: {0}")]
    Unreachable(Reach),
    #[error(
        "Switchboard is not installed on the host, or not on the PATH of its ssh commands: install \
         Switchboard {} there, or give the program's path there (host add --remote-program)",
        env!("CARGO_PKG_VERSION")
    )]
    NotInstalled,
    #[error("the program named for the host cannot be run there: {0}")]
    RemoteProgram(String),
    #[error("ssh failed: {0}")]
    Other(String),
}

impl SshProblem {
    /// What ssh's error output and exit status say went wrong.
    pub fn from_stderr(stderr: &str, status: Option<i32>) -> SshProblem {
        let last = stderr.lines().map(str::trim).rfind(|l| !l.is_empty()).unwrap_or("no reason given").to_owned();
        if stderr.contains("REMOTE HOST IDENTIFICATION HAS CHANGED") || stderr.contains("Host key for") {
            return SshProblem::ChangedHostKey(last);
        }
        if stderr.contains("Host key verification failed") {
            return SshProblem::UnknownHostKey;
        }
        if stderr.contains("Permission denied") || stderr.contains("Too many authentication failures") {
            return SshProblem::SignIn(last);
        }
        if status == Some(127) || stderr.contains("command not found") || stderr.contains("No such file or directory") {
            return SshProblem::NotInstalled;
        }
        let unreachable = [
            ("Connection refused", Reach::Refused),
            ("Could not resolve", Reach::UnknownName),
            ("timed out", Reach::TimedOut),
            ("No route to host", Reach::NoRoute),
            ("Network is", Reach::NoNetwork),
        ];
        if let Some((_, reach)) = unreachable.into_iter().find(|(words, _)| stderr.contains(words)) {
            return SshProblem::Unreachable(reach);
        }
        SshProblem::Other(last)
    }
}

/// Why a host could not be reached, in the user's words rather than ssh's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Reach {
    #[error("it refused the connection (is its ssh server running?)")]
    Refused,
    #[error("its name is not known here (check the name, or its alias in ~/.ssh/config)")]
    UnknownName,
    #[error("it did not answer in time (is it on, and on a network this computer reaches?)")]
    TimedOut,
    #[error("this computer has no route to it")]
    NoRoute,
    #[error("this computer's network is down")]
    NoNetwork,
    #[error("it offered no key to check it by")]
    NoKeyOffered,
}

/// The ssh program and its own options: [`SSH_COMMAND_ENV`] or `ssh`.
pub fn ssh_program() -> (String, Vec<String>) {
    ssh_program_of(std::env::var(SSH_COMMAND_ENV).ok().as_deref())
}

/// The ssh program and its own options from a command line as
/// [`SSH_COMMAND_ENV`] holds it, split on spaces (none, or blank: `ssh`).
pub fn ssh_program_of(command: Option<&str>) -> (String, Vec<String>) {
    let command = command.filter(|c| !c.trim().is_empty());
    let mut words = command.unwrap_or("ssh").split_whitespace().map(str::to_owned);
    let program = words.next().unwrap_or_else(|| "ssh".to_owned());
    (program, words.collect())
}

/// The ssh child carrying a connection: ended with the connection.
struct SshChild(tokio::process::Child);

impl Drop for SshChild {
    fn drop(&mut self) {
        let _ = self.0.start_kill();
    }
}

/// Connects to the engine on `host` over SSH and says hello.
pub async fn connect(host: &Host, kind: ClientKind) -> Result<Client, ClientError> {
    connect_with(ssh_program(), host, kind).await
}

/// Starts `ssh` (the program and its own options) to run `remote` on
/// `host`, its output piped, ended when dropped.
fn spawn_ssh(
    ssh: (String, Vec<String>),
    host: &Host,
    remote: &[String],
    stdin: Stdio,
) -> Result<tokio::process::Child, ClientError> {
    let (program, options) = ssh;
    let mut command = tokio::process::Command::new(&program);
    command
        .args(&options)
        .args(host.ssh_args(remote))
        .stdin(stdin)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    command.spawn().map_err(|error| {
        ClientError::Ssh(SshProblem::Other(format!("{program} could not be started ({error}); is OpenSSH installed?")))
    })
}

/// Connects to the engine on `host` through `ssh`, the ssh program and its
/// own options ([`ssh_program`]), and says hello.
pub async fn connect_with(ssh: (String, Vec<String>), host: &Host, kind: ClientKind) -> Result<Client, ClientError> {
    let remote = host.remote_command().map_err(ClientError::Ssh)?;
    let mut child = spawn_ssh(ssh, host, &remote, Stdio::piped())?;
    let (stdin, stdout) = (child.stdin.take().expect("piped"), child.stdout.take().expect("piped"));
    let mut stderr = child.stderr.take().expect("piped");
    let said = tokio::spawn(async move {
        let mut text = Vec::new();
        let _ = (&mut stderr).take(MAX_STDERR_BYTES as u64).read_to_end(&mut text).await;
        String::from_utf8_lossy(&text).into_owned()
    });
    match Client::over_keeping(stdout, stdin, kind, Box::new(SshChild(child))).await {
        Ok(client) => Ok(client),
        Err(ClientError::Refused { engine_version, reason }) => Err(ClientError::Refused { engine_version, reason }),
        Err(error) => {
            // ssh ended before the engine answered: what it said tells why.
            let stderr = said.await.unwrap_or_default();
            tracing::debug!(%error, %stderr, "no engine answered over ssh");
            Err(ClientError::Ssh(SshProblem::from_stderr(&stderr, None)))
        }
    }
}

/// The most of a program's output kept when it is run on the host directly:
/// what it prints there is a line or two, and a host's output is untrusted.
pub const MAX_OUTPUT_BYTES: usize = 64 * 1024;

/// The exit status ssh gives when it failed itself (the command did not run).
const SSH_FAILED: i32 = 255;
/// The exit status of a shell that found no such program.
const NOT_FOUND: i32 = 127;

/// What the host's `switchboard` said when run there directly: its exit
/// status and its output, each cut at [`MAX_OUTPUT_BYTES`]. Untrusted: shown
/// escaped, read as data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RanThere {
    pub status: i32,
    pub stdout: String,
    pub stderr: String,
}

/// Runs the host's `switchboard` with `args` there directly, over ssh (not
/// through `daemon --stdio`, which starts an engine when none runs): what
/// asks after the host's engine itself (`daemon --status`, `daemon --stop`).
/// An error when ssh could not run it (the host unreachable, its key
/// refused, the program not there); otherwise what it said and its status.
pub async fn run_there(host: &Host, args: &[&str]) -> Result<RanThere, ClientError> {
    let remote = host.remote_program_with(args).map_err(ClientError::Ssh)?;
    let mut child = spawn_ssh(ssh_program(), host, &remote, Stdio::null())?;
    let (mut stdout, mut stderr) = (child.stdout.take().expect("piped"), child.stderr.take().expect("piped"));
    let bounded = |bytes: Vec<u8>| String::from_utf8_lossy(&bytes).into_owned();
    let (mut out, mut err) = (Vec::new(), Vec::new());
    // Both read at once, each to its bound, then drained: a chatty side never blocks the other.
    let (read_out, read_err) = tokio::join!(
        async {
            (&mut stdout).take(MAX_OUTPUT_BYTES as u64).read_to_end(&mut out).await?;
            tokio::io::copy(&mut stdout, &mut tokio::io::sink()).await
        },
        async {
            (&mut stderr).take(MAX_STDERR_BYTES as u64).read_to_end(&mut err).await?;
            tokio::io::copy(&mut stderr, &mut tokio::io::sink()).await
        },
    );
    read_out.map_err(ClientError::Io)?;
    read_err.map_err(ClientError::Io)?;
    let status = child.wait().await.map_err(ClientError::Io)?.code();
    let (stdout, stderr) = (bounded(out), bounded(err));
    match status {
        Some(status) if status != SSH_FAILED && status != NOT_FOUND => Ok(RanThere { status, stdout, stderr }),
        // ssh failed, the program is not there, or a signal ended it.
        status => Err(ClientError::Ssh(SshProblem::from_stderr(&stderr, status))),
    }
}

/// A host key as the host presents it: the line for a known-hosts file and
/// its fingerprint, as `ssh-keygen -l` shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HostKey {
    pub known_hosts_line: String,
    /// `SHA256:…`.
    pub fingerprint: String,
    /// `ED25519`, `RSA`, ….
    pub key_type: String,
    /// The known-hosts file ssh reads for this host.
    pub known_hosts_file: PathBuf,
}

/// What ssh makes of the destination: its options (`ssh -G`).
async fn effective_config(host: &Host) -> Result<Vec<(String, String)>, ClientError> {
    let (program, options) = ssh_program();
    let mut args = options;
    args.push("-G".to_owned());
    if let Some(port) = host.port {
        args.extend(["-p".to_owned(), port.to_string()]);
    }
    args.extend(["--".to_owned(), host.destination.clone()]);
    let output =
        tokio::process::Command::new(&program).args(&args).stdin(Stdio::null()).output().await.map_err(|error| {
            ClientError::Ssh(SshProblem::Other(format!("{program} could not be started ({error})")))
        })?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        return Err(ClientError::Ssh(SshProblem::from_stderr(&stderr, output.status.code())));
    }
    Ok(String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| line.split_once(' ').map(|(k, v)| (k.to_owned(), v.trim().to_owned())))
        .collect())
}

/// Asks the host for its key (`ssh-keyscan`, of the type ssh prefers), to
/// show the user before they accept it. Nothing is written.
pub async fn scan_host_key(host: &Host) -> Result<HostKey, ClientError> {
    let config = effective_config(host).await?;
    let get = |key: &str| config.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone());
    let hostname = get("hostname").unwrap_or_else(|| host.destination.clone());
    let port = get("port").unwrap_or_else(|| "22".to_owned());
    let known_hosts_file = get("userknownhostsfile")
        .and_then(|files| files.split_whitespace().next().map(expand_home))
        .ok_or_else(|| ClientError::Ssh(SshProblem::Other("ssh names no known-hosts file".into())))?;
    let other = |why: String| ClientError::Ssh(SshProblem::Other(why));
    let scanned = tokio::process::Command::new("ssh-keyscan")
        .args(["-T", "10", "-t", "ed25519,ecdsa,rsa", "-p", &port, "--", &hostname])
        .stdin(Stdio::null())
        .output()
        .await
        .map_err(|error| other(format!("ssh-keyscan could not be started ({error})")))?;
    let text = String::from_utf8_lossy(&scanned.stdout);
    let Some(line) = text.lines().map(str::trim).find(|l| !l.is_empty() && !l.starts_with('#')) else {
        return Err(ClientError::Ssh(SshProblem::Unreachable(Reach::NoKeyOffered)));
    };
    let mut keygen = tokio::process::Command::new("ssh-keygen")
        .args(["-l", "-f", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|error| other(format!("ssh-keygen could not be started ({error})")))?;
    {
        use tokio::io::AsyncWriteExt;
        let mut stdin = keygen.stdin.take().expect("piped");
        stdin.write_all(format!("{line}\n").as_bytes()).await.map_err(ClientError::Io)?;
    }
    let listed = keygen.wait_with_output().await.map_err(ClientError::Io)?;
    let listed = String::from_utf8_lossy(&listed.stdout);
    // "256 SHA256:… [127.0.0.1]:2222 (ED25519)"
    let words: Vec<&str> = listed.split_whitespace().collect();
    let fingerprint = words.get(1).filter(|w| w.starts_with("SHA256:")).map(|w| (*w).to_owned());
    let key_type = words.last().map(|w| w.trim_matches(|c| c == '(' || c == ')').to_owned());
    let (Some(fingerprint), Some(key_type)) = (fingerprint, key_type) else {
        return Err(other(format!("ssh-keygen could not read the host's key: {listed}")));
    };
    Ok(HostKey { known_hosts_line: line.to_owned(), fingerprint, key_type, known_hosts_file })
}

/// Adds the key the user accepted to their known-hosts file (made if need
/// be, 0600), once.
pub fn accept_host_key(key: &HostKey) -> Result<(), ClientError> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    if let Some(dir) = key.known_hosts_file.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let known = std::fs::read_to_string(&key.known_hosts_file).unwrap_or_default();
    if known.lines().any(|l| l.trim() == key.known_hosts_line) {
        return Ok(());
    }
    let mut file = std::fs::OpenOptions::new().create(true).append(true).mode(0o600).open(&key.known_hosts_file)?;
    let newline = if known.is_empty() || known.ends_with('\n') { "" } else { "\n" };
    file.write_all(format!("{newline}{}\n", key.known_hosts_line).as_bytes())?;
    Ok(())
}

fn expand_home(path: &str) -> PathBuf {
    match path.strip_prefix("~/") {
        Some(rest) => std::env::var_os("HOME").map(PathBuf::from).unwrap_or_default().join(rest),
        None => PathBuf::from(path),
    }
}

/// Why a machine cannot be reached, as a sentence: its first letter a
/// capital, a full stop at its end.
pub fn sentence(reason: &str) -> String {
    let mut chars = reason.trim().chars();
    let Some(first) = chars.next() else { return String::new() };
    let text: String = first.to_uppercase().chain(chars).collect();
    if text.ends_with(['.', '!', '?']) { text } else { format!("{text}.") }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_host_is_one_word_ssh_takes_as_a_destination() {
        assert_eq!(Host::new(" dev@build-1 ").unwrap().destination, "dev@build-1");
        assert!(Host::new("").is_err());
        assert!(Host::new("-oProxyCommand=sh").is_err(), "never an option");
        assert!(Host::new("two words").is_err());
        let host =
            Host { port: Some(2222), remote_program: Some("/opt/sb/switchboard".into()), ..Host::new("box").unwrap() };
        assert_eq!(
            host.ssh_args(&host.remote_command().unwrap()),
            ["-T", "-o", "BatchMode=yes", "-p", "2222", "--", "box", "/opt/sb/switchboard", "daemon", "--stdio"]
        );
        let plain = Host::new("box").unwrap();
        assert_eq!(
            plain.ssh_args(&plain.remote_command().unwrap())[3..],
            ["--", "box", "switchboard", "daemon", "--stdio"]
        );
        let spaced = Host { remote_program: Some("/opt/my tools/switchboard".into()), ..Host::new("box").unwrap() };
        assert_eq!(spaced.ssh_args(&spaced.remote_command().unwrap())[5], "'/opt/my tools/switchboard'");
        let broken = Host { remote_program: Some("switchboard\nreboot".into()), ..Host::new("box").unwrap() };
        assert!(matches!(broken.remote_command(), Err(SshProblem::RemoteProgram(_))));
    }

    #[test]
    fn the_program_named_for_the_host_is_one_word_of_its_shell() {
        let cases: [(&str, Result<&str, ProgramRefused>); 11] = [
            ("switchboard", Ok("switchboard")),
            ("/opt/sb/switchboard", Ok("/opt/sb/switchboard")),
            ("/opt/my tools/switchboard", Ok("'/opt/my tools/switchboard'")),
            // A leading ~/ stays the home folder there; the rest is one word.
            ("~/bin/switchboard", Ok("~/bin/switchboard")),
            ("~/my bin/switchboard", Ok("~/'my bin/switchboard'")),
            // Shell syntax is part of the name, never run.
            ("switchboard; touch /tmp/owned", Ok("'switchboard; touch /tmp/owned'")),
            ("$(touch /tmp/owned)", Ok("'$(touch /tmp/owned)'")),
            ("it's/switchboard", Ok(r#""it's/switchboard""#)),
            ("", Err(ProgramRefused::Empty)),
            ("~/", Err(ProgramRefused::Empty)),
            ("switchboard\nreboot", Err(ProgramRefused::ControlCharacter("switchboard\nreboot".into()))),
        ];
        for (program, expected) in cases {
            assert_eq!(remote_word(program), expected.map(str::to_owned), "{program:?}");
        }
    }

    #[test]
    fn the_ssh_program_is_the_one_named_with_its_options() {
        assert_eq!(ssh_program_of(None), ("ssh".to_owned(), vec![]));
        assert_eq!(ssh_program_of(Some("  ")), ("ssh".to_owned(), vec![]));
        assert_eq!(ssh_program_of(Some("ssh -F /t/config")), ("ssh".to_owned(), vec!["-F".into(), "/t/config".into()]));
    }

    #[test]
    fn what_went_wrong_is_read_from_ssh_s_own_words() {
        let changed = "@@@@@@@@@@@\n@    WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!     @\n...\nHost key verification failed.\n";
        /// ssh's words, its exit status, and what they must read as.
        type Case = (&'static str, Option<i32>, fn(&SshProblem) -> bool);
        let cases: [Case; 7] = [
            (changed, Some(255), |p| matches!(p, SshProblem::ChangedHostKey(_))),
            (
                "No ED25519 host key is known for [127.0.0.1]:2222 and you have requested strict checking.\nHost key verification failed.\n",
                Some(255),
                |p| *p == SshProblem::UnknownHostKey,
            ),
            ("root@127.0.0.1: Permission denied (publickey).\n", Some(255), |p| matches!(p, SshProblem::SignIn(_))),
            ("bash: line 1: switchboard: command not found\n", Some(127), |p| *p == SshProblem::NotInstalled),
            ("ssh: connect to host 127.0.0.1 port 9: Connection refused\n", Some(255), |p| {
                *p == SshProblem::Unreachable(Reach::Refused)
            }),
            ("ssh: Could not resolve hostname nowhere: Name or service not known\n", Some(255), |p| {
                *p == SshProblem::Unreachable(Reach::UnknownName)
            }),
            ("", None, |p| matches!(p, SshProblem::Other(w) if w == "no reason given")),
        ];
        for (stderr, status, expected) in cases {
            let problem = SshProblem::from_stderr(stderr, status);
            assert!(expected(&problem), "{stderr:?} read as {problem:?}");
        }
    }
}
