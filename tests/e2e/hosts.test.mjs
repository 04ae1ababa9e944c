// Another machine's engine in the window, over a real OpenSSH server on 127.0.0.1 (its own
// configuration on a free port, throwaway keys; a data directory of its own stands for the
// other machine's). The host is added from the command line, its key accepted by its
// fingerprint; the window on this machine shows that machine's agents beside its own, each
// named with its machine, and makes an agent there (its folder picked among that machine's
// folders, through its engine). When the connection drops the window says so and tries again
// by itself; a task that ended there meanwhile is shown once it is back, and nothing was added
// twice. A question an agent there asks is answered from the window, and the agent goes on with
// the answer there. The Machines view adds a host whose key the user trusts. A lying machine (a
// proxy in front of its engine) takes no agent of this one, its 15 MiB name is shown a name's
// length, and its storage problem is a banner naming it, not this computer's.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { APP, DEMO_AGENT, ROOT, launchApp, stopEngine } from './driver.mjs';

const byTestId = (id) => `[data-testid="${id}"]`;
// The machine's label is made of spans a flex row lays out; its words as the DOM holds them.
const textOf = async (element) => (await element.getProperty('textContent')).trim();

async function waitFor(what, probe, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

function freePort() {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function listens(port) {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.on('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}

/** An sshd of the test's own; `start()` again after `stop()` brings it back with the same key. */
async function sshServer(dir) {
  const port = await freePort();
  for (const key of ['host_key', 'user_key']) {
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(dir, key)]);
  }
  copyFileSync(join(dir, 'user_key.pub'), join(dir, 'authorized_keys'));
  const remoteXdg = join(dir, 'remote-xdg');
  if (process.getuid() === 0) mkdirSync('/run/sshd', { recursive: true });
  writeFileSync(
    join(dir, 'sshd_config'),
    [
      `Port ${port}`,
      'ListenAddress 127.0.0.1',
      `HostKey ${dir}/host_key`,
      `AuthorizedKeysFile ${dir}/authorized_keys`,
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'UsePAM no',
      'StrictModes no',
      `PidFile ${dir}/sshd.pid`,
      'PermitRootLogin prohibit-password',
      `SetEnv XDG_DATA_HOME=${remoteXdg}`,
      '',
    ].join('\n'),
  );
  writeFileSync(
    join(dir, 'ssh_config'),
    [
      'Host testhost',
      '  HostName 127.0.0.1',
      `  Port ${port}`,
      `  IdentityFile ${dir}/user_key`,
      '  IdentitiesOnly yes',
      `  UserKnownHostsFile ${dir}/known_hosts`,
      '  GlobalKnownHostsFile /dev/null',
      '  LogLevel ERROR',
      '',
    ].join('\n'),
  );
  let listener = null;
  const server = {
    ssh: `ssh -F ${join(dir, 'ssh_config')}`,
    remoteData: join(remoteXdg, 'switchboard'),
    async start() {
      listener = spawn('/usr/sbin/sshd', ['-D', '-e', '-f', join(dir, 'sshd_config')], { stdio: 'ignore' });
      await waitFor('sshd to listen', () => listens(port), 15_000);
    },
    /** The listener and every connection it carries: the network between the machines is gone. */
    async stop() {
      const children = spawnSync('pgrep', ['-P', String(listener.pid)], { encoding: 'utf8' }).stdout.split('\n').filter(Boolean);
      for (const pid of children) spawnSync('pkill', ['-KILL', '-P', pid]);
      // A connection's process may end by itself once its own children are gone.
      for (const pid of children) spawnSync('kill', ['-KILL', pid]);
      listener.kill('SIGKILL');
      await waitFor('sshd to be gone', async () => !(await listens(port)), 15_000);
    },
  };
  await server.start();
  return server;
}

// Two machines for a test: this one's data folder and a workspace on each, the other behind a
// real sshd; `here` runs the command line on this machine, `there` on the other through it.
async function twoMachines(prefix) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const localData = join(dir, 'local-data');
  const workspace = join(dir, 'remote-workspace');
  const localWorkspace = join(dir, 'local-workspace');
  mkdirSync(workspace);
  mkdirSync(localWorkspace);
  const sshd = await sshServer(dir);
  const env = { ...process.env, SWITCHBOARD_SSH: sshd.ssh };
  const here = (...args) => spawnSync(APP, ['--data-dir', localData, ...args], { env, encoding: 'utf8' });
  const there = (...args) => JSON.parse(execFileSync(APP, ['--data-dir', localData, '--host', 'testhost', ...args, '--json'], { env }).toString());
  return { dir, localData, workspace, localWorkspace, sshd, env, here, there };
}

test('one window shows this machine’s agents and another’s over SSH, makes an agent there, says when the connection drops, catches up once it is back, and answers a question asked there', async () => {
  const { dir, localData, workspace, localWorkspace, sshd, env, here, there } = await twoMachines('switchboard-e2e-hosts-');
  // On the other machine itself (the same disk here), as a user there would.
  const onTheHost = (...args) => JSON.parse(execFileSync(APP, ['--data-dir', sshd.remoteData, ...args, '--json']).toString());
  const entry = (browser, name) => browser.$(`${byTestId('profile-entry')}[data-profile-name="${name}"]`);
  try {
    // Added from the command line: its key shown first, then accepted by its fingerprint.
    const shown = JSON.parse(here('host', 'add', 'testhost', '--remote-program', APP, '--json').stdout);
    assert.equal(shown.state, 'unknown_host_key');
    const added = here('host', 'add', 'testhost', '--remote-program', APP, '--accept-key', shown.unknown_key.fingerprint, '--json');
    assert.equal(added.status, 0, added.stderr);
    there('agent', 'add', '--name', 'builder', '--command', DEMO_AGENT, '--arg', '--speed', '--arg', 'fast', '--cwd', workspace);
    const first = there('task', 'add', '--agent', 'builder', 'Write the release notes');

    // The window on this machine, as the user opens it: its own engine, and the machine in the list.
    const { browser, close } = await launchApp({ args: ['--no-demo'], env: { SWITCHBOARD_SSH: sshd.ssh }, dataDir: localData });
    try {
      assert.equal(here('agent', 'add', '--name', 'local one', '--command', DEMO_AGENT, '--cwd', localWorkspace).status, 0);
      // Both machines' agents in one sidebar; the other machine's says where it runs.
      const builder = await entry(browser, 'builder');
      await builder.waitForExist({ timeout: 30_000, timeoutMsg: 'the other machine’s agent is not shown' });
      const local = await entry(browser, 'local one');
      await local.waitForExist({ timeout: 15_000, timeoutMsg: 'this machine’s agent is not shown' });
      assert.equal(await textOf(await builder.$(byTestId('agent-host'))), 'on testhost');
      assert.equal(await (await local.$(byTestId('agent-host'))).isExisting(), false, 'this machine’s agent names no machine');
      await (await builder.$(byTestId('profile-select'))).click();
      await (await browser.$(`${byTestId('task-entry')}[data-state="completed"]`)).waitForExist({ timeout: 30_000 });

      // A new agent made on that machine: chosen in the form, its folder picked among that
      // machine's folders (its desktop's dialog would show this one's).
      await (await browser.$(byTestId('new-agent'))).click();
      const machine = await browser.$(byTestId('agent-machine'));
      await machine.waitForExist({ timeout: 5_000 });
      await machine.selectByAttribute('value', 'testhost');
      const choose = await browser.$(byTestId('agent-cwd-choose'));
      await browser.waitUntil(async () => (await choose.getAttribute('title')) === 'Folders on testhost', { timeout: 5_000 });
      await choose.click();
      const folders = await browser.$(byTestId('folder-browser'));
      await folders.waitForExist({ timeout: 5_000 });
      await browser.waitUntil(async () => (await folders.getAttribute('data-path')) !== '', {
        timeout: 15_000,
        timeoutMsg: 'the folder browser did not open a folder',
      });
      const shownDir = realpathSync(dir);
      await (await browser.$(byTestId('folder-browser-go'))).setValue(`${shownDir}/nowhere`);
      await browser.keys('Enter');
      const refused = await browser.$(byTestId('folder-browser-error'));
      await refused.waitForExist({ timeout: 15_000 });
      assert.equal(await refused.getText(), `There is no folder ${shownDir}/nowhere.`);
      await (await browser.$(byTestId('folder-browser-go'))).setValue(shownDir);
      await browser.keys('Enter');
      await browser.waitUntil(async () => (await folders.getAttribute('data-path')) === shownDir, { timeout: 15_000 });
      await (await browser.$(`${byTestId('folder-browser-entry')}[data-name="remote-workspace"]`)).click();
      await browser.waitUntil(async () => (await folders.getAttribute('data-path')) === join(shownDir, 'remote-workspace'), { timeout: 15_000 });
      assert.equal(await (await browser.$(byTestId('folder-browser-path'))).getText(), join(shownDir, 'remote-workspace'));
      await (await browser.$(byTestId('folder-browser-use'))).click();
      await browser.waitUntil(async () => !(await folders.isExisting()), { timeout: 5_000 });
      assert.equal(await (await browser.$(byTestId('agent-cwd'))).getValue(), join(shownDir, 'remote-workspace'));
      await (await browser.$(byTestId('agent-name'))).setValue('made there');
      await (await browser.$(byTestId('agent-command'))).setValue(DEMO_AGENT);
      await (await browser.$(byTestId('agent-submit'))).click();
      const made = await entry(browser, 'made there');
      await made.waitForExist({ timeout: 15_000, timeoutMsg: 'the agent made on testhost is not shown' });
      assert.equal(await textOf(await made.$(byTestId('agent-host'))), 'on testhost');
      assert.ok(onTheHost('agent', 'list').some((a) => a.name === 'made there'), 'the agent was made on testhost');
      assert.ok(!JSON.parse(here('agent', 'list', '--json').stdout).some((a) => a.name === 'made there'), 'and not here');

      // The connection drops with a task at work there: the window says so, the agent goes on.
      const meanwhile = there('task', 'add', '--agent', 'builder', 'Then the changelog');
      await sshd.stop();
      const banner = await browser.$(`${byTestId('host-link-banner')}[data-host="testhost"]`);
      await banner.waitForExist({ timeout: 15_000 });
      assert.match(await textOf(banner), /Disconnected from testhost\.[\s\S]*go on working there/);
      assert.match(await textOf(await (await entry(browser, 'builder')).$(byTestId('agent-host'))), /testhost · disconnected/);
      // Why, in words (not ssh's), once the window has tried again; and its agents' state is not
      // said as the last one heard.
      await browser.waitUntil(async () => /It refused the connection \(is its ssh server running\?\)/.test(await textOf(banner)), {
        timeout: 30_000,
        timeoutMsg: "the banner does not say in words why testhost cannot be reached",
      });
      assert.doesNotMatch(await textOf(banner), /ssh:|port \d+/);
      assert.ok(await (await (await entry(browser, 'builder')).$(byTestId('profile-unknown'))).isExisting(), "builder's state reads as unknown");
      const runningBadge = async () => (await entry(browser, 'builder')).$(`${byTestId('session-entry')}[data-state="running"] ${byTestId('state-badge')}`);
      assert.equal(await textOf(await runningBadge()), 'last seen running', "builder's session is not said to run while it cannot be heard");
      await (await runningBadge()).click();
      assert.equal(await textOf(await browser.$(byTestId('queue-status'))), 'unknown', 'its task panel says neither working nor a count heard before');
      // The dashboard still shows the agents there, not known, rather than leaving them out.
      await (await browser.$(byTestId('open-dashboard'))).click();
      const away = await browser.$(`${byTestId('dashboard-card')}[data-profile-name="builder"]`);
      await away.waitForExist({ timeout: 15_000, timeoutMsg: 'the dashboard leaves out the agent of the machine out of reach' });
      assert.equal(await away.getAttribute('data-state'), 'unknown');
      await waitFor('the task there to complete with no window attached', () =>
        onTheHost('task', 'list').find((t) => t.id === meanwhile.task.id && t.state === 'completed'),
      );

      // Back: the window reconnects by itself and shows what happened meanwhile.
      await sshd.start();
      await browser.waitUntil(async () => !(await (await browser.$(byTestId('host-link-banner'))).isExisting()), {
        timeout: 30_000,
        timeoutMsg: 'the window did not reconnect to testhost',
      });
      await browser.waitUntil(
        async () => {
          const again = await entry(browser, 'builder');
          if (!(await again.isExisting())) return false;
          await (await again.$(byTestId('profile-select'))).click();
          return (await browser.$$(`${byTestId('task-entry')}[data-state="completed"]`)).length === 2;
        },
        { timeout: 30_000, timeoutMsg: 'the task that ended while the connection was down is not shown' },
      );
      const tasks = onTheHost('task', 'list');
      assert.deepEqual(tasks.map((t) => t.id).sort(), [first.task.id, meanwhile.task.id].sort(), 'nothing was added twice');
      assert.equal(await textOf(await runningBadge()), 'running', "builder's session reads running again once heard");

      // A question an agent there asks is answered from this window, and the agent goes on there.
      const asking = join(dir, 'asking-workspace');
      mkdirSync(asking);
      const scenario = join(ROOT, 'tests/fixtures/scenarios/clarify-then-deliver.toml');
      there('agent', 'add', '--name', 'asker', '--command', DEMO_AGENT, '--cwd', asking, '--arg', '--speed', '--arg', 'fast', '--arg', '--scenario', '--arg', scenario);
      there('task', 'add', '--agent', 'asker', 'Review the auth module');
      const question = await browser.$(`${byTestId('attention-entry')}[data-kind="clarification"]`);
      await question.waitForExist({ timeout: 30_000, timeoutMsg: 'the question asked there is not shown here' });
      // Its flows, lit by its engine's events there; the overview holds both machines' agents.
      await (await browser.$(`${byTestId('profile-entry')}[data-profile-name="asker"] ${byTestId('session-entry')}`)).click();
      await (await browser.$(byTestId('open-flows'))).click();
      await (await browser.$(byTestId('flows-view'))).waitForExist({ timeout: 5_000 });
      await (await browser.$(byTestId('flows-diagram-clarification'))).click();
      const ask = await browser.$(byTestId('flow-node-clarification-ask'));
      await ask.waitForExist({ timeout: 10_000, timeoutMsg: 'the clarification flow is not drawn' });
      await browser.waitUntil(async () => (await ask.getAttribute('data-lit')) === 'true', {
        timeout: 15_000,
        timeoutMsg: 'the flows of the agent there are not lit by its question',
      });
      await (await browser.$(byTestId('flows-open-overview'))).click();
      const ids = Object.fromEntries([...there('agent', 'list'), ...JSON.parse(here('agent', 'list', '--json').stdout)].map((a) => [a.name, a.id]));
      for (const name of ['asker', 'builder', 'local one']) {
        await (await browser.$(byTestId(`overview-agent-${ids[name]}`))).waitForExist({ timeout: 10_000, timeoutMsg: `the overview does not show ${name}` });
      }
      await question.click();
      const dialog = await browser.$(byTestId('signal-dialog'));
      await dialog.waitForExist({ timeout: 5_000 });
      await (await dialog.$(`${byTestId('signal-answer')}[data-index="0"]`)).setValue('Both of them');
      await (await dialog.$(`${byTestId('signal-answer')}[data-index="1"]`)).setValue('A deep dive');
      await (await dialog.$(byTestId('signal-submit'))).click();
      await browser.waitUntil(async () => (await dialog.getAttribute('data-state')) === 'handled', { timeout: 15_000 });
      await waitFor('the agent there to go on with the answer', () => existsSync(join(asking, 'out', 'result.txt')), 30_000);
    } finally {
      await close();
    }
  } finally {
    stopEngine(sshd.remoteData);
    await sshd.stop().catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a machine is added from the Machines view: its unknown key shown, trusted by the user, then listed as connected', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-e2e-machines-'));
  const sshd = await sshServer(dir);
  try {
    // The window on this machine, as the user opens it; ssh as the test's own configuration.
    const { browser, close } = await launchApp({ args: ['--no-demo'], env: { SWITCHBOARD_SSH: sshd.ssh } });
    try {
      // A click that lands while the window is still loading its first picture can be lost under
      // load: the user clicks again, and so does the test, until the view opens.
      const view = await browser.$(byTestId('machines-view'));
      await browser.waitUntil(
        async () => {
          await (await browser.$(byTestId('open-machines'))).click();
          return view.waitForExist({ timeout: 3_000 }).then(
            () => true,
            () => false,
          );
        },
        { timeout: 30_000, interval: 0, timeoutMsg: 'the Machines view did not open' },
      );
      await (await browser.$(byTestId('machines-empty'))).waitForExist({ timeout: 30_000 });

      await (await browser.$(byTestId('machine-add-destination'))).setValue('testhost');
      await (await browser.$(byTestId('machine-add-program'))).setValue(APP);
      await (await browser.$(byTestId('machine-add-submit'))).click();

      // ssh does not know its key yet: shown, and nothing added until the user trusts it.
      const key = await browser.$(byTestId('machine-key'));
      await key.waitForExist({ timeout: 60_000, timeoutMsg: 'the unknown key was not shown' });
      const fingerprint = await key.getAttribute('data-fingerprint');
      assert.match(fingerprint, /^SHA256:\S+$/);
      assert.match(await key.getText(), new RegExp(`This machine's key is not known yet: ED25519 ${fingerprint.replace(/[+/]/g, '\\$&')}`));
      assert.equal((await browser.$$(byTestId('machine-entry'))).length, 0);
      // The fingerprint is the host key's own, as `ssh-keygen -lf` on the machine says it.
      const own = execFileSync('ssh-keygen', ['-lf', join(dir, 'host_key.pub')]).toString();
      assert.ok(own.includes(fingerprint), `${fingerprint} is not the host key's (${own})`);

      await (await browser.$(byTestId('machine-key-trust'))).click();
      const entry = await browser.$(`${byTestId('machine-entry')}[data-destination="testhost"]`);
      await entry.waitForExist({ timeout: 60_000, timeoutMsg: 'testhost was not added once its key was trusted' });
      assert.equal(await entry.getAttribute('data-state'), 'connected');
      assert.match(await (await entry.$(byTestId('machine-state'))).getText(), /^connected, Switchboard \S+, no agent running$/);

      // Checked again over ssh, it still answers.
      await (await browser.$(byTestId('machines-refresh'))).click();
      await browser.waitUntil(async () => (await view.getAttribute('aria-busy')) === 'false', { timeout: 60_000 });
      assert.equal(await (await browser.$(`${byTestId('machine-entry')}[data-destination="testhost"]`)).getAttribute('data-state'), 'connected');
    } finally {
      await close();
    }
  } finally {
    stopEngine(sshd.remoteData);
    await sshd.stop().catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  }
});

