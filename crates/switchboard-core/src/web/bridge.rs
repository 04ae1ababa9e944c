//! A paired browser's WebSocket, carried to a framed connection of the
//! engine's: each binary message is one frame, whole, each way. The engine
//! serves it as it serves the socket's clients, for the device its
//! credential named; the socket closes when the device is unpaired or the
//! server stops.

use std::sync::Arc;

use axum::extract::ws::{CloseFrame, Message, WebSocket};
use futures_util::{SinkExt, StreamExt};
use tokio::io::AsyncWriteExt;
use tokio::sync::{mpsc, watch};

use super::shared::Web;
use super::{Admitted, Doorkeeper};
use crate::server::Caller;
use switchboard_api::wire::{Frame, MAX_FRAME_BYTES, read_frame};

/// Bytes in flight in memory between the socket and the framed server, each way.
const CARRIED_BYTES: usize = 256 * 1024;

/// Frames of other machines waiting for a browser's socket.
const RELAYED_FRAMES: usize = 256;

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
    let (pushed, mut relayed) = mpsc::channel::<Frame>(RELAYED_FRAMES);
    let browser = crate::beyond::Browser { device: admitted.device, read_only: admitted.read_only };
    let mut relay =
        web.options.machines.as_ref().and_then(|machines| machines.0.open(browser, here(&web, caller), pushed));
    let ending = {
        let served = web.streams.serve(their_read, their_write, web.door.clone(), caller);
        let up = async {
            while let Some(Ok(message)) = stream.next().await {
                match message {
                    Message::Binary(bytes) => {
                        // Whole frames only; another machine's are the relay's.
                        let Some(frame) = whole_frame(&bytes) else { break };
                        let Some(frame) = (match relay.as_mut() {
                            Some(relay) => relay.up(frame),
                            None => Some(frame),
                        }) else {
                            continue;
                        };
                        if our_write.write_all(&frame.encode()).await.is_err() {
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
            // This engine's hello first: the relay's frames only after it.
            let mut hello_sent = false;
            loop {
                let frame = tokio::select! {
                    read = read_frame(&mut our_read, MAX_FRAME_BYTES) => match read {
                        Ok(frame) => frame,
                        Err(_) => break,
                    },
                    Some(frame) = relayed.recv(), if hello_sent => frame,
                };
                hello_sent = true;
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

/// One message as a frame: none if it is not exactly one frame.
fn whole_frame(bytes: &[u8]) -> Option<Frame> {
    let (head, body) = bytes.split_first_chunk::<5>()?;
    let length = u32::from_be_bytes(head[..4].try_into().expect("four bytes")) as usize;
    (length == body.len() + 1 && length <= MAX_FRAME_BYTES).then(|| Frame { kind: head[4], body: body.to_vec() })
}

/// Connections to this machine's engine for a relay, as the browser.
fn here<H: Doorkeeper>(web: &Arc<Web<H>>, caller: Caller) -> crate::beyond::Here {
    let web = web.clone();
    Arc::new(move || {
        let (ours, theirs) = tokio::io::duplex(CARRIED_BYTES);
        let web = web.clone();
        tokio::spawn(async move {
            let (read, write) = tokio::io::split(theirs);
            web.streams.serve(read, write, web.door.clone(), caller).await;
        });
        ours
    })
}
