import { fireEvent, screen, waitFor, within } from '@testing-library/svelte';
import { describe, expect, it } from 'vitest';
import type { Iteration, LoopInfo } from '../lib/bindings';
import { apiError } from '../lib/errors';
import { FakeBackend } from '../lib/fakeBackend';
import { NOTHING_SPENT } from '../lib/cost';
import { callsOf, renderApp } from '../test/render';
import { loopStalled, stopped } from '../test/attention';

const settings = { goal: 'Make the tests pass', stop_word: 'LOOP_COMPLETE', promise: null, max_iterations: 10, stall_after: 3, iteration_time_limit_secs: null };

/** An agent with a loop that stalled after three identical stop reasons. */
function withStalledLoop() {
  const backend = new FakeBackend();
  const agent = backend.seedProfile({ name: 'looper' });
  const session = backend.seedSession(agent.id, { state: 'exited', exit_code: 0, signal: null, ended_at: 2 });
  const iteration = (number: number) => ({
    seq: number,
    number,
    task_id: null,
    session_id: session.id,
    started_at: 1_000,
    outcome: { outcome: 'ended' as const, at: 61_000, stop_reason: 'error: 3 tests fail <b>boom</b>', verdict: { verdict: 'continue' as const } },
    spent: NOTHING_SPENT,
  });
  const info: LoopInfo = {
    id: 'loop-9',
    profile_id: agent.id,
    settings,
    created_at: 0,
    state: { state: 'stalled', at: 2, repeated: 3, reason: 'error: 3 tests fail <b>boom</b>' },
    iterations: [iteration(1), iteration(2), iteration(3)],
    iteration_count: 3,
    iterations_run: 3,
    spent: NOTHING_SPENT,
  };
  backend.seedLoop(info, { anchor: '# Loop goal\n\nMake the tests pass\n', progress: '- tried <img src=x onerror=alert(1)>\n', guardrails: '# Guardrails\n\n- error: 3 tests fail\n' });
  backend.setAttention(agent.id, loopStalled(info, 'error: 3 tests fail <b>boom</b>', 2));
  return { backend, agent, session, info };
}

