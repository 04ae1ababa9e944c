/**
 * The price table as the settings form edits it: each model's row (its name, five rates in
 * dollars per million tokens, and the rates of its long prompts where it has such a tier), read
 * back into the table the engine keeps. Whether a table may be kept (a model priced twice, a
 * nameless one) is the engine's to say (`PriceTable::problems`); the form only reads numbers.
 */
import type { LongPrompt, ModelPrice, PriceTable } from './bindings';

/** The five rates of a model, in dollars per million tokens, in the order the form shows them. */
export const RATES = [
  { key: 'input', label: 'Input' },
  { key: 'output', label: 'Output' },
  { key: 'cache_write_5m', label: 'Cache write, 5 min' },
  { key: 'cache_write_1h', label: 'Cache write, 1 h' },
  { key: 'cache_read', label: 'Cache read' },
] as const;

export type RateKey = (typeof RATES)[number]['key'];

/** A number as a number input gives it: none while empty. */
export type Typed = number | null | undefined;

export type RateInputs = Record<RateKey, Typed>;

/** One model's row of the form. */
export interface PriceRow {
  model: string;
  rates: RateInputs;
  /** Whether its long prompts are priced apart. */
  long: boolean;
  /** Prompts longer than this many tokens take the long rates. */
  aboveTokens: Typed;
  longRates: RateInputs;
}

const ratesOf = (price: Pick<ModelPrice, RateKey>): RateInputs => ({
  input: price.input,
  output: price.output,
  cache_write_5m: price.cache_write_5m,
  cache_write_1h: price.cache_write_1h,
  cache_read: price.cache_read,
});

const NO_RATES: RateInputs = { input: null, output: null, cache_write_5m: null, cache_write_1h: null, cache_read: null };

/** The form's rows for a table. */
export function priceRowsOf(table: PriceTable): PriceRow[] {
  return table.models.map((price) => ({
    model: price.model,
    rates: ratesOf(price),
    long: price.long_prompt != null,
    aboveTokens: price.long_prompt?.above_tokens ?? null,
    longRates: price.long_prompt ? ratesOf(price.long_prompt) : { ...NO_RATES },
  }));
}

/** A new, empty row. */
export function blankPriceRow(): PriceRow {
  return { model: '', rates: { ...NO_RATES }, long: false, aboveTokens: null, longRates: { ...NO_RATES } };
}

export type PriceTableRead = { ok: true; table: PriceTable } | { ok: false; row: number; message: string };

/**
 * The table the rows describe, with the source and date of `table` (the one they were made
 * from): or, for the first row with a rate that is not a number of dollars (or a long prompt's
 * length that is not a count of tokens), which row and why.
 */
export function priceTableFrom(table: PriceTable, rows: readonly PriceRow[]): PriceTableRead {
  const models: ModelPrice[] = [];
  for (const [row, priced] of rows.entries()) {
    const name = priced.model.trim() || `the model in row ${row + 1}`;
    const rates = readRates(priced.rates, name, '');
    if (typeof rates === 'string') return { ok: false, row, message: rates };
    let long_prompt: LongPrompt | null = null;
    if (priced.long) {
      const above = priced.aboveTokens;
      if (above === null || above === undefined || !Number.isSafeInteger(above) || above < 0) {
        return { ok: false, row, message: `Give the length past which ${name}'s prompts are long as a whole number of tokens, such as 200000.` };
      }
      const longRates = readRates(priced.longRates, name, ' for long prompts');
      if (typeof longRates === 'string') return { ok: false, row, message: longRates };
      long_prompt = { above_tokens: above, ...longRates };
    }
    models.push({ model: priced.model.trim(), ...rates, long_prompt });
  }
  return { ok: true, table: { source: table.source, taken: table.taken, models } };
}

/** The rates as numbers, or what is wrong with the first that is not one. */
function readRates(rates: RateInputs, name: string, tier: string): Record<RateKey, number> | string {
  const read = {} as Record<RateKey, number>;
  for (const { key, label } of RATES) {
    const value = rates[key];
    if (value === null || value === undefined || !Number.isFinite(value) || value < 0) {
      return `Give ${name}'s “${label}” price${tier} in dollars per million tokens, such as 3 or 0.3.`;
    }
    read[key] = value;
  }
  return read;
}
