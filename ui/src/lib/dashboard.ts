/**
 * The dashboard's words and order: each agent's card as the engine's overview describes it
 * (status, what it is at, since when, its queue), sorted as the user chose.
 */
import type { Attention, OverviewAgent } from './bindings';
import { attentionLabel, attentionRank } from './attention';
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
 * that never ran is "never started").
 */
export type CardState =
  | 'needs-you'
  | 'stalled'
  | 'failed'
  | 'limited'
  | 'working'
  | 'idle'
  | 'stopped'
  | 'never-started';

export function cardState(agent: OverviewAgent): CardState {
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

export function cardStateLabel(agent: OverviewAgent): string {
  return attentionLabel(agent.attention);
}

export function sortCards(agents: readonly OverviewAgent[], sort: DashboardSort): OverviewAgent[] {
  const byName = (a: OverviewAgent, b: OverviewAgent) => a.name.localeCompare(b.name);
  const key: Record<DashboardSort, (a: OverviewAgent, b: OverviewAgent) => number> = {
    attention: (a, b) => attentionRank(a.attention) - attentionRank(b.attention) || byName(a, b),
    name: byName,
    // The oldest state first; an agent that never ran has no time in a state and goes last.
    longest: (a, b) => (a.since ?? Infinity) - (b.since ?? Infinity) || byName(a, b),
    queue: (a, b) => b.queued - a.queued || byName(a, b),
  };
  return [...agents].sort(key[sort]);
}

/** "for 3m 20s", from when the agent entered its state; none when that is not known. */
export function timeInState(agent: OverviewAgent, now: number): string | null {
  if (agent.since === null) return null;
  return `for ${formatDuration((now - agent.since) / 1000)}`;
}

/** What the agent is at, in a line: its loop's iteration or its task. */
export function doingLine(agent: OverviewAgent): string | null {
  if (agent.loop_iteration !== null) return `Loop, iteration ${agent.loop_iteration}${agent.doing ? `: ${agent.doing}` : ''}`;
  return agent.doing;
}

export function queuedLabel(queued: number): string {
  return queued === 0 ? 'Nothing queued' : `${queued} queued`;
}

/** The header's line: how many agents, how many need the user, may be stuck, failed, wait for a usage limit, work, and the queues. */
export function dashboardSummary(agents: readonly OverviewAgent[]): string {
  const count = (state: Attention['state']) => agents.filter((a) => a.attention.state === state).length;
  const parts = [agents.length === 1 ? '1 agent' : `${agents.length} agents`];
  const needs = count('needs_you');
  if (needs) parts.push(`${needs} need${needs === 1 ? 's' : ''} you`);
  if (count('stalled')) parts.push(`${count('stalled')} may be stuck`);
  if (count('failed')) parts.push(`${count('failed')} failed`);
  if (count('limited')) parts.push(`${count('limited')} at usage limit`);
  if (count('working')) parts.push(`${count('working')} working`);
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
