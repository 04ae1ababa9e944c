//! What the user may do to a task in each state, decided here and only here:
//! the engine refuses by these rules, and each task it sends carries the
//! actions they allow (`TaskRecord::actions`), so a window offers what the
//! engine would do instead of deciding it again.

use serde::{Deserialize, Serialize};
#[cfg(feature = "ts")]
use ts_rs::TS;

use super::TaskState;

/// Something the user may do to a task. A title may change in any state, so
/// renaming is not listed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(rename_all = "snake_case")]
pub enum TaskAction {
    /// `cancel_task`: it leaves its queue, or its agent is interrupted.
    Cancel,
    /// `move_task`: another place in its agent's queue.
    Move,
    /// `edit_task` with an instruction: it takes another one.
    EditInstruction,
    /// `requeue_task`: the same task goes back to the front of its queue.
    Requeue,
    /// `rerun_task`: a new task with the same spec; this one stays as it ended.
    Rerun,
}

/// What cancelling a task in a given state does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CancelEffect {
    /// It leaves the queue; the agent is not involved.
    Dequeue { reason: &'static str },
    /// The agent is interrupted (or its text withdrawn) and the queue moves on.
    Interrupt { reason: &'static str },
    /// Nothing to cancel.
    Refuse { reason: &'static str },
}

/// What cancelling a task in `state` does.
pub fn cancel_effect(state: TaskState) -> CancelEffect {
    match state {
        TaskState::Queued => CancelEffect::Dequeue { reason: "cancelled before it started" },
        TaskState::Running => CancelEffect::Interrupt { reason: "cancelled while it ran" },
        TaskState::Completed
        | TaskState::Failed
        | TaskState::TimedOut
        | TaskState::OverBudget
        | TaskState::Cancelled
        | TaskState::Interrupted => CancelEffect::Refuse { reason: "already finished" },
    }
}

/// Why a task in `state` may not move in its queue, if it may not.
pub fn move_refused(state: TaskState) -> Option<&'static str> {
    (state != TaskState::Queued).then_some("only queued tasks move")
}

/// Why the user may not give a task in `state` another instruction, if
/// they may not: what was typed into an agent stays as it was typed.
pub fn edit_refused(state: TaskState, loop_iteration: bool) -> Option<&'static str> {
    if loop_iteration {
        Some("a loop writes its iterations' instructions: change the loop's goal instead")
    } else if state != TaskState::Queued {
        Some("only a task still waiting in its queue takes another instruction: run it again with the new one instead")
    } else {
        None
    }
}

/// Why a task may not run again as a new task, if it may not.
pub fn rerun_refused(state: TaskState, loop_iteration: bool) -> Option<&'static str> {
    if !state.is_finished() {
        Some("it has not ended yet")
    } else if loop_iteration {
        Some("a loop runs its own iterations: start the loop again instead")
    } else {
        None
    }
}

/// Why a task may not go back in its queue, if it may not: only one that
/// ended without its work done may, and a loop's iteration is the loop's to
/// run again.
pub fn requeue_refused(state: TaskState, loop_iteration: bool) -> Option<&'static str> {
    if !state.is_finished() || state == TaskState::Completed {
        Some("only interrupted, failed, timed-out or cancelled tasks go back in the queue")
    } else if state == TaskState::OverBudget {
        // Its use stays its own: back in the queue it would be over at once.
        Some("it used its budget: run it again as a new task, with a larger budget")
    } else if loop_iteration {
        Some("a loop runs its own iterations: resume the loop instead")
    } else {
        None
    }
}

/// Why the user may not have a task typed now, if they may not: only a task
/// taken from the queue and not typed yet can be. (Not among a task's
/// [`TaskAction`]s: whether it was typed is the engine's live knowledge; the
/// window offers it from the task's wait.)
pub fn type_now_refused(state: TaskState, typed: bool) -> Option<&'static str> {
    match state {
        TaskState::Queued => Some("it waits in its queue: it is typed once its agent takes it"),
        TaskState::Running if typed => Some("it was already typed into its agent"),
        TaskState::Running => None,
        _ => Some("it has ended"),
    }
}

/// The actions a task in `state` allows, by the rules above.
pub fn task_actions(state: TaskState, loop_iteration: bool) -> Vec<TaskAction> {
    let allowed = [
        (TaskAction::Cancel, !matches!(cancel_effect(state), CancelEffect::Refuse { .. })),
        (TaskAction::Move, move_refused(state).is_none()),
        (TaskAction::EditInstruction, edit_refused(state, loop_iteration).is_none()),
        (TaskAction::Requeue, requeue_refused(state, loop_iteration).is_none()),
        (TaskAction::Rerun, rerun_refused(state, loop_iteration).is_none()),
    ];
    allowed.into_iter().filter_map(|(action, allowed)| allowed.then_some(action)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cancelling_in_every_state() {
        use TaskState::*;
        let cases = [
            (Queued, CancelEffect::Dequeue { reason: "cancelled before it started" }),
            (Running, CancelEffect::Interrupt { reason: "cancelled while it ran" }),
            (Completed, CancelEffect::Refuse { reason: "already finished" }),
            (Failed, CancelEffect::Refuse { reason: "already finished" }),
            (TimedOut, CancelEffect::Refuse { reason: "already finished" }),
            (Cancelled, CancelEffect::Refuse { reason: "already finished" }),
            (Interrupted, CancelEffect::Refuse { reason: "already finished" }),
            (OverBudget, CancelEffect::Refuse { reason: "already finished" }),
        ];
        for (state, expected) in cases {
            assert_eq!(cancel_effect(state), expected, "{state:?}");
        }
    }

    #[test]
    fn what_may_be_edited_run_again_and_requeued() {
        use TaskState::*;
        for state in [Queued, Running, Completed, Failed, TimedOut, Cancelled, Interrupted, OverBudget] {
            assert_eq!(edit_refused(state, false).is_none(), state == Queued, "edit {state:?}");
            assert!(edit_refused(state, true).is_some(), "a loop's iteration {state:?}");
            assert_eq!(rerun_refused(state, false).is_none(), state.is_finished(), "run again {state:?}");
            assert!(rerun_refused(state, true).is_some(), "a loop's iteration {state:?}");
            let requeued = matches!(state, Failed | TimedOut | Cancelled | Interrupted);
            assert_eq!(requeue_refused(state, false).is_none(), requeued, "requeue {state:?}");
            assert!(requeue_refused(state, true).is_some(), "a loop's iteration {state:?}");
        }
    }

    #[test]
    fn each_state_offers_what_the_engine_would_do() {
        use TaskAction::*;
        use TaskState::*;
        let cases: [(TaskState, bool, &[TaskAction]); 10] = [
            (Queued, false, &[Cancel, Move, EditInstruction]),
            (Queued, true, &[Cancel, Move]),
            (Running, false, &[Cancel]),
            (Completed, false, &[Rerun]),
            (Completed, true, &[]),
            (Failed, false, &[Requeue, Rerun]),
            (Failed, true, &[]),
            (TimedOut, false, &[Requeue, Rerun]),
            (Interrupted, false, &[Requeue, Rerun]),
            (OverBudget, false, &[Rerun]),
        ];
        for (state, loop_iteration, expected) in cases {
            assert_eq!(
                task_actions(state, loop_iteration),
                expected,
                "{state:?}, a loop's iteration: {loop_iteration}"
            );
        }
    }
}
