import { describe, expect, it } from 'vitest';
import type { Iteration, LoopInfo, LoopState } from './bindings';
import { NOTHING_SPENT } from './cost';
import {
  applyLoopEvent,
  historyText,
  shownHistory,
  iterationVerdictText,
  iterationsRun,
  loopSettingsFrom,
  loopStateWord,
  loopStatusText,
  loopsOf,
} from './loops';

const settings = { goal: 'Make the tests pass', stop_word: 'LOOP_COMPLETE', promise: null, max_iterations: 10, stall_after: 5, iteration_time_limit_secs: null };

function loop(id: string, state: LoopState, iterations: Iteration[] = [], extra: Partial<LoopInfo> = {}): LoopInfo {
  const run = iterations.filter((i) => i.outcome.outcome === 'ended').length;
  return { id, profile_id: 'p', settings, created_at: 0, state, iterations, iteration_count: iterations.length, iterations_run: run, spent: NOTHING_SPENT, ...extra };
}

const ended = (number: number, verdict: 'continue' | 'stalled' = 'continue', seq = number): Iteration => ({
  seq,
  number,
  task_id: `t${number}`,
  session_id: `s${number}`,
  started_at: 0,
  spent: NOTHING_SPENT,
  outcome: {
    outcome: 'ended',
    at: 65_000,
    stop_reason: 'error: 3 tests fail',
    verdict: verdict === 'continue' ? { verdict: 'continue' } : { verdict: 'stalled', repeated: 5, reason: 'error: 3 tests fail' },
  },
});

describe('loops in words', () => {
  it.each<[LoopInfo, string, string]>([
    [loop('a', { state: 'active' }), 'active', 'Waiting for its turn (0 of 10 done)'],
    [
      loop('a', { state: 'active' }, [ended(1), { seq: 2, number: 2, task_id: null, session_id: null, started_at: 0, outcome: { outcome: 'running' }, spent: NOTHING_SPENT }]),
      'active',
      'Iteration 2 of at most 10 at work',
    ],
    [loop('a', { state: 'complete', at: 1, why: { by: 'stop_word', word: 'SHIPPED' } }), 'complete', 'Done: the agent wrote SHIPPED in its progress notes'],
    [loop('a', { state: 'complete', at: 1, why: { by: 'promise', text: 'ALL GREEN' } }), 'complete', 'Done: the agent kept its promise “ALL GREEN”'],
    [loop('a', { state: 'complete', at: 1, why: { by: 'max_iterations', max: 10 } }), 'capped', 'Stopped at its cap of 10 iterations, the work not said done'],
    [loop('a', { state: 'stalled', at: 1, repeated: 5, reason: 'x' }), 'stalled', 'Stalled: the same stop reason 5 times in a row'],
    [loop('a', { state: 'cancelled', at: 1 }), 'cancelled', 'Cancelled'],
    [
      loop('a', { state: 'failed_to_start', at: 1, attempts: 4, exit: 'it exited with code 3', said: 'no API key set' }),
      'failed to start',
      'Failed to start: its agent ended before it could be given the work, 4 times in a row',
    ],
    [
      loop('a', { state: 'workspace_gone', at: 1, path: '/home/me/project' }),
      'folder gone',
      'Stopped: its folder /home/me/project is gone',
    ],
    [loop('a', { state: 'over_budget', at: 1, budget: '$5.00' }), 'over budget', 'Stopped: it used its budget of $5.00'],
  ])('%#: %s', (info, word, text) => {
    expect(loopStateWord(info)).toBe(word);
    expect(loopStatusText(info)).toBe(text);
  });

  it('counts only ended iterations, and says what the judge said after each', () => {
    const interrupted: Iteration = { seq: 2, number: 2, task_id: null, session_id: null, started_at: 0, outcome: { outcome: 'interrupted', at: 1 }, spent: NOTHING_SPENT };
    const info = loop('a', { state: 'active' }, [ended(1), interrupted, ended(2, 'stalled', 3)]);
    expect(iterationsRun(info)).toBe(2);
    expect(info.iterations.map((i) => iterationVerdictText(i))).toEqual(['go on', 'interrupted: run again', 'stalled']);
  });

  it('says an iteration cut short by the loop\'s cancel was cancelled, not that it runs again', () => {
    const cut: Iteration = { seq: 2, number: 2, task_id: 't2', session_id: 's2', started_at: 0, outcome: { outcome: 'interrupted', at: 1 }, spent: NOTHING_SPENT };
    const cancelled = loop('a', { state: 'cancelled', at: 1 }, [ended(1), cut]);
    expect(cancelled.iterations.map((i) => iterationVerdictText(i, cancelled))).toEqual(['go on', 'cancelled']);
    // Cut short by the app's stop in a loop that goes on: it is run again.
    const goesOn = loop('a', { state: 'active' }, [ended(1), cut]);
    expect(iterationVerdictText(cut, goesOn)).toBe('interrupted: run again');
  });

  it('says the last failed start of a loop that failed to start was not tried again', () => {
    const failed = (seq: number): Iteration => ({
      seq,
      number: 1,
      task_id: null,
      session_id: null,
      started_at: 0,
      outcome: { outcome: 'failed_start', at: 1, exit: 'it exited with code 3', said: '' },
      spent: NOTHING_SPENT,
    });
    const gaveUp = loop('a', { state: 'failed_to_start', at: 1, attempts: 2, exit: 'it exited with code 3', said: '' }, [failed(1), failed(2)]);
    expect(gaveUp.iterations.map((i) => iterationVerdictText(i, gaveUp))).toEqual(['failed to start: tried again', 'failed to start: given up']);
    const retrying = loop('a', { state: 'active' }, [failed(1)]);
    expect(iterationVerdictText(retrying.iterations[0], retrying)).toBe('failed to start: tried again');
  });

  it('writes large counts as people read them', () => {
    const long = { ...loop('a', { state: 'active' }), iteration_count: 9_900, iterations_run: 9_900, settings: { ...loop('a', { state: 'active' }).settings, max_iterations: 10_000 } };
    expect(loopStatusText(long)).toBe('Waiting for its turn (9,900 of 10,000 done)');
  });
});

