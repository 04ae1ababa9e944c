import { describe, expect, it } from 'vitest';
import type { Attention, EngineEvent, PermissionRequest, SignalInfo, TaskInfo } from './bindings';
import { inboxEntries, keyBytes, layoutFor, wideKeyBar, pageNoticeOf, PHONE_MAX_WIDTH, ToldNews, type InboxInput, type TerminalKey } from './phone';
import { signalScan } from '../test/records';
import { clarification, stopWork } from '../test/signals';
import { needsYou, question } from '../test/attention';

describe('layoutFor', () => {
  it.each([
    [360, 'phone'],
    [390, 'phone'],
    [430, 'phone'],
    [PHONE_MAX_WIDTH, 'phone'],
    [PHONE_MAX_WIDTH + 1, 'desktop'],
    [768, 'desktop'],
    [820, 'desktop'],
    [1280, 'desktop'],
  ])('lays a page %i px wide out for a %s', (width, layout) => {
    expect(layoutFor(width)).toBe(layout);
  });
});

function signal(id: string, profileId: string, createdAt: number, body = clarification(['Which port?'])): SignalInfo {
  return {
    id,
    session_id: `session-of-${profileId}`,
    profile_id: profileId,
    task_id: null,
    channel: 'pty',
    scan: signalScan(body),
    state: 'pending',
    created_at: createdAt,
    handled_at: null,
    response: null,
    reply_prompt: null,
    delegate_session: null,
    deliverables: [],
    success_criteria: null,
    merged: null,
    actions: ['answer', 'dismiss'],
  };
}

const permission = (id: number, profileId: string, askedAt: number): PermissionRequest => ({
  id,
  session_id: `session-of-${profileId}`,
  tool_name: 'Bash',
  tool_input: { command: 'rm -rf build' },
  asked_at: askedAt,
  expires_at: askedAt + 60_000,
});

const profiles = ['ana', 'bo', 'cy', 'di', 'ed', 'fi', 'gu'].map((id) => ({ id }));
const sessions = profiles.map(({ id }) => ({ id: `session-of-${id}`, profile_id: id }));

function inbox(input: Partial<InboxInput>): string[] {
  return inboxEntries({ signals: [], permissions: [], attention: {}, profiles, sessions, ...input }).map((entry) => entry.key);
}

describe('inboxEntries', () => {
  it('lists what the engine said waits on the user and what holds an agent, newest first', () => {
    const asked = signal('s1', 'ana', 300);
    const blocked = signal('s2', 'bo', 100, stopWork());
    const attention: Record<string, Attention> = {
      // Waits on the listed question: listed by the question, not again by the agent.
      ana: needsYou(question('Which port?'), { signal_id: 's1', since: 300 }),
      bo: needsYou({ kind: 'blocker', blocker: 'node_modules missing' }, { signal_id: 's2', since: 100 }),
      // Waits on the listed request: listed by the request.
      cy: needsYou({ kind: 'permission', tool: 'Bash' }, { since: 500 }),
      // Waits at its own prompt: nothing else to open, so the agent is listed.
      di: needsYou({ kind: 'asks' }, { since: 200 }),
      ed: { state: 'stalled', stall: { kind: 'quiet', task_id: 't1', task: 'Build' }, since: 50 },
      fi: { state: 'limited', account: '/home/me/.claude', until: 9_000, retry_at: 9_030, since: 400, task_id: null, task: null },
      gu: { state: 'working', task_id: 't2', task: 'Write', since: 600 },
    };
    expect(inbox({ signals: [blocked, asked], permissions: [permission(7, 'cy', 500)], attention })).toEqual([
      'permission:session-of-cy:7',
      'agent:fi',
      'signal:s1',
      'agent:di',
      'signal:s2',
      'agent:ed',
    ]);
  });

  it('lists no settled signal, nor the agent that waited on it while the engine has not yet said it waits no more', () => {
    const answered = { ...signal('s1', 'ana', 300), state: 'handled' as const };
    const attention: Record<string, Attention> = { ana: needsYou(question('Which port?'), { signal_id: 's1', since: 300 }) };
    expect(inbox({ signals: [answered], attention })).toEqual([]);
  });

  it('lists failed agents, and a waiting agent whose signal is not among those loaded', () => {
    const attention: Record<string, Attention> = {
      ana: { state: 'failed', count: 2, task_id: 't1', task: 'Build', reason: 'exit 1', since: 10 },
      bo: needsYou(question('Which?'), { signal_id: 'not-loaded', since: 20 }),
    };
    expect(inbox({ attention })).toEqual(['agent:bo', 'agent:ana']);
  });

  it('lists nothing of an agent whose machine is out of reach, nor of idle, working or stopped ones', () => {
    const attention = {
      ana: { state: 'unknown', host: 'dev@box', since: null },
      bo: { state: 'idle', since: 1 },
      cy: { state: 'stopped', since: null, ended: null, failed: 0 },
    } as InboxInput['attention'];
    expect(inbox({ attention })).toEqual([]);
  });

  it('keeps a permission request whose session it does not know, by its own key', () => {
    expect(inbox({ permissions: [{ ...permission(1, 'zed', 5), session_id: 'elsewhere' }] })).toEqual(['permission:elsewhere:1']);
  });
});

