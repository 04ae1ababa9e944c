// What a task cost, in the real window: an agent of Claude Code's kind (a shell script standing
// in for the CLI: it names its conversation file through the real hook binary, as Claude Code's
// SessionStart hook does, and writes each answer's usage there as Claude Code does) works on two
// tasks given in the task form. The first shows its tokens by model, and "price unknown" (its
// model has no price: never a guess); the second, given a budget in the form below one answer's
// use, ends over budget, said in words on its card and in its detail.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { APP, HOOK, launchApp } from './driver.mjs';

const byTestId = (id) => `[data-testid="${id}"]`;

/** The stand-in: each line typed is read; an answer's usage (6,500 tokens) follows each line that
 * names a summary, and the summary is written when the task says FINISH. */
function standIn(dir) {
  const script = join(dir, 'claude-stand-in');
  writeFileSync(
    script,
    `#!/bin/sh
file="$CLAUDE_CONFIG_DIR/projects/w/$SWITCHBOARD_SESSION_ID.jsonl"
mkdir -p "$(dirname "$file")"
printf '{"hook_event_name":"SessionStart","session_id":"%s","transcript_path":"%s"}' "$SWITCHBOARD_SESSION_ID" "$file" | ${HOOK}
stty -echo
n=0
finish=0
printf 'cc> '
while IFS= read -r line; do
  case "$line" in *FINISH*) finish=1 ;; esac
  summary=$(printf '%s' "$line" | grep -o 'summaries/[0-9a-f-]*[.]md' | head -n 1)
  if [ -n "$summary" ]; then
    n=$((n+1))
    at=$(date -u +%Y-%m-%dT%H:%M:%S.%3NZ)
    printf '{"type":"assistant","timestamp":"%s","message":{"id":"msg_%s","model":"claude-e2e","usage":{"input_tokens":1200,"output_tokens":300,"cache_read_input_tokens":5000,"cache_creation_input_tokens":0}}}\\n' "$at" "$n" >> "$file"
    if [ "$finish" = 1 ]; then
      mkdir -p summaries
      printf '# Task Completion Summary\\n\\n## Status\\nCOMPLETED\\n' > "$summary"
    fi
    finish=0
    printf 'cc> '
  fi
done
`,
  );
  chmodSync(script, 0o755);
  return script;
}

async function submit(browser, instruction, budget) {
  // The form stays open after a task is given.
  if (!(await (await browser.$(byTestId('task-instruction'))).isExisting())) await (await browser.$(byTestId('new-task'))).click();
  await (await browser.$(byTestId('task-instruction'))).setValue(instruction);
  if (budget) {
    await (await browser.$(byTestId('task-budget'))).setValue(String(budget));
    await (await browser.$(byTestId('task-budget-unit'))).selectByAttribute('value', 'tokens');
  }
  await (await browser.$(byTestId('task-submit'))).click();
}

async function entry(browser, state, words) {
  let found = null;
  await browser.waitUntil(
    async () => {
      for (const candidate of await browser.$$(`${byTestId('task-entry')}[data-state="${state}"]`)) {
        if (words.test(await candidate.getProperty('textContent'))) found = candidate;
      }
      return found !== null;
    },
    { timeout: 30_000, timeoutMsg: `no ${state} task matching ${words}` },
  );
  return found;
}

test('a task shows the tokens its agent used, and a budget below one answer ends the next over budget', async () => {
  const scratch = mkdtempSync(join(tmpdir(), 'switchboard-e2e-cost-'));
  const workspace = join(scratch, 'work');
  const home = join(scratch, 'claude');
  mkdirSync(workspace);
  mkdirSync(home);
  const script = standIn(scratch);
  const { browser, dataDir, close } = await launchApp({ args: ['--no-demo'], env: { CLAUDE_CONFIG_DIR: home } });
  try {
    execFileSync(APP, ['--data-dir', dataDir, 'agent', 'add', '--name', 'coder', '--command', script, '--cwd', workspace, '--kind', 'claude-code', '--no-switchboard-tools'], { encoding: 'utf8' });
    const agent = await browser.$(`${byTestId('profile-entry')}[data-profile-name="coder"]`);
    await agent.waitForExist({ timeout: 15_000 });
    await agent.click();
    await (await browser.$(byTestId('task-panel'))).waitForExist({ timeout: 10_000 });

    await submit(browser, 'FINISH the release notes');
    await entry(browser, 'completed', /FINISH the release notes/);
    // Its card says what it used once the engine read the agent's file (the card is drawn anew).
    let said = '';
    await browser.waitUntil(
      async () => {
        const done = await entry(browser, 'completed', /FINISH the release notes/);
        const cost = await done.$(byTestId('task-cost'));
        said = (await cost.isExisting()) ? await cost.getText() : '';
        return /6,500 tokens · price unknown/.test(said);
      },
      { timeout: 30_000, timeoutMsg: `its card does not say what it used: "${said}"` },
    );
    const done = await entry(browser, 'completed', /FINISH the release notes/);
    await (await done.$(byTestId('task-open'))).click();
    const model = await browser.$(`${byTestId('task-cost-model')}[data-model="claude-e2e"]`);
    await model.waitForExist({ timeout: 10_000 });
    assert.match(await model.getText(), /claude-e2e\s*1,200\s*300\s*5,000\s*0\s*price unknown/);
    assert.equal(await (await browser.$(byTestId('task-cost-total'))).getText(), 'price unknown');
    await (await browser.$(byTestId('task-detail-close'))).click().catch(() => {});

    await submit(browser, 'Keep going on the changelog', 5000);
    const over = await entry(browser, 'over_budget', /Keep going on the changelog/);
    assert.match(await over.getProperty('textContent'), /over budget/i);
    await (await over.$(byTestId('task-open'))).click();
    const reason = await browser.$(byTestId('task-reason'));
    await reason.waitForExist({ timeout: 10_000 });
    assert.match(await reason.getText(), /used its budget of 5,000 tokens \(6,500 tokens used\)/);
  } finally {
    await close().catch((error) => console.error(`closing: ${error}`));
    rmSync(scratch, { recursive: true, force: true });
  }
});
