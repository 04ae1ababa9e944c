import { fireEvent, screen, waitFor, within } from '@testing-library/svelte';
import { tick } from 'svelte';
import { afterEach, describe, expect, it } from 'vitest';
import type { ScanEvent, SignalBody, SignalInfo, TaskSpec } from '../lib/bindings';
import { apiError } from '../lib/errors';
import { FakeBackend } from '../lib/fakeBackend';
import { signalScan } from '../test/records';
import { callsOf, renderApp } from '../test/render';
import { clarification, completion, delegate, malformed, replied, stopWork, waitingOn } from '../test/signals';

declare global {
  interface Window {
    __pwned?: number;
  }
}

afterEach(() => {
  delete window.__pwned;
});

/** Agent `claude` with a running session (and `codex`, idle), on screen, and a signal raised in it. */
async function raised(scan: ScanEvent, overrides: Partial<SignalInfo> = {}) {
  const backend = new FakeBackend();
  const claude = backend.seedProfile({ name: 'claude' });
  const codex = backend.seedProfile({ name: 'codex' });
  const session = backend.seedSession(claude.id, { state: 'running', pid: 1 });
  const signal = backend.raiseSignal(session.id, scan, overrides);
  await renderApp(backend);
  return { backend, claude, codex, session, signal };
}

async function openDialog(signalId: string): Promise<HTMLElement> {
  const entry = screen.getAllByTestId('attention-entry').find((e) => e.getAttribute('data-signal-id') === signalId);
  if (!entry) throw new Error(`no attention entry for ${signalId}`);
  await fireEvent.click(entry);
  return screen.getByTestId('signal-dialog');
}

const dialog = () => screen.getByTestId('signal-dialog');
const field = (name: string) => {
  const found = within(dialog())
    .getAllByTestId('signal-field')
    .find((f) => f.getAttribute('data-field') === name);
  if (!found) throw new Error(`no signal field ${name}`);
  return found;
};
const fieldNames = () => within(dialog()).queryAllByTestId('signal-field').map((f) => f.getAttribute('data-field'));
const respondCalls = (backend: FakeBackend) => callsOf(backend, 'respond_to_signal');

describe('desktop notifications', () => {
  it('a window started for a signal’s notification opens its dialog once loaded', async () => {
    const backend = new FakeBackend();
    const claude = backend.seedProfile({ name: 'claude' });
    const session = backend.seedSession(claude.id, { state: 'running', pid: 1 });
    const signal = backend.raiseSignal(session.id, signalScan(clarification()));
    backend.startedToOpen({ kind: 'signal', id: signal.id });
    await renderApp(backend);
    await waitFor(() => expect(dialog().getAttribute('data-signal-id')).toBe(signal.id));
  });

  it('a clicked signal notification opens its dialog', async () => {
    const { backend, signal } = await raised(signalScan(clarification()));
    expect(screen.queryByTestId('signal-dialog')).toBeNull();
    backend.openSignal(signal.id);
    await tick();
    expect(dialog().getAttribute('data-signal-id')).toBe(signal.id);
  });
});

