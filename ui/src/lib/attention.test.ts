import { describe, expect, it } from 'vitest';
import type { Attention, Need } from './bindings';
import { ATTENTION_ORDER, asksTheUser, attentionLabel, attentionLine, attentionRank, limitedWhen, needWords } from './attention';
import { formatTime } from './model';

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
