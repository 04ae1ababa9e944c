import { describe, expect, it } from 'vitest';
import type { Automation, AutomationState, EngineLink, HostLink, TaskInfo, Trigger } from './bindings';
import {
  applyAutomationEvent,
  automationHost,
  automationName,
  automationSpecFrom,
  automationsOf,
  engineNote,
  everyWords,
  folderForAgent,
  formFieldOf,
  formFieldsOf,
  globsFrom,
  globsText,
  machinesWithoutLoginService,
  lastRunWords,
  nextRunWords,
  branchAtWords,
  outcomeWords,
  runCostWords,
  runTaskState,
  shownAutomations,
  stateWords,
  triggerFieldsOf,
  triggerFrom,
  triggerWords,
  type AutomationFormFields,
} from './automations';
import type { PageLink } from './engineLink';
import { formatTime, resetWords } from './model';
import { automation, run, taskRun } from '../test/automations';

const names: Record<string, string> = { coder: 'coder', writer: 'James' };
const agentName = (id: string) => names[id] ?? 'a removed agent';

describe('when an automation runs, in words', () => {
  it.each<[string, string]>([
    ['weekdays 09:00', 'weekdays 09:00'],
    [' mon,wed,fri 18:00 ', 'mon,wed,fri 18:00'],
    ['hourly', 'hourly'],
    ['2h', 'every 2h'],
    ['1h30m', 'every 1h30m'],
    ['09:00', 'daily 09:00'],
  ])('the schedule %j reads %j', (every, said) => {
    expect(everyWords(every)).toBe(said);
  });

  it.each<[Trigger, string]>([
    [{ on: 'every', every: 'weekdays 09:00' }, 'weekdays 09:00'],
    [{ on: 'rule', rrule: 'FREQ=WEEKLY;BYDAY=MO;BYHOUR=9' }, 'RRULE FREQ=WEEKLY;BYDAY=MO;BYHOUR=9'],
    [{ on: 'rule', rrule: 'RRULE:FREQ=DAILY' }, 'RRULE:FREQ=DAILY'],
    [{ on: 'task_ended', profile_id: 'coder', ended: 'completed' }, "after coder's tasks complete"],
    [{ on: 'task_ended', profile_id: 'writer', ended: 'failed' }, "after James's tasks fail"],
    [{ on: 'task_ended', profile_id: 'coder', ended: 'any' }, "after coder's tasks complete or fail"],
    [{ on: 'task_ended', profile_id: 'gone', ended: 'any' }, "after a removed agent's tasks complete or fail"],
    [{ on: 'files_changed', dir: '/work/app', globs: ['src/**/*.rs', 'Cargo.toml'] }, 'when files matching src/**/*.rs, Cargo.toml change in /work/app'],
    [{ on: 'files_changed', dir: '/work/app', globs: ['src/**/*.rs'] }, 'when files matching src/**/*.rs change in /work/app'],
    [{ on: 'files_changed', dir: '/work/app', globs: ['**/*'] }, 'when files change in /work/app'],
    [{ on: 'files_changed', dir: '/work/app', globs: [] }, 'when files change in /work/app'],
    [{ on: 'branch_moved', repo: '/work/app', branch: 'main' }, 'when main moves in /work/app'],
  ])('%j reads as the user says it', (trigger, said) => {
    expect(triggerWords(trigger, agentName)).toBe(said);
  });

  it('says a trigger of a newer engine plainly rather than failing', () => {
    const newer = { on: 'calendar_event', calendar: 'work' } as unknown as Trigger;
    expect(triggerWords(newer, agentName)).toBe('when its engine says (calendar event)');
  });
});

