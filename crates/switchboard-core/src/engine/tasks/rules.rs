//! The task desk's decisions, as pure functions: what cancelling does in
//! each state, how a task ends when its time runs out or its agent's
//! session ends, and what a submission must hold.

use std::time::Duration;

use crate::error::EngineError;
use crate::session::typing::Held;
use switchboard_api::{Millis, SessionState, TaskSpec, TaskState, WaitingFor};

/// Longest instruction accepted, in bytes.
pub const MAX_INSTRUCTION_BYTES: usize = 256 * 1024;
/// Longest context, specs or instructions text, in bytes.
pub const MAX_CONTEXT_BYTES: usize = 1024 * 1024;

pub(crate) use switchboard_api::{
    CancelEffect as Cancel, cancel_effect as cancel, edit_refused, move_refused, requeue_refused, rerun_refused,
    type_now_refused,
};

/// A title as the user typed it: trimmed, one line, not too long; an empty
/// one gives the task back its instruction's first line.
pub(crate) fn clean_title(title: &str) -> Result<Option<String>, EngineError> {
    let title = title.trim();
    let invalid = |reason: String| Err(EngineError::InvalidInput { field: "title", reason });
    if title.contains(['\n', '\r']) {
        return invalid("a title is one line".into());
    }
    if title.chars().count() > switchboard_api::TITLE_CHARS {
        return invalid(format!("at most {} characters", switchboard_api::TITLE_CHARS));
    }
    Ok((!title.is_empty()).then(|| title.to_owned()))
}

/// An instruction as the user typed it: trimmed, not empty, not too long.
pub(crate) fn clean_instruction(instruction: &str) -> Result<String, EngineError> {
    let invalid = |reason: String| Err(EngineError::InvalidInput { field: "instruction", reason });
    let instruction = instruction.trim();
    if instruction.is_empty() {
        return invalid("say what the agent should do".into());
    }
    if instruction.len() > MAX_INSTRUCTION_BYTES {
        return invalid(format!("at most {} KiB", MAX_INSTRUCTION_BYTES / 1024));
    }
    Ok(instruction.to_owned())
}

/// What becomes, at start, of a task the last run of the app left running
/// (it crashed or was killed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum AfterRestart {
    /// Its summary was written meanwhile: the work is done.
    Complete,
    /// The agent had it and may have done part of it: the user decides
    /// whether to run it again.
    Interrupt { reason: &'static str },
    /// The agent never saw it: it goes back to the front of its queue.
    Requeue,
}

pub(crate) fn after_restart(summary_written: bool, typed: bool) -> AfterRestart {
    match (summary_written, typed) {
        (true, _) => AfterRestart::Complete,
        (false, true) => AfterRestart::Interrupt { reason: "the app stopped while the task ran" },
        (false, false) => AfterRestart::Requeue,
    }
}

/// How a task whose session ended without its summary ends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SessionEndOutcome {
    pub state: TaskState,
    pub reason: String,
    /// Gather a fallback summary (the app is not quitting).
    pub fallback: bool,
    /// Pause the agent's queue: the user stopped it, so the app must not
    /// start it again behind their back.
    pub pause_queue: bool,
}

/// `quitting`: the app stops every agent; `typed`: the task reached the
/// agent; `killed`: this session was stopped (by the user, or by the app
/// quitting); `exit`: how it ended. A task left `Queued` goes back to the
/// front of its queue.
pub(crate) fn on_session_end(quitting: bool, typed: bool, killed: bool, exit: &SessionState) -> SessionEndOutcome {
    if quitting && !typed {
        // The agent never saw it: it waits for the next start, first.
        return SessionEndOutcome {
            state: TaskState::Queued,
            reason: "the app quit before the task reached the agent".into(),
            fallback: false,
            pause_queue: false,
        };
    }
    if quitting {
        // The task did not fail, it was cut short.
        return SessionEndOutcome {
            state: TaskState::Interrupted,
            reason: "the app quit while the task ran".into(),
            fallback: false,
            pause_queue: false,
        };
    }
    if killed {
        return SessionEndOutcome {
            state: TaskState::Cancelled,
            reason: "the agent was stopped; its queue is paused".into(),
            fallback: true,
            pause_queue: true,
        };
    }
    let how = match exit {
        SessionState::Exited { exit_code, signal: Some(signal), .. } => format!("{signal} (code {exit_code})"),
        SessionState::Exited { exit_code, .. } => format!("code {exit_code}"),
        _ => "unknown status".into(),
    };
    SessionEndOutcome {
        state: TaskState::Failed,
        reason: format!("the agent exited ({how}) before writing its summary"),
        fallback: true,
        pause_queue: false,
    }
}

