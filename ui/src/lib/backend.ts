/**
 * The one door to the Rust side. Components and state talk to a `Backend`; this module holds
 * the interface, the error normalisation, and the Tauri implementation, and is the only file
 * that imports `@tauri-apps/*` (eslint enforces it). `fakeBackend.ts` implements the same
 * interface in memory for Vitest and for running the page in a plain browser.
 *
 * Every method rejects with an `ApiError` (see errors.ts); callers branch on `code` and `field`,
 * never on `message`, which is for people.
 */
import { Channel, invoke } from '@tauri-apps/api/core';
import { listen } from '@tauri-apps/api/event';
import { open } from '@tauri-apps/plugin-dialog';
import type { AppInfo, EngineEvent, EventPace, FollowedLog, HostLink, HostState, LoopId, OpenTarget, PageNotice, Reply, SessionId, SignalId, SubscriptionId, TaskId, Viewing } from './bindings';
import { engineCommands, type EngineCommands } from './bindings';
import { toBytes } from './bytes';
import { toApiError } from './errors';
import type { PageLink } from './engineLink';

/** A live terminal subscription. `detach` is idempotent. */
export interface TerminalAttachment {
  subscription: SubscriptionId;
  detach(): Promise<void>;
}

export type Unsubscribe = () => void;

/**
 * Where the page runs: the desktop window (the shell starts and stops the engine, and notifies
 * the desktop), or a browser an engine served (it can only reach that engine, and try again).
 */
export type BackendKind = 'window' | 'browser';

/**
 * What the window asks of the Rust side: every engine command meant for the window (generated
 * from the engine's one list of commands, see `EngineCommands` in bindings.ts), and the
 * window's own calls and events.
 */