describe('next run, state and last run', () => {
  const now = new Date(2026, 10, 21, 15, 0).getTime();
  const at = new Date(2026, 10, 24, 9, 0).getTime();
  const paused: AutomationState = { state: 'paused', at: 5, why: { by: 'user' } };

  it('says the next run as the engine told it, in local time, "paused" or "—" for a chain', () => {
    expect(nextRunWords({ state: { state: 'active' }, next_run: at }, now)).toBe(resetWords(at, now));
    expect(nextRunWords({ state: paused, next_run: at }, now)).toBe('paused');
    expect(nextRunWords({ state: { state: 'active' }, next_run: null }, now)).toBe('—');
    expect(nextRunWords({ state: { state: 'active' } }, now)).toBe('—');
  });

  it('says where a branch automation last saw its branch, as the engine told it', () => {
    const branch: Trigger = { on: 'branch_moved', repo: '/home/me/app', branch: 'main' };
    const cases: [Trigger, string | null | undefined, string | null][] = [
      [branch, '1a2b3c4d5e6f7a8b9c0d1a2b3c4d5e6f7a8b9c0d', 'main is at 1a2b3c4d5e'],
      [branch, null, null],
      [branch, undefined, null],
      [{ on: 'every', every: '2h' }, '1a2b3c4d5e', null],
    ];
    for (const [trigger, branch_at, words] of cases) expect(branchAtWords({ trigger, branch_at })).toBe(words);
  });

  it.each<[AutomationState, string]>([
    [{ state: 'active' }, 'active'],
    [paused, 'paused by you'],
    [{ state: 'paused', at: 5, why: { by: 'failing', failures: 5, last: 'failed: the tests did not build' } }, 'paused itself: its last 5 runs ended badly (the last: failed: the tests did not build)'],
    [{ state: 'paused', at: 5, why: { by: 'failing', failures: 1, last: 'timed out' } }, 'paused itself: its last run ended badly (the last: timed out)'],
  ])('%j is said %j', (state, said) => {
    expect(stateWords(state)).toBe(said);
  });

  it('says its last run: when, and what became of it (the task as the window knows it now)', () => {
    const fired = new Date(2026, 10, 21, 9, 0).getTime();
    const tasks = [{ id: 'task-1', state: 'completed' } as TaskInfo];
    expect(lastRunWords({ runs: [] }, tasks, now)).toBe('not run yet');
    const one = { runs: [run(1, fired, 'its schedule (weekdays 09:00)', taskRun('task-1', 'running'))] };
    expect(lastRunWords(one, tasks, now)).toBe(`${formatTime(fired, new Date(now))} · task completed`);
    expect(lastRunWords(one, [], now)).toBe(`${formatTime(fired, new Date(now))} · task running`);
    const skipped = { runs: [...one.runs, run(2, fired + 1, 'run now', { outcome: 'skipped', why: "skipped: its last run's task is still at work" })] };
    expect(lastRunWords(skipped, tasks, now)).toBe(`${formatTime(fired + 1, new Date(now))} · skipped: its last run's task is still at work`);
  });

  it('says each outcome in words', () => {
    expect(outcomeWords(taskRun('t', 'over_budget'), [])).toBe('task over budget');
    expect(outcomeWords({ outcome: 'loop', loop_id: 'l', state: 'failed_to_start' }, [])).toBe('loop failed to start');
    expect(outcomeWords({ outcome: 'skipped', why: 'held back: it already ran 6 times in the last hour, its most' }, [])).toBe(
      'held back: it already ran 6 times in the last hour, its most',
    );
    expect(runTaskState({ outcome: 'task', task_id: 't', state: 'queued' }, [{ id: 't', state: 'running' } as TaskInfo])).toBe('running');
  });

  it('says what a run’s task cost only when the engine knows it cost something', () => {
    expect(runCostWords(taskRun('t', 'completed', 0.42))).toBe('$0.42');
    expect(runCostWords(taskRun('t', 'completed', 0))).toBeNull();
    expect(runCostWords(taskRun('t', 'completed', null))).toBeNull();
    expect(runCostWords({ outcome: 'skipped', why: 'skipped' })).toBeNull();
  });
});

