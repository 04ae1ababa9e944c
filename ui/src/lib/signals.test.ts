import { describe, expect, it } from 'vitest';
import type { ApiError, EngineEvent, Independence, Profile, SignalInfo, SignalResponse } from './bindings';
import { profile } from '../test/profiles';
import { FakeBackend } from './fakeBackend';
import { signalScan } from '../test/records';
import {
  actionWord,
  allowedActions,
  applyFloodEvent,
  applySignalEvent,
  defaultDelegateProfile,
  floodingAgents,
  deliverableRows,
  extraEntries,
  independenceLabel,
  mergeInitialSignals,
  pendingOfProfile,
  pendingOfSession,
  pendingSignals,
  rawLabel,
  recentlySettled,
  responseErrorText,
  responseSummary,
  responseText,
  signalFields,
  signalHandledText,
  signalKind,
  signalRaisedText,
  signalSetAsideText,
  signalTitle,
  upsertSignal,
  wellFormed,
} from './signals';
import { clarification, completion, delegate, malformed, signalInfo, stopWork } from '../test/signals';

const changed = (signal: SignalInfo): EngineEvent => ({ type: 'signal_changed', signal });
const handled = (info: SignalInfo, response: SignalResponse = { action: 'acknowledge' }): SignalInfo => ({
  ...info,
  state: response.action === 'dismiss' ? 'dismissed' : 'handled',
  handled_at: 10,
  response,
});

describe('folding signal events', () => {
  it('upserts by id, appending new signals', () => {
    const a = signalInfo('a', clarification());
    const b = signalInfo('b', stopWork());
    let list = applySignalEvent([], changed(a));
    list = applySignalEvent(list, changed(b));
    list = applySignalEvent(list, changed(handled(a)));
    expect(list.map((s) => [s.id, s.state])).toEqual([
      ['a', 'handled'],
      ['b', 'pending'],
    ]);
  });

  it('never lets a stale pending copy undo a settled signal', () => {
    const a = handled(signalInfo('a', clarification()), { action: 'dismiss' });
    expect(upsertSignal([a], signalInfo('a', clarification()))[0].state).toBe('dismissed');
    // A settled copy replaces a settled one (the engine's is the truth).
    expect(upsertSignal([a], handled(signalInfo('a', clarification())))[0].state).toBe('handled');
  });

  it('drops the signals of a deleted agent and ignores other events', () => {
    const list = [signalInfo('a', clarification()), signalInfo('b', clarification(), { profile_id: 'q' })];
    expect(applySignalEvent(list, { type: 'profile_deleted', profile_id: 'p' }).map((s) => s.id)).toEqual(['b']);
    const queueEvent: EngineEvent = { type: 'queue_changed', queue: { profile_id: 'p', paused: false, executing: false, current_task: null, queued: 0 } };
    expect(applySignalEvent(list, queueEvent)).toBe(list);
  });

  it('merges the initial list with the events that arrived meanwhile', () => {
    const a = signalInfo('a', clarification());
    const b = signalInfo('b', delegate());
    const merged = mergeInitialSignals([a, a], [changed(handled(a)), changed(b)]);
    expect(merged.map((s) => [s.id, s.state])).toEqual([
      ['a', 'handled'],
      ['b', 'pending'],
    ]);
  });
});

describe('floods', () => {
  const flooding: EngineEvent = { type: 'signals_flooding', session_id: 's1', profile_id: 'p', limit: 2, oldest_pending: 'a' };

  it('shows an agent while its session has as many signals waiting as the limit', () => {
    const floods = applyFloodEvent({}, flooding);
    const two = [signalInfo('a', clarification(), { session_id: 's1' }), signalInfo('b', stopWork(), { session_id: 's1' })];
    expect(floodingAgents(floods, two)).toEqual([{ profileId: 'p', limit: 2 }]);
    expect(floodingAgents(floods, [two[0], handled(two[1])])).toEqual([]);
    expect(floodingAgents({}, two)).toEqual([]);
  });

  it('forgets a deleted agent and ignores other events', () => {
    const floods = applyFloodEvent({}, flooding);
    expect(applyFloodEvent(floods, { type: 'profile_deleted', profile_id: 'p' })).toEqual({});
    expect(applyFloodEvent(floods, { type: 'profile_deleted', profile_id: 'q' })).toEqual(floods);
    expect(applyFloodEvent(floods, changed(signalInfo('a', clarification())))).toBe(floods);
  });

  it.each([
    ['clarification', 'Clarification set aside: the agent had too many signals waiting'],
    ['completion', 'Completion report set aside: the agent had too many signals waiting'],
  ] as const)('names a %s set aside in the timeline', (kind, text) => {
    expect(signalSetAsideText(kind)).toBe(text);
  });
});

