import { describe, expect, it } from 'vitest';
import type { Budget, BudgetUse, CostRow, Spent, TokenTotals } from './bindings';
import {
  allTokens,
  amountWords,
  budgetFromInput,
  budgetInputOf,
  budgetShown,
  budgetWords,
  costWords,
  costliestFirst,
  rowOf,
  spentLine,
  spentShort,
  taskSpending,
  tokenCount,
  tokensKey,
  tokensShort,
  tokensWords,
  type BudgetInput,
  type BudgetLevel,
} from './cost';
import { stateWord, liveSubmittedOutcome } from './tasks';
import { task } from '../test/tasks';

/** Tokens of one model: `input` read, the rest none unless given. */
function tokens(input: number, more: Partial<TokenTotals> = {}): TokenTotals {
  return { input, output: 0, cache_read: 0, cache_write: 0, by_model: [], ...more };
}

const spent = (count: number, cost_usd: number | null, list_price = false): Spent => ({ tokens: tokens(count), cost_usd, list_price });

describe('amounts and counts in words', () => {
  it.each<[number | null, string]>([
    [2.5, '$2.50'],
    [0.42, '$0.42'],
    [0.0042, '$0.0042'],
    [0.00001, 'under $0.0001'],
    [0.00005, '$0.0001'],
    [0, '$0.00'],
    [1234.5, '$1,234.50'],
    [null, 'price unknown'],
  ])('%s dollars read %s', (usd, words) => {
    expect(amountWords(usd)).toBe(words);
  });

  it.each<[number, string, string, string]>([
    [0, '0', '0 tokens', '0'],
    [1, '1', '1 token', '1'],
    [950, '950', '950 tokens', '950'],
    [12_340, '12,340', '12,340 tokens', '12.3k'],
    [340_499, '340,499', '340,499 tokens', '340k'],
    [999_600, '999,600', '999,600 tokens', '1M'],
    [1_234_567, '1,234,567', '1,234,567 tokens', '1.2M'],
  ])('%s tokens', (count, plain, words, short) => {
    expect([tokenCount(count), tokensWords(count), tokensShort(count)]).toEqual([plain, words, short]);
  });

  it('counts every token a budget counts: read, written and cached', () => {
    expect(allTokens(tokens(10, { output: 5, cache_read: 100, cache_write: 7 }))).toBe(122);
  });
});

describe('what some work spent, in a line', () => {
  it.each<[Spent, string, string, string]>([
    [spent(12_340, 0.42), '12,340 tokens · $0.42', '$0.42', '$0.42'],
    [spent(12_340, 0.42, true), '12,340 tokens · $0.42 at list prices', '$0.42 at list prices (subscription)', '$0.42 list price'],
    [spent(12_340, null), '12,340 tokens · price unknown', 'price unknown', '12.3k tokens'],
    [spent(12_340, null, true), '12,340 tokens · price unknown', 'price unknown', '12.3k tokens'],
    [spent(1, 0.000003), '1 token · under $0.0001', 'under $0.0001', 'under $0.0001'],
    // The engine's record of a task just made has no cost: nothing used costs nothing.
    [spent(0, null), 'nothing yet', '$0.00', '$0.00'],
  ])('%#: %s', (work, line, cost, short) => {
    expect([spentLine(work), costWords(work), spentShort(work)]).toEqual([line, cost, short]);
  });
});

describe("a task's own, its team's, and both", () => {
  it('is its own alone without a team', () => {
    const own = task('a', { tokens: tokens(100), cost_usd: 0.5 });
    const spending = taskSpending(own);
    expect(spending.team).toBeNull();
    expect(spending.whole).toEqual({ tokens: tokens(100), cost_usd: 0.5, list_price: false });
  });

  it("adds a lead's team to its own, a cost not known where either is not", () => {
    const opus = { model: 'claude-opus-5-5', input: 100, output: 10, cache_read: 0, cache_write: 0, cost_usd: 0.5 };
    const haiku = { model: 'claude-haiku-5-5', input: 40, output: 4, cache_read: 0, cache_write: 0, cost_usd: 0.25 };
    const lead = task('a', {
      tokens: tokens(100, { output: 10, by_model: [opus] }),
      cost_usd: 0.5,
      team_tokens: tokens(40, { output: 4, by_model: [haiku] }),
      team_cost_usd: 0.25,
      list_price: true,
    });
    const spending = taskSpending(lead);
    expect(spentLine(spending.team!)).toBe('44 tokens · $0.25 at list prices');
    expect(spending.whole.tokens).toEqual(tokens(140, { output: 14, by_model: [opus, haiku] }));
    expect(spending.whole.cost_usd).toBe(0.75);
    expect(taskSpending({ ...lead, team_cost_usd: null }).whole.cost_usd).toBeNull();
    expect(taskSpending({ ...lead, cost_usd: null }).whole.cost_usd).toBeNull();
  });
});

