/**
 * The app's state and the user actions on it. One instance per window, shared with the
 * components through context.
 *
 * It is built in rooms, each a class in its own file extending the one below it, so a
 * component reaches every part through the one object (`app.tasks`, `app.openTask(…)`):
 * - appLink: the engine link, the agent and session lists, the selection, the event pacing;
 * - appScreen: what is on screen (the main area's page, the details over it, the dialogs);
 * - appAgents: agents and sessions (status, attention, limits, starting and saving them);
 * - appTasks: tasks and queues;
 * - appSignals: signals, delegations and permission requests;
 * - appLoops: loops;
 * - appAutomations: automations (work that starts by itself), every machine's;
 * - appWorktrees: the agents' worktrees;
 * - appMachines: the other machines;
 * - appDevices: the browsers the engine serves the window to;
 * - appSettings: the settings and the notices about the data;
 * - here: what needs every room (what the window shows, the palette, loading the lists, and
 *   repairing what is on screen once an event is applied).
 * Each room folds the engine's events into its own lists (`applyNow`, calling the room below
 * first). A room imports only the rooms below it.
 */
import type {
  AccountLimit,
  AccountUsage,
  AgentAttention,
  AgentStatusInfo,
  Automation,
  Delegation,
  EngineEvent,
  FlowTarget,
  LoopInfo,
  OpenTarget,
  PermissionRequest,
  ProfileId,
  Settings,
  SignalInfo,
  Viewing,
  WorktreeInfo,
} from './bindings';
import { logFailure, toApiError, userMessage } from './errors';
import { applyStatusEvent, statusMapOf } from './agentStatus';
import { applyPermissionEvent } from './permissions';
import { applyDelegationEvent } from './delegations';
import { applyLoopEvent } from './loops';
import { applyAutomationEvent } from './automations';
import { applyAttentionEvent, attentionMapOf, shownAttentionMap, type ShownAttentionMap } from './attention';
import { applyLimitEvent, applyUsageEvent } from './limits';
import { mergeInitialSignals } from './signals';
import { applyStorageEvent, type StorageState } from './storage';
import { hostEventUse, withHostStorage } from './hosts';
import { applyWorktreeEvent } from './changes';
import { applySettingsEvent } from './settings';
import { mergeInitialTasks } from './tasks';
import { initialSelection, isRunning, mergeInitial, repairSelection } from './model';
import { changesSomething, lookingOnly, paletteCommands, type PaletteAction, type PaletteCommand } from './palette';
import { shownAgents } from './pace';
import { sessionNamedBy } from './appLink.svelte';
import type { TaskLists } from './appTasks.svelte';
import { SettingsState } from './appSettings.svelte';

export { followNewSession } from './appLink.svelte';

/** The lists the window asks for as it opens, in flight together. */
interface Loading {
  storage: Promise<StorageState | null>;
  taskLists: Promise<TaskLists>;
  signals: Promise<SignalInfo[]>;
  statuses: Promise<AgentStatusInfo[]>;
  permissions: Promise<PermissionRequest[]>;
  delegations: Promise<Delegation[]>;
  loops: Promise<LoopInfo[]>;
  automations: Promise<Automation[]>;
  attention: Promise<AgentAttention[]>;
  limits: Promise<AccountLimit[]>;
  usage: Promise<AccountUsage[]>;
  worktrees: Promise<WorktreeInfo[]>;
  openAtStart: Promise<OpenTarget | null>;
  settings: Promise<Settings>;
}

export class AppState extends SettingsState {
  /**
   * This page was paired to look only: it offers nothing that changes anything (answer, allow,
   * new task, typing, stop…). The engine refuses those from it anyway; this only keeps the page
   * from offering what would be refused. A page in a browser looks only until the engine said
   * which device it is: a read-only one never shows controls it may not use, even for a moment.
   */
  /** This page's browser is no longer paired: the page shows only that, and how to pair again. */
  unpaired = $state(false);

  readonly looksOnly: boolean = $derived(this.thisDevice === undefined ? this.backend.kind === 'browser' : this.thisDevice?.read_only === true);

  /**
   * Each agent's attention as the window shows it (the one state every place shows, and counts):
   * its engine's, or unknown while the window cannot reach the machine it runs on.
   */
  readonly attention: ShownAttentionMap = $derived(shownAttentionMap(this.heardAttention, this.model.profiles, this.hostLinks));

  readonly shownAgents: ReadonlySet<ProfileId> = $derived(
    shownAgents({
      selection: this.selection,
      sessions: this.model.sessions,
      grid: this.gridOpen ? this.gridShown : [],
      flows: this.flowsTarget === null ? null : (this.agentOf(this.flowsTarget) ?? null),
    }),
  );

