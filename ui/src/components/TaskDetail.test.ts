import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import { tick } from 'svelte';
import { afterEach, describe, expect, it } from 'vitest';
import type { Viewing, ProfileId, TaskResult, TaskSpec } from '../lib/bindings';
import { FakeBackend } from '../lib/fakeBackend';
import { DEMO_TASK, sampleResult } from '../test/records';
import App from '../App.svelte';
import { fakeTerminals } from '../test/fakeTerminal';
import { callsOf, renderApp } from '../test/render';
import { worktree } from '../test/worktrees';

declare global {
  interface Window {
    __pwned?: number;
  }
}

afterEach(() => {
  delete window.__pwned;
});

const spec = (profile_id: ProfileId, instruction: string): TaskSpec => ({
  ...DEMO_TASK,
  profile_id,
  instruction,
});

async function openDetail(title: string) {
  const entry = screen.getAllByTestId('task-entry').find((e) => within(e).getByTestId('task-open').textContent?.trim() === title);
  if (!entry) throw new Error(`no task entry ${title}`);
  await fireEvent.click(within(entry).getByTestId('task-open'));
  return screen.getByTestId('task-detail');
}

/** An agent with a completed task whose result is `result(taskId)`. */
function finishedWith(result: (taskId: string) => TaskResult, extra: { instruction?: string; success_criteria?: string } = {}) {
  const backend = new FakeBackend();
  const agent = backend.seedProfile({ name: 'agent' });
  const seeded = backend.seedTask({ profile_id: agent.id, instruction: 'Build it\n\nwith <b>care</b>', state: 'completed', ended_at: 5, ...extra });
  backend.seedTask({ ...seeded, result: result(seeded.id) });
  return { backend, agent, task: seeded };
}

