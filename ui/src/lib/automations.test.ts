import { describe, expect, it } from 'vitest';
import type { Automation, AutomationState, TaskInfo, Trigger } from './bindings';
import {
  applyAutomationEvent,
  automationHost,
  automationName,
  automationSpecFrom,
  automationsOf,
  everyWords,
  formFieldOf,
  formFieldsOf,
  lastRunWords,
  nextRunWords,
  outcomeWords,
  runCostWords,
  runTaskState,
  shownAutomations,
  stateWords,
  triggerWords,
  type AutomationFormFields,
} from './automations';
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
    [{ on: 'files_changed', dir: '/work/app', globs: ['src/**/*.rs', 'Cargo.toml'] }, 'when files change in /work/app (src/**/*.rs, Cargo.toml)'],
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
    const loop = automation('coder', {
      trigger: { on: 'branch_moved', repo: '/work/app', branch: 'main' },
      zone: null,
      action: { does: 'loop', settings: { goal: 'Keep main green', stop_word: 'GREEN', promise: 'ALL GREEN', max_iterations: 3, stall_after: 2, iteration_time_limit_secs: 600 } },
      max_runs_per_hour: 3,
    });
    const form = formFieldsOf(loop, 'other');
    expect(form).toMatchObject({ agent: 'coder', kind: 'kept', does: 'loop', text: 'Keep main green', maxRuns: '3' });
    const built = automationSpecFrom({ ...form, text: 'Keep main green and fast' }, loop);
    expect(built.ok && built.spec).toMatchObject({
      trigger: { on: 'branch_moved', repo: '/work/app', branch: 'main' },
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
