/**
 * Automations in the window's words, and the spec its form builds: work that starts by itself,
 * on a schedule or after another agent's tasks end. The engine decides everything about them
 * (when a schedule runs next, whether a run overlaps, its hourly cap, what a run made): the
 * window never works out a schedule or reads a rule, it says what the engine sent (`next_run`,
 * the runs and their reasons, already words).
 */
import type {
  Automation,
  AutomationAction,
  AutomationRun,
  AutomationSpec,
  AutomationState,
  Budget,
  CatchUp,
  EngineEvent,
  LoopSettings,
  Overlap,
  ProfileId,
  RunOutcome,
  TaskEnd,
  TaskInfo,
  TaskState,
  Trigger,
} from './bindings';
import { amountWords, budgetFromInput, budgetInputOf, type BudgetInput } from './cost';
import { LOOP_DEFAULTS } from './loops';
import { formatTime, resetWords } from './model';
import { firstLine, stateWord, taskTitle } from './tasks';

/** The most runs an hour an automation makes unless told otherwise (the engine's `DEFAULT_RUNS_PER_HOUR`). */
export const DEFAULT_RUNS_PER_HOUR = 6;

/** What an automation's agent is called where it is gone (removed, or its machine not shown). */
export const REMOVED_AGENT = 'a removed agent';

// ---- the list -----------------------------------------------------------------------------

export function upsertAutomation(list: readonly Automation[], automation: Automation): Automation[] {
  const index = list.findIndex((a) => a.id === automation.id);
  if (index < 0) return [...list, automation];
  const next = [...list];
  next[index] = automation;
  return next;
}

/** The list once the engine's event is folded in. */
export function applyAutomationEvent(list: Automation[], event: EngineEvent): Automation[] {
  switch (event.type) {
    case 'automation_changed':
      return upsertAutomation(list, event.automation);
    case 'automation_removed':
      return list.filter((a) => a.id !== event.automation_id);
    default:
      return list;
  }
}

/** An agent's automations, in the list's order. */
export function automationsOf(list: readonly Automation[], profileId: ProfileId): Automation[] {
  return shownAutomations(list).filter((a) => a.profile_id === profileId);
}

/**
 * The order they are listed in: the active ones first, the soonest to run first (the chains,
 * which have no next run, after them); then the paused; alike, by name.
 */
export function shownAutomations(list: readonly Automation[]): Automation[] {
  const rank = (a: Automation) => (a.state.state === 'paused' ? 2 : a.next_run == null ? 1 : 0);
  return [...list].sort(
    (a, b) => rank(a) - rank(b) || (a.next_run ?? 0) - (b.next_run ?? 0) || automationName(a).localeCompare(automationName(b)) || a.id.localeCompare(b.id),
  );
}

/** The machine an automation runs on (none: this computer): as the engine names it, else its agent's. */
export function automationHost(automation: Automation, agentHost: string | null | undefined): string | null {
  return automation.host || agentHost || null;
}

// ---- words --------------------------------------------------------------------------------

/** What a person calls it, as the engine does: its task's title, else its instruction's (or loop goal's) first line. */
export function automationName(spec: Pick<AutomationSpec, 'action'>): string {
  const action = spec.action;
  if (action.does === 'task') {
    const title = action.title?.trim();
    return title ? title : firstLine(action.instruction) || 'a task with no instruction';
  }
  return firstLine(action.settings.goal) || 'a loop with no goal';
}

/** Its instruction, or its loop's goal, whole. */
export function actionText(action: AutomationAction): string {
  return action.does === 'task' ? action.instruction : action.settings.goal;
}

const ENDS: Record<TaskEnd, string> = { completed: 'complete', failed: 'fail', any: 'complete or fail' };

/** Which ends a chain follows, as the form offers them. */
export const ENDED_CHOICES: readonly { value: TaskEnd; label: string }[] = [
  { value: 'completed', label: 'complete' },
  { value: 'failed', label: 'fail (failed, timed out or over budget)' },
  { value: 'any', label: 'either' },
];