/// Why a task timed out: it was typed and wrote no summary in time, or the
/// agent never became ready for it.
/// How an agent's session ended, in words ("it exited with code 3").
pub(crate) fn exit_in_words(exit: &SessionState, killed: bool) -> String {
    match exit {
        SessionState::Killed { .. } if killed => "its session was stopped".to_owned(),
        SessionState::Exited { signal: Some(signal), .. } | SessionState::Killed { signal: Some(signal), .. } => {
            format!("it was ended by {signal}")
        }
        SessionState::Exited { exit_code, .. } | SessionState::Killed { exit_code, .. } => {
            format!("it exited with code {exit_code}")
        }
        SessionState::Running { .. } => "it is still running".to_owned(),
        SessionState::Interrupted { .. } => "the app stopped while it ran".to_owned(),
    }
}

/// `waited`: what the task waited for when its time ran out, said after.
pub(crate) fn deadline_reason(typed: bool, limit: Duration, waited: Option<&WaitingFor>) -> String {
    let limit = human_secs(limit.as_secs());
    let reason = if typed {
        format!("the time limit of {limit} passed without a summary")
    } else {
        format!("the agent was not ready for input within {limit}")
    };
    match waited {
        Some(cause) => format!("{reason}; it waited for {}", cause.in_words()),
        None => reason,
    }
}

/// What the quiet watch sees of a task typed into its agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct QuietWatch {
    /// The agent's setting: alert after this many seconds without output or
    /// hook event; 0: never.
    pub alert_after_secs: u32,
    /// The latest of: the task typed, the agent's last output, its last hook event.
    pub last_activity: Millis,
    /// A question, a blocker or a permission prompt waits for the user: the
    /// agent is not expected to do anything.
    pub waits_on_user: bool,
    /// It leads teammates still at work: its own quiet is theirs.
    pub team_working: bool,
}

/// Whether a task at work has gone quiet for longer than its agent's alert
/// allows: since when, if so.
/// Whether a task's agent waits for the user: a signal of its waits for an
/// answer or a decision, or its hooks say it asks (a permission prompt). Its
/// time limit is paused meanwhile: the user may be away, and the agent
/// cannot go on without them.
pub(crate) fn waits_on_user(signal_waits: bool, hooks_ask: bool) -> bool {
    signal_waits || hooks_ask
}

pub(crate) fn quiet_since(watch: QuietWatch, now: Millis) -> Option<Millis> {
    if watch.alert_after_secs == 0 || watch.waits_on_user || watch.team_working {
        return None;
    }
    let quiet = now.saturating_sub(watch.last_activity);
    (quiet >= i64::from(watch.alert_after_secs) * 1000).then_some(watch.last_activity)
}

/// Where an unfinished task stands, as far as what it waits for goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TaskPlace<'a> {
    /// In its queue. (A queue that runs and holds tasks always has one at
    /// work: the queue takes the next as the last ends.)
    Queued { paused: bool, pause_reason: Option<&'a str> },
    /// Taken from the queue, not typed yet: what the agent's session last
    /// said holds it back (none: nothing yet), and the agent's ready pattern.
    Handed { held: Option<&'a Held>, pattern: Option<&'a str> },
    /// Typed into its agent. `teammates`: how many of its lead's teammates
    /// still work, when its completion is held for them.
    Typed { held_for: Option<u32> },
}