describe('clarification', () => {
  it('offers the choices an agent gave with a question, and a click on one answers it', async () => {
    const body: SignalBody = { kind: 'clarification', blocked_at: '', questions: ['Which store?', 'How deep?'], current_state: '', options: [['SQLite', 'Postgres'], []] };
    const { backend, signal } = await raised(signalScan(body));
    await openDialog(signal.id);
    const choices = within(dialog()).getAllByTestId('signal-choice');
    expect(choices.map((c) => [c.getAttribute('data-index'), c.textContent])).toEqual([
      ['0', 'SQLite'],
      ['0', 'Postgres'],
    ]);
    await fireEvent.click(choices[1]);
    expect(choices[1].getAttribute('aria-pressed')).toBe('true');
    expect(choices[0].getAttribute('aria-pressed')).toBe('false');
    const answers = within(dialog()).getAllByTestId('signal-answer') as HTMLTextAreaElement[];
    expect(answers[0].value).toBe('Postgres');
    await fireEvent.input(answers[1], { target: { value: 'Shallow' } });
    await fireEvent.click(within(dialog()).getByTestId('signal-submit'));
    await tick();
    expect(respondCalls(backend).at(-1)).toEqual({ signalId: signal.id, response: { action: 'answer', answers: ['Postgres', 'Shallow'] } });
  });

  it('shows the questions and sends one answer per question', async () => {
    const { backend, signal } = await raised(signalScan(clarification(), { agent_id: 'bg-1', timestamp: '2026-01-11T09:00:00Z' }));
    await openDialog(signal.id);

    expect(dialog().getAttribute('data-kind')).toBe('clarification');
    expect(within(dialog()).getByRole('heading', { level: 2 }).textContent).toBe('claude asks 2 questions');
    expect(fieldNames()).toEqual(['agent_id', 'timestamp', 'blocked_at', 'current_state']);
    expect(field('blocked_at').textContent).toBe('Choosing the auth strategy');
    expect(field('current_state').textContent).toBe('Phase 1 complete');
    const questions = within(dialog()).getAllByTestId('signal-question');
    expect(questions.map((q) => [q.getAttribute('data-index'), q.textContent])).toEqual([
      ['0', 'Analyze OAuth2, JWT, or both?'],
      ['1', 'What depth?'],
    ]);
    const answers = within(dialog()).getAllByTestId('signal-answer');
    expect(answers.map((a) => a.getAttribute('data-index'))).toEqual(['0', '1']);
    // The first answer has the focus.
    expect(document.activeElement).toBe(answers[0]);

    // Every answer is required: the engine refuses naming the one missing, and the window marks it.
    await fireEvent.input(answers[0], { target: { value: 'Both' } });
    backend.failNext('respond_to_signal', apiError('invalid_input', 'Answer question 2: the agent waits for every answer.', 'answers.1'));
    await fireEvent.click(within(dialog()).getByTestId('signal-submit'));
    await tick();
    expect(respondCalls(backend)).toEqual([{ signalId: signal.id, response: { action: 'answer', answers: ['Both', ''] } }]);
    expect(within(dialog()).getByTestId('signal-error').textContent).toContain('Answer question 2: the agent waits for every answer.');
    expect(answers[1].getAttribute('aria-invalid')).toBe('true');
    expect(answers[0].getAttribute('aria-invalid')).toBeNull();

    await fireEvent.input(answers[1], { target: { value: 'Deep dive' } });
    await fireEvent.click(within(dialog()).getByTestId('signal-submit'));
    await tick();
    expect(respondCalls(backend).at(-1)).toEqual({ signalId: signal.id, response: { action: 'answer', answers: ['Both', 'Deep dive'] } });
    const reply = 'CLARIFICATION RESPONSE\nQ1: Analyze OAuth2, JWT, or both?\nA1: Both\nQ2: What depth?\nA2: Deep dive';
    await replied(backend, signal.id, reply);
    await tick();

    // Now read-only: what was answered and what the engine typed into the agent, as it wrote it.
    expect(dialog().getAttribute('data-state')).toBe('handled');
    expect(within(dialog()).queryByTestId('signal-answer')).toBeNull();
    expect(within(dialog()).queryByTestId('signal-submit')).toBeNull();
    expect(within(dialog()).queryByTestId('signal-error')).toBeNull();
    expect(within(dialog()).getAllByTestId('signal-given-answer').map((a) => a.textContent)).toEqual(['Both', 'Deep dive']);
    expect(within(dialog()).getByTestId('signal-response').getAttribute('data-action')).toBe('answer');
    expect(within(dialog()).getByTestId('signal-reply-prompt').textContent).toBe(reply);
    expect(document.activeElement).toBe(dialog());

    await fireEvent.click(within(dialog()).getByTestId('signal-done'));
    expect(screen.queryByTestId('signal-dialog')).toBeNull();
  });

  it('sends with Ctrl+Enter', async () => {
    const { backend, signal } = await raised(signalScan(clarification(['Only one?'])));
    await openDialog(signal.id);
    const answer = within(dialog()).getByTestId('signal-answer');
    await fireEvent.input(answer, { target: { value: 'yes' } });
    await fireEvent.keyDown(answer, { key: 'Enter', ctrlKey: true });
    await tick();
    expect(respondCalls(backend)).toEqual([{ signalId: signal.id, response: { action: 'answer', answers: ['yes'] } }]);
  });

  it('dismisses without telling the agent', async () => {
    const { backend, signal } = await raised(signalScan(clarification()));
    await openDialog(signal.id);
    await fireEvent.click(within(dialog()).getByTestId('signal-dismiss'));
    await tick();
    expect(respondCalls(backend)).toEqual([{ signalId: signal.id, response: { action: 'dismiss' } }]);
    expect(dialog().getAttribute('data-state')).toBe('dismissed');
    expect(within(dialog()).getByTestId('signal-response').textContent).toContain('nothing was sent to the agent');
    expect(within(dialog()).queryByTestId('signal-reply-prompt')).toBeNull();
  });
});

