import { describe, expect, it, vi } from 'vitest';
import { AppState } from './appState.svelte';
import type { AgentStatus, EngineEvent } from './bindings';
import { FakeBackend } from './fakeBackend';
import { Pacer, eventPaceOf, pacedNews, shownAgents, type OnScreen } from './pace';

const status = (session_id: string, value: AgentStatus = 'working'): EngineEvent => ({
  type: 'agent_status_changed',
  status: { session_id, status: value, last_event_at: 1, team: null, agent_name: null, agent_type: null },
});
const idle = (profile_id: string, since: number): EngineEvent => ({ type: 'attention_changed', profile_id, attention: { state: 'idle', since } });
const sessions = [
  { id: 's1', profile_id: 'lead' },
  { id: 's2', profile_id: 'helper' },
];

describe('the news that may wait for the pace', () => {
  it.each<[string, EngineEvent, ReturnType<typeof pacedNews>]>([
    ['a status, by its session, of its agent', status('s2'), { key: 'status:s2', profile: 'helper' }],
    ['a status of a session the window does not know: at once', status('s9'), null],
    ['an attention', idle('lead', 5), { key: 'attention:lead', profile: 'lead' }],
    ['anything else: at once', { type: 'profile_deleted', profile_id: 'helper' }, null],
  ])('%s', (_, event, expected) => {
    expect(pacedNews(event, sessions)).toEqual(expected);
  });
});

describe('the agents the main area shows', () => {
  const none: OnScreen = { selection: null, sessions, grid: [], flows: null };
  it.each<[string, Partial<OnScreen>, string[]]>([
    ['the dashboard: none of its own (it follows the engine at its pace)', {}, []],
    ["a session: its agent's", { selection: { kind: 'session', id: 's2' } }, ['helper']],
    ['a session not known: none', { selection: { kind: 'session', id: 's9' } }, []],
    ['an agent', { selection: { kind: 'profile', id: 'lead' } }, ['lead']],
    ["the grid's tiles and the flows' agent", { grid: ['lead', 'helper'], flows: 'other' }, ['lead', 'helper', 'other']],
  ])('%s', (_, on, expected) => {
    expect([...shownAgents({ ...none, ...on })].sort()).toEqual([...expected].sort());
  });
});

describe('how soon the window wants events', () => {
  it.each<[string, string[], string]>([
    ['no agent on screen (the dashboard): calm', [], 'calm'],
    ['one agent on screen: live', ['lead'], 'live'],
    ['the grid: live', ['lead', 'helper'], 'live'],
  ])('%s', (_, shown, expected) => {
    expect(eventPaceOf(new Set(shown))).toBe(expected);
  });
});

describe('held news', () => {
  function pacer() {
    const applied: string[][] = [];
    return { applied, pacer: new Pacer<string>((events) => applied.push(events)) };
  }

  it('is applied at the beat, all at once, the latest of each thing, in the order it last came', () => {
    const { applied, pacer: held } = pacer();
    held.hold('a', 'a1');
    held.hold('b', 'b1');
    held.hold('a', 'a2');
    expect(applied).toEqual([]);
    held.flush();
    expect(applied).toEqual([['b1', 'a2']]);
    expect(held.holding).toBe(0);
    // A beat with nothing held applies nothing.
    held.flush();
    expect(applied).toEqual([['b1', 'a2']]);
  });

  it('forgets what newer news, applied directly, replaced', () => {
    const { applied, pacer: held } = pacer();
    held.hold('a', 'a1');
    held.hold('b', 'b1');
    held.drop('a');
    held.flush();
    expect(applied).toEqual([['b1']]);
  });
});

describe('the window under many agents', () => {
  it("follows the shown agent's every change at once, and the others' at the beat", async () => {
    const backend = new FakeBackend();
    const lead = backend.seedProfile({ name: 'lead' });
    const helper = backend.seedProfile({ name: 'helper' });
    const shown = backend.seedSession(lead.id, { state: 'running', pid: 7 });
    const other = backend.seedSession(helper.id, { state: 'running', pid: 8 });
    const app = new AppState(backend);
    await app.open();
    app.select({ kind: 'session', id: shown.id });
    const heard = app.attention[helper.id];

    backend.emit(status(shown.id, 'working'));
    backend.emit(status(other.id, 'working'));
    backend.emit(status(other.id, 'attention'));
    backend.emit(idle(helper.id, 42));
    await Promise.resolve();
    expect(app.agentStatus[shown.id]?.status).toBe('working');
    expect(app.agentStatus[other.id]).toBeUndefined();
    expect(app.attention[helper.id]).toBe(heard);

    // At the beat, the other agent's news lands together, its latest.
    await vi.waitFor(() => expect(app.agentStatus[other.id]?.status).toBe('attention'), { timeout: 10_000 });
    expect(app.attention[helper.id]).toEqual({ state: 'idle', since: 42 });

    // Just after that beat: the shown agent's news comes at once and leaves what is held for
    // the others held (it used to let all of it through, so the sidebar redrew at every event).
    backend.emit(status(other.id, 'working'));
    backend.emit(status(shown.id, 'attention'));
    await Promise.resolve();
    expect(app.agentStatus[shown.id]?.status).toBe('attention');
    expect(app.agentStatus[other.id]?.status).toBe('attention');
    await vi.waitFor(() => expect(app.agentStatus[other.id]?.status).toBe('working'), { timeout: 10_000 });

    // Held news goes before an event that must not overtake it: the agent is gone, and no
    // news of it held before comes back after.
    backend.emit(idle(helper.id, 43));
    backend.emit({ type: 'profile_deleted', profile_id: helper.id });
    await Promise.resolve();
    expect(app.attention[helper.id]).toBeUndefined();
    // A beat later, still gone.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect(app.attention[helper.id]).toBeUndefined();
    app.close();
  });
});