describe('task detail', () => {
  it('shows the task, and tells the shell which task is on screen', async () => {
    const { backend, task } = finishedWith((id) => sampleResult(id), { success_criteria: 'it builds' });
    const { container } = await renderApp(backend);

    const detail = await openDetail('Build it');
    expect(detail.getAttribute('data-task-id')).toBe(task.id);
    expect(detail.getAttribute('data-state')).toBe('completed');
    // The instruction in full, as text.
    expect(within(detail).getByTestId('task-detail-instruction').textContent).toBe('Build it\n\nwith <b>care</b>');
    expect(container.querySelector('b')).toBeNull();
    expect(within(detail).getByTestId('task-detail-success-criteria').textContent).toBe('it builds');
    expect(within(detail).getByTestId('task-result-status').textContent).toBe('completed');
    expect(within(detail).getByTestId('task-test-counts').textContent?.trim()).toBe('3 passed · ? failed');
    expect(within(detail).queryByTestId('task-fallback-marker')).toBeNull();
    expect(backend.viewedTask).toBe(task.id);

    await fireEvent.click(within(detail).getByTestId('task-detail-close'));
    expect(screen.queryByTestId('task-detail')).toBeNull();
    // The shell and the engine hear what is on screen: the task, with its agent, then no task.
    const told = callsOf(backend, 'set_viewing').map((call) => (call as { viewing: Viewing }).viewing);
    expect(told.at(-2)).toMatchObject({ profile_id: task.profile_id, task_id: task.id });
    expect(told.at(-1)).toMatchObject({ profile_id: task.profile_id, task_id: null });
  });

  it('renders the summary as Markdown', async () => {
    const { backend } = finishedWith((id) => sampleResult(id));
    await renderApp(backend);
    const detail = await openDetail('Build it');
    const summary = within(detail).getByTestId('task-summary');
    expect([...summary.querySelectorAll('h2')].map((h) => h.textContent)).toContain('Key Deliverables');
    expect(summary.querySelector('li code')?.textContent).toBe('src/done.txt');
  });

  it('renders a hostile summary without running or keeping anything active', async () => {
    const hostile = [
      '# Task Completion Summary',
      '<img src=x onerror="window.__pwned=1">',
      '<script>window.__pwned=1</script>',
      '[click me](javascript:window.__pwned=1)',
      '<a href="javascript:window.__pwned=1" onclick="window.__pwned=1">raw link</a>',
      '<iframe src="https://evil.example"></iframe><form action="https://evil.example"><input name=q></form>',
      '<div style="position:fixed;inset:0" onmouseover="window.__pwned=1">cover</div>',
    ].join('\n\n');
    const { backend } = finishedWith((id) =>
      sampleResult(id, { artifacts: [{ path: `summaries/${id}.md`, content: hostile, size: hostile.length, truncated: false }] }),
    );
    await renderApp(backend);
    const detail = await openDetail('Build it');
    const summary = within(detail).getByTestId('task-summary');

    expect(summary.querySelector('h1')?.textContent).toBe('Task Completion Summary');
    expect(summary.querySelector('script, img, iframe, form, input, style')).toBeNull();
    for (const element of summary.querySelectorAll('*')) {
      for (const attribute of element.getAttributeNames()) {
        expect(attribute.startsWith('on') || attribute === 'style' || attribute === 'href' || attribute === 'src').toBe(false);
      }
    }
    expect(summary.innerHTML).not.toMatch(/javascript:|onerror|onclick|onmouseover/);
    const links = [...summary.querySelectorAll('a')];
    expect(links.map((a) => a.textContent)).toEqual(['click me', 'raw link']);

    // Clicking what is left of a link goes nowhere.
    const click = new MouseEvent('click', { bubbles: true, cancelable: true });
    links[0].dispatchEvent(click);
    expect(click.defaultPrevented).toBe(true);
    expect(window.__pwned).toBeUndefined();
  });

  it('marks a fallback summary and shows the parsed fields', async () => {
    const { backend } = finishedWith((id) =>
      sampleResult(id, {
        fallback: true,
        artifacts: [],
        summary: { objective: 'guessed', accomplishments: [], deliverables: [], test_results: '', tests: { passed: 4, failed: 1 }, notes: [], status: 'partial' },
      }),
    );
    await renderApp(backend);
    const detail = await openDetail('Build it');
    expect(within(detail).getByTestId('task-fallback-marker').textContent).toContain('Fallback summary — the agent wrote none');
    expect(within(detail).getByTestId('task-result-status').textContent).toBe('partial');
    expect(within(detail).getByTestId('task-test-counts').textContent?.trim()).toBe('4 passed · 1 failed');
    // Built from the parsed fields, since there is no summary file.
    expect(within(detail).getByTestId('task-summary').textContent).toContain('guessed');
    expect(within(detail).getByTestId('task-status-label').textContent).toBe('completed · partial');
  });

  it('reads a task its agent says failed as failed, with the agent\'s reason and its summary kept', async () => {
    const backend = new FakeBackend();
    const agent = backend.seedProfile({ name: 'agent' });
    const seeded = backend.seedTask({ profile_id: agent.id, instruction: 'Migrate the tables', state: 'failed', ended_at: 5 });
    const failedSummary = sampleResult(seeded.id);
    failedSummary.summary.status = 'failed';
    failedSummary.artifacts[0].content = failedSummary.artifacts[0].content.replace('✅ COMPLETED', '❌ FAILED: the database is unreachable');
    backend.seedTask({ ...seeded, reason: 'the agent says it failed: the database is unreachable', result: failedSummary });
    await renderApp(backend);

    const detail = await openDetail('Migrate the tables');
    expect(detail.getAttribute('data-state')).toBe('failed');
    expect(within(detail).getByTestId('task-state').textContent).toBe('failed');
    expect(within(detail).queryByTestId('task-status-label')).toBeNull();
    expect(within(detail).getByTestId('task-reason').textContent).toBe('the agent says it failed: the database is unreachable');
    expect(within(detail).getByTestId('task-result-status').textContent).toBe('failed');
    expect(within(detail).getByTestId('task-summary').textContent).toContain('the database is unreachable');
    // The list says the same.
    const entry = screen.getAllByTestId('task-entry').find((e) => within(e).queryByText('Migrate the tables'));
    expect(entry && within(entry).getByTestId('task-state').getAttribute('data-state')).toBe('failed');
  });

  it('shows artifacts as plain text, one at a time, and says when one was cut', async () => {
    const { backend } = finishedWith((id) =>
      sampleResult(id, {
        artifacts: [
          { path: `summaries/${id}.md`, content: '# Summary', size: 9, truncated: false },
          { path: 'src/page.html', content: '<script>window.__pwned=1</script><b>bold</b>', size: 44, truncated: false },
          { path: 'big.log', content: 'line 1\nline 2', size: 999_999, truncated: true },
        ],
        rejected: [
          { path: '../../etc/passwd', reason: 'outside the workspace' },
          { path: 'missing.txt', reason: 'no such file' },
        ],
        errors: 'E1: <img src=x onerror="window.__pwned=1">',
        results_json: '{"passed":3,"failed":0}',
      }),
    );
    const { container } = await renderApp(backend);
    const detail = await openDetail('Build it');

    const artifacts = within(detail).getAllByTestId('task-artifact');
    // The summary is shown once, above: its file is not listed again.
    expect(artifacts.map((a) => a.getAttribute('data-path'))).toEqual(['src/page.html', 'big.log']);
    expect(within(detail).getAllByTestId('task-summary')).toHaveLength(1);
    expect(within(detail).queryByTestId('task-artifact-content')).toBeNull();

    await fireEvent.click(artifacts[0]);
    const content = within(detail).getByTestId('task-artifact-content');
    expect(content.tagName).toBe('PRE');
    expect(content.textContent).toBe('<script>window.__pwned=1</script><b>bold</b>');
    expect(content.children).toHaveLength(0);
    expect(within(detail).queryByTestId('task-artifact-truncated')).toBeNull();

    // Open and Show in folder ask the shell about the file the task returned, by its path.
    const row = artifacts[0].closest('li')!;
    await fireEvent.click(within(row).getByTestId('task-artifact-open'));
    await fireEvent.click(within(row).getByTestId('task-artifact-reveal'));
    expect(callsOf(backend, 'open_artifact').map((c) => [c.path, c.reveal])).toEqual([
      ['src/page.html', false],
      ['src/page.html', true],
    ]);
    backend.failNext('open_artifact', { code: 'io', message: 'No app could open src/page.html on this desktop.', field: null });
    await fireEvent.click(within(row).getByTestId('task-artifact-open'));
    expect((await within(detail).findByTestId('task-artifact-error')).textContent).toContain('No app could open src/page.html');

    await fireEvent.click(artifacts[1]);
    expect(within(detail).getByTestId('task-artifact-content').textContent).toBe('line 1\nline 2');
    expect(within(detail).getByTestId('task-artifact-truncated')).toBeTruthy();

    const rejected = within(detail).getAllByTestId('task-rejected');
    expect(rejected.map((r) => r.getAttribute('data-path'))).toEqual(['../../etc/passwd', 'missing.txt']);
    expect(rejected[0].textContent).toContain('outside the workspace');

    expect(within(detail).getByTestId('task-errors').textContent).toBe('E1: <img src=x onerror="window.__pwned=1">');
    expect(within(detail).getByTestId('task-results-json').textContent).toBe('{\n  "passed": 3,\n  "failed": 0\n}');
    expect(container.querySelector('img, script, b')).toBeNull();
    expect(window.__pwned).toBeUndefined();
  });

  it('shows a running task\'s progress live, its timeline, and cancels it', async () => {
    const backend = new FakeBackend();
    const agent = backend.seedProfile({ name: 'agent' });
    backend.seedSession(agent.id, { state: 'running', pid: 3 });
    const { task } = await backend.submitTask(spec(agent.id, 'long job'));
    await renderApp(backend);
    const detail = await openDetail('long job');
    await tick();

    const timeline = () => within(screen.getByTestId('task-timeline')).queryAllByRole('listitem').map((li) => li.textContent);
    expect(timeline()).toEqual([
      expect.stringContaining('Queued'),
      expect.stringContaining('Taken from the queue'),
      expect.stringContaining('Typed into the agent'),
    ]);
    expect(within(detail).queryByTestId('task-progress')).toBeNull();

    backend.setProgress(task.id, 'compiling');
    await tick();
    expect(within(screen.getByTestId('task-detail')).getByTestId('task-progress').textContent).toBe('compiling');

    await fireEvent.click(within(screen.getByTestId('task-detail')).getByTestId('task-cancel'));
    await tick();
    expect(screen.getByTestId('task-detail').getAttribute('data-state')).toBe('cancelled');
    expect(screen.getByTestId('task-reason').textContent).toBe('cancelled while it ran');
    expect(timeline().at(-1)).toContain('Ended cancelled: cancelled while it ran');
  });

  it('says where a queued task stands', async () => {
    const backend = new FakeBackend();
    const agent = backend.seedProfile({ name: 'agent' });
    const { task: first } = await backend.submitTask(spec(agent.id, 'first'));
    await backend.submitTask(spec(agent.id, 'second'));
    await renderApp(backend);
    const detail = await openDetail('second');
    expect(within(detail).getByTestId('task-status-label').textContent).toBe(`queued · position 1 · waiting for ${first.id.slice(0, 8)}`);
  });

  it('opens the task of a clicked notification, on its agent', async () => {
    const backend = new FakeBackend();
    const other = backend.seedProfile({ name: 'other' });
    const agent = backend.seedProfile({ name: 'agent' });
    backend.seedSession(other.id, { state: 'running', pid: 1 });
    const done = backend.seedTask({ profile_id: agent.id, instruction: 'notified', state: 'failed', ended_at: 3, reason: 'the agent exited' });
    await renderApp(backend);
    expect(screen.getByTestId('session-view')).toBeTruthy();

    backend.openTask(done.id);
    const detail = await screen.findByTestId('task-detail');
    expect(detail.getAttribute('data-task-id')).toBe(done.id);
    expect(screen.getByTestId('profile-view').getAttribute('data-profile-id')).toBe(agent.id);
    expect(within(detail).getByTestId('task-reason').textContent).toBe('the agent exited');
    expect(backend.viewedTask).toBe(done.id);

    // Selecting something else closes the detail, and the shell hears of it.
    await fireEvent.click(within(screen.getAllByTestId('profile-entry')[0]).getByTestId('profile-select'));
    expect(screen.queryByTestId('task-detail')).toBeNull();
    expect(backend.viewedTask).toBeNull();
  });

  it('closes on Escape, but not when Escape closes the task form', async () => {
    const { backend } = finishedWith((id) => sampleResult(id));
    await renderApp(backend);
    await openDetail('Build it');

    await fireEvent.click(screen.getByTestId('new-task'));
    await fireEvent.keyDown(screen.getByTestId('task-instruction'), { key: 'Escape' });
    expect(screen.queryByTestId('task-form')).toBeNull();
    expect(screen.getByTestId('task-detail')).toBeTruthy();

    await fireEvent.keyDown(window, { key: 'Escape' });
    expect(screen.queryByTestId('task-detail')).toBeNull();
    expect(backend.viewedTask).toBeNull();
  });

  it('opens on the task it was started for, once (a window a notification of the daemon’s opened)', async () => {
    const backend = new FakeBackend();
    const other = backend.seedProfile({ name: 'other' });
    const agent = backend.seedProfile({ name: 'agent' });
    backend.seedSession(other.id, { state: 'running', pid: 1 });
    const done = backend.seedTask({ profile_id: agent.id, instruction: 'done while no window ran', state: 'completed', ended_at: 3 });
    backend.startedToOpen({ kind: 'task', id: done.id });
    await renderApp(backend);

    const detail = await screen.findByTestId('task-detail');
    expect(detail.getAttribute('data-task-id')).toBe(done.id);
    expect(screen.getByTestId('profile-view').getAttribute('data-profile-id')).toBe(agent.id);
    expect(backend.viewedTask).toBe(done.id);

    // Loaded again (its engine came back), the window stays where the user is.
    cleanup();
    await renderApp(backend);
    expect(screen.queryByTestId('task-detail')).toBeNull();
    expect(callsOf(backend, 'take_open_target')).toEqual([{}, {}]);
  });

  it('comes onto the agent or task a second launch of the app was asked to open', async () => {
    const backend = new FakeBackend();
    const busy = backend.seedProfile({ name: 'busy' });
    const idle = backend.seedProfile({ name: 'idle' });
    const session = backend.seedSession(busy.id, { state: 'running', pid: 1 });
    const done = backend.seedTask({ profile_id: idle.id, instruction: 'done', state: 'completed', ended_at: 3 });
    await renderApp(backend);

    // An agent with a running session: that session.
    backend.launchedAgain({ kind: 'agent', id: busy.id });
    await waitFor(() => expect(screen.getByTestId('session-view').getAttribute('data-session-id')).toBe(session.id));
    // One without: the agent.
    backend.launchedAgain({ kind: 'agent', id: idle.id });
    await waitFor(() => expect(screen.getByTestId('profile-view').getAttribute('data-profile-id')).toBe(idle.id));
    // A task: its details.
    backend.launchedAgain({ kind: 'task', id: done.id });
    const detail = await screen.findByTestId('task-detail');
    expect(detail.getAttribute('data-task-id')).toBe(done.id);
  });

  it('shows a notified task once the app has loaded, when the click came first', async () => {
    const backend = new FakeBackend();
    const agent = backend.seedProfile({ name: 'agent' });
    const done = backend.seedTask({ profile_id: agent.id, instruction: 'early', state: 'completed', ended_at: 1 });
    render(App, { props: { backend, terminals: fakeTerminals().factory } });
    backend.openTask(done.id);

    expect((await screen.findByTestId('task-detail')).getAttribute('data-task-id')).toBe(done.id);
    expect(callsOf(backend, 'get_task')).toEqual([]);
  });

  it('fetches a notified task the lists do not have', async () => {
    const backend = new FakeBackend();
    const agent = backend.seedProfile({ name: 'agent' });
    await renderApp(backend);
    // Created behind the app's back: no event announced it.
    const hidden = backend.seedTask({ profile_id: agent.id, instruction: 'unseen', state: 'completed', ended_at: 1 });

    backend.openTask(hidden.id);
    const detail = await screen.findByTestId('task-detail');
    expect(detail.getAttribute('data-task-id')).toBe(hidden.id);
    expect(callsOf(backend, 'get_task')).toEqual([{ taskId: hidden.id }]);
  });

  it('requeues a finished task from its detail', async () => {
    const backend = new FakeBackend();
    const agent = backend.seedProfile({ name: 'agent' });
    const timedOut = backend.seedTask({ profile_id: agent.id, instruction: 'slow', state: 'timed_out', ended_at: 2 });
    await renderApp(backend);
    const detail = await openDetail('slow');
    await fireEvent.click(within(detail).getByTestId('task-requeue'));
    expect(callsOf(backend, 'requeue_task')).toEqual([{ taskId: timedOut.id }]);
    // Nothing else runs, so it starts at once.
    expect(screen.getByTestId('task-detail').getAttribute('data-state')).toBe('running');
  });

  it('is named by its first line, renamed in place, and a blank name gives the first line back', async () => {
    const { backend, task } = finishedWith((id) => sampleResult(id));
    await renderApp(backend);
    const detail = await openDetail('Build it');
    expect(within(detail).getByTestId('task-detail-title').textContent).toBe('Build it');
    expect(detail.textContent).not.toContain(task.id.slice(0, 8));

    await fireEvent.click(within(detail).getByTestId('task-rename'));
    const input = within(detail).getByTestId('task-title-input') as HTMLInputElement;
    expect(input.value).toBe('Build it');
    await fireEvent.input(input, { target: { value: 'The release build' } });
    await fireEvent.keyDown(input, { key: 'Enter' });
    await waitFor(() => expect(within(detail).getByTestId('task-detail-title').textContent).toBe('The release build'));
    expect(callsOf(backend, 'edit_task')).toEqual([{ taskId: task.id, title: 'The release build', instruction: null }]);
    // The task's card says the new name too.
    expect(screen.getAllByTestId('task-open').map((b) => b.textContent?.trim())).toContain('The release build');

    await fireEvent.click(within(detail).getByTestId('task-rename'));
    await fireEvent.input(within(detail).getByTestId('task-title-input'), { target: { value: '   ' } });
    await fireEvent.keyDown(within(detail).getByTestId('task-title-input'), { key: 'Enter' });
    await waitFor(() => expect(within(detail).getByTestId('task-detail-title').textContent).toBe('Build it'));

    // Escape leaves the name as it was, and the detail open.
    await fireEvent.click(within(detail).getByTestId('task-rename'));
    await fireEvent.input(within(detail).getByTestId('task-title-input'), { target: { value: 'Not this' } });
    await fireEvent.keyDown(within(detail).getByTestId('task-title-input'), { key: 'Escape' });
    expect(within(screen.getByTestId('task-detail')).getByTestId('task-detail-title').textContent).toBe('Build it');
  });

  it('gives a waiting task another instruction, but not one that ran; a finished one runs again as a new task', async () => {
    const { backend, agent, task } = finishedWith((id) => sampleResult(id));
    backend.setQueuePaused(agent.id, true);
    const waiting = backend.seedTask({ profile_id: agent.id, instruction: 'Write the notes' });
    await renderApp(backend);

    let detail = await openDetail('Write the notes');
    await fireEvent.click(within(detail).getByTestId('task-edit-instruction'));
    const text = within(detail).getByTestId('task-instruction-input');
    await fireEvent.input(text, { target: { value: 'Write the release notes\nfor 2.0' } });
    await fireEvent.click(within(detail).getByTestId('task-save-instruction'));
    await waitFor(() => expect(within(detail).getByTestId('task-detail-instruction').textContent).toBe('Write the release notes\nfor 2.0'));
    expect(callsOf(backend, 'edit_task')).toEqual([{ taskId: waiting.id, title: null, instruction: 'Write the release notes\nfor 2.0' }]);
    expect(within(detail).getByTestId('task-detail-title').textContent).toBe('Write the release notes');

    detail = await openDetail('Build it');
    expect(within(detail).queryByTestId('task-edit-instruction')).toBeNull();
    await fireEvent.click(within(detail).getByTestId('task-rerun'));
    await waitFor(() => expect(screen.getByTestId('task-detail').getAttribute('data-task-id')).not.toBe(task.id));
    const again = screen.getByTestId('task-detail');
    expect(again.getAttribute('data-state')).toBe('queued');
    expect(within(again).getByTestId('task-detail-instruction').textContent).toBe('Build it\n\nwith <b>care</b>');
    expect(callsOf(backend, 'rerun_task')).toEqual([{ taskId: task.id }]);
  });

  it('gives a task of an agent working apart its own worktree: on its timeline, and its changes a click away', async () => {
    const backend = new FakeBackend({ repositories: [{ root: '/work/shop', setup_command: 'npm ci' }] });
    const agent = backend.seedProfile({ name: 'builder', cwd: '/work/shop', isolation: 'worktree' });
    backend.seedSession(agent.id, { state: 'running', pid: 3 });
    await renderApp(backend);
    const { task } = await backend.submitTask(spec(agent.id, 'Fix the login redirect'));
    // The engine makes the task's worktree, runs the repository's setup in it, and reports it.
    const made = worktree(task.id, {
      profile_id: agent.id,
      agent: 'builder',
      branch: 'switchboard/builder/fix-the-login-redirect',
      state: 'working',
      state_text: 'its agent is at work',
      files_changed: 0,
      task_at_work: task.id,
    });
    backend.seedWorktree(made);
    backend.logEvent(null, task.id, { kind: 'worktree_made', branch: made.branch, base: made.base, path: made.path });
    backend.logEvent(null, task.id, { kind: 'worktree_setup', command: 'npm ci', succeeded: true, exit: 0, output: '' });
    backend.emit({ type: 'worktree_changed', worktree: made });
    const detail = await openDetail('Fix the login redirect');
    await waitFor(() => expect(within(detail).getByTestId('task-worktree').textContent).toContain('switchboard/builder/fix-the-login-redirect'));
    expect(within(detail).getByTestId('task-worktree').textContent).toContain('its agent is at work');
    const timeline = () => within(screen.getByTestId('task-timeline')).queryAllByRole('listitem').map((li) => li.textContent);
    await waitFor(() =>
      expect(timeline()).toEqual(
        expect.arrayContaining([
          expect.stringContaining('Its worktree was made: branch switchboard/builder/fix-the-login-redirect, from main'),
          expect.stringContaining("Its worktree's setup command ran: npm ci"),
        ]),
      ),
    );
    expect(within(detail).getByTestId('task-changes')).toBeTruthy();
  });

  it("shows a failed worktree setup's output under it on the timeline, as text", async () => {
    const backend = new FakeBackend();
    const agent = backend.seedProfile({ name: 'builder' });
    const task = backend.seedTask({ profile_id: agent.id, instruction: 'Set up', state: 'failed', ended_at: 4 });
    backend.logEvent(null, task.id, { kind: 'worktree_setup', command: 'npm ci', succeeded: false, exit: 1, output: 'npm ERR! <b>no lockfile</b>\n' });
    await renderApp(backend);
    const detail = await openDetail('Set up');
    const output = await within(detail).findByTestId('task-timeline-output');
    expect(output.tagName).toBe('PRE');
    expect(output.textContent).toBe('npm ERR! <b>no lockfile</b>\n');
    expect(output.querySelector('b')).toBeNull();
    expect(output.closest('li')?.textContent).toContain("Its worktree's setup command failed with code 1: npm ci");
  });
});

