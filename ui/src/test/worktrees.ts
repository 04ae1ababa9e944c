/** Worktree values for tests: an open worktree of task `task`, ready to merge, with any field overridden. */
import type { FileDiff, WorktreeInfo } from '../lib/bindings';

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
