//! The task desk over an in-memory store and stand-in sessions: what each
//! step of a task's life sends to its session and records.

use switchboard_protocol::summary::SummaryStatus;
use switchboard_protocol::{AgentKind, TaskId};
use tokio::sync::mpsc;

use super::*;
use crate::engine::context::Follow;
use crate::engine::status;
use crate::engine::testing::{Bench, typed_in};
use crate::session::Control;
use switchboard_api::{CompletionRule, LogKind, Profile, ScreenSnapshot, TaskSpec};

struct Desk {
    bench: Bench,
    desk: TaskDesk,
    notes: mpsc::UnboundedReceiver<TaskNote>,
    _watch: mpsc::UnboundedReceiver<WatchEvent>,
    profile: Profile,
}

impl Desk {
    fn new(rule: CompletionRule) -> Desk {
        let mut bench = Bench::new();
        let mut profile = bench.profile("worker", AgentKind::Generic);
        profile.spec.completion = rule;
        bench.cx.store.update_profile(&profile.id, &profile.spec).unwrap();
        let (notes_tx, notes) = mpsc::unbounded_channel();
        let (watch_tx, _watch) = mpsc::unbounded_channel();
        Desk { bench, desk: TaskDesk::new(notes_tx, watch_tx), notes, _watch, profile }
    }

    fn submit(&mut self, instruction: &str) -> TaskInfo {
        let spec = TaskSpec::new(self.profile.id.clone(), instruction);
        let id = self.desk.submit(&mut self.bench.cx, spec).unwrap().task.id;
        self.task(&id)
    }

    fn task(&self, id: &TaskId) -> TaskInfo {
        self.desk.get(&self.bench.cx, id).unwrap()
    }

    fn session(&self, id: &TaskId) -> SessionId {
        self.task(id).session_id().cloned().expect("the task was given to a session")
    }

    /// The session types the task (answering its request) and the desk
    /// hears of it.
    fn type_it(&mut self, id: &TaskId) {
        let session = self.session(id);
        let typed = self.bench.typed(&session);
        assert_eq!(typed.len(), 1, "one text typed");
        assert!(typed[0].contains(&format!("summaries/{id}.md")), "the prompt names the summary file");
        self.take_notes();
    }

    /// Hands the notes the desk's helpers sent back to it.
    fn take_notes(&mut self) {
        while let Ok(note) = self.notes.try_recv() {
            self.desk.on_note(&mut self.bench.cx, note);
        }
    }

    fn write_summary(&self, id: &TaskId, status: &str) {
        let dir = self.bench.workspace.path().join("summaries");
        std::fs::write(dir.join(format!("{id}.md")), format!("# Task Completion Summary\n## Status\n{status}\n"))
            .unwrap();
    }

    fn summary_arrives(&mut self, id: &TaskId) {
        let workspace = self.bench.workspace.path().canonicalize().unwrap();
        let event = WatchEvent::Summary { workspace, name: format!("{id}.md") };
        self.desk.on_watch_event(&mut self.bench.cx, event);
    }
}

#[tokio::test]
async fn a_task_is_handed_to_a_new_session_and_typed_once_ready() {
    let mut desk = Desk::new(CompletionRule::Summary);
    let task = desk.submit("fix the build");
    let task = desk.task(&task.id);
    assert_eq!(task.state(), TaskState::Running);
    assert!(desk.bench.cx.sessions.is_running(&task.session_id().cloned().unwrap()));
    assert_eq!(task.typed_at(), None, "not typed until the session says so");
    // What the terminal shows: the user's instruction, then a line pointing to the
    // signal protocols and one to the summary's format, both in the workspace.
    let session = task.session_id().cloned().unwrap();
    let typed = desk.bench.typed(&session);
    assert_eq!(
        typed[0],
        format!(
            "fix the build\n\n{}\n\nWhen you are done, create summaries/{}.md as .switchboard/completion.md \
             describes; do not start other work before.",
            switchboard_protocol::signal::teach::pointer(&session.to_string()),
            task.id
        )
    );
    let format = std::fs::read_to_string(desk.bench.workspace.path().join(".switchboard/completion.md")).unwrap();
    assert!(format.contains("## Key Deliverables"), "{format}");
    desk.take_notes();
    assert!(desk.task(&task.id).typed_at().is_some());
    let timeline = desk.desk.timeline(&desk.bench.cx, &task.id).unwrap();
    let kinds: Vec<_> = timeline.iter().map(|e| std::mem::discriminant(&e.kind)).collect();
    assert_eq!(kinds.len(), 3, "queued, started, typed: {timeline:?}");
}

