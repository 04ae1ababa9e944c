// The window tells the truth at a glance: a question waiting for the user shows as "needs you"
// on the agent, on its task's card and on the dashboard, and its dialog opens from each; a
// queued task is counted in the sidebar, the task panel and the dashboard; the command palette
// drives a new task to completion with the keyboard only.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { APP, DEMO_AGENT, ROOT, launchApp } from './driver.mjs';

const byTestId = (id) => `[data-testid="${id}"]`;
const agentEntry = (name) => `${byTestId('profile-entry')}[data-profile-name="${name}"]`;
const dashboardCard = (name) => `${byTestId('dashboard-card')}[data-profile-name="${name}"]`;

function cli(dataDir, ...args) {
  return execFileSync(APP, ['--data-dir', dataDir, ...args], { encoding: 'utf8' });
}

async function waitForAttribute(browser, selector, name, value, what) {
  const element = await browser.$(selector);
  await browser.waitUntil(async () => (await element.isExisting()) && (await element.getAttribute(name)) === value, {
    timeout: 15_000,
    timeoutMsg: `${what}: ${selector} [${name}] is not ${value}`,
  });
  return element;
}

/** Opens the question's dialog with `open`, checks it is that question, and closes it. */
async function dialogFrom(browser, open, signalId, where) {
  await open();
  const dialog = await browser.$(byTestId('signal-dialog'));
  await dialog.waitForExist({ timeout: 5_000, timeoutMsg: `no dialog from ${where}` });
  assert.equal(await dialog.getAttribute('data-signal-id'), signalId, `the dialog from ${where} shows the waiting question`);
  await (await browser.$(byTestId('signal-close'))).click();
  await dialog.waitForExist({ reverse: true, timeout: 5_000 });
}