/// What an unfinished task waits for: none when it goes on by itself. The
/// user's answer comes first (nothing goes on without it), then what holds
/// the task where it is. `user_since`: since when its agent has waited for
/// the user, if it does; `refused`: why its agent's model refused it and
/// what the app waits for (a usage limit, an overloaded service, the
/// account's owner), which holds it whatever else would.
pub(crate) fn waiting_for(
    place: TaskPlace<'_>,
    user_since: Option<Millis>,
    refused: Option<&WaitingFor>,
) -> Option<WaitingFor> {
    if let (TaskPlace::Handed { .. } | TaskPlace::Typed { .. }, Some(since)) = (place, user_since) {
        return Some(WaitingFor::User { since });
    }
    match (place, refused) {
        // The user's own pause says more than the limit behind it.
        (TaskPlace::Queued { paused: true, .. }, _) => {}
        (_, Some(refused)) => return Some(refused.clone()),
        _ => {}
    }
    match place {
        TaskPlace::Queued { paused: true, pause_reason } => {
            Some(WaitingFor::QueuePaused { reason: pause_reason.map(str::to_owned) })
        }
        TaskPlace::Queued { paused: false, .. } => Some(WaitingFor::TaskAhead),
        TaskPlace::Handed { held: None, .. } => None,
        TaskPlace::Handed { held: Some(held), pattern } => Some(match held {
            Held::Output => WaitingFor::AgentOutput,
            Held::Hooks { until } => WaitingFor::Hooks { until: *until },
            Held::AgentBusy => WaitingFor::AgentBusy,
            Held::Prompt { last_line } => {
                WaitingFor::Prompt { last_line: last_line.clone(), pattern: pattern.unwrap_or_default().to_owned() }
            }
        }),
        TaskPlace::Typed { held_for: Some(working) } if working > 0 => Some(WaitingFor::Teammates { working }),
        TaskPlace::Typed { .. } => None,
    }
}

/// A task not typed yet whose agent shows no sign of life is flagged like a
/// quiet agent after this long at most (its agent's own quiet alert, when
/// shorter): a wait nothing moves is a wait the user must hear of.
pub const WAIT_ALERT_SECS: u32 = 60;

/// The quiet alert of a task not typed yet, for an agent whose alert is
/// `quiet_alert_secs` (0: never, as the user chose).
pub(crate) fn wait_alert_secs(quiet_alert_secs: u32) -> u32 {
    match quiet_alert_secs {
        0 => 0,
        alert => alert.min(WAIT_ALERT_SECS),
    }
}

fn human_secs(secs: u64) -> String {
    match secs {
        s if s % 3600 == 0 && s >= 3600 => format!("{} h", s / 3600),
        s if s % 60 == 0 && s >= 60 => format!("{} min", s / 60),
        s => format!("{s} s"),
    }
}

/// The most text goals or success criteria may hold (they are typed).
pub const MAX_BRIEF_BYTES: usize = 4 * 1024;

