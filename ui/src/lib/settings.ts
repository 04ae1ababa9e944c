/**
 * The app's settings as the window uses them: the engine's defaults (held to the engine by the
 * recorded contract, through the fake backend's `get_settings`), the theme on the document, and
 * minutes as the settings form writes them. The rules on what may be kept are the engine's
 * (`validate_settings`); the window sends and shows what the engine says.
 */
import type { EngineEvent, Settings, Theme } from './bindings';

/**
 * The engine's settings before the user saved any (`Settings::default` in settings.rs), but for
 * its price table: that is the engine's alone (the one it ships, until the user edits it), shown
 * once the engine answered; until then the window knows no prices.
 */
export const DEFAULT_SETTINGS: Settings = {
  default_task_time_limit_secs: 30 * 60,
  default_quiet_alert_secs: 10 * 60,
  turn_quiet_secs: 30,
  limit_margin_secs: 30,
  limit_retry_secs: 60,
  usage_warn_percent: 80,
  notify: {
    task_completed: true,
    task_failed: true,
    needs_answer: true,
    loop_ended: true,
    agent_quiet: true,
    usage_limit: true,
  },
  quiet_hours: { mode: 'off' },
  theme: 'system',
  terminal_grid: { shows: 'chosen', chosen: [], zoomed: null },
  prices: { source: '', taken: '', models: [] },
};

/** The settings after an event: as saved, when it says they changed. */
export function applySettingsEvent(settings: Settings, event: EngineEvent): Settings {
  return event.type === 'settings_changed' ? event.settings : settings;
}

/** The colours the window shows. */
export type ShownTheme = 'dark' | 'light';

/** The user's choice, or for `system` the desktop's. */
export function shownTheme(theme: Theme, desktopPrefersDark: boolean): ShownTheme {
  switch (theme) {
    case 'dark':
    case 'light':
      return theme;
    case 'system':
      return desktopPrefersDark ? 'dark' : 'light';
  }
}

/** The media query that says the desktop prefers dark colours. */
export const PREFERS_DARK = '(prefers-color-scheme: dark)';

/**
 * Shows `theme` on the document (`data-theme` on its root, which app.css reads) and, for
 * `system`, follows the desktop as it changes. Returns the function that stops following.
 */
export function followTheme(theme: Theme, root: HTMLElement = document.documentElement): () => void {
  const query = typeof window.matchMedia === 'function' ? window.matchMedia(PREFERS_DARK) : null;
  // Without the query (a web view that lacks it), `system` shows the app's first colours, dark.
  const show = () => {
    root.dataset.theme = shownTheme(theme, query?.matches ?? true);
  };
  show();
  if (theme !== 'system' || query === null) return () => {};
  query.addEventListener('change', show);
  return () => query.removeEventListener('change', show);
}

/** Seconds as the form shows them: whole minutes, or minutes with their fraction. */
export function minutesText(secs: number): string {
  return String(Math.round((secs / 60) * 100) / 100);
}

/** Minutes as written in the form, in seconds; null when it is not a number of minutes. */
export function minutesToSecs(text: string): number | null {
  const trimmed = text.trim();
  if (!/^\d+(\.\d+)?$/.test(trimmed)) return null;
  const secs = Math.round(Number(trimmed) * 60);
  // The engine keeps seconds in a u32; it refuses anything that long with its own words.
  return Math.min(secs, 0xffffffff);
}
