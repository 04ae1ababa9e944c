//! The rules an automation's runs follow (pure): a run whose previous one
//! is still at work, the hourly cap, runs missed while the engine was down,
//! an automation that keeps failing, and chains that lead back to
//! themselves.

use switchboard_api::{CatchUp, LoopState, Millis, Overlap, TaskState};
use switchboard_protocol::ProfileId;

/// How late a scheduled run may be judged and still be on time: the engine
/// judges schedules every second; later than this it was down, or the
/// machine slept.
pub const ON_TIME_MS: Millis = 60_000;

/// Runs in a row that ended badly before an automation pauses itself.
pub const FAILING_RUNS: usize = 5;

/// The most runs an hour an automation may be allowed.
pub const MAX_RUNS_PER_HOUR: u32 = 60;

/// What the previous run made, as it stands now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Previous {
    Task(TaskState),
    /// A loop: whether it is still active (or stalled).
    Loop {
        open: bool,
    },
}

/// Why a run is not made because of the one before, if it is not: that one
/// is still queued or at work and the automation skips overlapping runs.
pub fn overlap_refusal(previous: Option<Previous>, overlap: Overlap) -> Option<String> {
    let why = match previous? {
        Previous::Task(TaskState::Queued) => "its last run's task is still queued",
        Previous::Task(TaskState::Running) => "its last run's task is still at work",
        Previous::Loop { open: true } => "its last run's loop is still going",
        _ => return None,
    };
    match overlap {
        Overlap::Skip => Some(format!("skipped: {why}")),
        // A loop cannot queue behind another on one agent.
        Overlap::Queue if matches!(previous, Some(Previous::Loop { .. })) => Some(format!("skipped: {why}")),
        Overlap::Queue => None,
    }
}

/// Why a run is held back by the hourly cap, if it is: `made` runs made
/// work in the last hour.
pub fn cap_refusal(made: u32, cap: u32) -> Option<String> {
    (made >= cap).then(|| {
        let times = if cap == 1 { "once".to_owned() } else { format!("{cap} times") };
        format!("held back: it already ran {times} in the last hour, its most")
    })
}

/// What the schedule's runs due since it was last judged (`due`, oldest
/// first) call for at `now`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Judged {
    Nothing,
    /// Run now; `missed` runs before this one were not made (the engine was
    /// down, the machine asleep).
    Run {
        missed: usize,
        caught_up: bool,
    },
    /// `missed` runs were not made, and are not caught up.
    Missed {
        missed: usize,
    },
}

pub fn judge(due: &[Millis], now: Millis, catch_up: CatchUp) -> Judged {
    let Some(last) = due.last() else { return Judged::Nothing };
    let on_time = now - last <= ON_TIME_MS;
    let missed = if on_time { due.len() - 1 } else { due.len() };
    match (on_time, catch_up) {
        (true, _) => Judged::Run { missed, caught_up: false },
        (false, CatchUp::Once) => Judged::Run { missed, caught_up: true },
        (false, CatchUp::Skip) => Judged::Missed { missed },
    }
}

/// Why a run fired after missed runs, in words.
pub fn missed_words(missed: usize) -> String {
    match missed {
        1 => "1 run was missed while the engine was not running (or the machine slept)".to_owned(),
        n => format!("{n} runs were missed while the engine was not running (or the machine slept)"),
    }
}

/// How long after its own run's task ended a folder's changes are still
/// taken to be that run's (what its agent wrote last, settling).
pub const OWN_CHANGES_MS: Millis = 4_000;

/// Whether changes a file trigger saw are its own run's: its last run's
/// task (its state, and when it ended) is still queued or at work, or ended
/// a moment ago.
pub fn own_changes(last_run: Option<(TaskState, Option<Millis>)>, now: Millis) -> bool {
    match last_run {
        None => false,
        Some((TaskState::Queued | TaskState::Running, _)) => true,
        Some((_, ended)) => ended.is_some_and(|ended| now - ended < OWN_CHANGES_MS),
    }
}

/// Whether a task that ended so counts as a run that ended badly.
pub fn ended_badly(state: TaskState) -> bool {
    matches!(state, TaskState::Failed | TaskState::TimedOut | TaskState::OverBudget)
}

/// Whether a loop that ended so counts as a run that ended badly: it could
/// not go on by itself (stuck, its agent never started, its folder gone) or
/// used its budget. A loop the user cancelled did not fail.
pub fn loop_ended_badly(state: &LoopState) -> bool {
    matches!(
        state,
        LoopState::Stalled { .. }
            | LoopState::FailedToStart { .. }
            | LoopState::WorkspaceGone { .. }
            | LoopState::OverBudget { .. }
    )
}

/// Whether an automation whose ended runs went so (oldest first; `true`:
/// ended badly) should pause itself: its last [`FAILING_RUNS`] all did.
pub fn failing(badly: &[bool]) -> bool {
    badly.len() >= FAILING_RUNS && badly[badly.len() - FAILING_RUNS..].iter().all(|b| *b)
}

