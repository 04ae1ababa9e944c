//! Loops as recorded: an agent's fresh sessions toward one goal, each
//! iteration judged.

use serde::{Deserialize, Serialize};
use switchboard_protocol::loops::{Completion, LoopSettings, Verdict};
use switchboard_protocol::{LoopId, ProfileId, SessionId, TaskId};
#[cfg(feature = "ts")]
use ts_rs::TS;

use super::Millis;

/// The most of an iteration's stop reason that is kept.
pub const MAX_STOP_REASON_BYTES: usize = 4 * 1024;

/// Iterations a loop's info carries (its most recent): a long loop's history
/// (thousands of iterations) would otherwise travel to the window, and be
/// held there, at every change. Older ones are read page by page.
pub const LOOP_ITERATIONS_SHOWN: usize = 50;

/// The most iterations one page of a loop's history holds.
pub const MAX_ITERATION_PAGE: u32 = 200;

/// A loop's files in its agent's workspace (none: not there).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct LoopFiles {
    /// Its goal and rules, written by the app (the user may edit them).
    pub anchor: Option<String>,
    /// The agent's running notes, read by the judge.
    pub progress: Option<String>,
    /// Warnings learned from repeated failures (the user may edit them).
    pub guardrails: Option<String>,
}

/// A loop file the user may edit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(rename_all = "snake_case")]
pub enum LoopFile {
    Anchor,
    Guardrails,
}

/// The largest loop file the user may save.
pub const MAX_LOOP_FILE_BYTES: usize = 256 * 1024;

/// A loop and everything it did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct LoopInfo {
    pub id: LoopId,
    pub profile_id: ProfileId,
    pub settings: LoopSettings,
    pub created_at: Millis,
    pub state: LoopState,
    /// Its most recent iterations, oldest first: at most
    /// [`LOOP_ITERATIONS_SHOWN`]; older ones are read with `loop_iterations`.
    /// An iteration the app stopped during is kept, marked, and run again
    /// under the same number.
    pub iterations: Vec<Iteration>,
    /// Every iteration recorded (interrupted ones and failed starts too).
    pub iteration_count: u32,
    /// Iterations that count toward the cap: the ended ones.
    pub iterations_run: u32,
    /// What all its iterations used and cost (live: summed by the engine).
    #[serde(default)]
    pub spent: crate::Spent,
    /// How much of its budget it used, where it has one.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub budget_used: Option<crate::BudgetUse>,
}

/// Where a loop stands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum LoopState {
    /// Waiting for its turn in the agent's queue, or at work.
    Active,
    Complete {
        at: Millis,
        why: Completion,
    },
    /// Stuck: the same stop reason `repeated` times. It can be resumed.
    Stalled {
        at: Millis,
        repeated: u32,
        reason: String,
    },
    Cancelled {
        at: Millis,
    },
    /// Its agent ended before an iteration's prompt was typed, `attempts`
    /// times in a row (retried with growing waits in between): how it
    /// ended the last time (`exit`, in words) and what it printed last.
    FailedToStart {
        at: Millis,
        attempts: u32,
        exit: String,
        said: String,
    },
    /// Its agent's folder (`path`) is gone: nothing can run there. It can be
    /// resumed once the folder is back.
    WorkspaceGone {
        at: Millis,
        path: String,
    },
    /// It used all of its budget (`budget`, in words): its iteration at work
    /// ended over budget, and the loop with it.
    OverBudget {
        at: Millis,
        budget: String,
    },
}

/// One iteration: a fresh session of the agent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct Iteration {
    /// Its place in the loop's history, 1 for the first recorded (pages of
    /// older iterations are asked for before it).
    pub seq: u32,
    /// 1 for the first; an iteration run again after an interruption keeps
    /// its number, and the interrupted one does not count.
    pub number: u32,
    pub task_id: Option<TaskId>,
    pub session_id: Option<SessionId>,
    pub started_at: Millis,
    pub outcome: IterationOutcome,
    /// What it used and cost (live: summed by the engine from its task).
    #[serde(default)]
    pub spent: crate::Spent,
}

/// How an iteration went.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum IterationOutcome {
    Running,
    /// It ended (its turn, or its process); the judge said `verdict`.
    Ended {
        at: Millis,
        stop_reason: String,
        verdict: Verdict,
    },
    /// The app stopped (or crashed) during it: it does not count.
    Interrupted {
        at: Millis,
    },
    /// Its agent ended before the prompt was typed (`exit`, in words; what
    /// it printed last): not an iteration, it does not count; it is started
    /// again after a wait, under the same number.
    FailedStart {
        at: Millis,
        exit: String,
        said: String,
    },
}

