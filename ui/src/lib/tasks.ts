/**
 * Pure decisions over tasks and queues: how events fold into the lists, the pick order of an
 * agent's queue, what a drag asks the engine for, and the texts the task views show. No Svelte,
 * no backend.
 */
import type {
  EngineEvent,
  Priority,
  Profile,
  ProfileId,
  QueuePause,
  QueueStatus,
  SessionInfo,
  Submitted,
  Summary,
  TaskId,
  TaskInfo,
  TaskSpec,
  TaskState,
  WaitingFor,
} from './bindings';
import { isRunning, newestFirst, resetWords, type Model, type Selection } from './model';
import { attentionLabel, type ShownAttention } from './attention';

export interface TaskModel {
  tasks: TaskInfo[];
  queues: QueueStatus[];
}

export const EMPTY_TASKS: TaskModel = { tasks: [], queues: [] };

export function isFinished(state: TaskState): boolean {
  return state !== 'queued' && state !== 'running';
}

/** Put the task into the list, replacing the entry with its id. */
export function upsertTask(tasks: readonly TaskInfo[], task: TaskInfo): TaskInfo[] {
  const index = tasks.findIndex((t) => t.id === task.id);
  if (index === -1) return [...tasks, task];
  const next = [...tasks];
  next[index] = task;
  return next;
}

/**
 * Add a task an action replied with, unless the list already has it. A task's state does not
 * only move forward (a requeued task runs again), so a reply cannot be told from a stale copy;
 * the `task_changed` events are the truth and a reply only fills in what no event brought yet.
 */
export function addTaskIfMissing(tasks: readonly TaskInfo[], task: TaskInfo): TaskInfo[] {
  return tasks.some((t) => t.id === task.id) ? [...tasks] : [...tasks, task];
}

export function upsertQueue(queues: readonly QueueStatus[], queue: QueueStatus): QueueStatus[] {
  const index = queues.findIndex((q) => q.profile_id === queue.profile_id);
  if (index === -1) return [...queues, queue];
  const next = [...queues];
  next[index] = queue;
  return next;
}

/** Fold one engine event into the task lists; events about other things leave them as they are. */
export function applyTaskEvent(model: TaskModel, event: EngineEvent): TaskModel {
  switch (event.type) {
    case 'task_changed':
      return { ...model, tasks: upsertTask(model.tasks, event.task) };
    case 'queue_changed':
      return { ...model, queues: upsertQueue(model.queues, event.queue) };
    case 'profile_deleted':
      // No view shows an agent's tasks once the agent is gone.
      return {
        tasks: model.tasks.filter((t) => t.profile_id !== event.profile_id),
        queues: model.queues.filter((q) => q.profile_id !== event.profile_id),
      };
    default:
      return model;
  }
}

/** The initial `list_tasks`/`list_queues` replies, then the events that arrived meanwhile. */
export function mergeInitialTasks(lists: TaskModel, bufferedEvents: readonly EngineEvent[]): TaskModel {
  let model: TaskModel = { tasks: [], queues: [] };
  for (const task of lists.tasks) model.tasks = upsertTask(model.tasks, task);
  for (const queue of lists.queues) model.queues = upsertQueue(model.queues, queue);
  for (const event of bufferedEvents) model = applyTaskEvent(model, event);
  return model;
}

