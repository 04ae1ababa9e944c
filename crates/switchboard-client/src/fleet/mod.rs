//! One window over several machines' engines: where each command goes, how
//! the answers of several engines make one, and which engine holds a thing
//! the window names. Pure; the window's links carry out what this decides.
//!
//! Every agent, session, task, signal and loop has a UUID, unique across
//! machines, so a command that names one goes to the engine that told the
//! window of it ([`Owners`], learnt from that engine's answers and events).
//! A list is asked of every engine and the answers joined; what is the
//! user's own (the settings, the data folder) stays with this machine's
//! engine; and what makes something new (an agent, a folder to pick) goes
//! to the machine the user chose.

mod caps;
pub mod dispatch;
mod owners;

pub use caps::{
    MAX_HOST_CONTEXT_BYTES, MAX_HOST_DIFF_BYTES, MAX_HOST_INSTRUCTION_BYTES, MAX_HOST_SCREEN_BYTES,
    MAX_HOST_SUMMARY_BYTES, capped_from_host, host_field_cap, host_list_cap,
};
pub use owners::{
    Holder, MOST_OWNERS, NotKept, Owners, Said, about_ids, event_from_host, heard_from_host, held_ids, holder_after,
    host_notices, tag_event, tag_reply,
};

use switchboard_api::{Command, ErrorCode, Reply};
use switchboard_api::{FlowTarget, Overview, Viewing};

/// Where a command goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Route {
    /// Every engine; their answers are joined ([`join`]).
    Every,
    /// The engine that holds the thing these ids name (none known: this
    /// machine's).
    Owner(Vec<String>),
    /// The machine the user chose (a new agent, a folder there).
    Chosen,
    /// This machine's engine: the user's settings and data folder.
    Local,
}

fn ids<const N: usize>(ids: [&dyn ToString; N]) -> Route {
    Route::Owner(ids.iter().map(|id| id.to_string()).collect())
}

fn target(target: &FlowTarget) -> Route {
    match target {
        FlowTarget::Agent { profile_id } => ids([profile_id]),
        FlowTarget::Session { session_id } => ids([session_id]),
        FlowTarget::Task { task_id } => ids([task_id]),
        FlowTarget::Loop { loop_id } => ids([loop_id]),
    }
}

/// Where `command` goes. Every command is named here, so a new one has its
/// route decided with it. `set_viewing` goes to every engine, each told only
/// of what it holds (`viewing_for`); a cost report too, each machine's agents
/// by its own day.
pub fn route(command: &Command) -> Route {
    use Command as C;
    match command {
        C::ListProfiles {}
        | C::ListSessions {}
        | C::ListTasks { profile_id: None }
        | C::SetQueuePaused { profile_id: None, .. }
        | C::ListEvents { session_id: None }
        | C::ListQueues {}
        | C::ListSignals {}
        | C::ListDelegations {}
        | C::ListLoops {}
        | C::FlowOverview {}
        | C::Search { .. }
        | C::ListAgentStatus {}
        | C::ListAttention {}
        | C::ListLimits {}
        | C::ListUsage {}
        | C::SetViewing { .. }
        | C::ListPermissionRequests {}
        | C::ListWorktrees {}
        | C::ListAutomations {}
        | C::CostReport { .. } => Route::Every,
        C::UpdateProfile { profile_id, .. }
        | C::DeleteProfile { profile_id }
        | C::CheckProfile { profile_id: Some(profile_id), .. }
        | C::StartSession { profile_id, .. }
        | C::ListTasks { profile_id: Some(profile_id) }
        | C::SetQueuePaused { profile_id: Some(profile_id), .. }
        | C::StartLoop { profile_id, .. }
        | C::ResumeAgent { profile_id } => ids([profile_id]),
        C::SubmitTask { spec } => ids([&spec.profile_id]),
        C::CreateAutomation { spec } => ids([&spec.profile_id]),
        C::UpdateAutomation { .. }
        | C::GetAutomation { .. }
        | C::PauseAutomation { .. }
        | C::ResumeAutomation { .. }
        | C::RunAutomationNow { .. }
        | C::RemoveAutomation { .. } => automation_route(command),
        C::StopSession { session_id }
        | C::RestartSession { session_id, .. }
        | C::ResumeSession { session_id, .. }
        | C::WriteInput { session_id, .. }
        | C::Resize { session_id, .. }
        | C::SetOutputPaused { session_id, .. }
        | C::ScreenSnapshot { session_id, .. }
        | C::ListEvents { session_id: Some(session_id) }
        | C::KeepDelegate { session_id, .. }
        | C::AgentText { session_id, .. }
        | C::SessionTool { session_id, .. } => ids([session_id]),
        C::GetTask { task_id }
        | C::CancelTask { task_id }
        | C::MoveTask { task_id, .. }
        | C::RequeueTask { task_id }
        | C::TypeTaskNow { task_id }
        | C::EditTask { task_id, .. }
        | C::ArtifactPath { task_id, .. }
        | C::RerunTask { task_id }
        | C::TaskTimeline { task_id } => ids([task_id]),
        C::RespondToSignal { signal_id, .. } => ids([signal_id]),
        C::GetLoop { loop_id }
        | C::LoopIterations { loop_id, .. }
        | C::CancelLoop { loop_id }
        | C::ResumeLoop { loop_id }
        | C::LoopFiles { loop_id }
        | C::SaveLoopFile { loop_id, .. } => ids([loop_id]),
        C::FlowView { target: flow, .. }
        | C::FlowEvents { target: flow, .. }
        | C::ExportFlowEvents { target: flow } => target(flow),
        // A worktree is named by its task's or loop's id.
        C::WorktreeDiff { worktree }
        | C::CommitWorktree { worktree }
        | C::MergeWorktree { worktree }
        | C::DiscardWorktree { worktree, .. }
        | C::RebaseWorktree { worktree }
        | C::ReviewWorktree { worktree, .. }
        | C::ResolveWorktree { worktree } => Route::Owner(vec![worktree.clone()]),
        // A permission request's number is its engine's own: the window names the machine.
        C::CreateProfile { .. }
        | C::CheckProfile { profile_id: None, .. }
        | C::AgentPresets {}
        | C::DetectedAgents {}
        | C::FolderRepository { .. }
        | C::ListFolder { .. }
        | C::SetRepositorySetup { .. }
        | C::DecidePermission { .. } => Route::Chosen,
        // Serving browsers is each machine's own: the window's unless it names another.
        C::StorageStatus {}
        | C::GetSettings {}
        | C::SetSettings { .. }
        | C::FlowDiagrams {}
        | C::HookEvent { .. }
        | C::WebStatus {}
        | C::SetWeb { .. }
        | C::PairDevice { .. }
        | C::ListDevices {}
        | C::ThisDevice {}
        | C::RevokeDevice { .. } => Route::Local,
    }
}

