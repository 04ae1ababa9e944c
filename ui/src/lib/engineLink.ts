/**
 * The window's link to the engine in words: what the banner across the window says while the
 * engine cannot be reached or is another build, and when the window loads everything again.
 * Pure; the shell decides the link's state.
 */
import type { BackendKind } from './backend';
import type { EngineLink, HostLink, Profile, SessionInfo } from './bindings';

/**
 * The link as a page hears of it: the window's `EngineLink`, or, in a browser, refused because
 * the browser's pairing no longer holds (revoked, its credential refused: the engine closed the
 * socket with 4401). Trying again cannot help then; pairing again does.
 */
export type PageLink = EngineLink | { state: 'refused'; reason: string; host: null; unpaired: true };

/** Where a browser pairs again: the engine's pairing page, which asks for a new code. */
export const PAIR_PATH = '/pair';

export interface LinkBanner {
  title: string;
  advice: string;
  /**
   * What its button does: start the engine, or stop it and start this build's; for another
   * machine's engine, connect again now (the window neither starts nor stops it). In a browser:
   * try to reach the engine now, pair again (a link to the pairing page), or load the page anew.
   */
  action: 'start' | 'restart' | 'connect' | 'dismiss' | 'retry' | 'pair' | 'reload' | null;
  /** A failure (red) rather than a note (amber). */
  severe: boolean;
}

/** The words on each action's button (the restart's while it runs are the banner's own). */
export const ACTION_WORDS: Record<NonNullable<LinkBanner['action']>, string> = {
  start: 'Start the engine',
  restart: 'Restart the engine',
  connect: 'Connect now',
  dismiss: 'Dismiss',
  retry: 'Try now',
  pair: 'Pair again',
  reload: 'Reload the page',
};

/**
 * What the banner says of the link, in the desktop window (`kind` `window`) or in a browser an
 * engine served, which can neither start nor restart it: only reach it again, or pair again.
 */
export function linkBanner(link: PageLink, kind: BackendKind = 'window'): LinkBanner | null {
  if (kind === 'browser') return browserBanner(link);
  switch (link.state) {
    case 'connecting':
    case 'connected':
      if (link.state === 'connected' && link.outdated && link.host !== null) {
        return {
          title: `The engine on ${link.host} runs another build of Switchboard (${link.engine_version}) than this window.`,
          advice: 'It goes on as it is; install the same version on both machines to be sure they understand each other.',
          action: null,
          severe: false,
        };
      }
      if (link.state === 'connected' && link.restarted) {
        return {
          title: 'The engine stopped unexpectedly, and the window started it again.',
          advice: 'Agents that were running stopped with it: their tasks went back to their queues or are marked interrupted, as after a crash. Its log is in the data folder’s logs.',
          action: 'dismiss',
          severe: false,
        };
      }
      if (link.state === 'connected' && link.outdated) {
        return {
          title: `The engine runs another build of Switchboard (${link.engine_version}) than this window.`,
          advice: 'Restart it to run this window’s. Agents running now are stopped, and their tasks go back to their queues or are marked interrupted, as after a crash.',
          action: 'restart',
          severe: false,
        };
      }
      return null;
    case 'lost':
      if (link.host !== null) {
        return {
          title: `Disconnected from ${link.host}.`,
          advice: `${link.reason} Its agents go on working there; the window reconnects by itself and shows what they did meanwhile.`,
          action: 'connect',
          severe: true,
        };
      }
      return {
        title: 'The engine stopped.',
        advice: `${link.reason} The window reconnects by itself when it is back.`,
        action: 'start',
        severe: true,
      };
    case 'refused':
      if (link.host !== null) {
        return { title: `The engine on ${link.host} cannot talk with this window.`, advice: link.reason, action: null, severe: true };
      }
      return { title: 'The engine cannot talk with this window.', advice: link.reason, action: 'restart', severe: true };
  }
}

/**
 * A browser's banner: it cannot start or restart the engine, which runs on another computer (or
 * this one, out of the page's reach). Lost, it says so and tries again (now, on the button);
 * unpaired, it sends the user to pair again; refused otherwise (the engine was updated under the
 * open page, and speaks another protocol), the page is loaded anew from it.
 */
