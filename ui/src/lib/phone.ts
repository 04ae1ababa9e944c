/**
 * The phone layout's decisions, pure: when the page is laid out for a phone, what its inbox
 * lists and in which order, what the terminal's key bar sends, and which of the engine's events
 * the page tells in its own notices. Nothing here decides what an agent needs of the user: the
 * engine does (its attention, signals and permission requests); this only lists what it said.
 */
import type { Attention, PageNotice, PermissionRequest, Profile, ProfileId, SessionId, SessionInfo, SignalId, SignalInfo } from './bindings';
import type { ShownAttentionMap } from './attention';
import type { BackendKind } from './backend';

/**
 * The widest page laid out for a phone, in CSS pixels: phones are 360-430 wide upright; a
 * tablet upright (768) or a narrow desktop window keeps the desktop's layout.
 */
export const PHONE_MAX_WIDTH = 480;

export type Layout = 'phone' | 'desktop';

/** The layout for a page `width` CSS pixels wide. The one place the phone layout is decided. */
export function layoutFor(width: number): Layout {
  return width <= PHONE_MAX_WIDTH ? 'phone' : 'desktop';
}

/** What the phone shows: a list (the bottom bar's), or one agent with its tasks or its terminal. */
export type PhoneScreen = { view: 'inbox' } | { view: 'agents' } | { view: 'agent'; profileId: ProfileId; tab: 'tasks' | 'terminal' };

/** What an agent's attention says that the inbox lists by the agent, not by a signal or request. */
type AgentWait = Extract<Attention, { state: 'needs_you' | 'stalled' | 'failed' | 'limited' }>;

/** One line of the inbox: something the engine said waits on the user, or holds an agent. */
export type InboxEntry =
  | { kind: 'signal'; key: string; at: number; profileId: ProfileId; signal: SignalInfo }
  | { kind: 'permission'; key: string; at: number; profileId: ProfileId | null; request: PermissionRequest }
  | { kind: 'agent'; key: string; at: number; profileId: ProfileId; attention: AgentWait };

export interface InboxInput {
  /** Every signal the page knows, pending or settled (any order). */
  signals: readonly SignalInfo[];
  /** The permission requests agents wait on (any order). */
  permissions: readonly PermissionRequest[];
  /** Each agent's attention as the page shows it. */
  attention: ShownAttentionMap;
  profiles: readonly Pick<Profile, 'id'>[];
  sessions: readonly Pick<SessionInfo, 'id' | 'profile_id'>[];
}

/** The key a permission request goes by: its number is its machine's own, its session is not. */
export function permissionKey(request: Pick<PermissionRequest, 'id' | 'session_id'>): string {
  return `permission:${request.session_id}:${request.id}`;
}

/**
 * The inbox, newest first: every pending signal (a question, a blocker, a delegation, a report),
 * every permission request, and each agent whose attention asks for the user without one of
 * those to open (waits at its own prompt, its account), may be stuck, failed, or is at its usage
 * limit. An agent whose wait is a listed signal or request is not listed again, nor one whose
 * signal the page knows settled (answered a moment before the engine's word on the agent comes);
 * one whose signal the page does not know (its list could not load) is. An agent whose machine
 * is out of reach (attention unknown) is not listed, as nothing is known of it.
 */
