import { describe, expect, it } from 'vitest';
import type { EngineEvent, FileDiff, MergeOutcome, RebaseOutcome, WorktreeInfo } from './bindings';
import {
  addDraft,
  applyWorktreeEvent,
  brokenWhy,
  filesKnown,
  commentsToSend,
  commitSaid,
  discardQuestion,
  discardSaid,
  draftPlace,
  fileBadge,
  filesChangedText,
  kilobytes,
  mergeSaid,
  overlapNotes,
  overlapsOthers,
  rebaseSaid,
  reviewOffers,
  reviewSentText,
  selectedAfter,
  sendLabel,
  shownContent,
  shownWorktrees,
  worktreeKeyOf,
  worktreeOfLoop,
  worktreeOfTask,
  worktreeStateText,
  type DraftComment,
  type Offer,
} from './changes';
import { task } from '../test/tasks';
import { textFile, worktree } from '../test/worktrees';

const TASK = 'a1b2c3d4-0000-4000-8000-000000000001';
const OTHER = 'a1b2c3d4-0000-4000-8000-000000000002';
const LOOP = 'loop-7';

describe('the list of worktrees', () => {
  it('folds worktree_changed in by task or loop, and leaves other events alone', () => {
    const first = worktree(TASK);
    const list = applyWorktreeEvent([], { type: 'worktree_changed', worktree: first });
    expect(list).toEqual([first]);
    const changed = { ...first, state: 'merged' as const };
    expect(applyWorktreeEvent(list, { type: 'worktree_changed', worktree: changed })).toEqual([changed]);
    const settings = { type: 'settings_changed' } as EngineEvent;
    expect(applyWorktreeEvent(list, settings)).toBe(list);
  });

  it("forgets a deleted agent's worktrees", () => {
    const list = [worktree(TASK, { profile_id: 'gone' }), worktree(OTHER)];
    expect(applyWorktreeEvent(list, { type: 'profile_deleted', profile_id: 'gone' }).map((w) => w.task)).toEqual([OTHER]);
  });

  it('lists open ones oldest first, then merged and discarded ones newest first', () => {
    const list = [
      worktree('merged-old', { state: 'merged', created_at: 1 }),
      worktree('open-new', { created_at: 5 }),
      worktree('discarded-new', { state: 'discarded', created_at: 9 }),
      worktree('open-old', { state: 'working', created_at: 2 }),
    ];
    expect(shownWorktrees(list).map((w) => w.task)).toEqual(['open-old', 'open-new', 'discarded-new', 'merged-old']);
  });

  it.each<[string, Partial<Parameters<typeof worktreeKeyOf>[0]>, string]>([
    ['its own', {}, TASK],
    ["a review's follow-up: the worktree it names", { worktree: OTHER }, OTHER],
    ["a loop's iteration: its loop's", { loop_iteration: { loop_id: LOOP, number: 2 } }, LOOP],
  ])('a task runs in %s worktree', (_, overrides, key) => {
    expect(worktreeKeyOf({ ...task(TASK), ...overrides })).toBe(key);
  });

  it('finds the worktree of a task and of a loop', () => {
    const mine = worktree(TASK);
    const loops = worktree(LOOP, { loop_id: LOOP });
    const list = [mine, loops];
    expect(worktreeOfTask(list, task(TASK))).toBe(mine);
    expect(worktreeOfTask(list, task(OTHER, { worktree: TASK }))).toBe(mine);
    expect(worktreeOfTask(list, task(OTHER, { loop_iteration: { loop_id: LOOP, number: 1 } }))).toBe(loops);
    expect(worktreeOfTask(list, task(OTHER))).toBeUndefined();
    expect(worktreeOfLoop(list, LOOP)).toBe(loops);
    expect(worktreeOfLoop(list, 'loop-9')).toBeUndefined();
  });

  it.each<[string, WorktreeInfo | undefined, boolean]>([
    ['none', undefined, false],
    ['alone', worktree(TASK), false],
    ['meeting another', worktree(TASK, { conflicts_with: [OTHER], state: 'conflicting' }), true],
    ['merged since', worktree(TASK, { conflicts_with: [OTHER], state: 'merged' }), false],
  ])('marks a worktree %s as overlapping: %s', (_, info, marked) => {
    expect(overlapsOthers(info)).toBe(marked);
  });
});

