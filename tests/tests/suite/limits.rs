//! Usage limits, through the engine: agents whose model refuses them (their
//! hooks say so, as Claude Code's StopFailure does; recorded in
//! `tests/fixtures/agents/cc-hooks-usage-limit.jsonl`) keep their tasks,
//! wait for the reset, and go on one at a time. The agents are `cat` with
//! the terminal's echo off, so what the app types into them is on their
//! screens once.

use crate::support;

use std::sync::Arc;

use support::{Collected, TestEngine};
use switchboard_core::SessionId;
use switchboard_core::{
    AccountLimit, Attention, EngineEvent, LimitPhase, Need, Profile, ProfileSpec, Settings, TaskId, TaskRecord,
    TaskSpec, TaskState, UsageLevel, WaitingFor,
};

/// An agent at work on a task, whose hooks the test speaks for.
struct Agent {
    profile: Profile,
    task: TaskId,
    session: SessionId,
    screen: Arc<Collected<u8>>,
}

/// Engine settings for quick tries: no margin after a reset, a second's
/// first retry of an unknown one.
async fn quick(t: &TestEngine, retry_secs: u32) {
    let settings =
        Settings { limit_margin_secs: 0, limit_retry_secs: retry_secs, ..t.engine.get_settings().await.unwrap() };
    t.engine.set_settings(settings).await.unwrap();
}

async fn agent(t: &TestEngine, name: &str, account: &str, time_limit_secs: u32) -> Agent {
    // The terminal's echo off: each line on the screen is one the agent read.
    let spec = ProfileSpec {
        ready_quiet_ms: 50,
        account: Some(account.into()),
        ..t.spec(name, "sh", &["-c", "stty -echo; exec cat"])
    };
    let profile = t.engine.create_profile(spec).await.unwrap();
    let task =
        TaskSpec { time_limit_secs: Some(time_limit_secs), ..TaskSpec::new(profile.id.clone(), "Port the parser") };
    let task = t.engine.submit_task(task).await.unwrap().task.id;
    let session = t.session_of_task(&task).await;
    let screen = t.attach(&session).await;
    t.task_until(&task, "typed", |task| task.typed_at.is_some()).await;
    Agent { profile, task, session, screen }
}

impl Agent {
    async fn hook(&self, t: &TestEngine, payload: serde_json::Value) {
        t.engine.hook_event(switchboard_tests::session_env::envelope(&self.session, payload)).await.unwrap();
    }

    /// Its model refuses the turn, as Claude Code tells it.
    async fn refused(&self, t: &TestEngine, error: &str) {
        self.hook(t, serde_json::json!({"hook_event_name": "UserPromptSubmit"})).await;
        let failure = serde_json::json!({"hook_event_name": "StopFailure", "error": error,
            "last_assistant_message": "API Error: Request rejected (429) · This request would exceed your account's rate limit. Please try again later."});
        self.hook(t, failure).await;
    }

    /// Its turn runs: a tool call.
    async fn works(&self, t: &TestEngine) {
        self.hook(t, serde_json::json!({"hook_event_name": "UserPromptSubmit"})).await;
        let tool = serde_json::json!({"hook_event_name": "PreToolUse", "tool_name": "Read",
            "tool_use_id": "toolu_1", "tool_input": {"file_path": "a.rs"}});
        self.hook(t, tool).await;
    }

    /// How many times `continue` was typed into it.
    fn continues(&self) -> usize {
        self.screen.text().matches("continue").count()
    }

    fn write_summary(&self, t: &TestEngine, task: &TaskId) {
        let text = "# Task Completion Summary\n\n## Objective\nx\n\n## Status\n✅ COMPLETED\n";
        std::fs::create_dir_all(t.workspace.join("summaries")).unwrap();
        std::fs::write(t.workspace.join(format!("summaries/{task}.md")), text).unwrap();
    }
}

fn limit_of(events: &[EngineEvent], account: &str) -> Option<AccountLimit> {
    events.iter().rev().find_map(|e| match e {
        EngineEvent::LimitChanged { limit } if limit.account == account => Some(limit.clone()),
        _ => None,
    })
}

async fn attention_until(t: &TestEngine, agent: &Agent, what: &str, found: impl Fn(&Attention) -> bool) -> Attention {
    t.events
        .wait_for(what, |events| {
            events
                .iter()
                .rev()
                .find_map(|e| match e {
                    EngineEvent::AttentionChanged { profile_id, attention } if profile_id == &agent.profile.id => {
                        Some(attention.clone())
                    }
                    _ => None,
                })
                .filter(|a| found(a))
        })
        .await
}

