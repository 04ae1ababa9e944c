import { fireEvent, screen, waitFor, within } from '@testing-library/svelte';
import { tick } from 'svelte';
import { describe, expect, it } from 'vitest';
import { FakeBackend } from '../lib/fakeBackend';
import { connectedHost } from '../test/records';
import { renderApp } from '../test/render';

/** A window showing this computer's `builder` and build-box's `trainer`. */
function twoMachines() {
  const backend = new FakeBackend();
  backend.setHostLink({ destination: 'build-box', link: connectedHost('build-box') });
  const trainer = backend.seedProfile({ name: 'trainer', host: 'build-box', cwd: '/home/dev/projects/api' });
  const builder = backend.seedProfile({ name: 'builder' });
  return { backend, trainer, builder };
}

const entry = (name: string) => screen.getAllByTestId('profile-entry').find((e) => e.dataset.profileName === name)!;
const card = (name: string) => screen.getAllByTestId('dashboard-card').find((e) => e.dataset.profileName === name)!;

describe('the machine an agent runs on', () => {
  it('is named beside another machine’s agent in the sidebar and on the dashboard, and beside no agent of this computer', async () => {
    const { backend } = twoMachines();
    await renderApp(backend);
    await fireEvent.click(screen.getByTestId('open-dashboard'));
    await waitFor(() => expect(screen.getAllByTestId('dashboard-card')).toHaveLength(2));

    expect(within(entry('trainer')).getByTestId('agent-host').textContent).toBe('on build-box');
    expect(within(entry('builder')).queryByTestId('agent-host')).toBeNull();
    expect(within(card('trainer')).getByTestId('agent-host').textContent).toBe('on build-box');
    expect(within(card('builder')).queryByTestId('agent-host')).toBeNull();
  });

  it('says the machine is disconnected while the window cannot reach it, and its agents go on there', async () => {
    const { backend } = twoMachines();
    await renderApp(backend);
    backend.setHostLink({ destination: 'build-box', link: { state: 'lost', reason: 'The connection was lost.', host: 'build-box' } });
    await tick();
    const label = within(entry('trainer')).getByTestId('agent-host');
    expect(label.textContent).toBe('build-box · disconnected');
    expect(label.title).toBe('Disconnected from build-box; its agents go on working there.');
    expect(label.dataset.connected).toBe('false');
  });

  it('leaves its agents’ state unknown while the window cannot reach it, never the state heard last', async () => {
    const { backend, trainer } = twoMachines();
    backend.seedSession(trainer.id, { state: 'running', pid: 7 });
    await renderApp(backend);
    await fireEvent.click(screen.getByTestId('open-dashboard'));
    await waitFor(() => expect(within(card('trainer')).getByTestId('dashboard-state').textContent).toBe('idle'));

    // Before: "idle for 12s" beside "build-box · disconnected", the last state heard said as now.
    backend.setHostLink({ destination: 'build-box', link: { state: 'lost', reason: 'The connection was lost.', host: 'build-box' } });
    await tick();
    const state = within(card('trainer')).getByTestId('dashboard-state');
    expect(state.textContent).toBe('unknown');
    expect(state.title).toBe('Not known while build-box is disconnected');
    expect(card('trainer').dataset.state).toBe('unknown');
    expect(card('trainer').textContent).not.toContain('idle');
    expect(within(card('trainer')).queryByTestId('dashboard-since')).toBeNull();
    expect(screen.getByTestId('dashboard-summary').textContent).toBe('2 agents · 1 not known');
    const unknown = within(entry('trainer')).getByTestId('profile-unknown');
    expect(unknown.textContent).toBe('unknown');
    expect(unknown.title).toBe('Not known while build-box is disconnected');
    expect(within(entry('trainer')).queryByTestId('profile-queue')).toBeNull();
    // This computer's agent says its state as before.
    expect(within(card('builder')).getByTestId('dashboard-state').textContent).toBe('not started');
    expect(within(entry('builder')).queryByTestId('profile-unknown')).toBeNull();
  });

  it('says its sessions were last seen running, not that they run, while the window cannot reach it', async () => {
    const { backend, trainer } = twoMachines();
    backend.seedSession(trainer.id, { state: 'running', pid: 7 });
    await renderApp(backend);
    const badge = () => within(entry('trainer')).getByTestId('state-badge');
    await waitFor(() => expect(badge().textContent).toBe('running'));

    backend.setHostLink({ destination: 'build-box', link: { state: 'lost', reason: 'The connection was lost.', host: 'build-box' } });
    await tick();
    expect(badge().textContent).toBe('last seen running');
    expect(badge().title).toBe('Its machine is disconnected: it was running when last heard from, and may have ended since.');
    expect(badge().dataset.reached).toBe('false');
    await fireEvent.click(within(entry('trainer')).getByTestId('session-entry'));
    const header = within(await screen.findByTestId('session-view')).getByTestId('session-state');
    expect(header.textContent).toBe('last seen running');
    // Its task panel says neither "working" nor a queue count heard before.
    const queue = await screen.findByTestId('queue-status');
    expect(queue.textContent?.trim()).toBe('unknown');
    expect(within(queue).getByTestId('queue-unknown').title).toBe('Not known while build-box is disconnected');

    backend.setHostLink({ destination: 'build-box', link: connectedHost('build-box') });
    await tick();
    expect(badge().textContent).toBe('running');
    expect(badge().dataset.reached).toBeUndefined();
    expect(header.textContent).toBe('running');
    await waitFor(() => expect(screen.getByTestId('queue-status').textContent).toMatch(/^\s*idle\s*· 0 queued/));
  });

  it('is named in the agent’s page header', async () => {
    const { backend } = twoMachines();
    await renderApp(backend);
    await fireEvent.click(within(entry('trainer')).getByTestId('profile-select'));
    const page = await screen.findByTestId('profile-view');
    expect(within(page).getByTestId('agent-host').textContent).toBe('on build-box');

    await fireEvent.click(within(entry('builder')).getByTestId('profile-select'));
    await tick();
    expect(within(screen.getByTestId('profile-view')).queryByTestId('agent-host')).toBeNull();
  });
});
