/**
 * The browser's client of the engine, against a stand-in for the engine's end of the WebSocket
 * (installed as `globalThis.WebSocket`) that speaks the framed protocol with frames.ts. These
 * test what the page does with the protocol; the real engine serving it is tested end to end
 * elsewhere.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { version as UI_VERSION } from '../../package.json';
import type { ApiError, Command, EngineEvent, EngineLink, HostLink, PageNotice, Reply } from './bindings';
import { decodeFrame, messageFrame, outputFrame, type Answer, type ClientFrame, type Hello } from './frames';
import {
  afterEnd,
  engineSocketUrl,
  FIRST_PAUSE_MS,
  HELLO_DEADLINE_MS,
  LAST_PAUSE_MS,
  MOST_IN_FRAME,
  EVENT_FRAME_MS,
  nextPause,
  PING_EVERY_MS,
  PONG_DEADLINE_MS,
  UNPAIRED_CLOSE_CODE,
  webBackend,
  type Ending,
  type Retry,
  type WebBackend,
} from './webBackend';

const URL = 'ws://engine.test/ws';
const text = (s: string) => new TextEncoder().encode(s);
const read = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

/** The engine's end of one WebSocket the page opened: it answers as an engine does, unless told otherwise. */
class StandIn {
  static made: StandIn[] = [];
  binaryType = 'blob';
  onopen: ((event: Event) => void) | null = null;
  onmessage: ((event: MessageEvent) => void) | null = null;
  onclose: ((event: CloseEvent) => void) | null = null;
  onerror: ((event: Event) => void) | null = null;
  /** Every frame the page sent, read back. */
  readonly heard: (Hello | ClientFrame)[] = [];
  closedByPage = false;
  /** How the engine answers a command (by default: no agents). */
  commands: (command: Command) => { ok: Reply } | { error: ApiError } = () => ({ ok: { type: 'profiles', value: [] } });
  /** What an attach replays before its answer. */
  replay: string[] = [];
  /** What goes unanswered: `hello`, or a request's type (pings: a socket dead without knowing it). */
  readonly unanswered = new Set<string>();
  agentsRunning = 2;
  /** The other machines the engine reaches for the page, with their links. */
  machines: HostLink[] = [];

  constructor(readonly url: string) {
    StandIn.made.push(this);
  }

  static latest(): StandIn {
    const socket = StandIn.made.at(-1);
    if (!socket) throw new Error('the page opened no socket');
    return socket;
  }

  /** The socket opens (the engine accepted the connection). */
  accept(): void {
    this.onopen?.(new Event('open'));
  }

  /** The engine sends one frame, as one binary message (delivered in a task of its own, as a socket does). */
  says(frame: Uint8Array): void {
    const data = frame.slice().buffer;
    queueMicrotask(() => this.onmessage?.(new MessageEvent('message', { data })));
  }

  answer(id: number, answer: Answer): void {
    this.says(messageFrame({ type: 'reply', id, answer }));
  }

  push(event: EngineEvent, seq = 1, host: string | null = null): void {
    this.says(messageFrame(host === null ? { type: 'event', seq, event } : { type: 'event', seq, event, host }));
  }

  /** The socket closes under the page, or the engine closes it (`code`, `reason`). */
  drop(code = 1006, reason = ''): void {
    this.onclose?.(new CloseEvent('close', { code, reason }));
  }

  requests(type: string): ClientFrame[] {
    return this.heard.filter((frame): frame is ClientFrame => 'type' in frame && frame.type === 'request' && frame.request.type === type);
  }

