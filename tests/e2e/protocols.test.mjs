// The signal protocols in the real window: an agent asks, the user answers in a dialog, and the
// agent goes on; an agent asks to delegate, the user approves, a second agent appears and its
// completion report resumes the first; and hostile text in a signal stays text.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { APP, DEMO_AGENT, ROOT, launchApp, terminalText, waitForTerminalText } from './driver.mjs';

const byTestId = (id) => `[data-testid="${id}"]`;

/** The command line, against the app running on `dataDir`. */
function cli(dataDir, ...args) {
  return execFileSync(APP, ['--data-dir', dataDir, ...args], { encoding: 'utf8' });
}

/** An agent running the demo agent with a scenario (TOML), ready at `agent> `. */
function addScenarioAgent(dataDir, workspace, name, scenario) {
  const file = join(workspace, `.${name}.toml`);
  writeFileSync(file, `prompt = "agent> "\n${scenario}`);
  cli(dataDir, 'agent', 'add', '--name', name, '--command', DEMO_AGENT, '--cwd', workspace,
    '--arg', '--speed', '--arg', 'fast', '--arg', '--scenario', '--arg', file);
}

/** Opens the dialog of the pending signal of `kind`. */
async function openSignal(browser, kind) {
  const entry = await browser.$(`${byTestId('attention-entry')}[data-kind="${kind}"]`);
  await entry.waitForExist({ timeout: 15_000, timeoutMsg: `no pending ${kind} signal` });
  await entry.click();
  const dialog = await browser.$(byTestId('signal-dialog'));
  await dialog.waitForExist({ timeout: 5_000 });
  return dialog;
}

/** Selects a session of the agent in this state (null: in any). */
async function selectSession(browser, profileName, state = 'running') {
  const inState = state === null ? '' : `[data-state="${state}"]`;
  const entry = await browser.$(`${byTestId('profile-entry')}[data-profile-name="${profileName}"] ${byTestId('session-entry')}${inState}`);
  try {
    await entry.waitForExist({ timeout: 15_000 });
  } catch {
    // Say what the sidebar showed instead, so a failure can be read from the log.
    const shown = await browser.execute(() =>
      [...document.querySelectorAll('[data-testid="profile-entry"]')].map((p) => ({
        agent: p.getAttribute('data-profile-name'),
        sessions: [...p.querySelectorAll('[data-testid="session-entry"]')].map((e) => e.getAttribute('data-state')),
      })),
    );
    throw new Error(`no ${state} session of ${profileName}; the sidebar shows ${JSON.stringify(shown)}`);
  }
  await entry.click();
}

