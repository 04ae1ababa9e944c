//! The typed client against a stand-in engine: each typed method takes only
//! the reply it asked for, and no engine is a clear error.

use std::sync::Arc;

use switchboard_api::Reply;
use switchboard_client::{ClientError, blocking};
use switchboard_core::server::{self, Caller, RequestHandler};
use switchboard_core::{EngineError, ProfileId};

/// Answers every request with a plain `ok`, whatever was asked.
struct AlwaysUnit;

impl RequestHandler for AlwaysUnit {
    async fn handle(&self, _command: switchboard_api::Command, _caller: Caller) -> Result<Reply, EngineError> {
        Ok(Reply::Unit)
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn the_typed_client_takes_only_the_reply_it_asked_for() {
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join("run/engine.sock");
    let _server = server::serve(&socket, Arc::new(AlwaysUnit)).unwrap();
    let client = blocking::Client::new(&socket);
    assert!(
        client.delete_profile(ProfileId::new()).is_ok(),
        "a unit reply answers a command that answers with nothing"
    );
    let error = client.list_profiles().unwrap_err();
    assert!(matches!(&error, ClientError::Protocol(why) if why.contains("profiles")), "{error}");
    // A stand-in that sends no events says so, as an error rather than a silent stream.
    let connected = switchboard_client::Client::connect(&socket, switchboard_client::ClientKind::Test).await.unwrap();
    let refused = connected.subscribe().await.err().expect("no events from this engine");
    assert!(refused.to_string().contains("sends no events"), "{refused}");

    let gone = blocking::Client::new(&dir.path().join("nobody.sock"));
    let refused = gone.list_profiles().unwrap_err();
    assert!(matches!(refused, ClientError::NotRunning(_)), "{refused}");
    assert!(refused.to_string().contains("Switchboard is not running with this data directory"), "{refused}");
}