  send(data: Uint8Array): void {
    const decoded = decodeFrame(data);
    if (!decoded.ok || decoded.frame.kind !== 'message') throw new Error(`the page sent a frame the engine cannot read: ${JSON.stringify(decoded)}`);
    const frame = decoded.frame.value as Hello | ClientFrame;
    this.heard.push(frame);
    if (this.unanswered.has('type' in frame ? frame.request.type : 'hello')) return;
    if (!('type' in frame)) {
      this.says(
        messageFrame({
          type: 'welcome',
          protocol: 1,
          engine_version: '0.9.0',
          build_id: 'engine-build',
          capabilities: ['events', 'terminals', 'ping'],
          instance_id: 'instance-1',
          pid: 42,
          started_at: 1,
          agents_running: this.agentsRunning,
        }),
      );
      return;
    }
    const { id, request } = frame;
    switch (request.type) {
      case 'subscribe':
        return this.answer(id, { type: 'subscribed', instance_id: 'instance-1', seq: 7 });
      case 'ping':
        return this.answer(id, { type: 'pong' });
      case 'command': {
        const outcome = this.commands(request.command);
        return this.answer(id, 'ok' in outcome ? { type: 'ok', reply: outcome.ok } : { type: 'error', error: outcome.error });
      }
      case 'attach':
        // What the engine kept comes first, before the answer, on the stream the page chose.
        for (const chunk of this.replay) this.says(outputFrame(request.stream, text(chunk)));
        return this.answer(id, { type: 'ok', reply: { type: 'unit' } });
      case 'detach':
        return this.answer(id, { type: 'ok', reply: { type: 'unit' } });
      case 'machines':
        return this.answer(id, { type: 'machines', links: this.machines });
    }
  }

  close(): void {
    this.closedByPage = true;
  }
}

let backend: WebBackend;
let links: EngineLink[];

/** A page on its engine: the socket accepted, the welcome heard, the events subscribed. */
async function connected(): Promise<StandIn> {
  await vi.waitFor(() => expect(StandIn.made.length).toBeGreaterThan(0));
  const socket = StandIn.latest();
  socket.accept();
  await backend.whenListening();
  return socket;
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
  StandIn.made = [];
  vi.stubGlobal('WebSocket', StandIn);
  backend = webBackend(URL);
  links = [];
  backend.onEngineLink((link) => links.push(link));
});

afterEach(() => {
  backend.close();
  vi.unstubAllGlobals();
});