/// Checks a submission: an instruction, texts within their caps, a usable
/// time limit. Returns it with the instruction trimmed and empty optional
/// texts as none.
pub fn validate_task(mut spec: TaskSpec) -> Result<TaskSpec, EngineError> {
    let invalid = |field, reason: String| Err(EngineError::InvalidInput { field, reason });
    spec.instruction = clean_instruction(&spec.instruction)?;
    spec.title = match &spec.title {
        Some(title) => clean_title(title)?,
        None => None,
    };
    let optional = |text: Option<String>| text.filter(|t| !t.trim().is_empty());
    spec.context = optional(spec.context);
    spec.specs = optional(spec.specs);
    spec.instructions = optional(spec.instructions);
    spec.success_criteria = optional(spec.success_criteria);
    spec.goals = optional(spec.goals);
    if spec.loop_iteration.is_some() {
        return invalid("loop_iteration", "a loop makes its own iterations: start a loop instead".into());
    }
    for (field, text) in [("context", &spec.context), ("specs", &spec.specs), ("instructions", &spec.instructions)] {
        if text.as_ref().is_some_and(|t| t.len() > MAX_CONTEXT_BYTES) {
            return invalid(field, format!("at most {} KiB", MAX_CONTEXT_BYTES / 1024));
        }
    }
    // These are typed with the task: kept short (longer belongs in the context).
    for (field, text) in [("goals", &spec.goals), ("success_criteria", &spec.success_criteria)] {
        if text.as_ref().is_some_and(|t| t.len() > MAX_BRIEF_BYTES) {
            return invalid(field, format!("at most {} KiB; put longer text in the context", MAX_BRIEF_BYTES / 1024));
        }
    }
    if let Some(limit) = spec.time_limit_secs
        && !(1..=crate::validate::MAX_TIME_LIMIT_SECS).contains(&limit)
    {
        return invalid(
            "time_limit_secs",
            format!("between 1 second and {} days", crate::validate::MAX_TIME_LIMIT_SECS / 86_400),
        );
    }
    Ok(spec)
}

/// How long an agent whose hooks say it works must have shown nothing (no
/// output, no hook event) before its log is read for a turn that ended
/// without telling its hooks (Codex's failed turns: see `tasks::turns`). A
/// working Codex redraws its timer every second, so a quiet one is idle.
pub const UNREPORTED_TURN_QUIET_MS: Millis = 2_000;
/// How often its log is read again while it stays quiet.
pub const UNREPORTED_TURN_RELOOK_MS: Millis = 15_000;

/// Whether to read an agent's log now for a turn that ended unreported: its
/// hooks say it works, it has been quiet for [`UNREPORTED_TURN_QUIET_MS`],
/// and the log was not read during this quiet spell (`last_look`: the
/// agent's last activity when it was last read, and when) or not for
/// [`UNREPORTED_TURN_RELOOK_MS`].
pub fn look_for_unreported_turn(
    hooks_say_working: bool,
    last_activity: Millis,
    last_look: Option<(Millis, Millis)>,
    now: Millis,
) -> bool {
    hooks_say_working
        && now - last_activity >= UNREPORTED_TURN_QUIET_MS
        && last_look.is_none_or(|(seen, at)| seen != last_activity || now - at >= UNREPORTED_TURN_RELOOK_MS)
}

#[cfg(test)]
mod tests {
    #[test]
    fn after_a_restart_a_task_completes_waits_for_the_user_or_goes_back_in_the_queue() {
        let interrupted = AfterRestart::Interrupt { reason: "the app stopped while the task ran" };
        for (summary_written, typed, expected) in [
            (true, true, AfterRestart::Complete),
            // A summary without the typing recorded: the agent had it anyway.
            (true, false, AfterRestart::Complete),
            (false, true, interrupted),
            (false, false, AfterRestart::Requeue),
        ] {
            assert_eq!(after_restart(summary_written, typed), expected, "summary {summary_written}, typed {typed}");
        }
    }

    use switchboard_protocol::ProfileId;

    use super::*;

    #[test]
    fn titles_are_one_trimmed_line_and_empty_gives_the_first_line_back() {
        assert_eq!(clean_title("  Auth review  ").unwrap(), Some("Auth review".into()));
        assert_eq!(clean_title("   ").unwrap(), None);
        assert!(matches!(clean_title("two\nlines"), Err(EngineError::InvalidInput { field: "title", .. })));
        assert!(clean_title(&"é".repeat(switchboard_api::TITLE_CHARS)).is_ok());
        assert!(clean_title(&"é".repeat(switchboard_api::TITLE_CHARS + 1)).is_err());
        let spec = TaskSpec { title: Some(" ".into()), ..spec("Review the auth module\nand list risks") };
        let spec = validate_task(spec).unwrap();
        assert_eq!((spec.title.as_deref(), spec.title()), (None, "Review the auth module".to_owned()));
        assert_eq!(TaskSpec { title: Some("Auth".into()), ..spec }.title(), "Auth");
    }

