/**
 * Each agent's attention in words. The engine decides the state (one value per agent, see
 * `attention.rs`); this module only says it: a short label for a badge, a sentence for a line
 * or a tooltip, and the order of the states, most pressing first, for lists that put them in
 * that order. What the window shows is the engine's word as `shownAttention` lets it through:
 * an agent of a machine the window cannot reach now reads as unknown, never as the last state
 * heard from there.
 */
import type { AgentAttention, Attention, EngineEvent, Ending, HostLink, Need, Overview, OverviewAgent, Profile, ProfileId } from './bindings';
import { disconnectedMachine } from './hosts';
import { resetWords } from './model';

export type AttentionState = Attention['state'];

export type AttentionMap = Readonly<Record<ProfileId, Attention>>;

/**
 * An agent's attention while the machine it runs on is disconnected: not known. Its engine goes
 * on deciding there, but the window hears nothing of it, so the last state heard may be stale.
 * `since` is never known either (it is there so every shown state has one).
 */
export interface UnknownAttention {
  state: 'unknown';
  /** The machine the window cannot reach. */
  host: string;
  since: null;
}

/** What the window shows of an agent's attention: its engine's word, or unknown. */
export type ShownAttention = Attention | UnknownAttention;

export type ShownAttentionMap = Readonly<Record<ProfileId, ShownAttention>>;

/**
 * What to show of an agent's attention: the engine's word, unless `disconnected` names the
 * machine it runs on because the window cannot reach it now (`disconnectedMachine`), when it is
 * unknown. This computer's agents (no machine named) always show their engine's word.
 */
export function shownAttention(attention: Attention, disconnected: string | null): ShownAttention {
  return disconnected === null ? attention : { state: 'unknown', host: disconnected, since: null };
}

/** The machine out of reach that `profileId`'s agent runs on (null: reached, or this computer's). */
function disconnectedOf(profileId: ProfileId, profiles: readonly Pick<Profile, 'id' | 'host'>[], links: readonly HostLink[]): string | null {
  return disconnectedMachine(profiles.find((p) => p.id === profileId)?.host, links);
}

/**
 * Every agent's attention as the window shows it (`shownAttention`), each agent's machine looked
 * up in `profiles` and its link in `links`. An agent the window does not know is said as heard.
 */
export function shownAttentionMap(map: AttentionMap, profiles: readonly Pick<Profile, 'id' | 'host'>[], links: readonly HostLink[]): ShownAttentionMap {
  // Every machine reached (the usual case): the map as heard, the same object.
  if (!links.some((l) => l.link.state !== 'connected')) return map;
  return Object.fromEntries(Object.entries(map).map(([id, attention]) => [id, shownAttention(attention, disconnectedOf(id, profiles, links))]));
}

/** An agent of the engine's overview, its attention as the window shows it. */
export type ShownOverviewAgent = Omit<OverviewAgent, 'attention'> & { attention: ShownAttention };
export type ShownOverview = Omit<Overview, 'agents'> & { agents: ShownOverviewAgent[] };

/**
 * The engine's overview with each agent's attention as the window shows it (`shownAttention`).
 * A machine out of reach answers nothing, so its agents (as the window last listed them) are
 * added, not known, rather than left out: the dashboard still counts and shows them.
 */
export function shownOverview(overview: Overview, profiles: readonly Pick<Profile, 'id' | 'host' | 'name'>[], links: readonly HostLink[]): ShownOverview {
  // Every machine reached (the usual case): the overview as heard, the same object.
  if (!links.some((l) => l.link.state !== 'connected')) return overview;
  const listed = new Set(overview.agents.map((a) => a.profile_id));
  const away: ShownOverviewAgent[] = profiles.flatMap((profile) => {
    const host = disconnectedMachine(profile.host, links);
    if (host === null || listed.has(profile.id)) return [];
    return [
      {
        profile_id: profile.id,
        name: profile.name,
        session_id: null,
        status: null,
        since: null,
        running: false,
        task_id: null,
        doing: null,
        loop_iteration: null,
        queued: 0,
        needs_user: 0,
        attention: shownAttention({ state: 'idle', since: null }, host),
      },
    ];
  });
  return {
    ...overview,
    agents: [
      ...overview.agents.map((agent) => ({ ...agent, attention: shownAttention(agent.attention, disconnectedOf(agent.profile_id, profiles, links)) })),
      ...away,
    ],
  };
}

export function attentionMapOf(list: readonly AgentAttention[]): AttentionMap {
  return Object.fromEntries(list.map((agent) => [agent.profile_id, agent.attention]));
}

/** The map after `event`; the same object when the event is about something else. */
export function applyAttentionEvent(map: AttentionMap, event: EngineEvent): AttentionMap {
  if (event.type === 'attention_changed') return { ...map, [event.profile_id]: event.attention };
  if (event.type === 'profile_deleted' && event.profile_id in map) {
    return Object.fromEntries(Object.entries(map).filter(([profileId]) => profileId !== event.profile_id));
  }
  return map;
}

