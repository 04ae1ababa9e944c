// The page the engine serves to a paired browser, in Debian's Chromium at a phone's size with touch:
// a phone pairs with the code's address, answers a question a real agent process asked, and the
// desktop window sees it gone; a read-only phone's answer is refused by the engine; an unpaired
// phone's page is closed and told so; a page of another origin cannot open the engine's socket.
// With SWITCHBOARD_SHOTS=DIR, screenshots of the phone's views (390x844, 768x1024) go there.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { APP, DEMO_AGENT, ROOT, engineAnswers, launchApp, stopEngine } from './driver.mjs';
import { PHONE, TABLET, commandFromPage, openPhone } from './chromium.mjs';

const byTestId = (id) => `[data-testid="${id}"]`;
const SHOTS = process.env.SWITCHBOARD_SHOTS;
const SCENARIO = join(ROOT, 'tests/fixtures/scenarios/clarify-then-deliver.toml');

function cli(dataDir, ...args) {
  return execFileSync(APP, ['--data-dir', dataDir, ...args], { encoding: 'utf8' });
}

/** An agent that asks a question for its first task, and delivers on the next. */
function addAsker(dataDir, workspace) {
  cli(dataDir, 'agent', 'add', '--name', 'asker', '--command', DEMO_AGENT, '--cwd', workspace,
    '--arg', '--speed', '--arg', 'fast', '--arg', '--scenario', '--arg', SCENARIO);
}

/** Serving, and a pairing address (`--read-only` and such in `args`). */
function pairingUrl(dataDir, ...args) {
  cli(dataDir, 'web');
  return JSON.parse(cli(dataDir, 'web', 'pair', '--json', ...args)).url;
}

async function shoot(browser, name) {
  if (SHOTS) await browser.saveScreenshot(join(SHOTS, `${name}.png`));
}

test('a phone pairs with the code, answers a question a real agent asked, and the desktop sees it gone', async () => {
  const workspace = mkdtempSync(join(tmpdir(), 'switchboard-e2e-ws-'));
  const { browser: desktop, dataDir, close } = await launchApp({ args: ['--no-demo'] });
  const phone = await openPhone({ size: PHONE, notifications: true });
  try {
    addAsker(dataDir, workspace);
    // Opening the code's address is the whole pairing: the page opens on its inbox.
    await phone.browser.url(pairingUrl(dataDir));
    const inbox = await phone.browser.$(byTestId('phone-inbox'));
    await inbox.waitForExist({ timeout: 20_000, timeoutMsg: 'the paired phone did not open on its inbox' });
    assert.doesNotMatch(await phone.browser.getUrl(), /code=/, 'no code stays in the address bar');

    cli(dataDir, 'task', 'add', '--agent', 'asker', 'Review the auth module');
    const asked = await phone.browser.$(`${byTestId('phone-inbox')} ${byTestId('inbox-entry')}[data-kind="signal"][data-signal-kind="clarification"]`);
    await asked.waitForExist({ timeout: 20_000, timeoutMsg: 'the question did not reach the phone' });
    const onDesktop = await desktop.$(`${byTestId('attention-entry')}[data-kind="clarification"]`);
    await onDesktop.waitForExist({ timeout: 20_000, timeoutMsg: 'the question did not reach the desktop window' });
    await shoot(phone.browser, 'phone-inbox-390x844');

    // Answered in place, on the phone, with touch.
    await asked.click();
    const dialog = await phone.browser.$(byTestId('signal-dialog'));
    await dialog.waitForExist({ timeout: 10_000 });
    await shoot(phone.browser, 'phone-question-390x844');
    await (await dialog.$(`${byTestId('signal-answer')}[data-index="0"]`)).setValue('Both of them');
    await (await dialog.$(`${byTestId('signal-answer')}[data-index="1"]`)).setValue('A deep dive');
    await (await dialog.$(byTestId('signal-submit'))).click();
    await phone.browser.waitUntil(async () => (await dialog.getAttribute('data-state')) === 'handled', {
      timeout: 10_000,
      timeoutMsg: 'the phone’s answer was not accepted',
    });
    await (await phone.browser.$(byTestId('signal-close'))).click();
    // Gone everywhere: the desktop window no longer asks.
    await desktop.waitUntil(async () => !(await onDesktop.isExisting()), {
      timeout: 10_000,
      timeoutMsg: 'the desktop window still shows the question the phone answered',
    });
    // The agent had the answer and went on: it wrote its summary, and the task completes. The
    // phone is told, in the page, as the desktop is notified (followed from now: it goes by itself).
    const finished = (await phone.browser.$(`${byTestId('page-notice')}[data-place="finished"]`)).waitForExist({
      timeout: 30_000,
      timeoutMsg: 'the phone was not told the task finished',
    });
    const listed = () => JSON.parse(cli(dataDir, 'task', 'list', '--json'));
    await desktop.waitUntil(async () => listed().some((task) => task.state === 'completed'), {
      timeout: 30_000,
      timeoutMsg: `the agent did not go on: ${JSON.stringify(listed())}`,
    });
    await finished;

    // The page's service worker is there (for the system's notifications only), and while the
    // page is in the background its notices are the system's too.
    const worker = await phone.browser.execute(async () => (await navigator.serviceWorker.ready).active?.scriptURL ?? null);
    assert.match(worker ?? '', /\/sw\.js$/);
    // The page put away (as a phone puts a browser in the background): its notices go to the system.
    await phone.browser.minimizeWindow();
    await phone.browser.waitUntil(async () => (await phone.browser.execute(() => document.visibilityState)) === 'hidden', {
      timeout: 10_000,
      timeoutMsg: 'the page was not hidden',
    });
    cli(dataDir, 'task', 'add', '--agent', 'asker', 'Write the changelog');
    const systemSaid = () =>
      phone.browser.execute(async () => (await (await navigator.serviceWorker.ready).getNotifications()).map((n) => `${n.title}: ${n.body}`));
    await phone.browser.waitUntil(async () => (await systemSaid()).some((said) => said.includes('Write the changelog')), {
      timeout: 30_000,
      timeoutMsg: 'the system was not told while the page was in the background',
    });
    await phone.browser.maximizeWindow();

    if (SHOTS) {
      await (await phone.browser.$(byTestId('phone-nav-agents'))).click();
      await shoot(phone.browser, 'phone-agents-390x844');
      const tablet = await openPhone({ size: TABLET });
      try {
        await tablet.browser.url(pairingUrl(dataDir));
        await tablet.browser.pause(3000);
        await shoot(tablet.browser, 'tablet-768x1024');
      } finally {
        await tablet.close();
      }
    }
  } finally {
    await phone.close();
    await close();
    rmSync(workspace, { recursive: true, force: true });
  }
});

