import { fireEvent, screen, waitFor, within } from '@testing-library/svelte';
import { describe, expect, it } from 'vitest';
import type { CostSince } from '../lib/bindings';
import { FakeBackend } from '../lib/fakeBackend';
import { callsOf, renderApp } from '../test/render';

/** Selects an agent in the sidebar (its name), which shows the agent view. */
async function openAgent(name: string) {
  const entry = screen.getAllByTestId('profile-entry').find((e) => e.getAttribute('data-profile-name') === name);
  if (!entry) throw new Error(`no agent ${name}`);
  await fireEvent.click(within(entry).getByTestId('profile-select'));
  return screen.findByTestId('profile-view');
}

const input = (id: string) => screen.getByTestId(id) as HTMLInputElement;

describe('the agent view', () => {
  it('says where its tasks work', async () => {
    const backend = new FakeBackend();
    backend.seedProfile({ name: 'apart', isolation: 'worktree' });
    backend.seedProfile({ name: 'here' });
    await renderApp(backend);
    await openAgent('apart');
    expect(screen.getByTestId('agent-isolation-shown').textContent?.trim()).toBe('each in a git worktree of its own');
    await openAgent('here');
    expect(screen.getByTestId('agent-isolation-shown').textContent?.trim()).toBe('in its folder');
  });
});

describe('editing an agent', () => {
  it('opens the form filled in and saves the changes, keeping what the form does not show', async () => {
    const backend = new FakeBackend();
    const p = backend.seedProfile({ name: 'alpha', command: 'bash', args: ['-l', 'two words'], cwd: '/tmp', env: { TOKEN: 'x' } });
    await renderApp(backend);
    await openAgent('alpha');

    await fireEvent.click(screen.getByTestId('edit-profile'));
    expect(screen.getByRole('heading', { name: 'Edit agent' })).toBeTruthy();
    expect(input('agent-name').value).toBe('alpha');
    expect(input('agent-args').value).toBe("-l 'two words'");
    await fireEvent.input(input('agent-name'), { target: { value: 'alpha renamed' } });
    await fireEvent.click(screen.getByTestId('agent-submit'));

    const view = await screen.findByTestId('profile-view');
    expect(view.querySelector('h1')?.textContent).toBe('alpha renamed');
    expect(callsOf(backend, 'create_profile')).toEqual([]);
    const [update] = callsOf(backend, 'update_profile');
    expect(update.profileId).toBe(p.id);
    expect(update.spec).toMatchObject({ name: 'alpha renamed', args: ['-l', 'two words'], env: { TOKEN: 'x' } });
  });

  it('shows a bad edit inline and changes nothing', async () => {
    const backend = new FakeBackend();
    backend.seedProfile({ name: 'alpha', cwd: '/tmp' });
    await renderApp(backend);
    await openAgent('alpha');
    await fireEvent.click(screen.getByTestId('edit-profile'));
    backend.failNext('update_profile', { code: 'directory_missing', message: 'working directory /gone does not exist', field: 'cwd' });
    await fireEvent.input(input('agent-cwd'), { target: { value: '/gone' } });
    await fireEvent.click(screen.getByTestId('agent-submit'));

    expect((await screen.findByTestId('error-cwd')).textContent).toContain('/gone does not exist');
    expect(screen.getByTestId('agent-form')).toBeTruthy();
    expect((await backend.listProfiles())[0].cwd).toBe('/tmp');
  });
});

