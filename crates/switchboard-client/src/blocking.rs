//! The client for programs without an async runtime (the command line):
//! the same connection and typed methods, each call waiting for its answer
//! within [`REPLY_DEADLINE`]. It connects at its first call.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use switchboard_api::{Command, IntoReply, Reply};

use crate::{ClientError, ClientKind};

/// How long a reply may take. Stopping an agent can take its kill grace.
pub const REPLY_DEADLINE: Duration = Duration::from_secs(30);

/// Where the engine is reached.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reach {
    /// On this machine, at its socket.
    Socket(PathBuf),
    /// On another machine, over SSH.
    Ssh(crate::ssh::Host),
}

pub struct Client {
    reach: Reach,
    kind: ClientKind,
    /// Taken only when the client is dropped.
    runtime: Option<tokio::runtime::Runtime>,
    connection: Mutex<Option<crate::Client>>,
}

impl Client {
    /// A client of the engine listening on `socket`, as the command line.
    pub fn new(socket: &Path) -> Client {
        Client::of_kind(socket, ClientKind::CommandLine)
    }

    pub fn of_kind(socket: &Path, kind: ClientKind) -> Client {
        Client::reaching(Reach::Socket(socket.to_path_buf()), kind)
    }

    /// A client of the engine reached there.
    pub fn reaching(reach: Reach, kind: ClientKind) -> Client {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a single-threaded runtime can always be built");
        Client { reach, kind, runtime: Some(runtime), connection: Mutex::new(None) }
    }

    /// The connection, made now if there is none or the engine closed it.
    async fn connected(&self) -> Result<crate::Client, ClientError> {
        let existing = self.connection.lock().expect("never poisoned").clone();
        if let Some(client) = existing {
            // A connection the engine closed since the last call is seen
            // closed once its reader has run.
            tokio::task::yield_now().await;
            if !client.is_closed() {
                return Ok(client);
            }
        }
        let client = match &self.reach {
            Reach::Socket(socket) => crate::Client::connect(socket, self.kind).await?,
            Reach::Ssh(host) => crate::ssh::connect(host, self.kind).await?,
        };
        *self.connection.lock().expect("never poisoned") = Some(client.clone());
        Ok(client)
    }

    /// Runs `work` to its end on the client's runtime, within the deadline.
    fn block<T: Send>(&self, work: impl Future<Output = Result<T, ClientError>> + Send) -> Result<T, ClientError> {
        let work = async {
            tokio::time::timeout(REPLY_DEADLINE, work).await.map_err(|_| ClientError::TimedOut(REPLY_DEADLINE))?
        };
        let runtime = self.runtime.as_ref().expect("the runtime lives as long as the client");
        if tokio::runtime::Handle::try_current().is_err() {
            return runtime.block_on(work);
        }
        // Called from within another runtime (a test's, say): that runtime's
        // thread cannot block on this one, a thread of its own can.
        std::thread::scope(|scope| {
            scope.spawn(|| runtime.block_on(work)).join().expect("the client's thread does not panic")
        })
    }

    /// Who the engine is (connecting if need be).
    pub fn welcome(&self) -> Result<crate::HelloAck, ClientError> {
        self.block(async { Ok(self.connected().await?.welcome().clone()) })
    }

    /// Sends any engine command and returns its reply.
    pub fn call(&self, command: Command) -> Result<Reply, ClientError> {
        self.block(async { self.connected().await?.call(command).await })
    }

    fn ask<T: IntoReply + Send>(&self, command: Command) -> Result<T, ClientError> {
        self.block(async { self.connected().await?.ask(command).await })
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        // Dropped within another runtime, a runtime may not wait for its tasks.
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

macro_rules! blocking_methods {
    ($(
        $(#[doc = $doc:literal])*
        $reach:ident $effect:ident $timing:ident $method:ident / $variant:ident ($($arg:ident : $ty:ty),* $(,)?) -> $out:ty;
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

switchboard_api::engine_commands!(blocking_methods);
