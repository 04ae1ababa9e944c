/**
 * The dashboard's words and order: each agent's card as the engine's overview describes it
 * (status, what it is at, since when, its queue), sorted as the user chose.
 */
import type { OverviewAgent } from './bindings';
import { statusLabel } from './agentStatus';
import { formatDuration } from './tasks';

export type DashboardSort = 'attention' | 'name' | 'longest' | 'queue';

export const SORTS: readonly { value: DashboardSort; label: string }[] = [
  { value: 'attention', label: 'Needs you first' },
  { value: 'name', label: 'Name' },
  { value: 'longest', label: 'Longest in its state' },
  { value: 'queue', label: 'Most queued' },
];

/** What a card shows the agent as: its status, or that it is stopped or never ran. */
export type CardState = 'needs-you' | 'working' | 'waiting' | 'done' | 'stopped' | 'never-started';

export function cardState(agent: OverviewAgent): CardState {
  if (!agent.running) return agent.since === null ? 'never-started' : 'stopped';
  switch (agent.status) {
    case 'attention':
      return 'needs-you';
    case 'working':
      return 'working';
    case 'done':
      return 'done';
    default:
      return 'waiting';
  }
}

export function cardStateLabel(state: CardState): string {
  switch (state) {
    case 'needs-you':
      return statusLabel('attention');
    case 'working':
      return statusLabel('working');
    case 'done':
      return statusLabel('done');
    case 'waiting':
      return 'idle';
    case 'stopped':
      return 'stopped';
    case 'never-started':
      return 'not started';
  }
}

/** Needs you, then at work, then idle, then stopped. */
const URGENCY: Record<CardState, number> = { 'needs-you': 0, working: 1, done: 2, waiting: 3, stopped: 4, 'never-started': 5 };

export function sortCards(agents: readonly OverviewAgent[], sort: DashboardSort): OverviewAgent[] {
  const byName = (a: OverviewAgent, b: OverviewAgent) => a.name.localeCompare(b.name);
  const key: Record<DashboardSort, (a: OverviewAgent, b: OverviewAgent) => number> = {
    attention: (a, b) => URGENCY[cardState(a)] - URGENCY[cardState(b)] || byName(a, b),
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

/** The header's line: how many agents, and how many need the user, work, wait in queues. */
export function dashboardSummary(agents: readonly OverviewAgent[]): string {
  const states = agents.map(cardState);
  const count = (state: CardState) => states.filter((s) => s === state).length;
  const parts = [agents.length === 1 ? '1 agent' : `${agents.length} agents`];
  if (count('needs-you')) parts.push(`${count('needs-you')} need${count('needs-you') === 1 ? 's' : ''} you`);
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