describe('deleting an agent', () => {
  it('asks first, then removes the agent and its sessions and selects what is left', async () => {
    const backend = new FakeBackend();
    const doomed = backend.seedProfile({ name: 'doomed' });
    backend.seedSession(doomed.id, { state: 'exited', exit_code: 0, signal: null, ended_at: 2 }, 1);
    backend.seedProfile({ name: 'kept' });
    await renderApp(backend);
    await openAgent('doomed');

    await fireEvent.click(screen.getByTestId('delete-profile'));
    expect(callsOf(backend, 'delete_profile')).toEqual([]);
    await fireEvent.click(screen.getByTestId('confirm-delete-profile'));

    await screen.findByText('kept', { selector: 'h1' });
    const names = screen.getAllByTestId('profile-entry').map((e) => e.getAttribute('data-profile-name'));
    expect(names).toEqual(['kept']);
    expect(screen.queryAllByTestId('session-entry')).toEqual([]);
  });

  it('keeps an agent whose session runs, and says why', async () => {
    const backend = new FakeBackend();
    const busy = backend.seedProfile({ name: 'busy' });
    backend.seedSession(busy.id, { state: 'running', pid: 7 });
    await renderApp(backend);
    await openAgent('busy');

    await fireEvent.click(screen.getByTestId('delete-profile'));
    await fireEvent.click(screen.getByTestId('confirm-delete-profile'));

    expect((await screen.findByTestId('delete-error')).textContent).toContain('Stop its running session first');
    expect(screen.getAllByTestId('profile-entry')).toHaveLength(1);
  });

  it('changing one\'s mind deletes nothing', async () => {
    const backend = new FakeBackend();
    backend.seedProfile({ name: 'alpha' });
    await renderApp(backend);
    await openAgent('alpha');
    await fireEvent.click(screen.getByTestId('delete-profile'));
    await fireEvent.click(screen.getByTestId('cancel-delete-profile'));
    expect(screen.queryByTestId('delete-confirmation')).toBeNull();
    expect(callsOf(backend, 'delete_profile')).toEqual([]);
  });
});

describe('the agent view of a running agent', () => {
  it('opens its running session instead of starting a second one, and tags only known CLIs', async () => {
    const backend = new FakeBackend();
    const agent = backend.seedProfile({ name: 'worker' });
    const running = backend.seedSession(agent.id, { state: 'running', pid: 4 });
    await renderApp(backend);
    await fireEvent.click(within(screen.getByTestId('profile-entry')).getByTestId('profile-select'));
    const view = await screen.findByTestId('profile-view');
    expect(view.textContent).not.toContain('generic');
    const start = within(view).getByTestId('profile-view-start');
    expect(start.textContent?.trim()).toBe('Open its session');
    await fireEvent.click(start);
    expect(callsOf(backend, 'start_session')).toEqual([]);
    expect((await screen.findByTestId('session-view')).getAttribute('data-session-id')).toBe(running.id);
  });
});

describe("what an agent spent", () => {
  const tokens = (input: number) => ({ input, output: 0, cache_read: 0, cache_write: 0, by_model: [] });

  it('says what it spent today and in the last 7 days, from the reports by agent, and its day’s budget used', async () => {
    const backend = new FakeBackend();
    const ann = backend.seedProfile({ name: 'ann', daily_budget: { usd: 2 } });
    // The engine's reports by agent: the last week's (since a time), and today's (the engine's day).
    backend.setCostReport({
      by: 'agent',
      rows: [{ key: ann.id, name: 'ann', tokens: tokens(90_000), cost_usd: 3.2, list_price: true }],
      covers: (since) => since.from === 'at',
    });
    backend.setCostReport({
      by: 'agent',
      rows: [
        { key: 'someone-else', name: 'bob', tokens: tokens(7), cost_usd: 9, list_price: false },
        { key: ann.id, name: 'ann', tokens: tokens(12_340), cost_usd: 0.5, list_price: true, day_budget: { used_percent: 25, mark: 'under' } },
      ],
      covers: (since) => since.from === 'today',
    });
    await renderApp(backend);
    await openAgent('ann');

    await waitFor(() => expect(screen.getByTestId('agent-spent-today').textContent).toBe('12,340 tokens · $0.50 at list prices'));
    expect(screen.getByTestId('agent-spent-week').textContent).toBe('90,000 tokens · $3.20 at list prices');
    expect(screen.getByTestId('agent-daily-budget-used').textContent).toBe('25 % of $2.00 used');
    const asked = callsOf(backend, 'cost_report');
    expect(asked.map((call) => call.by)).toEqual(['agent', 'agent']);
    expect(asked.map((call) => call.since)).toContainEqual({ from: 'today' });
    const week = asked.map((call) => call.since as CostSince).find((since) => since.from === 'at');
    expect(week?.from === 'at' && Date.now() - week.at).toBeGreaterThanOrEqual(7 * 24 * 3_600_000);
  });

  it('says "nothing yet" for an agent the reports do not name', async () => {
    const backend = new FakeBackend();
    backend.seedProfile({ name: 'idle' });
    backend.setCostReport({ by: 'agent', rows: [{ key: 'another', name: 'busy', tokens: tokens(5), cost_usd: 1, list_price: false }] });
    await renderApp(backend);
    await openAgent('idle');
    await waitFor(() => expect(screen.getByTestId('agent-spent-today').textContent).toBe('nothing yet'));
    expect(screen.getByTestId('agent-spent-week').textContent).toBe('nothing yet');
    expect(screen.queryByTestId('agent-daily-budget-used')).toBeNull();
  });
});

