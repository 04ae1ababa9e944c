import { describe, expect, it } from 'vitest';
import type { OverviewAgent } from './bindings';
import { cardState, cardStateLabel, dashboardSummary, doingLine, previewLines, sortCards, timeInState } from './dashboard';

function agent(name: string, extra: Partial<OverviewAgent> = {}): OverviewAgent {
  return {
    profile_id: name,
    name,
    session_id: `${name}-s`,
    status: 'waiting',
    since: 1_000,
    running: true,
    task_id: null,
    doing: null,
    loop_iteration: null,
    queued: 0,
    needs_user: 0,
    ...extra,
  };
}

describe('dashboard cards', () => {
  it('say what each agent is doing in words', () => {
    const table: [Partial<OverviewAgent>, string][] = [
      [{ status: 'attention' }, 'needs you'],
      [{ status: 'working' }, 'working'],
      [{ status: 'waiting' }, 'idle'],
      [{ status: null }, 'idle'],
      [{ status: 'done' }, 'done'],
      [{ running: false, session_id: null, status: null, since: 5 }, 'stopped'],
      [{ running: false, session_id: null, status: null, since: null }, 'not started'],
    ];
    for (const [extra, label] of table) expect(cardStateLabel(cardState(agent('a', extra)))).toBe(label);
  });

  it('sort with the agents that need the user first, then those at work', () => {
    const agents = [
      agent('zed', { running: false, session_id: null, status: null, since: 10 }),
      agent('bob', { status: 'working', since: 500 }),
      agent('amy', { status: 'waiting', since: 100, queued: 3 }),
      agent('cid', { status: 'attention', since: 900 }),
    ];
    expect(sortCards(agents, 'attention').map((a) => a.name)).toEqual(['cid', 'bob', 'amy', 'zed']);
    expect(sortCards(agents, 'name').map((a) => a.name)).toEqual(['amy', 'bob', 'cid', 'zed']);
    expect(sortCards(agents, 'longest').map((a) => a.name)).toEqual(['zed', 'amy', 'bob', 'cid']);
    expect(sortCards(agents, 'queue').map((a) => a.name)).toEqual(['amy', 'bob', 'cid', 'zed']);
    expect(agents.map((a) => a.name)).toEqual(['zed', 'bob', 'amy', 'cid']);
  });

  it('tell the time in the state and what the agent is at', () => {
    expect(timeInState(agent('a', { since: 10_000 }), 10_000 + 200_000)).toBe('for 3m 20s');
    expect(timeInState(agent('a', { since: null }), 5)).toBeNull();
    expect(doingLine(agent('a', { doing: 'Review the auth module' }))).toBe('Review the auth module');
    expect(doingLine(agent('a', { loop_iteration: 3, doing: 'Fix the flaky tests' }))).toBe('Loop, iteration 3: Fix the flaky tests');
  });

  it('sum up the agents in the header', () => {
    const agents = [agent('a', { status: 'attention', queued: 2 }), agent('b', { status: 'working', queued: 1 }), agent('c')];
    expect(dashboardSummary(agents)).toBe('3 agents · 1 needs you · 1 working · 3 queued');
    expect(dashboardSummary([agent('a')])).toBe('1 agent');
  });

  it('preview the last lines with text, blank lines at the end dropped', () => {
    expect(previewLines('one\ntwo  \nthree\n\n\n', 2)).toEqual(['two', 'three']);
    expect(previewLines('', 3)).toEqual([]);
  });
});