describe('budgets', () => {
  it.each<[Budget, string]>([
    [{ tokens: 50_000 }, '50,000 tokens'],
    [{ tokens: 1 }, '1 token'],
    [{ usd: 2.5 }, '$2.50'],
    [{ usd: 0.005 }, '$0.0050'],
  ])('%j reads %s', (budget, words) => {
    expect(budgetWords(budget)).toBe(words);
  });

  it.each<[Budget, BudgetUse | null, number | null, BudgetLevel, string]>([
    [{ tokens: 50_000 }, { used_percent: 42, mark: 'under' }, 42, 'under', '42 % of 50,000 tokens used'],
    [{ tokens: 50_000 }, { used_percent: 80, mark: 'near' }, 80, 'near', '80 % of 50,000 tokens used'],
    [{ tokens: 50_000 }, { used_percent: 104, mark: 'spent' }, 104, 'spent', '104 % of 50,000 tokens used'],
    [{ usd: 2.5 }, { used_percent: 0, mark: 'under' }, 0, 'under', '0 % of $2.50 used'],
    // A dollar budget needs prices: without them its share is not known, never guessed.
    [{ usd: 2.5 }, { used_percent: null, mark: 'under' }, null, 'unknown', '$2.50 · share used not known: a model it used has no price'],
    // An engine that has not told it yet.
    [{ usd: 2.5 }, null, null, 'unknown', '$2.50 · share used not told yet'],
  ])('%j, %j used as the engine judged it', (budget, used, percent, level, line) => {
    expect(budgetShown(budget, used)).toEqual({ budget: budgetWords(budget), percent, level, line });
  });

  it.each<[BudgetInput, ReturnType<typeof budgetFromInput>]>([
    [{ amount: null, unit: 'tokens' }, { ok: true, budget: null }],
    [{ amount: undefined, unit: 'usd' }, { ok: true, budget: null }],
    [{ amount: Number.NaN, unit: 'usd' }, { ok: true, budget: null }],
    [{ amount: 50_000, unit: 'tokens' }, { ok: true, budget: { tokens: 50_000 } }],
    [{ amount: 2.5, unit: 'usd' }, { ok: true, budget: { usd: 2.5 } }],
    [{ amount: 0.75, unit: 'usd' }, { ok: true, budget: { usd: 0.75 } }],
    [{ amount: 2.5, unit: 'tokens' }, { ok: false, message: 'Give a whole number of tokens, such as 50000.' }],
    [{ amount: 0, unit: 'usd' }, { ok: false, message: 'Give a budget above nothing, or leave it empty for none.' }],
    [{ amount: -3, unit: 'tokens' }, { ok: false, message: 'Give a budget above nothing, or leave it empty for none.' }],
    [{ amount: 2e9, unit: 'usd' }, { ok: false, message: 'Give at most a billion dollars.' }],
  ])('a field holding %j builds %j', (input, built) => {
    expect(budgetFromInput(input)).toEqual(built);
  });

  it('shows a budget in its field as it was given', () => {
    expect(budgetInputOf({ usd: 2.5 })).toEqual({ amount: 2.5, unit: 'usd' });
    expect(budgetInputOf({ tokens: 50_000 })).toEqual({ amount: 50_000, unit: 'tokens' });
    expect(budgetInputOf(null)).toEqual({ amount: null, unit: 'tokens' });
    expect(budgetFromInput(budgetInputOf({ usd: 2.5 }))).toEqual({ ok: true, budget: { usd: 2.5 } });
  });
});

describe('a task over budget', () => {
  it('reads "over budget", and its submission says it ended badly', () => {
    expect(stateWord('over_budget')).toBe('over budget');
    const ended = task('a', { state: 'over_budget', reason: 'it used its budget of 50,000 tokens (52,120 tokens used)' });
    expect(liveSubmittedOutcome({ task: ended, position: null, waiting_for: null }, [ended])).toEqual({
      text: 'Your task used all of its budget: open it to see how far it got',
      tone: 'bad',
    });
  });
});

describe('reports', () => {
  const row = (key: string, name: string, cost: number | null, count = 10): CostRow => ({ key, name, ...spent(count, cost) });

  it('picks an agent’s row by its id, and lists the costliest first', () => {
    const rows = [row('p1', 'ann', 0.4), row('p2', 'bob', null), row('p3', 'cy', 1.2), row('p4', 'dee', 0.4, 99)];
    const report = { since: 0, by: 'agent' as const, rows, total: spent(0, null) };
    expect(rowOf(report, 'p3')?.name).toBe('cy');
    expect(rowOf(report, 'nobody')).toBeUndefined();
    expect(rowOf(null, 'p3')).toBeUndefined();
    expect(costliestFirst(rows).map((r) => r.name)).toEqual(['bob', 'cy', 'dee', 'ann']);
  });

  it("changes its key when any task's tokens, or its team's, change", () => {
    const before = [task('a', { tokens: tokens(10) }), task('b', { tokens: tokens(5) })];
    const after = [task('a', { tokens: tokens(10) }), task('b', { tokens: tokens(5), team_tokens: tokens(1) })];
    expect(tokensKey(before)).not.toBe(tokensKey(after));
    expect(tokensKey(before)).toBe(tokensKey([...before]));
  });
});