describe('loops in the window', () => {
  it('starts a loop from the Tasks panel with its settings, and shows it', async () => {
    const backend = new FakeBackend();
    const agent = backend.seedProfile({ name: 'looper' });
    await renderApp(backend);
    await fireEvent.click(screen.getByTestId('new-loop'));
    await fireEvent.input(screen.getByTestId('loop-goal'), { target: { value: 'Make the build green' } });
    await fireEvent.input(screen.getByTestId('loop-max'), { target: { value: 'ten' } });
    await fireEvent.click(screen.getByTestId('loop-start'));
    expect((await screen.findByTestId('error-max_iterations')).textContent).toBe('a whole number of iterations');
    expect(callsOf(backend, 'start_loop')).toEqual([]);

    await fireEvent.input(screen.getByTestId('loop-max'), { target: { value: '4' } });
    await fireEvent.input(screen.getByTestId('loop-promise'), { target: { value: 'BUILD GREEN' } });
    await fireEvent.click(screen.getByTestId('loop-start'));
    const detail = await screen.findByTestId('loop-detail');
    expect(callsOf(backend, 'start_loop')).toEqual([
      {
        profileId: agent.id,
        settings: { goal: 'Make the build green', stop_word: 'LOOP_COMPLETE', promise: 'BUILD GREEN', max_iterations: 4, stall_after: 5, iteration_time_limit_secs: null, budget: null },
      },
    ]);
    expect(screen.queryByTestId('loop-form')).toBeNull();
    expect(within(detail).getByTestId('loop-status').textContent).toBe('Waiting for its turn (0 of 4 done)');
    expect(within(detail).getByTestId('loop-count').textContent).toBe('0 of at most 4');
    const entry = screen.getByTestId('loop-entry');
    expect(entry.getAttribute('data-state')).toBe('active');
    expect(within(entry).getByTestId('loop-open').textContent?.trim()).toBe('Make the build green');
  });

  it('shows a stalled loop as text, lets the user correct its guardrails and resume it', async () => {
    const { backend, agent, info } = withStalledLoop();
    const { container } = await renderApp(backend);
    expect(screen.getByTestId('profile-stalled').textContent).toBe('loop stalled');
    await fireEvent.click(screen.getByTestId('loop-open'));
    const detail = await screen.findByTestId('loop-detail');
    expect(within(detail).getByTestId('loop-stalled').textContent).toContain('error: 3 tests fail <b>boom</b>');
    const rows = within(detail).getAllByTestId('loop-iteration');
    expect(rows.map((r) => r.getAttribute('data-number'))).toEqual(['3', '2', '1']);
    expect(within(rows[0]).getByTestId('loop-iteration-verdict').textContent).toBe('go on');
    expect(rows[0].textContent).toContain('1m');
    // Agent text stays text.
    expect((await within(detail).findByTestId('loop-progress')).textContent).toBe('- tried <img src=x onerror=alert(1)>\n');
    expect(container.querySelector('img')).toBeNull();
    expect(container.querySelector('b')).toBeNull();

    await fireEvent.click(within(detail).getByTestId('loop-edit-guardrails'));
    const editor = within(detail).getByTestId('loop-editor-guardrails') as HTMLTextAreaElement;
    expect(editor.value).toBe('# Guardrails\n\n- error: 3 tests fail\n');
    await fireEvent.input(editor, { target: { value: '- Run one test at a time.\n' } });
    await fireEvent.click(within(detail).getByTestId('loop-save-guardrails'));
    expect((await within(detail).findByTestId('loop-guardrails')).textContent).toBe('- Run one test at a time.\n');
    expect(callsOf(backend, 'save_loop_file')).toEqual([{ loopId: info.id, file: 'guardrails', text: '- Run one test at a time.\n' }]);

    await fireEvent.click(within(detail).getByTestId('loop-resume'));
    await waitFor(() => expect(screen.getByTestId('loop-detail').getAttribute('data-state')).toBe('active'));
    expect(callsOf(backend, 'resume_loop')).toEqual([{ loopId: info.id }]);
    // The loop goes on: the engine no longer says the agent is stalled.
    backend.setAttention(agent.id, stopped(2, { how: 'exited', code: 0, signal: null }));
    await waitFor(() => expect(screen.queryByTestId('profile-stalled')).toBeNull());
  });

  it('refuses a second loop on an agent whose loop is stalled, in words', async () => {
    const { backend } = withStalledLoop();
    backend.failNext('start_loop', apiError('loop_busy', 'looper has a stalled loop: resume it or cancel it before starting another.'));
    await renderApp(backend);
    await fireEvent.click(screen.getByTestId('new-loop'));
    await fireEvent.input(screen.getByTestId('loop-goal'), { target: { value: 'Write the docs' } });
    await fireEvent.click(screen.getByTestId('loop-start'));
    expect((await screen.findByTestId('loop-form-error')).textContent).toBe('looper has a stalled loop: resume it or cancel it before starting another.');
    expect(screen.getAllByTestId('loop-entry')).toHaveLength(1);
  });

  it('shows the latest iterations of a long loop, and older ones a page at a time', async () => {
    const backend = new FakeBackend();
    const agent = backend.seedProfile({ name: 'looper' });
    const iteration = (seq: number): Iteration => ({
      seq,
      number: seq,
      task_id: null,
      session_id: null,
      started_at: 1_000,
      outcome: { outcome: 'ended', at: 2_000, stop_reason: `did step ${seq}`, verdict: { verdict: 'continue' } },
      spent: NOTHING_SPENT,
    });
    const history = Array.from({ length: 9_900 }, (_, i) => iteration(i + 1));
    const info: LoopInfo = {
      id: 'loop-long',
      profile_id: agent.id,
      settings: { ...settings, max_iterations: 10_000 },
      created_at: 0,
      state: { state: 'active' },
      iterations: history.slice(-50),
      iteration_count: 9_900,
      iterations_run: 9_900,
      spent: NOTHING_SPENT,
    };
    backend.seedLoop(info, {}, history);
    await renderApp(backend);
    await fireEvent.click(screen.getByTestId('loop-open'));
    const detail = await screen.findByTestId('loop-detail');
    const numbers = () => within(detail).getAllByTestId('loop-iteration').map((r) => Number(r.getAttribute('data-number')));
    expect(numbers()).toHaveLength(50);
    expect(numbers()[0]).toBe(9_900);
    expect(within(detail).getByTestId('loop-count').textContent).toBe('9,900 of at most 10,000');
    expect(within(detail).getByTestId('loop-history').textContent).toContain('Showing the last 50 of 9,900');

    await fireEvent.click(within(detail).getByTestId('loop-older'));
    await waitFor(() => expect(numbers()).toHaveLength(100));
    expect(callsOf(backend, 'loop_iterations')).toEqual([{ loopId: info.id, before: 9_851, limit: 50 }]);
    expect(within(detail).getByTestId('loop-history').textContent).toContain('Showing the last 100 of 9,900');

    // The loop goes on: the iteration that leaves the latest fifty stays shown, none is missing.
    const next = iteration(9_901);
    backend.updateLoop({ ...info, iterations: [...history.slice(-49), next], iteration_count: 9_901, iterations_run: 9_901 });
    await waitFor(() => expect(numbers()[0]).toBe(9_901));
    expect(numbers()).toEqual(Array.from({ length: 101 }, (_, i) => 9_901 - i));
  });

  it('says why a loop failed to start, and what its agent said each time', async () => {
    const backend = new FakeBackend();
    const agent = backend.seedProfile({ name: 'keyless' });
    const failed = (seq: number): Iteration => ({
      seq,
      number: 1,
      task_id: null,
      session_id: null,
      started_at: 1_000,
      outcome: { outcome: 'failed_start', at: 1_100, exit: 'it exited with code 3', said: 'no API key set' },
      spent: NOTHING_SPENT,
    });
    const info: LoopInfo = {
      id: 'loop-keyless',
      profile_id: agent.id,
      settings,
      created_at: 0,
      state: { state: 'failed_to_start', at: 9_000, attempts: 4, exit: 'it exited with code 3', said: 'no API key set' },
      iterations: [failed(1), failed(2), failed(3), failed(4)],
      iteration_count: 4,
      iterations_run: 0,
      spent: NOTHING_SPENT,
    };
    backend.seedLoop(info);
    await renderApp(backend);
    await fireEvent.click(screen.getByTestId('loop-open'));
    const detail = await screen.findByTestId('loop-detail');
    expect(within(detail).getByTestId('loop-detail-state').textContent).toBe('failed to start');
    const notice = within(detail).getByTestId('loop-failed-to-start');
    expect(notice.textContent).toContain('4 times in a row');
    expect(notice.textContent).toContain('(it exited with code 3)');
    expect(notice.textContent).toContain('no API key set');
    expect(within(detail).getByTestId('loop-count').textContent).toBe('0 of at most 10');
    const rows = within(detail).getAllByTestId('loop-iteration');
    expect(rows.map((r) => r.getAttribute('data-outcome'))).toEqual(['failed_start', 'failed_start', 'failed_start', 'failed_start']);
    // Newest first: the last start was not tried again.
    expect(within(rows[0]).getByTestId('loop-iteration-verdict').textContent).toBe('failed to start: given up');
    expect(within(rows[1]).getByTestId('loop-iteration-verdict').textContent).toBe('failed to start: tried again');
    expect(within(rows[0]).getByTestId('loop-iteration-reason').textContent).toBe('The agent ended (it exited with code 3): no API key set');
    expect(screen.queryByTestId('loop-cancel')).toBeNull();

    // Once the agent is fixed, the same loop starts again without retyping it.
    await fireEvent.click(within(detail).getByTestId('loop-start-again'));
    await waitFor(() => expect(callsOf(backend, 'start_loop')).toEqual([{ profileId: agent.id, settings }]));
    await waitFor(() => expect(screen.getByTestId('loop-detail-state').textContent).toBe('active'));
    expect(screen.getAllByTestId('loop-entry')).toHaveLength(2);
  });

  it('cancels with X and a confirmation, not from a text field', async () => {
    const { backend, info } = withStalledLoop();
    await renderApp(backend);
    await fireEvent.click(screen.getByTestId('loop-open'));
    const detail = await screen.findByTestId('loop-detail');
    await fireEvent.click(within(detail).getByTestId('loop-edit-anchor'));
    await fireEvent.keyDown(within(detail).getByTestId('loop-editor-anchor'), { key: 'x' });
    expect(screen.queryByTestId('loop-cancel-confirm')).toBeNull();
    await fireEvent.click(within(detail).getByTestId('loop-edit-cancel-anchor'));

    await fireEvent.keyDown(window, { key: 'x' });
    await fireEvent.click(await screen.findByTestId('loop-cancel-confirm'));
    await waitFor(() => expect(screen.getByTestId('loop-detail').getAttribute('data-state')).toBe('cancelled'));
    expect(callsOf(backend, 'cancel_loop')).toEqual([{ loopId: info.id }]);
    expect(screen.queryByTestId('loop-cancel')).toBeNull();
  });

  it('opens on the loop it was started for (a window a notification of the daemon’s opened)', async () => {
    const { backend, info } = withStalledLoop();
    backend.seedProfile({ name: 'other' });
    backend.startedToOpen({ kind: 'loop', id: info.id });
    await renderApp(backend);
    const detail = await screen.findByTestId('loop-detail');
    expect(detail.getAttribute('data-loop-id')).toBe(info.id);
  });

  it('opens the loop whose notification was clicked, and an iteration’s terminal', async () => {
    const { backend, info, session } = withStalledLoop();
    const other = backend.seedProfile({ name: 'other' });
    await renderApp(backend);
    await fireEvent.click(within(screen.getAllByTestId('profile-entry').find((e) => e.getAttribute('data-profile-id') === other.id)!).getByTestId('profile-select'));
    backend.clickLoopNotification(info.id);
    const detail = await screen.findByTestId('loop-detail');
    expect(detail.getAttribute('data-loop-id')).toBe(info.id);
    await fireEvent.click(within(detail).getAllByTestId('loop-iteration-terminal')[0]);
    expect(screen.queryByTestId('loop-detail')).toBeNull();
    expect(screen.getByTestId('session-view').getAttribute('data-session-id')).toBe(session.id);
  });
});

