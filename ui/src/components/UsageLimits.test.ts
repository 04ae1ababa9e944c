/**
 * An agent at its account's usage limit, as a user sees it everywhere its state shows: the
 * sidebar, the dashboard, the agent's page and its session, its tasks, the palette; and
 * "Resume now", which has the engine go on without waiting for the reset.
 */
import { fireEvent, screen, waitFor, within } from '@testing-library/svelte';
import { describe, expect, it } from 'vitest';
import type { AccountLimit, Need, Profile, TaskInfo, UsageLevel } from '../lib/bindings';
import { FakeBackend } from '../lib/fakeBackend';
import { resetWords } from '../lib/model';
import { callsOf, renderApp } from '../test/render';
import { idle, limited, needsYou, tellOverview, working } from '../test/attention';
import { overviewAgent } from '../test/overview';

const MINUTE = 60_000;

/**
 * Two agents of one Claude Code account at its limit: `builder` with its task kept (waiting
 * for the reset) and one queued, `reviewer` idle; a third agent of its own account works.
 * `until`: the reset its agent said, or null when it did not.
 */
function limitedAccount(until: number | null) {
  const now = Date.now();
  const backend = new FakeBackend();
  const builder = backend.seedProfile({ name: 'builder', kind: 'claude-code', command: 'claude', cwd: '/work/shop' });
  const reviewer = backend.seedProfile({ name: 'reviewer', kind: 'claude-code', command: 'claude', cwd: '/work/shop' });
  const other = backend.seedProfile({ name: 'other', cwd: '/work/other' });
  const session = backend.seedSession(builder.id, { state: 'running', pid: 41 }, now - 20 * MINUTE);
  const reviewerSession = backend.seedSession(reviewer.id, { state: 'running', pid: 42 }, now - 20 * MINUTE);
  const otherSession = backend.seedSession(other.id, { state: 'running', pid: 43 }, now - 20 * MINUTE);
  const retryAt = until === null ? now + 10 * MINUTE : until + 30_000;
  const account = '/home/ann/.claude';
  const task = backend.seedTask({
    profile_id: builder.id,
    instruction: 'Port the parser',
    state: 'running',
    session_id: session.id,
    started_at: now - 5 * MINUTE,
    typed_at: now - 5 * MINUTE,
    waiting_for: { cause: 'usage_limit', account, until, retry_at: retryAt },
  });
  const queued = backend.seedTask({ profile_id: builder.id, instruction: 'Write the changelog' });
  const limit: AccountLimit = {
    account,
    profiles: [builder.id, reviewer.id],
    since: now - 2 * MINUTE,
    until,
    retry_at: retryAt,
    passed: 0,
    phase: { phase: 'waiting' },
  };
  backend.seedLimit(limit);
  backend.setAttention(builder.id, limited(limit, task));
  backend.setAttention(reviewer.id, limited(limit));
  return { backend, builder, reviewer, other, session, reviewerSession, otherSession, task, queued, limit, retryAt, now };
}

/** The engine's word that the account's limit is over: builder at work on its task again, reviewer idle. */
function limitOver({ backend, builder, reviewer, task, now }: ReturnType<typeof limitedAccount>) {
  backend.setAttention(builder.id, working(task));
  backend.setAttention(reviewer.id, idle(now - 20 * MINUTE));
}

const entryOf = (name: string) => screen.getAllByTestId('profile-entry').find((e) => e.getAttribute('data-profile-name') === name)!;

async function openAgent(agent: Profile) {
  await fireEvent.click(within(entryOf(agent.name)).getByTestId('profile-select'));
  return screen.findByTestId('profile-view');
}

async function openDashboard() {
  await fireEvent.click(screen.getByTestId('open-dashboard'));
  const view = await screen.findByTestId('dashboard');
  await waitFor(() => expect(within(view).getAllByTestId('dashboard-card')).toHaveLength(3));
  return view;
}

const cardOf = (view: HTMLElement, name: string) => within(view).getAllByTestId('dashboard-card').find((c) => c.getAttribute('data-profile-name') === name)!;

/** A time to come as the window says it: the day named when it is not today (run near midnight). */
const resetAt = (time: number) => resetWords(time, Date.now());

