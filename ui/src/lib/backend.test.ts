import { describe, expect, it } from 'vitest';
import { framed } from './backend';

describe('engine events delivered a frame at a time', () => {
  it('delivers every event, in order, those of one frame together', () => {
    const runs: (() => void)[] = [];
    const seen: number[][] = [];
    let batch: number[] = [];
    const deliver = framed<number>((n) => batch.push(n), (run) => runs.push(run));
    for (const n of [1, 2, 3]) deliver(n);
    expect(runs).toHaveLength(1);
    expect(batch).toEqual([]);
    runs.shift()!();
    seen.push(batch);
    batch = [];
    deliver(4);
    deliver(5);
    runs.shift()!();
    seen.push(batch);
    expect(seen).toEqual([[1, 2, 3], [4, 5]]);
    expect(runs).toHaveLength(0);
  });
});
