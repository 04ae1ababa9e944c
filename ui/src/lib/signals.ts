/**
 * Pure decisions over protocol signals (an agent asking a question, stopping, asking to hand
 * work off, reporting completion): how events fold into the list, what needs the user, the
 * texts the signal views show, and what a response must hold before it is sent. No Svelte,
 * no backend.
 *
 * Every field of a signal is agent output. These functions only ever return plain strings,
 * which the components interpolate as text (never as markup, never through the Markdown
 * renderer).
 */
import { userMessage } from './errors';
import { plural } from './model';
import type {
  ApiError,
  EngineEvent,
  Independence,
  JsonValue,
  Profile,
  ProfileId,
  SessionId,
  Signal,
  SignalChannel,
  SignalInfo,
  SignalKind,
  SignalResponse,
  SignalState,
  TaskId,
} from './bindings';

export type SignalAction = SignalResponse['action'];

/** A well-formed signal of one kind, with its fields. */
export type SignalOf<K extends SignalKind> = Extract<Signal, { kind: K }>;

/** Which protocol a signal belongs to, well-formed or not. */
export function signalKind(info: SignalInfo): SignalKind {
  return info.scan.type === 'signal' ? info.scan.signal.kind : info.scan.kind;
}

/** The parsed signal, or null when the agent's block could not be read. */
export function wellFormed(info: SignalInfo): Signal | null {
  return info.scan.type === 'signal' ? info.scan.signal : null;
}

export function isPending(info: SignalInfo): boolean {
  return info.state === 'pending';
}

// ---- folding events ---------------------------------------------------------------------

/**
 * Put the signal into the list, replacing the entry with its id. A signal only moves from
 * `pending` to `handled` or `dismissed`, for good; an incoming `pending` copy of a settled
 * signal is stale (e.g. a `list_signals` reply computed before an event we already applied)
 * and is ignored.
 */
export function upsertSignal(signals: readonly SignalInfo[], incoming: SignalInfo): SignalInfo[] {
  const index = signals.findIndex((s) => s.id === incoming.id);
  if (index === -1) return [...signals, incoming];
  if (!isPending(signals[index]) && isPending(incoming)) return [...signals];
  const next = [...signals];
  next[index] = incoming;
  return next;
}

/** Fold one engine event into the signal list; events about other things leave it as it is. */
export function applySignalEvent(signals: SignalInfo[], event: EngineEvent): SignalInfo[] {
  switch (event.type) {
    case 'signal_changed':
      return upsertSignal(signals, event.signal);
    case 'profile_deleted':
      // The agent and its sessions are gone: nothing could show or answer its signals.
      return signals.filter((s) => s.profile_id !== event.profile_id);
    default:
      return signals;
  }
}

/** The initial `list_signals` reply, then the events that arrived meanwhile. */
export function mergeInitialSignals(list: readonly SignalInfo[], bufferedEvents: readonly EngineEvent[]): SignalInfo[] {
  let signals: SignalInfo[] = [];
  for (const signal of list) signals = upsertSignal(signals, signal);
  for (const event of bufferedEvents) signals = applySignalEvent(signals, event);
  return signals;
}

// ---- floods -----------------------------------------------------------------------------

/** Sessions the engine said flood: they reached `limit` waiting signals. */
export type Floods = Readonly<Record<SessionId, { profileId: ProfileId; limit: number }>>;

export function applyFloodEvent(floods: Floods, event: EngineEvent): Floods {
  switch (event.type) {
    case 'signals_flooding':
      return { ...floods, [event.session_id]: { profileId: event.profile_id, limit: event.limit } };
    case 'profile_deleted':
      return Object.fromEntries(Object.entries(floods).filter(([, flood]) => flood.profileId !== event.profile_id));
    default:
      return floods;
  }
}

/**
 * The agents that still have as many signals waiting as the engine holds: what they raise now
 * is set aside (in their event log) until the user answers some. One entry per agent.
 */
