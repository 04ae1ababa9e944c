// Many agents streaming at once, beside one, in the same run: the app's and WebKit's memory,
// the window's frame time while it shows a streaming terminal, and `switchboard agent list`
// answering over the socket; or (SOAK_MINUTES) the memory over a long run. Run with
// bench/scale.sh (it builds and provides a display). With GRID=1, CSS="..." adds that style
// sheet to the window first, to try a change of look without a build.

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { APP, ROOT, addStyle, frameTimes, launchApp, worstFrames } from '../tests/e2e/driver.mjs';

const AGENTS = Number(process.env.AGENTS ?? 50);
const SETTLE_MS = Number(process.env.SETTLE_MS ?? 10_000);
const SEED = join(ROOT, 'target/debug/switchboard-bench-seed');
// Each agent prints a coloured line every 20 ms (50 lines a second) for good, with shell
// builtins only: a `sleep` process a line would measure the machine's fork rate instead.
const STREAM = 'i=0; while :; do i=$((i+1)); printf "\\033[32m%6d\\033[0m streaming output line of a busy agent\\n" $i; read -r -t 0.02 _; done';

const kib = (pid, field) => {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number(status.match(new RegExp(`^${field}:\\s+(\\d+)`, 'm'))?.[1] ?? 0);
  } catch {
    return 0;
  }
};
const children = (pid) => {
  try {
    return execFileSync('pgrep', ['-P', String(pid)]).toString().trim().split('\n').filter(Boolean).map(Number);
  } catch {
    return [];
  }
};
const descendants = (pid) => children(pid).flatMap((child) => [child, ...descendants(child)]);
const comm = (pid) => {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return '';
  }
};
const percentile = (values, q) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(sorted.length * q) - 1))];
};

// An agent printing as fast as it can, for the output-flood measurement (FLOOD=1).
const FLOOD = 'while :; do printf "\\033[33mflood\\033[0m %s\\n" "an agent printing as fast as the terminal takes it, line after line after line, for good"; done';
// An agent that prints one line and waits: the flood's baseline.
const IDLE = 'echo ready; read -r _';

