// One window per data directory: launching Switchboard again while its window is open brings
// that window forward on what the second launch was asked to open, and the second launch exits;
// no second window or tray icon appears.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { APP, DEMO_AGENT, launchApp, windowPids } from './driver.mjs';

const byTestId = (id) => `[data-testid="${id}"]`;

test('a second launch hands its --open (a task, an agent) to the window already open and exits', async () => {
  const workspace = mkdtempSync(join(tmpdir(), 'switchboard-e2e-ws-'));
  const { browser, dataDir, close } = await launchApp({ args: ['--no-demo'] });
  try {
    const cli = (...args) => JSON.parse(execFileSync(APP, ['--data-dir', dataDir, ...args, '--json'], { encoding: 'utf8' }));
    cli('agent', 'add', '--name', 'Writer', '--command', DEMO_AGENT, '--arg', '--speed', '--arg', 'fast', '--cwd', workspace);
    const task = cli('task', 'add', '--agent', 'Writer', 'Draft the release notes').task.id;
    assert.equal(windowPids(dataDir).length, 1);

    // Before: a second window (and tray icon) opened on the same engine, and this one stayed as it was.
    const second = spawnSync(APP, ['--data-dir', dataDir, '--no-demo', '--open', `task:${task}`], {
      encoding: 'utf8',
      timeout: 30_000,
    });
    assert.equal(second.status, 0, `the second launch: ${second.stderr}`);
    assert.equal(windowPids(dataDir).length, 1, 'still one window');
    const detail = await browser.$(byTestId('task-detail'));
    await detail.waitForExist({ timeout: 15_000, timeoutMsg: 'the window did not open the task' });
    assert.equal(await detail.getAttribute('data-task-id'), task);

    // An agent: the window comes onto it.
    const reviewer = cli('agent', 'add', '--name', 'Reviewer', '--command', DEMO_AGENT, '--cwd', workspace).id;
    const onAgent = spawnSync(APP, ['--data-dir', dataDir, '--no-demo', '--open', `agent:${reviewer}`], {
      encoding: 'utf8',
      timeout: 30_000,
    });
    assert.equal(onAgent.status, 0, `the launch on an agent: ${onAgent.stderr}`);
    await browser.waitUntil(
      async () => (await (await browser.$(byTestId('profile-view'))).getAttribute('data-profile-id')) === reviewer,
      { timeout: 15_000, timeoutMsg: 'the window did not come onto the agent' },
    );
    assert.equal(windowPids(dataDir).length, 1, 'still one window');

    // A plain second launch only brings the window forward.
    const plain = spawnSync(APP, ['--data-dir', dataDir, '--no-demo'], { encoding: 'utf8', timeout: 30_000 });
    assert.equal(plain.status, 0, plain.stderr);
    assert.equal(windowPids(dataDir).length, 1, 'still one window');
  } finally {
    await close();
    rmSync(workspace, { recursive: true, force: true });
  }
});
