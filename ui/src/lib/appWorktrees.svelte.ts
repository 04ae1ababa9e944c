/**
 * The room of the window's state about the worktrees made for agents that work apart: the list
 * (folded by changes.ts) and committing, merging, rebasing, discarding and reviewing them.
 */
import type { DiscardOutcome, EngineEvent, MergeOutcome, RebaseOutcome, ReviewComment, Submitted, WorktreeInfo } from './bindings';
import { applyWorktreeEvent, upsertWorktree } from './changes';
import { AutomationsState } from './appAutomations.svelte';

export abstract class WorktreesState extends AutomationsState {
  /** The worktrees made for agents that work apart: the open ones, then the recently merged or discarded. */
  worktrees: WorktreeInfo[] = $state.raw([]);

  protected override applyNow(event: EngineEvent): void {
    super.applyNow(event);
    this.worktrees = applyWorktreeEvent(this.worktrees, event);
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
    this.addTask(submitted.task);
    return submitted;
  }

  /** Ask the worktree's agent to resolve its conflicts with its base, as a new task there. Rejects with an ApiError. */
  async resolveWorktree(worktree: string): Promise<Submitted> {
    const submitted = await this.backend.resolveWorktree(worktree);
    this.addTask(submitted.task);
    return submitted;
  }
}