describe('words', () => {
  it('says the state in the engine’s words, as the command line and notifications do', () => {
    expect(worktreeStateText(worktree(TASK, { state: 'conflicts_with_base', state_text: 'conflicts with main now in src/a.ts' }))).toBe(
      'conflicts with main now in src/a.ts',
    );
  });

  it.each([
    [0, 'no files changed'],
    [1, '1 file changed'],
    [12, '12 files changed'],
  ])('%d files: %s', (count, words) => {
    expect(filesChangedText(count)).toBe(words);
  });

  it.each([
    [0, '1 KB'],
    [1500, '1 KB'],
    [600 * 1024, '600 KB'],
    [3 * 1024 * 1024, '3,072 KB'],
  ])('%d bytes: %s', (bytes, words) => {
    expect(kilobytes(bytes)).toBe(words);
  });

  it.each<[FileDiff, string, string[]]>([
    [textFile('src/new.ts', '', 'x'), 'added', []],
    [textFile('src/a.ts', 'x', 'y'), 'changed', []],
    [textFile('src/old.ts', 'x', ''), 'deleted', []],
    [textFile('src/b.ts', 'x', 'x', { status: 'renamed', from: 'src/a.ts' }), 'renamed', ['from src/a.ts']],
    [{ path: 'logo.png', from: null, status: 'modified', content: { kind: 'binary' } }, 'changed', ['binary']],
    [{ path: 'dump.sql', from: null, status: 'added', content: { kind: 'too_large', bytes: 812 * 1024 } }, 'added', ['too large to show: 812 KB']],
  ])('lists %j as %s %j', (file, status, notes) => {
    expect(fileBadge(file)).toEqual({ status, notes });
  });

  it('shows text sides, and says why a binary or large file is not shown', () => {
    expect(shownContent(textFile('a.ts', 'old', 'new'))).toEqual({ kind: 'text', before: 'old', after: 'new' });
    expect(shownContent({ path: 'logo.png', from: null, status: 'added', content: { kind: 'binary' } })).toEqual({
      kind: 'none',
      why: 'logo.png is not a text file, so its changes cannot be shown here.',
    });
    expect(shownContent({ path: 'dump.sql', from: null, status: 'added', content: { kind: 'too_large', bytes: 2048 } })).toEqual({
      kind: 'none',
      why: 'dump.sql is too large to show here (2 KB).',
    });
  });

  it.each<[string | null, string[], string | null]>([
    ['b.ts', ['a.ts', 'b.ts'], 'b.ts'],
    ['gone.ts', ['a.ts', 'b.ts'], 'a.ts'],
    [null, ['a.ts'], 'a.ts'],
    ['a.ts', [], null],
  ])('after a refresh, %j among %j stays %j', (selected, paths, after) => {
    expect(selectedAfter(paths.map((p) => textFile(p, 'x', 'y')), selected)).toBe(after);
  });
});

describe('the conflict radar', () => {
  it('says who else changes which files, and which to merge first', () => {
    const info = worktree(TASK, {
      overlaps: [
        { with: OTHER, with_title: 'Fix login', files: ['src/auth.ts', 'src/session.ts'], meeting_hunks: 1, merge_first: true },
        { with: LOOP, with_title: 'Speed up the build', files: ['Makefile'], meeting_hunks: 3, merge_first: false },
        { with: 'x', with_title: '', files: ['a'], meeting_hunks: 0, merge_first: false },
      ],
    });
    expect(overlapNotes(info)).toEqual([
      { with: OTHER, text: 'Also changed by “Fix login”: src/auth.ts, src/session.ts', order: 'Merge this one first' },
      { with: LOOP, text: 'Also changed by “Speed up the build”: Makefile', order: 'Merge “Speed up the build” first, then rebase this one' },
      { with: 'x', text: 'Also changed by another task: a', order: 'Merge another task first, then rebase this one' },
    ]);
    expect(overlapNotes(worktree(TASK))).toEqual([]);
  });
});

