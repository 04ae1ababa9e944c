/**
 * The flows view's words: an event log entry in a sentence, its group for the filter, the
 * lines an export writes, and what a target is called. Where an agent stands in a diagram
 * is the engine's answer (`flow_view`); nothing here decides it.
 */
import type { DiagramState, FlowTarget, LogEntry, LoopInfo, Profile, SessionInfo, TaskInfo } from './bindings';
import { firstLine, stateWord } from './tasks';

/** The groups the event panel filters by. */
export type EventGroup = 'task' | 'signal' | 'hook' | 'loop' | 'session' | 'delegation';

export const EVENT_GROUPS: { group: EventGroup; label: string }[] = [
  { group: 'task', label: 'Tasks' },
  { group: 'signal', label: 'Signals' },
  { group: 'hook', label: 'Hook events' },
  { group: 'loop', label: 'Loop steps' },
  { group: 'session', label: 'Sessions' },
  { group: 'delegation', label: 'Delegations' },
];

export function entryGroup(entry: LogEntry): EventGroup {
  switch (entry.kind) {
    case 'session_started':
    case 'session_exited':
    case 'session_killed':
    case 'session_interrupted':
      return 'session';
    case 'signal_raised':
    case 'signal_handled':
    case 'signal_set_aside':
      return 'signal';
    case 'delegation':
      return 'delegation';
    case 'hook':
      return 'hook';
    case 'loop':
      return 'loop';
    default:
      return 'task';
  }
}

const SIGNAL_WORDS = {
  clarification: 'Asked for clarification',
  stop_work: 'Stopped work at a blocker',
  delegate: 'Asked to delegate work',
  completion: 'Reported completion',
} as const;

/** A text field of a hook payload, if it is one. */
function payloadText(payload: unknown, key: string): string | null {
  if (typeof payload !== 'object' || payload === null) return null;
  const value = (payload as Record<string, unknown>)[key];
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : null;
}

function hookWords(event: string, payload: unknown): string {
  const tool = payloadText(payload, 'tool_name');
  switch (event) {
    case 'session_start':
      return 'The agent reported its start';
    case 'user_prompt_submit':
      return 'A prompt was submitted';
    case 'pre_tool_use':
      return tool ? `Calls a tool: ${tool}` : 'Calls a tool';
    case 'post_tool_use':
      return tool ? `Tool finished: ${tool}` : 'A tool finished';
    case 'permission_request':
      return tool ? `Asks permission for ${tool}` : 'Asks permission';
    case 'notification': {
      const message = payloadText(payload, 'message');
      return message ? `Notification: ${firstLine(message)}` : 'A notification';
    }
    case 'subagent_start':
      return 'A subagent started';
    case 'subagent_stop':
      return 'A subagent stopped';
    case 'teammate_idle': {
      const name = payloadText(payload, 'teammate_name');
      return name ? `Teammate ${name} is idle` : 'A teammate is idle';
    }
    case 'stop':
      return 'Its turn ended';
    case 'stop_failure':
      return 'Its turn ended in an error';
    case 'session_end':
      return 'The agent reported its end';
    default:
      return event === '' || event === 'unrecognised' ? 'An event it did not name' : `Event: ${event}`;
  }
}

