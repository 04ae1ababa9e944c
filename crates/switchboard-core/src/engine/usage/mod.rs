//! The usage desk: which agent files are followed for token usage (it owns
//! the [`Follower`](crate::usage::Follower)), and each answer read counted
//! to its task and priced. What that means for a task (its record told
//! anew, its budget) is the task desk's: it gets a `Follow::UsageCounted`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::time::Duration;

use switchboard_api::{UNKNOWN_MODEL, now};
use switchboard_protocol::usage::Transcript;
use switchboard_protocol::{AgentKind, SessionId, TaskId};
use tokio::sync::mpsc;
use tokio::time::Instant;

pub(crate) mod report;

use super::context::{Ctx, Follow};
use crate::store::UsageRow;
use crate::usage::{Followed, Follower, UsageRead};

/// How long a file is still followed after its session ended: Claude Code
/// writes its conversation late (recorded: seconds after the turn).
pub const AFTER_END: Duration = Duration::from_secs(60);

/// Most files followed for one session (its own and its team's).
const MAX_FILES_PER_SESSION: usize = 64;

pub(crate) struct UsageDesk {
    follower: Follower,
    /// Files whose session ended, read until then.
    ending: BTreeMap<String, Instant>,
    /// Each file followed: its session, and whether it is its team's.
    files: BTreeMap<String, (SessionId, bool)>,
}

impl UsageDesk {
    pub fn new(reads: mpsc::Sender<UsageRead>) -> UsageDesk {
        UsageDesk { follower: Follower::start(reads), ending: BTreeMap::new(), files: BTreeMap::new() }
    }

    /// Follows again what was followed when the engine stopped: the
    /// sessions have ended, so each is read to its end a while longer.
    pub fn recover(&mut self, cx: &Ctx) {
        let sources = match cx.store.followed_usage() {
            Ok(sources) => sources,
            Err(error) => {
                tracing::error!(%error, "the files followed for usage could not be read from the store");
                return;
            }
        };
        for source in sources {
            let Some(root) = cli_folder_of(cx, &source.session_id, source.kind) else { continue };
            self.files.insert(source.path.clone(), (source.session_id.clone(), source.team));
            self.ending.insert(source.path.clone(), Instant::now() + AFTER_END);
            self.follower.follow(Followed {
                path: source.path,
                root,
                kind: source.kind,
                offset: source.offset,
                reading: source.reading,
            });
        }
    }

    /// A session's hooks named a file it (`team`: a teammate or sub-agent of
    /// it) writes its conversation to.
    pub fn follow(&mut self, cx: &Ctx, session: &SessionId, path: &str, team: bool) {
        if self.files.contains_key(path) {
            return;
        }
        if self.files.values().filter(|(s, _)| s == session).count() >= MAX_FILES_PER_SESSION {
            tracing::warn!(%session, path, "a session names too many conversation files: not followed");
            return;
        }
        let Some(kind) = kind_of(cx, session) else { return };
        let Some(root) = cli_folder_of(cx, session, kind) else { return };
        let source = match cx.store.follow_usage(path, session, kind, team) {
            Ok(source) => source,
            Err(error) => {
                tracing::warn!(%error, path, "a conversation file could not be noted for its usage");
                return;
            }
        };
        self.files.insert(path.to_owned(), (session.clone(), team));
        self.follower.follow(Followed {
            path: source.path,
            root,
            kind,
            offset: source.offset,
            reading: source.reading,
        });
    }

    /// A turn ended somewhere: its usage may be written now.
    pub fn look(&self) {
        self.follower.look();
    }

    /// The session ended: its files are read a while longer, then let go.
    pub fn session_ended(&mut self, session: &SessionId) {
        let until = Instant::now() + AFTER_END;
        for (path, _) in self.files.iter().filter(|(_, (s, _))| s == session) {
            self.ending.insert(path.clone(), until);
        }
        self.follower.look();
    }

    /// Lets go of the files read long enough after their session ended.
    pub fn tick(&mut self, cx: &Ctx, now: Instant) {
        let due: Vec<String> = self.ending.iter().filter(|(_, at)| **at <= now).map(|(p, _)| p.clone()).collect();
        for path in due {
            self.ending.remove(&path);
            self.files.remove(&path);
            self.follower.unfollow(&path);
            if let Err(error) = cx.store.usage_done(&path) {
                tracing::warn!(%error, path, "a conversation file read to its end could not be noted");
            }
        }
    }

