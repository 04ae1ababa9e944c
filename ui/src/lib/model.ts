/**
 * Pure decisions over profiles and sessions: how events fold into the lists, what the
 * sidebar shows in which order, what the window opens on. No Svelte, no backend.
 */
import type { EngineEvent, Profile, ProfileId, SessionId, SessionInfo, TermSize } from './bindings';

export interface Model {
  profiles: Profile[];
  sessions: SessionInfo[];
}

export type RunningSession = Extract<SessionInfo, { state: 'running' }>;
export type EndedSession = Exclude<SessionInfo, { state: 'running' }>;

/** The size a session starts with before any terminal has been measured. */
export const DEFAULT_TERM_SIZE: TermSize = { rows: 24, cols: 80 };

/** How many sessions the sidebar lists per profile before collapsing the older ones. */
export const RECENT_SESSIONS_SHOWN = 5;

export function isRunning(session: SessionInfo): session is RunningSession {
  return session.state === 'running';
}

export function sameSize(a: TermSize, b: TermSize): boolean {
  return a.rows === b.rows && a.cols === b.cols;
}

export function upsertProfile(profiles: readonly Profile[], profile: Profile): Profile[] {
  const index = profiles.findIndex((p) => p.id === profile.id);
  if (index === -1) return [...profiles, profile];
  const next = [...profiles];
  next[index] = profile;
  return next;
}

export function removeProfile(profiles: readonly Profile[], profileId: ProfileId): Profile[] {
  return profiles.filter((p) => p.id !== profileId);
}

/**
 * Put `incoming` into the list, replacing the entry with its id.
 *
 * A session's state only moves forward (running, then one ended state, for good), so an
 * incoming `running` never replaces an ended entry: it is a stale copy, e.g. from a
 * `list_sessions` reply that was computed before an exit event we already applied.
 */
export function upsertSession(sessions: readonly SessionInfo[], incoming: SessionInfo): SessionInfo[] {
  const index = sessions.findIndex((s) => s.id === incoming.id);
  if (index === -1) return [...sessions, incoming];
  const current = sessions[index];
  if (!isRunning(current) && isRunning(incoming)) return [...sessions];
  const next = [...sessions];
  next[index] = incoming;
  return next;
}

/** Fold one engine event into the model. Unknown event types (a newer engine) are ignored. */
export function applyEngineEvent(model: Model, event: EngineEvent): Model {
  switch (event.type) {
    case 'profile_saved':
      return { ...model, profiles: upsertProfile(model.profiles, event.profile) };
    case 'profile_deleted':
      // The engine deletes a profile's sessions with it (their history stays in its log).
      return {
        profiles: removeProfile(model.profiles, event.profile_id),
        sessions: model.sessions.filter((s) => s.profile_id !== event.profile_id),
      };
    case 'session_changed':
      return { ...model, sessions: upsertSession(model.sessions, event.session) };
    default:
      return model;
  }
}

/**
 * Merge the initial `list_*` replies with events that arrived while they were in flight.
 * The events are applied after the lists, in arrival order: each one is at least as new as
 * the state the lists were computed from, or already contained in it (and then idempotent).
 */
export function mergeInitial(lists: Model, bufferedEvents: readonly EngineEvent[]): Model {
  let model: Model = { profiles: [], sessions: [] };
  for (const profile of lists.profiles) model.profiles = upsertProfile(model.profiles, profile);
  for (const session of lists.sessions) model.sessions = upsertSession(model.sessions, session);
  for (const event of bufferedEvents) model = applyEngineEvent(model, event);
  return model;
}

/**
 * Newest first: by `started_at`, ties broken by list position (the engine lists oldest
 * first and appends new sessions, so a later position is newer).
 */
export function newestFirst(sessions: readonly SessionInfo[]): SessionInfo[] {
  return sessions
    .map((session, position) => ({ session, position }))
    .sort((a, b) => b.session.started_at - a.session.started_at || b.position - a.position)
    .map(({ session }) => session);
}

export function sessionsOfProfile(sessions: readonly SessionInfo[], profileId: ProfileId): SessionInfo[] {
  return newestFirst(sessions.filter((s) => s.profile_id === profileId));
}

/**
 * The session shown for an agent: the one the engine names as its current session (its queue's
 * `current_session`: its task at work's, else its newest running one), when the window knows it
 * running; none when the engine says none runs. Only an engine that does not name one (an older
 * one on another machine) leaves it to the newest running session here.
 */
export function currentSessionOf(sessions: readonly SessionInfo[], profileId: ProfileId, named: SessionId | null | undefined): SessionInfo | undefined {
  const own = sessionsOfProfile(sessions, profileId).filter(isRunning);
  if (named === null) return undefined;
  if (named === undefined) return own[0];
  // Its start may not have reached the window yet: the newest running one meanwhile.
  return own.find((s) => s.id === named) ?? own[0];
}

