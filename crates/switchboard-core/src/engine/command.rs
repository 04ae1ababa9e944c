//! Commands in the wire vocabulary (from the socket, the command line and
//! the window): each is the same typed call the handle makes, its result
//! wrapped in the [`Reply`] of its kind.

use super::state::EngineState;
use crate::error::Responder;
use switchboard_api::{Command, IntoReply, Reply};

macro_rules! dispatch {
    (@call now $engine:ident $reply:ident $out:ty, $method:ident ($($arg:ident),*)) => {
        $engine.answer($reply.map(|value: $out| value.into_reply()), |engine| engine.$method($($arg),*))
    };
    (@call later $engine:ident $reply:ident $out:ty, $method:ident ($($arg:ident),*)) => {
        $engine.$method($($arg,)* $reply.map(|value: $out| value.into_reply()))
    };
    ($(
        $(#[doc = $doc:literal])*
        $reach:ident $effect:ident $timing:ident $method:ident / $variant:ident ($($arg:ident : $ty:ty),* $(,)?) -> $out:ty;
    )*) => {
        impl EngineState {
            pub(super) fn on_command(&mut self, command: Command, reply: Responder<Reply>) {
                match command {
                    $(Command::$variant { $($arg),* } => dispatch!(@call $timing self reply $out, $method ($($arg),*)),)*
                }
            }
        }
    };
}

switchboard_api::engine_commands!(dispatch);
