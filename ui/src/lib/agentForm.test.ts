import { describe, expect, it } from 'vitest';
import presets from '../test/presets.json';
import {
  blankValues,
  fieldList,
  fillPreset,
  folderToLookUp,
  isolationOffer,
  lookupAnswered,
  mergeProblems,
  offeredSpec,
  readSpec,
  setupCommandShown,
  setupToSave,
  type RepositoryLookup,
  type TextField,
} from './agentForm';
import type { AgentPreset, Isolation } from './bindings';

const claude = presets.find((p) => p.kind === 'claude-code') as AgentPreset;
const choices = { kind: 'generic', start_on_launch: false, completion: 'summary', signal_protocols: true, switchboard_tools: true, isolation: 'none', env: {} } as const;

describe('readSpec', () => {
  it('reads every problem the form can see at once, with defaults standing in for what it cannot read', () => {
    const values = { ...blankValues(), name: ' a ', command: 'sh', args: "it's", cwd: '/w', task_time_limit_secs: 'x', ready_quiet_ms: '1.5', quiet_alert_secs: '-1' };
    const { spec, problems } = readSpec(values, choices);
    expect(problems.map((p) => p.field)).toEqual(['args', 'task_time_limit_secs', 'ready_quiet_ms', 'quiet_alert_secs']);
    expect(spec).toMatchObject({ name: 'a', args: [], task_time_limit_secs: 1800, ready_quiet_ms: 800, quiet_alert_secs: 600 });
  });

  it('reads a good form without problems', () => {
    const values = { ...blankValues(), name: 'a', command: 'sh', args: '-c "echo hi"', cwd: '/w', ready_pattern: '^> $' };
    expect(readSpec(values, choices)).toEqual({
      spec: { ...choices, name: 'a', command: 'sh', args: ['-c', 'echo hi'], cwd: '/w', ready_pattern: '^> $', ready_quiet_ms: 800, task_time_limit_secs: 1800, quiet_alert_secs: 600, account: null },
      problems: [],
    });
  });

  it('names the account its agent works under, or none for its CLI\'s own', () => {
    const values = { ...blankValues(), name: 'a', command: 'claude', cwd: '/w', account: '  work plan ' };
    expect(readSpec(values, choices).spec.account).toBe('work plan');
    expect(readSpec({ ...values, account: '   ' }, choices).spec.account).toBeNull();
  });
});

describe('mergeProblems', () => {
  it("keeps the form's own problem for a field, adds the engine's others, in the form's order", () => {
    const own = [{ field: 'args', message: 'quote' } as const];
    const engine = [
      { field: 'cwd', message: 'no folder' } as const,
      { field: 'args', message: 'engine args' } as const,
      { field: 'name', message: 'no name' } as const,
    ];
    expect(mergeProblems(own, engine)).toEqual([
      { field: 'name', message: 'no name' },
      { field: 'args', message: 'quote' },
      { field: 'cwd', message: 'no folder' },
    ]);
  });
});

describe('fillPreset', () => {
  const typed = (...fields: TextField[]) => new Set<TextField>(fields);

  it.each([
    ['an empty form takes it all', blankValues(), typed(), false, ['command', 'args', 'ready_pattern'], []],
    ['what the user typed stays', { ...blankValues(), command: '/opt/claude' }, typed('command'), false, ['args', 'ready_pattern'], ['command']],
    ['asked, it goes', { ...blankValues(), command: '/opt/claude' }, typed('command'), true, ['command', 'args', 'ready_pattern'], []],
    ['a typed value equal to the preset is neither', { ...blankValues(), command: 'claude' }, typed('command'), false, ['args', 'ready_pattern'], []],
  ] as const)('%s', (_, values, typedFields, overwrite, filled, kept) => {
    const fill = fillPreset(values, typedFields, claude, overwrite);
    expect(fill.filled).toEqual(filled);
    expect(fill.kept).toEqual(kept);
    for (const field of filled) expect(fill.values[field]).not.toBe(values[field]);
  });

  it('without a preset, empties what a preset filled in and keeps what was typed', () => {
    const before = { ...blankValues(), command: 'claude', args: '--permission-mode acceptEdits', ready_pattern: 'x' };
    const fill = fillPreset(before, typed('ready_pattern'), null);
    expect(fill.values).toMatchObject({ command: '', args: '', ready_pattern: 'x' });
  });

  it('names the fields in words', () => {
    expect(fieldList(['command'])).toBe('command');
    expect(fieldList(['command', 'args', 'ready_quiet_ms'])).toBe('command, arguments and quiet before ready');
  });
});

