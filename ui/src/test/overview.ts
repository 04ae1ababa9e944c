/** Overview values for tests: an agent `name` of the engine's overview, running and idle, with any field overridden. */
import type { OverviewAgent } from '../lib/bindings';

export function overviewAgent(name: string, extra: Partial<OverviewAgent> = {}): OverviewAgent {
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
    attention: { state: 'idle', since: 1_000 },
    ...extra,
  };
}
