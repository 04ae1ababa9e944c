import { describe, expect, it } from 'vitest';
import { profile } from '../test/profiles';
import type { EngineEvent, Profile, SessionInfo } from './bindings';
import {
  applyEngineEvent,
  currentSessionOf,
  formatTime,
  initialSelection,
  localeWords,
  mergeInitial,
  newestFirst,
  plural,
  repairSelection,
  sessionsOfProfile,
  folderName,
  stateDetail,
  stateLabel,
  upsertSession,
} from './model';

const base = (id: string, profile_id: string, started_at: number) => ({ id, profile_id, started_at, size: { rows: 24, cols: 80 }, agent_session_id: null });
const running = (id: string, profileId = 'p', at = 0): SessionInfo => ({ ...base(id, profileId, at), state: 'running', pid: 100 });
const exited = (id: string, profileId = 'p', at = 0, code = 0): SessionInfo => ({
  ...base(id, profileId, at),
  state: 'exited',
  exit_code: code,
  signal: null,
  ended_at: at + 1,
});

describe('upsertSession', () => {
  it('appends a new session and replaces a known one', () => {
    const list = upsertSession([running('a')], running('b'));
    expect(list.map((s) => s.id)).toEqual(['a', 'b']);
    expect(upsertSession(list, exited('a'))[0].state).toBe('exited');
  });

  it('never moves an ended session back to running (a stale copy)', () => {
    const list = [exited('a')];
    expect(upsertSession(list, running('a'))).toEqual(list);
  });
});

describe('applyEngineEvent', () => {
  const model = { profiles: [profile('p')], sessions: [running('s')] };

  it('saves, renames and deletes profiles', () => {
    const added = applyEngineEvent(model, { type: 'profile_saved', profile: profile('q') });
    expect(added.profiles.map((p) => p.id)).toEqual(['p', 'q']);
    const renamed = applyEngineEvent(added, { type: 'profile_saved', profile: profile('p', { name: 'renamed' }) });
    expect(renamed.profiles.map((p) => p.name)).toEqual(['renamed', 'q']);
    expect(applyEngineEvent(renamed, { type: 'profile_deleted', profile_id: 'p' }).profiles.map((p) => p.id)).toEqual(['q']);
  });

  it('drops a deleted profile\'s sessions with it', () => {
    const two = { profiles: [profile('p'), profile('q')], sessions: [exited('s1', 'p'), exited('s2', 'q')] };
    const after = applyEngineEvent(two, { type: 'profile_deleted', profile_id: 'p' });
    expect(after.sessions.map((s) => s.id)).toEqual(['s2']);
  });

  it('applies session changes', () => {
    expect(applyEngineEvent(model, { type: 'session_changed', session: exited('s') }).sessions[0].state).toBe('exited');
  });

  it('ignores event types it does not know', () => {
    const event = { type: 'from_a_newer_engine' } as unknown as EngineEvent;
    expect(applyEngineEvent(model, event)).toBe(model);
  });
});

describe('mergeInitial', () => {
  it('applies events buffered during the load after the lists', () => {
    const merged = mergeInitial({ profiles: [profile('p'), profile('q')], sessions: [running('s', 'p'), running('u', 'q')] }, [
      { type: 'session_changed', session: exited('u', 'q') },
      { type: 'session_changed', session: running('t', 'q') },
      { type: 'profile_deleted', profile_id: 'p' },
    ]);
    expect(merged.profiles.map((p) => p.id)).toEqual(['q']);
    expect(merged.sessions.map((s) => [s.id, s.state])).toEqual([
      ['u', 'exited'],
      ['t', 'running'],
    ]);
  });

  it('keeps an exit seen as an event before a list that still says running', () => {
    const merged = mergeInitial({ profiles: [], sessions: [running('s')] }, [{ type: 'session_changed', session: exited('s') }]);
    expect(merged.sessions[0].state).toBe('exited');
  });
});

