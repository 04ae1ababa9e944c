/**
 * The window's beat: once a second, everything it shows of agents the user is not looking at
 * changes together, in one task, so the web view draws it once. That covers the news held for
 * the agents not shown (`Pacer`), the dashboard's cards, previews and clocks, and the graph.
 * Drawing costs the web view about the same whatever changed, so a window that changes once a
 * second instead of at each event does work in proportion to what it shows, not to what
 * happens.
 *
 * Each part of the beat prepares (it may ask the engine) and then commits: the beat waits for
 * every part's answer, then runs all the commits at once.
 */

/** How often the beat comes. */
export const BEAT_MS = 1000;

/** One part's work: ask what is needed, then give back what to change at the commit. */
export type BeatPart = () => Promise<(() => void) | void>;

export class Beat {
  #parts = new Set<BeatPart>();
  #timer: ReturnType<typeof setTimeout> | null = null;
  #beating = false;
  readonly #period: number;
  readonly #commit: () => void;

  /** `commit` runs at each beat after the parts' commits (the held news is applied there). */
  constructor(commit: () => void, period = BEAT_MS) {
    this.#commit = commit;
    this.#period = period;
  }

  /** Adds a part; the returned function takes it out. */
  add(part: BeatPart): () => void {
    this.#parts.add(part);
    return () => void this.#parts.delete(part);
  }

  /** Beats from now on, on the second (every window's clocks tick together). */
  start(): void {
    if (this.#timer !== null) return;
    const next = () => {
      this.#timer = setTimeout(
        () => {
          void this.beat();
          next();
        },
        this.#period - (Date.now() % this.#period),
      );
    };
    next();
  }

  stop(): void {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
  }

  /**
   * One beat: every part prepares, then all commit together. A part that fails commits nothing
   * (it says why itself); a beat still preparing when the next comes lets that one pass.
   */
  async beat(): Promise<void> {
    if (this.#beating) return;
    this.#beating = true;
    try {
      const commits = await Promise.all([...this.#parts].map((part) => part().catch(() => undefined)));
      for (const commit of commits) commit?.();
      this.#commit();
    } finally {
      this.#beating = false;
    }
  }
}
