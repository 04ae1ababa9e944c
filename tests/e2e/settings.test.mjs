// The settings in the real window: a new agent's default time limit and the colours are
// changed and saved, kept when the app opens again on the same data, and an agent created
// then starts from the new default.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launchApp, DEMO_AGENT } from './driver.mjs';

const byTestId = (id) => `[data-testid="${id}"]`;

/** The colours the window shows: its root's theme and its background. */
function colours(browser) {
  return browser.execute(() => ({
    theme: document.documentElement.dataset.theme ?? null,
    background: getComputedStyle(document.documentElement).backgroundColor,
  }));
}

async function openSettings(browser) {
  await (await browser.$(byTestId('open-settings'))).click();
  await (await browser.$(byTestId('settings-view'))).waitForExist({ timeout: 10_000 });
}

test('settings are kept across a restart, and a new agent starts from them', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-e2e-settings-'));
  const workspace = mkdtempSync(join(tmpdir(), 'switchboard-e2e-ws-'));
  try {
    {
      const { browser, close } = await launchApp({ dataDir, args: ['--no-demo'] });
      try {
        await openSettings(browser);
        const folder = await browser.$(byTestId('data-folder'));
        await browser.waitUntil(async () => (await folder.getText()) !== '', { timeout: 10_000 });
        assert.equal(await folder.getText(), dataDir, 'the data folder is shown');
        const limit = await browser.$(byTestId('settings-time-limit'));
        assert.equal(await limit.getValue(), '30', 'the default until changed');
        // "As the desktop" to start with: the colours the desktop asks for.
        const desktopDark = await browser.execute(() => matchMedia('(prefers-color-scheme: dark)').matches);
        assert.equal((await colours(browser)).theme, desktopDark ? 'dark' : 'light');

        await limit.setValue('45');
        await (await browser.$(byTestId('theme-light'))).click();
        await (await browser.$(byTestId('settings-save'))).click();
        await (await browser.$(byTestId('settings-saved'))).waitForExist({ timeout: 10_000 });
        assert.deepEqual(await colours(browser), { theme: 'light', background: 'rgb(246, 248, 250)' });

        // A setting the engine refuses is said under its field, in words, and not kept.
        await limit.setValue('0');
        await (await browser.$(byTestId('settings-save'))).click();
        const error = await browser.$(byTestId('error-default_task_time_limit_secs'));
        await error.waitForExist({ timeout: 10_000 });
        assert.equal(await error.getText(), 'A time limit is at least a minute and at most 7 days.');
      } finally {
        await close();
      }
    }

    const { browser, close } = await launchApp({ dataDir, args: ['--no-demo'] });
    try {
      // The colours come back before the settings are opened.
      await browser.waitUntil(async () => (await colours(browser)).theme === 'light', {
        timeout: 10_000,
        timeoutMsg: 'the window did not come back light',
      });
      assert.equal((await colours(browser)).background, 'rgb(246, 248, 250)');
      await openSettings(browser);
      assert.equal(await (await browser.$(byTestId('settings-time-limit'))).getValue(), '45');
      assert.ok(await (await browser.$(byTestId('theme-light'))).isSelected());

      // A new agent's form starts from the 45 minutes, and the agent keeps them.
      await (await browser.$(byTestId('new-agent'))).click();
      const limit = await browser.$(byTestId('agent-task-time-limit'));
      assert.equal(await limit.getValue(), '45');
      await (await browser.$(byTestId('agent-name'))).setValue('after settings');
      await (await browser.$(byTestId('agent-command'))).setValue(DEMO_AGENT);
      await (await browser.$(byTestId('agent-cwd'))).setValue(workspace);
      await (await browser.$(byTestId('agent-submit'))).click();
      const entry = await browser.$(`${byTestId('profile-entry')}[data-profile-name="after settings"]`);
      await entry.waitForExist({ timeout: 10_000 });
      await (await entry.$(byTestId('profile-select'))).click();
      await (await browser.$(byTestId('edit-profile'))).click();
      assert.equal(await (await browser.$(byTestId('agent-task-time-limit'))).getValue(), '45', 'kept with the agent');
    } finally {
      await close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(workspace, { recursive: true, force: true });
  }
});
