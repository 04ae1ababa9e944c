//! [`EngineHandle`]: the only way into the engine. Each method sends one
//! typed call to the engine task and awaits its answer; the wire form
//! ([`Command`] and [`Reply`]) is for the socket and the command line.

use std::sync::{Arc, Weak};

use switchboard_protocol::SessionId;
use tokio::sync::{mpsc, oneshot};

use super::state::{Call, EngineState, Request};
use crate::error::{EngineError, Responder};
use crate::session::{OutputSink, SubscriptionId};
use crate::sink::EventFeed;
use switchboard_api::{Command, Reply};

/// A cloneable handle on the running engine. When the last handle is dropped
/// the engine stops every agent and ends.
#[derive(Clone)]
pub struct EngineHandle {
    requests: mpsc::Sender<Request>,
    /// Weak: the engine's events end with the engine (their subscribers
    /// see the end), whoever holds a handle.
    feed: Weak<EventFeed>,
}

impl EngineHandle {
    pub(crate) fn new(requests: mpsc::Sender<Request>, feed: &Arc<EventFeed>) -> Self {
        EngineHandle { requests, feed: Arc::downgrade(feed) }
    }

    /// A handle to no engine (it could not start): every call answers that
    /// the engine has stopped, and no event comes.
    pub fn stopped() -> Self {
        let (requests, _) = mpsc::channel(1);
        EngineHandle { requests, feed: Weak::new() }
    }

    /// The engine's events, numbered, as its socket's subscribers get them:
    /// for a follower in the same process (the daemon's notices). None once
    /// the engine has stopped.
    pub fn feed(&self) -> Option<Arc<EventFeed>> {
        self.feed.upgrade()
    }

    /// Sends any command in the wire vocabulary and awaits its reply.
    pub async fn call(&self, command: Command) -> Result<Reply, EngineError> {
        send_command(&self.requests, command).await
    }

    /// Runs `call` on the engine task; it answers through the responder,
    /// now or later.
    async fn ask<T: Send + 'static>(
        &self,
        call: impl FnOnce(&mut EngineState, Responder<T>) + Send + 'static,
    ) -> Result<T, EngineError> {
        let (responder, answer) = Responder::channel();
        let call: Call = Box::new(move |engine| match engine {
            Some(engine) => call(engine, responder),
            None => responder.send(Err(EngineError::EngineStopped)),
        });
        self.requests.send(Request::Call(call)).await.map_err(|_| EngineError::EngineStopped)?;
        answer.await.map_err(|_| EngineError::EngineStopped)?
    }

    /// Runs `call` on the engine task and answers with its result.
    async fn run<T: Send + 'static>(
        &self,
        call: impl FnOnce(&mut EngineState) -> Result<T, EngineError> + Send + 'static,
    ) -> Result<T, EngineError> {
        self.ask(move |engine, reply| engine.answer(reply, call)).await
    }

    /// Runs `call` on the engine task's state (tests reach the store so).
    #[cfg(test)]
    pub(crate) async fn with_state<T: Send + 'static>(
        &self,
        call: impl FnOnce(&mut EngineState) -> T + Send + 'static,
    ) -> Result<T, EngineError> {
        self.run(move |engine| Ok(call(engine))).await
    }

    /// Subscribes to a session's output: the sink first receives the
    /// retained output (replay), then every new batch.
    pub async fn attach(&self, session_id: SessionId, sink: impl OutputSink) -> Result<SubscriptionId, EngineError> {
        self.ask(move |engine, reply| engine.attach(&session_id, Box::new(sink), reply)).await
    }

    /// Holds the session's output back while this view is behind, or lets
    /// it go: with several views, the agent is held while any is behind.
    pub async fn pause_view(
        &self,
        session_id: SessionId,
        subscription: SubscriptionId,
        paused: bool,
    ) -> Result<(), EngineError> {
        self.run(move |engine| engine.pause_view(&session_id, subscription, paused)).await
    }

    pub async fn detach(&self, session_id: SessionId, subscription: SubscriptionId) -> Result<(), EngineError> {
        self.run(move |engine| {
            engine.detach(&session_id, subscription);
            Ok(())
        })
        .await
    }

    /// Wrong pairing codes counted now (the web server's, not a command).
    pub(crate) async fn web_wrong_codes(&self) -> Result<usize, EngineError> {
        self.run(|engine| Ok(engine.web.wrong_codes())).await
    }

    /// Pairs a browser by its code (the web server's, not a command: no
    /// client can send it).
    pub(crate) async fn web_redeem(
        &self,
        code: String,
        user_agent: String,
        from: String,
    ) -> Result<Result<crate::web::Paired, crate::web::PairRefusal>, EngineError> {
        self.run(move |engine| engine.redeem_pairing(&code, &user_agent, &from)).await
    }

    /// The device a browser's credential names (the web server's, not a command).
    pub(crate) async fn web_admit(
        &self,
        device: u64,
        secret: String,
        from: String,
    ) -> Result<Option<crate::web::Admitted>, EngineError> {
        self.run(move |engine| Ok(engine.admit_device(device, &secret, &from))).await
    }

    /// The device `id` as listed (the web server's, not a command).
    pub(crate) async fn web_device(&self, id: u64) -> Result<Option<switchboard_api::Device>, EngineError> {
        self.run(move |engine| Ok(engine.device(id))).await
    }

    /// A browser's socket opened or closed: the windows are told the devices
    /// (the web server's, not a command).
    pub(crate) async fn web_sockets_changed(&self) -> Result<(), EngineError> {
        self.run(|engine| {
            engine.devices_changed();
            Ok(())
        })
        .await
    }

    /// Stops every running agent (recording them as killed) and ends the
    /// engine. Returns when all their processes are gone.
    pub async fn shutdown(&self) {
        let (reply, done) = oneshot::channel();
        if self.requests.send(Request::Shutdown(reply)).await.is_ok() {
            done.await.ok();
        }
    }
}

/// The typed methods, one per command of the list (see `engine_commands`).
macro_rules! handle_methods {
    (@call now $handle:ident $method:ident ($($arg:ident),*)) => {
        $handle.run(move |engine| engine.$method($($arg),*)).await
    };
    (@call later $handle:ident $method:ident ($($arg:ident),*)) => {
        $handle.ask(move |engine, reply| engine.$method($($arg,)* reply)).await
    };
    ($(
        $(#[doc = $doc:literal])*
        $reach:ident $effect:ident $timing:ident $method:ident / $variant:ident ($($arg:ident : $ty:ty),* $(,)?) -> $out:ty;
    )*) => {
        impl EngineHandle {
            $(
                $(#[doc = $doc])*
                pub async fn $method(&self, $($arg: $ty),*) -> Result<$out, EngineError> {
                    handle_methods!(@call $timing self $method ($($arg),*))
                }
            )*
        }
    };
}

switchboard_api::engine_commands!(handle_methods);

/// Sends a wire command on the engine's request channel and awaits the reply.
pub(crate) async fn send_command(requests: &mpsc::Sender<Request>, command: Command) -> Result<Reply, EngineError> {
    let (reply, answer) = Responder::channel();
    requests.send(Request::Command(Box::new(command), reply)).await.map_err(|_| EngineError::EngineStopped)?;
    answer.await.map_err(|_| EngineError::EngineStopped)?
}