#[tokio::test]
async fn cancelling_in_each_state() {
    let mut desk = Desk::new(CompletionRule::Summary);
    // Running, not typed yet: its text is withdrawn.
    let first = desk.submit("one");
    let second = desk.submit("two");
    let session = desk.session(&first.id);
    let cancelled = desk.desk.cancel(&mut desk.bench.cx, &first.id).unwrap();
    assert_eq!((cancelled.state(), cancelled.reason()), (TaskState::Cancelled, Some("cancelled while it ran")));
    let controls = desk.bench.controls(&session);
    let withdrawn = controls.iter().any(|c| matches!(c, Control::CancelType(tag) if *tag == first.id.to_string()));
    assert!(withdrawn, "the untyped text is withdrawn");
    // The queue moved on to the next task, in the same session.
    assert_eq!(desk.task(&second.id).state(), TaskState::Running);
    assert_eq!(desk.session(&second.id), session);
    let typed = typed_in(controls);
    assert!(typed[typed.len() - 1].starts_with("two"), "{typed:?}");
    desk.take_notes();

    // Running and typed: the agent is interrupted with its kind's key.
    desk.desk.cancel(&mut desk.bench.cx, &second.id).unwrap();
    let interrupted =
        desk.bench.controls(&session).into_iter().any(|c| matches!(c, Control::Write(bytes, _) if bytes == b"\x03"));
    assert!(interrupted, "Ctrl-C was sent to the generic agent");

    // Queued: it leaves the queue; the agent is not involved.
    desk.desk.set_paused(&mut desk.bench.cx, Some(desk.profile.id.clone()), true).unwrap();
    let queued = desk.submit("three");
    assert_eq!(desk.task(&queued.id).state(), TaskState::Queued);
    let cancelled = desk.desk.cancel(&mut desk.bench.cx, &queued.id).unwrap();
    assert_eq!(cancelled.reason(), Some("cancelled before it started"));
    assert!(desk.bench.controls(&session).is_empty());

    // Finished: refused, and it stays as it was.
    let error = desk.desk.cancel(&mut desk.bench.cx, &queued.id).unwrap_err();
    assert!(matches!(error, EngineError::TaskState { reason: "already finished", .. }), "{error}");
    assert_eq!(desk.task(&queued.id).state(), TaskState::Cancelled);
}

#[tokio::test]
async fn a_waiting_task_is_typed_as_edited_and_a_completed_one_runs_again_as_a_new_task() {
    let mut desk = Desk::new(CompletionRule::Summary);
    let first = desk.submit("one");
    let waiting = desk.submit("draft the notes");
    assert_eq!(desk.task(&waiting.id).state(), TaskState::Queued);
    let edited = desk
        .desk
        .edit(&mut desk.bench.cx, &waiting.id, Some(" Notes ".into()), Some("  write the release notes  ".into()))
        .unwrap();
    assert_eq!(
        (edited.spec.title.as_deref(), edited.spec.instruction.as_str()),
        (Some("Notes"), "write the release notes")
    );
    // Once typed, its instruction stays as it was typed; its name may still change.
    let refused = desk.desk.edit(&mut desk.bench.cx, &first.id, None, Some("another".into())).unwrap_err();
    assert!(matches!(refused, EngineError::TaskState { state: "running", .. }), "{refused}");
    desk.desk.edit(&mut desk.bench.cx, &first.id, Some("First".into()), None).unwrap();
    assert_eq!(desk.task(&first.id).spec.title(), "First");

    desk.type_it(&first.id);
    desk.write_summary(&first.id, "COMPLETED");
    desk.summary_arrives(&first.id);
    // The next task is typed with the new text.
    let session = desk.session(&waiting.id);
    let typed = desk.bench.typed(&session);
    assert!(typed.last().unwrap().starts_with("write the release notes\n"), "{typed:?}");

    let again = desk.desk.rerun(&mut desk.bench.cx, &first.id).unwrap();
    assert_ne!(again.task.id, first.id);
    assert_eq!((again.task.spec.instruction.as_str(), again.task.spec.title()), ("one", "First".to_owned()));
    assert_eq!(again.position, Some(1), "queued behind the task at work");
    assert_eq!(desk.task(&first.id).state(), TaskState::Completed, "the first run stays as it ended");
    let refused = desk.desk.rerun(&mut desk.bench.cx, &waiting.id).unwrap_err();
    assert!(matches!(refused, EngineError::TaskState { state: "running", .. }), "{refused}");
    let timeline = desk.desk.timeline(&desk.bench.cx, &waiting.id).unwrap();
    assert!(timeline.iter().any(|e| e.kind == LogKind::TaskEdited { title: true, instruction: true }), "{timeline:?}");
}

