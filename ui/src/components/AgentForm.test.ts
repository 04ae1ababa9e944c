import { fireEvent, screen, waitFor, within } from '@testing-library/svelte';
import { describe, expect, it } from 'vitest';
import { FakeBackend } from '../lib/fakeBackend';
import { connectedHost } from '../test/records';
import presets from '../test/presets.json';
import { callsOf, renderApp } from '../test/render';
import { cliMissing, folderMissing, nameMissing, nameTaken, notInRepository, programMissing } from '../test/profileProblems';

async function openForm(backend: FakeBackend) {
  const app = await renderApp(backend);
  await fireEvent.click(screen.getByTestId('new-agent'));
  return app;
}

type Fillable = 'name' | 'command' | 'args' | 'cwd' | 'task-time-limit' | 'ready-pattern' | 'ready-quiet-ms' | 'quiet-alert';

async function fill(values: Partial<Record<Fillable, string>> & { kind?: string }) {
  for (const [key, value] of Object.entries(values)) {
    if (key === 'kind') continue;
    await fireEvent.input(screen.getByTestId(`agent-${key}`), { target: { value } });
  }
  if (values.kind !== undefined) await chooseKind(values.kind);
}

async function chooseKind(kind: string) {
  await fireEvent.change(screen.getByTestId('agent-kind'), { target: { value: kind } });
  // The presets arrive from the backend.
  await new Promise((resolve) => setTimeout(resolve, 0));
}

const valueOf = (testId: string) => (screen.getByTestId(testId) as HTMLInputElement).value;
const errorOf = (field: string) => screen.queryByTestId(`error-${field}`)?.textContent ?? null;
const submit = () => fireEvent.click(screen.getByTestId('agent-submit'));

const claude = presets.find((p) => p.kind === 'claude-code')!;
const codex = presets.find((p) => p.kind === 'codex')!;

