import { describe, expect, it } from 'vitest';
import { toApiError } from './errors';

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