#[tokio::test]
async fn a_finished_task_goes_back_in_the_queue_but_a_completed_one_does_not() {
    let mut desk = Desk::new(CompletionRule::Summary);
    let task = desk.submit("one");
    desk.desk.cancel(&mut desk.bench.cx, &task.id).unwrap();
    // The stand-in keeps the withdrawn text; a real session forgets it.
    drop(desk.bench.controls(&desk.session(&task.id)));
    let again = desk.desk.requeue(&mut desk.bench.cx, &task.id).unwrap();
    assert_eq!(again.state(), TaskState::Running, "requeued, and taken at once");
    assert_eq!((again.reason(), again.ended_at(), again.result()), (None, None, None));
    desk.type_it(&task.id);
    desk.write_summary(&task.id, "COMPLETED");
    desk.summary_arrives(&task.id);
    assert_eq!(desk.task(&task.id).state(), TaskState::Completed);
    let error = desk.desk.requeue(&mut desk.bench.cx, &task.id).unwrap_err();
    assert!(matches!(error, EngineError::TaskState { state: "completed", .. }), "{error}");
}

#[tokio::test]
async fn each_completion_rule_settles_on_what_it_needs() {
    // The summary file alone.
    let mut desk = Desk::new(CompletionRule::Summary);
    let task = desk.submit("one");
    desk.type_it(&task.id);
    desk.write_summary(&task.id, "COMPLETED");
    desk.summary_arrives(&task.id);
    let done = desk.task(&task.id);
    assert_eq!(done.state(), TaskState::Completed);
    assert_eq!(done.result().cloned().unwrap().summary.status, Some(SummaryStatus::Completed));
    let session = done.session_id().cloned().unwrap();
    let shown = desk.bench.cx.sessions.get(&session).unwrap();
    assert!(shown.hooks.task_done, "the session is marked done");

    // The completion report alone: a summary file is not enough.
    let mut desk = Desk::new(CompletionRule::Report);
    let task = desk.submit("one");
    desk.type_it(&task.id);
    desk.write_summary(&task.id, "COMPLETED");
    desk.summary_arrives(&task.id);
    assert_eq!(desk.task(&task.id).state(), TaskState::Running);
    let report =
        Report { status: "success".into(), deliverables: vec![], metrics: "all".into(), recommendations: vec![] };
    let session = desk.session(&task.id);
    desk.desk.report_arrived(&mut desk.bench.cx, &session, report);
    assert_eq!(desk.task(&task.id).state(), TaskState::Completed);

    // Both, disagreeing: the task fails, saying how.
    let mut desk = Desk::new(CompletionRule::Both);
    let task = desk.submit("one");
    desk.type_it(&task.id);
    let report =
        Report { status: "failed".into(), deliverables: vec![], metrics: String::new(), recommendations: vec![] };
    let session = desk.session(&task.id);
    desk.desk.report_arrived(&mut desk.bench.cx, &session, report);
    assert_eq!(desk.task(&task.id).state(), TaskState::Running, "the summary is still missing");
    desk.write_summary(&task.id, "COMPLETED");
    desk.summary_arrives(&task.id);
    let failed = desk.task(&task.id);
    assert_eq!(failed.state(), TaskState::Failed);
    assert_eq!(failed.reason(), Some("the summary says COMPLETED but the completion report says failed"));
}

