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

use std::collections::HashMap;

use switchboard_core::api::{FlowTarget, Overview, Profile};
use switchboard_core::{Command, EngineEvent, ErrorCode, Reply};
use uuid::Uuid;

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
/// route decided with it.
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
        | C::ListWorktrees {} => Route::Every,
        C::UpdateProfile { profile_id, .. }
        | C::DeleteProfile { profile_id }
        | C::CheckProfile { profile_id: Some(profile_id), .. }
        | C::StartSession { profile_id, .. }
        | C::ListTasks { profile_id: Some(profile_id) }
        | C::SetQueuePaused { profile_id: Some(profile_id), .. }
        | C::StartLoop { profile_id, .. }
        | C::ResumeAgent { profile_id } => ids([profile_id]),
        C::SubmitTask { spec } => ids([&spec.profile_id]),
        C::StopSession { session_id }
        | C::RestartSession { session_id, .. }
        | C::ResumeSession { session_id, .. }
        | C::WriteInput { session_id, .. }
        | C::Resize { session_id, .. }
        | C::SetOutputPaused { session_id, .. }
        | C::ScreenSnapshot { session_id, .. }
        | C::ListEvents { session_id: Some(session_id) }
        | C::KeepDelegate { session_id, .. }
        | C::AgentText { session_id, .. } => ids([session_id]),
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
        | C::ReviewWorktree { worktree, .. } => Route::Owner(vec![worktree.clone()]),
        // A permission request's number is its engine's own: the window names the machine.
        C::CreateProfile { .. }
        | C::CheckProfile { profile_id: None, .. }
        | C::AgentPresets {}
        | C::DetectedAgents {}
        | C::FolderRepository { .. }
        | C::ListFolder { .. }
        | C::SetRepositorySetup { .. }
        | C::DecidePermission { .. } => Route::Chosen,
        C::StorageStatus {} | C::GetSettings {} | C::SetSettings { .. } | C::FlowDiagrams {} | C::HookEvent { .. } => {
            Route::Local
        }
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
        (R::Worktrees(mut a), R::Worktrees(b)) => {
            a.extend(b);
            R::Worktrees(a)
        }
        _ => return None,
    })
}

fn tag(profile: &mut Profile, host: &str) {
    profile.host = Some(host.to_owned());
}

/// Names the machine on the agents an answer of that machine's engine
/// carries, so the window shows where each runs.
pub fn tag_reply(reply: &mut Reply, host: &str) {
    match reply {
        Reply::Profiles(profiles) => profiles.iter_mut().for_each(|profile| tag(profile, host)),
        Reply::Profile(profile) => tag(profile, host),
        _ => {}
    }
}

/// Names the machine on the agent an event of that machine's engine carries.
pub fn tag_event(event: &mut EngineEvent, host: &str) {
    if let EngineEvent::ProfileSaved { profile } = event {
        tag(profile, host);
    }
}

/// How many ids [`Owners`] keeps before it starts again: a day of work
/// names far fewer, and a window open for weeks does not grow without end
/// (ids it forgot are learnt again from the next lists and events).
pub const MOST_OWNERS: usize = 100_000;

/// Which machine holds each thing the window has heard of from another
/// machine's engine (this machine's are not kept: an id no other holds is
/// this machine's).
#[derive(Debug, Default)]
pub struct Owners {
    hosts: Vec<String>,
    owner: HashMap<u128, u16>,
}

impl Owners {
    /// Every id in what `host`'s engine said (an answer or an event) is held there.
    pub fn learn(&mut self, host: &str, said: &impl serde::Serialize) {
        let Ok(value) = serde_json::to_value(said) else { return };
        let index = match self.hosts.iter().position(|known| known == host) {
            Some(index) => index,
            None => {
                self.hosts.push(host.to_owned());
                self.hosts.len() - 1
            }
        };
        let Ok(index) = u16::try_from(index) else { return };
        let mut found = Vec::new();
        uuids(&value, &mut found);
        if self.owner.len() + found.len() > MOST_OWNERS {
            self.owner.clear();
        }
        for id in found {
            self.owner.insert(id, index);
        }
    }

