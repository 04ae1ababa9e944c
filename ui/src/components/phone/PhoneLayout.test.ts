import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import { tick } from 'svelte';
import { afterEach, describe, expect, it } from 'vitest';
import App from '../../App.svelte';
import type { Device, PermissionRequest, SessionId } from '../../lib/bindings';
import { FakeBackend } from '../../lib/fakeBackend';
import { question, waitsOn } from '../../test/attention';
import { fakeTerminals } from '../../test/fakeTerminal';
import { DEMO_TASK, signalScan } from '../../test/records';
import { callsOf, renderApp } from '../../test/render';
import { clarification } from '../../test/signals';

/** jsdom's width unless told: a desktop's. */
const DESKTOP_WIDTH = 1024;
const PHONE_WIDTH = 390;

function setWidth(width: number): void {
  Object.defineProperty(window, 'innerWidth', { configurable: true, writable: true, value: width });
}

afterEach(() => {
  setWidth(DESKTOP_WIDTH);
  delete document.documentElement.dataset.layout;
  history.replaceState(null, '');
});

/** The app as a phone shows it, once its lists are loaded. */
async function renderPhone(backend: FakeBackend) {
  setWidth(PHONE_WIDTH);
  const terminals = fakeTerminals();
  render(App, { props: { backend, terminals: terminals.factory } });
  await screen.findByTestId('phone-layout');
  await waitFor(() => expect(screen.getByTestId('phone-layout').getAttribute('data-loaded')).toBe('true'));
  return { terminals };
}

const readOnlyDevice: Device = { id: 'd1', name: 'Phone', read_only: true, paired_at: 1, last_seen_at: 2, last_from: '127.0.0.1', connected: true };

/** An agent with a running session, a question and a permission request, and another that may be stuck, at known times. */
async function seeded(options: ConstructorParameters<typeof FakeBackend>[0] = {}) {
  let now = 1_000_000;
  const backend = new FakeBackend({ now: () => now, ...options });
  const ana = backend.seedProfile({ name: 'ana', command: 'bash' });
  const bo = backend.seedProfile({ name: 'bo', command: 'bash' });
  const session = await backend.startSession(ana.id, { rows: 24, cols: 80 });
  now += 1_000;
  const asked = backend.raiseSignal(session.id, signalScan(clarification(['Which port?'])));
  backend.setAttention(ana.id, waitsOn(asked, question('Which port?')));
  now += 1_000;
  backend.setAttention(bo.id, { state: 'stalled', stall: { kind: 'quiet', task_id: 'task-x', task: 'Build it' }, since: now });
  now += 1_000;
  const request: PermissionRequest = { id: 7, session_id: session.id, tool_name: 'Bash', tool_input: { command: 'rm -rf build' }, asked_at: now, expires_at: now + 600_000 };
  backend.askPermission(request);
  return { backend, ana, bo, session, asked, request };
}

const entries = () => screen.getAllByTestId('inbox-entry');
const entryKinds = () => entries().map((e) => `${e.getAttribute('data-kind')}:${e.textContent?.trim().split(/\s+/).slice(0, 2).join(' ')}`);

