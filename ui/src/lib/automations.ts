/**
 * Automations in the window's words, and the spec its form builds: work that starts by itself,
 * on a schedule, after another agent's tasks end, when files change or when a branch moves. The
 * engine decides everything about them (when a schedule runs next, whether a run overlaps, its
 * hourly cap, what a run made, whether a folder, a glob or a branch is one it can follow): the
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
  HostLink,
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
import type { PageLink } from './engineLink';
import { machineName, THIS_COMPUTER } from './hosts';
import { joinNames } from './limits';
import { LOOP_DEFAULTS } from './loops';
import { formatTime, resetWords } from './model';
import { firstLine, stateWord, taskTitle } from './tasks';

/** The most runs an hour an automation makes unless told otherwise (the engine's `DEFAULT_RUNS_PER_HOUR`). */
export const DEFAULT_RUNS_PER_HOUR = 6;

/** What an automation's agent is called where it is gone (removed, or its machine not shown). */
export const REMOVED_AGENT = 'a removed agent';

/** The pattern a file automation watches when given none: every file under its folder (the engine leaves out `.git` and its own files). */
export const EVERY_FILE = '**/*';

/** The branch a new branch automation follows until the user names another. */
export const DEFAULT_BRANCH = 'main';

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
      return watchesEveryFile(trigger.globs) ? `when files change in ${trigger.dir}` : `when files matching ${trigger.globs.join(', ')} change in ${trigger.dir}`;
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

