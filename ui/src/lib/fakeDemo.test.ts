import { describe, expect, it, vi } from 'vitest';
import { demoBackend } from './fakeDemo';

describe('the plain-browser demo', () => {
  it('shows an agent asking, one at its usage limit, one at work in a worktree, and worktrees meeting in a file', async () => {
    const backend = demoBackend();
    const names = new Map((await backend.listProfiles()).map((p) => [p.id, p.name]));
    await vi.waitFor(async () => expect((await backend.listSignals()).length).toBe(1));
    const states = Object.fromEntries((await backend.listAttention()).map((a) => [names.get(a.profile_id), a.attention.state]));
    expect(states).toMatchObject({ demo: 'needs_you', codex: 'limited', fixer: 'working', claude: 'stopped' });
    const worktrees = await backend.listWorktrees();
    expect(worktrees.map((w) => w.state).sort()).toEqual(['conflicting', 'merged', 'working']);
    expect(worktrees.filter((w) => w.overlaps.length > 0)).toHaveLength(2);
  });
});
