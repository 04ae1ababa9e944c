// Starts the real app under tauri-driver (which drives WebKitWebDriver) and
// returns a webdriverio session on its window. Each call gets a fresh data
// directory, so a test never sees another's agents.

import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import net from 'node:net';
import { remote } from 'webdriverio';

export const ROOT = resolve(import.meta.dirname, '../..');
// The optimised build the package holds (scripts/build.sh): the window tests
// run what a user installs.
export const BUILD = join(ROOT, 'target/dist');
export const APP = join(BUILD, 'switchboard');
export const HOOK = join(BUILD, 'switchboard-hook');
export const DEMO_AGENT = join(BUILD, 'switchboard-demo-agent');

/** A port free on 127.0.0.1 now, for a server a test starts. */
export async function freePort() {
  return new Promise((resolvePort, reject) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolvePort(port));
    });
    server.on('error', reject);
  });
}

/** Whether something listens on 127.0.0.1 at `port` now. */
export const listening = (port) =>
  new Promise((done) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.end();
      done(true);
    });
    socket.on('error', () => done(false));
  });

async function waitForPort(port, deadlineMs) {
  const deadline = Date.now() + deadlineMs;
  while (Date.now() < deadline) {
    if (await listening(port)) return;
    await sleep(100);
  }
  throw new Error(`tauri-driver did not listen on ${port}`);
}

/**
 * Launches the app; returns {browser, dataDir, close}. Pass `dataDir` to reuse one (it is then
 * left in place on close). With `stderr: '/dev/full'` the app's stderr refuses every write, as
 * on a full disk or a closed pipe. `env` adds to the app's environment (the driver passes its own
 * on), e.g. `DBUS_SESSION_BUS_ADDRESS` to run the app on a private session bus.
 */
export async function launchApp({ args = [], dataDir: given, stderr, env = {}, waitForEngine = true } = {}) {
  const dataDir = given ?? mkdtempSync(join(tmpdir(), 'switchboard-e2e-'));
  let application = APP;
  if (stderr) {
    // The driver starts the program it is given: a script that redirects, then becomes the app.
    application = join(mkdtempSync(join(tmpdir(), 'switchboard-e2e-bin-')), 'switchboard');
    writeFileSync(application, `#!/bin/sh\nexec ${APP} "$@" 2>${stderr}\n`);
    chmodSync(application, 0o755);
  }
  const port = await freePort();
  const nativePort = await freePort();
  const driver = spawn('tauri-driver', ['--port', String(port), '--native-port', String(nativePort)], {
    stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, ...env },
  });
  await waitForPort(port, 15_000);
  const browser = await remote({
    hostname: '127.0.0.1',
    port,
    logLevel: 'error',
    capabilities: {
      browserName: 'wry',
      'wdio:enforceWebDriverClassic': true,
      'tauri:options': { application, args: ['--data-dir', dataDir, ...args] },
    },
  });
  // The window starts its engine as it opens: a test that drives the engine from the command
  // line waits until the engine answers (one that cannot start says `waitForEngine: false`).
  if (waitForEngine) await engineAnswers(dataDir);
  // The engine outlives the window by design: closing stops it (and its agents) too, unless
  // the test keeps it for a window it opens next.
  const close = async ({ keepEngine = false } = {}) => {
    try {
      await browser.deleteSession();
    } finally {
      driver.kill();
      if (!keepEngine) stopEngine(dataDir);
      await endStragglers(dataDir);
      if (!given && !keepEngine) rmSync(dataDir, { recursive: true, force: true });
    }
  };
  return { browser, dataDir, close };
}

/** Waits until an engine answers on `dataDir`. */
export async function engineAnswers(dataDir, timeout = 60_000) {
  for (let waited = 0; ; waited += 100) {
    if (spawnSync(APP, ['--data-dir', dataDir, 'daemon', '--status'], { stdio: 'ignore' }).status === 0) return;
    if (waited > timeout) throw new Error(`no engine answered on ${dataDir} within ${timeout / 1000} s`);
    await sleep(100);
  }
}

/** Stops the engine on `dataDir` and every agent it runs, waiting until they are gone. */
export function stopEngine(dataDir) {
  spawnSync(APP, ['--data-dir', dataDir, 'daemon', '--stop'], { stdio: 'ignore', timeout: 90_000 });
}

/** The window's processes on `dataDir` (not the engine's, `... daemon`). */
export function windowPids(dataDir) {
  const found = spawnSync('pgrep', ['-af', `${APP} --data-dir ${dataDir}`], { encoding: 'utf8' }).stdout;
  return found
    .split('\n')
    .filter((line) => line && !/ daemon( |$)/.test(line))
    .map((line) => Number(line.split(' ')[0]));
}

/**
 * A window on `dataDir` still running a while after its session was deleted would hold the
 * test runner's output pipe open and hang the run: end it (SIGTERM), and say so, since a window
 * that closed should have ended by itself.
 */
