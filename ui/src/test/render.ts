/** Render the whole app on a fake backend and fake terminals, as a user would see it. */
import { render, screen } from '@testing-library/svelte';
import App from '../App.svelte';
import type { FakeBackend } from '../lib/fakeBackend';
import { fakeTerminals } from './fakeTerminal';

export async function renderApp(backend: FakeBackend, options: { sizeOf?: Parameters<typeof fakeTerminals>[0] } = {}) {
  const terminals = fakeTerminals(options.sizeOf);
  const result = render(App, { props: { backend, terminals: terminals.factory } });
  // Loaded once the sidebar has left its loading note.
  await screen.findByTestId('sidebar');
  await waitForLoad();
  return { ...result, terminals };
}

async function waitForLoad(): Promise<void> {
  for (let i = 0; i < 50; i++) {
    if (!screen.getByTestId('sidebar').textContent?.includes('Loading…')) return;
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
  throw new Error('the app did not finish loading');
}

/** Calls of one backend command, with their arguments. */
export function callsOf(backend: FakeBackend, command: string): Record<string, unknown>[] {
  return backend.calls.filter((c) => c.command === command).map((c) => c.args);
}
