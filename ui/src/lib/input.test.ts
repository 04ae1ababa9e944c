import { describe, expect, it } from 'vitest';
import { InputQueue } from './input';

/** A send whose calls complete only when the test says so, in any order. */
function controlledSend() {
  const calls: { data: string; finish: () => void; fail: (reason: unknown) => void }[] = [];
  const send = (data: string) =>
    new Promise<void>((resolve, reject) => calls.push({ data, finish: resolve, fail: reject }));
  return { calls, send };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('InputQueue', () => {
  it('keeps one write in flight and sends what was typed meanwhile, in order, as one write', async () => {
    const { calls, send } = controlledSend();
    const queue = new InputQueue(send, () => {});
    for (const key of 'hello') queue.push(key);
    queue.push('\r');

    expect(calls.map((c) => c.data)).toEqual(['h']);
    calls[0].finish();
    await settle();
    expect(calls.map((c) => c.data)).toEqual(['h', 'ello\r']);
    calls[1].finish();
    await settle();
    expect(queue.idle).toBe(true);
  });

  it('goes on after a failed write and reports the failure', async () => {
    const { calls, send } = controlledSend();
    const errors: unknown[] = [];
    const queue = new InputQueue(send, (reason) => errors.push(reason));
    queue.push('a');
    queue.push('b');
    calls[0].fail(new Error('gone'));
    await settle();
    expect(errors).toHaveLength(1);
    expect(calls.map((c) => c.data)).toEqual(['a', 'b']);
  });

  it('ignores empty input', () => {
    const { calls, send } = controlledSend();
    const queue = new InputQueue(send, () => {});
    queue.push('');
    expect(calls).toHaveLength(0);
    expect(queue.idle).toBe(true);
  });
});