describe('an agent at its usage limit', () => {
  it("its page shows its account's usage windows as its CLI told them", async () => {
    const until = Date.now() + 45 * MINUTE;
    const { backend, builder, limit } = limitedAccount(until);
    backend.seedUsage({
      account: limit.account,
      profiles: limit.profiles,
      windows: [
        { minutes: 300, used_percent: 100, resets_at: until, level: 'full' },
        { minutes: 10080, used_percent: 61, resets_at: null, level: 'ok' },
      ],
      told_at: Date.now(),
    });
    await renderApp(backend);
    const view = await openAgent(builder);
    const windows = await within(view).findAllByTestId('agent-usage-window');
    expect(windows.map((w) => w.textContent?.trim())).toEqual([`5 hours: 100% used, resets ${resetAt(until)}`, 'Week: 61% used']);
    expect(windows[0].querySelector('[role="meter"]')?.getAttribute('aria-valuenow')).toBe('100');
    expect(windows.map((w) => w.getAttribute('data-level'))).toEqual(['full', 'ok']);
  });

  it('the sidebar says until when, for every agent of the account, and does not call it working', async () => {
    const until = Date.now() + 45 * MINUTE;
    const { backend } = limitedAccount(until);
    await renderApp(backend);
    for (const name of ['builder', 'reviewer']) {
      const badge = within(entryOf(name)).getByTestId('profile-limited');
      expect(badge.textContent).toBe(`limited until ${resetAt(until)}`);
    }
    const builder = entryOf('builder');
    expect(within(builder).getByTestId('profile-limited').getAttribute('title')).toBe(`At its usage limit until ${resetAt(until)}; “Port the parser” waits and goes on then`);
    // Its task is kept and one waits behind it; it is not at work.
    expect(within(builder).getByTestId('profile-queue').textContent).toBe('1 queued');
    expect(within(entryOf('other')).queryByTestId('profile-limited')).toBeNull();
    // Nothing here asks the user: the rail and the "Needs you" list stay quiet.
    expect(screen.queryByTestId('attention-agent')).toBeNull();
  });

  it('follows the engine as a limit is reached, its agents go on one at a time, and it lifts', async () => {
    const until = Date.now() + 45 * MINUTE;
    const account = limitedAccount(until);
    const { backend, builder, reviewer, limit, task } = account;
    // The window opens before the account reaches its limit.
    backend.liftLimit(limit.account);
    limitOver(account);
    await renderApp(backend);
    const view = await openAgent(reviewer);
    expect(within(view).queryByTestId('agent-limit')).toBeNull();

    backend.seedLimit(limit);
    backend.setAttention(builder.id, limited(limit, task));
    backend.setAttention(reviewer.id, limited(limit));
    const banner = await within(view).findByTestId('agent-limit');
    // Nothing of its own waits; resuming it would have the account go on (builder's task first).
    expect(within(banner).getByTestId('resume-now')).toBeTruthy();
    expect(banner.textContent).toContain('Nothing of its own waits: it takes new tasks once the limit is over.');
    expect(within(entryOf('reviewer')).getByTestId('profile-limited').textContent).toBe(`limited until ${resetAt(until)}`);
    // The reset came: the account's agents go on one at a time, builder first.
    backend.seedLimit({ ...limit, phase: { phase: 'resuming', profile_id: builder.id } });
    await waitFor(() =>
      expect(within(banner).getAllByTestId('agent-limit-detail').map((d) => d.textContent)).toEqual([
        'Account ~/.claude, shared with builder: they wait for its reset together.',
        "Its account's agents go on one at a time: builder first.",
      ]),
    );
    backend.liftLimit(limit.account);
    limitOver(account);
    await waitFor(() => expect(within(view).queryByTestId('agent-limit')).toBeNull());
    expect(within(entryOf('reviewer')).queryByTestId('profile-limited')).toBeNull();
  });

  it('the dashboard gives it a calm state of its own, with when it goes on and Resume now', async () => {
    const account = limitedAccount(null);
    const { backend, builder, reviewer, other, session, reviewerSession, otherSession, task, limit, retryAt, now } = account;
    const reviewerCard = overviewAgent('reviewer', { profile_id: reviewer.id, session_id: reviewerSession.id, since: limit.since, attention: limited(limit) });
    const otherCard = overviewAgent('other', { profile_id: other.id, session_id: otherSession.id, since: now - 20 * MINUTE, attention: idle(now - 20 * MINUTE) });
    const builderCard = overviewAgent('builder', { profile_id: builder.id, session_id: session.id, since: limit.since, task_id: task.id, doing: 'Port the parser', queued: 1 });
    tellOverview(backend, [{ ...builderCard, attention: limited(limit, task) }, reviewerCard, otherCard]);
    await renderApp(backend);
    const view = await openDashboard();
    expect(within(view).getByTestId('dashboard-summary').textContent).toBe('3 agents · 2 at usage limit · 1 queued');
    const card = cardOf(view, 'builder');
    expect(card.getAttribute('data-state')).toBe('limited');
    expect(within(card).getByTestId('dashboard-state').textContent).toBe('usage limit');
    expect(within(card).getByTestId('dashboard-limit').textContent).toContain(`Reset time unknown; tries again at ${resetAt(retryAt)}`);
    expect(within(card).getByTestId('dashboard-task').textContent).toBe('Port the parser · waiting for the usage limit to reset');
    // Limited agents come after those that fail and before those at work.
    expect(within(view).getAllByTestId('dashboard-card').map((c) => c.getAttribute('data-profile-name'))).toEqual(['builder', 'reviewer', 'other']);
    expect(card.textContent).not.toContain('.claude');

    // The idle agent of the account has nothing of its own to resume: it goes on with the account.
    expect(within(cardOf(view, 'reviewer')).getByTestId('dashboard-limit').textContent).toContain('Reset time unknown');
    expect(within(cardOf(view, 'reviewer')).queryByTestId('dashboard-resume')).toBeNull();

    await fireEvent.click(within(card).getByTestId('dashboard-resume'));
    expect(callsOf(backend, 'resume_agent')).toEqual([{ profileId: builder.id }]);
    // The engine lifts the limit: builder is at work on its task again.
    tellOverview(backend, [{ ...builderCard, status: 'working', since: now, attention: working(task) }, { ...reviewerCard, attention: idle(now - 20 * MINUTE) }, otherCard]);
    await waitFor(() => expect(cardOf(view, 'builder').getAttribute('data-state')).toBe('working'));
    expect(within(cardOf(view, 'builder')).queryByTestId('dashboard-limit')).toBeNull();
  });

  it("the agent's page says it, with its account and who shares it, and Resume now goes on", async () => {
    const until = Date.now() + 45 * MINUTE;
    const account = limitedAccount(until);
    const { backend, builder, session } = account;
    const { terminals } = await renderApp(backend);
    const view = await openAgent(builder);
    const banner = within(view).getByTestId('agent-limit');
    expect(banner.getAttribute('data-kind')).toBe('limited');
    expect(within(banner).getByTestId('agent-limit-line').textContent).toBe(`At its usage limit until ${resetAt(until)}; “Port the parser” waits and goes on then`);
    expect(within(banner).getAllByTestId('agent-limit-detail').map((d) => d.textContent)).toEqual([
      'Account ~/.claude, shared with reviewer: they wait for its reset together.',
    ]);
    expect(banner.textContent).not.toContain('/home/ann');
    expect(screen.getByTestId('agent-account-shown').textContent).toBe('the one Claude Code is signed in to on this machine');
    // The task panel's status says it too; Resume now is offered once, by the banner.
    expect(screen.getByTestId('queue-limited').textContent).toBe(`limited until ${resetAt(until)}`);
    expect(screen.getAllByRole('button', { name: 'Resume now' })).toHaveLength(1);
    const resume = within(banner).getByTestId('resume-now');
    expect(resume.getAttribute('title')).toContain('without waiting for the reset');

    await fireEvent.click(resume);
    expect(callsOf(backend, 'resume_agent')).toEqual([{ profileId: builder.id }]);
    limitOver(account);
    await waitFor(() => expect(screen.queryByTestId('agent-limit')).toBeNull());
    expect(within(entryOf('builder')).queryByTestId('profile-limited')).toBeNull();
    // `continue` went to its terminal, and its task no longer waits.
    await fireEvent.click(within(entryOf('builder')).getByTestId('session-entry'));
    expect(screen.getByTestId('session-view').getAttribute('data-session-id')).toBe(session.id);
    await waitFor(() => expect(terminals.last().text()).toContain('continue'));
    expect(screen.queryByTestId('task-wait')).toBeNull();
  });

  it('its session shows it above the terminal, and the task at work says what it waits for', async () => {
    const { backend, retryAt, session } = limitedAccount(null);
    await renderApp(backend);
    await fireEvent.click(within(entryOf('builder')).getByTestId('session-entry'));
    const view = await screen.findByTestId('session-view');
    expect(view.getAttribute('data-session-id')).toBe(session.id);
    const strip = within(view).getByTestId('agent-limit');
    expect(within(strip).getByTestId('agent-limit-line').textContent).toBe(
      `At its usage limit (reset time unknown; tries again at ${resetAt(retryAt)}); “Port the parser” waits meanwhile`,
    );
    const wait = within(screen.getByTestId('task-panel')).getByTestId('task-wait');
    expect(wait.getAttribute('data-cause')).toBe('usage_limit');
    expect(wait.textContent).toContain(`did not say until when: the app tries again at ${resetAt(retryAt)}. Its time limit is paused.`);
  });

  it("a queued task says it starts after the reset, and its detail offers Resume now", async () => {
    const until = Date.now() + 45 * MINUTE;
    const { backend, builder, queued } = limitedAccount(until);
    await renderApp(backend);
    await openAgent(builder);
    await fireEvent.click(screen.getAllByTestId('task-open').find((b) => b.textContent?.includes('Write the changelog'))!);
    const detail = await screen.findByTestId('task-detail');
    const wait = within(detail).getByTestId('task-wait');
    expect(wait.textContent).toContain(`Its agent's account is at its usage limit until ${resetAt(until)}: it starts then.`);
    await fireEvent.click(within(wait).getByTestId('task-resume-now'));
    expect(callsOf(backend, 'resume_agent')).toEqual([{ profileId: builder.id }]);
    expect(queued.state).toBe('queued');
  });

  it('the palette offers to resume it, and says its limit beside its name', async () => {
    const { backend, builder } = limitedAccount(null);
    await renderApp(backend);
    await fireEvent.keyDown(document.body, { key: 'p', code: 'KeyP', ctrlKey: true, shiftKey: true });
    await fireEvent.input(await screen.findByTestId('palette-input'), { target: { value: 'resume builder' } });
    // The likeliest command comes first, chosen: Enter runs it.
    await waitFor(() => {
      const chosen = screen.getAllByTestId('palette-item').find((item) => item.hasAttribute('data-selected'));
      expect(chosen?.getAttribute('data-command')).toBe(`resume:${builder.id}`);
      expect(chosen?.textContent).toContain('Resume builder now (usage limit)');
    });
    await fireEvent.keyDown(screen.getByTestId('palette-input'), { key: 'Enter' });
    await waitFor(() => expect(callsOf(backend, 'resume_agent')).toEqual([{ profileId: builder.id }]));
  });
});

