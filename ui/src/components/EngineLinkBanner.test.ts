import { fireEvent, screen, waitFor, within } from '@testing-library/svelte';
import { tick } from 'svelte';
import { describe, expect, it, vi } from 'vitest';
import type { HostLink } from '../lib/bindings';
import { FakeBackend } from '../lib/fakeBackend';
import { connectedHost } from '../test/records';
import { callsOf, renderApp } from '../test/render';

describe('engine link banner', () => {
  describe('in a browser', () => {
    it('says Switchboard cannot be reached and tries now on request, never offering to start the engine', async () => {
      const backend = new FakeBackend({ kind: 'browser' });
      await renderApp(backend);
      backend.setEngineLink({ state: 'lost', reason: 'Switchboard’s engine cannot be reached from this browser.', host: null });
      await tick();
      const banner = screen.getByTestId('engine-link-banner');
      expect(banner.textContent).toContain('Switchboard cannot be reached.');
      expect(banner.textContent).toContain('tries again by itself');
      expect(screen.queryByRole('button', { name: 'Start the engine' })).toBeNull();

      // The browser's "start" is its link's next try, now; back, the page loads its picture anew.
      await fireEvent.click(screen.getByRole('button', { name: 'Try now' }));
      await tick();
      expect(callsOf(backend, 'start_engine')).toHaveLength(1);
      expect(screen.queryByTestId('engine-link-banner')).toBeNull();
      expect(backend.reloads).toBe(1);
    });

    it('says this browser is no longer paired and links to pairing again, with nothing to try', async () => {
      const backend = new FakeBackend({ kind: 'browser' });
      await renderApp(backend);
      backend.setEngineLink({ state: 'refused', reason: 'This phone was removed from Switchboard’s devices. Pair it again to go on.', host: null, unpaired: true });
      // The page then shows only this (see the phone layout's test): the banner, on its own.
      const banner = await within(await screen.findByTestId('unpaired-page')).findByTestId('engine-link-banner');
      expect(banner.textContent).toContain('This browser is no longer paired with Switchboard.');
      expect(banner.textContent).toContain('This phone was removed');
      const pair = within(banner).getByRole('link', { name: 'Pair again' });
      expect(pair.getAttribute('href')).toBe('/pair');
      expect(within(banner).queryByRole('button')).toBeNull();
    });

    it('reloads the page when the engine speaks another protocol than the page it served', async () => {
      const backend = new FakeBackend({ kind: 'browser' });
      await renderApp(backend);
      backend.setEngineLink({ state: 'refused', reason: 'The engine runs Switchboard 2.0.0, which cannot talk with this page.', host: null });
      await tick();
      expect(screen.getByTestId('engine-link-banner').textContent).toContain('cannot talk with this page');
      expect(screen.queryByRole('button', { name: 'Restart the engine' })).toBeNull();
      await fireEvent.click(screen.getByRole('button', { name: 'Reload the page' }));
      expect(backend.reloads).toBe(1);
      expect(callsOf(backend, 'restart_engine')).toHaveLength(0);
    });
  });

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

  it('loads anew when the engine comes back through "connecting", and says when the window started a dead one again', async () => {
    const backend = new FakeBackend();
    await renderApp(backend);
    backend.setEngineLink({ state: 'lost', reason: 'The engine stopped unexpectedly; the window starts it again in a moment.', host: null });
    backend.setEngineLink({ state: 'connecting' });
    await tick();
    expect(backend.reloads).toBe(0);
    backend.setEngineLink({ state: 'connected', engine_version: '0.1.0', outdated: false, agents_running: 0, host: null, connection: 2, restarted: true, starts_at_login: false });
    await tick();
    expect(backend.reloads).toBe(1);
    const banner = screen.getByTestId('engine-link-banner');
    expect(banner.textContent).toContain('The engine stopped unexpectedly, and the window started it again.');
    await fireEvent.click(screen.getByRole('button', { name: 'Dismiss' }));
    await tick();
    expect(screen.queryByTestId('engine-link-banner')).toBeNull();
    expect(backend.reloads).toBe(1);
  });

  it('offers to restart another build, asking first when agents would stop', async () => {
    const backend = new FakeBackend();
    const agent = backend.seedProfile({ name: 'builder' });
    backend.seedSession(agent.id, { state: 'running', pid: 7 });
    await renderApp(backend);
    backend.setEngineLink({ state: 'connected', engine_version: '0.0.9', outdated: true, agents_running: 1, host: null, connection: 1, restarted: false, starts_at_login: false });
    await tick();
    expect(screen.getByTestId('engine-link-banner').textContent).toContain('another build of Switchboard (0.0.9) than this window');

    // The window's own question, never `window.confirm` (which shows nothing in the app's web view).
    const confirm = vi.spyOn(window, 'confirm');
    await fireEvent.click(screen.getByRole('button', { name: 'Restart the engine' }));
    const ask = screen.getByTestId('engine-restart-ask');
    expect(ask.textContent).toContain('Restarting the engine stops 1 running agent: builder.');
    expect(callsOf(backend, 'restart_engine')).toHaveLength(0);
    // Kept: nothing restarts, and the banner offers the restart again.
    await fireEvent.click(within(ask).getByRole('button', { name: 'Keep them running' }));
    await tick();
    expect(screen.queryByTestId('engine-restart-ask')).toBeNull();
    expect(callsOf(backend, 'restart_engine')).toHaveLength(0);
    await fireEvent.click(screen.getByRole('button', { name: 'Restart the engine' }));
    await fireEvent.click(screen.getByRole('button', { name: 'Restart and stop them' }));
    await tick();
    expect(callsOf(backend, 'restart_engine')).toHaveLength(1);
    expect(confirm).not.toHaveBeenCalled();
    confirm.mockRestore();
  });

  it('restarts at once when no agent runs', async () => {
    const backend = new FakeBackend();
    await renderApp(backend);
    backend.setEngineLink({ state: 'connected', engine_version: '0.0.9', outdated: true, agents_running: 0, host: null, connection: 1, restarted: false, starts_at_login: false });
    await tick();
    await fireEvent.click(screen.getByRole('button', { name: 'Restart the engine' }));
    await tick();
    expect(screen.queryByTestId('engine-restart-ask')).toBeNull();
    expect(callsOf(backend, 'restart_engine')).toHaveLength(1);
  });
});

