/**
 * The agent form's decisions, kept out of the component: reading what was typed into a
 * `ProfileSpec` (with every problem the form itself can see, in words), and filling in a kind's
 * preset without overwriting what the user typed.
 */
import type { AgentKind, AgentPreset, CompletionRule, FolderRepository, Isolation, ProfileField, ProfileProblem, ProfileSpec } from './bindings';
import { joinArgs, splitArgs } from './args';
import { asSentence } from './errors';
import { parseTimeLimitMinutes } from './tasks';

/** The form's text fields, named as the engine names the spec's fields. */
export type TextField =
  | 'name'
  | 'command'
  | 'args'
  | 'cwd'
  | 'task_time_limit_secs'
  | 'ready_pattern'
  | 'ready_quiet_ms'
  | 'quiet_alert_secs'
  | 'account';

export type FormValues = Record<TextField, string>;

/** What the form holds besides text. */
export interface FormChoices {
  kind: AgentKind;
  start_on_launch: boolean;
  completion: CompletionRule;
  signal_protocols: boolean;
  /** Its CLI is given Switchboard's tools (an MCP server) for the protocols. */
  switchboard_tools: boolean;
  /** Where its tasks work: its folder, or each in a git worktree of its own. */
  isolation: Isolation;
  /** The form has no field for it: an edit keeps the agent's, a new agent has none. */
  env: Record<string, string>;
}

// The engine's defaults (ProfileSpec in profile.rs), which a new agent's form starts with.
export const DEFAULT_TASK_TIME_LIMIT_SECS = 30 * 60;
export const DEFAULT_QUIET_ALERT_SECS = 10 * 60;
export const DEFAULT_READY_QUIET_MS = 800;

/**
 * A new agent's form: empty, with the defaults written out (so nothing looks filled in that is
 * not): the time limit and quiet alert of the app's settings, else the engine's.
 */
export function blankValues(
  defaults: { taskTimeLimitSecs: number; quietAlertSecs: number } = {
    taskTimeLimitSecs: DEFAULT_TASK_TIME_LIMIT_SECS,
    quietAlertSecs: DEFAULT_QUIET_ALERT_SECS,
  },
): FormValues {
  return {
    name: '',
    command: '',
    args: '',
    cwd: '',
    task_time_limit_secs: String(defaults.taskTimeLimitSecs / 60),
    ready_pattern: '',
    ready_quiet_ms: String(DEFAULT_READY_QUIET_MS),
    quiet_alert_secs: String(defaults.quietAlertSecs / 60),
    account: '',
  };
}

/** The form's order of fields, in which problems are listed. */
export const FIELD_ORDER: readonly ProfileField[] = [
  'name',
  'kind',
  'command',
  'args',
  'cwd',
  'isolation',
  'account',
  'env',
  'task_time_limit_secs',
  'ready_quiet_ms',
  'quiet_alert_secs',
  'daily_budget',
  'ready_pattern',
];

/**
 * The spec the form describes, and every problem the form can see before asking the engine
 * (arguments it cannot split, numbers it cannot read). Where a value cannot be read the spec
 * carries the engine's default instead, so the engine can still be asked about the rest.
 */
export function readSpec(values: FormValues, choices: FormChoices): { spec: ProfileSpec; problems: ProfileProblem[] } {
  const problems: ProfileProblem[] = [];
  const split = splitArgs(values.args);
  if (!split.ok) problems.push({ field: 'args', message: split.message });

  const limit = parseTimeLimitMinutes(values.task_time_limit_secs);
  if (!limit.ok) problems.push({ field: 'task_time_limit_secs', message: limit.message });

  const quiet = values.ready_quiet_ms.trim();
  const quietOk = quiet === '' || /^\d+$/.test(quiet);
  if (!quietOk) problems.push({ field: 'ready_quiet_ms', message: 'Give a whole number of milliseconds, such as 800.' });

  const alert = values.quiet_alert_secs.trim();
  const alertOk = alert === '' || /^\d+(\.\d+)?$/.test(alert);
  if (!alertOk) problems.push({ field: 'quiet_alert_secs', message: 'Give the minutes as a number, such as 10 (0 never alerts).' });

  const spec: ProfileSpec = {
    name: values.name.trim(),
    command: values.command.trim(),
    args: split.ok ? split.args : [],
    env: choices.env,
    cwd: values.cwd.trim(),
    kind: choices.kind,
    start_on_launch: choices.start_on_launch,
    ready_pattern: values.ready_pattern.trim() === '' ? null : values.ready_pattern,
    ready_quiet_ms: quiet === '' || !quietOk ? DEFAULT_READY_QUIET_MS : Number(quiet),
    task_time_limit_secs: limit.ok ? (limit.secs ?? DEFAULT_TASK_TIME_LIMIT_SECS) : DEFAULT_TASK_TIME_LIMIT_SECS,
    completion: choices.completion,
    signal_protocols: choices.signal_protocols,
    switchboard_tools: choices.switchboard_tools,
    quiet_alert_secs: alert === '' || !alertOk ? DEFAULT_QUIET_ALERT_SECS : Math.round(Number(alert) * 60),
    isolation: choices.isolation,
    account: values.account.trim() === '' ? null : values.account.trim(),
  };
  return { spec, problems };
}