describe('wideKeyBar', () => {
  it.each([
    ['browser', true, true],
    ['browser', false, false],
    ['window', true, false],
    ['window', false, false],
  ] as const)('in a %s, a coarse pointer %s: the key bar %s', (kind, coarse, shown) => {
    expect(wideKeyBar(kind, coarse)).toBe(shown);
  });
});

describe('keyBytes', () => {
  it.each<[TerminalKey, string, string]>([
    ['escape', '\x1b', '\x1b'],
    ['tab', '\t', '\t'],
    ['ctrl-c', '\x03', '\x03'],
    ['enter', '\r', '\r'],
    ['up', '\x1b[A', '\x1bOA'],
    ['down', '\x1b[B', '\x1bOB'],
    ['right', '\x1b[C', '\x1bOC'],
    ['left', '\x1b[D', '\x1bOD'],
  ])('%s is %j, or %j with application cursor keys', (key, normal, application) => {
    expect(keyBytes(key, false)).toBe(normal);
    expect(keyBytes(key, true)).toBe(application);
  });
});

describe('pageNoticeOf', () => {
  const names = { agent: (id: string) => ({ ana: 'Ana' })[id], agentOfSession: (id: string) => (id === 'session-of-ana' ? 'ana' : undefined) };
  const task = (state: TaskInfo['state'], extra: Partial<TaskInfo> = {}) =>
    ({ id: 't1', profile_id: 'ana', state, title: null, instruction: 'Fix the build\nand more', reason: null, result: null, loop_iteration: null, ...extra }) as TaskInfo;
  const notice = (event: EngineEvent) => pageNoticeOf(event, names);

  it('tells a question asked, with its first question, until it is answered', () => {
    expect(notice({ type: 'signal_changed', signal: signal('s1', 'ana', 1) })).toMatchObject({
      key: 'signal:s1',
      tone: 'asks',
      title: 'Ana asks a question',
      body: 'Which port?',
      opens: { kind: 'signal', id: 's1' },
      waits: true,
    });
    expect(notice({ type: 'signal_changed', signal: { ...signal('s1', 'ana', 1), state: 'handled' } })).toBeNull();
  });

  it('tells a permission requested, naming the agent of its session', () => {
    expect(notice({ type: 'permission_requested', request: permission(3, 'ana', 1) })).toMatchObject({
      key: 'permission:session-of-ana:3',
      title: 'Ana asks to use Bash',
      waits: true,
    });
  });

  it.each<[TaskInfo['state'], Partial<TaskInfo>, string | null, string | null]>([
    ['completed', {}, 'Task finished', 'Ana: “Fix the build”'],
    ['failed', { reason: 'exit 1' }, 'Task failed', 'Ana: “Fix the build”: exit 1'],
    ['timed_out', {}, 'Task failed', 'Ana: “Fix the build”'],
    ['running', {}, null, null],
    ['queued', {}, null, null],
    ['cancelled', {}, null, null],
    // A loop's iterations are the loop's to tell.
    ['completed', { loop_iteration: { loop_id: 'l1', number: 2 } as unknown as TaskInfo['loop_iteration'] }, null, null],
  ])('tells a task %s (%o) as %s', (state, extra, title, body) => {
    const told = notice({ type: 'task_changed', task: task(state, extra) });
    expect(told?.title ?? null).toBe(title);
    expect(told?.body ?? null).toBe(body);
  });

  it('tells a task whose summary says it failed as failed, though it completed', () => {
    const result = { summary: { status: 'failed' } } as TaskInfo['result'];
    expect(notice({ type: 'task_changed', task: task('completed', { result }) })?.tone).toBe('failed');
  });

  it('tells an agent the engine says may be stuck, once per stall', () => {
    const stalled: Attention = { state: 'stalled', stall: { kind: 'quiet', task_id: 't1', task: 'Build' }, since: 42 };
    expect(notice({ type: 'attention_changed', profile_id: 'ana', attention: stalled })).toMatchObject({ key: 'stalled:ana:42', title: 'Ana may be stuck' });
    expect(notice({ type: 'attention_changed', profile_id: 'ana', attention: { state: 'idle', since: 1 } })).toBeNull();
  });

  it('says "An agent" for one it does not know, and cuts a long question short', () => {
    const long = signal('s9', 'zed', 1, clarification(['x'.repeat(500)]));
    const told = notice({ type: 'signal_changed', signal: long })!;
    expect(told.title).toBe('An agent asks a question');
    expect(told.body.length).toBeLessThanOrEqual(120);
    expect(told.body.endsWith('…')).toBe(true);
  });
});

describe('ToldNews', () => {
  it('takes each key as news once, forgetting the oldest beyond what it remembers', () => {
    const told = new ToldNews(2);
    expect([told.isNew('a'), told.isNew('a'), told.isNew('b'), told.isNew('c')]).toEqual([true, false, true, true]);
    // "a" was forgotten for "c"; "b" is still remembered.
    expect([told.isNew('b'), told.isNew('a')]).toEqual([false, true]);
  });
});
