/**
 * The window's keyboard shortcuts: one table, read by the key handler (tinykeys' notation)
 * and by the command palette, which lists each beside its command. Ctrl+Shift, as terminal
 * windows do, so no shortcut takes a key an agent's terminal uses; the one exception is
 * `paletteQuick` (Ctrl+K, as in most apps), which is the window's only outside a terminal:
 * in a terminal Ctrl+K stays the agent's (it erases to the end of the line there).
 */
export type ShortcutId = 'palette' | 'paletteQuick' | 'search' | 'dashboard' | 'grid' | 'newTask' | 'newAgent' | 'answer' | 'terminal' | 'agents';

export const SHORTCUTS: Readonly<Record<ShortcutId, { keys: string; label: string }>> = {
  palette: { keys: '$mod+Shift+KeyP', label: 'Ctrl+Shift+P' },
  paletteQuick: { keys: '$mod+KeyK', label: 'Ctrl+K' },
  search: { keys: '$mod+Shift+KeyF', label: 'Ctrl+Shift+F' },
  dashboard: { keys: '$mod+Shift+KeyD', label: 'Ctrl+Shift+D' },
  grid: { keys: '$mod+Shift+KeyG', label: 'Ctrl+Shift+G' },
  newTask: { keys: '$mod+Shift+KeyT', label: 'Ctrl+Shift+T' },
  newAgent: { keys: '$mod+Shift+KeyN', label: 'Ctrl+Shift+N' },
  answer: { keys: '$mod+Shift+KeyA', label: 'Ctrl+Shift+A' },
  terminal: { keys: '$mod+Shift+KeyE', label: 'Ctrl+Shift+E' },
  agents: { keys: '$mod+Shift+KeyB', label: 'Ctrl+Shift+B' },
};

/** Shortcuts a focused terminal keeps for its agent. */
export const TERMINAL_KEEPS: ReadonlySet<ShortcutId> = new Set(['paletteQuick']);

export type GridShortcutId = 'gridLeft' | 'gridRight' | 'gridUp' | 'gridDown' | 'gridZoom';

/**
 * The terminal grid's own keys, bound only while the grid is on screen (elsewhere they stay
 * the terminal's, as before). Ctrl+Shift with the arrows moves between tiles and Ctrl+Shift+Z
 * zooms, as in WezTerm: a program in a terminal cannot tell Ctrl+Shift+Z from Ctrl+Z, and few
 * read Ctrl+Shift+arrows, while Ctrl+Alt+arrows switch workspaces on many Linux desktops and
 * Alt+digits are readline's. Escape is never the grid's: agents use it.
 */
export const GRID_SHORTCUTS: Readonly<Record<GridShortcutId, { keys: string; label: string; words: string }>> = {
  gridLeft: { keys: '$mod+Shift+ArrowLeft', label: 'Ctrl+Shift+←', words: 'the tile before' },
  gridRight: { keys: '$mod+Shift+ArrowRight', label: 'Ctrl+Shift+→', words: 'the tile after' },
  gridUp: { keys: '$mod+Shift+ArrowUp', label: 'Ctrl+Shift+↑', words: 'the tile above' },
  gridDown: { keys: '$mod+Shift+ArrowDown', label: 'Ctrl+Shift+↓', words: 'the tile below' },
  gridZoom: { keys: '$mod+Shift+KeyZ', label: 'Ctrl+Shift+Z', words: 'zoom the tile to the whole grid, and back' },
};
