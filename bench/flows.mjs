// The live flows under load, in one run: AGENTS agents whose hooks report RATE events a second in
// all (a tool call, then a permission prompt, and again, round the agents), while the window
// shows one agent's terminal (the view closed: the baseline) and then that agent's flows with
// its status diagram drawn. Reports the window's frame time in both, and, with the view open,
// the time from an event of the shown agent sent on the socket to its node lit in the window.
// Run with bench/flows.sh (it builds and provides a display).

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ROOT, frameTimes, launchApp } from '../tests/e2e/driver.mjs';

const AGENTS = Number(process.env.AGENTS ?? 50);
const RATE = Number(process.env.RATE ?? 100);
const PHASE_MS = Number(process.env.PHASE_MS ?? 10_000);
const SEED = join(ROOT, 'target/debug/switchboard-bench-seed');

/** CPU seconds used so far by a process and by its WebKit children. */
const cpu = (pid) => {
  const ticks = (p) => {
    try {
      const fields = readFileSync(`/proc/${p}/stat`, 'utf8').split(') ')[1].split(' ');
      return Number(fields[11]) + Number(fields[12]);
    } catch {
      return 0;
    }
  };
  let webkit = 0;
  for (const child of execFileSync('pgrep', ['-P', String(pid)]).toString().trim().split('\n').filter(Boolean)) {
    if (readFileSync(`/proc/${child}/comm`, 'utf8').startsWith('WebKit')) webkit += ticks(child);
  }
  return { app: ticks(pid) / 100, webkit: webkit / 100 };
};
const percentile = (values, q) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(sorted.length * q) - 1))];
};

const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-flows-bench-'));
const sessionsFile = join(dataDir, 'sessions.txt');
// Each agent writes down its session and the app's socket, then waits.
execFileSync(SEED, [dataDir, String(AGENTS), 'bash', '-c', `echo "$SWITCHBOARD_SESSION_ID $SWITCHBOARD_SOCKET" >> ${sessionsFile}; read -r _`]);
const { browser, close } = await launchApp({ dataDir, args: ['--no-demo'] });
try {
  await browser.waitUntil(async () => (await browser.$$('[data-testid="session-entry"][data-state="running"]')).length === AGENTS, {
    timeout: 60_000,
    timeoutMsg: `not all ${AGENTS} agents started`,
  });
  const lines = readFileSync(sessionsFile, 'utf8').trim().split('\n').map((l) => l.split(' '));
  const socketPath = lines[0][1];
  const sessions = lines.map((l) => l[0]);
  // The shown agent: the first in the sidebar.
  const first = await browser.$('[data-testid="session-entry"][data-state="running"]');
  await first.click();
  const shown = await (await browser.$('[data-testid="session-view"]')).getAttribute('data-session-id');

  // The hooks: one connection, an event every 1000/RATE ms, round the agents.
  const socket = net.createConnection(socketPath);
  await new Promise((resolve) => socket.once('connect', resolve));
  socket.on('data', () => {});
  const sent = []; // [time, node] of the shown agent's events
  let n = 0;
  const send = () => {
    const session = sessions[n % sessions.length];
    const permission = Math.floor(n / sessions.length) % 2 === 1;
    n++;
    const payload = permission
      ? { hook_event_name: 'Notification', message: 'Claude needs your permission to use Bash', notification_type: 'permission_prompt' }
      : { hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'ls' } };
    const at = Date.now();
    if (session === shown) sent.push([at, permission ? 'permission' : 'tool_use']);
    socket.write(`${JSON.stringify({ type: 'hook', envelope: { session_id: session, env: {}, at, payload } })}\n`);
  };
  const timer = setInterval(send, 1000 / RATE);

  const app = Number(execFileSync('pgrep', ['-f', `switchboard --data-dir ${dataDir}`]).toString().trim().split('\n')[0]);
  const usage = {};
  const measured = async (name, run) => {
    const before = cpu(app);
    const started = performance.now();
    const result = await run();
    const after = cpu(app);
    const seconds = (performance.now() - started) / 1000;
    usage[name] = { app: (100 * (after.app - before.app)) / seconds, webkit: (100 * (after.webkit - before.webkit)) / seconds };
    return result;
  };
  const frames = () => frameTimes(browser, PHASE_MS);

  await sleep(1000);
  const closed = await measured('closed', frames);

  await (await browser.$('[data-testid="open-flows"]')).click();
  await (await browser.$('[data-testid="flow-node-agent_status-tool_use"]')).waitForExist({ timeout: 10_000 });
  // Note each moment a status node lights.
  await browser.execute(() => {
    window.__lit = [];
    for (const node of ['tool_use', 'permission']) {
      const element = document.querySelector(`[data-testid="flow-node-agent_status-${node}"]`);
      new MutationObserver(() => {
        if (element.getAttribute('data-lit') === 'true') window.__lit.push([Date.now(), node]);
      }).observe(element, { attributes: true, attributeFilter: ['data-lit'] });
    }
  });
  sent.length = 0;
  const open = await measured('open', frames);
  const lit = await browser.execute(() => window.__lit);
  clearInterval(timer);
  socket.end();


  // Each event that changed the shown agent's node, to the first moment that node lit after it.
  const latencies = [];
  for (let i = 1; i < sent.length; i++) {
    const [at, node] = sent[i];
    if (node === sent[i - 1][1]) continue;
    const seen = lit.find(([when, which]) => which === node && when >= at);
    if (seen) latencies.push(seen[0] - at);
  }
  const row = (label, a, b, unit) =>
    console.log(`${label.padEnd(36)} ${a.toFixed(1).padStart(9)} ${b.toFixed(1).padStart(9)} ${unit.padEnd(3)} ratio ${(b / a).toFixed(2)}`);
  console.log(`${AGENTS} agents, ${RATE} hook events/s in all, ${PHASE_MS} ms each`);
  console.log(`${''.padEnd(36)} ${'closed'.padStart(9)} ${'open'.padStart(9)}`);
  row('frame time p50', percentile(closed, 0.5), percentile(open, 0.5), 'ms');
  row('frame time p99', percentile(closed, 0.99), percentile(open, 0.99), 'ms');
  row('app CPU (engine and shell)', usage.closed.app, usage.open.app, '%');
  row('WebKit CPU (the window)', usage.closed.webkit, usage.open.webkit, '%');
  console.log(
    `event to node lit (view open)        p50 ${percentile(latencies, 0.5).toFixed(1)} ms, p99 ${percentile(latencies, 0.99).toFixed(1)} ms over ${latencies.length} changes (${sent.length} events of the shown agent)`,
  );
} finally {
  await close();
  rmSync(dataDir, { recursive: true, force: true });
}