test('a clarification answered in its dialog reaches the agent, which finishes the task', async () => {
  const workspace = mkdtempSync(join(tmpdir(), 'switchboard-e2e-ws-'));
  const { browser, dataDir, close } = await launchApp({ args: ['--no-demo'] });
  try {
    const scenario = join(ROOT, 'tests/fixtures/scenarios/clarify-then-deliver.toml');
    cli(dataDir, 'agent', 'add', '--name', 'asker', '--command', DEMO_AGENT, '--cwd', workspace,
      '--arg', '--speed', '--arg', 'fast', '--arg', '--scenario', '--arg', scenario);
    cli(dataDir, 'task', 'add', '--agent', 'asker', 'Review the auth module');

    const dialog = await openSignal(browser, 'clarification');
    const questions = await dialog.$$(byTestId('signal-question'));
    assert.equal(questions.length, 2);
    assert.match(await questions[0].getText(), /Analyze OAuth2, JWT, or both\?/);
    await (await dialog.$(`${byTestId('signal-answer')}[data-index="0"]`)).setValue('Both of them');
    // An answer left blank: the engine refuses, naming it, and the dialog marks that one.
    await (await dialog.$(byTestId('signal-submit'))).click();
    const refusal = await dialog.$(byTestId('signal-error'));
    await refusal.waitForExist({ timeout: 10_000, timeoutMsg: 'a blank answer was not refused' });
    assert.equal(await refusal.getText(), 'Answer question 2: the agent waits for every answer.');
    assert.equal(await (await dialog.$(`${byTestId('signal-answer')}[data-index="1"]`)).getAttribute('aria-invalid'), 'true');
    assert.equal(await (await dialog.$(`${byTestId('signal-answer')}[data-index="0"]`)).getAttribute('aria-invalid'), null);
    await (await dialog.$(`${byTestId('signal-answer')}[data-index="1"]`)).setValue('A deep dive');
    await (await dialog.$(byTestId('signal-submit'))).click();
    await browser.waitUntil(async () => (await dialog.getAttribute('data-state')) === 'handled', {
      timeout: 10_000,
      timeoutMsg: 'the answer was not accepted',
    });
    await (await browser.$(byTestId('signal-close'))).click();

    await selectSession(browser, 'asker');
    await waitForTerminalText(browser, 'CLARIFICATION RESPONSE');
    await waitForTerminalText(browser, 'A1: Both of them');
    // The agent went on and wrote its summary: the task completes.
    const listed = () => JSON.parse(cli(dataDir, 'task', 'list', '--json'));
    await browser.waitUntil(async () => listed()[0]?.state === 'completed', {
      timeout: 20_000,
      timeoutMsg: `the task did not complete: ${JSON.stringify(listed())}`,
    });
  } finally {
    await close();
    rmSync(workspace, { recursive: true, force: true });
  }
});

test('an approved delegation starts a second agent whose completion resumes the first', async () => {
  const workspace = mkdtempSync(join(tmpdir(), 'switchboard-e2e-ws-'));
  const { browser, dataDir, close } = await launchApp({ args: ['--no-demo'] });
  try {
    addScenarioAgent(dataDir, workspace, 'lead', `[[tasks]]
steps = [{ raw = "[DELEGATE_WORK]\\nnew_task_description: Write the parser tests\\nindependence: blocks_current_work\\ncoordination: put them in tests/parser.rs\\n[/DELEGATE_WORK]" }]
`);
    addScenarioAgent(dataDir, workspace, 'helper', `[[tasks]]
steps = [{ write_file = { path = "tests/parser.rs", content = "// tests" } }, { raw = "[COMPLETION_REPORT]\\nstatus: success\\ndeliverables:\\n  - tests/parser.rs\\nmetrics_achieved: 12 tests\\n[/COMPLETION_REPORT]" }]
`);
    cli(dataDir, 'task', 'add', '--agent', 'lead', 'Plan the parser work');

    const dialog = await openSignal(browser, 'delegate');
    const helperId = JSON.parse(cli(dataDir, 'agent', 'list', '--json')).find((p) => p.name === 'helper').id;
    await (await dialog.$(byTestId('signal-approve-profile'))).selectByAttribute('value', helperId);
    await (await dialog.$(byTestId('signal-approve'))).click();
    const delegate = await dialog.$(byTestId('signal-delegate-session'));
    await delegate.waitForExist({ timeout: 10_000, timeoutMsg: 'no delegate session shown' });
    await (await browser.$(byTestId('signal-close'))).click();

    // The second agent is there, got the work, and reported; then it ended, as delegates do.
    await selectSession(browser, 'helper', null);
    await waitForTerminalText(browser, 'DELEGATED WORK (from agent');
    const report = await browser.$(`${byTestId('attention-entry')}[data-kind="completion"]`);
    await report.waitForExist({ timeout: 15_000, timeoutMsg: 'no completion report' });
    const note = await browser.$(byTestId('delegation-note'));
    await browser.waitUntil(async () => (await note.getAttribute('data-state')) === 'reported', {
      timeout: 10_000,
      timeoutMsg: 'the delegate view does not say it reported',
    });
    assert.match(await note.getText(), /Reported “success” to lead/);
    await (await browser.$(byTestId('session-ended-notice'))).waitForExist({ timeout: 10_000, timeoutMsg: 'the delegate did not end' });
    // Its report resumed the waiting requester.
    await selectSession(browser, 'lead');
    await waitForTerminalText(browser, 'DELEGATED WORK COMPLETE');
    assert.match(await terminalText(browser), /reports: success/);
  } finally {
    await close();
    rmSync(workspace, { recursive: true, force: true });
  }
});