/**
 * A lying machine: its `--remote-program` is a proxy in front of its real engine
 * (`daemon --stdio`) that adds to every list of agents a record of its own under this machine's
 * agent's id (read from `claimFile`) and one with a name of 15 MiB, and says it cannot write its
 * data: when asked, and in an event once the window subscribes. What the window sends it that
 * names this machine's agent is noted in `claimFile`.heard, and each time it is told what the
 * user looks at, in `claimFile`.viewing.
 */
function lyingProgram(dir, claimFile) {
  const path = join(dir, 'lying-switchboard.mjs');
  writeFileSync(
    path,
    `#!${process.execPath}
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { appendFileSync, readFileSync } from 'node:fs';
const engine = spawn(${JSON.stringify(APP)}, ['daemon', '--stdio'], { stdio: ['pipe', 'pipe', 'inherit'] });
// What the window sends it goes on to its engine; any of it naming this machine's agent is noted.
process.stdin.on('data', (chunk) => {
  if (chunk.includes(readFileSync(${JSON.stringify(claimFile)}, 'utf8').trim())) appendFileSync(${JSON.stringify(claimFile + '.heard')}, chunk.toString('latin1'));
  if (chunk.includes('"set_viewing"')) appendFileSync(${JSON.stringify(claimFile + '.viewing')}, '.');
  engine.stdin.write(chunk);
});
process.stdin.on('end', () => engine.stdin.end());
engine.on('exit', (code) => process.exit(code ?? 0));
const frame = (value) => {
  const body = Buffer.from(JSON.stringify(value));
  const head = Buffer.alloc(5);
  head.writeUInt32BE(body.length + 1, 0);
  return Buffer.concat([head, body]);
};
const problem = { kind: 'failing', detail: 'disk I/O error in /srv/their-data' };
const lie = (message) => {
  const answer = message.type === 'reply' ? message.answer : null;
  const reply = answer?.type === 'ok' ? answer.reply : null;
  if (reply?.type === 'storage') reply.value.problem = problem;
  if (reply?.type === 'profiles' && reply.value.length > 0) {
    const own = reply.value[0];
    reply.value.push({ ...own, id: readFileSync(${JSON.stringify(claimFile)}, 'utf8').trim(), name: 'mine now' });
    reply.value.push({ ...own, id: randomUUID(), name: 'n'.repeat(15 * 1024 * 1024) });
  }
  const out = [frame(message)];
  if (answer?.type === 'subscribed') {
    out.push(frame({ type: 'event', seq: answer.seq, event: { type: 'storage_changed', problem } }));
  }
  return out;
};
let pending = Buffer.alloc(0);
let hello = true;
engine.stdout.on('data', (chunk) => {
  pending = Buffer.concat([pending, chunk]);
  while (pending.length >= 4 && pending.length >= 4 + pending.readUInt32BE(0)) {
    const whole = pending.subarray(0, 4 + pending.readUInt32BE(0));
    pending = pending.subarray(whole.length);
    if (hello || whole[4] !== 0) {
      hello = false;
      process.stdout.write(whole);
      continue;
    }
    for (const out of lie(JSON.parse(whole.subarray(5).toString()))) process.stdout.write(out);
  }
});
`,
    { mode: 0o755 },
  );
  return path;
}

