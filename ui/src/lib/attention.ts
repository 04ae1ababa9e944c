/**
 * Each agent's attention in words. The engine decides the state (one value per agent, see
 * `attention.rs`); this module only says it: a short label for a badge, a sentence for a line
 * or a tooltip, and the order of the states, most pressing first, for lists that put them in
 * that order.
 */
import type { AgentAttention, Attention, EngineEvent, Ending, Need, ProfileId } from './bindings';
import { formatTime } from './model';

export type AttentionState = Attention['state'];

export type AttentionMap = Readonly<Record<ProfileId, Attention>>;

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

export function attentionRank(attention: Attention | undefined): number {
  return attention ? ATTENTION_ORDER.indexOf(attention.state) : ATTENTION_ORDER.length;
}

/**
 * Whether the state asks the user to act or look: needs you, stalled, failed. An agent at its
 * usage limit does not: the app waits for the reset by itself.
 */
export function asksTheUser(attention: Attention | undefined): boolean {
  return attention?.state === 'needs_you' || attention?.state === 'stalled' || attention?.state === 'failed';
}

/** A badge's word or two. */
export function attentionLabel(attention: Attention): string {
  switch (attention.state) {
    case 'needs_you':
      return 'needs you';
    case 'stalled':
      return attention.stall.kind === 'loop' ? 'loop stalled' : 'may be stuck';
    case 'failed':
      return attention.count === 1 ? 'task failed' : `${attention.count} tasks failed`;
    case 'limited':
      return attention.until === null ? 'usage limit' : `limited ${limitedWhen(attention)}`;
    case 'working':
      return 'working';
    case 'idle':
      return 'idle';
    case 'stopped':
      return attention.ended === null ? 'not started' : 'stopped';
  }
}

/** When a limited agent goes on: "until 14:05", or "reset time unknown; tries again at 14:07". */
export function limitedWhen(attention: Extract<Attention, { state: 'limited' }>, now = new Date()): string {
  return attention.until === null
    ? `reset time unknown; tries again at ${formatTime(attention.retry_at, now)}`
    : `until ${formatTime(attention.until, now)}`;
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
export function attentionLine(attention: Attention): string {
  switch (attention.state) {
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
        return `At its usage limit (${limitedWhen(attention)})${task}`;
      }
      const task = attention.task ? `; “${attention.task}” waits and goes on then` : '';
      return `At its usage limit ${limitedWhen(attention)}${task}`;
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