    #[test]
    fn how_a_task_ends_with_its_session() {
        let exited = |code, signal: Option<&str>| SessionState::Exited {
            exit_code: code,
            signal: signal.map(str::to_owned),
            ended_at: 1,
        };
        let killed = SessionState::Killed { exit_code: 0, signal: None, ended_at: 1 };
        // (quitting, killed, exit) -> (state, reason, fallback, pause), for a typed task
        let cases = [
            (true, true, killed.clone(), TaskState::Interrupted, "the app quit while the task ran", false, false),
            (
                false,
                true,
                killed.clone(),
                TaskState::Cancelled,
                "the agent was stopped; its queue is paused",
                true,
                true,
            ),
            (
                false,
                false,
                exited(2, None),
                TaskState::Failed,
                "the agent exited (code 2) before writing its summary",
                true,
                false,
            ),
            (
                false,
                false,
                exited(134, Some("Aborted")),
                TaskState::Failed,
                "the agent exited (Aborted (code 134)) before writing its summary",
                true,
                false,
            ),
            (
                false,
                false,
                SessionState::Interrupted { ended_at: 1 },
                TaskState::Failed,
                "the agent exited (unknown status) before writing its summary",
                true,
                false,
            ),
        ];
        for (quitting, was_killed, exit, state, reason, fallback, pause_queue) in cases {
            assert_eq!(
                on_session_end(quitting, true, was_killed, &exit),
                SessionEndOutcome { state, reason: reason.into(), fallback, pause_queue },
                "quitting={quitting} killed={was_killed} {exit:?}"
            );
        }
        // Not typed yet: quitting puts it back in the queue; anything else ends it as above.
        let requeued = SessionEndOutcome {
            state: TaskState::Queued,
            reason: "the app quit before the task reached the agent".into(),
            fallback: false,
            pause_queue: false,
        };
        assert_eq!(on_session_end(true, false, true, &killed), requeued);
        assert_eq!(on_session_end(false, false, true, &killed).state, TaskState::Cancelled);
    }

    #[test]
    fn why_a_task_timed_out() {
        let cases = [
            (true, 45, "the time limit of 45 s passed without a summary"),
            (true, 120, "the time limit of 2 min passed without a summary"),
            (true, 7200, "the time limit of 2 h passed without a summary"),
            (true, 90, "the time limit of 90 s passed without a summary"),
            (false, 60, "the agent was not ready for input within 1 min"),
        ];
        for (typed, secs, reason) in cases {
            assert_eq!(deadline_reason(typed, Duration::from_secs(secs), None), reason);
        }
    }

    #[test]
    fn a_timed_out_task_says_what_it_waited_for() {
        let prompt = WaitingFor::Prompt { last_line: "agent>".into(), pattern: "demo> $".into() };
        assert_eq!(
            deadline_reason(false, Duration::from_secs(300), Some(&prompt)),
            "the agent was not ready for input within 5 min; it waited for the agent's prompt: its screen ends with \
             “agent>”, which the ready pattern “demo> $” does not match"
        );
        let team = WaitingFor::Teammates { working: 2 };
        assert_eq!(
            deadline_reason(true, Duration::from_secs(60), Some(&team)),
            "the time limit of 1 min passed without a summary; it waited for its 2 teammates, still at work"
        );
    }

    fn spec(instruction: &str) -> TaskSpec {
        TaskSpec::new(ProfileId::new(), instruction)
    }

