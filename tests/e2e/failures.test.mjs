// A failure reads as a failure in the real window: a summary whose Status says FAILED ends its
// task failed, in the agent's own words, with its summary kept.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAgent, launchApp, DEMO_AGENT } from './driver.mjs';

const byTestId = (id) => `[data-testid="${id}"]`;

test('a summary that says FAILED fails its task, badge and reason, the summary kept', async () => {
  const workspace = mkdtempSync(join(tmpdir(), 'switchboard-e2e-ws-'));
  const scenario = join(workspace, 'fails.toml');
  writeFileSync(scenario, '[[tasks]]\nsteps = [{ summary = "failed" }]\n');
  const { browser, close } = await launchApp({ args: ['--no-demo'] });
  try {
    await createAgent(browser, { name: 'migrator', command: DEMO_AGENT, args: `--speed fast --scenario ${scenario}`, cwd: workspace, readyPattern: 'demo> $' });

    await (await browser.$(byTestId('new-task'))).click();
    await (await browser.$(byTestId('task-instruction'))).setValue('Migrate the billing tables');
    await (await browser.$(byTestId('task-submit'))).click();

    // Before: a green "completed" badge reading "completed · failed".
    const failed = await browser.$(`${byTestId('task-entry')}[data-state="failed"]`);
    await failed.waitForExist({ timeout: 30_000, timeoutMsg: 'the task its agent said failed is not listed as failed' });
    assert.equal((await browser.$$(`${byTestId('task-entry')}[data-state="completed"]`)).length, 0);
    await (await failed.$(byTestId('task-open'))).click();
    const detail = await browser.$(byTestId('task-detail'));
    await detail.waitForExist({ timeout: 10_000 });
    assert.match(await (await browser.$(byTestId('task-reason'))).getText(), /the agent says it failed: the scripted demo agent was told to fail this task/);
    assert.match(await (await browser.$(byTestId('task-summary'))).getText(), /FAILED/);
  } finally {
    await close();
    rmSync(workspace, { recursive: true, force: true });
  }
});