/**
 * The form's problems and the engine's as one list, in the form's order, one per field: the
 * form's own come first for a field (the engine saw a stand-in value there).
 */
export function mergeProblems(own: ProfileProblem[], engine: ProfileProblem[]): ProfileProblem[] {
  const merged = [...own];
  for (const problem of engine) if (!merged.some((p) => p.field === problem.field)) merged.push(problem);
  return merged.sort((a, b) => FIELD_ORDER.indexOf(a.field) - FIELD_ORDER.indexOf(b.field));
}

/** The fields a preset fills in, in the form's order. */
export const PRESET_FIELDS = ['command', 'args', 'ready_pattern', 'ready_quiet_ms'] as const satisfies readonly TextField[];
export type PresetField = (typeof PRESET_FIELDS)[number];

/** How the form names a preset's fields when it says what it filled in. */
export const PRESET_FIELD_WORDS: Record<PresetField, string> = {
  command: 'command',
  args: 'arguments',
  ready_pattern: 'ready pattern',
  ready_quiet_ms: 'quiet before ready',
};

/** The form's values of a preset (none: a generic agent's, i.e. empty and the defaults). */
export function presetValues(preset: AgentPreset | null): Record<PresetField, string> {
  const blank = blankValues();
  if (preset === null) return { command: blank.command, args: blank.args, ready_pattern: blank.ready_pattern, ready_quiet_ms: blank.ready_quiet_ms };
  return {
    command: preset.command,
    args: joinArgs(preset.args),
    ready_pattern: preset.ready_pattern ?? '',
    ready_quiet_ms: String(preset.ready_quiet_ms),
  };
}

export interface PresetFill {
  values: FormValues;
  /** Fields whose value changed: to the preset's, or emptied when there is no preset. */
  filled: PresetField[];
  /** Fields the user typed into that keep their value, though the preset's differs. */
  kept: PresetField[];
}

/**
 * A kind's preset filled into the form: every preset field the user has not typed into takes
 * the preset's value (with no preset, its empty value, so a previous kind's values go), unless
 * `overwrite` (the user asked for the preset's values), which fills the typed ones too.
 */
export function fillPreset(values: FormValues, typed: ReadonlySet<TextField>, preset: AgentPreset | null, overwrite = false): PresetFill {
  const wanted = presetValues(preset);
  const next = { ...values };
  const filled: PresetField[] = [];
  const kept: PresetField[] = [];
  for (const field of PRESET_FIELDS) {
    if (values[field] === wanted[field]) continue;
    if (typed.has(field) && !overwrite) {
      kept.push(field);
      continue;
    }
    next[field] = wanted[field];
    filled.push(field);
  }
  return { values: next, filled, kept };
}

/** A list of field names in words: "command, arguments and ready pattern". */
export function fieldList(fields: readonly PresetField[]): string {
  const words = fields.map((field) => PRESET_FIELD_WORDS[field]);
  if (words.length <= 1) return words.join('');
  return `${words.slice(0, -1).join(', ')} and ${words[words.length - 1]}`;
}

/**
 * A one-click agent: the preset's settings in `folder`, the time limit and quiet alert of the
 * app's settings, named after the CLI and the folder ("Claude Code in shop"; "… 2" where a name
 * is taken).
 */
