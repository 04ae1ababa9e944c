/**
 * Other machines (engines reached over ssh): how each state looks (its words are the shell's), and the
 * port as typed in the "Add a machine" form.
 */
import type { HostCondition } from './bindings';

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