/** An event log entry in plain words. Agent-given text in it is shown as text. */
export function describeEntry(entry: LogEntry): string {
  switch (entry.kind) {
    case 'session_started':
      return 'The agent started';
    case 'session_exited':
      return entry.signal ? `The agent ended (${entry.signal})` : `The agent exited with code ${entry.exit_code}`;
    case 'session_killed':
      return 'The agent was stopped';
    case 'session_interrupted':
      return 'The app stopped while the agent ran';
    case 'task_queued':
      return entry.priority === 'urgent' ? 'Task queued, urgent' : 'Task queued';
    case 'task_started':
      return 'Task handed to the agent';
    case 'task_typed':
      return 'Task typed into the agent';
    case 'task_moved':
      return `Task moved to place ${entry.to_index + 1} in the queue`;
    case 'task_requeued':
      return entry.app_stopped ? 'Task put back in the queue (the app stopped)' : 'Task put back in the queue';
    case 'task_quiet':
      return entry.quiet
        ? `No sign of life for ${Math.round(entry.alert_secs / 60)} min: it may be stuck`
        : 'The agent shows life again';
    case 'task_waiting':
      return entry.waiting ? 'Waits for your answer: its time limit is paused' : 'Goes on: its time limit runs again';
    case 'deliverable_rejected':
      return `A deliverable was refused: ${entry.path} (${entry.reason})`;
    case 'task_ended':
      return `Task ${stateWord(entry.state)}${entry.reason ? `: ${firstLine(entry.reason)}` : ''}`;
    case 'signal_raised':
      return `${SIGNAL_WORDS[entry.signal_kind]}${entry.malformed ? ' (malformed)' : ''}`;
    case 'signal_handled':
      return responseWords(entry.response.action);
    case 'signal_set_aside':
      return `${SIGNAL_WORDS[entry.signal_kind]}: set aside, too many waiting`;
    case 'delegation':
      switch (entry.state.state) {
        case 'working':
          return 'Delegated work started';
        case 'reported':
          return `Delegated work reported: ${entry.state.status}`;
        case 'failed':
          return `Delegated work failed: ${entry.state.how}`;
      }
      break;
    case 'hook':
      return hookWords(entry.event, entry.payload);
    case 'loop':
      switch (entry.step.step) {
        case 'started':
          return `Loop started, at most ${entry.step.max_iterations} iterations`;
        case 'iteration':
          return `Iteration ${entry.step.number} began`;
        case 'judged':
          return `Iteration ${entry.step.number} judged: ${verdictWords(entry.step.verdict.verdict)}`;
        case 'resumed':
          return 'Loop resumed';
        case 'cancelled':
          return 'Loop cancelled';
      }
  }
  return 'Something happened';
}

function responseWords(action: string): string {
  const words: Record<string, string> = {
    answer: 'The user answered',
    resolve: 'The user resolved the blocker',
    retry: 'The user fixed it: retry',
    skip: 'The user chose to skip it',
    delegate_blocked: 'The user delegated the blocked part',
    approve: 'The user approved the delegation',
    deny: 'The user denied the delegation',
    acknowledge: 'The user read the report',
    dismiss: 'The user dismissed it',
  };
  return words[action] ?? 'The user responded';
}

function verdictWords(verdict: string): string {
  return { complete: 'complete', stalled: 'stalled', continue: 'go on', cancelled: 'cancelled' }[verdict] ?? verdict;
}

/** The entries as JSON lines, oldest first, as an export writes them. */
export function toJsonLines(entries: LogEntry[]): string {
  return entries.map((e) => JSON.stringify(e)).join('\n') + (entries.length ? '\n' : '');
}

/** What the flows view's target is called. */
export function targetLabel(
  target: FlowTarget,
  names: { profiles: Profile[]; sessions: SessionInfo[]; tasks: TaskInfo[]; loops: LoopInfo[] },
): string {
  switch (target.of) {
    case 'agent':
      return names.profiles.find((p) => p.id === target.profile_id)?.name ?? 'An agent';
    case 'session': {
      const session = names.sessions.find((s) => s.id === target.session_id);
      const agent = names.profiles.find((p) => p.id === session?.profile_id)?.name ?? 'An agent';
      return session ? `${agent}, session of ${clock(session.started_at)}` : `${agent}, a session`;
    }
    case 'task': {
      const task = names.tasks.find((t) => t.id === target.task_id);
      return task ? `Task: ${firstLine(task.instruction)}` : 'A task';
    }
    case 'loop': {
      const info = names.loops.find((l) => l.id === target.loop_id);
      return info ? `Loop: ${firstLine(info.settings.goal)}` : 'A loop';
    }
  }
}

function clock(at: number): string {
  return new Date(at).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' });
}

/** Whether a new log entry may change what a target shows (the engine knows exactly; this
 * only saves asking it about entries of other agents). */
export function mayConcern(target: FlowTarget, entry: LogEntry, profileId: string | null, agentOf: string | null): boolean {
  switch (target.of) {
    case 'agent':
      return profileId === null || profileId === target.profile_id;
    case 'session':
      return entry.session_id === target.session_id || entry.kind === 'delegation' || entry.session_id === null;
    case 'task':
      return entry.task_id === target.task_id || (agentOf !== null && profileId === agentOf);
    case 'loop':
      return agentOf === null || profileId === null || profileId === agentOf;
  }
}

/** A diagram's lit nodes as their labels, for the list beside the drawing. */
export function litLabels(state: DiagramState | undefined, labels: Map<string, string>): string[] {
  return (state?.current ?? []).map((node) => (labels.get(node) ?? node).split('\n')[0]);
}
