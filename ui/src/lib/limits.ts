/**
 * Usage limits in words, and when the user may have an agent go on now. The engine decides
 * everything here: an account's limit (`AccountLimit`, told by `limit_changed` and
 * `limit_lifted`), its usage as its CLI last told it (`AccountUsage`, told by
 * `usage_changed`), each agent's `limited` attention, a task's `usage_limit`, `overloaded` or
 * `account` wait. This module keeps the lists of limits and of usage, says them, and tells
 * which agents the window offers "Resume now" for (`resumeAgent`: go on without waiting for
 * the reset).
 */
import type { AccountLimit, AccountUsage, Attention, EngineEvent, ProfileId, TaskInfo, UsageLevel, UsageWindow, WaitingFor } from './bindings';
import { attentionLine, needWords, type ShownAttention } from './attention';
import { resetWords } from './model';
import { isFinished, waitSentence } from './tasks';

/** The limits after `event`; the same list when the event is about something else. */
export function applyLimitEvent(limits: readonly AccountLimit[], event: EngineEvent): readonly AccountLimit[] {
  switch (event.type) {
    case 'limit_changed':
      return [...limits.filter((l) => l.account !== event.limit.account), event.limit];
    case 'limit_lifted':
      return limits.some((l) => l.account === event.account) ? limits.filter((l) => l.account !== event.account) : limits;
    default:
      return limits;
  }
}

/** The limit the agent's account is at, if it is. */
export function limitOf(limits: readonly AccountLimit[], profileId: ProfileId): AccountLimit | undefined {
  return limits.find((l) => l.profiles.includes(profileId));
}

/** The accounts' usage after `event`: the account's told anew replaces what it told before. */
export function applyUsageEvent(usage: readonly AccountUsage[], event: EngineEvent): readonly AccountUsage[] {
  if (event.type !== 'usage_changed') return usage;
  return [...usage.filter((u) => u.account !== event.usage.account), event.usage];
}

/** The usage of the agent's account, if its CLI told it. */
export function usageOf(usage: readonly AccountUsage[], profileId: ProfileId): AccountUsage | undefined {
  return usage.find((u) => u.profiles.includes(profileId));
}

/** A task's waits that "Resume now" ends: the engine's `resume_agent` lets each go on. */
const RESUMABLE: ReadonlySet<WaitingFor['cause']> = new Set(['usage_limit', 'overloaded', 'account']);

/** Whether the task waits for something the user may end with "Resume now". */
export function taskResumable(task: TaskInfo): boolean {
  return !isFinished(task.state) && task.waiting_for !== null && RESUMABLE.has(task.waiting_for.cause);
}

/** What holds an agent back that "Resume now" ends, in the user's words. */
export interface Hold {
  kind: 'limited' | 'account' | 'limit_persists' | 'overloaded';
  /** What holds it, as a sentence. */
  line: string;
  /** What the user may do, or what the app does meanwhile. */
  next: string;
  /**
   * Whether "Resume now" is offered. It always is while something holds the agent back: for an
   * agent with nothing of its own waiting, resuming has its account's agents go on (the one
   * refused first first), as at a reset.
   */
  resumable: boolean;
}

/**
 * What holds the agent back that "Resume now" ends; null when nothing does. Its attention says
 * it first (at its usage limit; its account needs the user; the limit did not lift after
 * several resets); else its task at work (`task`), paused for an overloaded model or an
 * account problem, says it. `queued`: how many of its tasks are queued.
 */
export function holdOf(attention: ShownAttention | undefined, task: TaskInfo | undefined, now: number, queued = 0): Hold | null {
  // Its machine is disconnected: what holds it back there is not known, nor is resuming it possible.
  if (attention?.state === 'unknown') return null;
  const hasWork = task !== undefined || queued > 0 || (attention?.state === 'limited' && attention.task_id !== null);
  const idle =
    'Nothing of its own waits: it takes new tasks once the limit is over. Resume it to have its account’s agents go on now.';
  if (attention?.state === 'limited') {
    const next = !hasWork
      ? idle
      : attention.until === null
        ? 'Its tasks are kept. If you know the limit has lifted, resume it now.'
        : 'Its tasks are kept and go on then, or now if you resume it.';
    return { kind: 'limited', line: attentionLine(attention, new Date(now)), next, resumable: true };
  }
  if (attention?.state === 'needs_you' && attention.need.kind === 'account') {
    return { kind: 'account', line: needWords(attention.need), next: 'Once you have seen to it, resume it: its task goes on.', resumable: true };
  }
  if (attention?.state === 'needs_you' && attention.need.kind === 'limit_persists') {
    const next = hasWork ? 'The app no longer tries by itself: its tasks wait for you.' : idle;
    return { kind: 'limit_persists', line: needWords(attention.need), next, resumable: true };
  }
  if (task && taskResumable(task)) {
    const line = waitSentence(task, now);
    if (line === null) return null;
    const kind = task.waiting_for?.cause === 'overloaded' ? 'overloaded' : task.waiting_for?.cause === 'account' ? 'account' : 'limited';
    return { kind, line, next: kind === 'overloaded' ? 'Resume it to try now.' : 'Resume it to go on now.', resumable: true };
  }
  return null;
}