  /**
   * What the window shows now, as the shell and the engine are told it: the agent in the main
   * area (none while the settings, the search or the agent form cover it) and its task detail.
   */
  get viewing(): Viewing {
    // The grid shows several agents at once: none of them is the one the user looks at (a
    // failure it shows is not taken as seen, which would take it out of "All that need me").
    const covered =
      this.formOpen ||
      this.searchOpen ||
      this.settingsOpen ||
      this.machinesOpen ||
      this.devicesOpen ||
      this.worktreesOpen ||
      this.changesOf !== null ||
      this.gridOpen ||
      this.automationsOpen ||
      this.automationForm !== null;
    const agent = covered ? null : (this.selectedAgent?.id ?? this.selectedTask?.profile_id ?? null);
    return { profile_id: agent, task_id: this.selectedTaskId, focused: this.focused };
  }

  protected agentOf(target: FlowTarget): ProfileId | undefined {
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

  /**
   * Subscribe to engine events and notification clicks, load the lists (profiles, sessions,
   * tasks, queues, signals), and select what the window opens on: what it was started to open
   * (a notification the daemon showed was clicked), once loaded. Events that arrive while the
   * lists load are buffered and applied after them; a notification click waits for the load.
   */
  async open(): Promise<void> {
    const buffered: EngineEvent[] = [];
    let loaded = false;
    this.#listen((event) => {
      if (loaded) this.apply(event);
      else buffered.push(event);
    });
    // Only once the events are heard do the lists load: a change between the two is then in
    // one or the other (applied twice is harmless; missed is not).
    await this.backend.whenListening();
    const loading = this.#startLoading();
    try {
      await this.#takeLists(loading, buffered);
    } catch (reason) {
      await this.#takeFailedLoad(loading, buffered, reason);
    } finally {
      if (this.storage?.atStartup) {
        // Every list failed for the one reason the banner gives.
        this.taskLoadError = null;
        this.signalLoadError = null;
      }
      loaded = true;
      this.loading = false;
      this.beat.start();
      this.tellViewing();
      this.markLoaded();
    }
    await this.#openTarget(await loading.openAtStart);
  }

  /** Opens what a page notice is about (the desktop layout's; the phone opens its own screens). */
  openNotice(opens: OpenTarget): void {
    void this.#openTarget(opens);
  }

  /** Hears the engines' events (handing on the ones for the lists) and the asks from outside. */
  #listen(onListEvent: (event: EngineEvent) => void): void {
    this.unsubscribe.push(
      this.backend.onEngineEvent((event, host) => {
        // Another machine's events are that machine's: its storage is never this one's.
        if (host !== null) {
          const use = hostEventUse(event, host);
          if (use.use === 'storage') this.hostStorage = withHostStorage(this.hostStorage, use.host, use.problem);
          if (use.use !== 'apply') return;
        }
        // The event log's entries go to the views that follow it, not through the lists.
        if (event.type === 'logged') {
          for (const listener of this.logListeners) listener(event.entry, event.profile_id);
          return;
        }
        onListEvent(event);
      }),
      this.backend.onOpenTask((taskId) => void this.revealTask(taskId)),
      this.backend.onOpenSignal((signalId) => this.showSignal(signalId)),
      this.backend.onOpenLoop((loopId) => void this.revealLoop(loopId)),
      this.backend.onOpenTarget(() => void this.#takeOpenTarget()),
      this.backend.onHostLink((link) => this.followHostLink(link)),
      this.backend.onEngineLink((link) => {
        this.engineLink = link;
        // A browser unpaired (revoked, say for a lost phone) shows nothing it showed any more.
        this.unpaired = link.state === 'refused' && 'unpaired' in link;
      }),
    );
  }

  /**
   * Asks for every list at once. Only the agents and sessions are needed: without any other
   * list the window still shows the agents and their terminals.
   */
  #startLoading(): Loading {
    const storage = this.loadStorage();
    const taskLists = this.loadTaskLists();
    const signals = this.loadSignalList();
    // Statuses come from hooks; without them the session states still tell.
    const statuses = this.backend.listAgentStatus().catch(() => [] as AgentStatusInfo[]);
    const permissions = this.backend.listPermissionRequests().catch(() => [] as PermissionRequest[]);
    const delegations = this.backend.listDelegations().catch(() => [] as Delegation[]);
    const loops = this.backend.listLoops().catch(() => [] as LoopInfo[]);
    const automations = this.loadAutomations();
    const attention = this.backend.listAttention().catch(() => [] as AgentAttention[]);
    // Without them an agent's usage limit is still said by its attention, less its account's news.
    const limits = this.backend.listLimits().catch((reason: unknown) => {
      logFailure('list_limits')(reason);
      return [] as AccountLimit[];
    });
    // Without it no bar shows how much of its account an agent used; nothing else needs it.
    const usage = this.backend.listUsage().catch((reason: unknown) => {
      logFailure('list_usage')(reason);
      return [] as AccountUsage[];
    });
    // Without them no task offers its changes; everything else works.
    const worktrees = this.backend.listWorktrees().catch((reason: unknown) => {
      logFailure('list_worktrees')(reason);
      return [] as WorktreeInfo[];
    });
    this.loadEngineLink();
    this.loadHostLinks();
    this.loadThisDevice();
    const openAtStart = this.backend.takeOpenTarget().catch((reason: unknown) => {
      logFailure('take_open_target')(reason);
      return null;
    });
    const settings = this.loadSettings();
    return { storage, taskLists, signals, statuses, permissions, delegations, loops, automations, attention, limits, usage, worktrees, openAtStart, settings };
  }

  /** Takes the lists as loaded, each with the events heard meanwhile applied; rejects when the agents or sessions could not be listed. */
  async #takeLists(loading: Loading, buffered: EngineEvent[]): Promise<void> {
    const [[profiles, sessions], tasks, signals] = await Promise.all([
      Promise.all([this.backend.listProfiles(), this.backend.listSessions()]),
      loading.taskLists,
      loading.signals,
    ]);
    this.model = mergeInitial({ profiles, sessions }, buffered);
    this.tasks = mergeInitialTasks(tasks, buffered);
    this.signals = mergeInitialSignals(signals, buffered);
    this.agentStatus = buffered.reduce(applyStatusEvent, statusMapOf(await loading.statuses));
    this.permissions = buffered.reduce(applyPermissionEvent, await loading.permissions);
    this.delegations = buffered.reduce(applyDelegationEvent, await loading.delegations);
    this.loops = buffered.reduce(applyLoopEvent, await loading.loops);
    this.automations = buffered.reduce(applyAutomationEvent, await loading.automations);
    this.heardAttention = buffered.reduce(applyAttentionEvent, attentionMapOf(await loading.attention));
    this.limits = buffered.reduce(applyLimitEvent, await loading.limits);
    this.usage = buffered.reduce(applyUsageEvent, await loading.usage);
    this.worktrees = buffered.reduce(applyWorktreeEvent, await loading.worktrees);
    this.settings = buffered.reduce(applySettingsEvent, await loading.settings);
    this.storage = buffered.reduce(applyStorageEvent, await loading.storage.catch(() => null));
    if (this.selection === null) this.selection = initialSelection(this.model);
  }

  /** The agents or sessions could not be listed: the window says why, and shows what it heard. */
  async #takeFailedLoad(loading: Loading, buffered: EngineEvent[], reason: unknown): Promise<void> {
    this.storage = buffered.reduce(applyStorageEvent, await loading.storage.catch(() => null));
    // An engine that could not start is explained by the storage banner.
    this.loadError = this.storage?.atStartup ? null : userMessage(toApiError(reason));
    this.model = mergeInitial({ profiles: [], sessions: [] }, buffered);
    this.tasks = mergeInitialTasks(await loading.taskLists, buffered);
    this.signals = mergeInitialSignals(await loading.signals, buffered);
  }

  /** Show what the window was asked to open from outside, once the lists have loaded. */
  async #openTarget(target: OpenTarget | null): Promise<void> {
    await this.loaded;
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

  /** Every room has folded the event in: what is on screen is put right. */
  protected override applyNow(event: EngineEvent): void {
    super.applyNow(event);
    const signal = this.shownSignalId;
    if (signal !== null && !this.signals.some((s) => s.id === signal)) this.closeSignal();
    const shown = this.selectedTaskId;
    if (shown !== null && !this.tasks.tasks.some((t) => t.id === shown)) this.closeTask();
    // An automation removed (here, elsewhere, on its machine) leaves the screen.
    if (event.type === 'automation_removed') {
      if (this.shownAutomationId === event.automation_id) this.closeAutomation();
      if (this.automationForm?.editing === event.automation_id) this.closeAutomationForm();
    }
    this.selection = repairSelection(this.model, this.selection);
    // A window that had nothing to show follows the first agent that comes to life.
    if (this.selection === null && event.type === 'session_changed' && isRunning(event.session)) {
      this.selection = { kind: 'session', id: event.session.id };
    }
    // An event about a session the window does not know means it missed that session's
    // news: the sessions are listed again rather than an agent left out of the sidebar.
    const named = sessionNamedBy(event);
    if (named !== null && !this.model.sessions.some((s) => s.id === named)) void this.relistSessions();
  }

  /** The palette's commands for what the window shows now. */
  get paletteCommands(): PaletteCommand[] {
    const commands = paletteCommands({
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
      devicesOffered: this.devicesOffered,
      tasks: this.tasks.tasks,
      now: Date.now(),
    });
    // A page paired to look only offers what shows, not what changes anything.
    return this.looksOnly ? lookingOnly(commands) : commands;
  }

  /** Does what a palette command (or its shortcut) says. */
  run(action: PaletteAction): void {
    this.paletteOpen = false;
    // A shortcut does not do what a page paired to look only is not offered.
    if (this.looksOnly && changesSomething(action)) return;
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
      case 'devices':
        return this.openDevices();
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
      case 'automations':
        return this.openAutomations();
    }
  }
}
