// The window under load, in one run: AGENTS agents whose hooks report RATE events a second in
// all (a tool call, then a permission prompt, and again, round the agents). The window shows the
// dashboard with no events (its baseline), then with them, then one agent's terminal (the flows
// view closed: the flows' baseline), then that agent's flows with its status diagram drawn.
// Reports the window's frame time and each process's CPU in each, and, with the view open, the
// time from an event of the shown agent sent on the socket to its node lit in the window.
// Each pair of phases is measured in turn ROUNDS times (3), so that both see the same machine.
// Run with bench/flows.sh (it builds and provides a display). WORST=N also prints the N slowest
// frames of each open round and what changed on the page before and during each. PERF=dir
// records a CPU profile of the window and the processes it started in each phase (perf,
// dir/<phase>-<round>.data).
// CSS="..." adds that style sheet to the window first, to try a change of look without a build.

import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ROOT, addStyle, frameTimes, launchApp, worstFrames } from '../tests/e2e/driver.mjs';

const AGENTS = Number(process.env.AGENTS ?? 50);
const RATE = Number(process.env.RATE ?? 100);
const PHASE_MS = Number(process.env.PHASE_MS ?? 10_000);
/** The flows view closed and open in turn, this many times, each for PHASE_MS / ROUNDS. */
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const SEED = join(ROOT, 'target/debug/switchboard-bench-seed');
/** The parts of the window `WORST` counts changes in. */
const FLOWS_PARTS = ['.sidebar', '.flows .list', '.flows .drawing', '.flows .scrubber', '.flows .events', '.flows .panel-bar'];

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
  let children = [];
  try {
    children = execFileSync('pgrep', ['-P', String(pid)]).toString().trim().split('\n').filter(Boolean);
  } catch {
    // No children.
  }
  for (const child of children) {
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
// Each agent writes down its session, its secret (a hook event without it is not taken) and the
// app's socket, then waits.
execFileSync(SEED, [dataDir, String(AGENTS), 'bash', '-c', `echo "$SWITCHBOARD_SESSION_ID $SWITCHBOARD_SOCKET $SWITCHBOARD_SESSION_SECRET" >> ${sessionsFile}; read -r _`]);
const { browser, close } = await launchApp({ dataDir, args: ['--no-demo'] });
try {
  await addStyle(browser, process.env.CSS);
  await browser.waitUntil(async () => (await browser.$$('[data-testid="session-entry"][data-state="running"]')).length === AGENTS, {
    timeout: 60_000,
    timeoutMsg: `not all ${AGENTS} agents started`,
  });
  const lines = readFileSync(sessionsFile, 'utf8').trim().split('\n').map((l) => l.split(' '));
  const socketPath = lines[0][1];
  const sessions = lines.map((l) => l[0]);
  const secrets = new Map(lines.map((l) => [l[0], l[2]]));
  // The shown agent: the first in the sidebar.
  const first = await browser.$('[data-testid="session-entry"][data-state="running"]');
  await first.click();
  const shown = await (await browser.$('[data-testid="session-view"]')).getAttribute('data-session-id');
  await (await browser.$('[data-testid="open-dashboard"]')).click();
  await (await browser.$('[data-testid="dashboard"]')).waitForExist({ timeout: 10_000 });
  if (process.env.SORT) await (await browser.$('[data-testid="dashboard-sort"]')).selectByAttribute('value', process.env.SORT);

  // The hooks: one connection, an event every 1000/RATE ms, round the agents, opened again when
  // the events start if the engine closed it while idle (it closes one idle for 10 s). A
  // connection lost while events are sent ends the bench rather than measuring a window with
  // no events.
  let socket = null;
  let sending = true;
  const connect = async () => {
    socket = net.createConnection(socketPath);
    await new Promise((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    socket.on('data', () => {});
    socket.on('close', () => {
      if (!sending) return;
      console.error('the engine closed the hooks connection while the bench sent events');
      process.exit(1);
    });
  };
  const sent = []; // [time, node] of the shown agent's events
  const sentDuring = []; // [from, to] of each open phase
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
    socket.write(`${JSON.stringify({ type: 'hook', envelope: { session_id: session, env: {}, at, payload, secret: secrets.get(session) } })}\n`);
  };

  // The window, and the engine: a process of its own, which the window started.
  const pids = execFileSync('pgrep', ['-f', '--', `--data-dir ${dataDir}`]).toString().trim().split('\n').map(Number);
  const isEngine = (pid) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes('daemon');
  const app = pids.find((pid) => !isEngine(pid));
  const engine = pids.find(isEngine);
  const usage = {};
  // PERF=dir: a CPU profile of the window and the processes it started (WebKit's, and the engine
  // it started) in each phase and round, dir/<phase>-<round>.data.
  const childPids = () => execFileSync('pgrep', ['-P', String(app)]).toString().trim().split('\n').filter(Boolean);
  const measured = async (name, run) => {
    const perf = process.env.PERF
      ? spawn('perf', ['record', '-q', '-F', '499', '-g', '-o', join(process.env.PERF, `${name}-${usage[name]?.runs ?? 0}.data`), '-p', [app, ...childPids()].join(',')], { stdio: 'ignore' })
      : null;
    const before = [cpu(app), cpu(engine)];
    const started = performance.now();
    const result = await run();
    const after = [cpu(app), cpu(engine)];
    if (perf) {
      perf.kill('SIGINT');
      await new Promise((resolve) => perf.once('exit', resolve));
    }
    const seconds = (performance.now() - started) / 1000;
    const share = (which, key) => (100 * (after[which][key] - before[which][key])) / seconds;
    // A phase measured in several rounds: the mean of its rounds.
    const runs = (usage[name]?.runs ?? 0) + 1;
    const mean = (key, value) => ((usage[name]?.[key] ?? 0) * (runs - 1) + value) / runs;
    usage[name] = { runs, app: mean('app', share(0, 'app')), webkit: mean('webkit', share(0, 'webkit')), engine: mean('engine', share(1, 'app')) };
    return result;
  };
  const frames = () => frameTimes(browser, PHASE_MS / ROUNDS);

  // The dashboard with every agent idle, then with the hooks reporting, in turn ROUNDS times.
  await sleep(1000);
  const idle = [];
  const dashboard = [];
  let timer = null;
  for (let round = 0; round < ROUNDS; round++) {
    sending = false;
    idle.push(...(await measured('idle', frames)));
    if (socket === null || socket.readyState !== 'open') await connect();
    sending = true;
    timer = setInterval(send, 1000 / RATE);
    await sleep(1000);
    dashboard.push(...(await measured('dashboard', frames)));
    if (round < ROUNDS - 1) {
      clearInterval(timer);
      // What the last events changed is drawn before the idle window is measured again.
      await sleep(1000);
    }
  }

  // The shown agent's terminal (the flows view closed), then its flows, in turn ROUNDS times:
  // each gets the same share of a run whose machine may grow busier as it goes.
  await first.click();
  await (await browser.$('[data-testid="session-view"]')).waitForExist({ timeout: 10_000 });
  await sleep(1000);
  const closed = [];
  const open = [];
  const lit = [];
  const rounds = []; // [closed p99, open p99] of each round
  for (let round = 0; round < ROUNDS; round++) {
    const closedRound = await measured('closed', () => frameTimes(browser, PHASE_MS / ROUNDS));
    closed.push(...closedRound);
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
    // Measured once the view has loaded and drawn, as the closed view is.
    await sleep(1000);
    const from = Date.now();
    const openRound = await measured('open', () =>
      process.env.WORST ? worstFrames(browser, PHASE_MS / ROUNDS, FLOWS_PARTS, Number(process.env.WORST)) : frameTimes(browser, PHASE_MS / ROUNDS),
    );
    open.push(...openRound);
    rounds.push([percentile(closedRound, 0.99), percentile(openRound, 0.99)]);
    sentDuring.push([from, Date.now()]);
    lit.push(...(await browser.execute(() => window.__lit)));
    await (await browser.$('button[aria-label="Close the flows"]')).click();
    await (await browser.$('[data-testid="flows-view"]')).waitForExist({ reverse: true, timeout: 10_000 });
    await sleep(1000);
  }
  clearInterval(timer);
  sending = false;
  socket.end();


  // Each event sent while the view was open that changed the shown agent's node, to the first
  // moment that node lit after it.
  const latencies = [];
  for (let i = 1; i < sent.length; i++) {
    const [at, node] = sent[i];
    if (node === sent[i - 1][1] || !sentDuring.some(([from, to]) => at >= from && at <= to)) continue;
    const seen = lit.find(([when, which]) => which === node && when >= at);
    if (seen) latencies.push(seen[0] - at);
  }
  const row = (label, values, unit) => console.log(`${label.padEnd(28)} ${values.map((v) => v.toFixed(1).padStart(9)).join(' ')} ${unit.padEnd(3)}`);
  const ratio = (label, a, b) => console.log(`${label.padEnd(60)} ${(b / a).toFixed(2)}`);
  const phases = ['idle', 'dashboard', 'closed', 'open'];
  const frameSets = { idle, dashboard, closed, open };
  console.log(`${AGENTS} agents, ${RATE} hook events/s in all, ${PHASE_MS} ms each`);
  console.log('phases: idle = the dashboard, no events; dashboard = the dashboard, events; closed = one terminal, events; open = its flows, events');
  console.log(`${''.padEnd(28)} ${phases.map((p) => p.padStart(9)).join(' ')}`);
  row('frame time p50', phases.map((p) => percentile(frameSets[p], 0.5)), 'ms');
  row('frame time p99', phases.map((p) => percentile(frameSets[p], 0.99)), 'ms');
  row('engine CPU', phases.map((p) => usage[p].engine), '%');
  row('window CPU (the shell)', phases.map((p) => usage[p].app), '%');
  row('WebKit CPU (the window)', phases.map((p) => usage[p].webkit), '%');
  ratio('WebKit CPU, dashboard with events / idle', usage.idle.webkit, usage.dashboard.webkit);
  ratio('frame time p99, flows open / closed', percentile(closed, 0.99), percentile(open, 0.99));
  ratio('frame time p50, flows open / closed', percentile(closed, 0.5), percentile(open, 0.5));
  console.log(`frame time p99 of each round, closed / open: ${rounds.map(([c, o]) => `${c.toFixed(0)} / ${o.toFixed(0)}`).join(', ')} ms`);
  console.log(
    `event to node lit (view open)        p50 ${percentile(latencies, 0.5).toFixed(1)} ms, p99 ${percentile(latencies, 0.99).toFixed(1)} ms over ${latencies.length} changes (${sent.filter(([at]) => sentDuring.some(([from, to]) => at >= from && at <= to)).length} events of the shown agent)`,
  );
} finally {
  await close();
  rmSync(dataDir, { recursive: true, force: true });
}
