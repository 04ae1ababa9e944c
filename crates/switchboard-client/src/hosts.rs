//! The machines whose engines the user reaches over SSH, besides this one:
//! kept in `hosts.json` in the data directory (the user's only), in the
//! order they were added. The list is the client's: which engines to
//! attach to; each engine knows nothing of the others.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use switchboard_api::{HostCondition, HostKeyShown, HostState};

use crate::ssh::Host;

/// The file in the data directory.
pub const HOSTS_FILE: &str = "hosts.json";

/// The most hosts kept: a list that long is not a list a person keeps.
pub const MAX_HOSTS: usize = 64;

#[derive(Debug, thiserror::Error)]
pub enum HostsError {
    #[error("{} is not a list of hosts ({reason}); fix or remove it", .path.display())]
    Unreadable { path: PathBuf, reason: String },
    #[error("writing {}: {source}", .path.display())]
    Io { path: PathBuf, source: std::io::Error },
    #[error("no host “{0}” is in the list")]
    NoSuchHost(String),
    #[error("{MAX_HOSTS} hosts are in the list already: remove one first")]
    Full,
}

#[derive(Debug, Default, Clone, Serialize, Deserialize)]
struct HostsFile {
    hosts: Vec<Host>,
}

fn path_of(data_dir: &Path) -> PathBuf {
    data_dir.join(HOSTS_FILE)
}

/// The hosts in the list; none when there is no list yet.
pub fn list(data_dir: &Path) -> Result<Vec<Host>, HostsError> {
    let path = path_of(data_dir);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(error) => return Err(HostsError::Unreadable { path, reason: error.to_string() }),
    };
    let file: HostsFile =
        serde_json::from_str(&text).map_err(|error| HostsError::Unreadable { path, reason: error.to_string() })?;
    Ok(file.hosts)
}

/// Adds the host, or replaces the one of the same destination (its port or
/// program changed).
pub fn add(data_dir: &Path, host: Host) -> Result<(), HostsError> {
    let mut hosts = list(data_dir)?;
    let full = hosts.len() >= MAX_HOSTS;
    match hosts.iter_mut().find(|h| h.destination == host.destination) {
        Some(known) => *known = host,
        None if full => return Err(HostsError::Full),
        None => hosts.push(host),
    }
    save(data_dir, hosts)
}

/// Takes the host out of the list (its engine and agents go on there).
pub fn remove(data_dir: &Path, destination: &str) -> Result<Host, HostsError> {
    let mut hosts = list(data_dir)?;
    let at = hosts
        .iter()
        .position(|h| h.destination == destination)
        .ok_or_else(|| HostsError::NoSuchHost(destination.to_owned()))?;
    let removed = hosts.remove(at);
    save(data_dir, hosts)?;
    Ok(removed)
}

/// The host of that destination in the list, if it is there.
pub fn find(data_dir: &Path, destination: &str) -> Result<Option<Host>, HostsError> {
    Ok(list(data_dir)?.into_iter().find(|h| h.destination == destination))
}

/// Writes the list whole: a temporary file of the user's only, renamed over.
fn save(data_dir: &Path, hosts: Vec<Host>) -> Result<(), HostsError> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let path = path_of(data_dir);
    let io = |source| HostsError::Io { path: path.clone(), source };
    std::fs::create_dir_all(data_dir).map_err(io)?;
    let temporary = data_dir.join(format!(".{HOSTS_FILE}.{}", std::process::id()));
    let text = serde_json::to_string_pretty(&HostsFile { hosts }).expect("plain data serializes");
    let mut file =
        std::fs::OpenOptions::new().create(true).truncate(true).write(true).mode(0o600).open(&temporary).map_err(io)?;
    file.write_all((text + "\n").as_bytes()).and_then(|()| file.sync_all()).map_err(io)?;
    std::fs::rename(&temporary, &path).map_err(io)
}

/// How the host answers now: its engine's version and agents, or what
/// stands in the way, in words.
pub async fn check(host: &Host) -> HostState {
    let answered = crate::ssh::connect(host, crate::ClientKind::CommandLine).await.map(|c| c.welcome().clone());
    state_of(host, answered)
}

