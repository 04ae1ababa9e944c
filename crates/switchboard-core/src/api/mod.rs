//! The engine's public vocabulary: the commands it takes, the events it
//! reports and the data they carry. Everything here is a plain serde type, so
//! the same values can cross the Tauri bridge today and a socket tomorrow;
//! TypeScript declarations for the UI are generated from these definitions
//! (see [`crate::bindings`]).

mod attention;
mod command;
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
mod worktree;

pub use attention::*;
pub use command::*;
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
pub use worktree::*;

/// Milliseconds since the Unix epoch.
pub type Millis = i64;

/// Wall-clock time, read at the engine's edge and passed into everything else.
pub(crate) fn now() -> Millis {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_millis() as Millis)
}
