/**
 * The fake backend keeps the engine's contract: the script recorded against the real engine
 * (`ui/src/test/contract.json`, written by the engine's `contract` test) is replayed on the
 * fake, and every reply must be the engine's, normalised the same way (ids numbered by first
 * appearance, times, process ids and the workspace path), and every error the engine's code
 * and field.
 */
import { describe, expect, it } from 'vitest';
import contract from '../test/contract.json';
import { dispatchCommand, type Command } from './bindings';
import { toApiError } from './errors';
import { FAKE_BIN, FakeBackend } from './fakeBackend';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

interface Step {
  command: { [key: string]: Json };
  reply?: Json;
  error?: { code: string; field: string | null; problems: string[] };
}

const WORKSPACE = '/work/contract-workspace';

const isIdKey = (key: string) =>
  key === 'id' || key.endsWith('_id') || key === 'waiting_for' || key === 'current_task' || key === 'delegate_session';

/** The normalisation of `tests/tests/contract.rs`, over the fake's values. */
class Normaliser {
  readonly ids = new Map<string, string>();

  id(value: string): string {
    let placeholder = this.ids.get(value);
    if (placeholder === undefined) {
      placeholder = `<id ${this.ids.size + 1}>`;
      this.ids.set(value, placeholder);
    }
    return placeholder;
  }

  value(key: string, value: Json): Json {
    if (Array.isArray(value)) return value.map((item) => this.value(key, item));
    if (value !== null && typeof value === 'object') {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, this.value(k, v)]));
    }
    if (typeof value === 'string' && isIdKey(key)) return this.id(value);
    if (typeof value === 'string' && key === 'cwd' && value === WORKSPACE) return '<workspace>';
    if (typeof value === 'string' && key === 'command' && value.startsWith(`${FAKE_BIN}/`)) return value.replace(FAKE_BIN, '<bin>');
    if (typeof value === 'number' && (key === 'at' || key.endsWith('_at'))) return '<time>';
    if (typeof value === 'number' && (key === 'pid' || key === 'seq')) return `<${key}>`;
    return value;
  }

  /** A recorded command with the fake's own ids (and a fresh one for an id it never gave). */
  command(key: string, value: Json): Json {
    if (Array.isArray(value)) return value.map((item) => this.command(key, item));
    if (value !== null && typeof value === 'object') {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, this.command(k, v)]));
    }
    if (value === '<workspace>') return WORKSPACE;
    if (typeof value === 'string' && isIdKey(key) && value.startsWith('<id ')) {
      for (const [real, placeholder] of this.ids) if (placeholder === value) return real;
      const unknown = `unknown-${this.ids.size + 1}`;
      this.ids.set(unknown, value);
      return unknown;
    }
    return value;
  }
}

/** Keys in the recording order, so a reply compares whatever order the fake builds objects in. */
function sorted(value: Json): Json {
  if (Array.isArray(value)) return value.map(sorted);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.keys(value).sort().map((key) => [key, sorted(value[key])]));
  }
  return value;
}

describe('the fake backend keeps the engine contract', () => {
  const steps = contract as unknown as Step[];

  it('has a recorded script to keep', () => {
    expect(steps.length).toBeGreaterThan(20);
  });

  it('answers each recorded command as the engine did', async () => {
    // The recording's PATH holds `sh` alone (see contract.rs).
    const fake = new FakeBackend({ directories: [WORKSPACE], commands: ['sh'], now: () => 1_700_000_000_000 });
    const normaliser = new Normaliser();
    for (const [index, step] of steps.entries()) {
      const command = normaliser.command('', step.command) as unknown as Command;
      const what = `step ${index + 1}: ${JSON.stringify(step.command)}`;
      let answer: { reply: Json } | { error: { code: string; field: string | null; problems: string[] } };
      try {
        answer = { reply: normaliser.value('', (await dispatchCommand(fake, command)) as unknown as Json) };
      } catch (reason) {
        const error = toApiError(reason);
        answer = { error: { code: error.code, field: error.field, problems: (error.problems ?? []).map((p) => p.field) } };
      }
      const recorded = step.error === undefined ? { reply: step.reply ?? null } : { error: step.error };
      expect(sorted(answer as unknown as Json), what).toEqual(sorted(recorded as unknown as Json));
    }
  });
});
