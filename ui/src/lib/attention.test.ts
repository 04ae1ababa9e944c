import { describe, expect, it } from 'vitest';
import type { Attention, EngineLink, HostLink, Need, Overview } from './bindings';
import {
  ATTENTION_ORDER,
  asksTheUser,
  attentionLabel,
  attentionLine,
  attentionRank,
  limitedWhen,
  needWords,
  shownAttention,
  shownAttentionMap,
  shownOverview,
  type ShownAttention,
} from './attention';
import { disconnectedMachine } from './hosts';
import { overviewAgent } from '../test/overview';
import { formatTime, resetWords } from './model';

// Today, so the window shows the times alone (another day's time has its day before it).
const today = (hours: number, minutes: number) => {
  const date = new Date();
  date.setHours(hours, minutes, 0, 0);
  return date.getTime();
};
const RESET = today(14, 5);
const RETRY = today(14, 7);
const shown = (at: number) => formatTime(at, new Date());

const limited = (overrides: Partial<Extract<Attention, { state: 'limited' }>> = {}): Extract<Attention, { state: 'limited' }> => ({
  state: 'limited',
  account: '/home/ann/.claude',
  until: RESET,
  retry_at: RESET + 30_000,
  since: 1,
  task_id: 't',
  task: 'Port the parser',
  ...overrides,
});

describe('an agent at its usage limit, in words', () => {
  it('says until when, in the local time, when its agent said it', () => {
    expect(attentionLabel(limited())).toBe(`limited until ${shown(RESET)}`);
    expect(attentionLine(limited())).toBe(`At its usage limit until ${shown(RESET)}; “Port the parser” waits and goes on then`);
    expect(attentionLine(limited({ task: null, task_id: null }))).toBe(`At its usage limit until ${shown(RESET)}`);
  });

  it('says a reset after midnight as the usage bars do, with its day', () => {
    const now = new Date(2026, 10, 26, 23, 30);
    const until = new Date(2026, 10, 27, 0, 13).getTime();
    expect(attentionLabel(limited({ until }), now)).toBe(`limited until ${resetWords(until, now.getTime())}`);
    expect(resetWords(until, now.getTime())).toMatch(new RegExp(`^${new Date(until).toLocaleDateString(undefined, { weekday: 'short' })} `));
    expect(attentionLine(limited({ until }), now)).toBe(`At its usage limit until ${resetWords(until, now.getTime())}; “Port the parser” waits and goes on then`);
    const retry = new Date(2026, 10, 27, 0, 15).getTime();
    expect(limitedWhen(limited({ until: null, retry_at: retry }), now)).toBe(`reset time unknown; tries again at ${resetWords(retry, now.getTime())}`);
  });

  it('says the reset is unknown and when the app tries again, when it did not', () => {
    const unknown = limited({ until: null, retry_at: RETRY });
    expect(attentionLabel(unknown)).toBe('usage limit');
    expect(limitedWhen(unknown)).toBe(`reset time unknown; tries again at ${shown(RETRY)}`);
    expect(attentionLine(unknown)).toBe(`At its usage limit (reset time unknown; tries again at ${shown(RETRY)}); “Port the parser” waits meanwhile`);
  });

  it('never shows the account folder where a sentence says it', () => {
    for (const attention of [limited(), limited({ until: null })]) {
      expect(attentionLabel(attention)).not.toContain('.claude');
      expect(attentionLine(attention)).not.toContain('.claude');
    }
  });

  it('ranks after a failure and before work, and does not ask the user', () => {
    expect(ATTENTION_ORDER.indexOf('limited')).toBe(ATTENTION_ORDER.indexOf('failed') + 1);
    expect(ATTENTION_ORDER.indexOf('limited')).toBe(ATTENTION_ORDER.indexOf('working') - 1);
    const working: Attention = { state: 'working', task_id: null, task: null, since: null };
    expect(attentionRank(limited())).toBeLessThan(attentionRank(working));
    expect(asksTheUser(limited())).toBe(false);
  });
});

describe('what an account asks of the user', () => {
  it.each<[Need, string]>([
    [
      { kind: 'account', why: 'Claude Code could not sign in to its account: sign in again in its terminal (/login)' },
      'Its account needs you: Claude Code could not sign in to its account: sign in again in its terminal (/login)',
    ],
    [{ kind: 'limit_persists', account: '/home/ann/.claude', resets: 3 }, 'Still at its usage limit after 3 resets: resume it when you know the limit has lifted'],
    [{ kind: 'limit_persists', account: '/home/ann/.claude', resets: 1 }, 'Still at its usage limit after 1 reset: resume it when you know the limit has lifted'],
  ])('%j', (need, words) => {
    expect(needWords(need)).toBe(words);
    const attention: Attention = { state: 'needs_you', need, since: 1, task_id: null, task: null, signal_id: null, waiting: 1 };
    expect(attentionLabel(attention)).toBe('needs you');
    expect(asksTheUser(attention)).toBe(true);
  });
});

