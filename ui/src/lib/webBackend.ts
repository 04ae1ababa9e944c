/**
 * The `Backend` of a page an engine served to a browser: the engine's framed protocol (frames.ts)
 * over a WebSocket to `/ws` of the page's own origin, one frame per binary message each way. It
 * mirrors the Rust client (`crates/switchboard-client/src/lib.rs`): the hello, requests by id,
 * one subscription to the events, terminals attached on stream numbers the page chooses, pings.
 *
 * The link to the engine is the desktop window's, told the same way (`EngineLink`, and `PageLink`'s unpaired): `connecting`
 * until the first welcome, `connected` with the connection's number, `lost` in words, `refused`
 * when the device's pairing no longer holds (close code 4401; no more tries then). It reconnects
 * by itself, and the page reloads its picture on a new connection (EngineLinkBanner). The user's
 * other machines are reached by the engine that serves the page, for it: a command may name one,
 * their links come as `machine` frames and their events name their machine. What only the
 * desktop can do (start or stop the engine, open files, add machines, notifications' clicks) is
 * refused in words, or answered empty where "nothing" is the truth for a browser.
 */
import { version as UI_VERSION } from '../../package.json';
import type { Backend, TerminalAttachment, Unsubscribe } from './backend';
import type { ApiError, AppInfo, Command, EngineEvent, FollowedLog, HostLink, PageNotice, Reply, SessionId, SubscriptionId } from './bindings';
import { engineCommands, type EngineCommands } from './bindings';
import type { PageLink } from './engineLink';
import { apiError, toApiError } from './errors';
import { forwarded } from './followLog';
import {
  decodeFrame,
  frameProblemText,
  messageFrame,
  PROTOCOL,
  requestFrame,
  serverFrame,
  serverHello,
  type Answer,
  type ClientRequest,
  type Hello,
  type ServerFrame,
  type Welcome,
} from './frames';

/** How long the socket has to open and the engine to answer the hello (the Rust client's `HELLO_DEADLINE`). */
export const HELLO_DEADLINE_MS = 10_000;
/** The pause before the first try again after a connection ended; it doubles at each failed try... */
export const FIRST_PAUSE_MS = 500;
/** ...up to this: a phone that comes back finds the engine within seconds, and a stopped engine is not hammered. */
export const LAST_PAUSE_MS = 8_000;
/** How often a connected page asks the engine whether it is there: a socket a phone's network dropped says nothing by itself. */
export const PING_EVERY_MS = 20_000;
/** How long a ping waits for its answer before the connection is taken for dead, closed and made again. */
export const PONG_DEADLINE_MS = 10_000;
/** How long events gather before the page is handed them: one frame, so a burst is drawn once (as the window's `gathers_for(Live)`). */
export const EVENT_FRAME_MS = 16;
/** Events that go at once however soon, so a flood is not held in memory (as the window's `MOST_IN_FRAME`). */
export const MOST_IN_FRAME = 512;
/**
 * The close code the engine ends a socket with when the device is not (or no longer) paired:
 * revoked, or its credential no longer valid. Trying again cannot help; pairing again does.
 */
export const UNPAIRED_CLOSE_CODE = 4401;
/** Where the page keeps its `client_id`: the same across its reconnections and reloads, another in another tab. */
const CLIENT_ID_KEY = 'switchboard.client-id';
/** The terminal's full reset (RIS): what a view shows goes, before it is drawn anew from the replay. */
const RESET = new Uint8Array([0x1b, 0x63]);

/** How a connection ended, as the link tells it and decides what comes next (see `afterEnd`). */
export type Ending =
  /** The socket never opened: nothing answers at the address, or the network is down. */
  | { how: 'unopened' }
  /** The socket opened but no welcome came within `HELLO_DEADLINE_MS`. */
  | { how: 'unanswered' }
  /** The engine answered the hello with a refusal: it speaks another protocol. */
  | { how: 'hello_refused'; engineVersion: string; reason: string }
  /** The socket closed: by the engine, or under the page (a network gone, the engine stopped). */
  | { how: 'closed'; code: number; reason: string; welcomed: boolean }
  /** A ping went unanswered for `PONG_DEADLINE_MS`. */
  | { how: 'silent' }
  /** The engine dropped events this page did not take in time (`events_lost`). */
  | { how: 'behind' }
  /** The engine did not take the page's subscription to its events. */
  | { how: 'unsubscribed' }
  /** The engine sent a message that is not a frame this page can read. */
  | { how: 'unreadable' };

