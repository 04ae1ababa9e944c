import { describe, expect, it } from 'vitest';
import { toBytes } from './bytes';

describe('toBytes', () => {
  it('accepts an ArrayBuffer, a Uint8Array, another typed view and a number array', () => {
    const expected = Uint8Array.from([104, 105, 10]);
    expect(toBytes(expected.buffer.slice(0))).toEqual(expected);
    expect(toBytes(expected)).toBe(expected);
    expect(toBytes(new DataView(Uint8Array.from([0, 104, 105, 10]).buffer, 1))).toEqual(expected);
    expect(toBytes([104, 105, 10])).toEqual(expected);
  });

  it('rejects what is not bytes', () => {
    expect(toBytes('hi')).toBeNull();
    expect(toBytes([256])).toBeNull();
    expect(toBytes([1.5])).toBeNull();
    expect(toBytes({ data: [1] })).toBeNull();
    expect(toBytes(null)).toBeNull();
  });
});
