// The live flows in the real window: a clarification raised lights the clarification diagram's
// "waiting for the user" node and the agent status diagram's Attention node; answering moves
// both on; the scrubber at the start shows the log's first step; the overview shows the agent.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { APP, DEMO_AGENT, ROOT, launchApp } from './driver.mjs';

const byTestId = (id) => `[data-testid="${id}"]`;

function cli(dataDir, ...args) {
  return execFileSync(APP, ['--data-dir', dataDir, ...args], { encoding: 'utf8' });
}

/** Shows a diagram and waits until `node` is lit (or, with lit false, not lit). */
async function waitForNode(browser, diagram, node, lit = true) {
  await (await browser.$(byTestId(`flows-diagram-${diagram}`))).click();
  const element = await browser.$(byTestId(`flow-node-${diagram}-${node}`));
  await element.waitForExist({ timeout: 10_000, timeoutMsg: `${diagram} is not drawn` });
  await browser.waitUntil(async () => (await element.getAttribute('data-lit')) === String(lit), {
    timeout: 10_000,
    timeoutMsg: `${diagram}: ${node} is ${lit ? 'not lit' : 'still lit'}`,
  });
  return element;
}

test('a clarification lights its flow and the status flow, answering moves both on, and the scrubber replays', async () => {
  const workspace = mkdtempSync(join(tmpdir(), 'switchboard-e2e-ws-'));
  const { browser, dataDir, close } = await launchApp({ args: ['--no-demo'] });
  try {
    const scenario = join(ROOT, 'tests/fixtures/scenarios/clarify-then-deliver.toml');
    cli(dataDir, 'agent', 'add', '--name', 'asker', '--command', DEMO_AGENT, '--cwd', workspace,
      '--arg', '--speed', '--arg', 'fast', '--arg', '--scenario', '--arg', scenario);
    cli(dataDir, 'task', 'add', '--agent', 'asker', 'Review the auth module');

    // The question waits; the agent's flows show where it stands.
    const asking = await browser.$(`${byTestId('attention-entry')}[data-kind="clarification"]`);
    await asking.waitForExist({ timeout: 15_000, timeoutMsg: 'no pending clarification' });
    const session = await browser.$(`${byTestId('profile-entry')}[data-profile-name="asker"] ${byTestId('session-entry')}`);
    await session.click();
    await (await browser.$(byTestId('open-flows'))).click();
    await (await browser.$(byTestId('flows-view'))).waitForExist({ timeout: 5_000 });
    await waitForNode(browser, 'clarification', 'ask');
    await waitForNode(browser, 'agent_status', 'permission');
    // Choosing the lit node (with the keyboard: it is a button) lists the event that lit it.
    await browser.execute((node) => node.focus(), await browser.$(byTestId('flow-node-agent_status-permission')));
    await browser.keys('Enter');
    const lit = await browser.$(byTestId('flows-node-events'));
    await browser.waitUntil(async () => /asked for clarification/.test(await lit.getText()), {
      timeout: 5_000,
      timeoutMsg: 'the events that lit the node are not listed',
    });

    // Answered: both flows move on, live.
    await asking.click();
    const dialog = await browser.$(byTestId('signal-dialog'));
    await dialog.waitForExist({ timeout: 5_000 });
    await (await dialog.$(`${byTestId('signal-answer')}[data-index="0"]`)).setValue('Both of them');
    await (await dialog.$(`${byTestId('signal-answer')}[data-index="1"]`)).setValue('A deep dive');
    await (await dialog.$(byTestId('signal-submit'))).click();
    await browser.waitUntil(async () => (await dialog.getAttribute('data-state')) === 'handled', { timeout: 10_000 });
    await (await browser.$(byTestId('signal-close'))).click();
    await waitForNode(browser, 'agent_status', 'permission', false);
    await waitForNode(browser, 'clarification', 'ask', false);
    // The event log reads oldest first: the task's submission on top.
    const log = await browser.$(byTestId('flows-log'));
    await browser.waitUntil(async () => /Queued/.test(await browser.execute((list) => list.querySelector('li')?.textContent ?? '', log)), {
      timeout: 5_000,
      timeoutMsg: 'the log does not read oldest first',
    });
    const clarification = await browser.execute(() =>
      [...document.querySelectorAll('[data-testid^="flow-node-clarification-"][data-lit="true"]')].map((n) => n.getAttribute('data-testid')),
    );
    assert.ok(
      clarification.some((id) => /-(resume|continue)$/.test(id)),
      `after the answer the clarification is resumed or going on: ${clarification}`,
    );

    // The scrubber at the start: the log's first event, the task's submission.
    await (await browser.$(byTestId('flows-diagram-task_queue'))).click();
    await (await browser.$('[aria-label="Replay from the first event"]')).click();
    const moment = await browser.$(byTestId('flows-moment'));
    const said = () => moment.getProperty('textContent').then((t) => t.trim());
    await browser.waitUntil(async () => /^Event 1 of \d+/.test(await said()), {
      timeout: 5_000,
      timeoutMsg: 'the scrubber is not at the first event',
    });
    assert.match(await said(), /: Queued$/);
    const submit = await browser.$(byTestId('flow-node-task_queue-submit'));
    await browser.waitUntil(async () => (await submit.getAttribute('data-visited')) === 'true', { timeout: 5_000 });
    assert.equal(await (await browser.$(byTestId('flow-node-task_queue-monitor'))).getAttribute('data-visited'), 'false');
    // Back to live.
    await (await browser.$(byTestId('flows-live'))).click();
    await browser.waitUntil(async () => /^Live/.test(await said()), { timeout: 5_000 });

    // The overview: the agent, one click back into its flows.
    await (await browser.$(byTestId('flows-open-overview'))).click();
    const id = JSON.parse(cli(dataDir, 'agent', 'list', '--json')).find((p) => p.name === 'asker').id;
    const node = await browser.$(byTestId(`overview-agent-${id}`));
    await node.waitForExist({ timeout: 5_000, timeoutMsg: 'the overview does not show the agent' });
    assert.match(await node.getProperty('textContent'), /asker/);
    await browser.execute((element) => element.focus(), node);
    await browser.keys('Enter');
    await (await browser.$(byTestId('flows-view'))).waitForExist({ timeout: 5_000 });
  } finally {
    await close();
    rmSync(workspace, { recursive: true, force: true });
  }
});
