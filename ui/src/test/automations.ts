/**
 * Automations as the engine tells them, for tests: what the engine decided (its next run, its
 * runs and their reasons, in its words) is given here, never worked out.
 */
import type { Automation, AutomationRun, ProfileId, RunOutcome, TaskId, TaskState } from '../lib/bindings';

let made = 0;

/** An active automation of `profileId` queuing "Review the open pull requests" on weekdays at 09:00, with no run yet. */
export function automation(profileId: ProfileId, overrides: Partial<Automation> = {}): Automation {
  made += 1;
  return {
    id: `automation-${made}`,
    created_at: 1_000,
    state: { state: 'active' },
    next_run: null,
    runs: [],
    host: null,
    profile_id: profileId,
    trigger: { on: 'every', every: 'weekdays 09:00' },
    action: { does: 'task', instruction: 'Review the open pull requests\nand say what each needs.', title: null, budget: null, time_limit_secs: null },
    zone: null,
    overlap: 'skip',
    catch_up: 'once',
    max_runs_per_hour: 6,
    ...overrides,
  };
}

/** A run fired at `firedAt` for `reason`, which made `outcome`. */
export function run(seq: number, firedAt: number, reason: string, outcome: RunOutcome): AutomationRun {
  return { seq, fired_at: firedAt, reason, outcome };
}

/** What a run that queued a task made. */
export function taskRun(taskId: TaskId, state: TaskState, costUsd: number | null = null): RunOutcome {
  return { outcome: 'task', task_id: taskId, state, cost_usd: costUsd };
}
