import { describe, expect, it } from 'vitest';
import type { AccountLimit, AccountUsage, Attention, EngineEvent, UsageLevel, UsageWindow } from './bindings';
import {
  accountName,
  applyLimitEvent,
  applyUsageEvent,
  holdOf,
  limitDetail,
  limitNote,
  limitOf,
  taskResumable,
  usageBars,
  usageOf,
} from './limits';
import { shownAttention } from './attention';
import { formatTime, resetWords } from './model';
import { task } from '../test/tasks';

// Local times, as the window shows them (the user's clock and locale).
const NOW = new Date(2026, 10, 26, 13, 0).getTime();
const RESET = new Date(2026, 10, 26, 14, 5).getTime();
const RETRY = new Date(2026, 10, 26, 14, 7).getTime();
const at = (time: number) => formatTime(time, new Date(NOW));

const limit = (overrides: Partial<AccountLimit> = {}): AccountLimit => ({
  account: '/home/ann/.claude',
  profiles: ['builder', 'reviewer'],
  since: NOW - 60_000,
  until: RESET,
  retry_at: RESET + 30_000,
  passed: 0,
  phase: { phase: 'waiting' },
  ...overrides,
});

const limited = (overrides: Partial<Extract<Attention, { state: 'limited' }>> = {}): Attention => ({
  state: 'limited',
  account: '/home/ann/.claude',
  until: RESET,
  retry_at: RESET + 30_000,
  since: NOW - 60_000,
  task_id: 't',
  task: 'Port the parser',
  ...overrides,
});

describe('the limits the window keeps', () => {
  it('folds limit_changed and limit_lifted, one per account', () => {
    const first = limit();
    const other = limit({ account: 'work plan', profiles: ['night'] });
    let limits = applyLimitEvent([], { type: 'limit_changed', limit: first });
    limits = applyLimitEvent(limits, { type: 'limit_changed', limit: other });
    const resuming = limit({ phase: { phase: 'resuming', profile_id: 'builder' } });
    limits = applyLimitEvent(limits, { type: 'limit_changed', limit: resuming });
    expect(limits).toEqual([other, resuming]);
    expect(limitOf(limits, 'reviewer')).toBe(resuming);
    expect(limitOf(limits, 'night')).toBe(other);
    expect(limitOf(limits, 'someone')).toBeUndefined();

    limits = applyLimitEvent(limits, { type: 'limit_lifted', account: first.account, profiles: first.profiles, by_user: true, at_reset: false });
    expect(limits).toEqual([other]);
  });

  it('keeps the same list for other events and for a limit it never had', () => {
    const limits = [limit()];
    const lifted: EngineEvent = { type: 'limit_lifted', account: 'unknown', profiles: [], by_user: false, at_reset: false };
    expect(applyLimitEvent(limits, lifted)).toBe(limits);
    expect(applyLimitEvent(limits, { type: 'profile_deleted', profile_id: 'builder' })).toBe(limits);
  });
});

