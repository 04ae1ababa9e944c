// Quitting the app with a signal (a `kill`, a logout, Ctrl+C in its terminal) is a normal quit:
// its agents are stopped and recorded as killed, not left running or found "interrupted".

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { APP, launchApp } from './driver.mjs';

function childAgent(appPid) {
  try {
    return Number(execFileSync('pgrep', ['-P', String(appPid), '-f', 'switchboard-demo-agent']).toString().trim());
  } catch {
    return null; // pgrep exits 1 when nothing matches
  }
}

async function waitFor(what, probe, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

for (const signal of ['SIGTERM', 'SIGINT']) {
  test(`${signal} stops the agents and records them as killed`, async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-e2e-signal-'));
    try {
      const app = spawn(APP, ['--data-dir', dataDir], { stdio: 'ignore' });
      const exited = new Promise((resolve) => app.on('exit', (code, sig) => resolve({ code, sig })));
      const agent = await waitFor('the demo agent to start', () => childAgent(app.pid));

      app.kill(signal);
      assert.deepEqual(await exited, { code: 0, sig: null }, 'the app quits normally');
      assert.equal(existsSync(`/proc/${agent}`), false, 'the agent is gone');

      // Reopened, the app shows that session as killed (stopped), not interrupted (crashed).
      const { browser, close } = await launchApp({ dataDir, args: ['--no-demo'] });
      try {
        const killed = await browser.$('[data-testid="session-entry"][data-state="killed"]');
        await killed.waitForExist({ timeout: 10_000 });
        assert.equal((await browser.$$('[data-testid="session-entry"][data-state="interrupted"]')).length, 0);
      } finally {
        await close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
}
