/**
 * Worktrees and their review, as the window shows them: the list of worktrees folded from
 * `list_worktrees` and `worktree_changed`, which worktree a task or loop ran in, a worktree's
 * state and files in words, which review actions it takes now and why not, what each action's
 * outcome means, the conflict radar's advice, and the line comments the user drafts before
 * sending them as one review. Pure: no Svelte, no backend.
 */
import type {
  DiscardOutcome,
  EngineEvent,
  FileDiff,
  FileStatus,
  LoopId,
  MergeOutcome,
  RebaseOutcome,
  ReviewComment,
  TaskInfo,
  WorktreeInfo,
  WorktreeState,
} from './bindings';
import { asSentence } from './errors';

// ---- the window's list -----------------------------------------------------------------

/** Put a worktree into the list, replacing the entry of the same task or loop. */
export function upsertWorktree(worktrees: readonly WorktreeInfo[], info: WorktreeInfo): WorktreeInfo[] {
  const index = worktrees.findIndex((w) => w.task === info.task);
  if (index === -1) return [...worktrees, info];
  const next = [...worktrees];
  next[index] = info;
  return next;
}

/** Fold one engine event into the list; other events leave it as it is (the same array). */
export function applyWorktreeEvent(worktrees: WorktreeInfo[], event: EngineEvent): WorktreeInfo[] {
  switch (event.type) {
    case 'worktree_changed':
      return upsertWorktree(worktrees, event.worktree);
    case 'profile_deleted':
      // Its worktrees stay in git; the window no longer lists an agent that is gone.
      return worktrees.some((w) => w.profile_id === event.profile_id) ? worktrees.filter((w) => w.profile_id !== event.profile_id) : worktrees;
    default:
      return worktrees;
  }
}

/** Still there to review, merge or discard. */
export function isOpen(state: WorktreeState): boolean {
  return state !== 'merged' && state !== 'discarded';
}

/**
 * The list as shown: open worktrees first, oldest first (the engine's order), then the merged
 * and discarded ones, newest first.
 */
export function shownWorktrees(worktrees: readonly WorktreeInfo[]): WorktreeInfo[] {
  const open = worktrees.filter((w) => isOpen(w.state)).sort((a, b) => a.created_at - b.created_at);
  const closed = worktrees.filter((w) => !isOpen(w.state)).sort((a, b) => b.created_at - a.created_at);
  return [...open, ...closed];
}

/**
 * The key of the worktree a task runs in, as the engine's `worktree_key`: the one it names (a
 * review's follow-up), else its loop's, else its own id.
 */
export function worktreeKeyOf(task: Pick<TaskInfo, 'id' | 'worktree' | 'loop_iteration'>): string {
  return task.worktree ?? task.loop_iteration?.loop_id ?? task.id;
}

/** The worktree a task runs or ran in, if the window knows one. */
export function worktreeOfTask(worktrees: readonly WorktreeInfo[], task: Pick<TaskInfo, 'id' | 'worktree' | 'loop_iteration'>): WorktreeInfo | undefined {
  const key = worktreeKeyOf(task);
  return worktrees.find((w) => w.task === key) ?? worktrees.find((w) => w.task === task.id);
}

/** The worktree a loop's iterations work in, if the window knows one. */
export function worktreeOfLoop(worktrees: readonly WorktreeInfo[], loopId: LoopId): WorktreeInfo | undefined {
  return worktrees.find((w) => w.task === loopId || w.loop_id === loopId);
}

/** Whether another agent's worktree changes a file this one changes (the radar's mark). */
export function overlapsOthers(info: WorktreeInfo | undefined): boolean {
  return info !== undefined && isOpen(info.state) && info.conflicts_with.length > 0;
}

// ---- words -----------------------------------------------------------------------------

/**
 * A worktree's state in words: the engine's (`state_text`), the same the command line and the
 * notifications say, never made up here.
 */
export function worktreeStateText(info: Pick<WorktreeInfo, 'state_text'>): string {
  return info.state_text;
}

/**
 * Whether the count of files a worktree changed is known: an open one the engine can read (not
 * one whose folder is gone, nor one git is not run in, whose count is not a reading).
 */
