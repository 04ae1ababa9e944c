/**
 * The room of the window's state about agents and their sessions: what each agent is doing (its
 * status from its hooks, its attention, its account's usage and limits), the agent and session
 * on screen, starting, stopping, restarting and resuming sessions, and creating, saving and
 * deleting agents.
 */
import { SvelteSet } from 'svelte/reactivity';
import type {
  AccountLimit,
  AccountUsage,
  EngineEvent,
  Profile,
  ProfileId,
  ProfileSpec,
  RestartTask,
  Restarted,
  SessionId,
  SessionInfo,
  TermSize,
} from './bindings';
import { toApiError, userMessage } from './errors';
import { applyStatusEvent, type AgentStatusMap } from './agentStatus';
import { applyAttentionEvent, type AttentionMap } from './attention';
import { applyLimitEvent, applyUsageEvent } from './limits';
import { DEFAULT_TERM_SIZE, upsertProfile } from './model';
import { ScreenState } from './appScreen.svelte';

export abstract class AgentsState extends ScreenState {
  /** Each session's agent status, from its hooks. */
  agentStatus: AgentStatusMap = $state.raw({});
  /** Each agent's attention as its engine last told it, whether its machine is reached now or not. */
  protected heardAttention: AttentionMap = $state.raw({});
  /** The accounts at their usage limit: their agents, when each goes on, who goes on now. */
  limits: readonly AccountLimit[] = $state.raw([]);
  /** Each account's usage windows, as its agents' CLIs last told them (none told: not listed). */
  usage: readonly AccountUsage[] = $state.raw([]);
  /** The last start failure per agent, shown under it until the next attempt. */
  startErrors: Record<ProfileId, string> = $state.raw({});
  /** Agents with a start in flight. */
  readonly starting = new SvelteSet<ProfileId>();
  /**
   * The size the visible terminal last fitted to; new sessions start at it so the agent's
   * first screen needs no resize.
   */
  terminalSize: TermSize = DEFAULT_TERM_SIZE;
  /**
   * The size this window last gave each session's terminal. A session's recorded size is the
   * one it started with; once a grid's tile has fitted it smaller, the view that shows it next
   * must know, or it would take its own size for the session's and leave the tile's. Plain
   * (not state): nothing on screen shows it.
   */
  readonly sentSizes: Record<SessionId, TermSize> = {};

  selectedSession: SessionInfo | undefined = $derived.by(() => {
    const selection = this.selection;
    return selection?.kind === 'session' ? this.model.sessions.find((s) => s.id === selection.id) : undefined;
  });

  /** The agent of the selected session, or the selected agent. */
  selectedAgent: Profile | undefined = $derived.by(() => {
    const selection = this.selection;
    const id = selection?.kind === 'profile' ? selection.id : this.selectedSession?.profile_id;
    return id === undefined ? undefined : this.model.profiles.find((p) => p.id === id);
  });

  protected override applyNow(event: EngineEvent): void {
    super.applyNow(event);
    this.agentStatus = applyStatusEvent(this.agentStatus, event);
    this.heardAttention = applyAttentionEvent(this.heardAttention, event);
    this.limits = applyLimitEvent(this.limits, event);
    this.usage = applyUsageEvent(this.usage, event);
  }

  /** Show an agent: its most recent running session, else the agent itself. */
  revealAgent(profileId: ProfileId): void {
    const running = this.sessionsOf(profileId).find((session) => session.state === 'running');
    this.select(running ? { kind: 'session', id: running.id } : { kind: 'profile', id: profileId });
  }

  /**
   * Start a session of the agent and select it (unless `show` is false: the grid starts its
   * agents in their tiles); a failure is kept in `startErrors`.
   */
  async startAgent(profileId: ProfileId, { show = true }: { show?: boolean } = {}): Promise<void> {
    if (this.starting.has(profileId)) return;
    this.starting.add(profileId);
    this.#setStartError(profileId, null);
    try {
      const session = await this.backend.startSession(profileId, this.terminalSize);
      this.putSession(session);
      if (show) this.select({ kind: 'session', id: session.id });
    } catch (reason) {
      this.#setStartError(profileId, userMessage(toApiError(reason)));
    } finally {
      this.starting.delete(profileId);
    }
  }

  /** Stop a session; rejects with an ApiError. */
  async stopSession(sessionId: SessionId): Promise<void> {
    this.putSession(await this.backend.stopSession(sessionId));
  }

  /**
   * Restart a session and select the new one; a task at work there goes as `runningTask` says
   * (the engine refuses a restart without it while one runs). With "finish first" the session
   * restarts once its task ends, and the view follows it then. Rejects with an ApiError.
   */
  async restartSession(sessionId: SessionId, runningTask: RestartTask | null = null): Promise<Restarted> {
    const restarted = await this.backend.restartSession(sessionId, this.terminalSize, runningTask);
    if (restarted.restart === 'now') {
      this.putSession(restarted.session);
      this.select({ kind: 'session', id: restarted.session.id });
    }
    return restarted;
  }

  /** Start a session continuing an ended one's conversation, and select it. */
  async resumeSession(sessionId: SessionId): Promise<void> {
    const session = await this.backend.resumeSession(sessionId, this.terminalSize);
    this.putSession(session);
    this.select({ kind: 'session', id: session.id });
  }

  /**
   * Create an agent on `host` (null: this computer; nothing is started) and select it; rejects
   * with an ApiError.
   */
  async createAgent(spec: ProfileSpec, host: string | null = null): Promise<Profile> {
    return this.#saved(await this.backend.machine(host).createProfile(spec));
  }

  /**
   * Save the form: update the agent being edited, or create a new one on `host` (null: this
   * computer; an edited agent stays on its own machine), and first the setup command of its
   * repository, on the same machine, when the form changed it. Changes apply to the next
   * session; running ones keep going as they started. Rejects with an ApiError.
   */
  async saveAgent(spec: ProfileSpec, setup: { repository: string; command: string | null } | null = null, host: string | null = null): Promise<Profile> {
    const editing = this.editing;
    const engine = this.backend.machine(editing === null ? host : (editing.host ?? null));
    // The repository's setup command (shared by every agent working there) goes with the agent that sets it.
    if (setup !== null) await engine.setRepositorySetup(setup.repository, setup.command);
    if (editing === null) return this.#saved(await engine.createProfile(spec));
    return this.#saved(await engine.updateProfile(editing.id, spec));
  }

  /**
   * Delete an agent and its session history. The engine refuses while one of its sessions
   * runs (`profile_busy`). Rejects with an ApiError.
   */
  async deleteAgent(profileId: ProfileId): Promise<void> {
    await this.backend.deleteProfile(profileId);
    this.apply({ type: 'profile_deleted', profile_id: profileId });
  }

  #saved(profile: Profile): Profile {
    this.model = { ...this.model, profiles: upsertProfile(this.model.profiles, profile) };
    this.select({ kind: 'profile', id: profile.id });
    this.editing = null;
    return profile;
  }

  #setStartError(profileId: ProfileId, message: string | null): void {
    const next = { ...this.startErrors };
    if (message === null) delete next[profileId];
    else next[profileId] = message;
    this.startErrors = next;
  }
}