describe('stop work', () => {
  it('shows the blocker and resolves it with a resolution', async () => {
    const { backend, signal } = await raised(signalScan(stopWork()));
    await openDialog(signal.id);
    expect(within(dialog()).getByRole('heading', { level: 2 }).textContent).toBe('claude is blocked: external dependency');
    expect(fieldNames()).toEqual(['blocker_type', 'details', 'state_snapshot', 'blocked_work', 'stop_reason', 'resume_requirements']);
    expect(field('state_snapshot').tagName).toBe('PRE');
    expect(field('state_snapshot').textContent).toBe('Completed: A, B, C\nFiles: file1, file2');
    expect(field('resume_requirements').textContent).toBe('npm install');

    backend.failNext('respond_to_signal', apiError('invalid_input', 'Say how the blocker was resolved, so the agent can go on.', 'resolution'));
    await fireEvent.click(within(dialog()).getByTestId('signal-resolve'));
    await tick();
    expect(within(dialog()).getByTestId('signal-error').textContent).toContain('how the blocker was resolved');
    expect(within(dialog()).getByTestId('signal-resolution').getAttribute('aria-invalid')).toBe('true');

    await fireEvent.input(within(dialog()).getByTestId('signal-resolution'), { target: { value: 'ran npm install' } });
    await fireEvent.click(within(dialog()).getByTestId('signal-resolve'));
    await tick();
    expect(respondCalls(backend).at(-1)).toEqual({ signalId: signal.id, response: { action: 'resolve', resolution: 'ran npm install' } });
    expect(dialog().getAttribute('data-state')).toBe('handled');
    expect(within(dialog()).getByTestId('signal-response-text').textContent).toBe('ran npm install');
    await replied(backend, signal.id, 'BLOCKER RESOLVED\nIssue: external_dependency: node_modules missing');
    await tick();
    expect(within(dialog()).getByTestId('signal-reply-prompt').textContent).toBe('BLOCKER RESOLVED\nIssue: external_dependency: node_modules missing');
  });

  it('retries from the checkpoint once the user says what was fixed', async () => {
    const { backend, signal } = await raised(signalScan(stopWork()));
    await openDialog(signal.id);
    backend.failNext('respond_to_signal', apiError('invalid_input', 'Say what you fixed, so the agent knows what changed before it retries.', 'fix'));
    await fireEvent.click(within(dialog()).getByTestId('signal-retry'));
    await tick();
    expect(respondCalls(backend)).toEqual([{ signalId: signal.id, response: { action: 'retry', fix: '' } }]);
    expect(within(dialog()).getByTestId('signal-error').textContent).toContain('Say what you fixed');
    expect(within(dialog()).getByTestId('signal-retry-fix').getAttribute('aria-invalid')).toBe('true');

    await fireEvent.input(within(dialog()).getByTestId('signal-retry-fix'), { target: { value: 'pinned lodash to 4.17' } });
    await fireEvent.click(within(dialog()).getByTestId('signal-retry'));
    await tick();
    expect(respondCalls(backend).at(-1)).toEqual({ signalId: signal.id, response: { action: 'retry', fix: 'pinned lodash to 4.17' } });
    expect(dialog().getAttribute('data-state')).toBe('handled');
    await replied(backend, signal.id, 'ERROR FIXED\nApplied fix: pinned lodash to 4.17');
    await tick();
    expect(within(dialog()).getByTestId('signal-reply-prompt').textContent).toBe('ERROR FIXED\nApplied fix: pinned lodash to 4.17');
  });

  it('skips the item', async () => {
    const { backend, signal } = await raised(signalScan(stopWork()));
    await openDialog(signal.id);
    await fireEvent.click(within(dialog()).getByTestId('signal-skip'));
    await tick();
    expect(respondCalls(backend)).toEqual([{ signalId: signal.id, response: { action: 'skip' } }]);
    expect(dialog().getAttribute('data-state')).toBe('handled');
    await replied(backend, signal.id, 'SKIP ITEM');
    await tick();
    expect(within(dialog()).getByTestId('signal-reply-prompt').textContent).toBe('SKIP ITEM');
  });

  it('delegates the blocked part to a chosen agent, and links the new session', async () => {
    const { backend, signal, codex, session } = await raised(signalScan(stopWork()));
    await openDialog(signal.id);
    const select = within(dialog()).getByTestId('signal-delegate-profile') as HTMLSelectElement;
    expect([...select.options].map((o) => o.textContent)).toEqual(['claude', 'codex']);
    expect(select.value).toBe(signal.profile_id);

    await fireEvent.change(select, { target: { value: codex.id } });
    await fireEvent.click(within(dialog()).getByTestId('signal-delegate-blocked'));
    await tick();
    expect(respondCalls(backend)).toEqual([{ signalId: signal.id, response: { action: 'delegate_blocked', profile_id: codex.id } }]);
    const [started] = (await backend.listSessions()).filter((s) => s.profile_id === codex.id);
    expect(started.state).toBe('running');
    expect(within(dialog()).getByTestId('signal-response').textContent).toContain('Blocked part delegated to a new session of codex');

    const link = within(dialog()).getByTestId('signal-delegate-session');
    expect(link.getAttribute('data-session-id')).toBe(started.id);
    expect(link.textContent).toContain('codex');
    await fireEvent.click(link);
    expect(screen.queryByTestId('signal-dialog')).toBeNull();
    expect(screen.getByTestId('session-view').getAttribute('data-session-id')).toBe(started.id);
    expect(started.id).not.toBe(session.id);
  });
});

