import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import { tick } from 'svelte';
import { describe, expect, it } from 'vitest';
import App from '../App.svelte';
import { FakeBackend } from '../lib/fakeBackend';
import { signalScan } from '../test/records';
import { fakeTerminals } from '../test/fakeTerminal';
import { profileSpec } from '../test/profiles';
import { callsOf, renderApp } from '../test/render';
import { clarification } from '../test/signals';
import { question, waitsOn } from '../test/attention';

function entryOf(sessionId: string): HTMLElement {
  const entry = screen.getAllByTestId('session-entry').find((e) => e.getAttribute('data-session-id') === sessionId);
  if (!entry) throw new Error(`no sidebar entry for ${sessionId}`);
  return entry;
}

describe('sidebar', () => {
  it("shows a running session's agent status as its hooks report it", async () => {
    const backend = new FakeBackend();
    const p = backend.seedProfile({ name: 'claude', kind: 'claude-code' });
    const session = backend.seedSession(p.id, { state: 'running', pid: 7 });
    const shell = backend.seedProfile({ name: 'shell', kind: 'generic' });
    const plain = backend.seedSession(shell.id, { state: 'running', pid: 8 });
    await renderApp(backend);
    // A plain command has no hooks: no badge.
    expect(within(entryOf(plain.id)).queryByTestId('agent-status')).toBeNull();
    // No event yet: the badge says so.
    const silent = within(entryOf(session.id)).getByTestId('agent-status');
    expect(silent.getAttribute('data-status')).toBe('silent');
    expect(silent.getAttribute('title')).toMatch(/^No hook events from this agent yet/);

    // An agent the main area does not show takes its news at the window's pace.
    backend.setAgentStatus({ session_id: session.id, status: 'working', last_event_at: 1000, team: null, agent_name: null, agent_type: null });
    await waitFor(() => expect(within(entryOf(session.id)).getByTestId('agent-status').getAttribute('data-status')).toBe('working'));
    expect(within(entryOf(session.id)).getByTestId('agent-status').getAttribute('title')).toMatch(/^Hook events arrive/);

    backend.setAgentStatus({ session_id: session.id, status: 'attention', last_event_at: 2000, team: null, agent_name: null, agent_type: null });
    await waitFor(() => expect(within(entryOf(session.id)).getByTestId('agent-status').textContent).toBe('needs you'));
  });

  it('narrows its agents as the user types in the search box, and still searches everything on Enter', async () => {
    const backend = new FakeBackend();
    backend.seedProfile({ name: 'Demo agent', cwd: '/home/ana/demo' });
    backend.seedProfile({ name: 'Reviewer', cwd: '/home/ana/shop' });
    await renderApp(backend);
    const names = () => screen.queryAllByTestId('profile-entry').map((e) => e.getAttribute('data-profile-name'));
    expect(names()).toEqual(['Demo agent', 'Reviewer']);
    const box = screen.getByTestId('sidebar-search');
    await fireEvent.input(box, { target: { value: 'rev' } });
    expect(names()).toEqual(['Reviewer']);
    await fireEvent.input(box, { target: { value: 'zzz' } });
    expect(names()).toEqual([]);
    expect(screen.getByTestId('no-agent-matches').textContent).toContain('Press Enter to search tasks, summaries and questions');
    await fireEvent.input(box, { target: { value: '' } });
    expect(names()).toEqual(['Demo agent', 'Reviewer']);
  });

  it('lists each agent with its kind in words and its project folder; the command is in the detail', async () => {
    const backend = new FakeBackend();
    backend.seedProfile({ name: 'claude', command: 'claude', args: ['--model', 'big model'], kind: 'claude-code', cwd: '/home/ana/shop' });
    backend.seedProfile({ name: 'codex', command: 'codex', kind: 'codex', cwd: '/tmp' });
    backend.seedProfile({ name: 'script', command: 'bash', kind: 'generic', cwd: '/work' });
    await renderApp(backend);

    const entries = screen.getAllByTestId('profile-entry');
    expect(entries.map((e) => e.getAttribute('data-profile-name'))).toEqual(['claude', 'codex', 'script']);
    expect(within(entries[0]).getByTestId('profile-kind').textContent).toBe('Claude Code');
    expect(within(entries[1]).getByTestId('profile-kind').textContent).toBe('Codex');
    // Any other command needs no tag.
    expect(within(entries[2]).queryByTestId('profile-kind')).toBeNull();
    expect(within(entries[0]).getByTestId('profile-folder').textContent).toBe('shop');
    expect(entries[0].textContent).not.toContain('--model');
    expect(within(entries[0]).getByTestId('profile-select').getAttribute('title')).toBe(
      "claude: claude --model 'big model', in /home/ana/shop",
    );
  });

  it('shows a badge for every session state, newest first', async () => {
    const backend = new FakeBackend();
    const p = backend.seedProfile({ name: 'agent' });
    const running = backend.seedSession(p.id, { state: 'running', pid: 31337 }, 4000);
    const exited = backend.seedSession(p.id, { state: 'exited', exit_code: 2, signal: null, ended_at: 3500 }, 3000);
    const killed = backend.seedSession(p.id, { state: 'killed', exit_code: 143, signal: 'SIGTERM', ended_at: 2500 }, 2000);
    const interrupted = backend.seedSession(p.id, { state: 'interrupted', ended_at: 1500 }, 1000);
    await renderApp(backend);

    const entries = screen.getAllByTestId('session-entry');
    expect(entries.map((e) => e.getAttribute('data-session-id'))).toEqual([running.id, exited.id, killed.id, interrupted.id]);
    expect(entries.map((e) => e.getAttribute('data-state'))).toEqual(['running', 'exited', 'killed', 'interrupted']);
    const badges = entries.map((e) => within(e).getByTestId('state-badge').textContent?.trim());
    expect(badges).toEqual(['running', 'exited, code 2', 'stopped', 'interrupted']);
    // The process id only in the detail.
    expect(within(entries[0]).getByTestId('state-badge').getAttribute('title')).toBe('Running as process 31337.');
  });

  it('updates a badge when the engine reports a session change', async () => {
    const backend = new FakeBackend();
    const p = backend.seedProfile({ name: 'agent' });
    const session = backend.seedSession(p.id, { state: 'running', pid: 7 });
    await renderApp(backend);
    expect(entryOf(session.id).getAttribute('data-state')).toBe('running');

    backend.emit({ type: 'session_changed', session: { ...session, state: 'exited', exit_code: 0, signal: null, ended_at: 1 } });
    await tick();

    expect(entryOf(session.id).getAttribute('data-state')).toBe('exited');
    expect(within(entryOf(session.id)).getByTestId('state-badge').textContent?.trim()).toBe('exited');
  });

  it('adds sessions and profiles that appear through events', async () => {
    const backend = new FakeBackend();
    await renderApp(backend);
    expect(screen.queryAllByTestId('profile-entry')).toHaveLength(0);

    const profile = await backend.createProfile(profileSpec('late'));
    await tick();
    expect(screen.getAllByTestId('profile-entry').map((e) => e.getAttribute('data-profile-name'))).toEqual(['late']);

    const session = await backend.startSession(profile.id, { rows: 24, cols: 80 });
    await tick();
    expect(entryOf(session.id).getAttribute('data-state')).toBe('running');
  });

  it('start calls start_session with 24x80 before any terminal was measured, then selects the session', async () => {
    const backend = new FakeBackend();
    const p = backend.seedProfile({ name: 'agent' });
    await renderApp(backend);
    expect(callsOf(backend, 'start_session')).toEqual([]);

    await fireEvent.click(within(screen.getByTestId('profile-entry')).getByTestId('start-profile'));

    expect(callsOf(backend, 'start_session')).toEqual([{ profileId: p.id, size: { rows: 24, cols: 80 } }]);
    const view = await screen.findByTestId('session-view');
    const [session] = await backend.listSessions();
    expect(view.getAttribute('data-session-id')).toBe(session.id);
    expect(entryOf(session.id).getAttribute('aria-current')).toBe('true');
  });

  it('starts later sessions at the size the terminal last fitted to', async () => {
    const backend = new FakeBackend();
    const p = backend.seedProfile({ name: 'agent' });
    backend.seedSession(p.id, { state: 'running', pid: 1 });
    const { terminals } = await renderApp(backend); // opens on the running session; the fake fits to 30x100

    expect(terminals.last().size).toEqual({ rows: 30, cols: 100 });
    await fireEvent.click(screen.getByTestId('stop-session'));
    await screen.findByTestId('session-ended-notice');
    await fireEvent.click(screen.getByTestId('start-profile'));
    expect(callsOf(backend, 'start_session')).toEqual([{ profileId: p.id, size: { rows: 30, cols: 100 } }]);
  });

  it('on an agent that runs, Open shows its session instead of starting a second one', async () => {
    const backend = new FakeBackend();
    const p = backend.seedProfile({ name: 'agent' });
    const other = backend.seedProfile({ name: 'other' });
    const running = backend.seedSession(p.id, { state: 'running', pid: 1 }, 100);
    backend.seedSession(other.id, { state: 'running', pid: 2 }, 200);
    await renderApp(backend);
    const entry = screen.getAllByTestId('profile-entry').find((e) => e.getAttribute('data-profile-name') === 'agent')!;
    const button = within(entry).getByTestId('start-profile');
    expect(button.textContent?.trim()).toBe('Open');
    await fireEvent.click(button);
    expect(callsOf(backend, 'start_session')).toEqual([]);
    expect((await screen.findByTestId('session-view')).getAttribute('data-session-id')).toBe(running.id);
  });

  it('shows a start failure under its profile', async () => {
    const backend = new FakeBackend();
    backend.seedProfile({ name: 'ok' });
    backend.seedProfile({ name: 'broken' });
    backend.failNext('start_session', { code: 'spawn_failed', message: 'could not spawn `broken`: permission denied', field: null });
    await renderApp(backend);

    const [ok, broken] = screen.getAllByTestId('profile-entry');
    await fireEvent.click(within(broken).getByTestId('start-profile'));

    expect((await within(broken).findByTestId('start-error')).textContent).toBe('could not spawn `broken`: permission denied');
    expect(within(ok).queryByTestId('start-error')).toBeNull();
  });

  it('clicking a session selects it', async () => {
    const backend = new FakeBackend();
    const p = backend.seedProfile({ name: 'agent' });
    const older = backend.seedSession(p.id, { state: 'exited', exit_code: 0, signal: null, ended_at: 2 }, 1);
    backend.seedSession(p.id, { state: 'running', pid: 9 }, 5);
    await renderApp(backend);

    await fireEvent.click(entryOf(older.id));
    expect(screen.getByTestId('session-view').getAttribute('data-session-id')).toBe(older.id);
    expect(screen.getByTestId('session-state').getAttribute('data-state')).toBe('exited');
  });

  it('collapses sessions beyond the five most recent', async () => {
    const backend = new FakeBackend();
    const p = backend.seedProfile({ name: 'agent' });
    const ids = Array.from({ length: 7 }, (_, i) => backend.seedSession(p.id, { state: 'interrupted', ended_at: i + 1 }, i).id);
    await renderApp(backend);

    const shown = () => screen.getAllByTestId('session-entry').map((e) => e.getAttribute('data-session-id'));
    expect(shown()).toEqual(ids.slice(2).reverse());
    const toggle = screen.getByTestId('older-sessions-toggle');
    expect(toggle.textContent?.trim()).toBe('2 older…');

    await fireEvent.click(toggle);
    expect(shown()).toEqual([...ids].reverse());
  });

  it('renders a profile name with markup as text', async () => {
    const backend = new FakeBackend();
    const name = '<img src=x onerror=alert(1)>';
    backend.seedProfile({ name, command: '<b>bold</b>', cwd: '/tmp' });
    const { container } = await renderApp(backend);

    const entry = screen.getByTestId('profile-entry');
    expect(entry.textContent).toContain(name);
    expect(screen.getByTestId('profile-select').getAttribute('title')).toContain('<b>bold</b>');
    expect(container.querySelector('img')).toBeNull();
    expect(container.querySelector('b')).toBeNull();
    // The profile view shows it too, still as text.
    expect(screen.getByTestId('profile-view').textContent).toContain(name);
  });
});

