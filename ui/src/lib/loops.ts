/**
 * Loops as the window shows them: the list folded from `loop_changed` events, each agent's
 * loops in the order they matter, and their states, iterations and verdicts in words. The
 * decisions (when a loop ends, stalls or goes on) are the engine's; this only says them.
 */
import type { EngineEvent, Iteration, LoopId, LoopInfo, LoopSettings, ProfileId, SessionInfo, TaskInfo } from './bindings';
import { formatDuration } from './tasks';

/** The engine's defaults for a new loop (the form shows them). */
export const LOOP_DEFAULTS = { stopWord: 'LOOP_COMPLETE', maxIterations: 10, stallAfter: 5 } as const;

/** Puts a changed loop in the list (new ones first). */
export function upsertLoop(loops: LoopInfo[], info: LoopInfo): LoopInfo[] {
  const index = loops.findIndex((l) => l.id === info.id);
  if (index === -1) return [info, ...loops];
  const next = loops.slice();
  next[index] = info;
  return next;
}

export function applyLoopEvent(loops: LoopInfo[], event: EngineEvent): LoopInfo[] {
  switch (event.type) {
    case 'loop_changed':
      return upsertLoop(loops, event.info);
    case 'profile_deleted':
      return loops.filter((l) => l.profile_id !== event.profile_id);
    default:
      return loops;
  }
}

/** Whether the loop may still run: active, or stopped until resumed (stalled, or its folder gone). */
export function isOpen(info: LoopInfo): boolean {
  return info.state.state === 'active' || isResumable(info);
}

/** Stopped until the user resumes it: stalled, or its folder was gone (resumed once it is back). */
export function isResumable(info: LoopInfo): boolean {
  return info.state.state === 'stalled' || info.state.state === 'workspace_gone';
}

/** An agent's loops: stalled first (they need the user), then active, then the ended, newest first. */
export function loopsOf(loops: LoopInfo[], profileId: ProfileId): LoopInfo[] {
  const rank = (info: LoopInfo) => (isResumable(info) ? 0 : info.state.state === 'active' ? 1 : 2);
  return loops.filter((l) => l.profile_id === profileId).sort((a, b) => rank(a) - rank(b) || b.created_at - a.created_at);
}

/** Iterations that count toward the cap: the ended ones (the engine counts them all, not only those the info carries). */
export function iterationsRun(info: LoopInfo): number {
  return info.iterations_run;
}

/** Iterations one "show older" asks for. */
export const OLDER_PAGE = 50;

/**
 * The history the loop's detail shows, oldest first: the older pages the user asked for, and the
 * latest iterations the loop's info carries. While older pages are shown, iterations that leave
 * the info's window (`before`, the info's iterations as they were) are kept, so nothing between
 * the two goes missing.
 */
export function shownHistory(older: Iteration[], before: Iteration[], latest: Iteration[]): Iteration[] {
  const bySeq = new Map<number, Iteration>();
  const first = latest[0]?.seq ?? Infinity;
  for (const iteration of older) bySeq.set(iteration.seq, iteration);
  if (older.length > 0) for (const iteration of before) if (iteration.seq < first) bySeq.set(iteration.seq, iteration);
  for (const iteration of latest) bySeq.set(iteration.seq, iteration);
  return [...bySeq.values()].sort((a, b) => a.seq - b.seq);
}

/** How much of a long history is shown ("Showing the last 50 of 9,900"); none when all of it is. */
export function historyText(shown: number, total: number): string | null {
  if (shown >= total) return null;
  return `Showing the last ${shown.toLocaleString('en-US')} of ${total.toLocaleString('en-US')}`;
}

/** The iteration at work, if one is. */
export function runningIteration(info: LoopInfo): Iteration | undefined {
  return info.iterations.find((i) => i.outcome.outcome === 'running');
}

