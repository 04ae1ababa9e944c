import { describe, expect, it } from 'vitest';
import { AppState, followNewSession } from './appState.svelte';
import type { EngineEvent, HostLink, SessionInfo } from './bindings';
import { FakeBackend } from './fakeBackend';
import { connectedHost } from '../test/records';
import { profileSpec } from '../test/profiles';
import { callsOf } from '../test/render';
import { clarification } from '../test/signals';
import { signalScan } from '../test/records';

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

describe('other machines the window shows', () => {
  const lost = (destination: string): HostLink => ({ destination, link: { state: 'lost', reason: 'The connection was lost.', host: destination } });

  it('keeps each machine’s link, as listed when the window opens and as it changes', async () => {
    const backend = new FakeBackend();
    backend.setHostLink({ destination: 'build-box', link: connectedHost('build-box') });
    const app = new AppState(backend);
    await app.open();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(app.hostLinks.map((h) => [h.destination, h.link.state])).toEqual([['build-box', 'connected']]);
    backend.setHostLink(lost('build-box'));
    expect(app.hostLinks.map((h) => [h.destination, h.link.state])).toEqual([['build-box', 'lost']]);
    // Losing a machine loads nothing again: its agents go on there, and show as disconnected.
    expect(backend.reloads).toBe(0);
    app.close();
  });

  it('lets a machine taken out of the list go, with its agents; this computer’s stay', async () => {
    const backend = new FakeBackend();
    backend.setHostLink({ destination: 'build-box', link: connectedHost('build-box') });
    const here = backend.seedProfile({ name: 'here' });
    const there = backend.seedProfile({ name: 'there', host: 'build-box' });
    const app = new AppState(backend);
    await app.open();
    await new Promise((resolve) => setTimeout(resolve, 0));
    app.select({ kind: 'profile', id: there.id });
    app.forgetHost('build-box');
    expect(app.model.profiles.map((p) => p.name)).toEqual(['here']);
    expect(app.hostLinks).toEqual([]);
    // What was shown left with its machine: the window shows what is left.
    expect(app.selectedAgent?.id).toBe(here.id);
    app.close();
  });

  it('loads the window anew for a machine just added once the user leaves the Machines view', async () => {
    const backend = new FakeBackend();
    const app = new AppState(backend);
    await app.open();
    app.openMachines();
    backend.setHostLink({ destination: 'build-box', link: connectedHost('build-box') });
    // Not under the user, who is reading what the view says of the machine added.
    expect(backend.reloads).toBe(0);
    app.closeMachines();
    expect(backend.reloads).toBe(1);
    app.openMachines();
    app.closeMachines();
    expect(backend.reloads).toBe(1);
    app.close();
  });

  it('loads the window anew when a machine is back, or reached for the first time', async () => {
    const backend = new FakeBackend();
    backend.setHostLink(lost('build-box'));
    backend.setHostLink({ destination: 'gpu-box', link: { state: 'connecting' } });
    const app = new AppState(backend);
    await app.open();
    await new Promise((resolve) => setTimeout(resolve, 0));
    backend.setHostLink({ destination: 'build-box', link: connectedHost('build-box') });
    expect(backend.reloads).toBe(1);
    backend.setHostLink({ destination: 'gpu-box', link: connectedHost('gpu-box') });
    expect(backend.reloads).toBe(2);
    // One just added, which the window did not know of.
    await backend.addHost('dev@new-box', null, null, null);
    expect(backend.reloads).toBe(3);
    // Still reached: nothing more.
    backend.setHostLink({ destination: 'gpu-box', link: connectedHost('gpu-box') });
    expect(backend.reloads).toBe(3);
    app.close();
  });

  it('makes a new agent on the machine chosen, and saves an edited one on its own', async () => {
    const backend = new FakeBackend({ repositories: [{ root: '/work/shop' }] });
    const app = new AppState(backend);
    await app.open();
    const spec = profileSpec('trainer', { cwd: '/work/shop', isolation: 'worktree' });
    const made = await app.saveAgent(spec, { repository: '/work/shop', command: 'npm ci' }, 'build-box');
    expect(made.host).toBe('build-box');
    app.openForm(made);
    await app.saveAgent({ ...spec, name: 'trainer 2' }, null, null);
    const saves = ['set_repository_setup', 'create_profile', 'update_profile'];
    expect(backend.calls.filter((c) => saves.includes(c.command)).map((c) => [c.command, c.machine])).toEqual([
      ['set_repository_setup', 'build-box'],
      ['create_profile', 'build-box'],
      ['update_profile', 'build-box'],
    ]);
    expect(app.model.profiles.map((p) => [p.name, p.host])).toEqual([['trainer 2', 'build-box']]);
    app.close();
  });

  it('answers a permission request on the machine of the agent that asked', async () => {
    const backend = new FakeBackend();
    const remote = backend.seedProfile({ name: 'trainer', host: 'build-box' });
    const local = backend.seedProfile({ name: 'builder' });
    const there = backend.seedSession(remote.id, { state: 'running', pid: 7 });
    const here = backend.seedSession(local.id, { state: 'running', pid: 8 });
    const app = new AppState(backend);
    await app.open();
    const asked = { tool_name: 'Bash', tool_input: { command: 'ls' }, asked_at: 0, expires_at: Date.now() + 60_000 };
    // The window names the machine that asked (its shell tags another machine's requests).
    backend.askPermission({ ...asked, id: 1, session_id: there.id, host: 'build-box' });
    backend.askPermission({ ...asked, id: 2, session_id: here.id });
    // A machine's request for a session the window has not heard of: answered there all the
    // same, never by this computer's engine, whose request 1 may be another one entirely.
    backend.askPermission({ ...asked, id: 1, session_id: 'a5ab0c52-0d4c-4f4e-9c71-1a2b3c4d5e6f', host: 'gpu' });
    await app.decidePermission(app.permissions[0], true, null);
    await app.decidePermission(app.permissions[0], false, 'not now');
    await app.decidePermission(app.permissions[0], false, null);
    expect(backend.calls.filter((c) => c.command === 'decide_permission').map((c) => [c.args.requestId, c.machine])).toEqual([
      [1, 'build-box'],
      [2, null],
      [1, 'gpu'],
    ]);
    expect(app.permissions).toEqual([]);
    app.close();
  });
});
