/**
 * The app's state and the user actions on it. One instance per window, shared with the
 * components through context. It owns the agent (`Profile`) and session lists (folded from
 * the initial `list_*` replies and then from `engine-event`s, by the pure functions in
 * model.ts), the task and queue lists (likewise, by tasks.ts), the signal list (by
 * signals.ts), the app's settings, the selection, the task detail and signal dialog on
 * screen, and the per-agent start errors.
 */
import { SvelteSet } from 'svelte/reactivity';
import type {
  AccountLimit,
  AccountUsage,
  AgentAttention,
  Viewing,
  Delegation,
  FlowTarget,
  FollowedLog,
  HostLink,
  LogEntry,
  LoopFile,
  LoopFiles,
  LoopId,
  LoopInfo,
  LoopSettings,
  OpenTarget,
  PermissionRequest,
  EngineEvent,
  EventPace,
  Profile,
  ProfileId,
  ProfileSpec,
  QueueStatus,
  RestartTask,
  Restarted,
  SessionId,
  SessionInfo,
  Settings,
  SignalId,
  SignalInfo,
  StorageProblem,
  SignalResponse,
  Submitted,
  TaskId,
  TaskInfo,
  TaskSpec,
  TermSize,
  TerminalGrid,
  DiscardOutcome,
  MergeOutcome,
  RebaseOutcome,
  ReviewComment,
  WorktreeInfo,
} from './bindings';
import type { Backend, Unsubscribe } from './backend';
import { logFailure, toApiError, userMessage } from './errors';
import { applyStatusEvent, statusMapOf, type AgentStatusMap } from './agentStatus';
import { applyPermissionEvent } from './permissions';
import { applyDelegationEvent } from './delegations';
import { applyLoopEvent, upsertLoop } from './loops';
import { applyAttentionEvent, attentionMapOf, shownAttentionMap, type AttentionMap, type ShownAttentionMap } from './attention';
import { applyLimitEvent, applyUsageEvent } from './limits';
import {
  applyFloodEvent,
  applySignalEvent,
  floodingAgents,
  mergeInitialSignals,
  pendingSignals,
  upsertSignal,
  type Floods,
} from './signals';
import { applyStorageEvent, type StorageState } from './storage';
import { hostReloadsOn } from './engineLink';
import { hostEventUse, upsertHostLink, withHostStorage } from './hosts';
import { applyWorktreeEvent, upsertWorktree } from './changes';
import { DEFAULT_SETTINGS, applySettingsEvent } from './settings';
import { EMPTY_TASKS, addTaskIfMissing, applyTaskEvent, mergeInitialTasks, selectionForTask, type TaskModel } from './tasks';
import {
  DEFAULT_TERM_SIZE,
  applyEngineEvent,
  initialSelection,
  isRunning,
  mergeInitial,
  repairSelection,
  currentSessionOf,
  sessionsOfProfile,
  upsertProfile,
  upsertSession,
  type Model,
  type Selection,
} from './model';

import { paletteCommands, type PaletteAction, type PaletteCommand } from './palette';
import { Pacer, eventPaceOf, pacedNews, shownAgents } from './pace';
import { Beat, type BeatPart } from './beat';

export class AppState {
  readonly backend: Backend;