describe('the phone layout', () => {
  it('opens on the inbox: what the engine says asks for the user, newest first', async () => {
    const { backend } = await seeded();
    await renderPhone(backend);
    expect(document.documentElement.dataset.layout).toBe('phone');
    expect(screen.queryByTestId('sidebar')).toBeNull();
    expect(entryKinds()).toEqual(['permission:ana asks', 'agent:bo: may', 'signal:ana asks']);
    expect(screen.getByTestId('phone-inbox-count').textContent).toBe('3');
  });

  it('answers a question in place with its dialog, and the question leaves the inbox', async () => {
    const { backend, asked } = await seeded();
    await renderPhone(backend);
    await fireEvent.click(entries().find((e) => e.getAttribute('data-signal-id') === asked.id)!);
    const dialog = screen.getByTestId('signal-dialog');
    await fireEvent.input(within(dialog).getByTestId('signal-answer'), { target: { value: '8080' } });
    await fireEvent.click(within(dialog).getByTestId('signal-submit'));
    await waitFor(() => expect(callsOf(backend, 'respond_to_signal')).toEqual([{ signalId: asked.id, response: { action: 'answer', answers: ['8080'] } }]));
    await fireEvent.click(screen.getByTestId('signal-done'));
    await waitFor(() => expect(entries().some((e) => e.getAttribute('data-signal-id') === asked.id)).toBe(false));
  });

  it('allows a permission request in place, on its sheet, and the request leaves the inbox', async () => {
    const { backend } = await seeded();
    await renderPhone(backend);
    await fireEvent.click(entries()[0]);
    const sheet = screen.getByTestId('permission-request');
    expect(within(sheet).getByTestId('permission-summary').textContent).toBe('Bash: rm -rf build');
    await fireEvent.click(within(sheet).getByTestId('permission-allow'));
    await waitFor(() => expect(callsOf(backend, 'decide_permission')).toEqual([{ requestId: 7, allow: true, message: null }]));
    await waitFor(() => expect(screen.queryByTestId('permission-request')).toBeNull());
    expect(entries().map((e) => e.getAttribute('data-kind'))).toEqual(['agent', 'signal']);
  });

  it('takes a question answered anywhere out of the inbox at once', async () => {
    const { backend, ana, asked } = await seeded();
    await renderPhone(backend);
    // Answered from the desktop: the engine tells every client the signal's new record (its
    // word on the agent's attention may come a moment later: the agent is not listed meanwhile).
    backend.emit({ type: 'signal_changed', signal: { ...asked, state: 'handled', handled_at: 2, response: { action: 'answer', answers: ['80'] } } });
    await waitFor(() => expect(entries().map((e) => e.getAttribute('data-kind'))).toEqual(['permission', 'agent']));
    expect(entries().some((e) => e.getAttribute('data-profile-id') === ana.id)).toBe(false);
  });

  it('names the machine of an agent on another machine', async () => {
    const { backend } = await seeded();
    const far = backend.seedProfile({ name: 'far', command: 'bash', host: 'me@gpu-box' });
    await renderPhone(backend);
    await fireEvent.click(screen.getByTestId('phone-nav-agents'));
    const entry = screen.getAllByTestId('phone-agent-entry').find((e) => e.getAttribute('data-profile-id') === far.id)!;
    expect(within(entry).getByTestId('phone-agent-machine').textContent).toBe('on me@gpu-box');
    expect(screen.getAllByTestId('phone-agent-machine')).toHaveLength(1);
  });

  it('lists the agents with their state and task, and an agent’s tasks with New task', async () => {
    const { backend, ana } = await seeded();
    await backend.submitTask({ ...DEMO_TASK, profile_id: ana.id, instruction: 'Write the docs' });
    await renderPhone(backend);
    await fireEvent.click(screen.getByTestId('phone-nav-agents'));
    const listed = screen.getAllByTestId('phone-agent-entry');
    // The most pressing first: ana needs the user, bo may be stuck.
    expect(listed.map((e) => e.getAttribute('data-profile-id'))).toEqual([ana.id, expect.any(String)]);
    await fireEvent.click(listed[0]);
    expect(screen.getByTestId('phone-agent').getAttribute('data-profile-id')).toBe(ana.id);
    expect(screen.getAllByTestId('phone-task').map((t) => t.textContent)).toEqual([expect.stringContaining('Write the docs')]);
    await fireEvent.click(screen.getByTestId('phone-new-task'));
    const sheet = screen.getByTestId('phone-task-sheet');
    await fireEvent.input(within(sheet).getByTestId('task-instruction'), { target: { value: 'Then the tests' } });
    await fireEvent.submit(within(sheet).getByTestId('task-form'));
    await waitFor(() => expect(callsOf(backend, 'submit_task').at(-1)).toMatchObject({ spec: { profile_id: ana.id, instruction: 'Then the tests' } }));
    // Back, to the list.
    await fireEvent.click(screen.getByTestId('phone-task-sheet-close'));
    await fireEvent.click(screen.getByTestId('phone-back'));
    await waitFor(() => expect(screen.getByTestId('phone-agents')).toBeTruthy());
  });

  it('opens an agent the engine says may be stuck from the inbox, and the browser’s Back comes back to the inbox', async () => {
    const { backend, bo } = await seeded();
    await renderPhone(backend);
    await fireEvent.click(entries().find((e) => e.getAttribute('data-profile-id') === bo.id)!);
    expect(screen.getByTestId('phone-agent').getAttribute('data-profile-id')).toBe(bo.id);
    expect(screen.getByTestId('phone-agent-attention').getAttribute('data-state')).toBe('stalled');
    history.back();
    await waitFor(() => expect(screen.getByTestId('phone-layout').getAttribute('data-view')).toBe('inbox'));
    // What the page left in the history is plain data: a browser keeps a structured clone of it
    // (a reactive proxy there made Chromium refuse to open the agent at all).
    expect(() => structuredClone(history.state)).not.toThrow();
  });

  it('shows the terminal read-only until Type; the key bar sends the keys a phone lacks as the terminal would', async () => {
    const { backend, ana, session } = await seeded();
    const { terminals } = await renderPhone(backend);
    await fireEvent.click(screen.getByTestId('phone-nav-agents'));
    await fireEvent.click(screen.getAllByTestId('phone-agent-entry').find((e) => e.getAttribute('data-profile-id') === ana.id)!);
    await fireEvent.click(screen.getByTestId('phone-tab-terminal'));
    const surface = terminals.last();
    expect(screen.getByTestId('terminal').getAttribute('data-readonly')).toBe('true');
    expect(surface.readOnly).toBe(true);
    expect(surface.focused).toBe(false);
    surface.type('ls\r');
    expect(screen.queryByTestId('key-bar')).toBeNull();

    await fireEvent.click(screen.getByTestId('phone-type'));
    expect(surface.readOnly).toBe(false);
    const writes = () => callsOf(backend, 'write_input').map((c) => c.data);
    const press = async (key: string) => {
      await fireEvent.click(screen.getByTestId(`key-${key}`));
      // One write at a time (the input queue): the next key goes once this one is through.
      await waitFor(() => expect(writes().join('')).toContain(KEY_SENT[key]));
    };
    const KEY_SENT: Record<string, string> = { escape: '\x1b', tab: '\t', 'ctrl-c': '\x03', up: '\x1b[A', down: '\x1b[B', left: '\x1b[D', right: '\x1b[C', enter: '\r' };
    for (const key of Object.keys(KEY_SENT)) await press(key);
    expect(writes().join('')).toBe('\x1b\t\x03\x1b[A\x1b[B\x1b[D\x1b[C\r');
    expect(callsOf(backend, 'write_input').every((c) => (c.sessionId as SessionId) === session.id)).toBe(true);
    // A full-screen program asked for application cursor keys: the arrows follow.
    surface.applicationCursor = true;
    await fireEvent.click(screen.getByTestId('key-up'));
    await waitFor(() => expect(writes().join('').endsWith('\x1bOA')).toBe(true));
  });
});

