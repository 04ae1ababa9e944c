/**
 * The window's work in proportion to what it shows. An agent's hook-reported status and its
 * attention can change many times a second; for an agent the user is not looking at (not the
 * one selected, not a tile of the open grid, not the flows shown) that news is held and applied
 * at the window's beat (`beat.ts`), all of it at once, each thing's latest only. The sidebar and
 * the counts then redraw once a second rather than at the agents' pace, and the agent on screen
 * still follows every change as it comes.
 */
import type { EngineEvent, EventPace, ProfileId, SessionInfo } from './bindings';

/** What a paced event is the latest news of, and whose agent. */
export interface Paced {
  /** Two events with one key: the later tells all the earlier did. */
  key: string;
  profile: ProfileId;
}

/**
 * The news an event carries that may wait for the pace: an agent's status (by its session) or
 * its attention. Null for every other event (they are applied as they come), and for a status
 * of a session the window does not know (applied at once, so the window learns of it).
 */
export function pacedNews(event: EngineEvent, sessions: readonly Pick<SessionInfo, 'id' | 'profile_id'>[]): Paced | null {
  switch (event.type) {
    case 'agent_status_changed': {
      const profile = sessions.find((s) => s.id === event.status.session_id)?.profile_id;
      return profile === undefined ? null : { key: `status:${event.status.session_id}`, profile };
    }
    case 'attention_changed':
      return { key: `attention:${event.profile_id}`, profile: event.profile_id };
    default:
      return null;
  }
}

/**
 * Held news, applied together at the beat (`flush`). Each key keeps its latest event; `flush`
 * also applies everything held before an event that must not overtake it, and `drop` forgets a
 * key's held event when newer news of it was applied directly.
 */
export class Pacer<E> {
  #held = new Map<string, E>();
  readonly #apply: (events: E[]) => void;

  constructor(apply: (events: E[]) => void) {
    this.#apply = apply;
  }

  /** Keep `event` (the latest of `key`) for the next beat. */
  hold(key: string, event: E): void {
    this.#held.delete(key);
    this.#held.set(key, event);
  }

  /** Newer news of `key` was applied: what was held for it is stale. */
  drop(key: string): void {
    this.#held.delete(key);
  }

  /** Apply all that is held now, in the order it last came. */
  flush(): void {
    if (this.#held.size === 0) return;
    const events = [...this.#held.values()];
    this.#held.clear();
    this.#apply(events);
  }

  get holding(): number {
    return this.#held.size;
  }
}

/** What the user is looking at, for `shownAgents`. */
export interface OnScreen {
  /** The selected session or agent (null: the dashboard). */
  selection: { kind: 'session' | 'profile'; id: string } | null;
  sessions: readonly Pick<SessionInfo, 'id' | 'profile_id'>[];
  /** The agents of the open grid's tiles (empty when it is closed). */
  grid: readonly ProfileId[];
  /** The agent whose flows are open, if any. */
  flows: ProfileId | null;
}

/** The agents whose news is applied as it comes: those the main area shows. */
export function shownAgents(on: OnScreen): ReadonlySet<ProfileId> {
  const shown = new Set<ProfileId>(on.grid);
  if (on.flows !== null) shown.add(on.flows);
  if (on.selection?.kind === 'profile') shown.add(on.selection.id);
  if (on.selection?.kind === 'session') {
    const id = on.selection.id;
    const profile = on.sessions.find((s) => s.id === id)?.profile_id;
    if (profile !== undefined) shown.add(profile);
  }
  return shown;
}

/**
 * How soon the window wants the engines' events: within a frame while the main area shows an
 * agent live (its terminal, its flows, the grid), whose news is applied as it comes; a quarter
 * second while it shows none (the dashboard changes its agents at the beat, and a count or a
 * list a quarter second late is not seen). Each message wakes the web view, drawing or not.
 */
export function eventPaceOf(shown: ReadonlySet<ProfileId>): EventPace {
  return shown.size > 0 ? 'live' : 'calm';
}
