//! Team-aware completion: a lead agent whose teammates still work must not
//! be reported complete when its turn ends (REQ-001); one without an active
//! team completes normally (REQ-003). Pure state and decisions.

use std::collections::BTreeSet;

/// A lead session's team: its name once the first teammate is requested,
/// and the teammates that count as active — those the agent spawned itself
/// and those the app started for it (approved delegations), kept apart
/// because the agent's own account covers only the first.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TeamState {
    pub team_name: Option<String>,
    pub teammates: BTreeSet<String>,
    pub delegates: BTreeSet<String>,
}

/// What changes a team.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TeamEvent {
    /// A teammate's spawn was requested: it counts from now, before any
    /// asynchronous spawn step, so a turn ending meanwhile sees it.
    SpawnRequested {
        teammate: String,
        team_name: String,
    },
    /// The app started a teammate for the lead (an approved delegation).
    DelegateStarted {
        teammate: String,
        team_name: String,
    },
    SpawnFailed {
        teammate: String,
    },
    /// Finished, idle for good, or shut down.
    Gone {
        teammate: String,
    },
    /// The agent's own account of its running teammates (the Stop event's
    /// `background_tasks`): the truth where present, about the teammates
    /// it spawned (not about those the app started).
    Running {
        teammates: BTreeSet<String>,
    },
    Reset,
}

impl TeamState {
    pub fn apply(&mut self, event: TeamEvent) {
        match event {
            TeamEvent::SpawnRequested { teammate, team_name } => {
                self.team_name.get_or_insert(team_name);
                self.teammates.insert(teammate);
            }
            TeamEvent::DelegateStarted { teammate, team_name } => {
                self.team_name.get_or_insert(team_name);
                self.delegates.insert(teammate);
            }
            TeamEvent::SpawnFailed { teammate } | TeamEvent::Gone { teammate } => {
                self.teammates.remove(&teammate);
                self.delegates.remove(&teammate);
            }
            TeamEvent::Running { teammates } => self.teammates = teammates,
            TeamEvent::Reset => *self = TeamState::default(),
        }
    }

    pub fn active_count(&self) -> usize {
        self.teammates.len() + self.delegates.len()
    }

    /// Both: a team was formed, and teammates exist.
    pub fn is_active(&self) -> bool {
        self.team_name.is_some() && self.active_count() > 0
    }

    /// Whether `teammate` is on this team.
    pub fn has(&self, teammate: &str) -> bool {
        self.teammates.contains(teammate) || self.delegates.contains(teammate)
    }
}

/// How the lead's turn ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TurnEnd {
    Success,
    Error,
}

/// What the engine reports for the lead.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Emit {
    /// The team works on: the session stays alive.
    UsageUpdate,
    Error,
    Complete,
}

/// The gate: checked afresh at every turn end.
pub fn gate(team: &TeamState, turn: TurnEnd) -> Vec<Emit> {
    match turn {
        TurnEnd::Error => vec![Emit::Error, Emit::Complete],
        TurnEnd::Success if team.is_active() => vec![Emit::UsageUpdate],
        TurnEnd::Success => vec![Emit::Complete],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spawn(name: &str) -> TeamEvent {
        TeamEvent::SpawnRequested { teammate: name.into(), team_name: "session-489105c7".into() }
    }

    fn delegate(name: &str) -> TeamEvent {
        TeamEvent::DelegateStarted { teammate: name.into(), team_name: "session-489105c7".into() }
    }

    fn gone(name: &str) -> TeamEvent {
        TeamEvent::Gone { teammate: name.into() }
    }

    /// Events, then a turn end, and what must be reported — the spec's
    /// edge cases and its five-item testing checklist.
    #[test]
    fn gating_cases() {
        use Emit::*;
        let running = |names: &[&str]| TeamEvent::Running { teammates: names.iter().map(|n| n.to_string()).collect() };
        let cases: Vec<(&str, Vec<TeamEvent>, TurnEnd, Vec<Emit>)> = vec![
            // Checklist 1 (REQ-001): no complete while the team is active.
            ("team active", vec![spawn("w1")], TurnEnd::Success, vec![UsageUpdate]),
            // Checklist 2: usage_update while active, with two teammates.
            ("two teammates", vec![spawn("w1"), spawn("w2")], TurnEnd::Success, vec![UsageUpdate]),
            // Checklist 3 (REQ-003): normal completion without a team.
            ("no team", vec![], TurnEnd::Success, vec![Complete]),
            // Checklist 4: a team whose teammates are all gone completes.
            ("team with zero teammates", vec![spawn("w1"), gone("w1")], TurnEnd::Success, vec![Complete]),
            // A spawn that failed never counts.
            (
                "spawn failed",
                vec![spawn("w1"), TeamEvent::SpawnFailed { teammate: "w1".into() }],
                TurnEnd::Success,
                vec![Complete],
            ),
            // All teammates gone before the turn ended.
            (
                "all gone early",
                vec![spawn("w1"), spawn("w2"), gone("w2"), gone("w1")],
                TurnEnd::Success,
                vec![Complete],
            ),
            // The agent's own account wins: it says one still runs.
            (
                "background truth",
                vec![spawn("w1"), gone("w1"), running(&["bg-1"])],
                TurnEnd::Success,
                vec![UsageUpdate],
            ),
            ("background says none", vec![spawn("w1"), running(&[])], TurnEnd::Success, vec![Complete]),
            // An error always ends in error, then complete.
            ("error with team", vec![spawn("w1")], TurnEnd::Error, vec![Error, Complete]),
            ("error without team", vec![], TurnEnd::Error, vec![Error, Complete]),
            // A reset clears the team.
            ("reset", vec![spawn("w1"), TeamEvent::Reset], TurnEnd::Success, vec![Complete]),
            // A teammate that was never requested does not count towards a team.
            ("running without a team", vec![running(&["bg-1"])], TurnEnd::Success, vec![Complete]),
            // The agent's account does not cover teammates the app started.
            (
                "delegate outlives the agent's account",
                vec![delegate("s-2"), running(&[])],
                TurnEnd::Success,
                vec![UsageUpdate],
            ),
            ("delegate done", vec![delegate("s-2"), running(&[]), gone("s-2")], TurnEnd::Success, vec![Complete]),
        ];
        for (name, events, turn, expected) in cases {
            let mut team = TeamState::default();
            for event in events {
                team.apply(event);
            }
            assert_eq!(gate(&team, turn), expected, "{name}: {team:?}");
        }
    }

    /// Checklist 5: from usage_update to complete as the team finishes;
    /// and every turn checks the state afresh.
    #[test]
    fn several_turns_move_from_usage_update_to_complete() {
        let mut team = TeamState::default();
        team.apply(spawn("w1"));
        team.apply(spawn("w2"));
        assert_eq!(gate(&team, TurnEnd::Success), [Emit::UsageUpdate]);
        team.apply(gone("w1"));
        assert_eq!(gate(&team, TurnEnd::Success), [Emit::UsageUpdate]);
        team.apply(gone("w2"));
        assert_eq!(gate(&team, TurnEnd::Success), [Emit::Complete]);
        assert_eq!(team.team_name.as_deref(), Some("session-489105c7"), "the name stays; the count decides");
        // The team name is set once, by the first spawn.
        team.apply(TeamEvent::SpawnRequested { teammate: "w3".into(), team_name: "other".into() });
        assert_eq!(team.team_name.as_deref(), Some("session-489105c7"));
        assert_eq!(team.active_count(), 1);
    }
}
