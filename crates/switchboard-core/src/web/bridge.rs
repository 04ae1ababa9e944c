//! A paired browser's WebSocket, carried to a framed connection of the
//! engine's: each binary message is one frame, whole, each way. The engine
//! serves it as it serves the socket's clients, for the device its
//! credential named; the socket closes when the device is unpaired or the
//! server stops.

use std::sync::Arc;

use axum::extract::ws::{CloseFrame, Message, WebSocket};
use futures_util::{SinkExt, StreamExt};
use tokio::io::AsyncWriteExt;
use tokio::sync::watch;

use super::shared::Web;
use super::{Admitted, Doorkeeper};
use crate::server::Caller;
use switchboard_api::wire::{MAX_FRAME_BYTES, read_frame};

/// Bytes in flight in memory between the socket and the framed server, each way.
const CARRIED_BYTES: usize = 256 * 1024;

/// The close code of a socket whose device was unpaired (the page stops
/// reconnecting and says so).
pub const UNPAIRED: u16 = 4401;

/// The close code of a socket whose server stopped serving.
const GOING_AWAY: u16 = 1001;

/// How the carrying ended.
#[derive(Debug, PartialEq, Eq)]
enum Ending {
    /// Either side closed.
    Closed,
    Unpaired,
    Stopped,
}

pub(super) async fn carry<H: Doorkeeper>(socket: WebSocket, web: Arc<Web<H>>, admitted: Admitted) {
    let (ours, theirs) = tokio::io::duplex(CARRIED_BYTES);
    let (their_read, their_write) = tokio::io::split(theirs);
    let (mut our_read, mut our_write) = tokio::io::split(ours);
    let (mut sink, mut stream) = socket.split();
    let caller = Caller::Device { device: admitted.device, read_only: admitted.read_only };
    let mut open = web.open.clone();
    web.door.sockets_changed().await;
    let ending = {
        let served = web.streams.serve(their_read, their_write, web.door.clone(), caller);
        let up = async {
            while let Some(Ok(message)) = stream.next().await {
                match message {
                    Message::Binary(bytes) => {
                        if our_write.write_all(&bytes).await.is_err() {
                            break;
                        }
                    }
                    // Frames only: a text message is no frame.
                    Message::Text(_) | Message::Close(_) => break,
                    Message::Ping(_) | Message::Pong(_) => {}
                }
            }
            // The framed server sees the client go.
            our_write.shutdown().await.ok();
        };
        let down = async {
            while let Ok(frame) = read_frame(&mut our_read, MAX_FRAME_BYTES).await {
                if sink.send(Message::Binary(frame.encode().into())).await.is_err() {
                    break;
                }
            }
        };
        let carried = async { tokio::join!(served, up, down) };
        tokio::select! {
            _ = carried => Ending::Closed,
            () = unpaired(admitted.revoked) => Ending::Unpaired,
            _ = open.changed() => Ending::Stopped,
        }
    };
    let close = match ending {
        Ending::Closed => None,
        Ending::Unpaired => Some((UNPAIRED, "This browser was unpaired from Switchboard.")),
        Ending::Stopped => Some((GOING_AWAY, "Switchboard stopped serving browsers.")),
    };
    if let Some((code, reason)) = close {
        let frame = CloseFrame { code, reason: reason.into() };
        if let Err(error) = sink.send(Message::Close(Some(frame))).await {
            tracing::debug!(%error, "a browser's socket could not be told why it closes");
        }
    }
    tracing::debug!(?ending, "a browser's socket closed");
    // Its receiver of the device's unpairing is gone: the device shows as closed.
    web.door.sockets_changed().await;
}

/// A socket opened without a valid credential: closed at once, saying so.
pub(super) async fn turn_away(mut socket: WebSocket) {
    let frame = CloseFrame { code: UNPAIRED, reason: NOT_PAIRED.into() };
    if let Err(error) = socket.send(Message::Close(Some(frame))).await {
        tracing::debug!(%error, "a browser that is not paired could not be told so");
    }
}

/// Why a socket without a valid credential closes.
const NOT_PAIRED: &str = "This browser is not paired with Switchboard (or was unpaired): pair it again.";

/// Ends when the device is unpaired (or the engine that knew it is gone).
async fn unpaired(mut revoked: watch::Receiver<bool>) {
    loop {
        if *revoked.borrow_and_update() {
            return;
        }
        if revoked.changed().await.is_err() {
            return;
        }
    }
}