async function endStragglers(dataDir) {
  const alive = () => windowPids(dataDir);
  for (let waited = 0; waited < 15_000 && alive().length > 0; waited += 100) await sleep(100);
  const left = alive();
  if (left.length === 0) return;
  console.warn(`the app on ${dataDir} outlived its window; ending it (pids ${left.join(', ')})`);
  for (const pid of left) process.kill(pid, 'SIGTERM');
  for (let waited = 0; waited < 10_000 && alive().length > 0; waited += 100) await sleep(100);
}

/** The text xterm.js currently shows (its DOM renderer keeps rows as text). */
export async function terminalText(browser) {
  return browser.execute(() => {
    const rows = document.querySelector('[data-testid="terminal"] .xterm-rows');
    return rows ? Array.from(rows.children, (row) => row.textContent ?? '').join('\n') : '';
  });
}

export async function waitForTerminalText(browser, needle, timeout = 15_000) {
  await browser.waitUntil(async () => (await terminalText(browser)).includes(needle), {
    timeout,
    interval: 100,
    timeoutMsg: `terminal never showed ${JSON.stringify(needle)}; it shows:\n${await terminalText(browser)}`,
  });
}

/** Adds a style sheet to the window (the benches' CSS=...: a change of look tried without a build). */
export async function addStyle(browser, css) {
  if (css) await browser.execute((text) => document.head.append(Object.assign(document.createElement('style'), { textContent: text })), css);
}

/** The window's frame times (ms between animation frames) over `ms` milliseconds. */
export function frameTimes(browser, ms) {
  return browser.executeAsync((span, done) => {
    const deltas = [];
    let last = performance.now();
    const started = last;
    const tick = (now) => {
      deltas.push(now - last);
      last = now;
      if (now - started < span) requestAnimationFrame(tick);
      else done(deltas);
    };
    requestAnimationFrame(tick);
  }, ms);
}

/**
 * The window's frame times over `ms`, as `frameTimes` gives them, and (printed) the `worst`
 * slowest frames with what the page changed just before each: the number of changes in each of
 * `parts` (CSS selectors; anything else is "elsewhere"). A frame carries the changes made before
 * it and, as much, those made in its own animation callbacks (xterm draws its rows there), which
 * the observer hears just after: both are printed, "after" and "during". For the benches: where
 * a slow frame comes from.
 */
export async function worstFrames(browser, ms, parts, worst) {
  const { stamps, changes } = await browser.executeAsync(
    (span, parts, done) => {
      const changes = [];
      const observer = new MutationObserver((records) => {
        const now = performance.now();
        for (const record of records) {
          const element = record.target.nodeType === Node.ELEMENT_NODE ? record.target : record.target.parentElement;
          changes.push([now, parts.find((part) => element?.closest(part)) ?? 'elsewhere']);
        }
      });
      observer.observe(document.body, { subtree: true, attributes: true, childList: true, characterData: true });
      const stamps = [];
      const started = performance.now();
      const tick = (now) => {
        stamps.push(now);
        if (now - started < span) requestAnimationFrame(tick);
        else {
          observer.disconnect();
          done({ stamps, changes });
        }
      };
      requestAnimationFrame(tick);
    },
    ms,
    parts,
  );
  const frames = [];
  for (let i = 1; i < stamps.length; i++) {
    const changed = {};
    const during = {};
    for (const [at, part] of changes) {
      if (i >= 2 && at > stamps[i - 2] && at <= stamps[i - 1]) changed[part] = (changed[part] ?? 0) + 1;
      if (at > stamps[i - 1] && at <= stamps[i]) during[part] = (during[part] ?? 0) + 1;
    }
    frames.push({ time: stamps[i] - stamps[i - 1], changed, during });
  }
  for (const { time, changed, during } of [...frames].sort((a, b) => b.time - a.time).slice(0, worst)) {
    console.log(`slow frame ${time.toFixed(0)} ms after changes ${JSON.stringify(changed)}, during ${JSON.stringify(during)}`);
  }
  return frames.map((f) => f.time);
}

/**
 * Makes an agent with the "New agent" form, as a user types it, and waits for its tasks panel.
 * `args` as typed in the form's arguments field; `readyPattern` left blank when not given.
 */
export async function createAgent(browser, { name, command, args = '', cwd, readyPattern = null }) {
  const field = (id) => browser.$(`[data-testid="${id}"]`);
  await (await field('new-agent')).click();
  await (await field('agent-name')).setValue(name);
  await (await field('agent-command')).setValue(command);
  if (args) await (await field('agent-args')).setValue(args);
  await (await field('agent-cwd')).setValue(cwd);
  if (readyPattern !== null) await (await field('agent-ready-pattern')).setValue(readyPattern);
  await (await field('agent-submit')).click();
  await (await field('task-panel')).waitForExist({ timeout: 10_000 });
}
