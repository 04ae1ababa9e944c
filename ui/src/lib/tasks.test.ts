import { describe, expect, it } from 'vitest';
import type { Attention, EngineEvent, LogEntry, LogKind, QueueStatus, SessionInfo, Submitted, Summary, TaskInfo, TaskState } from './bindings';
import type { Model, Selection } from './model';
import { shownAttention, type ShownAttention } from './attention';
import {
  addTaskIfMissing,
  applyMove,
  applyTaskEvent,
  dropIndex,
  elapsedLabel,
  elapsedSecs,
  finishedTasks,
  firstLine,
  waitSentence,
  HOVER_LINE_CHARS,
  HOVER_LINES,
  hoverText,
  formatDuration,
  insertionIndex,
  mergeInitialTasks,
  parseTimeLimitMinutes,
  prettyJson,
  queueIndicator,
  queueOf,
  queuePosition,
  queueStatusOf,
  runningTask,
  selectionForTask,
  liveSubmittedOutcome,
  type OutcomeTone,
  summaryMarkdown,
  summaryToMarkdown,
  taskSpecFromForm,
  formAfterSubmit,
  taskStatusLabel,
  quietLabel,
  upsertTask,
  waitingFor,
  type TaskFormFields,
} from './tasks';
import { task } from '../test/tasks';
import { timelineOutput, timelineText } from './timeline';
import { formatTime, resetWords } from './model';

const ID = 'a1b2c3d4-0000-4000-8000-000000000001';
const OTHER = 'a1b2c3d4-0000-4000-8000-000000000002';
const THIRD = 'a1b2c3d4-0000-4000-8000-000000000003';

const summary: Summary = {
  objective: 'Fix it',
  accomplishments: ['fixed', 'tested'],
  deliverables: ['src/a.rs'],
  test_results: '✅ All 2 tests passed',
  tests: { passed: 2, failed: null },
  notes: [],
  status: 'completed',
};

const queue = (profile_id: string, overrides: Partial<QueueStatus> = {}): QueueStatus => ({
  profile_id,
  paused: false,
  executing: false,
  current_task: null,
  queued: 0,
  ...overrides,
});

describe('folding events', () => {
  it('upserts tasks by id', () => {
    const list = upsertTask([task('a'), task('b')], task('a', { state: 'running' }));
    expect(list.map((t) => [t.id, t.state])).toEqual([
      ['a', 'running'],
      ['b', 'queued'],
    ]);
    expect(upsertTask(list, task('c')).map((t) => t.id)).toEqual(['a', 'b', 'c']);
  });

  it('adds an action reply only when no event brought the task yet', () => {
    const list = [task('a', { state: 'running' })];
    expect(addTaskIfMissing(list, task('a', { state: 'queued' }))[0].state).toBe('running');
    expect(addTaskIfMissing(list, task('b')).map((t) => t.id)).toEqual(['a', 'b']);
  });

  it.each<[string, EngineEvent, { tasks: string[]; queues: string[] }]>([
    ['task_changed adds', { type: 'task_changed', task: task('c') }, { tasks: ['a', 'b', 'c'], queues: ['p', 'q'] }],
    ['queue_changed replaces', { type: 'queue_changed', queue: queue('q', { paused: true }) }, { tasks: ['a', 'b'], queues: ['p', 'q'] }],
    ['profile_deleted drops its tasks and queue', { type: 'profile_deleted', profile_id: 'q' }, { tasks: ['a'], queues: ['p'] }],
    ['other events change nothing', { type: 'profile_deleted', profile_id: 'zzz' }, { tasks: ['a', 'b'], queues: ['p', 'q'] }],
  ])('%s', (_name, event, expected) => {
    const model = { tasks: [task('a'), task('b', { profile_id: 'q' })], queues: [queue('p'), queue('q')] };
    const after = applyTaskEvent(model, event);
    expect(after.tasks.map((t) => t.id)).toEqual(expected.tasks);
    expect(after.queues.map((q) => q.profile_id)).toEqual(expected.queues);
  });

  it('applies a queue change', () => {
    const after = applyTaskEvent({ tasks: [], queues: [queue('p')] }, { type: 'queue_changed', queue: queue('p', { paused: true }) });
    expect(after.queues).toEqual([queue('p', { paused: true })]);
  });

  it('ignores event types it does not know', () => {
    const model = { tasks: [task('a')], queues: [] };
    expect(applyTaskEvent(model, { type: 'from_the_future' } as unknown as EngineEvent)).toBe(model);
  });

  it('applies events that arrived during the load after the lists', () => {
    const merged = mergeInitialTasks({ tasks: [task('a'), task('b')], queues: [queue('p', { queued: 2 })] }, [
      { type: 'task_changed', task: task('a', { state: 'running' }) },
      { type: 'queue_changed', queue: queue('p', { queued: 1, executing: true }) },
    ]);
    expect(merged.tasks.map((t) => t.state)).toEqual(['running', 'queued']);
    expect(merged.queues).toEqual([queue('p', { queued: 1, executing: true })]);
  });
});

