/**
 * The one door to the Rust side. Components and state talk to a `Backend`; this module holds
 * the interface, the error normalisation, and the Tauri implementation, and is the only file
 * that imports `@tauri-apps/api` (eslint enforces it). `fakeBackend.ts` implements the same
 * interface in memory for Vitest and for running the page in a plain browser.
 *
 * Every method rejects with an `ApiError` (see errors.ts); callers branch on `code` and `field`,
 * never on `message`, which is for people.
 */
import { Channel, invoke } from '@tauri-apps/api/core';
import { listen } from '@tauri-apps/api/event';
import type {
  AgentStatusInfo,
  PermissionRequest,
  AppInfo,
  EngineEvent,
  LogEntry,
  Profile,
  ProfileId,
  ProfileSpec,
  QueueStatus,
  SessionId,
  SessionInfo,
  SignalId,
  SignalInfo,
  SignalResponse,
  Submitted,
  SubscriptionId,
  TaskId,
  TaskInfo,
  TaskSpec,
  TermSize,
} from './bindings';
import { toBytes } from './bytes';
import { toApiError } from './errors';

/** A live terminal subscription. `detach` is idempotent. */
export interface TerminalAttachment {
  subscription: SubscriptionId;
  detach(): Promise<void>;
}

export type Unsubscribe = () => void;

export interface Backend {
  listProfiles(): Promise<Profile[]>;
  createProfile(spec: ProfileSpec): Promise<Profile>;
  updateProfile(profileId: ProfileId, spec: ProfileSpec): Promise<Profile>;
  deleteProfile(profileId: ProfileId): Promise<void>;
  /** Oldest first. */
  listSessions(): Promise<SessionInfo[]>;
  startSession(profileId: ProfileId, size: TermSize): Promise<SessionInfo>;
  /** Resolves once the process tree is gone (can take seconds), with the final state. */
  stopSession(sessionId: SessionId): Promise<SessionInfo>;
  /** Resolves with the new session. */
  restartSession(sessionId: SessionId, size: TermSize): Promise<SessionInfo>;
  /** A new session continuing an ended session's conversation (Claude Code `--resume`). */
  resumeSession(sessionId: SessionId, size: TermSize): Promise<SessionInfo>;
  writeInput(sessionId: SessionId, data: string): Promise<void>;
  resizeSession(sessionId: SessionId, size: TermSize): Promise<void>;
  setOutputPaused(sessionId: SessionId, paused: boolean): Promise<void>;
  /**
   * Stream a session's output: first the retained scrollback, then live batches. `onBytes` may
   * be called before the promise resolves. Works for ended sessions (replay only).
   */
  attachTerminal(sessionId: SessionId, onBytes: (bytes: Uint8Array) => void): Promise<TerminalAttachment>;
  appInfo(): Promise<AppInfo>;
  /** Subscribe to `engine-event`. The returned function stops the subscription. */
  onEngineEvent(callback: (event: EngineEvent) => void): Unsubscribe;
  /**
   * Resolves once every subscription made so far is registered: events emitted before then
   * are not delivered, so the lists must be loaded after it, or a change made meanwhile (an
   * agent started from the command line while the window opens) is missed.
   */
  whenListening(): Promise<void>;

  /** Queue a task for its agent; it starts at once when the agent is idle and its queue runs. */
  submitTask(spec: TaskSpec): Promise<Submitted>;
  /** Queued and running tasks and the most recent finished ones, of one agent or all; in no order. */
  listTasks(profileId: ProfileId | null): Promise<TaskInfo[]>;
  getTask(taskId: TaskId): Promise<TaskInfo>;
  /** A queued task leaves the queue; a running one is interrupted. Both end `cancelled`. */
  cancelTask(taskId: TaskId): Promise<TaskInfo>;
  /**
   * Move a queued task to a 0-based place in its agent's queue, as listed in pick order (urgent
   * first). Landing among the other priority's tasks gives it that priority.
   */
  moveTask(taskId: TaskId, toIndex: number): Promise<void>;
  /** Put an interrupted, failed, timed-out or cancelled task back at the front of its queue. */
  requeueTask(taskId: TaskId): Promise<TaskInfo>;
  /** Pause or resume one agent's queue, or every queue (`null`). */
  setQueuePaused(profileId: ProfileId | null, paused: boolean): Promise<void>;
  listQueues(): Promise<QueueStatus[]>;
  /** A task's history from the event log, oldest first. */
  taskTimeline(taskId: TaskId): Promise<LogEntry[]>;
  /** Tell the shell which task detail is on screen (none: `null`), so it does not notify about it. */
  setViewedTask(taskId: TaskId | null): Promise<void>;
  /** Subscribe to `open-task`: the user clicked a desktop notification about that task. */
  onOpenTask(callback: (taskId: TaskId) => void): Unsubscribe;
  /** Subscribe to `open-signal`: the user clicked a desktop notification about that signal. */
  onOpenSignal(callback: (signalId: SignalId) => void): Unsubscribe;