/** Whether the patterns are every file's (none, or only `EVERY_FILE`): then they go unsaid. */
function watchesEveryFile(globs: readonly string[]): boolean {
  return globs.every((glob) => glob === EVERY_FILE);
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

/**
 * Where a branch automation's branch was last seen, as the engine tells it ("main is at
 * 1a2b3c4d5e"); null for another trigger, or before the engine has seen it.
 */
export function branchAtWords(automation: Pick<Automation, 'trigger' | 'branch_at'>): string | null {
  if (automation.trigger.on !== 'branch_moved' || !automation.branch_at) return null;
  return `${automation.trigger.branch} is at ${automation.branch_at.slice(0, 10)}`;
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

// ---- where they run -----------------------------------------------------------------------

/**
 * The machines whose automations fire only while their engine runs, as sentences name them:
 * each engine the window reaches now whose link says no login service runs it, the window's own
 * (`engineLink`, null until told) first, then the other machines' (`hostLinks`) in their order.
 * An engine the window does not reach now is left out (whether anything runs it is not known),
 * as is one a login service starts at each login.
 */
export function machinesWithoutLoginService(engineLink: PageLink | null, hostLinks: readonly HostLink[]): string[] {
  const machines: string[] = [];
  if (engineLink?.state === 'connected' && !engineLink.starts_at_login) machines.push(machineName(engineLink.host));
  for (const { destination, link } of hostLinks) {
    if (link.state === 'connected' && !link.starts_at_login && !machines.includes(destination)) machines.push(destination);
  }
  return machines;
}

/** The command that has the user's login service run the engine. */
export const INSTALL_COMMAND = 'switchboard daemon --install';

/** A sentence about the engines, around the command it gives (shown as code). */
export interface EngineNote {
  before: string;
  command: string;
  after: string;
}

/**
 * What is said where automations are listed or made, of the machines whose automations fire only
 * while their engine runs (`machinesWithoutLoginService`); none when there is none.
 */
export function engineNote(machines: readonly string[]): EngineNote | null {
  if (machines.length === 0) return null;
  const names = joinNames(machines);
  if (machines.length > 1) {
    return { before: `Automations on ${names} fire only while their engines run: `, command: INSTALL_COMMAND, after: ' on each starts its engine at each login.' };
  }
  // The command is run on the machine whose engine it is: another machine's is said to be there.
  const there = machines[0] === THIS_COMPUTER ? '' : ' there';
  return { before: `Automations on ${names} fire only while the engine runs: `, command: INSTALL_COMMAND, after: `${there} starts it at each login.` };
}

// ---- the form -----------------------------------------------------------------------------

/**
 * How the form says when it runs: a `--every` schedule, an RRULE, after another agent's tasks,
 * when files change, when a branch moves, or a trigger it cannot edit (one a newer engine
 * has), kept as it is.
 */
export type TriggerKind = 'every' | 'rule' | 'after' | 'files' | 'branch' | 'kept';

/** What the form holds, as typed. */
export interface AutomationFormFields {
  agent: ProfileId;
  kind: TriggerKind;
  every: string;
  rrule: string;
  /** The agent whose tasks it follows; empty until chosen. */
  after: ProfileId;
  ended: TaskEnd;
  /** The folder whose files it watches, or the repository whose branch it follows (absolute, on the agent's machine). */
  folder: string;
  /** The patterns of the files it watches, as typed: separated by commas or spaces. */
  globs: string;
  /** The branch it follows. */
  branch: string;
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

/** The form's fields a problem can be under (`folder` and `branch`: only when left empty; the engine's refusals of them are the trigger's). */
export type AutomationFormField = 'agent' | 'trigger' | 'folder' | 'branch' | 'zone' | 'text' | 'title' | 'budget' | 'catchUp' | 'overlap' | 'maxRuns';

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

/** The file patterns as typed (separated by commas, spaces or both), in order; none given: every file. */
export function globsFrom(text: string): string[] {
  const globs = text.split(/[\s,]+/).filter((glob) => glob !== '');
  return globs.length === 0 ? [EVERY_FILE] : globs;
}

/** The file patterns as the form shows them. */
export function globsText(globs: readonly string[]): string {
  return globs.join(', ');
}

/**
 * The folder field once another agent is chosen: the new agent's working folder (`after`),
 * unless the user typed a folder of their own (neither empty nor the last agent's, `before`).
 */
export function folderForAgent(folder: string, before: string, after: string): string {
  const typed = folder.trim();
  return typed === '' || typed === before.trim() ? after : folder;
}

/** The fields that say when it runs. */
type TriggerFields = Pick<AutomationFormFields, 'kind' | 'every' | 'rrule' | 'after' | 'ended' | 'folder' | 'globs' | 'branch'>;

/**
 * The fields that say when it runs, filled in from `trigger` (none: a new automation's). The
 * folder of a kind it is not is `folder`, its agent's working folder.
 */
export function triggerFieldsOf(trigger: Trigger | null, folder: string): TriggerFields {
  const blank: TriggerFields = { kind: 'every', every: '', rrule: '', after: '', ended: 'completed', folder, globs: EVERY_FILE, branch: DEFAULT_BRANCH };
  switch (trigger?.on) {
    case undefined:
      return blank;
    case 'every':
      return { ...blank, every: trigger.every };
    case 'rule':
      return { ...blank, kind: 'rule', rrule: trigger.rrule };
    case 'task_ended':
      return { ...blank, kind: 'after', after: trigger.profile_id, ended: trigger.ended };
    case 'files_changed':
      return { ...blank, kind: 'files', folder: trigger.dir, globs: globsText(trigger.globs) };
    case 'branch_moved':
      return { ...blank, kind: 'branch', folder: trigger.repo, branch: trigger.branch };
    default:
      return { ...blank, kind: 'kept' };
  }
}

/** The form for a new automation of `agent`, or filled in from `automation`; `folder`: its agent's working folder. */
export function formFieldsOf(automation: Automation | null, agent: ProfileId, folder = ''): AutomationFormFields {
  const blank: AutomationFormFields = {
    agent,
    ...triggerFieldsOf(null, folder),
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
  const action = automation.action;
  return {
    ...blank,
    agent: automation.profile_id,
    ...triggerFieldsOf(automation.trigger, folder),
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

/** A problem the form finds itself, under its field. */
export type AutomationFormProblem = { ok: false; field: AutomationFormField; message: string };

export type TriggerResult = { ok: true; trigger: Trigger } | AutomationFormProblem;

/**
 * The trigger the fields say. Only what is left empty is caught here; whether a schedule or a
 * rule is one the engine reads, whether a folder or a branch exists and whether a pattern is
 * one it takes are the engine's to say (its refusal is the trigger's). `editing`: the
 * automation edited, whose trigger is kept as it is when the form cannot edit it.
 */
export function triggerFrom(fields: TriggerFields, editing: Automation | null): TriggerResult {
  const folder = fields.folder.trim();
  switch (fields.kind) {
    case 'every':
      return { ok: true, trigger: { on: 'every', every: fields.every.trim() } };
    case 'rule':
      return { ok: true, trigger: { on: 'rule', rrule: fields.rrule.trim() } };
    case 'after':
      if (fields.after === '') return { ok: false, field: 'trigger', message: 'Choose the agent whose tasks it follows.' };
      return { ok: true, trigger: { on: 'task_ended', profile_id: fields.after, ended: fields.ended } };
    case 'files':
      if (folder === '') return { ok: false, field: 'folder', message: 'Give the folder whose files it watches.' };
      return { ok: true, trigger: { on: 'files_changed', dir: folder, globs: globsFrom(fields.globs) } };
    case 'branch': {
      const branch = fields.branch.trim();
      if (folder === '') return { ok: false, field: 'folder', message: 'Give the folder of the repository.' };
      if (branch === '') return { ok: false, field: 'branch', message: 'Give the branch it follows, such as main.' };
      return { ok: true, trigger: { on: 'branch_moved', repo: folder, branch } };
    }
    case 'kept':
      if (editing === null) return { ok: false, field: 'trigger', message: 'Say when it runs.' };
      return { ok: true, trigger: editing.trigger };
  }
}

export type AutomationFormResult = { ok: true; spec: AutomationSpec } | AutomationFormProblem;

/**
 * The spec the form sends. Only what the form must read itself is checked here (a number, a
 * budget, a choice or a folder left empty); whether a schedule, a rule or a zone is one the
 * engine reads, and everything else, is the engine's to say. Editing keeps what the form does
 * not show: a task's time limit, a loop's other settings, a trigger it cannot edit.
 */
export function automationSpecFrom(fields: AutomationFormFields, editing: Automation | null): AutomationFormResult {
  const trigger = triggerFrom(fields, editing);
  if (!trigger.ok) return trigger;
  const maxRuns = fields.maxRuns.trim();
  if (!/^\d+$/.test(maxRuns)) return { ok: false, field: 'maxRuns', message: `Give a whole number of runs, such as ${DEFAULT_RUNS_PER_HOUR}.` };
  const budget = budgetFromInput(fields.budget);
  if (!budget.ok) return { ok: false, field: 'budget', message: budget.message };
  const zone = fields.zone.trim();
  return {
    ok: true,
    spec: {
      profile_id: fields.agent,
      trigger: trigger.trigger,
      action: actionFrom(fields, budget.budget, editing?.action ?? null),
      // A zone concerns a schedule only: a chain, a folder or a branch has none.
      zone: fields.kind === 'after' || fields.kind === 'files' || fields.kind === 'branch' || zone === '' ? null : zone,
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