describe('queue order', () => {
  const tasks = [
    task('n2', { order: 5 }),
    task('u1', { order: 9, priority: 'urgent' }),
    task('n1', { order: 2 }),
    task('other', { order: 0, profile_id: 'q' }),
    task('u0', { order: 1, priority: 'urgent' }),
    task('run', { state: 'running', order: -1 }),
    task('done', { state: 'completed', order: -2, ended_at: 10 }),
  ];

  it('lists the queue in pick order: urgent first, then by order', () => {
    expect(queueOf(tasks, 'p').map((t) => t.id)).toEqual(['u0', 'u1', 'n1', 'n2']);
    expect(queueOf(tasks, 'q').map((t) => t.id)).toEqual(['other']);
  });

  it.each<[string, number | null]>([
    ['u0', 1],
    ['u1', 2],
    ['n1', 3],
    ['n2', 4],
    ['other', 1],
    ['run', null],
    ['done', null],
    ['missing', null],
  ])('position of %s is %s', (id, position) => {
    expect(queuePosition(tasks, id)).toBe(position);
  });

  it('finds the running task and what a queued task waits for', () => {
    expect(runningTask(tasks, 'p')?.id).toBe('run');
    expect(runningTask(tasks, 'q')).toBeUndefined();
    expect(waitingFor(tasks, 'n1')?.id).toBe('run');
    expect(waitingFor(tasks, 'other')).toBeUndefined();
    expect(waitingFor(tasks, 'run')).toBeUndefined();
  });

  it('lists finished tasks newest first by end time', () => {
    const list = [
      task('old', { state: 'failed', ended_at: 100 }),
      task('new', { state: 'cancelled', ended_at: 300 }),
      task('mid', { state: 'completed', ended_at: 200 }),
      task('queued'),
      task('elsewhere', { state: 'completed', ended_at: 999, profile_id: 'q' }),
    ];
    expect(finishedTasks(list, 'p').map((t) => t.id)).toEqual(['new', 'mid', 'old']);
  });

  it('derives a queue status the engine has not reported', () => {
    expect(queueStatusOf([], tasks, 'p')).toEqual({ profile_id: 'p', paused: false, executing: true, current_task: 'run', queued: 4 });
    expect(queueStatusOf([queue('p', { paused: true })], tasks, 'p').paused).toBe(true);
  });

  const asks: Attention = { state: 'needs_you', need: { kind: 'asks' }, since: 1, task_id: 'run', task: null, signal_id: null, waiting: 1 };
  const quiet: Attention = { state: 'stalled', stall: { kind: 'quiet', task_id: 'run', task: 'Port' }, since: 1 };
  const limited: Attention = { state: 'limited', account: '/home/ann/.claude', until: null, retry_at: 9, since: 1, task_id: 'run', task: 'Port' };
  it.each<[string, QueueStatus | undefined, string | null, ShownAttention?]>([
    ['unknown', undefined, null],
    ['at a task that waits for the user', queue('p', { executing: true, queued: 1 }), 'needs you · 1 queued', asks],
    ['at a task that may be stuck', queue('p', { executing: true }), 'may be stuck', quiet],
    ['idle and empty', queue('p'), null],
    ['working', queue('p', { executing: true }), 'working'],
    ['working with a queue', queue('p', { executing: true, queued: 2 }), 'working · 2 queued'],
    ['paused with a queue', queue('p', { paused: true, queued: 1 }), 'paused · 1 queued'],
    ['only paused', queue('p', { paused: true }), 'paused'],
    // Its badge says it is at its usage limit, and until when: the queue's words do not say "working".
    ['at its usage limit with its task kept', queue('p', { executing: true, queued: 2 }), '2 queued', limited],
    ['at its usage limit, nothing queued', queue('p', { executing: true }), null, limited],
    // Its machine is disconnected: its queue as heard last is not said as now.
    ['not known', queue('p', { executing: true, queued: 2 }), null, shownAttention(asks, 'build-box')],
  ])('sidebar indicator: %s', (_name, status, text, attention) => {
    expect(queueIndicator(status, attention)).toBe(text);
  });
});

