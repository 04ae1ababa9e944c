/**
 * The seam between the terminal component and xterm.js. `Terminal.svelte` does the session
 * work (attach, flow control, input, resize) against this interface; `xtermSurface.ts` is the
 * real implementation and tests use a recording fake, because xterm does not render in jsdom.
 */
import type { TermSize } from './bindings';

export interface TerminalSurface {
  /** Queue bytes for display; `done` fires once xterm has parsed them (flow control). */
  write(bytes: Uint8Array, done: () => void): void;
  /** Text the user typed or pasted (xterm `onData`). */
  onData(callback: (data: string) => void): void;
  /** Raw byte strings xterm generates, e.g. some mouse reports (xterm `onBinary`). */
  onBinary(callback: (data: string) => void): void;
  /** Fit to the container. Returns the new size, or null while the container has no size. */
  fit(): TermSize | null;
  /** A read-only terminal shows output and selection but sends no input. */
  setReadOnly(readOnly: boolean): void;
  /** Whether the program asked for application cursor keys (DECCKM): arrows are then `ESC O A`, not `ESC [ A`. */
  applicationCursorKeys(): boolean;
  focus(): void;
  dispose(): void;
}

export interface TerminalSurfaceOptions {
  readOnly: boolean;
}

export type TerminalFactory = (container: HTMLElement, options: TerminalSurfaceOptions) => TerminalSurface;

export type ClipboardShortcut = 'copy' | 'paste';

type KeyFields = Pick<KeyboardEvent, 'ctrlKey' | 'shiftKey' | 'altKey' | 'metaKey' | 'key' | 'code'>;

/**
 * Ctrl+Shift+C copies and Ctrl+Shift+V pastes, as in most terminal emulators, because plain
 * Ctrl+C and Ctrl+V belong to the program in the terminal. Matches on the physical key
 * (`code`) or the produced character, so it works on non-QWERTY layouts too.
 */
export function clipboardShortcut(event: KeyFields): ClipboardShortcut | null {
  if (!event.ctrlKey || !event.shiftKey || event.altKey || event.metaKey) return null;
  const key = event.key.toLowerCase();
  if (event.code === 'KeyC' || key === 'c') return 'copy';
  if (event.code === 'KeyV' || key === 'v') return 'paste';
  return null;
}
