/**
 * The command palette's commands, from what the window shows now: pure, so which commands are
 * offered (and to which agent "New task" goes) is tested without a window.
 */
import type { LoopInfo, Profile, QueueStatus, SessionInfo, SignalInfo, TaskId, TaskInfo, WorktreeInfo } from './bindings';
import { isOpen, overlapsOthers } from './changes';
import { asksTheUser, attentionLabel, attentionRank, type ShownAttentionMap } from './attention';
import { isResumable } from './loops';
import { holdOf } from './limits';
import { queueOf, runningTask } from './tasks';
import { SHORTCUTS, type ShortcutId } from './shortcuts';

export type PaletteAction =
  | { kind: 'dashboard' }
  | { kind: 'grid' }
  | { kind: 'search' }
  | { kind: 'overview' }
  | { kind: 'settings' }
  | { kind: 'machines' }
  | { kind: 'devices' }
  | { kind: 'go'; profile: Profile; session: SessionInfo | null }
  | { kind: 'new-task'; profile: Profile }
  | { kind: 'new-agent' }
  | { kind: 'start'; profile: Profile }
  | { kind: 'resume'; profile: Profile }
  | { kind: 'answer'; signal: SignalInfo }
  | { kind: 'task'; taskId: TaskId }
  | { kind: 'terminal' }
  | { kind: 'pause-all'; paused: boolean }
  | { kind: 'agents'; open: boolean }
  | { kind: 'loop'; loop: LoopInfo }
  | { kind: 'worktrees' }
  | { kind: 'automations' };

/**
 * The palette's groups in the order shown: what to do now for the agent on screen, then the
 * agents, then the views, and last what acts on every agent at once.
 */
export const PALETTE_GROUPS = ['Do', 'Agents', 'Go to', 'Manage'] as const;
export type PaletteGroup = (typeof PALETTE_GROUPS)[number];

export interface PaletteCommand {
  /** Unique among the commands; also what the palette filters on, with `keywords`. */
  id: string;
  label: string;
  /** Shown in this order (`PALETTE_GROUPS`); the first command is the one preselected. */
  group: PaletteGroup;
  shortcut?: string;
  keywords?: string[];
  action: PaletteAction;
}

export interface PaletteInput {
  profiles: readonly Profile[];
  sessions: readonly SessionInfo[];
  queues: readonly QueueStatus[];
  /** Signals waiting for the user, oldest first. */
  pending: readonly SignalInfo[];
  /** Each agent's attention, as the engine worked it out. */
  attention: ShownAttentionMap;
  loops: readonly LoopInfo[];
  /** The agent on screen, if any. */
  current: Profile | undefined;
  /** A live terminal is on screen. */
  terminalShown: boolean;
  agentsShown: boolean;
  /** Pairing browsers is offered (not in a page an engine served a paired browser). */
  devicesOffered?: boolean;
  /** The worktrees of agents that work apart (none: the command is not offered). */
  worktrees?: readonly WorktreeInfo[];
  /** The tasks, for a task at work held back by its refused turn (none: only the agents' attention says). */
  tasks?: readonly TaskInfo[];
  /** The time now (what holds an agent back is told by it). */
  now?: number;
}

const shortcut = (id: ShortcutId) => SHORTCUTS[id].label;

