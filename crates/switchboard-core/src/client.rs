//! A client of a running app's engine socket, for the command line and
//! scripts: one request, one reply, blocking, with a deadline.

use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::api::{ApiError, Command, IntoReply, Reply};
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

/// A typed client of the app listening on a socket: one method per engine
/// command (from the engine's list), each one request and its reply.
#[derive(Debug, Clone)]
pub struct Client {
    socket: PathBuf,
}

impl Client {
    pub fn new(socket: &Path) -> Client {
        Client { socket: socket.to_path_buf() }
    }

    fn ask<T: IntoReply>(&self, command: Command) -> Result<T, ClientError> {
        let reply = call(&self.socket, command)?;
        T::from_reply(reply).ok_or_else(|| ClientError::Protocol(format!("not the {} reply it asked for", T::KIND)))
    }
}

macro_rules! client_methods {
    ($(
        $(#[doc = $doc:literal])*
        $reach:ident $timing:ident $method:ident / $variant:ident ($($arg:ident : $ty:ty),* $(,)?) -> $out:ty;
    )*) => {
        impl Client {
            $(
                $(#[doc = $doc])*
                pub fn $method(&self, $($arg: $ty),*) -> Result<$out, ClientError> {
                    self.ask(Command::$variant { $($arg),* })
                }
            )*
        }
    };
}

crate::api::engine_commands!(client_methods);

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

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::error::EngineError;
    use crate::server::{self, Caller, RequestHandler};

    /// Answers every request with a plain `ok`, whatever was asked.
    struct AlwaysUnit;

    impl RequestHandler for AlwaysUnit {
        async fn handle(&self, _request: SocketRequest, _caller: Caller) -> Result<Reply, EngineError> {
            Ok(Reply::Unit)
        }
    }

    #[tokio::test(flavor = "multi_thread")]
    async fn the_typed_client_takes_only_the_reply_it_asked_for() {
        let dir = tempfile::tempdir().unwrap();
        let socket = dir.path().join("run/engine.sock");
        let _server = server::serve(&socket, Arc::new(AlwaysUnit)).unwrap();
        let client = Client::new(&socket);
        let (deleted, listed) = tokio::task::spawn_blocking(move || {
            (client.delete_profile(switchboard_protocol::ProfileId::new()), client.list_profiles())
        })
        .await
        .unwrap();
        assert!(deleted.is_ok(), "a unit reply answers a command that answers with nothing");
        let error = listed.unwrap_err();
        assert!(matches!(&error, ClientError::Protocol(why) if why.contains("profiles")), "{error}");

        let gone = Client::new(&dir.path().join("nobody.sock"));
        let refused = tokio::task::spawn_blocking(move || gone.list_profiles()).await.unwrap();
        assert!(matches!(refused, Err(ClientError::NotRunning(_))));
    }
}
