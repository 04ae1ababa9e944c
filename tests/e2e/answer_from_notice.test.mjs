// The user is the user, whichever way the window was opened: with no window open, an agent's
// question is told by the daemon; choosing the notification's action makes the daemon start a
// window (its own descendant); that very window shows the question, and the answer given in it
// reaches the agent. The window the daemon starts is driven where it runs: it is started with
// WebKit's automation on (the daemon's environment carries it to the window), and the driver
// attaches to it instead of starting one of its own.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { remote } from 'webdriverio';
import { poll, privateBus, startDunst } from './desktop_bus.mjs';
import { APP, DEMO_AGENT, ROOT, freePort, listening, stopEngine, waitForTerminalText, windowPids } from './driver.mjs';

const byTestId = (id) => `[data-testid="${id}"]`;


test('a window the daemon opens for a question answers it, and the agent receives the answer', async () => {
  const scratch = mkdtempSync(join(tmpdir(), 'switchboard-e2e-answer-'));
  const dataDir = join(scratch, 'data');
  const workspace = join(scratch, 'work');
  mkdirSync(workspace);
  const bus = await privateBus(scratch);
  const inspector = await freePort();
  // The window the daemon starts inherits these: its web view accepts a driver on `inspector`.
  const busEnv = { DBUS_SESSION_BUS_ADDRESS: bus.address, NO_AT_BRIDGE: '1' };
  const automation = { TAURI_WEBVIEW_AUTOMATION: 'true', WEBKIT_INSPECTOR_SERVER: `127.0.0.1:${inspector}` };
  const env = { ...process.env, ...busEnv };
  const stops = [bus.stop];
  try {
    const dunst = await startDunst(scratch, env);
    stops.unshift(dunst.stop);
    const cli = (...args) => execFileSync(APP, ['--data-dir', dataDir, ...args], { env, encoding: 'utf8' });
    const answers = () => spawnSync(APP, ['--data-dir', dataDir, 'daemon', '--status'], { stdio: 'ignore' }).status === 0;

    const daemon = spawn(APP, ['--data-dir', dataDir, '--no-demo', 'daemon'], { env: { ...env, ...automation }, stdio: 'ignore' });
    const exited = new Promise((resolve) => daemon.on('exit', resolve));
    stops.unshift(async () => {
      stopEngine(dataDir);
      if (daemon.exitCode === null) daemon.kill('SIGKILL');
      await exited;
    });
    await poll('the daemon to answer', answers);

    const scenario = join(ROOT, 'tests/fixtures/scenarios/clarify-then-deliver.toml');
    cli('agent', 'add', '--name', 'asker', '--command', DEMO_AGENT, '--cwd', workspace,
      '--arg', '--speed', '--arg', 'fast', '--arg', '--scenario', '--arg', scenario);
    cli('task', 'add', '--agent', 'asker', 'Review the auth module');
    assert.deepEqual(windowPids(dataDir), [], 'no window runs');

    // The question, told by the daemon; its action starts a window on it.
    const received = () => `; dunst received:\n${JSON.stringify(dunst.received(), null, 1)}`;
    const told = await poll('the daemon to tell of the question', () => dunst.received().find((n) => n.title === 'asker needs your answer'), {
      timeout: 60_000,
      seen: received,
    });
    const offered = await dunst.chooseAction(told.id);
    assert.ok(offered.some((line) => line.includes('Answer')), offered.join('\n'));
    const [window] = await poll('the daemon to start a window', () => windowPids(dataDir).length === 1 && windowPids(dataDir));
    const parent = Number(execFileSync('ps', ['-o', 'ppid=', '-p', String(window)], { encoding: 'utf8' }).trim());
    assert.equal(parent, daemon.pid, 'the window is the daemon’s own child');

    // Drive that very window.
    await poll('the window to accept a driver', () => listening(inspector), { timeout: 30_000 });
    const port = await freePort();
    const driver = spawn('WebKitWebDriver', [`--port=${port}`, `--target=127.0.0.1:${inspector}`], { stdio: ['ignore', 'inherit', 'inherit'] });
    stops.unshift(() => driver.kill());
    await poll('the driver to listen', () => listening(port), { timeout: 15_000 });
    const browser = await remote({
      hostname: '127.0.0.1',
      port,
      logLevel: 'error',
      capabilities: { browserName: 'wry', 'wdio:enforceWebDriverClassic': true },
    });
    stops.unshift(() => browser.deleteSession().catch(() => {}));

    // It opened on the question. Before: the answer was refused as an agent's.
    const dialog = await browser.$(byTestId('signal-dialog'));
    await dialog.waitForExist({ timeout: 20_000, timeoutMsg: 'the window did not open on the question' });
    await (await dialog.$(`${byTestId('signal-answer')}[data-index="0"]`)).setValue('Both of them');
    await (await dialog.$(`${byTestId('signal-answer')}[data-index="1"]`)).setValue('A deep dive');
    await (await dialog.$(byTestId('signal-submit'))).click();
    await browser.waitUntil(async () => (await dialog.getAttribute('data-state')) === 'handled', {
      timeout: 10_000,
      timeoutMsg: `the answer was not accepted: ${await dialog.getText()}`,
    });
    await (await browser.$(byTestId('signal-close'))).click();

    // The agent received it and went on: its task completes.
    const entry = await browser.$(`${byTestId('profile-entry')}[data-profile-name="asker"] ${byTestId('session-entry')}`);
    await entry.waitForExist({ timeout: 15_000 });
    await entry.click();
    await waitForTerminalText(browser, 'A1: Both of them');
    const listed = () => JSON.parse(cli('task', 'list', '--json'));
    await browser.waitUntil(async () => listed()[0]?.state === 'completed', {
      timeout: 20_000,
      timeoutMsg: `the task did not complete: ${JSON.stringify(listed())}`,
    });
  } finally {
    for (const stop of stops) await stop();
    for (const pid of windowPids(dataDir)) process.kill(pid, 'SIGTERM');
    rmSync(scratch, { recursive: true, force: true });
  }
});