/// The engine that holds the automation a command names.
fn automation_route(command: &Command) -> Route {
    use Command as C;
    match command {
        C::UpdateAutomation { automation_id, .. }
        | C::GetAutomation { automation_id }
        | C::PauseAutomation { automation_id }
        | C::ResumeAutomation { automation_id }
        | C::RunAutomationNow { automation_id }
        | C::RemoveAutomation { automation_id } => ids([automation_id]),
        _ => Route::Local,
    }
}

/// Whether an engine's refusal says only that it does not hold what the
/// command names (another engine may).
pub fn not_held(code: ErrorCode) -> bool {
    matches!(
        code,
        ErrorCode::ProfileNotFound
            | ErrorCode::SessionNotFound
            | ErrorCode::TaskNotFound
            | ErrorCode::SignalNotFound
            | ErrorCode::WorktreeNotFound
    )
}

/// The answers of every engine to one command as one answer: lists joined
/// (this machine's first), the search's hits newest first. None: there were
/// no answers, or they were not of one kind.
pub fn join(replies: Vec<Reply>) -> Option<Reply> {
    let mut replies = replies.into_iter();
    let first = replies.next()?;
    replies.try_fold(first, join_two)
}

fn join_two(joined: Reply, next: Reply) -> Option<Reply> {
    use Reply as R;
    Some(match (joined, next) {
        (R::Unit, R::Unit) => R::Unit,
        (R::Profiles(mut a), R::Profiles(b)) => {
            a.extend(b);
            R::Profiles(a)
        }
        (R::Sessions(mut a), R::Sessions(b)) => {
            a.extend(b);
            a.sort_by_key(|session| session.started_at);
            R::Sessions(a)
        }
        (R::Events(mut a), R::Events(b)) => {
            a.extend(b);
            R::Events(a)
        }
        (R::Tasks(mut a), R::Tasks(b)) => {
            a.extend(b);
            R::Tasks(a)
        }
        (R::Queues(mut a), R::Queues(b)) => {
            a.extend(b);
            R::Queues(a)
        }
        (R::Signals(mut a), R::Signals(b)) => {
            a.extend(b);
            R::Signals(a)
        }
        (R::AgentStatus(mut a), R::AgentStatus(b)) => {
            a.extend(b);
            R::AgentStatus(a)
        }
        (R::PermissionRequests(mut a), R::PermissionRequests(b)) => {
            a.extend(b);
            R::PermissionRequests(a)
        }
        (R::Delegations(mut a), R::Delegations(b)) => {
            a.extend(b);
            R::Delegations(a)
        }
        (R::Loops(mut a), R::Loops(b)) => {
            a.extend(b);
            R::Loops(a)
        }
        (R::Overview(a), R::Overview(b)) => R::Overview(Overview {
            agents: [a.agents, b.agents].concat(),
            helpers: [a.helpers, b.helpers].concat(),
            links: [a.links, b.links].concat(),
        }),
        (R::SearchHits(mut a), R::SearchHits(b)) => {
            a.extend(b);
            a.sort_by_key(|hit| std::cmp::Reverse(hit.at));
            R::SearchHits(a)
        }
        (R::Attention(mut a), R::Attention(b)) => {
            a.extend(b);
            R::Attention(a)
        }
        (R::Limits(mut a), R::Limits(b)) => {
            a.extend(b);
            R::Limits(a)
        }
        (R::Usage(mut a), R::Usage(b)) => {
            a.extend(b);
            R::Usage(a)
        }
        (R::Cost(a), R::Cost(b)) if a.by == b.by => R::Cost(a.joined(b)),
        (R::Worktrees(mut a), R::Worktrees(b)) => {
            a.extend(b);
            R::Worktrees(a)
        }
        _ => return None,
    })
}