describe('ordering', () => {
  it('lists newest first, breaking ties by list position', () => {
    const list = [running('old', 'p', 1), running('tie-first', 'p', 5), running('tie-second', 'p', 5), running('mid', 'p', 3)];
    expect(newestFirst(list).map((s) => s.id)).toEqual(['tie-second', 'tie-first', 'mid', 'old']);
  });

  it("lists only the profile's own sessions", () => {
    expect(sessionsOfProfile([running('a', 'p'), running('b', 'q')], 'q').map((s) => s.id)).toEqual(['b']);
  });
});

describe('the session shown for an agent', () => {
  // A worktree task's session in its grace (older), and the next task's (newer).
  const sessions = [running('grace', 'p', 1), running('next', 'p', 2), exited('gone', 'p', 3), running('other', 'q', 4)];
  it.each<[string, string | null | undefined, string | undefined]>([
    ['the one the engine names, though another started later', 'grace', 'grace'],
    ['the one the engine names', 'next', 'next'],
    ['none, when the engine says none runs', null, undefined],
    ['the newest running one, from an engine that names none', undefined, 'next'],
    ['the newest running one, while the named one has not reached the window', 'unknown', 'next'],
    ['the newest running one, when the named one has ended here', 'gone', 'next'],
  ])('%s', (_, named, shown) => {
    expect(currentSessionOf(sessions, 'p', named)?.id).toBe(shown);
  });
});

describe('initialSelection', () => {
  const cases: [string, Profile[], SessionInfo[], ReturnType<typeof initialSelection>][] = [
    ['nothing at all', [], [], null],
    ['a profile without sessions', [profile('p')], [], { kind: 'profile', id: 'p' }],
    [
      'the most recent running session, over a newer ended one',
      [profile('p')],
      [running('r1', 'p', 1), running('r2', 'p', 2), exited('e', 'p', 3)],
      { kind: 'session', id: 'r2' },
    ],
    ['the most recent session when none runs', [profile('p')], [exited('e1', 'p', 1), exited('e2', 'p', 2)], { kind: 'session', id: 'e2' }],
    ['not a session whose profile is gone', [profile('p')], [running('orphan', 'gone', 9), exited('e', 'p', 1)], { kind: 'session', id: 'e' }],
  ];
  it.each(cases)('opens on %s', (_name, profiles, sessions, expected) => {
    expect(initialSelection({ profiles, sessions })).toEqual(expected);
  });
});

describe('folderName', () => {
  it.each([
    ['/home/ana/projects/shop', 'shop'],
    ['/home/ana/projects/shop/', 'shop'],
    ['/', '/'],
  ])('%s is %s', (path, name) => expect(folderName(path)).toBe(name));
});

describe('stateLabel', () => {
  const at = base('s', 'p', 0);
  it.each<[SessionInfo, string, string]>([
    [{ ...at, state: 'running', pid: 42 }, 'running', 'Running as process 42.'],
    [{ ...at, state: 'exited', exit_code: 3, signal: null, ended_at: 1 }, 'exited, code 3', 'The agent exited with code 3.'],
    [{ ...at, state: 'exited', exit_code: 0, signal: null, ended_at: 1 }, 'exited', 'The agent exited.'],
    [{ ...at, state: 'exited', exit_code: 0, signal: 'SIGSEGV', ended_at: 1 }, 'ended (SIGSEGV)', 'The agent ended on signal SIGSEGV.'],
    // A stop is a stop, however the process took it (a Hangup for a loop's finished iteration).
    [{ ...at, state: 'killed', exit_code: 143, signal: 'SIGTERM', ended_at: 1 }, 'stopped', 'Stopped by you, by the app when it quit, or when its work was done.'],
    [{ ...at, state: 'killed', exit_code: 0, signal: 'Hangup', ended_at: 1 }, 'stopped', 'Stopped by you, by the app when it quit, or when its work was done.'],
    [{ ...at, state: 'interrupted', ended_at: 1 }, 'interrupted', 'The app stopped while it ran.'],
  ])('%j', (session, label, detail) => {
    expect(stateLabel(session)).toBe(label);
    expect(stateDetail(session)).toBe(detail);
  });

  it.each<[SessionInfo, string]>([
    // A running session on a machine out of reach says only what was last heard.
    [{ ...at, state: 'running', pid: 42 }, 'last seen running'],
    // An ended session stays ended: nothing heard later can undo that.
    [{ ...at, state: 'exited', exit_code: 0, signal: null, ended_at: 1 }, 'exited'],
    [{ ...at, state: 'killed', exit_code: 143, signal: 'SIGTERM', ended_at: 1 }, 'stopped'],
  ])('%j, its machine disconnected', (session, label) => {
    expect(stateLabel(session, false)).toBe(label);
    if (session.state === 'running') expect(stateDetail(session, false)).toMatch(/disconnected.*may have ended/);
    else expect(stateDetail(session, false)).toBe(stateDetail(session));
  });
});

