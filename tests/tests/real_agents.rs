//! The engine against the real agent CLIs: Claude Code and Codex, installed
//! from npm by `scripts/agents.sh`, each run in an engine PTY inside a
//! loopback-only network namespace and talking to a scripted fake model
//! served in that namespace. Their hooks reach the engine through the real
//! hook binary; tasks are typed into their real TUIs.

#[path = "suite/support/mod.rs"]
mod support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use regex::Regex;
use serde_json::{Value, json};
use support::*;
use switchboard_core::hook::AgentStatus;
use switchboard_core::signal::teach::{PROTOCOL_FILE, pointer, protocol_text, tools_text};
use switchboard_core::signal::{ScanEvent, SignalBody};
use switchboard_core::{
    AgentKind, DiagramId, EngineEvent, FlowTarget, LogKind, Profile, ProfileSpec, SessionId, SignalChannel,
    SignalResponse, SignalState, TaskId, TaskRecord, TaskSpec, TaskState,
};
use switchboard_tests::fake_model::{Block, FakeModel, ModelRequest, Reply, Spend, Wire};
use switchboard_tests::netns::LoopbackNet;
use tokio::sync::watch;

/// Real CLIs start and answer in seconds; this only bounds a failing test.
const REAL_DEADLINE: Duration = Duration::from_secs(60);
const API_KEY: &str = "sk-ant-switchboard-test-0123456789abcdef";

fn installed(variable: &str) -> String {
    let path = std::env::var(variable)
        .unwrap_or_else(|_| panic!("{variable} is not set: run `eval \"$(scripts/agents.sh)\"` first"));
    assert!(Path::new(&path).is_file(), "{variable}={path} does not exist: run scripts/agents.sh");
    path
}

/// A task's summary file as the engine told the agent to write it.
fn summary_path(request: &ModelRequest) -> Option<String> {
    let pattern = Regex::new(r"summaries/[0-9a-f-]{36}\.md").unwrap();
    pattern.find(&request.user_text()).map(|m| m.as_str().to_owned())
}

const SUMMARY: &str = "# Task summary\n\n## Status\nCOMPLETED\n\n## Summary\nThe fake model wrote this through the agent's own file tool.\n";

const CLARIFICATION: &str = "I need one answer first.\n\n[CLARIFICATION_NEEDED]\nblocked_at: \"Choosing the output format\"\nquestions:\n  - \"JSON or YAML?\"\ncurrent_state: \"Nothing written yet\"\n[/CLARIFICATION_NEEDED]\n";

/// A real agent's world: the engine, the namespace, the fake model and a
/// throwaway home.
struct Rig {
    t: TestEngine,
    net: LoopbackNet,
    model: FakeModel,
    workspace: PathBuf,
    home: PathBuf,
}

impl Rig {
    /// `script` is made for the workspace the agent works in.
    async fn start<S>(wire: Wire, script: impl FnOnce(PathBuf) -> S) -> Rig
    where
        S: Fn(&ModelRequest) -> Reply + Send + Sync + 'static,
    {
        let t = TestEngine::start_with(|config| {
            config.hook_binary = Some(hook_binary());
            config.mcp_binary = Some(mcp_binary());
        })
        .await;
        let workspace = t.workspace.canonicalize().unwrap();
        let mut net = LoopbackNet::new().expect("a loopback-only network namespace");
        let model = FakeModel::start(net.listener.take().unwrap(), wire, script(workspace.clone())).unwrap();
        let home = t.data_dir.join("home");
        std::fs::create_dir_all(home.join("tmp")).unwrap();
        Rig { t, net, model, workspace, home }
    }

    /// A profile of `kind` as the "New agent" form fills it in (the app's
    /// preset: arguments, ready pattern), running `program` inside the
    /// namespace with `extra_args` after the preset's.
    async fn profile(
        &self,
        kind: AgentKind,
        program: &str,
        extra_args: &[&str],
        env: BTreeMap<String, String>,
    ) -> Profile {
        let preset = switchboard_core::presets::preset(kind).expect("a preset for each real CLI");
        let command = self.home.join(format!("{}-in-namespace", kind.as_str()));
        self.net.wrapper(&command, program).unwrap();
        let spec = ProfileSpec {
            name: kind.as_str().into(),
            command: command.display().to_string(),
            args: preset.args.iter().cloned().chain(extra_args.iter().map(|a| a.to_string())).collect(),
            env,
            cwd: self.workspace.display().to_string(),
            kind,
            ready_pattern: preset.ready_pattern,
            ready_quiet_ms: preset.ready_quiet_ms,
            ..Default::default()
        };
        self.t.engine.create_profile(spec).await.unwrap()
    }

    /// Claude Code with its first-run dialogs answered, as its preset runs
    /// it (editing files without asking).
    async fn claude_code(&self) -> Profile {
        let state = json!({
            "hasCompletedOnboarding": true,
            "projects": {self.workspace.display().to_string(): {"hasTrustDialogAccepted": true}},
            "customApiKeyResponses": {"approved": [&API_KEY[API_KEY.len() - 20..]], "rejected": []},
        });
        std::fs::write(self.home.join(".claude.json"), state.to_string()).unwrap();
        let env = self.env(&[
            ("ANTHROPIC_BASE_URL", self.model.base_url()),
            ("ANTHROPIC_API_KEY", API_KEY.into()),
            ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1".into()),
            ("DISABLE_TELEMETRY", "1".into()),
            ("DISABLE_AUTOUPDATER", "1".into()),
            ("DISABLE_ERROR_REPORTING", "1".into()),
        ]);
        let claude = installed("SWITCHBOARD_CLAUDE_CODE");
        self.profile(AgentKind::ClaudeCode, &claude, &[], env).await
    }

    /// Codex on the fake model, in a trusted folder, running commands
    /// without asking; its hooks (which the app writes into its
    /// configuration folder) trusted from the command line by its preset.
    async fn codex(&self) -> Profile {
        let codex_home = self.home.join("codex");
        std::fs::create_dir_all(&codex_home).unwrap();
        let config = format!(
            "model = \"gpt-fake\"\nmodel_provider = \"fake\"\n\n\
             [model_providers.fake]\nname = \"fake\"\nbase_url = \"{}/v1\"\nwire_api = \"responses\"\n\
             env_key = \"FAKE_MODEL_KEY\"\n\n[projects.\"{}\"]\ntrust_level = \"trusted\"\n",
            self.model.base_url(),
            self.workspace.display()
        );
        std::fs::write(codex_home.join("config.toml"), config).unwrap();
        let env = self.env(&[("CODEX_HOME", codex_home.display().to_string()), ("FAKE_MODEL_KEY", "fake".into())]);
        let codex = installed("SWITCHBOARD_CODEX");
        let args = ["--sandbox", "danger-full-access", "--ask-for-approval", "never"];
        self.profile(AgentKind::Codex, &codex, &args, env).await
    }

