// The engine as a daemon of its own: `switchboard daemon` runs agents with no window, the
// command line talks to it as to the app, `--status` says it runs, and `--stop` stops its
// agents and exits.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { APP, DEMO_AGENT } from './driver.mjs';

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(what, check, timeout = 30_000) {
  const deadline = Date.now() + timeout;
  for (;;) {
    const found = check();
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

test('switchboard daemon runs agents with no window, says so, and stops them', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-daemon-'));
  const workspace = join(dataDir, 'work');
  mkdirSync(workspace);
  const cli = (...args) => spawnSync(APP, ['--data-dir', dataDir, ...args], { encoding: 'utf8' });
  const status = () => JSON.parse(cli('daemon', '--status', '--json').stdout);
  // Nothing runs yet: said, with the exit status scripts check.
  const before = cli('daemon', '--status');
  assert.equal(before.status, 3);
  assert.match(before.stdout, /No engine runs on/);

  const daemon = spawn(APP, ['--data-dir', dataDir, '--no-demo', 'daemon'], { stdio: 'ignore' });
  const exited = new Promise((resolve) => daemon.on('exit', (code) => resolve(code)));
  const marker = `daemon-test-${process.pid}>`;
  try {
    // It runs (holds the data directory) before it answers on its socket.
    const running = await until('the daemon to answer', () => {
      const now = status();
      return now.running && now.answering ? now : null;
    });
    assert.equal(running.pid, daemon.pid);
    assert.match(running.version, /^\d+\.\d+\.\d+/);
    assert.equal(running.agents, 0);

    // The command line works against it as against the app; an agent does a task.
    execFileSync(APP, ['--data-dir', dataDir, 'agent', 'add', '--name', 'writer', '--command', DEMO_AGENT, '--arg', '--speed', '--arg', 'fast', '--arg', '--prompt', '--arg', marker, '--cwd', workspace]);
    execFileSync(APP, ['--data-dir', dataDir, 'task', 'add', '--agent', 'writer', 'Draft the release notes']);
    await until('the task to complete', () => {
      const tasks = JSON.parse(cli('task', 'list', '--json').stdout);
      return tasks.length === 1 && tasks[0].state === 'completed';
    });
    assert.equal(status().agents, 1);
    assert.equal(spawnSync('pgrep', ['-f', marker]).status, 0, 'the agent runs');

    // Stop: its agents stop, it exits, and the status says so.
    const stopped = cli('daemon', '--stop');
    assert.equal(stopped.status, 0, stopped.stderr);
    assert.match(stopped.stdout, /stopped; its agent stopped/);
    assert.equal(await exited, 0);
    assert.equal(status().running, false);
    assert.notEqual(spawnSync('pgrep', ['-f', marker]).status, 0, 'no agent is left running');
  } finally {
    if (daemon.exitCode === null) daemon.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  }
});
