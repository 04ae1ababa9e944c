import { fireEvent, screen, waitFor, within } from '@testing-library/svelte';
import { describe, expect, it } from 'vitest';
import { FakeBackend } from '../lib/fakeBackend';
import { DEMO_TASK } from '../test/records';
import { callsOf, renderApp } from '../test/render';

/** An agent whose task it took is held back: its prompt `agent> ` is not what its pattern sees. */
async function heldAgent() {
  const now = 5_000_000;
  const backend = new FakeBackend({ now: () => now });
  const agent = backend.seedProfile({ name: 'demo', ready_pattern: 'demo> $' });
  const session = backend.seedSession(agent.id, { state: 'running', pid: 4 });
  const task = backend.seedTask({
    profile_id: agent.id,
    instruction: 'say hello',
    state: 'running',
    session_id: session.id,
    started_at: now - 90_000,
    typed_at: null,
    quiet_since: now - 90_000,
    waiting_for: { cause: 'prompt', last_line: 'agent> <b>not html</b>', pattern: 'demo> $' },
  });
  return { backend, agent, task };
}

describe('what a task waits for', () => {
  it('a prompt its pattern does not see is said on the card with the screen and the pattern, and typed on a click', async () => {
    const { backend, task } = await heldAgent();
    await renderApp(backend);
    const card = screen.getAllByTestId('task-entry').find((e) => e.getAttribute('data-task-id') === task.id)!;
    expect(card.textContent).toContain('running · prompt not seen');
    const wait = within(card).getByTestId('task-wait');
    expect(wait.getAttribute('data-cause')).toBe('prompt');
    expect(wait.textContent).toContain("the agent's prompt is not on its screen as its ready pattern expects");
    // The agent's own text, as text.
    expect(within(wait).getByTestId('task-wait-line').textContent).toBe('agent> <b>not html</b>');
    expect(wait.querySelector('b')).toBeNull();
    expect(within(wait).getByTestId('task-wait-pattern').textContent).toBe('demo> $');
    // Flagged as possibly stuck, as every quiet agent is.
    expect(within(card).getByTestId('task-quiet').textContent).toContain('it may be stuck');

    await fireEvent.click(within(wait).getByTestId('task-type-now'));
    expect(callsOf(backend, 'type_task_now')).toEqual([{ taskId: task.id }]);
    await waitFor(() => expect(within(card).queryByTestId('task-wait')).toBeNull());
    expect(card.textContent).not.toContain('prompt not seen');
  });

  it('an agent whose output never settles can have its task typed too, and a typed one cannot', async () => {
    const { backend, task } = await heldAgent();
    backend.seedTask({ ...task, quiet_since: null, waiting_for: { cause: 'agent_output' } });
    await renderApp(backend);
    const wait = screen.getByTestId('task-wait');
    expect(wait.getAttribute('data-cause')).toBe('agent_output');
    expect(within(wait).queryByTestId('task-edit-pattern')).toBeNull();
    await fireEvent.click(within(wait).getByTestId('task-type-now'));
    expect(callsOf(backend, 'type_task_now')).toEqual([{ taskId: task.id }]);
  });

  it('opens the agent form from the wait to edit the ready pattern', async () => {
    const { backend, agent } = await heldAgent();
    await renderApp(backend);
    await fireEvent.click(screen.getByTestId('task-edit-pattern'));
    const form = await screen.findByTestId('agent-form');
    expect((within(form).getByDisplayValue(agent.ready_pattern!) as HTMLInputElement).value).toBe('demo> $');
  });

  it("the task's detail says it too, and a refusal is shown in words", async () => {
    const { backend, task } = await heldAgent();
    await renderApp(backend);
    await fireEvent.click(screen.getAllByTestId('task-open').find((b) => b.textContent?.includes('say hello'))!);
    const detail = await screen.findByTestId('task-detail');
    const wait = within(detail).getByTestId('task-wait');
    expect(within(wait).getByTestId('task-wait-line').textContent).toBe('agent> <b>not html</b>');
    backend.failNext('type_task_now', { code: 'task_state', message: `task ${task.id} is running: it was already typed into its agent`, field: null });
    await fireEvent.click(within(wait).getByTestId('task-type-now'));
    const error = await within(detail).findByTestId('task-wait-error');
    expect(error.textContent).not.toContain(task.id);
  });

  it('a queued task behind a paused queue says so, and again once it is resumed', async () => {
    const backend = new FakeBackend();
    const agent = backend.seedProfile({ name: 'worker' });
    backend.seedSession(agent.id, { state: 'running', pid: 4 });
    await backend.setQueuePaused(agent.id, true);
    const { task } = await backend.submitTask({
      ...DEMO_TASK,
      profile_id: agent.id,
      instruction: 'write the parser',
      title: null,
    });
    await renderApp(backend);
    const open = screen.getAllByTestId('task-open').find((b) => b.textContent?.includes('write the parser'))!;
    expect(open.getAttribute('title')).toContain('queue paused');
    await fireEvent.click(open);
    const detail = await screen.findByTestId('task-detail');
    expect(within(detail).getByTestId('task-wait').textContent).toContain('Its queue is paused: you paused it');
    expect(task.waiting_for).toEqual({ cause: 'queue_paused', reason: 'you paused it' });
  });

  it("a queued task of an agent past its day's budget says until when, and where to raise it", async () => {
    const backend = new FakeBackend();
    const agent = backend.seedProfile({ name: 'worker', daily_budget: { usd: 5 } });
    const nextDay = new Date(2030, 0, 2).getTime();
    backend.setDayBudgetUsed(agent.id, { budget: '$5.00', until: nextDay });
    await backend.submitTask({ ...DEMO_TASK, profile_id: agent.id, instruction: 'write the parser', title: null });
    await renderApp(backend);
    const open = screen.getAllByTestId('task-open').find((b) => b.textContent?.includes('write the parser'))!;
    expect(open.getAttribute('title')).toContain("its agent's day's budget is used");
    await fireEvent.click(open);
    const wait = within(await screen.findByTestId('task-detail')).getByTestId('task-wait');
    expect(wait.getAttribute('data-cause')).toBe('daily_budget');
    expect(wait.textContent).toContain("Its agent used its day's budget of $5.00: it starts on its agent's next day");
    await fireEvent.click(within(wait).getByTestId('task-raise-budget'));
    const form = await screen.findByTestId('agent-form');
    expect((within(form).getByTestId('agent-daily-budget') as HTMLInputElement).value).toBe('5');
  });

  it("a task whose new worktree is being set up says so, and is not typed before its setup ends", async () => {
    const { backend, task } = await heldAgent();
    backend.seedTask({ ...task, quiet_since: null, waiting_for: { cause: 'worktree_setup', command: 'npm ci' } });
    await renderApp(backend);
    const card = screen.getAllByTestId('task-entry').find((e) => e.getAttribute('data-task-id') === task.id)!;
    expect(card.textContent).toContain('running · setting up its worktree');
    const wait = within(card).getByTestId('task-wait');
    expect(wait.getAttribute('data-cause')).toBe('worktree_setup');
    expect(wait.textContent).toContain('Not typed yet: its new worktree is being set up first (npm ci).');
    expect(within(wait).queryByTestId('task-type-now')).toBeNull();
  });
});