export function floodingAgents(floods: Floods, signals: readonly SignalInfo[]): { profileId: ProfileId; limit: number }[] {
  const shown = new Map<ProfileId, { profileId: ProfileId; limit: number }>();
  for (const [sessionId, flood] of Object.entries(floods)) {
    if (pendingOfSession(signals, sessionId).length >= flood.limit) shown.set(flood.profileId, flood);
  }
  return [...shown.values()];
}

export function floodText(agentName: string | undefined, limit: number): string {
  return `${agentName ?? 'An agent'} raised more than ${limit} signals at once. The ones after the first ${limit} are set aside in its event log; answer some to see new ones.`;
}

// ---- what needs the user ----------------------------------------------------------------

/** Oldest first: the one that has waited longest comes first. */
function oldestFirst(a: SignalInfo, b: SignalInfo): number {
  return a.created_at - b.created_at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** Every signal waiting for the user, oldest first. */
export function pendingSignals(signals: readonly SignalInfo[]): SignalInfo[] {
  return signals.filter(isPending).sort(oldestFirst);
}

export function pendingOfSession(signals: readonly SignalInfo[], sessionId: SessionId): SignalInfo[] {
  return pendingSignals(signals).filter((s) => s.session_id === sessionId);
}

/** The signals of one task that wait for the user, oldest first. */
export function pendingOfTask(signals: readonly SignalInfo[], taskId: TaskId): SignalInfo[] {
  return pendingSignals(signals).filter((s) => s.task_id === taskId);
}

export function pendingOfProfile(signals: readonly SignalInfo[], profileId: ProfileId): SignalInfo[] {
  return pendingSignals(signals).filter((s) => s.profile_id === profileId);
}

/** Answered and dismissed signals, the most recently settled first, at most `limit`. */
export function recentlySettled(signals: readonly SignalInfo[], limit: number): SignalInfo[] {
  const settled = (s: SignalInfo) => s.handled_at ?? s.created_at;
  return signals
    .filter((s) => !isPending(s))
    .sort((a, b) => settled(b) - settled(a) || oldestFirst(b, a))
    .slice(0, limit);
}

// ---- texts ------------------------------------------------------------------------------

const KIND_WORDS: Record<SignalKind, string> = {
  clarification: 'clarification',
  stop_work: 'stop-work',
  delegate: 'delegation',
  completion: 'completion report',
};

/** The protocol's name in words: `clarification`, `stop-work`, `delegation`, `completion report`. */
export function kindWord(kind: SignalKind): string {
  return KIND_WORDS[kind] ?? String(kind).replaceAll('_', ' ');
}

const STATE_WORDS: Record<SignalState, string> = { pending: 'needs you', handled: 'handled', dismissed: 'dismissed' };

export function signalStateWord(state: SignalState): string {
  return STATE_WORDS[state] ?? state;
}

/**
 * The agent by its name alone (a name is often "… agent" already: "Agent Demo agent" read
 * wrong), or `A deleted agent` when the profile is gone.
 */
function who(agentName: string | undefined): string {
  return agentName === undefined ? 'A deleted agent' : agentName;
}


/** "a question", "2 questions". */
function counted(n: number, word: string): string {
  return n === 1 ? `a ${word}` : `${n} ${word}s`;
}

/** A blocker's type as the agent wrote it, its underscores read as spaces (`external_dependency`). */
function blockerWords(type: string): string {
  return type.trim().replaceAll('_', ' ');
}

/**
 * One line saying what the signal is about, for the attention list, the session banner and
 * the dialog's heading. `agentName` is the profile's name (undefined: the profile is gone).
 */
export function signalTitle(info: SignalInfo, agentName: string | undefined): string {
  const agent = who(agentName);
  const signal = wellFormed(info);
  if (!signal) return `${agent} printed an unreadable ${kindWord(signalKind(info))} block`;
  switch (signal.kind) {
    case 'clarification':
      return signal.questions.length === 0 ? `${agent} asks for clarification` : `${agent} asks ${counted(signal.questions.length, 'question')}`;
    case 'stop_work':
      return blockerWords(signal.blocker_type) === '' ? `${agent} is blocked` : `${agent} is blocked: ${blockerWords(signal.blocker_type)}`;
    case 'delegate':
      return `${agent} asks to delegate work`;
    case 'completion':
      return signal.status.trim() === '' ? `${agent} reports completion` : `${agent} reports completion: ${signal.status.trim()}`;
  }
}

/** How delegated work relates to the requester's own. */
export function independenceLabel(independence: Independence): string {
  if (independence === 'can_proceed_parallel') return 'can run in parallel';
  if (independence === 'blocks_current_work') return 'the requester waits for it';
  return independence.other;
}

/** A field the dialog shows: `name` as the protocol spells it (for `data-field`). */
export interface SignalField {
  name: string;
  label: string;
  value: string;
  /** Shown preformatted: a snapshot, or anything of several lines. */
  pre: boolean;
}

function field(name: string, label: string, value: string, alwaysPre = false): SignalField {
  return { name, label, value, pre: alwaysPre || value.includes('\n') };
}

/**
 * The named fields of a well-formed signal, in reading order. Questions, deliverables,
 * recommendations and the metrics-against-criteria comparison have views of their own and
 * are not listed; a malformed signal has no fields.
 */
export function signalFields(info: SignalInfo): SignalField[] {
  const signal = wellFormed(info);
  if (!signal) return [];
  switch (signal.kind) {
    case 'clarification':
      return [field('blocked_at', 'Blocked at', signal.blocked_at), field('current_state', 'Current state', signal.current_state)];
    case 'stop_work':
      return [
        field('blocker_type', 'Blocker', signal.blocker_type),
        field('details', 'Details', signal.details),
        field('state_snapshot', 'State snapshot', signal.state_snapshot, true),
        field('blocked_work', 'Blocked work', signal.blocked_work),
        field('stop_reason', 'Why it stopped', signal.stop_reason),
        field('resume_requirements', 'To resume it needs', signal.resume_requirements),
      ];
    case 'delegate':
      return [
        field('new_task_description', 'Work to hand off', signal.new_task_description),
        field('independence', 'Independence', independenceLabel(signal.independence)),
        field('coordination', 'Coordination', signal.coordination),
      ];
    case 'completion':
      return [field('status', 'Status', signal.status)];
  }
}

/** Fields the protocol does not name, as `[key, JSON text]`, sorted by key. */
/** What the agent sent, as the dialog's disclosure names it: a block it printed, or the call it made of a tool. */
export function rawLabel(channel: SignalChannel): string {
  return channel === 'tool' ? 'The tool call as made' : 'The block as printed';
}

export function extraEntries(extra: { [key in string]?: JsonValue }): [string, string][] {
  return Object.entries(extra)
    .map(([key, value]): [string, string] => [key, JSON.stringify(value ?? null)])
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

export interface DeliverableRow {
  path: string;
  /** True: it exists in the workspace; false: see `problem`; null: the engine did not check it. */
  ok: boolean | null;
  problem: string | null;
}

/** A completion report's deliverables with their checks. */
export function deliverableRows(info: SignalInfo): DeliverableRow[] {
  if (info.deliverables.length > 0) {
    return info.deliverables.map((d) => ({ path: d.path, ok: d.problem === null, problem: d.problem }));
  }
  const signal = wellFormed(info);
  return signal?.kind === 'completion' ? signal.deliverables.map((path) => ({ path, ok: null, problem: null })) : [];
}

const ACTION_WORDS: Record<SignalAction, string> = {
  answer: 'answered',
  resolve: 'resolved',
  retry: 'retry from the checkpoint',
  skip: 'item skipped',
  delegate_blocked: 'blocked part delegated',
  approve: 'delegation approved',
  deny: 'delegation denied',
  acknowledge: 'acknowledged',
  dismiss: 'dismissed',
};

export function actionWord(action: SignalAction): string {
  return ACTION_WORDS[action] ?? String(action).replaceAll('_', ' ');
}

/**
 * What the user decided, in one line, for a settled signal. `profileName` names a profile id
 * (undefined: it is gone).
 */
export function responseSummary(response: SignalResponse, profileName: (id: ProfileId) => string | undefined): string {
  const agent = (id: ProfileId) => profileName(id) ?? 'a deleted agent';
  switch (response.action) {
    case 'answer':
      return `Answered ${plural(response.answers.length, 'question')}`;
    case 'resolve':
      return 'Resolved';
    case 'retry':
      return 'Fixed; told to retry from the checkpoint';
    case 'skip':
      return 'Told to skip the item (logged to SKIPPED_ITEMS.md)';
    case 'delegate_blocked':
      return `Blocked part delegated to a new session of ${agent(response.profile_id)}`;
    case 'approve':
      return `Approved: a new session of ${agent(response.profile_id)} takes the work`;
    case 'deny':
      return 'Denied';
    case 'acknowledge':
      return 'Acknowledged';
    case 'dismiss':
      return 'Dismissed: nothing was sent to the agent';
    default:
      return actionWord((response as { action: SignalAction }).action);
  }
}

/** The text a settled signal's response carries (a resolution, a reason), if any. */
export function responseText(response: SignalResponse): string | null {
  if (response.action === 'resolve') return response.resolution;
  if (response.action === 'retry') return response.fix || null;
  if (response.action === 'deny') return response.reason;
  return null;
}

/** One log entry about a signal, for a task's timeline. */
export function signalSetAsideText(kind: SignalKind): string {
  const word = kindWord(kind);
  return `${word.charAt(0).toUpperCase()}${word.slice(1)} set aside: the agent had too many signals waiting`;
}

export function signalRaisedText(kind: SignalKind, malformed: boolean): string {
  if (malformed) return `The agent printed an unreadable ${kindWord(kind)} block`;
  switch (kind) {
    case 'clarification':
      return 'The agent asked for clarification';
    case 'stop_work':
      return 'The agent stopped work: blocked';
    case 'delegate':
      return 'The agent asked to delegate work';
    case 'completion':
      return 'The agent reported completion';
    default:
      return `The agent raised a ${kindWord(kind)} signal`;
  }
}

export function signalHandledText(response: SignalResponse): string {
  const word = actionWord(response.action);
  return `Signal ${response.action === 'dismiss' ? word : `handled: ${word}`}`;
}

/**
 * An error from `respond_to_signal`, for the dialog. The too-many-agents refusal says that
 * nothing was started and what to do, since the user will otherwise try again at once.
 */
export function responseErrorText(error: ApiError): string {
  switch (error.code) {
    case 'too_many_agents':
      return `No new agent was started: ${error.message}.`;
    case 'signal_state':
      return `This signal is no longer waiting: ${error.message}`;
    case 'signal_not_found':
      return `This signal is gone: ${error.message}`;
    default:
      return userMessage(error);
  }
}

// ---- responding -------------------------------------------------------------------------

/** The responses the engine says the signal takes now (none once it is handled). */
export function allowedActions(info: SignalInfo): readonly SignalAction[] {
  return info.actions;
}

/** Why a response was refused: the form field concerned (`index`: which answer), and words for the user. */
export interface ResponseProblem {
  field: 'action' | 'answers' | 'resolution' | 'fix' | 'profile_id' | 'reason';
  index: number | null;
  message: string;
}

/** The agent to preselect for delegated work: the requester's own, else the first there is. */
export function defaultDelegateProfile(info: SignalInfo, profiles: readonly Profile[]): ProfileId | null {
  if (profiles.some((p) => p.id === info.profile_id)) return info.profile_id;
  return profiles[0]?.id ?? null;
}