describe('the agents list in a narrow window', () => {
  it('folds to a rail that still says when an agent needs you, and opens again', async () => {
    const width = window.innerWidth;
    Object.defineProperty(window, 'innerWidth', { configurable: true, value: 820 });
    try {
      const backend = new FakeBackend();
      const p = backend.seedProfile({ name: 'asker' });
      const session = backend.seedSession(p.id, { state: 'running', pid: 3 });
      const asked = backend.raiseSignal(session.id, signalScan(clarification()));
      backend.setAttention(p.id, waitsOn(asked, question('Analyze OAuth2, JWT, or both?', 2)));
      render(App, { props: { backend, terminals: fakeTerminals().factory } });
      const show = await screen.findByTestId('show-sidebar');
      expect(screen.queryByTestId('sidebar')).toBeNull();
      expect((await within(show).findByTestId('rail-needs-you')).textContent).toBe('1');
      await fireEvent.click(show);
      expect(await screen.findByTestId('sidebar')).toBeTruthy();
      await fireEvent.click(screen.getByTestId('hide-sidebar'));
      expect(screen.queryByTestId('sidebar')).toBeNull();
      expect(screen.getByTestId('show-sidebar')).toBeTruthy();
    } finally {
      Object.defineProperty(window, 'innerWidth', { configurable: true, value: width });
    }
  });
});