export interface Backend extends EngineCommands {
  /** Where the page runs: what its banners offer, and whether it tells the engine's news itself. */
  readonly kind: BackendKind;
  /**
   * Stream a session's output: first the retained scrollback, then live batches. `onBytes` may
   * be called before the promise resolves. Works for ended sessions (replay only).
   */
  attachTerminal(sessionId: SessionId, onBytes: (bytes: Uint8Array) => void): Promise<TerminalAttachment>;
  appInfo(): Promise<AppInfo>;
  /** The window's link to the engine now; later changes come through `onEngineLink`. */
  engineLink(): Promise<PageLink>;
  /** Subscribe to `engine-link`: the link to the engine changed (lost, back, another build). */
  onEngineLink(callback: (link: PageLink) => void): Unsubscribe;
  /**
   * Start the engine if it is not running, and connect to it. A browser cannot start it: it
   * tries to reach it again now, rather than at its next try.
   */
  startEngine(): Promise<void>;
  /** Stop the engine (and every agent it runs) and start this build's. */
  restartEngine(): Promise<void>;
  /** Subscribe to `ask-quit-and-stop`: the tray's "Quit and stop all agents" waits on the user's word. */
  onAskQuitAndStop(callback: () => void): Unsubscribe;
  /** Stop this machine's engine and every agent it runs, then quit (the user said so). */
  quitAndStopAgents(): Promise<void>;
  /** Load the window anew (its engine came back: everything it shows may have moved on). */
  reloadWindow(): void;
  /**
   * Subscribe to the engines' events, one by one in order, each with the machine it came from
   * (`host`: the destination of another machine shown beside this one's; null: the window's own
   * engine's). The returned function stops the subscription.
   */
  onEngineEvent(callback: (event: EngineEvent, host: string | null) => void): Unsubscribe;
  /**
   * Resolves once every subscription made so far is registered: events emitted before then
   * are not delivered, so the lists must be loaded after it, or a change made meanwhile (an
   * agent started from the command line while the window opens) is missed.
   */
  whenListening(): Promise<void>;
  /** The event log entries the window is sent as they are written (null: none). */
  followLog(followed: FollowedLog | null): Promise<void>;
  /**
   * Ask the user for a folder with the desktop's own dialog, opening at `start` when given.
   * Resolves with the folder's path, or null when the user cancelled.
   */
  pickFolder(start?: string): Promise<string | null>;
  /**
   * Open a file a task returned (`path` as the task listed it) with its usual app, or show it
   * in its folder (`reveal`). Rejects with an ApiError in words when nothing could.
   */
  openArtifact(taskId: TaskId, path: string, reveal: boolean): Promise<void>;
  /** Subscribe to `open-task`: the user clicked a desktop notification about that task. */
  onOpenTask(callback: (taskId: TaskId) => void): Unsubscribe;
  /** Subscribe to `open-signal`: the user clicked a desktop notification about that signal. */
  onOpenSignal(callback: (signalId: SignalId) => void): Unsubscribe;
  /** Subscribe to `open-loop`: the user clicked a desktop notification about that loop. */
  onOpenLoop(callback: (loopId: LoopId) => void): Unsubscribe;
  /**
   * Subscribe to `open-target`: Switchboard was launched again to open something, which
   * `takeOpenTarget` now gives.
   */
  onOpenTarget(callback: () => void): Unsubscribe;
  /**
   * What the window was started to open (a desktop notification the daemon showed was clicked,
   * and it opened this window), once; null after that, and for a window started plainly.
   */
  takeOpenTarget(): Promise<OpenTarget | null>;
  /**
   * The other machines the user added, each checked over ssh as it answers now (this takes a
   * while: one connection per machine).
   */
  listHosts(): Promise<HostState[]>;
  /**
   * Check a machine and add it to the list when its engine answers (`state` `connected`);
   * otherwise nothing is added and the answer says why. A host key ssh does not know yet comes
   * back as `unknown_host_key` with the key shown; it is trusted only when the user accepts it,
   * by passing its fingerprint as `acceptKey`.
   */
  addHost(destination: string, port: number | null, remoteProgram: string | null, acceptKey: string | null): Promise<HostState>;
  /** Take a machine out of the list; its engine and agents go on there. */
  removeHost(destination: string): Promise<void>;
  /** Open a new window, a process of its own, on that machine's engine. */
  openHost(destination: string): Promise<void>;
  /**
   * The engine commands sent to one machine's engine, as that machine's destination names it
   * (null: this computer's). The commands of `Backend` itself go where the shell routes them
   * (lists to every machine, joined; a command naming an agent, task, session, signal or loop
   * to the machine that holds it); these are for what names none of those but belongs to one
   * machine: making an agent there, its folders, presets and CLIs, a permission answer.
   */
  machine(host: string | null): EngineCommands;
  /** Each other machine the window shows, with its link now; later changes come through `onHostLink`. */
  attachedHosts(): Promise<HostLink[]>;
  /** Subscribe to `host-link`: the window's link to another machine changed (lost, back, refused, just added). */
  onHostLink(callback: (link: HostLink) => void): Unsubscribe;
  /** Try to reach that machine again now, rather than at the link's next try. */
  connectHost(destination: string): Promise<void>;
  /** How soon the window wants the engines' events: within a frame while it shows an agent live, else calmer (`eventPaceOf`). */
  setEventPace(pace: EventPace): Promise<void>;
  /**
   * What a browser's page tells of the news the desktop notifies, as the engine that serves it
   * decides it (the desktop's own rule). The desktop window is told nothing here: the desktop
   * notifies through itself.
   */
  onPageNotice(callback: (notice: PageNotice) => void): Unsubscribe;
}

/**
 * Name of the Tauri event carrying `EngineEvent`s: the shell sends them a frame's worth at a time
 * (16 ms), in order, with only the latest of each thing's state, so a hundred agents' hook events
 * a second change the window about once a frame, not once an event.
 */