describe('delegation', () => {
  it('shows the request and approves it for the requester\'s own agent by default', async () => {
    const { backend, signal, claude } = await raised(signalScan(delegate({ independence: 'blocks_current_work' })));
    await openDialog(signal.id);
    expect(within(dialog()).getByRole('heading', { level: 2 }).textContent).toBe('claude asks to delegate work');
    expect(field('new_task_description').textContent).toBe('Write the parser tests');
    expect(field('independence').textContent).toBe('the requester waits for it');
    expect(field('coordination').textContent).toBe('put them in tests/parser.rs');
    expect((within(dialog()).getByTestId('signal-approve-profile') as HTMLSelectElement).value).toBe(claude.id);

    await fireEvent.click(within(dialog()).getByTestId('signal-approve'));
    await tick();
    expect(respondCalls(backend)).toEqual([{ signalId: signal.id, response: { action: 'approve', profile_id: claude.id } }]);
    const info = (await backend.listSignals())[0];
    expect(info.delegate_session).not.toBeNull();
    await replied(backend, signal.id, `DELEGATION APPROVED\nNew agent: ${info.delegate_session}`);
    await tick();
    expect(within(dialog()).getByTestId('signal-reply-prompt').textContent).toBe(`DELEGATION APPROVED\nNew agent: ${info.delegate_session}`);
    await fireEvent.click(within(dialog()).getByTestId('signal-delegate-session'));
    expect(screen.getByTestId('session-view').getAttribute('data-session-id')).toBe(info.delegate_session);

    // The delegate's view says whom it works for and that it ends once it reports, unless kept.
    const note = screen.getByTestId('delegation-note');
    expect(note.textContent).toContain('Works for claude on “Write the parser tests”; it ends once it reports.');
    await fireEvent.click(screen.getByTestId('delegate-keep'));
    await tick();
    expect(callsOf(backend, 'keep_delegate')).toEqual([{ sessionId: info.delegate_session, keep: true }]);
    expect(screen.getByTestId('delegation-note').textContent).toContain('it keeps running after it reports');
    // A delegate the engine flags as quiet says it may be stuck, marked as a warning.
    expect(screen.getByTestId('delegation-note').getAttribute('data-quiet')).toBe('false');
    backend.delegateQuiet(info.delegate_session!, Date.now());
    await tick();
    expect(screen.getByTestId('delegation-note').getAttribute('data-quiet')).toBe('true');
    // What it used, as the engine counts it (to the requester's task as its team's too).
    expect(screen.queryByTestId('delegation-spent')).toBeNull();
    backend.setDelegationSpent(info.delegate_session!, {
      tokens: { input: 500, output: 50, cache_read: 0, cache_write: 0, by_model: [] },
      cost_usd: 0.001,
      list_price: false,
    });
    await tick();
    expect(screen.getByTestId('delegation-spent').textContent).toBe('Used 550 tokens · $0.0010');
    expect(screen.getByTestId('delegation-note').textContent).toContain('it may be stuck (it ends, failed, at its time limit)');
    backend.delegateReported(info.delegate_session!, 'success');
    await tick();
    expect(screen.getByTestId('delegation-note').textContent).toContain('Reported “success” to claude');
    expect(screen.getByTestId('session-state').getAttribute('data-state')).toBe('running');
  });

  it('denies only with a reason', async () => {
    const { backend, signal } = await raised(signalScan(delegate({ independence: { other: 'after the merge' } })));
    await openDialog(signal.id);
    expect(field('independence').textContent).toBe('after the merge');

    backend.failNext('respond_to_signal', apiError('invalid_input', 'Say why, so the agent knows how to go on.', 'reason'));
    await fireEvent.click(within(dialog()).getByTestId('signal-deny'));
    await tick();
    expect(within(dialog()).getByTestId('signal-error').textContent).toContain('Say why');
    expect(within(dialog()).getByTestId('signal-deny-reason').getAttribute('aria-invalid')).toBe('true');

    await fireEvent.input(within(dialog()).getByTestId('signal-deny-reason'), { target: { value: 'no budget' } });
    await fireEvent.click(within(dialog()).getByTestId('signal-deny'));
    await tick();
    expect(respondCalls(backend).at(-1)).toEqual({ signalId: signal.id, response: { action: 'deny', reason: 'no budget' } });
    expect(dialog().getAttribute('data-state')).toBe('handled');
    await replied(backend, signal.id, 'DELEGATION DENIED\nReason: no budget');
    await tick();
    expect(within(dialog()).getByTestId('signal-reply-prompt').textContent).toBe('DELEGATION DENIED\nReason: no budget');
  });

  it('says clearly when too many agents run to approve', async () => {
    const { backend, signal, codex } = await raised(signalScan(delegate()));
    backend.failNext('respond_to_signal', apiError('too_many_agents', '1 agents are running, the most allowed at once; stop one or raise the limit'));
    await openDialog(signal.id);
    await fireEvent.change(within(dialog()).getByTestId('signal-approve-profile'), { target: { value: codex.id } });
    await fireEvent.click(within(dialog()).getByTestId('signal-approve'));
    await tick();
    expect(respondCalls(backend)).toEqual([{ signalId: signal.id, response: { action: 'approve', profile_id: codex.id } }]);

    const error = within(dialog()).getByTestId('signal-error');
    expect(error.getAttribute('data-code')).toBe('too_many_agents');
    expect(error.getAttribute('role')).toBe('alert');
    expect(error.textContent).toContain('No new agent was started: 1 agents are running, the most allowed at once');
    // Still pending, with the choice kept, to try again after stopping an agent.
    expect(dialog().getAttribute('data-state')).toBe('pending');
    expect((within(dialog()).getByTestId('signal-approve-profile') as HTMLSelectElement).value).toBe(codex.id);
    expect((await backend.listSessions()).filter((s) => s.profile_id === codex.id)).toEqual([]);
  });
});