  model: Model = $state.raw({ profiles: [], sessions: [] });
  tasks: TaskModel = $state.raw(EMPTY_TASKS);
  #selection: Selection = $state.raw(null);
  /** What the main area shows; the shell and the engine are told (see `viewing`). */
  get selection(): Selection {
    return this.#selection;
  }
  set selection(selection: Selection) {
    // Every event applied asks again what to show; the same answer changes nothing (and must
    // not let the news held for the agents not shown through).
    if (selection === this.#selection) return;
    this.#selection = selection;
    this.#tellViewing();
    // An agent just shown shows its latest news, not that of up to a pace ago.
    this.#pacer.flush();
  }
  /** The accounts at their usage limit: their agents, when each goes on, who goes on now. */
  limits: readonly AccountLimit[] = $state.raw([]);
  /** Each account's usage windows, as its agents' CLIs last told them (none told: not listed). */
  usage: readonly AccountUsage[] = $state.raw([]);
  /** Whether the window has the focus (what the user looks at is then not notified). */
  focused = $state(typeof document !== 'undefined' && document.hasFocus());
  /** The task whose detail is on screen. */
  selectedTaskId: TaskId | null = $state(null);
  /** Whether the agents list is shown; a narrow window starts with it folded to a rail, so
   * the terminal keeps the width. */
  sidebarOpen = $state(typeof window === 'undefined' || window.innerWidth >= 900);
  /** Whether the session view shows its agent's task panel beside the terminal. */
  taskPanelOpen = $state(true);
  formOpen = $state(false);
  /** Whether the settings are shown in the main area. */
  settingsOpen = $state(false);
  #machinesOpen = $state(false);
  /**
   * Whether the other machines are shown in the main area. Leaving them loads the window anew
   * when a machine was reached meanwhile (one just added): its agents join the lists then.
   */
  get machinesOpen(): boolean {
    return this.#machinesOpen;
  }
  set machinesOpen(open: boolean) {
    this.#machinesOpen = open;
    if (!open && this.#reloadOnLeavingMachines) {
      this.#reloadOnLeavingMachines = false;
      this.backend.reloadWindow();
    }
  }
  /** The app's settings: the engine's defaults until it answered, then as saved. */
  settings: Settings = $state.raw(DEFAULT_SETTINGS);
  /** The agent the form edits; null while it creates a new one. */
  editing: Profile | null = $state.raw(null);
  loading = $state(true);
  loadError: string | null = $state(null);
  /** The initial task lists could not be loaded (the rest of the app works without them). */
  taskLoadError: string | null = $state(null);
  /** Signals agents raised: every pending one and the recently settled ones, in no order. */
  signals: SignalInfo[] = $state.raw([]);
  /** Whether the data can be written (null until known). */
  storage: StorageState | null = $state.raw(null);
  /** The other machines shown beside this one's that cannot write their data now, with why. */
  hostStorage: Record<string, StorageProblem> = $state.raw({});
  /**
   * The machine whose engine the window shows when not this one (an SSH destination, as
   * `switchboard --host` was given); null for this machine, and until the app's info is in.
   * Its folders are not this desktop's: the agent form browses them through the engine.
   */
  host: string | null = $state(null);
  /**
   * The other machines the window shows agents of, each with the window's link to it now, in
   * the order attached (empty until listed; a machine the window shows no agent of is listed too).
   */
  hostLinks: HostLink[] = $state.raw([]);
  /** Each agent's attention as its engine last told it, whether its machine is reached now or not. */
  #heardAttention: AttentionMap = $state.raw({});
  /**
   * Each agent's attention as the window shows it (the one state every place shows, and counts):
   * its engine's, or unknown while the window cannot reach the machine it runs on.
   */
  readonly attention: ShownAttentionMap = $derived(shownAttentionMap(this.#heardAttention, this.model.profiles, this.hostLinks));
  /** Sessions that reached the limit of signals waiting at once. */
  floods: Floods = $state.raw({});
  /** Delegated agents: at work, reported or ended, in no order. */
  delegations: Delegation[] = $state.raw([]);
  /** Loops: active, stalled and the recent ended ones, in no order. */
  loops: LoopInfo[] = $state.raw([]);
  /** The loop whose detail is on screen. */
  shownLoopId: LoopId | null = $state(null);
  /** The worktrees made for agents that work apart: the open ones, then the recently merged or discarded. */
  worktrees: WorktreeInfo[] = $state.raw([]);
  /** Whether the list of worktrees is shown in the main area. */
  worktreesOpen = $state(false);
  /**
   * The worktree whose changes are shown in the main area (its task's or loop's id), over the
   * list of worktrees when that was open.
   */
  changesOf: string | null = $state(null);
  /** What the flows view shows (over the main area), if it is open. */
  flowsTarget: FlowTarget | null = $state.raw(null);
  /** Whether the overview of all agents is open (over the main area). */
  overviewOpen = $state(false);
  /**
   * Whether the terminal grid is shown in the main area (several agents' live terminals side
   * by side). What it shows is kept in the settings (`terminal_grid`); the selection under it
   * stays, for when it closes.
   */
  gridOpen = $state(false);
  /** The agents of the open grid's tiles, as the grid shows them (empty while it is closed). */
  gridShown: readonly ProfileId[] = $state.raw([]);
  /**
   * The agents the main area shows: their status and attention news is applied as it comes; the
   * others' is held and applied at a pace (see `pace.ts`).
   */
  readonly shownAgents: ReadonlySet<ProfileId> = $derived(
    shownAgents({
      selection: this.selection,
      sessions: this.model.sessions,
      grid: this.gridOpen ? this.gridShown : [],
      flows: this.flowsTarget === null ? null : (this.#agentOf(this.flowsTarget) ?? null),
    }),
  );
  /** The news of agents not on screen, applied together at the beat. */
  #pacer = new Pacer<EngineEvent>((events) => {
    for (const event of events) this.#applyNow(event);
  });
  /**
   * The window's beat: what it shows of the agents not on screen (their held news, the
   * dashboard, the graph) changes at it, all at once. Views add their parts (`onBeat`).
   */
  readonly #beat = new Beat(() => this.#pacer.flush());

  /** Adds a part to the window's beat (see `beat.ts`); the returned function takes it out. */
  onBeat(part: BeatPart): () => void {
    return this.#beat.add(part);
  }
  /** The agent whose tile in the grid has the keyboard (the grid sets it): "this agent" while the grid is shown. */
  gridFocus: ProfileId | null = $state(null);
  /** Whether the search view is shown (in the main area), and what it searches. */
  searchOpen = $state(false);
  searchQuery = $state('');
  /** Whether the command palette is open. */
  paletteOpen = $state(false);
  /** The agent whose task panel should open its "New task" form (asked from the keyboard). */
  taskFormFor: ProfileId | null = $state(null);
  /** Counts the requests to put the keyboard in the terminal on screen. */
  terminalFocus = $state(0);
  readonly #logListeners: ((entry: LogEntry, profileId: ProfileId | null) => void)[] = [];
  /** Each session's agent status, from its hooks. */
  agentStatus: AgentStatusMap = $state.raw({});
  /** Permission requests agents wait on, oldest first. */
  permissions: PermissionRequest[] = $state.raw([]);
  /** The initial signal list could not be loaded (the rest of the app works without it). */
  signalLoadError: string | null = $state(null);
  /** The signal whose dialog is open (over the whole app). */
  shownSignalId: SignalId | null = $state(null);
  /** The last start failure per agent, shown under it until the next attempt. */
  startErrors: Record<ProfileId, string> = $state.raw({});
  /** Agents with a start in flight. */
  readonly starting = new SvelteSet<ProfileId>();
  /**
   * The size the visible terminal last fitted to; new sessions start at it so the agent's
   * first screen needs no resize.
   */
  terminalSize: TermSize = DEFAULT_TERM_SIZE;
  /**
   * The size this window last gave each session's terminal. A session's recorded size is the
   * one it started with; once a grid's tile has fitted it smaller, the view that shows it next
   * must know, or it would take its own size for the session's and leave the tile's. Plain
   * (not state): nothing on screen shows it.
   */
  readonly sentSizes: Record<SessionId, TermSize> = {};

  selectedSession: SessionInfo | undefined = $derived.by(() => {
    const selection = this.selection;
    return selection?.kind === 'session' ? this.model.sessions.find((s) => s.id === selection.id) : undefined;
  });

  /** The agent of the selected session, or the selected agent. */
  selectedAgent: Profile | undefined = $derived.by(() => {
    const selection = this.selection;
    const id = selection?.kind === 'profile' ? selection.id : this.selectedSession?.profile_id;
    return id === undefined ? undefined : this.model.profiles.find((p) => p.id === id);
  });

  selectedTask: TaskInfo | undefined = $derived.by(() => {
    const id = this.selectedTaskId;
    return id === null ? undefined : this.tasks.tasks.find((t) => t.id === id);
  });

  shownLoop: LoopInfo | undefined = $derived.by(() => {
    const id = this.shownLoopId;
    return id === null ? undefined : this.loops.find((l) => l.id === id);
  });

  /**
   * What the window shows now, as the shell and the engine are told it: the agent in the main
   * area (none while the settings, the search or the agent form cover it) and its task detail.
   */
  get viewing(): Viewing {
    // The grid shows several agents at once: none of them is the one the user looks at (a
    // failure it shows is not taken as seen, which would take it out of "All that need me").
    const covered =
      this.formOpen || this.searchOpen || this.settingsOpen || this.machinesOpen || this.worktreesOpen || this.changesOf !== null || this.gridOpen;
    const agent = covered ? null : (this.selectedAgent?.id ?? this.selectedTask?.profile_id ?? null);
    return { profile_id: agent, task_id: this.selectedTaskId, focused: this.focused };
  }

  #toldViewing = '';

  /** Tells the shell and the engine what the window shows, when that changed (App.svelte follows `viewing`). */
  tellViewing(): void {
    this.#tellViewing();
  }

  #tellViewing(): void {
    if (this.loading) return;
    const viewing = this.viewing;
    const key = JSON.stringify(viewing);
    if (key === this.#toldViewing) return;
    this.#toldViewing = key;
    this.backend.setViewing(viewing).catch(logFailure('set_viewing'));
  }

  /** Null until told: a window loaded again finds the shell at whatever pace it was left at. */
  #toldPace: EventPace | null = null;

  /** Tells the shell how soon the window wants events (`eventPaceOf`), at first and when that changed (App.svelte follows `shownAgents`). */
  tellEventPace(): void {
    const pace = eventPaceOf(this.shownAgents);
    if (pace === this.#toldPace) return;
    this.#toldPace = pace;
    this.backend.setEventPace(pace).catch(logFailure('set_event_pace'));
  }

  /** The window gained or lost the focus. */
  setFocused(focused: boolean): void {
    this.focused = focused;
    this.#tellViewing();
  }

  /** The signals waiting for the user, oldest first. */
  pendingSignals: SignalInfo[] = $derived(pendingSignals(this.signals));
  /** Agents whose new signals are set aside until the user answers some. */
  flooding = $derived(floodingAgents(this.floods, this.signals));

  shownSignal: SignalInfo | undefined = $derived.by(() => {
    const id = this.shownSignalId;
    return id === null ? undefined : this.signals.find((s) => s.id === id);
  });

  #unsubscribe: Unsubscribe[] = [];
  #loaded: Promise<void>;
  #markLoaded: () => void = () => {};

  constructor(backend: Backend) {
    this.backend = backend;
    this.#loaded = new Promise((resolve) => (this.#markLoaded = resolve));
  }

  /**
   * Subscribe to engine events and notification clicks, load the lists (profiles, sessions,
   * tasks, queues, signals), and select what the window opens on: what it was started to open
   * (a notification the daemon showed was clicked), once loaded. Events that arrive while the
   * lists load are buffered and applied after them; a notification click waits for the load.
   */
  async open(): Promise<void> {
    const buffered: EngineEvent[] = [];
    let loaded = false;
    this.#unsubscribe.push(
      this.backend.onEngineEvent((event, host) => {
        // Another machine's events are that machine's: its storage is never this one's.
        if (host !== null) {
          const use = hostEventUse(event, host);
          if (use.use === 'storage') this.hostStorage = withHostStorage(this.hostStorage, use.host, use.problem);
          if (use.use !== 'apply') return;
        }
        // The event log's entries go to the views that follow it, not through the lists.
        if (event.type === 'logged') {
          for (const listener of this.#logListeners) listener(event.entry, event.profile_id);
          return;
        }
        if (loaded) this.#apply(event);
        else buffered.push(event);
      }),
      this.backend.onOpenTask((taskId) => void this.revealTask(taskId)),
      this.backend.onOpenSignal((signalId) => this.showSignal(signalId)),
      this.backend.onOpenLoop((loopId) => void this.revealLoop(loopId)),
      this.backend.onOpenTarget(() => void this.#takeOpenTarget()),
      this.backend.onHostLink((link) => this.#followHostLink(link)),
    );
    // Only once the events are heard do the lists load: a change between the two is then in
    // one or the other (applied twice is harmless; missed is not).
    await this.backend.whenListening();
    // Whether the data can be written: an engine that could not start on it says so here.
    const storage = this.backend.appInfo().then(
      async (info): Promise<StorageState | null> => {
        this.host = info.host;
        if (info.startup_problem) return { dataDir: info.data_dir, problem: info.startup_problem, atStartup: true };
        const status = await this.backend.storageStatus();
        return {
          dataDir: status.data_dir,
          problem: status.problem,
          atStartup: false,
          setAside: { count: status.hook_events_set_aside, file: status.set_aside_file },
        };
      },
      () => null,
    );
    // Tasks load beside the profiles and sessions; an engine that cannot list them still
    // leaves the agents and terminals usable.
    const taskLists = Promise.all([this.backend.listTasks(null), this.backend.listQueues()]).then(
      ([tasks, queues]) => ({ tasks, queues }),
      (reason: unknown) => {
        this.taskLoadError = userMessage(toApiError(reason));
        return { tasks: [] as TaskInfo[], queues: [] as QueueStatus[] };
      },
    );
    // Likewise signals: without them nothing asks for the user, but the agents still run.
    const signalList = this.backend.listSignals().catch((reason: unknown) => {
      this.signalLoadError = userMessage(toApiError(reason));
      return [] as SignalInfo[];
    });
    // Statuses come from hooks; without them the session states still tell.
    const statusList = this.backend.listAgentStatus().catch(() => []);
    const permissionList = this.backend.listPermissionRequests().catch(() => [] as PermissionRequest[]);
    const delegationList = this.backend.listDelegations().catch(() => [] as Delegation[]);
    const loopList = this.backend.listLoops().catch(() => [] as LoopInfo[]);
    const attentionList = this.backend.listAttention().catch(() => [] as AgentAttention[]);
    // Without them an agent's usage limit is still said by its attention, less its account's news.
    const limitList = this.backend.listLimits().catch((reason: unknown) => {
      logFailure('list_limits')(reason);
      return [] as AccountLimit[];
    });
    // Without it no bar shows how much of its account an agent used; nothing else needs it.
    const usageList = this.backend.listUsage().catch((reason: unknown) => {
      logFailure('list_usage')(reason);
      return [] as AccountUsage[];
    });
    // Without them no task offers its changes; everything else works.
    const worktreeList = this.backend.listWorktrees().catch((reason: unknown) => {
      logFailure('list_worktrees')(reason);
      return [] as WorktreeInfo[];
    });
    // Without them the other machines' agents still show, unmarked when their machine drops.
    void this.backend.attachedHosts().then(
      (links) => {
        // A link heard meanwhile is newer than the list.
        const heard = this.hostLinks;
        this.hostLinks = heard.reduce(upsertHostLink, links);
        // Whether each machine reached can write its data now (later changes come as its events).
        for (const { destination, link } of this.hostLinks) {
          if (link.state !== 'connected') continue;
          void this.backend
            .machine(destination)
            .storageStatus()
            .then((status) => (this.hostStorage = withHostStorage(this.hostStorage, destination, status.problem)), logFailure('storage_status'));
        }
      },
      logFailure('attached_hosts'),
    );
    const openAtStart = this.backend.takeOpenTarget().catch((reason: unknown) => {
      logFailure('take_open_target')(reason);
      return null;
    });
    // Without its settings the window goes on with the defaults.
    const settings = this.backend.getSettings().catch((reason: unknown) => {
      logFailure('get_settings')(reason);
      return DEFAULT_SETTINGS;
    });
    try {
      const [[profiles, sessions], tasks, signals] = await Promise.all([
        Promise.all([this.backend.listProfiles(), this.backend.listSessions()]),
        taskLists,
        signalList,
      ]);
      this.model = mergeInitial({ profiles, sessions }, buffered);
      this.tasks = mergeInitialTasks(tasks, buffered);
      this.signals = mergeInitialSignals(signals, buffered);
      this.agentStatus = buffered.reduce(applyStatusEvent, statusMapOf(await statusList));
      this.permissions = buffered.reduce(applyPermissionEvent, await permissionList);
      this.delegations = buffered.reduce(applyDelegationEvent, await delegationList);
      this.loops = buffered.reduce(applyLoopEvent, await loopList);
      this.#heardAttention = buffered.reduce(applyAttentionEvent, attentionMapOf(await attentionList));
      this.limits = buffered.reduce(applyLimitEvent, await limitList);
      this.usage = buffered.reduce(applyUsageEvent, await usageList);
      this.worktrees = buffered.reduce(applyWorktreeEvent, await worktreeList);
      this.settings = buffered.reduce(applySettingsEvent, await settings);
      this.storage = buffered.reduce(applyStorageEvent, await storage.catch(() => null));
      if (this.selection === null) this.selection = initialSelection(this.model);
    } catch (reason) {
      this.storage = buffered.reduce(applyStorageEvent, await storage.catch(() => null));
      // An engine that could not start is explained by the storage banner.
      this.loadError = this.storage?.atStartup ? null : userMessage(toApiError(reason));
      this.model = mergeInitial({ profiles: [], sessions: [] }, buffered);
      this.tasks = mergeInitialTasks((await taskLists), buffered);
      this.signals = mergeInitialSignals(await signalList, buffered);
    } finally {
      if (this.storage?.atStartup) {
        // Every list failed for the one reason the banner gives.
        this.taskLoadError = null;
        this.signalLoadError = null;
      }
      loaded = true;
      this.loading = false;
      this.#beat.start();
      this.#tellViewing();
      this.#markLoaded();
    }
    await this.#openTarget(await openAtStart);
  }

  /** Show what the window was asked to open from outside, once the lists have loaded. */
  async #openTarget(target: OpenTarget | null): Promise<void> {
    await this.#loaded;
    switch (target?.kind) {
      case 'task':
        return this.revealTask(target.id);
      case 'signal':
        return this.showSignal(target.id);
      case 'loop':
        return this.revealLoop(target.id);
      case 'agent':
        return this.revealAgent(target.id);
    }
  }

  /** Show what a second launch of the app handed over. */
  async #takeOpenTarget(): Promise<void> {
    const target = await this.backend.takeOpenTarget().catch((reason: unknown) => {
      logFailure('take_open_target')(reason);
      return null;
    });
    await this.#openTarget(target);
  }

  /** Show an agent: its most recent running session, else the agent itself. */
  revealAgent(profileId: ProfileId): void {
    const running = this.sessionsOf(profileId).find((session) => session.state === 'running');
    this.select(running ? { kind: 'session', id: running.id } : { kind: 'profile', id: profileId });
  }

  close(): void {
    this.#beat.stop();
    for (const unsubscribe of this.#unsubscribe.splice(0)) unsubscribe();
  }

  /**
   * Another machine's link changed: kept, and when the machine is reached again (or for the
   * first time since the window loaded) the window loads anew, as for its own engine, since its
   * lists were joined without that machine's news.
   */
  #followHostLink(link: HostLink): void {
    const before = this.hostLinks.find((l) => l.destination === link.destination)?.link ?? null;
    this.hostLinks = upsertHostLink(this.hostLinks, link);
    if (!hostReloadsOn(before, link.link)) return;
    // A machine just added in the Machines view: the window loads anew once the user leaves it.
    if (this.machinesOpen) this.#reloadOnLeavingMachines = true;
    else this.backend.reloadWindow();
  }

  #reloadOnLeavingMachines = false;

  /**
   * A machine left the list: its link and its agents leave the window (they go on working
   * there; adding the machine again shows them again).
   */
  forgetHost(destination: string): void {
    this.hostLinks = this.hostLinks.filter((l) => l.destination !== destination);
    // Its storage problem is no longer this window's to show.
    this.hostStorage = withHostStorage(this.hostStorage, destination, null);
    const gone = this.model.profiles.filter((p) => p.host === destination).map((p) => p.id);
    if (gone.length === 0) return;
    this.model = {
      profiles: this.model.profiles.filter((p) => !gone.includes(p.id)),
      sessions: this.model.sessions.filter((s) => !gone.includes(s.profile_id)),
    };
    if (this.selection !== null && this.selectedAgent === undefined) this.selection = initialSelection(this.model);
  }

  /** Try to reach another machine again now; rejects with an ApiError. */
  connectHost(destination: string): Promise<void> {
    return this.backend.connectHost(destination);
  }

  sessionsOf(profileId: ProfileId): SessionInfo[] {
    return sessionsOfProfile(this.model.sessions, profileId);
  }

  /** The agent's current session, as its engine names it (`currentSessionOf`). */
  currentSessionOf(profileId: ProfileId): SessionInfo | undefined {
    const named = this.tasks.queues.find((q) => q.profile_id === profileId)?.current_session;
    return currentSessionOf(this.model.sessions, profileId, named);
  }

  select(selection: Selection): void {
    this.selection = selection;
    this.formOpen = false;
    this.gridOpen = false;
    this.searchOpen = false;
    this.settingsOpen = false;
    this.machinesOpen = false;
    this.worktreesOpen = false;
    this.changesOf = null;
    this.closeTask();
    this.closeLoop();
    this.closeFlows();
  }

  // ---- flows ---------------------------------------------------------------------------

  /** Show the flows of an agent, session, task or loop (in the details' place). */
  openFlows(target: FlowTarget): void {
    this.closeTask();
    this.closeLoop();
    this.overviewOpen = false;
    this.flowsTarget = target;
    this.#followLog(target);
  }

  /** Show all agents as one graph. */
  openOverview(): void {
    this.closeTask();
    this.closeLoop();
    this.flowsTarget = null;
    this.overviewOpen = true;
    this.#followLog(null);
  }

  closeFlows(): void {
    if (this.flowsTarget === null && !this.overviewOpen) return;
    this.flowsTarget = null;
    this.overviewOpen = false;
    this.#followLog(null);
  }

  /** The window is sent the log's entries about the shown flows' agent, and only while shown. */
  #followLog(target: FlowTarget | null): void {
    let followed: FollowedLog | null = null;
    if (target !== null) {
      const agent = this.#agentOf(target);
      followed = agent === undefined ? { of: 'everything' } : { of: 'agent', profile_id: agent };
    }
    this.backend.followLog(followed).catch(logFailure('follow_log'));
  }

  #agentOf(target: FlowTarget): ProfileId | undefined {
    switch (target.of) {
      case 'agent':
        return target.profile_id;
      case 'session':
        return this.model.sessions.find((s) => s.id === target.session_id)?.profile_id;
      case 'task':
        return this.tasks.tasks.find((t) => t.id === target.task_id)?.profile_id;
      case 'loop':
        return this.loops.find((l) => l.id === target.loop_id)?.profile_id;
    }
  }

  /** Follow the event log as it grows: each entry, with the agent it concerns. */
  onLogged(listener: (entry: LogEntry, profileId: ProfileId | null) => void): () => void {
    this.#logListeners.push(listener);
    return () => {
      const at = this.#logListeners.indexOf(listener);
      if (at >= 0) this.#logListeners.splice(at, 1);
    };
  }

  /** Open the agent form: empty to create, or filled in to edit `agent`. */
  openForm(agent: Profile | null = null): void {
    this.editing = agent;
    this.formOpen = true;
    this.settingsOpen = false;
    this.machinesOpen = false;
    this.closeTask();
  }

  // ---- settings ------------------------------------------------------------------------

  /** Clears the main area for a page of the app's own (the settings, the machines). */
  private clearMainArea(): void {
    this.closeForm();
    this.closeTask();
    this.closeLoop();
    this.closeFlows();
    this.searchOpen = false;
    this.worktreesOpen = false;
    this.changesOf = null;
    this.settingsOpen = false;
    this.machinesOpen = false;
    this.gridOpen = false;
  }

  /** Show the settings in the main area. */
  openSettings(): void {
    this.clearMainArea();
    this.settingsOpen = true;
  }

  closeSettings(): void {
    this.settingsOpen = false;
  }

  // ---- other machines ------------------------------------------------------------------

  /** Show the other machines (their engines over ssh) in the main area. */
  openMachines(): void {
    this.clearMainArea();
    this.machinesOpen = true;
  }

  closeMachines(): void {
    this.machinesOpen = false;
  }

  // ---- terminal grid -------------------------------------------------------------------

  /** Show the terminal grid in the main area. */
  openGrid(): void {
    this.clearMainArea();
    this.gridOpen = true;
  }

  /**
   * Keep what the grid shows. The grid follows the change at once: two edits in a row build
   * on each other, not on what the engine last answered; a refusal puts back what it was and
   * rejects with an ApiError.
   */
  async saveGrid(grid: TerminalGrid): Promise<void> {
    const before = this.settings;
    this.settings = { ...before, terminal_grid: grid };
    try {
      await this.saveSettings(this.settings);
    } catch (reason) {
      if (this.settings.terminal_grid === grid) this.settings = { ...this.settings, terminal_grid: before.terminal_grid };
      throw reason;
    }
  }

  /** Keep the settings; resolves with them as the engine kept them, rejects with an ApiError. */
  async saveSettings(settings: Settings): Promise<Settings> {
    const kept = await this.backend.setSettings(settings);
    this.settings = kept;
    return kept;
  }

  // ---- tasks ---------------------------------------------------------------------------

  /** Show a task's detail, and tell the shell (it does not notify about the task on screen). */
  openTask(taskId: TaskId): void {
    this.shownLoopId = null;
    this.closeFlows();
    if (this.selectedTaskId === taskId) return;
    this.selectedTaskId = taskId;
    this.#tellViewing();
  }

  closeTask(): void {
    if (this.selectedTaskId === null) return;
    this.selectedTaskId = null;
    this.#tellViewing();
  }

  /**
   * Show a task the user asked for from outside (a clicked notification): select its agent,
   * keeping the selection if it already shows that agent, and open the task's detail. A task
   * the lists do not have (yet) is fetched.
   */
  async revealTask(taskId: TaskId): Promise<void> {
    await this.#loaded;
    let task = this.tasks.tasks.find((t) => t.id === taskId);
    if (!task) {
      try {
        task = await this.backend.getTask(taskId);
      } catch (reason) {
        logFailure(`get_task(${taskId})`)(reason);
        return;
      }
      this.#addTask(task);
    }
    this.selection = selectionForTask(this.model, this.selection, task);
    this.formOpen = false;
    this.settingsOpen = false;
    this.machinesOpen = false;
    this.openTask(taskId);
  }

  /** Submit a task; rejects with an ApiError. */
  async submitTask(spec: TaskSpec): Promise<Submitted> {
    const submitted = await this.backend.submitTask(spec);
    this.#addTask(submitted.task);
    return submitted;
  }

  /** Cancel a queued or running task; rejects with an ApiError. */
  async cancelTask(taskId: TaskId): Promise<void> {
    this.#addTask(await this.backend.cancelTask(taskId));
  }

  /** Move a queued task to a 0-based place in its agent's queue (pick order); rejects with an ApiError. */
  async moveTask(taskId: TaskId, toIndex: number): Promise<void> {
    await this.backend.moveTask(taskId, toIndex);
  }

  /**
   * Have a task its agent took but is not ready for typed now, whatever readiness says (the user
   * sees its prompt where the ready pattern does not); the task's events follow. Rejects with an
   * ApiError.
   */
  async typeTaskNow(taskId: TaskId): Promise<void> {
    await this.backend.typeTaskNow(taskId);
  }

  /**
   * Have an agent go on now, without waiting for its usage limit's reset (or an overloaded
   * model's retry, or after the user saw to its account): the engine types `continue` into it,
   * or lets it take its next task; its account's other agents follow one at a time. Rejects
   * with an ApiError (`nothing_to_resume` when nothing holds it back).
   */
  async resumeAgent(profileId: ProfileId): Promise<void> {
    await this.backend.resumeAgent(profileId);
  }

  /** Put a finished task back at the front of its queue; rejects with an ApiError. */
  async requeueTask(taskId: TaskId): Promise<void> {
    this.#addTask(await this.backend.requeueTask(taskId));
  }

  /**
   * Show an agent with its task panel and open its "New task" form: its running session's
   * view, else the agent's.
   */
  openTaskForm(profileId: ProfileId): void {
    const running = this.currentSessionOf(profileId);
    this.select(running ? { kind: 'session', id: running.id } : { kind: 'profile', id: profileId });
    this.taskPanelOpen = true;
    this.taskFormFor = profileId;
  }

  /** The task panel of `profileId` opened its form as asked. */
  taskFormOpened(profileId: ProfileId): void {
    if (this.taskFormFor === profileId) this.taskFormFor = null;
  }

  /** Put the keyboard in the terminal on screen (closing what covers it). */
  focusTerminal(): void {
    this.closeTask();
    this.closeLoop();
    this.closeFlows();
    this.terminalFocus++;
  }

  /** The palette's commands for what the window shows now. */
  get paletteCommands(): PaletteCommand[] {
    return paletteCommands({
      profiles: this.model.profiles,
      sessions: this.model.sessions,
      queues: this.tasks.queues,
      pending: this.pendingSignals,
      attention: this.attention,
      loops: this.loops,
      current: this.gridOpen ? this.model.profiles.find((p) => p.id === this.gridFocus) : this.selectedAgent,
      terminalShown: this.gridOpen ? this.gridFocus !== null : this.selectedSession?.state === 'running',
      agentsShown: this.sidebarOpen,
      worktrees: this.worktrees,
      tasks: this.tasks.tasks,
      now: Date.now(),
    });
  }

  /** Does what a palette command (or its shortcut) says. */
  run(action: PaletteAction): void {
    this.paletteOpen = false;
    switch (action.kind) {
      case 'dashboard':
        return this.select(null);
      case 'grid':
        return this.openGrid();
      case 'search':
        return this.openSearch();
      case 'overview':
        return this.openOverview();
      case 'settings':
        return this.openSettings();
      case 'machines':
        return this.openMachines();
      case 'go':
        return this.select(action.session ? { kind: 'session', id: action.session.id } : { kind: 'profile', id: action.profile.id });
      case 'new-task':
        return this.openTaskForm(action.profile.id);
      case 'new-agent':
        return this.openForm();
      case 'start':
        void this.startAgent(action.profile.id);
        return;
      case 'resume':
        // A refusal (nothing holds it back any more) has no view to show in: logged; the
        // agent's banner says whatever still holds it.
        this.resumeAgent(action.profile.id).catch(logFailure('resume_agent'));
        return;
      case 'answer':
        return this.showSignal(action.signal.id);
      case 'task':
        void this.revealTask(action.taskId);
        return;
      case 'terminal':
        return this.focusTerminal();
      case 'pause-all':
        this.setAllQueuesPaused(action.paused).catch(logFailure('set_queue_paused'));
        return;
      case 'agents':
        this.sidebarOpen = action.open;
        return;
      case 'loop':
        return this.openLoop(action.loop.id);
      case 'worktrees':
        return this.openWorktrees();
    }
  }

  /** Show the search view, searching `query` (or what it searched last). */
  openSearch(query?: string): void {
    this.formOpen = false;
    this.closeTask();
    this.closeLoop();
    this.closeFlows();
    this.settingsOpen = false;
    this.machinesOpen = false;
    this.worktreesOpen = false;
    this.changesOf = null;
    if (query !== undefined) this.searchQuery = query;
    this.gridOpen = false;
    this.searchOpen = true;
  }

  // ---- worktrees -----------------------------------------------------------------------

  /** Show every worktree in the main area. */
  openWorktrees(): void {
    this.#coverMain();
    this.changesOf = null;
    this.worktreesOpen = true;
  }

  /** Show what a worktree changed (by its task's or loop's id), in the main area. */
  openChanges(worktree: string): void {
    this.#coverMain();
    this.changesOf = worktree;
  }

  /** Close the changes view: back to the list of worktrees when it was open, else to what was under it. */
  closeChanges(): void {
    this.changesOf = null;
  }

  closeWorktrees(): void {
    this.worktreesOpen = false;
    this.changesOf = null;
  }

  /**
   * Commit what the agent left uncommitted in a worktree. Resolves with whether anything was
   * committed. Rejects with an ApiError.
   */
  async commitWorktree(info: WorktreeInfo): Promise<boolean> {
    const outcome = await this.backend.commitWorktree(info.task);
    this.worktrees = upsertWorktree(this.worktrees, outcome.worktree);
    return outcome.committed;
  }

  /** Land a worktree's work on its base; its changes follow as `worktree_changed`. Rejects with an ApiError. */
  mergeWorktree(worktree: string): Promise<MergeOutcome> {
    return this.backend.mergeWorktree(worktree);
  }

  /** Move a worktree's work onto the latest of its base. Rejects with an ApiError. */
  rebaseWorktree(worktree: string): Promise<RebaseOutcome> {
    return this.backend.rebaseWorktree(worktree);
  }

  /** Remove a worktree; `force` keeps work that would be lost as a patch. Rejects with an ApiError. */
  discardWorktree(worktree: string, force: boolean): Promise<DiscardOutcome> {
    return this.backend.discardWorktree(worktree, force);
  }

  /** Send the user's line comments to the worktree's agent, as a new task there. Rejects with an ApiError. */
  async reviewWorktree(worktree: string, comments: ReviewComment[]): Promise<Submitted> {
    const submitted = await this.backend.reviewWorktree(worktree, comments);
    this.#addTask(submitted.task);
    return submitted;
  }

  /** Ask the worktree's agent to resolve its conflicts with its base, as a new task there. Rejects with an ApiError. */
  async resolveWorktree(worktree: string): Promise<Submitted> {
    const submitted = await this.backend.resolveWorktree(worktree);
    this.#addTask(submitted.task);
    return submitted;
  }

  /** What covers the main area and the details over it goes, for a view of the main area. */
  #coverMain(): void {
    this.formOpen = false;
    this.gridOpen = false;
    this.editing = null;
    this.settingsOpen = false;
    this.machinesOpen = false;
    this.searchOpen = false;
    this.closeTask();
    this.closeLoop();
    this.closeFlows();
  }

