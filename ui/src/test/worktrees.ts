/**
 * Worktree values for tests: a worktree as the engine reports it, and the radar's findings a test
 * tells the fake (a worktree's state, its words and its overlaps are the engine's to decide: these
 * builders only write down what it said, in its words).
 */
import type { FileDiff, TaskId, WorktreeInfo } from '../lib/bindings';

export function worktree(task: string, overrides: Partial<WorktreeInfo> = {}): WorktreeInfo {
  return {
    task,
    title: `Task ${task}`,
    loop_id: null,
    profile_id: 'p',
    agent: 'claude',
    repository: '/work/shop',
    branch: `switchboard/claude/${task}`,
    base: 'main',
    path: `/data/worktrees/${task}`,
    created_at: 0,
    state: 'ready_to_merge',
    state_text: 'ready to merge',
    base_conflict: [],
    behind: 0,
    files_changed: 1,
    conflicts_with: [],
    overlaps: [],
    merge_conflict: [],
    patch: null,
    task_at_work: null,
    ...overrides,
  };
}

/** Ready to merge, as the engine reports one with nothing in its way (its agent done, nothing met). */
export const READY: Partial<WorktreeInfo> = {
  state: 'ready_to_merge',
  state_text: 'ready to merge',
  base_conflict: [],
  behind: 0,
  conflicts_with: [],
  overlaps: [],
  task_at_work: null,
};

/** Merged, as the engine reports it: nothing left in it, and it meets no one any more. */
export const MERGED: Partial<WorktreeInfo> = { state: 'merged', state_text: 'merged', files_changed: 0, conflicts_with: [], overlaps: [] };

/** Its agent at work in it on `task`, in the engine's words. */
export function atWork(task: TaskId): Partial<WorktreeInfo> {
  return { state: 'working', state_text: 'its agent is at work', task_at_work: task };
}

/** The radar read that a merge into its base (`base`) would now conflict in `file`, its base one commit on. */
export function conflictsWithBase(base: string, file: string): Partial<WorktreeInfo> {
  return { state: 'conflicts_with_base', state_text: `conflicts with ${base} now in ${file}`, base_conflict: [file], behind: 1, conflicts_with: [], overlaps: [] };
}

/**
 * Two open worktrees changing the same `files`, as the radar reports them: each `conflicting`,
 * naming the other, `first` the one the engine advises merging first. Returns both, changed.
 */
export function meeting(files: string[], first: WorktreeInfo, then: WorktreeInfo): [WorktreeInfo, WorktreeInfo] {
  const meets = (one: WorktreeInfo, other: WorktreeInfo, mergeFirst: boolean): WorktreeInfo => ({
    ...one,
    state: 'conflicting',
    state_text: 'changes files other work changes',
    conflicts_with: [other.task],
    overlaps: [{ with: other.task, with_title: other.title, files: [...files], meeting_hunks: 1, merge_first: mergeFirst }],
  });
  return [meets(first, then, true), meets(then, first, false)];
}

/** A changed text file: `before` and `after` as given, its unified diff left empty. */
export function textFile(path: string, before: string, after: string, overrides: Partial<FileDiff> = {}): FileDiff {
  return {
    path,
    from: null,
    status: before === '' ? 'added' : after === '' ? 'deleted' : 'modified',
    content: { kind: 'text', before, after, unified: '' },
    ...overrides,
  };
}