describe('completion report', () => {
  it('shows the merged results of parallel agents, findings as text, bad lines as warnings', async () => {
    const hostile = '<img src=x onerror="window.__pwned=1">';
    const { session, signal } = await raised(signalScan(completion({ status: 'success' })), {
      merged: {
        members: [
          { session_id: 'a0000000-0000-4000-8000-000000000001', profile_id: 'p', requester: true, status: 'success', deliverables: [], metrics_achieved: '3 checks', recommendations: [] },
          { session_id: 'b0000000-0000-4000-8000-000000000002', profile_id: 'p', requester: false, status: hostile, deliverables: [], metrics_achieved: '', recommendations: [] },
        ],
        findings: [{ finding: hostile }],
        malformed_findings: [{ line: 2, reason: 'expected value' }],
        merged_at: 1,
      },
    });
    expect(session).toBeTruthy();
    await openDialog(signal.id);
    const merged = within(dialog()).getByTestId('signal-merged');
    const members = within(merged).getAllByTestId('signal-merged-member');
    expect(members.map((m) => m.getAttribute('data-requester'))).toEqual(['true', 'false']);
    expect(members[1].textContent).toContain(hostile);
    expect(within(merged).getByTestId('signal-finding').textContent).toBe(JSON.stringify({ finding: hostile }));
    expect(within(merged).getByTestId('signal-finding-malformed').getAttribute('data-line')).toBe('2');
    expect(dialog().querySelector('img')).toBeNull();
    expect(window.__pwned).toBeUndefined();
  });

  it('shows the checked deliverables, metrics beside the criteria, recommendations, and acknowledges', async () => {
    const backend = new FakeBackend();
    const claude = backend.seedProfile({ name: 'claude' });
    const session = backend.seedSession(claude.id, { state: 'running', pid: 1 });
    const spec: TaskSpec = {
      profile_id: claude.id,
      instruction: 'Write the parser',
      context: null,
      specs: null,
      instructions: null,
      priority: 'normal',
      time_limit_secs: null,
      success_criteria: 'all parser tests pass',
      goals: null,
      loop_iteration: null,
    };
    await backend.submitTask(spec);
    const signal = backend.raiseSignal(session.id, signalScan(completion({ status: 'partial' })), {
      deliverables: [
        { path: 'src/parser.rs', problem: null },
        { path: 'tests/parser.rs', problem: 'no such file' },
      ],
    });
    expect(signal.task_id).not.toBeNull();
    expect(signal.success_criteria).toBe('all parser tests pass');
    await renderApp(backend);
    await openDialog(signal.id);

    expect(within(dialog()).getByRole('heading', { level: 2 }).textContent).toBe('claude reports completion: partial');
    expect(field('status').textContent).toBe('partial');
    expect(field('metrics_achieved').textContent).toBe('42 tests pass');
    expect(field('success_criteria').textContent).toBe('all parser tests pass');
    const deliverables = within(dialog()).getAllByTestId('signal-deliverable');
    expect(deliverables.map((d) => [d.getAttribute('data-path'), d.getAttribute('data-ok')])).toEqual([
      ['src/parser.rs', 'true'],
      ['tests/parser.rs', 'false'],
    ]);
    expect(deliverables[1].textContent).toContain('no such file');
    expect(within(dialog()).getAllByTestId('signal-recommendation').map((r) => r.textContent)).toEqual(['Add fuzzing', 'Document the grammar']);

    await fireEvent.click(within(dialog()).getByTestId('signal-acknowledge'));
    await tick();
    expect(respondCalls(backend)).toEqual([{ signalId: signal.id, response: { action: 'acknowledge' } }]);
    expect(dialog().getAttribute('data-state')).toBe('handled');
  });

  it('says when the task set no success criteria', async () => {
    const { signal } = await raised(signalScan(completion()));
    await openDialog(signal.id);
    expect(fieldNames()).not.toContain('success_criteria');
    expect(dialog().textContent).toContain('The task set none.');
  });
});

