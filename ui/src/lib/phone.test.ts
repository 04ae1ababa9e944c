import { describe, expect, it } from 'vitest';
import type { Attention, PermissionRequest, SignalInfo } from './bindings';
import { inboxEntries, keptNotices, keyBytes, layoutFor, wideKeyBar, PHONE_MAX_WIDTH, type InboxInput, type ShownNotice, type TerminalKey } from './phone';
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

describe('keptNotices', () => {
  const show = (place: string, title: string): ShownNotice => ({ type: 'show', place, tone: 'asks', title, body: '', opens: null, stays: true });
  it('puts a notice in its place, the newest last, and empties a place the engine closes', () => {
    const one = keptNotices([], show('agent:a', 'a asks'));
    const two = keptNotices(one, show('finished', 'Task completed'));
    expect(two.map((n) => n.title)).toEqual(['a asks', 'Task completed']);
    expect(keptNotices(two, show('agent:a', 'a may be stuck')).map((n) => n.title)).toEqual(['Task completed', 'a may be stuck']);
    expect(keptNotices(two, { type: 'close', place: 'agent:a' }).map((n) => n.title)).toEqual(['Task completed']);
    expect(keptNotices(two, { type: 'close', place: 'app' })).toEqual(two);
  });
});