export const ENGINE_EVENT = 'engine-events';
/** Name of the Tauri event carrying another machine's engine's events, with its name (`HostEvents`). */
export const HOST_EVENTS_EVENT = 'host-events';
/** Another machine's engine's events, as the shell sends them: never this machine's. */
export interface HostEvents {
  host: string;
  events: EngineEvent[];
}
/** Name of the Tauri event carrying the window's link to the engine (`EngineLink`). */
export const ENGINE_LINK_EVENT = 'engine-link';

/** Name of the Tauri event carrying the window's link to another machine (`HostLink`). */
export const HOST_LINK_EVENT = 'host-link';

/** Name of the Tauri event the shell emits, with a `TaskId`, when a task notification is clicked. */
export const OPEN_TASK_EVENT = 'open-task';
/** Name of the Tauri event the shell emits when a signal notification is clicked. */
export const OPEN_SIGNAL_EVENT = 'open-signal';
/** Name of the Tauri event the shell emits when a loop notification is clicked. */
export const OPEN_LOOP_EVENT = 'open-loop';
/** Name of the Tauri event the shell emits when the tray's "Quit and stop all agents" is chosen. */
export const ASK_QUIT_AND_STOP_EVENT = 'ask-quit-and-stop';
/** Name of the Tauri event the shell emits when a second launch hands over what to open. */
export const OPEN_TARGET_EVENT = 'open-target';

/** True when running inside the Tauri webview (its IPC bridge is injected before our script). */
export function inTauri(): boolean {
  return typeof window !== 'undefined' && '__TAURI_INTERNALS__' in window;
}

async function call<T>(command: string, args?: Record<string, unknown>): Promise<T> {
  try {
    return await invoke<T>(command, args);
  } catch (reason) {
    throw toApiError(reason);
  }
}

/**
 * The Tauri implementation: the engine's commands go through the shell's one `engine_call`
 * command in their wire form; the rest are the shell's own commands and events. Argument keys
 * are the camelCase forms Tauri derives from the Rust parameters (`session_id` -> `sessionId`).
 */
