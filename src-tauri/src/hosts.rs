//! The window's list of other machines (`switchboard_client::hosts`, the
//! same list and checks as `switchboard host`): each one's state, adding one
//! once it answers (a host key ssh does not know is shown and accepted only
//! by its fingerprint), removing one, and opening a window on one (`switchboard
//! --host`, a process of its own).

use std::path::PathBuf;
use std::sync::Arc;

use switchboard_api::HostState;
use switchboard_client::hosts;
use switchboard_client::ssh::Host;
use switchboard_core::{ApiError, ErrorCode};

use crate::engines::Engines;

pub struct Hosts {
    data_dir: PathBuf,
    /// A machine added is shown in the window; one removed leaves it.
    engines: Arc<Engines>,
}

fn refused(message: String) -> ApiError {
    ApiError { code: ErrorCode::InvalidInput, message, field: None, problems: Vec::new() }
}

fn failed(error: impl std::fmt::Display) -> ApiError {
    ApiError { code: ErrorCode::Internal, message: error.to_string(), field: None, problems: Vec::new() }
}

impl Hosts {
    pub fn new(data_dir: PathBuf, engines: Arc<Engines>) -> Hosts {
        Hosts { data_dir, engines }
    }

    /// Every host in the list and how it answers now, checked side by side.
    pub async fn list(&self) -> Result<Vec<HostState>, ApiError> {
        let listed = hosts::list(&self.data_dir).map_err(failed)?;
        let checks = listed.iter().map(|host| {
            let host = host.clone();
            tauri::async_runtime::spawn(async move { hosts::check(&host).await })
        });
        let mut states = Vec::new();
        for check in checks.collect::<Vec<_>>() {
            states.push(check.await.map_err(failed)?);
        }
        Ok(states)
    }

    /// Adds the host once its engine answers; what stands in the way (a key
    /// to accept first) is in the answer.
    pub async fn add(
        &self,
        destination: String,
        port: Option<u16>,
        remote_program: Option<String>,
        accept_key: Option<String>,
    ) -> Result<HostState, ApiError> {
        let remote_program = remote_program.map(|p| p.trim().to_owned()).filter(|p| !p.is_empty());
        let host =
            Host { port, remote_program, ..Host::new(&destination).map_err(|problem| refused(problem.to_string()))? };
        let state = hosts::add_checked(&self.data_dir, host, accept_key.as_deref()).await.map_err(failed)?;
        if let Some(added) = hosts::find(&self.data_dir, &destination).map_err(failed)? {
            self.engines.add(added);
        }
        Ok(state)
    }

    pub fn remove(&self, destination: &str) -> Result<(), ApiError> {
        hosts::remove(&self.data_dir, destination).map_err(|error| refused(error.to_string()))?;
        self.engines.remove(destination);
        Ok(())
    }

    /// Opens a window on the host's engine: this program again, with
    /// `--host`, in a session of its own (it outlives this window).
    pub fn open(&self, destination: &str) -> Result<(), ApiError> {
        use std::os::unix::process::CommandExt;
        let host = hosts::find(&self.data_dir, destination).map_err(failed)?;
        let Some(host) = host else { return Err(refused(format!("No host “{destination}” is in the list."))) };
        let exe = std::env::current_exe().map_err(failed)?;
        let mut command = std::process::Command::new(exe);
        command
            .arg("--data-dir")
            .arg(&self.data_dir)
            .arg("--host")
            .arg(&host.destination)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null());
        // SAFETY: `setsid` is async-signal-safe and touches no memory of the parent's.
        unsafe {
            command.pre_exec(|| nix::unistd::setsid().map(|_| ()).map_err(std::io::Error::from));
        }
        let mut child = command.spawn().map_err(failed)?;
        // Reaped when it ends: no zombie under this window.
        std::thread::spawn(move || child.wait());
        Ok(())
    }
}