describe('the list', () => {
  it('names an automation by its title, else its text’s first line', () => {
    expect(automationName(automation('coder'))).toBe('Review the open pull requests');
    expect(automationName(automation('coder', { action: { does: 'task', instruction: 'x', title: '  Morning review ' } }))).toBe('Morning review');
    expect(automationName(automation('coder', { action: { does: 'task', instruction: '\n\n  Port the parser\nfully', title: ' ' } }))).toBe('Port the parser');
    const loop = automation('coder', {
      action: { does: 'loop', settings: { goal: 'Make the flaky test pass\nfor good', stop_word: 'DONE', promise: null, max_iterations: 5, stall_after: 3, iteration_time_limit_secs: null } },
    });
    expect(automationName(loop)).toBe('Make the flaky test pass');
  });

  it('lists the soonest first, then the chains, then the paused', () => {
    const later = automation('coder', { next_run: 2_000 });
    const sooner = automation('coder', { next_run: 1_000 });
    const chain = automation('coder', { trigger: { on: 'task_ended', profile_id: 'writer', ended: 'completed' } });
    const paused = automation('writer', { state: { state: 'paused', at: 1, why: { by: 'user' } } });
    expect(shownAutomations([paused, chain, later, sooner]).map((a) => a.id)).toEqual([sooner.id, later.id, chain.id, paused.id]);
    expect(automationsOf([paused, chain, later, sooner], 'coder').map((a) => a.id)).toEqual([sooner.id, later.id, chain.id]);
  });

  it('folds the engines’ events in', () => {
    const first = automation('coder');
    let list: Automation[] = [];
    list = applyAutomationEvent(list, { type: 'automation_changed', automation: first });
    list = applyAutomationEvent(list, { type: 'automation_changed', automation: { ...first, next_run: 9 } });
    expect(list).toEqual([{ ...first, next_run: 9 }]);
    list = applyAutomationEvent(list, { type: 'automation_removed', automation_id: first.id });
    expect(list).toEqual([]);
  });

  it('runs on the machine its engine names, else its agent’s', () => {
    expect(automationHost(automation('coder', { host: 'build-box' }), null)).toBe('build-box');
    expect(automationHost(automation('coder'), 'dev@box')).toBe('dev@box');
    expect(automationHost(automation('coder'), '')).toBeNull();
  });
});

