import { describe, expect, it } from 'vitest';
import { AppState } from './appState.svelte';
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
