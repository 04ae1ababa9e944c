/**
 * Task values for tests: a queued normal task of profile `p`, with any field overridden, and the
 * actions and queue place the engine would send with it (unless overridden too).
 */
import type { TaskInfo } from '../lib/bindings';
import { pickOf, taskActions } from '../lib/fakeBackend';
import { DEMO_TASK } from './records';
import { NO_TOKENS } from '../lib/cost';

export function task(id: string, overrides: Partial<TaskInfo> = {}): TaskInfo {
  const state = overrides.state ?? 'queued';
  const loopIteration = overrides.loop_iteration !== undefined && overrides.loop_iteration !== null;
  return {
    actions: taskActions(state, loopIteration),
    id,
    state: 'queued',
    order: 0,
    session_id: null,
    created_at: 0,
    started_at: null,
    typed_at: null,
    ended_at: null,
    progress: null,
    quiet_since: null,
    waiting_since: null,
    waited_ms: 0,
    waiting_for: null,
    reason: null,
    result: null,
    profile_id: 'p',
    instruction: `do ${id}`,
    ...DEMO_TASK,
    // Nothing used yet, as the engine lists such a task.
    tokens: structuredClone(NO_TOKENS),
    cost_usd: 0,
    list_price: false,
    ...overrides,
    pick: overrides.pick !== undefined ? overrides.pick : pickOf({ state, priority: overrides.priority ?? 'normal', order: overrides.order ?? 0 }),
  };
}
