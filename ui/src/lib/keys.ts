/** The shortcuts' handlers: each runs the palette command of the same name, where it applies. */
import type { AppState } from './appState.svelte';
import type { PaletteAction } from './palette';
import { SHORTCUTS, TERMINAL_KEEPS, type ShortcutId } from './shortcuts';

/** Whether the key was typed into an agent's terminal (xterm.js's input is inside it). */
function inTerminal(event: KeyboardEvent): boolean {
  return event.target instanceof Element && event.target.closest('[data-testid="terminal"]') !== null;
}

export function keyBindings(app: AppState): Record<string, (event: KeyboardEvent) => void> {
  const commandOf = (id: string) => app.paletteCommands.find((c) => c.id === id)?.action;
  const actions: Record<ShortcutId, () => PaletteAction | 'palette' | undefined> = {
    palette: () => 'palette',
    paletteQuick: () => 'palette',
    search: () => commandOf('search'),
    dashboard: () => commandOf('dashboard'),
    grid: () => commandOf('grid'),
    newTask: () => commandOf('new-task'),
    newAgent: () => commandOf('new-agent'),
    answer: () => commandOf('answer'),
    terminal: () => commandOf('terminal'),
    agents: () => commandOf('agents'),
  };
  return Object.fromEntries(
    (Object.keys(SHORTCUTS) as ShortcutId[]).map((id) => [
      SHORTCUTS[id].keys,
      (event: KeyboardEvent) => {
        if (TERMINAL_KEEPS.has(id) && inTerminal(event)) return;
        // A shortcut is the window's, never the terminal's, even where it does nothing now.
        event.preventDefault();
        event.stopPropagation();
        const action = actions[id]();
        if (action === 'palette') app.paletteOpen = !app.paletteOpen;
        else if (action) app.run(action);
      },
    ]),
  );
}
