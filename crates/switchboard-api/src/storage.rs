//! Whether the app can write its data, as the window is told.

use serde::{Deserialize, Serialize};
#[cfg(feature = "ts")]
use ts_rs::TS;

/// Why the data cannot be written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum StorageProblem {
    /// The disk holding the data directory is full.
    Full,
    /// The data directory cannot be written (read-only, or no permission).
    ReadOnly,
    /// Writing failed for another reason, said in `detail`.
    Failing { detail: String },
}

/// Where the data lives and whether it can be written now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct StorageStatus {
    pub data_dir: String,
    pub problem: Option<StorageProblem>,
    /// Hook events spooled while no app ran that could not be read at this
    /// start; they are kept, byte for byte, in `set_aside_file`.
    pub hook_events_set_aside: u32,
    pub set_aside_file: String,
}
