/**
 * The app's state and the user actions on it. One instance per window, shared with the
 * components through context. It owns the profile and session lists (folded from the initial
 * `list_*` replies and then from `engine-event`s, by the pure functions in model.ts), the
 * selection, and the per-profile start errors.
 */
import { SvelteSet } from 'svelte/reactivity';
import type { EngineEvent, Profile, ProfileId, ProfileSpec, SessionId, SessionInfo, TermSize } from './bindings';
import type { Backend, Unsubscribe } from './backend';
import { toApiError } from './errors';
import {
  DEFAULT_TERM_SIZE,
  applyEngineEvent,
  initialSelection,
  isRunning,
  mergeInitial,
  repairSelection,
  sessionsOfProfile,
  upsertProfile,
  upsertSession,
  type Model,
  type Selection,
} from './model';

export class AppState {
  readonly backend: Backend;

  model: Model = $state.raw({ profiles: [], sessions: [] });
  selection: Selection = $state.raw(null);
  formOpen = $state(false);
  /** The profile the form edits; null while it creates a new one. */
  editing: Profile | null = $state.raw(null);
  loading = $state(true);
  loadError: string | null = $state(null);
  /** The last start failure per profile, shown under it until the next attempt. */
  startErrors: Record<ProfileId, string> = $state.raw({});
  /** Profiles with a start in flight. */
  readonly starting = new SvelteSet<ProfileId>();
  /**
   * The size the visible terminal last fitted to; new sessions start at it so the agent's
   * first screen needs no resize.
   */
  terminalSize: TermSize = DEFAULT_TERM_SIZE;

  selectedSession: SessionInfo | undefined = $derived.by(() => {
    const selection = this.selection;
    return selection?.kind === 'session' ? this.model.sessions.find((s) => s.id === selection.id) : undefined;
  });

  /** The profile of the selected session, or the selected profile. */
  selectedProfile: Profile | undefined = $derived.by(() => {
    const selection = this.selection;
    const id = selection?.kind === 'profile' ? selection.id : this.selectedSession?.profile_id;
    return id === undefined ? undefined : this.model.profiles.find((p) => p.id === id);
  });

  #unsubscribe: Unsubscribe | null = null;

  constructor(backend: Backend) {
    this.backend = backend;
  }

  /**
   * Subscribe to engine events, load the lists, and select what the window opens on.
   * Events that arrive while the lists load are buffered and applied after them.
   */
  async open(): Promise<void> {
    const buffered: EngineEvent[] = [];
    let loaded = false;
    this.#unsubscribe = this.backend.onEngineEvent((event) => {
      if (loaded) this.#apply(event);
      else buffered.push(event);
    });
    try {
      const [profiles, sessions] = await Promise.all([this.backend.listProfiles(), this.backend.listSessions()]);
      this.model = mergeInitial({ profiles, sessions }, buffered);
      if (this.selection === null) this.selection = initialSelection(this.model);
    } catch (reason) {
      this.loadError = toApiError(reason).message;
      this.model = mergeInitial({ profiles: [], sessions: [] }, buffered);
    } finally {
      loaded = true;
      this.loading = false;
    }
  }

  close(): void {
    this.#unsubscribe?.();
    this.#unsubscribe = null;
  }

  sessionsOf(profileId: ProfileId): SessionInfo[] {
    return sessionsOfProfile(this.model.sessions, profileId);
  }

  select(selection: Selection): void {
    this.selection = selection;
    this.formOpen = false;
  }

  /** Open the agent form: empty to create, or filled in to edit `profile`. */
  openForm(profile: Profile | null = null): void {
    this.editing = profile;
    this.formOpen = true;
  }

  closeForm(): void {
    this.formOpen = false;
    this.editing = null;
  }

  /** Start a session of the profile and select it; a failure is kept in `startErrors`. */
  async startProfile(profileId: ProfileId): Promise<void> {
    if (this.starting.has(profileId)) return;
    this.starting.add(profileId);
    this.#setStartError(profileId, null);
    try {
      const session = await this.backend.startSession(profileId, this.terminalSize);
      this.#putSession(session);
      this.select({ kind: 'session', id: session.id });
    } catch (reason) {
      this.#setStartError(profileId, toApiError(reason).message);
    } finally {
      this.starting.delete(profileId);
    }
  }

  /** Stop a session; rejects with an ApiError. */
  async stopSession(sessionId: SessionId): Promise<void> {
    this.#putSession(await this.backend.stopSession(sessionId));
  }

  /** Restart a session and select the new one; rejects with an ApiError. */
  async restartSession(sessionId: SessionId): Promise<void> {
    const session = await this.backend.restartSession(sessionId, this.terminalSize);
    this.#putSession(session);
    this.select({ kind: 'session', id: session.id });
  }

  /** Create a profile (nothing is started) and select it; rejects with an ApiError. */
  async createProfile(spec: ProfileSpec): Promise<Profile> {
    return this.#saved(await this.backend.createProfile(spec));
  }

  /**
   * Save the form: update the profile being edited, or create a new one. Changes apply to the
   * next session; running ones keep going as they started. Rejects with an ApiError.
   */
  async saveProfile(spec: ProfileSpec): Promise<Profile> {
    const editing = this.editing;
    if (editing === null) return this.createProfile(spec);
    return this.#saved(await this.backend.updateProfile(editing.id, spec));
  }

  /**
   * Delete a profile and its session history. The engine refuses while one of its sessions
   * runs (`profile_busy`). Rejects with an ApiError.
   */
  async deleteProfile(profileId: ProfileId): Promise<void> {
    await this.backend.deleteProfile(profileId);
    this.#apply({ type: 'profile_deleted', profile_id: profileId });
  }

  #saved(profile: Profile): Profile {
    this.model = { ...this.model, profiles: upsertProfile(this.model.profiles, profile) };
    this.select({ kind: 'profile', id: profile.id });
    this.editing = null;
    return profile;
  }

  #apply(event: EngineEvent): void {
    this.model = applyEngineEvent(this.model, event);
    this.selection = repairSelection(this.model, this.selection);
    // A window that had nothing to show follows the first agent that comes to life.
    if (this.selection === null && event.type === 'session_changed' && isRunning(event.session)) {
      this.selection = { kind: 'session', id: event.session.id };
    }
  }

  #putSession(session: SessionInfo): void {
    this.model = { ...this.model, sessions: upsertSession(this.model.sessions, session) };
  }

  #setStartError(profileId: ProfileId, message: string | null): void {
    const next = { ...this.startErrors };
    if (message === null) delete next[profileId];
    else next[profileId] = message;
    this.startErrors = next;
  }
}
