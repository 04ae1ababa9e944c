/** A recording `TerminalSurface` for component tests (xterm does not render in jsdom). */
import type { TermSize } from '../lib/bindings';
import type { TerminalFactory, TerminalSurface, TerminalSurfaceOptions } from '../lib/terminalSurface';

export class FakeSurface implements TerminalSurface {
  readonly container: HTMLElement;
  readonly written: Uint8Array[] = [];
  /** When each of `written` was written (`performance.now()`). */
  readonly writtenAt: number[] = [];
  /** Write callbacks not yet fired, when `holdWrites` is set (xterm still parsing). */
  readonly pendingWrites: (() => void)[] = [];
  holdWrites = false;
  /** What `fit()` reports: the size the container would give. */
  size: TermSize | null = { rows: 30, cols: 100 };
  readOnly: boolean;
  focused = false;
  disposed = false;
  /** The program asked for application cursor keys (DECCKM), as xterm would know from its output. */
  applicationCursor = false;
  #onData: ((data: string) => void) | null = null;
  #onBinary: ((data: string) => void) | null = null;

  constructor(container: HTMLElement, options: TerminalSurfaceOptions) {
    this.container = container;
    this.readOnly = options.readOnly;
  }

  /** Everything written so far, decoded. */
  text(): string {
    const decoder = new TextDecoder();
    return this.written.map((b) => decoder.decode(b)).join('');
  }

  /** Fire the held write callbacks, as xterm does once it has parsed the data. */
  finishWrites(): void {
    for (const done of this.pendingWrites.splice(0)) done();
  }

  /** Input as xterm would report it (the component must decide whether to send it). */
  type(data: string): void {
    this.#onData?.(data);
  }

  binary(data: string): void {
    this.#onBinary?.(data);
  }

  write(bytes: Uint8Array, done: () => void): void {
    this.written.push(bytes);
    this.writtenAt.push(performance.now());
    if (this.holdWrites) this.pendingWrites.push(done);
    else done();
  }
  onData(callback: (data: string) => void): void {
    this.#onData = callback;
  }
  onBinary(callback: (data: string) => void): void {
    this.#onBinary = callback;
  }
  fit(): TermSize | null {
    return this.size;
  }
  setReadOnly(readOnly: boolean): void {
    this.readOnly = readOnly;
  }
  applicationCursorKeys(): boolean {
    return this.applicationCursor;
  }
  focus(): void {
    this.focused = true;
  }
  dispose(): void {
    this.disposed = true;
  }
}

/**
 * Fake terminals for a rendered app. `sizeOf` gives the size a terminal fits to by where it is
 * (its container), e.g. smaller in a grid's tile than in the session view; 30×100 without it.
 */
export function fakeTerminals(sizeOf?: (container: HTMLElement) => TermSize | null): { factory: TerminalFactory; surfaces: FakeSurface[]; last(): FakeSurface } {
  const surfaces: FakeSurface[] = [];
  return {
    surfaces,
    factory: (container, options) => {
      const surface = new FakeSurface(container, options);
      if (sizeOf) surface.size = sizeOf(container);
      surfaces.push(surface);
      return surface;
    },
    last: () => {
      const surface = surfaces.at(-1);
      if (!surface) throw new Error('no terminal was created');
      return surface;
    },
  };
}
