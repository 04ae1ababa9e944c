//! What a client reads of the engine of a data directory: whether one runs,
//! answers, and is the client's own build ([`DaemonStatus`], what
//! `switchboard daemon --status --json` prints, here or on another machine),
//! and the same in words ([`status_line`]).

use serde::{Deserialize, Serialize};

/// Whether an engine runs on a data directory (`daemon --status --json`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DaemonStatus {
    /// An engine holds the data directory.
    pub running: bool,
    /// It answers on its socket.
    #[serde(default)]
    pub answering: bool,
    pub pid: Option<u32>,
    pub version: Option<String>,
    pub uptime_secs: Option<u64>,
    /// Agents running now.
    pub agents: Option<usize>,
    /// The engine's build identity (compiled in: the same build says the
    /// same wherever it is installed).
    #[serde(default)]
    pub build: Option<String>,
    /// Whether the engine is the same build as the program asking (what the
    /// window's "another build" banner tells).
    #[serde(default)]
    pub same_build: Option<bool>,
    /// Whether the user's login service runs the engine (it starts at each
    /// login); where none does, automations fire only while it runs.
    #[serde(default)]
    pub starts_at_login: Option<bool>,
}

impl DaemonStatus {
    /// No engine holds the data directory.
    pub fn not_running() -> DaemonStatus {
        DaemonStatus {
            running: false,
            answering: false,
            pid: None,
            version: None,
            uptime_secs: None,
            agents: None,
            build: None,
            same_build: None,
            starts_at_login: None,
        }
    }
}

/// The status in words; `place`: the data directory, or the machine, it is of.
pub fn status_line(place: &str, status: &DaemonStatus) -> String {
    if !status.running {
        return format!("No engine runs on {place}.");
    }
    if !status.answering {
        return format!(
            "An engine runs on {place} but does not answer yet; if that lasts, `switchboard daemon --stop` stops it."
        );
    }
    let agents = match status.agents {
        Some(1) => "1 agent running".to_owned(),
        Some(n) => format!("{n} agents running"),
        None => "its agents unknown".to_owned(),
    };
    let version = status.version.as_deref().unwrap_or("of an unknown version");
    let up = status.uptime_secs.map(|up| format!("up {}, ", span(up))).unwrap_or_default();
    // What the window's banner says of it, said here too.
    let other = match status.same_build {
        Some(false) => " It runs another build than the switchboard program that asked: restart it to run this one.",
        _ => "",
    };
    let login = match status.starts_at_login {
        Some(true) => " Its login service starts it at each login.",
        Some(false) => {
            " No login service starts it, so automations fire only while it runs; `switchboard daemon --install` \
             starts it at each login."
        }
        None => "",
    };
    format!("The engine {version} runs on {place} ({up}{agents}).{other}{login}")
}

fn span(secs: u64) -> String {
    match secs {
        0..60 => format!("{secs}s"),
        60..3600 => format!("{}m", secs / 60),
        _ => format!("{}h {}m", secs / 3600, secs % 3600 / 60),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_status_says_who_runs_the_engine_in_words() {
        let dir = "/data";
        let none = DaemonStatus::not_running();
        assert_eq!(status_line(dir, &none), "No engine runs on /data.");
        let silent = DaemonStatus { running: true, pid: Some(7), ..none.clone() };
        assert_eq!(
            status_line(dir, &silent),
            "An engine runs on /data but does not answer yet; if that lasts, `switchboard daemon --stop` stops it."
        );
        let daemon = DaemonStatus {
            running: true,
            answering: true,
            pid: Some(7),
            version: Some("0.2.0".into()),
            uptime_secs: Some(3_725),
            agents: Some(1),
            build: Some("0.2.0+1".into()),
            same_build: Some(true),
            starts_at_login: None,
        };
        assert_eq!(status_line(dir, &daemon), "The engine 0.2.0 runs on /data (up 1h 2m, 1 agent running).");
        let at_login = DaemonStatus { starts_at_login: Some(true), ..daemon.clone() };
        assert_eq!(
            status_line(dir, &at_login),
            "The engine 0.2.0 runs on /data (up 1h 2m, 1 agent running). Its login service starts it at each login."
        );
        let by_hand = DaemonStatus { starts_at_login: Some(false), ..daemon.clone() };
        assert_eq!(
            status_line(dir, &by_hand),
            "The engine 0.2.0 runs on /data (up 1h 2m, 1 agent running). No login service starts it, so automations \
             fire only while it runs; `switchboard daemon --install` starts it at each login."
        );
        let many = DaemonStatus { agents: Some(3), uptime_secs: Some(42), ..daemon.clone() };
        assert_eq!(status_line(dir, &many), "The engine 0.2.0 runs on /data (up 42s, 3 agents running).");
        let other = DaemonStatus { same_build: Some(false), ..daemon };
        assert_eq!(
            status_line(dir, &other),
            "The engine 0.2.0 runs on /data (up 1h 2m, 1 agent running). It runs another build than the switchboard \
             program that asked: restart it to run this one."
        );
    }
}
