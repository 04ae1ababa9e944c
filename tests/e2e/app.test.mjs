// The real Switchboard window, driven like a user would: create an agent
// through the form (two mistakes first, both shown at once), start it, type
// into its terminal, see the agent answer, stop it.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launchApp, waitForTerminalText, terminalText, DEMO_AGENT } from './driver.mjs';

const byTestId = (id) => `[data-testid="${id}"]`;

test('opens on the demo workspace with the demo agent live, even with stderr refusing writes', async () => {
  // Logging must never take the app down: a full disk or a closed pipe behind stderr once
  // made the first log line panic at start.
  const { browser, dataDir, close } = await launchApp({ stderr: '/dev/full' });
  try {
    await waitForTerminalText(browser, 'Switchboard demo agent');
    await waitForTerminalText(browser, 'demo>');
    const entry = await browser.$(`${byTestId('profile-entry')}[data-profile-name="Demo agent"]`);
    assert.ok(await entry.isExisting(), 'the demo profile is listed');
    const running = await browser.$(`${byTestId('session-entry')}[data-state="running"]`);
    assert.ok(await running.isExisting(), 'its session shows as running');
    const log = readFileSync(join(dataDir, 'logs', 'switchboard.log'), 'utf8');
    assert.match(log, /opening Switchboard/, 'the window logged to its file in the data directory');
    assert.match(log, /the engine runs as a daemon/, 'and so did the engine it started');
  } finally {
    await close();
  }
});

test('create an agent, start it, type into it, stop it, edit it, delete it', async () => {
  const workspace = mkdtempSync(join(tmpdir(), 'switchboard-e2e-ws-'));
  const { browser, close } = await launchApp({ args: ['--no-demo'] });
  try {
    await (await browser.$(byTestId('new-agent'))).click();
    await (await browser.$(byTestId('agent-name'))).setValue('echo agent');
    await (await browser.$(byTestId('agent-command'))).setValue('no-such-agent-command-xyz');
    await (await browser.$(byTestId('agent-cwd'))).setValue(join(workspace, 'not-made-yet'));
    await (await browser.$(byTestId('agent-submit'))).click();

    // Both mistakes at once, each under its field in words, and nothing created.
    const commandError = await browser.$(byTestId('error-command'));
    await commandError.waitForExist({ timeout: 10_000 });
    assert.equal(
      await commandError.getText(),
      'No program named “no-such-agent-command-xyz” was found on PATH. Check the spelling, or give the program\'s full path.',
    );
    const cwdError = await browser.$(byTestId('error-cwd'));
    assert.equal(await cwdError.getText(), `There is no folder at ${join(workspace, 'not-made-yet')}.`);
    assert.equal(await (await browser.$(byTestId('form-problems'))).getText(), 'Fix the 2 marked fields.');
    assert.equal((await browser.$$(byTestId('profile-entry'))).length, 0);

    // An error stays in place while its field is typed into (nothing moves); leaving the field
    // checks it again, and once right its place says so. The other stays until it is fixed too.
    await (await browser.$(byTestId('agent-command'))).setValue(DEMO_AGENT);
    assert.ok(await commandError.isExisting(), 'the error stays while the field is typed into');
    await (await browser.$(byTestId('agent-cwd'))).click();
    await (await browser.$(byTestId('settled-command'))).waitForExist({ timeout: 5_000 });
    assert.ok(!(await commandError.isExisting()), 'the command is right now');
    assert.ok(await cwdError.isExisting(), 'the folder is still wrong');
    await (await browser.$(byTestId('agent-cwd'))).setValue(workspace);
    await (await browser.$(byTestId('agent-submit'))).click();
    const entry = await browser.$(`${byTestId('profile-entry')}[data-profile-name="echo agent"]`);
    await entry.waitForExist({ timeout: 10_000 });

    await (await entry.$(byTestId('start-profile'))).click();
    await waitForTerminalText(browser, 'demo>');

    const input = await browser.$(`${byTestId('terminal')} textarea.xterm-helper-textarea`);
    await input.click();
    // Typed at full speed: every key must arrive, in order (regression: each keystroke was
    // its own concurrent IPC call, and they reached the agent swapped). The phrase has no
    // repeated character because WebKitWebDriver delivers a burst's key-ups late, so a key
    // pressed twice in one burst registers once; that is the driver, not the app.
    await browser.keys([...'blitz-mango7', 'Enter']);
    await waitForTerminalText(browser, 'received: blitz-mango7');
    assert.match(await terminalText(browser), /demo> blitz-mango7/, 'the typed line is echoed');

    await (await browser.$(byTestId('stop-session'))).click();
    const state = await browser.$(`${byTestId('session-entry')}[data-state="killed"]`);
    await state.waitForExist({ timeout: 15_000 });

    // Edit it: the form comes filled in; the new name shows in the sidebar.
    await (await entry.$(byTestId('profile-select'))).click();
    await (await browser.$(byTestId('edit-profile'))).click();
    const name = await browser.$(byTestId('agent-name'));
    assert.equal(await name.getValue(), 'echo agent');
    await name.setValue('renamed agent');
    await (await browser.$(byTestId('agent-submit'))).click();
    const renamed = await browser.$(`${byTestId('profile-entry')}[data-profile-name="renamed agent"]`);
    await renamed.waitForExist({ timeout: 10_000 });

    // Delete it (it asks first): the agent and its session leave the sidebar.
    await (await browser.$(byTestId('delete-profile'))).click();
    await (await browser.$(byTestId('confirm-delete-profile'))).click();
    await renamed.waitForExist({ reverse: true, timeout: 10_000 });
    assert.equal((await browser.$$(byTestId('session-entry'))).length, 0);
  } finally {
    await close();
    rmSync(workspace, { recursive: true, force: true });
  }
});

test('at the smallest window the form keeps its Create button in view, whatever is scrolled', async () => {
  const { browser, close } = await launchApp({ args: ['--no-demo'] });
  try {
    await browser.setWindowSize(820, 520);
    // Below 900 px the sidebar is folded away.
    const show = await browser.$(byTestId('show-sidebar'));
    await show.waitForExist({ timeout: 10_000 });
    await show.click();
    await (await browser.$(byTestId('new-agent'))).click();
    const submit = await browser.$(byTestId('agent-submit'));
    await submit.waitForExist({ timeout: 10_000 });
    assert.ok(await submit.isDisplayed({ withinViewport: true }), 'Create shows without scrolling');
    // Scrolled to the top field and back to the last one, it stays in view.
    await (await browser.$(byTestId('agent-name'))).scrollIntoView();
    assert.ok(await submit.isDisplayed({ withinViewport: true }), 'Create shows with the top of the form in view');
    await (await browser.$(byTestId('agent-signal-protocols'))).scrollIntoView();
    assert.ok(await submit.isDisplayed({ withinViewport: true }), 'Create shows with the end of the form in view');
  } finally {
    await close();
  }
});

test('a data directory it cannot open still opens the window, saying why and what to do', async () => {
  // Where the database should be, a folder: the engine cannot start on this data.
  const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-e2e-broken-'));
  mkdirSync(join(dataDir, 'switchboard.db'));
  const { browser, close } = await launchApp({ dataDir, args: ['--no-demo'], waitForEngine: false });
  try {
    const banner = await browser.$(byTestId('storage-banner'));
    await banner.waitForExist({ timeout: 15_000 });
    const text = await banner.getText();
    assert.match(text, /Switchboard could not open its data/);
    assert.match(text, /then restart Switchboard/);
    assert.ok(text.includes(dataDir), 'it names the folder');
  } finally {
    await close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