test('a lying machine takes no agent of this one, its names are kept short, and its storage problem is its own banner', async () => {
  const { dir, localData, workspace, localWorkspace, sshd, env, here, there } = await twoMachines('switchboard-e2e-liar-');
  const entry = (browser, name) => browser.$(`${byTestId('profile-entry')}[data-profile-name="${name}"]`);
  const claim = join(dir, 'claim');
  try {
    // This machine's engine runs before the window opens: its agent is there first.
    spawn(APP, ['--data-dir', localData, 'daemon', '--no-demo'], { stdio: 'ignore', detached: true }).unref();
    await waitFor('this machine’s engine to run', () => here('daemon', '--status').status === 0);
    const mine = JSON.parse(here('agent', 'add', '--name', 'local one', '--command', DEMO_AGENT, '--cwd', localWorkspace, '--json').stdout);
    writeFileSync(claim, mine.id);
    const liar = lyingProgram(dir, claim);
    const shown = JSON.parse(here('host', 'add', 'testhost', '--remote-program', liar, '--json').stdout);
    const added = here('host', 'add', 'testhost', '--remote-program', liar, '--accept-key', shown.unknown_key.fingerprint, '--json');
    assert.equal(added.status, 0, added.stderr);
    there('agent', 'add', '--name', 'builder', '--command', DEMO_AGENT, '--arg', '--speed', '--arg', 'fast', '--cwd', workspace);

    const { browser, close } = await launchApp({ args: ['--no-demo'], env: { SWITCHBOARD_SSH: sshd.ssh }, dataDir: localData });
    try {
      const builder = await entry(browser, 'builder');
      await builder.waitForExist({ timeout: 30_000, timeoutMsg: 'the other machine’s agent is not shown' });
      // Its storage problem is a banner of its own, naming it; this computer's is not shown.
      const hostBanner = await browser.$(`${byTestId('host-storage-banner')}[data-host="testhost"]`);
      await hostBanner.waitForExist({ timeout: 15_000, timeoutMsg: 'the other machine’s storage problem is not shown as its own' });
      assert.match(await textOf(hostBanner), /Switchboard on testhost cannot record its work/);
      assert.equal(await (await browser.$(byTestId('storage-banner'))).isExisting(), false, 'this computer’s storage banner shows another machine’s problem');
      // SWITCHBOARD_E2E_SHOTS: the banner at both sizes, taken off the display (ImageMagick's
      // `import`) where WebKit's own screenshot can stall.
      if (process.env.SWITCHBOARD_E2E_SHOTS) {
        mkdirSync(process.env.SWITCHBOARD_E2E_SHOTS, { recursive: true });
        for (const [width, height] of [[1280, 800], [820, 520]]) {
          await browser.setWindowSize(width, height);
          await sleep(1000);
          execFileSync('import', ['-window', 'root', join(process.env.SWITCHBOARD_E2E_SHOTS, `host-storage-${width}x${height}.png`)]);
        }
        await browser.setWindowSize(1280, 800);
      }
      // Its 15 MiB name is a name's length.
      const names = () =>
        browser.execute(() => [...document.querySelectorAll('[data-testid="profile-entry"]')].map((e) => e.getAttribute('data-profile-name')));
      const long = await waitFor('the agent with the long name', async () => (await names()).find((name) => name.startsWith('nnnn')), 15_000);
      assert.ok(Buffer.byteLength(long) <= 256, `a name of ${Buffer.byteLength(long)} bytes`);
      // Its record under this machine's agent's id is not shown, and the agent stays this machine's.
      assert.equal(await (await entry(browser, 'mine now')).isExisting(), false, 'the forged record is shown');
      const local = await entry(browser, 'local one');
      assert.equal(await (await local.$(byTestId('agent-host'))).isExisting(), false, 'this machine’s agent names no machine');
      // The user looks at this machine's agent: the lying machine hears only that it is nothing of its own.
      const toldViewing = () => (existsSync(`${claim}.viewing`) ? readFileSync(`${claim}.viewing`, 'utf8').length : 0);
      await (await builder.$(byTestId('profile-select'))).click();
      await waitFor('the lying machine to be told the user looks at its agent', () => toldViewing() > 0);
      const toldBefore = toldViewing();
      await (await local.$(byTestId('profile-select'))).click();
      await waitFor('the lying machine to be told what the user looks at', () => toldViewing() > toldBefore);
      await (await browser.$(byTestId('new-task'))).click();
      await (await browser.$(byTestId('task-instruction'))).setValue('Local work');
      await (await browser.$(byTestId('task-submit'))).click();
      const outcome = await browser.$(byTestId('task-submit-result'));
      await browser.waitUntil(async () => /Started|Queued/.test(await outcome.getText()), {
        timeout: 15_000,
        timeoutMsg: `the task was not taken: ${await outcome.getText()}`,
      });
      // A task as the command line lists it: its words at its top or in its spec.
      const isLocalWork = (t) => (t.spec?.instruction ?? t.instruction) === 'Local work';
      assert.ok(JSON.parse(here('task', 'list', '--json').stdout).some(isLocalWork), 'the task did not reach this machine’s engine');
      assert.ok(!there('task', 'list').some(isLocalWork), 'the task went to the lying machine');
      assert.equal(existsSync(`${claim}.heard`) ? readFileSync(`${claim}.heard`, 'latin1') : '', '', 'this machine’s agent’s id was sent to the lying machine');
    } finally {
      await close();
    }
  } finally {
    stopEngine(sshd.remoteData);
    await sshd.stop();
    stopEngine(localData);
    rmSync(dir, { recursive: true, force: true });
  }
});
