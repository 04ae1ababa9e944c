//! Which engine holds what the window names, learnt from each engine's answers and events, and whose a thing is.

use super::caps::capped_from_host;
use std::collections::HashMap;
use switchboard_api::{EngineEvent, Reply};
use switchboard_api::{Profile, Restarted, Submitted};
use uuid::Uuid;

pub(super) fn tag(profile: &mut Profile, host: &str) {
    profile.host = Some(host.to_owned());
}

/// Names the machine on the agents an answer of that machine's engine
/// carries, so the window shows where each runs.
pub fn tag_reply(reply: &mut Reply, host: &str) {
    match reply {
        Reply::Profiles(profiles) => profiles.iter_mut().for_each(|profile| tag(profile, host)),
        Reply::Profile(profile) => tag(profile, host),
        Reply::PermissionRequests(requests) => requests.iter_mut().for_each(|request| asked_on(request, host)),
        _ => {}
    }
}

/// Names the machine on the agent (or the permission request) an event of
/// that machine's engine carries.
pub fn tag_event(event: &mut EngineEvent, host: &str) {
    match event {
        EngineEvent::ProfileSaved { profile } => tag(profile, host),
        EngineEvent::PermissionRequested { request } => asked_on(request, host),
        _ => {}
    }
}

/// A permission request is answered on the machine that asked, whatever
/// the window knows of its session (a request's number is its engine's own).
pub(super) fn asked_on(request: &mut switchboard_api::PermissionRequest, host: &str) {
    request.host = Some(host.to_owned());
}

/// What an engine said: an answer, or an event.
#[derive(Debug, Clone, Copy)]
pub enum Said<'a> {
    Reply(&'a Reply),
    Event(&'a EngineEvent),
}

pub(super) fn id(id: &impl ToString) -> Option<u128> {
    Uuid::try_parse(&id.to_string()).ok().map(|id| id.as_u128())
}

/// The ids of the records `said` is about, which its engine holds: a
/// profile's, a session's, a task's, a signal's, a loop's, a worktree's own
/// id. Never an id a record merely mentions (a session's agent, a signal's
/// task, a task's instruction, a search hit, a delegation): another
/// machine's engine may name anything there, this machine's ids among
/// them, and what it names is not what it holds.
pub fn held_ids(said: Said<'_>) -> Vec<u128> {
    use EngineEvent as E;
    use Reply as R;
    let ids: Vec<Option<u128>> = match said {
        Said::Reply(reply) => match reply {
            R::Profiles(profiles) => profiles.iter().map(|profile| id(&profile.id)).collect(),
            R::Profile(profile) => vec![id(&profile.id)],
            R::Sessions(sessions) => sessions.iter().map(|session| id(&session.id)).collect(),
            R::Session(session) | R::Restarted(Restarted::Now { session }) => vec![id(&session.id)],
            R::Tasks(tasks) => tasks.iter().map(|task| id(&task.id)).collect(),
            R::Task(task) | R::Submitted(Submitted { task, .. }) => vec![id(&task.id)],
            R::Signals(signals) => signals.iter().map(|signal| id(&signal.id)).collect(),
            R::Signal(signal) => vec![id(&signal.id)],
            R::Loops(loops) => loops.iter().map(|info| id(&info.id)).collect(),
            R::Loop(info) => vec![id(&info.id)],
            R::Automations(automations) => automations.iter().map(|a| id(&a.id)).collect(),
            R::Automation(automation) => vec![id(&automation.id)],
            // A worktree is named by its task's or loop's id.
            R::Worktrees(worktrees) => worktrees.iter().map(|worktree| id(&worktree.task)).collect(),
            R::Unit
            | R::Problems(_)
            | R::Tool(_)
            | R::Cost(_)
            | R::Presets(_)
            | R::DetectedAgents(_)
            | R::Snapshot(_)
            | R::Events(_)
            | R::Queues(_)
            | R::AgentStatus(_)
            | R::Permission(_)
            | R::PermissionRequests(_)
            | R::Storage(_)
            | R::Settings(_)
            | R::Delegations(_)
            | R::Delegation(_)
            | R::Iterations(_)
            | R::LoopFiles(_)
            | R::Diagrams(_)
            | R::FlowView(_)
            | R::FlowEvents(_)
            | R::Overview(_)
            | R::SearchHits(_)
            | R::Text(_)
            | R::Restarted(Restarted::AfterTask { .. })
            | R::Attention(_)
            | R::Limits(_)
            | R::Usage(_)
            | R::FolderRepository(_)
            | R::FolderListing(_)
            | R::Commit(_)
            | R::WorktreeDiff(_)
            | R::Merge(_)
            | R::Discard(_)
            | R::Rebase(_)
            | R::Web(_)
            | R::Pairing(_)
            | R::Devices(_)
            | R::Device(_) => Vec::new(),
        },
        Said::Event(event) => match event {
            E::ProfileSaved { profile } => vec![id(&profile.id)],
            E::SessionChanged { session } => vec![id(&session.id)],
            E::TaskChanged { task } => vec![id(&task.id)],
            E::SignalChanged { signal } => vec![id(&signal.id)],
            E::LoopChanged { info } => vec![id(&info.id)],
            E::AutomationChanged { automation } => vec![id(&automation.id)],
            E::WorktreeChanged { worktree } => vec![id(&worktree.task)],
            E::ProfileDeleted { .. }
            | E::AutomationRemoved { .. }
            | E::QueueChanged { .. }
            | E::DelegationChanged { .. }
            | E::AgentStatusChanged { .. }
            | E::PermissionRequested { .. }
            | E::PermissionClosed { .. }
            | E::StorageChanged { .. }
            | E::SignalsFlooding { .. }
            | E::SettingsChanged { .. }
            | E::AttentionChanged { .. }
            | E::LimitChanged { .. }
            | E::UsageChanged { .. }
            | E::UsageWarning { .. }
            | E::LimitLifted { .. }
            | E::WebChanged { .. }
            | E::DevicesChanged { .. }
            | E::Logged { .. } => Vec::new(),
        },
    };
    ids.into_iter().flatten().collect()
}

/// Who holds an id, as far as the window knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Holder {
    /// This machine's engine (the window's own).
    Here,
    /// Another machine's, by its place in [`Owners`]' list of machines.
    There(u16),
}

