import { describe, expect, it } from 'vitest';
import type { AgentStatusInfo, EngineEvent } from './bindings';
import { applyStatusEvent, hooksTitle, statusLabel, statusMapOf } from './agentStatus';

const S1 = 'a0000000-0000-4000-8000-000000000001';
const S2 = 'b0000000-0000-4000-8000-000000000002';
const info = (session_id: string, status: AgentStatusInfo['status'], last_event_at: number | null = 5): AgentStatusInfo => ({
  session_id,
  status,
  last_event_at,
  team: null,
  agent_name: null,
  agent_type: null,
});

describe('agent status', () => {
  it('folds events over the listed statuses', () => {
    const map = statusMapOf([info(S1, 'waiting')]);
    const working: EngineEvent = { type: 'agent_status_changed', status: info(S1, 'working', 9) };
    const other: EngineEvent = { type: 'agent_status_changed', status: info(S2, 'attention') };
    const next = applyStatusEvent(applyStatusEvent(map, working), other);
    expect(next[S1]).toEqual(info(S1, 'working', 9));
    expect(next[S2].status).toBe('attention');
    const unrelated: EngineEvent = { type: 'profile_deleted', profile_id: S1 };
    expect(applyStatusEvent(next, unrelated)).toBe(next);
  });

  it.each([
    ['waiting', 'waiting'],
    ['working', 'working'],
    ['attention', 'needs you'],
    ['done', 'done'],
    ['exited', 'exited'],
  ] as const)('labels %s', (status, label) => {
    expect(statusLabel(status)).toBe(label);
  });

  it('says whether hook events arrive', () => {
    const at = (ms: number) => `t${ms}`;
    expect(hooksTitle(undefined, at)).toMatch(/^No hook events from this agent yet/);
    expect(hooksTitle(info(S1, 'waiting', null), at)).toMatch(/^No hook events from this agent yet/);
    expect(hooksTitle(info(S1, 'waiting', 42), at)).toBe('Hook events arrive (last at t42)');
    const lead = { ...info(S1, 'working', 42), team: { name: 'parsers', active: 2 }, agent_name: 'planner' };
    expect(hooksTitle(lead, at)).toBe(
      'Hook events arrive (last at t42)\nIt calls itself planner\nLeads the team parsers: 2 teammates at work; its task completes once they are done',
    );
    expect(hooksTitle({ ...lead, team: { name: 'parsers', active: 0 }, agent_name: null }, at)).toBe(
      'Hook events arrive (last at t42)\nLeads the team parsers: no teammate at work',
    );
  });
});
