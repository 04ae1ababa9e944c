//! Agents (profiles) and their sessions.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use switchboard_protocol::{AgentKind, ProfileId, SessionId, TermSize};
#[cfg(feature = "ts")]
use ts_rs::TS;

use super::Millis;

/// What the user fills in to describe an agent: the command to run, where and
/// how. Validated by the engine before it is stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct ProfileSpec {
    pub name: String,
    /// A program name looked up on `PATH`, or a path to an executable.
    pub command: String,
    #[serde(default)]
    pub args: Vec<String>,
    /// Extra environment for the agent, on top of the app's own environment.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// The agent's working directory (its workspace). Must exist.
    pub cwd: String,
    pub kind: AgentKind,
    /// Start a session of this profile whenever the app starts.
    #[serde(default)]
    pub start_on_launch: bool,
    /// When the agent is ready for a task: a regular expression the line
    /// under the cursor must match (none: any line) ...
    #[serde(default)]
    pub ready_pattern: Option<String>,
    /// ... and how long its output must have been quiet, in milliseconds.
    #[serde(default = "default_ready_quiet_ms")]
    pub ready_quiet_ms: u32,
    /// A task's time limit when its submission names none, in seconds.
    #[serde(default = "default_task_time_limit_secs")]
    pub task_time_limit_secs: u32,
    /// What completes a task of this agent.
    #[serde(default)]
    pub completion: CompletionRule,
    /// Teach the agent the signal protocols (through its own instruction
    /// channel where it has one, and a protocol file each task points to).
    #[serde(default = "default_signal_protocols")]
    pub signal_protocols: bool,
    /// Seconds a task's agent may show no output and no hook event while it
    /// should be working before the task is flagged as possibly stuck; 0: never.
    #[serde(default = "default_quiet_alert_secs")]
    pub quiet_alert_secs: u32,
    /// Where its tasks work: its folder, or each task in a git worktree of
    /// its own (the folder must then be inside a git repository).
    #[serde(default)]
    pub isolation: super::Isolation,
    /// The account its CLI works under, for usage limits: agents of one
    /// account are limited together. None: the CLI's own folder (Claude
    /// Code's `CLAUDE_CONFIG_DIR` or `~/.claude`, Codex's `CODEX_HOME` or
    /// `~/.codex`); an agent of another kind is an account of its own.
    #[serde(default)]
    pub account: Option<String>,
    /// Give a Claude Code or Codex agent taught the signal protocols
    /// Switchboard's tools for them (the MCP server `switchboard-mcp`, which
    /// its CLI starts); off: it prints the blocks only.
    #[serde(default = "default_signal_protocols")]
    pub switchboard_tools: bool,
    /// What the agent may use a day (in this machine's time zone): past 80 %
    /// the user is told; once used up, its task at work ends over budget and
    /// it takes no new task until the next day or a larger budget.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub daily_budget: Option<crate::Budget>,
}

fn default_signal_protocols() -> bool {
    true
}

fn default_quiet_alert_secs() -> u32 {
    DEFAULT_QUIET_ALERT_SECS
}

/// What completes a task: the summary file (the default), the agent's
/// completion report (for agents that write no summary), both, which
/// must then agree on the outcome, or its prompt coming back (a shell, or
/// any program that runs one command at a time and writes no summary: it
/// is typed the instruction alone, nothing a shell would run besides).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(rename_all = "snake_case")]
pub enum CompletionRule {
    #[default]
    Summary,
    Report,
    Both,
    Prompt,
}

impl CompletionRule {
    pub fn as_str(self) -> &'static str {
        match self {
            CompletionRule::Summary => "summary",
            CompletionRule::Report => "report",
            CompletionRule::Both => "both",
            CompletionRule::Prompt => "prompt",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        [CompletionRule::Summary, CompletionRule::Report, CompletionRule::Both, CompletionRule::Prompt]
            .into_iter()
            .find(|r| r.as_str() == text)
    }
}

impl Default for ProfileSpec {
    /// An empty generic profile with the default readiness and time limit;
    /// for filling in the rest with struct update syntax.
    fn default() -> Self {
        ProfileSpec {
            name: String::new(),
            command: String::new(),
            args: Vec::new(),
            env: BTreeMap::new(),
            cwd: String::new(),
            kind: AgentKind::Generic,
            start_on_launch: false,
            ready_pattern: None,
            ready_quiet_ms: DEFAULT_READY_QUIET_MS,
            task_time_limit_secs: DEFAULT_TASK_TIME_LIMIT_SECS,
            completion: CompletionRule::Summary,
            signal_protocols: true,
            quiet_alert_secs: DEFAULT_QUIET_ALERT_SECS,
            isolation: super::Isolation::None,
            account: None,
            switchboard_tools: true,
            daily_budget: None,
        }
    }
}

pub const DEFAULT_QUIET_ALERT_SECS: u32 = 600;
pub const DEFAULT_READY_QUIET_MS: u32 = 800;
pub const DEFAULT_TASK_TIME_LIMIT_SECS: u32 = 30 * 60;

fn default_ready_quiet_ms() -> u32 {
    DEFAULT_READY_QUIET_MS
}

