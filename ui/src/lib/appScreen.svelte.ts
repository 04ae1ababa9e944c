/**
 * The room of the window's state that says what is on screen: which page covers the main area
 * (the agent form, the settings, the machines, the devices, the search, the grid, the worktrees or a
 * worktree's changes, the automations or the automation form), which detail is open over it (a
 * task, a loop, an automation, the flows), the signal
 * dialog, the side panels, the palette; and the moves between them. It holds ids only: the rooms
 * above own the lists those ids name.
 */
import type { AutomationId, FlowTarget, FollowedLog, LoopId, Profile, ProfileId, SessionId, SignalId, TaskId } from './bindings';
import { logFailure } from './errors';
import type { Selection } from './model';
import { EngineLinkState } from './appLink.svelte';

/** What the automation form is open for: a new one (of `agent`, when it was opened for one), or editing one. */
export interface AutomationFormTarget {
  editing: AutomationId | null;
  agent: ProfileId | null;
}

export abstract class ScreenState extends EngineLinkState {
  /** The task whose detail is on screen. */
  selectedTaskId: TaskId | null = $state(null);
  /** The loop whose detail is on screen. */
  shownLoopId: LoopId | null = $state(null);
  /** The automation whose detail is on screen. */
  shownAutomationId: AutomationId | null = $state(null);
  /** The signal whose dialog is open (over the whole app). */
  shownSignalId: SignalId | null = $state(null);
  /** Whether the agents list is shown; a narrow window starts with it folded to a rail, so
   * the terminal keeps the width. */
  sidebarOpen = $state(typeof window === 'undefined' || window.innerWidth >= 900);
  /** Whether the session view shows its agent's task panel beside the terminal. */
  taskPanelOpen = $state(true);
  formOpen = $state(false);
  /** The agent the form edits; null while it creates a new one. */
  editing: Profile | null = $state.raw(null);
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
    if (!open && this.reloadOnLeavingMachines) {
      this.reloadOnLeavingMachines = false;
      this.backend.reloadWindow();
    }
  }
  /** A machine was reached while the machines were shown: the window loads anew on leaving them. */
  protected reloadOnLeavingMachines = false;
  /** Whether the browsers the engine serves (the Devices pane) are shown in the main area. */
  devicesOpen = $state(false);
  /** Whether the list of worktrees is shown in the main area. */
  worktreesOpen = $state(false);
  /** Whether every machine's automations are shown in the main area. */
  automationsOpen = $state(false);
  /** The automation form, when it is shown in the main area (over the automations, or the agent it was opened from). */
  automationForm: AutomationFormTarget | null = $state.raw(null);
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

  /** The agent a flows view is about (none: every agent); the top room knows every list. */
  protected abstract agentOf(target: FlowTarget): ProfileId | undefined;

  select(selection: Selection): void {
    this.selection = selection;
    this.formOpen = false;
    this.gridOpen = false;
    this.searchOpen = false;
    this.settingsOpen = false;
    this.machinesOpen = false;
    this.devicesOpen = false;
    this.worktreesOpen = false;
    this.changesOf = null;
    this.closeAutomations();
    this.closeTask();
    this.closeLoop();
    this.closeAutomation();
    this.closeFlows();
  }

  // ---- flows ---------------------------------------------------------------------------

  /** Show the flows of an agent, session, task or loop (in the details' place). */
  openFlows(target: FlowTarget): void {
    this.closeTask();
    this.closeLoop();
    this.closeAutomation();
    this.overviewOpen = false;
    this.flowsTarget = target;
    this.#followLog(target);
  }

  /** Show all agents as one graph. */
  openOverview(): void {
    this.closeTask();
    this.closeLoop();
    this.closeAutomation();
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
      const agent = this.agentOf(target);
      followed = agent === undefined ? { of: 'everything' } : { of: 'agent', profile_id: agent };
    }
    this.backend.followLog(followed).catch(logFailure('follow_log'));
  }

  // ---- pages of the main area ------------------------------------------------------------

  /** Open the agent form: empty to create, or filled in to edit `agent`. */
  openForm(agent: Profile | null = null): void {
    this.editing = agent;
    this.formOpen = true;
    this.settingsOpen = false;
    this.machinesOpen = false;
    this.devicesOpen = false;
    this.closeTask();
  }

  closeForm(): void {
    this.formOpen = false;
    this.editing = null;
  }

  /** Clears the main area for a page of the app's own (the settings, the machines). */
  protected clearMainArea(): void {
    this.closeForm();
    this.closeTask();
    this.closeLoop();
    this.closeAutomation();
    this.closeFlows();
    this.closeAutomations();
    this.searchOpen = false;
    this.worktreesOpen = false;
    this.changesOf = null;
    this.settingsOpen = false;
    this.machinesOpen = false;
    this.devicesOpen = false;
    this.gridOpen = false;
  }

  /** What covers the main area and the details over it goes, for a view of the main area. */
  protected coverMain(): void {
    this.formOpen = false;
    this.gridOpen = false;
    this.editing = null;
    this.settingsOpen = false;
    this.machinesOpen = false;
    this.devicesOpen = false;
    this.searchOpen = false;
    this.closeAutomations();
    this.closeTask();
    this.closeLoop();
    this.closeAutomation();
    this.closeFlows();
  }

  /** Show the settings in the main area. */
  openSettings(): void {
    this.clearMainArea();
    this.settingsOpen = true;
  }

  closeSettings(): void {
    this.settingsOpen = false;
  }

  /** Show the other machines (their engines over ssh) in the main area. */
  openMachines(): void {
    this.clearMainArea();
    this.machinesOpen = true;
  }

  closeMachines(): void {
    this.machinesOpen = false;
  }

  /** Show the browsers the engine serves, and pairing one, in the main area. */
  openDevices(): void {
    this.clearMainArea();
    this.devicesOpen = true;
  }

  closeDevices(): void {
    this.devicesOpen = false;
  }

  /** Show the terminal grid in the main area. */
  openGrid(): void {
    this.clearMainArea();
    this.gridOpen = true;
  }

  /** Show the search view, searching `query` (or what it searched last). */
  openSearch(query?: string): void {
    this.formOpen = false;
    this.closeTask();
    this.closeLoop();
    this.closeAutomation();
    this.closeFlows();
    this.closeAutomations();
    this.settingsOpen = false;
    this.machinesOpen = false;
    this.devicesOpen = false;
    this.worktreesOpen = false;
    this.changesOf = null;
    if (query !== undefined) this.searchQuery = query;
    this.gridOpen = false;
    this.searchOpen = true;
  }

  /** Show every worktree in the main area. */
  openWorktrees(): void {
    this.coverMain();
    this.changesOf = null;
    this.worktreesOpen = true;
  }

  /** Show what a worktree changed (by its task's or loop's id), in the main area. */
  openChanges(worktree: string): void {
    this.coverMain();
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

  /** Show every machine's automations in the main area. */
  openAutomations(): void {
    this.clearMainArea();
    this.automationsOpen = true;
  }

  /** Close the automations, and their form. */
  closeAutomations(): void {
    this.automationsOpen = false;
    this.automationForm = null;
  }

  /**
   * Open the automation form in the main area: a new one (of `agent`, when given), or to edit
   * one. Closing it goes back to what was under it (the automations, or the agent).
   */
  openAutomationForm(target: AutomationFormTarget): void {
    this.closeTask();
    this.closeLoop();
    this.closeAutomation();
    this.closeFlows();
    this.formOpen = false;
    this.searchOpen = false;
    this.gridOpen = false;
    this.automationForm = target;
  }

  closeAutomationForm(): void {
    this.automationForm = null;
  }

  // ---- details over the main area ----------------------------------------------------------

  /** Show a task's detail, and tell the shell (it does not notify about the task on screen). */
  openTask(taskId: TaskId): void {
    this.shownLoopId = null;
    this.shownAutomationId = null;
    this.closeFlows();
    if (this.selectedTaskId === taskId) return;
    this.selectedTaskId = taskId;
    this.tellViewing();
  }

  closeTask(): void {
    if (this.selectedTaskId === null) return;
    this.selectedTaskId = null;
    this.tellViewing();
  }

  /** Show a loop's detail (in the task detail's place). */
  openLoop(loopId: LoopId): void {
    this.closeTask();
    this.closeAutomation();
    this.closeFlows();
    this.shownLoopId = loopId;
  }

  closeLoop(): void {
    this.shownLoopId = null;
  }

  /** Show an automation's detail (in the task detail's place). */
  openAutomation(automationId: AutomationId): void {
    this.closeTask();
    this.closeLoop();
    this.closeFlows();
    this.shownAutomationId = automationId;
  }

  closeAutomation(): void {
    this.shownAutomationId = null;
  }

  /** The task panel of `profileId` opened its form as asked. */
  taskFormOpened(profileId: ProfileId): void {
    if (this.taskFormFor === profileId) this.taskFormFor = null;
  }

  /** Put the keyboard in the terminal on screen (closing what covers it). */
  focusTerminal(): void {
    this.closeTask();
    this.closeLoop();
    this.closeAutomation();
    this.closeFlows();
    this.terminalFocus++;
  }

  // ---- the signal dialog -------------------------------------------------------------------

  /** Open a signal's dialog. */
  showSignal(signalId: SignalId): void {
    this.shownSignalId = signalId;
  }

  closeSignal(): void {
    this.shownSignalId = null;
  }

  /** Close the dialog and show a session (the one that took delegated work). */
  revealSession(sessionId: SessionId): void {
    this.closeSignal();
    if (this.model.sessions.some((s) => s.id === sessionId)) this.select({ kind: 'session', id: sessionId });
  }
}
