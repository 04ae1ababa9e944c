import { fireEvent, screen, waitFor, within } from '@testing-library/svelte';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeBackend } from '../lib/fakeBackend';
import { callsOf, renderApp } from '../test/render';
import { recordedRefusal } from '../lib/fakeRecorded';
import type { Settings } from '../lib/bindings';

async function openSettings(backend: FakeBackend) {
  const app = await renderApp(backend);
  await fireEvent.click(screen.getByTestId('open-settings'));
  await screen.findByTestId('settings-view');
  return app;
}

const input = (testId: string) => screen.getByTestId(testId) as HTMLInputElement;
const type = (testId: string, value: string) => fireEvent.input(input(testId), { target: { value } });
const save = () => fireEvent.click(screen.getByTestId('settings-save'));

afterEach(() => {
  delete document.documentElement.dataset.theme;
});

describe('settings view', () => {
  it('opens from the sidebar with the settings as they are, and the data folder', async () => {
    const backend = new FakeBackend();
    await backend.setSettings({
      default_task_time_limit_secs: 45 * 60,
      default_quiet_alert_secs: 0,
      turn_quiet_secs: 12,
      limit_margin_secs: 30,
      limit_retry_secs: 60,
      usage_warn_percent: 90,
      notify: { task_completed: false, task_failed: true, needs_answer: true, loop_ended: true, agent_quiet: true, usage_limit: true },
      quiet_hours: { mode: 'daily', from: '22:00', to: '07:00' },
      theme: 'dark',
      terminal_grid: { shows: 'chosen', chosen: [], zoomed: null },
      prices: (await backend.getSettings()).prices,
    });
    await openSettings(backend);

    expect(input('settings-time-limit').value).toBe('45');
    expect(input('settings-quiet-alert').value).toBe('0');
    expect(input('settings-turn-quiet').value).toBe('12');
    expect(input('settings-usage-warn').value).toBe('90');
    expect(input('notify-task_completed').checked).toBe(false);
    expect(input('notify-task_failed').checked).toBe(true);
    expect(input('quiet-hours-on').checked).toBe(true);
    expect([input('quiet-hours-from').value, input('quiet-hours-to').value]).toEqual(['22:00', '07:00']);
    expect(input('theme-dark').checked).toBe(true);
    await waitFor(() => expect(screen.getByTestId('data-folder').textContent).toBe('(in memory)'));
    expect(screen.getByTestId('open-settings').getAttribute('aria-current')).toBe('page');
  });

  it('saves the edits with one button and says so', async () => {
    const backend = new FakeBackend();
    await openSettings(backend);
    await type('settings-time-limit', '45');
    await type('settings-quiet-alert', '5');
    await type('settings-turn-quiet', '45');
    await fireEvent.click(input('notify-agent_quiet'));
    await fireEvent.click(input('quiet-hours-on'));
    await type('quiet-hours-from', '21:30');
    await type('quiet-hours-to', '6:45');
    // The engine keeps a time of day in its own form, two digits each.
    backend.answerNext('set_settings', { quiet_hours: { mode: 'daily', from: '21:30', to: '06:45' } });
    await save();

    await screen.findByTestId('settings-saved');
    const kept = await backend.getSettings();
    expect(kept.default_task_time_limit_secs).toBe(2700);
    expect(kept.default_quiet_alert_secs).toBe(300);
    expect(kept.turn_quiet_secs).toBe(45);
    expect(kept.notify.agent_quiet).toBe(false);
    expect(kept.notify.task_completed).toBe(true);
    expect(kept.quiet_hours).toEqual({ mode: 'daily', from: '21:30', to: '06:45' });
    // The window shows the end as the engine kept it.
    expect(input('quiet-hours-to').value).toBe('06:45');
    expect(callsOf(backend, 'set_settings')).toHaveLength(1);
  });

  it('shows the engine refusing a setting under its field, in words', async () => {
    const backend = new FakeBackend();
    await openSettings(backend);
    await type('settings-time-limit', '0.5');
    await save();
    const error = await screen.findByTestId('error-default_task_time_limit_secs');
    expect(error.textContent).toBe('A time limit is at least a minute and at most 7 days.');
    expect(input('settings-time-limit').getAttribute('aria-invalid')).toBe('true');
    expect(screen.queryByTestId('settings-saved')).toBeNull();

    await type('settings-time-limit', '30');
    await fireEvent.click(input('quiet-hours-on'));
    await type('quiet-hours-from', '25:00');
    await save();
    expect((await screen.findByTestId('error-quiet_hours_from')).textContent).toBe('Give the start as hours and minutes, like 22:00.');
    expect(screen.queryByTestId('error-default_task_time_limit_secs')).toBeNull();
    expect((await backend.getSettings()).quiet_hours).toEqual({ mode: 'off' });
  });

  it('says a number is wanted without asking the engine', async () => {
    const backend = new FakeBackend();
    await openSettings(backend);
    await type('settings-quiet-alert', 'ten');
    await save();
    expect((await screen.findByTestId('error-default_quiet_alert_secs')).textContent).toBe(
      'Write the minutes as a number, like 10 (0: never alert).',
    );
    expect(callsOf(backend, 'set_settings')).toHaveLength(0);
  });

  it("takes the quiet that ends an answer in whole seconds, and the engine's bounds under its field", async () => {
    const backend = new FakeBackend();
    await openSettings(backend);
    await type('settings-turn-quiet', '2.5');
    await save();
    expect((await screen.findByTestId('error-turn_quiet_secs')).textContent).toBe(
      'Write the seconds as a whole number, like 30 (0: never by quiet alone).',
    );
    expect(callsOf(backend, 'set_settings')).toHaveLength(0);
    await type('settings-turn-quiet', '7200');
    await save();
    expect((await screen.findByTestId('error-turn_quiet_secs')).textContent).toBe(
      'An answer is over after at most an hour of quiet, or never by quiet (leave 0).',
    );
    expect((await backend.getSettings()).turn_quiet_secs).toBe(30);
  });

  it('keeps how usage limits are waited out, and whether they notify', async () => {
    const backend = new FakeBackend();
    await openSettings(backend);
    // As the engine starts: half a minute after a reset; a minute's first wait when it is unknown.
    expect(input('settings-limit-margin').value).toBe('30');
    expect(input('settings-limit-retry').value).toBe('60');
    expect(input('settings-usage-warn').value).toBe('80');
    expect(input('notify-usage_limit').checked).toBe(true);
    expect(screen.getByText('Usage: an account near its limit, at its limit, and going on after it')).toBeTruthy();

    await type('settings-limit-margin', '120');
    await type('settings-limit-retry', '600');
    await type('settings-usage-warn', '90');
    await fireEvent.click(input('notify-usage_limit'));
    await save();
    await screen.findByTestId('settings-saved');
    const kept = await backend.getSettings();
    expect([kept.limit_margin_secs, kept.limit_retry_secs, kept.usage_warn_percent, kept.notify.usage_limit]).toEqual([120, 600, 90, false]);
    expect(callsOf(backend, 'set_settings')).toHaveLength(1);
  });

  it("says the engine's bounds on usage limits under their fields, and a number that is none without asking it", async () => {
    const backend = new FakeBackend();
    await openSettings(backend);
    await type('settings-limit-margin', '3600');
    await save();
    expect((await screen.findByTestId('error-limit_margin_secs')).textContent).toBe('Go on at most 30 minutes after a usage limit resets.');
    expect(input('settings-limit-margin').getAttribute('aria-invalid')).toBe('true');

    await type('settings-limit-margin', '0');
    await type('settings-limit-retry', '0');
    await save();
    expect((await screen.findByTestId('error-limit_retry_secs')).textContent).toBe('Try again after at least a second and at most 30 minutes.');
    expect(screen.queryByTestId('error-limit_margin_secs')).toBeNull();
    expect((await backend.getSettings()).limit_retry_secs).toBe(60);

    const asked = callsOf(backend, 'set_settings').length;
    await type('settings-limit-retry', 'a minute');
    await save();
    expect((await screen.findByTestId('error-limit_retry_secs')).textContent).toBe('Write the seconds as a whole number, like 60.');
    await type('settings-limit-retry', '60');
    await type('settings-limit-margin', '1.5');
    await save();
    expect((await screen.findByTestId('error-limit_margin_secs')).textContent).toBe('Write the seconds as a whole number, like 30.');
    expect(callsOf(backend, 'set_settings')).toHaveLength(asked);
  });

  it("takes the warning in whole percent, 0 for never, and says the engine's bound under its field", async () => {
    const backend = new FakeBackend();
    await openSettings(backend);
    await type('settings-usage-warn', '100');
    await save();
    expect((await screen.findByTestId('error-usage_warn_percent')).textContent).toBe('Warn at 99% of a usage window at most, or never (leave 0).');
    expect(input('settings-usage-warn').getAttribute('aria-invalid')).toBe('true');
    expect((await backend.getSettings()).usage_warn_percent).toBe(80);

    const asked = callsOf(backend, 'set_settings').length;
    await type('settings-usage-warn', '85%');
    await save();
    expect((await screen.findByTestId('error-usage_warn_percent')).textContent).toBe('Write the percent as a whole number, like 80 (0: never warn).');
    expect(callsOf(backend, 'set_settings')).toHaveLength(asked);

    await type('settings-usage-warn', '0');
    await save();
    await screen.findByTestId('settings-saved');
    expect(screen.queryByTestId('error-usage_warn_percent')).toBeNull();
    expect((await backend.getSettings()).usage_warn_percent).toBe(0);
  });

  it('shows a failure that is no field on top, in words', async () => {
    const backend = new FakeBackend();
    await openSettings(backend);
    backend.failNext('set_settings', { code: 'disk_full', message: 'database or disk is full', field: null });
    await save();
    expect((await screen.findByTestId('settings-error')).textContent).toBe('The disk is full. Free some space, then try again.');
  });

  it('puts the saved theme on the document, and one saved elsewhere too', async () => {
    const backend = new FakeBackend();
    await openSettings(backend);
    // Without a desktop preference to read (jsdom), "as the desktop" is the app's dark.
    expect(document.documentElement.dataset.theme).toBe('dark');
    await fireEvent.click(input('theme-light'));
    expect(document.documentElement.dataset.theme).toBe('dark');
    await save();
    await waitFor(() => expect(document.documentElement.dataset.theme).toBe('light'));

    // Another window or a script saves: the window follows the engine's event.
    await backend.setSettings({ ...(await backend.getSettings()), theme: 'dark' });
    await waitFor(() => expect(document.documentElement.dataset.theme).toBe('dark'));
  });

  it('closes to where the user was, and the dashboard leaves it', async () => {
    const backend = new FakeBackend();
    await openSettings(backend);
    await fireEvent.click(screen.getByTestId('settings-close'));
    expect(screen.queryByTestId('settings-view')).toBeNull();
    await fireEvent.click(screen.getByTestId('open-settings'));
    await fireEvent.click(screen.getByTestId('open-dashboard'));
    expect(screen.queryByTestId('settings-view')).toBeNull();
  });

  it('gives a new agent the defaults saved here', async () => {
    const backend = new FakeBackend({ commands: ['sh'], directories: ['/work'] });
    await openSettings(backend);
    await type('settings-time-limit', '45');
    await type('settings-quiet-alert', '0');
    await save();
    await screen.findByTestId('settings-saved');

    await fireEvent.click(screen.getByTestId('new-agent'));
    expect(input('agent-task-time-limit').value).toBe('45');
    expect(input('agent-quiet-alert').value).toBe('0');
    await fireEvent.input(input('agent-name'), { target: { value: 'fresh' } });
    await fireEvent.input(input('agent-command'), { target: { value: 'sh' } });
    await fireEvent.input(input('agent-cwd'), { target: { value: '/work' } });
    await fireEvent.click(screen.getByTestId('agent-submit'));
    await waitFor(() => expect(callsOf(backend, 'create_profile')).toHaveLength(1));
    const [created] = await backend.listProfiles();
    expect([created.task_time_limit_secs, created.quiet_alert_secs]).toEqual([2700, 0]);
  });

  it('opens from the command palette too, by a word the user may think of', async () => {
    await renderApp(new FakeBackend());
    await fireEvent.keyDown(document.body, { key: 'p', code: 'KeyP', ctrlKey: true, shiftKey: true });
    await fireEvent.input(await screen.findByTestId('palette-input'), { target: { value: 'quiet hours' } });
    await waitFor(() => {
      const chosen = screen.getAllByTestId('palette-item').find((item) => item.hasAttribute('data-selected'));
      expect(chosen?.getAttribute('data-command')).toBe('settings');
    });
    await fireEvent.keyDown(screen.getByTestId('palette-input'), { key: 'Enter' });
    await screen.findByTestId('settings-view');
  });
});

