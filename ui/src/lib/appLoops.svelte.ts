/**
 * The room of the window's state about loops: the list (folded by loops.ts), the loop on
 * screen, and starting, cancelling, resuming and editing them.
 */
import type { EngineEvent, LoopFile, LoopFiles, LoopId, LoopInfo, LoopSettings, ProfileId } from './bindings';
import { logFailure } from './errors';
import { applyLoopEvent, upsertLoop } from './loops';
import { SignalsState } from './appSignals.svelte';

export abstract class LoopsState extends SignalsState {
  /** Loops: active, stalled and the recent ended ones, in no order. */
  loops: LoopInfo[] = $state.raw([]);

  shownLoop: LoopInfo | undefined = $derived.by(() => {
    const id = this.shownLoopId;
    return id === null ? undefined : this.loops.find((l) => l.id === id);
  });

  protected override applyNow(event: EngineEvent): void {
    super.applyNow(event);
    this.loops = applyLoopEvent(this.loops, event);
  }

  /** Show a loop the user asked for from outside (a clicked notification), with its agent. */
  async revealLoop(loopId: LoopId): Promise<void> {
    await this.loaded;
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
    this.devicesOpen = false;
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
}