#[tokio::test]
async fn a_lead_task_waits_for_its_team() {
    let mut desk = Desk::new(CompletionRule::Summary);
    let task = desk.submit("lead the team");
    desk.type_it(&task.id);
    let lead = desk.session(&task.id);
    let teammate = SessionId::new();
    status::team_spawned(&mut desk.bench.cx, &lead, &teammate);
    desk.write_summary(&task.id, "COMPLETED");
    desk.summary_arrives(&task.id);
    assert_eq!(desk.task(&task.id).state(), TaskState::Running, "held while the teammate works");

    status::teammate_gone(&mut desk.bench.cx, &teammate);
    let Some(Follow::TeamSettled { lead: settled }) = desk.bench.cx.next_follow() else { panic!("the team settled") };
    assert_eq!(settled, lead);
    desk.desk.team_settled(&mut desk.bench.cx, &settled);
    assert_eq!(desk.task(&task.id).state(), TaskState::Completed);
}

#[tokio::test]
async fn a_deadline_ends_the_task_with_a_fallback_from_the_screen() {
    let mut desk = Desk::new(CompletionRule::Summary);
    let task = desk.submit("take long");
    desk.type_it(&task.id);
    let session = desk.session(&task.id);
    let deadline = desk.desk.next_deadline(&desk.bench.cx).expect("the task has a deadline");
    desk.desk.on_deadline(&mut desk.bench.cx, deadline);
    assert_eq!(desk.desk.next_deadline(&desk.bench.cx), None, "its end is decided");
    let mut controls = desk.bench.controls(&session).into_iter();
    assert!(matches!(controls.next(), Some(Control::Write(bytes, _)) if bytes == b"\x03"), "interrupted first");
    let Some(Control::Snapshot(_, reply)) = controls.next() else { panic!("the screen is asked for") };
    let screen = ScreenSnapshot {
        size: switchboard_protocol::TermSize::DEFAULT,
        screen: String::new(),
        recent_lines: vec!["compiling 3 of 9".into()],
        cursor_row: 0,
        cursor_col: 0,
        prompt: None,
    };
    reply.send(Ok(screen));
    desk.take_notes();
    let ended = desk.task(&task.id);
    assert_eq!(ended.state(), TaskState::TimedOut);
    assert_eq!(ended.reason(), Some("the time limit of 30 min passed without a summary"));
    let result = ended.result().cloned().unwrap();
    assert!(result.fallback);
    assert!(result.artifacts[0].content.contains("compiling 3 of 9"), "{}", result.artifacts[0].content);
}

#[tokio::test]
async fn a_session_that_ends_ends_its_task() {
    // Stopped by the user: cancelled, and the queue pauses. The screen is
    // gone (its request dropped): the fallback comes from the files alone.
    let mut desk = Desk::new(CompletionRule::Summary);
    let task = desk.submit("one");
    let next = desk.submit("two");
    desk.type_it(&task.id);
    let session = desk.session(&task.id);
    let state = desk.bench.end(&session, true);
    desk.desk.on_session_end(&mut desk.bench.cx, &session, true, &state);
    drop(desk.bench.controls(&session));
    desk.take_notes();
    let ended = desk.task(&task.id);
    assert_eq!(ended.state(), TaskState::Cancelled);
    assert!(ended.result().cloned().unwrap().fallback);
    assert!(desk.bench.cx.store.queue_paused(&desk.profile.id).unwrap());
    assert_eq!(desk.task(&next.id).state(), TaskState::Queued, "the paused queue waits");

    // Exited by itself: failed, with how.
    desk.desk.set_paused(&mut desk.bench.cx, Some(desk.profile.id.clone()), false).unwrap();
    let session = desk.session(&next.id);
    let state = desk.bench.end(&session, false);
    desk.desk.on_session_end(&mut desk.bench.cx, &session, false, &state);
    drop(desk.bench.controls(&session));
    desk.take_notes();
    let ended = desk.task(&next.id);
    assert_eq!(ended.state(), TaskState::Failed);
    assert_eq!(ended.reason(), Some("the agent exited (code 3) before writing its summary"));

    // The app quitting: interrupted, no fallback.
    let last = desk.submit("three");
    desk.type_it(&last.id);
    let session = desk.session(&last.id);
    desk.desk.quit();
    let state = desk.bench.end(&session, true);
    desk.desk.on_session_end(&mut desk.bench.cx, &session, true, &state);
    let ended = desk.task(&last.id);
    assert_eq!((ended.state(), ended.result()), (TaskState::Interrupted, None));
}

