// Agents outlive the window: the engine runs as a daemon of its own that the window starts and
// attaches to. Killing the window mid-task leaves the agent working; the task completes with no
// window open, and the window opened again shows it completed, with the output written
// meanwhile. Quitting the window with a signal is a normal quit of the window alone.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { APP, DEMO_AGENT, launchApp, stopEngine, terminalText, waitForTerminalText, windowPids } from './driver.mjs';

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

function engineStatus(dataDir) {
  return JSON.parse(spawnSync(APP, ['--data-dir', dataDir, 'daemon', '--status', '--json'], { encoding: 'utf8' }).stdout);
}

function tasks(dataDir) {
  return JSON.parse(execFileSync(APP, ['--data-dir', dataDir, 'task', 'list', '--json']).toString());
}

test('an agent goes on working when its window is killed, and the window opened again shows what it did', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-e2e-outlive-'));
  const workspace = join(dataDir, 'work');
  mkdirSync(workspace);
  try {
    const first = await launchApp({ dataDir, args: ['--no-demo'] });
    // A slow agent: the task is still at work when the window goes.
    execFileSync(APP, ['--data-dir', dataDir, 'agent', 'add', '--name', 'writer', '--command', DEMO_AGENT, '--arg', '--speed', '--arg', '400', '--cwd', workspace]);
    execFileSync(APP, ['--data-dir', dataDir, 'task', 'add', '--agent', 'writer', 'Draft the release notes']);
    await waitFor('the task to be at work', () => tasks(dataDir)[0]?.state === 'running');
    const engine = engineStatus(dataDir);
    assert.equal(engine.running, true, 'the window started the engine');

    const [window] = windowPids(dataDir);
    assert.ok(window && window !== engine.pid, 'the window is a process of its own');
    process.kill(window, 'SIGKILL');
    await waitFor('the window to be gone', () => windowPids(dataDir).length === 0);
    await first.close({ keepEngine: true }).catch(() => {});

    // No window: the task completes all the same, its summary arrives.
    const done = await waitFor('the task to complete with no window', () => {
      const [task] = tasks(dataDir);
      return task?.state === 'completed' ? task : null;
    });
    assert.ok(existsSync(join(workspace, 'summaries', `${done.id}.md`)), 'its summary arrived');
    assert.equal(engineStatus(dataDir).pid, engine.pid, 'the same engine ran on');

    // Opened again: the task completed, and the terminal shows what the agent wrote meanwhile.
    const again = await launchApp({ dataDir, args: ['--no-demo'] });
    try {
      const { browser } = again;
      // It opens on the agent's running session, its tasks beside it.
      const completed = await browser.$(`${byTestId('task-entry')}[data-state="completed"]`);
      await completed.waitForExist({ timeout: 15_000 });
      // Written after the window was killed: the engine kept it, and the window replays it.
      await waitForTerminalText(browser, 'done');
      assert.match(await terminalText(browser), /Draft the release notes/);
      assert.equal(engineStatus(dataDir).pid, engine.pid, 'the window attached to the engine that ran');
    } finally {
      await again.close();
    }
    assert.equal(engineStatus(dataDir).running, false, 'closing the test stopped the engine');
  } finally {
    stopEngine(dataDir);
    rmSync(dataDir, { recursive: true, force: true });
  }
});

for (const signal of ['SIGTERM', 'SIGINT']) {
  test(`${signal} quits the window normally and leaves its agents running`, async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-e2e-signal-'));
    try {
      const app = spawn(APP, ['--data-dir', dataDir], { stdio: 'ignore' });
      const exited = new Promise((resolve) => app.on('exit', (code, sig) => resolve({ code, sig })));
      await waitFor('the demo agent to run in the engine', () => engineStatus(dataDir).agents === 1);
      app.kill(signal);
      assert.deepEqual(await exited, { code: 0, sig: null }, 'the window quits normally');
      const status = engineStatus(dataDir);
      assert.equal(status.running, true, 'the engine runs on');
      assert.equal(status.agents, 1, 'and so does its agent');
    } finally {
      stopEngine(dataDir);
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
}

test('when the engine is killed the window starts it again by itself, says so, and shows the engine anew', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-e2e-crash-'));
  try {
    const { browser, close } = await launchApp({ dataDir });
    try {
      await waitForTerminalText(browser, 'demo>');
      const engine = engineStatus(dataDir);
      process.kill(engine.pid, 'SIGKILL');

      // Killed, not stopped by the user: the window starts it again after a short pause, and says so.
      await waitFor('a new engine', () => {
        const now = engineStatus(dataDir);
        return now.running && now.answering && now.pid !== engine.pid;
      });
      const said = () => browser.execute(() => document.querySelector('[data-testid="engine-link-banner"]')?.textContent ?? '');
      await browser.waitUntil(async () => (await said()).includes('The engine stopped unexpectedly, and the window started it again.'), {
        timeout: 15_000,
        timeoutMsg: 'the window did not say it started the engine again',
      });
      await (await browser.$(byTestId('engine-link-action'))).click();
      // Back: the window loads everything anew; the demo agent, which starts with the engine,
      // runs again, and its terminal is live.
      await browser.waitUntil(async () => !(await (await browser.$(byTestId('engine-link-banner'))).isExisting()), {
        timeout: 15_000,
        timeoutMsg: 'the note stayed once read',
      });
      await (await browser.$(`${byTestId('session-entry')}[data-state="running"]`)).waitForExist({ timeout: 15_000 });
      await waitForTerminalText(browser, 'demo>');
    } finally {
      await close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
