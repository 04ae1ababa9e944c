// Notices without a window: the engine runs as a daemon with no window open, on a session bus of
// the test's own with the dunst notification server. A task that completes is told by the daemon
// itself; choosing the notification's action in dunst's menu starts a window on that task; and
// while a window is open, it alone tells what happens, once.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { poll, privateBus, startDunst } from './desktop_bus.mjs';
import { APP, DEMO_AGENT, launchApp, stopEngine } from './driver.mjs';

const byTestId = (id) => `[data-testid="${id}"]`;

/** The command lines of the windows running on `dataDir` (not its engine's, `... daemon`). */
function windowCommands(dataDir) {
  const found = spawnSync('pgrep', ['-af', `${APP} --data-dir ${dataDir}`], { encoding: 'utf8' }).stdout;
  return found
    .split('\n')
    .filter((line) => line && !/ daemon( |$)/.test(line))
    .map((line) => ({ pid: Number(line.split(' ')[0]), command: line.slice(line.indexOf(' ') + 1) }));
}

test('with no window the daemon tells of a task and opens a window on it; with one, the window alone tells', async () => {
  const scratch = mkdtempSync(join(tmpdir(), 'switchboard-e2e-notices-'));
  const dataDir = join(scratch, 'data');
  const workspace = join(scratch, 'work');
  mkdirSync(workspace);
  const bus = await privateBus(scratch);
  // (The private bus has no accessibility bus for GTK to find.)
  const busEnv = { DBUS_SESSION_BUS_ADDRESS: bus.address, NO_AT_BRIDGE: '1' };
  const env = { ...process.env, ...busEnv };
  const stops = [bus.stop];
  try {
    const dunst = await startDunst(scratch, env);
    stops.unshift(dunst.stop);
    const cli = (...args) =>
      JSON.parse(execFileSync(APP, ['--data-dir', dataDir, ...args, '--json'], { env, encoding: 'utf8' }));
    const running = () => {
      const status = spawnSync(APP, ['--data-dir', dataDir, 'daemon', '--status', '--json'], { encoding: 'utf8' });
      return JSON.parse(status.stdout).running;
    };

    // The engine alone, as the login service or a quit window leaves it.
    const daemon = spawn(APP, ['--data-dir', dataDir, '--no-demo', 'daemon'], { env, stdio: 'ignore' });
    const exited = new Promise((resolve) => daemon.on('exit', resolve));
    stops.unshift(async () => {
      stopEngine(dataDir);
      if (daemon.exitCode === null) daemon.kill('SIGKILL');
      await exited;
    });
    await poll('the daemon to answer', running);
    cli('agent', 'add', '--name', 'Writer', '--command', DEMO_AGENT, '--arg', '--speed', '--arg', 'fast', '--cwd', workspace);
    assert.deepEqual(windowCommands(dataDir), [], 'no window runs');

    // A task completes with no window open: the daemon says so, in the user's words.
    const drafted = cli('task', 'add', '--agent', 'Writer', 'Draft the release notes').task.id;
    const about = (words) => () => dunst.received().filter((n) => n.body.includes(words));
    const someAbout = (words) => () => about(words)().at(0);
    const received = () => `; dunst received:\n${JSON.stringify(dunst.received(), null, 1)}`;
    const told = await poll('the daemon to tell of the completed task', someAbout('Draft the release notes'), {
      timeout: 60_000,
      seen: received,
    });
    assert.deepEqual(
      { app: told.app, title: told.title, body: told.body, urgency: told.urgency },
      { app: 'Switchboard', title: 'Task completed', body: 'Writer finished “Draft the release notes”', urgency: 'LOW' },
    );

    // Its action starts a window on this data directory, asked to open that task.
    const offered = await dunst.chooseAction(told.id);
    assert.ok(offered.includes(`#Open task (Task completed) [${told.id},default]`), offered.join('\n'));
    const started = await poll('a window to start on the task', () =>
      windowCommands(dataDir).find(({ command }) => command.includes('--open')),
    );
    assert.equal(started.command, `${APP} --data-dir ${dataDir} --no-demo --open task:${drafted}`);
    assert.ok(running(), 'the window joined the daemon, which runs on');

    // That window, started the same way under the test's driver, shows the task.
    process.kill(started.pid, 'SIGTERM');
    await poll('the started window to quit', () => windowCommands(dataDir).length === 0, { timeout: 20_000 });
    const window = await launchApp({ dataDir, args: ['--no-demo', '--open', `task:${drafted}`], env: busEnv });
    stops.unshift(() => window.close().catch(() => {}));
    const { browser } = window;
    const detail = await browser.$(byTestId('task-detail'));
    await detail.waitForExist({ timeout: 20_000 });
    assert.equal(await detail.getAttribute('data-task-id'), drafted);

    // With the window open, a task that completes is told once, by the window: its notification
    // opens the task in this window, and no other window starts.
    // (In the settings, no agent is on screen, so the window notifies of every one.)
    await (await browser.$(byTestId('open-settings'))).click();
    const changelog = cli('task', 'add', '--agent', 'Writer', 'Write the changelog').task.id;
    const once = await poll('the completed task to be told', someAbout('Write the changelog'), {
      timeout: 60_000,
      seen: received,
    });
    assert.equal(once.title, 'Task completed');
    await dunst.chooseAction(once.id);
    await poll(
      'the task to open in the window',
      async () => (await detail.isExisting()) && (await detail.getAttribute('data-task-id')) === changelog,
    );
    assert.deepEqual(about('Write the changelog')(), [once], `told once${received()}`);
    assert.equal(windowCommands(dataDir).filter(({ command }) => command.includes('--open task:' + changelog)).length, 0);
  } finally {
    for (const stop of stops) await stop();
    rmSync(scratch, { recursive: true, force: true });
  }
});
