//! The commands the engine takes, their replies, and errors as they cross the wire.

use serde::{Deserialize, Serialize};
#[cfg(feature = "ts")]
use ts_rs::TS;

use super::event::{AgentStatusInfo, LogEntry, PermissionDecision, PermissionRequest};
use super::profile::{AgentPreset, Profile, ProfileProblem, ScreenSnapshot, SessionInfo};
use super::signal::SignalRecord;
use super::task::{QueueStatus, Submitted, TaskRecord};

/// The engine's commands, each listed once: this list makes the wire
/// vocabulary ([`Command`]), the typed methods of `EngineHandle`, the
/// engine's dispatch of wire commands, and the window's typed calls in
/// TypeScript (`ui/src/lib/bindings.ts`).
///
/// An entry: who may send it (`window`: the app's window and scripts,
/// agents' processes too; `user`: the window and the user's own command line,
/// never a process of an agent, for the decisions that are the user's;
/// `local`: as `user`, but never a paired browser either, for what only the
/// user at this machine does, such as pairing a browser; `socket`: scripts
/// and hooks only; `script`: the user's scripts only, not the window nor
/// agents), whether it only `reads` or `acts` (changes anything: a device
/// paired read-only sends only those that read), whether the engine answers `now` or
/// `later` (it keeps the responder until, say, a process has ended), the
/// method and variant names, the arguments, and what it answers with. The
/// engine implements each as a method of the same name on its state: for
/// `now`, `fn(&mut self, args…) -> Result<T, EngineError>`; for `later`,
/// `fn(&mut self, args…, reply: Responder<T>)`.
#[macro_export]
macro_rules! engine_commands {
    ($then:ident) => {
        $then! {
            window reads now list_profiles / ListProfiles () -> Vec<$crate::Profile>;
            window acts now create_profile / CreateProfile (spec: $crate::ProfileSpec) -> $crate::Profile;
            user acts now update_profile / UpdateProfile (
                profile_id: $crate::protocol::ProfileId,
                spec: $crate::ProfileSpec,
            ) -> $crate::Profile;
            user acts now delete_profile / DeleteProfile (profile_id: $crate::protocol::ProfileId) -> ();
            /// Every problem `create_profile` (no `profile_id`) or `update_profile` would find with
            /// the spec, without saving anything; none: it would be saved.
            window reads now check_profile / CheckProfile (
                profile_id: Option<$crate::protocol::ProfileId>,
                spec: $crate::ProfileSpec,
            ) -> Vec<$crate::ProfileProblem>;
            /// Settings that work for each agent CLI the app knows (Claude Code, Codex).
            window reads now agent_presets / AgentPresets () -> Vec<$crate::AgentPreset>;
            /// Each preset's CLI as found on `PATH`, with its version (run with a time limit),
            /// or missing: what the window offers as one-click agents.
            window reads later detected_agents / DetectedAgents () -> Vec<$crate::DetectedAgent>;
            /// Oldest first.
            window reads now list_sessions / ListSessions () -> Vec<$crate::SessionInfo>;
            window acts now start_session / StartSession (
                profile_id: $crate::protocol::ProfileId,
                size: $crate::protocol::TermSize,
            ) -> $crate::SessionInfo;
            /// Stops the session's whole process tree; answers once it is gone, with its final state.
            window acts later stop_session / StopSession (session_id: $crate::protocol::SessionId) -> $crate::SessionInfo;
            /// Stops the session if it runs, then starts a new one of its profile. A task at work in
            /// it goes as `running_task` says (refused without one while a task runs): back at the
            /// head of its queue, finished first (the session then restarts after it), or cancelled.
            window acts later restart_session / RestartSession (
                session_id: $crate::protocol::SessionId,
                size: $crate::protocol::TermSize,
                running_task: Option<$crate::RestartTask>,
            ) -> $crate::Restarted;
            /// Starts a new session of an ended session's profile that continues the agent's
            /// conversation (Claude Code: `--resume`).
            window acts now resume_session / ResumeSession (
                session_id: $crate::protocol::SessionId,
                size: $crate::protocol::TermSize,
            ) -> $crate::SessionInfo;
            window acts later write_input / WriteInput (session_id: $crate::protocol::SessionId, data: String) -> ();
            window acts later resize / Resize (
                session_id: $crate::protocol::SessionId,
                size: $crate::protocol::TermSize,
            ) -> ();
            /// Flow control from a view: while paused the engine stops reading the agent's PTY,
            /// so a flooding agent blocks instead of the view.
            window reads now set_output_paused / SetOutputPaused (
                session_id: $crate::protocol::SessionId,
                paused: bool,
            ) -> ();
            /// The screen as text and this many recent lines (the dashboard's previews).
            window reads later screen_snapshot / ScreenSnapshot (
                session_id: $crate::protocol::SessionId,
                recent_lines: u32,
            ) -> $crate::ScreenSnapshot;
            /// The event log, of one session or all.
            socket reads now list_events / ListEvents (
                session_id: Option<$crate::protocol::SessionId>,
            ) -> Vec<$crate::LogEntry>;
            /// Queues a task for its agent; it starts at once when the agent is idle and its
            /// queue runs.
            window acts now submit_task / SubmitTask (spec: $crate::TaskSpec) -> $crate::Submitted;
            /// Queued and running tasks, and the most recent finished ones; of one agent, or of all.
            window reads now list_tasks / ListTasks (
                profile_id: Option<$crate::protocol::ProfileId>,
            ) -> Vec<$crate::TaskRecord>;
            window reads now get_task / GetTask (task_id: $crate::protocol::TaskId) -> $crate::TaskRecord;
            /// A queued task leaves the queue; a running one is interrupted. Both end cancelled.
            window acts now cancel_task / CancelTask (task_id: $crate::protocol::TaskId) -> $crate::TaskRecord;
            /// Moves a queued task to this 0-based place in its agent's queue (as listed: urgent
            /// first). Landing among the other priority's tasks takes that priority.
            window acts now move_task / MoveTask (task_id: $crate::protocol::TaskId, to_index: u32) -> ();
            /// Puts an interrupted, failed, timed-out or cancelled task back at the front of its
            /// agent's queue.
            window acts now requeue_task / RequeueTask (task_id: $crate::protocol::TaskId) -> $crate::TaskRecord;
            /// Types a task its agent took from the queue but is not ready for now, whatever its
            /// readiness says (the user sees its prompt where its ready pattern does not).
            user acts now type_task_now / TypeTaskNow (task_id: $crate::protocol::TaskId) -> $crate::TaskRecord;
            /// Renames a task (an empty title gives it its instruction's first line back) and, while
            /// it waits in its queue, changes its instruction.
            window acts now edit_task / EditTask (
                task_id: $crate::protocol::TaskId,
                title: Option<String>,
                instruction: Option<String>,
            ) -> $crate::TaskRecord;
            /// Where a file a task returned is now (absolute), checked again: still inside its
            /// agent's workspace, symlinks resolved, a regular file. The window's "Open" and
            /// "Show in folder" ask it (through the shell, which opens it).
            window reads now artifact_path / ArtifactPath (task_id: $crate::protocol::TaskId, path: String) -> String;
            /// Runs a finished task again, as a new task at the end of its agent's queue.
            window acts now rerun_task / RerunTask (task_id: $crate::protocol::TaskId) -> $crate::Submitted;
            /// Pauses or resumes one agent's queue, or every queue.
            window acts now set_queue_paused / SetQueuePaused (
                profile_id: Option<$crate::protocol::ProfileId>,
                paused: bool,
            ) -> ();
            window reads now list_queues / ListQueues () -> Vec<$crate::QueueStatus>;
            /// Where the data lives and whether it can be written now.
            window reads now storage_status / StorageStatus () -> $crate::StorageStatus;
            /// The app's settings (their defaults where the user set none).
            window reads now get_settings / GetSettings () -> $crate::Settings;
            /// Checks and keeps the app's settings; answers with them as kept (times tidied).
            user acts now set_settings / SetSettings (settings: $crate::Settings) -> $crate::Settings;
            /// What was spent since `since`, grouped by agent, day or task.
            window reads now cost_report / CostReport (
                since: $crate::CostSince,
                by: $crate::CostGrouping,
            ) -> $crate::CostReport;
            /// A task's history from the event log, oldest first.
            window reads now task_timeline / TaskTimeline (task_id: $crate::protocol::TaskId) -> Vec<$crate::LogEntry>;
            /// Pending signals and the most recent handled ones.
            window reads now list_signals / ListSignals () -> Vec<$crate::SignalRecord>;
            /// Answers, decides or dismisses a pending signal; answers with the settled record.
            user acts now respond_to_signal / RespondToSignal (
                signal_id: $crate::protocol::SignalId,
                response: $crate::SignalResponse,
            ) -> $crate::SignalRecord;
            /// Delegated agents: those at work, and those that reported or ended.
            window reads now list_delegations / ListDelegations () -> Vec<$crate::Delegation>;
            /// Whether a delegated agent keeps running after it reports (by default it ends,
            /// freeing its place among the agents running at once).
            user acts now keep_delegate / KeepDelegate (
                session_id: $crate::protocol::SessionId,
                keep: bool,
            ) -> $crate::Delegation;
            /// Starts a loop on an agent: fresh sessions toward `settings.goal` until it is done,
            /// stalled or cancelled; its first iteration queues behind the agent's tasks.
            window acts now start_loop / StartLoop (
                profile_id: $crate::protocol::ProfileId,
                settings: $crate::protocol::loops::LoopSettings,
            ) -> $crate::LoopInfo;
            /// Active and stalled loops, and the most recent finished ones.
            window reads now list_loops / ListLoops () -> Vec<$crate::LoopInfo>;
            /// Makes an automation; refused with a sentence, before anything is saved, where its
            /// schedule cannot run, its agent is unknown, or a chain would lead back to itself.
            user acts now create_automation / CreateAutomation (spec: $crate::AutomationSpec) -> $crate::Automation;
            /// Changes an automation (its history is kept).
            user acts now update_automation / UpdateAutomation (
                automation_id: $crate::protocol::AutomationId,
                spec: $crate::AutomationSpec,
            ) -> $crate::Automation;
            window reads now list_automations / ListAutomations () -> Vec<$crate::Automation>;
            window reads now get_automation / GetAutomation (automation_id: $crate::protocol::AutomationId) -> $crate::Automation;
            user acts now pause_automation / PauseAutomation (automation_id: $crate::protocol::AutomationId) -> $crate::Automation;
            user acts now resume_automation / ResumeAutomation (automation_id: $crate::protocol::AutomationId) -> $crate::Automation;
            /// Runs it now, as its trigger would (overlap and hourly cap included).
            user acts now run_automation_now / RunAutomationNow (automation_id: $crate::protocol::AutomationId) -> $crate::Automation;
            /// Removes it and its history; the work it made is kept.
            user acts now remove_automation / RemoveAutomation (automation_id: $crate::protocol::AutomationId) -> ();
            window reads now get_loop / GetLoop (loop_id: $crate::protocol::LoopId) -> $crate::LoopInfo;
            /// Older iterations of a loop, a page at a time: the `limit` (at most 200) recorded
            /// before the one at `before` (an iteration's `seq`), oldest first. A loop's info
            /// carries only its latest iterations.
            window reads now loop_iterations / LoopIterations (
                loop_id: $crate::protocol::LoopId,
                before: u32,
                limit: u32,
            ) -> Vec<$crate::Iteration>;
            /// Cancels an active or stalled loop, and its iteration waiting or at work.
            window acts now cancel_loop / CancelLoop (loop_id: $crate::protocol::LoopId) -> $crate::LoopInfo;
            /// Resumes a stalled loop: its next iteration goes first in the queue.
            window acts now resume_loop / ResumeLoop (loop_id: $crate::protocol::LoopId) -> $crate::LoopInfo;
            /// The loop's files in its agent's workspace as they are now: anchor, progress, guardrails.
            window reads now loop_files / LoopFiles (loop_id: $crate::protocol::LoopId) -> $crate::LoopFiles;
            /// Replaces the loop's anchor or guardrails (the user's corrections, say before resuming
            /// a stalled loop); answers with the files as they are then.
            window acts now save_loop_file / SaveLoopFile (
                loop_id: $crate::protocol::LoopId,
                file: $crate::LoopFile,
                text: String,
            ) -> $crate::LoopFiles;
            /// Text an agent wrote, as its hooks deliver it (the Stop event's
            /// `last_assistant_message`): scanned for signals like terminal output.
            script acts now agent_text / AgentText (session_id: $crate::protocol::SessionId, text: String) -> ();
            /// A session's own tools server (`switchboard-mcp`), for that session only: a tool its
            /// agent called, or the server's hello. Refused without the session's secret.
            socket acts now session_tool / SessionTool (
                session_id: $crate::protocol::SessionId,
                secret: String,
                call: $crate::ToolCall,
            ) -> $crate::ToolAnswer;
            /// An event from an agent's hooks, as `switchboard-hook` forwards it. A permission
            /// request is answered once the user decides (none: the agent's own prompt decides).
            socket acts later hook_event / HookEvent (
                envelope: $crate::protocol::hook::HookEnvelope,
            ) -> Option<$crate::PermissionDecision>;
            /// The spec's diagrams, as the flows view draws them.
            window reads now flow_diagrams / FlowDiagrams () -> Vec<$crate::Diagram>;
            /// Where a target (an agent, session, task or loop) stands in each diagram, as its
            /// events up to `until_seq` light them (none: all so far).
            window reads now flow_view / FlowView (
                target: $crate::FlowTarget,
                until_seq: Option<i64>,
            ) -> $crate::FlowView;
            /// A target's event log from `since_at` (milliseconds since the epoch), the most
            /// recent `limit`.
            window reads now flow_events / FlowEvents (
                target: $crate::FlowTarget,
                since_at: Option<$crate::Millis>,
                limit: u32,
            ) -> $crate::FlowEvents;
            /// Writes a target's event log as JSON lines (one entry per line, oldest first) into
            /// the data folder's `exports/`; answers the file's path.
            window acts now export_flow_events / ExportFlowEvents (target: $crate::FlowTarget) -> String;
            /// All agents as one graph: status, what each does, queue, and who works for whom.
            window reads now flow_overview / FlowOverview () -> $crate::Overview;
            /// Tasks (by name and instruction), their summaries and the signals agents raised
            /// that hold every word of `query`, newest first.
            window reads now search / Search (query: String) -> Vec<$crate::SearchHit>;
            /// Each session's agent status, for sessions whose hooks have reported.
            window reads now list_agent_status / ListAgentStatus () -> Vec<$crate::AgentStatusInfo>;
            /// What each agent asks of the user's attention (the one state the tray, sidebar,
            /// dashboard, graph and palette show).
            window reads now list_attention / ListAttention () -> Vec<$crate::AgentAttention>;
            /// The accounts at their usage limit, with their agents and when each goes on.
            window reads now list_limits / ListLimits () -> Vec<$crate::AccountLimit>;
            /// Each account's usage, as its agents' CLIs last told it (none told: not listed).
            window reads now list_usage / ListUsage () -> Vec<$crate::AccountUsage>;
            /// Has the agent's account go on now, whatever its usage limit said (the user knows
            /// better): its agents go on one at a time, this one first.
            user acts now resume_agent / ResumeAgent (profile_id: $crate::protocol::ProfileId) -> ();
            /// What the window shows now and whether it has the focus: the agent on screen in a
            /// focused window has its failures seen.
            user acts now set_viewing / SetViewing (viewing: $crate::Viewing) -> ();
            /// Permission requests waiting for the user.
            window reads now list_permission_requests / ListPermissionRequests () -> Vec<$crate::PermissionRequest>;
            /// The user's answer to an agent's permission request.
            user acts now decide_permission / DecidePermission (request_id: u64, allow: bool, message: Option<String>) -> ();
            /// The git repository a folder is in (the agent form offers worktrees only then), with
            /// its setup command; or why it is not one.
            window reads later folder_repository / FolderRepository (folder: String) -> $crate::FolderRepository;
            /// A folder of the engine's machine and its subfolders (`~` or empty: the home
            /// folder), for picking an agent's folder where the engine runs.
            window reads later list_folder / ListFolder (path: String) -> $crate::FolderListing;
            /// The command run in each new worktree of the repository (none: nothing runs).
            user acts now set_repository_setup / SetRepositorySetup (
                repository: String,
                setup_command: Option<String>,
            ) -> ();
            /// Every worktree the app made that is not merged or discarded, then the recent ones
            /// that are, with what each changed and which others change the same files.
            window reads later list_worktrees / ListWorktrees () -> Vec<$crate::WorktreeInfo>;
            /// What a worktree (named by its task or loop, or a task at work in it) changed
            /// against its base, file by file, with its task's summary.
            window reads later worktree_diff / WorktreeDiff (worktree: String) -> $crate::WorktreeDiff;
            /// Commits what the agent left uncommitted in the worktree (never the app's files),
            /// with its task's name as the message.
            user acts later commit_worktree / CommitWorktree (worktree: String) -> $crate::CommitOutcome;
            /// Commits what is left uncommitted, then lands the worktree's branch on its base
            /// (forward, or a merge commit) and removes the worktree; a conflict, or the user's
            /// own changes in the way, changes nothing.
            user acts later merge_worktree / MergeWorktree (worktree: String) -> $crate::MergeOutcome;
            /// Removes the worktree and its branch. Refused without `force` when it holds work
            /// that is not merged; with it, that work is kept as a patch file first.
            user acts later discard_worktree / DiscardWorktree (worktree: String, force: bool) -> $crate::DiscardOutcome;
            /// Moves the worktree's work onto its base's latest commit; a conflict undoes it.
            user acts later rebase_worktree / RebaseWorktree (worktree: String) -> $crate::RebaseOutcome;
            /// Types the user's line comments into the worktree's agent as one review, a new task
            /// in the same worktree.
            user acts now review_worktree / ReviewWorktree (
                worktree: String,
                comments: Vec<$crate::ReviewComment>,
            ) -> $crate::Submitted;
            /// Whether and where the engine serves the window to browsers now.
            window reads now web_status / WebStatus () -> $crate::WebStatus;
            /// Serves the window to paired browsers (or stops), as set; kept, so a restarted
            /// engine serves again. Stopping closes every browser's connection.
            local acts now set_web / SetWeb (settings: $crate::WebSettings) -> $crate::WebStatus;
            /// A one-time code that pairs a browser: valid for 5 minutes, used once. Only while
            /// serving.
            local acts now pair_device / PairDevice (read_only: bool, name: Option<String>) -> $crate::PairingCode;
            /// The browsers paired, most recently seen first.
            window reads now list_devices / ListDevices () -> Vec<$crate::Device>;
            /// The paired browser that sends this (none: the window, the command line): what a
            /// page asks to know whether it may change anything.
            window reads now this_device / ThisDevice () -> Option<$crate::Device>;
            /// Unpairs a browser: its open pages and sockets close at once.
            local acts now revoke_device / RevokeDevice (device_id: String) -> ();
            /// Asks the worktree's agent, in the conversation that did its work, to bring its base
            /// in and resolve the conflicts a merge would meet now: a new task in the same
            /// worktree, after which the merge is offered again. Refused when it merges cleanly.
            user acts now resolve_worktree / ResolveWorktree (worktree: String) -> $crate::Submitted;
        }
    };
}

