import { describe, expect, it } from 'vitest';
import type { LogEntry, LogKind } from './bindings';
import { describeEntry, entryGroup, mayConcern, toJsonLines } from './flows';
import { timelineText } from './timeline';

function entry(kind: LogKind, overrides: Partial<LogEntry> = {}): LogEntry {
  return { seq: 1, at: 1_700_000_000_000, session_id: 's1', task_id: null, ...kind, ...overrides } as LogEntry;
}

describe('the event log in words', () => {
  const cases: [LogKind, string, string][] = [
    [{ kind: 'session_started', pid: 42 }, 'The agent started', 'session'],
    [{ kind: 'task_queued', priority: 'urgent' }, 'Queued as urgent', 'task'],
    [{ kind: 'signal_raised', signal_id: 'x', signal_kind: 'clarification', malformed: false }, 'The agent asked for clarification', 'signal'],
    [{ kind: 'delegation', requester_session: 'r', state: { state: 'working' } }, 'Started for delegated work', 'delegation'],
    [{ kind: 'hook', event: 'pre_tool_use', payload: { tool_name: 'Bash' } }, 'Calls a tool: Bash', 'hook'],
    [{ kind: 'hook', event: 'notification', payload: { message: 'Needs you\nmore' } }, 'Notification: Needs you', 'hook'],
    [{ kind: 'hook', event: 'stop', payload: {} }, 'Its turn ended', 'hook'],
    [{ kind: 'hook', event: 'PreModelRequest', payload: {} }, 'Event: PreModelRequest', 'hook'],
    [{ kind: 'loop', loop_id: 'l', step: { step: 'started', max_iterations: 4 } }, 'Loop started, at most 4 iterations', 'loop'],
    [{ kind: 'loop', loop_id: 'l', step: { step: 'judged', number: 2, verdict: { verdict: 'stalled', repeated: 5, reason: 'x' } } }, 'Iteration 2 judged: stalled', 'loop'],
  ];
  it.each(cases)('%j reads "%s"', (kind, words, group) => {
    expect(describeEntry(entry(kind))).toBe(words);
    expect(entryGroup(entry(kind))).toBe(group);
  });

  it('says every entry as the task timeline does: one set of words', () => {
    for (const [kind] of cases) expect(describeEntry(entry(kind))).toBe(timelineText(entry(kind)));
  });

  it('keeps agent text as plain text (the view renders it as text, never markup)', () => {
    const words = describeEntry(entry({ kind: 'hook', event: 'pre_tool_use', payload: { tool_name: '<img src=x onerror=alert(1)>' } }));
    expect(words).toBe('Calls a tool: <img src=x onerror=alert(1)>');
  });
});

describe('export and following', () => {
  it('writes one JSON object per line, oldest first', () => {
    const a = entry({ kind: 'task_started' }, { seq: 1 });
    const b = entry({ kind: 'task_typed', bracketed: true }, { seq: 2 });
    const text = toJsonLines([a, b]);
    expect(text.split('\n')).toHaveLength(3);
    expect(text.split('\n').slice(0, 2).map((l) => JSON.parse(l).seq)).toEqual([1, 2]);
    expect(toJsonLines([])).toBe('');
  });

  it('asks again only for entries that may concern the target', () => {
    const e = entry({ kind: 'task_started' }, { task_id: 't1' });
    expect(mayConcern({ of: 'agent', profile_id: 'p1' }, e, 'p1', 'p1')).toBe(true);
    expect(mayConcern({ of: 'agent', profile_id: 'p1' }, e, 'p2', 'p1')).toBe(false);
    expect(mayConcern({ of: 'task', task_id: 't1' }, e, 'p2', 'p1')).toBe(true);
    expect(mayConcern({ of: 'task', task_id: 't9' }, e, 'p2', 'p1')).toBe(false);
    expect(mayConcern({ of: 'session', session_id: 's1' }, e, 'p2', 'p1')).toBe(true);
  });
});
