/**
 * The demo the page shows in a plain browser (`npm run dev`): the fake backend with agents,
 * tasks, limits, usage, machines, worktrees and paired browsers seeded, and a running session.
 */
import { FakeBackend } from './fakeBackend';
import { DEMO_TASK, connectedHost, sampleResult, signalScan } from '../test/records';
import { summaryPath, taskTitle } from './tasks';
import { taskSpending } from './cost';
import { worktree } from '../test/worktrees';
import { limited, question, waitsOn, working } from '../test/attention';
import type { AccountLimit, CostRow, Device, ModelTokens, TaskInfo, TokenTotals, WorktreeInfo } from './bindings';

/**
 * The fake with a demo profile and a running demo session, for the plain-browser page. The
 * page's address may ask for a browser's page (`?kind=browser`: its banners and notices), one
 * paired to look only (`?device=read-only`), and its link lost or unpaired (`?link=…`), to look
 * at those without an engine.
 */
export function demoBackend(search = typeof location === 'undefined' ? '' : location.search): FakeBackend {
  const asked = new URLSearchParams(search);
  const backend = new FakeBackend({
    kind: asked.get('kind') === 'browser' ? 'browser' : 'window',
    directories: ['/', '/tmp', '/home', '/work', '/work/shop/src'],
    repositories: [{ root: '/work/shop', branch: 'main', setup_command: 'npm ci' }],
  });
  const hour = 3600 * 1000;
  const now = Date.now();
  const claude = backend.seedProfile({ name: 'claude', command: 'claude', args: ['--model', 'sonnet'], cwd: '/work', kind: 'claude-code' });
  backend.seedSession(claude.id, { state: 'exited', exit_code: 0, signal: null, ended_at: now - 2 * hour }, now - 3 * hour);
  backend.seedSession(claude.id, { state: 'interrupted', ended_at: now - hour }, now - 2 * hour);
  const codex = backend.seedProfile({ name: 'codex', command: 'codex', cwd: '/work', kind: 'codex' });
  backend.seedSession(codex.id, { state: 'killed', exit_code: 143, signal: 'SIGTERM', ended_at: now - hour / 2 }, now - hour);
  const demo = backend.seedProfile({ name: 'demo', command: 'bash', args: ['-i'], cwd: '/tmp', kind: 'generic', start_on_launch: true });
  const demoSession = backend.startSession(demo.id, { rows: 24, cols: 80 });
  // Codex's account is at its usage limit until the reset Codex named: the agent waits for it.
  const codexReset = now + 40 * 60 * 1000;
  const codexLimit: AccountLimit = {
    account: '/home/me/.codex',
    profiles: [codex.id],
    since: now - 5 * 60 * 1000,
    until: codexReset,
    retry_at: codexReset + 30_000,
    passed: 0,
    phase: { phase: 'waiting' },
  };
  backend.seedLimit(codexLimit);
  // What the engine says each agent asks of the user (the fake is told, as the window is).
  backend.setAttention(codex.id, limited(codexLimit));
  backend.setAttention(claude.id, { state: 'stopped', since: now - hour, ended: { how: 'interrupted' }, failed: 0 });
  backend.seedUsage({
    account: '/home/me/.codex',
    profiles: [codex.id],
    windows: [
      { minutes: 300, used_percent: 100, resets_at: codexReset, level: 'full' },
      { minutes: 10080, used_percent: 61, resets_at: codexReset + 3 * 24 * 3600 * 1000, level: 'ok' },
    ],
    told_at: now - 5 * 60 * 1000,
  });
  // Claude's account is past the warning in its 5 hours, well within its week.
  backend.seedUsage({
    account: '/home/me/.claude',
    profiles: [claude.id],
    windows: [
      { minutes: 300, used_percent: 84, resets_at: now + 2 * hour, level: 'warn' },
      { minutes: 10080, used_percent: 23, resets_at: now + 4 * 24 * hour, level: 'ok' },
    ],
    told_at: now - 60 * 1000,
  });

  // A task history to look at: one done, one cut short, one running, two waiting.
  const done = backend.seedTask({
    profile_id: claude.id,
    instruction: 'Add a --verbose flag to the CLI\n\nPrint each step when it is set.',
    state: 'completed',
    created_at: now - 3 * hour,
    started_at: now - 3 * hour,
    typed_at: now - 3 * hour,
    ended_at: now - 2.5 * hour,
    success_criteria: 'cargo test passes',
  });
  backend.seedTask({ ...done, result: sampleResult(done.id, { results_json: '{"tests":{"passed":3,"failed":0}}' }) });
  const refactor = backend.seedTask({
    profile_id: claude.id,
    instruction: 'Refactor the parser',
    state: 'interrupted',
    created_at: now - 2 * hour,
    started_at: now - 2 * hour,
    typed_at: now - 2 * hour,
    ended_at: now - hour,
    reason: 'the app stopped while the task ran',
  });
  void (async () => {
    const session = await demoSession;
    await backend.submitTask({ ...DEMO_TASK, profile_id: demo.id, instruction: 'Write a haiku about queues' });
    backend.setProgress((await backend.listTasks(demo.id))[0].id, 'counting syllables (2/3 lines)');
    await backend.submitTask({ ...DEMO_TASK, profile_id: demo.id, instruction: 'Then summarise the README' });
    await backend.submitTask({ ...DEMO_TASK, profile_id: demo.id, instruction: 'Fix the flaky test', priority: 'urgent' });
    // The running task's agent has questions: the "Needs you" list and the session banner show it.
    const raised = backend.raiseSignal(
      session.id,
      signalScan(
        {
          kind: 'clarification',
          blocked_at: 'Choosing the form of the haiku',
          questions: ['Strict 5-7-5 syllables, or is a looser modern form fine?', 'Which queue: a task queue, or a line at the post office?'],
          current_state: 'Drafted two candidate first lines:\n- "tasks wait in a row"\n- "the line does not move"',
        },
        { agent_id: 'demo', timestamp: new Date(now).toISOString(), extra: { confidence: 0.6 } },
      ),
    );
    backend.setAttention(demo.id, waitsOn(raised, question('Strict 5-7-5 syllables, or is a looser modern form fine?', 2)));
    // Its hook asks to run a command too: the desktop's prompt, the phone's inbox.
    backend.askPermission({ id: 1, session_id: session.id, tool_name: 'Bash', tool_input: { command: 'npm test -- --watch=false' }, asked_at: Date.now(), expires_at: Date.now() + 10 * 60 * 1000 });
  })();
  // The link as a browser's page may hear it, to look at its banner (`?link=lost`, `?link=unpaired`).
  if (asked.get('link') === 'lost') backend.setEngineLink({ state: 'lost', reason: 'Switchboard’s engine cannot be reached from this browser.', host: null });
  if (asked.get('link') === 'unpaired') {
    backend.setEngineLink({ state: 'refused', reason: 'This phone was removed from Switchboard’s devices. Pair it again to go on.', host: null, unpaired: true });
  }
  if (asked.get('device') === 'read-only') {
    backend.answerNext('this_device', { id: 'demo-phone', name: 'Demo phone', read_only: true, paired_at: now - hour, last_seen_at: now, last_from: '127.0.0.1', connected: true } satisfies Device);
  }
  seedSpending(backend, { done, refactor, ...seedWorktrees(backend, now) });
  // Another machine the window shows, with an agent of its own there.
  backend.seedHost({ destination: 'dev@build-box', version: '0.1.0', agents_running: 0, words: 'connected, Switchboard 0.1.0, no agent running' });
  backend.setHostLink({ destination: 'dev@build-box', link: connectedHost('dev@build-box') });
  backend.seedProfile({ name: 'trainer', command: 'claude', cwd: '/home/dev/projects/api', kind: 'claude-code', host: 'dev@build-box' });
  // Two browsers paired: a phone with its page open, a tablet that looks only, last seen yesterday.
  backend.addDevice({ id: 'd1', name: 'Chrome on Android', read_only: false, paired_at: now - 30 * 24 * hour, last_seen_at: now, last_from: '127.0.0.1', connected: true });
  backend.addDevice({ id: 'd2', name: 'Hall tablet', read_only: true, paired_at: now - 9 * 24 * hour, last_seen_at: now - 20 * hour, last_from: '100.64.0.7', connected: false });
  return backend;
}

