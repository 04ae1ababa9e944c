/**
 * An in-memory `Backend` for Vitest and for running the page in a plain browser.
 *
 * It validates profiles the way the engine does (name, command on a known list, existing
 * working directory) and rejects with the same `ApiError` codes, fields and messages, emits the same
 * engine events, and runs each session as a scripted line-echo terminal: typed characters are
 * echoed, Enter answers `echo: <line>`, `exit` ends the session with code 0.
 *
 * Output is delivered synchronously, which keeps tests deterministic. Every call is recorded
 * in `calls` so tests can assert what the UI asked for.
 */
import type {
  ApiError,
  AppInfo,
  EngineEvent,
  ErrorCode,
  Profile,
  ProfileId,
  ProfileSpec,
  SessionId,
  SessionInfo,
  SessionState,
  SubscriptionId,
  TermSize,
} from './bindings';
import type { Backend, TerminalAttachment, Unsubscribe } from './backend';
import { apiError } from './errors';

export interface FakeCall {
  command: string;
  args: Record<string, unknown>;
}

export interface FakeBackendOptions {
  /** Programs `create_profile` accepts as found on PATH (absolute paths are always accepted). */
  commands?: string[];
  /** Directories that exist. */
  directories?: string[];
  /** Clock in milliseconds since the epoch. */
  now?: () => number;
}

/** Cap on a fake session's retained output, like the engine's bounded scrollback. */
const FAKE_SCROLLBACK_BYTES = 256 * 1024;

const PROMPT = '\x1b[32m$\x1b[0m ';

interface FakeSession {
  info: SessionInfo;
  scrollback: Uint8Array[];
  scrollbackBytes: number;
  line: string;
  paused: boolean;
  subscribers: Map<SubscriptionId, (bytes: Uint8Array) => void>;
}

const encoder = new TextEncoder();

export class FakeBackend implements Backend {
  readonly calls: FakeCall[] = [];
  readonly #profiles = new Map<ProfileId, Profile>();
  readonly #sessions = new Map<SessionId, FakeSession>();
  readonly #listeners = new Set<(event: EngineEvent) => void>();
  readonly #failures = new Map<string, ApiError[]>();
  readonly #commands: Set<string>;
  readonly #directories: Set<string>;
  readonly #now: () => number;
  #nextId = 1;
  #nextPid = 4200;
  #nextSubscription = 1;

  constructor(options: FakeBackendOptions = {}) {
    this.#commands = new Set(options.commands ?? ['bash', 'sh', 'claude', 'codex', 'python3', 'node']);
    this.#directories = new Set(options.directories ?? ['/', '/tmp', '/home', '/work']);
    this.#now = options.now ?? (() => Date.now());
  }

  // ---- test controls -------------------------------------------------------------------

  /** Make the next call of `command` (an invoke name, e.g. `start_session`) reject with `error`. */
  failNext(command: string, error: ApiError): void {
    const queue = this.#failures.get(command) ?? [];
    queue.push(error);
    this.#failures.set(command, queue);
  }

