import { describe, expect, it } from 'vitest';
import { FlowControl, HIGH_WATERMARK, LOW_WATERMARK } from './flow';

function recorder() {
  const calls: string[] = [];
  const flow = new FlowControl({ pause: () => calls.push('pause'), resume: () => calls.push('resume') });
  return { calls, flow };
}

describe('FlowControl', () => {
  it('uses watermarks with room between them', () => {
    expect(HIGH_WATERMARK).toBe(512 * 1024);
    expect(LOW_WATERMARK).toBe(128 * 1024);
  });

  it('does not pause at or below the high watermark', () => {
    const { calls, flow } = recorder();
    flow.written(HIGH_WATERMARK);
    expect(calls).toEqual([]);
    expect(flow.paused).toBe(false);
  });

  it('pauses once when pending bytes rise above the high watermark', () => {
    const { calls, flow } = recorder();
    flow.written(HIGH_WATERMARK);
    flow.written(1);
    flow.written(64 * 1024);
    flow.written(64 * 1024);
    expect(calls).toEqual(['pause']);
    expect(flow.paused).toBe(true);
    expect(flow.pending).toBe(HIGH_WATERMARK + 1 + 128 * 1024);
  });

  it('resumes once when pending bytes fall below the low watermark, not before', () => {
    const { calls, flow } = recorder();
    const chunk = 64 * 1024;
    for (let i = 0; i < 10; i++) flow.written(chunk); // 640 KiB pending
    expect(calls).toEqual(['pause']);

    // 640 -> 128 KiB: still not below the low watermark.
    for (let i = 0; i < 8; i++) flow.processed(chunk);
    expect(flow.pending).toBe(LOW_WATERMARK);
    expect(calls).toEqual(['pause']);

    flow.processed(chunk); // 64 KiB
    flow.processed(chunk); // 0
    expect(calls).toEqual(['pause', 'resume']);
    expect(flow.paused).toBe(false);
  });

  it('pauses again after a resume when a new burst arrives', () => {
    const { calls, flow } = recorder();
    flow.written(HIGH_WATERMARK + 1);
    flow.processed(HIGH_WATERMARK + 1);
    flow.written(HIGH_WATERMARK + 1);
    expect(calls).toEqual(['pause', 'resume', 'pause']);
  });

  it('never resumes without a pause', () => {
    const { calls, flow } = recorder();
    flow.written(1000);
    flow.processed(1000);
    flow.processed(1000);
    expect(calls).toEqual([]);
    expect(flow.pending).toBe(0);
  });

  it('resumes a paused stream on reset, and only then', () => {
    const { calls, flow } = recorder();
    flow.reset();
    expect(calls).toEqual([]);
    flow.written(HIGH_WATERMARK * 2);
    flow.reset();
    expect(calls).toEqual(['pause', 'resume']);
    expect(flow.pending).toBe(0);
  });

  it('rejects watermarks that would flap or never resume', () => {
    const actions = { pause() {}, resume() {} };
    expect(() => new FlowControl(actions, 100, 100)).toThrow(RangeError);
    expect(() => new FlowControl(actions, 100, -1)).toThrow(RangeError);
    expect(() => new FlowControl(actions, 100, 10)).not.toThrow();
  });
});
