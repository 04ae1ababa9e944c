import { describe, expect, it } from 'vitest';
import { toApiError, userMessage } from './errors';

describe('toApiError', () => {
  it('keeps an ApiError from the engine as it is', () => {
    const error = { code: 'command_not_found', message: 'command `foo` was not found', field: 'command' };
    expect(toApiError(error)).toEqual(error);
  });

  it('keeps the task error codes', () => {
    for (const code of ['task_not_found', 'task_state']) {
      expect(toApiError({ code, message: 'm', field: null }).code).toBe(code);
    }
  });

  it('keeps the signal error codes', () => {
    for (const code of ['signal_not_found', 'signal_state', 'too_many_agents']) {
      expect(toApiError({ code, message: 'm', field: null }).code).toBe(code);
    }
  });

  it('keeps the worktree error codes, and a problem with where tasks work', () => {
    for (const code of ['worktree_not_found', 'git']) {
      expect(toApiError({ code, message: 'm', field: null }).code).toBe(code);
    }
    const problems = [{ field: 'isolation', message: 'Tasks can work in worktrees of their own only when the folder is inside a git repository; this one is not.' }];
    const error = { code: 'invalid_profile', message: problems[0].message, field: 'isolation', problems };
    expect(toApiError(error)).toEqual(error);
  });

  it('keeps every problem of an invalid profile, and refuses a malformed list', () => {
    const problems = [
      { field: 'name', message: 'Give the agent a name.' },
      { field: 'cwd', message: 'There is no folder at /gone.' },
    ];
    const error = { code: 'invalid_profile', message: 'The agent has 2 problems.', field: 'name', problems };
    expect(toApiError(error)).toEqual(error);
    expect(toApiError({ ...error, problems: [{ field: 'colour', message: 'x' }] }).code).toBe('internal');
  });

  it('fills a missing field with null', () => {
    expect(toApiError({ code: 'storage', message: 'disk full' })).toEqual({ code: 'storage', message: 'disk full', field: null });
  });

  it('turns Tauri string rejections, Errors and unknown codes into internal errors', () => {
    expect(toApiError('command attach_terminal not found')).toEqual({ code: 'internal', message: 'command attach_terminal not found', field: null });
    expect(toApiError(new Error('boom'))).toEqual({ code: 'internal', message: 'boom', field: null });
    expect(toApiError({ code: 'from_the_future', message: 'new', field: null })).toEqual({ code: 'internal', message: 'new', field: null });
    expect(toApiError(42).code).toBe('internal');
  });
});

describe('userMessage', () => {
  it.each([
    ['disk_full', 'writing CONTEXT.md into /ws: No space left on device (os error 28)', 'The disk is full. Free some space, then try again.'],
    ['permission_denied', 'writing /ws/SKIPPED_ITEMS.md: Permission denied (os error 13)', 'Switchboard is not allowed to use a file it needs (writing /ws/SKIPPED_ITEMS.md: Permission denied (os error 13)).'],
    ['not_found', 'opening /data/switchboard.lock: No such file or directory (os error 2)', 'A file Switchboard needs is gone (opening /data/switchboard.lock: No such file or directory (os error 2)).'],
    ['io', 'reading x: Input/output error', 'reading x: Input/output error'],
    ['invalid_input', 'instruction: say what the agent should do', 'Instruction: say what the agent should do.'],
    ['worktree_not_found', 'no worktree of the task or loop 0b6c1e2a-9f3d-4c1b-8a57-3f0e8d2b1c44', 'Switchboard has no worktree for this task: it was never made, or its record is gone.'],
    ['git', 'git merge failed: fatal: refusing to merge unrelated histories', 'Git could not do it (git merge failed: fatal: refusing to merge unrelated histories).'],
    [
      'task_state',
      'task 0b6c1e2a-9f3d-4c1b-8a57-3f0e8d2b1c44 is running: it was already typed into its agent',
      'It was already typed into its agent.',
    ],
    [
      'nothing_to_resume',
      "night shift is not waiting for a usage limit or its model's service: there is nothing to resume",
      "night shift is not waiting for a usage limit or its model's service: there is nothing to resume.",
    ],
  ] as const)('says %s in the user\'s words', (code, message, said) => {
    const error = toApiError({ code, message, field: null });
    expect(error.code).toBe(code);
    expect(userMessage(error)).toBe(said);
  });
});

describe('an invalid input in words', () => {
  it('drops the field the engine names and makes the reason a sentence', () => {
    const invalid = (field: string | null, message: string) => userMessage({ code: 'invalid_input', message, field });
    expect(invalid('title', 'title: a title is one line')).toBe('A title is one line.');
    expect(invalid('path', 'path: notes.md: does not exist')).toBe('Notes.md: does not exist.');
    expect(invalid(null, 'Give the agent a name.')).toBe('Give the agent a name.');
    // A model's name is written as it is.
    expect(invalid('budget', 'budget: claude-fable-9, the model ann uses, has no price in Settings')).toBe('claude-fable-9, the model ann uses, has no price in Settings.');
    expect(invalid('query', 'something else: kept as it is')).toBe('Something else: kept as it is.');
    // A worktree's agent at work: the task is not named by its id.
    expect(
      invalid('worktree', 'worktree: its agent is still at work in it (task 0b6c1e2a-9f3d-4c1b-8a57-3f0e8d2b1c44): wait for the task to end, or cancel it'),
    ).toBe('Its agent is still at work in it: wait for the task to end, or cancel it.');
  });
});