describe('what Resume now ends', () => {
  it.each<[string, Parameters<typeof task>[1], boolean]>([
    ['a task at work waiting for its usage limit', { state: 'running', waiting_for: { cause: 'usage_limit', account: 'a', until: null, retry_at: 1 } }, true],
    ['a queued task held by its usage limit', { waiting_for: { cause: 'usage_limit', account: 'a', until: null, retry_at: 1 } }, true],
    ['an overloaded model', { state: 'running', waiting_for: { cause: 'overloaded', retry_at: 1 } }, true],
    ['an account to see to', { state: 'running', waiting_for: { cause: 'account', why: 'sign in' } }, true],
    ['a prompt not seen (Type it now is for that)', { state: 'running', waiting_for: { cause: 'prompt', last_line: '>', pattern: 'x' } }, false],
    ['a paused queue', { waiting_for: { cause: 'queue_paused', reason: null } }, false],
    ['nothing', {}, false],
    ['an ended task, whatever a stale record says', { state: 'failed', waiting_for: { cause: 'overloaded', retry_at: 1 } }, false],
  ])('%s: %s', (_name, overrides, resumable) => {
    expect(taskResumable(task('t', overrides))).toBe(resumable);
  });

  it('an agent at its usage limit: when it goes on, what becomes of its tasks', () => {
    expect(holdOf(limited(), undefined, NOW)).toEqual({
      kind: 'limited',
      line: `At its usage limit until ${at(RESET)}; “Port the parser” waits and goes on then`,
      next: 'Its tasks are kept and go on then, or now if you resume it.',
      resumable: true,
    });
    expect(holdOf(limited({ until: null, retry_at: RETRY, task: null, task_id: null }), undefined, NOW, 2)).toEqual({
      kind: 'limited',
      line: `At its usage limit (reset time unknown; tries again at ${at(RETRY)})`,
      next: 'Its tasks are kept. If you know the limit has lifted, resume it now.',
      resumable: true,
    });
  });

  it('an agent of the account with nothing of its own waiting is told so, and may have the account go on', () => {
    // Resuming it has the account's agents go on, the one refused first first.
    expect(holdOf(limited({ task: null, task_id: null }), undefined, NOW, 0)).toMatchObject({
      kind: 'limited',
      next: 'Nothing of its own waits: it takes new tasks once the limit is over. Resume it to have its account’s agents go on now.',
      resumable: true,
    });
    const persists: Attention = { state: 'needs_you', need: { kind: 'limit_persists', account: 'a', resets: 3 }, since: 1, task_id: null, task: null, signal_id: null, waiting: 1 };
    expect(holdOf(persists, undefined, NOW, 0)?.resumable).toBe(true);
  });

  it('an account to see to, and a limit that did not lift, are the user\'s', () => {
    const needs = (need: Extract<Attention, { state: 'needs_you' }>['need']): Attention => ({
      state: 'needs_you',
      need,
      since: 1,
      task_id: 't',
      task: 'Port the parser',
      signal_id: null,
      waiting: 1,
    });
    const why = 'Claude Code could not sign in to its account: sign in again in its terminal (/login)';
    expect(holdOf(needs({ kind: 'account', why }), undefined, NOW)).toEqual({
      kind: 'account',
      line: `Its account needs you: ${why}`,
      next: 'Once you have seen to it, resume it: its task goes on.',
      resumable: true,
    });
    expect(holdOf(needs({ kind: 'limit_persists', account: '/home/ann/.claude', resets: 3 }), undefined, NOW)?.line).toBe(
      'Still at its usage limit after 3 resets: resume it when you know the limit has lifted',
    );
    // A question is answered in its dialog, not resumed.
    expect(holdOf(needs({ kind: 'asks' }), undefined, NOW)).toBeNull();
  });

  it('nothing while the agent’s machine is disconnected, whatever was heard last', () => {
    const paused = task('t', { state: 'running', waiting_for: { cause: 'overloaded', retry_at: RETRY } });
    expect(holdOf(shownAttention(limited(), 'build-box'), paused, NOW, 2)).toBeNull();
  });

  it('a task at work paused by an overloaded model, whatever else the agent shows', () => {
    const failedElsewhere: Attention = { state: 'failed', count: 1, task_id: 'x', task: 'Other', reason: null, since: 1 };
    const paused = task('t', { state: 'running', waiting_for: { cause: 'overloaded', retry_at: RETRY } });
    expect(holdOf(failedElsewhere, paused, NOW)).toEqual({
      kind: 'overloaded',
      line: `The model's service is overloaded: its agent is asked to go on at ${at(RETRY)}. Its time limit is paused.`,
      next: 'Resume it to try now.',
      resumable: true,
    });
    const working: Attention = { state: 'working', task_id: 't', task: 'Port', since: 1 };
    expect(holdOf(working, task('t', { state: 'running' }), NOW)).toBeNull();
    expect(holdOf(undefined, undefined, NOW)).toBeNull();
  });
});

