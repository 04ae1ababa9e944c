//! Pure data shared by every part of Switchboard: identifiers, agent kinds and
//! terminal geometry. This crate does no I/O and has no runtime; the engine
//! (`switchboard-core`), the hook binary and the UI (through generated
//! TypeScript) all speak these types.
//!
//! Later protocol pieces (signal blocks, summary files, hook events) live here
//! too, as pure parsers.

pub mod capped;
pub mod hook;
mod ids;
pub mod limit;
pub mod loops;
pub mod rollout;
pub mod signal;
pub mod summary;
pub mod team;
pub mod text;
pub mod usage;

pub use ids::{AutomationId, IdError, LoopId, ProfileId, SessionId, SignalId, TaskId, new_secret};

use serde::{Deserialize, Serialize};
#[cfg(feature = "ts")]
use ts_rs::TS;

/// What kind of CLI an agent profile runs. The kind decides how the engine
/// connects to the agent later (hooks, readiness detection); a `Generic`
/// agent is any command in a terminal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(rename_all = "kebab-case")]
pub enum AgentKind {
    Generic,
    ClaudeCode,
    Codex,
}

impl AgentKind {
    /// The stable string stored in the database and shown in the UI.
    pub fn as_str(self) -> &'static str {
        match self {
            AgentKind::Generic => "generic",
            AgentKind::ClaudeCode => "claude-code",
            AgentKind::Codex => "codex",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        [AgentKind::Generic, AgentKind::ClaudeCode, AgentKind::Codex].into_iter().find(|kind| kind.as_str() == text)
    }

    /// The keystroke that interrupts the agent's current work: Escape for
    /// the agent TUIs, Ctrl-C for anything else.
    pub fn interrupt_key(self) -> &'static str {
        match self {
            AgentKind::Generic => "\x03",
            AgentKind::ClaudeCode | AgentKind::Codex => "\x1b",
        }
    }
}

/// Task priority: urgent tasks run before normal ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
#[serde(rename_all = "snake_case")]
pub enum Priority {
    Urgent,
    Normal,
}

impl Priority {
    /// Every priority, in the order the queue runs them.
    pub const ALL: [Priority; 2] = [Priority::Urgent, Priority::Normal];

    pub fn as_str(self) -> &'static str {
        match self {
            Priority::Urgent => "urgent",
            Priority::Normal => "normal",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        Priority::ALL.into_iter().find(|p| p.as_str() == text)
    }
}

/// Size of a pseudo-terminal in character cells.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(TS))]
pub struct TermSize {
    pub rows: u16,
    pub cols: u16,
}

impl TermSize {
    /// The classic terminal size, used until a view reports its real size.
    pub const DEFAULT: TermSize = TermSize { rows: 24, cols: 80 };

    /// Sizes outside this range are refused: a zero-sized PTY confuses most
    /// programs and a huge one makes the screen model allocate without bound.
    pub const MAX_CELLS_PER_SIDE: u16 = 1000;

    pub fn is_valid(self) -> bool {
        (1..=Self::MAX_CELLS_PER_SIDE).contains(&self.rows) && (1..=Self::MAX_CELLS_PER_SIDE).contains(&self.cols)
    }
}

impl Default for TermSize {
    fn default() -> Self {
        Self::DEFAULT
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agent_kind_round_trips_through_its_stored_name() {
        for kind in [AgentKind::Generic, AgentKind::ClaudeCode, AgentKind::Codex] {
            assert_eq!(AgentKind::parse(kind.as_str()), Some(kind));
            let json = serde_json::to_string(&kind).unwrap();
            assert_eq!(json, format!("\"{}\"", kind.as_str()));
        }
        assert_eq!(AgentKind::parse("gemini"), None);
    }

    #[test]
    fn term_size_bounds() {
        let cases = [
            (TermSize { rows: 24, cols: 80 }, true),
            (TermSize { rows: 0, cols: 80 }, false),
            (TermSize { rows: 24, cols: 0 }, false),
            (TermSize { rows: 1000, cols: 1000 }, true),
            (TermSize { rows: 1001, cols: 80 }, false),
        ];
        for (size, valid) in cases {
            assert_eq!(size.is_valid(), valid, "{size:?}");
        }
    }
}