/** An agent at work whose task the engine paused: `cause` says why. */
function pausedTask(cause: TaskInfo['waiting_for']) {
  const now = Date.now();
  const backend = new FakeBackend();
  const agent = backend.seedProfile({ name: 'solo', kind: 'claude-code', command: 'claude', cwd: '/work' });
  const session = backend.seedSession(agent.id, { state: 'running', pid: 7 }, now - 10 * MINUTE);
  const task = backend.seedTask({
    profile_id: agent.id,
    instruction: 'Port the parser',
    state: 'running',
    session_id: session.id,
    started_at: now - 5 * MINUTE,
    typed_at: now - 5 * MINUTE,
    waiting_for: cause,
  });
  return { backend, agent, task };
}

describe('a turn its model refused for another reason', () => {
  it('an overloaded model: the task says when it goes on; Resume now in its detail tries now', async () => {
    const retry = Date.now() + 2 * MINUTE;
    const { backend, agent } = pausedTask({ cause: 'overloaded', retry_at: retry });
    await renderApp(backend);
    const strip = await screen.findByTestId('agent-limit');
    expect(strip.getAttribute('data-kind')).toBe('overloaded');
    await fireEvent.click(screen.getAllByTestId('task-open').find((b) => b.textContent?.includes('Port the parser'))!);
    const detail = await screen.findByTestId('task-detail');
    const wait = within(detail).getByTestId('task-wait');
    expect(wait.textContent).toContain(`The model's service is overloaded: its agent is asked to go on at ${resetAt(retry)}.`);
    await fireEvent.click(within(wait).getByTestId('task-resume-now'));
    expect(callsOf(backend, 'resume_agent')).toEqual([{ profileId: agent.id }]);
    await waitFor(() => expect(within(detail).queryByTestId('task-wait')).toBeNull());
    const timeline = await within(detail).findAllByText('Asked to go on (typed “continue”): its time limit runs again', { exact: false });
    expect(timeline.length).toBeGreaterThan(0);
  });

  it('an account to see to needs the user: listed as such, and resumed once they have', async () => {
    const why = 'Claude Code could not sign in to its account: sign in again in its terminal (/login)';
    const { backend, agent, task } = pausedTask({ cause: 'account', why });
    backend.setAttention(agent.id, needsYou({ kind: 'account', why }, { since: task.typed_at ?? 0, task_id: task.id, task: 'Port the parser' }));
    await renderApp(backend);
    // Listed among what needs the user, with what to do.
    const listed = await screen.findByTestId('attention-agent');
    expect(listed.textContent).toContain(`solo: Its account needs you: ${why}`);
    await fireEvent.click(listed);
    const view = await screen.findByTestId('profile-view');
    const banner = within(view).getByTestId('agent-limit');
    expect(banner.getAttribute('data-kind')).toBe('account');
    expect(banner.textContent).toContain('Once you have seen to it, resume it: its task goes on.');
    await fireEvent.click(within(banner).getByTestId('resume-now'));
    expect(callsOf(backend, 'resume_agent')).toEqual([{ profileId: agent.id }]);
    // Its task goes on: the engine says the agent is at work again.
    backend.setAttention(agent.id, working(task));
    await waitFor(() => expect(screen.queryByTestId('attention-agent')).toBeNull());
  });

  it('a limit that did not lift after its resets asks the user, and says so on its task', async () => {
    const { backend, builder, reviewer, task, limit } = limitedAccount(null);
    backend.seedLimit({ ...limit, passed: 3, phase: { phase: 'asks_user' } });
    const persists: Need = { kind: 'limit_persists', account: limit.account, resets: 3 };
    backend.setAttention(builder.id, needsYou(persists, { since: limit.since, task_id: task.id, task: 'Port the parser' }));
    backend.setAttention(reviewer.id, needsYou(persists, { since: limit.since }));
    await renderApp(backend);
    const view = await openAgent(builder);
    const banner = within(view).getByTestId('agent-limit');
    expect(banner.getAttribute('data-kind')).toBe('limit_persists');
    expect(within(banner).getByTestId('agent-limit-line').textContent).toBe(
      'Still at its usage limit after 3 resets: resume it when you know the limit has lifted',
    );
    expect(within(screen.getByTestId('task-panel')).getByTestId('task-wait-persists').textContent).toContain('after 3 resets');
  });

  it('a refusal of Resume now is said in words, without ids', async () => {
    const { backend, builder } = limitedAccount(null);
    await renderApp(backend);
    const view = await openAgent(builder);
    backend.failNext('resume_agent', {
      code: 'nothing_to_resume',
      message: "builder is not waiting for a usage limit or its model's service: there is nothing to resume",
      field: null,
    });
    await fireEvent.click(within(view).getByTestId('resume-now'));
    const error = await within(view).findByTestId('resume-now-error');
    expect(error.textContent).toBe("builder is not waiting for a usage limit or its model's service: there is nothing to resume.");
  });
});

