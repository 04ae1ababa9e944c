import { describe, expect, it } from 'vitest';
import type { Delegation, DelegationState, EngineEvent } from './bindings';
import { applyDelegationEvent, delegationLine, delegationOf } from './delegations';

const delegation = (state: DelegationState, keep = false, quiet_since: number | null = null): Delegation => ({
  delegate_session: 'helper-1',
  delegate_profile: 'p-helper',
  request: 'signal-1',
  requester_session: 'lead-1',
  requester_profile: 'p-lead',
  work: 'Write the parser tests\nin tests/parser.rs',
  blocks: true,
  keep,
  started_at: 1,
  state,
  quiet_since,
  spent: { tokens: { input: 0, output: 0, cache_read: 0, cache_write: 0, by_model: [] }, cost_usd: 0, list_price: false },
});

describe('delegations', () => {
  it('follows each delegate by its session, the latest change winning', () => {
    const working = delegation({ state: 'working' });
    const reported = delegation({ state: 'reported', at: 2, status: 'success' });
    const events: EngineEvent[] = [
      { type: 'delegation_changed', delegation: working },
      { type: 'delegation_changed', delegation: reported },
    ];
    const list = events.reduce(applyDelegationEvent, [] as Delegation[]);
    expect(list).toEqual([reported]);
    expect(delegationOf(list, 'helper-1')).toEqual(reported);
    expect(delegationOf(list, 'lead-1')).toBeUndefined();
    expect(applyDelegationEvent(list, { type: 'profile_deleted', profile_id: 'p' })).toBe(list);
  });

  it.each<[Delegation, string]>([
    [delegation({ state: 'working' }), 'Works for lead on “Write the parser tests”; it ends once it reports.'],
    [delegation({ state: 'working' }, true), 'Works for lead on “Write the parser tests”; it keeps running after it reports.'],
    [
      delegation({ state: 'working' }, false, 5),
      'Works for lead on “Write the parser tests”, but has shown no sign of life for a while: it may be stuck (it ends, failed, at its time limit).',
    ],
    [
      delegation({ state: 'failed', at: 2, how: 'it did not report within its time limit (30 min)' }),
      'Ended before reporting to lead on “Write the parser tests”: it did not report within its time limit (30 min).',
    ],
    [delegation({ state: 'reported', at: 2, status: 'partial' }), 'Reported “partial” to lead on “Write the parser tests”.'],
    [
      delegation({ state: 'failed', at: 2, how: 'it exited (code 3)' }),
      'Ended before reporting to lead on “Write the parser tests”: it exited (code 3).',
    ],
  ])('says %j in words', (d, text) => {
    expect(delegationLine(d, 'lead')).toBe(text);
  });
});