/** A `--every` spec said as a schedule: "every 2h", "daily 09:00", "weekdays 09:00", "hourly". */
export function everyWords(every: string): string {
  const text = every.trim();
  if (/^\d{1,2}:\d{2}$/.test(text)) return `daily ${text}`;
  return /^\d/.test(text) ? `every ${text}` : text;
}

/**
 * When it runs, in words: its schedule as given ("weekdays 09:00", "every 2h"), its rule
 * ("RRULE FREQ=…"), the chain it follows ("after coder's tasks complete"), the files or the
 * branch it watches. `agentName` names an agent by its id.
 */
export function triggerWords(trigger: Trigger, agentName: (id: ProfileId) => string): string {
  switch (trigger.on) {
    case 'every':
      return everyWords(trigger.every);
    case 'rule': {
      const rule = trigger.rrule.trim();
      return /^RRULE:/i.test(rule) ? rule : `RRULE ${rule}`;
    }
    case 'task_ended':
      return `after ${agentName(trigger.profile_id)}'s tasks ${ENDS[trigger.ended]}`;
    case 'files_changed':
      return `when files change in ${trigger.dir}${trigger.globs.length > 0 ? ` (${trigger.globs.join(', ')})` : ''}`;
    case 'branch_moved':
      return `when ${trigger.branch} moves in ${trigger.repo}`;
    default:
      return unknownTriggerWords(trigger);
  }
}

/** A trigger of a kind this build does not know (an engine newer than the window), said plainly. */
function unknownTriggerWords(trigger: never): string {
  const on = (trigger as { on?: unknown }).on;
  return typeof on === 'string' ? `when its engine says (${on.replaceAll('_', ' ')})` : 'when its engine says';
}

/** Whether its trigger is a schedule (a zone and missed runs concern it). */
export function isSchedule(trigger: Trigger): boolean {
  return trigger.on === 'every' || trigger.on === 'rule';
}

/** When it runs next, as the engine says: a local time to come, "paused", or "—" (a chain has no next run). */
export function nextRunWords(automation: Pick<Automation, 'state' | 'next_run'>, now: number): string {
  if (automation.state.state === 'paused') return 'paused';
  if (automation.next_run == null) return '—';
  return resetWords(automation.next_run, now);
}

/** Its state, and why it is paused. */
export function stateWords(state: AutomationState): string {
  if (state.state === 'active') return 'active';
  if (state.why.by === 'user') return 'paused by you';
  const runs = state.why.failures === 1 ? 'run' : `${state.why.failures} runs`;
  return `paused itself: its last ${runs} ended badly (the last: ${state.why.last})`;
}

/** What a run does, in a few words. */
export function actionWords(action: AutomationAction): string {
  return action.does === 'task' ? 'queues a task' : 'starts a loop';
}

export const CATCH_UP_CHOICES: readonly { value: CatchUp; label: string }[] = [
  { value: 'once', label: 'run once for all of them' },
  { value: 'skip', label: 'skip them (their history says they were missed)' },
];

export const OVERLAP_CHOICES: readonly { value: Overlap; label: string }[] = [
  { value: 'skip', label: 'skip the new run (its history says so)' },
  { value: 'queue', label: 'queue the new one behind it' },
];

const CATCH_UP_WORDS: Record<CatchUp, string> = { once: 'run once for all of them', skip: 'skipped' };
const OVERLAP_WORDS: Record<Overlap, string> = { skip: 'the new run is skipped', queue: 'the new one queues behind it' };

/** What becomes of runs missed while the engine was not running. */
export function catchUpWords(catchUp: CatchUp): string {
  return CATCH_UP_WORDS[catchUp];
}

/** What a run does while its last one is still at work. */
export function overlapWords(overlap: Overlap): string {
  return OVERLAP_WORDS[overlap];
}

/** "at most 6 runs an hour". */
export function capWords(max: number): string {
  return `at most ${max} ${max === 1 ? 'run' : 'runs'} an hour`;
}

// ---- runs ---------------------------------------------------------------------------------

/** Its runs, newest first. */
export function runsNewestFirst(automation: Pick<Automation, 'runs'>): AutomationRun[] {
  return [...automation.runs].reverse();
}