export function filesKnown(state: WorktreeState): boolean {
  return isOpen(state) && state !== 'folder_missing' && brokenWhy(state) === null;
}

/** `no files changed`, `1 file changed`, `4 files changed`. */
export function filesChangedText(count: number): string {
  if (count === 0) return 'no files changed';
  return count === 1 ? '1 file changed' : `${count} files changed`;
}

const STATUS_WORDS: Record<FileStatus, string> = {
  added: 'added',
  modified: 'changed',
  deleted: 'deleted',
  renamed: 'renamed',
};

/** Kilobytes, as a user reads a file's size: at least 1, rounded. */
export function kilobytes(bytes: number): string {
  return `${Math.max(1, Math.round(bytes / 1024)).toLocaleString('en')} KB`;
}

/**
 * How a changed file is listed: its status in a word, and what else a user should know of it
 * (where a renamed file was, that it is binary or too large to show).
 */
export function fileBadge(file: FileDiff): { status: string; notes: string[] } {
  const notes: string[] = [];
  if (file.status === 'renamed' && file.from !== null) notes.push(`from ${file.from}`);
  if (file.content.kind === 'binary') notes.push('binary');
  if (file.content.kind === 'too_large') notes.push(`too large to show: ${kilobytes(file.content.bytes)}`);
  return { status: STATUS_WORDS[file.status], notes };
}

/** What the diff shows of a file: its two sides as text, or why they are not shown. */
export function shownContent(file: FileDiff): { kind: 'text'; before: string; after: string } | { kind: 'none'; why: string } {
  switch (file.content.kind) {
    case 'text':
      return { kind: 'text', before: file.content.before, after: file.content.after };
    case 'binary':
      return { kind: 'none', why: `${file.path} is not a text file, so its changes cannot be shown here.` };
    case 'too_large':
      return { kind: 'none', why: `${file.path} is too large to show here (${kilobytes(file.content.bytes)}).` };
  }
}

/**
 * The file to show after the list changed (a refresh): the one shown, while it is still
 * changed; else the first; none in an empty list.
 */
export function selectedAfter(files: readonly FileDiff[], selected: string | null): string | null {
  if (selected !== null && files.some((f) => f.path === selected)) return selected;
  return files[0]?.path ?? null;
}

// ---- the radar ---------------------------------------------------------------------------

export interface OverlapNote {
  /** The other worktree (its task or loop). */
  with: string;
  /** "Also changed by “Fix login”: src/auth.ts, src/session.ts" */
  text: string;
  /** Which to merge first, from the regions each has in the other's way. */
  order: string;
}

/** The conflict radar's advice for a worktree, one note per other worktree it meets. */
export function overlapNotes(info: Pick<WorktreeInfo, 'overlaps'>): OverlapNote[] {
  return info.overlaps.map((overlap) => {
    const title = overlap.with_title.trim() === '' ? 'another task' : `“${overlap.with_title}”`;
    return {
      with: overlap.with,
      text: `Also changed by ${title}: ${overlap.files.join(', ')}`,
      order: overlap.merge_first ? 'Merge this one first' : `Merge ${title} first, then rebase this one`,
    };
  });
}

// ---- what the review can do now -----------------------------------------------------------

export interface Offer {
  /** Whether the action is offered at all. */
  shown: boolean;
  enabled: boolean;
  /** Why it cannot be taken now, in a sentence (its button's hint). */
  why: string | null;
}

export interface ReviewOffers {
  commit: Offer;
  merge: Offer;
  rebase: Offer;
  discard: Offer;
  comment: Offer;
  /** “Resolve with the agent”: offered where a merge into its base would meet a conflict now. */
  resolve: Offer;
}

const HIDDEN: Offer = { shown: false, enabled: false, why: null };
const READY: Offer = { shown: true, enabled: true, why: null };
const AT_WORK = 'Its agent is still at work in it: wait for its task to end, or cancel the task.';
const FOLDER_GONE = 'Its folder is gone, so there is nothing to work on; it can only be discarded.';
/** Why git is not run in a broken worktree: only its discard (which keeps its files) is left. */
const BROKEN: Partial<Record<WorktreeState, string>> = {
  tampered: 'Its .git file was changed, so git is not run there; discard it to keep a copy of its files.',
  branch_gone: 'Its branch was deleted, so what it changed cannot be told; discard it to keep a copy of its files.',
  refused:
    'Its repository now defines a filter or merge driver git would run on the agent’s files; discard it to keep a copy of its files.',
};

