import { fireEvent, screen, within } from '@testing-library/svelte';
import { describe, expect, it } from 'vitest';
import { FakeBackend } from '../lib/fakeBackend';
import { callsOf, renderApp } from '../test/render';

async function openForm(backend: FakeBackend) {
  const app = await renderApp(backend);
  await fireEvent.click(screen.getByTestId('new-agent'));
  return app;
}

async function fill(values: { name?: string; command?: string; args?: string; cwd?: string; kind?: string }) {
  if (values.name !== undefined) await fireEvent.input(screen.getByTestId('agent-name'), { target: { value: values.name } });
  if (values.command !== undefined) await fireEvent.input(screen.getByTestId('agent-command'), { target: { value: values.command } });
  if (values.args !== undefined) await fireEvent.input(screen.getByTestId('agent-args'), { target: { value: values.args } });
  if (values.cwd !== undefined) await fireEvent.input(screen.getByTestId('agent-cwd'), { target: { value: values.cwd } });
  if (values.kind !== undefined) await fireEvent.change(screen.getByTestId('agent-kind'), { target: { value: values.kind } });
}

const submit = () => fireEvent.click(screen.getByTestId('agent-submit'));

describe('new agent form', () => {
  it('shows a missing command under the command field and creates nothing', async () => {
    const backend = new FakeBackend({ commands: ['bash'], directories: ['/work'] });
    await openForm(backend);
    await fill({ name: 'mine', command: 'no-such-agent', cwd: '/work' });
    await submit();

    const error = await screen.findByTestId('error-command');
    expect(error.textContent).toBe('command `no-such-agent` was not found: it is neither an executable file nor on PATH');
    expect(screen.queryByTestId('error-cwd')).toBeNull();
    expect(screen.queryByTestId('form-error')).toBeNull();
    expect(screen.getByTestId('agent-command').getAttribute('aria-invalid')).toBe('true');
    // Still on the form, and no profile appeared anywhere.
    expect(screen.getByTestId('agent-form')).toBeTruthy();
    expect(await backend.listProfiles()).toEqual([]);
    expect(screen.queryAllByTestId('profile-entry')).toHaveLength(0);
  });

  it('shows a missing working directory under the directory field and creates nothing', async () => {
    const backend = new FakeBackend({ commands: ['bash'], directories: ['/work'] });
    await openForm(backend);
    await fill({ name: 'mine', command: 'bash', cwd: '/nope' });
    await submit();

    const error = await screen.findByTestId('error-cwd');
    expect(error.textContent).toBe('working directory /nope does not exist or is not a directory');
    expect(screen.queryByTestId('error-command')).toBeNull();
    expect(await backend.listProfiles()).toEqual([]);
  });

  it('shows an error without a form field at the top of the form', async () => {
    const backend = new FakeBackend();
    backend.failNext('create_profile', { code: 'storage', message: 'database is locked', field: null });
    await openForm(backend);
    await fill({ name: 'mine', command: 'bash', cwd: '/tmp' });
    await submit();

    expect((await screen.findByTestId('form-error')).textContent).toBe('database is locked');
    expect(screen.queryByTestId('error-command')).toBeNull();
  });

  it('clears an old field error on the next attempt', async () => {
    const backend = new FakeBackend({ commands: ['bash'], directories: ['/work'] });
    await openForm(backend);
    await fill({ name: 'mine', command: 'nope', cwd: '/work' });
    await submit();
    await screen.findByTestId('error-command');

    await fill({ command: 'bash', cwd: '/missing' });
    await submit();
    await screen.findByTestId('error-cwd');
    expect(screen.queryByTestId('error-command')).toBeNull();
  });

  it('refuses a quiet alert that is not a number of minutes', async () => {
    const backend = new FakeBackend();
    await openForm(backend);
    await fill({ name: 'mine', command: 'bash', cwd: '/tmp' });
    await fireEvent.input(screen.getByTestId('agent-quiet-alert'), { target: { value: 'soon' } });
    await submit();

    expect((await screen.findByTestId('error-quiet_alert_secs')).textContent).toBe('minutes, as a number (0: never alert)');
    expect(callsOf(backend, 'create_profile')).toEqual([]);
  });

  it('refuses an unterminated quote in the arguments without calling the backend', async () => {
    const backend = new FakeBackend();
    await openForm(backend);
    await fill({ name: 'mine', command: 'bash', args: '-c "echo hi', cwd: '/tmp' });
    await submit();

    expect((await screen.findByTestId('error-args')).textContent).toBe('A " quote is never closed. Add the closing ", or remove the quote.');
    expect(callsOf(backend, 'create_profile')).toEqual([]);
  });

  it('creates the profile, closes the form, selects the profile and starts nothing', async () => {
    const backend = new FakeBackend();
    await openForm(backend);
    await fill({ name: 'claude-main', command: 'claude', args: '--model sonnet --prompt "two words"', cwd: '/work', kind: 'claude-code' });
    await fireEvent.change(screen.getByTestId('agent-completion'), { target: { value: 'both' } });
    expect((screen.getByTestId('agent-signal-protocols') as HTMLInputElement).checked).toBe(true);
    await fireEvent.click(screen.getByTestId('agent-signal-protocols'));
    await fireEvent.input(screen.getByTestId('agent-quiet-alert'), { target: { value: '2.5' } });
    await submit();

    const view = await screen.findByTestId('profile-view');
    expect(within(view).getByRole('heading').textContent).toBe('claude-main');
    expect(screen.queryByTestId('agent-form')).toBeNull();
    expect(callsOf(backend, 'create_profile')).toEqual([
      {
        spec: {
          name: 'claude-main',
          command: 'claude',
          args: ['--model', 'sonnet', '--prompt', 'two words'],
          env: {},
          cwd: '/work',
          kind: 'claude-code',
          start_on_launch: false,
          ready_pattern: null,
          ready_quiet_ms: 800,
          task_time_limit_secs: 1800,
          completion: 'both',
          signal_protocols: false,
          quiet_alert_secs: 150,
        },
      },
    ]);
    expect(callsOf(backend, 'start_session')).toEqual([]);
    const entry = screen.getByTestId('profile-entry');
    expect(entry.getAttribute('data-profile-name')).toBe('claude-main');
  });

  it('sends the task settings, in seconds, and refuses a time limit that is not a number', async () => {
    const backend = new FakeBackend();
    await openForm(backend);
    await fill({ name: 'mine', command: 'bash', cwd: '/tmp' });
    await fireEvent.input(screen.getByTestId('agent-task-time-limit'), { target: { value: 'soon' } });
    await submit();
    expect((await screen.findByTestId('error-task_time_limit_secs')).textContent).toBe('The time limit is a number of minutes, such as 30.');
    expect(callsOf(backend, 'create_profile')).toEqual([]);

    await fireEvent.input(screen.getByTestId('agent-task-time-limit'), { target: { value: '5' } });
    await fireEvent.input(screen.getByTestId('agent-ready-pattern'), { target: { value: '^> $' } });
    await fireEvent.input(screen.getByTestId('agent-ready-quiet-ms'), { target: { value: '300' } });
    await submit();
    await screen.findByTestId('profile-view');
    expect(callsOf(backend, 'create_profile')[0].spec).toMatchObject({ ready_pattern: '^> $', ready_quiet_ms: 300, task_time_limit_secs: 300 });
  });

  it('cancel closes the form without creating anything', async () => {
    const backend = new FakeBackend();
    await openForm(backend);
    await fill({ name: 'mine', command: 'bash', cwd: '/tmp' });
    await fireEvent.click(screen.getByTestId('agent-cancel'));

    expect(screen.queryByTestId('agent-form')).toBeNull();
    expect(callsOf(backend, 'create_profile')).toEqual([]);
  });
});