/// Who holds an id once `claimant` says it does, given who was known to:
/// this machine's engine always (what it says is the truth about this
/// machine, and what it holds no other machine may take); another machine
/// only for an id no one was known to hold, or that it held already (the
/// first machine to name an id as its own keeps it).
pub fn holder_after(known: Option<Holder>, claimant: Holder) -> Holder {
    match (known, claimant) {
        (_, Holder::Here) | (Some(Holder::Here), _) => Holder::Here,
        (Some(there @ Holder::There(_)), Holder::There(_)) => there,
        (None, there) => there,
    }
}

/// Why the window does not keep what another machine's engine said.
#[derive(Debug, thiserror::Error)]
pub enum NotKept {
    /// A field cut at its cap no longer reads as what it was.
    #[error("it could not be kept within its caps: {0}")]
    Capped(#[from] serde_json::Error),
    /// A record of its own carries an id this machine, or a machine heard of
    /// first, holds: a forgery (a list keeps its other records).
    #[error("it tells of a record under an id another machine holds")]
    Forged,
}

/// Another machine's answer as the window keeps it: each field at its cap
/// ([`capped_from_host`]), without the records it says it holds under an id
/// this machine or a machine heard of first holds ([`Owners::claimed`]),
/// what it holds learnt from it ([`Owners::learn`]), and the machine named
/// on its agents ([`tag_reply`]).
pub fn heard_from_host(owners: &mut Owners, host: &str, reply: Reply) -> Result<Reply, NotKept> {
    let mut reply = capped_from_host(reply)?;
    match &mut reply {
        Reply::Profiles(profiles) => profiles.retain(|profile| theirs(owners, host, profile)),
        Reply::Sessions(sessions) => sessions.retain(|session| theirs(owners, host, session)),
        Reply::Tasks(tasks) => tasks.retain(|task| theirs(owners, host, task)),
        Reply::Signals(signals) => signals.retain(|signal| theirs(owners, host, signal)),
        Reply::Loops(loops) => loops.retain(|info| theirs(owners, host, info)),
        Reply::Worktrees(worktrees) => worktrees.retain(|worktree| theirs(owners, host, worktree)),
        Reply::Queues(queues) => queues.retain(|queue| theirs(owners, host, queue)),
        Reply::AgentStatus(statuses) => statuses.retain(|status| theirs(owners, host, status)),
        Reply::Attention(attention) => attention.retain(|one| theirs(owners, host, one)),
        Reply::PermissionRequests(requests) => requests.retain(|request| theirs(owners, host, request)),
        single => {
            if about_ids(single).into_iter().any(|id| owners.claimed(host, id)) {
                return Err(NotKept::Forged);
            }
        }
    }
    owners.learn(host, Said::Reply(&reply));
    tag_reply(&mut reply, host);
    Ok(reply)
}

/// Another machine's event as the window keeps it, as
/// [`heard_from_host`] keeps an answer.
pub fn event_from_host(owners: &mut Owners, host: &str, event: EngineEvent) -> Result<EngineEvent, NotKept> {
    let mut event = capped_from_host(event)?;
    // Its own record, or news about one of its own: never about what another machine holds (a
    // host deleting, pausing or flagging this machine's agent in the window).
    if about_ids(&event).into_iter().any(|id| owners.claimed(host, id)) {
        return Err(NotKept::Forged);
    }
    owners.learn(host, Said::Event(&event));
    tag_event(&mut event, host);
    Ok(event)
}

/// The fields of a record whose text is someone's words, never a
/// reference: an id written there (a task's instruction naming an agent)
/// is not what the record is about.
pub(super) const PROSE_FIELDS: [&str; 17] = [
    "name",
    "title",
    "instruction",
    "context",
    "specs",
    "instructions",
    "goals",
    "summary",
    "text",
    "message",
    "detail",
    "said",
    "words",
    "reason",
    "prompt",
    "content",
    "screen",
];

/// Every id a record, answer or event refers to (its own and the ones it is
/// about: an agent's, a session's, a task's), pure: each field outside
/// `PROSE_FIELDS` whose whole text is a UUID.
pub fn about_ids(said: &impl serde::Serialize) -> Vec<u128> {
    fn walk(value: &serde_json::Value, found: &mut Vec<u128>) {
        match value {
            serde_json::Value::String(text) if text.len() == 36 => {
                if let Ok(id) = Uuid::try_parse(text) {
                    found.push(id.as_u128());
                }
            }
            serde_json::Value::Array(items) => items.iter().for_each(|item| walk(item, found)),
            serde_json::Value::Object(fields) => fields
                .iter()
                .filter(|(name, _)| !PROSE_FIELDS.contains(&name.as_str()))
                .for_each(|(_, field)| walk(field, found)),
            _ => {}
        }
    }
    let mut found = Vec::new();
    if let Ok(value) = serde_json::to_value(said) {
        walk(&value, &mut found);
    }
    found
}

/// Whether `record` is `host`'s own to tell of: about nothing another
/// machine holds.
pub(super) fn theirs(owners: &Owners, host: &str, record: &impl serde::Serialize) -> bool {
    about_ids(record).into_iter().all(|id| !owners.claimed(host, id))
}

/// The desktop's actions on a notice of another machine's engine, as the
/// desktop shows them: a notice about that machine's Switchboard itself
/// (its data cannot be written) names the machine, so it never reads as
/// this computer's. Notices about an agent name the agent, whose row in the
/// window names its machine.
pub fn host_notices(actions: Vec<crate::notice::Action>, host: &str) -> Vec<crate::notice::Action> {
    use crate::notice::{Action, NoticeKind};
    actions
        .into_iter()
        .map(|action| match action {
            Action::Show { slot, mut notice, urgency, lasting } => {
                if notice.kind == NoticeKind::Storage {
                    notice.title = format!("Switchboard on {host} cannot record its work");
                    notice.body = format!("On {host}: {}", notice.body);
                }
                Action::Show { slot, notice, urgency, lasting }
            }
            close @ Action::Close { .. } => close,
        })
        .collect()
}

/// How many ids [`Owners`] keeps of each kind (this machine's, and other
/// machines') before the oldest are let go: a day of work names far
/// fewer, and a window open for weeks does not grow without end (ids it
/// forgot are learnt again from the next lists and events).
pub const MOST_OWNERS: usize = 100_000;

/// Which machine holds each thing the window has heard of, learnt only from
/// the ids of the records each engine says it holds ([`held_ids`]).
///
/// This machine's engine is heard first: until the window's own engine has
/// told what it holds ([`Owners::here_known`]), nothing another machine
/// claims is believed, so no machine can take one of this machine's agents
/// by naming its id before this machine's engine has. An id no machine is
/// known to hold goes to this machine's engine first ([`Owners::owner`]
/// says none).
#[derive(Debug, Default)]
pub struct Owners {
    hosts: Vec<String>,
    /// This machine's ids, the newest half and the half before it: an id
    /// of this machine's is let go only after [`MOST_OWNERS`] newer ones,
    /// never because another machine named many.
    here: [std::collections::HashSet<u128>; 2],
    there: HashMap<u128, u16>,
    here_known: bool,
}

impl Owners {
    /// What this machine's engine said: the records in it are this
    /// machine's, whoever claimed them before.
    pub fn learn_here(&mut self, said: Said<'_>) {
        for id in held_ids(said) {
            self.there.remove(&id);
            if self.here[0].contains(&id) {
                continue;
            }
            if self.here[0].len() >= MOST_OWNERS {
                self.here[1] = std::mem::take(&mut self.here[0]);
            }
            self.here[0].insert(id);
        }
    }

