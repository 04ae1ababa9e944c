import { afterEach, describe, expect, it, vi } from 'vitest';
import { DEFAULT_SETTINGS, applySettingsEvent, followTheme, minutesText, minutesToSecs, shownTheme } from './settings';

/** A `prefers-color-scheme: dark` query whose answer the test changes. */
function desktop(prefersDark: boolean) {
  const listeners = new Set<() => void>();
  const query = {
    matches: prefersDark,
    addEventListener: (_: string, listener: () => void) => listeners.add(listener),
    removeEventListener: (_: string, listener: () => void) => listeners.delete(listener),
  };
  vi.stubGlobal('matchMedia', () => query);
  return {
    set(dark: boolean) {
      query.matches = dark;
      for (const listener of listeners) listener();
    },
    listeners,
  };
}

afterEach(() => {
  vi.unstubAllGlobals();
  delete document.documentElement.dataset.theme;
});

describe('theme', () => {
  it.each([
    ['system', true, 'dark'],
    ['system', false, 'light'],
    ['dark', false, 'dark'],
    ['light', true, 'light'],
  ] as const)('%s with a desktop that prefers dark: %s shows %s', (theme, prefersDark, shown) => {
    expect(shownTheme(theme, prefersDark)).toBe(shown);
  });

  it('follows the desktop live for "system", and stops when told', () => {
    const root = document.documentElement;
    const os = desktop(false);
    const stop = followTheme('system', root);
    expect(root.dataset.theme).toBe('light');
    os.set(true);
    expect(root.dataset.theme).toBe('dark');
    stop();
    expect(os.listeners.size).toBe(0);
    os.set(false);
    expect(root.dataset.theme).toBe('dark');
  });

  it('keeps a chosen theme whatever the desktop does', () => {
    const root = document.documentElement;
    const os = desktop(true);
    followTheme('light', root);
    os.set(false);
    os.set(true);
    expect(root.dataset.theme).toBe('light');
    expect(os.listeners.size).toBe(0);
  });
});

describe('minutes in the form', () => {
  it.each([
    ['30', 1800],
    [' 45 ', 2700],
    ['1.5', 90],
    ['0', 0],
    ['', null],
    ['ten', null],
    ['-5', null],
    ['1e3', null],
  ])('%j is %j seconds', (text, secs) => {
    expect(minutesToSecs(text)).toBe(secs);
  });

  it('shows seconds as minutes', () => {
    expect([minutesText(1800), minutesText(90), minutesText(0), minutesText(100)]).toEqual(['30', '1.5', '0', '1.67']);
  });
});

it('takes saved settings from the engine event, and nothing else', () => {
  const saved = { ...DEFAULT_SETTINGS, theme: 'light' as const };
  expect(applySettingsEvent(DEFAULT_SETTINGS, { type: 'settings_changed', settings: saved })).toBe(saved);
  expect(applySettingsEvent(DEFAULT_SETTINGS, { type: 'storage_changed', problem: null })).toBe(DEFAULT_SETTINGS);
});
