import { fireEvent, screen, waitFor, within } from '@testing-library/svelte';
import { describe, expect, it } from 'vitest';
import { FakeBackend } from '../lib/fakeBackend';
import { connectedHost } from '../test/records';
import presets from '../test/presets.json';
import { callsOf, renderApp } from '../test/render';

const claude = presets.find((p) => p.kind === 'claude-code')!;

const items = () => screen.getAllByTestId('agent-offer-item');
const item = (kind: string) => items().find((i) => i.getAttribute('data-kind') === kind)!;

describe('the agents found on this computer', () => {
  it('offers each found CLI in one click for a folder the user picks, made with its preset', async () => {
    const backend = new FakeBackend({ commands: ['claude', 'bash'], directories: ['/home/ana/shop'], pickedFolders: ['/home/ana/shop'] });
    await renderApp(backend);
    const empty = await screen.findByTestId('empty-state');
    await within(empty).findByTestId('agent-offer');
    expect(item('claude-code').getAttribute('data-state')).toBe('installed');
    expect(item('claude-code').textContent?.replace(/\s+/g, ' ')).toContain('Claude Code 1.0.0 is installed.');
    // A CLI not found says how to install it.
    expect(item('codex').getAttribute('data-state')).toBe('missing');
    expect(within(item('codex')).getByTestId('agent-offer-install').textContent).toBe('npm install -g @openai/codex');
    expect(within(item('codex')).queryByTestId('agent-offer-use')).toBeNull();

    await fireEvent.click(within(item('claude-code')).getByTestId('agent-offer-use'));
    await screen.findByTestId('profile-view');
    expect(callsOf(backend, 'create_profile')).toEqual([
      {
        spec: expect.objectContaining({
          name: 'Claude Code in shop',
          command: 'claude',
          args: claude.args,
          cwd: '/home/ana/shop',
          kind: 'claude-code',
          ready_pattern: claude.ready_pattern,
          ready_quiet_ms: claude.ready_quiet_ms,
        }),
      },
    ]);
    expect(screen.getAllByTestId('profile-entry').map((e) => e.getAttribute('data-profile-name'))).toEqual(['Claude Code in shop']);
  });

  it('makes nothing when the folder picker is cancelled, and is offered in the new agent form too', async () => {
    const backend = new FakeBackend({ commands: ['claude', 'codex'], pickedFolders: [null] });
    backend.seedProfile({ name: 'existing' });
    await renderApp(backend);
    await fireEvent.click(screen.getByTestId('new-agent'));
    const form = await screen.findByTestId('agent-form');
    await within(form).findByTestId('agent-offer');
    expect(items().map((i) => i.getAttribute('data-state'))).toEqual(['installed', 'installed']);
    await fireEvent.click(within(item('codex')).getByTestId('agent-offer-use'));
    await waitFor(() => expect(callsOf(backend, 'pick_folder')).toHaveLength(1));
    await waitFor(() => expect(within(item('codex')).getByTestId('agent-offer-use').hasAttribute('disabled')).toBe(false));
    expect(callsOf(backend, 'create_profile')).toEqual([]);
    expect(screen.getByTestId('agent-form')).toBeTruthy();
  });

  it("picks the folder among the engine machine's folders when it runs on another machine", async () => {
    const backend = new FakeBackend({ host: 'dev@box', commands: ['claude'], pickedFolders: ['/work'] });
    await renderApp(backend);
    const empty = await screen.findByTestId('empty-state');
    await within(empty).findByTestId('agent-offer');
    await fireEvent.click(within(item('claude-code')).getByTestId('agent-offer-use'));
    await waitFor(() => expect(screen.getByTestId('folder-browser').dataset.path).toBe('/home/dev'));
    expect(within(item('claude-code')).getByTestId('agent-offer-use').textContent).toBe('Choosing…');

    // Cancelled: nothing made, the offer there again.
    await fireEvent.click(screen.getByTestId('folder-browser-cancel'));
    await waitFor(() => expect(screen.queryByTestId('folder-browser')).toBeNull());
    expect(within(item('claude-code')).getByTestId('agent-offer-use').hasAttribute('disabled')).toBe(false);
    expect(callsOf(backend, 'create_profile')).toEqual([]);

    await fireEvent.click(within(item('claude-code')).getByTestId('agent-offer-use'));
    await waitFor(() => expect(screen.getByTestId('folder-browser').dataset.path).toBe('/home/dev'));
    await fireEvent.click(screen.getAllByTestId('folder-browser-entry').find((e) => e.dataset.name === 'projects')!);
    await waitFor(() => expect(screen.getByTestId('folder-browser').dataset.path).toBe('/home/dev/projects'));
    await fireEvent.click(screen.getByTestId('folder-browser-use'));
    await screen.findByTestId('profile-view');
    expect(callsOf(backend, 'create_profile')).toEqual([{ spec: expect.objectContaining({ name: 'Claude Code in projects', cwd: '/home/dev/projects' }) }]);
    // This desktop's own dialog was never asked.
    expect(callsOf(backend, 'pick_folder')).toEqual([]);
  });
});