/** The order the engine picks queued tasks in: by the key it gives each (`pick`), the lowest first. */
export function comparePickOrder(a: TaskInfo, b: TaskInfo): number {
  const [x, y] = [a.pick ?? [Infinity, Infinity], b.pick ?? [Infinity, Infinity]];
  // Ties do not happen in the engine's data; created_at and id keep the order stable anyway.
  return x[0] - y[0] || x[1] - y[1] || a.created_at - b.created_at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** An agent's queued tasks in pick order. */
export function queueOf(tasks: readonly TaskInfo[], profileId: ProfileId): TaskInfo[] {
  return tasks.filter((t) => t.profile_id === profileId && t.state === 'queued').sort(comparePickOrder);
}

/** A queued task's 1-based place in its agent's queue; null for a task that is not queued. */
export function queuePosition(tasks: readonly TaskInfo[], taskId: TaskId): number | null {
  const task = tasks.find((t) => t.id === taskId);
  if (!task || task.state !== 'queued') return null;
  return queueOf(tasks, task.profile_id).findIndex((t) => t.id === taskId) + 1;
}

/** The task the agent is working on (the engine runs one per agent). */
export function runningTask(tasks: readonly TaskInfo[], profileId: ProfileId): TaskInfo | undefined {
  return tasks.find((t) => t.profile_id === profileId && t.state === 'running');
}

/** What a queued task waits for: the task its agent is busy with, if any. */
export function waitingFor(tasks: readonly TaskInfo[], taskId: TaskId): TaskInfo | undefined {
  const task = tasks.find((t) => t.id === taskId);
  if (!task || task.state !== 'queued') return undefined;
  return runningTask(tasks, task.profile_id);
}

/** An agent's finished tasks, the most recently ended first. */
export function finishedTasks(tasks: readonly TaskInfo[], profileId: ProfileId): TaskInfo[] {
  const ended = (t: TaskInfo) => t.ended_at ?? t.created_at;
  return tasks
    .filter((t) => t.profile_id === profileId && isFinished(t.state))
    .sort((a, b) => ended(b) - ended(a) || b.created_at - a.created_at);
}

/** The queue status of an agent; an agent the engine reported nothing for is idle and empty. */
export function queueStatusOf(queues: readonly QueueStatus[], tasks: readonly TaskInfo[], profileId: ProfileId): QueueStatus {
  const known = queues.find((q) => q.profile_id === profileId);
  if (known) return known;
  const current = runningTask(tasks, profileId);
  return {
    profile_id: profileId,
    paused: false,
    executing: current !== undefined,
    current_task: current?.id ?? null,
    queued: queueOf(tasks, profileId).length,
  };
}

/**
 * Why an agent's queue is paused, in a sentence: who paused it and, when the app did, for
 * which task and why (`tasks` names it). A pause recorded without its reason says only that.
 */
export function pauseText(pause: QueuePause | null | undefined, tasks: readonly TaskInfo[], agent: string): string {
  const named = (id: TaskId) => {
    const task = tasks.find((t) => t.id === id);
    return task ? `“${taskTitle(task)}”` : 'a task';
  };
  switch (pause?.by) {
    case 'user':
      return `You paused ${agent}'s queue.`;
    case 'all_queues':
      return 'You paused every queue at once.';
    case 'agent_stopped':
      return `You stopped ${agent} while ${named(pause.task_id)} ran, so its queue waits rather than start it again behind your back.`;
    case 'restart':
      return `You restarted ${agent}, cancelling ${named(pause.task_id)}, and asked its queue to wait.`;
    case 'task_not_started':
      return `${named(pause.task_id)} could not be started (${pause.reason}), so the tasks after it wait until ${agent} is fixed.`;
    default:
      return `${agent}'s queue is paused.`;
  }
}

/**
 * The sidebar's few words about an agent's queue, or null when there is nothing to say (nor
 * while its attention is not known: its machine is disconnected, and its queue as heard last
 * may be as stale).
 */
export function queueIndicator(queue: QueueStatus | undefined, attention?: ShownAttention): string | null {
  if (!queue || attention?.state === 'unknown') return null;
  const parts: string[] = [];
  if (queue.paused) parts.push('paused');
  // Its task at work waits for the user, or may be stuck, as the engine says: that is what it does now.
  const held = attention?.state === 'needs_you' || attention?.state === 'stalled';
  // At its usage limit it does not work: its badge says so, with when it goes on.
  if (queue.executing && attention?.state !== 'limited') parts.push(held ? attentionLabel(attention) : 'working');
  if (queue.queued > 0) parts.push(`${queue.queued} queued`);
  return parts.length ? parts.join(' · ') : null;
}

// ---- reordering ------------------------------------------------------------------------

/**
 * Where a dragged row lands: the insertion point (0..n, "before row i") under the pointer,
 * given the vertical midpoints of the rows in list order.
 */
export function insertionIndex(midpoints: readonly number[], y: number): number {
  let index = 0;
  while (index < midpoints.length && midpoints[index] < y) index++;
  return index;
}

/**
 * The `to_index` for `move_task` when the row at `from` is dropped at insertion point `before`
 * (0..n, counted with the row still in place), or null when the drop changes nothing.
 */
export function dropIndex(from: number, before: number): number | null {
  const to = before > from ? before - 1 : before;
  return to === from ? null : to;
}

export interface MovedTask {
  id: TaskId;
  priority: Priority;
  order: number;
}

/**
 * What `move_task` does to a queue in pick order (the fake backend's model of the engine):
 * the task goes to `toIndex` (clamped), takes the priority of the tasks it lands among
 * (between the two groups it keeps its own), and each priority's `order` is renumbered
 * 0, 1, ... in the new list order. Returns the whole queue in its new order.
 */
export function applyMove(queue: readonly TaskInfo[], taskId: TaskId, toIndex: number): MovedTask[] {
  const task = queue.find((t) => t.id === taskId);
  if (!task) return queue.map(({ id, priority, order }) => ({ id, priority, order }));
  const others = queue.filter((t) => t.id !== taskId);
  const to = Math.max(0, Math.min(toIndex, others.length));
  const urgentCount = others.filter((t) => t.priority === 'urgent').length;
  const priority: Priority = to < urgentCount ? 'urgent' : to > urgentCount ? 'normal' : task.priority;
  const list = others.map(({ id, priority }) => ({ id, priority }));
  list.splice(to, 0, { id: task.id, priority });
  const counters: Record<Priority, number> = { urgent: 0, normal: 0 };
  return list.map(({ id, priority }) => ({ id, priority, order: counters[priority]++ }));
}

// ---- texts -----------------------------------------------------------------------------

/** The first 8 characters of an id (a UUID's first group): enough to tell tasks apart. */
export function shortId(id: string): string {
  return id.slice(0, 8);
}

/** What a task is called: the user's title, else its instruction's first line. */
export function taskTitle(task: Pick<TaskInfo, 'title' | 'instruction'>): string {
  return task.title ?? firstLine(task.instruction);
}

/** The most lines a hover text holds: a native tooltip is drawn as tall as its text, past the window. */
export const HOVER_LINES = 12;
/** The longest line of a hover text: a tooltip cannot wrap a long word, so it is broken here. */
export const HOVER_LINE_CHARS = 80;

/**
 * Agent or user text for a `title` attribute (a native tooltip): wrapped at HOVER_LINE_CHARS
 * characters (between words where it can, inside a longer word where it must), at most
 * HOVER_LINES lines, the last ending in "…" when text was left out. The whole text stays a click
 * away.
 */
export function hoverText(text: string): string {
  // Past this many UTF-16 units, nothing more can be shown: the rest is only "…".
  const reach = 2 * (HOVER_LINES + 1) * (HOVER_LINE_CHARS + 1);
  const cut = text.length > reach;
  const lines: string[] = [];
  for (const source of (cut ? text.slice(0, reach) : text).split('\n')) {
    let line: string[] = [];
    for (const word of source.split(/(\s+)/)) {
      const chars = [...word];
      if (line.length + chars.length > HOVER_LINE_CHARS && line.length > 0) {
        lines.push(line.join('').trimEnd());
        line = [];
        if (/^\s+$/.test(word)) continue;
      }
      let from = 0;
      for (; chars.length - from > HOVER_LINE_CHARS; from += HOVER_LINE_CHARS) {
        lines.push(chars.slice(from, from + HOVER_LINE_CHARS).join(''));
      }
      line.push(...chars.slice(from));
    }
    lines.push(line.join('').trimEnd());
    if (lines.length > HOVER_LINES) break;
  }
  if (lines.length <= HOVER_LINES && !cut) return lines.join('\n');
  const kept = lines.slice(0, HOVER_LINES);
  kept[kept.length - 1] = `${[...kept[kept.length - 1]].slice(0, HOVER_LINE_CHARS - 1).join('')}…`;
  return kept.join('\n');
}

/** A text's first non-blank line, trimmed; for one-line lists. */
export function firstLine(text: string): string {
  return text.split('\n').find((line) => line.trim() !== '')?.trim() ?? '';
}

const STATE_WORDS: Record<TaskState, string> = {
  queued: 'queued',
  running: 'running',
  completed: 'completed',
  failed: 'failed',
  timed_out: 'timed out',
  cancelled: 'cancelled',
  interrupted: 'interrupted',
  over_budget: 'over budget',
};

export function stateWord(state: TaskState): string {
  return STATE_WORDS[state];
}

/**
 * A task's status in a few words. A queued task needs its place and what it waits for, which
 * depend on the other tasks: `position` (1-based) and `waitingFor` (the running task's id).
 */
export function taskStatusLabel(task: TaskInfo, context: { position?: number | null; waitingFor?: TaskId | null } = {}): string {
  switch (task.state) {
    case 'queued': {
      const parts = ['queued'];
      if (context.position) parts.push(`position ${context.position}`);
      if (task.waiting_for?.cause === 'queue_paused') parts.push('queue paused');
      else if (task.waiting_for?.cause === 'daily_budget') parts.push("its agent's day's budget is used");
      else if (context.waitingFor) parts.push(`waiting for ${shortId(context.waitingFor)}`);
      return parts.join(' · ');
    }
    case 'running': {
      if (task.waiting_since !== null) return 'needs your answer · time limit paused';
      const short = task.waiting_for === null ? null : WAIT_SHORT[task.waiting_for.cause];
      if (short) return `running · ${short}`;
      // The queue took it, but the agent was not ready to have it typed yet.
      return task.typed_at === null ? 'running · waiting for the agent' : 'running';
    }
    case 'completed': {
      // The agent's own verdict, when it is not plain success.
      const status = task.result?.summary.status;
      return status && status !== 'completed' ? `completed · ${status}` : 'completed';
    }
    default:
      return stateWord(task.state);
  }
}

/** What a running task waits for, in a few words for its status line. */
/** What a task at work waits for before it is typed, in a few words; null when nothing holds it. */
export function waitShort(task: TaskInfo | undefined): string | null {
  if (!task || task.state !== 'running' || task.waiting_for === null) return null;
  return WAIT_SHORT[task.waiting_for.cause];
}

const WAIT_SHORT: Record<WaitingFor['cause'], string | null> = {
  queue_paused: null,
  task_ahead: null,
  agent_output: 'waiting for the agent to settle',
  hooks: 'waiting for its hooks',
  agent_busy: 'waiting: the agent is busy',
  prompt: 'prompt not seen',
  user: null,
  teammates: 'waiting for its teammates',
  worktree_making: 'making its worktree',
  worktree_setup: 'setting up its worktree',
  usage_limit: 'waiting for the usage limit to reset',
  overloaded: "waiting for the model's service",
  account: 'its account needs you',
  // A queued task's wait (its status says it), never one at work's.
  daily_budget: null,
};

/**
 * What an unfinished task waits for, in a sentence (the engine decides the cause; this only
 * says it). Null when it waits for nothing, or for the user's answer (said with its Answer
 * button where the task is shown). For a prompt not seen, the screen's last line and the
 * pattern are the cause's own fields, shown beside this sentence.
 */
export function waitSentence(task: TaskInfo, now: number): string | null {
  const cause = task.waiting_for;
  if (cause === null || isFinished(task.state)) return null;
  switch (cause.cause) {
    case 'queue_paused':
      return cause.reason ? `Its queue is paused: ${cause.reason}` : 'Its queue is paused: it starts once the queue is resumed.';
    case 'task_ahead':
      return 'It starts when the task its agent works on ends.';
    case 'agent_output':
      return 'Not typed yet: the agent is still starting or printing, and is typed into once its output goes quiet.';
    case 'hooks': {
      const left = Math.max(0, Math.ceil((cause.until - now) / 1000));
      return left > 0
        ? `Not typed yet: waiting for the agent's hooks to say it is ready (its screen decides in ${formatDuration(left)} at most).`
        : "Not typed yet: waiting for the agent's hooks to say it is ready.";
    }
    case 'agent_busy':
      return "Not typed yet: the agent's hooks say it is busy.";
    case 'prompt':
      return "Not typed yet: the agent's prompt is not on its screen as its ready pattern expects.";
    case 'user':
      return null;
    case 'teammates':
      return cause.working === 1
        ? 'Done, and waits for its teammate still at work.'
        : `Done, and waits for its ${cause.working} teammates still at work.`;
    case 'worktree_making':
      return "Not typed yet: its new worktree is being made (git is checking out the repository's files).";
    case 'worktree_setup':
      return `Not typed yet: its new worktree is being set up first (${cause.command}).`;
    case 'usage_limit': {
      const at = resetWords(cause.until ?? cause.retry_at, now);
      // A queued task has no time limit running yet; one at work has it paused.
      const paused = task.state === 'queued' ? '' : ' Its time limit is paused.';
      return cause.until === null
        ? `Its agent's account is at its usage limit, and did not say until when: the app tries again at ${at}.${paused}`
        : `Its agent's account is at its usage limit until ${at}: it ${task.state === 'queued' ? 'starts' : 'goes on'} then.${paused}`;
    }
    case 'overloaded':
      return `The model's service is overloaded: its agent is asked to go on at ${resetWords(cause.retry_at, now)}. Its time limit is paused.`;
    case 'account':
      return `Its agent's account needs you: ${cause.why}. Then resume the agent. Its time limit is paused.`;
    case 'daily_budget':
      return `Its agent used its day's budget of ${cause.budget}: it starts on its agent's next day, at ${resetWords(cause.until, now)}, or as soon as you raise that budget.`;
  }
}

/** How the form's outcome line reads: a success, a note, or a failure (green, plain, red). */
export type OutcomeTone = 'ok' | 'note' | 'bad';

/** What the form says of a submitted task that has ended, and in which tone. */
const ENDED_WORDS: Record<Exclude<TaskState, 'queued' | 'running'>, [string, OutcomeTone]> = {
  completed: ['Your task completed', 'ok'],
  failed: ['Your task failed: open it to see why', 'bad'],
  timed_out: ['Your task ran out of time: open it to see how far it got', 'bad'],
  cancelled: ['Your task was cancelled', 'note'],
  interrupted: ['Your task was interrupted: open it to run it again', 'bad'],
  over_budget: ['Your task used all of its budget: open it to see how far it got', 'bad'],
};

/**
 * The submission's outcome as it stands now, for the form: `Started`, or `Queued · position N
 * · waiting for “…”` with its place in the queue and the task at work as they are now (tasks
 * ahead end, are cancelled or move; the receipt's place would go stale), then `Your task is
 * running`, `Your task completed`, `Your task failed: …` once it has moved on, each in its tone
 * (a failure never reads as a success). `tasks`: the window's list of tasks.
 */
export function liveSubmittedOutcome(submitted: Submitted, tasks: readonly TaskInfo[]): { text: string; tone: OutcomeTone } {
  const current = tasks.find((t) => t.id === submitted.task.id) ?? submitted.task;
  if (current.state === 'running' && submitted.position === null) return { text: 'Started', tone: 'ok' };
  if (current.state === 'running') return { text: 'Your task is running', tone: 'ok' };
  if (current.state !== 'queued') {
    const [text, tone] = ENDED_WORDS[current.state];
    return { text, tone };
  }
  // Not listed yet: the receipt is the latest word.
  const position = queuePosition(tasks, current.id) ?? submitted.position;
  const atWork =
    tasks.find((t) => t.profile_id === current.profile_id && t.state === 'running') ??
    (tasks.some((t) => t.id === current.id) ? undefined : tasks.find((t) => t.id === submitted.waiting_for));
  const parts = ['Queued'];
  if (position !== null) parts.push(`position ${position}`);
  if (atWork) parts.push(`waiting for “${firstLine(taskTitle(atWork))}”`);
  return { text: parts.join(' · '), tone: 'ok' };
}

/** `45s`, `5m`, `5m 30s`, `1h`, `1h 5m` (seconds dropped from an hour on). */
export function formatDuration(totalSeconds: number): string {
  const seconds = Math.max(0, Math.floor(totalSeconds));
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  if (h > 0) return m > 0 ? `${h}h ${m}m` : `${h}h`;
  if (m > 0) return s > 0 ? `${m}m ${s}s` : `${m}m`;
  return `${s}s`;
}

/** The time limit that applies to a task: its own, else its agent's default. */
export function effectiveTimeLimitSecs(task: TaskInfo, profile: Profile | undefined): number | null {
  return task.time_limit_secs ?? profile?.task_time_limit_secs ?? null;
}

/**
 * Seconds a task has been running, counted like the time limit: from when it was typed into
 * the agent (from when the queue took it before that), until it ended or `now`. Null before
 * it started.
 */
export function elapsedSecs(task: TaskInfo, now: number): number | null {
  const from = task.typed_at ?? task.started_at;
  if (from === null) return null;
  const end = task.ended_at ?? now;
  // Time its agent waited for the user does not count: the limit is paused meanwhile.
  const waiting = task.waiting_since === null ? 0 : Math.max(0, end - task.waiting_since);
  return Math.max(0, (end - from - task.waited_ms - waiting) / 1000);
}

/** `3m 12s / 30m`: elapsed against the limit (either may be unknown). */
export function elapsedLabel(task: TaskInfo, limitSecs: number | null, now: number): string {
  const elapsed = elapsedSecs(task, now);
  const shown = elapsed === null ? '—' : formatDuration(elapsed);
  return limitSecs === null ? shown : `${shown} / ${formatDuration(limitSecs)}`;
}

/** For a running task whose agent went quiet past its alert: how long, in words. */
export function quietLabel(task: TaskInfo, now: number): string | null {
  if (task.state !== 'running' || task.quiet_since === null) return null;
  return `No output for ${formatDuration(Math.max(0, (now - task.quiet_since) / 1000))}: it may be stuck`;
}

/** RESULTS.json indented for reading; text that is not JSON is shown as it is. */
export function prettyJson(text: string): { text: string; valid: boolean } {
  try {
    return { text: JSON.stringify(JSON.parse(text), null, 2), valid: true };
  } catch {
    return { text, valid: false };
  }
}

/** The workspace path of a task's summary file (the engine's `summary_path`). */
export function summaryPath(taskId: TaskId): string {
  return `summaries/${taskId}.md`;
}

/**
 * The Markdown to show as a task's summary: the summary file as the agent wrote it (the first
 * artifact), else, for a summary the app built itself, its parsed fields written out.
 */
export function summaryMarkdown(task: TaskInfo): string | null {
  const result = task.result;
  if (!result) return null;
  const file = result.artifacts.find((a) => a.path === summaryPath(task.id));
  return file ? file.content : summaryToMarkdown(result.summary);
}

export function summaryToMarkdown(summary: Summary): string {
  const out: string[] = [];
  const section = (title: string, body: string) => {
    if (body.trim() !== '') out.push(`## ${title}\n${body.trim()}\n`);
  };
  const list = (items: readonly string[]) => items.map((item) => `- ${item}`).join('\n');
  section('Objective', summary.objective);
  section('Accomplishments', list(summary.accomplishments));
  section('Key Deliverables', list(summary.deliverables.map((path) => `\`${path.replaceAll('`', '')}\``)));
  section('Test Results', summary.test_results);
  section('Important Notes', list(summary.notes));
  section('Status', summary.status ?? '');
  return out.join('\n');
}

// ---- the submit form --------------------------------------------------------------------

export interface TaskFormFields {
  instruction: string;
  context: string;
  specs: string;
  instructions: string;
  priority: Priority;
  /** Minutes as typed; empty means the agent's default. */
  timeLimitMinutes: string;
  goals: string;
  successCriteria: string;
  /** The branch its worktree is made from (an agent that works in worktrees); empty: its folder's. */
  base: string;
}

/**
 * The form once a submission went through: each field that still holds what was sent is
 * emptied (the priority back to normal), and a field changed while the task was on its way
 * keeps what the user typed meanwhile.
 */
export function formAfterSubmit(sent: TaskFormFields, now: TaskFormFields): TaskFormFields {
  const keep = <K extends keyof TaskFormFields>(key: K, empty: TaskFormFields[K]) => (now[key] === sent[key] ? empty : now[key]);
  return {
    instruction: keep('instruction', ''),
    context: keep('context', ''),
    specs: keep('specs', ''),
    instructions: keep('instructions', ''),
    priority: keep('priority', 'normal'),
    timeLimitMinutes: keep('timeLimitMinutes', ''),
    goals: keep('goals', ''),
    successCriteria: keep('successCriteria', ''),
    base: keep('base', ''),
  };
}

export type TaskFormResult = { ok: true; spec: TaskSpec } | { ok: false; field: keyof TaskFormFields; message: string };

/** Blank optional text is no text at all. */
function optional(text: string): string | null {
  return text.trim() === '' ? null : text;
}

/** Minutes (decimals allowed) to whole seconds; empty is the default (null). */
export function parseTimeLimitMinutes(text: string): { ok: true; secs: number | null } | { ok: false; message: string } {
  const trimmed = text.trim();
  if (trimmed === '') return { ok: true, secs: null };
  if (!/^\d+(\.\d+)?$/.test(trimmed)) return { ok: false, message: 'The time limit is a number of minutes, such as 30.' };
  const secs = Math.round(Number(trimmed) * 60);
  if (secs < 1) return { ok: false, message: 'The time limit must be more than zero.' };
  // The engine keeps seconds in a u32.
  if (secs > 0xffffffff) return { ok: false, message: 'That time limit is too long.' };
  return { ok: true, secs };
}

/** The spec a filled-in form submits, or what is wrong with it. */
export function taskSpecFromForm(profileId: ProfileId, fields: TaskFormFields): TaskFormResult {
  if (fields.instruction.trim() === '') return { ok: false, field: 'instruction', message: 'Write what the agent should do.' };
  const limit = parseTimeLimitMinutes(fields.timeLimitMinutes);
  if (!limit.ok) return { ok: false, field: 'timeLimitMinutes', message: limit.message };
  return {
    ok: true,
    spec: {
      profile_id: profileId,
      instruction: fields.instruction,
      context: optional(fields.context),
      specs: optional(fields.specs),
      instructions: optional(fields.instructions),
      priority: fields.priority,
      time_limit_secs: limit.secs,
      success_criteria: optional(fields.successCriteria),
      goals: optional(fields.goals),
      loop_iteration: null,
      base: optional(fields.base)?.trim() ?? null,
    },
  };
}

// ---- navigation ------------------------------------------------------------------------

/**
 * What to select to show a task (from a notification): the current selection when it already
 * is the task's agent or one of its sessions; else the session the task ran in; else the
 * agent's newest running session; else the agent.
 */
export function selectionForTask(model: Model, selection: Selection, task: TaskInfo): Selection {
  const profileId = task.profile_id;
  const ownSessions = model.sessions.filter((s) => s.profile_id === profileId);
  if (selection?.kind === 'profile' && selection.id === profileId) return selection;
  if (selection?.kind === 'session' && ownSessions.some((s) => s.id === selection.id)) return selection;
  const ranIn = ownSessions.find((s) => s.id === task.session_id);
  if (ranIn) return { kind: 'session', id: ranIn.id };
  const live: SessionInfo | undefined = newestFirst(ownSessions).find(isRunning);
  if (live) return { kind: 'session', id: live.id };
  return { kind: 'profile', id: profileId };
}
