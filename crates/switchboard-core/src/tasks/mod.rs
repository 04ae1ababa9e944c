//! The pieces of the task protocol that are not the engine's bookkeeping:
//! queue order, workspace watching, and collecting a task's result.

pub mod artifacts;
pub mod budget;
pub mod completion;
pub mod owned;
pub mod queue;
pub mod watch;
