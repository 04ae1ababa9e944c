import { fireEvent, screen, within } from '@testing-library/svelte';
import { tick } from 'svelte';
import { describe, expect, it } from 'vitest';
import type { Priority, ProfileId, TaskSpec } from '../lib/bindings';
import { FakeBackend } from '../lib/fakeBackend';
import { NOTHING_SPENT } from '../lib/cost';
import { signalScan } from '../test/records';
import { callsOf, renderApp } from '../test/render';
import { clarification } from '../test/signals';
import { question as asks, waitsOn } from '../test/attention';

const spec = (profile_id: ProfileId, instruction: string, priority: Priority = 'normal'): TaskSpec => ({
  profile_id,
  instruction,
  context: null,
  specs: null,
  instructions: null,
  priority,
  time_limit_secs: null,
  success_criteria: null,
  goals: null,
  loop_iteration: null,
});

const entries = () => screen.getAllByTestId('task-entry');
const titles = () => entries().map((e) => within(e).getByTestId('task-open').textContent?.trim());
const entryOf = (title: string) => {
  const entry = entries().find((e) => within(e).getByTestId('task-open').textContent?.trim() === title);
  if (!entry) throw new Error(`no task entry ${title}`);
  return entry;
};

/** An agent with one running task and three queued (one urgent, submitted last). */
async function busyAgent() {
  const backend = new FakeBackend();
  const agent = backend.seedProfile({ name: 'agent' });
  await backend.submitTask(spec(agent.id, 'running one'));
  await backend.submitTask(spec(agent.id, 'normal a'));
  await backend.submitTask(spec(agent.id, 'normal b'));
  await backend.submitTask(spec(agent.id, 'urgent c', 'urgent'));
  backend.calls.length = 0;
  return { backend, agent };
}

