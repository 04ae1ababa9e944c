/**
 * The fake backend keeps the engine's contract: the script recorded against the real engine
 * (`ui/src/test/contract.json`, written by the engine's `contract` test) is replayed on the
 * fake, and every reply must be the engine's, normalised the same way (ids numbered by first
 * appearance, times, process ids and the workspace path), and every error the engine's code
 * and field.
 */
import { describe, expect, it } from 'vitest';
import contract from '../test/contract.json';
import { dispatchCommand, type Command, type FileDiff, type ErrorCode, type PermissionRequest, type ProfileField, type ProfileProblem, type SearchHit, type TaskInfo, type WorktreeInfo } from './bindings';
import { toApiError } from './errors';
import { FAKE_BIN, FakeBackend } from './fakeBackend';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

interface Step {
  command?: { [key: string]: Json };
  /** One of the window's shell calls through the client (attaching a terminal). */
  shell?: { [key: string]: Json };
  /** The script waited here for a task to finish, the radar's reading of the worktrees, or an agent to ask permission. */
  waited?: 'task_finished' | 'worktrees_read' | 'permission_requested';
  request?: { [key: string]: Json };
  task_id?: string;
  /** The worktrees as the engine's radar reported them. */
  worktrees?: { [key: string]: Json }[];
  reply?: Json;
  error?: { code: string; field: string | null; problems: string[]; message?: string };
}

const NOW = 1_700_000_000_000;

const WORKSPACE = '/work/contract-workspace';

/** The keys `tests/tests/suite/contract.rs` numbers as ids (a worktree is named by its task's). */
const ID_KEYS = new Set(['id', 'waiting_for', 'current_task', 'delegate_session', 'task', 'worktree', 'with', 'conflicts_with', 'task_at_work']);
const isIdKey = (key: string) => ID_KEYS.has(key) || key.endsWith('_id');

/** The normalisation of `tests/tests/suite/contract.rs`, over the fake's values. */
class Normaliser {
  readonly ids = new Map<string, string>();

  id(value: string): string {
    let placeholder = this.ids.get(value);
    if (placeholder === undefined) {
      placeholder = `<id ${this.ids.size + 1}>`;
      this.ids.set(value, placeholder);
    }
    return placeholder;
  }

  value(key: string, value: Json): Json {
    if (Array.isArray(value)) return value.map((item) => this.value(key, item));
    if (value !== null && typeof value === 'object') {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, this.value(k, v)]));
    }
    if (typeof value === 'string' && isIdKey(key)) return this.id(value);
    if (typeof value === 'string' && key === 'cwd' && value === WORKSPACE) return '<workspace>';
    if (typeof value === 'string' && key === 'command' && value.startsWith(`${FAKE_BIN}/`)) return value.replace(FAKE_BIN, '<bin>');
    if (typeof value === 'number' && (key === 'at' || key === 'since' || key === 'next_run' || key.endsWith('_at'))) return '<time>';
    if (typeof value === 'number' && (key === 'pid' || key === 'seq')) return `<${key}>`;
    return value;
  }

  /** The fake's id for a recorded one, if it gave one yet. */
  known(placeholder: string): string | undefined {
    for (const [real, seen] of this.ids) if (seen === placeholder) return real;
    return undefined;
  }

  /** A recorded command with the fake's own ids (and a fresh one for an id it never gave). */
  command(key: string, value: Json): Json {
    if (Array.isArray(value)) return value.map((item) => this.command(key, item));
    if (value !== null && typeof value === 'object') {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, this.command(k, v)]));
    }
    if (value === '<workspace>') return WORKSPACE;
    // A refused oversized text is recorded as its length.
    const long = typeof value === 'string' ? /^<(\d+) bytes>$/.exec(value) : null;
    if (long) return 'x'.repeat(Number(long[1]));
    if (typeof value === 'string' && isIdKey(key) && value.startsWith('<id ')) {
      for (const [real, placeholder] of this.ids) if (placeholder === value) return real;
      const unknown = `unknown-${this.ids.size + 1}`;
      this.ids.set(unknown, value);
      return unknown;
    }
    return value;
  }
}

/** Keys in the recording order, so a reply compares whatever order the fake builds objects in. */
function sorted(value: Json): Json {
  if (Array.isArray(value)) return value.map(sorted);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.keys(value).sort().map((key) => [key, sorted(value[key])]));
  }
  return value;
}

/**
 * What the engine decides, told to the fake from the recording before the step (the fake keeps
 * records; it does not decide these): its refusals, an agent's problems (a name taken, a
 * program or folder missing), what search finds and the settings as it keeps them. Every answer that follows from the state
 * the fake keeps is checked against the engine's.
 */
