//! What work cost, through the engine: an agent of Claude Code's kind
//! (`cat` with the terminal's echo off, whose hooks the test speaks for)
//! names its conversation file as Claude Code's hooks do, and the test
//! writes that file as Claude Code writes it (an answer of several content
//! blocks as several lines with the same id, the early ones with a partial
//! output count; `tests/fixtures/agents/cc-transcript-usage.jsonl`). The
//! prices are the test's own.

use crate::support;

use std::io::Write;
use std::path::{Path, PathBuf};

use support::TestEngine;
use switchboard_core::{
    Budget, CostGrouping, CostSince, LogKind, ModelPrice, PriceTable, Profile, Rates, SessionId, Settings, TaskId,
    TaskRecord, TaskSpec, TaskState, Usd,
};

fn usd(dollars: f64) -> Usd {
    Usd::try_from(dollars).unwrap()
}

/// $1 per million input tokens, $10 per million output, cache writes $2 (5
/// minutes) and $4 (an hour), cache reads $0.10.
fn test_prices() -> PriceTable {
    let rates = Rates {
        input: usd(1.0),
        output: usd(10.0),
        cache_write_5m: usd(2.0),
        cache_write_1h: usd(4.0),
        cache_read: usd(0.1),
    };
    PriceTable {
        source: "the test's own".into(),
        taken: "2026-11-29".into(),
        models: vec![ModelPrice { model: "claude-test".into(), rates, long_prompt: None }],
    }
}

struct Agent {
    profile: Profile,
    /// Claude Code's folder for this agent (its `CLAUDE_CONFIG_DIR`).
    home: PathBuf,
}

async fn claude_agent(t: &TestEngine, name: &str) -> Agent {
    let home = t.data_dir.join(format!("cc-{name}"));
    std::fs::create_dir_all(home.join("projects/w")).unwrap();
    let mut spec = t.spec(name, "sh", &["-c", "stty -echo; exec cat"]);
    spec.kind = switchboard_core::AgentKind::ClaudeCode;
    spec.ready_quiet_ms = 50;
    spec.env.insert("CLAUDE_CONFIG_DIR".into(), home.display().to_string());
    let profile = t.engine.create_profile(spec).await.unwrap();
    Agent { profile, home }
}

struct Work {
    task: TaskId,
    session: SessionId,
    file: PathBuf,
}

impl Agent {
    /// Submits a task, says the agent's hooks' first word (naming its
    /// file), and waits until the task is typed.
    async fn works_on(&self, t: &TestEngine, spec: TaskSpec) -> Work {
        let task = t.engine.submit_task(spec).await.unwrap().task.id;
        self.names_its_file(t, task).await
    }

    /// The agent at work on `task` names its file; waits until the task is
    /// typed.
    async fn names_its_file(&self, t: &TestEngine, task: TaskId) -> Work {
        let session = t.session_of_task(&task).await;
        let file = self.home.join(format!("projects/w/{session}.jsonl"));
        hook(
            t,
            &session,
            serde_json::json!({"hook_event_name": "SessionStart", "session_id": session.to_string(),
            "transcript_path": file.display().to_string()}),
        )
        .await;
        t.task_until(&task, "typed", |task| task.typed_at.is_some()).await;
        Work { task, session, file }
    }
}

async fn hook(t: &TestEngine, session: &SessionId, payload: serde_json::Value) {
    t.engine.hook_event(switchboard_tests::session_env::envelope(session, payload)).await.unwrap();
}

/// An answer as Claude Code writes it: a line per content block, each with
/// the answer's id and usage, the early ones with the output so far.
fn answer(id: &str, input: u64, output: u64, cache_read: u64, cache_write_1h: u64, blocks: usize) -> String {
    let at = jiff::Timestamp::now().to_string();
    (1..=blocks)
        .map(|block| {
            let written = if block == blocks { output } else { 1 };
            serde_json::json!({"type": "assistant", "timestamp": at, "message": {"id": id, "model": "claude-test",
                "usage": {"input_tokens": input, "output_tokens": written, "cache_read_input_tokens": cache_read,
                          "cache_creation_input_tokens": cache_write_1h,
                          "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": cache_write_1h}},
                "content": [{"type": "text", "text": format!("block {block}")}]}})
            .to_string()
                + "\n"
        })
        .collect()
}