describe('what needs the user', () => {
  const list = [
    signalInfo('late', clarification(), { created_at: 30, session_id: 's1' }),
    signalInfo('early', stopWork(), { created_at: 10, session_id: 's2', profile_id: 'q' }),
    handled(signalInfo('done', completion(), { created_at: 5, session_id: 's1' })),
    signalInfo('tie-b', delegate(), { created_at: 20, session_id: 's1' }),
    signalInfo('tie-a', delegate(), { created_at: 20, session_id: 's1' }),
  ];

  it('lists pending signals oldest first', () => {
    expect(pendingSignals(list).map((s) => s.id)).toEqual(['early', 'tie-a', 'tie-b', 'late']);
  });

  it.each<[string, string[]]>([
    ['s1', ['tie-a', 'tie-b', 'late']],
    ['s2', ['early']],
    ['s3', []],
  ])('pending of session %s', (sessionId, ids) => {
    expect(pendingOfSession(list, sessionId).map((s) => s.id)).toEqual(ids);
  });

  it.each<[string, string[]]>([
    ['p', ['tie-a', 'tie-b', 'late']],
    ['q', ['early']],
    ['r', []],
  ])('pending of profile %s', (profileId, ids) => {
    expect(pendingOfProfile(list, profileId).map((s) => s.id)).toEqual(ids);
  });

  it('lists settled signals, the most recently settled first, up to a limit', () => {
    const settled = [
      { ...handled(signalInfo('x', clarification())), handled_at: 1 },
      { ...handled(signalInfo('y', clarification())), handled_at: 3 },
      { ...handled(signalInfo('z', clarification())), handled_at: 2 },
      signalInfo('w', clarification()),
    ];
    expect(recentlySettled(settled, 10).map((s) => s.id)).toEqual(['y', 'z', 'x']);
    expect(recentlySettled(settled, 2).map((s) => s.id)).toEqual(['y', 'z']);
  });
});

