import { fireEvent, screen, waitFor, within } from '@testing-library/svelte';
import { describe, expect, it, vi } from 'vitest';
import type { TaskSpec } from '../lib/bindings';
import { FakeBackend } from '../lib/fakeBackend';
import { DEMO_TASK } from '../test/records';
import { callsOf, renderApp } from '../test/render';

const spec = (profile_id: string, instruction: string): TaskSpec => ({
  ...DEMO_TASK,
  profile_id,
  instruction,
});

/** An app showing one agent's profile view (it has no sessions), with the task form open. */
async function openForm(backend: FakeBackend) {
  const rendered = await renderApp(backend);
  await fireEvent.click(screen.getByTestId('new-task'));
  return rendered;
}

const type = (testid: string, value: string) => fireEvent.input(screen.getByTestId(testid), { target: { value } });

describe('new task form', () => {
  it('asks an agent that works in worktrees which branch to start from', async () => {
    const backend = new FakeBackend();
    backend.seedProfile({ name: 'apart', isolation: 'worktree' });
    await openForm(backend);
    await type('task-instruction', 'Backport the fix');
    await type('task-base', 'release/2.1');
    await fireEvent.click(screen.getByTestId('task-submit'));
    await screen.findByTestId('task-submit-result');
    expect((callsOf(backend, 'submit_task')[0] as { spec: TaskSpec }).spec.base).toBe('release/2.1');
  });

  it('does not ask an agent that works in its folder for a branch', async () => {
    const other = new FakeBackend();
    other.seedProfile({ name: 'in its folder' });
    await openForm(other);
    expect(screen.queryByTestId('task-base')).toBeNull();
  });

  it('keeps the next instruction typed while the last one was on its way', async () => {
    const backend = new FakeBackend();
    backend.seedProfile({ name: 'agent' });
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const submit = backend.submitTask.bind(backend);
    backend.submitTask = async (spec) => {
      await held;
      return submit(spec);
    };
    await openForm(backend);
    await type('task-instruction', 'Draft the release notes');
    await fireEvent.click(screen.getByTestId('task-submit'));
    await type('task-instruction', 'Proofread the changelog');
    release();
    await screen.findByTestId('task-submit-result');
    expect((screen.getByTestId('task-instruction') as HTMLTextAreaElement).value).toBe('Proofread the changelog');
  });

  it('starts a task on an idle agent and says so', async () => {
    const backend = new FakeBackend();
    const agent = backend.seedProfile({ name: 'agent' });
    await openForm(backend);

    await type('task-instruction', 'Fix the parser\nand its tests');
    await type('task-success-criteria', 'cargo test passes');
    await type('task-goals', 'pasted YAML parses');
    await fireEvent.change(screen.getByTestId('task-priority'), { target: { value: 'urgent' } });
    await type('task-time-limit', '5');
    await type('task-context', 'the parser lives in src/parse.rs');
    await type('task-specs', '   ');
    await type('task-instructions', 'keep commits small');
    await fireEvent.click(screen.getByTestId('task-submit'));

    expect((await screen.findByTestId('task-submit-result')).textContent).toBe('Started');
    expect(callsOf(backend, 'submit_task')).toEqual([
      {
        spec: {
          profile_id: agent.id,
          instruction: 'Fix the parser\nand its tests',
          context: 'the parser lives in src/parse.rs',
          specs: null,
          instructions: 'keep commits small',
          priority: 'urgent',
          time_limit_secs: 300,
          success_criteria: 'cargo test passes',
          goals: 'pasted YAML parses',
          loop_iteration: null,
          base: null,
          budget: null,
        },
      },
    ]);
    // The form is emptied for the next task, and the task shows as running.
    expect((screen.getByTestId('task-instruction') as HTMLTextAreaElement).value).toBe('');
    expect((screen.getByTestId('task-priority') as HTMLSelectElement).value).toBe('normal');
    const [entry] = screen.getAllByTestId('task-entry');
    expect(entry.getAttribute('data-state')).toBe('running');
    expect(within(entry).getByTestId('task-open').textContent?.trim()).toBe('Fix the parser');
  });

  it('queues behind a running task, naming its place and what it waits for', async () => {
    const backend = new FakeBackend();
    const agent = backend.seedProfile({ name: 'agent' });
    await backend.submitTask(spec(agent.id, 'first'));
    await openForm(backend);

    await type('task-instruction', 'second');
    await fireEvent.click(screen.getByTestId('task-submit'));

    const result = await screen.findByTestId('task-submit-result');
    expect(result.textContent).toBe('Queued · position 1 · waiting for “first”');
    expect(callsOf(backend, 'submit_task')[0]).toMatchObject({ spec: { time_limit_secs: null, priority: 'normal', context: null } });
  });

  it('says a submitted task that failed in red, never as a success, and brings it into view', async () => {
    const backend = new FakeBackend();
    const agent = backend.seedProfile({ name: 'agent' });
    await openForm(backend);
    const shown = vi.spyOn(Element.prototype, 'scrollIntoView');
    await type('task-instruction', 'Port the parser');
    await fireEvent.click(screen.getByTestId('task-submit'));
    const result = await screen.findByTestId('task-submit-result');
    expect(result.dataset.tone).toBe('ok');
    backend.finishTask({ profileId: agent.id }, { state: 'failed', reason: 'the build broke' });
    await waitFor(() => expect(result.textContent).toBe('Your task failed: open it to see why'));
    expect(result.dataset.tone).toBe('bad');
    expect(shown).toHaveBeenCalled();
    shown.mockRestore();
  });

  it('keeps its place in the queue true as tasks ahead of it leave', async () => {
    const backend = new FakeBackend();
    const agent = backend.seedProfile({ name: 'agent' });
    await backend.submitTask(spec(agent.id, 'first'));
    const { task: second } = await backend.submitTask(spec(agent.id, 'second'));
    await backend.submitTask(spec(agent.id, 'third'));
    await openForm(backend);
    await type('task-instruction', 'fourth');
    await fireEvent.click(screen.getByTestId('task-submit'));
    const result = await screen.findByTestId('task-submit-result');
    expect(result.textContent).toBe('Queued · position 3 · waiting for “first”');
    await backend.cancelTask(second.id);
    await waitFor(() => expect(result.textContent).toBe('Queued · position 2 · waiting for “first”'));
  });

  it('shows the agent default time limit as the placeholder', async () => {
    const backend = new FakeBackend();
    backend.seedProfile({ name: 'agent', task_time_limit_secs: 600 });
    await openForm(backend);
    expect(screen.getByTestId('task-time-limit').getAttribute('placeholder')).toBe('default 10m');
  });

  it('refuses an empty instruction without calling the engine', async () => {
    const backend = new FakeBackend();
    backend.seedProfile({ name: 'agent' });
    await openForm(backend);

    await type('task-instruction', '   ');
    await fireEvent.click(screen.getByTestId('task-submit'));

    expect(screen.getByTestId('task-form-error').textContent).toBe('Write what the agent should do.');
    expect(screen.getByTestId('task-instruction').getAttribute('aria-invalid')).toBe('true');
    expect(callsOf(backend, 'submit_task')).toEqual([]);
  });

  it('shows an engine error inline and keeps what was typed', async () => {
    const backend = new FakeBackend();
    backend.seedProfile({ name: 'agent' });
    await openForm(backend);
    backend.failNext('submit_task', { code: 'invalid_input', message: 'time_limit_secs: at most a day', field: 'time_limit_secs' });

    await type('task-instruction', 'do it');
    await type('task-time-limit', '5000');
    await fireEvent.click(screen.getByTestId('task-submit'));

    // Said without the engine's name for the field.
    expect((await screen.findByTestId('task-form-error')).textContent).toBe('At most a day.');
    expect(screen.getByTestId('task-time-limit').getAttribute('aria-invalid')).toBe('true');
    expect(screen.queryByTestId('task-submit-result')).toBeNull();
    expect((screen.getByTestId('task-instruction') as HTMLTextAreaElement).value).toBe('do it');
    expect(screen.queryAllByTestId('task-entry')).toEqual([]);
  });

  it('gives a task a budget in dollars, from an amount and its unit', async () => {
    const backend = new FakeBackend();
    backend.seedProfile({ name: 'agent' });
    await openForm(backend);
    await type('task-instruction', 'do it');
    await type('task-budget', '2.5');
    await fireEvent.change(screen.getByTestId('task-budget-unit'), { target: { value: 'usd' } });
    await fireEvent.click(screen.getByTestId('task-submit'));

    await screen.findByTestId('task-submit-result');
    expect((callsOf(backend, 'submit_task')[0] as { spec: TaskSpec }).spec.budget).toEqual({ usd: 2.5 });
    // Emptied for the next task, as the other fields.
    expect((screen.getByTestId('task-budget') as HTMLInputElement).value).toBe('');
  });

  it('gives no budget while its field is empty, and tokens by default', async () => {
    const backend = new FakeBackend();
    backend.seedProfile({ name: 'agent' });
    await openForm(backend);
    await type('task-instruction', 'first');
    await fireEvent.click(screen.getByTestId('task-submit'));
    await screen.findByTestId('task-submit-result');
    await type('task-instruction', 'second');
    await type('task-budget', '50000');
    await fireEvent.click(screen.getByTestId('task-submit'));
    await waitFor(() => expect(callsOf(backend, 'submit_task')).toHaveLength(2));
    expect(callsOf(backend, 'submit_task').map((call) => (call as { spec: TaskSpec }).spec.budget)).toEqual([null, { tokens: 50_000 }]);
  });

  it('says under the budget why the engine refused it, in its words', async () => {
    const backend = new FakeBackend();
    backend.seedProfile({ name: 'agent' });
    await openForm(backend);
    backend.failNext('submit_task', {
      code: 'invalid_input',
      message: 'budget: claude-fable-9, the model agent uses, has no price in Settings: give a budget in tokens, or add its price.',
      field: 'budget',
    });
    await type('task-instruction', 'do it');
    await type('task-budget', '2.5');
    await fireEvent.change(screen.getByTestId('task-budget-unit'), { target: { value: 'usd' } });
    await fireEvent.click(screen.getByTestId('task-submit'));

    expect((await screen.findByTestId('error-budget')).textContent).toBe(
      'claude-fable-9, the model agent uses, has no price in Settings: give a budget in tokens, or add its price.',
    );
    expect(screen.getByTestId('task-budget').getAttribute('aria-invalid')).toBe('true');
    expect(screen.queryByTestId('task-form-error')).toBeNull();
    expect((screen.getByTestId('task-budget') as HTMLInputElement).value).toBe('2.5');
  });

  it('refuses a budget of part of a token without calling the engine', async () => {
    const backend = new FakeBackend();
    backend.seedProfile({ name: 'agent' });
    await openForm(backend);
    await type('task-instruction', 'do it');
    await type('task-budget', '2.5');
    await fireEvent.click(screen.getByTestId('task-submit'));
    expect(screen.getByTestId('error-budget').textContent).toBe('Give a whole number of tokens, such as 50000.');
    expect(callsOf(backend, 'submit_task')).toEqual([]);
  });

  it('refuses a time limit that is not a number of minutes', async () => {
    const backend = new FakeBackend();
    backend.seedProfile({ name: 'agent' });
    await openForm(backend);
    await type('task-instruction', 'do it');
    await type('task-time-limit', 'soon');
    await fireEvent.click(screen.getByTestId('task-submit'));
    expect(screen.getByTestId('task-form-error').textContent).toBe('The time limit is a number of minutes, such as 30.');
    expect(callsOf(backend, 'submit_task')).toEqual([]);
  });
});
