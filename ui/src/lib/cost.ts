/**
 * What work cost, in the window's words: amounts, token counts, what a task, a loop or an
 * agent spent in a line, the list-price label, a budget and how much of it is used, and the
 * budget the forms build. The engine counts the tokens, prices them and decides when a budget
 * is spent (its `cost` module); this only says what it sent. A cost the engine could not price
 * (a model with no price) is said as "price unknown", never guessed.
 */
import type { Budget, BudgetUse, CostReport, CostRow, CostSince, Spent, TaskInfo, TokenTotals } from './bindings';

/** What a cost the engine could not work out (a model with no price) reads as. */
export const PRICE_UNKNOWN = 'price unknown';

/** What a cost of an account that pays by subscription is: what its tokens would cost at list prices. */
export const LIST_PRICE_LABEL = 'at list prices (subscription)';

/** An amount of dollars as the engine says it (`Usd::in_words`): "$2.50"; below a cent, "$0.0042"; none: "price unknown". */
export function amountWords(usd: number | null): string {
  if (usd === null) return PRICE_UNKNOWN;
  // Less than shows in four places (a few tokens' cache reads) is not nothing.
  if (usd > 0 && usd < 0.00005) return 'under $0.0001';
  if (usd !== 0 && Math.abs(usd) < 0.01) return `$${usd.toFixed(4)}`;
  return `$${usd.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
}

/** A count of tokens with its thousands apart: 1,234,567. */
export function tokenCount(count: number): string {
  return Math.round(count).toLocaleString('en-US');
}

/** "1 token", "12,340 tokens". */
export function tokensWords(count: number): string {
  return `${tokenCount(count)} ${count === 1 ? 'token' : 'tokens'}`;
}

/** A count of tokens in a few characters: 950, 12.3k, 340k, 1.2M. */
export function tokensShort(count: number): string {
  const short = (n: number, unit: string) => `${n < 100 ? Number(n.toFixed(1)) : Math.round(n)}${unit}`;
  if (count < 1000) return String(Math.round(count));
  if (count < 999_500) return short(count / 1000, 'k');
  return short(count / 1_000_000, 'M');
}

/** Every token of some work, read, written or cached: what a token budget counts. */
export function allTokens(tokens: TokenTotals): number {
  return tokens.input + tokens.output + tokens.cache_read + tokens.cache_write;
}

/** No tokens at all. */
export const NO_TOKENS: TokenTotals = { input: 0, output: 0, cache_read: 0, cache_write: 0, by_model: [] };

/** Nothing spent. */
export const NOTHING_SPENT: Spent = { tokens: NO_TOKENS, cost_usd: 0, list_price: false };

/** Whether some work used any token. */
export function hasSpent(spent: Spent): boolean {
  return allTokens(spent.tokens) > 0;
}

/** A cost as said: "$0.42", "$0.42 at list prices (subscription)", "price unknown". */
export function costWords(spent: Spent): string {
  const amount = amountWords(costOf(spent));
  return spent.list_price && spent.cost_usd !== null ? `${amount} ${LIST_PRICE_LABEL}` : amount;
}

/**
 * What some work spent in one line: "12,340 tokens · $0.42" (with "at list prices" for an
 * account that pays by subscription, "price unknown" where a model had no price); "nothing yet".
 */
export function spentLine(spent: Spent): string {
  if (!hasSpent(spent)) return 'nothing yet';
  const cost = costOf(spent);
  const amount = amountWords(cost);
  return `${tokensWords(allTokens(spent.tokens))} · ${spent.list_price && cost !== null ? `${amount} at list prices` : amount}`;
}

/** What some work spent in a few characters, for a tile's frame: "$0.42", "$0.42 list price", else "12.3k tokens". */
export function spentShort(spent: Spent): string {
  const cost = costOf(spent);
  if (cost === null) return `${tokensShort(allTokens(spent.tokens))} tokens`;
  return spent.list_price ? `${amountWords(cost)} list price` : amountWords(cost);
}

/** The cost of some work: nothing used costs nothing, whatever the record says. */
function costOf(spent: Spent): number | null {
  return hasSpent(spent) ? spent.cost_usd : 0;
}

// ---- a task's -------------------------------------------------------------------------

/** What a task used: its own; for a lead, its team's (teammates and sub-agents) apart; and both together. */
export interface TaskSpending {
  own: Spent;
  /** Null where it led no team that used any. */
  team: Spent | null;
  /** Its own and its team's: what its budget counts. */
  whole: Spent;
}

type TaskCost = Pick<TaskInfo, 'tokens' | 'cost_usd' | 'team_tokens' | 'team_cost_usd' | 'list_price'>;

export function taskSpending(task: TaskCost): TaskSpending {
  const own: Spent = { tokens: task.tokens, cost_usd: task.cost_usd, list_price: task.list_price };
  const team: Spent | null = task.team_tokens ? { tokens: task.team_tokens, cost_usd: task.team_cost_usd ?? null, list_price: task.list_price } : null;
  if (team === null) return { own, team, whole: own };
  const [a, b] = [costOf(own), costOf(team)];
  const whole: Spent = {
    tokens: {
      input: own.tokens.input + team.tokens.input,
      output: own.tokens.output + team.tokens.output,
      cache_read: own.tokens.cache_read + team.tokens.cache_read,
      cache_write: own.tokens.cache_write + team.tokens.cache_write,
      by_model: [...own.tokens.by_model, ...team.tokens.by_model],
    },
    cost_usd: a === null || b === null ? null : a + b,
    list_price: task.list_price,
  };
  return { own, team, whole };
}

// ---- budgets --------------------------------------------------------------------------

/** A budget as the engine says it (`Budget::in_words`): "50,000 tokens", "$2.50". */
export function budgetWords(budget: Budget): string {
  return 'tokens' in budget ? tokensWords(budget.tokens) : amountWords(budget.usd);
}

/** Where some work stands against its budget (the engine's judgement): under, near its end, all used, or not known. */
export type BudgetLevel = 'under' | 'near' | 'spent' | 'unknown';

export interface BudgetShown {
  /** The budget in words. */
  budget: string;
  /** Whole percent used, as the engine counted it; null when not known. */
  percent: number | null;
  level: BudgetLevel;
  /** "42 % of 50,000 tokens used"; for a dollar budget whose cost is not known, why the share is not. */
  line: string;
}

/**
 * `budget` and how much of it was used, in words, as the engine judged it (`used`: the record's
 * `budget_used`, the agent's row's `day_budget`). The window works out no share of its own.
 */
export function budgetShown(budget: Budget, used: BudgetUse | null | undefined): BudgetShown {
  const words = budgetWords(budget);
  if (!used) return { budget: words, percent: null, level: 'unknown', line: `${words} · share used not told yet` };
  if (used.used_percent === null) {
    return { budget: words, percent: null, level: 'unknown', line: `${words} · share used not known: a model it used has no price` };
  }
  return { budget: words, percent: used.used_percent, level: used.mark, line: `${used.used_percent} % of ${words} used` };
}

/** The unit a budget field offers. */
export type BudgetUnit = 'tokens' | 'usd';

export const BUDGET_UNITS: readonly { value: BudgetUnit; label: string }[] = [
  { value: 'tokens', label: 'tokens' },
  { value: 'usd', label: 'dollars' },
];

/** What a budget field holds: the amount as the number input gives it (none while empty), and its unit. */
export interface BudgetInput {
  amount: number | null | undefined;
  unit: BudgetUnit;
}

/** A budget field showing `budget` (none: empty, in tokens). */
export function budgetInputOf(budget: Budget | null | undefined): BudgetInput {
  if (!budget) return { amount: null, unit: 'tokens' };
  return 'tokens' in budget ? { amount: budget.tokens, unit: 'tokens' } : { amount: budget.usd, unit: 'usd' };
}

/** The most dollars a budget may be (the engine keeps amounts up to a billion dollars). */
const MAX_USD = 1e9;

/** The budget a field builds: none while empty; else `{ tokens }` or `{ usd }`, or what is wrong with it. */
export function budgetFromInput(input: BudgetInput): { ok: true; budget: Budget | null } | { ok: false; message: string } {
  const { amount, unit } = input;
  if (amount === null || amount === undefined || Number.isNaN(amount)) return { ok: true, budget: null };
  if (!Number.isFinite(amount) || amount <= 0) return { ok: false, message: 'Give a budget above nothing, or leave it empty for none.' };
  if (unit === 'tokens') {
    if (!Number.isSafeInteger(amount)) return { ok: false, message: 'Give a whole number of tokens, such as 50000.' };
    return { ok: true, budget: { tokens: amount } };
  }
  if (amount > MAX_USD) return { ok: false, message: 'Give at most a billion dollars.' };
  return { ok: true, budget: { usd: amount } };
}

// ---- reports --------------------------------------------------------------------------

const DAY_MS = 24 * 60 * 60 * 1000;

/** `days` days before `now` (Unix ms). */
export function daysBefore(now: number, days: number): number {
  return now - days * DAY_MS;
}

/** Today, as each engine counts it: since its machine's day began. */
export const TODAY: CostSince = { from: 'today' };

/** A report's row for `key` (an agent's id, a day, a task's id), if it has one. */
export function rowOf(report: CostReport | null, key: string): CostRow | undefined {
  return report?.rows.find((row) => row.key === key);
}

/** A report's rows, the costliest first (a cost not known before none, then by tokens). */
export function costliestFirst(rows: readonly CostRow[]): CostRow[] {
  const cost = (row: CostRow) => (row.cost_usd === null ? Infinity : row.cost_usd);
  return [...rows].sort((a, b) => cost(b) - cost(a) || allTokens(b.tokens) - allTokens(a.tokens) || a.name.localeCompare(b.name));
}

/** A key that changes whenever any task's tokens do (its own or its team's): a report is asked again then. */
export function tokensKey(tasks: readonly TaskCost[]): number {
  let sum = 0;
  for (const task of tasks) sum += allTokens(task.tokens) + (task.team_tokens ? allTokens(task.team_tokens) : 0);
  return sum;
}