  /** Rename a task and, while it waits, change its instruction; rejects with an ApiError. */
  async editTask(taskId: TaskId, edit: { title?: string; instruction?: string }): Promise<void> {
    this.#addTask(await this.backend.editTask(taskId, edit.title ?? null, edit.instruction ?? null));
  }

  /** Run a finished task again as a new task, and show the new one; rejects with an ApiError. */
  async rerunTask(taskId: TaskId): Promise<void> {
    const submitted = await this.backend.rerunTask(taskId);
    this.#addTask(submitted.task);
    this.openTask(submitted.task.id);
  }

  /** Pause or resume every agent's queue; rejects with an ApiError. */
  async setAllQueuesPaused(paused: boolean): Promise<void> {
    await this.backend.setQueuePaused(null, paused);
  }

  /** Pause or resume an agent's queue; rejects with an ApiError. */
  async setQueuePaused(profileId: ProfileId, paused: boolean): Promise<void> {
    await this.backend.setQueuePaused(profileId, paused);
  }

  // ---- loops ---------------------------------------------------------------------------

  /** Show a loop's detail (in the task detail's place). */
  openLoop(loopId: LoopId): void {
    this.closeTask();
    this.closeFlows();
    this.shownLoopId = loopId;
  }

  closeLoop(): void {
    this.shownLoopId = null;
  }

