import { describe, expect, it } from 'vitest';
import type { Profile, SessionInfo, SignalInfo } from './bindings';
import { changesSomething, lookingOnly, paletteCommands, type PaletteAction } from './palette';

const ana = { id: 'ana-id', name: 'ana' } as Profile;
const bo = { id: 'bo-id', name: 'bo' } as Profile;
const session = { id: 'ana-s', profile_id: ana.id, state: 'running', pid: 1 } as SessionInfo;

describe('changesSomething', () => {
  it.each<[PaletteAction, boolean]>([
    [{ kind: 'new-task', profile: ana }, true],
    [{ kind: 'new-agent' }, true],
    [{ kind: 'start', profile: ana }, true],
    [{ kind: 'resume', profile: ana }, true],
    [{ kind: 'pause-all', paused: true }, true],
    [{ kind: 'go', profile: ana, session: null }, false],
    [{ kind: 'answer', signal: {} as SignalInfo }, false],
    [{ kind: 'task', taskId: 't1' }, false],
    [{ kind: 'dashboard' }, false],
    [{ kind: 'search' }, false],
    [{ kind: 'terminal' }, false],
  ])('%o changes something: %s', (action, changes) => {
    expect(changesSomething(action)).toBe(changes);
  });
});

describe('lookingOnly', () => {
  it('keeps what shows and leaves out what starts, queues, makes or pauses', () => {
    const all = paletteCommands({ profiles: [ana, bo], sessions: [session], queues: [], pending: [], attention: {}, loops: [], current: ana, terminalShown: true, agentsShown: true });
    const kept = lookingOnly(all).map((c) => c.action.kind);
    expect(all.some((c) => changesSomething(c.action))).toBe(true);
    expect(kept).not.toContain('new-task');
    expect(kept).not.toContain('new-agent');
    expect(kept).not.toContain('start');
    expect(kept).not.toContain('pause-all');
    expect(kept).toContain('go');
    expect(kept).toContain('dashboard');
  });
});