test('a waiting question shows as needs-you everywhere, with its dialog one click away, and a queued task is counted everywhere', async () => {
  const workspace = mkdtempSync(join(tmpdir(), 'switchboard-e2e-ws-'));
  const { browser, dataDir, close } = await launchApp({ args: ['--no-demo'] });
  try {
    const scenario = join(ROOT, 'tests/fixtures/scenarios/clarify-then-deliver.toml');
    cli(dataDir, 'agent', 'add', '--name', 'asker', '--command', DEMO_AGENT, '--cwd', workspace,
      '--arg', '--speed', '--arg', 'fast', '--arg', '--scenario', '--arg', scenario);
    cli(dataDir, 'task', 'add', '--agent', 'asker', 'Review the auth module');
    cli(dataDir, 'task', 'add', '--agent', 'asker', 'Write the release notes');

    const question = await browser.$(`${byTestId('attention-entry')}[data-kind="clarification"]`);
    await question.waitForExist({ timeout: 15_000, timeoutMsg: 'no question waits' });
    const signalId = await question.getAttribute('data-signal-id');

    // The agent in the sidebar: needs you, one queued.
    await waitForAttribute(browser, `${agentEntry('asker')} ${byTestId('profile-attention')}`, 'data-count', '1', 'sidebar');
    await waitForAttribute(browser, `${agentEntry('asker')} ${byTestId('profile-queue')}`, 'data-queued', '1', 'sidebar');
    assert.match(await (await browser.$(`${agentEntry('asker')} ${byTestId('profile-queue')}`)).getText(), /^needs you · 1 queued$/);
    await dialogFrom(browser, () => question.click(), signalId, 'the sidebar');

    // The task's card, in the agent's session: needs your answer, with Answer; one queued.
    await (await browser.$(`${agentEntry('asker')} ${byTestId('start-profile')}`)).click();
    const waiting = await browser.$(byTestId('task-waiting'));
    await waiting.waitForExist({ timeout: 10_000, timeoutMsg: 'the task card does not say it waits for the user' });
    assert.match(await waiting.getText(), /Waits for your answer/);
    await waitForAttribute(browser, byTestId('queue-status'), 'data-queued', '1', 'task panel');
    assert.match(await (await browser.$(byTestId('queue-status'))).getText(), /1 queued/);
    await dialogFrom(browser, async () => (await browser.$(byTestId('task-answer'))).click(), signalId, 'the task card');

    // The dashboard: the card needs you, counts the queue, and answers from there.
    await (await browser.$(byTestId('open-dashboard'))).click();
    await waitForAttribute(browser, dashboardCard('asker'), 'data-state', 'needs-you', 'dashboard');
    await waitForAttribute(browser, `${dashboardCard('asker')} ${byTestId('dashboard-queued')}`, 'data-queued', '1', 'dashboard');
    assert.match(await (await browser.$(byTestId('dashboard-summary'))).getText(), /1 needs you · 1 queued/);
    // Its screen, live, as text: the question the agent printed.
    const preview = await browser.$(`${dashboardCard('asker')} ${byTestId('dashboard-preview')}`);
    await browser.waitUntil(async () => /questions:/.test(await preview.getProperty('textContent')), {
      timeout: 10_000,
      timeoutMsg: 'the card does not preview the agent\'s screen',
    });
    const cardTask = await browser.$(`${dashboardCard('asker')} ${byTestId('dashboard-task')}`);
    assert.equal((await cardTask.getProperty('textContent')).trim(), 'Review the auth module');
    await (await browser.$(`${dashboardCard('asker')} ${byTestId('dashboard-answer')}`)).click();
    const dialog = await browser.$(byTestId('signal-dialog'));
    await dialog.waitForExist({ timeout: 5_000 });
    assert.equal(await dialog.getAttribute('data-signal-id'), signalId);
    await (await dialog.$(`${byTestId('signal-answer')}[data-index="0"]`)).setValue('Both of them');
    await (await dialog.$(`${byTestId('signal-answer')}[data-index="1"]`)).setValue('A deep dive');
    await (await dialog.$(byTestId('signal-submit'))).click();
    await browser.waitUntil(async () => (await dialog.getAttribute('data-state')) === 'handled', { timeout: 10_000 });
    await (await browser.$(byTestId('signal-close'))).click();

    // Answered: the card no longer needs the user, and the queue drains to nothing everywhere.
    await browser.waitUntil(async () => (await (await browser.$(dashboardCard('asker'))).getAttribute('data-state')) !== 'needs-you', {
      timeout: 15_000,
      timeoutMsg: 'the dashboard still says the agent needs you',
    });
    await waitForAttribute(browser, `${dashboardCard('asker')} ${byTestId('dashboard-queued')}`, 'data-queued', '0', 'dashboard');
    const sidebarQueue = await browser.$(`${agentEntry('asker')} ${byTestId('profile-queue')}`);
    await browser.waitUntil(async () => !(await sidebarQueue.isExisting()) || (await sidebarQueue.getAttribute('data-queued')) === '0', {
      timeout: 15_000,
      timeoutMsg: 'the sidebar still counts a queued task',
    });
    assert.equal(await (await browser.$(`${agentEntry('asker')} ${byTestId('profile-attention')}`)).isExisting(), false);
  } finally {
    await close();
    rmSync(workspace, { recursive: true, force: true });
  }
});