describe('the form’s spec', () => {
  const blank = formFieldsOf(null, 'coder');
  const fields = (change: Partial<AutomationFormFields>): AutomationFormFields => ({ ...blank, text: 'Review the open pull requests', ...change });

  it('starts as a task on a schedule, its runs caught up once, skipped over work still at it, 6 an hour', () => {
    expect(blank).toMatchObject({ agent: 'coder', kind: 'every', does: 'task', catchUp: 'once', overlap: 'skip', maxRuns: '6', budget: { amount: null, unit: 'tokens' } });
  });

  it('builds a schedule in a zone', () => {
    const built = automationSpecFrom(fields({ every: ' weekdays 09:00 ', zone: ' Europe/Paris ', title: 'Morning review', budget: { amount: 2.5, unit: 'usd' } }), null);
    expect(built).toEqual({
      ok: true,
      spec: {
        profile_id: 'coder',
        trigger: { on: 'every', every: 'weekdays 09:00' },
        action: { does: 'task', instruction: 'Review the open pull requests', title: 'Morning review', budget: { usd: 2.5 }, time_limit_secs: null },
        zone: 'Europe/Paris',
        overlap: 'skip',
        catch_up: 'once',
        max_runs_per_hour: 6,
      },
    });
  });

  it('builds a rule, with no zone when none is given', () => {
    const built = automationSpecFrom(fields({ kind: 'rule', rrule: 'FREQ=WEEKLY;BYDAY=MO', catchUp: 'skip', overlap: 'queue', maxRuns: '2' }), null);
    expect(built.ok && built.spec).toMatchObject({ trigger: { on: 'rule', rrule: 'FREQ=WEEKLY;BYDAY=MO' }, zone: null, catch_up: 'skip', overlap: 'queue', max_runs_per_hour: 2 });
  });

  it('builds a chain, with no zone, and asks for the agent it follows', () => {
    expect(automationSpecFrom(fields({ kind: 'after', zone: 'Europe/Paris' }), null)).toEqual({ ok: false, field: 'trigger', message: 'Choose the agent whose tasks it follows.' });
    const built = automationSpecFrom(fields({ kind: 'after', after: 'writer', ended: 'any', zone: 'Europe/Paris' }), null);
    expect(built.ok && built.spec).toMatchObject({ trigger: { on: 'task_ended', profile_id: 'writer', ended: 'any' }, zone: null });
  });

  it('builds a loop toward a goal with the loop’s defaults', () => {
    const built = automationSpecFrom(fields({ every: '2h', does: 'loop', text: 'Make the build green', budget: { amount: 50000, unit: 'tokens' } }), null);
    expect(built.ok && built.spec.action).toEqual({
      does: 'loop',
      settings: { goal: 'Make the build green', stop_word: 'LOOP_COMPLETE', promise: null, max_iterations: 10, stall_after: 5, iteration_time_limit_secs: null, budget: { tokens: 50000 } },
    });
  });

  it('reads its numbers itself, under their fields', () => {
    expect(automationSpecFrom(fields({ every: '2h', maxRuns: 'six' }), null)).toEqual({ ok: false, field: 'maxRuns', message: 'Give a whole number of runs, such as 6.' });
    expect(automationSpecFrom(fields({ every: '2h', budget: { amount: -1, unit: 'tokens' } }), null)).toMatchObject({ ok: false, field: 'budget' });
  });

  it('edits what it shows and keeps what it does not', () => {
    const newer = { on: 'calendar_event', calendar: 'work' } as unknown as Trigger;
    const loop = automation('coder', {
      trigger: newer,
      zone: null,
      action: { does: 'loop', settings: { goal: 'Keep main green', stop_word: 'GREEN', promise: 'ALL GREEN', max_iterations: 3, stall_after: 2, iteration_time_limit_secs: 600 } },
      max_runs_per_hour: 3,
    });
    const form = formFieldsOf(loop, 'other');
    expect(form).toMatchObject({ agent: 'coder', kind: 'kept', does: 'loop', text: 'Keep main green', maxRuns: '3' });
    const built = automationSpecFrom({ ...form, text: 'Keep main green and fast' }, loop);
    expect(built.ok && built.spec).toMatchObject({
      trigger: newer,
      zone: null,
      action: { does: 'loop', settings: { goal: 'Keep main green and fast', stop_word: 'GREEN', promise: 'ALL GREEN', max_iterations: 3, stall_after: 2, iteration_time_limit_secs: 600, budget: null } },
    });
    const task = automation('coder', { trigger: { on: 'task_ended', profile_id: 'writer', ended: 'failed' }, action: { does: 'task', instruction: 'Fix it', title: 'Fixer', budget: { tokens: 9 }, time_limit_secs: 120 } });
    const taskForm = formFieldsOf(task, 'other');
    expect(taskForm).toMatchObject({ kind: 'after', after: 'writer', ended: 'failed', title: 'Fixer', budget: { amount: 9, unit: 'tokens' } });
    const again = automationSpecFrom(taskForm, task);
    expect(again.ok && again.spec.action).toEqual({ does: 'task', instruction: 'Fix it', title: 'Fixer', budget: { tokens: 9 }, time_limit_secs: 120 });
  });

  it.each<[string | null, string | null]>([
    ['trigger', 'trigger'],
    ['budget', 'budget'],
    ['max_runs_per_hour', 'maxRuns'],
    ['goal', 'text'],
    ['instruction', 'text'],
    ['title', 'title'],
    ['zone', 'zone'],
    ['profile_id', 'agent'],
    ['time_limit_secs', null],
    [null, null],
  ])('puts the engine’s refusal of %j under the form’s %j', (engine, form) => {
    expect(formFieldOf(engine)).toBe(form);
  });
});

