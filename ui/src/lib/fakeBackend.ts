/**
 * An in-memory `Backend` for Vitest and for running the page in a plain browser: a small state
 * model of the engine's records (agents, sessions, tasks, signals, loops, worktrees, hosts),
 * lists in memory and the engine's events emitted on change. It does not decide what the engine
 * decides: what an agent asks of the user (`setAttention`), a worktree's state and overlaps
 * (`seedWorktree`, `changeWorktree`), an agent's problems (`setProfileProblems`), what search
 * finds (`setSearchHits`), the graph (`setOverview`), a flow's lit nodes (`setFlowView`) and an
 * outcome a test wants (`answerNext`, `failNext`) are told by the test as the engine would send
 * them; the rest of the engine's answers (a merge, a review's prompt, a refusal in its words)
 * are its recorded ones (`fakeRecorded.ts`, from `tests/tests/suite/contract.rs`).
 *
 * Sessions are scripted line-echo terminals: typed characters are echoed, Enter answers
 * `echo: <line>`, `exit` ends the session with code 0. Tasks queue per agent, one at a time;
 * a task never finishes by itself: tests end it with `finishTask`. Output is delivered
 * synchronously, which keeps tests deterministic. Every call is recorded in `calls` so tests can
 * assert what the UI asked for.
 */
import type {
  AgentAttention,
  HostState,
  AgentPreset,
  DetectedAgent,
  Attention,
  Viewing,
  StorageProblem,
  StorageStatus,
  AgentStatusInfo,
  PermissionRequest,
  ApiError,
  AppInfo,
  Delegation,
  DiscardOutcome,
  EngineEvent,
  FileDiff,
  FolderListing,
  FolderRepository,
  MergeOutcome,
  RebaseOutcome,
  ReviewComment,
  WorktreeDiff,
  WorktreeInfo,
  CommitOutcome,
  Iteration,
  LoopId,
  LoopFile,
  LoopFiles,
  LoopInfo,
  LoopSettings,
  ErrorCode,
  LogEntry,
  LogKind,
  Profile,
  ProfileId,
  ProfileProblem,
  ProfileSpec,
  QueueStatus,
  ScanEvent,
  SessionId,
  Settings,
  SessionInfo,
  SessionState,
  SignalId,
  SignalInfo,
  SignalResponse,
  Submitted,
  SubscriptionId,
  TaskId,
  TaskInfo,
  TaskResult,
  TaskAction,
  TaskSpec,
  TaskState,
  TermSize,
  WaitingFor,
} from './bindings';
import type { Device, PageNotice, PairingCode, WebSettings, WebStatus } from './bindings';
import type { CostGrouping, CostReport, CostRow, CostSince, Spent } from './bindings';
import type { Automation, AutomationId, AutomationSpec } from './bindings';
import type { AccountLimit, AccountUsage, EventPace, HostLink, OpenTarget, QueuePause, RestartTask, Restarted } from './bindings';
import type { Diagram, DiagramState, FlowEvents, FlowTarget, FlowView, FollowedLog, Overview, ScreenSnapshot, SearchHit } from './bindings';
import diagramData from '../test/diagrams.json';
import presetData from '../test/presets.json';
import { dispatchCommand, engineCommands, type EngineCommands } from './bindings';
import type { Backend, BackendKind, TerminalAttachment, Unsubscribe } from './backend';
import type { PageLink } from './engineLink';
import { connectedHost, DEMO_TASK, sampleResult } from '../test/records';
import { apiError } from './errors';
import type { SignalAction as EngineSignalAction } from './bindings';
import { DEFAULT_SETTINGS } from './settings';
import { applyMove, firstLine, queueOf, taskTitle } from './tasks';
import { worktreeKeyOf } from './changes';
import { NO_TOKENS, NOTHING_SPENT } from './cost';
import { recordedAnswer, recordedRefusal, recordedRefusalOf, type Json } from './fakeRecorded';

export interface FakeCall {
  command: string;
  args: Record<string, unknown>;
  /**
   * The machine the call was sent to through `machine(host)` (null: this computer); absent
   * for a call sent without naming one (the shell routes those).
   */
  machine?: string | null;
}

export interface FakeBackendOptions {
  /** Programs `create_profile` accepts as found on PATH (absolute paths are always accepted). */
  commands?: string[];
  /** Directories that exist. */
  directories?: string[];
  /**
   * Git repositories: each top folder (a directory, made one if it is not listed), the branch
   * checked out there (none: detached) and the command run in each new worktree. A directory
   * under a root is inside that repository.
   */
  repositories?: { root: string; branch?: string | null; setup_command?: string | null }[];
  /**
   * What the folder picker answers, in turn: a path the user picked, or null (cancelled). Once
   * they are used up it answers null.
   */
  pickedFolders?: (string | null)[];
  /** Clock in milliseconds since the epoch. */
  now?: () => number;
  /** Why the engine could not start on its data: the app then answers every call with `engine_stopped`. */
  startupProblem?: StorageProblem;
  /** Spooled hook events the start could not read. */
  hookEventsSetAside?: number;
  /** The machine the window's engine runs on (an SSH destination), as `app_info` tells; none: this one. */
  host?: string;
  /** The engine machine's home folder (`~` in a path `list_folder` is asked for); /home/dev unless given. */
  home?: string;
  /** Where the page runs, as the real backend says it: the desktop window unless given. */
  kind?: BackendKind;
}

/** A machine's state as the shell reports it, the fields not given empty (its words too). */
function fakeHost(host: Partial<HostState> & { destination: string }): HostState {
  return { port: null, remote_program: null, state: 'connected', version: null, agents_running: null, problem: null, words: '', unknown_key: null, ...host };
}

/** The folders the fake's home folder holds, whatever directories it was given. */
const HOME_FOLDERS = ['projects/api', 'projects/web', 'notes', '.config'];

/** The engine's defaults for what a profile spec leaves out. */
const PROFILE_DEFAULTS = {
  ready_pattern: null,
  ready_quiet_ms: 800,
  task_time_limit_secs: 1800,
  completion: 'summary',
  signal_protocols: true,
  switchboard_tools: true,
  quiet_alert_secs: 600,
  isolation: 'none',
  account: null,
  daily_budget: null,
} as const;

/** What a seeded agent is unless told otherwise (`seedProfile`): a generic `bash` in /tmp with the engine's defaults. */
export const SEEDED_SPEC = {
  command: 'bash',
  args: [],
  env: {},
  cwd: '/tmp',
  kind: 'generic',
  start_on_launch: false,
  ...PROFILE_DEFAULTS,
} satisfies Omit<ProfileSpec, 'name'>;

/** The most iterations one page of a loop's history holds (the engine's `MAX_ITERATION_PAGE`). */
const MAX_ITERATION_PAGE = 200;

/** The largest loop file the user may save (the engine's `MAX_LOOP_FILE_BYTES`). */
const MAX_LOOP_FILE_BYTES = 256 * 1024;

/** The engine's `MAX_QUERY_BYTES`: a longer search is refused. */
const MAX_QUERY_BYTES = 1024;
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
/** A worktree as the engine reports it, with the diff it shows. */
interface FakeWorktree {
  info: WorktreeInfo;
  files: FileDiff[];
  summary: string | null;
  uncommitted: boolean;
}

/** A terminal control sequence (colours, cursor moves), dropped from the fake's screen text. */
const CSI = new RegExp(`${String.fromCharCode(27)}\\[[0-9;?]*[A-Za-z]`, 'g');


export class FakeBackend implements Backend {
  readonly calls: FakeCall[] = [];
  readonly #profiles = new Map<ProfileId, Profile>();
  readonly #sessions = new Map<SessionId, FakeSession>();
  readonly #listeners = new Set<(event: EngineEvent, host: string | null) => void>();
  readonly #openTaskListeners = new Set<(taskId: TaskId) => void>();
  readonly #openSignalListeners = new Set<(signalId: SignalId) => void>();
  readonly #tasks = new Map<TaskId, TaskInfo>();
  readonly #log: LogEntry[] = [];
  /** Paused queues, with who paused each and why. */
  readonly #pausedQueues = new Map<ProfileId, QueuePause>();
  readonly #failures = new Map<string, ApiError[]>();
  readonly #commands: Set<string>;
  readonly #pickedFolders: (string | null)[];
  readonly #directories: Set<string>;
  /** Git repositories by top folder. */
  readonly #repositories = new Map<string, { branch: string | null; setup_command: string | null }>();
  /** The worktrees made for tasks and loops, by their task's or loop's id, in the order made. */
  readonly #worktrees = new Map<string, FakeWorktree>();
  /** Answers a test gave for the next call of a command (`answerNext`), the engine's decision. */
  readonly #answers = new Map<string, unknown[]>();
  /** How often each repository's base branch moved (a merge landed on it), by `root:base`. */
  /** The loop a log entry is about, by its number (the engine's log keeps it beside the entry). */
  readonly #logLoops = new Map<number, LoopId>();
  readonly #now: () => number;
  readonly #signals = new Map<SignalId, SignalInfo>();
  #nextId = 1;
  #nextSignal = 1;
  #nextPid = 4200;
  #nextSubscription = 1;
  #nextTask = 1;
  #nextSeq = 1;
  #viewing: Viewing = { profile_id: null, task_id: null, focused: false };
  #pace: EventPace = 'live';
  // The engine's own price table, as it was recorded answering (the window knows none of its own).
  #settings: Settings = { ...structuredClone(DEFAULT_SETTINGS), prices: recordedAnswer<Settings>('get_settings', {}, { now: 0 }).prices };
  #storageProblem: StorageProblem | null = null;
  readonly #hookEventsSetAside: number;
  readonly #startupProblem: StorageProblem | null;
  readonly #host: string | null;
  readonly #home: string;

  readonly kind: BackendKind;