export function tauriBackend(): Backend {
  const registrations: Promise<unknown>[] = [];
  return {
    kind: 'window',
    ...engineCommands((command) => call<Reply>('engine_call', { command })),

    async attachTerminal(sessionId: SessionId, onBytes: (bytes: Uint8Array) => void): Promise<TerminalAttachment> {
      let open = true;
      const output = new Channel<unknown>((message) => {
        if (!open) return;
        const bytes = toBytes(message);
        if (bytes) onBytes(bytes);
        else console.error('attach_terminal: ignoring a message that is not bytes', message);
      });
      const subscription = await call<SubscriptionId>('attach_terminal', { sessionId, output });
      return {
        subscription,
        detach: async () => {
          if (!open) return;
          open = false;
          await call<null>('detach_terminal', { sessionId, subscription });
        },
      };
    },

    appInfo(): Promise<AppInfo> {
      return call('app_info');
    },

    engineLink(): Promise<PageLink> {
      return call('engine_link');
    },

    onEngineLink(callback: (link: PageLink) => void): Unsubscribe {
      return subscribe(ENGINE_LINK_EVENT, callback);
    },

    async startEngine(): Promise<void> {
      await call<null>('start_engine');
    },

    async restartEngine(): Promise<void> {
      await call<null>('restart_engine');
    },

    onAskQuitAndStop(callback: () => void): Unsubscribe {
      return subscribe(ASK_QUIT_AND_STOP_EVENT, () => callback());
    },

    async quitAndStopAgents(): Promise<void> {
      await call<null>('quit_and_stop_agents');
    },

    reloadWindow(): void {
      window.location.reload();
    },

    onEngineEvent(callback: (event: EngineEvent, host: string | null) => void): Unsubscribe {
      const own = subscribe<EngineEvent[]>(
        ENGINE_EVENT,
        (events) => {
          for (const event of events) callback(event, null);
        },
        registrations,
      );
      const others = subscribe<HostEvents>(
        HOST_EVENTS_EVENT,
        ({ host, events }) => {
          for (const event of events) callback(event, host);
        },
        registrations,
      );
      return () => {
        own();
        others();
      };
    },

    async whenListening(): Promise<void> {
      await Promise.allSettled(registrations);
    },

    async followLog(followed: FollowedLog | null): Promise<void> {
      await call<null>('follow_log', { followed });
    },

    /**
     * What the window shows and whether it has the focus, through the shell: it does not notify
     * about what the user looks at, and tells the engine (a failure on screen is seen).
     */
    async setViewing(viewing: Viewing): Promise<void> {
      await call<null>('set_viewing', { viewing });
    },

    async setEventPace(pace: EventPace): Promise<void> {
      await call<null>('set_event_pace', { pace });
    },

    async openArtifact(taskId: TaskId, path: string, reveal: boolean): Promise<void> {
      await call<null>('open_artifact', { taskId, path, reveal });
    },

    async pickFolder(start?: string): Promise<string | null> {
      try {
        const picked = await open({ directory: true, multiple: false, defaultPath: start || undefined, title: 'Choose the agent’s folder' });
        return typeof picked === 'string' ? picked : null;
      } catch (reason) {
        throw toApiError(reason);
      }
    },

    onOpenTask(callback: (taskId: TaskId) => void): Unsubscribe {
      return subscribe(OPEN_TASK_EVENT, callback);
    },

    onOpenSignal(callback: (signalId: SignalId) => void): Unsubscribe {
      return subscribe(OPEN_SIGNAL_EVENT, callback);
    },

    onOpenLoop(callback: (loopId: LoopId) => void): Unsubscribe {
      return subscribe(OPEN_LOOP_EVENT, callback);
    },

    onOpenTarget(callback: () => void): Unsubscribe {
      return subscribe(OPEN_TARGET_EVENT, () => callback());
    },

    takeOpenTarget(): Promise<OpenTarget | null> {
      return call('take_open_target');
    },

    listHosts(): Promise<HostState[]> {
      return call('list_hosts');
    },

    addHost(destination: string, port: number | null, remoteProgram: string | null, acceptKey: string | null): Promise<HostState> {
      return call('add_host', { destination, port, remoteProgram, acceptKey });
    },

    async removeHost(destination: string): Promise<void> {
      await call<null>('remove_host', { destination });
    },

    async openHost(destination: string): Promise<void> {
      await call<null>('open_host', { destination });
    },

    machine(host: string | null): EngineCommands {
      return engineCommands((command) => call<Reply>('engine_call', { command, host }));
    },

    attachedHosts(): Promise<HostLink[]> {
      return call('attached_hosts');
    },

    // The desktop notifies through itself.
    onPageNotice: () => () => {},

    onHostLink(callback: (link: HostLink) => void): Unsubscribe {
      // Registered before the window lists the links (`whenListening`), so no change falls between.
      return subscribe(HOST_LINK_EVENT, callback, registrations);
    },

    async connectHost(destination: string): Promise<void> {
      await call<null>('connect_host', { destination });
    },
  };
}

/**
 * Listen to a Tauri event. `listen` resolves asynchronously; stopping before it did still
 * unlistens once it has, and nothing is delivered after the stop.
 */
function subscribe<T>(name: string, callback: (payload: T) => void, registrations?: Promise<unknown>[]): Unsubscribe {
  let stopped = false;
  let unlisten: (() => void) | null = null;
  const registered = listen<T>(name, (event) => {
    if (!stopped) callback(event.payload);
  });
  registrations?.push(registered);
  registered.then(
    (fn) => {
      if (stopped) fn();
      else unlisten = fn;
    },
    (reason: unknown) => console.error(`listen(${name}) failed`, reason),
  );
  return () => {
    stopped = true;
    unlisten?.();
    unlisten = null;
  };
}