    /// The machine that holds the first of `ids` any machine is known to
    /// hold; none: this one.
    pub fn owner(&self, ids: &[String]) -> Option<&str> {
        ids.iter()
            .filter_map(|id| Uuid::try_parse(id).ok())
            .find_map(|id| self.owner.get(&id.as_u128()))
            .map(|&index| self.hosts[usize::from(index)].as_str())
    }

    /// The machine left the window: what it held is no longer routed to it.
    pub fn forget(&mut self, host: &str) {
        if let Some(index) = self.hosts.iter().position(|known| known == host) {
            let index = u16::try_from(index).unwrap_or(u16::MAX);
            self.owner.retain(|_, owner| *owner != index);
        }
    }

    pub fn len(&self) -> usize {
        self.owner.len()
    }

    pub fn is_empty(&self) -> bool {
        self.owner.is_empty()
    }
}

fn uuids(value: &serde_json::Value, found: &mut Vec<u128>) {
    match value {
        serde_json::Value::String(text) if text.len() == 36 => {
            if let Ok(id) = Uuid::try_parse(text) {
                found.push(id.as_u128());
            }
        }
        serde_json::Value::Array(items) => items.iter().for_each(|item| uuids(item, found)),
        serde_json::Value::Object(fields) => fields.values().for_each(|field| uuids(field, found)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use switchboard_core::api::{SearchHit, TaskSpec};
    use switchboard_protocol::{ProfileId, SessionId, TaskId};

    fn profile(name: &str) -> Profile {
        let spec = switchboard_core::api::ProfileSpec { name: name.into(), ..Default::default() };
        Profile { id: ProfileId::new(), spec, created_at: 1, host: None }
    }

    #[test]
    fn each_command_goes_where_what_it_names_is() {
        let agent = ProfileId::new();
        let session = SessionId::new();
        let task = TaskId::new();
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
    fn an_agent_from_another_machine_carries_its_name() {
        let mut reply = Reply::Profiles(vec![profile("a"), profile("b")]);
        tag_reply(&mut reply, "build-box");
        let Reply::Profiles(profiles) = reply else { panic!() };
        assert!(profiles.iter().all(|profile| profile.host.as_deref() == Some("build-box")));
        let mut event = EngineEvent::ProfileSaved { profile: profile("c") };
        tag_event(&mut event, "gpu");
        let EngineEvent::ProfileSaved { profile } = event else { panic!() };
        assert_eq!(profile.host.as_deref(), Some("gpu"));
        // This machine's own answers carry no name.
        assert_eq!(self::profile("d").host, None);
    }

    #[test]
    fn a_thing_is_routed_to_the_machine_that_told_of_it() {
        let mut owners = Owners::default();
        let (theirs, other, unknown) = (profile("theirs"), profile("other"), Uuid::new_v4().to_string());
        owners.learn("build-box", &Reply::Profiles(vec![theirs.clone()]));
        owners.learn("gpu", &EngineEvent::ProfileSaved { profile: other.clone() });
        assert_eq!(owners.owner(&[theirs.id.to_string()]), Some("build-box"));
        assert_eq!(owners.owner(&[other.id.to_string()]), Some("gpu"));
        // Never heard of from another machine: this machine's.
        assert_eq!(owners.owner(std::slice::from_ref(&unknown)), None);
        assert_eq!(owners.owner(&["not an id".into()]), None);
        owners.forget("build-box");
        assert_eq!(owners.owner(&[theirs.id.to_string()]), None);
        assert_eq!(owners.owner(&[other.id.to_string()]), Some("gpu"));
    }

    #[test]
    fn the_owners_kept_are_bounded() {
        let mut owners = Owners::default();
        for _ in 0..(MOST_OWNERS / 1000 + 1) {
            let many: Vec<String> = (0..1000).map(|_| Uuid::new_v4().to_string()).collect();
            owners.learn("gpu", &many);
        }
        assert!(owners.len() <= MOST_OWNERS, "{} kept", owners.len());
        assert!(!owners.is_empty());
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
