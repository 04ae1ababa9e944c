import { fireEvent, screen, waitFor, within } from '@testing-library/svelte';
import { describe, expect, it } from 'vitest';
import { apiError } from '../lib/errors';
import { FakeBackend } from '../lib/fakeBackend';
import { callsOf, renderApp } from '../test/render';
import { automation } from '../test/automations';

/** Two agents here, one on another machine; the form opened from the automations view. */
async function openForm() {
  const backend = new FakeBackend();
  const coder = backend.seedProfile({ name: 'coder', cwd: '/home/me/app' });
  const reviewer = backend.seedProfile({ name: 'reviewer', cwd: '/home/me/site' });
  const builder = backend.seedProfile({ name: 'builder', host: 'build-box' });
  await renderApp(backend);
  await fireEvent.click(screen.getByTestId('open-automations'));
  await fireEvent.click(screen.getByTestId('automation-new'));
  const form = await screen.findByTestId('automation-form');
  return { backend, coder, reviewer, builder, form };
}

const type = (testid: string, value: string) => fireEvent.input(screen.getByTestId(testid), { target: { value } });
const choose = (testid: string, value: string) => fireEvent.change(screen.getByTestId(testid), { target: { value } });
const valueOf = (testid: string) => (screen.getByTestId(testid) as HTMLInputElement).value;

/** Opens the form editing the one automation the backend has. */
async function editSeeded(backend: FakeBackend) {
  await renderApp(backend);
  await fireEvent.click(screen.getByTestId('open-automations'));
  await fireEvent.click(screen.getByTestId('automation-open'));
  await fireEvent.click(await screen.findByTestId('automation-edit'));
  return screen.findByTestId('automation-form');
}