/**
 * Two Claude Code agents of one account whose CLI told its usage, neither limited, and one of
 * its own account that told none.
 */
function toldUsage(fiveHours: number, level: UsageLevel = 'ok', week = 20) {
  const now = Date.now();
  const backend = new FakeBackend();
  const builder = backend.seedProfile({ name: 'builder', kind: 'claude-code', command: 'claude', cwd: '/work/shop' });
  const reviewer = backend.seedProfile({ name: 'reviewer', kind: 'claude-code', command: 'claude', cwd: '/work/shop' });
  const other = backend.seedProfile({ name: 'other', cwd: '/work/other' });
  for (const agent of [builder, reviewer, other]) backend.seedSession(agent.id, { state: 'running', pid: 40 }, now - 20 * MINUTE);
  const resets = now + 30 * MINUTE;
  const usage = {
    account: '/home/ann/.claude',
    profiles: [builder.id, reviewer.id],
    windows: [
      { minutes: 300, used_percent: fiveHours, resets_at: resets, level },
      { minutes: 10080, used_percent: week, resets_at: null, level: 'ok' as const },
    ],
    told_at: now,
  };
  backend.seedUsage(usage);
  return { backend, builder, reviewer, other, usage, resets };
}

/** Each usage bar of a card: its name, its number, its mark, its tooltip. */
const cardBars = (card: HTMLElement) =>
  within(card)
    .queryAllByTestId('card-usage-window')
    .map((w) => [w.textContent?.replace(/\s+/g, ' ').trim(), w.getAttribute('data-level'), w.getAttribute('title')]);

