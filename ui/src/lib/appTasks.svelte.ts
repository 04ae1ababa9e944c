/**
 * The room of the window's state about tasks and the agents' queues: the lists (folded by
 * tasks.ts), the task on screen, and the user's actions on tasks and queues.
 */
import type { EngineEvent, ProfileId, QueueStatus, SessionInfo, Submitted, TaskId, TaskInfo, TaskSpec } from './bindings';
import { logFailure, toApiError, userMessage } from './errors';
import { EMPTY_TASKS, addTaskIfMissing, applyTaskEvent, selectionForTask, type TaskModel } from './tasks';
import { currentSessionOf } from './model';
import { AgentsState } from './appAgents.svelte';

/** The task and queue lists as first listed. */
export interface TaskLists {
  tasks: TaskInfo[];
  queues: QueueStatus[];
}

export abstract class TasksState extends AgentsState {
  tasks: TaskModel = $state.raw(EMPTY_TASKS);
  /** The initial task lists could not be loaded (the rest of the app works without them). */
  taskLoadError: string | null = $state(null);

  selectedTask: TaskInfo | undefined = $derived.by(() => {
    const id = this.selectedTaskId;
    return id === null ? undefined : this.tasks.tasks.find((t) => t.id === id);
  });

  protected override applyNow(event: EngineEvent): void {
    super.applyNow(event);
    this.tasks = applyTaskEvent(this.tasks, event);
  }

  /**
   * Lists the tasks and queues; an engine that cannot list them still leaves the agents and
   * terminals usable (the failure is kept in `taskLoadError`).
   */
  protected loadTaskLists(): Promise<TaskLists> {
    return Promise.all([this.backend.listTasks(null), this.backend.listQueues()]).then(
      ([tasks, queues]) => ({ tasks, queues }),
      (reason: unknown) => {
        this.taskLoadError = userMessage(toApiError(reason));
        return { tasks: [] as TaskInfo[], queues: [] as QueueStatus[] };
      },
    );
  }

  /** The agent's current session, as its engine names it (`currentSessionOf`). */
  currentSessionOf(profileId: ProfileId): SessionInfo | undefined {
    const named = this.tasks.queues.find((q) => q.profile_id === profileId)?.current_session;
    return currentSessionOf(this.model.sessions, profileId, named);
  }

  /**
   * Show a task the user asked for from outside (a clicked notification): select its agent,
   * keeping the selection if it already shows that agent, and open the task's detail. A task
   * the lists do not have (yet) is fetched.
   */
  async revealTask(taskId: TaskId): Promise<void> {
    await this.loaded;
    let task = this.tasks.tasks.find((t) => t.id === taskId);
    if (!task) {
      try {
        task = await this.backend.getTask(taskId);
      } catch (reason) {
        logFailure(`get_task(${taskId})`)(reason);
        return;
      }
      this.addTask(task);
    }
    this.selection = selectionForTask(this.model, this.selection, task);
    this.formOpen = false;
    this.settingsOpen = false;
    this.machinesOpen = false;
    this.devicesOpen = false;
    this.openTask(taskId);
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

  /** Submit a task; rejects with an ApiError. */
  async submitTask(spec: TaskSpec): Promise<Submitted> {
    const submitted = await this.backend.submitTask(spec);
    this.addTask(submitted.task);
    return submitted;
  }

  /** Cancel a queued or running task; rejects with an ApiError. */
  async cancelTask(taskId: TaskId): Promise<void> {
    this.addTask(await this.backend.cancelTask(taskId));
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
    this.addTask(await this.backend.requeueTask(taskId));
  }

  /** Rename a task and, while it waits, change its instruction; rejects with an ApiError. */
  async editTask(taskId: TaskId, edit: { title?: string; instruction?: string }): Promise<void> {
    this.addTask(await this.backend.editTask(taskId, edit.title ?? null, edit.instruction ?? null));
  }

  /** Run a finished task again as a new task, and show the new one; rejects with an ApiError. */
  async rerunTask(taskId: TaskId): Promise<void> {
    const submitted = await this.backend.rerunTask(taskId);
    this.addTask(submitted.task);
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

  protected addTask(task: TaskInfo): void {
    this.tasks = { ...this.tasks, tasks: addTaskIfMissing(this.tasks.tasks, task) };
  }
}