/** Why git is not run in a worktree (tampered with, its branch gone, its repository refused), or null. */
export function brokenWhy(state: WorktreeState): string | null {
  return BROKEN[state] ?? null;
}

/** Why merging and rebasing wait while a merge would meet a conflict: what is offered instead. */
function conflictWhy(info: Pick<WorktreeInfo, 'base' | 'base_conflict'>): string {
  const files = info.base_conflict.length === 1 ? info.base_conflict[0] : `${info.base_conflict.length} files`;
  return `It conflicts with the latest ${info.base} in ${files}: resolve it with its agent first, then merge.`;
}

/**
 * What the user can do with a worktree now. A merged or discarded one takes nothing. Merge,
 * rebase and discard wait while its agent is at work in it (the engine refuses them then);
 * commit and comments do not (a review is a new task, queued behind it). Rebase is offered
 * only where it helps: its base moved on, it meets other work, or a merge met a conflict. A
 * conflict with its base now offers “Resolve with the agent” in place of merge and rebase,
 * which would only meet it again.
 */
export function reviewOffers(info: WorktreeInfo): ReviewOffers {
  if (!isOpen(info.state)) {
    return { commit: HIDDEN, merge: HIDDEN, rebase: HIDDEN, discard: HIDDEN, comment: HIDDEN, resolve: HIDDEN };
  }
  const conflict = info.base_conflict.length > 0;
  const rebaseShown =
    conflict || info.behind > 0 || info.state === 'conflicting' || info.overlaps.length > 0 || info.merge_conflict.length > 0;
  if (info.state === 'folder_missing') {
    const gone: Offer = { shown: true, enabled: false, why: FOLDER_GONE };
    return { commit: gone, merge: gone, rebase: rebaseShown ? gone : HIDDEN, discard: READY, comment: gone, resolve: HIDDEN };
  }
  const busy: Offer = info.task_at_work !== null ? { shown: true, enabled: false, why: AT_WORK } : READY;
  const broken = BROKEN[info.state];
  if (broken !== undefined) {
    const refused: Offer = { shown: true, enabled: false, why: broken };
    return { commit: refused, merge: refused, rebase: rebaseShown ? refused : HIDDEN, discard: busy, comment: refused, resolve: HIDDEN };
  }
  if (conflict) {
    const waits: Offer = busy.enabled ? { shown: true, enabled: false, why: conflictWhy(info) } : busy;
    return { commit: READY, merge: waits, rebase: waits, discard: busy, comment: READY, resolve: busy };
  }
  return { commit: READY, merge: busy, rebase: rebaseShown ? busy : HIDDEN, discard: busy, comment: READY, resolve: HIDDEN };
}

// ---- outcomes in words ----------------------------------------------------------------------

export interface Said {
  tone: 'done' | 'problem';
  text: string;
  /** Files the sentence is about (conflicts), listed under it. */
  files: string[];
}

/** A commit's outcome: something committed, or nothing to commit. */
export function commitSaid(committed: boolean): Said {
  return committed
    ? { tone: 'done', text: 'Committed what the agent left uncommitted.', files: [] }
    : { tone: 'done', text: 'Nothing to commit: everything in it was committed already.', files: [] };
}

export function mergeSaid(outcome: MergeOutcome, base: string): Said {
  switch (outcome.outcome) {
    case 'merged':
      return {
        tone: 'done',
        text: outcome.fast_forward
          ? `Merged: ${outcome.base} moved forward to this work. Its worktree and branch are removed.`
          : `Merged into ${outcome.base} with a merge commit. Its worktree and branch are removed.`,
        files: [],
      };
    case 'conflict':
      return {
        tone: 'problem',
        text: `Not merged: ${outcome.files.length === 1 ? 'this file conflicts' : 'these files conflict'} with ${base}. Nothing was changed.`,
        files: outcome.files,
      };
    case 'in_the_way':
      return { tone: 'problem', text: `Not merged: ${asSentence(outcome.why)} Nothing was changed.`, files: [] };
  }
}

