import { fireEvent, screen } from '@testing-library/svelte';
import { describe, expect, it } from 'vitest';
import { FakeBackend } from '../lib/fakeBackend';
import { callsOf, renderApp } from '../test/render';

describe('session header', () => {
  it('opens on the most recent running session', async () => {
    const backend = new FakeBackend();
    const a = backend.seedProfile({ name: 'alpha' });
    const b = backend.seedProfile({ name: 'beta' });
    backend.seedSession(a.id, { state: 'running', pid: 1 }, 100);
    const newest = backend.seedSession(b.id, { state: 'running', pid: 2 }, 200);
    backend.seedSession(a.id, { state: 'exited', exit_code: 0, signal: null, ended_at: 400 }, 300);
    await renderApp(backend);

    expect(screen.getByTestId('session-view').getAttribute('data-session-id')).toBe(newest.id);
    expect(screen.getByTestId('session-profile-name').textContent).toBe('beta');
    expect(screen.getByTestId('session-state').textContent?.trim()).toBe('running');
  });

  it('stop ends the session and shows its final state', async () => {
    const backend = new FakeBackend();
    const p = backend.seedProfile({ name: 'agent' });
    const session = backend.seedSession(p.id, { state: 'running', pid: 5 });
    await renderApp(backend);

    await fireEvent.click(screen.getByTestId('stop-session'));

    expect(callsOf(backend, 'stop_session')).toEqual([{ sessionId: session.id }]);
    expect((await screen.findByTestId('session-ended-notice')).textContent).toContain('Stopped by you');
    expect(screen.getByTestId('session-state').getAttribute('data-state')).toBe('killed');
    expect(screen.queryByTestId('stop-session')).toBeNull();
    // One way to run it again, not two buttons doing the same thing.
    expect(screen.queryByTestId('restart-session')).toBeNull();
    expect(screen.getByTestId('start-new-session')).toBeTruthy();
  });

  it('restart selects the new session', async () => {
    const backend = new FakeBackend();
    const p = backend.seedProfile({ name: 'agent' });
    const session = backend.seedSession(p.id, { state: 'running', pid: 5 });
    await renderApp(backend);

    await fireEvent.click(screen.getByTestId('restart-session'));

    const [restart] = callsOf(backend, 'restart_session');
    expect(restart.sessionId).toBe(session.id);
    const view = await screen.findByTestId('session-view');
    expect(view.getAttribute('data-session-id')).not.toBe(session.id);
    expect(screen.getByTestId('session-state').getAttribute('data-state')).toBe('running');
    const states = screen.getAllByTestId('session-entry').map((e) => e.getAttribute('data-state'));
    expect(states).toEqual(['running', 'killed']);
  });

  it('restart with a task running asks what becomes of it, and sends the choice', async () => {
    const backend = new FakeBackend();
    const p = backend.seedProfile({ name: 'agent' });
    const session = backend.seedSession(p.id, { state: 'running', pid: 5 });
    backend.seedTask({ profile_id: p.id, instruction: 'Write the parser', state: 'running', session_id: session.id, started_at: 1, typed_at: 2 });
    await renderApp(backend);

    // Asked first; nothing is restarted until the user chooses, and "Don't restart" sends nothing.
    await fireEvent.click(screen.getByTestId('restart-session'));
    const ask = screen.getByTestId('restart-ask');
    expect(ask.textContent).toContain('“Write the parser” is running');
    await fireEvent.click(screen.getByTestId('restart-keep'));
    expect(screen.queryByTestId('restart-ask')).toBeNull();
    expect(callsOf(backend, 'restart_session')).toEqual([]);

    // "Let it finish": the engine restarts after the task; the view stays and says so.
    await fireEvent.click(screen.getByTestId('restart-session'));
    await fireEvent.click(screen.getByTestId('restart-finish-first'));
    expect(callsOf(backend, 'restart_session')[0].runningTask).toEqual({ choice: 'finish_first' });
    expect((await screen.findByTestId('restart-pending')).textContent).toContain('restarts once “Write the parser” has ended');
    expect(screen.getByTestId('session-view').getAttribute('data-session-id')).toBe(session.id);
  });

  it('restart can put the running task back in the queue for the new session', async () => {
    const backend = new FakeBackend();
    const p = backend.seedProfile({ name: 'agent' });
    const session = backend.seedSession(p.id, { state: 'running', pid: 5 });
    const task = backend.seedTask({ profile_id: p.id, instruction: 'Write the parser', state: 'running', session_id: session.id, started_at: 1, typed_at: 2 });
    await renderApp(backend);

    await fireEvent.click(screen.getByTestId('restart-session'));
    await fireEvent.click(screen.getByTestId('restart-requeue'));

    expect(callsOf(backend, 'restart_session')[0].runningTask).toEqual({ choice: 'requeue' });
    const view = await screen.findByTestId('session-view');
    expect(view.getAttribute('data-session-id')).not.toBe(session.id);
    expect((await backend.getTask(task.id)).session_id).toBe(view.getAttribute('data-session-id'));
  });

  it('restart can cancel the running task, pausing the queue only when asked', async () => {
    const backend = new FakeBackend();
    const p = backend.seedProfile({ name: 'agent' });
    const session = backend.seedSession(p.id, { state: 'running', pid: 5 });
    const task = backend.seedTask({ profile_id: p.id, instruction: 'Write the parser', state: 'running', session_id: session.id, started_at: 1, typed_at: 2 });
    await renderApp(backend);

    await fireEvent.click(screen.getByTestId('restart-session'));
    await fireEvent.click(screen.getByTestId('restart-pause-queue'));
    await fireEvent.click(screen.getByTestId('restart-cancel'));

    expect(callsOf(backend, 'restart_session')[0].runningTask).toEqual({ choice: 'cancel', pause_queue: true });
    expect((await backend.getTask(task.id)).state).toBe('cancelled');
    const banner = await screen.findByTestId('queue-paused-banner');
    expect(banner.textContent).toContain('You restarted agent, cancelling “Write the parser”, and asked its queue to wait.');
  });

  it('shows a failed stop in the header', async () => {
    const backend = new FakeBackend();
    const p = backend.seedProfile({ name: 'agent' });
    backend.seedSession(p.id, { state: 'running', pid: 5 });
    backend.failNext('stop_session', { code: 'internal', message: 'kill failed', field: null });
    await renderApp(backend);

    await fireEvent.click(screen.getByTestId('stop-session'));

    expect((await screen.findByTestId('session-error')).textContent).toBe('kill failed');
    expect(screen.getByTestId('session-state').getAttribute('data-state')).toBe('running');
  });

  it('start new on an ended session starts its profile again', async () => {
    const backend = new FakeBackend();
    const p = backend.seedProfile({ name: 'agent' });
    const ended = backend.seedSession(p.id, { state: 'interrupted', ended_at: 1 });
    await renderApp(backend);

    await fireEvent.click(screen.getByTestId('start-new-session'));

    expect(callsOf(backend, 'start_session')).toEqual([{ profileId: p.id, size: { rows: 30, cols: 100 } }]);
    const view = await screen.findByTestId('session-view');
    expect(view.getAttribute('data-session-id')).not.toBe(ended.id);
  });

  it("resumes an ended Claude Code session's conversation in a new session", async () => {
    const backend = new FakeBackend();
    const p = backend.seedProfile({ name: 'claude', kind: 'claude-code' });
    const ended = backend.seedSession(p.id, { state: 'interrupted', ended_at: 1 });
    await renderApp(backend);
    // A session whose conversation is unknown offers no resume.
    expect(screen.queryByTestId('resume-session')).toBeNull();

    await fireEvent.click(screen.getByTestId('start-new-session'));
    const first = await screen.findByTestId('session-view');
    const firstId = first.getAttribute('data-session-id');
    expect(firstId).not.toBe(ended.id);
    await fireEvent.click(screen.getByTestId('stop-session'));
    await fireEvent.click(await screen.findByTestId('resume-session'));

    expect(callsOf(backend, 'resume_session')).toEqual([{ sessionId: firstId, size: { rows: 30, cols: 100 } }]);
    const resumed = await screen.findByTestId('session-view');
    expect(resumed.getAttribute('data-session-id')).not.toBe(firstId);
  });
});