describe('the wider layout on a touch screen', () => {
  /** The browser says its pointer is coarse (a finger), as a tablet's does. */
  function touchScreen(): () => void {
    const before = window.matchMedia;
    window.matchMedia = ((query: string) => ({
      matches: query === '(pointer: coarse)',
      media: query,
      addEventListener: () => {},
      removeEventListener: () => {},
    })) as unknown as typeof window.matchMedia;
    return () => {
      window.matchMedia = before;
    };
  }

  it('in a browser, has the key bar under the running agent’s terminal, sending its keys', async () => {
    const restore = touchScreen();
    try {
      const { backend, session } = await seeded({ kind: 'browser' });
      await renderApp(backend);
      await fireEvent.click(screen.getByTestId('key-escape'));
      await waitFor(() => expect(callsOf(backend, 'write_input')).toEqual([{ sessionId: session.id, data: '\x1b' }]));
    } finally {
      restore();
    }
  });

  it('in the desktop window, has none (a keyboard has those keys)', async () => {
    const restore = touchScreen();
    try {
      const { backend } = await seeded();
      await renderApp(backend);
      expect(screen.getByTestId('terminal')).toBeTruthy();
      expect(screen.queryByTestId('key-bar')).toBeNull();
    } finally {
      restore();
    }
  });
});