describe('texts', () => {
  it.each([
    ['pty', 'The block as printed'],
    ['hook', 'The block as printed'],
    ['tool', 'The tool call as made'],
  ] as const)('what an agent sent on the %s channel is named as it came', (channel, label) => {
    expect(rawLabel(channel)).toBe(label);
  });

  it.each<[string, SignalInfo, string | undefined, string]>([
    ['two questions', signalInfo('1', clarification()), 'claude', 'claude asks 2 questions'],
    ['a name that says agent', signalInfo('1', clarification()), 'Demo agent', 'Demo agent asks 2 questions'],
    ['one question', signalInfo('1', clarification(['Why?'])), 'claude', 'claude asks a question'],
    ['no question', signalInfo('1', clarification([])), 'claude', 'claude asks for clarification'],
    ['blocked', signalInfo('1', stopWork()), 'codex', 'codex is blocked: external dependency'],
    ['blocked, no type', signalInfo('1', stopWork({ blocker_type: ' ' })), 'codex', 'codex is blocked'],
    ['delegate', signalInfo('1', delegate()), 'a b', 'a b asks to delegate work'],
    ['completion', signalInfo('1', completion({ status: ' partial ' })), 'x', 'x reports completion: partial'],
    ['completion, no status', signalInfo('1', completion({ status: '' })), 'x', 'x reports completion'],
    ['malformed', signalInfo('1', malformed('stop_work')), 'x', 'x printed an unreadable stop-work block'],
    ['malformed completion', signalInfo('1', malformed('completion')), 'x', 'x printed an unreadable completion report block'],
    ['deleted agent', signalInfo('1', delegate()), undefined, 'A deleted agent asks to delegate work'],
  ])('title: %s', (_, info, name, title) => {
    expect(signalTitle(info, name)).toBe(title);
  });

  it.each<[Independence, string]>([
    ['can_proceed_parallel', 'can run in parallel'],
    ['blocks_current_work', 'the requester waits for it'],
    [{ other: 'after the migration' }, 'after the migration'],
  ])('independence %j', (independence, label) => {
    expect(independenceLabel(independence)).toBe(label);
  });

  it('tells the kind and the parsed signal', () => {
    expect(signalKind(signalInfo('1', stopWork()))).toBe('stop_work');
    expect(signalKind(signalInfo('1', malformed('delegate')))).toBe('delegate');
    expect(wellFormed(signalInfo('1', malformed()))).toBeNull();
    expect(wellFormed(signalInfo('1', completion()))?.kind).toBe('completion');
  });

  it.each<[string, SignalInfo, [string, boolean][]]>([
    ['clarification', signalInfo('1', clarification()), [['blocked_at', false], ['current_state', false]]],
    [
      'stop work (the snapshot always preformatted)',
      signalInfo('1', stopWork({ details: 'one\ntwo', state_snapshot: 'short' })),
      [
        ['blocker_type', false],
        ['details', true],
        ['state_snapshot', true],
        ['blocked_work', false],
        ['stop_reason', false],
        ['resume_requirements', false],
      ],
    ],
    ['delegate', signalInfo('1', delegate()), [['new_task_description', false], ['independence', false], ['coordination', false]]],
    ['completion', signalInfo('1', completion()), [['status', false]]],
    ['malformed', signalInfo('1', malformed()), []],
  ])('fields of %s', (_, info, fields) => {
    expect(signalFields(info).map((f) => [f.name, f.pre])).toEqual(fields);
  });

  it('shows independence in words among the fields', () => {
    const fields = signalFields(signalInfo('1', delegate({ independence: 'blocks_current_work' })));
    expect(fields.find((f) => f.name === 'independence')?.value).toBe('the requester waits for it');
  });

  it('lists unknown fields sorted, values as JSON', () => {
    expect(extraEntries({ zeta: 'text', alpha: 3, list: [1, 'two'], nested: { a: null }, flag: true })).toEqual([
      ['alpha', '3'],
      ['flag', 'true'],
      ['list', '[1,"two"]'],
      ['nested', '{"a":null}'],
      ['zeta', '"text"'],
    ]);
    expect(extraEntries({})).toEqual([]);
  });

  it('checks deliverables, falling back to the unchecked list', () => {
    const checked = signalInfo('1', completion(), {
      deliverables: [
        { path: 'a.rs', problem: null },
        { path: '../x', problem: 'outside the workspace' },
      ],
    });
    expect(deliverableRows(checked)).toEqual([
      { path: 'a.rs', ok: true, problem: null },
      { path: '../x', ok: false, problem: 'outside the workspace' },
    ]);
    expect(deliverableRows(signalInfo('1', completion({ deliverables: ['b.rs'] })))).toEqual([{ path: 'b.rs', ok: null, problem: null }]);
    expect(deliverableRows(signalInfo('1', clarification()))).toEqual([]);
  });

  const names = (id: string) => ({ p: 'claude' })[id];
  it.each<[SignalResponse, string, string | null]>([
    [{ action: 'answer', answers: ['a', 'b'] }, 'Answered 2 questions', null],
    [{ action: 'resolve', resolution: 'installed it' }, 'Resolved', 'installed it'],
    [{ action: 'retry', fix: 'pinned lodash' }, 'Fixed; told to retry from the checkpoint', 'pinned lodash'],
    [{ action: 'skip' }, 'Told to skip the item (logged to SKIPPED_ITEMS.md)', null],
    [{ action: 'delegate_blocked', profile_id: 'p' }, 'Blocked part delegated to a new session of claude', null],
    [{ action: 'approve', profile_id: 'gone' }, 'Approved: a new session of a deleted agent takes the work', null],
    [{ action: 'deny', reason: 'no budget' }, 'Denied', 'no budget'],
    [{ action: 'acknowledge' }, 'Acknowledged', null],
    [{ action: 'dismiss' }, 'Dismissed: nothing was sent to the agent', null],
  ])('response %j', (response, summary, text) => {
    expect(responseSummary(response, names)).toBe(summary);
    expect(responseText(response)).toBe(text);
  });

  it.each<[Parameters<typeof signalRaisedText>, string]>([
    [['clarification', false], 'The agent asked for clarification'],
    [['stop_work', false], 'The agent stopped work: blocked'],
    [['delegate', false], 'The agent asked to delegate work'],
    [['completion', false], 'The agent reported completion'],
    [['delegate', true], 'The agent printed an unreadable delegation block'],
  ])('timeline: raised %j', (args, text) => {
    expect(signalRaisedText(...args)).toBe(text);
  });

  it('timeline: handled', () => {
    expect(signalHandledText({ action: 'approve', profile_id: 'p' })).toBe('Signal handled: delegation approved');
    expect(signalHandledText({ action: 'dismiss' })).toBe('Signal dismissed');
    expect(actionWord('delegate_blocked')).toBe('blocked part delegated');
  });

  it.each<[ApiError, string]>([
    [
      { code: 'too_many_agents', message: '8 agents are running, the most allowed at once; stop one or raise the limit', field: null },
      'No new agent was started: 8 agents are running, the most allowed at once; stop one or raise the limit.',
    ],
    [{ code: 'signal_state', message: 'signal s: it is already handled', field: null }, 'This signal is no longer waiting: signal s: it is already handled'],
    [{ code: 'signal_not_found', message: 'no signal s', field: null }, 'This signal is gone: no signal s'],
    [{ code: 'storage', message: 'disk full', field: null }, 'disk full'],
  ])('error %j', (error, text) => {
    expect(responseErrorText(error)).toBe(text);
  });
});