/** When the link tries again after an ending. */
export type Retry = 'after_pause' | 'now' | 'never';

/**
 * What an ending means: the link's state, said as the window says it, and when to try again.
 * Only an unpaired device stops trying (its credential is refused until it pairs again); missed
 * events are made up for at once by a new connection (the page reloads its picture).
 */
export function afterEnd(ending: Ending): { link: PageLink; retry: Retry } {
  const lost = (reason: string, retry: Retry = 'after_pause') => ({ link: { state: 'lost', reason, host: null } as PageLink, retry });
  switch (ending.how) {
    case 'unopened':
      return lost('Switchboard’s engine cannot be reached from this browser.');
    case 'unanswered':
      return lost('Switchboard’s engine did not answer in time.');
    case 'hello_refused':
      return {
        link: { state: 'refused', reason: `The engine runs Switchboard ${ending.engineVersion}, which cannot talk with this page (${ending.reason}). Reload the page.`, host: null },
        retry: 'after_pause',
      };
    case 'closed':
      if (ending.code === UNPAIRED_CLOSE_CODE) {
        const said = ending.reason.trim();
        return {
          link: { state: 'refused', reason: said === '' ? 'Its pairing was revoked, or no longer holds. Pair it again to go on.' : said, host: null, unpaired: true },
          retry: 'never',
        };
      }
      return lost(ending.welcomed ? 'The connection to Switchboard’s engine was lost.' : 'Switchboard’s engine closed the connection before it answered.');
    case 'silent':
      return lost('Switchboard’s engine stopped answering.');
    case 'behind':
      return lost('The page fell behind the engine’s events.', 'now');
    case 'unsubscribed':
      return lost('Switchboard’s engine did not send this page its events.');
    case 'unreadable':
      return lost('Switchboard’s engine sent something this page cannot read.');
  }
}

/** The pause after `pause`, when a try failed again: doubled, at most `LAST_PAUSE_MS`. */
export function nextPause(pause: number): number {
  return Math.min(pause * 2, LAST_PAUSE_MS);
}

/** The WebSocket of the page's own engine: `/ws` of its origin, `wss:` on an `https:` page. */
export function engineSocketUrl(where: Pick<Location, 'protocol' | 'host'>): string {
  return `${where.protocol === 'https:' ? 'wss:' : 'ws:'}//${where.host}/ws`;
}

/** The page's `client_id`: kept for the tab's life (a reload keeps it), random otherwise. */
function clientId(): string {
  const fresh = () => Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('');
  try {
    const kept = sessionStorage.getItem(CLIENT_ID_KEY);
    if (kept) return kept;
    const made = fresh();
    sessionStorage.setItem(CLIENT_ID_KEY, made);
    return made;
  } catch (reason) {
    // Storage refused (a private window's policy): a new id per load names the page as well.
    console.warn('the page keeps no client id:', reason);
    return fresh();
  }
}

function notAllowed(message: string): ApiError {
  return apiError('not_allowed', message);
}

function unexpected(answer: Answer, asked: string): ApiError {
  return apiError('internal', `Switchboard’s engine answered ${asked} with ${answer.type}.`);
}

/** A terminal view: one `attachTerminal`, on the stream it has now (another after it fell behind). */
interface TerminalView {
  readonly sessionId: SessionId;
  readonly onBytes: (bytes: Uint8Array) => void;
  stream: number;
  open: boolean;
  /** It fell behind and was attached again: its terminal is reset before the replay. */
  drawAnew: boolean;
}

interface Waiter {
  resolve(answer: Answer): void;
  reject(error: ApiError): void;
}

/** One WebSocket and what rides on it: requests waiting for their answer, terminals by stream. */
class Connection {
  readonly waiting = new Map<number, Waiter>();
  readonly streams = new Map<number, TerminalView>();
  opened = false;
  welcome: Welcome | null = null;
  /** The ping in flight, if any (its deadline). */
  pong: ReturnType<typeof setTimeout> | null = null;
  /** The next ping, or the hello's deadline. */
  timer: ReturnType<typeof setTimeout> | null = null;

