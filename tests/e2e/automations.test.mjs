// Automations in the real window: an automation made in its form on the agent's page, on a
// schedule of every 2h, is listed in the Automations view with its next run as its engine
// worked it out; "Run now" queues its task, which shows in its history and opens as any task;
// paused, it says so in its detail, in the list and on the command line.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { APP, DEMO_AGENT, launchApp } from './driver.mjs';

const byTestId = (id) => `[data-testid="${id}"]`;
const TWO_HOURS = 2 * 3600_000;

async function waitFor(browser, what, probe, timeout = 30_000) {
  let value;
  await browser.waitUntil(async () => (value = await probe()), { timeout, interval: 100, timeoutMsg: `${what} did not happen` });
  return value;
}

const textOf = async (element) => (await element.getProperty('textContent')).trim();

test('an automation made in the form runs on its schedule, runs now into its history, and pauses', async () => {
  const workspace = mkdtempSync(join(tmpdir(), 'switchboard-e2e-ws-'));
  const { browser, dataDir, close } = await launchApp({ args: ['--no-demo'] });
  const cli = (...args) => execFileSync(APP, ['--data-dir', dataDir, ...args], { encoding: 'utf8' });
  try {
    // A scripted agent that completes each task it is given.
    cli('agent', 'add', '--name', 'coder', '--command', DEMO_AGENT, '--arg', '--speed', '--arg', 'fast', '--cwd', workspace);
    const agent = await browser.$(`${byTestId('profile-entry')}[data-profile-name="coder"]`);
    await agent.waitForExist({ timeout: 15_000 });
    await (await agent.$(byTestId('profile-select'))).click();
    await (await browser.$(byTestId('agent-automations-none'))).waitForExist({ timeout: 10_000 });

    // Made in its form, from the agent's page.
    await (await browser.$(byTestId('agent-automation-new'))).click();
    await (await browser.$(byTestId('automation-form'))).waitForExist({ timeout: 10_000 });
    const made = Date.now();
    await (await browser.$(byTestId('automation-every'))).setValue('2h');
    await (await browser.$(byTestId('automation-text'))).setValue('Summarise the open issues');
    await (await browser.$(byTestId('automation-submit'))).click();
    const detail = await browser.$(byTestId('automation-detail'));
    await detail.waitForExist({ timeout: 10_000 });
    assert.equal(await textOf(await browser.$(byTestId('automation-detail-when'))), 'every 2h');
    assert.equal(await textOf(await browser.$(byTestId('automation-detail-agent'))), 'coder');
    assert.equal(await textOf(await browser.$(byTestId('automation-no-runs'))), 'No run yet.');

    // Listed, with the next run its engine worked out: two hours from when it was made.
    await (await browser.$(byTestId('automation-detail-close'))).click();
    await (await browser.$(byTestId('open-automations'))).click();
    const entry = await browser.$(byTestId('automation-entry'));
    await entry.waitForExist({ timeout: 10_000 });
    assert.equal(await textOf(await entry.$(byTestId('automation-name'))), 'Summarise the open issues');
    assert.equal(await textOf(await entry.$(byTestId('automation-agent'))), 'coder');
    assert.equal(await textOf(await entry.$(byTestId('automation-when'))), 'every 2h');
    assert.equal(await textOf(await entry.$(byTestId('automation-last'))), 'last: not run yet');
    const next = await entry.$(byTestId('automation-next'));
    const nextRun = Number(await next.getAttribute('data-next-run'));
    assert.ok(nextRun >= made + TWO_HOURS - 60_000 && nextRun <= Date.now() + TWO_HOURS + 60_000, `its next run is two hours on: ${new Date(nextRun).toISOString()}`);
    assert.match(await textOf(next), /^next: .*\d\d?[:.]\d\d/);
    assert.match(await textOf(await browser.$(byTestId('automations-engine-note'))), /only while the engine runs/);

    // Run now: its task is queued on coder, shown in its history, and opens as any task does.
    await (await entry.$(byTestId('automation-open'))).click();
    await detail.waitForExist({ timeout: 10_000 });
    await (await browser.$(byTestId('automation-run-now'))).click();
    const taskRun = await browser.$(`${byTestId('automation-run')}[data-outcome="task"]`);
    await taskRun.waitForExist({ timeout: 15_000, timeoutMsg: 'no run with a task in its history' });
    assert.equal(await textOf(await taskRun.$(byTestId('automation-run-reason'))), 'run now');
    const state = await taskRun.$(byTestId('automation-run-task-state'));
    await waitFor(browser, 'its task to complete', async () => (await state.getAttribute('data-state')) === 'completed');
    await (await taskRun.$(byTestId('automation-run-task'))).click();
    const task = await browser.$(byTestId('task-detail'));
    await task.waitForExist({ timeout: 10_000 });
    assert.match(await task.getText(), /Summarise the open issues/);
    await (await browser.$(byTestId('task-detail-close'))).click();
    assert.match(await textOf(await entry.$(byTestId('automation-last'))), /· task completed$/);

    // Paused: its detail, its entry and the command line say so.
    await (await entry.$(byTestId('automation-open'))).click();
    await (await browser.$(byTestId('automation-pause'))).click();
    await waitFor(browser, 'it to read paused', async () => (await detail.getAttribute('data-state')) === 'paused');
    assert.equal(await textOf(await browser.$(byTestId('automation-detail-state-words'))), 'paused by you');
    assert.equal(await textOf(await browser.$(byTestId('automation-detail-next'))), 'paused');
    assert.ok(await (await browser.$(byTestId('automation-resume'))).isExisting(), 'it offers to resume');
    assert.equal(await entry.getAttribute('data-state'), 'paused');
    assert.equal(await textOf(await entry.$(byTestId('automation-next'))), 'next: paused');
    assert.equal(await textOf(await entry.$(byTestId('automation-why'))), 'paused by you');
    const [listed] = JSON.parse(cli('automation', 'list', '--json'));
    assert.equal(listed.state, 'paused');
    assert.equal(listed.history.length, 1);
  } finally {
    await close();
    rmSync(workspace, { recursive: true, force: true });
  }
});