#[tokio::test]
async fn quitting_before_a_task_reached_its_agent_puts_it_back_first_in_its_queue() {
    let mut desk = Desk::new(CompletionRule::Summary);
    let handed = desk.submit("handed, not typed");
    let behind = desk.submit("behind it");
    let session = desk.session(&handed.id);
    desk.desk.quit();
    let state = desk.bench.end(&session, true);
    desk.desk.on_session_end(&mut desk.bench.cx, &session, true, &state);
    // Before: interrupted, for the user to put back by hand.
    assert_eq!(desk.task(&handed.id).state(), TaskState::Queued);
    let queue = desk.bench.cx.store.active_tasks(Some(&desk.profile.id)).unwrap();
    let mut queued: Vec<_> = queue.iter().filter(|t| t.state() == TaskState::Queued).collect();
    queued.sort_by_key(|t| t.order);
    assert_eq!(queued.iter().map(|t| t.id.clone()).collect::<Vec<_>>(), [handed.id.clone(), behind.id.clone()]);
    let timeline = desk.desk.timeline(&desk.bench.cx, &handed.id).unwrap();
    assert!(matches!(timeline.last().unwrap().kind, LogKind::TaskRequeued { app_stopped: true }), "{timeline:?}");
}

#[tokio::test]
async fn a_summary_that_is_a_fifo_or_leads_out_of_the_workspace_is_refused_and_the_task_waits() {
    let mut desk = Desk::new(CompletionRule::Summary);
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.md"), "# Task Completion Summary\n## Status\nCOMPLETED\n").unwrap();
    let task = desk.submit("one");
    desk.type_it(&task.id);
    let path = desk.bench.workspace.path().join("summaries").join(format!("{}.md", task.id));
    std::os::unix::fs::symlink(outside.path().join("secret.md"), &path).unwrap();
    desk.summary_arrives(&task.id);
    assert_eq!(desk.task(&task.id).state(), TaskState::Running, "nothing from outside the workspace is its result");

    std::fs::remove_file(&path).unwrap();
    nix::unistd::mkfifo(&path, nix::sys::stat::Mode::S_IRWXU).unwrap();
    desk.summary_arrives(&task.id);
    assert_eq!(desk.task(&task.id).state(), TaskState::Running, "and a FIFO does not stop the engine");
    let refusals: Vec<String> = desk
        .desk
        .timeline(&desk.bench.cx, &task.id)
        .unwrap()
        .into_iter()
        .filter_map(|entry| match entry.kind {
            LogKind::DeliverableRejected { reason, .. } => Some(reason),
            _ => None,
        })
        .collect();
    assert_eq!(refusals, ["a symlink that leads outside the workspace", "not a regular file"]);

    // A proper summary still completes it.
    std::fs::remove_file(&path).unwrap();
    desk.write_summary(&task.id, "COMPLETED");
    desk.summary_arrives(&task.id);
    assert_eq!(desk.task(&task.id).state(), TaskState::Completed);
}

#[tokio::test]
async fn after_a_crash_a_task_never_typed_goes_back_to_the_front_of_its_queue_and_runs() {
    let mut desk = Desk::new(CompletionRule::Summary);
    let handed = desk.submit("handed to a session, never typed");
    let next = desk.submit("queued behind it");
    assert_eq!(desk.task(&handed.id).state(), TaskState::Running);
    let old_session = desk.session(&handed.id);

    // The app dies, and its agent with it: a new desk over the same records
    // starts up.
    desk.bench.end(&old_session, true);
    let (notes_tx, notes) = mpsc::unbounded_channel();
    let (watch_tx, _watch) = mpsc::unbounded_channel();
    desk.desk = TaskDesk::new(notes_tx, watch_tx);
    desk.notes = notes;
    desk.desk.recover(&mut desk.bench.cx).unwrap();

    // Before: interrupted, waiting for the user to put it back by hand.
    let recovered = desk.task(&handed.id);
    assert_eq!(recovered.state(), TaskState::Queued);
    let timeline = desk.desk.timeline(&desk.bench.cx, &handed.id).unwrap();
    assert!(matches!(timeline.last().unwrap().kind, LogKind::TaskRequeued { app_stopped: true }), "{timeline:?}");
    let queued = desk.bench.cx.store.active_tasks(Some(&desk.profile.id)).unwrap();
    let order: Vec<_> = queued.iter().filter(|t| t.state() == TaskState::Queued).map(|t| t.id.clone()).collect();
    assert_eq!(order, [handed.id.clone(), next.id.clone()], "first, as before the crash");

    desk.desk.pump_all(&mut desk.bench.cx);
    assert_eq!(desk.task(&handed.id).state(), TaskState::Running, "it runs again, in a fresh session");
    assert_ne!(desk.session(&handed.id), old_session);
}

