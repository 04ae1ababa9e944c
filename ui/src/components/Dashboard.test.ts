import { fireEvent, screen, waitFor, within } from '@testing-library/svelte';
import { describe, expect, it } from 'vitest';
import { FakeBackend } from '../lib/fakeBackend';
import { signalScan } from '../test/records';
import { clarification } from '../test/signals';
import { callsOf, renderApp } from '../test/render';
import { failed as failedAttention, idle, needsYou, quiet as quietAttention, stopped, tellOverview, working } from '../test/attention';
import { overviewAgent } from '../test/overview';

/** Three agents: one waiting for the user's answer at a task, one idle with output, one stopped. */
async function dashboard() {
  const backend = new FakeBackend();
  const now = Date.now();
  const asker = backend.seedProfile({ name: 'asker', cwd: '/home/me/projects/auth' });
  const askerSession = backend.seedSession(asker.id, { state: 'running', pid: 4242 }, now - 600_000);
  const task = backend.seedTask({
    profile_id: asker.id,
    instruction: 'Review the auth module\nand list what is risky',
    state: 'running',
    session_id: askerSession.id,
    started_at: now - 300_000,
    typed_at: now - 300_000,
  });
  backend.seedTask({ profile_id: asker.id, instruction: 'Write the release notes' });
  const question = backend.raiseSignal(askerSession.id, signalScan(clarification(['OAuth2 or JWT?'])), { task_id: task.id });
  const builder = backend.seedProfile({ name: 'builder', cwd: '/home/me/projects/build' });
  const idleSession = backend.seedSession(builder.id, { state: 'running', pid: 5151 }, now - 60_000);
  backend.output(idleSession.id, 'cargo build\r\n   Compiling parser v0.1.0\r\n<b>not markup</b>\r\n');
  const archived = backend.seedProfile({ name: 'archived', cwd: '/home/me/old' });
  const asks = needsYou({ kind: 'question', questions: 1, first: 'OAuth2 or JWT?' }, { since: question.created_at, task_id: task.id, task: 'Review the auth module', signal_id: question.id });
  tellOverview(backend, [
    overviewAgent('asker', { profile_id: asker.id, session_id: askerSession.id, status: 'attention', since: now - 300_000, task_id: task.id, doing: 'Review the auth module', queued: 1, needs_user: 1, attention: asks }),
    overviewAgent('builder', { profile_id: builder.id, session_id: idleSession.id, since: now - 60_000, attention: idle(now - 60_000) }),
    overviewAgent('archived', { profile_id: archived.id, session_id: null, status: null, since: null, running: false, attention: stopped() }),
  ]);
  const rendered = await renderApp(backend);
  await fireEvent.click(screen.getByTestId('open-dashboard'));
  const view = await screen.findByTestId('dashboard');
  await waitFor(() => expect(within(view).getAllByTestId('dashboard-card')).toHaveLength(3));
  return { ...rendered, backend, view, asker, askerSession, task, question, idleSession };
}

const card = (view: HTMLElement, name: string) =>
  within(view).getAllByTestId('dashboard-card').find((c) => c.getAttribute('data-profile-name') === name)!;