async function measure(agents, command = STREAM) {
  const dataDir = mkdtempSync(join(tmpdir(), `switchboard-scale-${agents}-`));
  execFileSync(SEED, [dataDir, String(agents), 'bash', '-c', command]);
  const { browser, close } = await launchApp({ dataDir, args: ['--no-demo'] });
  try {
    await browser.waitUntil(async () => (await browser.$$('[data-testid="session-entry"][data-state="running"]')).length === agents, {
      timeout: 60_000,
      timeoutMsg: `not all ${agents} agents started`,
    });
    // Look at one streaming terminal, as a user would.
    await (await browser.$('[data-testid="session-entry"][data-state="running"]')).click();
    await sleep(SETTLE_MS);

    const app = Number(execFileSync('pgrep', ['-f', `${APP} --data-dir ${dataDir}`]).toString().trim().split('\n')[0]);
    const webkit = descendants(app).filter((pid) => comm(pid).startsWith('WebKit'));
    const appRss = kib(app, 'VmRSS');
    const webkitRss = webkit.reduce((sum, pid) => sum + kib(pid, 'VmRSS'), 0);

    const frames = await frameTimes(browser, 3000);

    const listTimes = [];
    for (let i = 0; i < 20; i++) {
      const t0 = performance.now();
      execFileSync(APP, ['--data-dir', dataDir, 'agent', 'list'], { stdio: 'ignore' });
      listTimes.push(performance.now() - t0);
    }
    return {
      agents,
      appRss,
      webkitRss,
      frameP50: percentile(frames, 0.5),
      frameP99: percentile(frames, 0.99),
      listP50: percentile(listTimes, 0.5),
      listP99: percentile(listTimes, 0.99),
    };
  } finally {
    await close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

// The memory of a long run (SOAK_MINUTES=10): AGENTS streaming, the window on one of them; the
// app's, WebKit's and the engine's RSS after the first minute (the baseline) and at the end.
const SOAK_MINUTES = Number(process.env.SOAK_MINUTES ?? 0);
if (SOAK_MINUTES > 0) {
  const dataDir = mkdtempSync(join(tmpdir(), `switchboard-soak-${AGENTS}-`));
  execFileSync(SEED, [dataDir, String(AGENTS), 'bash', '-c', STREAM]);
  const { browser, close } = await launchApp({ dataDir, args: ['--no-demo'] });
  try {
    await browser.waitUntil(async () => (await browser.$$('[data-testid="session-entry"][data-state="running"]')).length === AGENTS, {
      timeout: 120_000,
      timeoutMsg: `not all ${AGENTS} agents started`,
    });
    await (await browser.$('[data-testid="session-entry"][data-state="running"]')).click();
    // The window (its engine runs as `… daemon`, a process of its own).
    const app = Number(execFileSync('pgrep', ['-f', `${APP} --data-dir ${dataDir} --no-demo$`]).toString().trim().split('\n')[0]);
    const engine = Number(execFileSync('pgrep', ['-f', `daemon.*${dataDir}|${dataDir}.*daemon`]).toString().trim().split('\n')[0]);
    const sample = () => ({
      app: kib(app, 'VmRSS'),
      webkit: descendants(app).filter((pid) => comm(pid).startsWith('WebKit')).reduce((sum, pid) => sum + kib(pid, 'VmRSS'), 0),
      engine: kib(engine, 'VmRSS'),
    });
    const started = Date.now();
    await sleep(60_000);
    const first = sample();
    const samples = [first];
    while (Date.now() - started < SOAK_MINUTES * 60_000) {
      await sleep(60_000);
      samples.push(sample());
      console.log(`minute ${samples.length}: app ${samples.at(-1).app} KiB, WebKit ${samples.at(-1).webkit} KiB, engine ${samples.at(-1).engine} KiB`);
    }
    const last = samples.at(-1);
    console.log(`${''.padEnd(14)} ${'after 1 min'.padStart(12)} ${`after ${SOAK_MINUTES} min`.padStart(13)}   (${AGENTS} agents streaming)`);
    for (const key of ['app', 'webkit', 'engine']) {
      console.log(`${`${key} RSS`.padEnd(14)} ${String(first[key]).padStart(12)} ${String(last[key]).padStart(13)} KiB ratio ${(last[key] / first[key]).toFixed(2)}`);
    }
  } finally {
    await close();
    rmSync(dataDir, { recursive: true, force: true });
  }
  process.exit(0);
}

// The grid (GRID=1): TILES (9) agents streaming 50 lines a second each; the window's frame time
// with one of them shown in its terminal view (the baseline), then with all of them in the grid.
if (process.env.GRID === '1') {
  const TILES = Number(process.env.TILES ?? 9);
  const dataDir = mkdtempSync(join(tmpdir(), `switchboard-grid-${TILES}-`));
  execFileSync(SEED, [dataDir, String(TILES), 'bash', '-c', STREAM]);
  const { browser, close } = await launchApp({ dataDir, args: ['--no-demo'] });
  try {
    await addStyle(browser, process.env.CSS);
    await browser.waitUntil(async () => (await browser.$$('[data-testid="session-entry"][data-state="running"]')).length === TILES, {
      timeout: 60_000,
      timeoutMsg: `not all ${TILES} agents started`,
    });
    await (await browser.$('[data-testid="session-entry"][data-state="running"]')).click();
    await sleep(SETTLE_MS);
    const one = await frameTimes(browser, 5000);

    await (await browser.$('[data-testid="open-grid"]')).click();
    const ids = await browser.execute(() =>
      [...document.querySelectorAll('[data-testid="profile-entry"]')].map((entry) => entry.getAttribute('data-profile-id')),
    );
    for (const id of ids) {
      await (await browser.$('[data-testid="grid-add-agent"]')).selectByAttribute('value', id);
      await browser.waitUntil(async () => (await browser.$$(`[data-testid="grid-tile"][data-profile-id="${id}"]`)).length === 1, {
        timeout: 10_000,
        timeoutMsg: 'an agent chosen did not get its tile',
      });
    }
    await sleep(SETTLE_MS);
    // WORST=N: the N slowest frames, with the changes in each tile (by place) before each.
    const tileParts = Array.from({ length: TILES }, (_, i) => `[data-testid="grid-tile"][data-place="${i + 1}"]`);
    const grid = process.env.WORST ? await worstFrames(browser, 5000, ['.sidebar', ...tileParts], Number(process.env.WORST)) : await frameTimes(browser, 5000);
    const row = (label, q) =>
      console.log(`${label.padEnd(20)} ${percentile(one, q).toFixed(1).padStart(9)} ${percentile(grid, q).toFixed(1).padStart(9)} ms  ratio ${(percentile(grid, q) / percentile(one, q)).toFixed(2)}`);
    console.log(`${TILES} agents streaming 50 lines/s each; ${SETTLE_MS} ms to settle, 5 s measured`);
    console.log(`${''.padEnd(20)} ${'1 shown'.padStart(9)} ${`${TILES} in grid`.padStart(9)}`);
    row('frame time p50', 0.5);
    row('frame time p99', 0.99);
  } finally {
    await close();
    rmSync(dataDir, { recursive: true, force: true });
  }
  process.exit(0);
}

const flood = process.env.FLOOD === '1';
const one = await measure(1, flood ? IDLE : STREAM);
const many = await measure(flood ? 1 : AGENTS, flood ? FLOOD : STREAM);
const row = (label, key, unit, digits = 1) =>
  console.log(
    `${label.padEnd(34)} ${one[key].toFixed(digits).padStart(9)} ${many[key].toFixed(digits).padStart(9)} ${unit.padEnd(4)} ratio ${(many[key] / one[key]).toFixed(2)}`,
  );
console.log(
  flood
    ? `${''.padEnd(34)} ${'idle'.padStart(9)} ${'flooding'.padStart(9)}   (one agent, its terminal shown, ${SETTLE_MS} ms)`
    : `${''.padEnd(34)} ${'1 agent'.padStart(9)} ${`${AGENTS} agents`.padStart(9)}`,
);
row('app RSS', 'appRss', 'KiB', 0);
row('WebKit RSS', 'webkitRss', 'KiB', 0);
row('frame time p50 (streaming terminal)', 'frameP50', 'ms');
row('frame time p99', 'frameP99', 'ms');
row('`agent list` p50', 'listP50', 'ms');
row('`agent list` p99', 'listP99', 'ms');

