/**
 * The bottom room of the window's state (see appState.svelte.ts for the whole): the link to the
 * engine and what every other room builds on. It holds the agent and session lists (folded from
 * the `list_*` replies and the engine's events by model.ts), the selection, whether the lists are
 * loaded, the window's focus, the pace at which the news of agents not on screen is applied,
 * and the event log's listeners. Each room above adds its lists to `applyNow`.
 */
import type { EngineEvent, EventPace, LogEntry, ProfileId, SessionId, SessionInfo, Viewing } from './bindings';
import type { Backend, Unsubscribe } from './backend';
import type { PageLink } from './engineLink';
import { logFailure } from './errors';
import { isRunning, sessionsOfProfile, applyEngineEvent, upsertSession, type Model, type Selection } from './model';
import { Pacer, eventPaceOf, pacedNews } from './pace';
import { Beat, type BeatPart } from './beat';

/** Follows the event log: each entry, with the agent it concerns. */
export type LogListener = (entry: LogEntry, profileId: ProfileId | null) => void;

export abstract class EngineLinkState {
  readonly backend: Backend;

  model: Model = $state.raw({ profiles: [], sessions: [] });
  #selection: Selection = $state.raw(null);
  /** What the main area shows; the shell and the engine are told (see `viewing`). */
  get selection(): Selection {
    return this.#selection;
  }
  set selection(selection: Selection) {
    // Every event applied asks again what to show; the same answer changes nothing (and must
    // not let the news held for the agents not shown through).
    if (selection === this.#selection) return;
    this.#selection = selection;
    this.tellViewing();
    // An agent just shown shows its latest news, not that of up to a pace ago.
    this.pacer.flush();
  }
  /** Whether the window has the focus (what the user looks at is then not notified). */
  focused = $state(typeof document !== 'undefined' && document.hasFocus());
  loading = $state(true);
  loadError: string | null = $state(null);
  /**
   * The window's link to its engine as last told (by the shell, or in a browser by the page's
   * connection); null until told. The banner across the window follows the link itself.
   */
  engineLink: PageLink | null = $state.raw(null);

  /**
   * What the window shows now, as the shell and the engine are told it (the top room knows:
   * it needs every room's lists).
   */
  abstract readonly viewing: Viewing;
  /**
   * The agents the main area shows: their status and attention news is applied as it comes; the
   * others' is held and applied at a pace (see `pace.ts`).
   */
  abstract readonly shownAgents: ReadonlySet<ProfileId>;

  /** The news of agents not on screen, applied together at the beat. */
  protected readonly pacer = new Pacer<EngineEvent>((events) => {
    for (const event of events) this.applyNow(event);
  });
  /**
   * The window's beat: what it shows of the agents not on screen (their held news, the
   * dashboard, the graph) changes at it, all at once. Views add their parts (`onBeat`).
   */
  protected readonly beat = new Beat(() => this.pacer.flush());
  protected readonly logListeners: LogListener[] = [];
  protected readonly unsubscribe: Unsubscribe[] = [];
  /** Settles once the lists are loaded (or failed to): what is asked from outside waits for it. */
  protected readonly loaded: Promise<void>;
  protected markLoaded: () => void = () => {};

  constructor(backend: Backend) {
    this.backend = backend;
    this.loaded = new Promise((resolve) => (this.markLoaded = resolve));
  }

  close(): void {
    this.beat.stop();
    for (const unsubscribe of this.unsubscribe.splice(0)) unsubscribe();
  }

  /** Adds a part to the window's beat (see `beat.ts`); the returned function takes it out. */
  onBeat(part: BeatPart): () => void {
    return this.beat.add(part);
  }

  /** Follow the event log as it grows: each entry, with the agent it concerns. */
  onLogged(listener: LogListener): () => void {
    this.logListeners.push(listener);
    return () => {
      const at = this.logListeners.indexOf(listener);
      if (at >= 0) this.logListeners.splice(at, 1);
    };
  }

  /** Asks for the link once; its changes come through `onEngineLink` (see `AppState.open`). */
  protected loadEngineLink(): void {
    this.backend.engineLink().then(
      (link) => {
        // A link heard meanwhile is newer.
        if (this.engineLink === null) this.engineLink = link;
      },
      // No link to tell of: the link stays unknown, which says nothing of it (the storage
      // banner or the lists' errors say what is wrong).
      () => {},
    );
  }

  #toldViewing = '';

  /** Tells the shell and the engine what the window shows, when that changed (App.svelte follows `viewing`). */
  tellViewing(): void {
    if (this.loading) return;
    const viewing = this.viewing;
    const key = JSON.stringify(viewing);
    if (key === this.#toldViewing) return;
    this.#toldViewing = key;
    this.backend.setViewing(viewing).catch(logFailure('set_viewing'));
  }

  /** Null until told: a window loaded again finds the shell at whatever pace it was left at. */
  #toldPace: EventPace | null = null;

  /** Tells the shell how soon the window wants events (`eventPaceOf`), at first and when that changed (App.svelte follows `shownAgents`). */
  tellEventPace(): void {
    const pace = eventPaceOf(this.shownAgents);
    if (pace === this.#toldPace) return;
    this.#toldPace = pace;
    this.backend.setEventPace(pace).catch(logFailure('set_event_pace'));
  }

  /** The window gained or lost the focus. */
  setFocused(focused: boolean): void {
    this.focused = focused;
    this.tellViewing();
  }

  sessionsOf(profileId: ProfileId): SessionInfo[] {
    return sessionsOfProfile(this.model.sessions, profileId);
  }

  /** An engine event: applied now when about an agent on screen (or no agent), else held for the beat. */
  protected apply(event: EngineEvent): void {
    const paced = pacedNews(event, this.model.sessions);
    if (paced === null) {
      // Nothing overtakes the news held before it.
      this.pacer.flush();
    } else if (!this.shownAgents.has(paced.profile)) {
      this.pacer.hold(paced.key, event);
      return;
    } else {
      this.pacer.drop(paced.key);
    }
    this.applyNow(event);
  }

  /**
   * Folds an engine event into the lists. Each room above folds it into its own lists after
   * this (calling `super.applyNow` first); the top room then repairs what is on screen.
   */
  protected applyNow(event: EngineEvent): void {
    const before = this.model;
    this.model = applyEngineEvent(this.model, event);
    // A view on an agent's session that ended follows the agent to its new one.
    this.selection = followNewSession(before, this.selection, event);
  }

  #relisting = false;

  /** Lists the sessions again (an event named one the window missed). */
  protected async relistSessions(): Promise<void> {
    if (this.#relisting) return;
    this.#relisting = true;
    try {
      for (const session of await this.backend.listSessions()) this.putSession(session);
    } catch (reason) {
      logFailure('list_sessions')(reason);
    } finally {
      this.#relisting = false;
    }
  }

  protected putSession(session: SessionInfo): void {
    this.model = { ...this.model, sessions: upsertSession(this.model.sessions, session) };
  }
}

/**
 * The selection once `event` is applied: a view on the latest session of an agent, ended,
 * follows that agent to a session that just started (a loop's fresh iteration, a restart), so
 * the window does not stay on a dead terminal. A view on a session still running, on an older
 * session the user went back to, or on anything else stays where it is.
 */
export function followNewSession(before: Model, selection: Selection, event: EngineEvent): Selection {
  if (event.type !== 'session_changed' || selection?.kind !== 'session') return selection;
  if (!isRunning(event.session)) {
    // The shown session ended after its successor had started (a restart's two events come in
    // either order): the successor is shown, as when it starts after the end.
    const ended = event.session;
    if (ended.id !== selection.id) return selection;
    const latest = sessionsOfProfile(before.sessions, ended.profile_id)[0];
    return latest !== undefined && latest.id !== ended.id && isRunning(latest) ? { kind: 'session', id: latest.id } : selection;
  }
  const started = event.session;
  if (before.sessions.some((s) => s.id === started.id)) return selection;
  const shown = before.sessions.find((s) => s.id === selection.id);
  if (shown === undefined || shown.profile_id !== started.profile_id || isRunning(shown)) return selection;
  const latest = sessionsOfProfile(before.sessions, started.profile_id)[0];
  return latest?.id === shown.id ? { kind: 'session', id: started.id } : selection;
}

/** The session an engine event is about, if it names one. */
export function sessionNamedBy(event: EngineEvent): SessionId | null {
  switch (event.type) {
    case 'signal_changed':
      return event.signal.session_id;
    case 'agent_status_changed':
      return event.status.session_id;
    case 'delegation_changed':
      return event.delegation.requester_session;
    default:
      return null;
  }
}
