/**
 * Back-pressure between a session's output stream and xterm.js, after the xterm.js
 * "flow control" guide: count the bytes handed to `Terminal.write` whose write callback has
 * not fired yet, ask the engine to pause the session's output above a high watermark and to
 * resume it below a low one.
 *
 * Pure bookkeeping: it knows nothing of xterm or the backend; the caller reports writes and
 * completions and supplies the pause/resume actions.
 */

/**
 * Pending bytes above which output is paused. xterm parses tens of MB/s, so 512 KiB is well
 * under a second of work: large enough that a normal burst never pauses, small enough that a
 * runaway agent cannot queue unbounded memory in the webview.
 */
export const HIGH_WATERMARK = 512 * 1024;

/**
 * Pending bytes below which paused output resumes. The gap to HIGH_WATERMARK keeps the
 * pause/resume pair from flapping on every batch.
 */
export const LOW_WATERMARK = 128 * 1024;

export interface FlowActions {
  /** Called once each time pending bytes rise above the high watermark. */
  pause(): void;
  /** Called once each time pending bytes, after a pause, fall below the low watermark. */
  resume(): void;
}

export class FlowControl {
  #pending = 0;
  #paused = false;
  readonly #actions: FlowActions;
  readonly #high: number;
  readonly #low: number;

  constructor(actions: FlowActions, high = HIGH_WATERMARK, low = LOW_WATERMARK) {
    if (!(low >= 0 && low < high)) {
      throw new RangeError(`flow control needs 0 <= low < high, got low=${low} high=${high}`);
    }
    this.#actions = actions;
    this.#high = high;
    this.#low = low;
  }

  /** Bytes written to the terminal whose write callback has not fired yet. */
  get pending(): number {
    return this.#pending;
  }

  /** Whether `pause` was called and not yet matched by `resume`. */
  get paused(): boolean {
    return this.#paused;
  }

  /** Report `bytes` handed to the terminal. Call before `Terminal.write`. */
  written(bytes: number): void {
    this.#pending += bytes;
    if (!this.#paused && this.#pending > this.#high) {
      this.#paused = true;
      this.#actions.pause();
    }
  }

  /** Report that the write of `bytes` finished (its write callback fired). */
  processed(bytes: number): void {
    // Never below zero, even if a caller reports a completion twice.
    this.#pending = Math.max(0, this.#pending - bytes);
    if (this.#paused && this.#pending < this.#low) {
      this.#paused = false;
      this.#actions.resume();
    }
  }

  /**
   * Forget pending writes (the terminal is going away and its callbacks will never fire).
   * A paused stream is resumed: leaving it paused would stall the agent for good.
   */
  reset(): void {
    this.#pending = 0;
    if (this.#paused) {
      this.#paused = false;
      this.#actions.resume();
    }
  }
}