describe('reordering', () => {
  it.each<[number[], number, number]>([
    [[10, 30, 50], 0, 0],
    [[10, 30, 50], 20, 1],
    [[10, 30, 50], 30, 1],
    [[10, 30, 50], 49, 2],
    [[10, 30, 50], 99, 3],
    [[], 5, 0],
  ])('midpoints %j, pointer at %i: insertion point %i', (midpoints, y, expected) => {
    expect(insertionIndex(midpoints, y)).toBe(expected);
  });

  it.each<[number, number, number | null]>([
    [0, 0, null],
    [0, 1, null],
    [0, 2, 1],
    [0, 3, 2],
    [2, 0, 0],
    [2, 2, null],
    [2, 3, null],
    [1, 0, 0],
  ])('row %i dropped before %i moves to %s', (from, before, to) => {
    expect(dropIndex(from, before)).toBe(to);
  });

  const q = [task('u1', { priority: 'urgent', order: 3 }), task('u2', { priority: 'urgent', order: 4 }), task('n1', { order: 1 }), task('n2', { order: 7 })];
  it.each<[string, string, number, string[]]>([
    ['a normal task moved among the urgent ones turns urgent', 'n2', 0, ['n2:urgent:0', 'u1:urgent:1', 'u2:urgent:2', 'n1:normal:0']],
    ['an urgent task moved among the normal ones turns normal', 'u1', 3, ['u2:urgent:0', 'n1:normal:0', 'n2:normal:1', 'u1:normal:2']],
    ['at the border a normal task keeps its priority', 'n2', 2, ['u1:urgent:0', 'u2:urgent:1', 'n2:normal:0', 'n1:normal:1']],
    ['at the border an urgent task keeps its priority', 'u1', 1, ['u2:urgent:0', 'u1:urgent:1', 'n1:normal:0', 'n2:normal:1']],
    ['an index past the end is clamped', 'u1', 99, ['u2:urgent:0', 'n1:normal:0', 'n2:normal:1', 'u1:normal:2']],
    ['an unknown task changes nothing', 'zz', 0, ['u1:urgent:3', 'u2:urgent:4', 'n1:normal:1', 'n2:normal:7']],
  ])('%s', (_name, id, to, expected) => {
    expect(applyMove(q, id, to).map((m) => `${m.id}:${m.priority}:${m.order}`)).toEqual(expected);
  });
});

describe('hover texts', () => {
  const x = (n: number) => 'x'.repeat(n);
  it.each<[string, string]>([
    ['short', 'short'],
    ['two\nlines', 'two\nlines'],
    [x(200), `${x(80)}\n${x(80)}\n${x(40)}`],
    [`${x(70)} ${x(20)}`, `${x(70)}\n${x(20)}`],
    ['é'.repeat(90), `${'é'.repeat(80)}\n${'é'.repeat(10)}`],
  ])('%#: wraps within the line width', (text, expected) => {
    expect(hoverText(text)).toBe(expected);
  });

  it('holds at most a few lines, the last saying text was left out', () => {
    for (const text of [x(1_000_000), 'line\n'.repeat(10_000), `${x(100)} `.repeat(500)]) {
      const lines = hoverText(text).split('\n');
      expect(lines.length).toBe(HOVER_LINES);
      expect(Math.max(...lines.map((line) => [...line].length))).toBeLessThanOrEqual(HOVER_LINE_CHARS);
      expect(lines.at(-1)).toMatch(/…$/);
    }
  });
});

