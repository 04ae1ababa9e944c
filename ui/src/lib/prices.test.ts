import { describe, expect, it } from 'vitest';
import type { PriceTable } from './bindings';
import { blankPriceRow, priceRowsOf, priceTableFrom, type PriceRow } from './prices';

const TABLE: PriceTable = {
  source: 'List prices as published',
  taken: '2026-11-29',
  models: [
    { model: 'claude-opus-5-5', input: 4, output: 20, cache_write_5m: 5, cache_write_1h: 8, cache_read: 0.2, long_prompt: null },
    {
      model: 'gpt-6.1-sol',
      input: 2,
      output: 10,
      cache_write_5m: 2.5,
      cache_write_1h: 2.5,
      cache_read: 0.1,
      long_prompt: { above_tokens: 272_000, input: 4, output: 15, cache_write_5m: 5, cache_write_1h: 5, cache_read: 0.2 },
    },
  ],
};

describe('the price table in the settings form', () => {
  it('reads back as it was shown', () => {
    expect(priceTableFrom(TABLE, priceRowsOf(TABLE))).toEqual({ ok: true, table: TABLE });
  });

  it('keeps a new row, a name trimmed, and a long-prompt tier taken away', () => {
    const rows = priceRowsOf(TABLE);
    rows[1].long = false;
    rows.push({ ...blankPriceRow(), model: ' my-model ', rates: { input: 1, output: 2, cache_write_5m: 1.25, cache_write_1h: 2, cache_read: 0.1 } });
    const read = priceTableFrom(TABLE, rows);
    expect(read.ok && read.table.models.map((m) => [m.model, m.long_prompt])).toEqual([
      ['claude-opus-5-5', null],
      ['gpt-6.1-sol', null],
      ['my-model', null],
    ]);
  });

  it.each<[string, (row: PriceRow) => void, string]>([
    ['an empty rate', (row) => (row.rates.output = null), "Give claude-opus-5-5's “Output” price in dollars per million tokens, such as 3 or 0.3."],
    ['a negative rate', (row) => (row.rates.cache_read = -1), "Give claude-opus-5-5's “Cache read” price in dollars per million tokens, such as 3 or 0.3."],
    ['a long prompt without its length', (row) => ((row.long = true), (row.aboveTokens = undefined)), "Give the length past which claude-opus-5-5's prompts are long as a whole number of tokens, such as 200000."],
    ['a long prompt without its rates', (row) => ((row.long = true), (row.aboveTokens = 1000)), "Give claude-opus-5-5's “Input” price for long prompts in dollars per million tokens, such as 3 or 0.3."],
    ['a nameless row', (row) => ((row.model = ''), (row.rates.input = null)), "Give the model in row 1's “Input” price in dollars per million tokens, such as 3 or 0.3."],
  ])('says which row is wrong with %s', (_what, spoil, message) => {
    const rows = priceRowsOf(TABLE);
    spoil(rows[0]);
    expect(priceTableFrom(TABLE, rows)).toEqual({ ok: false, row: 0, message });
  });

  it('leaves a nameless or twice-priced model to the engine to refuse', () => {
    const rows = priceRowsOf(TABLE);
    rows[1].model = 'claude-opus-5-5';
    rows[0].model = '';
    expect(priceTableFrom(TABLE, rows).ok).toBe(true);
  });
});
