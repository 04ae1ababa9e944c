// A desktop of the tests' own, for what the app shows outside its window: a private session bus
// and the dunst notification server on it, whose every notification received is kept for the
// test to read, and whose menu chooses a notification's action as a keyboard user does; and a
// tray (tray_host.py) that reads the app's item and menu as a panel does.

import { execFile, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';

const exec = promisify(execFile);

/** Polls `probe` until it returns something truthy; fails saying `what` and what was last seen. */
export async function poll(what, probe, { timeout = 30_000, seen = () => '' } = {}) {
  const deadline = Date.now() + timeout;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${await seen()}`);
    await sleep(100);
  }
}

/**
 * A session bus of the test's own: nothing of the machine's desktop sees or answers it, and it
 * starts no services on demand (only what the test starts is on it).
 */
export async function privateBus(dir) {
  const config = join(dir, 'bus.conf');
  writeFileSync(
    config,
    `<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:dir=${dir}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
`,
  );
  // Its stderr only says it may not raise its file limit here.
  const daemon = spawn('dbus-daemon', [`--config-file=${config}`, '--nofork', '--print-address=1'], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const address = await new Promise((resolve, reject) => {
    createInterface({ input: daemon.stdout }).once('line', (line) => resolve(line.trim()));
    daemon.once('exit', (code) => reject(new Error(`dbus-daemon exited (${code})`)));
  });
  return { address, stop: () => daemon.kill() };
}

/**
 * dunst with a throwaway configuration: notifications stay until acted on, every one received
 * (and every version of one replaced in place) is written to `received/<id>.<time>`
 * (application, title, body and urgency, NUL-separated) by its script rule, and its context menu (`dunstctl context`, what a keyboard user opens) runs `menu.sh`,
 * which keeps the lines offered (`#<action label> (<title>) [<id>,<action>]`) and picks the
 * one of the notification named in `choose`.
 */
export async function startDunst(dir, env) {
  mkdirSync(join(dir, 'received'));
  const script = (name, text) => {
    writeFileSync(join(dir, name), text);
    chmodSync(join(dir, name), 0o755);
    return join(dir, name);
  };
  const record = script(
    'record.sh',
    `#!/bin/sh\nversion="$DUNST_ID.$(date +%s%N)"\nkept="${dir}/received/.$version"\n` +
      `printf '%s\\0%s\\0%s\\0%s' "$DUNST_APP_NAME" "$DUNST_SUMMARY" "$DUNST_BODY" "$DUNST_URGENCY" > "$kept"\n` +
      `mv "$kept" "${dir}/received/$version"\n`,
  );
  const menu = script(
    'menu.sh',
    `#!/bin/sh\ncat > "${dir}/offered.tmp"\nmv "${dir}/offered.tmp" "${dir}/offered"\n` +
      `grep -F -e "$(cat "${dir}/choose")" "${dir}/offered" | head -n 1\n`,
  );
  const config = join(dir, 'dunstrc');
  writeFileSync(
    config,
    [
      '[global]',
      // As dunst's own configuration has it: bodies are read as markup.
      '    markup = full',
      `    dmenu = ${menu}`,
      '    notification_limit = 0',
      ...['urgency_low', 'urgency_normal', 'urgency_critical'].flatMap((u) => [`[${u}]`, '    timeout = 0']),
      '[record]',
      '    summary = "*"',
      `    script = ${record}`,
      '',
    ].join('\n'),
  );
  const daemon = spawn('dunst', ['-config', config], { env, stdio: ['ignore', 'ignore', 'ignore'] });
  const ctl = (...args) => exec('dunstctl', args, { env });
  await poll('dunst on the bus', () => ctl('is-paused').then(() => true, () => false), { timeout: 10_000 });
  return {
    /** Every notification dunst received, each version of one replaced in place too: {id, app, title, body, urgency}, oldest first. */
    received() {
      return readdirSync(join(dir, 'received'))
        .filter((name) => !name.startsWith('.'))
        .map((name) => ({ name, id: Number(name.split('.')[0]), at: BigInt(name.split('.')[1]) }))
        .sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0))
        .map(({ name, id }) => {
          const [app, title, body, urgency] = readFileSync(join(dir, 'received', name), 'utf8').split('\0');
          return { id, app, title, body, urgency };
        });
    },
    /** Opens dunst's menu and picks notification `id`'s action; returns the lines it offered. */
    async chooseAction(id) {
      writeFileSync(join(dir, 'choose'), `[${id},`);
      // dunst refuses to open its menu while the last one is still being dispatched: ask again.
      await poll('dunst to offer its menu', async () => {
        rmSync(join(dir, 'offered'), { force: true });
        await ctl('context');
        for (let waited = 0; waited < 1_000; waited += 50) {
          if (existsSync(join(dir, 'offered'))) return true;
          await sleep(50);
        }
        return false;
      });
      return readFileSync(join(dir, 'offered'), 'utf8').trim().split('\n');
    },
    stop: () => daemon.kill(),
  };
}

/**
 * A tray on the bus `env` names: tray_host.py (a StatusNotifierWatcher that reads the app's item
 * and menu as a desktop's panel does), asked one JSON line at a time.
 */
export async function startTray(env) {
  const host = spawn('/usr/bin/python3', [join(import.meta.dirname, 'tray_host.py')], {
    env,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: host.stdout })[Symbol.asyncIterator]();
  const next = async () => {
    const { value, done } = await lines.next();
    if (done) throw new Error('the tray host ended');
    const answer = JSON.parse(value);
    if (answer.error) throw new Error(`the tray host: ${answer.error}`);
    return answer;
  };
  const ready = await next();
  if (!ready.ready) throw new Error(`the tray host did not start: ${JSON.stringify(ready)}`);
  let queue = Promise.resolve();
  const ask = (request) => {
    const answer = queue.then(() => {
      host.stdin.write(`${JSON.stringify(request)}\n`);
      return next();
    });
    queue = answer.catch(() => {});
    return answer;
  };
  return {
    /** The registered item ({title, status, menu: [{id, label, enabled, type}]}), or null. */
    item: async () => (await ask({ op: 'item' })).item,
    click: (id) => ask({ op: 'click', id }),
    /** The first entry of its menu: the app's status line ("1 working · 0 need you"). */
    status: async () => (await ask({ op: 'item' })).item?.menu[0]?.label ?? '',
    stop: () => host.kill(),
  };
}