    fn env(&self, extra: &[(&str, String)]) -> BTreeMap<String, String> {
        let mut env: BTreeMap<String, String> = [
            ("HOME", self.home.display().to_string()),
            ("TMPDIR", self.home.join("tmp").display().to_string()),
            ("XDG_RUNTIME_DIR", self.home.join("tmp").display().to_string()),
            ("TERM", "xterm-256color".into()),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect();
        env.extend(extra.iter().map(|(k, v)| (k.to_string(), v.clone())));
        env
    }

    /// Waits until the session has ended (a worktree task's, a grace after its task).
    async fn session_ended(&self, id: &SessionId) -> switchboard_core::SessionInfo {
        let deadline = tokio::time::Instant::now() + REAL_DEADLINE;
        loop {
            let sessions = self.t.engine.list_sessions().await.unwrap();
            let session = sessions.into_iter().find(|s| &s.id == id).expect("the session is listed");
            if !matches!(session.state, switchboard_core::SessionState::Running { .. }) {
                return session;
            }
            assert!(tokio::time::Instant::now() < deadline, "the session did not end after its task");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    async fn submit(&self, profile: &Profile, instruction: &str) -> TaskRecord {
        self.t.engine.submit_task(TaskSpec::new(profile.id.clone(), instruction)).await.unwrap().task
    }

    async fn wait_for<R>(&self, what: &str, found: impl Fn(&[EngineEvent]) -> Option<R>) -> R {
        match tokio::time::timeout(REAL_DEADLINE, self.t.events.wait_for(what, found)).await {
            Ok(found) => found,
            Err(_) => panic!("timed out waiting for {what}"),
        }
    }

    /// Waits for a pending signal that `fits`.
    async fn pending_signal(
        &self,
        what: &str,
        fits: impl Fn(&switchboard_core::SignalRecord) -> bool,
    ) -> switchboard_core::SignalRecord {
        self.wait_for(what, |events| {
            events.iter().find_map(|e| match e {
                EngineEvent::SignalChanged { signal } if signal.state == SignalState::Pending && fits(signal) => {
                    Some(signal.clone())
                }
                _ => None,
            })
        })
        .await
    }

    async fn task_ends(&self, id: &TaskId) -> TaskRecord {
        self.wait_for("the task to end", |events| {
            events.iter().find_map(|e| match e {
                EngineEvent::TaskChanged { task }
                    if &task.id == id && !matches!(task.state, TaskState::Queued | TaskState::Running) =>
                {
                    Some(task.clone())
                }
                _ => None,
            })
        })
        .await
    }

    async fn session_of(&self, id: &TaskId) -> SessionId {
        self.wait_for("the task to be given to a session", |events| {
            events.iter().find_map(|e| match e {
                EngineEvent::TaskChanged { task } if &task.id == id => task.session_id.as_ref().cloned(),
                _ => None,
            })
        })
        .await
    }

    /// What the engine logged of `session`'s hooks: (the engine's name
    /// for the event, payload).
    async fn logged(&self, session: &SessionId) -> Vec<(String, Value)> {
        let entries = self.t.engine.list_events(Some(session.clone())).await.unwrap();
        entries
            .into_iter()
            .filter_map(|entry| match entry.kind {
                LogKind::Hook { event, payload, .. } => Some((event, payload)),
                _ => None,
            })
            .collect()
    }

    /// The hook events logged for `session`: (the agent's event name, payload).
    async fn hooks(&self, session: &SessionId) -> Vec<(String, Value)> {
        let logged = self.logged(session).await;
        logged.into_iter().filter_map(|(_, p)| Some((p["hook_event_name"].as_str()?.to_owned(), p))).collect()
    }

    async fn wait_for_hook(&self, session: &SessionId, event: &str, count: usize) -> Vec<(String, Value)> {
        let what = format!("{event} #{count} from the agent");
        self.wait_until_logged(session, &what, |_| true).await;
        let deadline = tokio::time::Instant::now() + REAL_DEADLINE;
        loop {
            let hooks = self.hooks(session).await;
            if hooks.iter().filter(|(name, _)| name == event).count() >= count {
                return hooks;
            }
            let seen: Vec<&str> = hooks.iter().map(|(name, _)| name.as_str()).collect();
            assert!(tokio::time::Instant::now() < deadline, "no {what}; hooks seen: {seen:?}");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Waits until what was logged of `session`'s hooks satisfies `done`.
    async fn wait_until_logged(&self, session: &SessionId, what: &str, done: impl Fn(&[(String, Value)]) -> bool) {
        let deadline = tokio::time::Instant::now() + REAL_DEADLINE;
        loop {
            let logged = self.logged(session).await;
            if done(&logged) {
                return;
            }
            let seen: Vec<&str> = logged.iter().map(|(name, _)| name.as_str()).collect();
            assert!(tokio::time::Instant::now() < deadline, "no {what}; logged: {seen:?}");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

fn latest_status(events: &[EngineEvent], session: &SessionId) -> Option<AgentStatus> {
    statuses(events, session).last().copied()
}

/// The model of the first Claude Code test: a task naming WRITE-SUMMARY is
/// done with the Write tool; one naming ASK-FIRST asks a question.
fn writer_script(workspace: PathBuf) -> impl Fn(&ModelRequest) -> Reply + Send + Sync + 'static {
    move |request| {
        let latest = request.latest_user_text();
        if request.follows_tool_use() {
            Reply::text("The summary is written.")
        } else if latest.contains("WRITE-SUMMARY")
            && let Some(path) = summary_path(request)
        {
            let file_path = workspace.join(path).display().to_string();
            Reply::tools([("Write", json!({"file_path": file_path, "content": SUMMARY}))])
        } else if latest.contains("ASK-FIRST") {
            Reply::text(CLARIFICATION)
        } else {
            Reply::text("Ready.")
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claude_code_reports_through_its_hooks_and_its_summary_completes_the_task() {
    let rig = Rig::start(Wire::Anthropic, writer_script).await;
    let profile = rig.claude_code().await;
    let (session, _output) = rig.t.start_session(&profile).await;
    let session = session.id;
    rig.wait_for_hook(&session, "SessionStart", 1).await;

    // A turn typed by hand: Waiting → Working → Waiting.
    tokio::time::sleep(Duration::from_millis(500)).await;
    rig.t.engine.write_input(session.clone(), "hello".into()).await.unwrap();
    tokio::time::sleep(Duration::from_millis(200)).await;
    rig.t.engine.write_input(session.clone(), "\r".into()).await.unwrap();
    rig.wait_for_hook(&session, "Stop", 1).await;
    let seen = statuses(&rig.t.events_now().await, &session);
    assert_eq!(seen, [AgentStatus::Waiting, AgentStatus::Working, AgentStatus::Waiting]);

    // A task, done with the agent's Write tool: the summary completes it.
    let task = rig.submit(&profile, "WRITE-SUMMARY: say hello").await;
    assert_eq!(rig.session_of(&task.id).await, session, "the running agent takes the task");
    let done = rig.task_ends(&task.id).await;
    assert_eq!(done.state, TaskState::Completed, "{done:?}");
    let summary = std::fs::read_to_string(rig.workspace.join(format!("summaries/{}.md", task.id))).unwrap();
    assert_eq!(summary, SUMMARY, "written by the agent's Write tool");

    // Hook events came from the agent's session, under the conversation id
    // the engine gave it.
    let hooks = rig.wait_for_hook(&session, "Stop", 2).await;
    let names: Vec<&str> = hooks.iter().map(|(name, _)| name.as_str()).collect();
    for expected in ["SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop"] {
        assert!(names.contains(&expected), "no {expected} among {names:?}");
    }
    let info = rig.t.engine.list_sessions().await.unwrap().into_iter().find(|s| s.id == session).unwrap();
    let conversation = info.agent_session_id.expect("a Claude Code session is named by the engine");
    assert!(hooks.iter().all(|(_, payload)| payload["session_id"] == conversation.as_str()), "{hooks:?}");
    let write = hooks.iter().find(|(name, _)| name == "PreToolUse").unwrap();
    assert_eq!(write.1["tool_name"], "Write");

    rig.wait_for("the agent to be done", |events| {
        (latest_status(events, &session) == Some(AgentStatus::Done)).then_some(())
    })
    .await;
    let seen = statuses(&rig.t.events_now().await, &session);
    assert_eq!(&seen[3..], [AgentStatus::Working, AgentStatus::Done], "status went {seen:?}");

    // A question the model writes reaches the app through the Stop hook
    // (the screen shows it reflowed) and waits for the user.
    let asking = rig.submit(&profile, "ASK-FIRST: pick a format").await;
    let signal = rig
        .wait_for("the clarification", |events| {
            events.iter().find_map(|e| match e {
                EngineEvent::SignalChanged { signal } if signal.task_id.as_ref() == Some(&asking.id) => {
                    Some(signal.clone())
                }
                _ => None,
            })
        })
        .await;
    assert_eq!(signal.session_id, session);
    assert_eq!(signal.channel, SignalChannel::Hook);
    let ScanEvent::Signal { signal: read } = &signal.scan else { panic!("not read: {:?}", signal.scan) };
    let SignalBody::Clarification { questions, .. } = &read.body else { panic!("not a clarification: {read:?}") };
    assert_eq!(questions, &["JSON or YAML?"]);
    rig.wait_for("the agent to need the user", |events| {
        (latest_status(events, &session) == Some(AgentStatus::Attention)).then_some(())
    })
    .await;
    rig.t.engine.stop_session(session).await.unwrap();
}

/// What the team test's teammate's answer reports using: its own file's
/// tokens, counted to the lead's task as its team's.
const TEAMMATE_SPEND: Spend = Spend { input: 777, output: 33, cache_read: 0, cache_write: 0 };

/// Waits until the teammate's (or sub-agent's) own file has counted to the
/// lead's task as its team's, exactly what its answer reported.
async fn team_spend_counted(rig: &Rig, task: &TaskId) -> TaskRecord {
    let counted = rig
        .task_until(task, REAL_DEADLINE, |task| {
            task.spent.team_tokens.as_ref().is_some_and(|team| team.input > 0 && team.output > 0)
        })
        .await;
    let team = counted.spent.team_tokens.clone().unwrap();
    assert_eq!((team.input, team.output), (TEAMMATE_SPEND.input, TEAMMATE_SPEND.output), "{team:?}");
    counted
}

/// The model of the team test: the lead starts a background teammate, then
/// writes its summary; the teammate's answer waits for `gate`.
fn team_script(gate: watch::Receiver<bool>) -> impl FnOnce(PathBuf) -> Box<Script> {
    move |workspace| {
        Box::new(move |request: &ModelRequest| {
            let everything = request.user_text();
            if !everything.contains("LEAD-TEAM") {
                return Reply::text("Counted to three.").with_tokens(TEAMMATE_SPEND).held_until(gate.clone());
            }
            let summary = summary_path(request).map(|path| workspace.join(path));
            if request.latest_user_text().contains("task-notification") {
                Reply::text("My teammate reported: the team is done.")
            } else if !request.follows_tool_use() {
                Reply::tools([(
                    "Agent",
                    json!({"description": "count", "prompt": "TEAMMATE-JOB: count to three",
                           "subagent_type": "general-purpose", "name": "counter", "run_in_background": true}),
                )])
            } else if let Some(summary) = summary.filter(|path| !path.exists()) {
                Reply::tools([("Write", json!({"file_path": summary.display().to_string(), "content": SUMMARY}))])
            } else {
                Reply::text("My teammate is still counting.")
            }
        })
    }
}

type Script = dyn Fn(&ModelRequest) -> Reply + Send + Sync;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_claude_code_lead_with_a_background_teammate_completes_only_after_it() {
    let (open, gate) = watch::channel(false);
    let rig = Rig::start(Wire::Anthropic, team_script(gate)).await;
    let profile = rig.claude_code().await;
    let task = rig.submit(&profile, "LEAD-TEAM: count with a helper").await;
    let lead = rig.session_of(&task.id).await;

    // The lead's turn ends with its summary written and its teammate at work.
    let hooks = rig.wait_for_hook(&lead, "Stop", 1).await;
    let stop = &hooks.iter().find(|(name, _)| name == "Stop").unwrap().1;
    assert_eq!(stop["background_tasks"][0]["status"], "running", "{stop}");
    assert!(hooks.iter().any(|(name, _)| name == "SubagentStart"), "the teammate's start is the lead's event");
    assert!(rig.workspace.join(format!("summaries/{}.md", task.id)).is_file());
    tokio::time::sleep(Duration::from_secs(1)).await;
    let held = rig.t.engine.get_task(task.id.clone()).await.unwrap();
    assert_eq!(held.state, TaskState::Running, "the team still works: the lead's task stays open");
    assert_eq!(latest_status(&rig.t.events_now().await, &lead), Some(AgentStatus::Working));
    // Its flows say the same: the gate kept it alive, with one teammate at work.
    let of_lead = FlowTarget::Session { session_id: lead.clone() };
    let flow = |view: &switchboard_core::FlowView, diagram: DiagramId| {
        view.diagrams.iter().find(|d| d.diagram == diagram).unwrap().clone()
    };
    let view = rig.t.engine.flow_view(of_lead.clone(), None).await.unwrap();
    assert_eq!(flow(&view, DiagramId::TeamLead).current, ["l"], "Session stays alive, lead continues");
    assert_eq!(flow(&view, DiagramId::TeamLead).gate.unwrap().active, 1);
    assert_eq!(flow(&view, DiagramId::TeamLifecycle).current, ["team_active"]);

    // The teammate answers; the lead hears of it, and its next turn ends
    // with no one left at work.
    open.send(true).unwrap();
    let done = rig.task_ends(&task.id).await;
    assert_eq!(done.state, TaskState::Completed, "{done:?}");
    let hooks = rig.hooks(&lead).await;
    let stops: Vec<&Value> = hooks.iter().filter(|(name, _)| name == "Stop").map(|(_, p)| p).collect();
    assert!(stops.len() >= 2, "completed at the lead's second turn: {stops:?}");
    assert_eq!(stops.last().unwrap()["background_tasks"], json!([]));
    rig.wait_for("the lead to be done", |events| {
        (latest_status(events, &lead) == Some(AgentStatus::Done)).then_some(())
    })
    .await;
    // The decision at its last turn: the team exists, no one works: complete.
    let view = rig.t.engine.flow_view(of_lead, None).await.unwrap();
    assert_eq!(flow(&view, DiagramId::CompletionDecision).current, ["g"]);
    assert!(
        flow(&view, DiagramId::CompletionDecision).path.iter().any(|s| s.node == "i"),
        "team exists but no teammates"
    );
    assert_eq!(flow(&view, DiagramId::TeamLead).current, ["m"]);
    assert_eq!(flow(&view, DiagramId::AgentStatus).current, ["stop"], "Done");
    // The teammate's own file (named by its hooks) counts to the lead's task as its team's.
    let counted = team_spend_counted(&rig, &task.id).await;
    assert!(counted.spent.tokens.input > 0, "the lead's own apart: {:?}", counted.spent.tokens);
    rig.t.engine.stop_session(lead).await.unwrap();
}

/// The model of the Codex team test: the lead spawns a sub-agent with
/// Codex's `spawn_agent` (of its `multi_agent_v1` tools), writes its summary
/// and ends its turn without waiting; the sub-agent's answer waits for `gate`.
fn codex_team_script(gate: watch::Receiver<bool>) -> impl FnOnce(PathBuf) -> Box<Script> {
    move |workspace| {
        Box::new(move |request: &ModelRequest| {
            let has_tools = request.body["tools"].as_array().is_some_and(|tools| !tools.is_empty());
            let latest = request.latest_user_text();
            let summary = summary_path(request);
            if !has_tools {
                Reply::text("Count with a helper")
            } else if latest.contains("CHILD-JOB") && !request.user_text().contains("CODEX-LEAD") {
                Reply::text("One, two, three.").with_tokens(TEAMMATE_SPEND).held_until(gate.clone())
            } else if latest.contains("CODEX-LEAD") && !request.follows_tool_use() {
                Reply::tools([("multi_agent_v1.spawn_agent", json!({"message": "CHILD-JOB: count to three"}))])
            } else if let Some(path) =
                summary.filter(|path| request.follows_tool_use() && !workspace.join(path).exists())
            {
                let cmd = format!("mkdir -p summaries && cat > {path} <<'EOF'\n{SUMMARY}EOF\n");
                Reply::tools([("exec_command", json!({"cmd": cmd}))])
            } else {
                Reply::text("My helper is still counting.")
            }
        })
    }
}

/// A Codex lead's own sub-agent counts in its team (Codex 0.169 reports it to
/// its hooks: the spawn_agent call, SubagentStart, SubagentStop): the lead's
/// turn ends with its summary written and its sub-agent at work, and its task
/// stays open until the sub-agent stops (before, it completed at once).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_codex_lead_with_a_sub_agent_completes_only_after_it() {
    let (open, gate) = watch::channel(false);
    let rig = Rig::start(Wire::OpenAiResponses, codex_team_script(gate)).await;
    let profile = rig.codex().await;
    let task = rig.submit(&profile, "CODEX-LEAD: count with a helper").await;
    let lead = rig.session_of(&task.id).await;

    let hooks = rig.wait_for_hook(&lead, "Stop", 1).await;
    assert!(hooks.iter().any(|(name, _)| name == "SubagentStart"), "{hooks:?}");
    assert!(rig.workspace.join(format!("summaries/{}.md", task.id)).is_file());
    assert_eq!(latest_status(&rig.t.events_now().await, &lead), Some(AgentStatus::Working), "the team works");
    let held = rig.t.engine.get_task(task.id.clone()).await.unwrap();
    assert_eq!(held.state, TaskState::Running, "the lead's task stays open while its sub-agent works");

    open.send(true).unwrap();
    let done = rig.task_ends(&task.id).await;
    assert_eq!(done.state, TaskState::Completed, "{done:?}");
    let hooks = rig.hooks(&lead).await;
    assert!(hooks.iter().any(|(name, _)| name == "SubagentStop"), "{hooks:?}");
    // Codex gave its lead no new turn for it: the sub-agent's stop settled the task.
    let stops = hooks.iter().filter(|(name, _)| name == "Stop").count();
    assert_eq!(stops, 1, "{hooks:?}");
    // The sub-agent's own log counts to the lead's task as its team's.
    team_spend_counted(&rig, &task.id).await;
    rig.t.engine.stop_session(lead).await.unwrap();
}

/// The model of the Codex test: a task naming WRITE-SUMMARY is done with a
/// shell command; one naming ASK-FIRST asks a question. Codex also asks the
/// model (with no tools) for a title of each session.
fn codex_script(_workspace: PathBuf) -> impl Fn(&ModelRequest) -> Reply + Send + Sync + 'static {
    move |request| {
        let has_tools = request.body["tools"].as_array().is_some_and(|tools| !tools.is_empty());
        let latest = request.latest_user_text();
        if !has_tools {
            Reply::text("Write the summary")
        } else if request.follows_tool_use() {
            Reply::text("The summary is written.")
        } else if latest.contains("WRITE-SUMMARY")
            && let Some(path) = summary_path(request)
        {
            let cmd = format!("mkdir -p summaries && cat > {path} <<'EOF'\n{SUMMARY}EOF\n");
            Reply::tools([("exec_command", json!({"cmd": cmd}))])
        } else if latest.contains("ASK-FIRST") {
            Reply::text(CLARIFICATION)
        } else {
            Reply::text("Ready.")
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn codex_reports_through_its_hooks_and_notify_and_its_summary_completes_the_task() {
    let rig = Rig::start(Wire::OpenAiResponses, codex_script).await;
    let profile = rig.codex().await;
    // This test tells the notify of Codex's own title thread apart. With
    // Switchboard's tools offered, Codex 0.169 ran no title thread here (its
    // requests all carried the task): the tools are off for it.
    let spec = ProfileSpec { switchboard_tools: false, ..profile.spec.clone() };
    let profile = rig.t.engine.update_profile(profile.id.clone(), spec).await.unwrap();

    let task = rig.submit(&profile, "WRITE-SUMMARY: say hello").await;
    let session = rig.session_of(&task.id).await;
    let done = rig.task_ends(&task.id).await;
    assert_eq!(done.state, TaskState::Completed, "{done:?}");
    let summary = std::fs::read_to_string(rig.workspace.join(format!("summaries/{}.md", task.id))).unwrap();
    assert_eq!(summary, SUMMARY, "written by the agent's shell tool");

    // The app put its hooks in Codex's folder and itself as `notify`; both
    // report, tagged with the session.
    let hooks_file = std::fs::read_to_string(rig.home.join("codex/hooks.json")).unwrap();
    assert!(hooks_file.contains("switchboard-hook"), "{hooks_file}");
    let hooks = rig.wait_for_hook(&session, "Stop", 1).await;
    let names: Vec<&str> = hooks.iter().map(|(name, _)| name.as_str()).collect();
    for expected in ["SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop"] {
        assert!(names.contains(&expected), "no {expected} among {names:?}");
    }
    let conversation = hooks[0].1["session_id"].as_str().unwrap().to_owned();
    assert!(hooks.iter().all(|(_, payload)| payload["session_id"] == conversation.as_str()), "{hooks:?}");
    // `notify` reports the session's turn, and the turn Codex runs for
    // itself to title the session, which is told apart and not used.
    let notify_of = |logged: &[(String, Value)], side: bool| {
        logged.iter().any(|(name, payload)| {
            payload["type"] == "agent-turn-complete"
                && (payload["thread-id"] == conversation.as_str()) != side
                && name.contains("side thread") == side
        })
    };
    rig.wait_until_logged(&session, "notify of the session's turn", |logged| notify_of(logged, false)).await;
    rig.wait_until_logged(&session, "notify of the title thread", |logged| notify_of(logged, true)).await;
    rig.wait_for("the agent to be done", |events| {
        (latest_status(events, &session) == Some(AgentStatus::Done)).then_some(())
    })
    .await;
    let seen = statuses(&rig.t.events_now().await, &session);
    assert_eq!(seen, [AgentStatus::Waiting, AgentStatus::Working, AgentStatus::Done], "status went {seen:?}");

    // A question reaches the app through the Stop hook (and notify: once).
    let asking = rig.submit(&profile, "ASK-FIRST: pick a format").await;
    rig.wait_for("the agent to need the user", |events| {
        (latest_status(events, &session) == Some(AgentStatus::Attention)).then_some(())
    })
    .await;
    rig.wait_until_logged(&session, "notify of the question's turn", |logged| {
        logged
            .iter()
            .filter(|(_, p)| p["type"] == "agent-turn-complete" && p["thread-id"] == conversation.as_str())
            .count()
            >= 2
    })
    .await;
    let signals: Vec<_> = rig
        .t
        .engine
        .list_signals()
        .await
        .unwrap()
        .into_iter()
        .filter(|signal| signal.task_id.as_ref() == Some(&asking.id))
        .collect();
    assert_eq!(signals.len(), 1, "seen by the hook and by notify, raised once: {signals:?}");
    assert_eq!(signals[0].channel, SignalChannel::Hook);
    rig.t.engine.stop_session(session).await.unwrap();
}

/// Every string in a request body, wherever the CLI put it (system prompt,
/// developer message, user turn).
fn strings_in(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::String(text) => out.push(text.clone()),
        Value::Array(items) => items.iter().for_each(|item| strings_in(item, out)),
        Value::Object(fields) => fields.values().for_each(|item| strings_in(item, out)),
        _ => {}
    }
}

/// Whether the request carries `text` whole in one of its strings.
fn carries(request: &ModelRequest, text: &str) -> bool {
    let mut strings = Vec::new();
    strings_in(&request.body, &mut strings);
    strings.iter().any(|s| s.contains(text))
}

const OUTPUT: &str = "{\"format\": \"json\"}\n";

/// The model of the taught-protocol tests, following what it was taught: a
/// task naming PROTOCOL-TASK asks which format; the answer gets the file
/// written with the agent's own tool (`write`), then a completion report
/// listing it.
fn protocol_script(write: impl Fn(&Path) -> Reply + Send + Sync + 'static) -> impl FnOnce(PathBuf) -> Box<Script> {
    move |workspace| {
        Box::new(move |request: &ModelRequest| {
            let has_tools = request.body["tools"].as_array().is_some_and(|tools| !tools.is_empty());
            let latest = request.latest_user_text();
            if !has_tools {
                Reply::text("Protocol task")
            } else if request.follows_tool_use() {
                Reply::text(
                    "Done.\n\n[COMPLETION_REPORT]\nstatus: success\ndeliverables:\n  - out.json\nmetrics_achieved: \"the format the user chose\"\n[/COMPLETION_REPORT]\n",
                )
            } else if latest.contains("CLARIFICATION RESPONSE") && latest.contains("A1: JSON") {
                write(&workspace.join("out.json"))
            } else if latest.contains("PROTOCOL-TASK") {
                Reply::text(CLARIFICATION)
            } else {
                Reply::text("Ready.")
            }
        })
    }
}

/// Through a real CLI: the protocols reach the model with the task; the
/// model's clarification is a dialog; the user's answer reaches the model;
/// its completion report, deliverable checked, completes the task.
async fn taught_protocol_runs_through(rig: Rig, profile: Profile) {
    // The report completes the task (the model writes no summary).
    // The printed blocks, as an agent without Switchboard's tools is taught them.
    let spec = ProfileSpec {
        completion: switchboard_core::CompletionRule::Report,
        switchboard_tools: false,
        ..profile.spec.clone()
    };
    let profile = rig.t.engine.update_profile(profile.id.clone(), spec).await.unwrap();
    let task = rig.submit(&profile, "PROTOCOL-TASK: write the output file").await;
    let session = rig.session_of(&task.id).await;
    let asked = rig.pending_signal("the clarification", |signal| signal.task_id.as_ref() == Some(&task.id)).await;

    // The model was sent the protocols, for this agent, with the task and
    // the line pointing to them; the typed task held no marker.
    let requests = rig.model.requests();
    let first = requests.iter().find(|r| r.latest_user_text().contains("PROTOCOL-TASK")).expect("the task's request");
    assert!(carries(first, &protocol_text(Some(&session.to_string()))), "no protocol text in {:#}", first.body);
    assert!(first.latest_user_text().contains(&pointer(&session.to_string())), "{}", first.latest_user_text());
    for kind in switchboard_core::signal::SignalKind::ALL {
        assert!(!first.latest_user_text().contains(&kind.open()), "a marker was typed");
    }
    assert_eq!(std::fs::read_to_string(rig.workspace.join(PROTOCOL_FILE)).unwrap(), protocol_text(None));

    let ScanEvent::Signal { signal: read } = &asked.scan else { panic!("not read: {:?}", asked.scan) };
    assert!(matches!(&read.body, SignalBody::Clarification { questions, .. } if questions == &["JSON or YAML?"]));
    rig.t
        .engine
        .respond_to_signal(asked.id.clone(), SignalResponse::Answer { answers: vec!["JSON".into()] })
        .await
        .unwrap();

    let done = rig.task_ends(&task.id).await;
    assert_eq!(done.state, TaskState::Completed, "{done:?}");
    assert_eq!(std::fs::read_to_string(rig.workspace.join("out.json")).unwrap(), OUTPUT);
    let report = rig
        .t
        .engine
        .list_signals()
        .await
        .unwrap()
        .into_iter()
        .find(|s| s.task_id.as_ref() == Some(&task.id) && matches!(&s.scan, ScanEvent::Signal { signal } if matches!(signal.body, SignalBody::Completion { .. })))
        .expect("the completion report");
    assert_eq!(report.deliverables.len(), 1);
    assert_eq!((report.deliverables[0].path.as_str(), &report.deliverables[0].problem), ("out.json", &None));
    rig.t.engine.stop_session(session).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claude_code_taught_the_protocols_asks_and_reports_through_them() {
    let script = protocol_script(|path| {
        Reply::tools([("Write", json!({"file_path": path.display().to_string(), "content": OUTPUT}))])
    });
    let rig = Rig::start(Wire::Anthropic, script).await;
    let profile = rig.claude_code().await;
    taught_protocol_runs_through(rig, profile).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn codex_taught_the_protocols_asks_and_reports_through_them() {
    let script = protocol_script(|path| {
        let cmd = format!("cat > {} <<'EOF'\n{OUTPUT}EOF\n", path.display());
        Reply::tools([("exec_command", json!({"cmd": cmd}))])
    });
    let rig = Rig::start(Wire::OpenAiResponses, script).await;
    let profile = rig.codex().await;
    taught_protocol_runs_through(rig, profile).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_claude_code_turn_the_api_refuses_fails_its_task_through_stop_failure() {
    let script = |_workspace: PathBuf| {
        |request: &ModelRequest| {
            if request.latest_user_text().contains("FAIL-TURN") {
                Reply::failure(400, "prompt is too long")
            } else {
                Reply::text("Ready.")
            }
        }
    };
    let rig = Rig::start(Wire::Anthropic, script).await;
    let profile = rig.claude_code().await;
    let task = rig.submit(&profile, "FAIL-TURN: summarise the repository").await;
    let session = rig.session_of(&task.id).await;
    // Claude Code ends the turn with its StopFailure hook; the task fails
    // with the API's error at once (before, it ran on to its time limit).
    let done = rig.task_ends(&task.id).await;
    assert_eq!(done.state, TaskState::Failed, "{done:?}");
    let reason = done.reason.as_deref().unwrap_or_default();
    assert!(reason.contains("the agent's turn ended in an error") && reason.contains("prompt is too long"), "{reason}");
    let hooks = rig.hooks(&session).await;
    assert!(hooks.iter().any(|(name, _)| name == "StopFailure"), "{hooks:?}");
    rig.t.engine.stop_session(session).await.unwrap();
}

/// A Codex turn the API refuses (a 400 it does not retry): Codex 0.169
/// tells no hook and not `notify` (its hooks stop after UserPromptSubmit),
/// but its session log ends the turn with the error, which the app reads
/// once the agent is quiet; the task fails with Codex's reason at once
/// (before, it was flagged after 10 minutes and timed out at 30).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_codex_turn_the_api_refuses_fails_its_task_with_codexs_reason() {
    let script = |_workspace: PathBuf| {
        |request: &ModelRequest| {
            if request.latest_user_text().contains("FAIL-TURN") {
                Reply::failure(400, "The input is too long for this model.")
            } else {
                Reply::text("Ready.")
            }
        }
    };
    let rig = Rig::start(Wire::OpenAiResponses, script).await;
    let profile = rig.codex().await;
    let task = rig.submit(&profile, "FAIL-TURN: summarise the repository").await;
    let session = rig.session_of(&task.id).await;
    let done = rig.task_ends(&task.id).await;
    assert_eq!(done.state, TaskState::Failed, "{done:?}");
    assert_eq!(
        done.reason.as_deref(),
        Some("the agent's turn ended in an error: The input is too long for this model.")
    );
    // What Codex told its hooks: the turn began, and nothing after.
    let hooks = rig.hooks(&session).await;
    let names: Vec<&str> = hooks.iter().map(|(name, _)| name.as_str()).collect();
    assert_eq!(names, ["SessionStart", "UserPromptSubmit"], "{hooks:?}");
    rig.t.engine.stop_session(session).await.unwrap();
}

/// The model of the loop test: each iteration adds a line to the loop's
/// progress notes with the Write tool; the second one also writes the stop
/// word. What it knows of earlier iterations it reads from the file, as a
/// fresh conversation must.
fn loop_script(workspace: PathBuf) -> impl Fn(&ModelRequest) -> Reply + Send + Sync + 'static {
    move |request| loop_reply(&workspace, request, None)
}

/// The loop's model's answer; with `limit`, the second iteration first
/// runs into the account's usage limit, which lifts 15 s later.
fn loop_reply(workspace: &Path, request: &ModelRequest, limit: Option<&Opens>) -> Reply {
    let progress = workspace.join(switchboard_core::loops::PROGRESS_FILE);
    let before = std::fs::read_to_string(&progress).unwrap_or_default();
    if request.follows_tool_use() {
        return Reply::text(if before.contains("LOOP_COMPLETE") {
            "The parser is done."
        } else {
            "One step done; more to come."
        });
    }
    // (Asked to go on after a refusal, the iteration's prompt is in the turn.)
    if !request.user_text().contains("Loop iteration") {
        return Reply::text("Ready.");
    }
    if let Some(opens) = limit
        && !before.is_empty()
        && limited_now(opens, 15)
    {
        return Reply::limited_until(unix_now() + 600);
    }
    let content = if before.is_empty() {
        "- iteration 1: wrote the tokenizer\n".to_owned()
    } else {
        format!("{before}- iteration 2: wrote the parser; the tests pass\nLOOP_COMPLETE\n")
    };
    Reply::tools([("Write", json!({"file_path": progress.display().to_string(), "content": content}))])
}

impl Rig {
    /// Runs a loop "Write the parser" (at most 4 iterations) on the agent to
    /// its end.
    async fn loop_to_its_end(&self, profile: &Profile) -> switchboard_core::LoopInfo {
        let settings = switchboard_core::loops::LoopSettings {
            max_iterations: 4,
            ..switchboard_core::loops::LoopSettings::new("Write the parser")
        };
        let started = self.t.engine.start_loop(profile.id.clone(), settings).await.unwrap();
        let deadline = tokio::time::Instant::now() + Duration::from_secs(150);
        loop {
            let info = self.t.engine.get_loop(started.id.clone()).await.unwrap();
            if !info.is_active() {
                return info;
            }
            assert!(tokio::time::Instant::now() < deadline, "{info:#?}");
            tokio::time::sleep(Duration::from_millis(250)).await;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_claude_code_loop_runs_each_iteration_in_a_fresh_conversation_until_the_stop_word() {
    let rig = Rig::start(Wire::Anthropic, loop_script).await;
    let profile = rig.claude_code().await;
    let ended = rig.loop_to_its_end(&profile).await;
    assert!(
        matches!(
            &ended.state,
            switchboard_core::LoopState::Complete { why: switchboard_core::loops::Completion::StopWord { .. }, .. }
        ),
        "{ended:#?}"
    );
    assert_eq!(ended.iterations_run(), 2);
    // Each iteration its own session, and in it its own conversation.
    let sessions: Vec<SessionId> = ended.iterations.iter().filter_map(|i| i.session_id.clone()).collect();
    assert_eq!(sessions.len(), 2);
    let listed = rig.t.engine.list_sessions().await.unwrap();
    let conversations: Vec<String> = sessions
        .iter()
        .map(|id| listed.iter().find(|s| &s.id == id).unwrap().agent_session_id.clone().expect("a conversation id"))
        .collect();
    assert_ne!(conversations[0], conversations[1], "a new conversation, not a resumed one");
    for session in &sessions {
        let hooks = rig.hooks(session).await;
        assert!(hooks.iter().any(|(name, p)| name == "PreToolUse" && p["tool_name"] == "Write"), "{hooks:?}");
        assert!(hooks.iter().any(|(name, _)| name == "Stop"), "the iteration ended at its Stop: {hooks:?}");
    }
    // The stop reasons are the agent's last messages.
    let reasons = ended.stop_reasons();
    assert_eq!(reasons, ["One step done; more to come.", "The parser is done."]);
    // The second conversation did not carry the first: the model saw only its own prompt.
    let prompts: Vec<usize> = rig
        .model
        .requests()
        .iter()
        .filter(|r| r.latest_user_text().contains("Loop iteration"))
        .map(|r| r.user_text().matches("Loop iteration").count())
        .collect();
    assert!(prompts.iter().all(|&n| n == 1), "each request holds one iteration prompt: {prompts:?}");
    let progress = std::fs::read_to_string(rig.workspace.join(switchboard_core::loops::PROGRESS_FILE)).unwrap();
    assert!(progress.ends_with("LOOP_COMPLETE\n"), "{progress}");
}

/// The real CLIs installed by `scripts/agents.sh`, found on a `PATH` that
/// holds them, with the versions their own `--version` prints.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_installed_clis_are_found_with_their_versions() {
    let claude = PathBuf::from(installed("SWITCHBOARD_CLAUDE_CODE"));
    let codex = PathBuf::from(installed("SWITCHBOARD_CODEX"));
    let dirs = [claude.parent().unwrap(), codex.parent().unwrap()];
    let path = std::env::join_paths(dirs).unwrap();
    let t = TestEngine::start_with(|config| config.search_path = Some(path)).await;
    let agents = t.engine.detected_agents().await.unwrap();
    let found: Vec<_> = agents.iter().map(|a| (a.preset.kind, a.found.clone())).collect();
    assert_eq!(
        found,
        [
            (
                AgentKind::ClaudeCode,
                switchboard_core::CliFound::Installed {
                    path: claude.display().to_string(),
                    version: Some("2.1.329".into())
                }
            ),
            (
                AgentKind::Codex,
                switchboard_core::CliFound::Installed {
                    path: codex.display().to_string(),
                    version: Some("0.169.0".into())
                }
            ),
        ]
    );
}

/// `git -C dir args…`, its output; the test fails when git does.
fn git_in(dir: &Path, args: &[&str]) -> String {
    let out = std::process::Command::new("git").arg("-C").arg(dir).args(args).output().unwrap();
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).trim_end().to_owned()
}

impl Rig {
    /// The workspace made a git repository on `main` holding `greeting.txt`,
    /// and `profile` set to work there apart, each task in a worktree.
    async fn apart(&self, profile: Profile) -> Profile {
        git_in(&self.workspace, &["init", "--quiet", "-b", "main"]);
        git_in(&self.workspace, &["config", "user.email", "dev@example.com"]);
        git_in(&self.workspace, &["config", "user.name", "Dev"]);
        std::fs::write(self.workspace.join("greeting.txt"), "hello\n").unwrap();
        git_in(&self.workspace, &["add", "-A"]);
        git_in(&self.workspace, &["commit", "--quiet", "-m", "start"]);
        let spec = ProfileSpec { isolation: switchboard_core::Isolation::Worktree, ..profile.spec };
        self.t.engine.update_profile(profile.id, spec).await.unwrap()
    }
}

/// The folder Claude Code says it works in (its system prompt names it).
fn working_directory(request: &ModelRequest) -> Option<String> {
    let body = request.body.to_string();
    let pattern = Regex::new(r"[Ww]orking directory: (/[^\s\\]+)").unwrap();
    pattern.captures(&body).map(|c| c[1].to_owned())
}

/// The model of the worktree test: a task naming EDIT-GREETING rewrites
/// `greeting.txt` and writes the summary, both in the folder Claude Code
/// works in.
fn editor_script(_workspace: PathBuf) -> impl Fn(&ModelRequest) -> Reply + Send + Sync + 'static {
    move |request| {
        if request.follows_tool_use() {
            return Reply::text("The greeting is changed.");
        }

        match (request.latest_user_text().contains("EDIT-GREETING"), working_directory(request), summary_path(request))
        {
            (true, Some(folder), Some(summary)) => Reply::tools([
                (
                    "Write",
                    json!({"file_path": format!("{folder}/greeting.txt"), "content": "hello from the worktree\n"}),
                ),
                ("Write", json!({"file_path": format!("{folder}/{summary}"), "content": SUMMARY})),
            ]),
            _ => Reply::text("Ready."),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claude_code_working_apart_edits_its_worktree_and_the_users_checkout_changes_only_at_merge() {
    let rig = Rig::start(Wire::Anthropic, editor_script).await;
    let git = |args: &[&str]| git_in(&rig.workspace, args);
    let profile = rig.apart(rig.claude_code().await).await;

    let task = rig.submit(&profile, "EDIT-GREETING: greet from the worktree").await;
    let done = rig.task_ends(&task.id).await;
    assert_eq!(done.state, TaskState::Completed, "{done:?}");
    let worktree = rig.t.engine.list_worktrees().await.unwrap().pop().expect("its worktree");
    let diff = rig.t.engine.worktree_diff(task.id.to_string()).await.unwrap();
    let changed: Vec<&str> = diff.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(changed, ["greeting.txt"], "the agent's edit, and nothing of the app's: {diff:#?}");
    let switchboard_core::DiffContent::Text { after, .. } = &diff.files[0].content else { panic!("{diff:#?}") };
    assert_eq!(after, "hello from the worktree\n");
    // The user's checkout is as it was until the merge.
    assert_eq!(std::fs::read_to_string(rig.workspace.join("greeting.txt")).unwrap(), "hello\n");
    assert_eq!(git(&["status", "--porcelain"]), "");
    let merged = rig.t.engine.merge_worktree(worktree.task.clone()).await.unwrap();
    assert!(matches!(merged, switchboard_core::MergeOutcome::Merged { .. }), "{merged:?}");
    assert_eq!(std::fs::read_to_string(rig.workspace.join("greeting.txt")).unwrap(), "hello from the worktree\n");
    assert_eq!(git(&["log", "--format=%s", "-1"]), "EDIT-GREETING: greet from the worktree");
}

/// The model of the review test: as `editor_script`, and a review's
/// comments (typed after the session ended) rewrite the greeting again,
/// the summary written where the latest task names it.
fn reviewer_script(_workspace: PathBuf) -> impl Fn(&ModelRequest) -> Reply + Send + Sync + 'static {
    move |request| {
        if request.follows_tool_use() {
            return Reply::text("Done.");
        }
        let latest = request.latest_user_text();
        let greeting = if latest.contains("reviewed your changes") {
            "HELLO FROM THE WORKTREE\n"
        } else if latest.contains("EDIT-GREETING") {
            "hello from the worktree\n"
        } else {
            return Reply::text("Ready.");
        };
        match (working_directory(request), last_summary_path(request)) {
            (Some(folder), Some(summary)) => Reply::tools([
                ("Write", json!({"file_path": format!("{folder}/greeting.txt"), "content": greeting})),
                ("Write", json!({"file_path": format!("{folder}/{summary}"), "content": SUMMARY})),
            ]),
            _ => Reply::text("Ready."),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_comment_on_claude_codes_worktree_resumes_the_conversation_that_did_the_work() {
    let rig = Rig::start(Wire::Anthropic, reviewer_script).await;
    let profile = rig.apart(rig.claude_code().await).await;
    let task = rig.submit(&profile, "EDIT-GREETING: greet from the worktree").await;
    let done = rig.task_ends(&task.id).await;
    assert_eq!(done.state, TaskState::Completed, "{done:?}");
    let first = done.session_id.as_ref().expect("it ran in a session").clone();

    // Its session ends a short grace after its task.
    let ended = rig.session_ended(&first).await;
    let conversation = ended.agent_session_id.clone().expect("the app named its conversation");

    // A comment starts Claude Code again, resuming that conversation: the
    // model is asked with the first task's words still in it.
    let comments =
        vec![switchboard_core::ReviewComment { path: "greeting.txt".into(), line: 1, text: "Say it louder".into() }];
    let review = rig.t.engine.review_worktree(task.id.to_string(), comments).await.unwrap().task;
    let reviewed = rig.task_ends(&review.id).await;
    assert_eq!(reviewed.state, TaskState::Completed, "{reviewed:?}");
    let resumed = reviewed.session_id.as_ref().expect("it ran in a session");
    assert_ne!(resumed, &first, "a new session");
    let sessions = rig.t.engine.list_sessions().await.unwrap();
    let resumed = sessions.iter().find(|s| &s.id == resumed).unwrap();
    assert_eq!(resumed.agent_session_id.as_deref(), Some(conversation.as_str()));
    let asked = rig.model.requests();
    let review_request = asked
        .iter()
        .find(|r| r.latest_user_text().contains("reviewed your changes"))
        .expect("the model was asked the review");
    assert!(carries(review_request, "EDIT-GREETING: greet from the worktree"), "the conversation was not carried on");
    let worktree = rig.t.engine.list_worktrees().await.unwrap().pop().expect("its worktree");
    assert_eq!(
        std::fs::read_to_string(Path::new(&worktree.path).join("greeting.txt")).unwrap(),
        "HELLO FROM THE WORKTREE\n"
    );
}

/// The model of the Codex worktree test: a task naming EDIT-GREETING
/// rewrites `greeting.txt` and writes the summary with a shell command, in
/// the folder Codex works in.
fn codex_editor_script(_workspace: PathBuf) -> impl Fn(&ModelRequest) -> Reply + Send + Sync + 'static {
    move |request| {
        let has_tools = request.body["tools"].as_array().is_some_and(|tools| !tools.is_empty());
        if !has_tools {
            return Reply::text("Edit the greeting");
        }
        if request.follows_tool_use() {
            return Reply::text("The greeting is changed.");
        }
        match (request.latest_user_text().contains("EDIT-GREETING"), summary_path(request)) {
            (true, Some(summary)) => {
                let cmd = format!(
                    "printf 'hello from codex\\n' > greeting.txt && mkdir -p summaries && cat > {summary} <<'EOF'\n{SUMMARY}EOF\n"
                );
                Reply::tools([("exec_command", json!({"cmd": cmd}))])
            }
            _ => Reply::text("Ready."),
        }
    }
}

/// The model of the Codex review test: as `codex_editor_script`, and a
/// review's comments rewrite the greeting again, the summary written where
/// the latest task names it.
fn codex_reviewer_script(_workspace: PathBuf) -> impl Fn(&ModelRequest) -> Reply + Send + Sync + 'static {
    move |request| {
        let has_tools = request.body["tools"].as_array().is_some_and(|tools| !tools.is_empty());
        if !has_tools {
            return Reply::text("Edit the greeting");
        }
        if request.follows_tool_use() {
            return Reply::text("Done.");
        }
        let latest = request.latest_user_text();
        let greeting = if latest.contains("reviewed your changes") {
            "HELLO FROM CODEX"
        } else if latest.contains("EDIT-GREETING") {
            "hello from codex"
        } else {
            return Reply::text("Ready.");
        };
        match last_summary_path(request) {
            Some(summary) => {
                let cmd = format!(
                    "printf '{greeting}\\n' > greeting.txt && mkdir -p summaries && cat > {summary} <<'EOF'\n{SUMMARY}EOF\n"
                );
                Reply::tools([("exec_command", json!({"cmd": cmd}))])
            }
            None => Reply::text("Ready."),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_comment_on_codexs_worktree_resumes_the_thread_that_did_the_work() {
    let rig = Rig::start(Wire::OpenAiResponses, codex_reviewer_script).await;
    let profile = rig.apart(rig.codex().await).await;
    let task = rig.submit(&profile, "EDIT-GREETING: greet from the worktree").await;
    let done = rig.task_ends(&task.id).await;
    assert_eq!(done.state, TaskState::Completed, "{done:?}");
    let first = done.session_id.as_ref().expect("it ran in a session").clone();
    let ended = rig.session_ended(&first).await;
    // Codex named its thread itself; its hooks told it, and it was kept.
    let thread = ended.agent_session_id.clone().expect("the thread its hooks told is kept");

    let comments =
        vec![switchboard_core::ReviewComment { path: "greeting.txt".into(), line: 1, text: "Say it louder".into() }];
    let review = rig.t.engine.review_worktree(task.id.to_string(), comments).await.unwrap().task;
    let reviewed = rig.task_ends(&review.id).await;
    assert_eq!(reviewed.state, TaskState::Completed, "{reviewed:?}");
    let resumed = reviewed.session_id.as_ref().expect("it ran in a session");
    assert_ne!(resumed, &first, "a new session");
    let sessions = rig.t.engine.list_sessions().await.unwrap();
    let resumed = sessions.iter().find(|s| &s.id == resumed).unwrap();
    assert_eq!(resumed.agent_session_id.as_deref(), Some(thread.as_str()));
    let asked = rig.model.requests();
    let review_request = asked
        .iter()
        .find(|r| r.latest_user_text().contains("reviewed your changes"))
        .expect("the model was asked the review");
    assert!(carries(review_request, "EDIT-GREETING: greet from the worktree"), "the thread was not carried on");
    let worktree = rig.t.engine.list_worktrees().await.unwrap().pop().expect("its worktree");
    assert_eq!(std::fs::read_to_string(Path::new(&worktree.path).join("greeting.txt")).unwrap(), "HELLO FROM CODEX\n");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn codex_working_apart_edits_its_worktree_without_asking_to_trust_it() {
    let rig = Rig::start(Wire::OpenAiResponses, codex_editor_script).await;
    let profile = rig.apart(rig.codex().await).await;

    let task = rig.submit(&profile, "EDIT-GREETING: greet from the worktree").await;
    let done = rig.task_ends(&task.id).await;
    assert_eq!(done.state, TaskState::Completed, "{done:?}");
    let diff = rig.t.engine.worktree_diff(task.id.to_string()).await.unwrap();
    let changed: Vec<&str> = diff.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(changed, ["greeting.txt"], "{diff:#?}");
    assert_eq!(std::fs::read_to_string(rig.workspace.join("greeting.txt")).unwrap(), "hello\n");
}

fn unix_now() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs()
}

impl Rig {
    /// With `SWITCHBOARD_RECORD` set, keeps `text` as the fixture `name`
    /// (`tests/fixtures/agents/`), the run's folders written `$RA`.
    fn record(&self, name: &str, text: &str) {
        if std::env::var_os("SWITCHBOARD_RECORD").is_none() {
            return;
        }
        let root = self.t.data_dir.canonicalize().unwrap().display().to_string();
        let text = text.replace(&root, "$RA").replace(&self.t.data_dir.display().to_string(), "$RA");
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/agents").join(name);
        std::fs::write(path, text).unwrap();
    }
}

/// Claude Code 2.1.329 on an API key at its usage limit (the API answers
/// 429 with `retry-after` and the unified rate-limit headers `rejected`
/// until a reset ten minutes ahead): it does not retry, ends the turn
/// through StopFailure with `error: "rate_limit"` and the API's words, no
/// reset time anywhere it tells (hooks, statusLine, screen); its screen
/// says to resend the message. The facts issue 26 builds on, recorded as
/// `cc-*-usage-limit*` fixtures.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claude_code_at_its_usage_limit_ends_its_turn_through_stop_failure_saying_rate_limit() {
    let reset = unix_now() + 600;
    let script = move |_workspace: PathBuf| {
        move |request: &ModelRequest| {
            if request.latest_user_text().contains("HIT-LIMIT") {
                Reply::limited_until(reset)
            } else {
                Reply::text("Ready.")
            }
        }
    };
    let rig = Rig::start(Wire::Anthropic, script).await;
    // What its statusLine command is given, kept.
    std::fs::create_dir_all(rig.home.join(".claude")).unwrap();
    let status = rig.home.join("statusline.jsonl");
    let command = format!("cat >> {0}; echo >> {0}; echo status", status.display());
    let settings = json!({"statusLine": {"type": "command", "command": command}});
    std::fs::write(rig.home.join(".claude/settings.json"), settings.to_string()).unwrap();
    let profile = rig.claude_code().await;
    let task = rig.submit(&profile, "HIT-LIMIT: summarise the repository").await;
    let session = rig.session_of(&task.id).await;
    let hooks = rig.wait_for_hook(&session, "StopFailure", 1).await;
    let (_, failure) = hooks.iter().find(|(name, _)| name == "StopFailure").unwrap();
    assert_eq!(failure["error"], "rate_limit", "{failure}");
    let said = failure["last_assistant_message"].as_str().unwrap_or_default();
    assert!(said.starts_with("API Error: Request rejected (429)"), "{said}");
    let asked = rig.model.requests().iter().filter(|r| r.latest_user_text().contains("HIT-LIMIT")).count();
    assert_eq!(asked, 1, "not retried with the reset minutes ahead");
    let deadline = tokio::time::Instant::now() + REAL_DEADLINE;
    let screen = loop {
        let snap = rig.t.engine.screen_snapshot(session.clone(), 0).await.unwrap();
        if snap.screen.contains("Resend your message to try again") {
            break snap.screen;
        }
        assert!(tokio::time::Instant::now() < deadline, "{}", snap.screen);
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let statusline = std::fs::read_to_string(&status).unwrap_or_default();
    assert!(statusline.contains("\"version\":\"2.1.329\""), "{statusline}");
    assert!(!statusline.contains("rate_limits"), "an API key's statusLine has no rate limits: {statusline}");
    let lines: Vec<String> = hooks.iter().map(|(_, payload)| payload.to_string()).collect();
    rig.record("cc-hooks-usage-limit.jsonl", &(lines.join("\n") + "\n"));
    rig.record("cc-pty-screen-usage-limit.txt", &screen);
    rig.record("cc-statusline-api-key.jsonl", &statusline);
    rig.t.engine.stop_session(session).await.unwrap();
}

/// Codex 0.169.0 at its usage limit (the API answers 429 with a
/// `usage_limit_reached` error and `resets_at`): its hooks stop after
/// UserPromptSubmit, its session log ends the turn with
/// `codex_error_info: "usage_limit_exceeded"` and a message that names the
/// reset as a local time ("try again at 1:06 AM"), and its screen shows the
/// same words. When the 429 tells the account's usage (Codex's
/// `x-codex-primary-…` headers), the log keeps it with the refusal, and the
/// app shows it with the limit, whose reset it names to the second.
/// Recorded as `codex-*-usage-limit*` fixtures.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn codex_at_its_usage_limit_ends_its_turn_saying_when_to_try_again() {
    let reset = unix_now() + 600;
    let usage = switchboard_tests::fake_model::Usage { five_hours: (100.0, reset), week: (61.0, reset + 86_400) };
    let script = move |_workspace: PathBuf| {
        move |request: &ModelRequest| {
            let has_tools = request.body["tools"].as_array().is_some_and(|tools| !tools.is_empty());
            if has_tools && request.latest_user_text().contains("HIT-LIMIT") {
                Reply::limited_until(reset).with_usage(usage)
            } else {
                Reply::text("Ready.")
            }
        }
    };
    let rig = Rig::start(Wire::OpenAiResponses, script).await;
    let profile = rig.codex().await;
    let task = rig.submit(&profile, "HIT-LIMIT: summarise the repository").await;
    let session = rig.session_of(&task.id).await;
    let deadline = tokio::time::Instant::now() + REAL_DEADLINE;
    let screen = loop {
        let snap = rig.t.engine.screen_snapshot(session.clone(), 0).await.unwrap();
        if snap.screen.contains("hit your usage limit") && snap.screen.contains("try again at") {
            break snap.screen;
        }
        assert!(tokio::time::Instant::now() < deadline, "{}", snap.screen);
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let hooks = rig.hooks(&session).await;
    let names: Vec<&str> = hooks.iter().map(|(name, _)| name.as_str()).collect();
    assert_eq!(names, ["SessionStart", "UserPromptSubmit"], "no hook tells of the limit");
    let log = hooks[0].1["transcript_path"].as_str().unwrap().to_owned();
    let rollout = std::fs::read_to_string(&log).unwrap();
    let events: Vec<Value> = rollout.lines().filter_map(|l| serde_json::from_str(l).ok()).collect();
    let ended = events
        .iter()
        .find(|e| e["payload"]["type"] == "task_complete")
        .unwrap_or_else(|| panic!("no task_complete in {rollout}"));
    assert_eq!(ended["payload"]["error"]["codex_error_info"], "usage_limit_exceeded");
    let message = ended["payload"]["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("hit your usage limit") && message.contains("try again at"), "{message}");
    let kept: Vec<String> = events
        .iter()
        .filter(|e| matches!(e["payload"]["type"].as_str(), Some("task_started" | "token_count" | "task_complete")))
        .map(Value::to_string)
        .collect();
    let lines: Vec<String> = hooks.iter().map(|(_, payload)| payload.to_string()).collect();
    rig.record("codex-hooks-usage-limit.jsonl", &(lines.join("\n") + "\n"));
    rig.record("codex-pty-screen-usage-limit.txt", &screen);
    rig.record("codex-rollout-usage-limit.jsonl", &(kept.join("\n") + "\n"));
    // The app's limit: the reset of the used-up window, and both windows.
    let limit = rig
        .wait_for("the account's limit", |events| {
            events.iter().find_map(|e| match e {
                EngineEvent::LimitChanged { limit } => Some(limit.clone()),
                _ => None,
            })
        })
        .await;
    assert_eq!(limit.until, Some(i64::try_from(reset).unwrap() * 1000), "{limit:?}");
    let usage = rig.t.engine.list_usage().await.unwrap();
    assert_eq!(usage.len(), 1, "{usage:?}");
    let windows: Vec<(u32, u8)> = usage[0].windows.iter().map(|w| (w.minutes, w.used_percent)).collect();
    assert_eq!(windows, [(300, 100), (10080, 61)]);
    let (_, listed, _) = cli_async(&rig.t, &["agent", "list", "--json"]).await;
    let listed: Vec<Value> = serde_json::from_str(&listed).unwrap();
    assert_eq!(listed[0]["usage"][1]["used_percent"], 61, "{listed:?}");
    rig.t.engine.stop_session(session).await.unwrap();
}

/// The last summary file the conversation was told to write (a session that
/// took several tasks was told several).
fn last_summary_path(request: &ModelRequest) -> Option<String> {
    let pattern = Regex::new(r"summaries/[0-9a-f-]{36}\.md").unwrap();
    pattern.find_iter(&request.user_text()).last().map(|m| m.as_str().to_owned())
}

/// When an account's limit lifts in a usage-limit test: unset (0) until the
/// model first refuses, then a moment ahead.
type Opens = std::sync::Arc<std::sync::atomic::AtomicU64>;

/// Whether the model refuses now: the first time it is asked, it starts
/// refusing for `lasts` seconds.
fn limited_now(opens: &Opens, lasts: u64) -> bool {
    use std::sync::atomic::Ordering;
    let now = unix_now();
    let _ = opens.compare_exchange(0, now + lasts, Ordering::SeqCst, Ordering::SeqCst);
    now < opens.load(Ordering::SeqCst)
}

impl Rig {
    /// The task as it is once `done` holds, read again until `within` passes
    /// (a usage limit's wait outlasts the events' own deadline).
    async fn task_until(&self, id: &TaskId, within: Duration, done: impl Fn(&TaskRecord) -> bool) -> TaskRecord {
        let deadline = tokio::time::Instant::now() + within;
        loop {
            let task = self.t.engine.get_task(id.clone()).await.unwrap();
            if done(&task) {
                return task;
            }
            if tokio::time::Instant::now() >= deadline {
                let screen = match task.session_id.as_ref() {
                    Some(session) => self.t.engine.screen_snapshot(session.clone(), 40).await.map(|s| s.screen),
                    None => Ok(String::new()),
                };
                panic!("gave up waiting: {task:#?}\nits agent's screen:\n{}", screen.unwrap_or_default());
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }

    /// Usage limits tried again quickly: no margin after a reset, `retry`
    /// seconds before the first try of an unknown one.
    async fn quick_limits(&self, retry: u32) {
        let settings = switchboard_core::Settings {
            limit_margin_secs: 0,
            limit_retry_secs: retry,
            ..self.t.engine.get_settings().await.unwrap()
        };
        self.t.engine.set_settings(settings).await.unwrap();
    }
}

/// A task of the agent's that ran into its usage limit (its second turn)
/// waits rather than fails, nothing else is typed into the agent while it
/// waits, and once the limit has lifted it completes; the next task runs
/// after it. What the model saw says what was typed.
async fn a_task_waits_out_the_limit(rig: &Rig, profile: Profile, opens: Opens) {
    let first = rig.submit(&profile, "WRITE-SUMMARY: the first part").await;
    assert_eq!(rig.task_ends(&first.id).await.state, TaskState::Completed);
    let limited = rig.submit(&profile, "LIMITED-PART WRITE-SUMMARY: the second part").await;
    let waiting = rig
        .task_until(&limited.id, REAL_DEADLINE, |task| {
            matches!(task.waiting_for, Some(switchboard_core::WaitingFor::UsageLimit { .. }))
        })
        .await;
    assert_eq!(waiting.state, TaskState::Running);
    let limits = rig.t.engine.list_limits().await.unwrap();
    assert_eq!(limits.len(), 1, "{limits:?}");
    // Queued meanwhile: held in its queue, saying why.
    let after = rig.submit(&profile, "WRITE-SUMMARY: QUEUED-AFTER the limit").await;
    let held = rig
        .task_until(&after.id, REAL_DEADLINE, |task| {
            matches!(task.waiting_for, Some(switchboard_core::WaitingFor::UsageLimit { .. }))
        })
        .await;
    assert_eq!(held.state, TaskState::Queued);
    let ended = rig.task_until(&limited.id, Duration::from_secs(150), |task| task.state.is_finished()).await;
    assert_eq!(ended.state, TaskState::Completed, "{ended:#?}");
    let next = rig.task_until(&after.id, Duration::from_secs(90), |task| task.state.is_finished()).await;
    assert_eq!(next.state, TaskState::Completed, "{next:#?}");
    // The limit is over; the model saw the queued task only once it had lifted.
    assert!(rig.t.engine.list_limits().await.unwrap().is_empty());
    let lifted_at = opens.load(std::sync::atomic::Ordering::SeqCst);
    let requests = rig.model.requests();
    let early: Vec<&ModelRequest> =
        requests.iter().filter(|r| r.latest_user_text().contains("QUEUED-AFTER") && r.at < lifted_at).collect();
    assert!(early.is_empty(), "typed while the account was limited");
    // Asked to go on (Claude Code adds it to the refused turn's message).
    let continues = requests.iter().filter(|r| r.latest_user_text().trim_end().ends_with("continue")).count();
    assert!(continues >= 1, "the refused turn was asked to go on");
    let timeline = rig.t.engine.task_timeline(limited.id.clone()).await.unwrap();
    assert!(timeline.iter().any(|e| matches!(e.kind, LogKind::TaskRefused { .. })), "{timeline:#?}");
}

/// Claude Code on an API key says no reset time: the app tries again after
/// its first retry, is refused once more (the reset it guessed passed), and
/// goes on after the doubled wait, once the model takes work again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claude_code_at_its_usage_limit_waits_and_its_task_completes_once_the_limit_lifts() {
    let opens = Opens::default();
    let lifts = opens.clone();
    let script = move |workspace: PathBuf| {
        move |request: &ModelRequest| {
            let all = request.user_text();
            if request.follows_tool_use() {
                return Reply::text("The summary is written.");
            }
            // It says ten minutes (Claude Code would wait out a short one
            // itself), but lifts 20 s after it began.
            if all.contains("LIMITED-PART") && limited_now(&lifts, 20) {
                return Reply::limited_until(unix_now() + 600);
            }
            match last_summary_path(request) {
                Some(path) if all.contains("WRITE-SUMMARY") => {
                    let file_path = workspace.join(path).display().to_string();
                    Reply::tools([("Write", json!({"file_path": file_path, "content": SUMMARY}))])
                }
                _ => Reply::text("Ready."),
            }
        }
    };
    let rig = Rig::start(Wire::Anthropic, script).await;
    rig.quick_limits(8).await;
    let profile = rig.claude_code().await;
    a_task_waits_out_the_limit(&rig, profile, opens).await;
}

/// Codex says when its limit resets, in words and in its log with the
/// account's usage; told the usage, it also offers a cheaper model in a
/// dialog of its own, which the app closes without a choice before it asks
/// Codex to go on. The app waits until the reset and the task completes on
/// the model it had.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn codex_at_its_usage_limit_waits_until_the_time_it_names_and_its_task_completes() {
    let opens = Opens::default();
    let lifts = opens.clone();
    let script = move |_workspace: PathBuf| {
        move |request: &ModelRequest| {
            let has_tools = request.body["tools"].as_array().is_some_and(|tools| !tools.is_empty());
            let all = request.user_text();
            if !has_tools {
                return Reply::text("Write the summary");
            }
            if request.follows_tool_use() {
                return Reply::text("The summary is written.");
            }
            if all.contains("LIMITED-PART") && limited_now(&lifts, 20) {
                let reset = lifts.load(std::sync::atomic::Ordering::SeqCst);
                let usage =
                    switchboard_tests::fake_model::Usage { five_hours: (100.0, reset), week: (61.0, reset + 86_400) };
                return Reply::limited_until(reset).with_usage(usage);
            }
            match last_summary_path(request) {
                Some(path) if all.contains("WRITE-SUMMARY") => {
                    let cmd = format!("mkdir -p summaries && cat > {path} <<'EOF'\n{SUMMARY}EOF\n");
                    Reply::tools([("exec_command", json!({"cmd": cmd}))])
                }
                _ => Reply::text("Ready."),
            }
        }
    };
    let lifts_at = opens.clone();
    let rig = Rig::start(Wire::OpenAiResponses, script).await;
    rig.quick_limits(600).await;
    let profile = rig.codex().await;
    let watching = rig.t.events.clone();
    a_task_waits_out_the_limit(&rig, profile, opens).await;
    let models: std::collections::BTreeSet<String> =
        rig.model.requests().iter().filter_map(|r| r.body["model"].as_str().map(str::to_owned)).collect();
    assert_eq!(models.into_iter().collect::<Vec<_>>(), ["gpt-fake"], "no other model was chosen");
    // It waited for the reset Codex logged with the account's usage (its
    // used-up window's), not for a guess.
    let named = watching.snapshot().iter().find_map(|e| match e {
        EngineEvent::LimitChanged { limit } => limit.until,
        _ => None,
    });
    let lifted = i64::try_from(lifts_at.load(std::sync::atomic::Ordering::SeqCst)).unwrap() * 1000;
    assert_eq!(named, Some(lifted));
}

/// A limit Claude Code waits out by itself (a reset seconds ahead, which it
/// retries) is no limit to the app: nothing waits, nothing is typed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_throttle_claude_code_retries_by_itself_changes_nothing() {
    let opens = Opens::default();
    let script = move |workspace: PathBuf| {
        move |request: &ModelRequest| {
            if request.follows_tool_use() {
                return Reply::text("The summary is written.");
            }
            if limited_now(&opens, 4) {
                return Reply::limited_until(opens.load(std::sync::atomic::Ordering::SeqCst));
            }
            match last_summary_path(request) {
                Some(path) => {
                    let file_path = workspace.join(path).display().to_string();
                    Reply::tools([("Write", json!({"file_path": file_path, "content": SUMMARY}))])
                }
                None => Reply::text("Ready."),
            }
        }
    };
    let rig = Rig::start(Wire::Anthropic, script).await;
    let profile = rig.claude_code().await;
    let task = rig.submit(&profile, "Write the summary").await;
    let ended = rig.task_until(&task.id, Duration::from_secs(90), |task| task.state.is_finished()).await;
    assert_eq!(ended.state, TaskState::Completed, "{ended:#?}");
    let limited = rig.t.events_now().await.iter().any(|e| matches!(e, EngineEvent::LimitChanged { .. }));
    assert!(!limited, "a throttle the CLI retried is no limit");
    let typed = rig.model.requests().iter().any(|r| r.latest_user_text().trim_end().ends_with("continue"));
    assert!(!typed, "nothing typed");
}

/// A Claude Code loop whose second iteration runs into the usage limit:
/// the refusal is not a stop reason and not an iteration; the loop goes on
/// once the limit lifts and ends at its stop word after two iterations.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_claude_code_loop_across_a_usage_limit_completes_without_counting_the_refusal() {
    let opens = Opens::default();
    let lifts = opens.clone();
    let script = move |workspace: PathBuf| move |request: &ModelRequest| loop_reply(&workspace, request, Some(&lifts));
    let rig = Rig::start(Wire::Anthropic, script).await;
    rig.quick_limits(5).await;
    let profile = rig.claude_code().await;
    let ended = rig.loop_to_its_end(&profile).await;
    assert!(
        matches!(
            &ended.state,
            switchboard_core::LoopState::Complete { why: switchboard_core::loops::Completion::StopWord { .. }, .. }
        ),
        "{ended:#?}"
    );
    assert_eq!(ended.iterations_run(), 2);
    assert_eq!(ended.stop_reasons(), ["One step done; more to come.", "The parser is done."]);
    assert!(opens.load(std::sync::atomic::Ordering::SeqCst) > 0, "the limit was met");
}

/// An account's usage as the model's API tells it with each answer: 42 % of
/// its five hours, 17 % of its week.
fn usage() -> switchboard_tests::fake_model::Usage {
    let now = unix_now();
    switchboard_tests::fake_model::Usage { five_hours: (42.0, now + 3 * 3600), week: (17.0, now + 4 * 86_400) }
}

/// The app's status line in Claude Code's workspace settings: Claude Code
/// runs it, it runs the user's own status line (in their own settings) with
/// the same input, and the user's line shows on the agent's screen as
/// before. What the status line is given when the API tells the account's
/// usage (the unified 5-hour and weekly headers) on an API key: no
/// `rate_limits`, so no usage reaches the app. Recorded as
/// `cc-statusline-usage.jsonl`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claude_code_shows_the_users_own_status_line_through_the_apps_and_an_api_key_tells_no_usage() {
    let script = |workspace: PathBuf| {
        let write = writer_script(workspace);
        move |request: &ModelRequest| write(request).with_usage(usage())
    };
    let rig = Rig::start(Wire::Anthropic, script).await;
    std::fs::create_dir_all(rig.home.join(".claude")).unwrap();
    let status = rig.home.join("statusline.jsonl");
    let command = format!("cat >> {0}; echo >> {0}; echo my-own-status-line", status.display());
    let settings = json!({"statusLine": {"type": "command", "command": command}});
    std::fs::write(rig.home.join(".claude/settings.json"), settings.to_string()).unwrap();
    let profile = rig.claude_code().await;
    let task = rig.submit(&profile, "WRITE-SUMMARY: the usage").await;
    let session = rig.session_of(&task.id).await;
    assert_eq!(rig.task_ends(&task.id).await.state, TaskState::Completed);
    let local = std::fs::read_to_string(rig.workspace.join(".claude/settings.local.json")).unwrap();
    let local: Value = serde_json::from_str(&local).unwrap();
    let ours = local["statusLine"]["command"].as_str().unwrap_or_default();
    assert!(ours.ends_with("switchboard-hook --status-line"), "{local}");
    let deadline = tokio::time::Instant::now() + REAL_DEADLINE;
    loop {
        let snap = rig.t.engine.screen_snapshot(session.clone(), 0).await.unwrap();
        if snap.screen.contains("my-own-status-line") {
            break;
        }
        assert!(tokio::time::Instant::now() < deadline, "the user's status line is not shown: {}", snap.screen);
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let statusline = std::fs::read_to_string(&status).unwrap_or_default();
    assert!(statusline.contains("\"version\":\"2.1.329\""), "{statusline}");
    assert!(!statusline.contains("rate_limits"), "{statusline}");
    assert!(rig.t.engine.list_usage().await.unwrap().is_empty(), "an API key's account tells no usage");
    rig.record("cc-statusline-usage.jsonl", &statusline);
    rig.t.engine.stop_session(session).await.unwrap();
}

/// Every tool a request offers the model, by the name it is to call it
/// with: `namespace.tool` for a tool of a namespace (as Codex groups some).
fn offered_tools(request: &ModelRequest) -> Vec<String> {
    fn names(items: &Value, prefix: Option<&str>, out: &mut Vec<String>) {
        for item in items.as_array().into_iter().flatten() {
            let name = item["name"].as_str().unwrap_or_default();
            if let Some(inner) = item.get("tools") {
                names(inner, Some(name), out);
            } else if !name.is_empty() {
                out.push(prefix.map_or_else(|| name.to_owned(), |space| format!("{space}.{name}")));
            }
        }
    }
    let mut out = Vec::new();
    names(&request.body["tools"], None, &mut out);
    out
}

/// The name under which the request offers `server`'s `tool` (the two CLIs
/// name MCP tools each its own way).
fn offered(request: &ModelRequest, server: &str, tool: &str) -> Option<String> {
    offered_tools(request).into_iter().find(|name| name.contains(server) && name.ends_with(tool))
}

/// The name of the last tool the model called in the conversation so far.
fn last_call(request: &ModelRequest) -> Option<String> {
    if let Some(messages) = request.body.get("messages").and_then(Value::as_array) {
        return messages.iter().rev().filter(|m| m["role"] == "assistant").find_map(|m| {
            m["content"].as_array()?.iter().rev().find(|b| b["type"] == "tool_use")?["name"].as_str().map(str::to_owned)
        });
    }
    let input = request.body.get("input").and_then(Value::as_array)?;
    input.iter().rev().find(|item| item["type"] == "function_call").and_then(|item| {
        let name = item["name"].as_str()?;
        Some(item["namespace"].as_str().map_or_else(|| name.to_owned(), |space| format!("{space}.{name}")))
    })
}

/// The text of the latest tool result the request carries.
fn last_tool_result(request: &ModelRequest) -> String {
    let mut strings = Vec::new();
    if let Some(messages) = request.body.get("messages").and_then(Value::as_array) {
        if let Some(last) = messages.iter().rev().find(|m| m["role"] == "user") {
            strings_in(&last["content"], &mut strings);
        }
    } else if let Some(item) = request.body.get("input").and_then(Value::as_array).and_then(|items| {
        items.iter().rev().find(|item| item["type"].as_str().is_some_and(|kind| kind.ends_with("_call_output")))
    }) {
        strings_in(item, &mut strings);
    }
    strings.join("\n")
}

/// The model of the tools tests: a task naming TOOLS-TASK calls `ask_user`
/// with an argument missing, then as it should once told which; after the
/// answer it writes the summary (`write`), asks for a piece of the work to
/// go to another agent, and reports completion: each by Switchboard's tools
/// as the request offers them.
fn tools_script(write: impl Fn(&Path, &str) -> Reply + Send + Sync + 'static) -> impl FnOnce(PathBuf) -> Box<Script> {
    move |workspace| {
        Box::new(move |request: &ModelRequest| {
            let tool = |name: &str, arguments: Value| match offered(request, "switchboard", name) {
                Some(offered) => Reply::tools([(offered, arguments)]),
                None => Reply::text(format!("No switchboard tool {name} among {:?}", offered_tools(request))),
            };
            let latest = request.latest_user_text();
            let called = last_call(request).unwrap_or_default();
            if offered_tools(request).is_empty() {
                Reply::text("Tools task")
            } else if request.follows_tool_use() && called.ends_with("ask_user") {
                if last_tool_result(request).contains("questions: is required") {
                    tool(
                        "ask_user",
                        json!({"questions": [{"question": "JSON or YAML?", "options": ["JSON", "YAML"]}],
                                            "blocked_at": "Choosing the output format"}),
                    )
                } else {
                    Reply::text("I will wait for the answer.")
                }
            } else if request.follows_tool_use() && called.ends_with("request_delegation") {
                tool("report_completion", json!({"status": "success", "deliverables": ["out.json"]}))
            } else if request.follows_tool_use() && called.ends_with("report_completion") {
                Reply::text("Done.")
            } else if request.follows_tool_use() {
                // The summary is written.
                tool("request_delegation", json!({"new_task_description": "Write the docs for out.json"}))
            } else if latest.contains("CLARIFICATION RESPONSE") && latest.contains("A1: JSON") {
                let path = summary_path(request).expect("the task's summary path is in the conversation");
                write(&workspace.join("out.json"), &workspace.join(path).display().to_string())
            } else if latest.contains("TOOLS-TASK") {
                tool("ask_user", json!({"blocked_at": "Choosing the output format"}))
            } else {
                Reply::text("Ready.")
            }
        })
    }
}

/// Through a real CLI with Switchboard's tools: a bad call is answered
/// naming the argument, the question is a dialog, the answer reaches the
/// model, its delegation is approved, and its summary with its report
/// complete the task; the user's own MCP server is offered beside ours.
async fn tools_run_through(rig: Rig, profile: Profile) {
    // The agent the delegated work goes to: it reports at once.
    let scenario = rig.t.data_dir.join("helper.toml");
    let report = "prompt = \"agent> \"\n[[tasks]]\nsteps = [{ raw = \"[COMPLETION_REPORT]\\nstatus: success\\n[/COMPLETION_REPORT]\" }]\n";
    std::fs::write(&scenario, report).unwrap();
    let helper = ProfileSpec {
        ready_pattern: Some("agent> $".into()),
        ready_quiet_ms: 50,
        ..rig.t.spec("helper", DEMO_AGENT, &["--speed", "fast", "--scenario", scenario.to_str().unwrap()])
    };
    let helper = rig.t.engine.create_profile(helper).await.unwrap();
    let task = rig.submit(&profile, "TOOLS-TASK: write the output file").await;
    let session = rig.session_of(&task.id).await;
    let asked = rig.pending_signal("the question", |signal| signal.task_id.as_ref() == Some(&task.id)).await;
    assert_eq!(asked.channel, SignalChannel::Tool);
    let ScanEvent::Signal { signal } = &asked.scan else { panic!("not read: {:?}", asked.scan) };
    assert!(
        matches!(&signal.body, SignalBody::Clarification { questions, options, .. }
            if questions == &["JSON or YAML?"] && options == &[vec!["JSON".to_owned(), "YAML".to_owned()]]),
        "{signal:?}"
    );
    let requests = rig.model.requests();
    let refused =
        requests.iter().find(|r| last_tool_result(r).contains("Nothing was recorded: questions: is required"));
    assert!(refused.is_some(), "the bad call was answered naming the argument");
    let first = requests.iter().find(|r| r.latest_user_text().contains("TOOLS-TASK")).expect("the task's request");
    // The user's own server is offered too: as a tool, or (Claude Code) named among the tools
    // its tool search loads.
    let theirs = offered(first, "mine", "ask_user").is_some() || carries(first, "mcp__mine__ask_user");
    assert!(theirs, "the user's own server is offered: {:?}", offered_tools(first));
    assert!(carries(first, &tools_text(&session.to_string())), "the tools are taught");
    rig.t
        .engine
        .respond_to_signal(asked.id.clone(), SignalResponse::Answer { answers: vec!["JSON".into()] })
        .await
        .unwrap();
    let delegation = rig
        .pending_signal("the delegation", |signal| {
            signal.session_id == session
                && matches!(&signal.scan, ScanEvent::Signal { signal } if matches!(signal.body, SignalBody::Delegate { .. }))
        })
        .await;
    assert_eq!(delegation.channel, SignalChannel::Tool);
    rig.t
        .engine
        .respond_to_signal(delegation.id.clone(), SignalResponse::Approve { profile_id: helper.id.clone() })
        .await
        .unwrap();
    let deadline = tokio::time::Instant::now() + REAL_DEADLINE;
    while !rig.model.requests().iter().any(|r| r.user_text().contains("DELEGATION APPROVED")) {
        assert!(tokio::time::Instant::now() < deadline, "the approval never reached the model");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let done = rig.task_ends(&task.id).await;
    assert_eq!(done.state, TaskState::Completed, "{done:?}");
    assert_eq!(std::fs::read_to_string(rig.workspace.join("out.json")).unwrap(), OUTPUT);
    let reports = rig.t.engine.list_signals().await.unwrap();
    let report = reports
        .iter()
        .find(|s| s.session_id == session && matches!(&s.scan, ScanEvent::Signal { signal } if matches!(signal.body, SignalBody::Completion { .. })))
        .expect("the completion report");
    assert_eq!(report.channel, SignalChannel::Tool);
    assert_eq!((report.deliverables[0].path.as_str(), &report.deliverables[0].problem), ("out.json", &None));
    rig.t.engine.stop_session(session).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claude_code_asks_delegates_and_reports_through_switchboards_tools() {
    let script = tools_script(|output, summary| {
        Reply::tools([
            ("Write", json!({"file_path": output.display().to_string(), "content": OUTPUT})),
            ("Write", json!({"file_path": summary, "content": SUMMARY})),
        ])
    });
    let rig = Rig::start(Wire::Anthropic, script).await;
    let profile = rig.claude_code().await;
    // The user's own server, in their own settings: ours is added beside it.
    let state: Value = serde_json::from_str(&std::fs::read_to_string(rig.home.join(".claude.json")).unwrap()).unwrap();
    let mut state = state;
    state["mcpServers"] = json!({"mine": {"type": "stdio", "command": mcp_binary().display().to_string(), "args": []}});
    std::fs::write(rig.home.join(".claude.json"), state.to_string()).unwrap();
    tools_run_through(rig, profile).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn codex_asks_delegates_and_reports_through_switchboards_tools() {
    let script = tools_script(|output, summary| {
        let cmd = format!("cat > {} <<'EOF'\n{OUTPUT}EOF\ncat > {summary} <<'EOF'\n{SUMMARY}EOF\n", output.display());
        Reply::tools([("exec_command", json!({"cmd": cmd}))])
    });
    let rig = Rig::start(Wire::OpenAiResponses, script).await;
    let profile = rig.codex().await;
    // The user's own server, in their own configuration: ours is added beside it.
    let config = rig.home.join("codex/config.toml");
    let mut text = std::fs::read_to_string(&config).unwrap();
    text.push_str(&format!("\n[mcp_servers.mine]\ncommand = \"{}\"\n", mcp_binary().display()));
    std::fs::write(&config, text).unwrap();
    tools_run_through(rig, profile).await;
}

/// The tokens each answer of the cost test reports: the first (two content
/// blocks: words, then the tool call that writes the summary) and the one
/// after the tool's result. OpenAI's API has no cache writes to report.
fn cost_spends(wire: Wire) -> [Spend; 2] {
    let cache_write = if wire == Wire::Anthropic { 300 } else { 0 };
    [
        Spend { input: 1000, output: 50, cache_read: 200, cache_write },
        Spend { input: 10, output: 5, cache_read: 1200, cache_write: 0 },
    ]
}

/// The test's own prices for the models the fakes answer as: $1 per
/// million input tokens, $10 output, $2 cache writes, $0.10 cache reads.
fn cost_prices() -> switchboard_core::PriceTable {
    let usd = |d: f64| switchboard_core::Usd::try_from(d).unwrap();
    let rates = switchboard_core::Rates {
        input: usd(1.0),
        output: usd(10.0),
        cache_write_5m: usd(2.0),
        cache_write_1h: usd(4.0),
        cache_read: usd(0.1),
    };
    let models = ["claude-opus-5-5", "gpt-fake"].map(|model| switchboard_core::ModelPrice {
        model: model.into(),
        rates: rates.clone(),
        long_prompt: None,
    });
    switchboard_core::PriceTable { source: "the test's own".into(), taken: "2026-11-29".into(), models: models.into() }
}

/// The cost test's model: a task's first answer says a word and writes its
/// summary with the agent's file (or shell) tool, reporting known tokens;
/// the answer after the tool's result reports its own, and waits for
/// `gate` in a task whose instruction says HOLD.
fn cost_script(wire: Wire, gate: watch::Receiver<bool>) -> impl FnOnce(PathBuf) -> Box<Script> {
    move |workspace| {
        let [first, second] = cost_spends(wire);
        Box::new(move |request: &ModelRequest| {
            let latest = request.user_text();
            let Some(path) = last_summary_path(request).filter(|_| latest.contains("COST-RUN")) else {
                return Reply::text("Ready.");
            };
            if request.follows_tool_use() {
                let reply = Reply::text("The summary is written.").with_tokens(second);
                return if latest.contains("HOLD") { reply.held_until(gate.clone()) } else { reply };
            }
            // A held task writes notes, not its summary: it cannot end by itself.
            let path = if latest.contains("HOLD") { "notes.md".to_owned() } else { path };
            let write = match wire {
                Wire::Anthropic => {
                    let file_path = workspace.join(path).display().to_string();
                    Block::Tool { name: "Write".into(), input: json!({"file_path": file_path, "content": SUMMARY}) }
                }
                Wire::OpenAiResponses => {
                    let cmd = format!("mkdir -p summaries && cat > {path} <<'EOF'\n{SUMMARY}EOF\n");
                    Block::Tool { name: "exec_command".into(), input: json!({"cmd": cmd}) }
                }
            };
            let mut reply = Reply::text("Writing the summary now.").with_tokens(first);
            reply.blocks.push(write);
            reply
        })
    }
}

/// A task's tokens, read from the agent's own records, are exactly what the
/// fake model reported, each answer once (the first of two content
/// blocks), priced at the test's prices; a budget below one turn's use ends
/// the next task over budget while its model's reply is held.
async fn cost_runs_through(wire: Wire, gate: watch::Sender<bool>, rig: Rig, profile: Profile) {
    let settings = switchboard_core::Settings { prices: cost_prices(), ..rig.t.engine.get_settings().await.unwrap() };
    rig.t.engine.set_settings(settings).await.unwrap();
    let [first, second] = cost_spends(wire);
    let expected = (
        first.input + second.input,
        first.output + second.output,
        first.cache_read + second.cache_read,
        first.cache_write + second.cache_write,
    );
    let task = rig.submit(&profile, "COST-RUN: write the summary").await;
    assert_eq!(rig.task_ends(&task.id).await.state, TaskState::Completed);
    // The CLI writes its records as it likes (Claude Code late): the task's
    // tokens are complete once they are.
    let counted = rig
        .task_until(&task.id, REAL_DEADLINE, |task| {
            let t = &task.spent.tokens;
            (t.input, t.output, t.cache_read, t.cache_write) == expected
        })
        .await;
    let dollars = |spend: Spend| spend.input + 10 * spend.output + 2 * spend.cache_write + spend.cache_read / 10;
    let micros = dollars(first) + dollars(second);
    assert_eq!(counted.spent.cost_usd.map(|usd| usd.nanos()), Some(micros as i64 * 1000), "{:?}", counted.spent);
    let model = if wire == Wire::Anthropic { "claude-opus-5-5" } else { "gpt-fake" };
    assert_eq!(counted.spent.tokens.by_model.iter().map(|m| m.model.as_str()).collect::<Vec<_>>(), [model]);
    let report = rig
        .t
        .engine
        .cost_report(switchboard_core::CostSince::Today, switchboard_core::CostGrouping::Task)
        .await
        .unwrap();
    let row = report.rows.iter().find(|row| row.key == task.id.to_string()).expect("the task in the report");
    assert_eq!(row.spent.tokens, counted.spent.tokens);

    // A budget below one turn's use: the reply after the first answer is
    // held, so the task cannot end by itself before the engine reads it.
    let spec = TaskSpec {
        budget: Some(switchboard_core::Budget::Tokens(500)),
        ..TaskSpec::new(profile.id.clone(), "COST-RUN HOLD: write the summary")
    };
    let held = rig.t.engine.submit_task(spec).await.unwrap().task;
    let ended = rig.task_ends(&held.id).await;
    assert_eq!(ended.state, TaskState::OverBudget, "{ended:?}");
    let reason = ended.reason.clone().unwrap_or_default();
    assert!(reason.starts_with("it used its budget of 500 tokens ("), "{reason}");
    assert!(ended.result.as_ref().is_some_and(|r| r.fallback), "its fallback summary is kept: {ended:?}");
    gate.send(true).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claude_code_tasks_count_the_tokens_its_model_reported_and_a_budget_holds() {
    let (gate, opened) = watch::channel(false);
    let rig = Rig::start(Wire::Anthropic, cost_script(Wire::Anthropic, opened)).await;
    let profile = rig.claude_code().await;
    cost_runs_through(Wire::Anthropic, gate, rig, profile).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn codex_tasks_count_the_tokens_its_model_reported_and_a_budget_holds() {
    let (gate, opened) = watch::channel(false);
    let rig = Rig::start(Wire::OpenAiResponses, cost_script(Wire::OpenAiResponses, opened)).await;
    let profile = rig.codex().await;
    cost_runs_through(Wire::OpenAiResponses, gate, rig, profile).await;
}
