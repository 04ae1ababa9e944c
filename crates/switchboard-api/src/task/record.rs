//! A task in its flat form: what the window, the command line's `--json` and the store read.

use serde::{Deserialize, Serialize};
use switchboard_protocol::{SessionId, TaskId};
#[cfg(feature = "ts")]
use ts_rs::TS;

use super::{TaskAction, TaskInfo, TaskResult, TaskRun, TaskSpec, TaskState, TaskStatus, WaitingFor};
use crate::Millis;

/// A task in its flat form, as the window and the store see it: the
/// state's name beside every field any state can have.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[cfg_attr(feature = "ts", ts(rename = "TaskInfo"))]
pub struct TaskRecord {
    pub id: TaskId,
    #[serde(flatten)]
    pub spec: TaskSpec,
    pub state: TaskState,
    /// Queue order within a priority: lower runs first.
    pub order: i64,
    pub session_id: Option<SessionId>,
    pub created_at: Millis,
    /// When the queue took it.
    pub started_at: Option<Millis>,
    /// When it was typed into the agent; the time limit counts from here.
    pub typed_at: Option<Millis>,
    pub ended_at: Option<Millis>,
    /// The latest STATUS.txt while it runs.
    pub progress: Option<String>,
    /// Since when its agent has shown no output and no hook event while it
    /// runs, once that is longer than the agent's quiet alert: it may be stuck.
    #[serde(default)]
    pub quiet_since: Option<Millis>,
    /// Since when its agent has waited for the user's answer, while it runs;
    /// its time limit is paused meanwhile.
    #[serde(default)]
    pub waiting_since: Option<Millis>,
    /// How long it waited for the user before (not counted against its limit).
    #[serde(default)]
    pub waited_ms: u64,
    /// Why it failed, was cancelled or interrupted.
    pub reason: Option<String>,
    pub result: Option<TaskResult>,
    /// What it waits for while it does not go on by itself (live: not stored).
    #[serde(default)]
    pub waiting_for: Option<WaitingFor>,
    /// What the user may do to it now, as the engine decides it
    /// ([`task_actions`](super::task_actions)); the window offers these.
    #[serde(default)]
    pub actions: Vec<TaskAction>,
    /// Where it stands in its agent's queue while it is queued
    /// ([`pick_key`](super::pick_key)): the window lists a queue by it.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(type = "[number, number] | null"))]
    pub pick: Option<super::PickKey>,
    /// What it used and cost: its own tokens and, for a lead, its team's.
    #[serde(flatten, default)]
    pub spent: crate::TaskSpent,
}

impl From<TaskInfo> for TaskRecord {
    fn from(task: TaskInfo) -> TaskRecord {
        TaskRecord {
            actions: super::task_actions(task.state(), task.spec.loop_iteration.is_some()),
            pick: (task.state() == TaskState::Queued).then(|| super::pick_key(task.spec.priority, task.order)),
            state: task.state(),
            session_id: task.session_id().cloned(),
            started_at: task.run().map(|run| run.started_at),
            typed_at: task.typed_at(),
            ended_at: task.ended_at(),
            progress: task.progress().map(str::to_owned),
            quiet_since: task.quiet_since(),
            waiting_since: task.waiting_since(),
            waited_ms: task.run().map_or(0, |run| run.waited_ms),
            reason: task.reason().map(str::to_owned),
            result: task.result().cloned(),
            waiting_for: task.waiting_for,
            spent: task.spent,
            id: task.id,
            spec: task.spec,
            order: task.order,
            created_at: task.created_at,
        }
    }
}

impl TryFrom<TaskRecord> for TaskInfo {
    type Error = crate::RecordMismatch;

    /// A record whose fields do not fit its state (an ended task without an
    /// end time, a completed one without its result) is refused.
    fn try_from(record: TaskRecord) -> Result<TaskInfo, crate::RecordMismatch> {
        let run = match (record.session_id, record.started_at) {
            (Some(session_id), Some(started_at)) => Some(TaskRun {
                session_id,
                started_at,
                typed_at: record.typed_at,
                progress: record.progress,
                quiet_since: record.quiet_since,
                waiting_since: record.waiting_since,
                waited_ms: record.waited_ms,
            }),
            _ => None,
        };
        let state = record.state;
        let missing = |lacks: &'static str| crate::RecordMismatch { what: "task", state: state.as_str(), lacks };
        let ended_at = || record.ended_at.ok_or_else(|| missing("its end time"));
        let reason = || record.reason.clone().unwrap_or_default();
        let status = match state {
            TaskState::Queued => TaskStatus::Queued,
            TaskState::Running => TaskStatus::Running { run: run.ok_or_else(|| missing("its session"))? },
            TaskState::Completed => TaskStatus::Completed {
                run: run.ok_or_else(|| missing("its session"))?,
                ended_at: ended_at()?,
                result: record.result.clone().ok_or_else(|| missing("its result"))?,
            },
            TaskState::TimedOut => TaskStatus::TimedOut {
                run: run.ok_or_else(|| missing("its session"))?,
                ended_at: ended_at()?,
                reason: reason(),
                result: record.result.clone().ok_or_else(|| missing("its result"))?,
            },
            TaskState::OverBudget => TaskStatus::OverBudget {
                run: run.ok_or_else(|| missing("its session"))?,
                ended_at: ended_at()?,
                reason: reason(),
                result: record.result.clone().ok_or_else(|| missing("its result"))?,
            },
            TaskState::Failed => {
                TaskStatus::Failed { run, ended_at: ended_at()?, reason: reason(), result: record.result.clone() }
            }
            TaskState::Cancelled => {
                TaskStatus::Cancelled { run, ended_at: ended_at()?, reason: reason(), result: record.result.clone() }
            }
            TaskState::Interrupted => TaskStatus::Interrupted { run, ended_at: ended_at()?, reason: reason() },
        };
        Ok(TaskInfo {
            id: record.id,
            spec: record.spec,
            order: record.order,
            created_at: record.created_at,
            status,
            waiting_for: if state.is_finished() { None } else { record.waiting_for },
            spent: record.spent,
        })
    }
}