    #[test]
    fn task_validation() {
        let field = |s: TaskSpec| validate_task(s).err().and_then(|e| e.field());
        assert_eq!(field(spec("  fix it ")), None);
        assert_eq!(validate_task(spec("  fix it ")).unwrap().instruction, "fix it");
        assert_eq!(field(spec(" \n ")), Some("instruction"));
        assert_eq!(field(spec(&"x".repeat(MAX_INSTRUCTION_BYTES + 1))), Some("instruction"));
        assert_eq!(field(TaskSpec { context: Some("x".repeat(MAX_CONTEXT_BYTES + 1)), ..spec("a") }), Some("context"));
        assert_eq!(field(TaskSpec { time_limit_secs: Some(0), ..spec("a") }), Some("time_limit_secs"));
        let cleaned = validate_task(TaskSpec { specs: Some("  ".into()), ..spec("a") }).unwrap();
        assert_eq!(cleaned.specs, None);
        // Typed with the task: kept short.
        let long = Some("x".repeat(MAX_BRIEF_BYTES + 1));
        assert_eq!(field(TaskSpec { goals: long.clone(), ..spec("a") }), Some("goals"));
        assert_eq!(field(TaskSpec { success_criteria: long, ..spec("a") }), Some("success_criteria"));
        assert_eq!(validate_task(TaskSpec { goals: Some(" ".into()), ..spec("a") }).unwrap().goals, None);
        // Only a loop makes its iterations.
        let iteration = switchboard_api::LoopIteration { loop_id: switchboard_protocol::LoopId::new(), number: 1 };
        assert_eq!(field(TaskSpec { loop_iteration: Some(iteration), ..spec("a") }), Some("loop_iteration"));
    }

    #[test]
    fn a_task_is_quiet_only_past_its_alert_while_nothing_excuses_it() {
        let watch =
            QuietWatch { alert_after_secs: 60, last_activity: 1_000, waits_on_user: false, team_working: false };
        let cases = [
            // (watch, now, quiet since)
            (watch, 60_999, None),
            (watch, 61_000, Some(1_000)),
            (watch, 500_000, Some(1_000)),
            (QuietWatch { alert_after_secs: 0, ..watch }, 500_000, None),
            (QuietWatch { waits_on_user: true, ..watch }, 500_000, None),
            (QuietWatch { team_working: true, ..watch }, 500_000, None),
            // A clock that went back is not quiet.
            (watch, 0, None),
        ];
        for (watch, now, expected) in cases {
            assert_eq!(quiet_since(watch, now), expected, "{watch:?} at {now}");
        }
    }

    #[test]
    fn every_wait_names_its_cause() {
        let prompt = Held::Prompt { last_line: "agent>".into() };
        let hooks = Held::Hooks { until: 9_000 };
        let pattern = Some("demo> $");
        let handed = |held| TaskPlace::Handed { held, pattern };
        let cases = [
            // (place, waiting for the user since, cause)
            (TaskPlace::Queued { paused: false, pause_reason: None }, None, Some(WaitingFor::TaskAhead)),
            (
                TaskPlace::Queued { paused: true, pause_reason: None },
                None,
                Some(WaitingFor::QueuePaused { reason: None }),
            ),
            (
                TaskPlace::Queued { paused: true, pause_reason: Some("you stopped the agent") },
                None,
                Some(WaitingFor::QueuePaused { reason: Some("you stopped the agent".into()) }),
            ),
            (handed(None), None, None),
            (handed(Some(&Held::Output)), None, Some(WaitingFor::AgentOutput)),
            (handed(Some(&hooks)), None, Some(WaitingFor::Hooks { until: 9_000 })),
            (handed(Some(&Held::AgentBusy)), None, Some(WaitingFor::AgentBusy)),
            (
                handed(Some(&prompt)),
                None,
                Some(WaitingFor::Prompt { last_line: "agent>".into(), pattern: "demo> $".into() }),
            ),
            // A question before it was typed (a permission dialog, say): the user first.
            (handed(Some(&Held::AgentBusy)), Some(5), Some(WaitingFor::User { since: 5 })),
            (TaskPlace::Typed { held_for: None }, None, None),
            (TaskPlace::Typed { held_for: None }, Some(7), Some(WaitingFor::User { since: 7 })),
            (TaskPlace::Typed { held_for: Some(2) }, None, Some(WaitingFor::Teammates { working: 2 })),
            (TaskPlace::Typed { held_for: Some(2) }, Some(7), Some(WaitingFor::User { since: 7 })),
            // Held, but the team is done meanwhile: it completes, it does not wait.
            (TaskPlace::Typed { held_for: Some(0) }, None, None),
        ];
        for (place, user_since, expected) in cases {
            assert_eq!(waiting_for(place, user_since, None), expected, "{place:?} user since {user_since:?}");
        }
        // A refusal holds the task wherever it is, after the user's answer
        // and the user's own pause.
        let limit = WaitingFor::UsageLimit { account: "a".into(), until: None, retry_at: 9 };
        let refused = [
            (TaskPlace::Queued { paused: false, pause_reason: None }, None, Some(limit.clone())),
            (
                TaskPlace::Queued { paused: true, pause_reason: None },
                None,
                Some(WaitingFor::QueuePaused { reason: None }),
            ),
            (handed(Some(&Held::AgentBusy)), None, Some(limit.clone())),
            (TaskPlace::Typed { held_for: Some(2) }, None, Some(limit.clone())),
            (TaskPlace::Typed { held_for: None }, Some(7), Some(WaitingFor::User { since: 7 })),
        ];
        for (place, user_since, expected) in refused {
            assert_eq!(waiting_for(place, user_since, Some(&limit)), expected, "{place:?} user since {user_since:?}");
        }
    }