function tellDecisions(fake: FakeBackend, step: Step | undefined, normaliser: { command(key: string, value: Json): Json; known(placeholder: string): string | undefined }): void {
  const type = step?.command?.type;
  if (step === undefined || typeof type !== 'string') return;
  // What each task it answered with had spent: the engine counts it from its agents' files.
  for (const task of recordedTasks(step.reply)) {
    const id = typeof task.id === 'string' ? normaliser.known(task.id) : undefined;
    if (id === undefined) continue;
    const { tokens, cost_usd, team_tokens, team_cost_usd, list_price } = task as unknown as TaskInfo;
    fake.setTaskSpent(id, { tokens, cost_usd, team_tokens, team_cost_usd, list_price });
  }
  if (step.error) {
    const { code, field, message, problems } = step.error;
    fake.failNext(type, { code: code as ErrorCode, message: message ?? code, field, problems: problems.map((f) => ({ field: f as ProfileField, message: message ?? f })) });
  }
  // What the engine keeps of the settings (a time of day in its own form).
  if (type === 'set_settings' && step.reply) fake.answerNext(type, (step.reply as { value: Json }).value);
  if (type === 'check_profile') fake.setProfileProblems((step.reply as { value: ProfileProblem[] }).value);
  if (type === 'search' && step.reply) {
    const hits = normaliser.command('', (step.reply as { value: Json }).value) as unknown as SearchHit[];
    fake.setSearchHits(hits.map((hit) => ({ ...hit, at: NOW })));
  }
}

/** The task records in a recorded reply (a task, a list of them, a submission's). */
function recordedTasks(value: Json | undefined): { [key: string]: Json }[] {
  if (Array.isArray(value)) return value.flatMap(recordedTasks);
  if (value === null || value === undefined || typeof value !== 'object') return [];
  if ('instruction' in value && 'tokens' in value) return [value];
  return Object.values(value).flatMap(recordedTasks);
}

describe('the fake backend keeps the engine contract', () => {
  const steps = contract as unknown as Step[];

  it('has a recorded script to keep', () => {
    expect(steps.length).toBeGreaterThan(20);
  });

  it('answers each recorded command as the engine did', async () => {
    // The recording's PATH holds `sh` alone (see contract.rs).
    const fake = new FakeBackend({ directories: [WORKSPACE], commands: ['sh'], now: () => NOW });
    const normaliser = new Normaliser();
    for (const [index, step] of steps.entries()) {
      if (step.command === undefined) throw new Error(`step ${index + 1} of the main script is not a command`);
      const command = normaliser.command('', step.command) as unknown as Command;
      tellDecisions(fake, step, normaliser);
      const what = `step ${index + 1}: ${JSON.stringify(step.command)}`;
      let answer: { reply: Json } | { error: { code: string; field: string | null; problems: string[] } };
      try {
        answer = { reply: normaliser.value('', (await dispatchCommand(fake, command)) as unknown as Json) };
      } catch (reason) {
        const error = toApiError(reason);
        answer = { error: { code: error.code, field: error.field, problems: (error.problems ?? []).map((p) => p.field) } };
      }
      const { code, field, problems } = step.error ?? { code: '', field: null, problems: [] };
      const recorded = step.error === undefined ? { reply: step.reply ?? null } : { error: { code, field, problems } };
      expect(sorted(answer as unknown as Json), what).toEqual(sorted(recorded as unknown as Json));
    }
  });
});

/** The temp folders of the scenarios' engine, as the fake's folders. */
const DATA = '/data';
const TARGET = '/target';

/** What an answer is, whatever its content: the reply's kind, or the error's code and field. */
function kindOf(answer: { reply: Json } | { error: { code: string; field: string | null } }): string {
  if ('error' in answer) return `error ${answer.error.code} on ${answer.error.field ?? 'nothing'}`;
  const reply = answer.reply as { type?: string; shows?: string } | null;
  return reply?.shows !== undefined ? 'reply attached' : `reply ${reply?.type ?? 'none'}`;
}

/** The fake's answer to a command, or to the shell's attach (recorded as what the terminal showed). */
async function answerOf(fake: FakeBackend, call: Command | { type: 'attach_terminal'; session_id: string }): Promise<Json> {
  if (call.type !== 'attach_terminal') return (await dispatchCommand(fake, call)) as unknown as Json;
  const attachment = await fake.attachTerminal(call.session_id, () => undefined);
  await attachment.detach();
  return { type: 'attached' };
}

/** The fake's ids for a scenario's, learned where a reply of the fake's has one in the recorded reply's place. */
class Aligner {
  readonly ids = new Map<string, string>();

