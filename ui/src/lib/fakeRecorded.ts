/**
 * The engine's own answers, as `tests/tests/suite/contract.rs` recorded them against a real engine
 * (`ui/src/test/contract.json` and one scenario per area in `ui/src/test/contract/`): the fake
 * backend serves these for the decisions the engine makes (a merge's outcome, a refusal and its
 * words, a reply prompt) instead of deciding them again by hand. A recorded answer is found by
 * its command's type and the fields that tell it apart, and its placeholders (ids, times,
 * folders) are filled in with the fake's.
 */
import type { ApiError, ErrorCode } from './bindings';
import main from '../test/contract.json';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** One recorded exchange: a command (or one of the window's shell calls) and its reply or refusal. */
export interface RecordedStep {
  command?: { [key: string]: Json };
  shell?: { [key: string]: Json };
  reply?: Json;
  error?: { code: ErrorCode; field: string | null; problems: string[]; message?: string };
}

const areas = import.meta.glob<RecordedStep[]>('../test/contract/*.json', { eager: true, import: 'default' });

/** The areas' scenarios by file name (`worktrees.json`), as recorded. */
export const SCENARIOS: Readonly<Record<string, readonly RecordedStep[]>> = Object.fromEntries(
  Object.entries(areas).map(([path, steps]) => [path.slice(path.lastIndexOf('/') + 1), steps]),
);

/** Every exchange: each area's scenario (which keep the engine's words), then the main script. */
const RECORDED: readonly RecordedStep[] = [...Object.values(SCENARIOS).flat(), ...(main as unknown as RecordedStep[])];

/** The fake's data folder, where the recorded engine's (`<data>`) was. */
export const FAKE_DATA = '/data';

/** A fixed commit for a recorded one (git's ids vary from run to run). */
const FAKE_COMMIT = 'c0ffee'.padEnd(40, '0');

/** What fills a recorded answer's placeholders in the fake's world. */
export interface Fill {
  now: number;
  /** The fake's ids for the recorded ones (`<id 2>`: a task's id); any other gets a fresh id. */
  ids?: Record<string, string>;
}

/** Whether `whole` holds `part`: an object each of its keys, anything else equal. */
function holds(whole: Json | undefined, part: Json): boolean {
  if (part !== null && typeof part === 'object' && !Array.isArray(part)) {
    if (whole === null || whole === undefined || typeof whole !== 'object' || Array.isArray(whole)) return false;
    return Object.entries(part).every(([key, value]) => holds(whole[key], value));
  }
  return JSON.stringify(whole) === JSON.stringify(part);
}

/**
 * The first recorded reply to the command `type` holding `fields` (and, given, whose value holds
 * `answered`): a missing one is a test's mistake.
 */
function recorded(type: string, fields: { [key: string]: Json }, answered?: { [key: string]: Json }): RecordedStep {
  const found = RECORDED.find(
    (step) =>
      step.command?.type === type &&
      step.reply !== undefined &&
      holds(step.command, fields) &&
      (answered === undefined || holds((step.reply as { value?: Json }).value, answered)),
  );
  if (found === undefined) throw new Error(`no recorded ${type} with ${JSON.stringify(fields)}: record one in tests/tests/suite/contract.rs`);
  return found;
}

/** A recorded value with the fake's ids, clock and folders for its placeholders. */
export function filled(value: Json, fill: Fill, key = ''): Json {
  if (Array.isArray(value)) return value.map((item) => filled(item, fill, key));
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, filled(v, fill, k)]));
  if (typeof value !== 'string') return value;
  if (value === '<time>') return fill.now;
  if (value === '<pid>') return 4242;
  if (value === '<seq>') return 1;
  if (value === '<commit>') return FAKE_COMMIT;
  return value
    .replaceAll(/<id \d+>/g, (id) => (fill.ids ??= {})[id] ?? (fill.ids[id] = crypto.randomUUID()))
    .replaceAll('<data>', FAKE_DATA)
    .replaceAll('-<stamp>', `-${(fill.now % 0x1_0000_0000).toString(16).padStart(8, '0')}`);
}

/** The engine's error as the recording has it, thrown as the backend throws. */
function refusal(error: NonNullable<RecordedStep['error']>, fill: Fill): ApiError {
  const message = typeof error.message === 'string' ? (filled(error.message, fill) as string) : `${error.code}${error.field ? ` (${error.field})` : ''}`;
  return { code: error.code, message, field: error.field };
}

/** The engine's first recorded refusal of the command `type` holding `fields`, to throw. */
export function recordedRefusal(type: string, fields: { [key: string]: Json }, fill: Fill): ApiError {
  const found = RECORDED.find((step) => step.command?.type === type && step.error !== undefined && holds(step.command, fields));
  if (found?.error === undefined) throw new Error(`no recorded refusal of ${type} with ${JSON.stringify(fields)}: record one in tests/tests/suite/contract.rs`);
  return refusal(found.error, fill);
}

/** The values of an object the engine was sent unlike `plain`: those that tell a recorded exchange apart. */
function telling(sent: { [key: string]: Json }, plain: { [key: string]: Json }): string[] {
  return Object.keys(sent).filter((key) => !same(sent[key], plain[key]));
}

/** Equal, whatever the order of an object's keys. */
function same(a: Json | undefined, b: Json | undefined): boolean {
  return holds(a, b ?? null) && holds(b, a ?? null);
}

/**
 * The engine's recorded refusal of a command `type` whose `field` (an object, such as the
 * settings) the engine refused for values `value` holds too: the values that tell a recorded
 * refusal apart are those it sent unlike `plain` (the same object as the engine gave it).
 */
export function recordedRefusalOf(type: string, field: string, plain: { [key: string]: Json }, value: { [key: string]: Json }, fill: Fill): ApiError | null {
  for (const step of RECORDED) {
    const sent = step.command?.type === type ? (step.command[field] as { [key: string]: Json } | undefined) : undefined;
    if (sent === undefined || step.error === undefined) continue;
    const keys = telling(sent, plain);
    if (keys.length > 0 && keys.every((key) => same(sent[key], value[key]))) return refusal(step.error, fill);
  }
  return null;
}

/**
 * The engine's recorded reply to the first command of `type` holding `fields`: its value with
 * the fake's placeholders.
 */
export function recordedAnswer<T>(type: string, fields: { [key: string]: Json }, fill: Fill, answered?: { [key: string]: Json }): T {
  const reply = recorded(type, fields, answered).reply as { value?: Json } | null;
  return filled(reply?.value ?? null, fill) as T;
}