  /** Deliver an engine event to subscribers, as the engine would. */
  emit(event: EngineEvent): void {
    for (const listener of [...this.#listeners]) listener(event);
  }

  /** Append output to a session as if its process printed it. */
  output(sessionId: SessionId, text: string | Uint8Array): void {
    const session = this.#session(sessionId);
    this.#print(session, typeof text === 'string' ? encoder.encode(text) : text);
  }

  /** End a running session as if its process exited. */
  exit(sessionId: SessionId, exitCode: number): SessionInfo {
    const session = this.#session(sessionId);
    this.#end(session, { state: 'exited', exit_code: exitCode, signal: null, ended_at: this.#now() });
    return session.info;
  }

  isPaused(sessionId: SessionId): boolean {
    return this.#session(sessionId).paused;
  }

  subscriberCount(sessionId: SessionId): number {
    return this.#session(sessionId).subscribers.size;
  }

  /** Add a profile without validation or events (for seeding). */
  seedProfile(spec: Partial<ProfileSpec> & { name: string }): Profile {
    const profile: Profile = {
      id: `profile-${this.#nextId++}`,
      created_at: this.#now(),
      command: 'bash',
      args: [],
      env: {},
      cwd: '/tmp',
      kind: 'generic',
      start_on_launch: false,
      ...spec,
    };
    this.#profiles.set(profile.id, profile);
    return profile;
  }

  /** Add a session in any state without events (for seeding). */
  seedSession(profileId: ProfileId, state: SessionState, startedAt = this.#now()): SessionInfo {
    const info: SessionInfo = { id: `session-${this.#nextId++}`, profile_id: profileId, started_at: startedAt, size: { rows: 24, cols: 80 }, ...state };
    const session = this.#newSession(info);
    if (state.state !== 'running') {
      this.#print(session, encoder.encode(`(output of an earlier run)\r\n${PROMPT}exit\r\n`));
    }
    return info;
  }

  // ---- Backend -------------------------------------------------------------------------

  async listProfiles(): Promise<Profile[]> {
    this.#record('list_profiles', {});
    return [...this.#profiles.values()];
  }

  async createProfile(spec: ProfileSpec): Promise<Profile> {
    this.#record('create_profile', { spec });
    this.#validate(spec, null);
    const profile: Profile = { id: `profile-${this.#nextId++}`, created_at: this.#now(), ...structuredClone(spec) };
    this.#profiles.set(profile.id, profile);
    this.emit({ type: 'profile_saved', profile });
    return profile;
  }

  async updateProfile(profileId: ProfileId, spec: ProfileSpec): Promise<Profile> {
    this.#record('update_profile', { profileId, spec });
    const current = this.#profile(profileId);
    this.#validate(spec, profileId);
    const profile: Profile = { ...current, ...structuredClone(spec) };
    this.#profiles.set(profileId, profile);
    this.emit({ type: 'profile_saved', profile });
    return profile;
  }

  async deleteProfile(profileId: ProfileId): Promise<void> {
    this.#record('delete_profile', { profileId });
    this.#profile(profileId);
    const busy = [...this.#sessions.values()].some((s) => s.info.profile_id === profileId && s.info.state === 'running');
    if (busy) throw apiError('profile_busy', 'the profile has a running session; stop it first');
    this.#profiles.delete(profileId);
    // As the engine does: the profile's sessions go with it.
    for (const [id, session] of this.#sessions) if (session.info.profile_id === profileId) this.#sessions.delete(id);
    this.emit({ type: 'profile_deleted', profile_id: profileId });
  }

  async listSessions(): Promise<SessionInfo[]> {
    this.#record('list_sessions', {});
    return [...this.#sessions.values()].map((s) => s.info);
  }

  async startSession(profileId: ProfileId, size: TermSize): Promise<SessionInfo> {
    this.#record('start_session', { profileId, size });
    return this.#start(this.#profile(profileId), size);
  }

  async stopSession(sessionId: SessionId): Promise<SessionInfo> {
    this.#record('stop_session', { sessionId });
    const session = this.#running(sessionId);
    this.#print(session, encoder.encode('\r\n^C\r\n'));
    this.#end(session, { state: 'killed', exit_code: 143, signal: 'SIGTERM', ended_at: this.#now() });
    return session.info;
  }

  async restartSession(sessionId: SessionId, size: TermSize): Promise<SessionInfo> {
    this.#record('restart_session', { sessionId, size });
    const session = this.#session(sessionId);
    if (session.info.state === 'running') {
      this.#end(session, { state: 'killed', exit_code: 143, signal: 'SIGTERM', ended_at: this.#now() });
    }
    return this.#start(this.#profile(session.info.profile_id), size);
  }

  async writeInput(sessionId: SessionId, data: string): Promise<void> {
    this.#record('write_input', { sessionId, data });
    const session = this.#running(sessionId);
    for (const ch of data) this.#type(session, ch);
  }

  async resizeSession(sessionId: SessionId, size: TermSize): Promise<void> {
    this.#record('resize_session', { sessionId, size });
    const session = this.#running(sessionId);
    session.info = { ...session.info, size };
  }

  async setOutputPaused(sessionId: SessionId, paused: boolean): Promise<void> {
    this.#record('set_output_paused', { sessionId, paused });
    this.#session(sessionId).paused = paused;
  }

  async attachTerminal(sessionId: SessionId, onBytes: (bytes: Uint8Array) => void): Promise<TerminalAttachment> {
    this.#record('attach_terminal', { sessionId });
    const session = this.#session(sessionId);
    for (const chunk of session.scrollback) onBytes(chunk);
    const subscription = this.#nextSubscription++;
    if (session.info.state === 'running') session.subscribers.set(subscription, onBytes);
    return {
      subscription,
      detach: async () => {
        if (!session.subscribers.has(subscription)) return;
        this.#record('detach_terminal', { sessionId, subscription });
        session.subscribers.delete(subscription);
      },
    };
  }

  async appInfo(): Promise<AppInfo> {
    this.#record('app_info', {});
    return { data_dir: '(in memory)', socket_path: '(none)', version: 'browser preview (fake backend)' };
  }

  onEngineEvent(callback: (event: EngineEvent) => void): Unsubscribe {
    this.#listeners.add(callback);
    return () => this.#listeners.delete(callback);
  }

  // ---- internals -----------------------------------------------------------------------

  #record(command: string, args: Record<string, unknown>): void {
    this.calls.push({ command, args: structuredClone(args) });
    const error = this.#failures.get(command)?.shift();
    if (error) throw error;
  }

  #fail(code: ErrorCode, message: string, field: string | null = null): never {
    throw apiError(code, message, field);
  }

  #validate(spec: ProfileSpec, self: ProfileId | null): void {
    const name = spec.name.trim();
    if (name === '') this.#fail('invalid_input', 'name must not be empty', 'name');
    const clash = [...this.#profiles.values()].some((p) => p.name === name && p.id !== self);
    if (clash) this.#fail('duplicate_name', `a profile named \`${name}\` already exists`, 'name');
    if (spec.command.trim() === '') this.#fail('invalid_input', 'command must not be empty', 'command');
    if (!spec.command.startsWith('/') && !this.#commands.has(spec.command)) {
      this.#fail('command_not_found', `command \`${spec.command}\` was not found: it is neither an executable file nor on PATH`, 'command');
    }
    if (!this.#directories.has(spec.cwd)) {
      this.#fail('directory_missing', `working directory ${spec.cwd} does not exist or is not a directory`, 'cwd');
    }
  }

  #profile(profileId: ProfileId): Profile {
    return this.#profiles.get(profileId) ?? this.#fail('profile_not_found', `no profile with id ${profileId}`);
  }

  #session(sessionId: SessionId): FakeSession {
    return this.#sessions.get(sessionId) ?? this.#fail('session_not_found', `no session with id ${sessionId}`);
  }

  #running(sessionId: SessionId): FakeSession {
    const session = this.#session(sessionId);
    if (session.info.state !== 'running') this.#fail('session_not_running', 'the session has ended');
    return session;
  }

  #start(profile: Profile, size: TermSize): SessionInfo {
    const info: SessionInfo = {
      id: `session-${this.#nextId++}`,
      profile_id: profile.id,
      started_at: this.#now(),
      size,
      state: 'running',
      pid: this.#nextPid++,
    };
    const session = this.#newSession(info);
    const argv = [profile.command, ...profile.args].join(' ');
    this.#print(session, encoder.encode(`\x1b[2mSwitchboard fake backend: \`${argv}\` in ${profile.cwd}\x1b[0m\r\n${PROMPT}`));
    this.emit({ type: 'session_changed', session: info });
    return info;
  }

  #newSession(info: SessionInfo): FakeSession {
    const session: FakeSession = { info, scrollback: [], scrollbackBytes: 0, line: '', paused: false, subscribers: new Map() };
    this.#sessions.set(info.id, session);
    return session;
  }