describe('malformed block', () => {
  it('says what could not be read, shows the raw text, and can only be dismissed', async () => {
    const { backend, signal } = await raised(malformed('stop_work', 'missing field `blocker_type`'));
    await openDialog(signal.id);
    expect(dialog().getAttribute('data-kind')).toBe('stop_work');
    expect(dialog().textContent).toContain('The agent printed a stop-work block Switchboard could not read: missing field `blocker_type`');
    const raw = within(dialog()).getByTestId('signal-raw');
    expect(raw.tagName).toBe('PRE');
    expect(raw.textContent).toBe('questions: what?');
    const buttons = within(dialog())
      .getAllByRole('button')
      .map((b) => b.getAttribute('data-testid'));
    expect(buttons).toEqual(['signal-close', 'signal-dismiss']);

    await fireEvent.click(within(dialog()).getByTestId('signal-dismiss'));
    await tick();
    expect(respondCalls(backend)).toEqual([{ signalId: signal.id, response: { action: 'dismiss' } }]);
  });
});

describe('the dialog', () => {
  it('lists fields the protocol does not name', async () => {
    const { signal } = await raised(signalScan(clarification(), { extra: { priority: 'high', attempts: 3, tags: ['a', 'b'] } }));
    await openDialog(signal.id);
    const extra = within(dialog()).getByTestId('signal-extra');
    const rows = [...extra.querySelectorAll('dt')].map((dt) => [dt.textContent, dt.nextElementSibling?.textContent]);
    expect(rows).toEqual([
      ['attempts', '3'],
      ['priority', '"high"'],
      ['tags', '["a","b"]'],
    ]);
  });

  it('has no unknown-fields list when there are none', async () => {
    const { signal } = await raised(signalScan(delegate()));
    await openDialog(signal.id);
    expect(within(dialog()).queryByTestId('signal-extra')).toBeNull();
  });

  it('closes on Escape without responding, over the task detail, and gives the focus back', async () => {
    const backend = new FakeBackend();
    const claude = backend.seedProfile({ name: 'claude' });
    const session = backend.seedSession(claude.id, { state: 'running', pid: 1 });
    backend.seedTask({ profile_id: claude.id, instruction: 'old job', state: 'completed', ended_at: 1 });
    const signal = backend.raiseSignal(session.id, signalScan(clarification()));
    await renderApp(backend);
    await fireEvent.click(screen.getByTestId('task-open'));
    expect(screen.getByTestId('task-detail')).toBeTruthy();

    const entry = screen.getByTestId('attention-entry');
    entry.focus();
    await fireEvent.click(entry);
    expect(document.activeElement).toBe(within(dialog()).getAllByTestId('signal-answer')[0]);

    await fireEvent.keyDown(document.activeElement ?? window, { key: 'Escape' });
    await tick();
    expect(screen.queryByTestId('signal-dialog')).toBeNull();
    expect(screen.getByTestId('task-detail')).toBeTruthy();
    expect(respondCalls(backend)).toEqual([]);
    await Promise.resolve();
    expect(document.activeElement).toBe(entry);
    expect(screen.getByTestId('attention-entry').getAttribute('data-signal-id')).toBe(signal.id);
  });

  it('closes with ✕ and keeps the signal pending', async () => {
    const { backend, claude, signal } = await raised(signalScan(stopWork()));
    backend.setAttention(claude.id, waitingOn(signal, { kind: 'blocker', blocker: 'external_dependency' }));
    await openDialog(signal.id);
    await fireEvent.click(within(dialog()).getByTestId('signal-close'));
    expect(screen.queryByTestId('signal-dialog')).toBeNull();
    expect(respondCalls(backend)).toEqual([]);
    expect(screen.getByTestId('attention-count').textContent).toBe('1');
  });

  it('keeps Tab inside the dialog', async () => {
    const { signal } = await raised(signalScan(delegate()));
    await openDialog(signal.id);
    const focusable = [...dialog().querySelectorAll<HTMLElement>('*')].filter((e) => e.matches('button, textarea, select, summary'));
    expect(focusable.at(-1)?.getAttribute('data-testid')).toBe('signal-dismiss');
    focusable.at(-1)?.focus();
    await fireEvent.keyDown(dialog(), { key: 'Tab' });
    expect(document.activeElement).toBe(focusable[0]);
    await fireEvent.keyDown(dialog(), { key: 'Tab', shiftKey: true });
    expect(document.activeElement).toBe(focusable.at(-1));
  });

  it('turns read-only when the signal is settled elsewhere', async () => {
    const { backend, signal } = await raised(signalScan(clarification(['Q?'])));
    await openDialog(signal.id);
    await backend.respondToSignal(signal.id, { action: 'answer', answers: ['from the CLI'] });
    await tick();
    expect(dialog().getAttribute('data-state')).toBe('handled');
    expect(within(dialog()).getByTestId('signal-given-answer').textContent).toBe('from the CLI');
    expect(within(dialog()).queryByTestId('signal-answer')).toBeNull();
  });

  it('shows an engine refusal', async () => {
    const { backend, signal } = await raised(signalScan(completion()));
    backend.failNext('respond_to_signal', { code: 'signal_state', message: `signal ${signal.id}: it is already handled`, field: null });
    await openDialog(signal.id);
    await fireEvent.click(within(dialog()).getByTestId('signal-acknowledge'));
    await tick();
    const error = within(dialog()).getByTestId('signal-error');
    expect(error.getAttribute('data-code')).toBe('signal_state');
    expect(error.textContent).toContain('no longer waiting');
  });

  it('closes when the agent is deleted', async () => {
    const { backend, signal, claude } = await raised(signalScan(clarification()));
    await openDialog(signal.id);
    backend.emit({ type: 'profile_deleted', profile_id: claude.id });
    await tick();
    expect(screen.queryByTestId('signal-dialog')).toBeNull();
    expect(screen.queryByTestId('attention-entry')).toBeNull();
  });
});