export type Selection =
  | { kind: 'session'; id: SessionId }
  | { kind: 'profile'; id: ProfileId }
  | null;

/**
 * What the window opens on: the most recent running session (the demo agent is started on
 * launch, so this is usually a live terminal), else the most recent session, else the first
 * profile. Sessions whose profile is gone are skipped: the sidebar cannot show them.
 */
export function initialSelection(model: Model): Selection {
  const known = new Set(model.profiles.map((p) => p.id));
  const candidates = newestFirst(model.sessions.filter((s) => known.has(s.profile_id)));
  const pick = candidates.find(isRunning) ?? candidates[0];
  if (pick) return { kind: 'session', id: pick.id };
  const first = model.profiles[0];
  return first ? { kind: 'profile', id: first.id } : null;
}

/**
 * The selection still valid after the model changed: kept while what it names exists, else
 * what the window would open on (e.g. after the selected agent was deleted).
 */
export function repairSelection(model: Model, selection: Selection): Selection {
  if (selection === null) return null;
  const exists =
    selection.kind === 'profile'
      ? model.profiles.some((p) => p.id === selection.id)
      : model.sessions.some((s) => s.id === selection.id);
  return exists ? selection : initialSelection(model);
}

/** The project folder an agent works in, by its name (the full path is in the detail). */
export function folderName(path: string): string {
  const parts = path.split('/').filter((p) => p !== '');
  return parts.at(-1) ?? path;
}

/** A session's state in a word or two, for its badge (the process id is in the detail). */
export function stateLabel(session: SessionInfo, reached = true): string {
  switch (session.state) {
    case 'running':
      // Its machine disconnected: running is what was last heard, not what is known now.
      return reached ? 'running' : 'last seen running';
    case 'exited':
      if (session.signal) return `ended (${session.signal})`;
      return session.exit_code === 0 ? 'exited' : `exited, code ${session.exit_code}`;
    case 'killed':
      return 'stopped';
    case 'interrupted':
      return 'interrupted';
  }
}

/** A session's state in a sentence, with the details a badge leaves out. */
export function stateDetail(session: SessionInfo, reached = true): string {
  switch (session.state) {
    case 'running':
      return reached
        ? `Running as process ${session.pid}.`
        : 'Its machine is disconnected: it was running when last heard from, and may have ended since.';
    case 'exited':
      if (session.signal) return `The agent ended on signal ${session.signal}.`;
      return session.exit_code === 0 ? 'The agent exited.' : `The agent exited with code ${session.exit_code}.`;
    case 'killed':
      return 'Stopped by you, by the app when it quit, or when its work was done.';
    case 'interrupted':
      return 'The app stopped while it ran.';
  }
}

/** The engine's timestamps (`started_at`, `ended_at`) are Unix milliseconds. */
export function toDate(timestamp: number): Date {
  return new Date(timestamp);
}

const formats = new Map<string, Intl.DateTimeFormat>();

/**
 * `date` in the words `toLocaleString(undefined, options)` gives, from a formatter built once for
 * those options. Building one (as each `toLocale…String` call with options does) costs far more
 * than using it, and the window says times at every change of every agent.
 */
export function localeWords(date: Date, options: Intl.DateTimeFormatOptions): string {
  const key = JSON.stringify(options);
  let format = formats.get(key);
  if (format === undefined) {
    format = new Intl.DateTimeFormat(undefined, options);
    formats.set(key, format);
  }
  return format.format(date);
}

/** `HH:MM` today, `Mon D, HH:MM` on other days, in the local time zone of `now`. */
export function formatTime(timestamp: number, now: Date): string {
  const date = toDate(timestamp);
  const time = localeWords(date, { hour: '2-digit', minute: '2-digit' });
  if (date.toDateString() === now.toDateString()) return time;
  const day = localeWords(date, { month: 'short', day: 'numeric' });
  return `${day}, ${time}`;
}

const DAY_MS = 24 * 3600 * 1000;

/**
 * A time to come (a reset, a retry), as the user says it: "14:05" today, "Mon 09:00" within the
 * week ahead, else as `formatTime` does. Every time to come in the window is said this way.
 */
export function resetWords(at: number, now: number): string {
  const date = new Date(at);
  const today = new Date(now);
  if (date.toDateString() === today.toDateString() || at < now || at - now >= 6 * DAY_MS) return formatTime(at, today);
  return `${localeWords(date, { weekday: 'short' })} ${localeWords(date, { hour: '2-digit', minute: '2-digit' })}`;
}

/** A count and its word, as said: "1 event", "3 events". */
export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}
