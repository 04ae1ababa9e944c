import { fireEvent, screen } from '@testing-library/svelte';
import { tick } from 'svelte';
import { describe, expect, it, vi } from 'vitest';
import { FakeBackend } from '../lib/fakeBackend';
import { HIGH_WATERMARK, LOW_WATERMARK } from '../lib/flow';
import { callsOf, renderApp } from '../test/render';
import { RESIZE_DEBOUNCE_MS } from './Terminal.svelte';

function runningAgent() {
  const backend = new FakeBackend();
  const profile = backend.seedProfile({ name: 'agent' });
  const session = backend.seedSession(profile.id, { state: 'running', pid: 77 });
  return { backend, profile, session };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, RESIZE_DEBOUNCE_MS + 30));

describe('terminal', () => {
  it('opens on the running session and shows its replay and live output', async () => {
    const { backend, session } = runningAgent();
    backend.output(session.id, 'before attach\r\n');
    const { terminals } = await renderApp(backend);

    expect(screen.getByTestId('terminal').getAttribute('data-session-id')).toBe(session.id);
    const surface = terminals.last();
    expect(surface.text()).toBe('before attach\r\n');
    backend.output(session.id, 'live\r\n');
    expect(surface.text()).toBe('before attach\r\nlive\r\n');
    expect(surface.focused).toBe(true);
  });

  it('sends typed text and binary input to the session', async () => {
    const { backend, session } = runningAgent();
    const { terminals } = await renderApp(backend);

    terminals.last().type('ls\r');
    terminals.last().binary('\x1b[M !!');
    // In order: the second write goes out once the first has completed.
    await vi.waitFor(() =>
      expect(callsOf(backend, 'write_input')).toEqual([
        { sessionId: session.id, data: 'ls\r' },
        { sessionId: session.id, data: '\x1b[M !!' },
      ]),
    );
    // The fake agent echoed the line back into the terminal.
    expect(terminals.last().text()).toContain('echo: ls');
  });

  it('pauses output once above the high watermark and resumes once below the low one', async () => {
    const { backend, session } = runningAgent();
    const { terminals } = await renderApp(backend);
    const surface = terminals.last();
    surface.holdWrites = true;

    const chunk = new Uint8Array(64 * 1024);
    const chunks = HIGH_WATERMARK / chunk.length + 4; // 768 KiB, never parsed yet
    for (let i = 0; i < chunks; i++) backend.output(session.id, chunk);
    await tick();
    expect(callsOf(backend, 'set_output_paused')).toEqual([{ sessionId: session.id, paused: true }]);
    expect(backend.isPaused(session.id)).toBe(true);

    // xterm parses all but the low watermark's worth: still paused.
    const keep = LOW_WATERMARK / chunk.length;
    const parsed = surface.pendingWrites.splice(0, surface.pendingWrites.length - keep);
    parsed.forEach((done) => done());
    expect(callsOf(backend, 'set_output_paused')).toHaveLength(1);

    surface.finishWrites();
    expect(callsOf(backend, 'set_output_paused')).toEqual([
      { sessionId: session.id, paused: true },
      { sessionId: session.id, paused: false },
    ]);
    expect(backend.isPaused(session.id)).toBe(false);
  });

  it('resumes a paused session when switching away from it', async () => {
    const { backend, profile, session } = runningAgent();
    const other = backend.seedSession(profile.id, { state: 'exited', exit_code: 0, signal: null, ended_at: 1 }, 0);
    const { terminals } = await renderApp(backend);
    terminals.last().holdWrites = true;
    backend.output(session.id, new Uint8Array(HIGH_WATERMARK + 1));
    expect(backend.isPaused(session.id)).toBe(true);

    const entry = screen.getAllByTestId('session-entry').find((e) => e.getAttribute('data-session-id') === other.id);
    await fireEvent.click(entry as HTMLElement);

    expect(backend.isPaused(session.id)).toBe(false);
  });

  it('detaches when another session is selected, and attaches that one', async () => {
    const { backend, profile, session } = runningAgent();
    const second = backend.seedSession(profile.id, { state: 'running', pid: 78 }, 0);
    const { terminals } = await renderApp(backend);
    expect(backend.subscriberCount(session.id)).toBe(1);

    const entry = screen.getAllByTestId('session-entry').find((e) => e.getAttribute('data-session-id') === second.id);
    await fireEvent.click(entry as HTMLElement);
    await tick();

    expect(backend.subscriberCount(session.id)).toBe(0);
    expect(callsOf(backend, 'detach_terminal')).toEqual([{ sessionId: session.id, subscription: 1 }]);
    expect(terminals.surfaces).toHaveLength(2);
    expect(terminals.surfaces[0].disposed).toBe(true);
    expect(screen.getByTestId('terminal').getAttribute('data-session-id')).toBe(second.id);
    expect(backend.subscriberCount(second.id)).toBe(1);
  });

  it('sends a resize only when the fitted size changes, debounced', async () => {
    const { backend, session } = runningAgent();
    const { terminals } = await renderApp(backend);
    const surface = terminals.last();
    // The first fit (30x100) differs from the size the session started with (24x80).
    expect(callsOf(backend, 'resize')).toEqual([{ sessionId: session.id, size: { rows: 30, cols: 100 } }]);

    window.dispatchEvent(new Event('resize'));
    await settle();
    expect(callsOf(backend, 'resize')).toHaveLength(1);

    surface.size = { rows: 40, cols: 120 };
    for (let i = 0; i < 5; i++) window.dispatchEvent(new Event('resize'));
    expect(callsOf(backend, 'resize')).toHaveLength(1);
    await settle();
    expect(callsOf(backend, 'resize')).toEqual([
      { sessionId: session.id, size: { rows: 30, cols: 100 } },
      { sessionId: session.id, size: { rows: 40, cols: 120 } },
    ]);
  });

  it('shows an ended session read-only, with a notice, and sends no input or resize', async () => {
    const backend = new FakeBackend();
    const profile = backend.seedProfile({ name: 'agent' });
    const session = backend.seedSession(profile.id, { state: 'exited', exit_code: 1, signal: null, ended_at: 5 });
    const { terminals } = await renderApp(backend);

    const surface = terminals.last();
    expect(surface.readOnly).toBe(true);
    expect(surface.text()).toContain('(output of an earlier run)');
    expect(screen.getByTestId('session-ended-notice').textContent).toContain('The agent exited with code 1.');
    expect(screen.queryByTestId('stop-session')).toBeNull();
    expect(screen.getByTestId('start-new-session')).toBeTruthy();

    surface.type('hello');
    surface.size = { rows: 50, cols: 150 };
    window.dispatchEvent(new Event('resize'));
    await settle();
    expect(callsOf(backend, 'write_input')).toEqual([]);
    expect(callsOf(backend, 'resize')).toEqual([]);
    expect(callsOf(backend, 'set_output_paused')).toEqual([]);
    expect(callsOf(backend, 'attach_terminal')).toEqual([{ sessionId: session.id }]);
  });

  it('turns read-only when the session ends while shown', async () => {
    const { backend, session } = runningAgent();
    const { terminals } = await renderApp(backend);
    expect(terminals.last().readOnly).toBe(false);

    backend.exit(session.id, 0);
    await tick();

    expect(terminals.last().readOnly).toBe(true);
    expect(screen.getByTestId('session-state').getAttribute('data-state')).toBe('exited');
    expect(screen.getByTestId('session-ended-notice')).toBeTruthy();
  });

  it('shows an attach failure over the terminal', async () => {
    const { backend } = runningAgent();
    backend.failNext('attach_terminal', { code: 'engine_stopped', message: 'the engine has stopped', field: null });
    await renderApp(backend);

    expect((await screen.findByTestId('terminal-error')).textContent).toContain('the engine has stopped');
  });

  it('says calmly that an old ended session has no output kept', async () => {
    const backend = new FakeBackend();
    const profile = backend.seedProfile({ name: 'agent' });
    backend.seedSession(profile.id, { state: 'interrupted', ended_at: 5 });
    backend.failNext('attach_terminal', { code: 'session_not_running', message: 'session s is not running', field: null });
    await renderApp(backend);

    expect((await screen.findByTestId('terminal-no-replay')).textContent).toBe('The output of this session is no longer kept.');
    expect(screen.queryByTestId('terminal-error')).toBeNull();
  });
});