describe('the dashboard', () => {
  it('shows every agent with what it does, for how long, its queue and its screen, needs-you first', async () => {
    const { view } = await dashboard();
    expect(within(view).getAllByTestId('dashboard-card').map((c) => c.getAttribute('data-profile-name'))).toEqual([
      'asker',
      'builder',
      'archived',
    ]);
    expect(within(view).getByTestId('dashboard-summary').textContent).toBe('3 agents · 1 needs you · 1 queued');

    const asker = card(view, 'asker');
    expect(asker.getAttribute('data-state')).toBe('needs-you');
    expect(within(asker).getByTestId('dashboard-state').textContent).toBe('needs you');
    expect(within(asker).getByTestId('dashboard-task').textContent).toBe('Review the auth module');
    expect(within(asker).getByTestId('dashboard-queued').textContent).toBe('1 queued');
    expect(within(asker).getByTestId('dashboard-since').textContent).toMatch(/^for 5m/);
    expect(asker.textContent).toContain('auth');
    expect(within(asker).getByTestId('dashboard-attention').textContent).toContain('Asks: OAuth2 or JWT?');

    const builder = card(view, 'builder');
    expect(within(builder).getByTestId('dashboard-state').textContent).toBe('idle');
    expect(within(builder).getByTestId('dashboard-queued').textContent).toBe('Nothing queued');
    // The screen is shown as text: markup in an agent's output stays text.
    await waitFor(() => expect(within(builder).getByTestId('dashboard-preview').textContent).toContain('Compiling parser v0.1.0'));
    expect(within(builder).getByTestId('dashboard-preview').textContent).toContain('<b>not markup</b>');
    expect(builder.querySelector('b')).toBeNull();

    expect(within(card(view, 'archived')).getByTestId('dashboard-state').textContent).toBe('not started');
  });

  it('shows a task that may be stuck and a failure as such, the engine\'s one word for each, with the task one click away', async () => {
    const backend = new FakeBackend();
    const now = Date.now();
    const quiet = backend.seedProfile({ name: 'quiet' });
    const session = backend.seedSession(quiet.id, { state: 'running', pid: 4242 }, now - 600_000);
    const stuck = backend.seedTask({
      profile_id: quiet.id,
      instruction: 'Port the parser',
      state: 'running',
      session_id: session.id,
      started_at: now - 300_000,
      typed_at: now - 300_000,
      quiet_since: now - 120_000,
    });
    const broke = backend.seedProfile({ name: 'broke' });
    const ended = backend.seedSession(broke.id, { state: 'exited', exit_code: 2, signal: null, ended_at: now - 1_000 }, now - 60_000);
    const failed = backend.seedTask({
      profile_id: broke.id,
      instruction: 'Write the docs',
      state: 'failed',
      session_id: ended.id,
      ended_at: now - 1_000,
      reason: 'the agent exited with code 2',
    });
    const quietAgent = overviewAgent('quiet', { profile_id: quiet.id, session_id: session.id, status: 'working', since: now - 300_000, task_id: stuck.id, doing: 'Port the parser', attention: quietAttention(stuck) });
    const brokeAgent = overviewAgent('broke', { profile_id: broke.id, session_id: null, status: null, since: now - 1_000, running: false });
    tellOverview(backend, [quietAgent, { ...brokeAgent, attention: failedAttention(failed) }]);
    await renderApp(backend);
    await fireEvent.click(screen.getByTestId('open-dashboard'));
    const view = await screen.findByTestId('dashboard');
    await waitFor(() => expect(within(view).getAllByTestId('dashboard-card')).toHaveLength(2));
    // Before: the dashboard said "working" for the quiet task, and "stopped" for the agent whose task failed.
    const quietCard = card(view, 'quiet');
    expect(quietCard.getAttribute('data-state')).toBe('stalled');
    expect(within(quietCard).getByTestId('dashboard-state').textContent).toBe('may be stuck');
    expect(within(quietCard).getByTestId('dashboard-attention').textContent).toContain('No output for a while on “Port the parser”');
    const brokeCard = card(view, 'broke');
    expect(brokeCard.getAttribute('data-state')).toBe('failed');
    expect(within(brokeCard).getByTestId('dashboard-state').textContent).toBe('task failed');
    expect(within(brokeCard).getByTestId('dashboard-attention').textContent).toContain('“Write the docs”: the agent exited with code 2');
    // Said once, in its attention line, not again where a task at work would be.
    expect(within(brokeCard).getByTestId('dashboard-ended').textContent).toBe('Not running');
    expect(within(view).getByTestId('dashboard-summary').textContent).toBe('2 agents · 1 may be stuck · 1 failed');
    // Once seen, the agent whose task failed reads as stopped, saying how its run ended and what failed.
    await fireEvent.focus(window);
    await fireEvent.click(within(brokeCard).getByTestId('dashboard-open-attention'));
    expect((await screen.findByTestId('task-detail')).getAttribute('data-task-id')).toBe(failed.id);
    await waitFor(() => expect(backend.viewing).toEqual({ profile_id: broke.id, task_id: failed.id, focused: true }));
    // The user looked: the engine marks the failure seen, and says the agent is stopped.
    const ending = stopped(now - 1_000, { how: 'exited', code: 2, signal: null }, 1);
    tellOverview(backend, [quietAgent, { ...brokeAgent, attention: ending }]);
    await fireEvent.click(screen.getByTestId('open-dashboard'));
    const seen = await screen.findByTestId('dashboard');
    await waitFor(() => expect(card(seen, 'broke').getAttribute('data-state')).toBe('stopped'));
    expect(within(card(seen, 'broke')).getByTestId('dashboard-ended').textContent).toBe('Exited with code 2; 1 task failed in its last run');
    expect(stuck.state).toBe('running');
  });

  it('says what a task at work still waits for, as its card in the task list does', async () => {
    const backend = new FakeBackend();
    const now = Date.now();
    const agent = backend.seedProfile({ name: 'waiter' });
    const session = backend.seedSession(agent.id, { state: 'running', pid: 4343 }, now - 60_000);
    const task = backend.seedTask({
      profile_id: agent.id,
      instruction: 'Write the changelog',
      state: 'running',
      session_id: session.id,
      started_at: now - 10_000,
      typed_at: null,
      waiting_for: { cause: 'prompt', last_line: 'agent>', pattern: 'demo> $' },
    });
    tellOverview(backend, [
      overviewAgent('waiter', { profile_id: agent.id, session_id: session.id, status: 'working', since: now - 10_000, task_id: task.id, doing: 'Write the changelog', attention: working(task) }),
    ]);
    await renderApp(backend);
    await fireEvent.click(screen.getByTestId('open-dashboard'));
    const view = await screen.findByTestId('dashboard');
    await waitFor(() => expect(within(card(view, 'waiter')).getByTestId('dashboard-task').textContent).toBe('Write the changelog · prompt not seen'));
  });

  it('sorts by name, and opens the question, the task and the terminal in one click', async () => {
    const { view, question, task, askerSession } = await dashboard();
    await fireEvent.change(within(view).getByTestId('dashboard-sort'), { target: { value: 'name' } });
    expect(within(view).getAllByTestId('dashboard-card').map((c) => c.getAttribute('data-profile-name'))).toEqual([
      'archived',
      'asker',
      'builder',
    ]);

    await fireEvent.click(within(card(view, 'asker')).getByTestId('dashboard-answer'));
    const dialog = await screen.findByTestId('signal-dialog');
    expect(dialog.getAttribute('data-signal-id')).toBe(question.id);
    await fireEvent.keyDown(dialog, { key: 'Escape' });
    await waitFor(() => expect(screen.queryByTestId('signal-dialog')).toBeNull());

    await fireEvent.click(within(card(view, 'asker')).getByTestId('dashboard-task'));
    expect((await screen.findByTestId('task-detail')).getAttribute('data-task-id')).toBe(task.id);

    await fireEvent.click(within(card(view, 'asker')).getByTestId('dashboard-preview'));
    await waitFor(() => expect(screen.queryByTestId('dashboard')).toBeNull());
    expect(screen.getByTestId('session-view').getAttribute('data-session-id')).toBe(askerSession.id);
  });

  it('has the shell send its events calmly while no agent is on screen, and live once one is', async () => {
    const { view, backend } = await dashboard();
    await waitFor(() => expect(backend.eventPace).toBe('calm'));
    await fireEvent.click(within(card(view, 'asker')).getByTestId('dashboard-open-agent'));
    await waitFor(() => expect(backend.eventPace).toBe('live'));
    await fireEvent.click(screen.getByTestId('open-dashboard'));
    await waitFor(() => expect(backend.eventPace).toBe('calm'));
    const told = callsOf(backend, 'set_event_pace').map((call) => call.pace);
    expect(told.slice(-3)).toEqual(['calm', 'live', 'calm']);
    // Told at each change only, not at every redraw.
    expect(told.filter((pace, i) => i > 0 && pace === told[i - 1])).toEqual([]);
  });

  it('tells the shell its pace as it loads, whatever pace a window before it left there', async () => {
    const backend = new FakeBackend();
    const agent = backend.seedProfile({ name: 'worker' });
    backend.seedSession(agent.id, { state: 'running', pid: 7 });
    // The window before this one was on the dashboard when it was loaded again.
    await backend.setEventPace('calm');
    await renderApp(backend);
    await waitFor(() => expect(screen.getByTestId('session-view')).toBeTruthy());
    await waitFor(() => expect(backend.eventPace).toBe('live'));
  });

  it('reads the previews of running agents only, and again while it is shown', async () => {
    const { backend, idleSession, askerSession, unmount } = await dashboard();
    await waitFor(() => expect(callsOf(backend, 'screen_snapshot').length).toBeGreaterThanOrEqual(2));
    const sessions = new Set(callsOf(backend, 'screen_snapshot').map((c) => c.sessionId));
    expect(sessions).toEqual(new Set([idleSession.id, askerSession.id]));
    unmount();
  });
});