/**
 * When a limited agent goes on, as a short sentence under its state: "Resets at 14:05; it goes
 * on then", or "Reset time unknown; tries again at 14:07".
 */
export function limitNote(attention: Extract<Attention, { state: 'limited' }>, now = new Date()): string {
  return attention.until === null
    ? `Reset time unknown; tries again at ${resetWords(attention.retry_at, now.getTime())}`
    : `Resets at ${resetWords(attention.until, now.getTime())}; it goes on then`;
}

/** A home folder written out (`/home/ann/.claude`), as the user writes it (`~/.claude`). */
const HOME = /^(?:\/home\/[^/]+|\/Users\/[^/]+|\/root)(?=\/|$)/;

/**
 * The account as the user knows it: the name its agents' profiles give it, or its CLI's own
 * folder (where the CLI keeps its sign-in), the home folder as `~`. Null for an agent that is
 * an account of its own (a generic agent without one named: the engine's `agent <id>`).
 */
export function accountName(account: string, profileId: ProfileId): string | null {
  if (account === `agent ${profileId}`) return null;
  return account.startsWith('/') ? account.replace(HOME, '~') : account;
}

/**
 * The limit's detail for one of its agents, in sentences: its account and who shares it; how
 * the app goes on (one agent at a time: who goes now; the resets that passed still refused).
 * `names`: the agents' names by id (an agent not listed is "another agent").
 */
export function limitDetail(limit: AccountLimit, profileId: ProfileId, names: ReadonlyMap<ProfileId, string>, now: number): string[] {
  const lines: string[] = [];
  const account = accountName(limit.account, profileId);
  const others = limit.profiles.filter((p) => p !== profileId).map((p) => names.get(p) ?? 'another agent');
  if (account !== null) {
    lines.push(
      others.length === 0
        ? `Account ${account}.`
        : `Account ${account}, shared with ${joinNames(others)}: they wait for its reset together.`,
    );
  }
  switch (limit.phase.phase) {
    case 'resuming': {
      const going = limit.phase.profile_id;
      lines.push(
        going === profileId
          ? '“continue” was typed into it: the limit is over once its turn runs.'
          : `Its account's agents go on one at a time: ${names.get(going) ?? 'another agent'} first.`,
      );
      break;
    }
    case 'waiting':
      if (limit.passed > 0) {
        const resets = limit.passed === 1 ? '1 reset' : `${limit.passed} resets`;
        lines.push(`Still refused after ${resets}: the app tries again at ${resetWords(limit.retry_at, now)}.`);
      }
      break;
    case 'asks_user':
      break;
  }
  return lines;
}

/** One usage window as a bar shows it: its name, how much is used, when it resets. */
export interface UsageBar {
  /** "5 hours", "week". */
  label: string;
  /** The name where room is short: "5 h", "week". */
  short: string;
  /** How much is used, 0 to 100; 0 once the window has reset since its CLI told it. */
  percent: number;
  /** How the engine weighed it against the user's warning: as usual, past it, used up. */
  level: UsageLevel;
  /** "5 hours: 100% used, resets 14:05". */
  words: string;
}

/** A window's name: "5 hours", "week", else its length. */
function windowName(minutes: number): string {
  if (minutes === 10080) return 'week';
  if (minutes % 1440 === 0) return minutes === 1440 ? 'day' : `${minutes / 1440} days`;
  if (minutes % 60 === 0) return minutes === 60 ? 'hour' : `${minutes / 60} hours`;
  return `${minutes} minutes`;
}

/** A window's name where room is short: "5 h", "week", "2 d", "90 min". */
function windowShort(minutes: number): string {
  if (minutes === 10080) return 'week';
  if (minutes === 1440) return 'day';
  if (minutes % 1440 === 0) return `${minutes / 1440} d`;
  if (minutes % 60 === 0) return `${minutes / 60} h`;
  return `${minutes} min`;
}

/**
 * The account's usage windows, as its CLI last told them, for bars; each marked as the engine
 * weighed it against the user's warning (`level`). A window whose reset has passed since is
 * shown empty: what was used then no longer counts, and nothing newer was told.
 */
export function usageBars(windows: readonly UsageWindow[], now: number): UsageBar[] {
  return windows.map((window) => {
    const label = windowName(window.minutes);
    const name = `${label.charAt(0).toUpperCase()}${label.slice(1)}`;
    const base = { label, short: windowShort(window.minutes) };
    if (window.resets_at !== null && window.resets_at <= now) {
      return { ...base, percent: 0, level: 'ok', words: `${name}: reset at ${resetWords(window.resets_at, now)}` };
    }
    const percent = Math.min(100, Math.max(0, window.used_percent));
    const resets = window.resets_at === null ? '' : `, resets ${resetWords(window.resets_at, now)}`;
    return { ...base, percent, level: window.level, words: `${name}: ${percent}% used${resets}` };
  });
}

/** Names in a sentence: "a", "a and b", "a, b and c". */
export function joinNames(names: readonly string[]): string {
  return names.length <= 1 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}