#[tokio::test]
async fn after_a_crash_a_task_its_agent_had_is_interrupted_for_the_user_to_decide() {
    let mut desk = Desk::new(CompletionRule::Summary);
    let typed = desk.submit("typed before the crash");
    desk.type_it(&typed.id);
    let (notes_tx, notes) = mpsc::unbounded_channel();
    let (watch_tx, _watch) = mpsc::unbounded_channel();
    desk.desk = TaskDesk::new(notes_tx, watch_tx);
    desk.notes = notes;
    desk.desk.recover(&mut desk.bench.cx).unwrap();
    let recovered = desk.task(&typed.id);
    assert_eq!(recovered.state(), TaskState::Interrupted);
    assert_eq!(recovered.reason(), Some("the app stopped while the task ran"));
}

#[tokio::test]
async fn a_task_that_ends_while_the_store_cannot_write_is_shown_ended_and_recorded_once_it_can() {
    let mut desk = Desk::new(CompletionRule::Summary);
    let task = desk.submit("one");
    desk.type_it(&task.id);
    desk.bench.cx.store.take_problem_change();
    desk.bench.cx.store.refuse_writes(true);
    desk.write_summary(&task.id, "COMPLETED");
    desk.summary_arrives(&task.id);

    // Before: the store kept it running, and so did every listing until a restart.
    assert_eq!(desk.task(&task.id).state(), TaskState::Completed);
    let listed = desk.desk.list(&desk.bench.cx, None).unwrap();
    assert_eq!(listed.iter().find(|t| t.id == task.id).unwrap().state(), TaskState::Completed);
    assert_eq!(desk.bench.cx.store.get_task(&task.id).unwrap().unwrap().state(), TaskState::Running);
    assert_eq!(desk.bench.cx.store.take_problem_change(), Some(Some(switchboard_api::StorageProblem::ReadOnly)));
    desk.bench.cx.store.probe_write();
    assert_eq!(desk.bench.cx.store.take_problem_change(), None, "still read-only");

    desk.bench.cx.store.refuse_writes(false);
    desk.bench.cx.store.probe_write();
    assert_eq!(desk.bench.cx.store.take_problem_change(), Some(None), "the probe sees it writable again");
    desk.desk.retry_unsaved(&mut desk.bench.cx);
    assert_eq!(desk.bench.cx.store.get_task(&task.id).unwrap().unwrap().state(), TaskState::Completed);
    assert!(desk.bench.cx.unsaved_tasks.is_empty());
}

/// The queue's count the window shows, as the last queue event of the agent said it.
fn last_queued(desk: &Desk) -> Option<u32> {
    desk.bench.events().iter().rev().find_map(|event| match event {
        EngineEvent::QueueChanged { queue } if queue.profile_id == desk.profile.id => Some(queue.queued),
        _ => None,
    })
}

#[tokio::test]
async fn a_task_queued_behind_one_at_work_is_counted_at_once() {
    let mut desk = Desk::new(CompletionRule::Summary);
    let first = desk.submit("one");
    assert_eq!(desk.task(&first.id).state(), TaskState::Running);
    assert_eq!(last_queued(&desk), Some(0));
    // The agent is busy: the next two wait, and each submission says so.
    desk.submit("two");
    assert_eq!(last_queued(&desk), Some(1));
    let third = desk.submit("three");
    assert_eq!(last_queued(&desk), Some(2));
    // Requeued behind a busy agent, and cancelled from the queue: counted too.
    desk.desk.cancel(&mut desk.bench.cx, &third.id).unwrap();
    assert_eq!(last_queued(&desk), Some(1));
    desk.desk.requeue(&mut desk.bench.cx, &third.id).unwrap();
    assert_eq!(last_queued(&desk), Some(2));
}