  /** Show a loop the user asked for from outside (a clicked notification), with its agent. */
  async revealLoop(loopId: LoopId): Promise<void> {
    await this.#loaded;
    let info = this.loops.find((l) => l.id === loopId);
    if (!info) {
      try {
        info = await this.backend.getLoop(loopId);
      } catch (reason) {
        logFailure(`get_loop(${loopId})`)(reason);
        return;
      }
      this.loops = upsertLoop(this.loops, info);
    }
    const agent = info.profile_id;
    if (this.selectedAgent?.id !== agent) this.selection = { kind: 'profile', id: agent };
    this.formOpen = false;
    this.settingsOpen = false;
    this.machinesOpen = false;
    this.openLoop(loopId);
  }

  /** Start a loop on an agent and show it; rejects with an ApiError. */
  async startLoop(profileId: ProfileId, settings: LoopSettings): Promise<LoopInfo> {
    const info = await this.backend.startLoop(profileId, settings);
    this.loops = upsertLoop(this.loops, info);
    this.openLoop(info.id);
    return info;
  }

  /** Cancel a loop and its iteration at work; rejects with an ApiError. */
  async cancelLoop(loopId: LoopId): Promise<void> {
    this.loops = upsertLoop(this.loops, await this.backend.cancelLoop(loopId));
  }

