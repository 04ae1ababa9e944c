import { describe, expect, it } from 'vitest';
import type { Attention, OverviewAgent } from './bindings';
import { shownAttention, type ShownOverviewAgent } from './attention';
import { formatTime } from './model';
import { overviewAgent as agent } from '../test/overview';
import { cardState, cardStateLabel, dashboardSummary, doingLine, previewLines, sortCards, timeInState } from './dashboard';

const IDLE: Attention = { state: 'idle', since: 1_000 };
const NEEDS: Attention = { state: 'needs_you', need: { kind: 'question', questions: 2, first: 'Which database?' }, since: 5, task_id: null, task: null, signal_id: 'q', waiting: 1 };
const WORKING: Attention = { state: 'working', task_id: 't', task: 'Port the parser', since: 500 };
const QUIET: Attention = { state: 'stalled', stall: { kind: 'quiet', task_id: 't', task: 'Port the parser' }, since: 700 };
const FAILED: Attention = { state: 'failed', count: 2, task_id: 't', task: 'Write the docs', reason: 'the agent exited', since: 800 };
const STOPPED: Attention = { state: 'stopped', since: 5, ended: { how: 'exited', code: 1, signal: null }, failed: 2 };
const NEVER: Attention = { state: 'stopped', since: null, ended: null, failed: 0 };
const RESET = new Date(2026, 10, 26, 14, 5).getTime();
const LIMITED: Attention = { state: 'limited', account: '/home/ann/.claude', until: RESET, retry_at: RESET + 30_000, since: 600, task_id: 't', task: 'Port the parser' };
const LIMITED_UNKNOWN: Attention = { ...LIMITED, until: null };
/** As the window shows an agent of a disconnected machine, whatever it last heard of it. */
const NOT_KNOWN = shownAttention(WORKING, 'build-box');

/** A card of the dashboard, its attention as the window shows it. */
const card = (name: string, extra: Partial<ShownOverviewAgent> = {}): ShownOverviewAgent => ({ ...agent(name), ...extra });

describe('dashboard cards', () => {
  it('say what the engine says of each agent, whatever its hooks say', () => {
    const table: [Partial<OverviewAgent>, string, string][] = [
      [{ attention: NEEDS }, 'needs-you', 'needs you'],
      [{ attention: WORKING, status: 'working' }, 'working', 'working'],
      // Before: a quiet task read "working" on the dashboard while its card said it may be stuck.
      [{ attention: QUIET, status: 'working' }, 'stalled', 'may be stuck'],
      [{ attention: FAILED, status: 'waiting' }, 'failed', '2 tasks failed'],
      // At its usage limit: its own calm state, with the reset's local time when its agent said it.
      [{ attention: LIMITED, status: 'waiting' }, 'limited', `limited until ${formatTime(RESET, new Date())}`],
      [{ attention: LIMITED_UNKNOWN, status: 'waiting' }, 'limited', 'usage limit'],
      [{ attention: IDLE, status: 'done' }, 'idle', 'idle'],
      [{ attention: STOPPED, running: false, session_id: null, status: null }, 'stopped', 'stopped'],
      [{ attention: NEVER, running: false, session_id: null, status: null, since: null }, 'never-started', 'not started'],
    ];
    for (const [extra, state, label] of table) {
      expect(cardState(agent('a', extra))).toBe(state);
      expect(cardStateLabel(agent('a', extra))).toBe(label);
    }
  });

  it('say an agent of a disconnected machine is not known: no state, no time in it, counted in no state', () => {
    const lost = card('t', { attention: NOT_KNOWN, since: 1_000 });
    expect(cardState(lost)).toBe('unknown');
    expect(cardStateLabel(lost)).toBe('unknown');
    expect(timeInState(lost, 13_000)).toBeNull();
    expect(dashboardSummary([agent('a', { attention: NEEDS }), lost, card('u', { attention: shownAttention(NEEDS, 'build-box') })])).toBe(
      '3 agents · 1 needs you · 2 not known',
    );
    expect(sortCards([lost, agent('a', { attention: STOPPED })], 'attention').map((a) => a.name)).toEqual(['a', 't']);
  });

  it('sort an agent at its usage limit after the failures and before those at work', () => {
    const agents = [agent('bob', { attention: WORKING }), agent('lee', { attention: LIMITED }), agent('eve', { attention: FAILED })];
    expect(sortCards(agents, 'attention').map((a) => a.name)).toEqual(['eve', 'lee', 'bob']);
  });

  it('sort with the agents that need the user first, then stuck, failed, at work, idle, stopped', () => {
    const agents = [
      agent('zed', { running: false, session_id: null, status: null, since: 10, attention: STOPPED }),
      agent('bob', { status: 'working', since: 500, attention: WORKING }),
      agent('amy', { status: 'waiting', since: 100, queued: 3 }),
      agent('cid', { status: 'attention', since: 900, attention: NEEDS }),
      agent('dan', { status: 'working', since: 300, attention: QUIET }),
      agent('eve', { status: 'waiting', since: 200, attention: FAILED }),
    ];
    expect(sortCards(agents, 'attention').map((a) => a.name)).toEqual(['cid', 'dan', 'eve', 'bob', 'amy', 'zed']);
    expect(sortCards(agents, 'name').map((a) => a.name)).toEqual(['amy', 'bob', 'cid', 'dan', 'eve', 'zed']);
    expect(sortCards(agents, 'longest').map((a) => a.name)).toEqual(['zed', 'amy', 'eve', 'dan', 'bob', 'cid']);
    expect(agents.map((a) => a.name)).toEqual(['zed', 'bob', 'amy', 'cid', 'dan', 'eve']);
  });

  it('tell the time in the state and what the agent is at', () => {
    expect(timeInState(agent('a', { since: 10_000 }), 10_000 + 200_000)).toBe('for 3m 20s');
    expect(timeInState(agent('a', { since: null }), 5)).toBeNull();
    expect(doingLine(agent('a', { doing: 'Review the auth module' }))).toBe('Review the auth module');
    expect(doingLine(agent('a', { loop_iteration: 3, doing: 'Fix the flaky tests' }))).toBe('Loop, iteration 3: Fix the flaky tests');
  });

  it('sum up the agents in the header', () => {
    const agents = [agent('a', { attention: NEEDS, queued: 2 }), agent('b', { attention: WORKING, queued: 1 }), agent('c')];
    expect(dashboardSummary(agents)).toBe('3 agents · 1 needs you · 1 working · 3 queued');
    const more = [...agents, agent('d', { attention: QUIET }), agent('e', { attention: FAILED })];
    expect(dashboardSummary(more)).toBe('5 agents · 1 needs you · 1 may be stuck · 1 failed · 1 working · 3 queued');
    expect(dashboardSummary([agent('a')])).toBe('1 agent');
    expect(dashboardSummary([agent('a', { attention: LIMITED, queued: 1 }), agent('b', { attention: LIMITED_UNKNOWN }), agent('c', { attention: WORKING })])).toBe(
      '3 agents · 2 at usage limit · 1 working · 1 queued',
    );
  });

  it('preview the last lines with text, blank lines at the end dropped', () => {
    expect(previewLines('one\ntwo  \nthree\n\n\n', 2)).toEqual(['two', 'three']);
    expect(previewLines('', 3)).toEqual([]);
  });
});