fn waits_for_limit(task: &TaskRecord) -> bool {
    task.state == TaskState::Running && matches!(task.waiting_for, Some(WaitingFor::UsageLimit { .. }))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_agents_of_one_account_wait_for_its_limit_together_and_go_on_one_at_a_time() {
    let t = TestEngine::start().await;
    // The first retry comes after the tasks' own time limit: a task whose
    // limit were not paused would time out first.
    quick(&t, 3).await;
    let first = agent(&t, "first", "team", 2).await;
    let second = agent(&t, "second", "team", 2).await;
    let elsewhere = agent(&t, "elsewhere", "other", 600).await;

    first.refused(&t, "rate_limit").await;
    let waiting = t.task_until(&first.task, "to wait for the limit", waits_for_limit).await;
    assert!(
        matches!(&waiting.waiting_for, Some(WaitingFor::UsageLimit { account, until: None, .. }) if account == "team"),
        "{waiting:?}"
    );
    // The whole account is limited: the second agent's next task is held
    // in its queue, while an agent of another account takes its own.
    let limit = t.engine.list_limits().await.unwrap();
    assert_eq!(limit.len(), 1, "{limit:?}");
    assert_eq!(limit[0].profiles.len(), 2);
    let attention =
        attention_until(&t, &second, "the second agent limited", |a| matches!(a, Attention::Limited { .. })).await;
    assert!(matches!(attention, Attention::Limited { until: None, .. }), "{attention:?}");
    // The command line says so: both limited, the reset unknown.
    let (code, listed, _) = support::cli_async(&t, &["agent", "list", "--json"]).await;
    assert_eq!(code, std::process::ExitCode::SUCCESS);
    let listed: Vec<serde_json::Value> = serde_json::from_str(&listed).unwrap();
    let state = |name: &str| {
        let row = listed.iter().find(|row| row["name"] == name).unwrap();
        (row["limited"].clone(), row["limited_until"].clone())
    };
    assert_eq!(state("first"), (serde_json::json!(true), serde_json::Value::Null));
    assert_eq!(state("second"), (serde_json::json!(true), serde_json::Value::Null));
    assert_eq!(state("elsewhere"), (serde_json::json!(false), serde_json::Value::Null));
    second.refused(&t, "rate_limit").await;
    t.task_until(&second.task, "to wait for the limit", waits_for_limit).await;
    let queued = t.engine.submit_task(TaskSpec::new(second.profile.id.clone(), "Then the docs")).await.unwrap().task.id;
    let held = t
        .task_until(&queued, "held by the limit", |task| {
            matches!(task.waiting_for, Some(WaitingFor::UsageLimit { .. }))
        })
        .await;
    assert_eq!(held.state, TaskState::Queued);
    let other = t.engine.submit_task(TaskSpec::new(elsewhere.profile.id.clone(), "Its own")).await.unwrap().task.id;
    t.task_until(&other, "queued behind its own task", |task| task.waiting_for == Some(WaitingFor::TaskAhead)).await;

    // At the retry, the agent refused first is typed one `continue`, and
    // only it: the second waits for its turn to run.
    first.screen.wait_for_text("continue").await;
    let resuming = t
        .events
        .wait_for("the first resuming", |events| {
            limit_of(events, "team")
                .filter(|l| l.phase == LimitPhase::Resuming { profile_id: first.profile.id.clone() })
        })
        .await;
    assert_eq!(resuming.passed, 0);
    assert_eq!(second.continues(), 0, "the second went on at once");
    first.works(&t).await;
    second.screen.wait_for_text("continue").await;
    second.works(&t).await;
    // Both went on: the limit is over, and the held task waits for the one
    // ahead of it rather than for the limit.
    t.events
        .wait_for("the limit lifted", |events| {
            events.iter().find_map(|e| {
                // Its reset was never known: a try went through, not "its limit has reset".
                matches!(e, EngineEvent::LimitLifted { account, by_user: false, at_reset: false, .. } if account == "team")
                    .then_some(())
            })
        })
        .await;
    assert!(t.engine.list_limits().await.unwrap().is_empty());
    t.task_until(&queued, "behind the task at work", |task| task.waiting_for == Some(WaitingFor::TaskAhead)).await;
    // Their tasks never timed out, though the wait outlasted their limits.
    for agent in [&first, &second] {
        let task = t.engine.get_task(agent.task.clone()).await.unwrap();
        assert_eq!(task.state, TaskState::Running, "{task:?}");
        assert_eq!(agent.continues(), 1, "typed once");
    }
    first.write_summary(&t, &first.task);
    assert_eq!(t.task_until(&first.task, "to end", |task| task.state.is_finished()).await.state, TaskState::Completed);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reset_that_passes_still_refused_is_waited_again_and_after_three_the_user_is_asked() {
    let t = TestEngine::start().await;
    quick(&t, 1).await;
    let agent = agent(&t, "solo", "mine", 600).await;
    agent.refused(&t, "rate_limit").await;
    for passed in 1..=3u32 {
        t.events.wait_for("continue typed", |_| (agent.continues() == passed as usize).then_some(())).await;
        agent.refused(&t, "rate_limit").await;
        let limit = t
            .events
            .wait_for("the reset counted", |events| limit_of(events, "mine").filter(|l| l.passed == passed))
            .await;
        // It waits longer each time (1 s, then 2, 4: doubling).
        assert!(limit.retry_at - limit.since >= 1000, "{limit:?}");
    }
    let asking = attention_until(&t, &agent, "the user asked", |a| {
        matches!(a, Attention::NeedsYou { need: Need::LimitPersists { .. }, .. })
    })
    .await;
    assert!(matches!(asking, Attention::NeedsYou { need: Need::LimitPersists { resets: 3, .. }, .. }), "{asking:?}");
    // Nothing more is typed until the user says so.
    let limits = t.engine.list_limits().await.unwrap();
    assert_eq!(limits[0].phase, LimitPhase::AsksUser);
    assert_eq!(agent.continues(), 3);
    // The user knows better: `agent resume`.
    let (code, said, _) = support::cli_async(&t, &["agent", "resume", "solo"]).await;
    assert_eq!((code, said.trim()), (std::process::ExitCode::SUCCESS, "solo goes on now"));
    t.events.wait_for("continue typed", |_| (agent.continues() == 4).then_some(())).await;
    agent.works(&t).await;
    t.events
        .wait_for("the limit lifted", |events| {
            events.iter().find_map(|e| matches!(e, EngineEvent::LimitLifted { .. }).then_some(()))
        })
        .await;
    let task = t.engine.get_task(agent.task.clone()).await.unwrap();
    assert_eq!((task.state, task.waiting_for), (TaskState::Running, None));
    // With nothing held back, resuming says so.
    let refused = t.engine.resume_agent(agent.profile.id.clone()).await.unwrap_err();
    assert_eq!(refused.code(), switchboard_core::ErrorCode::NothingToResume);
    let (code, _, error) = support::cli_async(&t, &["agent", "resume", "solo"]).await;
    assert_ne!(code, std::process::ExitCode::SUCCESS);
    assert!(error.contains("nothing to resume"), "{error}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_overloaded_model_is_waited_out_by_that_agent_alone_and_an_account_problem_needs_the_user() {
    let t = TestEngine::start().await;
    quick(&t, 1).await;
    let busy = agent(&t, "busy", "shared", 600).await;
    let other = agent(&t, "other", "shared", 600).await;
    busy.refused(&t, "overloaded").await;
    let waiting = t
        .task_until(&busy.task, "to wait for the service", |task| {
            matches!(task.waiting_for, Some(WaitingFor::Overloaded { .. }))
        })
        .await;
    assert_eq!(waiting.state, TaskState::Running);
    // Not a limit: its account's other agent takes its next task.
    assert!(t.engine.list_limits().await.unwrap().is_empty());
    let next = t.engine.submit_task(TaskSpec::new(other.profile.id.clone(), "Next")).await.unwrap().task.id;
    t.task_until(&next, "behind the task at work", |task| task.waiting_for == Some(WaitingFor::TaskAhead)).await;
    // After its wait, it is asked to go on.
    busy.screen.wait_for_text("continue").await;
    t.task_until(&busy.task, "going on", |task| task.waiting_for.is_none()).await;

    // Signed out: the user is told what to do, and nothing is retried.
    other.refused(&t, "authentication_failed").await;
    let needs = attention_until(&t, &other, "the user needed", |a| {
        matches!(a, Attention::NeedsYou { need: Need::Account { .. }, .. })
    })
    .await;
    let Attention::NeedsYou { need: Need::Account { why }, .. } = needs else { unreachable!() };
    assert!(why.contains("/login"), "{why}");
    let task = t.engine.get_task(other.task.clone()).await.unwrap();
    assert!(matches!(task.waiting_for, Some(WaitingFor::Account { .. })), "{task:?}");
    // Signed in again in its terminal, the user has it go on.
    t.engine.resume_agent(other.profile.id.clone()).await.unwrap();
    other.screen.wait_for_text("continue").await;
    t.task_until(&other.task, "going on", |task| task.waiting_for.is_none()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_app_restarted_during_the_wait_still_waits_and_goes_on_at_the_reset() {
    let data = tempfile::tempdir().unwrap();
    let queued;
    let profile;
    {
        let t = TestEngine::start_in(data.path(), |_| {}).await;
        quick(&t, 4).await;
        let agent = agent(&t, "solo", "mine", 600).await;
        profile = agent.profile.id.clone();
        agent.refused(&t, "rate_limit").await;
        t.task_until(&agent.task, "to wait for the limit", waits_for_limit).await;
        queued = t.engine.submit_task(TaskSpec::new(profile.clone(), "Then the docs")).await.unwrap().task.id;
        t.task_until(&queued, "held", |task| matches!(task.waiting_for, Some(WaitingFor::UsageLimit { .. }))).await;
        t.engine.cancel_task(agent.task.clone()).await.unwrap();
        t.shutdown().await;
    }
    let t = TestEngine::start_in(data.path(), |_| {}).await;
    let limits = t.engine.list_limits().await.unwrap();
    assert_eq!(limits.len(), 1, "the limit was kept: {limits:?}");
    assert_eq!(limits[0].profiles, vec![profile.clone()]);
    let held = t.engine.get_task(queued.clone()).await.unwrap();
    assert!(matches!(held.waiting_for, Some(WaitingFor::UsageLimit { .. })), "{held:?}");
    // At the reset its queue goes on: the held task is typed.
    t.task_until(&queued, "typed after the reset", |task| task.typed_at.is_some()).await;
    let session = t.session_of_task(&queued).await;
    let envelope = switchboard_core::hook::HookEnvelope {
        session_id: Some(session.to_string()),
        env: Default::default(),
        at: 1,
        payload: serde_json::json!({"hook_event_name": "Stop", "last_assistant_message": "ok"}),
        secret: Some(switchboard_tests::session_env::secret_of(&session)),
    };
    t.engine.hook_event(envelope).await.unwrap();
    t.events
        .wait_for("the limit lifted", |events| {
            events.iter().find_map(|e| matches!(e, EngineEvent::LimitLifted { .. }).then_some(()))
        })
        .await;
    assert!(t.engine.list_limits().await.unwrap().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resuming_an_idle_agent_of_a_limited_account_has_the_refused_one_go_on() {
    let t = TestEngine::start().await;
    quick(&t, 600).await;
    let refused = agent(&t, "refused", "team", 600).await;
    let spec = ProfileSpec { account: Some("team".into()), ..t.spec("idle", "cat", &[]) };
    let idle = t.engine.create_profile(spec).await.unwrap();
    refused.refused(&t, "rate_limit").await;
    t.task_until(&refused.task, "to wait for the limit", waits_for_limit).await;
    // The user says go on from the agent with nothing of its own waiting:
    // the account goes on, the refused agent first.
    t.engine.resume_agent(idle.id.clone()).await.unwrap();
    refused.screen.wait_for_text("continue").await;
    refused.works(&t).await;
    let by_user = t
        .events
        .wait_for("the limit lifted", |events| {
            events.iter().find_map(|e| match e {
                EngineEvent::LimitLifted { by_user, .. } => Some(*by_user),
                _ => None,
            })
        })
        .await;
    assert!(by_user, "told as the user's doing");
    t.task_until(&refused.task, "going on", |task| task.waiting_for.is_none()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_turn_the_user_typed_that_is_refused_limits_the_account_all_the_same() {
    let t = TestEngine::start().await;
    quick(&t, 600).await;
    let spec = ProfileSpec { ready_quiet_ms: 50, account: Some("team".into()), ..t.spec("typed", "cat", &[]) };
    let typed = t.engine.create_profile(spec).await.unwrap();
    let (session, screen) = t.start_session(&typed).await;
    // No task at work: the user typed into it, and its model refused.
    let by_hand = Agent { profile: typed.clone(), task: TaskId::new(), session: session.id.clone(), screen };
    by_hand.refused(&t, "rate_limit").await;
    let limits = t.engine.list_limits().await.unwrap();
    assert_eq!(limits.len(), 1, "{limits:?}");
    assert_eq!(limits[0].account, "team");
    // Another agent of the account is not typed a task meanwhile.
    let spec = ProfileSpec { account: Some("team".into()), ..t.spec("other", "cat", &[]) };
    let other = t.engine.create_profile(spec).await.unwrap();
    let held = t.engine.submit_task(TaskSpec::new(other.id.clone(), "Wait for it")).await.unwrap().task;
    assert_eq!(held.state, TaskState::Queued);
    assert!(matches!(held.waiting_for, Some(WaitingFor::UsageLimit { .. })), "{held:?}");
}

/// Claude Code 2.1.329 may put the API's own words in `error_details`
/// beside the error's code (its hook schema: `error` one of a fixed list,
/// `error_details` optional): a limit with details is a limit all the same.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_usage_limit_told_with_the_apis_details_holds_the_task_instead_of_failing_it() {
    let t = TestEngine::start().await;
    quick(&t, 600).await;
    let agent = agent(&t, "detailed", "team", 600).await;
    agent.hook(&t, serde_json::json!({"hook_event_name": "UserPromptSubmit"})).await;
    let failure = serde_json::json!({"hook_event_name": "StopFailure", "error": "rate_limit",
        "error_details": "429 {\"type\":\"error\",\"error\":{\"type\":\"rate_limit_error\"}}",
        "last_assistant_message": "API Error: Request rejected (429)"});
    agent.hook(&t, failure).await;
    let task = t.task_until(&agent.task, "waiting for the usage limit", waits_for_limit).await;
    assert_eq!(task.state, TaskState::Running, "{task:?}");
    let limits = t.engine.list_limits().await.unwrap();
    assert_eq!(limits.iter().map(|l| l.account.as_str()).collect::<Vec<_>>(), vec!["team"], "{limits:?}");
}

/// Claude Code's status-line input telling the account's usage: its 5-hour
/// window used `five` percent (resetting at `five_reset`, Unix seconds) and
/// its week 17 percent; on one line.
fn status_line(five: u32, five_reset: i64) -> String {
    serde_json::json!({
        "session_id": "c-1", "cwd": "/nowhere", "model": {"id": "claude-opus", "display_name": "Opus"},
        "rate_limits": {"five_hour": {"used_percentage": five, "resets_at": five_reset},
                        "seven_day": {"used_percentage": 17, "resets_at": 1_900_000_000}}
    })
    .to_string()
}

/// An agent that runs the app's status-line command on each line it reads,
/// as Claude Code runs it with its status-line input; its user has a status
/// line of their own (in `home`), which shows on its screen.
async fn status_line_agent(t: &TestEngine, home: &std::path::Path) -> (Profile, SessionId, Arc<Collected<u8>>) {
    std::fs::create_dir_all(home.join(".claude")).unwrap();
    let mine = r#"printf 'my line: '; sed -n 's/.*"display_name":"\([^"]*\)".*/\1/p'"#;
    let settings = serde_json::json!({"statusLine": {"type": "command", "command": mine}});
    std::fs::write(home.join(".claude/settings.json"), settings.to_string()).unwrap();
    let hook = support::hook_binary();
    let script = format!(
        "stty -echo; while IFS= read -r line; do printf '%s' \"$line\" | '{}' --status-line; echo; done",
        hook.display()
    );
    let mut spec = ProfileSpec { account: Some("team".into()), ..t.spec("lead", "sh", &["-c", &script]) };
    spec.env.insert("HOME".into(), home.display().to_string());
    let profile = t.engine.create_profile(spec).await.unwrap();
    let (session, screen) = t.start_session(&profile).await;
    (profile, session.id, screen)
}

/// The account's usage once told with its 5-hour window at `five` percent.
fn windows_told(five: u8) -> impl Fn(&[EngineEvent]) -> Option<switchboard_core::AccountUsage> {
    move |events| {
        events.iter().rev().find_map(|e| match e {
            EngineEvent::UsageChanged { usage } if usage.windows.first().is_some_and(|w| w.used_percent == five) => {
                Some(usage.clone())
            }
            _ => None,
        })
    }
}

fn warnings(t: &TestEngine) -> Vec<(u32, u8)> {
    t.events
        .snapshot()
        .iter()
        .filter_map(|e| match e {
            EngineEvent::UsageWarning { window, .. } => Some((window.minutes, window.used_percent)),
            _ => None,
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_usage_claude_codes_status_line_tells_is_kept_and_warned_of_once_per_window_across_a_restart() {
    let data = tempfile::tempdir().unwrap();
    let home = data.path().join("home");
    let reset = 1_800_000_000;
    let profile;
    {
        let t = TestEngine::start_in(data.path(), |_| {}).await;
        let (lead, session, screen) = status_line_agent(&t, &home).await;
        profile = lead.id.clone();
        t.engine.write_input(session.clone(), status_line(42, reset) + "\n").await.unwrap();
        let usage = t.events.wait_for("the usage told", windows_told(42)).await;
        assert_eq!(usage.account, "team");
        assert_eq!(usage.profiles, vec![profile.clone()]);
        let windows: Vec<(u32, u8, Option<i64>)> =
            usage.windows.iter().map(|w| (w.minutes, w.used_percent, w.resets_at)).collect();
        assert_eq!(windows, vec![(300, 42, Some(reset * 1000)), (10_080, 17, Some(1_900_000_000_000))]);
        assert_eq!(usage.windows[0].level, UsageLevel::Ok);
        // The user's own status line still shows, given the same input.
        screen.wait_for_text("my line: Opus").await;
        assert!(warnings(&t).is_empty(), "42% is below the warning");

        // Past 80%: warned once, however often it is told, and not again as it grows.
        for five in [85, 85, 86] {
            t.engine.write_input(session.clone(), status_line(five, reset) + "\n").await.unwrap();
        }
        let told = t.events.wait_for("86% told", windows_told(86)).await;
        assert_eq!(warnings(&t), vec![(300, 85)]);
        assert_eq!((told.windows[0].level, told.windows[1].level), (UsageLevel::Warn, UsageLevel::Ok));
        let told = t.events_now().await.iter().filter(|e| matches!(e, EngineEvent::UsageChanged { .. })).count();
        assert_eq!(told, 3, "the same usage told twice changes nothing");
        t.shutdown().await;
    }
    let t = TestEngine::start_in(data.path(), |_| {}).await;
    let kept = t.engine.list_usage().await.unwrap();
    assert_eq!(kept.len(), 1);
    assert_eq!(kept[0].windows[0].used_percent, 86, "kept across the restart: {kept:?}");
    let lead = t.engine.list_profiles().await.unwrap().into_iter().find(|p| p.id == profile).unwrap();
    let session = t.start_session(&lead).await.0.id;
    t.engine.write_input(session.clone(), status_line(90, reset) + "\n").await.unwrap();
    t.events.wait_for("90% told", windows_told(90)).await;
    assert!(warnings(&t).is_empty(), "the window warned of before the restart is not warned of again");
    // The next 5-hour window warns anew.
    t.engine.write_input(session, status_line(81, reset + 5 * 3600) + "\n").await.unwrap();
    t.events.wait_for("the next window told", windows_told(81)).await;
    assert_eq!(warnings(&t), vec![(300, 81)]);
    // A warning moved past it: the usage is told again, the window no longer marked.
    let settings = Settings { usage_warn_percent: 95, ..t.engine.get_settings().await.unwrap() };
    t.engine.set_settings(settings).await.unwrap();
    let again = t
        .events
        .wait_for("the usage told again", |events| {
            events.iter().rev().find_map(|e| match e {
                EngineEvent::UsageChanged { usage } if usage.windows[0].level == UsageLevel::Ok => Some(usage.clone()),
                _ => None,
            })
        })
        .await;
    assert_eq!(again.windows[0].used_percent, 81);
    assert_eq!(t.engine.list_usage().await.unwrap()[0].windows[0].level, UsageLevel::Ok);
}

/// Status-line input an agent forged (it has its session's secret): a reset
/// past any calendar, numbers out of range. The engine takes what it can,
/// says the reset is not known, and goes on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forged_usage_numbers_are_kept_in_range_and_crash_nothing() {
    let data = tempfile::tempdir().unwrap();
    let t = TestEngine::start_in(data.path(), |_| {}).await;
    let (_, session, _) = status_line_agent(&t, &data.path().join("home")).await;
    let forged = serde_json::json!({"rate_limits": {
        "five_hour": {"used_percentage": 50, "resets_at": i64::MAX},
        "seven_day": {"used_percentage": 1e308, "resets_at": -1}}});
    t.engine.write_input(session.clone(), forged.to_string() + "\n").await.unwrap();
    let usage = t.events.wait_for("the forged usage told", windows_told(50)).await;
    let windows: Vec<(u32, u8, Option<i64>)> =
        usage.windows.iter().map(|w| (w.minutes, w.used_percent, w.resets_at)).collect();
    assert_eq!(windows, [(300, 50, None)], "the reset not known; the week's nonsense left out");
    // The engine goes on: the next usage told is kept.
    t.engine.write_input(session, status_line(60, 1_800_000_000) + "\n").await.unwrap();
    t.events.wait_for("the next usage told", windows_told(60)).await;
}

/// A refusal that does not say when the limit resets, for an account whose
/// status line showed its 5-hour window nearly used up: the limit resets
/// when that window does, the one time the banner, the usage bar and the
/// command line all say (never "reset time unknown" under a bar that knows).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refusal_without_a_reset_takes_the_reset_the_status_line_told() {
    let t = TestEngine::start().await;
    let home = tempfile::tempdir().unwrap();
    let (_, session, _) = status_line_agent(&t, home.path()).await;
    let reset = (std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() + 7200) as i64;
    t.engine.write_input(session, status_line(97, reset) + "\n").await.unwrap();
    t.events.wait_for("the usage told", windows_told(97)).await;

    let worker = agent(&t, "worker", "team", 600).await;
    worker.refused(&t, "rate_limit").await;
    let limit = t.events.wait_for("the limit", |events| limit_of(events, "team")).await;
    assert_eq!(limit.until, Some(reset * 1000), "{limit:?}");
    let listed = t.engine.list_limits().await.unwrap();
    assert_eq!(listed.iter().map(|l| l.until).collect::<Vec<_>>(), vec![Some(reset * 1000)]);
    let waiting = t.task_until(&worker.task, "held for the limit", waits_for_limit).await;
    assert!(
        matches!(waiting.waiting_for, Some(WaitingFor::UsageLimit { until: Some(until), .. }) if until == reset * 1000),
        "{:?}",
        waiting.waiting_for
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_automations_run_on_a_limited_account_waits_for_the_reset_once_not_in_a_burst() {
    let t = TestEngine::start().await;
    quick(&t, 600).await;
    let first = agent(&t, "first", "team", 600).await;
    first.refused(&t, "rate_limit").await;
    t.task_until(&first.task, "to wait for the limit", waits_for_limit).await;
    // Another agent of the account, given work by an automation.
    let spec = ProfileSpec {
        ready_quiet_ms: 50,
        account: Some("team".into()),
        ..t.spec("nightly", "sh", &["-c", "stty -echo; exec cat"])
    };
    let nightly = t.engine.create_profile(spec).await.unwrap();
    let hourly = switchboard_core::Trigger::Every { every: "hourly".into() };
    let automation = TestEngine::automation(&nightly.id, hourly, "Bump the dependencies");
    let made = t.engine.create_automation(automation).await.unwrap();
    let ran = t.engine.run_automation_now(made.id.clone()).await.unwrap();
    let switchboard_core::RunOutcome::Task { task_id, .. } = &ran.runs[0].outcome else { panic!("{:?}", ran.runs) };
    let held = t
        .task_until(task_id, "held by the account's limit", |task| {
            task.state == TaskState::Queued && matches!(task.waiting_for, Some(WaitingFor::UsageLimit { .. }))
        })
        .await;
    let words = held.waiting_for.unwrap().in_words();
    assert!(words.contains("usage limit"), "the queue says why it waits: {words}");
    // Its next run while it waits: skipped, not piled up behind it.
    let again = t.engine.run_automation_now(made.id.clone()).await.unwrap();
    let switchboard_core::RunOutcome::Skipped { why } = &again.runs[1].outcome else { panic!("{:?}", again.runs) };
    assert_eq!(why, "skipped: its last run's task is still queued");
    assert_eq!(t.engine.list_tasks(Some(nightly.id.clone())).await.unwrap().len(), 1);
}
