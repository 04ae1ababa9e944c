// Throwaway: screenshots of broken worktrees (not committed).
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { APP, DEMO_AGENT, launchApp } from './driver.mjs';
const byTestId = (id) => `[data-testid="${id}"]`;
async function waitFor(what, probe, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) { const v = await probe(); if (v) return v; if (Date.now() > deadline) throw new Error(what); await sleep(100); }
}
const git = (cwd, ...args) => execFileSync('git', ['-C', cwd, ...args]).toString().trim();
const dataDir = mkdtempSync(join(tmpdir(), 'shots-'));
const repo = join(dataDir, 'shop');
mkdirSync(join(repo, 'src'), { recursive: true });
writeFileSync(join(repo, 'src', 'price.js'), 'export const price = 10;\n');
git(repo, 'init', '--quiet', '-b', 'main'); git(repo, 'config', 'user.email', 'd@e.com'); git(repo, 'config', 'user.name', 'D');
git(repo, 'add', '-A'); git(repo, 'commit', '--quiet', '-m', 'start');
const cli = (...args) => execFileSync(APP, ['--data-dir', dataDir, ...args]).toString();
const tasks = () => JSON.parse(cli('task', 'list', '--json'));
const agent = (name, text) => {
  const scenario = join(dataDir, `${name}.toml`);
  writeFileSync(scenario, `prompt = "agent> "\n[[tasks]]\nsteps = [{ write_file = { path = "src/price.js", content = "${text}\\n" } }, { summary = "completed" }]\n`);
  cli('agent', 'add', '--name', name, '--command', DEMO_AGENT, '--arg', '--speed', '--arg', 'fast', '--arg', '--scenario', '--arg', scenario, '--cwd', repo, '--isolation', 'worktree');
};
const app = await launchApp({ dataDir, args: ['--no-demo'] });
const { browser } = app;
try {
  agent('pricing', 'export const price = 12;');
  agent('discounts', 'export const price = 9;');
  cli('task', 'add', '--agent', 'pricing', 'Raise the price');
  cli('task', 'add', '--agent', 'discounts', 'Lower the price');
  await waitFor('done', () => { const all = tasks(); return all.length === 2 && all.every((t) => t.state === 'completed'); });
  const wts = JSON.parse(cli('worktree', 'list', '--json'));
  // Tamper with one: its .git points at the user's repository; delete the other's branch.
  writeFileSync(join(wts[0].path, '.git'), `gitdir: ${join(repo, '.git')}\n`);
  rmSync(join(wts[1].path, '.git'));
  await sleep(3000);
  await browser.saveScreenshot(`/tmp/shots/start.png`); console.log("shot start");
  await (await browser.$(byTestId('open-worktrees'))).click();
  console.log('clicked');
  for (let i = 0; i < 10; i++) {
    const t0 = Date.now();
    const r = await Promise.race([browser.execute(() => document.body.innerText.slice(0, 2000)), sleep(5000).then(() => 'TIMEOUT')]);
    console.log('probe', i, Date.now() - t0, JSON.stringify(r).slice(0, 1500));
    if (r !== 'TIMEOUT') break;
  }
  await browser.saveScreenshot(`/tmp/shots/worktrees.png`); console.log('shot wt');
  console.log(cli('worktree', 'list'));
} finally { await app.close(); }
