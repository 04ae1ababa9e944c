// Agents that work apart, in the real window: two agents set to work in worktrees change the
// same file of a git repository; both are marked before either merges. The Changes view shows
// the first one's edit; a comment left on a line reaches its agent as a new task in the same
// worktree; Merge lands the work on the repository's branch, and the user's checkout moves
// only then.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { APP, DEMO_AGENT, launchApp } from './driver.mjs';

const byTestId = (id) => `[data-testid="${id}"]`;

async function waitFor(what, probe, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

const git = (cwd, ...args) => execFileSync('git', ['-C', cwd, ...args]).toString().trim();

test('two agents in worktrees are marked when they change the same file; a comment goes back as a task; Merge lands the work', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-e2e-worktrees-'));
  const repo = join(dataDir, 'shop');
  mkdirSync(join(repo, 'src'), { recursive: true });
  writeFileSync(join(repo, 'src', 'price.js'), 'export const price = 10;\n');
  git(repo, 'init', '--quiet', '-b', 'main');
  git(repo, 'config', 'user.email', 'dev@example.com');
  git(repo, 'config', 'user.name', 'Dev');
  git(repo, 'add', '-A');
  git(repo, 'commit', '--quiet', '-m', 'start');
  const cli = (...args) => execFileSync(APP, ['--data-dir', dataDir, ...args]).toString();
  const tasks = () => JSON.parse(cli('task', 'list', '--json'));
  // Each agent: the demo agent doing what its scenario says for its first task, then its second.
  const agent = (name, ...steps) => {
    const scenario = join(dataDir, `${name}.toml`);
    writeFileSync(scenario, `prompt = "agent> "\n${steps.map((s) => `[[tasks]]\nsteps = ${s}\n`).join('')}`);
    cli('agent', 'add', '--name', name, '--command', DEMO_AGENT, '--arg', '--speed', '--arg', 'fast',
      '--arg', '--scenario', '--arg', scenario, '--cwd', repo, '--isolation', 'worktree');
  };
  const writes = (text) => `[{ write_file = { path = "src/price.js", content = "${text}\\n" } }, { summary = "completed" }]`;
  try {
    const app = await launchApp({ dataDir, args: ['--no-demo'] });
    try {
      const { browser } = app;
      agent('pricing', writes('export const price = 12;'), writes('export const PRICE = 12;'));
      agent('discounts', writes('export const price = 9;'));
      cli('task', 'add', '--agent', 'pricing', 'Raise the price');
      cli('task', 'add', '--agent', 'discounts', 'Lower the price');
      await waitFor('both tasks to complete', () => {
        const all = tasks();
        return all.length === 2 && all.every((t) => t.state === 'completed');
      });
      const raise = tasks().find((t) => t.instruction === 'Raise the price');

      // The sidebar counts the worktrees and that they meet; the list marks both.
      const meeting = await browser.$(byTestId('open-worktrees-meeting'));
      await meeting.waitForExist({ timeout: 15_000 });
      await (await browser.$(byTestId('open-worktrees'))).click();
      await waitFor('both worktrees marked as meeting', async () => {
        const marks = await browser.$$(`${byTestId('worktree-entry')} ${byTestId('worktree-overlap-mark')}`);
        return marks.length === 2;
      });
      assert.equal(readFileSync(join(repo, 'src', 'price.js'), 'utf8'), 'export const price = 10;\n', 'nothing merged yet');

      // The Changes view of the first: its file, its diff, the overlap with the other.
      const entry = await browser.$(`${byTestId('worktree-entry')}[data-worktree="${raise.id}"] ${byTestId('worktree-open')}`);
      await entry.click();
      const file = await browser.$(byTestId('changes-file'));
      await file.waitForExist({ timeout: 15_000 });
      assert.match(await file.getText(), /src\/price\.js/);
      assert.match(await (await browser.$(byTestId('changes-file-status'))).getText(), /changed/);
      const diff = await browser.$(byTestId('changes-diff'));
      await waitFor('the diff drawn', async () => /price = 12/.test(await diff.getText()));
      assert.match(await (await browser.$(byTestId('changes-overlap-text'))).getText(), /Lower the price/);

      // A comment on a line of the new text goes back to the agent as a task in its worktree.
      const lineButton = await browser.$(`${byTestId('diff-comment-line')}[data-side="after"]`);
      await lineButton.waitForExist({ timeout: 10_000 });
      await lineButton.click();
      const text = await browser.$(byTestId('changes-comment-text'));
      await text.waitForExist();
      await text.setValue('Name the constant in capitals');
      await (await browser.$(byTestId('changes-send'))).click();
      const review = await waitFor('the review task to complete', () =>
        tasks().find((t) => t.title?.startsWith('Review of') && t.state === 'completed'));
      assert.match(review.instruction, /src\/price\.js, line 1:\n> Name the constant in capitals/);
      assert.equal(review.worktree, raise.id, 'in the same worktree');
      await waitFor('the diff to show the reviewed text', async () => /PRICE = 12/.test(await diff.getText()));

      // Merge lands it on main: the user's checkout moves now.
      await (await browser.$(byTestId('changes-merge'))).click();
      const said = await browser.$(byTestId('changes-said-text'));
      await waitFor('the merge said', async () => /Merged/.test(await said.getText()));
      assert.equal(readFileSync(join(repo, 'src', 'price.js'), 'utf8'), 'export const PRICE = 12;\n');
      assert.equal(git(repo, 'log', '--format=%s', '-1'), 'Raise the price');
    } finally {
      await app.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
