/**
 * Turns to write, for the grid's terminals that do not have the keyboard. Each holds its output
 * and asks for a turn; the rota gives one turn a step (about a frame), to the terminal due
 * first, and each terminal at most one turn a `BACKGROUND_WRITE_MS`. So the window redraws at
 * most one background tile in a frame beside the focused one, which writes as output comes:
 * eight tiles drawn in the same frame made the grid's slowest frames three times one tile's.
 * A terminal kept waiting `OVERDUE_MS` past its time gets its turn in any case (a window out of
 * sight runs its timers seldom, and what is held would otherwise pause its agent's output).
 */
export const BACKGROUND_WRITE_MS = 100;

/** The least time between two turns: about one frame. */
export const STEP_MS = 16;

/** Past its due time by this, a terminal writes at the next step whoever else does. */
export const OVERDUE_MS = 400;

/**
 * Whose turn it is at `now`, given when each waiting seat is due (pure): the one due first, if
 * its time has come; or, when any is overdue by `OVERDUE_MS`, every such one. Ties go to the
 * one that asked first (the order of `due`).
 */
export function turnsAt<K>(due: Iterable<readonly [K, number]>, now: number): K[] {
  let first: K | undefined;
  let firstDue = Infinity;
  const overdue: K[] = [];
  for (const [seat, at] of due) {
    if (at > now) continue;
    if (at < firstDue) {
      first = seat;
      firstDue = at;
    }
    if (now - at >= OVERDUE_MS) overdue.push(seat);
  }
  if (overdue.length > 0) return overdue;
  return first === undefined ? [] : [first];
}

/** A terminal's place in the rota: it asks for a turn when it holds output, leaves when it goes. */
export interface Seat {
  /** A turn is wanted: `write` runs at it. Asking again before it comes changes nothing. */
  ask(): void;
  /** No more turns (the terminal is gone, or writes by itself now). */
  leave(): void;
}

export class Rota {
  /** Each waiting seat's `write`, by seat, and when it is due (in asking order). */
  readonly #waiting = new Map<object, { due: number; write: () => void }>();
  #timer: ReturnType<typeof setTimeout> | null = null;
  readonly #now: () => number;

  constructor(now: () => number = () => performance.now()) {
    this.#now = now;
  }

  /** A seat whose turns run `write`. */
  seat(write: () => void): Seat {
    const key = {};
    let lastTurn = -Infinity;
    return {
      ask: () => {
        if (this.#waiting.has(key)) return;
        this.#waiting.set(key, {
          due: Math.max(this.#now(), lastTurn + BACKGROUND_WRITE_MS),
          write: () => {
            lastTurn = this.#now();
            write();
          },
        });
        this.#schedule();
      },
      leave: () => {
        this.#waiting.delete(key);
        if (this.#waiting.size === 0) this.#stop();
      },
    };
  }

  /** Whether a step is scheduled (some seat waits). */
  get running(): boolean {
    return this.#timer !== null;
  }

  #schedule(): void {
    if (this.#timer !== null || this.#waiting.size === 0) return;
    let first = Infinity;
    for (const { due } of this.#waiting.values()) first = Math.min(first, due);
    this.#timer = setTimeout(() => this.#step(), Math.max(STEP_MS, first - this.#now()));
  }

  #step(): void {
    this.#timer = null;
    const now = this.#now();
    const entries = [...this.#waiting].map(([key, { due }]) => [key, due] as const);
    for (const key of turnsAt(entries, now)) {
      const waiting = this.#waiting.get(key);
      this.#waiting.delete(key);
      waiting?.write();
    }
    this.#schedule();
  }

  #stop(): void {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
  }
}

/** The rota the grid's background terminals share. */
export const backgroundWrites = new Rota();