describe('an agent of a machine the window cannot reach', () => {
  const idle: Attention = { state: 'idle', since: 1 };
  const working: Attention = { state: 'working', task_id: 't', task: 'Port the parser', since: 1 };
  const needsYou: Attention = { state: 'needs_you', need: { kind: 'asks' }, since: 1, task_id: null, task: null, signal_id: null, waiting: 1 };
  const connected: EngineLink = { state: 'connected', engine_version: '0.1.0', outdated: false, agents_running: 1, host: null, connection: 1, restarted: false, starts_at_login: false };
  const lost: EngineLink = { state: 'lost', reason: 'The connection was lost.', host: null };
  const links: HostLink[] = [
    { destination: 'build-box', link: lost },
    { destination: 'gpu-box', link: connected },
    { destination: 'new-box', link: { state: 'connecting' } },
  ];

  it.each<[string, Attention, string | null | undefined, string, string]>([
    // This computer's agents always say their engine's word, whatever the other machines' links.
    ['this computer’s, idle', idle, null, 'idle', 'Idle: nothing to do'],
    ['this computer’s, needing the user', needsYou, undefined, 'needs you', 'Waits for you at its prompt'],
    // A machine reached, or one the window has no link for yet: its engine's word.
    ['a reached machine’s, working', working, 'gpu-box', 'working', 'Working on “Port the parser”'],
    ['a machine not listed yet', idle, 'old-box', 'idle', 'Idle: nothing to do'],
    // Before: "idle" beside "build-box · disconnected", the last state heard said as now.
    ['a disconnected machine’s, idle when last heard', idle, 'build-box', 'unknown', 'Not known while build-box is disconnected'],
    ['a disconnected machine’s, working when last heard', working, 'build-box', 'unknown', 'Not known while build-box is disconnected'],
    ['a disconnected machine’s, needing the user when last heard', needsYou, 'build-box', 'unknown', 'Not known while build-box is disconnected'],
    // Still connecting is not reached either.
    ['a machine connecting', working, 'new-box', 'unknown', 'Not known while new-box is disconnected'],
  ])('%s', (_, attention, host, label, line) => {
    const shown = shownAttention(attention, disconnectedMachine(host, links));
    expect(attentionLabel(shown)).toBe(label);
    expect(attentionLine(shown)).toBe(line);
  });

  it.each<[string, ShownAttention, boolean, number]>([
    ['needs you', needsYou, true, 0],
    ['working', working, false, ATTENTION_ORDER.indexOf('working')],
    // Not known: never counted as asking the user, ranked after every state the window knows.
    ['not known', shownAttention(needsYou, 'build-box'), false, ATTENTION_ORDER.length],
  ])('%s: asks the user %s, ranks %i', (_, shown, asks, rank) => {
    expect(asksTheUser(shown)).toBe(asks);
    expect(attentionRank(shown)).toBe(rank);
  });

  it('reads as unknown in the window’s map and in the overview, and as heard again once reached', () => {
    const profiles = [
      { id: 'here', host: null, name: 'here' },
      { id: 'trainer', host: 'build-box', name: 'trainer' },
      { id: 'gpu', host: 'gpu-box', name: 'gpu' },
    ];
    const heard = { here: needsYou, trainer: needsYou, gpu: working };
    expect(shownAttentionMap(heard, profiles, links)).toEqual({
      here: needsYou,
      trainer: { state: 'unknown', host: 'build-box', since: null },
      gpu: working,
    });
    const reached = links.map((l) => ({ ...l, link: connected }));
    expect(shownAttentionMap(heard, profiles, reached)).toBe(heard);

    const overview: Overview = { agents: [overviewAgent('here'), overviewAgent('trainer')], helpers: [], links: [] };
    expect(shownOverview(overview, profiles, links).agents.map((a) => attentionLabel(a.attention))).toEqual(['idle', 'unknown']);
    expect(shownOverview(overview, profiles, reached)).toBe(overview);

    // The machine out of reach answers nothing: its agents are still shown, not known.
    const answered: Overview = { agents: [overviewAgent('here')], helpers: [], links: [] };
    const shown = shownOverview(answered, profiles, links).agents;
    expect(shown.map((a) => [a.name, attentionLabel(a.attention)])).toEqual([
      ['here', 'idle'],
      ['trainer', 'unknown'],
    ]);
  });
});
