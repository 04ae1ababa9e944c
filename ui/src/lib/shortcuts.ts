/**
 * The window's keyboard shortcuts: one table, read by the key handler (tinykeys' notation)
 * and by the command palette, which lists each beside its command. Ctrl+Shift, as terminal
 * windows do, so no shortcut takes a key an agent's terminal uses; the one exception is
 * `paletteQuick` (Ctrl+K, as in most apps), which is the window's only outside a terminal:
 * in a terminal Ctrl+K stays the agent's (it erases to the end of the line there).
 */
export type ShortcutId = 'palette' | 'paletteQuick' | 'search' | 'dashboard' | 'newTask' | 'newAgent' | 'answer' | 'terminal' | 'agents';

export const SHORTCUTS: Readonly<Record<ShortcutId, { keys: string; label: string }>> = {
  palette: { keys: '$mod+Shift+KeyP', label: 'Ctrl+Shift+P' },
  paletteQuick: { keys: '$mod+KeyK', label: 'Ctrl+K' },
  search: { keys: '$mod+Shift+KeyF', label: 'Ctrl+Shift+F' },
  dashboard: { keys: '$mod+Shift+KeyD', label: 'Ctrl+Shift+D' },
  newTask: { keys: '$mod+Shift+KeyT', label: 'Ctrl+Shift+T' },
  newAgent: { keys: '$mod+Shift+KeyN', label: 'Ctrl+Shift+N' },
  answer: { keys: '$mod+Shift+KeyA', label: 'Ctrl+Shift+A' },
  terminal: { keys: '$mod+Shift+KeyE', label: 'Ctrl+Shift+E' },
  agents: { keys: '$mod+Shift+KeyB', label: 'Ctrl+Shift+B' },
};

/** Shortcuts a focused terminal keeps for its agent. */
export const TERMINAL_KEEPS: ReadonlySet<ShortcutId> = new Set(['paletteQuick']);