describe('file and branch automations in the form', () => {
  it.each<[string, string[]]>([
    ['src/**/*.rs, Cargo.toml', ['src/**/*.rs', 'Cargo.toml']],
    ['src/**/*.rs Cargo.toml', ['src/**/*.rs', 'Cargo.toml']],
    [' src/**/*.rs ,,  Cargo.toml,\n*.md ', ['src/**/*.rs', 'Cargo.toml', '*.md']],
    ['docs/**', ['docs/**']],
    ['', ['**/*']],
    [' , ', ['**/*']],
  ])('reads the patterns %j as %j', (text, globs) => {
    expect(globsFrom(text)).toEqual(globs);
  });

  it('shows the patterns as they are read back', () => {
    expect(globsText(['src/**/*.rs', 'Cargo.toml'])).toBe('src/**/*.rs, Cargo.toml');
    expect(globsFrom(globsText(['src/**/*.rs', 'Cargo.toml']))).toEqual(['src/**/*.rs', 'Cargo.toml']);
  });

  it.each<[string, string, string, string]>([
    // [the folder field, the last agent's folder, the new agent's, the field after]
    ['/home/me/app', '/home/me/app', '/home/me/site', '/home/me/site'],
    ['', '/home/me/app', '/home/me/site', '/home/me/site'],
    ['  ', '/home/me/app', '/home/me/site', '/home/me/site'],
    [' /home/me/app ', '/home/me/app', '/home/me/site', '/home/me/site'],
    ['/srv/data', '/home/me/app', '/home/me/site', '/srv/data'],
    ['/home/me/app', '/home/me/app', '', ''],
  ])('the folder %j (the last agent’s %j) becomes, for an agent in %j, %j', (folder, before, after, now) => {
    expect(folderForAgent(folder, before, after)).toBe(now);
  });

  it.each<[Trigger | null, Partial<ReturnType<typeof triggerFieldsOf>>]>([
    [null, { kind: 'every', folder: '/home/me/app', globs: '**/*', branch: 'main' }],
    [{ on: 'files_changed', dir: '/srv/site', globs: ['src/**/*.rs', 'Cargo.toml'] }, { kind: 'files', folder: '/srv/site', globs: 'src/**/*.rs, Cargo.toml', branch: 'main' }],
    [{ on: 'branch_moved', repo: '/srv/site', branch: 'release' }, { kind: 'branch', folder: '/srv/site', branch: 'release', globs: '**/*' }],
    [{ on: 'every', every: '2h' }, { kind: 'every', every: '2h', folder: '/home/me/app' }],
    [{ on: 'task_ended', profile_id: 'writer', ended: 'any' }, { kind: 'after', after: 'writer', ended: 'any', folder: '/home/me/app' }],
    [{ on: 'calendar_event' } as unknown as Trigger, { kind: 'kept', folder: '/home/me/app' }],
  ])('fills the fields of %j in', (trigger, fields) => {
    expect(triggerFieldsOf(trigger, '/home/me/app')).toMatchObject(fields);
  });

  const base = triggerFieldsOf(null, '/home/me/app');
  it.each<[Partial<typeof base>, ReturnType<typeof triggerFrom>]>([
    [{ kind: 'files' }, { ok: true, trigger: { on: 'files_changed', dir: '/home/me/app', globs: ['**/*'] } }],
    [{ kind: 'files', folder: ' /srv/site ', globs: 'src/**/*.rs, Cargo.toml' }, { ok: true, trigger: { on: 'files_changed', dir: '/srv/site', globs: ['src/**/*.rs', 'Cargo.toml'] } }],
    [{ kind: 'files', globs: '' }, { ok: true, trigger: { on: 'files_changed', dir: '/home/me/app', globs: ['**/*'] } }],
    [{ kind: 'files', folder: '  ' }, { ok: false, field: 'folder', message: 'Give the folder whose files it watches.' }],
    // Whether the folder exists, or a pattern is one, is the engine's to say.
    [{ kind: 'files', folder: 'relative/dir', globs: '[' }, { ok: true, trigger: { on: 'files_changed', dir: 'relative/dir', globs: ['['] } }],
    [{ kind: 'branch' }, { ok: true, trigger: { on: 'branch_moved', repo: '/home/me/app', branch: 'main' } }],
    [{ kind: 'branch', folder: '/srv/site', branch: ' release ' }, { ok: true, trigger: { on: 'branch_moved', repo: '/srv/site', branch: 'release' } }],
    [{ kind: 'branch', folder: '' }, { ok: false, field: 'folder', message: 'Give the folder of the repository.' }],
    [{ kind: 'branch', branch: ' ' }, { ok: false, field: 'branch', message: 'Give the branch it follows, such as main.' }],
    [{ kind: 'branch', branch: 'no-such-branch' }, { ok: true, trigger: { on: 'branch_moved', repo: '/home/me/app', branch: 'no-such-branch' } }],
    [{ kind: 'every', every: ' 2h ', folder: '' }, { ok: true, trigger: { on: 'every', every: '2h' } }],
    [{ kind: 'kept' }, { ok: false, field: 'trigger', message: 'Say when it runs.' }],
  ])('turns %j into %j', (change, result) => {
    expect(triggerFrom({ ...base, ...change }, null)).toEqual(result);
  });

  it('builds each with no zone, and fills an automation of each back in', () => {
    const fields = (change: Partial<AutomationFormFields>): AutomationFormFields => ({ ...formFieldsOf(null, 'coder', '/home/me/app'), text: 'Run the tests', zone: 'Europe/Paris', ...change });
    const files = automationSpecFrom(fields({ kind: 'files', globs: 'src/**/*.rs Cargo.toml' }), null);
    expect(files.ok && files.spec).toMatchObject({ trigger: { on: 'files_changed', dir: '/home/me/app', globs: ['src/**/*.rs', 'Cargo.toml'] }, zone: null });
    const branch = automationSpecFrom(fields({ kind: 'branch' }), null);
    expect(branch.ok && branch.spec).toMatchObject({ trigger: { on: 'branch_moved', repo: '/home/me/app', branch: 'main' }, zone: null });
    expect(automationSpecFrom(fields({ kind: 'branch', branch: '' }), null)).toEqual({ ok: false, field: 'branch', message: 'Give the branch it follows, such as main.' });

    const watching = automation('coder', { trigger: { on: 'files_changed', dir: '/srv/site', globs: ['*.md'] } });
    const form = formFieldsOf(watching, 'other', '/home/me/app');
    expect(form).toMatchObject({ agent: 'coder', kind: 'files', folder: '/srv/site', globs: '*.md', branch: 'main' });
    const again = automationSpecFrom(form, watching);
    expect(again.ok && again.spec.trigger).toEqual(watching.trigger);
  });
});

