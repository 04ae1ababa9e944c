// Usage limits in the real window, on a desktop of the test's own (a private bus, dunst and a
// tray). An agent whose model refuses its task for the account's usage limit keeps the task and
// waits: its hooks say so through the real hook binary, as Claude Code's StopFailure does, with
// no reset time. The sidebar, its session, the task and the dashboard say it, the tray's status
// line counts it, and a notification tells it; "Resume now" types `continue` into the agent, and
// once its turn runs (a tool call) the limit is over everywhere. Before all that, the agent tells
// its account's usage as Claude Code's status line does (through the hook binary's status-line
// command): the dashboard's card shows each window as a bar, the 5 hours past the warning.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { poll, privateBus, startDunst, startTray } from './desktop_bus.mjs';
import { HOOK, launchApp, terminalText, waitForTerminalText } from './driver.mjs';

const byTestId = (id) => `[data-testid="${id}"]`;

/**
 * A scripted agent: first its status line tells the account's usage (Claude Code's status-line
 * input, `rate_limits`: the 5 hours 85% used, the week 20%, handed on by the hook binary's
 * status-line command, no status line of the user's own to run); then its prompt, and for each
 * line typed into it, `continue` aside, its model refuses the turn at the account's usage limit
 * (Claude Code's hook events: the prompt taken, the turn failed with `rate_limit`, no reset time
 * said); after `continue` its turn runs (a tool call). Each event goes through the hook binary,
 * which reads the session and its secret from the environment the app gave the agent. The
 * terminal's echo is off: what shows is what it says.
 */
function limitedAgent(dir) {
  const script = join(dir, 'limited-agent.sh');
  const secs = Math.floor(Date.now() / 1000);
  const usage = JSON.stringify({
    rate_limits: {
      five_hour: { used_percentage: 85, resets_at: secs + 2 * 3600 },
      seven_day: { used_percentage: 20, resets_at: secs + 3 * 24 * 3600 },
    },
  });
  writeFileSync(
    script,
    `#!/bin/sh
stty -echo
hook='${HOOK}'
event() { printf '%s' "$1" | "$hook" || echo "the hook failed ($?)"; }
printf '%s' '${usage}' | CLAUDE_CONFIG_DIR='${dir}' "$hook" --status-line >/dev/null || echo "the status line failed ($?)"
printf 'limited> '
while IFS= read -r line; do
  case "$line" in
    continue)
      echo 'went on after: continue'
      event '{"hook_event_name":"UserPromptSubmit"}'
      event '{"hook_event_name":"PreToolUse","tool_name":"Read","tool_use_id":"toolu_1","tool_input":{"file_path":"notes.md"}}'
      ;;
    *)
      echo 'refused: usage limit'
      event '{"hook_event_name":"UserPromptSubmit"}'
      event '{"hook_event_name":"StopFailure","error":"rate_limit"}'
      ;;
  esac
  printf 'limited> '
done
`,
  );
  chmodSync(script, 0o755);
  return script;
}