export function rebaseSaid(outcome: RebaseOutcome, base: string): Said {
  switch (outcome.outcome) {
    case 'rebased':
      return { tone: 'done', text: `Rebased onto the latest of ${base}.`, files: [] };
    case 'conflict':
      return {
        tone: 'problem',
        text: `Not rebased: ${outcome.files.length === 1 ? 'this file conflicts' : 'these files conflict'} with the latest of ${base}. Nothing was changed.`,
        files: outcome.files,
      };
  }
}

/** The question before a discard: the first, and the second once the engine says work would be lost. */
export function discardQuestion(step: { kind: 'first' } | { kind: 'loses_work'; filesChanged: number }, info: Pick<WorktreeInfo, 'branch'>): string {
  if (step.kind === 'first') return `Discard this worktree? Its folder and its branch ${info.branch} are removed.`;
  const files = step.filesChanged === 1 ? '1 changed file that is' : `${step.filesChanged} changed files that are`;
  return `It holds ${files} not merged anywhere: discarding loses them from the repository. Switchboard keeps them as a patch file you can apply later. Discard it anyway?`;
}

export function discardSaid(outcome: Extract<DiscardOutcome, { outcome: 'discarded' }>): Said {
  return outcome.patch === null
    ? { tone: 'done', text: 'Discarded. It held no work that was not merged.', files: [] }
    : { tone: 'done', text: `Discarded. Its work was kept as a patch: ${outcome.patch}`, files: [] };
}

// ---- line comments ------------------------------------------------------------------------

/** The side of a diff a line is on: the file as it was (a removed line), or as it is now. */
export type Side = 'before' | 'after';

export interface DraftComment {
  /** The draft's own number, to keep its editor as the list changes. */
  id: number;
  path: string;
  /** 1-based, on its side. */
  line: number;
  side: Side;
  text: string;
}

/**
 * A comment begun on a line: a new draft, or the one already on that line (the user clicked it
 * again). Returns the list and the draft to put the keyboard in.
 */
export function addDraft(drafts: readonly DraftComment[], place: { path: string; line: number; side: Side }, nextId: number): { drafts: DraftComment[]; id: number } {
  const there = drafts.find((d) => d.path === place.path && d.line === place.line && d.side === place.side);
  if (there) return { drafts: [...drafts], id: there.id };
  const draft: DraftComment = { id: nextId, ...place, text: '' };
  return { drafts: sortDrafts([...drafts, draft]), id: nextId };
}

/** Drafts in the order a reader goes through the files: by path, then line. */
export function sortDrafts(drafts: readonly DraftComment[]): DraftComment[] {
  return [...drafts].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : a.line - b.line || (a.side === b.side ? 0 : a.side === 'before' ? -1 : 1)));
}

/** The comments a review sends: the drafts with words in them, trimmed, in reading order. */
export function commentsToSend(drafts: readonly DraftComment[]): ReviewComment[] {
  return sortDrafts(drafts)
    .filter((d) => d.text.trim() !== '')
    .map((d) => ({ path: d.path, line: d.line, text: d.text.trim() }));
}

/** Where a draft is, as its heading says it. */
export function draftPlace(draft: Pick<DraftComment, 'path' | 'line' | 'side'>): string {
  return draft.side === 'before' ? `${draft.path}, line ${draft.line} as it was` : `${draft.path}, line ${draft.line}`;
}

/** What the window says once a review went: it is a new task of the agent, in the same worktree. */
export function reviewSentText(count: number, agent: string, title: string): string {
  const comments = count === 1 ? 'Your comment' : `Your ${count} comments`;
  return `${comments} went to ${agent} as a new task, “${title}”, in this worktree.`;
}

/** What the window says once “Resolve with the agent” went: a new task of the agent, in this worktree. */
export function resolveSentText(agent: string, title: string): string {
  return `${agent} was asked to bring the base in and resolve the conflicts, as a new task, “${title}”, in this worktree. Merge is offered again once it is done.`;
}

/** The Send button's words: how many comments it sends. */
export function sendLabel(count: number): string {
  if (count === 0) return 'Send comments';
  return count === 1 ? 'Send 1 comment' : `Send ${count} comments`;
}