  learn(recorded: Json | undefined, actual: Json | undefined): void {
    if (typeof recorded === 'string' && /^<id \d+>$/.test(recorded) && typeof actual === 'string') {
      if (!this.ids.has(recorded)) this.ids.set(recorded, actual);
    } else if (Array.isArray(recorded) && Array.isArray(actual)) {
      recorded.forEach((item, index) => this.learn(item, actual[index]));
    } else if (recorded !== null && typeof recorded === 'object' && !Array.isArray(recorded) && actual !== null && typeof actual === 'object' && !Array.isArray(actual)) {
      for (const [key, value] of Object.entries(recorded)) this.learn(value, actual[key]);
    }
  }

  /** The fake's id for a recorded one, if it learned one yet. */
  known(placeholder: string): string | undefined {
    return this.ids.get(placeholder);
  }

  /** A recorded command with the fake's ids (a fresh one for an id it never gave) and folders. */
  command(value: Json): Json {
    if (Array.isArray(value)) return value.map((item) => this.command(item));
    if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, this.command(v)]));
    if (typeof value !== 'string') return value;
    if (/^<id \d+>$/.test(value)) {
      if (!this.ids.has(value)) this.ids.set(value, `unknown-${this.ids.size + 1}`);
      return this.ids.get(value)!;
    }
    const long = /^<(\d+) bytes>$/.exec(value);
    if (long) return 'x'.repeat(Number(long[1]));
    return value.replaceAll('<workspace>', WORKSPACE).replaceAll('<data>', DATA).replaceAll('<target>', TARGET);
  }
}

const scenarios = import.meta.glob<Step[]>('../test/contract/*.json', { eager: true, import: 'default' });

describe('the fake backend answers each area’s recorded scenario in kind', () => {
  it('has every area’s scenario', () => {
    expect(Object.keys(scenarios).length).toBeGreaterThanOrEqual(4);
  });

  for (const [file, steps] of Object.entries(scenarios)) {
    it(`answers ${file.split('/').pop()} with the engine’s kinds of reply and refusal`, async () => {
      const fake = new FakeBackend({
        directories: [WORKSPACE, `${DATA}/workspace`],
        // The recorded engine's `PATH` held `sh` alone; its demo agent is named by its whole path.
        repositories: [{ root: `${DATA}/project` }],
        commands: ['sh'],
        now: () => 1_700_000_000_000,
      });
      const aligner = new Aligner();
      const found: string[] = [];
      const wanted: string[] = [];
      for (const [index, step] of steps.entries()) {
        if (step.waited === 'task_finished') {
          const taskId = aligner.command(step.task_id ?? null) as string;
          const running = (await fake.getTask(taskId).catch(() => null))?.state === 'running';
          // The engine's task had finished; the fake's must have started to finish.
          found.push(`step ${index + 1} waited: ${running ? 'finished' : 'not running'}`);
          wanted.push(`step ${index + 1} waited: finished`);
          if (running) fake.finishTask({ taskId });
          continue;
        }
        if (step.waited === 'worktrees_read') {
          // The engine's radar read the worktrees: its report is the engine's decision, told to the fake.
          for (const read of step.worktrees ?? []) {
            const info = { ...(aligner.command(read as unknown as Json) as unknown as WorktreeInfo), created_at: NOW };
            // As many changed files as the engine's radar counted (their content is not recorded here).
            const files = Array.from({ length: info.files_changed }, (_, n): FileDiff => ({ path: `changed-${n}`, from: null, status: 'modified', content: { kind: 'binary' } }));
            if ((await fake.listWorktrees()).some((w) => w.task === info.task)) fake.changeWorktree(info.task, info, files);
            else fake.seedWorktree(info, files, { uncommitted: true });
          }
          continue;
        }
        if (step.waited === 'permission_requested') {
          // The fake's agent asks what the engine's did.
          const asked = { ...(aligner.command(step.request ?? null) as object), asked_at: 1_700_000_000_000, expires_at: 1_700_000_600_000 };
          fake.askPermission(asked as unknown as PermissionRequest);
          continue;
        }
        const call = step.command ?? step.shell;
        if (call === undefined) throw new Error(`step ${index + 1} of ${file} is neither a command nor a wait`);
        let answer: { reply: Json } | { error: { code: string; field: string | null } };
        tellDecisions(fake, step, { command: (_key, value) => aligner.command(value), known: (placeholder) => aligner.known(placeholder) });
        try {
          answer = { reply: await answerOf(fake, aligner.command(call) as unknown as Command) };
          aligner.learn(step.reply, answer.reply);
        } catch (reason) {
          const error = toApiError(reason);
          answer = { error: { code: error.code, field: error.field } };
        }
        const recorded = step.error === undefined ? { reply: step.reply ?? null } : { error: step.error };
        found.push(`step ${index + 1} ${String(call.type)}: ${kindOf(answer)}`);
        wanted.push(`step ${index + 1} ${String(call.type)}: ${kindOf(recorded)}`);
      }
      expect(found).toEqual(wanted);
    });
  }
});
