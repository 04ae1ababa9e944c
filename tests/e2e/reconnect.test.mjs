// After the engine comes back, the window shows what is, not what was. The engine is stopped
// under an open window and started again from its banner: the window loads anew (the agent that
// stopped reads stopped, the task the stop interrupted reads as the engine says), and a start of
// an agent already running, sent as from a view that missed it all, is refused in words. An engine
// that dies (killed, not stopped) is started again by the window by itself, which says so.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { APP, DEMO_AGENT, launchApp, stopEngine } from './driver.mjs';

async function waitFor(what, probe, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

const cli = (dataDir, ...args) => spawnSync(APP, ['--data-dir', dataDir, ...args], { encoding: 'utf8' });
const engineStatus = (dataDir) => JSON.parse(cli(dataDir, 'daemon', '--status', '--json').stdout);
const tasks = (dataDir) => JSON.parse(cli(dataDir, 'task', 'list', '--json').stdout);

// What the window shows, read in one step in the page (its lists are drawn anew as events come).
const shown = (browser) =>
  browser.execute(() => ({
    banner: document.querySelector('[data-testid="engine-link-banner"]')?.textContent ?? null,
    bannerState: document.querySelector('[data-testid="engine-link-banner"]')?.getAttribute('data-state') ?? null,
    running: [...document.querySelectorAll('[data-testid="session-entry"][data-state="running"]')].map((e) => e.getAttribute('data-session-id')),
    tasks: Object.fromEntries(
      [...document.querySelectorAll('[data-testid="task-entry"]')].map((e) => [e.textContent.trim(), e.getAttribute('data-state')]),
    ),
  }));

// The window's task states by title, as far as the window lists them, against the engine's.
function sameTasks(window, engine) {
  return engine.every((task) => Object.entries(window).some(([title, state]) => title.includes(task.title ?? task.instruction) && state === task.state));
}

test('after the engine comes back the window shows what is; a start from a stale view is refused; a dead engine is started again', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-e2e-reconnect-'));
  const workspace = join(dataDir, 'work');
  mkdirSync(workspace);
  const { browser, close } = await launchApp({ dataDir, args: ['--no-demo'] });
  try {
    // A slow agent: its task is at work when the engine stops.
    execFileSync(APP, ['--data-dir', dataDir, 'agent', 'add', '--name', 'writer', '--command', DEMO_AGENT, '--arg', '--speed', '--arg', '400', '--cwd', workspace]);
    execFileSync(APP, ['--data-dir', dataDir, 'task', 'add', '--agent', 'writer', 'Draft the release notes']);
    await waitFor('the task to be at work', () => tasks(dataDir)[0]?.state === 'running');
    const [first] = await waitFor('the window to show the agent running', async () => {
      const now = await shown(browser);
      return now.running.length === 1 ? now.running : null;
    });

    // Stopped by the user: the window says so and waits for the user.
    const stopped = cli(dataDir, 'daemon', '--stop');
    assert.equal(stopped.status, 0, stopped.stderr);
    const lost = await waitFor('the banner to say the engine stopped', async () => {
      const now = await shown(browser);
      return now.bannerState === 'lost' ? now : null;
    });
    assert.match(lost.banner, /The engine was stopped\./);
    assert.equal(engineStatus(dataDir).running, false, 'an engine the user stopped is not started behind their back');

    // Started from the banner: the window loads anew and matches the engine.
    await (await browser.$('[data-testid="engine-link-action"]')).click();
    await waitFor('the engine to answer', () => engineStatus(dataDir).answering);
    let seen = null;
    const after = await waitFor('the window to match the engine', async () => {
      const now = await shown(browser);
      const engine = tasks(dataDir);
      const agents = engineStatus(dataDir).agents;
      seen = { window: now, engine: engine.map((t) => [t.title ?? t.instruction, t.state]), agents };
      return now.banner === null && now.running.length === agents && sameTasks(now.tasks, engine) ? now : null;
    }).catch((error) => {
      throw new Error(`${error.message}: ${JSON.stringify(seen)}`);
    });
    assert.ok(!after.running.includes(first), 'the session the stop ended no longer reads running');

    // A new task starts the agent again; a start sent from a view that still believed it stopped is refused.
    execFileSync(APP, ['--data-dir', dataDir, 'task', 'add', '--agent', 'writer', 'Proofread the changelog']);
    await waitFor('the new task to be at work', () => tasks(dataDir).some((t) => (t.title ?? t.instruction).includes("Proofread") && t.state === 'running'));
    const [live] = await waitFor('the window to show the new session running', async () => {
      const now = await shown(browser);
      return now.running.length === 1 ? now.running : null;
    });
    assert.notEqual(live, first);
    const profileId = await browser.execute(() => document.querySelector('[data-testid="profile-entry"]')?.getAttribute('data-profile-id'));
    const refused = await browser.executeAsync((profileId, done) => {
      window.__TAURI_INTERNALS__
        .invoke('engine_call', { command: { type: 'start_session', profile_id: profileId, size: { rows: 24, cols: 80 } } })
        .then(() => done(null), (error) => done(error?.message ?? String(error)));
    }, profileId);
    assert.match(refused ?? 'it started', /writer already has a session running in its folder/);
    assert.equal(engineStatus(dataDir).agents, 1, 'no second copy of the agent runs');

    // Killed: the window starts it again by itself, and says so.
    const killed = engineStatus(dataDir).pid;
    process.kill(killed, 'SIGKILL');
    const back = await waitFor('the window to start the engine again', async () => {
      const status = engineStatus(dataDir);
      const now = await shown(browser);
      return status.running && status.pid !== killed && now.banner?.includes('started it again') ? now : null;
    });
    assert.match(back.banner, /The engine stopped unexpectedly, and the window started it again\./);
    await (await browser.$('[data-testid="engine-link-action"]')).click();
    await waitFor('the note to go once read', async () => (await shown(browser)).banner === null);
  } finally {
    await close();
    stopEngine(dataDir);
    rmSync(dataDir, { recursive: true, force: true });
  }
});