    /// This machine's engine has told the window what it holds (its lists
    /// at connection): what other machines say is believed from now on.
    pub fn here_told(&mut self) {
        self.here_known = true;
    }

    /// Whether this machine's engine has told what it holds.
    pub fn here_known(&self) -> bool {
        self.here_known
    }

    /// What `host`'s engine said: the records in it are held there, unless
    /// this machine or a machine heard of first holds them.
    pub fn learn(&mut self, host: &str, said: Said<'_>) {
        if !self.here_known {
            return;
        }
        let index = match self.hosts.iter().position(|known| known == host) {
            Some(index) => index,
            None => {
                self.hosts.push(host.to_owned());
                self.hosts.len() - 1
            }
        };
        let Ok(index) = u16::try_from(index) else { return };
        for id in held_ids(said) {
            let known = self.holder(id);
            // Named before: its holder stays (see `holder_after`).
            if known.is_some() || holder_after(known, Holder::There(index)) != Holder::There(index) {
                continue;
            }
            if self.there.len() >= MOST_OWNERS {
                // Other machines' ids only: one forgotten goes to this
                // machine's engine first, then to each machine in turn.
                self.there.clear();
            }
            self.there.insert(id, index);
        }
    }

    /// Whether `id` is held by this machine, or by a machine other than
    /// `host` (a claim `host` makes on it is not believed).
    pub fn claimed(&self, host: &str, id: u128) -> bool {
        match self.holder(id) {
            None => false,
            Some(Holder::Here) => true,
            Some(Holder::There(index)) => self.hosts.get(usize::from(index)).is_none_or(|holder| holder != host),
        }
    }

    fn holder(&self, id: u128) -> Option<Holder> {
        if self.here.iter().any(|here| here.contains(&id)) {
            return Some(Holder::Here);
        }
        self.there.get(&id).map(|&index| Holder::There(index))
    }

    /// The other machine that holds the first of `ids` any machine is
    /// known to hold; none: this one (or no machine is known to).
    pub fn owner(&self, ids: &[String]) -> Option<&str> {
        let held = ids.iter().filter_map(|id| Uuid::try_parse(id).ok()).find_map(|id| self.holder(id.as_u128()))?;
        match held {
            Holder::Here => None,
            Holder::There(index) => self.hosts.get(usize::from(index)).map(String::as_str),
        }
    }

    /// The machine left the window: what it held is no longer routed to it.
    pub fn forget(&mut self, host: &str) {
        if let Some(index) = self.hosts.iter().position(|known| known == host) {
            let index = u16::try_from(index).unwrap_or(u16::MAX);
            self.there.retain(|_, owner| *owner != index);
        }
    }

    /// How many ids are known to be held (by any machine).
    pub fn len(&self) -> usize {
        self.here.iter().map(|here| here.len()).sum::<usize>() + self.there.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
