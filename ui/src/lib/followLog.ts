/**
 * Which engine events reach a page that follows (or not) the event log. Pure.
 */
import type { EngineEvent, FollowedLog } from './bindings';

/**
 * Whether the page is handed `event`: every event but the log's entries, which only while a view
 * follows them (`followed`) and only those about its agent or about no agent in particular.
 * The same rule as `forwarded` in `crates/switchboard-client/src/events.rs`, which decides it for
 * the desktop window (the shell filters there; a browser filters here, as it hears every event).
 */
export function forwarded(followed: FollowedLog | null, event: EngineEvent): boolean {
  if (event.type !== 'logged') return true;
  if (followed === null) return false;
  if (followed.of === 'everything' || event.profile_id === null) return true;
  return followed.profile_id === event.profile_id;
}