describe('texts', () => {
  it.each<[TaskInfo, { position?: number | null; waitingFor?: string | null }, string]>([
    [task(ID), { position: 2, waitingFor: 'ffeeddcc-1111-4000-8000-000000000000' }, 'queued · position 2 · waiting for ffeeddcc'],
    [task(ID), { position: 1 }, 'queued · position 1'],
    [task(ID, { state: 'running', typed_at: null }), {}, 'running · waiting for the agent'],
    [task(ID, { state: 'running', typed_at: 5 }), {}, 'running'],
    [task(ID, { waiting_for: { cause: 'queue_paused', reason: null } }), { position: 1, waitingFor: 'ffeeddcc-1111-4000-8000-000000000000' }, 'queued · position 1 · queue paused'],
    [task(ID, { state: 'running', waiting_for: { cause: 'prompt', last_line: 'agent>', pattern: 'demo> $' } }), {}, 'running · prompt not seen'],
    [task(ID, { state: 'running', waiting_for: { cause: 'hooks', until: 9 } }), {}, 'running · waiting for its hooks'],
    [task(ID, { state: 'running', waiting_for: { cause: 'agent_output' } }), {}, 'running · waiting for the agent to settle'],
    [task(ID, { state: 'running', waiting_for: { cause: 'agent_busy' } }), {}, 'running · waiting: the agent is busy'],
    [task(ID, { state: 'running', typed_at: 5, waiting_for: { cause: 'teammates', working: 2 } }), {}, 'running · waiting for its teammates'],
    [task(ID, { state: 'running', typed_at: 5, waiting_for: { cause: 'usage_limit', account: 'a', until: null, retry_at: 9 } }), {}, 'running · waiting for the usage limit to reset'],
    [task(ID, { state: 'running', typed_at: 5, waiting_for: { cause: 'overloaded', retry_at: 9 } }), {}, "running · waiting for the model's service"],
    [task(ID, { state: 'running', typed_at: 5, waiting_for: { cause: 'account', why: 'sign in again' } }), {}, 'running · its account needs you'],
    [task(ID, { state: 'running', typed_at: 5, waiting_since: 7, waiting_for: { cause: 'user', since: 7 } }), {}, 'needs your answer · time limit paused'],
    [task(ID, { state: 'completed' }), {}, 'completed'],
    [task(ID, { state: 'completed', result: { summary: { ...summary, status: 'partial' }, fallback: false, artifacts: [], rejected: [], results_json: null, errors: null } }), {}, 'completed · partial'],
    [task(ID, { state: 'failed' }), {}, 'failed'],
    [task(ID, { state: 'timed_out' }), {}, 'timed out'],
    [task(ID, { state: 'cancelled' }), {}, 'cancelled'],
    [task(ID, { state: 'interrupted' }), {}, 'interrupted'],
    [task(ID, { state: 'over_budget' }), {}, 'over budget'],
    [task(ID, { waiting_for: { cause: 'daily_budget', budget: '$5.00', until: 9 } }), { position: 1 }, "queued · position 1 · its agent's day's budget is used"],
  ])('status label of %#', (t, context, label) => {
    expect(taskStatusLabel(t, context)).toBe(label);
  });

  it.each<[TaskInfo, string | null]>([
    [task(ID), null],
    [task(ID, { waiting_for: { cause: 'queue_paused', reason: null } }), 'Its queue is paused: it starts once the queue is resumed.'],
    [task(ID, { waiting_for: { cause: 'queue_paused', reason: 'you stopped the agent' } }), 'Its queue is paused: you stopped the agent'],
    [task(ID, { waiting_for: { cause: 'task_ahead' } }), 'It starts when the task its agent works on ends.'],
    [task(ID, { state: 'running', waiting_for: { cause: 'agent_output' } }), 'Not typed yet: the agent is still starting or printing, and is typed into once its output goes quiet.'],
    [task(ID, { state: 'running', waiting_for: { cause: 'hooks', until: 13_000 } }), "Not typed yet: waiting for the agent's hooks to say it is ready (its screen decides in 3s at most)."],
    [task(ID, { state: 'running', waiting_for: { cause: 'hooks', until: 9_000 } }), "Not typed yet: waiting for the agent's hooks to say it is ready."],
    [task(ID, { state: 'running', waiting_for: { cause: 'agent_busy' } }), "Not typed yet: the agent's hooks say it is busy."],
    [task(ID, { state: 'running', waiting_for: { cause: 'prompt', last_line: 'agent>', pattern: 'demo> $' } }), "Not typed yet: the agent's prompt is not on its screen as its ready pattern expects."],
    // The user's answer has its own line, with its Answer button.
    [task(ID, { state: 'running', waiting_for: { cause: 'user', since: 1 } }), null],
    [task(ID, { state: 'running', waiting_for: { cause: 'teammates', working: 1 } }), 'Done, and waits for its teammate still at work.'],
    [task(ID, { state: 'running', waiting_for: { cause: 'teammates', working: 3 } }), 'Done, and waits for its 3 teammates still at work.'],
    [task(ID, { state: 'running', waiting_for: { cause: 'worktree_setup', command: 'npm ci' } }), 'Not typed yet: its new worktree is being set up first (npm ci).'],
    [task(ID, { state: 'queued', waiting_for: { cause: 'worktree_making' } }), "Not typed yet: its new worktree is being made (git is checking out the repository's files)."],
    [
      task(ID, { waiting_for: { cause: 'daily_budget', budget: '$5.00', until: 9_000 } }),
      `Its agent used its day's budget of $5.00: it starts on its agent's next day, at ${resetWords(9_000, 10_000)}, or as soon as you raise that budget.`,
    ],
    // Ended: it waits for nothing, whatever a stale record says.
    [task(ID, { state: 'completed', waiting_for: { cause: 'task_ahead' } }), null],
  ])('what it waits for, in a sentence %#', (t, sentence) => {
    expect(waitSentence(t, 10_000)).toBe(sentence);
  });

  describe('a turn its model refused', () => {
    // Local times, as the window shows them (the user's clock and locale).
    const now = new Date(2026, 10, 26, 13, 0).getTime();
    const reset = new Date(2026, 10, 26, 14, 5).getTime();
    const retry = new Date(2026, 10, 26, 14, 7).getTime();
    const at = (time: number) => formatTime(time, new Date(now));

    it.each<[string, TaskInfo, string]>([
      [
        'at work, until a reset its agent named',
        task(ID, { state: 'running', waiting_for: { cause: 'usage_limit', account: 'a', until: reset, retry_at: retry } }),
        `Its agent's account is at its usage limit until ${at(reset)}: it goes on then. Its time limit is paused.`,
      ],
      [
        'at work, the reset unknown',
        task(ID, { state: 'running', waiting_for: { cause: 'usage_limit', account: 'a', until: null, retry_at: retry } }),
        `Its agent's account is at its usage limit, and did not say until when: the app tries again at ${at(retry)}. Its time limit is paused.`,
      ],
      [
        'queued: it starts then, and has no time limit running yet',
        task(ID, { waiting_for: { cause: 'usage_limit', account: 'a', until: reset, retry_at: retry } }),
        `Its agent's account is at its usage limit until ${at(reset)}: it starts then.`,
      ],
      [
        'queued, the reset unknown',
        task(ID, { waiting_for: { cause: 'usage_limit', account: 'a', until: null, retry_at: retry } }),
        `Its agent's account is at its usage limit, and did not say until when: the app tries again at ${at(retry)}.`,
      ],
      [
        'an overloaded model',
        task(ID, { state: 'running', waiting_for: { cause: 'overloaded', retry_at: retry } }),
        `The model's service is overloaded: its agent is asked to go on at ${at(retry)}. Its time limit is paused.`,
      ],
      [
        'an account to see to',
        task(ID, { state: 'running', waiting_for: { cause: 'account', why: 'Claude Code could not sign in to its account: sign in again in its terminal (/login)' } }),
        "Its agent's account needs you: Claude Code could not sign in to its account: sign in again in its terminal (/login). Then resume the agent. Its time limit is paused.",
      ],
    ])('%s', (_name, t, sentence) => {
      expect(waitSentence(t, now)).toBe(sentence);
    });

    it('says a reset after midnight with its day, as the agent\'s badge and usage bars do', () => {
      const late = new Date(2026, 10, 26, 23, 30).getTime();
      const after = new Date(2026, 10, 27, 0, 13).getTime();
      const waiting = task(ID, { state: 'running', waiting_for: { cause: 'usage_limit', account: 'a', until: after, retry_at: after } });
      const day = new Date(after).toLocaleDateString(undefined, { weekday: 'short' });
      expect(waitSentence(waiting, late)).toBe(`Its agent's account is at its usage limit until ${resetWords(after, late)}: it goes on then. Its time limit is paused.`);
      expect(waitSentence(waiting, late)).toContain(`until ${day} `);
      const overloaded = task(ID, { state: 'running', waiting_for: { cause: 'overloaded', retry_at: after } });
      expect(waitSentence(overloaded, late)).toContain(`go on at ${day} `);
    });

    it('says nothing of the account folder or of ids', () => {
      const waiting = task(ID, { state: 'running', waiting_for: { cause: 'usage_limit', account: '/home/ann/.claude', until: reset, retry_at: retry } });
      expect(waitSentence(waiting, now)).not.toContain('/home/ann');
      expect(waitSentence(waiting, now)).not.toContain(ID);
    });
  });

  it.each<[string, Submitted, TaskInfo[], string]>([
    ['started', { task: task(ID), position: null, waiting_for: null }, [task(ID, { state: 'running' })], 'Started'],
    ['not listed yet', { task: task(ID), position: 2, waiting_for: null }, [], 'Queued · position 2'],
    ['queued', { task: task(ID), position: 1, waiting_for: null }, [task(ID)], 'Queued · position 1'],
    [
      'behind a running task, named by its title',
      { task: task(ID), position: 1, waiting_for: OTHER },
      [task(OTHER, { state: 'running', title: 'Write the docs' }), task(ID)],
      'Queued · position 1 · waiting for “Write the docs”',
    ],
    [
      'a task ahead cancelled: its place now, not the receipt\'s',
      { task: task(ID), position: 3, waiting_for: OTHER },
      [task(OTHER, { state: 'running', title: 'Write the docs' }), task(THIRD, { order: 1 }), task(ID, { order: 2 })],
      'Queued · position 2 · waiting for “Write the docs”',
    ],
    ['running since', { task: task(ID), position: 2, waiting_for: null }, [task(ID, { state: 'running' })], 'Your task is running'],
    ['completed', { task: task(ID), position: null, waiting_for: null }, [task(ID, { state: 'completed' })], 'Your task completed'],
    ['cancelled', { task: task(ID), position: null, waiting_for: null }, [task(ID, { state: 'cancelled' })], 'Your task was cancelled'],
  ])('submission outcome: %s', (_, submitted, tasks, message) => {
    expect(liveSubmittedOutcome(submitted, tasks).text).toBe(message);
  });

  it.each<[TaskState, OutcomeTone]>([
    ['queued', 'ok'],
    ['running', 'ok'],
    ['completed', 'ok'],
    ['cancelled', 'note'],
    ['failed', 'bad'],
    ['timed_out', 'bad'],
    ['interrupted', 'bad'],
  ])('a submitted task %s reads in the %s tone, in words', (state, tone) => {
    const outcome = liveSubmittedOutcome({ task: task(ID), position: 1, waiting_for: null }, [task(ID, { state })]);
    expect(outcome.tone).toBe(tone);
    expect(outcome.text).not.toMatch(/is (failed|timed_out|timed out|interrupted|completed|cancelled)/);
  });

  it.each<[number, string]>([
    [0, '0s'],
    [-3, '0s'],
    [45.9, '45s'],
    [60, '1m'],
    [330, '5m 30s'],
    [1800, '30m'],
    [3600, '1h'],
    [3900, '1h 5m'],
    [3959, '1h 5m'],
    [90000, '25h'],
  ])('formatDuration(%d) = %s', (secs, text) => {
    expect(formatDuration(secs)).toBe(text);
  });

  it.each<[Partial<TaskInfo>, number, number | null]>([
    [{}, 10_000, null],
    [{ started_at: 1000 }, 11_000, 10],
    [{ started_at: 1000, typed_at: 4000 }, 11_000, 7],
    [{ started_at: 1000, typed_at: 4000, ended_at: 6000 }, 99_000, 2],
  ])('elapsed of %j at %d is %s s', (overrides, now, secs) => {
    expect(elapsedSecs(task(ID, overrides), now)).toBe(secs);
  });

  it('labels elapsed time against the limit', () => {
    expect(elapsedLabel(task(ID, { typed_at: 0 }), 1800, 192_000)).toBe('3m 12s / 30m');
    expect(elapsedLabel(task(ID), 600, 0)).toBe('— / 10m');
    expect(elapsedLabel(task(ID, { typed_at: 0 }), null, 5000)).toBe('5s');
  });

  it.each<[string, string]>([
    ['one line', 'one line'],
    ['\n\n  first  \nsecond', 'first'],
    ['   ', ''],
  ])('firstLine(%j) = %j', (text, line) => {
    expect(firstLine(text)).toBe(line);
  });

  const entry = (kind: LogKind): LogEntry => ({ seq: 1, at: 0, session_id: null, task_id: ID, ...kind });
  it.each<[LogKind, string]>([
    [{ kind: 'task_queued', priority: 'normal' }, 'Queued'],
    [{ kind: 'task_queued', priority: 'urgent' }, 'Queued as urgent'],
    [{ kind: 'task_started' }, 'Taken from the queue'],
    [{ kind: 'task_typed', bracketed: true }, 'Typed into the agent'],
    [{ kind: 'task_typed', bracketed: false }, 'Typed into the agent'],
    [{ kind: 'task_moved', to_index: 0, priority: 'urgent' }, 'Moved to place 1 in the queue, among the urgent tasks'],
    [{ kind: 'task_moved', to_index: 2, priority: 'normal' }, 'Moved to place 3 in the queue'],
    [{ kind: 'task_requeued', app_stopped: false }, 'Put back in the queue'],
    [{ kind: 'task_edited', title: true, instruction: false }, 'Renamed'],
    [{ kind: 'task_edited', title: false, instruction: true }, 'Given another instruction'],
    [
      { kind: 'task_requeued', app_stopped: true },
      'Put back in the queue: Switchboard stopped before the task reached the agent',
    ],
    [
      { kind: 'task_quiet', quiet: true, alert_secs: 600 },
      'No output and no hook event for 10m while it should be working: the agent may be stuck',
    ],
    [{ kind: 'task_quiet', quiet: false, alert_secs: 600 }, 'The agent shows life again'],
    [{ kind: 'budget_near', budget: '50,000 tokens', used_percent: 81 }, 'Has used 81 % of its budget of 50,000 tokens: at all of it, it ends over budget'],
    [{ kind: 'task_ended', state: 'over_budget', reason: 'it used its budget of 50,000 tokens (52,120 tokens used)' }, 'Ended over budget: it used its budget of 50,000 tokens (52,120 tokens used)'],
    [{ kind: 'deliverable_rejected', path: '../etc/passwd', reason: 'outside the workspace' }, 'Deliverable ../etc/passwd rejected: outside the workspace'],
    [{ kind: 'task_ended', state: 'timed_out', reason: null }, 'Ended timed out'],
    [{ kind: 'task_ended', state: 'failed', reason: 'the agent exited' }, 'Ended failed: the agent exited'],
    [{ kind: 'session_started', pid: 42 }, 'The agent started'],
    [{ kind: 'session_exited', exit_code: 1, signal: null }, 'The agent exited with code 1'],
    [{ kind: 'session_killed', exit_code: 143, signal: 'SIGTERM' }, 'The agent was stopped'],
    [{ kind: 'session_interrupted', reaped: true }, 'The app stopped while the agent ran'],
    [{ kind: 'signal_raised', signal_id: 's', signal_kind: 'clarification', malformed: false }, 'The agent asked for clarification'],
    [{ kind: 'signal_raised', signal_id: 's', signal_kind: 'stop_work', malformed: true }, 'The agent printed an unreadable stop-work block'],
    [{ kind: 'signal_handled', signal_id: 's', response: { action: 'answer', answers: ['a'] } }, 'Signal handled: answered'],
    [{ kind: 'signal_handled', signal_id: 's', response: { action: 'dismiss' } }, 'Signal dismissed'],
    [{ kind: 'delegation', requester_session: 'r', state: { state: 'working' } }, 'Started for delegated work'],
    [{ kind: 'delegation', requester_session: 'r', state: { state: 'reported', at: 1, status: 'success' } }, 'Reported “success” on its delegated work'],
    [
      { kind: 'delegation', requester_session: 'r', state: { state: 'failed', at: 1, how: 'it exited (code 3)' } },
      'Ended before reporting on its delegated work: it exited (code 3)',
    ],
    [{ kind: 'worktree_made', branch: 'switchboard/claude/fix-login', base: 'main', path: '/data/worktrees/fix-login' }, 'Its worktree was made: branch switchboard/claude/fix-login, from main, in /data/worktrees/fix-login'],
    [{ kind: 'worktree_setup', command: 'npm ci', succeeded: true, exit: 0, output: '' }, "Its worktree's setup command ran: npm ci"],
    [{ kind: 'worktree_setup', command: 'npm ci', succeeded: false, exit: 1, output: 'npm ERR!' }, "Its worktree's setup command failed with code 1: npm ci"],
    [{ kind: 'worktree_setup', command: 'make deps', succeeded: false, exit: null, output: '' }, "Its worktree's setup command failed: make deps"],
    [{ kind: 'worktree_reviewed', step: { review: 'committed' } }, 'What the agent left uncommitted in its worktree was committed'],
    [{ kind: 'worktree_reviewed', step: { review: 'merged', base: 'main', fast_forward: true } }, 'Merged into main (moved it forward)'],
    [{ kind: 'worktree_reviewed', step: { review: 'merged', base: 'dev', fast_forward: false } }, 'Merged into dev with a merge commit'],
    [{ kind: 'worktree_reviewed', step: { review: 'merge_conflict', files: ['src/a.ts'] } }, 'Not merged: src/a.ts conflicts; nothing was changed'],
    [{ kind: 'worktree_reviewed', step: { review: 'merge_conflict', files: ['a', 'b', 'c', 'd', 'e'] } }, 'Not merged: a, b, c and 2 more conflict; nothing was changed'],
    [{ kind: 'worktree_reviewed', step: { review: 'rebased' } }, 'Rebased onto the latest of its base'],
    [{ kind: 'worktree_reviewed', step: { review: 'rebase_conflict', files: ['a', 'b'] } }, 'Not rebased: a and b conflict; the work is as it was'],
    [{ kind: 'worktree_reviewed', step: { review: 'discarded', patch: null } }, 'Its worktree was discarded'],
    [{ kind: 'worktree_reviewed', step: { review: 'discarded', patch: '/data/patches/x.patch' } }, 'Its worktree was discarded; its work was kept as /data/patches/x.patch'],
    [{ kind: 'worktree_reviewed', step: { review: 'comments_sent', comments: 1 } }, 'Your review (1 comment) went to the agent'],
    [{ kind: 'worktree_reviewed', step: { review: 'comments_sent', comments: 4 } }, 'Your review (4 comments) went to the agent'],
    [{ kind: 'loop', loop_id: 'l', step: { step: 'workspace_gone' } }, "Loop stopped: its agent's folder is gone"],
    [
      { kind: 'task_refused', why: "its agent's usage limit to reset (the time its agent named)" },
      "Its agent's model refused the turn: waiting for its agent's usage limit to reset (the time its agent named); its time limit is paused",
    ],
    [{ kind: 'task_refused', why: null }, "Its agent's model refused the turn: waiting for it to take work again; its time limit is paused"],
    [{ kind: 'task_resumed' }, 'Asked to go on (typed “continue”): its time limit runs again'],
    [{ kind: 'task_from_the_future' } as unknown as LogKind, 'task from the future'],
  ])('timeline %j', (kind, text) => {
    expect(timelineText(entry(kind))).toBe(text);
  });

  it.each<[LogKind, { text: string; failed: boolean } | null]>([
    [{ kind: 'worktree_setup', command: 'npm ci', succeeded: false, exit: 1, output: 'npm ERR! <b>missing</b>' }, { text: 'npm ERR! <b>missing</b>', failed: true }],
    [{ kind: 'worktree_setup', command: 'npm ci', succeeded: false, exit: 1, output: '' }, { text: '(it printed nothing)', failed: true }],
    [{ kind: 'worktree_setup', command: 'npm ci', succeeded: true, exit: 0, output: 'added 12 packages' }, { text: 'added 12 packages', failed: false }],
    [{ kind: 'worktree_setup', command: 'npm ci', succeeded: true, exit: 0, output: '  \n' }, null],
    [{ kind: 'task_started' }, null],
  ])('the output under timeline entry %j', (kind, output) => {
    expect(timelineOutput(entry(kind))).toEqual(output);
  });

  it('says how long a running task has been quiet, only while it runs', () => {
    const quiet = task(ID, { state: 'running', started_at: 0, session_id: 's', quiet_since: 1_000 });
    expect(quietLabel(quiet, 726_000)).toBe('No output for 12m 5s: it may be stuck');
    expect(quietLabel({ ...quiet, quiet_since: null }, 726_000)).toBeNull();
    expect(quietLabel({ ...quiet, state: 'failed' }, 726_000)).toBeNull();
  });

  it.each<[string, { text: string; valid: boolean }]>([
    ['{"a":1,"b":[true]}', { text: '{\n  "a": 1,\n  "b": [\n    true\n  ]\n}', valid: true }],
    ['not json', { text: 'not json', valid: false }],
  ])('prettyJson(%j)', (text, expected) => {
    expect(prettyJson(text)).toEqual(expected);
  });

  it('takes the summary from the summary file, else writes out the parsed fields', () => {
    const result = { summary, fallback: false, artifacts: [{ path: `summaries/${ID}.md`, content: '# Mine', size: 6, truncated: false }], rejected: [], results_json: null, errors: null };
    expect(summaryMarkdown(task(ID, { result }))).toBe('# Mine');
    const fallback = { ...result, fallback: true, artifacts: [{ path: 'src/a.rs', content: 'fn main(){}', size: 11, truncated: false }] };
    expect(summaryMarkdown(task(ID, { result: fallback }))).toBe(summaryToMarkdown(summary));
    expect(summaryMarkdown(task(ID))).toBeNull();
    expect(summaryToMarkdown(summary)).toBe(
      '## Objective\nFix it\n\n## Accomplishments\n- fixed\n- tested\n\n## Key Deliverables\n- `src/a.rs`\n\n## Test Results\n✅ All 2 tests passed\n\n## Status\ncompleted\n',
    );
  });
});