describe('task panel', () => {
  it('shows the running task, the queue in pick order and finished tasks newest first', async () => {
    const backend = new FakeBackend({ now: () => 1_000_000 });
    const agent = backend.seedProfile({ name: 'agent' });
    backend.seedTask({ profile_id: agent.id, instruction: 'old failure', state: 'failed', ended_at: 10 });
    backend.seedTask({ profile_id: agent.id, instruction: 'recent success', state: 'completed', ended_at: 30 });
    backend.seedTask({ profile_id: agent.id, instruction: 'cut short', state: 'interrupted', ended_at: 20 });
    await backend.submitTask(spec(agent.id, 'running one'));
    await backend.submitTask(spec(agent.id, 'normal a'));
    await backend.submitTask(spec(agent.id, 'urgent c', 'urgent'));
    await renderApp(backend);

    const panel = screen.getByTestId('task-panel');
    expect(panel.getAttribute('data-profile-id')).toBe(agent.id);
    expect(titles()).toEqual(['running one', 'urgent c', 'normal a', 'recent success', 'cut short', 'old failure']);
    expect(entries().map((e) => e.getAttribute('data-state'))).toEqual(['running', 'queued', 'queued', 'completed', 'interrupted', 'failed']);
    expect(entries().map((e) => e.getAttribute('data-position'))).toEqual([null, '1', '2', null, null, null]);
    expect(entryOf('urgent c').getAttribute('data-priority')).toBe('urgent');

    const status = screen.getByTestId('queue-status');
    expect(status.getAttribute('data-executing')).toBe('true');
    expect(status.getAttribute('data-paused')).toBe('false');
    expect(status.getAttribute('data-queued')).toBe('2');
    expect(status.textContent).toContain('working');
    // The task's name is in its card below; the header shows no id.
    expect(status.textContent).not.toMatch(/[0-9a-f]{8}/);

    // Only interrupted, failed, timed-out and cancelled tasks can be requeued.
    expect(within(entryOf('recent success')).queryByTestId('task-requeue')).toBeNull();
    expect(within(entryOf('cut short')).getByTestId('task-requeue')).toBeTruthy();
    expect(within(entryOf('running one')).getByTestId('task-cancel')).toBeTruthy();
  });

  it('lists a long queue a hundred at a time', async () => {
    const backend = new FakeBackend();
    const agent = backend.seedProfile({ name: 'agent' });
    for (let n = 0; n < 251; n++) await backend.submitTask(spec(agent.id, `task ${n}`));
    await renderApp(backend);
    // One running, a hundred queued shown: not 250 rows.
    expect(entries()).toHaveLength(101);
    expect(screen.getByTestId('queue-status').getAttribute('data-queued')).toBe('250');
    expect(screen.getByTestId('queue-more').textContent).toContain('and 150 more queued');
    await fireEvent.click(screen.getByTestId('queue-show-more'));
    expect(entries()).toHaveLength(201);
    await fireEvent.click(screen.getByTestId('queue-show-more'));
    expect(entries()).toHaveLength(251);
    expect(screen.queryByTestId('queue-more')).toBeNull();
    expect(titles().at(-1)).toBe('task 250');
  });

  it('moves queued tasks with the arrow buttons', async () => {
    const { backend } = await busyAgent();
    await renderApp(backend);
    expect(titles()).toEqual(['running one', 'urgent c', 'normal a', 'normal b']);
    expect(within(entryOf('urgent c')).getByTestId('task-move-up').hasAttribute('disabled')).toBe(true);
    expect(within(entryOf('normal b')).getByTestId('task-move-down').hasAttribute('disabled')).toBe(true);

    const b = entryOf('normal b').getAttribute('data-task-id');
    await fireEvent.click(within(entryOf('normal b')).getByTestId('task-move-up'));
    expect(callsOf(backend, 'move_task')).toEqual([{ taskId: b, toIndex: 1 }]);
    expect(titles()).toEqual(['running one', 'urgent c', 'normal b', 'normal a']);

    // Moving above the urgent task makes it urgent (the engine decides; the fake does the same).
    await fireEvent.click(within(entryOf('normal b')).getByTestId('task-move-up'));
    expect(callsOf(backend, 'move_task')[1]).toEqual({ taskId: b, toIndex: 0 });
    expect(titles()).toEqual(['running one', 'normal b', 'urgent c', 'normal a']);
    expect(entryOf('normal b').getAttribute('data-priority')).toBe('urgent');

    const c = entryOf('urgent c').getAttribute('data-task-id');
    await fireEvent.click(within(entryOf('urgent c')).getByTestId('task-move-down'));
    expect(callsOf(backend, 'move_task')[2]).toEqual({ taskId: c, toIndex: 2 });
    expect(titles()).toEqual(['running one', 'normal b', 'normal a', 'urgent c']);
    expect(entryOf('urgent c').getAttribute('data-priority')).toBe('normal');
  });

  it('moves a queued task by dragging its grip', async () => {
    const { backend } = await busyAgent();
    await renderApp(backend);
    const queued = entries().filter((e) => e.getAttribute('data-state') === 'queued');
    // jsdom has no layout: give the three queued rows boxes 20px high, from y=100.
    queued.forEach((row, i) => {
      row.getBoundingClientRect = () => ({ top: 100 + 20 * i, height: 20, bottom: 120 + 20 * i, left: 0, right: 100, width: 100, x: 0, y: 100 + 20 * i, toJSON: () => ({}) });
    });
    const grip = queued[0].querySelector('.grip') as HTMLElement;
    const id = queued[0].getAttribute('data-task-id');

    await fireEvent.pointerDown(grip, { button: 0, pointerId: 1, clientY: 110 });
    await fireEvent.pointerMove(grip, { pointerId: 1, clientY: 145 });
    expect(queued[2].classList.contains('drop-before')).toBe(true);
    await fireEvent.pointerUp(grip, { pointerId: 1, clientY: 145 });

    // Dropped before the third row: it lands second, after "normal a".
    expect(callsOf(backend, 'move_task')).toEqual([{ taskId: id, toIndex: 1 }]);
    expect(titles().slice(1, 4)).toEqual(['normal a', 'urgent c', 'normal b']);
  });

  it('a drag that ends where it started moves nothing', async () => {
    const { backend } = await busyAgent();
    await renderApp(backend);
    const grip = entries()[1].querySelector('.grip') as HTMLElement;
    await fireEvent.pointerDown(grip, { button: 0, pointerId: 1, clientY: 0 });
    await fireEvent.pointerUp(grip, { pointerId: 1, clientY: 0 });
    expect(callsOf(backend, 'move_task')).toEqual([]);
  });

  it('cancels queued and running tasks, and the queue moves on', async () => {
    const { backend } = await busyAgent();
    await renderApp(backend);

    const a = entryOf('normal a').getAttribute('data-task-id');
    await fireEvent.click(within(entryOf('normal a')).getByTestId('task-cancel'));
    expect(callsOf(backend, 'cancel_task')).toEqual([{ taskId: a }]);
    expect(entryOf('normal a').getAttribute('data-state')).toBe('cancelled');

    await fireEvent.click(within(entryOf('running one')).getByTestId('task-cancel'));
    expect(entryOf('running one').getAttribute('data-state')).toBe('cancelled');
    // The urgent task was next in line.
    expect(entryOf('urgent c').getAttribute('data-state')).toBe('running');
    expect(screen.getByTestId('queue-status').getAttribute('data-queued')).toBe('1');
  });

  it('requeues a cancelled task at the front of the queue', async () => {
    const { backend } = await busyAgent();
    await renderApp(backend);
    await fireEvent.click(within(entryOf('normal b')).getByTestId('task-cancel'));
    const b = entryOf('normal b').getAttribute('data-task-id');

    await fireEvent.click(within(entryOf('normal b')).getByTestId('task-requeue'));

    expect(callsOf(backend, 'requeue_task')).toEqual([{ taskId: b }]);
    expect(titles()).toEqual(['running one', 'urgent c', 'normal b', 'normal a']);
    expect(entryOf('normal b').getAttribute('data-position')).toBe('2');
  });

  it('pauses and resumes the queue', async () => {
    const backend = new FakeBackend();
    const agent = backend.seedProfile({ name: 'agent' });
    await renderApp(backend);

    await fireEvent.click(screen.getByTestId('queue-pause'));
    expect(callsOf(backend, 'set_queue_paused')).toEqual([{ profileId: agent.id, paused: true }]);
    expect(screen.getByTestId('queue-status').getAttribute('data-paused')).toBe('true');
    expect(screen.getByTestId('queue-status').textContent).toContain('paused');

    // A paused queue takes tasks but starts none.
    await backend.submitTask(spec(agent.id, 'waits'));
    await tick();
    expect(entryOf('waits').getAttribute('data-state')).toBe('queued');

    await fireEvent.click(screen.getByTestId('queue-resume'));
    expect(callsOf(backend, 'set_queue_paused')[1]).toEqual({ profileId: agent.id, paused: false });
    expect(entryOf('waits').getAttribute('data-state')).toBe('running');
    expect(screen.getByTestId('queue-status').getAttribute('data-executing')).toBe('true');
  });

  it('a paused queue says who paused it and why, with one click to resume', async () => {
    const backend = new FakeBackend();
    const agent = backend.seedProfile({ name: 'builder' });
    await renderApp(backend);
    expect(screen.queryByTestId('queue-paused-banner')).toBeNull();

    // Paused by "pause all": the banner says so, with the tasks that wait.
    await backend.setQueuePaused(null, true);
    await backend.submitTask(spec(agent.id, 'Write the parser'));
    await backend.submitTask(spec(agent.id, 'Then the tests'));
    await tick();
    const banner = await screen.findByTestId('queue-paused-banner');
    expect(banner.getAttribute('data-by')).toBe('all_queues');
    expect(banner.textContent).toContain('You paused every queue at once.');
    expect(banner.textContent).toContain('2 tasks wait.');

    await fireEvent.click(within(banner).getByTestId('queue-banner-resume'));
    expect(callsOf(backend, 'set_queue_paused').at(-1)).toEqual({ profileId: agent.id, paused: false });
    expect(screen.queryByTestId('queue-paused-banner')).toBeNull();
    expect(entryOf('Write the parser').getAttribute('data-state')).toBe('running');
  });

  it('a queue paused by the app names the task and the reason in words', async () => {
    const backend = new FakeBackend();
    const agent = backend.seedProfile({ name: 'builder' });
    const failed = backend.seedTask({ profile_id: agent.id, instruction: 'Write the parser', state: 'failed', ended_at: 5, reason: 'its folder /work/app is gone' });
    await renderApp(backend);
    backend.emit({
      type: 'queue_changed',
      queue: {
        profile_id: agent.id,
        paused: true,
        pause: { by: 'task_not_started', at: 5, task_id: failed.id, reason: 'its folder /work/app is gone' },
        executing: false,
        current_task: null,
        queued: 2,
      },
    });
    const banner = await screen.findByTestId('queue-paused-banner');
    expect(within(banner).getByTestId('queue-paused-reason').textContent).toBe(
      '“Write the parser” could not be started (its folder /work/app is gone), so the tasks after it wait until builder is fixed.',
    );
    expect(banner.textContent).not.toContain(failed.id);
  });

  it('follows the engine: a finished task goes to the list and the next one starts', async () => {
    const { backend, agent } = await busyAgent();
    await renderApp(backend);

    backend.finishTask({ profileId: agent.id });
    await tick();

    expect(entryOf('running one').getAttribute('data-state')).toBe('completed');
    expect(entryOf('urgent c').getAttribute('data-state')).toBe('running');
    expect(titles()).toEqual(['urgent c', 'normal a', 'normal b', 'running one']);
  });

  it('a task waits for its agent\'s session, and fails when the session ends', async () => {
    const backend = new FakeBackend();
    const agent = backend.seedProfile({ name: 'agent' });
    await backend.submitTask(spec(agent.id, 'needs a session'));
    await renderApp(backend);
    expect(within(entryOf('needs a session')).getByTestId('task-open').getAttribute('title')).toBe('needs a session');
    expect(screen.getByTestId('task-panel').textContent).toContain('running · waiting for the agent');

    await fireEvent.click(screen.getByTestId('profile-view-start'));
    expect(entryOf('needs a session').getAttribute('data-state')).toBe('running');
    expect(screen.getByTestId('task-panel').textContent).not.toContain('waiting for the agent');

    await fireEvent.click(screen.getByTestId('stop-session'));
    expect(entryOf('needs a session').getAttribute('data-state')).toBe('failed');
  });

  it('shows the running task\'s progress and elapsed time against its limit', async () => {
    const backend = new FakeBackend();
    const agent = backend.seedProfile({ name: 'agent', task_time_limit_secs: 900 });
    backend.seedSession(agent.id, { state: 'running', pid: 3 });
    const { task } = await backend.submitTask(spec(agent.id, 'work'));
    await renderApp(backend);
    await fireEvent.click(screen.getByTestId('profile-select'));

    backend.setProgress(task.id, 'step 2 of 5');
    await tick();
    const entry = entryOf('work');
    expect(within(entry).getByTestId('task-progress').textContent).toBe('step 2 of 5');
    expect(within(entry).getByTestId('task-elapsed').textContent).toMatch(/ \/ 15m$/);
  });

  it('shows a failed action in the panel', async () => {
    const { backend } = await busyAgent();
    await renderApp(backend);
    backend.failNext('cancel_task', { code: 'task_state', message: 'task x is completed: only a queued or running task can be cancelled', field: null });
    await fireEvent.click(within(entryOf('normal a')).getByTestId('task-cancel'));
    expect((await screen.findByTestId('task-panel-error')).textContent).toBe('Only a queued or running task can be cancelled.');
  });

  it('sits beside the terminal in the session view and can be hidden', async () => {
    const backend = new FakeBackend();
    const agent = backend.seedProfile({ name: 'agent' });
    backend.seedSession(agent.id, { state: 'running', pid: 3 });
    await backend.submitTask(spec(agent.id, 'in the session'));
    await renderApp(backend);

    const view = screen.getByTestId('session-view');
    expect(within(view).getByTestId('task-panel').getAttribute('data-profile-id')).toBe(agent.id);
    expect(within(view).getByTestId('terminal')).toBeTruthy();
    // The fake types the task into the agent's session.
    expect(entryOf('in the session').getAttribute('data-state')).toBe('running');

    await fireEvent.click(screen.getByTestId('toggle-task-panel'));
    expect(screen.queryByTestId('task-panel')).toBeNull();
    await fireEvent.click(screen.getByTestId('toggle-task-panel'));
    expect(screen.getByTestId('task-panel')).toBeTruthy();
  });

  it('shows each agent\'s queue in the sidebar', async () => {
    const { backend, agent } = await busyAgent();
    const idle = backend.seedProfile({ name: 'idle' });
    await renderApp(backend);

    const indicator = (id: string) =>
      within(screen.getAllByTestId('profile-entry').find((e) => e.getAttribute('data-profile-id') === id) as HTMLElement).queryByTestId('profile-queue');
    expect(indicator(agent.id)?.textContent).toBe('working · 3 queued');
    expect(indicator(agent.id)?.getAttribute('data-queued')).toBe('3');
    expect(indicator(idle.id)).toBeNull();

    await backend.setQueuePaused(idle.id, true);
    await tick();
    expect(indicator(idle.id)?.textContent).toBe('paused');
    expect(indicator(idle.id)?.getAttribute('data-paused')).toBe('true');
  });

  it('a task whose agent waits for an answer reads as needing you, its clock paused, the question a click away', async () => {
    const now = 10_000_000;
    const backend = new FakeBackend({ now: () => now });
    const agent = backend.seedProfile({ name: 'asker' });
    const session = backend.seedSession(agent.id, { state: 'running', pid: 9 });
    // Typed 10 min ago; it waited 2 min before and waits for 3 min now.
    const waiting = backend.seedTask({
      profile_id: agent.id,
      instruction: 'review the auth module',
      state: 'running',
      session_id: session.id,
      started_at: now - 600_000,
      typed_at: now - 600_000,
      waiting_since: now - 180_000,
      waited_ms: 120_000,
    });
    const question = backend.raiseSignal(session.id, signalScan(clarification()), { task_id: waiting.id });
    backend.setAttention(agent.id, waitsOn(question, asks('Analyze OAuth2, JWT, or both?', 2), { task: 'review the auth module' }));
    await renderApp(backend);

    const card = entryOf('review the auth module');
    expect(card.textContent).toContain('needs your answer · time limit paused');
    // The panel's header says the same: the agent needs the user, not "working".
    expect(screen.getByTestId('queue-status').textContent).toContain('needs you');
    // Five minutes counted of ten: the waits are not.
    expect(within(card).getByTestId('task-elapsed').textContent).toMatch(/^5m/);
    expect(within(card).getByTestId('task-waiting').textContent).toContain('its time limit is paused');
    // The sidebar says the agent needs you, not that it works.
    expect(screen.getByTestId('profile-queue').textContent).toBe('needs you');
    await fireEvent.click(within(card).getByTestId('task-answer'));
    expect((await screen.findByTestId('signal-dialog')).getAttribute('data-signal-id')).toBe(question.id);
  });

  it("shows a queued task's whole instruction on hover, with where it stands", async () => {
    const { backend } = await busyAgent();
    await renderApp(backend);
    const open = within(entryOf('urgent c')).getByTestId('task-open');
    expect(open.getAttribute('title')).toMatch(/^urgent c\n\(queued · position 1 · waiting for /);
  });

  // Issue 22: the hover text of a task whose instruction is one long word was drawn taller than the
  // window (a native tooltip is as tall as its text and cannot wrap a word).
  it('keeps the hover text of a one-word instruction to a few short lines', async () => {
    const { backend, agent } = await busyAgent();
    await backend.submitTask(spec(agent.id, 'x'.repeat(50_000)));
    await renderApp(backend);
    const open = entries().map((e) => within(e).getByTestId('task-open')).find((b) => b.textContent?.trim().startsWith('xxx'));
    const lines = open?.getAttribute('title')?.split('\n') ?? [];
    expect(lines.length).toBeGreaterThan(2);
    expect(lines.length).toBeLessThanOrEqual(13);
    expect(Math.max(...lines.map((line) => [...line].length))).toBeLessThanOrEqual(80);
    expect(lines.at(-1)).toMatch(/^\(queued · position 4/);
  });
});

describe('a loop in the task list and the sidebar', () => {
  /** An agent whose loop ran three iterations (each a task in a fresh session), and one plain task. */
  function loopedAgent() {
    const backend = new FakeBackend();
    const agent = backend.seedProfile({ name: 'looper' });
    const goal = 'Make the tests pass\nand keep the docs in step';
    const iterations = [1, 2, 3].map((number) => {
      const session = backend.seedSession(agent.id, { state: 'killed', exit_code: 0, signal: null, ended_at: number * 10 + 5 }, number * 10);
      const task = backend.seedTask({
        profile_id: agent.id,
        instruction: 'You are one iteration of a loop working toward a goal. Read the anchor file first ...',
        title: `Make the tests pass · iteration ${number}`,
        state: number === 3 ? 'cancelled' : 'completed',
        session_id: session.id,
        started_at: number * 10,
        ended_at: number * 10 + 5,
        reason: number === 3 ? 'cancelled while it ran' : null,
        result: null,
        loop_iteration: { loop_id: 'loop-1', number },
      });
      return { session, task, number };
    });
    const plain = backend.seedTask({ profile_id: agent.id, instruction: 'Write the changelog', state: 'failed', ended_at: 1, reason: 'x' });
    backend.seedSession(agent.id, { state: 'exited', exit_code: 0, signal: null, ended_at: 2 }, 1);
    backend.seedLoop({
      id: 'loop-1',
      profile_id: agent.id,
      settings: { goal, stop_word: 'LOOP_COMPLETE', promise: null, max_iterations: 10, stall_after: 5, iteration_time_limit_secs: null },
      created_at: 5,
      state: { state: 'cancelled', at: 40 },
      iterations: iterations.map(({ session, task, number }) => ({
        seq: number,
        number,
        task_id: task.id,
        session_id: session.id,
        started_at: number * 10,
        outcome: number === 3 ? { outcome: 'interrupted', at: 35 } : { outcome: 'ended', at: number * 10 + 5, stop_reason: 'ok', verdict: { verdict: 'continue' } },
        spent: NOTHING_SPENT,
      })),
      iteration_count: 3,
      iterations_run: 2,
      spent: NOTHING_SPENT,
    });
    return { backend, agent, iterations, plain };
  }

  it('gathers a loop\'s iterations into one row with its progress, unfolding to them', async () => {
    const { backend, plain } = loopedAgent();
    await renderApp(backend);
    const panel = screen.getByTestId('task-panel');

    const group = within(panel).getByTestId('loop-iterations');
    expect(group.getAttribute('data-count')).toBe('3');
    expect(within(group).getByTestId('loop-iterations-open').textContent?.trim()).toBe('Make the tests pass');
    expect(within(group).getByTestId('loop-iterations-state').textContent).toBe('cancelled');
    expect(within(group).getByTestId('loop-iterations-progress').textContent).toBe('2 of 10 iterations');
    // Folded: the iterations are not rows of their own; the plain task is.
    const rows = within(panel).getAllByTestId('task-entry').map((e) => e.getAttribute('data-task-id'));
    expect(rows).toEqual([plain.id]);

    await fireEvent.click(within(group).getByTestId('loop-iterations-toggle'));
    const iterations = within(group).getAllByTestId('task-entry');
    expect(iterations.map((e) => within(e).getByTestId('task-open').textContent?.trim())).toEqual([
      'Make the tests pass · iteration 3',
      'Make the tests pass · iteration 2',
      'Make the tests pass · iteration 1',
    ]);
    // An iteration is the loop's to run again: no "Requeue" on it.
    expect(within(group).queryByTestId('task-requeue')).toBeNull();
  });

  it('gathers a loop\'s fresh sessions into one row in the sidebar that opens the newest', async () => {
    const { backend, iterations } = loopedAgent();
    await renderApp(backend);
    const entry = screen.getByTestId('profile-entry');

    const group = within(entry).getByTestId('loop-sessions');
    expect(group.getAttribute('data-count')).toBe('3');
    expect(within(group).getByTestId('loop-sessions-progress').textContent).toBe('2 of 10 · cancelled');
    // One row for the loop and one for the other session, not four.
    expect(within(entry).getAllByTestId('session-entry')).toHaveLength(1);

    await fireEvent.click(within(group).getByTestId('loop-sessions-open'));
    expect(screen.getByTestId('session-view').getAttribute('data-session-id')).toBe(iterations[2].session.id);
    await fireEvent.click(within(group).getByTestId('loop-sessions-toggle'));
    expect(within(group).getAllByTestId('session-entry')).toHaveLength(3);
  });
});