fn append(file: &Path, text: &str) {
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    let mut opened = std::fs::OpenOptions::new().create(true).append(true).open(file).unwrap();
    opened.write_all(text.as_bytes()).unwrap();
}

fn write_summary(t: &TestEngine, task: &TaskId) {
    let text = "# Task Completion Summary\n\n## Objective\nx\n\n## Status\n✅ COMPLETED\n";
    std::fs::create_dir_all(t.workspace.join("summaries")).unwrap();
    std::fs::write(t.workspace.join(format!("summaries/{task}.md")), text).unwrap();
}

async fn with_prices(t: &TestEngine) {
    let settings = Settings { prices: test_prices(), ..t.engine.get_settings().await.unwrap() };
    t.engine.set_settings(settings).await.unwrap();
}

fn tokens_of(task: &TaskRecord) -> (u64, u64, u64, u64) {
    let t = &task.spent.tokens;
    (t.input, t.output, t.cache_read, t.cache_write)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tasks_tokens_and_cost_come_from_its_agents_own_file_each_answer_once() {
    let t = TestEngine::start().await;
    with_prices(&t).await;
    let agent = claude_agent(&t, "coder").await;
    let work = agent.works_on(&t, TaskSpec::new(agent.profile.id.clone(), "Port the parser")).await;
    // Two answers: the first of three content blocks, the second cached.
    append(&work.file, "{\"type\":\"permission-mode\"}\n");
    append(&work.file, &answer("msg_1", 100, 20, 0, 0, 3));
    append(&work.file, &answer("msg_2", 10, 5, 4000, 300, 1));
    let task = t.task_until(&work.task, "counts both answers", |task| tokens_of(task) == (110, 25, 4000, 300)).await;
    // 110 × $1 + 25 × $10 + 4000 × $0.10 + 300 × $4, per million.
    assert_eq!(task.spent.cost_usd, Some(usd(0.00196)));
    assert_eq!(task.spent.tokens.by_model.len(), 1);
    assert!(task.spent.team_tokens.is_none() && !task.spent.list_price);

    // A sub-agent of its own, named by its hooks: its file is the team's.
    hook(
        &t,
        &work.session,
        serde_json::json!({"hook_event_name": "SubagentStart", "agent_id": "a1",
        "session_id": work.session.to_string(), "transcript_path": work.file.display().to_string()}),
    )
    .await;
    let sub = work.file.with_extension("").join("subagents/agent-a1.jsonl");
    append(&sub, &answer("msg_s1", 1000, 100, 0, 0, 2));
    let task = t
        .task_until(&work.task, "counts its team apart", |task| {
            task.spent.team_tokens.as_ref().is_some_and(|team| team.input == 1000 && team.output == 100)
        })
        .await;
    assert_eq!(tokens_of(&task), (110, 25, 4000, 300), "its own stays its own");
    assert_eq!(task.spent.team_cost_usd, Some(usd(0.002)));

    // It completes; an answer of its turn written after (Claude Code writes
    // late) still counts to it.
    write_summary(&t, &work.task);
    t.task_until(&work.task, "completed", |task| task.state == TaskState::Completed).await;
    append(&work.file, &answer("msg_3", 1, 1, 0, 0, 1));
    t.task_until(&work.task, "counts the late answer", |task| tokens_of(task).0 == 111).await;

    let shown = t.engine.get_task(work.task.clone()).await.unwrap();
    let json = serde_json::to_value(&shown).unwrap();
    assert_eq!(json["tokens"]["input"], 111);
    assert_eq!(json["tokens"]["by_model"][0]["model"], "claude-test");
    assert_eq!(json["team_tokens"]["output"], 100);
    assert!(json["cost_usd"].as_f64().unwrap() > 0.00196);

    // The report: by agent, by task, by day, and in all.
    for by in [CostGrouping::Agent, CostGrouping::Task, CostGrouping::Day] {
        let report = t.engine.cost_report(CostSince::At { at: 0 }, by).await.unwrap();
        assert_eq!(report.total.tokens.input, 1111, "{by:?}");
        assert_eq!(report.rows.iter().map(|r| r.spent.tokens.input).sum::<u64>(), 1111, "{by:?}");
    }
    let by_agent = t.engine.cost_report(CostSince::At { at: 0 }, CostGrouping::Agent).await.unwrap();
    assert_eq!(by_agent.rows[0].name, "coder");
    let by_task = t.engine.cost_report(CostSince::At { at: 0 }, CostGrouping::Task).await.unwrap();
    assert_eq!(by_task.rows[0].name, "Port the parser");

    // New prices apply to what was counted.
    let mut prices = test_prices();
    prices.models[0].rates.input = usd(2.0);
    let settings = Settings { prices, ..t.engine.get_settings().await.unwrap() };
    t.engine.set_settings(settings).await.unwrap();
    let repriced = t.engine.get_task(work.task.clone()).await.unwrap();
    assert_eq!(repriced.spent.cost_usd.unwrap().nanos() - shown.spent.cost_usd.unwrap().nanos(), 111 * 1000);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_budget_is_told_at_80_percent_and_ends_the_task_over_budget_when_used_up() {
    let t = TestEngine::start().await;
    with_prices(&t).await;
    let agent = claude_agent(&t, "coder").await;
    let spec = TaskSpec { budget: Some(Budget::Tokens(1000)), ..TaskSpec::new(agent.profile.id.clone(), "Port it") };
    let work = agent.works_on(&t, spec).await;
    append(&work.file, &answer("msg_1", 800, 50, 0, 0, 1));
    t.events
        .wait_for("the budget's notice", |events| {
            events
                .iter()
                .any(|e| {
                    matches!(e, switchboard_core::EngineEvent::Logged { entry, .. }
                    if matches!(&entry.kind, LogKind::BudgetNear { used_percent: 85, budget } if budget == "1,000 tokens"))
                })
                .then_some(())
        })
        .await;
    let task = t.task_until(&work.task, "still at work", |task| tokens_of(task).0 == 800).await;
    assert_eq!(task.state, TaskState::Running);
    // Every client shows the share the engine judged.
    let near = switchboard_core::BudgetUse { used_percent: Some(85), mark: switchboard_core::BudgetMark::Near };
    assert_eq!(task.spent.budget_used, Some(near));
    append(&work.file, &answer("msg_2", 200, 10, 0, 0, 1));
    let task = t.task_until(&work.task, "over budget", |task| task.state == TaskState::OverBudget).await;
    assert_eq!(task.reason.as_deref(), Some("it used its budget of 1,000 tokens (1,060 tokens used)"));
    let result = task.result.expect("its fallback summary is kept");
    assert!(result.fallback);
    // Its agent asks for the user as for a failed task, saying why.
    t.events
        .wait_for("the agent to say its task went over budget", |events| {
            events.iter().rev().find_map(|e| match e {
                switchboard_core::EngineEvent::AttentionChanged {
                    profile_id,
                    attention: switchboard_core::Attention::Failed { reason: Some(reason), .. },
                } if profile_id == &agent.profile.id && reason.contains("used its budget") => Some(()),
                _ => None,
            })
        })
        .await;
    // It is not put back as it is: it would be over again at once.
    assert!(!task.actions.contains(&switchboard_core::TaskAction::Requeue));
    assert!(task.actions.contains(&switchboard_core::TaskAction::Rerun));

    // A budget in dollars needs a price for the agent's model.
    let other = claude_agent(&t, "fresh").await;
    let dollars = TaskSpec { budget: Some(Budget::Usd(usd(2.5))), ..TaskSpec::new(other.profile.id.clone(), "x") };
    let refused = t.engine.submit_task(dollars).await.unwrap_err();
    assert!(refused.to_string().contains("does not know yet which model fresh uses"), "{refused}");
    // So does a day's budget in dollars, and a loop's.
    let mut spec = other.profile.spec.clone();
    spec.daily_budget = Some(Budget::Usd(usd(5.0)));
    let refused = t.engine.update_profile(other.profile.id.clone(), spec).await.unwrap_err();
    assert!(refused.to_string().contains("does not know yet which model fresh uses"), "{refused}");
    let settings = switchboard_core::loops::LoopSettings {
        budget: Some(Budget::Usd(usd(1.0))),
        ..switchboard_core::loops::LoopSettings::new("Make the tests pass")
    };
    let refused = t.engine.start_loop(other.profile.id.clone(), settings).await.unwrap_err();
    assert!(refused.to_string().contains("does not know yet which model fresh uses"), "{refused}");
    // The first agent's model is known from its answers, and priced.
    let dollars = TaskSpec { budget: Some(Budget::Usd(usd(2.5))), ..TaskSpec::new(agent.profile.id.clone(), "y") };
    t.engine.submit_task(dollars).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reading_resumes_after_a_restart_where_it_left_off() {
    let data = tempfile::tempdir().unwrap();
    let (task, file) = {
        let t = TestEngine::start_in(data.path(), |_| {}).await;
        with_prices(&t).await;
        let agent = claude_agent(&t, "coder").await;
        let work = agent.works_on(&t, TaskSpec::new(agent.profile.id.clone(), "Port the parser")).await;
        append(&work.file, &answer("msg_1", 100, 20, 0, 0, 2));
        t.task_until(&work.task, "counted", |task| tokens_of(task).0 == 100).await;
        t.shutdown().await;
        (work.task, work.file)
    };
    // Written while no engine ran: read after the restart, and what was
    // read before is not counted again.
    append(&file, &answer("msg_2", 7, 3, 0, 0, 1));
    let t = TestEngine::start_in(data.path(), |_| {}).await;
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(30);
    loop {
        let counted = tokens_of(&t.engine.get_task(task.clone()).await.unwrap());
        if counted.0 == 107 {
            assert_eq!(counted, (107, 23, 0, 0));
            break;
        }
        assert!(tokio::time::Instant::now() < deadline, "the answer written meanwhile never counted: {counted:?}");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_delegates_tokens_count_to_the_task_it_helps_as_its_team() {
    let t = TestEngine::start().await;
    with_prices(&t).await;
    let lead = claude_agent(&t, "lead").await;
    let helper = claude_agent(&t, "helper").await;
    let work = lead.works_on(&t, TaskSpec::new(lead.profile.id.clone(), "Port the parser")).await;
    append(&work.file, &answer("msg_l1", 100, 10, 0, 0, 1));
    let block = "I need help.\n\n[DELEGATE_WORK]\nnew_task_description: Write the tests\ncoordination: tests/\n[/DELEGATE_WORK]\n";
    t.engine.agent_text(work.session.clone(), block.into()).await.unwrap();
    let request = t
        .events
        .wait_for("the delegation's request", |events| {
            events.iter().rev().find_map(|event| match event {
                switchboard_core::EngineEvent::SignalChanged { signal }
                    if signal.state == switchboard_core::SignalState::Pending && signal.session_id == work.session =>
                {
                    Some(signal.clone())
                }
                _ => None,
            })
        })
        .await;
    let approve = switchboard_core::SignalResponse::Approve { profile_id: helper.profile.id.clone() };
    t.engine.respond_to_signal(request.id.clone(), approve).await.unwrap();
    let delegation = t.engine.list_delegations().await.unwrap().pop().expect("the delegation");
    assert_eq!(delegation.requester_session, work.session);
    let delegate = delegation.delegate_session;
    let file = helper.home.join(format!("projects/w/{delegate}.jsonl"));
    hook(
        &t,
        &delegate,
        serde_json::json!({"hook_event_name": "SessionStart", "session_id": delegate.to_string(),
        "transcript_path": file.display().to_string()}),
    )
    .await;
    append(&file, &answer("msg_d1", 500, 50, 0, 0, 1));
    let task = t
        .task_until(&work.task, "counts its delegate's work as its team's", |task| {
            task.spent.team_tokens.as_ref().is_some_and(|team| (team.input, team.output) == (500, 50))
        })
        .await;
    assert_eq!(tokens_of(&task), (100, 10, 0, 0), "its own stays its own");
    // The delegation's record says what its helper used, told as it counts.
    let told = t
        .events
        .wait_for("the delegation told with what it used", |events| {
            events.iter().rev().find_map(|e| match e {
                switchboard_core::EngineEvent::DelegationChanged { delegation }
                    if delegation.delegate_session == delegate && delegation.spent.tokens.input > 0 =>
                {
                    Some(delegation.spent.clone())
                }
                _ => None,
            })
        })
        .await;
    assert_eq!((told.tokens.input, told.tokens.output), (500, 50));
    let listed = t.engine.list_delegations().await.unwrap().pop().unwrap();
    assert_eq!(listed.spent, told);
    assert_eq!(listed.spent.cost_usd, Some(usd(0.001)), "500 in at $1 and 50 out at $10 a million");
    // The helper's day counts it too.
    let by_agent = t.engine.cost_report(CostSince::At { at: 0 }, CostGrouping::Agent).await.unwrap();
    let helper_row = by_agent.rows.iter().find(|r| r.key == helper.profile.id.to_string()).expect("the helper's row");
    assert_eq!(helper_row.spent.tokens.input, 500);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_past_its_days_budget_ends_its_task_and_waits_until_the_budget_is_raised() {
    let t = TestEngine::start().await;
    with_prices(&t).await;
    let agent = claude_agent(&t, "coder").await;
    let mut spec = agent.profile.spec.clone();
    spec.daily_budget = Some(Budget::Tokens(1000));
    t.engine.update_profile(agent.profile.id.clone(), spec.clone()).await.unwrap();
    let work = agent.works_on(&t, TaskSpec::new(agent.profile.id.clone(), "Port the parser")).await;
    let next = t.engine.submit_task(TaskSpec::new(agent.profile.id.clone(), "Then the lexer")).await.unwrap().task.id;
    append(&work.file, &answer("msg_1", 1200, 10, 0, 0, 1));
    let over = t.task_until(&work.task, "over its agent's day", |task| task.state == TaskState::OverBudget).await;
    assert_eq!(over.reason.as_deref(), Some("its agent's day: it used its budget of 1,000 tokens (1,210 tokens used)"));
    // The next task waits for the agent's next day, saying so.
    let waiting = t
        .task_until(&next, "held for the day", |task| {
            matches!(task.waiting_for, Some(switchboard_core::WaitingFor::DailyBudget { .. }))
        })
        .await;
    assert_eq!(waiting.state, TaskState::Queued);
    assert!(waiting.waiting_for.unwrap().in_words().contains("its day's budget of 1,000 tokens"));
    // A larger budget lets it go on now.
    spec.daily_budget = Some(Budget::Tokens(100_000));
    t.engine.update_profile(agent.profile.id.clone(), spec).await.unwrap();
    t.task_until(&next, "taken once the budget is raised", |task| task.state == TaskState::Running).await;
}

/// Waits until the loop's `n`th iteration has its task.
async fn iteration_task(t: &TestEngine, id: &switchboard_core::LoopId, n: usize) -> TaskId {
    t.events
        .wait_for("the iteration's task", |events| {
            events.iter().rev().find_map(|e| match e {
                switchboard_core::EngineEvent::LoopChanged { info } if &info.id == id && info.iterations.len() == n => {
                    info.iterations[n - 1].task_id.clone()
                }
                _ => None,
            })
        })
        .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_loops_budget_counts_every_iteration_and_ends_the_iteration_and_the_loop_when_used_up() {
    let t = TestEngine::start().await;
    with_prices(&t).await;
    let agent = claude_agent(&t, "looper").await;
    let settings = switchboard_core::loops::LoopSettings {
        budget: Some(Budget::Tokens(1000)),
        ..switchboard_core::loops::LoopSettings::new("Make the tests pass")
    };
    let started = t.engine.start_loop(agent.profile.id.clone(), settings).await.unwrap();
    // The first iteration uses 600 tokens and ends its turn: the loop goes on.
    let first = agent.names_its_file(&t, iteration_task(&t, &started.id, 1).await).await;
    append(&first.file, &answer("msg_1", 550, 50, 0, 0, 2));
    t.task_until(&first.task, "counted", |task| tokens_of(task).0 == 550).await;
    hook(
        &t,
        &first.session,
        serde_json::json!({"hook_event_name": "Stop", "session_id": first.session.to_string(),
            "last_assistant_message": "Two tests still fail."}),
    )
    .await;
    // The second uses 500 more: the loop's 1,000 are used up while it works.
    let second = agent.names_its_file(&t, iteration_task(&t, &started.id, 2).await).await;
    assert_ne!(second.session, first.session, "each iteration a fresh session");
    append(&second.file, &answer("msg_2", 450, 50, 0, 0, 1));
    let over = t.task_until(&second.task, "over its loop's budget", |task| task.state == TaskState::OverBudget).await;
    assert_eq!(over.reason.as_deref(), Some("its loop: it used its budget of 1,000 tokens (1,100 tokens used)"));
    let ended = t.loop_ends(&started.id).await;
    let switchboard_core::LoopState::OverBudget { budget, .. } = &ended.state else { panic!("{:#?}", ended.state) };
    assert_eq!(budget, "1,000 tokens");
    // Each iteration's use and the loop's in all, priced, and its budget's share.
    let shown = t.engine.get_loop(started.id.clone()).await.unwrap();
    let each: Vec<u64> = shown.iterations.iter().map(|i| i.spent.tokens.all()).collect();
    assert_eq!(each, [600, 500]);
    assert_eq!(shown.spent.tokens.all(), 1100);
    // 1,000 in at $1 and 100 out at $10 a million.
    assert_eq!(shown.spent.cost_usd, Some(usd(0.002)));
    assert_eq!(
        shown.budget_used,
        Some(switchboard_core::BudgetUse { used_percent: Some(110), mark: switchboard_core::BudgetMark::Spent })
    );
    assert_eq!(shown.iterations.len(), 2, "no iteration after the budget was used up");

    // The command line says the same, in words and in JSON.
    let id = started.id.to_string();
    let (code, out, err) = support::cli_async(&t, &["loop", "show", &id]).await;
    assert_eq!(code, std::process::ExitCode::SUCCESS, "{err}");
    assert!(out.contains("budget: 1,000 tokens · 110 % used\n"), "{out}");
    assert!(out.contains("used: 1,100 tokens (1,000 in, 100 out, 0 cached) · $0.0020\n"), "{out}");
    assert!(out.contains("#1   ended           continue · Two tests still fail. · 600 tokens"), "{out}");
    let (_, out, _) = support::cli_async(&t, &["loop", "show", &id, "--json"]).await;
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(json["budget_used"], serde_json::json!({"used_percent": 110, "mark": "spent"}));
    assert_eq!(json["tokens"]["input"], 1000);
    let each: Vec<&serde_json::Value> =
        json["history"].as_array().unwrap().iter().map(|i| &i["tokens"]["output"]).collect();
    assert_eq!(each, [50, 50]);
    let (_, out, _) = support::cli_async(&t, &["cost", "--since", "today", "--by", "task"]).await;
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3, "{out}");
    assert!(lines[0].starts_with("Make the tests pass") && lines[0].contains("600 tokens"), "{out}");
    assert!(
        lines[2].starts_with("in all") && lines[2].contains("1,100 tokens (1,000 in, 100 out, 0 cached) · $0.0020"),
        "{out}"
    );
    let (_, out, _) = support::cli_async(&t, &["cost", "--since", "1h", "--by", "agent", "--json"]).await;
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(json["rows"][0]["name"], "looper");
    assert_eq!(json["rows"][0]["tokens"]["input"], 1000);
    assert_eq!(json["rows"][0]["cost_usd"], 0.002);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_held_for_its_days_budget_takes_work_again_when_its_next_day_begins() {
    let data = tempfile::tempdir().unwrap();
    let clock = switchboard_core::clock::Clock::set_at(jiff::Timestamp::now().as_millisecond());
    let t = TestEngine::start_in(data.path(), |config| config.clock = clock.clone()).await;
    with_prices(&t).await;
    let agent = claude_agent(&t, "coder").await;
    let mut spec = agent.profile.spec.clone();
    spec.daily_budget = Some(Budget::Tokens(1000));
    t.engine.update_profile(agent.profile.id.clone(), spec).await.unwrap();
    let today = t.engine.cost_report(CostSince::Today, CostGrouping::Agent).await.unwrap();
    let row =
        today.rows.iter().find(|r| r.key == agent.profile.id.to_string()).expect("its row, though it spent nothing");
    assert_eq!(row.day_budget.and_then(|b| b.used_percent), Some(0));

    let work = agent.works_on(&t, TaskSpec::new(agent.profile.id.clone(), "Port the parser")).await;
    let next = t.engine.submit_task(TaskSpec::new(agent.profile.id.clone(), "Then the lexer")).await.unwrap().task.id;
    append(&work.file, &answer("msg_1", 1200, 10, 0, 0, 1));
    t.task_until(&work.task, "over its agent's day", |task| task.state == TaskState::OverBudget).await;
    let waiting = t
        .task_until(&next, "held for the day", |task| {
            matches!(task.waiting_for, Some(switchboard_core::WaitingFor::DailyBudget { .. }))
        })
        .await;
    let Some(switchboard_core::WaitingFor::DailyBudget { until, .. }) = waiting.waiting_for else { unreachable!() };
    assert_eq!(until, switchboard_core::tasks::budget::next_day_start(clock.now()));
    // Today's report says the day's budget is used up, as the engine judged it.
    let today = t.engine.cost_report(CostSince::Today, CostGrouping::Agent).await.unwrap();
    let row = today.rows.iter().find(|r| r.key == agent.profile.id.to_string()).unwrap();
    assert_eq!(
        row.day_budget,
        Some(switchboard_core::BudgetUse { used_percent: Some(121), mark: switchboard_core::BudgetMark::Spent })
    );
    // At its next day's start it goes on.
    clock.set(until);
    t.task_until(&next, "taken when its next day began", |task| task.state == TaskState::Running).await;
    let today = t.engine.cost_report(CostSince::Today, CostGrouping::Agent).await.unwrap();
    let row = today.rows.iter().find(|r| r.key == agent.profile.id.to_string()).unwrap();
    assert_eq!(row.day_budget.and_then(|b| b.used_percent), Some(0), "a new day, none of it used");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_account_whose_status_line_tells_plan_windows_pays_by_subscription_so_its_costs_are_list_prices() {
    let t = TestEngine::start().await;
    with_prices(&t).await;
    let agent = claude_agent(&t, "coder").await;
    let work = agent.works_on(&t, TaskSpec::new(agent.profile.id.clone(), "Port the parser")).await;
    // Before any plan window is told: an account that pays by the token.
    append(&work.file, &answer("msg_1", 1000, 0, 0, 0, 1));
    let task = t.task_until(&work.task, "counted", |task| tokens_of(task).0 == 1000).await;
    assert!(!task.spent.list_price);
    // Claude Code's status line tells plan windows only to a subscription.
    let windows = serde_json::json!({"hook_event_name": switchboard_api::protocol::limit::STATUS_LINE_EVENT,
        "session_id": work.session.to_string(),
        "rate_limits": {"five_hour": {"used_percentage": 12, "resets_at": 1_900_000_000}}});
    hook(&t, &work.session, windows).await;
    t.events
        .wait_for("the plan's windows told", |events| {
            events.iter().any(|e| matches!(e, switchboard_core::EngineEvent::UsageChanged { .. })).then_some(())
        })
        .await;
    append(&work.file, &answer("msg_2", 2000, 0, 0, 0, 1));
    let task = t.task_until(&work.task, "counted at list prices", |task| tokens_of(task).0 == 3000).await;
    assert!(task.spent.list_price, "what it cost is the list-price equivalent of a subscription's tokens");
    assert_eq!(task.spent.cost_usd, Some(usd(0.003)));
    let (_, out, _) = support::cli_async(&t, &["task", "show", &work.task.to_string()]).await;
    assert!(out.contains("· $0.0030 at list prices (paid by subscription)"), "{out}");
}

/// An automation that starts a loop counts the loop's end toward its
/// failing runs: five loops in a row ending over budget pause it, saying
/// why; a loop that completes or is cancelled breaks the streak.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_automation_whose_loops_keep_ending_over_budget_pauses_itself() {
    let t = TestEngine::start().await;
    let agent = claude_agent(&t, "nightly").await;
    let settings = switchboard_core::loops::LoopSettings {
        budget: Some(Budget::Tokens(100)),
        ..switchboard_core::loops::LoopSettings::new("Bump the dependencies")
    };
    let trigger = switchboard_core::Trigger::Every { every: "daily 03:00".into() };
    let spec = switchboard_core::AutomationSpec {
        action: switchboard_core::AutomationAction::Loop { settings },
        ..TestEngine::automation(&agent.profile.id, trigger, "")
    };
    let made = t.engine.create_automation(spec).await.unwrap();
    for run in 0..5 {
        // Not paused before the fifth bad end.
        let shown = t.engine.get_automation(made.id.clone()).await.unwrap();
        assert_eq!(shown.state.as_str(), "active", "after {run} loops over budget: {:?}", shown.state);
        let shown = t.engine.run_automation_now(made.id.clone()).await.unwrap();
        let switchboard_core::RunOutcome::Loop { loop_id, .. } = &shown.runs[run].outcome else {
            panic!("run {run} made no loop: {:?}", shown.runs[run])
        };
        let first = agent.names_its_file(&t, iteration_task(&t, loop_id, 1).await).await;
        append(&first.file, &answer(&format!("msg_{run}"), 150, 10, 0, 0, 1));
        let ended = t.loop_ends(loop_id).await;
        assert_eq!(ended.state.as_str(), "over_budget", "{:#?}", ended.state);
    }
    let paused = t.automation_paused(&made.id).await;
    let why = paused.state.reason().unwrap();
    assert!(why.starts_with("it paused itself: its last 5 runs ended badly"), "{why}");
    assert!(why.contains("its loop ended: it used its budget of 100 tokens"), "{why}");
}