test('a read-only phone is refused, an unpaired one is closed, and another origin cannot open the socket', async () => {
  const workspace = mkdtempSync(join(tmpdir(), 'switchboard-e2e-ws-'));
  const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-e2e-'));
  const daemon = spawn(APP, ['--data-dir', dataDir, '--no-demo', 'daemon'], { stdio: 'ignore' });
  const looker = await openPhone({ size: PHONE });
  const full = await openPhone({ size: PHONE });
  const otherOrigin = createServer((_, response) => {
    response.setHeader('content-type', 'text/html');
    response.end('<!doctype html><title>another site</title><p>another site</p>');
  });
  try {
    await engineAnswers(dataDir);
    addAsker(dataDir, workspace);
    cli(dataDir, 'task', 'add', '--agent', 'asker', 'Review the auth module');
    await looker.browser.url(pairingUrl(dataDir, '--read-only', '--name', 'Hall tablet'));
    const base = JSON.parse(cli(dataDir, 'web', '--status', '--json')).url;
    const socketUrl = `${base.replace('http', 'ws')}/ws`;
    await (await looker.browser.$(byTestId('looks-only'))).waitForExist({ timeout: 20_000, timeoutMsg: 'the page does not say it looks only' });

    // The question is there to see, and the page offers no answer; sent anyway, the engine refuses it.
    const signals = async () => (await commandFromPage(looker.browser, socketUrl, { type: 'list_signals' })).reply?.reply?.value ?? [];
    await looker.browser.waitUntil(async () => (await signals()).some((s) => s.state === 'pending'), {
      timeout: 20_000,
      timeoutMsg: 'the agent did not ask',
    });
    const question = (await signals()).find((s) => s.state === 'pending');
    const refused = await commandFromPage(looker.browser, socketUrl, {
      type: 'respond_to_signal',
      signal_id: question.id,
      response: { action: 'answer', answers: ['Both', 'Deep'] },
    });
    assert.equal(refused.welcomed, true);
    assert.equal(refused.reply.type, 'error', JSON.stringify(refused));
    assert.equal(refused.reply.error.code, 'not_allowed');
    assert.match(refused.reply.error.message, /paired to look only/);
    await shoot(looker.browser, 'phone-looks-only-390x844');

    // Unpaired at the computer: its open page is closed and says so.
    cli(dataDir, 'web', 'revoke', 'Hall tablet');
    await looker.browser.waitUntil(async () => /no longer paired/i.test(await looker.browser.execute(() => document.body.innerText)), {
      timeout: 20_000,
      timeoutMsg: 'the unpaired page does not say it is no longer paired',
    });
    // What it showed is gone with its pairing (a lost phone shows nothing more).
    assert.equal(await (await looker.browser.$(byTestId('phone-inbox'))).isExisting(), false);
    await shoot(looker.browser, 'phone-unpaired-390x844');

    // A page of another origin on this machine, in a browser that is paired (its cookie is
    // sent: a port is no other site), cannot open the socket.
    await full.browser.url(pairingUrl(dataDir));
    await (await full.browser.$(byTestId('phone-inbox'))).waitForExist({ timeout: 20_000 });
    await new Promise((resolve) => otherOrigin.listen(0, '127.0.0.1', resolve));
    await full.browser.url(`http://127.0.0.1:${otherOrigin.address().port}/`);
    const foreign = await commandFromPage(full.browser, socketUrl, { type: 'list_profiles' });
    assert.equal(foreign.welcomed, false, JSON.stringify(foreign));
    assert.equal(foreign.reply, null);
  } finally {
    otherOrigin.close();
    await looker.close();
    await full.close();
    stopEngine(dataDir);
    daemon.kill();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(workspace, { recursive: true, force: true });
  }
});