    /// What the follower read: each answer counted to the task it ran in,
    /// priced, and stored with the file's new offset.
    pub fn on_read(&mut self, cx: &mut Ctx, read: UsageRead) {
        let Some((session, team)) = self.files.get(&read.path).cloned() else { return };
        if let Some(problem) = &read.problem {
            tracing::warn!(path = read.path, problem, "reading an agent's conversation file for its usage");
        }
        let prices = cx.store.settings().map(|s| s.prices).unwrap_or_default();
        let profile = cx
            .sessions
            .get(&session)
            .map(|e| e.info.profile_id.clone())
            .or_else(|| cx.store.get_session(&session).ok().flatten().map(|s| s.profile_id));
        let Some(profile) = profile else { return };
        let list_price = pays_by_plan(cx, &session, &profile);
        let mut rows = Vec::with_capacity(read.answers.len());
        let mut tasks = BTreeSet::new();
        // A delegate's session has no task of its own: its work counts to
        // the task its requester was at, as that task's team's.
        let delegation = cx.store.delegation_of(&session).ok().flatten();
        let requester = delegation.as_ref().map(|d| d.requester_session.clone());
        for answer in read.answers {
            let at = answer.at.unwrap_or_else(now);
            let own = cx.store.task_at(&session, at).ok().flatten().map(|(task, _)| task);
            let (task, team) = match (own, &requester) {
                (Some(task), _) => (Some(task), team),
                (None, Some(requester)) => (cx.store.task_at(requester, at).ok().flatten().map(|(task, _)| task), true),
                (None, None) => (None, team),
            };
            tasks.extend(task.clone());
            let cost = prices.cost(answer.model.as_deref(), &answer.tokens);
            rows.push(UsageRow {
                path: read.path.clone(),
                key: answer.key,
                session_id: session.clone(),
                profile_id: profile.clone(),
                task_id: task,
                team,
                model: answer.model.unwrap_or_else(|| UNKNOWN_MODEL.to_owned()),
                at,
                tokens: answer.tokens,
                cost,
                list_price,
            });
        }
        if let Err(error) =
            cx.store.record_usage(&read.path, read.offset, &read.reading, read.problem.as_deref(), &rows)
        {
            tracing::warn!(%error, "usage read from an agent's file could not be stored; it is read again later");
            return;
        }
        // A delegate's record says what it used, told anew.
        if !rows.is_empty()
            && delegation.is_some()
            && let Ok(Some(delegation)) = cx.store.delegation_of(&session)
        {
            cx.emit(switchboard_api::EngineEvent::DelegationChanged { delegation });
        }
        if !tasks.is_empty() || !rows.is_empty() {
            cx.follow(Follow::UsageCounted { tasks: tasks.into_iter().collect::<Vec<TaskId>>(), profile });
        }
    }
}

fn kind_of(cx: &Ctx, session: &SessionId) -> Option<Transcript> {
    let profile = cx.sessions.get(session).map(|e| e.info.profile_id.clone())?;
    match cx.profile(&profile).ok()?.spec.kind {
        AgentKind::ClaudeCode => Some(Transcript::ClaudeCode),
        AgentKind::Codex => Some(Transcript::Codex),
        AgentKind::Generic => None,
    }
}

/// The CLI's own folder for the session's agent, as it names it: Claude
/// Code's `CLAUDE_CONFIG_DIR`, Codex's `CODEX_HOME`, else its folder in the
/// home: the profile's environment first, then the engine's.
fn cli_folder_of(cx: &Ctx, session: &SessionId, kind: Transcript) -> Option<PathBuf> {
    let profile = cx
        .sessions
        .get(session)
        .map(|e| e.info.profile_id.clone())
        .or_else(|| cx.store.get_session(session).ok().flatten().map(|s| s.profile_id))?;
    let spec = cx.profile(&profile).ok()?.spec;
    let var = |name: &str| spec.env.get(name).cloned().or_else(|| std::env::var(name).ok()).filter(|v| !v.is_empty());
    let (own, folder) = match kind {
        Transcript::ClaudeCode => ("CLAUDE_CONFIG_DIR", ".claude"),
        Transcript::Codex => ("CODEX_HOME", ".codex"),
    };
    var(own).map(PathBuf::from).or_else(|| var("HOME").map(|home| PathBuf::from(home).join(folder)))
}

/// Whether the agent's account pays by subscription: its costs are then
/// list-price equivalents. Claude Code tells plan windows (its status line's
/// `rate_limits`) only for a subscription's account.
/// Codex says its sign-in mode in `auth.json`.
fn pays_by_plan(cx: &Ctx, session: &SessionId, profile: &switchboard_protocol::ProfileId) -> bool {
    match kind_of(cx, session) {
        Some(Transcript::Codex) => cli_folder_of(cx, session, Transcript::Codex)
            .and_then(|home| crate::workspace::Workspace::open(&home).ok())
            .and_then(|home| home.read_if_there("auth.json", 64 * 1024).ok().flatten())
            .is_some_and(|auth| crate::usage::codex_signed_in_with_plan(&auth.text)),
        _ => {
            let Some(account) = cx.account_of(profile) else { return false };
            cx.usage.get(&account).is_some_and(|usage| !usage.windows.is_empty())
        }
    }
}