/** The states in the engine's order of priority (the variants' order in `Attention`). */
export const ATTENTION_ORDER: readonly AttentionState[] = [
  'needs_you',
  'stalled',
  'failed',
  'limited',
  'working',
  'idle',
  'stopped',
];

/** Its place in `ATTENTION_ORDER`; an agent with no state, or one not known, comes after them all. */
export function attentionRank(attention: ShownAttention | undefined): number {
  return attention === undefined || attention.state === 'unknown' ? ATTENTION_ORDER.length : ATTENTION_ORDER.indexOf(attention.state);
}

/**
 * Whether the state asks the user to act or look: needs you, stalled, failed. An agent at its
 * usage limit does not: the app waits for the reset by itself.
 */
export function asksTheUser(attention: ShownAttention | undefined): boolean {
  return attention?.state === 'needs_you' || attention?.state === 'stalled' || attention?.state === 'failed';
}

/** A badge's word or two. */
export function attentionLabel(attention: ShownAttention, now = new Date()): string {
  switch (attention.state) {
    case 'unknown':
      return 'unknown';
    case 'needs_you':
      return 'needs you';
    case 'stalled':
      return attention.stall.kind === 'loop' ? 'loop stalled' : 'may be stuck';
    case 'failed':
      return attention.count === 1 ? 'task failed' : `${attention.count} tasks failed`;
    case 'limited':
      return attention.until === null ? 'usage limit' : `limited ${limitedWhen(attention, now)}`;
    case 'working':
      return 'working';
    case 'idle':
      return 'idle';
    case 'stopped':
      return attention.ended === null ? 'not started' : 'stopped';
  }
}

/** When a limited agent goes on: "until 14:05", "until Fri 00:13", or "reset time unknown; tries again at 14:07". */
export function limitedWhen(attention: Extract<Attention, { state: 'limited' }>, now = new Date()): string {
  return attention.until === null
    ? `reset time unknown; tries again at ${resetWords(attention.retry_at, now.getTime())}`
    : `until ${resetWords(attention.until, now.getTime())}`;
}

const plural = (count: number, one: string, many = `${one}s`) => `${count} ${count === 1 ? one : many}`;

/** What the agent needs of the user, as a sentence. */
export function needWords(need: Need): string {
  switch (need.kind) {
    case 'question':
      return need.questions > 1 ? `Asks ${plural(need.questions, 'question')}: ${need.first}` : `Asks: ${need.first}`;
    case 'permission':
      return `Asks permission to use ${need.tool}`;
    case 'blocker':
      return `Is blocked: ${need.blocker}`;
    case 'delegation':
      return 'Asks to hand work to another agent';
    case 'report':
      return 'Reports its work done, for your review';
    case 'unreadable':
      return 'Printed a request that could not be read';
    case 'asks':
      return 'Waits for you at its prompt';
    case 'account':
      return `Its account needs you: ${need.why}`;
    case 'limit_persists':
      return `Still at its usage limit after ${plural(need.resets, 'reset')}: resume it when you know the limit has lifted`;
  }
}

function endingWords(ended: Ending): string {
  switch (ended.how) {
    case 'exited':
      return ended.signal ? `ended by ${ended.signal}` : ended.code === 0 ? 'exited' : `exited with code ${ended.code}`;
    case 'stopped':
      return 'stopped';
    case 'interrupted':
      return 'interrupted when the app stopped';
  }
}

/** The state as a sentence: what it needs, what holds it, what failed, what it does. */
export function attentionLine(attention: ShownAttention, now = new Date()): string {
  switch (attention.state) {
    case 'unknown':
      return `Not known while ${attention.host} is disconnected`;
    case 'needs_you': {
      const more = attention.waiting > 1 ? ` (${attention.waiting} things wait)` : '';
      return `${needWords(attention.need)}${more}`;
    }
    case 'stalled':
      return attention.stall.kind === 'loop'
        ? `Its loop is stuck on “${attention.stall.goal}”: ${attention.stall.reason}`
        : `No output for a while on “${attention.stall.task}”: it may be stuck`;
    case 'failed': {
      const what = attention.count === 1 ? 'A task failed' : `${attention.count} tasks failed`;
      return `${what} since you last looked: “${attention.task}”${attention.reason ? `: ${attention.reason}` : ''}`;
    }
    case 'limited': {
      if (attention.until === null) {
        const task = attention.task ? `; “${attention.task}” waits meanwhile` : '';
        return `At its usage limit (${limitedWhen(attention, now)})${task}`;
      }
      const task = attention.task ? `; “${attention.task}” waits and goes on then` : '';
      return `At its usage limit ${limitedWhen(attention, now)}${task}`;
    }
    case 'working':
      return attention.task ? `Working on “${attention.task}”` : 'Working';
    case 'idle':
      return 'Idle: nothing to do';
    case 'stopped': {
      if (attention.ended === null) return 'Not started yet';
      const failed = attention.failed > 0 ? `; ${plural(attention.failed, 'task')} failed in its last run` : '';
      const how = endingWords(attention.ended);
      return `${how.charAt(0).toUpperCase()}${how.slice(1)}${failed}`;
    }
  }
}
