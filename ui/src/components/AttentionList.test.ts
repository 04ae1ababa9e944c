import { fireEvent, screen, within } from '@testing-library/svelte';
import { tick } from 'svelte';
import { describe, expect, it, vi } from 'vitest';
import { FakeBackend } from '../lib/fakeBackend';
import { signalScan } from '../test/records';
import { callsOf, renderApp } from '../test/render';
import { clarification, completion, malformed, stopWork } from '../test/signals';
import { failed as failedAttention, idle, question, quiet, stopped, waitsOn } from '../test/attention';

/** An agent `claude` with a running session, and a second agent `codex` with one too. */
function twoAgents() {
  const backend = new FakeBackend({ now: () => 1_000 });
  const claude = backend.seedProfile({ name: 'claude' });
  const codex = backend.seedProfile({ name: 'codex' });
  const codexSession = backend.seedSession(codex.id, { state: 'running', pid: 2 }, 100);
  const claudeSession = backend.seedSession(claude.id, { state: 'running', pid: 1 }, 200);
  return { backend, claude, codex, claudeSession, codexSession };
}

const profileEntry = (name: string) => {
  const entry = screen.getAllByTestId('profile-entry').find((e) => e.getAttribute('data-profile-name') === name);
  if (!entry) throw new Error(`no profile entry ${name}`);
  return entry;
};

