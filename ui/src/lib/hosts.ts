/**
 * Other machines (engines reached over ssh): how each state looks (its words are the shell's), the
 * port as typed in the "Add a machine" form, and, for a window that shows several machines'
 * agents, where each agent runs, which machines a new agent can be made on, and the machine a
 * session's agent runs on. Pure.
 */
import type { EngineEvent, HostCondition, HostLink, SessionId, StorageProblem } from './bindings';
import type { Model } from './model';

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

/** How an agent of another machine says where it runs. */
export interface MachineLabel {
  /** Its words beside the agent: "on build-box", or "build-box · disconnected". */
  text: string;
  /** The part naming the machine ("on build-box", "build-box"): cut short first when room is short. */
  machine: string;
  /** What is wrong with the link, kept whole when the name is cut ("disconnected"); null when reached. */
  note: string | null;
  /** Its tooltip, a sentence. */
  title: string;
  /** Whether the window reaches that machine now (as far as it knows). */
  connected: boolean;
}

/**
 * The machine an agent runs on (`host`) when the window cannot reach it now, else null: for
 * this computer's agents (`host` null, absent or empty), for a machine whose link is
 * `connected`, and for one the window has no link for yet (its links are not in: as far as the
 * window knows, it is reached).
 */
export function disconnectedMachine(host: string | null | undefined, links: readonly HostLink[]): string | null {
  if (host === null || host === undefined || host === '') return null;
  const link = links.find((l) => l.destination === host)?.link;
  return link === undefined || link.state === 'connected' ? null : host;
}

/**
 * Where an agent runs, as its rows show it: null for this computer's (`host` null, absent or
 * empty; an engine never names its own machine). A machine whose link is anything but
 * `connected` is said to be disconnected; one the window has no link for (its links are not in
 * yet) is only named.
 */
export function machineLabel(host: string | null | undefined, links: readonly HostLink[]): MachineLabel | null {
  if (host === null || host === undefined || host === '') return null;
  if (disconnectedMachine(host, links) === null) {
    return { text: `on ${host}`, machine: `on ${host}`, note: null, title: `Runs on ${host}.`, connected: true };
  }
  return {
    text: `${host} · disconnected`,
    machine: host,
    note: 'disconnected',
    title: `Disconnected from ${host}; its agents go on working there.`,
    connected: false,
  };
}

/** The machine the window runs on, as a sentence names it. */
export const THIS_COMPUTER = 'this computer';

/**
 * A machine as a sentence names it: its destination, or "this computer" for none (`host` null,
 * absent or empty: an engine never names its own machine).
 */
export function machineName(host: string | null | undefined): string {
  return host || THIS_COMPUTER;
}

/** The value "this computer" has in a machine select (a select's values are text). */
export const THIS_MACHINE = '';

/** One option of the machine select of a new agent. */
export interface MachineChoice {
  /** The machine's destination, or `THIS_MACHINE`. */
  value: string;
  label: string;
  /** Offered no more: the machine chosen before its link dropped. */
  disabled: boolean;
}

/**
 * What a new agent can be made on: `here` (this computer, or the machine the window's own engine
 * runs on), then each other machine the window reaches now, in the order attached. A machine
 * chosen before its link dropped stays listed, marked and not offered, so the choice does not
 * change under the user.
 */
export function machineChoices(links: readonly HostLink[], chosen: string | null, here: string): MachineChoice[] {
  const choices: MachineChoice[] = [{ value: THIS_MACHINE, label: here, disabled: false }];
  for (const { destination, link } of links) {
    if (link.state === 'connected') choices.push({ value: destination, label: destination, disabled: false });
    else if (destination === chosen) choices.push({ value: destination, label: `${destination} · disconnected`, disabled: true });
  }
  return choices;
}

/** The machine a select's value names (null: this computer). */
export function chosenMachine(value: string): string | null {
  return value === THIS_MACHINE ? null : value;
}

/** The links once `link` is heard: its machine's replaced, or a machine just attached added last. */
export function upsertHostLink(links: readonly HostLink[], link: HostLink): HostLink[] {
  return links.some((l) => l.destination === link.destination) ? links.map((l) => (l.destination === link.destination ? link : l)) : [...links, link];
}

/**
 * The machine the agent of a session runs on (null: this computer, or a session or agent the
 * window does not know, which is then asked of this computer's engine).
 */
export function hostOfSession(model: Model, sessionId: SessionId): string | null {
  const session = model.sessions.find((s) => s.id === sessionId);
  const profile = session && model.profiles.find((p) => p.id === session.profile_id);
  // An engine never names its own machine; an empty name is none either.
  return profile?.host || null;
}

/** What the window does with an event of another machine's engine. */
export type HostEventUse =
  /** Shown with the rest: its agents, tasks, signals carry their own ids (and agents their machine). */
  | { use: 'apply'; event: EngineEvent }
  /** That machine cannot write its data: said as that machine's, never as this one's. */
  | { use: 'storage'; host: string; problem: StorageProblem | null }
  /** This machine's alone (the user's settings here): another machine's is not shown. */
  | { use: 'ignore' };

/** How an event from `host`'s engine is shown: as that machine's, never as this computer's. */
export function hostEventUse(event: EngineEvent, host: string): HostEventUse {
  switch (event.type) {
    case 'storage_changed':
      return { use: 'storage', host, problem: event.problem };
    // The browsers another machine's engine serves are that machine's to pair, never this one's.
    case 'web_changed':
    case 'devices_changed':
    case 'settings_changed':
      return { use: 'ignore' };
    default:
      return { use: 'apply', event };
  }
}

/** The machines that cannot write their data now, once `host` says how its data is. */
export function withHostStorage(
  problems: Readonly<Record<string, StorageProblem>>,
  host: string,
  problem: StorageProblem | null,
): Record<string, StorageProblem> {
  const next = { ...problems };
  if (problem === null) delete next[host];
  else next[host] = problem;
  return next;
}
