/**
 * `ApiError`, the one error shape of the backend contract: `{code, message, field}`, and for an
 * invalid profile `problems`, every problem with its field (`field` is then the first one's).
 * Code branches on `code` and `field`; `message` is only ever shown to people.
 */
import type { ApiError, ErrorCode, ProfileField, ProfileProblem } from './bindings';

// A record rather than a list, so a code added on the Rust side fails the type check here
// until it is listed (an unlisted code would turn into `internal`).
const KNOWN_CODES: Record<ErrorCode, true> = {
  invalid_input: true,
  invalid_profile: true,
  command_not_found: true,
  directory_missing: true,
  duplicate_name: true,
  profile_not_found: true,
  session_not_found: true,
  session_not_running: true,
  profile_busy: true,
  spawn_failed: true,
  task_not_found: true,
  task_state: true,
  signal_not_found: true,
  signal_state: true,
  too_many_agents: true,
  already_running: true,
  loop_busy: true,
  storage: true,
  disk_full: true,
  permission_denied: true,
  not_found: true,
  io: true,
  not_allowed: true,
  engine_stopped: true,
  worktree_not_found: true,
  git: true,
  nothing_to_resume: true,
  internal: true,
};
const ERROR_CODES: ReadonlySet<string> = new Set(Object.keys(KNOWN_CODES));

export function apiError(code: ErrorCode, message: string, field: string | null = null): ApiError {
  return { code, message, field };
}

export function isApiError(value: unknown): value is ApiError {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v.code === 'string' &&
    ERROR_CODES.has(v.code) &&
    typeof v.message === 'string' &&
    (v.field === null || v.field === undefined || typeof v.field === 'string') &&
    (v.problems === undefined || (Array.isArray(v.problems) && v.problems.every(isProblem)))
  );
}

// As generated from the engine's `ProfileField` (a record, so a field added there fails here).
const PROFILE_FIELDS: Record<ProfileField, true> = {
  name: true,
  command: true,
  args: true,
  env: true,
  cwd: true,
  kind: true,
  ready_pattern: true,
  ready_quiet_ms: true,
  task_time_limit_secs: true,
  quiet_alert_secs: true,
  isolation: true,
  account: true,
  daily_budget: true,
};

function isProblem(value: unknown): value is ProfileProblem {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return typeof v.field === 'string' && v.field in PROFILE_FIELDS && typeof v.message === 'string';
}

/**
 * Whatever a rejection carried, as an `ApiError`. The Rust commands reject with one already;
 * Tauri itself rejects with a plain string (unknown command, bad arguments, missing
 * permission), and those become `internal` errors carrying the string as message. An object
 * with an error code this build does not know (a newer engine) also becomes `internal`, with
 * its message kept.
 */
export function toApiError(reason: unknown): ApiError {
  if (isApiError(reason)) {
    const error: ApiError = { code: reason.code, message: reason.message, field: reason.field ?? null };
    if (reason.problems !== undefined) error.problems = reason.problems;
    return error;
  }
  if (typeof reason === 'string') return apiError('internal', reason);
  if (reason instanceof Error) return apiError('internal', reason.message);
  if (typeof reason === 'object' && reason !== null && typeof (reason as { message?: unknown }).message === 'string') {
    return apiError('internal', (reason as { message: string }).message);
  }
  return apiError('internal', `unexpected error: ${String(reason)}`);
}

/**
 * What to tell the user of an error: the engine's message, put in words for the failures a
 * user can act on (a full disk, a file the app may not use or that is gone).
 */
export function userMessage(error: ApiError): string {
  switch (error.code) {
    case 'disk_full':
      return 'The disk is full. Free some space, then try again.';
    case 'permission_denied':
      return `Switchboard is not allowed to use a file it needs (${error.message}).`;
    case 'not_found':
      return `A file Switchboard needs is gone (${error.message}).`;
    case 'invalid_input': {
      // The engine names the field first ("title: a title is one line"); the window says why.
      const prefix = error.field === null ? null : `${error.field}: `;
      const reason = prefix !== null && error.message.startsWith(prefix) ? error.message.slice(prefix.length) : error.message;
      // "its agent is still at work in it (task <id>): …": the window says why, not the id.
      return asSentence(reason.replace(/ \(task [0-9a-f-]{8,}\)/g, ''));
    }
    case 'nothing_to_resume':
      // "<agent> is not waiting for …: there is nothing to resume": the agent's name as it is written.
      return /[.!?…]$/.test(error.message) ? error.message : `${error.message}.`;
    case 'worktree_not_found':
      return 'Switchboard has no worktree for this task: it was never made, or its record is gone.';
    case 'git':
      // git's own words follow, as the engine relays them ("git merge failed: …").
      return `Git could not do it (${error.message}).`;
    case 'task_state': {
      // "task <id> is running: it was already typed into its agent": the window says why, not the id.
      const reason = /^task \S+ is [a-z_]+: (.+)$/s.exec(error.message)?.[1];
      return reason === undefined ? error.message : asSentence(reason);
    }
    default:
      return error.message;
  }
}

/**
 * A reason as a sentence: capitalised, ending in a full stop. A first word with a digit in it is
 * a name (a model's, `claude-opus-5-5`) and stays as it is written.
 */
export function asSentence(reason: string): string {
  const text = reason.trim();
  if (text === '') return text;
  const capital = /^\S*\d/.test(text) ? text : text[0].toUpperCase() + text.slice(1);
  return /[.!?…]$/.test(capital) ? capital : `${capital}.`;
}

/** Log a failure that has no place in the UI (a best-effort call), without dropping it silently. */
export function logFailure(what: string): (reason: unknown) => void {
  return (reason) => console.warn(`${what} failed:`, toApiError(reason));
}
