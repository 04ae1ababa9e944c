import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BACKGROUND_WRITE_MS, OVERDUE_MS, Rota, STEP_MS, turnsAt } from './rota';

describe('whose turn it is', () => {
  const cases: { name: string; due: [string, number][]; now: number; turns: string[] }[] = [
    { name: 'no one waits', due: [], now: 100, turns: [] },
    { name: 'no one is due yet', due: [['a', 120], ['b', 150]], now: 100, turns: [] },
    { name: 'the one due first', due: [['a', 90], ['b', 80], ['c', 95]], now: 100, turns: ['b'] },
    { name: 'a tie goes to the one that asked first', due: [['a', 80], ['b', 80]], now: 100, turns: ['a'] },
    { name: 'one due, one not', due: [['a', 120], ['b', 99]], now: 100, turns: ['b'] },
    {
      name: 'every seat overdue goes along',
      due: [['a', 100 - OVERDUE_MS], ['b', 100 - OVERDUE_MS - 50], ['c', 90]],
      now: 100,
      turns: ['a', 'b'],
    },
    {
      name: 'when some are overdue, those only',
      due: [['a', 50], ['b', 100 - OVERDUE_MS + 10], ['c', 100 - OVERDUE_MS], ['d', 100 - OVERDUE_MS - 1]],
      now: 100,
      turns: ['c', 'd'],
    },
    { name: 'overdue just now', due: [['a', 100 - OVERDUE_MS], ['b', 100 - OVERDUE_MS + 1]], now: 100, turns: ['a'] },
  ];
  for (const { name, due, now, turns } of cases) {
    it(name, () => expect(turnsAt(due, now)).toEqual(turns));
  }
});

describe('the background rota', () => {
  let clock = 0;
  beforeEach(() => {
    vi.useFakeTimers();
    clock = 0;
  });
  afterEach(() => vi.useRealTimers());
  const advance = (ms: number) => {
    for (let i = 0; i < ms; i++) {
      clock += 1;
      vi.advanceTimersByTime(1);
    }
  };

  it('writes eight waiting terminals one a step, not all at once', () => {
    const rota = new Rota(() => clock);
    const written: [number, number][] = [];
    const seats = Array.from({ length: 8 }, (_, i) => rota.seat(() => written.push([i, clock])));
    for (const seat of seats) seat.ask();
    advance(STEP_MS * 8);
    expect(written.map(([i]) => i)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    const times = written.map(([, at]) => at);
    for (let i = 1; i < times.length; i++) expect(times[i] - times[i - 1]).toBeGreaterThanOrEqual(STEP_MS);
  });

  it('gives a terminal at most one turn a period, however often it asks', () => {
    const rota = new Rota(() => clock);
    const turns: number[] = [];
    const seat = rota.seat(() => turns.push(clock));
    for (let t = 0; t < 1000; t += 5) {
      seat.ask();
      advance(5);
    }
    expect(turns.length).toBeGreaterThanOrEqual(8);
    for (let i = 1; i < turns.length; i++) expect(turns[i] - turns[i - 1]).toBeGreaterThanOrEqual(BACKGROUND_WRITE_MS);
  });

  it('writes everyone overdue together when its steps come seldom (a window out of sight)', () => {
    const rota = new Rota(() => clock);
    const written: number[] = [];
    const seats = Array.from({ length: 5 }, (_, i) => rota.seat(() => written.push(i)));
    for (const seat of seats) seat.ask();
    // The timer fires late, long after everyone's time.
    clock += OVERDUE_MS + 1000;
    vi.advanceTimersByTime(STEP_MS);
    expect(written.sort()).toEqual([0, 1, 2, 3, 4]);
  });

  it('asks once however often asked, forgets a seat that leaves, and stops its timer when no one waits', () => {
    const rota = new Rota(() => clock);
    let a = 0;
    let b = 0;
    const seatA = rota.seat(() => (a += 1));
    const seatB = rota.seat(() => (b += 1));
    seatA.ask();
    seatA.ask();
    seatB.ask();
    seatB.leave();
    expect(rota.running).toBe(true);
    advance(STEP_MS * 10);
    expect([a, b]).toEqual([1, 0]);
    expect(rota.running).toBe(false);
    seatA.ask();
    seatA.leave();
    expect(rota.running).toBe(false);
    advance(BACKGROUND_WRITE_MS * 2);
    expect(a).toBe(1);
  });
});