  /** Resume a stalled loop; rejects with an ApiError. */
  async resumeLoop(loopId: LoopId): Promise<void> {
    this.loops = upsertLoop(this.loops, await this.backend.resumeLoop(loopId));
  }

  /** Save the user's anchor or guardrails; resolves with the files as they are then. */
  saveLoopFile(loopId: LoopId, file: LoopFile, text: string): Promise<LoopFiles> {
    return this.backend.saveLoopFile(loopId, file, text);
  }

  // ---- signals -------------------------------------------------------------------------

  /** Open a signal's dialog. */
  showSignal(signalId: SignalId): void {
    this.shownSignalId = signalId;
  }

  closeSignal(): void {
    this.shownSignalId = null;
  }

  /**
   * Answer, decide or dismiss a signal; resolves with the settled record, rejects with an
   * ApiError. The dialog stays open on it, to show what was sent.
   */
  async respondToSignal(signalId: SignalId, response: SignalResponse): Promise<SignalInfo> {
    const settled = await this.backend.respondToSignal(signalId, response);
    this.signals = upsertSignal(this.signals, settled);
    return settled;
  }

  /** Keep a delegated agent running after it reports, or let it end then; rejects with an ApiError. */
  async keepDelegate(sessionId: SessionId, keep: boolean): Promise<void> {
    const kept = await this.backend.keepDelegate(sessionId, keep);
    this.delegations = applyDelegationEvent(this.delegations, { type: 'delegation_changed', delegation: kept });
  }