describe('needs you', () => {
  it('is absent while no agent has raised anything', async () => {
    const { backend } = twoAgents();
    await renderApp(backend);
    expect(callsOf(backend, 'list_signals')).toEqual([{}]);
    expect(screen.queryByTestId('attention-list')).toBeNull();
    expect(screen.queryByTestId('profile-attention')).toBeNull();
    expect(screen.queryByTestId('signal-banner')).toBeNull();
  });

  it("lists what the engine says asks the user, counted as the tray counts: needing you, maybe stuck, failed", async () => {
    const { backend, claude, claudeSession, codex, codexSession } = twoAgents();
    // claude: a question; codex: a task gone quiet; a third agent whose task failed.
    const asked = backend.raiseSignal(claudeSession.id, signalScan(clarification(['Which database?'])), { created_at: 10 });
    const stuck = backend.seedTask({ profile_id: codex.id, instruction: 'Port the parser', state: 'running', session_id: codexSession.id, started_at: 5, typed_at: 5, quiet_since: 50 });
    const broke = backend.seedProfile({ name: 'broke' });
    const failed = backend.seedTask({ profile_id: broke.id, instruction: 'Write the docs', state: 'failed', ended_at: 900, reason: 'the agent exited' });
    backend.setAttention(claude.id, waitsOn(asked, question('Which database?')));
    backend.setAttention(codex.id, quiet(stuck));
    backend.setAttention(broke.id, failedAttention(failed));
    await renderApp(backend);

    // Before: the tray said "1 needs attention · 1 stalled" while this said "Nothing waits for you".
    const list = screen.getByTestId('attention-list');
    expect(within(list).getByTestId('attention-count').getAttribute('data-count')).toBe('1');
    expect(within(list).getByTestId('attention-stalled-count').textContent).toBe('1 may be stuck');
    expect(within(list).getByTestId('attention-failed-count').textContent).toBe('1 failed');
    expect(within(list).getAllByTestId('attention-entry')).toHaveLength(1);
    const agents = within(list).getAllByTestId('attention-agent');
    expect(agents.map((a) => [a.getAttribute('data-state'), a.textContent?.trim()])).toEqual([
      ['stalled', expect.stringContaining('codex: No output for a while on “Port the parser”: it may be stuck')],
      ['failed', expect.stringContaining('broke: A task failed since you last looked: “Write the docs”: the agent exited')],
    ]);
    // Each agent's entry says the same.
    expect(within(profileEntry('claude')).getByTestId('profile-attention').getAttribute('data-count')).toBe('1');
    // Its task at work may be stuck: the queue says so where it said "working" (once, not twice).
    expect(within(profileEntry('codex')).getByTestId('profile-queue').textContent).toBe('may be stuck');
    expect(within(profileEntry('codex')).queryByTestId('profile-stalled')).toBeNull();
    expect(within(profileEntry('broke')).getByTestId('profile-failed').textContent).toBe('task failed');

    // One click opens the failed task; in the focused window that is the user looking: seen.
    await fireEvent.focus(window);
    await fireEvent.click(agents[1]);
    expect((await screen.findByTestId('task-detail')).getAttribute('data-task-id')).toBe(failed.id);
    await vi.waitFor(() => expect(backend.viewing).toEqual({ profile_id: broke.id, task_id: failed.id, focused: true }));
    // The engine marks the failure seen and says the agent is stopped again: it leaves the list.
    backend.setAttention(broke.id, stopped());
    await vi.waitFor(() => expect(screen.queryByTestId('attention-failed-count')).toBeNull());
    expect(within(profileEntry('broke')).queryByTestId('profile-failed')).toBeNull();
    // The settings cover the agent: none is on screen, so the shell notifies about every one.
    await fireEvent.click(screen.getByTestId('open-settings'));
    await vi.waitFor(() => expect(backend.viewing.profile_id).toBeNull());
    // The window loses the focus: the user is away.
    await fireEvent.blur(window);
    await vi.waitFor(() => expect(backend.viewing.focused).toBe(false));
  });

  it('lists pending signals of all agents, oldest first, with a count', async () => {
    const { backend, claude, claudeSession, codex, codexSession } = twoAgents();
    const first = backend.raiseSignal(codexSession.id, signalScan(stopWork()), { created_at: 10 });
    const second = backend.raiseSignal(claudeSession.id, signalScan(clarification()), { created_at: 20 });
    backend.setAttention(codex.id, waitsOn(first, { kind: 'blocker', blocker: 'external_dependency' }));
    backend.setAttention(claude.id, waitsOn(second, question('Analyze OAuth2, JWT, or both?', 2)));
    await renderApp(backend);

    const list = screen.getByTestId('attention-list');
    expect(within(list).getByTestId('attention-count').textContent).toBe('2');
    const entries = within(list).getAllByTestId('attention-entry');
    expect(entries.map((e) => [e.getAttribute('data-signal-id'), e.getAttribute('data-kind'), e.getAttribute('data-session-id')])).toEqual([
      [first.id, 'stop_work', codexSession.id],
      [second.id, 'clarification', claudeSession.id],
    ]);
    expect(entries[0].textContent).toContain('codex is blocked: external dependency');
    expect(entries[1].textContent).toContain('claude asks 2 questions');

    // Each agent with a pending signal is marked in the sidebar, and so is the session.
    expect(within(profileEntry('claude')).getByTestId('profile-attention').getAttribute('data-count')).toBe('1');
    expect(within(profileEntry('codex')).getByTestId('profile-attention')).toBeTruthy();
    const sessionEntry = within(profileEntry('claude')).getByTestId('session-entry');
    expect(sessionEntry.getAttribute('data-attention')).toBe('true');
  });

  it('puts no "0 need you" beside a failure, which is all there is to see', async () => {
    const { backend } = twoAgents();
    const broke = backend.seedProfile({ name: 'broke' });
    const failed = backend.seedTask({ profile_id: broke.id, instruction: 'Write the docs', state: 'failed', ended_at: 900, reason: 'the agent exited' });
    backend.setAttention(broke.id, failedAttention(failed));
    await renderApp(backend);
    const list = screen.getByTestId('attention-list');
    expect(within(list).getByTestId('attention-failed-count').textContent).toBe('1 failed');
    expect(within(list).queryByTestId('attention-count')).toBeNull();
  });

  it('follows signals as they are raised and settled', async () => {
    const { backend, claude, claudeSession } = twoAgents();
    await renderApp(backend);

    const raised = backend.raiseSignal(claudeSession.id, signalScan(completion()));
    backend.setAttention(claude.id, waitsOn(raised, { kind: 'report' }));
    await tick();
    expect(screen.getByTestId('attention-count').textContent).toBe('1');
    expect(within(profileEntry('claude')).getByTestId('profile-attention')).toBeTruthy();
    expect(within(profileEntry('codex')).queryByTestId('profile-attention')).toBeNull();

    // Settled elsewhere (e.g. from the CLI): it leaves the list, and is kept under "Recently handled".
    await backend.respondToSignal(raised.id, { action: 'acknowledge' });
    backend.setAttention(claude.id, idle(claudeSession.started_at));
    await tick();
    expect(screen.getByTestId('attention-count').textContent).toBe('0');
    expect(screen.queryAllByTestId('attention-entry')).toHaveLength(0);
    expect(screen.getByTestId('attention-list').textContent).toContain('Nothing waits for you.');
    expect(screen.queryByTestId('profile-attention')).toBeNull();
    const history = screen.getByTestId('signal-history-entry');
    expect(history.getAttribute('data-state')).toBe('handled');
    expect(history.textContent).toContain('acknowledged');

    await fireEvent.click(history);
    const dialog = screen.getByTestId('signal-dialog');
    expect(dialog.getAttribute('data-state')).toBe('handled');
    expect(within(dialog).getByTestId('signal-response').textContent).toContain('Acknowledged');
    expect(within(dialog).queryByTestId('signal-acknowledge')).toBeNull();
  });

  it('says when an agent floods, until the user has answered enough to see new signals', async () => {
    const { backend, claude, claudeSession } = twoAgents();
    await renderApp(backend);
    const first = backend.raiseSignal(claudeSession.id, signalScan(clarification()));
    backend.raiseSignal(claudeSession.id, signalScan(stopWork()));
    backend.emit({ type: 'signals_flooding', session_id: claudeSession.id, profile_id: claude.id, limit: 2, oldest_pending: first.id });
    await tick();
    const flood = screen.getByTestId('signal-flood');
    expect(flood.textContent).toContain('claude raised more than 2 signals at once');
    expect(flood.textContent).toContain('set aside in its event log');

    await backend.respondToSignal(first.id, { action: 'dismiss' });
    await tick();
    expect(screen.queryByTestId('signal-flood')).toBeNull();
  });

  it('opens a signal from its entry', async () => {
    const { backend, codexSession } = twoAgents();
    const raised = backend.raiseSignal(codexSession.id, malformed('delegate'));
    await renderApp(backend);

    expect(screen.queryByTestId('signal-dialog')).toBeNull();
    await fireEvent.click(screen.getByTestId('attention-entry'));
    const dialog = screen.getByTestId('signal-dialog');
    expect(dialog.getAttribute('data-signal-id')).toBe(raised.id);
    expect(dialog.getAttribute('data-kind')).toBe('delegate');
    expect(dialog.getAttribute('data-state')).toBe('pending');
    expect(dialog.getAttribute('role')).toBe('dialog');
    expect(dialog.getAttribute('aria-modal')).toBe('true');
  });

  it('shows the load failure and keeps the app usable', async () => {
    const { backend } = twoAgents();
    backend.failNext('list_signals', { code: 'storage', message: 'database locked', field: null });
    await renderApp(backend);
    expect(screen.getByTestId('signal-load-error').textContent).toContain('database locked');
    expect(screen.getAllByTestId('profile-entry')).toHaveLength(2);
    expect(screen.getByTestId('session-view')).toBeTruthy();
  });
});

