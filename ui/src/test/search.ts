/** Search hits for tests, as the engine's search finds them (the fake does not search: `setSearchHits`). */
import type { SearchHit, SignalInfo, TaskInfo } from '../lib/bindings';
import { signalKind } from '../lib/signals';
import { taskTitle } from '../lib/tasks';

/** `snippet` found in a task's name or instruction (`in: 'task'`) or in its summary. */
export function taskHit(task: TaskInfo, snippet: string, inSummary = false): SearchHit {
  const found = { task_id: task.id, title: taskTitle(task), state: task.state };
  return {
    profile_id: task.profile_id,
    at: task.ended_at ?? task.created_at,
    snippet,
    found: inSummary ? { in: 'summary', ...found } : { in: 'task', ...found },
  };
}

/** `snippet` found in what an agent wrote in a signal. */
export function signalHit(signal: SignalInfo, snippet: string): SearchHit {
  return {
    profile_id: signal.profile_id,
    at: signal.created_at,
    snippet,
    found: { in: 'signal', signal_id: signal.id, kind: signalKind(signal), pending: signal.state === 'pending' },
  };
}
