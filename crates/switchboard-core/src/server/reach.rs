//! Who may send which command: decided here, once, for every way into the
//! engine (a framed client of any kind, a line of the line protocol).

use switchboard_api::Command;
use switchboard_api::wire::ClientKind;

use super::Caller;
use crate::error::EngineError;

/// How a request came in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Via {
    /// A framed client that said it is of this kind in its hello.
    Client(ClientKind),
    /// A line of the line protocol (the hook binary, scripts).
    Line,
}

/// Why `command` may not be run for `caller` coming in `via`, if it may not:
/// a process of an agent never makes the user's decisions, a window sends
/// only the commands meant for a window (not, say, an agent's hook events),
/// whoever runs it, and a paired browser sends the window's commands but for
/// those of the user at this machine (pairing another), and only those that
/// read if it was paired read-only.
pub fn refusal(via: Via, caller: Caller, command: &Command) -> Option<EngineError> {
    match caller {
        Caller::Agent { .. } if !command.for_agents() => {
            return Some(EngineError::UsersDecision { command: command.name() });
        }
        Caller::Device { .. } if !command.for_browsers() => {
            return Some(EngineError::NotFromBrowser { command: command.name() });
        }
        Caller::Device { read_only: true, .. } if !command.reads() => {
            return Some(EngineError::ReadOnlyDevice { command: command.name() });
        }
        _ => {}
    }
    if via == Via::Client(ClientKind::Window) && !command.for_window() {
        return Some(EngineError::InvalidInput {
            field: "command",
            reason: format!("`{}` is not a command of the window", command.name()),
        });
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::lineage::{AgentSign, UserSign};
    use switchboard_api::protocol::hook::HookEnvelope;
    use switchboard_api::protocol::{SignalId, TaskId};

    #[test]
    fn each_command_is_refused_or_let_through_by_who_sends_it_and_how() {
        let user = Caller::User { pid: 10, by: UserSign::Outside };
        let agent = Caller::Agent { pid: 11, by: AgentSign::UnderKeeper { keeper: 9 } };
        let window = Via::Client(ClientKind::Window);
        let line = Via::Line;
        let command_line = Via::Client(ClientKind::CommandLine);
        let read = Command::GetTask { task_id: TaskId::new() };
        let decide =
            Command::RespondToSignal { signal_id: SignalId::new(), response: switchboard_api::SignalResponse::Dismiss };
        let envelope = HookEnvelope {
            session_id: None,
            env: Default::default(),
            at: 0,
            payload: Default::default(),
            secret: None,
        };
        let hook = Command::HookEvent { envelope };
        let device = Caller::Device { device: 7, read_only: false };
        let looker = Caller::Device { device: 8, read_only: true };
        let browser = Via::Client(ClientKind::Browser);
        let pair = Command::PairDevice { read_only: false, name: None };
        let typing = Command::WriteInput { session_id: switchboard_api::protocol::SessionId::new(), data: "y".into() };
        let tool = Command::SessionTool {
            session_id: switchboard_api::protocol::SessionId::new(),
            secret: "k".into(),
            call: switchboard_api::ToolCall::Hello { client: None },
        };
        let tools = Via::Client(ClientKind::Tools);
        let cases = [
            ("the user's window reads", window, user, &read, None),
            ("the user's window decides", window, user, &decide, None),
            ("a window sends a hook event", window, user, &hook, Some("not a command of the window")),
            ("an agent's window decides", window, agent, &decide, Some("the user's decision")),
            ("an agent reads from the command line", command_line, agent, &read, None),
            ("an agent decides from the command line", command_line, agent, &decide, Some("the user's decision")),
            ("the user decides from the command line", command_line, user, &decide, None),
            ("a hook sends its event", line, agent, &hook, None),
            ("a line from an agent decides", line, agent, &decide, Some("the user's decision")),
            ("a script's line decides", line, user, &decide, None),
            ("a paired browser reads", browser, device, &read, None),
            ("a paired browser decides", browser, device, &decide, None),
            ("a read-only browser reads", browser, looker, &read, None),
            ("a read-only browser decides", browser, looker, &decide, Some("paired to look only")),
            ("a read-only browser types", browser, looker, &typing, Some("paired to look only")),
            ("a paired browser pairs another", browser, device, &pair, Some("only at the computer")),
            ("a paired browser sends a hook event", browser, device, &hook, Some("only at the computer")),
            ("a browser claiming to be a window pairs", window, device, &pair, Some("only at the computer")),
            ("the user pairs from the command line", command_line, user, &pair, None),
            ("an agent pairs from the command line", command_line, agent, &pair, Some("the user's decision")),
            ("an agent's tools server speaks for its session", tools, agent, &tool, None),
            ("its tools server reads", tools, agent, &read, None),
            ("its tools server decides", tools, agent, &decide, Some("the user's decision")),
            ("a window sends a tool call", window, user, &tool, Some("not a command of the window")),
            ("a paired browser sends a tool call", browser, device, &tool, Some("only at the computer")),
        ];
        for (what, via, caller, command, refused) in cases {
            let refusal = refusal(via, caller, command).map(|error| error.to_string());
            match (refused, refusal) {
                (None, None) => {}
                (Some(words), Some(said)) => assert!(said.contains(words), "{what}: {said}"),
                (expected, said) => panic!("{what}: expected {expected:?}, got {said:?}"),
            }
        }
    }
}