describe('the submit form', () => {
  const fields: TaskFormFields = {
    instruction: 'Fix the bug',
    context: '',
    specs: '  ',
    instructions: 'use tabs',
    priority: 'urgent',
    timeLimitMinutes: '',
    goals: ' ',
    successCriteria: 'tests pass',
    base: '  ',
  };

  it.each<[string, { ok: true; secs: number | null } | { ok: false; message: string }]>([
    ['', { ok: true, secs: null }],
    ['  ', { ok: true, secs: null }],
    ['5', { ok: true, secs: 300 }],
    ['1.5', { ok: true, secs: 90 }],
    [' 30 ', { ok: true, secs: 1800 }],
    ['0', { ok: false, message: 'The time limit must be more than zero.' }],
    ['-1', { ok: false, message: 'The time limit is a number of minutes, such as 30.' }],
    ['ten', { ok: false, message: 'The time limit is a number of minutes, such as 30.' }],
    ['1e3', { ok: false, message: 'The time limit is a number of minutes, such as 30.' }],
    ['99999999999', { ok: false, message: 'That time limit is too long.' }],
  ])('time limit %j', (text, expected) => {
    expect(parseTimeLimitMinutes(text)).toEqual(expected);
  });

  const empty: TaskFormFields = {
    instruction: '',
    context: '',
    specs: '',
    instructions: '',
    priority: 'normal',
    timeLimitMinutes: '',
    goals: '',
    successCriteria: '',
    base: '',
  };

  it.each<[string, Partial<TaskFormFields>, Partial<TaskFormFields>, Partial<TaskFormFields>]>([
    ['untouched meanwhile: emptied, the priority back to normal', {}, {}, {}],
    ['the next instruction typed meanwhile: kept', {}, { instruction: 'Proofread it' }, { instruction: 'Proofread it' }],
    ['urgent chosen meanwhile: kept', { priority: 'normal' }, { priority: 'urgent' }, { priority: 'urgent' }],
    ['a field emptied meanwhile: stays empty', {}, { instructions: '' }, {}],
  ])('after a submission, %s', (_, sent, meanwhile, expected) => {
    expect(formAfterSubmit({ ...fields, ...sent }, { ...fields, ...sent, ...meanwhile })).toEqual({ ...empty, ...expected });
  });

  it('builds the spec, blank optional fields as null and an empty limit as the default', () => {
    expect(taskSpecFromForm('p', fields)).toEqual({
      ok: true,
      spec: {
        profile_id: 'p',
        instruction: 'Fix the bug',
        context: null,
        specs: null,
        instructions: 'use tabs',
        priority: 'urgent',
        time_limit_secs: null,
        success_criteria: 'tests pass',
        goals: null,
        loop_iteration: null,
        base: null,
      },
    });
    const withGoals = taskSpecFromForm('p', { ...fields, goals: 'Users can paste YAML' });
    expect(withGoals.ok && withGoals.spec.goals).toBe('Users can paste YAML');
    const withBase = taskSpecFromForm('p', { ...fields, base: ' release/2.1 ' });
    expect(withBase.ok && withBase.spec.base).toBe('release/2.1');
  });

  it.each<[Partial<TaskFormFields>, string]>([
    [{ instruction: '  \n ' }, 'instruction'],
    [{ timeLimitMinutes: 'x' }, 'timeLimitMinutes'],
  ])('refuses %j', (change, field) => {
    const built = taskSpecFromForm('p', { ...fields, ...change });
    expect(built.ok).toBe(false);
    if (!built.ok) expect(built.field).toBe(field);
  });
});

