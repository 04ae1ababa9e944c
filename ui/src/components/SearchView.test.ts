import { fireEvent, screen, waitFor, within } from '@testing-library/svelte';
import { describe, expect, it } from 'vitest';
import { FakeBackend } from '../lib/fakeBackend';
import { sampleResult, signalScan } from '../test/records';
import { clarification } from '../test/signals';
import { callsOf, renderApp } from '../test/render';
import { signalHit, taskHit } from '../test/search';

async function searching(words: string) {
  const backend = new FakeBackend();
  const agent = backend.seedProfile({ name: 'reviewer' });
  const session = backend.seedSession(agent.id, { state: 'running', pid: 7 });
  backend.setQueuePaused(agent.id, true);
  const queued = backend.seedTask({ profile_id: agent.id, instruction: 'Review the <b>auth</b> module' });
  const done = backend.seedTask({ profile_id: agent.id, instruction: 'Build the release', state: 'completed', ended_at: Date.now() });
  backend.seedTask({ ...done, result: sampleResult(done.id, { summary: { ...sampleResult(done.id).summary, notes: ['The auth token cache helps'] } }) });
  const question = backend.raiseSignal(session.id, signalScan(clarification(['Which auth provider?'])));
  // What the engine finds for the words, newest first.
  const hits = {
    question: signalHit(question, 'Which auth provider?'),
    summary: taskHit(done, 'The auth token cache helps', true),
    task: taskHit(queued, 'Review the <b>auth</b> module'),
  };
  backend.setSearchHits([hits.question, hits.summary, hits.task]);
  await renderApp(backend);
  const field = screen.getByTestId('sidebar-search');
  await fireEvent.input(field, { target: { value: words } });
  await fireEvent.submit(field.closest('form')!);
  const view = await screen.findByTestId('search-view');
  return { backend, view, queued, done, question, hits };
}

describe('search', () => {
  it('finds a word in task names, summaries and questions, newest first, marked as text', async () => {
    const { backend, view } = await searching('AUTH');
    await waitFor(() => expect(within(view).getAllByTestId('search-hit')).toHaveLength(3));
    expect(callsOf(backend, 'search').at(-1)).toEqual({ query: 'AUTH' });
    const hits = within(view).getAllByTestId('search-hit');
    expect(hits.map((h) => h.getAttribute('data-in'))).toEqual(['signal', 'summary', 'task']);
    const task = hits.find((h) => h.getAttribute('data-in') === 'task')!;
    expect(task.textContent).toContain('Task · queued');
    // The word found is marked; the agent's markup stays text.
    expect([...task.querySelectorAll('mark')].map((m) => m.textContent)).toEqual(['auth']);
    expect(task.querySelector('b')).toBeNull();
    expect(within(task).getByTestId('search-snippet').textContent).toContain('<b>auth</b>');
  });

  it('follows the words as they are typed, says when nothing holds them all, and opens what it found', async () => {
    const { backend, view, question, done, hits } = await searching('auth');
    await waitFor(() => expect(within(view).getAllByTestId('search-hit')).toHaveLength(3));
    const input = within(view).getByTestId('search-input');
    backend.setSearchHits([]);
    await fireEvent.input(input, { target: { value: 'auth nowhere' } });
    expect(await within(view).findByTestId('search-nothing')).toBeTruthy();
    expect(within(view).getByTestId('search-nothing').textContent).toContain('“auth nowhere”');
    backend.setSearchHits([hits.summary]);
    await fireEvent.input(input, { target: { value: 'token cache' } });
    await waitFor(() => expect(within(view).getAllByTestId('search-hit').map((h) => h.getAttribute('data-in'))).toEqual(['summary']));
    await fireEvent.click(within(view).getByTestId('search-hit'));
    expect((await screen.findByTestId('task-detail')).getAttribute('data-task-id')).toBe(done.id);
    await fireEvent.click(screen.getByTestId('task-detail-close'));

    backend.setSearchHits([hits.question]);
    await fireEvent.input(input, { target: { value: 'provider' } });
    await waitFor(() => expect(within(view).getAllByTestId('search-hit').map((h) => h.getAttribute('data-in'))).toEqual(['signal']));
    await fireEvent.click(within(view).getByTestId('search-hit'));
    expect((await screen.findByTestId('signal-dialog')).getAttribute('data-signal-id')).toBe(question.id);
    // The window asked the engine for each of the words as the user settled on them.
    expect(callsOf(backend, 'search').map((c) => c.query)).toEqual(expect.arrayContaining(['auth', 'auth nowhere', 'token cache', 'provider']));
  });
});