fn state_of(host: &Host, answered: Result<crate::HelloAck, crate::ClientError>) -> HostState {
    use crate::ClientError;
    use crate::ssh::SshProblem;
    let mut state = HostState {
        destination: host.destination.clone(),
        port: host.port,
        remote_program: host.remote_program.clone(),
        state: HostCondition::Connected,
        version: None,
        agents_running: None,
        problem: None,
        words: String::new(),
        unknown_key: None,
    };
    match answered {
        Ok(welcome) => {
            state.version = Some(welcome.engine_version);
            state.agents_running = Some(welcome.agents_running);
        }
        Err(error) => {
            state.state = match &error {
                ClientError::Ssh(SshProblem::UnknownHostKey) => HostCondition::UnknownHostKey,
                ClientError::Ssh(SshProblem::ChangedHostKey(_)) => HostCondition::ChangedHostKey,
                ClientError::Ssh(SshProblem::SignIn(_)) => HostCondition::SignIn,
                ClientError::Ssh(SshProblem::Unreachable(_)) => HostCondition::Unreachable,
                ClientError::Ssh(SshProblem::NotInstalled) => HostCondition::NotInstalled,
                ClientError::Refused { .. } => HostCondition::Incompatible,
                _ => HostCondition::Failed,
            };
            state.problem = Some(match error {
                ClientError::Refused { engine_version, reason } => format!(
                    "Switchboard {engine_version} runs there and cannot talk with this one ({reason}): install the \
                     same version on both machines"
                ),
                other => other.to_string(),
            });
        }
    }
    state.words = words_of(&state);
    state
}

/// A host's state in words, for the window and the command line alike.
pub fn words_of(state: &HostState) -> String {
    match (&state.version, &state.problem) {
        (Some(version), _) => {
            let running = match state.agents_running.unwrap_or(0) {
                0 => "no agent running".to_owned(),
                1 => "1 agent running".to_owned(),
                n => format!("{n} agents running"),
            };
            format!("connected, Switchboard {version}, {running}")
        }
        (None, Some(problem)) => problem.clone(),
        (None, None) => "it did not answer".to_owned(),
    }
}

/// Adds the host to the list once its engine answers. A host key ssh does
/// not know yet is accepted only when `accept_key` is its fingerprint;
/// otherwise it is shown (`unknown_key`) and nothing is added. What stands
/// in the way is in the answer; only a list that cannot be read or written
/// is an error.
pub async fn add_checked(data_dir: &Path, host: Host, accept_key: Option<&str>) -> Result<HostState, HostsError> {
    let mut checked = check(&host).await;
    if checked.state == HostCondition::UnknownHostKey {
        match crate::ssh::scan_host_key(&host).await {
            Err(error) => checked.problem = Some(error.to_string()),
            Ok(key) => {
                let shown = HostKeyShown { key_type: key.key_type.clone(), fingerprint: key.fingerprint.clone() };
                match accept_key {
                    Some(accepted) if accepted == key.fingerprint => match crate::ssh::accept_host_key(&key) {
                        Ok(()) => checked = check(&host).await,
                        Err(error) => {
                            checked.problem = Some(format!("its key could not be added to your known hosts: {error}"))
                        }
                    },
                    Some(accepted) => {
                        checked.problem = Some(format!(
                            "the host presents {} {}, not the key you accepted ({accepted}): nothing was added",
                            key.key_type, key.fingerprint
                        ));
                        checked.unknown_key = Some(shown);
                    }
                    None => {
                        checked.problem = Some(format!(
                            "{} presents a key not known yet: {} {}. If that is its key, accept it (--accept-key {})",
                            host.destination, key.key_type, key.fingerprint, key.fingerprint
                        ));
                        checked.unknown_key = Some(shown);
                    }
                }
            }
        }
    }
    if checked.state == HostCondition::Connected {
        add(data_dir, host)?;
    }
    checked.words = words_of(&checked);
    Ok(checked)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_are_added_replaced_and_removed_and_kept_private() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        assert!(list(dir.path()).unwrap().is_empty(), "no list yet");
        add(dir.path(), Host::new("dev@build").unwrap()).unwrap();
        add(dir.path(), Host::new("gpu-box").unwrap()).unwrap();
        let moved = Host { port: Some(2222), ..Host::new("dev@build").unwrap() };
        add(dir.path(), moved.clone()).unwrap();
        let hosts = list(dir.path()).unwrap();
        assert_eq!(hosts.iter().map(|h| h.destination.as_str()).collect::<Vec<_>>(), ["dev@build", "gpu-box"]);
        assert_eq!(hosts[0], moved, "replaced in place");
        let mode = std::fs::metadata(dir.path().join(HOSTS_FILE)).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        assert_eq!(remove(dir.path(), "gpu-box").unwrap().destination, "gpu-box");
        assert!(matches!(remove(dir.path(), "gpu-box"), Err(HostsError::NoSuchHost(_))));
        assert_eq!(find(dir.path(), "dev@build").unwrap(), Some(moved));

        std::fs::write(dir.path().join(HOSTS_FILE), "{ not json").unwrap();
        let error = list(dir.path()).unwrap_err();
        assert!(error.to_string().contains("is not a list of hosts"), "{error}");
        assert!(add(dir.path(), Host::new("x").unwrap()).is_err(), "a broken list is never written over");
        assert_eq!(std::fs::read_to_string(dir.path().join(HOSTS_FILE)).unwrap(), "{ not json");
    }
}