  constructor(
    readonly socket: WebSocket,
    private readonly nextId: () => number,
  ) {}

  send(bytes: Uint8Array<ArrayBuffer>): void {
    this.socket.send(bytes);
  }

  request(request: ClientRequest): Promise<Answer> {
    const id = this.nextId();
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      try {
        this.send(requestFrame(id, request));
      } catch (reason) {
        this.waiting.delete(id);
        reject(apiError('engine_stopped', `The request could not be sent to Switchboard’s engine (${String(reason)}).`));
      }
    });
  }
}

/** The link's one worker between tries, or its connection. */
type Phase =
  | { phase: 'connecting'; connection: Connection }
  | { phase: 'connected'; connection: Connection }
  | { phase: 'waiting'; timer: ReturnType<typeof setTimeout> }
  /** Unpaired, or let go for good (`close`): no more tries. */
  | { phase: 'stopped' };

/** The engine the page was served by, over one WebSocket at a time. */
class WebEngine {
  #phase: Phase = { phase: 'stopped' };
  #link: PageLink = { state: 'connecting' };
  #linkListeners = new Set<(link: PageLink) => void>();
  /** The link settled (connected, lost, refused) for the first time: what waits for it goes on. */
  #settleWaiters: { resolve(connection: Connection): void; reject(error: ApiError): void }[] = [];
  #eventListeners = new Set<(event: EngineEvent, host: string | null) => void>();
  #machineListeners = new Set<(link: HostLink) => void>();
  #noticeListeners = new Set<(notice: PageNotice) => void>();
  #gathered: { event: EngineEvent; host: string | null }[] = [];
  #frameTimer: ReturnType<typeof setTimeout> | null = null;
  #followed: FollowedLog | null = null;
  #pause = FIRST_PAUSE_MS;
  #connections = 0;
  #nextId = 1;
  #nextStream = 1;
  #nextView = 1;
  #engineVersion: string | null = null;
  #listening: Promise<void>;
  #heard: () => void = () => {};
  readonly #clientId = clientId();
  readonly #wake = () => this.#tryNow();
  readonly #visible = () => {
    if (document.visibilityState === 'visible') this.#tryNow();
  };

  constructor(private readonly url: string) {
    this.#listening = new Promise((resolve) => (this.#heard = resolve));
    document.addEventListener('visibilitychange', this.#visible);
    window.addEventListener('online', this.#wake);
    this.#connect();
  }

  /** Tries to reach the engine now, rather than at the next try (the banner's "Try now"). */
  tryNow(): void {
    this.#tryNow();
  }

  /** Lets the engine go for good: the socket closes, nothing tries again (a page leaving; tests). */
  close(): void {
    document.removeEventListener('visibilitychange', this.#visible);
    window.removeEventListener('online', this.#wake);
    const phase = this.#phase;
    this.#phase = { phase: 'stopped' };
    if (phase.phase === 'waiting') clearTimeout(phase.timer);
    if (phase.phase === 'connecting' || phase.phase === 'connected') this.#letGo(phase.connection, 'This page let Switchboard’s engine go.');
  }

  get link(): PageLink {
    return this.#link;
  }

  onLink(callback: (link: PageLink) => void): Unsubscribe {
    this.#linkListeners.add(callback);
    return () => this.#linkListeners.delete(callback);
  }

  onEvent(callback: (event: EngineEvent, host: string | null) => void): Unsubscribe {
    this.#eventListeners.add(callback);
    return () => this.#eventListeners.delete(callback);
  }

  whenListening(): Promise<void> {
    return this.#listening;
  }

  follow(followed: FollowedLog | null): void {
    this.#followed = followed;
  }

  get engineVersion(): string | null {
    return this.#engineVersion;
  }

  /**
   * The connection to send on: now, once the first try settles while the page connects, else an
   * error that says the engine is not there (a request is never held for a later connection, so
   * nothing is typed twice into an agent across a reconnection).
   */
  connected(): Promise<Connection> {
    const phase = this.#phase;
    if (phase.phase === 'connected') return Promise.resolve(phase.connection);
    if (this.#link.state === 'connecting') {
      return new Promise((resolve, reject) => this.#settleWaiters.push({ resolve, reject }));
    }
    const reason = this.#link.state === 'lost' || this.#link.state === 'refused' ? this.#link.reason : 'Switchboard’s engine is not connected.';
    return Promise.reject(apiError('engine_stopped', reason));
  }

  onNotice(callback: (notice: PageNotice) => void): Unsubscribe {
    this.#noticeListeners.add(callback);
    return () => this.#noticeListeners.delete(callback);
  }

  onMachine(callback: (link: HostLink) => void): Unsubscribe {
    this.#machineListeners.add(callback);
    return () => this.#machineListeners.delete(callback);
  }

  /** `host`: another machine, reached by the engine that serves the page (null: where the command's route sends it). */
  async command(command: Command, host: string | null = null): Promise<Reply> {
    const request: ClientRequest = host === null ? { type: 'command', command } : { type: 'command', command, host };
    const answer = await (await this.connected()).request(request);
    if (answer.type === 'ok') return answer.reply;
    if (answer.type === 'error') throw toApiError(answer.error);
    throw unexpected(answer, `the command ${command.type}`);
  }

  /** The other machines the serving engine reaches for the page, with their links now; their changes follow (`onMachine`). */
  async machines(): Promise<HostLink[]> {
    const answer = await (await this.connected()).request({ type: 'machines' });
    if (answer.type === 'machines') return answer.links;
    if (answer.type === 'error') throw toApiError(answer.error);
    throw unexpected(answer, 'the machines');
  }

  async attach(sessionId: SessionId, onBytes: (bytes: Uint8Array) => void): Promise<TerminalAttachment> {
    const connection = await this.connected();
    const view: TerminalView = { sessionId, onBytes, stream: 0, open: true, drawAnew: false };
    await this.#attachView(connection, view);
    const subscription: SubscriptionId = this.#nextView++;
    return { subscription, detach: () => this.#detachView(view) };
  }

  /** Attaches `view` on a fresh stream; its output may come before the answer. */
  async #attachView(connection: Connection, view: TerminalView): Promise<void> {
    const stream = this.#nextStream++;
    view.stream = stream;
    connection.streams.set(stream, view);
    let answer: Answer;
    try {
      answer = await connection.request({ type: 'attach', session_id: view.sessionId, stream });
    } catch (error) {
      connection.streams.delete(stream);
      throw error;
    }
    if (answer.type !== 'ok') {
      connection.streams.delete(stream);
      throw answer.type === 'error' ? toApiError(answer.error) : unexpected(answer, 'an attach');
    }
    this.#drawAnewIfDue(view);
  }

  async #detachView(view: TerminalView): Promise<void> {
    if (!view.open) return;
    view.open = false;
    const phase = this.#phase;
    // A connection gone took its streams with it: nothing is left to let go.
    if (phase.phase !== 'connected' || phase.connection.streams.get(view.stream) !== view) return;
    phase.connection.streams.delete(view.stream);
    const answer = await phase.connection.request({ type: 'detach', stream: view.stream });
    if (answer.type === 'error') throw toApiError(answer.error);
    if (answer.type !== 'ok') throw unexpected(answer, 'a detach');
  }

  #drawAnewIfDue(view: TerminalView): void {
    if (!view.drawAnew || !view.open) return;
    view.drawAnew = false;
    view.onBytes(RESET);
  }

  #tryNow(): void {
    const phase = this.#phase;
    if (phase.phase === 'waiting') {
      clearTimeout(phase.timer);
      this.#connect();
    } else if (phase.phase === 'connected') {
      // Back from the background, a phone's socket may be dead without knowing it: ask now.
      this.#ping(phase.connection);
    }
  }

  #setLink(link: PageLink): void {
    if (JSON.stringify(link) === JSON.stringify(this.#link)) return;
    this.#link = link;
    for (const listener of [...this.#linkListeners]) {
      try {
        listener(link);
      } catch (reason) {
        console.error('an engine-link listener failed', reason);
      }
    }
  }

  #connect(): void {
    let socket: WebSocket;
    try {
      socket = new WebSocket(this.url);
    } catch (reason) {
      console.warn('the engine socket could not be made:', reason);
      this.#ended({ how: 'unopened' });
      return;
    }
    socket.binaryType = 'arraybuffer';
    const connection = new Connection(socket, () => this.#nextId++);
    this.#phase = { phase: 'connecting', connection };
    // The open and the hello both within the deadline: a socket that hangs opening is let go too.
    connection.timer = setTimeout(() => this.#end(connection, { how: 'unanswered' }), HELLO_DEADLINE_MS);
    socket.onopen = () => {
      connection.opened = true;
      const hello: Hello = { protocol: PROTOCOL, app_version: UI_VERSION, build_id: '', client_kind: 'browser', client_id: this.#clientId };
      connection.send(messageFrame(hello));
    };
    socket.onmessage = (message: MessageEvent) => this.#received(connection, message.data);
    socket.onclose = (closed: CloseEvent) => {
      const ending: Ending = connection.opened
        ? { how: 'closed', code: closed.code, reason: closed.reason, welcomed: connection.welcome !== null }
        : { how: 'unopened' };
      this.#end(connection, ending);
    };
    // An error is followed by the close, which says what ended.
    socket.onerror = () => {};
  }

  #received(connection: Connection, data: unknown): void {
    if (!(data instanceof ArrayBuffer)) {
      console.warn('the engine sent a message that is not binary; the connection is made again');
      this.#end(connection, { how: 'unreadable' });
      return;
    }
    const decoded = decodeFrame(data);
    if (!decoded.ok) {
      console.warn(`the engine sent ${frameProblemText(decoded.why)}; the connection is made again`);
      this.#end(connection, { how: 'unreadable' });
      return;
    }
    const frame = decoded.frame;
    if (frame.kind === 'other') return;
    if (frame.kind === 'output') {
      const view = connection.streams.get(frame.stream);
      if (!view?.open) return;
      this.#drawAnewIfDue(view);
      view.onBytes(frame.bytes);
      return;
    }
    if (connection.welcome === null) {
      this.#hello(connection, frame.value);
      return;
    }
    const message = serverFrame(frame.value);
    if (message === null) return;
    this.#heardFrame(connection, message);
  }

  #hello(connection: Connection, value: unknown): void {
    const hello = serverHello(value);
    if (hello === null) {
      console.warn('the engine’s answer to the hello is not one this page reads', value);
      this.#end(connection, { how: 'unreadable' });
      return;
    }
    if (hello.type === 'refused') {
      this.#end(connection, { how: 'hello_refused', engineVersion: hello.engine_version, reason: hello.reason });
      return;
    }
    if (connection.timer !== null) clearTimeout(connection.timer);
    connection.welcome = hello;
    this.#engineVersion = hello.engine_version;
    this.#phase = { phase: 'connected', connection };
    this.#pause = FIRST_PAUSE_MS;
    this.#connections += 1;
    this.#setLink({
      state: 'connected',
      engine_version: hello.engine_version,
      outdated: false,
      agents_running: hello.agents_running,
      host: null,
      connection: this.#connections,
      restarted: false,
      starts_at_login: hello.starts_at_login === true,
    });
    for (const waiter of this.#settleWaiters.splice(0)) waiter.resolve(connection);
    connection.request({ type: 'subscribe' }).then(
      (answer) => {
        if (answer.type === 'subscribed') this.#heard();
        else {
          console.warn('the engine did not take the subscription to its events:', answer);
          this.#end(connection, { how: 'unsubscribed' });
        }
      },
      // The connection ended first: its ending said so.
      () => {},
    );
    this.#schedulePing(connection);
  }

  #heardFrame(connection: Connection, message: ServerFrame): void {
    switch (message.type) {
      case 'reply': {
        const waiter = connection.waiting.get(message.id);
        connection.waiting.delete(message.id);
        waiter?.resolve(message.answer);
        return;
      }
      case 'event':
        if (forwarded(this.#followed, message.event)) this.#gather(message.event, message.host);
        return;
      case 'notice':
        for (const listener of [...this.#noticeListeners]) {
          try {
            listener(message.notice);
          } catch (reason) {
            console.error('a page-notice listener failed', reason);
          }
        }
        return;
      case 'machine':
        for (const listener of [...this.#machineListeners]) {
          try {
            listener(message.link);
          } catch (reason) {
            console.error('a machine-link listener failed', reason);
          }
        }
        return;
      case 'events_lost':
        console.warn(`the engine dropped ${message.missed} events this page did not take in time; it loads everything again`);
        this.#end(connection, { how: 'behind' });
        return;
      case 'stream_ended': {
        const view = connection.streams.get(message.stream);
        connection.streams.delete(message.stream);
        if (view?.open && message.why === 'behind') this.#attachAgain(connection, view);
        return;
      }
    }
  }

  /**
   * The page took a terminal's output slower than the agent wrote it and the engine let its
   * stream go: attached again (as the window does, `src-tauri/src/link/`), its view reset and
   * drawn anew from what the engine kept, never left frozen.
   */
  #attachAgain(connection: Connection, view: TerminalView): void {
    console.info('the page fell behind a terminal’s output; drawing it anew');
    view.drawAnew = true;
    this.#attachView(connection, view).catch((reason: unknown) => console.warn('a terminal could not be attached again:', toApiError(reason)));
  }

  #gather(event: EngineEvent, host: string | null): void {
    this.#gathered.push({ event, host });
    if (this.#gathered.length >= MOST_IN_FRAME) this.#deliver();
    else this.#frameTimer ??= setTimeout(() => this.#deliver(), EVENT_FRAME_MS);
  }

  /** Hands the gathered events to every listener, one by one in their order. */
  #deliver(): void {
    if (this.#frameTimer !== null) clearTimeout(this.#frameTimer);
    this.#frameTimer = null;
    const events = this.#gathered.splice(0);
    for (const { event, host } of events) {
      for (const listener of [...this.#eventListeners]) {
        try {
          listener(event, host);
        } catch (reason) {
          console.error('an engine-event listener failed', reason);
        }
      }
    }
  }

  #schedulePing(connection: Connection): void {
    connection.timer = setTimeout(() => this.#ping(connection), PING_EVERY_MS);
  }

  #ping(connection: Connection): void {
    if (connection.pong !== null) return;
    if (connection.timer !== null) clearTimeout(connection.timer);
    connection.pong = setTimeout(() => this.#end(connection, { how: 'silent' }), PONG_DEADLINE_MS);
    connection.request({ type: 'ping' }).then(
      (answer) => {
        if (connection.pong !== null) clearTimeout(connection.pong);
        connection.pong = null;
        if (answer.type !== 'pong') console.warn('the engine answered a ping with', answer);
        if (this.#phase.phase === 'connected' && this.#phase.connection === connection) this.#schedulePing(connection);
      },
      // The connection ended first: its ending said so.
      () => {},
    );
  }

  /** Ends `connection` (if it is still the link's): its socket closes, and the link says why. */
  #end(connection: Connection, ending: Ending): void {
    const phase = this.#phase;
    if ((phase.phase !== 'connecting' && phase.phase !== 'connected') || phase.connection !== connection) return;
    const { link } = afterEnd(ending);
    this.#letGo(connection, link.state === 'lost' || link.state === 'refused' ? link.reason : '');
    this.#ended(ending);
  }

  /** Closes the socket without hearing from it again; what waited on it is told the engine is gone. */
  #letGo(connection: Connection, reason: string): void {
    const socket = connection.socket;
    socket.onopen = socket.onmessage = socket.onclose = socket.onerror = null;
    try {
      socket.close();
    } catch (error) {
      console.warn('closing the engine socket failed:', error);
    }
    if (connection.timer !== null) clearTimeout(connection.timer);
    if (connection.pong !== null) clearTimeout(connection.pong);
    // The request may have been carried out before the connection ended: the user is told its
    // answer did not come, not that it failed, and the page's picture after reconnecting says.
    const gone = apiError('engine_stopped', `${reason} Its answer to this did not come.`.trim());
    for (const waiter of connection.waiting.values()) waiter.reject(gone);
    connection.waiting.clear();
    connection.streams.clear();
  }

  /** After a connection (or a try at one) ended: the link says so, and tries again as the ending says. */
  #ended(ending: Ending): void {
    // Events heard before the end are the page's all the same.
    this.#deliver();
    const { link, retry } = afterEnd(ending);
    this.#setLink(link);
    if (link.state === 'lost' || link.state === 'refused') {
      const gone = apiError('engine_stopped', link.reason);
      for (const waiter of this.#settleWaiters.splice(0)) waiter.reject(gone);
    }
    this.#phase = { phase: 'stopped' };
    if (retry === 'never') return;
    if (retry === 'now') {
      this.#connect();
      return;
    }
    const pause = this.#pause;
    this.#pause = nextPause(pause);
    this.#phase = { phase: 'waiting', timer: setTimeout(() => this.#connect(), pause) };
  }
}

/** A browser's `Backend`: what the window does, over the engine's WebSocket, where a browser can do it. */
export interface WebBackend extends Backend {
  /** Lets the engine go for good (the socket closes; nothing tries again). */
  close(): void;
}

/** The backend of a page an engine served: over a WebSocket to `url` (by default `/ws` of the page's origin). */
export function webBackend(url: string = engineSocketUrl(location)): WebBackend {
  const engine = new WebEngine(url);
  const commands: EngineCommands = {
    ...engineCommands((command) => engine.command(command)),
    // What the desktop notifies follows the desktop's own view, never a phone's.
    setViewing: async () => {},
  };
  const none: Unsubscribe = () => {};
  return {
    kind: 'browser',
    ...commands,
    close: () => engine.close(),

    attachTerminal: (sessionId, onBytes) => engine.attach(sessionId, onBytes),

    async appInfo(): Promise<AppInfo> {
      await engine.connected().catch(() => undefined);
      const version = engine.engineVersion;
      if (version === null) throw apiError('engine_stopped', 'Switchboard’s engine has not answered this page yet.');
      return { data_dir: '', socket_path: '', host: null, version, startup_problem: null };
    },

    engineLink: async () => engine.link,
    onEngineLink: (callback) => engine.onLink(callback),

    // A browser cannot start the engine (it runs on the computer the agents run on): it tries
    // to reach it again now.
    async startEngine(): Promise<void> {
      engine.tryNow();
    },
    async restartEngine(): Promise<void> {
      throw notAllowed('The engine is restarted on the computer the agents run on, not from a browser.');
    },
    onAskQuitAndStop: () => none,
    async quitAndStopAgents(): Promise<void> {
      throw notAllowed('Switchboard and its agents are stopped on the computer they run on, not from a browser.');
    },

    reloadWindow(): void {
      location.reload();
    },

    onEngineEvent: (callback) => engine.onEvent(callback),
    whenListening: () => engine.whenListening(),
    async followLog(followed: FollowedLog | null): Promise<void> {
      engine.follow(followed);
    },

    // No desktop dialog in a browser: the agent form lists the engine's own folders instead.
    pickFolder: async () => null,
    async openArtifact(): Promise<void> {
      throw notAllowed('Files open only on the computer the agents run on.');
    },

    // Notifications are clicked, and Switchboard launched again, on the desktop only.
    onOpenTask: () => none,
    onOpenSignal: () => none,
    onOpenLoop: () => none,
    onOpenTarget: () => none,
    takeOpenTarget: async () => null,

    // Other machines are added and removed from the desktop window; the engine that serves the
    // page reaches them for it and routes its commands (`switchboard_daemon::beyond`).
    listHosts: async () => [],
    async addHost(): Promise<never> {
      throw notAllowed('Other machines are added from the desktop window, not from a browser.');
    },
    async removeHost(): Promise<void> {
      throw notAllowed('Other machines are removed from the desktop window, not from a browser.');
    },
    async openHost(): Promise<void> {
      throw notAllowed('Another machine’s window opens on the desktop, not in a browser.');
    },
    machine(host: string | null): EngineCommands {
      if (host === null) return commands;
      return engineCommands((command) => engine.command(command, host));
    },
    attachedHosts: () => engine.machines(),
    onHostLink: (callback) => engine.onMachine(callback),
    onPageNotice: (callback) => engine.onNotice(callback),
    async connectHost(): Promise<void> {
      throw notAllowed('Other machines are connected from the desktop window, not from a browser.');
    },

    // The page takes its events a frame at a time whatever it shows.
    setEventPace: async () => {},
  };
}