describe('the dashboard with many agents', () => {
  it('reads the screens of the cards in sight only', async () => {
    const observed: { callback: IntersectionObserverCallback; nodes: Element[] }[] = [];
    class Sight {
      nodes: Element[] = [];
      constructor(callback: IntersectionObserverCallback) {
        observed.push({ callback, nodes: this.nodes });
      }
      observe(node: Element) {
        this.nodes.push(node);
      }
      unobserve() {}
      disconnect() {}
    }
    globalThis.IntersectionObserver = Sight as unknown as typeof IntersectionObserver;
    try {
      const { backend, idleSession, askerSession } = await dashboard();
      await waitFor(() => expect(observed[0]?.nodes.length).toBe(3));
      const inSight = observed[0].nodes.find((n) => n.getAttribute('data-session-id') === idleSession.id)!;
      const entry = { target: inSight, isIntersecting: true } as unknown as IntersectionObserverEntry;
      observed[0].callback([entry], {} as IntersectionObserver);
      const before = callsOf(backend, 'screen_snapshot').length;
      await waitFor(() => expect(callsOf(backend, 'screen_snapshot').length).toBeGreaterThan(before), { timeout: 10_000 });
      const read = new Set(callsOf(backend, 'screen_snapshot').map((c) => c.sessionId));
      expect(read).toEqual(new Set([idleSession.id]));
      expect(read.has(askerSession.id)).toBe(false);
    } finally {
      delete (globalThis as { IntersectionObserver?: unknown }).IntersectionObserver;
    }
  });
});