export function inboxEntries(input: InboxInput): InboxEntry[] {
  const profileOf = new Map<SessionId, ProfileId>(input.sessions.map((s) => [s.id, s.profile_id]));
  const knownSignals = new Set<SignalId>(input.signals.map((s) => s.id));
  const asking = new Set<ProfileId>();
  const entries: InboxEntry[] = [];
  for (const signal of input.signals) {
    if (signal.state !== 'pending') continue;
    entries.push({ kind: 'signal', key: `signal:${signal.id}`, at: signal.created_at, profileId: signal.profile_id, signal });
  }
  for (const request of input.permissions) {
    const profileId = profileOf.get(request.session_id) ?? null;
    if (profileId !== null) asking.add(profileId);
    entries.push({ kind: 'permission', key: permissionKey(request), at: request.asked_at, profileId, request });
  }
  for (const profile of input.profiles) {
    const attention = input.attention[profile.id];
    if (attention === undefined || attention.state === 'unknown') continue;
    if (attention.state === 'needs_you') {
      const listed = attention.signal_id !== null ? knownSignals.has(attention.signal_id) : attention.need.kind === 'permission' && asking.has(profile.id);
      if (listed) continue;
    } else if (attention.state !== 'stalled' && attention.state !== 'failed' && attention.state !== 'limited') {
      continue;
    }
    entries.push({ kind: 'agent', key: `agent:${profile.id}`, at: attention.since, profileId: profile.id, attention });
  }
  // Newest first; the same moment keeps the order above (signals, requests, agents).
  return entries.map((entry, index) => ({ entry, index })).sort((a, b) => b.entry.at - a.entry.at || a.index - b.index).map(({ entry }) => entry);
}

/**
 * Whether the wider layout's terminal has the key bar under it: in a browser on a touch screen
 * (a tablet's keyboard has no Esc, Tab or arrows either), never in the desktop window nor with
 * a mouse. The phone's terminal has it while the user types.
 */
export function wideKeyBar(kind: BackendKind, coarsePointer: boolean): boolean {
  return kind === 'browser' && coarsePointer;
}

/** The keys of the terminal's key bar: what a phone's keyboard lacks. */
export type TerminalKey = 'escape' | 'tab' | 'ctrl-c' | 'up' | 'down' | 'left' | 'right' | 'enter';

/** The key bar, in its order: its label (as terminals write Ctrl+C; an arrow is drawn, `Icon`) and the name a screen reader says. */
export const KEY_BAR: readonly { key: TerminalKey; label: string | null; name: string }[] = [
  { key: 'escape', label: 'Esc', name: 'Escape' },
  { key: 'tab', label: 'Tab', name: 'Tab' },
  { key: 'ctrl-c', label: '^C', name: 'Control C' },
  { key: 'up', label: null, name: 'Up' },
  { key: 'down', label: null, name: 'Down' },
  { key: 'left', label: null, name: 'Left' },
  { key: 'right', label: null, name: 'Right' },
  { key: 'enter', label: 'Enter', name: 'Enter' },
];

/** The final byte of each arrow's sequence (VT100): A up, B down, C right, D left. */
const ARROW: Record<'up' | 'down' | 'right' | 'left', string> = { up: 'A', down: 'B', right: 'C', left: 'D' };

/**
 * The bytes a terminal sends for `key`, as xterm sends them for the real key: Esc is ESC, Tab is
 * HT, Ctrl+C is ETX (the interrupt), Enter is CR. An arrow is `ESC [ A` normally and `ESC O A`
 * while the program asked for application cursor keys (DECCKM: full-screen programs, the agents'
 * own prompts among them), which only the terminal knows (`applicationCursor`).
 */
export function keyBytes(key: TerminalKey, applicationCursor: boolean): string {
  switch (key) {
    case 'escape':
      return '\x1b';
    case 'tab':
      return '\t';
    case 'ctrl-c':
      return '\x03';
    case 'enter':
      return '\r';
    default:
      return `\x1b${applicationCursor ? 'O' : '['}${ARROW[key]}`;
  }
}

/** A notice a page shows now: the engine's `show`, in its place. */
export type ShownNotice = Extract<PageNotice, { type: 'show' }>;

/**
 * The page's notices after the engine told it `notice`: a `show` takes its place (the newest
 * last), a `close` empties it.
 */
export function keptNotices(shown: readonly ShownNotice[], notice: PageNotice): ShownNotice[] {
  const others = shown.filter((kept) => kept.place !== notice.place);
  return notice.type === 'show' ? [...others, notice] : others;
}