describe('a long history', () => {
  it('says how much of it is shown', () => {
    expect(historyText(50, 50)).toBeNull();
    expect(historyText(50, 9_900)).toBe('Showing the last 50 of 9,900');
  });

  it('keeps the iterations that leave the latest window while older ones are shown, and only then', () => {
    const seqs = (list: Iteration[]) => list.map((i) => i.seq);
    const run = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => ended(from + i));
    expect(seqs(shownHistory(run(1, 3), run(4, 6), run(6, 8)))).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(seqs(shownHistory([], run(4, 6), run(6, 8)))).toEqual([6, 7, 8]);
    expect(seqs(shownHistory(run(2, 4), [], run(1, 3)))).toEqual([1, 2, 3, 4]);
  });
});

describe('the loop list', () => {
  it('puts stalled first, then active, then the ended newest first; follows events', () => {
    const done = loop('done', { state: 'cancelled', at: 1 }, [], { created_at: 5 });
    const old = loop('old', { state: 'cancelled', at: 1 }, [], { created_at: 1 });
    const active = loop('active', { state: 'active' });
    const stalled = loop('stalled', { state: 'stalled', at: 1, repeated: 5, reason: 'x' });
    const other = loop('other', { state: 'active' }, [], { profile_id: 'q' });
    expect(loopsOf([old, done, active, stalled, other], 'p').map((l) => l.id)).toEqual(['stalled', 'active', 'done', 'old']);
    let loops = applyLoopEvent([], { type: 'loop_changed', info: active });
    loops = applyLoopEvent(loops, { type: 'loop_changed', info: { ...active, state: { state: 'cancelled', at: 2 } } });
    expect(loops).toHaveLength(1);
    expect(loops[0].state.state).toBe('cancelled');
    expect(applyLoopEvent(loops, { type: 'profile_deleted', profile_id: 'p' })).toEqual([]);
  });
});

describe('the loop form', () => {
  const input = { goal: 'Ship it', stopWord: '', promise: '', maxIterations: '', stallAfter: '', timeLimitMinutes: '' };
  it.each<[Partial<typeof input>, ReturnType<typeof loopSettingsFrom>]>([
    [{}, { ok: true, settings: { goal: 'Ship it', stop_word: 'LOOP_COMPLETE', promise: null, max_iterations: 10, stall_after: 5, iteration_time_limit_secs: null } }],
    [
      { stopWord: ' SHIPPED ', promise: ' ALL GREEN ', maxIterations: '3', stallAfter: '2', timeLimitMinutes: '1.5' },
      { ok: true, settings: { goal: 'Ship it', stop_word: 'SHIPPED', promise: 'ALL GREEN', max_iterations: 3, stall_after: 2, iteration_time_limit_secs: 90 } },
    ],
    [{ maxIterations: 'ten' }, { ok: false, field: 'max_iterations', message: 'a whole number of iterations' }],
    [{ stallAfter: '2.5' }, { ok: false, field: 'stall_after', message: 'a whole number of stop reasons in a row' }],
    [{ timeLimitMinutes: 'soon' }, { ok: false, field: 'iteration_time_limit_secs', message: 'minutes, as a number (empty: the agent’s time limit)' }],
  ])('%j', (fields, expected) => {
    expect(loopSettingsFrom({ ...input, ...fields })).toEqual(expected);
  });
});