/// The lists that tell what an engine holds, which a window asks of each
/// engine as it connects: this machine's make [`Owners`] believe another
/// machine's claims from then on.
pub fn holdings() -> [Command; 6] {
    [
        Command::ListProfiles {},
        Command::ListSessions {},
        Command::ListTasks { profile_id: None },
        Command::ListSignals {},
        Command::ListLoops {},
        Command::ListWorktrees {},
    ]
}

/// What the user looks at, as told to one engine: the engine that holds
/// the agent or task the user looks at hears of it; every other engine
/// hears that the user looks at nothing of its own (its ids are its own
/// business, and another machine's never leave this one). `holder`: the
/// machine that holds what is viewed (none: this one); `engine`: the
/// machine of the engine told (none: this one).
pub fn viewing_for(viewing: &Viewing, holder: Option<&str>, engine: Option<&str>) -> Viewing {
    if holder == engine {
        viewing.clone()
    } else {
        Viewing { profile_id: None, task_id: None, focused: viewing.focused }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use switchboard_api::{EngineEvent, Profile, Restarted, Submitted};
    use switchboard_api::{SearchHit, SessionInfo, TaskInfo, TaskRecord, TaskSpec, TaskStatus};
    use switchboard_protocol::capped::{MAX_LIST_ITEMS, MAX_NAME_BYTES, MAX_PATH_BYTES, MAX_TEXT_FIELD_BYTES};
    use switchboard_protocol::{ProfileId, SessionId, TaskId};
    use uuid::Uuid;

    fn profile(name: &str) -> Profile {
        let spec = switchboard_api::ProfileSpec { name: name.into(), ..Default::default() };
        Profile { id: ProfileId::new(), spec, created_at: 1, host: None }
    }

    #[test]
    fn each_command_goes_where_what_it_names_is() {
        let agent = ProfileId::new();
        let session = SessionId::new();
        let task = TaskId::new();
        let automation = switchboard_protocol::AutomationId::new();
        let spec: TaskSpec =
            serde_json::from_value(serde_json::json!({"profile_id": agent.to_string(), "instruction": "go"}))
                .expect("a spec");
        let table: Vec<(Command, Route)> = vec![
            (Command::ListProfiles {}, Route::Every),
            (Command::ListTasks { profile_id: None }, Route::Every),
            (Command::ListTasks { profile_id: Some(agent.clone()) }, Route::Owner(vec![agent.to_string()])),
            // Pausing every queue pauses every machine's.
            (Command::SetQueuePaused { profile_id: None, paused: true }, Route::Every),
            (Command::SubmitTask { spec }, Route::Owner(vec![agent.to_string()])),
            (
                Command::WriteInput { session_id: session.clone(), data: "x".into() },
                Route::Owner(vec![session.to_string()]),
            ),
            (Command::CancelTask { task_id: task.clone() }, Route::Owner(vec![task.to_string()])),
            (
                Command::FlowView { target: FlowTarget::Task { task_id: task.clone() }, until_seq: None },
                Route::Owner(vec![task.to_string()]),
            ),
            (Command::MergeWorktree { worktree: task.to_string() }, Route::Owner(vec![task.to_string()])),
            (Command::ListAutomations {}, Route::Every),
            (
                Command::RunAutomationNow { automation_id: automation.clone() },
                Route::Owner(vec![automation.to_string()]),
            ),
            (Command::ListFolder { path: "~".into() }, Route::Chosen),
            (Command::DecidePermission { request_id: 1, allow: true, message: None }, Route::Chosen),
            (Command::GetSettings {}, Route::Local),
            (Command::StorageStatus {}, Route::Local),
        ];
        for (command, expected) in table {
            assert_eq!(route(&command), expected, "{}", command.name());
        }
    }

    #[test]
    fn answers_of_several_engines_are_one_answer() {
        let (here, there) = (profile("here"), profile("there"));
        assert_eq!(
            join(vec![Reply::Profiles(vec![here.clone()]), Reply::Profiles(vec![there.clone()])]),
            Some(Reply::Profiles(vec![here.clone(), there]))
        );
        assert_eq!(join(vec![Reply::Unit, Reply::Unit]), Some(Reply::Unit));
        assert_eq!(join(vec![]), None);
        // Answers of different kinds are not one.
        assert_eq!(join(vec![Reply::Profiles(vec![here]), Reply::Unit]), None);
        let hit = |at: i64| -> SearchHit {
            serde_json::from_value(serde_json::json!({
                "profile_id": Uuid::new_v4().to_string(), "at": at, "snippet": "s",
                "found": {"in": "task", "task_id": Uuid::new_v4().to_string(), "title": "t", "state": "queued"},
            }))
            .expect("a hit")
        };
        let Some(Reply::SearchHits(hits)) =
            join(vec![Reply::SearchHits(vec![hit(5), hit(1)]), Reply::SearchHits(vec![hit(9), hit(3)])])
        else {
            panic!("hits")
        };
        assert_eq!(hits.iter().map(|hit| hit.at).collect::<Vec<_>>(), vec![9, 5, 3, 1]);
    }

    #[test]
    fn two_machines_costs_are_one_report_each_day_summed() {
        use switchboard_api::{CostGrouping, CostReport, CostRow, ModelTokens, Spent, TokenTotals, Usd};
        let spent = |model: &str, input: u64, cost: Option<f64>| {
            let cost_usd = cost.map(|c| Usd::try_from(c).unwrap());
            let by_model =
                vec![ModelTokens { model: model.into(), input, output: 0, cache_read: 0, cache_write: 0, cost_usd }];
            Spent { tokens: TokenTotals { input, by_model, ..Default::default() }, cost_usd, list_price: false }
        };
        let row = |key: &str, spent: Spent| CostRow { key: key.into(), name: key.into(), spent, day_budget: None };
        let report = |since, rows: Vec<CostRow>| {
            let total = rows.iter().fold(Spent::default(), |sum, row| sum.plus(&row.spent));
            Reply::Cost(CostReport { since, by: CostGrouping::Day, rows, total })
        };
        let here = report(
            100,
            vec![row("2026-11-28", spent("opus", 10, Some(1.0))), row("2026-11-29", spent("opus", 5, Some(0.5)))],
        );
        // The other machine's model has no price: where it counts, the cost is not known.
        let there =
            report(50, vec![row("2026-11-29", spent("sol", 7, None)), row("2026-11-27", spent("opus", 1, Some(0.1)))]);
        let Some(Reply::Cost(joined)) = join(vec![here, there]) else { panic!("one report") };
        assert_eq!(joined.since, 50);
        let days: Vec<(&str, u64, Option<Usd>)> =
            joined.rows.iter().map(|r| (r.key.as_str(), r.spent.tokens.input, r.spent.cost_usd)).collect();
        let usd = |c: f64| Some(Usd::try_from(c).unwrap());
        assert_eq!(days, vec![("2026-11-27", 1, usd(0.1)), ("2026-11-28", 10, usd(1.0)), ("2026-11-29", 12, None)]);
        let models: Vec<&str> = joined.rows[2].spent.tokens.by_model.iter().map(|m| m.model.as_str()).collect();
        assert_eq!(models, ["opus", "sol"]);
        assert_eq!((joined.total.tokens.input, joined.total.cost_usd), (23, None));
    }

    #[test]
    fn an_agent_from_another_machine_carries_its_name() {
        let mut reply = Reply::Profiles(vec![profile("a"), profile("b")]);
        tag_reply(&mut reply, "build-box");
        let Reply::Profiles(profiles) = reply else { panic!() };
        assert!(profiles.iter().all(|profile| profile.host.as_deref() == Some("build-box")));
        let mut event = EngineEvent::ProfileSaved { profile: profile("c") };
        tag_event(&mut event, "gpu");
        let EngineEvent::ProfileSaved { profile } = event else { panic!() };
        assert_eq!(profile.host.as_deref(), Some("gpu"));
        // A permission request names the machine that asked, whatever the host said it was.
        let request = switchboard_api::PermissionRequest {
            id: 1,
            session_id: SessionId::new(),
            tool_name: "Bash".into(),
            tool_input: serde_json::Value::Null,
            asked_at: 0,
            expires_at: 1,
            host: None,
        };
        let mut event = EngineEvent::PermissionRequested { request: request.clone() };
        tag_event(&mut event, "gpu");
        let EngineEvent::PermissionRequested { request: asked } = event else { panic!() };
        assert_eq!(asked.host.as_deref(), Some("gpu"));
        let mut reply = Reply::PermissionRequests(vec![switchboard_api::PermissionRequest {
            host: Some("here, it says".into()),
            ..request
        }]);
        tag_reply(&mut reply, "build-box");
        let Reply::PermissionRequests(asked) = reply else { panic!() };
        assert_eq!(asked[0].host.as_deref(), Some("build-box"));
        // This machine's own answers carry no name.
        assert_eq!(self::profile("d").host, None);
    }

    fn session(profile_id: &ProfileId) -> SessionInfo {
        serde_json::from_value(serde_json::json!({
            "id": SessionId::new().to_string(), "profile_id": profile_id.to_string(), "started_at": 1,
            "size": {"rows": 24, "cols": 80}, "state": "running", "pid": 7,
        }))
        .expect("a session")
    }

    fn task(profile_id: &ProfileId, instruction: &str) -> TaskRecord {
        let spec = serde_json::from_value(
            serde_json::json!({"profile_id": profile_id.to_string(), "instruction": instruction}),
        )
        .expect("a spec");
        TaskInfo {
            id: TaskId::new(),
            spec,
            order: 1,
            created_at: 1,
            status: TaskStatus::Queued,
            waiting_for: None,
            spent: Default::default(),
        }
        .into()
    }

    /// What an engine said, kept for a table.
    enum Told {
        Reply(Reply),
        Event(EngineEvent),
    }

    fn uuid(id: &impl ToString) -> u128 {
        Uuid::try_parse(&id.to_string()).expect("an id").as_u128()
    }

    #[test]
    fn an_engine_holds_only_the_records_it_tells_of_not_the_ids_they_name() {
        let (agent, local_agent) = (profile("there"), ProfileId::new());
        let session = session(&local_agent);
        // A task whose instruction and agent are another machine's ids.
        let echo = task(&local_agent, &local_agent.to_string());
        let submitted = Submitted { task: echo.clone(), position: None, waiting_for: Some(TaskId::new()) };
        // A log entry of another machine's naming this machine's session and task.
        let logged = switchboard_api::LogEntry {
            seq: 1,
            at: 1,
            session_id: Some(session.id.clone()),
            task_id: Some(echo.id.clone()),
            kind: switchboard_api::LogKind::TaskStarted,
        };
        let table: Vec<(Told, Vec<u128>)> = vec![
            (Told::Reply(Reply::Profiles(vec![agent.clone()])), vec![uuid(&agent.id)]),
            (Told::Reply(Reply::Sessions(vec![session.clone()])), vec![uuid(&session.id)]),
            (Told::Reply(Reply::Tasks(vec![echo.clone()])), vec![uuid(&echo.id)]),
            (Told::Reply(Reply::Submitted(submitted)), vec![uuid(&echo.id)]),
            (Told::Reply(Reply::Restarted(Restarted::AfterTask { task_id: TaskId::new() })), vec![]),
            (Told::Reply(Reply::Events(vec![logged.clone()])), vec![]),
            (Told::Event(EngineEvent::Logged { entry: logged, profile_id: Some(local_agent.clone()) }), vec![]),
            (Told::Reply(Reply::Text(local_agent.to_string())), vec![]),
            (Told::Event(EngineEvent::ProfileSaved { profile: agent.clone() }), vec![uuid(&agent.id)]),
            (Told::Event(EngineEvent::TaskChanged { task: echo.clone() }), vec![uuid(&echo.id)]),
            (Told::Event(EngineEvent::SessionChanged { session: session.clone() }), vec![uuid(&session.id)]),
            (Told::Event(EngineEvent::ProfileDeleted { profile_id: local_agent.clone() }), vec![]),
            (
                Told::Event(EngineEvent::LimitLifted {
                    account: local_agent.to_string(),
                    profiles: vec![local_agent.clone()],
                    by_user: false,
                    at_reset: false,
                }),
                vec![],
            ),
        ];
        for (told, expected) in table {
            let said = match &told {
                Told::Reply(reply) => Said::Reply(reply),
                Told::Event(event) => Said::Event(event),
            };
            assert_eq!(held_ids(said), expected, "{said:?}");
        }
    }

    #[test]
    fn this_machine_holds_what_it_says_and_the_first_machine_to_name_an_id_keeps_it() {
        let table = [
            (None, Holder::Here, Holder::Here),
            (None, Holder::There(1), Holder::There(1)),
            (Some(Holder::Here), Holder::There(1), Holder::Here),
            (Some(Holder::There(1)), Holder::Here, Holder::Here),
            (Some(Holder::There(1)), Holder::There(2), Holder::There(1)),
            (Some(Holder::There(2)), Holder::There(2), Holder::There(2)),
        ];
        for (known, claimant, expected) in table {
            assert_eq!(holder_after(known, claimant), expected, "{known:?} claimed by {claimant:?}");
        }
    }

    #[test]
    fn a_thing_is_routed_to_the_machine_that_holds_it() {
        let mut owners = Owners::default();
        let (here, theirs, other, unknown) = (profile("here"), profile("theirs"), profile("other"), Uuid::new_v4());
        // Before this machine's engine has told what it holds, no other machine is believed.
        owners.learn("build-box", Said::Reply(&Reply::Profiles(vec![here.clone()])));
        assert_eq!(owners.owner(&[here.id.to_string()]), None);
        owners.learn_here(Said::Reply(&Reply::Profiles(vec![here.clone()])));
        owners.here_told();
        owners.learn("build-box", Said::Reply(&Reply::Profiles(vec![theirs.clone()])));
        owners.learn("gpu", Said::Event(&EngineEvent::ProfileSaved { profile: other.clone() }));
        assert_eq!(owners.owner(&[theirs.id.to_string()]), Some("build-box"));
        assert_eq!(owners.owner(&[other.id.to_string()]), Some("gpu"));
        assert_eq!(owners.owner(&[here.id.to_string()]), None);
        // Never heard of: this machine's engine is asked first.
        assert_eq!(owners.owner(&[unknown.to_string()]), None);
        assert_eq!(owners.owner(&["not an id".into()]), None);
        owners.forget("build-box");
        assert_eq!(owners.owner(&[theirs.id.to_string()]), None);
        assert_eq!(owners.owner(&[other.id.to_string()]), Some("gpu"));
    }

    #[test]
    fn a_machine_that_names_this_machine_s_ids_or_another_s_as_its_own_takes_none() {
        let mut owners = Owners::default();
        let here = profile("here");
        let here_task = task(&here.id, "local work");
        owners.learn_here(Said::Reply(&Reply::Profiles(vec![here.clone()])));
        owners.learn_here(Said::Event(&EngineEvent::TaskChanged { task: here_task.clone() }));
        owners.here_told();
        // A host's records that carry this machine's ids as their own, and mention them everywhere.
        let mut forged = profile(&here.id.to_string());
        forged.id = here.id.clone();
        let mut forged_task = task(&here.id, &here.id.to_string());
        forged_task.id = here_task.id.clone();
        owners.learn("evil", Said::Reply(&Reply::Profiles(vec![forged.clone()])));
        owners.learn("evil", Said::Reply(&Reply::Tasks(vec![forged_task.clone()])));
        owners.learn("evil", Said::Event(&EngineEvent::ProfileSaved { profile: forged }));
        owners.learn("evil", Said::Event(&EngineEvent::TaskChanged { task: forged_task }));
        assert_eq!(owners.owner(&[here.id.to_string()]), None, "this machine's agent stays here");
        assert_eq!(owners.owner(&[here_task.id.to_string()]), None, "this machine's task stays here");
        // Two hosts claiming each other's: the first to name an id keeps it.
        let (a, b) = (profile("a"), profile("b"));
        owners.learn("alpha", Said::Reply(&Reply::Profiles(vec![a.clone()])));
        owners.learn("beta", Said::Reply(&Reply::Profiles(vec![b.clone()])));
        owners.learn("alpha", Said::Reply(&Reply::Profiles(vec![b.clone()])));
        owners.learn("beta", Said::Event(&EngineEvent::ProfileSaved { profile: a.clone() }));
        assert_eq!(owners.owner(&[a.id.to_string()]), Some("alpha"));
        assert_eq!(owners.owner(&[b.id.to_string()]), Some("beta"));
        // This machine's engine naming an id as its own takes it from a host that claimed it.
        owners.learn_here(Said::Reply(&Reply::Profiles(vec![a.clone()])));
        assert_eq!(owners.owner(&[a.id.to_string()]), None);
    }

    #[test]
    fn a_machine_s_records_under_ids_others_hold_are_not_kept() {
        let mut owners = Owners::default();
        let (here, alpha_own) = (profile("here"), profile("alpha's"));
        owners.learn_here(Said::Reply(&Reply::Profiles(vec![here.clone()])));
        owners.here_told();
        owners.learn("alpha", Said::Reply(&Reply::Profiles(vec![alpha_own.clone()])));
        let (mut forged_here, mut forged_alpha, beta_own) =
            (profile("mine now"), profile("also mine"), profile("beta's"));
        forged_here.id = here.id.clone();
        forged_alpha.id = alpha_own.id.clone();
        // In a list: the forgeries go, its own stay, named with its machine.
        let listed = Reply::Profiles(vec![forged_here.clone(), beta_own.clone(), forged_alpha.clone()]);
        let Reply::Profiles(kept) = heard_from_host(&mut owners, "beta", listed).unwrap() else { panic!() };
        assert_eq!(kept.iter().map(|profile| profile.id.clone()).collect::<Vec<_>>(), vec![beta_own.id.clone()]);
        assert_eq!(kept[0].host.as_deref(), Some("beta"));
        // Alone, or in an event: not kept at all.
        assert!(matches!(
            heard_from_host(&mut owners, "beta", Reply::Profile(forged_here.clone())),
            Err(NotKept::Forged)
        ));
        let event = EngineEvent::ProfileSaved { profile: forged_alpha };
        assert!(matches!(event_from_host(&mut owners, "beta", event), Err(NotKept::Forged)));
        // News about this machine's agent, or a record of its own that points at it: not kept.
        for event in [
            EngineEvent::ProfileDeleted { profile_id: here.id.clone() },
            EngineEvent::TaskChanged { task: task(&here.id, "mine now") },
        ] {
            assert!(matches!(event_from_host(&mut owners, "beta", event.clone()), Err(NotKept::Forged)), "{event:?}");
        }
        let Reply::Tasks(kept) = heard_from_host(
            &mut owners,
            "beta",
            Reply::Tasks(vec![task(&here.id, "theirs?"), task(&beta_own.id, &format!("about {}", here.id))]),
        )
        .unwrap() else {
            panic!()
        };
        assert_eq!(kept.len(), 1, "its own task kept, the one on this machine's agent not");
        assert_eq!(kept[0].spec.profile_id, beta_own.id, "an id in a task's words is words");
        // Its own again: kept.
        let event = EngineEvent::ProfileSaved { profile: beta_own.clone() };
        assert!(event_from_host(&mut owners, "beta", event).is_ok());
        assert!(heard_from_host(&mut owners, "alpha", Reply::Profile(alpha_own)).is_ok());
        assert_eq!(owners.owner(&[here.id.to_string()]), None);
    }

    #[test]
    fn the_owners_kept_are_bounded_and_a_flood_of_another_machine_s_ids_forgets_none_of_this_one_s() {
        let mut owners = Owners::default();
        let here = profile("here");
        owners.learn_here(Said::Reply(&Reply::Profiles(vec![here.clone()])));
        owners.here_told();
        for _ in 0..(MOST_OWNERS / 1000 + 1) {
            let many: Vec<Profile> = (0..1000).map(|_| profile("x")).collect();
            owners.learn("gpu", Said::Reply(&Reply::Profiles(many)));
        }
        assert!(owners.len() <= MOST_OWNERS + 1, "{} kept", owners.len());
        owners.learn("gpu", Said::Reply(&Reply::Profiles(vec![here.clone()])));
        assert_eq!(owners.owner(&[here.id.to_string()]), None);
        // This machine's own: the newest kept, the oldest let go past twice the bound.
        for _ in 0..(2 * MOST_OWNERS / 1000 + 1) {
            let many: Vec<Profile> = (0..1000).map(|_| profile("x")).collect();
            owners.learn_here(Said::Reply(&Reply::Profiles(many)));
        }
        assert!(owners.len() <= 3 * MOST_OWNERS, "{} kept", owners.len());
    }

    #[test]
    fn what_the_user_views_is_told_to_the_engine_that_holds_it_and_nothing_to_the_others() {
        let viewing = Viewing { profile_id: Some(ProfileId::new()), task_id: Some(TaskId::new()), focused: true };
        let nothing = Viewing { profile_id: None, task_id: None, focused: true };
        let table: [(Option<&str>, Option<&str>, &Viewing); 5] = [
            (None, None, &viewing),
            (None, Some("gpu"), &nothing),
            (Some("gpu"), Some("gpu"), &viewing),
            (Some("gpu"), None, &nothing),
            (Some("gpu"), Some("build-box"), &nothing),
        ];
        for (holder, engine, expected) in table {
            assert_eq!(&viewing_for(&viewing, holder, engine), expected, "held by {holder:?}, told to {engine:?}");
        }
    }

    #[test]
    fn each_field_another_machine_sends_is_kept_as_the_same_field_of_this_machine_s_agents() {
        use switchboard_api::StorageProblem;
        use switchboard_protocol::capped::CUT_MARK;
        let huge = |bytes: usize| "é".repeat(bytes / 2 + 1);
        // A name of 15 MiB: a name's length.
        let mut named = profile("x");
        named.spec.name = huge(15 << 20);
        named.spec.args = (0..200).map(|i| format!("--arg{i}")).collect();
        let Reply::Profile(kept) = capped_from_host(Reply::Profile(named.clone())).unwrap() else { panic!() };
        assert!(
            kept.spec.name.len() <= MAX_NAME_BYTES && kept.spec.name.ends_with(CUT_MARK),
            "{}",
            kept.spec.name.len()
        );
        assert_eq!(kept.spec.args, named.spec.args, "a command line's words are kept whole");
        assert_eq!(kept.id, named.id);
        // An instruction: as long as this machine takes one.
        let long = task(&ProfileId::new(), &huge(4 << 20));
        let Reply::Tasks(kept) = capped_from_host(Reply::Tasks(vec![long])).unwrap() else { panic!() };
        assert!(kept[0].spec.instruction.len() <= MAX_HOST_INSTRUCTION_BYTES);
        assert!(kept[0].spec.instruction.len() > MAX_TEXT_FIELD_BYTES, "an instruction is not cut as prose");
        // A storage problem's words: prose.
        let problem = EngineEvent::StorageChanged { problem: Some(StorageProblem::Failing { detail: huge(1 << 20) }) };
        let EngineEvent::StorageChanged { problem: Some(StorageProblem::Failing { detail }) } =
            capped_from_host(problem).unwrap()
        else {
            panic!()
        };
        assert!(detail.len() <= MAX_TEXT_FIELD_BYTES);
        // A list of ids: cut at a list's length, still ids.
        let many = EngineEvent::LimitLifted {
            account: huge(1 << 20),
            profiles: (0..5000).map(|_| ProfileId::new()).collect(),
            by_user: false,
            at_reset: false,
        };
        let EngineEvent::LimitLifted { account, profiles, .. } = capped_from_host(many).unwrap() else { panic!() };
        assert_eq!(profiles.len(), MAX_LIST_ITEMS);
        assert!(account.len() <= MAX_NAME_BYTES);
        // A name reads as it is stored: a direction override in it is written out.
        let Reply::Profile(kept) = capped_from_host(Reply::Profile(profile("invoice\u{202e}fdp.exe"))).unwrap() else {
            panic!()
        };
        assert_eq!(kept.spec.name, "invoice\\u{202e}fdp.exe");
        // What fits is as it was.
        let small = Reply::Profiles(vec![profile("builder")]);
        assert_eq!(capped_from_host(small.clone()).unwrap(), small);
        let table: [(&str, usize); 6] = [
            ("name", MAX_NAME_BYTES),
            ("cwd", MAX_PATH_BYTES),
            ("instruction", MAX_HOST_INSTRUCTION_BYTES),
            ("unified", MAX_HOST_DIFF_BYTES),
            ("summary", MAX_HOST_SUMMARY_BYTES),
            ("objective", MAX_TEXT_FIELD_BYTES),
        ];
        for (field, cap) in table {
            assert_eq!(host_field_cap(field), cap, "{field}");
        }
    }

    #[test]
    fn another_machine_s_storage_notice_names_it() {
        use crate::notice::{Action, Notices};
        use switchboard_api::StorageProblem;
        let mut notices = Notices::new(&[], &[], &[], &[], &[]);
        let event =
            EngineEvent::StorageChanged { problem: Some(StorageProblem::Failing { detail: "disk I/O error".into() }) };
        let shown = host_notices(notices.follow(&event, 600, 1), "gpu");
        let titles: Vec<(String, String)> = shown
            .iter()
            .filter_map(|action| match action {
                Action::Show { notice, .. } => Some((notice.title.clone(), notice.body.clone())),
                Action::Close { .. } => None,
            })
            .collect();
        assert_eq!(
            titles,
            [("Switchboard on gpu cannot record its work".to_owned(), "On gpu: disk I/O error".to_owned())]
        );
        // This machine's own says what it always said.
        let mut here = Notices::new(&[], &[], &[], &[], &[]);
        let own = here.follow(&event, 600, 1);
        assert!(own.iter().any(
            |action| matches!(action, Action::Show { notice, .. } if notice.title == "Switchboard cannot record its work")
        ));
    }

    #[test]
    fn only_a_refusal_for_what_an_engine_does_not_hold_sends_the_command_on() {
        assert!(not_held(ErrorCode::TaskNotFound));
        assert!(not_held(ErrorCode::WorktreeNotFound));
        assert!(!not_held(ErrorCode::TaskState));
        assert!(!not_held(ErrorCode::InvalidInput));
        assert!(!not_held(ErrorCode::EngineStopped));
    }
}