  /** Close the dialog and show a session (the one that took delegated work). */
  revealSession(sessionId: SessionId): void {
    this.closeSignal();
    if (this.model.sessions.some((s) => s.id === sessionId)) this.select({ kind: 'session', id: sessionId });
  }

  closeForm(): void {
    this.formOpen = false;
    this.editing = null;
  }

  /**
   * Start a session of the agent and select it (unless `show` is false: the grid starts its
   * agents in their tiles); a failure is kept in `startErrors`.
   */
  async startAgent(profileId: ProfileId, { show = true }: { show?: boolean } = {}): Promise<void> {
    if (this.starting.has(profileId)) return;
    this.starting.add(profileId);
    this.#setStartError(profileId, null);
    try {
      const session = await this.backend.startSession(profileId, this.terminalSize);
      this.#putSession(session);
      if (show) this.select({ kind: 'session', id: session.id });
    } catch (reason) {
      this.#setStartError(profileId, userMessage(toApiError(reason)));
    } finally {
      this.starting.delete(profileId);
    }
  }

  /** Stop a session; rejects with an ApiError. */
  async stopSession(sessionId: SessionId): Promise<void> {
    this.#putSession(await this.backend.stopSession(sessionId));
  }

  /**
   * Restart a session and select the new one; a task at work there goes as `runningTask` says
   * (the engine refuses a restart without it while one runs). With "finish first" the session
   * restarts once its task ends, and the view follows it then. Rejects with an ApiError.
   */
  async restartSession(sessionId: SessionId, runningTask: RestartTask | null = null): Promise<Restarted> {
    const restarted = await this.backend.restartSession(sessionId, this.terminalSize, runningTask);
    if (restarted.restart === 'now') {
      this.#putSession(restarted.session);
      this.select({ kind: 'session', id: restarted.session.id });
    }
    return restarted;
  }

