import { describe, expect, it } from 'vitest';
import type { ApiError } from './bindings';
import { Action } from './action.svelte';
import { apiError } from './errors';

/** A promise and the functions that settle it, for holding an action in flight. */
function deferred() {
  let resolve!: () => void;
  let reject!: (reason: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe('Action', () => {
  it('is busy with the named action while it runs, and not after', async () => {
    const action = new Action<'stopping' | 'starting'>();
    const gate = deferred();
    expect(action.busy).toBeNull();

    const running = action.run('stopping', () => gate.promise);
    expect(action.busy).toBe('stopping');
    gate.resolve();
    expect(await running).toBe(true);
    expect(action.busy).toBeNull();
    expect(action.error).toBeNull();
  });

  it('keeps a failure as the message for the user and clears the busy state', async () => {
    const action = new Action<'cancel'>();
    const ran = await action.run('cancel', () =>
      Promise.reject(apiError('task_state', 'task 1 is completed; it cannot be cancelled')),
    );
    expect(ran).toBe(false);
    expect(action.busy).toBeNull();
    expect(action.error).toBe('task 1 is completed; it cannot be cancelled');

    // Whatever was thrown becomes words, never an object or a rejection.
    await action.run('cancel', () => Promise.reject(new Error('socket closed')));
    expect(action.error).toBe('socket closed');
    await action.run('cancel', () => Promise.reject('unknown command'));
    expect(action.error).toBe('unknown command');
  });

  it('clears the last error when the next action starts', async () => {
    const action = new Action<'save'>();
    await action.run('save', () => Promise.reject(apiError('storage', 'database is locked')));
    expect(action.error).toBe('database is locked');

    const gate = deferred();
    const running = action.run('save', () => gate.promise);
    expect(action.error).toBeNull();
    gate.resolve();
    await running;
    expect(action.error).toBeNull();
  });

  it('refuses a second action while one is in flight when exclusive', async () => {
    const action = new Action<'answer' | 'dismiss'>({ exclusive: true });
    const gate = deferred();
    const first = action.run('answer', () => gate.promise);

    let secondRan = false;
    const second = await action.run('dismiss', async () => {
      secondRan = true;
    });
    expect(second).toBe(false);
    expect(secondRan).toBe(false);
    expect(action.busy).toBe('answer');

    gate.resolve();
    expect(await first).toBe(true);
    expect(await action.run('dismiss', async () => {})).toBe(true);
  });

  it('lets a second action start when not exclusive', async () => {
    const action = new Action<`cancel:${string}`>();
    const gate = deferred();
    const first = action.run('cancel:a', () => gate.promise);
    let secondRan = false;
    await action.run('cancel:b', async () => {
      secondRan = true;
    });
    expect(secondRan).toBe(true);
    gate.resolve();
    await first;
    expect(action.busy).toBeNull();
  });

  it('describes a failure the view\'s way, and takes an error the view found itself', async () => {
    const action = new Action<'approve', { text: string; code: string | null }>({
      describe: (reason) => ({ text: `No: ${(reason as ApiError).message}`, code: (reason as ApiError).code }),
    });
    await action.run('approve', () => Promise.reject(apiError('too_many_agents', '8 agents run')));
    expect(action.error).toEqual({ text: 'No: 8 agents run', code: 'too_many_agents' });

    action.error = { text: 'Choose the agent that takes the work.', code: null };
    expect(action.error.code).toBeNull();
  });
});