function browserBanner(link: PageLink): LinkBanner | null {
  switch (link.state) {
    case 'connecting':
    case 'connected':
      return null;
    case 'lost':
      return {
        title: 'Switchboard cannot be reached.',
        advice: `${link.reason} The page tries again by itself, and shows what the agents did meanwhile.`,
        action: 'retry',
        severe: true,
      };
    case 'refused':
      if ('unpaired' in link) return { title: 'This browser is no longer paired with Switchboard.', advice: link.reason, action: 'pair', severe: true };
      return { title: 'Switchboard’s engine cannot talk with this page.', advice: link.reason, action: 'reload', severe: true };
  }
}

/**
 * Whether the link `now` means reloading what the window shows, when what it shows was loaded
 * through connection number `loaded` (null: not known yet, the first connection the window hears
 * of is the one it loaded from): any other connection, however it came about (the engine stopped
 * and was started again from the banner, it died and the window started it, the window fell
 * behind its events), may have another engine behind it, and its lists, terminals and questions
 * may all have moved on.
 */
export function reloadsOn(loaded: number | null, now: PageLink): boolean {
  return now.state === 'connected' && loaded !== null && now.connection !== loaded;
}

/** The connection what the window shows was loaded through, once it hears of one. */
export function loadedThrough(loaded: number | null, now: PageLink): number | null {
  return loaded ?? (now.state === 'connected' ? now.connection : null);
}

/**
 * What the banner of another machine the window shows says while its link is lost or refused
 * (null otherwise: a machine that answers, or is being reached, has no banner). Its button
 * connects again now, whichever: the window neither starts nor stops that machine's engine,
 * and a refused link may be taken once the same version is installed there.
 */
export function hostBanner(host: HostLink): LinkBanner | null {
  const { destination, link } = host;
  if (link.state !== 'lost' && link.state !== 'refused') return null;
  // The machine is named as the user added it, whatever the link says of itself.
  const banner = linkBanner({ ...link, host: destination });
  return banner && { ...banner, action: 'connect' };
}

/**
 * Whether another machine's link going from `before` (as the window loaded it, or last heard
 * of it) to `now` means reloading the window: the machine is reached and, as the window knew it,
 * was not. Its agents were then left out of the joined lists (`connecting`, or `null`: a machine
 * the window did not know of, such as one just added), or what they did while it was lost or
 * refused was missed. Unlike the window's own engine (`reloadsOn`), a first connection reloads
 * too: the window is already showing this computer's agents without that machine's.
 */
export function hostReloadsOn(before: EngineLink | null, now: EngineLink): boolean {
  return now.state === 'connected' && before?.state !== 'connected';
}

/**
 * The names of this machine's agents that run now: what stopping this machine's engine stops
 * (another machine's agents go on there, whatever the window does here).
 */
export function runningHere(profiles: readonly Profile[], sessions: readonly SessionInfo[]): string[] {
  const running = new Set(sessions.filter((s) => s.state === 'running').map((s) => s.profile_id));
  return profiles.filter((p) => !p.host && running.has(p.id)).map((p) => p.name);
}

/** The agents named in a question: the first three, then how many more. */
function named(agents: string[]): string {
  return agents.length <= 3 ? agents.join(', ') : `${agents.slice(0, 3).join(', ')} and ${agents.length - 3} more`;
}

/**
 * What the window asks before the tray's "Quit and stop all agents" is carried out: the agents
 * it stops, by name; null when none runs (nothing to lose: it quits at once).
 */
export function quitQuestion(runningAgents: string[]): string | null {
  if (runningAgents.length === 0) return null;
  const agents = runningAgents.length === 1 ? 'agent' : 'agents';
  return `Quitting this way stops the engine and ${runningAgents.length} running ${agents}: ${named(runningAgents)}. Their tasks go back to their queues or are marked interrupted.`;
}

/** What the confirmation before a restart names: the agents it stops. */
export function restartQuestion(runningAgents: string[]): string | null {
  if (runningAgents.length === 0) return null;
  const names = named(runningAgents);
  const agents = runningAgents.length === 1 ? 'agent' : 'agents';
  return `Restarting the engine stops ${runningAgents.length} running ${agents}: ${names}. Their tasks go back to their queues or are marked interrupted.`;
}