export function offeredSpec(
  preset: AgentPreset,
  folder: string,
  defaults: { taskTimeLimitSecs: number; quietAlertSecs: number },
  takenNames: readonly string[],
): ProfileSpec {
  const base = folder.replace(/\/+$/, '').split('/').pop() ?? '';
  const stem = base === '' ? preset.label : `${preset.label} in ${base}`;
  const taken = new Set(takenNames);
  let name = stem;
  for (let n = 2; taken.has(name); n++) name = `${stem} ${n}`;
  return {
    name,
    command: preset.command,
    args: [...preset.args],
    env: {},
    cwd: folder,
    kind: preset.kind,
    start_on_launch: false,
    ready_pattern: preset.ready_pattern,
    ready_quiet_ms: preset.ready_quiet_ms,
    task_time_limit_secs: defaults.taskTimeLimitSecs,
    completion: 'summary',
    signal_protocols: true,
    switchboard_tools: true,
    quiet_alert_secs: defaults.quietAlertSecs,
    isolation: 'none',
    account: null,
  };
}

// ---- where tasks work ----------------------------------------------------------------------

/**
 * What the form knows of the git repository the agent's folder is in: nothing to ask about
 * (no full path typed), the engine being asked, its answer, or a failure to ask.
 */
export type RepositoryLookup =
  | { state: 'no_folder' }
  | { state: 'looking'; folder: string }
  | { state: 'found'; folder: string; repository: FolderRepository }
  | { state: 'failed'; folder: string; message: string };

/** The folder to ask the engine about (`folder_repository`): a full path, trimmed; null for anything else. */
export function folderToLookUp(cwd: string): string | null {
  const folder = cwd.trim();
  return folder.startsWith('/') ? folder : null;
}

/** The lookup to show for `cwd` now that `answer` came for `folder`: an answer for another folder is stale. */
export function lookupAnswered(cwd: string, folder: string, answer: RepositoryLookup): RepositoryLookup | null {
  return folderToLookUp(cwd) === folder ? answer : null;
}

export interface IsolationOffer {
  /** Whether "Each task in its own git worktree" can be chosen. */
  worktree: boolean;
  /** Why it cannot, or where its worktrees come from, in a sentence; null when there is nothing to say. */
  note: string | null;
  /** The repository's top folder when the folder is in one: its setup command is the repository's. */
  root: string | null;
}

/**
 * What the form offers for where tasks work, given what it knows of the folder's repository:
 * worktrees only inside a git repository, else why not in the engine's words (made a sentence).
 */
export function isolationOffer(lookup: RepositoryLookup): IsolationOffer {
  switch (lookup.state) {
    case 'no_folder':
      return { worktree: false, note: "Give the agent's folder first: each task's worktree is made from the git repository it is in.", root: null };
    case 'looking':
      return { worktree: false, note: 'Looking for a git repository at that folder…', root: null };
    case 'failed':
      return { worktree: false, note: `Could not tell whether the folder is in a git repository (${lookup.message}).`, root: null };
    case 'found': {
      const found = lookup.repository;
      if (found.kind === 'not_a_repository') return { worktree: false, note: asSentence(found.why), root: null };
      const from = found.branch === null ? 'from the commit checked out there' : `from its branch ${found.branch}`;
      return { worktree: true, note: `In the git repository at ${found.root}: each task gets a branch of its own, ${from}.`, root: found.root };
    }
  }
}

/** The setup command the form shows for a repository the folder was found in, unless the user typed one. */
export function setupCommandShown(lookup: RepositoryLookup, typed: string, userTyped: boolean): string {
  if (userTyped || lookup.state !== 'found' || lookup.repository.kind !== 'repository') return typed;
  return lookup.repository.setup_command ?? '';
}

/**
 * The repository setup to save with the agent (`set_repository_setup`): only for an agent whose
 * tasks work in worktrees, in a repository the form found, and only when the command differs
 * from the repository's (blank: none). Null when there is nothing to save.
 */
export function setupToSave(isolation: Isolation, lookup: RepositoryLookup, typed: string): { repository: string; command: string | null } | null {
  if (isolation !== 'worktree' || lookup.state !== 'found' || lookup.repository.kind !== 'repository') return null;
  const command = typed.trim() === '' ? null : typed.trim();
  if (command === (lookup.repository.setup_command ?? null)) return null;
  return { repository: lookup.repository.root, command };
}