describe("an agent's day's budget", () => {
  it('is kept from an amount and its unit, shown again when edited, and emptied for none', async () => {
    const backend = new FakeBackend();
    const p = backend.seedProfile({ name: 'alpha' });
    await renderApp(backend);
    await openAgent('alpha');
    await fireEvent.click(screen.getByTestId('edit-profile'));
    await fireEvent.input(input('agent-daily-budget'), { target: { value: '5' } });
    await fireEvent.change(screen.getByTestId('agent-daily-budget-unit'), { target: { value: 'usd' } });
    await fireEvent.click(screen.getByTestId('agent-submit'));
    await screen.findByTestId('profile-view');
    expect(callsOf(backend, 'update_profile')[0].spec).toMatchObject({ daily_budget: { usd: 5 } });

    await fireEvent.click(screen.getByTestId('edit-profile'));
    expect(input('agent-daily-budget').value).toBe('5');
    expect((screen.getByTestId('agent-daily-budget-unit') as HTMLSelectElement).value).toBe('usd');
    await fireEvent.input(input('agent-daily-budget'), { target: { value: '' } });
    await fireEvent.click(screen.getByTestId('agent-submit'));
    await screen.findByTestId('profile-view');
    expect(callsOf(backend, 'update_profile')[1].spec).toMatchObject({ daily_budget: null });
    expect((await backend.listProfiles()).find((a) => a.id === p.id)?.daily_budget).toBeNull();
  });

  it('refuses part of a token under its field, and saves nothing', async () => {
    const backend = new FakeBackend();
    backend.seedProfile({ name: 'alpha' });
    await renderApp(backend);
    await openAgent('alpha');
    await fireEvent.click(screen.getByTestId('edit-profile'));
    await fireEvent.input(input('agent-daily-budget'), { target: { value: '0.5' } });
    await fireEvent.click(screen.getByTestId('agent-submit'));
    expect((await screen.findByTestId('error-daily_budget')).textContent).toBe('Give a whole number of tokens, such as 50000.');
    expect(screen.getByTestId('form-problems').textContent).toBe('Fix the marked field.');
    expect(callsOf(backend, 'update_profile')).toEqual([]);
  });

  it("shows the engine's refusal of a dollar budget it cannot price under its field", async () => {
    const backend = new FakeBackend();
    backend.seedProfile({ name: 'alpha' });
    const why = 'Switchboard does not know yet which model alpha uses, so it cannot price its work: give a budget in tokens, or run one task first.';
    backend.failNext('update_profile', {
      code: 'invalid_profile',
      message: 'the agent has problems',
      field: null,
      problems: [{ field: 'daily_budget', message: why }],
    });
    await renderApp(backend);
    await openAgent('alpha');
    await fireEvent.click(screen.getByTestId('edit-profile'));
    await fireEvent.input(input('agent-daily-budget'), { target: { value: '5' } });
    await fireEvent.change(screen.getByTestId('agent-daily-budget-unit'), { target: { value: 'usd' } });
    await fireEvent.click(screen.getByTestId('agent-submit'));
    expect((await screen.findByTestId('error-daily_budget')).textContent).toBe(why);
    expect(document.activeElement?.getAttribute('name')).toBe('daily_budget');
    expect(screen.getByTestId('agent-form')).toBeTruthy();
  });
});
