import { describe, expect, it } from 'vitest';
import type { Attention, Profile, QueueStatus, SessionInfo, SignalInfo } from './bindings';
import { paletteCommands, type PaletteInput } from './palette';
import { worktree } from '../test/worktrees';
import { task } from '../test/tasks';

const profile = (name: string) => ({ id: `${name}-id`, name }) as Profile;
const running = (p: Profile) => ({ id: `${p.name}-s`, profile_id: p.id, state: 'running', pid: 1 }) as SessionInfo;
const queue = (p: Profile, paused: boolean) => ({ profile_id: p.id, paused, executing: false, current_task: null, queued: 0 }) as QueueStatus;

function input(extra: Partial<PaletteInput> = {}): PaletteInput {
  return { profiles: [], sessions: [], queues: [], pending: [], attention: {}, loops: [], current: undefined, terminalShown: false, agentsShown: true, ...extra };
}

describe('palette commands', () => {
  it('offer the next question first, naming its agent and how many wait', () => {
    const asker = profile('asker');
    const pending = [{ id: 'q1', profile_id: asker.id }, { id: 'q2', profile_id: asker.id }] as SignalInfo[];
    const [first] = paletteCommands(input({ profiles: [asker], pending }));
    expect(first.label).toBe('Answer the next question, from asker (2 wait)');
    expect(first.shortcut).toBe('Ctrl+Shift+A');
    expect(first.action).toEqual({ kind: 'answer', signal: pending[0] });
    expect(paletteCommands(input({ profiles: [asker] })).some((c) => c.id === 'answer')).toBe(false);
  });

  it('read each agent\'s attention: the longest waiting first, failures and stuck tasks one command away, agents that ask first', () => {
    const [amy, bob, cid, dan] = [profile('amy'), profile('bob'), profile('cid'), profile('dan')];
    const pending = [{ id: 'q-bob', profile_id: bob.id }, { id: 'q-cid', profile_id: cid.id }] as SignalInfo[];
    const needs = (signal: string, since: number): Attention => ({ state: 'needs_you', need: { kind: 'asks' }, since, task_id: null, task: null, signal_id: signal, waiting: 1 });
    const attention: Record<string, Attention> = {
      [amy.id]: { state: 'idle', since: 1 },
      // cid has waited longer than bob, though bob's question came first in the list.
      [bob.id]: needs('q-bob', 50),
      [cid.id]: needs('q-cid', 20),
      [dan.id]: { state: 'failed', count: 1, task_id: 't-dan', task: 'Write the docs', reason: null, since: 9 },
    };
    const commands = paletteCommands(input({ profiles: [amy, bob, cid, dan], pending, attention }));
    expect(commands[0].action).toEqual({ kind: 'answer', signal: pending[1] });
    expect(commands[0].label).toBe('Answer the next question, from cid (2 wait)');
    expect(commands.find((c) => c.id === `failed:${dan.id}`)).toMatchObject({ label: "Open dan's failed task “Write the docs”", action: { kind: 'task', taskId: 't-dan' } });
    expect(commands.filter((c) => c.group === 'Agents' && c.id.startsWith('go:')).map((c) => c.label)).toEqual([
      'Go to bob (needs you)',
      'Go to cid (needs you)',
      'Go to dan (task failed)',
      'Go to amy',
    ]);
  });

  it('offer to resume an agent held back by its usage limit, its account or an overloaded model, and say its limit beside it', () => {
    const [lee, ann, ovi, amy, mo] = [profile('lee'), profile('ann'), profile('ovi'), profile('amy'), profile('mo')];
    const reset = new Date(2026, 10, 26, 14, 5).getTime();
    const attention: Record<string, Attention> = {
      [lee.id]: { state: 'limited', account: '/home/me/.claude', until: null, retry_at: reset, since: 1, task_id: 't-lee', task: 'Port' },
      // Of the same account, with nothing of its own waiting: resuming it has the account go on.
      [mo.id]: { state: 'limited', account: '/home/me/.claude', until: null, retry_at: reset, since: 1, task_id: null, task: null },
      [ann.id]: { state: 'needs_you', need: { kind: 'account', why: 'sign in again' }, since: 1, task_id: 't-ann', task: 'Port', signal_id: null, waiting: 1 },
      [ovi.id]: { state: 'working', task_id: 't-ovi', task: 'Port', since: 1 },
      [amy.id]: { state: 'working', task_id: 't-amy', task: 'Port', since: 1 },
    };
    const tasks = [
      task('t-ovi', { profile_id: ovi.id, state: 'running', waiting_for: { cause: 'overloaded', retry_at: reset } }),
      task('t-amy', { profile_id: amy.id, state: 'running' }),
    ];
    const commands = paletteCommands(input({ profiles: [lee, ann, ovi, amy, mo], attention, tasks }));
    const resumes = commands.filter((c) => c.id.startsWith('resume:'));
    // The user must see to ann's account: a thing to do. lee and ovi go on by themselves; going
    // on now waits beside them, never preselected.
    expect(resumes.map((c) => [c.label, c.group])).toEqual([
      ['Resume ann now (account)', 'Do'],
      ['Resume lee now (usage limit)', 'Agents'],
      ['Resume mo now (usage limit)', 'Agents'],
      ['Resume ovi now (model overloaded)', 'Agents'],
    ]);
    expect(commands[0].id).toBe(`resume:${ann.id}`);
    expect(resumes.find((c) => c.id === `resume:${lee.id}`)?.action).toEqual({ kind: 'resume', profile: lee });
    const agents = commands.filter((c) => c.group === 'Agents').map((c) => c.id);
    expect(agents.indexOf(`resume:${lee.id}`)).toBe(agents.indexOf(`go:${lee.id}`) + 1);
    // Without the account to see to, nothing of theirs is preselected.
    const calm = paletteCommands(input({ profiles: [lee, ovi], attention, tasks }));
    expect(calm[0].id.startsWith('resume:')).toBe(false);
    expect(commands.find((c) => c.id === `go:${lee.id}`)?.label).toBe('Go to lee (usage limit)');
    expect(commands.find((c) => c.id === `go:${amy.id}`)?.label).toBe('Go to amy');
    expect(commands.find((c) => c.id === `go:${mo.id}`)?.label).toBe('Go to mo (usage limit)');
  });

  it('give "New task" to the agent on screen, and to every other agent by name', () => {
    const [amy, bob] = [profile('amy'), profile('bob')];
    const commands = paletteCommands(input({ profiles: [amy, bob], current: amy }));
    const labels = commands.map((c) => c.label);
    expect(commands.find((c) => c.id === 'new-task')?.label).toBe('New task for amy');
    expect(labels.filter((l) => l.startsWith('New task for'))).toEqual(['New task for amy', 'New task for bob']);
    expect(paletteCommands(input({ profiles: [amy] })).some((c) => c.id === 'new-task')).toBe(false);
  });

  it('switch to an agent at its running session, and start one that does not run', () => {
    const [amy, bob] = [profile('amy'), profile('bob')];
    const session = running(amy);
    const commands = paletteCommands(input({ profiles: [amy, bob], sessions: [session] }));
    expect(commands.find((c) => c.id === `go:${amy.id}`)?.action).toEqual({ kind: 'go', profile: amy, session });
    expect(commands.find((c) => c.id === `go:${bob.id}`)?.action).toEqual({ kind: 'go', profile: bob, session: null });
    expect(commands.some((c) => c.id === `start:${amy.id}`)).toBe(false);
    expect(commands.find((c) => c.id === `start:${bob.id}`)?.label).toBe('Start bob');
  });

  it('pause every queue, or resume them once all are paused; focus the terminal only when one shows', () => {
    const [amy, bob] = [profile('amy'), profile('bob')];
    const pause = (queues: QueueStatus[]) => paletteCommands(input({ profiles: [amy, bob], queues })).find((c) => c.id === 'pause-all');
    expect(pause([queue(amy, true), queue(bob, false)])?.action).toEqual({ kind: 'pause-all', paused: true });
    expect(pause([queue(amy, true), queue(bob, true)])?.label).toBe('Resume all queues');
    expect(paletteCommands(input()).some((c) => c.id === 'terminal')).toBe(false);
    expect(paletteCommands(input({ terminalShown: true })).find((c) => c.id === 'terminal')?.shortcut).toBe('Ctrl+Shift+E');
  });

  it('offer the worktrees once there are any, counting those that meet other work', () => {
    expect(paletteCommands(input()).some((c) => c.id === 'worktrees')).toBe(false);
    const worktrees = [
      worktree('a', { state: 'conflicting', conflicts_with: ['b'] }),
      worktree('b', { state: 'working', conflicts_with: ['a'] }),
      worktree('c', { state: 'merged' }),
    ];
    const command = paletteCommands(input({ worktrees })).find((c) => c.id === 'worktrees');
    expect(command?.label).toBe('Worktrees (2 open, 2 meet other work)');
    expect(command?.action).toEqual({ kind: 'worktrees' });
    expect(paletteCommands(input({ worktrees: [worktree('a')] })).find((c) => c.id === 'worktrees')?.label).toBe('Worktrees (1 open)');
  });

  it('offer the Devices pane only where the engine said this is no paired browser', () => {
    const devices = (offered: boolean | undefined) => paletteCommands(input({ devicesOffered: offered })).find((c) => c.id === 'devices');
    expect(devices(true)?.action).toEqual({ kind: 'devices' });
    expect(devices(true)?.label).toBe('Devices…');
    expect(devices(false)).toBeUndefined();
    expect(devices(undefined)).toBeUndefined();
  });

  it('preselect what is likeliest useful, never an action on every agent at once', () => {
    const [amy, bob] = [profile('amy'), profile('bob')];
    const onScreen = paletteCommands(input({ profiles: [amy, bob], current: amy, terminalShown: true }));
    expect(onScreen[0].label).toBe('New task for amy');
    const home = paletteCommands(input({ profiles: [amy, bob] }));
    expect(home[0].label).toBe('Go to amy');
    expect(paletteCommands(input())[0].label).toBe('New agent');
    for (const commands of [onScreen, home]) {
      expect(commands.slice(-2).map((c) => c.id)).toEqual(['new-agent', 'pause-all']);
      expect(commands.at(-1)?.group).toBe('Manage');
    }
  });
});