describe('the automation form', () => {
  it('makes a task on a schedule in a zone, and shows it', async () => {
    const { backend, coder, form } = await openForm();
    expect(within(form).getByTestId('automation-form-engine-note').textContent).toMatch(/only while the engine runs/);
    expect((screen.getByTestId('automation-agent') as HTMLSelectElement).value).toBe(coder.id);
    await type('automation-every', 'weekdays 09:00');
    await type('automation-zone', 'Europe/Paris');
    await type('automation-text', 'Review the open pull requests');
    await type('automation-title', 'Morning review');
    await type('automation-budget', '50000');
    await choose('automation-catch-up', 'skip');
    await choose('automation-overlap', 'queue');
    await type('automation-max-runs', '2');
    await fireEvent.click(screen.getByTestId('automation-submit'));

    const detail = await screen.findByTestId('automation-detail');
    expect(callsOf(backend, 'create_automation')).toEqual([
      {
        spec: {
          profile_id: coder.id,
          trigger: { on: 'every', every: 'weekdays 09:00' },
          action: { does: 'task', instruction: 'Review the open pull requests', title: 'Morning review', budget: { tokens: 50000 }, time_limit_secs: null },
          zone: 'Europe/Paris',
          overlap: 'queue',
          catch_up: 'skip',
          max_runs_per_hour: 2,
        },
      },
    ]);
    expect(screen.queryByTestId('automation-form')).toBeNull();
    expect(within(detail).getByTestId('automation-detail-name').textContent).toBe('Morning review');
    // Under it, the automations, with the new one.
    expect(within(screen.getByTestId('automations-view')).getAllByTestId('automation-entry')).toHaveLength(1);
  });

  it('makes a loop on an RRULE', async () => {
    const { backend, reviewer } = await openForm();
    await choose('automation-agent', reviewer.id);
    await fireEvent.click(screen.getByTestId('automation-kind-rule'));
    await type('automation-rrule', 'FREQ=WEEKLY;BYDAY=MO;BYHOUR=9;BYMINUTE=0');
    await fireEvent.click(screen.getByTestId('automation-does-loop'));
    expect(screen.queryByTestId('automation-title')).toBeNull();
    await type('automation-text', 'Make the flaky test pass');
    await fireEvent.click(screen.getByTestId('automation-submit'));
    await screen.findByTestId('automation-detail');
    expect(callsOf(backend, 'create_automation')).toEqual([
      {
        spec: {
          profile_id: reviewer.id,
          trigger: { on: 'rule', rrule: 'FREQ=WEEKLY;BYDAY=MO;BYHOUR=9;BYMINUTE=0' },
          action: {
            does: 'loop',
            settings: { goal: 'Make the flaky test pass', stop_word: 'LOOP_COMPLETE', promise: null, max_iterations: 10, stall_after: 5, iteration_time_limit_secs: null, budget: null },
          },
          zone: null,
          overlap: 'skip',
          catch_up: 'once',
          max_runs_per_hour: 6,
        },
      },
    ]);
  });

  it('makes a chain after an agent of the same machine, and asks for that agent first', async () => {
    const { backend, coder, reviewer, builder } = await openForm();
    await choose('automation-agent', reviewer.id);
    await fireEvent.click(screen.getByTestId('automation-kind-after'));
    expect(screen.queryByTestId('automation-zone')).toBeNull();
    expect(screen.queryByTestId('automation-catch-up')).toBeNull();
    const after = screen.getByTestId('automation-after') as HTMLSelectElement;
    // Another machine's agent is never offered: a chain never crosses machines.
    expect([...after.options].map((o) => o.textContent)).toEqual(['Choose an agent…', 'coder', 'reviewer']);
    expect([...(screen.getByTestId('automation-agent') as HTMLSelectElement).options].map((o) => o.textContent)).toEqual(['coder', 'reviewer', 'builder (on build-box)']);
    await type('automation-text', 'Review what coder did');
    await fireEvent.click(screen.getByTestId('automation-submit'));
    expect((await screen.findByTestId('error-trigger')).textContent).toBe('Choose the agent whose tasks it follows.');
    expect(callsOf(backend, 'create_automation')).toEqual([]);

    await choose('automation-after', coder.id);
    await choose('automation-after-ended', 'any');
    await fireEvent.click(screen.getByTestId('automation-submit'));
    await screen.findByTestId('automation-detail');
    expect(callsOf(backend, 'create_automation')[0]).toMatchObject({
      spec: { profile_id: reviewer.id, trigger: { on: 'task_ended', profile_id: coder.id, ended: 'any' }, zone: null },
    });
    expect(builder.id).toBeTruthy();
  });

  it('makes a task when files change, in its agent’s folder unless another is typed', async () => {
    const { backend, reviewer } = await openForm();
    await fireEvent.click(screen.getByTestId('automation-kind-files'));
    // No zone, no missed runs: it is no schedule.
    expect(screen.queryByTestId('automation-zone')).toBeNull();
    expect(screen.queryByTestId('automation-catch-up')).toBeNull();
    expect(screen.queryByTestId('automation-branch')).toBeNull();
    expect(valueOf('automation-folder')).toBe('/home/me/app');
    expect(valueOf('automation-globs')).toBe('**/*');
    // The folder follows the agent chosen, until the user types one.
    await choose('automation-agent', reviewer.id);
    expect(valueOf('automation-folder')).toBe('/home/me/site');
    await type('automation-folder', '/home/me/site/docs');
    await type('automation-globs', 'src/**/*.rs, Cargo.toml *.md');
    await type('automation-text', 'Run the tests that cover what changed');
    await fireEvent.click(screen.getByTestId('automation-submit'));

    const detail = await screen.findByTestId('automation-detail');
    expect(callsOf(backend, 'create_automation')).toEqual([
      {
        spec: {
          profile_id: reviewer.id,
          trigger: { on: 'files_changed', dir: '/home/me/site/docs', globs: ['src/**/*.rs', 'Cargo.toml', '*.md'] },
          action: { does: 'task', instruction: 'Run the tests that cover what changed', title: null, budget: null, time_limit_secs: null },
          zone: null,
          overlap: 'skip',
          catch_up: 'once',
          max_runs_per_hour: 6,
        },
      },
    ]);
    expect(within(detail).getByTestId('automation-detail-when').textContent).toBe('when files matching src/**/*.rs, Cargo.toml, *.md change in /home/me/site/docs');
    expect(within(screen.getByTestId('automations-view')).getByTestId('automation-when').textContent).toBe('when files matching src/**/*.rs, Cargo.toml, *.md change in /home/me/site/docs');
  });

  it('makes a loop when a branch moves, and asks for the folder and the branch when left empty', async () => {
    const { backend, coder } = await openForm();
    await fireEvent.click(screen.getByTestId('automation-kind-branch'));
    expect(screen.queryByTestId('automation-globs')).toBeNull();
    expect(valueOf('automation-folder')).toBe('/home/me/app');
    expect(valueOf('automation-branch')).toBe('main');
    await fireEvent.click(screen.getByTestId('automation-does-loop'));
    await type('automation-text', 'Keep main green');
    await type('automation-folder', ' ');
    await fireEvent.click(screen.getByTestId('automation-submit'));
    expect((await screen.findByTestId('error-repo')).textContent).toBe('Give the folder of the repository.');
    await waitFor(() => expect(document.activeElement).toBe(screen.getByTestId('automation-folder')));
    await type('automation-folder', '/home/me/app');
    await type('automation-branch', '');
    await fireEvent.click(screen.getByTestId('automation-submit'));
    expect((await screen.findByTestId('error-branch')).textContent).toBe('Give the branch it follows, such as main.');
    expect(screen.queryByTestId('error-repo')).toBeNull();
    expect(callsOf(backend, 'create_automation')).toEqual([]);

    await type('automation-branch', 'release');
    await fireEvent.click(screen.getByTestId('automation-submit'));
    const detail = await screen.findByTestId('automation-detail');
    expect(callsOf(backend, 'create_automation')).toEqual([
      {
        spec: expect.objectContaining({
          profile_id: coder.id,
          trigger: { on: 'branch_moved', repo: '/home/me/app', branch: 'release' },
          action: { does: 'loop', settings: expect.objectContaining({ goal: 'Keep main green' }) },
          zone: null,
        }),
      },
    ]);
    expect(within(detail).getByTestId('automation-detail-when').textContent).toBe('when release moves in /home/me/app');
  });

  it('shows the engine’s refusal of a folder under the trigger’s fields, and puts the focus on the folder', async () => {
    const { backend } = await openForm();
    const refusal = 'The folder /home/me/gone does not exist.';
    backend.failNext('create_automation', apiError('invalid_input', refusal, 'trigger'));
    await fireEvent.click(screen.getByTestId('automation-kind-files'));
    await type('automation-folder', '/home/me/gone');
    await type('automation-text', 'Review');
    await fireEvent.click(screen.getByTestId('automation-submit'));
    const when = screen.getByTestId('automation-when');
    expect((await within(when).findByTestId('error-trigger')).textContent).toBe(refusal);
    expect(screen.queryByTestId('automation-form-error')).toBeNull();
    await waitFor(() => expect(document.activeElement).toBe(screen.getByTestId('automation-folder')));
    expect(callsOf(backend, 'create_automation')[0]).toMatchObject({ spec: { trigger: { on: 'files_changed', dir: '/home/me/gone', globs: ['**/*'] } } });
    // Another way of saying when it runs is not told of the folder.
    await fireEvent.click(screen.getByTestId('automation-kind-branch'));
    expect(screen.queryByTestId('error-trigger')).toBeNull();
  });

  it.each([
    ['trigger', '"25:00" is not a schedule Switchboard reads: give a span such as "2h", or days and a time such as "weekdays 09:00".', 'error-trigger'],
    ['trigger', 'No time zone is called Mars/Olympus.', 'error-trigger'],
    ['budget', 'Claude-fake, the model coder uses, has no price in Settings: give a budget in tokens, or add its price.', 'error-budget'],
    ['max_runs_per_hour', 'Give between 1 and 60 runs an hour.', 'error-max_runs_per_hour'],
    ['instruction', 'Give the task an instruction.', 'error-instruction'],
  ])('shows the engine’s refusal of %s under its field', async (field, message, under) => {
    const { backend } = await openForm();
    backend.failNext('create_automation', apiError('invalid_input', message, field));
    await type('automation-every', '25:00');
    await type('automation-text', 'Review');
    await fireEvent.click(screen.getByTestId('automation-submit'));
    expect((await screen.findByTestId(under)).textContent).toBe(message);
    expect(screen.queryByTestId('automation-form-error')).toBeNull();
    expect(screen.getByTestId('automation-form')).toBeTruthy();
  });

  it('puts the focus on the field the engine refused, and forgets the refusal of another way of saying when', async () => {
    const { backend } = await openForm();
    backend.failNext('create_automation', apiError('invalid_input', 'No time zone is called Mars/Olympus.', 'trigger'));
    await type('automation-every', '2h');
    await type('automation-zone', 'Mars/Olympus');
    await fireEvent.click(screen.getByTestId('automation-submit'));
    await screen.findByTestId('error-trigger');
    await waitFor(() => expect(document.activeElement).toBe(screen.getByTestId('automation-every')));
    await fireEvent.click(screen.getByTestId('automation-kind-rule'));
    expect(screen.queryByTestId('error-trigger')).toBeNull();
  });

  it('shows a refusal about no field above the fields, and reads its own numbers', async () => {
    const { backend } = await openForm();
    await type('automation-every', '2h');
    await type('automation-max-runs', 'many');
    await fireEvent.click(screen.getByTestId('automation-submit'));
    expect((await screen.findByTestId('error-max_runs_per_hour')).textContent).toBe('Give a whole number of runs, such as 6.');
    expect(callsOf(backend, 'create_automation')).toEqual([]);
    await type('automation-max-runs', '6');
    backend.failNext('create_automation', apiError('disk_full', 'no space left on device'));
    await fireEvent.click(screen.getByTestId('automation-submit'));
    expect((await screen.findByTestId('automation-form-error')).textContent).toBe('The disk is full. Free some space, then try again.');
  });

  it('edits an automation as it is, and saves the change', async () => {
    const backend = new FakeBackend();
    const coder = backend.seedProfile({ name: 'coder' });
    backend.seedProfile({ name: 'builder', host: 'build-box' });
    backend.seedAutomation(automation(coder.id, { id: 'morning', trigger: { on: 'every', every: 'weekdays 09:00' }, zone: 'Europe/Paris', max_runs_per_hour: 3 }));
    await renderApp(backend);
    await fireEvent.click(screen.getByTestId('open-automations'));
    await fireEvent.click(screen.getByTestId('automation-open'));
    await fireEvent.click(await screen.findByTestId('automation-edit'));
    const form = await screen.findByTestId('automation-form');
    expect(within(form).getByRole('heading').textContent).toBe('Edit automation');
    expect((screen.getByTestId('automation-every') as HTMLInputElement).value).toBe('weekdays 09:00');
    expect((screen.getByTestId('automation-zone') as HTMLInputElement).value).toBe('Europe/Paris');
    expect((screen.getByTestId('automation-max-runs') as HTMLInputElement).value).toBe('3');
    // It stays on its machine.
    expect([...(screen.getByTestId('automation-agent') as HTMLSelectElement).options].map((o) => o.textContent)).toEqual(['coder']);
    await type('automation-every', 'daily 08:30');
    await fireEvent.click(screen.getByTestId('automation-submit'));
    await waitFor(() => expect(screen.queryByTestId('automation-form')).toBeNull());
    expect(callsOf(backend, 'update_automation')).toEqual([
      {
        automationId: 'morning',
        spec: {
          profile_id: coder.id,
          trigger: { on: 'every', every: 'daily 08:30' },
          action: { does: 'task', instruction: 'Review the open pull requests\nand say what each needs.', title: null, budget: null, time_limit_secs: null },
          zone: 'Europe/Paris',
          overlap: 'skip',
          catch_up: 'once',
          max_runs_per_hour: 3,
        },
      },
    ]);
    expect(within(await screen.findByTestId('automation-detail')).getByTestId('automation-detail-when').textContent).toBe('daily 08:30');
  });

  it('edits a file automation: its folder and patterns filled in', async () => {
    const backend = new FakeBackend();
    const coder = backend.seedProfile({ name: 'coder', cwd: '/home/me/app' });
    backend.seedAutomation(automation(coder.id, { id: 'watch', trigger: { on: 'files_changed', dir: '/srv/site', globs: ['src/**/*.rs', 'Cargo.toml'] } }));
    await editSeeded(backend);
    expect((screen.getByTestId('automation-kind-files') as HTMLInputElement).checked).toBe(true);
    expect(valueOf('automation-folder')).toBe('/srv/site');
    expect(valueOf('automation-globs')).toBe('src/**/*.rs, Cargo.toml');
    await type('automation-globs', 'src/**');
    await fireEvent.click(screen.getByTestId('automation-submit'));
    await waitFor(() => expect(screen.queryByTestId('automation-form')).toBeNull());
    expect(callsOf(backend, 'update_automation')[0]).toMatchObject({ automationId: 'watch', spec: { trigger: { on: 'files_changed', dir: '/srv/site', globs: ['src/**'] }, zone: null } });
  });

  it('edits a branch automation: its repository and branch filled in', async () => {
    const backend = new FakeBackend();
    const coder = backend.seedProfile({ name: 'coder', cwd: '/home/me/app' });
    backend.seedAutomation(automation(coder.id, { id: 'follow', trigger: { on: 'branch_moved', repo: '/srv/site', branch: 'release' } }));
    await editSeeded(backend);
    expect((screen.getByTestId('automation-kind-branch') as HTMLInputElement).checked).toBe(true);
    expect(valueOf('automation-folder')).toBe('/srv/site');
    expect(valueOf('automation-branch')).toBe('release');
    // Its agent's folder is not put over the folder it follows.
    await fireEvent.click(screen.getByTestId('automation-submit'));
    await waitFor(() => expect(screen.queryByTestId('automation-form')).toBeNull());
    expect(callsOf(backend, 'update_automation')[0]).toMatchObject({ automationId: 'follow', spec: { trigger: { on: 'branch_moved', repo: '/srv/site', branch: 'release' } } });
  });

  it('closes with Cancel or Escape, back to what was under it', async () => {
    await openForm();
    await fireEvent.click(screen.getByTestId('automation-cancel'));
    expect(screen.queryByTestId('automation-form')).toBeNull();
    expect(screen.getByTestId('automations-view')).toBeTruthy();
    await fireEvent.click(screen.getByTestId('automation-new'));
    await fireEvent.keyDown(screen.getByTestId('automation-every'), { key: 'Escape' });
    expect(screen.queryByTestId('automation-form')).toBeNull();
    expect(screen.getByTestId('automations-view')).toBeTruthy();
  });
});
