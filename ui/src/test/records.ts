/**
 * Engine records for tests and the plain-browser demo, as the engine would send them: a signal
 * read from an agent's output, a task's plain settings, a completed task's result, the link to
 * another machine whose engine answers.
 */
import type { EngineLink, ScanEvent, Signal, SignalBody, TaskId, TaskResult, TaskSpec } from '../lib/bindings';
import { independenceLabel } from '../lib/signals';
import { summaryPath } from '../lib/tasks';

/** A well-formed signal as the engine reads it; `raw` defaults to the block's YAML, roughly. */
export function signalScan(body: SignalBody, fields: Partial<Pick<Signal, 'agent_id' | 'timestamp' | 'extra' | 'raw'>> = {}): ScanEvent {
  const signal: Signal = { agent_id: null, timestamp: null, extra: {}, raw: rawBlock(body), ...body, ...fields };
  return { type: 'signal', signal };
}

function rawBlock(body: SignalBody): string {
  const quote = (text: string) => JSON.stringify(text);
  return Object.entries(body)
    .filter(([key]) => key !== 'kind')
    .map(([key, value]) => {
      if (Array.isArray(value)) return `${key}:\n${value.map((item) => `  - ${quote(String(item))}`).join('\n')}`;
      if (typeof value === 'object' && value !== null) return `${key}: ${quote(independenceLabel(value))}`;
      return `${key}: ${typeof value === 'string' ? quote(value) : String(value)}`;
    })
    .join('\n');
}

/** A task's settings left plain (no context, normal priority, the agent's time limit). */
export const DEMO_TASK: Omit<TaskSpec, 'profile_id' | 'instruction'> = {
  context: null,
  specs: null,
  instructions: null,
  priority: 'normal',
  time_limit_secs: null,
  success_criteria: null,
  goals: null,
  loop_iteration: null,
};

/** A plausible completed result: the summary file as its first artifact, one deliverable. */
export function sampleResult(taskId: TaskId, overrides: Partial<TaskResult> = {}): TaskResult {
  const markdown = [
    '# Task Completion Summary',
    '## Objective',
    'Do what the task said.',
    '## Accomplishments',
    '- Did it',
    '## Key Deliverables',
    '- `src/done.txt` - the result',
    '## Test Results',
    '✅ All 3 tests passed',
    '## Important Notes',
    '- Nothing unusual',
    '## Status',
    '✅ COMPLETED',
    '',
  ].join('\n');
  return {
    summary: {
      objective: 'Do what the task said.',
      accomplishments: ['Did it'],
      deliverables: ['src/done.txt'],
      test_results: '✅ All 3 tests passed',
      tests: { passed: 3, failed: null },
      notes: ['Nothing unusual'],
      status: 'completed',
    },
    fallback: false,
    artifacts: [
      { path: summaryPath(taskId), content: markdown, size: markdown.length, truncated: false },
      { path: 'src/done.txt', content: 'done\n', size: 5, truncated: false },
    ],
    rejected: [],
    results_json: null,
    errors: null,
    ...overrides,
  };
}

/** The link to another machine whose engine answers, as the shell reports it. */
export function connectedHost(destination: string): EngineLink {
  return connectedEngine(destination);
}

/**
 * The link to an engine that answers (`host` null: this computer's), as the shell reports it;
 * `startsAtLogin`: the user's login service runs it; `connection`: which of the link's it is.
 */
export function connectedEngine(host: string | null, startsAtLogin = false, connection = 1): EngineLink {
  return { state: 'connected', engine_version: '0.1.0', outdated: false, agents_running: 0, host, connection, restarted: false, starts_at_login: startsAtLogin };
}
