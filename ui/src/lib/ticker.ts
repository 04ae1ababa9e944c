/**
 * One timer shared by many listeners, running while any listens: what they do at its tick
 * happens in one task, so the window draws it once. The grid's terminals that do not have the
 * keyboard write their output at this tick (`BACKGROUND_WRITE_MS`) rather than as it comes:
 * eight streaming tiles then cost the window one redraw a tick, not eight a frame, and the
 * focused one still shows each byte as it comes.
 */
export const BACKGROUND_WRITE_MS = 100;

export class Ticker {
  #listeners = new Set<() => void>();
  #timer: ReturnType<typeof setInterval> | null = null;
  readonly #period: number;

  constructor(period: number) {
    this.#period = period;
  }

  /** Runs `listener` at each tick from now on; the returned function stops it. */
  listen(listener: () => void): () => void {
    this.#listeners.add(listener);
    this.#timer ??= setInterval(() => {
      for (const each of this.#listeners) each();
    }, this.#period);
    return () => {
      this.#listeners.delete(listener);
      if (this.#listeners.size === 0 && this.#timer !== null) {
        clearInterval(this.#timer);
        this.#timer = null;
      }
    };
  }

  get running(): boolean {
    return this.#timer !== null;
  }
}

/** The tick the grid's background terminals write at. */
export const backgroundWrites = new Ticker(BACKGROUND_WRITE_MS);
