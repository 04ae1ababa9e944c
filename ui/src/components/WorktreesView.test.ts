import { fireEvent, screen, waitFor, within } from '@testing-library/svelte';
import { describe, expect, it } from 'vitest';
import type { FileDiff, ProfileId, TaskInfo, WorktreeInfo } from '../lib/bindings';
import { FakeBackend } from '../lib/fakeBackend';
import { taskTitle } from '../lib/tasks';
import { callsOf, renderApp } from '../test/render';
import { conflictsWithBase, meeting, MERGED, textFile, worktree } from '../test/worktrees';

/** A task's worktree in /work/shop as the engine reports it, ready to merge with `files` changed unless `overrides` say otherwise. */
function shopWorktree(task: TaskInfo, agent: { id: ProfileId; name: string }, files: FileDiff[], overrides: Partial<WorktreeInfo> = {}): WorktreeInfo {
  return worktree(task.id, { title: taskTitle(task), profile_id: agent.id, agent: agent.name, branch: `switchboard/${agent.name}/${task.id}`, files_changed: files.length, ...overrides });
}

/** Two agents working apart in one repository, their worktrees meeting in a file, and one merged. */
function shop() {
  const backend = new FakeBackend({ repositories: [{ root: '/work/shop' }] });
  const builder = backend.seedProfile({ name: 'builder', cwd: '/work/shop', isolation: 'worktree' });
  const fixer = backend.seedProfile({ name: 'fixer', cwd: '/work/shop', isolation: 'worktree' });
  const login = backend.seedTask({ profile_id: builder.id, instruction: 'Fix the login redirect', state: 'completed', ended_at: 5 });
  const remember = backend.seedTask({ profile_id: fixer.id, instruction: 'Add remember me', state: 'completed', ended_at: 6 });
  const typo = backend.seedTask({ profile_id: fixer.id, instruction: 'Fix a typo', state: 'completed', ended_at: 2 });
  const loginFiles = [textFile('src/auth/session.ts', 'a', 'b'), textFile('src/util/url.ts', '', 'c')];
  const rememberFiles = [textFile('src/auth/session.ts', 'a', 'd')];
  // The radar: both change src/auth/session.ts, and the engine advises merging the login fix first.
  const [first, then] = meeting(
    ['src/auth/session.ts'],
    shopWorktree(login, builder, loginFiles, { branch: 'switchboard/builder/fix-the-login-redirect', created_at: 10 }),
    shopWorktree(remember, fixer, rememberFiles, { branch: 'switchboard/fixer/add-remember-me', created_at: 20 }),
  );
  // Listed by the engine in no particular order: the window orders them.
  backend.seedWorktree(shopWorktree(typo, fixer, [], { created_at: 1, ...MERGED }));
  backend.seedWorktree(then, rememberFiles);
  backend.seedWorktree(first, loginFiles);
  return { backend, builder, fixer, login, remember, typo };
}

const entries = () => screen.getAllByTestId('worktree-entry');
const entryOf = (task: string) => entries().find((e) => e.getAttribute('data-worktree') === task)!;