describe('a page paired to look only', () => {
  it('on a phone, says it looks only and offers no answer, allow, new task or typing', async () => {
    const { backend, ana, asked } = await seeded();
    backend.answerNext('this_device', readOnlyDevice);
    const { terminals } = await renderPhone(backend);
    expect((await screen.findByTestId('looks-only')).textContent).toBe('Looking only');

    await fireEvent.click(entries().find((e) => e.getAttribute('data-signal-id') === asked.id)!);
    const dialog = screen.getByTestId('signal-dialog');
    expect(within(dialog).getAllByTestId('signal-question').map((q) => q.textContent)).toEqual(['Which port?']);
    for (const control of ['signal-answer', 'signal-submit', 'signal-dismiss']) expect(within(dialog).queryByTestId(control)).toBeNull();
    expect(within(dialog).getByTestId('signal-looking-only')).toBeTruthy();
    await fireEvent.click(within(dialog).getByTestId('signal-close'));

    await fireEvent.click(entries()[0]);
    const sheet = screen.getByTestId('permission-request');
    for (const control of ['permission-allow', 'permission-deny', 'permission-message']) expect(within(sheet).queryByTestId(control)).toBeNull();
    expect(within(sheet).getByTestId('permission-looking-only')).toBeTruthy();
    await fireEvent.click(within(sheet).getByTestId('permission-close'));

    await fireEvent.click(screen.getByTestId('phone-nav-agents'));
    await fireEvent.click(screen.getAllByTestId('phone-agent-entry').find((e) => e.getAttribute('data-profile-id') === ana.id)!);
    expect(screen.queryByTestId('phone-new-task')).toBeNull();
    await fireEvent.click(screen.getByTestId('phone-tab-terminal'));
    expect(screen.queryByTestId('phone-type')).toBeNull();
    expect(screen.queryByTestId('key-bar')).toBeNull();
    terminals.last().type('rm -rf /\r');
    await tick();
    expect(callsOf(backend, 'write_input')).toEqual([]);
    expect(callsOf(backend, 'respond_to_signal')).toEqual([]);
    expect(callsOf(backend, 'decide_permission')).toEqual([]);
  });

  it('in the wider layout, says it looks only and offers no answer, allow, typing, stop, new task or new agent', async () => {
    const { backend, session, asked, ana, bo } = await seeded();
    await backend.submitTask({ ...DEMO_TASK, profile_id: ana.id, instruction: 'Write the docs' });
    backend.answerNext('this_device', readOnlyDevice);
    const { terminals } = await renderApp(backend);
    expect((await screen.findByTestId('looks-only')).textContent).toBe('Looking only');
    expect(screen.queryByTestId('new-agent')).toBeNull();
    // The permission prompt shows the request and no answer.
    const prompt = screen.getByTestId('permission-request');
    expect(within(prompt).queryByTestId('permission-allow')).toBeNull();
    expect(within(prompt).queryByTestId('permission-deny')).toBeNull();

    // The agent's session: no stop or restart; its terminal takes no typing; no new task.
    expect(document.querySelector(`[data-testid="terminal"][data-session-id="${session.id}"]`)?.getAttribute('data-readonly')).toBe('true');
    for (const control of ['stop-session', 'restart-session', 'new-task', 'queue-pause']) expect(screen.queryByTestId(control)).toBeNull();
    terminals.last().type('y\r');
    // Nor does it size the agent's terminal to its own (the engine refuses that too).
    expect(callsOf(backend, 'resize')).toEqual([]);

    // The agents: a running one's session opens; a stopped one is not started from here.
    const startOf = (id: string) => screen.getAllByTestId('profile-entry').find((e) => e.getAttribute('data-profile-id') === id)?.querySelector('[data-testid="start-profile"]');
    expect(startOf(ana.id)?.getAttribute('data-opens')).toBe('session');
    expect(startOf(bo.id)).toBeNull();
    // A task's detail: nothing cancels, requeues, runs again, renames or edits it.
    await fireEvent.click(screen.getAllByTestId('task-open')[0]);
    const detail = screen.getByTestId('task-detail');
    for (const control of ['task-cancel', 'task-requeue', 'task-rerun', 'task-rename', 'task-edit-instruction']) expect(within(detail).queryByTestId(control)).toBeNull();
    await fireEvent.click(within(detail).getByTestId('task-detail-close'));

    await fireEvent.click(screen.getAllByTestId('attention-entry').find((e) => e.getAttribute('data-signal-id') === asked.id)!);
    const dialog = screen.getByTestId('signal-dialog');
    expect(within(dialog).queryByTestId('signal-submit')).toBeNull();
    expect(within(dialog).queryByTestId('signal-answer')).toBeNull();
    await tick();
    expect(callsOf(backend, 'write_input')).toEqual([]);
  });

  it('in the wider layout, saves no setting', async () => {
    const { backend } = await seeded();
    backend.answerNext('this_device', readOnlyDevice);
    await renderApp(backend);
    await screen.findByTestId('looks-only');
    await fireEvent.click(screen.getByTestId('open-settings'));
    const settings = screen.getByTestId('settings-view');
    expect(within(settings).queryByTestId('settings-save')).toBeNull();
    await fireEvent.submit(settings);
    await tick();
    expect(callsOf(backend, 'set_settings')).toEqual([]);
  });

  it('a full device is marked nothing and offers it all', async () => {
    const { backend, ana } = await seeded();
    await backend.submitTask({ ...DEMO_TASK, profile_id: ana.id, instruction: 'Write the docs' });
    backend.answerNext('this_device', { ...readOnlyDevice, read_only: false });
    await renderApp(backend);
    await waitFor(() => expect(callsOf(backend, 'this_device')).toHaveLength(1));
    await tick();
    expect(screen.queryByTestId('looks-only')).toBeNull();
    expect(screen.getByTestId('new-agent')).toBeTruthy();
    expect(within(screen.getByTestId('permission-request')).getByTestId('permission-allow')).toBeTruthy();
    for (const control of ['stop-session', 'new-task']) expect(screen.getByTestId(control)).toBeTruthy();
    await fireEvent.click(screen.getAllByTestId('task-open')[0]);
    expect(within(screen.getByTestId('task-detail')).getByTestId('task-cancel')).toBeTruthy();
  });
});

