import { fireEvent, screen, waitFor, within } from '@testing-library/svelte';
import { describe, expect, it } from 'vitest';
import { FakeBackend } from '../lib/fakeBackend';
import { formatTime, resetWords } from '../lib/model';
import { callsOf, renderApp } from '../test/render';
import { automation, run, taskRun } from '../test/automations';
import { connectedEngine, connectedHost } from '../test/records';

/** The time the tests' automations fired and run next: local times, said as the window says them. */
const FIRED = new Date(2026, 10, 21, 9, 0).getTime();
const NEXT = Date.now() + 3 * 3600_000;

/** Two agents, one on another machine, and three automations as their engines tell them. */
function withAutomations() {
  const backend = new FakeBackend();
  const coder = backend.seedProfile({ name: 'coder' });
  const reviewer = backend.seedProfile({ name: 'reviewer' });
  const builder = backend.seedProfile({ name: 'builder', host: 'build-box' });
  const ported = backend.seedTask({ profile_id: coder.id, title: 'Port the parser', state: 'completed' });
  const morning = automation(coder.id, {
    id: 'morning',
    next_run: NEXT,
    zone: 'Europe/Paris',
    action: { does: 'task', instruction: 'Review the open pull requests', title: 'Morning review', budget: { tokens: 50000 }, time_limit_secs: null },
    runs: [
      run(1, FIRED - 86_400_000, 'its schedule (weekdays 09:00)', taskRun(ported.id, 'completed', 0.42)),
      run(2, FIRED, "its schedule (weekdays 09:00), caught up once: 5 runs were missed while the engine was not running (or the machine slept)", {
        outcome: 'skipped',
        why: "skipped: its last run's task is still at work",
      }),
    ],
  });
  const chain = automation(reviewer.id, {
    id: 'chain',
    trigger: { on: 'task_ended', profile_id: coder.id, ended: 'completed' },
    action: { does: 'task', instruction: 'Review what coder did', title: null, budget: null, time_limit_secs: null },
  });
  const failing = automation(builder.id, {
    id: 'failing',
    host: 'build-box',
    trigger: { on: 'every', every: '2h' },
    state: { state: 'paused', at: FIRED, why: { by: 'failing', failures: 5, last: 'failed' } },
    action: {
      does: 'loop',
      settings: { goal: 'Keep the nightly build green', stop_word: 'LOOP_COMPLETE', promise: null, max_iterations: 10, stall_after: 5, iteration_time_limit_secs: null },
    },
    runs: [run(1, FIRED, 'run now', { outcome: 'loop', loop_id: 'loop-7', state: 'stalled' })],
  });
  for (const a of [morning, chain, failing]) backend.seedAutomation(a);
  return { backend, coder, reviewer, builder, ported, morning, chain, failing };
}

const entryOf = (id: string) => {
  const entry = screen.getAllByTestId('automation-entry').find((e) => e.dataset.automationId === id);
  if (!entry) throw new Error(`no entry of ${id}`);
  return entry;
};
const text = (root: HTMLElement, testid: string) => within(root).getByTestId(testid).textContent?.trim();

