import { describe, expect, it } from 'vitest';
import { Beat } from './beat';

describe("the window's beat", () => {
  it("commits every part's change together, once all have their answers, then the held news", async () => {
    const done: string[] = [];
    const beat = new Beat(() => done.push('held news'));
    let answer = (_: string) => {};
    beat.add(() => new Promise<string>((resolve) => (answer = resolve)).then((text) => () => void done.push(text)));
    beat.add(async () => () => void done.push('previews'));
    const beating = beat.beat();
    await Promise.resolve();
    // One part still asks the engine: nothing has changed yet.
    expect(done).toEqual([]);
    answer('overview');
    await beating;
    expect(done).toEqual(['overview', 'previews', 'held news']);
  });

  it('lets a part that fails change nothing, and a part taken out is not asked', async () => {
    const done: string[] = [];
    const beat = new Beat(() => done.push('held news'));
    beat.add(() => Promise.reject(new Error('the engine is gone')));
    const leave = beat.add(async () => () => void done.push('graph'));
    leave();
    await beat.beat();
    expect(done).toEqual(['held news']);
  });

  it('beats on its own once started, and not after it stopped', async () => {
    let beats = 0;
    const beat = new Beat(() => beats++, 20);
    beat.start();
    await expect.poll(() => beats, { timeout: 10_000 }).toBeGreaterThanOrEqual(2);
    beat.stop();
    const stopped = beats;
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(beats).toBe(stopped);
  });
});
