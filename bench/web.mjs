// Paired browsers beside the desktop window, in one run (bench/web.sh builds and gives a display):
//
// 1. The engine's CPU and the window's frame time with TEN (10) paired protocol-level WebSocket
//    clients connected (each says hello and follows the events, as an open page does; with
//    ATTACH=1 each also shows the streaming terminal the window shows), beside none, in
//    alternating rounds (ROUNDS, 4; each SPAN_MS, 5000, long), AGENTS (4) agents streaming 50
//    lines a second.
// 2. Page load to what the page opens on (the window's agents and their attention; a phone's
//    inbox) and engine event to screen (a task queued from the command line until its name is on
//    screen), p50 and p99 over SAMPLES (30), in the window and in Chromium at a phone's size.

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import WebSocket from '../tests/e2e/node_modules/ws/wrapper.mjs';
import { APP, ROOT, frameTimes, launchApp } from '../tests/e2e/driver.mjs';
import { openPhone } from '../tests/e2e/chromium.mjs';

const TEN = Number(process.env.TEN ?? 10);
const ROUNDS = Number(process.env.ROUNDS ?? 4);
const SPAN_MS = Number(process.env.SPAN_MS ?? 5000);
const AGENTS = Number(process.env.AGENTS ?? 4);
const SAMPLES = Number(process.env.SAMPLES ?? 30);
const SEED = join(ROOT, 'target/debug/switchboard-bench-seed');
const STREAM = 'i=0; while :; do i=$((i+1)); printf "\\033[32m%6d\\033[0m streaming output line of a busy agent\\n" $i; read -r -t 0.02 _; done';
const TICKS = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim());

const percentile = (values, q) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(sorted.length * q) - 1))];
};
const median = (values) => percentile(values, 0.5);
const cli = (dataDir, ...args) => execFileSync(APP, ['--data-dir', dataDir, ...args], { encoding: 'utf8' });
/** CPU seconds a process has used (user and system). */
const cpuSeconds = (pid) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS;
};

/** A frame as wire.rs writes it: length, kind 0, JSON. */
const frame = (value) => {
  const body = Buffer.from(JSON.stringify(value));
  const head = Buffer.alloc(5);
  head.writeUInt32BE(body.length + 1, 0);
  return Buffer.concat([head, body]);
};

/** The cookie a browser gets for opening a pairing address. */
async function pairCookie(dataDir) {
  const { url } = JSON.parse(cli(dataDir, 'web', 'pair', '--json'));
  const answer = await fetch(url, { redirect: 'manual' });
  return answer.headers.get('set-cookie').split(';')[0];
}

/**
 * A protocol-level client: hello and the events, and (ATTACH=1) the terminal of `session`;
 * resolves when all answered.
 */
function client(base, cookie, session, attach = process.env.ATTACH === '1') {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`${base.replace('http', 'ws')}/ws`, { headers: { Cookie: cookie, Origin: base } });
    let answered = 0;
    socket.on('open', () => socket.send(frame({ protocol: 1, app_version: 'bench', build_id: '', client_kind: 'browser', client_id: `bench-${Math.random()}` })));
    socket.on('message', (data) => {
      if (data[4] !== 0) return;
      const value = JSON.parse(data.subarray(5).toString());
      if (value.type === 'welcome') {
        socket.send(frame({ type: 'request', id: 1, request: { type: 'subscribe' } }));
        if (attach) socket.send(frame({ type: 'request', id: 2, request: { type: 'attach', session_id: session, stream: 1 } }));
      } else if (value.type === 'reply' && ++answered === (attach ? 2 : 1)) {
        resolve(socket);
      }
    });
    socket.on('error', reject);
  });
}

/** The engine's CPU (percent of one core) and the window's frames over SPAN_MS. */
async function span(browser, engine) {
  const before = cpuSeconds(engine);
  const started = performance.now();
  const frames = await frameTimes(browser, SPAN_MS);
  const cpu = ((cpuSeconds(engine) - before) / ((performance.now() - started) / 1000)) * 100;
  return { cpu, frameP50: median(frames), frameP95: percentile(frames, 0.95) };
}