test('a blocker resolved in its card resumes the agent, whose completion report is acknowledged', async () => {
  const workspace = mkdtempSync(join(tmpdir(), 'switchboard-e2e-ws-'));
  const { browser, dataDir, close } = await launchApp({ args: ['--no-demo'] });
  try {
    addScenarioAgent(dataDir, workspace, 'migrator', `[[tasks]]
steps = [{ signal = "stop-work" }]
[[tasks]]
steps = [{ say = "Running the migrations" }, { signal = "completion" }]
`);
    cli(dataDir, 'task', 'add', '--agent', 'migrator', 'Migrate the database');

    const blocker = await openSignal(browser, 'stop_work');
    assert.match(await (await blocker.$(`${byTestId('signal-field')}[data-field="details"]`)).getText(), /database credentials/);
    await (await blocker.$(byTestId('signal-resolution'))).setValue('DATABASE_URL is set now');
    await (await blocker.$(byTestId('signal-resolve'))).click();
    await browser.waitUntil(async () => (await blocker.getAttribute('data-state')) === 'handled', { timeout: 10_000 });
    await (await browser.$(byTestId('signal-close'))).click();

    await selectSession(browser, 'migrator');
    await waitForTerminalText(browser, 'Resolution: DATABASE_URL is set now');
    const report = await openSignal(browser, 'completion');
    const deliverable = await report.$(byTestId('signal-deliverable'));
    assert.equal(await deliverable.getAttribute('data-path'), 'summaries/');
    await (await report.$(byTestId('signal-acknowledge'))).click();
    await browser.waitUntil(async () => (await report.getAttribute('data-state')) === 'handled', { timeout: 10_000 });
  } finally {
    await close();
    rmSync(workspace, { recursive: true, force: true });
  }
});

test('signal fields with markup are shown as text and run nothing', async () => {
  const workspace = mkdtempSync(join(tmpdir(), 'switchboard-e2e-ws-'));
  const { browser, dataDir, close } = await launchApp({ args: ['--no-demo'] });
  try {
    const img = '<img src=x onerror=window.__pwned=1>';
    const script = '<script>window.__pwned=1</script>';
    const block = [
      '[CLARIFICATION_NEEDED]',
      `agent_id: '${img}'`,
      `blocked_at: '${script}'`,
      'questions:',
      `  - '${img} which one?'`,
      `  - '${script}'`,
      `current_state: '${img}${script}'`,
      `'${img}': '${script}'`,
      '[/CLARIFICATION_NEEDED]',
    ].join('\\n');
    addScenarioAgent(dataDir, workspace, 'hostile', `[[tasks]]\nsteps = [{ raw = "${block.replaceAll('"', '\\"')}" }]\n`);
    cli(dataDir, 'task', 'add', '--agent', 'hostile', 'go');

    const dialog = await openSignal(browser, 'clarification');
    assert.match(await dialog.getText(), /<img src=x onerror=window.__pwned=1> which one\?/);
    const found = await browser.execute(() => ({
      images: document.querySelectorAll('[data-testid="signal-dialog"] img').length,
      scripts: document.querySelectorAll('body script:not([src])').length,
      pwned: window.__pwned,
    }));
    assert.deepEqual(found, { images: 0, scripts: 0, pwned: null });
  } finally {
    await close();
    rmSync(workspace, { recursive: true, force: true });
  }
});
