/**
 * Attention values for tests: what the engine says an agent asks of the user, built from the
 * records a test seeded, to tell the fake with `setAttention` as the engine would send it.
 * These only fill in the record; which state an agent is in is the test's to say.
 */
import type { AccountLimit, Attention, Ending, LoopInfo, Need, OverviewAgent, SignalInfo, TaskInfo } from '../lib/bindings';
import type { FakeBackend } from '../lib/fakeBackend';
import { taskTitle } from '../lib/tasks';

type Of<State extends Attention['state']> = Extract<Attention, { state: State }>;

/** The agent waits for the user with `need`, nothing else waiting, since 0 unless overridden. */
export function needsYou(need: Need, extra: Partial<Omit<Of<'needs_you'>, 'state' | 'need'>> = {}): Attention {
  return { state: 'needs_you', need, since: 0, task_id: null, task: null, signal_id: null, waiting: 1, ...extra };
}

/** The agent waits on `signal` (the oldest of `waiting`), with `need`, and the signal's task where it has one. */
export function waitsOn(signal: SignalInfo, need: Need, extra: Partial<Omit<Of<'needs_you'>, 'state' | 'need'>> = {}): Attention {
  return needsYou(need, { since: signal.created_at, task_id: signal.task_id, signal_id: signal.id, ...extra });
}

/** A question of `questions` questions, the first one `first`. */
export const question = (first: string, questions = 1): Need => ({ kind: 'question', questions, first });

/** The agent's task at work has been quiet since `since`. */
export function quiet(task: TaskInfo, since = task.quiet_since ?? 0): Attention {
  return { state: 'stalled', stall: { kind: 'quiet', task_id: task.id, task: taskTitle(task) }, since };
}

/** The agent's loop stalled for `reason`, since `since`. */
export function loopStalled(loop: LoopInfo, reason: string, since: number): Attention {
  return { state: 'stalled', stall: { kind: 'loop', loop_id: loop.id, goal: loop.settings.goal, reason }, since };
}

/** `count` tasks failed since the user last looked, `task` the latest, with its reason and end. */
export function failed(task: TaskInfo, count = 1): Attention {
  return { state: 'failed', count, task_id: task.id, task: taskTitle(task), reason: task.reason, since: task.ended_at ?? 0 };
}

/** The agent's account is at `limit`, `task` (if any) waiting for it. */
export function limited(limit: AccountLimit, task: TaskInfo | null = null): Attention {
  return {
    state: 'limited',
    account: limit.account,
    until: limit.until,
    retry_at: limit.retry_at,
    since: limit.since,
    task_id: task?.id ?? null,
    task: task ? taskTitle(task) : null,
  };
}

/** The agent is at work on `task`, since it was typed (or started). */
export function working(task: TaskInfo): Attention {
  return { state: 'working', task_id: task.id, task: taskTitle(task), since: task.typed_at ?? task.started_at };
}

/** The agent's session runs with nothing to do, since `since`. */
export const idle = (since: number | null): Attention => ({ state: 'idle', since });

/** The agent runs no session: since `since` its last run ended as `ended` (none: it never ran), `failed` of its tasks failed in it. */
export function stopped(since: number | null = null, ended: Ending | null = null, failed = 0): Attention {
  return { state: 'stopped', since, ended, failed };
}

/**
 * The engine's overview of these agents (the dashboard's and the graph's source), and each one's
 * attention as the engine tells it alongside: the two say the same.
 */
export function tellOverview(backend: FakeBackend, agents: OverviewAgent[]): void {
  backend.setOverview({ agents, helpers: [], links: [] });
  for (const agent of agents) backend.setAttention(agent.profile_id, agent.attention);
}
