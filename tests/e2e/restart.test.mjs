// Restarting an agent at work, in the real window: the app asks what becomes of the running
// task; cancelled with its queue paused, the queue says who paused it and why, and one click
// resumes it.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { APP, createAgent, launchApp, DEMO_AGENT, ROOT } from './driver.mjs';

const ENGINE_HOST = join(ROOT, 'target/debug/switchboard-engine-host');

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

// Restarting the engine of another build, in the real window: the banner's button asks in the
// window (window.confirm showed nothing in this web view, and running agents were stopped
// without a question), naming the agent that runs; kept, it runs on; confirmed, this window's
// build takes over in the environment the stopped engine had, so an agent whose command was
// found on that engine's PATH (not the window's) still finds it for a task queued afterwards.
test('Restart the engine asks, naming the running agent, and the restarted engine keeps its PATH', async () => {
  const scratch = mkdtempSync(join(tmpdir(), 'switchboard-e2e-engine-restart-'));
  const dataDir = join(scratch, 'data');
  const tools = join(scratch, 'tools');
  mkdirSync(tools, { recursive: true });
  symlinkSync(DEMO_AGENT, join(tools, 'fake-claude'));
  // Another build's engine (the test engine, which stamps no build), on a PATH the window lacks.
  const env = { ...process.env, PATH: `${tools}:${process.env.PATH}` };
  // Two tasks of slow steps: one at work, one queued behind it when the user restarts.
  const other = spawn(ENGINE_HOST, [dataDir, 'fake-claude', '--speed', '5000'], {
    env: { ...env, HOST_TASKS: '2' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const { agentPid, tasks } = await new Promise((resolveStarted, reject) => {
    let said = '';
    other.stdout.on('data', (chunk) => {
      said += chunk;
      const pid = /pid (\d+)/.exec(said);
      const tasks = [...said.matchAll(/task (\S+)/g)].map((found) => found[1]);
      if (pid && tasks.length === 2) resolveStarted({ agentPid: Number(pid[1]), tasks });
    });
    other.on('exit', (code) => reject(new Error(`the other build's engine exited (${code}): ${said}`)));
  });
  const alive = (pid) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  const cli = (...args) => JSON.parse(spawnSync(APP, ['--data-dir', dataDir, ...args, '--json'], { encoding: 'utf8' }).stdout);
  const { browser, close } = await launchApp({ dataDir, args: ['--no-demo'] });
  try {
    await browser.waitUntil(async () => (await textOf(browser, 'engine-link-banner'))?.includes('another build') ?? false, {
      timeout: 30_000,
      timeoutMsg: 'no banner says the engine is another build',
    });
    await browser.waitUntil(async () => (await browser.$$(byTestId('profile-entry'))).length > 0, { timeout: 30_000 });

    // Asked in the window, naming the running agent; kept, nothing stops.
    await (await browser.$(byTestId('engine-link-action'))).click();
    await browser.waitUntil(async () => (await textOf(browser, 'engine-restart-ask')) !== null, {
      timeout: 10_000,
      timeoutMsg: 'the restart did not ask',
    });
    assert.match(await textOf(browser, 'engine-restart-ask'), /stops 1 running agent: hosted\./);
    for (const [width, height] of [
      [1280, 800],
      [820, 520],
    ]) {
      await browser.setWindowSize(width, height);
      await browser.saveScreenshot(join(process.env.SCREENSHOTS ?? scratch, `engine-restart-ask-${width}x${height}.png`));
      const fits = await browser.execute(() => {
        const box = document.querySelector('[data-testid="engine-restart-ask"]').getBoundingClientRect();
        const buttons = [...document.querySelectorAll('[data-testid="engine-restart-ask"] button')];
        return box.right <= window.innerWidth && buttons.every((b) => b.getBoundingClientRect().right <= window.innerWidth);
      });
      assert.ok(fits, `the question and its buttons fit at ${width}x${height}`);
    }
    await (await browser.$(byTestId('engine-restart-keep'))).click();
    await browser.waitUntil(async () => (await textOf(browser, 'engine-restart-ask')) === null, { timeout: 10_000 });
    assert.ok(alive(agentPid), 'kept: the agent runs on');
    assert.equal(other.exitCode, null, 'kept: the engine runs on');

    // Confirmed: this window's build takes over.
    await (await browser.$(byTestId('engine-link-action'))).click();
    await (await browser.$(byTestId('engine-restart-confirm'))).click();
    await browser.waitUntil(async () => (await textOf(browser, 'engine-link-banner')) === null, {
      timeout: 90_000,
      timeoutMsg: 'the window does not run on its own build after the restart',
    });
    const status = JSON.parse(spawnSync(APP, ['--data-dir', dataDir, 'daemon', '--status', '--json'], { encoding: 'utf8' }).stdout);
    assert.equal(status.same_build, true, JSON.stringify(status));
    assert.notEqual(status.pid, other.pid);

    // The task that was queued runs on the new engine, which still finds the agent's command
    // (kept where it was found, and on the stopped engine's PATH, which the restart kept).
    const queued = tasks[1];
    let shown = null;
    await browser.waitUntil(
      async () => {
        shown = cli('task', 'show', queued);
        return ['completed', 'failed', 'cancelled', 'timed_out', 'interrupted'].includes(shown.state);
      },
      { timeout: 120_000, timeoutMsg: 'the task queued before the restart did not end' },
    );
    assert.equal(shown.state, 'completed', JSON.stringify(shown));
    const environ = readFileSync(`/proc/${status.pid}/environ`, 'utf8').split('\0');
    assert.ok(environ.includes(`PATH=${env.PATH}`), 'the restarted engine has the PATH the stopped one had');
  } finally {
    await close();
    other.kill();
    rmSync(scratch, { recursive: true, force: true });
  }
});