  constructor(options: FakeBackendOptions = {}) {
    this.kind = options.kind ?? 'window';
    this.#startupProblem = options.startupProblem ?? null;
    this.#host = options.host ?? null;
    this.#home = options.home ?? '/home/dev';
    this.#hookEventsSetAside = options.hookEventsSetAside ?? 0;
    this.#commands = new Set(options.commands ?? ['bash', 'sh', 'claude', 'codex', 'python3', 'node']);
    this.#directories = new Set(options.directories ?? ['/', '/tmp', '/home', '/work']);
    for (const repository of options.repositories ?? []) {
      this.#directories.add(repository.root);
      this.#repositories.set(repository.root, {
        branch: repository.branch === undefined ? 'main' : repository.branch,
        setup_command: repository.setup_command ?? null,
      });
    }
    // The home folder's folders, and every folder above each folder there is.
    for (const folder of HOME_FOLDERS) this.#directories.add(`${this.#home}/${folder}`);
    for (const folder of [...this.#directories]) {
      for (let at = folder; at.lastIndexOf('/') > 0; ) this.#directories.add((at = at.slice(0, at.lastIndexOf('/'))));
    }
    this.#directories.add('/');
    this.#now = options.now ?? (() => Date.now());
    this.#pickedFolders = [...(options.pickedFolders ?? [])];
  }

  // ---- test controls -------------------------------------------------------------------

  /** The data can no longer be written (or, with null, can again), as the engine reports it. */
  setStorageProblem(problem: StorageProblem | null): void {
    this.#storageProblem = problem;
    this.emit({ type: 'storage_changed', problem });
  }

  /** Make the next call of `command` (an invoke name, e.g. `start_session`) reject with `error`. */
  failNext(command: string, error: ApiError): void {
    const queue = this.#failures.get(command) ?? [];
    queue.push(error);
    this.#failures.set(command, queue);
  }

  /** Deliver an engine event to subscribers, as the engine would. */
  emit(event: EngineEvent): void {
    for (const listener of [...this.#listeners]) listener(event, null);
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

  /** Add a profile without validation or events (for seeding); `host`: an agent of that other machine. */
  seedProfile(spec: Partial<ProfileSpec> & { name: string; host?: string }): Profile {
    const profile: Profile = {
      id: `profile-${this.#nextId++}`,
      created_at: this.#now(),
      host: null,
      ...structuredClone(SEEDED_SPEC),
      ...spec,
    };
    this.#profiles.set(profile.id, profile);
    return profile;
  }

  /**
   * Add a task in any state without events or queue logic (for seeding). Fields not given
   * take the values of a task just submitted; `profile_id` is required.
   */
  seedTask(task: Partial<TaskInfo> & { profile_id: ProfileId }): TaskInfo {
    // A task as the engine lists it from its store: nothing spent costs nothing.
    const seeded: TaskInfo = { ...this.#newTask({ instruction: 'seeded task', ...task } as TaskSpec), cost_usd: 0, ...task };
    const info = { ...seeded, pick: task.pick ?? pickOf(seeded) };
    this.#tasks.set(info.id, info);
    return info;
  }

  /**
   * End the agent's running task (or the given task) as the engine would when its summary
   * appeared (`completed`), it failed or it timed out; then the queue moves on.
   */
  finishTask(
    which: { profileId: ProfileId } | { taskId: TaskId },
    outcome: { state?: Extract<TaskState, 'completed' | 'failed' | 'timed_out' | 'interrupted'>; result?: TaskResult | null; reason?: string | null } = {},
  ): TaskInfo {
    const task =
      'taskId' in which
        ? this.#task(which.taskId)
        : [...this.#tasks.values()].find((t) => t.profile_id === which.profileId && t.state === 'running');
    if (!task || task.state !== 'running') throw new Error('finishTask: no such running task');
    const state = outcome.state ?? 'completed';
    const result = outcome.result === undefined ? (state === 'completed' ? sampleResult(task.id) : null) : outcome.result;
    for (const rejected of result?.rejected ?? []) {
      this.#logTask(task, { kind: 'deliverable_rejected', path: rejected.path, reason: rejected.reason });
    }
    this.#endTask(task, state, outcome.reason ?? null, result);
    this.#pump(task.profile_id);
    return this.#task(task.id);
  }

  /** Report a running task's STATUS.txt, as the engine does when the file changes. */
  setProgress(taskId: TaskId, progress: string): TaskInfo {
    return this.#putTask({ ...this.#task(taskId), progress });
  }

  /**
   * What a task used and cost, as the engine counted and priced its agent's answers (its own,
   * and a lead's team's apart), told as the engine tells it: the task changes.
   */
  setTaskSpent(taskId: TaskId, spent: Partial<Pick<TaskInfo, 'tokens' | 'cost_usd' | 'team_tokens' | 'team_cost_usd' | 'list_price' | 'budget_used'>>): TaskInfo {
    return this.#putTask({ ...this.#task(taskId), ...structuredClone(spent) });
  }

  /** Agents past their day's budget, as the engine said it (the budget in words) and until when. */
  readonly #daysUsed = new Map<ProfileId, { budget: string; until: number }>();

  /**
   * The agent used its day's budget (null: it has budget again), as the engine tells it: its
   * queued tasks wait for its next day, and it takes none meanwhile.
   */
  setDayBudgetUsed(profileId: ProfileId, used: { budget: string; until: number } | null): void {
    if (used === null) this.#daysUsed.delete(profileId);
    else this.#daysUsed.set(profileId, { ...used });
    for (const task of queueOf([...this.#tasks.values()], profileId)) this.#putTask(task);
    this.#pump(profileId);
  }

  /** The cost reports a test told, in the order told (the engine groups and sums; the fake is told). */
  readonly #costReports: { by: CostGrouping; rows: CostRow[]; total: Spent | undefined; covers: (since: CostSince) => boolean }[] = [];

  /**
   * What `cost_report` answers for its grouping, as the engine would have summed it: `rows`,
   * and `total` (unless given, the rows' sums: a cost not known where any row's is not). With
   * `covers`, only for the asks since a time it holds for (today's, say, against the last
   * week's); the last told that covers an ask answers it. Nothing told: nothing spent.
   */
  setCostReport(report: { by: CostGrouping; rows: CostRow[]; total?: Spent; covers?: (since: CostSince) => boolean }): void {
    this.#costReports.unshift({ by: report.by, rows: structuredClone(report.rows), total: report.total && structuredClone(report.total), covers: report.covers ?? (() => true) });
  }

  async costReport(since: CostSince, by: CostGrouping): Promise<CostReport> {
    this.#record('cost_report', { since, by });
    const told = this.#costReports.find((report) => report.by === by && report.covers(since));
    const rows = structuredClone(told?.rows ?? []);
    const from = since.from === 'at' ? since.at : this.#now();
    return { since: from, by, rows, total: structuredClone(told?.total) ?? summed(rows) };
  }

  /** Fire `open-task`, as the shell does when the user clicks a task notification. */
  openTask(taskId: TaskId): void {
    for (const listener of [...this.#openTaskListeners]) listener(taskId);
  }

  /** Fire `open-signal`, as the shell does when the user clicks a signal notification. */
  openSignal(signalId: SignalId): void {
    for (const listener of [...this.#openSignalListeners]) listener(signalId);
  }

  /** The task the UI last said it shows (`set_viewing`). */
  get viewedTask(): TaskId | null {
    return this.#viewing.task_id;
  }

  /** What the UI last said it shows (`set_viewing`). */
  get viewing(): Viewing {
    return { ...this.#viewing };
  }

  /** How soon the UI last said it wants events (`set_event_pace`; the shell's, not the engine's). */
  get eventPace(): EventPace {
    return this.#pace;
  }

  isQueuePaused(profileId: ProfileId): boolean {
    return this.#pausedQueues.has(profileId);
  }

  /**
   * Raise a signal in a session, as the engine does when it reads a block in the agent's
   * output: pending, tied to the agent's running task, its deliverables (completion reports)
   * all found unless `overrides` says otherwise; emits `signal_changed`. Build `scan` with
   * `signalScan` (well-formed) or as a `malformed` event.
   */
  raiseSignal(sessionId: SessionId, scan: ScanEvent, overrides: Partial<SignalInfo> = {}): SignalInfo {
    const session = this.#session(sessionId);
    const running = this.#runningTask(session.info.profile_id);
    const task = running?.session_id === sessionId ? running : undefined;
    const completion = scan.type === 'signal' && scan.signal.kind === 'completion' ? scan.signal : null;
    const info: SignalInfo = {
      id: `signal-${this.#nextSignal++}`,
      session_id: sessionId,
      profile_id: session.info.profile_id,
      task_id: task?.id ?? null,
      channel: 'pty',
      scan,
      state: 'pending',
      created_at: this.#now(),
      handled_at: null,
      response: null,
      reply_prompt: null,
      delegate_session: null,
      deliverables: completion ? completion.deliverables.map((path) => ({ path, problem: null })) : [],
      success_criteria: completion ? (task?.success_criteria ?? null) : null,
      merged: null,
      actions: engineActions(scan),
      ...structuredClone(overrides),
    };
    this.#signals.set(info.id, info);
    const kind = scan.type === 'signal' ? scan.signal.kind : scan.kind;
    this.#logEntry(info.session_id, info.task_id, { kind: 'signal_raised', signal_id: info.id, signal_kind: kind, malformed: scan.type === 'malformed' });
    this.emit({ type: 'signal_changed', signal: structuredClone(info) });
    return structuredClone(info);
  }

  /** Add a session in any state without events (for seeding). */
  seedSession(profileId: ProfileId, state: SessionState, startedAt = this.#now()): SessionInfo {
    const info: SessionInfo = { id: `session-${this.#nextId++}`, profile_id: profileId, started_at: startedAt, size: { rows: 24, cols: 80 }, agent_session_id: null, ...state };
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
    return this.#createProfile(spec, null);
  }

  /**
   * As the engine on `host` (null: this computer's) makes an agent: an engine never names its
   * own machine (`host` null); the shell names the machine of an agent of another one.
   */
  async #createProfile(spec: ProfileSpec, host: string | null): Promise<Profile> {
    this.#record('create_profile', { spec });
    this.#validate();
    const profile: Profile = { id: `profile-${this.#nextId++}`, created_at: this.#now(), host, ...withSpecDefaults(keptWhereFound(spec)) };
    this.#profiles.set(profile.id, profile);
    this.emit({ type: 'profile_saved', profile });
    return profile;
  }

  async checkProfile(profileId: ProfileId | null, spec: ProfileSpec): Promise<ProfileProblem[]> {
    this.#record('check_profile', { profileId, spec });
    return structuredClone(this.#problems);
  }

  /** As the engine: each preset's CLI found among the fake's programs (at /usr/bin, version 1.0.0), else missing. */
  async detectedAgents(): Promise<DetectedAgent[]> {
    this.#record('detected_agents', {});
    return (presetData as AgentPreset[]).map((preset) => ({
      preset: structuredClone(preset),
      found: this.#commands.has(preset.command) ? { state: 'installed', path: `${FAKE_BIN}/${preset.command}`, version: '1.0.0' } : { state: 'missing' },
    }));
  }

  async agentPresets(): Promise<AgentPreset[]> {
    this.#record('agent_presets', {});
    return structuredClone(presetData) as AgentPreset[];
  }

  async updateProfile(profileId: ProfileId, spec: ProfileSpec): Promise<Profile> {
    this.#record('update_profile', { profileId, spec });
    const current = this.#profile(profileId);
    this.#validate();
    const profile: Profile = { ...current, ...withSpecDefaults(keptWhereFound(spec)) };
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
    // As the engine does: the profile's sessions go with it (and, in the fake, its tasks).
    for (const [id, session] of this.#sessions) if (session.info.profile_id === profileId) this.#sessions.delete(id);
    for (const [id, task] of this.#tasks) if (task.profile_id === profileId) this.#tasks.delete(id);
    for (const [id, signal] of this.#signals) if (signal.profile_id === profileId) this.#signals.delete(id);
    this.#pausedQueues.delete(profileId);
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

  async restartSession(sessionId: SessionId, size: TermSize, runningTask: RestartTask | null): Promise<Restarted> {
    this.#record('restart_session', { sessionId, size, runningTask });
    const session = this.#session(sessionId);
    const profileId = session.info.profile_id;
    const task = [...this.#tasks.values()].find((t) => t.state === 'running' && t.session_id === sessionId);
    if (session.info.state === 'running' && task !== undefined) {
      // The fake's tasks end only when told; "finish first" answers as the engine does.
      if (runningTask?.choice === 'finish_first') return { restart: 'after_task', task_id: task.id };
      if (runningTask?.choice === 'requeue') {
        this.#putTask({ ...task, state: 'queued', session_id: null, started_at: null, typed_at: null });
        this.#logTask(task, { kind: 'task_requeued', app_stopped: false });
      } else {
        this.#putTask({ ...task, state: 'cancelled', ended_at: this.#now(), reason: 'cancelled: its agent was restarted' });
        if (runningTask?.pause_queue) this.#pausedQueues.set(profileId, { by: 'restart', at: this.#now(), task_id: task.id });
      }
    }
    if (session.info.state === 'running') {
      this.#end(session, { state: 'killed', exit_code: 143, signal: 'SIGTERM', ended_at: this.#now() });
    }
    const fresh = this.#start(this.#profile(profileId), size);
    this.#pump(profileId);
    return { restart: 'now', session: fresh };
  }

  async resumeSession(sessionId: SessionId, size: TermSize): Promise<SessionInfo> {
    this.#record('resume_session', { sessionId, size });
    const session = this.#session(sessionId);
    const conversation = session.info.agent_session_id;
    if (conversation === null) throw this.#refusal('resume_session', { size: { rows: 24 } });
    return this.#start(this.#profile(session.info.profile_id), size, conversation);
  }

  async writeInput(sessionId: SessionId, data: string): Promise<void> {
    this.#record('write_input', { sessionId, data });
    const session = this.#running(sessionId);
    for (const ch of data) this.#type(session, ch);
  }

  async resize(sessionId: SessionId, size: TermSize): Promise<void> {
    this.#record('resize', { sessionId, size });
    const session = this.#running(sessionId);
    session.info = { ...session.info, size };
  }

  async screenSnapshot(sessionId: SessionId, recentLines: number): Promise<ScreenSnapshot> {
    this.#record('screen_snapshot', { sessionId, recentLines });
    const session = this.#session(sessionId);
    // The fake's terminal has no screen model: its output as plain lines stands in for one; the
    // prompt the engine reads on it is told (`answerNext('screen_snapshot', { prompt })`).
    const text = session.scrollback.map((chunk) => new TextDecoder().decode(chunk)).join('').replace(CSI, '');
    const lines = text.split(/\r?\n/).map((line) => line.replace(/\r/g, '').trimEnd());
    const rows = lines.slice(-session.info.size.rows);
    return {
      size: session.info.size,
      screen: rows.join('\n').replace(/\n+$/, ''),
      recent_lines: lines.slice(-recentLines),
      cursor_row: Math.max(0, rows.length - 1),
      cursor_col: rows.at(-1)?.length ?? 0,
      prompt: null,
      ...this.#told<Partial<ScreenSnapshot>>('screen_snapshot'),
    };
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
    return {
      data_dir: '(in memory)',
      socket_path: '(none)',
      host: this.#host,
      version: 'browser preview (fake backend)',
      startup_problem: this.#startupProblem,
    };
  }

  /** No login service runs the preview's engine (so the automations' note shows); a test tells otherwise with `setEngineLink`. */
  #engineLink: PageLink = { state: 'connected', engine_version: 'browser preview', outdated: false, agents_running: 0, host: null, connection: 1, restarted: false, starts_at_login: false };
  readonly #engineLinkListeners = new Set<(link: PageLink) => void>();

  async engineLink(): Promise<PageLink> {
    this.#record('engine_link', {});
    return this.#engineLink;
  }

  onEngineLink(callback: (link: PageLink) => void): Unsubscribe {
    this.#engineLinkListeners.add(callback);
    return () => this.#engineLinkListeners.delete(callback);
  }

  /** As the shell does when the link to the engine changes. */
  setEngineLink(link: PageLink): void {
    this.#engineLink = link;
    for (const listener of [...this.#engineLinkListeners]) listener(link);
  }

  /** The link's connections so far, as the shell numbers them. */
  #connections = 1;

  async startEngine(): Promise<void> {
    this.#record('start_engine', {});
    this.#reconnect();
  }

  async restartEngine(): Promise<void> {
    this.#record('restart_engine', {});
    this.#reconnect();
  }

  #reconnect(): void {
    this.#connections += 1;
    // An engine restarted is the same install: a login service runs it as before (after a lost link, none is known to).
    const startsAtLogin = this.#engineLink.state === 'connected' && this.#engineLink.starts_at_login;
    this.setEngineLink({ state: 'connected', engine_version: 'browser preview', outdated: false, agents_running: 0, host: null, connection: this.#connections, restarted: false, starts_at_login: startsAtLogin });
  }

  readonly #askQuitListeners = new Set<() => void>();

  onAskQuitAndStop(callback: () => void): Unsubscribe {
    this.#askQuitListeners.add(callback);
    return () => this.#askQuitListeners.delete(callback);
  }

  /** Fire `ask-quit-and-stop`, as the shell does when the tray's "Quit and stop all agents" is chosen. */
  askQuitAndStop(): void {
    for (const listener of [...this.#askQuitListeners]) listener();
  }

  async quitAndStopAgents(): Promise<void> {
    this.#record('quit_and_stop_agents', {});
  }

  /** How many times the window was loaded anew. */
  reloads = 0;

  reloadWindow(): void {
    this.reloads += 1;
  }

  async storageStatus(): Promise<StorageStatus> {
    this.#record('storage_status', {});
    return {
      data_dir: '(in memory)',
      problem: this.#storageProblem,
      hook_events_set_aside: this.#hookEventsSetAside,
      set_aside_file: '(in memory)/hook-spool.rejected.jsonl',
    };
  }

  async getSettings(): Promise<Settings> {
    this.#record('get_settings', {});
    return structuredClone(this.#settings);
  }

  /** Keeps the settings and tells, refusing what the engine was recorded refusing. */
  async setSettings(settings: Settings): Promise<Settings> {
    this.#record('set_settings', { settings });
    // The engine's refusal where it was recorded refusing the same values (the grid's limits are not recorded: tests say `failNext`).
    const refused = recordedRefusalOf('set_settings', 'settings', this.#recorded('get_settings', {}), settings as unknown as { [key: string]: Json }, { now: this.#now() });
    if (refused !== null) throw refused;
    // What the settings leave out takes its default; the engine's own form of a value (a time of day), a test tells.
    const given = { ...structuredClone(DEFAULT_SETTINGS), ...structuredClone(settings), notify: { ...DEFAULT_SETTINGS.notify, ...settings.notify } };
    const kept: Settings = { ...given, ...this.#told<Partial<Settings>>('set_settings') };
    this.#settings = kept;
    this.emit({ type: 'settings_changed', settings: structuredClone(kept) });
    return structuredClone(kept);
  }

  /** Serving browsers: off until set; the address a test tells with `answerNext('web_status', …)`. */
  #web: WebStatus = { settings: { serving: false, listen: null, tls_cert: null, tls_key: null, names: [] }, url: null, fingerprint: null, problem: null };
  readonly #devices: Device[] = [];

  async webStatus(): Promise<WebStatus> {
    this.#record('web_status', {});
    this.#web = { ...this.#web, ...this.#told<Partial<WebStatus>>('web_status') };
    return structuredClone(this.#web);
  }

  async setWeb(settings: WebSettings): Promise<WebStatus> {
    this.#record('set_web', { settings });
    const url = settings.serving ? (this.#web.url ?? 'http://127.0.0.1:7780') : null;
    this.#web = { ...this.#web, settings: structuredClone(settings), url, problem: null };
    // As the engine: every window hears that serving changed.
    this.emit({ type: 'web_changed', status: structuredClone(this.#web) });
    return structuredClone(this.#web);
  }

  async pairDevice(readOnly: boolean, name: string | null): Promise<PairingCode> {
    this.#record('pair_device', { read_only: readOnly, name });
    if (this.#web.url === null) this.#fail('invalid_input', 'Switchboard is not serving browsers', 'web');
    const code = 'K7M2Q-9XTR4';
    const url = `${this.#web.url}/pair?code=${code.replace('-', '')}`;
    // A plain pattern stands in for the engine's QR code (which the engine makes).
    const qr = Array.from({ length: 29 }, (_, row) => Array.from({ length: 29 }, (_, column) => ((row * column + row) % 3 === 0 ? '#' : ' ')).join(''));
    return { code, url, expires_at: this.#now() + 5 * 60_000, read_only: readOnly, name, fingerprint: this.#web.fingerprint, qr };
  }

  async listDevices(): Promise<Device[]> {
    this.#record('list_devices', {});
    return structuredClone(this.#devices);
  }

  async revokeDevice(deviceId: string): Promise<void> {
    this.#record('revoke_device', { device_id: deviceId });
    const index = this.#devices.findIndex((device) => device.id === deviceId || device.name === deviceId);
    if (index < 0) this.#fail('not_found', `no paired browser is ${deviceId}`);
    this.#devices.splice(index, 1);
    this.emit({ type: 'devices_changed', devices: structuredClone(this.#devices) });
  }

  /** The device this page is (none: the desktop window); a test tells one with `answerNext('this_device', …)`. */
  async thisDevice(): Promise<Device | null> {
    this.#record('this_device', {});
    return this.#told<Device | null>('this_device') ?? null;
  }

  /** A browser paired (tests). */
  addDevice(device: Device): void {
    this.#devices.push(structuredClone(device));
  }

  /**
   * A browser opened a pairing address (tests): kept, and every window told the devices, as the
   * engine does when a code is redeemed. Which code it used is the engine's to check.
   */
  pairedBrowser(device: Device): void {
    this.#devices.unshift(structuredClone(device));
    this.emit({ type: 'devices_changed', devices: structuredClone(this.#devices) });
  }

  onEngineEvent(callback: (event: EngineEvent, host: string | null) => void): Unsubscribe {
    this.#listeners.add(callback);
    return () => this.#listeners.delete(callback);
  }

  async submitTask(spec: TaskSpec): Promise<Submitted> {
    this.#record('submit_task', { spec });
    return this.#submit(spec);
  }

  #submit(spec: TaskSpec): Submitted {
    this.#profile(spec.profile_id);
    const task = this.#newTask(structuredClone(spec));
    this.#tasks.set(task.id, task);
    this.#logTask(task, { kind: 'task_queued', priority: task.priority });
    this.emit({ type: 'task_changed', task: this.#shown(task) });
    this.#pump(task.profile_id);
    const now = this.#task(task.id);
    const position = now.state === 'queued' ? queueOf([...this.#tasks.values()], now.profile_id).findIndex((t) => t.id === now.id) + 1 : null;
    const waiting = position === null ? undefined : this.#runningTask(now.profile_id);
    return { task: now, position, waiting_for: waiting?.id ?? null };
  }

  async listTasks(profileId: ProfileId | null): Promise<TaskInfo[]> {
    this.#record('list_tasks', { profileId });
    return [...this.#tasks.values()].filter((t) => profileId === null || t.profile_id === profileId).map((t) => this.#shown(t));
  }

  async getTask(taskId: TaskId): Promise<TaskInfo> {
    this.#record('get_task', { taskId });
    return this.#task(taskId);
  }

  async editTask(taskId: TaskId, title: string | null, instruction: string | null): Promise<TaskInfo> {
    this.#record('edit_task', { taskId, title, instruction });
    const task = this.#task(taskId);
    const cleanTitle = title?.trim() ?? null;
    const cleanInstruction = instruction?.trim() ?? null;
    const edited: TaskInfo = {
      ...task,
      ...(cleanTitle === null ? {} : { title: cleanTitle === '' ? null : cleanTitle }),
      ...(cleanInstruction === null ? {} : { instruction: cleanInstruction }),
    };
    this.#logTask(edited, { kind: 'task_edited', title: title !== null, instruction: instruction !== null });
    return structuredClone(this.#putTask(edited));
  }

  async rerunTask(taskId: TaskId): Promise<Submitted> {
    this.#record('rerun_task', { taskId });
    const task = this.#task(taskId);
    return this.submitTask({ ...task, time_limit_secs: task.time_limit_secs });
  }

  async cancelTask(taskId: TaskId): Promise<TaskInfo> {
    this.#record('cancel_task', { taskId });
    const task = this.#task(taskId);
    const wasRunning = task.state === 'running';
    if (wasRunning) this.#typeIntoAgent(task, '^C');
    // The engine's words for each state it cancels from.
    this.#endTask(task, 'cancelled', wasRunning ? 'cancelled while it ran' : 'cancelled before it started', null);
    this.#pump(task.profile_id);
    return this.#task(taskId);
  }

  async moveTask(taskId: TaskId, toIndex: number): Promise<void> {
    this.#record('move_task', { taskId, toIndex });
    const task = this.#task(taskId);
    const queue = queueOf([...this.#tasks.values()], task.profile_id);
    const moved = applyMove(queue, taskId, toIndex);
    for (const { id, priority, order } of moved) {
      const current = this.#task(id);
      if (current.priority !== priority || current.order !== order) this.#putTask({ ...current, priority, order });
    }
    const index = moved.findIndex((m) => m.id === taskId);
    this.#logTask(task, { kind: 'task_moved', to_index: index, priority: moved[index].priority });
    this.#emitQueue(task.profile_id);
  }

  /** As the engine: only a task its agent took and has not typed yet is typed on the user's word. */
  async typeTaskNow(taskId: TaskId): Promise<TaskInfo> {
    this.#record('type_task_now', { taskId });
    const task = this.#task(taskId);
    const shown = this.#task(taskId);
    if (task.session_id !== null && this.#sessions.has(task.session_id)) this.#typeTask({ ...task, waiting_for: null });
    return shown;
  }

  async requeueTask(taskId: TaskId): Promise<TaskInfo> {
    this.#record('requeue_task', { taskId });
    const task = this.#task(taskId);
    // As the engine: at the front of its agent's queued tasks.
    const queued = queueOf([...this.#tasks.values()], task.profile_id);
    const order = queued.length ? Math.min(...queued.map((t) => t.order)) - 1 : 0;
    this.#putTask({
      ...task,
      state: 'queued',
      order,
      session_id: null,
      started_at: null,
      typed_at: null,
      ended_at: null,
      progress: null,
      reason: null,
      result: null,
    });
    this.#logTask(task, { kind: 'task_requeued', app_stopped: false });
    this.#pump(task.profile_id);
    return this.#task(taskId);
  }

  async setQueuePaused(profileId: ProfileId | null, paused: boolean): Promise<void> {
    this.#record('set_queue_paused', { profileId, paused });
    const ids = profileId === null ? [...this.#profiles.keys()] : [this.#profile(profileId).id];
    const pause: QueuePause = profileId === null ? { by: 'all_queues', at: this.#now() } : { by: 'user', at: this.#now() };
    for (const id of ids) {
      // Who paused it is kept as the engine keeps it: the latest pause says.
      if (paused) this.#pausedQueues.set(id, pause);
      else if (this.#pausedQueues.has(id)) this.#pausedQueues.delete(id);
      else continue;
      // Pausing lets the running task finish; resuming picks the next one if the agent is idle.
      this.#emitQueue(id);
      this.#pump(id);
      // Its queued tasks wait for another reason now.
      for (const task of queueOf([...this.#tasks.values()], id)) this.emit({ type: 'task_changed', task: this.#shown(task) });
    }
  }

  async listQueues(): Promise<QueueStatus[]> {
    this.#record('list_queues', {});
    return [...this.#profiles.keys()].map((id) => this.#queueStatus(id));
  }

  async taskTimeline(taskId: TaskId): Promise<LogEntry[]> {
    this.#record('task_timeline', { taskId });
    this.#task(taskId);
    return this.#log.filter((e) => e.task_id === taskId).map((e) => structuredClone(e));
  }

  #followed: FollowedLog | null = null;

  async followLog(followed: FollowedLog | null): Promise<void> {
    this.#record('follow_log', { followed });
    this.#followed = followed;
  }

  async pickFolder(start?: string): Promise<string | null> {
    this.#record('pick_folder', { start: start ?? null });
    return this.#pickedFolders.shift() ?? null;
  }

  async openArtifact(taskId: TaskId, path: string, reveal: boolean): Promise<void> {
    this.#record('open_artifact', { taskId, path, reveal });
    await this.artifactPath(taskId, path);
  }

  async artifactPath(taskId: TaskId, path: string): Promise<string> {
    const task = this.#task(taskId);
    // The engine's answer for a file outside the workspace; any other is where the task left it.
    if (path.split('/').includes('..')) throw this.#refusal('artifact_path', { path: '../outside.txt' });
    const worktree = this.#worktrees.get(worktreeKeyOf(task));
    return `${worktree?.info.path ?? this.#profile(task.profile_id).cwd}/${path}`;
  }

  async setEventPace(pace: EventPace): Promise<void> {
    this.#record('set_event_pace', { pace });
    this.#pace = pace;
  }

  async setViewing(viewing: Viewing): Promise<void> {
    this.#record('set_viewing', { viewing });
    this.#viewing = { ...viewing };
  }

  /** The accounts at their usage limit, as seeded (`seedLimit`). */
  readonly #limits = new Map<string, AccountLimit>();

  /**
   * An account at its usage limit, as the engine reports it (`limit_changed`): its agents'
   * queued tasks wait for it (its agents' running tasks wait as seeded).
   */
  seedLimit(limit: AccountLimit): void {
    this.#limits.set(limit.account, limit);
    this.emit({ type: 'limit_changed', limit });
    this.#refreshQueued(limit.profiles);
  }

  /** The account's limit is over, as the engine reports it (`limit_lifted`): its agents' queues go on. */
  liftLimit(account: string): void {
    const limit = this.#limits.get(account);
    if (!limit) throw new Error(`liftLimit: no limit on ${account}`);
    this.#limits.delete(account);
    this.emit({ type: 'limit_lifted', account, profiles: limit.profiles, by_user: false, at_reset: false });
    for (const profileId of limit.profiles) {
      this.#refreshQueued([profileId]);
      this.#pump(profileId);
    }
  }

  /** The limit the agent's account is at, if it is. */
  #limitOf(profileId: ProfileId): AccountLimit | undefined {
    return [...this.#limits.values()].find((l) => l.profiles.includes(profileId));
  }

  /** Each queued task of these agents told again, with what it waits for now. */
  #refreshQueued(profiles: readonly ProfileId[]): void {
    for (const task of [...this.#tasks.values()].filter((t) => t.state === 'queued' && profiles.includes(t.profile_id))) {
      this.#putTask(task);
    }
  }

  async listLimits(): Promise<AccountLimit[]> {
    this.#record('list_limits', {});
    return [...this.#limits.values()];
  }

  /** Each account's usage, as the engine reports it (`seedUsage`), its windows' levels in. */
  readonly #usage = new Map<string, AccountUsage>();

  /** The account's usage, as the engine reports it (`usage_changed`). */
  seedUsage(usage: AccountUsage): void {
    this.#usage.set(usage.account, structuredClone(usage));
    this.emit({ type: 'usage_changed', usage: structuredClone(usage) });
  }

  async listUsage(): Promise<AccountUsage[]> {
    this.#record('list_usage', {});
    return [...this.#usage.values()].map((usage) => structuredClone(usage));
  }

  /**
   * As the engine: the agent's account's limit is over (the fake lifts it at once, where the
   * engine lets its agents go on one at a time), or its own paused turn (an overloaded model,
   * an account the user saw to) goes on; its task is typed `continue`.
   */
  async resumeAgent(profileId: ProfileId): Promise<void> {
    this.#record('resume_agent', { profileId });
    this.#profile(profileId);
    const limit = this.#limitOf(profileId);
    const running = this.#runningTask(profileId);
    const paused = running?.waiting_for && ['usage_limit', 'overloaded', 'account'].includes(running.waiting_for.cause) ? running : undefined;
    if (limit) {
      this.#limits.delete(limit.account);
      this.emit({ type: 'limit_lifted', account: limit.account, profiles: limit.profiles, by_user: true, at_reset: false });
    }
    if (paused) {
      const resumed = this.#putTask({ ...paused, waiting_for: null });
      this.#typeIntoAgent(resumed, 'continue');
      this.#logTask(resumed, { kind: 'task_resumed' });
    }
    for (const other of limit?.profiles ?? [profileId]) {
      this.#refreshQueued([other]);
      this.#pump(other);
    }
  }

  async listAttention(): Promise<AgentAttention[]> {
    this.#record('list_attention', {});
    return [...this.#profiles.keys()].map((profileId) => ({ profile_id: profileId, attention: this.#attentionOf(profileId) }));
  }

  /** What each agent asks of the user's attention, as the engine decided it (`setAttention`). */
  readonly #attention = new Map<ProfileId, Attention>();

  /** The engine decided what the agent asks of the user's attention (`attention_changed`). */
  setAttention(profileId: ProfileId, attention: Attention): void {
    this.#attention.set(profileId, attention);
    this.emit({ type: 'attention_changed', profile_id: profileId, attention });
  }

  /** As told; an agent it was not told of is idle in a running session, else stopped. */
  #attentionOf(profileId: ProfileId): Attention {
    const told = this.#attention.get(profileId);
    if (told) return told;
    const session = [...this.#sessions.values()].find((s) => s.info.profile_id === profileId && s.info.state === 'running');
    return session ? { state: 'idle', since: session.info.started_at } : { state: 'stopped', since: null, ended: null, failed: 0 };
  }

  async whenListening(): Promise<void> {}

  onOpenTask(callback: (taskId: TaskId) => void): Unsubscribe {
    this.#openTaskListeners.add(callback);
    return () => this.#openTaskListeners.delete(callback);
  }

  onOpenSignal(callback: (signalId: SignalId) => void): Unsubscribe {
    this.#openSignalListeners.add(callback);
    return () => this.#openSignalListeners.delete(callback);
  }

  readonly #openLoopListeners = new Set<(loopId: LoopId) => void>();

  onOpenLoop(callback: (loopId: LoopId) => void): Unsubscribe {
    this.#openLoopListeners.add(callback);
    return () => this.#openLoopListeners.delete(callback);
  }

  /** As the shell does when a loop's notification is clicked. */
  clickLoopNotification(loopId: LoopId): void {
    for (const listener of [...this.#openLoopListeners]) listener(loopId);
  }

  readonly #openTargetListeners = new Set<() => void>();

  onOpenTarget(callback: () => void): Unsubscribe {
    this.#openTargetListeners.add(callback);
    return () => this.#openTargetListeners.delete(callback);
  }

  /** As the shell does when Switchboard is launched again with `--open`: kept, then told. */
  launchedAgain(target: OpenTarget): void {
    this.#openTarget = target;
    for (const listener of [...this.#openTargetListeners]) listener();
  }

  #openTarget: OpenTarget | null = null;

  /** As a window started to open something (`switchboard --open task:ID`). */
  startedToOpen(target: OpenTarget): void {
    this.#openTarget = target;
  }

  async takeOpenTarget(): Promise<OpenTarget | null> {
    this.#record('take_open_target', {});
    const target = this.#openTarget;
    this.#openTarget = null;
    return target;
  }

  // ---- other machines ------------------------------------------------------------------

  /** The fingerprint every fake host whose key is not known shows. */
  static readonly FAKE_FINGERPRINT = 'SHA256:fakefakefake';
  /** The machines added, in the order added. */
  #hosts: HostState[] = [];

  /** A machine in the list as `list_hosts` finds it (any state), for tests and the demo. */
  seedHost(host: Partial<HostState> & { destination: string }): void {
    this.#hosts = [...this.#hosts.filter((h) => h.destination !== host.destination), fakeHost(host)];
  }

  async listHosts(): Promise<HostState[]> {
    this.#record('list_hosts', {});
    return this.#hosts.map((h) => structuredClone(h));
  }

  /**
   * As the shell checks a machine: what it found is told (`answerNext('add_host', state)`); a
   * machine untold answers, and is added and attached.
   */
  async addHost(destination: string, port: number | null, remoteProgram: string | null, acceptKey: string | null): Promise<HostState> {
    this.#record('add_host', { destination, port, remoteProgram, acceptKey });
    const told = this.#told<HostState>('add_host');
    if (told && told.state !== 'connected') return told;
    const added = told ?? fakeHost({ destination: destination.trim(), port, remote_program: remoteProgram, version: '0.1.0', agents_running: 0, words: 'connected' });
    this.seedHost(added);
    this.setHostLink({ destination: added.destination, link: connectedHost(added.destination) });
    return structuredClone(added);
  }

  async removeHost(destination: string): Promise<void> {
    this.#record('remove_host', { destination });
    this.#hosts = this.#hosts.filter((h) => h.destination !== destination);
    this.#hostLinks = this.#hostLinks.filter((h) => h.destination !== destination);
  }

  /** Recorded only (the shell would start a window of its own on that machine). */
  async openHost(destination: string): Promise<void> {
    this.#record('open_host', { destination });
  }

  /** The machine `machine(host)` is sending a call to, while it does (see `#record`). */
  #sendingTo: string | null | undefined = undefined;

  /**
   * The fake's one state answers for every machine, as the shell's joined lists do; a call is
   * recorded with the machine it was sent to, and an agent made there carries it as `host`.
   */
  machine(host: string | null): EngineCommands {
    return engineCommands((command) => {
      // Every method records its call before its first await, so the machine is set while it does.
      this.#sendingTo = host;
      try {
        if (command.type === 'create_profile') return this.#createProfile(command.spec, host).then((value) => ({ type: 'profile', value }));
        return dispatchCommand(this, command);
      } finally {
        this.#sendingTo = undefined;
      }
    });
  }

  /** The other machines the window shows, in the order attached, with their links. */
  #hostLinks: HostLink[] = [];
  readonly #hostLinkListeners = new Set<(link: HostLink) => void>();

  async attachedHosts(): Promise<HostLink[]> {
    this.#record('attached_hosts', {});
    return structuredClone(this.#hostLinks);
  }

  onHostLink(callback: (link: HostLink) => void): Unsubscribe {
    this.#hostLinkListeners.add(callback);
    return () => this.#hostLinkListeners.delete(callback);
  }

  readonly #pageNoticeListeners = new Set<(notice: PageNotice) => void>();

  onPageNotice(callback: (notice: PageNotice) => void): Unsubscribe {
    this.#pageNoticeListeners.add(callback);
    return () => this.#pageNoticeListeners.delete(callback);
  }

  /** As the engine serving a page tells it a notice (the desktop's rule decided it). */
  tellPage(notice: PageNotice): void {
    for (const listener of [...this.#pageNoticeListeners]) listener(structuredClone(notice));
  }

  /** As the shell does when its link to another machine changes (or one is attached): kept, and told. */
  setHostLink(link: HostLink): void {
    const kept = structuredClone(link);
    const at = this.#hostLinks.findIndex((h) => h.destination === link.destination);
    if (at < 0) this.#hostLinks = [...this.#hostLinks, kept];
    else this.#hostLinks = this.#hostLinks.map((h, i) => (i === at ? kept : h));
    for (const listener of [...this.#hostLinkListeners]) listener(structuredClone(kept));
  }

  /** As the shell's next try, now: the machine answers. */
  async connectHost(destination: string): Promise<void> {
    this.#record('connect_host', { destination });
    this.setHostLink({ destination, link: connectedHost(destination) });
  }

  readonly #agentStatus = new Map<SessionId, AgentStatusInfo>();

  async listAgentStatus(): Promise<AgentStatusInfo[]> {
    this.#record('list_agent_status', {});
    return [...this.#agentStatus.values()].map((s) => ({ ...s }));
  }

  readonly #permissions: PermissionRequest[] = [];

  async listPermissionRequests(): Promise<PermissionRequest[]> {
    this.#record('list_permission_requests', {});
    return this.#permissions.map((p) => structuredClone(p));
  }

  async decidePermission(requestId: number, allow: boolean, message: string | null): Promise<void> {
    this.#record('decide_permission', { requestId, allow, message });
    const index = this.#permissions.findIndex((p) => p.id === requestId);
    if (index < 0) this.#fail('invalid_input', 'request_id: no such permission request waits', 'request_id');
    const [closed] = this.#permissions.splice(index, 1);
    this.emit({ type: 'permission_closed', request_id: requestId, session_id: closed.session_id, decision: { allow, message } });
  }

  /** An agent's hook asks for a permission (for tests). */
  askPermission(request: PermissionRequest): void {
    this.#permissions.push(structuredClone(request));
    this.emit({ type: 'permission_requested', request: structuredClone(request) });
  }

  /** Report a session's agent status, as the engine does when its hooks report. */
  setAgentStatus(status: AgentStatusInfo): void {
    this.#agentStatus.set(status.session_id, { ...status });
    this.emit({ type: 'agent_status_changed', status: { ...status } });
  }

  async listSignals(): Promise<SignalInfo[]> {
    this.#record('list_signals', {});
    return [...this.#signals.values()].map((s) => structuredClone(s));
  }

  /**
   * Settles the signal with the response: approved or delegated work goes to a new session of
   * the chosen agent. What the engine types in reply, and which responses it refuses, are the
   * engine's to decide: a test gives a refusal with `failNext`.
   */
  async respondToSignal(signalId: SignalId, response: SignalResponse): Promise<SignalInfo> {
    this.#record('respond_to_signal', { signalId, response });
    const info = this.#signals.get(signalId) ?? this.#fail('signal_not_found', `no signal ${signalId}`);
    if (info.state !== 'pending') this.#fail('signal_state', `signal ${signalId}: it was already handled`);
    let delegate: SessionInfo | null = null;
    if (response.action === 'approve' || response.action === 'delegate_blocked') {
      const profile = this.#profile(response.profile_id);
      delegate = this.#start(profile, { rows: 24, cols: 80 });
      const body = info.scan.type === 'signal' ? info.scan.signal : null;
      this.#putDelegation({
        delegate_session: delegate.id,
        delegate_profile: profile.id,
        request: info.id,
        requester_session: info.session_id,
        requester_profile: info.profile_id,
        work: body?.kind === 'delegate' ? body.new_task_description : body?.kind === 'stop_work' ? body.blocked_work : '',
        blocks: response.action === 'approve' && body?.kind === 'delegate' && body.independence === 'blocks_current_work',
        keep: false,
        started_at: this.#now(),
        state: { state: 'working' },
        quiet_since: null,
        spent: structuredClone(NOTHING_SPENT),
      });
    }
    const settled: SignalInfo = {
      ...info,
      state: response.action === 'dismiss' ? 'dismissed' : 'handled',
      handled_at: this.#now(),
      actions: [],
      response: structuredClone(response),
      delegate_session: delegate?.id ?? null,
    };
    this.#signals.set(signalId, settled);
    this.#logEntry(info.session_id, info.task_id, { kind: 'signal_handled', signal_id: signalId, response: structuredClone(response) });
    this.emit({ type: 'signal_changed', signal: structuredClone(settled) });
    return structuredClone(settled);
  }

  readonly #loops = new Map<LoopId, LoopInfo>();
  #nextLoop = 1;

  async startLoop(profileId: ProfileId, settings: LoopSettings): Promise<LoopInfo> {
    this.#record('start_loop', { profileId, settings });
    this.#profile(profileId);
    const info: LoopInfo = {
      id: `loop-${this.#nextLoop++}`,
      profile_id: profileId,
      settings: { ...structuredClone(settings), budget: settings.budget ?? null },
      created_at: this.#now(),
      state: { state: 'active' },
      iterations: [],
      iteration_count: 0,
      iterations_run: 0,
      spent: structuredClone(NOTHING_SPENT),
      budget_used: settings.budget ? { used_percent: 0, mark: 'under' } : null,
    };
    this.#loopFiles.set(info.id, { anchor: `# Loop goal\n\n${settings.goal.trim()}\n`, progress: null, guardrails: null });
    this.#putLoop(info);
    return structuredClone(info);
  }

  async listLoops(): Promise<LoopInfo[]> {
    this.#record('list_loops', {});
    return [...this.#loops.values()].map((l) => structuredClone(l));
  }

  async getLoop(loopId: LoopId): Promise<LoopInfo> {
    this.#record('get_loop', { loopId });
    return structuredClone(this.#loop(loopId));
  }

  async cancelLoop(loopId: LoopId): Promise<LoopInfo> {
    this.#record('cancel_loop', { loopId });
    const info = this.#loop(loopId);
    const cancelled: LoopInfo = { ...info, state: { state: 'cancelled', at: this.#now() } };
    this.#putLoop(cancelled);
    return structuredClone(cancelled);
  }

  async resumeLoop(loopId: LoopId): Promise<LoopInfo> {
    this.#record('resume_loop', { loopId });
    const info = this.#loop(loopId);
    const resumed: LoopInfo = { ...info, state: { state: 'active' } };
    this.#putLoop(resumed);
    return structuredClone(resumed);
  }

  async loopIterations(loopId: LoopId, before: number, limit: number): Promise<Iteration[]> {
    this.#record('loop_iterations', { loopId, before, limit });
    this.#loop(loopId);
    const older = (this.#loopHistory.get(loopId) ?? []).filter((i) => i.seq < before);
    return structuredClone(older.slice(Math.max(0, older.length - Math.min(limit, MAX_ITERATION_PAGE))));
  }

  readonly #loopFiles = new Map<LoopId, LoopFiles>();
  /** Each loop's whole history, as the engine's rows; a loop's info carries only its latest iterations. */
  readonly #loopHistory = new Map<LoopId, Iteration[]>();

  /**
   * Add a loop as it stands (its state and iterations), with its files, without events (for seeding).
   * `history` is its whole history when it is longer than what its info carries.
   */
  seedLoop(info: LoopInfo, files: Partial<LoopFiles> = {}, history: Iteration[] = info.iterations): LoopInfo {
    this.#loops.set(info.id, structuredClone(info));
    this.#loopHistory.set(info.id, structuredClone(history));
    this.#loopFiles.set(info.id, { anchor: null, progress: null, guardrails: null, ...files });
    return structuredClone(info);
  }

  /** As the agent would: change a loop's files behind the window's back. */
  writeLoopFiles(loopId: LoopId, files: Partial<LoopFiles>): void {
    this.#loopFiles.set(loopId, { ...this.#filesOf(loopId), ...files });
  }

  /** Put a changed loop (a new iteration, a verdict) and tell the window, as the engine does. */
  updateLoop(info: LoopInfo): void {
    this.#putLoop(info);
  }

  async loopFiles(loopId: LoopId): Promise<LoopFiles> {
    this.#record('loop_files', { loopId });
    this.#loop(loopId);
    return structuredClone(this.#filesOf(loopId));
  }

  async saveLoopFile(loopId: LoopId, file: LoopFile, text: string): Promise<LoopFiles> {
    this.#record('save_loop_file', { loopId, file, text });
    this.#loop(loopId);
    if (encoder.encode(text).length > MAX_LOOP_FILE_BYTES) throw this.#refusal('save_loop_file', { file: 'anchor' });
    this.#loopFiles.set(loopId, { ...this.#filesOf(loopId), [file]: text });
    return structuredClone(this.#filesOf(loopId));
  }

  #filesOf(loopId: LoopId): LoopFiles {
    return this.#loopFiles.get(loopId) ?? { anchor: null, progress: null, guardrails: null };
  }

  #loop(loopId: LoopId): LoopInfo {
    return this.#loops.get(loopId) ?? this.#fail('invalid_input', 'loop_id: there is no such loop', 'loop_id');
  }

  #putLoop(info: LoopInfo): void {
    this.#loops.set(info.id, structuredClone(info));
    const history = new Map((this.#loopHistory.get(info.id) ?? []).map((i) => [i.seq, i]));
    for (const iteration of info.iterations) history.set(iteration.seq, structuredClone(iteration));
    this.#loopHistory.set(info.id, [...history.values()].sort((a, b) => a.seq - b.seq));
    this.emit({ type: 'loop_changed', info: structuredClone(info) });
  }

  // ---- automations ----
  // Kept as told; when a schedule runs and what a run makes are the engine's (its tests say so).

  readonly #automations = new Map<AutomationId, Automation>();
  #nextAutomation = 1;

  async createAutomation(spec: AutomationSpec): Promise<Automation> {
    this.#record('create_automation', { spec });
    this.#profile(spec.profile_id);
    const automation: Automation = {
      ...structuredClone(spec),
      id: `automation-${this.#nextAutomation++}`,
      created_at: this.#now(),
      state: { state: 'active' },
      next_run: null,
      runs: [],
      host: null,
    };
    return this.#putAutomation(automation);
  }

  async updateAutomation(automationId: AutomationId, spec: AutomationSpec): Promise<Automation> {
    this.#record('update_automation', { automationId, spec });
    return this.#putAutomation({ ...this.#automation(automationId), ...structuredClone(spec) });
  }

  async listAutomations(): Promise<Automation[]> {
    this.#record('list_automations', {});
    return [...this.#automations.values()].map((a) => structuredClone(a));
  }

  async getAutomation(automationId: AutomationId): Promise<Automation> {
    this.#record('get_automation', { automationId });
    return structuredClone(this.#automation(automationId));
  }

  async pauseAutomation(automationId: AutomationId): Promise<Automation> {
    this.#record('pause_automation', { automationId });
    const paused: Automation = { ...this.#automation(automationId), state: { state: 'paused', at: this.#now(), why: { by: 'user' } }, next_run: null };
    return this.#putAutomation(paused);
  }

  async resumeAutomation(automationId: AutomationId): Promise<Automation> {
    this.#record('resume_automation', { automationId });
    return this.#putAutomation({ ...this.#automation(automationId), state: { state: 'active' } });
  }

  /** What a run made (a task, a loop, a skip and why) is the engine's: a test tells it with `answerNext('run_automation_now', automation)`. */
  async runAutomationNow(automationId: AutomationId): Promise<Automation> {
    this.#record('run_automation_now', { automationId });
    this.#automation(automationId);
    const told = this.#told<Automation>('run_automation_now');
    return told ? this.#putAutomation(told) : structuredClone(this.#automation(automationId));
  }

  async removeAutomation(automationId: AutomationId): Promise<void> {
    this.#record('remove_automation', { automationId });
    this.#automation(automationId);
    this.#automations.delete(automationId);
    this.emit({ type: 'automation_removed', automation_id: automationId });
  }

  /** An automation as the engine tells it (for tests: its runs, its next run). */
  seedAutomation(automation: Automation): void {
    this.#putAutomation(automation);
  }

  #automation(automationId: AutomationId): Automation {
    return this.#automations.get(automationId) ?? this.#fail('invalid_input', 'automation_id: there is no such automation', 'automation_id');
  }

  #putAutomation(automation: Automation): Automation {
    this.#automations.set(automation.id, structuredClone(automation));
    this.emit({ type: 'automation_changed', automation: structuredClone(automation) });
    return structuredClone(automation);
  }

  readonly #delegations = new Map<SessionId, Delegation>();

  // ---- flows ---------------------------------------------------------------------------

  readonly #flowViews = new Map<string, DiagramState[]>();

  /** What `flow_view` answers for a target (the engine folds its log; the fake is told). */
  setFlowView(target: FlowTarget, diagrams: DiagramState[]): void {
    this.#flowViews.set(JSON.stringify(target), structuredClone(diagrams));
  }

  /** Appends to the event log as the engine would (and reports it), for flow tests. */
  logEvent(sessionId: SessionId | null, taskId: TaskId | null, kind: LogKind): LogEntry {
    this.#logEntry(sessionId, taskId, kind);
    return structuredClone(this.#log[this.#log.length - 1]);
  }

  async flowDiagrams(): Promise<Diagram[]> {
    this.#record('flow_diagrams', {});
    return structuredClone(diagramData as Diagram[]);
  }

  async flowView(target: FlowTarget, untilSeq: number | null): Promise<FlowView> {
    this.#record('flow_view', { target, untilSeq });
    this.#checkTarget(target);
    const entries = this.#log.filter((e) => this.#ofTarget(e, target) && (untilSeq === null || e.seq <= untilSeq));
    const last = entries.at(-1);
    const seeded = this.#flowViews.get(JSON.stringify(target));
    const diagrams =
      seeded ??
      (diagramData as Diagram[]).map((d) => ({ diagram: d.id, current: [], path: [], edges: [], lit_by: [], gate: null, silent: null }));
    return {
      target: structuredClone(target),
      until_seq: last?.seq ?? null,
      until_at: last?.at ?? null,
      events: entries.length,
      diagrams: structuredClone(diagrams),
    };
  }

  async flowEvents(target: FlowTarget, sinceAt: number | null, limit: number): Promise<FlowEvents> {
    this.#record('flow_events', { target, sinceAt, limit });
    this.#checkTarget(target);
    const entries = this.#log.filter((e) => this.#ofTarget(e, target) && (sinceAt === null || e.at >= sinceAt));
    const kept = entries.slice(-limit);
    return { entries: structuredClone(kept), omitted: entries.length - kept.length };
  }

  async exportFlowEvents(target: FlowTarget): Promise<string> {
    this.#record('export_flow_events', { target });
    this.#checkTarget(target);
    return `/data/exports/${target.of}-events.jsonl`;
  }

  /** The graph of agents as the engine draws it: as told (`setOverview`), else each agent alone. */
  #overview: Overview | null = null;

  setOverview(overview: Overview): void {
    this.#overview = structuredClone(overview);
  }

  async flowOverview(): Promise<Overview> {
    this.#record('flow_overview', {});
    if (this.#overview) return structuredClone(this.#overview);
    const agents = [...this.#profiles.values()].map((profile) => {
      const session = [...this.#sessions.values()].find((s) => s.info.profile_id === profile.id && s.info.state === 'running');
      const attention = this.#attentionOf(profile.id);
      const since = 'since' in attention ? attention.since : null;
      return {
        profile_id: profile.id,
        name: profile.name,
        session_id: session?.info.id ?? null,
        status: null,
        since,
        running: session !== undefined,
        task_id: null,
        doing: null,
        loop_iteration: null,
        queued: this.#queueStatus(profile.id).queued,
        needs_user: 0,
        attention,
      } satisfies Overview['agents'][number];
    });
    return { agents, helpers: [], links: [] };
  }

  /** What the engine's search finds, as told (`setSearchHits`): the fake does not search. */
  #searchHits: SearchHit[] = [];

  setSearchHits(hits: SearchHit[]): void {
    this.#searchHits = structuredClone(hits);
  }

  async search(query: string): Promise<SearchHit[]> {
    this.#record('search', { query });
    if (encoder.encode(query).length > MAX_QUERY_BYTES) throw this.#refusal('search', {});
    return query.trim() === '' ? [] : structuredClone(this.#searchHits);
  }

  async listDelegations(): Promise<Delegation[]> {
    this.#record('list_delegations', {});
    return [...this.#delegations.values()].map((d) => structuredClone(d));
  }

  async keepDelegate(sessionId: SessionId, keep: boolean): Promise<Delegation> {
    this.#record('keep_delegate', { sessionId, keep });
    const delegation =
      this.#delegations.get(sessionId) ??
      this.#fail('invalid_input', 'session_id: this agent was not started for delegated work', 'session_id');
    const kept = { ...delegation, keep };
    this.#putDelegation(kept);
    return structuredClone(kept);
  }

  /** A delegate went quiet past its agent's alert (`since`), or showed life again (null), as the engine's watch says (for tests). */
  delegateQuiet(sessionId: SessionId, since: number | null): void {
    const delegation = this.#delegations.get(sessionId);
    if (!delegation || delegation.state.state !== 'working') return;
    this.#putDelegation({ ...delegation, quiet_since: since });
  }

  /** What a delegate used, as the engine tells its delegation anew when it counts (for tests). */
  setDelegationSpent(sessionId: SessionId, spent: Spent): void {
    const delegation = this.#delegations.get(sessionId);
    if (delegation) this.#putDelegation({ ...delegation, spent: structuredClone(spent) });
  }

  /** A delegate reported (for tests): its delegation settles and, unless kept, its session ends. */
  delegateReported(sessionId: SessionId, status: string): void {
    const delegation = this.#delegations.get(sessionId);
    if (!delegation || delegation.state.state !== 'working') return;
    this.#putDelegation({ ...delegation, state: { state: 'reported', at: this.#now(), status }, quiet_since: null });
    const session = this.#sessions.get(sessionId);
    if (!delegation.keep && session?.info.state === 'running') {
      this.#end(session, { state: 'killed', exit_code: 129, signal: 'SIGHUP', ended_at: this.#now() });
    }
  }

  #putDelegation(delegation: Delegation): void {
    this.#delegations.set(delegation.delegate_session, structuredClone(delegation));
    this.emit({ type: 'delegation_changed', delegation: structuredClone(delegation) });
  }

  // ---- worktrees -----------------------------------------------------------------------

  /**
   * A worktree as the engine reports it (without an event): `info` as the radar read it (its
   * state, words, overlaps: the engine's to decide; `worktree()` in `src/test/worktrees.ts`
   * builds one), `files` the diff it shows.
   */
  seedWorktree(info: WorktreeInfo, files: FileDiff[] = [], extra: { summary?: string | null; uncommitted?: boolean } = {}): WorktreeInfo {
    this.#worktrees.set(info.task, { info: structuredClone(info), files: structuredClone(files), summary: extra.summary ?? null, uncommitted: extra.uncommitted ?? false });
    return structuredClone(info);
  }

  /** The engine reports the worktree read again (`worktree_changed`): the fields given change. */
  changeWorktree(task: string, change: Partial<WorktreeInfo>, files?: FileDiff[]): WorktreeInfo {
    const record = this.#worktree(task);
    record.info = { ...record.info, ...structuredClone(change) };
    if (files !== undefined) record.files = structuredClone(files);
    this.emit({ type: 'worktree_changed', worktree: structuredClone(record.info) });
    return structuredClone(record.info);
  }

  /** The engine's answer to the next `command` (a merge's outcome, say), as a test decides it. */
  answerNext(command: string, value: unknown): void {
    this.#answers.set(command, [...(this.#answers.get(command) ?? []), structuredClone(value)]);
  }

  #told<T>(command: string): T | undefined {
    return this.#answers.get(command)?.shift() as T | undefined;
  }

  async folderRepository(folder: string): Promise<FolderRepository> {
    this.#record('folder_repository', { folder });
    const found = this.#repositoryOf(folder);
    if (found) return { kind: 'repository', root: found.root, branch: found.branch, setup_command: found.setup_command };
    if (!this.#directories.has(folder)) return { kind: 'not_a_repository', why: 'the folder does not exist' };
    return { kind: 'not_a_repository', why: 'the folder is not inside a git repository, so its tasks cannot get worktrees of their own' };
  }
  /** The fake machine's folders under `path` ("" or "~": the home folder), names sorted; the engine's own listing, a test tells. */
  async listFolder(path: string): Promise<FolderListing> {
    this.#record('list_folder', { path });
    const asked = path.trim();
    const folder = asked === '' || asked === '~' ? this.#home : asked.replace(/^~\//, `${this.#home}/`).replace(/(.)\/+$/, '$1');
    const told = this.#told<FolderListing>('list_folder');
    if (told) return told;
    if (!this.#directories.has(folder)) this.#fail('invalid_input', `path: there is no folder ${asked}`, 'path');
    const inside = folder === '/' ? '/' : `${folder}/`;
    const folders = [...this.#directories].filter((d) => d.startsWith(inside) && d.length > inside.length && !d.slice(inside.length).includes('/'));
    return { path: folder, parent: folder === '/' ? null : folder.slice(0, folder.lastIndexOf('/')) || '/', folders: folders.map((d) => d.slice(inside.length)).sort(), truncated: false };
  }

  async setRepositorySetup(repository: string, setupCommand: string | null): Promise<void> {
    this.#record('set_repository_setup', { repository, setupCommand });
    const found = this.#repositoryOf(repository) ?? this.#fail('git', `${repository} is not inside a git repository`);
    const command = setupCommand?.trim() ?? '';
    const kept = this.#repositories.get(found.root);
    if (kept) kept.setup_command = command === '' ? null : command;
  }
  async listWorktrees(): Promise<WorktreeInfo[]> {
    this.#record('list_worktrees', {});
    return [...this.#worktrees.values()].map((w) => structuredClone(w.info));
  }

  async worktreeDiff(worktree: string): Promise<WorktreeDiff> {
    this.#record('worktree_diff', { worktree });
    const { info, files, summary } = this.#findWorktree(worktree);
    const open = info.state !== 'merged' && info.state !== 'discarded' && info.state !== 'folder_missing';
    return { worktree: structuredClone(info), files: open ? structuredClone(files) : [], files_left_out: 0, summary: open ? summary : null };
  }

  async commitWorktree(worktree: string): Promise<CommitOutcome> {
    this.#record('commit_worktree', { worktree });
    const record = this.#findOpenWorktree(worktree);
    const committed = record.uncommitted;
    record.uncommitted = false;
    return this.#told('commit_worktree') ?? { committed, worktree: structuredClone(record.info) };
  }

  /** Merged, unless told otherwise or the engine's radar found a conflict with its base. */
  async mergeWorktree(worktree: string): Promise<MergeOutcome> {
    this.#record('merge_worktree', { worktree });
    const record = this.#findOpenWorktree(worktree);
    const conflict = record.info.base_conflict;
    const outcome: MergeOutcome =
      this.#told('merge_worktree') ??
      (conflict.length > 0
        ? { ...this.#recorded<Extract<MergeOutcome, { outcome: 'conflict' }>>('merge_worktree', {}, { outcome: 'conflict' }), files: [...conflict] }
        : { ...this.#recorded<Extract<MergeOutcome, { outcome: 'merged' }>>('merge_worktree', {}, { outcome: 'merged' }), base: record.info.base });
    if (outcome.outcome === 'conflict') this.changeWorktree(record.info.task, { merge_conflict: outcome.files });
    if (outcome.outcome === 'merged') this.changeWorktree(record.info.task, { state: 'merged', state_text: 'merged', overlaps: [], conflicts_with: [] });
    return outcome;
  }

  async rebaseWorktree(worktree: string): Promise<RebaseOutcome> {
    this.#record('rebase_worktree', { worktree });
    const record = this.#findOpenWorktree(worktree);
    const conflict = record.info.base_conflict;
    const outcome: RebaseOutcome =
      this.#told('rebase_worktree') ??
      (conflict.length > 0
        ? { ...this.#recorded<Extract<RebaseOutcome, { outcome: 'conflict' }>>('rebase_worktree', {}, { outcome: 'conflict' }), files: [...conflict] }
        : this.#recorded<RebaseOutcome>('rebase_worktree', {}, { outcome: 'rebased' }));
    if (outcome.outcome === 'rebased') this.changeWorktree(record.info.task, { behind: 0, merge_conflict: [] });
    return outcome;
  }

  /** Refused with `would_lose_work` while it has changes and `force` is not given, as the engine does. */
  async discardWorktree(worktree: string, force: boolean): Promise<DiscardOutcome> {
    this.#record('discard_worktree', { worktree, force });
    const record = this.#findOpenWorktree(worktree);
    const told = this.#told<DiscardOutcome>('discard_worktree');
    if (told) return told;
    const changed = record.info.files_changed;
    if (changed > 0 && !force) return { ...this.#recorded<Extract<DiscardOutcome, { outcome: 'would_lose_work' }>>('discard_worktree', { force: false }, { outcome: 'would_lose_work' }), files_changed: changed };
    const patch = changed > 0 ? `/data/patches/${record.info.branch.replaceAll('/', '-')}.patch` : null;
    this.changeWorktree(record.info.task, { state: 'discarded', state_text: 'discarded', patch, overlaps: [], conflicts_with: [] });
    return { outcome: 'discarded', patch };
  }

  /** The review task the engine queues, in its recorded words; comments with no text are refused as it refuses them. */
  async reviewWorktree(worktree: string, comments: ReviewComment[]): Promise<Submitted> {
    this.#record('review_worktree', { worktree, comments });
    const record = this.#findOpenWorktree(worktree);
    if (comments.every((c) => c.text.trim() === '')) throw this.#refusal('review_worktree', { comments: [] });
    return this.#submitFor(record, this.#recorded<Submitted>('review_worktree', {}));
  }

  async resolveWorktree(worktree: string): Promise<Submitted> {
    this.#record('resolve_worktree', { worktree });
    const record = this.#findOpenWorktree(worktree);
    if (record.info.base_conflict.length === 0) throw this.#refusal('resolve_worktree', {});
    return this.#submitFor(record, this.#recorded<Submitted>('resolve_worktree', {}));
  }

  /** The engine's recorded task for a worktree, queued on its agent in that worktree. */
  #submitFor(record: FakeWorktree, recorded: Submitted): Submitted {
    const task = recorded.task;
    return this.#submit({ ...DEMO_TASK, profile_id: record.info.profile_id, instruction: task.instruction, title: taskTitle(task), worktree: record.info.task });
  }

  /** The engine's recorded answer, with the fake's clock. */
  #recorded<T>(type: string, fields: { [key: string]: Json }, answered?: { [key: string]: Json }): T {
    return recordedAnswer<T>(type, fields, { now: this.#now() }, answered);
  }
  /** The engine's recorded refusal, with the fake's clock. */
  #refusal(type: string, fields: { [key: string]: Json }): ApiError {
    return recordedRefusal(type, fields, { now: this.#now() });
  }
  /** The repository a folder is in: a known root it is (or is a directory inside). */
  #repositoryOf(folder: string): { root: string; branch: string | null; setup_command: string | null } | null {
    const path = folder.trim().replace(/(.)\/+$/, '$1');
    if (!this.#directories.has(path)) return null;
    for (const [root, repository] of this.#repositories) {
      if (path === root || path.startsWith(`${root}/`)) return { root, branch: repository.branch, setup_command: repository.setup_command };
    }
    return null;
  }
  #worktree(task: string): FakeWorktree {
    const record = this.#worktrees.get(task);
    if (!record) throw new Error(`no seeded worktree ${task}`);
    return record;
  }

  /** The worktree named by its task or loop, or by a task that ran in it (as the engine's `find`). */
  #findWorktree(key: string): FakeWorktree {
    const task = this.#tasks.get(key);
    const record = this.#worktrees.get(key) ?? (task === undefined ? undefined : this.#worktrees.get(worktreeKeyOf(task)));
    return record ?? this.#fail('worktree_not_found', `no worktree of the task or loop ${key}`);
  }

  /** As the engine: one merged or discarded, or with its agent at work in it, is refused in words. */
  #findOpenWorktree(key: string): FakeWorktree {
    const record = this.#findWorktree(key);
    return record;
  }

  // ---- internals -----------------------------------------------------------------------

  #record(command: string, args: Record<string, unknown>): void {
    this.calls.push({ command, args: structuredClone(args), ...(this.#sendingTo !== undefined && { machine: this.#sendingTo }) });
    const error = this.#failures.get(command)?.shift();
    if (error) throw error;
    // The window's own calls answer whether or not its engine started.
    const windows = ['app_info', 'pick_folder', 'take_open_target', 'list_hosts', 'add_host', 'remove_host', 'open_host', 'attached_hosts', 'connect_host'];
    if (this.#startupProblem && !windows.includes(command)) this.#fail('engine_stopped', 'the engine has shut down');
  }

  #fail(code: ErrorCode, message: string, field: string | null = null): never {
    throw apiError(code, message, field);
  }

  /** The engine's problems with the next agents checked or saved, as a test tells them (none: it takes them). */
  #problems: ProfileProblem[] = [];

  setProfileProblems(problems: ProfileProblem[]): void {
    this.#problems = structuredClone(problems);
  }

  /** Refused as the engine refuses an agent with problems: every one at once, the first named. */
  #validate(): void {
    const problems = this.#problems;
    if (problems.length === 0) return;
    const message = problems.length === 1 ? problems[0].message : `The agent has ${problems.length} problems. ${problems.map((p) => `${p.field}: ${p.message}`).join(' ')}`;
    throw { code: 'invalid_profile', message, field: problems[0].field, problems: structuredClone(problems) } satisfies ApiError;
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

  #start(profile: Profile, size: TermSize, resume: string | null = null): SessionInfo {
    const info: SessionInfo = {
      id: `session-${this.#nextId++}`,
      profile_id: profile.id,
      started_at: this.#now(),
      size,
      agent_session_id: resume ?? (profile.kind === 'claude-code' ? `conversation-${this.#nextId}` : null),
      state: 'running',
      pid: this.#nextPid++,
    };
    const session = this.#newSession(info);
    const argv = [profile.command, ...profile.args].join(' ');
    this.#print(session, encoder.encode(`\x1b[2mSwitchboard fake backend: \`${argv}\` in ${profile.cwd}\x1b[0m\r\n${PROMPT}`));
    this.emit({ type: 'session_changed', session: info });
    // As the engine does, the agent's current session is said again when one starts or ends.
    this.#emitQueue(profile.id);
    // A task that waited for its agent to come up is typed into the new session.
    const waiting = this.#runningTask(profile.id);
    if (waiting && waiting.typed_at === null) this.#typeTask({ ...waiting, session_id: info.id });
    return info;
  }

  #newSession(info: SessionInfo): FakeSession {
    const session: FakeSession = { info, scrollback: [], scrollbackBytes: 0, line: '', paused: false, subscribers: new Map() };
    this.#sessions.set(info.id, session);
    return session;
  }

  #end(session: FakeSession, state: Exclude<SessionState, { state: 'running' }>): void {
    const { id, profile_id, started_at, size, agent_session_id } = session.info;
    session.info = { id, profile_id, started_at, size, agent_session_id, ...state };
    session.subscribers.clear();
    this.emit({ type: 'session_changed', session: session.info });
    this.#emitQueue(profile_id);
    // As in the engine: an agent that exits before writing its summary fails its task.
    const task = this.#runningTask(profile_id);
    if (task && task.session_id === id) {
      this.#endTask(task, 'failed', 'the agent exited before writing its summary', null);
      this.#pump(profile_id);
    }
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

  #task(taskId: TaskId): TaskInfo {
    const task = this.#tasks.get(taskId) ?? this.#fail('task_not_found', `no task ${taskId}`);
    return this.#shown(task);
  }

  /**
   * The task with what it waits for, as the engine decides it: a queued one by its queue's
   * state; one at work as it was last told (the fake agent is ready at once); none once ended.
   */
  #shown(plain: TaskInfo): TaskInfo {
    const task = { ...plain, actions: taskActions(plain.state, plain.loop_iteration !== null), pick: pickOf(plain) };
    switch (task.state) {
      case 'queued': {
        // The user's own pause says more than the limit behind it (the engine's `waiting_for`).
        const limit = this.#limitOf(task.profile_id);
        const dayUsed = this.#daysUsed.get(task.profile_id);
        const waiting: WaitingFor = this.#pausedQueues.has(task.profile_id)
          ? { cause: 'queue_paused', reason: pauseWords(this.#pausedQueues.get(task.profile_id)) }
          : limit
            ? { cause: 'usage_limit', account: limit.account, until: limit.until, retry_at: limit.retry_at }
            : dayUsed
              ? { cause: 'daily_budget', ...dayUsed }
              : { cause: 'task_ahead' };
        return { ...task, waiting_for: waiting };
      }
      case 'running':
        return task;
      default:
        return { ...task, waiting_for: null };
    }
  }

  #newTask(spec: TaskSpec): TaskInfo {
    // Task ids are UUIDs in the engine, and the UI shows their first 8 characters.
    const n = this.#nextTask++;
    // As the engine: after its agent's queued tasks, with the agent's time limit unless the
    // task names one, and blank texts left out.
    const queued = queueOf([...this.#tasks.values()], spec.profile_id);
    const optional = (text: string | null | undefined) => (text === undefined || text === null || text.trim() === '' ? null : text);
    const id = `${n.toString(16).padStart(8, '0')}-0000-4000-8000-${(0xfa4e0000 + n).toString(16).padStart(12, '0')}`;
    const order = queued.length ? Math.max(...queued.map((t) => t.order)) + 1 : 0;
    return {
      id,
      state: 'queued',
      actions: taskActions('queued', spec.loop_iteration !== undefined && spec.loop_iteration !== null),
      pick: pickOf({ state: 'queued', priority: spec.priority ?? 'normal', order }),
      order,
      session_id: null,
      created_at: this.#now(),
      started_at: null,
      typed_at: null,
      ended_at: null,
      progress: null,
      quiet_since: null,
      waiting_since: null,
      waited_ms: 0,
      waiting_for: null,
      reason: null,
      result: null,
      profile_id: spec.profile_id,
      instruction: spec.instruction.trim(),
      context: optional(spec.context),
      specs: optional(spec.specs),
      instructions: optional(spec.instructions),
      priority: spec.priority ?? 'normal',
      time_limit_secs: spec.time_limit_secs ?? this.#profile(spec.profile_id).task_time_limit_secs,
      success_criteria: optional(spec.success_criteria),
      goals: optional(spec.goals),
      loop_iteration: spec.loop_iteration ?? null,
      title: optional(spec.title?.trim()),
      worktree: spec.worktree ?? null,
      base: spec.base ?? null,
      budget: spec.budget ?? null,
      // As the engine's record of a task just made: nothing counted yet, which costs nothing.
      tokens: structuredClone(NO_TOKENS),
      cost_usd: 0,
      team_tokens: null,
      team_cost_usd: null,
      list_price: false,
      // A budget is told with its share as the engine judged it: none of it used yet.
      budget_used: spec.budget ? { used_percent: 0, mark: 'under' } : null,
    };
  }

  #putTask(task: TaskInfo): TaskInfo {
    const shown = this.#shown(task);
    this.#tasks.set(task.id, shown);
    this.emit({ type: 'task_changed', task: shown });
    return shown;
  }

  #runningTask(profileId: ProfileId): TaskInfo | undefined {
    return [...this.#tasks.values()].find((t) => t.profile_id === profileId && t.state === 'running');
  }

  #queueStatus(profileId: ProfileId): QueueStatus {
    const running = this.#runningTask(profileId);
    return {
      profile_id: profileId,
      paused: this.#pausedQueues.has(profileId),
      pause: this.#pausedQueues.get(profileId) ?? null,
      executing: running !== undefined,
      current_task: running?.id ?? null,
      // As the engine names it: the session of the task at work, else the agent's newest running one.
      current_session: running?.session_id ?? this.#newestRunningSession(profileId),
      queued: queueOf([...this.#tasks.values()], profileId).length,
    };
  }

  #newestRunningSession(profileId: ProfileId): SessionId | null {
    const running = [...this.#sessions.values()].filter((s) => s.info.profile_id === profileId && s.info.state === 'running');
    return running.length === 0 ? null : running.reduce((a, b) => (b.info.started_at >= a.info.started_at ? b : a)).info.id;
  }

  #emitQueue(profileId: ProfileId): void {
    this.emit({ type: 'queue_changed', queue: this.#queueStatus(profileId) });
  }

  /** Start the next queued task if the agent is idle and its queue runs; report the queue. */
  #pump(profileId: ProfileId): void {
    const next = queueOf([...this.#tasks.values()], profileId)[0];
    // An agent at its usage limit takes no new task until the limit is over.
    if (next && !this.#pausedQueues.has(profileId) && !this.#runningTask(profileId) && !this.#limitOf(profileId) && !this.#daysUsed.has(profileId)) {
      const now = this.#now();
      const session = [...this.#sessions.values()].find((s) => s.info.profile_id === profileId && s.info.state === 'running');
      const started = this.#putTask({ ...next, state: 'running', started_at: now, session_id: session?.info.id ?? null, waiting_for: null });
      this.#logTask(started, { kind: 'task_started' });
      // The fake agent is "ready" at once when it has a session; without one the task waits.
      if (session) this.#typeTask(started);
    }
    this.#emitQueue(profileId);
  }

  /** Type a running task into the agent's session (`task.session_id`). */
  #typeTask(task: TaskInfo): void {
    const typed = this.#putTask({ ...task, typed_at: this.#now() });
    this.#typeIntoAgent(typed, `[task ${typed.id.slice(0, 8)}] ${firstLine(typed.instruction)}`);
    this.#logTask(typed, { kind: 'task_typed', bracketed: true });
  }

  #endTask(task: TaskInfo, state: TaskState, reason: string | null, result: TaskResult | null): void {
    this.#putTask({ ...this.#task(task.id), state, reason, result, ended_at: this.#now() });
    this.#logTask(task, { kind: 'task_ended', state, reason });
  }

  #logTask(task: TaskInfo, kind: LogKind): void {
    this.#logEntry(this.#task(task.id).session_id, task.id, kind);
  }

  #logEntry(sessionId: SessionId | null, taskId: TaskId | null, kind: LogKind, loopId: LoopId | null = null): void {
    const entry: LogEntry = { seq: this.#nextSeq++, at: this.#now(), session_id: sessionId, task_id: taskId, ...kind };
    this.#log.push(entry);
    if (loopId !== null) this.#logLoops.set(entry.seq, loopId);
    const profileId =
      (sessionId === null ? undefined : this.#sessions.get(sessionId)?.info.profile_id) ??
      (taskId === null ? undefined : this.#tasks.get(taskId)?.profile_id) ??
      null;
    // Sent only while a view follows the log, as the shell does.
    const followed = this.#followed;
    if (followed === null || (followed.of === 'agent' && profileId !== null && profileId !== followed.profile_id)) return;
    this.emit({ type: 'logged', entry: structuredClone(entry), profile_id: profileId });
  }

  /** Whether a log entry belongs to a flow target (the engine reads the same from its index). */
  #ofTarget(entry: LogEntry, target: FlowTarget): boolean {
    const task = entry.task_id === null ? undefined : this.#tasks.get(entry.task_id);
    const session = entry.session_id === null ? undefined : this.#sessions.get(entry.session_id);
    switch (target.of) {
      case 'agent':
        return task?.profile_id === target.profile_id || session?.info.profile_id === target.profile_id;
      case 'session':
        return entry.session_id === target.session_id || task?.session_id === target.session_id;
      case 'task':
        return entry.task_id === target.task_id;
      case 'loop':
        return (
          task?.loop_iteration?.loop_id === target.loop_id || ('loop_id' in entry && entry.loop_id === target.loop_id) || this.#logLoops.get(entry.seq) === target.loop_id
        );
    }
  }

  #checkTarget(target: FlowTarget): void {
    const known =
      target.of === 'agent'
        ? this.#profiles.has(target.profile_id)
        : target.of === 'session'
          ? this.#sessions.has(target.session_id)
          : target.of === 'task'
            ? this.#tasks.has(target.task_id)
            : this.#loops.has(target.loop_id);
    if (!known) this.#fail('invalid_input', `there is no such ${target.of}`, `${target.of === 'agent' ? 'profile' : target.of}_id`);
  }

  #typeIntoAgent(task: TaskInfo, text: string): void {
    const session = task.session_id === null ? undefined : this.#sessions.get(task.session_id);
    if (session?.info.state === 'running') this.#print(session, encoder.encode(`${text}\r\n${PROMPT}`));
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

/** Where the engine's queue puts a queued task (`pick_key`): urgent first, then by `order`. */
export function pickOf(task: Pick<TaskInfo, 'state' | 'priority' | 'order'>): [number, number] | null {
  return task.state === 'queued' ? [task.priority === 'urgent' ? 0 : 1, task.order] : null;
}

/** The actions a task allows, as the engine decides them (`task_actions`); the contract replay holds the two together. */
export function taskActions(state: TaskState, loopIteration: boolean): TaskAction[] {
  const finished = state !== 'queued' && state !== 'running';
  const allowed: [TaskAction, boolean][] = [
    ['cancel', !finished],
    ['move', state === 'queued'],
    ['edit_instruction', state === 'queued' && !loopIteration],
    ['requeue', finished && state !== 'completed' && !loopIteration],
    ['rerun', finished && !loopIteration],
  ];
  return allowed.filter(([, yes]) => yes).map(([action]) => action);
}


/**
 * The responses a pending signal takes, as the engine decides them (`allowed_actions` in the
 * engine's signal desk): the fake plays the engine, so it must offer the same.
 */
export function engineActions(scan: ScanEvent): EngineSignalAction[] {
  if (scan.type === 'malformed') return ['dismiss'];
  switch (scan.signal.kind) {
    case 'clarification':
      return ['answer', 'dismiss'];
    case 'stop_work':
      return ['resolve', 'retry', 'skip', 'delegate_blocked', 'dismiss'];
    case 'delegate':
      return ['approve', 'deny', 'dismiss'];
    case 'completion':
      return ['acknowledge', 'dismiss'];
  }
}

/** Where the fake's programs are (its `PATH`, as the engine sees it). */
export const FAKE_BIN = '/usr/bin';

/**
 * As the engine keeps an agent's command (validate.rs `kept_where_found`): a program named on
 * PATH is kept as the whole path it was found at; a path as given.
 */
function keptWhereFound(spec: ProfileSpec): ProfileSpec {
  const command = spec.command.trim();
  return command.includes('/') ? spec : { ...spec, command: `${FAKE_BIN}/${command}` };
}

/** A spec as the engine takes it off the wire: fields left out get the engine's defaults. */
function withSpecDefaults(spec: ProfileSpec): ProfileSpec {
  const defaults: Omit<ProfileSpec, 'name' | 'command' | 'cwd' | 'kind'> = {
    args: [],
    env: {},
    start_on_launch: false,
    ready_pattern: null,
    ready_quiet_ms: 800,
    task_time_limit_secs: 30 * 60,
    completion: 'summary',
    signal_protocols: true,
    switchboard_tools: true,
    quiet_alert_secs: 600,
    isolation: 'none',
    account: null,
    daily_budget: null,
  };
  return { ...defaults, ...structuredClone(spec) };
}

/** Who paused a queue and why, in the engine's few words (`QueuePause::in_words`). */
function pauseWords(pause: QueuePause | undefined): string {
  switch (pause?.by) {
    case 'user':
      return 'you paused it';
    case 'all_queues':
      return 'you paused every queue';
    case 'agent_stopped':
      return 'you stopped the agent while a task ran';
    case 'restart':
      return 'you restarted the agent and asked its queue to wait';
    case 'task_not_started':
      return `a task could not be started (${pause.reason})`;
    default:
      return 'it is paused';
  }
}

/** The sum of a report's rows: every count added up; a cost not known where any row's is not. */
function summed(rows: readonly CostRow[]): Spent {
  const total: Spent = structuredClone(NOTHING_SPENT);
  for (const row of rows) {
    total.tokens.input += row.tokens.input;
    total.tokens.output += row.tokens.output;
    total.tokens.cache_read += row.tokens.cache_read;
    total.tokens.cache_write += row.tokens.cache_write;
    total.cost_usd = total.cost_usd === null || row.cost_usd === null ? null : total.cost_usd + row.cost_usd;
    total.list_price ||= row.list_price;
  }
  return total;
}
