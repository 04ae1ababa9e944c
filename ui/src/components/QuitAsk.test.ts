import { fireEvent, screen, within } from '@testing-library/svelte';
import { tick } from 'svelte';
import { describe, expect, it } from 'vitest';
import { FakeBackend } from '../lib/fakeBackend';
import { callsOf, renderApp } from '../test/render';

describe('the tray’s Quit and stop all agents', () => {
  it('asks in the window, naming the agents that run here, and stops nothing until the user says so', async () => {
    const backend = new FakeBackend();
    const builder = backend.seedProfile({ name: 'builder' });
    const reviewer = backend.seedProfile({ name: 'reviewer' });
    backend.seedProfile({ name: 'idle' });
    backend.seedSession(builder.id, { state: 'running', pid: 7 });
    backend.seedSession(reviewer.id, { state: 'running', pid: 8 });
    await renderApp(backend);

    backend.askQuitAndStop();
    await tick();
    const ask = screen.getByTestId('quit-stop-ask');
    expect(ask.textContent).toContain('stops the engine and 2 running agents: builder, reviewer.');
    expect(ask.textContent).not.toContain('idle');
    expect(callsOf(backend, 'quit_and_stop_agents')).toHaveLength(0);

    await fireEvent.click(within(ask).getByRole('button', { name: 'Keep them running' }));
    await tick();
    expect(screen.queryByTestId('quit-stop-ask')).toBeNull();
    expect(callsOf(backend, 'quit_and_stop_agents')).toHaveLength(0);

    backend.askQuitAndStop();
    await tick();
    await fireEvent.click(screen.getByRole('button', { name: 'Stop them and quit' }));
    await tick();
    expect(callsOf(backend, 'quit_and_stop_agents')).toHaveLength(1);
  });

  it('quits at once when no agent runs here', async () => {
    const backend = new FakeBackend();
    backend.seedProfile({ name: 'idle' });
    await renderApp(backend);
    backend.askQuitAndStop();
    await tick();
    expect(screen.queryByTestId('quit-stop-ask')).toBeNull();
    expect(callsOf(backend, 'quit_and_stop_agents')).toHaveLength(1);
  });
});
