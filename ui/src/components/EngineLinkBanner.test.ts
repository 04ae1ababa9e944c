import { fireEvent, screen } from '@testing-library/svelte';
import { tick } from 'svelte';
import { describe, expect, it, vi } from 'vitest';
import { FakeBackend } from '../lib/fakeBackend';
import { callsOf, renderApp } from '../test/render';

describe('engine link banner', () => {
  it('says the engine stopped, starts it on request, and loads the window anew when it is back', async () => {
    const backend = new FakeBackend();
    await renderApp(backend);
    expect(screen.queryByTestId('engine-link-banner')).toBeNull();

    backend.setEngineLink({ state: 'lost', reason: 'The engine stopped.', host: null });
    await tick();
    const banner = screen.getByTestId('engine-link-banner');
    expect(banner.textContent).toContain('The engine stopped.');
    expect(banner.textContent).toContain('reconnects by itself');
    expect(backend.reloads).toBe(0);

    await fireEvent.click(screen.getByRole('button', { name: 'Start the engine' }));
    await tick();
    expect(callsOf(backend, 'start_engine')).toHaveLength(1);
    expect(screen.queryByTestId('engine-link-banner')).toBeNull();
    expect(backend.reloads).toBe(1);
  });

  it('offers to restart another build, asking first when agents would stop', async () => {
    const backend = new FakeBackend();
    const agent = backend.seedProfile({ name: 'builder' });
    backend.seedSession(agent.id, { state: 'running', pid: 7 });
    await renderApp(backend);
    backend.setEngineLink({ state: 'connected', engine_version: '0.0.9', outdated: true, agents_running: 1, host: null });
    await tick();
    expect(screen.getByTestId('engine-link-banner').textContent).toContain('another build of Switchboard (0.0.9) than this window');

    const confirm = vi.spyOn(window, 'confirm').mockReturnValueOnce(false).mockReturnValueOnce(true);
    await fireEvent.click(screen.getByRole('button', { name: 'Restart the engine' }));
    expect(confirm).toHaveBeenCalledWith('Restarting the engine stops 1 running agent (builder). Restart it?');
    expect(callsOf(backend, 'restart_engine')).toHaveLength(0);
    await fireEvent.click(screen.getByRole('button', { name: 'Restart the engine' }));
    await tick();
    expect(callsOf(backend, 'restart_engine')).toHaveLength(1);
    confirm.mockRestore();
  });
});