describe('session banner', () => {
  it('shows the pending signals of the session on screen, and opens them', async () => {
    const { backend, claudeSession, codexSession } = twoAgents();
    const mine = backend.raiseSignal(claudeSession.id, signalScan(stopWork({ blocker_type: 'permission' })));
    backend.raiseSignal(codexSession.id, signalScan(clarification()));
    await renderApp(backend);

    // The newest running session (claude's) is on screen.
    expect(screen.getByTestId('session-view').getAttribute('data-session-id')).toBe(claudeSession.id);
    const banners = screen.getAllByTestId('signal-banner');
    expect(banners.map((b) => b.getAttribute('data-signal-id'))).toEqual([mine.id]);
    expect(banners[0].textContent).toContain('claude is blocked: permission');

    await fireEvent.click(banners[0]);
    expect(screen.getByTestId('signal-dialog').getAttribute('data-signal-id')).toBe(mine.id);
  });

  it('appears when the agent raises a signal and goes once it is answered', async () => {
    const { backend, claudeSession } = twoAgents();
    await renderApp(backend);
    expect(screen.queryByTestId('signal-banner')).toBeNull();

    backend.raiseSignal(claudeSession.id, signalScan(clarification(['Which one?'])));
    await tick();
    await fireEvent.click(screen.getByTestId('signal-banner'));
    const dialog = screen.getByTestId('signal-dialog');
    await fireEvent.input(within(dialog).getByTestId('signal-answer'), { target: { value: 'the first' } });
    await fireEvent.click(within(dialog).getByTestId('signal-submit'));
    await tick();

    expect(screen.queryByTestId('signal-banner')).toBeNull();
    expect(screen.getByTestId('signal-dialog').getAttribute('data-state')).toBe('handled');
  });
});
