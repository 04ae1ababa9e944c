import { fireEvent, screen } from '@testing-library/svelte';
import { tick } from 'svelte';
import { describe, expect, it } from 'vitest';
import { FakeBackend } from '../lib/fakeBackend';
import { callsOf, renderApp } from '../test/render';

describe('permission prompt', () => {
  it("answers an agent's permission request, and shows its text as text", async () => {
    const backend = new FakeBackend();
    const p = backend.seedProfile({ name: 'claude', kind: 'claude-code' });
    const session = backend.seedSession(p.id, { state: 'running', pid: 3 });
    await renderApp(backend);
    expect(screen.queryByTestId('permission-request')).toBeNull();

    const hostile = '<img src=x onerror="window.__pwned=1">';
    backend.askPermission({
      id: 7,
      session_id: session.id,
      tool_name: 'Bash',
      tool_input: { command: hostile },
      asked_at: Date.now(),
      expires_at: Date.now() + 60_000,
    });
    await tick();
    const prompt = screen.getByTestId('permission-request');
    expect(prompt.textContent).toContain('claude');
    expect(screen.getByTestId('permission-summary').textContent).toBe(`Bash: ${hostile}`);
    expect(prompt.querySelector('img')).toBeNull();

    await fireEvent.input(screen.getByTestId('permission-message'), { target: { value: 'not here' } });
    await fireEvent.click(screen.getByTestId('permission-deny'));
    await tick();
    expect(callsOf(backend, 'decide_permission')).toEqual([{ requestId: 7, allow: false, message: 'not here' }]);
    expect(screen.queryByTestId('permission-request')).toBeNull();
  });
});
