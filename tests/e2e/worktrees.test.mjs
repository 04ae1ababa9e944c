// Agents that work apart, in the real window: two agents set to work in worktrees change the
// same file of a git repository; both are marked before either merges. The Changes view shows
// the first one's edit; a comment left on a line reaches its agent as a new task in the same
// worktree; Merge lands the work on the repository's branch, and the user's checkout moves
// only then. The other now conflicts with main: its state says so in the engine's words, and
// Resolve with the agent has its agent merge main in, after which its Merge lands too.
// Set SWITCHBOARD_E2E_SHOTS to a folder to keep the conflict's Changes view at 1280x800 and 820x520.

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
  // Each agent: the demo agent doing what its scenario says for a task holding the words given
  // (a task in a worktree worked in before may reach a fresh session, which counts from one).
  const agent = (name, ...steps) => {
    const scenario = join(dataDir, `${name}.toml`);
    writeFileSync(scenario, `prompt = "agent> "\n${steps.map(([when, s]) => `[[tasks]]\nwhen = "${when}"\nsteps = ${s}\n`).join('')}`);
    cli('agent', 'add', '--name', name, '--command', DEMO_AGENT, '--arg', '--speed', '--arg', 'fast',
      '--arg', '--scenario', '--arg', scenario, '--cwd', repo, '--isolation', 'worktree');
  };
  const writes = (text) => `[{ write_file = { path = "src/price.js", content = "${text}\\n" } }, { summary = "completed" }]`;
  try {
    const app = await launchApp({ dataDir, args: ['--no-demo'] });
    try {
      const { browser } = app;
      agent('pricing', ['reviewed your changes', writes('export const PRICE = 12;')], ['Raise', writes('export const price = 12;')]);
      // Asked to resolve: it merges main in, keeps both sides, and commits the merge.
      const resolves =
        "[{ run = \"git commit -qam 'Lower the price'\" }, { run = \"git merge main\" }, " +
        '{ write_file = { path = "src/price.js", content = "export const PRICE = 12;\\nexport const discounted = 9;\\n" } }, ' +
        '{ run = "git add src/price.js && git commit -q --no-edit" }, { summary = "completed" }]';
      agent('discounts', ['resolve the conflicts', resolves], ['Lower', writes('export const price = 9;')]);
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

      // The other now conflicts with main: said in the engine's words, as `worktree list` says
      // them; merge and rebase wait, and Resolve with the agent is offered.
      const lower = tasks().find((t) => t.instruction === 'Lower the price');
      await (await browser.$(byTestId('changes-back'))).click();
      const lowerEntry = `${byTestId('worktree-entry')}[data-worktree="${lower.id}"]`;
      const lowerState = await browser.$(`${lowerEntry} ${byTestId('worktree-state')}`);
      await waitFor('the other to read conflicting with main', async () =>
        (await lowerState.getText()) === 'conflicts with main now in src/price.js');
      assert.match(cli('worktree', 'list'), /conflicts with main now in src\/price\.js/);
      await (await browser.$(`${lowerEntry} ${byTestId('worktree-open')}`)).click();
      const state = await browser.$(byTestId('changes-state'));
      await waitFor('its state in the Changes view', async () => (await state.getText()) === 'conflicts with main now in src/price.js');
      assert.match(await (await browser.$(byTestId('changes-base-conflict'))).getText(), /src\/price\.js/);
      assert.equal(await (await browser.$(byTestId('changes-merge'))).isEnabled(), false);
      assert.equal(await (await browser.$(byTestId('changes-rebase'))).isEnabled(), false);
      const resolve = await browser.$(byTestId('changes-resolve'));
      assert.equal(await resolve.isEnabled(), true);
      const shots = process.env.SWITCHBOARD_E2E_SHOTS;
      if (shots) {
        // Taken off the display (ImageMagick's `import`): WebKit's own screenshot can stall.
        mkdirSync(shots, { recursive: true });
        for (const [width, height] of [[1280, 800], [820, 520]]) {
          await browser.setWindowSize(width, height);
          await waitFor(`the window at ${width}x${height}`, async () => (await browser.execute(() => window.innerWidth)) <= width);
          execFileSync('import', ['-window', 'root', join(shots, `worktree-conflict-${width}x${height}.png`)]);
        }
        await browser.setWindowSize(1280, 800);
      }

      // Resolve with the agent: a task in that worktree, shown like any task; then merge is offered again.
      await resolve.click();
      const resolved = await waitFor('the resolve task to complete', () =>
        tasks().find((t) => t.title?.startsWith('Resolve conflicts with main') && t.state === 'completed'));
      assert.equal(resolved.worktree, lower.id, 'in the conflicting worktree');
      await waitFor('it reads ready to merge', async () => (await state.getText()) === 'ready to merge');
      assert.equal(await (await browser.$(byTestId('changes-resolve'))).isExisting(), false);
      await (await browser.$(byTestId('changes-merge'))).click();
      await waitFor('its merge said', async () => /Merged/.test(await (await browser.$(byTestId('changes-said-text'))).getText()));
      assert.equal(readFileSync(join(repo, 'src', 'price.js'), 'utf8'), 'export const PRICE = 12;\nexport const discounted = 9;\n');
    } finally {
      await app.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
