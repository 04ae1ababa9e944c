// What a task waits for, in the real window: an agent whose prompt its ready pattern does not
// see leaves its task untyped; the card says so with the screen's last line and the pattern,
// and Type it now types it, after which the task completes.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAgent, launchApp, DEMO_AGENT } from './driver.mjs';

const byTestId = (id) => `[data-testid="${id}"]`;

test('a task whose agent shows another prompt says why it waits, and Type it now types it', async () => {
  const workspace = mkdtempSync(join(tmpdir(), 'switchboard-e2e-ws-'));
  // The agent prompts "agent> " while the form below expects "demo> ".
  const scenario = join(workspace, 'prompt.toml');
  writeFileSync(scenario, 'prompt = "agent> "\n[[tasks]]\nsteps = [{ summary = "completed" }]\n');
  const { browser, close } = await launchApp({ args: ['--no-demo'] });
  try {
    await createAgent(browser, { name: 'mismatched', command: DEMO_AGENT, args: `--speed fast --scenario ${scenario}`, cwd: workspace, readyPattern: 'demo> $' });

    await (await browser.$(byTestId('new-task'))).click();
    await (await browser.$(byTestId('task-instruction'))).setValue('Write the changelog');
    await (await browser.$(byTestId('task-submit'))).click();

    // The card names the cause: the prompt on screen, and the pattern that does not see it.
    const wait = await browser.$(`${byTestId('task-wait')}[data-cause="prompt"]`);
    await wait.waitForExist({ timeout: 20_000, timeoutMsg: 'the task never said it waits for a prompt the pattern does not see' });
    assert.equal(await (await wait.$(byTestId('task-wait-line'))).getText(), 'agent>');
    assert.equal(await (await wait.$(byTestId('task-wait-pattern'))).getText(), 'demo> $');
    assert.match(await wait.getText(), /ready pattern/);
    assert.equal((await browser.$$(`${byTestId('task-entry')}[data-state="completed"]`)).length, 0);

    // The user says the prompt is there: the task is typed, and the agent completes it.
    await (await wait.$(byTestId('task-type-now'))).click();
    await browser.waitUntil(async () => (await browser.$$(`${byTestId('task-entry')}[data-state="completed"]`)).length === 1, {
      timeout: 30_000,
      timeoutMsg: 'the task typed by Type it now did not complete',
    });
    assert.equal((await browser.$$(byTestId('task-wait'))).length, 0, 'a finished task waits for nothing');
  } finally {
    await close();
    rmSync(workspace, { recursive: true, force: true });
  }
});