describe('what a review can do now', () => {
  const ready: Offer = { shown: true, enabled: true, why: null };
  const hidden: Offer = { shown: false, enabled: false, why: null };
  const atWork: Offer = { shown: true, enabled: false, why: 'Its agent is still at work in it: wait for its task to end, or cancel the task.' };
  const gone: Offer = { shown: true, enabled: false, why: 'Its folder is gone, so there is nothing to work on; it can only be discarded.' };
  const tampered: Offer = { shown: true, enabled: false, why: 'Its .git file was changed, so git is not run there; discard it to keep a copy of its files.' };
  const branchGone: Offer = { shown: true, enabled: false, why: 'Its branch was deleted, so what it changed cannot be told; discard it to keep a copy of its files.' };
  const overlap = { with: OTHER, with_title: 'x', files: ['a'], meeting_hunks: 1, merge_first: false };
  const conflict: Offer = { shown: true, enabled: false, why: 'It conflicts with the latest main in src/a.ts: resolve it with its agent first, then merge.' };
  const conflicting: Partial<WorktreeInfo> = { state: 'conflicts_with_base', base_conflict: ['src/a.ts'], behind: 1 };

  it.each<[string, Partial<WorktreeInfo>, Record<'commit' | 'merge' | 'rebase' | 'discard' | 'comment' | 'resolve', Offer>]>([
    ['ready to merge', {}, { commit: ready, merge: ready, rebase: hidden, discard: ready, comment: ready, resolve: hidden }],
    ['its base moved on: rebase offered', { state: 'behind', behind: 2 }, { commit: ready, merge: ready, rebase: ready, discard: ready, comment: ready, resolve: hidden }],
    ['its task failed: everything offered, nothing to resolve', { state: 'task_failed' }, { commit: ready, merge: ready, rebase: hidden, discard: ready, comment: ready, resolve: hidden }],
    ['meeting other work: rebase offered', { state: 'conflicting', overlaps: [overlap] }, { commit: ready, merge: ready, rebase: ready, discard: ready, comment: ready, resolve: hidden }],
    ['after a merge conflict', { state: 'conflicting', merge_conflict: ['a'] }, { commit: ready, merge: ready, rebase: ready, discard: ready, comment: ready, resolve: hidden }],
    ['conflicting with its base: resolve in place of merge and rebase', conflicting, { commit: ready, merge: conflict, rebase: conflict, discard: ready, comment: ready, resolve: ready }],
    ['a failed task that also conflicts: resolve still offered', { ...conflicting, state: 'task_failed' }, { commit: ready, merge: conflict, rebase: conflict, discard: ready, comment: ready, resolve: ready }],
    ['conflicting while its agent is at work', { ...conflicting, state: 'working', task_at_work: TASK }, { commit: ready, merge: atWork, rebase: atWork, discard: atWork, comment: ready, resolve: atWork }],
    ['its agent at work', { state: 'working', task_at_work: TASK }, { commit: ready, merge: atWork, rebase: hidden, discard: atWork, comment: ready, resolve: hidden }],
    ['at work and overlapping', { state: 'working', task_at_work: TASK, overlaps: [overlap] }, { commit: ready, merge: atWork, rebase: atWork, discard: atWork, comment: ready, resolve: hidden }],
    ['its folder gone', { state: 'folder_missing' }, { commit: gone, merge: gone, rebase: hidden, discard: ready, comment: gone, resolve: hidden }],
    ['tampered with: only discard', { state: 'tampered' }, { commit: tampered, merge: tampered, rebase: hidden, discard: ready, comment: tampered, resolve: hidden }],
    ['its branch gone: only discard', { state: 'branch_gone' }, { commit: branchGone, merge: branchGone, rebase: hidden, discard: ready, comment: branchGone, resolve: hidden }],
    ['merged', { state: 'merged' }, { commit: hidden, merge: hidden, rebase: hidden, discard: hidden, comment: hidden, resolve: hidden }],
    ['discarded', { state: 'discarded', patch: '/p' }, { commit: hidden, merge: hidden, rebase: hidden, discard: hidden, comment: hidden, resolve: hidden }],
  ])('%s', (_, overrides, offers) => {
    expect(reviewOffers(worktree(TASK, overrides))).toEqual(offers);
  });

  it.each<[WorktreeInfo['state'], string | null]>([
    ['tampered', tampered.why],
    ['branch_gone', branchGone.why],
    ['refused', 'Its repository now defines a filter or merge driver git would run on the agent’s files; discard it to keep a copy of its files.'],
    ['ready_to_merge', null],
    ['folder_missing', null],
    ['working', null],
  ])('says why git is not run in a %s worktree, in place of reading it', (state, why) => {
    expect(brokenWhy(state)).toBe(why);
  });

  it.each<[WorktreeInfo['state'], boolean]>([
    ['ready_to_merge', true],
    ['working', true],
    ['conflicting', true],
    ['tampered', false],
    ['branch_gone', false],
    ['refused', false],
    ['folder_missing', false],
    ['merged', false],
  ])('a %s worktree says how many files it changed: %s', (state, known) => {
    expect(filesKnown(state)).toBe(known);
  });
});