impl LoopInfo {
    /// Iterations that count toward the cap: ended ones.
    pub fn iterations_run(&self) -> u32 {
        self.iterations_run
    }

    /// The stop reasons of the ended iterations it carries (its most
    /// recent), oldest first.
    pub fn stop_reasons(&self) -> Vec<String> {
        self.iterations
            .iter()
            .filter_map(|i| match &i.outcome {
                IterationOutcome::Ended { stop_reason, .. } => Some(stop_reason.clone()),
                _ => None,
            })
            .collect()
    }

    pub fn is_active(&self) -> bool {
        self.state == LoopState::Active
    }

    /// Whether it still holds its agent (active, or stopped until the user
    /// resumes it): one such loop per agent at a time.
    pub fn is_open(&self) -> bool {
        self.state.is_open()
    }
}

impl IterationOutcome {
    /// One word for the outcome, as the store selects on it.
    pub fn as_str(&self) -> &'static str {
        match self {
            IterationOutcome::Running => "running",
            IterationOutcome::Ended { .. } => "ended",
            IterationOutcome::Interrupted { .. } => "interrupted",
            IterationOutcome::FailedStart { .. } => "failed_start",
        }
    }
}

impl LoopState {
    /// Active, or stopped until the user resumes it (stalled, or its folder gone).
    pub fn is_open(&self) -> bool {
        matches!(self, LoopState::Active | LoopState::Stalled { .. } | LoopState::WorkspaceGone { .. })
    }

    /// Stopped until the user resumes it.
    pub fn resumable(&self) -> bool {
        matches!(self, LoopState::Stalled { .. } | LoopState::WorkspaceGone { .. })
    }

    /// One word for the state: active, complete, stalled or cancelled.
    pub fn as_str(&self) -> &'static str {
        match self {
            LoopState::Active => "active",
            LoopState::Complete { .. } => "complete",
            LoopState::Stalled { .. } => "stalled",
            LoopState::Cancelled { .. } => "cancelled",
            LoopState::FailedToStart { .. } => "failed_to_start",
            LoopState::WorkspaceGone { .. } => "workspace_gone",
            LoopState::OverBudget { .. } => "over_budget",
        }
    }

    /// Why the loop ended, in a sentence; none while it is active.
    pub fn reason(&self) -> Option<String> {
        Some(match self {
            LoopState::Active => return None,
            LoopState::Complete { why: Completion::StopWord { word }, .. } => {
                format!("the agent wrote the stop word {word} in its progress notes")
            }
            LoopState::Complete { why: Completion::Promise { text }, .. } => {
                format!("the agent kept its promise: {text}")
            }
            LoopState::Complete { why: Completion::MaxIterations { max }, .. } => {
                format!("it reached its cap of {max} iterations without the work said done")
            }
            LoopState::Stalled { repeated, reason, .. } => {
                let first = reason.lines().find(|l| !l.trim().is_empty()).unwrap_or_default().trim();
                format!("the same stop reason {repeated} times in a row: {first}")
            }
            LoopState::Cancelled { .. } => "it was cancelled".to_owned(),
            LoopState::OverBudget { budget, .. } => format!("it used its budget of {budget}"),
            LoopState::WorkspaceGone { path, .. } => {
                format!("its agent's folder {path} is gone; resume it once the folder is back")
            }
            LoopState::FailedToStart { attempts, exit, said, .. } => {
                let last = said.lines().rev().find(|l| !l.trim().is_empty()).map(str::trim);
                let mut words =
                    format!("its agent ended before it could be given the work, {attempts} times in a row ({exit})");
                if let Some(last) = last {
                    words.push_str(&format!(": {last}"));
                }
                words
            }
        })
    }
}

/// A stop reason as kept: at most [`MAX_STOP_REASON_BYTES`], its end (the
/// last words matter most), on a character boundary.
pub fn kept_stop_reason(reason: &str) -> String {
    if reason.len() <= MAX_STOP_REASON_BYTES {
        return reason.to_owned();
    }
    let mut from = reason.len() - MAX_STOP_REASON_BYTES;
    while !reason.is_char_boundary(from) {
        from += 1;
    }
    reason[from..].to_owned()
}