  /**
   * Answer an agent's permission request; rejects with an ApiError. A request's number is its
   * machine's own: the answer goes to the machine of the agent whose session asked.
   */
  async decidePermission(request: PermissionRequest, allow: boolean, message: string | null): Promise<void> {
    // The machine that asked, as the window named it: never guessed from a session it may not know.
    await this.backend.machine(request.host ?? null).decidePermission(request.id, allow, message);
    this.permissions = this.permissions.filter((p) => p.id !== request.id || p.session_id !== request.session_id);
  }

  /** Start a session continuing an ended one's conversation, and select it. */
  async resumeSession(sessionId: SessionId): Promise<void> {
    const session = await this.backend.resumeSession(sessionId, this.terminalSize);
    this.#putSession(session);
    this.select({ kind: 'session', id: session.id });
  }

  /**
   * Create an agent on `host` (null: this computer; nothing is started) and select it; rejects
   * with an ApiError.
   */
  async createAgent(spec: ProfileSpec, host: string | null = null): Promise<Profile> {
    return this.#saved(await this.backend.machine(host).createProfile(spec));
  }

  /**
   * Save the form: update the agent being edited, or create a new one on `host` (null: this
   * computer; an edited agent stays on its own machine), and first the setup command of its
   * repository, on the same machine, when the form changed it. Changes apply to the next
   * session; running ones keep going as they started. Rejects with an ApiError.
   */
  async saveAgent(spec: ProfileSpec, setup: { repository: string; command: string | null } | null = null, host: string | null = null): Promise<Profile> {
    const editing = this.editing;
    const engine = this.backend.machine(editing === null ? host : (editing.host ?? null));
    // The repository's setup command (shared by every agent working there) goes with the agent that sets it.
    if (setup !== null) await engine.setRepositorySetup(setup.repository, setup.command);
    if (editing === null) return this.#saved(await engine.createProfile(spec));
    return this.#saved(await engine.updateProfile(editing.id, spec));
  }

