import { describe, expect, it } from 'vitest';
import type { LogEntry, LogKind } from './bindings';
import { describeEntry, entryGroup, mayConcern, toJsonLines } from './flows';

function entry(kind: LogKind, overrides: Partial<LogEntry> = {}): LogEntry {
  return { seq: 1, at: 1_700_000_000_000, session_id: 's1', task_id: null, ...kind, ...overrides } as LogEntry;
}

describe('the event log in words', () => {
  const cases: [LogKind, string, string][] = [
    [{ kind: 'session_started', pid: 42 }, 'The agent started', 'session'],
    [{ kind: 'session_exited', exit_code: 3, signal: null }, 'The agent exited with code 3', 'session'],
    [{ kind: 'task_queued', priority: 'urgent' }, 'Task queued, urgent', 'task'],
    [{ kind: 'task_moved', to_index: 0, priority: 'normal' }, 'Task moved to place 1 in the queue', 'task'],
    [{ kind: 'task_quiet', quiet: true, alert_secs: 600 }, 'No sign of life for 10 min: it may be stuck', 'task'],
    [{ kind: 'task_ended', state: 'timed_out', reason: 'ran past 30 min\nmore' }, 'Task timed out: ran past 30 min', 'task'],
    [{ kind: 'signal_raised', signal_id: 'x', signal_kind: 'clarification', malformed: false }, 'Asked for clarification', 'signal'],
    [{ kind: 'signal_raised', signal_id: 'x', signal_kind: 'stop_work', malformed: true }, 'Stopped work at a blocker (malformed)', 'signal'],
    [{ kind: 'signal_handled', signal_id: 'x', response: { action: 'answer', answers: ['a'] } }, 'The user answered', 'signal'],
    [{ kind: 'delegation', requester_session: 'r', state: { state: 'failed', at: 1, how: 'it exited' } }, 'Delegated work failed: it exited', 'delegation'],
    [{ kind: 'hook', event: 'pre_tool_use', payload: { tool_name: 'Bash' } }, 'Calls a tool: Bash', 'hook'],
    [{ kind: 'hook', event: 'stop', payload: {} }, 'Its turn ended', 'hook'],
    [{ kind: 'hook', event: 'PreModelRequest', payload: {} }, 'Event: PreModelRequest', 'hook'],
    [{ kind: 'loop', loop_id: 'l', step: { step: 'judged', number: 2, verdict: { verdict: 'stalled', repeated: 5, reason: 'x' } } }, 'Iteration 2 judged: stalled', 'loop'],
  ];
  it.each(cases)('%j reads "%s"', (kind, words, group) => {
    expect(describeEntry(entry(kind))).toBe(words);
    expect(entryGroup(entry(kind))).toBe(group);
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