describe('the agents found on another machine', () => {
  it('asks which machine, finds its CLIs there, and makes the agent there among its folders', async () => {
    const backend = new FakeBackend({ commands: ['claude'], pickedFolders: ['/work'] });
    backend.setHostLink({ destination: 'build-box', link: connectedHost('build-box') });
    await renderApp(backend);
    const empty = await screen.findByTestId('empty-state');
    const offer = await within(empty).findByTestId('agent-offer');
    const machine = await within(offer).findByTestId('agent-machine');
    expect([...(machine as HTMLSelectElement).options].map((o) => o.textContent)).toEqual(['This computer', 'build-box']);
    expect(offer.getAttribute('aria-label')).toBe('Agents found on this computer');

    await fireEvent.change(machine, { target: { value: 'build-box' } });
    await waitFor(() => expect(backend.calls.some((c) => c.command === 'detected_agents' && c.machine === 'build-box')).toBe(true));
    expect(screen.getByTestId('agent-offer').getAttribute('aria-label')).toBe('Agents found on build-box');
    await fireEvent.click(within(item('claude-code')).getByTestId('agent-offer-use'));
    await waitFor(() => expect(screen.getByTestId('folder-browser').dataset.path).toBe('/home/dev'));
    expect(screen.getByTestId('folder-browser').textContent).toContain('Folders on build-box');
    await fireEvent.click(screen.getByTestId('folder-browser-use'));

    const page = await screen.findByTestId('profile-view');
    expect(within(page).getByTestId('agent-host').textContent).toBe('on build-box');
    expect(backend.calls.filter((c) => c.command === 'create_profile' || c.command === 'list_folder').map((c) => [c.command, c.machine])).toEqual([
      ['list_folder', 'build-box'],
      ['create_profile', 'build-box'],
    ]);
    expect(callsOf(backend, 'pick_folder')).toEqual([]);
  });

  it('in the new agent form, follows the form’s choice and asks nothing itself', async () => {
    const backend = new FakeBackend({ commands: ['claude'] });
    backend.setHostLink({ destination: 'build-box', link: connectedHost('build-box') });
    backend.seedProfile({ name: 'existing' });
    await renderApp(backend);
    await fireEvent.click(screen.getByTestId('new-agent'));
    const form = await screen.findByTestId('agent-form');
    await within(form).findByTestId('agent-offer');
    await waitFor(() => expect(within(form).getAllByTestId('agent-machine')).toHaveLength(1));
    await fireEvent.change(within(form).getByTestId('agent-machine'), { target: { value: 'build-box' } });
    await waitFor(() => expect(within(form).getByTestId('agent-offer').getAttribute('aria-label')).toBe('Agents found on build-box'));
  });
});