describe('the automations view', () => {
  it('lists every machine’s automations with their agent, when, zone, next and last run and state, and says where they run', async () => {
    const { backend } = withAutomations();
    await renderApp(backend);
    expect(screen.getByTestId('open-automations-count').textContent).toBe('3');
    expect(screen.getByTestId('open-automations-paused').textContent).toBe('1 paused');
    await fireEvent.click(screen.getByTestId('open-automations'));
    const view = screen.getByTestId('automations-view');
    // No login service runs this computer's engine (the fake's, unless told); build-box's link is not known.
    expect(within(view).getByTestId('automations-engine-note').textContent).toBe(
      'Automations on this computer fire only while the engine runs: switchboard daemon --install starts it at each login.',
    );
    // The soonest first, then the chain, then the paused.
    expect(within(view).getAllByTestId('automation-entry').map((e) => e.dataset.automationId)).toEqual(['morning', 'chain', 'failing']);

    const morning = entryOf('morning');
    expect(text(morning, 'automation-name')).toBe('Morning review');
    expect(text(morning, 'automation-agent')).toBe('coder');
    expect(text(morning, 'automation-when')).toBe('weekdays 09:00 · Europe/Paris');
    expect(text(morning, 'automation-next')).toBe(`next: ${resetWords(NEXT, Date.now())}`);
    expect(text(morning, 'automation-last')).toBe(`last: ${formatTime(FIRED, new Date())} · skipped: its last run's task is still at work`);
    expect(text(morning, 'automation-state')).toBe('active');
    expect(within(morning).queryByTestId('automation-why')).toBeNull();

    const chain = entryOf('chain');
    expect(text(chain, 'automation-name')).toBe('Review what coder did');
    expect(text(chain, 'automation-agent')).toBe('reviewer');
    expect(text(chain, 'automation-when')).toBe("after coder's tasks complete");
    expect(within(chain).queryByTestId('automation-next')).toBeNull();
    expect(text(chain, 'automation-last')).toBe('last: not run yet');

    const failing = entryOf('failing');
    expect(failing.dataset.state).toBe('paused');
    expect(text(failing, 'automation-agent')).toBe('builderon build-box');
    expect(text(failing, 'automation-when')).toBe('every 2h');
    expect(text(failing, 'automation-next')).toBe('next: paused');
    expect(text(failing, 'automation-last')).toBe(`last: ${formatTime(FIRED, new Date())} · loop stalled`);
    expect(text(failing, 'automation-why')).toBe('paused itself: its last 5 runs ended badly (the last: failed)');
    // No id is ever said.
    expect(view.textContent).not.toMatch(/profile-\d|automation-\d|morning|loop-7/);
  });

  it('follows the engines’ events: a new automation joins, a change shows, a removed one leaves', async () => {
    const { backend, coder, morning } = withAutomations();
    await renderApp(backend);
    await fireEvent.click(screen.getByTestId('open-automations'));
    backend.seedAutomation(automation(coder.id, { id: 'later', trigger: { on: 'rule', rrule: 'FREQ=MONTHLY;BYMONTHDAY=1' }, next_run: NEXT + 1 }));
    await waitFor(() => expect(screen.getAllByTestId('automation-entry')).toHaveLength(4));
    expect(text(entryOf('later'), 'automation-when')).toBe('RRULE FREQ=MONTHLY;BYMONTHDAY=1');
    backend.seedAutomation({ ...morning, state: { state: 'paused', at: FIRED, why: { by: 'user' } }, next_run: null });
    await waitFor(() => expect(entryOf('morning').dataset.state).toBe('paused'));
    expect(text(entryOf('morning'), 'automation-why')).toBe('paused by you');
    await backend.removeAutomation('later');
    await waitFor(() => expect(screen.getAllByTestId('automation-entry')).toHaveLength(3));
    expect(screen.getByTestId('open-automations-count').textContent).toBe('3');
  });

  it('opens from the command palette, and closes with Escape', async () => {
    const { backend } = withAutomations();
    await renderApp(backend);
    await fireEvent.click(screen.getByTestId('open-palette'));
    await fireEvent.input(await screen.findByTestId('palette-input'), { target: { value: 'automations' } });
    const item = screen.getAllByTestId('palette-item').find((i) => i.dataset.command === 'automations');
    expect(item).toBeTruthy();
    await fireEvent.click(item as HTMLElement);
    expect(await screen.findByTestId('automations-view')).toBeTruthy();
    await fireEvent.keyDown(window, { key: 'Escape' });
    expect(screen.queryByTestId('automations-view')).toBeNull();
  });

  it('says there is none yet', async () => {
    const backend = new FakeBackend();
    backend.seedProfile({ name: 'coder' });
    await renderApp(backend);
    await fireEvent.click(screen.getByTestId('open-automations'));
    expect(screen.getByTestId('automations-none').textContent).toMatch(/None yet/);
  });
});

