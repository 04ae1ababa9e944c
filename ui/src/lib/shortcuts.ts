/**
 * The window's keyboard shortcuts: one table, read by the key handler (tinykeys' notation)
 * and by the command palette, which lists each beside its command. Ctrl+Shift, as terminal
 * windows do, so no shortcut takes a key an agent's terminal uses.
 */
export type ShortcutId = 'palette' | 'search' | 'dashboard' | 'newTask' | 'newAgent' | 'answer' | 'terminal' | 'agents';

export const SHORTCUTS: Readonly<Record<ShortcutId, { keys: string; label: string }>> = {
  palette: { keys: '$mod+Shift+KeyP', label: 'Ctrl+Shift+P' },
  search: { keys: '$mod+Shift+KeyF', label: 'Ctrl+Shift+F' },
  dashboard: { keys: '$mod+Shift+KeyD', label: 'Ctrl+Shift+D' },
  newTask: { keys: '$mod+Shift+KeyT', label: 'Ctrl+Shift+T' },
  newAgent: { keys: '$mod+Shift+KeyN', label: 'Ctrl+Shift+N' },
  answer: { keys: '$mod+Shift+KeyA', label: 'Ctrl+Shift+A' },
  terminal: { keys: '$mod+Shift+KeyE', label: 'Ctrl+Shift+E' },
  agents: { keys: '$mod+Shift+KeyB', label: 'Ctrl+Shift+B' },
};