describe('formatTime', () => {
  const now = new Date(2026, 10, 21, 15, 0);
  it('shows only the time for today and adds the day otherwise', () => {
    const today = formatTime(new Date(2026, 10, 21, 9, 5).getTime(), now);
    const earlier = formatTime(new Date(2026, 10, 19, 9, 5).getTime(), now);
    expect(earlier).not.toBe(today);
    expect(earlier.endsWith(today)).toBe(true);
    expect(today).toMatch(/09.05|9.05/);
  });
});

describe('localeWords', () => {
  const dates = [new Date(2026, 10, 21, 9, 5, 7), new Date(2026, 0, 1, 23, 59, 59), new Date(2027, 5, 30, 0, 0, 0)];
  const cases: [string, Intl.DateTimeFormatOptions, (d: Date, o: Intl.DateTimeFormatOptions) => string][] = [
    ['a time', { hour: '2-digit', minute: '2-digit' }, (d, o) => d.toLocaleTimeString(undefined, o)],
    ['a time with seconds', { hour: '2-digit', minute: '2-digit', second: '2-digit' }, (d, o) => d.toLocaleTimeString(undefined, o)],
    ['a day', { month: 'short', day: 'numeric' }, (d, o) => d.toLocaleDateString(undefined, o)],
    ['a weekday', { weekday: 'short' }, (d, o) => d.toLocaleDateString(undefined, o)],
  ];
  it.each(cases)('says %s as toLocale…String does, however often it is asked', (_, options, said) => {
    for (const date of dates) {
      expect(localeWords(date, options)).toBe(said(date, options));
      expect(localeWords(date, { ...options })).toBe(said(date, options));
    }
  });
});

describe('repairSelection', () => {
  const model = { profiles: [profile('p'), profile('q')], sessions: [exited('old', 'q', 1), running('live', 'q', 5)] };

  it('keeps a selection that still exists', () => {
    expect(repairSelection(model, { kind: 'profile', id: 'p' })).toEqual({ kind: 'profile', id: 'p' });
    expect(repairSelection(model, { kind: 'session', id: 'old' })).toEqual({ kind: 'session', id: 'old' });
    expect(repairSelection(model, null)).toBeNull();
  });

  it('falls back to what the window opens on when the selected thing is gone', () => {
    expect(repairSelection(model, { kind: 'profile', id: 'deleted' })).toEqual({ kind: 'session', id: 'live' });
    expect(repairSelection(model, { kind: 'session', id: 'deleted' })).toEqual({ kind: 'session', id: 'live' });
    expect(repairSelection({ profiles: [], sessions: [] }, { kind: 'profile', id: 'p' })).toBeNull();
  });
});

describe('a count in words', () => {
  it('says one thing in the singular and any other number in the plural', () => {
    const cases: [number, string][] = [
      [0, '0 events'],
      [1, '1 event'],
      [2, '2 events'],
    ];
    for (const [n, said] of cases) expect(plural(n, 'event')).toBe(said);
  });
});