describe('other machines’ banners', () => {
  const lost = (destination: string): HostLink => ({ destination, link: { state: 'lost', reason: `The connection to ${destination} was lost.`, host: destination } });
  const banners = () => screen.queryAllByTestId('host-link-banner');

  it('shows one line per machine the window cannot reach, and connects again on request', async () => {
    const backend = new FakeBackend();
    backend.setHostLink({ destination: 'build-box', link: connectedHost('build-box') });
    backend.setHostLink({ destination: 'gpu-box', link: connectedHost('gpu-box') });
    await renderApp(backend);
    expect(banners()).toEqual([]);

    backend.setHostLink(lost('build-box'));
    backend.setHostLink({ destination: 'gpu-box', link: { state: 'refused', reason: 'It speaks another version of the protocol.', host: 'gpu-box' } });
    await tick();
    expect(banners().map((b) => [b.dataset.host, b.dataset.state])).toEqual([
      ['build-box', 'lost'],
      ['gpu-box', 'refused'],
    ]);
    const buildBox = banners()[0];
    expect(buildBox.textContent).toContain('Disconnected from build-box.');
    expect(buildBox.textContent).toContain('go on working there');
    expect(banners()[1].textContent).toContain('The engine on gpu-box cannot talk with this window.');
    // The window's own engine is fine: its banner stays away.
    expect(screen.queryByTestId('engine-link-banner')).toBeNull();

    await fireEvent.click(within(buildBox).getByTestId('host-connect'));
    await tick();
    expect(callsOf(backend, 'connect_host')).toEqual([{ destination: 'build-box' }]);
    expect(banners().map((b) => b.dataset.host)).toEqual(['gpu-box']);
    // Back: the window loads anew, with what its agents did meanwhile.
    expect(backend.reloads).toBe(1);
  });

  it('says why connecting again failed, in its own line', async () => {
    const backend = new FakeBackend();
    backend.setHostLink(lost('build-box'));
    await renderApp(backend);
    await waitFor(() => expect(banners()).toHaveLength(1));
    backend.failNext('connect_host', { code: 'io', message: 'ssh: connect to host build-box port 22: Connection refused', field: null });
    await fireEvent.click(screen.getByRole('button', { name: 'Connect now' }));
    await waitFor(() => expect(banners()[0].textContent).toContain('Connection refused'));
    expect(backend.reloads).toBe(0);
  });
});