/** How a run's work stands: its task's state as the window knows it now, else as the engine recorded it. */
export function runTaskState(outcome: Extract<RunOutcome, { outcome: 'task' }>, tasks: readonly TaskInfo[]): TaskState {
  return tasks.find((t) => t.id === outcome.task_id)?.state ?? outcome.state;
}

/** A run's task as the window calls it: its title, when the window knows the task. */
export function runTaskTitle(outcome: Extract<RunOutcome, { outcome: 'task' }>, tasks: readonly TaskInfo[]): string | null {
  const task = tasks.find((t) => t.id === outcome.task_id);
  return task ? taskTitle(task) : null;
}

/** A loop's state as the engine records it on the run ("active", "stalled"…), in words. */
export function loopStateWords(state: string): string {
  return state.replaceAll('_', ' ');
}

/** What a run's task cost, as the engine told it; none when no price was known, or it cost nothing (yet). */
export function runCostWords(outcome: RunOutcome): string | null {
  return outcome.outcome === 'task' && outcome.cost_usd != null && outcome.cost_usd > 0 ? amountWords(outcome.cost_usd) : null;
}

/** What became of a run, in a few words: its task's state, its loop's, or why it made nothing. */
export function outcomeWords(outcome: RunOutcome, tasks: readonly TaskInfo[]): string {
  switch (outcome.outcome) {
    case 'task':
      return `task ${stateWord(runTaskState(outcome, tasks))}`;
    case 'loop':
      return `loop ${loopStateWords(outcome.state)}`;
    case 'skipped':
      return outcome.why;
  }
}

/** Its last run in words ("09:00 · task completed"), or that it has not run. */
export function lastRunWords(automation: Pick<Automation, 'runs'>, tasks: readonly TaskInfo[], now: number): string {
  const last = automation.runs.at(-1);
  if (last === undefined) return 'not run yet';
  return `${formatTime(last.fired_at, new Date(now))} · ${outcomeWords(last.outcome, tasks)}`;
}

// ---- the form -----------------------------------------------------------------------------

/**
 * How the form says when it runs: a `--every` schedule, an RRULE, after another agent's tasks,
 * or a trigger it cannot edit (one a newer engine has), kept as it is.
 */
export type TriggerKind = 'every' | 'rule' | 'after' | 'kept';

/** What the form holds, as typed. */
export interface AutomationFormFields {
  agent: ProfileId;
  kind: TriggerKind;
  every: string;
  rrule: string;
  /** The agent whose tasks it follows; empty until chosen. */
  after: ProfileId;
  ended: TaskEnd;
  zone: string;
  does: AutomationAction['does'];
  /** Its instruction, or its loop's goal. */
  text: string;
  /** A task's title (empty: none). */
  title: string;
  budget: BudgetInput;
  catchUp: CatchUp;
  overlap: Overlap;
  maxRuns: string;
}

/** The form's fields a problem can be under. */
export type AutomationFormField = 'agent' | 'trigger' | 'zone' | 'text' | 'title' | 'budget' | 'catchUp' | 'overlap' | 'maxRuns';

/** The engine's field names (`ApiError.field`) as the form's. */
const ENGINE_FIELDS: Record<string, AutomationFormField> = {
  profile_id: 'agent',
  trigger: 'trigger',
  zone: 'zone',
  instruction: 'text',
  goal: 'text',
  title: 'title',
  budget: 'budget',
  catch_up: 'catchUp',
  overlap: 'overlap',
  max_runs_per_hour: 'maxRuns',
};

/** The form's field an engine's refusal is about; none: the form's as a whole. */
export function formFieldOf(engineField: string | null): AutomationFormField | null {
  return engineField === null ? null : (ENGINE_FIELDS[engineField] ?? null);
}

