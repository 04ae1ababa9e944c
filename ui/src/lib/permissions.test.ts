import { describe, expect, it } from 'vitest';
import type { PermissionRequest } from './bindings';
import { applyPermissionEvent, permissionSummary, secondsLeft } from './permissions';

const request = (id: number, tool_input: PermissionRequest['tool_input'] = { command: 'rm -rf build' }, session_id = 's'): PermissionRequest => ({
  id,
  session_id,
  tool_name: 'Bash',
  tool_input,
  asked_at: 1000,
  expires_at: 61_000,
});

describe('permission requests', () => {
  it('are added when asked and removed when closed', () => {
    let pending = applyPermissionEvent([], { type: 'permission_requested', request: request(1) });
    pending = applyPermissionEvent(pending, { type: 'permission_requested', request: request(2) });
    expect(pending.map((p) => p.id)).toEqual([1, 2]);
    pending = applyPermissionEvent(pending, { type: 'permission_closed', request_id: 1, session_id: 's', decision: null });
    expect(pending.map((p) => p.id)).toEqual([2]);
  });

  it('tells apart two machines’ requests of the same number by the session that asked', () => {
    let pending = applyPermissionEvent([], { type: 'permission_requested', request: request(1, undefined, 'here') });
    pending = applyPermissionEvent(pending, { type: 'permission_requested', request: request(1, undefined, 'there') });
    expect(pending.map((p) => p.session_id)).toEqual(['here', 'there']);
    pending = applyPermissionEvent(pending, { type: 'permission_closed', request_id: 1, session_id: 'there', decision: null });
    expect(pending.map((p) => p.session_id)).toEqual(['here']);
  });

  it.each<[PermissionRequest['tool_input'], string]>([
    [{ command: 'rm -rf build' }, 'Bash: rm -rf build'],
    [{ file_path: 'a.txt' }, 'Bash: {"file_path":"a.txt"}'],
    [null, 'Bash: null'],
  ])('summarises %j', (input, text) => {
    expect(permissionSummary(request(1, input))).toBe(text);
  });

  it('counts down to the agent taking over', () => {
    expect(secondsLeft(request(1), 1000)).toBe(60);
    expect(secondsLeft(request(1), 60_500)).toBe(1);
    expect(secondsLeft(request(1), 99_000)).toBe(0);
  });
});
