import { describe, expect, it } from 'vitest';
import { clipboardShortcut } from './terminalSurface';

const key = (over: Partial<KeyboardEvent>) =>
  ({ ctrlKey: false, shiftKey: false, altKey: false, metaKey: false, key: '', code: '', ...over }) as KeyboardEvent;

describe('clipboardShortcut', () => {
  it.each([
    [{ ctrlKey: true, shiftKey: true, key: 'C', code: 'KeyC' }, 'copy'],
    [{ ctrlKey: true, shiftKey: true, key: 'V', code: 'KeyV' }, 'paste'],
    // Non-QWERTY layout: the physical key differs, the character matches.
    [{ ctrlKey: true, shiftKey: true, key: 'V', code: 'Period' }, 'paste'],
    // Plain Ctrl+C / Ctrl+V go to the program (interrupt, literal next).
    [{ ctrlKey: true, key: 'c', code: 'KeyC' }, null],
    [{ ctrlKey: true, key: 'v', code: 'KeyV' }, null],
    [{ ctrlKey: true, shiftKey: true, altKey: true, key: 'C', code: 'KeyC' }, null],
    [{ ctrlKey: true, shiftKey: true, key: 'X', code: 'KeyX' }, null],
  ])('%j -> %s', (event, expected) => {
    expect(clipboardShortcut(key(event))).toBe(expected);
  });
});
