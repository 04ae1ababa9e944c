//! The pieces of the task protocol that are not the engine's bookkeeping:
//! queue order, workspace watching, and collecting a task's result.

pub mod artifacts;
pub mod completion;
pub mod queue;
pub mod teach;
pub mod watch;