describe('what a task cost', () => {
  const opus = { model: 'claude-opus-5-5-20260922', input: 1_200, output: 3_400, cache_read: 45_000, cache_write: 2_000, cost_usd: 0.31 };
  const mystery = { model: 'claude-fable-9', input: 500, output: 100, cache_read: 0, cache_write: 0, cost_usd: null };
  const tokens = (rows: (typeof opus | typeof mystery)[]) => ({
    input: rows.reduce((n, r) => n + r.input, 0),
    output: rows.reduce((n, r) => n + r.output, 0),
    cache_read: rows.reduce((n, r) => n + r.cache_read, 0),
    cache_write: rows.reduce((n, r) => n + r.cache_write, 0),
    by_model: rows,
  });

  it('shows its tokens by model, and "price unknown" where a model has no price, never a guess', async () => {
    const backend = new FakeBackend();
    const agent = backend.seedProfile({ name: 'agent' });
    backend.seedTask({ profile_id: agent.id, instruction: 'Costly work', state: 'completed', ended_at: 5, tokens: tokens([opus, mystery]), cost_usd: null });
    await renderApp(backend);
    const detail = await openDetail('Costly work');

    expect(within(detail).getByTestId('task-spent').textContent?.trim()).toBe('52,200 tokens · price unknown');
    expect(within(detail).getByTestId('task-cost-total').textContent).toBe('price unknown');
    expect(within(detail).getByTestId('task-cost-unpriced').textContent).toContain('its cost is not guessed');
    const rows = within(detail).getAllByTestId('task-cost-model');
    expect(rows.map((row) => [...row.children].map((cell) => cell.textContent))).toEqual([
      ['claude-opus-5-5-20260922', '1,200', '3,400', '45,000', '2,000', '$0.31'],
      ['claude-fable-9', '500', '100', '0', '0', 'price unknown'],
    ]);
    expect(within(detail).getByTestId('task-cost-models').querySelector('thead')?.textContent).toContain('Cache reads');
  });

  it("says a lead's team apart, the sum, the list-price label, and its budget's share, as the engine counts them", async () => {
    const backend = new FakeBackend();
    const agent = backend.seedProfile({ name: 'lead' });
    const task = backend.seedTask({ profile_id: agent.id, instruction: 'Lead the team', state: 'running', started_at: 1, budget: { usd: 2 } });
    await renderApp(backend);
    const detail = await openDetail('Lead the team');
    // Nothing used yet: its budget is there, untouched.
    expect(within(detail).getByTestId('task-budget-used').textContent).toContain('0 % of $2.00 used');
    expect(within(detail).queryByTestId('task-cost-detail')).toBeNull();

    const haiku = { model: 'claude-haiku-5-5', input: 4_000, output: 600, cache_read: 0, cache_write: 0, cost_usd: 0.19 };
    backend.setTaskSpent(task.id, {
      tokens: tokens([opus]),
      cost_usd: 0.31,
      team_tokens: tokens([haiku]),
      team_cost_usd: 0.19,
      list_price: true,
      budget_used: { used_percent: 25, mark: 'under' },
    });

    await waitFor(() => expect(within(detail).getByTestId('task-cost-total').textContent).toBe('$0.50 at list prices (subscription)'));
    expect(within(detail).getByTestId('task-cost-own').textContent).toBe('51,600 tokens · $0.31 at list prices');
    expect(within(detail).getByTestId('task-cost-team').textContent).toBe('4,600 tokens · $0.19 at list prices');
    expect(within(detail).getByTestId('task-cost-together').textContent).toBe('56,200 tokens · $0.50 at list prices');
    expect(within(detail).getByTestId('task-budget-used').textContent).toContain('25 % of $2.00 used');
    expect(within(within(detail).getByTestId('task-cost-team-models')).getByTestId('task-cost-model').getAttribute('data-model')).toBe('claude-haiku-5-5');
    // Its card says it too, in a line.
    const card = screen.getAllByTestId('task-entry').find((e) => e.getAttribute('data-task-id') === task.id)!;
    expect(within(card).getByTestId('task-cost').textContent).toContain('56,200 tokens · $0.50 at list prices');
    expect(within(card).getByTestId('task-cost-budget').textContent).toBe('25 % of $2.00 used');
  });

  it('shows why a task ended over budget, with its fallback summary, as a timed-out one', async () => {
    const backend = new FakeBackend();
    const agent = backend.seedProfile({ name: 'agent' });
    const seeded = backend.seedTask({
      profile_id: agent.id,
      instruction: 'Too big',
      state: 'over_budget',
      ended_at: 5,
      budget: { tokens: 50_000 },
      tokens: tokens([opus]),
      cost_usd: 0.31,
      budget_used: { used_percent: 103, mark: 'spent' },
      reason: 'it used its budget of 50,000 tokens (51,600 tokens used)',
    });
    backend.seedTask({ ...seeded, result: sampleResult(seeded.id, { fallback: true }) });
    await renderApp(backend);
    const detail = await openDetail('Too big');
    expect(within(detail).getByTestId('task-state').textContent).toBe('over budget');
    expect(within(detail).getByTestId('task-reason').textContent).toBe('it used its budget of 50,000 tokens (51,600 tokens used)');
    expect(within(detail).getByTestId('task-fallback-marker')).toBeTruthy();
    const budget = within(detail).getByTestId('task-budget-used');
    expect(budget.textContent).toContain('103 % of 50,000 tokens used');
    expect(budget.getAttribute('data-level')).toBe('spent');
  });
});
