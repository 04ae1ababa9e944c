import { describe, expect, it } from 'vitest';
import { AppState, followNewSession } from './appState.svelte';
import type { EngineEvent, SessionInfo } from './bindings';
import { FakeBackend } from './fakeBackend';
import { callsOf } from '../test/render';
import { clarification } from '../test/signals';
import { signalScan } from './fakeBackend';

/** A backend whose event subscription registers only when told to. */
class SlowToListen extends FakeBackend {
  registered!: () => void;
  readonly #ready = new Promise<void>((resolve) => (this.registered = resolve));
  override whenListening(): Promise<void> {
    return this.#ready;
  }
}

describe('opening the window', () => {
  it('loads the lists only once events are heard, so a change in between is not missed', async () => {
    const backend = new SlowToListen();
    const app = new AppState(backend);
    const opening = app.open();
    await Promise.resolve();
    expect(callsOf(backend, 'list_profiles')).toEqual([]);
    // An agent created while the subscription registers: the lists load after, and hold it.
    const profile = backend.seedProfile({ name: 'late' });
    backend.registered();
    await opening;
    expect(app.model.profiles.map((p) => p.id)).toEqual([profile.id]);
    app.close();
  });
});

describe('a missed session', () => {
  it('is listed again when an event names a session the window does not know', async () => {
    const backend = new FakeBackend();
    const agent = backend.seedProfile({ name: 'lead' });
    const app = new AppState(backend);
    await app.open();
    // A session whose news the window never got (seeded without an event).
    const missed = backend.seedSession(agent.id, { state: 'running', pid: 7 });
    expect(app.sessionsOf(agent.id)).toEqual([]);
    backend.raiseSignal(missed.id, signalScan(clarification()));
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(app.sessionsOf(agent.id).map((s) => s.id)).toEqual([missed.id]);
    expect(callsOf(backend, 'list_sessions')).toHaveLength(2);
    app.close();
  });
});

describe('the view follows an agent to its new session', () => {
  const session = (id: string, profile_id: string, started_at: number, running: boolean): SessionInfo => ({
    id,
    profile_id,
    started_at,
    size: { rows: 24, cols: 80 },
    agent_session_id: null,
    ...(running ? { state: 'running' as const, pid: 1 } : { state: 'killed' as const, exit_code: 0, signal: null, ended_at: started_at + 1 }),
  });
  const started = (info: SessionInfo): EngineEvent => ({ type: 'session_changed', session: info });
  const model = {
    profiles: [],
    sessions: [session('old', 'p', 1, false), session('last', 'p', 2, false), session('live', 'q', 3, true), session('other', 'q', 1, false)],
  };
  const on = (id: string) => ({ kind: 'session' as const, id });

  it.each<[string, ReturnType<typeof on> | { kind: 'profile'; id: string } | null, EngineEvent, string | null]>([
    // The agent's latest session ended (a loop's iteration, a restart): its new one is shown.
    ['the ended latest session follows', on('last'), started(session('new', 'p', 5, true)), 'new'],
    // An older session the user went back to stays on screen.
    ['an older session stays', on('old'), started(session('new', 'p', 5, true)), 'old'],
    // A session still running stays (the agent runs two at once).
    ['a running session stays', on('live'), started(session('new', 'q', 5, true)), 'live'],
    // Another agent's new session changes nothing.
    ['another agent stays', on('last'), started(session('new', 'q', 5, true)), 'last'],
    // A session the window knew already (its change, not its start) changes nothing.
    ['a known session stays', on('last'), started(session('live', 'q', 3, true)), 'last'],
    // An ended session's news is not a start.
    ['an end stays', on('last'), started(session('new', 'p', 5, false)), 'last'],
  ])('%s', (_, selection, event, shown) => {
    const next = followNewSession(model, selection, event);
    expect(next?.id ?? null).toBe(shown);
  });

  it.each<[string, SessionInfo[], string]>([
    // A restart whose new session was told before the old one's end: the new one is shown.
    ['the shown session ends after its successor started', [session('old', 'r', 4, true), session('new', 'r', 5, true)], 'new'],
    // Ending with no newer running session of its agent: it stays on screen, ended.
    ['the shown session ends alone', [session('old', 'r', 4, true)], 'old'],
    ['the shown session ends while an older one runs', [session('older', 'r', 3, true), session('old', 'r', 4, true)], 'old'],
  ])('%s', (_, sessions, shown) => {
    const ended = { ...sessions.find((s) => s.id === 'old')!, ...session('old', 'r', 4, false) };
    const next = followNewSession({ profiles: [], sessions }, on('old'), started(ended));
    expect(next?.id ?? null).toBe(shown);
  });

  it('in the window: a loop\'s next iteration in a fresh session is shown in place of the ended one', async () => {
    const backend = new FakeBackend();
    const p = backend.seedProfile({ name: 'looper' });
    const first = backend.seedSession(p.id, { state: 'running', pid: 1 });
    const app = new AppState(backend);
    await app.open();
    app.select({ kind: 'session', id: first.id });
    backend.exit(first.id, 0);
    expect(app.selection).toEqual({ kind: 'session', id: first.id });
    const next = await backend.startSession(p.id, { rows: 24, cols: 80 });
    expect(app.selection).toEqual({ kind: 'session', id: next.id });
    app.close();
  });
});
