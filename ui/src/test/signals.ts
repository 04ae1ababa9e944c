/** Signal values for tests: one body per protocol, and a whole `SignalInfo` around a scan. */
import type { Attention, Need, ScanEvent, SignalBody, SignalId, SignalInfo, SignalKind } from '../lib/bindings';
import { engineActions, type FakeBackend } from '../lib/fakeBackend';
import { signalScan } from './records';

export const clarification = (questions: string[] = ['Analyze OAuth2, JWT, or both?', 'What depth?']): SignalBody => ({
  kind: 'clarification',
  blocked_at: 'Choosing the auth strategy',
  questions,
  current_state: 'Phase 1 complete',
});

export const stopWork = (overrides: Partial<Extract<SignalBody, { kind: 'stop_work' }>> = {}): SignalBody => ({
  kind: 'stop_work',
  blocker_type: 'external_dependency',
  details: 'node_modules missing',
  state_snapshot: 'Completed: A, B, C\nFiles: file1, file2',
  blocked_work: 'Task D',
  stop_reason: 'cannot build without dependencies',
  resume_requirements: 'npm install',
  ...overrides,
});

export const delegate = (overrides: Partial<Extract<SignalBody, { kind: 'delegate' }>> = {}): SignalBody => ({
  kind: 'delegate',
  new_task_description: 'Write the parser tests',
  independence: 'can_proceed_parallel',
  coordination: 'put them in tests/parser.rs',
  ...overrides,
});

export const completion = (overrides: Partial<Extract<SignalBody, { kind: 'completion' }>> = {}): SignalBody => ({
  kind: 'completion',
  status: 'completed',
  deliverables: ['src/parser.rs', 'tests/parser.rs'],
  metrics_achieved: '42 tests pass',
  recommendations: ['Add fuzzing', 'Document the grammar'],
  ...overrides,
});

export const malformed = (kind: SignalKind = 'clarification', reason = 'questions: expected a list'): ScanEvent => ({
  type: 'malformed',
  kind,
  reason,
  raw: 'questions: what?',
});

/** A pending signal of session `s` (profile `p`) carrying `scan`, with any field overridden. */
export function signalInfo(id: string, scan: ScanEvent | SignalBody, overrides: Partial<SignalInfo> = {}): SignalInfo {
  return {
    id,
    session_id: 's',
    profile_id: 'p',
    task_id: null,
    channel: 'pty',
    scan: 'type' in scan ? scan : signalScan(scan),
    state: 'pending',
    created_at: 0,
    handled_at: null,
    response: null,
    reply_prompt: null,
    delegate_session: null,
    deliverables: [],
    success_criteria: null,
    merged: null,
    actions: engineActions('type' in scan ? scan : signalScan(scan)),
    ...overrides,
  };
}

/** What the engine says an agent asks of the user while `signal` waits (`setAttention`): `need`, the oldest of `waiting`. */
export function waitingOn(signal: SignalInfo, need: Need, waiting = 1): Attention {
  return { state: 'needs_you', need, since: signal.created_at, task_id: signal.task_id, task: null, signal_id: signal.id, waiting };
}

/**
 * The engine's word on a signal it settled, with what it typed into the agent in reply
 * (`signal_changed`). The fake settles a signal but writes no reply: its words are the engine's.
 */
export async function replied(backend: FakeBackend, signalId: SignalId, replyPrompt: string): Promise<void> {
  const settled = (await backend.listSignals()).find((s) => s.id === signalId);
  if (settled === undefined) throw new Error(`no signal ${signalId}`);
  backend.emit({ type: 'signal_changed', signal: { ...settled, reply_prompt: replyPrompt } });
}
