/**
 * The real `TerminalSurface`: xterm.js with the fit addon and xterm's DOM renderer (no canvas
 * or WebGL addon, so the screen text stays in the DOM where end-to-end tests read it).
 */
import { FitAddon } from '@xterm/addon-fit';
import { Terminal, type ITheme } from '@xterm/xterm';
import '@xterm/xterm/css/xterm.css';
import { logFailure } from './errors';
import { clipboardShortcut, type TerminalFactory, type TerminalSurface } from './terminalSurface';

/** Lines kept above the screen for scrolling back. */
const SCROLLBACK_LINES = 10_000;

/**
 * Matches the app's dark palette (app.css); the 16 ANSI colours are tuned for that background.
 * 256-colour and truecolour output need no option: xterm renders both as the program sent them.
 * The terminal stays dark in the light theme on purpose: agents pick their colours for a dark
 * terminal (and truecolour output cannot be re-tuned), so a light one would lose their text.
 */
const THEME: ITheme = {
  background: '#0d1117',
  foreground: '#d6dde6',
  cursor: '#e6edf3',
  cursorAccent: '#0d1117',
  selectionBackground: '#2f4f7a',
  selectionForeground: '#ffffff',
  black: '#1b2129',
  red: '#f2716b',
  green: '#5fd38d',
  yellow: '#e3b341',
  blue: '#6cb6ff',
  magenta: '#d2a8ff',
  cyan: '#56d4dd',
  white: '#c9d1d9',
  brightBlack: '#6e7781',
  brightRed: '#ff938a',
  brightGreen: '#7ee2a8',
  brightYellow: '#f2cc60',
  brightBlue: '#96cdff',
  brightMagenta: '#e2c5ff',
  brightCyan: '#8ae8ee',
  brightWhite: '#f0f6fc',
};

const FONT_FAMILY =
  "ui-monospace, 'JetBrains Mono', 'Cascadia Mono', 'SF Mono', Menlo, 'DejaVu Sans Mono', 'Liberation Mono', Consolas, monospace";

export const createXtermSurface: TerminalFactory = (container, options) => {
  const term = new Terminal({
    scrollback: SCROLLBACK_LINES,
    theme: THEME,
    fontFamily: FONT_FAMILY,
    fontSize: 13,
    cursorBlink: true,
    disableStdin: options.readOnly,
  });
  const fit = new FitAddon();
  term.loadAddon(fit);
  term.open(container);

  term.attachCustomKeyEventHandler((event) => {
    const shortcut = clipboardShortcut(event);
    if (!shortcut) return true;
    // Returning false keeps xterm from turning the chord into input, for keydown and keyup.
    if (event.type !== 'keydown') return false;
    if (shortcut === 'copy') {
      if (term.hasSelection() && navigator.clipboard?.writeText) {
        event.preventDefault();
        navigator.clipboard.writeText(term.getSelection()).catch(logFailure('copy to clipboard'));
      }
      return false;
    }
    if (navigator.clipboard?.readText) {
      event.preventDefault();
      navigator.clipboard.readText().then((text) => term.paste(text), logFailure('read clipboard'));
    }
    // Without the async clipboard API the default action goes ahead: the webview fires a
    // native paste event on xterm's textarea, and xterm pastes that.
    return false;
  });

  return {
    write: (bytes, done) => term.write(bytes, done),
    onData: (callback) => void term.onData(callback),
    onBinary: (callback) => void term.onBinary(callback),
    fit: () => {
      const proposed = fit.proposeDimensions();
      if (!proposed || !(proposed.rows > 0 && proposed.cols > 0)) return null;
      fit.fit();
      return { rows: term.rows, cols: term.cols };
    },
    setReadOnly: (readOnly) => {
      term.options.disableStdin = readOnly;
    },
    applicationCursorKeys: () => term.modes.applicationCursorKeysMode,
    focus: () => term.focus(),
    dispose: () => term.dispose(),
  } satisfies TerminalSurface;
};
