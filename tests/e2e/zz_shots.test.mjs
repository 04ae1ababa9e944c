// THROWAWAY: screenshots of the automations views at 1280x800 and 820x520.
import { test } from 'node:test';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { APP, DEMO_AGENT, launchApp } from './driver.mjs';

const byTestId = (id) => `[data-testid="${id}"]`;
const SHOTS = process.env.SHOTS ?? '/tmp/shots';

test('shots', async () => {
  mkdirSync(SHOTS, { recursive: true });
  const workspace = mkdtempSync(join(tmpdir(), 'switchboard-e2e-ws-'));
  const { browser, dataDir, close } = await launchApp({ args: ['--no-demo'] });
  const cli = (...args) => execFileSync(APP, ['--data-dir', dataDir, ...args], { encoding: 'utf8' }).trim();
  const shoot = async (name) => {
    for (const [width, height] of [[1280, 800], [820, 520]]) {
      await browser.setWindowSize(width, height);
      await browser.waitUntil(async () => (await browser.execute(() => window.innerWidth)) <= width, { timeout: 10_000 });
      await browser.waitUntil(async () => (await browser.execute(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(true)))))), { timeout: 5_000 });
      execFileSync('import', ['-window', 'root', join(SHOTS, `${name}-${width}x${height}.png`)]);
    }
    await browser.setWindowSize(1280, 800);
    await browser.waitUntil(async () => (await browser.execute(() => window.innerWidth)) > 1000, { timeout: 10_000 });
  };
  try {
    cli('agent', 'add', '--name', 'coder', '--command', DEMO_AGENT, '--arg', '--speed', '--arg', 'fast', '--cwd', workspace);
    cli('agent', 'add', '--name', 'reviewer', '--command', DEMO_AGENT, '--arg', '--speed', '--arg', 'fast', '--cwd', workspace);
    cli('automation', 'add', '--agent', 'coder', '--every', 'weekdays 09:00', '--zone', 'Europe/Paris', '--budget', '50ktok', 'Review the open pull requests and say what each needs before anyone merges it');
    cli('automation', 'add', '--agent', 'reviewer', '--after', 'coder', '--on', 'completed', "Review what coder changed");
    cli('automation', 'add', '--agent', 'coder', '--rrule', 'FREQ=MONTHLY;BYMONTHDAY=1;BYHOUR=8;BYMINUTE=0', '--loop', 'Make the flaky login test pass');
    const every = cli('automation', 'add', '--agent', 'coder', '--every', '2h', '--max-per-hour', '1', 'Summarise the open issues');
    try {
      cli('automation', 'add', '--agent', 'reviewer', '--on-change', 'src/**/*.rs', '--in', workspace, 'Check the Rust changes');
    } catch (error) {
      console.log(`no files trigger: ${error}`);
    }
    cli('automation', 'run-now', every);
    cli('automation', 'run-now', every);
    const paused = cli('automation', 'add', '--agent', 'reviewer', '--every', 'hourly', 'Triage new issues');
    cli('automation', 'pause', paused);

    await (await browser.$(byTestId('open-automations'))).click();
    await (await browser.$(byTestId('automation-entry'))).waitForExist({ timeout: 10_000 });
    await shoot('list');

    const entry = await browser.$(`${byTestId('automation-entry')}[data-automation-id="${every}"]`);
    await (await entry.$(byTestId('automation-open'))).click();
    await (await browser.$(byTestId('automation-run'))).waitForExist({ timeout: 10_000 });
    await browser.waitUntil(async () => (await browser.$$(byTestId('automation-run-task-state'))).length > 0, { timeout: 10_000 });
    await shoot('detail');
    await (await browser.$(byTestId('automation-remove'))).click();
    await shoot('detail-remove');
    await (await browser.$(byTestId('automation-remove-keep'))).click();

    await (await browser.$(byTestId('automation-edit'))).click();
    await (await browser.$(byTestId('automation-form'))).waitForExist({ timeout: 10_000 });
    await shoot('form-edit');
    await (await browser.$(byTestId('automation-cancel'))).click();

    await (await browser.$(byTestId('automation-new'))).click();
    await (await browser.$(byTestId('automation-every'))).setValue('25:00');
    await (await browser.$(byTestId('automation-text'))).setValue('x');
    await (await browser.$(byTestId('automation-submit'))).click();
    await (await browser.$(byTestId('error-trigger'))).waitForExist({ timeout: 10_000 });
    await shoot('form-error');
    await (await browser.$(byTestId('automation-kind-after'))).click();
    await shoot('form-after');
    await (await browser.$(byTestId('automation-cancel'))).click();

    const agent = await browser.$(`${byTestId('profile-entry')}[data-profile-name="coder"]`);
    await (await agent.$(byTestId('profile-select'))).click();
    await (await browser.$(byTestId('agent-automations'))).waitForExist({ timeout: 10_000 });
    await browser.execute(() => document.querySelector('[data-testid="agent-automations"]').scrollIntoView());
    await shoot('agent');
  } finally {
    await close();
  }
});