const told = (overrides: Partial<AccountUsage> = {}): AccountUsage => ({
  account: '/home/ann/.claude',
  profiles: ['builder', 'reviewer'],
  windows: [{ minutes: 300, used_percent: 42, resets_at: RESET, level: 'ok' }],
  told_at: NOW,
  ...overrides,
});

describe("the accounts' usage the window keeps", () => {
  const first = told();
  const other = told({ account: 'work plan', profiles: ['night'] });
  const later = told({ windows: [{ minutes: 300, used_percent: 57, resets_at: RESET, level: 'ok' }] });
  it.each<[string, readonly AccountUsage[], EngineEvent, readonly AccountUsage[]]>([
    ['a first account told', [], { type: 'usage_changed', usage: first }, [first]],
    ['another account told', [first], { type: 'usage_changed', usage: other }, [first, other]],
    ['an account told anew replaces what it told', [first, other], { type: 'usage_changed', usage: later }, [other, later]],
  ])('%s', (_name, before, event, after) => {
    expect(applyUsageEvent(before, event)).toEqual(after);
  });

  it.each<[string, EngineEvent]>([
    ['a warning (the desktop notification is the engine\'s)', { type: 'usage_warning', account: first.account, profiles: first.profiles, window: first.windows[0] }],
    ['a limit reached', { type: 'limit_changed', limit: limit() }],
    ['a limit lifted', { type: 'limit_lifted', account: first.account, profiles: first.profiles, by_user: false, at_reset: false }],
    ['an agent deleted', { type: 'profile_deleted', profile_id: 'builder' }],
  ])('keeps the same list for %s', (_name, event) => {
    const usage = [first];
    expect(applyUsageEvent(usage, event)).toBe(usage);
  });

  it.each<[string, string, AccountUsage | undefined]>([
    ['an agent of the account', 'reviewer', first],
    ['an agent of another account', 'night', other],
    ['an agent whose account told nothing', 'someone', undefined],
  ])('the usage of %s', (_name, profileId, expected) => {
    expect(usageOf([first, other], profileId)).toBe(expected);
  });
});

describe("an account's usage as bars", () => {
  const window = (minutes: number, used: number, resets: number | null = null, level: UsageLevel = 'ok'): UsageWindow => ({
    minutes,
    used_percent: used,
    resets_at: resets,
    level,
  });

  it('each window named, how much is used, when it resets', () => {
    const bars = usageBars([window(300, 100, RESET), window(10080, 61), window(90, 5)], NOW);
    expect(bars.map((b) => [b.label, b.short, b.percent])).toEqual([
      ['5 hours', '5 h', 100],
      ['week', 'week', 61],
      ['90 minutes', '90 min', 5],
    ]);
    expect(bars[0].words).toBe(`5 hours: 100% used, resets ${at(RESET)}`);
    expect(bars[1].words).toBe('Week: 61% used');
    expect(usageBars([], NOW)).toEqual([]);
  });

  it.each<[number, string, string]>([
    [60, 'hour', '1 h'],
    [300, '5 hours', '5 h'],
    [1440, 'day', 'day'],
    [2880, '2 days', '2 d'],
    [10080, 'week', 'week'],
    [45, '45 minutes', '45 min'],
  ])('a window of %i minutes is the %s (%s)', (minutes, label, short) => {
    const [bar] = usageBars([window(minutes, 1)], NOW);
    expect([bar.label, bar.short]).toEqual([label, short]);
  });

  it.each<UsageLevel>(['ok', 'warn', 'full'])('a window the engine weighed %s is marked so', (level) => {
    expect(usageBars([window(300, 90, RESET, level)], NOW)[0].level).toBe(level);
  });

  it('a window whose reset has passed since it was told shows nothing used', () => {
    const passed = new Date(2026, 10, 26, 12, 0).getTime();
    expect(usageBars([window(300, 97, passed, 'warn')], NOW)).toEqual([
      { label: '5 hours', short: '5 h', percent: 0, level: 'ok', words: `5 hours: reset at ${at(passed)}` },
    ]);
  });

  it.each<[string, number, string]>([
    ['later today: the time', RESET, at(RESET)],
    ['later this week: the day and time', new Date(2026, 10, 30, 9, 0).getTime(), `${new Date(2026, 10, 30).toLocaleDateString(undefined, { weekday: 'short' })} ${new Date(2026, 10, 30, 9, 0).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' })}`],
    ['a week or more ahead: the date', new Date(2026, 11, 3, 9, 0).getTime(), at(new Date(2026, 11, 3, 9, 0).getTime())],
  ])('a reset %s', (_name, time, words) => {
    expect(resetWords(time, NOW)).toBe(words);
  });
});

