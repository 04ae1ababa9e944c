import { describe, expect, it } from 'vitest';
import { Ticker } from './ticker';

describe('a shared tick', () => {
  it('runs every listener in the same tick, and stops its timer when none listens', async () => {
    const ticker = new Ticker(10);
    const heard: string[] = [];
    const stopA = ticker.listen(() => heard.push('a'));
    const stopB = ticker.listen(() => heard.push('b'));
    expect(ticker.running).toBe(true);
    await expect.poll(() => heard.length, { timeout: 2000 }).toBeGreaterThanOrEqual(2);
    // Each tick hears both, one after the other.
    expect(heard.slice(0, 2)).toEqual(['a', 'b']);
    stopA();
    stopB();
    expect(ticker.running).toBe(false);
    const count = heard.length;
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(heard.length).toBe(count);
  });
});