/** Two agents working apart in one repository, their worktrees meeting in a file, and one merged. */
function seedWorktrees(backend: FakeBackend, now: number): { login: TaskInfo; remember: TaskInfo } {
  const minute = 60 * 1000;
  const builder = backend.seedProfile({ name: 'builder', command: 'claude', cwd: '/work/shop', kind: 'claude-code', isolation: 'worktree' });
  const fixer = backend.seedProfile({ name: 'fixer', command: 'codex', cwd: '/work/shop', kind: 'codex', isolation: 'worktree' });
  const login = backend.seedTask({
    profile_id: builder.id,
    instruction: 'Fix the login redirect\n\nAfter signing in, users land on / instead of the page they came from.',
    state: 'completed',
    created_at: now - 50 * minute,
    started_at: now - 50 * minute,
    typed_at: now - 49 * minute,
    ended_at: now - 20 * minute,
  });
  const summary = [
    '# Task Completion Summary',
    '## Objective',
    'Send users back to the page they came from after signing in.',
    '## Accomplishments',
    '- Kept the requested path in the session as `returnTo`, checked to stay on this site',
    '- Moved the URL helpers to `src/util/url.ts`',
    '- Added tests for the redirect, including an outside URL that must be refused',
    '## Test Results',
    '✅ 14 tests passed',
    '## Status',
    '✅ COMPLETED',
  ].join('\n');
  backend.seedTask({ ...login, result: sampleResult(login.id, { artifacts: [{ path: summaryPath(login.id), content: summary, size: summary.length, truncated: false }] }) });
  const session = [
    "import { Router } from 'express';",
    "import { isSameSite } from '../util/url';",
    '',
    'export const auth = Router();',
    '',
    "auth.post('/login', async (req, res) => {",
    '  const user = await signIn(req.body.email, req.body.password);',
    '  if (!user) {',
    "    res.status(401).render('login', { error: 'Wrong email or password.' });",
    '    return;',
    '  }',
    '  req.session.user = user.id;',
    "  res.redirect('/');",
    '});',
    '',
  ];
  const sessionAfter = [...session];
  sessionAfter.splice(12, 1, '  // Back to where they were, never to another site.', '  const to = req.session.returnTo;', '  delete req.session.returnTo;', "  res.redirect(to && isSameSite(to) ? to : '/');");
  const test = [
    "import { describe, expect, it } from 'vitest';",
    "import { isSameSite } from '../util/url';",
    '',
    "describe('the login redirect', () => {",
    "  it('keeps a path on this site', () => {",
    "    expect(isSameSite('/orders/12')).toBe(true);",
    '  });',
    "  it('refuses another site', () => {",
    "    expect(isSameSite('https://evil.example/')).toBe(false);",
    "    expect(isSameSite('//evil.example/')).toBe(false);",
    '  });',
    '});',
    '',
  ].join('\n');
  const url = ['/** Whether a redirect target stays on this site. */', 'export function isSameSite(target: string): boolean {', "  return target.startsWith('/') && !target.startsWith('//');", '}', ''].join('\n');
  const shop = { repository: '/work/shop', base: 'main', files_changed: 6 };
  const overlap = (other: string, title: string, meeting: number, first: boolean) =>
    ({
      state: 'conflicting',
      state_text: 'changes files other work changes',
      conflicts_with: [other],
      overlaps: [{ with: other, with_title: title, files: ['src/auth/session.ts'], meeting_hunks: meeting, merge_first: first }],
    }) satisfies Partial<WorktreeInfo>;
  const rememberTitle = 'Add “remember me” to the sign-in form';
  const remember = backend.seedTask({
    profile_id: fixer.id,
    instruction: rememberTitle,
    state: 'running',
    created_at: now - 15 * minute,
    started_at: now - 15 * minute,
    typed_at: now - 14 * minute,
  });
  backend.setAttention(fixer.id, working(remember));
  backend.seedWorktree(worktree(login.id, { ...shop, ...overlap(remember.id, rememberTitle, 1, true), title: taskTitle(login), profile_id: builder.id, agent: builder.name, branch: 'switchboard/builder/fix-the-login-redirect', created_at: now - 50 * minute }), [
    { path: 'docs/old-login.md', from: null, status: 'deleted', content: { kind: 'text', before: '# Login\n\nUsers always land on the home page.\n', after: '', unified: '' } },
    { path: 'public/logo.png', from: null, status: 'modified', content: { kind: 'binary' } },
    { path: 'src/auth/redirect.test.ts', from: null, status: 'added', content: { kind: 'text', before: '', after: test, unified: '' } },
    { path: 'src/auth/session.ts', from: null, status: 'modified', content: { kind: 'text', before: session.join('\n'), after: sessionAfter.join('\n'), unified: '' } },
    { path: 'src/util/url.ts', from: 'src/url.ts', status: 'renamed', content: { kind: 'text', before: url.replace('stays on this site', 'is ours'), after: url, unified: '' } },
    { path: 'test/fixtures/users.json', from: null, status: 'added', content: { kind: 'too_large', bytes: 812 * 1024 } },
  ]);

  const rememberAfter = [...session];
  rememberAfter.splice(11, 1, '  req.session.user = user.id;', '  if (req.body.remember) req.session.cookie.maxAge = 30 * 24 * 3600 * 1000;');
  backend.seedWorktree(worktree(remember.id, { ...shop, ...overlap(login.id, taskTitle(login), 2, false), title: rememberTitle, profile_id: fixer.id, agent: fixer.name, branch: 'switchboard/fixer/add-remember-me', created_at: now - 15 * minute, files_changed: 2, state: 'working', state_text: 'its agent is at work', task_at_work: remember.id }), [
    { path: 'src/auth/session.ts', from: null, status: 'modified', content: { kind: 'text', before: session.join('\n'), after: rememberAfter.join('\n'), unified: '' } },
    { path: 'views/login.html', from: null, status: 'modified', content: { kind: 'text', before: '<button>Sign in</button>\n', after: '<label><input type="checkbox" name="remember"> Remember me</label>\n<button>Sign in</button>\n', unified: '' } },
  ]);

  const typo = backend.seedTask({ profile_id: fixer.id, instruction: 'Fix the typo on the pricing page', state: 'completed', created_at: now - 3 * 60 * minute, ended_at: now - 170 * minute });
  backend.seedWorktree(worktree(typo.id, { ...shop, title: taskTitle(typo), profile_id: fixer.id, agent: fixer.name, branch: 'switchboard/fixer/fix-the-typo', created_at: now - 3 * 60 * minute, state: 'merged', state_text: 'merged', files_changed: 0 }));
  return { login, remember };
}