  /**
   * Delete an agent and its session history. The engine refuses while one of its sessions
   * runs (`profile_busy`). Rejects with an ApiError.
   */
  async deleteAgent(profileId: ProfileId): Promise<void> {
    await this.backend.deleteProfile(profileId);
    this.#apply({ type: 'profile_deleted', profile_id: profileId });
  }

  #saved(profile: Profile): Profile {
    this.model = { ...this.model, profiles: upsertProfile(this.model.profiles, profile) };
    this.select({ kind: 'profile', id: profile.id });
    this.editing = null;
    return profile;
  }

  #apply(event: EngineEvent): void {
    const paced = pacedNews(event, this.model.sessions);
    if (paced === null) {
      // Nothing overtakes the news held before it.
      this.#pacer.flush();
    } else if (!this.shownAgents.has(paced.profile)) {
      this.#pacer.hold(paced.key, event);
      return;
    } else {
      this.#pacer.drop(paced.key);
    }
    this.#applyNow(event);
  }

  #applyNow(event: EngineEvent): void {
    const before = this.model;
    this.model = applyEngineEvent(this.model, event);
    // A view on an agent's session that ended follows the agent to its new one.
    this.selection = followNewSession(before, this.selection, event);
    this.tasks = applyTaskEvent(this.tasks, event);
    this.signals = applySignalEvent(this.signals, event);
    this.floods = applyFloodEvent(this.floods, event);
    this.storage = applyStorageEvent(this.storage, event);
    this.agentStatus = applyStatusEvent(this.agentStatus, event);
    this.permissions = applyPermissionEvent(this.permissions, event);
    this.delegations = applyDelegationEvent(this.delegations, event);
    this.loops = applyLoopEvent(this.loops, event);
    this.#heardAttention = applyAttentionEvent(this.#heardAttention, event);
    this.limits = applyLimitEvent(this.limits, event);
    this.usage = applyUsageEvent(this.usage, event);
    this.worktrees = applyWorktreeEvent(this.worktrees, event);
    this.settings = applySettingsEvent(this.settings, event);
    const signal = this.shownSignalId;
    if (signal !== null && !this.signals.some((s) => s.id === signal)) this.closeSignal();
    const shown = this.selectedTaskId;
    if (shown !== null && !this.tasks.tasks.some((t) => t.id === shown)) this.closeTask();
    this.selection = repairSelection(this.model, this.selection);
    // A window that had nothing to show follows the first agent that comes to life.
    if (this.selection === null && event.type === 'session_changed' && isRunning(event.session)) {
      this.selection = { kind: 'session', id: event.session.id };
    }
    // An event about a session the window does not know means it missed that session's
    // news: the sessions are listed again rather than an agent left out of the sidebar.
    const named = sessionNamedBy(event);
    if (named !== null && !this.model.sessions.some((s) => s.id === named)) void this.#relistSessions();
  }

  #relisting = false;

  async #relistSessions(): Promise<void> {
    if (this.#relisting) return;
    this.#relisting = true;
    try {
      for (const session of await this.backend.listSessions()) this.#putSession(session);
    } catch (reason) {
      logFailure('list_sessions')(reason);
    } finally {
      this.#relisting = false;
    }
  }

  #addTask(task: TaskInfo): void {
    this.tasks = { ...this.tasks, tasks: addTaskIfMissing(this.tasks.tasks, task) };
  }

  #putSession(session: SessionInfo): void {
    this.model = { ...this.model, sessions: upsertSession(this.model.sessions, session) };
  }

  #setStartError(profileId: ProfileId, message: string | null): void {
    const next = { ...this.startErrors };
    if (message === null) delete next[profileId];
    else next[profileId] = message;
    this.startErrors = next;
  }
}

/**
 * The selection once `event` is applied: a view on the latest session of an agent, ended,
 * follows that agent to a session that just started (a loop's fresh iteration, a restart), so
 * the window does not stay on a dead terminal. A view on a session still running, on an older
 * session the user went back to, or on anything else stays where it is.
 */
export function followNewSession(before: Model, selection: Selection, event: EngineEvent): Selection {
  if (event.type !== 'session_changed' || selection?.kind !== 'session') return selection;
  if (!isRunning(event.session)) {
    // The shown session ended after its successor had started (a restart's two events come in
    // either order): the successor is shown, as when it starts after the end.
    const ended = event.session;
    if (ended.id !== selection.id) return selection;
    const latest = sessionsOfProfile(before.sessions, ended.profile_id)[0];
    return latest !== undefined && latest.id !== ended.id && isRunning(latest) ? { kind: 'session', id: latest.id } : selection;
  }
  const started = event.session;
  if (before.sessions.some((s) => s.id === started.id)) return selection;
  const shown = before.sessions.find((s) => s.id === selection.id);
  if (shown === undefined || shown.profile_id !== started.profile_id || isRunning(shown)) return selection;
  const latest = sessionsOfProfile(before.sessions, started.profile_id)[0];
  return latest?.id === shown.id ? { kind: 'session', id: started.id } : selection;
}

/** The session an engine event is about, if it names one. */
function sessionNamedBy(event: EngineEvent): SessionId | null {
  switch (event.type) {
    case 'signal_changed':
      return event.signal.session_id;
    case 'agent_status_changed':
      return event.status.session_id;
    case 'delegation_changed':
      return event.delegation.requester_session;
    default:
      return null;
  }
}