describe('a one-click agent', () => {
  const preset = presets.find((p) => p.kind === 'codex') as AgentPreset;
  const defaults = { taskTimeLimitSecs: 45 * 60, quietAlertSecs: 0 };
  it.each([
    ['/home/ana/shop', [], 'Codex in shop'],
    ['/home/ana/shop/', [], 'Codex in shop'],
    ['/', [], 'Codex'],
    ['/home/ana/shop', ['Codex in shop'], 'Codex in shop 2'],
    ['/home/ana/shop', ['Codex in shop', 'Codex in shop 2'], 'Codex in shop 3'],
  ])('in %s, with %j taken, is called %s', (folder, taken, name) => {
    expect(offeredSpec(preset, folder, defaults, taken).name).toBe(name);
  });

  it("takes the preset's settings and the app's defaults", () => {
    expect(offeredSpec(preset, '/work', defaults, [])).toEqual({
      name: 'Codex in work',
      command: 'codex',
      args: preset.args,
      env: {},
      cwd: '/work',
      kind: 'codex',
      start_on_launch: false,
      ready_pattern: preset.ready_pattern,
      ready_quiet_ms: preset.ready_quiet_ms,
      task_time_limit_secs: 45 * 60,
      completion: 'summary',
      signal_protocols: true,
      switchboard_tools: true,
      quiet_alert_secs: 0,
      isolation: 'none',
      account: null,
    });
  });
});

describe('where tasks work', () => {
  const repository = (setup: string | null = null, branch: string | null = 'main'): RepositoryLookup => ({
    state: 'found',
    folder: '/work/shop',
    repository: { kind: 'repository', root: '/work/shop', branch, setup_command: setup },
  });
  const notARepository: RepositoryLookup = {
    state: 'found',
    folder: '/tmp',
    repository: { kind: 'not_a_repository', why: 'the folder is not inside a git repository, so its tasks cannot get worktrees of their own' },
  };

  it.each<[string, string | null]>([
    ['/work/shop', '/work/shop'],
    ['  /work/shop  ', '/work/shop'],
    ['work/shop', null],
    ['~/shop', null],
    ['', null],
  ])('asks about the folder %j as %j', (cwd, folder) => {
    expect(folderToLookUp(cwd)).toBe(folder);
  });

  it('drops an answer about a folder the field no longer holds', () => {
    expect(lookupAnswered('/work/shop', '/work/shop', repository())).toEqual(repository());
    expect(lookupAnswered('/work/sho', '/work/shop', repository())).toBeNull();
  });

  it.each<[string, RepositoryLookup, boolean, string | null, string | null]>([
    ['no folder', { state: 'no_folder' }, false, "Give the agent's folder first: each task's worktree is made from the git repository it is in.", null],
    ['looking', { state: 'looking', folder: '/work' }, false, 'Looking for a git repository at that folder…', null],
    ['a repository', repository(), true, 'In the git repository at /work/shop: each task gets a branch of its own, from its branch main.', '/work/shop'],
    ['a detached checkout', repository(null, null), true, 'In the git repository at /work/shop: each task gets a branch of its own, from the commit checked out there.', '/work/shop'],
    ['not a repository: why, as a sentence', notARepository, false, 'The folder is not inside a git repository, so its tasks cannot get worktrees of their own.', null],
    ['the engine did not answer', { state: 'failed', folder: '/w', message: 'The disk is full.' }, false, 'Could not tell whether the folder is in a git repository (The disk is full.).', null],
  ])('offers worktrees for %s', (_, lookup, worktree, note, root) => {
    expect(isolationOffer(lookup)).toEqual({ worktree, note, root });
  });

  it.each<[string, RepositoryLookup, string, boolean, string]>([
    ["the repository's command, filled in", repository('npm ci'), '', false, 'npm ci'],
    ['none there: empty', repository(null), 'make', false, ''],
    ['what the user typed stays', repository('npm ci'), 'pnpm i', true, 'pnpm i'],
    ['no repository: as it was', notARepository, 'make', false, 'make'],
  ])('the setup command shown: %s', (_, lookup, typed, userTyped, shown) => {
    expect(setupCommandShown(lookup, typed, userTyped)).toBe(shown);
  });

  it.each<[string, Isolation, RepositoryLookup, string, { repository: string; command: string | null } | null]>([
    ['a new command', 'worktree', repository(null), ' npm ci ', { repository: '/work/shop', command: 'npm ci' }],
    ['a changed command', 'worktree', repository('npm ci'), 'pnpm install', { repository: '/work/shop', command: 'pnpm install' }],
    ['emptied: none runs', 'worktree', repository('npm ci'), '  ', { repository: '/work/shop', command: null }],
    ['unchanged: nothing to save', 'worktree', repository('npm ci'), 'npm ci', null],
    ['still none', 'worktree', repository(null), '', null],
    ["tasks in the agent's folder: not its business", 'none', repository(null), 'npm ci', null],
    ['no repository found', 'worktree', notARepository, 'npm ci', null],
    ['still looking', 'worktree', { state: 'looking', folder: '/work/shop' }, 'npm ci', null],
  ])('the setup to save: %s', (_, isolation, lookup, typed, saved) => {
    expect(setupToSave(isolation, lookup, typed)).toEqual(saved);
  });

  it('reads the choice into the spec', () => {
    const values = { ...blankValues(), name: 'a', command: 'sh', cwd: '/work/shop' };
    expect(readSpec(values, { ...choices, isolation: 'worktree' }).spec.isolation).toBe('worktree');
  });
});

