// Restarting an agent at work, in the real window: the app asks what becomes of the running
// task; cancelled with its queue paused, the queue says who paused it and why, and one click
// resumes it.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAgent, launchApp, DEMO_AGENT } from './driver.mjs';

const byTestId = (id) => `[data-testid="${id}"]`;

// Read in one step in the page: the task list is drawn anew as events come, and an element
// found in one WebDriver call may be gone by the next (a stale element, on a loaded machine).
const stateOf = (browser, title) =>
  browser.execute((title) => {
    const entry = [...document.querySelectorAll('[data-testid="task-entry"]')].find((e) => e.textContent.includes(title));
    return entry?.getAttribute('data-state') ?? null;
  }, title);

// An element's text, or one of its attributes, read the same way (null while it is not there).
const textOf = (browser, id) =>
  browser.execute((id) => document.querySelector(`[data-testid="${id}"]`)?.textContent ?? null, id);
const attributeOf = (browser, id, name) =>
  browser.execute((id, name) => document.querySelector(`[data-testid="${id}"]`)?.getAttribute(name) ?? null, id, name);

test('a restart with a task at work asks; a cancel that pauses the queue says why, and Resume goes on', async () => {
  const workspace = mkdtempSync(join(tmpdir(), 'switchboard-e2e-ws-'));
  const { browser, close } = await launchApp({ args: ['--no-demo'] });
  try {
    await createAgent(browser, { name: 'writer', command: DEMO_AGENT, args: '--speed 8000', cwd: workspace, readyPattern: 'demo> $' });

    await (await browser.$(byTestId('new-task'))).click();
    const instruction = await browser.$(byTestId('task-instruction'));
    // Slow steps: the first task is still at work when the user restarts.
    await instruction.setValue('Draft the release notes');
    await (await browser.$(byTestId('task-submit'))).click();
    // Each submission is taken before the next is sent (the button waits while one is on its way).
    await browser.waitUntil(async () => (await stateOf(browser, 'Draft the release notes')) !== null, {
      timeout: 30_000,
      timeoutMsg: 'the first task is not listed',
    });
    await instruction.setValue('Proofread the changelog');
    const submit = await browser.$(byTestId('task-submit'));
    await submit.waitForEnabled({ timeout: 30_000 });
    await submit.click();
    await browser.waitUntil(async () => (await stateOf(browser, 'Proofread the changelog')) !== null, {
      timeout: 30_000,
      timeoutMsg: 'the second task is not listed',
    });
    await browser.waitUntil(async () => (await stateOf(browser, 'Draft the release notes')) === 'running', {
      timeout: 30_000,
      timeoutMsg: 'the first task never ran',
    });

    // Restart asks; nothing happens until the user says what becomes of the task.
    await (await browser.$(byTestId('session-entry'))).click();
    await (await browser.$(byTestId('restart-session'))).click();
    await browser.waitUntil(async () => (await textOf(browser, 'restart-ask')) !== null, {
      timeout: 30_000,
      timeoutMsg: 'the restart did not ask what becomes of the task',
    });
    assert.match(await textOf(browser, 'restart-ask'), /Draft the release notes/);
    assert.equal(await stateOf(browser, 'Draft the release notes'), 'running');
    await (await browser.$(byTestId('restart-pause-queue'))).click();
    await (await browser.$(byTestId('restart-cancel'))).click();

    // The queue waits, saying who paused it and why; the next task is not started behind the user's back.
    await browser.waitUntil(async () => (await attributeOf(browser, 'queue-paused-banner', 'data-by')) !== null, {
      timeout: 30_000,
      timeoutMsg: 'no banner says the queue is paused',
    });
    assert.equal(await attributeOf(browser, 'queue-paused-banner', 'data-by'), 'restart');
    assert.match(await textOf(browser, 'queue-paused-reason'), /You restarted writer, cancelling “Draft the release notes”/);
    await browser.waitUntil(async () => (await stateOf(browser, 'Draft the release notes')) === 'cancelled', { timeout: 30_000 });
    // The list is drawn anew for the new session: the queued task is there, still queued.
    await browser.waitUntil(async () => (await stateOf(browser, 'Proofread the changelog')) !== null, {
      timeout: 30_000,
      timeoutMsg: 'the queued task is not listed',
    });
    assert.equal(await stateOf(browser, 'Proofread the changelog'), 'queued');

    // One click resumes it: the next task runs in the new session and completes.
    await (await browser.$(byTestId('queue-banner-resume'))).click();
    await browser.waitUntil(async () => (await stateOf(browser, 'Proofread the changelog')) === 'completed', {
      timeout: 120_000,
      timeoutMsg: 'the queued task did not complete once the queue was resumed',
    });
    assert.equal((await browser.$$(byTestId('queue-paused-banner'))).length, 0);
  } finally {
    await close();
    rmSync(workspace, { recursive: true, force: true });
  }
});
