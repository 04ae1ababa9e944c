/**
 * The room of the window's state about automations: every machine's list (folded by
 * automations.ts from the engines' events), the one on screen, and making, changing, pausing,
 * resuming, running and removing them. When they run is the engines' alone.
 */
import type { Automation, AutomationId, AutomationSpec, EngineEvent, TaskId } from './bindings';
import { logFailure } from './errors';
import { applyAutomationEvent, upsertAutomation } from './automations';
import { LoopsState } from './appLoops.svelte';

export abstract class AutomationsState extends LoopsState {
  /** Every machine's automations, in no order. */
  automations: Automation[] = $state.raw([]);

  shownAutomation: Automation | undefined = $derived.by(() => {
    const id = this.shownAutomationId;
    return id === null ? undefined : this.automations.find((a) => a.id === id);
  });

  /** The automation the form edits, while it edits one. */
  editedAutomation: Automation | undefined = $derived.by(() => {
    const id = this.automationForm?.editing ?? null;
    return id === null ? undefined : this.automations.find((a) => a.id === id);
  });

  protected override applyNow(event: EngineEvent): void {
    super.applyNow(event);
    this.automations = applyAutomationEvent(this.automations, event);
  }

  /** Lists every machine's automations; without them the rest of the window works. */
  protected loadAutomations(): Promise<Automation[]> {
    return this.backend.listAutomations().catch((reason: unknown) => {
      logFailure('list_automations')(reason);
      return [] as Automation[];
    });
  }

  /** Makes an automation, or changes the one the form edits; rejects with an ApiError. */
  async saveAutomation(spec: AutomationSpec, editing: AutomationId | null): Promise<Automation> {
    const saved = editing === null ? await this.backend.createAutomation(spec) : await this.backend.updateAutomation(editing, spec);
    this.automations = upsertAutomation(this.automations, saved);
    return saved;
  }

  /** Pauses it (it starts nothing until resumed), or resumes it; rejects with an ApiError. */
  async setAutomationPaused(automationId: AutomationId, paused: boolean): Promise<void> {
    const told = paused ? await this.backend.pauseAutomation(automationId) : await this.backend.resumeAutomation(automationId);
    this.automations = upsertAutomation(this.automations, told);
  }

  /** Runs it now, as its trigger would (the engine may skip it, and says why); rejects with an ApiError. */
  async runAutomationNow(automationId: AutomationId): Promise<void> {
    this.automations = upsertAutomation(this.automations, await this.backend.runAutomationNow(automationId));
  }

  /** Removes it and its history; rejects with an ApiError. */
  async removeAutomation(automationId: AutomationId): Promise<void> {
    await this.backend.removeAutomation(automationId);
    this.automations = this.automations.filter((a) => a.id !== automationId);
    if (this.shownAutomationId === automationId) this.closeAutomation();
  }

  /** Opens the detail of a task a run made; one the lists do not hold (an old one) is fetched first. */
  async openRunTask(taskId: TaskId): Promise<void> {
    if (!this.tasks.tasks.some((t) => t.id === taskId)) {
      try {
        this.addTask(await this.backend.getTask(taskId));
      } catch (reason) {
        logFailure(`get_task(${taskId})`)(reason);
        return;
      }
    }
    this.openTask(taskId);
  }
}