describe('where automations fire only while their engine runs', () => {
  const connected = (host: string | null, startsAtLogin: boolean): EngineLink => ({
    state: 'connected',
    engine_version: '0.1.0',
    outdated: false,
    agents_running: 0,
    host,
    connection: 1,
    restarted: false,
    starts_at_login: startsAtLogin,
  });
  const lost: EngineLink = { state: 'lost', reason: 'The connection was lost.', host: null };
  const link = (destination: string, state: EngineLink): HostLink => ({ destination, link: state });

  it.each<[string, PageLink | null, HostLink[], string[]]>([
    ['this computer’s engine, which no login service runs', connected(null, false), [], ['this computer']],
    ['this computer’s engine, which its login service runs', connected(null, true), [], []],
    ['an engine not told yet', null, [], []],
    ['an engine connecting', { state: 'connecting' }, [], []],
    ['an engine lost', lost, [], []],
    ['a browser unpaired', { state: 'refused', reason: 'unpaired', host: null, unpaired: true }, [], []],
    ['the window’s engine on another machine', connected('dev@box', false), [], ['dev@box']],
    ['another machine’s engine, which none runs', connected(null, true), [link('build-box', connected('build-box', false))], ['build-box']],
    [
      'both, in order, each machine once',
      connected(null, false),
      [link('build-box', connected('build-box', false)), link('gpu', connected('gpu', true)), link('old', lost), link('build-box', connected('build-box', false))],
      ['this computer', 'build-box'],
    ],
  ])('%s', (_, engineLink, hostLinks, machines) => {
    expect(machinesWithoutLoginService(engineLink, hostLinks)).toEqual(machines);
  });

  it.each<[string[], string | null]>([
    [[], null],
    [['this computer'], 'Automations on this computer fire only while the engine runs: [switchboard daemon --install] starts it at each login.'],
    [['build-box'], 'Automations on build-box fire only while the engine runs: [switchboard daemon --install] there starts it at each login.'],
    [['this computer', 'build-box'], 'Automations on this computer and build-box fire only while their engines run: [switchboard daemon --install] on each starts its engine at each login.'],
    [['this computer', 'build-box', 'gpu'], 'Automations on this computer, build-box and gpu fire only while their engines run: [switchboard daemon --install] on each starts its engine at each login.'],
  ])('of %j it says %j', (machines, said) => {
    const note = engineNote(machines);
    expect(note === null ? null : `${note.before}[${note.command}]${note.after}`).toBe(said);
  });
});