describe("an account's usage", () => {
  it("each card of the account's agents shows its windows, and a card of another account none", async () => {
    const { backend, resets } = toldUsage(42);
    await renderApp(backend);
    const view = await openDashboard();
    for (const name of ['builder', 'reviewer']) {
      expect(cardBars(cardOf(view, name))).toEqual([
        ['5 h 42%', 'ok', `5 hours: 42% used, resets ${resetAt(resets)}`],
        ['week 20%', 'ok', 'Week: 20% used'],
      ]);
    }
    const bar = within(cardOf(view, 'builder')).getAllByTestId('card-usage-window')[0].querySelector('[role="meter"]')!;
    expect(bar.getAttribute('aria-valuenow')).toBe('42');
    expect(within(cardOf(view, 'other')).queryByTestId('card-usage')).toBeNull();
    // No folder of the account's is shown.
    expect(cardOf(view, 'builder').textContent).not.toContain('.claude');
  });

  it('follows the usage its CLI tells anew', async () => {
    const { backend, usage, other } = toldUsage(42);
    await renderApp(backend);
    const view = await openDashboard();
    backend.seedUsage({ ...usage, windows: [{ ...usage.windows[0], used_percent: 57 }, usage.windows[1]] });
    await waitFor(() => expect(cardBars(cardOf(view, 'builder'))[0][0]).toBe('5 h 57%'));
    // An agent of another account tells its usage for the first time.
    backend.seedUsage({ account: 'team plan', profiles: [other.id], windows: [{ minutes: 300, used_percent: 3, resets_at: null, level: 'ok' }], told_at: Date.now() });
    await waitFor(() => expect(cardBars(cardOf(view, 'other'))).toEqual([['5 h 3%', 'ok', '5 hours: 3% used']]));
  });

  // The level against the user's warning is the engine's (`level_of`); the window marks what it says.
  it.each<[string, number, UsageLevel, string[]]>([
    ['below the warning', 79, 'ok', ['ok', 'ok']],
    ['at or past the warning', 93, 'warn', ['warn', 'ok']],
    ['used up: the limit', 100, 'full', ['full', 'ok']],
  ])('marks a window %s, as the engine says', async (_name, used, level, levels) => {
    const { backend } = toldUsage(used, level);
    await renderApp(backend);
    const view = await openDashboard();
    expect(cardBars(cardOf(view, 'builder')).map(([, level]) => level)).toEqual(levels);
  });

  it("the agent's page shows them though it is not limited, marked past the warning", async () => {
    const { backend, builder, other, resets } = toldUsage(85, 'warn');
    await renderApp(backend);
    const view = await openAgent(builder);
    expect(within(view).queryByTestId('agent-limit')).toBeNull();
    const windows = within(view).getAllByTestId('agent-usage-window');
    expect(windows.map((w) => [w.textContent?.trim(), w.getAttribute('data-level')])).toEqual([
      [`5 hours: 85% used, resets ${resetAt(resets)}`, 'warn'],
      ['Week: 20% used', 'ok'],
    ]);
    const otherView = await openAgent(other);
    expect(within(otherView).queryByTestId('agent-usage')).toBeNull();
  });
});
