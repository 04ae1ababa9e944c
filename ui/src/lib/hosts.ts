/**
 * Other machines (engines reached over ssh) in the user's words: what state each is in, and the
 * port as typed in the "Add a machine" form.
 */
import type { HostCondition, HostState } from './bindings';

/** What each state means when the shell gave no sentence of its own. */
const CONDITION_WORDS: Record<HostCondition, string> = {
  connected: 'connected',
  unknown_host_key: 'Its key is not known yet.',
  changed_host_key: 'Its key has changed since it was trusted.',
  sign_in: 'ssh could not sign in there without asking.',
  unreachable: 'It cannot be reached.',
  not_installed: 'Switchboard is not installed there.',
  incompatible: 'Its Switchboard cannot work with this one.',
  failed: 'Checking it failed.',
};

/**
 * A machine's state in words: "connected, Switchboard 0.1.0, 2 agents running" when its engine
 * answers, else what stands in the way (the shell's sentence, as it is).
 */
export function hostStateText(host: HostState): string {
  if (host.state !== 'connected') return host.problem ?? CONDITION_WORDS[host.state];
  const parts = ['connected'];
  if (host.version) parts.push(`Switchboard ${host.version}`);
  if (host.agents_running !== null) parts.push(agentsText(host.agents_running));
  return parts.join(', ');
}

function agentsText(count: number): string {
  if (count === 0) return 'no agents running';
  return count === 1 ? '1 agent running' : `${count} agents running`;
}

/** How a state looks: fine, asks something of the user, or in the way. */
export function hostTone(state: HostCondition): 'ok' | 'ask' | 'bad' {
  if (state === 'connected') return 'ok';
  if (state === 'unknown_host_key' || state === 'sign_in') return 'ask';
  return 'bad';
}

/** The port as typed: null when empty (ssh's own, or the ssh config's), undefined when it is not one. */
export function parsePort(text: string): number | null | undefined {
  const trimmed = text.trim();
  if (trimmed === '') return null;
  if (!/^\d+$/.test(trimmed)) return undefined;
  const port = Number(trimmed);
  return port >= 1 && port <= 65535 ? port : undefined;
}
