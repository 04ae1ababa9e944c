// Tasks in the real window: queue two tasks for an agent, see the second wait for the
// first, see both complete, and open one's summary and artifacts.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAgent, launchApp, DEMO_AGENT } from './driver.mjs';

const byTestId = (id) => `[data-testid="${id}"]`;

test('two tasks: the second queues behind the first, both complete with their artifacts', async () => {
  const workspace = mkdtempSync(join(tmpdir(), 'switchboard-e2e-ws-'));
  const { browser, close } = await launchApp({ args: ['--no-demo'] });
  try {
    // A slow scripted agent, ready when its prompt shows.
    await createAgent(browser, { name: 'writer', command: DEMO_AGENT, args: '--speed 600', cwd: workspace, readyPattern: 'demo> $' });

    await (await browser.$(byTestId('new-task'))).click();
    const instruction = await browser.$(byTestId('task-instruction'));
    await instruction.setValue('Draft the release notes');
    await (await browser.$(byTestId('task-submit'))).click();
    const outcome = await browser.$(byTestId('task-submit-result'));
    await browser.waitUntil(async () => /Started/.test(await outcome.getText()), { timeout: 10_000 });

    await instruction.setValue('Proofread the changelog');
    await (await browser.$(byTestId('task-submit'))).click();
    await browser.waitUntil(async () => /Queued · position 1 · waiting for “Draft the release notes”/.test(await outcome.getText()), {
      timeout: 10_000,
      timeoutMsg: `the second task was not queued: ${await outcome.getText()}`,
    });
    const queued = await browser.$(`${byTestId('task-entry')}[data-state="queued"]`);
    assert.ok(await queued.isExisting(), 'the panel lists the queued task');
    assert.equal(await queued.getAttribute('data-position'), '1');

    // Both complete, one after the other.
    await browser.waitUntil(
      async () => (await browser.$$(`${byTestId('task-entry')}[data-state="completed"]`)).length === 2,
      { timeout: 30_000, timeoutMsg: 'both tasks did not complete' },
    );

    // The first task's detail: its summary and its artifacts.
    let draft = null;
    for (const entry of await browser.$$(`${byTestId('task-entry')}[data-state="completed"]`)) {
      if (/Draft the release notes/.test(await entry.getProperty('textContent'))) draft = entry;
    }
    assert.ok(draft, 'the first task is listed as completed');
    await (await draft.$(byTestId('task-open'))).click();
    const detail = await browser.$(byTestId('task-detail'));
    await detail.waitForExist({ timeout: 10_000 });
    const summary = await browser.$(byTestId('task-summary'));
    await browser.waitUntil(async () => /Task Completion Summary/.test(await summary.getText()), { timeout: 10_000 });
    assert.equal(await (await browser.$(byTestId('task-result-status'))).getText(), 'completed');
    // The summary is shown once, above; the files it returned are listed below it.
    assert.match(await summary.getText(), /COMPLETED/);
    const artifacts = await browser.$$(byTestId('task-artifact'));
    assert.ok(artifacts.length >= 1, 'the returned file is listed');
    assert.match(await artifacts[0].getAttribute('data-path'), /^notes\/.+\.md$/);
    assert.equal((await browser.$$(`${byTestId('task-artifact')}[data-path^="summaries/"]`)).length, 0);
    await artifacts[0].click();
    const content = await browser.$(byTestId('task-artifact-content'));
    await content.waitForExist({ timeout: 5_000 });
    assert.ok((await content.getText()).length > 0, 'the returned file is shown');
  } finally {
    await close();
    rmSync(workspace, { recursive: true, force: true });
  }
});
