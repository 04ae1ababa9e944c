import { describe, expect, it } from 'vitest';
import type { EngineEvent, FollowedLog, ProfileId } from './bindings';
import { forwarded } from './followLog';

const mine: ProfileId = 'agent-mine';
const other: ProfileId = 'agent-other';

function entry(profile: ProfileId | null): EngineEvent {
  return { type: 'logged', entry: { seq: 1, at: 1, session_id: null, task_id: null, kind: 'task_started' }, profile_id: profile };
}

describe('forwarded', () => {
  it('hands the page log entries only while a view follows them (as the window is sent them)', () => {
    const agent: FollowedLog = { of: 'agent', profile_id: mine };
    const cases: [string, FollowedLog | null, EngineEvent, boolean][] = [
      ['nothing followed', null, entry(mine), false],
      ['the agent followed', agent, entry(mine), true],
      ['another agent followed', agent, entry(other), false],
      ['an entry about no agent, while an agent is followed', agent, entry(null), true],
      ['everything followed', { of: 'everything' }, entry(other), true],
      ['every other event always goes', null, { type: 'profile_deleted', profile_id: other }, true],
    ];
    for (const [what, followed, event, sent] of cases) expect(forwarded(followed, event), what).toBe(sent);
  });
});