describe('a limit in words', () => {
  it('when it goes on, as a short sentence', () => {
    expect(limitNote(limited() as Extract<Attention, { state: 'limited' }>, new Date(NOW))).toBe(`Resets at ${at(RESET)}; it goes on then`);
    const unknown = limited({ until: null, retry_at: RETRY }) as Extract<Attention, { state: 'limited' }>;
    expect(limitNote(unknown, new Date(NOW))).toBe(`Reset time unknown; tries again at ${at(RETRY)}`);
  });

  it.each<[string, string, string | null]>([
    ['/home/ann/.claude', 'p', '~/.claude'],
    ['/Users/ann/.codex', 'p', '~/.codex'],
    ['/root/.claude', 'p', '~/.claude'],
    ['/srv/agents/claude-a', 'p', '/srv/agents/claude-a'],
    ['work plan', 'p', 'work plan'],
    // A generic agent is an account of its own: its id is never shown.
    ['agent 0b6c9d1e-0000-4000-8000-000000000001', '0b6c9d1e-0000-4000-8000-000000000001', null],
  ])('the account %s is shown as %s', (account, profileId, shown) => {
    expect(accountName(account, profileId)).toBe(shown);
  });

  const names = new Map([
    ['builder', 'builder'],
    ['reviewer', 'reviewer'],
    ['night', 'night shift'],
  ]);

  it('names the account and who shares it', () => {
    expect(limitDetail(limit(), 'builder', names, NOW)).toEqual(['Account ~/.claude, shared with reviewer: they wait for its reset together.']);
    expect(limitDetail(limit({ profiles: ['builder', 'reviewer', 'night'] }), 'reviewer', names, NOW)[0]).toBe(
      'Account ~/.claude, shared with builder and night shift: they wait for its reset together.',
    );
    expect(limitDetail(limit({ account: 'work plan', profiles: ['night'] }), 'night', names, NOW)).toEqual(['Account work plan.']);
    const own = 'agent 0b6c9d1e-0000-4000-8000-000000000001';
    expect(limitDetail(limit({ account: own, profiles: ['0b6c9d1e-0000-4000-8000-000000000001'] }), '0b6c9d1e-0000-4000-8000-000000000001', names, NOW)).toEqual([]);
  });

  it('says who goes on first, and the resets that passed', () => {
    expect(limitDetail(limit({ phase: { phase: 'resuming', profile_id: 'builder' } }), 'builder', names, NOW)[1]).toBe(
      '“continue” was typed into it: the limit is over once its turn runs.',
    );
    expect(limitDetail(limit({ phase: { phase: 'resuming', profile_id: 'builder' } }), 'reviewer', names, NOW)[1]).toBe(
      "Its account's agents go on one at a time: builder first.",
    );
    expect(limitDetail(limit({ passed: 2, retry_at: RETRY }), 'builder', names, NOW)[1]).toBe(
      `Still refused after 2 resets: the app tries again at ${at(RETRY)}.`,
    );
    expect(limitDetail(limit({ passed: 3, phase: { phase: 'asks_user' } }), 'builder', names, NOW)).toHaveLength(1);
  });
});
