// A loop in the real window: started from the demo agent's Tasks panel, it stalls on the
// same stop reason, the user corrects its guardrails, resumes it and cancels it with X.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { launchApp } from './driver.mjs';

const byTestId = (id) => `[data-testid="${id}"]`;

test('a loop that stalls is told, corrected, resumed and cancelled', async () => {
  const { browser, dataDir, close } = await launchApp();
  try {
    const panel = await browser.$(byTestId('task-panel'));
    await panel.waitForExist({ timeout: 15_000 });
    await (await browser.$(byTestId('new-loop'))).click();
    await (await browser.$(byTestId('loop-goal'))).setValue('Make the flaky login test pass');
    await (await browser.$(byTestId('loop-stall'))).setValue('2');
    await (await browser.$(byTestId('loop-start'))).click();

    // The demo agent answers every iteration alike: two in a row stall the loop.
    const detail = await browser.$(byTestId('loop-detail'));
    await detail.waitForExist({ timeout: 10_000 });
    await browser.waitUntil(async () => (await detail.getAttribute('data-state')) === 'stalled', {
      timeout: 60_000,
      timeoutMsg: `the loop did not stall: ${await detail.getText()}`,
    });
    assert.equal((await browser.$$(byTestId('loop-iteration'))).length, 2);
    assert.match(await (await browser.$(byTestId('loop-status'))).getProperty('textContent'), /the same stop reason 2 times in a row/);
    assert.ok(await (await browser.$(byTestId('profile-stalled'))).isExisting(), 'the agent is marked stalled');

    // The user's guardrails reach the workspace.
    await (await browser.$(byTestId('loop-edit-guardrails'))).click();
    await (await browser.$(byTestId('loop-editor-guardrails'))).setValue('- Run the login test alone first.');
    await (await browser.$(byTestId('loop-save-guardrails'))).click();
    const guardrails = await browser.$(byTestId('loop-guardrails'));
    await guardrails.waitForExist({ timeout: 10_000 });
    assert.equal(await guardrails.getProperty('textContent'), '- Run the login test alone first.');
    const onDisk = readFileSync(join(dataDir, 'demo-workspace/.switchboard/guardrails.md'), 'utf8');
    assert.equal(onDisk, '- Run the login test alone first.');

    // Resumed, it runs a third iteration; X and a confirmation cancel it.
    await (await browser.$(byTestId('loop-resume'))).click();
    await browser.waitUntil(async () => (await browser.$$(byTestId('loop-iteration'))).length >= 3, {
      timeout: 30_000,
      timeoutMsg: 'no third iteration after resuming',
    });
    await browser.keys('x');
    await (await browser.$(byTestId('loop-cancel-confirm'))).click();
    await browser.waitUntil(async () => (await detail.getAttribute('data-state')) === 'cancelled', {
      timeout: 10_000,
      timeoutMsg: 'the loop was not cancelled',
    });
    assert.equal(await (await browser.$(byTestId('loop-status'))).getProperty('textContent'), 'Cancelled');
    // The agent's attention follows its loop (the engine reports it within a moment).
    await browser.waitUntil(async () => !(await (await browser.$(byTestId('profile-stalled'))).isExisting()), {
      timeout: 10_000,
      timeoutMsg: 'the agent is still marked stalled after its loop was cancelled',
    });
  } finally {
    await close();
  }
});