describe("what a loop spent, and its budget", () => {
  const spent = (input: number, cost_usd: number | null) => ({ tokens: { input, output: 0, cache_read: 0, cache_write: 0, by_model: [] }, cost_usd, list_price: false });

  it('starts a loop with a budget in dollars', async () => {
    const backend = new FakeBackend();
    backend.seedProfile({ name: 'looper' });
    await renderApp(backend);
    await fireEvent.click(screen.getByTestId('new-loop'));
    await fireEvent.input(screen.getByTestId('loop-goal'), { target: { value: 'Make the build green' } });
    await fireEvent.input(screen.getByTestId('loop-form-budget'), { target: { value: '5' } });
    await fireEvent.change(screen.getByTestId('loop-form-budget-unit'), { target: { value: 'usd' } });
    await fireEvent.click(screen.getByTestId('loop-start'));
    const detail = await screen.findByTestId('loop-detail');
    expect((callsOf(backend, 'start_loop')[0].settings as LoopInfo['settings']).budget).toEqual({ usd: 5 });
    expect(within(detail).getByTestId('loop-budget').textContent).toBe('0 % of $5.00 used');
    expect(within(detail).getByTestId('loop-spent').textContent).toBe('nothing yet');
  });

  it('shows each iteration’s spent and the whole loop’s, and a loop over budget in words', async () => {
    const backend = new FakeBackend();
    const agent = backend.seedProfile({ name: 'looper' });
    const iteration = (seq: number, input: number): Iteration => ({
      seq,
      number: seq,
      task_id: null,
      session_id: null,
      started_at: 1_000,
      outcome: { outcome: 'ended', at: 2_000, stop_reason: `did step ${seq}`, verdict: { verdict: 'continue' } },
      spent: spent(input, input / 10_000),
    });
    const info: LoopInfo = {
      id: 'loop-costly',
      profile_id: agent.id,
      settings: { ...settings, budget: { tokens: 50_000 } },
      created_at: 0,
      state: { state: 'over_budget', at: 3_000, budget: '50,000 tokens' },
      iterations: [iteration(1, 20_000), iteration(2, 32_000)],
      iteration_count: 2,
      iterations_run: 2,
      spent: spent(52_000, 5.2),
      budget_used: { used_percent: 104, mark: 'spent' },
    };
    backend.seedLoop(info);
    await renderApp(backend);
    await fireEvent.click(screen.getByTestId('loop-open'));
    const detail = await screen.findByTestId('loop-detail');

    expect(within(detail).getByTestId('loop-detail-state').textContent).toBe('over budget');
    expect(within(detail).getByTestId('loop-status').textContent).toBe('Stopped: it used its budget of 50,000 tokens');
    expect(within(detail).getByTestId('loop-over-budget').textContent).toContain('It used all of its budget of 50,000 tokens');
    expect(within(detail).getByTestId('loop-spent').textContent).toBe('52,000 tokens · $5.20');
    expect(within(detail).getByTestId('loop-budget').textContent).toBe('104 % of 50,000 tokens used');
    expect(within(detail).getAllByTestId('loop-iteration-spent').map((s) => s.textContent)).toEqual(['32,000 tokens · $3.20', '20,000 tokens · $2.00']);
    // It ended: nothing to resume or cancel.
    expect(within(detail).queryByTestId('loop-resume')).toBeNull();
    expect(within(detail).queryByTestId('loop-cancel')).toBeNull();
  });
});
