/**
 * The dashboard's words and order: each agent's card as the engine's overview describes it
 * (status, what it is at, since when, its queue), sorted as the user chose. The attention is
 * the one the window shows (`shownAttention`): unknown while the agent's machine is disconnected.
 */
import { attentionLabel, attentionRank, type ShownAttention, type ShownOverviewAgent } from './attention';
import { formatDuration } from './tasks';

export type DashboardSort = 'attention' | 'name' | 'longest' | 'queue';

export const SORTS: readonly { value: DashboardSort; label: string }[] = [
  { value: 'attention', label: 'Needs you first' },
  { value: 'name', label: 'Name' },
  { value: 'longest', label: 'Longest in its state' },
  { value: 'queue', label: 'Most queued' },
];

/**
 * What a card shows the agent as: its attention, as the engine worked it out (a stopped agent
 * that never ran is "never started"), or unknown while its machine is disconnected.
 */
export type CardState =
  | 'needs-you'
  | 'stalled'
  | 'failed'
  | 'limited'
  | 'working'
  | 'idle'
  | 'stopped'
  | 'never-started'
  | 'unknown';

export function cardState(agent: ShownOverviewAgent): CardState {
  const attention = agent.attention;
  switch (attention.state) {
    case 'needs_you':
      return 'needs-you';
    case 'stopped':
      return attention.ended === null ? 'never-started' : 'stopped';
    default:
      return attention.state;
  }
}

export function cardStateLabel(agent: ShownOverviewAgent): string {
  return attentionLabel(agent.attention);
}

export function sortCards<Agent extends ShownOverviewAgent>(agents: readonly Agent[], sort: DashboardSort): Agent[] {
  const byName = (a: Agent, b: Agent) => a.name.localeCompare(b.name);
  const key: Record<DashboardSort, (a: Agent, b: Agent) => number> = {
    attention: (a, b) => attentionRank(a.attention) - attentionRank(b.attention) || byName(a, b),
    name: byName,
    // The oldest state first; an agent that never ran has no time in a state and goes last.
    longest: (a, b) => (a.since ?? Infinity) - (b.since ?? Infinity) || byName(a, b),
    queue: (a, b) => b.queued - a.queued || byName(a, b),
  };
  return [...agents].sort(key[sort]);
}

/**
 * "for 3m 20s", from when the agent entered its state; none when that is not known (nor while
 * the state itself is not known: the time heard last is that of a state that may be over).
 */
export function timeInState(agent: ShownOverviewAgent, now: number): string | null {
  if (agent.since === null || agent.attention.state === 'unknown') return null;
  return `for ${formatDuration((now - agent.since) / 1000)}`;
}

/** What the agent is at, in a line: its loop's iteration or its task. */
export function doingLine(agent: ShownOverviewAgent): string | null {
  if (agent.loop_iteration !== null) return `Loop, iteration ${agent.loop_iteration}${agent.doing ? `: ${agent.doing}` : ''}`;
  return agent.doing;
}

export function queuedLabel(queued: number): string {
  return queued === 0 ? 'Nothing queued' : `${queued} queued`;
}

/**
 * The header's line: how many agents, how many need the user, may be stuck, failed, wait for a
 * usage limit, work, are not known (their machine is disconnected: counted as none of the
 * others), and the queues.
 */
export function dashboardSummary(agents: readonly ShownOverviewAgent[]): string {
  const count = (state: ShownAttention['state']) => agents.filter((a) => a.attention.state === state).length;
  const parts = [agents.length === 1 ? '1 agent' : `${agents.length} agents`];
  const needs = count('needs_you');
  if (needs) parts.push(`${needs} need${needs === 1 ? 's' : ''} you`);
  if (count('stalled')) parts.push(`${count('stalled')} may be stuck`);
  if (count('failed')) parts.push(`${count('failed')} failed`);
  if (count('limited')) parts.push(`${count('limited')} at usage limit`);
  if (count('working')) parts.push(`${count('working')} working`);
  if (count('unknown')) parts.push(`${count('unknown')} not known`);
  const queued = agents.reduce((sum, a) => sum + a.queued, 0);
  if (queued) parts.push(`${queued} queued`);
  return parts.join(' · ');
}

/** The last lines of a screen worth showing in a small preview: trailing blank lines dropped. */
export function previewLines(screen: string, rows: number): string[] {
  const lines = screen.split('\n').map((line) => line.trimEnd());
  while (lines.length && lines.at(-1) === '') lines.pop();
  return lines.slice(-rows);
}
