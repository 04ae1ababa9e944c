/**
 * `ApiError`, the one error shape of the backend contract: `{code, message, field}`.
 * Code branches on `code` and `field`; `message` is only ever shown to people.
 */
import type { ApiError, ErrorCode } from './bindings';

const ERROR_CODES: ReadonlySet<string> = new Set<ErrorCode>([
  'invalid_input',
  'command_not_found',
  'directory_missing',
  'duplicate_name',
  'profile_not_found',
  'session_not_found',
  'session_not_running',
  'profile_busy',
  'spawn_failed',
  'storage',
  'engine_stopped',
  'internal',
]);

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
    (v.field === null || v.field === undefined || typeof v.field === 'string')
  );
}

/**
 * Whatever a rejection carried, as an `ApiError`. The Rust commands reject with one already;
 * Tauri itself rejects with a plain string (unknown command, bad arguments, missing
 * permission), and those become `internal` errors carrying the string as message. An object
 * with an error code this build does not know (a newer engine) also becomes `internal`, with
 * its message kept.
 */
export function toApiError(reason: unknown): ApiError {
  if (isApiError(reason)) return { code: reason.code, message: reason.message, field: reason.field ?? null };
  if (typeof reason === 'string') return apiError('internal', reason);
  if (reason instanceof Error) return apiError('internal', reason.message);
  if (typeof reason === 'object' && reason !== null && typeof (reason as { message?: unknown }).message === 'string') {
    return apiError('internal', (reason as { message: string }).message);
  }
  return apiError('internal', `unexpected error: ${String(reason)}`);
}

/** Log a failure that has no place in the UI (a best-effort call), without dropping it silently. */
export function logFailure(what: string): (reason: unknown) => void {
  return (reason) => console.warn(`${what} failed:`, toApiError(reason));
}
