import { fireEvent, screen, waitFor, within } from '@testing-library/svelte';
import { describe, expect, it } from 'vitest';
import type { FileDiff, ProfileId, TaskInfo, WorktreeInfo } from '../lib/bindings';
import { FakeBackend } from '../lib/fakeBackend';
import { sampleResult } from '../test/records';
import { taskTitle } from '../lib/tasks';
import { callsOf, renderApp } from '../test/render';
import { atWork, conflictsWithBase, meeting, READY, textFile, worktree } from '../test/worktrees';

const SESSION_BEFORE = ['export function signIn(user) {', '  session.user = user.id;', "  redirect('/');", '}', ''].join('\n');
const SESSION_AFTER = ['export function signIn(user) {', '  session.user = user.id;', "  redirect(returnTo ?? '/');", '}', ''].join('\n');

const FILES: FileDiff[] = [
  textFile('docs/old.md', '# Old\n', ''),
  { path: 'public/logo.png', from: null, status: 'modified', content: { kind: 'binary' } },
  textFile('src/auth/session.ts', SESSION_BEFORE, SESSION_AFTER),
  textFile('src/util/url.ts', 'export const a = 1;\n', 'export const a = 2;\n', { status: 'renamed', from: 'src/url.ts' }),
  { path: 'test/users.json', from: null, status: 'added', content: { kind: 'too_large', bytes: 812 * 1024 } },
];

/** The worktree of builder's task, as the engine reports it: ready to merge, with `files` changed. */
function builderWorktree(task: TaskInfo, agent: ProfileId, files: FileDiff[], overrides: Partial<WorktreeInfo> = {}): WorktreeInfo {
  return worktree(task.id, { title: taskTitle(task), profile_id: agent, agent: 'builder', branch: `switchboard/builder/${task.id}`, files_changed: files.length, ...overrides });
}

/** An agent that works apart in /work/shop, and its finished task's worktree with `files`. */
function worktreeOf(files: FileDiff[] = FILES, extra: { summary?: string | null; uncommitted?: boolean } = {}) {
  const backend = new FakeBackend({ repositories: [{ root: '/work/shop', setup_command: 'npm ci' }] });
  const agent = backend.seedProfile({ name: 'builder', cwd: '/work/shop', isolation: 'worktree' });
  const task = backend.seedTask({ profile_id: agent.id, instruction: 'Fix the login redirect', state: 'completed', ended_at: 5 });
  backend.seedTask({ ...task, result: sampleResult(task.id) });
  const info = backend.seedWorktree(builderWorktree(task, agent.id, files, { branch: 'switchboard/builder/fix-the-login-redirect' }), files, extra);
  return { backend, agent, task, info };
}

/** Another finished task of builder's, `instruction`, with a worktree of its own changing `files`. */
function otherWorktree(backend: FakeBackend, agent: ProfileId, instruction: string, files: FileDiff[]) {
  const task = backend.seedTask({ profile_id: agent, instruction, state: 'completed', ended_at: 6 });
  return { task, info: backend.seedWorktree(builderWorktree(task, agent, files), files) };
}

/** Open a task's detail from the agent's task list, then its changes. */
async function openChanges(backend: FakeBackend, task: TaskInfo) {
  await renderApp(backend);
  await fireEvent.click(screen.getByTestId('profile-select'));
  const entry = (await screen.findAllByTestId('task-entry')).find((e) => e.getAttribute('data-task-id') === task.id)!;
  await fireEvent.click(within(entry).getByTestId('task-open'));
  await fireEvent.click(await screen.findByTestId('task-changes'));
  const view = await screen.findByTestId('changes-view');
  await waitFor(() => expect(within(view).getAllByTestId('changes-file').length).toBeGreaterThan(0));
  return view;
}

const fileRow = (path: string) => screen.getAllByTestId('changes-file').find((f) => f.getAttribute('data-path') === path)!;
const said = () => screen.getByTestId('changes-said-text');