export function paletteCommands(input: PaletteInput): PaletteCommand[] {
  const running = (profile: Profile) => input.sessions.find((s) => s.profile_id === profile.id && s.state === 'running') ?? null;
  const commands: PaletteCommand[] = [];
  // The next question is the one of the agent that has needed the user longest, as the engine says.
  const asking = input.profiles
    .map((p) => input.attention[p.id])
    .flatMap((a) => (a?.state === 'needs_you' && a.signal_id !== null ? [a] : []))
    .sort((a, b) => a.since - b.since);
  const next = input.pending.find((s) => s.id === asking[0]?.signal_id) ?? input.pending[0];
  if (next) {
    const asker = input.profiles.find((p) => p.id === next.profile_id);
    const more = input.pending.length > 1 ? ` (${input.pending.length} wait)` : '';
    commands.push({
      id: 'answer',
      label: `Answer the next question${asker ? `, from ${asker.name}` : ''}${more}`,
      group: 'Do',
      shortcut: shortcut('answer'),
      keywords: ['question', 'signal', 'reply', 'needs you'],
      action: { kind: 'answer', signal: next },
    });
  }
  // What else asks the user: a failed task, a task that may be stuck, a stalled loop.
  for (const profile of input.profiles) {
    const attention = input.attention[profile.id];
    if (attention?.state === 'failed') {
      const label = `Open ${profile.name}'s failed task “${attention.task}”`;
      commands.push({ id: `failed:${profile.id}`, label, group: 'Do', keywords: ['failed', 'error', profile.name], action: { kind: 'task', taskId: attention.task_id } });
    } else if (attention?.state === 'stalled' && attention.stall.kind === 'quiet') {
      const label = `Open ${profile.name}'s task that may be stuck, “${attention.stall.task}”`;
      commands.push({ id: `stuck:${profile.id}`, label, group: 'Do', keywords: ['stuck', 'quiet', 'stalled', profile.name], action: { kind: 'task', taskId: attention.stall.task_id } });
    }
  }
  // An agent held back by its usage limit, its account or an overloaded model can go on now.
  // Where the user must act (their account; a limit the app no longer tries) it is a thing to
  // do; otherwise the app goes on by itself, and the command waits beside the agent, never the
  // one preselected.
  const resume = (profile: Profile): PaletteCommand | null => {
    const tasks = input.tasks ?? [];
    const hold = holdOf(input.attention[profile.id], runningTask(tasks, profile.id), input.now ?? 0, queueOf(tasks, profile.id).length);
    if (!hold?.resumable) return null;
    const why = { limited: 'usage limit', account: 'account', limit_persists: 'usage limit', overloaded: 'model overloaded' }[hold.kind];
    const userMustAct = hold.kind === 'account' || hold.kind === 'limit_persists';
    return {
      id: `resume:${profile.id}`,
      label: `Resume ${profile.name} now (${why})`,
      group: userMustAct ? 'Do' : 'Agents',
      keywords: ['resume', 'continue', 'usage limit', 'rate limit', 'go on', profile.name],
      action: { kind: 'resume', profile },
    };
  };
  const resumes = new Map<string, PaletteCommand>();
  for (const profile of input.profiles) {
    const command = resume(profile);
    if (command) resumes.set(profile.id, command);
  }
  commands.push(...[...resumes.values()].filter((c) => c.group === 'Do'));
  if (input.current) {
    commands.push({
      id: 'new-task',
      label: `New task for ${input.current.name}`,
      group: 'Do',
      shortcut: shortcut('newTask'),
      keywords: ['queue', 'instruction'],
      action: { kind: 'new-task', profile: input.current },
    });
  }
  if (input.terminalShown) {
    commands.push({ id: 'terminal', label: 'Focus the terminal', group: 'Do', shortcut: shortcut('terminal'), keywords: ['type', 'keyboard'], action: { kind: 'terminal' } });
  }
  const newAgent: PaletteCommand = { id: 'new-agent', label: 'New agent', group: 'Do', shortcut: shortcut('newAgent'), keywords: ['create', 'profile'], action: { kind: 'new-agent' } };
  // With no agent yet, making one is what there is to do; otherwise it waits with the rest.
  if (input.profiles.length === 0) commands.push(newAgent);
  // The agents that ask the user come first, each saying what it asks.
  const byAttention = [...input.profiles].sort((a, b) => attentionRank(input.attention[a.id]) - attentionRank(input.attention[b.id]));
  for (const profile of byAttention) {
    const session = running(profile);
    const attention = input.attention[profile.id];
    // What it asks of the user, or that it waits for its usage limit's reset, is said beside it.
    const said = attention && (asksTheUser(attention) || attention.state === 'limited');
    const label = said ? `Go to ${profile.name} (${attentionLabel(attention)})` : `Go to ${profile.name}`;
    commands.push({ id: `go:${profile.id}`, label, group: 'Agents', keywords: ['agent', 'switch'], action: { kind: 'go', profile, session } });
    const resuming = resumes.get(profile.id);
    if (resuming?.group === 'Agents') commands.push(resuming);
    if (profile.id !== input.current?.id) {
      commands.push({ id: `task:${profile.id}`, label: `New task for ${profile.name}`, group: 'Agents', keywords: ['queue'], action: { kind: 'new-task', profile } });
    }
    if (!session) {
      commands.push({ id: `start:${profile.id}`, label: `Start ${profile.name}`, group: 'Agents', keywords: ['run', 'session'], action: { kind: 'start', profile } });
    }
  }
  commands.push({ id: 'search', label: 'Search tasks, summaries and questions', group: 'Go to', shortcut: shortcut('search'), keywords: ['find'], action: { kind: 'search' } });
  commands.push({ id: 'dashboard', label: 'Dashboard', group: 'Go to', shortcut: shortcut('dashboard'), keywords: ['home', 'all agents'], action: { kind: 'dashboard' } });
  commands.push({
    id: 'grid',
    label: 'Terminal grid',
    group: 'Go to',
    shortcut: shortcut('grid'),
    keywords: ['tiles', 'side by side', 'split', 'panes', 'tmux', 'several terminals', 'live'],
    action: { kind: 'grid' },
  });
  commands.push({
    id: 'automations',
    label: 'Automations',
    group: 'Go to',
    keywords: ['schedule', 'scheduled', 'recurring', 'every', 'cron', 'rrule', 'chain', 'after', 'timer', 'run by itself'],
    action: { kind: 'automations' },
  });
  commands.push({ id: 'overview', label: 'Graph of all agents', group: 'Go to', keywords: ['overview', 'flows'], action: { kind: 'overview' } });
  commands.push({
    id: 'settings',
    label: 'Settings',
    group: 'Go to',
    keywords: ['preferences', 'theme', 'dark', 'light', 'notifications', 'quiet hours', 'time limit', 'data folder'],
    action: { kind: 'settings' },
  });
  commands.push({
    id: 'machines',
    label: 'Machines…',
    group: 'Go to',
    keywords: ['hosts', 'ssh', 'remote', 'other computer', 'server', 'add a machine'],
    action: { kind: 'machines' },
  });
  if (input.devicesOffered) {
    commands.push({
      id: 'devices',
      label: 'Devices…',
      group: 'Go to',
      keywords: ['browser', 'phone', 'pair', 'qr code', 'web', 'serve', 'unpair', 'tablet'],
      action: { kind: 'devices' },
    });
  }
  commands.push({
    id: 'agents',
    label: input.agentsShown ? 'Hide the agents list' : 'Show the agents list',
    group: 'Go to',
    shortcut: shortcut('agents'),
    keywords: ['sidebar'],
    action: { kind: 'agents', open: !input.agentsShown },
  });
  const worktrees = input.worktrees ?? [];
  if (worktrees.length > 0) {
    const open = worktrees.filter((w) => isOpen(w.state)).length;
    const meeting = worktrees.filter(overlapsOthers).length;
    const count = open === 1 ? '1 open' : `${open} open`;
    commands.push({
      id: 'worktrees',
      label: meeting > 0 ? `Worktrees (${count}, ${meeting} meet other work)` : `Worktrees (${count})`,
      group: 'Go to',
      keywords: ['changes', 'diff', 'review', 'merge', 'git', 'branch'],
      action: { kind: 'worktrees' },
    });
  }
  for (const loop of input.loops.filter((l) => l.state.state === 'active' || isResumable(l))) {
    const agent = input.profiles.find((p) => p.id === loop.profile_id);
    if (!agent) continue;
    commands.push({ id: `loop:${loop.id}`, label: `${agent.name}'s loop`, group: 'Go to', keywords: ['loop', agent.name], action: { kind: 'loop', loop } });
  }
  // What acts on every agent at once comes last, so it is never the one preselected.
  if (input.profiles.length > 0) commands.push({ ...newAgent, group: 'Manage' });
  const profileIds = new Set(input.profiles.map((p) => p.id));
  const queues = input.queues.filter((q) => profileIds.has(q.profile_id));
  const allPaused = queues.length > 0 && queues.every((q) => q.paused);
  commands.push({
    id: 'pause-all',
    label: allPaused ? 'Resume all queues' : 'Pause all queues',
    group: 'Manage',
    keywords: ['stop', 'hold', 'queue'],
    action: { kind: 'pause-all', paused: !allPaused },
  });
  return commands;
}

/** The palette's actions that change something: a page paired to look only offers none of them. */
const CHANGES_SOMETHING: ReadonlySet<PaletteAction['kind']> = new Set(['new-task', 'new-agent', 'start', 'resume', 'pause-all']);

/** Whether `action` changes something (starts, resumes, queues, makes, pauses), rather than shows. */
export function changesSomething(action: PaletteAction): boolean {
  return CHANGES_SOMETHING.has(action.kind);
}

/** The commands a page paired to look only offers: those that only show. */
export function lookingOnly(commands: readonly PaletteCommand[]): PaletteCommand[] {
  return commands.filter((command) => !changesSomething(command.action));
}