/** The loop's state in one line: where it stands, or why it ended. */
export function loopStatusText(info: LoopInfo): string {
  const run = iterationsRun(info);
  const max = info.settings.max_iterations;
  const state = info.state;
  switch (state.state) {
    case 'active': {
      const running = runningIteration(info);
      return running
        ? `Iteration ${count(running.number)} of at most ${count(max)} at work`
        : `Waiting for its turn (${count(run)} of ${count(max)} done)`;
    }
    case 'complete':
      switch (state.why.by) {
        case 'stop_word':
          return `Done: the agent wrote ${state.why.word} in its progress notes`;
        case 'promise':
          return `Done: the agent kept its promise “${state.why.text}”`;
        case 'max_iterations':
          return `Stopped at its cap of ${count(state.why.max)} iterations, the work not said done`;
      }
      break;
    case 'stalled':
      return `Stalled: the same stop reason ${state.repeated} times in a row`;
    case 'cancelled':
      return 'Cancelled';
    case 'failed_to_start':
      return `Failed to start: its agent ended before it could be given the work, ${state.attempts} times in a row`;
    case 'workspace_gone':
      return `Stopped: its folder ${state.path} is gone`;
    case 'over_budget':
      return `Stopped: it used its budget of ${state.budget}`;
  }
  return '';
}

/** The loop's state in one word, for its badge. */
export function loopStateWord(info: LoopInfo): string {
  if (info.state.state === 'complete' && info.state.why.by === 'max_iterations') return 'capped';
  if (info.state.state === 'failed_to_start') return 'failed to start';
  if (info.state.state === 'workspace_gone') return 'folder gone';
  if (info.state.state === 'over_budget') return 'over budget';
  return info.state.state;
}

/** A count as people read it: 9,900. */
function count(n: number): string {
  return n.toLocaleString('en-US');
}

/**
 * What the judge said after an iteration, in words. The loop's last failed start, when the loop
 * ended for it, was not tried again.
 */
export function iterationVerdictText(iteration: Iteration, info?: LoopInfo): string {
  const outcome = iteration.outcome;
  switch (outcome.outcome) {
    case 'running':
      return 'at work';
    case 'interrupted':
      // Cut short by the loop's cancel: it is not run again.
      return info?.state.state === 'cancelled' && info.iterations.at(-1)?.seq === iteration.seq ? 'cancelled' : 'interrupted: run again';
    case 'failed_start':
      return info?.state.state === 'failed_to_start' && info.iterations.at(-1)?.seq === iteration.seq
        ? 'failed to start: given up'
        : 'failed to start: tried again';
    case 'ended':
      switch (outcome.verdict.verdict) {
        case 'continue':
          return 'go on';
        case 'complete':
          return 'done';
        case 'stalled':
          return 'stalled';
        case 'cancelled':
          return 'cancelled';
      }
  }
  return '';
}

/** How long an iteration ran (so far, while at work). */
export function iterationDuration(iteration: Iteration, now: number): string {
  const outcome = iteration.outcome;
  const end = outcome.outcome === 'running' ? now : outcome.at;
  return formatDuration((end - iteration.started_at) / 1000);
}

/** An iteration's stop reason, if it ended; for a failed start, how its agent ended and what it said. */
export function stopReason(iteration: Iteration): string | null {
  const outcome = iteration.outcome;
  if (outcome.outcome === 'ended') return outcome.stop_reason;
  if (outcome.outcome === 'failed_start') return outcome.said === '' ? `The agent ended: ${outcome.exit}.` : `The agent ended (${outcome.exit}): ${outcome.said}`;
  return null;
}

/** A row of a task list: a task, or a loop's iterations as one row (`tasks` newest first). */
export type TaskRow = { kind: 'task'; task: TaskInfo } | { kind: 'loop'; loopId: LoopId; info: LoopInfo | undefined; tasks: TaskInfo[] };

/**
 * A list of tasks (newest first) with each loop's iterations gathered into one row, where its
 * newest iteration is: a loop of fifty iterations is one line, not fifty.
 */