/// Whether commands of this reach may come from the window.
macro_rules! for_window {
    (window) => {
        true
    };
    (user) => {
        true
    };
    (local) => {
        true
    };
    (socket) => {
        false
    };
    (script) => {
        false
    };
}

/// Whether commands of this reach may come from an agent's process.
macro_rules! for_agents {
    (window) => {
        true
    };
    (user) => {
        false
    };
    (local) => {
        false
    };
    (socket) => {
        true
    };
    (script) => {
        false
    };
}

/// Whether commands of this reach may come from a paired browser (the
/// window's commands, but for those of the user at this machine).
macro_rules! for_browsers {
    (local) => {
        false
    };
    ($reach:ident) => {
        for_window!($reach)
    };
}

/// Whether commands of this effect only read.
macro_rules! only_reads {
    (reads) => {
        true
    };
    (acts) => {
        false
    };
}

/// Makes [`Command`] from the list.
macro_rules! command_enum {
    ($(
        $(#[doc = $doc:literal])*
        $reach:ident $effect:ident $timing:ident $method:ident / $variant:ident ($($arg:ident : $ty:ty),* $(,)?) -> $out:ty;
    )*) => {
        /// A request to the engine in its wire form (the socket, the command line, the
        /// window). Each has exactly one kind of reply.
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
        #[cfg_attr(feature = "ts", derive(TS))]
        #[serde(tag = "type", rename_all = "snake_case")]
        pub enum Command {
            $(
                $(#[doc = $doc])*
                $variant { $($arg: $ty),* },
            )*
        }

        impl Command {
            /// Whether the app's window may send it (the rest are for scripts and hooks).
            pub fn for_window(&self) -> bool {
                match self {
                    $(Command::$variant { .. } => for_window!($reach),)*
                }
            }

            /// Whether a process of an agent may send it (the user's decisions
            /// it may not).
            pub fn for_agents(&self) -> bool {
                match self {
                    $(Command::$variant { .. } => for_agents!($reach),)*
                }
            }

            /// Whether a paired browser may send it: the window's commands, but for what
            /// only the user at this machine does.
            pub fn for_browsers(&self) -> bool {
                match self {
                    $(Command::$variant { .. } => for_browsers!($reach),)*
                }
            }

            /// Whether it only reads (a device paired read-only sends only those).
            pub fn reads(&self) -> bool {
                match self {
                    $(Command::$variant { .. } => only_reads!($effect),)*
                }
            }

            /// Its wire name.
            pub fn name(&self) -> &'static str {
                match self {
                    $(Command::$variant { .. } => stringify!($method),)*
                }
            }
        }
    };
}

engine_commands!(command_enum);

/// Which values answer a command: each output type has its [`Reply`]
/// variant, so the wire reply follows from the command's output (and a
/// client knows which reply to expect).
pub trait IntoReply: Sized {
    /// The reply's `type` on the wire.
    const KIND: &'static str;
    fn into_reply(self) -> Reply;
    /// The value, if `reply` is of this kind.
    fn from_reply(reply: Reply) -> Option<Self>;
}

macro_rules! replies {
    ($($out:ty => $variant:ident $kind:literal),* $(,)?) => {
        $(
            impl IntoReply for $out {
                const KIND: &'static str = $kind;
                fn into_reply(self) -> Reply {
                    Reply::$variant(self)
                }
                fn from_reply(reply: Reply) -> Option<Self> {
                    match reply {
                        Reply::$variant(value) => Some(value),
                        _ => None,
                    }
                }
            }
        )*
    };
}

replies! {
    Vec<Profile> => Profiles "profiles",
    Profile => Profile "profile",
    Vec<ProfileProblem> => Problems "problems",
    Vec<AgentPreset> => Presets "presets",
    Vec<crate::DetectedAgent> => DetectedAgents "detected_agents",
    Vec<SessionInfo> => Sessions "sessions",
    SessionInfo => Session "session",
    ScreenSnapshot => Snapshot "snapshot",
    Vec<LogEntry> => Events "events",
    Submitted => Submitted "submitted",
    Vec<TaskRecord> => Tasks "tasks",
    TaskRecord => Task "task",
    Vec<QueueStatus> => Queues "queues",
    Vec<SignalRecord> => Signals "signals",
    SignalRecord => Signal "signal",
    Vec<AgentStatusInfo> => AgentStatus "agent_status",
    Option<PermissionDecision> => Permission "permission",
    Vec<PermissionRequest> => PermissionRequests "permission_requests",
    crate::StorageStatus => Storage "storage",
    crate::Settings => Settings "settings",
    Vec<crate::Delegation> => Delegations "delegations",
    crate::Delegation => Delegation "delegation",
    Vec<crate::LoopInfo> => Loops "loops",
    crate::LoopInfo => Loop "loop",
    Vec<crate::Iteration> => Iterations "iterations",
    crate::LoopFiles => LoopFiles "loop_files",
    Vec<crate::Diagram> => Diagrams "diagrams",
    crate::FlowView => FlowView "flow_view",
    crate::FlowEvents => FlowEvents "flow_events",
    crate::Overview => Overview "overview",
    Vec<crate::SearchHit> => SearchHits "search_hits",
    String => Text "text",
    crate::Restarted => Restarted "restarted",
    Vec<crate::AgentAttention> => Attention "attention",
    Vec<crate::AccountLimit> => Limits "limits",
    Vec<crate::AccountUsage> => Usage "usage",
    crate::FolderRepository => FolderRepository "folder_repository",
    crate::FolderListing => FolderListing "folder_listing",
    Vec<crate::WorktreeInfo> => Worktrees "worktrees",
    crate::CommitOutcome => Commit "commit",
    crate::WorktreeDiff => WorktreeDiff "worktree_diff",
    crate::MergeOutcome => Merge "merge",
    crate::DiscardOutcome => Discard "discard",
    crate::RebaseOutcome => Rebase "rebase",
    crate::WebStatus => Web "web",
    crate::PairingCode => Pairing "pairing",
    Vec<crate::Device> => Devices "devices",
    Option<crate::Device> => Device "device",
    crate::ToolAnswer => Tool "tool",
    crate::CostReport => Cost "cost",
    Vec<crate::Automation> => Automations "automations",
    crate::Automation => Automation "automation",
}

impl IntoReply for () {
    const KIND: &'static str = "unit";
    fn into_reply(self) -> Reply {
        Reply::Unit
    }
    fn from_reply(reply: Reply) -> Option<Self> {
        matches!(reply, Reply::Unit).then_some(())
    }
}

/// The reply to a [`Command`]: one variant per kind of answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(tag = "type", content = "value", rename_all = "snake_case")]
pub enum Reply {
    Unit,
    Profiles(Vec<Profile>),
    Profile(Profile),
    /// What is wrong with a profile's spec (none: nothing).
    Problems(Vec<ProfileProblem>),
    Presets(Vec<AgentPreset>),
    /// The agent CLIs found on `PATH`, or missing.
    DetectedAgents(Vec<crate::DetectedAgent>),
    Sessions(Vec<SessionInfo>),
    Session(SessionInfo),
    Snapshot(ScreenSnapshot),
    Events(Vec<LogEntry>),
    Submitted(Submitted),
    Tasks(Vec<TaskRecord>),
    Task(TaskRecord),
    Queues(Vec<QueueStatus>),
    Signals(Vec<SignalRecord>),
    Signal(SignalRecord),
    AgentStatus(Vec<AgentStatusInfo>),
    /// To a permission request's hook: the user's decision, or none (the
    /// agent's own prompt decides).
    Permission(Option<PermissionDecision>),
    PermissionRequests(Vec<PermissionRequest>),
    Storage(crate::StorageStatus),
    Settings(crate::Settings),
    Delegations(Vec<crate::Delegation>),
    Delegation(crate::Delegation),
    Loops(Vec<crate::LoopInfo>),
    Loop(crate::LoopInfo),
    Iterations(Vec<crate::Iteration>),
    LoopFiles(crate::LoopFiles),
    Diagrams(Vec<crate::Diagram>),
    FlowView(crate::FlowView),
    FlowEvents(crate::FlowEvents),
    Overview(crate::Overview),
    SearchHits(Vec<crate::SearchHit>),
    Text(String),
    /// A restart: the new session, or the task it waits for.
    Restarted(crate::Restarted),
    Attention(Vec<crate::AgentAttention>),
    Limits(Vec<crate::AccountLimit>),
    Usage(Vec<crate::AccountUsage>),
    FolderRepository(crate::FolderRepository),
    FolderListing(crate::FolderListing),
    Worktrees(Vec<crate::WorktreeInfo>),
    Commit(crate::CommitOutcome),
    WorktreeDiff(crate::WorktreeDiff),
    Merge(crate::MergeOutcome),
    Discard(crate::DiscardOutcome),
    Rebase(crate::RebaseOutcome),
    Web(crate::WebStatus),
    Pairing(crate::PairingCode),
    Devices(Vec<crate::Device>),
    Device(Option<crate::Device>),
    /// To a session's tools server: what to tell the model.
    Tool(crate::ToolAnswer),
    Cost(crate::CostReport),
    Automations(Vec<crate::Automation>),
    Automation(crate::Automation),
}

/// Stable error codes: the UI branches on these, never on message text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    InvalidInput,
    /// A profile's spec has problems; `ApiError::problems` lists them all.
    InvalidProfile,
    CommandNotFound,
    DirectoryMissing,
    DuplicateName,
    ProfileNotFound,
    SessionNotFound,
    SessionNotRunning,
    ProfileBusy,
    SpawnFailed,
    TaskNotFound,
    TaskState,
    SignalNotFound,
    SignalState,
    TooManyAgents,
    AlreadyRunning,
    /// The agent already has a loop that is active or stalled: one loop per
    /// agent at a time.
    LoopBusy,
    Storage,
    /// The disk holding a file or the database is full.
    DiskFull,
    /// The app may not read or write a file it needs.
    PermissionDenied,
    /// A file or directory the app needs is gone.
    NotFound,
    /// Another failure reading or writing a file.
    Io,
    /// A process of an agent asked for what only the user may decide, or
    /// spoke for a session that is not its own.
    NotAllowed,
    EngineStopped,
    /// No worktree of that task or loop.
    WorktreeNotFound,
    /// git refused or failed (its words in the message).
    Git,
    /// `agent resume` for an agent nothing holds back.
    NothingToResume,
    Internal,
}

/// An error as it crosses to the UI: a code to branch on, a message for
/// people, and, for input errors, the field it concerns. An invalid profile
/// also lists every problem found (`field` is then the first one's), so a
/// form shows them all at once; other errors leave the list out.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct ApiError {
    pub code: ErrorCode,
    pub message: String,
    pub field: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(feature = "ts", ts(as = "Option<Vec<ProfileProblem>>", optional))]
    pub problems: Vec<ProfileProblem>,
}
