/**
 * Agents' permission requests waiting for the user: folded from `list_permission_requests` and
 * the `permission_requested` / `permission_closed` events (closed means answered, or expired
 * and left to the agent's own prompt).
 */
import type { EngineEvent, PermissionRequest } from './bindings';

export function applyPermissionEvent(pending: readonly PermissionRequest[], event: EngineEvent): PermissionRequest[] {
  switch (event.type) {
    // A request's number is its machine's own: with its session it names one request whichever
    // machine asked.
    case 'permission_requested':
      return [...pending.filter((p) => p.id !== event.request.id || p.session_id !== event.request.session_id), event.request];
    case 'permission_closed':
      return pending.filter((p) => p.id !== event.request_id || p.session_id !== event.session_id);
    default:
      return pending as PermissionRequest[];
  }
}

/** What the agent wants to do, as one line of text (the input is agent-chosen: text only). */
export function permissionSummary(request: PermissionRequest): string {
  const input = request.tool_input;
  const command = input !== null && typeof input === 'object' && !Array.isArray(input) ? input['command'] : undefined;
  const detail = typeof command === 'string' ? command : JSON.stringify(input);
  return `${request.tool_name}: ${detail}`;
}

/** Whole seconds left before the agent's own prompt takes over. */
export function secondsLeft(request: PermissionRequest, now: number): number {
  return Math.max(0, Math.ceil((request.expires_at - now) / 1000));
}