describe('an automation’s detail', () => {
  it('says its spec in words and its history newest first, each run’s work a click away', async () => {
    const { backend, ported } = withAutomations();
    await renderApp(backend);
    await fireEvent.click(screen.getByTestId('open-automations'));
    await fireEvent.click(within(entryOf('morning')).getByTestId('automation-open'));
    const detail = await screen.findByTestId('automation-detail');
    expect(text(detail, 'automation-detail-name')).toBe('Morning review');
    expect(text(detail, 'automation-detail-agent')).toBe('coder');
    expect(text(detail, 'automation-detail-when')).toBe('weekdays 09:00');
    expect(text(detail, 'automation-detail-zone')).toBe('Europe/Paris');
    expect(text(detail, 'automation-detail-next')).toBe(resetWords(NEXT, Date.now()));
    expect(text(detail, 'automation-detail-state-words')).toBe('active');
    expect(text(detail, 'automation-detail-does')).toBe('queues a task, with a budget of 50,000 tokens');
    expect(text(detail, 'automation-detail-catch-up')).toBe('while the engine was not running: run once for all of them');
    expect(text(detail, 'automation-detail-overlap')).toBe('when its last run is still at work, the new run is skipped');
    expect(text(detail, 'automation-detail-cap')).toBe('at most 6 runs an hour');
    expect(text(detail, 'automation-detail-text')).toBe('Review the open pull requests');

    const runs = within(detail).getAllByTestId('automation-run');
    expect(runs.map((r) => r.dataset.seq)).toEqual(['2', '1']);
    expect(runs[0].dataset.outcome).toBe('skipped');
    expect(text(runs[0], 'automation-run-reason')).toMatch(/caught up once: 5 runs were missed/);
    expect(text(runs[0], 'automation-run-skipped')).toBe("skipped: its last run's task is still at work");
    expect(text(runs[0], 'automation-run-time')).toBe(formatTime(FIRED, new Date()));
    expect(text(runs[1], 'automation-run-reason')).toBe('its schedule (weekdays 09:00)');
    expect(text(runs[1], 'automation-run-task')).toBe('Port the parser');
    expect(text(runs[1], 'automation-run-task-state')).toBe('completed');
    expect(text(runs[1], 'automation-run-cost')).toBe('$0.42');

    await fireEvent.click(within(runs[1]).getByTestId('automation-run-task'));
    const task = await screen.findByTestId('task-detail');
    expect(screen.queryByTestId('automation-detail')).toBeNull();
    expect(task.textContent).toContain('Port the parser');
    expect(ported.id).toBeTruthy();
  });

  it('fetches a run’s task the window does not list before opening it', async () => {
    const { backend, coder } = withAutomations();
    await renderApp(backend);
    const old = backend.seedTask({ profile_id: coder.id, title: 'An old review', state: 'failed' });
    backend.seedAutomation(automation(coder.id, { id: 'old', runs: [run(1, FIRED, 'run now', taskRun(old.id, 'failed'))] }));
    await fireEvent.click(screen.getByTestId('open-automations'));
    await fireEvent.click(within(await waitFor(() => entryOf('old'))).getByTestId('automation-open'));
    const row = within(await screen.findByTestId('automation-detail')).getByTestId('automation-run');
    expect(text(row, 'automation-run-task')).toBe('its task');
    await fireEvent.click(within(row).getByTestId('automation-run-task'));
    expect((await screen.findByTestId('task-detail')).textContent).toContain('An old review');
    expect(callsOf(backend, 'get_task')).toEqual([{ taskId: old.id }]);
  });

  it('says why an automation paused itself, and its loop run', async () => {
    const { backend } = withAutomations();
    await renderApp(backend);
    await fireEvent.click(screen.getByTestId('open-automations'));
    await fireEvent.click(within(entryOf('failing')).getByTestId('automation-open'));
    const detail = await screen.findByTestId('automation-detail');
    expect(text(detail, 'automation-paused-why')).toMatch(/^It paused itself: its last 5 runs ended badly \(the last: failed\)\./);
    expect(text(detail, 'automation-detail-agent')).toBe('builderon build-box');
    expect(text(detail, 'automation-detail-next')).toBe('paused');
    expect(text(detail, 'automation-detail-does')).toBe('starts a loop');
    expect(text(detail, 'automation-run-loop-state')).toBe('stalled');
    expect(within(detail).queryByTestId('automation-pause')).toBeNull();
    expect(within(detail).getByTestId('automation-resume')).toBeTruthy();
  });

  it('says where a branch automation last saw its branch, and no next run', async () => {
    const backend = new FakeBackend();
    const coder = backend.seedProfile({ name: 'coder' });
    const branch = automation(coder.id, {
      id: 'branch',
      trigger: { on: 'branch_moved', repo: '/home/me/app', branch: 'main' },
      branch_at: '65380d91b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8',
      action: { does: 'task', instruction: 'Test what landed', title: null, budget: null, time_limit_secs: null },
    });
    backend.seedAutomation(branch);
    await renderApp(backend);
    await fireEvent.click(screen.getByTestId('open-automations'));
    await fireEvent.click(within(entryOf('branch')).getByTestId('automation-open'));
    const detail = await screen.findByTestId('automation-detail');
    expect(text(detail, 'automation-detail-when')).toBe('when main moves in /home/me/app');
    expect(text(detail, 'automation-detail-branch-at')).toBe('main is at 65380d91b3');
    expect(within(detail).queryByTestId('automation-detail-next')).toBeNull();
  });

  it('pauses, resumes, runs now and removes it through the engine', async () => {
    const { backend, morning, ported } = withAutomations();
    await renderApp(backend);
    await fireEvent.click(screen.getByTestId('open-automations'));
    await fireEvent.click(within(entryOf('morning')).getByTestId('automation-open'));
    const detail = await screen.findByTestId('automation-detail');

    await fireEvent.click(within(detail).getByTestId('automation-pause'));
    await waitFor(() => expect(screen.getByTestId('automation-detail').dataset.state).toBe('paused'));
    expect(callsOf(backend, 'pause_automation')).toEqual([{ automationId: 'morning' }]);
    expect(text(entryOf('morning'), 'automation-why')).toBe('paused by you');

    await fireEvent.click(within(screen.getByTestId('automation-detail')).getByTestId('automation-resume'));
    await waitFor(() => expect(screen.getByTestId('automation-detail').dataset.state).toBe('active'));
    expect(callsOf(backend, 'resume_automation')).toEqual([{ automationId: 'morning' }]);

    // What the run made is the engine's: it answers with the run in its history.
    backend.answerNext('run_automation_now', { ...morning, runs: [...morning.runs, run(3, Date.now(), 'run now', taskRun(ported.id, 'queued'))] });
    await fireEvent.click(within(screen.getByTestId('automation-detail')).getByTestId('automation-run-now'));
    expect(callsOf(backend, 'run_automation_now')).toEqual([{ automationId: 'morning' }]);
    await waitFor(() => expect(within(screen.getByTestId('automation-detail')).getAllByTestId('automation-run')[0].dataset.seq).toBe('3'));
    expect(text(within(screen.getByTestId('automation-detail')).getAllByTestId('automation-run')[0], 'automation-run-reason')).toBe('run now');

    await fireEvent.click(within(screen.getByTestId('automation-detail')).getByTestId('automation-remove'));
    expect(text(screen.getByTestId('automation-detail'), 'automation-remove-question')).toBe('Remove “Morning review”? It starts nothing more, and its history goes with it.');
    expect(callsOf(backend, 'remove_automation')).toEqual([]);
    await fireEvent.click(screen.getByTestId('automation-remove-keep'));
    expect(screen.queryByTestId('automation-remove-question')).toBeNull();
    await fireEvent.click(screen.getByTestId('automation-remove'));
    await fireEvent.click(screen.getByTestId('automation-remove-confirm'));
    await waitFor(() => expect(screen.queryByTestId('automation-detail')).toBeNull());
    expect(callsOf(backend, 'remove_automation')).toEqual([{ automationId: 'morning' }]);
    expect(screen.getAllByTestId('automation-entry').map((e) => e.dataset.automationId)).toEqual(['chain', 'failing']);
  });

  it('says a refusal in words', async () => {
    const { backend } = withAutomations();
    await renderApp(backend);
    await fireEvent.click(screen.getByTestId('open-automations'));
    await fireEvent.click(within(entryOf('morning')).getByTestId('automation-open'));
    backend.failNext('run_automation_now', { code: 'invalid_input', message: 'coder was deleted: the automation cannot run', field: null });
    await fireEvent.click(screen.getByTestId('automation-run-now'));
    expect((await screen.findByTestId('automation-detail-error')).textContent).toBe('Coder was deleted: the automation cannot run.');
  });
});