describe('an unpaired browser', () => {
  it('shows nothing it showed once its pairing is revoked, only how to pair again', async () => {
    const { backend } = await seeded({ kind: 'browser' });
    await renderPhone(backend);
    await screen.findByTestId('phone-inbox');
    backend.setEngineLink({ state: 'refused', reason: 'This browser was unpaired from Switchboard.', host: null, unpaired: true });
    await waitFor(() => expect(screen.getByTestId('unpaired-page')).toBeTruthy());
    expect(screen.queryByTestId('phone-inbox')).toBeNull();
    expect(screen.queryAllByTestId('inbox-entry')).toEqual([]);
    expect(screen.getByTestId('unpaired-page').textContent).toContain('no longer paired');
    expect(screen.getByTestId('unpaired-page').textContent).not.toContain('Which port?');
  });
});

describe('the engine’s news in a browser page', () => {
  it('shows each notice the engine tells in its place, keeps one that waits until the engine closes it, and opens what it is about', async () => {
    const { backend, ana } = await seeded({ kind: 'browser' });
    await renderApp(backend);
    const notices = () => screen.queryAllByTestId('page-notice').map((n) => [n.getAttribute('data-place'), n.getAttribute('data-tone')]);
    expect(notices()).toEqual([]);

    const place = `agent:${ana.id}`;
    backend.tellPage({ type: 'show', place, tone: 'asks', title: 'ana asks a question', body: 'Which port?', opens: null, stays: true });
    await waitFor(() => expect(notices()).toEqual([[place, 'asks']]));
    expect(screen.getByTestId('page-notice').textContent).toContain('Which port?');
    // A newer notice in the same place replaces it; another place stacks.
    backend.tellPage({ type: 'show', place, tone: 'stalled', title: 'ana may be stuck', body: '', opens: null, stays: true });
    const taskId = (await backend.submitTask({ ...DEMO_TASK, profile_id: ana.id, instruction: 'Ship it' })).task.id;
    backend.tellPage({ type: 'show', place: 'finished', tone: 'done', title: 'Task completed', body: 'ana: “Ship it”', opens: { kind: 'task', id: taskId }, stays: false });
    await waitFor(() => expect(notices()).toEqual([[place, 'stalled'], ['finished', 'done']]));
    expect(screen.getAllByTestId('page-notice')[0].textContent).toContain('ana may be stuck');

    // Handled, here or anywhere: the engine closes it.
    backend.tellPage({ type: 'close', place });
    await waitFor(() => expect(notices()).toEqual([['finished', 'done']]));
    // Tapped: it goes, and what it is about opens.
    await fireEvent.click(screen.getByTestId('page-notice-open'));
    await waitFor(() => expect(notices()).toEqual([]));
  });

  it('the desktop window tells none (the desktop notifies)', async () => {
    const { backend, session } = await seeded();
    await renderApp(backend);
    backend.raiseSignal(session.id, signalScan(clarification(['And the host?'])));
    backend.tellPage({ type: 'show', place: 'app', tone: 'failed', title: 'Work is not being saved', body: '', opens: null, stays: true });
    await tick();
    expect(screen.queryByTestId('page-notices')).toBeNull();
  });
});