#[tokio::test]
async fn waiting_for_the_users_answer_pauses_the_time_limit_and_the_wait_is_added_after() {
    let mut desk = Desk::new(CompletionRule::Summary);
    let task = desk.submit("ask first");
    desk.type_it(&task.id);
    let session = desk.session(&task.id);
    let deadline = desk.desk.next_deadline(&desk.bench.cx).expect("the task has a deadline");
    // Twenty minutes before its deadline, a question of the agent waits for the user.
    let question = switchboard_protocol::SignalId::new();
    status::set_needs_user(&mut desk.bench.cx, &session, &question, true);
    let asked_at = deadline - Duration::from_secs(1200);
    desk.desk.check_waiting(&mut desk.bench.cx, 1_000_000, asked_at);
    let waiting = desk.task(&task.id);
    assert_eq!(waiting.state(), TaskState::Running);
    assert_eq!(waiting.waiting_since(), Some(1_000_000), "it says since when it waits");
    assert_eq!(desk.desk.next_deadline(&desk.bench.cx), None, "no deadline while it waits");
    // Its old deadline passes while it waits: it does not time out.
    desk.desk.on_deadline(&mut desk.bench.cx, deadline);
    assert_eq!(desk.task(&task.id).state(), TaskState::Running);
    // Answered thirty minutes after the question: the limit runs again with the
    // twenty minutes it had left.
    status::set_needs_user(&mut desk.bench.cx, &session, &question, false);
    let answered_at = asked_at + Duration::from_secs(1800);
    desk.desk.check_waiting(&mut desk.bench.cx, 1_000_000 + 1_800_000, answered_at);
    let going = desk.task(&task.id);
    assert_eq!(going.waiting_since(), None);
    assert_eq!(going.run().unwrap().waited_ms, 1_800_000);
    assert_eq!(desk.desk.next_deadline(&desk.bench.cx), Some(answered_at + Duration::from_secs(1200)));
    // Also a deadline that comes before the next look finds the agent waiting.
    status::set_needs_user(&mut desk.bench.cx, &session, &question, true);
    desk.desk.on_deadline(&mut desk.bench.cx, answered_at + Duration::from_secs(1200));
    assert_eq!(desk.task(&task.id).state(), TaskState::Running, "it waits, so it does not time out");
    let timeline: Vec<LogKind> =
        desk.desk.timeline(&desk.bench.cx, &task.id).unwrap().into_iter().map(|e| e.kind).collect();
    assert!(timeline.contains(&LogKind::TaskWaiting { waiting: true }));
    assert!(timeline.contains(&LogKind::TaskWaiting { waiting: false }));
}

/// A loop iteration whose agent reports that it failed is a failed
/// iteration: its task fails in the agent's words, and that failure (not
/// the turn's last words) is what the loop weighs as its stop reason.
#[tokio::test]
async fn a_loop_iteration_its_agent_says_failed_fails_and_its_failure_is_the_stop_reason() {
    let mut desk = Desk::new(CompletionRule::Summary);
    let settings = switchboard_protocol::loops::LoopSettings::new("Migrate the tables");
    let profile_id = desk.profile.id.clone();
    desk.desk.start_loop(&mut desk.bench.cx, &profile_id, settings).unwrap();
    let iteration = desk.desk.list(&desk.bench.cx, Some(&profile_id)).unwrap().remove(0);
    assert!(iteration.spec.loop_iteration.is_some());
    let session = desk.session(&iteration.id);
    assert_eq!(desk.bench.typed(&session).len(), 1, "the iteration prompt is typed");
    desk.take_notes();

    // Its report arrives first: the iteration still ends with its turn.
    let report = Report {
        status: "failed".into(),
        deliverables: vec![],
        metrics: "the database is unreachable".into(),
        recommendations: vec![],
    };
    desk.desk.report_arrived(&mut desk.bench.cx, &session, report);
    assert_eq!(desk.task(&iteration.id).state(), TaskState::Running);
    while desk.bench.cx.next_follow().is_some() {}
    desk.desk.turn_ended(&mut desk.bench.cx, &session, Some("I will try again next time."));

    let ended = desk.task(&iteration.id);
    assert_eq!(ended.state(), TaskState::Failed);
    assert_eq!(ended.reason(), Some("the agent says it failed: the database is unreachable"));
    let follows: Vec<Follow> = std::iter::from_fn(|| desk.bench.cx.next_follow()).collect();
    assert!(
        follows.iter().any(|follow| matches!(follow, Follow::IterationEnded { stop_reason, .. }
            if stop_reason == "the agent says it failed: the database is unreachable")),
        "{follows:?}"
    );
}