test('the command palette drives a new task to completion with the keyboard only, and its file opens', async () => {
  const workspace = mkdtempSync(join(tmpdir(), 'switchboard-e2e-ws-'));
  // The desktop's opener, standing in for the user's editor: it notes what it was asked to open.
  const bin = mkdtempSync(join(tmpdir(), 'switchboard-e2e-bin-'));
  const opened = join(bin, 'opened.txt');
  writeFileSync(join(bin, 'xdg-open'), `#!/bin/sh\nprintf '%s\\n' "$1" >> '${opened}'\n`);
  chmodSync(join(bin, 'xdg-open'), 0o755);
  const { browser, dataDir, close } = await launchApp({ args: ['--no-demo'], env: { PATH: `${bin}:${process.env.PATH}` } });
  try {
    cli(dataDir, 'agent', 'add', '--name', 'worker', '--command', DEMO_AGENT, '--cwd', workspace, '--arg', '--speed', '--arg', 'fast');
    await (await browser.$(agentEntry('worker'))).waitForExist({ timeout: 10_000 });

    await browser.keys(['Control', 'Shift', 'P']);
    const input = await browser.$(byTestId('palette-input'));
    await input.waitForExist({ timeout: 5_000, timeoutMsg: 'Ctrl+Shift+P did not open the palette' });
    await browser.waitUntil(async () => (await browser.execute(() => document.activeElement?.getAttribute('data-testid'))) === 'palette-input', {
      timeout: 5_000,
      timeoutMsg: 'the palette input does not have the keyboard',
    });
    await browser.keys('new task worker');
    await browser.waitUntil(
      async () => /^New task for worker/.test(await (await browser.$(`${byTestId('palette-item')}[data-selected]`)).getProperty('textContent').then((t) => t?.trim())),
      { timeout: 5_000, timeoutMsg: '"New task for worker" is not the palette choice' },
    );
    await browser.keys('Enter');

    const instruction = await browser.$(byTestId('task-instruction'));
    await instruction.waitForExist({ timeout: 5_000, timeoutMsg: 'the palette did not open the task form' });
    await browser.waitUntil(async () => (await browser.execute(() => document.activeElement?.getAttribute('data-testid'))) === 'task-instruction', {
      timeout: 5_000,
      timeoutMsg: 'the task form does not have the keyboard',
    });
    await browser.keys('Count the lines of the README');
    await browser.keys(['Control', 'Enter']);

    const done = await browser.$(`${byTestId('task-entry')}[data-state="completed"]`);
    await done.waitForExist({ timeout: 30_000, timeoutMsg: 'the task did not complete' });
    assert.match(await done.getProperty('textContent'), /Count the lines of the README/);
    const tasks = JSON.parse(cli(dataDir, 'task', 'list', '--agent', 'worker', '--json'));
    assert.deepEqual(
      tasks.map((t) => [t.instruction, t.state]),
      [['Count the lines of the README', 'completed']],
    );

    // The file it returned opens with the desktop's app, found inside the agent's folder.
    await (await done.$(byTestId('task-open'))).click();
    const open = await browser.$(byTestId('task-artifact-open'));
    await open.waitForExist({ timeout: 5_000, timeoutMsg: 'the task detail lists no returned file' });
    const listed = await (await browser.$(byTestId('task-artifact'))).getAttribute('data-path');
    await open.click();
    await browser.waitUntil(() => existsSync(opened), { timeout: 10_000, timeoutMsg: 'nothing was opened' });
    assert.equal(readFileSync(opened, 'utf8').trim(), join(realpathSync(workspace), listed));
    await browser.keys('Escape');

    // In the agent's terminal too, Ctrl+Shift+E and Ctrl+Shift+P are the window's.
    await (await browser.$(`${agentEntry('worker')} ${byTestId('start-profile')}[data-opens="session"]`)).click();
    await (await browser.$(byTestId('terminal'))).waitForExist({ timeout: 5_000 });
    await browser.execute(() => document.activeElement instanceof HTMLElement && document.activeElement.blur());
    await browser.keys(['Control', 'Shift', 'E']);
    await browser.waitUntil(async () => (await browser.execute(() => document.activeElement?.closest('[data-testid="terminal"]') !== null)), {
      timeout: 5_000,
      timeoutMsg: 'Ctrl+Shift+E did not put the keyboard in the terminal',
    });
    await browser.keys(['Control', 'Shift', 'P']);
    await input.waitForExist({ timeout: 5_000, timeoutMsg: 'Ctrl+Shift+P in the terminal did not open the palette' });
    await browser.keys('Escape');
    await input.waitForExist({ reverse: true, timeout: 5_000 });
  } finally {
    await close();
    rmSync(workspace, { recursive: true, force: true });
    rmSync(bin, { recursive: true, force: true });
  }
});