describe('the changes of a worktree', () => {
  it("lists its files with each one's status in words, binary and too large ones as such", async () => {
    const { backend, task } = worktreeOf();
    await openChanges(backend, task);

    const rows = screen.getAllByTestId('changes-file').map((row) => ({
      path: row.getAttribute('data-path'),
      status: within(row).getByTestId('changes-file-status').textContent,
      notes: within(row).queryAllByTestId('changes-file-note').map((n) => n.textContent),
    }));
    expect(rows).toEqual([
      { path: 'docs/old.md', status: 'deleted', notes: [] },
      { path: 'public/logo.png', status: 'changed', notes: ['binary'] },
      { path: 'src/auth/session.ts', status: 'changed', notes: [] },
      { path: 'src/util/url.ts', status: 'renamed', notes: ['from src/url.ts'] },
      { path: 'test/users.json', status: 'added', notes: ['too large to show: 812 KB'] },
    ]);
    expect(screen.getByTestId('changes-title').textContent).toBe('Fix the login redirect');
    expect(screen.getByTestId('changes-state').textContent).toBe('ready to merge');
    expect(screen.getByTestId('changes-facts').textContent).toContain('5 files changed');

    await fireEvent.click(fileRow('public/logo.png'));
    expect(screen.getByTestId('changes-no-diff').textContent).toBe('public/logo.png is not a text file, so its changes cannot be shown here.');
    await fireEvent.click(fileRow('test/users.json'));
    expect(screen.getByTestId('changes-no-diff').textContent).toBe('test/users.json is too large to show here (812 KB).');
  });

  it("draws the chosen file's diff as text, unified or side by side, with the summary beside it", async () => {
    const hostile = "const x = '<img src=x onerror=\"window.__pwned=1\">';\n";
    const { backend, task } = worktreeOf([textFile('src/a.ts', 'const x = 1;\n', hostile)], { summary: '## Done\n\nFixed it. <script>window.__pwned=1</script>' });
    const view = await openChanges(backend, task);

    const diff = screen.getByTestId('changes-diff');
    expect(diff.getAttribute('data-layout')).toBe('unified');
    await waitFor(() => expect(diff.querySelector('.cm-content')?.textContent).toContain('onerror'));
    // The agent's text is text: no element came of it.
    expect(view.querySelector('img')).toBeNull();
    expect(diff.querySelectorAll('.cm-editor')).toHaveLength(1);
    // The removed line is there too, marked as removed.
    expect(diff.querySelector('.cm-deletedChunk')?.textContent).toContain('const x = 1;');

    await fireEvent.click(screen.getByTestId('changes-layout-split'));
    await waitFor(() => expect(diff.querySelectorAll('.cm-editor')).toHaveLength(2));
    const [before, after] = [...diff.querySelectorAll('.cm-editor')].map((e) => e.querySelector('.cm-content')?.textContent);
    expect(before).toContain('const x = 1;');
    expect(after).toContain('onerror');

    const summary = screen.getByTestId('changes-summary');
    expect(summary.querySelector('h2')?.textContent).toBe('Done');
    expect(summary.querySelector('script')).toBeNull();
    expect((window as { __pwned?: number }).__pwned).toBeUndefined();
  });

  it('sends a comment typed on a line to the agent as a new task, with its file, line and words', async () => {
    const { backend, task } = worktreeOf();
    await openChanges(backend, task);
    await fireEvent.click(fileRow('src/auth/session.ts'));
    const diff = screen.getByTestId('changes-diff');
    const line = (n: number, side = 'after') => diff.querySelector<HTMLButtonElement>(`[data-testid="diff-comment-line"][data-line="${n}"][data-side="${side}"]`);
    await waitFor(() => expect(line(3)).not.toBeNull());
    expect(line(3)!.getAttribute('aria-label')).toBe('Comment on line 3');
    expect(screen.getByTestId('changes-comments-hint').textContent).toContain('Your comments go to builder together');

    await fireEvent.click(line(3)!);
    const draft = await screen.findByTestId('changes-comment');
    expect(draft.textContent).toContain('src/auth/session.ts, line 3');
    // The keyboard is in its text, ready for the words.
    await waitFor(() => expect(document.activeElement).toBe(within(draft).getByTestId('changes-comment-text')));
    await fireEvent.input(within(draft).getByTestId('changes-comment-text'), { target: { value: '  Check returnTo stays on this site.  ' } });
    // The line shows it carries a comment.
    await waitFor(() => expect(line(3)!.classList.contains('commented')).toBe(true));

    // A second one, then taken back: only the first goes.
    await fireEvent.click(line(1)!);
    expect(screen.getAllByTestId('changes-comment')).toHaveLength(2);
    const second = screen.getAllByTestId('changes-comment').find((c) => c.getAttribute('data-line') === '1')!;
    await fireEvent.click(within(second).getByTestId('changes-comment-remove'));
    expect(screen.getAllByTestId('changes-comment')).toHaveLength(1);

    const send = screen.getByTestId('changes-send');
    expect(send.textContent).toBe('Send 1 comment');
    await fireEvent.click(send);
    await waitFor(() => expect(callsOf(backend, 'review_worktree')).toEqual([{ worktree: task.id, comments: [{ path: 'src/auth/session.ts', line: 3, text: 'Check returnTo stays on this site.' }] }]));
    // The review is the task the engine queued for the agent in this worktree; the window says its name.
    const review = (await backend.listTasks(null)).find((t) => t.id !== task.id && t.worktree === task.id)!;
    await waitFor(() => expect(said().textContent).toBe(`Your comment went to builder as a new task, “${review.title}”, in this worktree.`));
    expect(screen.queryAllByTestId('changes-comment')).toHaveLength(0);
  });

  it('comments on a removed line of the file as it was, side by side', async () => {
    const { backend, task } = worktreeOf();
    await openChanges(backend, task);
    await fireEvent.click(fileRow('src/auth/session.ts'));
    await fireEvent.click(screen.getByTestId('changes-layout-split'));
    const diff = screen.getByTestId('changes-diff');
    const removed = () => diff.querySelector<HTMLButtonElement>('[data-testid="diff-comment-line"][data-side="before"][data-line="3"]');
    await waitFor(() => expect(removed()).not.toBeNull());
    // Unchanged lines of the file as it was take none: they are commented on as they are now.
    expect(diff.querySelector('[data-testid="diff-comment-line"][data-side="before"][data-line="1"]')).toBeNull();

    await fireEvent.click(removed()!);
    const draft = await screen.findByTestId('changes-comment');
    expect(draft.textContent).toContain('src/auth/session.ts, line 3 as it was');
    await fireEvent.input(within(draft).getByTestId('changes-comment-text'), { target: { value: 'Why did this go?' } });
    await fireEvent.click(screen.getByTestId('changes-send'));
    await waitFor(() => expect(callsOf(backend, 'review_worktree')).toHaveLength(1));
    expect(callsOf(backend, 'review_worktree')[0].comments).toEqual([{ path: 'src/auth/session.ts', line: 3, text: 'Why did this go?' }]);
  });

  it('reads the diff again when the engine reports the worktree changed, keeping the file shown', async () => {
    const { backend, task } = worktreeOf();
    await openChanges(backend, task);
    await fireEvent.click(fileRow('src/auth/session.ts'));
    const content = () => screen.getByTestId('changes-diff').querySelector('.cm-content')?.textContent ?? '';
    await waitFor(() => expect(content()).toContain('returnTo'));
    expect(callsOf(backend, 'worktree_diff')).toHaveLength(1);

    const moved = SESSION_AFTER.replace("returnTo ?? '/'", 'safeReturn(returnTo)');
    // The agent goes on writing: a burst of reports.
    for (let i = 0; i < 5; i++) {
      const files = [...FILES.filter((f) => f.path !== 'src/auth/session.ts'), textFile('src/auth/session.ts', SESSION_BEFORE, moved), textFile('src/new.ts', '', `n${i}`)];
      backend.changeWorktree(task.id, { files_changed: files.length }, files);
    }
    await waitFor(() => expect(content()).toContain('safeReturn'));
    await waitFor(() => expect(screen.getAllByTestId('changes-file').map((f) => f.getAttribute('data-path'))).toContain('src/new.ts'));
    // Still on the file the user was reading.
    expect(screen.getByTestId('changes-diff-path').textContent).toBe('src/auth/session.ts');
    // One read in flight, one more queued: the burst did not ask five times.
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(callsOf(backend, 'worktree_diff').length).toBeGreaterThanOrEqual(2);
    expect(callsOf(backend, 'worktree_diff').length).toBeLessThanOrEqual(3);
  });

  it('commits what the agent left uncommitted, and says when there was nothing to commit', async () => {
    const { backend, task } = worktreeOf(FILES, { uncommitted: true });
    await openChanges(backend, task);
    await fireEvent.click(screen.getByTestId('changes-commit'));
    await waitFor(() => expect(said().textContent).toBe('Committed what the agent left uncommitted.'));
    await fireEvent.click(screen.getByTestId('changes-commit'));
    await waitFor(() => expect(said().textContent).toBe('Nothing to commit: everything in it was committed already.'));
    expect(callsOf(backend, 'commit_worktree')).toEqual([{ worktree: task.id }, { worktree: task.id }]);
  });

  it('merges into its base and shows it merged', async () => {
    const { backend, task } = worktreeOf();
    await openChanges(backend, task);
    const merge = screen.getByTestId('changes-merge');
    expect(merge.textContent).toBe('Merge into main');
    await fireEvent.click(merge);
    await waitFor(() => expect(said().textContent).toBe('Merged: main moved forward to this work. Its worktree and branch are removed.'));
    await waitFor(() => expect(screen.getByTestId('changes-state').textContent).toBe('merged'));
    expect(screen.queryByTestId('changes-merge')).toBeNull();
    expect(screen.queryByTestId('changes-discard')).toBeNull();
  });

  it('a conflict with its base is said, merge and rebase wait, and Resolve with the agent brings merge back', async () => {
    const { backend, agent, task } = worktreeOf();
    // Another worktree changing the same lines landed first: the radar read that they now differ on main.
    const other = otherWorktree(backend, agent.id, 'Add remember me', [textFile('src/auth/session.ts', SESSION_BEFORE, 'x')]);
    await backend.mergeWorktree(other.task.id);
    backend.changeWorktree(task.id, conflictsWithBase('main', 'src/auth/session.ts'));
    await openChanges(backend, task);

    // The engine's words; what a merge would meet, listed; merge and rebase wait, saying why.
    expect(screen.getByTestId('changes-state').textContent).toBe('conflicts with main now in src/auth/session.ts');
    expect(within(screen.getByTestId('changes-base-conflict')).getAllByRole('listitem').map((f) => f.textContent)).toEqual(['src/auth/session.ts']);
    const merge = screen.getByTestId('changes-merge') as HTMLButtonElement;
    expect(merge.disabled).toBe(true);
    expect(merge.title).toBe('It conflicts with the latest main in src/auth/session.ts: resolve it with its agent first, then merge.');
    expect((screen.getByTestId('changes-rebase') as HTMLButtonElement).disabled).toBe(true);

    // Resolve with the agent: a task in this worktree, shown like any task.
    await fireEvent.click(screen.getByTestId('changes-resolve'));
    await waitFor(() => expect(callsOf(backend, 'resolve_worktree')).toEqual([{ worktree: task.id }]));
    // The task the engine queued in this worktree: the window says its name.
    const resolving = (await backend.listTasks(agent.id)).find((t) => t.worktree === task.id)!;
    await waitFor(() =>
      expect(said().textContent).toBe(
        `builder was asked to bring the base in and resolve the conflicts, as a new task, “${resolving.title}”, in this worktree. Merge is offered again once it is done.`,
      ),
    );
    // The engine reports its agent at work there.
    backend.changeWorktree(task.id, atWork(resolving.id));
    await waitFor(() => expect(screen.getByTestId('changes-state').textContent).toBe('its agent is at work'));
    expect((screen.getByTestId('changes-resolve') as HTMLButtonElement).disabled).toBe(true);

    // Its agent resolved and committed: the radar reads it ready again; merge is offered again, and lands.
    backend.finishTask({ taskId: resolving.id });
    backend.changeWorktree(task.id, READY);
    await waitFor(() => expect(screen.getByTestId('changes-state').textContent).toBe('ready to merge'));
    expect(screen.queryByTestId('changes-resolve')).toBeNull();
    expect(screen.queryByTestId('changes-base-conflict')).toBeNull();
    await fireEvent.click(screen.getByTestId('changes-merge'));
    await waitFor(() => expect(said().textContent).toContain('Merged'));
  });

  it("says why a merge did not happen when the user's own changes are in the way", async () => {
    const { backend, task } = worktreeOf();
    backend.answerNext('merge_worktree', { outcome: 'in_the_way', why: 'your own uncommitted changes in the same files are in the way; commit or stash them, then merge again' });
    await openChanges(backend, task);
    await fireEvent.click(screen.getByTestId('changes-merge'));
    await waitFor(() =>
      expect(said().textContent).toBe('Not merged: Your own uncommitted changes in the same files are in the way; commit or stash them, then merge again. Nothing was changed.'),
    );
    expect(screen.getByTestId('changes-state').textContent).toBe('ready to merge');
  });

  it('asks before a discard, asks again when work would be lost, and shows where the patch was kept', async () => {
    const { backend, task } = worktreeOf();
    await openChanges(backend, task);

    await fireEvent.click(screen.getByTestId('changes-discard'));
    const first = screen.getByTestId('changes-discard-question');
    expect(first.textContent).toContain('Discard this worktree? Its folder and its branch switchboard/builder/fix-the-login-redirect are removed.');
    expect(callsOf(backend, 'discard_worktree')).toEqual([]);
    // Kept: nothing is asked of the engine.
    await fireEvent.click(screen.getByTestId('changes-discard-keep'));
    expect(screen.queryByTestId('changes-discard-question')).toBeNull();

    await fireEvent.click(screen.getByTestId('changes-discard'));
    await fireEvent.click(screen.getByTestId('changes-discard-confirm'));
    await waitFor(() => expect(screen.getByTestId('changes-discard-question').getAttribute('data-step')).toBe('loses_work'));
    expect(screen.getByTestId('changes-discard-question').textContent).toContain('It holds 5 changed files that are not merged anywhere');
    expect(screen.getByTestId('changes-discard-question').textContent).toContain('keeps them as a patch file');
    expect(screen.getByTestId('changes-state').textContent).toBe('ready to merge');

    await fireEvent.click(screen.getByTestId('changes-discard-confirm'));
    // Where the engine said it kept the patch.
    await waitFor(() => expect(said().textContent).toBe('Discarded. Its work was kept as a patch: /data/patches/switchboard-builder-fix-the-login-redirect.patch'));
    expect(callsOf(backend, 'discard_worktree')).toEqual([
      { worktree: task.id, force: false },
      { worktree: task.id, force: true },
    ]);
    await waitFor(() => expect(screen.getByTestId('changes-state').textContent).toBe('discarded'));
  });

  it('waits with merge, rebase and discard while its agent is at work in it, saying why', async () => {
    const { backend, agent, task, info } = worktreeOf();
    const other = otherWorktree(backend, agent.id, 'other', [textFile('src/auth/session.ts', 'a', 'b')]);
    // A review's follow-up runs in it: the engine says its agent is at work, though it meets other work too.
    const followUp = backend.seedTask({ profile_id: agent.id, instruction: 'Address the review', state: 'running', worktree: task.id, started_at: 7 });
    const [mine, theirs] = meeting(['src/auth/session.ts'], info, other.info);
    backend.seedWorktree({ ...mine, ...atWork(followUp.id) }, FILES);
    backend.seedWorktree(theirs, [textFile('src/auth/session.ts', 'a', 'b')]);
    await openChanges(backend, task);

    expect(screen.getByTestId('changes-state').textContent).toBe('its agent is at work');
    for (const id of ['changes-merge', 'changes-rebase', 'changes-discard']) {
      const button = screen.getByTestId(id) as HTMLButtonElement;
      expect(button.disabled, id).toBe(true);
      expect(button.title, id).toBe('Its agent is still at work in it: wait for its task to end, or cancel the task.');
    }
    expect((screen.getByTestId('changes-commit') as HTMLButtonElement).disabled).toBe(false);
    expect(screen.getByTestId('changes-at-work').textContent).toBe('Its agent is still at work in it: merging, rebasing and discarding wait until its task ends.');
  });

  it('shows the conflict radar: who else changes which files, and which to merge first', async () => {
    const { backend, agent, task, info } = worktreeOf();
    const otherFiles = [textFile('src/auth/session.ts', 'a', 'b')];
    const { task: other, info: otherInfo } = otherWorktree(backend, agent.id, 'Add remember me', otherFiles);
    // The radar: they change the same files, and the engine advises merging the other first.
    const [first, then] = meeting(['src/auth/session.ts', 'src/util/url.ts'], otherInfo, info);
    backend.seedWorktree(first, otherFiles);
    backend.seedWorktree(then, FILES);
    await openChanges(backend, task);

    const overlap = screen.getByTestId('changes-overlap');
    expect(overlap.getAttribute('data-with')).toBe(other.id);
    expect(within(overlap).getByTestId('changes-overlap-text').textContent).toBe('Also changed by “Add remember me”: src/auth/session.ts, src/util/url.ts. Merge “Add remember me” first, then rebase this one.');
    expect(overlap.querySelector('[data-icon="overlap"]')).not.toBeNull();
    expect(screen.getByTestId('changes-state').textContent).toBe('changes files other work changes');
    expect(screen.getByTestId('changes-rebase').textContent).toBe('Rebase onto main');

    // The other one says it goes first.
    await fireEvent.click(screen.getByTestId('changes-back'));
    const otherTask = (await backend.listTasks(null)).find((t) => t.id === other.id)!;
    await fireEvent.click(screen.getAllByTestId('task-entry').find((e) => e.getAttribute('data-task-id') === otherTask.id)!.querySelector('[data-testid="task-open"]')!);
    await fireEvent.click(await screen.findByTestId('task-changes'));
    await waitFor(() => expect(screen.getByTestId('changes-overlap').textContent).toContain('Merge this one first.'));
  });
});