/** The form for a new automation of `agent`, or filled in from `automation`. */
export function formFieldsOf(automation: Automation | null, agent: ProfileId): AutomationFormFields {
  const blank: AutomationFormFields = {
    agent,
    kind: 'every',
    every: '',
    rrule: '',
    after: '',
    ended: 'completed',
    zone: '',
    does: 'task',
    text: '',
    title: '',
    budget: budgetInputOf(null),
    catchUp: 'once',
    overlap: 'skip',
    maxRuns: String(DEFAULT_RUNS_PER_HOUR),
  };
  if (automation === null) return blank;
  const trigger = automation.trigger;
  const action = automation.action;
  return {
    ...blank,
    agent: automation.profile_id,
    kind: trigger.on === 'every' ? 'every' : trigger.on === 'rule' ? 'rule' : trigger.on === 'task_ended' ? 'after' : 'kept',
    every: trigger.on === 'every' ? trigger.every : '',
    rrule: trigger.on === 'rule' ? trigger.rrule : '',
    after: trigger.on === 'task_ended' ? trigger.profile_id : '',
    ended: trigger.on === 'task_ended' ? trigger.ended : 'completed',
    zone: automation.zone ?? '',
    does: action.does,
    text: actionText(action),
    title: action.does === 'task' ? (action.title ?? '') : '',
    budget: budgetInputOf(action.does === 'task' ? action.budget : action.settings.budget),
    catchUp: automation.catch_up,
    overlap: automation.overlap,
    maxRuns: String(automation.max_runs_per_hour),
  };
}

export type AutomationFormResult = { ok: true; spec: AutomationSpec } | { ok: false; field: AutomationFormField; message: string };

/**
 * The spec the form sends. Only what the form must read itself is checked here (a number, a
 * budget, a choice left empty); whether a schedule, a rule or a zone is one the engine reads,
 * and everything else, is the engine's to say. Editing keeps what the form does not show: a
 * task's time limit, a loop's other settings, a trigger it cannot edit.
 */
export function automationSpecFrom(fields: AutomationFormFields, editing: Automation | null): AutomationFormResult {
  let trigger: Trigger;
  switch (fields.kind) {
    case 'every':
      trigger = { on: 'every', every: fields.every.trim() };
      break;
    case 'rule':
      trigger = { on: 'rule', rrule: fields.rrule.trim() };
      break;
    case 'after':
      if (fields.after === '') return { ok: false, field: 'trigger', message: 'Choose the agent whose tasks it follows.' };
      trigger = { on: 'task_ended', profile_id: fields.after, ended: fields.ended };
      break;
    case 'kept':
      if (editing === null) return { ok: false, field: 'trigger', message: 'Say when it runs.' };
      trigger = editing.trigger;
      break;
  }
  const maxRuns = fields.maxRuns.trim();
  if (!/^\d+$/.test(maxRuns)) return { ok: false, field: 'maxRuns', message: `Give a whole number of runs, such as ${DEFAULT_RUNS_PER_HOUR}.` };
  const budget = budgetFromInput(fields.budget);
  if (!budget.ok) return { ok: false, field: 'budget', message: budget.message };
  const zone = fields.zone.trim();
  return {
    ok: true,
    spec: {
      profile_id: fields.agent,
      trigger,
      action: actionFrom(fields, budget.budget, editing?.action ?? null),
      // A zone concerns a schedule only: a chain has none.
      zone: fields.kind === 'after' || zone === '' ? null : zone,
      overlap: fields.overlap,
      catch_up: fields.catchUp,
      max_runs_per_hour: Number(maxRuns),
    },
  };
}

function actionFrom(fields: AutomationFormFields, budget: Budget | null, before: AutomationAction | null): AutomationAction {
  if (fields.does === 'task') {
    const title = fields.title.trim();
    return {
      does: 'task',
      instruction: fields.text,
      title: title === '' ? null : title,
      budget,
      time_limit_secs: before?.does === 'task' ? (before.time_limit_secs ?? null) : null,
    };
  }
  const settings: LoopSettings =
    before?.does === 'loop'
      ? before.settings
      : {
          goal: '',
          stop_word: LOOP_DEFAULTS.stopWord,
          promise: null,
          max_iterations: LOOP_DEFAULTS.maxIterations,
          stall_after: LOOP_DEFAULTS.stallAfter,
          iteration_time_limit_secs: null,
        };
  return { does: 'loop', settings: { ...settings, goal: fields.text, budget } };
}

/** What a removal asks first. */
export function removeQuestion(automation: Automation): string {
  return `Remove “${automationName(automation)}”? It starts nothing more, and its history goes with it.`;
}
