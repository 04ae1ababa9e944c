//! The engine's public vocabulary: the commands it takes, the events it
//! reports and the data they carry, the framing every transport carries them
//! in ([`wire`]) and the hook's messages. Everything here is a plain serde
//! type: the engine, the client library, the command line, the window and the
//! hook all speak it, and none of them needs the engine to do so. TypeScript
//! declarations for the UI are generated from these definitions (the `ts`
//! feature).

#[cfg(feature = "ts")]
pub mod bindings;
pub mod line;
pub mod place;
pub mod wire;

/// The shared ids and parsers, as the commands name them.
pub use switchboard_protocol as protocol;

mod attention;
mod automation;
mod command;
mod cost;
mod delegation;
mod event;
mod flow;
mod limits;
mod loops;
mod profile;
mod search;
mod settings;
mod signal;
mod storage;
mod task;
mod web;
mod worktree;

pub use attention::*;
pub use automation::*;
pub use command::*;
pub use cost::*;
pub use delegation::*;
pub use event::*;
pub use flow::*;
pub use limits::*;
pub use loops::*;
pub use profile::*;
pub use search::*;
pub use settings::*;
pub use signal::*;
pub use storage::*;
pub use task::*;
pub use web::*;
pub use worktree::*;

/// Milliseconds since the Unix epoch.
pub type Millis = i64;

/// Wall-clock time, read at the edge (the engine's, a client's) and passed
/// into everything else.
pub fn now() -> Millis {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_millis() as Millis)
}

/// A stored or sent record whose fields do not fit its state: a task that
/// ended without its end time, a settled signal without its response.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("a {state} {what} without {lacks}")]
pub struct RecordMismatch {
    /// What the record is of ("task", "signal").
    pub what: &'static str,
    /// The state it says it is in.
    pub state: &'static str,
    /// What that state needs and it lacks.
    pub lacks: &'static str,
}

/// Names one subscription to a session's output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SubscriptionId(pub u32);
