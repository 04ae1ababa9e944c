import { fireEvent, screen, waitFor, within } from '@testing-library/svelte';
import { describe, expect, it } from 'vitest';
import { FakeBackend } from '../lib/fakeBackend';
import { resetWords } from '../lib/model';
import { callsOf, renderApp } from '../test/render';
import { automation } from '../test/automations';

const NEXT = Date.now() + 2 * 3600_000;

/** Two agents (the window opens on the first's page), each with an automation. */
async function agentPage() {
  const backend = new FakeBackend();
  const coder = backend.seedProfile({ name: 'coder' });
  const reviewer = backend.seedProfile({ name: 'reviewer' });
  backend.seedAutomation(automation(coder.id, { id: 'mine', trigger: { on: 'every', every: '2h' }, next_run: NEXT }));
  backend.seedAutomation(automation(coder.id, { id: 'chain', trigger: { on: 'task_ended', profile_id: reviewer.id, ended: 'failed' }, action: { does: 'task', instruction: 'Fix what the review found' } }));
  backend.seedAutomation(automation(reviewer.id, { id: 'theirs' }));
  await renderApp(backend);
  const page = await screen.findByTestId('profile-view');
  expect(page.dataset.profileId).toBe(coder.id);
  return { backend, coder, reviewer };
}

describe('an agent’s automations on its page', () => {
  it('lists its own, with when they run and next, and opens one', async () => {
    await agentPage();
    const section = screen.getByTestId('agent-automations');
    const entries = within(section).getAllByTestId('automation-entry');
    expect(entries.map((e) => e.dataset.automationId)).toEqual(['mine', 'chain']);
    expect(within(entries[0]).getByTestId('automation-name').textContent).toBe('Review the open pull requests');
    expect(within(entries[0]).getByTestId('automation-when').textContent).toBe('every 2h');
    expect(within(entries[0]).getByTestId('automation-next').textContent).toBe(`next: ${resetWords(NEXT, Date.now())}`);
    expect(within(entries[1]).getByTestId('automation-when').textContent).toBe("after reviewer's tasks fail");
    expect(within(entries[1]).queryByTestId('automation-next')).toBeNull();
    // Its page says whose they are: no agent name, no last run on each.
    expect(within(section).queryByTestId('automation-agent')).toBeNull();
    expect(within(section).queryByTestId('automation-last')).toBeNull();

    await fireEvent.click(within(entries[1]).getByTestId('automation-open'));
    const detail = await screen.findByTestId('automation-detail');
    expect(detail.dataset.automationId).toBe('chain');
    expect(within(detail).getByTestId('automation-detail-name').textContent).toBe('Fix what the review found');
    // The agent's page stays under it.
    expect(screen.getByTestId('profile-view')).toBeTruthy();
  });

  it('makes one for this agent, and lists it once made', async () => {
    const { backend, coder } = await agentPage();
    await fireEvent.click(screen.getByTestId('agent-automation-new'));
    await screen.findByTestId('automation-form');
    expect((screen.getByTestId('automation-agent') as HTMLSelectElement).value).toBe(coder.id);
    await fireEvent.input(screen.getByTestId('automation-every'), { target: { value: 'hourly' } });
    await fireEvent.input(screen.getByTestId('automation-text'), { target: { value: 'Triage the new issues' } });
    await fireEvent.click(screen.getByTestId('automation-submit'));
    await screen.findByTestId('automation-detail');
    expect(callsOf(backend, 'create_automation')[0]).toMatchObject({ spec: { profile_id: coder.id, trigger: { on: 'every', every: 'hourly' } } });
    await waitFor(() => expect(within(screen.getByTestId('agent-automations')).getAllByTestId('automation-entry')).toHaveLength(3));
  });

  it('says when it has none', async () => {
    const backend = new FakeBackend();
    backend.seedProfile({ name: 'coder' });
    await renderApp(backend);
    expect((await screen.findByTestId('agent-automations-none')).textContent).toBe('None: nothing starts coder’s work by itself.');
  });
});