/** Tokens of one model each, summed. */
function totals(models: ModelTokens[]): TokenTotals {
  const sum = (key: 'input' | 'output' | 'cache_read' | 'cache_write') => models.reduce((n, m) => n + m[key], 0);
  return { input: sum('input'), output: sum('output'), cache_read: sum('cache_read'), cache_write: sum('cache_write'), by_model: models };
}

/**
 * What the demo's tasks spent, as the engine would have counted and priced it: Claude on a
 * subscription (list prices), a model without a price, a lead's team, a running task with a
 * budget; and today's report by agent.
 */
function seedSpending(backend: FakeBackend, tasks: { done: TaskInfo; refactor: TaskInfo; login: TaskInfo; remember: TaskInfo }): void {
  const sonnet = { model: 'claude-sonnet-5-5-20261001', input: 1_200, output: 8_400, cache_read: 184_000, cache_write: 12_000, cost_usd: 0.16 };
  const unpriced = { model: 'claude-fable-9', input: 3_000, output: 900, cache_read: 40_000, cache_write: 0, cost_usd: null };
  const opus = { model: 'claude-opus-5-5', input: 9_800, output: 21_000, cache_read: 410_000, cache_write: 38_000, cost_usd: 0.84 };
  const haiku = { model: 'claude-haiku-5-5', input: 12_000, output: 3_000, cache_read: 60_000, cache_write: 0, cost_usd: 0.01 };
  const sol = { model: 'gpt-6-sol', input: 24_000, output: 3_100, cache_read: 51_000, cache_write: 0, cost_usd: 0.09 };
  const done = backend.setTaskSpent(tasks.done.id, { tokens: totals([sonnet]), cost_usd: 0.16, list_price: true });
  backend.setTaskSpent(tasks.refactor.id, { tokens: totals([sonnet, unpriced]), cost_usd: null, list_price: true });
  const login = backend.setTaskSpent(tasks.login.id, { tokens: totals([opus]), cost_usd: 0.84, team_tokens: totals([haiku]), team_cost_usd: 0.01 });
  backend.seedTask({ ...tasks.remember, budget: { usd: 1 } });
  const remember = backend.setTaskSpent(tasks.remember.id, { tokens: totals([sol]), cost_usd: 0.09 });
  const row = (task: TaskInfo, name: string): CostRow => ({ key: task.profile_id, name, ...taskSpending(task).whole });
  backend.setCostReport({ by: 'agent', rows: [row(login, 'builder'), row(remember, 'fixer'), row(done, 'claude')] });
}