describe('agent text in signals', () => {
  const P = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=1</script>';

  const hostile: Record<'clarification' | 'stop_work' | 'delegate' | 'completion', SignalBody> = {
    clarification: { kind: 'clarification', blocked_at: P, questions: [P, `${P}\n${P}`], current_state: P },
    stop_work: {
      kind: 'stop_work',
      blocker_type: P,
      details: P,
      state_snapshot: `${P}\n${P}`,
      blocked_work: P,
      stop_reason: P,
      resume_requirements: P,
    },
    delegate: { kind: 'delegate', new_task_description: P, independence: { other: P }, coordination: P },
    completion: { kind: 'completion', status: P, deliverables: [P, `${P}2`], metrics_achieved: P, recommendations: [P, P] },
  };
  const fields = { agent_id: P, timestamp: P, raw: P, extra: { [P]: P, nested: { [P]: [P, 1] } } };

  /** Every kind, pending and settled (with agent text in the response and the reply too). */
  const cases: [string, ScanEvent, Partial<SignalInfo>][] = [
    ...Object.entries(hostile).flatMap(([kind, body]): [string, ScanEvent, Partial<SignalInfo>][] => [
      [
        `${kind}, pending`,
        signalScan(body, fields),
        { deliverables: [{ path: P, problem: P }, { path: `${P}ok`, problem: null }], success_criteria: P },
      ],
      [
        `${kind}, handled`,
        signalScan(body, fields),
        {
          state: 'handled',
          handled_at: 5,
          response:
            kind === 'clarification'
              ? { action: 'answer', answers: [P, P] }
              : kind === 'stop_work'
                ? { action: 'resolve', resolution: P }
                : kind === 'delegate'
                  ? { action: 'deny', reason: P }
                  : { action: 'acknowledge' },
          reply_prompt: P,
          deliverables: [{ path: P, problem: P }],
          success_criteria: P,
        },
      ],
    ]),
    ['malformed, pending', { type: 'malformed', kind: 'delegate', reason: P, raw: P }, {}],
    ['malformed, dismissed', { type: 'malformed', kind: 'completion', reason: P, raw: P }, { state: 'dismissed', handled_at: 5, response: { action: 'dismiss' } }],
  ];

  it.each(cases)('%s: rendered as text only', async (_, scan, overrides) => {
    const backend = new FakeBackend();
    // The agent's name is the user's, but goes through the same titles.
    const agent = backend.seedProfile({ name: P });
    const session = backend.seedSession(agent.id, { state: 'running', pid: 1 });
    const signal = backend.raiseSignal(session.id, scan, overrides);
    const { container } = await renderApp(backend);

    if (signal.state === 'pending') {
      await fireEvent.click(screen.getByTestId('signal-banner'));
    } else {
      await fireEvent.click(screen.getByTestId('signal-history-entry'));
    }
    const shown = screen.getByTestId('signal-dialog');
    // Open every fold, so nothing is left unrendered.
    for (const details of shown.querySelectorAll('details')) details.open = true;
    await tick();
    await new Promise((resolve) => setTimeout(resolve, 20));

    expect(shown.textContent).toContain(P);
    // Each field the dialog shows carries the text, literally.
    const texts = [
      ...within(shown).queryAllByTestId('signal-field'),
      ...within(shown).queryAllByTestId('signal-question'),
      ...within(shown).queryAllByTestId('signal-given-answer'),
      ...within(shown).queryAllByTestId('signal-deliverable'),
      ...within(shown).queryAllByTestId('signal-recommendation'),
      ...within(shown).queryAllByTestId('signal-extra'),
      ...within(shown).queryAllByTestId('signal-raw'),
      ...within(shown).queryAllByTestId('signal-response-text'),
      ...within(shown).queryAllByTestId('signal-reply-prompt'),
      within(shown).getByRole('heading', { level: 2 }),
    ];
    expect(texts.length).toBeGreaterThanOrEqual(3);
    for (const element of texts) expect(element.textContent).toContain(P);
    expect(shown.querySelector('img, script')).toBeNull();
    expect(container.querySelector('img, script')).toBeNull();
    expect(document.body.querySelector('img, script')).toBeNull();
    for (const element of shown.querySelectorAll('*')) {
      for (const attribute of element.getAttributeNames()) expect(attribute.startsWith('on')).toBe(false);
    }
    expect(window.__pwned).toBeUndefined();
  });
});