    #[test]
    fn a_wait_is_flagged_after_a_minute_or_the_agents_shorter_alert_or_never() {
        for (alert, expected) in [(600, 60), (60, 60), (30, 30), (0, 0)] {
            assert_eq!(wait_alert_secs(alert), expected, "alert {alert}");
        }
    }

    #[test]
    fn only_a_task_taken_and_not_typed_may_be_typed_now() {
        use TaskState::*;
        for (state, typed, allowed) in [
            (Running, false, true),
            (Running, true, false),
            (Queued, false, false),
            (Completed, true, false),
            (Failed, false, false),
            (Cancelled, false, false),
        ] {
            assert_eq!(type_now_refused(state, typed).is_none(), allowed, "{state:?} typed {typed}");
        }
    }

    /// How a loop's agent that failed to start ended, as the loop's panel
    /// and its notification say it.
    #[test]
    fn an_agents_exit_is_said_in_words() {
        let exited = |exit_code, signal: Option<&str>| SessionState::Exited {
            exit_code,
            signal: signal.map(str::to_owned),
            ended_at: 1,
        };
        let killed = SessionState::Killed { exit_code: 0, signal: Some("SIGKILL".into()), ended_at: 1 };
        let cases = [
            (exited(3, None), false, "it exited with code 3"),
            (exited(0, None), false, "it exited with code 0"),
            (exited(1, Some("SIGSEGV")), false, "it was ended by SIGSEGV"),
            (killed.clone(), true, "its session was stopped"),
            (killed, false, "it was ended by SIGKILL"),
            (SessionState::Interrupted { ended_at: 1 }, false, "the app stopped while it ran"),
        ];
        for (exit, by_user, words) in cases {
            assert_eq!(exit_in_words(&exit, by_user), words, "{exit:?}");
        }
    }

    #[test]
    fn when_to_look_for_a_turn_that_ended_unreported() {
        let quiet = UNREPORTED_TURN_QUIET_MS;
        let relook = UNREPORTED_TURN_RELOOK_MS;
        // Hooks say it works, last activity at 1000, looked (activity seen, at), now: look?
        let cases = [
            (true, None, 1_000 + quiet, true),
            (true, None, 1_000 + quiet - 1, false),
            (false, None, 1_000 + quiet * 10, false),
            (true, Some((1_000, 1_000 + quiet)), 1_000 + quiet + 1, false),
            (true, Some((1_000, 1_000 + quiet)), 1_000 + quiet + relook, true),
            // It showed life since the last look: a new quiet spell.
            (true, Some((500, 500 + quiet)), 1_000 + quiet, true),
        ];
        for (working, last_look, now, expected) in cases {
            assert_eq!(
                look_for_unreported_turn(working, 1_000, last_look, now),
                expected,
                "{working} {last_look:?} {now}"
            );
        }
    }
}