test('an agent at its usage limit waits with its task, everywhere it shows, and Resume now has it go on', async () => {
  const scratch = mkdtempSync(join(tmpdir(), 'switchboard-e2e-limits-'));
  const bus = await privateBus(scratch);
  const env = { ...process.env, DBUS_SESSION_BUS_ADDRESS: bus.address };
  const stops = [bus.stop];
  try {
    const dunst = await startDunst(scratch, env);
    stops.unshift(dunst.stop);
    const tray = await startTray(env);
    stops.unshift(tray.stop);
    // (The private bus has no accessibility bus for GTK to find.)
    const { browser, close } = await launchApp({ args: ['--no-demo'], env: { DBUS_SESSION_BUS_ADDRESS: bus.address, NO_AT_BRIDGE: '1' } });
    stops.unshift(close);
    const $ = (id) => browser.$(byTestId(id));
    const status = () => tray.status();
    await poll('the app to register its tray item', tray.item, { timeout: 15_000 });

    // The user has the app wait ten minutes before it tries again after a limit with no reset
    // time, in the settings' Usage limits group; their notifications of usage limits stay on.
    await (await $('open-settings')).click();
    assert.equal(await (await $('settings-limit-retry')).getValue(), '60');
    assert.equal(await (await $('notify-usage_limit')).isSelected(), true);
    await (await $('settings-limit-retry')).setValue('600');
    await (await $('settings-save')).click();
    await (await $('settings-saved')).waitForExist({ timeout: 10_000 });
    await (await $('settings-close')).click();

    // An agent of its own account, made in the form as a user does.
    const script = limitedAgent(scratch);
    await (await $('new-agent')).click();
    await (await $('agent-name')).setValue('Limited');
    await (await $('agent-command')).setValue(script);
    await (await $('agent-cwd')).setValue(scratch);
    await (await $('agent-account')).setValue('work plan');
    await (await $('agent-submit')).click();
    await (await $('task-panel')).waitForExist({ timeout: 10_000 });

    await (await $('new-task')).click();
    await (await $('task-instruction')).setValue('Port the parser');
    await (await $('task-submit')).click();

    // Refused: the sidebar says it is at its usage limit (no reset said), with when the app tries again.
    const entry = await browser.$(`${byTestId('profile-entry')}[data-profile-name="Limited"]`);
    const badge = await entry.$(byTestId('profile-limited'));
    await badge.waitForExist({ timeout: 30_000, timeoutMsg: 'the sidebar never said the agent is at its usage limit' });
    assert.equal(await badge.getText(), 'usage limit');
    // The retry is ten minutes on: a time, or just before midnight tomorrow's weekday and time.
    assert.match(await badge.getAttribute('title'), /^At its usage limit \(reset time unknown; tries again at ([A-Z][a-z]{2} (\d{1,2}, )?)?\d.*\); “Port the parser” waits meanwhile$/);

    // Its session: the strip above the terminal says it, with its account, and the agent's screen
    // shows it was refused.
    await (await entry.$(byTestId('session-entry'))).click();
    await waitForTerminalText(browser, 'refused: usage limit');
    const strip = await $('agent-limit');
    await strip.waitForExist({ timeout: 10_000 });
    assert.equal(await strip.getAttribute('data-kind'), 'limited');
    // (Its lines are cut to one each, the whole in their tooltips: WebKit's driver reads such
    // text as empty, so their text is read as the document has it.)
    const text = async (element) => element.getProperty('textContent');
    assert.match(await text(await strip.$(byTestId('agent-limit-line'))), /^At its usage limit \(reset time unknown; tries again at ([A-Z][a-z]{2} (\d{1,2}, )?)?\d.*\); “Port the parser” waits meanwhile$/);
    assert.deepEqual(await (await strip.$$(byTestId('agent-limit-detail'))).map(text), ['Account work plan.']);
    // Its task is kept and says what it waits for.
    const wait = await browser.$(`${byTestId('task-panel')} ${byTestId('task-wait')}[data-cause="usage_limit"]`);
    await wait.waitForExist({ timeout: 10_000 });
    assert.match(await wait.getText(), /Its agent's account is at its usage limit, and did not say until when: the app tries again at ([A-Z][a-z]{2} (\d{1,2}, )?)?\d.*\. Its time limit is paused\./);
    assert.equal((await browser.$$(`${byTestId('task-entry')}[data-state="failed"]`)).length, 0, 'the refused task did not fail');

    // The tray counts it, and a notification told it.
    await poll('the tray to count the agent at its usage limit', async () => (await status()) === '0 working · 0 need you · 1 at usage limit', {
      seen: async () => `; it shows ${await status()}`,
    });
    const reached = await poll(
      'a notification of the usage limit',
      () => dunst.received().find((n) => n.app === 'Switchboard' && n.title === 'Agents at their usage limit'),
      { seen: () => `; dunst received:\n${JSON.stringify(dunst.received(), null, 1)}` },
    );
    assert.match(reached.body, /^Limited waits for the limit to reset/);

    // The dashboard gives it its own state.
    await (await $('open-dashboard')).click();
    const card = await browser.$(`${byTestId('dashboard-card')}[data-profile-name="Limited"]`);
    await poll('the dashboard card to say the usage limit', async () => (await card.isExisting()) && (await card.getAttribute('data-state')) === 'limited');
    assert.equal(await (await card.$(byTestId('dashboard-state'))).getText(), 'usage limit');
    assert.match(await (await card.$(byTestId('dashboard-limit'))).getText(), /^Reset time unknown; tries again at ([A-Z][a-z]{2} (\d{1,2}, )?)?\d/);
    assert.match(await (await $('dashboard-summary')).getText(), /1 at usage limit/);
    // Its account's usage, as its status line told it: a bar per window, the 5 hours marked
    // past the warning (80% unless the user changes it), the reset in the bar's tooltip.
    const bars = async () =>
      browser.execute(
        (card) =>
          Array.from(card.querySelectorAll('[data-testid="card-usage-window"]'), (w) => [
            w.textContent.replace(/\s+/g, ' ').trim(),
            w.dataset.level,
            w.getAttribute('title'),
          ]),
        card,
      );
    await poll('the dashboard card to show its account\'s usage', async () => (await bars()).length === 2, {
      seen: async () => `; it shows ${JSON.stringify(await bars())}`,
    });
    const [fiveHours, week] = await bars();
    assert.deepEqual(fiveHours.slice(0, 2), ['5 h 85%', 'warn']);
    // Two hours on: today's time, or after the day's end, tomorrow's with its day named.
    assert.match(fiveHours[2], /^5 hours: 85% used, resets ([A-Z][a-z]{2} )?\d{1,2}:\d\d/);
    assert.deepEqual(week.slice(0, 2), ['week 20%', 'ok']);
    assert.match(week[2], /^Week: 20% used, resets /);

    // The user knows better: Resume now, in its session, types `continue` into the agent.
    await (await entry.$(byTestId('session-entry'))).click();
    const resume = await (await $('agent-limit')).$(byTestId('resume-now'));
    await resume.waitForClickable({ timeout: 10_000 });
    await resume.click();
    await waitForTerminalText(browser, 'went on after: continue');
    // Its turn ran: the limit is over in every place that said it.
    await badge.waitForExist({ reverse: true, timeout: 15_000, timeoutMsg: 'the sidebar still says the agent is at its usage limit' });
    await (await $('agent-limit')).waitForExist({ reverse: true, timeout: 10_000 });
    await wait.waitForExist({ reverse: true, timeout: 10_000 });
    assert.equal(await (await $('resume-now-error')).isExisting(), false, 'Resume now was not refused');
    await poll('the tray to stop counting the limit', async () => !(await status()).includes('usage limit'), {
      seen: async () => `; it shows ${await status()}`,
    });
    assert.equal(await status(), '1 working · 0 need you');
    const lifted = await poll(
      'a notification that the agent goes on',
      () => dunst.received().find((n) => n.app === 'Switchboard' && n.title === 'Agents go on after their usage limit'),
      { seen: () => `; dunst received:\n${JSON.stringify(dunst.received(), null, 1)}` },
    );
    assert.equal(lifted.body, 'Limited goes on: as you asked.');
    // One `continue`, once: the screen shows it went on a single time.
    assert.equal((await terminalText(browser)).split('went on after: continue').length - 1, 1);
    // The task's history tells the refusal and the going on; the task is still at work.
    await (await browser.$(`${byTestId('task-panel')} ${byTestId('task-open')}`)).click();
    const detail = await $('task-detail');
    await detail.waitForExist({ timeout: 10_000 });
    assert.equal(await detail.getAttribute('data-state'), 'running');
    const timeline = async () =>
      browser.execute(() => Array.from(document.querySelectorAll('[data-testid="task-timeline"] li'), (li) => [li.dataset.kind, li.textContent]));
    await poll('the timeline to tell the refusal and the going on', async () => {
      const kinds = (await timeline()).map(([kind]) => kind);
      return kinds.includes('task_refused') && kinds.includes('task_resumed');
    }, { seen: async () => `; it shows ${JSON.stringify(await timeline())}` });
    const said = Object.fromEntries(await timeline());
    assert.match(said.task_refused, /Its agent's model refused the turn: waiting for its agent's usage limit to reset/);
    assert.match(said.task_resumed, /Asked to go on \(typed “continue”\)/);
    for (const { title, body } of dunst.received()) {
      // No ids, no folders of the agent's account.
      assert.doesNotMatch(`${title} ${body}`, /[0-9a-f]{8}-[0-9a-f]{4}/, `${title}: ${body}`);
    }
  } finally {
    for (const stop of stops) await stop();
    rmSync(scratch, { recursive: true, force: true });
  }
});