describe('the worktrees', () => {
  it('lists every worktree with its agent, task, branch, state and files, marking those that meet other work', async () => {
    const { backend, login, remember, typo } = shop();
    await renderApp(backend);
    const open = screen.getByTestId('open-worktrees');
    expect(within(open).getByTestId('open-worktrees-count').textContent).toBe('2');
    expect(within(open).getByTestId('open-worktrees-meeting').textContent?.trim()).toBe('2');
    await fireEvent.click(open);

    expect(screen.getByTestId('worktrees-view')).toBeTruthy();
    // The open ones, oldest first; the merged one folded away after them.
    expect(entries().map((e) => e.getAttribute('data-worktree'))).toEqual([login.id, remember.id, typo.id]);
    const first = entryOf(login.id);
    expect(first.textContent).toContain('Fix the login redirect');
    expect(first.textContent).toContain('builder');
    expect(first.textContent).toContain('switchboard/builder/fix-the-login-redirect from main');
    expect(within(first).getByTestId('worktree-state').textContent).toBe('changes files other work changes');
    expect(within(first).getByTestId('worktree-files').textContent).toBe('2 files changed');
    expect(within(first).getByTestId('worktree-overlap').textContent).toBe('Also changed by “Add remember me”: src/auth/session.ts. Merge this one first.');
    expect(within(first).getByTestId('worktree-overlap-mark').querySelector('[data-icon="overlap"]')).not.toBeNull();
    expect(within(entryOf(remember.id)).getByTestId('worktree-overlap').textContent).toBe(
      'Also changed by “Fix the login redirect”: src/auth/session.ts. Merge “Fix the login redirect” first, then rebase this one.',
    );
    const merged = entryOf(typo.id);
    expect(within(merged).getByTestId('worktree-state').textContent).toBe('merged');
    expect(within(merged).queryByTestId('worktree-overlap-mark')).toBeNull();
    expect(screen.getByTestId('worktrees-closed').textContent).toBe('Merged and discarded (1)');
  });

  it("opens a worktree's changes, and goes back to the list", async () => {
    const { backend, remember } = shop();
    await renderApp(backend);
    await fireEvent.click(screen.getByTestId('open-worktrees'));
    await fireEvent.click(within(entryOf(remember.id)).getByTestId('worktree-open'));

    const view = await screen.findByTestId('changes-view');
    expect(view.getAttribute('data-worktree')).toBe(remember.id);
    await waitFor(() => expect(screen.getAllByTestId('changes-file').map((f) => f.getAttribute('data-path'))).toEqual(['src/auth/session.ts']));
    expect(callsOf(backend, 'worktree_diff')).toEqual([{ worktree: remember.id }]);

    await fireEvent.click(screen.getByTestId('changes-back'));
    expect(screen.queryByTestId('changes-view')).toBeNull();
    expect(screen.getByTestId('worktrees-view')).toBeTruthy();
  });

  it('follows the engine: a worktree merged elsewhere moves down, and one whose lines it changed now conflicts with main', async () => {
    const { backend, login, remember } = shop();
    await renderApp(backend);
    await fireEvent.click(screen.getByTestId('open-worktrees'));
    await backend.mergeWorktree(login.id);
    // The radar reads the other again: the lines it changed differ on main now.
    backend.changeWorktree(remember.id, conflictsWithBase('main', 'src/auth/session.ts'));
    await waitFor(() => expect(within(entryOf(login.id)).getByTestId('worktree-state').textContent).toBe('merged'));
    expect(within(entryOf(remember.id)).queryByTestId('worktree-overlap-mark')).toBeNull();
    expect(within(entryOf(remember.id)).getByTestId('worktree-state').textContent).toBe('conflicts with main now in src/auth/session.ts');
    expect(within(screen.getByTestId('open-worktrees')).queryByTestId('open-worktrees-meeting')).toBeNull();
  });

  it("marks the tasks whose worktree meets other work in the agent's task list, and their detail offers the changes", async () => {
    const { backend, builder, login } = shop();
    const alone = backend.seedTask({ profile_id: builder.id, instruction: 'Write the docs', state: 'completed', ended_at: 7 });
    const aloneFiles = [textFile('docs/a.md', '', 'x')];
    backend.seedWorktree(shopWorktree(alone, builder, aloneFiles), aloneFiles);
    const plain = backend.seedTask({ profile_id: builder.id, instruction: 'Before it worked apart', state: 'completed', ended_at: 1 });
    await renderApp(backend);
    await fireEvent.click(screen.getAllByTestId('profile-select')[0]);

    const row = (id: string) => screen.getAllByTestId('task-entry').find((e) => e.getAttribute('data-task-id') === id)!;
    await waitFor(() => expect(within(row(login.id)).queryByTestId('task-overlap-mark')).not.toBeNull());
    expect(within(row(login.id)).getByTestId('task-overlap-mark').querySelector('[data-icon="overlap"]')?.getAttribute('aria-label')).toBe(
      'Its worktree changes files another worktree changes too',
    );
    expect(within(row(alone.id)).queryByTestId('task-overlap-mark')).toBeNull();
    expect(within(row(plain.id)).queryByTestId('task-overlap-mark')).toBeNull();

    await fireEvent.click(within(row(plain.id)).getByTestId('task-open'));
    expect(screen.queryByTestId('task-changes')).toBeNull();
    await fireEvent.click(within(row(login.id)).getByTestId('task-open'));
    expect(screen.getByTestId('task-worktree').textContent).toContain('switchboard/builder/fix-the-login-redirect · changes files other work changes · 2 files changed');
    await fireEvent.click(screen.getByTestId('task-changes'));
    expect((await screen.findByTestId('changes-view')).getAttribute('data-worktree')).toBe(login.id);
    expect(screen.queryByTestId('task-detail')).toBeNull();
  });
});