describe('webBackend', () => {
  it('says hello as a browser and is connected once the engine welcomes it', async () => {
    expect(await backend.engineLink()).toEqual({ state: 'connecting' });
    const socket = await connected();
    expect(socket.url).toBe(URL);
    expect(socket.binaryType).toBe('arraybuffer');
    const hello = socket.heard[0] as Hello;
    expect(hello).toEqual({ protocol: 1, app_version: UI_VERSION, build_id: '', client_kind: 'browser', client_id: expect.stringMatching(/^[0-9a-f]{32}$/) });
    expect(socket.requests('subscribe')).toHaveLength(1);
    const link: EngineLink = { state: 'connected', engine_version: '0.9.0', outdated: false, agents_running: 2, host: null, connection: 1, restarted: false, starts_at_login: false };
    expect(await backend.engineLink()).toEqual(link);
    expect(links).toEqual([link]);
    expect(await backend.appInfo()).toEqual({ data_dir: '', socket_path: '', host: null, version: '0.9.0', startup_problem: null });

    // Another page load in the same tab is the same client.
    backend.close();
    backend = webBackend(URL);
    const again = await connected();
    expect((again.heard[0] as Hello).client_id).toBe(hello.client_id);
  });

  it('carries a command to the engine and its answer back; a refusal stays the engine’s ApiError', async () => {
    const socket = await connected();
    socket.commands = (command) =>
      command.type === 'create_profile'
        ? { error: { code: 'invalid_input', message: 'name: a name is one line', field: 'name' } }
        : { ok: { type: 'profiles', value: [] } };
    expect(await backend.listProfiles()).toEqual([]);
    expect(socket.requests('command').map((frame) => frame.request)).toEqual([{ type: 'command', command: { type: 'list_profiles' } }]);
    const refused = await backend.createProfile({} as never).then(
      () => null,
      (error: unknown) => error,
    );
    expect(refused).toEqual({ code: 'invalid_input', message: 'name: a name is one line', field: 'name' });
    // Each request its own id.
    const ids = socket.heard.filter((frame): frame is ClientFrame => 'type' in frame).map((frame) => frame.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('hands the engine’s events to the page in order, with no host, and log entries only while followed', async () => {
    const socket = await connected();
    const heard: [string, string | null][] = [];
    backend.onEngineEvent((event, host) => heard.push([event.type === 'profile_deleted' ? event.profile_id : event.type, host]));
    const logged: EngineEvent = { type: 'logged', entry: { seq: 1, at: 1, session_id: null, task_id: null, kind: 'task_started' }, profile_id: 'a' };
    socket.push({ type: 'profile_deleted', profile_id: 'first' }, 8);
    socket.push(logged, 9);
    socket.push({ type: 'profile_deleted', profile_id: 'second' }, 10);
    await vi.waitFor(() => expect(heard).toEqual([['first', null], ['second', null]]));
    await backend.followLog({ of: 'agent', profile_id: 'a' });
    socket.push(logged, 11);
    await vi.waitFor(() => expect(heard.at(-1)).toEqual(['logged', null]));
    await backend.followLog(null);
    socket.push(logged, 12);
    socket.push({ type: 'profile_deleted', profile_id: 'third' }, 13);
    await vi.waitFor(() => expect(heard.at(-1)).toEqual(['third', null]));
    expect(heard.filter(([type]) => type === 'logged')).toHaveLength(1);
    // A keepalive, and a kind a newer engine pushes, are skipped; what follows still comes.
    socket.says(messageFrame({ type: 'keepalive' }));
    socket.says(messageFrame({ type: 'geometry', stream: 1, rows: 3 }));
    socket.push({ type: 'profile_deleted', profile_id: 'fourth' }, 14);
    await vi.waitFor(() => expect(heard.at(-1)).toEqual(['fourth', null]));
    expect(await backend.engineLink()).toMatchObject({ state: 'connected', connection: 1 });
  });

  it('hands over a frame’s events together, once it has gathered for a frame', async () => {
    const socket = await connected();
    const heard: string[] = [];
    backend.onEngineEvent((event) => heard.push(event.type === 'profile_deleted' ? event.profile_id : event.type));
    for (const name of ['one', 'two', 'three']) socket.push({ type: 'profile_deleted', profile_id: name });
    await vi.advanceTimersByTimeAsync(EVENT_FRAME_MS - 1);
    expect(heard).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(heard).toEqual(['one', 'two', 'three']);
    // A flood goes at once, not held in memory for the frame.
    for (let seq = 0; seq < MOST_IN_FRAME; seq += 1) socket.push({ type: 'profile_deleted', profile_id: `many-${seq}` });
    await vi.waitFor(() => expect(heard).toHaveLength(3 + MOST_IN_FRAME), { interval: 0 });
  });

  it('streams a terminal: its replay (before the attach is answered), then live output, until detached', async () => {
    const socket = await connected();
    socket.replay = ['$ make\r\n', 'built\r\n'];
    const shown: string[] = [];
    const attached = await backend.attachTerminal('session-1', (bytes) => shown.push(read(bytes)));
    expect(shown).toEqual(['$ make\r\n', 'built\r\n']);
    const [attach] = socket.requests('attach');
    expect(attach.request).toEqual({ type: 'attach', session_id: 'session-1', stream: expect.any(Number) });
    const stream = (attach.request as { stream: number }).stream;
    socket.says(outputFrame(stream, text('live')));
    // Another stream's output is not this view's.
    socket.says(outputFrame(stream + 100, text('elsewhere')));
    await vi.waitFor(() => expect(shown).toEqual(['$ make\r\n', 'built\r\n', 'live']));

    // A second view of the same session has a stream of its own.
    const second = await backend.attachTerminal('session-1', () => {});
    const streams = socket.requests('attach').map((frame) => (frame.request as { stream: number }).stream);
    expect(new Set(streams).size).toBe(2);

    await attached.detach();
    expect(socket.requests('detach').map((frame) => frame.request)).toEqual([{ type: 'detach', stream }]);
    socket.says(outputFrame(stream, text('after')));
    await attached.detach();
    expect(socket.requests('detach')).toHaveLength(1);
    await second.detach();
    expect(shown.at(-1)).toBe('live');
  });

  it('attaches a terminal again when the page fell behind its output, drawing it anew from the replay', async () => {
    const socket = await connected();
    socket.replay = ['kept'];
    const shown: string[] = [];
    await backend.attachTerminal('session-1', (bytes) => shown.push(read(bytes)));
    const first = (socket.requests('attach')[0].request as { stream: number }).stream;
    socket.replay = ['kept and more'];
    socket.says(messageFrame({ type: 'stream_ended', stream: first, why: 'behind' }));
    await vi.waitFor(() => expect(shown).toEqual(['kept', '\x1bc', 'kept and more']));
    const again = socket.requests('attach');
    expect(again).toHaveLength(2);
    expect((again[1].request as { stream: number }).stream).not.toBe(first);
    // A stream that ended otherwise (the session's process ended) is not attached again.
    socket.says(messageFrame({ type: 'stream_ended', stream: (again[1].request as { stream: number }).stream, why: 'ended' }));
    socket.push({ type: 'profile_deleted', profile_id: 'x' });
    await vi.advanceTimersByTimeAsync(100);
    expect(socket.requests('attach')).toHaveLength(2);
  });

  it('says the link is lost when the socket drops, and reconnects by itself as connection 2', async () => {
    const socket = await connected();
    socket.drop();
    expect(links.at(-1)).toEqual({ state: 'lost', reason: 'The connection to Switchboard’s engine was lost.', host: null });
    // A command meanwhile is refused in words, not held for the next connection.
    await expect(backend.listProfiles()).rejects.toMatchObject({ code: 'engine_stopped' });
    await vi.advanceTimersByTimeAsync(FIRST_PAUSE_MS - 1);
    expect(StandIn.made).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(StandIn.made).toHaveLength(2);
    // That try fails (nothing answers): the next waits twice as long.
    StandIn.latest().drop();
    expect(links.at(-1)).toEqual({ state: 'lost', reason: 'Switchboard’s engine cannot be reached from this browser.', host: null });
    await vi.advanceTimersByTimeAsync(FIRST_PAUSE_MS * 2 - 1);
    expect(StandIn.made).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(StandIn.made).toHaveLength(3);
    StandIn.latest().accept();
    await vi.waitFor(() => expect(links.at(-1)).toMatchObject({ state: 'connected', connection: 2 }));
    expect(await backend.listProfiles()).toEqual([]);
  });

  it('tries again at once when the browser goes online or the page is shown again', async () => {
    const socket = await connected();
    socket.drop();
    await vi.advanceTimersByTimeAsync(FIRST_PAUSE_MS);
    StandIn.latest().drop();
    expect(StandIn.made).toHaveLength(2);
    window.dispatchEvent(new Event('online'));
    expect(StandIn.made).toHaveLength(3);
    StandIn.latest().drop();
    document.dispatchEvent(new Event('visibilitychange'));
    expect(StandIn.made).toHaveLength(4);
  });

  it('tries again at once when asked (the banner’s “Try now”), not at the end of its pause', async () => {
    const socket = await connected();
    socket.drop();
    await vi.advanceTimersByTimeAsync(FIRST_PAUSE_MS);
    StandIn.latest().drop();
    expect(StandIn.made).toHaveLength(2);
    await backend.startEngine();
    expect(StandIn.made).toHaveLength(3);
    StandIn.latest().accept();
    await vi.waitFor(() => expect(links.at(-1)).toMatchObject({ state: 'connected', connection: 2 }));
  });

  it('is refused, and tries no more, when the engine closes with 4401 (the device is not paired)', async () => {
    const socket = await connected();
    socket.drop(UNPAIRED_CLOSE_CODE, 'This phone was removed from Switchboard’s devices. Pair it again to go on.');
    expect(links.at(-1)).toEqual({ state: 'refused', reason: 'This phone was removed from Switchboard’s devices. Pair it again to go on.', host: null, unpaired: true });
    await vi.advanceTimersByTimeAsync(LAST_PAUSE_MS * 4);
    window.dispatchEvent(new Event('online'));
    expect(StandIn.made).toHaveLength(1);
    await expect(backend.listProfiles()).rejects.toMatchObject({ code: 'engine_stopped', message: 'This phone was removed from Switchboard’s devices. Pair it again to go on.' });
  });

  it('is refused in words when the engine speaks another protocol, and tries again later', async () => {
    await vi.waitFor(() => expect(StandIn.made).toHaveLength(1));
    const socket = StandIn.latest();
    socket.unanswered.add('hello');
    const waiting = backend.listProfiles();
    socket.accept();
    socket.says(messageFrame({ type: 'refused', protocol: 2, engine_version: '2.0.0', reason: 'this engine speaks protocol 2 and the page 1' }));
    await expect(waiting).rejects.toMatchObject({ code: 'engine_stopped' });
    expect(links.at(-1)).toEqual({
      state: 'refused',
      reason: 'The engine runs Switchboard 2.0.0, which cannot talk with this page (this engine speaks protocol 2 and the page 1). Reload the page.',
      host: null,
    });
    expect(socket.closedByPage).toBe(true);
    // An engine of this page's protocol may be running by the next try.
    await vi.advanceTimersByTimeAsync(FIRST_PAUSE_MS);
    StandIn.latest().accept();
    await vi.waitFor(() => expect(links.at(-1)).toMatchObject({ state: 'connected', connection: 1 }));
  });

  it('rejects a request in flight when the socket drops, in words', async () => {
    const socket = await connected();
    socket.unanswered.add('command');
    const listing = backend.listProfiles();
    await vi.waitFor(() => expect(socket.requests('command')).toHaveLength(1));
    socket.drop();
    const error = await listing.then(
      () => null,
      (reason: unknown) => reason as ApiError,
    );
    expect(error).toMatchObject({ code: 'engine_stopped', field: null });
    expect(error?.message).toBe('The connection to Switchboard’s engine was lost. Its answer to this did not come.');
  });

  it('waits for the first connection before sending, and refuses once the first try failed', async () => {
    const waiting = backend.listProfiles();
    await vi.waitFor(() => expect(StandIn.made).toHaveLength(1));
    StandIn.latest().accept();
    expect(await waiting).toEqual([]);

    backend.close();
    backend = webBackend(URL);
    const refused = backend.listProfiles();
    await vi.waitFor(() => expect(StandIn.made).toHaveLength(2));
    StandIn.latest().drop();
    await expect(refused).rejects.toMatchObject({ code: 'engine_stopped', message: 'Switchboard’s engine cannot be reached from this browser.' });
  });

  it('closes and reconnects a connection whose pings go unanswered, or that never says hello', async () => {
    const socket = await connected();
    socket.unanswered.add('ping');
    await vi.advanceTimersByTimeAsync(PING_EVERY_MS);
    expect(socket.requests('ping')).toHaveLength(1);
    expect(socket.closedByPage).toBe(false);
    await vi.advanceTimersByTimeAsync(PONG_DEADLINE_MS);
    expect(socket.closedByPage).toBe(true);
    expect(links.at(-1)).toEqual({ state: 'lost', reason: 'Switchboard’s engine stopped answering.', host: null });
    await vi.advanceTimersByTimeAsync(FIRST_PAUSE_MS);
    // This one opens but never answers the hello.
    const mute = StandIn.latest();
    expect(mute).not.toBe(socket);
    mute.unanswered.add('hello');
    mute.accept();
    await vi.advanceTimersByTimeAsync(HELLO_DEADLINE_MS);
    expect(mute.closedByPage).toBe(true);
    expect(links.at(-1)).toEqual({ state: 'lost', reason: 'Switchboard’s engine did not answer in time.', host: null });
  });

  it('pings while connected and keeps the connection that answers', async () => {
    const socket = await connected();
    await vi.advanceTimersByTimeAsync(PING_EVERY_MS * 3);
    expect(socket.requests('ping')).toHaveLength(3);
    expect(socket.closedByPage).toBe(false);
    expect(links.at(-1)).toMatchObject({ state: 'connected', connection: 1 });
  });

  it('makes a new connection at once when the engine dropped events the page did not take', async () => {
    const socket = await connected();
    socket.says(messageFrame({ type: 'events_lost', missed: 30 }));
    await vi.waitFor(() => expect(StandIn.made).toHaveLength(2));
    expect(socket.closedByPage).toBe(true);
    StandIn.latest().accept();
    await vi.waitFor(() => expect(links.at(-1)).toMatchObject({ state: 'connected', connection: 2 }));
  });

  it('lets go of a connection that sends a frame it cannot read, and makes another', async () => {
    const socket = await connected();
    const frame = messageFrame({ type: 'event', seq: 1, event: { type: 'profile_deleted', profile_id: 'x' } });
    // Its length says one byte more than it carries.
    new DataView(frame.buffer).setUint32(0, frame.length - 3);
    socket.says(frame);
    await vi.waitFor(() => expect(socket.closedByPage).toBe(true));
    expect(links.at(-1)).toEqual({ state: 'lost', reason: 'Switchboard’s engine sent something this page cannot read.', host: null });
  });

  it('reaches the other machines through the engine that serves it (commands named for one, their links and events), and hears its page notices', async () => {
    const socket = await connected();
    const box: HostLink = { destination: 'me@box', link: { state: 'connecting' } };
    socket.machines = [box];
    expect(await backend.attachedHosts()).toEqual([box]);
    const changes: HostLink[] = [];
    backend.onHostLink((link) => changes.push(link));
    const reached: HostLink = { destination: 'me@box', link: { state: 'connected', engine_version: '0.9.0', outdated: false, agents_running: 1, host: 'me@box', connection: 1, restarted: false, starts_at_login: false } };
    socket.says(messageFrame({ type: 'machine', link: reached }));
    await vi.waitFor(() => expect(changes).toEqual([reached]));

    expect(await backend.machine('me@box').listProfiles()).toEqual([]);
    expect(await backend.machine(null).listProfiles()).toEqual([]);
    expect(socket.requests('command').map((frame) => frame.request)).toEqual([
      { type: 'command', command: { type: 'list_profiles' }, host: 'me@box' },
      { type: 'command', command: { type: 'list_profiles' } },
    ]);

    const told: PageNotice[] = [];
    backend.onPageNotice((notice) => told.push(notice));
    socket.says(messageFrame({ type: 'notice', notice: { type: 'close', place: 'app' } }));
    await vi.waitFor(() => expect(told).toEqual([{ type: 'close', place: 'app' }]));

    const heard: [string, string | null][] = [];
    backend.onEngineEvent((event, host) => heard.push([event.type === 'profile_deleted' ? event.profile_id : event.type, host]));
    socket.push({ type: 'profile_deleted', profile_id: 'there' }, 3, 'me@box');
    socket.push({ type: 'profile_deleted', profile_id: 'here' }, 8);
    await vi.waitFor(() => expect(heard).toEqual([['there', 'me@box'], ['here', null]]));
  });

  it('refuses in words what only the desktop does, and answers empty what a browser has none of', async () => {
    await connected();
    const refusals: [string, () => Promise<unknown>][] = [
      ['restartEngine', () => backend.restartEngine()],
      ['quitAndStopAgents', () => backend.quitAndStopAgents()],
      ['openArtifact', () => backend.openArtifact('task-1', 'out.txt', false)],
      ['addHost', () => backend.addHost('me@box', null, null, null)],
      ['removeHost', () => backend.removeHost('me@box')],
      ['openHost', () => backend.openHost('me@box')],
      ['connectHost', () => backend.connectHost('me@box')],
    ];
    for (const [what, call] of refusals) {
      const error = await call().then(
        () => null,
        (reason: unknown) => reason as ApiError,
      );
      expect(error, what).toMatchObject({ code: 'not_allowed', field: null });
      expect(error?.message, what).toMatch(/^[A-Z].*\.$/);
    }
    await expect(backend.openArtifact('task-1', 'out.txt', true)).rejects.toMatchObject({ message: 'Files open only on the computer the agents run on.' });
    expect(await backend.listHosts()).toEqual([]);
    expect(await backend.attachedHosts()).toEqual([]);
    expect(await backend.pickFolder('/home')).toBeNull();
    expect(await backend.takeOpenTarget()).toBeNull();
    expect(await backend.machine(null).listProfiles()).toEqual([]);
    // The desktop's notices follow the desktop's view: a phone's is not told.
    const socket = StandIn.latest();
    const before = socket.heard.length;
    await backend.setViewing({ profile_id: null, task_id: null, focused: true });
    await backend.setEventPace('calm');
    expect(socket.heard).toHaveLength(before);
    for (const subscribe of [backend.onOpenTask, backend.onOpenSignal, backend.onOpenLoop, backend.onOpenTarget, backend.onAskQuitAndStop, backend.onHostLink]) {
      expect(typeof subscribe(() => {})).toBe('function');
    }
  });
});

describe('afterEnd', () => {
  it('says why the link ended, and when it tries again', () => {
    const cases: [Ending, EngineLink['state'], Retry][] = [
      [{ how: 'unopened' }, 'lost', 'after_pause'],
      [{ how: 'unanswered' }, 'lost', 'after_pause'],
      [{ how: 'hello_refused', engineVersion: '2.0.0', reason: 'protocol 2' }, 'refused', 'after_pause'],
      [{ how: 'closed', code: 1006, reason: '', welcomed: true }, 'lost', 'after_pause'],
      [{ how: 'closed', code: 1001, reason: 'going away', welcomed: false }, 'lost', 'after_pause'],
      [{ how: 'closed', code: UNPAIRED_CLOSE_CODE, reason: 'Revoked.', welcomed: true }, 'refused', 'never'],
      [{ how: 'closed', code: UNPAIRED_CLOSE_CODE, reason: '', welcomed: false }, 'refused', 'never'],
      [{ how: 'silent' }, 'lost', 'after_pause'],
      [{ how: 'behind' }, 'lost', 'now'],
      [{ how: 'unsubscribed' }, 'lost', 'after_pause'],
      [{ how: 'unreadable' }, 'lost', 'after_pause'],
    ];
    for (const [ending, state, retry] of cases) {
      const { link, retry: decided } = afterEnd(ending);
      expect([link.state, decided], JSON.stringify(ending)).toEqual([state, retry]);
      // Always a sentence for the banner, never empty, naming no machine.
      const reason = 'reason' in link ? link.reason : '';
      expect(reason, JSON.stringify(ending)).toMatch(/^[A-Z].*\.$/);
      expect('host' in link && link.host).toBe(null);
    }
    expect(afterEnd({ how: 'closed', code: UNPAIRED_CLOSE_CODE, reason: 'Revoked.', welcomed: true }).link).toMatchObject({ reason: 'Revoked.' });
  });

  it('waits half a second first, doubling to eight at most', () => {
    const pauses = [FIRST_PAUSE_MS];
    while (pauses.length < 7) pauses.push(nextPause(pauses.at(-1) ?? 0));
    expect(pauses).toEqual([500, 1000, 2000, 4000, 8000, 8000, 8000]);
  });

  it('reaches the WebSocket of the page’s own origin, secure on a secure page', () => {
    const cases: [string, string, string][] = [
      ['http:', '127.0.0.1:7420', 'ws://127.0.0.1:7420/ws'],
      ['https:', 'box.tailnet.ts.net:7420', 'wss://box.tailnet.ts.net:7420/ws'],
      ['https:', '[::1]:8443', 'wss://[::1]:8443/ws'],
    ];
    for (const [protocol, host, url] of cases) expect(engineSocketUrl({ protocol, host })).toBe(url);
  });
});