export function groupIterations(tasks: readonly TaskInfo[], loops: readonly LoopInfo[]): TaskRow[] {
  const rows: TaskRow[] = [];
  const byLoop = new Map<LoopId, TaskInfo[]>();
  for (const task of tasks) {
    const loopId = task.loop_iteration?.loop_id;
    if (loopId === undefined) {
      rows.push({ kind: 'task', task });
      continue;
    }
    const gathered = byLoop.get(loopId);
    if (gathered) {
      gathered.push(task);
      continue;
    }
    const first = [task];
    byLoop.set(loopId, first);
    rows.push({ kind: 'loop', loopId, info: loops.find((l) => l.id === loopId), tasks: first });
  }
  return rows;
}

/** A row of an agent's sessions: a session, or a loop's sessions as one row (`sessions` newest first). */
export type SessionRow = { kind: 'session'; session: SessionInfo } | { kind: 'loop'; info: LoopInfo; sessions: SessionInfo[] };

/**
 * An agent's sessions (newest first) with each loop's fresh sessions (one per iteration, as far
 * as its info carries them) gathered into one row where its newest session is.
 */
export function groupLoopSessions(sessions: readonly SessionInfo[], loops: readonly LoopInfo[]): SessionRow[] {
  const loopOf = new Map<string, LoopInfo>();
  for (const info of loops) for (const iteration of info.iterations) if (iteration.session_id !== null) loopOf.set(iteration.session_id, info);
  const rows: SessionRow[] = [];
  const byLoop = new Map<LoopId, SessionInfo[]>();
  for (const session of sessions) {
    const info = loopOf.get(session.id);
    if (info === undefined) {
      rows.push({ kind: 'session', session });
      continue;
    }
    const gathered = byLoop.get(info.id);
    if (gathered) {
      gathered.push(session);
      continue;
    }
    const first = [session];
    byLoop.set(info.id, first);
    rows.push({ kind: 'loop', info, sessions: first });
  }
  return rows;
}

/**
 * A loop's progress in a few words, for the row that gathers its iterations: "3 of 10 · stalled"
 * (`withState`: where no badge says its state already), else "3 of 10 iterations".
 */
export function loopProgressText(info: LoopInfo | undefined, iterations: number, withState = true): string {
  if (info === undefined) return iterations === 1 ? '1 iteration' : `${count(iterations)} iterations`;
  const progress = `${count(iterationsRun(info))} of ${count(info.settings.max_iterations)}`;
  return withState ? `${progress} · ${loopStateWord(info)}` : `${progress} iterations`;
}

/** The settings the loop form sends: blanks are the defaults, numbers checked here for words. */
export type LoopFormInput = {
  goal: string;
  stopWord: string;
  promise: string;
  maxIterations: string;
  stallAfter: string;
  timeLimitMinutes: string;
};

export type LoopFormResult = { ok: true; settings: LoopSettings } | { ok: false; field: keyof LoopSettings; message: string };

export function loopSettingsFrom(input: LoopFormInput): LoopFormResult {
  const whole = (text: string, fallback: number): number | null => {
    const t = text.trim();
    if (t === '') return fallback;
    return /^\d+$/.test(t) ? Number(t) : null;
  };
  const max = whole(input.maxIterations, LOOP_DEFAULTS.maxIterations);
  if (max === null) return { ok: false, field: 'max_iterations', message: 'a whole number of iterations' };
  const stall = whole(input.stallAfter, LOOP_DEFAULTS.stallAfter);
  if (stall === null) return { ok: false, field: 'stall_after', message: 'a whole number of stop reasons in a row' };
  const minutes = input.timeLimitMinutes.trim();
  if (minutes !== '' && !/^\d+(\.\d+)?$/.test(minutes)) {
    return { ok: false, field: 'iteration_time_limit_secs', message: 'minutes, as a number (empty: the agent’s time limit)' };
  }
  const promise = input.promise.trim();
  return {
    ok: true,
    settings: {
      goal: input.goal,
      stop_word: input.stopWord.trim() === '' ? LOOP_DEFAULTS.stopWord : input.stopWord.trim(),
      promise: promise === '' ? null : promise,
      max_iterations: max,
      stall_after: stall,
      iteration_time_limit_secs: minutes === '' ? null : Math.max(1, Math.round(Number(minutes) * 60)),
    },
  };
}
