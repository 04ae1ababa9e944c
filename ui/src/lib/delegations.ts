/**
 * Delegated agents: folded from `list_delegations` and `delegation_changed` events, and said in
 * the user's words for the session they run in.
 */
import type { Delegation, EngineEvent, SessionId } from './bindings';

export function applyDelegationEvent(delegations: readonly Delegation[], event: EngineEvent): Delegation[] {
  if (event.type !== 'delegation_changed') return delegations as Delegation[];
  const incoming = event.delegation;
  return [...delegations.filter((d) => d.delegate_session !== incoming.delegate_session), incoming];
}

export function delegationOf(delegations: readonly Delegation[], sessionId: SessionId): Delegation | undefined {
  return delegations.find((d) => d.delegate_session === sessionId);
}

/** One line on what a delegated agent is for and what becomes of it; `requester` is an agent's name. */
export function delegationLine(delegation: Delegation, requester: string): string {
  const work = delegation.work.split('\n')[0]?.trim() || 'delegated work';
  const state = delegation.state;
  switch (state.state) {
    case 'working':
      // The engine flags a delegate that shows no life past its agent's quiet alert.
      if (delegation.quiet_since !== null) {
        return `Works for ${requester} on “${work}”, but has shown no sign of life for a while: it may be stuck (it ends, failed, at its time limit).`;
      }
      return delegation.keep
        ? `Works for ${requester} on “${work}”; it keeps running after it reports.`
        : `Works for ${requester} on “${work}”; it ends once it reports.`;
    case 'reported':
      return `Reported “${state.status}” to ${requester} on “${work}”.`;
    case 'failed':
      return `Ended before reporting to ${requester} on “${work}”: ${state.how}.`;
  }
}