fn default_task_time_limit_secs() -> u32 {
    DEFAULT_TASK_TIME_LIMIT_SECS
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct Profile {
    pub id: ProfileId,
    #[serde(flatten)]
    pub spec: ProfileSpec,
    pub created_at: Millis,
    /// The machine it runs on, as a window that shows several machines'
    /// engines names it (`switchboard host`); none: the engine's own machine
    /// (an engine never names itself).
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub host: Option<String>,
}

/// Where a session is in its life. Each variant carries the data of that
/// state: a running session has a process, an ended one has how it ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum SessionState {
    Running {
        pid: u32,
    },
    /// The agent exited by itself.
    Exited {
        exit_code: u32,
        signal: Option<String>,
        ended_at: Millis,
    },
    /// The user stopped the agent; the engine ended its process tree.
    Killed {
        exit_code: u32,
        signal: Option<String>,
        ended_at: Millis,
    },
    /// The app died while the agent ran; found so at the next start.
    Interrupted {
        ended_at: Millis,
    },
}

impl SessionState {
    pub fn is_running(&self) -> bool {
        matches!(self, SessionState::Running { .. })
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct SessionInfo {
    pub id: SessionId,
    pub profile_id: ProfileId,
    pub started_at: Millis,
    pub size: TermSize,
    #[serde(flatten)]
    pub state: SessionState,
    /// The agent's own id for its conversation (Claude Code's
    /// `--session-id`), which a later session can resume.
    #[serde(default)]
    pub agent_session_id: Option<String>,
    /// The folder it works in when not its agent's (a task's worktree).
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub workspace: Option<String>,
}

/// What is on a session's screen now, as text, plus recent lines that
/// scrolled off. Built from the engine's own terminal model, independent of
/// any view.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct ScreenSnapshot {
    pub size: TermSize,
    /// The visible rows, trailing blanks trimmed, joined by `\n`.
    pub screen: String,
    /// Up to the requested number of most recent lines, scrollback included.
    pub recent_lines: Vec<String>,
    pub cursor_row: u16,
    pub cursor_col: u16,
    /// The screen's last line with text, and a ready pattern that matches
    /// it (the agent form's "Fill from the screen"); none on a blank screen.
    pub prompt: Option<ScreenPrompt>,
}

/// An agent CLI the app has a preset for, as found on this machine
/// (`detected_agents`): the window offers each found one as a one-click
/// agent, and says how to install a missing one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct DetectedAgent {
    pub preset: AgentPreset,
    pub found: CliFound,
}

/// Whether a CLI is on `PATH`, and which version.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum CliFound {
    /// On `PATH` at `path`; `version` as its `--version` printed it (none:
    /// it printed no version in time).
    Installed { path: String, version: Option<String> },
    /// Not on `PATH` (the preset's `install` says how to get it).
    Missing,
}

/// A screen's last line with text as a ready pattern would see it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct ScreenPrompt {
    /// The line, its surrounding blanks trimmed.
    pub line: String,
    /// The line escaped as a regular expression and anchored at both ends
    /// (blanks around it allowed), so it matches that prompt and nothing
    /// typed after it.
    pub ready_pattern: String,
}

/// A field of [`ProfileSpec`], as a problem with it names it (the field's
/// name on the wire).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(rename_all = "snake_case")]
pub enum ProfileField {
    Name,
    Command,
    Args,
    Env,
    Cwd,
    Kind,
    ReadyPattern,
    ReadyQuietMs,
    TaskTimeLimitSecs,
    QuietAlertSecs,
    Isolation,
    Account,
    DailyBudget,
}

impl ProfileField {
    /// Its name on the wire, as `ApiError::field` carries it.
    pub fn as_str(self) -> &'static str {
        match self {
            ProfileField::Name => "name",
            ProfileField::Command => "command",
            ProfileField::Args => "args",
            ProfileField::Env => "env",
            ProfileField::Cwd => "cwd",
            ProfileField::Kind => "kind",
            ProfileField::ReadyPattern => "ready_pattern",
            ProfileField::ReadyQuietMs => "ready_quiet_ms",
            ProfileField::TaskTimeLimitSecs => "task_time_limit_secs",
            ProfileField::QuietAlertSecs => "quiet_alert_secs",
            ProfileField::Isolation => "isolation",
            ProfileField::Account => "account",
            ProfileField::DailyBudget => "daily_budget",
        }
    }
}

/// One thing wrong with a [`ProfileSpec`]: the field, and what is wrong, as
/// a sentence for the person who filled it in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct ProfileProblem {
    pub field: ProfileField,
    pub message: String,
}

/// Settings that work for an agent CLI the app knows, for the form to fill
/// in when the user picks its kind. The engine owns them (`presets.rs`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct AgentPreset {
    pub kind: AgentKind,
    /// The kind as people call it ("Claude Code").
    pub label: String,
    /// The program, looked up on `PATH`.
    pub command: String,
    pub args: Vec<String>,
    pub ready_pattern: Option<String>,
    pub ready_quiet_ms: u32,
    /// Why each setting is what it is, one sentence each (the arguments,
    /// readiness, and what the app connects by itself: hooks).
    pub notes: Vec<String>,
    /// The command that installs the CLI, said where it is missing.
    pub install: String,
}

/// One folder of the engine's machine and its subfolders (`list_folder`):
/// for picking an agent's folder where the engine runs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct FolderListing {
    /// The folder, its whole path (links resolved).
    pub path: String,
    /// The folder above it; none at the root.
    pub parent: Option<String>,
    /// Its subfolders' names: hidden ones (a leading dot) last, each group
    /// by name.
    pub folders: Vec<String>,
    /// More subfolders than are listed.
    pub truncated: bool,
}
