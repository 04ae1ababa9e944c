import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { latest } from './latest';

describe('latest', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('runs one request at a time and one more for everything asked meanwhile', async () => {
    const resolvers: (() => void)[] = [];
    const load = vi.fn(() => new Promise<void>((resolve) => resolvers.push(resolve)));
    const gate = latest(load, 250);
    gate.request();
    gate.request();
    gate.request();
    expect(load).toHaveBeenCalledTimes(1);
    resolvers[0]();
    await vi.advanceTimersByTimeAsync(249);
    expect(load).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(load).toHaveBeenCalledTimes(2);
    resolvers[1]();
    await vi.advanceTimersByTimeAsync(1000);
    expect(load).toHaveBeenCalledTimes(2);
  });

  it('goes on after a failed request, and stops when told', async () => {
    const load = vi.fn(() => Promise.reject(new Error('engine gone')));
    const gate = latest(load, 100);
    gate.request();
    await vi.advanceTimersByTimeAsync(0);
    gate.request();
    await vi.advanceTimersByTimeAsync(100);
    expect(load).toHaveBeenCalledTimes(2);
    gate.stop();
    await vi.advanceTimersByTimeAsync(100);
    gate.request();
    expect(load).toHaveBeenCalledTimes(2);
  });
});
