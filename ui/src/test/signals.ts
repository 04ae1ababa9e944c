/** Signal values for tests: one body per protocol, and a whole `SignalInfo` around a scan. */
import type { ScanEvent, SignalBody, SignalInfo, SignalKind } from '../lib/bindings';
import { engineActions, signalScan } from '../lib/fakeBackend';

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