describe('new agent form', () => {
  it('shows a missing command under the command field, in words, and creates nothing', async () => {
    const backend = new FakeBackend({ commands: ['bash'], directories: ['/work'] });
    await openForm(backend);
    await fill({ name: 'mine', command: 'no-such-agent', cwd: '/work' });
    backend.setProfileProblems([programMissing('no-such-agent')]);
    await submit();

    await screen.findByTestId('error-command');
    expect(errorOf('command')).toBe('No program named “no-such-agent” was found on PATH. Check the spelling, or give the program\'s full path.');
    expect(errorOf('cwd')).toBeNull();
    expect(screen.queryByTestId('form-error')).toBeNull();
    expect(screen.getByTestId('agent-command').getAttribute('aria-invalid')).toBe('true');
    // Still on the form, and no profile appeared anywhere.
    expect(screen.getByTestId('agent-form')).toBeTruthy();
    expect(await backend.listProfiles()).toEqual([]);
    expect(screen.queryAllByTestId('profile-entry')).toHaveLength(0);
  });

  it('shows every problem the engine finds at once, each under its field', async () => {
    const backend = new FakeBackend({ commands: ['bash'], directories: ['/work'] });
    await backend.createProfile({ name: 'reviewer', command: 'bash', args: [], env: {}, cwd: '/work', kind: 'generic' } as never);
    await openForm(backend);
    await fill({ name: 'reviewer', command: 'clod', cwd: '/nope' });
    backend.setProfileProblems([nameTaken('reviewer'), programMissing('clod'), folderMissing('/nope')]);
    await submit();

    await screen.findByTestId('error-cwd');
    expect(errorOf('name')).toBe('Another agent is already called “reviewer”. Choose a different name.');
    expect(errorOf('command')).toBe('No program named “clod” was found on PATH. Check the spelling, or give the program\'s full path.');
    expect(errorOf('cwd')).toBe('There is no folder at /nope.');
    expect(screen.getByTestId('form-problems').textContent).toBe('Fix the 3 marked fields.');
    // The first field at fault has the focus, so the user is taken to it.
    expect(document.activeElement).toBe(screen.getByTestId('agent-name'));
    // One try, refused: the first agent is all there is.
    expect(callsOf(backend, 'create_profile')).toHaveLength(2);
    expect((await backend.listProfiles()).map((p) => p.name)).toEqual(['reviewer']);
  });

  it("joins the form's own problems to the engine's, without saving", async () => {
    const backend = new FakeBackend({ commands: ['bash'], directories: ['/work'] });
    await openForm(backend);
    await fill({ name: '', command: 'clod', args: '-c "echo hi', cwd: '/work', 'task-time-limit': 'soon', 'ready-quiet-ms': 'fast', 'quiet-alert': 'never' });
    backend.setProfileProblems([nameMissing(), programMissing('clod')]);
    await submit();

    await screen.findByTestId('error-args');
    expect(errorOf('name')).toBe('Give the agent a name.');
    expect(errorOf('command')).toBe('No program named “clod” was found on PATH. Check the spelling, or give the program\'s full path.');
    expect(errorOf('args')).toBe('A " quote is never closed. Add the closing ", or remove the quote.');
    expect(errorOf('task_time_limit_secs')).toBe('The time limit is a number of minutes, such as 30.');
    expect(errorOf('ready_quiet_ms')).toBe('Give a whole number of milliseconds, such as 800.');
    expect(errorOf('quiet_alert_secs')).toBe('Give the minutes as a number, such as 10 (0 never alerts).');
    expect(screen.getByTestId('form-problems').textContent).toBe('Fix the 6 marked fields.');
    expect(callsOf(backend, 'check_profile')).toHaveLength(1);
    expect(callsOf(backend, 'create_profile')).toEqual([]);
  });

  it("keeps a field's error in place while the user types, and checks it again when they leave the field", async () => {
    const backend = new FakeBackend({ commands: ['bash'], directories: ['/work'] });
    await openForm(backend);
    await fill({ name: 'mine', command: 'nope', cwd: '/missing' });
    backend.setProfileProblems([programMissing('nope'), folderMissing('/missing')]);
    await submit();
    await screen.findByTestId('error-command');
    expect(errorOf('cwd')).not.toBeNull();

    // Typing moves nothing: the error stays under the field as the user types.
    const command = screen.getByTestId('agent-command');
    await fill({ command: 'bas' });
    await fill({ command: 'bash' });
    expect(errorOf('command')).toBe('No program named “nope” was found on PATH. Check the spelling, or give the program\'s full path.');
    expect(screen.queryByTestId('settled-command')).toBeNull();

    // Leaving the field asks again: put right, its place says so; the folder's error is untouched.
    backend.setProfileProblems([folderMissing('/missing')]);
    await fireEvent.focusOut(command);
    await waitFor(() => expect(screen.getByTestId('settled-command').textContent).toBe('Looks right now.'));
    expect(errorOf('command')).toBeNull();
    expect(screen.getByTestId('agent-command').getAttribute('aria-invalid')).toBeNull();
    expect(errorOf('cwd')).toBe('There is no folder at /missing.');
    expect(screen.getByTestId('form-problems').textContent).toBe('Fix the marked field.');

    // Still wrong when left: said anew.
    await fill({ cwd: '/elsewhere' });
    backend.setProfileProblems([folderMissing('/elsewhere')]);
    await fireEvent.focusOut(screen.getByTestId('agent-cwd'));
    await waitFor(() => expect(errorOf('cwd')).toBe('There is no folder at /elsewhere.'));
    // A field that showed nothing is checked at submit only: the engine is not asked.
    backend.setProfileProblems([nameMissing(), folderMissing('/elsewhere')]);
    const checks = callsOf(backend, 'check_profile').length;
    await fill({ name: '' });
    await fireEvent.focusOut(screen.getByTestId('agent-name'));
    expect(errorOf('name')).toBeNull();
    expect(callsOf(backend, 'check_profile')).toHaveLength(checks);

    backend.setProfileProblems([]);
    await fill({ name: 'mine', cwd: '/work' });
    await submit();
    await screen.findByTestId('profile-view');
  });

  it('says how to install Claude Code or Codex when its CLI is missing', async () => {
    const backend = new FakeBackend({ commands: ['bash'], directories: ['/work'] });
    await openForm(backend);
    await fill({ name: 'mine', cwd: '/work' });
    backend.setProfileProblems([cliMissing('claude-code')]);
    await fill({ kind: 'claude-code' });
    await submit();
    expect(await screen.findByTestId('error-command')).toHaveProperty(
      'textContent',
      'Claude Code is not installed: there is no program named “claude” on PATH. Install it with npm install -g @anthropic-ai/claude-code, then try again.',
    );
    backend.setProfileProblems([cliMissing('codex')]);
    await fill({ kind: 'codex' });
    await submit();
    await waitFor(() => expect(errorOf('command')).toContain('Install it with npm install -g @openai/codex'));
  });

  it('shows an error without a form field at the top of the form', async () => {
    const backend = new FakeBackend();
    backend.failNext('create_profile', { code: 'storage', message: 'database is locked', field: null });
    await openForm(backend);
    await fill({ name: 'mine', command: 'bash', cwd: '/tmp' });
    await submit();

    expect((await screen.findByTestId('form-error')).textContent).toBe('database is locked');
    expect(errorOf('command')).toBeNull();
  });

  it('has no placeholder that could pass for a value: empty fields are empty, help is under them', async () => {
    await openForm(new FakeBackend());
    const form = screen.getByTestId('agent-form');
    for (const input of form.querySelectorAll('input')) expect(input.getAttribute('placeholder'), input.dataset.testid).toBeNull();
    expect(valueOf('agent-name')).toBe('');
    expect(valueOf('agent-command')).toBe('');
    expect(screen.getByTestId('help-name').textContent).toBe('How the sidebar and notifications call it, such as reviewer.');
    expect(screen.getByTestId('help-command').textContent).toContain('such as claude');
    // The defaults are written out as the values they are.
    expect(valueOf('agent-task-time-limit')).toBe('30');
    expect(valueOf('agent-ready-quiet-ms')).toBe('800');
    expect(valueOf('agent-quiet-alert')).toBe('10');
  });

  it('keeps Create and Cancel in a footer that stays at the bottom of the view', async () => {
    await openForm(new FakeBackend());
    const footer = screen.getByTestId('agent-form-footer');
    expect(within(footer).getByTestId('agent-submit').textContent?.trim()).toBe('Create agent');
    expect(within(footer).getByTestId('agent-cancel')).toBeTruthy();
    // The footer is the form's last part, so sticking to the bottom keeps it over the fields.
    expect(screen.getByTestId('agent-form').lastElementChild).toBe(footer);
  });

  it('creates the profile, closes the form, selects the profile and starts nothing', async () => {
    const backend = new FakeBackend();
    await openForm(backend);
    await fill({ name: 'claude-main', command: 'claude', args: '--model sonnet --prompt "two words"', cwd: '/work', kind: 'claude-code' });
    await fireEvent.change(screen.getByTestId('agent-completion'), { target: { value: 'both' } });
    expect((screen.getByTestId('agent-signal-protocols') as HTMLInputElement).checked).toBe(true);
    // A Claude Code agent taught the protocols is offered Switchboard's tools for them, on at first.
    const tools = screen.getByTestId('agent-switchboard-tools') as HTMLInputElement;
    expect(tools.checked).toBe(true);
    await fireEvent.click(tools);
    await fireEvent.click(screen.getByTestId('agent-signal-protocols'));
    expect(screen.queryByTestId('agent-switchboard-tools'), 'no tools without the protocols').toBeNull();
    await fill({ 'quiet-alert': '2.5', 'ready-pattern': '' });
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
          switchboard_tools: false,
          quiet_alert_secs: 150,
          isolation: 'none',
          account: null,
          daily_budget: null,
        },
      },
    ]);
    expect(callsOf(backend, 'start_session')).toEqual([]);
    const entry = screen.getByTestId('profile-entry');
    expect(entry.getAttribute('data-profile-name')).toBe('claude-main');
  });

  it('sends the task settings, in seconds', async () => {
    const backend = new FakeBackend();
    await openForm(backend);
    await fill({ name: 'mine', command: 'bash', cwd: '/tmp', 'task-time-limit': '5', 'ready-pattern': '^> $', 'ready-quiet-ms': '300' });
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

describe('choosing a kind', () => {
  it("fills in the kind's working settings and says what it filled in", async () => {
    const backend = new FakeBackend();
    await openForm(backend);
    await fill({ name: 'reviewer', cwd: '/work' });
    await chooseKind('claude-code');

    expect(valueOf('agent-command')).toBe('claude');
    expect(valueOf('agent-args')).toBe('--permission-mode acceptEdits');
    expect(valueOf('agent-ready-pattern')).toBe(claude.ready_pattern);
    expect(screen.getByTestId('agent-preset-filled').textContent).toBe('Filled in for Claude Code: command, arguments and ready pattern.');
    expect(screen.getByTestId('agent-preset-note').textContent).toContain('.claude/settings.local.json');

    await submit();
    await screen.findByTestId('profile-view');
    expect(callsOf(backend, 'create_profile')[0].spec).toMatchObject({
      kind: 'claude-code',
      command: 'claude',
      args: ['--permission-mode', 'acceptEdits'],
      ready_pattern: claude.ready_pattern,
    });
  });

  it('replaces what the previous kind filled in, and empties it for any command', async () => {
    await openForm(new FakeBackend());
    await chooseKind('claude-code');
    await chooseKind('codex');
    expect(valueOf('agent-command')).toBe('codex');
    expect(valueOf('agent-args')).toBe('--no-daemon --dangerously-bypass-hook-trust');
    expect(valueOf('agent-ready-pattern')).toBe(codex.ready_pattern);
    expect(screen.getByTestId('agent-preset-note').dataset.kind).toBe('codex');

    await chooseKind('generic');
    expect(valueOf('agent-command')).toBe('');
    expect(valueOf('agent-args')).toBe('');
    expect(valueOf('agent-ready-pattern')).toBe('');
    expect(screen.queryByTestId('agent-preset-note')).toBeNull();
  });

  it('keeps what the user typed, says so, and fills it only when asked', async () => {
    await openForm(new FakeBackend());
    await fill({ command: '/opt/claude/bin/claude' });
    await chooseKind('claude-code');

    expect(valueOf('agent-command')).toBe('/opt/claude/bin/claude');
    expect(valueOf('agent-args')).toBe('--permission-mode acceptEdits');
    expect(screen.getByTestId('agent-preset-filled').textContent).toBe('Filled in for Claude Code: arguments and ready pattern.');
    expect(screen.getByTestId('agent-preset-kept').textContent).toContain('Kept what you typed for command.');

    await fireEvent.click(screen.getByTestId('agent-preset-apply'));
    expect(valueOf('agent-command')).toBe('claude');
    expect(screen.queryByTestId('agent-preset-kept')).toBeNull();
  });

  it("never changes an existing agent's settings unless the user asks", async () => {
    const backend = new FakeBackend();
    const agent = await backend.createProfile({ name: 'old', command: 'bash', args: ['-l'], env: {}, cwd: '/work', kind: 'generic' } as never);
    await renderApp(backend);
    await fireEvent.click(screen.getByTestId('profile-select'));
    await fireEvent.click(await screen.findByTestId('edit-profile'));

    await chooseKind('codex');
    // Kept as the engine keeps it: where it was found on PATH when the agent was made.
    expect(valueOf('agent-command')).toBe('/usr/bin/bash');
    expect(valueOf('agent-args')).toBe('-l');
    expect(screen.getByTestId('agent-preset-kept').textContent).toContain('Kept this agent’s command, arguments and ready pattern.');

    await fireEvent.click(screen.getByTestId('agent-preset-apply'));
    expect(valueOf('agent-command')).toBe('codex');
    expect(valueOf('agent-args')).toBe('--no-daemon --dangerously-bypass-hook-trust');
    await submit();
    await screen.findByTestId('profile-view');
    expect(callsOf(backend, 'update_profile')[0]).toMatchObject({ profileId: agent.id, spec: { kind: 'codex', command: 'codex' } });
  });
});

describe('the ready pattern', () => {
  it('says in one sentence what it is, with an example', async () => {
    await openForm(new FakeBackend());
    expect(screen.getByTestId('help-ready_pattern').textContent).toBe(
      'A task is typed in only once the line at the cursor matches this regular expression, so ^agent> $ waits for a prompt reading “agent> ”; empty: whenever its output has been quiet.',
    );
    // A new agent has no screen to fill it from.
    expect(screen.queryByTestId('agent-ready-pattern-fill')).toBeNull();
  });

  it("fills from the agent's screen: the prompt the engine read there, as the pattern it made of it", async () => {
    const backend = new FakeBackend({ commands: ['demo'], directories: ['/work'] });
    const agent = await backend.createProfile({ name: 'demo', command: 'demo', args: [], env: {}, cwd: '/work', kind: 'generic', ready_pattern: 'demo> $' } as never);
    const session = backend.seedSession(agent.id, { state: 'running', pid: 9 });
    backend.output(session.id, 'Welcome (v1.2)\r\nagent> ');
    await renderApp(backend);
    await fireEvent.click(screen.getByTestId('profile-select'));
    await fireEvent.click(await screen.findByTestId('edit-profile'));

    // The engine reads the last line on the screen and escapes and anchors it (tested in Rust).
    backend.answerNext('screen_snapshot', { prompt: { line: 'agent>', ready_pattern: '^\\s*agent>\\s*$' } });
    await fireEvent.click(screen.getByTestId('agent-ready-pattern-fill'));
    await waitFor(() => expect(valueOf('agent-ready-pattern')).toBe('^\\s*agent>\\s*$'));
    expect(screen.getByTestId('agent-ready-pattern-filled').textContent).toBe('Filled from the last line on its screen: “agent>”.');
    expect(callsOf(backend, 'screen_snapshot')).toEqual([{ sessionId: session.id, recentLines: 0 }]);
    await submit();
    await screen.findByTestId('profile-view');
    expect(callsOf(backend, 'update_profile')[0]).toMatchObject({ spec: { ready_pattern: '^\\s*agent>\\s*$' } });
  });
});

describe('the folder picker', () => {
  it('puts the chosen folder in the field, starting from what is there, and a cancel changes nothing', async () => {
    const backend = new FakeBackend({ pickedFolders: ['/work/project', null] });
    await openForm(backend);
    await fill({ cwd: '/work' });
    await fireEvent.click(screen.getByTestId('agent-cwd-choose'));
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(valueOf('agent-cwd')).toBe('/work/project');
    expect(callsOf(backend, 'pick_folder')).toEqual([{ start: '/work' }]);

    await fireEvent.click(screen.getByTestId('agent-cwd-choose'));
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(valueOf('agent-cwd')).toBe('/work/project');
  });

  it("clears the folder's error once a folder is picked", async () => {
    const backend = new FakeBackend({ directories: ['/work'], pickedFolders: ['/work'] });
    await openForm(backend);
    await fill({ name: 'mine', command: 'bash', cwd: '/nope' });
    backend.setProfileProblems([folderMissing('/nope')]);
    await submit();
    await screen.findByTestId('error-cwd');

    backend.setProfileProblems([]);
    await fireEvent.click(screen.getByTestId('agent-cwd-choose'));
    await waitFor(() => expect(errorOf('cwd')).toBeNull());
    expect(screen.getByTestId('settled-cwd').textContent).toBe('Looks right now.');
    await submit();
    await screen.findByTestId('profile-view');
  });
});

describe("the folder browser, for an engine on another machine", () => {
  it("browses the engine machine's folders instead of this desktop's, and puts the chosen one in the field", async () => {
    const backend = new FakeBackend({ host: 'dev@box', pickedFolders: ['/work'] });
    await openForm(backend);
    const choose = screen.getByTestId('agent-cwd-choose');
    expect(choose.title).toBe('Folders on dev@box');
    expect(screen.getByTestId('agent-form').textContent).toContain('The folder on dev@box the agent works in');

    await fireEvent.click(choose);
    await waitFor(() => expect(screen.getByTestId('folder-browser').dataset.path).toBe('/home/dev'));
    expect(screen.getByTestId('folder-browser').textContent).toContain('Folders on dev@box');
    const projects = screen.getAllByTestId('folder-browser-entry').find((e) => e.dataset.name === 'projects')!;
    await fireEvent.click(projects);
    await waitFor(() => expect(screen.getByTestId('folder-browser').dataset.path).toBe('/home/dev/projects'));
    await fireEvent.click(screen.getByTestId('folder-browser-use'));

    await waitFor(() => expect(screen.queryByTestId('folder-browser')).toBeNull());
    expect(valueOf('agent-cwd')).toBe('/home/dev/projects');
    expect(document.activeElement).toBe(choose);
    // This desktop's own dialog was never asked.
    expect(callsOf(backend, 'pick_folder')).toEqual([]);
  });

  it("opens at the field's folder, and Cancel or Escape leave the field and the form as they were", async () => {
    const backend = new FakeBackend({ host: 'dev@box' });
    await openForm(backend);
    await fill({ cwd: '/home/dev/notes' });
    await fireEvent.click(screen.getByTestId('agent-cwd-choose'));
    await waitFor(() => expect(screen.getByTestId('folder-browser').dataset.path).toBe('/home/dev/notes'));
    expect(callsOf(backend, 'list_folder')).toEqual([{ path: '/home/dev/notes' }]);
    await goTo('/work');
    await fireEvent.click(screen.getByTestId('folder-browser-cancel'));
    await waitFor(() => expect(screen.queryByTestId('folder-browser')).toBeNull());
    expect(valueOf('agent-cwd')).toBe('/home/dev/notes');

    await fireEvent.click(screen.getByTestId('agent-cwd-choose'));
    await screen.findByTestId('folder-browser');
    await fireEvent.keyDown(document.activeElement!, { key: 'Escape' });
    await waitFor(() => expect(screen.queryByTestId('folder-browser')).toBeNull());
    // Escape closed the browser, not the form under it.
    expect(screen.getByTestId('agent-form')).toBeTruthy();
    expect(valueOf('agent-cwd')).toBe('/home/dev/notes');
  });

  it("keeps this desktop's folder dialog for an engine on this machine", async () => {
    const backend = new FakeBackend({ pickedFolders: ['/work'] });
    await openForm(backend);
    expect(screen.getByTestId('agent-cwd-choose').title).toBe('');
    await fireEvent.click(screen.getByTestId('agent-cwd-choose'));
    await waitFor(() => expect(valueOf('agent-cwd')).toBe('/work'));
    expect(screen.queryByTestId('folder-browser')).toBeNull();
    expect(callsOf(backend, 'pick_folder')).toEqual([{ start: null }]);
    expect(callsOf(backend, 'list_folder')).toEqual([]);
  });
});

async function goTo(path: string) {
  await fireEvent.input(screen.getByTestId('folder-browser-go'), { target: { value: path } });
  await fireEvent.submit(screen.getByTestId('folder-browser-go').closest('form')!);
}

describe('where tasks work', () => {
  const shop = () => new FakeBackend({ directories: ['/work', '/tmp'], repositories: [{ root: '/work/shop', setup_command: 'npm ci' }] });
  const worktreeChoice = () => screen.getByTestId('agent-isolation-worktree') as HTMLInputElement;
  const help = () => screen.getByTestId('help-isolation').textContent;

  it('offers a worktree per task only for a folder in a git repository, and says why not otherwise', async () => {
    const backend = shop();
    await openForm(backend);
    // No folder yet: nothing to ask about.
    expect(worktreeChoice().disabled).toBe(true);
    expect(help()).toBe("Give the agent's folder first: each task's worktree is made from the git repository it is in.");
    expect((screen.getByTestId('agent-isolation-none') as HTMLInputElement).checked).toBe(true);

    await fill({ cwd: '/tmp' });
    await waitFor(() => expect(help()).toBe('The folder is not inside a git repository, so its tasks cannot get worktrees of their own.'));
    expect(worktreeChoice().disabled).toBe(true);
    expect(screen.queryByTestId('agent-setup-command')).toBeNull();

    await fill({ cwd: '/work/shop' });
    await waitFor(() => expect(worktreeChoice().disabled).toBe(false));
    expect(help()).toBe('In the git repository at /work/shop: each task gets a branch of its own, from its branch main.');
    expect(callsOf(backend, 'folder_repository').at(-1)).toEqual({ folder: '/work/shop' });

    await fill({ cwd: '/nowhere' });
    await waitFor(() => expect(help()).toBe('The folder does not exist.'));
    expect(worktreeChoice().disabled).toBe(true);
  });

  it("saves the choice, and the repository's setup command with the agent when it was changed", async () => {
    const backend = shop();
    await openForm(backend);
    await fill({ name: 'builder', command: 'bash', cwd: '/work/shop' });
    await waitFor(() => expect(worktreeChoice().disabled).toBe(false));
    await fireEvent.click(worktreeChoice());

    // The repository's own command, shared by every agent working there.
    const setup = (await screen.findByTestId('agent-setup-command')) as HTMLInputElement;
    expect(setup.value).toBe('npm ci');
    expect(screen.getByTestId('help-setup_command').textContent).toBe(
      'Runs in each new worktree of /work/shop before its task starts, such as npm ci. It belongs to the repository: every agent working there shares it.',
    );
    await fireEvent.input(setup, { target: { value: ' pnpm install ' } });
    await submit();

    await screen.findByTestId('profile-view');
    expect(callsOf(backend, 'create_profile')[0].spec).toMatchObject({ cwd: '/work/shop', isolation: 'worktree' });
    expect(callsOf(backend, 'set_repository_setup')).toEqual([{ repository: '/work/shop', setupCommand: 'pnpm install' }]);
    expect(await backend.folderRepository('/work/shop')).toMatchObject({ setup_command: 'pnpm install' });
    // The setup went with the agent: asked after the engine took the agent's settings, before it was created.
    const order = backend.calls.map((c) => c.command).filter((c) => ['check_profile', 'set_repository_setup', 'create_profile'].includes(c));
    expect(order).toEqual(['check_profile', 'set_repository_setup', 'create_profile']);
  });

  it("leaves the repository's setup alone when it was not changed, and for an agent working in its folder", async () => {
    const backend = shop();
    await openForm(backend);
    await fill({ name: 'builder', command: 'bash', cwd: '/work/shop' });
    await waitFor(() => expect(worktreeChoice().disabled).toBe(false));
    await fireEvent.click(worktreeChoice());
    await screen.findByTestId('agent-setup-command');
    await fireEvent.click(screen.getByTestId('agent-isolation-none'));
    expect(screen.queryByTestId('agent-setup-command')).toBeNull();
    await submit();
    await screen.findByTestId('profile-view');
    expect(callsOf(backend, 'create_profile')[0].spec).toMatchObject({ isolation: 'none' });
    expect(callsOf(backend, 'set_repository_setup')).toEqual([]);
  });

  it("saves no setup for an agent the engine refuses, and shows every problem", async () => {
    const backend = shop();
    await openForm(backend);
    await fill({ name: '', command: 'bash', cwd: '/work/shop' });
    await waitFor(() => expect(worktreeChoice().disabled).toBe(false));
    await fireEvent.click(worktreeChoice());
    await fireEvent.input(await screen.findByTestId('agent-setup-command'), { target: { value: 'make deps' } });
    backend.setProfileProblems([nameMissing()]);
    await submit();
    expect((await screen.findByTestId('error-name')).textContent).toBe('Give the agent a name.');
    expect(callsOf(backend, 'set_repository_setup')).toEqual([]);
    expect(callsOf(backend, 'create_profile')).toEqual([]);
  });

  it("shows the engine's problem with where tasks work under the choice", async () => {
    const backend = shop();
    // An agent set to work apart whose folder is not (or no longer) in a repository.
    const agent = backend.seedProfile({ name: 'old', command: 'bash', cwd: '/tmp', isolation: 'worktree' });
    await renderApp(backend);
    await fireEvent.click(screen.getByTestId('profile-select'));
    await fireEvent.click(await screen.findByTestId('edit-profile'));
    expect(worktreeChoice().checked).toBe(true);
    await waitFor(() => expect(help()).toBe('The folder is not inside a git repository, so its tasks cannot get worktrees of their own.'));

    backend.setProfileProblems([notInRepository()]);
    await submit();
    expect((await screen.findByTestId('error-isolation')).textContent).toBe(
      'Tasks can work in worktrees of their own only when the folder is inside a git repository; this one is not.',
    );
    expect(document.activeElement).toBe(worktreeChoice());
    expect(callsOf(backend, 'update_profile')).toHaveLength(1);

    // Back to the agent's folder: put right when checked again.
    backend.setProfileProblems([]);
    await fireEvent.click(screen.getByTestId('agent-isolation-none'));
    await waitFor(() => expect(screen.getByTestId('settled-isolation').textContent).toBe('Looks right now.'));
    await submit();
    await screen.findByTestId('profile-view');
    expect(callsOf(backend, 'update_profile').at(-1)).toMatchObject({ profileId: agent.id, spec: { isolation: 'none' } });
  });
});

describe('the machine a new agent runs on', () => {
  /** A window showing build-box (reached) and gpu-box (lost) besides this computer. */
  function withMachines() {
    const backend = new FakeBackend({ commands: ['bash', 'claude'], directories: ['/work'], pickedFolders: ['/work'] });
    backend.setHostLink({ destination: 'build-box', link: connectedHost('build-box') });
    backend.setHostLink({ destination: 'gpu-box', link: { state: 'lost', reason: 'The connection was lost.', host: 'gpu-box' } });
    return backend;
  }
  const options = () => [...(screen.getByTestId('agent-machine') as HTMLSelectElement).options].map((o) => o.textContent);
  const machineOf = (backend: FakeBackend, ...commands: string[]) => backend.calls.filter((c) => commands.includes(c.command)).map((c) => c.machine);

  it('is not asked in a window that shows no other machine', async () => {
    await openForm(new FakeBackend());
    expect(screen.queryByTestId('agent-machine')).toBeNull();
  });

  it('offers this computer and each machine reached now, and makes the agent there, asking everything of its engine', async () => {
    const backend = withMachines();
    await openForm(backend);
    await screen.findByTestId('agent-machine');
    expect(options()).toEqual(['This computer', 'build-box']);

    backend.calls.length = 0;
    await fireEvent.change(screen.getByTestId('agent-machine'), { target: { value: 'build-box' } });
    await fill({ name: 'trainer', command: 'bash', kind: 'claude-code' });
    // Its folders are build-box's, browsed through its engine: not this desktop's dialog.
    expect(screen.getByTestId('agent-cwd-choose').title).toBe('Folders on build-box');
    await fireEvent.click(screen.getByTestId('agent-cwd-choose'));
    await waitFor(() => expect(screen.getByTestId('folder-browser').dataset.path).toBe('/home/dev'));
    await fireEvent.click(screen.getAllByTestId('folder-browser-entry').find((e) => e.dataset.name === 'projects')!);
    await waitFor(() => expect(screen.getByTestId('folder-browser').dataset.path).toBe('/home/dev/projects'));
    await fireEvent.click(screen.getByTestId('folder-browser-use'));
    await waitFor(() => expect(valueOf('agent-cwd')).toBe('/home/dev/projects'));
    // Whether worktrees can be offered is asked of build-box too.
    await waitFor(() => expect(callsOf(backend, 'folder_repository')).toContainEqual({ folder: '/home/dev/projects' }));
    await submit();

    const page = await screen.findByTestId('profile-view');
    expect(within(page).getByTestId('agent-host').textContent).toBe('on build-box');
    expect(callsOf(backend, 'pick_folder')).toEqual([]);
    const asked = ['agent_presets', 'detected_agents', 'check_profile', 'folder_repository', 'list_folder', 'create_profile'];
    expect(new Set(backend.calls.filter((c) => asked.includes(c.command)).map((c) => c.command))).toEqual(new Set(['agent_presets', 'detected_agents', 'folder_repository', 'list_folder', 'create_profile']));
    expect(new Set(machineOf(backend, ...asked))).toEqual(new Set(['build-box']));
  });

  it('keeps this computer’s folder dialog and engine when this computer is chosen', async () => {
    const backend = withMachines();
    await openForm(backend);
    await screen.findByTestId('agent-machine');
    await fill({ name: 'mine', command: 'bash' });
    await fireEvent.click(screen.getByTestId('agent-cwd-choose'));
    await waitFor(() => expect(valueOf('agent-cwd')).toBe('/work'));
    await submit();
    await screen.findByTestId('profile-view');
    expect(machineOf(backend, 'create_profile')).toEqual([null]);
    expect(within(screen.getByTestId('profile-view')).queryByTestId('agent-host')).toBeNull();
  });

  it('is not asked of an agent being edited, which stays on its machine', async () => {
    const backend = withMachines();
    const trainer = backend.seedProfile({ name: 'trainer', host: 'build-box', cwd: '/home/dev/notes' });
    await renderApp(backend);
    await fireEvent.click(screen.getAllByTestId('profile-select').find((e) => e.closest('[data-profile-name="trainer"]'))!);
    await fireEvent.click(await screen.findByTestId('edit-profile'));
    await screen.findByTestId('agent-form');
    expect(screen.queryByTestId('agent-machine')).toBeNull();

    await fireEvent.click(screen.getByTestId('agent-cwd-choose'));
    await waitFor(() => expect(screen.getByTestId('folder-browser').dataset.path).toBe('/home/dev/notes'));
    await fireEvent.click(screen.getByTestId('folder-browser-cancel'));
    await fill({ name: 'trainer 2' });
    await submit();
    await screen.findByTestId('profile-view');
    expect(machineOf(backend, 'update_profile', 'list_folder')).toEqual(['build-box', 'build-box']);
    expect((await backend.listProfiles()).find((p) => p.id === trainer.id)?.name).toBe('trainer 2');
  });
});