  #end(session: FakeSession, state: Exclude<SessionState, { state: 'running' }>): void {
    const { id, profile_id, started_at, size } = session.info;
    session.info = { id, profile_id, started_at, size, ...state };
    session.subscribers.clear();
    this.emit({ type: 'session_changed', session: session.info });
  }

  #type(session: FakeSession, ch: string): void {
    if (ch === '\r' || ch === '\n') {
      const line = session.line;
      session.line = '';
      if (line.trim() === 'exit') {
        this.#print(session, encoder.encode('\r\n'));
        this.exit(session.info.id, 0);
        return;
      }
      const reply = line === '' ? '' : `echo: ${line}\r\n`;
      this.#print(session, encoder.encode(`\r\n${reply}${PROMPT}`));
    } else if (ch === '\x7f' || ch === '\b') {
      if (session.line.length > 0) {
        session.line = session.line.slice(0, -1);
        this.#print(session, encoder.encode('\b \b'));
      }
    } else if (ch >= ' ') {
      session.line += ch;
      this.#print(session, encoder.encode(ch));
    }
  }

  #print(session: FakeSession, bytes: Uint8Array): void {
    session.scrollback.push(bytes);
    session.scrollbackBytes += bytes.length;
    while (session.scrollbackBytes > FAKE_SCROLLBACK_BYTES && session.scrollback.length > 1) {
      session.scrollbackBytes -= session.scrollback.shift()?.length ?? 0;
    }
    for (const onBytes of session.subscribers.values()) onBytes(bytes);
  }
}

/** The fake with a demo profile and a running demo session, for the plain-browser page. */
export function demoBackend(): FakeBackend {
  const backend = new FakeBackend();
  const hour = 3600 * 1000;
  const now = Date.now();
  const claude = backend.seedProfile({ name: 'claude', command: 'claude', args: ['--model', 'sonnet'], cwd: '/work', kind: 'claude-code' });
  backend.seedSession(claude.id, { state: 'exited', exit_code: 0, signal: null, ended_at: now - 2 * hour }, now - 3 * hour);
  backend.seedSession(claude.id, { state: 'interrupted', ended_at: now - hour }, now - 2 * hour);
  const codex = backend.seedProfile({ name: 'codex', command: 'codex', cwd: '/work', kind: 'codex' });
  backend.seedSession(codex.id, { state: 'killed', exit_code: 143, signal: 'SIGTERM', ended_at: now - hour / 2 }, now - hour);
  const demo = backend.seedProfile({ name: 'demo', command: 'bash', args: ['-i'], cwd: '/tmp', kind: 'generic', start_on_launch: true });
  void backend.startSession(demo.id, { rows: 24, cols: 80 });
  return backend;
}