/// Whether a chain from `from` (its task's end) to `to` (given work) leads
/// back to itself, given the chains there are (each `(from, to)`): `to`'s
/// work ending would, chain by chain, give `from` work again, and so on.
pub fn chain_loops(chains: &[(ProfileId, ProfileId)], from: &ProfileId, to: &ProfileId) -> bool {
    let mut reached = vec![to.clone()];
    let mut next = 0;
    while let Some(at) = reached.get(next).cloned() {
        if &at == from {
            return true;
        }
        for (a, b) in chains {
            if a == &at && !reached.contains(b) {
                reached.push(b.clone());
            }
        }
        next += 1;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use switchboard_protocol::loops::Completion;

    #[test]
    fn a_run_over_one_still_at_work_is_skipped_unless_it_may_queue() {
        let cases = [
            (None, Overlap::Skip, None),
            (Some(Previous::Task(TaskState::Completed)), Overlap::Skip, None),
            (Some(Previous::Task(TaskState::Failed)), Overlap::Skip, None),
            (
                Some(Previous::Task(TaskState::Queued)),
                Overlap::Skip,
                Some("skipped: its last run's task is still queued"),
            ),
            (
                Some(Previous::Task(TaskState::Running)),
                Overlap::Skip,
                Some("skipped: its last run's task is still at work"),
            ),
            (Some(Previous::Task(TaskState::Running)), Overlap::Queue, None),
            (Some(Previous::Loop { open: true }), Overlap::Queue, Some("skipped: its last run's loop is still going")),
            (Some(Previous::Loop { open: false }), Overlap::Skip, None),
        ];
        for (previous, overlap, said) in cases {
            assert_eq!(overlap_refusal(previous, overlap).as_deref(), said, "{previous:?} {overlap:?}");
        }
    }

    #[test]
    fn the_hourly_cap_holds_back_a_run_saying_so() {
        assert_eq!(cap_refusal(5, 6), None);
        assert_eq!(cap_refusal(6, 6).as_deref(), Some("held back: it already ran 6 times in the last hour, its most"));
        assert_eq!(cap_refusal(1, 1).as_deref(), Some("held back: it already ran once in the last hour, its most"));
    }

    #[test]
    fn runs_due_are_run_on_time_or_caught_up_once_or_skipped() {
        let now = 10_000_000;
        let cases: [(&[Millis], CatchUp, Judged); 6] = [
            (&[], CatchUp::Once, Judged::Nothing),
            (&[now - 1_000], CatchUp::Skip, Judged::Run { missed: 0, caught_up: false }),
            (&[now - ON_TIME_MS], CatchUp::Skip, Judged::Run { missed: 0, caught_up: false }),
            // Down over three runs: one run for all, or none.
            (
                &[now - 3_000_000, now - 2_000_000, now - 1_000_000],
                CatchUp::Once,
                Judged::Run { missed: 3, caught_up: true },
            ),
            (&[now - 3_000_000, now - 2_000_000, now - 1_000_000], CatchUp::Skip, Judged::Missed { missed: 3 }),
            // Back just in time for the latest: it runs, the earlier ones were missed.
            (&[now - 2_000_000, now - 5_000], CatchUp::Skip, Judged::Run { missed: 1, caught_up: false }),
        ];
        for (due, catch_up, judged) in cases {
            assert_eq!(judge(due, now, catch_up), judged, "{due:?} {catch_up:?}");
        }
        assert_eq!(missed_words(1), "1 run was missed while the engine was not running (or the machine slept)");
    }

    #[test]
    fn changes_made_while_its_own_run_works_are_its_own() {
        let now = 100_000;
        let cases = [
            (None, false),
            (Some((TaskState::Queued, None)), true),
            (Some((TaskState::Running, None)), true),
            (Some((TaskState::Completed, Some(now - 1_000))), true),
            (Some((TaskState::Failed, Some(now - OWN_CHANGES_MS))), false),
            (Some((TaskState::Completed, Some(now - 60_000))), false),
        ];
        for (last, own) in cases {
            assert_eq!(own_changes(last, now), own, "{last:?}");
        }
    }

    #[test]
    fn five_bad_ends_in_a_row_pause_an_automation() {
        use TaskState::*;
        let cases: [(&[TaskState], bool); 5] = [
            (&[Failed, Failed, Failed, Failed], false),
            (&[Failed, TimedOut, OverBudget, Failed, Failed], true),
            (&[Completed, Failed, Failed, Failed, Failed, Failed], true),
            (&[Failed, Failed, Failed, Failed, Completed], false),
            (&[Failed, Failed, Cancelled, Failed, Failed], false),
        ];
        for (ended, pauses) in cases {
            let badly: Vec<bool> = ended.iter().map(|state| ended_badly(*state)).collect();
            assert_eq!(failing(&badly), pauses, "{ended:?}");
        }
    }

    #[test]
    fn a_loop_ends_badly_when_it_could_not_go_on_by_itself() {
        let cases = [
            (LoopState::Complete { at: 1, why: Completion::MaxIterations { max: 3 } }, false),
            (LoopState::Cancelled { at: 1 }, false),
            (LoopState::Stalled { at: 1, repeated: 3, reason: "tests fail".into() }, true),
            (LoopState::FailedToStart { at: 1, attempts: 3, exit: "exit 1".into(), said: String::new() }, true),
            (LoopState::WorkspaceGone { at: 1, path: "/gone".into() }, true),
            (LoopState::OverBudget { at: 1, budget: "$1.00".into() }, true),
        ];
        for (state, badly) in cases {
            assert_eq!(loop_ended_badly(&state), badly, "{state:?}");
        }
    }

    #[test]
    fn a_chain_that_leads_back_to_itself_is_found() {
        let [a, b, c, d] = [(); 4].map(|()| ProfileId::new());
        let chains = vec![(a.clone(), b.clone()), (b.clone(), c.clone())];
        assert!(chain_loops(&chains, &c, &a), "c -> a closes a -> b -> c");
        assert!(chain_loops(&chains, &a, &a), "an agent after itself");
        assert!(!chain_loops(&chains, &c, &d));
        assert!(!chain_loops(&chains, &a, &c), "a second way from a to c is no ring");
        assert!(chain_loops(&[(a.clone(), b.clone())], &b, &a));
    }
}