describe('outcomes in words', () => {
  it('says whether a commit committed anything', () => {
    expect(commitSaid(true).text).toBe('Committed what the agent left uncommitted.');
    expect(commitSaid(false).text).toBe('Nothing to commit: everything in it was committed already.');
  });

  it.each<[MergeOutcome, string, string[]]>([
    [{ outcome: 'merged', base: 'main', commit: 'abc', fast_forward: true }, 'Merged: main moved forward to this work. Its worktree and branch are removed.', []],
    [{ outcome: 'merged', base: 'main', commit: 'abc', fast_forward: false }, 'Merged into main with a merge commit. Its worktree and branch are removed.', []],
    [{ outcome: 'conflict', files: ['src/a.ts', 'src/b.ts'] }, 'Not merged: these files conflict with main. Nothing was changed.', ['src/a.ts', 'src/b.ts']],
    [{ outcome: 'conflict', files: ['src/a.ts'] }, 'Not merged: this file conflicts with main. Nothing was changed.', ['src/a.ts']],
    [
      { outcome: 'in_the_way', why: 'your own uncommitted changes in the same files are in the way; commit or stash them, then merge again' },
      'Not merged: Your own uncommitted changes in the same files are in the way; commit or stash them, then merge again. Nothing was changed.',
      [],
    ],
  ])('merge %j', (outcome, text, files) => {
    expect(mergeSaid(outcome, 'main')).toMatchObject({ text, files });
  });

  it.each<[RebaseOutcome, string, string[]]>([
    [{ outcome: 'rebased' }, 'Rebased onto the latest of main.', []],
    [{ outcome: 'conflict', files: ['a'] }, 'Not rebased: this file conflicts with the latest of main. Nothing was changed.', ['a']],
  ])('rebase %j', (outcome, text, files) => {
    expect(rebaseSaid(outcome, 'main')).toMatchObject({ text, files });
  });

  it('asks before a discard, and again saying how much work would be lost', () => {
    const info = worktree(TASK, { branch: 'switchboard/claude/fix' });
    expect(discardQuestion({ kind: 'first' }, info)).toBe('Discard this worktree? Its folder and its branch switchboard/claude/fix are removed.');
    expect(discardQuestion({ kind: 'loses_work', filesChanged: 3 }, info)).toBe(
      'It holds 3 changed files that are not merged anywhere: discarding loses them from the repository. Switchboard keeps them as a patch file you can apply later. Discard it anyway?',
    );
    expect(discardQuestion({ kind: 'loses_work', filesChanged: 1 }, info)).toContain('It holds 1 changed file that is not merged');
    expect(discardSaid({ outcome: 'discarded', patch: '/data/patches/fix.patch' }).text).toBe('Discarded. Its work was kept as a patch: /data/patches/fix.patch');
    expect(discardSaid({ outcome: 'discarded', patch: null }).text).toBe('Discarded. It held no work that was not merged.');
  });
});

describe('line comments', () => {
  it('starts a draft on a line, or goes back to the one there', () => {
    const first = addDraft([], { path: 'b.ts', line: 4, side: 'after' }, 1);
    expect(first).toEqual({ drafts: [{ id: 1, path: 'b.ts', line: 4, side: 'after', text: '' }], id: 1 });
    const second = addDraft(first.drafts, { path: 'a.ts', line: 9, side: 'after' }, 2);
    expect(second.drafts.map((d) => d.id)).toEqual([2, 1]);
    expect(addDraft(second.drafts, { path: 'b.ts', line: 4, side: 'after' }, 3)).toEqual({ drafts: second.drafts, id: 1 });
    // The same number on the file as it was is another line.
    expect(addDraft(second.drafts, { path: 'b.ts', line: 4, side: 'before' }, 3).id).toBe(3);
  });

  it('sends the drafts with words, trimmed, in reading order', () => {
    const drafts: DraftComment[] = [
      { id: 1, path: 'b.ts', line: 10, side: 'after', text: '  Rename this.  ' },
      { id: 2, path: 'a.ts', line: 3, side: 'after', text: '   ' },
      { id: 3, path: 'b.ts', line: 2, side: 'before', text: 'Why was this removed?' },
    ];
    expect(commentsToSend(drafts)).toEqual([
      { path: 'b.ts', line: 2, text: 'Why was this removed?' },
      { path: 'b.ts', line: 10, text: 'Rename this.' },
    ]);
    expect(sendLabel(0)).toBe('Send comments');
    expect(sendLabel(1)).toBe('Send 1 comment');
    expect(sendLabel(2)).toBe('Send 2 comments');
  });

  it('says where a draft is and what became of the review', () => {
    expect(draftPlace({ path: 'a.ts', line: 3, side: 'after' })).toBe('a.ts, line 3');
    expect(draftPlace({ path: 'a.ts', line: 3, side: 'before' })).toBe('a.ts, line 3 as it was');
    expect(reviewSentText(2, 'claude', 'Review of Fix login')).toBe('Your 2 comments went to claude as a new task, “Review of Fix login”, in this worktree.');
    expect(reviewSentText(1, 'claude', 'Review of x')).toBe('Your comment went to claude as a new task, “Review of x”, in this worktree.');
  });
});
