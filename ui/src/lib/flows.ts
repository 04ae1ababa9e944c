/**
 * The flows view's words: an event log entry in a sentence, its group for the filter, the
 * lines an export writes, and what a target is called. Where an agent stands in a diagram
 * is the engine's answer (`flow_view`); nothing here decides it.
 */
import type { DiagramSilence, DiagramState, FlowTarget, LogEntry, LoopInfo, Profile, SessionInfo, TaskInfo } from './bindings';
import { firstLine, taskTitle } from './tasks';
import { timelineText } from './timeline';
import { localeWords } from './model';

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

/** An event log entry in plain words (the same words as a task's timeline). */
export function describeEntry(entry: LogEntry): string {
  return timelineText(entry);
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
      return task ? `Task: ${taskTitle(task)}` : 'A task';
    }
    case 'loop': {
      const info = names.loops.find((l) => l.id === target.loop_id);
      return info ? `Loop: ${firstLine(info.settings.goal)}` : 'A loop';
    }
  }
}

function clock(at: number): string {
  return localeWords(new Date(at), { hour: '2-digit', minute: '2-digit', second: '2-digit' });
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

/** Why a diagram shows nothing for this agent, in a sentence (the engine says which do). */
export function silenceText(silent: DiagramSilence): string {
  switch (silent) {
    case 'no_hooks':
      return 'Nothing to show for this agent: it is drawn from the hook events only Claude Code and Codex send, and this agent is a plain command.';
    case 'no_signal_protocols':
      return "Nothing to show for this agent: it is not taught to ask, stop or report in the app's signals (its settings, “Teach the signal protocols”).";
  }
}
