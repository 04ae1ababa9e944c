//! A client of a running app's engine socket, for the command line and
//! scripts: one request, one reply, blocking, with a deadline.

use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::api::Reply;
use crate::api::{ApiError, Command};
use crate::server::{MAX_LINE_BYTES, SocketRequest, SocketResponse};

/// How long a reply may take. Stopping an agent can take its kill grace.
pub const REPLY_DEADLINE: Duration = Duration::from_secs(30);

#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    #[error("Switchboard is not running with this data directory (no app listens on {})", .0.display())]
    NotRunning(PathBuf),
    #[error("talking to Switchboard failed: {0}")]
    Io(#[from] std::io::Error),
    #[error("Switchboard sent a reply this command line does not understand: {0}")]
    Protocol(String),
    #[error("{}", .0.message)]
    Api(ApiError),
}

/// Sends `command` to the app listening on `socket` and returns its reply.
pub fn call(socket: &Path, command: Command) -> Result<Reply, ClientError> {
    let stream = UnixStream::connect(socket).map_err(|error| match error.kind() {
        std::io::ErrorKind::NotFound | std::io::ErrorKind::ConnectionRefused => {
            ClientError::NotRunning(socket.to_path_buf())
        }
        _ => ClientError::Io(error),
    })?;
    stream.set_read_timeout(Some(REPLY_DEADLINE))?;
    stream.set_write_timeout(Some(REPLY_DEADLINE))?;
    let mut line = serde_json::to_vec(&SocketRequest::Command { command }).expect("requests always serialize");
    line.push(b'\n');
    (&stream).write_all(&line)?;
    let mut reply = Vec::new();
    BufReader::new(&stream).take(MAX_LINE_BYTES as u64 * 64).read_until(b'\n', &mut reply)?;
    match serde_json::from_slice::<SocketResponse>(&reply) {
        Ok(SocketResponse::Ok(reply)) => Ok(reply),
        Ok(SocketResponse::Error(error)) => Err(ClientError::Api(error)),
        Err(error) => Err(ClientError::Protocol(error.to_string())),
    }
}