describe("the dashboard's spend today", () => {
  const tokens = (input: number) => ({ input, output: 0, cache_read: 0, cache_write: 0, by_model: [] });

  it("shows today's spend by agent, the costliest first, and in all, as the engine's report says", async () => {
    const backend = new FakeBackend();
    const ann = backend.seedProfile({ name: 'ann' });
    const bob = backend.seedProfile({ name: 'bob' });
    tellOverview(backend, [
      overviewAgent('ann', { profile_id: ann.id, session_id: null, status: null, since: null, running: false, attention: stopped() }),
      overviewAgent('bob', { profile_id: bob.id, session_id: null, status: null, since: null, running: false, attention: stopped() }),
    ]);
    backend.setCostReport({
      by: 'agent',
      rows: [
        { key: ann.id, name: 'ann', tokens: tokens(12_340), cost_usd: 0.42, list_price: false },
        { key: bob.id, name: 'bob', tokens: tokens(80_000), cost_usd: 1.5, list_price: false },
      ],
      covers: (since) => since.from === 'today',
    });
    await renderApp(backend);
    await fireEvent.click(screen.getByTestId('open-dashboard'));

    const spend = await screen.findByTestId('dashboard-spend');
    await waitFor(() => expect(within(spend).getByTestId('dashboard-spend-total').textContent).toBe('92,340 tokens · $1.92'));
    expect(within(spend).getAllByTestId('dashboard-spend-agent').map((row) => row.textContent?.replace(/\s+/g, ' ').trim())).toEqual(['bob $1.50', 'ann $0.42']);
    const [asked] = callsOf(backend, 'cost_report');
    expect(asked).toEqual({ since: { from: 'today' }, by: 'agent' });
  });

  it('says nothing was spent yet today', async () => {
    const backend = new FakeBackend();
    const ann = backend.seedProfile({ name: 'ann' });
    tellOverview(backend, [overviewAgent('ann', { profile_id: ann.id, session_id: null, status: null, since: null, running: false, attention: stopped() })]);
    await renderApp(backend);
    await fireEvent.click(screen.getByTestId('open-dashboard'));
    const spend = await screen.findByTestId('dashboard-spend');
    await waitFor(() => expect(within(spend).getByTestId('dashboard-spend-total').textContent).toBe('nothing spent yet'));
    expect(within(spend).queryAllByTestId('dashboard-spend-agent')).toEqual([]);
  });

  it("asks again once a task's tokens change, a few seconds apart at most once", async () => {
    const backend = new FakeBackend();
    const ann = backend.seedProfile({ name: 'ann' });
    const task = backend.seedTask({ profile_id: ann.id, instruction: 'Work', state: 'running', started_at: 1 });
    tellOverview(backend, [overviewAgent('ann', { profile_id: ann.id, session_id: null, status: null, since: null, running: false, attention: stopped() })]);
    await renderApp(backend);
    await fireEvent.click(screen.getByTestId('open-dashboard'));
    const spend = await screen.findByTestId('dashboard-spend');
    await waitFor(() => expect(within(spend).getByTestId('dashboard-spend-total').textContent).toBe('nothing spent yet'));
    const asked = callsOf(backend, 'cost_report').length;

    backend.setCostReport({ by: 'agent', rows: [{ key: ann.id, name: 'ann', tokens: tokens(500), cost_usd: 0.01, list_price: false }] });
    for (const count of [100, 300, 500]) backend.setTaskSpent(task.id, { tokens: tokens(count), cost_usd: 0.01 });
    await waitFor(() => expect(within(spend).getByTestId('dashboard-spend-total').textContent).toBe('500 tokens · $0.01'), { timeout: 10_000 });
    // Three changes, one more ask.
    expect(callsOf(backend, 'cost_report')).toHaveLength(asked + 1);
  });
});