  /** Every pending signal and the recently settled ones; in no order. */
  listSignals(): Promise<SignalInfo[]>;
  /**
   * Answer, decide or dismiss a pending signal. Resolves with the settled record (the engine
   * also emits `signal_changed`). Approving delegated work starts a session, which can fail
   * with `too_many_agents`.
   */
  respondToSignal(signalId: SignalId, response: SignalResponse): Promise<SignalInfo>;
  /** Each session's agent status, for sessions whose hooks have reported. */
  listAgentStatus(): Promise<AgentStatusInfo[]>;
  listPermissionRequests(): Promise<PermissionRequest[]>;
  decidePermission(requestId: number, allow: boolean, message: string | null): Promise<void>;
}

/** Name of the Tauri event carrying `EngineEvent` payloads. */
export const ENGINE_EVENT = 'engine-event';

/** Name of the Tauri event the shell emits, with a `TaskId`, when a task notification is clicked. */
export const OPEN_TASK_EVENT = 'open-task';
/** Name of the Tauri event the shell emits when a signal notification is clicked. */
export const OPEN_SIGNAL_EVENT = 'open-signal';

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
 * The Tauri implementation. Argument keys are the camelCase forms Tauri derives from the Rust
 * command parameters (`profile_id` -> `profileId`).
 */
export class TauriBackend implements Backend {
  listProfiles(): Promise<Profile[]> {
    return call('list_profiles');
  }
  createProfile(spec: ProfileSpec): Promise<Profile> {
    return call('create_profile', { spec });
  }
  updateProfile(profileId: ProfileId, spec: ProfileSpec): Promise<Profile> {
    return call('update_profile', { profileId, spec });
  }
  async deleteProfile(profileId: ProfileId): Promise<void> {
    await call<null>('delete_profile', { profileId });
  }
  listSessions(): Promise<SessionInfo[]> {
    return call('list_sessions');
  }
  startSession(profileId: ProfileId, size: TermSize): Promise<SessionInfo> {
    return call('start_session', { profileId, size });
  }
  stopSession(sessionId: SessionId): Promise<SessionInfo> {
    return call('stop_session', { sessionId });
  }
  restartSession(sessionId: SessionId, size: TermSize): Promise<SessionInfo> {
    return call('restart_session', { sessionId, size });
  }
  resumeSession(sessionId: SessionId, size: TermSize): Promise<SessionInfo> {
    return call('resume_session', { sessionId, size });
  }
  async writeInput(sessionId: SessionId, data: string): Promise<void> {
    await call<null>('write_input', { sessionId, data });
  }
  async resizeSession(sessionId: SessionId, size: TermSize): Promise<void> {
    await call<null>('resize_session', { sessionId, size });
  }
  async setOutputPaused(sessionId: SessionId, paused: boolean): Promise<void> {
    await call<null>('set_output_paused', { sessionId, paused });
  }

  async attachTerminal(
    sessionId: SessionId,
    onBytes: (bytes: Uint8Array) => void,
  ): Promise<TerminalAttachment> {
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
  }

  appInfo(): Promise<AppInfo> {
    return call('app_info');
  }

  onEngineEvent(callback: (event: EngineEvent) => void): Unsubscribe {
    return subscribe(ENGINE_EVENT, callback, this.#registrations);
  }

  readonly #registrations: Promise<unknown>[] = [];

  async whenListening(): Promise<void> {
    await Promise.allSettled(this.#registrations);
  }

  submitTask(spec: TaskSpec): Promise<Submitted> {
    return call('submit_task', { spec });
  }
  listTasks(profileId: ProfileId | null): Promise<TaskInfo[]> {
    return call('list_tasks', { profileId });
  }
  getTask(taskId: TaskId): Promise<TaskInfo> {
    return call('get_task', { taskId });
  }
  cancelTask(taskId: TaskId): Promise<TaskInfo> {
    return call('cancel_task', { taskId });
  }
  async moveTask(taskId: TaskId, toIndex: number): Promise<void> {
    await call<null>('move_task', { taskId, toIndex });
  }
  requeueTask(taskId: TaskId): Promise<TaskInfo> {
    return call('requeue_task', { taskId });
  }
  async setQueuePaused(profileId: ProfileId | null, paused: boolean): Promise<void> {
    await call<null>('set_queue_paused', { profileId, paused });
  }
  listQueues(): Promise<QueueStatus[]> {
    return call('list_queues');
  }
  taskTimeline(taskId: TaskId): Promise<LogEntry[]> {
    return call('task_timeline', { taskId });
  }
  async setViewedTask(taskId: TaskId | null): Promise<void> {
    await call<null>('set_viewed_task', { taskId });
  }
  onOpenTask(callback: (taskId: TaskId) => void): Unsubscribe {
    return subscribe(OPEN_TASK_EVENT, callback);
  }

  onOpenSignal(callback: (signalId: SignalId) => void): Unsubscribe {
    return subscribe(OPEN_SIGNAL_EVENT, callback);
  }
  listSignals(): Promise<SignalInfo[]> {
    return call('list_signals');
  }
  respondToSignal(signalId: SignalId, response: SignalResponse): Promise<SignalInfo> {
    return call('respond_to_signal', { signalId, response });
  }
  listAgentStatus(): Promise<AgentStatusInfo[]> {
    return call('list_agent_status');
  }
  listPermissionRequests(): Promise<PermissionRequest[]> {
    return call('list_permission_requests');
  }
  async decidePermission(requestId: number, allow: boolean, message: string | null): Promise<void> {
    await call<null>('decide_permission', { requestId, allow, message });
  }

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