describe('the price table in settings', () => {
  const rows = () => screen.getAllByTestId('price-row');
  const inRow = (row: HTMLElement, testId: string) => within(row).getByTestId(testId) as HTMLInputElement;
  const fill = async (row: HTMLElement, model: string, rates: [number, number, number, number, number]) => {
    await fireEvent.input(inRow(row, 'price-model'), { target: { value: model } });
    const keys = ['price-input', 'price-output', 'price-cache_write_5m', 'price-cache_write_1h', 'price-cache_read'];
    for (const [index, key] of keys.entries()) await fireEvent.input(inRow(row, key), { target: { value: String(rates[index]) } });
  };
  const sentPrices = (backend: FakeBackend) => (callsOf(backend, 'set_settings').at(-1)?.settings as Settings).prices;

  it('shows where its prices come from, and keeps each model edited, added and removed with the other settings', async () => {
    const backend = new FakeBackend();
    const shipped = (await backend.getSettings()).prices;
    await openSettings(backend);
    expect(screen.getByTestId('prices-source').textContent).toContain(`as taken on ${shipped.taken}: ${shipped.source}`);
    expect(screen.getByTestId('prices-toggle').textContent).toBe(`The prices of ${shipped.models.length} models`);
    expect(rows().map((row) => inRow(row, 'price-model').value)).toEqual(shipped.models.map((m) => m.model));

    await fireEvent.input(inRow(rows()[0], 'price-input'), { target: { value: '11' } });
    await fireEvent.click(within(rows()[1]).getByTestId('price-remove'));
    await fireEvent.click(screen.getByTestId('price-add'));
    const added = rows().at(-1)!;
    await fill(added, 'claude-mine', [3, 15, 3.75, 6, 0.3]);
    await fireEvent.click(inRow(added, 'price-long'));
    await fireEvent.input(inRow(added, 'price-long-above'), { target: { value: '200000' } });
    for (const key of ['input', 'output', 'cache_write_5m', 'cache_write_1h', 'cache_read']) {
      await fireEvent.input(inRow(added, `price-long-${key}`), { target: { value: '6' } });
    }
    await save();

    await screen.findByTestId('settings-saved');
    const sent = sentPrices(backend);
    expect([sent.source, sent.taken]).toEqual([shipped.source, shipped.taken]);
    expect(sent.models.map((m) => m.model)).toEqual([shipped.models[0].model, ...shipped.models.slice(2).map((m) => m.model), 'claude-mine']);
    expect(sent.models[0]).toEqual({ ...shipped.models[0], input: 11 });
    expect(sent.models.at(-1)).toEqual({
      model: 'claude-mine',
      input: 3,
      output: 15,
      cache_write_5m: 3.75,
      cache_write_1h: 6,
      cache_read: 0.3,
      long_prompt: { above_tokens: 200_000, input: 6, output: 6, cache_write_5m: 6, cache_write_1h: 6, cache_read: 6 },
    });
    expect((await backend.getSettings()).prices).toEqual(sent);
  });

  it("says the engine's refusal of the table in its words, and keeps the rows as typed", async () => {
    const backend = new FakeBackend();
    await openSettings(backend);
    // As recorded (its keys in the recording's order): two rows of one model.
    const mine = { cache_read: 0.3, cache_write_1h: 6, cache_write_5m: 3.75, input: 3, long_prompt: null, model: 'claude-mine', output: 15 };
    backend.failNext('set_settings', recordedRefusal('set_settings', { settings: { prices: { models: [mine, mine] } } }, { now: 0 }));
    for (let i = 0; i < 2; i++) {
      await fireEvent.click(screen.getByTestId('price-add'));
      await fill(rows().at(-1)!, 'claude-mine', [3, 15, 3.75, 6, 0.3]);
    }
    await save();

    expect((await screen.findByTestId('error-prices')).textContent).toBe('The model claude-mine is priced twice.');
    expect(screen.queryByTestId('settings-saved')).toBeNull();
    expect(rows().slice(-2).map((row) => inRow(row, 'price-model').value)).toEqual(['claude-mine', 'claude-mine']);
    expect((await backend.getSettings()).prices.models.some((m) => m.model === 'claude-mine')).toBe(false);
  });

  it('says a price that is no number of dollars without asking the engine', async () => {
    const backend = new FakeBackend();
    await openSettings(backend);
    await fireEvent.click(screen.getByTestId('price-add'));
    await fill(rows().at(-1)!, 'claude-mine', [3, 15, 3.75, 6, 0.3]);
    await fireEvent.input(inRow(rows().at(-1)!, 'price-output'), { target: { value: '' } });
    await save();
    expect((await screen.findByTestId('error-prices')).textContent).toBe("Give claude-mine's “Output” price in dollars per million tokens, such as 3 or 0.3.");
    expect(callsOf(backend, 'set_settings')).toEqual([]);
  });
});
