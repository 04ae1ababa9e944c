// The app outside its window, on a real desktop bus: the test starts its own session bus, the
// dunst notification daemon and a tray (tray_host.py, a StatusNotifierWatcher that reads the
// app's item and menu as a panel does), then runs agents that finish, fail, time out, ask a
// question and stall a loop. Each notification dunst receives must say what happened to which
// task; choosing its action in dunst's own menu must open that task, question or loop in the
// window; the tray's menu must count the work, pause every queue, show the window and quit.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { poll, privateBus, startDunst, startTray } from './desktop_bus.mjs';
import { APP, DEMO_AGENT, ROOT, launchApp, windowPids } from './driver.mjs';

const byTestId = (id) => `[data-testid="${id}"]`;
const exec = promisify(execFile);

test('notifications say what happened and open it; the tray counts, pauses, shows and quits', async () => {
  const scratch = mkdtempSync(join(tmpdir(), 'switchboard-e2e-desktop-'));
  const bus = await privateBus(scratch);
  const env = { ...process.env, DBUS_SESSION_BUS_ADDRESS: bus.address };
  const stops = [bus.stop];
  try {
    const dunst = await startDunst(scratch, env);
    stops.unshift(dunst.stop);
    const tray = await startTray(env);
    stops.unshift(tray.stop);
    // With its demo agent, which runs the loop.
    // (The private bus has no accessibility bus for GTK to find.)
    const { browser, dataDir, close } = await launchApp({
      env: { DBUS_SESSION_BUS_ADDRESS: bus.address, NO_AT_BRIDGE: '1' },
    });
    let closed = false;
    stops.unshift(async () => closed || (await close()));
    const cli = async (...args) =>
      JSON.parse((await exec(APP, ['--data-dir', dataDir, ...args, '--json'], { env })).stdout);
    // The menu's first entry is its status line.
    const status = async () => (await tray.item())?.menu[0]?.label ?? '';

    // The app's item registers with the tray; its menu counts nothing yet.
    const item = await poll('the app to register its tray item', tray.item, { timeout: 15_000 });
    assert.equal(item.title, 'Switchboard');
    assert.equal(item.status, 'Active');
    assert.deepEqual(
      item.menu.filter((entry) => entry.type !== 'separator').map(({ label, enabled }) => ({ label, enabled })),
      [
        { label: '0 working · 0 need you', enabled: false },
        { label: 'Open', enabled: true },
        { label: 'Pause all queues', enabled: true },
        { label: 'Quit Switchboard (agents keep running)', enabled: true },
        { label: 'Quit and stop all agents', enabled: true },
      ],
    );

    // Five more agents, each of which does one thing with its task.
    const agent = async (name, ...args) => {
      const cwd = join(scratch, name);
      mkdirSync(cwd);
      const demoArgs = args.map((a) => `--arg=${a}`);
      return cli('agent', 'add', '--name', name, '--command', DEMO_AGENT, '--cwd', cwd, ...demoArgs);
    };
    const [, , builder] = await Promise.all([
      agent('Reviewer'),
      agent('Drafter', '--status', 'partial'),
      agent('Builder', '--exit-on-task', '1', '--exit-code', '3'),
      agent('Sleeper', '--no-summary'),
      agent('Asker', '--scenario', join(ROOT, 'tests/fixtures/scenarios/clarify-then-deliver.toml')),
    ]);
    const task = async (agentName, text, ...more) =>
      (await cli('task', 'add', '--agent', agentName, ...more, text)).task.id;
    // The user is in the settings: no agent is on screen, so every one is notified.
    await (await browser.$(byTestId('open-settings'))).click();
    const [reviewed, , built, slept] = await Promise.all([
      task('Reviewer', 'Review the auth module'),
      task('Drafter', 'Draft the migration guide & FAQ'),
      task('Builder', 'Build the release bundle'),
      task('Sleeper', 'Translate the user guide', '--time-limit', '3'),
      task('Asker', 'Choose the session store'),
    ]);
    const goal = 'Make the flaky login test pass';
    const loop = await cli('loop', 'start', '--agent', 'Demo agent', '--stall-after', '2', goal);

    // While they work, the tray counts them.
    await poll('the tray to count agents at work', async () => /^[1-9]\d* working/.test(await status()), {
      seen: async () => `; it shows ${await status()}`,
    });

    // Each outcome is told by Switchboard, in the user's words: a question and a stall each in a
    // notification of their agent's, critical; task ends in one notification, on its own or, when
    // several end within seconds, grouped ("3 tasks finished") and replaced in place.
    const noticeOf = (title, body) => (n) => n.app === 'Switchboard' && n.title === title && body.test(n.body);
    const endOf = (title, body, line) => (n) =>
      noticeOf(title, body)(n) ||
      (n.app === 'Switchboard' && /^\d+ tasks (finished|failed)/.test(n.title) && n.body.split('\n').includes(line));
    const expected = {
      completed: endOf('Task completed', /^Reviewer finished “Review the auth module”$/, 'Reviewer: “Review the auth module”'),
      // dunst reads markup in bodies: the "&" arrives escaped, so it shows as typed.
      partial: endOf(
        'Task partly done',
        /^Drafter did part of “Draft the migration guide &amp; FAQ”: its summary says what is left$/,
        'Drafter: “Draft the migration guide &amp; FAQ”',
      ),
      failed: endOf(
        'Task failed',
        /^Builder could not finish “Build the release bundle”: the agent exited \(code 3\) before writing its summary$/,
        'Builder: “Build the release bundle” (failed)',
      ),
      timedOut: endOf(
        'Task timed out',
        /^Sleeper did not finish “Translate the user guide” in time: the time limit of 3 s passed without a summary$/,
        'Sleeper: “Translate the user guide” (failed)',
      ),
      question: noticeOf('Asker needs your answer', /^On “Choose the session store”: \S.*\? \(and 1 more\)$/),
      stalled: noticeOf(
        'Loop stalled',
        /^Demo agent is stuck on “Make the flaky login test pass”: the same stop reason 2 times in a row: \S/,
      ),
    };
    const received = await poll(
      'a notification of each outcome',
      () => {
        const all = dunst.received();
        const found = Object.fromEntries(Object.entries(expected).map(([k, match]) => [k, all.find(match)]));
        return Object.values(found).every(Boolean) && found;
      },
      { timeout: 60_000, seen: () => `; dunst received:\n${JSON.stringify(dunst.received(), null, 1)}` },
    );
    for (const { title, body } of dunst.received()) {
      // No ids, no pids, no error codes (they are snake_case words).
      assert.doesNotMatch(`${title} ${body}`, /[0-9a-f]{8}-[0-9a-f]{4}|\bpid\b|_/, `${title}: ${body}`);
    }
    // What waits for the user is critical; task ends are not.
    assert.equal(received.question.urgency, 'CRITICAL');
    assert.equal(received.stalled.urgency, 'CRITICAL');
    assert.notEqual(received.completed.urgency, 'CRITICAL');
    // Replaced in place, not stacked: the task ends share one notification; the question and
    // the stall have one each.
    const ends = new Set([received.completed, received.partial, received.failed, received.timedOut].map((n) => n.id));
    assert.equal(ends.size, 1, `the task ends in one notification: ${JSON.stringify(dunst.received(), null, 1)}`);
    const ids = new Set(dunst.received().map((n) => n.id));
    assert.equal(ids.size, 3, `three notifications in all: ${JSON.stringify(dunst.received(), null, 1)}`);

    // Settled: the question waits for the user, the failure and the timeout were not looked at,
    // the loop is stalled; nothing works.
    const settled = '0 working · 1 needs you · 1 may be stuck · 2 failed';
    await poll('the tray to count what needs the user', async () => (await status()) === settled, {
      seen: async () => `; it shows ${await status()}`,
    });

    // The window tells the shell and the engine what it shows: the Builder on screen in a focused
    // window has its failure seen, and the tray stops counting it.
    const told = await browser.executeAsync(
      (id, done) =>
        window.__TAURI_INTERNALS__
          .invoke('set_viewing', { viewing: { profile_id: id, task_id: null, focused: true } })
          .then(() => done('told'), (error) => done(`refused: ${JSON.stringify(error)}`)),
      builder.id,
    );
    assert.equal(told, 'told');
    const seen = '0 working · 1 needs you · 1 may be stuck · 1 failed';
    await poll('the tray to stop counting a failure seen', async () => (await status()) === seen, {
      seen: async () => `; it shows ${await status()}`,
    });

    // Dunst's menu offers each notification's action by what it opens; choosing one opens
    // what it shows now: the task ends' opens the latest failure among them.
    const latest = (id) => dunst.received().filter((n) => n.id === id).at(-1);
    const offered = await dunst.chooseAction(received.failed.id);
    for (const [label, { id }] of [
      ['Open task', received.failed],
      ['Answer', received.question],
      ['Open loop', received.stalled],
    ]) {
      assert.ok(offered.includes(`#${label} (${latest(id).title}) [${id},default]`), `${label}? ${offered.join('\n')}`);
    }
    const detail = await browser.$(byTestId('task-detail'));
    const detailShows = async (id) =>
      (await detail.isExisting()) && (await detail.getAttribute('data-task-id')) === id;
    await poll('the failed task to open', async () => (await detailShows(slept)) || (await detailShows(built)));

    await dunst.chooseAction(received.question.id);
    const dialog = await browser.$(byTestId('signal-dialog'));
    await dialog.waitForExist({ timeout: 10_000 });
    const pending = await browser.$(`${byTestId('attention-entry')}`);
    assert.equal(await dialog.getAttribute('data-signal-id'), await pending.getAttribute('data-signal-id'));
    assert.equal(await dialog.getAttribute('data-kind'), 'clarification');
    const question = received.question.body.match(/: (.+\?) \(and/)[1];
    assert.ok((await dialog.getProperty('textContent')).includes(question), `the dialog asks ${question}`);
    await (await browser.$(byTestId('signal-close'))).click();
    await dialog.waitForExist({ reverse: true, timeout: 5_000 });

    await dunst.chooseAction(received.stalled.id);
    const loopDetail = await browser.$(byTestId('loop-detail'));
    await poll(
      'the stalled loop to open',
      async () => (await loopDetail.isExisting()) && (await loopDetail.getAttribute('data-loop-id')) === loop.id,
    );
    assert.ok(reviewed, 'the reviewed task was queued');

    // Minimized, the window comes back with the tray's "Open".
    const entry = async (label) => (await tray.item()).menu.find((e) => e.label === label);
    const visibility = () => browser.execute(() => document.visibilityState);
    await browser.minimizeWindow();
    await poll('the window to be minimized', async () => (await visibility()) === 'hidden');
    await tray.click((await entry('Open')).id);
    await poll('the window to show again', async () => (await visibility()) === 'visible');

    // "Pause all queues" from the tray pauses every agent's queue in the window; a task queued
    // meanwhile waits, and runs once the tray resumes them all.
    await tray.click((await entry('Pause all queues')).id);
    const queues = async () =>
      browser.execute(() =>
        Array.from(document.querySelectorAll('[data-testid="profile-entry"]'), (e) => {
          const queue = e.querySelector('[data-testid="profile-queue"]');
          const { paused = 'false', queued = '0' } = queue?.dataset ?? {};
          return { name: e.dataset.profileName, paused, queued };
        }),
      );
    const seenQueues = async () => `; ${JSON.stringify(await queues())}`;
    await poll('every queue to show paused', async () => (await queues()).every((q) => q.paused === 'true'), {
      seen: seenQueues,
    });
    assert.equal((await queues()).length, 6, 'the demo agent and the five');
    await poll('the tray to offer resuming', () => entry('Resume all queues'));
    await task('Reviewer', 'Write the changelog');
    await poll('the new task to wait', async () => (await queues()).find((q) => q.name === 'Reviewer').queued === '1', {
      seen: seenQueues,
    });
    assert.match(await status(), /^0 working · 1 needs you · 1 may be stuck/, 'a waiting task is not at work');
    await tray.click((await entry('Resume all queues')).id);
    await poll('every queue to run again', async () => (await queues()).every((q) => q.paused === 'false'), {
      seen: seenQueues,
    });
    await poll('the waiting task to be done and told', () =>
      dunst
        .received()
        .find(endOf('Task completed', /^Reviewer finished “Write the changelog”$/, 'Reviewer: “Write the changelog”')),
    );
    await poll('the tray to offer pausing again', () => entry('Pause all queues'));

    // "Quit Switchboard" ends the window and its tray item; the engine and its agents go on.
    const windows = () => windowPids(dataDir);
    const engine = () =>
      JSON.parse(spawnSync(APP, ['--data-dir', dataDir, 'daemon', '--status', '--json'], { encoding: 'utf8' }).stdout);
    assert.ok(windows().length > 0, 'the window runs');
    const agentsBefore = engine().agents;
    assert.ok(agentsBefore > 0, 'agents run');
    await tray.click((await entry('Quit Switchboard (agents keep running)')).id);
    await poll('the window to quit', () => windows().length === 0, { timeout: 20_000 });
    await poll('its tray item to go with it', () => tray.item().then((gone) => gone === null, () => false));
    assert.equal(engine().agents, agentsBefore, 'every agent runs on');
    closed = true;
    await close({ keepEngine: true }).catch(() => {});

    // Opened again, "Quit and stop all agents" asks in the window first, naming what runs: kept,
    // nothing stops; confirmed, it leaves nothing running.
    const again = await launchApp({ dataDir, env: { DBUS_SESSION_BUS_ADDRESS: bus.address, NO_AT_BRIDGE: '1' } });
    stops.unshift(async () => {
      await again.close().catch(() => {});
      rmSync(dataDir, { recursive: true, force: true });
    });
    await poll('the reopened window to register its tray item', tray.item, { timeout: 15_000 });
    const askText = () =>
      again.browser.execute(() => document.querySelector('[data-testid="quit-stop-ask"]')?.textContent ?? null);
    await poll('the window to list the running agents', async () =>
      again.browser.execute(() => document.querySelectorAll('[data-testid="profile-entry"]').length > 0),
    );
    // Out of sight, the window comes forward for the question.
    const againVisibility = () => again.browser.execute(() => document.visibilityState);
    await again.browser.minimizeWindow();
    await poll('the reopened window to be minimized', async () => (await againVisibility()) === 'hidden');
    await tray.click((await entry('Quit and stop all agents')).id);
    const asked = await poll('the window to ask before stopping the agents', askText);
    await poll('the window to show its question', async () => (await againVisibility()) === 'visible');
    const running = engine().agents;
    assert.match(asked, /stops the engine and \d+ running agents?: \S/, asked);
    assert.ok(windows().length > 0 && engine().running, 'nothing stops before the user says so');
    for (const [width, height] of [
      [1280, 800],
      [820, 520],
    ]) {
      await again.browser.setWindowSize(width, height);
      await again.browser.saveScreenshot(join(process.env.SCREENSHOTS ?? scratch, `quit-stop-ask-${width}x${height}.png`));
      const fits = await again.browser.execute(() =>
        [...document.querySelectorAll('[data-testid="quit-stop-ask"] button')].every((b) => b.getBoundingClientRect().right <= window.innerWidth),
      );
      assert.ok(fits, `the question's buttons fit at ${width}x${height}`);
    }
    await (await again.browser.$(byTestId('quit-stop-keep'))).click();
    await poll('the question to go', async () => (await askText()) === null);
    assert.equal(engine().agents, running, 'kept: every agent runs on');
    assert.ok(windows().length > 0, 'kept: the window stays');
    await tray.click((await entry('Quit and stop all agents')).id);
    await poll('the window to ask again', askText);
    await (await again.browser.$(byTestId('quit-stop-confirm'))).click();
    await poll('the window to quit', () => windows().length === 0, { timeout: 30_000 });
    const after = engine();
    assert.equal(after.running, false, `the engine stopped (it runs: ${JSON.stringify(after)}; before: ${agentsBefore} agents)`);
    // The agents of this data directory: their folders are in it.
    const agentsLeft = spawnSync('pgrep', ['-f', DEMO_AGENT], { encoding: 'utf8' })
      .stdout.split('\n')
      .filter((pid) => pid && (() => {
        try {
          return readlinkSync(`/proc/${pid}/cwd`).startsWith(dataDir);
        } catch {
          return false;
        }
      })());
    assert.deepEqual(agentsLeft, [], 'no agent is left running');
  } finally {
    for (const stop of stops) await stop();
    rmSync(scratch, { recursive: true, force: true });
  }
});