describe('selectionForTask', () => {
  const session = (id: string, profile_id: string, state: 'running' | 'exited', started_at: number): SessionInfo =>
    state === 'running'
      ? { id, profile_id, started_at, size: { rows: 24, cols: 80 }, agent_session_id: null, state, pid: 1 }
      : { id, profile_id, started_at, size: { rows: 24, cols: 80 }, agent_session_id: null, state, exit_code: 0, signal: null, ended_at: started_at + 1 };
  const model: Model = {
    profiles: [],
    sessions: [session('p-old', 'p', 'exited', 1), session('p-live', 'p', 'running', 2), session('p-live2', 'p', 'running', 3), session('q-live', 'q', 'running', 4)],
  };

  it.each<[string, Selection, Partial<TaskInfo>, Selection]>([
    ['keeps the agent when it is selected', { kind: 'profile', id: 'p' }, {}, { kind: 'profile', id: 'p' }],
    ['keeps a session of the agent', { kind: 'session', id: 'p-old' }, { session_id: 'p-live' }, { kind: 'session', id: 'p-old' }],
    ['goes to the session the task ran in', { kind: 'session', id: 'q-live' }, { session_id: 'p-old' }, { kind: 'session', id: 'p-old' }],
    ['else to the newest running session', { kind: 'profile', id: 'q' }, { session_id: null }, { kind: 'session', id: 'p-live2' }],
    ['else to the agent', null, { profile_id: 'r' }, { kind: 'profile', id: 'r' }],
  ])('%s', (_name, selection, overrides, expected) => {
    expect(selectionForTask(model, selection, task(ID, overrides))).toEqual(expected);
  });
});