describe('the note on where automations fire', () => {
  const here = (startsAtLogin: boolean, connection = 1) => connectedEngine(null, startsAtLogin, connection);

  it('says this computer’s automations fire only while its engine runs, where no login service runs it, in the list, the form and the detail', async () => {
    const { backend } = withAutomations();
    await renderApp(backend);
    await fireEvent.click(screen.getByTestId('open-automations'));
    const said = 'Automations on this computer fire only while the engine runs: switchboard daemon --install starts it at each login.';
    expect(screen.getByTestId('automations-engine-note').textContent).toBe(said);
    await fireEvent.click(within(entryOf('morning')).getByTestId('automation-open'));
    expect((await screen.findByTestId('automation-detail-engine-note')).textContent).toBe(said);
    await fireEvent.click(screen.getByTestId('automation-new'));
    expect((await screen.findByTestId('automation-form-engine-note')).textContent).toBe(said);
  });

  it('says nothing where the login service runs the engine, and follows the link as it changes', async () => {
    const { backend } = withAutomations();
    backend.setEngineLink(here(true));
    await renderApp(backend);
    await fireEvent.click(screen.getByTestId('open-automations'));
    await fireEvent.click(within(entryOf('morning')).getByTestId('automation-open'));
    await screen.findByTestId('automation-detail');
    expect(screen.queryByTestId('automations-engine-note')).toBeNull();
    expect(screen.queryByTestId('automation-detail-engine-note')).toBeNull();
    // The engine the window reaches next is one no login service runs.
    backend.setEngineLink(here(false, 2));
    await waitFor(() => expect(screen.getByTestId('automations-engine-note')).toBeTruthy());
    // Not reached, nothing is known of it: nothing is said.
    backend.setEngineLink({ state: 'lost', reason: 'The engine stopped.', host: null });
    await waitFor(() => expect(screen.queryByTestId('automations-engine-note')).toBeNull());
  });

  it('names another machine whose engine no login service runs', async () => {
    const { backend } = withAutomations();
    backend.setEngineLink(here(true));
    backend.setHostLink({ destination: 'build-box', link: connectedHost('build-box') });
    await renderApp(backend);
    await fireEvent.click(screen.getByTestId('open-automations'));
    expect((await screen.findByTestId('automations-engine-note')).textContent).toBe(
      'Automations on build-box fire only while the engine runs: switchboard daemon --install there starts it at each login.',
    );
    backend.setEngineLink(here(false, 2));
    await waitFor(() =>
      expect(screen.getByTestId('automations-engine-note').textContent).toBe(
        'Automations on this computer and build-box fire only while their engines run: switchboard daemon --install on each starts its engine at each login.',
      ),
    );
    backend.setHostLink({ destination: 'build-box', link: connectedEngine('build-box', true) });
    await waitFor(() =>
      expect(screen.getByTestId('automations-engine-note').textContent).toBe(
        'Automations on this computer fire only while the engine runs: switchboard daemon --install starts it at each login.',
      ),
    );
  });
});