const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-web-bench-'));
execFileSync(SEED, [dataDir, String(AGENTS), 'bash', '-c', STREAM]);
const { browser, close } = await launchApp({ dataDir, args: ['--no-demo'] });
const results = { none: [], ten: [] };
try {
  await browser.waitUntil(async () => (await browser.$$('[data-testid="session-entry"][data-state="running"]')).length === AGENTS, {
    timeout: 60_000,
    timeoutMsg: `not all ${AGENTS} agents started`,
  });
  const shown = await browser.$('[data-testid="session-entry"][data-state="running"]');
  const session = await shown.getAttribute('data-session-id');
  await shown.click();
  const engine = JSON.parse(cli(dataDir, 'daemon', '--status', '--json')).pid;
  const base = JSON.parse(cli(dataDir, 'web', '--json')).url;
  const cookies = [];
  for (let i = 0; i < TEN; i++) cookies.push(await pairCookie(dataDir));
  await sleep(2000);
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? ['none', 'ten'] : ['ten', 'none'];
    for (const condition of order) {
      const clients = condition === 'ten' ? await Promise.all(cookies.map((cookie) => client(base, cookie, session))) : [];
      await sleep(500);
      results[condition].push(await span(browser, engine));
      for (const socket of clients) socket.close();
      await sleep(500);
    }
  }
  const row = (name, key) => {
    const none = median(results.none.map((r) => r[key]));
    const ten = median(results.ten.map((r) => r[key]));
    console.log(`${name.padEnd(28)} ${none.toFixed(2).padStart(8)} ${ten.toFixed(2).padStart(8)}   ratio ${(ten / none).toFixed(2)}`);
  };
  console.log(`${''.padEnd(28)} ${'none'.padStart(8)} ${`${TEN} web`.padStart(8)}   (${AGENTS} agents streaming, ${ROUNDS} rounds of ${SPAN_MS} ms)`);
  row('engine CPU (% of a core)', 'cpu');
  row('window frame p50 (ms)', 'frameP50');
  row('window frame p95 (ms)', 'frameP95');
  if (process.env.LATENCY !== '0') await latency(browser, dataDir, base);
} finally {
  await close();
  rmSync(dataDir, { recursive: true, force: true });
}

/**
 * Page load and event-to-screen in the window and in a phone's Chromium: `opened` is what each
 * shows first, `showTasks` brings the first agent's tasks on screen.
 */
async function latency(window, dataDir, base) {
  const agent = JSON.parse(cli(dataDir, 'agent', 'list', '--json'))[0];
  const phone = await openPhone();
  try {
    await phone.browser.url(JSON.parse(cli(dataDir, 'web', 'pair', '--json')).url);
    const pages = [
      { name: 'window', browser: window, opened: '[data-testid="session-entry"]', showTasks: () => showTasksInWindow(window, agent.name) },
      { name: 'phone', browser: phone.browser, opened: '[data-testid="phone-inbox"]', showTasks: () => showTasksOnPhone(phone.browser, agent.id) },
    ];
    for (const page of pages) {
      const loads = [];
      for (let i = 0; i < Math.min(SAMPLES, 10); i++) {
        await page.browser.refresh();
        loads.push(await page.browser.executeAsync((selector, done) => {
          const look = () => (document.querySelector(selector) ? done(performance.now()) : requestAnimationFrame(look));
          look();
        }, page.opened));
      }
      await page.showTasks();
      const shown = [];
      for (let i = 0; i < SAMPLES; i++) {
        const name = `bench-task-${page.name}-${i}-${Date.now()}`;
        const seen = page.browser.executeAsync((text, done) => {
          const observer = new MutationObserver(() => {
            if (document.body.innerText.includes(text)) {
              observer.disconnect();
              done(performance.timeOrigin + performance.now());
            }
          });
          observer.observe(document.body, { subtree: true, childList: true, characterData: true });
        }, name);
        await sleep(50);
        const sent = Date.now();
        cli(dataDir, 'task', 'add', '--agent', agent.name, name);
        shown.push((await seen) - sent);
      }
      console.log(`${page.name.padEnd(8)} page load to first view p50 ${median(loads).toFixed(0)} ms, p99 ${percentile(loads, 0.99).toFixed(0)} ms; task queued to on screen p50 ${median(shown).toFixed(0)} ms, p99 ${percentile(shown, 0.99).toFixed(0)} ms`);
    }
  } finally {
    await phone.close();
  }
}

async function showTasksInWindow(browser, name) {
  await (await browser.$(`[data-testid="profile-entry"][data-profile-name="${name}"] [data-testid="session-entry"]`)).click();
}

async function showTasksOnPhone(browser, profileId) {
  await (await browser.$('[data-testid="phone-nav-agents"]')).click();
  await (await browser.$(`[data-testid="phone-agent-entry"][data-profile-id="${profileId}"]`)).click();
  await (await browser.$('[data-testid="phone-tab-tasks"]')).click();
  await (await browser.$('[data-testid="phone-tasks"]')).waitForExist({ timeout: 10_000 });
}
