/**
 * The room of the window's state about what agents ask of the user: their signals (folded by
 * signals.ts), the floods of them, delegated agents, and permission requests; and the answers.
 */
import type { Delegation, EngineEvent, PermissionRequest, SessionId, SignalId, SignalInfo, SignalResponse } from './bindings';
import { toApiError, userMessage } from './errors';
import { applyPermissionEvent } from './permissions';
import { applyDelegationEvent } from './delegations';
import { applyFloodEvent, applySignalEvent, floodingAgents, pendingSignals, upsertSignal, type Floods } from './signals';
import { TasksState } from './appTasks.svelte';

export abstract class SignalsState extends TasksState {
  /** Signals agents raised: every pending one and the recently settled ones, in no order. */
  signals: SignalInfo[] = $state.raw([]);
  /** The initial signal list could not be loaded (the rest of the app works without it). */
  signalLoadError: string | null = $state(null);
  /** Sessions that reached the limit of signals waiting at once. */
  floods: Floods = $state.raw({});
  /** Delegated agents: at work, reported or ended, in no order. */
  delegations: Delegation[] = $state.raw([]);
  /** Permission requests agents wait on, oldest first. */
  permissions: PermissionRequest[] = $state.raw([]);

  /** The signals waiting for the user, oldest first. */
  pendingSignals: SignalInfo[] = $derived(pendingSignals(this.signals));
  /** Agents whose new signals are set aside until the user answers some. */
  flooding = $derived(floodingAgents(this.floods, this.signals));

  shownSignal: SignalInfo | undefined = $derived.by(() => {
    const id = this.shownSignalId;
    return id === null ? undefined : this.signals.find((s) => s.id === id);
  });

  protected override applyNow(event: EngineEvent): void {
    super.applyNow(event);
    this.signals = applySignalEvent(this.signals, event);
    this.floods = applyFloodEvent(this.floods, event);
    this.permissions = applyPermissionEvent(this.permissions, event);
    this.delegations = applyDelegationEvent(this.delegations, event);
  }

  /** Lists the signals; without them nothing asks for the user, but the agents still run. */
  protected loadSignalList(): Promise<SignalInfo[]> {
    return this.backend.listSignals().catch((reason: unknown) => {
      this.signalLoadError = userMessage(toApiError(reason));
      return [] as SignalInfo[];
    });
  }

  /**
   * Answer, decide or dismiss a signal; resolves with the settled record, rejects with an
   * ApiError. The dialog stays open on it, to show what was sent.
   */
  async respondToSignal(signalId: SignalId, response: SignalResponse): Promise<SignalInfo> {
    const settled = await this.backend.respondToSignal(signalId, response);
    this.signals = upsertSignal(this.signals, settled);
    return settled;
  }

  /** Keep a delegated agent running after it reports, or let it end then; rejects with an ApiError. */
  async keepDelegate(sessionId: SessionId, keep: boolean): Promise<void> {
    const kept = await this.backend.keepDelegate(sessionId, keep);
    this.delegations = applyDelegationEvent(this.delegations, { type: 'delegation_changed', delegation: kept });
  }

  /**
   * Answer an agent's permission request; rejects with an ApiError. A request's number is its
   * machine's own: the answer goes to the machine of the agent whose session asked.
   */
  async decidePermission(request: PermissionRequest, allow: boolean, message: string | null): Promise<void> {
    // The machine that asked, as the window named it: never guessed from a session it may not know.
    await this.backend.machine(request.host ?? null).decidePermission(request.id, allow, message);
    this.permissions = this.permissions.filter((p) => p.id !== request.id || p.session_id !== request.session_id);
  }
}