describe('responding', () => {
  it.each<[string, SignalInfo, string[]]>([
    ['clarification', signalInfo('1', clarification()), ['answer', 'dismiss']],
    ['stop work', signalInfo('1', stopWork()), ['resolve', 'retry', 'skip', 'delegate_blocked', 'dismiss']],
    ['delegate', signalInfo('1', delegate()), ['approve', 'deny', 'dismiss']],
    ['completion', signalInfo('1', completion()), ['acknowledge', 'dismiss']],
    ['malformed', signalInfo('1', malformed('delegate')), ['dismiss']],
  ])('actions of %s, as the engine offers them', (_, info, actions) => {
    expect(allowedActions(info)).toEqual(actions);
  });

  it('offers nothing once the engine says the signal is handled', () => {
    expect(allowedActions(signalInfo('1', clarification(), { state: 'handled', actions: [] }))).toEqual([]);
  });

  it.each<[string, Profile[], string | null]>([
    ['the requester', [profile('a'), profile('p')], 'p'],
    ['the first when the requester is gone', [profile('a'), profile('b')], 'a'],
    ['none without agents', [], null],
  ])('default agent for delegated work: %s', (_, profiles, id) => {
    expect(defaultDelegateProfile(signalInfo('1', delegate()), profiles)).toBe(id);
  });
});

describe('signalScan (the fake engine)', () => {
  it('keeps the body and writes a raw block', () => {
    const scan = signalScan(delegate({ independence: { other: 'later' } }), { agent_id: 'bg-1' });
    expect(scan.type).toBe('signal');
    if (scan.type !== 'signal') return;
    expect(scan.signal).toMatchObject({ kind: 'delegate', agent_id: 'bg-1', timestamp: null, extra: {} });
    expect(scan.signal.raw).toBe('new_task_description: "Write the parser tests"\nindependence: "later"\ncoordination: "put them in tests/parser.rs"');
  });
});

describe('respond_to_signal (the fake engine)', () => {
  function setup() {
    const backend = new FakeBackend({ now: () => 7 });
    const agent = backend.seedProfile({ name: 'agent' });
    const session = backend.seedSession(agent.id, { state: 'running', pid: 1 });
    return { backend, agent, session };
  }

  it('settles a signal once, and refuses one settled or unknown', async () => {
    const { backend, session } = setup();
    const raised = backend.raiseSignal(session.id, signalScan(clarification(['Q?'])));
    const settled = await backend.respondToSignal(raised.id, { action: 'answer', answers: ['A'] });
    expect(settled).toMatchObject({ state: 'handled', handled_at: 7, response: { action: 'answer', answers: ['A'] }, actions: [] });
    await expect(backend.respondToSignal(raised.id, { action: 'dismiss' })).rejects.toMatchObject({ code: 'signal_state' });
    await expect(backend.respondToSignal('nope', { action: 'dismiss' })).rejects.toMatchObject({ code: 'signal_not_found' });
    expect((await backend.listSignals()).map((s) => s.state)).toEqual(['handled']);
  });

  it('emits signal_changed when raised and when settled', async () => {
    const { backend, session } = setup();
    const events: string[] = [];
    backend.onEngineEvent((event) => {
      if (event.type === 'signal_changed') events.push(event.signal.state);
    });
    const raised = backend.raiseSignal(session.id, signalScan(completion()));
    await backend.respondToSignal(raised.id, { action: 'dismiss' });
    expect(events).toEqual(['pending', 'dismissed']);
  });

  it('starts delegated work in a new session of the chosen agent', async () => {
    const { backend, agent, session } = setup();
    const raised = backend.raiseSignal(session.id, signalScan(delegate()));
    await expect(backend.respondToSignal(raised.id, { action: 'approve', profile_id: 'gone' })).rejects.toMatchObject({ code: 'profile_not_found' });
    expect((await backend.listSignals()).map((s) => s.state)).toEqual(['pending']);
    const approved = await backend.respondToSignal(raised.id, { action: 'approve', profile_id: agent.id });
    const started = (await backend.listSessions()).find((s) => s.id === approved.delegate_session);
    expect(started).toMatchObject({ profile_id: agent.id, state: 'running' });
    expect(started?.id).not.toBe(session.id);
  });
});
